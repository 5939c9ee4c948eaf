"""What the display tests share: a real daemon refereeing a board the test moves by hand
(observations through a queue source), the display itself, and a headless Chromium driven
by Playwright. Everything talks through a real Mosquitto."""

from __future__ import annotations

import os
import queue
import random
import shutil
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest_mqtt import wait_until
from host.config import from_mapping
from host.daemon import Daemon
from host.display_cli import start_display
from host.games import pyramid, rules_for
from host.observation import Observation, Press
from host.recorder import Recorder
from host.run_cli import _link
from host.sources import Source

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "docs" / "images"
TOKEN = "display-test-token-5c1d"
BASE = frozenset(n for n in pyramid.NAMES if n.startswith("1"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Clock:
    """The players' wall clock: a turn every 7 s from a fixed time, so the move list (and
    the screenshots in the documentation) are the same at every run."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 21, 19, 30, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=7)
        return self.now


class LiveBoard:
    """A daemon (referee, recorder, MQTT link) in a thread, fed by the test: ``show`` puts a
    board in front of its sensors for a few frames, ``play`` makes a turn step by step."""

    def __init__(self, broker: Any, directory: Path, board_id: str, game: str, *, options: dict | None = None,
                 reeds: bool = False, start: Any = None):
        """``start``: the position the board is set up with (a Sparklies board: a
        random.Random for its colours)."""
        self.board_id = board_id
        self.rules = rules_for(game, **(options or {}))
        config = from_mapping({"board_id": board_id, "game": game,
                               "mqtt": {"url": broker.url, "token": TOKEN},
                               **({"rules": {"size": f"{options['width']}x{options['height']}"}}
                                  if game == "sparklies" and options else {})})
        self.recorder = Recorder(directory / f"{board_id}.sqlite3", board_id=board_id)
        self.link = _link(config, self.recorder)
        self.items: queue.Queue = queue.Queue()
        self.reeds = reeds
        source = Source(f"test:{board_id}", self._items(), coverage=BASE if reeds else None)
        self.daemon = Daemon(config, self.rules, source, recorder=self.recorder, link=self.link, clock_now=Clock())
        self.t = 0.0
        self.link.start()
        self.thread = threading.Thread(target=self.daemon.run, name=f"daemon-{board_id}", daemon=True)
        self.thread.start()
        if game == "sparklies":
            self.position = self.rules.start(start if start is not None else random.Random(0))
        else:
            self.position = start if start is not None else self.rules.start()

    def _items(self) -> Iterator[Observation | Press]:
        while True:
            item = self.items.get()
            if item is None:
                return
            yield item

    def show(self, cells: dict[str, str], frames: int = 5) -> None:
        seen = {n: ("#" if v != "." else ".") for n, v in cells.items() if n in BASE} if self.reeds else dict(cells)
        for _ in range(frames):
            self.t += 0.1
            self.items.put(Observation(self.t, seen))

    def press(self, button: str, player: str | None = None) -> None:
        self.t += 0.1
        self.items.put(Press(self.t, button, player))

    def play(self, text: str) -> None:
        """Make turn ``text`` on the board step by step, as a player would."""
        rules = self.rules
        turn = rules.parse_turn(self.position, text)
        state = rules.begin_turn(self.position)
        for step in rules.steps(self.position, turn):
            state = state.apply(step)
            self.show(state.cells())
        player = rules.to_move(self.position)
        self.position = rules.play(self.position, turn)
        if rules.game == "sparklies":  # a chain may always go on: its end is said with the button
            self.press("end-turn", player)

    def turns(self) -> int:
        return len(self.daemon.referee.turns)

    def wait_turns(self, n: int) -> None:
        assert wait_until(lambda: self.turns() == n, 10.0), f"{self.board_id}: {self.turns()} turns, expected {n}"

    def stop(self) -> None:
        self.daemon.stop_requested.set()
        self.items.put(None)
        self.thread.join(10)
        self.link.stop()
        self.recorder.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium, headless, driven by Playwright (`make test` installs both)."""
    if CHROMIUM is None:
        pytest.fail("chromium is not installed: `make test` installs it (scripts/apt-packages.txt)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield chromium
        chromium.close()


@pytest.fixture
def display(mosquitto: Any) -> Iterator[Any]:
    shown = start_display(mosquitto.url, {}, port=0)
    yield shown
    shown.stop()


def page_for(browser: Any, display: Any, path: str, *, width: int = 1200, height: int = 800) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height}, timezone_id="UTC", locale="en-GB")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(display.server.url.rstrip("/") + path)
    return page


def board_cells(page: Any) -> dict[str, str]:
    """The balls and tiles the page's drawing shows: cell -> the drawn element's class."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#board svg .ball[data-cell]:not(.seen), #board svg .tile[data-cell]:not(.seen)')].map(
        (e) => [e.dataset.cell, e.getAttribute('class').split(' ')[1] + (e.dataset.owner ? ':' + e.dataset.owner : '')]))""")


def expected_cells(rules: Any, position: Any) -> dict[str, str]:
    names = {"L": "light", "D": "dark", "W": "white", "B": "black", "R": "spark"}
    tiles = {"R": "red", "G": "green", "B": "blue"}
    owners = {".": "none", "b": "black", "w": "white"}
    out = {}
    for cell, value in rules.cells(position).items():
        if rules.game == "sparklies":
            if value != "--":
                out[cell] = f"{tiles[value[0]]}:{owners[value[1]]}"
        elif value != ".":
            out[cell] = names[value]
    return out


def screenshot(page: Any, name: str) -> bytes:
    """A screenshot kept in docs/images (the documentation shows these, never drawings)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    data = page.screenshot(path=str(SCREENSHOTS / name), full_page=False)
    assert len(data) > 10_000, f"{name}: a screenshot of {len(data)} bytes is too small to show a board"
    return data
