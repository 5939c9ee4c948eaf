"""What the renderer's surfaces look like: sRGB/linear conversion, the plate's procedural
wood grain, the table's faint mottling and the printed ArUco markers.

Lighting is computed in linear light and converted to sRGB at the end, as a camera's
pipeline does; colours in geometry files are sRGB.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from . import srgb as srgb_curve
from .geometry import Board
from .markers import marker_cells
from .render_camera import MARKER_PAPER

RGB = tuple[int, int, int]
#: printed paper and ink (sRGB)
PAPER: RGB = (243, 243, 238)
INK: RGB = (22, 22, 24)
#: millimetres per texel of the wood texture
WOOD_TEXEL = 0.5
#: the wood's latewood (the dark part of a growth ring) against its colour, per channel,
#: and how much of a ring's middle it darkens, on the plate and on turned balls alike
LATEWOOD = (0.62, 0.55, 0.48)
RING_DEPTH = 0.45
_LUT_SIZE = 1 << 14


def to_linear(srgb: RGB | np.ndarray) -> np.ndarray:
    """sRGB (0-255) to linear light (0-1), float32."""
    return srgb_curve.decode(np.asarray(srgb, dtype=np.float32) / 255.0).astype(np.float32)


def _encode_lut() -> np.ndarray:
    x = np.linspace(0.0, 1.0, _LUT_SIZE, dtype=np.float64)
    return (255.0 * srgb_curve.encode(x)).astype(np.float32)


#: linear (0-1, _LUT_SIZE steps) to sRGB 0-255, built once at import
_ENCODE = _encode_lut()


def to_srgb(linear: np.ndarray) -> np.ndarray:
    """Linear light (any float array, clipped to 0-1) to sRGB 0-255 as float32, through a
    table (fast, and finer than 8-bit output needs)."""
    idx = (np.clip(linear, 0.0, 1.0) * (_LUT_SIZE - 1) + 0.5).astype(np.int32)
    return _ENCODE[idx]


def _noise(g: np.random.Generator, coarse: tuple[int, int], shape: tuple[int, int]) -> np.ndarray:
    """Smooth value noise: a coarse grid of Gaussian values upsampled to ``shape`` (rows,
    columns), roughly unit variance."""
    grid = g.standard_normal((max(2, coarse[0]), max(2, coarse[1]))).astype(np.float32)
    return cv2.resize(grid, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def wood_texture(board: Board, seed: int, footprint_mm: float = 0.0) -> np.ndarray:
    """The plate's top as a linear-RGB image, WOOD_TEXEL mm per texel, row 0 at y = -depth/2
    and column 0 at x = -width/2. The grain runs along x: growth rings are bands across y,
    wandering with low-frequency noise, with fine fibres stretched along x. Blurred to
    ``footprint_mm`` (the size of a pixel on the plate) so distant views do not shimmer.
    Read-only: a camera's frames share one texture, made once (it costs a tenth of a
    frame on the grid)."""
    return _wood(tuple(board.plate), tuple(board.plate_colour), seed, footprint_mm)


@functools.lru_cache(maxsize=8)
def _wood(plate: tuple[float, float], colour: RGB, seed: int, footprint_mm: float) -> np.ndarray:
    g = np.random.default_rng(seed)
    nx = int(math.ceil(plate[0] / WOOD_TEXEL)) + 2
    ny = int(math.ceil(plate[1] / WOOD_TEXEL)) + 2
    y = (np.arange(ny, dtype=np.float32) * WOOD_TEXEL)[:, None]
    wander = 5.0 * _noise(g, (3, 5), (ny, nx)) + 1.5 * _noise(g, (8, 14), (ny, nx))
    period = 4.5 * (1.0 + 0.25 * _noise(g, (4, 3), (ny, nx)))
    rings = (0.5 + 0.5 * np.sin(2 * np.pi * (y + wander) / period)) ** 4
    fibres = _noise(g, (ny // 2, max(2, nx // 60)), (ny, nx))
    blotch = _noise(g, (4, 4), (ny, nx))
    base = to_linear(colour)
    dark = base * np.array(LATEWOOD, dtype=np.float32)
    mix = np.clip(RING_DEPTH * rings + 0.08 * fibres, 0.0, 1.0)[..., None]
    tex = (base * (1 - mix) + dark * mix) * (1.0 + 0.05 * fibres + 0.05 * blotch)[..., None]
    if footprint_mm > WOOD_TEXEL:
        tex = cv2.GaussianBlur(tex, (0, 0), 0.5 * footprint_mm / WOOD_TEXEL)
    tex = np.ascontiguousarray(tex, dtype=np.float32)
    tex.flags.writeable = False
    return tex


def _remap(tex: np.ndarray, mx: np.ndarray, my: np.ndarray, border: int) -> np.ndarray:
    """Bilinear samples of ``tex`` at texel coordinates (any number of points: cv2.remap
    takes maps under 32767 on a side, so they are laid out in rows of 16384)."""
    flat = mx.size
    rows = max(1, int(math.ceil(flat / 16384)))
    pad = rows * 16384 - flat
    mx2 = np.pad(mx.ravel().astype(np.float32), (0, pad)).reshape(rows, -1)
    my2 = np.pad(my.ravel().astype(np.float32), (0, pad)).reshape(rows, -1)
    out = cv2.remap(tex, mx2, my2, cv2.INTER_LINEAR, borderMode=border)
    channels = tex.shape[2:] if tex.ndim == 3 else ()
    return out.reshape(rows * 16384, *channels)[:flat].reshape(*mx.shape, *channels)


def sample_wood(tex: np.ndarray, board: Board, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The wood colour (linear) at plate points (x, y arrays of the same shape)."""
    mx = ((x + board.plate[0] / 2) / WOOD_TEXEL).astype(np.float32)
    my = ((y + board.plate[1] / 2) / WOOD_TEXEL).astype(np.float32)
    return _remap(tex, mx, my, cv2.BORDER_REPLICATE)


