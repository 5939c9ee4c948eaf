"""The synthetic renderer (vision/render*.py): the camera projects as OpenCV does, rendered
pieces and markers are where the geometry says (ArUco on a rendered frame gives the camera
pose back), pieces and hands hide what they should and the ground truth says so, and light,
noise, blur and JPEG change the image as they should. Small resolutions keep it quick."""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
import pytest

from vision.geometry import load_board
from vision.render import (Camera, Hand, Lighting, Stage, random_camera, random_hand, random_lighting, render,
                           sees_board)
from vision.render_camera import RESOLUTIONS, plate_points
from vision.render_hand import hand_motion
from vision.render_light import soft_lighting
from vision.render_scene import PLACED_SHIFT, PLACED_TURN, Placed, build_scene, hand_placed
from vision.render_webcam import Webcam

PYRAMID = load_board("pyramid-4")
GRID = load_board("grid-9")
BASE = [p.name for p in PYRAMID.positions if p.name.startswith("1")]
LEVEL2 = [p.name for p in PYRAMID.positions if p.name.startswith("2")]
SMALL = ((800, 600),)


def detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_CONTOUR  # the most accurate here
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def overhead(distance: float = 500.0, fov: float = 60.0, size: tuple[int, int] = (640, 480)) -> Camera:
    return Camera.look_at((0, 0, distance), (0, 0, 0), fov, *size)


def checker(names: list[str]) -> dict[str, str]:
    return {n: "WB"[(ord(n[1]) + int(n[2])) % 2] for n in names}


def full_board(board, rng: random.Random) -> dict[str, str]:
    if board.kind == "pyramid":
        return {p.name: rng.choice("WB") for p in board.positions if p.name != "4a1"} | {"4a1": "R"}
    return {p.name: rng.choice("RGB") + rng.choice(".bw") for p in board.positions}


def low_pieces(board, rng: random.Random) -> dict[str, str]:
    """Pieces that cannot hide a marker or touch one in the image with a dark blot (a tall
    pyramid or a black ball next to a marker hides it from ArUco, as on a real board)."""
    if board.kind == "pyramid":
        return {n: rng.choice("WL") for n in BASE} | {"2b2": "W"}
    return full_board(board, rng)


def pixel(frame, point) -> np.ndarray:
    u, v = frame.camera.project([point])[0]
    return frame.image[int(round(v)), int(round(u))].astype(int)


def rotation_error_deg(a: np.ndarray, b: np.ndarray) -> float:
    return math.degrees(math.acos(np.clip((np.trace(a @ b.T) - 1) / 2, -1.0, 1.0)))


# --- the camera --------------------------------------------------------------------------


def test_look_at_aims_at_the_target_and_projects_as_opencv_does():
    cam = Camera.look_at((120, -300, 400), (10, 20, 0), 70, 800, 600, roll_deg=5)
    assert np.allclose(cam.R @ cam.R.T, np.eye(3)) and np.linalg.det(cam.R) == pytest.approx(1)
    assert np.allclose(cam.centre, (120, -300, 400))
    assert np.allclose(cam.project([(10, 20, 0)]), [[399.5, 299.5]])
    assert cam.fov_h_deg == pytest.approx(70)
    assert np.allclose(cam.K, [[cam.fx, 0, 399.5], [0, cam.fy, 299.5], [0, 0, 1]])
    points = np.random.default_rng(1).uniform(-150, 150, (50, 3))
    rvec, _ = cv2.Rodrigues(cam.R)
    expected, _ = cv2.projectPoints(points, rvec, cam.t, cam.K, None)
    assert np.allclose(cam.project(points), expected.reshape(-1, 2), atol=1e-6)
    # looking straight down, the board reads like a diagram: x to the right, y upwards
    top = overhead()
    (u0, v0), (u1, v1), (u2, v2) = top.project([(0, 0, 0), (50, 0, 0), (0, 50, 0)])
    assert u1 > u0 and v1 == pytest.approx(v0) and v2 < v0 and u2 == pytest.approx(u0)
    assert np.isnan(top.project([(0, 0, 900)])).all()  # behind the camera


@pytest.mark.parametrize("board", [PYRAMID, GRID], ids=lambda b: b.name)
def test_solvepnp_on_projected_marker_corners_recovers_the_pose(board):
    rng = random.Random(11)
    for _ in range(5):
        cam = random_camera(board, rng)
        world = np.array([c for m in board.markers for c in board.marker_corners(m)])
        ok, rvec, tvec = cv2.solvePnP(world, cam.project(world), cam.K, None)
        assert ok
        assert np.allclose(cv2.Rodrigues(rvec)[0], cam.R, atol=1e-6)
        assert np.allclose(tvec.ravel(), cam.t, atol=1e-3)


