"""Rules that judge a ball's colour against the frame it is in: the plate's shade, and the
frame's other balls read in its colour (its fellows). Light and shade move every ball of a
frame alike, so a reading far from its fellows is more likely another colour shaded or
tinted into its band than a ball of that colour (vision/recognize_balls.py applies them
after the model and the colour bands)."""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import replace
from typing import Collection, Sequence

import numpy as np

from .recognize_pyramid import Layout
from .recognize_reading import RED, WHITE, WOODEN, Reading
from .recognize_thresholds import Thresholds

#: the plate's own tint: every tint (log red/green and blue/green) is measured from it
PLATE_TINT = (0.0, 0.0)


def dark_in_shade(readings: dict[int, Reading], shade: float, th: Thresholds,
                  base: Collection[int] = ()) -> dict[int, Reading]:
    """A ball read black must be darker than a white ball could look in this frame's shade:
    lit by the sky alone, and deeper still between the balls, a white ball is as dark as a
    black one in the light (a white base ball under three others was read black at level
    -3.62 on a fresh frame, seed 2,300,374, where the plate's shade round the base was
    -3.26). A ball read dark wood must be darker than that shade itself: a light wooden
    ball, of the plate's wood or near it, is as dark there, and one whose wood is redder
    than the plate's then passes for stained. ``shade``: :func:`plate_shade`; -inf (not
    measured) leaves these readings as they are. Nor may a ball read dark wood have its
    brightest tenth near the lit plate (``wood_top``): a stained ball, even lit straight on,
    nearly always stays well below the plate (its wood is darker), so that is most likely a
    light wooden ball half in shadow, as dark as stained wood by its median. The same holds
    for a base ball read black (``black_top``; ``base``: the base level's places): a white
    ball half in the shadow of the balls above it."""
    out = dict(readings)
    for i, r in readings.items():
        if not r.colour:
            continue
        if r.code == "D" and r.colour[1] > th.wood_top:
            out[i] = replace(r, code="?", why=f"dark wood?, but its brightest tenth is at {r.colour[1]:.2f}, near the "
                                              "lit plate: a light wooden ball half in shadow could look so",
                             colour_only=_sure(r, th))
        elif r.code == "B" and i in base and r.colour[1] > th.black_top:
            out[i] = replace(r, code="?", why=f"black?, but its brightest tenth is at {r.colour[1]:.2f}, far lighter "
                                              "than a black ball's: a white ball half in shadow could look so",
                             colour_only=_sure(r, th))
        elif not math.isfinite(shade):
            continue
        elif r.code == "B" and r.colour[0] > shade - th.white_shade:
            out[i] = replace(r, code="?", why=f"black?, level {r.colour[0]:.2f}, but the plate's shade reaches "
                                              f"{shade:.2f}: a white ball in shade could look so",
                             colour_only=_sure(r, th))
        elif r.code == "D" and r.colour[0] > shade - th.wood_shade:
            out[i] = replace(r, code="?", why=f"dark wood?, level {r.colour[0]:.2f}, but the plate's shade reaches "
                                              f"{shade:.2f}: a light wooden ball in shade could look so",
                             colour_only=_sure(r, th))
    return out


def odd_black(readings: dict[int, Reading], th: Thresholds) -> dict[int, Reading]:
    """A ball read black far lighter than this frame's other balls read black is unknown: a
    white ball deep in the shadow of its neighbours falls into black's band of brightness
    while staying well above the black balls themselves. (Black balls lit and in shadow
    differ too, by up to 2.15 on the benchmark: a thin margin, Thresholds.odd_black.) One
    mostly hidden need be lighter by less (``th.odd_black_seen``): of a white ball a third in
    view, only the sliver deep between its neighbours shows, and that little is darker
    still."""
    blacks = {i: r for i, r in readings.items() if r.code == "B" and r.colour}
    judges = {i: r for i, r in blacks.items() if _judges(r, th)}
    out = dict(readings)
    for i, r in blacks.items():
        apart = _against_fellows(r, i, judges)
        if apart is not None and -apart[1] >= th.odd_black:
            out[i] = _colour_doubt(r, f"black?, but {-apart[1]:.2f} lighter than this frame's other black balls: "
                                   "may be a white ball in shadow", th)
        elif apart is not None and r.seen < th.odd_black_seen[0] and -apart[1] >= th.odd_black_seen[1]:
            out[i] = _colour_doubt(r, f"black?, but {r.seen:.0%} of it in view and {-apart[1]:.2f} lighter than "
                                   "this frame's other black balls: may be a white ball deep between its neighbours",
                                   th)
        elif (shaded := _red_in_shade(r, i, blacks, th)) is not None:
            out[i] = _colour_doubt(r, f"black?, but {shaded[0]:.2f} lighter and {shaded[1]:.2f} redder (log "
                                   "red/green) than this frame's darkest black ball: may be a red ball in shadow", th)
    return out


