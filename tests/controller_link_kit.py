"""Shared pieces of the board controller tests (tests/test_controller_link.py and
tests/test_controller_faults.py): the real firmware in the simulator harness, links and
serial boards on it, and waiting on what they report. Durations are asserted only in
simulated time: the harness paces the firmware to the wall clock, but a loaded machine
delays the test's own threads, never the firmware's clock."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pytest

from controller_sim import ROOT, SimController, SimError, firmware_elf, sim_build, sim_link  # noqa: F401
from host import controller_protocol as proto
from host.controller_link import CONNECTED, END, ControllerLink, Report
from host.games import rules_for
from host.indicators import BASE as HOLLOW_NAMES
from host.indicators import STEADY
from host.observation import Observation, Press
from host.serial_source import SerialBoard


#: how long a test waits for the simulated controller before it fails: a guard against a
#: hang, not a measure of speed (benchmarks/bench_controller.py is). simavr runs the firmware
#: on the same cores as the suite's workers, so under a loaded full run it falls far behind
#: the wall clock: at 15 s the garbage test once timed out in round 5 of 8 and passed alone
TIMEOUT = 30.0
PIXELS = proto.PIXELS
Pixels = tuple[str, ...]
OFF = "000000"
#: what the strip shows while the host is gone, in the blink's on phase (docs/protocol.md)
HOST_GONE = tuple("000040" if i == 2 else OFF for i in range(PIXELS))
DARK = (OFF,) * PIXELS


# -- helpers ----------------------------------------------------------------------------------

def px(r: int, g: int, b: int, mode: int = STEADY) -> bytes:
    return proto.pixel_bytes(r, g, b, mode)


def palette(k: int) -> list[bytes]:
    """19 distinct steady pixels, different for each ``k``."""
    return [px((37 * i + 11 * k) % 256, (90 + 13 * i + k) % 256, (200 - 7 * i + 29 * k) % 256) for i in range(PIXELS)]


def lit(pixels: list[bytes]) -> Pixels:
    """The strip as the harness prints it when every pixel is on."""
    return tuple(p[:3].hex() for p in pixels)


def strip_frames(sim: SimController, since: int = 0) -> list[tuple[float, Pixels]]:
    """(simulated time, pixels) of every strip frame the harness reported from line ``since``."""
    frames = []
    for line in sim.lines()[since:]:
        if line.startswith("strip "):
            words = line.split()
            frames.append((float(words[1][2:]), tuple(w for w in words[1:] if "=" not in w)))
    return frames


def wait_for(condition: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
    """Poll ``condition`` until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)
    return result


def wait_frame(sim: SimController, predicate: Callable[[Pixels], bool], since: int, what: str,
               timeout: float = TIMEOUT, after: float = -1.0) -> tuple[float, Pixels]:
    """The first strip frame reported from line ``since`` on, later than simulated time
    ``after``, that satisfies ``predicate``."""
    def find():
        return next(((t, f) for t, f in strip_frames(sim, since) if t > after and predicate(f)), None)
    try:
        return wait_for(find, what, timeout)
    except AssertionError as error:
        raise AssertionError(f"{error}; frames: {strip_frames(sim, since)[-5:]}") from None


class Collected:
    """What an iterator yields, collected by a thread, for the test to wait on."""

    def __init__(self, items: Iterable[Any], name: str) -> None:
        self.items: list[Any] = []
        self.error: BaseException | None = None
        self.done = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, args=(items,), name=name, daemon=True)
        self._thread.start()

    def _run(self, items: Iterable[Any]) -> None:
        try:
            for item in items:
                with self._cond:
                    self.items.append(item)
                    self._cond.notify_all()
        except BaseException as error:  # handed to the test: wait() raises it
            self.error = error
        finally:
            with self._cond:
                self.done = True
                self._cond.notify_all()

    def mark(self) -> int:
        with self._cond:
            return len(self.items)

    def since(self, mark: int = 0) -> list[Any]:
        with self._cond:
            return self.items[mark:]

    def wait(self, predicate: Callable[[Any], bool], what: str, since: int = 0, timeout: float = TIMEOUT) -> Any:
        """The first item from index ``since`` on that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            index = since
            while True:
                for index in range(index, len(self.items)):
                    if predicate(self.items[index]):
                        return self.items[index]
                index = len(self.items)
                left = deadline - time.monotonic()
                if left <= 0 or self.done:
                    state = f"ended ({self.error!r})" if self.done else "running"
                    raise AssertionError(f"no {what} within {timeout} s ({state}); last: {self.items[-6:]}")
                self._cond.wait(min(left, 0.2))

    def join(self, timeout: float = TIMEOUT) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the collecting thread did not end"


def reports_of(link: ControllerLink) -> Iterator[Report]:
    while (report := link.next_report(0.2)) is not END:
        if report is not None:
            yield report


def kind(name: str) -> Callable[[Report], bool]:
    return lambda r: r.kind == name


def message(cls: type, **fields: Any) -> Callable[[Report], bool]:
    return lambda r: isinstance(r.message, cls) and all(getattr(r.message, k) == v for k, v in fields.items())


def messages(reports: Collected, cls: type, since: int = 0) -> list[Any]:
    return [r.message for r in reports.since(since) if isinstance(r.message, cls)]


def at_least(n: int, items: list[Any]) -> list[Any] | None:
    return items if len(items) >= n else None


def uptimes(reports: Collected, since: int = 0) -> list[int]:
    return [r.message.uptime_ms for r in reports.since(since)
            if isinstance(r.message, (proto.Snapshot, proto.Change, proto.Heartbeat))]


class Link:
    """A started ControllerLink and its reports."""

    def __init__(self, port: Path, **options: Any) -> None:
        self.link = ControllerLink(str(port), **options)
        self.pending: tuple[list[bytes], list[int]] | None = None
        self.reports = Collected(reports_of(self.link.start()), f"reports of {port}")

    def connected(self, since: int = 0) -> proto.Hello:
        return self.reports.wait(kind(CONNECTED), "CONNECTED", since).message

    def snapshot_after(self, uptime_ms: int, since: int = 0) -> proto.Snapshot:
        """The first snapshot taken after the firmware's ``uptime_ms``."""
        return self.reports.wait(lambda r: isinstance(r.message, proto.Snapshot) and r.message.uptime_ms > uptime_ms,
                                 f"a SNAPSHOT after uptime {uptime_ms} ms", since).message

    def heartbeat(self, since: int = 0) -> proto.Heartbeat:
        return self.reports.wait(message(proto.Heartbeat), "a HEARTBEAT", since).message

    def close(self) -> None:
        self.link.close()
        self.reports.join()


