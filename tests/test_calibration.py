"""Calibration from a known position (vision/calibration.py), calibrated and adapting
colours (vision/calibration_colours.py), the overlay and ``arbiter calibrate``, on rendered
frames. The boards' colours are moved from the geometry files' defaults (a real set of
balls and tiles is never exactly the default) and lit warm, cool, dim and bright. The hard
requirement stays: no confident wrong reading. Floors are a little under what was measured
(docs/vision.md, "Calibration")."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import cv2
import numpy as np
import pytest

from host.cli import main as arbiter
from vision.calibration import Calibration, CalibrationError, calibrate, from_json, load_calibration
from vision.calibration_colours import ADAPT_BOUND, NOMINAL, TILE_BOUND, BallPalette, tile_chroma
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_balls import Reading, colour_of
from vision.recognize_colour import measure_plate
from vision.recognize_train import random_position
from vision.render import Camera, Lighting, render
from vision.render_light import COOL, WARM

PYRAMID = load_board("pyramid-4")
GRID = load_board("grid-9")
#: the sets used here: darker-plated wood, cream white, lighter black, more orange light wood
PYRAMID_SET = dataclasses.replace(PYRAMID, plate_colour=(200, 170, 128), colours={
    **PYRAMID.colours, "W": (232, 222, 196), "B": (48, 40, 40), "L": (226, 178, 118), "D": (110, 66, 40)})
GRID_SET = dataclasses.replace(GRID, plate_colour=(200, 170, 128), colours={
    **GRID.colours, "R": (210, 70, 40), "G": (70, 150, 50), "B": (40, 100, 180)})
LIGHTS = {"warm": Lighting((0.3, -0.4, 0.85), WARM, 1.0, 0.3),
          "cool": Lighting((-0.4, 0.3, 0.8), COOL, 1.0, 0.3),
          "dim": Lighting((0.35, 0.45, 0.7), (1.0, 1.0, 1.0), 0.35, 0.1),
          "bright": Lighting((0.2, -0.2, 0.95), (1.0, 1.0, 1.0), 1.5, 0.45)}
CAMERA = Camera.look_at((60, -330, 420), (0, 0, 0), 62, 640, 480)
#: (label, the board as rendered, the board as known, game)
CASES = [("sparks", PYRAMID_SET, PYRAMID, "sparks"), ("sparks-default", PYRAMID, PYRAMID, "sparks"),
         ("pylos", PYRAMID_SET, PYRAMID, "pylos"), ("sparklies", GRID_SET, GRID, "sparklies")]
LATER = 4


def shot(board, cells, light, rng, camera=CAMERA):
    return render(board, cells, camera, lighting=light, rng=rng, noise=1.5, blur=0.6).image


@pytest.fixture(scope="module")
def rendered():
    """Per case and light: the start frame and LATER frames of later positions."""
    out = {}
    for label, shown, _, game in CASES:
        for name, light in LIGHTS.items():
            rng = random.Random(f"{label}/{name}")
            start = shot(shown, random_position(game, rng, 0), light, rng)
            later = []
            for _ in range(LATER):
                cells = random_position(game, rng, rng.randint(4, 30))
                later.append((shot(shown, cells, light, rng), cells))
            out[label, name] = (start, later)
    return out


@pytest.fixture(scope="module")
def calibrations(rendered):
    out = {}
    for label, _, board, game in CASES:
        for name in LIGHTS:
            out[label, name] = calibrate(rendered[label, name][0], board, game)
    return out


def tally(rec: Recognizer, frames) -> Counter:
    c: Counter = Counter()
    for image, truth in frames:
        for name, seen in rec.read(image).observation.cells.items():
            for s, a in zip(seen, truth.get(name, "." * len(seen))):
                c["unknown" if s == "?" else "right" if s == a else "wrong"] += 1
    return c


@pytest.mark.parametrize("light", list(LIGHTS))
def test_calibration_measures_the_set_under_its_light(rendered, calibrations, light):
    sparks, default, pylos, grid = (calibrations[label, light] for label, *_ in CASES)
    assert set(sparks.balls) == {"W", "B"} and set(default.balls) == {"W", "B"}  # R is not in the start
    assert pylos.balls == {} and set(grid.tiles) == {"R", "G", "B"}
    assert all(b.balls == 8 for b in sparks.balls.values())
    # the lighter black set measures lighter than the default set under the same light
    assert sparks.balls["B"].level > default.balls["B"].level + 0.3
    assert sparks.balls["W"].level > sparks.balls["B"].level + 2.5
    # the tiles' prototypes move from the defaults towards what this light makes the set's
    # tiles look like (measured on a later frame)
    measured = tiles_seen(*rendered["sparklies", light][1][0])
    for k in "RGB":
        default_ = Recognizer(GRID, "sparklies").tiles[k]
        assert np.linalg.norm(np.array(grid.tiles[k]) - measured[k]) < np.linalg.norm(default_ - measured[k]), k


def tiles_seen(image, truth) -> dict[str, np.ndarray]:
    """The median chromaticity of each tile colour in a frame, the contents known."""
    rec = Recognizer(GRID, "sparklies")
    pose = rec.pose(image)
    plate = measure_plate(image, GRID, pose, rec.margin).colour
    chroma, ok = tile_chroma(image, rec.grid, rec.grid_geometry(pose), plate)
    return {k: np.median([chroma[i] for i, n in enumerate(rec.grid.names) if truth[n][0] == k and ok[i]], axis=0)
            for k in "RGB"}


def test_calibration_follows_the_light(calibrations):
    """The same balls measure differently under different light; the calibration records
    that (relative to the plate, so a dimmer light alone changes little)."""
    w = {name: calibrations["sparks", name].balls["W"] for name in LIGHTS}
    assert w["warm"].rg != pytest.approx(w["cool"].rg, abs=0.01)
    assert abs(w["dim"].level - w["bright"].level) < 1.0


#: calibrated reads against default reads (same frames), measured: sparks 267 / 225 (the
#: moved set), sparks-default 251 / 251, pylos 320 / 320, sparklies about as many: a grid
#: frame's own tiles give its tile colours (``FRAME_TILES``, since 2026-11-30), as the
#: calibration does (1,841 / 1,840 when first measured); without them 1,846 / 1,779
#: (:func:`test_calibrated_tiles_read_more_than_the_defaults`). Since 2026-12-01 the
#: default black band reaches a level of -2.4 (from -3.2: path traced black balls are that
#: light), and takes the moved set's lighter black, which before only its calibration read:
#: sparks 212 / 205 (208 / 176 with the bands before), so its floor is the others.
FLOORS = {"sparks": 1.0, "sparks-default": 0.97, "pylos": 1.0, "sparklies": 1.0}


def default_and_calibrated(rendered, calibrations, label: str) -> tuple[Counter, Counter]:
    """The tallies of case ``label``'s frames under every light, read with the default
    colours and with that light's calibration."""
    board, game = next((c[2], c[3]) for c in CASES if c[0] == label)
    default, calibrated = Counter(), Counter()
    for name in LIGHTS:
        frames = rendered[label, name][1]
        default += tally(Recognizer(board, game), frames)
        calibrated += tally(Recognizer(board, game, calibration=calibrations[label, name]), frames)
    return default, calibrated


