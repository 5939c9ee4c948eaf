"""Colour measurement for recognition: linear light, the plate's colour measured in the
same frame, and colours relative to it.

Everything is compared with the plate as seen in this frame: dividing by the plate's
measured colour removes the light's colour cast and the exposure, so the geometry file's
default colours (sRGB, measured under white light) stay usable as prototypes. A colour is
described by its brightness relative to the lit plate (log) and its chromaticity relative to
the plate's, as two log ratios (red/green and blue/green).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import cv2
import numpy as np

from . import srgb
from .geometry import Board
from .pose import Pose
from .render_camera import MARKER_PAPER

RGB = tuple[int, int, int]


def _lut() -> np.ndarray:
    return srgb.decode(np.arange(256, dtype=np.float64) / 255.0).astype(np.float32)


#: sRGB 8-bit level -> linear light
LINEAR = _lut()
#: Rec. 709 luminance weights for linear R, G, B
LUMA = np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
EPS = 1e-4


def to_linear(levels: np.ndarray) -> np.ndarray:
    """Linear light (float32, same shape) of sRGB levels (uint8): OpenCV's table lookup,
    three times faster than NumPy's indexing by the levels, and every sample a frame reads
    goes through it."""
    levels = np.ascontiguousarray(levels, dtype=np.uint8)
    if levels.size == 0:
        return LINEAR[levels]
    return cv2.LUT(levels.reshape(-1, levels.shape[-1] if levels.ndim > 1 else 1), LINEAR).reshape(levels.shape)


def srgb_level(linear: np.ndarray) -> np.ndarray:
    """The sRGB 8-bit level (at least 1) of linear light: where one level's step, and a
    camera's noise in levels, weighs most (a step moves a channel's log by about 2.4 / level)."""
    x = np.maximum(np.asarray(linear, dtype=np.float64), 0.0)
    return np.maximum(255.0 * srgb.encode(x), 1.0)


def pixels_at(image: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pixels of ``image`` (H x W x C, or H x W: C = 1) at ``points`` (... x 2, row and
    column; a row of -1 marks a point outside the image, which reads pixel 0, 0):
    ``points.shape[:-1]`` x C, and which points lie inside. One take from the flattened
    frame, an order of magnitude faster than NumPy's indexing by a pair of index arrays,
    which a frame pays for every sample it reads."""
    inside = points[..., 0] >= 0
    flat = np.where(inside, points[..., 0] * image.shape[1] + points[..., 1], 0)
    pixels = image.reshape(image.shape[0] * image.shape[1], -1)
    return np.take(pixels, flat.ravel(), axis=0).reshape(flat.shape + pixels.shape[1:]), inside


def linear_rgb(colour: Sequence[int]) -> np.ndarray:
    """An sRGB colour [r, g, b] in linear light."""
    return LINEAR[np.asarray(colour, dtype=np.intp)].astype(np.float64)