def _red_in_shade(r: Reading, i: int, blacks: dict[int, Reading], th: Thresholds) -> tuple[float, float] | None:
    """How much lighter (log level) and redder (log red/green) ball ``r`` (position ``i``)
    is than the darkest of the frame's other balls read black, ``blacks``, where both reach
    ``th.red_in_shade``; else None. A red ball in a deep shadow (an arm's, over the
    pyramid) is dark enough to read black, and where three such balls are read black
    beside two black ones, the medians :func:`odd_black` takes are theirs; the darkest
    black ball is not, whatever its P(ball)."""
    others = [b.colour for j, b in blacks.items() if j != i]
    if not others:
        return None
    darkest = min(others, key=lambda c: c[0])
    lighter, redder = r.colour[0] - darkest[0], r.colour[2] - darkest[2]
    return (lighter, redder) if lighter >= th.red_in_shade[0] and redder >= th.red_in_shade[1] else None


def plate_coloured(layout: Layout, readings: dict[int, Reading], th: Thresholds) -> dict[int, Reading]:
    """A light wooden base ball of the plate's own colour is unknown where the frame's other
    light wooden base balls are not of it: an empty hollow ringed by balls is shaded by
    them much as a ball is, and shows the plate's wood. So is one far nearer the plate's
    colour than its fellows' (``th.wood_nearer``), however near the plate theirs lies: a
    webcam's colour processing brings the two woods together. Where the balls' wood matches
    the plate's (as the reference board's does) this says nothing, and it is left alone. (A ball
    read resting on it does not settle it: that reading may yet be withdrawn, and none of
    the light wooden balls read right on the 12,000 frames studied fell in this rule.) One off
    the plate's colour is unknown only where it lies ``th.wood_nearer_off`` nearer it than
    its fellows: a hollow in a room's shadow takes the plate's tint shifted by that light."""
    wooden, judges = _light_base(layout, readings, th)
    out = dict(readings)
    for i, chroma in wooden.items():
        plate = float(np.hypot(*chroma))
        fellows = [c for j, c in judges.items() if j != i]
        if not fellows:
            continue
        usual = median_tint(fellows)
        apart = float(np.hypot(*usual))
        fellow = float(np.hypot(*(chroma - usual)))
        if plate > th.wood_plate:  # off the plate's colour: only far nearer it than its fellows (a hollow in shade)
            doubt = fellow - plate >= th.wood_nearer_off
            why = (f"light wood?, {fellow - plate:.2f} nearer the plate's colour than this frame's light wooden "
                   f"balls ({plate:.2f} from it, {fellow:.2f} from them): may be the hollow, its wood tinted by the "
                   "light there")
        else:
            doubt = (apart >= th.wood_apart and fellow > plate) or fellow - plate >= th.wood_nearer
            why = (f"light wood?, of the plate's colour ({plate:.2f} from it, {fellow:.2f} from this frame's light "
                   f"wooden balls, which are {apart:.2f} from it): may be the hollow")
        if doubt:
            r = readings[i]
            out[i] = Reading("?", why, r.p, r.shares, seen=r.seen)
    return out


