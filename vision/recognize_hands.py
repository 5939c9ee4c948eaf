"""Hands over the board: an arm reaching in crosses the plate's outline in the image.

A hand hovers above the board and its arm comes in from beyond the plate's edge, so in the
image it covers some of the table just outside the plate. The table is sampled on a band
around the plate; samples whose chromaticity is far from the table's own (measured in the
same frame: its median) and not merely darker (a shadow keeps the table's chromaticity) are
foreign. A run of foreign samples is an arm; where it crosses tells recognition which
positions to distrust. Skin tones are close to light wood, so this looks at the table, not
the plate; a table of the skin's colour defeats it (the per-position checks remain).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .geometry import Board
from .pose import Pose
from .recognize_colour import sample
from .render_camera import PLATE_THICKNESS

#: the band of table sampled around the plate (mm beyond the plate's edge)
BAND_MM = (22.0, 30.0, 38.0)
STEP_MM = 5.0
#: a sample this far from the table's chromaticity (log ratios) is foreign
FOREIGN_CHROMA = 0.3


@dataclass(frozen=True, slots=True)
class HandSigns:
    """Where arms cross the band around the plate: board points (x, y) of the foreign
    samples in runs, and how many band samples were in view."""

    crossings: np.ndarray
    seen: int

    @property
    def present(self) -> bool:
        return len(self.crossings) > 0

    def distance(self, x: float, y: float) -> float:
        """Board distance (mm) from (x, y) to the nearest crossing; inf without a hand."""
        if not self.present:
            return math.inf
        return float(np.min(np.hypot(self.crossings[:, 0] - x, self.crossings[:, 1] - y)))


def band_points(board: Board) -> list[np.ndarray]:
    """Rings of table points around the plate, each in order along the perimeter."""
    rings = []
    for off in BAND_MM:
        w, d = board.plate[0] / 2 + off, board.plate[1] / 2 + off
        perimeter = 4 * (w + d)
        s = np.arange(0.0, perimeter, STEP_MM)
        pts = np.empty((len(s), 3))
        for k, t in enumerate(s):
            if t < 2 * w:
                pts[k] = (-w + t, -d, 0)
            elif t < 2 * w + 2 * d:
                pts[k] = (w, -d + (t - 2 * w), 0)
            elif t < 4 * w + 2 * d:
                pts[k] = (w - (t - 2 * w - 2 * d), d, 0)
            else:
                pts[k] = (-w, d - (t - 4 * w - 2 * d), 0)
        pts[:, 2] = -PLATE_THICKNESS
        rings.append(pts)
    return rings


def _chroma(rgb: np.ndarray) -> np.ndarray:
    c = np.maximum(rgb.astype(np.float64), 1e-4)
    return np.stack([np.log(c[:, 0] / c[:, 1]), np.log(c[:, 2] / c[:, 1])], axis=1)


def find_hands(image: np.ndarray, pose: Pose, rings: list[np.ndarray]) -> HandSigns:
    """Foreign runs on the table band around the plate."""
    allpts = np.concatenate(rings)
    rgb_all, inside_all = sample(image, pose.project(allpts))
    crossings = []
    start = 0
    for pts in rings:
        rgb, inside = rgb_all[start:start + len(pts)], inside_all[start:start + len(pts)]
        start += len(pts)
        if inside.sum() < 12:
            continue
        lum = rgb @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
        chroma = _chroma(rgb)
        ref = np.median(chroma[inside], axis=0)
        ref_lum = float(np.median(lum[inside]))
        far = np.hypot(*(chroma - ref).T) > FOREIGN_CHROMA
        bright = lum > 2.5 * ref_lum
        foreign = inside & ((far & (lum > 0.1 * ref_lum)) | bright)
        # in a run of three along the ring (which wraps around)
        before, after = np.roll(foreign, 1), np.roll(foreign, -1)
        member = foreign & ((before & np.roll(foreign, 2)) | (before & after) | (after & np.roll(foreign, -2)))
        if member.any():
            crossings.append(pts[member, :2])
    return HandSigns(np.concatenate(crossings) if crossings else np.zeros((0, 2)), int(inside_all.sum()))
