"""The camera's pose (and focal length) from the board's ArUco markers, frame by frame.

The camera model is the one an uncalibrated webcam allows: principal point at the image
centre, square pixels, no distortion; only the focal length is unknown. It is estimated
(vision/pose_focal.py) from the plane homography of the marker corners (Zhang's two
constraints with the principal point known), refined with the pose by least squares, and
pulled towards a typical webcam's focal length as far as the view leaves it uncertain: seen nearly
fronto-parallel, a plane does not tell the focal length at all (the distance and the focal
length trade off exactly). The pose then still maps the board's surface right, and points
above it (the balls) move by a few per cent of their height at most.

With an intrinsics file (``camera_matrix`` 3x3, optional ``dist_coeffs``), the focal length
is taken from it instead. Fewer than :data:`MIN_MARKERS` markers: :class:`PoseError`, and
the caller reports the whole frame unknown.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import cv2
import numpy as np

from .geometry import Board
from .intrinsics import Intrinsics, IntrinsicsError
from .markers import marker_cells
from .pose_focal import CORNER_NOISE_PX, FOCAL_PRIOR_SIGMA, default_focal, estimate_focal, principal_point

#: markers needed: three, whose twelve corners span the board. Two markers' corners lie in
#: a narrow band, which leaves the tilt about the line through them loose (9 px of error on
#: the balls of a rendered frame, even with the focal length known) and the focal length
#: unknown; one marker is a 30 mm base.
MIN_MARKERS = 3
#: a pose whose marker corners reproject worse than this (px, RMS) is refused, in frames up
#: to :data:`REFERENCE_SIDE` px on their long side; proportionally more in larger ones,
#: where the same softness of the lens or of an upscaled frame spreads over more pixels (a
#: 1280x720 frame scaled up three times fitted its markers to 3.7 px where it had 1.2 px)
MAX_REPROJECTION_PX = 3.0
REFERENCE_SIDE = 1920
#: a marker found as a dark quadrilateral but not decoded (:func:`complete`) has corners
#: ArUco did not refine: each coordinate is taken to be off by this share of the marker's
#: side (pixels) when that is more than the decoded ones' noise. A small marker is left
#: undecoded for its size, and its corners are about as good as a decoded one's (1.2 px
#: RMS at 12-25 px across); a large one for a hand or a shadow across it, which moves
#: them (3-5 px at 25-53 px across; 0.08-0.13 of the side at the 90th percentile, 92
#: markers on 1,500 frames). Fitted as an equal, a hand's shadow across one of three
#: markers (seed 2,102,585, corners 3 px inwards) took the focal length 16 % off and put
#: the level-2 balls a quarter of a ball away, where two red balls were read empty
ROUGH_CORNER_SHARE = 0.08


class PoseError(ValueError):
    """No usable pose in this frame: says why (no board, too few markers, a bad fit)."""


@dataclass(frozen=True, eq=False)
class Pose:
    """The camera for one frame: ``K`` (3x3), ``R``, ``t`` (world mm -> camera, OpenCV
    convention), distortion, the marker ids used, the corners' RMS reprojection error in
    pixels and where the focal length came from (``intrinsics``, ``estimated``,
    ``default``: nearly fronto-parallel, or ``blend`` of the two)."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    markers: tuple[int, ...]
    reprojection_px: float
    focal_source: str = "estimated"
    dist: np.ndarray | None = None
    size: tuple[int, int] = (0, 0)
    #: covariance of (rotation vector, translation, log focal length) from the corners' fit;
    #: 6 x 6 when the focal length is given (intrinsics), None when not known
    covariance: np.ndarray | None = None

    @property
    def focal(self) -> float:
        return float(self.K[0, 0])

    @property
    def centre(self) -> np.ndarray:
        """The camera's position in board coordinates (mm)."""
        return -self.R.T @ self.t

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(points, dtype=np.float64).reshape(-1, 3) @ self.R.T + self.t

    def project(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Pixel coordinates (N x 2) of board points (N x 3 mm); NaN behind the camera."""
        c = self.to_camera(np.asarray(points, dtype=np.float64))
        with np.errstate(divide="ignore", invalid="ignore"):
            x, y = c[:, 0] / c[:, 2], c[:, 1] / c[:, 2]
        if self.dist is not None and self.dist.size and np.any(self.dist):
            uv, _ = cv2.projectPoints(np.stack([x, y, np.ones_like(x)], 1), np.zeros(3), np.zeros(3), self.K, self.dist)
            uv = uv.reshape(-1, 2)
        else:
            uv = np.stack([self.K[0, 0] * x + self.K[0, 2], self.K[1, 1] * y + self.K[1, 2]], 1)
        uv[c[:, 2] <= 1e-9] = np.nan
        return uv

    def pixels(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """(row, column) of the nearest pixel to each board point's image (N x 2 integers),
        -1 where it falls outside the image or behind the camera: where to sample."""
        uv = self.project(points)
        col, row = np.rint(uv[:, 0]), np.rint(uv[:, 1])
        w, h = self.size
        inside = np.isfinite(uv).all(axis=1) & (col >= 0) & (col < w) & (row >= 0) & (row < h)
        return np.where(inside[:, None], np.stack([row, col], axis=1), -1).astype(np.intp)

    def spread(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """How far (pixels, one standard deviation) each board point's image may be from
        where :meth:`project` puts it, as far as the markers pin the pose down: small on
        the plate between the markers, larger above it (a ball on level 4), largest when
        few, small or blurred markers leave the tilt or the focal length loose. Zeros when
        the covariance is not known."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if self.covariance is None:
            return np.zeros(len(pts))
        J = _jacobian(pts, self, len(self.covariance))  # (2N) x P
        var = np.einsum("ij,jk,ik->i", J, self.covariance, J).reshape(-1, 2)
        return np.sqrt(np.maximum(var.sum(axis=1), 0.0))


def _project_with(points: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray,
                  dist: np.ndarray | None) -> np.ndarray:
    uv, _ = cv2.projectPoints(points, rvec, tvec, K, dist)
    return uv.reshape(-1)


def _jacobian(points: np.ndarray, pose: Pose, params: int) -> np.ndarray:
    """d(pixel coordinates) / d(rotation vector, translation[, log focal]), numerically."""
    rvec, _ = cv2.Rodrigues(pose.R)
    theta = np.concatenate([rvec.reshape(3), pose.t.reshape(3), [0.0]])[:params]
    steps = np.array([1e-5] * 3 + [1e-3] * 3 + [1e-5])[:params]

    def at(th: np.ndarray) -> np.ndarray:
        K = pose.K.copy()
        if params > 6:
            K[0, 0] *= math.exp(th[6])
            K[1, 1] *= math.exp(th[6])
        return _project_with(points, th[:3], th[3:6], K, pose.dist)

    cols = []
    for k in range(params):
        d = np.zeros(params)
        d[k] = steps[k]
        cols.append((at(theta + d) - at(theta - d)) / (2 * steps[k]))
    return np.stack(cols, axis=1)


@lru_cache(maxsize=8)
def _detector(dictionary: str, contour: bool = True) -> cv2.aruco.ArucoDetector:
    """``contour``: refine corners by the marker's contour lines, the most accurate on
    rendered frames; else by sub-pixel corner search."""
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)),
                                   detector_parameters(contour))


