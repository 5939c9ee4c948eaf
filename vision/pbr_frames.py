"""Path traced frames kept on disk with their truth, for fitting and checking recognition
on frames the project's own renderer did not make.

    python -m vision.pbr_frames DIR --first SEED --count N [--board grid-9] [--glare] [--hands]

Frame ``SEED`` is the random sets' scene of that seed (``scenes``, one a seed; a hand over
the board with ``--hands``), path traced by Mitsuba 3 (vision/render_pbr.py) in the room
drawn from the seed, its plate varnished under a lamp the plate mirrors into the camera
with ``--glare`` (``Room.with_glare``). Each frame is ``SEED.png`` beside ``SEED.json``
(the game, the true cells, the board's name and whether a hand is over it), the form
:func:`read_frame`, ``python -m vision.border_train --pbr-dirs`` (grid frames) and
``python -m vision.recognize_train --pbr-dirs`` (pyramid frames) read. About 5 s a frame;
progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import cv2
import numpy as np

from .geometry import Board, GeometryError, load_board
from .recognize_train import Scene, after_look, scenes

#: what a camera and a room do to a photograph, applied to a path traced frame afterwards:
#: as rendered, the random sets' webcam and room looks (``after_look``,
#: vision/recognize_train.py) and a JPEG round trip at a quality of 40 to 80
PHOTO_LOOKS = ("plain", "webcam", "JPEG", "shadow", "cast-drift")


def in_look(image: np.ndarray, look: str, seed: int) -> np.ndarray:
    """``image`` as the look ``look`` of :data:`PHOTO_LOOKS` leaves it (seeded by the
    frame's ``seed``)."""
    if look not in PHOTO_LOOKS:
        raise ValueError(f"no look {look!r}: the looks are {', '.join(PHOTO_LOOKS)}")
    if look == "JPEG":
        quality = random.Random(seed).randint(40, 80)
        return cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    return after_look(image, look, seed)


class FramesError(ValueError):
    """A folder of frames that cannot be read: the message names the file and says why."""


def render_frame(board_name: str, seed: int, *, glare: bool = False, hands: bool = False,
                 spp: int = 16) -> tuple[np.ndarray, dict]:
    """Frame ``seed`` (BGR uint8) and its truth (``game``, ``cells``, ``board``, and
    whether a hand is over it, ``hands``)."""
    from .render_pbr import Room, render_pbr  # Mitsuba is optional: only this needs it

    board = load_board(board_name)
    sc = frame_scene(board, seed, hands)
    camera = sc.settings["camera"]
    room = Room.random(random.Random(seed))
    if glare:
        room = room.with_glare(-camera.R.T @ camera.t, board.plate[0] / 2, random.Random(seed * 7 + 1))
    image = render_pbr(sc.settings["board"], sc.cells, camera, room=room, hands=sc.settings["hands"], spp=spp,
                       seed=seed)
    return image, {"game": sc.game, "cells": sc.cells, "board": board_name, "hands": hands}


def frame_scene(board: Board, seed: int, hands: bool = False) -> Scene:
    """The random sets' scene that frame ``seed`` path traces: its board, pieces, camera and
    hand are this project's frame of it (``Scene.frame``, whose truth says how much of each
    position is in view)."""
    return next(scenes(board, random.Random(seed), 1, hands=1.0 if hands else 0.0))


def frame_files(folder: str | Path) -> list[Path]:
    """The frames of ``folder`` (``SEED.png``) in seed order; FramesError for a folder
    without frames or a frame not named by its seed."""
    folder = Path(folder)
    pngs = list(folder.glob("*.png"))
    if not pngs:
        raise FramesError(f"{folder}: no frames (SEED.png beside SEED.json) in it")
    for png in pngs:
        if not png.stem.isdigit():
            raise FramesError(f"{png}: a frame's name is its seed, digits only")
    return sorted(pngs, key=lambda png: int(png.stem))


def read_frame(png: str | Path) -> tuple[np.ndarray, dict]:
    """A frame (BGR uint8) and its truth (``game``, ``cells``, ``board``); FramesError for an
    image that cannot be read or a truth file that is not one."""
    png = Path(png)
    image = cv2.imread(str(png), cv2.IMREAD_COLOR)
    if image is None:
        raise FramesError(f"{png}: not an image")
    truth_file = png.with_suffix(".json")
    try:
        truth = json.loads(truth_file.read_text())
        if not (isinstance(truth, dict) and isinstance(truth.get("game"), str)
                and isinstance(truth.get("cells"), dict) and isinstance(truth.get("board"), str)):
            raise ValueError("it needs a game, cells and a board")
    except (OSError, ValueError) as exc:
        raise FramesError(f"{truth_file}: not the truth of {png.name} ({exc})") from None
    return image, truth


def read_board_frame(png: str | Path, kind: str) -> tuple[np.ndarray, dict, Board]:
    """:func:`read_frame`, and the frame's board, which must be of ``kind`` (``grid`` or
    ``pyramid``); FramesError for a board not known or of another kind."""
    image, truth = read_frame(png)
    try:
        board = load_board(truth["board"])
    except GeometryError as exc:
        raise FramesError(f"{png}: {exc}") from None
    if board.kind != kind:
        raise FramesError(f"{png}: a frame of {board.name}, not of a {kind}")
    return image, truth, board


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="where the frames go (made if missing)")
    parser.add_argument("--first", type=int, required=True, help="the first frame's seed")
    parser.add_argument("--count", type=int, required=True, help="how many frames")
    parser.add_argument("--board", default="grid-9", help="a board in hardware/boards/")
    parser.add_argument("--glare", action="store_true", help="a varnished plate mirroring a lamp into the camera")
    parser.add_argument("--hands", action="store_true", help="a hand over the board in every frame")
    parser.add_argument("--spp", type=int, default=16, help="samples a pixel")
    args = parser.parse_args(argv)
    if args.count < 1 or args.first < 0 or args.spp < 1:
        parser.error("--count and --spp must be 1 or more, --first 0 or more")
    try:
        load_board(args.board)
    except GeometryError as exc:
        parser.error(str(exc))
    out = Path(args.folder)
    out.mkdir(parents=True, exist_ok=True)
    for k, seed in enumerate(range(args.first, args.first + args.count)):
        try:
            image, truth = render_frame(args.board, seed, glare=args.glare, hands=args.hands, spp=args.spp)
        except RuntimeError as exc:  # no Mitsuba: the message says how to install it
            print(f"pbr_frames: {exc}", file=sys.stderr)
            return 2
        cv2.imwrite(str(out / f"{seed}.png"), image)
        (out / f"{seed}.json").write_text(json.dumps(truth))
        print(f"  {k + 1}/{args.count} path traced frames", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
