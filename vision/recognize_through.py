"""What an empty place above the base would show through it, and the rules that rest on
that (vision/recognize_balls.py runs them after the top-down reading).

An empty place above the base is read only when something read under it is seen through
it (:func:`unconfirmed`). A ball read below counts as seen there only if it also looks as
its reading says beside the place: the pixels where it shows through an empty place are
the very pixels a ball there would fill, so a reading made from them alone cannot confirm
the place; nor does one that looks there more like the frame's balls of another colour (a
ball of that colour at the place would). Nor may the balls it would show look there unlike
themselves beside it (:func:`unlike_beside`), nor one of them look there as the balls of
the colour that confirms the place do (:func:`_hidden_as`). A ball read there must not
show the plate's own tint where it would show the plate between the balls below
(:func:`plate_between`). And a ball read partly through a place first read empty and
later doubted, by these rules or by the support rules, must look as its reading says
elsewhere too (:func:`beneath_doubt`): it was read as if nothing could stand in front of it
there.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .recognize_colour import distance, quantile
from .recognize_features import DARK, Colours, in_view, percentiles
from .recognize_fellows import _judges
from .recognize_pyramid import Geometry, Layout
from .recognize_reading import LIGHT, STAINED

if TYPE_CHECKING:
    from .recognize_reading import Reading
    from .recognize_thresholds import Thresholds


class Sight:
    """Every position's body samples as a rule after the top-down pass sees them: which are
    in view (hidden by no ball that may be present, ``maybe`` as that pass left it) and
    their colours (positions x samples). Worked out for all positions at once, on first
    use: a rule that looks at a few balls costs as much as one that looks at many."""

    def __init__(self, geo: Geometry, lin: np.ndarray, inside: np.ndarray, maybe: np.ndarray, plate: np.ndarray,
                 colours: Colours | None = None):
        """``colours``: :attr:`colours`, if the caller has worked them out already."""
        self.geo, self.lin, self.inside, self.maybe, self.plate = geo, lin, inside, maybe, plate
        if colours is not None:
            self.__dict__["colours"] = colours  # what the cached property would work out

    @cached_property
    def view(self) -> np.ndarray:
        return in_view(self.geo, np.arange(len(self.geo.body)), self.inside, self.maybe)

    @cached_property
    def colours(self) -> Colours:
        return Colours.of(self.lin[self.geo.body], self.plate)

    def own(self, j: int) -> tuple[np.ndarray, Colours]:
        """Ball ``j``'s samples in view and their colours."""
        return self.view[j], self.colours.at(j)


def _doubt(r: Reading, why: str) -> Reading:
    """``r`` made unknown for ``why``, keeping the model's view of it."""
    return replace(r, code="?", why=why, colour=(), glimpsed=False, colour_only=False)


