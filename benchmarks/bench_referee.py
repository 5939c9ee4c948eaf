"""The referee on simulated observation streams (hands, flicker, illegal moves, takebacks).

- Throughput and time per observation (target: under 5 ms per observation for the pyramid
  games), on the Referee alone.
- Latency from the observation that makes a change stable to the MQTT event leaving the
  daemon: Referee.observe, the recorder's transaction (SQLite, WAL, synchronous FULL) and
  the MQTT link handing the event to the broker (the embedded one, on loopback).
"""

from __future__ import annotations

import random
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

from host.games import rules_for
from host.referee import Referee
from host.sim import SimConfig, simulate_game

NOISY = dict(hands=0.2, flicker=0.05, illegal=0.1, takeback=0.1)


def streams(game: str, count: int):
    options = {"width": 9, "height": 9} if game == "sparklies" else {}
    rules = rules_for(game, **options)
    for seed in range(count):
        yield rules, simulate_game(rules, random.Random(seed), SimConfig(seed=seed, game=game, **NOISY))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def referee_alone(game: str, count: int) -> tuple[str, str, str]:
    times: list[float] = []
    for rules, sim in streams(game, count):
        referee = Referee(rules, start=rules.parse_position(sim.truth.start))
        referee.begin(0.0)
        for obs in sim.observations:
            t0 = time.perf_counter()
            referee.observe(obs)
            times.append(time.perf_counter() - t0)
    total = sum(times)
    return (f"referee {game}: time per observation mean / p99 / max",
            f"{1e3 * statistics.fmean(times):.3f} / {1e3 * pct(times, 0.99):.2f} / {1e3 * max(times):.1f} ms "
            f"({len(times) / total:,.0f} observations/s, {len(times):,} observations)",
            "< 5 ms" if game != "sparklies" else "")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stable_to_mqtt(game: str, count: int) -> tuple[str, str, str]:
    from host.mqtt import MqttLink
    from host.recorder import Recorder
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        recorder = Recorder(Path(tmp) / "bench.sqlite3", board_id="bench")
        link = MqttLink(board_id="bench", outbox=recorder, embedded_port=free_port())
        link.start()
        link.wait_connected(10)
        try:
            for rules, sim in streams(game, count):
                referee = Referee(rules, start=rules.parse_position(sim.truth.start))
                game_id = recorder.start_game(rules, sim.truth.start)
                for event in referee.begin(0.0):
                    recorder.record(game_id, event)
                for obs in sim.observations:
                    t0 = time.perf_counter()
                    events = referee.observe(obs)
                    for event in events:
                        seq = recorder.record(game_id, event)
                        link.publish_event(seq, {**event.to_json(), "seq": seq})
                    if events:
                        latencies.append(time.perf_counter() - t0)
                    link.poll()
        finally:
            link.stop()
            recorder.close()
    return (f"{game}: stable observation -> MQTT event out, median / p99",
            f"{1e3 * statistics.median(latencies):.2f} / {1e3 * pct(latencies, 0.99):.2f} ms "
            f"({len(latencies)} decisions, embedded broker)", "")


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    rows = []
    for game in ("pylos", "sparks", "sparklies"):
        print(f"  referee {game} ...", file=sys.stderr, flush=True)
        rows.append(referee_alone(game, 5 if quick else 100))
    for game in ("pylos", "sparks"):
        print(f"  latency {game} ...", file=sys.stderr, flush=True)
        rows.append(stable_to_mqtt(game, 2 if quick else 20))
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(" | ".join(row))
