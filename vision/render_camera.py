"""The synthetic renderer's camera: an ideal pinhole (no lens distortion, principal point at
the image centre, square pixels) in OpenCV's convention, so what vision recovers from a
rendered frame (``cv2.solvePnP`` on the markers) can be compared with the truth directly.

Camera axes: x right, y down, z forward; ``R`` and ``t`` map world points (mm) into the
camera, ``X_cam = R @ X_world + t``. Pixel centres sit at integer coordinates, so the image
centre is ``((width - 1) / 2, (height - 1) / 2)``, as in ``cv2.getDefaultNewCameraMatrix``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .geometry import Board

Vec3 = tuple[float, float, float]
#: the resolutions a random camera picks from (the envelope recognition must handle)
RESOLUTIONS: tuple[tuple[int, int], ...] = ((640, 480), (800, 600), (1280, 720), (1920, 1080))
#: the plate's thickness: it stands on the table, its top at z = 0
PLATE_THICKNESS = 15.0
#: the white paper around each marker's black square
MARKER_PAPER = 4.0


def as_generator(rng: random.Random | np.random.Generator) -> np.random.Generator:
    """A NumPy Generator from either kind of injected randomness (a ``random.Random`` is
    drawn from once, so the same seed still gives the same result)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, random.Random):
        return np.random.default_rng(rng.getrandbits(64))
    raise TypeError(f"expected a random.Random or a numpy Generator, got {type(rng).__name__}")


def _unit(v: Sequence[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64)
    n = float(np.linalg.norm(a))
    if n == 0:
        raise ValueError("a direction of length 0")
    return a / n


@dataclass(frozen=True, eq=False)
class Camera:
    """An ideal pinhole camera: image size, focal lengths (pixels) and pose (world to
    camera). ``R`` and ``t`` are read-only float64 arrays."""

    width: int
    height: int
    fx: float
    fy: float
    R: np.ndarray
    t: np.ndarray

    def __post_init__(self) -> None:
        R = np.array(self.R, dtype=np.float64).reshape(3, 3)
        t = np.array(self.t, dtype=np.float64).reshape(3)
        if not np.allclose(R @ R.T, np.eye(3), atol=1e-6) or np.linalg.det(R) < 0:
            raise ValueError("Camera.R must be a rotation matrix")
        if self.width < 2 or self.height < 2 or self.fx <= 0 or self.fy <= 0:
            raise ValueError("a camera needs a size of at least 2x2 pixels and positive focal lengths")
        R.flags.writeable = False
        t.flags.writeable = False
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "t", t)

    @classmethod
    def look_at(cls, eye_mm: Sequence[float], target_mm: Sequence[float], fov_h_deg: float,
                width: int, height: int, roll_deg: float = 0.0, *, up: Sequence[float] | None = None) -> Camera:
        """A camera at ``eye_mm`` looking at ``target_mm`` with a horizontal field of view
        of ``fov_h_deg``. The image's up is towards ``up`` (world +z by default, +y when
        looking straight down); a positive ``roll_deg`` turns the camera clockwise about
        its viewing direction, as seen from behind it."""
        if not 0 < fov_h_deg < 180:
            raise ValueError(f"a field of view must be between 0 and 180 degrees, got {fov_h_deg}")
        eye = np.asarray(eye_mm, dtype=np.float64)
        forward = _unit(np.asarray(target_mm, dtype=np.float64) - eye)
        hint = np.array([0.0, 0.0, 1.0]) if up is None else _unit(up)
        if abs(float(forward @ hint)) > 0.9999:
            hint = np.array([0.0, 1.0, 0.0]) if up is None else hint
        right = np.cross(forward, hint)
        if np.linalg.norm(right) < 1e-9:
            raise ValueError("look_at: the up direction is along the viewing direction")
        right = _unit(right)
        down = np.cross(forward, right)
        R = np.stack([right, down, forward])
        c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
        R = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]]) @ R
        f = (width / 2) / math.tan(math.radians(fov_h_deg) / 2)
        return cls(width, height, f, f, R, -R @ eye)

    @property
    def K(self) -> np.ndarray:
        """The 3x3 intrinsic matrix (principal point at the image centre)."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def cx(self) -> float:
        return (self.width - 1) / 2

    @property
    def cy(self) -> float:
        return (self.height - 1) / 2

    @property
    def centre(self) -> np.ndarray:
        """The camera's position in the world (mm)."""
        return -self.R.T @ self.t

    @property
    def fov_h_deg(self) -> float:
        return math.degrees(2 * math.atan(self.width / 2 / self.fx))

    def to_camera(self, points_mm: Iterable[Sequence[float]] | np.ndarray) -> np.ndarray:
        """World points (N x 3) in camera coordinates (N x 3, z = depth along the axis)."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        return p @ self.R.T + self.t

    def project(self, points_mm: Iterable[Sequence[float]] | np.ndarray) -> np.ndarray:
        """Pixel coordinates (N x 2) of world points; NaN for points not in front of the
        camera."""
        c = self.to_camera(points_mm)
        with np.errstate(divide="ignore", invalid="ignore"):
            u = self.fx * c[:, 0] / c[:, 2] + self.cx
            v = self.fy * c[:, 1] / c[:, 2] + self.cy
        uv = np.stack([u, v], axis=1)
        uv[c[:, 2] <= 1e-9] = np.nan
        return uv

    def rays(self) -> np.ndarray:
        """The unit direction (world) of the ray through every pixel centre: H x W x 3."""
        x = (np.arange(self.width, dtype=np.float64) - self.cx) / self.fx
        y = (np.arange(self.height, dtype=np.float64) - self.cy) / self.fy
        R = self.R
        d = (x[None, :, None] * R[0] + y[:, None, None] * R[1]) + R[2]
        return d / np.sqrt(np.einsum("...i,...i->...", d, d))[..., None]

    def scaled(self, factor: int) -> Camera:
        """The same view at ``factor`` times the resolution (for supersampling: averaging
        each factor x factor block gives this camera's pixels back)."""
        return Camera(self.width * factor, self.height * factor, self.fx * factor, self.fy * factor, self.R, self.t)


def plate_corners(board: Board) -> list[tuple[float, float, float]]:
    """The plate's eight corners (mm): its top face's and, a plate's thickness down, its
    bottom's."""
    w, d = board.plate[0] / 2, board.plate[1] / 2
    return [(sx * w, sy * d, z) for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, -PLATE_THICKNESS)]


