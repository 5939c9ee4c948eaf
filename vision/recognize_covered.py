"""A hand found where it lies over a marker.

The band round the plate (vision/recognize_hands.py) sees an arm by its colour against
the table's, and the plate's outline (vision/recognize_outline.py) where the arm hides
it. On a table of the skin's colour both can miss a hand that comes in over a corner:
the arm crosses the outline under a marker's paper, where no pair is taken. But it hides
the marker. A marker not decoded for other reasons (small, blurred, at a glancing angle,
in shade) still shows its black border against its white paper; a marker under a hand
shows skin on both. So each marker's border is compared with its paper, on two rings
round where the pose puts its centre: where the step between them is gone, something
lies over the marker. Every marker is judged, not only those the pose was found
without: a camera on a stand keeps the pose of an earlier frame, with all its markers
(``Recognizer.steady``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .geometry import Board
from .pose import Pose
from .recognize_colour import EPS, Patches, luminance
from .recognize_features import percentiles
from .recognize_hands import hidden_by_balls
from .render_camera import MARKER_PAPER

#: points on each side of a ring
RING_POINTS = 6
#: the paper is sampled on a ring PAPER_MM beyond the marker's edge, the black border
#: half a cell inside it (DICT_4X4's 6 cells, border included)
PAPER_MM = MARKER_PAPER / 2
BORDER_CELLS = 6
#: a marker is judged only where its two rings lie this many pixels apart on every side:
#: seen at a glancing angle or small, they blur together, and the pose's error moves them
#: by a pixel or two
LEAST_GAP_PX = 3.0
#: a ring is judged on the points no ball's image may cover (a ball between the camera
#: and a marker, seen from the side, lies over part of it), at least LEAST_SEEN of them
LEAST_SEEN = 0.5
#: the border is taken at its BORDER_QUANTILE: where the pose is a pixel or two off, or a
#: ball's edge reaches past the mask, some of its points fall on the paper, the marker's
#: white cells or the ball (own-rendered 2600268 through a webcam, marker 0 seen at a
#: glancing angle behind a white ball: its rings' medians 1.43 apart, 1.95 at the
#: quarter)
BORDER_QUANTILE = 0.25
#: the step is gone where the paper is under COVERED times as bright as the border
#: (linear luminance). Markers judged in frames where nothing else found a hand: path
#: traced, no hands (seeds 7,800,000 and 7,700,000 on, 400 each, three looks), 6.16 or
#: more; rendered Pylos frames (2,600,240 on, 400, six looks), 1.95 or more (2600268, above),
#: 2.89 the next. Under a hand nothing else found (path traced 7,900,000 and 7,950,000
#: on, 150 each, a hand in every one, five looks): 1.01-1.36 (docs/vision.md)
COVERED = 1.6
#: the fewest paper points the paper's light is taken from (a marker's ring has 24), and
#: the quantile of them taken as the lit paper's
LEAST_PAPER = 24
PAPER_QUANTILE = 0.75


@dataclass(frozen=True, slots=True)
class MarkerRings:
    """Where each of a board's markers' border and paper rings fall for one pose and frame
    size, which of their points no ball may hide, and which markers can be judged there
    (every point in the image, ``LEAST_SEEN`` of each ring clear of the balls, the rings
    ``LEAST_GAP_PX`` apart)."""

    ids: tuple[int, ...]
    centres: np.ndarray
    patches: Patches
    #: 2 x markers x points: border ring, then paper ring; False where a ball may hide it
    clear: np.ndarray
    judged: np.ndarray
    #: how far apart each marker's rings lie in the image (px, the least of its four sides)
    gaps: np.ndarray

    @classmethod
    def of(cls, board: Board, pose: Pose, shape: tuple[int, ...], centres: np.ndarray | None = None,
           radius_px: np.ndarray | None = None) -> MarkerRings:
        """For ``pose`` in frames of ``shape``; ``centres`` (N x 3 mm) and ``radius_px``:
        the balls that may stand over a marker (pyramid boards)."""
        half = board.marker_size / 2
        inner, outer = half - board.marker_size / BORDER_CELLS / 2, half + PAPER_MM
        border, paper, gaps = [], [], []
        for m in board.markers:
            x, y = m.centre[0], m.centre[1]
            border.append(_ring(x, y, inner))
            paper.append(_ring(x, y, outer))
            across = pose.project(np.concatenate([_ring(x, y, inner, 1), _ring(x, y, outer, 1)]))
            gaps.append(float(np.hypot(*(across[4:] - across[:4]).T).min()))
        n = len(board.markers) * 4 * RING_POINTS
        uv = pose.project(np.concatenate(border + paper))
        patches = Patches.of(uv, shape, radius=1)
        inside = (patches.inside[:n] & patches.inside[n:]).reshape(len(board.markers), -1).all(axis=1)
        clear = np.ones(2 * n, dtype=bool)
        if centres is not None and radius_px is not None and len(centres):
            clear = ~hidden_by_balls(uv, pose.project(centres), radius_px)
        clear = clear.reshape(2, len(board.markers), -1)
        seen = (clear.mean(axis=2) >= LEAST_SEEN).all(axis=0)
        gap = np.array(gaps)
        return cls(tuple(m.id for m in board.markers), np.array([m.centre[:2] for m in board.markers]), patches,
                   clear, inside & seen & (gap >= LEAST_GAP_PX), gap)

    def seen(self, image: np.ndarray) -> MarkerLight:
        """The rings' light in ``image``, sampled once for every question asked of it."""
        rgb, inside = self.patches.sample(image)
        light = luminance(rgb).reshape(self.clear.shape).astype(np.float64)  # percentiles' filler needs 64 bits
        return MarkerLight(self, light, inside.reshape(self.clear.shape), rgb.reshape(*self.clear.shape, 3))