def detector_parameters(contour: bool = True) -> cv2.aruco.DetectorParameters:
    """The ArUco settings every marker search uses (a fresh object: callers may narrow it)."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_CONTOUR if contour else cv2.aruco.CORNER_REFINE_SUBPIX
    # small, blurred markers: read each cell's middle only, at a finer grid, and try more
    # threshold windows (on rendered 640x480 frames: 81 % of markers found, against 68 %)
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    params.perspectiveRemovePixelPerCell = 8
    params.maxErroneousBitsInBorderRate = 0.6
    params.adaptiveThreshWinSizeMin = 3
    params.adaptiveThreshWinSizeMax = 33
    params.adaptiveThreshWinSizeStep = 4
    return params


#: the largest frame side read (pixels): samples are gathered through OpenCV's 16-bit maps
MAX_SIDE = 32767


def check_frame(image: np.ndarray) -> None:
    """PoseError unless ``image`` is an 8-bit grey or BGR frame (without converting it:
    a frame whose pose is known needs no grey copy)."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise PoseError("not an image (expected an H x W or H x W x 3 array)")
    if image.dtype != np.uint8:
        raise PoseError(f"expected an 8-bit image, got {image.dtype}")
    if image.ndim == 3 and image.shape[2] not in (1, 3):
        raise PoseError(f"expected 1 or 3 channels, got {image.shape[2]}")
    if max(image.shape[:2]) > MAX_SIDE:
        raise PoseError(f"frame of {image.shape[1]}x{image.shape[0]} pixels is too large (at most {MAX_SIDE} a side)")


