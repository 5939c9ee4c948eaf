"""Which plate lies under a tile: a cell's border ring explained as bare wood, a white
plate or a black one (vision/recognize_grid.py reads the rest of the cell).

Each border sample is fitted as some of the tile's colour (blur spills it over a thin
border) plus one of the three surfaces under some light, relative to the wood right next
to the cell; the clear fits vote. Glare on a white plate, a webcam's sharpening halo, and a
border lit unlike its wood are the cases the rules below settle.
"""

from __future__ import annotations

import numpy as np

from .geometry import Board
from .recognize_colour import linear_rgb
from .recognize_features import LUMA, percentiles

#: a white plate is lit at least this much relative to the wood right next to it: a grey
#: border darker than that wood is a black plate in good light (black plates vary a lot in
#: how dark they are), not a white one in shadow
WHITE_LIGHT = 0.3
#: a bare border is the wood, lit as the wood next to it is except where the tile's shadow
#: falls (one or two sides at most): at least a quarter of it must be lit this much. All
#: round darker than that, it is a black plate in warm light, not wood in shade
BARE_LIGHT = 0.35
#: ... and a border darker than that all round whose samples (but for the tile's spill) are
#: at most this much of the wood's light next to it, as a median, and seen on all four
#: sides (:data:`DARK_SIDES`), is dark: the rules cannot tell a black plate that the blur
#: mixes with the wood beside it (it takes the wood's colour, dimmed) from wood in deep
#: shade; the border model may (vision/recognize_second.py, ``BLACK_SURE``)
DARK_LIGHT = 0.35
#: ... seen on this many sides, two samples a side at least: the tile's shadow darkens two
#: sides of a bare border, and a tile seen from the side hides the other two (1100170 b6
#: through a webcam, a bare border read black at 1.00 on its two shaded sides); a hand's
#: shadow may darken a third (fresh 6400142 f5 and 6400147 e1 and e4 through webcams, read
#: black when three sides were asked)
DARK_SIDES = 4
#: ... and a border dark so on this many sides, with no arm in view, may be a black plate
#: whose fourth side the tile hides (a camera off to one side; vision/recognize_grid.py,
#: ``BLACK_SURE``). A tile's shadow darkens two sides of a bare border; the bare borders
#: above that were dark on three sides had an arm in view, whose shadow darkened the third
DIM_SIDES = 3
#: nor may a bare border be lit more than this, as a median, relative to the wood next to it
#: (on rendered frames 99 % of bare borders were at most 1.03): a border brighter than its
#: own wood is a white plate that the blur has tinted, or the wood next to it is shaded
BARE_BRIGHT = 1.1
#: a bare border's sample is the tile's spill plus the wood, and blur mixes them: the two
#: shares sum to about 1 where the border is lit like the wood next to it. A white plate
#: beside a blue tile, lit less than the wood, is fitted as wood with half the tile added
#: and sums to 1.5-1.6 (fresh 5000938 c4 with far colours, read bare; 4800848 e4 under a
#: soft light at 1.62). Of 20,752 borders read bare right on 2,500 frames of the
#: benchmark's grid rows (its four looks) none sums to more than 1.4 as a median, 2 to
#: 1.35; with far colours on the fresh seeds 5,000,000 on, 2 of 9,662
BARE_MIXED = 1.4
#: a sample is glare on a white plate only if it is this much brighter than the wood next to
#: it and than the open plate: the narrow wood between neighbouring plates and tiles lies in
#: their shadows, and lit wood beside it is brighter than that, not white. A sample brighter
#: than its wood by this but not than the open plate does not vote. Glare is white, so it is
#: no darker than the wood in green, the channel that carries most of the light: a webcam's
#: sharpening lifted a red tile's spill over its bare border brighter than the wood by its red
#: alone (seed 1100086 through a webcam, read as a white plate: samples [0.67 0.04 0.01]
#: beside wood [0.33 0.08 0.01])
GLARE = 1.3
#: a webcam that sharpens overshoots at a tile's edge: the wood right beside a tile (darker
#: than the wood) is pushed away from the tile's colour, ``s * (ref + c * (ref - tile))``,
#: and can pass the glare test (seed 4200378 through a webcam, gamma 0.76 and sharpening
#: 1.23: nine bare borders read as white plates; 4200422: six, clipped in red). Where that
#: overshoot, with c up to :data:`HALO_REACH` and the wood's light within 15 %, explains a
#: cell's glare samples (their median) this many times better than a white plate does, they
#: are not glare and do not vote. A white plate with glare beside a saturated tile can look
#: the same (pushed away from red is towards white): the price is a few of those read `?`
#: (36 of 5,800 grid frames, docs/vision.md, Limits, where the other settings tried are)
HALO = 2.5
HALO_REACH = 0.8
#: a tile put down off true covers part of its border's ring: the ring's samples that are a
#: quarter spill or more are left out of the share that must agree, up to this share of
#: those in view (where the border is wide enough: vision/recognize_grid.py, ``ON_TILE_PX``)
ON_TILE_MOST = 0.35


