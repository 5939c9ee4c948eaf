"""Recognition (vision/recognize*.py) on rendered frames: random legal positions, cameras,
light, noise, blur and JPEG. The hard requirement is that no position is ever read as a
definite value that differs from the truth (a confident wrong reading); an uncertain
position is ``?``. Accuracy floors are set a little under what was measured (docs/vision.md).
Hands make the positions they cover unknown; frames without a usable board are all unknown
with an error that says why. 640x480 frames keep the file quick."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from host.cli import main as arbiter
from host.observation import Observation
from vision.geometry import load_board
from vision.recognize import Recognition, RecognitionError, Recognizer, recognize
from vision.recognize_balls import (Reading, Thresholds, alike_below, decide, lookalikes, plate_between, red_through,
                                    settle, unconfirmed, under_a_ball)
from vision.recognize_features import NAMES
from vision.recognize_fellows import dark_in_shade
from vision.recognize_plates import _overshoot_error
from vision.recognize_covered import MarkerLight
from vision.recognize_hands import HandSigns
from vision.pose import Pose, as_grey, complete, detect_with_quads, estimate
from vision.recognize_pyramid import Layout
from vision.recognize_train import (LOOKS, far_colours, frame_in_look, mid_move_position, scenes, seed_game,
                                    varied)
from vision.score import score
from vision.render import Camera, random_hand, render

from test_outline import Blind

PYRAMID = load_board("pyramid-4")
GRID = load_board("grid-9")
SMALL = ((640, 480), (640, 480), (800, 600))


def tally(results: list[tuple[Recognition, dict[str, str]]]) -> Counter:
    """Characters right, wrong (confidently), unknown; boards wholly right; frames with no pose."""
    c: Counter = Counter()
    for result, truth in results:
        if not result.ok:
            c["no_pose"] += 1
            continue
        c["frames"] += 1
        before = c["right"]
        score(result.observation.cells, truth, c)
        c["boards"] += c["right"] - before == sum(len(v) for v in result.observation.cells.values())
    return c


def run_set(board, seed: int, count: int, *, hands: float = 0.0, game: str | None = None):
    recognizers = {g: Recognizer(board, g) for g in board.games}
    out = []
    for sc in scenes(board, random.Random(seed), count, hands=hands, resolutions=SMALL):
        out.append((recognizers[sc.game].read(sc.frame.image), sc.cells))
    return out


@pytest.fixture(scope="module")
def pyramid_set():
    return run_set(PYRAMID, 101, 110)


def test_pyramid_no_confident_wrong_reading(pyramid_set):
    c = tally(pyramid_set)
    assert c["wrong"] == 0, c


def test_pyramid_accuracy(pyramid_set):
    c = tally(pyramid_set)
    read = c["right"] + c["wrong"] + c["unknown"]
    assert c["frames"] >= 0.8 * len(pyramid_set)  # the rest: too few markers decoded
    assert c["right"] / read >= ACCURACY_FLOOR, c
    assert c["boards"] / c["frames"] >= BOARD_FLOOR, c


def test_glare_gives_no_confident_wrong_reading():
    """A lamp straight opposite the camera: the plate, the lacquered Sparks balls and the tiles
    reflect it into the lens (and clip). Glare may leave places unknown, never misread;
    white control plates are not invented from glare."""
    from vision.render_light import glare_lighting

    def glare(camera, rng):
        return glare_lighting(-camera.R.T @ camera.t, rng)  # the lamp mirrors the camera's eye

    for board, seed, count, floor in ((PYRAMID, 7001, 30, 0.5), (GRID, 7002, 16, 0.04)):
        c = tally([(Recognizer(board, sc.game).read(sc.frame.image), sc.cells)
                   for sc in scenes(board, random.Random(seed), count, hands=0.0, resolutions=((800, 600),),
                                    lighting=glare)])
        assert c["frames"] >= 0.9 * count and c["wrong"] == 0, (board.name, c)
        assert c["right"] / (c["right"] + c["unknown"]) >= floor, (board.name, c)


def test_frames_through_a_cheap_webcam_give_no_confident_wrong_reading():
    """Rendered frames put through random webcams' own processing (vision.render_webcam: a
    white balance off, a tone curve, vignetting, saturation, sharpening, JPEG at 25-55),
    which the model never saw: more is unknown, nothing is misread, and a noisy table is
    not taken for an arm reaching in."""
    from vision.render_webcam import Webcam

    for board, seed, count, floor in ((PYRAMID, 7003, 40, WEBCAM_FLOOR), (GRID, 7004, 16, WEBCAM_GRID_FLOOR)):
        recognizers = {g: Recognizer(board, g) for g in board.games}
        results, arms = [], 0
        for k, sc in enumerate(scenes(board, random.Random(seed), count, hands=0.0, resolutions=SMALL)):
            result = recognizers[sc.game].read(Webcam.random(random.Random(k)).apply(sc.frame.image))
            results.append((result, sc.cells))
            arms += result.hand
        c = tally(results)
        assert c["frames"] >= 0.8 * count and c["wrong"] == 0, (board.name, c)
        assert c["right"] / (c["right"] + c["unknown"]) >= floor, (board.name, c)
        assert arms <= 0.1 * count, (board.name, arms)


@pytest.mark.parametrize("seed,name,not_read,whole", [
    (2800750, "", "", True),       # OpenCV's contour refinement failed an assertion on this frame
    (2800833, "1a2", "D", True),   # light wooden balls redder than the plate, in shade, read stained
    (2802054, "1b3", "D", True),
    # a red level-3 ball read empty, confirmed by two red balls under it whose own readings
    # were then withdrawn as maybe the balls below; (its black balls, (55, 10, 10), are dark
    # red and read red: not a frame to read whole)
    (2801007, "3a2", ".", False),
])
def test_frames_with_colours_far_from_the_defaults(seed, name, not_read, whole):
    """Frames whose ball and plate colours were moved up to 25 and 35 sRGB levels from the
    defaults (no threshold was chosen on such frames) that were once misread, or crashed."""
    sc = next(scenes(PYRAMID, random.Random(seed), 1, hands=0.35, vary=lambda b, rng: varied(b, rng, (25, 35))))
    result = Recognizer(PYRAMID, sc.game).read(sc.frame.image)
    assert result.ok
    if name:
        assert result.observation.cells[name] != not_read
    if whole:
        assert tally([(result, sc.cells)])["wrong"] == 0


def test_far_colours_move_each_colour_by_its_brightness():
    """The benchmark's far-colour frames: light wood may move 22 levels a channel, black
    only 3 (25 levels a channel made black balls dark red, which nothing can tell from a
    red ball in shadow)."""
    rng = random.Random(5)
    moved = {k: 0 for k in PYRAMID.colours} | {"plate": 0}
    for _ in range(300):
        b = far_colours(PYRAMID, rng)
        for k, c in b.colours.items():
            moved[k] = max(moved[k], *(abs(x - y) for x, y in zip(c, PYRAMID.colours[k])))
        moved["plate"] = max(moved["plate"], *(abs(x - y) for x, y in zip(b.plate_colour, PYRAMID.plate_colour)))
    assert moved["B"] == 3 and moved["L"] == 22 and moved["W"] == 24 and moved["plate"] == 30, moved


def test_a_hand_over_tiles_through_a_saturating_webcam_is_not_tiles():
    """Frame 1100050 through its random webcam (saturation 1.46, an S-curve): the skin of
    the hand over the tiles, judged against the plate's margin (the wood round those cells
    is covered too), passed for red tiles. A tile must differ from the wood round it."""
    sc, image = frame_in_look(GRID, 1100050, "webcam")
    result = Recognizer(GRID, sc.game).read(image)
    covered = [n for n, t in sc.frame.truth.items() if t.hand and t.covered >= 0.5]
    assert len(covered) >= 5
    assert all(result.observation.cells[n] == "??" for n in covered)
    assert tally([(result, sc.cells)])["wrong"] == 0


def test_a_sharpened_red_tiles_spill_is_not_glare_on_a_white_plate():
    """Frame 1100086 through its random webcam (sharpening 1.26, saturation 1.33): round a
    red tile on bare wood the sharpening lifted the tile's red over the border brighter
    than the wood, and those samples were taken for glare on a white plate. Glare is white:
    no darker than the wood in green."""
    sc, image = frame_in_look(GRID, 1100086, "webcam")
    assert sc.cells["b3"] == "R."
    result = Recognizer(GRID, sc.game).read(image)
    assert result.observation.cells["b3"] in ("R.", "R?")
    assert tally([(result, sc.cells)])["wrong"] == 0


@pytest.mark.parametrize("seed", [4200378, 4200422])
def test_a_webcams_sharpening_overshoot_beside_a_tile_is_not_a_white_plate(seed):
    """Fresh frames through their random webcams (4200378: gamma 0.76, sharpening 1.23;
    4200422: the overshoot clipped in red): the wood right beside a tile, pushed away from
    the tile's colour, passed the glare test and bare borders were read as white plates
    (nine and six of them). Those glare samples fit the overshoot far better than a white
    plate and do not vote."""
    sc, image = frame_in_look(GRID, seed, "webcam")
    result = Recognizer(GRID, sc.game).read(image)
    bare = [n for n, code in sc.cells.items() if code[1] == "."]
    assert len(bare) > 10
    assert all(result.observation.cells[n][1] in ".?" for n in bare)
    assert tally([(result, sc.cells)])["wrong"] == 0


def test_the_overshoot_is_the_wood_pushed_away_from_the_tile():
    """``_overshoot_error`` is near 0 for the wood pushed away from the tile's colour, light
    within 15 % and clipped where the camera clips, and not for a white plate's colour."""
    ref = np.array([[0.45, 0.44, 0.14]] * 3)
    tile = np.array([[0.02, 0.05, 0.31]] * 3)
    white = ref[0] * np.array([1.3, 1.8, 3.2])
    pushed = [np.clip(s * (ref[0] + c * (ref[0] - tile[0])), 0.0, 1.0) for s, c in ((1.1, 0.5), (1.15, 0.8))]
    ring = np.array(pushed + [white])
    err = _overshoot_error(ring, tile, ref)
    assert err[0] < 0.02 and err[1] < 0.02
    assert err[2] > 0.2


def test_a_frame_in_each_look_is_the_benchmarks():
    """``frame_in_look`` renders the random sets' frames as the benchmark reads them: one
    position in every look; the seed's own camera, put through its webcam, lit by a soft
    light, its wooden balls grained or a moving hand over it; far colours drawn in place
    of the usual ones."""
    shots = {look: frame_in_look(PYRAMID, 2600005, look) for look in LOOKS}
    plain, image = shots["plain"]
    assert image is plain.frame.image
    assert all(sc.cells == plain.cells and sc.game == plain.game for sc, _ in shots.values())
    corners = np.array([m.centre + (0.0,) for m in PYRAMID.markers])
    for look in ("webcam", "soft-light", "cast-drift", "shadow", "grain", "motion"):
        sc, shot = shots[look]
        assert np.array_equal(sc.frame.camera.project(corners), plain.frame.camera.project(corners))
        assert shot.shape == image.shape
        diff = np.abs(shot.astype(int) - image.astype(int))
        if look == "grain":  # the five wooden balls of this Pylos frame, and nothing else
            changed = (diff.max(axis=2) > 2).sum()
            assert 300 < changed < 5 * plain.frame.truth["1a1"].area, changed
        else:
            assert diff.mean() > 0.5, look
    assert shots["far-colour"][0].seen_board.colours != plain.seen_board.colours
    assert len(shots["motion"][0].settings["hands"]) == 1 and "hand_travel" not in plain.settings
    assert 10 <= np.linalg.norm(shots["motion"][0].settings["hand_travel"]) <= 60
    with pytest.raises(ValueError, match="no look 'sunny'"):
        frame_in_look(PYRAMID, 2600005, "sunny")
    # a pyramid has no pieces put down by hand: its placed look is its plain frame
    assert np.array_equal(shots["placed"][1], image) and "placed" not in shots["placed"][0].settings


def test_the_placed_look_puts_a_grids_pieces_down_off_true_and_changes_nothing_else():
    plain, image = frame_in_look(GRID, 1100003, "plain")
    placed, shot = frame_in_look(GRID, 1100003, "placed")
    assert placed.cells == plain.cells
    corners = np.array([m.centre + (0.0,) for m in GRID.markers])
    assert np.array_equal(placed.frame.camera.project(corners), plain.frame.camera.project(corners))
    where = placed.settings["placed"]
    assert set(where) == {p.name for p in GRID.positions} and "placed" not in plain.settings
    assert any(w.tile[2] != 0 for w in where.values())
    diff = np.abs(shot.astype(int) - image.astype(int)).max(axis=2) > 2
    assert 0.005 < diff.mean() < 0.5  # the pieces' edges moved; the table, the markers and the noise did not


