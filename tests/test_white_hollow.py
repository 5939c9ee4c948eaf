"""A white ball in shade read as an empty hollow (Sparks): ``white_in_hollow`` judges a
hollow's tint against the frame's white balls (vision/recognize_fellows.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_balls import Reading, Thresholds
from vision.recognize_fellows import white_in_hollow
from vision.recognize_train import frame_in_look

PYRAMID = load_board("pyramid-4")


def _white(rg: float, bg: float, p_ball: float = 1.0) -> Reading:
    """A white ball as ``Batch.colour`` gives it: level, q90, red/green, blue/green, red, outside."""
    return Reading("W", "seen", p=(1.0 - p_ball, p_ball, 0.0), colour=(0.1, 0.5, rg, bg, 0.21, -0.1), seen=1.0)


#: the plate's tint round the base where it is as dark as 2600284's 1a4 (level -1.60)
SOFT_SHADE = (-0.044, 0.041)


def _read(tint: tuple[float, float], whites: list[Reading], shade: tuple[float, float] | None = SOFT_SHADE) -> Reading:
    readings = {0: Reading(".", "empty", p=(1.0, 0.0, 0.0)), 5: Reading(".", "empty", p=(1.0, 0.0, 0.0))}
    readings |= {10 + k: w for k, w in enumerate(whites)}
    shades = {0: None if shade is None else np.array(shade), 5: np.array(SOFT_SHADE)}
    out = white_in_hollow(readings, {0: np.array(tint), 5: np.array((-0.05, 0.03))}, shades, Thresholds())
    assert out[5].code == "."  # the shaded plate's own tint
    assert all(out[10 + k] is w for k, w in enumerate(whites))  # the balls stay as read
    return out[0]


def test_a_hollow_leaning_to_the_white_balls_tint_is_unknown():
    """Tints from 2600284 under a soft light: the white balls lit at (-0.46..-0.56,
    0.21..0.33) from the lit plate's tint, the white ball in the arm's shadow at (-0.17,
    0.04), where the plate round the base as dark as it lies at (-0.04, 0.04): 0.22 of the
    way from that to theirs (0.24 in the frame)."""
    whites = [_white(-0.46, 0.21), _white(-0.52, 0.24), _white(-0.56, 0.33)]
    shaded = _read((-0.168, 0.04), whites)
    assert shaded.code == "?" and "0.22 of the way from the plate's in its shade to this frame's white" in shaded.why
    assert _read((-0.06, 0.05), whites).code == "."      # the shaded plate's tint
    assert _read((0.059, -0.1), whites).code == "."      # off the plate's tint, but away from white
    sky = (-0.2, 0.2)  # a shadow lit by a blue sky: the plate there leans far toward white, and so does the hollow
    assert _read((-0.21, 0.21), whites, sky).code == "."
    assert _read((-0.168, 0.04), whites, None).code == "."  # the plate round the base nowhere that dark
    assert _read((-0.168, 0.04), []).code == "."         # no white ball to judge by
    unsure = [replace(w, p=(0.05, 0.95, 0.0)) for w in whites]
    assert _read((-0.168, 0.04), unsure).code == "."     # read at ``light_ball`` only: they judge none
    pale = [_white(-0.12, 0.1), _white(-0.13, 0.11)]
    assert _read((-0.168, 0.04), pale).code == "."       # their tint under ``white_apart`` from the shade's


def test_a_white_ball_in_an_arms_soft_shadow_is_not_read_empty():
    """The benchmark's seed 2600284 under a soft light (Sparks, 800x600, an arm beside the
    pyramid): the white base ball 1a4, in the arm's shadow, was read empty at P(empty) 1.00,
    the one confident wrong reading the whole ``make bench`` run of 2026-12-04's seventh
    session found. Its tint, not its shading, gives it away."""
    sc, image = frame_in_look(PYRAMID, 2600284, "soft-light")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells["1a4"] == "W" and result.observation.cells["1a4"] == "?", result.details["1a4"]
    assert "of the way from the plate's in its shade to this frame's white balls'" in result.details["1a4"]
    wrong = [n for n, v in result.observation.cells.items() if v != "?" and v != sc.cells.get(n, ".")]
    assert wrong == []
    assert sum(v == "W" for v in result.observation.cells.values()) >= 3  # its fellows, read
    before = Recognizer(PYRAMID, sc.game, thresholds=replace(Thresholds(), hollow_white=9.0)).read(image)
    assert before.observation.cells["1a4"] == "."
