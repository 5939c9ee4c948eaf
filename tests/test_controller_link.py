"""The host's side of the board controller (host/controller_link.py, host/serial_source.py)
against the real firmware (firmware/build/arbiter.elf) running in the simulator harness
(firmware/sim, driven through tests/controller_sim.py).

Every wait has a generous deadline and waits on a condition. Durations are asserted only in
simulated time (the harness's ``t=``, the firmware's uptime): the harness paces the firmware
to the wall clock, but a loaded machine delays the test's own threads, never the firmware's
clock. Randomness is seeded; a failing fuzz run prints its seed and the bytes it sent.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pytest
import serial

from controller_sim import ROOT, SimController, SimError, firmware_elf, sim_build, sim_link  # noqa: F401
from host import controller_protocol as proto
from host.controller_link import CONNECTED, END, FAILED, LOST, RESET, ControllerLink, Report
from host.games import rules_for
from host.indicators import FAST, IN_TURN, SLOW, STEADY
from host.observation import Observation, Press
from host.indicators import BASE as HOLLOW_NAMES
from host.serial_source import SerialBoard, SourceFailed

TIMEOUT = 15.0
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


# -- 1. handshake ---------------------------------------------------------------------------

def test_handshake_and_first_snapshot(sims, elf, links):
    closed = {0, 7, 15, 16, 30, 31, 45, 48}
    sim = sims(elf, closed)
    link = links(sim.link)
    hello = link.connected()
    assert (hello.api, hello.switches, hello.pixels) == (proto.API_LEVEL, 49, 19)
    assert hello.causes == ["power-on"] and hello.version == "1.0.0"
    assert link.link.hello == hello
    snapshot = link.reports.wait(message(proto.Snapshot), "a SNAPSHOT").message
    assert snapshot.closed == closed
    assert snapshot.slot is None  # no in-turn cycle
    beat = link.heartbeat()
    assert beat.host_alive and beat.rx_frames >= 2 and beat.rx_errors == 0
    assert link.link.stats.damaged == link.link.stats.missed == link.link.stats.refused == 0


# -- 2. switches ----------------------------------------------------------------------------

#: a hollow in each corner, a slot at each end of both trays, the three buttons, one per row/column
SAMPLE = (0, 3, 12, 15, 16, 30, 31, 45, 46, 47, 48, 8, 24, 40)


def test_switch_changes_arrive_once_and_snapshots_agree(sim, links):
    link = links(sim.link)
    link.connected()
    link.reports.wait(message(proto.Snapshot), "the first SNAPSHOT")
    start = link.reports.mark()
    closed: set[int] = set()
    debounce_ms = []
    for state in (True, False):
        for n in SAMPLE:
            mark = link.reports.mark()
            t = timed(sim, f"{'close' if state else 'open'} {n}")
            change = link.reports.wait(message(proto.Change, switch=n), f"CHANGE of switch {n}", mark).message
            assert change.closed is state
            (closed.add if state else closed.discard)(n)
            debounce_ms.append(change.uptime_ms - 1000 * t)
        assert link.snapshot_after(change.uptime_ms).closed == closed
    changes = [(c.switch, c.closed) for c in messages(link.reports, proto.Change, start)]
    assert changes == [(n, True) for n in SAMPLE] + [(n, False) for n in SAMPLE]
    # the firmware's debounce: 3 equal readings 7 ms apart (uptime counts from the start
    # of the simulation, give or take a millisecond)
    assert all(12 <= d <= 23 for d in debounce_ms), debounce_ms


@pytest.mark.parametrize("switch", [5, 20, 48])
def test_contact_bounce_gives_one_change(sim, links, switch):
    link = links(sim.link)
    link.connected()
    link.reports.wait(message(proto.Snapshot), "the first SNAPSHOT")
    mark = link.reports.mark()
    t_close = timed(sim, f"bounce {switch}")
    first = link.reports.wait(message(proto.Change, switch=switch), "the CHANGE", mark).message
    t_open = timed(sim, f"bounce-open {switch}")
    # a snapshot well after the chatter ended: any second change would have come before it
    assert switch not in link.snapshot_after(int(1000 * t_open) + 60).closed
    changes = [(c.switch, c.closed) for c in messages(link.reports, proto.Change, mark)]
    assert changes == [(switch, True), (switch, False)]
    # the first reading may catch the chatter closed, the last comes at most 21 ms after it ended
    assert 12 <= first.uptime_ms - 1000 * t_close <= 5 + 23


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


def test_serial_board_observations_and_end_turn_presses(sims, elf, boards):
    closed = {0, 5, 16, 17, 31}
    sim = sims(elf, closed)
    board = boards(sim.link)
    first = board.observation(lambda o: True, "the first observation")
    assert dict(first.cells) == cells(closed)
    assert dict(first.reserves) == {"light": 2, "dark": 1}
    for n, change in ((10, "close"), (18, "close"), (44, "close"), (0, "open"), (16, "open")):
        mark = board.items.mark()
        sim.command(f"{change} {n}")
        (closed.add if change == "close" else closed.discard)(n)
        light, dark = sum(i in closed for i in range(16, 31)), sum(i in closed for i in range(31, 46))
        reserves = {"light": light, "dark": dark}
        board.observation(lambda o: dict(o.cells) == cells(closed) and dict(o.reserves) == reserves,
                          f"the board after {change} {n}", mark)
    for button, player in ((46, "light"), (47, "dark"), (46, "light")):
        mark = board.items.mark()
        sim.close_switch(button)
        press = board.press(f"the press of {button}", mark)
        assert (press.button, press.player, press.choice) == ("end-turn", player, None)
        sim.open_switch(button)
    # releasing a button is no press
    time_mark = board.items.mark()
    sim.close_switch(2)
    closed.add(2)
    board.observation(lambda o: dict(o.cells) == cells(closed), "the board after close 2", time_mark)
    assert not [i for i in board.items.since(time_mark) if isinstance(i, Press)]


def test_confirm_press_carries_the_slot_on_show(sim, boards):
    """Three candidates, hollows 0, 1 and 2 in slots 0, 1 and 2: a confirm press reports the
    slot whose hollow the strip showed at that moment."""
    board = boards(sim.link)
    board.observation(lambda o: True, "the first observation")
    colour = px(0, 200, 90, IN_TURN)
    pixels = [px(0, 0, 0)] * PIXELS
    pixels[3:6] = [colour] * 3
    mark_strip = sim.mark()
    board.link.show(pixels, [1 << 0, 1 << 1, 1 << 2])
    lit_hollow = lambda f: [i for i in range(16) if f[3 + i] != OFF]  # noqa: E731
    wait_frame(sim, lambda f: lit_hollow(f) == [0], mark_strip, "the first candidate lit")
    choices: list[int] = []
    while set(choices) != {0, 1, 2}:
        assert len(choices) < 8, choices
        # press well inside a slot's lit part (0-0.8 s): the CHANGE comes 14-21 ms later
        wait_in_second(sim, 0.15, 0.45)
        mark = board.items.mark()
        t = timed(sim, "close 48")
        press = board.press("the confirm press", mark)
        sim.open_switch(48)
        shown = [f for ft, f in strip_frames(sim, mark_strip) if ft <= t][-1]
        assert press.button == "confirm" and lit_hollow(shown) == [press.choice], (press, shown)
        choices.append(press.choice)
        sim.wait_sim_time(t + 0.6)  # the next press in the next slot


# -- 3. LEDs --------------------------------------------------------------------------------

def test_steady_pixels_are_shown_and_stay(sim, links):
    link = links(sim.link)
    link.connected()
    for k in range(3):
        pixels = palette(k)
        link.link.show(pixels)
        sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    # steady: the strip is written only when it changes, so no new frame for a while
    mark = sim.mark()
    sim.wait_sim_time(sim.time() + 1.5)
    assert strip_frames(sim, mark) == []
    # one hollow changed: only that pixel differs
    pixels[10] = px(1, 2, 3)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    assert link.link.stats.refused == 0


def runs(frames: list[tuple[float, Pixels]], pixel: int) -> list[tuple[bool, float]]:
    """(on, duration) of every whole run of ``pixel`` staying on or off."""
    times = toggles(frames, pixel)
    first_on = next(f[pixel] != OFF for t, f in frames if t >= times[0]) if times else False
    return [((i % 2 == 0) == first_on, round(b - a, 4)) for i, (a, b) in enumerate(zip(times, times[1:]))]


def toggles(frames: list[tuple[float, Pixels]], pixel: int) -> list[float]:
    """Simulated times at which ``pixel`` went on or off."""
    out, state = [], None
    for t, frame in frames:
        on = frame[pixel] != OFF
        if state is not None and on != state:
            out.append(t)
        state = on
    return out


def test_blinking_and_in_turn_pixels(sim, links):
    link = links(sim.link)
    link.connected()
    pixels = [px(0, 0, 0)] * PIXELS
    pixels[0] = px(255, 0, 0, SLOW)
    pixels[1] = px(0, 255, 0, FAST)
    pixels[2] = px(0, 0, 255, IN_TURN)  # an indicator in turn keeps the cycle's rhythm
    pixels[3] = px(9, 9, 9)
    pixels[4:7] = [px(255, 255, 0, IN_TURN)] * 3
    # three candidates: hollows 1+2, hollow 3, hollows 1+3 (hollows shared between slots)
    masks = [0b0110, 0b1000, 0b1010]
    mark = sim.mark()
    link.link.show(pixels, masks)
    start, _ = wait_frame(sim, lambda f: f[3] == "090909", mark, "the steady pixel")
    sim.wait_sim_time(start + 3.6)
    frames = [(t, f) for t, f in strip_frames(sim, mark) if t >= start]
    allowed = [("ff0000", OFF), ("00ff00", OFF), ("0000ff", OFF), ("090909",)] + [("ffff00", OFF)] * 3
    for t, frame in frames:
        assert all(frame[i] in allowed[i] for i in range(7)) and frame[7:] == (OFF,) * 12, (t, frame)

    slow, fast, turn = runs(frames, 0), runs(frames, 1), runs(frames, 2)
    assert len(slow) >= 5 and all(abs(d - 0.5) <= 0.004 for _, d in slow), slow
    assert len(fast) >= 20 and all(abs(d - 0.125) <= 0.004 for _, d in fast), fast
    # in turn: lit for 0.8 s, dark for 0.2 s, every second of uptime
    assert len(turn) >= 5 and all(abs(d - (0.8 if on else 0.2)) <= 0.004 for on, d in turn), turn
    # each second, the hollows of its slot: slot = uptime in seconds mod 3 (the simulated
    # time runs a fraction of a millisecond ahead of the uptime)
    seconds: dict[int, set[int]] = {}
    for t, frame in frames:
        if frame[2] != OFF:
            hollows = sum(1 << (i - 3) for i in range(3, 19) if frame[i] not in (OFF, "090909"))
            seconds.setdefault(int(t), set()).add(hollows)
    assert len(seconds) >= 3 and all(shown == {masks[k % 3]} for k, shown in seconds.items()), seconds
    # the slot each snapshot reports is the one the strip shows at that uptime
    snap = link.snapshot_after(0, link.reports.mark())
    assert snap.slot == (snap.uptime_ms // 1000) % 3


# -- 4. heartbeats and the host going away ------------------------------------------------------

def test_host_heartbeat_keeps_the_host_alive_and_its_absence_shows(sim, links, sims, elf):
    link = links(sim.link)
    link.connected()
    pixels = palette(5)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    mark = link.reports.mark()
    beats = wait_for(lambda: at_least(5, messages(link.reports, proto.Heartbeat, mark)), "5 HEARTBEATs")
    assert all(b.host_alive for b in beats), beats
    assert beats[-1].rx_frames >= beats[0].rx_frames + 3  # the host's heartbeats
    assert all(b.uptime_ms - a.uptime_ms == 500 for a, b in zip(beats, beats[1:])), beats
    strip_mark = sim.mark()
    t_close = sim.time()
    link.close()
    # no good frame for 3 s: the strip goes dark but for pixel 2 blinking blue
    t_gone, frame = wait_frame(sim, lambda f: f != lit(pixels), strip_mark, "the host-gone strip")
    assert frame in (DARK, HOST_GONE)
    assert 2.0 <= t_gone - t_close <= 3.2, (t_close, t_gone)
    on, _ = wait_frame(sim, lambda f: f == HOST_GONE, strip_mark, "pixel 2 blue")
    sim.wait_sim_time(on + 1.6)
    blink = toggles([f for f in strip_frames(sim, strip_mark) if f[0] >= on], 2)
    assert len(blink) >= 3 and all(abs(b - a - 0.5) <= 0.004 for a, b in zip(blink, blink[1:])), blink
    assert all(f in (DARK, HOST_GONE) for t, f in strip_frames(sim, strip_mark) if t >= t_gone)
    # a new host: its pixels come back (shown before it starts, so nothing else in between)
    strip_mark = sim.mark()
    again = ControllerLink(str(sim.link))
    pixels = palette(6)
    again.show(pixels)
    new = Collected(reports_of(again.start()), "the second link")
    try:
        new.wait(kind(CONNECTED), "CONNECTED")
        wait_frame(sim, lambda f: f == lit(pixels), strip_mark, "the new host's pixels")
        beat = new.wait(lambda r: isinstance(r.message, proto.Heartbeat) and r.message.host_alive, "host_alive")
        assert beat.message.host_alive
    finally:
        again.close()
        new.join()


# -- 5. a noisy line ----------------------------------------------------------------------------

class NoisyPort:
    """A serial port whose writes and/or reads are damaged while ``active``: bytes inserted
    (now and then a sync byte with a plausible length), bits flipped, bytes dropped, the end
    cut off. Seeded; used only from the link's I/O thread."""

    def __init__(self, port: Any, seed: int, *, writes: bool = False, reads: bool = False,
                 rate: float = 0.3) -> None:
        self.port, self.rng, self.rate = port, random.Random(seed), rate
        self.writes, self.reads = writes, reads
        self.active = False
        self.damaged = 0

    def damage(self, data: bytes) -> bytes:
        if not data or self.rng.random() >= self.rate:
            return data
        self.damaged += 1
        b = bytearray(data)
        what = self.rng.randrange(5)
        i = self.rng.randrange(len(b))
        if what == 0:
            b[i] ^= 1 << self.rng.randrange(8)
        elif what == 1:
            del b[i]
        elif what == 2:
            b[i:i] = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 12)))
        elif what == 3:
            b[i:i] = bytes((proto.SYNC, self.rng.randint(0, 60)))
        else:
            del b[i:]
        return bytes(b)

    def write(self, data: bytes) -> int:
        self.port.write(self.damage(data) if self.active and self.writes else data)
        return len(data)

    def read(self, size: int = 1) -> bytes:
        data = self.port.read(size)
        return self.damage(data) if self.active and self.reads else data

    @property
    def in_waiting(self) -> int:
        return self.port.in_waiting

    def close(self) -> None:
        self.port.close()


