"""The web companion display's update latency (docs/display.md), with a real Mosquitto
started here on a free loopback port, the daemon's real MqttLink publishing the states and
the real display (start_display: MQTT subscriber, Hall, DisplayServer) on a free port.

The states are those of one random Pylos game (seeded, up to 40 turns), each built by the
real Referee (``Referee.resume`` with the game's first k turns, then ``referee.state()``):
update k is the state with one move more than update k-1, published with
``MqttLink.publish_state`` (JSON encoding, retained state and turn messages, QoS 1). After
the last turn the game starts over at turn 1. Updates are spaced by 50 ms, during which the
link is polled as the daemon's loop would, so they never queue.

- State to event stream: publish_state -> the SSE ``board`` event carrying that state's
  turn number read from ``/events?board=<id>`` by an http.client reader on a thread (time
  stamped when its ``event:`` line is read, before the JSON is parsed). Includes the broker
  hop to the display's paho thread, Hall.feed, waking the stream's handler thread, drawing
  the view with its SVG (once per change) and the JSON encoding of the event.
- State to page: publish_state -> headless Chromium (Playwright) showing the new move count
  in ``#moves li``: ``page.wait_for_function(..., polling="raf")`` called right after the
  publish, wall time around both. Also includes EventSource, board.js's render and the
  polling: requestAnimationFrame (~16 ms frames) and Playwright's round trip to the
  browser, whose floor (the same wait on a condition already true) is reported.
- Views served: DisplayServer.view() drawing a fresh view (SVG included) for a Pylos game
  at turn ~20 and a 9x9 Sparklies game 12 turns in; each time a new state is fed to the
  Hall first (Hall.feed, not timed) since views are cached by version.

About 15 s in all (``--quick``: 7 s), most of it Chromium starting and the 50 ms spacing.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conftest_mqtt import Mosquitto  # noqa: E402

from host.display_cli import start_display  # noqa: E402
from host.games import rules_for  # noqa: E402
from host.mqtt import MqttLink  # noqa: E402
from host.referee import Referee  # noqa: E402

BOARD = "bench-b1"
TIMEOUT = 10.0
SPACING = 0.050
PLAYERS = {"light": "Ann", "dark": "Bob"}
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def figures(ms: list[float]) -> str:
    return f"{statistics.median(ms):.1f} / {pct(ms, 0.95):.1f} / {max(ms):.1f} ms ({len(ms)} samples)"


def game_states(rules: Any, start: Any, turns: list[Any], board: str) -> list[dict[str, Any]]:
    """The referee's state after each of ``turns`` (the first has one move)."""
    states = []
    for k in range(1, len(turns) + 1):
        referee = Referee(rules, players=PLAYERS)
        stamps = [f"2026-11-21T18:{i // 60:02d}:{i % 60:02d}.000Z" for i in range(k)]
        referee.resume(start, turns[:k], stamps=stamps)
        states.append({"board": board, **referee.state()})
    return states


def random_game(rules: Any, start: Any, rng: random.Random, length: int) -> list[Any]:
    position, turns = start, []
    while len(turns) < length and rules.outcome(position) is None:
        turn = rules.random_turn(position, rng)
        turns.append(turn)
        position = rules.play(position, turn)
    return turns


class EventStream:
    """``/events?board=<id>`` read on a thread: each ``board`` event's turn with the
    perf_counter time its ``event:`` line arrived."""

    def __init__(self, port: int, board: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.request("GET", f"/events?board={board}")
        self.response = self.conn.getresponse()
        if self.response.status != 200:
            raise RuntimeError(f"/events answered {self.response.status}")
        self.events: list[tuple[float, int]] = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="bench-sse", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        kind, data, stamp = None, [], 0.0
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                line = line.rstrip(b"\r\n")
                if line.startswith(b"event:"):
                    stamp = time.perf_counter()
                    kind = line[6:].strip().decode()
                elif line.startswith(b"data:"):
                    data.append(line[5:].strip())
                elif not line:
                    if kind == "board" and data:
                        turn = json.loads(b"\n".join(data)).get("turn")
                        with self.cond:
                            self.events.append((stamp, turn))
                            self.cond.notify_all()
                    kind, data = None, []
        except (OSError, ValueError):
            return  # closed

    def wait(self, turn: int, since: int) -> tuple[float, int]:
        """The arrival time of the first event after the first ``since`` with ``turn``."""
        deadline = time.monotonic() + TIMEOUT
        with self.cond:
            while True:
                for i in range(since, len(self.events)):
                    if self.events[i][1] == turn:
                        return self.events[i][0], i + 1
                since = len(self.events)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"no board event with turn {turn} within {TIMEOUT} s")
                self.cond.wait(left)

    def close(self) -> None:
        try:
            if self.conn.sock is not None:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()
        self.thread.join(2)


