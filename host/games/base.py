"""What every rules engine offers, so records, the CLI and the referee need not know the game.

A :class:`Rules` object is one game with its variant and options fixed. Positions and turns
are immutable values owned by the engine; the rest of the project handles them only through
the Rules methods below.
"""

from __future__ import annotations

import abc
import random
from dataclasses import dataclass
from typing import Any, Hashable, Iterable, Iterator, Mapping, Sequence


class RulesError(ValueError):
    """Base of every error the engines raise for bad input."""


class NotationError(RulesError):
    """Text that does not parse: says which token, where, and what was expected."""

    def __init__(self, message: str, *, text: str = "", column: int | None = None, token: str | None = None):
        self.text = text
        self.column = column
        self.token = token
        where = ""
        if column is not None:
            where = f" (column {column + 1}"
            where += f", at {token!r})" if token else ")"
        elif token:
            where = f" (at {token!r})"
        super().__init__(message + where)


class IllegalTurn(RulesError):
    """A well-formed turn that the rules do not allow in the given position."""


class OptionError(RulesError):
    """An unknown game, variant or option value."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended. ``result`` uses record notation: ``1-0`` when the first
    player (Light, White, Black in Sparklies) wins."""

    result: str
    winner: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class Inference:
    """The answer of turn inference.

    status: ``found`` (``turn`` leads from before to after), ``none`` (no legal turn does;
    ``unexplained`` lists the cells that the closest legal turn still gets wrong, and ``reason``
    says why in words), or ``undecided`` (the budget ran out first)."""

    status: str
    turn: Any = None
    unexplained: tuple[str, ...] = ()
    reason: str = ""
    explored: int = 0


@dataclass(frozen=True, slots=True)
class Step:
    """One physical action on the board. ``kind`` is from the game's step vocabulary
    (documented in docs/formats.md), ``where`` a position or square name, ``piece`` the
    piece letter involved, ``to`` a second position where the step has one (a drop)."""

    kind: str
    where: str | None = None
    piece: str | None = None
    to: str | None = None

    def __str__(self) -> str:
        parts = [self.kind]
        if self.piece:
            parts.append(self.piece)
        if self.where:
            parts.append(self.where)
        if self.to:
            parts.append("->" + self.to)
        return " ".join(parts)


class TurnInProgress(abc.ABC):
    """A turn being made on the physical board, after some of its steps.

    ``cells`` is what the board shows now (position name -> cell letter, the same letters as
    observation logs), so every intermediate state is representable and comparable with what a
    sensor sees. ``complete_turns`` are the whole turns that the steps so far already make
    (several where the rest is optional, such as a second Pylos ball taken back)."""

    @abc.abstractmethod
    def cells(self) -> dict[str, str]: ...

    @abc.abstractmethod
    def next_steps(self) -> Iterator[Step]: ...

    @abc.abstractmethod
    def apply(self, step: Step) -> "TurnInProgress": ...

    def follow(self, step: Step) -> "TurnInProgress":
        """The state after ``step``, a step that :meth:`next_steps` of this same state gave:
        what searches over steps call, so a game may skip checking the step again there."""
        return self.apply(step)

    @abc.abstractmethod
    def complete_turns(self) -> tuple[Any, ...]: ...

    @abc.abstractmethod
    def key(self) -> Hashable:
        """Identifies the state, so searches over steps can skip states already seen."""


def walk_turn(root: TurnInProgress, max_steps: int | None = None) -> Iterator[tuple[TurnInProgress, int]]:
    """``root`` and every state reachable from it by legal steps, at most ``max_steps`` in,
    each with its depth; equal states (same ``key()``) once. Lazy, so a search can stop at
    the first state it wants."""
    done = {root.key()}
    todo = [(root, 0)]
    while todo:
        state, depth = todo.pop()
        yield state, depth
        if max_steps is not None and depth >= max_steps:
            continue
        for step in state.next_steps():
            nxt = state.follow(step)
            key = nxt.key()
            if key not in done:
                done.add(key)
                todo.append((nxt, depth + 1))


