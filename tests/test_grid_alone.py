"""A bare border that no sample doubts (vision/recognize_grid.py, ``ALONE_SHARE``): read at
60 % of its samples where no sample voted for a plate and the votes are lit as the wood
next to the cell is; a black plate blurred with the wood votes bare dimly, and a white plate
in far colours with more of the tile's colour added, and both stay unknown."""

from __future__ import annotations

from collections import Counter

import pytest

import vision.recognize_grid as recognize_grid
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_train import frame_in_look
from vision.score import score

GRID = load_board("grid-9")


def _read(recognizer: Recognizer, image) -> tuple[dict[str, str], dict[str, str]]:
    result = recognizer.read(image)
    return dict(result.observation.cells), dict(result.details)


@pytest.fixture(scope="module")
def plain():
    """Seed 1,100,000 of the benchmark's grid set (800x600), read with and without the rule."""
    sc, image = frame_in_look(GRID, 1_100_000, "plain")
    recognizer = Recognizer(GRID, sc.game, hold=0.0)  # the same frame read again under other rules: in full
    with pytest.MonkeyPatch.context() as mp:
        # this rule alone: not the one for borders mostly spill (tests/test_grid_spilt.py)
        mp.setattr(recognize_grid, "SPILT_SHARE", 2.0)
        cells, why = _read(recognizer, image)
        mp.setattr(recognize_grid, "ALONE_SHARE", recognize_grid.SHARE)
        before, why_before = _read(recognizer, image)
    return sc, cells, why, before, why_before


def test_a_bare_border_seen_60_percent_with_no_doubt_is_read(plain):
    """b1, a red tile on bare wood: 14 of its 20 border samples vote bare and none for a
    plate (the rest are the tile's spill). At 75 % it was ``R?``; now ``R.``."""
    sc, cells, why, before, why_before = plain
    assert sc.cells["b1"] == "R."
    assert before["b1"] == "R?" and why_before["b1"] == "controller unclear (. 70%)"
    assert cells["b1"] == "R." and why["b1"] == "read"


def test_what_it_reads_is_right_and_only_bare_controllers_change(plain):
    """Every cell the rule changes was a bare border left ``?`` for its share, and is read
    right; nothing in the frame is read wrong either way."""
    sc, cells, _, before, why_before = plain
    gained = [n for n in cells if cells[n] != before[n]]
    assert len(gained) >= 4
    for n in gained:
        assert before[n] == cells[n][0] + "?" and why_before[n].startswith("controller unclear (. ")
        assert cells[n] == sc.cells[n] and cells[n][1] == "."
    for read in (cells, before):
        c: Counter = Counter()
        score(read, sc.cells, c)
        assert c["wrong"] == 0


@pytest.mark.parametrize("seed, look, cell, truth, why", [
    # a black plate blurred with the wood beside it: 9 of 15 samples vote bare, dimly (median light 0.36)
    (1_100_159, "plain", "d4", "Gb", "controller unclear (. 60%)"),
    # a white plate in far colours: 65 % vote bare, lit as the wood, but with the tile's spill
    # they add up to 1.25 (``ALONE_MIXED``)
    (1_100_129, "far-colour", "d9", "Bw", "controller unclear (. 65%)"),
])
def test_plates_that_vote_bare_stay_unknown(seed, look, cell, truth, why):
    sc, image = frame_in_look(GRID, seed, look)
    cells, details = _read(Recognizer(GRID, sc.game), image)
    assert sc.cells[cell] == truth
    assert cells[cell] == truth[0] + "?" and details[cell] == why
