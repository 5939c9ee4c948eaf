"""Pylos values and the bitmask rules core: move generation, legality checks with reasons,
and the end of the game.

Kept apart from the text formats (pylos.py) and the physical steps (pylos_steps.py) so
both share one definition of what is legal. Every function here is pure and works on the
immutable values below; the tables are built once at import time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .pyramid import (ABOVE, ALL, COUNT, LEVEL, LEVEL_MASK, LINES_THROUGH, NAMES, SQUARES, SQUARES_THROUGH, free_spots,
                      SUPPORTS, TOP)

#: balls per colour
BALLS = 15
COLOURS = ("light", "dark")
LETTERS = "LD"

BASE_MASK = LEVEL_MASK[1]
UPPER = tuple(range(16, COUNT))
UPPER_MASK = ALL & ~BASE_MASK
#: RAISE_TARGETS[i]: positions a ball standing on i may be raised to, by geometry alone
#: (strictly higher level, not resting on i itself)
RAISE_TARGETS: tuple[int, ...] = tuple(
    sum(1 << j for j in range(COUNT) if LEVEL[j] > LEVEL[i]) & ~ABOVE[i] for i in range(COUNT)
)
#: patterns through each position that give take-backs: squares, and for mature lines too
SQUARE_PATTERNS: tuple[tuple[int, ...], ...] = SQUARES_THROUGH
MATURE_PATTERNS: tuple[tuple[int, ...], ...] = tuple(
    SQUARES_THROUGH[i] + LINES_THROUGH[i] for i in range(COUNT)
)


@dataclass(frozen=True, slots=True)
class PylosPosition:
    """A Pylos position: one bitmask of pyramid indices per colour, the side to move
    (0 light, 1 dark) and the balls each side still has in reserve."""

    light: int
    dark: int
    to_move: int
    light_reserve: int
    dark_reserve: int

    @property
    def occupied(self) -> int:
        return self.light | self.dark

    @property
    def own(self) -> int:
        """The mover's balls."""
        return self.dark if self.to_move else self.light

    @property
    def reserve(self) -> int:
        """The mover's reserve."""
        return self.dark_reserve if self.to_move else self.light_reserve


START = PylosPosition(0, 0, 0, BALLS, BALLS)


@dataclass(frozen=True, slots=True)
class PylosTurn:
    """A whole turn as a record holds it: the ball put on ``target``, from the reserve or
    raised from ``source``, then the balls taken back in the order they were taken."""

    target: int
    source: int | None = None
    removals: tuple[int, ...] = ()


_LOW = tuple(tuple(i for i in range(10) if m >> i & 1) for m in range(1024))
_MID = tuple(tuple(i + 10 for i in t) for t in _LOW)
_HIGH = tuple(tuple(i + 20 for i in t) for t in _LOW)


def members(mask: int) -> tuple[int, ...]:
    """The positions in ``mask``, lowest first: pyramid.bits by table lookup, which the
    move generator's inner loops need to be fast."""
    return _LOW[mask & 1023] + _MID[mask >> 10 & 1023] + _HIGH[mask >> 20]


def names(mask: int) -> str:
    return " ".join(NAMES[i] for i in members(mask))


def supporting(occ: int) -> int:
    """Balls that have at least one ball resting on them."""
    out = 0
    for j in members(occ & UPPER_MASK):
        out |= SUPPORTS[j]
    return out


def completed(target: int, own: int, patterns: tuple[tuple[int, ...], ...]) -> int:
    """The first square (or line) through ``target`` that ``own`` fills, 0 when none."""
    for p in patterns[target]:
        if p & own == p:
            return p
    return 0


def removal_options(own: int, occ: int) -> list[tuple[int, ...]]:
    """Every distinct choice of one or two take-backs (board after the ball was put).

    Two balls that may go in either order give one choice, lower index first; a second
    ball freed by the first (it was resting under it) only goes in that order."""
    sup = supporting(occ)
    free = own & ~sup
    opts: list[tuple[int, ...]] = []
    for a in members(free):
        opts.append((a,))
        for b in members(free >> a + 1 << a + 1):  # the free balls above a in index order
            opts.append((a, b))
        for b in members(SUPPORTS[a] & own & sup):
            if ABOVE[b] & occ == 1 << a:
                opts.append((a, b))
    return opts


def raise_targets(src: int, occ: int, spots: int) -> int:
    """Where the mover's free ball on ``src`` may be raised to."""
    return spots & RAISE_TARGETS[src]


def has_raise(own: int, occ: int) -> bool:
    """Whether the mover (balls ``own``) has any legal raise."""
    sp = free_spots(occ)
    for s in members(own & ~supporting(occ)):
        if sp & RAISE_TARGETS[s]:
            return True
    return False