def off_tint(layout: Layout, readings: dict[int, Reading], th: Thresholds) -> dict[int, Reading]:
    """A light wooden base ball in view (``th.off_tint_seen``) whose tint lies ``th.off_tint``
    or more from the median of this frame's other light wooden base balls' (two or more,
    seen ``th.wood_fellows``, read at P(ball) ``th.ball``), and ``th.off_tint_spread`` times
    as far as they lie from it themselves (their median distance), is unknown. One wood in
    one light shows one tint, and shade darkens it far more than it tints it; an empty
    hollow among light balls shows the plate's wood, shaded and lit by the balls round it,
    and the model may take that shading for a ball's (path traced 8960030 1b4, under glare:
    read light wood at P(ball) 0.95-1.00 in all five looks, 0.16-0.20 from its fellows'
    tint, which lay 0.01-0.03 from it; 8900028 1b4, 0.33-0.36 and 0.02-0.04). A ball mostly
    hidden shows only its foot, deep between balls that tint it, and is not judged so."""
    light, judges = _light_base(layout, readings, th)
    out = dict(readings)
    for i, tint in light.items():
        r = readings[i]
        fellows = [t for j, t in judges.items() if j != i]
        if r.seen < th.off_tint_seen or len(fellows) < 2:
            continue
        usual = median_tint(fellows)
        apart = float(np.hypot(*(tint - usual)))
        spread = statistics.median(float(np.hypot(*(t - usual))) for t in fellows)
        if apart >= th.off_tint and apart >= th.off_tint_spread * spread:
            out[i] = Reading("?", f"light wood?, but its tint lies {apart:.2f} from this frame's other light wooden "
                             f"balls', which lie {spread:.2f} from it: may be the hollow, lit and shaded by the balls "
                             "round it", r.p, r.shares, seen=r.seen)
    return out


def _light_base(layout: Layout, readings: dict[int, Reading], th: Thresholds
                ) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """The tints of the frame's light wooden base balls read with a colour, by position,
    and those of them that judge the others (seen ``th.wood_fellows``, read at P(ball)
    ``th.ball``): :func:`plate_coloured`'s and :func:`off_tint`'s fellows."""
    tints = {i: np.array(r.colour[2:4]) for i, r in readings.items()
             if r.code == WOODEN and r.colour and layout.levels[i] == 1}
    judges = {i: t for i, t in tints.items() if readings[i].seen >= th.wood_fellows and _judges(readings[i], th)}
    return tints, judges


def wood_in_hollow(layout: Layout, readings: dict[int, Reading], hollows: dict[int, np.ndarray],
                   th: Thresholds) -> dict[int, Reading]:
    """A base hollow read empty whose tint (``hollows``: median log red/green and
    blue/green, relative to the plate's) lies ``th.hollow_wood`` or more nearer the frame's
    light wooden base balls' than the plate's is unknown: a hollow shows the plate's wood,
    and a light wooden ball in a soft light is barely shaded, so only its tint tells it
    (fresh 5300162 1c4: 0.25 from the plate, 0.02 from its fellows, read empty at P(empty)
    0.998 with the ball on it, and the two resting on that one emptied). The converse of
    :func:`plate_coloured`. One read empty at a P(empty) under ``th.base_empty``
    (``th.tinted_empty``, :func:`decide`) stays so only where its tint lies
    ``th.hollow_plate`` or more nearer the plate's than theirs, and theirs ``th.wood_apart``
    or more from the plate's: that tint, not the model, says it is the hollow. Where light
    wood's tint lies near the plate's, no hollow lies ``th.hollow_wood`` nearer it: one
    ``th.hollow_near[0]`` or more from the plate's whose tint lies within ``hollow_near[1]``
    of that from theirs is unknown too, those balls judging at any P(ball) (path traced
    9220037 1d4, a lit light wooden ball shaded flat, 0.21 and 0.08)."""
    light = [r for i, r in readings.items()
             if r.code in WOODEN and r.colour and layout.levels[i] == 1 and r.seen >= th.wooden_seen]
    wooden = [np.array(r.colour[2:4]) for r in light if _judges(r, th)]
    usual = median_tint(wooden) if wooden else None
    apart = float(np.hypot(*usual)) if usual is not None else 0.0
    # for ``hollow_near`` the light balls judge at any P(ball): a doubt reads nothing wrong
    near = median_tint([np.array(r.colour[2:4]) for r in light]) if light else None
    out = dict(readings)
    for i, tint in hollows.items():
        r = out[i]
        if r.code != ".":
            continue
        plate = float(np.hypot(*tint))
        fellow = float(np.hypot(*(tint - usual))) if usual is not None else math.inf
        close = float(np.hypot(*(tint - near))) if near is not None else math.inf
        nearer = plate - fellow >= th.hollow_wood
        if nearer or (plate >= th.hollow_near[0] and close <= th.hollow_near[1] * plate):
            out[i] = replace(r, code="?", why=f"empty?, tinted as this frame's light wooden balls "
                             f"({fellow if nearer else close:.2f} from them, {plate:.2f} from the plate): a light "
                             "wooden ball there would look so")
        elif r.p[0] < th.base_empty and (usual is None or apart < th.wood_apart or fellow - plate < th.hollow_plate):
            told = ("no light wooden base ball read to tell its tint from" if usual is None else
                    f"its tint {plate:.2f} from the plate's and {fellow:.2f} from this frame's light wooden balls', "
                    f"which are {apart:.2f} from it")
            out[i] = replace(r, code="?", why=f"unsure, P(empty) {r.p[0]:.3f} only, and {told}")
    return out