def unconfirmed(layout: Layout, geo: Geometry, readings: dict[int, Reading], lin: np.ndarray, inside: np.ndarray,
                maybe: np.ndarray, plate: np.ndarray, th: Thresholds,
                sight: Sight | None = None) -> dict[int, Reading]:
    """An empty place above the base is read only when what the view meets through it is seen:
    a place under it read empty, or a ball read among the nearest balls its samples would
    show (:attr:`Geometry.through`), met by a group of them (``th.through_count``: one
    sample confirmed balls read empty on fresh frames), that looks there as it does itself
    (median brightness within ``th.seen_through_level``, chromaticity within
    ``th.seen_through_chroma``), and looks so beside the place as well. Otherwise the place
    may hold a ball in shadow whose shading the model took for the balls below showing
    through, a ball that also hides them from their own reading: on three sets of 3,000
    frames, every ball above the base read empty (but those resting on one) showed no ball
    read through it, bar one that showed a white ball below it as black; under a soft,
    bouncing light a white ball tinted by the plate was read empty, and the red ball below
    it read white from the white ball's own pixels confirmed it. Nor may the samples that
    would meet no ball (the plate between the balls below) look coloured
    (:func:`_gap_colour`): a red ball read empty was confirmed by the red ball below it. A
    place read empty under ``th.empty`` (on level 3 or 4, ``th.upper_empty``) that looks as
    a ball seen through it is read is unknown: a ball of that colour there would look so
    (path traced 7800113 3a2, a red level-3 ball read empty at P(empty) 0.976 on the red
    ball 2a2, and 4a1 emptied on it). Where the balls seen through it are all of one colour,
    a ball of that colour there would look much the same, so a place resting on it read
    unknown where the model leans to a ball (:func:`_leaning_on`) leaves it unknown (a ball
    read there is the support rules' contradiction already, :func:`settle`): a light wooden
    level-2 ball read empty at P(empty) 0.994 was confirmed by the light wooden ball below
    it, and the ball on it, at P(ball) 0.74, was emptied. Level by level from the bottom, so
    that the doubt climbs to the places resting on one. Whatever confirms it, two or more
    balls it would show that look there unlike themselves beside it (:func:`unlike_beside`)
    leave it unknown: a black level-2 ball was confirmed by the black ball below it, while
    the red and white balls it would also show looked black there. Nor do balls seen through
    it on fewer than ``th.through_few`` of its samples confirm it where more than
    ``th.through_veiled`` times as many would meet lower balls read unknown: those few may
    be a ball's edge, and the rest a ball of its own, hiding the ball under it from its
    reading (a light wooden level-2 ball read empty at P(empty) 1.00 was confirmed by 5
    samples on the stained ball beside the one under it, where its own shaded foot passed
    for stained wood), nor on fewer than ``th.through_few_alike`` where one of those balls
    looks as its reading says on all the place's samples: a ball of its colour at the place
    would look so (a stained level-2 ball read empty at P(empty) 1.00 was confirmed by its
    own pixels, taken for the stained ball below it seen through it). Nor does a white or
    light wooden ball read at ``th.light_ball`` only (:func:`_light_unsure`) where the place
    as a whole looks as it is read: a white base ball read so confirmed the white ball above
    it empty (2600473 under a soft light). Nor does a ball that looks there nearer the
    frame's balls read in another colour than its own reading (:func:`_shows_itself`): a
    ball of that colour at the place would look so. The two woods lie about 2 apart in
    brightness, within ``th.seen_through_level``: fresh path traced 8400046 (Pylos, through
    JPEG and a colour cast), a stained level-2 ball read empty at P(empty) 0.99 was
    confirmed by the two light wooden balls under it, which looked there 1.8-1.9 darker than
    beside it, as stained wood. And where the place as a whole looks as a ball seen through
    it, one lower ball of another colour that looks there as the frame's balls of that
    colour do, not as itself, on ``th.through_few`` of its samples or more, leaves it
    unknown (:func:`_hidden_as`): fresh path traced 8400097 (Sparks, through a webcam), a
    black level-2 ball read empty at P(empty) 1.00 was confirmed by the three black balls
    under it, while the white ball 1d3 under it too looked there 2.45 darker than its
    reading, as the black balls do. Unlike :func:`unlike_beside`, one ball is enough here:
    the place's own look already speaks for the ball. A ball read stained at
    ``th.stained_ball`` only counts as unknown here (:func:`_stained_unsure`)."""
    out = dict(readings)
    sight = sight or Sight(geo, lin, inside, maybe, plate)  # the frame's, when the caller has one
    fellows = _fellow_colours(readings, th)
    for i in sorted(out, key=lambda j: layout.levels[j]):
        sup = layout.supports[i]
        if not sup or out[i].code != "." or any(out[j].code == "." for j in sup):
            continue
        seen, top, nearest = through(layout, geo, i, inside, maybe, sight.view[i])
        met = np.flatnonzero(nearest.sum(axis=0) >= th.through_count)
        col = sight.colours.at(i).at(seen)
        whole = _median_colour(col, np.ones(len(col.level), dtype=bool))  # the place as a whole, for three rules
        shown = [int(j) for j in met if out[int(j)].code not in "?." and not _stained_unsure(out[int(j)], th)]
        if any(_light_unsure(out[j], th) for j in shown):  # the place itself may be such a ball
            shown = [j for j in shown if not (_light_unsure(out[j], th) and _as_read(out[j], whole, th))]
        alike = (next((j for j in shown if _as_read(out[j], whole, th)), None)
                 if out[i].p[0] < th.empty else None)
        if alike is not None:  # read empty under level 2's bar (``upper_empty``)
            out[i] = _doubt(out[i], f"empty?, at P(empty) {out[i].p[0]:.3f} only, and it looks as "
                            f"{layout.names[alike]} ({out[alike].code}) seen through it: a ball of that colour "
                            "here would look so")
            continue
        why = "empty?, nothing it would show is seen there"
        gap = _gap_colour(col, top == 0, th)
        if gap is not None:
            why = f"empty?, the gap between the balls below looks coloured ({gap:.1f})"
        elif len(unlike := unlike_beside(geo, i, met, nearest, col, th, sight)) >= th.unlike_balls:
            why = ("empty?, " + " and ".join(layout.names[j] for j in unlike) + " would show through it, but look "
                   "there unlike themselves beside it: a ball here would hide them")
        else:
            seen_there = (j for j in shown if _shows_itself(out[j], col, nearest[:, j], fellows, th)
                          and _itself_beside(geo, j, [i], out[j], th, sight.own(j)))
            first = next(seen_there, None)  # lazily: most places need one ball seen, and no more
            hidden = (_hidden_as(geo, i, met, nearest, col, whole, out, first, fellows, th, sight)
                      if first is not None else None)
            if hidden is not None:
                why = (f"empty?, it looks as {layout.names[first]} seen through it ({out[first].code}), but "
                       f"{layout.names[hidden]} ({out[hidden].code}) looks there as this frame's {out[first].code} "
                       "balls do, not as itself beside it: such a ball here would hide it")
            elif first is not None:
                unknown = [int(j) for j in met if out[int(j)].code == "?" or _stained_unsure(out[int(j)], th)]
                lean = _leaning_on(layout, out, i)
                if not unknown and lean is None:
                    continue
                balls = [first, *seen_there]
                few = _few_before_unknown(layout, out, balls, unknown, nearest, whole, th)
                if few is not None:
                    why = few
                elif lean is None or any(out[j].code != out[first].code for j in balls):
                    continue
                else:
                    why = (f"empty?, the balls seen through it are all read {out[first].code}, as a ball here "
                           f"would look, and a ball may rest on it (P(ball) {lean:.2f})")
        out[i] = _doubt(out[i], why)
    return out


