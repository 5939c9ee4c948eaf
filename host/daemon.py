"""``arbiter run``: the daemon. Observations from a source go through the Referee; every
event is stored by the recorder first (one transaction each), then published over MQTT from
the recorder's outbox, so nothing accepted is lost when the process or the broker dies.

The source is read on its own thread; the main thread owns the referee, the recorder and
the MQTT link's bookkeeping, and takes commands from the link's queue between observations.
"""

from __future__ import annotations

import logging
import queue
import signal
import sys
import threading
from typing import Any, Callable, TextIO

from .board_games import StartWatch, configured_rules, describe_board, rules_with, same_rules, unplayable
from .config import Config, ConfigError, board_kind
from . import events as ev
from .events import Event
from .fusion import Notice
from .indicators import Indicator, Lights
from .games import Rules, RulesError, rules_for, rules_from_tags
from .observation import Observation, ObservationError, Press, check_cells
from .record import Record, replay
from .recorder import Recorder, RecorderError
from .referee import FINISHED, PLAYING, CommandError, Referee, Stability
from .referee_match import CellDiff
from .referee_state import active_squares
from .sources import Source

log = logging.getLogger("arbiter")
_END = object()


class Daemon:
    """One board: a source, a referee, the recorder and (unless disabled) the MQTT link.

    The board may referee several games in turn (Pylos and Sparks on one pyramid):
    ``rules`` is the game it starts with; ``self.rules`` and ``self.referee`` are always
    those of the current game, replaced together when the board switches (host/board_games.py).
    """

    def __init__(self, config: Config, rules: Rules, source: Source, *, recorder: Recorder,
                 link: Any | None = None, status_out: TextIO | None = None,
                 clock_now: Callable[[], Any] | None = None, debug: Any | None = None,
                 stop: threading.Event | None = None):
        self.config, self.source = config, source
        self.recorder, self.link = recorder, link
        #: the debug-capture sink (host/debug_capture.py), told of every event; None: no captures
        self.debug = debug
        self.status_out = status_out
        self._referee_kwargs: dict[str, Any] = {"now": clock_now} if clock_now else {}
        self._stability = Stability(config.stability["frames"], config.stability["seconds"])
        #: the rules each game of the board is played with next (the last used, at first the configured)
        self.board_rules = configured_rules(config, rules)
        #: player names by colour, for every game of the board (a switch keeps the other game's)
        self.players: dict[str, str] = dict(config.players)
        self.rules = rules
        self.referee = self._new_referee(rules)
        self._watch = self._new_watch()
        self._by_command = False  # the current game was started by a new-game command
        self.game_id: int | None = None
        #: set to end :meth:`run` (``stop``: an event shared with the caller, as the demo's Ctrl-C)
        self.stop_requested = threading.Event() if stop is None else stop
        #: why the source stopped working (the daemon then exits with status 1)
        self.source_failed: str | None = None
        self._items: queue.Queue = queue.Queue(maxsize=1000)
        self._last_status = ""
        self._active: list[str] = []  # the Sparklies chain squares last published
        self._last_t = 0.0
        self._resume_t: float | None = None  # skip source time the recorded game already covers
        self._expecting: bool | None = None  # what the source was last told of a start being set up
        #: the board's own lights (a controller's strip, a Pi's LEDs), fed like an MQTT LED client
        self.indicator = Indicator() if source.board is not None else None

    @property
    def last_t(self) -> float:
        """The source time of the last observation or press the daemon has judged."""
        return self._last_t

    # -- the current game ------------------------------------------------------------------
    def _new_referee(self, rules: Rules) -> Referee:
        players = {colour: name for colour, name in self.players.items() if colour in rules.players}
        return Referee(rules, stability=self._stability, coverage=self.source.coverage, players=players,
                       **self._referee_kwargs)

    def _new_watch(self) -> StartWatch:
        others = [r for game, r in self.board_rules.items() if game != self.rules.game]
        return StartWatch(others, frames=self._stability.frames, seconds=self._stability.seconds,
                          coverage=self.source.coverage)

    def _switch(self, rules: Rules) -> None:
        """Referee ``rules`` from now on with a fresh referee; the game in progress is left
        to the recorder, which marks it abandoned when the next game starts."""
        log.info("board %s switches from %s %s to %s %s", self.config.board_id, self.rules.game,
                 self.rules.variant, rules.game, rules.variant)
        self.rules = self.board_rules[rules.game] = rules
        self.referee = self._new_referee(rules)
        self._watch = self._new_watch()
        self.source.follow(rules)

    def _may_switch(self) -> bool:
        """Whether the board may follow another game's start position: after a finished
        game, or before the first turn of a game the daemon started by itself (a game chosen
        by command stays: its board passes through the other game's start while set up)."""
        referee = self.referee
        if referee.position is None:
            return False
        return referee.status == FINISHED or (not referee.turns and not self._by_command)

    def _new_game_rules(self, command: Any) -> Rules | None:
        """The rules a new-game command asks for (None: the current ones again); CommandError
        saying why when they cannot be played on this board."""
        game = command.game or self.rules.game
        if board_kind(game) != board_kind(self.rules.game):
            raise CommandError(f"{game} needs a {board_kind(game)} board; this board is {describe_board(self.rules)}")
        if game not in self.board_rules:
            raise CommandError(f"{game} is not played on this board (the configuration's games: "
                               f"{', '.join(self.board_rules)})")
        try:
            rules = rules_with(self.board_rules[game], command.variant, dict(command.rules))
        except (ConfigError, RulesError) as exc:
            raise CommandError(str(exc)) from None
        reason = unplayable(rules, self.rules)
        if reason is not None:
            raise CommandError(reason)
        return None if same_rules(rules, self.rules) else rules

    # -- start-up ------------------------------------------------------------------------
    def resume_or_begin(self) -> None:
        """Resume the board's unfinished game; after a finished one, wait for the board to
        show a new start (as after any game); else begin a new game. The recorded game sets
        the game kind when it is one of the board's games, whatever the daemon started with:
        the board was switched to it and still shows it."""
        state = self.recorder.in_progress(self.config.board_id)
        if state is not None and self._adopt(state.id, state.tags):
            self._resume(state.id, state.record(), state.players, state.flagged)
            log.info("resuming game %s (%s) at turn %d; checking the board against it", state.id,
                     self.rules.game, len(self.referee.turns))
        else:
            last = self._last_finished()
            if last is not None:
                self._resume(last.id, last.record(), last.summary.players)
                log.info("game %s (%s) was over when the daemon stopped; waiting for a new game to be set up",
                         last.id, self.rules.game)
            else:
                self.handle(self.referee.begin(0.0))
        self.publish_state()

    def _adopt(self, game_id: int, tags: Any) -> bool:
        """Take on the rules of a recorded game of this board, when the board can play it."""
        try:
            rules = rules_from_tags(tags)
        except RulesError as exc:
            log.warning("game %s: its tags name no valid rules (%s); not resumed", game_id, exc)
            return False
        if rules.game not in self.board_rules or unplayable(rules, self.rules) is not None:
            log.warning("game %s is %s %s, not a game of this board (%s); not resumed", game_id, rules.game,
                        rules.variant, ", ".join(self.board_rules))
            return False
        if not same_rules(rules, self.rules):
            self._switch(rules)
        return True

    def _last_finished(self) -> Any | None:
        games = [g for g in self.recorder.list_games() if g.board == self.config.board_id]
        if not games or games[-1].status != "finished":
            return None
        detail = self.recorder.get_game(games[-1].id)
        return detail if self._adopt(detail.id, detail.tags) else None

    def _resume(self, game_id: int, record: Record, players: Any, flagged: Any = None) -> None:
        result = replay(record)
        if not result.ok:
            raise RulesError(f"game {game_id} in the database does not replay: turn {result.error.turn} "
                             f"({result.error.move}): {result.error.reason}")
        # an illegal-move episode left open: still flagged (docs/recording.md), so that putting
        # the board right closes it; likewise a question left unanswered still stands
        flag = None if flagged is None else [CellDiff(c["cell"], c["expected"], c["seen"]) for c in flagged.cells]
        recorded = self.recorder.events(game_id)

        def resume(question: str | None = None, candidates: list[str] | None = None) -> None:
            self.referee.resume(result.positions[0], list(result.turns), flag, stamps=[t.ts for t in record.turns],
                                flag_reason=None if flagged is None else flagged.reason,
                                question=question, candidates=candidates)
        try:
            resume(*_open_question([data for _, data in recorded]))
        except RulesError as exc:
            # a question the recorded game cannot have asked (the database was edited or
            # damaged): the game itself replays, so it goes on and the board is worked out afresh
            log.warning("game %s: the question left open at the last stop does not fit the recorded game "
                        "(%s); it is dropped and the board is worked out afresh", game_id, exc)
            resume()
        if players:
            self.referee.players.update(players)
            self.players.update(players)
        self.game_id = game_id
        if recorded:
            self._resume_t = float(recorded[-1][1]["t"])

    # -- the loop ------------------------------------------------------------------------
    def _read_source(self) -> None:
        try:
            for item in self.source.paced(after=self._resume_t):
                if self.stop_requested.is_set():
                    return
                self._items.put(item)
        except Exception as exc:  # a source failing must not take the referee down silently
            log.error("source %s failed: %s", self.source.name, exc)
            self.source_failed = str(exc)
        finally:
            self._items.put(_END)

    def _tell_source(self) -> None:
        """Tell the source whether the daemon waits for a Sparklies start to be set up (a
        camera takes a board with no plate seen for it: host/camera_source.py)."""
        referee = self.referee
        waiting = referee.sparklies and (referee.position is None or referee.status == FINISHED)
        if waiting != self._expecting:
            self._expecting = waiting
            self.source.expect_start(waiting)

    def run(self) -> int:
        self.resume_or_begin()
        self._tell_source()
        reader = threading.Thread(target=self._read_source, name="source", daemon=True)
        reader.start()
        while not self.stop_requested.is_set():
            try:
                item = self._items.get(timeout=0.05)
            except queue.Empty:
                item = None
            if item is _END:
                log.info("source %s ended", self.source.name)
                self.handle(self.referee.flush(self._last_t))
                break
            if isinstance(item, ObservationError):
                log.warning("%s: %s (skipped)", self.source.name, item)
            elif isinstance(item, (Observation, Press)):
                self.observe(item)
                self._tell_source()
            elif isinstance(item, Notice):  # the sensors about themselves: recorded and published
                self.handle([Event(item.kind, item.t, item.to_json())])
            self.take_commands()
            if self.link is not None:
                self.link.poll()
        self.publish_state()
        if self.debug is not None:
            self.debug.close()
        return 1 if self.source_failed else 0

    def observe(self, obs: Observation | Press) -> None:
        """One observation or button press. A steady start position of another game of the
        board switches to that game when a switch is allowed (:meth:`_may_switch`)."""
        self._last_t = obs.t
        if isinstance(obs, Press):
            self.handle(self.referee.observe(obs))
            return
        start = self._watch.feed(obs)
        if start is not None and self.referee.status == PLAYING:
            # the players have moved on to another game: a turn that was complete but could
            # have gone on (a second take-back not made) is over, as at the end of a log
            self.handle(self.referee.flush(obs.t))
        if start is None or not self._may_switch():
            self._judge(obs)  # which may end the game: an unanswered last turn, the board cleared
            if start is None or not self._may_switch():
                return
        self._switch(start)
        self._by_command = False
        self.handle(self.referee.begin(obs.t))

    def _judge(self, obs: Observation) -> None:
        """The observation to the current referee, unless it is not a board of this game."""
        try:
            check_cells(self.rules, obs, self.referee.names)
        except ObservationError as exc:
            other = self._watch.fits(obs)
            if other is not None:  # another game being set up (or the old one cleared away)
                log.debug("%s: observation at t=%s shows %s pieces (skipped)", self.source.name, obs.t, other.game)
            else:
                log.warning("%s: observation at t=%s: %s (skipped)", self.source.name, obs.t, exc)
            return
        events = self.referee.observe(obs)
        if any(e.type == "new-game" for e in events):
            self._by_command = False
        self.handle(events)
        if not events and self.referee.sparklies and active_squares(self.referee) != self._active:
            self.publish_state()  # a chain under way: displays show its squares as it goes

    def take_commands(self) -> None:
        if self.link is None:
            return
        while True:
            try:
                command = self.link.commands.get_nowait()
            except queue.Empty:
                return
            self.command(command)

    def command(self, command: Any) -> None:
        args: dict[str, Any] = {}
        name = command.cmd
        if name == "takeback":
            args["to_turn"] = max(len(self.referee.turns) - command.turns, -1)
        elif name == "confirm" and command.move:
            args["move"] = command.move
        elif name == "set-players":
            args["players"] = dict(command.players)
        try:
            if name == "new-game":
                rules = self._new_game_rules(command)
                if rules is not None:
                    self._switch(rules)
                self._by_command = True
            events = self.referee.command(name, self._last_t, args)
        except (CommandError, RulesError) as exc:
            self.link.reply(command, False, str(exc))
            return
        if name == "set-players":
            self.players.update(command.players)
            if self.game_id is not None:
                self.recorder.set_players(self.game_id, dict(command.players))
        self.handle(events)
        self._tell_source()
        self.publish_state()
        self.link.reply(command, True)

    # -- events to the sinks ---------------------------------------------------------------
    def handle(self, events: list[Event]) -> None:
        if not events:
            return
        # the events of one observation (a move and its game-over; a game-over, the new game
        # and its new-game) are stored in one transaction: resuming skips the observations up
        # to the last stored event, so a kill between them would lose the rest for good
        stored, game_before = [], self.game_id
        try:
            with self.recorder.batch():
                for event in events:
                    log.info("%s %s", event.type, _summary(event))
                    try:
                        if event.type == "new-game":
                            self.game_id = self.recorder.start_game(self.rules, event.data["position"],
                                                                    players=self.referee.players or None)
                        if self.game_id is None:
                            continue
                        seq = self.recorder.record(self.game_id, event)
                    except RecorderError as exc:
                        log.error("recorder: %s (the event is not stored)", exc)
                        continue
                    stored.append((seq, {**event.to_json(), "seq": seq, "game_id": self.game_id}))
        except RecorderError as exc:  # the transaction could not begin or commit: nothing is stored
            log.error("recorder: %s (%d events not stored)", exc, len(events))
            stored, self.game_id = [], game_before
        if self.link is not None:  # published once committed, never before
            for seq, payload in stored:
                self.link.publish_event(seq, payload)
        if self.indicator is not None:
            for _, payload in stored:
                self._show(self.indicator.event(payload))
        if self.debug is not None:
            self.debug.events(events, board_id=self.config.board_id, game_id=self.game_id, game=self.rules.game,
                              variant=self.rules.variant)
        if events:
            self.publish_state()

    def state(self) -> dict[str, Any]:
        return {"board": self.config.board_id, **self.referee.state()}

    def _show(self, lights: Lights | None) -> None:
        if lights is not None:
            try:
                self.source.board.show(lights)
            except Exception as exc:  # the lights must never stop the referee
                log.error("board lights: %s", exc)

    def publish_state(self) -> None:
        state = self.state()
        self._active = state.get("active", [])
        if self.link is not None:
            self.link.publish_state(state)
        if self.indicator is not None:
            self._show(self.indicator.state(state))
        line = (f"[{state['board']}] {state['game']} {state['variant']} | turn {state['turn']} | "
                f"{(state['to_move'] or 'nobody') + ' to move' if state['status'] != 'finished' else 'result ' + state['result']}"
                f" | {state['status']}" + (f" | last {state['last_move']}" if state['last_move'] else ""))
        if line != self._last_status and self.status_out is not None:
            print(line, file=self.status_out, flush=True)
            self._last_status = line


