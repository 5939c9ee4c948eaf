"""`arbiter calibrate-camera`: intrinsics from views of a printed ChArUco board. The views
are the printed board seen by a known pinhole camera (a perspective warp), so the answer
is known."""

import json
import math

import cv2
import numpy as np
import pytest

from host.cli import main
from vision.charuco import CalibrationBoard, CalibrationError, calibrate
from vision.intrinsics import Intrinsics, IntrinsicsError, load_intrinsics, parse_intrinsics

TRUE = Intrinsics(1280, 720, 910.0, 910.0, 639.5, 359.5)
PX_MM = 4.0  # the printed board rendered at 4 pixels a millimetre before warping


def rotation(rx, ry, rz):
    R, _ = cv2.Rodrigues(np.array([rx, ry, rz], float))
    return R


def views(count, seed=0, board=CalibrationBoard()):
    """Greyscale views of the board from random poses in front of TRUE."""
    rng = np.random.default_rng(seed)
    sheet = board.image(dpi=PX_MM * 25.4, margin_mm=10)
    margin = 10 * PX_MM
    w_mm, h_mm = board.squares[0] * board.square_mm, board.squares[1] * board.square_mm
    A = np.array([[1 / PX_MM, 0, -margin / PX_MM], [0, 1 / PX_MM, -margin / PX_MM], [0, 0, 1]])
    out = []
    while len(out) < count:
        R = rotation(*rng.uniform(-0.6, 0.6, 2), rng.uniform(-0.3, 0.3))
        z = rng.uniform(380, 600)
        centre = np.array([rng.uniform(-0.25, 0.25) * z, rng.uniform(-0.15, 0.15) * z, z])
        t = centre - R @ np.array([w_mm / 2, h_mm / 2, 0])
        H = TRUE.K @ np.column_stack([R[:, 0], R[:, 1], t]) @ A
        image = cv2.warpPerspective(sheet, H, (TRUE.width, TRUE.height), flags=cv2.INTER_AREA, borderValue=140)
        image = np.clip(image + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
        out.append((f"view{len(out)}.png", image))
    return out


def test_calibration_recovers_the_camera():
    found, reports = calibrate(views(12))
    assert all(r.used for r in reports)
    assert found.fx == pytest.approx(TRUE.fx, rel=0.01) and found.fy == pytest.approx(TRUE.fy, rel=0.01)
    assert abs(found.cx - TRUE.cx) < 8 and abs(found.cy - TRUE.cy) < 8
    assert found.rms < 0.5
    # the lens has no distortion: the distortion found moves no point by a pixel where the
    # views put the board (the outer tenth of the frame is rarely covered)
    grid = np.array([[x, y] for x in range(128, 1153, 64) for y in range(72, 649, 48)], np.float32)
    moved = cv2.undistortPoints(grid.reshape(-1, 1, 2), found.K, found.dist, P=found.K).reshape(-1, 2)
    shift = np.linalg.norm(moved - grid, axis=1)
    assert np.max(shift) < 2.0 and np.mean(shift) < 0.6
    assert found.fov_h == pytest.approx(math.degrees(2 * math.atan(640 / 910)), abs=0.5)


def test_too_few_good_images_say_which_and_why():
    good = views(3)
    blank = ("blank.png", np.full((720, 1280), 128, np.uint8))
    small = ("small.png", np.zeros((480, 640), np.uint8))
    with pytest.raises(CalibrationError) as info:
        calibrate(good + [blank, small])
    text = str(info.value)
    assert "3 of 5 images" in text and "blank.png: 0 board corners found" in text and "small.png: 640x480" in text


def test_command_line_writes_an_intrinsics_file(tmp_path, capsys):
    names = []
    for name, image in views(6, seed=3):
        cv2.imwrite(str(tmp_path / name), image)
        names.append(str(tmp_path / name))
    out = tmp_path / "camera.json"
    assert main(["calibrate-camera", *names, "--out", str(out)]) == 0
    got = load_intrinsics(out)
    assert got.fx == pytest.approx(TRUE.fx, rel=0.015) and json.loads(out.read_text())["images"] == 6
    assert "rms" in capsys.readouterr().err
    sheet = tmp_path / "charuco.png"
    assert main(["calibrate-camera", "--sheet", str(sheet)]) == 0
    image = cv2.imread(str(sheet), cv2.IMREAD_GRAYSCALE)
    assert image.shape == (int(round(170 / 25.4 * 300)), int(round(230 / 25.4 * 300)))
    assert main(["calibrate-camera", str(tmp_path / "missing.png"), "--out", str(out)]) == 2
    assert "missing.png: No such file" in capsys.readouterr().err


@pytest.mark.parametrize("args, words", [
    (["--squares", "7x5x2", "--sheet", "b.png"], "--squares '7x5x2': expected ACROSSxDOWN"),
    (["--squares", "2x5", "--sheet", "b.png"], "3 to 20 squares"),
    (["--marker-mm", "40", "--sheet", "b.png"], "must be smaller than the squares"),
    (["--sheet", "b.txt"], "the board is written as .png"),
    (["--sheet", "no/such/dir/b.png"], "cannot be written"),
])
def test_calibrate_camera_errors(tmp_path, capsys, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate-camera", *args]) == 2
    assert words in capsys.readouterr().err


def test_intrinsics_files_are_checked_and_scale():
    with pytest.raises(IntrinsicsError, match="'fx' must be a number of pixels above 0"):
        parse_intrinsics({"width": 640, "height": 480, "fx": -1, "fy": 1, "cx": 1, "cy": 1})
    with pytest.raises(IntrinsicsError, match="unknown key 'focal'"):
        parse_intrinsics({**TRUE.to_json(), "focal": 3})
    half = TRUE.scaled(640, 360)
    assert half.fx == pytest.approx(455) and half.cx == pytest.approx(319.5)
    with pytest.raises(IntrinsicsError, match="another aspect ratio"):
        TRUE.scaled(640, 480)