def white_in_hollow(readings: dict[int, Reading], hollows: dict[int, np.ndarray],
                    shades: dict[int, np.ndarray | None], th: Thresholds) -> dict[int, Reading]:
    """A base hollow read empty in shade whose tint (``hollows``, as in
    :func:`wood_in_hollow`) leans from the plate's in that shade (``shades``: the tint of the
    plate round the base where it is as dark, :func:`~.recognize_features.plate_tint_at`)
    toward this frame's white balls' (their median; each read at P(ball) ``th.ball``),
    ``th.hollow_white`` of the way or more, is unknown: its tint projected on the line from
    the one to the other. A hollow shows the plate's wood, and the light that shades it
    tints the plate round it alike; a white ball in an arm's soft shadow, lit by the light
    the plate throws back, takes much of the plate's tint and barely shows its shading
    (2600284 1a4 under a soft light: read empty at P(empty) 1.00, its tint a quarter of the
    way to its fellows'). Not where theirs lies under ``th.white_apart`` from the shaded
    plate's: there a lean is noise; nor where the plate round the base is nowhere that dark."""
    whites = [r.colour[2:4] for r in readings.values() if r.code == WHITE and r.colour and _judges(r, th)]
    if not whites:
        return readings
    usual = median_tint(whites)
    out = dict(readings)
    for i, tint in hollows.items():
        r, shade = out[i], shades.get(i)
        if r.code != "." or shade is None:
            continue
        toward = usual - shade
        span = float(toward @ toward)
        if span < th.white_apart ** 2:
            continue
        lean = float((tint - shade) @ toward) / span
        if lean >= th.hollow_white:
            out[i] = replace(r, code="?", why=f"empty?, its tint {lean:.2f} of the way from the plate's in its shade "
                             "to this frame's white balls': a white ball in shade, lit by the plate, would look so")
    return out


