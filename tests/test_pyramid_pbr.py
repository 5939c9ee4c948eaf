"""The second pyramid model, fitted on path traced frames alone (vision/pyramid_pbr_weights.py;
vision/recognize_balls.py, ``second_empty``): a place the model reads empty must be empty to
it too, or it is ``?``; and ``python -m vision.recognize_train --pbr-dirs`` that fits it."""

from __future__ import annotations

import json
from collections import Counter

import cv2
import numpy as np
import pytest

from vision.geometry import load_board
from vision.pbr_frames import in_look, render_frame
from vision.pbr_frames import main as frames_main
from vision.recognize import Recognizer
from vision.recognize_balls import second_empty
from vision.recognize_features import NAMES
from vision.recognize_model import load
from vision.recognize_reading import Reading
from vision.recognize_thresholds import Thresholds
from vision.recognize_train import main as train_main
from vision.recognize_train import pbr_frame_measures
from vision.score import score

PYRAMID = load_board("pyramid-4")
SECOND = "only to the model fitted on path traced frames"


def test_the_second_model_is_shipped_and_asked_by_every_pyramid_recognizer():
    rec = Recognizer(PYRAMID, "sparks")
    assert rec.model_pbr is not None and rec.model_pbr is not rec.model and len(rec.model_pbr.models) == 5
    assert rec.model_pbr.models[0].mean.shape == rec.model.models[0].mean.shape == (len(NAMES),)
    assert Recognizer(load_board("grid-9"), "sparklies").model_pbr is None
    assert Thresholds().pbr_empty == 0.95
    assert load(pbr=True) is not None


def test_an_empty_reading_stands_only_where_the_second_model_calls_the_place_empty_too():
    empty = Reading(".", "empty", (0.998, 0.002, 0.0), {".": 0.9})
    th = Thresholds()
    assert second_empty(empty, 0.95, th) is empty
    doubted = second_empty(empty, 0.42, th)
    assert doubted.code == "?" and doubted.p == empty.p and doubted.shares == empty.shares
    assert doubted.why == f"empty?, P(empty) 0.998, but 0.42 {SECOND}"


def test_balls_through_a_webcam_the_model_reads_empty_are_unknown():
    """Fresh path traced 8400063 through its webcam (sharpened, noisy, 1280x720): light and
    stained balls in plain view were read empty at P(empty) 0.99-1.00, and a stained one on
    them by the support rules. The second model calls 2c2 empty at 0.22 only: it is ``?``,
    and the places under and beside it, measured with a ball maybe there, follow."""
    image, truth = render_frame("pyramid-4", 8_400_063)
    image = in_look(image, "webcam", 8_400_063)
    result = Recognizer(PYRAMID, truth["game"]).read(image)
    cells, details = dict(result.observation.cells), dict(result.details)
    assert score(cells, truth["cells"], Counter()) == []
    assert cells["2c2"] == "?" and SECOND in details["2c2"], details["2c2"]
    assert all(cells[n] == "?" for n in ("2c3", "2b3", "1c3"))
    without = Recognizer(PYRAMID, truth["game"], thresholds=Thresholds(pbr_empty=0.0)).read(image)
    wrong = score(dict(without.observation.cells), truth["cells"], Counter())
    assert sorted(wrong) == ["1c3", "2b3", "2c2", "2c3"]
    assert all(truth["cells"][n] != "." and without.observation.cells[n] == "." for n in wrong)


def test_path_traced_pyramid_frames_are_measured_in_every_look_and_the_model_fitted(tmp_path, capsys):
    frames = tmp_path / "frames"
    assert frames_main([str(frames), "--board", "pyramid-4", "--first", "8700504", "--count", "1",
                        "--spp", "4"]) == 0
    png = frames / "8700504.png"
    x, y = pbr_frame_measures(png)
    assert x.shape == (len(y), len(NAMES)) and len(y) > 5 * 10
    assert set(y.tolist()) <= {0, 1} and 0 in y and 1 in y  # no hand in the frame: none labelled hand
    cells = json.loads(png.with_suffix(".json").read_text())["cells"]
    balls = sum(cells.get(p.name, ".") != "." for p in PYRAMID.positions)
    assert int((y == 1).sum()) <= 5 * balls and int((y == 0).sum()) <= 5 * (len(PYRAMID.positions) - balls)
    out, saved = tmp_path / "weights.py", tmp_path / "m.npz"
    assert train_main(["--frames", "0", "--pbr-dirs", str(frames), "--pbr-weight", "1", "--save", str(saved),
                       "--out", str(out)]) == 0
    assert out.read_text().startswith('"""Weights of the second pyramid model')
    assert "trained on" in capsys.readouterr().err
    with np.load(saved) as m:
        assert np.array_equal(m["x"], x) and np.array_equal(m["y"], y) and (m["w"] == 1).all()
    assert train_main(["--frames", "0", "--pbr-dirs", str(frames), "--save", str(saved), "--out", str(out)]) == 0
    with np.load(saved) as m:
        assert np.array_equal(m["y"], y) and (m["w"] == 3).all()  # --pbr-weight's default
    for name, truth, why in (
            ("grid", {"game": "sparklies", "cells": {}, "board": "grid-9"}, "a frame of grid-9, not of a pyramid"),
            ("other", {"game": "pylos", "cells": {"1a1": "L"}, "board": "pyramid-4"},
             "its truth is not the scene of seed 8700504")):
        (tmp_path / name).mkdir()
        cv2.imwrite(str(tmp_path / name / "8700504.png"), np.zeros((8, 8, 3), np.uint8))
        (tmp_path / name / "8700504.json").write_text(json.dumps(truth))
        with pytest.raises(SystemExit) as stop:
            train_main(["--frames", "0", "--pbr-dirs", str(tmp_path / name), "--out", str(tmp_path / "never.py")])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and str(tmp_path / name / "8700504.png") in err and why in err, err
    for args, why in ((["--frames", "0"], "nothing to fit on"), (["--frames", "-1"], "--frames must be 0 or more"),
                      (["--pbr-dirs", str(frames), "--data", str(saved)], "with --data the measures come")):
        with pytest.raises(SystemExit) as stop:
            train_main([*args, "--out", str(tmp_path / "never.py")])
        assert stop.value.code == 2 and why in capsys.readouterr().err, args
    assert not (tmp_path / "never.py").exists()
