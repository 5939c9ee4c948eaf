"""An arm the band does not see, found where it hides the plate's outline.

The band round the plate (vision/recognize_hands.py) sees an arm by its colour against
the table's. On a table of the skin's colour (a wooden table, light or dark) it sees
none, and a dark arm passes for the table in shadow: over a pyramid, such a hand was
read as empty places, and a finger as a stained ball (path traced frames 7400035 and
7400045, docs/vision.md). But where an arm crosses the plate's edge it lies above it and
hides it: just inside the outline and just outside, the same skin. A shadow across the
edge darkens both sides alike and keeps the step between the plate and the table. So
pairs of points across the outline, on the plate just inside it and on the table just
beyond its foot, are compared: where the step between them is gone along a run of
three pairs or more (15 mm), an arm crosses there. Where the plate and the table are
alike everywhere, there is no step to lose, and this sees nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .geometry import Board
from .pose import Pose
from .recognize_colour import EPS, Patches
from .recognize_hands import hidden_by_balls, in_runs, near_polygon, plate_outline
from .render_camera import MARKER_PAPER, PLATE_THICKNESS

#: each pair: a point on the plate INSIDE_MM inside its edge, and one on the table
#: OUTSIDE_MM beyond it (at the plate's foot), every STEP_MM along the outline, clear of
#: the markers' paper by MARKER_CLEAR_MM. Closer ones were fooled: 6 mm out, beyond a
#: far edge seen from overhead, lay within 3 px of the plate's image (path traced
#: 7400035); 4 mm in, a grid's far edge seen low down, blurred, showed the table on the
#: plate's side too (grid 2600140); 12 mm out, a lit tan table beside a path traced
#: grid's near side was within a third of that side's step of the plate (7000057): both
#: showed an arm where there was none
INSIDE_MM = 8.0
OUTSIDE_MM = 16.0
STEP_MM = 5.0
MARKER_CLEAR_MM = 9.0
#: a pair is not used where its table point lies within this many pixels of the plate's
#: image (its top and foot), or its plate point this near the edge's image: either may
#: show the other side
OUTLINE_PX = 3.0
#: the step across the outline (log linear RGB, plate over table) is gone where it is
#: under LOST of its side's typical step: the TYPICAL quantile of the side's steps, for
#: an arm may cover half a side or more, and the light differs from side to side (path
#: traced grid 7000057: a lit tan table beside the near side, 0.1-0.3 from the plate
#: where the other sides' steps were 2). A side whose typical step is under LEAST_STEP
#: (plate and table alike there), or with fewer than LEAST_PAIRS pairs seen, tells nothing
LOST = 0.35
TYPICAL = 0.8
LEAST_STEP = 0.3
LEAST_PAIRS = 4


class OutlinePairs(NamedTuple):
    """The pairs across a board's outline, in order round the plate (N each)."""

    #: the plate points (N x 3 mm) just inside its outline
    inner: np.ndarray
    #: the points of the plate's top edge the pairs cross (N x 3 mm)
    edge: np.ndarray
    #: the table points just beyond the plate's foot (N x 3 mm)
    outer: np.ndarray
    #: which pairs lie clear of the markers (the others are kept, unused, so that a run
    #: never bridges a marker)
    clear: np.ndarray
    #: the side (0-3) of each
    sides: np.ndarray


def outline_pairs(board: Board) -> OutlinePairs:
    """Every STEP_MM round the plate's outline, a pair across it."""
    w, d = board.plate[0] / 2, board.plate[1] / 2
    far = board.marker_size / 2 + MARKER_PAPER + MARKER_CLEAR_MM
    inner, crossed, outer, clear, sides = [], [], [], [], []
    edges = ((w, lambda t: ((t, -d), (0.0, -1.0))), (d, lambda t: ((w, t), (1.0, 0.0))),
             (w, lambda t: ((-t, d), (0.0, 1.0))), (d, lambda t: ((-w, -t), (-1.0, 0.0))))
    for side, (half, edge) in enumerate(edges):
        for t in np.arange(-half + STEP_MM / 2, half, STEP_MM):
            (x, y), (nx, ny) = edge(t)
            sides.append(side)
            clear.append(not any(abs(x - m.centre[0]) < far and abs(y - m.centre[1]) < far for m in board.markers))
            inner.append((x - nx * INSIDE_MM, y - ny * INSIDE_MM, 0.0))
            crossed.append((x, y, 0.0))
            outer.append((x + nx * OUTSIDE_MM, y + ny * OUTSIDE_MM, -PLATE_THICKNESS))
    return OutlinePairs(np.array(inner), np.array(crossed), np.array(outer), np.array(clear), np.array(sides))


@dataclass(frozen=True, slots=True)
class Outline:
    """The pairs across the plate's outline for one pose and frame size: where they fall
    (3x3 pixels each; the plate's points, then the table's) and which can be compared
    (both in the image, the table point clear of the plate's image, neither in a ball's)."""

    patches: Patches
    usable: np.ndarray
    sides: np.ndarray
    #: the table points' board coordinates (x, y): where an arm found crosses
    points: np.ndarray

    @classmethod
    def of(cls, board: Board, pose: Pose, shape: tuple[int, ...], centres: np.ndarray | None = None,
           radius_px: np.ndarray | None = None) -> Outline:
        """For ``pose`` in frames of ``shape``; ``centres`` (N x 3 mm) and ``radius_px``:
        the balls that may stand over a pair (pyramid boards)."""
        inner, edge, outer, clear, sides = outline_pairs(board)
        uv_in, uv_out = pose.project(inner), pose.project(outer)
        hull = plate_outline(pose, board)
        usable = clear & ~near_polygon(uv_out, hull, OUTLINE_PX) \
            & (np.hypot(*(uv_in - pose.project(edge)).T) >= OUTLINE_PX)
        if centres is not None and radius_px is not None and len(centres):
            ball_uv = pose.project(centres)
            usable &= ~hidden_by_balls(uv_in, ball_uv, radius_px) & ~hidden_by_balls(uv_out, ball_uv, radius_px)
        patches = Patches.of(np.concatenate([uv_in, uv_out]), shape, radius=1)
        n = len(inner)
        return cls(patches, usable & patches.inside[:n] & patches.inside[n:], sides, outer[:, :2])

    def crossings(self, image: np.ndarray) -> np.ndarray:
        """The table points (x, y mm) beside the outline where an arm hides it, in runs of
        three along it; none on a side whose plate and table are too alike to tell."""
        if int(self.usable.sum()) < LEAST_PAIRS:
            return np.zeros((0, 2))
        rgb, _ = self.patches.sample(image)
        n = len(self.points)
        size = np.linalg.norm(np.log(np.maximum(rgb[:n], EPS) / np.maximum(rgb[n:], EPS)), axis=1)
        gone = np.zeros(n, dtype=bool)
        for side in range(4):
            mine = self.usable & (self.sides == side)
            if int(mine.sum()) < LEAST_PAIRS:
                continue
            seen = np.sort(size[mine])
            typical = float(seen[min(int(TYPICAL * len(seen)), len(seen) - 1)])
            if typical >= LEAST_STEP:
                gone |= mine & (size < LOST * typical)
        return self.points[in_runs(gone)]
