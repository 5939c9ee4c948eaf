"""Where a hand reaches over a pyramid board in the image: the arm followed in from the band.

The band round the plate (vision/recognize_hands.py) tells that an arm crosses into view
and where. Told only that, the model must distrust every place: skin over the plate's wood
looks like an empty hollow, so where a hand is cannot be told place by place. The arm is
one body, though, from where it crosses the band to the fingertips, above every ball, so
nothing hides it: its colour, measured where it crosses the band, grown through the image
from there, finds it. The places whose image lies well clear of what was grown are read as
in a frame without a hand, against the plate's tint measured clear of it too; the rest as
before. Where the plate, a ball or the table is as near the arm's colour, the growth takes
them too: more places are distrusted, never fewer. Followed from pixel to pixel (a palm
lit otherwise than its forearm), the growth does not step on the table's colour nor the
plate's, each measured in the frame. The hand's shadow is not grown: where the model told
of the arm still doubts a place clear of it, the place stays doubted
(``Thresholds.hand_told``, vision/recognize_balls.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import Board
from .pose import Pose
from .recognize_colour import EPS, LINEAR, distance, log_chroma, luminance
from .recognize_hands import BALL_REACH, HandSigns
from .render_camera import PLATE_THICKNESS, plate_corners

#: the image is grown at a scale where the smallest ball's radius is about this many pixels
#: (never above the frame's own): a finer scale costs time (finer ones were not tried)
BALL_PX = 5.0
#: a pixel is like the arm where its chromaticity (log ratios) lies within GROW_CHROMA of
#: the arm's where it crosses the band, or farther where those samples' own spread calls
#: for it (GROW_SPREAD times the distance three quarters of them are within), but never
#: farther than GROW_CAP; and it is at most GROW_LEVEL times as bright as the arm there
#: and at least 1 / GROW_DARK as bright: a hand's shaded side and fingers in a room's
#: shadow were 5-7 times darker than the forearm (at 4, 2600060 in a room's shadow left a
#: place the fingers cover a third of clear)
GROW_CHROMA = 0.2
GROW_SPREAD = 2.5
GROW_CAP = 0.45
GROW_LEVEL = 4.0
GROW_DARK = 8.0
#: ... and, since a hand lit otherwise than its forearm is another colour (2600088 with far
#: colours: the palm 0.31 from the forearm, 1.5 times as bright), the arm is followed from
#: its crossings pixel to neighbouring pixel too, each step within FOLLOW_STEP in either
#: log ratio and in the log brightness times FOLLOW_LEVEL (0.3 in log brightness)
FOLLOW_STEP = 0.1
FOLLOW_LEVEL = 1.0 / 3.0
#: gaps narrower than this share of a ball's radius in what was grown are closed over: the
#: creases between fingers
CLOSE = 1.0
#: a place is clear of the arm where no pixel grown lies within its ball's image (its
#: radius grown by BALL_REACH) and this many pixels more (blur; a finger's outline, mixed
#: with what lies behind it)
CLEAR_PX = 6.0
#: the follow does not step on the table's colour nor the plate's (:func:`ground_like`),
#: each measured over GROUND_PIXELS or more (the table beyond the plate's outline, the
#: plate clear of the balls' places): pixels within GROUND_CHROMA of it and GROUND_NEARER
#: times as near it as the arm's, between 1 / GROUND_LEVEL and GROUND_LEVEL times its
#: brightness, in patches 3 pixels wide or more. Barred wherever nearer it than the arm's,
#: a hand's palm was taken for the plate (2600088 with far colours: 0.31 from the forearm,
#: 0.63 from the plate); without the brightness, a dark hand's shaded side in a room's
#: shadow for the table (2600109). The medians are taken over every GROUND_STRIDE-th pixel
GROUND_CHROMA = 0.3
GROUND_NEARER = 0.5
GROUND_LEVEL = 2.0
GROUND_PIXELS = 50
GROUND_STRIDE = 4
#: a place the arm comes within ARM_OVER of its ball's image radius of is under it: the
#: support rules do not read it empty from a support read so (vision/recognize_balls.py,
#: ``settle``)
ARM_OVER = 1.0


@dataclass(frozen=True, slots=True)
class Reach:
    """The arm as grown, kept as each pixel's distance (in full-size pixels) from the
    nearest pixel of it, over a ``box`` of the frame at ``scale``."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 of the frame
    scale: float
    gap: np.ndarray

    def clear(self, uv: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
        """Which image discs (centres ``uv``, N x 2; ``radius_px``) lie clear of the arm."""
        return self.gap_at(uv) > BALL_REACH * radius_px + CLEAR_PX

    def over(self, uv: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
        """Which image discs the arm lies over: it comes within ARM_OVER of a radius of the
        centre (or the centre is out of the image)."""
        return self.gap_at(uv) <= ARM_OVER * radius_px

    def gap_at(self, uv: np.ndarray) -> np.ndarray:
        """The distance (full-size pixels) from each image point (N x 2) to the arm; 0
        for a point not in the image (nothing there is known clear)."""
        x0, y0 = self.box[:2]
        h, w = self.gap.shape
        inside = np.isfinite(uv).all(axis=1)
        uv = np.where(inside[:, None], uv, 0.0)
        col = np.clip(np.rint((uv[:, 0] - x0) * self.scale).astype(np.intp), 0, w - 1)
        row = np.clip(np.rint((uv[:, 1] - y0) * self.scale).astype(np.intp), 0, h - 1)
        return np.where(inside, self.gap[row, col], 0.0)


def arm_reach(image: np.ndarray, pose: Pose, board: Board, hands: HandSigns, centres: np.ndarray,
              radius_px: np.ndarray) -> Reach | None:
    """The arms crossing the band at ``hands``, grown through the image over the board
    (the ball positions' image ``centres`` and ``radius_px`` give its extent and the
    scale); None where no crossing lies in the image."""
    h, w = image.shape[:2]
    seeds = pose.project(np.column_stack([hands.crossings, np.full(len(hands.crossings), -PLATE_THICKNESS)]))
    seeds = seeds[np.isfinite(seeds).all(axis=1)]
    seeds = seeds[(seeds[:, 0] >= 0) & (seeds[:, 0] < w) & (seeds[:, 1] >= 0) & (seeds[:, 1] < h)]
    if not len(seeds):
        return None
    margin = BALL_REACH * float(np.max(radius_px)) + CLEAR_PX
    pts = np.concatenate([pose.project(plate_corners(board)), seeds, centres - margin, centres + margin])
    pts = pts[np.isfinite(pts).all(axis=1)]
    x0, y0 = (int(max(np.floor(pts[:, k].min()), 0)) for k in (0, 1))
    x1, y1 = int(min(np.ceil(pts[:, 0].max()) + 1, w)), int(min(np.ceil(pts[:, 1].max()) + 1, h))
    scale = min(1.0, BALL_PX / max(float(np.min(radius_px)), 1e-6))
    crop = image[y0:y1, x0:x1]
    if crop.ndim == 2:
        crop = np.repeat(crop[..., None], 3, axis=2)
    small = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1.0 else crop
    sh, sw = small.shape[:2]
    at = (np.clip(np.rint((seeds[:, 1] - y0) * scale).astype(np.intp), 0, sh - 1),
          np.clip(np.rint((seeds[:, 0] - x0) * scale).astype(np.intp), 0, sw - 1))
    grounds = ground_masks(pose, board, centres, radius_px, (x0, y0), scale, (sh, sw))
    arm = grow(LINEAR[small[..., ::-1]], at, grounds)
    gap = cv2.distanceTransform((~arm).astype(np.uint8), cv2.DIST_L2, 3) / scale
    return Reach((x0, y0, x1, y1), scale, gap)


def ground_masks(pose: Pose, board: Board, centres: np.ndarray, radius_px: np.ndarray, origin: tuple[int, int],
                 scale: float, shape: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """Where the table and the plate show, in the grown image (``shape``, the frame from
    ``origin`` at ``scale``): beyond the plate's outline, and within it clear of every
    ball's place (``centres``, ``radius_px``): where :func:`grow` measures their colours."""
    corners = pose.project(plate_corners(board))
    if not np.isfinite(corners).all():
        return ()
    plate = np.zeros(shape, dtype=np.uint8)
    cv2.fillConvexPoly(plate, np.rint((corners - origin) * scale).astype(np.int32), 1)
    bare = plate.copy()
    for (u, v), r in zip((centres - origin) * scale, radius_px * scale * BALL_REACH):
        if np.isfinite(u) and np.isfinite(v):
            cv2.circle(bare, (int(round(u)), int(round(v))), int(np.ceil(r)), 0, -1)
    return plate == 0, bare > 0


def grow(lin: np.ndarray, at: tuple[np.ndarray, np.ndarray], grounds: Sequence[np.ndarray] = ()) -> np.ndarray:
    """The pixels of a linear RGB image (H x W x 3) taken for the arm whose crossings lie at
    pixels ``at`` (rows, columns): those like it in colour and joined to a crossing, and
    those followed from one step by step; gaps between fingers closed over. ``grounds``:
    where the table and the plate show (:func:`ground_masks`); their colours, measured there,
    are not followed (:func:`ground_like`)."""
    chroma = log_chroma(lin.reshape(-1, 3)).reshape(*lin.shape[:2], 2)
    lum = luminance(lin)
    ref = np.median(chroma[at], axis=0)
    ref_lum = max(float(np.median(lum[at])), EPS)
    spread = float(np.quantile(distance(*(chroma[at] - ref).T), 0.75))
    limit = min(max(GROW_CHROMA, GROW_SPREAD * spread), GROW_CAP)
    to_arm = distance(*np.moveaxis(chroma - ref, -1, 0))
    like = (to_arm <= limit) & (lum <= GROW_LEVEL * ref_lum) & (lum * GROW_DARK >= ref_lum)
    like[at] = True  # the crossings themselves are the arm
    _, labels = cv2.connectedComponents(like.astype(np.uint8), connectivity=8)
    arm = np.isin(labels, np.unique(labels[at])).astype(np.uint8)
    feat = np.concatenate([chroma, np.log(np.maximum(lum, EPS))[..., None] * FOLLOW_LEVEL], axis=-1)
    feat = np.ascontiguousarray(feat, dtype=np.float32)
    fill = np.zeros((lin.shape[0] + 2, lin.shape[1] + 2), dtype=np.uint8)
    free = arm == 0  # a ground's colour is measured where the arm's colour did not take it
    for ground in grounds:  # a mask's pixels set are never filled: the grounds', marked 2
        fill[1:-1, 1:-1][ground_like(chroma, lum, ref, to_arm, limit, ground & free)] = 2
    step = (FOLLOW_STEP,) * 3
    for r, c in set(zip(at[0].tolist(), at[1].tolist())):
        if not fill[r + 1, c + 1]:
            cv2.floodFill(feat, fill, (c, r), 0, step, step, 8 | cv2.FLOODFILL_MASK_ONLY | (1 << 8))
    arm |= (fill[1:-1, 1:-1] == 1).astype(np.uint8)
    size = 2 * int(round(CLOSE * BALL_PX)) + 1
    closed = cv2.morphologyEx(arm, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    return closed > 0


def ground_like(chroma: np.ndarray, lum: np.ndarray, ref: np.ndarray, to_arm: np.ndarray, limit: float,
                ground: np.ndarray) -> np.ndarray:
    """The pixels (of ``chroma``, H x W x 2 log ratios, and ``lum``) of a ground's colour,
    measured as the medians over ``ground`` (pixels not taken for the arm by its colour;
    every GROUND_STRIDE-th), that the follow must not step on. ``ref``: the arm's
    chromaticity, ``to_arm`` each pixel's distance from it, ``limit`` the arm's as grown.
    A step at a time it crossed the blurred edge from a hand to the table or the plate,
    and took the whole plate for the arm: a hand beside the board (path traced 9190000) or
    over a plate whose wood lies 0.45 from the skin (9190017). None where the ground lies
    within the arm's ``limit``: the arm's colour takes it anyway."""
    none = np.zeros(chroma.shape[:2], dtype=bool)
    at = np.flatnonzero(ground)
    if len(at) < GROUND_PIXELS:
        return none
    at = at[::GROUND_STRIDE]
    tone = np.median(chroma.reshape(-1, 2)[at], axis=0)
    if float(distance(*(tone - ref))) <= limit:
        return none
    level = float(np.median(lum.reshape(-1)[at]))
    to_ground = distance(*np.moveaxis(chroma - tone, -1, 0))
    like = (to_ground <= GROUND_CHROMA) & (to_ground <= GROUND_NEARER * to_arm) & (lum * GROUND_LEVEL >= level) \
        & (lum <= GROUND_LEVEL * level)
    return cv2.morphologyEx(like.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
