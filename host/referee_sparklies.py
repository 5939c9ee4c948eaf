"""The Referee's decisions on a Sparklies board, kept apart from the pyramid games': a
stable board is checked as a partial turn (:func:`~host.referee_match.sparklies_board`),
and a turn, once the next player's first step closes it, is inferred whole by the rules
(its pings are partly invisible). A mixin: it works on the :class:`~host.referee.Referee`'s
state and events."""

from __future__ import annotations

from typing import Any

from . import events as ev
from .events import Event
from .games import RulesError
from .observation import Observation
from .referee_match import CellDiff, sparklies_board
from .referee_state import AWAITING, FINISHED, FLAGGED, PLAYING


class SparkliesDecisions:
    """:class:`~host.referee.Referee`'s Sparklies steps (the referee's own attributes and
    event makers are used as they are)."""

    rules: Any
    position: Any
    status: str
    flag: Any
    pending_cells: dict[str, str] | None
    infer_budget_ms: float
    candidates: list
    question: str

    def _decide_sparklies(self, t: float, obs: Observation) -> list[Event]:
        rules, position = self.rules, self.position
        mover = rules.to_move(position)[0]
        cells, bad = sparklies_board(rules, position, obs, mover)
        events: list[Event] = []
        if bad:
            pend = self.pending_cells
            if pend is not None and self.status == PLAYING and all(v[1] != "." for v in pend.values()):
                events += self._close_sparklies(t, pend)  # the game was over: the board is cleared
                if self.status == FINISHED:
                    return events + self._after_game(t, cells)
                return events
            back = self._earlier_position(cells)
            if back is not None:
                return self._takeback(t, back)
            return self._illegal(t, bad)
        if self.status == AWAITING:
            return events
        before = rules.cells(position)
        other = "w" if mover == "b" else "b"
        opened = [n for n, v in cells.items() if v[1] == other and before[n][1] != other]
        if opened:  # the next player's first step: this turn is over
            after_cells = dict(cells)
            after_cells[opened[0]] = cells[opened[0]][0] + "."
            flagged = self.status == FLAGGED
            events = self._close_sparklies(t, after_cells)
            if flagged:
                if self.status == FLAGGED:
                    return events  # still illegal (the same cells again raise nothing new)
                self.flag = None
                events.insert(0, Event(ev.RESTORED, t, {"position": rules.format_position(position)}))
            if self.status == PLAYING and self.position is not position:
                self.pending_cells = cells  # the next turn under way
            return events
        if self.status == FLAGGED:
            events.append(self._restored(t))
        self.pending_cells = cells if cells != before else None
        return events

    def _close_sparklies(self, t: float, cells: dict[str, str], move: str | None = None) -> list[Event]:
        rules, position = self.rules, self.position
        mover = rules.to_move(position)
        try:
            after = rules.make_position({n: v[0] for n, v in cells.items()},
                                        black=[n for n, v in cells.items() if v[1] == "b"],
                                        white=[n for n, v in cells.items() if v[1] == "w"],
                                        to_move=rules.players[1 - rules.players.index(mover)])
        except RulesError as exc:
            return self._illegal(t, [], reason=str(exc))
        if move is not None:
            turn = rules.parse_turn(position, move)
            return self._commit(t, turn, rules.play(position, turn))
        answer = rules.infer(position, after, budget_ms=self.infer_budget_ms)
        if answer.status == "found":
            return self._commit(t, answer.turn, after)
        if answer.status == "none":
            before = rules.cells(position)
            diffs = [CellDiff(n, before[n], cells[n]) for n in answer.unexplained if n in cells]
            return self._illegal(t, diffs, reason=answer.reason)
        self.candidates = []
        self.status = AWAITING
        self.question = "The turn could not be worked out in time: confirm it by entering the turn."
        return [Event(ev.CONFIRM_NEEDED, t, {"question": self.question, "candidates": []})]

    def _maybe_sparklies_start(self, obs: Observation) -> list[Event]:
        cells = {n: obs.cells.get(n, "??") for n in self.names}
        if any("?" in v for v in cells.values()) or any(v[1] != "." for v in cells.values()):
            return []
        try:
            start = self.rules.make_position({n: v[0] for n, v in cells.items()})
        except RulesError:
            return []
        return self._new_game(obs.t, start)
