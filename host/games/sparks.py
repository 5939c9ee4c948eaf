"""Sparks (Dieter Stein, Shibumi system): the rules engine.

Positions are :class:`SparksPosition` values (one bitmask per ball colour over the pyramid
indices of pyramid.py, plus the side to move); turns are :class:`SparksTurn` values written
``1c1:W2b2``, ``2a1:R1b1,W2c2`` or ``1b2[3a1]:W2a2``. The rule logic lives in sparks_core.py
and the physical-step model in sparks_steps.py; docs/games/sparks.md describes the formats
and every convention this engine had to decide.
"""

from __future__ import annotations

import random
import time
from typing import Iterator, Mapping

from . import pyramid
from .base import (IllegalTurn, Inference, NotationError, OptionError, Outcome, Rules, Step,
                   TurnInProgress, enumerate_inference)
from .pyramid import NAMES, SUPPORTS, bits
from .sparks_core import (BLACK, OWN, PLAYER_NAMES, TITLES, WHITE, SparksPosition, SparksTurn,
                          apply_turn, cells, format_turn, legal_turns, names_and, resolve, takeable,
                          winner_on_top)

__all__ = ["SparksRules", "SparksPosition", "SparksTurn", "START", "parse_turn_text",
           "parse_sparks_position"]

#: the start position string: checkerboard base, black on 1a1, White to move
START = "WBWB,BWBW,WBWB,BWBW/...,...,.../..,../. W"


def _cell_columns() -> tuple[int, ...]:
    """Column of each pyramid position inside a position string, for error messages."""
    cols = [0] * pyramid.COUNT
    start = 0
    for lv in pyramid.LEVELS:
        n = pyramid.SIZE[lv]
        for k in range(n):
            row = n - k
            for c in range(1, n + 1):
                cols[pyramid.index(lv, c, row)] = start + k * (n + 1) + c - 1
        start += n * n + (n - 1) + 1
    return tuple(cols)


CELL_COLUMN = _cell_columns()


def check_supported(white: int, black: int, red: int) -> tuple[int, int] | None:
    """The first ball that floats (one of its supports is empty) and the missing supports,
    or None when every ball stands on four balls (or on the table)."""
    occ = white | black | red
    for i in bits(occ):
        missing = SUPPORTS[i] & ~occ
        if missing:
            return i, missing
    return None


def parse_sparks_position(text: str) -> SparksPosition:
    """``<level1>/<level2>/<level3>/<level4> <W|B>``; NotationError names the column."""
    if not isinstance(text, str):
        raise NotationError("expected the position as text")
    text = text.rstrip()
    if not text:
        raise NotationError(f"expected a Sparks position such as {START!r}", text=text, column=0)
    if text[0].isspace():
        raise NotationError("unexpected whitespace before the board", text=text, column=0)
    board, sep, rest = text.partition(" ")
    if not sep:
        raise NotationError("expected the side to move (W or B) after the board, separated by a space",
                            text=text, column=len(text))
    masks, _ = pyramid.parse_levels(board, "WBR")
    mover_col = len(board) + 1
    mover, sep2, extra = rest.partition(" ")
    if sep2:
        raise NotationError("unexpected text after the side to move", text=text,
                            column=mover_col + len(mover) + 1, token=extra)
    if mover not in ("W", "B"):
        raise NotationError("expected the side to move: W (White) or B (Black)", text=text,
                            column=mover_col, token=mover or None)
    floating = check_supported(masks["W"], masks["B"], masks["R"])
    if floating is not None:
        i, missing = floating
        gone = [NAMES[j] for j in bits(missing)]
        letter = "W" if masks["W"] >> i & 1 else "B" if masks["B"] >> i & 1 else "R"
        raise NotationError(f"the ball on {NAMES[i]} is not supported: {names_and(gone)} "
                            f"{'is' if len(gone) == 1 else 'are'} empty",
                            text=text, column=CELL_COLUMN[i], token=letter)
    return SparksPosition(masks["W"], masks["B"], masks["R"], WHITE if mover == "W" else BLACK)