def odd_wood(readings: dict[int, Reading], th: Thresholds, upper: Collection[int] = ()) -> dict[int, Reading]:
    """A wooden ball that looks, against this frame's other balls read of its wood, like
    the other wood is unknown. In one frame the balls of one wood share a tint; shade makes
    a ball darker and, lit by the sky, no redder (light bounced off the plate reddens it a
    little, which costs a reading now and then). So a "light wooden" ball both darker and
    redder than its fellows is a stained ball lit from the side (its lit half the plate's
    tint), and a "stained" one far less red than its fellows, and hardly darker, is light
    wood that a webcam's colour processing reddened (:func:`_against_fellows`), and so is one
    a little less red and far lighter (``odd_dark_lit``), or barely less red and lighter
    still (``odd_dark_far``): lit more, stained wood keeps its red, and light never
    moves it that far above its fellows; and so is one far lighter whose tint, blue as well
    as red, lies off theirs (``odd_dark_tint``): lit more, stained wood keeps its fellows'
    tint. One read light wood at ``light_ball`` only (the
    model under ``ball``) need be half as much darker (``odd_light_unsure``): an empty
    hollow in stained balls' shade, its wood reddened by their bounce light, looks so
    too. Nor is a ball read stained that is no
    redder (red share) than the median of the frame's balls read light wood by
    ``stained_redder`` and lighter than its fellows by ``stained_lighter``:
    shade darkens a light wooden ball into stained wood's band and keeps its tint, and in
    the same light a stained ball would be darker still (glossy stained wood, path traced,
    is no redder than light wood, so that alone tells nothing). For the
    same reason a ball read stained whose tint lies within ``light_near`` of the frame's
    light balls' (:func:`_lit_tint`; those above the base, ``upper``, count when read at
    ``light_ball``) and ``light_tint`` times farther from its fellows' is unknown, or
    ``lit_tint`` times where its brightest tenth is above ``lit_top``: lit so far, stained
    wood would show its own tint. The plate's wood can stand in for the light balls' (none
    need be read): a ball read stained ``plate_lighter`` lighter than its fellows whose tint
    lies ``plate_tint`` times farther from theirs than from the plate's is unknown, and so
    is one ``plate_near[0]`` lighter whose tint lies ``plate_near[1]`` times as far. A ball
    read stained whose level lies nearer the frame's light balls' than its fellows'
    (``level_near``) is unknown too: a webcam that reddens light wood leaves it only its
    level to tell by. Nor is one in view enough to be judged so, both lighter than what lies
    just outside its outline and lighter than its fellows (``stained_beside``): shade darkens
    stained wood below the wood round it and below the frame's other stained balls, while a
    light wooden ball in the pyramid's shade faces more of the sky than the shaded wood at
    its foot.

    A ball read stained under P(ball) ``ball`` (at ``stained_ball``) is ``?`` unless the
    frame has balls read stained at ``ball`` and it lies no more than
    ``stained_unsure_lighter`` lighter than their median: the model less sure, its level
    must agree with theirs too.

    A ball the rules doubt judges no other, and the balls left are judged again, each
    against ``odd_wood_again`` or more fellows left: light wooden balls read stained pull
    the stained balls' medians towards their own, so one doubted can unmask the next. Where
    they are many, no median is left to unmask them by: the balls read stained that form a
    group of their own, less red and lighter than the rest, are unknown as well
    (:func:`stained_split`, ``stained_split``)."""
    wooden = {i: r for i, r in readings.items() if r.code in "LD" and r.colour}
    out = dict(readings)
    lit = _lit_tint(readings, th, upper)
    split = stained_split(wooden, lit, th)  # of all the frame's wood, before any is doubted
    judges = {i: r for i, r in wooden.items() if _judges(r, th)}
    doubts = _odd_wood_pass(wooden, judges, lit, th)
    while doubts:
        out.update(doubts)
        for i in doubts:
            del wooden[i]
            judges.pop(i, None)
        again = {i: r for i, r in wooden.items() if len(_fellows(r, i, judges)) >= th.odd_wood_again}
        doubts = _odd_wood_pass(again, judges, lit, th)
    out.update({i: r for i, r in split.items() if out[i].code == "D"})
    return out


def stained_split(wooden: dict[int, Reading], lit: np.ndarray | None, th: Thresholds) -> dict[int, Reading]:
    """The balls of ``wooden`` read stained that form a group apart from the frame's other
    such balls, less red and lighter (``th.stained_split``): unknown, as light wooden balls
    in shade. The two groups are those a threshold on red (log red/green) parts best, as
    Otsu's threshold parts a histogram: a split that measures the less red group against
    the rest, rather than each ball against a median the group itself has moved. A ball of
    the group whose level lies nearer the other group's than its own keeps its reading."""
    stained = sorted((r.colour[2], i) for i, r in wooden.items() if r.code == "D")
    if len(stained) < 3:
        return {}
    reds = [red for red, _ in stained]
    n, total, below = len(reds), sum(reds), list(itertools.accumulate(reds))  # running sums: the means cheaply
    k = max(range(1, n), key=lambda k: k * (n - k) * (below[k - 1] / k - (total - below[k - 1]) / (n - k)) ** 2)
    lo, hi = [wooden[i] for _, i in stained[:k]], [wooden[i] for _, i in stained[k:]]
    gap, apart, lighter, near = th.stained_split
    lo_red, hi_red = statistics.median(reds[:k]), statistics.median(reds[k:])
    spread = max(statistics.median(abs(red - lo_red) for red in reds[:k]),
                 statistics.median(abs(red - hi_red) for red in reds[k:]), 0.02)
    lo_level, hi_level = (statistics.median(r.colour[0] for r in group) for group in (lo, hi))
    level = lo_level - hi_level
    if reds[k] - reds[k - 1] < gap or hi_red - lo_red < apart * spread or level < lighter or len(hi) < 2:
        return {}
    if lit is None:
        if len(lo) < 2:
            return {}
        why = "no light ball read to hold them to"
    else:
        lo_lit, hi_lit = (float(np.hypot(*(median_tint([r.colour[2:4] for r in group]) - lit)))
                          for group in (lo, hi))
        if lo_lit > near * hi_lit:
            return {}
        why = f"their tint {lo_lit:.2f} from this frame's light balls' and the others' {hi_lit:.2f}"
    note = (f"dark wood?, but one of {len(lo)} balls read dark wood that lie apart from the other {len(hi)}: "
            f"less red (red {lo_red:.2f} against {hi_red:.2f}, {reds[k] - reds[k - 1]:.2f} between) and "
            f"{level:.2f} lighter, {why}: light wooden balls in shade")
    middle = (lo_level + hi_level) / 2  # a ball of the group as dark as the others is stained wood of a lighter tint
    return {i: _colour_doubt(wooden[i], note, th) for _, i in stained[:k] if wooden[i].colour[0] >= middle}


