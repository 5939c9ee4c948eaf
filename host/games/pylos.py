"""Pylos: the rules engine the registry builds with ``PylosRules(variant, reserve_rule=...)``.

This module holds the public face (variants, options, text formats, outcome, inference);
the bitmask rules core is in pylos_core.py and the physical steps in pylos_steps.py.
Rules as settled by RULINGS.md; the conventions this engine decided are in docs/games/pylos.md.
"""

from __future__ import annotations

import random
import re
from typing import Iterator, Mapping

from . import pyramid
from .base import IllegalTurn, Inference, NotationError, OptionError, Outcome, Rules, Step, enumerate_inference
from .pylos_core import (BALLS, COLOURS, LETTERS, MATURE_PATTERNS, SQUARE_PATTERNS, START, PylosPosition,
                         PylosTurn, apply, ended, generate, random_turn, why_illegal)
from .pylos_steps import PylosTurnInProgress, turn_steps
from .pyramid import COUNT, LEVEL, NAMES, SIZE, SUPPORTS, bits

__all__ = ["PylosPosition", "PylosRules", "PylosTurn", "PylosTurnInProgress"]

VARIANTS = ("standard", "children", "mature")
RESERVE_RULES = ("empty", "moves")


def _level_starts() -> dict[int, int]:
    out, col = {}, 0
    for lv in pyramid.LEVELS:
        out[lv] = col
        col += SIZE[lv] * (SIZE[lv] + 1)
    return out


_LEVEL_START = _level_starts()
#: column of each position's cell in the board part of a position string
_CELL_COLUMN: tuple[int, ...] = tuple(
    _LEVEL_START[LEVEL[i]] + (SIZE[LEVEL[i]] - pyramid.ROW[i]) * (SIZE[LEVEL[i]] + 1) + pyramid.COLUMN[i] - 1
    for i in range(COUNT)
)
_FIELDS = "board, side to move (L or D), light reserve, dark reserve"
_TOKEN = re.compile(r"\S+")
_TURN_PART = re.compile(r"[-x]|[^-x]+")


def _choice(kind: str, value: object, choices: tuple[str, ...]) -> str:
    if isinstance(value, str) and value.strip().lower() in choices:
        return value.strip().lower()
    raise OptionError(f"unknown Pylos {kind} {value!r}: expected one of {', '.join(choices)}")


def _rebased(err: NotationError, text: str, lead: int) -> NotationError:
    """The same error with its column counted in the whole position string."""
    message = str(err)
    if err.column is not None:
        suffix = f" (column {err.column + 1}" + (f", at {err.token!r})" if err.token else ")")
        message = message.removesuffix(suffix)
    column = None if err.column is None else err.column + lead
    return NotationError(message, text=text, column=column, token=err.token)