@dataclass(frozen=True, slots=True)
class MarkerLight:
    """One frame's light (linear luminance) on a board's marker rings: 2 x markers x points,
    as ``MarkerRings.clear``, which of the points lie in the frame, and their colour
    (linear RGB, the same points x 3)."""

    rings: MarkerRings
    light: np.ndarray
    inside: np.ndarray
    rgb: np.ndarray

    def steps(self) -> np.ndarray:
        """Each marker's paper over its border (the paper ring's median over the border
        ring's ``BORDER_QUANTILE``)."""
        (border, _), (_, paper) = percentiles(self.light, self.rings.clear, [100 * BORDER_QUANTILE, 50])
        return paper / np.maximum(border, EPS)

    def covered(self) -> np.ndarray:
        """The board points (x, y mm) of the judged markers whose border no longer stands
        out from their paper: something lies over them."""
        judged = self.rings.judged
        if not judged.any():
            return np.zeros((0, 2))
        return self.rings.centres[judged & (self.steps() < COVERED)].reshape(-1, 2)

    def paper(self) -> float | None:
        """The lit paper's light: the upper quartile of the markers' paper rings' points in
        the image and clear of the balls, as the plate's reference is its lit half (a room's
        shadow over some markers leaves the others); None under ``LEAST_PAPER`` of them.
        The plate shining brighter is glare (vision/recognize_glare.py). A hand over a
        marker darkens it: the caller asks only where no hand is seen."""
        ok = self._paper_points()
        return None if ok is None else float(np.quantile(self.light[1][ok], PAPER_QUANTILE))

    def paper_colour(self) -> np.ndarray | None:
        """The lit paper's colour (linear RGB): the median of the brighter half of the
        paper rings' points that ``paper`` takes; white lit as the board is, so the colour a
        white plate would show. None where ``paper`` is."""
        ok = self._paper_points()
        if ok is None:
            return None
        light, rgb = self.light[1][ok], self.rgb[1][ok]
        return np.median(rgb[light >= np.median(light)], axis=0).astype(np.float64)

    def _paper_points(self) -> np.ndarray | None:
        """Which paper ring points lie in the image and clear of the balls; None under
        ``LEAST_PAPER`` of them."""
        ok = self.inside[1] & self.rings.clear[1]
        return ok if int(np.count_nonzero(ok)) >= LEAST_PAPER else None


def _ring(x: float, y: float, half: float, points: int = RING_POINTS) -> np.ndarray:
    """Points (mm, on the surface) on the square of half-side ``half`` round (x, y),
    ``points`` along each side (one: the sides' middles)."""
    t = ((np.arange(points) + 0.5) / points * 2 - 1) * half
    side = [np.stack([x + t, np.full_like(t, y - half)], 1), np.stack([np.full_like(t, x + half), y + t], 1),
            np.stack([x - t, np.full_like(t, y + half)], 1), np.stack([np.full_like(t, x - half), y - t], 1)]
    xy = np.concatenate(side)
    return np.column_stack([xy, np.zeros(len(xy))])