@pytest.mark.parametrize("label", [c[0] for c in CASES])
def test_calibrated_recognition_reads_more_and_never_wrong(rendered, calibrations, label):
    default, calibrated = default_and_calibrated(rendered, calibrations, label)
    assert calibrated["wrong"] == 0, calibrated
    assert calibrated["right"] >= FLOORS[label] * default["right"], (calibrated, default)


def test_calibrated_tiles_read_more_than_the_defaults(rendered, calibrations, monkeypatch):
    """The calibration's tile colours read more than the defaults where the frame's own
    tiles give none (fewer than ``FRAME_TILES`` of a colour read)."""
    monkeypatch.setattr("vision.recognize_grid.FRAME_TILES", 10**6)
    default, calibrated = default_and_calibrated(rendered, calibrations, "sparklies")
    assert calibrated["wrong"] == 0, calibrated
    assert calibrated["right"] >= 1.02 * default["right"], (calibrated, default)


def test_the_start_is_checked(rendered):
    light = LIGHTS["warm"]
    rng = random.Random(9)
    start = random_position("sparks", rng, 0)
    missing = {k: v for k, v in start.items() if k != "1b2"}
    with pytest.raises(CalibrationError, match="this is not the Sparks start: .*1b2 looks empty"):
        calibrate(shot(PYRAMID_SET, missing, light, rng), PYRAMID, "sparks")
    swapped = {**start, "1a1": "W", "1b1": "B"}
    with pytest.raises(CalibrationError, match="this is not the Sparks start: .*1a1 looks white, the start has black"):
        calibrate(shot(PYRAMID_SET, swapped, light, rng), PYRAMID, "sparks")
    later = rendered["sparks", "warm"][1][0][0]
    with pytest.raises(CalibrationError, match="this is not the Sparks start"):
        calibrate(later, PYRAMID, "sparks")
    with pytest.raises(CalibrationError, match="this is not an empty Pylos board: .*has a ball"):
        calibrate(shot(PYRAMID_SET, {"1a1": "L", "1b1": "D", "1c1": "L", "1d1": "D"}, light, rng), PYRAMID, "pylos")
    grid_start = random_position("sparklies", rng, 0)
    with pytest.raises(CalibrationError, match="this is not the sparklies start: e5 has a control plate"):
        calibrate(shot(GRID_SET, {**grid_start, "e5": grid_start["e5"][0] + "w"}, light, rng), GRID, "sparklies")


