"""An arm the band misses on a table of the skin's colour, found where it hides the
plate's outline (vision/recognize_outline.py): the hand is seen and nothing under it is
read; a frame without a hand, or whose plate and table are alike, shows no arm."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from vision.geometry import load_board
from vision.pose import estimate_pose
from vision.recognize import Recognizer
from vision.recognize_hands import band_points, find_hands
from vision.recognize_outline import Outline, outline_pairs
from vision.recognize_train import random_position
from vision.render import Camera, render
from vision.render_hand import random_hand
from vision.score import score

PYRAMID = load_board("pyramid-4")
GRID = load_board("grid-9")
DARK_SKIN = (84, 54, 38)
DARK_WOOD = (90, 60, 42)  # a dark wooden table, near the skin's colour
CAMERA = Camera.look_at((20, -150, 480), (0, 0, 0), 60, 640, 480)


def scene(hand: bool, table=DARK_WOOD, seed: int = 0):
    """Seed 0: a dark hand 40-60 mm over a Sparks pyramid on a dark wooden table."""
    rng = random.Random(seed)
    cells = random_position("sparks", rng, 30)
    arm = random_hand(PYRAMID, rng, colour=DARK_SKIN, height_mm=(40, 60))
    frame = render(PYRAMID, cells, CAMERA, hands=[arm] if hand else [], rng=rng, noise=1.0, blur=0.5,
                   table_colour=table)
    return cells, frame.image


class Blind:
    """The outline's check turned off: no crossings."""

    def crossings(self, image: np.ndarray) -> np.ndarray:
        return np.zeros((0, 2))


def test_a_hand_the_band_misses_is_found_at_the_outline(monkeypatch):
    """Without the outline's check the band sees no arm, and the hand over the pyramid is
    read as balls and places (4a1 and 3b1 wrong); with it, the hand is seen and nothing is
    read wrong."""
    cells, image = scene(hand=True)
    pose = estimate_pose(image, PYRAMID)
    assert not find_hands(image, pose, band_points(PYRAMID)).present
    crossings = Outline.of(PYRAMID, pose, image.shape).crossings(image)
    assert len(crossings) >= 3
    assert (np.abs(crossings).max(axis=1) > PYRAMID.plate[0] / 2).all()  # beside the plate, on the table
    seen = Recognizer(PYRAMID, "sparks").read(image)
    assert seen.hand
    assert score(dict(seen.observation.cells), cells, Counter()) == []
    monkeypatch.setattr(Recognizer, "outline", lambda self, pose, shape: Blind())
    blind = Recognizer(PYRAMID, "sparks").read(image)
    assert not blind.hand
    assert score(dict(blind.observation.cells), cells, Counter()) != []


@pytest.mark.parametrize("table", [DARK_WOOD, (60, 60, 62)])
def test_no_arm_without_a_hand(table):
    cells, image = scene(hand=False, table=table)
    pose = estimate_pose(image, PYRAMID)
    assert len(Outline.of(PYRAMID, pose, image.shape).crossings(image)) == 0
    assert not Recognizer(PYRAMID, "sparks").read(image).hand


def test_a_table_like_the_plate_shows_no_arm():
    """Plate and table of one wood, no hand: the steps across the outline are all small,
    and noise among them is not taken for a step lost."""
    _, image = scene(hand=False, table=(208, 170, 120))
    pose = estimate_pose(image, PYRAMID)
    outline = Outline.of(PYRAMID, pose, image.shape)
    assert outline.usable.sum() >= 8
    assert len(outline.crossings(image)) == 0


def test_the_grid_pairs_keep_clear_of_its_markers():
    inner, _, outer, clear, sides = outline_pairs(GRID)
    assert len(inner) == len(outer) == len(clear) == 4 * int(GRID.plate[0] / 5)
    assert (np.bincount(sides) == int(GRID.plate[0] / 5)).all()
    for m in GRID.markers:
        near = (np.abs(inner[clear, 0] - m.centre[0]) < 30) & (np.abs(inner[clear, 1] - m.centre[1]) < 30)
        assert not near.any()
    assert (np.abs(outer[:, :2]).max(axis=1) > GRID.plate[0] / 2).all()
