"""Reading a tile grid (Sparklies): each cell's tile colour and its controller.

A tile is a flat coloured square; a controlled tile lies on a slightly larger black or white
plate that shows as a border around it. Per cell, three sets of points are sampled on the
board: the tile's top (its middle, away from the edges), the border ring between the tile
and the plate's edge, and the bare wood just outside the plate, which is the local
reference: colours are judged relative to the wood right next to them, which takes the
light's colour, strength and local shadows out. A character that is not clear is ``?``.
All cells are read at once: the sample pixels for a pose are worked out once
(:class:`GridGeometry`), and reading a frame is gathering them and array arithmetic. A
border read bare or white gets a second look from a small model of the light across it
(vision/recognize_border.py), and from a second one fitted on path traced frames, which
can only make it ``?``; where the rules leave a border
open (dark all round, its samples split, or held for its light alone), the same model reads
it where it is sure (vision/recognize_second.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .geometry import Board
from .pose import Pose
from .recognize_border import DIM_SURE, SPILT_SURE, BorderProfile
from .recognize_colour import distance, linear_rgb, log_chroma, pixels_at, quantile, to_linear
from .recognize_features import Colours, percentiles
from .recognize_glare import PALE_SURE, PALE_WOOD, unlike_margin
from .recognize_hands import HandSigns
from .recognize_model import Ensemble
from .recognize_plates import BARE_MIXED, DARK_SIDES, DIM_SIDES, _controllers, _squares
from .recognize_second import second_look

#: a tile colour or controller needs this share of its samples
SHARE = 0.75
#: ... but a bare border needs only this share where no sample voted for a plate, the votes'
#: median light is at least :data:`ALONE_LIGHT` of the wood's next to the cell, and their
#: spill and light add up to about 1 (:data:`ALONE_MIXED`; ``BARE_MIXED``), as a border lit
#: like the wood next to it does: the samples that do not vote are the tile's spill, blurred
#: edges and noise, and with no plate's vote among the rest they say nothing against the
#: wood. A black plate blurred with the wood beside it votes bare dimly (with 60 % of its
#: samples or more, its votes' median light at most 0.54 and their sum 0.6 on the
#: benchmark's grid frames); a white plate in colours far from the defaults votes bare lit
#: as the wood, with more of the tile's colour added (1100129 d9: 65 % of its samples, light
#: 0.85, adding up to 1.25; fresh 7100129 d2: 56 %, 0.81 and 1.19). On the first 300 frames
#: of the benchmark's grid seeds in five looks (plain, webcam, far colours, soft light,
#: pieces put down by hand) 6,052 bare borders left unknown for their share meet it, and
#: on 200 fresh frames (seeds 7,100,000 on) in four 3,176, none of them a plate (the border
#: model's second look then leaves a few unknown; docs/vision.md, Recognition)
ALONE_SHARE = 0.6
ALONE_LIGHT = 0.6
ALONE_MIXED = (0.8, 1.15)
#: ... and only :data:`SPILT_LEAST` of them where, besides, no sample is brighter than the
#: wood without voting (a white plate's glint the glare test leaves out) and this share of
#: the samples that are not the tile's spill vote bare: on a thin border (2-3 px at 640x480)
#: 10-15 of the 20 samples are a quarter spill or more, and do not vote. The spill itself
#: cannot tell: the path traced grid frames' white plates' spilt samples fit bare 4 times in
#: 10. The plates that vote bare stay unknown: a white plate on a 2.33 px border, 10 of its
#: 12 samples that are not spill bare and one white (1100452 d4), a black plate blurred with
#: the wood, all bare but dimly (1100159 d4), a white plate in far colours at 93 %, adding up
#: to 1.25 (1100129 d9). On 150 fresh frames (seeds 9,700,000 on) in eight looks it reads
#: 5,655 more bare borders, none wrong, and on 150 more held out (9,710,000 on) 4,464, none
#: wrong; so would 60 % with 15 % (5,492; docs/vision.md, Recognition)
SPILT_SHARE = 0.8
SPILT_LEAST = 0.25
#: the border must be at least this wide in the image (px) to be read
MIN_BORDER_PX = 1.6
#: ... and have at least this many of its samples in view
BORDER_SEEN = 6
#: ... and at least this wide to be read as a white plate beside a blue tile. Against the
#: wood, white is above all bluer, as the blue tile's own colour spilt over the border is,
#: and JPEG keeps colour at half the resolution: a bare border 1.66 px wide between a blue
#: tile and black plates, through a webcam that sharpens (1.1, sigma 1.9), pushes saturation
#: (1.3) and compresses hard (JPEG 39), was a white plate to the rules and to the border
#: model at P 1.00 (fresh 5800260 b1). Fitted to that frame: the cost is 11 blue tiles' white
#: plates read right on 500 plain frames of the benchmark's grid seeds, 39 on 1,000 through
#: webcams (its seeds and fresh 5,800,000 on), where 1.8 px would cost 18 and 64
BLUE_WHITE_PX = 1.7
#: ... and at least this wide to be read bare: on a thinner border a cream plate (far colours)
#: blurred with the tile's spill takes the wood's colour, and the light across it stays flat:
#: four such plates read bare by the rules, on borders 1.74-1.81 px wide and pinned down to
#: ±23-27 %, two of them passed by the border model too (5300147 c7 and 5900271 c2; a
#: fifth, 5100674 a6, 2.5 px wide, the model doubts). The cost, bare borders asking a
#: spread of a quarter: 237, 221 and 429 bare borders read right on the first 500 frames of
#: the benchmark's grid rows plain, through webcams and with far colours (0.3-0.6 % of
#: their characters). A black plate there the border model may read (vision/recognize_second.py,
#: ``HELD_BLACK_SURE``)
BARE_PX = 1.9
#: nor is it read where the pose's spread (one standard deviation) is more than this share
#: of its width: the border samples, in its middle, could be on the tile or the wood. The
#: spread is cautious: on 56 rendered frames, cells at a spread of 0.25-0.5 border widths
#: were a median 0.07 and at the 99th percentile 0.46 of a width from where the pose put
#: them (1.08 times their spread), so at 0.4 the samples stay on the border
LOOSE = 0.4
#: a tile put down off true lies over part of its border's ring: where the border is at
#: least ON_TILE_PX wide, the ring's samples that are a quarter spill or more (the tile's
#: colour, which do not vote) are left out of the share that must agree, up to a share of
#: those in view (vision/recognize_plates.py, ``ON_TILE_MOST``). Not on thinner borders: at
#: 2.33 px a white plate blurred with the wood beyond it and the tile inside passes for bare
#: wood on the samples left (1100452 d4)
ON_TILE_PX = 3.0
#: the tile's colour, sampled well inside it, is read up to this spread (border widths)
CELL_LOOSE = 1.0
TILE_TOLERANCE = 0.3
#: a tile has a colour the wood round it has not: where the median chromaticities of the
#: tile's samples and of the wood round the cell are this close (log ratios), something
#: lies over both (a hand; a webcam's saturation makes skin pass for a red tile)
SAME_AS_WOOD = 0.5
#: ... each channel taken as at least this (linear; about level 10 of 255 in sRGB) for that
#: comparison: darker, a channel is the sensor's noise and the encoder's rounding, and its
#: log ratio says nothing. A webcam's tone curve crushes skin's blue to a few levels: over a
#: green tile and the wood round it, an arm read red, its tile and wood 0.34 and 0.28 apart
#: with this floor and 4.7 and 0.76 without (fresh 4600475 d6 and e6). On 5,000 frames
#: (the benchmark's grid rows, fresh 4,600,000 plain and through webcams) it makes 3 tiles
#: read right unknown, each beside a hand; a floor of 0.005 would make 15
SAME_FLOOR = 0.003
#: the wood round a cell is overexposed where a channel of it reaches this (linear): a
#: white plate would look the same, and colours judged against it lean to red (a black plate
#: would not: the border model may read one there, vision/recognize_second.py)
OVEREXPOSED = 0.9
#: ... but a border read bare by the rules (:data:`ALONE_SHARE`, :data:`SPILT_SHARE`) is read
#: where no more than this many channels of the wood clip: in green and blue a white plate
#: is whiter than the wood, and its samples vote white or not at all. In 1100023 (640x480,
#: the wood clipped in red round 67 cells) 32 bare borders are read so and its 15 plates
#: stay unknown; on 150 fresh frames (seeds 9,720,000 on) in eight looks 560 more bare
#: borders, none wrong, and on the path traced grid frames 92 (docs/vision.md, Recognition)
CLIPPED_BARE = 1
#: skin passes for a red tile where the wood is overexposed: relative to clipped wood its
#: orange reads red. Relative to that wood (median chromaticity), skin is greener than blue
#: (by 0.06-0.11) and than the frame's other red tiles (0.06-0.19) on the hands read red
#: (4200491 and 4400413 through webcams). A red tile is seldom greener than blue by more
#: than this, and where one is (far colours lean some reds to orange) the frame's other
#: reds lean as far. So with a hand in view, a red tile on overexposed wood greener than
#: both by more than this is unknown
SKIN_GREEN = 0.04
#: ... and on wood that is not overexposed, greener than both by more than this: there skin
#: seldom passes for red, but a webcam's saturation can make it (fresh 4900545 b7, an arm
#: over a blue tile, 0.12), and red tiles beside a hand lean a little more than on clipped
#: wood (with a hand in view, 2 of 26,045 on the benchmark's grid rows and fresh 4,900,000
#: beyond 0.08, at 0.085 and 0.107; 39 beyond 0.04). Asked of every red with no hand in
#: view too: a hand nothing else saw, on a tan table, over a green tile the webcam made
#: red, was 0.082 greener (path traced 7950028 f9); of 50,915 path traced red tiles with no
#: hand (five looks) none lean beyond 0.061; of 35,116 rendered (300 frames, six looks) 2,
#: both `??` by other rules
SKIN_GREEN_LIT = 0.08
#: a tile is one colour, and its samples keep 3.6 mm from its edges: a cell read one colour
#: with this many of its samples clearly another tile colour has something over part of it
#: (a finger: fresh 5200174 h4 through a webcam, a blue tile under fingers the webcam's
#: saturation made red, 2 blue samples). Of 88,119 tiles read right on the first 500 frames
#: of the benchmark's grid rows plain, through webcams and with far colours, none without a
#: hand in view had one such sample, 16 of 26,380 with a hand did
OTHER_SAMPLES = 1
#: a hand over part of a tile may lie over its border too, and skin passes for wood there:
#: with an arm crossing into view within this distance (mm, on the board) of a cell, a tile
#: with some of its samples not its colour has its controller unknown. A black plate under
#: a hand's edge read bare so (fresh 6300140 c1 with pieces put down by hand: a green
#: tile's samples 80 % green, 78 mm from the arm's crossing; 4 of the border's samples on
#: skin, 7 on the plate's blurred edge, looking as shaded wood does). Controllers read right
#: that this leaves unknown, each frame read both ways (the first 500 of each look): 6
#: characters on the benchmark's grid seeds plain, 3 through webcams, 29 with a moving
#: hand, 2 on the fresh seeds 6,300,000 on off true; 130 mm would cost about twice as many
HAND_NEAR_MM = 100.0
#: tiles of one colour look alike in a frame. A cell read one colour that lies more than
#: :data:`OFF_GROUP` (chromaticity) from the median of the frame's cells read that colour,
#: and :data:`NEAR_UNCLEAR` times nearer the cells whose colour could not be told (the
#: median distance to its five nearest), is the edge of a group the camera's colours put
#: between two tile colours (fresh 5200193 h7 and h9 through a saturating webcam: greens
#: read blue, 0.31-0.33 from the blues, 4.5-5.7 times nearer the unclear greens). On the
#: benchmark's grid rows (their 3,000 frames in four looks) it makes 89 cells whose colour
#: was read right ``??``
OFF_GROUP = 0.15
NEAR_UNCLEAR = 3.0
#: tiles of one colour look alike in a frame, wherever the light, the camera's white
#: balance or the paint puts that colour: where at least this many cells are read one
#: colour, its prototype for the frame is their median, and the cells whose colour was
#: not clear are voted again with it (:func:`frame_protos`). A colour cast moves all the
#: tiles of a colour beyond ``TILE_TOLERANCE`` of the prototype together, not some of them
FRAME_TILES = 4
#: ... and a colour fewer cells are told may still be there, every tile of it beyond reach
#: of the prototype: glossy red tiles, path traced, reflect the room (seed 7,000,005: their
#: median 0.42 from the default red, 29 of 30 unclear), and some scenes' paint and light
#: do the same in this project's renderer (7,000,036: 0.45, all 30). The cells whose colour
#: was not clear, unlike the wood round them and with no sample clearly another colour,
#: whose median lies GROUP_NEARER times nearer that colour's prototype than any other's
#: (the frame's own where it has them) are its group; at least FRAME_TILES of them within
#: GROUP_SPREAD of the group's median give the colour's prototype for the frame, their
#: median (:func:`frame_groups`). On 200 fresh frames in each of seven looks, 2.1-3.5
#: points more right, none wrong (docs/vision.md). Not red with an arm in view: skin lies
#: between the wood and red (greens and blues then: with a moving hand in every frame,
#: 96 more characters right of 14,742, none wrong)
GROUP_NEARER = 1.2
GROUP_SPREAD = 0.1


@dataclass(frozen=True, slots=True)
class GridLayout:
    """Sample offsets (mm, relative to a cell's centre) for the tile, the border and the
    wood around, and the heights they lie at."""

    names: tuple[str, ...]
    centres: np.ndarray
    tile: np.ndarray
    border: np.ndarray
    wood: np.ndarray
    tile_z: float
    border_z: float
    half_tile: float
    border_width: float
    profile: BorderProfile

    @classmethod
    def of(cls, board: Board) -> GridLayout:
        half = board.tile_size / 2
        plate_half = board.control_size / 2
        g = np.linspace(-0.6 * half, 0.6 * half, 5)
        tile = np.array([(x, y) for x in g for y in g])
        ring_half = (half + plate_half) / 2
        s = np.linspace(-0.8 * ring_half, 0.8 * ring_half, 5)
        border = np.concatenate([np.stack([s, np.full(5, sgn * ring_half)], 1) for sgn in (-1, 1)]
                                + [np.stack([np.full(5, sgn * ring_half), s], 1) for sgn in (-1, 1)])
        gap = (board.pitch - board.control_size) / 2
        wood_half = plate_half + min(gap / 2, 1.5)
        t = np.linspace(-wood_half, wood_half, 7)
        wood = np.concatenate([np.stack([t, np.full(7, sgn * wood_half)], 1) for sgn in (-1, 1)]
                              + [np.stack([np.full(5, sgn * wood_half), t[1:-1]], 1) for sgn in (-1, 1)])
        centres = np.array([p.centre[:2] for p in board.positions])
        return cls(tuple(p.name for p in board.positions), centres, tile, border, wood,
                   board.tile_thickness + board.control_thickness / 2, board.control_thickness, half,
                   plate_half - half, BorderProfile.of(half, plate_half - half, board.control_thickness))


@dataclass(frozen=True, eq=False)
class GridGeometry:
    """The sample pixels of every cell for one pose: (row, column) arrays, -1 outside the
    image; wood N x W, tile N x T, border N x B with ``border_ok`` where the tile does not
    hide it; and the border's width in pixels."""

    wood: np.ndarray
    tile: np.ndarray
    border: np.ndarray
    border_ok: np.ndarray
    border_px: float
    #: per cell: how loosely the markers pin its image down (:meth:`Pose.spread` at the
    #: tile's top, one standard deviation) over the border's width in pixels
    loose: np.ndarray
    #: per cell, the image points (x, y) of its profile across the border (vision/recognize_border.py)
    profile: np.ndarray

    @classmethod
    def of(cls, layout: GridLayout, pose: Pose) -> GridGeometry:
        eye = pose.centre
        c = layout.centres[:, None, :]

        def pixels(offsets: np.ndarray, z: float) -> np.ndarray:
            pts = np.concatenate([c + offsets[None], np.full(c.shape[:1] + (len(offsets), 1), z)], axis=2)
            return pose.pixels(pts.reshape(-1, 3)).reshape(len(layout.centres), len(offsets), 2)

        top = layout.tile_z + layout.border_z / 2
        pts = np.concatenate([c + layout.border[None], np.full((len(layout.centres), len(layout.border), 1),
                                                                layout.border_z)], axis=2)
        d = eye - pts
        k = (top - pts[..., 2]) / np.maximum(d[..., 2], 1e-9)
        at = pts[..., :2] + k[..., None] * d[..., :2] - c
        border_ok = ~((np.abs(at[..., 0]) < layout.half_tile) & (np.abs(at[..., 1]) < layout.half_tile))
        scale = pose.focal / max(float(np.linalg.norm(eye)), 1.0)
        spread = pose.spread(np.concatenate([layout.centres, np.full((len(layout.centres), 1), layout.tile_z)], axis=1))
        return cls(pixels(layout.wood, 0.0), pixels(layout.tile, layout.tile_z), pixels(layout.border, layout.border_z),
                   border_ok, layout.border_width * scale, spread / max(layout.border_width * scale, 1e-6),
                   layout.profile.points(layout.centres, pose))


def gather_cells(image: np.ndarray, px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear RGB (R G B order) of a BGR image at the cells' (row, column) sample pixels
    (any leading shape), and which lie inside the image."""
    values, inside = pixels_at(image, px)
    return to_linear(values[..., ::-1]).astype(np.float64), inside


def median_rgb(rgb: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Per row, the channel-by-channel median of the ``ok`` samples (``rgb`` may stack
    several arrays of rows, all with the same ``ok``: one sort for all)."""
    return np.moveaxis(percentiles(np.moveaxis(rgb, -1, 0), ok, [50])[0], 0, -1)


def local_wood(wood: np.ndarray, ok: np.ndarray, plate: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell, the wood next to it: the median of the samples with the plate's
    chromaticity (not a neighbour's black or white plate or tile); the plate's margin
    colour where fewer than five are (the wood between plates is too thin there). Also
    whether the cell has its own reference, and the median of all its samples in view
    (whatever lies there: one sort gives both)."""
    col = Colours.of(wood, plate)
    like = ok & (distance(col.rg, col.bg) < 0.2) & (col.level > -3.0)
    own = like.sum(axis=1) >= 5
    near, around = median_rgb(np.stack([wood, wood]), np.stack([like, ok]))
    return np.where(own[:, None], near, plate[None, :]), own, around


def chromaticity(rgb: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Linear colours divided by the reference channel by channel, as chromaticities
    (summing to 1): robust where a saturated colour's weak channels are mostly noise."""
    q = np.maximum(rgb, 1e-5) / np.maximum(ref, 1e-5)
    return q / q.sum(axis=-1, keepdims=True)


def _tile_colours(chroma: np.ndarray, ok: np.ndarray, protos: dict[str, np.ndarray],
                  unlike_wood: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell, the tile colour most samples (their chromaticities relative to the wood
    round the cell) are clearly nearest to (twice as near as to the next, and with
    ``unlike_wood`` nearer than to the wood itself), that share of its samples, and
    how many samples are clearly another colour (:data:`OTHER_SAMPLES`)."""
    diff = chroma[..., None, :] - np.stack([protos[k] for k in "RGB"])  # cells x samples x colours x 3
    dist = np.sqrt(_squares(diff))
    d0, d1, d2 = dist[..., 0], dist[..., 1], dist[..., 2]
    first = np.minimum(np.minimum(d0, d1), d2)
    second = np.minimum(np.maximum(d0, d1), np.maximum(np.minimum(d0, d1), d2))
    clear = ok & (first * 2.0 < second) & (first < TILE_TOLERANCE)
    if unlike_wood:  # the wood's chromaticity relative to itself is (1, 1, 1) / 3
        clear &= first < np.sqrt(_squares(chroma - 1.0 / 3.0))
    nearest = dist.argmin(axis=-1)
    cells = np.broadcast_to(np.arange(len(ok))[:, None], ok.shape)
    votes = np.bincount(cells[clear] * 3 + nearest[clear], minlength=3 * len(ok)).reshape(-1, 3)
    best = votes.argmax(axis=1)
    won = votes[np.arange(len(best)), best]
    return best, won / np.maximum(ok.sum(axis=1), 1), votes.sum(axis=1) - won


def frame_protos(chroma: np.ndarray, colour: np.ndarray, told: np.ndarray,
                 protos: dict[str, np.ndarray]) -> dict[str, np.ndarray] | None:
    """The tile prototypes as this frame shows them: per colour with :data:`FRAME_TILES`
    or more cells ``told`` it, their median chromaticity (``chroma``: each cell's median);
    the others as given. None where no colour has that many."""
    out, moved = dict(protos), False
    for k, key in enumerate("RGB"):
        rows = told & (colour == k)
        if rows.sum() >= FRAME_TILES:
            out[key], moved = quantile(chroma[rows], 50), True
    return out if moved else None


def frame_groups(chroma: np.ndarray, unclear: np.ndarray, told: np.ndarray, colour: np.ndarray,
                 protos: dict[str, np.ndarray], colours: str = "RGB") -> dict[str, np.ndarray] | None:
    """Prototypes for the tile colours fewer than :data:`FRAME_TILES` cells were ``told``
    (``colour``: each cell's), from the cells whose colour was ``unclear`` and whose median
    chromaticity (``chroma``) lies :data:`GROUP_NEARER` times nearer that colour's prototype
    in ``protos`` than any other's: the median of those within :data:`GROUP_SPREAD` of
    their own median, where at least :data:`FRAME_TILES` are; only the ``colours`` named.
    The other colours as given; None where no colour has such a group."""
    # not asked, or the frame's own already (:func:`frame_protos`): most frames ask none
    asked = [k for k, key in enumerate("RGB") if key in colours and (told & (colour == k)).sum() < FRAME_TILES]
    if not asked or unclear.sum() < FRAME_TILES:
        return None
    dist = np.stack([np.linalg.norm(chroma - protos[k], axis=1) for k in "RGB"], axis=1)
    first, second = np.sort(dist, axis=1)[:, :2].T
    nearest = dist.argmin(axis=1)
    out, moved = dict(protos), False
    for k in asked:
        group = chroma[unclear & (nearest == k) & (first * GROUP_NEARER < second)]
        if len(group) < FRAME_TILES:
            continue
        close = group[np.linalg.norm(group - quantile(group, 50), axis=1) <= GROUP_SPREAD]
        if len(close) >= FRAME_TILES:
            out["RGB"[k]], moved = quantile(close, 50), True
    return out if moved else None


def _off_group(chroma: np.ndarray, colour: np.ndarray, told: np.ndarray, unclear: np.ndarray) -> np.ndarray:
    """Per cell ``told`` its colour, how many times nearer it is to the cells whose colour
    is ``unclear`` (median distance to its five nearest) than to the median of the cells
    told its colour (at least four), where that median is more than :data:`OFF_GROUP` away;
    0 elsewhere. ``chroma``: each cell's median chromaticity."""
    out = np.zeros(len(colour))
    if unclear.sum() < 5:
        return out
    off = np.zeros(len(colour))
    for k in range(3):
        group = told & (colour == k)
        if group.sum() >= 4:
            off[group] = np.linalg.norm(chroma[group] - quantile(chroma[group], 50), axis=1)
    others = chroma[unclear]
    for i in np.flatnonzero(off > OFF_GROUP):
        # the median of the five nearest is the third nearest
        near = float(np.partition(np.linalg.norm(others - chroma[i], axis=1), 2)[2])
        out[i] = off[i] / max(near, 1e-3)
    return out



def _greener_than_reds(chroma: np.ndarray, red: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """Per cell ``asked``, how much greener than blue its tile is relative to the wood round
    it (``chroma``: the median chromaticities), and than the median of the other cells read red (``red``):
    the less of the two (a red tile is no greener than blue; a frame's reds may all lean one
    way). 0 elsewhere, and where the first is no more than :data:`SKIN_GREEN`: one median
    each only where it could matter."""
    out = np.zeros(len(red))
    if not asked.any():
        return out
    lean = chroma[:, 1] - chroma[:, 2]
    for i in np.flatnonzero(asked & (lean > SKIN_GREEN)):
        others = red.copy()
        others[i] = False
        out[i] = min(lean[i], lean[i] - float(np.median(lean[others]))) if others.any() else lean[i]
    return out


def tile_prototypes(board: Board) -> dict[str, np.ndarray]:
    """The tile colours' chromaticities relative to the plate (geometry file defaults)."""
    plate = linear_rgb(board.plate_colour)
    return {k: chromaticity(linear_rgb(board.colours[k]), plate) for k in "RGB"}  # type: ignore[index]


@dataclass(frozen=True, slots=True)
class CellReading:
    """One cell: ``code`` (tile colour then controller, ``?`` for either) and why."""

    code: str
    why: str


def wood_reference(image: np.ndarray, geo: GridGeometry, plate: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per cell, the wood next to it and the median of all its wood samples in view
    (:func:`local_wood`), which samples are in view, and where it has its own wood."""
    wood, ok_w = gather_cells(image, geo.wood)
    ref, own, around = local_wood(wood, ok_w, plate)
    return ref, around, ok_w, own


def read_grid(image: np.ndarray, layout: GridLayout, geo: GridGeometry, plate: np.ndarray,
              protos: dict[str, np.ndarray], albedo: dict[str, np.ndarray],
              hands: HandSigns | None = None, border: Ensemble | None = None,
              wood_to_white: float = float("inf"), border_pbr: Ensemble | None = None) -> dict[str, CellReading]:
    """Every cell: tile colour then controller, ``?`` for what is not clear; ``hands``:
    where arms cross into view (vision/recognize_hands.py); ``border``: the model that
    looks again at borders read bare or white, and at those dark all round
    (vision/recognize_border.py), with ``border_pbr``, the one fitted on path traced frames,
    asked of the borders it passes; ``wood_to_white``: how far the wood lies from the markers'
    paper's white (vision/recognize_glare.py, ``from_white``)."""
    hand = hands is not None and hands.present
    ref, around, ok_w, own_ref = wood_reference(image, geo, plate)
    tile, ok_t = gather_cells(image, geo.tile)
    ring, ok_b = gather_cells(image, geo.border)
    ok_b &= geo.border_ok
    chroma = chromaticity(tile, ref[:, None, :])
    colour, share, other = _tile_colours(chroma, ok_t, protos)
    chroma_median, tile_median = median_rgb(np.stack([chroma, tile]), ok_t)
    alike = np.hypot(*(log_chroma(tile_median, SAME_FLOOR) - log_chroma(around, SAME_FLOOR)).T)
    in_view = (ok_w.sum(axis=1) >= 8) & (ok_t.sum(axis=1) >= 10)
    seen = in_view & (geo.loose <= CELL_LOOSE)
    clean = seen & (alike >= SAME_AS_WOOD) & (other < OTHER_SAMPLES)  # unlike the wood, no sample another colour
    # not the reds with an arm in view: skin passes for red (:func:`_greener_than_reds`)
    told = clean & (share >= SHARE) & ~(hand & (colour == 0))
    own = frame_protos(chroma_median, colour, told, protos)
    # a colour no cells were told: the group of the unclear ones nearest it (not red with an arm in view)
    own = frame_groups(chroma_median, clean & (share < SHARE), told, colour, own or protos,
                       "GB" if hand else "RGB") or own
    again = np.flatnonzero(share < SHARE)
    if own is not None and len(again):  # the cells whose colour was not clear, with the frame's own
        colour[again], share[again], other[again] = _tile_colours(chroma[again], ok_t[again], own, True)
    clipped = (ref > OVEREXPOSED).sum(axis=1)  # how many channels of the wood round each cell clip
    overexposed = clipped > 0
    red = (colour == 0) & (share >= SHARE) & (alike >= SAME_AS_WOOD)  # the hand over both aside
    # skin: asked of every cell read red, more of it on lit wood or where no hand is seen
    skin = _greener_than_reds(chroma_median, red, colour == 0)
    off = _off_group(chroma_median, colour, seen & (share >= SHARE), seen & (share < SHARE))
    skin_limit = np.where(overexposed & hand, SKIN_GREEN, SKIN_GREEN_LIT)
    # a tile of a clear colour, unlike the wood, on a border wide enough to leave its spill out
    tiled = (share >= SHARE) & (alike >= SAME_AS_WOOD) & (geo.border_px >= ON_TILE_PX)
    ctrl, cshare, unlit, summed, dark, bare_light, alone, unspilt = _controllers(ring, ok_b, tile_median, ref, albedo,
                                                                                  plate, tiled)
    margin_lit = unlike_margin(own_ref, around, ref, ring, ok_b)  # no white told against the margin there
    # the share a controller needs: less for a bare border that no sample doubts (:data:`ALONE_SHARE`)
    lit_as_wood = (bare_light >= ALONE_LIGHT) & (summed >= ALONE_MIXED[0]) & (summed <= ALONE_MIXED[1])
    alone_bare = (ctrl == 0) & alone & lit_as_wood
    needed = np.where(alone_bare, ALONE_SHARE, SHARE)
    # ... and less again where the samples that are not the tile's spill agree (:data:`SPILT_SHARE`)
    spilt_bare = alone_bare & (unspilt >= SPILT_SHARE) & (cshare >= SPILT_LEAST)
    needed = np.where(spilt_bare, np.minimum(needed, SPILT_LEAST), needed)
    # overexposed wood hides what lies round the tile, but where only its red clips and the
    # border reads bare by the rules above, green and blue tell (:data:`CLIPPED_BARE`)
    blind = overexposed & ~((clipped <= CLIPPED_BARE) & alone_bare & (cshare >= needed))
    # bare borders the border model must be surer of: lit less than the wood next to them
    # (:data:`DIM_SURE`), or read on the spilt share alone (:data:`SPILT_SURE`)
    stricter = {int(i): (DIM_SURE, "lit less than the wood")
                for i in np.flatnonzero((ctrl == 0) & (bare_light < ALONE_LIGHT))}
    for i in np.flatnonzero(spilt_bare & (cshare < ALONE_SHARE)).tolist():  # the surer of the two, if both
        dim = stricter.get(i)
        stricter[i] = (SPILT_SURE, f"read on {cshare[i]:.0%} of its samples" + (f", {dim[1]}" if dim else ""))
    if wood_to_white <= PALE_WOOD:  # ... and all of them on wood nearly as white as a white plate: surest
        for i in np.flatnonzero(ctrl == 0).tolist():
            was = stricter.get(i)
            stricter[i] = (PALE_SURE, f"on wood {wood_to_white:.2f} from the markers' paper's white, where a white plate "
                                       "hardly stands out" + (f", {was[1]}" if was else ""))
    # the share of the borders round clear tiles whose samples lean white rather than bare: where
    # most do, bare wood looks pale in this frame (vision/recognize_second.py, ``PALE_FRAME``)
    border_seen = ok_b.sum(axis=1)
    leaning = in_view & (share >= SHARE) & (border_seen >= BORDER_SEEN) & (ctrl < 2)
    pale = float((ctrl[leaning] == 1).mean()) if leaning.any() else 0.0
    # plain Python values from here: the rules below read them a cell at a time
    in_view, loose, colour, share, alike, skin, skin_limit, other, off, border_seen, overexposed, blind, summed, \
        unlit, dark, cshare, needed, ctrl, margin_lit = (a.tolist() for a in (
            in_view, geo.loose, colour, share, alike, skin, skin_limit, other, off, border_seen, overexposed,
            blind, summed, unlit, dark, cshare, needed, ctrl, margin_lit))
    dark_cells: list[int] = []  # borders dark all round: the border model may call them black
    split: list[tuple[int, int, float]] = []  # borders whose samples split: the border model may read them
    partly: set[int] = set()  # ... and those dark on the sides in view only (:data:`DIM_SIDES`)
    held: dict[int, str] = {}  # borders held for their light alone: the border model may call them black
    out: dict[str, CellReading] = {}
    for i, name in enumerate(layout.names):
        if not in_view[i]:
            out[name] = CellReading("??", "out of view")
            continue
        c = "RGB"[colour[i]]
        if loose[i] > CELL_LOOSE:
            out[name] = CellReading("??", f"the markers pin this cell down to ±{loose[i]:.1f} border widths only")
        elif share[i] < SHARE:
            out[name] = CellReading("??", f"no clear tile colour ({c} {share[i]:.0%})")
        elif alike[i] < SAME_AS_WOOD:
            out[name] = CellReading("??", f"the tile looks like the wood round it ({alike[i]:.2f}): a hand over both?")
        elif skin[i] > skin_limit[i]:
            out[name] = CellReading("??", f"red{' on overexposed wood' if overexposed[i] else ''}, {skin[i]:.2f} "
                                          "greener than blue and than the other reds"
                                          f"{', with a hand in view' if hand else ''}: skin would look so")
        elif other[i] >= OTHER_SAMPLES:
            out[name] = CellReading("??", f"{c}, but with {other[i]} of its samples clearly another tile colour: "
                                          "something over part of the tile (a finger?)")
        elif off[i] > NEAR_UNCLEAR:
            out[name] = CellReading("??", f"{c}, but unlike the frame's other {c} tiles and {off[i]:.1f} times nearer "
                                          "to tiles whose colour could not be told: the camera's colours put it "
                                          "between two tile colours")
        elif hands is not None and share[i] < 1.0 and hands.distance(*layout.centres[i]) <= HAND_NEAR_MM:
            out[name] = CellReading(c + "?", f"controller unclear: {c}, but {1.0 - share[i]:.0%} of the tile's samples "
                                              "are not, with an arm crossing into view nearby: a hand over part of the "
                                              "tile may lie over its border")
        elif geo.border_px < MIN_BORDER_PX or border_seen[i] < BORDER_SEEN:
            out[name] = CellReading(c + "?", "border too thin or hidden")
        elif loose[i] > LOOSE:
            out[name] = CellReading(c + "?", f"the markers pin the border down to ±{loose[i]:.0%} of its width only")
        elif ctrl[i] == 0 and geo.border_px < BARE_PX:
            out[name] = CellReading(c + "?", f"controller unclear: the border looks bare, but is {geo.border_px:.2f} px "
                                              "wide: a pale plate blurred with the tile's spill takes the wood's colour "
                                              "on a border that thin")
            if not hand:  # a hand's shadow darkens what the tile's does not
                held[i] = f"bare wood on a border {geo.border_px:.2f} px wide"
        elif blind[i]:
            out[name] = CellReading(c + "?", "the wood is overexposed: a white plate would look the same")
            if not hand:
                held[i] = "overexposed wood"
        elif summed[i] > BARE_MIXED:
            out[name] = CellReading(c + "?", f"controller unclear: the border looks bare, but the wood and the tile's "
                                              f"spill add up to {summed[i]:.2f} times the wood's light next to it: "
                                              "a white plate lit less would look so")
        elif unlit[i] and dark[i] >= DARK_SIDES:
            out[name] = CellReading(c + "?", "controller unclear: the border is dark all round, as a black plate that "
                                              "the blur mixes with the wood beside it is, and wood in deep shade"
                                              + (" (an arm is in view: its shadow may lie here)" if hand else ""))
            if not hand:  # a hand's shadow darkens what the tile's does not
                dark_cells.append(i)
        elif unlit[i]:
            out[name] = CellReading(c + "?", "controller unclear: the border looks bare but is not lit like the wood "
                                              "next to it")
            if dark[i] >= DIM_SIDES and not hand:  # its fourth side hidden by the tile: the border model may tell
                dark_cells.append(i)
                partly.add(i)
        elif cshare[i] < needed[i]:
            out[name] = CellReading(c + "?", f"controller unclear ({'.wb'[ctrl[i]]} {cshare[i]:.0%})")
            # not white where a white border read in full would be doubted (the two rules below)
            doubted = margin_lit[i] or (c == "B" and geo.border_px < BLUE_WHITE_PX)
            if ctrl[i] != 1 or not doubted:
                split.append((i, ctrl[i], cshare[i]))
        elif ctrl[i] == 1 and margin_lit[i]:
            out[name] = CellReading(c + "?", f"controller unclear: white against the plate's margin, but the wood round "
                                              f"it is {margin_lit[i]:.2f} times as bright as that margin (glare?) and "
                                              "the border hardly brighter than that wood")
        elif c == "B" and ctrl[i] == 1 and geo.border_px < BLUE_WHITE_PX:
            out[name] = CellReading("B?", f"controller unclear: white beside a blue tile on a border {geo.border_px:.2f} "
                                          "px wide, where the tile's colour spilt over bare wood looks as white does")
        else:
            out[name] = CellReading(c + ".wb"[ctrl[i]], "read")
    if border is not None:
        again = second_look(out, image, layout, geo, ref, border, dark_cells, partly, stricter, split, hand, pale,
                            held, border_pbr)
        out.update({name: CellReading(*reading) for name, reading in again.items()})
    return out