@pytest.mark.parametrize("image", [np.zeros((480, 640, 3), np.uint8),
                                   np.random.default_rng(1).integers(0, 255, (480, 640, 3), dtype=np.uint8)])
def test_no_board_is_refused(image):
    with pytest.raises(CalibrationError, match="no board in view"):
        calibrate(image, PYRAMID, "sparks")


def test_save_load_and_corrupt_files(calibrations, tmp_path):
    cal = calibrations["sparks", "dim"]
    path = cal.save(tmp_path / "cal.json")
    back = load_calibration(path)
    assert back.board == "pyramid-4" and back.game == "sparks" and back.size == (640, 480)
    assert back.balls["W"].level == pytest.approx(cal.balls["W"].level, abs=1e-3)
    assert np.allclose(back.K, cal.K, atol=1e-2) and np.allclose(back.t, cal.t, atol=1e-2)
    assert isinstance(back, Calibration) and back.pose.project([(0, 0, 0)]).shape == (1, 2)
    data = json.loads(path.read_text())
    for broken, field in (({**data, "pose": {**data["pose"], "K": [1, 2]}}, "pose.K"),
                          ({k: v for k, v in data.items() if k != "board"}, "board"),
                          ({**data, "version": 9}, "version 9"),
                          ({**data, "balls": {"W": {"level": 1}}}, "balls.W")):
        with pytest.raises(CalibrationError, match=field.replace(".", r"\.")):
            from_json(broken, "x.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CalibrationError, match="bad.json: not JSON"):
        load_calibration(bad)


def test_defaults_are_unchanged_without_calibration():
    assert Recognizer(PYRAMID, "sparks").palette is None and Recognizer(GRID, "sparklies").tile_palette is None
    palette = Recognizer(PYRAMID, "sparks", adapt=True).palette
    rng = np.random.default_rng(3)
    for _ in range(400):
        c = np.array([rng.uniform(-5, 1), 0.0, rng.uniform(-1, 3.5), 0.5, rng.uniform(0.1, 0.95), 0.0])
        c[1] = c[0] + 0.4
        assert palette.colour(c, "WBR")[0] == colour_of(c, "WBR")[0]


def test_a_calibration_for_another_board_or_game_is_refused(calibrations):
    from vision.recognize import RecognitionError
    with pytest.raises(RecognitionError, match="calibration is for board pyramid-4"):
        Recognizer(GRID, calibration=calibrations["sparks", "dim"])
    with pytest.raises(RecognitionError, match="calibration is for sparks, not pylos"):
        Recognizer(PYRAMID, "pylos", calibration=calibrations["sparks", "dim"])


def test_adapting_to_light_that_dims_slowly(calibrations):
    """50 frames while the light fades to a third: adapting readings stay right, and read as
    much as the calibrated colours alone do on the same frames."""
    cal = calibrations["sparks", "bright"]
    rec = Recognizer(PYRAMID, calibration=cal, adapt=True)
    fixed = Recognizer(PYRAMID, calibration=cal, adapt=False)
    rng = random.Random(21)
    positions = [random_position("sparks", rng, rng.randint(5, 25)) for _ in range(5)]
    c: Counter = Counter()
    plain: Counter = Counter()
    for k in range(50):
        f = k / 49
        light = Lighting((0.2, -0.2, 0.95), (1.0, 1.0, 1.0), 1.5 * (1 - 0.67 * f), 0.45 * (1 - 0.67 * f))
        cells = positions[k // 10]
        frame = [(shot(PYRAMID_SET, cells, light, rng), cells)]
        c += tally(rec, frame)
        plain += tally(fixed, frame)
    assert c["wrong"] == 0 and plain["wrong"] == 0, (c, plain)
    assert c["right"] >= ADAPT_FLOOR * (c["right"] + c["unknown"]), c
    assert c["right"] >= 0.98 * plain["right"], (c, plain)
    for k, v in rec.palette.current.items():
        assert np.all(np.abs(v - rec.palette.base[k]) <= ADAPT_BOUND + 1e-9)


#: share of positions read right over the dimming run (measured 0.52, as without adapting:
#: colours relative to the plate already take the light's strength out; 0.587 before base
#: balls showing under 30 % of themselves behind balls of other colours were left `?`)
ADAPT_FLOOR = 0.5


def test_unsure_or_wrong_frames_cannot_walk_the_colours_away(calibrations):
    cal = calibrations["sparks", "warm"]
    rec = Recognizer(PYRAMID, calibration=cal, adapt=True)
    palette: BallPalette = rec.palette
    before = {k: v.copy() for k, v in palette.current.items()}
    for image in (np.zeros((480, 640, 3), np.uint8), np.full((480, 640, 3), 128, np.uint8)):
        for _ in range(20):
            rec.read(image)  # no board: nothing read, nothing learnt
    assert all(np.array_equal(before[k], palette.current[k]) for k in before)
    liar = {f"p{i}": Reading("B", "misread", (0.0, 1.0, 0.0), colour=(0.5, 1.0, 3.0, 0.5, 0.9, 0.0)) for i in range(8)}
    for _ in range(500):
        palette.adapt(liar)
    moved = palette.current["B"] - palette.base["B"]
    assert np.all(np.abs(moved) <= ADAPT_BOUND + 1e-9) and np.abs(moved).max() > 0
    assert palette.colour(np.array([0.3, 0.6, -0.3, 0.5, 0.22, 0.0]), "WBR")[0] == "W"  # still white
    grid = Recognizer(GRID, calibration=calibrations["sparklies", "warm"], adapt=True).tile_palette
    names = tuple(f"c{i}" for i in range(10))
    for _ in range(500):
        grid.adapt({n: "R." for n in names}, names, np.tile([0.1, 0.8, 0.1], (10, 1)), np.ones(10, bool))
    assert np.all(np.abs(grid.current["R"] - grid.base["R"]) <= TILE_BOUND + 1e-9)
    assert NOMINAL["B"][0] < 0


def write_png(path, image) -> str:
    cv2.imwrite(str(path), image)
    return str(path)


def test_cli_calibrate_end_to_end(rendered, tmp_path, capsys):
    start = rendered["sparks", "warm"][0]
    src = write_png(tmp_path / "start.png", start)
    out, overlay = tmp_path / "cal.json", tmp_path / "overlay.png"
    assert arbiter(["calibrate", "--board", "pyramid-4", "--game", "sparks", "--source", src, "--out", str(out),
                    "--overlay", str(overlay)]) == 0
    assert load_calibration(out).balls["W"].balls == 8
    picture = cv2.imread(str(overlay))
    assert picture is not None and picture.shape == start.shape
    assert np.abs(picture.astype(int) - start.astype(int)).sum(axis=2).astype(bool).mean() > 0.02
    later = write_png(tmp_path / "later.png", rendered["sparks", "warm"][1][0][0])
    assert arbiter(["recognize", "--board", "pyramid-4", "--calibration", str(out), later]) == 0
    assert arbiter(["calibrate", "--board", "pyramid-4", "--source", later, "--out", str(tmp_path / "x.json")]) == 1
    err = capsys.readouterr().err
    assert "this is not an empty Pylos board" in err and "no frame calibrated" in err
    frames = tmp_path / "frames"
    frames.mkdir()
    write_png(frames / "a.png", np.zeros((480, 640, 3), np.uint8))
    write_png(frames / "b.png", start)
    assert arbiter(["calibrate", "--board", "pyramid-4", "--game", "sparks", "--source", f"camera:{frames}",
                    "--out", str(tmp_path / "c.json"), "--frames", "5"]) == 0
    assert "frame 0: no board in view" in capsys.readouterr().err


def test_cli_calibrate_bad_arguments(tmp_path, capsys):
    out = str(tmp_path / "cal.json")
    for args in (["--board", "nope", "--source", "x.png"], ["--board", "pyramid-4", "--source", "missing.png"],
                 ["--board", "pyramid-4", "--game", "chess", "--source", "x.png"],
                 ["--board", "pyramid-4", "--source", "camera:", "--frames", "3"],
                 ["--board", "pyramid-4", "--source", "x.png", "--frames", "0"]):
        assert arbiter(["calibrate", *args, "--out", out]) == 2, args
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"version": 1, "board": 3}')
    image = write_png(tmp_path / "i.png", np.zeros((64, 64, 3), np.uint8))
    assert arbiter(["recognize", "--board", "pyramid-4", "--calibration", str(corrupt), image]) == 2
    assert "corrupt.json" in capsys.readouterr().err
