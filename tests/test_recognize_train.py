"""``python -m vision.recognize_train``: measures with weights (the path traced frames of
``--pbr`` count more than the project's own), refused when the weights are not weights,
and a fit that the weights move."""

from __future__ import annotations

import random
import runpy

import numpy as np
import pytest

import vision.render_pbr
from vision.geometry import load_board
from vision.recognize_border import FEATURES
from vision.recognize_features import NAMES
from vision.recognize_model import Ensemble, Model
from vision.recognize_train import (MID_MOVE_TRAIN_SEED, FrameMeasures, dataset, fit, main, measures,
                                    mid_move_position, scenes)

PYRAMID = load_board("pyramid-4")


def _weights(path) -> Ensemble:
    return Ensemble(tuple(Model.from_dict(d) for d in runpy.run_path(str(path))["WEIGHTS"]))


def test_frame_measures_are_the_training_sets_own():
    """The measures ``--pbr`` takes of a path traced frame are those :func:`dataset` takes
    of the project's frames: the same function, so one frame measured either way agrees."""
    x, y, meta = dataset(PYRAMID, 11, 2)
    sc = [*scenes(PYRAMID, random.Random(11), 2)]
    again = [m for s in sc for m in FrameMeasures.of(PYRAMID)(s, s.frame.image)]
    assert len(again) == len(y) > 10
    assert np.array_equal(np.array([m[0] for m in again]), x) and [m[1] for m in again] == y.tolist()
    assert [m[2] for m in again] == [name for _, name, _ in meta]


def test_a_sample_weighted_more_pulls_the_fit_towards_its_label():
    """Without weights, the fit is the one it was (each class weighted equally); weighted,
    a sample counts for more within its class."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(90, len(NAMES)))
    y = np.repeat([0, 1, 2], 30)
    plain = fit(x, y, models=1, epochs=40).probabilities(x)
    assert np.array_equal(fit(x, y, np.ones(90), models=1, epochs=40).probabilities(x), plain)
    # one point, given twice with opposite labels: the heavier label wins there
    x2 = np.vstack([x, x[:1], x[:1]])
    y2 = np.concatenate([y, [0, 1]])
    w = np.ones(92)
    w[-1] = 30.0
    heavy = fit(x2, y2, w, models=1, epochs=200).probabilities(x2[-1:])[0]
    light = fit(x2, y2, models=1, epochs=200).probabilities(x2[-1:])[0]
    assert heavy[1] > light[1] + 0.1, (heavy, light)


def test_weights_in_a_file_of_measures_are_used_and_checked(tmp_path, capsys):
    """``--data`` takes an optional ``w`` per label; a file whose weights are not N positive
    numbers is refused with exit status 2 and the file named on stderr, no weights written."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(60, len(NAMES)))
    y = np.repeat([0, 1, 2], 20)
    np.savez(tmp_path / "m.npz", x=x, y=y, w=np.full(60, 2.0))
    out = tmp_path / "weights.py"
    assert main(["--data", str(tmp_path / "m.npz"), "--out", str(out)]) == 0
    assert _weights(out).probabilities(x).shape == (60, 3)
    for name, w in (("short.npz", np.ones(59)), ("zero.npz", np.r_[np.ones(59), 0.0]),
                    ("nan.npz", np.r_[np.ones(59), np.nan])):
        np.savez(tmp_path / name, x=x, y=y, w=w)
        with pytest.raises(SystemExit) as stop:
            main(["--data", str(tmp_path / name), "--out", str(tmp_path / "never.py")])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and str(tmp_path / name) in err and "weights w must be" in err, (name, err)
    assert not (tmp_path / "never.py").exists()


def test_measures_saved_with_their_weights_train_the_same_model_again(tmp_path):
    """``--save`` keeps the measures made with their weights; given back with ``--data``
    they fit the same weights file (for both models' trainers)."""
    saved, first, again = tmp_path / "m.npz", tmp_path / "first.py", tmp_path / "again.py"
    assert main(["--frames", "2", "--seed", "3", "--save", str(saved), "--out", str(first)]) == 0
    with np.load(saved) as part:
        assert part["x"].shape == (len(part["y"]), len(NAMES)) and part["w"].tolist() == [1.0] * len(part["y"])
    assert main(["--data", str(saved), "--out", str(again)]) == 0
    assert first.read_text() == again.read_text()
    x, y = np.zeros((4, FEATURES)), np.array([0, 1, 2, 1])
    measures([], str(tmp_path / "b.npz"), lambda: (x, y, None), FEATURES)  # as border_train makes them
    assert measures([str(tmp_path / "b.npz")], None, lambda: (x, y, None), FEATURES)[2].tolist() == [1.0] * 4


def test_path_traced_frames_asked_for_without_mitsuba_or_in_bad_numbers_are_refused(tmp_path, capsys, monkeypatch):
    """``--pbr`` without Mitsuba says how to install it; a negative count, a weight of 0, or
    frames to make beside ``--data`` are refused; each with exit status 2, a line on
    stderr and no weights written."""
    def missing():
        raise RuntimeError("vision.render_pbr needs Mitsuba 3: pip install 'tabletop-arbiter[pbr]'")

    monkeypatch.setattr(vision.render_pbr, "_mitsuba", missing)
    out = tmp_path / "weights.py"
    for args, why in ((["--frames", "1", "--pbr", "1"], "--pbr: vision.render_pbr needs Mitsuba 3: pip install"),
                      (["--pbr", "-1"], "--pbr must be 0 or more frames, not -1"),
                      (["--pbr-weight", "0"], "--pbr-weight must be above 0, not 0.0"),
                      (["--mid-move", "-2"], "--mid-move must be 0 or more frames, not -2"),
                      (["--data", str(tmp_path / "m.npz"), "--mid-move", "3"],
                       "with --data the measures come from the files alone")):
        with pytest.raises(SystemExit) as stop:
            main([*args, "--out", str(out)])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and why in err, (args, err)
    assert not out.exists()


def test_mid_move_frames_teach_empty_sparks_hollows(tmp_path):
    """``--mid-move`` adds frames whose Sparks positions have empty base hollows, labelled
    empty, which no legal Sparks position shows (the training set's own Sparks frames have
    none); its measures are those :func:`dataset` takes of such frames, after the
    project's own."""
    x, y, meta = dataset(PYRAMID, MID_MOVE_TRAIN_SEED, 4, position=mid_move_position)
    frames = [*scenes(PYRAMID, random.Random(MID_MOVE_TRAIN_SEED), 4, position=mid_move_position)]
    legal = [*scenes(PYRAMID, random.Random(MID_MOVE_TRAIN_SEED), 4)]
    base = [p.name for p in PYRAMID.positions if p.name[0] == "1"]
    assert any(sc.game == "sparks" for sc in legal)
    assert not any(sc.cells.get(n, ".") == "." for sc in legal if sc.game == "sparks" for n in base)
    empty = [i for i, (k, name, content) in enumerate(meta)
             if frames[k].game == "sparks" and name in base and content == "."]
    assert len(empty) >= 8 and all(y[i] in (0, 2) for i in empty)
    saved = tmp_path / "m.npz"
    assert main(["--frames", "2", "--seed", "3", "--mid-move", "4", "--save", str(saved),
                 "--out", str(tmp_path / "w.py")]) == 0
    own_x, own_y, _ = dataset(PYRAMID, 3, 2)  # the project's own frames, as --frames 2 --seed 3 measures them
    with np.load(saved) as both:
        assert np.array_equal(both["x"], np.concatenate([own_x, x]))
        assert np.array_equal(both["y"], np.concatenate([own_y, y]))