@pytest.mark.parametrize("board", [PYRAMID, GRID], ids=lambda b: b.name)
def test_random_cameras_stay_in_the_envelope_and_see_the_whole_board(board):
    rng = random.Random(5)
    for _ in range(60):
        cam = random_camera(board, rng)
        assert sees_board(cam, board)
        axis = cam.R[2]  # the viewing direction in the world
        assert math.degrees(math.acos(-axis[2])) <= 45 + 3  # the aim point wanders 15 mm
        assert 350 - 15 <= np.linalg.norm(cam.centre) <= 800 + 15
        assert 50 - 1e-9 <= cam.fov_h_deg <= 90 + 1e-9
        assert (cam.width, cam.height) in RESOLUTIONS
    a, b = random_camera(board, random.Random(9)), random_camera(board, random.Random(9))
    assert np.array_equal(a.R, b.R) and np.array_equal(a.t, b.t) and a.width == b.width


def test_random_camera_refuses_an_impossible_envelope():
    with pytest.raises(ValueError, match="no camera"):
        random_camera(GRID, random.Random(1), distance_mm=(200, 210), fov_deg=(50, 51), attempts=50)


# --- where things are drawn ----------------------------------------------------------------


@pytest.mark.parametrize("name, supersample", [("1a1", 1), ("1c2", 1), ("1d4", 2)])
def test_a_rendered_ball_is_where_the_camera_projects_its_centre(name, supersample):
    cam = Camera.look_at((140, -260, 380), (0, 0, 0), 62, 640, 480, roll_deg=-4)
    frame = render(PYRAMID, {name: "R"}, cam, supersample=supersample)
    b, g, r = (frame.image[..., k].astype(int) for k in range(3))
    red = ((r > 60) & (r > 2 * g) & (r > 2 * b)).astype(np.uint8)
    contours, _ = cv2.findContours(red, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    silhouette = max(contours, key=cv2.contourArea)
    (u, v), radius = cv2.minEnclosingCircle(silhouette)
    expected = cam.project([PYRAMID.position(name).centre])[0]
    assert np.hypot(u - expected[0], v - expected[1]) < 1.0
    depth = cam.to_camera([PYRAMID.position(name).centre])[0, 2]
    assert radius == pytest.approx(cam.fx * 15 / depth, abs=1.5)


@pytest.mark.parametrize("board", [PYRAMID, GRID], ids=lambda b: b.name)
def test_aruco_on_rendered_frames_finds_every_marker_in_order_and_the_camera_pose(board):
    rng = random.Random(21)
    det = detector()
    for _ in range(4):
        # markers of 13 px or less (the far end of the envelope at 640x480) are beyond what
        # ArUco decodes; half the distance range keeps them above 20 px
        cam = random_camera(board, rng, resolutions=SMALL, distance_mm=(350, 600))
        frame = render(board, low_pieces(board, rng), cam, lighting=random_lighting(rng, intensity=(0.6, 1.6)),
                       rng=rng, noise=1.5, blur=0.5)
        corners, ids, _ = det.detectMarkers(frame.image)
        assert ids is not None and sorted(ids.ravel()) == sorted(m.id for m in board.markers)
        world, seen = [], []
        for quad, marker_id in zip(corners, ids.ravel()):
            marker = next(m for m in board.markers if m.id == marker_id)
            expected = cam.project(board.marker_corners(marker))
            found = quad.reshape(4, 2)
            # each detected corner is the geometry's corner of the same rank, not another one
            distance = np.linalg.norm(found[:, None, :] - expected[None, :, :], axis=2)
            assert (distance.argmin(axis=1) == np.arange(4)).all()
            assert distance.diagonal().max() < 3.0
            world.append(board.marker_corners(marker))
            seen.append(found)
        ok, rvec, tvec = cv2.solvePnP(np.concatenate(world).astype(np.float64),
                                      np.concatenate(seen).astype(np.float64), cam.K, None)
        R = cv2.Rodrigues(rvec)[0]
        assert rotation_error_deg(R, cam.R) < 0.3
        assert np.linalg.norm(-R.T @ tvec.ravel() - cam.centre) < 3.0


@pytest.mark.parametrize("board", [PYRAMID, GRID], ids=lambda b: b.name)
def test_a_45_degree_camera_at_800_mm_with_a_90_degree_lens_sees_every_marker_and_the_plate(board):
    plate_colour = np.array(board.plate_colour[::-1])
    for azimuth in range(0, 360, 45):
        a = math.radians(azimuth)
        reach = 800 * math.sin(math.pi / 4)
        eye = (reach * math.cos(a), reach * math.sin(a), 800 * math.cos(math.pi / 4))
        cam = Camera.look_at(eye, (0, 0, 0), 90, 640, 480)
        assert sees_board(cam, board), azimuth
        uv = cam.project(plate_points(board))
        assert (uv >= 0).all() and (uv[:, 0] < 640).all() and (uv[:, 1] < 480).all()
        if azimuth % 90:
            continue
        frame = render(board, {}, cam)
        for marker in board.markers:
            # the printed marker is there: black ink inside its square, unlike the wood around
            quad = cam.project(board.marker_corners(marker)).astype(np.float32)
            mask = np.zeros((480, 640), np.uint8)
            cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
            inside = frame.image[mask.astype(bool)].astype(int).mean(axis=1)
            assert (inside < 0.35 * plate_colour.mean()).mean() > 0.3, (azimuth, marker.id)


def test_a_ball_on_top_hides_the_balls_under_it():
    cam = overhead(450)
    below = checker(BASE) | checker(LEVEL2) | {"1b2": "W"}
    sun = Lighting((0, 0, 1))  # straight down the gap
    open_gap = render(PYRAMID, below, cam, lighting=sun)
    # level 1's 1b2 shows through the gap between four level-2 balls...
    assert open_gap.truth["1b2"].area > 30 and open_gap.truth["1b2"].in_view
    assert (pixel(open_gap, (-15.5, -15.5, 26)) > 150).all()
    # ...until 3a1 fills it: 1b2's pixels now show the red ball
    closed = render(PYRAMID, below | {"3a1": "R"}, cam, lighting=sun)
    b, g, r = pixel(closed, PYRAMID.position("1b2").centre)
    assert r > 2 * g and r > 2 * b
    assert closed.truth["1b2"].area == 0 and closed.truth["1b2"].in_view
    assert closed.truth["3a1"].area > 400
    # a level-2 ball hides part of the balls it rests on from a tilted camera
    tilted = Camera.look_at((-150, -300, 350), (0, 0, 0), 60, 640, 480)
    alone = render(PYRAMID, checker(BASE), tilted).truth
    under = render(PYRAMID, checker(BASE) | {"2b2": "R"}, tilted).truth
    for name in ("1c2", "1b3", "1c3"):  # the three it rests on beyond it, seen from the camera
        assert under[name].area < alone[name].area
    assert under["1c3"].area < 0.3 * alone["1c3"].area  # right behind it
    assert under["1b2"].area == alone["1b2"].area and under["1a1"].area == alone["1a1"].area


def test_grid_cells_show_their_tile_and_controller_plate():
    cam = overhead(600, 55)
    cells = {"e5": "R.", "f5": "Gb", "g5": "Bw", "e6": ".b", "f6": ".."}
    frame = render(GRID, cells, cam)

    def at(name, dx=0.0, z=0.0):
        x, y, _ = GRID.position(name).centre
        return pixel(frame, (x + dx, y, z))[::-1]  # RGB

    r, g, b = at("e5", z=3)
    assert r > 2 * g and r > 2 * b
    r, g, b = at("f5", z=5)
    assert g > 1.5 * r and g > 1.3 * b
    r, g, b = at("g5", z=5)
    assert b > 1.5 * r and b > 1.3 * g
    # the control plate shows as a 2.5 mm rim around the tile: black, white, or no plate (wood)
    rim = 10.25
    assert at("f5", rim, 2).max() < 90
    assert at("g5", rim, 2).min() > 170
    wood = at("e5", rim)
    assert wood[0] > wood[2] + 25 and wood.min() > 60
    assert at("e6", 0, 2).max() < 90  # a plate without a tile
    plain = at("f6")
    assert plain[0] > plain[2] + 25
    assert all(frame.truth[n].in_view and frame.truth[n].area > 50 for n in cells)


def test_pieces_put_down_by_hand_lie_shifted_and_turned_where_placed_says():
    cam = overhead(600, 55)
    cells = {"e5": "Rb", "f5": "G.", "d5": "Bw"}
    true = render(GRID, cells, cam)
    placed = {"e5": Placed(control=(2.0, 0.0, 0.0)), "f5": Placed(tile=(0.0, 0.0, 20.0))}
    frame = render(GRID, cells, cam, placed=placed)

    def at(f, name, dx, dy=0.0, z=2.0):
        x, y, _ = GRID.position(name).centre
        return pixel(f, (x + dx, y + dy, z))[::-1]  # RGB

    # the black plate moved 2 mm towards +x, its tile with it: wood shows on its left, the
    # plate's rim beyond its old right edge
    assert at(true, "e5", -11.0).max() < 90 and at(frame, "e5", -11.0)[0] > at(frame, "e5", -11.0)[2] + 25
    assert at(true, "e5", 12.5, z=0)[0] > 100 and at(frame, "e5", 12.5).max() < 90
    r, g, b = at(frame, "e5", 1.5, z=5)
    assert r > 2 * g and r > 2 * b
    # a green tile on bare wood turned 20 degrees: a point beyond its straight edge is on it
    # now, and one inside its old corner is wood
    wood = at(true, "f5", 9.5, -2.0, z=0)
    assert wood[0] > wood[2] + 25
    g_here = at(frame, "f5", 9.5, -2.0, z=3)
    assert g_here[1] > 1.5 * g_here[0]
    corner = at(frame, "f5", 8.5, 8.5, z=0)
    assert corner[0] > corner[2] + 25  # wood
    # a cell placed true is as it was, and the truth follows the turned tile
    untouched = np.abs(frame.image.astype(int) - true.image.astype(int)).sum(axis=2)
    x, y, _ = GRID.position("d5").centre
    u, v = cam.project([(x - 5, y, 0)])[0]
    assert untouched[int(v) - 3:int(v) + 4, int(u) - 3:int(u) + 4].max() == 0
    proxy = dict(build_scene(GRID, cells, placed=placed).proxies)["f5"]
    assert proxy.turn == 20.0  # the truth measures the tile's top as it lies
    assert frame.truth["f5"].area == pytest.approx(true.truth["f5"].area, rel=0.12)  # pixels on its edge
    # all true is the frame rendered without placements, byte for byte
    level = render(GRID, cells, cam, placed={n: Placed() for n in cells})
    assert np.array_equal(level.image, true.image)


def test_hand_placed_draws_every_cell_within_its_limits_and_repeats_with_its_seed():
    placed = hand_placed(GRID, random.Random(5))
    assert set(placed) == {p.name for p in GRID.positions}
    for where in placed.values():
        for dx, dy, turn in (where.control, where.tile):
            assert abs(dx) <= PLACED_SHIFT and abs(dy) <= PLACED_SHIFT and abs(turn) <= PLACED_TURN
    turns = [w.tile[2] for w in placed.values()]
    assert max(turns) > PLACED_TURN / 2 and min(turns) < -PLACED_TURN / 2
    assert hand_placed(GRID, random.Random(5)) == placed != hand_placed(GRID, random.Random(6))


# --- hands -------------------------------------------------------------------------------


def test_a_hand_covers_what_its_mask_says_and_the_truth_names_the_covered_positions():
    cam = Camera.look_at((60, -350, 420), (0, 0, 0), 60, 640, 480)
    green = Hand((40, 200, 60), *_parts(random_hand(PYRAMID, random.Random(3), over=(0, -60), height_mm=(60, 60))))
    cells = checker(BASE) | {"2b2": "R"}
    light = Lighting((0.3, -0.2, 0.9), intensity=0.9, ambient=0.3)
    plain = render(PYRAMID, cells, cam, lighting=light)
    frame = render(PYRAMID, cells, cam, lighting=light, hands=[green])
    mask = frame.hand_mask
    assert 0.05 < mask.mean() < 0.6 and not plain.hand_mask.any()
    b, g, r = (frame.image[..., k].astype(int) for k in range(3))
    is_green = (g > r + 30) & (g > b + 30)
    assert is_green[mask].mean() > 0.97
    assert is_green[~mask].mean() < 0.002
    # outside the mask the hand only takes light away (its shadow)
    outside = frame.image[~mask].astype(int) - plain.image[~mask].astype(int)
    assert outside.max() <= 1 and (outside < -10).any()
    covered = [n for n, t in frame.truth.items() if t.hand]
    assert covered and len(covered) < len(frame.truth)
    for name, truth in frame.truth.items():
        u, v = np.round(cam.project([PYRAMID.position(name).centre])[0]).astype(int)
        visible_centre = plain.truth[name].area > 0 and truth.in_view
        if truth.covered == 1.0:
            assert mask[v, u], name
        if not truth.hand and visible_centre and 0 <= v < 480 and 0 <= u < 640:
            assert not mask[v, u] or plain.truth[name].area == 0, name
        assert truth.area == plain.truth[name].area  # hands do not change what pieces hide
    assert frame.truth["2b2"].covered > 0.9


def _parts(hand: Hand):
    return hand.capsules, hand.ellipsoids


def test_a_hand_moving_while_the_shutter_is_open_is_blurred_along_its_travel():
    cam = overhead(450, 60)
    green = Hand((40, 200, 60), *_parts(random_hand(PYRAMID, random.Random(3), over=(0, -60), height_mm=(60, 60))))
    cells = checker(BASE)
    still = render(PYRAMID, cells, cam, hands=[green])
    travel = (40.0, 0.0, 0.0)
    moving = render(PYRAMID, cells, cam, hands=[green], hand_travel=travel)
    # the mask is every pixel the hand crossed: the still hand's and those 20 mm either side
    assert (still.hand_mask <= moving.hand_mask).all()
    assert moving.hand_mask.sum() > 1.1 * still.hand_mask.sum()
    for shift in (-20.0, 20.0):
        assert (render(PYRAMID, cells, cam, hands=[green.moved((shift, 0, 0))]).hand_mask <= moving.hand_mask).all()
    # the truth is the middle instant's, where the hand is
    assert {n: t.covered for n, t in moving.truth.items()} == {n: t.covered for n, t in still.truth.items()}
    # where the hand was for part of the exposure only, the board shows through it
    b, g, r = (moving.image[..., k].astype(int) for k in range(3))
    green_now = (g > r + 30) & (g > b + 30)
    partly = moving.hand_mask & ~green_now
    assert partly.sum() > 0.1 * moving.hand_mask.sum()
    sb, sg, sr = (still.image[..., k].astype(int) for k in range(3))
    assert ((sg > sr + 30) & (sg > sb + 30))[still.hand_mask].mean() > 0.97
    # a frame with no hand is the same with or without a travel
    assert np.array_equal(render(PYRAMID, cells, cam, hand_travel=travel).image, render(PYRAMID, cells, cam).image)
    with pytest.raises(ValueError, match="hand_travel"):
        render(PYRAMID, cells, cam, hands=[green], hand_travel=(1.0, 2.0))


def test_random_hand_motion_is_a_plausible_travel_during_one_exposure():
    rng = random.Random(4)
    for _ in range(200):
        x, y, z = hand_motion(rng)
        length = math.sqrt(x * x + y * y + z * z)
        assert 10 - 1e-9 <= length <= 60 + 1e-9
        assert abs(z) <= math.hypot(x, y) / 3 + 1e-9


def test_random_hands_hover_at_the_asked_height_and_reach_in_from_beyond_the_plate():
    rng = random.Random(8)
    for _ in range(40):
        hand = random_hand(GRID, rng)
        assert 20 - 1e-6 <= hand.lowest <= 150 + 1e-6
        assert len(hand.capsules) == 6 and len(hand.ellipsoids) == 1  # 4 fingers, a thumb, an arm; a palm
        arm = hand.capsules[-1]
        assert max(abs(arm.b[0]), abs(arm.b[1])) > GRID.plate[0] / 2 - 60  # the elbow is near or past the edge
        assert max(hand.colour) - min(hand.colour) > 30  # skin, not grey
    low = random_hand(PYRAMID, rng, height_mm=(25, 25), over=(0, 0))
    assert low.lowest == pytest.approx(25)
    frame = render(PYRAMID, {}, overhead(), hands=[low])
    assert frame.truth["1b2"].hand and frame.truth["1b2"].covered > 0.5


# --- light and camera effects --------------------------------------------------------------


def test_light_intensity_colour_and_direction_change_the_image_as_they_should():
    cam = overhead(400, 50)
    cells = {"1b2": "W"}
    dim = render(PYRAMID, cells, cam, lighting=Lighting(intensity=0.4, ambient=0.1)).image
    bright = render(PYRAMID, cells, cam, lighting=Lighting(intensity=1.2, ambient=0.3)).image
    assert bright.mean() > dim.mean() + 30
    warm = render(PYRAMID, cells, cam, lighting=Lighting(colour=(1.0, 0.8, 0.58))).image.reshape(-1, 3).mean(0)
    cool = render(PYRAMID, cells, cam, lighting=Lighting(colour=(0.76, 0.87, 1.0))).image.reshape(-1, 3).mean(0)
    assert warm[2] / warm[0] > 1.2 * cool[2] / cool[0]  # BGR: red over blue
    # a ball lit from +x is brighter on its +x side
    x, y, z = PYRAMID.position("1b2").centre
    lit = render(PYRAMID, cells, cam, lighting=Lighting((1, 0, 0.3), ambient=0.1))
    assert pixel(lit, (x + 10, y, z + 8)).mean() > pixel(lit, (x - 10, y, z + 8)).mean() + 60
    # and casts its shadow on the plate away from the light
    light = Lighting((-0.6, -0.6, 0.53), ambient=0.15)
    reach = (z / light.direction[2])
    spot = (x - light.direction[0] * reach, y - light.direction[1] * reach, 0.0)
    empty = pixel(render(PYRAMID, {}, cam, lighting=light), spot).mean()
    shaded = pixel(render(PYRAMID, cells, cam, lighting=light), spot).mean()
    assert shaded < 0.6 * empty


def test_a_light_with_a_size_softens_the_shadows_edge_and_bounce_lights_the_undersides():
    """A lamp of some size casts a penumbra: across the edge of a ball's shadow the plate
    darkens over a longer stretch than under a point light, and the same light keeps the
    shadow's core. Bounce light from the plate brightens a ball's underside, in the
    plate's colour, and leaves the plate alone."""
    cam = overhead(400, 50, (640, 480))
    cells = {"1a2": "W"}  # by the plate's edge: nothing else lies where its shadow falls
    x, y, z = PYRAMID.position("1a2").centre
    up = math.radians(35)
    point = Lighting((math.cos(up), 0.0, math.sin(up)), ambient=0.15)
    lamp = Lighting((math.cos(up), 0.0, math.sin(up)), ambient=0.15, size=12.0)
    # a line on the plate across the shadow's edge, beyond the ball: its shadow is an
    # ellipse centred z / tan(up) away from the light, 15 / sin(up) long and 15 wide
    line = [(x - 30, y + d, 0.0) for d in np.linspace(0, 30, 61)]
    spots = np.rint(cam.project(line)).astype(int)

    def profile(light):
        grey = cv2.cvtColor(render(PYRAMID, cells, cam, lighting=light).image, cv2.COLOR_BGR2GRAY).astype(float)
        return np.array([grey[v, u] for u, v in spots])

    hard, soft = profile(point), profile(lamp)
    lo, hi = hard.min(), hard.max()
    assert hi - lo > 40  # the line crosses the shadow's edge
    ramp = lambda p: int(((p > lo + 0.1 * (hi - lo)) & (p < hi - 0.1 * (hi - lo))).sum())  # noqa: E731
    assert ramp(soft) >= 2 * ramp(hard) + 4, (ramp(soft), ramp(hard))
    assert soft[0] < lo + 0.2 * (hi - lo)  # the core stays dark
    # bounce: the underside of a ball seen from low down, lit by the plate below
    side = Camera.look_at((0, -450, 120), (x, y, z), 40, 640, 480)
    plain = render(PYRAMID, cells, side, lighting=Lighting((0.0, 0.3, 0.95), ambient=0.1))
    bounced = render(PYRAMID, cells, side, lighting=Lighting((0.0, 0.3, 0.95), ambient=0.1, bounce=1.0))
    below = pixel(bounced, (x, y - 10, z - 10)) - pixel(plain, (x, y - 10, z - 10))
    assert below.sum() > 30 and below[2] > below[0]  # BGR: brighter, redder than bluer, as the wood
    assert np.array_equal(pixel(bounced, (x + 60, y + 40, 0.0)), pixel(plain, (x + 60, y + 40, 0.0)))
    # the light's points lie within its angular radius, above the horizon
    towards = lamp.directions()
    assert len(towards) > 1 and (towards[:, 2] > 0).all()
    angles = np.degrees(np.arccos(np.clip(towards @ np.asarray(lamp.direction), -1, 1)))
    assert angles.max() <= 12.0 + 1e-6 and angles.max() > 8.0
    assert Lighting().directions().shape == (1, 3)


def test_hollows_are_darker_than_the_flat_plate_around_them():
    cam = overhead(400, 50)
    frame = render(PYRAMID, {}, cam, lighting=Lighting((0.4, 0.3, 0.87), ambient=0.25))
    grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY).astype(float)
    for name in BASE:
        x, y, _ = PYRAMID.position(name).centre
        ring = cam.project([(x + 13 * math.cos(a), y + 13 * math.sin(a), 0) for a in np.linspace(0, 2 * math.pi, 12)])
        inner = cam.project([(x + 9 * math.cos(a), y + 9 * math.sin(a), -2) for a in np.linspace(0, 2 * math.pi, 12)])
        sample = lambda uv: np.mean([grey[int(round(v)), int(round(u))] for u, v in uv])  # noqa: E731
        assert sample(inner) < sample(ring) - 5, name