def plate_between(layout: Layout, geo: Geometry, readings: dict[int, Reading], lin: np.ndarray, inside: np.ndarray,
                  maybe: np.ndarray, plate: np.ndarray, th: Thresholds,
                  colours: Colours | None = None) -> dict[int, Reading]:
    """A ball above the base is unknown where its samples that would meet no lower ball were
    the place empty (the plate between the balls below; ``th.gap_samples`` or more, their
    median brighter than ``th.unlike_dark``, so that it has a tint) show the plate's own
    tint (within ``th.gap_plate``) and lie ``th.gap_fellows`` or more from the tint of the
    frame's other balls read in its colour: there the place shows the plate in the shade
    of the balls below, as it would empty. Fresh 5100281 2b2 (far colours): an empty place
    over three black balls read black at P(ball) 0.9998, its gap 0.12 from the plate's tint
    and 1.43 from the black balls'. Not for the woods (Pylos): light wood is the plate's own.
    ``colours``: every position's body samples as :class:`Colours`, if worked out already."""
    out = dict(readings)
    balls = np.array([i for i, r in readings.items()
                      if layout.levels[i] > 1 and r.code not in "?.#LD" and r.colour], dtype=np.intp)
    if not len(balls):
        return out
    # all at once: per ball, the samples in view that would meet no ball that may be present,
    # and their median brightness and chromaticity
    gaps = in_view(geo, balls, inside, maybe) & ~(geo.through[balls] & maybe).any(axis=2)
    col = colours.at(balls) if colours is not None else Colours.of(lin[geo.body[balls]], plate)
    levels, rgs, bgs = percentiles(np.stack([col.level, col.rg, col.bg]), gaps, [50])[0]
    near = distance(rgs, bgs)
    may = (gaps.sum(axis=1) >= th.gap_samples) & (levels > th.unlike_dark) & (near < th.gap_plate)
    for k in np.flatnonzero(may):
        i, rg, bg = int(balls[k]), float(rgs[k]), float(bgs[k])
        r = readings[i]
        fellows = [f.colour for j, f in readings.items() if j != i and f.code == r.code and f.colour]
        if not fellows:
            continue
        far = math.hypot(rg - statistics.median(c[2] for c in fellows), bg - statistics.median(c[3] for c in fellows))
        if far >= th.gap_fellows:
            out[i] = _doubt(r, f"ball?, where it would show the plate between the balls below it shows the plate's "
                               f"tint ({near[k]:.2f} from it, {far:.2f} from this frame's other balls read {r.code})")
    return out