def parse_turn_text(text: str) -> SparksTurn:
    """The turn written ``text``, checked for form only (legality needs a position)."""
    if not isinstance(text, str):
        raise NotationError("expected the turn as text")
    lead = len(text) - len(text.lstrip())
    t = text.strip()
    if not t:
        raise NotationError("expected a Sparks turn such as 1c1:W2b2", text=text, column=0)
    colon = t.find(":")
    if colon < 0:
        raise NotationError("expected ':' between the coal and the placements (e.g. 1c1:W2b2)",
                            text=text, column=lead + len(t))
    head, tail = t[:colon], t[colon + 1:]
    drops: list[int] = []
    bracket = head.find("[")
    coal_tok = head
    if bracket >= 0:
        if not head.endswith("]"):
            raise NotationError("expected ']' to close the brackets before ':'", text=text,
                                column=lead + colon)
        coal_tok, inner = head[:bracket], head[bracket + 1:-1]
        if not inner:
            raise NotationError("empty brackets: name the ball that fell, or leave the brackets out",
                                text=text, column=lead + bracket)
        col = lead + bracket + 1
        for tok in inner.split(","):
            drops.append(pyramid.parse_name(tok, text=text, column=col))
            col += len(tok) + 1
    coal = pyramid.parse_name(coal_tok, text=text, column=lead)
    if not tail:
        raise NotationError("expected a placement after ':' (colour letter and position, e.g. W2b2)",
                            text=text, column=lead + colon + 1)
    placements: list[tuple[str, int]] = []
    col = lead + colon + 1
    for tok in tail.split(","):
        if not tok:
            raise NotationError("empty placement: expected a colour letter and a position, e.g. W2b2",
                                text=text, column=col)
        if tok[0] not in "WBR":
            raise NotationError("expected a colour letter W, B or R before the position",
                                text=text, column=col, token=tok)
        placements.append((tok[0], pyramid.parse_name(tok[1:], text=text, column=col + 1)))
        col += len(tok) + 1
    return SparksTurn(coal, tuple(drops), tuple(placements))


class _OutOfTime(Exception):
    """Raised inside the inference generator when the budget is spent."""