def test_sensor_noise_has_the_asked_standard_deviation():
    cam = overhead(size=(320, 240))
    clean = render(PYRAMID, checker(BASE), cam).image.astype(float)
    noisy = render(PYRAMID, checker(BASE), cam, rng=np.random.default_rng(4), noise=5.0).image.astype(float)
    usable = (clean > 20) & (clean < 235)
    residual = (noisy - clean)[usable]
    assert residual.std() == pytest.approx(5.0, rel=0.06)
    assert abs(residual.mean()) < 0.1


def test_blur_softens_edges_and_keeps_the_brightness():
    cam = overhead(size=(320, 240))
    sharp = render(PYRAMID, checker(BASE), cam).image
    soft = render(PYRAMID, checker(BASE), cam, blur=1.5).image
    energy = lambda im: cv2.Laplacian(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()  # noqa: E731
    assert energy(soft) < 0.3 * energy(sharp)
    # blur mixes light, not sRGB levels: the mean light is kept
    linear = lambda im: ((im / 255.0 + 0.055) / 1.055) ** 2.4  # noqa: E731
    assert linear(soft).mean() == pytest.approx(linear(sharp).mean(), rel=0.01)


def test_jpeg_is_a_round_trip_of_the_frame_at_the_asked_quality():
    cam = overhead(size=(320, 240))
    raw = render(PYRAMID, checker(BASE), cam).image
    frame = render(PYRAMID, checker(BASE), cam, jpeg_quality=60)
    ok, data = cv2.imencode(".jpg", raw, [cv2.IMWRITE_JPEG_QUALITY, 60])
    assert frame.jpeg == data.tobytes()
    assert np.array_equal(frame.image, cv2.imdecode(data, cv2.IMREAD_COLOR))
    assert np.array_equal(cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_COLOR), frame.image)
    assert not np.array_equal(frame.image, raw)
    best = render(PYRAMID, checker(BASE), cam, jpeg_quality=95)
    assert len(best.jpeg) > len(frame.jpeg)
    assert np.abs(best.image.astype(int) - raw).mean() < np.abs(frame.image.astype(int) - raw).mean()


