"""A bare border that no sample doubts (vision/recognize_grid.py, ``ALONE_SHARE``): read at
60 % of its samples where no sample voted for a plate and the votes are lit as the wood
next to the cell is; a black plate blurred with the wood votes bare dimly, and a white plate
in far colours with more of the tile's colour added, and both stay unknown."""

from __future__ import annotations

import pytest

import vision.recognize_grid as recognize_grid
from grid_rule_kit import assert_only_bare_borders_gained, assert_stays_unknown, read_twice


@pytest.fixture(scope="module")
def plain():
    """Seed 1,100,000 of the benchmark's grid set (800x600), read with and without the rule,
    and without the one for borders mostly spill (tests/test_grid_spilt.py) either way."""
    return read_twice(1_100_000, "plain", {"ALONE_SHARE": recognize_grid.SHARE}, {"SPILT_SHARE": 2.0})


def test_a_bare_border_seen_60_percent_with_no_doubt_is_read(plain):
    """b1, a red tile on bare wood: 14 of its 20 border samples vote bare and none for a
    plate (the rest are the tile's spill). At 75 % it was ``R?``; now ``R.``."""
    sc, cells, why, before, why_before = plain
    assert sc.cells["b1"] == "R."
    assert before["b1"] == "R?" and why_before["b1"] == "controller unclear (. 70%)"
    assert cells["b1"] == "R." and why["b1"] == "read"


def test_what_it_reads_is_right_and_only_bare_controllers_change(plain):
    sc, cells, _, before, why_before = plain
    assert_only_bare_borders_gained(sc, cells, before, why_before, least=4)


@pytest.mark.parametrize("seed, look, cell, truth, why", [
    # a black plate blurred with the wood beside it: 9 of 15 samples vote bare, dimly (median light 0.36)
    (1_100_159, "plain", "d4", "Gb", "controller unclear (. 60%)"),
    # a white plate in far colours: 65 % vote bare, lit as the wood, but with the tile's spill
    # they add up to 1.25 (``ALONE_MIXED``)
    (1_100_129, "far-colour", "d9", "Bw", "controller unclear (. 65%)"),
])
def test_plates_that_vote_bare_stay_unknown(seed, look, cell, truth, why):
    assert_stays_unknown(seed, look, cell, truth, why)
