"""A hand over a marker, on a table of the skin's colour, found where the band and the
plate's outline miss it (vision/recognize_covered.py): a marker under a hand shows no
step between its black border and its paper; one in view, decoded or not, does."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from vision.geometry import load_board
from vision.pose import Pose, estimate_pose
from vision.recognize import Recognizer
from vision.recognize_covered import COVERED, MarkerRings
from vision.recognize_hands import band_points, find_hands
from vision.recognize_outline import Outline
from vision.recognize_train import random_position, scenes
from vision.render import Camera, render
from vision.render_hand import random_hand
from vision.score import score

PYRAMID = load_board("pyramid-4")
SKIN = (205, 160, 130)
TAN_WOOD = (190, 150, 115)  # a light wooden table, near the skin's colour
CAMERA = Camera.look_at((10, -120, 450), (0, 0, 0), 60, 960, 720)


class Blind:
    """The markers' check turned off: nothing covered."""

    def seen(self, image: np.ndarray) -> Blind:
        return self

    def covered(self) -> np.ndarray:
        return np.zeros((0, 2))

    def paper(self) -> None:  # no paper seen: no glare judged either
        return None


def rendered(hand: bool, seed: int = 3):
    """A Pylos position on a tan table; with ``hand``, a hand 15-25 mm over marker 3."""
    rng = random.Random(seed)
    cells = random_position("pylos", rng, 14)
    arm = random_hand(PYRAMID, rng, over=(-85.0, 85.0), height_mm=(15, 25), colour=SKIN)
    frame = render(PYRAMID, cells, CAMERA, hands=[arm] if hand else [], rng=rng, noise=1.0, blur=0.5,
                   table_colour=TAN_WOOD)
    return cells, frame.image


def test_a_marker_in_view_stands_out_from_its_paper_and_one_under_a_hand_does_not():
    _, clear = rendered(hand=False)
    pose = estimate_pose(clear, PYRAMID)
    rings = MarkerRings.of(PYRAMID, pose, clear.shape)
    assert rings.judged.all()
    assert (rings.seen(clear).steps() > 3 * COVERED).all(), rings.seen(clear).steps()
    assert len(rings.seen(clear).covered()) == 0
    _, covered = rendered(hand=True)
    steps = rings.seen(covered).steps()  # the same camera: the clear frame's pose
    assert steps[rings.ids.index(3)] < COVERED, steps
    assert rings.seen(covered).covered().tolist() == [[-85.0, 85.0]]


def test_a_marker_seen_too_small_or_out_of_the_frame_is_not_judged():
    _, image = rendered(hand=False)
    pose = estimate_pose(image, PYRAMID)
    # a camera with a quarter of the focal length: each marker's side 10-15 px, the rings a
    # pixel apart, where the pose's error alone could hide the step
    wide = Pose(pose.K * np.array([[0.25], [0.25], [1.0]]), pose.R, pose.t, pose.markers, 0.0)
    assert not MarkerRings.of(PYRAMID, wide, image.shape).judged.any()
    # the frame's top left quarter: only the marker that lies in it is judged
    h, w = image.shape[0] // 2, image.shape[1] // 2
    corner = MarkerRings.of(PYRAMID, pose, image[:h, :w].shape)
    inside = [m.id for m in PYRAMID.markers if (pose.project([(*m.centre, 0.0)])[0] < (w - 40, h - 40)).all()]
    assert len(inside) == 1 and [i for i, j in zip(corner.ids, corner.judged) if j] == inside
    assert len(corner.seen(np.ascontiguousarray(image[:h, :w])).covered()) == 0


def test_a_path_traced_hand_over_a_marker_is_seen():
    """Fresh path traced 7900092 (Pylos, 1280x720): a hand over the pyramid on a tan table,
    its arm over marker 3. The band saw no arm (the table is the skin's colour) nor did the
    outline (the arm crosses it under the marker's paper), and two fingers were read as
    light wooden balls over stained ones (1a2, 1a3). Marker 3 shows no step between its
    border and its paper: a hand is seen, and nothing is read wrong. (Blind to it, 1a3 is
    ``?`` since ``light_up`` went to 0.25: the finger there is shaded up by 0.23 only.)"""
    from vision.render_pbr import render_pbr

    seed = 7_900_092
    sc = next(scenes(PYRAMID, random.Random(seed), 1, hands=1.0))
    image = render_pbr(sc.settings["board"], sc.cells, sc.settings["camera"], hands=sc.settings["hands"], spp=16,
                       seed=seed)
    pose = estimate_pose(image, PYRAMID)
    assert 3 not in pose.markers
    assert not find_hands(image, pose, band_points(PYRAMID)).present
    assert len(Outline.of(PYRAMID, pose, image.shape).crossings(image)) == 0
    assert MarkerRings.of(PYRAMID, pose, image.shape).seen(image).covered().tolist() == [[-85.0, 85.0]]
    seen = Recognizer(PYRAMID, sc.game).read(image)
    assert seen.hand
    assert score(dict(seen.observation.cells), sc.cells, Counter()) == []
    blind = Recognizer(PYRAMID, sc.game)
    blind.marker_rings = lambda pose, shape: Blind()  # type: ignore[method-assign]
    unseen = blind.read(image)
    assert not unseen.hand
    assert "1a2" in score(dict(unseen.observation.cells), sc.cells, Counter())
    assert unseen.observation.cells["1a3"] == "?" and "not shaded like a ball (up 0.23" in unseen.details["1a3"]
