"""The colour bands widened for path traced balls (vision/recognize_balls.py,
``colour_of``): a wooden ball darker than ``DEEP_STAINED`` reads stained at any red, and a
light wooden ball lighter than -1.2 reads so up to ``LIGHT_RED``, as varnished balls showed
(docs/vision.md, "Stained by its darkness"); between the two, red still tells. A Sparks
ball reads black from ``BLACK_DARK`` ("Black from -2.2")."""

from __future__ import annotations

import numpy as np
import pytest

from vision.recognize import Recognizer
from vision.recognize_balls import BLACK_DARK, DEEP_STAINED, LIGHT_RED, colour_of

from test_stained_beside import traced


def measured(level: float, red: float) -> np.ndarray:
    """A ball's colour measures (median and 90th percentile level, red/green, blue/green, red
    share, level outside) with ``level`` and ``red``; the rest as a shaded ball's."""
    return np.array([level, level + 0.6, 0.3, -0.1, red, level - 0.5])


@pytest.mark.parametrize(("level", "red", "letter"), [
    # path traced stained balls "colour unclear" before: as little red as the plate, or less
    (-2.43, 0.35, "D"),  # 8990013 1b1 as rendered
    (-2.86, 0.26, "D"),
    (DEEP_STAINED - 0.01, 0.30, "D"),
    # as dark as the darkest light wooden ball path traced (-1.83): red must still tell
    (-1.83, 0.30, "?"),
    (DEEP_STAINED + 0.01, 0.35, "?"),
    (-1.77, 0.36, "D"),
    # light wood in a warm bounce
    (-0.5, 0.55, "L"),
    (-0.5, LIGHT_RED - 0.01, "L"),
    (-0.5, LIGHT_RED, "?"),
    (-1.3, 0.40, "?"),  # between the bands: a light ball in shade or a lit stained one
])
def test_a_wooden_balls_letter(level: float, red: float, letter: str) -> None:
    code, why = colour_of(measured(level, red), "LD")
    assert code == letter, why


@pytest.mark.parametrize(("level", "red", "letter"), [
    (-2.6, 0.30, "B"),
    (-2.3, 0.30, "B"),  # path traced, a glossy black ball reflects the room
    (BLACK_DARK - 0.01, 0.49, "B"),
    (BLACK_DARK + 0.01, 0.30, "?"),  # a white ball in deep shade looks as dark (-2.13 once)
    (-2.1, 0.30, "?"),
    (-2.3, 0.55, "?"),  # too red for black, too dark for red
])
def test_a_sparks_balls_letter(level: float, red: float, letter: str) -> None:
    """Sparks' balls keep their own bands: a dark ball of no red is black, not stained."""
    code, why = colour_of(measured(level, red), "WBR")
    assert code == letter, why


def test_a_path_traced_stained_ball_as_little_red_as_the_plate_is_read():
    """Path traced 8990013, as rendered: the stained base ball 1b1 in the pyramid's shade
    measures level -2.43 and red 0.35 (the plate's is 0.33), and was "colour unclear"."""
    image, truth, board = traced(8990013, "plain")
    res = Recognizer(board, "pylos").read(image)
    cells = dict(res.observation.cells)
    assert truth["cells"]["1b1"] == "D"
    assert cells["1b1"] == "D", res.details["1b1"]
    assert res.details["1b1"].startswith("ball, dark wood (level -2.4")