@dataclass(frozen=True, eq=False)
class Patches:
    """Where board points fall in frames of one size: for each point inside the image, the
    square of pixels ``radius`` around it (clipped at the image's edge), and which points
    lie inside. Worked out once per pose and kept while the pose is (a camera on a stand),
    so that a frame only gathers its pixels."""

    #: per point inside, its square's pixels as (column, row) pairs: points x pixels x 2,
    #: int16, the map OpenCV's remap takes (it gathers them half again as fast as NumPy's
    #: take from the flattened frame)
    at: np.ndarray
    inside: np.ndarray
    radius: int
    #: each point's mean of a square of BGR pixels by one product: (pixels x 3) x 3
    mean: np.ndarray

    @classmethod
    def of(cls, uv: np.ndarray, shape: tuple[int, ...], radius: int = 0) -> Patches:
        """For pixel positions ``uv`` (N x 2) in frames of ``shape`` (rows, columns, ...)."""
        h, w = shape[:2]  # at most MAX_SIDE each (check_frame): the map is int16
        uv = np.asarray(uv, dtype=np.float64)
        finite = np.isfinite(uv).all(axis=1)
        u = np.rint(np.where(finite, uv[:, 0], -1)).astype(np.intp)
        v = np.rint(np.where(finite, uv[:, 1], -1)).astype(np.intp)
        inside = finite & (u >= 0) & (u < w) & (v >= 0) & (v < h)
        du, dv = (a.ravel() for a in np.mgrid[-radius:radius + 1, -radius:radius + 1])
        at = np.stack([np.clip(u[inside, None] + du, 0, w - 1), np.clip(v[inside, None] + dv, 0, h - 1)], axis=2)
        return cls(at.astype(np.int16), inside, radius, _square_mean(len(du), 3))

    def sample(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Linear RGB (N x 3, R G B order) of a BGR (or grey) image at the points, averaged
        over each one's square, and which points lie inside the image."""
        out = np.zeros((len(self.inside), 3), dtype=np.float32)
        if not len(self.at):
            return out, self.inside
        # points x pixels (x channels); OpenCV copies a view it cannot step through itself
        px = cv2.remap(image, self.at, None, cv2.INTER_NEAREST)
        k, c = px.shape[1], (px.shape[2] if px.ndim == 3 else 1)
        px = to_linear(px.reshape(len(px), k * c))
        if self.radius:  # each point's mean by one product: a mean over the middle axis is 10x slower
            px = px @ (self.mean if c == 3 else _square_mean(k, c))
        out[self.inside] = px[:, ::-1]
        return out, self.inside


def _square_mean(pixels: int, channels: int) -> np.ndarray:
    """The matrix that averages ``pixels`` pixels of ``channels`` channels, laid out one
    pixel after another, channel by channel."""
    return np.kron(np.full((pixels, 1), 1.0 / pixels, dtype=np.float32), np.eye(channels, dtype=np.float32))


def quantile(values: np.ndarray, q: float) -> np.ndarray:
    """NumPy's percentile ``q`` (linear) of ``values`` along the first axis, by one sort:
    without NumPy's overhead per call, which counts where a frame needs a few dozen."""
    v = np.sort(values, axis=0)
    pos = (len(v) - 1) * q / 100.0
    lo = math.floor(pos)
    a, b = v[lo], v[min(lo + 1, len(v) - 1)]
    return a + (b - a) * (pos - lo)


def distance(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The length of (dx, dy), element by element, for comparing with a threshold: NumPy's
    ``hypot`` guards against overflow, needless for colours, and takes three and a half
    times as long (it can differ in the last bit)."""
    return np.sqrt(dx * dx + dy * dy)


def luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb @ LUMA


def log_chroma(rgb: np.ndarray, floor: float = EPS) -> np.ndarray:
    """Log chromaticity ratios, red/green and blue/green (N x 2), of linear colours (N x 3),
    each channel at least ``floor``: a colour's hue and saturation whatever its light."""
    c = np.maximum(np.asarray(rgb, dtype=np.float64), floor)
    return np.stack([np.log(c[:, 0] / c[:, 1]), np.log(c[:, 2] / c[:, 1])], axis=1)


@dataclass(frozen=True, slots=True)
class Relative:
    """A colour relative to the lit plate: ``level`` = log(luminance / plate's), and
    ``rg``, ``bg`` = log chromaticity ratios (red/green, blue/green) minus the plate's."""

    level: float
    rg: float
    bg: float

    def chroma_distance(self, other: Relative) -> float:
        return float(np.hypot(self.rg - other.rg, self.bg - other.bg))


def relative(rgb: np.ndarray, plate: np.ndarray) -> Relative:
    """One linear colour (3,) relative to the plate's linear colour (3,)."""
    c = np.maximum(np.asarray(rgb, dtype=np.float64), EPS)
    p = np.maximum(plate, EPS)
    return Relative(float(np.log(luminance(c) / luminance(p))),
                    float(np.log(c[0] / c[1]) - np.log(p[0] / p[1])),
                    float(np.log(c[2] / c[1]) - np.log(p[2] / p[1])))


def prototypes(colours: Mapping[str, RGB], plate_colour: RGB) -> dict[str, Relative]:
    """The geometry file's default colours relative to its default plate colour."""
    plate = linear_rgb(plate_colour)
    return {k: relative(linear_rgb(c), plate) for k, c in colours.items()}


def margin_points(board: Board, step: float = 4.0) -> np.ndarray:
    """Points of the plate's top that no piece or marker covers: a strip along each edge
    between the markers and beyond the pieces' reach."""
    w, d = board.plate[0] / 2, board.plate[1] / 2
    reach = (max(max(abs(p.centre[0]), abs(p.centre[1])) for p in board.positions)
             + max(board.ball_diameter, board.pitch) / 2)
    inner = min(reach + 6.0, w - 8.0, d - 8.0)
    keep = board.marker_size / 2 + MARKER_PAPER + 3.0
    pts = []
    for x in np.arange(-w + 4.0, w - 3.9, step):
        for y in np.arange(-d + 4.0, d - 3.9, step):
            if max(abs(x), abs(y)) < inner:
                continue
            if any(abs(x - m.centre[0]) < keep and abs(y - m.centre[1]) < keep for m in board.markers):
                continue
            pts.append((x, y, 0.0))
    return np.array(pts, dtype=np.float64)


@dataclass(frozen=True, slots=True)
class PlateReference:
    """The lit plate's colour in this frame (linear RGB) and how many samples it rests on."""

    colour: np.ndarray
    samples: int


def margin_patches(board: Board, pose: Pose, shape: tuple[int, ...], points: np.ndarray | None = None) -> Patches:
    """Where the plate's free strips (``points``, :func:`margin_points` if None) fall in
    frames of ``shape`` for ``pose``."""
    return Patches.of(pose.project(margin_points(board) if points is None else points), shape)


#: the fewest of the plate's strip samples in view to measure its colour by
MIN_STRIPS = 8


def measure_plate(image: np.ndarray, board: Board, pose: Pose, points: np.ndarray | None = None,
                  patches: Patches | None = None, keep: np.ndarray | None = None) -> PlateReference:
    """The lit plate's colour: among the free strips along the plate's edges, the median
    colour of the brighter half (shadows of pieces or of a hand fall on the rest).
    ``patches``: :func:`margin_patches` for this pose, if already worked out. ``keep``:
    the strips' points to take the plate's chromaticity from (those clear of an arm in
    view: a hand lying over the strips is often as bright as the plate and would make up
    much of the brighter half), where that leaves enough of them in view; its brightness
    is all the strips' still (measured on clear strips alone it read lower, and fewer
    places right)."""
    if patches is None:
        patches = margin_patches(board, pose, image.shape, points)
    rgb, inside = patches.sample(image)
    kept = None if keep is None else inside & keep
    clear = rgb[kept] if kept is not None and int(np.count_nonzero(kept)) >= MIN_STRIPS else None
    rgb = rgb[inside]
    if len(rgb) < MIN_STRIPS:
        return PlateReference(linear_rgb(board.plate_colour), 0)
    colour = _lit(rgb)
    if clear is not None:  # the clear strips' tint at all the strips' brightness
        tint = _lit(clear)
        colour = tint * (float(luminance(colour[None])[0]) / max(float(luminance(tint[None])[0]), EPS))
    return PlateReference(colour, int(len(rgb)))


def _lit(rgb: np.ndarray) -> np.ndarray:
    """The median colour of the brighter half of samples (N x 3): the lit plate's."""
    lum = luminance(rgb)
    return quantile(rgb[lum >= quantile(lum, 50)], 50).astype(np.float64)