def _open_question(recorded: list[dict[str, Any]]) -> tuple[str | None, list[str] | None]:
    """The question and candidates of the last confirm-needed event of a game's events, if
    nothing decided since closed it (a move, a withdrawal, an illegal move, a takeback, the
    game's end); else ``(None, None)``. RulesError if its fields are not text."""
    for data in reversed(recorded):
        kind = data.get("type")
        if kind == ev.CONFIRM_NEEDED:
            question, candidates = data.get("question"), data.get("candidates")
            if not isinstance(question, str) or not isinstance(candidates, list) \
                    or not all(isinstance(c, str) for c in candidates):
                raise RulesError(f"confirm-needed event: question {question!r} with candidates {candidates!r} "
                                 "(expected text and a list of turns)")
            return question, candidates
        if kind not in (ev.SENSORS_DISAGREE, ev.SENSORS_AGREE):
            return None, None
    return None, None


def _summary(event: Event) -> str:
    d = event.data
    return {"move": lambda: f"{d['turn']}. {d['player']} {d['move']}",
            "illegal": lambda: d["reason"],
            "restored": lambda: "board back to a legal position",
            "takeback": lambda: f"undone {' '.join(d['undone'])}",
            "confirm-needed": lambda: f"{d['question']} {' / '.join(d['candidates'])}",
            "confirm-withdrawn": lambda: d["reason"],
            "game-over": lambda: f"{d['result']}: {d['reason']}",
            "new-game": lambda: f"{d['game']} {d['variant']}",
            "sensors-disagree": lambda: d["detail"],
            "sensors-agree": lambda: f"{' '.join(d['hollows'])}: {d['detail']}"}[event.type]()


def install_signal_handlers(daemon: Daemon) -> None:
    """SIGINT and SIGTERM stop the loop cleanly (the broker hears 'offline', the database
    is closed)."""
    def stop(signum, frame):
        log.info("stopping (signal %d)", signum)
        daemon.stop_requested.set()
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def build_rules(config: Config, game: str | None, variant: str | None) -> Rules:
    """The rules the daemon starts with: ``--game``/``--variant`` over the configuration's
    (its ``variant`` only for its own game), with the game's [rules] options."""
    name = game or config.game
    if name is None:
        raise RulesError("no game: give --game or set game in the configuration")
    own = config.game is None or name == config.game
    return rules_for(name, variant or (config.variant if own else None), **config.rule_options(name))


def setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if verbose else logging.INFO)
