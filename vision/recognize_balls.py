"""Reading a pyramid board: every position's measures (vision/recognize_features.py),
weighed by the model (vision/recognize_model.py) into empty, ball or hand, then the ball's
colour from its samples, then the support rules.

Positions are read top-down (level 4 first): a sample counts only where no ball that may be
present hides it. A position is reported only when the model is sure (thresholds chosen on
rendered frames so that none was confidently wrong; vision/recognize_thresholds.py) and the pose pins its image down
(an empty base hollow, which empties the places above it, twice as tightly); otherwise
it is ``?``. The rules that judge a ball's colour against its frame (vision/recognize_fellows.py):
a ball read black must be darker than a white ball could look in the plate's
shade (:func:`dark_in_shade`), and a ball read dark wood darker than that shade; nor may a
ball read black be far lighter than the frame's other black balls (:func:`odd_black`). A light
wooden base ball of the plate's colour, where the frame's other light wooden balls are not, is
``?`` (:func:`plate_coloured`), as is one in view far off their tint where they agree
(:func:`off_tint`), an empty hollow of their tint (:func:`wood_in_hollow`)
and a wooden ball that looks, beside the frame's other balls of its wood, like the other
wood (:func:`odd_wood`). A place read empty as white as the camera records is ``?``: a
white ball clipped there has lost its shading. A base ball
seen only as a sliver, light or behind balls of other colours, is ``?`` too
(:func:`slivers`), and so is a red ball seen little that is darker and less red than the
frame's other red balls (:func:`odd_red`), a ball above the base seen little and in line
with a lower ball that may be what is seen (:func:`lookalikes`), and a red one that is not red
where the balls of other colours behind it would show (:func:`red_through`). An empty place
above the base must show something read under it, which must look so beside it too,
and the balls it would show must not look there unlike themselves beside it
(:func:`unconfirmed`), a ball read partly through such a place, doubted later (by these
rules or by the support rules), must look as read elsewhere (:func:`beneath_doubt`; both in
vision/recognize_through.py), and a ball there that the model is not quite sure of must not
be mostly what the balls below would show through the place empty, nor, however sure, right
before a lower ball not seen (:func:`alike_below`), nor show the plate's own tint where it
would show the plate between the balls below (:func:`plate_between`,
vision/recognize_through.py). An empty
base hollow in shadow with the plate's colour, under a place the model leans to a ball
at, is unknown (:func:`under_a_ball`), and so is any place read empty that the second model,
fitted on path traced frames alone, does not call empty too (:func:`second_empty`). The
support rules close the reading: a ball seen over a support read empty makes both unknown, a position
over a support read empty is empty (nothing floats), and a ball whose supports are not all
seen as balls (or too little in view to be read, doubted only for their own supports, or
sure balls doubted only for their colour) is unknown.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from .recognize_colour import LUMA, pixels_at, to_linear
from .recognize_features import NAMES, Batch, Colours, in_view, measure_level, plate_shade, plate_tint_at, ring_plate
from .recognize_fellows import (dark_in_shade, odd_black, odd_red, odd_wood, off_tint, plate_coloured,
                                white_in_hollow, wood_in_hollow)
from .recognize_hands import HandSigns
from .recognize_levels import measured_levels
from .recognize_pyramid import Geometry, Layout
from .recognize_reading import DARK_LETTERS, HIDDEN, LIGHT, RED, STAINED, WHITE, WOODEN, Reading
from .recognize_thresholds import Thresholds
from .recognize_through import (Sight, beneath_doubt, looks_itself_not_as, plate_between, shows_below, through,
                                 unconfirmed)

#: the model's columns the shadow check below sets
HAND_FRAME, HAND_NEAR = (NAMES.index(n) for n in ("hand_frame", "hand_near"))


#: a ball this dark (log level) is stained wood at any red, and one lighter than -1.2 light
#: wood up to ``LIGHT_RED``: path traced, varnished stained balls reflect the room and look
#: as little red as 0.26, and light wooden ones in a warm bounce as red as 0.6, where they
#: had been "colour unclear"; none of those light wooden balls was darker than -1.83. A light
#: wooden ball in deep shade can be darker (this project's renderer); the rules that follow
#: hold it (docs/vision.md, "Stained by its darkness")
DEEP_STAINED = -2.0
LIGHT_RED = 0.6
#: a ball darker than this (and less red than 0.5) is black: path traced, glossy black balls
#: the model was sure of looked as light as -2.0 (docs/vision.md, "Black from -2.2")
BLACK_DARK = -2.2


def colour_of(colour: np.ndarray, letters: str) -> tuple[str, str]:
    """A ball's letter from its samples' median brightness (``level``, log relative to the lit
    plate), red chromaticity relative to the plate's (``red``) and red/green ratio (``rg``),
    or ``?``. The bands leave a margin around what rendered frames under every light showed:
    a light wooden ball deep in shadow is as dark as a lit stained one, so only a clearly
    red-brown dark ball, or one darker than ``DEEP_STAINED``, is read as stained, and a
    white ball in shadow is as dark as a black one in light, so the middle is left unknown.
    A small black ball among red ones takes on their red in a JPEG, so a red ball must also
    be no darker than red balls are (bands from 22,600 ball readings on 3,000 random frames;
    red's darkness limit from 2,233 more, docs/vision.md). Glossy balls reflect the room:
    path traced, black balls look lighter, and red and stained ones less red, than this
    project's renderer draws them, so black, red and stained wood reach as far as the rules
    that follow (:func:`dark_in_shade`, :func:`odd_black`, :func:`odd_red`,
    :func:`odd_wood`) keep safe."""
    level, red, rg = float(colour[0]), float(colour[4]), float(colour[2])
    if letters == "LD":
        if level > -1.2 and red < LIGHT_RED:
            return "L", f"ball, light wood (level {level:.2f}, red {red:.2f})"
        if level < -1.6 and (red >= 0.36 or level < DEEP_STAINED):
            return "D", f"ball, dark wood (level {level:.2f}, red {red:.2f})"
    else:
        if red >= 0.65 and rg >= 1.5 and level > -3.8:
            return RED, f"ball, red (red {red:.2f})"
        if level > -1.5 and red < 0.32 and rg < 0.2:
            return "W", f"ball, white (level {level:.2f}, red {red:.2f})"
        if level < BLACK_DARK and red < 0.5:
            return "B", f"ball, black (level {level:.2f}, red {red:.2f})"
    return "?", f"ball, colour unclear (level {level:.2f}, red {red:.2f})"


ColourRule = Callable[[np.ndarray, str], tuple[str, str]]


def decide(p: Sequence[float], shares: dict[str, float], colour: np.ndarray, x: Sequence[float], count: int, level: int,
           letters: str, th: Thresholds, colour_rule: ColourRule | None = None) -> Reading:
    """One position from the model's probabilities and its measures. A light ball (white,
    light wood) must also be brighter on top than at its sides (``up``) and not much darker
    in the middle than at the edge (``centre_edge``, log): only its shading tells it from
    the plate, so the model alone is not trusted there; a light wooden one with no outline
    against what lies round it (``edge_contrast``), its foot in deep shade (``ring_level``),
    must be shaded as a sphere is (``fit``), for cast shadows' edges shade a place too.
    An empty place must not be shaded like a ball, nor, where light wooden balls are
    played, be in shadow with the plate's colour (lit by the sky alone, such a ball is the
    plate's colour and barely shaded); a ball above the base must be seen over much of its
    surface (else it may be the balls under it showing through). Where light wooden balls
    are played a base hollow is read empty from P(empty) ``tinted_empty``, as long as its
    tint then tells it from them (:func:`wood_in_hollow`) and it is no darker than
    ``tinted_level``: a tint does not tell the hollow from stained wood. A ball whose colour reads
    black or red is read at a lower P(ball) (``dark_ball``): the plate and its hollows are
    light wood, and glossy balls, their rims shaded by the room they reflect, leave the
    model less sure than this project's renderer does. So is a ball whose colour reads
    stained (``stained_ball``), which :func:`odd_wood` then holds to the frame's surer
    stained balls: a hollow deep in shade can take stained wood's colour. (Above the base a
    place the model is less sure of may be the balls below seen through it: the rules
    after, :func:`alike_below`, ask that of every ball read there.) A white or light wooden
    one is read at ``light_ball``, its shading asked as above, where its tint is not the
    plate's (an empty hollow ringed by balls is shaded as a ball is); a light wooden base
    ball from ``shaped_ball``, where it looks a ball in every way its hollow cannot
    (:func:`_shaped`). A light wooden base ball read under ``ball`` must also stand out from
    what lies round it: by its outline or by the plate round its foot (``unframed_outline``,
    ``unframed_plate``)."""
    up, fit, centre_edge, share, outline = float(x[1]), float(x[3]), float(x[10]), float(x[0]), float(x[11])
    level_seen, plate_share, foot, ring_plate = float(x[4]), float(x[7]), float(x[14]), float(x[15])
    probs = (float(p[0]), float(p[1]), float(p[2]))
    if count < th.min_samples:
        return Reading("?", HIDDEN, probs, glimpsed=True)
    if probs[2] > th.hand:
        return Reading("?", "hand?", probs, shares)
    code = why = ""
    if (th.ball > probs[1] >= min(th.dark_ball, th.light_ball, th.shaped_ball, th.stained_ball)
            and (level == 1 or share >= th.upper_share)):
        code, why = (colour_rule or colour_of)(colour, letters)  # for dark_ball, light_ball, ...
    tint = math.hypot(float(colour[2]), float(colour[3])) if code else 0.0  # asked only of a colour read
    if (probs[1] >= th.ball or (code in DARK_LETTERS and probs[1] >= th.dark_ball)
            or (code == STAINED and probs[1] >= th.stained_ball)
            or (code and code in LIGHT and probs[1] >= th.light_ball and tint > th.wood_plate)
            or (code == WOODEN and level == 1 and probs[1] >= th.shaped_ball and _shaped(x, tint, th))):
        if level > 1 and share < th.upper_share:
            return Reading("?", f"ball?, too little of it in view ({share:.0%})", probs, shares, glimpsed=True)
        if not code:
            code, why = (colour_rule or colour_of)(colour, letters)
        if code in WOODEN and level == 1 and share < th.wooden_seen and probs[1] < th.wooden_ball:
            return Reading("?", f"light wood?, {share:.0%} in view at P(ball) {probs[1]:.3f}: may be the hollow",
                           probs, shares, glimpsed=True)
        if code in LIGHT and (up < th.light_up or centre_edge < th.light_centre):
            return Reading("?", f"light, but not shaded like a ball (up {up:.2f}, centre {centre_edge:.2f})",
                           probs, shares)
        if (code == WOODEN and 0.0 < outline < th.wooden_outline and foot < th.wooden_shade
                and fit < th.wooden_fit):
            return Reading("?", f"light wood?, no outline against the plate ({outline:.2f}), in deep shade "
                           f"({foot:.2f}) and shaded unlike a ball (fit {fit:.2f}): may be the plate crossed "
                           "by shadows", probs, shares)
        if (code == WOODEN and level == 1 and probs[1] < th.ball and 0.0 < outline < th.unframed_outline
                and ring_plate < th.unframed_plate):
            return Reading("?", f"light wood?, at P(ball) {probs[1]:.3f} only, with no outline ({outline:.2f}) and "
                           f"little of the plate round its foot ({ring_plate:.2f}): may be a hollow among the "
                           "light off other balls", probs, shares)
        return Reading(code, why, probs, shares, tuple(float(v) for v in colour), colour_only=code == "?")
    tinted = level == 1 and WOODEN in letters and probs[0] >= th.tinted_empty  # the tint tells: wood_in_hollow
    if probs[0] >= th.empty_at(level) or (tinted and level_seen >= th.tinted_level):
        if up > th.empty_up and fit > th.empty_fit:
            return Reading("?", f"empty?, but shaded like a ball (up {up:.2f}, fit {fit:.2f})", probs, shares)
        if WOODEN in letters and level_seen < th.shade_level and plate_share >= _plate_needed(level_seen, th):
            return Reading("?", f"empty?, in shadow (level {level_seen:.2f}) with the plate's colour: a light "
                           "wooden ball there would look so", probs, shares)
        return Reading(".", "empty", probs, shares)
    if tinted:  # and too dark for its tint to tell
        return Reading("?", f"unsure, P(empty) {probs[0]:.3f} only, and too dark ({level_seen:.2f}) for its tint "
                       "to tell the hollow from stained wood", probs, shares)
    return Reading("?", "unsure", probs, shares)


def _shaped(x: Sequence[float], tint: float, th: Thresholds) -> bool:
    """Whether a base place whose colour reads light wood looks a ball in every way the
    plate's wood cannot (``th.shaped_ball``): seen nearly whole, lit from above and brighter
    in the middle than at its rim as a sphere is, outlined against what lies round it, its
    foot's ring in view, and of a tint off the plate's."""
    return (float(x[0]) >= th.shaped_seen and float(x[1]) >= th.shaped_up and float(x[11]) >= th.shaped_outline
            and float(x[10]) >= th.shaped_centre and float(x[13]) >= th.shaped_foot and tint > th.shaped_tint)


def _plate_needed(level_seen: float, th: Thresholds) -> float:
    """The share of the plate's colour that makes an empty reading in shadow doubtful: from
    ``th.shade_plate`` at ``th.shade_level`` down to ``th.deep_plate`` at ``th.deep_level``
    and deeper, in a straight line between. The deeper the shadow, the fewer samples keep a
    colour that can be told; a step between the two left light wooden balls at -1.1 to -1.4
    with 67-78 % of the plate's colour read empty (fresh 4600987 under soft light)."""
    depth = min(max((th.shade_level - level_seen) / (th.shade_level - th.deep_level), 0.0), 1.0)
    return th.shade_plate + (th.deep_plate - th.shade_plate) * depth