def _moves(pos: PylosPosition) -> tuple[int, int, list[tuple[int, int | None]]]:
    """(own, occupied, every place and raise as (target, source)): places by target, then
    raises by source and target."""
    occ = pos.light | pos.dark
    own = pos.dark if pos.to_move else pos.light
    sp = free_spots(occ)
    moves: list[tuple[int, int | None]] = [(t, None) for t in members(sp)] if pos.reserve else []
    for s in members(own & ~supporting(occ)):
        moves += [(t, s) for t in members(sp & RAISE_TARGETS[s])]
    return own, occ, moves


def put(own: int, occ: int, target: int, source: int | None) -> tuple[int, int]:
    """(own, occupied) once the ball is on ``target`` (and gone from ``source``)."""
    change = 1 << target if source is None else 1 << target | 1 << source
    return own ^ change, occ ^ change


def generate(pos: PylosPosition, takes_back: bool, patterns: tuple[tuple[int, ...], ...]) -> list[PylosTurn]:
    """Every legal turn of a position whose game is not over, in the order of
    :func:`_moves`, each place or raise followed by its take-back choices in the order of
    :func:`removal_options`."""
    own, occ, moves = _moves(pos)
    out: list[PylosTurn] = []
    append = out.append
    for t, s in moves:
        own2, occ2 = put(own, occ, t, s)
        if takes_back and completed(t, own2, patterns):
            for rem in removal_options(own2, occ2):
                append(PylosTurn(t, s, rem))
        else:
            append(PylosTurn(t, s))
    return out


def _count_removals(own: int, occ: int) -> int:
    """len(removal_options(own, occ)), without building them."""
    sup = supporting(occ)
    free = own & ~sup
    n = free.bit_count()
    count = n + n * (n - 1) // 2
    for a in members(free):
        for b in members(SUPPORTS[a] & own & sup):
            if ABOVE[b] & occ == 1 << a:
                count += 1
    return count


def random_turn(pos: PylosPosition, takes_back: bool, patterns: tuple[tuple[int, ...], ...],
                rng: random.Random) -> PylosTurn:
    """A turn drawn uniformly from :func:`generate`'s list, building only the turn drawn:
    the number of take-back choices of each place or raise is cheap to count."""
    own, occ, moves = _moves(pos)
    counts = []
    for t, s in moves:
        own2, occ2 = put(own, occ, t, s)
        counts.append(_count_removals(own2, occ2) if takes_back and completed(t, own2, patterns) else 1)
    k = rng.randrange(sum(counts))
    for (t, s), c in zip(moves, counts):
        if k < c:
            own2, occ2 = put(own, occ, t, s)
            if takes_back and completed(t, own2, patterns):
                return PylosTurn(t, s, removal_options(own2, occ2)[k])
            return PylosTurn(t, s)
        k -= c
    raise ValueError("no legal turn: the game is over")


def apply(pos: PylosPosition, turn: PylosTurn) -> PylosPosition:
    """The position after ``turn``, which must be legal (nothing is checked here)."""
    light, dark = pos.light, pos.dark
    lr, dr = pos.light_reserve, pos.dark_reserve
    delta = len(turn.removals) - (turn.source is None)
    change = 1 << turn.target
    if turn.source is not None:
        change ^= 1 << turn.source
    for r in turn.removals:
        change ^= 1 << r
    if pos.to_move:
        return PylosPosition(light, dark ^ change, 0, lr, dr + delta)
    return PylosPosition(light ^ change, dark, 1, lr + delta, dr)


def ended(pos: PylosPosition, moves_rule: bool) -> tuple[int, str] | None:
    """(winner index, reason) once the game is over, else None."""
    occ = pos.light | pos.dark
    mover = pos.to_move
    if occ >> TOP & 1:
        return 1 - mover, f"{COLOURS[1 - mover].capitalize()} placed the top ball"
    if pos.reserve == 0:
        if not moves_rule:
            return 1 - mover, f"{COLOURS[mover].capitalize()} is to move with no ball left in reserve"
        if not has_raise(pos.own, occ):
            return 1 - mover, f"{COLOURS[mover].capitalize()} is to move with no ball in reserve and no ball to raise"
    return None


# -- legality with reasons ------------------------------------------------------------
# Each check returns None when the part is legal, else the reason in words naming the
# positions. The physical steps (pylos_steps.py) use the same checks.

def _holder(pos: PylosPosition, i: int) -> str:
    if pos.light >> i & 1:
        return "a light ball"
    if pos.dark >> i & 1:
        return "a dark ball"
    return "nothing"