def test_mid_move_frames_show_sparks_balls_on_empty_hollows():
    """No legal Sparks position leaves a base hollow empty, so the random sets never show
    one; the benchmark's mid-move row does, with Sparks balls on Pylos positions. Frames of
    Pylos stay as they are."""
    rng = random.Random(7)
    cells = [mid_move_position("sparks", rng, rng.randint(0, 40)) for _ in range(20)]
    base = [c for c in cells if any(n.startswith("1") and v == "." for n, v in c.items())]
    assert len(base) >= 10
    assert {v for c in cells for v in c.values()} <= set("WBR.")
    assert {v for c in cells for v in c.values()} >= set("WBR")
    sparks = next(s for s in range(5_000_000, 5_000_020)
                  if frame_in_look(PYRAMID, s, mid_move=True)[0].game == "sparks")
    moving, _ = frame_in_look(PYRAMID, sparks, mid_move=True)
    assert any(moving.cells[n] == "." for n in moving.cells if n.startswith("1"))
    assert frame_in_look(PYRAMID, 5_000_001, mid_move=True)[0].game == "pylos"  # as rendered in the benchmark
    assert all(seed_game(PYRAMID, s) == frame_in_look(PYRAMID, s, mid_move=True)[0].game
               for s in range(5_000_000, 5_000_006))  # the benchmark skips Pylos seeds unrendered
    assert frame_in_look(PYRAMID, 5_000_001, mid_move=True)[0].cells == frame_in_look(PYRAMID, 5_000_001)[0].cells


def test_hands_make_covered_positions_unknown():
    """Hands low over the board: every position a hand covers (half of it or more) is
    ``?``, and nothing is read wrong."""
    rng = random.Random(202)
    recs = {g: Recognizer(PYRAMID, g) for g in PYRAMID.games}
    covered = unknown = 0
    results = []
    for sc in scenes(PYRAMID, rng, 30, hands=1.0, resolutions=SMALL):
        result = recs[sc.game].read(sc.frame.image)
        results.append((result, sc.cells))
        if not result.ok:
            continue
        for name, truth in sc.frame.truth.items():
            if truth.hand and truth.covered >= 0.5:
                covered += 1
                unknown += result.observation.cells[name] == "?"
    assert tally(results)["wrong"] == 0
    assert covered >= 30
    assert unknown == covered


def test_a_hand_over_an_empty_board_is_not_balls():
    cam = Camera.look_at((0, -150, 480), (0, 0, 0), 60, 640, 480)
    rec = Recognizer(PYRAMID, "pylos")
    for k in range(6):
        rng = random.Random(300 + k)
        hand = random_hand(PYRAMID, rng, over=(rng.uniform(-40, 40), rng.uniform(-40, 40)), height_mm=(20, 60))
        frame = render(PYRAMID, {}, cam, hands=[hand], rng=rng, noise=1.5, blur=0.5)
        cells = rec.read(frame.image).observation.cells
        assert set(cells.values()) <= {".", "?"}


def test_grid_tiles_and_controllers():
    results = run_set(GRID, 404, 30)
    c = tally(results)
    assert c["wrong"] == 0, c
    assert c["right"] / (c["right"] + c["unknown"]) >= GRID_FLOOR, c


def three_markers(image: np.ndarray) -> Pose:
    """The pose from markers 1, 2 and 3 of a frame that decodes 1 and 3 only: what such a
    frame gave before each marker found from the layout refined the search for the next
    (which now finds 0 too)."""
    grey = as_grey(image)
    found, quads = detect_with_quads(grey, PYRAMID.dictionary, want={0, 1, 2, 3})
    completed = complete(found, quads, PYRAMID, grey)
    assert set(found) == {1, 3} and set(completed) == {0, 1, 2, 3}
    return estimate({i: completed[i] for i in (1, 2, 3)}, PYRAMID, (grey.shape[1], grey.shape[0]), rough={2})


def test_a_loosely_pinned_pose_leaves_the_upper_balls_unknown():
    """Three small markers seen square on, one of them undecoded: the focal length is a
    guess and the apex ball's image may be far from where the pose puts it (here half its
    radius; 0.6 before undecoded markers could weigh less). Before the pose's spread was
    checked, the whole pyramid was read as empty. (The fourth marker is now found from the
    other three, 1 px off at the apex; the test builds the three-marker pose itself.)"""
    sc = next(scenes(PYRAMID, random.Random(600046), 1, hands=0.35))
    result = Recognizer(PYRAMID, sc.game).read(sc.frame.image, pose=three_markers(sc.frame.image))
    apex = np.array([PYRAMID.position("4a1").centre])
    error = float(np.linalg.norm(result.pose.project(apex) - sc.frame.camera.project(apex)))
    assert len(result.pose.markers) == 3 and error > 5.0
    assert result.observation.cells["4a1"] == "?" and "markers pin" in result.details["4a1"]
    assert tally([(result, sc.cells)])["wrong"] == 0


def test_an_empty_hollow_needs_a_tighter_pose_than_a_ball():
    """Seed 3600412 with far colours: three small markers (the fourth undecoded) and a
    guessed focal length put the base balls 0.19-0.21 of a radius from where the pose has
    them, 1.7 times its spread. Two light wooden balls of the plate's tint, their shading
    off-centre and a rim of plate among their samples, were read empty at P(empty) 1.00,
    and the four balls above them were emptied by the support rules. (Marker 0 is now
    found from the other three, so the test builds the three-marker pose itself.)"""
    sc, image = frame_in_look(PYRAMID, 3600412, "far-colour")
    result = Recognizer(PYRAMID, sc.game).read(image, pose=three_markers(image))
    assert len(result.pose.markers) == 3 and result.pose.focal_source == "default"
    for name in ("1b4", "1c4"):
        assert sc.cells[name] == "L" and result.observation.cells[name] == "?"
        assert "markers pin this hollow" in result.details[name]
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


@pytest.mark.parametrize("board, seed, name, not_read", [
    (PYRAMID, 602281, "1c3", "R"),  # a small black ball among red ones, tinged red by JPEG
    (PYRAMID, 602757, "1b2", "R"),
    (PYRAMID, 600422, "1b2", "D"),  # a light wooden ball deep in shadow
    (PYRAMID, 601428, "1d1", "L"),  # a stained ball in bright light
    (GRID, 900969, "e1", "Gw"),     # a black plate, lit, that is grey: not a white one in shadow
    (GRID, 900406, "b5", "B."),     # markers that pin the pose down too loosely for the border
    (PYRAMID, 600358, "1c2", "L"),  # a sliver of an empty hollow between balls
    (PYRAMID, 600739, "1d4", "W"),  # a sliver of a black ball behind a white one
    (PYRAMID, 601604, "1b3", "B"),  # a sliver of a white ball behind black ones
    (GRID, 700437, "b2", "B."),     # a black plate taken for bare wood lit brighter than its wood
    (GRID, 900366, "g3", "B."),     # a black plate in warm light, dark all round: not wood in shade
    (GRID, 700895, "i6", "B."),     # a white plate tinted by the blur, brighter than its wood
    (GRID, 700635, "c4", "Gw"),     # lit bare wood beside shaded narrow wood: not glare on white
    (GRID, 1100306, "c8", "G."),    # a white plate brighter than its wood, not than the open plate
    (PYRAMID, 600562, "2c3", "L"),  # an empty level-2 place in line with a light ball behind it
    (PYRAMID, 601329, "2a2", "L"),
    (PYRAMID, 1200042, "2a3", "W"),  # ... a white one (guards lookalikes; the two above pass without it)
    (PYRAMID, 1200684, "1b3", "L"),  # 38 % in view of an empty hollow: not a light wooden ball
    (PYRAMID, 1401133, "1d1", "."),  # a light wooden ball in shadow: P(empty) 0.9955, not enough
    (PYRAMID, 1401279, "1c1", "."),  # the same, 0.9968
    (PYRAMID, 1501051, "2c2", "R"),  # an empty level-2 place before a red ball, black ones beside it
    (PYRAMID, 1502480, "2c2", "R"),  # ... the red ball hidden from its own reading by the place
    (PYRAMID, 1501924, "2b1", "."),  # a light ball in shadow over four unknown places
    (PYRAMID, 1502383, "2a2", "."),
    (PYRAMID, 1600577, "2b2", "."),  # ... a black one
    (PYRAMID, 1601856, "2b2", "."),
    (PYRAMID, 1602010, "3a2", "."),
    (PYRAMID, 1602389, "4a1", "."),  # a black ball showing the white ball under it as black
    (PYRAMID, 1701182, "1b3", "L"),  # an empty hollow shaded by its neighbours, 53 % in view
    (PYRAMID, 1801194, "1c4", "L"),  # ... at P(ball) 0.9953, 40 % in view
    (PYRAMID, 1802700, "1b3", "L"),  # ... at 0.9968, 66 % in view
    (PYRAMID, 1600488, "2b1", "R"),  # an empty level-2 place over red balls, at P(ball) 0.9935
    (PYRAMID, 1600753, "2b2", "B"),  # ... over the dark gap and a black ball, at 0.9946
    (PYRAMID, 1602639, "2b1", "W"),  # ... over a white ball hidden by the place, at 0.9922
    (PYRAMID, 1901228, "2a3", "R"),  # ... before a red ball, at 0.9982
    (PYRAMID, 1902189, "2a3", "D"),  # ... right before a dark wooden ball, at 0.9933
    (PYRAMID, 2000163, "1b4", "."),  # a light wooden ball in a neighbour's shadow, at P(empty) 1.00
    (PYRAMID, 2001241, "1a1", "."),
    (PYRAMID, 2002896, "1d1", "."),  # ... and the two resting on it
    (PYRAMID, 2102006, "1d2", "R"),  # a black ball 5 px across among red ones, red 0.76 at level -3.92
    (PYRAMID, 2300374, "1c2", "B"),  # a white base ball under three others, in shade: level -3.62
    (PYRAMID, 2402211, "1d4", "."),  # a light wooden ball deep in a neighbour's shadow, the plate's 0.76
    (PYRAMID, 2102585, "2b1", "."),  # a hand's shadow across a marker found undecoded: the pose 6 px off
    (PYRAMID, 2201145, "2c2", "."),  # a red level-2 ball read empty, confirmed by the red one below
    (PYRAMID, 2501160, "1c4", "."),  # a light wooden ball in a light shade (-0.64), and three on it
    (PYRAMID, 2700974, "2b3", "R"),  # an empty level-2 place right before a red base ball, at P(ball) 0.9995
    (PYRAMID, 2401053, "1b3", "L"),  # an empty hollow ringed by balls, the plate's colour, at P(ball) 1.00
    (PYRAMID, 2402437, "1b2", "L"),  # ... where the light wooden balls are pinker than the plate
    (PYRAMID, 3001416, "1c3", "L"),
    (PYRAMID, 2700029, "1a4", "L"),  # a stained ball in low light, darker and redder than the light ones
    (PYRAMID, 2502514, "3a1", "."),  # a light wooden ball lit from the side, confirmed by one sample below
])
def test_frames_once_misread(board, seed, name, not_read):
    """Frames from the random sets (benchmarks/bench_vision_random.py) where a position
    was once read confidently wrong; the whole frame must now have no wrong reading."""
    sc = next(scenes(board, random.Random(seed), 1, hands=0.35))
    result = Recognizer(board, sc.game).read(sc.frame.image)
    assert result.observation.cells[name] != not_read
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


def test_a_frame_under_a_soft_bouncing_light_once_misread():
    """Seed 2600211 under a soft light bouncing off the plate (the benchmark's soft-light
    rows): a white level-2 ball tinted by the plate was read empty at P(empty) 1.00, and
    the red ball below it, read white from the white ball's own pixels, confirmed it; the
    three balls resting on it were emptied. The ball below must look as read beside the
    place (``unconfirmed``), and a ball read through a place later doubted must look so
    elsewhere (``beneath_doubt``)."""
    sc, image = frame_in_look(PYRAMID, 2600211, "soft-light")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells["2b1"] == "W" and result.observation.cells["2b1"] != "."
    assert sc.cells["1b2"] == "R" and result.observation.cells["1b2"] != "W"
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


def test_the_places_resting_on_each_are_its_supports_turned_round():
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    assert [layout.names[k] for k in layout.resting[index["1a1"]]] == ["2a1"]
    assert [layout.names[k] for k in layout.resting[index["1b2"]]] == ["2a1", "2b1", "2a2", "2b2"]
    assert [layout.names[k] for k in layout.resting[index["3a1"]]] == ["4a1"]
    assert layout.resting[index["4a1"]] == ()
    assert all((k in layout.resting[i]) == (i in layout.supports[k])
               for i in range(len(layout.names)) for k in range(len(layout.names)))


def test_support_rules():
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    r = {i: Reading("?", "x") for i in range(len(layout.names))}
    r[index["1a1"]] = Reading(".", "seen empty")
    r[index["2a1"]] = Reading("W", "seen")  # over an empty support: both unknown
    r[index["1d4"]] = Reading(".", "seen empty")
    out = settle(layout, r, "WBR")
    assert out[index["2a1"]].code == "?" and out[index["1a1"]].code == "?"
    assert out[index["2c3"]].code == "."  # rests on 1d4, which is empty
    assert out[index["3b2"]].code == "."  # rests on 2c3
    assert out[index["4a1"]].code == "."
    # a ball resting on places that are unknown only for being seen too little is read;
    # on a place the model was unsure of, it is not
    r = {i: Reading("B", "seen") for i in range(len(layout.names)) if layout.levels[i] == 1}
    r |= {i: Reading(".", "seen empty") for i in range(len(layout.names)) if layout.levels[i] > 1}
    r[index["1a1"]] = Reading("?", "ball?, a sliver", glimpsed=True)
    r[index["2a1"]] = Reading("W", "seen")
    r[index["1c1"]] = Reading("?", "unsure")
    r[index["2b1"]] = Reading("W", "seen")
    out = settle(layout, r, "WBR")
    assert out[index["2a1"]].code == "W" and out[index["2b1"]].code == "?"


