"""Markers the detector missed, found by their known pattern where two markers put them.

ArUco decodes a marker only where it finds its outline, and :func:`vision.pose.complete`
adds one it found as an undecoded quadrilateral; a small or blurred marker can show
plainly and still be neither (a 20 px marker in an 800x600 frame). Two markers alone give
no pose (their corners lie in a narrow band, :data:`vision.pose.MIN_MARKERS`), but a loose
one: good enough to say where the others lie, within a few ball radii. There each missing
marker is looked for by its pattern, which the dictionary gives (its cells, black
border and paper margin): the frame is unwarped round where the loose pose puts it, the
pattern found in it by normalised correlation, then aligned to it by ECC (a
homography, :func:`cv2.findTransformECC`). It is taken, as a rough marker
(:data:`vision.pose.ROUGH_CORNER_SHARE`), when both correlate well and its cells read as
the marker's (:func:`vision.pose.shows_marker`). A hand, a ball or a shadow over it fails
the correlation, and the frame stays without a pose.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .geometry import Board, Marker
from .markers import marker_cells
from .render_camera import MARKER_PAPER

if TYPE_CHECKING:  # vision/pose.py imports this module when it needs it
    from .pose import Pose

#: the pattern is drawn and matched at this many pixels per millimetre of the board (3
#: found the same corners, 1.7 times slower: ECC's cost goes with the pattern's pixels)
CANON_PX_PER_MM = 2.0
#: the search reaches this many standard deviations of the loose pose's spread at the
#: marker's centre, and SEARCH_PX pixels more, from where that pose puts it
SEARCH_SIGMAS = 3.0
SEARCH_PX = 3.0
#: the pattern is taken where its normalised correlation with the unwarped frame is at
#: least MATCH_LEAST and, aligned, ALIGN_LEAST. Two markers' poses of frames with more
#: markers (pyramid and grid, seeds 2,600,000 on; the markers left out found again):
#: markers in view correlated 0.7-0.97 with their corners 0.3-2 px from the truth, hidden
#: or shaded ones 0.6 or less (docs/vision.md, Pose)
MATCH_LEAST = 0.7
ALIGN_LEAST = 0.7
#: the frame's blur, as a standard deviation in its own pixels, that the pattern is
#: blurred by before matching
PATTERN_BLUR_PX = 1.0
#: ECC's iterations at most, and the step (in pattern pixels) it stops at
ALIGN_STEPS = 50
ALIGN_EPS = 1e-4


@lru_cache(maxsize=64)
def _pattern(dictionary: str, marker_id: int, marker_size: float) -> np.ndarray:
    """The marker with its paper margin, 0.1 for black and 0.9 for white, at
    :data:`CANON_PX_PER_MM` (unblurred)."""
    cells = marker_cells(dictionary, marker_id).astype(np.float32)
    side = int(round((marker_size + 2 * MARKER_PAPER) * CANON_PX_PER_MM))
    inner = int(round(marker_size * CANON_PX_PER_MM))
    margin = int(round(MARKER_PAPER * CANON_PX_PER_MM))
    out = np.full((side, side), 0.9, dtype=np.float32)
    out[margin:margin + inner, margin:margin + inner] = cv2.resize(0.9 - 0.8 * cells, (inner, inner),
                                                                  interpolation=cv2.INTER_NEAREST)
    return out


def _to_image(pose: Pose, marker: Marker, half: float) -> tuple[np.ndarray, int]:
    """The homography from the pattern's pixels (a square ``half`` mm either side of the
    marker's centre, top towards +y) to the frame's, as ``pose`` projects it, and the
    square's side in pattern pixels. A pixel's coordinates are its centre's: the square's
    corners lie half a pixel beyond the outer pixels' centres."""
    x, y = marker.centre
    side = 2 * half * CANON_PX_PER_MM
    src = np.float32([(-0.5, -0.5), (side - 0.5, -0.5), (side - 0.5, side - 0.5), (-0.5, side - 0.5)])
    dst = pose.project([(x - half, y + half, 0.0), (x + half, y + half, 0.0),
                        (x + half, y - half, 0.0), (x - half, y - half, 0.0)]).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst), int(round(side))


def match_marker(grey: np.ndarray, board: Board, marker: Marker, pose: Pose) -> np.ndarray | None:
    """The corners (4 x 2, ArUco order) of ``marker`` found by its pattern near where the
    loose ``pose`` puts it in ``grey``; None where it is not seen well enough, or where
    the search would reach beyond the frame."""
    from .pose import shows_marker  # vision/pose.py calls this module

    centre = np.array([[*marker.centre, 0.0], [marker.centre[0] + 1.0, marker.centre[1], 0.0]])
    uv = pose.project(centre)
    if not np.isfinite(uv).all():
        return None
    px_per_mm = float(np.linalg.norm(uv[1] - uv[0]))
    if px_per_mm <= 0:
        return None
    reach = (SEARCH_SIGMAS * float(pose.spread(centre[:1])[0]) + SEARCH_PX) / px_per_mm
    half = board.marker_size / 2 + MARKER_PAPER
    H, side = _to_image(pose, marker, half + reach)
    unwarped = cv2.warpPerspective(grey.astype(np.float32) / 255.0, H, (side, side),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=-1.0)
    if (unwarped < 0).any():
        return None
    pattern = _pattern(board.dictionary, marker.id, board.marker_size)
    blur = PATTERN_BLUR_PX * CANON_PX_PER_MM / px_per_mm
    pattern = cv2.GaussianBlur(pattern, (0, 0), blur) if blur > 0.3 else pattern
    if pattern.shape[0] > side:
        return None
    found = cv2.matchTemplate(unwarped, pattern, cv2.TM_CCOEFF_NORMED)
    _, best, _, (dx, dy) = cv2.minMaxLoc(found)
    if not best >= MATCH_LEAST:
        return None
    warp = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], dtype=np.float32)
    try:
        aligned, warp = cv2.findTransformECC(pattern, unwarped, warp, cv2.MOTION_HOMOGRAPHY,
                                             (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, ALIGN_STEPS, ALIGN_EPS), None, 1)
    except cv2.error:  # the alignment did not converge
        return None
    if not aligned >= ALIGN_LEAST:
        return None
    m, k = MARKER_PAPER * CANON_PX_PER_MM - 0.5, board.marker_size * CANON_PX_PER_MM
    own = np.float32([[(m, m), (m + k, m), (m + k, m + k), (m, m + k)]])
    corners = cv2.perspectiveTransform(own, H @ warp.astype(np.float64))[0].astype(np.float64)
    if not np.isfinite(corners).all() or not shows_marker(grey, corners, board.dictionary, marker.id):
        return None
    return corners


def add_matched(found: dict[int, np.ndarray], board: Board, grey: np.ndarray, pose: Pose) -> dict[int, np.ndarray]:
    """``found`` and every missing marker of ``board`` that :func:`match_marker` finds
    where the loose ``pose`` (from ``found``) puts it."""
    out = dict(found)
    for marker in board.markers:
        if marker.id not in found:
            corners = match_marker(grey, board, marker, pose)
            if corners is not None:
                out[marker.id] = corners
    return out
