"""Measures of pyramid positions, a level at a time, for telling a ball from an empty place
(and from a hand). Everything is relative to the plate as seen in the same frame, so that
the light's colour and strength drop out.

- On the ball's visible surface (body samples, with known normals): how brightness follows
  the normals (a least-squares fit, refitted without the worst tenth: its upward slope,
  horizontal slope and fit), brightness and its spread, the share of samples with the
  plate's colour or one ball colour, centre against edge. A ball is convex: lit from any
  direction above, its brightness follows its normals; an empty place is a dent, or the
  dark gap between four balls, or a mosaic of the balls below.
- Around its outline: the contrast across the silhouette a ball would have.
- Under it (base positions): the plate just outside the hollow's rim that a ball would
  hide: empty, it is flat lit wood; with a ball there, the ball's dark underside.
- The frame: whether an arm crosses the table band, and how near.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .recognize_colour import distance, quantile
from .recognize_pyramid import Geometry

LUMA = np.array([0.2126, 0.7152, 0.0722])
NAMES = ("samples", "up", "slope_h", "fit", "level", "spread", "bright", "plate_share", "colour_share",
         "other_share", "centre_edge", "edge_contrast", "edge_sign", "ring_share", "ring_level", "ring_plate",
         "ring_spread", "level_no", "hand_frame", "hand_near", "foreign")
#: brightness bands (log luminance relative to the lit plate) a ball of each colour falls in
LEVELS = {"L": (-2.0, 1.0), "D": (-5.0, -0.7), "W": (-2.2, 1.4), "B": (-8.0, -1.8), "R": (-5.0, 0.4)}
CHROMA_TOLERANCE = 0.3
#: where the plate's colour is expected: lit, or in shadow (tinted by the sky light)
PLATE_CHROMA = (-0.04, 0.06)
#: below this level (log, relative to the lit plate) chromaticity is mostly noise
DARK = -2.5


def tolerance(letter: str) -> float:
    """Red balls are far from everything else, and their weak channels are noisy."""
    return CHROMA_TOLERANCE * (2.0 if letter == "R" else 1.0)


@dataclass(frozen=True, slots=True)
class Colours:
    """Per sample: log brightness relative to the lit plate, and log chromaticity ratios
    (red/green, blue/green) relative to the plate's. Any shape of samples."""

    level: np.ndarray
    rg: np.ndarray
    bg: np.ndarray

    @classmethod
    def of(cls, rgb: np.ndarray, plate: np.ndarray) -> Colours:
        c = np.maximum(rgb.astype(np.float64), 1e-4)
        p = np.maximum(plate, 1e-4)
        return cls(np.log((c @ LUMA) / float(p @ LUMA)), np.log(c[..., 0] / c[..., 1]) - math.log(p[0] / p[1]),
                   np.log(c[..., 2] / c[..., 1]) - math.log(p[2] / p[1]))

    def at(self, where) -> Colours:
        """The samples at ``where`` (an index or a mask)."""
        return Colours(self.level[where], self.rg[where], self.bg[where])

    def near(self, proto, tol: float, band: tuple[float, float]) -> np.ndarray:
        return ((distance(self.rg - proto.rg, self.bg - proto.bg) < tol)
                & (self.level > band[0]) & (self.level < band[1]))

    def plate_chroma(self) -> np.ndarray:
        """The plate's chromaticity (lit, or tinted by the sky), at any brightness."""
        return distance(self.rg - PLATE_CHROMA[0], self.bg - PLATE_CHROMA[1]) < CHROMA_TOLERANCE

    def plate_like(self) -> np.ndarray:
        """The plate's chromaticity, bright enough for chromaticity to be told."""
        return self.plate_chroma() & (self.level > DARK)


#: the share (per cent) of the ring's plate-coloured samples taken as its deepest shade,
#: and the fewest such samples to measure it on
SHADE_SHARE = 2.0
SHADE_SAMPLES = 50


def ring_plate(geo: Geometry, lin: np.ndarray, inside: np.ndarray, maybe: np.ndarray, plate: np.ndarray) -> Colours:
    """The samples of the ring round the base that show the plate's colour (lit, or tinted
    by the sky) and no ball that may be present: the plate as this frame's light and shade
    show it."""
    ok = inside[geo.ring] & ~geo.ring_hidden[:, maybe].any(axis=1)
    col = Colours.of(lin[geo.ring[ok]], plate)
    return col.at(col.plate_chroma())


