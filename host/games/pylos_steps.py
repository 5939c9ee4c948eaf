"""Pylos turns as physical steps, so the referee can follow a turn ball by ball.

Vocabulary (``Step.kind``): ``place`` (a ball of the mover's colour put on a position, from
the reserve or from the hand) and ``lift`` (a ball taken off a position: into the hand for
a raise, or back to the reserve as a take-back). A turn in progress is one of three
phases: nothing done yet, a ball lifted for a raise and still in the hand, or the ball put
(take-backs may follow). Legality comes from the same checks as whole turns (pylos_core).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Iterator

from . import pyramid
from .base import IllegalTurn, Step, TurnInProgress
from .pylos_core import (COLOURS, LETTERS, RAISE_TARGETS, PylosPosition, PylosTurn, completed, ended, members,
                         put, supporting, why_no_takeback, why_not_removal, why_not_source, why_not_target)
from .pyramid import NAMES, free_spots

PLACE = "place"
LIFT = "lift"


def turn_steps(letter: str, turn: PylosTurn) -> tuple[Step, ...]:
    """The steps of a whole turn, in the order they are made."""
    out = []
    if turn.source is not None:
        out.append(Step(LIFT, NAMES[turn.source], letter))
    out.append(Step(PLACE, NAMES[turn.target], letter))
    out.extend(Step(LIFT, NAMES[r], letter) for r in turn.removals)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PylosTurnInProgress(TurnInProgress):
    """The turn made so far from ``before``: ``source`` is the raised ball's old position
    once lifted, ``target`` where the ball was put once put, ``removals`` the balls taken
    back in order, ``made`` the square (or line) the put ball completed (0 for none)."""

    before: PylosPosition
    takes_back: bool
    patterns: tuple[tuple[int, ...], ...]
    moves_rule: bool
    source: int | None = None
    target: int | None = None
    removals: tuple[int, ...] = ()
    made: int = 0

    @classmethod
    def begin(cls, before: PylosPosition, takes_back: bool, patterns: tuple[tuple[int, ...], ...],
              moves_rule: bool) -> "PylosTurnInProgress":
        return cls(before, takes_back, patterns, moves_rule)

    # -- the board now ---------------------------------------------------------------
    def _change(self) -> int:
        change = 0  # toggled per step: a ball put on target and taken back cancels out
        if self.source is not None:
            change ^= 1 << self.source
        if self.target is not None:
            change ^= 1 << self.target
        for r in self.removals:
            change ^= 1 << r
        return change

    def _board(self) -> tuple[int, int]:
        """(light, dark) as the board shows them now."""
        change = self._change()
        if self.before.to_move:
            return self.before.light, self.before.dark ^ change
        return self.before.light ^ change, self.before.dark

    def cells(self) -> dict[str, str]:
        light, dark = self._board()
        return pyramid.cells_of({"L": light, "D": dark})

    def key(self) -> Hashable:
        light, dark = self._board()
        return (self.before, light, dark, self.source, self.target)

    # -- what may follow ---------------------------------------------------------------
    def next_steps(self) -> Iterator[Step]:
        pos = self.before
        letter = LETTERS[pos.to_move]
        if self.target is None and self.source is None:
            if ended(pos, self.moves_rule) is not None:
                return
            occ = pos.occupied
            sp = free_spots(occ)
            if pos.reserve:
                for t in members(sp):
                    yield Step(PLACE, NAMES[t], letter)
            for s in members(pos.own & ~supporting(occ)):
                if sp & RAISE_TARGETS[s]:
                    yield Step(LIFT, NAMES[s], letter)
        elif self.target is None:
            assert self.source is not None
            for t in members(free_spots(pos.occupied) & RAISE_TARGETS[self.source]):
                yield Step(PLACE, NAMES[t], letter)
        elif self.made and self.takes_back and len(self.removals) < 2:
            light, dark = self._board()
            own = dark if pos.to_move else light
            for r in members(own & ~supporting(light | dark)):
                yield Step(LIFT, NAMES[r], letter)

    def complete_turns(self) -> tuple[PylosTurn, ...]:
        if self.target is None:
            return ()
        if self.made and self.takes_back and not self.removals:
            return ()
        return (PylosTurn(self.target, self.source, self.removals),)

    def apply(self, step: Step) -> "PylosTurnInProgress":
        """The state after ``step``; IllegalTurn says why a step is not allowed."""
        pos = self.before
        letter = LETTERS[pos.to_move]
        colour = COLOURS[pos.to_move]
        if not isinstance(step, Step) or step.kind not in (PLACE, LIFT):
            raise IllegalTurn(f"unknown Pylos step {step!r}: expected kind 'place' or 'lift'")
        if step.piece is not None and step.piece != letter:
            raise IllegalTurn(f"it is {colour}'s turn: only {colour} balls ({letter}) are put or lifted, "
                              f"not {step.piece!r}")
        where = pyramid.parse_name(step.where or "", text=str(step))
        if self.target is None and self.source is None:
            end = ended(pos, self.moves_rule)
            if end is not None:
                raise IllegalTurn(f"the game is over: {end[1]}")
            if step.kind == LIFT:
                reason = why_not_source(pos, where)
                if reason is None and not free_spots(pos.occupied) & RAISE_TARGETS[where]:
                    reason = f"{NAMES[where]} has no higher supported position to be raised to"
                if reason:
                    raise IllegalTurn(reason)
                return self._with(source=where)
            return self._put_ball(where)
        if self.target is None:
            if step.kind == LIFT:
                raise IllegalTurn(f"the ball lifted from {NAMES[self.source]} (in the hand) must be placed "
                                  f"before another ball is lifted")
            return self._put_ball(where)
        if step.kind == PLACE:
            raise IllegalTurn(f"the ball was already placed on {NAMES[self.target]}: "
                              "only take-backs (lifts) may follow")
        light, dark = self._board()
        own = dark if pos.to_move else light
        reason = (why_no_takeback(self.target, self.made, self.takes_back, self.patterns, colour, len(self.removals))
                  or why_not_removal(own, light | dark, where, colour, self.removals))
        if reason:
            raise IllegalTurn(reason)
        return self._with(removals=self.removals + (where,))

    def _put_ball(self, target: int) -> "PylosTurnInProgress":
        reason = why_not_target(self.before, target, self.source)
        if reason:
            raise IllegalTurn(reason)
        own, _ = put(self.before.own, self.before.occupied, target, self.source)
        made = completed(target, own, self.patterns)
        return self._with(target=target, made=made)

    def _with(self, **changes: object) -> "PylosTurnInProgress":
        fields = {"source": self.source, "target": self.target, "removals": self.removals, "made": self.made}
        fields.update(changes)
        return PylosTurnInProgress(self.before, self.takes_back, self.patterns, self.moves_rule,
                                   **fields)  # type: ignore[arg-type]