def _valid_index(i: object) -> bool:
    return isinstance(i, int) and not isinstance(i, bool) and 0 <= i < COUNT


def why_not_source(pos: PylosPosition, src: int) -> str | None:
    """Whether the mover may pick up the ball on ``src`` to raise it (ignoring targets)."""
    if not _valid_index(src):
        return f"{src!r} is not a pyramid position"
    colour = COLOURS[pos.to_move]
    if not pos.own >> src & 1:
        return f"{NAMES[src]} holds {_holder(pos, src)}, not a {colour} ball, and cannot be raised"
    above = ABOVE[src] & pos.occupied
    if above:
        return f"{NAMES[src]} supports {names(above)} and cannot be raised"
    return None


def why_not_target(pos: PylosPosition, target: int, src: int | None) -> str | None:
    """Whether the ball (from the reserve, or from ``src``, already checked) may be put on
    ``target``."""
    if not _valid_index(target):
        return f"{target!r} is not a pyramid position"
    occ = pos.occupied
    t = NAMES[target]
    if src is None and pos.reserve == 0:
        return f"{COLOURS[pos.to_move].capitalize()} has no ball in reserve to place on {t}"
    if src == target:
        return f"a raise must go to a higher level: {t} is where the ball was lifted from"
    if occ >> target & 1:
        return f"{t} is occupied by {_holder(pos, target)}"
    missing = SUPPORTS[target] & ~occ
    if missing:
        verb = "is" if missing & (missing - 1) == 0 else "are"
        return f"{t} is not supported: {names(missing)} {verb} empty"
    if src is not None:
        s = NAMES[src]
        if SUPPORTS[target] >> src & 1:
            return f"{t} rests on {s}, the ball being raised: it would not be supported once {s} is lifted"
        if LEVEL[target] <= LEVEL[src]:
            return (f"a raise must go to a higher level: {t} is on level {LEVEL[target]}, "
                    f"{s} on level {LEVEL[src]}")
    return None


def why_not_removal(own: int, occ: int, r: int, colour: str, removed: tuple[int, ...]) -> str | None:
    """Whether the ball on ``r`` may be taken back now (board ``own``/``occ`` at that moment)."""
    if not _valid_index(r):
        return f"{r!r} is not a pyramid position"
    n = NAMES[r]
    if r in removed:
        return f"{n} was already taken back"
    if not own >> r & 1:
        what = "empty" if not occ >> r & 1 else f"not a {colour} ball"
        return f"{n} is {what} and cannot be taken back"
    above = ABOVE[r] & occ
    if above:
        return f"{n} supports {names(above)} and cannot be taken back"
    return None


_SQUARE_SET = frozenset(SQUARES)


def pattern_word(pattern: int) -> str:
    return "square" if pattern in _SQUARE_SET else "line"


def why_illegal(pos: PylosPosition, turn: PylosTurn, takes_back: bool,
                patterns: tuple[tuple[int, ...], ...], moves_rule: bool) -> str | None:
    """None when ``turn`` is legal in ``pos``, else the reason."""
    end = ended(pos, moves_rule)
    if end is not None:
        return f"the game is over: {end[1]}"
    src, target = turn.source, turn.target
    if src is not None:
        reason = why_not_source(pos, src)
        if reason:
            return reason
    reason = why_not_target(pos, target, src)
    if reason:
        return reason
    colour = COLOURS[pos.to_move]
    own, occ = put(pos.own, pos.occupied, target, src)
    made = completed(target, own, patterns)
    removals = turn.removals
    if not isinstance(removals, tuple):
        return "the take-backs must be a tuple of positions"
    if made and takes_back and not removals:
        return (f"{NAMES[target]} completes a {colour} {pattern_word(made)} ({names(made)}): "
                "at least one ball must be taken back")
    for k, r in enumerate(removals):
        reason = (why_no_takeback(target, made, takes_back, patterns, colour, k)
                  or why_not_removal(own, occ, r, colour, removals[:k]))
        if reason:
            return reason
        own ^= 1 << r
        occ ^= 1 << r
    return None


def why_no_takeback(target: int, made: int, takes_back: bool, patterns: tuple[tuple[int, ...], ...],
                    colour: str, taken: int) -> str | None:
    """Whether one more ball may be taken back after ``taken`` take-backs this turn;
    ``made`` is the pattern the ball put on ``target`` completed (0 for none)."""
    if not made:
        what = "square or line" if patterns is MATURE_PATTERNS else "square"
        return f"{NAMES[target]} completes no {colour} {what}: no ball may be taken back"
    if not takes_back:
        return "no ball is taken back in the children variant"
    if taken >= 2:
        return "at most two balls may be taken back"
    return None
