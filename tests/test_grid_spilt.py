"""A bare border whose samples that are not the tile's spill agree (vision/recognize_grid.py,
``SPILT_SHARE``): read at 25 % of all its samples where no sample voted for a plate, none
is brighter than the wood without voting, the votes are lit as the wood next to the cell
is, and 80 % of the samples that are not a quarter spill or more vote bare. On a thin
border most samples are the tile's spill; they say nothing about what lies under it."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import vision.recognize_grid as recognize_grid
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_plates import _controllers, plate_albedos
from vision.recognize_train import frame_in_look
from vision.score import score

GRID = load_board("grid-9")


def _read(recognizer: Recognizer, image) -> tuple[dict[str, str], dict[str, str]]:
    result = recognizer.read(image)
    return dict(result.observation.cells), dict(result.details)


@pytest.fixture(scope="module")
def thin():
    """Seed 1,100,012 of the benchmark's grid set (640x480: borders 2-3 px wide), read with
    and without the rule."""
    sc, image = frame_in_look(GRID, 1_100_012, "plain")
    recognizer = Recognizer(GRID, sc.game, hold=0.0)  # the same frame read again under other rules: in full
    cells, why = _read(recognizer, image)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(recognize_grid, "SPILT_SHARE", 2.0)  # no share reaches it: the rule off
        before, why_before = _read(recognizer, image)
    return sc, cells, why, before, why_before


def test_a_bare_border_mostly_spill_is_read(thin):
    """c1, a red tile on bare wood: 5 of its 20 border samples vote bare, none for a plate,
    and every other sample is the red tile's spill. At 60 % it was ``R?``; now ``R.``."""
    sc, cells, why, before, why_before = thin
    assert sc.cells["c1"] == "R."
    assert before["c1"] == "R?" and why_before["c1"] == "controller unclear (. 25%)"
    assert cells["c1"] == "R." and why["c1"] == "read"


def test_what_it_reads_is_right_and_only_bare_controllers_change(thin):
    """Every cell the rule changes was a bare border left ``?`` for its share, and is read
    right; nothing in the frame is read wrong either way."""
    sc, cells, _, before, why_before = thin
    gained = [n for n in cells if cells[n] != before[n]]
    assert len(gained) >= 10
    for n in gained:
        assert before[n] == cells[n][0] + "?" and why_before[n].startswith("controller unclear (. ")
        assert cells[n] == sc.cells[n] and cells[n][1] == "."
    for read in (cells, before):
        c: Counter = Counter()
        score(read, sc.cells, c)
        assert c["wrong"] == 0


def _ring(samples: list[np.ndarray]) -> np.ndarray:
    return np.array(samples, dtype=np.float64)[None]


def test_the_share_leaves_the_spill_out_and_a_bright_sample_voids_it():
    """Five samples of wood and fifteen of wood half covered by a red tile's colour: the
    five vote bare, the fifteen are spill; of the samples that are not spill all agree.
    One sample brighter than the wood that does not vote (a white plate's glint the glare
    test leaves out) says something against the wood: then the share is 0."""
    wood, tile = np.array([0.40, 0.30, 0.20]), np.array([0.50, 0.03, 0.03])
    ring = _ring([wood] * 5 + [0.5 * wood + 0.5 * tile] * 15)
    ok = np.ones((1, 20), dtype=bool)
    win, share, *_, alone, unspilt = _controllers(ring, ok, tile[None], wood[None], plate_albedos(GRID), wood)
    assert win[0] == 0 and alone[0]
    assert share[0] == pytest.approx(0.25) and unspilt[0] == pytest.approx(1.0)
    bright = _ring([wood] * 5 + [0.5 * wood + 0.5 * tile] * 14 + [wood * 1.4])
    *_, unspilt = _controllers(bright, ok, tile[None], wood[None], plate_albedos(GRID), wood * 2.0)
    assert unspilt[0] == 0.0


@pytest.mark.parametrize("seed, look, cell, truth, why", [
    # a black plate blurred with the wood: every sample that is not spill votes bare, dimly
    # (median light 0.36, ``ALONE_LIGHT``)
    (1_100_159, "plain", "d4", "Gb", "controller unclear (. 60%)"),
    # a white plate in far colours: 93 % of the samples that are not spill vote bare, lit as
    # the wood, but with the tile's spill they add up to 1.25 (``ALONE_MIXED``)
    (1_100_129, "far-colour", "d9", "Bw", "controller unclear (. 65%)"),
    # a white plate on a 2.33 px border: 83 % of those that are not spill vote bare, but one
    # sample voted white
    (1_100_452, "plain", "d4", "Gw", "controller unclear (. 50%)"),
])
def test_plates_that_vote_bare_stay_unknown(seed, look, cell, truth, why):
    sc, image = frame_in_look(GRID, seed, look)
    cells, details = _read(Recognizer(GRID, sc.game), image)
    assert sc.cells[cell] == truth
    assert cells[cell] == truth[0] + "?" and details[cell] == why