def as_grey(image: np.ndarray) -> np.ndarray:
    """A uint8 greyscale view of a BGR or grey frame; PoseError for anything else."""
    check_frame(image)
    if image.ndim == 3:
        if image.shape[2] == 1:
            return image[..., 0]
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return image


def _detect(grey: np.ndarray, dictionary: str) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
    try:
        corners, ids, rejected = _detector(dictionary).detectMarkers(grey)
    except cv2.error:
        # OpenCV's contour refinement fails an assertion on some candidates (a contour
        # side with too few points; seen on a rendered 640x480 frame with OpenCV 5.0):
        # the frame is looked at again with the sub-pixel corner search
        corners, ids, rejected = _detector(dictionary, contour=False).detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    twice: set[int] = set()
    for c, i in zip(corners, ids.reshape(-1) if ids is not None else ()):
        i = int(i)
        if i in found:
            twice.add(i)
        found[i] = c.reshape(4, 2).astype(np.float64)
    quads = [r.reshape(4, 2).astype(np.float64) for r in rejected]
    return {i: c for i, c in found.items() if i not in twice}, quads


def detect(image: np.ndarray, dictionary: str, *, want: Iterable[int] = ()) -> dict[int, np.ndarray]:
    """Every marker of ``dictionary`` seen once: id -> its 4 corners (4 x 2, ArUco order).
    An id seen twice is dropped (a reflection or a second sheet cannot be trusted). When
    some of the ``want`` ids are missing from a small frame, it is looked at again at twice
    the size (small markers decode better there)."""
    return detect_with_quads(image, dictionary, want=want)[0]