def _light_unsure(r: Reading, th: Thresholds) -> bool:
    """Whether ``r`` is a white or light wooden ball read at ``th.light_ball`` only (under
    ``th.ball``): as it judges no other wood, it confirms no empty place above it that
    looks as it is read (a ball of its colour there would look so)."""
    return r.code in LIGHT and r.p[1] < th.ball and bool(r.colour)


def _stained_unsure(r: Reading, th: Thresholds) -> bool:
    """Whether ``r`` is a ball read stained at ``th.stained_ball`` only (under ``th.ball``):
    to an empty place above it, it counts as unknown. A stained ball there would look as it
    does through the place, and glossy stained wood leaves the model unsure of both (fresh
    path traced 7600096 through a webcam: 1d3, read stained at P(ball) 0.95, let 1c3 confirm
    2c2, a stained ball, empty)."""
    return r.code == STAINED and r.p[1] < th.ball


def _few_before_unknown(layout: Layout, readings: dict[int, Reading], balls: list[int], unknown: list[int],
                        nearest: np.ndarray, whole: tuple[float, float, float], th: Thresholds) -> str | None:
    """Why the ``balls`` seen through a place do not confirm it empty, being seen on fewer
    than ``th.through_few`` of its samples (``th.through_few_alike`` where the place as a
    whole, its median colour ``whole``, looks as one of them is read: it may be that ball)
    where more than ``th.through_veiled`` times as many would meet the ``unknown`` balls
    (``nearest``: :func:`through`), or None."""
    if not unknown:
        return None
    alike = any(_as_read(readings[j], whole, th) for j in balls)
    few = th.through_few_alike if alike else th.through_few
    shows = int(nearest[:, balls].any(axis=1).sum())
    hid = int(nearest[:, unknown].any(axis=1).sum())
    if shows >= few or hid <= th.through_veiled * shows:
        return None
    fill = "fills" if len(balls) == 1 else "fill"
    names = [layout.names[j] + (f" (stained at P(ball) {readings[j].p[1]:.2f} only)"
                                if _stained_unsure(readings[j], th) else "") for j in unknown]
    return (f"empty?, {' and '.join(layout.names[j] for j in balls)} seen through it {fill} {shows} of its "
            f"samples, but {hid} would meet {' and '.join(names)}, read unknown")


