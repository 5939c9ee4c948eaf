"""``arbiter demo``: the whole system on one machine with nothing to set up (docs/demo.md).

An embedded MQTT broker; for each bundled example game in turn, a simulated board (a
camera's view with hands passing over it, one scripted illegal move put right) watched by the
real daemon (referee, recorder, MQTT link); the web display; the LED indicators drawn in the
terminal by the ``terminal`` LED driver; and the players, who answer the referee's
questions by MQTT command as a tablet would. At the end: a summary, and every game written
out as a record that ``arbiter replay`` checks.
"""

from __future__ import annotations

import json
import logging
import queue
import random
import secrets
import shutil
import socket
import sys
import threading
import time
import webbrowser
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from .config import from_mapping
from .record import read_any, replay, write_text

log = logging.getLogger("arbiter.demo")
#: the turn of each example game at which a player makes an illegal move, then puts it right
ILLEGAL_AT = 3


@dataclass
class Tally:
    games: int = 0
    turns: int = 0
    flags: int = 0
    restored: int = 0
    questions: int = 0
    records: list[tuple[Path, str, bool]] = field(default_factory=list)  # path, line, equals the example


def free_port(preferred: int) -> int:
    """``preferred`` if nothing listens there, else any free port."""
    for port in (preferred, 0):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise OSError("no free TCP port on 127.0.0.1")


def _camera(cameras: dict[str, Any], game: str) -> Any:
    """The demo's camera over the board ``game`` is played on, the same whichever games are
    played. Over the grid it is lit as docs/camera-setup.md advises, the lamp's reflection
    off the board away from the lens: glare washes the tiles' colours out."""
    from .sim_vision import BOARDS, Cameras
    board = BOARDS[game]
    if board not in cameras:
        cameras[board] = Cameras(random.Random(7919), (800, 600), glare=board == "pyramid-4")
    return cameras[board]


def examples(game: str | None) -> list[tuple[str, Any]]:
    folder = resources.files("host") / "examples"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".pgn"))
    order = {"pylos": 0, "sparks": 1, "sparklies": 2}
    names.sort(key=lambda n: order.get(n.split(".")[0], 9))
    return [(n, replay(read_any((folder / n).read_text("utf-8")))) for n in names if game is None or n.startswith(game)]


class Console:
    """The demo's terminal: event lines scroll; on a terminal the LED line stays drawn
    under them, redrawn in place; elsewhere each LED change is a line of its own."""

    def __init__(self, out: TextIO):
        self.out = out
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.leds_line = ""

    def say(self, text: str) -> None:
        if self.tty:
            self.out.write(f"\r\x1b[K{text}\n{self.leds_line}")
            self.out.flush()
        else:
            print(text, file=self.out, flush=True)

    def leds(self, line: str) -> None:
        self.leds_line = line
        if self.tty:
            self.out.write(f"\r\x1b[K{line}")
            self.out.flush()
        else:
            print(line, file=self.out, flush=True)

    def end(self) -> None:
        if self.tty and self.leds_line:
            self.out.write("\n")


