"""Borders whose samples split with black leading, but too few to read by
(vision/recognize_second.py, ``SPLIT_SURE``): the border model's light across the border
reads the black plate where it is sure and no arm is in view."""

from __future__ import annotations

from collections import Counter

import pytest

import vision.recognize_second as recognize_second
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_train import frame_in_look
from vision.score import score

GRID = load_board("grid-9")


@pytest.fixture(scope="module")
def frame():
    """Seed 8,500,161 (plain, no arm in view), among those the need was chosen on: 9
    black plates were ``?``, their samples split with black leading."""
    return frame_in_look(GRID, 8_500_161, "plain")


def test_split_borders_are_read_where_the_border_model_is_sure(frame, monkeypatch):
    sc, image = frame
    result = Recognizer(GRID, sc.game).read(image)
    cells, why = dict(result.observation.cells), dict(result.details)
    c: Counter = Counter()
    assert score(cells, sc.cells, c) == [] and c["wrong"] == 0
    split = {n: cells[n] for n in cells if why[n].startswith("read: a black plate by ")}
    assert len(split) >= 8
    assert all(sc.cells[n] == code and code[1] == "b" for n, code in split.items())
    monkeypatch.setattr(recognize_second, "SPLIT_SURE", 1.01)  # the model never sure enough: as before
    again = Recognizer(GRID, sc.game).read(image)
    for n, code in split.items():
        assert again.observation.cells[n] == code[0] + "?"
        assert again.details[n].startswith("controller unclear (b ")


def test_with_an_arm_in_view_a_split_black_border_stays_unknown():
    """Seed 8,500,008 with a moving hand in view: five black plates whose samples split
    are black to the border model at P 1.000, but an arm's shadow may darken a bare border
    as a black plate's band does, so they stay ``?`` and say why."""
    sc, image = frame_in_look(GRID, 8_500_008, "motion")
    result = Recognizer(GRID, sc.game).read(image)
    assert result.hand
    arm = "but an arm is in view, whose shadow may darken a border"
    held = [n for n, w in result.details.items() if w.endswith(arm)]
    assert len(held) >= 5
    for n in held:
        assert result.observation.cells[n] == sc.cells[n][0] + "?"
        assert result.details[n].startswith("controller unclear (b ")
        assert float(result.details[n].split("at P ")[1].split(",")[0]) >= recognize_second.SPLIT_SURE
