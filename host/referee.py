"""The Referee: observations of the board in, events out.

It keeps the last confirmed position and the turn in progress. A change counts once it has
been stable (:class:`Stability`); a stable board is then matched against every physical
state of the turn in progress (pyramid games) or checked as a partial Sparklies turn. A
board no legal continuation explains raises an ``illegal`` flag, and nothing is accepted
until the board is put back (``restored``) or taken back to an earlier position.
Time comes from the observations and commands (``t``); wall-clock timestamps for the record
come from the injected ``now``.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from . import events as ev
from .events import Event
from .games import Rules, RulesError
from .referee_sparklies import SparkliesDecisions
from .referee_state import AWAITING, FINISHED, FLAGGED, PLAYING, game_tags, referee_state
from .observation import Observation, Press, matches
from .stability import Stability, StabilityFilter
from .referee_match import (CellDiff, TurnGraph, describe_diff, occluded_cells, reaches, seen_cells,
                            two_unseen_turns, unseen_turns)

#: how many steps into the next turn a board may be when the end of this one was not seen
NEXT_STEPS = 4
#: how many turns a takeback made out of sight may undo
TAKEN_BACK_UNSEEN = 2
#: how long the board must have been out of sight (from the first observation with a place
#: unknown for no reason to the last, since the board last matched a turn) for two turns, or
#: a takeback and a turn, to have been made meanwhile: a hand that makes one move, legal or
#: not, hides it for less
OUT_OF_SIGHT_S = 2.0


class CommandError(ValueError):
    """A command the referee cannot carry out now; says why."""


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(ts: datetime) -> str:
    return ts.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


class Referee(SparkliesDecisions):
    """Referees one game at a time of one game kind (``rules``)."""

    def __init__(self, rules: Rules, *, start: Any | None = None, stability: Stability = Stability(),
                 coverage: frozenset[str] | None = None, players: Mapping[str, str] | None = None,
                 now: Callable[[], datetime] = utc_now, infer_budget_ms: float = 300.0):
        self.rules = rules
        self.now = now
        self.infer_budget_ms = infer_budget_ms
        self.sparklies = rules.game == "sparklies"
        #: the reserve trays' counts last seen (a board that senses them), else None
        self.reserves_seen: dict[str, int] | None = None
        template = rules.start(random.Random(0)) if self.sparklies else rules.start()
        self.names = frozenset(rules.cells(template))
        self.coverage = self.names if coverage is None else frozenset(coverage) & self.names
        self.filter = StabilityFilter(stability)
        self.players: dict[str, str] = dict(players or {})
        self.start_position: Any = start if start is not None else (None if self.sparklies else rules.start())
        self.positions: list[Any] = []
        self.turns: list[Any] = []
        self.stamps: list[str | None] = []  # wall-clock time of each turn (ISO 8601), for displays
        self.status = PLAYING
        self.flag: list[CellDiff] | None = None
        self.flag_reason: str | None = None
        self.candidates: list[tuple[Any, Any]] = []  # awaiting confirmation: (turn, after)
        self.question = ""  # what the players are asked while awaiting confirmation
        self.pending: list[int] = []  # states of the turn graph the board last matched
        self.last_seen: dict[str, str] = {}
        self.previous_seen: dict[str, str] = {}
        self.pending_cells: dict[str, str] | None = None  # Sparklies: the board of the turn in progress
        self.result: str = "*"
        self.buttons = False  # the board has turn buttons (one has been pressed)
        self._pressed_on = False  # the next player pressed their button during a question
        self._graphs: dict[Any, TurnGraph] = {}
        #: a board was out of sight since the board last matched a turn: one may have gone unseen
        self._unseen = False
        #: the first and last observations since then with a place unknown for no reason
        self._hidden: tuple[float, float] | None = None
        #: the last board out of sight that nothing explained (position, turns, cells): not searched again
        self._unexplained: tuple | None = None

    # -- public ------------------------------------------------------------------------
    @property
    def position(self) -> Any | None:
        return self.positions[-1] if self.positions else None

    def begin(self, t: float) -> list[Event]:
        """Start the game at the configured start (Sparklies without a start waits for an
        uncontrolled board)."""
        if self.start_position is None:
            return []
        return self._new_game(t, self.start_position)

    def resume(self, start: Any, turns: list[Any], flag: list[CellDiff] | None = None, *,
               stamps: list[str | None] | None = None, flag_reason: str | None = None,
               question: str | None = None, candidates: list[str] | None = None) -> None:
        """Continue a recorded game (after a restart): no events, the board is checked
        against it from the next observation on. ``flag``: the cells of an illegal-move
        episode still open (and ``flag_reason`` what was wrong); the game stays flagged until
        the board is put right. ``stamps``: the recorded turns' wall-clock times.
        ``question`` and ``candidates`` (turns in record notation): a question left
        unanswered, which stands again, since the players may have played on meanwhile and
        only the question tells their board from an illegal one. A question without
        candidates is not taken up: the board is worked out afresh."""
        self.start_position = start
        self.positions = [start]
        self.turns = []
        for turn in turns:
            self.turns.append(turn)
            self.positions.append(self.rules.play(self.positions[-1], turn))
        self.stamps = list(stamps) if stamps is not None and len(stamps) == len(turns) else [None] * len(turns)
        over = self.rules.outcome(self.positions[-1])
        self.status = FINISHED if over else (FLAGGED if flag is not None else PLAYING)
        self.result = over.result if over else "*"
        self.flag, self.candidates, self.pending = (None if over else flag), [], []
        self.flag_reason = flag_reason if self.flag is not None else None
        if question is not None and candidates and self.status == PLAYING:
            position = self.positions[-1]
            chosen = [self.rules.parse_turn(position, text) for text in candidates]
            self.candidates = [(turn, self.rules.play(position, turn)) for turn in chosen]
            self.question, self.status, self._pressed_on = question, AWAITING, False

    def observe(self, obs: Observation | Press) -> list[Event]:
        started = self.begin(obs.t) if self.position is None and not self.sparklies else []
        if isinstance(obs, Press):
            return started + self.press(obs)
        if obs.reserves is not None:
            self.reserves_seen = dict(obs.reserves)
        if self.position is not None and not self.sparklies and occluded_cells(self.rules, obs, self.coverage):
            self._hidden = (self._hidden[0] if self._hidden else obs.t, obs.t)
        stable = self.filter.feed(obs)
        if stable is None:
            return started
        return started + self._decide(stable)

    def press(self, press: Press) -> list[Event]:
        """A button on the board. A player's turn button closes that player's turn (pressed
        after the board already showed the turn over, it changes nothing); the confirm button
        confirms the only candidate. A press that means nothing now is ignored: a button
        cannot be answered like a command."""
        settled: list[Event] = []
        if press.button == "end-turn":
            self.buttons = True
            if self.position is not None:
                last = self.filter.settle()
                settled = self._decide(last) if last is not None else []
        if self.position is None or self.status in (FINISHED, FLAGGED):
            return settled
        return settled + self._pressed(press)

    def _pressed(self, press: Press) -> list[Event]:
        if press.button == "confirm" and press.choice is not None and self.status == AWAITING:
            # the confirm button while the lights showed one candidate: that one
            if press.choice >= len(self.candidates):
                return []
            move = self.rules.format_turn(self.candidates[press.choice][0])
            try:
                return self.command("confirm", press.t, {"move": move})
            except (CommandError, RulesError):
                return []
        if press.button == "end-turn":
            if self.status != AWAITING and press.player is not None and press.player != self.rules.to_move(self.position):
                return []
            if self.status == AWAITING:
                # the question stands: the players answer it, not the clock; but the next
                # player ending a turn says the players have played on
                self._pressed_on = self._pressed_on or press.player != self.rules.to_move(self.position)
                return []
        try:
            return self.command("end-turn" if press.button == "end-turn" else "confirm", press.t)
        except (CommandError, RulesError):
            return []

    def command(self, name: str, t: float, args: Mapping[str, Any] | None = None) -> list[Event]:
        """``new-game``, ``takeback``, ``confirm``, ``end-turn`` or ``set-players``;
        CommandError when it cannot be done now."""
        args = dict(args or {})
        if name == "set-players":
            players = args.get("players")
            if not isinstance(players, dict) or not set(players) <= set(self.rules.players) or not all(
                    isinstance(v, str) for v in players.values()):
                raise CommandError(f"set-players needs 'players': an object with keys among {', '.join(self.rules.players)}")
            self.players.update(players)
            return []
        if name == "new-game":
            if self.sparklies and "start" not in args:
                self.positions, self.turns, self.start_position = [], [], None
                self.status, self.flag, self.candidates = PLAYING, None, []
                self.filter.reset()
                return []
            start = self.rules.parse_position(args["start"]) if "start" in args else self.rules.start()
            events = self._new_game(t, start)
            self.filter.reset()
            return events
        if self.position is None:
            raise CommandError("no game in progress")
        if name == "takeback":
            keep = args.get("to_turn", len(self.turns) - 1)
            if not self.turns:
                raise CommandError("nothing to take back")
            if isinstance(keep, int) and keep < 0:
                raise CommandError(f"takeback: only {len(self.turns)} turn{'s' if len(self.turns) > 1 else ''} "
                                   f"played, not more")
            if not isinstance(keep, int) or not 0 <= keep < len(self.turns):
                raise CommandError(f"takeback: to_turn must be a number of turns from 0 to {len(self.turns) - 1}")
            # the board still shows the undone turns until the players put them back: only
            # the next change to it is judged
            return self._takeback(t, keep)
        if name in ("end-turn", "confirm"):
            move = args.get("move") if name == "confirm" else None
            if move is not None and not isinstance(move, str):
                raise CommandError("confirm: 'move' must be a turn in record notation")
            events = self._close(t, move)
            self.filter.reset()  # the board may already show the next turn: judge it again
            return events
        raise CommandError(f"unknown command {name!r}")

    def state(self) -> dict[str, Any]:
        """Everything a display draws (docs/mqtt.md, State)."""
        return referee_state(self)

    # -- decisions ---------------------------------------------------------------------
    def _decide(self, obs: Observation) -> list[Event]:
        if self.position is None:
            return self._maybe_sparklies_start(obs)
        if occluded_cells(self.rules, obs, self.coverage):
            self._unseen = True
            return []  # a hand or glare: never a move or a flag
        seen = seen_cells(self.rules, obs, self.coverage)
        self.previous_seen, self.last_seen = self.last_seen, seen
        if self.status == FINISHED:
            return self._after_game(obs.t, dict(obs.cells) if self.sparklies else seen)
        if self.sparklies:
            return self._decide_sparklies(obs.t, obs)
        return self._decide_pyramid(obs.t, seen)

    def _graph(self, position: Any) -> TurnGraph:
        graph = self._graphs.get(position)
        if graph is None:
            if len(self._graphs) > 64:
                self._graphs.clear()
            graph = self._graphs[position] = TurnGraph(self.rules, position)
        return graph

    def _decide_pyramid(self, t: float, seen: dict[str, str]) -> list[Event]:
        events: list[Event] = []
        if self.status == AWAITING:
            hits = [(turn, after) for turn, after in self.candidates if self._graph(after).matching(seen)]
            hits = self._by_reserves(hits) if len(hits) > 1 else hits
            if len(hits) > 1:
                return []  # still undecided: the question stands
            if hits:
                events += self._commit(t, *hits[0])
                if self.status == FINISHED:
                    return events
            elif self._all_end_alike(self.candidates):
                # unanswered, but every candidate ends the game alike and the players have
                # moved on (cleared the board): the game is over
                events += self._commit(t, *self.candidates[0], unconfirmed=True)
                return events + self._after_game(t, seen)
            elif ((not self.buttons or self._pressed_on)
                  and any(self._played_on(after, seen) for _, after in self.candidates)):
                return []  # the players played on without answering: the question stands
            else:  # none of them: the players went another way (put it back, took back)
                self.status, self.candidates = PLAYING, []
                events.append(Event(ev.CONFIRM_WITHDRAWN, t, {
                    "reason": "the board no longer shows any of the turns in question",
                    "position": self.rules.format_position(self.position)}))
        graph = self._graph(self.position)
        # what was seen earlier this turn narrows what the board can show now
        found = graph.matching(seen, graph.descendants(self.pending)) if self.pending else []
        found = found or graph.matching(seen)
        if found:
            self._unseen, self._hidden = False, None
            if self.status == FLAGGED:
                events.append(self._restored(t))
            if all(graph.terminal[k] for k in found):
                done = graph.complete(found)
                events += self._commit(t, *done[0]) if len(done) == 1 else self._ask(t, done)
            else:
                self.pending = found
            return events
        ending = [k for k in self.pending if graph.done[k] and graph.ends_game(k)]
        start = self.rules.cells(self.rules.start())
        if ending and self.status == PLAYING and seen and all(matches(v, start[n]) for n, v in seen.items()):
            # the last turn (which could have gone on) ended the game, and the board is cleared
            # for the next one: that closes it, it is no takeback to the start
            events += self._close(t, None, among=ending)
            return events + (self._after_game(t, seen) if self.status == FINISHED else [])
        # the turn may be over and the next player's first step made already; or the
        # players took turns back (preferred where the next turn is ambiguous)
        hits, seen_done = self._continuations(graph, seen)
        back = self._earlier_position(seen)
        if back is not None:
            # an earlier position again: a takeback, unless turns seen completed explain it,
            # or a single turn that leaves the board looking changed does
            unseen = len(hits) == 1 and self.rules.cells(hits[0][1]) == self.rules.cells(self.position)
            if not (seen_done and hits) and (len(hits) != 1 or unseen):
                return events + self._takeback(t, back)
        if hits:
            if self.status == FLAGGED:
                events.append(self._restored(t))
            if len(hits) > 1:
                return events + self._ask(t, hits)
            events += self._commit(t, *hits[0])
            if self.status != FINISHED:  # judge the board again as the next turn under way
                events += self._decide_pyramid(t, seen)
            return events
        ending = [k for k in self.pending if graph.done[k] and graph.ends_game(k)]
        if ending and self.status == PLAYING:  # the game was over: the players clear the board
            events += self._close(t, None, among=ending)
            return events + (self._after_game(t, seen) if self.status == FINISHED else [])
        if self._unseen:
            return events + self._out_of_sight(t, graph, seen)
        return events + self._illegal(t, graph.closest(seen)[1])

    def _out_of_sight(self, t: float, graph: TurnGraph, seen: dict[str, str]) -> list[Event]:
        """A board no turn explains, seen after the board was out of sight: a turn made
        meanwhile and the next (asked: more turns could fit); after :data:`OUT_OF_SIGHT_S`
        out of sight, a takeback and a whole turn, or two whole turns (the first asked) and
        perhaps a third. Flagged when none fits; the same board is not searched again."""
        long = self._hidden is not None and self._hidden[1] - self._hidden[0] >= OUT_OF_SIGHT_S
        key = (self.position, len(self.positions), long, tuple(seen.items()))
        if key == self._unexplained:
            return self._illegal(t, graph.closest(seen)[1])
        missed = unseen_turns(self.rules, graph, seen)
        question = "A turn was made out of sight: which turn was it?"
        if not missed and long:
            for k in range(len(self.positions) - 2, max(len(self.positions) - 2 - TAKEN_BACK_UNSEEN, -1), -1):
                earlier = self._graph(self.positions[k])
                if earlier.matching(seen, (j for j, done in enumerate(earlier.done) if done)):
                    return self._takeback(t, k) + self._decide_pyramid(t, seen)
            missed = two_unseen_turns(self.rules, graph, seen)
            question = "Turns were made out of sight: which came first?"
        if not missed:
            self._unexplained = key
            return self._illegal(t, graph.closest(seen)[1])
        return ([self._restored(t)] if self.status == FLAGGED else []) + self._ask(t, missed, question)

    def _continuations(self, graph: TurnGraph, seen: dict[str, str]) -> tuple[list[tuple[Any, Any]], bool]:
        """Whole turns of this graph after which the board shows the next turn under way.
        Tries the states last matched first (then the second value is True: the turn was
        seen completed), then complete states close to the board. A source that sees part of
        the board only (reed switches) can miss a whole turn (a Pylos ball put on level 2),
        so there one unseen turn may stand in between."""
        def explains(after: Any, board: dict[str, str], max_steps: int | None = None) -> bool:
            if self.rules.outcome(after) is not None:
                return False
            known = self._graphs.get(after)
            return bool(known.matching(board)) if known else reaches(self.rules, after, board, max_steps)

        def complete_near(indices: list[int], max_steps: int | None = None) -> list[tuple[Any, Any]]:
            return [(turn, after) for turn, after in graph.complete(indices) if explains(after, seen, max_steps)]

        complete = [k for k in self.pending if graph.done[k]]
        hits = complete_near(complete) if complete else []
        if hits:
            return hits, True
        if self.buttons and self.coverage != self.names:
            return [], False  # the turn buttons end turns the sensors cannot see: no guessing
        near = []
        for k, cells in enumerate(graph.cells):
            if graph.done[k]:
                diff = sum(1 for n, v in seen.items() if not matches(v, cells[n]))
                if diff <= 3:
                    near.append(k)
        hits = complete_near(near, NEXT_STEPS)  # a guess: only the next player's first steps
        if hits or self.coverage == self.names or not complete:
            return hits, False
        out = []
        for turn, after in graph.complete(complete):
            if self.rules.outcome(after) is not None:
                continue
            middle = self._graph(after)
            unseen = middle.matching(self.previous_seen)
            if any(explains(after2, seen) for _, after2 in middle.complete([k for k in unseen if middle.done[k]])):
                out.append((turn, after))
        return out, False

    def _played_on(self, after: Any, seen: dict[str, str]) -> bool:
        """Whether, after a candidate of an unanswered question, one more whole turn and
        the first steps of the next explain the board: the players went on without
        answering (the answer then lets the referee catch up)."""
        if self.rules.outcome(after) is not None:
            return False
        graph = self._graph(after)
        return any(self.rules.outcome(nxt) is None and reaches(self.rules, nxt, seen, NEXT_STEPS)
                   for _, nxt in graph.whole_turns())

    def _earlier_position(self, seen: dict[str, str]) -> int | None:
        """The most recent earlier position the board shows again: a takeback."""
        for k in range(len(self.positions) - 2, -1, -1):
            cells = self.rules.cells(self.positions[k])
            if all(matches(v, cells[n]) for n, v in seen.items()):
                return k
        return None

    # -- closing a turn on request -------------------------------------------------------
    def _close(self, t: float, move: str | None, among: list[int] | None = None) -> list[Event]:
        if self.status == FINISHED:
            raise CommandError("the game is over")
        if self.status == FLAGGED:
            raise CommandError("the board shows an illegal move: put it back first")
        if self.status == AWAITING and self.candidates:
            choice = self._choose(move, self.candidates)
            return self._commit(t, *choice)
        if self.sparklies:
            cells = self.pending_cells
            if move is None and cells is None:
                raise CommandError("nothing has changed on the board this turn")
            try:
                return self._close_sparklies(t, cells or self.rules.cells(self.position), move)
            except RulesError as exc:
                raise CommandError(str(exc)) from None
        graph = self._graph(self.position)
        done = graph.complete(self.pending if among is None else among)
        if not done and among is None and self.coverage != self.names:
            # a source that sees part of the board (reed switches under the base) may have seen
            # nothing of the turn (a ball put on an upper level): every turn the board allows
            done = graph.complete(graph.matching(self.last_seen))
        if move is not None:
            try:
                turn = self.rules.parse_turn(self.position, move)
            except RulesError as exc:
                raise CommandError(f"{move}: {exc}") from None
            return self._commit(t, turn, self.rules.play(self.position, turn))
        if not done:
            raise CommandError("the turn in progress is not complete")
        done = self._by_reserves(done)
        return self._commit(t, *done[0]) if len(done) == 1 else self._ask(t, done)

    def _by_reserves(self, options: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        """The options whose reserves are what the trays show, when the board senses its
        trays and some option fits them (none fits while a ball is in a player's hand)."""
        seen = self.reserves_seen
        if seen is None:
            return options
        fits = [(turn, after) for turn, after in options
                if all((self.rules.reserves(after) or {}).get(player, count) == count
                       for player, count in seen.items())]
        return fits or options

    def _choose(self, move: str | None, options: list[tuple[Any, Any]]) -> tuple[Any, Any]:
        if move is None:
            if len(options) == 1:
                return options[0]
            raise CommandError("several turns fit the board: confirm one of " +
                               ", ".join(self.rules.format_turn(turn) for turn, _ in options))
        try:
            chosen = self.rules.parse_turn(self.position, move)
        except RulesError as exc:
            raise CommandError(f"{move}: {exc}") from None
        after = self.rules.play(self.position, chosen)
        for turn, pos in options:
            if pos == after:
                return chosen, after
        raise CommandError(f"{move} is legal but is not one of the turns the board shows")

    # -- events ----------------------------------------------------------------------------
    def _new_game(self, t: float, start: Any) -> list[Event]:
        self.start_position = start
        self.positions, self.turns = [start], []
        self.status, self.flag, self.candidates, self.pending, self.result = PLAYING, None, [], [], "*"
        self.pending_cells = None
        self.stamps, self.flag_reason = [], None
        tags = game_tags(self.rules, start)
        return [Event(ev.NEW_GAME, t, {"game": self.rules.game, "variant": self.rules.variant,
                                        "position": self.rules.format_position(start), "tags": tags})]

    def _after_game(self, t: float, seen: dict[str, str]) -> list[Event]:
        """After a finished game: the start position (an uncontrolled Sparklies board) starts
        the next game; the last position before the end takes the final turn back."""
        if self.sparklies:
            cells = {n: seen.get(n, "??") for n in self.names}
            if all(v[1] == "." for v in cells.values()) and not any("?" in v for v in cells.values()):
                return self._maybe_sparklies_start(Observation(t, cells))
        else:
            final = self.rules.cells(self.position)
            if all(matches(v, final[n]) for n, v in seen.items()):
                return []  # still the final board, as far as the source can tell
            start = self.rules.cells(self.rules.start())
            if seen and all(matches(v, start[n]) for n, v in seen.items()):
                return self._new_game(t, self.rules.start())
        back = self._earlier_position(seen)
        if back is not None and back == len(self.positions) - 2:
            return self._takeback(t, back)
        return []

    def flush(self, t: float) -> list[Event]:
        """The end of the observations: close a turn that is complete but could have gone on
        (a second Pylos take-back, a Sparklies chain)."""
        if self.position is None or self.status != PLAYING:
            return []
        if self.sparklies:
            return self._close_sparklies(t, self.pending_cells) if self.pending_cells else []
        graph = self._graph(self.position)
        if not any(graph.done[k] for k in self.pending):
            return []
        return self._close(t, None)

    def _all_end_alike(self, options: list[tuple[Any, Any]]) -> bool:
        results = {getattr(self.rules.outcome(after), "result", None) for _, after in options}
        return bool(options) and None not in results and len(results) == 1

    def _commit(self, t: float, turn: Any, after: Any, *, unconfirmed: bool = False) -> list[Event]:
        rules = self.rules
        mover = rules.to_move(self.position)
        others = [rules.format_turn(other) for other, _ in self.candidates if other != turn] if unconfirmed else []
        stamp = iso(self.now())
        self.turns.append(turn)
        self.stamps.append(stamp)
        self.positions.append(after)
        self.status, self.flag, self.candidates, self.pending = PLAYING, None, [], []
        self.pending_cells = None
        data = {"turn": len(self.turns), "player": mover, "move": rules.format_turn(turn),
                "position": rules.format_position(after), "ts": stamp}
        if unconfirmed:
            data["unconfirmed"] = others  # the board could not tell it from these; nobody confirmed
        events = [Event(ev.MOVE, t, data)]
        over = rules.outcome(after)
        if over is not None:
            self.status, self.result = FINISHED, over.result
            events.append(Event(ev.GAME_OVER, t, {"result": over.result, "winner": over.winner, "reason": over.reason}))
        return events

    def _ask(self, t: float, options: list[tuple[Any, Any]],
             question: str = "Several turns fit the board: which one was played?") -> list[Event]:
        self.candidates = options
        self.question = question
        self.status, self._pressed_on = AWAITING, False
        texts = [self.rules.format_turn(turn) for turn, _ in options]
        return [Event(ev.CONFIRM_NEEDED, t, {"question": self.question, "candidates": texts})]

    def _illegal(self, t: float, diffs: list[CellDiff], *, reason: str | None = None) -> list[Event]:
        if self.status == FLAGGED and self.flag == diffs:
            return []
        self.status, self.flag = FLAGGED, diffs
        text = reason or describe_diff(self.rules, self.position, diffs) or "the board does not show a legal position"
        self.flag_reason = text
        return [Event(ev.ILLEGAL, t, {"reason": text, "cells": [d.to_json() for d in diffs],
                                       "position": self.rules.format_position(self.position)})]

    def _restored(self, t: float) -> Event:
        self.status, self.flag = PLAYING, None
        return Event(ev.RESTORED, t, {"position": self.rules.format_position(self.position)})

    def _takeback(self, t: float, keep: int) -> list[Event]:
        undone = [self.rules.format_turn(turn) for turn in self.turns[keep:]]
        del self.turns[keep:]
        del self.stamps[keep:]
        del self.positions[keep + 1:]
        self.status, self.flag, self.candidates, self.pending, self.result = PLAYING, None, [], [], "*"
        self.pending_cells = None
        return [Event(ev.TAKEBACK, t, {"to_turn": keep, "undone": undone,
                                        "position": self.rules.format_position(self.position)})]

