"""Drive the board controller simulator (firmware/sim/build/arbiter-sim) from tests.

The harness runs an AVR ELF in simavr paced to real time, puts the controller's UART on a
pseudo-terminal (reachable through a symlink, the "link"), and takes switch commands on
stdin while it reports strip frames, the status LED and WS2812B timing errors on stdout.
``firmware/sim/README.md`` describes the line protocol; this module wraps it:

    with SimController(elf, tmp_path / "tty") as sim:
        port = serial.Serial(str(sim.link), 115200, timeout=1)
        sim.close_switch(48)
        sim.wait_strip(lambda px: px[0] == "ff0000", timeout=5)

Test modules import the fixtures they use: ``from controller_sim import sim_build``.
"""

from __future__ import annotations

import fcntl
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
SIM_DIR = ROOT / "firmware" / "sim"
HARNESS = SIM_DIR / "build" / "arbiter-sim"
SELFTEST_ELF = SIM_DIR / "build" / "selftest.elf"
FIRMWARE_DIR = ROOT / "firmware"
FIRMWARE_ELF = FIRMWARE_DIR / "build" / "arbiter.elf"

READY_TIMEOUT = 10.0
SWITCHES = 49

Pixels = tuple[str, ...]


class SimError(RuntimeError):
    """The harness could not be built, did not start, or did not answer in time."""


def _make(directory: Path) -> None:
    """Run make in ``directory``, one process at a time: parallel test workers share the
    build directories, and two makes writing one ELF at once would corrupt it."""
    with open(directory / ".make.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run(["make", "-C", str(directory)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SimError(f"`make -C {directory}` failed with exit status {proc.returncode}:\n"
                       f"{proc.stdout}{proc.stderr}")


_build_lock = threading.Lock()
_built: tuple[Path, Path] | None = None


def build_sim() -> tuple[Path, Path]:
    """Build the harness and the selftest program (once per process); return their paths."""
    global _built
    with _build_lock:
        if _built is None:
            _make(SIM_DIR)
            _built = (HARNESS, SELFTEST_ELF)
        return _built


def firmware_elf() -> Path:
    """Build the real firmware with its own Makefile and return its ELF."""
    _make(FIRMWARE_DIR)
    if not FIRMWARE_ELF.exists():
        raise SimError(f"`make -C {FIRMWARE_DIR}` succeeded but did not produce {FIRMWARE_ELF}")
    return FIRMWARE_ELF


def _fields(line: str) -> dict[str, str]:
    return dict(word.split("=", 1) for word in line.split()[1:] if "=" in word)


