"""Pyramid rules engines: legal-turn generation and random playouts.

Target (the foundation issue): a full Pylos or Sparks random playout in under 2 ms.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from host.games import rules_for


def playout(rules, rng: random.Random) -> int:
    position = rules.start()
    turns = 0
    while rules.outcome(position) is None:
        position = rules.play(position, rules.random_turn(position, rng))
        turns += 1
    return turns


def sample_positions(rules, rng: random.Random, count: int) -> list:
    """Positions met in random games, for timing legal-turn generation."""
    out = []
    while len(out) < count:
        position = rules.start()
        while rules.outcome(position) is None and len(out) < count:
            out.append(position)
            position = rules.play(position, rules.random_turn(position, rng))
    return out


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    rows = []
    games = 50 if quick else 2000
    for game, variant in (("pylos", "standard"), ("pylos", "mature"), ("pylos", "children"), ("sparks", "standard")):
        rules = rules_for(game, variant)
        name = game if game == "sparks" else f"{game} {variant}"
        rng = random.Random(1)
        positions = sample_positions(rules, rng, 200 if quick else 5000)
        gen_time = float("inf")
        for _ in range(3):  # best of three: the first pass also warms caches up
            t0 = time.perf_counter()
            generated = sum(1 for p in positions for _ in rules.legal_turns(p))
            gen_time = min(gen_time, time.perf_counter() - t0)
        durations = []
        total_turns = 0
        for k in range(games):
            t0 = time.perf_counter()
            total_turns += playout(rules, rng)
            durations.append(time.perf_counter() - t0)
            if k % 500 == 499:
                print(f"  {name}: {k + 1}/{games} playouts", file=sys.stderr, flush=True)
        durations.sort()
        rows.append((f"{name} legal-turn generation",
                     f"{len(positions) / gen_time:,.0f} positions/s ({generated / gen_time:,.0f} turns/s)", ""))
        rows.append((f"{name} random playout mean / p99",
                     f"{1000 * statistics.fmean(durations):.2f} ms / {1000 * durations[int(0.99 * (len(durations) - 1))]:.2f} ms"
                     f" ({len(durations) / sum(durations):,.0f} games/s, {total_turns / len(durations):.1f} turns)",
                     "mean < 2 ms"))
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(" | ".join(row))
