"""The vision commands of ``arbiter``: ``markers`` (a printable marker sheet),
``recognize`` (camera images -> observations), ``calibrate-camera`` (a lens) and
``calibrate`` (a board's pose and colours from its start position). OpenCV is imported
only when one of them runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def run_markers(args: argparse.Namespace) -> int:
    from vision.geometry import GeometryError, load_board
    from vision.markers import write_sheet
    if not 50 <= args.dpi <= 2400:
        print(f"arbiter markers: --dpi must be 50 to 2400, not {args.dpi}", file=sys.stderr)
        return 2
    try:
        board = load_board(args.board)
        path = write_sheet(board, Path(args.out), args.dpi)
    except (GeometryError, ValueError) as exc:
        print(f"arbiter markers: {exc}", file=sys.stderr)
        return 2
    ids = ", ".join(str(m.id) for m in board.markers)
    print(f"{path}: markers {ids} of {board.name}, {board.marker_size:g} mm; print at 100 %", file=sys.stderr)
    return 0


def _read_image(path: str) -> tuple[Any, str | None]:
    """The image in a file (BGR), or None and why not."""
    import cv2
    import numpy as np
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return None, exc.strerror or str(exc)
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        return None, "not an image OpenCV can read (PNG, JPEG, BMP, TIFF...)"
    return image, None


def run_recognize(args: argparse.Namespace) -> int:
    """One observation line per image (``t`` is the image's index times ``--interval``);
    exit 0 when every image was read, 1 when some showed no usable board, 2 for bad
    arguments or unreadable files."""
    from vision.geometry import GeometryError, load_board
    from vision.intrinsics import IntrinsicsError, load_intrinsics
    from vision.pose import PoseError
    from vision.calibration import CalibrationError, load_calibration
    from vision.recognize import RecognitionError, Recognizer, unknown_cells
    from host.observation import Observation
    try:
        board = load_board(args.board)
        intrinsics = load_intrinsics(args.camera) if args.camera else None
        calibration = load_calibration(args.calibration) if args.calibration else None
        recognizer = Recognizer(board, args.game, intrinsics=intrinsics, calibration=calibration)
    except (GeometryError, IntrinsicsError, PoseError, RecognitionError, CalibrationError) as exc:
        print(f"arbiter recognize: {exc}", file=sys.stderr)
        return 2
    unreadable = no_board = False
    results = []
    for k, path in enumerate(args.images):
        t = round(k * args.interval, 6)
        image, why = _read_image(path)
        if image is None:
            print(f"arbiter recognize: {path}: {why}", file=sys.stderr)
            unreadable = True
            obs = Observation(t, unknown_cells(board, recognizer.game))
            results.append({"image": path, **obs.to_json(), "board": board.name, "game": recognizer.game,
                            "error": why})
            if not args.json:
                print(obs.to_line(), flush=True)
            continue
        result = recognizer.read(image, t)
        if not result.ok:
            print(f"arbiter recognize: {path}: {result.error}", file=sys.stderr)
            no_board = True
        results.append({"image": path, **result.to_json()})
        if not args.json:
            print(result.observation.to_line(), flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    return 2 if unreadable else 1 if no_board else 0


def add_vision_parsers(sub: Any) -> None:
    p = sub.add_parser("markers", help="a printable sheet of a board's fiducial markers at exact size")
    p.add_argument("--board", required=True, help="board name (hardware/boards/NAME.json) or a geometry file")
    p.add_argument("--out", required=True, help="output file: .pdf, .svg or .png")
    p.add_argument("--dpi", type=int, default=300, help="resolution of a .png sheet (default 300)")
    p.set_defaults(func=run_markers)
    add_calibrate_camera_parser(sub)

    p = sub.add_parser("recognize", help="read camera images of a board into observations (JSON Lines)")
    p.add_argument("--board", required=True, help="board name (hardware/boards/NAME.json) or a geometry file")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (PNG, JPEG...)")
    p.add_argument("--game", help="the game on the board, for its colours (default: the board's first game)")
    p.add_argument("--camera", metavar="FILE", help="camera intrinsics from arbiter calibrate-camera (JSON)")
    p.add_argument("--json", action="store_true", help="a JSON array with the pose and per-position details")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between images, for t (default 1)")
    p.add_argument("--calibration", metavar="FILE", help="colours (and board, game) from arbiter calibrate (JSON)")
    p.set_defaults(func=run_recognize)
    add_calibrate_parser(sub)


def run_calibrate_camera(args: argparse.Namespace) -> int:
    import cv2
    from vision.charuco import CalibrationBoard, CalibrationError, calibrate
    from vision.intrinsics import save_intrinsics
    parts = args.squares.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        print(f"arbiter calibrate-camera: --squares {args.squares!r}: expected ACROSSxDOWN such as 7x5", file=sys.stderr)
        return 2
    squares = (int(parts[0]), int(parts[1]))
    try:
        board = CalibrationBoard(squares, args.square_mm, args.marker_mm)
    except CalibrationError as exc:
        print(f"arbiter calibrate-camera: {exc}", file=sys.stderr)
        return 2
    if args.sheet:
        if Path(args.sheet).suffix.lower() != ".png":
            print(f"arbiter calibrate-camera: --sheet {args.sheet}: the board is written as .png", file=sys.stderr)
            return 2
        if not cv2.imwrite(args.sheet, board.image(dpi=300)):
            print(f"arbiter calibrate-camera: --sheet {args.sheet}: cannot be written", file=sys.stderr)
            return 2
        print(f"{args.sheet}: ChArUco board {squares[0]}x{squares[1]}, {args.square_mm:g} mm squares at 300 dpi; "
              f"print at 100 % and glue it flat on card", file=sys.stderr)
        return 0
    if not args.images or not args.out:
        print("arbiter calibrate-camera: give the images of the printed board and --out FILE.json "
              "(or --sheet FILE.png to print the board)", file=sys.stderr)
        return 2
    images = []
    for name in args.images:
        image, why = _read_image(name)
        if image is None:
            print(f"arbiter calibrate-camera: {name}: {why}", file=sys.stderr)
            return 2
        images.append((name, image))
    try:
        found, reports = calibrate(images, board)
    except CalibrationError as exc:
        print(f"arbiter calibrate-camera: {exc}", file=sys.stderr)
        return 1
    for r in reports:
        print(f"{r.name}: {r.corners} corners{'' if r.used else ' (not used: ' + r.why + ')'}", file=sys.stderr)
    save_intrinsics(found, args.out, images=sum(r.used for r in reports))
    print(f"{args.out}: {found.width}x{found.height}, fx {found.fx:.1f} fy {found.fy:.1f} px "
          f"(horizontal field of view {found.fov_h:.1f} deg), rms {found.rms:.3f} px", file=sys.stderr)
    return 0


def add_calibrate_camera_parser(sub: Any) -> None:
    p = sub.add_parser("calibrate-camera", help="measure a camera's lens from photos of a printed ChArUco board")
    p.add_argument("images", nargs="*", help="photos of the board from several angles (at least 5)")
    p.add_argument("--out", help="intrinsics file to write (JSON)")
    p.add_argument("--sheet", help="write the printable board to this PNG instead")
    p.add_argument("--squares", default="7x5", help="squares across x down (default 7x5)")
    p.add_argument("--square-mm", type=float, default=30.0, help="printed square size (default 30)")
    p.add_argument("--marker-mm", type=float, default=22.0, help="printed marker size (default 22)")
    p.set_defaults(func=run_calibrate_camera)


def _frames(source: str, limit: int) -> Any:
    """(name, image or None, why) for an image file, or up to ``limit`` frames of a
    ``camera:`` source (vision/capture.py; CaptureError for a bad spec)."""
    if not source.startswith("camera:"):
        image, why = _read_image(source)
        yield source, image, why
        return
    from vision.capture import Capture, parse_camera_spec
    for k, frame in enumerate(Capture(parse_camera_spec(source))):
        if k >= limit:
            return
        yield f"frame {frame.index}", frame.image, frame.error


def run_calibrate(args: argparse.Namespace) -> int:
    """Calibrate on the first frame of SOURCE that shows the game's start; exit 0 written,
    1 no frame would calibrate, 2 bad arguments or files."""
    import cv2
    from vision.calibration import CalibrationError, calibrate
    from vision.capture import CaptureError
    from vision.geometry import GeometryError, load_board
    from vision.intrinsics import IntrinsicsError, load_intrinsics
    from vision.overlay import draw
    from vision.recognize import RecognitionError, Recognizer
    me = "arbiter calibrate"
    if args.frames < 1:
        print(f"{me}: --frames must be at least 1, not {args.frames}", file=sys.stderr)
        return 2
    if args.overlay and Path(args.overlay).suffix.lower() not in (".png", ".jpg", ".jpeg"):
        print(f"{me}: --overlay {args.overlay}: write it as .png (or .jpg)", file=sys.stderr)
        return 2
    try:
        board = load_board(args.board)
        game = args.game or board.games[0]
        intrinsics = load_intrinsics(args.camera) if args.camera else None
        Recognizer(board, game)
    except (GeometryError, IntrinsicsError, RecognitionError) as exc:
        print(f"{me}: {exc}", file=sys.stderr)
        return 2
    found = reason = None
    tried = 0
    try:
        for name, image, why in _frames(args.source, args.frames):
            tried += 1
            if image is None:
                if not args.source.startswith("camera:"):
                    print(f"{me}: {name}: {why}", file=sys.stderr)
                    return 2
                reason = f"{name}: {why}"
                print(f"{me}: {reason}", file=sys.stderr)
                continue
            try:
                found = (calibrate(image, board, game, intrinsics=intrinsics), image)
                break
            except CalibrationError as exc:
                reason = f"{name}: {exc}"
                print(f"{me}: {reason}", file=sys.stderr)
    except CaptureError as exc:
        print(f"{me}: {exc}", file=sys.stderr)
        return 2
    if found is None:
        print(f"{me}: no frame calibrated ({tried} tried); the last: {reason or 'no frames'}", file=sys.stderr)
        return 1
    cal, image = found
    try:
        cal.save(args.out)
    except OSError as exc:
        print(f"{me}: --out {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {board.name} {game}, {cal.size[0]}x{cal.size[1]}: {cal.describe()}", file=sys.stderr)
    if args.overlay:
        result = Recognizer(board, game, intrinsics=intrinsics, calibration=cal).read(image)
        pose = result.pose if result.pose is not None else cal.pose
        picture = draw(image, board, pose, result.observation.cells, f"{board.name} {game}, calibrated")
        if not cv2.imwrite(args.overlay, picture):
            print(f"{me}: --overlay {args.overlay}: cannot be written", file=sys.stderr)
            return 2
        print(f"{args.overlay}: every position as read with the calibration; check it", file=sys.stderr)
    return 0


def add_calibrate_parser(sub: Any) -> None:
    p = sub.add_parser("calibrate", help="measure a board's pose and colours on its start position")
    p.add_argument("--board", required=True, help="board name (hardware/boards/NAME.json) or a geometry file")
    p.add_argument("--source", required=True, help="an image file, or camera:0, camera:video.mp4, camera:frames/...")
    p.add_argument("--game", help="the game set up on the board (default: the board's first game)")
    p.add_argument("--camera", metavar="FILE", help="camera intrinsics from arbiter calibrate-camera (JSON)")
    p.add_argument("--out", required=True, help="the calibration file to write (JSON)")
    p.add_argument("--overlay", help="write the frame with every position as read to this PNG")
    p.add_argument("--frames", type=int, default=30, help="give up after this many camera frames (default 30)")
    p.set_defaults(func=run_calibrate)