def noisy_opener(seed: int, **options: Any) -> tuple[list[NoisyPort], Callable[[str, int], NoisyPort]]:
    ports: list[NoisyPort] = []

    def open_port(name: str, baud: int) -> NoisyPort:
        port = serial.Serial(name, baud, timeout=0.01, write_timeout=0.5)
        ports.append(NoisyPort(port, seed + len(ports), **options))
        return ports[-1]
    return ports, open_port


def no_reset(link: Link, since: int = 0) -> None:
    """The firmware did not restart: no RESET, no HELLO, its uptime only grew."""
    assert not [r for r in link.reports.since(since) if r.kind in (RESET, LOST)]
    up = uptimes(link.reports, since)
    assert up == sorted(up), up
    assert link.link.stats.resets == 0


def test_garbage_from_the_host_costs_nothing(sim, links):
    seed = 1234
    ports, open_port = noisy_opener(seed, writes=True, rate=0.35)
    link = links(sim.link, open_port=open_port)
    link.connected()
    first = link.heartbeat()
    start = link.reports.mark()
    rng = random.Random(seed)
    ports[-1].active = True
    noise_until = sim.time() + 3.0
    closed: set[int] = set()
    toggled: list[tuple[int, bool]] = []
    for k in range(8):
        pixels = palette(10 + k)
        pixels[0] = px(255, 0, 0, SLOW) if k % 2 else pixels[0]
        link.link.show(pixels)
        for n in rng.sample(range(49), 3):
            state = n not in closed
            sim.command(f"{'close' if state else 'open'} {n}")
            (closed.add if state else closed.discard)(n)
            toggled.append((n, state))
        steady = lit(pixels)
        wait_frame(sim, lambda f: f[1:] == steady[1:] and f[0] in (steady[0], OFF), 0,
                   f"LED state {k} through the noise (seed {seed})")
        # every change is reported: the controller's side of the line is clean
        changes = wait_for(lambda: at_least(len(toggled), messages(link.reports, proto.Change, start)),
                           f"the CHANGEs of round {k} (seed {seed})")
    sim.wait_sim_time(noise_until)
    ports[-1].active = False
    stats = link.link.stats
    assert ports[-1].damaged > 10 and stats.resent > 0, (ports[-1].damaged, stats)
    assert sorted((c.switch, c.closed) for c in changes) == sorted(toggled)
    assert link.snapshot_after(changes[-1].uptime_ms, start).closed == closed
    beat = link.heartbeat(link.reports.mark())
    assert beat.rx_errors > first.rx_errors and beat.host_alive
    no_reset(link)
    assert stats.refused == 0