def detect_with_quads(image: np.ndarray, dictionary: str, *,
                      want: Iterable[int] = ()) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
    """:func:`detect`, and the dark quadrilaterals that were not decoded (candidates for
    markers too small or too blurred to read)."""
    grey = as_grey(image)
    found, quads = _detect(grey, dictionary)
    want = set(want)
    if want and not want <= set(found) and max(grey.shape) <= 1400:
        big = cv2.resize(grey, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
        more, more_quads = _detect(big, dictionary)
        for i, c in more.items():
            found.setdefault(i, from_twice(c))
        quads += [from_twice(q) for q in more_quads]
    return found, quads


def from_twice(points: np.ndarray) -> np.ndarray:
    """Pixel coordinates found in an image resized to twice its size, in the original."""
    return _from_scale(points, 2)


def _from_scale(points: np.ndarray, scale: int) -> np.ndarray:
    """Pixel coordinates found in an image resized to ``scale`` times its size, in the original."""
    return (points + 0.5) / scale - 0.5


def identify(frame: np.ndarray, boards: Iterable[Board]) -> tuple[Board, dict[int, np.ndarray]] | None:
    """The board in view (the one with most of its marker ids detected) and its
    detections; None when no board's marker is seen."""
    best: tuple[int, Board, dict[int, np.ndarray]] | None = None
    cache: dict[str, dict[int, np.ndarray]] = {}
    for board in boards:
        if board.dictionary not in cache:
            cache[board.dictionary] = detect(frame, board.dictionary)
        ids = {m.id for m in board.markers}
        mine = {i: c for i, c in cache[board.dictionary].items() if i in ids}
        if mine and (best is None or len(mine) > best[0]):
            best = (len(mine), board, mine)
    return None if best is None else (best[1], best[2])


def estimate(detections: Mapping[int, np.ndarray], board: Board, size: tuple[int, int], *,
             intrinsics: Intrinsics | None = None, rough: Iterable[int] = (), least: int = MIN_MARKERS) -> Pose:
    """The pose from detected markers (id -> 4 x 2 corners) of ``board`` in an image of
    ``size`` (width, height); the markers ``rough`` (not decoded, :func:`complete`) may
    weigh less (:data:`ROUGH_CORNER_SHARE`). PoseError when fewer than ``least`` markers
    or a bad fit (``least`` 2 gives the loose pose that looks for the others by their
    pattern, vision/pose_match.py)."""
    width, height = size
    by_id = {m.id: m for m in board.markers}
    used = sorted(i for i in detections if i in by_id)
    if len(used) < least:
        seen = {0: "no marker", 1: f"only marker {used[0] if used else ''}"}.get(
            len(used), "only markers " + " and ".join(str(i) for i in used))
        raise PoseError(f"{seen} of {board.name} in view; the pose needs at least {MIN_MARKERS}")
    obj = np.array([c for i in used for c in board.marker_corners(by_id[i])], dtype=np.float64)
    img = np.concatenate([detections[i] for i in used]).astype(np.float64)
    if intrinsics is not None:
        if intrinsics.size != (width, height):
            try:
                intrinsics = intrinsics.scaled(width, height)  # the same camera at another resolution
            except IntrinsicsError as exc:
                raise PoseError(str(exc)) from None
        K, dist, source = intrinsics.K, intrinsics.dist, "intrinsics"
    else:
        f, source = estimate_focal(obj, img, width, height)
        cx, cy = principal_point(width, height)
        K, dist = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]]), np.zeros(0)
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, dist if dist.size else None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise PoseError("the markers do not give a pose")
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, dist if dist.size else None, rvec, tvec)
    R, _ = cv2.Rodrigues(rvec)
    t = tvec.reshape(3)
    pose = Pose(K, R, t, tuple(used), 0.0, source, dist if dist.size else None, (width, height))
    err = _rms(pose, obj, img)
    if not math.isfinite(err) or err > max_reprojection(size):
        raise PoseError(f"the markers of {board.name} do not fit one plane view ({err:.1f} px RMS)")
    if (pose.to_camera(obj)[:, 2] <= 0).any() or pose.centre[2] <= 0:
        raise PoseError("the pose puts the camera below the board")
    pose = Pose(K, R, t, tuple(used), err, source, dist if dist.size else None, (width, height))
    focal_free = source != "intrinsics"
    noise = _corner_noise(pose, obj, focal_free)
    rough = set(rough)
    sigma = np.repeat([max(noise, ROUGH_CORNER_SHARE * mean_side(detections[i])) if i in rough else noise
                       for i in used], 8)
    if (sigma > noise).any():
        pose = _weighted_fit(pose, obj, img, sigma, focal_free)
    return dataclasses.replace(pose, covariance=_covariance(pose, obj, focal_free, sigma))


def max_reprojection(size: tuple[int, int]) -> float:
    """The worst RMS reprojection error (px) a pose may have in a frame of ``size``."""
    return MAX_REPROJECTION_PX * max(1.0, max(size) / REFERENCE_SIDE)


def _rms(pose: Pose, obj: np.ndarray, img: np.ndarray) -> float:
    """The RMS distance (px) between the board points ``obj`` as ``pose`` projects them
    and where they were found (``img``)."""
    return float(np.sqrt(np.mean(np.sum((pose.project(obj) - img) ** 2, axis=1))))


def mean_side(corners: np.ndarray) -> float:
    """A quadrilateral's mean side length (pixels)."""
    c = np.asarray(corners, dtype=np.float64)
    return float(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)))


def _corner_noise(pose: Pose, obj: np.ndarray, focal_free: bool) -> float:
    """How far (px, per coordinate) the corners are taken to be off: :data:`CORNER_NOISE_PX`
    or the fit's own error when worse."""
    params = 7 if focal_free else 6
    dof = max(1, 2 * len(obj) - params)
    return max(CORNER_NOISE_PX, pose.reprojection_px * math.sqrt(len(obj) / dof))


