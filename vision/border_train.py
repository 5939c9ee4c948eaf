"""Fit the border model (vision/recognize_border.py) on rendered grid frames.

    python -m vision.border_train [--frames 500] [--first 6000000] [--save measures.npz]
    python -m vision.border_train --frames 0 --pbr-dirs DIR... --out vision/border_pbr_weights.py

Frames are the random sets' (``frame_in_look``) from seeds no benchmark or fresh set uses,
in every look, twice as many through webcams (whose sharpening makes the halos the model
is for). Each cell with a tile read with a colour (its controller read or not) is measured
as recognition measures it, and labelled with its true controller: bare, white or black.
``--pbr-dirs`` adds path traced frames (``python -m vision.pbr_frames``) in the five looks
of a photograph (``PHOTO_LOOKS``): how the second model (``border_pbr_weights.py``) was
fitted, on those alone.
Frames are spread over the machine's cores; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import cv2
import numpy as np

from .geometry import Board, load_board
from .pbr_frames import PHOTO_LOOKS, FramesError, frame_files, in_look, read_board_frame
from .pose import PoseError
from .recognize import Recognizer
from .recognize_border import FEATURES, profile_features
from .recognize_colour import measure_plate
from .recognize_grid import wood_reference
from .recognize_train import MeasuresError, fit_and_write, frame_in_look, measures

#: looks and how many times ``--frames`` of each
LOOKS = {"plain": 1, "webcam": 2, "far-colour": 1, "soft-light": 1}


def frame_measures(board: Board, game: str, image: np.ndarray, cells: Mapping[str, str]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The border measures (N x F) and true controllers (0 bare, 1 white, 2 black) of one
    frame's cells that hold a tile recognition reads a colour of, its controller read or
    not."""
    rec = Recognizer(board, game)
    rec.border = None  # the readings the model is to look at again, not its own
    try:
        pose = rec.pose(image)
    except PoseError:
        return np.zeros((0, FEATURES)), np.zeros(0, dtype=np.intp)
    result = rec.read(image, 0.0, pose)
    plate = measure_plate(image, board, pose, patches=rec.patches(pose, image.shape)[0]).colour
    geo = rec.grid_geometry(pose)
    ref = wood_reference(image, geo, plate)[0]
    read = result.observation.cells
    idx = [i for i, n in enumerate(rec.grid.names) if cells.get(n, ".")[0] != "." and read[n][0] != "?"]
    y = np.array([".wb".index(cells[rec.grid.names[i]][1]) for i in idx], dtype=np.intp)
    idx_a = np.array(idx, dtype=np.intp)
    return profile_features(image, geo.profile[idx_a], ref[idx_a], geo.border_px), y


def cell_measures(look: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`frame_measures` of the random sets' frame ``seed`` in ``look``."""
    cv2.setNumThreads(1)
    board = load_board("grid-9")
    sc, image = frame_in_look(board, seed, look)
    return frame_measures(board, sc.game, image, sc.cells)


def pbr_measures(png: Path, look: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`frame_measures` of a path traced frame in ``look``; FramesError for a frame
    of a board that is not known or not a grid."""
    cv2.setNumThreads(1)
    image, truth, board = read_board_frame(png, "grid")
    return frame_measures(board, truth["game"], in_look(image, look, int(png.stem)), truth["cells"])


def _job(args: tuple) -> tuple[np.ndarray, np.ndarray]:
    return pbr_measures(*args) if isinstance(args[0], Path) else cell_measures(*args)


def dataset(first: int, frames: int, pbr: Sequence[Path] = (), pbr_weight: float = 1.0
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Measures, labels and weights of ``frames`` of the random sets' frames a look (from
    seed ``first``) and of the path traced frames ``pbr`` in every photograph's look, each
    of their cells weighted ``pbr_weight``."""
    jobs: list[tuple] = [(look, first + k) for look, times in LOOKS.items() for k in range(frames * times)]
    jobs += [(png, look) for png in pbr for look in PHOTO_LOOKS]
    xs, ys, ws = [np.zeros((0, FEATURES))], [np.zeros(0, dtype=np.intp)], [np.zeros(0)]
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        for k, ((x, y), job) in enumerate(zip(pool.imap(_job, jobs, chunksize=4), jobs)):
            xs.append(x)
            ys.append(y)
            ws.append(np.full(len(y), pbr_weight if isinstance(job[0], Path) else 1.0))
            if k % 200 == 199:
                print(f"  {k + 1}/{len(jobs)} frames", file=sys.stderr, flush=True)
        pool.close()  # then join: the context's terminate alone can hang (CPython issue 78178)
        pool.join()
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=500,
                        help="frames per look (twice as many through webcams); 0 for path traced frames alone")
    parser.add_argument("--first", type=int, default=6_000_000, help="first seed")
    parser.add_argument("--pbr-dirs", nargs="*", default=[], type=Path,
                        help="folders of path traced frames (python -m vision.pbr_frames) to measure too")
    parser.add_argument("--pbr-weight", type=float, default=1.0, help="the weight of each path traced border")
    parser.add_argument("--data", nargs="*", default=[], help=".npz files of measures (x, y) to train on instead")
    parser.add_argument("--save", help="keep the measures in this .npz")
    parser.add_argument("--out", default=str(Path(__file__).with_name("border_weights.py")))
    args = parser.parse_args(argv)
    if args.frames < 0 or not args.pbr_weight > 0:
        parser.error("--frames must be 0 or more and --pbr-weight above 0")
    if args.data and (args.pbr_dirs or args.frames != parser.get_default("frames")):
        parser.error("--frames and --pbr-dirs make measures of frames; with --data the measures come from the "
                     "files alone")
    if not args.data and not args.frames and not args.pbr_dirs:
        parser.error("nothing to fit on: --frames 0 without --pbr-dirs")
    try:
        pbr = [png for folder in args.pbr_dirs for png in frame_files(folder)]
        x, y, w = measures(args.data, args.save, lambda: dataset(args.first, args.frames, pbr, args.pbr_weight),
                           FEATURES)
    except (MeasuresError, FramesError) as exc:
        parser.error(str(exc))
    what = "border" if args.frames or args.data else "second border"
    fit_and_write(x, y, Path(args.out), "borders", ("bare", "white", "black"), what, "vision.border_train", w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