def plate_shade(geo: Geometry, lin: np.ndarray, inside: np.ndarray, maybe: np.ndarray, plate: np.ndarray,
                ring: Colours | None = None) -> float:
    """How dark the plate's deepest shade round the base is in this frame (log, relative to
    the lit plate): the darkest :data:`SHADE_SHARE` per cent of :func:`ring_plate`'s samples
    (``ring``, if worked out already); -inf when too few are seen."""
    if ring is None:
        ring = ring_plate(geo, lin, inside, maybe, plate)
    if len(ring.level) < SHADE_SAMPLES:
        return -math.inf
    return float(quantile(ring.level, SHADE_SHARE))


#: the plate's tint at a brightness: from :func:`ring_plate`'s samples within this of it
#: (log), and no fewer than :data:`TINT_SAMPLES` of them
TINT_WIDTH = 0.4
TINT_SAMPLES = 20


def plate_tint_at(ring: Colours, level: float) -> np.ndarray | None:
    """The plate's median tint (log red/green, blue/green, relative to the lit plate's) where
    the ring round the base is as bright as ``level``: the tint an empty hollow that dark
    shows, for the light that makes the plate so dark tints it too (a blue sky, or light
    thrown back by the plate); None where too few of the ring's samples are that bright."""
    near = np.abs(ring.level - level) < TINT_WIDTH
    if near.sum() < TINT_SAMPLES:
        return None
    return np.array([float(np.median(ring.rg[near])), float(np.median(ring.bg[near]))])


def blocked(by: np.ndarray, maybe: np.ndarray) -> np.ndarray:
    """Which samples (positions x samples) a ball that may be present blocks, ``by`` saying
    which spheres would (positions x samples x spheres: bool, or 0/1 when ``maybe`` has a
    row per position). ``maybe``: the spheres that may be present, one for all positions,
    or one row per position (positions x spheres)."""
    if maybe.ndim == 1:
        return by[:, :, maybe].any(axis=2)
    return np.matmul(by, maybe.astype(np.float32)[:, :, None])[:, :, 0] > 0


def in_view(geo: Geometry, idx: np.ndarray, inside: np.ndarray, maybe: np.ndarray) -> np.ndarray:
    """The body samples of positions ``idx`` in the image and hidden by no ball that may be
    present (positions x samples; ``maybe`` one for all)."""
    return geo.body_ok[idx] & inside[geo.body[idx]] & ~geo.hidden[idx][:, :, maybe].any(axis=2)


def _unblocked(geo: Geometry, idx: np.ndarray, inside: np.ndarray, maybe: np.ndarray) -> np.ndarray:
    """The body samples of positions ``idx`` :func:`in_view` and not meeting, beyond them,
    a ball of their own level that may be present: what a position's measures rest on."""
    if maybe.ndim == 1:
        return in_view(geo, idx, inside, maybe) & ~geo.beyond[idx][:, :, maybe].any(axis=2)
    return geo.body_ok[idx] & inside[geo.body[idx]] & ~blocked(geo.body_by[idx], maybe)


