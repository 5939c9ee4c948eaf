"""The board controller's latencies, through the real firmware in the simulator (firmware/sim).

- Sensor to host: a switch toggled on the harness's stdin -> the firmware's CHANGE report at
  the host's ControllerLink (the report's time stamp, taken on the link's I/O thread).
- Sensor to observation: the same toggle -> the Observation leaving SerialBoard.items() (what
  the daemon's source thread reads).
- Command to strip: ControllerLink.show() -> the harness reporting the latched strip frame;
  one hollow changed (one SET_STRIP) and all 19 pixels changed (SET_INDICATORS and two
  SET_STRIPs, each sent once the one before is acknowledged).

The figures include the harness's own latency (a command read from its stdin between two
0.5 ms batches, the strip line written to its stdout and read by a thread here) and, for the
switches, the firmware's debounce, which is 14-21 ms by design (3 equal readings 7 ms apart).
Toggles are spaced by a random 0-10 ms so that they fall anywhere in the 7 ms scan. The
simulator runs at real time: about 10 s in all (``--quick``: 2 s).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from controller_sim import SimController, build_sim, firmware_elf  # noqa: E402

from host import controller_protocol as proto  # noqa: E402
from host.controller_link import ControllerLink  # noqa: E402
from host.games import rules_for  # noqa: E402
from host.observation import Observation  # noqa: E402
from host.indicators import BASE as HOLLOW_NAMES  # noqa: E402
from host.serial_source import SerialBoard  # noqa: E402

TIMEOUT = 10.0


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def figures(ms: list[float], note: str = "") -> str:
    return (f"{statistics.median(ms):.1f} / {pct(ms, 0.99):.1f} / {max(ms):.1f} ms "
            f"({len(ms)} samples{', ' + note if note else ''})")


class Observations:
    """SerialBoard.items() on a thread: each observation with the wall time it came out."""

    def __init__(self, board: SerialBoard) -> None:
        self.items: list[tuple[float, Observation]] = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, args=(board,), daemon=True)
        self.thread.start()

    def _run(self, board: SerialBoard) -> None:
        for item in board.items():
            now = time.time()
            if isinstance(item, Observation):
                with self.cond:
                    self.items.append((now, item))
                    self.cond.notify_all()

    def wait(self, cells: dict[str, str], since: int) -> tuple[float, Observation, int]:
        deadline = time.monotonic() + TIMEOUT
        with self.cond:
            while True:
                for i in range(since, len(self.items)):
                    if dict(self.items[i][1].cells) == cells:
                        return self.items[i][0], self.items[i][1], i + 1
                since = len(self.items)
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no observation {cells} within {TIMEOUT} s")
                self.cond.wait(0.1)


def switches(sim: SimController, board: SerialBoard, toggles: int,
             rng: random.Random) -> tuple[list[float], list[float]]:
    obs = Observations(board)
    closed: set[int] = set()
    _, _, index = obs.wait({n: "." for n in HOLLOW_NAMES}, 0)
    to_host, to_observation = [], []
    for _ in range(toggles):
        n = rng.randrange(16)
        (closed.discard if n in closed else closed.add)(n)
        cells = {name: "#" if i in closed else "." for i, name in enumerate(HOLLOW_NAMES)}
        time.sleep(rng.uniform(0, 0.010))
        t0 = time.time()
        sim.command(f"{'close' if n in closed else 'open'} {n}")
        out, observation, index = obs.wait(cells, index)
        to_host.append(1e3 * (observation.t - t0))  # the CHANGE report's stamp
        to_observation.append(1e3 * (out - t0))
    return to_host, to_observation


def strip(sim: SimController, link: ControllerLink, shows: int,
          rng: random.Random) -> tuple[list[float], list[float]]:
    one, full = [], []
    pixels = [proto.pixel_bytes(0, 0, 0)] * proto.PIXELS
    for k in range(shows):
        whole = k % 2 == 1
        if whole:
            pixels = [proto.pixel_bytes(*rng.randbytes(3)) for _ in range(proto.PIXELS)]
        else:
            pixels = list(pixels)
            pixels[3 + rng.randrange(16)] = proto.pixel_bytes(*rng.randbytes(3))
        expected = tuple(p[:3].hex() for p in pixels)
        if expected == sim.strip():
            continue
        time.sleep(rng.uniform(0, 0.010))
        t0 = time.time()
        link.show(pixels)
        sim.wait_strip(lambda f: f == expected, TIMEOUT)
        (full if whole else one).append(1e3 * (time.time() - t0))
    return one, full


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    build_sim()
    elf = firmware_elf()
    rng = random.Random(7)
    toggles, shows = (20, 20) if quick else (200, 200)
    with tempfile.TemporaryDirectory() as tmp, SimController(elf, Path(tmp) / "tty") as sim:
        link = ControllerLink(str(sim.link))
        board = SerialBoard(str(sim.link), rules_for("pylos"), link=link)
        print(f"  {toggles} switch toggles ...", file=sys.stderr, flush=True)
        to_host, to_observation = switches(sim, board, toggles, rng)
        print(f"  {shows} strip updates ...", file=sys.stderr, flush=True)
        one, full = strip(sim, link, shows, rng)
        link.close()
        errors = sim.errors()
    if errors:
        raise RuntimeError(f"WS2812B timing errors in the simulator: {errors[:3]}")
    debounce = "debounce 14-21 ms by design, harness stdin adds ~1 ms"
    return [
        ("controller sim: switch -> CHANGE at the host, median / p99 / max", figures(to_host, debounce), ""),
        ("controller sim: switch -> Observation out of SerialBoard, median / p99 / max",
         figures(to_observation, debounce), ""),
        ("controller sim: show() -> strip latched, one hollow, median / p99 / max",
         figures(one, "1 SET_STRIP; harness stdout adds ~1 ms"), ""),
        ("controller sim: show() -> strip latched, 19 pixels, median / p99 / max",
         figures(full, "3 commands, each after the previous ACK"), ""),
    ]


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(" | ".join(row))