def settle(layout: Layout, readings: dict[int, Reading], letters: str,
           under_arm: np.ndarray | None = None) -> dict[int, Reading]:
    """The support rules (see the module's docstring). A place marked ``under_arm`` (an arm
    in view lies over it) is not read empty for a support read so: a place a hand covers is
    unknown, whatever lies under it."""
    out = dict(readings)
    ball = set(letters) | {"#"}
    order = sorted(out, key=lambda j: layout.levels[j])
    torn: set[int] = set()  # ``?`` for a contradiction under them: a ball or an empty place misread
    changed = True
    while changed:
        changed = False
        for i in order:
            sup = layout.supports[i]
            if not sup or not any(out[j].code == "." for j in sup):
                continue
            if out[i].code in ball:
                for j in (i, *sup):
                    if j == i or out[j].code == ".":
                        out[j] = Reading("?", "support rules: a ball over an empty-looking support", out[j].p)
                        torn.add(j)
                changed = True
            elif out[i].code == "?" and (under_arm is None or not under_arm[i]):
                out[i] = Reading(".", "support rules: a support is empty", out[i].p)
                changed = True
    # a ball is only as sure as its supports: each must be seen as a ball, or be ``?`` only
    # for being seen too little, only for a support of its own not seen, or only for its
    # colour (it is seen as a ball, and one resting on it says it is there); not where a
    # contradiction lies under it, which a ball of unclear colour passes on
    for i in order:
        sup = layout.supports[i]
        if not sup or not (out[i].code in ball or out[i].colour_only):
            continue
        unseen = [j for j in sup if not (out[j].code in ball or out[j].glimpsed or out[j].colour_only)]
        if not unseen:
            continue
        tearing = any(j in torn for j in unseen)
        if tearing:
            torn.add(i)
            out[i] = Reading("?", "support rules: a support is not seen", out[i].p)
        elif out[i].code in ball:
            out[i] = Reading("?", "support rules: a support is not seen", out[i].p, glimpsed=True)
    return out