def plate_points(board: Board) -> np.ndarray:
    """Points that must be in view to see the whole board: the plate's eight corners and
    every marker's paper corners."""
    pts = plate_corners(board)
    h = board.marker_size / 2 + MARKER_PAPER
    for m in board.markers:
        x, y = m.centre
        pts += [(x + sx * h, y + sy * h, 0.0) for sx in (-1, 1) for sy in (-1, 1)]
    return np.array(pts)


def sees_board(camera: Camera, board: Board, margin: float = 0.03) -> bool:
    """Whether the whole plate and every marker lie inside the image, at least ``margin``
    (a fraction of the image width) from its edges."""
    uv = camera.project(plate_points(board))
    if np.isnan(uv).any():
        return False
    m = margin * camera.width
    return bool((uv[:, 0] >= m).all() and (uv[:, 0] <= camera.width - 1 - m).all()
                and (uv[:, 1] >= m).all() and (uv[:, 1] <= camera.height - 1 - m).all())


def random_camera(board: Board, rng: random.Random | np.random.Generator, *,
                  tilt_deg: tuple[float, float] = (0.0, 45.0), distance_mm: tuple[float, float] = (350.0, 800.0),
                  fov_deg: tuple[float, float] = (50.0, 90.0),
                  resolutions: Sequence[tuple[int, int]] = RESOLUTIONS,
                  roll_deg: float = 8.0, aim_mm: float = 15.0, margin: float = 0.03,
                  attempts: int = 10_000) -> Camera:
    """A camera pose in the envelope recognition must handle: ``tilt_deg`` off vertical in
    a random azimuth, ``distance_mm`` from a point within ``aim_mm`` of the plate's centre,
    a horizontal field of view in ``fov_deg``, one of ``resolutions`` and a roll within
    +-``roll_deg``. Drawn again until the whole plate and all markers are in view with
    ``margin``; ValueError when no draw fits in ``attempts``."""
    g = as_generator(rng)
    for _ in range(attempts):
        tilt = math.radians(g.uniform(*tilt_deg))
        azimuth = g.uniform(0, 2 * math.pi)
        distance = g.uniform(*distance_mm)
        fov = g.uniform(*fov_deg)
        width, height = resolutions[int(g.integers(len(resolutions)))]
        roll = g.uniform(-roll_deg, roll_deg)
        target = np.array([g.uniform(-aim_mm, aim_mm), g.uniform(-aim_mm, aim_mm), 0.0])
        away = np.array([math.cos(azimuth), math.sin(azimuth), 0.0])
        eye = target + distance * np.array([math.sin(tilt) * away[0], math.sin(tilt) * away[1], math.cos(tilt)])
        camera = Camera.look_at(eye, target, fov, width, height, roll, up=-away)
        if sees_board(camera, board, margin):
            return camera
    raise ValueError(f"no camera in the envelope sees the whole of {board.name} (tilt {tilt_deg}, "
                     f"distance {distance_mm}, fov {fov_deg}) after {attempts} draws")
