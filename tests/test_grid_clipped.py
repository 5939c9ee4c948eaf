"""A bare border on overexposed wood (vision/recognize_grid.py, ``CLIPPED_BARE``): where only
the wood's red clips, a border the rules read bare (``ALONE_SHARE``, ``SPILT_SHARE``) is read
bare; green and blue tell the wood from a white plate there. The plates round it stay
unknown, as every border did on overexposed wood before."""

from __future__ import annotations

import pytest

from grid_rule_kit import assert_only_bare_borders_gained, read_twice

OVEREXPOSED = "the wood is overexposed: a white plate would look the same"


@pytest.fixture(scope="module")
def bright():
    """Seed 1,100,023 of the benchmark's grid set (640x480), its wood overexposed in red
    round most cells, read with and without the rule."""
    return read_twice(1_100_023, "plain", {"CLIPPED_BARE": 0})


def test_a_bare_border_on_wood_clipped_in_red_is_read(bright):
    sc, cells, why, before, why_before = bright
    assert sc.cells["a1"] == "B."
    assert before["a1"] == "B?" and why_before["a1"] == OVEREXPOSED
    assert cells["a1"] == "B." and why["a1"] == "read"


def test_what_it_reads_is_right_and_only_bare_controllers_change(bright):
    sc, cells, _, before, why_before = bright
    assert_only_bare_borders_gained(sc, cells, before, why_before, least=30, why=OVEREXPOSED)


def test_plates_on_that_wood_stay_unknown(bright):
    """Its 15 black and white plates on overexposed wood: none passes for bare wood, and
    the rules read none at all (the border model, asked after them, reads the black ones:
    tests/test_grid_held.py)."""
    sc, cells, _, _, why_before = bright
    plates = [n for n in cells if sc.cells[n][1] in "wb" and why_before[n] == OVEREXPOSED]
    assert len(plates) >= 12
    assert all(cells[n] == sc.cells[n][0] + "?" for n in plates)