class Listener:
    """The demo's MQTT client: prints what the boards say, draws their LEDs in the terminal
    and answers questions for the players (who know the game they are playing)."""

    def __init__(self, url: str, token: str, out: TextIO):
        from .leds_cli import LedsApp
        from .led_drivers import DriverOptions
        from .led_terminal import TerminalDriver
        from .mqtt_client import subscriber
        self.console, self.token = Console(out), token
        self.answers: dict[str, list[str]] = {}  # board -> the example's turns
        self.daemons: dict[str, Any] = {}  # board -> its daemon, whose referee counts the turns played
        self.tally = Tally()
        self.messages: queue.SimpleQueue[tuple[str, bytes] | None] = queue.SimpleQueue()
        self.client = subscriber(url, {}, f"arbiter-demo-{secrets.token_hex(3)}", ["arbiter/+/#"],
                                 on_message=lambda t, p: self.messages.put((t, p)), log=log)
        self._leds: dict[str, Any] = {}
        self._make_leds = lambda board: LedsApp(board, TerminalDriver(
            DriverOptions(board_id=board, publish=self.publish), out=out, sink=self.console.leds), self.publish)
        self._seq: dict[str, int] = {}
        self.thread = threading.Thread(target=self._run, name="demo-listener", daemon=True)

    def start(self) -> "Listener":
        self.client.loop_start()
        self.thread.start()
        return self

    def stop(self) -> None:
        self.messages.put(None)
        self.thread.join(5)
        self.console.end()
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1)

    def _run(self) -> None:
        while True:
            item = self.messages.get()
            if item is None:
                return
            topic, payload = item
            parts = topic.split("/")
            if len(parts) < 3:
                continue
            board, leaf = parts[1], "/".join(parts[2:])
            if leaf in ("state", "turn", "events", "status", "cmd/reply"):
                if board not in self._leds:
                    self._leds[board] = self._make_leds(board)
                self._leds[board].handle(topic, payload)
            if leaf == "events":
                try:
                    event = json.loads(payload)
                except ValueError:
                    continue
                if event.get("seq", 0) <= self._seq.get(board, -1):
                    continue  # a duplicate after a reconnection
                self._seq[board] = event["seq"]
                self._event(board, event)

    def _event(self, board: str, e: dict[str, Any]) -> None:
        say, kind, tally = self.console.say, e.get("type"), self.tally
        if kind == "move":
            tally.turns += 1
            say(f"{board}: {e['turn']:3}. {e['player']:5} {e['move']}")
        elif kind == "illegal":
            tally.flags += 1
            say(f"{board}:      ILLEGAL: {e['reason']}")
        elif kind == "restored":
            tally.restored += 1
            say(f"{board}:      restored: the board is legal again")
        elif kind == "confirm-needed":
            tally.questions += 1
            say(f"{board}:      question: {e['question']} {' / '.join(e['candidates'])}")
            self._answer(board, e)
        elif kind == "game-over":
            say(f"{board}:      game over {e['result']}: {e['reason']}")
        elif kind in ("new-game", "takeback", "confirm-withdrawn"):
            say(f"{board}:      {kind}")

    def _answer(self, board: str, e: dict[str, Any]) -> None:
        """The players tap the turn they played on the display (a confirm command)."""
        script, daemon = self.answers.get(board, []), self.daemons.get(board)
        played = len(daemon.referee.turns) if daemon is not None else 0
        move = script[played] if played < len(script) else None
        if move in e.get("candidates", []):
            self.console.say(f"{board}:      the players confirm {move}")
            self.publish(f"arbiter/{board}/cmd", json.dumps({"cmd": "confirm", "move": move, "token": self.token,
                                                             "id": f"demo-{board}-{played}"}).encode())


