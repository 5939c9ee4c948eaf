"""A board far off in a small frame: its markers decoded again, larger (vision/pose.py's
``pose_markers`` calls :func:`decoded_again` when a frame's markers give no pose).

At the far end of the envelope a 640x480 frame shows the markers 11-20 px across, cells of
2-3 px: too few decode for a pose, even at twice the size. Sharpened, or at three times
the size, most of them do (docs/vision.md, Pose, "A board far off")."""

from __future__ import annotations

from typing import Mapping

import cv2
import numpy as np

from .pose import MIN_MARKERS, _detect, _from_scale, mean_side

#: a frame whose long side is at most this is looked at in :data:`FAR_LOOKS` when its
#: markers give no pose otherwise: a board far off in a 640x480 or 800x600 frame shows
#: 11-20 px markers. A larger frame shows them larger, and would cost more to look at
FAR_SIDE = 800
#: ... unless a marker decoded in it is wider than this (px): the missing ones, about its
#: size, are hidden (a hand over them), not too small to decode. Those decoded in frames
#: the looks gave a pose were 11-20 px
FAR_MARKER_PX = 28.0
#: (scale, sharpened) looks at such a frame, in order: larger and sharpened (an unsharp
#: mask), cells of 2-3 px decode that did not at the frame's size or at twice it
FAR_LOOKS = ((2, True), (3, False), (3, True))
#: a marker decoded in two looks this far apart (px, at the frame's scale) is dropped
FAR_AGREE_PX = 2.0


def far_looks(grey: np.ndarray, dictionary: str, found: Mapping[int, np.ndarray],
              want: set[int]) -> dict[int, np.ndarray]:
    """``found`` and the ``want`` markers decoded in :data:`FAR_LOOKS` at ``grey``, until
    :data:`MIN_MARKERS` are. A marker decoded twice in different places is dropped, as
    one decoded twice in a look is (:func:`_detect`); the pose's fit must hold after."""
    out = {i: c for i, c in found.items() if i in want}
    dropped: set[int] = set()
    for scale, sharp in FAR_LOOKS:
        big = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        if sharp:
            big = cv2.addWeighted(big, 2.0, cv2.GaussianBlur(big, (0, 0), 0.8 * scale), -1.0, 0)
        for i, c in _detect(big, dictionary)[0].items():
            if i not in want:
                continue
            c = _from_scale(c, scale)
            if i in out and float(np.abs(out[i] - c).max()) > FAR_AGREE_PX:
                dropped.add(i)
            out.setdefault(i, c)
        if len(set(out) - dropped) >= MIN_MARKERS:
            break
    return {i: c for i, c in out.items() if i not in dropped}


def decoded_again(grey: np.ndarray, dictionary: str, decoded: Mapping[int, np.ndarray],
                  want: set[int]) -> dict[int, np.ndarray]:
    """The ``want`` markers of ``grey``: ``decoded`` and those :func:`far_looks` decodes,
    where the frame is at most :data:`FAR_SIDE` on its long side and no marker decoded is
    wider than :data:`FAR_MARKER_PX`; else ``decoded``."""
    if max(grey.shape) > FAR_SIDE or any(mean_side(c) > FAR_MARKER_PX for c in decoded.values()):
        return dict(decoded)
    return far_looks(grey, dictionary, decoded, want)
