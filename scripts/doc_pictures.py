"""Render the pictures of docs/camera-setup.md (and the pages that link to them) into
docs/images/, with the project's own synthetic renderer (vision/render*.py), recognition
(vision/recognize.py, vision/calibration.py) and overlay drawing (vision/overlay.py).

    .venv/bin/python scripts/doc_pictures.py [--out DIR]

Every picture is seeded, so a run gives the same pictures (as long as the renderer and
recognition do not change). Each is written as a 640x480 JPEG (quality 80). The script
prints what it wrote and exits 1, with the reason, when a picture cannot be made.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZE = (640, 480)
QUALITY = 80
MAX_BYTES = 120_000

#: a Pylos game in its middle: 14 balls on the base, one on level 2 (no square of one colour)
PYLOS_TURNS = ["1b2", "1c3", "1c2", "1a2", "1b3", "1d3", "1b1", "1a1", "1d2", "1c1",
               "1a3", "1c4", "1a4", "1d1", "2a1"]
#: a good camera: about 12 degrees off vertical, 41 cm from the board's centre, a 55 degree lens
GOOD_EYE = (0.0, -85.0, 400.0)
GOOD_FOV = 55.0
#: a camera too low: about 70 degrees off vertical, as far away
LOW_EYE = (0.0, -385.0, 140.0)


class PictureError(RuntimeError):
    """A picture that could not be made: says which and why."""


def _light(elevation_deg: float, azimuth_deg: float, **kw):
    from vision.render import Lighting
    e, a = math.radians(elevation_deg), math.radians(azimuth_deg)
    return Lighting((math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)), **kw)


def _position(game: str, turns: list[str] | None = None, *, seed: int = 0, random_turns: int = 0):
    """The cells after ``turns`` (turn texts) or after ``random_turns`` seeded random turns."""
    from host.games import rules_for
    rules = rules_for(game)
    rng = random.Random(seed)
    position = rules.start(rng) if game == "sparklies" else rules.start()
    for text in turns or []:
        position = rules.play(position, rules.parse_turn(position, text))
    for _ in range(random_turns):
        if rules.outcome(position) is not None:
            break
        position = rules.play(position, rules.random_turn(position, rng))
    return rules.cells(position)


def _render(board, cells, eye, lighting, *, seed: int, fov: float = GOOD_FOV, hands=()):
    from vision.render import Camera, render
    camera = Camera.look_at(eye, (0.0, 0.0, 0.0), fov, *SIZE)
    frame = render(board, cells, camera, lighting=lighting, hands=list(hands), rng=random.Random(seed),
                   noise=1.5, blur=0.6, supersample=2, wood_seed=seed % 1000)
    return frame.image


def _overlay(image, board, game: str, legend: str, *, calibrate_first: bool = False):
    """The frame as `arbiter calibrate --overlay` draws it: every position where the pose
    puts it, with what recognition read there."""
    from vision.calibration import CalibrationError, calibrate
    from vision.overlay import draw
    from vision.recognize import Recognizer
    calibration = None
    if calibrate_first:
        try:
            calibration = calibrate(image, board, game, clock=lambda: 0.0)
        except CalibrationError as exc:
            raise PictureError(f"the calibration frame does not calibrate: {exc}") from None
    result = Recognizer(board, game, calibration=calibration).read(image)
    if result.pose is None:
        raise PictureError(f"recognition found no board in the frame: {result.error}")
    unknown = sum("?" in v for v in result.observation.cells.values())
    return draw(image, board, result.pose, result.observation.cells, legend), unknown, len(result.observation.cells)


def _reading(image, board, game: str, truth: dict[str, str]) -> str:
    """What recognition makes of a frame, without calibration, against what the frame shows."""
    from vision.recognize import Recognizer
    result = Recognizer(board, game).read(image)
    if result.pose is None:
        return f"recognition: no board ({result.error})"
    cells = result.observation.cells
    empty = "." if board.kind == "pyramid" else ".."
    unknown = sum("?" in v for v in cells.values())
    wrong = sorted(name for name, seen in cells.items()
                   if any(a != "?" and a != b for a, b in zip(seen, truth.get(name, empty))))
    return (f"recognition: {len(cells) - unknown} of {len(cells)} read, {unknown} unknown, "
            f"{len(wrong)} wrong" + (f" ({', '.join(wrong)})" if wrong else ""))


def pylos_good():
    from vision.geometry import load_board
    board = load_board("pyramid-4")
    cells = _position("pylos", PYLOS_TURNS)
    image = _render(board, cells, GOOD_EYE, _light(70, 200, intensity=1.0, ambient=0.35), seed=11)
    return image, ("a Pylos game seen from a good camera position (12 degrees off vertical, 41 cm); "
                   + _reading(image, board, "pylos", cells))


def pylos_too_low():
    from vision.geometry import load_board
    board = load_board("pyramid-4")
    cells = _position("pylos", PYLOS_TURNS)
    image = _render(board, cells, LOW_EYE, _light(70, 200, intensity=1.0, ambient=0.35), seed=12)
    return image, ("the same game from a camera too low (70 degrees off vertical); "
                   + _reading(image, board, "pylos", cells))


def sparklies_grid():
    from vision.geometry import load_board
    board = load_board("grid-9")
    cells = _position("sparklies", seed=5, random_turns=12)
    image = _render(board, cells, (0.0, -100.0, 480.0), _light(72, 150, intensity=1.0, ambient=0.35),
                    seed=13, fov=60.0)
    return image, "a Sparklies game on the 9 x 9 grid board; " + _reading(image, board, "sparklies", cells)


def light_glare():
    from vision.geometry import load_board
    from vision.render_light import glare_lighting
    board = load_board("pyramid-4")
    cells = _position("sparks", seed=3, random_turns=6)
    image = _render(board, cells, GOOD_EYE, glare_lighting(GOOD_EYE, random.Random(14), intensity=(2.2, 2.2),
                                                          ambient=(0.1, 0.1)), seed=14)
    return image, "glare: a strong lamp straight opposite the camera; " + _reading(image, board, "sparks", cells)


def light_harsh():
    from vision.geometry import load_board
    board = load_board("pyramid-4")
    cells = _position("sparks", seed=3, random_turns=6)
    image = _render(board, cells, GOOD_EYE, _light(28, 150, intensity=2.0, ambient=0.04), seed=15)
    return image, "harsh light: one low, strong lamp and almost no room light; " + _reading(image, board, "sparks", cells)


def light_good():
    from vision.geometry import load_board
    board = load_board("pyramid-4")
    cells = _position("sparks", seed=3, random_turns=6)
    image = _render(board, cells, GOOD_EYE, _light(75, 200, intensity=0.9, ambient=0.4), seed=16)
    return image, "good light: diffuse, from high up (the same Sparks position); " + _reading(image, board, "sparks", cells)


def overlay_calibration():
    from vision.geometry import load_board
    board = load_board("pyramid-4")
    image = _render(board, _position("sparks"), GOOD_EYE, _light(75, 200, intensity=0.9, ambient=0.4),
                    seed=17)
    picture, unknown, total = _overlay(image, board, "sparks", "pyramid-4 sparks, calibrated", calibrate_first=True)
    return picture, f"the calibration overlay on the Sparks start ({unknown} of {total} positions unknown)"


def overlay_hand():
    from vision.geometry import load_board
    from vision.render import random_hand
    board = load_board("pyramid-4")
    hand = random_hand(board, random.Random(18), over=(70.0, 0.0), height_mm=(15, 25), reach_deg=180,
                       colour=(205, 160, 130))
    image = _render(board, _position("pylos", PYLOS_TURNS), GOOD_EYE,
                    _light(70, 200, intensity=1.0, ambient=0.35), seed=18, hands=[hand])
    picture, unknown, total = _overlay(image, board, "pylos", "pyramid-4 pylos")
    return picture, f"a hand over the board: {unknown} of {total} positions unknown"


def charuco_views():
    """Four photos of the printed ChArUco board from different angles, as
    `arbiter calibrate-camera` wants them, in one picture (a perspective warp of the sheet
    `arbiter calibrate-camera --sheet` prints, as tests/test_calibrate_camera.py makes them)."""
    import cv2
    import numpy as np
    from vision.charuco import CalibrationBoard
    board = CalibrationBoard()
    px_mm = 4.0
    sheet = board.image(dpi=px_mm * 25.4, margin_mm=10)
    w_mm, h_mm = board.squares[0] * board.square_mm, board.squares[1] * board.square_mm
    A = np.array([[1 / px_mm, 0, -10.0], [0, 1 / px_mm, -10.0], [0, 0, 1]])
    K = np.array([[560.0, 0, 319.5], [0, 560.0, 239.5], [0, 0, 1]])
    rng = np.random.default_rng(19)
    tiles = []
    poses = [(0.0, 0.0, 0.0, (0.0, 0.0)), (0.5, -0.2, 0.15, (-0.18, -0.1)), (-0.3, 0.55, -0.2, (0.2, 0.12)),
             (0.2, 0.35, 0.3, (0.22, -0.14))]
    for rx, ry, rz, (cx, cy) in poses:
        R, _ = cv2.Rodrigues(np.array([rx, ry, rz], float))
        z = 420.0
        t = np.array([cx * z, cy * z, z]) - R @ np.array([w_mm / 2, h_mm / 2, 0.0])
        H = K @ np.column_stack([R[:, 0], R[:, 1], t]) @ A
        view = cv2.warpPerspective(sheet, H, SIZE, flags=cv2.INTER_AREA, borderValue=150)
        view = np.clip(view + rng.normal(0, 2, view.shape), 0, 255).astype(np.uint8)
        view = cv2.cvtColor(view, cv2.COLOR_GRAY2BGR)
        tiles.append(cv2.resize(view, (SIZE[0] // 2, SIZE[1] // 2), interpolation=cv2.INTER_AREA))
    picture = np.vstack([np.hstack(tiles[:2]), np.hstack(tiles[2:])])
    cv2.line(picture, (SIZE[0] // 2, 0), (SIZE[0] // 2, SIZE[1]), (255, 255, 255), 2)
    cv2.line(picture, (0, SIZE[1] // 2), (SIZE[0], SIZE[1] // 2), (255, 255, 255), 2)
    return picture, "four photos of the printed ChArUco board at different angles and places"


PICTURES: dict[str, Callable[[], tuple[object, str]]] = {
    "camera-good.jpg": pylos_good,
    "camera-too-low.jpg": pylos_too_low,
    "sparklies-grid.jpg": sparklies_grid,
    "light-good.jpg": light_good,
    "light-harsh.jpg": light_harsh,
    "light-glare.jpg": light_glare,
    "overlay-calibration.jpg": overlay_calibration,
    "overlay-hand.jpg": overlay_hand,
    "charuco-views.jpg": charuco_views,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="render the documentation's pictures into docs/images/")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="directory (default docs/images)")
    args = parser.parse_args(argv)
    try:
        import cv2
    except ImportError as exc:
        print(f"doc_pictures: OpenCV is missing ({exc}): run it with the project's .venv/bin/python", file=sys.stderr)
        return 1
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"doc_pictures: cannot create {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    total = 0
    for name, make in PICTURES.items():
        try:
            image, what = make()
        except PictureError as exc:
            print(f"doc_pictures: {name}: {exc}", file=sys.stderr)
            return 1
        except Exception as exc:  # the renderer or recognition failed: say which picture
            print(f"doc_pictures: {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
        if not ok:
            print(f"doc_pictures: {name}: cannot be encoded as JPEG", file=sys.stderr)
            return 1
        if data.size > MAX_BYTES:
            print(f"doc_pictures: {name}: {data.size} bytes, more than {MAX_BYTES}", file=sys.stderr)
            return 1
        path = args.out / name
        try:
            path.write_bytes(data.tobytes())
        except OSError as exc:
            print(f"doc_pictures: {path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        total += data.size
        h, w = image.shape[:2]
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {w}x{h}, "
              f"{data.size / 1000:.0f} kB: {what}")
    print(f"{len(PICTURES)} pictures, {total / 1000:.0f} kB in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