def pause(link: MqttLink, seconds: float) -> None:
    """Wait, polling the link as the daemon's main loop does."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        link.poll(timeout=min(left, 0.02))


def wait_for(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.01)


def views_served(display: Any, rng: random.Random, repeats: int) -> list[tuple[str, str, str]]:
    """DisplayServer.view() on a fresh state each time: Pylos mid-game, Sparklies 9x9."""
    pylos = rules_for("pylos")
    start = pylos.start()
    turns = random_game(pylos, start, rng, 40)
    mid = len(turns) // 2
    pylos_states = game_states(pylos, start, turns[:mid + 1], "bench-pylos")[mid - 1:]
    sparklies = rules_for("sparklies", width=9, height=9)
    start = sparklies.start(random.Random(3))
    turns = random_game(sparklies, start, rng, 13)
    sparklies_states = game_states(sparklies, start, turns, "bench-sparklies")[-2:]
    rows = []
    for label, board, states in ((f"Pylos, turn {mid}-{mid + 1}", "bench-pylos", pylos_states),
                                 (f"Sparklies 9x9, turn {len(turns) - 1}-{len(turns)}", "bench-sparklies",
                                  sparklies_states)):
        payloads = [json.dumps(s).encode() for s in states]
        ms = []
        for i in range(repeats):
            display.hall.feed(f"arbiter/{board}/state", payloads[i % len(payloads)])
            t0 = time.perf_counter()
            view = display.server.view(board)
            ms.append(1e3 * (time.perf_counter() - t0))
            if view is None or "<svg" not in view.get("svg", ""):
                raise RuntimeError(f"{board}: no SVG in the view")
        rows.append((f"Display: view drawn ({label}), median / max",
                     f"{statistics.median(ms):.2f} / {max(ms):.2f} ms ({len(ms)} samples, "
                     f"{len(view['svg']) // 1024} KiB SVG)", "< 20 ms"))
    return rows


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    from playwright.sync_api import sync_playwright

    stream_n, page_n, view_n = (10, 5, 20) if quick else (100, 40, 200)
    rng = random.Random(11)
    rules = rules_for("pylos")
    print("  precomputing the states of a Pylos game ...", file=sys.stderr, flush=True)
    states = game_states(rules, rules.start(), random_game(rules, rules.start(), rng, 40), BOARD)
    payload_kib = len(json.dumps(states[-1])) / 1024
    published = 0

    def publish_next() -> tuple[float, int]:
        nonlocal published
        state = states[published % len(states)]
        published += 1
        t0 = time.perf_counter()
        link.publish_state(state)
        return t0, state["turn"]

    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        broker = link = display = stream = None
        try:
            broker = Mosquitto(Path(tmp)).start()
            link = MqttLink(board_id=BOARD, url=broker.url)
            link.start()
            if not link.wait_connected(TIMEOUT):
                raise RuntimeError(f"the link could not connect to {broker.url}")
            _, turn = publish_next()
            display = start_display(broker.url, {}, port=0)
            wait_for(lambda: (display.hall.board(BOARD) is not None
                              and (display.hall.board(BOARD).state or {}).get("turn") == turn),
                     "the display to see the first state")

            print(f"  views drawn: {view_n} x 2 ...", file=sys.stderr, flush=True)
            rows += views_served(display, rng, view_n)

            print(f"  state -> event stream: {stream_n} updates ...", file=sys.stderr, flush=True)
            stream = EventStream(display.server.port, BOARD)
            _, index = stream.wait(turn, 0)
            to_stream = []
            for _ in range(stream_n):
                pause(link, SPACING)
                t0, turn = publish_next()
                arrived, index = stream.wait(turn, index)
                to_stream.append(1e3 * (arrived - t0))
            stream.close()
            stream = None

            print(f"  state -> page in headless Chromium: {page_n} updates ...", file=sys.stderr, flush=True)
            to_page, floor = [], []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM,
                                            args=["--no-sandbox"] if os.geteuid() == 0 else [])
                try:
                    page = browser.new_page(viewport={"width": 1200, "height": 800})
                    errors: list[str] = []
                    page.on("pageerror", lambda exc: errors.append(str(exc)))
                    page.goto(display.server.url + f"board/{BOARD}")
                    shown = "n => document.querySelectorAll('#moves li').length === n"
                    page.wait_for_function(shown, arg=turn, polling="raf", timeout=TIMEOUT * 1e3)
                    for _ in range(page_n):
                        pause(link, SPACING)
                        t0 = time.perf_counter()
                        page.wait_for_function(shown, arg=turn, polling="raf", timeout=TIMEOUT * 1e3)
                        floor.append(1e3 * (time.perf_counter() - t0))
                        t0, turn = publish_next()
                        page.wait_for_function(shown, arg=turn, polling="raf", timeout=TIMEOUT * 1e3)
                        to_page.append(1e3 * (time.perf_counter() - t0))
                    last = page.locator("#moves li.last .move").inner_text()
                    expected = states[(published - 1) % len(states)]["last_move"]
                    if last != expected:
                        raise RuntimeError(f"the page shows {last!r} as the last move, not {expected!r}")
                    if errors:
                        raise RuntimeError(f"errors on the page: {errors[:3]}")
                finally:
                    browser.close()
        finally:
            if stream is not None:
                stream.close()
            if display is not None:
                display.stop()
            if link is not None:
                link.stop()
            if broker is not None:
                broker.stop()
    note = f"Mosquitto, ~{payload_kib:.0f} KiB state"
    return [
        ("Display: state to event stream median / p95 / max", f"{figures(to_stream)}, {note}", "< 300 ms"),
        ("Display: state to page (Chromium) median / p95 / max",
         f"{figures(to_page)}; rAF polling + Playwright floor {statistics.median(floor):.1f} ms included",
         "< 300 ms"),
    ] + rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(" | ".join(row))