class SimController:
    """One harness process running ``elf``, its UART reachable at ``link``."""

    def __init__(self, elf: Path, link: Path, *, harness: Path | None = None,
                 ready_timeout: float = READY_TIMEOUT) -> None:
        self.elf = Path(elf)
        self.link = Path(link)
        self.harness = Path(harness) if harness else HARNESS
        self.ready_timeout = ready_timeout
        self.pty: str | None = None
        self.proc: subprocess.Popen[str] | None = None
        self._lines: list[str] = []
        self._stderr: list[str] = []
        self._strip: Pixels | None = None
        self._cond = threading.Condition()
        self._threads: list[threading.Thread] = []

    # -- process -------------------------------------------------------------------------

    def start(self) -> SimController:
        self.proc = subprocess.Popen(
            [str(self.harness), str(self.elf), "--link", str(self.link)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1)
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self._threads:
            thread.start()
        try:
            ready = self.wait_line("ready", self.ready_timeout)
        except SimError as error:
            self.kill()
            raise SimError(f"{error}; stderr:\n{self.stderr()}") from None
        self.pty = _fields(ready)["pty"]
        return self

    def _read_stdout(self) -> None:
        assert self.proc and self.proc.stdout
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            with self._cond:
                self._lines.append(line)
                if line.startswith("strip "):
                    self._strip = tuple(word for word in line.split()[1:] if "=" not in word)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        for line in self.proc.stderr:
            with self._cond:
                self._stderr.append(line)

    def stderr(self) -> str:
        with self._cond:
            return "".join(self._stderr)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL, like pulling the USB cable: the link is left behind, pointing nowhere."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self._reap()

    def stop(self, timeout: float = 5.0) -> int | None:
        """Ask the harness to quit; kill it if it does not. Returns its exit status."""
        if self.proc and self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        self._reap()
        return self.proc.returncode if self.proc else None

    def _reap(self) -> None:
        if not self.proc:
            return
        self.proc.wait()
        for thread in self._threads:
            thread.join(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> SimController:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- commands ------------------------------------------------------------------------

    def _send(self, command: str) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def command(self, command: str) -> None:
        """Send a raw command line (see the README for the commands)."""
        self._send(command)

    def close_switch(self, n: int) -> None:
        self._send(f"close {n}")

    def open_switch(self, n: int) -> None:
        self._send(f"open {n}")

    def bounce(self, n: int, closed: bool = True) -> None:
        """Switch n chatters for 5 ms of simulated time, then ends closed (or open)."""
        self._send(f"{'bounce' if closed else 'bounce-open'} {n}")

    def set_all(self, closed: set[int]) -> None:
        """Set all 49 switches at once: those in ``closed`` closed, the others open."""
        if any(not 0 <= n < SWITCHES for n in closed):
            raise ValueError(f"switch numbers are 0-{SWITCHES - 1}: {sorted(closed)}")
        self._send(f"set {sum(1 << n for n in closed):013x}")

    def reset(self, timeout: float = 5.0) -> float:
        """External reset (the reset pin); returns its simulated time."""
        mark = self.mark()
        self._send("reset")
        return float(_fields(self.wait_line("reset", timeout, since=mark))["t"])

    def time(self, timeout: float = 5.0) -> float:
        """The simulated time in seconds."""
        mark = self.mark()
        self._send("time")
        return float(_fields(self.wait_line("time", timeout, since=mark))["t"])

    def wait_sim_time(self, t: float, timeout: float = 10.0) -> float:
        """Wait until the simulated time is at least ``t``; returns it."""
        deadline = time.monotonic() + timeout
        while (now := self.time(timeout)) < t:
            if time.monotonic() > deadline:
                raise SimError(f"simulated time still {now:.6f} s, waited for {t:.6f} s")
            time.sleep(min(0.05, t - now))
        return now

    # -- output --------------------------------------------------------------------------

    def lines(self) -> list[str]:
        with self._cond:
            return list(self._lines)

    def mark(self) -> int:
        """An index into the output lines: pass it as ``since`` to wait for newer lines."""
        with self._cond:
            return len(self._lines)

    def wait_line(self, prefix: str, timeout: float, since: int = 0) -> str:
        """The first output line at index ``since`` or later whose first word is ``prefix``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            index = since
            while True:
                for index in range(index, len(self._lines)):
                    if self._lines[index].split(" ", 1)[0] == prefix:
                        return self._lines[index]
                index = len(self._lines)
                left = deadline - time.monotonic()
                exited = self.proc is None or self.proc.poll() is not None
                if left <= 0 or (exited and not self._threads[0].is_alive()):
                    state = "exited" if exited else "running"
                    raise SimError(f"no '{prefix}' line from the harness ({state}) within "
                                   f"{timeout} s; last lines: {self._lines[-5:]}")
                self._cond.wait(min(left, 0.2))

    def strip(self) -> Pixels | None:
        """The pixels ('rrggbb') of the latest frame the harness reported, None before any."""
        with self._cond:
            return self._strip

    def wait_strip(self, predicate: Callable[[Pixels], bool], timeout: float) -> Pixels:
        """Wait until the latest reported frame satisfies ``predicate``; return it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._strip is None or not predicate(self._strip):
                left = deadline - time.monotonic()
                if left <= 0 or not self.running():
                    raise SimError(f"no matching strip frame within {timeout} s; "
                                   f"latest: {self._strip}")
                self._cond.wait(min(left, 0.2))
            return self._strip

    def errors(self) -> list[str]:
        """The ws2812-error lines so far."""
        with self._cond:
            return [line for line in self._lines if line.startswith("ws2812-error ")]


# -- pytest fixtures (import them into the test module that uses them) --------------------

@pytest.fixture(scope="session")
def sim_build() -> tuple[Path, Path]:
    """(harness, selftest ELF), built once per test session."""
    try:
        return build_sim()
    except SimError as error:
        pytest.fail(f"cannot build the simulator harness: {error}", pytrace=False)


@pytest.fixture
def sim_link(tmp_path: Path) -> Path:
    """Where the harness links its pseudo-terminal."""
    return tmp_path / "controller-tty"


@pytest.fixture
def selftest_sim(sim_build: tuple[Path, Path], sim_link: Path) -> Iterator[SimController]:
    """A harness running the selftest program, stopped after the test."""
    harness, elf = sim_build
    with SimController(elf, sim_link, harness=harness) as sim:
        yield sim
