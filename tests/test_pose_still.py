"""A camera on a stand keeps its pose (vision/pose_still.py): frames that show every marker
where the frame the pose was found from showed it reuse that pose; any move of a marker
(a twentieth of a pixel and more), a hand over one, another frame size and every
FULL_EVERY frames measure the markers again."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import cv2
import numpy as np
import pytest

from host.games import rules_for
from host.sim import SimConfig, simulate_game
from host.sim_vision import Cameras
from vision.geometry import load_board
from vision.pose import PoseError, as_grey, complete, detect_with_quads
from vision.pose_still import MarkerWindow, StillMarkers
from vision.pose_track import FULL_EVERY
from vision.recognize import Recognizer, pose_shift
from vision.recognize_train import scenes
from vision.render import render
from vision.score import score

PYRAMID = load_board("pyramid-4")
GRID = load_board("grid-9")


def square(shift: tuple[float, float] = (0.0, 0.0), noise: float = 0.0, seed: int = 0) -> np.ndarray:
    """A 60 x 60 frame of a dark square with a light inner square, drawn 8 times larger and
    shrunk, moved by ``shift`` pixels."""
    big = np.full((480, 480), 200, np.float32)
    big[120:360, 120:360] = 30
    big[200:280, 200:280] = 220
    m = np.float32([[1, 0, shift[0] * 8], [0, 1, shift[1] * 8]])
    big = cv2.warpAffine(big, m, (480, 480), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    small = cv2.resize(big, (60, 60), interpolation=cv2.INTER_AREA)
    small += np.random.default_rng(seed).normal(0, noise, small.shape).astype(np.float32)
    return np.clip(np.rint(small), 0, 255).astype(np.uint8)


CORNERS = np.array([[15.0, 15.0], [45.0, 15.0], [45.0, 45.0], [15.0, 45.0]])


def test_a_window_measures_a_sub_pixel_move_through_noise():
    window = MarkerWindow.of(square(noise=2.0, seed=1), CORNERS)
    assert window is not None
    cut = (window.rows, window.cols)
    for seed in range(2, 8):  # the same square under other noise
        assert window.unmoved(square(noise=2.0, seed=seed)[cut])
    for shift in ((0.08, 0.0), (0.0, -0.08), (0.06, 0.06), (0.5, 0.0), (2.0, 1.0)):
        assert not window.unmoved(square(shift, noise=2.0, seed=9)[cut]), shift
    assert window.unmoved(square((0.02, 0.0), noise=2.0, seed=9)[cut])


def test_a_window_takes_another_exposure_but_not_a_change_over_the_marker():
    image = square(noise=1.0, seed=1)
    window = MarkerWindow.of(image, CORNERS)
    cut = (window.rows, window.cols)
    brighter = np.clip(square(noise=1.0, seed=2).astype(np.float32) * 1.12 + 5, 0, 255).astype(np.uint8)
    assert window.unmoved(brighter[cut])
    darker = (square(noise=1.0, seed=3).astype(np.float32) * 0.5).astype(np.uint8)
    assert not window.unmoved(darker[cut])  # more than GAIN: measured again
    covered = square(noise=1.0, seed=4)
    covered[20:30, 14:24] = 150  # a fingertip over one corner
    assert not window.unmoved(covered[cut])


def test_a_window_without_contrast_or_off_the_frame_is_not_held():
    assert MarkerWindow.of(np.full((60, 60), 90, np.uint8), CORNERS) is None
    assert MarkerWindow.of(square(), CORNERS - 14) is None
    still = StillMarkers()
    still.hold(square(), {0: CORNERS, 1: CORNERS - 14})
    assert not still.holding and not still.unmoved(square())


def _stand_scenes(board, count: int, seed: int):
    return [sc for sc in scenes(board, random.Random(seed), count, hands=0.0)]


@pytest.mark.parametrize("board", [PYRAMID, GRID], ids=lambda b: b.name)
def test_frames_from_a_stand_reuse_the_pose_and_read_as_well(board):
    """Random cameras (640x480 to 1280x720): the next frames of the same camera, with other
    sensor noise, keep the first frame's pose without a search. A pose found from one
    noisy frame is as close to the true camera as one found from another, so the held
    pose reads the later frames as well as a pose found in each of them does. So is a pose
    resting on markers found by their pattern (vision/pose_match.py; one grid camera of
    ten), which was searched for again in every frame. A pose resting on fewer markers
    than the frame shows is not held: the next frame is searched, and its pose held (the
    grid's fourth camera, whose 640x480 frames decode one marker: decoded again at three
    times the size, the first gives three, the second all four; vision/pose_far.py).
    Each frame is read in full with the held pose (``hold=0``), so that the held and the
    found reading of a frame differ in their pose alone: a still board's reading held
    from its first frame (tests/test_frame_still.py) would count that frame's sensor
    noise three times."""
    w, d = board.plate[0] / 2, board.plate[1] / 2
    probe = np.array([(x, y, z) for x in (-w, w) for y in (-d, d) for z in (0.0, 60.0)])
    held = frames = matched = 0
    counts: Counter = Counter()
    errors: dict[str, list[float]] = {"held": [], "found": []}
    searched = []
    for n, sc in enumerate(_stand_scenes(board, 10, 21)):
        rec, fresh = Recognizer(board, sc.game, hold=0.0), Recognizer(board, sc.game)
        first = measured = rec.read(sc.retake(1))
        if not first.ok:
            continue
        truth = sc.settings["camera"].project(probe)
        grey = as_grey(sc.retake(1))
        found, quads = detect_with_quads(grey, board.dictionary, want={m.id for m in board.markers})
        by_pattern = set(first.pose.markers) - set(complete(found, quads, board, grey))
        for k in range(2, 5):
            image = sc.retake(k)
            result = rec.read(image)
            frames += 1
            if rec.markers.held:
                held += 1
                matched += bool(by_pattern)
                assert result.pose is measured.pose
            else:
                searched.append((n, k))
                measured = result
            fresh.markers.forget()
            again = fresh.read(image)
            for how, r in (("held", result), ("found", again)):
                if r.ok:
                    score(r.observation.cells, sc.cells, counts, how + " ")
                    errors[how].append(float(np.abs(r.pose.project(probe) - truth).max()))
    assert frames >= 18 and searched == ([(3, 2)] if board is GRID else [])
    assert held == frames - len(searched)
    # held frames of the grid cameras whose poses rest on markers neither decoded in the
    # frame nor completed: found by their pattern (the second camera, three frames) or
    # decoded again (``far_looks``: the fourth, two frames, and the tenth, three)
    assert matched == (8 if board is GRID else 0)
    assert counts["held wrong"] == counts["found wrong"] == 0
    assert counts["held right"] >= counts["found right"] - 0.01 * counts["found chars"]
    assert np.median(errors["held"]) <= np.median(errors["found"]) + 0.1


def test_a_camera_moved_a_little_or_a_hand_over_a_marker_is_measured_again():
    sc = _stand_scenes(PYRAMID, 1, 5)[0]
    rec = Recognizer(PYRAMID, sc.game)
    first = rec.read(sc.retake(1))
    assert first.ok and rec.markers.searched_whole
    rec.read(sc.retake(2))
    assert rec.markers.held
    cam = sc.settings["camera"]
    for px in (0.1, 3.0):  # the camera slid sideways by about this much in the image
        t = np.array(cam.t)
        t[0] += px * t[2] / cam.fx
        moved = render(**{**sc.settings, "camera": dataclasses.replace(cam, t=t)}, rng=np.random.default_rng(3)).image
        result = rec.read(moved)
        assert not rec.markers.held and result.ok  # found again, from the moved markers
    assert pose_shift(PYRAMID, first.pose, result.pose) > 2
    assert rec.read(moved).pose is result.pose and rec.markers.held  # held from the new pose
    m = PYRAMID.markers[1]
    h, (x, y) = PYRAMID.marker_size / 2 + 5, m.centre
    quad = result.pose.project(np.array([(x - h, y - h, 0), (x + h, y - h, 0), (x + h, y + h, 0), (x - h, y + h, 0)]))
    covered = moved.copy()
    cv2.fillConvexPoly(covered, np.rint(quad).astype(np.int32), (140, 184, 214))
    result = rec.read(covered)
    assert result.ok and not rec.markers.held and result.pose.markers == (0, 2, 3)
    # the hand kept still: a frame that missed a marker is searched again (the marker might
    # be back), and the same pose is kept
    assert rec.read(covered).pose is result.pose and not rec.markers.held
    result = rec.read(moved)
    assert not rec.markers.held and result.pose.markers == (0, 1, 2, 3)  # the hand left
    assert rec.read(moved).pose is result.pose and rec.markers.held
    brighter = np.clip(moved.astype(np.float32) * 1.1, 0, 255).astype(np.uint8)
    assert rec.read(brighter).ok and rec.markers.held
    assert rec.read(cv2.cvtColor(moved, cv2.COLOR_BGR2GRAY)).ok and rec.markers.held
    assert not rec.read(cv2.resize(moved, (640, 360))).ok or not rec.markers.held
    rec.read(moved)
    assert rec.read(moved).ok and rec.markers.held
    for bad in (moved.astype(np.float32), np.concatenate([moved, moved[..., :1]], axis=2)):
        with pytest.raises(PoseError):  # a bad frame is an error, not the pose held
            rec.pose(bad)


def test_the_whole_frame_is_still_searched_every_full_every_frames():
    sc = _stand_scenes(GRID, 1, 2)[0]
    rec = Recognizer(GRID, sc.game)
    images = [sc.retake(k) for k in range(3)]
    whole, held = [], []
    for k in range(2 * FULL_EVERY + 1):
        assert rec.read(images[k % 3]).ok
        whole.append(rec.markers.searched_whole)
        held.append(rec.markers.held)
    assert [k for k, w in enumerate(whole) if w] == [0, FULL_EVERY, 2 * FULL_EVERY]
    assert sum(held) == 2 * FULL_EVERY - 2  # every frame between, but for the searches
    rec.markers.forget()
    rec.read(images[0])
    assert rec.markers.searched_whole


@pytest.mark.parametrize("game, seed", [("sparks", 3), ("sparklies", 2)])
def test_a_followed_game_holds_poses_as_close_to_the_camera_as_found_ones(game, seed):
    """A simulated game seen from a stand, hands over the board now and then: most frames
    hold the pose, and a held pose shows the board where the true camera does as closely
    as a pose found from that frame (a fit's error is its frame's noise; holding one
    adds none). No character is read wrong."""
    rules = rules_for(game, **({"width": 9, "height": 9} if game == "sparklies" else {}))
    sim = simulate_game(rules, random.Random(seed), SimConfig(seed=seed, game=game, max_turns=4, hands=0.2))
    seen = Cameras(random.Random(seed), (800, 600)).for_game(game)
    rec, fresh = Recognizer(seen.board, game), Recognizer(seen.board, game)
    w, d = seen.board.plate[0] / 2, seen.board.plate[1] / 2
    probe = np.array([(x, y, z) for x in (-w, w) for y in (-d, d) for z in (0.0, 60.0)])
    truth = seen.rig.camera.project(probe)
    held, errors, found_errors, counts = 0, [], [], Counter()
    for frame in sim.frames:
        image = seen.image(frame.board, frame.hand)
        result = rec.read(image)
        if not result.ok:
            continue
        held += rec.markers.held
        errors.append(float(np.abs(result.pose.project(probe) - truth).max()))
        fresh.markers.forget()
        try:
            found_errors.append(float(np.abs(fresh.pose(image).project(probe) - truth).max()))
        except PoseError:
            pass
        score(result.observation.cells, frame.board, counts)
    assert len(errors) >= 10 and held >= len(errors) // 2
    assert max(errors) <= max(found_errors) + 0.1
    assert counts["wrong"] == 0