def _leaning_on(layout: Layout, readings: dict[int, Reading], i: int) -> float | None:
    """The highest P(ball) among places resting on ``i`` read unknown where the model leans
    to a ball (over P(empty)), or None."""
    return max((r.p[1] for r in (readings[k] for k in layout.resting[i]) if r.code == "?" and r.p[1] > r.p[0]),
               default=None)


def beneath_doubt(layout: Layout, geo: Geometry, readings: dict[int, Reading], lin: np.ndarray, inside: np.ndarray,
                  maybe: np.ndarray, plate: np.ndarray, th: Thresholds,
                  sight: Sight | None = None) -> dict[int, Reading]:
    """A ball read by colour with samples that a place read empty in the top-down pass
    (``maybe`` false) would hide, where that place is no longer read empty, is unknown
    unless it looks as its reading says on its other samples: read as if nothing stood in
    front of it there, it may have been read from the upper ball's pixels. With fewer than
    ``th.min_samples`` other samples it is unknown as a ball seen too little is
    (``glimpsed``: a ball read resting on it stays read). Run again after the support
    rules, where they take an empty reading back (vision/recognize_balls.py)."""
    doubted = [i for i in range(len(layout.names)) if not maybe[i] and readings[i].code != "."]
    if not doubted:
        return readings
    out = dict(readings)
    sight = sight or Sight(geo, lin, inside, maybe, plate)
    for j, r in readings.items():
        if not r.colour or r.code in "?.#":
            continue
        over = [i for i in doubted if layout.levels[i] > layout.levels[j]]
        if not over:
            continue
        view, col = sight.own(j)
        if not (view & geo.hidden[j][:, over].any(axis=1)).any():
            continue
        names = ", ".join(layout.names[i] for i in over)
        beside = _beside(geo, j, over, view, th)
        if beside is None:  # seen too little with a ball there: as the top-down pass leaves such a ball
            out[j] = replace(_doubt(r, f"ball?, read mostly where a ball at {names} would be: too little of it "
                                       "in view beside it"), glimpsed=True)
        elif not _looks_itself(r, col, beside, th):
            out[j] = _doubt(r, f"ball?, read partly where a ball at {names} would be, and not as its reading "
                               "says elsewhere")
    return out


def _itself_beside(geo: Geometry, j: int, places: list[int], r: Reading, th: Thresholds,
                   samples: tuple[np.ndarray, Colours]) -> bool:
    """Whether ball ``j`` looks as its reading ``r`` says on its ``samples`` in view that a
    ball at ``places`` would not hide (at least ``th.min_samples`` of them)."""
    view, col = samples
    beside = _beside(geo, j, places, view, th)
    return beside is not None and _looks_itself(r, col, beside, th)


def _beside(geo: Geometry, j: int, places: list[int], view: np.ndarray, th: Thresholds) -> np.ndarray | None:
    """Ball ``j``'s samples in ``view`` that a ball at ``places`` would not hide, or None
    when fewer than ``th.min_samples``: too few to say how it looks beside them."""
    beside = view & ~geo.hidden[j][:, places].any(axis=1)
    return beside if int(beside.sum()) >= th.min_samples else None


