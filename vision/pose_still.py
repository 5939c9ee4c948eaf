"""Whether a frame shows the board's markers exactly where an earlier frame did.

A camera on a stand sends frame after frame of the same board from the same place; only the
sensor noise, the encoder and now and then the exposure differ at the markers. The pose
found from one of those frames is as good for the next as the pose found again from its
markers: the corners found again differ from the first only by that noise. Finding them
again costs about 1.5 ms and the pose fit 1 ms more (docs/performance.md); comparing each
marker's pixels with the earlier frame's costs a tenth of that.

The comparison is a least-squares fit, over a window round each marker, of how far the
marker moved (x and y, from the image gradients: one Lucas-Kanade step) and of a gain and
an offset (the camera's exposure), to the difference between the two frames. The window
is unmoved when the fit moves the marker less than :data:`SHIFT_PX` and leaves almost no
pixel far from it (a hand, a shadow or anything else put over the marker is a change the
fit cannot explain). A marker's sub-pixel move shows over the hundreds of pixels along
its edges, so noise of a few levels moves the fit by a few thousandths of a pixel.
Markers unmoved to a fraction of :data:`SHIFT_PX` leave the corners the pose was fitted to
where they were, and with them the pose (a real camera's focal length does not change
between frames).
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

#: a marker is unmoved when its window's fitted move is under this (pixels)
SHIFT_PX = 0.05
#: the window: the marker's corners' bounding box and this many pixels round it
PAD_PX = 3
#: the exposure may change by this share at most (gain) between the frames
GAIN = 0.25
#: a pixel the fit does not explain is off by more than this share of the window's
#: contrast; the window is unmoved when under :data:`OFF_SHARE` of its pixels are
OFF_CONTRAST = 0.2
OFF_SHARE = 0.005


@dataclasses.dataclass(frozen=True)
class MarkerWindow:
    """One marker's pixels in the reference frame and the fit's fixed parts."""

    rows: slice
    cols: slice
    design: np.ndarray  # N x 4: minus the x and y gradients, the level, 1
    solve: np.ndarray  # 4 x N: the least-squares solution's matrix
    level: np.ndarray  # the reference's grey levels, N
    off: float  # the residual counted as off (grey levels)

    @classmethod
    def of(cls, grey: np.ndarray, corners: np.ndarray) -> MarkerWindow | None:
        """The window round ``corners`` (4 x 2) in ``grey``; None when it leaves the frame
        or shows no contrast."""
        h, w = grey.shape[:2]
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - PAD_PX
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + PAD_PX + 1
        if x0 < 1 or y0 < 1 or x1 > w - 1 or y1 > h - 1:
            return None
        level = grey[y0:y1, x0:x1].astype(np.float32)
        contrast = float(level.max() - level.min())
        if contrast < 16:
            return None
        gx = cv2.Sobel(level, cv2.CV_32F, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE) / 8
        gy = cv2.Sobel(level, cv2.CV_32F, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE) / 8
        design = np.stack([-gx.ravel(), -gy.ravel(), level.ravel(), np.ones(level.size, np.float32)], axis=1)
        normal = design.T.astype(np.float64) @ design
        if np.linalg.cond(normal) > 1e12:
            return None
        solve = (np.linalg.inv(normal) @ design.T).astype(np.float32)
        return cls(slice(y0, y1), slice(x0, x1), design, solve, level.ravel(), OFF_CONTRAST * contrast)

    def unmoved(self, grey_window: np.ndarray) -> bool:
        """Whether ``grey_window`` (this window's pixels in a new frame) shows the marker
        where the reference did, under at most another exposure."""
        diff = grey_window.astype(np.float32).ravel() - self.level
        fit = self.solve @ diff  # the move (x, y), the gain less 1, the offset
        dx, dy, gain = float(fit[0]), float(fit[1]), float(fit[2])
        if dx * dx + dy * dy >= SHIFT_PX * SHIFT_PX or abs(gain) > GAIN:
            return False
        residual = diff - self.design @ fit
        return np.count_nonzero(np.abs(residual) > self.off) < OFF_SHARE * residual.size


class StillMarkers:
    """The board's markers in a reference frame, to tell whether later frames show them
    where it did."""

    def __init__(self) -> None:
        self._windows: tuple[MarkerWindow, ...] = ()
        self._shape: tuple[int, ...] = ()

    def hold(self, grey: np.ndarray, markers: dict[int, np.ndarray]) -> None:
        """Take ``grey`` (where ``markers``, id -> corners, were found) as the reference;
        nothing is held when a marker's window is unusable."""
        windows = [MarkerWindow.of(grey, c) for c in markers.values()]
        ok = bool(windows) and all(w is not None for w in windows)
        self._windows = tuple(windows) if ok else ()  # type: ignore[arg-type]
        self._shape = grey.shape[:2]

    def clear(self) -> None:
        self._windows = ()

    @property
    def holding(self) -> bool:
        return bool(self._windows)

    def unmoved(self, image: np.ndarray) -> bool:
        """Whether ``image`` (BGR or grey, the reference's size) shows every held marker
        where the reference did."""
        if not self._windows or image.shape[:2] != self._shape:
            return False
        for w in self._windows:
            part = image[w.rows, w.cols]
            if part.ndim == 3:
                part = part[..., 0] if part.shape[2] == 1 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
            if not w.unmoved(part):
                return False
        return True