#: the overshoot's reach and the wood's light tried by :func:`_overshoot_error`
_REACH = np.linspace(0.0, HALO_REACH, 11)[:, None, None]
_SCALE = np.linspace(0.85, 1.15, 7)[:, None, None]
_REACH.flags.writeable = _SCALE.flags.writeable = False


def _overshoot_error(ring: np.ndarray, tile: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per border sample (k x 3, with its cell's tile and wood), its distance relative to
    its brightness from the wood pushed away from the tile's colour, ``s * (ref + c * (ref -
    tile))`` (:data:`HALO`), clipped as the camera clips: a webcam that overshoots bright
    wood clips it white. The best of c in ten steps and s in 5 % steps; clipping makes the
    fit piecewise, and only the few glare samples are fitted."""
    pushed = (ref + _REACH * (ref - tile))[:, None] * _SCALE  # c x s x k x 3
    np.minimum(pushed, 1.0, out=pushed)
    np.maximum(pushed, 0.0, out=pushed)
    pushed -= ring
    pushed *= pushed
    best = (pushed[..., 0] + pushed[..., 1] + pushed[..., 2]).reshape(-1, len(ring)).min(axis=0)
    return np.sqrt(best) / (np.sqrt(np.einsum("ki,ki->k", ring, ring)) + 1e-4)


def _squares(v: np.ndarray) -> np.ndarray:
    """The squared length of each colour (the last axis, three long): written out, twice
    as fast as ``einsum`` on a grid's arrays and four times as fast as a sum over it."""
    r, g, b = v[..., 0], v[..., 1], v[..., 2]
    return r * r + g * g + b * b