class PylosRules(Rules):
    """Pylos with its variant (``standard``, ``children``, ``mature``) and reserve rule
    (``empty``: a player to move with an empty reserve loses; ``moves``: such a player may
    still raise and loses only when no turn is left)."""

    game = "pylos"
    players = ("light", "dark")

    def __init__(self, variant: str = "standard", *, reserve_rule: str = "empty"):
        self.variant = _choice("variant", variant, VARIANTS)
        self.reserve_rule = _choice("reserve rule", reserve_rule, RESERVE_RULES)
        self._takes_back = self.variant != "children"
        self._patterns = MATURE_PATTERNS if self.variant == "mature" else SQUARE_PATTERNS
        self._moves_rule = self.reserve_rule == "moves"

    def __repr__(self) -> str:
        return f"PylosRules({self.variant!r}, reserve_rule={self.reserve_rule!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PylosRules):
            return NotImplemented
        return (self.variant, self.reserve_rule) == (other.variant, other.reserve_rule)

    def __hash__(self) -> int:
        return hash((self.game, self.variant, self.reserve_rule))

    # -- records -------------------------------------------------------------------
    def tags(self) -> dict[str, str]:
        out = {"Variant": self.variant}
        if self.reserve_rule != "empty":
            out["ReserveRule"] = self.reserve_rule
        return out

    @classmethod
    def from_tags(cls, tags: Mapping[str, str]) -> "PylosRules":
        """The rules named by ``Variant`` (default standard) and ``ReserveRule`` (default
        empty); other tags are ignored."""
        variant = tags.get("Variant", "standard")
        reserve_rule = tags.get("ReserveRule", "empty")
        try:
            variant = _choice("variant", variant, VARIANTS)
        except OptionError:
            raise OptionError(f"bad [Variant {variant!r}] tag for pylos: expected one of {', '.join(VARIANTS)}") from None
        try:
            reserve_rule = _choice("reserve rule", reserve_rule, RESERVE_RULES)
        except OptionError:
            raise OptionError(f"bad [ReserveRule {reserve_rule!r}] tag for pylos: expected one of "
                              f"{', '.join(RESERVE_RULES)}") from None
        return cls(variant, reserve_rule=reserve_rule)

    # -- positions -----------------------------------------------------------------
    def start(self) -> PylosPosition:
        return START

    def parse_position(self, text: str) -> PylosPosition:
        """``<l1>/<l2>/<l3>/<l4> <L|D> <light reserve> <dark reserve>``; surrounding blanks are
        ignored, columns in errors count in ``text``. Checks that every ball is supported
        and that each colour's board and reserve balls add up to 15."""
        if not isinstance(text, str):
            raise NotationError(f"expected a position string, got {type(text).__name__}")
        fields = [(m.start(), m.group()) for m in _TOKEN.finditer(text)]
        if len(fields) != 4:
            col, tok = (fields[4] if len(fields) > 4 else (len(text), None))
            raise NotationError(f"expected 4 fields separated by spaces ({_FIELDS}), found {len(fields)}",
                                text=text, column=col, token=tok)
        (lead, board), (mcol, mover), (lcol, light_text), (dcol, dark_text) = fields
        try:
            masks, _ = pyramid.parse_levels(board, "LD")
        except NotationError as err:
            raise _rebased(err, text, lead) from None
        light, dark = masks["L"], masks["D"]
        if mover not in ("L", "D"):
            raise NotationError("expected the side to move, L or D", text=text, column=mcol, token=mover)
        reserves = []
        for col, tok, colour in ((lcol, light_text, "light"), (dcol, dark_text, "dark")):
            if not tok.isascii() or not tok.isdigit() or int(tok) > BALLS:
                raise NotationError(f"expected the {colour} reserve, a number 0..{BALLS}", text=text, column=col, token=tok)
            reserves.append(int(tok))
        occ = light | dark
        for i in bits(occ):
            missing = SUPPORTS[i] & ~occ
            if missing:
                verb = "is" if missing.bit_count() == 1 else "are"
                raise NotationError(f"the ball on {NAMES[i]} is not supported: "
                                    f"{' '.join(NAMES[j] for j in bits(missing))} {verb} empty",
                                    text=text, column=lead + _CELL_COLUMN[i], token=board[_CELL_COLUMN[i]])
        for col, tok, colour, mask, reserve in ((lcol, light_text, "light", light, reserves[0]),
                                                (dcol, dark_text, "dark", dark, reserves[1])):
            on_board = mask.bit_count()
            if on_board + reserve != BALLS:
                raise NotationError(f"{colour} has {on_board} balls on the board and {reserve} in reserve: "
                                    f"they must add up to {BALLS}", text=text, column=col, token=tok)
        return PylosPosition(light, dark, "LD".index(mover), reserves[0], reserves[1])

    def format_position(self, position: PylosPosition) -> str:
        board = pyramid.format_levels({"L": position.light, "D": position.dark})
        return f"{board} {LETTERS[position.to_move]} {position.light_reserve} {position.dark_reserve}"

    def to_move(self, position: PylosPosition) -> str:
        return self.players[position.to_move]

    def cells(self, position: PylosPosition) -> dict[str, str]:
        return pyramid.cells_of({"L": position.light, "D": position.dark})

    def reserves(self, position: PylosPosition) -> dict[str, int]:
        return {"light": position.light_reserve, "dark": position.dark_reserve}

    def diagram(self, position: PylosPosition) -> str:
        picture = pyramid.diagram({"L": position.light, "D": position.dark})
        mover = position.to_move
        return (f"{picture}\n{COLOURS[mover].capitalize()} ({LETTERS[mover]}) to move\n"
                f"reserves: light {position.light_reserve}, dark {position.dark_reserve}")

    # -- turns ---------------------------------------------------------------------
    def parse_turn(self, position: PylosPosition, text: str) -> PylosTurn:
        """``1b2``, ``1a1-2b2``, ``1c3x1c3x2a1``: the turn as written (take-backs keep the
        written order, either order of two being accepted when it is legal); raises
        NotationError for bad text and IllegalTurn with the reason otherwise."""
        turn = self.read_turn(text)
        self._check(position, turn)
        return turn

    @staticmethod
    def read_turn(text: str) -> PylosTurn:
        """The turn written ``text`` without checking it against a position (NotationError
        for bad text)."""
        if not isinstance(text, str):
            raise NotationError(f"expected a turn string, got {type(text).__name__}")
        body = text.strip()
        lead = len(text) - len(text.lstrip())
        if not body:
            raise NotationError("expected a turn such as 1b2, 1a1-2b2 or 1c3x1c3x2a1", text=text, column=0)
        parts = [(lead + m.start(), m.group()) for m in _TURN_PART.finditer(body)]
        positions: list[int] = []
        for k, (col, part) in enumerate(parts):
            if k % 2 == 0:  # a position name is expected here
                if part in ("-", "x"):
                    raise NotationError("expected a position", text=text, column=col, token=part)
                positions.append(pyramid.parse_name(part, text=text, column=col))
            elif part == "-" and k != 1:
                raise NotationError("'-' may only follow the first position (a raise is written source-target)",
                                    text=text, column=col, token=part)
        if len(parts) % 2 == 0:
            col, part = parts[-1]
            raise NotationError(f"expected a position after {part!r}", text=text, column=col + 1)
        if len(parts) > 1 and parts[1][1] == "-":
            return PylosTurn(positions[1], positions[0], tuple(positions[2:]))
        return PylosTurn(positions[0], None, tuple(positions[1:]))

    def _check(self, position: PylosPosition, turn: PylosTurn) -> None:
        """IllegalTurn with the reason unless ``turn`` is legal in ``position``."""
        reason = why_illegal(position, turn, self._takes_back, self._patterns, self._moves_rule)
        if reason:
            raise IllegalTurn(reason)

    def format_turn(self, turn: PylosTurn) -> str:
        head = NAMES[turn.target] if turn.source is None else f"{NAMES[turn.source]}-{NAMES[turn.target]}"
        return head + "".join("x" + NAMES[r] for r in turn.removals)

    def play(self, position: PylosPosition, turn: PylosTurn) -> PylosPosition:
        self._check(position, turn)
        return apply(position, turn)

    def legal_turns(self, position: PylosPosition) -> Iterator[PylosTurn]:
        """Every legal turn, one per distinct result of the take-backs: two take-backs that
        may go in either order are given once, lower index first."""
        return iter(self.turn_list(position))

    def turn_list(self, position: PylosPosition) -> list[PylosTurn]:
        """:meth:`legal_turns` as a list (the fast path for playouts and perft)."""
        if ended(position, self._moves_rule) is not None:
            return []
        return generate(position, self._takes_back, self._patterns)

    def random_turn(self, position: PylosPosition, rng: random.Random) -> PylosTurn:
        """Uniform over :meth:`legal_turns`, building only the turn drawn."""
        if ended(position, self._moves_rule) is not None:
            raise IllegalTurn("the game is over: no turn to draw")
        return random_turn(position, self._takes_back, self._patterns, rng)

    def outcome(self, position: PylosPosition) -> Outcome | None:
        end = ended(position, self._moves_rule)
        if end is None:
            return None
        winner, reason = end
        return Outcome(result="1-0" if winner == 0 else "0-1", winner=self.players[winner], reason=reason)

    def infer(self, before: PylosPosition, after: PylosPosition, *, budget_ms: float = 1000.0) -> Inference:
        """Tries every legal turn (at most a few hundred); the budget is never reached."""
        return enumerate_inference(self, before, after, self.turn_list(before))

    # -- physical steps --------------------------------------------------------------
    def steps(self, position: PylosPosition, turn: PylosTurn) -> tuple[Step, ...]:
        """``place`` for a ball from the reserve; ``lift`` then ``place`` for a raise; a
        ``lift`` per ball taken back. The turn must be legal."""
        self._check(position, turn)
        return turn_steps(LETTERS[position.to_move], turn)

    def begin_turn(self, position: PylosPosition) -> PylosTurnInProgress:
        return PylosTurnInProgress.begin(position, self._takes_back, self._patterns, self._moves_rule)

