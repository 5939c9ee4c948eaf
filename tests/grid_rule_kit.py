"""What the tests of the grid's controller rules share: a frame read with a rule and
without it, and the checks that the rule reads only bare borders left unknown, and reads
them right, and leaves the plates that vote bare unknown."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

import vision.recognize_grid as recognize_grid
import vision.recognize_second as recognize_second
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_border import FEATURES
from vision.recognize_model import Ensemble, Model
from vision.recognize_train import frame_in_look
from vision.score import score

GRID = load_board("grid-9")


def constant_border_model(bare: float, white: float) -> Ensemble:
    """A border model that gives every border the same probabilities (its logits its biases)."""
    f, h = FEATURES, 2
    b2 = np.log(np.maximum([bare, white, 1.0 - bare - white], 1e-9))
    return Ensemble((Model(np.zeros(f), np.ones(f), np.zeros((f, h)), np.zeros(h), np.zeros((h, 3)), b2),))


def read(recognizer: Recognizer, image) -> tuple[dict[str, str], dict[str, str]]:
    """The cells and why each was read so."""
    result = recognizer.read(image)
    return dict(result.observation.cells), dict(result.details)


def read_twice(seed: int, look: str, rule_off: dict[str, Any], others_off: dict[str, Any] | None = None):
    """Frame ``seed`` of the random sets in ``look`` read with a rule and without it
    (``rule_off``: the settings of vision/recognize_grid.py that turn it off), both times
    with ``others_off`` set: the scene, the cells and why with it, and without. Both times
    without the border model's reading of bare borders whose samples split and of black
    plates the rules hold for their light (vision/recognize_second.py, ``BARE_SPLIT_SURE``,
    ``HELD_BLACK_SURE``), which read many of the borders the rules tested here leave open,
    and without the second border model's doubt (``PBR_SURE``), which leaves some of those
    the rules read bare open: each rule is tested alone."""
    sc, image = frame_in_look(GRID, seed, look)
    recognizer = Recognizer(GRID, sc.game, hold=0.0)  # the same frame read again under other rules: in full
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(recognize_second, "BARE_SPLIT_SURE", 1.01)
        mp.setattr(recognize_second, "HELD_BLACK_SURE", 1.01)
        mp.setattr(recognize_second, "PBR_SURE", 0.0)
        for name, value in (others_off or {}).items():
            mp.setattr(recognize_grid, name, value)
        cells, why = read(recognizer, image)
        for name, value in rule_off.items():
            mp.setattr(recognize_grid, name, value)
        before, why_before = read(recognizer, image)
    return sc, cells, why, before, why_before


def assert_only_bare_borders_gained(sc, cells: dict[str, str], before: dict[str, str], why_before: dict[str, str],
                                    least: int, why: str = "controller unclear (. ") -> None:
    """Every cell the rule changes (``least`` of them at least) was a bare border left
    ``?`` for ``why`` (how the reason began: its share, by default), and is read right;
    nothing in the frame is read wrong either way."""
    gained = [n for n in cells if cells[n] != before[n]]
    assert len(gained) >= least
    for n in gained:
        assert before[n] == cells[n][0] + "?" and why_before[n].startswith(why)
        assert cells[n] == sc.cells[n] and cells[n][1] == "."
    for reading in (cells, before):
        c: Counter = Counter()
        score(reading, sc.cells, c)
        assert c["wrong"] == 0


def assert_stays_unknown(seed: int, look: str, cell: str, truth: str, why: str) -> None:
    """A plate that votes bare: its controller read ``?``, and why."""
    sc, image = frame_in_look(GRID, seed, look)
    cells, details = read(Recognizer(GRID, sc.game), image)
    assert sc.cells[cell] == truth
    assert cells[cell] == truth[0] + "?" and details[cell] == why
