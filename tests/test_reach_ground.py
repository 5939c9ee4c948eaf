"""The arm's growth (vision/recognize_reach.py) does not follow the table's colour nor the
plate's: step by step, the follow crossed the blurred edge from a hand to the table or the
plate, and a hand beside the board, or over a plate a little like skin, took the whole
plate for the arm, so that every place of the frame stayed unknown."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vision.pbr_frames import in_look, render_frame
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_colour import log_chroma
from vision.recognize_reach import GROUND_CHROMA, GROUND_LEVEL, GROUND_NEARER, GROUND_PIXELS, ground_like, grow
from vision.score import score

from test_reach import arm_of

PYRAMID = load_board("pyramid-4")
ARM, TABLE, PLATE = (0.55, 0.25, 0.14), (0.3, 0.3, 0.3), (0.6, 0.45, 0.28)  # linear RGB


def chroma_of(*rgb: tuple[float, float, float]) -> np.ndarray:
    return log_chroma(np.array(rgb))


def test_the_grounds_colour_is_not_followed_where_it_lies_beyond_the_arms():
    """Barred: the pixels within ``GROUND_CHROMA`` of the ground's tone (its median over
    ``ground``) and ``GROUND_NEARER`` times as near it as the arm's, within
    ``GROUND_LEVEL`` times its brightness either way, in patches 3 pixels wide or more.
    Nothing where the ground lies within the arm's limit (the arm's colour takes it
    anyway), nor where it is measured on fewer than ``GROUND_PIXELS`` pixels."""
    arm, table = chroma_of(ARM)[0], chroma_of(TABLE)[0]
    apart = float(np.hypot(*(arm - table)))
    assert apart > 2 * GROUND_CHROMA
    steps = np.linspace(0.0, 1.0, 11)
    stripes = table + steps[:, None] * (arm - table)  # from the table's tone to the arm's
    image = np.concatenate([np.repeat(np.repeat(stripes[None], 4, axis=1), 8, axis=0),  # 4 px wide each
                            np.repeat(table[None, None], 44, axis=1).repeat(8, axis=0)])  # the table below
    lum = np.ones(image.shape[:2])
    to_arm = np.hypot(*np.moveaxis(image - arm, -1, 0))
    where = np.zeros(image.shape[:2], dtype=bool)
    where[8:] = True
    barred = ground_like(image, lum, arm, to_arm, 0.2, where)[4, 1::4]
    near = steps * apart
    assert barred.tolist() == ((near <= GROUND_CHROMA) & (near <= GROUND_NEARER * (apart - near))).tolist()
    assert barred[0] and not barred[-1]
    lum[:8, :4] = 0.9 / GROUND_LEVEL  # the table's tone, but darker than the table by more
    assert not ground_like(image, lum, arm, to_arm, 0.2, where)[4, 1]
    lum[:8, :4] = 1.0
    image[4, 42] = table  # a lone pixel of the table's tone among the arm's
    to_arm = np.hypot(*np.moveaxis(image - arm, -1, 0))
    assert not ground_like(image, lum, arm, to_arm, 0.2, where)[:8, 40:].any()  # a patch, not a pixel
    assert not ground_like(image, lum, arm, to_arm, apart + 0.01, where).any()  # the ground like the arm
    where[8 + GROUND_PIXELS // 44:] = False
    assert not ground_like(image, lum, arm, to_arm, 0.2, where).any()  # measured on too few pixels


def ramp(a: tuple[float, float, float], b: tuple[float, float, float], n: int) -> np.ndarray:
    return np.linspace(a, b, n)


def test_a_hand_beside_the_board_leaves_the_plate_alone():
    """A smooth edge from the arm to the table and from the table to the plate: followed a
    step at a time, the arm took the table and the plate beyond it; told where they show,
    it stops at its own edge."""
    row = np.concatenate([np.repeat([ARM], 20, axis=0), ramp(ARM, TABLE, 30), np.repeat([TABLE], 20, axis=0),
                          ramp(TABLE, PLATE, 30), np.repeat([PLATE], 30, axis=0)])
    lin = np.repeat(row[None], 40, axis=0)
    at = (np.arange(40), np.zeros(40, dtype=np.intp))
    table = np.zeros(lin.shape[:2], dtype=bool)
    table[:, 50:70] = True
    plate = np.zeros(lin.shape[:2], dtype=bool)
    plate[:, 100:] = True
    before = grow(lin, at)
    assert before[:, 100:].all()  # the plate taken for the arm
    after = grow(lin, at, (table, plate))
    assert after[:, :20].all() and not after[:, 50:].any()


@pytest.mark.parametrize(("seed", "look", "was", "least"), [(9190000, "plain", 0.81, 7), (9190017, "plain", 0.65, 2),
                                                          (9190017, "JPEG", 0.64, 2)])
def test_path_traced_hands_beside_and_over_the_board_are_grown_alone(seed, look, was, least):
    """Path traced 9190000: the hand lies beside the board, over the table; 9190017: over a
    plate whose wood lies 0.45 from the skin's tint. The arm was grown over the plate
    (``was`` of the box), and every place stayed unknown; now it is the hand alone, and
    ``least`` places clear of it are read, none wrong. 9190017's 4a1 lies under the palm:
    the support rules read it empty, and 3b2 at the fingers' edge, until 2026-12-07's sixth
    session (4 places right then); now they are unknown."""
    image, truth = render_frame("pyramid-4", seed, hands=True)
    image = in_look(image, look, seed)
    recognizer = Recognizer(PYRAMID, truth["game"])
    result = recognizer.read(image)
    reach = arm_of(recognizer, image, result.pose)
    assert (reach.gap == 0).mean() < min(0.25, was / 2)
    counts = Counter()
    assert score(result.observation.cells, truth["cells"], counts) == []
    assert result.hand and counts["right"] >= least, counts
    if seed == 9190017:
        assert result.observation.cells["4a1"] == "?", result.details["4a1"]