def test_the_same_seed_gives_the_same_frame_and_another_seed_another():
    def frame(seed: int, wood: int = 0):
        rng = random.Random(seed)
        cam = random_camera(PYRAMID, rng, resolutions=((320, 240),))
        return render(PYRAMID, full_board(PYRAMID, rng), cam, lighting=random_lighting(rng),
                      hands=[random_hand(PYRAMID, rng)], rng=rng, noise=2.0, blur=0.5, wood_seed=wood)
    a, b, c = frame(1), frame(1), frame(2)
    assert np.array_equal(a.image, b.image) and np.array_equal(a.hand_mask, b.hand_mask) and a.truth == b.truth
    assert not np.array_equal(a.image, c.image)
    assert not np.array_equal(a.image, frame(1, wood=1).image)  # another plank of wood


@pytest.mark.parametrize("board,supersample", [(PYRAMID, 1), (GRID, 1), (PYRAMID, 2)])
def test_frames_from_a_shared_stage_are_the_frames_rendered_without_it(board, supersample):
    """A game rendered frame by frame shares the empty board under its camera (a Stage):
    pieces, hands and hollows must come out exactly as in a frame rendered on its own, and
    a stage made for another camera is refused. The stage keeps the empty board's shading
    for each look (wood, table, light): frames in other looks through the same stage, a
    light with a size, grained balls and a moving hand must come out exact too."""
    rng = random.Random(5)
    cam = random_camera(board, rng, resolutions=((320, 240),))
    stage = Stage.of(board, cam, supersample)
    looks = [{}, {}, {"lighting": random_lighting(random.Random(1))}, {"wood_seed": 4, "table_colour": (120, 96, 80)},
             {"lighting": soft_lighting(random.Random(2)), "ball_grain": 0.6}, {"hand_travel": (8.0, -3.0, 2.0)},
             {"lighting": random_lighting(random.Random(1)), "wood_seed": 4}]
    for k, look in enumerate(looks):
        cells = full_board(board, random.Random(k))
        hands = [random_hand(board, random.Random(k))] if k else []
        look = {"wood_seed": 3, **look}
        alone = render(board, cells, cam, hands=hands, blur=0.5, supersample=supersample, **look)
        shared = render(board, cells, cam, hands=hands, blur=0.5, supersample=supersample, stage=stage, **look)
        assert np.array_equal(alone.image, shared.image), look
        assert np.array_equal(alone.hand_mask, shared.hand_mask) and alone.truth == shared.truth
    other = random_camera(board, rng, resolutions=((320, 240),))
    with pytest.raises(ValueError, match="another board, camera or supersampling"):
        render(board, {}, other, supersample=supersample, stage=stage)


