"""The simulated camera rigs (host/sim_vision.py): a lamp placed without glare, as
docs/camera-setup.md advises, is one whose reflection off the board misses the lens."""

from __future__ import annotations

import random

import numpy as np

from host.sim_vision import NO_GLARE_DEG, CameraRig, glare_deg
from vision.geometry import load_board

GRID = load_board("grid-9")


def test_glare_is_the_angle_from_the_lamps_reflection_to_the_lens():
    above = GRID.position("e5").centre
    eye = np.array([above[0], above[1], 500.0])  # straight above a cell, the lamp behind the lens
    assert glare_deg(GRID, eye, (0.0, 0.0, 1.0)) < 0.5
    tilted = (np.sin(np.radians(60)), 0.0, np.cos(np.radians(60)))  # 60 degrees off: half of it at best
    assert 20.0 < glare_deg(GRID, eye, tilted) < 30.0


def test_a_rig_without_glare_is_found_even_for_cameras_that_allow_none():
    """About half the cameras drawn look so straight down that every lamp 50-80 degrees up
    is reflected near the lens somewhere on the board (the first camera of seeds 1, 2 and
    3): another camera is drawn then, instead of drawing lamps for ever."""
    for seed in range(6):
        rig = CameraRig.typical(GRID, random.Random(seed), (800, 600), glare=False)
        assert glare_deg(GRID, rig.camera.centre, rig.lighting.direction) >= NO_GLARE_DEG, seed
    plain = CameraRig.typical(GRID, random.Random(2), (800, 600))
    assert glare_deg(GRID, plain.camera.centre, plain.lighting.direction) < NO_GLARE_DEG  # glare by default