def run_demo(args: Any, *, stop: threading.Event, out: TextIO = sys.stdout) -> int:
    from .broker import EmbeddedBroker
    from .daemon import Daemon
    from .display_cli import start_display
    from .recorder import Recorder
    from .run_cli import _link
    from .sim import SimConfig, simulate_game
    from .sources import Source

    workdir = Path(args.dir)
    records = workdir / "records"
    db = workdir / "games.sqlite3"
    workdir.mkdir(parents=True, exist_ok=True)
    for old in [db, Path(f"{db}-wal"), Path(f"{db}-shm")]:
        old.unlink(missing_ok=True)  # the demo's own files: each run starts afresh
    shutil.rmtree(records, ignore_errors=True)
    records.mkdir()
    games = examples(args.game)
    cameras: dict[str, Any] | None = None
    if args.camera:  # every frame rendered by the synthetic camera and read by vision
        cameras = {}

    broker = EmbeddedBroker(port=free_port(args.mqtt_port))
    broker.start()
    token = secrets.token_urlsafe(12)
    display = start_display(broker.url, {}, port=free_port(args.port)) if not args.no_display else None
    listener = Listener(broker.url, token, out).start()
    links, recorder = [], Recorder(db, board_id="demo")
    interrupted = False
    try:
        print(f"demo: MQTT broker {broker.url}; games recorded in {db}", file=out)
        if display is not None:
            url = display.server.url
            print(f"demo: web display {url} (each board: {url}board/demo-<game>#token={token} to answer from it)",
                  file=out, flush=True)
            if not args.no_browser:
                webbrowser.open(url)
        for name, example in games:
            if stop.is_set():
                break
            rules = example.rules
            board = f"demo-{rules.game}"
            script = [rules.format_turn(t) for t in example.turns]
            listener.answers[board] = script
            listener.console.say(f"== {board}: {name}, {rules.game} ({rules.variant}), {len(script)} turns; "
                                 f"an illegal move at turn {ILLEGAL_AT} or soon after")
            options = {"rules": {"size": f"{rules.width}x{rules.height}"}} if rules.game == "sparklies" else {}
            config = from_mapping({"board_id": board, "game": rules.game, "variant": rules.variant,
                                   "mqtt": {"url": broker.url, "token": token}, **options})
            sim = simulate_game(rules, random.Random(1), SimConfig(seed=1, game=rules.game, hands=0.1,
                                illegal_at=ILLEGAL_AT, camera=args.camera), script=script,
                                start=example.positions[0])
            recorder_for = Recorder(db, board_id=board)
            link = _link(config, recorder_for)
            link.start()
            links.append((link, recorder_for))
            frames = _camera(cameras, rules.game).observations(sim) if cameras is not None else sim.stream()
            daemon = Daemon(config, rules, Source(f"sim:{board}", _until_answered(frames, lambda: daemon, stop),
                                                  finite=True, speed=args.speed),
                            recorder=recorder_for, link=link, stop=stop)  # Ctrl-C stops its loop too
            listener.daemons[board] = daemon
            daemon.run()
            _deliver(link, recorder_for, stop)
        interrupted = stop.is_set()
        tally = listener.tally
        _write_records(recorder, records, games, tally)
    finally:
        listener.stop()
        for link, rec in links:
            link.stop()
            rec.close()
        if display is not None and not interrupted and args.stay and not stop.is_set():
            print(f"demo: the display stays up at {display.server.url}; Ctrl-C to stop", file=out, flush=True)
            stop.wait()
        if display is not None:
            display.stop()
        broker.stop()
        recorder.close()
    if interrupted:
        print("demo: stopped", file=out)
        return 130
    equal = sum(1 for _, _, same in tally.records if same)
    seen = "vision reading rendered camera frames" if args.camera else "simulated camera frames"
    print(f"demo: {_n(len(tally.records), 'game')}, {_n(tally.turns, 'turn')} refereed from {seen}, "
          f"{_n(tally.flags, 'illegal move')} flagged and {tally.restored} put right, "
          f"{_n(tally.questions, 'question')} answered; {equal} of {len(tally.records)} records equal the examples",
          file=out)
    print(f"records: {records}/ (check one with: arbiter replay {tally.records[0][0] if tally.records else records})",
          file=out)
    for path, line, same in tally.records:
        print(f"  {path}  {line}{'' if same else '  DIFFERS FROM THE EXAMPLE'}", file=out)
    print(f"database: {db} (arbiter games list --db {db})", file=out, flush=True)
    return 0 if equal == len(tally.records) == len(games) and tally.flags >= len(games) else 1


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _until_answered(observations: Any, daemon: Any, stop: threading.Event, timeout: float = 10.0) -> Any:
    """The board's frames, then, while the referee waits for the players' answer to its last
    question, nothing: the board stays as it is until they have answered."""
    last = None
    for obs in observations:
        last = obs.t
        yield obs
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not stop.is_set() and (
            daemon().last_t != last or daemon().referee.status == "awaiting-confirmation"):
        time.sleep(0.05)


def _deliver(link: Any, recorder: Any, stop: threading.Event, timeout: float = 10.0) -> None:
    """Wait until the broker has every event of the game, so the summary counts them all."""
    deadline = time.monotonic() + timeout
    while recorder.unsent(1) and time.monotonic() < deadline and not stop.is_set():
        link.poll(0.05)
    time.sleep(0.3)  # the listener's copies are on their way from the broker


def _write_records(recorder: Any, folder: Path, games: list[tuple[str, Any]], tally: Tally) -> None:
    """Every recorded game as a text record, replayed, and compared with its example."""
    by_game = {example.rules.game: example for _, example in games}
    for summary in recorder.list_games():
        detail = recorder.get_game(summary.id)
        text = write_text(detail.record())
        path = folder / f"{summary.board}-{summary.id}.pgn"
        path.write_text(text, encoding="utf-8")
        checked = replay(read_any(text))
        example = by_game.get(checked.rules.game)
        same = checked.ok and example is not None and list(checked.positions) == list(example.positions)
        tally.records.append((path, f"{checked.rules.game} {checked.result}, {len(checked.turns)} turns", same))
