"""The simulator harness (firmware/sim), exercised with its selftest AVR program.

The selftest (firmware/sim/selftest/selftest.c) prints "closed N N ..." on every change of
the switch matrix, answers '?' with "state N N ...", writes a known strip pattern (pixel i:
R i*13, G 255-i*13, B the number of closed switches) and a mistimed one on 'g' / 'i', and
prints "selftest start mcusr=XX" when it starts. Every wait has a generous deadline; nothing
relies on a sleep being long enough.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
import serial

from controller_sim import SimController, SimError, sim_build, sim_link, selftest_sim  # noqa: F401

TIMEOUT = 15.0


def pattern(nclosed: int) -> tuple[str, ...]:
    return tuple(f"{i * 13:02x}{255 - i * 13:02x}{nclosed:02x}" for i in range(19))


class Port:
    """The host end of the controller's UART, opened through the harness's link."""

    def __init__(self, path: Path) -> None:
        self.serial = serial.Serial(str(path), 115200, timeout=0.1)
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.serial.write(data)
        self.serial.flush()

    def line(self, word: str, timeout: float = TIMEOUT) -> list[str]:
        """Fields of the next line whose first word is ``word`` (other lines are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                fields = raw.decode("ascii", "replace").split()
                if fields and fields[0] == word:
                    return fields[1:]
            if time.monotonic() > deadline:
                raise AssertionError(f"no '{word}' line from the selftest within {timeout} s")
            self.buffer += self.serial.read(256)

    def state(self, timeout: float = TIMEOUT) -> set[int]:
        """Ask the selftest which switches it reads closed now. Asks again after a second
        without an answer: a byte sent while the program starts up is lost, as on a real
        controller."""
        deadline = time.monotonic() + timeout
        while True:
            self.send(b"?")
            try:
                return {int(n) for n in self.line("state", min(1.0, deadline - time.monotonic()))}
            except AssertionError:
                if time.monotonic() > deadline:
                    raise

    def wait_closed(self, expected: set[int], timeout: float = TIMEOUT) -> None:
        """Wait for a "closed" report listing exactly ``expected``."""
        deadline = time.monotonic() + timeout
        seen: list[set[int]] = []
        while (left := deadline - time.monotonic()) > 0:
            try:
                closed = {int(n) for n in self.line("closed", left)}
            except AssertionError:
                break
            if closed == expected:
                return
            seen.append(closed)
        raise AssertionError(f"selftest never reported {sorted(expected)}; saw {seen[-5:]}")

    def close(self) -> None:
        self.serial.close()


@pytest.fixture
def port(selftest_sim: SimController) -> Port:
    host = Port(selftest_sim.link)
    yield host
    host.close()


def test_ready_line_and_link(selftest_sim: SimController) -> None:
    assert selftest_sim.pty and selftest_sim.pty.startswith("/dev/pts/")
    assert os.path.realpath(selftest_sim.link) == selftest_sim.pty


def test_strip_pattern_is_decoded(selftest_sim: SimController) -> None:
    assert selftest_sim.wait_strip(lambda px: px == pattern(0), TIMEOUT) == pattern(0)
    mark = selftest_sim.mark()
    selftest_sim.command("strip")
    line = selftest_sim.wait_line("strip", TIMEOUT, since=mark)
    assert line.split()[2:] == ["n=19", *pattern(0)]
    assert selftest_sim.errors() == []


def test_switches_in_every_row_and_column(selftest_sim: SimController, port: Port) -> None:
    closed: set[int] = set()
    # one switch in every row and every column, then the confirm button
    for n in (0, 8, 16, 24, 32, 40, 48, 6, 42):
        selftest_sim.close_switch(n)
        closed.add(n)
        port.wait_closed(closed)
    selftest_sim.wait_strip(lambda px: px == pattern(len(closed)), TIMEOUT)
    for n in (8, 48, 0):
        selftest_sim.open_switch(n)
        closed.discard(n)
        port.wait_closed(closed)
    assert port.state() == closed
    selftest_sim.wait_strip(lambda px: px == pattern(len(closed)), TIMEOUT)
    assert selftest_sim.errors() == []


def test_set_all_and_no_ghosting(selftest_sim: SimController, port: Port) -> None:
    # three corners of a rectangle: a matrix without diodes would also read the fourth (8)
    selftest_sim.set_all({0, 1, 7})
    port.wait_closed({0, 1, 7})
    selftest_sim.set_all({46, 47, 48, 13, 35})
    port.wait_closed({13, 35, 46, 47, 48})
    selftest_sim.set_all(set())
    port.wait_closed(set())
    with pytest.raises(ValueError):
        selftest_sim.set_all({49})


@pytest.mark.parametrize("closed", [True, False])
def test_bounce_ends_in_the_right_state(selftest_sim: SimController, port: Port, closed: bool) -> None:
    n = 20
    if not closed:
        selftest_sim.close_switch(n)
        port.wait_closed({n})
    start = selftest_sim.time()
    selftest_sim.bounce(n, closed=closed)
    # the chatter itself is seen: the selftest scans far faster than 0.3 ms
    port.wait_closed(set() if closed else {n})
    port.wait_closed({n} if closed else set())
    selftest_sim.wait_sim_time(start + 0.010)
    assert port.state() == ({n} if closed else set())


def test_mistimed_frames_are_reported(selftest_sim: SimController, port: Port) -> None:
    selftest_sim.wait_strip(lambda px: px == pattern(0), TIMEOUT)
    mark = selftest_sim.mark()
    port.send(b"g")
    line = selftest_sim.wait_line("ws2812-error", TIMEOUT, since=mark)
    assert "low gap" in line and "before pixel 10" in line, line
    mark = selftest_sim.mark()
    port.send(b"i")
    line = selftest_sim.wait_line("ws2812-error", TIMEOUT, since=mark)
    assert "incomplete last pixel: 12 bits after 19 full pixels" in line, line
    # a correct frame after them: no new error, and the pixels were decoded all along
    mark = selftest_sim.mark()
    port.send(b"w?")
    port.line("state")
    selftest_sim.close_switch(3)
    selftest_sim.wait_strip(lambda px: px == pattern(1), TIMEOUT)
    assert len(selftest_sim.errors()) == 2
    assert not [ln for ln in selftest_sim.lines()[mark:] if ln.startswith("ws2812-error")]


def test_reset_restarts_the_program(selftest_sim: SimController, port: Port) -> None:
    selftest_sim.close_switch(5)
    port.wait_closed({5})
    selftest_sim.reset()
    assert port.line("selftest") == ["start", "mcusr=02"]   # EXTRF: the reset pin
    # the switch is still closed after the restart, and the program runs again
    port.wait_closed({5})
    assert port.state() == {5}


def test_status_led_toggles(selftest_sim: SimController) -> None:
    mark = selftest_sim.mark()
    values = []
    for _ in range(3):
        line = selftest_sim.wait_line("pin", TIMEOUT, since=mark)
        mark = selftest_sim.lines().index(line, mark) + 1
        assert "name=PB5" in line
        values.append(line.rsplit("=", 1)[1])
    assert values in (["0", "1", "0"], ["1", "0", "1"])


def test_commands_are_checked(selftest_sim: SimController) -> None:
    mark = selftest_sim.mark()
    for bad in ("close 49", "open x", "frobnicate", "set 2000000000000", "time now"):
        selftest_sim.command(bad)
    selftest_sim.time()     # commands are answered in order: all the errors are in now
    errors = [ln for ln in selftest_sim.lines()[mark:] if ln.startswith("error")]
    assert [ln.split(":")[0] for ln in errors] == [f"error line {i}" for i in range(1, 6)]
    assert "0-48" in errors[0] and "unknown command" in errors[2]
    assert selftest_sim.running()


def test_pacing_follows_the_wall_clock(selftest_sim: SimController) -> None:
    sim0, wall0 = selftest_sim.time(), time.monotonic()
    selftest_sim.wait_sim_time(sim0 + 1.0, timeout=TIMEOUT)
    sim1, wall1 = selftest_sim.time(), time.monotonic()
    # never ahead of the wall clock (beyond a batch); behind only on a very loaded machine
    assert sim1 - sim0 <= wall1 - wall0 + 0.01
    assert sim1 - sim0 >= 0.25 * (wall1 - wall0)


def test_kill_and_restart_on_the_same_link(sim_build: tuple[Path, Path], sim_link: Path) -> None:
    harness, elf = sim_build
    first = SimController(elf, sim_link, harness=harness).start()
    host = Port(sim_link)
    try:
        first.close_switch(12)
        host.wait_closed({12})
        first.kill()                    # the USB cable is pulled out
        with pytest.raises((serial.SerialException, OSError, AssertionError)):
            host.send(b"?")
            host.line("state", timeout=2)
    finally:
        host.close()
        first.kill()
    assert sim_link.is_symlink()        # stale now
    with SimController(elf, sim_link, harness=harness) as second:
        assert os.path.realpath(sim_link) == second.pty
        host = Port(sim_link)           # the host opens the port again
        try:
            assert host.state() == set()
            second.close_switch(12)
            host.wait_closed({12})
        finally:
            host.close()
    assert not sim_link.exists()        # quit removes its own link


def test_start_errors(sim_build: tuple[Path, Path], tmp_path: Path) -> None:
    harness, _ = sim_build
    proc = subprocess.run([str(harness), str(tmp_path / "missing.elf")],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 2 and "missing.elf" in proc.stderr and proc.stdout == ""
    with pytest.raises(SimError, match="cannot read firmware"):
        SimController(tmp_path / "missing.elf", tmp_path / "tty", harness=harness).start()


def test_stopped_core_is_reported(sim_build: tuple[Path, Path], tmp_path: Path) -> None:
    harness, _ = sim_build
    source = tmp_path / "halt.c"
    source.write_text("#include <avr/interrupt.h>\n#include <avr/sleep.h>\n"
                      "int main(void) { cli(); sleep_enable(); sleep_cpu(); for (;;); }\n")
    elf = tmp_path / "halt.elf"
    subprocess.run(["avr-gcc", "-mmcu=atmega328p", "-Os", "-o", str(elf), str(source)], check=True)
    # stdin stays open: at end of file the harness would quit before the core stops
    proc = subprocess.Popen([str(harness), str(elf)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.wait(TIMEOUT) == 3
    finally:
        proc.kill()
        stdout = proc.stdout.read()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    assert stdout.splitlines()[-1].startswith("crashed t=") and "state=done" in stdout