def _masked_mean(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Per row, the mean of the ``ok`` samples (0 for none); ``x`` may stack several
    arrays of rows, all with the same ``ok``."""
    n = ok.sum(axis=-1)
    return np.where(n > 0, (x * ok).sum(axis=-1) / np.maximum(n, 1), 0.0)


#: what stands in for a sample left out of a percentile: far above any measure, so that the
#: ones kept sort first and an empty row stays finite
_LEFT_OUT = 1e300


def percentiles(x: np.ndarray, ok: np.ndarray, q: list[float]) -> np.ndarray:
    """Per row percentiles of the ``ok`` entries, interpolated as NumPy's default does:
    len(q) x rows (0 for an empty row). ``x`` may stack several arrays of rows
    (``...`` x rows x samples, ``ok`` broadcast to it): then len(q) x ... x rows. One sort
    for all of them."""
    if ok.shape != x.shape:
        ok = np.broadcast_to(ok, x.shape)
    shape = x.shape[:-1]
    flat, mask = x.reshape(-1, x.shape[-1]), ok.reshape(-1, x.shape[-1])
    xs = np.sort(np.where(mask, flat, _LEFT_OUT), axis=1)
    n = mask.sum(axis=1)
    last = np.maximum(n - 1, 0)
    rows = np.arange(len(flat))
    out = np.zeros((len(q), len(flat)))
    for k, qq in enumerate(q):
        pos = qq / 100.0 * last
        lo = np.floor(pos).astype(np.intp)
        a, b = xs[rows, lo], xs[rows, np.minimum(lo + 1, last)]
        out[k] = np.where(n > 0, a + (b - a) * (pos - lo), 0.0)
    return out.reshape((len(q),) + shape)


def _fit(A: np.ndarray, lum: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares lum = a + slope . normal per row, with ``A`` the rows' design
    matrices (1 and the normal per sample): coefficients (rows x 4) and predictions."""
    Aw = A * w[..., None]
    AtA = Aw.transpose(0, 2, 1) @ A + 1e-9 * np.eye(4)
    Atb = Aw.transpose(0, 2, 1) @ lum[..., None]
    coef = np.linalg.solve(AtA, Atb)
    return coef[..., 0], (A @ coef)[..., 0]


@dataclass(frozen=True, slots=True)
class Batch:
    """Measures of one level's positions: ``x`` (positions x :data:`NAMES`), each
    position's colour shares by letter (``.`` the plate's), and its usable sample count."""

    x: np.ndarray
    shares: list[dict[str, float]]
    counts: np.ndarray
    #: per position: median and 90th percentile level, median red/green and blue/green
    #: log ratios (relative to the plate), the median red chromaticity relative to the
    #: plate's, and the median level just outside the outline
    colour: np.ndarray

    def rows(self, start: int, stop: int) -> Batch:
        """The measures of positions ``start`` to ``stop`` of this batch."""
        return Batch(self.x[start:stop], self.shares[start:stop], self.counts[start:stop], self.colour[start:stop])


def measure_level(geo: Geometry, idx: np.ndarray, lin: np.ndarray, inside: np.ndarray, maybe: np.ndarray,
                  plate: np.ndarray, protos: dict, letters: str, levels: np.ndarray, hand_frame: bool | np.ndarray,
                  hand_near: np.ndarray, colours: Colours | None = None) -> Batch:
    """Measures of the positions ``idx`` (one level) from the frame's sampled pixels
    (``lin``: linear RGB of :attr:`Geometry.pixels`, ``inside`` where in the image), with
    ``maybe`` the positions that may hold a ball: one for all, or one row per position of
    ``idx`` (several levels measured at once, each row with what is taken to be above it).
    ``colours``: every position's body samples as :class:`Colours`, if worked out already.
    ``hand_frame``: whether a hand is in view, for all positions or for each (those well
    clear of the arm in the image are read as without one: vision/recognize_reach.py)."""
    x = np.zeros((len(idx), len(NAMES)))
    b = geo.body[idx]
    ok = _unblocked(geo, idx, inside, maybe)
    counts = ok.sum(axis=1)
    x[:, 0] = counts / np.maximum(geo.body_ok[idx].sum(axis=1), 1)
    x[:, 17] = levels[idx]
    x[:, 18] = hand_frame[idx] if isinstance(hand_frame, np.ndarray) else float(hand_frame)
    x[:, 19] = hand_near[idx]
    rgb = lin[b]
    col = colours.at(idx) if colours is not None else Colours.of(rgb, plate)
    lum = rgb.astype(np.float64) @ LUMA
    w = ok.astype(np.float64)
    A = np.concatenate([np.ones(lum.shape + (1,)), geo.normals[idx]], axis=2)
    coef, pred = _fit(A, lum, w)
    resid = np.abs(lum - pred)
    cut = percentiles(resid, ok, [90])[0]
    w2 = (ok & (resid <= cut[:, None] + 1e-12)).astype(np.float64)
    coef, pred = _fit(A, lum, w2)
    mean = np.maximum(_masked_mean(lum, w2 > 0), 1e-6)
    var = _masked_mean((lum - mean[:, None]) ** 2, w2 > 0)
    err = _masked_mean((lum - pred) ** 2, w2 > 0)
    enough = counts >= 8
    x[:, 1] = np.where(enough, coef[:, 3] / mean, 0.0)
    x[:, 2] = np.where(enough, np.hypot(coef[:, 1], coef[:, 2]) / mean, 0.0)
    x[:, 3] = np.where(enough & (var > 0), 1.0 - err / np.maximum(var, 1e-12), 0.0)
    rel = np.maximum(rgb.astype(np.float64), 1e-5) / np.maximum(plate, 1e-5)
    red = rel[..., 0] / rel.sum(axis=2)
    face = geo.facing[idx]
    centre, edge = ok & (face > 0.85), ok & (face < 0.65)
    (q10, *_), (q50, rg50, bg50, red50, cmed, emed), (q90, *_) = percentiles(
        np.stack([col.level, col.rg, col.bg, red, col.level, col.level]), np.stack([ok, ok, ok, ok, centre, edge]),
        [10, 50, 90])
    x[:, 4], x[:, 5], x[:, 6] = q50, q90 - q10, q90
    plate_like = col.plate_like()
    near = [col.near(protos[k], tolerance(k), LEVELS.get(k, (-6.0, 1.5))) for k in letters]
    matched = plate_like.copy()
    for n in near:
        matched |= n
    # each letter's share, the plate's, and the unmatched share: one masked mean for all
    means = _masked_mean(np.stack([*near, plate_like, ~matched & (col.level > DARK)]), ok)
    per_letter, plate_share = means[:len(letters)], means[len(letters)]
    ranked = np.sort(per_letter.T, axis=1)[:, ::-1]
    x[:, 7], x[:, 8] = plate_share, ranked[:, 0]
    x[:, 9] = ranked[:, 1] if ranked.shape[1] > 1 else 0.0
    x[:, 20] = means[-1]
    listed = means[:-1].T.tolist()  # Python floats, as float() gives, at a fraction of the cost
    shares = [{**dict(zip(letters, row[:-1])), ".": row[-1]} for row in listed]
    x[:, 10] = np.where((centre.sum(axis=1) >= 3) & (edge.sum(axis=1) >= 3), cmed - emed, 0.0)
    x[:, 11:13], outside = _outline(geo, idx, lin, inside, maybe, plate)
    colour = np.stack([q50, q90, rg50, bg50, red50, outside], axis=1)
    x[:, 13:17] = _under(geo, idx, lin, inside, maybe, plate, levels)
    x[counts < 8, 1:17] = 0.0
    x[counts < 8, 20] = 0.0
    return Batch(x, shares, counts, colour)


def _outline(geo: Geometry, idx: np.ndarray, lin: np.ndarray, inside: np.ndarray, maybe: np.ndarray,
             plate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median absolute and signed log contrast across the silhouette (inside minus out),
    and the median level just outside it."""
    inner, outer = geo.inner[idx], geo.outer[idx]
    by = geo.outline_by[idx] if maybe.ndim > 1 else geo.outline_hidden[idx]
    ok = inside[inner] & inside[outer] & ~blocked(by, maybe)
    plum = float(np.maximum(plate, 1e-4) @ LUMA)
    lin_in = np.log(np.maximum(lin[inner] @ LUMA, 1e-4) / plum)
    lin_out = np.log(np.maximum(lin[outer] @ LUMA, 1e-4) / plum)
    diff = lin_in - lin_out
    enough = ok.sum(axis=1) >= 6
    a, s, o = percentiles(np.stack([np.abs(diff), diff, lin_out]), ok, [50])[0]
    return np.stack([np.where(enough, a, 0.0), np.where(enough, s, 0.0)], axis=1), np.where(enough, o, np.nan)


def _under(geo: Geometry, idx: np.ndarray, lin: np.ndarray, inside: np.ndarray, maybe: np.ndarray,
           plate: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Base positions: the share of the under ring in view, its median level, plate share
    and spread (zeros elsewhere)."""
    out = np.zeros((len(idx), 4))
    base = np.flatnonzero(levels[idx] == 1)
    if not len(base):
        return out
    if maybe.ndim > 1:
        maybe = maybe[base]
    idx = idx[base]
    u = geo.under[idx]
    by = geo.under_by[idx] if maybe.ndim > 1 else geo.under_hidden[idx]
    ok = geo.under_ok[idx] & inside[u] & ~blocked(by, maybe)
    col = Colours.of(lin[u], plate)
    n = ok.sum(axis=1)
    enough = n >= 6
    q25, q50, q75 = percentiles(col.level, ok, [25, 50, 75])
    plate_like = col.plate_chroma()
    mine = np.stack([n / u.shape[1], q50, _masked_mean(plate_like, ok), q75 - q25], axis=1)
    mine[~enough] = 0.0
    out[base] = mine
    return out