def test_garbage_towards_the_host_loses_nothing_a_snapshot_does_not_restore(sim, links):
    """The harness cannot damage what the firmware sends; the host's reads are damaged
    instead, real frames mixed with random bytes."""
    seed = 4321
    ports, open_port = noisy_opener(seed, reads=True, rate=0.06)
    link = links(sim.link, open_port=open_port)
    link.connected()
    link.reports.wait(message(proto.Snapshot), "the first SNAPSHOT")
    start = link.reports.mark()
    ports[-1].active = True
    noise_until = sim.time() + 3.0
    rng = random.Random(seed)
    closed: set[int] = set()
    toggled: set[tuple[int, bool]] = set()
    for k in range(6):
        pixels = palette(20 + k)
        link.link.show(pixels)
        for _ in range(4):
            n = rng.randrange(49)
            sim.command(f"{'open' if n in closed else 'close'} {n}")
            (closed.discard if n in closed else closed.add)(n)
            toggled.add((n, n in closed))
        sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    sim.wait_sim_time(noise_until)
    ports[-1].active = False
    mark = link.reports.mark()
    t = sim.time()
    assert link.snapshot_after(int(1000 * t), mark).closed == closed
    stats = link.link.stats
    assert stats.damaged > 0 and ports[-1].damaged >= 5, (stats, ports[-1].damaged)
    # whatever CHANGE got through is one that happened, and the picture the host builds as
    # SerialBoard does (CHANGEs applied, each SNAPSHOT replacing all) ends right
    picture: set[int] = set()
    for report in link.reports.since(start):
        if isinstance(report.message, proto.Change):
            assert (report.message.switch, report.message.closed) in toggled, report
            (picture.add if report.message.closed else picture.discard)(report.message.switch)
        elif isinstance(report.message, proto.Snapshot):
            picture = set(report.message.closed)
    assert picture == closed
    no_reset(link, start)
    assert not [r for r in link.reports.since(start) if r.kind == CONNECTED]


