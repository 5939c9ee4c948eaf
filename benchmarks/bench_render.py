"""The synthetic renderer on a game rendered frame by frame (host/sim_vision.py): the time
to render each distinct board (and hand) of a simulated game from one camera, sharing one
:class:`vision.render.Stage`, and the time of a whole frame as the tests and
``arbiter demo --camera`` pay for it (rendered once per distinct board, then sensor noise and
JPEG on every frame).

Rendering is most of the time the end-to-end vision tests take (tests/test_vision_referee.py,
tests/test_demo.py), so this is the figure to watch when the renderer changes. Pylos seed 5
at 1280x720 under glare, and Sparklies 9x9 seed 2 at 800x600 lit as docs/camera-setup.md
advises, 20 turns each with hands over the board for 20 % of the boards. ``--quick`` stops
each game once 6 boards were rendered.
"""

from __future__ import annotations

import random
import statistics
import time

import cv2

from host.games import rules_for
from host.sim import SimConfig, simulate_game
from host.sim_vision import Cameras

GAMES = (("pylos", 5, (1280, 720), True), ("sparklies", 2, (800, 600), False))


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    cv2.setNumThreads(1)
    rows = []
    for game, seed, resolution, glare in GAMES:
        rules = rules_for(game, **({"width": 9, "height": 9} if game == "sparklies" else {}))
        sim = simulate_game(rules, random.Random(seed), SimConfig(seed=seed, game=game, max_turns=20, hands=0.2))
        seen = Cameras(random.Random(seed), resolution, glare=glare).for_game(game)
        seen.image(sim.frames[0].board)  # the stage, made once per camera: not counted
        renders, frames = [], []
        for truth in sim.frames:
            if quick and len(renders) == 6:
                break
            before = seen.rendered
            t0 = time.perf_counter()
            seen.image(truth.board, truth.hand)
            ms = (time.perf_counter() - t0) * 1000
            frames.append(ms)
            if seen.rendered > before:
                renders.append(ms)
        size = f"{resolution[0]}x{resolution[1]}"
        rows.append((f"render, {game} game at {size}, a distinct board (median / p90, {len(renders)} boards)",
                     f"{statistics.median(renders):.0f} / {statistics.quantiles(renders, n=10)[-1]:.0f} ms", "-"))
        rows.append((f"render, {game} game at {size}, mean per frame with noise and JPEG ({len(frames)} frames)",
                     f"{statistics.fmean(frames):.0f} ms", "-"))
    return rows