def _weighted_fit(pose: Pose, obj: np.ndarray, img: np.ndarray, sigma: np.ndarray, focal_free: bool) -> Pose:
    """The pose (and log focal length, held by its prior, when it is free) refitted with
    each corner coordinate weighted by 1 / ``sigma`` squared: Gauss-Newton from ``pose``."""
    params = 7 if focal_free else 6
    rvec, _ = cv2.Rodrigues(pose.R)
    theta = np.concatenate([rvec.reshape(3), pose.t, [math.log(pose.focal)]])[:params]
    prior = math.log(default_focal(pose.size[0]))
    current = pose
    for _ in range(20):
        r = (current.project(obj) - img).reshape(-1) / sigma
        J = _jacobian(obj, current, params) / sigma[:, None]
        A, g = J.T @ J, J.T @ r
        if focal_free:
            A[6, 6] += 1.0 / FOCAL_PRIOR_SIGMA ** 2
            g[6] += (theta[6] - prior) / FOCAL_PRIOR_SIGMA ** 2
        try:
            step = np.linalg.solve(A, -g)
        except np.linalg.LinAlgError:
            return pose
        theta = theta + step
        K = pose.K.copy()
        if focal_free:
            K[0, 0] = K[1, 1] = math.exp(theta[6])
        current = dataclasses.replace(pose, K=K, R=cv2.Rodrigues(theta[:3])[0], t=theta[3:6].copy())
        if np.abs(step).max() < 1e-8:
            break
    err = _rms(current, obj, img)
    if not math.isfinite(err) or err > max_reprojection(pose.size) or current.centre[2] <= 0:
        return pose
    return dataclasses.replace(current, reprojection_px=err)


def _covariance(pose: Pose, obj: np.ndarray, focal_free: bool, sigma: np.ndarray) -> np.ndarray:
    """The covariance of the pose's parameters (and log focal length when it was not
    given) from the corners' fit: Gauss-Newton, each corner coordinate off by ``sigma``
    (:func:`_corner_noise`, more for rough markers), the focal length held by its prior as
    far as the view leaves it loose."""
    params = 7 if focal_free else 6
    J = _jacobian(obj, pose, params) / sigma[:, None]
    info = J.T @ J
    if focal_free:
        info[6, 6] += 1.0 / FOCAL_PRIOR_SIGMA ** 2
    try:
        return np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return np.diag(np.full(params, 1e6))


