"""Colour prototypes that follow the board and the light: calibrated from a known position
(vision/calibration.py) and, when asked, adapted slowly during play.

A ball's letter is normally read by fixed bands around what the geometry file's default
colours measure under any light (``colour_of`` in vision/recognize_balls.py). A real set of
balls is a little lighter, darker or warmer than the defaults, and a real room's light
shades them in its own way: a ball can then fall outside its band and stay ``?``. Here each
letter has a prototype (its measured median level, chromaticity and red share, relative
to the plate in the same frame) and the bands are moved by how far the prototype sits from
:data:`NOMINAL` (what default balls measured on rendered frames). Moves are bounded, so a
bad calibration or a run of misreads cannot take a band anywhere near another letter's:
:data:`LEVEL_RANGE`, :data:`CHROMA_RANGE`, :data:`RED_RANGE` from the nominal values, and
:data:`ADAPT_BOUND` from the calibrated (or default) value while adapting.

A dark letter's band (B, D) is moved towards lighter levels only under a light measured at
calibration: the light letter's shaded side (its 10th percentile level) says how dark a
white or light wooden ball in shadow gets, and the dark band stays :data:`GUARD_MARGIN`
below it. Without that (no calibration, or an empty Pylos board) the band may only move
darker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .recognize_balls import Reading, colour_of
from .recognize_colour import Relative
from .recognize_grid import GridGeometry, GridLayout, chromaticity, gather_cells, local_wood, median_rgb

#: median (level, red/green, blue/green, red share) of default balls on rendered frames
#: (300 balls of each letter: random light, cameras within 30 degrees of vertical, 640x480)
NOMINAL = {"L": (-0.26, 0.02, -0.10, 0.35), "D": (-2.50, 0.55, -0.41, 0.51), "W": (0.14, -0.31, 0.49, 0.22),
           "B": (-3.85, -0.31, 0.65, 0.20), "R": (-1.67, 3.07, 0.72, 0.87)}
NAMES = {"L": "light wood", "D": "dark wood", "W": "white", "B": "black", "R": "red"}
DARK = "DB"
LIGHT = "LW"
#: how far (log levels) a prototype's level may sit from nominal: (darker, lighter)
LEVEL_RANGE = {"L": (-0.3, 0.6), "W": (-0.3, 0.6), "D": (-0.6, 0.6), "B": (-0.6, 0.6), "R": (-0.6, 0.6)}
#: how far its red/green and blue/green log ratios and its red share may sit from nominal
CHROMA_RANGE = 0.3
RED_RANGE = 0.08
#: a dark band stays this far (log) below a light ball's shaded side
GUARD_MARGIN = 0.3
#: adaptation: the share of a frame's median a prototype moves by, and how far (level,
#: rg, bg, red) it may move from its calibrated or default value
ADAPT_RATE = 0.05
ADAPT_BOUND = np.array([0.3, 0.1, 0.1, 0.03])
#: tiles: adaptation's bound on each chromaticity component
TILE_BOUND = 0.05


@dataclass(frozen=True, slots=True)
class BallColour:
    """One letter as measured at calibration: median level, rg, bg and red share of its
    balls relative to the plate, the median 10th-percentile level (its shaded side) and
    how many balls it rests on."""

    level: float
    rg: float
    bg: float
    red: float
    dark: float
    balls: int

    @property
    def vector(self) -> np.ndarray:
        return np.array([self.level, self.rg, self.bg, self.red])


def _range(letter: str) -> tuple[np.ndarray, np.ndarray]:
    nominal = np.array(NOMINAL[letter])
    lo, hi = LEVEL_RANGE[letter]
    spread = np.array([0.0, CHROMA_RANGE, CHROMA_RANGE, RED_RANGE])
    return nominal + np.array([lo, 0, 0, 0]) - spread, nominal + np.array([hi, 0, 0, 0]) + spread


class BallPalette:
    """Ball prototypes for one recognizer (mutable: it adapts). ``colour`` replaces
    ``colour_of``; ``protos`` gives the model's colour-share prototypes."""

    def __init__(self, letters: str, measured: Mapping[str, BallColour], defaults: Mapping[str, Relative]):
        self.letters = letters
        self.defaults = dict(defaults)
        self.base: dict[str, np.ndarray] = {}
        for k in letters:
            lo, hi = _range(k)
            self.base[k] = np.clip(measured[k].vector, lo, hi) if k in measured else np.array(NOMINAL[k])
        self.current = {k: v.copy() for k, v in self.base.items()}
        shaded = [measured[k].dark for k in letters if k in LIGHT and k in measured]
        #: dark bands may widen towards lighter levels only below this level
        self.guard: float | None = min(shaded) - GUARD_MARGIN if shaded else None

    def offset(self, letter: str) -> np.ndarray:
        return self.current[letter] - np.array(NOMINAL[letter])

    def protos(self) -> dict[str, Relative]:
        out = dict(self.defaults)
        for k in self.letters:
            d, off = self.defaults[k], self.offset(k)
            out[k] = Relative(d.level + float(off[0]), d.rg + float(off[1]), d.bg + float(off[2]))
        return out

    def colour(self, colour: np.ndarray, letters: str) -> tuple[str, str]:
        """The letter whose band takes the ball, else ``?``: its default band (as
        ``colour_of``) or its band moved with the prototype. Calibration only adds to the
        default bands, and a ball two letters' bands take is ``?``. With every prototype
        at its nominal value this is exactly ``colour_of``."""
        level, red = float(colour[0]), float(colour[4])
        default = colour_of(colour, letters)[0]
        takers = {default} if default != "?" else set()
        for k in letters:
            off = self.offset(k)
            if k in DARK and off[0] > 0 and (self.guard is None or level > self.guard):
                off = off.copy()
                off[0] = 0.0
            moved = np.array(colour, dtype=np.float64)
            moved[[0, 1, 2, 3, 4]] -= off[[0, 0, 1, 2, 3]]
            if colour_of(moved, letters)[0] == k:
                takers.add(k)
        if len(takers) == 1:
            k = takers.pop()
            how = "" if k == default else " (calibrated colours)"
            return k, f"ball, {NAMES[k]}{how} (level {level:.2f}, red {red:.2f})"
        return "?", f"ball, colour unclear (calibrated colours; level {level:.2f}, red {red:.2f})"

    def adapt(self, readings: Mapping[str, Reading], rate: float = ADAPT_RATE) -> None:
        """Move each letter's prototype a little towards the median of this frame's
        confident readings of it; bounded around its calibrated or default value."""
        for k in self.letters:
            seen = [r.colour for r in readings.values() if r.code == k and len(r.colour) >= 5]
            if not seen:
                continue
            c = np.array(seen, dtype=np.float64)
            m = np.median(c[:, [0, 2, 3, 4]], axis=0)
            if not np.all(np.isfinite(m)):
                continue
            new = self.current[k] + rate * (m - self.current[k])
            lo, hi = _range(k)
            new = np.clip(new, self.base[k] - ADAPT_BOUND, self.base[k] + ADAPT_BOUND)
            self.current[k] = np.clip(new, lo, hi)