def test_the_support_rules_read_no_place_under_the_arm_empty():
    """A place the arm lies over stays ``?`` over a support read empty: a place a hand
    covers is unknown (issue 4). One beside the arm is read empty, and so is what rests on
    it; a contradiction under the arm is still one."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    r = {i: Reading("?", "x") for i in range(len(layout.names))}
    r[index["1d4"]] = Reading(".", "seen empty")  # under 2c3, which rests under 3b2 and 4a1
    under_arm = np.zeros(len(layout.names), dtype=bool)
    under_arm[index["3b2"]] = True
    out = settle(layout, r, "WBR", under_arm)
    assert out[index["2c3"]].code == "."
    assert out[index["3b2"]].code == "?" and out[index["4a1"]].code == "?"
    assert settle(layout, r, "WBR")[index["3b2"]].code == "."  # no arm: read empty
    r[index["2c3"]] = Reading("W", "seen")  # a ball over the empty hollow: both unknown, under the arm too
    under_arm[index["2c3"]] = True
    out = settle(layout, r, "WBR", under_arm)
    assert out[index["2c3"]].code == "?" and out[index["1d4"]].code == "?"


def test_a_ball_resting_on_balls_seen_is_read_though_a_support_of_theirs_is_not():
    """A ball seen over supports seen as balls is read even where one of those is ``?``
    only for a support of its own not seen: that support is seen, and a ball resting on it
    says it is there. Not over a contradiction: a ball over an empty-looking place leaves
    unknown what rests on it, however high."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    every = {i: Reading("B", "seen") for i in range(len(layout.names))}
    r = every | {index["1c1"]: Reading("?", "unsure")}  # under 2b1 and 2c1
    out = settle(layout, r, "WBR")
    assert out[index["2b1"]].code == "?" and out[index["2c1"]].code == "?"
    assert "a support is not seen" in out[index["2b1"]].why
    assert out[index["3a1"]].code == "B"  # on 2a1, 2b1, 2a2, 2b2: seen as balls
    assert out[index["3b1"]].code == "B"  # on 2b1, 2c1, 2b2, 2c2
    assert out[index["4a1"]].code == "B"
    r = every | {index["1d4"]: Reading(".", "seen empty")}  # under 2c3, a ball seen: both ?
    out = settle(layout, r, "WBR")
    assert out[index["2c3"]].code == "?" and out[index["1d4"]].code == "?"
    assert out[index["3b2"]].code == "?"  # on 2c3
    assert out[index["4a1"]].code == "?"  # on 3b2, over the contradiction
    assert out[index["3a1"]].code == "B"