def _rough_pose(found: Mapping[int, np.ndarray], board: Board,
                size: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Pose hypotheses (K, rvec, tvec) from whatever markers were decoded, with the
    typical focal length: one marker gives two (a small square's pose is ambiguous)."""
    by_id = {m.id: m for m in board.markers}
    ids = [i for i in found if i in by_id]
    f = default_focal(size[0])
    cx, cy = principal_point(*size)
    K = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
    obj = np.array([c for i in ids for c in board.marker_corners(by_id[i])], dtype=np.float64)
    img = np.concatenate([found[i] for i in ids]).astype(np.float64)
    flag = cv2.SOLVEPNP_IPPE_SQUARE if len(ids) == 1 else cv2.SOLVEPNP_IPPE
    if len(ids) == 1:  # IPPE_SQUARE wants the square centred on its own origin
        centre = np.array([*by_id[ids[0]].centre, 0.0])
        obj = obj - centre
    try:
        n, rvecs, tvecs, _ = cv2.solvePnPGeneric(obj, img, K, None, flags=flag)
    except cv2.error:
        return []
    out = []
    for r, t in zip(rvecs, tvecs):
        if len(ids) == 1:
            R, _ = cv2.Rodrigues(r)
            t = t.reshape(3) - R @ centre
        out.append((K, r.reshape(3), np.asarray(t, dtype=np.float64).reshape(3)))
    return out


def complete(found: dict[int, np.ndarray], quads: list[np.ndarray], board: Board,
             grey: np.ndarray) -> dict[int, np.ndarray]:
    """Markers that were seen as dark quadrilaterals but not decoded, added where a rough
    pose from the decoded ones predicts a marker of the board: the quadrilateral must lie
    where the marker should be (within a third of its size), be about its size, and show
    that marker's pattern of cells more or less (:func:`shows_marker`: a dark tile or a
    shadow of the right size is not a marker); its corners are taken in the predicted
    order. Each marker added refines the rough pose that looks for the rest."""
    size = (grey.shape[1], grey.shape[0])
    by_id = {m.id: m for m in board.markers}
    missing = [i for i in by_id if i not in found]
    if not missing or not quads or not any(i in by_id for i in found):
        return found
    centres = np.array([q.mean(axis=0) for q in quads])
    best: dict[int, np.ndarray] | None = None
    for K, rvec, tvec in _rough_pose(found, board, size):
        added = dict(found)
        for i in missing:
            corners = np.array(board.marker_corners(by_id[i]), dtype=np.float64)
            pred, _ = cv2.projectPoints(corners, rvec, tvec, K, None)
            pred = pred.reshape(4, 2)
            side = mean_side(pred)
            d = np.linalg.norm(centres - pred.mean(axis=0), axis=1)
            k = int(d.argmin())
            if d[k] > max(side / 3, 3.0):
                continue
            q = quads[k]
            q_side = mean_side(q)
            if not 0.75 < q_side / side < 1.33:
                continue
            turns = [np.roll(q, -r, axis=0) for r in range(4)] + [np.roll(q[::-1], -r, axis=0) for r in range(4)]
            errs = [float(np.mean(np.linalg.norm(tq - pred, axis=1))) for tq in turns]
            j = int(np.argmin(errs))
            if errs[j] < max(side / 4, 2.5) and shows_marker(grey, turns[j], board.dictionary, i):
                added[i] = turns[j]
        if best is None or len(added) > len(best):
            best = added
    if best is None or len(best) == len(found):
        return found
    # a marker added makes the next rough pose better: two markers and a guessed focal
    # length can each predict a different missing marker well enough, but not both
    # (seed 3600412, far colours: 0 or 2 by pose hypothesis, both with three markers)
    return complete(best, quads, board, grey)


#: a quadrilateral shows a marker when its cells' brightness follows the marker's pattern
#: this closely (correlation) with at least this much contrast (grey levels) between the
#: marker's white and black cells: blur and a few wrong cells pass, a plain square does not
PATTERN_CORRELATION = 0.6
PATTERN_CONTRAST = 20.0


@lru_cache(maxsize=64)
def _cells(dictionary: str, marker_id: int) -> np.ndarray:
    return marker_cells(dictionary, marker_id).astype(np.float64)


def shows_marker(grey: np.ndarray, corners: np.ndarray, dictionary: str, marker_id: int) -> bool:
    """Whether the quadrilateral ``corners`` (ArUco order) of ``grey`` shows marker
    ``marker_id``'s cells (black and white) closely enough to be taken for it."""
    cells = _cells(dictionary, marker_id)
    n, px = len(cells), 8
    dst = np.array([(0, 0), (n * px, 0), (n * px, n * px), (0, n * px)], dtype=np.float32)
    H = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    warped = cv2.warpPerspective(grey, H, (n * px, n * px), flags=cv2.INTER_LINEAR).astype(np.float64)
    means = warped.reshape(n, px, n, px)[:, 2:6, :, 2:6].mean(axis=(1, 3))
    black, white = means[cells > 0.5], means[cells < 0.5]
    if white.size == 0 or float(white.mean() - black.mean()) < PATTERN_CONTRAST:
        return False
    r = np.corrcoef(means.reshape(-1), -cells.reshape(-1))[0, 1]
    return bool(np.isfinite(r) and r >= PATTERN_CORRELATION)


def estimate_pose(image: np.ndarray, board: Board, *, intrinsics: Intrinsics | None = None) -> Pose:
    """Detect ``board``'s markers in ``image`` and estimate the pose (PoseError if not).
    Markers that are too small or blurred to decode but sit where the decoded ones say
    they should are used too (:func:`complete`), at less weight; the final fit must still
    hold."""
    grey = as_grey(image)
    found, quads = detect_with_quads(grey, board.dictionary, want={m.id for m in board.markers})
    return pose_from(found, quads, board, grey, intrinsics=intrinsics)


def pose_from(found: Mapping[int, np.ndarray], quads: list[np.ndarray], board: Board, grey: np.ndarray, *,
              intrinsics: Intrinsics | None = None) -> Pose:
    """:func:`estimate_pose` from markers already detected in ``grey`` (id -> corners) and
    the quadrilaterals left undecoded."""
    markers, rough = pose_markers(found, quads, board, grey, intrinsics=intrinsics)
    return estimate(markers, board, (grey.shape[1], grey.shape[0]), intrinsics=intrinsics, rough=rough)


def pose_markers(found: Mapping[int, np.ndarray], quads: list[np.ndarray], board: Board, grey: np.ndarray, *,
                 intrinsics: Intrinsics | None = None) -> tuple[dict[int, np.ndarray], set[int]]:
    """The markers a pose of ``grey`` rests on (id -> corners): the board's decoded ones,
    those :func:`complete` takes from the quadrilaterals left and, when that leaves two,
    those found by their pattern; and which of them are rough (not decoded). When that
    is too few for a pose, a small frame's markers are decoded again, larger
    (vision/pose_far.py)."""
    ids = {m.id for m in board.markers}
    decoded = {i: c for i, c in found.items() if i in ids}
    markers = _completed(decoded, quads, board, grey, intrinsics)
    if len(markers) < MIN_MARKERS:
        from .pose_far import decoded_again  # it calls :func:`_detect` of this module

        more = decoded_again(grey, board.dictionary, decoded, ids)
        if len(more) > len(decoded):
            decoded, markers = more, _completed(more, quads, board, grey, intrinsics)
    return markers, set(markers) - set(decoded)


def _completed(decoded: dict[int, np.ndarray], quads: list[np.ndarray], board: Board, grey: np.ndarray,
               intrinsics: Intrinsics | None) -> dict[int, np.ndarray]:
    """``decoded``, completed from ``quads`` and, if that leaves two, by their pattern."""
    markers = complete(decoded, quads, board, grey) if len(decoded) < len(board.markers) else decoded
    if len(markers) == MIN_MARKERS - 1:
        size = (grey.shape[1], grey.shape[0])
        markers = _by_pattern(markers, board, grey, size, intrinsics, set(markers) - set(decoded))
    return markers


def _by_pattern(found: dict[int, np.ndarray], board: Board, grey: np.ndarray, size: tuple[int, int],
                intrinsics: Intrinsics | None, rough: set[int]) -> dict[int, np.ndarray]:
    """Two markers: ``found`` and the missing ones found by their pattern where the loose
    pose of the two puts them (vision/pose_match.py), as rough markers."""
    from .pose_match import add_matched  # it calls :func:`shows_marker` of this module

    try:
        loose = estimate(found, board, size, intrinsics=intrinsics, rough=rough, least=MIN_MARKERS - 1)
    except PoseError:
        return found
    return add_matched(found, board, grey, loose)


def smooth(previous: Pose | None, current: Pose, *, alpha: float = 0.5, max_jump_mm: float = 5.0) -> Pose:
    """Exponential smoothing of the camera's position and focal length between frames; a
    jump of more than ``max_jump_mm`` (the camera or board moved) starts afresh."""
    if previous is None or previous.size != current.size or not set(previous.markers) & set(current.markers):
        return current
    if float(np.linalg.norm(previous.centre - current.centre)) > max_jump_mm:
        return current
    rp, _ = cv2.Rodrigues(previous.R)
    rc, _ = cv2.Rodrigues(current.R)
    R, _ = cv2.Rodrigues(alpha * rc + (1 - alpha) * rp)
    t = alpha * current.t + (1 - alpha) * previous.t
    K = alpha * current.K + (1 - alpha) * previous.K
    return Pose(K, R, t, current.markers, current.reprojection_px, current.focal_source, current.dist, current.size,
                current.covariance)