# -- 6. fuzzing the firmware's receiver ----------------------------------------------------------

class RawPort:
    """The controller's UART opened directly (no ControllerLink): frames sent by hand, what
    comes back decoded by a thread."""

    def __init__(self, path: Path) -> None:
        self.serial = serial.Serial(str(path), 115200, timeout=0.05, write_timeout=60)
        self.decoder = proto.Decoder()
        self.received = Collected(self._frames(), "raw port reader")
        self.seq = 0

    def _frames(self) -> Iterator[tuple[float, proto.Frame]]:
        while self.serial.is_open:
            try:
                data = self.serial.read(256)
            except Exception:  # closed by close(), from the test's thread
                return
            for frame in self.decoder.feed(data):  # the firmware sends whole frames
                yield time.monotonic(), frame

    def send(self, type_: int, payload: bytes = b"") -> int:
        seq, self.seq = self.seq, (self.seq + 1) % 256
        self.serial.write(proto.encode(seq, type_, payload))
        return seq

    def wait(self, type_: int, what: str, since: int = 0, timeout: float = TIMEOUT, **fields: Any) -> Any:
        def match(item):
            if item[1].type != type_:
                return False
            m = proto.decode(item[1])
            return all(getattr(m, k) == v for k, v in fields.items())
        return proto.decode(self.received.wait(match, what, since, timeout)[1])

    def ack(self, seq: int, type_: int, since: int = 0) -> proto.Ack:
        return self.wait(proto.ACK, f"the ACK of {proto.type_name(type_)} seq {seq}", since, seq=seq, type=type_)

    def messages(self, since: int = 0) -> list[proto.Message]:
        return [proto.decode(f) for _, f in self.received.since(since)]

    def close(self) -> None:
        self.serial.close()
        self.received.join()