class TilePalette:
    """Tile prototypes (chromaticity relative to the wood next to the tile) for one grid
    recognizer; adapts like :class:`BallPalette`, within :data:`TILE_BOUND`."""

    def __init__(self, measured: Mapping[str, np.ndarray], defaults: Mapping[str, np.ndarray]):
        self.base = {k: np.asarray(measured.get(k, defaults[k]), dtype=np.float64) for k in "RGB"}
        self.current = {k: v.copy() for k, v in self.base.items()}

    def protos(self) -> dict[str, np.ndarray]:
        return {k: v.copy() for k, v in self.current.items()}

    def adapt(self, codes: Mapping[str, str], names: tuple[str, ...], chroma: np.ndarray, ok: np.ndarray,
              rate: float = ADAPT_RATE) -> None:
        for k in "RGB":
            rows = [i for i, n in enumerate(names) if codes[n][0] == k and ok[i]]
            if not rows:
                continue
            m = np.median(chroma[rows], axis=0)
            new = self.current[k] + rate * (m - self.current[k])
            self.current[k] = np.clip(new, self.base[k] - TILE_BOUND, self.base[k] + TILE_BOUND)


def tile_chroma(image: np.ndarray, layout: GridLayout, geo: GridGeometry,
                plate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the median chromaticity of the tile's samples relative to the wood next
    to it (as ``read_grid`` judges tiles), and whether enough samples were in view."""
    wood, ok_w = gather_cells(image, geo.wood)
    tile, ok_t = gather_cells(image, geo.tile)
    ref = local_wood(wood, ok_w, plate)[0]
    chroma = chromaticity(tile, ref[:, None, :])
    ok_t = ok_t & np.isfinite(chroma).all(axis=-1)
    return median_rgb(chroma, ok_t), (ok_t.sum(axis=1) >= 10) & (ok_w.sum(axis=1) >= 8)