def _odd_wood_pass(wooden: dict[int, Reading], judges: dict[int, Reading], lit: np.ndarray | None,
                   th: Thresholds) -> dict[int, Reading]:
    """One pass of :func:`odd_wood`'s rules over ``wooden``: the readings it doubts."""
    out: dict[int, Reading] = {}
    lights = [r.colour[4] for r in judges.values() if r.code == "L"]
    light_red = statistics.median(lights) if lights else None
    for i, r in wooden.items():
        apart = _against_fellows(r, i, judges)
        if r.code == "D" and r.p[1] < th.ball and (apart is None or -apart[1] > th.stained_unsure_lighter):
            out[i] = _colour_doubt(r, f"dark wood?, at P(ball) {r.p[1]:.3f} only, and " + (
                "no other ball read dark wood to hold it to" if apart is None else
                f"{-apart[1]:.2f} lighter than its other dark wooden balls") + ": may be light wood in shade", th)
            continue
        if (r.code == "D" and light_red is not None and r.colour[4] < light_red + th.stained_redder
                and apart is not None and -apart[1] >= th.stained_lighter):
            out[i] = _colour_doubt(r, f"dark wood?, but red {r.colour[4]:.2f}, no redder than this frame's balls "
                                   f"read light wood ({light_red:.2f}), and {-apart[1]:.2f} lighter than its other "
                                   "dark wooden balls: a light wooden ball in shade keeps their tint", th)
            continue
        near = _tints_apart(r, i, judges, lit) if r.code == "D" else None
        if near is not None and near[0] < th.light_near and (
                near[1] > th.light_tint * near[0] or (r.colour[1] > th.lit_top and near[1] > th.lit_tint * near[0])):
            out[i] = _colour_doubt(r, f"dark wood?, but its tint is {near[0]:.2f} from this frame's light balls' "
                                   f"and {near[1]:.2f} from its other dark wooden balls' (its brightest tenth at "
                                   f"{r.colour[1]:.2f}): a light wooden ball in shade keeps its tint", th)
            continue
        levels = _levels_apart(r, i, judges) if r.code == "D" else None
        if levels is not None and levels[0] < th.level_near * levels[1]:
            out[i] = _colour_doubt(r, f"dark wood?, but its level {r.colour[0]:.2f} lies {levels[0]:.2f} from "
                                   f"this frame's light wooden balls' and {levels[1]:.2f} from its other dark wooden "
                                   "balls': a light wooden ball in shade", th)
            continue
        bare = _tints_apart(r, i, judges, PLATE_TINT) if r.code == "D" and apart is not None else None
        if bare is not None and any(-apart[1] >= lighter and bare[1] >= tint * bare[0] for lighter, tint in
                                    ((th.plate_lighter, th.plate_tint), th.plate_near)):
            out[i] = _colour_doubt(r, f"dark wood?, but {-apart[1]:.2f} lighter than its other dark wooden balls, "
                                   f"and its tint {bare[0]:.2f} from the plate's and {bare[1]:.2f} from theirs: a "
                                   "light wooden ball in shade keeps its tint", th)
            continue
        if apart is None:
            continue
        # towards the other wood: light wood read redder and darker, dark wood less red and lighter
        sign = 1.0 if r.code == "L" else -1.0
        redder, darker = sign * apart[0], sign * apart[1]
        unsure = r.code == "L" and r.p[1] < th.ball  # read at light_ball: held to its fellows more closely
        need = th.odd_light_unsure if unsure else th.odd_light if r.code == "L" else th.odd_dark
        if (redder >= need[0] and darker >= need[1]) or (r.code == "D" and any(
                redder >= less and darker >= lighter for less, lighter in (th.odd_dark_lit, th.odd_dark_far))):
            if r.code != "L":
                why = (f"dark wood?, but {redder:.2f} less red and {darker:.2f} lighter than this frame's others: "
                       "may be light wood")
            elif unsure:
                why = (f"light wood?, but {redder:.2f} redder and {darker:.2f} darker than this frame's others: at "
                       f"P(ball) {r.p[1]:.3f}, may be stained wood or a hollow in their shade")
            else:
                why = (f"light wood?, but {redder:.2f} redder and {darker:.2f} darker than this frame's others: "
                       "may be stained wood")
            out[i] = _colour_doubt(r, why, th)
            continue
        # ``bare[1]``: its tint's distance from its fellows' median tint
        if bare is not None and -apart[1] >= th.odd_dark_tint[0] and bare[1] >= th.odd_dark_tint[1]:
            out[i] = _colour_doubt(r, f"dark wood?, but {-apart[1]:.2f} lighter than its other dark wooden balls, "
                                   f"and its tint {bare[1]:.2f} from theirs: may be light wood", th)
            continue
        beside = r.colour[0] - r.colour[5] if r.code == "D" and len(r.colour) > 5 else math.nan
        if (beside > th.stained_beside[0] and -apart[1] > th.stained_beside[1]  # a NaN beside is never more
                and r.seen >= th.stained_beside[2]):
            out[i] = _colour_doubt(r, f"dark wood?, but {beside:.2f} lighter than what lies just outside it (level "
                                   f"{r.colour[5]:.2f}) and {-apart[1]:.2f} lighter than its other dark wooden balls: "
                                   "a light wooden ball in shade", th)
    return out