def _border_fits(ring: np.ndarray, tile: np.ndarray, surfaces: list[np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per border sample (cells x n x 3) and surface (three, cells x 3 each): the least
    squares ``alpha * tile + light * surface``, alpha clipped to [0, 0.7] and light to [0,
    1.6] ([0, 6] for the last, a black plate's), and the distance of the clipped fit
    relative to the sample's brightness: err, alpha, light (cells x n x 3 each), and that
    brightness (the sample's length, plus 1e-4 so that black divides; cells x n x 1). One
    product per cell gives every sample's dot products with the tile and the surfaces, and
    each two-unknown fit is solved in closed form: a 2x2 inverse per cell and surface and
    the products after it took 1.4-2.2 times as long on a grid's 81 cells."""
    cols = np.stack([tile, *surfaces], axis=2)  # cells x 3 x 4
    dots = ring @ cols  # cells x n x 4
    gram = cols.transpose(0, 2, 1) @ cols
    tt, ts, ss = gram[:, 0, 0, None, None], gram[:, 0, None, 1:], np.diagonal(gram, axis1=1, axis2=2)[:, None, 1:]
    rt, rs = dots[..., :1], dots[..., 1:]  # cells x n x 1, cells x n x 3 (a surface each)
    det = (tt + 1e-12) * (ss + 1e-12) - ts * ts
    alpha = np.clip(((ss + 1e-12) * rt - ts * rs) / det, 0.0, 0.7)
    light = np.clip(((tt + 1e-12) * rs - ts * rt) / det, 0.0, [1.6, 1.6, 6.0])
    rr = _squares(ring)[..., None]
    # |ring - alpha * tile - light * surface|^2, expanded
    miss = rr - 2.0 * (alpha * rt + light * rs) + alpha * alpha * tt + 2.0 * alpha * light * ts + light * light * ss
    bright = np.sqrt(rr) + 1e-4
    return np.sqrt(np.maximum(miss, 0.0)) / bright, alpha, light, bright


def _controllers(ring: np.ndarray, ok: np.ndarray, tile: np.ndarray, ref: np.ndarray,
                 albedo: dict[str, np.ndarray], plate: np.ndarray, tiled: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per cell, each border sample (linear RGB) is explained as some of the tile's colour
    (blur spills it over the thin border; a sample that is a quarter spill or more does
    not vote) plus the border's own surface under some light: ``alpha * tile + s *
    surface``, with the surface the wood (``ref``), a white plate or a black plate (their
    albedos relative to the wood's). The best clear explanation votes: ``.`` needs light
    enough to see it (s at least 0.08), ``w`` light like the wood's (:data:`WHITE_LIGHT`);
    a black plate may be lit up to six times its nominal albedo. A sample much brighter
    than the wood, and no darker in green, is the white plate even where the camera clips
    it (a clipped white loses its blue and would pass for wood; :data:`GLARE`), unless the
    cell's glare samples are a webcam's sharpening overshoot (:data:`HALO`); another
    clipped sample does not vote. A bare border must be lit like wood on some of it
    (:data:`BARE_LIGHT`) and no brighter than its wood (:data:`BARE_BRIGHT`). Returns the
    winner (index into ``. w b``), its share of the samples (but for the tile's, where
    ``tiled``: :data:`ON_TILE_PX`), where a bare border won but is not lit like wood, and
    where a bare border won, the median sum of its samples' spill and light
    (:data:`BARE_MIXED`; 0 elsewhere), where a bare border won that is dark
    (:data:`DARK_LIGHT`) on how many sides it is seen (0 elsewhere; dark all round at
    :data:`DARK_SIDES`), where a bare border won, the median light of its votes (0
    elsewhere), where the winner had every vote, and the winner's votes as a share of the
    samples in view that are not a quarter spill or more (0 where a sample brighter than
    the wood does not vote; vision/recognize_grid.py, ``SPILT_SHARE``)."""
    keys = (".", "w", "b")
    n_cells = len(ring)
    err, alpha, light, norm_ring = _border_fits(ring, tile, [ref, ref * albedo["w"], ref * albedo["b"]])
    mixed = alpha[..., 0] + light[..., 0]  # the bare fit's spill and light, for BARE_MIXED
    spill = alpha * np.linalg.norm(tile, axis=-1)[:, None, None] / norm_ring
    best = err.argmin(axis=-1)
    e0, e1, e2 = err[..., 0], err[..., 1], err[..., 2]
    first = np.minimum(np.minimum(e0, e1), e2)
    second = np.minimum(np.maximum(e0, e1), np.maximum(np.minimum(e0, e1), e2))
    pick = lambda a: np.take_along_axis(a, best[..., None], axis=-1)[..., 0]  # noqa: E731
    spilt = pick(spill) >= 0.25  # a quarter the tile's colour or more: does not vote
    clear = (first < 0.12) & (first * 2.0 < second) & ~spilt
    picked_light = pick(light)
    bright_enough = (best == keys.index("b")) | (picked_light >= np.where(best == keys.index("w"), WHITE_LIGHT, 0.08))
    lum, ref_lum = ring @ LUMA, (ref @ LUMA)[:, None]
    bright = lum > GLARE * ref_lum
    glare = (lum > GLARE * np.maximum(ref_lum, float(plate @ LUMA))) & (ring[..., 1] >= ref[:, None, 1])
    seen = glare & ok
    glaring = np.flatnonzero(seen.any(axis=1))
    if len(glaring):
        # only cells with glare in view: elsewhere there is nothing to explain
        where = seen[glaring]
        pushed = np.zeros(where.shape)
        cell = glaring[np.nonzero(where)[0]]
        pushed[where] = _overshoot_error(ring[glaring][where], tile[cell], ref[cell])
        overshoot, white = percentiles(np.stack([pushed, e1[glaring]]), where, [50])[0]
        glare[glaring] &= ~(overshoot * HALO < white)[:, None]
    best = np.where(glare, keys.index("w"), best)
    clipped = ring.max(axis=-1) > 0.95
    voting = ok & ((clear & bright_enough & ~clipped & ~bright) | glare)
    votes = np.stack([(voting & (best == k)).sum(axis=1) for k in range(3)], axis=1)
    win = votes.argmax(axis=1)
    unlit, summed, dark = np.zeros(n_cells, dtype=bool), np.zeros(n_cells), np.zeros(n_cells, dtype=np.intp)
    bare_light = np.zeros(n_cells)
    won_bare = np.flatnonzero(win == keys.index("."))
    if len(won_bare):
        # the bare border's light and mixing, only where a bare border won
        bare = (voting & (best == keys.index(".")))[won_bare]
        (middle, mid_mixed), (lit, _) = percentiles(np.stack([picked_light[won_bare], mixed[won_bare]]), bare, [50, 75])
        unlit[won_bare] = (lit < BARE_LIGHT) | (middle > BARE_BRIGHT)
        summed[won_bare] = mid_mixed
        bare_light[won_bare] = middle
        dim = won_bare[lit < BARE_LIGHT]
        if len(dim):
            # the wood's light in the bare fit, where less than half the tile's colour is added
            own = ok[dim] & (alpha[dim, :, 0] < 0.5)
            wood_light = percentiles(light[dim, :, 0], own, [50])[0]
            # on how many sides (:data:`DARK_SIDES`, :data:`DIM_SIDES`)
            sides = (own.reshape(len(dim), 4, -1).sum(axis=2) >= 2).sum(axis=1)
            dark[dim] = np.where(wood_light <= DARK_LIGHT, sides, 0)
    counted = ok.sum(axis=1).astype(np.float64)
    if tiled is not None and tiled.any():
        # where ``tiled``, the samples mostly of the tile's colour are not the border
        # (:data:`ON_TILE_PX`)
        on_tile = ok & tiled[:, None] & spilt
        counted -= np.minimum(on_tile.sum(axis=1), ON_TILE_MOST * counted)
    won = votes[np.arange(n_cells), win]
    alone = (won > 0) & (won == votes.sum(axis=1))
    # the winner's share of the samples that are not the tile's spill; 0 where a sample
    # brighter than the wood does not vote (a white plate's glint, not glare)
    quiet = ok & ~voting
    glint = (quiet & bright).any(axis=1)
    unspilt = np.where(glint, 0.0, won / np.maximum(ok.sum(axis=1) - (quiet & spilt).sum(axis=1), 1))
    return win, won / np.maximum(counted, 1), unlit, summed, dark, bare_light, alone, unspilt


def plate_albedos(board: Board) -> dict[str, np.ndarray]:
    """The control plates' linear albedo relative to the wood's, channel by channel."""
    wood = linear_rgb(board.plate_colour)
    return {k: linear_rgb(board.colours[k]) / np.maximum(wood, 1e-4) for k in "bw"}  # type: ignore[index]
