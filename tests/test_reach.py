"""Where a hand reaches over a pyramid board (vision/recognize_reach.py): the arm's colour
where it crosses the band, grown through the image, finds the hand; the places well clear
of it are read as in a frame without a hand, the rest stay unknown."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from vision.geometry import load_board
from vision.pose import estimate_pose
from vision.recognize import Recognizer
from vision.recognize_colour import MIN_STRIPS, log_chroma, luminance, margin_points, measure_plate
from vision.recognize_hands import HandSigns, find_hands
from vision.recognize_reach import ARM_OVER, CLEAR_PX, Reach, arm_reach
from vision.recognize_thresholds import Thresholds
from vision.recognize_train import HAND_COVER, frame_in_look, random_position
from vision.render import Camera, random_hand, render
from vision.render_room import RoomLight
from vision.score import score

PYRAMID = load_board("pyramid-4")
CAMERA = Camera.look_at((0, -250, 520), (0, 0, 0), 60, 1280, 720)
CELLS = random_position("sparks", random.Random(5), 6)


def shot(over, reach_deg, colour=None):
    """A Sparks position with a hand over ``over`` (x, y mm), the pose from the same view
    without it (the hand may cover a marker), and the recognizer's view of the arm."""
    hand = random_hand(PYRAMID, random.Random(2), over=over, reach_deg=reach_deg, colour=colour,
                       height_mm=(40, 60))
    bare = render(PYRAMID, CELLS, CAMERA, rng=random.Random(1), wood_seed=3)
    frame = render(PYRAMID, CELLS, CAMERA, hands=(hand,), rng=random.Random(1), wood_seed=3)
    pose = estimate_pose(bare.image, PYRAMID)
    recognizer = Recognizer(PYRAMID, "sparks")
    reach = arm_of(recognizer, frame.image, pose)
    uv, radius_px = pose.project(recognizer.layout.centres), recognizer.geometry(pose).radius_px
    return frame, pose, recognizer, reach, reach.clear(uv, radius_px) if reach else None


def arm_of(recognizer: Recognizer, image: np.ndarray, pose) -> Reach | None:
    """The arm in ``image`` as the recognizer finds and grows it for ``pose``."""
    _, band = recognizer.patches(pose, image.shape)
    signs = find_hands(image, pose, recognizer.rings, band, *recognizer.band_masks(pose))
    geo = recognizer.geometry(pose)
    return arm_reach(image, pose, PYRAMID, signs, pose.project(recognizer.layout.centres), geo.radius_px)


def grown(frame, reach: Reach) -> np.ndarray:
    """Each hand pixel's distance (px) from the arm as grown, within the box grown."""
    x0, y0, x1, y1 = reach.box
    ys, xs = np.nonzero(frame.hand_mask[y0:y1, x0:x1])
    h, w = reach.gap.shape
    return reach.gap[np.clip(np.rint(ys * reach.scale).astype(int), 0, h - 1),
                     np.clip(np.rint(xs * reach.scale).astype(int), 0, w - 1)]


#: skin tones of vision/render_hand.py: medium and darker
MEDIUM, DARKER = (212, 152, 112), (170, 110, 74)


@pytest.mark.parametrize(("over", "reach_deg", "colour"), [((70, 60), 225, MEDIUM), ((-80, 20), 0, DARKER)])
def test_the_arm_grown_from_where_it_crosses_covers_the_hand(over, reach_deg, colour):
    """Nearly every pixel of the hand is grown (the rest lie at its outline, mixed with
    what is behind it), no place the hand covers is clear, and a dozen places are."""
    frame, _, recognizer, reach, clear = shot(over, reach_deg, colour)
    assert reach is not None
    gap = grown(frame, reach)
    assert (gap == 0).mean() > 0.95, (gap == 0).mean()
    names = recognizer.layout.names
    covered = {n for n in names if frame.truth[n].hand}
    assert covered and not covered & {n for n, c in zip(names, clear) if c}
    assert clear.sum() >= 12, clear.sum()


def test_places_clear_of_the_arm_are_read_the_rest_stay_unknown():
    """The hand over one corner of the pyramid: the places clear of it are read (none
    wrong), every place it covers is unknown, and the frame still says a hand is in view
    (the colours do not adapt, the tracker waits for it to go)."""
    frame, pose, recognizer, _, _ = shot((70, 60), 225, MEDIUM)
    result = recognizer.read(frame.image, pose=pose)
    counts = Counter()
    assert score(result.observation.cells, CELLS, counts) == []
    assert result.hand
    assert counts["right"] >= 8, counts
    for name, code in result.observation.cells.items():
        if frame.truth[name].hand and frame.truth[name].covered > HAND_COVER:
            assert code == "?", (name, code, result.details[name])