def test_random_lighting_ranges_from_dim_to_bright_and_warm_to_cool():
    rng = random.Random(2)
    lights = [random_lighting(rng) for _ in range(200)]
    assert all(30 - 1e-9 <= light.elevation_deg <= 85 + 1e-9 for light in lights)
    assert all(np.isclose(np.linalg.norm(light.direction), 1) for light in lights)
    levels = [light.intensity for light in lights]
    assert min(levels) < 0.45 and max(levels) > 1.3
    ratio = [light.colour[2] / light.colour[0] for light in lights]
    assert min(ratio) < 0.7 and max(ratio) > 1.2


def test_wooden_balls_show_their_grain_when_asked_and_nothing_else_changes():
    cam = overhead(300, 40, (1280, 720))
    cells = {"1a1": "L", "1a2": "D", "1b1": "W", "1b2": "R"}
    plain = render(PYRAMID, cells, cam)
    grained = render(PYRAMID, cells, cam, ball_grain=1.0)
    diff = np.abs(grained.image.astype(int) - plain.image.astype(int)).sum(axis=2)
    r_px = 15.0 * cam.fx / 289.0  # a base ball's radius in pixels, seen from 289 mm
    yy, xx = np.mgrid[:720, :1280]

    def disc_of(name: str, radii: float) -> np.ndarray:
        u, v = cam.project([PYRAMID.position(name).centre])[0]
        return (xx - u) ** 2 + (yy - v) ** 2 < (radii * r_px) ** 2

    changed = {}
    for name in cells:
        disc = disc_of(name, 0.7)
        changed[name] = float(diff[disc].mean())
        if cells[name] in "LD":  # the grain darkens the wood on average a little, no more
            ratio = grained.image[disc].mean() / plain.image[disc].mean()
            assert 0.85 < ratio < 1.0, (name, ratio)
    assert changed["1a1"] > 8 and changed["1a2"] > 1  # light wood shows its rings, stained less
    assert changed["1a1"] > 2 * changed["1a2"]
    assert changed["1b1"] == 0 and changed["1b2"] == 0  # Sparks balls are lacquered, not wood
    balls = np.logical_or.reduce([disc_of(name, 1.1) for name in cells])
    assert diff[~balls].max() == 0  # the plate, the hollows and the table are as they were
    with pytest.raises(ValueError, match="ball_grain"):
        render(PYRAMID, cells, cam, ball_grain=-0.5)