def odd_red(readings: dict[int, Reading], th: Thresholds, base: Collection[int] = ()) -> dict[int, Reading]:
    """A ball read red, seen little, that is both darker and less red than this frame's
    other balls read red is unknown: where part of a black ball shows among red ones, the
    blur and JPEG's coarse colour mix their red into it, and it stays darker than they are.
    Shade makes a red ball darker, but leaves it as red. The fellows it is held against are
    balls read red at P(ball) ``th.ball``, and those of ``base`` (the base level's places)
    read at ``th.dark_ball``: no empty hollow is red, while a place above the base read red
    at less may be the red balls below it seen through it (4400157 through a webcam: two
    such places moved the median a black sliver was held against, and it was read red)."""
    reds = {i: r for i, r in readings.items() if r.code == RED and r.colour}
    judges = {i: r for i, r in reds.items() if not r.p[1] < (th.dark_ball if i in base else th.ball)}
    out = dict(readings)
    for i, r in reds.items():
        apart = _against_fellows(r, i, judges) if r.seen < th.odd_red_seen else None
        if apart is None:
            continue
        less, darker = -apart[0], apart[1]
        if darker >= th.odd_red[0] and less >= th.odd_red[1]:
            out[i] = _colour_doubt(r, f"red?, {r.seen:.0%} in view, {darker:.2f} darker and {less:.2f} less red "
                                   "than this frame's other red balls: may be a black ball taking on their red", th)
    return out


