"""Finding a board's markers again where the last frame showed them.

A camera on a stand sees the markers where it saw them a frame ago. Searching the whole
frame for ArUco markers is most of what a frame costs: 11-12 ms for a 1280x720 pyramid
frame and 24-30 ms for a grid, whose tiles are all candidate squares
(docs/performance.md). A window round each marker's last corners, searched only for
squares of about that marker's size, costs some 0.35 ms a marker and gives the same corners
(to 0.03 px on rendered frames: the search is ArUco's own, with the same settings).

Every marker of the board has a window once a search of the whole frame has found them
all. The windows are trusted when they find at least the three markers a pose needs, each
decoded as its own id. A marker not decoded in its window (a hand over it) gives the
quadrilaterals seen there instead, from which :func:`vision.pose.complete` may take it as
the whole frame's search would, and its window is kept until it is seen again.
Fewer than three (the camera moved, another scene): the whole frame is searched as
:func:`vision.pose.detect_with_quads` does, until a search of it finds every marker again.
A search of the whole frame that finds three keeps following the fourth (a hand over it
when the whole frame's turn came). The window of a marker not decoded is placed where the
markers decoded put it (the homography of their corners: the markers lie flat on one
plane), not left where it was last seen: after the camera moved, a window left behind
would show none of the marker's quadrilaterals, and a marker the whole frame's search took
from them (:func:`vision.pose.complete`) would be lost to the frames after it.
A camera nudged a little is followed: its markers are found inside their windows. The whole
frame is searched at least every :data:`FULL_EVERY` frames as well, so a second sheet with
a marker's id, which the whole frame's search refuses, is not missed long.

Before any search, :meth:`MarkerTracker.unmoved` tells whether the frame shows the markers
exactly where the last frame searched decoded them (vision/pose_still.py): then that
frame's pose holds and nothing is searched. A frame that misses a marker it follows sets
nothing to hold, unless the pose found the markers missing otherwise, among the
quadrilaterals left or by their pattern (:meth:`MarkerTracker.hold_matched`).
"""

from __future__ import annotations

import cv2
import numpy as np

from .geometry import Board
from .pose import MIN_MARKERS, Pose, detect_with_quads, detector_parameters, from_twice, mean_side
from .pose_still import StillMarkers

#: the window round a marker's last corners: this share of its side on every side, and at
#: least :data:`MARGIN_PX` (the adaptive threshold looks up to 16 px round a pixel)
MARGIN_SHARE = 0.5
MARGIN_PX = 24
#: a window's candidate squares have a perimeter within these shares of the marker's last:
#: the whole frame's lower limit (3 % of its width) is a few pixels in a window, where
#: every speck of wood grain would be a candidate
PERIMETER = (0.5, 2.0)
#: the whole frame is searched at least once in this many frames
FULL_EVERY = 30
#: frames up to this size are searched again at twice the size for markers not decoded
#: (as :func:`vision.pose.detect_with_quads` does)
UPSCALE_UP_TO = 1400


