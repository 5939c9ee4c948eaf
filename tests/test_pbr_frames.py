"""Path traced frames kept on disk (vision/pbr_frames.py) and the second border model fitted
on them (``python -m vision.border_train --frames 0 --pbr-dirs``)."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from vision.border_train import main as train_main
from vision.border_train import pbr_measures
from vision.geometry import load_board
from vision.pbr_frames import PHOTO_LOOKS, FramesError, frame_files, in_look, read_frame
from vision.pbr_frames import main as frames_main
from vision.recognize import Recognizer
from vision.recognize_border import FEATURES
from vision.recognize_grid import GridLayout
from vision.recognize_train import scenes

GRID = load_board("grid-9")


def test_frames_are_written_with_their_truth_and_read_back(tmp_path, capsys):
    """``python -m vision.pbr_frames``: each frame beside its truth, the scene of its seed,
    the same frame again for the same seed, and progress on stderr."""
    assert frames_main([str(tmp_path / "a"), "--first", "8600500", "--count", "2", "--spp", "1", "--glare"]) == 0
    assert "2/2 path traced frames" in capsys.readouterr().err
    assert frames_main([str(tmp_path / "b"), "--first", "8600501", "--count", "1", "--spp", "1", "--glare"]) == 0
    files = frame_files(tmp_path / "a")
    assert [f.name for f in files] == ["8600500.png", "8600501.png"]
    image, truth = read_frame(files[1])
    sc = next(scenes(GRID, random.Random(8600501), 1, hands=0.0))
    assert truth == {"game": sc.game, "cells": sc.cells, "board": "grid-9", "hands": False}
    assert image.shape == (sc.settings["camera"].height, sc.settings["camera"].width, 3)
    again, _ = read_frame(tmp_path / "b" / "8600501.png")
    assert np.array_equal(image, again)
    plain, _ = read_frame(files[0])
    assert not np.array_equal(plain, image)


def test_the_looks_of_a_photograph_change_the_frame_as_seeded():
    image = np.full((48, 64, 3), 128, np.uint8)
    image[10:30, 10:40] = (30, 60, 200)
    assert PHOTO_LOOKS == ("plain", "webcam", "JPEG", "shadow", "cast-drift")
    assert in_look(image, "plain", 1) is image
    for look in PHOTO_LOOKS[1:]:
        looked = in_look(image, look, 3)
        assert looked.shape == image.shape and not np.array_equal(looked, image), look
        assert np.array_equal(looked, in_look(image, look, 3)), look
    with pytest.raises(ValueError, match="no look 'sepia'"):
        in_look(image, "sepia", 1)


def test_folders_that_hold_no_frames_are_refused_saying_which_file_and_why(tmp_path):
    with pytest.raises(FramesError, match="no frames"):
        frame_files(tmp_path)
    cv2.imwrite(str(tmp_path / "frame.png"), np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(FramesError, match="frame.png: a frame's name is its seed"):
        frame_files(tmp_path)
    (tmp_path / "frame.png").unlink()
    (tmp_path / "12.png").write_bytes(b"not a png")
    with pytest.raises(FramesError, match="12.png: not an image"):
        read_frame(tmp_path / "12.png")
    cv2.imwrite(str(tmp_path / "12.png"), np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(FramesError, match="12.json: not the truth of 12.png"):
        read_frame(tmp_path / "12.png")
    (tmp_path / "12.json").write_text(json.dumps({"game": "sparklies", "cells": []}))
    with pytest.raises(FramesError, match="it needs a game, cells and a board"):
        read_frame(tmp_path / "12.png")


def test_the_frames_command_refuses_wrong_arguments(tmp_path, capsys):
    for args, why in ((["--first", "1", "--count", "0"], "--count and --spp must be 1 or more"),
                      (["--first", "1", "--count", "1", "--board", "grid-7"], "no board 'grid-7'")):
        with pytest.raises(SystemExit) as stop:
            frames_main([str(tmp_path), *args])
        assert stop.value.code == 2 and why in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_path_traced_frames_are_measured_on_every_tile_read_its_controller_read_or_not(tmp_path):
    """A path traced frame in a look: every cell with a tile read with a colour, labelled
    with its true controller, ``?`` controllers too (the second model learns where the
    rules and the first model leave borders open)."""
    assert frames_main([str(tmp_path), "--first", "8600502", "--count", "1", "--spp", "4"]) == 0
    png = tmp_path / "8600502.png"
    image, truth = read_frame(png)
    x, y = pbr_measures(png, "JPEG")
    seen = Recognizer(GRID, truth["game"]).read(in_look(image, "JPEG", 8600502)).observation.cells
    names = GridLayout.of(GRID).names
    expect = [".wb".index(truth["cells"][n][1]) for n in names if truth["cells"].get(n, ".")[0] != "." and
              seen[n][0] != "?"]
    assert x.shape == (len(expect), FEATURES) and y.tolist() == expect
    assert any(seen[n][0] != "?" and seen[n][1] == "?" for n in names)  # some borders left open are measured


def test_the_second_model_is_fitted_from_folders_of_frames_and_wrong_ones_are_refused(tmp_path, capsys):
    frames = tmp_path / "frames"
    assert frames_main([str(frames), "--first", "8600503", "--count", "1", "--spp", "4"]) == 0
    out, saved = tmp_path / "weights.py", tmp_path / "m.npz"
    assert train_main(["--frames", "0", "--pbr-dirs", str(frames), "--save", str(saved), "--out", str(out)]) == 0
    assert out.read_text().startswith('"""Weights of the second border model')
    with np.load(saved) as m:
        assert m["x"].shape[1] == FEATURES and len(m["y"]) > 5 * 40 and (m["w"] == 1).all()
        x = m["x"]
    heavier = tmp_path / "heavier.npz"
    assert train_main(["--frames", "0", "--pbr-dirs", str(frames), "--pbr-weight", "2.5", "--save", str(heavier),
                       "--out", str(out)]) == 0
    with np.load(heavier) as m:
        assert np.array_equal(m["x"], x) and (m["w"] == 2.5).all()
    capsys.readouterr()
    (tmp_path / "empty").mkdir()
    for name, board, why in (("pyramid", "pyramid-4", "a frame of pyramid-4, not of a grid"),
                             ("unknown", "grid-7", "no board 'grid-7'")):
        (tmp_path / name).mkdir()
        cv2.imwrite(str(tmp_path / name / "5.png"), np.zeros((8, 8, 3), np.uint8))
        (tmp_path / name / "5.json").write_text(json.dumps({"game": "pylos", "cells": {}, "board": board}))
        with pytest.raises(SystemExit) as stop:
            train_main(["--frames", "0", "--pbr-dirs", str(tmp_path / name), "--out", str(tmp_path / "never.py")])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and str(tmp_path / name / "5.png") in err and why in err, err
    for args, why in ((["--frames", "0"], "nothing to fit on"),
                      (["--frames", "0", "--pbr-dirs", str(tmp_path / "empty")], "empty: no frames"),
                      (["--pbr-dirs", str(frames), "--data", str(saved)], "with --data the measures come"),
                      (["--frames", "0", "--pbr-dirs", str(frames), "--pbr-weight", "0"], "--pbr-weight above 0")):
        with pytest.raises(SystemExit) as stop:
            train_main([*args, "--out", str(tmp_path / "never.py")])
        assert stop.value.code == 2 and why in capsys.readouterr().err, args
    assert not (tmp_path / "never.py").exists()
