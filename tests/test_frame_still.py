"""A frame that shows the board as the last frame read in full did keeps that frame's
reading (vision/frame_still.py, ``Recognizer.hold``): the next frames of a camera on a
stand, with other sensor noise, are not read again; a piece put, taken or given a border,
a hand, another exposure, a pose passed in or the hold's time running out is read afresh."""

from __future__ import annotations

import random

import numpy as np
import pytest

from vision.frame_still import BLOCK_PX, StillBoard, region
from vision.geometry import load_board
from vision.recognize import HOLD_S, Recognizer
from vision.recognize_train import random_position, scenes
from vision.render import random_hand, render

PYRAMID = load_board("pyramid-4")
GRID = load_board("grid-9")
SMALL = ((640, 480), (800, 600))
FRAME = 1 / 30


def _scenes(board, count: int, seed: int, *, turns: int = 40):
    """Random frames of positions after up to ``turns`` turns."""
    def position(game: str, rng: random.Random, n: int) -> dict[str, str]:
        return random_position(game, rng, min(n, turns))
    return list(scenes(board, random.Random(seed), count, hands=0.0, resolutions=SMALL, position=position))


def _changed(board, cells: dict[str, str], game: str, rng: random.Random) -> tuple[str, dict[str, str]] | None:
    """One visible change a player could make: a pyramid's base ball with nothing on it
    taken, or one put in an empty hollow under nothing; a grid cell's control plate put,
    taken or turned over. None for a base wholly covered."""
    cells = dict(cells)
    if board.kind == "grid":
        name = rng.choice([p.name for p in board.positions if cells.get(p.name, "..")[0] != "."])
        tile, plate = cells[name]
        cells[name] = tile + rng.choice([c for c in ".wb" if c != plate])
        return name, cells
    def above(name: str) -> list[str]:
        col, row = ord(name[1]) - ord("a"), int(name[2]) - 1
        return [f"2{chr(ord('a') + c)}{r + 1}" for c in (col - 1, col) for r in (row - 1, row) if 0 <= c < 3 and 0 <= r < 3]
    free = [p.name for p in board.positions if p.name[0] == "1" and all(cells.get(n, ".") == "." for n in above(p.name))]
    if not free:
        return None
    name = rng.choice(free)
    cells[name] = "." if cells.get(name, ".") != "." else rng.choice("WBR" if game == "sparks" else "LD")
    return name, cells


@pytest.mark.parametrize("board", [PYRAMID, GRID], ids=lambda b: b.name)
def test_the_next_frames_of_a_still_board_keep_the_reading(board):
    held = frames = 0
    for sc in _scenes(board, 4, 31):
        rec = Recognizer(board, sc.game)
        first = rec.read(sc.retake(1), 0.0)
        if not first.ok:
            continue
        assert not first.held
        for k in range(1, 6):
            result = rec.read(sc.retake(1 + k), k * FRAME)
            frames += 1
            if result.held:
                held += 1
                assert result.observation.cells == first.observation.cells
                assert result.details == first.details and result.pose is first.pose
                assert result.observation.t == k * FRAME  # the frame's own time
    assert frames >= 15 and held == frames


@pytest.mark.parametrize("board", [PYRAMID, GRID], ids=lambda b: b.name)
def test_a_piece_put_taken_or_turned_is_read_afresh(board):
    """The change alone (no hand in the frame), at 640x480 and 800x600: the smallest a
    piece shows in the envelope's frames."""
    rng = random.Random(4)
    changed = 0
    for sc in _scenes(board, 8, 41, turns=10):
        rec = Recognizer(board, sc.game)
        if not rec.read(sc.retake(1), 0.0).ok or not rec.read(sc.retake(2), FRAME).held:
            continue
        change = _changed(board, sc.cells, sc.game, rng)
        if change is None:
            continue
        name, cells = change
        image = render(**{**sc.settings, "cells": cells}, rng=np.random.default_rng(3)).image
        result = rec.read(image, 2 * FRAME)
        assert not result.held, (sc.settings["camera"].width, name, sc.cells.get(name), cells[name])
        assert rec.read(sc.retake(4), 3 * FRAME).held is False  # the board as before: read again
        changed += 1
    assert changed >= 6


def test_a_hand_another_exposure_or_the_hold_running_out_is_read_afresh():
    sc = _scenes(PYRAMID, 1, 5)[0]
    rec = Recognizer(PYRAMID, sc.game)
    assert rec.read(sc.retake(1), 0.0).ok and rec.read(sc.retake(2), FRAME).held
    hand = render(**{**sc.settings, "hands": [random_hand(PYRAMID, random.Random(2))]},
                  rng=np.random.default_rng(5)).image
    assert not rec.read(hand, 2 * FRAME).held
    assert not rec.read(sc.retake(3), 3 * FRAME).held  # the hand gone: read again
    assert rec.read(sc.retake(4), 4 * FRAME).held
    brighter = np.clip(sc.retake(5).astype(np.float32) * 1.08, 0, 255).astype(np.uint8)
    assert not rec.read(brighter, 5 * FRAME).held
    t = 5 * FRAME + HOLD_S + FRAME  # over the hold after the last frame read in full
    assert rec.read(brighter, t - 2 * FRAME).held
    assert not rec.read(brighter, t).held
    assert rec.read(brighter, t + FRAME).held
    assert not rec.read(brighter, t - 1.0).held  # time went backwards (another source)


def test_a_pose_passed_in_or_no_hold_reads_every_frame():
    sc = _scenes(GRID, 1, 6)[0]
    rec = Recognizer(GRID, sc.game)
    first = rec.read(sc.retake(1), 0.0)
    assert first.ok
    assert not rec.read(sc.retake(2), FRAME, first.pose).held
    assert not rec.read(sc.retake(3), 2 * FRAME, first.pose).held
    assert not rec.read(sc.retake(4), 3 * FRAME).held  # after a pose passed in: read in full once
    assert rec.read(sc.retake(5), 4 * FRAME).held
    never = Recognizer(GRID, sc.game, hold=0.0)
    assert not any(never.read(sc.retake(k), k * FRAME).held for k in range(1, 5))


def test_the_region_and_an_empty_hold():
    assert region(np.array([[-50.0, -50.0], [-10.0, -20.0]]), (480, 640)) is None  # out of the frame
    box = region(np.array([[10.4, 20.0], [100.0, np.nan], [53.0, 47.0]]), (480, 640))
    assert box == (slice(20, 44), slice(10, 50))  # whole blocks, from the finite points
    assert (box[0].stop - box[0].start) % BLOCK_PX == 0 == (box[1].stop - box[1].start) % BLOCK_PX
    still = StillBoard()
    image = np.zeros((480, 640, 3), np.uint8)
    assert not still.unchanged(image)
    still.hold(image, None)
    assert not still.holding and not still.unchanged(image)
    still.hold(image, box)
    assert still.holding and still.unchanged(image) and not still.unchanged(image[:240])
    image[30, 30] = 255  # one pixel, 255 levels: its block's mean moves by 4
    assert still.unchanged(image)
    image[30:33, 30:33] = 255
    assert not still.unchanged(image)
    still.clear()
    assert not still.unchanged(image)
