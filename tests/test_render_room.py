"""The room lights that the random sets' cast-drift and shadow looks put over rendered frames."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from vision.render_room import RoomLight
from vision.render_surface import to_linear

GREY = np.full((60, 80, 3), 150, dtype=np.uint8)


def _linear(image: np.ndarray) -> np.ndarray:
    return to_linear(image[..., ::-1].astype(np.float32))  # RGB


def test_a_drifting_white_balance_parts_red_and_blue_from_end_to_end():
    out = _linear(RoomLight(angle=0.0, drift=0.25).apply(GREY))  # red up towards the right
    left, middle, right = out[:, 0], out[:, 40], out[:, -1]
    grey = _linear(GREY)[0, 0]
    assert np.allclose(middle, grey, rtol=0.02)
    assert right[:, 0].mean() > grey[0] * 1.15 and right[:, 2].mean() < grey[2] * 0.85
    assert left[:, 0].mean() < grey[0] * 0.85 and left[:, 2].mean() > grey[2] * 1.15
    assert np.allclose(out[..., 1], grey[1], rtol=0.02)  # green stays


def test_a_soft_shadow_darkens_one_side_of_its_edge_only():
    light = RoomLight(angle=math.pi / 2, shadow=0.4, offset=0.0, softness=4.0)  # below the middle row
    out = _linear(light.apply(GREY))
    grey = _linear(GREY)[0, 0]
    assert np.allclose(out[:10], grey, rtol=0.02)
    assert np.allclose(out[-10:], 0.4 * grey, rtol=0.03)
    rows = out[:, 40, 1]
    assert np.all(np.diff(rows) <= 1e-6)  # from lit to shaded without a step back


def test_random_room_lights_stay_in_their_ranges_and_neutral_changes_nothing():
    rng = random.Random(3)
    for _ in range(50):
        drift, shade = RoomLight.random(rng, "cast-drift"), RoomLight.random(rng, "shadow")
        assert 0.15 <= drift.drift <= 0.3 and drift.shadow == 1.0
        assert 0.35 <= shade.shadow <= 0.6 and 10.0 <= shade.softness <= 60.0 and not shade.drift
    assert RoomLight().apply(GREY) is GREY
    with pytest.raises(ValueError, match="no room light 'fog'"):
        RoomLight.random(rng, "fog")