def through(layout: Layout, geo: Geometry, i: int, inside: np.ndarray, maybe: np.ndarray,
            seen: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Place ``i``'s samples in view (``seen``, when known already), and for each of those
    the level of the nearest balls that may be present the view would meet through it
    were it empty (0: none, the plate between balls) and which they are (samples x
    positions)."""
    if seen is None:
        seen = in_view(geo, np.array([i]), inside, maybe)[0]
    met = geo.through[i][seen] & maybe
    top = np.where(met, layout.levels, 0).max(axis=1, initial=0)
    return seen, top, met & (layout.levels == top[:, None])


def _gap_colour(col: Colours, gap: np.ndarray, th: Thresholds) -> float | None:
    """The median chromaticity's distance from the plate's where the view through an empty
    place would meet no ball (the plate between the balls), when it is far enough to deny it."""
    if gap.sum() < th.gap_samples or float(quantile(col.level[gap], 50)) < DARK:
        return None
    far = math.hypot(float(quantile(col.rg[gap], 50)), float(quantile(col.bg[gap], 50)))
    return far if far > th.gap_chroma else None


def unlike_beside(geo: Geometry, i: int, met: np.ndarray, nearest: np.ndarray, col: Colours, th: Thresholds,
                  sight: Sight) -> list[int]:
    """The lower balls met through place ``i`` (``met``; their samples ``nearest``, colours
    ``col``) that look there unlike themselves beside the place (on ``th.min_samples`` or
    more of their own samples a ball at ``i`` would not hide), up to ``th.unlike_balls``:
    brightness or chromaticity (where both are bright enough to have one) too far apart.
    Were the place empty, each would show through it as it looks beside it, but for a
    shadow on one. The medians of all the balls are taken at once."""
    balls, besides = [], []
    for j in met.tolist():
        beside = _beside(geo, j, [i], sight.view[j], th)
        if beside is not None:
            balls.append(j)
            besides.append(beside)
    if not balls:
        return []
    cols = sight.colours
    here = np.stack([col.level, col.rg, col.bg])[:, None, :]
    # level, rg, bg (rows) per ball (columns): through place i, and beside it
    a_all = percentiles(np.broadcast_to(here, (3, len(balls), here.shape[2])), nearest[:, balls].T, [50])[0]
    b_all = percentiles(np.stack([cols.level[balls], cols.rg[balls], cols.bg[balls]]), np.stack(besides), [50])[0]
    out: list[int] = []
    for j, a, b in zip(balls, a_all.T.tolist(), b_all.T.tolist()):
        chroma = math.hypot(a[1] - b[1], a[2] - b[2])
        if abs(a[0] - b[0]) > th.unlike_level or (min(a[0], b[0]) > th.unlike_dark and chroma > th.unlike_chroma):
            out.append(j)
            if len(out) >= th.unlike_balls:
                break
    return out


def _median_colour(col: Colours, where: np.ndarray) -> tuple[float, float, float]:
    """The median brightness and chromaticity (log red/green, blue/green) of ``col`` at
    the samples ``where``."""
    level, rg, bg = (float(v) for v in quantile(np.stack([col.level[where], col.rg[where], col.bg[where]], axis=1), 50))
    return level, rg, bg


def shows_below(readings: dict[int, Reading], i: int, nearest: np.ndarray, sight: Sight,
                th: Thresholds) -> np.ndarray:
    """Place ``i``'s samples in view (``nearest``: the lower balls each would meet were it
    empty, :func:`through`) that would meet a ball read by colour and, as a group, look
    as that ball's reading says (:func:`_looks_itself`): what the place shows there is
    what it would show empty."""
    seen, col = sight.own(i)
    col = col.at(seen)
    out = np.zeros(len(nearest), dtype=bool)
    for j in np.flatnonzero(nearest.any(axis=0)):
        if _looks_itself(readings[int(j)], col, nearest[:, j], th):
            out |= nearest[:, j]
    return out


def _looks_itself(r: Reading, col: Colours, where: np.ndarray, th: Thresholds) -> bool:
    """Whether a ball read by colour looks at the samples ``where`` as its reading says."""
    return bool(r.colour) and _as_read(r, _median_colour(col, where), th)


def _fellow_colours(readings: dict[int, Reading], th: Thresholds) -> dict[str, tuple[float, float, float]]:
    """Per colour read, the median brightness and chromaticity (log red/green, blue/green)
    of the frame's balls read so that may judge their fellows (:func:`_judges`: at P(ball)
    ``th.ball`` or more, or with no probabilities)."""
    seen: dict[str, list[tuple[float, float, float]]] = {}
    for r in readings.values():
        if r.colour and r.code not in "?.#" and _judges(r, th):
            seen.setdefault(r.code, []).append(_own_colour(r))
    return {code: tuple(statistics.median(c[k] for c in cs) for k in range(3))  # type: ignore[misc]
            for code, cs in seen.items()}


def _shows_itself(r: Reading, col: Colours, where: np.ndarray, fellows: dict[str, tuple[float, float, float]],
                  th: Thresholds) -> bool:
    """Whether a ball read by colour looks at the samples ``where`` as its reading says
    (:func:`_as_read`) and nearer its reading than the frame's balls read in any other
    colour (``fellows``: :func:`_fellow_colours`), brightness and chromaticity each in units
    of ``th.seen_through_level`` and ``th.seen_through_chroma``."""
    if not r.colour:
        return False
    seen = _median_colour(col, where)
    if not _as_read(r, seen, th):
        return False
    own = _apart(seen, _own_colour(r), th)
    return all(_apart(seen, c, th) >= own for code, c in fellows.items() if code != r.code)


def _own_colour(r: Reading) -> tuple[float, float, float]:
    """Ball reading ``r``'s brightness and chromaticity, as :func:`_median_colour` gives them."""
    return r.colour[0], r.colour[2], r.colour[3]


