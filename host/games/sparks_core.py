"""The Sparks rules as pure functions over bitmasks, shared by the engine (sparks.py) and its
physical-step model (sparks_steps.py).

A board is three masks over the pyramid indices of pyramid.py: white, black and red (sparks).
Everything here is a pure function of ints and tuples, so it stays fast and side-effect free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .base import IllegalTurn
from .pyramid import ABOVE, COUNT, NAMES, SUPPORTS, TOP, bits, cells_of, free_spots

WHITE, BLACK = 0, 1
#: the letter of each player's balls, by player number
OWN = ("W", "B")
PLAYER_NAMES = ("white", "black")
TITLES = ("White", "Black")
LETTERS = "WBR"
COLOUR_WORDS = {"W": "white ball", "B": "black ball", "R": "spark"}

#: ABOVE and SUPPORTS as tuples of indices, for loops that are faster than walking bits
ABOVE_LIST: tuple[tuple[int, ...], ...] = tuple(tuple(bits(ABOVE[i])) for i in range(COUNT))


@dataclass(frozen=True, slots=True)
class SparksPosition:
    """A Sparks position: one mask per ball colour and the side to move (0 White, 1 Black).
    Immutable and hashable, so it can key tables and be compared after inference."""

    white: int
    black: int
    red: int
    to_move: int = WHITE

    @property
    def occupied(self) -> int:
        return self.white | self.black | self.red

    def masks(self) -> dict[str, int]:
        """One mask per cell letter, in the order pyramid.py's helpers expect."""
        return {"W": self.white, "B": self.black, "R": self.red}


@dataclass(frozen=True, slots=True)
class SparksTurn:
    """One whole turn as a record holds it: the coal taken, the balls named in brackets (the
    ball that fell at each cascade step that had a choice, in cascade order) and the
    placements in the order made, each as (colour letter, position)."""

    coal: int
    drops: tuple[int, ...] = ()
    placements: tuple[tuple[str, int], ...] = ()

    def __str__(self) -> str:
        return format_turn(self)


def format_turn(turn: SparksTurn) -> str:
    """``1c1:W2b2``, ``2a1:R1b1,W2c2``, ``1b2[3a1]:W2a2``."""
    text = NAMES[turn.coal]
    if turn.drops:
        text += "[" + ",".join(NAMES[d] for d in turn.drops) + "]"
    return text + ":" + ",".join(colour + NAMES[p] for colour, p in turn.placements)


# -- board helpers ---------------------------------------------------------------------------

def letter_at(white: int, black: int, red: int, i: int) -> str:
    """The cell letter at ``i`` (``.`` when empty)."""
    if white >> i & 1:
        return "W"
    if black >> i & 1:
        return "B"
    if red >> i & 1:
        return "R"
    return "."


def cells(white: int, black: int, red: int) -> dict[str, str]:
    """Every position name mapped to its letter (``.`` when empty): pyramid.cells_of for
    three fixed masks (white first where they overlap, as letter_at)."""
    return cells_of({"W": white, "B": black, "R": red})


def spots_after(free: int, occupied: int, placed: int) -> int:
    """The free spots once a ball is put on ``placed`` (a free spot of ``occupied``):
    cheaper than :func:`free_spots` because only the positions above it can change."""
    occ = occupied | 1 << placed
    out = free & ~(1 << placed)
    for j in ABOVE_LIST[placed]:
        sup = SUPPORTS[j]
        if occ & sup == sup and not occ >> j & 1:
            out |= 1 << j
    return out


def takeable(own: int, occupied: int) -> int:
    """The coals that may be taken: own balls with at most one ball resting on them."""
    out = 0
    for i in bits(own):
        if (ABOVE[i] & occupied).bit_count() < 2:
            out |= 1 << i
    return out


def winner_on_top(position: SparksPosition) -> int | None:
    """The player whose ball is on the top (the game is then over), else None."""
    if position.white >> TOP & 1:
        return WHITE
    if position.black >> TOP & 1:
        return BLACK
    return None


def cascades(occupied: int, hole: int) -> list[tuple[tuple[tuple[int, int], ...], tuple[int, ...]]]:
    """Every way the balls above ``hole`` (an empty place; ``occupied`` excludes it) can fall:
    a list of (moves, choices). ``moves`` are the (from, to) drops in cascade order, ending
    when the ball that fell supported nothing; ``choices`` names the ball that fell at each
    step where more than one could (the record's bracket)."""
    cands = ABOVE[hole] & occupied
    if not cands:
        return [((), ())]
    several = cands & (cands - 1) != 0
    out = []
    for f in bits(cands):
        rest = (occupied | 1 << hole) & ~(1 << f)
        for moves, choices in cascades(rest, f):
            out.append((((f, hole),) + moves, ((f,) if several else ()) + choices))
    return out