class SparksRules(Rules):
    """Sparks with the rulings of RULINGS.md. Only the ``standard`` variant exists."""

    game = "sparks"
    players = ("white", "black")
    variant = "standard"

    def __init__(self, variant: str = "standard", **options: object) -> None:
        if not isinstance(variant, str) or variant.strip().lower() != "standard":
            raise OptionError(f"unknown Sparks variant {variant!r}: expected standard")
        if options:
            raise OptionError(f"Sparks has no options, got {', '.join(sorted(options))}")
        self.variant = "standard"

    @classmethod
    def from_tags(cls, tags: Mapping[str, str]) -> "SparksRules":
        """The rules a record's tags describe; tags other than ``Variant`` are not Sparks's."""
        variant = tags.get("Variant", "standard")
        if not isinstance(variant, str) or variant.strip().lower() != "standard":
            raise OptionError(f"[Variant {variant!r}]: Sparks has only the standard variant")
        return cls("standard")

    def tags(self) -> dict[str, str]:
        return {"Variant": "standard"}

    # -- positions ---------------------------------------------------------------
    def start(self) -> SparksPosition:
        return parse_sparks_position(START)

    def parse_position(self, text: str) -> SparksPosition:
        return parse_sparks_position(text)

    def format_position(self, position: SparksPosition) -> str:
        return pyramid.format_levels(position.masks()) + " " + OWN[position.to_move]

    def to_move(self, position: SparksPosition) -> str:
        return PLAYER_NAMES[position.to_move]

    def cells(self, position: SparksPosition) -> dict[str, str]:
        return cells(position.white, position.black, position.red)

    def diagram(self, position: SparksPosition) -> str:
        line = f"{TITLES[position.to_move]} to move"
        out = self.outcome(position)
        if out is not None:
            line += f"; game over {out.result}: {out.reason}"
        return pyramid.diagram(position.masks()) + "\n" + line

    # -- turns -------------------------------------------------------------------
    def parse_turn(self, position: SparksPosition, text: str) -> SparksTurn:
        turn = parse_turn_text(text)
        resolve(position, turn)
        return turn

    def format_turn(self, turn: SparksTurn) -> str:
        return format_turn(turn)

    def play(self, position: SparksPosition, turn: SparksTurn) -> SparksPosition:
        if not isinstance(turn, SparksTurn):
            raise IllegalTurn(f"not a Sparks turn: {turn!r}")
        return resolve(position, turn).after

    def legal_turns(self, position: SparksPosition) -> Iterator[SparksTurn]:
        return legal_turns(position)

    def random_turn(self, position: SparksPosition, rng: random.Random) -> SparksTurn:
        return rng.choice(list(legal_turns(position)))

    def play_legal(self, position: SparksPosition, turn: SparksTurn) -> SparksPosition:
        """:meth:`play` without the checks, for turns that came from :meth:`legal_turns`
        (playouts, perft, search)."""
        return apply_turn(position, turn)

    def takeable_coals(self, position: SparksPosition) -> tuple[str, ...]:
        """The names of the coals the side to move may take (empty when the game is over)."""
        if winner_on_top(position) is not None:
            return ()
        own = position.white if position.to_move == WHITE else position.black
        return tuple(NAMES[i] for i in bits(takeable(own, position.occupied)))

    def outcome(self, position: SparksPosition) -> Outcome | None:
        won = winner_on_top(position)
        if won is not None:
            return Outcome("1-0" if won == WHITE else "0-1", PLAYER_NAMES[won],
                           f"{TITLES[won]} placed a {PLAYER_NAMES[won]} ball on the top (4a1)")
        mover = position.to_move
        own = position.white if mover == WHITE else position.black
        if not takeable(own, position.occupied):
            other = 1 - mover
            return Outcome("1-0" if other == WHITE else "0-1", PLAYER_NAMES[other],
                           f"{TITLES[mover]} has no coal that may be taken")
        return None

    def infer(self, before: SparksPosition, after: SparksPosition, *,
              budget_ms: float = 1000.0) -> Inference:
        deadline = time.perf_counter() + budget_ms / 1000.0
        count = 0

        def timed() -> Iterator[SparksTurn]:
            nonlocal count
            for turn in legal_turns(before):
                count += 1
                if count & 31 == 0 and time.perf_counter() > deadline:
                    raise _OutOfTime
                yield turn

        try:
            return enumerate_inference(self, before, after, timed())
        except _OutOfTime:
            return Inference("undecided", reason=f"the time budget of {budget_ms:g} ms ran out",
                             explored=count)

    # -- physical steps ----------------------------------------------------------
    def steps(self, position: SparksPosition, turn: SparksTurn) -> tuple[Step, ...]:
        done = resolve(position, turn)
        me = done.coal_letter
        out = [Step("lift", where=NAMES[turn.coal], piece=me)]
        if done.free:
            out.append(Step("place", where=NAMES[turn.coal], piece="R"))
        for frm, to, letter in done.drops:
            out.append(Step("drop", where=NAMES[frm], piece=letter, to=NAMES[to]))
        if done.spark_returned:
            out.append(Step("return", piece="R"))
        for letter, pos in done.placements:
            out.append(Step("place", where=NAMES[pos], piece=letter))
        return tuple(out)

    def begin_turn(self, position: SparksPosition) -> TurnInProgress:
        from .sparks_steps import SparksTurnInProgress
        return SparksTurnInProgress.start(position)