def gather(image: np.ndarray, pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear RGB (R G B order) of a BGR image at (row, column) pixels, and which lie inside."""
    px, inside = pixels_at(image, pixels)
    return to_linear(px[:, ::-1]), inside


def read_pyramid(image: np.ndarray, layout: Layout, geo: Geometry, plate: np.ndarray, protos: dict,
                 letters: str, model, hands: HandSigns, th: Thresholds = Thresholds(),
                 colour_rule: ColourRule | None = None,
                 guess: np.ndarray | None = None,
                 clear: np.ndarray | None = None, second=None,
                 over: np.ndarray | None = None) -> tuple[dict[str, Reading], np.ndarray]:
    """Every position of the board, read level by level from the top; ``colour_rule``
    replaces :func:`colour_of` (calibrated colours, vision/calibration.py). Also returns
    which positions the levels' reading left as maybe holding a ball (all but those it
    read empty, before the rules below looked again): the next frame's ``guess``. A
    guess makes the reading cheaper where right and changes nothing it reads
    (vision/recognize_levels.py); without one, none above the base is expected. ``clear``:
    the positions an arm in view lies well clear of in the image (vision/recognize_reach.py),
    read as in a frame without a hand. ``second``: the model fitted on path traced frames
    alone, which must call a place the model reads empty so too (:func:`second_empty`).
    ``over``: the positions the arm lies over (vision/recognize_reach.py), which the support
    rules do not read empty (:func:`settle`); without it, with an arm in view, every
    position not ``clear``."""
    lin, inside = gather(image, geo.pixels)
    body = Colours.of(lin[geo.body], plate)  # every position's, for the measures and the rules below
    maybe = np.ones(len(layout.names), dtype=bool)
    near = np.array([hands.distance(*c[:2]) for c in layout.centres])
    closeness = np.where(np.isfinite(near), np.exp(-near / 60.0), 0.0)
    hand_at = np.full(len(near), hands.present)
    hand_close = closeness
    if clear is not None:
        hand_at &= ~clear
        closeness = np.where(clear, 0.0, closeness)
    readings: dict[int, Reading] = {}
    hollows: dict[int, np.ndarray] = {}  # the tint of each base hollow read empty
    shaded: dict[int, float] = {}  # ... and its level, where in shade
    white = math.log(1.0 / max(float(plate @ LUMA), 1e-6))  # 8-bit 255's level: the camera clips there

    def measure(rows: np.ndarray, above: np.ndarray) -> tuple[Batch, np.ndarray]:
        batch = measure_level(geo, rows, lin, inside, above, plate, protos, letters, layout.levels,
                              hand_at, closeness, body)
        probs = model.probabilities(batch.x)
        if clear is not None:  # unless the model told of the arm doubts them: a hand's shadow
            sel = np.flatnonzero(clear[rows])
            if len(sel):
                x = batch.x[sel].copy()
                x[:, HAND_FRAME] = 1.0
                x[:, HAND_NEAR] = hand_close[rows[sel]]
                told = model.probabilities(x)
                doubt = told[:, 2] > th.hand_told
                probs[sel[doubt]] = told[doubt]
        return batch, probs

    if guess is None:
        guess = layout.levels == 1
    loose, levels = geo.loose.tolist(), layout.levels.tolist()  # Python values: cheap to compare one by one
    for idx, batch, probs in measured_levels(layout, geo, maybe, guess, measure, th):
        xs, ps, counts = batch.x.tolist(), probs.tolist(), batch.counts.tolist()
        empties = None  # the second model's P(empty) of the level's places, asked once where one may read empty
        if second is not None and (probs[:, 0] >= min(th.empty, th.upper_empty, th.tinted_empty)).any():
            empties = second.probabilities(batch.x)[:, 0].tolist()
        for j, i in enumerate(idx.tolist()):
            if loose[i] > th.loose:
                readings[i] = Reading("?", f"the markers pin this place down to ±{loose[i]:.0%} of a ball only",
                                      tuple(ps[j]))  # type: ignore[arg-type]
                continue
            reading = decide(ps[j], batch.shares[j], batch.colour[j], xs[j], int(counts[j]), levels[i], letters, th,
                             colour_rule)
            if reading.code == "." and empties is not None:
                reading = second_empty(reading, empties[j], th)
            if reading.code == "." and batch.colour[j, 0] >= white - th.clipped:
                reading = Reading("?", f"empty?, but as white as the camera records ({batch.colour[j, 0]:.2f}, its "
                                  f"white at {white:.2f}): a white ball clipped there has no shading left to show",
                                  reading.p, reading.shares)
            if reading.code == "." and levels[i] == 1:
                reading = under_a_ball(layout, readings, i, reading, xs[j], th)
            if reading.code == "." and levels[i] == 1 and loose[i] > th.base_loose:
                reading = Reading("?", f"empty?, but the markers pin this hollow down to ±{loose[i]:.0%} of "
                                  "a ball only: a ball there, seen beside its place, would look so",
                                  reading.p, reading.shares)
            # with its share in view; built directly, as dataclasses.replace costs more per call
            readings[i] = Reading(reading.code, reading.why, reading.p, reading.shares, reading.colour,
                                  xs[j][0], reading.glimpsed, reading.colour_only)
            maybe[i] = reading.code != "."
            if reading.code == "." and levels[i] == 1:
                hollows[i] = batch.colour[j, 2:4]
                if batch.colour[j, 0] < th.shade_level:
                    shaded[i] = float(batch.colour[j, 0])
    base = {i for i in readings if levels[i] == 1}
    ring = ring_plate(geo, lin, inside, maybe, plate)  # the plate round the base, for the two rules below
    if "B" in letters or "D" in letters:
        readings = dark_in_shade(readings, plate_shade(geo, lin, inside, maybe, plate, ring), th, base)
    if "B" in letters:
        readings = odd_black(readings, th)
    if WOODEN in letters:
        readings = off_tint(layout, plate_coloured(layout, readings, th), th)
        readings = wood_in_hollow(layout, odd_wood(readings, th, readings.keys() - base),
                                  hollows, th)
    if WHITE in letters and shaded:
        readings = white_in_hollow(readings, hollows, {i: plate_tint_at(ring, v) for i, v in shaded.items()}, th)
    readings = slivers(layout, geo, readings, maybe, th)
    if RED in letters:  # after slivers, which leave the balls resting on one read
        readings = odd_red(readings, th, base)
    readings = lookalikes(layout, geo, readings, th)
    readings = red_through(layout, geo, readings, lin, inside, maybe, letters, th)
    # the balls first, so that no empty place is confirmed by a ball whose reading is withdrawn
    readings = plate_between(layout, geo, readings, lin, inside, maybe, plate, th, body)
    sight = Sight(geo, lin, inside, maybe, plate, body)  # worked out once, on first need, for the three rules below
    readings = alike_below(layout, geo, readings, lin, inside, maybe, plate, th, sight)
    readings = unconfirmed(layout, geo, readings, lin, inside, maybe, plate, th, sight)
    readings = beneath_doubt(layout, geo, readings, lin, inside, maybe, plate, th, sight)
    under_arm = hand_at if over is None else over
    settled = settle(layout, readings, letters, under_arm)
    if any(r.code == "." and settled[i].code != "." for i, r in readings.items()):
        # the support rules took an empty reading back: a ball read through that place
        # was read as if nothing could stand in front of it there (fresh 8410036)
        settled = settle(layout, beneath_doubt(layout, geo, settled, lin, inside, maybe, plate, th, sight), letters,
                         under_arm)
    return {layout.names[i]: r for i, r in settled.items()}, maybe


def second_empty(r: Reading, empty: float, th: Thresholds) -> Reading:
    """Empty reading ``r``, made unknown unless the second model, fitted on path traced frames
    alone, calls the place empty at ``th.pbr_empty`` too (``empty``, its P(empty)). The first
    model was fitted on this project's frames alone: through a webcam's sharpening and noise,
    path traced balls in plain view were empty to it at 0.99-1.00 (8400063 1c3, 2c2 and 2c3),
    and 2c2 is empty at 0.22 only to the second, which has seen such frames in the same looks
    (the other two then follow, measured with a ball maybe at 2c2)."""
    if empty >= th.pbr_empty:
        return r
    return Reading("?", f"empty?, P(empty) {r.p[0]:.3f}, but {empty:.2f} only to the model fitted on path traced "
                   "frames", r.p, r.shares)


def under_a_ball(layout: Layout, readings: dict[int, Reading], i: int, r: Reading, x: Sequence[float],
                 th: Thresholds) -> Reading:
    """Base hollow ``i``'s empty reading ``r``, made unknown where the hollow (its measures
    ``x``) is in shadow with the plate's colour and a place resting on it, read already (the
    reading goes from the top) from enough of itself (not glimpsed), leans to a ball. A
    light ball under others is shaded on top by them, so not shaded like a ball, and lit by
    the light bounced off the plate it takes the plate's colour; and nothing rests on an
    empty hollow. (Either sign alone is common where the hollow is empty.)"""
    level_seen, plate_share = float(x[4]), float(x[7])
    if level_seen >= th.under_level or plate_share < th.under_plate:
        return r
    for k in layout.resting[i]:
        above = readings[k]
        if above.code != "." and not above.glimpsed and above.p[1] >= th.under_ball:
            return Reading("?", f"empty?, in shadow (level {level_seen:.2f}) with the plate's colour, under "
                           f"{layout.names[k]} at P(ball) {above.p[1]:.2f}: a light ball under others would look so",
                           r.p, r.shares)
    return r


def slivers(layout: Layout, geo: Geometry, readings: dict[int, Reading], maybe: np.ndarray,
            th: Thresholds) -> dict[int, Reading]:
    """A base ball showing less than ``th.base_share`` of itself, the rest hidden behind its
    neighbours or the balls above, stays read only if it is dark and every ball hiding it
    was read in its colour. A sliver of an empty hollow between balls is shaded like a
    sliver of a light ball, and a sliver of a black ball behind a red one takes on the red
    in the blur; behind balls of its own colour, a sliver can only be that colour, but for
    red, which a black sliver behind red balls shows (below ``th.red_base_share``). A light
    wooden ball, the plate's own wood, is a sliver below ``th.wooden_base_share``. So is a
    small red one behind balls read red or unknown (``th.red_unknown_share`` and
    ``red_unknown_px``): those may be red."""
    out = dict(readings)
    for i, r in readings.items():
        if layout.levels[i] != 1 or r.code in "?.#":
            continue
        share = th.wooden_base_share if r.code in WOODEN else th.base_share
        if not r.seen < max(share, max(th.red_base_share, th.red_unknown_share) if r.code == RED else 0.0):
            continue
        hiding = {readings[int(j)].code for j in
                  np.flatnonzero((geo.hidden[i] & geo.body_ok[i][:, None]).any(axis=0) & maybe)}
        pixels = r.seen * math.pi * float(geo.radius_px[i]) ** 2
        if r.seen < share and (r.code in LIGHT or hiding - {r.code}):
            why = "of a light ball or behind other colours"
        elif r.code == RED and hiding == {RED} and r.seen < th.red_base_share:
            why = "behind red balls only: a black ball's sliver there takes on their red"
        elif (r.code == RED and "?" in hiding and hiding <= {RED, "?"} and r.seen < th.red_unknown_share
              and pixels < th.red_unknown_px):
            why = (f"over {pixels:.0f} px, behind balls read red or unknown only: a black ball's sliver there "
                   "would take on the red of those that are red")
        else:
            continue
        out[i] = Reading("?", f"ball?, a sliver ({r.seen:.0%} in view) {why}", r.p, r.shares, seen=r.seen,
                         glimpsed=True)
    return out


def lookalikes(layout: Layout, geo: Geometry, readings: dict[int, Reading], th: Thresholds) -> dict[int, Reading]:
    """A ball above the base showing less than ``th.upper_alone`` of itself is unknown when
    a lower ball lies right behind it in the view (:attr:`Geometry.behind`) that is unknown
    or read in the same colour: with the place empty, that ball and the plate between the
    balls would fill much the same pixels. Seen from the side, a level-2 place lines up with
    the base ball behind it. A light ball is told from the plate by shading alone; a dark
    one is not, but in a small image the dark ball behind fills the place (fresh 4400152),
    and so does a red one: :func:`red_through` needs some of the place to show another
    colour, and in fresh 4600420 the red ball behind filled 21 of 28 samples. A ball read
    resting on it settles the doubt: then it is there."""
    out = dict(readings)
    for i, r in readings.items():
        if layout.levels[i] == 1 or r.code in "?.#" or not r.seen < th.upper_alone:
            continue
        if _rested_on(layout, readings, i):
            continue
        alike = [layout.names[j] for j in geo.behind[i] if readings[j].code in (r.code, "?")]
        if alike:
            out[i] = Reading("?", f"ball?, {r.seen:.0%} in view in line with {alike[0]} behind it, which may be "
                             "what is seen", r.p, r.shares, seen=r.seen, glimpsed=True)
    return out


def _rested_on(layout: Layout, readings: dict[int, Reading], i: int) -> bool:
    """Whether a ball is read resting on position ``i``: then a ball is there."""
    return any(readings[k].code not in "?." for k in layout.resting[i])


def red_through(layout: Layout, geo: Geometry, readings: dict[int, Reading], lin: np.ndarray,
                inside: np.ndarray, maybe: np.ndarray, letters: str, th: Thresholds) -> dict[int, Reading]:
    """A red ball above the base is red all over. Its samples fall into groups by the lower
    balls the view would meet through them were the place empty (or none: the plate between
    balls); with the place empty, each group would show its own ball or gap. When a group
    of ``th.through_count`` samples or more is less red than the rest of the ball by
    ``th.through_red`` (median log red/green), the red may be a red ball seen through an
    empty place, with the group showing what is beside it: unknown. From 30-45 degrees off
    vertical a base ball lies almost right behind an empty level-2 place. (Only red: the
    other colours differ too little in chromaticity for this, and a shadow's edge changes
    a ball's brightness as much as they differ.)"""
    out = dict(readings)
    if RED not in letters:
        return out
    red = [i for i, r in readings.items() if layout.levels[i] > 1 and r.code == RED]
    if not red:
        return out
    # a set of lower balls as one number, to group by: exact up to 53 positions (a larger
    # board's groups could merge, which only makes the rule weaker)
    bits = np.where(maybe, 2.0 ** np.arange(len(layout.names)), 0.0)
    body = geo.body[red]
    seen = in_view(geo, np.array(red), inside, maybe)
    rgb = np.maximum(lin[body], 1e-4)
    ratio = np.log(rgb[..., 0] / rgb[..., 1])  # only differences count: no need of the plate's
    groups = geo.through[red] @ bits  # per sample, the lower balls met, as a bit set
    for k, i in enumerate(red):
        ok = seen[k]
        if ok.sum() < 2 * th.through_count:
            continue
        r, rg = readings[i], ratio[k][ok]
        _, which, counts = np.unique(groups[k][ok], return_inverse=True, return_counts=True)
        n, rest = len(rg), len(rg) - counts
        # every group's median, and a bound on the rest's (its middle is no higher than the
        # whole ball's at the same rank from the top), so that few medians are taken
        by_group = rg[np.lexsort((rg, which))]
        starts = np.cumsum(counts) - counts
        median = (by_group[starts + (counts - 1) // 2] + by_group[starts + counts // 2]) / 2
        bound = np.sort(rg)[n - 1 - (np.maximum(rest, 1) - 1) // 2]
        maybe_less = (counts >= th.through_count) & (rest >= th.through_count) & (median < bound - th.through_red)
        for g in np.flatnonzero(maybe_less):
            elsewhere = float(np.median(rg[which != g]))
            if elsewhere - median[g] > th.through_red:
                sample = np.flatnonzero(ok)[np.argmax(which == g)]
                met = [layout.names[j] for j in np.flatnonzero(geo.through[i][sample] & maybe)] or ["the plate"]
                out[i] = Reading("?", f"ball?, not red all over: less red where {', '.join(met)} would show "
                                 f"through (red/green {median[g] - elsewhere:.1f} against the rest)",
                                 r.p, r.shares, seen=r.seen)
                break
    return out


def alike_below(layout: Layout, geo: Geometry, readings: dict[int, Reading], lin: np.ndarray, inside: np.ndarray,
                maybe: np.ndarray, plate: np.ndarray, th: Thresholds, sight: Sight | None = None) -> dict[int, Reading]:
    """A ball above the base that the model is not quite sure of (P(ball) under
    ``th.upper_ball``) is unknown when most of its samples (``th.alike_below``) would, were
    the place empty, show a lower ball read in its colour or unknown (:attr:`Geometry.through`,
    the nearest level met; where two balls of that level are met, either), or, for any colour
    but red, the gap between the balls: the place empty would look much the same, and the
    dark gap under a lit ball below passes for a ball's shaded underside. A ball read resting
    on it keeps its reading, as on a support seen too little (:func:`settle`), but does not
    settle this one, which stays unknown. Samples that would show a lower ball read in
    another colour count too where they look as that ball's reading says
    (:func:`shows_below`): what the place shows there is what it would show empty (fresh
    7900137 2a3, with far colours: an empty place read black at P(ball) 0.98, 13 of its 33
    samples showing the red ball below it as red). Nor is it doubted where it shows itself
    instead of a lower ball read in another colour (:func:`_itself_over`): what the place
    empty would show is not what is seen.

    However sure the model, a ball is unknown when a lower ball read unknown lies almost
    exactly behind it (:attr:`Geometry.aligned`) and nearly all its samples
    (``th.unseen_below``) would show lower balls read unknown, unless a ball read rests on
    it: seen obliquely, a ball right behind an empty place is shaded as one there would be,
    and only its size, a few per cent smaller, differs. Its samples that would show a lower
    ball read by colour count with those when they look as that ball's reading says
    (:func:`shows_below`; ``sight``: the frame's colours, when the caller has them already):
    round the ball behind, the rim shows its neighbours, as it would with the place empty.
    From the top down, so that a ball resting on it whose reading this rule withdrew does
    not keep it."""
    out = dict(readings)
    sight = sight or Sight(geo, lin, inside, maybe, plate)
    codes = np.array([readings[j].code for j in range(len(layout.names))])
    for i in sorted(readings, key=lambda j: -layout.levels[j]):
        r = readings[i]
        if layout.levels[i] == 1 or r.code in "?.#":
            continue
        back = [j for j in geo.aligned[i] if codes[j] == "?"]
        if back and _rested_on(layout, out, i):
            back = []  # it is there
        if not back and not r.p[1] < th.upper_ball:
            continue
        _, top, nearest = through(layout, geo, i, inside, maybe, sight.view[i])
        if not len(top):
            continue
        unseen = (nearest & (codes == "?")).any(axis=1)
        shown = None  # shows_below's samples: worked out once at most, for either rule below
        if back and unseen.mean() < th.unseen_below:
            shown = shows_below(out, i, nearest, sight, th)
            unseen |= shown
        if back and unseen.mean() >= th.unseen_below:
            out[i] = Reading("?", f"ball?, right before {layout.names[back[0]]}, not seen, and {unseen.mean():.0%} "
                             "of it would show lower balls not seen, or looking there as read, were it empty: "
                             "it may be them",
                             r.p, r.shares, seen=r.seen, glimpsed=True)
            continue
        if not r.p[1] < th.upper_ball:
            continue
        alike = (nearest & ((codes == r.code) | (codes == "?"))).any(axis=1) | ((top == 0) & (r.code != RED))
        if alike.mean() < th.alike_below:
            alike |= shows_below(out, i, nearest, sight, th) if shown is None else shown
        if alike.mean() >= th.alike_below and not _itself_over(out, i, nearest & ~alike[:, None], sight, th):
            out[i] = Reading("?", f"ball?, P(ball) {r.p[1]:.3f}, and {alike.mean():.0%} of it could be the balls "
                             "below seen through an empty place", r.p, r.shares, seen=r.seen, glimpsed=True)
    return out


def _itself_over(readings: dict[int, Reading], i: int, unlike: np.ndarray, sight: Sight, th: Thresholds) -> bool:
    """Whether ball ``i`` shows itself where, were its place empty, a lower ball read in
    another colour would be seen (``unlike``: its samples in view that would meet each
    lower ball and that :func:`alike_below` did not count): ``th.unlike_under`` or more of
    them, and ``th.through_count`` at least, looking not as that ball's reading says but as
    ``i``'s does (:func:`looks_itself_not_as`)."""
    r = readings[i]
    if not r.colour or not len(unlike):
        return False
    counts = unlike.sum(axis=0)
    met = [int(j) for j in np.flatnonzero((counts >= th.through_count) & (counts / len(unlike) >= th.unlike_under))
           if readings[int(j)].code != r.code and readings[int(j)].colour]
    if not met:
        return False  # most places: no group to look at, and no colours to gather
    seen, col = sight.own(i)
    col = col.at(seen)
    return any(looks_itself_not_as(r, readings[j], col, unlike[:, j], th) for j in met)