def test_bad_input_is_refused_with_a_reason():
    cam = overhead(size=(160, 120))
    with pytest.raises(ValueError, match="no position"):
        render(PYRAMID, {"9z9": "W"}, cam)
    with pytest.raises(ValueError, match="not a ball"):
        render(PYRAMID, {"1a1": "X"}, cam)
    with pytest.raises(ValueError, match="Sparklies cell"):
        render(GRID, {"a1": "R"}, cam)
    with pytest.raises(ValueError, match="placed: grid-9 has no position 'z9'"):
        render(GRID, {}, cam, placed={"z9": Placed()})
    with pytest.raises(ValueError, match="placed: pyramid-4's balls rest where they are"):
        render(PYRAMID, {}, cam, placed={"1a1": Placed()})
    with pytest.raises(ValueError, match="needs an rng"):
        render(PYRAMID, {}, cam, noise=2.0)
    with pytest.raises(ValueError, match="jpeg_quality"):
        render(PYRAMID, {}, cam, jpeg_quality=0)
    with pytest.raises(ValueError, match="upwards"):
        Lighting((0, 0, -1))
    with pytest.raises(ValueError, match="angular radius"):
        Lighting(size=60.0)
    with pytest.raises(ValueError, match="bounce"):
        Lighting(bounce=1.5)
    with pytest.raises(ValueError, match="rotation"):
        Camera(640, 480, 500, 500, np.diag([1.0, 1.0, -1.0]), np.zeros(3))