def test_an_arm_the_colour_of_the_plate_takes_the_plate_with_it():
    """A hand of the plate's own wood: the growth runs over the plate (more than half the
    box it grows in is taken for the arm), and still no place the hand covers is clear.
    The lightest skin tones are as near the plate's wood: that costs places read."""
    frame, _, recognizer, reach, clear = shot((70, 60), 225, colour=PYRAMID.plate_colour)
    names = recognizer.layout.names
    assert (grown(frame, reach) == 0).mean() > 0.95
    assert not {n for n, c in zip(names, clear) if c and frame.truth[n].covered > HAND_COVER}
    assert (reach.gap == 0).mean() > 0.5


def test_no_crossing_in_the_image_grows_nothing():
    """Crossings that all fall outside the image give no reach: every place stays as the
    hand's presence alone makes it."""
    _, pose, recognizer, _, _ = shot((70, 60), 225)
    far = HandSigns(np.array([[5000.0, 5000.0]]), 100)
    geo = recognizer.geometry(pose)
    image = np.zeros((720, 1280, 3), dtype=np.uint8)
    assert arm_reach(image, pose, PYRAMID, far, pose.project(recognizer.layout.centres), geo.radius_px) is None


@pytest.mark.parametrize(("seed", "look", "least"), [(2600185, "plain", 15), (2600299, "plain", 11),
                                                     (2600165, "webcam", 17)])
def test_random_hand_frames_are_read_clear_of_the_arm(seed, look, least):
    """Frames of the study with a hand (seeds 2,600,000 on): read with the hand known only
    to be in view they read 0-3 places right; clear of the arm, ``least`` or more, none
    wrong."""
    sc, image = frame_in_look(PYRAMID, seed, look, hands=1.0)
    result = Recognizer(PYRAMID, sc.game).read(image)
    counts = Counter()
    assert score(result.observation.cells, sc.cells, counts) == []
    assert result.hand and counts["right"] >= least, counts


@pytest.mark.parametrize(("seed", "look"), [(2600045, "webcam"), (2600045, "cast-drift"), (2600065, "plain"),
                                          (2600008, "far-colour")])
def test_places_the_hand_covers_are_not_read_empty_from_below(seed, look, monkeypatch):
    """A place the hand covers half of or more is unknown, though a support under it is read
    empty: the support rules read no place the arm lies over empty. In these frames they
    did, and do with no place under the arm (2600045 through a webcam: 3a1, 94 % under the
    hand)."""
    sc, image = frame_in_look(PYRAMID, seed, look, hands=1.0)
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert score(result.observation.cells, sc.cells, Counter()) == []
    covered = [n for n, t in sc.frame.truth.items() if t.hand and t.covered >= 0.5]
    assert covered and all(result.observation.cells[n] == "?" for n in covered), covered
    monkeypatch.setattr("vision.recognize_reach.ARM_OVER", -1.0)  # the arm over no place
    emptied = Recognizer(PYRAMID, sc.game).read(image).observation.cells
    assert any(emptied[n] == "." for n in covered)


def test_a_hands_shadow_leaves_the_places_it_darkens_unknown():
    """A hand's shadow falls where the hand is not: in 2600060 (far colours) the arm's
    shadow crosses the pyramid, and the light wooden balls 3b2 and 2c2 in it, clear of the
    arm, read as in a frame without a hand, are read empty (3b1 with them by the support
    rules). The model told of the arm gives a hand 0.39-0.98 there, so they stay unknown
    (``Thresholds.hand_told``). Read untold, the light ball 1d2 under 2c2 is read empty
    too; since 2026-12-07 its tint, the light balls' (0.03 from them, 0.12 from the plate:
    ``hollow_near``), leaves it unknown, and the places over it with it. Blinded to that,
    the untold reading shows what the told model alone puts right."""
    sc, image = frame_in_look(PYRAMID, 2600060, "far-colour", hands=1.0)
    untold = Recognizer(PYRAMID, sc.game, thresholds=Thresholds(hand_told=1.0, hollow_near=(math.inf, 0.0))).read(image)
    assert score(untold.observation.cells, sc.cells, Counter()) == ["3b1", "3b2", "2c2"]
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert score(result.observation.cells, sc.cells, Counter()) == []
    assert result.hand


