"""Fit the border model (vision/recognize_border.py) on rendered grid frames.

    python -m vision.border_train [--frames 500] [--first 6000000] [--save measures.npz]

Frames are the random sets' (``frame_in_look``) from seeds no benchmark or fresh set uses,
in every look, twice as many through webcams (whose sharpening makes the halos the model
is for). Each cell with a tile read with a colour is measured as recognition measures it,
and labelled with its true controller: bare, white or black. Frames are spread over the
machine's cores; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from .geometry import load_board
from .pose import PoseError
from .recognize import Recognizer
from .recognize_border import FEATURES, profile_features
from .recognize_colour import measure_plate
from .recognize_grid import wood_reference
from .recognize_train import MeasuresError, fit_and_write, frame_in_look, measures

#: looks and how many times ``--frames`` of each
LOOKS = {"plain": 1, "webcam": 2, "far-colour": 1, "soft-light": 1}


def cell_measures(look: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The border measures (N x F) and true controllers (0 bare, 1 white, 2 black) of one
    frame's cells that hold a tile recognition reads a colour of."""
    cv2.setNumThreads(1)
    board = load_board("grid-9")
    sc, image = frame_in_look(board, seed, look)
    rec = Recognizer(board, sc.game)
    rec.border = None  # the readings the model is to look at again, not its own
    try:
        pose = rec.pose(image)
    except PoseError:
        return np.zeros((0, 0)), np.zeros(0, dtype=np.intp)
    result = rec.read(image, 0.0, pose)
    plate = measure_plate(image, board, pose, patches=rec.patches(pose, image.shape)[0]).colour
    geo = rec.grid_geometry(pose)
    ref = wood_reference(image, geo, plate)[0]
    idx = [i for i, n in enumerate(rec.grid.names)
           if sc.cells.get(n, ".")[0] != "." and result.observation.cells[n][0] != "?"]
    y = np.array([".wb".index(sc.cells[rec.grid.names[i]][1]) for i in idx], dtype=np.intp)
    idx_a = np.array(idx, dtype=np.intp)
    return profile_features(image, geo.profile[idx_a], ref[idx_a], geo.border_px), y


def _job(args: tuple[str, int]) -> tuple[np.ndarray, np.ndarray]:
    return cell_measures(*args)


def dataset(first: int, frames: int) -> tuple[np.ndarray, np.ndarray]:
    jobs = [(look, first + k) for look, times in LOOKS.items() for k in range(frames * times)]
    xs, ys = [], []
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        for k, (x, y) in enumerate(pool.imap(_job, jobs, chunksize=4)):
            if len(y):
                xs.append(x)
                ys.append(y)
            if k % 200 == 199:
                print(f"  {k + 1}/{len(jobs)} frames", file=sys.stderr, flush=True)
    return np.concatenate(xs), np.concatenate(ys)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=500, help="frames per look (twice as many through webcams)")
    parser.add_argument("--first", type=int, default=6_000_000, help="first seed")
    parser.add_argument("--data", nargs="*", default=[], help=".npz files of measures (x, y) to train on instead")
    parser.add_argument("--save", help="keep the measures in this .npz")
    parser.add_argument("--out", default=str(Path(__file__).with_name("border_weights.py")))
    args = parser.parse_args(argv)
    try:
        x, y, w = measures(args.data, args.save, lambda: (*dataset(args.first, args.frames), None), FEATURES)
    except MeasuresError as exc:
        parser.error(str(exc))
    fit_and_write(x, y, Path(args.out), "borders", ("bare", "white", "black"), "border", "vision.border_train", w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