class MarkerTracker:
    """Where a board's markers are, frame after frame (one camera's stream)."""

    def __init__(self, board: Board, *, full_every: int = FULL_EVERY):
        self.board = board
        self.ids = frozenset(m.id for m in board.markers)
        self.full_every = full_every
        self._dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, board.dictionary))
        self._last: dict[int, np.ndarray] | None = None
        self._shape: tuple[int, ...] = ()
        self._windowed = 0
        self._still = StillMarkers()
        #: whether the last frame searched the whole frame for the markers
        self.searched_whole = True
        #: whether the last frame showed the markers unmoved (:meth:`unmoved`): no search
        self.held = False

    def unmoved(self, image: np.ndarray) -> bool:
        """Whether ``image`` shows the markers exactly where the last frame :meth:`find`
        searched decoded them (at least the three a pose needs; vision/pose_still.py), so
        that frame's pose holds: nothing is searched. Such frames count towards
        :data:`FULL_EVERY`."""
        if self._windowed >= self.full_every - 1 or not self._still.unmoved(image):
            return False
        self._windowed, self.searched_whole, self.held = self._windowed + 1, False, True
        return True

    def find(self, grey: np.ndarray) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
        """The markers decoded in ``grey`` (id -> 4 x 2 corners, ArUco order) and the dark
        quadrilaterals left undecoded (from the windows of the markers not decoded, when
        the windows were enough)."""
        self.held = False
        if self._last is not None and grey.shape == self._shape and self._windowed < self.full_every - 1:
            seen = self._in_windows(grey, self._last)
            if seen is not None:
                found, quads = seen
                self._last = {**self._placed(found, self._last), **found}
                self._windowed, self.searched_whole = self._windowed + 1, False
                self._hold(grey, found)
                return found, quads
        found, quads = detect_with_quads(grey, self.board.dictionary, want=self.ids)
        mine = {i: c for i, c in found.items() if i in self.ids}
        if set(mine) == self.ids:
            self._last = mine
        elif self._last is not None and len(mine) >= MIN_MARKERS:
            # a marker the whole frame hides (a hand over it) keeps a window: it is still
            # followed, so this frame is not held (:meth:`_hold`) and the next ones search
            # its window, finding it as soon as the hand has gone
            self._last = {**self._placed(mine, self._last), **mine}
        else:
            self._last = None
        self._shape, self._windowed, self.searched_whole = grey.shape, 0, True
        self._hold(grey, mine)
        return found, quads

    def _hold(self, grey: np.ndarray, mine: dict[int, np.ndarray]) -> None:
        """Keep this frame for :meth:`unmoved` when it decoded every marker followed
        (``mine``, the board's own; at least the three a pose needs). A frame that missed
        one is not kept: the next is searched again. A hand over a marker makes the frames
        differ anyway, but a marker in view that one frame's noise left undecoded (a small
        marker far off) makes none, and its fewer markers' pose was held until the whole
        frame's turn (1.6 s, in a Sparklies game at 640x480: a corner cell left unknown, the
        referee missed a step of a turn and flagged it). A marker never seen (out of view)
        is not followed: on a stand it stays out of view."""
        if len(mine) >= MIN_MARKERS and set(mine) >= set(self._last or {}):
            self._still.hold(grey, mine)
        else:
            self._still.clear()

    def hold_matched(self, grey: np.ndarray, pose: Pose, markers: dict[int, np.ndarray]) -> None:
        """Keep this frame for :meth:`unmoved` with ``markers``, the markers ``pose`` rests
        on where fewer than three were decoded (so :meth:`find` held nothing): the others
        taken from the quadrilaterals left or found by their pattern (vision/pose_match.py).
        Only when they are every marker the pose puts in the frame: a pose resting on fewer
        than it could is not held (:meth:`_hold`). Such a camera (small or blurred markers)
        searched every frame in full and by pattern, 25-40 ms a frame; held, it searches
        every :data:`FULL_EVERY` frames."""
        if self._still.holding or len(markers) < MIN_MARKERS:
            return
        h, w = grey.shape[:2]
        for m in self.board.markers:
            if m.id not in markers:
                (u, v), = pose.project(np.array([[m.centre[0], m.centre[1], 0.0]]))
                if 0 <= u < w and 0 <= v < h:
                    return
        self._still.hold(grey, markers)

    def _placed(self, found: dict[int, np.ndarray], followed: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """The markers ``followed`` but not ``found``, with their corners where the
        homography of the found markers' corners (at least three markers, twelve points)
        puts them on the image."""
        missing = [i for i in followed if i not in found]
        if not missing:
            return {}
        by_id = {m.id: m for m in self.board.markers}
        surface = np.array([c[:2] for i in found for c in self.board.marker_corners(by_id[i])], dtype=np.float64)
        image = np.concatenate([found[i] for i in found]).astype(np.float64)
        homography, _ = cv2.findHomography(surface, image)
        if homography is None:
            return {i: followed[i] for i in missing}
        out = {}
        for i in missing:
            corners = np.array([[c[:2] for c in self.board.marker_corners(by_id[i])]], dtype=np.float64)
            out[i] = cv2.perspectiveTransform(corners, homography)[0]
        return out

    def forget(self) -> None:
        """Search the whole of the next frame."""
        self._last = None
        self._still.clear()

    def _in_windows(self, grey: np.ndarray,
                    last: dict[int, np.ndarray]) -> tuple[dict[int, np.ndarray], list[np.ndarray]] | None:
        """The markers decoded again in windows round their last corners, and the
        quadrilaterals left undecoded in the windows of the others; None (as soon as it is
        sure) when fewer than :data:`vision.pose.MIN_MARKERS` are decoded."""
        h, w = grey.shape[:2]
        found: dict[int, np.ndarray] = {}
        quads: list[np.ndarray] = []
        missed = 0
        for i, corners in last.items():
            side = mean_side(corners)
            margin = max(MARGIN_SHARE * side, MARGIN_PX)
            x0, y0 = np.maximum(np.floor(corners.min(axis=0) - margin).astype(int), 0)
            x1, y1 = np.minimum(np.ceil(corners.max(axis=0) + margin).astype(int) + 1, (w, h))
            window = np.ascontiguousarray(grey[y0:y1, x0:x1])
            usable = min(window.shape) >= 8
            hit, rejected = self._search(window, i, 4 * side) if usable else (None, [])
            if hit is None and usable and max(h, w) <= UPSCALE_UP_TO:
                big = cv2.resize(window, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
                hit, more = self._search(big, i, 8 * side)
                hit = None if hit is None else from_twice(hit)
                rejected += [from_twice(q) for q in more]
            if hit is None:
                missed += 1
                if len(last) - missed < MIN_MARKERS:
                    return None
                quads += [q + (x0, y0) for q in rejected]
            else:
                found[i] = hit + (x0, y0)
        return found, quads

    def _search(self, window: np.ndarray, marker_id: int,
                perimeter: float) -> tuple[np.ndarray | None, list[np.ndarray]]:
        """Marker ``marker_id``'s corners in ``window`` if it is decoded there once, and the
        quadrilaterals of about its size left undecoded."""
        params = detector_parameters()
        longest = max(window.shape[:2])
        params.minMarkerPerimeterRate = PERIMETER[0] * perimeter / longest
        params.maxMarkerPerimeterRate = PERIMETER[1] * perimeter / longest
        detector = cv2.aruco.ArucoDetector(self._dictionary, params)
        try:
            corners, ids, rejected = detector.detectMarkers(window)
        except cv2.error:  # the contour refinement's assertion (vision/pose.py): not found here
            return None, []
        quads = [r.reshape(4, 2).astype(np.float64) for r in rejected]
        hits = [c for c, k in zip(corners, ids.reshape(-1) if ids is not None else ()) if int(k) == marker_id]
        return (hits[0].reshape(4, 2).astype(np.float64) if len(hits) == 1 else None), quads
