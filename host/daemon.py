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

from .config import Config
from .events import Event
from .games import Rules, RulesError, rules_for
from .observation import Observation, ObservationError, check_cells
from .record import Record, replay
from .recorder import Recorder, RecorderError
from .referee import CommandError, Referee, Stability
from .sources import Source

log = logging.getLogger("arbiter")
_END = object()


class Daemon:
    """One board: a source, a referee, the recorder and (unless disabled) the MQTT link."""

    def __init__(self, config: Config, rules: Rules, source: Source, *, recorder: Recorder,
                 link: Any | None = None, status_out: TextIO | None = None,
                 clock_now: Callable[[], Any] | None = None):
        self.config, self.rules, self.source = config, rules, source
        self.recorder, self.link = recorder, link
        self.status_out = status_out
        kwargs = {"now": clock_now} if clock_now else {}
        self.referee = Referee(rules, stability=Stability(config.stability["frames"], config.stability["seconds"]),
                               coverage=source.coverage, players=config.players, **kwargs)
        self.game_id: int | None = None
        self.stop_requested = threading.Event()
        self._items: queue.Queue = queue.Queue(maxsize=1000)
        self._last_status = ""
        self._last_t = 0.0
        self._resume_t: float | None = None  # skip source time the recorded game already covers

    # -- start-up ------------------------------------------------------------------------
    def resume_or_begin(self) -> None:
        """Resume the board's unfinished game; after a finished one, wait for the board to
        show a new start (as after any game); else begin a new game."""
        state = self.recorder.in_progress(self.config.board_id)
        if state is not None and self._same_kind(state.tags):
            self._resume(state.id, state.record(), state.players)
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

    def _same_kind(self, tags: Any) -> bool:
        """Whether a recorded game was played under these rules (game, variant, board options)."""
        return tags.get("Game") == self.rules.game and all(tags.get(k) == v for k, v in self.rules.tags().items())

    def _last_finished(self) -> Any | None:
        games = [g for g in self.recorder.list_games() if g.board == self.config.board_id]
        if not games or games[-1].status != "finished":
            return None
        detail = self.recorder.get_game(games[-1].id)
        return detail if self._same_kind(detail.tags) else None

    def _resume(self, game_id: int, record: Record, players: Any) -> None:
        result = replay(record)
        if not result.ok:
            raise RulesError(f"game {game_id} in the database does not replay: turn {result.error.turn} "
                             f"({result.error.move}): {result.error.reason}")
        self.referee.resume(result.positions[0], list(result.turns))
        if players:
            self.referee.players.update(players)
        self.game_id = game_id
        recorded = self.recorder.events(game_id)
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
        finally:
            self._items.put(_END)

    def run(self) -> int:
        self.resume_or_begin()
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
            elif isinstance(item, Observation):
                self.observe(item)
            self.take_commands()
            if self.link is not None:
                self.link.poll()
        self.publish_state()
        return 0

    def observe(self, obs: Observation) -> None:
        self._last_t = obs.t
        try:
            check_cells(self.rules, obs, self.referee.names)
        except ObservationError as exc:
            log.warning("%s: observation at t=%s: %s (skipped)", self.source.name, obs.t, exc)
            return
        self.handle(self.referee.observe(obs))

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
        elif name == "new-game" and command.game not in (None, self.rules.game):
            self.link.reply(command, False, f"this daemon referees {self.rules.game}; start it with --game "
                                            f"{command.game} to referee that")
            return
        try:
            events = self.referee.command(name, self._last_t, args)
        except (CommandError, RulesError) as exc:
            self.link.reply(command, False, str(exc))
            return
        if name == "set-players" and self.game_id is not None:
            self.recorder.set_players(self.game_id, dict(command.players))
        self.handle(events)
        self.publish_state()
        self.link.reply(command, True)

    # -- events to the sinks ---------------------------------------------------------------
    def handle(self, events: list[Event]) -> None:
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
            if self.link is not None:
                self.link.publish_event(seq, {**event.to_json(), "seq": seq, "game_id": self.game_id})
        if events:
            self.publish_state()

    def state(self) -> dict[str, Any]:
        return {"board": self.config.board_id, **self.referee.state()}

    def publish_state(self) -> None:
        state = self.state()
        if self.link is not None:
            self.link.publish_state(state)
        line = (f"[{state['board']}] {state['game']} {state['variant']} | turn {state['turn']} | "
                f"{(state['to_move'] or 'nobody') + ' to move' if state['status'] != 'finished' else 'result ' + state['result']}"
                f" | {state['status']}" + (f" | last {state['last_move']}" if state['last_move'] else ""))
        if line != self._last_status and self.status_out is not None:
            print(line, file=self.status_out, flush=True)
            self._last_status = line


def _summary(event: Event) -> str:
    d = event.data
    return {"move": lambda: f"{d['turn']}. {d['player']} {d['move']}",
            "illegal": lambda: d["reason"],
            "restored": lambda: "board back to a legal position",
            "takeback": lambda: f"undone {' '.join(d['undone'])}",
            "confirm-needed": lambda: f"{d['question']} {' / '.join(d['candidates'])}",
            "game-over": lambda: f"{d['result']}: {d['reason']}",
            "new-game": lambda: f"{d['game']} {d['variant']}"}[event.type]()


def install_signal_handlers(daemon: Daemon) -> None:
    """SIGINT and SIGTERM stop the loop cleanly (the broker hears 'offline', the database
    is closed)."""
    def stop(signum, frame):
        log.info("stopping (signal %d)", signum)
        daemon.stop_requested.set()
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def build_rules(config: Config, game: str | None, variant: str | None) -> Rules:
    name = game or config.game
    if name is None:
        raise RulesError("no game: give --game or set game in the configuration")
    return rules_for(name, variant or config.variant, **(config.rule_options() if name == config.game or
                                                         config.game is None else {}))


def setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if verbose else logging.INFO)