@pytest.fixture
def raw(sim: SimController) -> Iterator[RawPort]:
    port = RawPort(sim.link)
    yield port
    port.close()


def valid_command(rng: random.Random) -> bytes:
    type_ = rng.choice([proto.CMD_HELLO, proto.CMD_HEARTBEAT, proto.SET_INDICATORS, proto.SET_STRIP,
                        proto.GET_SNAPSHOT, proto.SET_SLOTS])
    if type_ == proto.CMD_HELLO:
        payload = bytes((1,))
    elif type_ == proto.SET_INDICATORS:
        payload = b"".join(px(*rng.randbytes(3), rng.randrange(4)) for _ in range(3))
    elif type_ == proto.SET_STRIP:
        first = rng.randrange(16)
        payload = bytes((first,)) + b"".join(px(*rng.randbytes(3), rng.randrange(4))
                                             for _ in range(rng.randint(1, min(11, 16 - first))))
    elif type_ == proto.SET_SLOTS:
        payload = proto.slots_payload([rng.randrange(1 << 16) for _ in range(rng.randint(0, 16))])
    else:
        payload = b""
    return proto.encode(rng.randrange(256), type_, payload)


def fuzz_strings(rng: random.Random, count: int) -> Iterator[bytes]:
    """Random bytes, random frames with a valid CRC, mutated valid commands."""
    for _ in range(count):
        what = rng.randrange(8)
        if what == 0:
            yield rng.randbytes(rng.randint(1, 60))
        elif what == 1:  # a valid CRC around random type, length and payload
            yield proto.encode(rng.randrange(256), rng.randrange(256), rng.randbytes(rng.randint(0, 48)))
        elif what == 2:  # a valid CRC around a host type with a payload of the wrong size
            yield proto.encode(rng.randrange(256), rng.randint(0x81, 0x8F), rng.randbytes(rng.randint(0, 48)))
        else:
            frame = bytearray(valid_command(rng))
            if what == 3:
                for _ in range(rng.randint(1, 3)):
                    frame[rng.randrange(len(frame))] ^= 1 << rng.randrange(8)
            elif what == 4:
                del frame[rng.randint(1, len(frame) - 1):]
            elif what == 5:
                frame[1] = rng.choice([0, 1, 47, 48, 49, 200, 255, rng.randrange(256)])
            elif what == 6:
                frame[:0] = bytes((proto.SYNC,)) * rng.randint(1, 6)
            else:
                frame[rng.randrange(len(frame)):rng.randrange(len(frame))] = rng.randbytes(rng.randint(1, 8))
            yield bytes(frame)


