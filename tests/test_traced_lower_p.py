"""Path traced frames read with the lower limits of P(ball) that the model's doubt about
path traced wood called for: a light wooden base ball shaped as one (``shaped_ball``) and
a stained ball above the base (``stained_ball`` on every level). Both frames were path
traced after the two limits were chosen (docs/vision.md, Recognition). And the lower limit
of P(empty) on levels 3 and 4 (``upper_empty``), with the look it asks of such a place."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from vision.recognize import Recognizer
from vision.recognize_thresholds import Thresholds
from vision.score import score

from test_stained_beside import traced


def _read(seed: int, name: str, code: str, glare: bool, before: Thresholds) -> None:
    """Frame ``seed`` as rendered: ``name`` read ``code`` as its truth says, none wrong, and
    ``?`` under the ``before`` limits."""
    image, truth, board = traced(seed, "plain", glare=glare)
    result = Recognizer(board, truth["game"]).read(image)
    cells = dict(result.observation.cells)
    assert truth["cells"][name] == code and cells[name] == code, result.details[name]
    assert score(cells, truth["cells"], Counter()) == []
    again = Recognizer(board, truth["game"], thresholds=before).read(image)
    assert again.observation.cells[name] == "?" and "unsure" in again.details[name]
    assert score(again.observation.cells, truth["cells"], Counter()) == []


def test_a_light_wooden_base_ball_shaped_as_one_is_read():
    """Fresh 9110014 (Pylos): 1d4, a light wooden base ball wholly in view, shaded and
    outlined as a ball, at P(ball) 0.84."""
    _read(9_110_014, "1d4", "L", False, replace(Thresholds(), shaped_ball=0.99))


def test_a_stained_ball_above_the_base_is_read_at_stained_ball():
    """Fresh 9120026 (Pylos, under glare): 2c1, a stained level-2 ball, at P(ball) 0.98."""
    _read(9_120_026, "2c1", "D", True, replace(Thresholds(), stained_ball=0.99))


def test_an_empty_place_above_level_2_that_looks_as_a_ball_seen_through_it_is_unknown():
    """Path traced 7800113 (Sparks, through a webcam): 3a2, a red level-3 ball, is empty to
    the model at P(empty) 0.976 and looks as the red ball 2a2 under it is read. Read empty
    at ``upper_empty``, it was, and 4a1 (black) was emptied on it."""
    image, truth, board = traced(7_800_113, "webcam")
    result = Recognizer(board, truth["game"]).read(image)
    assert truth["cells"]["3a2"] == "R" and result.observation.cells["3a2"] == "?"
    assert "looks as 2a2 (R) seen through it" in result.details["3a2"], result.details["3a2"]
    assert truth["cells"]["4a1"] == "B" and result.observation.cells["4a1"] == "?"
    assert score(result.observation.cells, truth["cells"], Counter()) == []
    level_2 = Recognizer(board, truth["game"], thresholds=replace(Thresholds(), upper_empty=0.99)).read(image)
    assert level_2.observation.cells["3a2"] == "?" and "unsure" in level_2.details["3a2"]