def move_ball(masks: list[int], frm: int, to: int) -> None:
    """Move the ball at ``frm`` to the empty ``to`` in the [white, black, red] list."""
    bit = 1 << frm
    for k in range(3):
        if masks[k] & bit:
            masks[k] = (masks[k] & ~bit) | 1 << to
            return


def names_or(items: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def names_and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# -- resolving a turn ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Resolved:
    """What a legal turn does, step by step: the drops (from, to, letter) in cascade order,
    whether the spark went back to the supply, whether the coal was free (spark filled its
    place), the placements actually made, and the resulting position."""

    coal_letter: str
    free: bool
    drops: tuple[tuple[int, int, str], ...]
    spark_returned: bool
    placements: tuple[tuple[str, int], ...]
    after: SparksPosition


def check_coal(position: SparksPosition, coal: int) -> None:
    """IllegalTurn unless ``coal`` may be taken by the side to move, saying why."""
    mover = position.to_move
    won = winner_on_top(position)
    if won is not None:
        raise IllegalTurn(f"the game is over: {TITLES[won]} has a ball on the top (4a1)")
    own = position.white if mover == WHITE else position.black
    name = NAMES[coal]
    if not own >> coal & 1:
        letter = letter_at(position.white, position.black, position.red, coal)
        if letter == ".":
            raise IllegalTurn(f"{name} is empty: there is no ball to take")
        if letter == "R":
            raise IllegalTurn(f"{name} holds a spark: sparks cannot be taken, "
                              f"{TITLES[mover]} must take a {COLOUR_WORDS[OWN[mover]]} (a coal)")
        raise IllegalTurn(f"{name} holds a {COLOUR_WORDS[letter]}: "
                          f"{TITLES[mover]} must take a {COLOUR_WORDS[OWN[mover]]}")
    resting = ABOVE[coal] & position.occupied
    if resting.bit_count() >= 2:
        raise IllegalTurn(f"{name} is pinned: {names_and([NAMES[i] for i in bits(resting)])} "
                          "rest on it, so it cannot be taken")


def resolve(position: SparksPosition, turn: SparksTurn) -> Resolved:
    """Play ``turn`` out rule by rule; IllegalTurn names the first thing that is wrong."""
    coal = turn.coal
    check_coal(position, coal)
    mover = position.to_move
    me = OWN[mover]
    masks = [position.white, position.black, position.red]
    occ = position.occupied
    cname = NAMES[coal]
    masks[mover] &= ~(1 << coal)
    drops: list[tuple[int, int, str]] = []
    if not ABOVE[coal] & occ:
        if turn.drops:
            raise IllegalTurn(f"{cname} is free (no ball rests on it), so no ball drops: "
                              f"write the turn without brackets, e.g. {cname}:{me}<position>")
        masks[2] |= 1 << coal
        free = True
        hand = [me]
        why_one = f"the spark filled {cname}, so only the coal is placed"
    else:
        free = False
        hole = coal
        occ_now = occ & ~(1 << coal)
        named = list(turn.drops)
        used = 0
        while True:
            cands = ABOVE[hole] & occ_now
            if not cands:
                break
            if cands & (cands - 1):
                options = [NAMES[i] for i in bits(cands)]
                if used >= len(named):
                    raise IllegalTurn(
                        f"{cname}: {names_or(options)} could drop into {NAMES[hole]}; name the one "
                        f"that fell, e.g. {cname}[{options[0]}]:...")
                pick = named[used]
                used += 1
                if not cands >> pick & 1:
                    raise IllegalTurn(
                        f"{cname}[{NAMES[pick]}]: {NAMES[pick]} cannot drop into {NAMES[hole]}; "
                        f"{names_or(options)} could")
            else:
                pick = cands.bit_length() - 1
            letter = letter_at(masks[0], masks[1], masks[2], pick)
            move_ball(masks, pick, hole)
            drops.append((pick, hole, letter))
            occ_now = (occ_now | 1 << hole) & ~(1 << pick)
            hole = pick
        if used < len(named):
            extra = ",".join(NAMES[i] for i in named[used:])
            if used == 0:
                raise IllegalTurn(f"{cname}: no step of this cascade had a choice of ball, so "
                                  f"nothing is named in brackets (remove [{extra}])")
            raise IllegalTurn(f"{cname}: the cascade had only {used} step(s) with a choice; "
                              f"[{extra}] is extra")
        first = drops[0][2]
        if first == "R":
            hand = [me]
            why_one = f"a spark dropped into {cname} and the spark in hand went back, so only the coal is placed"
        else:
            hand = [me, "R"]
            why_one = ""
    return _place(position, turn, masks, hand, why_one, free, tuple(drops))


def _place(position: SparksPosition, turn: SparksTurn, masks: list[int], hand: list[str],
           why_one: str, free: bool, drops: tuple[tuple[int, int, str], ...]) -> Resolved:
    """The placement part of :func:`resolve`."""
    mover = position.to_move
    me = OWN[mover]
    placements = turn.placements
    if not placements:
        raise IllegalTurn("no placement: the coal must be placed")
    made: list[tuple[str, int]] = []
    won = False
    for k, (letter, pos) in enumerate(placements):
        text = letter + NAMES[pos]
        if won:
            raise IllegalTurn(f"{text}: the game ended when {me}4a1 was placed, "
                              "so nothing more is placed")
        if letter not in hand:
            if not hand:
                if why_one:
                    raise IllegalTurn(f"{text}: {why_one}")
                raise IllegalTurn(f"{text}: nothing is left in hand")
            if len(hand) == 1 and why_one:
                raise IllegalTurn(f"{text}: {why_one}; the ball in hand is {hand[0]}")
            raise IllegalTurn(f"{text}: the balls in hand are {names_and(hand)}, not {letter}")
        occ = masks[0] | masks[1] | masks[2]
        if occ >> pos & 1:
            raise IllegalTurn(f"{text}: {NAMES[pos]} is occupied "
                              f"({letter_at(masks[0], masks[1], masks[2], pos)})")
        missing = SUPPORTS[pos] & ~occ
        if missing:
            gone = [NAMES[i] for i in bits(missing)]
            verb = "is" if len(gone) == 1 else "are"
            raise IllegalTurn(f"{text}: {NAMES[pos]} is not supported: {names_and(gone)} {verb} empty")
        masks["WBR".index(letter)] |= 1 << pos
        hand.remove(letter)
        made.append((letter, pos))
        if letter == me and pos == TOP:
            won = True
    if hand and not won:
        if why_one or len(hand) == 2:
            raise IllegalTurn(f"{format_turn(turn)}: {names_and(hand)} still in hand")
        raise IllegalTurn(f"{format_turn(turn)}: a white or black ball dropped into "
                          f"{NAMES[turn.coal]}, so both the coal ({me}) and the spark (R) are placed; "
                          f"{hand[0]} is still in hand")
    after = SparksPosition(masks[0], masks[1], masks[2], 1 - mover)
    return Resolved(me, free, drops, bool(drops) and drops[0][2] == "R", tuple(made), after)


# -- generating turns ------------------------------------------------------------------------

def legal_turns(position: SparksPosition) -> Iterator[SparksTurn]:
    """Every legal turn, one per distinct (coal, drop choices, set of placements): when both
    placement orders are legal only the spark-first one is given."""
    if winner_on_top(position) is not None:
        return
    mover = position.to_move
    me = OWN[mover]
    occ = position.occupied
    own = position.white if mover == WHITE else position.black
    for coal in bits(takeable(own, occ)):
        above = ABOVE[coal] & occ
        if not above:
            # the spark fills the coal's place: the occupied set does not change
            for y in bits(free_spots(occ)):
                yield SparksTurn(coal, (), ((me, y),))
            continue
        red = position.red
        for moves, choices in cascades(occ & ~(1 << coal), coal):
            first = moves[0][0]
            after_occ = (occ | 1 << coal) & ~(1 << moves[-1][0])
            free = free_spots(after_occ)
            if red >> first & 1:
                for y in bits(free):
                    yield SparksTurn(coal, choices, ((me, y),))
                continue
            for x in bits(free):
                for y in bits(spots_after(free, after_occ, x)):
                    yield SparksTurn(coal, choices, (("R", x), (me, y)))
            for y in bits(free):
                if y == TOP:
                    yield SparksTurn(coal, choices, ((me, y),))
                    continue
                # only the spark spots the coal completed: the others were given spark-first
                for x in bits(spots_after(free, after_occ, y) & ~free):
                    yield SparksTurn(coal, choices, ((me, y), ("R", x)))


def apply_turn(position: SparksPosition, turn: SparksTurn) -> SparksPosition:
    """The position after a turn, for turns known to be legal (from :func:`legal_turns`):
    no checks, so playouts and perft stay fast."""
    mover = position.to_move
    masks = [position.white, position.black, position.red]
    coal = turn.coal
    masks[mover] &= ~(1 << coal)
    occ = masks[0] | masks[1] | masks[2]
    if not ABOVE[coal] & occ:
        masks[2] |= 1 << coal
    else:
        hole = coal
        named = iter(turn.drops)
        while True:
            cands = ABOVE[hole] & occ
            if not cands:
                break
            pick = next(named) if cands & (cands - 1) else cands.bit_length() - 1
            move_ball(masks, pick, hole)
            occ = (occ | 1 << hole) & ~(1 << pick)
            hole = pick
    for letter, pos in turn.placements:
        masks[0 if letter == "W" else 1 if letter == "B" else 2] |= 1 << pos
    return SparksPosition(masks[0], masks[1], masks[2], 1 - mover)