def _lit_tint(readings: dict[int, Reading], th: Thresholds, upper: Collection[int] = ()) -> np.ndarray | None:
    """The median tint (log red/green and blue/green, relative to the plate's) of this
    frame's balls read at P(ball) ``th.ball`` as light as light wood is (``th.lit_wood``),
    whatever their colour was read as (with colours far from the defaults, light wood can
    fall outside its band of red and be read unknown), and of the balls above the base
    (positions ``upper``) read light wood at ``th.light_ball``: no hollow lies there to be
    taken for one, and where the base's light balls all sit in the pyramid's shade they may
    be the frame's only light wood in the open (fresh 8900001). So do base balls read light
    wood (at ``th.light_ball``, then) with ``th.lit_seen`` of them in view: a hollow read
    light wood lies among balls that hide some of it. None when there are none."""
    lit = [r.colour[2:4] for i, r in readings.items() if r.colour and r.colour[0] > th.lit_wood
           and (_judges(r, th) or (r.code == "L" and (i in upper or r.seen >= th.lit_seen)))]
    return median_tint(lit) if lit else None


def _tints_apart(r: Reading, i: int, judges: dict[int, Reading],
                 ref: np.ndarray | tuple[float, float] | None) -> tuple[float, float] | None:
    """How far ball ``r``'s tint lies from ``ref`` (a tint relative to the plate's: the light
    balls', :func:`_lit_tint`, or :data:`PLATE_TINT`) and from the median of the other balls
    of ``judges`` read in its colour, or None when either is missing."""
    fellows = _fellows(r, i, judges)
    if ref is None or not fellows:
        return None
    tint = np.array(r.colour[2:4])
    usual = median_tint([c[2:4] for c in fellows])
    return float(np.hypot(*(tint - ref))), float(np.hypot(*(tint - usual)))


def _levels_apart(r: Reading, i: int, judges: dict[int, Reading]) -> tuple[float, float] | None:
    """How far ball ``r``'s level (log) lies from the median of the other balls of
    ``judges`` read light wood and from that of those read in its colour, or None unless
    two of each judge: one ball is no measure of a frame's light."""
    lights = [f.colour[0] for j, f in judges.items() if j != i and f.code == "L"]
    fellows = [c[0] for c in _fellows(r, i, judges)]
    if len(lights) < 2 or len(fellows) < 2:
        return None
    level = r.colour[0]
    return abs(level - statistics.median(lights)), abs(level - statistics.median(fellows))


def median_tint(tints: Sequence[Sequence[float]]) -> np.ndarray:
    """The median of a few tints (log red/green and blue/green) per component: what
    ``np.median(tints, axis=0)`` gives, at a tenth of its cost on a frame's few dozen balls
    (it runs for every ball read wood)."""
    return np.array([statistics.median(t[0] for t in tints), statistics.median(t[1] for t in tints)])


def _sure(r: Reading, th: Thresholds) -> bool:
    """Whether the model is sure of a ball at ``r`` (P(ball) ``th.ball``): a doubt about its
    colour alone then leaves a ball there (``Reading.colour_only``)."""
    return r.p[1] >= th.ball


def _colour_doubt(r: Reading, why: str, th: Thresholds) -> Reading:
    """Ball reading ``r`` made unknown for ``why``, a doubt about its colour: one the model
    is sure of (:func:`_sure`) stays a ball to the support rules (``Reading.colour_only``)."""
    return Reading("?", why, r.p, r.shares, seen=r.seen, colour_only=_sure(r, th))


def _judges(r: Reading, th: Thresholds) -> bool:
    """Whether ball reading ``r`` may judge the frame's other balls of its colour: read at
    P(ball) ``th.ball`` (or with no probabilities). One read at ``dark_ball`` or
    ``light_ball`` is judged, but judges none."""
    return not r.p[1] < th.ball


def _fellows(r: Reading, i: int, judges: dict[int, Reading]) -> list[tuple[float, ...]]:
    """The colour measures of the balls of ``judges`` read in ball ``r``'s colour, but for
    ``r`` itself (position ``i``)."""
    return [f.colour for j, f in judges.items() if j != i and f.code == r.code]


def _against_fellows(r: Reading, i: int, judges: dict[int, Reading]) -> tuple[float, float] | None:
    """How much redder (log red/green) and darker (log level) ball ``r`` (position ``i``) is
    than the median of the other balls of ``judges`` read in its colour, or None when there
    are none. (Plain medians: a few dozen balls at most.) The caller says which balls may
    judge: a ball it leaves out is still judged, but judges none."""
    fellows = _fellows(r, i, judges)
    if not fellows:
        return None
    return (r.colour[2] - statistics.median(c[2] for c in fellows),
            statistics.median(c[0] for c in fellows) - r.colour[0])