class Rules(abc.ABC):
    """One game with its variant and options fixed."""

    #: game name as written in records: ``pylos``, ``sparks``, ``sparklies``
    game: str = ""
    #: players in turn order; the first one's win is ``1-0``
    players: tuple[str, str] = ("", "")

    variant: str = "standard"

    # -- positions ---------------------------------------------------------------
    @abc.abstractmethod
    def start(self) -> Any:
        """The start position (for Sparklies a position needs colours: see the engine)."""

    @abc.abstractmethod
    def parse_position(self, text: str) -> Any: ...

    @abc.abstractmethod
    def format_position(self, position: Any) -> str: ...

    @abc.abstractmethod
    def to_move(self, position: Any) -> str:
        """The name of the player to move (one of ``players``)."""

    @abc.abstractmethod
    def cells(self, position: Any) -> dict[str, str]:
        """What the board shows: every position name mapped to its cell letter."""

    @abc.abstractmethod
    def diagram(self, position: Any) -> str:
        """A readable multi-line text picture of the position."""

    def reserves(self, position: Any) -> dict[str, int] | None:
        """The balls each player still has off the board (what sensed reserve trays hold),
        None for a game whose positions keep no reserves."""
        return None

    # -- turns -------------------------------------------------------------------
    @abc.abstractmethod
    def parse_turn(self, position: Any, text: str) -> Any:
        """The turn written ``text``; it is legal in ``position`` or an error is raised
        (:class:`NotationError` for bad text, :class:`IllegalTurn` with the reason)."""

    @abc.abstractmethod
    def format_turn(self, turn: Any) -> str: ...

    @abc.abstractmethod
    def play(self, position: Any, turn: Any) -> Any:
        """The position after a legal ``turn``; raises IllegalTurn otherwise."""

    def legal_turns(self, position: Any) -> Iterator[Any]:
        """Every legal turn (pyramid games). Sparklies turns can cycle forever, so it offers
        :meth:`begin_turn` step generation instead."""
        raise NotImplementedError(f"{self.game}: turns are generated step by step, use begin_turn")

    def random_turn(self, position: Any, rng: "random.Random") -> Any:
        """A legal turn drawn at random (for playouts, the simulator and benchmarks); the
        position must not be finished."""
        return rng.choice(list(self.legal_turns(position)))

    @abc.abstractmethod
    def outcome(self, position: Any) -> Outcome | None:
        """None while the game goes on."""

    @abc.abstractmethod
    def infer(self, before: Any, after: Any, *, budget_ms: float = 1000.0) -> Inference: ...

    # -- physical steps ----------------------------------------------------------
    @abc.abstractmethod
    def steps(self, position: Any, turn: Any) -> tuple[Step, ...]:
        """The physical steps a player makes on the board for ``turn``, in order."""

    @abc.abstractmethod
    def begin_turn(self, position: Any) -> TurnInProgress: ...

    # -- records -----------------------------------------------------------------
    @abc.abstractmethod
    def tags(self) -> dict[str, str]:
        """The record tags that fix this game's variant and options (``Variant``, ``Size``...)."""


def diff_cells(a: Mapping[str, str], b: Mapping[str, str]) -> tuple[str, ...]:
    """Names of the cells whose content differs, in the order of ``a``."""
    return tuple(name for name in a if a[name] != b.get(name))


def closest_miss(
    cells_after: Mapping[str, str], candidates: Iterable[Mapping[str, str]]
) -> tuple[str, ...]:
    """The cells that the candidate closest to ``cells_after`` still gets wrong."""
    best: tuple[str, ...] | None = None
    for cand in candidates:
        miss = diff_cells(cells_after, cand)
        if best is None or len(miss) < len(best):
            best = miss
    return best or ()


def enumerate_inference(rules: Rules, before: Any, after: Any, turns: Sequence[Any] | Iterable[Any]) -> Inference:
    """Turn inference by trying every legal turn: enough for the pyramid games, whose
    turn counts are small. Compares whole positions (the mover changes too)."""
    target_cells = rules.cells(after)
    results = []
    explored = 0
    for turn in turns:
        explored += 1
        result = rules.play(before, turn)
        if result == after:
            return Inference("found", turn=turn, explored=explored)
        results.append(rules.cells(result))
    if not results:
        return Inference("none", unexplained=diff_cells(rules.cells(before), target_cells),
                         reason="no legal turn: the game is over", explored=0)
    miss = closest_miss(target_cells, results)
    reason = ("no legal turn explains " + " ".join(miss)) if miss else "the board matches but not the side to move or reserves"
    return Inference("none", unexplained=miss, reason=reason, explored=explored)


def bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask`` (positions, squares), lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
