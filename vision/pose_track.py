"""Finding a board's markers again where the last frame showed them.

A camera on a stand sees the markers where it saw them a frame ago. Searching the whole
frame for ArUco markers is most of what a frame costs: 11-12 ms for a 1280x720 pyramid
frame and 24-30 ms for a grid, whose tiles are all candidate squares
(docs/performance.md). A window round each marker's last corners, searched only for
squares of about that marker's size, costs some 0.35 ms a marker and gives the same corners
(to 0.03 px on rendered frames: the search is ArUco's own, with the same settings).

The windows are trusted only when they find every marker of the board again, each decoded
as its own id. Otherwise (a hand over a marker, the camera moved, another scene) the whole
frame is searched as :func:`vision.pose.detect_with_quads` does, until a frame shows every
marker again. A camera nudged a little is followed: its markers are found inside their
windows. The whole frame is searched at least every :data:`FULL_EVERY` frames as well, so a
second sheet with a marker's id, which the whole frame's search refuses, is not missed long.
"""

from __future__ import annotations

import cv2
import numpy as np

from .geometry import Board
from .pose import detect_with_quads, detector_parameters

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
        self._last: dict[int, np.ndarray] | None = None
        self._shape: tuple[int, ...] = ()
        self._windowed = 0
        #: whether the last :meth:`find` searched the whole frame
        self.searched_whole = True

    def find(self, grey: np.ndarray) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
        """The markers decoded in ``grey`` (id -> 4 x 2 corners, ArUco order) and the dark
        quadrilaterals left undecoded (none when the windows found every marker)."""
        if self._last is not None and grey.shape == self._shape and self._windowed < self.full_every - 1:
            found = self._in_windows(grey, self._last)
            if found is not None:
                self._last, self._windowed, self.searched_whole = found, self._windowed + 1, False
                return dict(found), []
        found, quads = detect_with_quads(grey, self.board.dictionary, want=self.ids)
        mine = {i: c for i, c in found.items() if i in self.ids}
        self._last = mine if set(mine) == self.ids else None
        self._shape, self._windowed, self.searched_whole = grey.shape, 0, True
        return found, quads

    def forget(self) -> None:
        """Search the whole of the next frame."""
        self._last = None

    def _in_windows(self, grey: np.ndarray, last: dict[int, np.ndarray]) -> dict[int, np.ndarray] | None:
        """Every marker found again in a window round its last corners, or None as soon as
        one is not."""
        h, w = grey.shape[:2]
        out: dict[int, np.ndarray] = {}
        for i, corners in last.items():
            side = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))
            margin = max(MARGIN_SHARE * side, MARGIN_PX)
            x0, y0 = np.maximum(np.floor(corners.min(axis=0) - margin).astype(int), 0)
            x1, y1 = np.minimum(np.ceil(corners.max(axis=0) + margin).astype(int) + 1, (w, h))
            if x1 - x0 < 8 or y1 - y0 < 8:
                return None
            window = np.ascontiguousarray(grey[y0:y1, x0:x1])
            found = self._search(window, i, 4 * side)
            if found is None and max(h, w) <= UPSCALE_UP_TO:
                big = cv2.resize(window, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
                found = self._search(big, i, 8 * side)
                found = None if found is None else (found + 0.5) / 2 - 0.5
            if found is None:
                return None
            out[i] = found + (x0, y0)
        return out

    def _search(self, window: np.ndarray, marker_id: int, perimeter: float) -> np.ndarray | None:
        """Marker ``marker_id``'s corners in ``window`` if it is decoded there once."""
        params = detector_parameters()
        longest = max(window.shape[:2])
        params.minMarkerPerimeterRate = PERIMETER[0] * perimeter / longest
        params.maxMarkerPerimeterRate = PERIMETER[1] * perimeter / longest
        detector = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.board.dictionary)), params)
        try:
            corners, ids, _ = detector.detectMarkers(window)
        except cv2.error:  # the contour refinement's assertion (vision/pose.py): search the frame
            return None
        if ids is None:
            return None
        hits = [c for c, k in zip(corners, ids.reshape(-1)) if int(k) == marker_id]
        return hits[0].reshape(4, 2).astype(np.float64) if len(hits) == 1 else None
