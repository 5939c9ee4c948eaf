"""A hand over part of a tile (vision/recognize_grid.py, ``HAND_NEAR_MM``): skin over the
border passes for wood, so near an arm's crossing a tile with some samples not its colour
has its controller unknown."""

from __future__ import annotations

import numpy as np

import vision.recognize_grid as recognize_grid
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_border import SURE
from vision.recognize_colour import measure_plate
from vision.recognize_hands import HandSigns, find_hands
from vision.recognize_train import frame_in_look

GRID = load_board("grid-9")


def test_a_black_plate_under_a_hands_edge_is_not_read_bare(monkeypatch):
    """Fresh seed 6,300,140 with its pieces put down by hand (800x600): an arm reaches in
    over c1, a green tile on a black plate, covering a fifth of the tile's samples and part
    of its border, where the skin and the plate's blurred edge pass for wood. Without the
    rule the controller is read bare (wrong) but for the border model's need of a bare border
    lit less than the wood (``DIM_SURE``): the model calls it bare at 0.955."""
    sc, image = frame_in_look(GRID, 6_300_140, "placed", hands=0.35)
    assert sc.cells["c1"] == "Gb"
    recognizer = Recognizer(GRID, sc.game)
    result = recognizer.read(image)
    assert result.hand
    hands = find_hands(image, result.pose, recognizer.rings)
    assert hands.distance(*recognizer.grid.centres[recognizer.grid.names.index("c1")]) <= recognize_grid.HAND_NEAR_MM
    assert result.observation.cells["c1"] == "G?"
    assert "a hand over part of the tile" in result.details["c1"]
    monkeypatch.setattr(recognize_grid, "HAND_NEAR_MM", 0.0)
    dim = Recognizer(GRID, sc.game).read(image)
    assert dim.observation.cells["c1"] == "G?" and "lit less than the wood" in dim.details["c1"]
    monkeypatch.setattr(recognize_grid, "DIM_SURE", SURE["."])
    assert Recognizer(GRID, sc.game).read(image).observation.cells["c1"] == "G."


def test_without_an_arm_in_view_the_rule_leaves_every_cell_alone():
    """A frame with no arm crossing: the same reading with no hand signs at all, and with
    signs that found none (the distance to no crossing is infinite)."""
    sc, image = frame_in_look(GRID, 1_100_004, "plain", hands=0.0)
    recognizer = Recognizer(GRID, sc.game)
    result = recognizer.read(image)
    assert not result.hand
    geo = recognizer.grid_geometry(result.pose)
    plate = measure_plate(image, GRID, result.pose).colour
    args = (image, recognizer.grid, geo, plate, recognizer.tiles, recognizer.albedo)
    none = recognize_grid.read_grid(*args, None, recognizer.border)
    empty = recognize_grid.read_grid(*args, HandSigns(np.zeros((0, 2)), 100), recognizer.border)
    assert {n: r.code for n, r in none.items()} == {n: r.code for n, r in empty.items()}
    assert not any("hand over part" in r.why for r in none.values())