def table_shade(x: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    """A faint mottling of the table (a factor near 1), tiling every 60 cm."""
    g = np.random.default_rng(seed + 7919)
    cell = 10.0
    grid = (_noise(g, (12, 12), (60, 60)) + 0.5 * g.standard_normal((60, 60)).astype(np.float32)) * 0.03
    mx = (x / cell) % 60
    my = (y / cell) % 60
    return 1.0 + _remap(grid, mx, my, cv2.BORDER_WRAP)


def marker_albedo(board: Board, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which plate points (x, y arrays) are printed paper, and the printed colour (linear)
    there: the black-and-white cells of each marker (its top towards +y) inside a white
    border of MARKER_PAPER mm."""
    printed = np.zeros(x.shape, dtype=bool)
    colour = np.zeros((*x.shape, 3), dtype=np.float32)
    paper, ink = to_linear(PAPER), to_linear(INK)
    half = board.marker_size / 2
    for m in board.markers:
        cx, cy = m.centre
        on_paper = (np.abs(x - cx) <= half + MARKER_PAPER) & (np.abs(y - cy) <= half + MARKER_PAPER)
        if not on_paper.any():
            continue
        cells = marker_cells(board.dictionary, m.id)
        n = cells.shape[0]
        u = (x[on_paper] - (cx - half)) / board.marker_size * n  # columns from the left edge
        v = ((cy + half) - y[on_paper]) / board.marker_size * n  # rows from the top edge
        inside = (u >= 0) & (u < n) & (v >= 0) & (v < n)
        black = np.zeros(u.shape, dtype=bool)
        black[inside] = cells[v[inside].astype(int), u[inside].astype(int)] == 1
        printed[on_paper] = True
        colour[on_paper] = np.where(black[:, None], ink, paper)
    return printed, colour


#: a turned wooden ball's grain: ring width (mm) and the pith's distance from the ball's
#: centre (mm); its latewood is the plate's (:data:`LATEWOOD`)
BALL_RING_MM = (2.0, 5.0)
BALL_PITH_MM = (20.0, 90.0)


def ball_grain(rel: np.ndarray, seed: tuple[int, ...], strength: float, footprint_mm: float) -> np.ndarray:
    """How much darker a turned wooden ball is at points ``rel`` (N x 3, mm from its
    centre), per channel (N x 3, 1 = the ball's colour): growth rings are cylinders round
    the log's pith, which lies outside the ball, so its surface shows bands and ellipses,
    with fine fibres along the grain. ``seed`` chooses the log and how the ball was cut
    from it; ``strength`` scales the contrast (1 = the plate's); rings finer than the
    pixel ``footprint_mm`` fade to their mean, as a lens would blur them."""
    g = np.random.default_rng(seed)
    axis = g.standard_normal(3)
    axis /= np.linalg.norm(axis)
    side = np.cross(axis, g.standard_normal(3))
    side /= np.linalg.norm(side)
    across = np.cross(axis, side)
    pith = side * g.uniform(*BALL_PITH_MM)
    period = g.uniform(*BALL_RING_MM)
    q = rel.astype(np.float64) - pith
    along = q @ axis
    radius = np.linalg.norm(q - along[:, None] * axis, axis=1)
    phase = g.uniform(0, 2 * np.pi, 3)
    wander = 0.5 * np.sin(along / 9.0 + phase[0]) + 0.3 * np.sin(along / 3.7 + phase[1])
    rings = (0.5 + 0.5 * np.sin(2 * np.pi * (radius + wander) / period)) ** 4
    fibre_period = 0.6
    fibres = np.sin(2 * np.pi * (q @ across) / fibre_period + 3.0 * np.sin(along / 2.3 + phase[2]))
    sigma = 0.5 * footprint_mm
    mean = 35.0 / 128.0  # of (0.5 + 0.5 sin)^4 over a period
    rings = mean + (rings - mean) * math.exp(-2 * (np.pi * sigma / period) ** 2)
    fibres = fibres * math.exp(-2 * (np.pi * sigma / fibre_period) ** 2)
    mix = np.clip(strength * (RING_DEPTH * rings + 0.04 * fibres), 0.0, 1.0)[:, None]
    dark = np.asarray(LATEWOOD)
    return ((1 - mix) + dark * mix) * (1.0 + 0.04 * strength * fibres)[:, None]