def test_fuzzing_never_wedges_the_firmware(sim, raw, tmp_path):
    seed = 20261122
    before = raw.wait(proto.HEARTBEAT, "a HEARTBEAT before the fuzz")
    start = raw.received.mark()
    sent = list(fuzz_strings(random.Random(seed), 2500))
    # the marker below must not share its SEQ with a HEARTBEAT hidden in the fuzz
    used = {f.seq for f in proto.Decoder().feed(b"".join(sent)) if f.type == proto.CMD_HEARTBEAT}
    raw.seq = min(set(range(256)) - used)
    log = tmp_path / "fuzz-sent.txt"
    log.write_text("".join(s.hex() + "\n" for s in sent))
    where = f"(seed {seed}, the {len(sent)} strings sent, one per line: {log})"
    for s in sent:
        raw.serial.write(s)
    raw.serial.flush()
    # a marker: when its ACK comes back, the firmware has read everything before it
    marker = raw.send(proto.CMD_HEARTBEAT)
    raw.ack(marker, proto.CMD_HEARTBEAT, start)
    time.sleep(0.05)  # quiet line: a bogus frame still open times out (20 ms)
    mark = raw.received.mark()
    hello = raw.send(proto.CMD_HELLO, bytes((1,)))
    snap = raw.send(proto.GET_SNAPSHOT)
    assert raw.ack(hello, proto.CMD_HELLO, mark).status == 0, where
    answer = raw.wait(proto.HELLO, "the HELLO", mark)
    assert answer.causes == ["power-on"], where
    assert raw.ack(snap, proto.GET_SNAPSHOT, mark).status == 0, where
    raw.wait(proto.SNAPSHOT, "the SNAPSHOT", mark)
    # heartbeats go on, the uptime only grows, nothing restarted
    after = raw.wait(proto.HEARTBEAT, "a HEARTBEAT after the fuzz", raw.received.mark())
    later = raw.wait(proto.HEARTBEAT, "another HEARTBEAT", raw.received.mark())
    assert later.uptime_ms == after.uptime_ms + 500, where
    assert after.rx_errors > before.rx_errors + 100 and after.rx_frames > before.rx_frames + 100, (before, after)
    msgs = raw.messages(start)
    up = [m.uptime_ms for m in msgs if hasattr(m, "uptime_ms")]
    assert up == sorted(up), where
    assert all(m.causes == ["power-on"] for m in msgs if isinstance(m, proto.Hello)), where
    assert raw.decoder.dropped == 0, where  # what the firmware sent stayed intact


