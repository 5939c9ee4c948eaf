"""A board far off in a small frame (vision/pose_far.py).

Its markers are 12-20 px across, cells of 2-3 px: too few decode for a pose, even at twice
the size. Where the markers decoded, completed and found by their pattern are too few, a
frame up to 800 px on its long side is decoded again, sharpened and at three times its
size."""

from __future__ import annotations

import random
from collections import Counter

import cv2
import numpy as np
import pytest

import vision.pose_far as pose_far
from vision.geometry import load_board
from vision.pbr_frames import frame_scene, in_look, render_frame
from vision.pose import MIN_MARKERS, PoseError, as_grey, detect_with_quads, estimate_pose
from vision.pose_far import far_looks
from vision.recognize import Recognizer
from vision.recognize_pyramid import Layout
from vision.render import Camera, render
from vision.score import score

PYRAMID = load_board("pyramid-4")
IDS = {m.id for m in PYRAMID.markers}
SEED = 9_050_022  # path traced, Pylos: the plate 150 px across a 640x480 frame


@pytest.fixture(scope="module")
def far():
    image, truth = render_frame("pyramid-4", SEED)
    return image, truth


@pytest.mark.parametrize("look", ["JPEG", "webcam"])
def test_a_board_far_off_is_read_from_its_markers_decoded_again(far, look, monkeypatch):
    image, truth = far
    image = in_look(image, look, SEED)
    found, _ = detect_with_quads(as_grey(image), PYRAMID.dictionary, want=IDS)
    assert len(found.keys() & IDS) < MIN_MARKERS - 1  # too few even for the search by pattern
    result = Recognizer(PYRAMID, truth["game"]).read(image)
    assert result.ok, result.error
    assert len(result.pose.markers) >= MIN_MARKERS
    camera = frame_scene(PYRAMID, SEED, False).settings["camera"]
    centres = Layout.of(PYRAMID).centres
    assert float(np.linalg.norm(result.pose.project(centres) - camera.project(centres), axis=1).max()) < 2.0
    counts: Counter = Counter()
    assert score(result.observation.cells, truth["cells"], counts) == []
    assert counts["right"] >= 13
    monkeypatch.setattr(pose_far, "FAR_SIDE", 0)  # without the far looks: no pose
    again = Recognizer(PYRAMID, truth["game"]).read(image)
    assert not again.ok and "the pose needs at least 3" in again.error


def test_a_marker_decoded_in_two_places_is_dropped(far):
    grey = as_grey(in_look(far[0], "JPEG", SEED))
    found = far_looks(grey, PYRAMID.dictionary, {}, IDS)
    assert len(found) >= MIN_MARKERS
    k = min(found)
    elsewhere = far_looks(grey, PYRAMID.dictionary, {k: found[k] + 6.0}, IDS)
    assert k not in elsewhere
    assert far_looks(grey, PYRAMID.dictionary, {k: found[k] + 1.0}, IDS)[k] == pytest.approx(found[k] + 1.0)



def test_markers_hidden_near_the_camera_are_not_looked_for_again(monkeypatch):
    """A near board (markers 38-51 px across at 640x480) with three markers painted over, as a
    hand hides them: the one decoded is large, so the others are hidden, not small, and
    the looks (90-200 ms) are spared. With its size allowed, they run, and find nothing."""
    cam = Camera.look_at((0, -150, 330), (0, 0, 0), 60, 640, 480)
    image = render(PYRAMID, {}, cam, rng=random.Random(3), noise=1.0).image.copy()
    for m in PYRAMID.markers[1:]:
        corners = cam.project(np.array(PYRAMID.marker_corners(m)))
        centre = corners.mean(axis=0)
        cv2.fillConvexPoly(image, np.round(centre + 1.4 * (corners - centre)).astype(np.int32), (150, 190, 215))
    calls = []
    monkeypatch.setattr(pose_far, "far_looks", lambda *a: calls.append(a) or far_looks(*a))
    with pytest.raises(PoseError, match="only marker 0"):
        estimate_pose(image, PYRAMID)
    assert not calls
    monkeypatch.setattr(pose_far, "FAR_MARKER_PX", 100.0)
    with pytest.raises(PoseError, match="only marker 0"):
        estimate_pose(image, PYRAMID)
    assert len(calls) == 1