def test_a_ball_resting_on_a_ball_of_unclear_colour_is_read():
    """A support ``?`` only for its colour, the model sure of a ball there, is a ball: one
    resting on it is read (``Reading.colour_only``). Not where the model was less sure (a
    ball read black at ``dark_ball`` and then doubted for its colour may be no ball), nor
    over a contradiction, which it passes on."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    every = {i: Reading("B", "seen", (0.0, 1.0, 0.0)) for i in range(len(layout.names))}
    x = np.zeros(len(NAMES))
    x[0], x[1], x[3], x[10] = 0.9, 0.5, 0.9, 0.2
    unclear = decide(np.array([0.0, 1.0, 0.0]), {}, np.array([-1.64, -1.0, 0.0, 0.0, 0.21, 0.0]), x, 40, 1, "WBR",
                     Thresholds())
    assert unclear.code == "?" and "colour unclear" in unclear.why and unclear.colour_only
    out = settle(layout, every | {index["1a1"]: unclear}, "WBR")
    assert out[index["2a1"]].code == "B" and out[index["1a1"]].code == "?"
    assert settle(layout, every | {index["1a1"]: Reading("?", "unsure")}, "WBR")[index["2a1"]].code == "?"
    # a black ball as light as a white one in the plate's shade: black or white, a ball
    black = Reading("B", "seen", (0.0, 0.995, 0.005), colour=(-3.6, -2.6, 0.0, 0.0, 0.3, 0.0))
    doubted = dark_in_shade({0: black}, -3.3, Thresholds())[0]
    assert doubted.code == "?" and doubted.colour_only
    doubted = dark_in_shade({0: replace(black, p=(0.05, 0.95, 0.0))}, -3.3, Thresholds())[0]
    assert doubted.code == "?" and not doubted.colour_only
    # over a ball seen on a place read empty, a ball of unclear colour passes the doubt on
    r = every | {index["1d4"]: Reading(".", "seen empty"), index["3b2"]: unclear}  # 3b2 on 2c3, on 1d4
    out = settle(layout, r, "WBR")
    assert out[index["2c3"]].code == "?" and out[index["3b2"]].code == "?" and not out[index["3b2"]].colour_only
    assert out[index["4a1"]].code == "?"


def test_balls_on_a_ball_of_unclear_colour_are_read_in_a_frame():
    """Seed 1100007 (Sparks, plain): the white base ball 1b4 is ``?`` for its colour at
    P(ball) 1.00. The red 2a3 resting on it, the red 3a2 on that, and the white 4a1 on top
    were all ``?`` by the support rules; they are read now, and nothing is read wrong."""
    sc, image = frame_in_look(PYRAMID, 1100007, "plain")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert result.observation.cells["1b4"] == "?" and "colour unclear" in result.details["1b4"]
    assert [result.observation.cells[n] for n in ("2a3", "3a2", "4a1")] == ["R", "R", "W"]
    assert [sc.cells[n] for n in ("2a3", "3a2", "4a1")] == ["R", "R", "W"]
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


def test_a_ball_above_the_base_must_show_half_of_itself():
    """Less than that, it may be the balls under it showing through: ``?``, and a ball
    resting on it is not doubted for that (``glimpsed``)."""
    black = np.array([-4.0, -3.5, 0.0, 0.0, 0.2, 0.0])  # level, q90, rg, bg, red, outside

    def read(share: float, level: int) -> Reading:
        x = np.zeros(len(NAMES))
        x[0], x[3] = share, 0.9
        return decide(np.array([0.0, 1.0, 0.0]), {}, black, x, 40, level, "WBR", Thresholds())

    assert read(0.55, 2).code == "B" and read(0.55, 3).code == "B"
    low = read(0.45, 2)
    assert low.code == "?" and "too little of it in view (45%)" in low.why and low.glimpsed
    assert read(0.2, 1).code == "B"  # on the base, slivers are judged by their neighbours


def test_a_light_wooden_base_ball_seen_little_needs_a_surer_model():
    """An empty hollow shaded by the balls around it can look like the plate's own wood
    shaped as a ball (frame 1701182 in test_frames_once_misread shows it)."""
    wood = np.array([-0.3, 0.2, 0.0, 0.0, 0.38, 0.0])  # level, q90, rg, bg, red, outside

    def read(share: float, p_ball: float, letters: str = "LD", colour: np.ndarray = wood) -> Reading:
        x = np.zeros(len(NAMES))
        x[0], x[1], x[3], x[10] = share, 0.6, 0.9, 0.5  # seen, shaded like a ball
        return decide(np.array([1.0 - p_ball, p_ball, 0.0]), {}, colour, x, 40, 1, letters, Thresholds())

    doubted = read(0.53, 0.990)
    assert doubted.code == "?" and "may be the hollow" in doubted.why and doubted.glimpsed
    assert read(0.53, 0.999).code == "L" and read(0.75, 0.990).code == "L"
    dark = np.array([-3.0, -2.5, 0.0, 0.0, 0.55, 0.0])
    assert read(0.53, 0.990, colour=dark).code == "D"  # a stained ball is not the plate's wood


def test_a_stained_ball_is_read_at_stained_ball():
    """Glossy stained wood, path traced, left the model at P(ball) 0.9-0.99 on 2,593 balls
    of the study sets whose colour read plainly stained. They are read so from
    ``stained_ball``, on every level; :func:`odd_wood` then holds them to the frame's surer
    stained balls, and above the base :func:`alike_below` asks whether the place may be the
    balls below seen through it."""
    dark = np.array([-2.4, -1.8, 0.3, -0.2, 0.43, -2.0])  # level, q90, rg, bg, red, outside

    def read(p_ball: float, level: int = 1, share: float = 0.9, th: Thresholds = Thresholds()) -> Reading:
        x = np.zeros(len(NAMES))
        x[0], x[1], x[3], x[10] = share, 0.6, 0.6, 0.2
        return decide(np.array([1.0 - p_ball, p_ball, 0.0]), {}, dark, x, 40, level, "LD", th)

    assert read(0.95).code == "D" and read(0.91).code == "D"
    assert read(0.85).code == "?"  # 0.8 for a day read an empty hollow in shade stained (9100135 1c4)
    assert read(0.95, level=2).code == "D" and read(0.91, level=3).code == "D"
    assert read(0.95, level=2, share=0.45).why == "unsure"  # too little of it seen above the base
    assert read(0.95, th=replace(Thresholds(), stained_ball=0.99)).code == "?"
    light = np.array([-1.0, -0.5, 0.1, -0.2, 0.40, -1.0])  # light wood's band: not stained
    x = np.zeros(len(NAMES))
    x[0], x[1], x[3], x[10] = 0.9, 0.6, 0.6, 0.2
    assert decide(np.array([0.05, 0.95, 0.0]), {}, light, x, 40, 1, "LD", Thresholds()).code != "D"


def test_a_light_wooden_ball_with_no_outline_in_deep_shade_must_be_shaded_as_a_sphere():
    """With no contrast across its outline, only the shading tells a light wooden ball from
    the plate, and in a neighbour's deep shadow the edges of cast shadows shade a place too:
    an empty hollow so crossed (fresh 4800114 through a webcam: outline 0.07, foot -1.36,
    fit 0.72) is not shaded as a sphere is."""
    wood = np.array([-0.4, -0.02, 0.02, 0.12, 0.33, -0.28])  # level, q90, rg, bg, red, outside

    def read(outline: float, fit: float, foot: float = -1.36) -> Reading:
        x = np.zeros(len(NAMES))
        x[0], x[1], x[3], x[10], x[11], x[14] = 0.71, 1.53, fit, 0.82, outline, foot
        return decide(np.array([0.0, 1.0, 0.0]), {}, wood, x, 40, 1, "LD", Thresholds())

    doubted = read(0.07, 0.72)
    assert doubted.code == "?" and "no outline against the plate" in doubted.why
    assert read(0.07, 0.95).code == "L"   # shaded as a sphere: a ball of the plate's wood
    assert read(0.3, 0.72).code == "L"    # an outline: the plate ends there
    assert read(0.07, 0.72, foot=-0.7).code == "L"  # lit round its foot: no shadow edges to mimic shading
    assert read(0.0, 0.72).code == "L"    # no outline measured (too few samples): not judged


def test_an_empty_place_in_shadow_with_the_plates_colour_is_unknown_where_light_wood_is_played():
    """Lit by the sky alone, a light wooden ball in a neighbour's shadow has the plate's
    colour and barely any shading (frames 2000163, 2001241, 2002896 and 2501160 in
    test_frames_once_misread show it)."""
    def read(level: float, plate_share: float, letters: str = "LD", p_empty: float = 1.0) -> Reading:
        x = np.zeros(len(NAMES))
        x[0], x[4], x[7] = 0.9, level, plate_share
        return decide(np.array([p_empty, 1.0 - p_empty, 0.0]), {}, np.zeros(6), x, 40, 1, letters, Thresholds())

    doubted = read(-1.0, 0.95)
    assert doubted.code == "?" and "in shadow" in doubted.why
    assert read(-0.3, 0.95).code == "."   # lit: a ball would show its shading
    assert read(-0.64, 0.93).code == "?"  # a light shade (frame 2501160)
    assert read(-0.55, 0.93).code == "."
    assert read(-1.0, 0.7).code == "."    # not the plate's colour all over
    assert read(-2.1, 0.7).code == "?"    # ... deeper in shadow, where the darkest samples have no colour
    assert read(-2.1, 0.5).code == "."
    # between the two, the share asked falls in a straight line (fresh 4600987: 2c3 at -1.12
    # with 78 % and 1d3 at -1.39 with 67 %, light wooden balls read empty)
    assert read(-1.12, 0.78).code == "?" and read(-1.2, 0.75).code == "?"
    assert read(-1.12, 0.72).code == "." and read(-1.5, 0.66).code == "."
    assert read(-1.0, 0.95, "WBR").code == "."  # no ball of the plate's wood in Sparks
    # from P(empty) ``tinted_empty`` where light wood is played (its tint is asked after:
    # wood_in_hollow), the same shadow rule with it; in Sparks ``base_empty`` still
    assert read(-0.3, 0.95, p_empty=0.95).code == "." and read(-0.3, 0.95, p_empty=0.85).code == "?"
    assert read(-1.0, 0.95, p_empty=0.95).code == "?"
    assert read(-0.3, 0.95, "WBR", p_empty=0.95).why == "unsure"
    # ... but not a hollow darker than ``tinted_level``: a tint does not tell stained wood
    # (fresh path traced 7800379 1a2, a stained ball at -2.34 read empty at P(empty) 0.938)
    dark = read(-2.3, 0.5, p_empty=0.95)
    assert dark.code == "?" and "too dark (-2.30) for its tint" in dark.why, dark.why
    assert read(-1.4, 0.5, p_empty=0.95).code == "."  # lighter than -1.5: the tint may tell
    assert read(-2.3, 0.5).code == "."                # at ``base_empty`` the model is trusted
    assert read(-2.3, 0.5, "WBR", p_empty=0.95).why == "unsure"


def test_levels_3_and_4_read_empty_from_a_lower_p_empty_than_levels_1_and_2():
    """A ``?`` on level 3 or 4 hides the level below from its own reading, and balls there
    the model leans to empty are doubted by the rules after it; a level-2 place read empty
    uncovers base hollows, among balls, that read light wood (docs/vision.md, "Empty above
    level 2 from P(empty) 0.95")."""
    def read(p_empty: float, level: int) -> str:
        x = np.zeros(len(NAMES))
        x[0], x[4] = 0.9, -0.3
        return decide(np.array([p_empty, 1.0 - p_empty, 0.0]), {}, np.zeros(6), x, 40, level, "WBR",
                      Thresholds()).code

    assert [read(0.96, level) for level in (1, 2, 3, 4)] == ["?", "?", ".", "."]
    assert [read(0.94, level) for level in (1, 2, 3, 4)] == ["?", "?", "?", "?"]
    assert [read(0.995, level) for level in (1, 2, 3, 4)] == ["?", ".", ".", "."]
    assert [Thresholds().empty_at(level) for level in (1, 2, 3, 4)] == [0.997, 0.99, 0.95, 0.95]


def test_an_empty_hollow_in_shadow_under_a_likely_ball_is_unknown():
    """A light ball under others is shaded on top by them and, under a bouncing light, takes
    the plate's colour: an empty reading of a base hollow in shadow with the plate's colour
    is unknown where a place resting on it leans to a ball, in any game (nothing rests on an
    empty hollow). A place seen too little to be read says nothing either way."""
    layout = Layout.of(PYRAMID)
    index = {name: i for i, name in enumerate(layout.names)}
    hollow, above = index["1a1"], index["2a1"]

    def read(level: float, plate_share: float, p_ball: float, glimpsed: bool = False) -> str:
        x = np.zeros(len(NAMES))
        x[4], x[7] = level, plate_share
        readings = {above: Reading("?", "unsure", (1.0 - p_ball, p_ball, 0.0), glimpsed=glimpsed)}
        readings |= {k: Reading(".", "empty", (1.0, 0.0, 0.0)) for k in layout.resting[hollow] if k != above}
        return under_a_ball(layout, readings, hollow, Reading(".", "empty", (1.0, 0.0, 0.0)), x, Thresholds()).code

    assert read(-1.17, 0.62, 0.97) == "?"   # 5000075: light wood, under a stained ball
    assert read(-1.78, 0.71, 0.99) == "?"   # 4300509: a white ball on a pale plate
    assert read(-0.59, 1.0, 0.998) == "?"   # 5300779: light wood in a soft light, barely shaded
    assert read(-0.41, 0.8, 0.99) == "."    # lit: a ball would show its shading
    assert read(-1.78, 0.4, 0.99) == "."    # not the plate's colour
    assert read(-1.78, 0.71, 0.8) == "."    # nothing leaning on it
    assert read(-1.78, 0.71, 0.99, glimpsed=True) == "."  # too little of it in view to say


def test_a_light_wooden_base_ball_shaped_as_one_is_read_at_shaped_ball():
    """Path traced, light wooden base balls were left ``unsure`` at P(ball) 0.7-0.9 by the
    hundred. One seen nearly whole, shaded and brighter in the middle as a sphere is,
    outlined, its foot's ring in view and its tint off the plate's is read from
    ``shaped_ball``; an empty hollow ringed by balls, seen in part, its ring hidden by them
    and of the plate's tint, is not."""
    wooden = np.array([-0.45, 0.0, 0.15, 0.05, 0.40, 0.0])  # level, q90, rg, bg, red, outside

    def read(p_ball: float = 0.8, level: int = 1, colour: np.ndarray = wooden, th: Thresholds = Thresholds(),
             **change: float) -> Reading:
        x = np.zeros(len(NAMES))
        look = {"samples": 0.9, "up": 0.9, "fit": 0.88, "centre_edge": 0.45, "edge_contrast": 0.3,
                "ring_share": 0.56, "ring_level": -0.5}
        for name, v in {**look, **change}.items():
            x[NAMES.index(name)] = v
        return decide(np.array([1.0 - p_ball, p_ball, 0.0]), {}, colour, x, 40, level, "LD", th)

    assert read().code == "L" and read(0.72).code == "L"
    assert read(0.68).why == "unsure" and read(level=2).why == "unsure"
    for name, v in (("samples", 0.7), ("up", 0.5), ("centre_edge", 0.1), ("edge_contrast", 0.15),
                    ("ring_share", 0.4)):
        assert read(**{name: v}).why == "unsure", name
    plate_tint = np.array([-0.45, 0.0, 0.05, 0.03, 0.40, 0.0])  # 0.06 from the plate's tint
    assert read(colour=plate_tint).why == "unsure"
    assert read(th=replace(Thresholds(), shaped_ball=0.99)).why == "unsure"


def test_a_black_or_red_ball_is_read_at_a_lower_probability():
    """The plate and its hollows are light wood, so a place the model leans to a ball
    (P(ball) ``dark_ball``, under ``ball``) whose colour reads black or red is that ball;
    so is stained wood (``stained_ball``), which a hollow deep in shade looks like, to be
    held to the frame's surer stained balls after (``odd_wood``); a place
    above the base seen too little stays ``unsure``. A white or light wooden one is read
    at ``light_ball``, where it is shaded as a ball is."""
    black = np.array([-3.0, -2.5, 0.0, 0.0, 0.25, 0.0])  # level, q90, rg, bg, red, outside
    red = np.array([-1.0, -0.5, 2.0, 0.0, 0.75, 0.0])
    white = np.array([-0.3, 0.2, -0.1, 0.0, 0.30, 0.0])
    stained = np.array([-2.5, -2.0, 0.6, 0.0, 0.5, 0.0])
    wooden = np.array([-0.5, 0.0, 0.3, 0.0, 0.40, 0.0])

    def read(colour: np.ndarray, p_ball: float, letters: str = "WBR", share: float = 0.9, level: int = 1,
             th: Thresholds = Thresholds(), up: float = 0.6) -> Reading:
        x = np.zeros(len(NAMES))
        x[0], x[1], x[3], x[10] = share, up, 0.9, 0.5  # seen, shaded like a ball
        return decide(np.array([1.0 - p_ball, p_ball, 0.0]), {}, colour, x, 40, level, letters, th)

    assert read(black, 0.95).code == "B" and read(red, 0.92, level=3).code == "R"
    assert read(black, 0.89).why == "unsure" and read(red, 0.85).why == "unsure"
    assert read(white, 0.95).code == "W" and read(white, 0.995).code == "W"
    assert read(white, 0.85).why == "unsure" and read(wooden, 0.85, "LD").why == "unsure"
    assert read(wooden, 0.92, "LD").code == "L"
    assert "not shaded like a ball" in read(white, 0.95, up=0.0).why  # flat: may be the plate
    assert "not shaded like a ball" in read(wooden, 0.95, "LD", up=0.0).why
    assert read(white, 0.95, th=replace(Thresholds(), light_ball=0.99)).why == "unsure"
    assert read(stained, 0.95, "LD").code == "D" and read(stained, 0.995, "LD").code == "D"
    assert read(stained, 0.89, "LD").why == "unsure"
    assert read(stained, 0.95, "LD", th=replace(Thresholds(), stained_ball=0.99)).why == "unsure"
    assert read(black, 0.95, share=0.45, level=2).why == "unsure"
    assert read(black, 0.95, share=0.45, level=1).code == "B"
    assert read(black, 0.95, th=replace(Thresholds(), dark_ball=0.99)).why == "unsure"


def test_a_light_wooden_ball_read_under_p_ball_0_99_must_stand_out_from_what_lies_round_it():
    """Empty hollows lit by the light off the balls round them were read light wood at
    P(ball) 0.98-0.99 with no outline and little of the plate round their foot (8710087 1a1,
    fresh 9140034 1a4): such a place is ``?`` unless the model is sure of it. A light ball
    must also be shaded up by ``light_up`` (0.25): fresh 9120002 1c2, an empty hollow
    ringed by eight balls, was read light wood at P(ball) 1.00 shaded up by 0.22."""
    wooden = np.array([-0.5, 0.0, 0.3, 0.0, 0.40, 0.0])

    def read(p_ball: float, outline: float, ring_plate: float, level: int = 1, up: float = 0.6) -> Reading:
        x = np.zeros(len(NAMES))
        x[0], x[1], x[3], x[10] = 0.9, up, 0.9, 0.5  # seen, shaded like a ball
        x[NAMES.index("edge_contrast")], x[NAMES.index("ring_plate")] = outline, ring_plate
        return decide(np.array([1.0 - p_ball, p_ball, 0.0]), {}, wooden, x, 40, level, "LD", Thresholds())

    doubted = read(0.989, 0.12, 0.16)
    assert doubted.code == "?" and "no outline (0.12)" in doubted.why, doubted.why
    assert read(0.989, 0.2, 0.16).code == "L"     # outlined
    assert read(0.989, 0.12, 0.3).code == "L"     # the plate round its foot
    assert read(0.989, 0.0, 0.16).code == "L"     # no outline measured: not judged
    assert read(0.995, 0.12, 0.16).code == "L"    # the model sure of it
    assert read(0.989, 0.12, 0.16, level=2).code == "L"
    assert "not shaded like a ball" in read(0.995, 0.3, 0.5, up=0.22).why
    assert read(0.995, 0.3, 0.5, up=0.26).code == "L"


def test_a_light_wooden_ball_through_a_webcam_once_read_stained():
    """Seed 3200968 through its random webcam (a fresh set of the fifth session): a light
    wooden base ball seen 17 samples' worth, reddened by the webcam, was read dark wood at
    level -2.10, red 0.50, just inside the stained band, where the frame's other stained
    balls were 0.9 redder (log red/green). A ball must look like its fellows
    (``odd_wood``); and its lit side, at -0.70, is too near the lit plate for stained wood
    (``wood_top``, since 2026-11-29): either rule alone doubts it."""
    sc, image = frame_in_look(PYRAMID, 3200968, "webcam")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells["1b2"] == "L" and result.observation.cells["1b2"] == "?"
    assert "its brightest tenth is at -0.70" in result.details["1b2"]
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c
    alone = Recognizer(PYRAMID, sc.game, thresholds=replace(Thresholds(), wood_top=math.inf)).read(image)
    assert alone.observation.cells["1b2"] == "?" and "less red" in alone.details["1b2"]


@pytest.mark.parametrize("seed, look, place, above", [(3800928, "webcam", "3b2", "4a1"),
                                                       (3400441, "soft-light", "2b2", "3a2")])
def test_an_empty_place_is_not_confirmed_by_one_sample_of_a_ball_below(seed, look, place, above):
    """Two fresh frames. 3800928 through its random webcam (640x480, JPEG quality 38, a pose
    from three markers and a guessed focal length, 3 px off): the black level-3 ball under
    the white one on top was read empty at P(empty) 0.993. 3400441 under a soft, bouncing
    light: a white level-2 ball, bluish against the plate, at 0.990. Each was confirmed by a
    white base ball that one of its samples (of 43 and 49) would meet through the place, and
    the ball resting on it was emptied with it. A ball seen through a place needs a group of
    samples, as many as ``red_through`` asks of a group. (3400441 2b2 is empty to the second
    model, fitted on path traced frames, at 0.90 only, which leaves it ``?`` first: the rule
    is proved with that model blinded.)"""
    sc, image = frame_in_look(PYRAMID, seed, look)
    shipped = Recognizer(PYRAMID, sc.game).read(image)
    result = Recognizer(PYRAMID, sc.game, thresholds=Thresholds(pbr_empty=0.0)).read(image)
    assert sc.cells[place] != "." and result.observation.cells[place] == "?"
    assert "nothing it would show is seen" in result.details[place]
    for read in (result, shipped):
        assert read.observation.cells[place] == "?"
        assert sc.cells[above] != "." and read.observation.cells[above] != "."
        c = tally([(read, sc.cells)])
        assert c["frames"] == 1 and c["wrong"] == 0, c


def test_a_white_ball_read_at_light_ball_only_confirms_no_empty_place_above_it(monkeypatch):
    """The benchmark's seed 2600473 under a soft, bouncing light (Sparks, 1280x720): the
    white level-2 ball 2c3 was read empty at P(empty) 1.00, confirmed by the white base ball
    1c4 below it seen through it, and 3b2 and 4a1 were emptied on it: three confident wrong
    readings, found by a whole ``make bench`` run. 1c4 is read white at P(ball) 0.988 only
    (``light_ball``, since 2026-12-02; unknown before): a ball so read judges no other wood,
    and now confirms no empty place above it that looks as it is read."""
    sc, image = frame_in_look(PYRAMID, 2600473, "soft-light")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells["1c4"] == "W" and result.observation.cells["1c4"] == "W"
    assert result.probabilities["1c4"][1] < Thresholds().ball
    for place in ("2c3", "3b2", "4a1"):
        assert sc.cells[place] != "." and result.observation.cells[place] == "?", (place, result.details[place])
    assert "nothing it would show is seen" in result.details["2c3"]
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c
    monkeypatch.setattr("vision.recognize_through._light_unsure", lambda r, th: False)
    before = Recognizer(PYRAMID, sc.game).read(image).observation.cells
    assert before["2c3"] == before["3b2"] == before["4a1"] == "."


def test_an_empty_place_seen_through_to_one_colour_under_a_likely_ball_is_unknown():
    """Seed 3700339 through its random webcam (strong vignetting and contrast, 640x480): a
    light wooden level-2 ball was read empty at P(empty) 0.994. The view through the place
    would meet the light wooden ball below over 37 of its 51 samples, and that ball, looking
    there and beside as read, confirmed it; the dark ball on it, unknown at P(ball) 0.74,
    was then emptied by the support rules. A ball of the colour seen through a place looks
    much as the place empty would: with a ball likely on it, the place is unknown."""
    sc, image = frame_in_look(PYRAMID, 3700339, "webcam")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells["2a2"] == "L" and result.observation.cells["2a2"] == "?"
    assert "the balls seen through it are all read L" in result.details["2a2"]
    assert sc.cells["3a2"] == "D" and result.observation.cells["3a2"] == "?"
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


@pytest.mark.parametrize("seed, name", [(2600964, "1c3"), (3700515, "1b4")])
def test_a_black_sliver_behind_red_balls_is_not_read_red(seed, name):
    """Through their random webcams (640x480, JPEG quality 52 for 3700515), black base balls
    28 and 35 % in view behind red balls only took on the red of the balls in front and
    were read red. A red sliver behind red balls is not read under 40 % in view."""
    sc, image = frame_in_look(PYRAMID, seed, "webcam")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells[name] == "B" and result.observation.cells[name] == "?"
    assert "behind red balls only" in result.details[name]
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


def test_an_upper_ball_seen_little_in_line_with_a_lower_ball_is_unknown():
    """From the side, the base ball behind an empty level-2 place fills much of where a ball
    there would be seen (frame 1200042 in test_frames_once_misread shows it, and 4400152 and
    4600420 in test_fresh_frames_once_misread_in_a_look a black one and a red one)."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    behind = [()] * len(layout.names)
    behind[index["2a1"]] = (index["1a2"],)
    geo = SimpleNamespace(behind=behind)

    def read(code: str, seen: float, back: str, on_top: str = "?") -> str:
        r = {i: Reading("?", "x") for i in range(len(layout.names))}
        r[index["2a1"]] = Reading(code, "seen", seen=seen)
        r[index["1a2"]] = Reading(back, "seen")
        r[index["3a1"]] = Reading(on_top, "seen")
        return lookalikes(layout, geo, r, Thresholds())[index["2a1"]].code  # type: ignore[arg-type]

    assert read("W", 0.5, "?") == "?" and read("W", 0.5, "W") == "?" and read("L", 0.3, "L") == "?"
    assert read("W", 0.5, "B") == "W"       # the ball behind is another colour: this one is seen
    assert read("W", 0.6, "?") == "W"       # seen enough of it
    assert read("B", 0.5, "B") == "?" and read("D", 0.5, "?") == "?"  # dark ones too
    assert read("B", 0.5, "W") == "B"
    assert read("R", 0.5, "R") == "?" and read("R", 0.5, "B") == "R"  # red too (4600420)
    assert read("W", 0.5, "?", on_top="B") == "W"  # a ball rests on it: it is there


def test_an_empty_upper_place_needs_what_it_shows_seen():
    """A ball above the base in shadow can read empty while the places under it, hidden by
    it, are all ``?``: such an empty reading is ``?``, and the doubt climbs to the places
    resting on it. A support read empty confirms it, and so does a ball read among those
    the view meets through it, if it looks there as it does itself, and beside the place
    too (frames 1501924, 1502383, 1600577, 1601856, 1602010 and 1602389 in
    test_frames_once_misread show it; 2600211 under a soft light, the beside), in a group of
    samples (``through_count``; 3800928 through a webcam: one sample confirmed it), and not a
    few where more would meet balls read unknown (``through_few``, 6300175)."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    samples = 16
    through = np.zeros((n, samples, n), dtype=bool)
    through[index["2a1"], :, index["1a1"]] = True  # 2a1's samples would show 1a1
    hidden = np.zeros((n, samples, n), dtype=bool)
    hidden[index["1a1"], :4, index["2a1"]] = True  # a ball at 2a1 would hide 4 of 1a1's samples
    body = np.arange(n * samples).reshape(n, samples)
    geo = SimpleNamespace(body=body, body_ok=np.ones((n, samples), dtype=bool), hidden=hidden, through=through)
    plate = np.array([0.5, 0.5, 0.5])
    white = (0.0, 0.3, 0.0, 0.0, 0.33, 0.0)  # level, q90, rg, bg, red, outside (relative to the plate)
    red = (-0.36, -0.2, 1.6, 0.0, 0.8, 0.0)    # (0.35, 0.07, 0.07) on a grey plate of 0.5

    def read(shown: tuple[float, float, float] = (0.5, 0.5, 0.5), beside: tuple[float, float, float] | None = None,
             met: int = samples, lean: float | None = None, red_half: bool = False, veiled: bool = False,
             **codes: str) -> dict[str, str]:
        through[index["2a1"], :, index["1a1"]] = np.arange(samples) < met  # the rest would meet the plate
        through[index["2a1"], :, index["1b1"]] = veiled & (np.arange(samples) >= met)  # ... or 1b1
        lin = np.tile(np.array(shown), (n * samples, 1))
        if beside is not None:  # 1a1's samples that a ball at 2a1 would not hide
            lin[body[index["1a1"], 4:]] = beside
        if red_half:  # half of 2a1's samples would show 1b1 instead, red there and beside
            through[index["2a1"], samples // 2:, index["1a1"]] = False
            through[index["2a1"], samples // 2:, index["1b1"]] = True
            lin[body[index["2a1"], samples // 2:]] = lin[body[index["1b1"]]] = (0.35, 0.07, 0.07)
        r = {i: Reading("?", "x") for i in range(n)}
        r |= {index[name]: Reading(code, "seen", colour={"W": white, "R": red}.get(code, ()))
              for name, code in codes.items()}
        if lean is not None:  # 3a1 unknown, the model leaning to a ball there or not
            r[index["3a1"]] = Reading("?", "unsure", p=(1.0 - lean, lean, 0.0))
        out = settle(layout, unconfirmed(layout, geo, r, lin, np.ones(len(lin), dtype=bool),  # type: ignore[arg-type]
                                         np.ones(n, dtype=bool), plate, Thresholds()), "WBR")
        return {name: out[index[name]].code for name in ("2a1", "3a1", "4a1")}

    unsure = {"2a1": "?", "3a1": "?", "4a1": "?"}
    empty = {"2a1": ".", "3a1": ".", "4a1": "."}
    assert read(**{"2a1": ".", "3a1": ".", "4a1": "."}) == unsure
    assert read(**{"2a1": ".", "1a1": "W"}) == empty              # 1a1 seen through it
    assert read(met=4, **{"2a1": ".", "1a1": "W"}) == empty       # ... in a group of samples
    assert read(met=3, **{"2a1": ".", "1a1": "W"}) == unsure      # ... but not in fewer
    # a few samples, where more would meet a ball read unknown: the edge of a ball here (6300175)
    assert read(met=5, veiled=True, **{"2a1": ".", "1a1": "W"}) == unsure
    assert read(met=8, veiled=True, **{"2a1": ".", "1a1": "W"}) == empty   # 8 are enough
    assert read(met=5, veiled=True, **{"2a1": ".", "1a1": "W", "1b1": "W"}) == empty  # 1b1 read: none veiled
    assert read((0.02, 0.02, 0.02), **{"2a1": ".", "1a1": "W"}) == unsure  # ... but seen black there
    assert read((0.8, 0.2, 0.2), **{"2a1": ".", "1a1": "W"}) == unsure     # ... or red
    assert read(beside=(0.8, 0.2, 0.2), **{"2a1": ".", "1a1": "W"}) == unsure  # ... or red beside it
    assert read(**{"2a1": ".", "1b2": "W"}) == unsure             # a ball read that it does not show
    assert read(**{"2a1": ".", "1b2": "."}) == empty              # a support read empty
    assert read(**{"3a1": ".", "1a1": "."}) == empty              # ... or emptied by the support rules
    # seen through it, balls of one colour only: a ball of theirs there would look so too,
    # so a place resting on it that the model leans to a ball at leaves it unknown (3700339)
    assert read(lean=0.74, **{"2a1": ".", "1a1": "W"}) == unsure
    assert read(lean=0.4, **{"2a1": ".", "1a1": "W"}) == empty
    assert read(red_half=True, **{"2a1": ".", "1a1": "W", "1b1": "R"}) == empty
    assert read(lean=0.74, red_half=True, **{"2a1": ".", "1a1": "W", "1b1": "R"}) == empty  # no one ball looks both


def test_an_empty_upper_place_whose_gap_looks_coloured_is_unknown():
    """Through an empty level-2 place the view meets the balls below and, between them, the
    plate. Where it would meet the plate the samples must not look coloured: seen red there,
    the place holds a red ball, whatever the ball below that confirms it (frame 2201145). A
    gap too dark for chromaticity, or the plate's colour, leaves the empty reading."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    samples = 8
    through = np.zeros((n, samples, n), dtype=bool)
    through[index["2a1"], :4, index["1a1"]] = True  # half would show 1a1, half the plate between
    geo = SimpleNamespace(body=np.arange(n * samples).reshape(n, samples), body_ok=np.ones((n, samples), dtype=bool),
                          hidden=np.zeros((n, samples, n), dtype=bool), through=through)
    plate = np.array([0.5, 0.4, 0.3])
    red = (-1.65, -1.5, 2.48, 0.29, 0.9, 0.0)  # level, q90, rg, bg, red, outside (relative to the plate)

    def read(gap: tuple[float, float, float]) -> str:
        lin = np.tile(np.array([0.3, 0.02, 0.02]), (n * samples, 1))  # red, as 1a1 is read
        lin[index["2a1"] * samples + 4:(index["2a1"] + 1) * samples] = gap
        r = {i: Reading("?", "x") for i in range(n)}
        r[index["2a1"]] = Reading(".", "seen empty")
        r[index["1a1"]] = Reading("R", "seen", colour=red)
        out = unconfirmed(layout, geo, r, lin, np.ones(len(lin), dtype=bool), np.ones(n, dtype=bool),  # type: ignore[arg-type]
                          plate, Thresholds())
        return out[index["2a1"]].code

    assert read((0.5, 0.4, 0.3)) == "."      # the plate between the balls
    assert read((0.1, 0.08, 0.06)) == "."    # ... in shadow
    assert read((0.001, 0.0, 0.0)) == "."    # too dark to have a colour
    assert read((0.3, 0.02, 0.02)) == "?"    # red: a red ball is there


def test_an_empty_place_over_a_gap_and_a_lower_ball_with_the_outline_check_off(monkeypatch):
    """7900137 (Sparks, 640x480, with far colours), as the band alone sees it (the hand in
    view is found since 2026-12-03 by the outline check, which doubts 2a3 first): the empty
    level-2 place read black at P(ball) 0.98 stays ``?`` for the samples that would show
    the gap or the balls below it (``alike_below``, ``shows_below``)."""

    monkeypatch.setattr(Recognizer, "outline", lambda self, pose, shape: Blind())
    sc, image = frame_in_look(PYRAMID, 7900137, "far-colour")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert not result.hand
    assert sc.cells.get("2a3", ".") == "." and result.observation.cells["2a3"] == "?"
    assert "P(ball) 0.980, and 100% of it could be the balls below" in result.details["2a3"]


@pytest.mark.parametrize("board, seed, look, name, truth, why", [
    (PYRAMID, 4300908, "plain", "2a2", "B", "1a3 and 1b3 would show through it, but look there unlike themselves"),
    (PYRAMID, 4300908, "soft-light", "2a2", "B", "1a3 and 1b3 would show through it, but look there unlike themselves"),
    (PYRAMID, 4300509, "soft-light", "1b3", "W", "with the plate's colour, under 2b2"),
    (PYRAMID, 5000075, "soft-light", "1c2", "L", "with the plate's colour, under 2b1"),
    (PYRAMID, 4400193, "plain", "1a3", "B", "less red than this frame's other red balls"),
    (PYRAMID, 4400193, "soft-light", "1a3", "B", "less red than this frame's other red balls"),
    (PYRAMID, 4400157, "webcam", "1a1", "B", "0.19 less red than this frame's other red balls"),
    (PYRAMID, 4400152, "webcam", "2a2", ".", "in line with 1b3 behind it"),
    (PYRAMID, 4600420, "far-colour", "2a3", ".", "in line with 1a4 behind it"),
    (PYRAMID, 4600987, "soft-light", "2c3", "L", "in shadow (level -1.12) with the plate's colour"),
    (PYRAMID, 4700565, "webcam", "1b3", "W", "its brightest tenth is at -0.07, far lighter than a black ball's"),
    (PYRAMID, 4800114, "webcam", "1d4", ".", "no outline against the plate (0.07), in deep shade (-1.36)"),
    (PYRAMID, 5100568, "webcam", "1c2", ".", "0.02 from it, 0.12 from this frame's light wooden balls"),
    (PYRAMID, 5100281, "far-colour", "2b2", ".", "shows the plate's tint (0.12 from it, 1.43 from"),
    (PYRAMID, 5300162, "soft-light", "1c4", "L", "tinted as this frame's light wooden balls (0.02 from them, 0.25"),
    (PYRAMID, 5300779, "soft-light", "1d3", "L", "in shadow (level -0.59) with the plate's colour, under 2c2"),
    (PYRAMID, 5400588, "plain", "1c2", ".", "0.02 from it, 0.46 from this frame's light wooden balls, which are 0.47"),
    (PYRAMID, 5400532, "webcam", "2a1", "W", "as white as the camera records (0.46, its white at 0.48)"),
    (PYRAMID, 5400532, "webcam", "2a2", "W", "as white as the camera records (0.46, its white at 0.48)"),
    (PYRAMID, 5500799, "plain", "1c4", "B", "over 85 px, behind balls read red or unknown only"),
    (PYRAMID, 5500799, "soft-light", "1c4", "B", "over 85 px, behind balls read red or unknown only"),
    (PYRAMID, 5500726, "webcam", "1c3", "L", "its brightest tenth is at -0.43, near the lit plate"),
    (PYRAMID, 2601142, "webcam", "1c4", "L", "its brightest tenth is at -0.51, near the lit plate"),
    (GRID, 4400413, "webcam", "d2", "B.", "with a hand in view: skin would look so"),
    (GRID, 4400413, "webcam", "e3", "Gb", "with a hand in view: skin would look so"),
    (GRID, 4200491, "webcam", "d1", "G.", "with a hand in view: skin would look so"),
    (GRID, 4600475, "webcam", "d6", "G.", "the tile looks like the wood round it (0.34)"),
    (GRID, 4600475, "webcam", "e6", "G.", "the tile looks like the wood round it (0.28)"),
    (GRID, 4900545, "webcam", "b7", "B.", "red, 0.12 greener than blue and than the other reds, with a hand in view"),
    (GRID, 5200174, "webcam", "h4", "B.", "R, but with 2 of its samples clearly another tile colour"),
    (GRID, 5200193, "webcam", "h7", "G.", "B, but unlike the frame's other B tiles and 4.5 times nearer"),
    (GRID, 5200193, "webcam", "h9", "Gw", "B, but unlike the frame's other B tiles and 5.7 times nearer"),
    (PYRAMID, 6100562, "soft-light", "2a2", ".", "right before 1b3, not seen, and 92% of it would show lower balls not "
     "seen, or looking there as read"),
    (PYRAMID, 6100562, "soft-light", "2b1", ".", "right before 1c2, not seen, and 96%"),
    (PYRAMID, 6100567, "soft-light", "2b3", ".", "right before 1b3, not seen, and 96%"),
    (PYRAMID, 6300175, "plain", "2a3", "L", "1a4 seen through it fills 5 of its samples, but 33 would meet 1a3, "
     "read unknown"),
    (PYRAMID, 6300175, "webcam", "2a3", "L", "1a4 seen through it fills 5 of its samples, but 32 would meet 1a3"),
    (PYRAMID, 2600424, "far-colour", "1b2", "L", "its tint is 0.03 from this frame's light balls' and 0.58"),
    (PYRAMID, 8500108, "webcam", "1c3", "L", "no redder than this frame's balls read light wood (0.41), and 1.57"),
    (PYRAMID, 2600410, "far-colour", "1b1", ".", "at P(ball) 0.940 only, and no other ball read dark "
     "wood"),
    # a hand in view high over the table, its shadow across the plate's far edge and the
    # pyramid: since 2026-12-03 the outline check (vision/recognize_outline.py) says a hand
    # is in view, and the model told of it doubts 2a3 first
    (PYRAMID, 7900137, "far-colour", "2a3", ".", "hand? (empty 0.00, ball 0.37"),
    (PYRAMID, 8000187, "webcam", "1c2", "W", "its brightest tenth is at 0.30, far lighter than a black ball's"),
    (PYRAMID, 8000073, "far-colour", "1c3", "L", "its tint is 0.10 from this frame's light balls' and 0.43"),
    (PYRAMID, 8800070, "plain", "1c2", "L", "0.36 from its other dark wooden balls' (its brightest tenth at -0.85)"),
    (PYRAMID, 8500124, "far-colour", "1c4", "L", "0.29 from its other dark wooden balls' (its brightest tenth at -1.34"),
    (PYRAMID, 8900123, "webcam", "1a2", "L", "2.11 lighter than its other dark wooden balls, and its tint 0.40"),
])
def test_fresh_frames_once_misread_in_a_look(board, seed, look, name, truth, why):
    """Fresh frames, each read with a confident wrong reading by the code they were found
    with, and now ``?`` there for ``why``, with no wrong reading in the frame:
    - 4300908 (Sparks, 800x600, a wide view from 48 cm): a black level-2 ball over a black
      base ball read empty at P(empty) 1.00, confirmed by that black ball; the place would
      also show a red and a white base ball, there 2.9 less red and 5.0 darker than beside
      it (``unlike_beside``);
    - under a soft, bouncing light, 4300509 (Sparks, a pale plate), a white base ball, and
      5000075 (Pylos), a light wooden one, each shaded on top by the balls on it and of the
      plate's colour, read empty at P(empty) 1.00, and the balls resting on them
      (P(ball) 0.95-0.99) emptied (``under_a_ball``);
    - 4400193 (Sparks, 640x480, balls 10 px across): a black base ball 31 % in view among
      red ones read red, just over the sliver rule's 30 % (``odd_red``); and through a
      webcam 4400157, one 37 % in view in a dark frame, 0.19 less red than the others;
    - 4400152 (Sparks, through a webcam at 640x480): an empty level-2 place 52 % in view
      read black at P(ball) 1.00, the black base ball behind it filling it
      (``lookalikes``); and 4600420 (with far colours) one read red, the red ball behind it
      filling 21 of its 28 samples;
    - 4600987 (Pylos, under a soft, bouncing light): a light wooden level-2 ball read empty
      at P(empty) 0.999 (level -1.12, 78 % the plate's colour, between the shadow rule's two
      steps), and through it the base ball under it and the three balls it holds up;
    - 4700565 (Sparks, through a webcam at 640x480): a white base ball in the shadow of the
      balls round it read black at level -3.23, where the frame's five black balls are at
      -5.5 (``odd_black``; 2.16 lighter since the wider black band of 2026-12-01
      takes more of them), its lit side at -0.07 (``black_top`` first, since 2026-12-02's
      second session);
    - 4800114 (Pylos, through a webcam at 640x480): an empty base hollow crossed by its
      neighbours' shadows read light wood at P(ball) 1.00, with no outline against the
      plate (0.07), its foot in deep shade (-1.36) and shaded unlike a sphere (fit 0.72);
    - 5100568 (Pylos, through a webcam): an empty base hollow 42 % in view read light wood at
      P(ball) 0.999, 0.02 from the plate's tint where the frame's light wooden balls,
      brought near the plate by the webcam, are 0.10 from it (``plate_coloured``);
    - 5100281 (Sparks, with far colours): an empty level-2 place over three black balls read
      black at P(ball) 0.9998, where the plate between them shows the plate's tint, 1.43
      from the black balls' (``plate_between``);
    - 5300162 (Pylos, under a soft, bouncing light): a light wooden base ball half under the
      ball on it, barely shaded, read empty at P(empty) 0.998 (the ball on it read empty too,
      and the two resting on that emptied); it keeps the light wood's tint, 0.25 from the
      plate's (``wood_in_hollow``); and 5300779 (Pylos, soft light, 800x600), a light
      wooden base ball at level -0.59, all the plate's colour, read empty at P(empty) 0.998
      under a ball at P(ball) 0.998, which was emptied (``under_a_ball``, its shade from
      -0.8 to -0.5);
    - 5400588 (Pylos, 1280x720, the board small): an empty hollow in the pyramid's shadow
      read light wood at P(ball) 0.998, 0.02 from the plate's tint; the frame's two other
      light wooden base balls, 0.47 from it, were only half in view, too little for
      ``plate_coloured`` until its fellows were asked 40 % in view, not 70 %;
    - 5400532 (Sparks, through a webcam): three brightly lit white balls, clipped to the
      camera's white, read empty at P(empty) 0.99-1.00 (a base ball, and the two level-2
      balls over it); a place read empty as white as the camera records is ``?`` now;
    - 5500799 (Sparks, 640x480, balls 16 px across): a black base ball 40 % in view among red
      ones read red, 1.43 darker than they are (``odd_red`` from 1.4), and under a soft light
      too, there 0.10 redder than they are; both are now slivers first: 85 px in view behind
      balls read red or unknown only (``red_unknown_share``, ``red_unknown_px``); 5500726 (Pylos,
      through a webcam), a light wooden base ball under three level-2 balls read stained at
      level -3.79, its lit side at -0.43, and 2601142 (Pylos, through a webcam whose orange
      cast reddens the light wood) one half in shadow at -2.58, its lit side at -0.51
      (``dark_in_shade``'s ``wood_top``);
    - grid frames through webcams, the wood overexposed and a hand over the board: its skin
      read as a red tile (4400413: over a blue tile and a green one; 4200491: a green one);
      and 4600475, an arm over two green tiles and the wood round them, read red: the
      webcam's tone curve crushed the skin's blue to a few levels, whose log ratios made
      the tile and the wood look 4.7 and 0.76 apart (``SAME_FLOOR``); and 4900545, an arm
      over a blue tile on wood that is not overexposed, read red, 0.12 greener than blue
      and than the frame's other reds (``SKIN_GREEN_LIT``); 5200174, fingers over a blue
      tile read red, with 2 of its 25 samples still clearly blue (``OTHER_SAMPLES``);
    - 5200193 (through a webcam that saturates, the wood's blue crushed): two green tiles
      read blue, the edge of the frame's greens, which the webcam put between green and blue
      and which are mostly unclear; they lie 0.31-0.33 from the frame's blues, 4.5-5.7
      times nearer the unclear tiles (``OFF_GROUP``);
    - under a soft, bouncing light, 6100562 (Sparks, 800x600, a low camera): two empty
      level-2 places read as balls at P(ball) 1.00, each right before a base ball read
      unknown (0.24 and 0.09 radii apart) and 84-87 % of it showing such balls; the rest,
      its rim, showing the black balls beside them as they look (``shows_below``); and
      6100567, an empty level-2 place read white before a white base ball, 98 % of it
      showing unknown balls (96 % since black and red are read at ``dark_ball``), kept by the ball read on it that the same rule withdrew
      (``alike_below`` now from the top down);
    - 6300175 (Pylos, plain and through a webcam): a light wooden level-2 ball read empty at
      P(empty) 1.00, confirmed by 5 of its samples on the stained ball beside the one under
      it, where its own shaded foot passed for stained wood, while 32-33 would meet the
      ball under it, read unknown; the ball on it was emptied (``through_few``);
    - 2600424 (Pylos, with far colours): a light wooden base ball in its neighbours' shade
      read stained at level -2.65, red 0.43, once stained wood's band reached red 0.42
      (2026-12-01), the frame's light wooden balls at 0.43 (``stained_redder``; since
      2026-12-02's second session ``light_tint``: its tint is theirs); and 2600410,
      an empty hollow deep in shade (level -3.43, red 0.36) read stained at P(ball) 0.94
      while stained wood was read at ``dark_ball`` as black and red are; since 2026-12-06 a
      ball read stained at P(ball) under 0.99 (``stained_ball``) must be as dark as the
      frame's stained balls the model is sure of, and this frame has none;
    - 7900137 (Sparks, 640x480, with far colours): an empty level-2 place read black at
      P(ball) 0.98; of its 33 samples 20 would show the gap or the black ball below it, read
      unknown, and 13 the red ball below it, which they show as red (``alike_below`` counts
      them since 2026-12-02, ``shows_below``);
    - 8000187 (Sparks, through a webcam at 800x600, the board small): a white base ball
      under three level-2 balls, its top lit and the rest in their shadow, read black at
      level -3.22, its brightest tenth at 0.30 (``black_top``); 8000073 (Pylos, with far
      colours), a light wooden base ball in the shadow of the balls on it read stained at
      level -2.26, its tint 0.10 from the frame's light balls' (read unknown, redder than
      light wood's band) and 0.43 from its stained fellows' (``light_tint``); 8500108 (Pylos,
      through a webcam), a light wooden base ball in the shade of the balls round it read
      stained at level -2.91, no redder than the frame's light wood and 1.57 lighter than
      its stained fellows (``stained_redder`` with ``stained_lighter``); 8800070 (Pylos, the
      board small), a light wooden base ball in the shade of the balls round it, its rim
      lit, read stained at level -2.55, its brightest tenth at -0.85 and its tint 0.14 from
      the frame's light balls', 2.6 times that from its stained fellows' (``lit_tint``), and
      8500124 (Pylos, with far colours), one a third in view read stained at -1.70, its
      brightest tenth at -1.34, 2.3 times (left wrong from 2026-12-02's second session);
      8900123 (Pylos, through a webcam that turned stained wood olive), a light wooden base
      ball in shade read stained at -2.88, 2.11 lighter than the frame's one stained ball
      read, its tint 0.40 from the plate's and 0.67 from that ball's, no light ball read
      (``plate_tint``, ``plate_lighter``).
    Each rule is proved with the second pyramid model (fitted on path traced frames) blinded:
    in 5000075 and 5400588 it leaves a place above ``?`` first, and the place is then ``?``
    for being seen too little or unsure. Blinded, an empty place on level 3 or 4 needs
    P(empty) ``empty`` as on level 2, not ``upper_empty``, which leans on that model: read
    so, 5000075's 3a1 (0.99) was read empty, the balls under it measured uncovered, and
    1c2 read empty. Read with it, the place is ``?`` too, or right (4600420 2a3, since
    ``upper_empty``: read empty at 1.00 once the places above it were), and nothing wrong."""
    sc, image = frame_in_look(board, seed, look)
    result = Recognizer(board, sc.game, thresholds=Thresholds(pbr_empty=0.0, upper_empty=0.99)).read(image)
    unknown = "?" if board is PYRAMID else "??"
    assert sc.cells.get(name, ".") == truth and result.observation.cells[name] == unknown
    assert why in result.details[name]
    shipped = Recognizer(board, sc.game).read(image)
    assert shipped.observation.cells[name] in (unknown, truth), shipped.details[name]
    for read in (result, shipped):
        c = tally([(read, sc.cells)])
        assert c["frames"] == 1 and c["wrong"] == 0, c


def test_a_bare_border_beside_a_blue_tile_too_thin_to_tell_white_is_not_read_white():
    """Fresh 5800260 through a webcam that sharpens, pushes saturation and compresses hard
    (JPEG 39): a blue tile with no plate between two black plates, its border 1.66 px wide,
    tinted by the tile's blue into white's colour against the wood, was a white plate to the
    rules and to the border model at P 1.00 (``BLUE_WHITE_PX``). The frame's true white
    plates beside blue tiles on that border are not read white either; nothing is read
    wrong."""
    sc, image = frame_in_look(GRID, 5800260, "webcam")
    result = Recognizer(GRID, sc.game).read(image)
    assert sc.cells["b1"] == "B." and result.observation.cells["b1"] == "B?"
    assert "white beside a blue tile on a border 1.66 px wide" in result.details["b1"]
    assert sc.cells["h1"] == "Bw" and result.observation.cells["h1"] == "B?"
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


@pytest.mark.parametrize("seed, name, bare", [(5100674, "a6", "0.92")])
def test_a_cream_plate_round_a_green_tile_on_a_thin_border_is_not_read_bare(seed, name, bare):
    """A fresh frame with far colours: a cream white plate on pale wood, its border 2.5 px
    wide, blurred with the green tile's spill into the wood's colour, read bare; the border
    model passed it at 0.92, and asks 0.95 now (``SURE``). Two more of the kind, 5300147 g5
    and 5500180 h2 (0.87 and 0.81), are on borders under ``BARE_PX`` now
    (tests/test_grid_pale.py)."""
    sc, image = frame_in_look(GRID, seed, "far-colour")
    result = Recognizer(GRID, sc.game).read(image)
    assert sc.cells[name] == "Gw" and result.observation.cells[name] == "G?"
    assert f"looks like bare wood at P {bare} only" in result.details[name]
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c


@pytest.mark.parametrize("seed, look, name, summed, bare", [
    (5000938, "far-colour", "c4", "1.53", "c3"),
    (4800848, "soft-light", "e4", "1.62", None),
])
def test_a_white_plate_lit_less_beside_a_blue_tile_is_not_a_bare_border(seed, look, name, summed, bare):
    """A white plate in less light than the wood, beside a blue tile, fits as the wood with
    half the tile's colour spilt on it: bare, by the fit alone (5000938 c4 was read `B.`).
    Blur mixes the tile and the wood, so their shares sum to about 1 on a bare border; this
    sums to 1.5-1.6 (``BARE_MIXED``). A bare border beside a blue tile in the same frame
    (5000938 c3) is still read bare."""
    sc, image = frame_in_look(GRID, seed, look)
    result = Recognizer(GRID, sc.game).read(image)
    assert sc.cells[name] == "Bw" and result.observation.cells[name] == "B?"
    assert f"the wood and the tile's spill add up to {summed} times" in result.details[name]
    if bare is not None:
        assert sc.cells[bare] == "B." and result.observation.cells[bare] == "B."
    assert tally([(result, sc.cells)])["wrong"] == 0


def test_skin_on_overexposed_wood_is_doubted_more_closely_with_a_hand_in_view(monkeypatch):
    """Skin passes for a red tile against overexposed wood (4400413 above): greener than
    blue relative to that wood, and than the frame's red tiles. With a hand in view a red
    tile there is doubted from 0.04 greener (``SKIN_GREEN``); with none seen (the band and
    the markers' check, which sees the arm over marker 5, both blind) from 0.08
    (``SKIN_GREEN_LIT``), which d2's skin (0.11) still passes, and with that limit raised
    the skin is read red; and red tiles leaning to orange with far colours (1100434, a hand
    in view, the wood overexposed) lean together, so stay read."""
    sc, image = frame_in_look(GRID, 4400413, "webcam")
    seen = Recognizer(GRID, sc.game).read(image)
    assert seen.hand and seen.observation.cells["d2"] == "??" and "with a hand in view" in seen.details["d2"]
    assert seen.observation.cells["a1"] == "R?" and sc.cells["a1"].startswith("R")
    monkeypatch.setattr("vision.recognize.find_hands", lambda *a, **k: HandSigns(np.zeros((0, 2)), 0))
    assert Recognizer(GRID, sc.game).read(image).hand  # the arm lies over marker 5: the markers' check sees it
    monkeypatch.setattr(MarkerLight, "covered", lambda self: np.zeros((0, 2)))
    blind = Recognizer(GRID, sc.game).read(image)
    assert not blind.hand and blind.observation.cells["d2"] == "??" and sc.cells["d2"] == "B."
    assert "0.11 greener than blue and than the other reds: skin would look so" in blind.details["d2"]
    monkeypatch.setattr("vision.recognize_grid.SKIN_GREEN_LIT", 0.12)
    assert Recognizer(GRID, sc.game).read(image).observation.cells["d2"] == "R?"
    monkeypatch.undo()
    monkeypatch.setattr("vision.recognize_grid.SKIN_GREEN_LIT", 0.12)  # the hand seen: 0.04 on that wood
    assert Recognizer(GRID, sc.game).read(image).observation.cells["d2"] == "??"
    monkeypatch.undo()
    sc, image = frame_in_look(GRID, 1100434, "far-colour")
    orange = Recognizer(GRID, sc.game).read(image)
    assert orange.hand and not any("skin" in why for why in orange.details.values())
    assert sum(code == "R?" and sc.cells[n][0] == "R" for n, code in orange.observation.cells.items()) >= 5


def test_what_an_empty_place_would_show_must_look_as_it_does_beside_it():
    """Through an empty level-2 place the view meets the balls below, each over a group of
    samples. Confirmed by one of them, the place is still unknown when two others look
    there unlike themselves beside it, far darker or of another colour; one alone may be a
    pose a pixel off at a boundary, and chromaticity too dark to tell is not compared."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    samples = 16
    place, white, other, third = (index[name] for name in ("2a1", "1a1", "1b1", "1a2"))
    through = np.zeros((n, samples, n), dtype=bool)
    through[place, :8, white] = True   # half of 2a1's samples would show 1a1
    through[place, 8:12, other] = True  # four 1b1
    through[place, 12:, third] = True   # four 1a2
    hidden = np.zeros((n, samples, n), dtype=bool)
    hidden[[white, other, third], :4, place] = True  # a ball at 2a1 would hide four of each one's samples
    body = np.arange(n * samples).reshape(n, samples)
    geo = SimpleNamespace(body=body, body_ok=np.ones((n, samples), dtype=bool), hidden=hidden, through=through)
    plate = np.array([0.5, 0.5, 0.5])
    grey, red, black = (0.5, 0.5, 0.5), (0.4, 0.04, 0.04), (0.01, 0.01, 0.01)

    def read(at_other: tuple, beside_other: tuple, at_third: tuple = grey, beside_third: tuple = grey) -> str:
        lin = np.tile(np.array(grey), (n * samples, 1))  # 1a1 white, there and beside
        lin[body[place, 8:12]], lin[body[other, 4:]] = at_other, beside_other
        lin[body[place, 12:]], lin[body[third, 4:]] = at_third, beside_third
        r = {i: Reading("?", "x") for i in range(n)}
        r[place] = Reading(".", "seen empty")
        r[white] = Reading("W", "seen", colour=(0.0, 0.3, 0.0, 0.0, 0.33, 0.0))
        out = unconfirmed(layout, geo, r, lin, np.ones(len(lin), dtype=bool), np.ones(n, dtype=bool),  # type: ignore[arg-type]
                          plate, Thresholds())
        return out[place].code

    assert read(grey, grey) == "."                    # each looks there as beside: empty
    assert read(grey, red) == "."                     # one of another colour there: may be the pose
    assert read(grey, red, black, grey) == "?"        # ... and another far darker: a ball is there
    assert read((0.03, 0.03, 0.03), red, black, grey) == "?"  # red beside, dark grey there: another colour
    assert read(grey, red, grey, red) == "?"          # two of another colour
    dark_red = (0.012, 0.001, 0.001)                  # red, but darker than chromaticity is told at
    assert read((0.005, 0.005, 0.005), dark_red, grey, red) == "."


def test_an_upper_ball_showing_the_plates_tint_where_the_plate_would_show_is_unknown():
    """Where a ball above the base would, were the place empty, show the plate between the
    balls below, and shows there the plate's own tint, far from the tint of the frame's
    other balls of its colour, the place may be empty (fresh 5100281 2b2 in
    test_fresh_frames_once_misread_in_a_look)."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    samples = 12
    place = index["2a1"]
    through = np.zeros((n, samples, n), dtype=bool)
    through[place, :8, index["1a1"]] = True  # the rest of 2a1's samples would meet no ball
    body = np.arange(n * samples).reshape(n, samples)
    geo = SimpleNamespace(body=body, body_ok=np.ones((n, samples), dtype=bool),
                          hidden=np.zeros((n, samples, n), dtype=bool), through=through)
    plate = np.array([0.5, 0.4, 0.3])

    def read(gap: tuple, fellow_tint: tuple = (-0.3, 1.3), code: str = "B") -> str:
        lin = np.tile(plate * 0.01, (n * samples, 1))
        lin[body[place, 8:]] = gap
        ball = (-4.5, -3.5, *fellow_tint, 0.3, 0.0)
        r = {i: Reading(".", "seen empty") for i in range(n)}
        r[place] = Reading(code, "seen", colour=(-4.0, -3.0, -0.05, 0.28, 0.3, 0.0))
        r[index["1b4"]] = r[index["1c4"]] = Reading(code, "seen", colour=ball)
        out = plate_between(layout, geo, r, lin, np.ones(len(lin), dtype=bool), np.ones(n, dtype=bool),  # type: ignore[arg-type]
                            plate, Thresholds())
        assert all(out[i] == r[i] for i in range(n) if i != place)
        return out[place].code

    shade = tuple(plate * 0.05)                      # the plate's tint, in shade (level -3.0)
    assert read(shade) == "?"
    assert read(shade, fellow_tint=(-0.1, 0.4)) == "B"  # black balls of about the plate's tint
    assert read(tuple(plate * 0.01)) == "B"          # too dark to have a tint (-4.6)
    assert read((0.02, 0.025, 0.05)) == "B"          # bluer than the plate, as the black balls are
    assert read(shade, code="L") == "L"               # not for the woods


def test_an_unsure_upper_ball_that_could_be_the_balls_below_is_unknown():
    """Through an empty level-2 place the view meets the balls below and the gaps between
    them; read there at P(ball) under 0.999, a ball is ``?`` when most of it could be that
    (frames 1600488, 1600753 and 1602639 in test_frames_once_misread show it)."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    samples = 10

    def read(code: str, p: float, below: str, shows: int = 8) -> str:
        """2a1 read ``code`` at P(ball) ``p``; ``shows`` of its samples would show 1a1
        (read ``below``) were it empty, the rest the gap between the balls."""
        through = np.zeros((n, samples, n), dtype=bool)
        through[index["2a1"], :shows, index["1a1"]] = True
        geo = SimpleNamespace(body=np.arange(n * samples).reshape(n, samples),
                              body_ok=np.ones((n, samples), dtype=bool), hidden=np.zeros((n, samples, n), dtype=bool),
                              through=through, aligned=[()] * n)
        r = {i: Reading("?", "x") for i in range(n)}
        r[index["2a1"]] = Reading(code, "seen", (1 - p, p, 0.0))
        r[index["1a1"]] = Reading(below, "seen")
        out = alike_below(layout, geo, r, np.full((n * samples, 3), 0.3),  # type: ignore[arg-type]
                          np.ones(n * samples, dtype=bool), np.ones(n, dtype=bool), np.full(3, 0.5), Thresholds())
        return out[index["2a1"]].code

    assert read("R", 0.995, "?") == "?" and read("R", 0.995, "R") == "?"  # 80 % could be 1a1
    assert read("R", 0.995, "B") == "R"    # 1a1 is read black: through the place it would show so
    assert read("R", 0.9995, "?") == "R"   # the model is sure enough
    assert read("B", 0.995, "W") == "B"    # only the gap (20 %) could pass for a black ball
    assert read("B", 0.995, "W", shows=2) == "?"  # ... 80 % of it
    assert read("R", 0.995, "W", shows=2) == "R"  # ... but not for a red one
    assert read("B", 0.995, ".") == "B"    # an empty support: the support rules' business


def test_an_unsure_upper_ball_that_shows_itself_where_another_colour_would_show_is_read():
    """A ball above the base most of which could be the balls below keeps its reading
    where a group of its samples (``unlike_under`` of them, ``through_count`` at least)
    would meet a lower ball read in another colour were the place empty, and look there as
    it does, not as that ball does: what an empty place would show is not what is seen."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    samples, plate = 20, np.full(3, 0.5)
    white, black = 0.6, 0.02

    def colour(v: float) -> tuple[float, ...]:
        return (math.log(v / 0.5), math.log(v / 0.5), 0.0, 0.0, 0.3, 0.0)  # level, q90, rg, bg, red, outside

    def read(over: float, shows: int = 4, th: Thresholds = Thresholds()) -> str:
        """2a1 read white at P(ball) 0.97; ``shows`` of its samples would meet 1a1, read
        black, were it empty (the rest the gap, which could be it) and show ``over``."""
        through = np.zeros((n, samples, n), dtype=bool)
        through[index["2a1"], :shows, index["1a1"]] = True
        geo = SimpleNamespace(body=np.arange(n * samples).reshape(n, samples),
                              body_ok=np.ones((n, samples), dtype=bool), hidden=np.zeros((n, samples, n), dtype=bool),
                              through=through, aligned=[()] * n)
        lin = np.full((n * samples, 3), white)
        lin[index["2a1"] * samples:index["2a1"] * samples + shows] = over
        r = {i: Reading("?", "x") for i in range(n)}
        r[index["2a1"]] = Reading("W", "seen", (0.03, 0.97, 0.0), colour=colour(white))
        r[index["1a1"]] = Reading("B", "seen", colour=colour(black))
        out = alike_below(layout, geo, r, lin, np.ones(n * samples, dtype=bool), np.ones(n, dtype=bool), plate, th)
        return out[index["2a1"]].code

    assert read(white) == "W"              # 4 of 20 samples show white where 1a1 would show black
    assert read(black) == "?"              # they show 1a1 as read: the place may be empty
    assert read(0.1) == "?"                # as near the black ball's reading as the white one's (1.6, 1.8)
    assert read(white, shows=3) == "?"     # too few samples (``through_count``)
    assert read(white, th=replace(Thresholds(), unlike_under=0.25)) == "?"
    assert read(white, shows=15) == "W"    # 25 % of it could be 1a1: never doubted


def test_a_light_wooden_level_2_ball_seen_where_a_stained_one_would_show_is_read():
    """Seed 1100052 (Pylos, plain): the light wooden level-2 ball 2a3, read at P(ball)
    0.97, was unknown because 87 % of it could be the balls below or the gaps between them.
    13 % of its samples would meet 1a4, a stained ball, were the place empty; they are 1.6
    lighter than it and of the light ball's tint (``unlike_under``)."""
    sc, image = frame_in_look(PYRAMID, 1100052, "plain")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells["2a3"] == "L" and result.observation.cells["2a3"] == "L"
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c
    without = Recognizer(PYRAMID, sc.game, thresholds=replace(Thresholds(), unlike_under=math.inf)).read(image)
    assert without.observation.cells["2a3"] == "?" and "could be the balls below" in without.details["2a3"]


def test_a_ball_that_would_show_nearly_all_unseen_balls_below_is_unknown():
    """Seen from 45 degrees, an empty level-2 place lies right before a base ball that a
    ball there would hide (their image centres 0.09 radii apart), and the model is sure of a
    ball at any P(ball) (frame 2700974 in test_frames_once_misread: 98 % of it). A ball
    read resting on it settles it."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    samples = 10

    def read(below: str, shows: int, on_top: str = "?", aligned: bool = True) -> str:
        through = np.zeros((n, samples, n), dtype=bool)
        through[index["2a1"], :shows, index["1a2"]] = True
        through[index["2a1"], shows:, index["1a1"]] = True
        right_behind = [()] * n
        right_behind[index["2a1"]] = (index["1a2"],) if aligned else ()
        geo = SimpleNamespace(body=np.arange(n * samples).reshape(n, samples),
                              body_ok=np.ones((n, samples), dtype=bool), hidden=np.zeros((n, samples, n), dtype=bool),
                              through=through, aligned=right_behind)
        r = {i: Reading("?", "x") for i in range(n)}
        r[index["2a1"]] = Reading("R", "seen", (0.0, 1.0, 0.0))
        r[index["1a2"]] = Reading(below, "seen")
        r[index["1a1"]] = Reading("W", "seen")
        r[index["3a1"]] = Reading(on_top, "seen")
        out = alike_below(layout, geo, r, np.full((n * samples, 3), 0.3),  # type: ignore[arg-type]
                          np.ones(n * samples, dtype=bool), np.ones(n, dtype=bool), np.full(3, 0.5), Thresholds())
        return out[index["2a1"]].code

    assert read("?", 10) == "?" and read("?", 9) == "?"
    assert read("?", 8) == "R"             # 20 % would show 1a1, read white: this one is seen
    assert read("R", 10) == "R"            # 1a2 is seen: were the place empty, it would show there
    assert read("?", 10, on_top="B") == "R"  # a ball rests on it: it is there
    assert read("?", 10, aligned=False) == "R"  # 1a2 is not right behind: its outline would differ


def test_a_red_upper_ball_must_be_red_all_over():
    """An empty level-2 place before a red base ball, black balls beside it, reads red; the
    samples where a ball there would hide the black ones tell (frames 1501051 and 1502480 in
    test_frames_once_misread show it)."""
    layout = Layout.of(PYRAMID)
    n = len(layout.names)
    index = {name: i for i, name in enumerate(layout.names)}
    i = index["2a1"]
    body = np.zeros((n, 10), dtype=np.intp)
    body[i] = np.arange(10)
    ok = np.zeros((n, 10), dtype=bool)
    ok[i] = True
    red, black = (0.5, 0.04, 0.04), (0.012, 0.012, 0.014)

    def read(code: str, pixels, beside: int = 5, letters: str = "WBR") -> str:
        through = np.zeros((n, 10, n), dtype=bool)
        through[i, :beside, index["1b1"]] = True  # were 2a1 empty, these samples would show 1b1
        through[i, beside:, index["1a1"]] = True  # and the rest the ball right behind it
        geo = SimpleNamespace(body=body, body_ok=ok, hidden=np.zeros((n, 10, n), dtype=bool), through=through)
        r = {j: Reading("?", "x") for j in range(n)}
        r[i] = Reading(code, "seen")
        out = red_through(layout, geo, r, np.array(pixels, dtype=float), np.ones(10, dtype=bool),  # type: ignore[arg-type]
                          np.ones(n, dtype=bool), letters, Thresholds())
        return out[i].code

    assert read("R", [black] * 5 + [red] * 5) == "?"      # black where a ball would hide the black one
    assert read("R", [red] * 10) == "R"                   # red all over: it is there
    assert read("R", [red] * 3 + [black] * 2 + [red] * 5) == "R"  # mostly red there (a black edge)
    assert read("R", [black] * 3 + [red] * 7, beside=3) == "R"    # too few samples there to tell
    assert read("B", [black] * 5 + [red] * 5) == "B"      # only red balls are checked
    assert read("R", [black] * 5 + [red] * 5, letters="LD") == "R"  # Pylos has none


def blot(image: np.ndarray, cam: Camera, board, keep: set[int]) -> np.ndarray:
    out = image.copy()
    for m in board.markers:
        if m.id not in keep:
            h = board.marker_size / 2 + 5
            x, y = m.centre
            quad = cam.project([(x - h, y - h, 0), (x + h, y - h, 0), (x + h, y + h, 0), (x - h, y + h, 0)])
            cv2.fillConvexPoly(out, np.rint(quad).astype(np.int32), (140, 184, 214))
    return out


@pytest.mark.parametrize("image, message", [
    (np.zeros((480, 640, 3), np.uint8), "blank frame"),
    (np.random.default_rng(3).integers(0, 256, (480, 640, 3), dtype=np.uint8), "no marker"),
    (np.full((480, 640, 3), 90, np.uint8), "blank frame"),
    (np.zeros((8, 8, 3), np.uint8), "too small"),
    (b"\x89PNG garbage", "not an image"),
    (None, "not an image"),
])
def test_frames_without_a_board_are_all_unknown(image, message):
    result = recognize(image, PYRAMID, "sparks", t=3.0)
    assert not result.ok and message in result.error
    assert result.observation.t == 3.0
    assert set(result.observation.cells.values()) == {"?"}
    assert len(result.observation.cells) == 30


def test_one_marker_is_all_unknown():
    cam = Camera.look_at((0, -200, 450), (0, 0, 0), 60, 640, 480)
    frame = render(PYRAMID, {"1a1": "W"}, cam, rng=random.Random(1), noise=1.0)
    assert recognize(frame.image, PYRAMID, "sparks").ok
    result = recognize(blot(frame.image, cam, PYRAMID, {2}), PYRAMID, "sparks")
    assert not result.ok and "only marker 2" in result.error
    assert set(result.observation.cells.values()) == {"?"}
    grid = recognize(np.zeros((480, 640, 3), np.uint8), GRID)
    assert grid.game == "sparklies" and set(grid.observation.cells.values()) == {"??"}


def test_a_board_for_another_game_is_refused():
    with pytest.raises(RecognitionError, match="not sparklies"):
        Recognizer(PYRAMID, "sparklies")
    assert Recognizer(PYRAMID).game == "pylos"


def test_observation_line_and_json():
    cam = Camera.look_at((0, -200, 450), (0, 0, 0), 60, 640, 480)
    frame = render(PYRAMID, {"1a1": "W", "1b1": "R"}, cam, rng=random.Random(2), noise=1.0)
    result = recognize(frame.image, PYRAMID, "sparks", t=1.5)
    line = json.loads(result.observation.to_line())
    assert line["t"] == 1.5 and set(line["cells"]) == {p.name for p in PYRAMID.positions}
    assert isinstance(result.observation, Observation)
    data = result.to_json()
    assert data["pose"]["markers"] == [0, 1, 2, 3] and data["board"] == "pyramid-4"
    assert set(data["details"]) == set(line["cells"])


def write_png(path, image) -> str:
    cv2.imwrite(str(path), image)
    return str(path)


def test_cli_recognize(tmp_path, capsys):
    cam = Camera.look_at((0, -200, 450), (0, 0, 0), 60, 640, 480)
    frame = render(PYRAMID, {"1a1": "W", "1b1": "B"}, cam, rng=random.Random(4), noise=1.0)
    good = write_png(tmp_path / "good.png", frame.image)
    black = write_png(tmp_path / "black.png", np.zeros((480, 640, 3), np.uint8))
    assert arbiter(["recognize", "--board", "pyramid-4", "--game", "sparks", good]) == 0
    out = capsys.readouterr()
    lines = out.out.strip().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["t"] == 0.0
    assert arbiter(["recognize", "--board", "pyramid-4", "--game", "sparks", good, black]) == 1
    out = capsys.readouterr()
    assert len(out.out.strip().splitlines()) == 2
    assert "black.png: blank frame" in out.err
    assert arbiter(["recognize", "--board", "pyramid-4", good, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["image"] == good and data[0]["game"] == "pylos" and "pose" in data[0]


def test_cli_recognize_bad_input(tmp_path, capsys):
    garbage = tmp_path / "garbage.jpg"
    garbage.write_bytes(b"\x00\x01 not a jpeg")
    assert arbiter(["recognize", "--board", "pyramid-4", str(garbage)]) == 2
    out = capsys.readouterr()
    assert "garbage.jpg: not an image" in out.err
    assert set(json.loads(out.out)["cells"].values()) == {"?"}
    assert arbiter(["recognize", "--board", "pyramid-4", str(tmp_path / "missing.png")]) == 2
    assert "missing.png" in capsys.readouterr().err
    assert arbiter(["recognize", "--board", "nonesuch", str(garbage)]) == 2
    assert "no board 'nonesuch'" in capsys.readouterr().err
    assert arbiter(["recognize", "--board", "pyramid-4", "--game", "sparklies", str(garbage)]) == 2
    assert arbiter(["recognize", "--board", "pyramid-4", "--camera", str(garbage), str(garbage)]) == 2
    assert "garbage.jpg: not JSON" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        arbiter(["recognize", "--board", "pyramid-4"])
    assert exc.value.code == 2


#: floors a little under the measured figures (docs/vision.md): on these sets, 54 % of
#: the pyramid positions and 53 % of the grid characters were read (the rest ``?``); the
#: seed-101 set reads 50.7 % right, its webcam sets 55.9 % (pyramid) and 44.7 % (grid)
ACCURACY_FLOOR = 0.50
WEBCAM_FLOOR = 0.50
WEBCAM_GRID_FLOOR = 0.40
BOARD_FLOOR = 0.0
GRID_FLOOR = 0.45
