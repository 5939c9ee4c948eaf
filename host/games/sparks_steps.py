"""Sparks turns as the physical steps a player makes on the board.

Vocabulary (Step.kind): ``lift`` (the coal is taken off the board: where, piece = its
colour), ``drop`` (a ball falls from ``where`` to ``to``), ``place`` (a ball is put on
``where``), ``return`` (the spark in hand goes back to the supply; nothing changes on the
board). Taking a spark from the supply is not a step: it is not visible and a spark is always
available. Orders: free coal: lift, place R on the coal's place, place the coal; supported
coal: lift, the drops in cascade order, then ``return`` and the coal, or the two placements
in either order. Every state in between is a :class:`SparksTurnInProgress` whose ``cells``
are what the board shows, so an observed board can be matched against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Iterator

from . import pyramid
from .base import IllegalTurn, Step, TurnInProgress
from .pyramid import ABOVE, NAMES, TOP, bits
from .sparks_core import (OWN, SparksPosition, SparksTurn, cells, free_spots, letter_at, move_ball,
                          spots_after, takeable, winner_on_top)


@dataclass(frozen=True, slots=True)
class SparksTurnInProgress(TurnInProgress):
    """One state of a turn on the board. ``phase`` is what comes next: ``take`` (lift a coal),
    ``fill`` (the spark goes on the free coal's place), ``drop`` (a ball falls into ``hole``),
    ``return`` (the spark goes back), ``place`` (a ball from ``hand`` is placed), ``done``."""

    position: SparksPosition
    white: int
    black: int
    red: int
    phase: str = "take"
    coal: int = -1
    hole: int = -1
    choices: tuple[int, ...] = ()
    hand: tuple[str, ...] = ()
    placements: tuple[tuple[str, int], ...] = ()

    @classmethod
    def start(cls, position: SparksPosition) -> "SparksTurnInProgress":
        """The state before the first step of the side to move."""
        phase = "done" if winner_on_top(position) is not None else "take"
        return cls(position, position.white, position.black, position.red, phase)

    # -- what the board shows ------------------------------------------------------------
    def cells(self) -> dict[str, str]:
        return cells(self.white, self.black, self.red)

    @property
    def occupied(self) -> int:
        return self.white | self.black | self.red

    def key(self) -> Hashable:
        return (self.white, self.black, self.red, self.phase, self.coal, self.hole,
                self.choices, self.hand, self.placements)

    # -- steps --------------------------------------------------------------------------
    def next_steps(self) -> Iterator[Step]:
        phase = self.phase
        occ = self.occupied
        me = OWN[self.position.to_move]
        if phase == "take":
            own = self.white if me == "W" else self.black
            for c in bits(takeable(own, occ)):
                yield Step("lift", where=NAMES[c], piece=me)
        elif phase == "fill":
            yield Step("place", where=NAMES[self.coal], piece="R")
        elif phase == "drop":
            for f in bits(ABOVE[self.hole] & occ):
                yield Step("drop", where=NAMES[f], piece=letter_at(self.white, self.black, self.red, f),
                           to=NAMES[self.hole])
        elif phase == "return":
            yield Step("return", piece="R")
        elif phase == "place":
            free = free_spots(occ)
            for letter in dict.fromkeys(self.hand):
                for spot in bits(free):
                    # the spark first only where the coal can still go afterwards
                    if letter == "R" and me in self.hand and not spots_after(free, occ, spot):
                        continue
                    yield Step("place", where=NAMES[spot], piece=letter)

    def apply(self, step: Step) -> "SparksTurnInProgress":
        if step not in self.next_steps():
            allowed = list(self.next_steps())
            if not allowed:
                raise IllegalTurn(f"{step}: the turn is already complete" if self.phase == "done"
                                  else f"{step}: no step is possible")
            kinds = sorted({s.kind for s in allowed})
            sample = ", ".join(str(s) for s in allowed[:4]) + (" ..." if len(allowed) > 4 else "")
            raise IllegalTurn(f"{step} is not allowed now: expected a {' or '.join(kinds)} step ({sample})")
        return self.follow(step)

    def follow(self, step: Step) -> "SparksTurnInProgress":
        me = OWN[self.position.to_move]
        masks = [self.white, self.black, self.red]
        kind = step.kind
        if kind == "lift":
            coal = pyramid.BY_NAME[step.where]
            masks["WB".index(me)] &= ~(1 << coal)
            occ = masks[0] | masks[1] | masks[2]
            phase = "drop" if ABOVE[coal] & occ else "fill"
            return self._to(masks, phase, coal=coal, hole=coal)
        if kind == "drop":
            frm, hole = pyramid.BY_NAME[step.where], self.hole
            cands = ABOVE[hole] & self.occupied
            choices = self.choices + ((frm,) if cands & (cands - 1) else ())
            move_ball(masks, frm, hole)
            occ = masks[0] | masks[1] | masks[2]
            hand = self.hand
            if hole == self.coal:
                # the ball that fell into the coal's place decides what is in hand
                hand = (me,) if step.piece == "R" else (me, "R")
            phase = "drop" if ABOVE[frm] & occ else ("return" if hand == (me,) else "place")
            return self._to(masks, phase, hole=frm, choices=choices, hand=hand)
        if kind == "return":
            return self._to([self.white, self.black, self.red], "place")
        # place
        spot = pyramid.BY_NAME[step.where]
        letter = step.piece or ""
        masks["WBR".index(letter)] |= 1 << spot
        if self.phase == "fill":
            return self._to(masks, "place", hand=(me,))
        hand = list(self.hand)
        hand.remove(letter)
        placements = self.placements + ((letter, spot),)
        finished = not hand or (letter == me and spot == TOP)
        return self._to(masks, "done" if finished else "place", hand=tuple(hand), placements=placements)

    def _to(self, masks: list[int], phase: str, *, coal: int | None = None, hole: int | None = None,
            choices: tuple[int, ...] | None = None, hand: tuple[str, ...] | None = None,
            placements: tuple[tuple[str, int], ...] | None = None) -> "SparksTurnInProgress":
        """This state with the board ``masks`` (white, black, red), the next ``phase`` and
        any other field given: what dataclasses.replace does, at a fraction of its cost."""
        return SparksTurnInProgress(
            self.position, masks[0], masks[1], masks[2], phase, self.coal if coal is None else coal,
            self.hole if hole is None else hole, self.choices if choices is None else choices,
            self.hand if hand is None else hand, self.placements if placements is None else placements)

    def complete_turns(self) -> tuple[SparksTurn, ...]:
        if self.phase != "done" or self.coal < 0:
            return ()
        return (SparksTurn(self.coal, self.choices, self.placements),)

    def after(self) -> SparksPosition:
        """The position the finished turn leads to (the other side to move)."""
        if self.phase != "done" or self.coal < 0:
            raise IllegalTurn("the turn is not complete yet")
        return SparksPosition(self.white, self.black, self.red, 1 - self.position.to_move)