def test_a_webcams_processing_does_what_each_stage_says():
    """vision.render_webcam: neutral is the identity; white balance scales red against
    green; vignetting darkens the corners, not the centre; sharpening raises the edges'
    contrast; a low JPEG quality loses detail; random webcams differ and repeat by seed."""
    shot = render(load_board("pyramid-4"), {"1a1": "R", "2a1": "W"}, Camera.look_at((0, -200, 500), (0, 0, 0), 60, 320, 240),
                  rng=random.Random(3), noise=1.0)
    image = shot.image
    assert np.array_equal(Webcam().apply(image), image)
    warm = Webcam(gains=(1.3, 1.0, 1.0)).apply(image).astype(float)
    assert warm[..., 2].mean() > image[..., 2].mean() + 5 and abs(warm[..., 1].mean() - image[..., 1].mean()) < 0.5
    vignetted = Webcam(vignette=0.6).apply(image).astype(float)
    corner, centre = (slice(0, 20), slice(0, 20)), (slice(110, 130), slice(150, 170))
    assert vignetted[corner].mean() < 0.85 * image[corner].mean()
    assert abs(vignetted[centre].mean() - image[centre].mean()) < 2
    edges = np.abs(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F)).mean()
    sharp = Webcam(sharpen=1.0).apply(image)
    assert np.abs(cv2.Laplacian(cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY), cv2.CV_64F)).mean() > 1.3 * edges
    low = Webcam(jpeg_quality=25).apply(image)
    assert 1 < np.abs(low.astype(float) - image).mean() < 10
    cams = [Webcam.random(random.Random(k)) for k in range(20)]
    assert len(set(cams)) == 20 and Webcam.random(random.Random(7)) == cams[7]
    assert any(c.jpeg_quality for c in cams) and any(c.jpeg_quality is None for c in cams)
