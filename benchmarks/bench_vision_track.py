"""Vision followed over time (vision/track.py) on simulated games seen by a camera on a stand
(host/sim_vision.py, 800x600): positions left unknown on frames with no hand, single frames
against tracked, wrong readings against the physical board on every frame, and the time the
a tracked frame takes (a still board's frames keep the reading of the last one read in
full, vision/frame_still.py, as the daemon's do).

These are the figures of docs/vision.md ("Simulated games through vision"): Pylos seeds 5-7,
Sparks seeds 3-5 and Sparklies 9x9 seeds 2-3, 20 turns each, hands resting over the board for
20 % of the boards. ``--quick`` plays one game of 4 turns per game.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter

import cv2

from host.games import rules_for
from host.sim import SimConfig, simulate_game
from host.sim_vision import Cameras
from vision.recognize import Recognizer
from vision.score import score
from vision.track import Tracker

GAMES = {"pylos": (5, 6, 7), "sparks": (3, 4, 5), "sparklies": (2, 3)}


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    cv2.setNumThreads(1)
    rows = []
    for game, seeds in GAMES.items():
        c: Counter = Counter()
        tracked_ms: list[float] = []
        single_ms: list[float] = []
        for seed in seeds[:1] if quick else seeds:
            rules = rules_for(game, **({"width": 9, "height": 9} if game == "sparklies" else {}))
            sim = simulate_game(rules, random.Random(seed),
                                SimConfig(seed=seed, game=game, max_turns=4 if quick else 20, hands=0.2))
            seen = Cameras(random.Random(seed), (800, 600)).for_game(game)
            start = sim.view(sim.frames[0].board)
            tracker = Tracker(seen.recognizers[game], known={n: v for n, v in start.items() if "?" not in v})
            single = Recognizer(seen.board, game)  # its own: a pose passed in ends the tracker's hold
            for obs, truth in zip(sim.observations, sim.frames):
                image = seen.image(truth.board, truth.hand)
                t0 = time.perf_counter()
                tracked = tracker.read(image, obs.t)
                total = time.perf_counter() - t0
                score(dict(tracked.observation.cells), dict(truth.board), c, "all_")
                if truth.hand or not tracked.ok:
                    continue
                t0 = time.perf_counter()
                alone = single.read(image, obs.t, tracked.pose)
                single_ms.append((time.perf_counter() - t0) * 1000)
                tracked_ms.append(total * 1000)
                c["frames"] += 1
                score(dict(tracked.observation.cells), dict(truth.board), c, "tracked_")
                score(dict(alone.observation.cells), dict(truth.board), c, "single_")
            print(f"  {game} seed {seed}: {len(sim.observations)} frames", file=sys.stderr, flush=True)
        chars = max(c["tracked_chars"], 1)
        rows.append((f"{game} tracked, {c['frames']} clear frames: unknown single / tracked",
                     f"{c['single_unknown'] / chars:.1%} / {c['tracked_unknown'] / chars:.2%}", ""))
        rows.append((f"{game} tracked: wrong readings, every frame", f"{c['all_wrong']} of {c['all_chars']}", "0"))
        rows.append((f"{game} per clear 800x600 frame: tracked (pose found) / single (pose known), median",
                     f"{statistics.median(tracked_ms):.1f} / {statistics.median(single_ms):.1f} ms", ""))
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(" | ".join(row))