def _apart(a: tuple[float, float, float], b: tuple[float, float, float], th: Thresholds) -> float:
    """How far apart two median colours lie, brightness and chromaticity each in units of
    ``th.seen_through_level`` and ``th.seen_through_chroma``."""
    return math.hypot((a[0] - b[0]) / th.seen_through_level,
                      math.hypot(a[1] - b[1], a[2] - b[2]) / th.seen_through_chroma)


def _hidden_as(geo: Geometry, i: int, met: np.ndarray, nearest: np.ndarray, col: Colours,
               whole: tuple[float, float, float], readings: dict[int, Reading], first: int,
               fellows: dict[str, tuple[float, float, float]], th: Thresholds, sight: Sight) -> int | None:
    """A lower ball place ``i`` would show (``met``), read in another colour than ball
    ``first`` seen through it, met by ``th.through_few`` of its samples or more, that looks
    there not as its reading says but nearer the frame's balls read as ``first``, and as
    itself beside the place, where the place as a whole (its median colour ``whole``) looks
    as ``first`` is read: a ball of that colour at the place would look so, and hide it. Or
    None."""
    code = readings[first].code
    like = fellows.get(code)
    if like is None or not _as_read(readings[first], whole, th):
        return None
    for j in met.tolist():
        r = readings[j]
        if not r.colour or r.code in "?.#" or r.code == code:
            continue
        if int(nearest[:, j].sum()) < th.through_few:
            continue
        seen = _median_colour(col, nearest[:, j])
        if (not _as_read(r, seen, th) and _apart(seen, like, th) < _apart(seen, _own_colour(r), th)
                and _itself_beside(geo, j, [i], r, th, sight.own(j))):
            return j
    return None


def looks_itself_not_as(r: Reading, other: Reading, col: Colours, where: np.ndarray, th: Thresholds) -> bool:
    """Whether ball ``r`` looks at the samples ``where`` as its reading says and ``other``
    does not (:func:`_looks_itself` for both, on one median)."""
    if not r.colour:
        return False
    seen = _median_colour(col, where)
    return _as_read(r, seen, th) and not _as_read(other, seen, th)


def _as_read(r: Reading, seen: tuple[float, float, float], th: Thresholds) -> bool:
    """Whether the median brightness and chromaticity ``seen`` are as ``r``'s reading says
    (never, for a reading with no colour: a ball seen too little, or a place read empty)."""
    if not r.colour:
        return False
    level, rg, bg = seen
    return (abs(level - r.colour[0]) <= th.seen_through_level
            and math.hypot(rg - r.colour[2], bg - r.colour[3]) <= th.seen_through_chroma)