# -- 7. the cable pulled out and put back ---------------------------------------------------------

def test_unplug_and_replug(sims, elf, links):
    sim = sims(elf, {1, 2})
    link = links(sim.link)
    link.connected()
    pixels = palette(30)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    mark = link.reports.mark()
    sim.kill()
    link.reports.wait(kind(LOST), "LOST", mark)
    mark = link.reports.mark()
    new = sims(elf, {3, 46})
    hello = link.connected(mark)
    assert hello.causes == ["power-on"]
    # the host's pixels on the new controller, without show() again, and its switches
    new.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    link.reports.wait(message(proto.Snapshot, closed={3, 46}), "a SNAPSHOT of the new switches", mark)
    new.close_switch(4)
    assert link.reports.wait(message(proto.Change, switch=4), "CHANGE 4", mark).message.closed
    assert link.link.stats.reconnects >= 1


def test_lost_is_reported_promptly(sims, elf, links):
    sim = sims(elf)
    link = links(sim.link)
    link.connected()
    link.heartbeat()
    mark = link.reports.mark()
    t0 = link.link.wall()
    sim.kill()
    lost = link.reports.wait(kind(LOST), "LOST", mark)
    assert lost.t - t0 < 3.0, lost  # a vanished pty is a port error at once; silence takes 2 s


def test_serial_board_goes_on_after_a_reconnection(sims, elf, boards):
    sim = sims(elf, {0, 1})
    board = boards(sim.link)
    board.observation(lambda o: dict(o.cells) == cells({0, 1}), "the first board")
    sim.kill()
    mark = board.items.mark()
    new = sims(elf, {2, 3, 20})
    board.observation(lambda o: dict(o.cells) == cells({2, 3}) and dict(o.reserves) == {"light": 1, "dark": 0},
                      "the new controller's board", mark)
    mark = board.items.mark()
    new.close_switch(47)
    press = board.press("the dark player's turn button", mark)
    assert (press.button, press.player) == ("end-turn", "dark")


# -- 8. a controller reset ------------------------------------------------------------------------

def test_reset_is_reported_and_the_controller_set_again(sim, links):
    link = links(sim.link)
    link.connected()
    pixels = palette(40)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    mark, strip_mark = link.reports.mark(), sim.mark()
    sim.command("reset\nclose 9")  # a switch closed during the reset: only a snapshot has it
    reset = link.reports.wait(kind(RESET), "RESET", mark)
    assert reset.detail == "reset pin" and reset.message.causes == ["reset pin"]
    after = link.reports.since().index(reset) + 1
    # the firmware starts dark; the link sets the pixels again by itself
    t_dark, _ = wait_frame(sim, lambda f: f in (DARK, HOST_GONE), strip_mark, "the restarted firmware's strip")
    wait_frame(sim, lambda f: f == lit(pixels), strip_mark, "the pixels set again", after=t_dark)
    snap = link.reports.wait(message(proto.Snapshot), "a SNAPSHOT after the reset", after).message
    assert 9 in snap.closed
    assert snap.uptime_ms < 2000  # counted from the restart
    assert link.link.stats.resets == 1
    assert not [r for r in link.reports.since(mark) if r.kind in (LOST, CONNECTED)]


# -- 9. another API level --------------------------------------------------------------------------

def test_api_mismatch_fails_with_instructions(sims, elf_api2, links):
    sim = sims(elf_api2)
    link = links(sim.link)
    failed = link.reports.wait(kind(FAILED), "FAILED")
    port = str(sim.link)
    assert "API level 2" in failed.detail and f"make -C firmware flash PORT={port}" in failed.detail, failed.detail
    link.reports.join()  # the link ends after FAILED
    assert link.link.next_report(0) is END
    board = SerialBoard(port, rules_for("pylos"))
    with pytest.raises(SourceFailed, match="API level 2") as info:
        list(board.items())
    assert f"make -C firmware flash PORT={port}" in str(info.value)


# -- 10. every command is acknowledged -------------------------------------------------------------