def test_the_plate_is_measured_clear_of_the_arm():
    """2600073 (in a room's shadow): the hand lies over a third of the plate's free strips,
    as bright as the plate, so skin made up much of the strips' brighter half, and the
    plate measured redder than it is. Two empty hollows clear of the arm, read against it
    as in a frame without a hand, were read light wooden balls (the shadow check off).
    Its tint taken from the strips clear of the arm, the plate has its chromaticity
    without the hand, and none is wrong, the check off or on."""
    sc, image = frame_in_look(PYRAMID, 2600073, "shadow", hands=1.0)
    bare = render(**{**sc.settings, "hands": []}, rng=np.random.default_rng(5)).image
    bare = RoomLight.random(random.Random(2600073), "shadow").apply(bare)
    recognizer = Recognizer(PYRAMID, sc.game)
    pose = recognizer.read(image).pose
    reach = arm_of(recognizer, image, pose)
    strips = pose.project(recognizer.margin)
    keep = reach.clear(strips, np.zeros(len(strips)))
    assert 0.2 < 1 - keep.mean() < 0.5  # the arm lies over some of the strips, not most
    truth = log_chroma(measure_plate(bare, PYRAMID, pose).colour[None])
    spoilt = log_chroma(measure_plate(image, PYRAMID, pose).colour[None])
    clear = log_chroma(measure_plate(image, PYRAMID, pose, keep=keep).colour[None])
    assert np.abs(spoilt - truth).max() > 0.3
    assert np.abs(clear - truth).max() < 0.02
    for th in (Thresholds(hand_told=1.0), Thresholds()):
        result = Recognizer(PYRAMID, sc.game, thresholds=th).read(image)
        assert score(result.observation.cells, sc.cells, Counter()) == []


def test_an_arm_over_nearly_every_strip_leaves_the_plate_measured_from_all():
    """Fewer than ``MIN_STRIPS`` strip samples clear of the arm are too few to tell the
    plate's tint by: all are measured, as without an arm (in 27 of 113 study frames with
    an arm, plain, through webcams and path traced, fewer than 8 were clear). With more,
    the tint is theirs and the brightness all the strips'."""
    frame, pose, _, _, _ = shot((70, 60), 225, MEDIUM)
    every = measure_plate(frame.image, PYRAMID, pose)
    strips = len(margin_points(PYRAMID))
    for keep in (np.zeros(strips, dtype=bool), np.arange(strips) < MIN_STRIPS - 1):
        measured = measure_plate(frame.image, PYRAMID, pose, keep=keep)
        assert np.array_equal(measured.colour, every.colour) and measured.samples == every.samples
    half = measure_plate(frame.image, PYRAMID, pose, keep=np.arange(strips) < strips // 2).colour
    assert not np.array_equal(half, every.colour)  # its tint from the half kept ...
    assert luminance(half[None])[0] == pytest.approx(luminance(every.colour[None])[0])  # ... its brightness all's


def test_a_place_is_clear_where_the_arm_lies_beyond_its_ball_and_some_pixels():
    """Clear: no pixel of the arm within 1.25 radii and ``CLEAR_PX`` of the place's image
    centre; a centre off the image (behind the camera) is never clear."""
    gap = np.full((100, 100), 50.0, dtype=np.float32)
    gap[30, 40] = 1.25 * 10 + CLEAR_PX - 0.5
    gap[60, 60] = 1.25 * 10 + CLEAR_PX + 0.5
    reach = Reach((10, 20, 110, 120), 0.5, gap)  # the box's pixel (x, y) is gap[(y - 20) / 2, (x - 10) / 2]
    uv = np.array([[90.0, 80.0], [130.0, 140.0], [np.nan, np.nan], [40.0, 60.0]])
    assert reach.clear(uv, np.full(4, 10.0)).tolist() == [False, True, False, True]


def test_the_arm_lies_over_a_place_it_comes_within_a_radius_of():
    """Over: a pixel of the arm within ``ARM_OVER`` radii of the place's image centre; a
    centre off the image is always under it (nothing there is known clear)."""
    gap = np.full((100, 100), 50.0, dtype=np.float32)
    gap[30, 40] = ARM_OVER * 10 - 0.5
    gap[60, 60] = ARM_OVER * 10 + 0.5
    reach = Reach((10, 20, 110, 120), 0.5, gap)
    uv = np.array([[90.0, 80.0], [130.0, 140.0], [np.nan, np.nan], [40.0, 60.0]])
    assert reach.over(uv, np.full(4, 10.0)).tolist() == [True, False, True, False]
