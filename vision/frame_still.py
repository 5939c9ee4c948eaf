"""Whether a frame shows the board exactly as the frame last read in full did.

A camera on a stand watching a board between moves sends frame after frame of the same
pixels, but for the sensor's noise and the encoder's. Reading such a frame again gives the
reading of the last one (give or take a place whose measures the noise moves across a
threshold), at the full cost of a reading. Nothing on a board changes without a hand
over it, and a hand over the board or the band round it changes many pixels a lot: so
when the board's region of the image is unchanged since a frame read in full, that
frame's reading stands for this one.

The region is the box round the plate (up to the top of the highest piece) and the band
the hands are looked for in. It is compared in blocks of :data:`BLOCK_PX` pixels: each
block's mean of each colour channel (rounded to a level), against the reference frame's.
Averaging 64 pixels takes the sensor's noise and the encoder's down to a few levels (at
most 6 on rendered frames, docs/vision.md); a ball, a tile, a control plate's border or a
hand moved into a block moves its mean by many more. Any block off by more than
:data:`LEVELS` is a change. A change of exposure or of the light is a change too: that
frame is read in full and becomes the reference.
"""

from __future__ import annotations

import cv2
import numpy as np

#: the side of a compared block (pixels)
BLOCK_PX = 8
#: a block has changed when a channel's mean moved by more than this (8-bit levels)
LEVELS = 8.0


def region(points: np.ndarray, shape: tuple[int, ...]) -> tuple[slice, slice] | None:
    """The box round the image points ``points`` (N x 2, x then y), clipped to a frame of
    ``shape`` and cut to whole blocks; None when nothing of it is in the frame."""
    h, w = shape[:2]
    finite = points[np.all(np.isfinite(points), axis=1)]
    if not len(finite):
        return None
    x0, y0 = np.floor(finite.min(axis=0)).astype(int)
    x1, y1 = np.ceil(finite.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    x1 -= (x1 - x0) % BLOCK_PX
    y1 -= (y1 - y0) % BLOCK_PX
    if x1 - x0 < BLOCK_PX or y1 - y0 < BLOCK_PX:
        return None
    return slice(y0, y1), slice(x0, x1)


def blocks(image: np.ndarray, box: tuple[slice, slice]) -> np.ndarray:
    """Each block's mean per channel inside ``box`` (float32)."""
    part = image[box]
    h, w = part.shape[:2]
    return cv2.resize(part, (w // BLOCK_PX, h // BLOCK_PX), interpolation=cv2.INTER_AREA).astype(np.float32)


class StillBoard:
    """The blocks of the frame last read in full, to tell whether later frames are the
    same picture of the board."""

    def __init__(self) -> None:
        self._box: tuple[slice, slice] | None = None
        self._shape: tuple[int, ...] = ()
        self._ref: np.ndarray | None = None
        #: the frame last found changed and its blocks: the frame then read in full is
        #: held next, and its blocks need not be worked out again
        self._changed: tuple[np.ndarray, tuple[slice, slice], np.ndarray] | None = None

    def hold(self, image: np.ndarray, box: tuple[slice, slice] | None) -> None:
        """Take ``image`` (its region ``box``) as the reference; None holds nothing."""
        changed, self._changed = self._changed, None
        self._box, self._shape = box, image.shape
        if box is None:
            self._ref = None
        elif changed is not None and changed[0] is image and changed[1] == box:
            self._ref = changed[2]
        else:
            self._ref = blocks(image, box)

    def clear(self) -> None:
        self._ref = self._changed = None

    @property
    def holding(self) -> bool:
        return self._ref is not None

    def unchanged(self, image: np.ndarray) -> bool:
        """Whether ``image`` (the reference's size) shows the region as the reference did."""
        if self._ref is None or self._box is None or image.shape != self._shape:
            return False
        seen = blocks(image, self._box)
        if float(cv2.absdiff(seen, self._ref).max()) <= LEVELS:
            return True
        self._changed = (image, self._box, seen)
        return False
