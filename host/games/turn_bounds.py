"""How many more physical steps a pyramid turn in progress needs, at least, before the board
can show some given cells: a lower bound for searches over a turn's states (the referee's
``reaches``) to prune by.

:func:`steps_bound` makes a bound for one board seen; the bound maps a
:class:`~host.games.base.TurnInProgress` to 0 when its board shows the cells, to a number of
steps no descendant showing them can be fewer than away, or to None when none ever can. It
rests on what each step of the step models (pylos_steps.py, sparks_steps.py) can change:

- Pylos: every step puts a ball of the mover on an empty place or lifts one off: one cell
  changes, between empty and the mover's letter. A turn puts at most one ball (the raised one
  or one from the reserve) and lifts at most three (the raised one, two take-backs).
- Sparks: the lift empties the coal's place; a drop moves a ball from a place resting on the
  hole into the hole (two cells change, both on the hole or above it); the spark filling a
  free coal's place and the placements put a ball on an empty place; the spark's return
  changes nothing. Once the cascade is over only placements of the balls in hand follow.
- Both: a ball only ever stands on four balls, except right above the hole of a cascade in
  progress, so the cells under a ball seen must be filled too (when the turn starts from a
  board where every ball is supported).

Pure functions over the position masks; no I/O.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .base import TurnInProgress
from .pyramid import ABOVE, BY_NAME, COUNT, SUPPORTS, bits
from .sparks_core import takeable

EMPTY, OCCUPIED, UNKNOWN = ".", "#", "?"

#: the letters each pyramid game's cells hold
LETTERS = {"pylos": "LD", "sparks": "WBR"}


def _cones(links: tuple[int, ...]) -> tuple[int, ...]:
    """For each position, the positions reached from it through ``links``, directly or not."""
    out = []
    for i in range(COUNT):
        cone, todo = 0, links[i]
        while todo:
            cone |= todo
            nxt = 0
            for j in bits(todo):
                nxt |= links[j]
            todo = nxt & ~cone
        out.append(cone)
    return tuple(out)


#: the positions above each position, directly or not (where balls can drop from)
CONE: tuple[int, ...] = _cones(ABOVE)
#: the positions under each position, directly or not (what it stands on)
BELOW: tuple[int, ...] = _cones(SUPPORTS)

Bound = Callable[[TurnInProgress], "int | None"]


class Seen:
    """The seen cells as masks: ``empty`` (``.``), ``any`` (``#``), one mask per letter, and
    ``under``: the places under a ball seen, which must hold balls too."""

    __slots__ = ("empty", "any", "letter", "occupied", "under")

    def __init__(self, empty: int, any_: int, letter: dict[str, int]):
        self.empty = empty
        self.any = any_
        self.letter = letter
        occupied = any_
        for mask in letter.values():
            occupied |= mask
        self.occupied = occupied
        under = 0
        for i in bits(occupied):
            under |= BELOW[i]
        self.under = under

    def mismatch(self, masks: dict[str, int]) -> tuple[int, int, int]:
        """(cells needing a ball, cells needing to be emptied, cells needing another
        letter) for a board given as one mask per letter."""
        occ = 0
        for mask in masks.values():
            occ |= mask
        wrong = 0
        for letter, want in self.letter.items():
            wrong |= want & occ & ~masks[letter]
        return self.occupied & ~occ, self.empty & occ, wrong


def steps_bound(game: str, seen: Mapping[str, str], position: Any) -> Bound | None:
    """A lower bound on the steps from a state of a turn (from ``position``) to one whose
    board shows ``seen`` (see the module docstring), or None when there is none for this game
    or for these cells (a name or a letter the game does not use: the caller then walks every
    state and compares as usual)."""
    letters = LETTERS.get(game)
    if letters is None:
        return None
    empty = any_ = 0
    letter = {ch: 0 for ch in letters}
    for name, value in seen.items():
        i = BY_NAME.get(name)
        if i is None:
            return None
        if value == UNKNOWN:
            continue
        if value == EMPTY:
            empty |= 1 << i
        elif value == OCCUPIED:
            any_ |= 1 << i
        elif value in letter:
            letter[value] |= 1 << i
        else:
            return None
    target = Seen(empty, any_, letter)
    if game == "pylos":
        supported = _all_supported(position.light | position.dark)
        return lambda state: _pylos_bound(target, state, supported)
    supported = _all_supported(position.white | position.black | position.red)
    return lambda state: _sparks_bound(target, state, supported)


def _all_supported(occupied: int) -> bool:
    return all(occupied & SUPPORTS[i] == SUPPORTS[i] for i in bits(occupied))


# -- Pylos -------------------------------------------------------------------------------------

def _pylos_bound(seen: Seen, state: Any, supported: bool) -> int | None:
    before = state.before
    change = 0  # as PylosTurnInProgress: each step toggles its place
    if state.source is not None:
        change ^= 1 << state.source
    if state.target is not None:
        change ^= 1 << state.target
    for r in state.removals:
        change ^= 1 << r
    light, dark = before.light, before.dark
    if before.to_move:
        dark ^= change
        them, opp = "L", light
    else:
        light ^= change
        them, opp = "D", dark
    arrive, leave, wrong = seen.mismatch({"L": light, "D": dark})
    if not (arrive | leave | wrong):
        return 0
    if wrong or arrive & seen.letter[them] or leave & opp:
        return None  # colours never change, the opponent's balls never move
    if state.target is None:
        puts, lifts = 1, (3 if state.source is None else 2)
    else:
        puts, lifts = 0, (2 - len(state.removals) if state.made and state.takes_back else 0)
    needed = arrive
    if supported:
        needed |= seen.under & ~(light | dark)  # every Pylos state stands on four balls
    n_put, n_lift = needed.bit_count(), leave.bit_count()
    if n_put > puts or n_lift > lifts:
        return None
    return n_put + n_lift  # one cell changes per step


# -- Sparks ------------------------------------------------------------------------------------

def _sparks_bound(seen: Seen, state: Any, supported: bool) -> int | None:
    phase = state.phase
    white, black, red = state.white, state.black, state.red
    me = "W" if state.position.to_move == 0 else "B"
    if phase == "take":
        if not any(seen.mismatch({"W": white, "B": black, "R": red})):
            return 0
        own = white if me == "W" else black
        occ = white | black | red
        best = None
        for coal in bits(takeable(own, occ)):
            bit = 1 << coal
            w, b = (white & ~bit, black) if me == "W" else (white, black & ~bit)
            if ABOVE[coal] & occ:
                need = _sparks_need(seen, me, w, b, red, "drop", coal, coal, None, supported)
            else:
                need = _sparks_need(seen, me, w, b, red, "fill", coal, coal, None, supported)
            if need is not None and (best is None or need < best):
                best = need
        return None if best is None else 1 + best
    hand = None if phase == "drop" and state.hole == state.coal else state.hand  # no drop yet
    return _sparks_need(seen, me, white, black, red, phase, state.coal, state.hole, hand, supported)


def _sparks_need(seen: Seen, me: str, white: int, black: int, red: int, phase: str, coal: int, hole: int,
                 hand: tuple[str, ...] | None, supported: bool) -> int | None:
    """The bound for a state after the lift (``hand`` None: not known yet, the cascade's
    first drop decides it)."""
    occ = white | black | red
    arrive, leave, wrong = seen.mismatch({"W": white, "B": black, "R": red})
    mismatch = arrive | leave | wrong
    if not mismatch:
        return 0
    if phase == "done":
        return None
    them = "B" if me == "W" else "W"
    if phase == "drop":
        region = 1 << hole | CONE[hole]  # only the cascade moves balls, on the hole and above it
    elif phase == "fill":
        region = 0
        hand = ("R", me)  # the spark goes on the coal's place, then the coal is placed
        if seen.empty >> coal & 1 or (seen.letter["W"] | seen.letter["B"]) >> coal & 1:
            return None  # the coal's place holds the spark from the next step on
        if arrive & seen.letter["R"] & ~(1 << coal):
            return None
    else:
        region = 0
    if (leave | wrong) & ~region:
        return None  # outside the cascade, balls are only put on empty places
    placed = arrive & ~region  # only placements can fill these
    if placed & seen.letter[them]:
        return None
    if hand is None:
        hand = (me, "R")  # at most: the coal, and the spark when a ball fell into the coal's place
    if (placed.bit_count() > len(hand) or (placed & seen.letter["R"]).bit_count() > hand.count("R")
            or (placed & seen.letter[me]).bit_count() > hand.count(me)):
        return None
    # each drop changes two cells of the region, every other step one cell
    need = placed.bit_count() + ((mismatch & region).bit_count() + 1) // 2
    need = max(need, (leave | wrong).bit_count())  # a ball leaves a place at most once a step
    if supported:
        # a ball arrives on a place at most once a step; under a ball seen every place holds a
        # ball, but for the hole while a cascade is under way
        empty_needed = (seen.occupied | seen.under) & ~occ
        spare = 1 if phase == "drop" and empty_needed & ~seen.occupied else 0
        need = max(need, empty_needed.bit_count() - spare)
        if phase != "drop" and empty_needed.bit_count() > len(hand):
            return None
    else:
        need = max(need, arrive.bit_count())
    if phase == "return":
        need += 1
    return max(need, 1)
