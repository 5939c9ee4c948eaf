"""Sparklies benchmark: turn inference time and random playouts per second.

Cases are seeded: a random start, random turns until a random share (25-75 %) of the board is
controlled (mid-game), then one random legal turn (``random_turn``, at most 40 pings before
draining). The inference time of ``infer(before, after)`` is measured per case. Besides the
natural mix of turns (mostly short chains), a second set keeps only turns of 10 pings or more
(drawn with random_turn until one is that long): the hard tail, reported separately, and
(full run only) a set of 20x20 turns of 20 pings or more with a 1 s budget.

Run standalone: ``python3 benchmarks/bench_sparklies_infer.py [--quick]``.
"""

from __future__ import annotations

import math
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from host.games.sparklies import SparkliesPosition, SparkliesRules, SparkliesTurn  # noqa: E402

TARGET_MS = {9: 50.0, 20: 500.0}
BUDGET_MS = {9: 1000.0, 20: 5000.0}


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _mid_game(rules: SparkliesRules, rng: random.Random) -> SparkliesPosition:
    p = rules.start(rng)
    goal = rng.uniform(0.25, 0.75) * rules.board.live.bit_count()
    while (p.black | p.white).bit_count() < goal:
        p = rules.play(p, rules.random_turn(p, rng))
    return p


def cases(rules: SparkliesRules, count: int, seed: int, min_pings: int = 1
          ) -> list[tuple[SparkliesPosition, SparkliesTurn]]:
    """``count`` seeded (mid-game position, random turn) pairs with at least ``min_pings``."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        p = _mid_game(rules, rng)
        for _ in range(3000):
            t = rules.random_turn(p, rng)
            if len(t.pings) >= min_pings:
                out.append((p, t))
                break
    return out


def _percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def measure(rules: SparkliesRules, sample: list[tuple[SparkliesPosition, SparkliesTurn]],
            budget_ms: float) -> tuple[list[float], dict[str, int], float]:
    """Inference times in ms (sorted), the statuses, and the mean ping count."""
    times = []
    statuses: dict[str, int] = {}
    for k, (p, t) in enumerate(sample):
        after = rules.play(p, t)
        start = time.perf_counter()
        inf = rules.infer(p, after, budget_ms=budget_ms)
        times.append((time.perf_counter() - start) * 1000.0)
        statuses[inf.status] = statuses.get(inf.status, 0) + 1
        if inf.status == "found" and rules.play(p, inf.turn) != after:
            raise AssertionError("inference returned a turn with another result")
        if k % 50 == 49:
            _progress(f"  {k + 1}/{len(sample)} cases")
    return sorted(times), statuses, sum(len(t.pings) for _, t in sample) / len(sample)


def _infer_row(label: str, size: int, times: list[float], statuses: dict[str, int],
               pings: float) -> tuple[str, str, str]:
    median, p99, worst = _percentile(times, 0.5), _percentile(times, 0.99), times[-1]
    missed = len(times) - statuses.get("found", 0)
    figure = (f"{median:.2f} ms / {p99:.1f} ms (max {worst:.0f} ms; {len(times)} cases, "
              f"{pings:.1f} pings avg" + (f", {missed} not found in budget" if missed else "") + ")")
    return (f"sparklies infer {label} median / p99", figure, f"p99 < {TARGET_MS[size]:g} ms")


def playouts_per_second(rules: SparkliesRules, seconds: float, seed: int = 1) -> tuple[float, float]:
    """Whole random games (start to end) per second and the mean turns per game."""
    rng = random.Random(seed)
    games = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        p = rules.start(rng)
        while rules.outcome(p) is None:
            p = rules.play(p, rules.random_turn(p, rng))
            turns += 1
        games += 1
    return games / (time.perf_counter() - start), turns / games


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    """Benchmark rows (measure, measured figure, target)."""
    rows = []
    natural = {9: 30 if quick else 300, 20: 10 if quick else 100}
    long_count = {9: 10 if quick else 100, 20: 5 if quick else 40}
    for variant in ("subtle", "speed"):
        for size in (9, 20):
            rules = SparkliesRules(variant, width=size, height=size)
            label = f"{size}x{size}" + ("" if variant == "subtle" else " speed")
            _progress(f"sparklies {label}: random turns from mid-game positions")
            sample = cases(rules, natural[size], seed=size * 1000 + len(variant))
            rows.append(_infer_row(label, size, *measure(rules, sample, BUDGET_MS[size])))
            _progress(f"sparklies {label}: turns of 10+ pings")
            sample = cases(rules, long_count[size], seed=size * 2000 + len(variant), min_pings=10)
            rows.append(_infer_row(label + " (10+ pings)", size,
                                   *measure(rules, sample, BUDGET_MS[size])))
    if not quick:
        rules = SparkliesRules(width=20, height=20)
        _progress("sparklies 20x20: turns of 20+ pings (the hardest tail)")
        sample = cases(rules, 30, seed=20_020, min_pings=20)
        rows.append(_infer_row("20x20 (20+ pings)", 20, *measure(rules, sample, 1000.0)))
    for variant in ("subtle", "speed"):
        _progress(f"sparklies 9x9 {variant}: random playouts")
        rate, turns = playouts_per_second(SparkliesRules(variant), 0.5 if quick else 3.0)
        rows.append((f"sparklies random playouts 9x9 {variant}", f"{rate:.0f} games/s "
                     f"({turns:.0f} turns/game)", "informative"))
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv[1:]):
        print(" | ".join(row))