def timed(sim: SimController, command: str) -> float:
    """Send ``command`` in the same write as a ``time`` request: the harness reads both at
    once and carries them out at the same simulated time, which is returned."""
    mark = sim.mark()
    sim.command(f"time\n{command}")
    return float(sim.wait_line("time", TIMEOUT, since=mark).split("t=")[1])


def wait_in_second(sim: SimController, low: float, high: float) -> float:
    """Wait until the simulated time is within [low, high) of a whole second (the phase
    of the firmware's blink and in-turn cycles, which follow its uptime)."""
    while True:
        now = sim.time()
        if low <= now % 1.0 < high:
            return now
        time.sleep(max(0.01, (low - now % 1.0) % 1.0))


# -- fixtures ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def elf(sim_build: tuple[Path, Path]) -> Path:
    try:
        return firmware_elf()
    except SimError as error:
        pytest.fail(f"cannot build the firmware: {error}", pytrace=False)


@pytest.fixture(scope="session")
def elf_api2(sim_build: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The firmware built to speak API level 2, in a directory of its own."""
    import subprocess
    build = tmp_path_factory.mktemp("firmware-api2")
    proc = subprocess.run(["make", "-C", str(ROOT / "firmware"), "API_LEVEL=2", f"BUILD={build}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"cannot build the API level 2 firmware:\n{proc.stdout}{proc.stderr}", pytrace=False)
    return build / "arbiter.elf"


@pytest.fixture
def sims(sim_build: tuple[Path, Path], sim_link: Path) -> Iterator[Callable[..., SimController]]:
    """Starts harnesses on the test's link path; stops them after the test and checks that
    the strip's timing was right all along."""
    started: list[SimController] = []

    def start(elf: Path, closed: set[int] = frozenset()) -> SimController:
        """A harness with the switches ``closed`` closed from its start: by the time this
        returns, the firmware has debounced them (3 scans of 7 ms)."""
        sim = SimController(elf, sim_link, harness=sim_build[0]).start()
        started.append(sim)
        if closed:
            sim.set_all(set(closed))
            sim.wait_sim_time(sim.time() + 0.05)
        return sim

    yield start
    for sim in started:
        sim.stop()
    for sim in started:
        assert sim.errors() == [], f"WS2812B timing errors: {sim.errors()}"


@pytest.fixture
def sim(sims: Callable[..., SimController], elf: Path) -> SimController:
    return sims(elf)


@pytest.fixture
def links(sims: Callable[..., SimController]) -> Iterator[Callable[..., Link]]:
    """Opens ControllerLinks; closes them after the test (before the harnesses stop)."""
    opened: list[Link] = []

    def open_(port: Path, **options: Any) -> Link:
        opened.append(Link(port, **options))
        return opened[-1]

    yield open_
    for link in opened:
        link.close()


class Board:
    """SerialBoard.items() run by a thread; its link reachable for show()."""

    def __init__(self, port: Path, game: str = "pylos", **options: Any) -> None:
        self.link = ControllerLink(str(port), **options)
        self.board = SerialBoard(str(port), rules_for(game), link=self.link)
        self.items = Collected(self.board.items(), "SerialBoard.items")

    def observation(self, predicate: Callable[[Observation], bool], what: str, since: int = 0) -> Observation:
        return self.items.wait(lambda i: isinstance(i, Observation) and predicate(i), what, since)

    def press(self, what: str, since: int) -> Press:
        return self.items.wait(lambda i: isinstance(i, Press), what, since)

    def close(self) -> None:
        self.link.close()
        self.items.join()


@pytest.fixture
def boards() -> Iterator[Callable[..., Board]]:
    opened: list[Board] = []

    def open_(port: Path, **options: Any) -> Board:
        opened.append(Board(port, **options))
        return opened[-1]

    yield open_
    for board in opened:
        board.close()


def cells(closed: set[int]) -> dict[str, str]:
    return {name: "#" if i in closed else "." for i, name in enumerate(HOLLOW_NAMES)}