class TapPort:
    """A serial port that decodes what the link writes and what it reads."""

    def __init__(self, port: Any) -> None:
        self.port = port
        self.written, self.read_frames = proto.Decoder(), proto.Decoder()
        self.commands: list[proto.Frame] = []
        self.acks: list[proto.Ack] = []

    def write(self, data: bytes) -> int:
        self.commands.extend(self.written.feed(data))
        return self.port.write(data)

    def read(self, size: int = 1) -> bytes:
        data = self.port.read(size)
        self.acks.extend(proto.decode(f) for f in self.read_frames.feed(data) if f.type == proto.ACK)
        return data

    @property
    def in_waiting(self) -> int:
        return self.port.in_waiting

    def close(self) -> None:
        self.port.close()


def test_every_command_of_the_link_is_acknowledged(sim, links):
    taps: list[TapPort] = []

    def open_port(name: str, baud: int) -> TapPort:
        taps.append(TapPort(serial.Serial(name, baud, timeout=0.01, write_timeout=0.5)))
        return taps[-1]

    link = links(sim.link, open_port=open_port)
    link.connected()
    for k in range(4):
        pixels = palette(50 + k)
        pixels[3] = px(1, 2, 3, IN_TURN)
        link.link.show(pixels, [1, 0, 1][:k])
        sim.wait_strip(lambda f: f[4:] == lit(pixels)[4:], TIMEOUT)
    link.heartbeat(link.reports.mark())
    link.heartbeat(link.reports.mark())  # a second of heartbeats
    tap = taps[-1]
    commands = list(tap.commands)
    types = {f.type for f in commands}
    assert {proto.CMD_HELLO, proto.CMD_HEARTBEAT, proto.SET_INDICATORS, proto.SET_STRIP, proto.GET_SNAPSHOT,
            proto.SET_SLOTS} <= types, types

    def unacknowledged():
        acked = {(a.seq, a.type): a.status for a in list(tap.acks)}
        return [f for f in commands if acked.get((f.seq, f.type)) != 0]
    wait_for(lambda: not unacknowledged(), "an ACK of every command")
    assert link.link.stats.refused == 0


def test_bad_commands_get_the_right_status(sim, raw):
    raw.wait(proto.HEARTBEAT, "a HEARTBEAT")
    good = px(10, 20, 30)
    seq = raw.send(proto.SET_STRIP, bytes((0,)) + good)
    assert raw.ack(seq, proto.SET_STRIP).status == 0
    sim.wait_strip(lambda f: f[3] == "0a141e", TIMEOUT)
    cases = [
        (proto.SET_STRIP, bytes((15,)) + px(1, 1, 1) * 2, 3),      # 15 + 2 pixels passes 16
        (proto.SET_STRIP, bytes((16,)) + px(1, 1, 1), 3),          # no hollow 16
        (proto.SET_STRIP, bytes((0,)) + px(1, 1, 1, 4), 3),        # no mode 4
        (proto.SET_STRIP, bytes((0,)) + px(1, 1, 1)[:3], 1),       # not whole pixels
        (proto.SET_INDICATORS, px(1, 1, 1) * 2, 1),
        (proto.SET_SLOTS, bytes((17,)) + bytes(34), 3),            # 17 slots
        (proto.SET_SLOTS, bytes((2, 1, 0)), 1),                    # 2 slots, 1 mask
        (proto.CMD_HEARTBEAT, b"\x00", 1),
        (proto.GET_SNAPSHOT, b"\x00\x00", 1),
        (proto.CMD_HELLO, b"", 1),
        (0x90, b"", 2),
        (0x04, bytes(9), 2),                                       # a controller message echoed
        (proto.CMD_HEARTBEAT, b"", 0),
    ]
    for type_, payload, status in cases:
        mark = raw.received.mark()
        seq = raw.send(type_, payload)
        assert raw.ack(seq, type_, mark).status == status, (hex(type_), payload.hex())
    # nothing refused changed the strip
    mark = sim.mark()
    sim.command("strip")
    line = sim.wait_line("strip", TIMEOUT, since=mark)
    assert line.split()[3:5] == [OFF, OFF] and line.split()[6] == "0a141e", line
    # GET_SNAPSHOT: ACK, then the SNAPSHOT
    mark = raw.received.mark()
    seq = raw.send(proto.GET_SNAPSHOT)
    raw.wait(proto.SNAPSHOT, "the SNAPSHOT", mark)
    frames = [f for _, f in raw.received.since(mark)]
    ack = next(i for i, f in enumerate(frames)
               if f.type == proto.ACK and f.payload[:2] == bytes((seq, proto.GET_SNAPSHOT)))
    assert frames[ack + 1].type == proto.SNAPSHOT, frames  # queued right behind its ACK
