"""Whole games through vision: the simulator plays, every frame is rendered from a camera on
a stand (host/sim_vision.py), read by vision and followed over time (vision/track.py), and
the referee records the game from what vision read. The record must equal what was played.

Only calm games so far: hands over the board while moves are made, no injected illegal moves
or takebacks. With those, and for Pylos (light wooden balls on a light plate), the referee
still loses track of games (docs/vision.md, "Simulated games through vision")."""

from __future__ import annotations

import pytest

from sim_referee import referee_game


@pytest.mark.parametrize("seed", [3, 4])
def test_calm_sparks_games_through_vision_are_recorded_exactly(seed):
    outcome = referee_game("sparks", seed, noisy=False, camera=(800, 600))
    assert outcome.exact == 1, outcome.failures
    assert outcome.false_flags == 0
    assert outcome.turns >= 10
