"""The second look at borders read bare or white (vision/recognize_border.py): where the
profile is measured, what it measures, that the model only ever makes a reading ``?``, and
that it takes the halos of a webcam's sharpening beside bare tiles away from the white
plates without taking the plates."""

from __future__ import annotations

import runpy
from collections import Counter

import cv2
import numpy as np
import pytest

from grid_rule_kit import constant_border_model
from vision.border_train import cell_measures
from vision.border_train import main as train_main
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_border import ALONG, FEATURES, SPREAD, STEPS, SURE, load_border_model, profile_features
from vision.recognize_colour import LINEAR
from vision.recognize_features import LUMA
from vision.recognize_grid import GridLayout
from vision.recognize_model import Ensemble, Model
from vision.recognize_train import frame_in_look
from vision.score import score

GRID = load_board("grid-9")


def test_the_profile_crosses_the_border_from_the_tile_to_the_wood_beyond_the_plate():
    layout = GridLayout.of(GRID)
    off = layout.profile.offsets.reshape(len(STEPS), 4 * len(ALONG), 3)
    across = np.max(np.abs(off[..., :2]), axis=2)  # distance from the centre line, mm
    assert np.allclose(across, (GRID.tile_size / 2 + STEPS * layout.border_width)[:, None])
    assert across[0, 0] < GRID.tile_size / 2  # from inside the tile
    assert across[-1, 0] == GRID.pitch / 2  # to the middle of the wood between plates
    on_plate = STEPS <= 1.0
    assert np.all(off[on_plate, :, 2] == GRID.control_thickness) and np.all(off[~on_plate, :, 2] == 0.0)


def test_features_of_an_even_wood_are_its_own_colour_and_the_borders_width():
    """Where every point shows the wood itself, every log ratio is 0; the last measure is
    the border's width in pixels (log). Points off the image take its edge."""
    wood = np.array([0.4, 0.3, 0.2])
    srgb = np.where(wood <= 0.0031308, wood * 12.92, 1.055 * wood ** (1 / 2.4) - 0.055)
    image = np.empty((40, 60, 3), dtype=np.uint8)
    image[:] = np.round(srgb[::-1] * 255).astype(np.uint8)
    ref = LINEAR[image[0, 0, ::-1]].astype(np.float64)
    pts = np.random.default_rng(1).uniform(-5, 70, (2, len(STEPS) * 20, 2)).astype(np.float32)
    x = profile_features(image, pts, np.stack([ref, ref]), 2.5)
    assert x.shape == (2, FEATURES)
    assert np.allclose(x[:, :-1], 0.0, atol=1e-9) and np.allclose(x[:, -1], np.log(2.5))
    assert profile_features(image, pts[:0], ref[None][:0], 2.5).shape == (0, FEATURES)


def test_features_follow_the_profile_step_by_step():
    """Points are taken step by step (all of a step's sides and places together, as
    ``BorderProfile`` lays them out): a step whose points all show twice the wood's light
    measures log 2 in every channel and in its quartiles."""
    image = np.full((30, 40, 3), 120, dtype=np.uint8)
    image[:, 20:] = 166  # about twice 120's linear light
    ratio = LINEAR[166] / LINEAR[120]
    per_step = 4 * len(ALONG)
    pts = np.zeros((1, len(STEPS) * per_step, 2), dtype=np.float32)
    bright = {2, 5, 6}
    for k in range(len(STEPS)):
        pts[0, k * per_step:(k + 1) * per_step] = (30.0 if k in bright else 5.0, 15.0)
    x = profile_features(image, pts, np.full((1, 3), LINEAR[120]), 3.0)[0]
    med = x[:len(STEPS) * 3].reshape(len(STEPS), 3)
    for k in range(len(STEPS)):
        assert np.allclose(med[k], np.log(ratio) if k in bright else 0.0), k
    quart = x[len(STEPS) * 3:-1].reshape(2, -1)  # 25th, then 75th percentiles of the spread's steps
    spread = range(len(STEPS))[SPREAD]
    assert np.allclose(quart, [[np.log(ratio) if k in bright else 0.0 for k in spread]] * 2)


def test_features_are_medians_and_quartiles_of_the_log_ratios():
    """Only the order statistics wanted are logged (the logs sort as the light does): the
    measures are NumPy's medians and quartiles of the log ratios to the wood."""
    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, (50, 70, 3), dtype=np.uint8)
    pts = rng.uniform(0, 69, (4, len(STEPS) * 4 * len(ALONG), 2)).astype(np.float32)
    ref = rng.uniform(0.05, 0.6, (4, 3))
    x = profile_features(image, pts, ref, 1.7)
    values = cv2.remap(image, pts.reshape(1, -1, 2)[..., 0], pts.reshape(1, -1, 2)[..., 1], cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    rgb = LINEAR[values[0, :, ::-1]].reshape(4, len(STEPS), -1, 3).astype(np.float64)
    log = np.log(np.maximum(rgb, 1e-4) / ref[:, None, None, :])
    lum = np.log(np.maximum(rgb @ LUMA, 1e-4) / (ref @ LUMA)[:, None, None])
    quart = np.percentile(lum[:, SPREAD], [25, 75], axis=2).transpose(1, 0, 2).reshape(4, -1)
    assert np.allclose(x, np.concatenate([np.median(log, axis=2).reshape(4, -1), quart,
                                          np.full((4, 1), np.log(1.7))], axis=1), rtol=0, atol=1e-12)


def test_a_border_the_model_doubts_is_unknown_and_nothing_else_changes(monkeypatch):
    """A border read bare or white stays read where the model gives that at least
    ``SURE`` and is ``?`` with why where not; no other reading changes. The second model,
    fitted on path traced frames, is not asked (``PBR_SURE`` 0): the first is tested alone."""
    monkeypatch.setattr("vision.recognize_second.PBR_SURE", 0.0)
    sc, image = frame_in_look(GRID, 1100000, "plain")
    alone = Recognizer(GRID, sc.game)
    alone.border = None
    rules = alone.read(image).observation.cells
    assert SURE == {".": 0.95, "w": 0.95}
    assert sum(c[1:] == "w" for c in rules.values()) >= 5 and sum(c[1:] == "." for c in rules.values()) >= 20
    for bare, white in ((0.96, 0.04), (0.94, 0.05), (0.5, 0.5), (0.04, 0.96), (0.951, 0.04), (0.001, 0.951)):
        seen = Recognizer(GRID, sc.game, border_model=constant_border_model(bare, white)).read(image)
        for n, code in rules.items():
            p = {".": bare, "w": white}.get(code[1:])
            if p is not None and p < SURE[code[1]]:
                assert seen.observation.cells[n] == code[0] + "?", (bare, white, n)
                assert f"at P {p:.2f} only (bare wood {bare:.2f}, a white plate {white:.2f}" in seen.details[n]
            else:
                assert seen.observation.cells[n] == code, (bare, white, n)


def test_the_trained_model_is_shipped():
    assert load_border_model() is not None


@pytest.mark.parametrize("seed, cells", [
    (4600064, ("i3", "e5", "h6", "i7")),
    (4400063, ("h2", "g3", "i3", "g5")),
    (4200230, ("g1", "f2", "f6", "g6")),
])
def test_halos_beside_bare_tiles_through_webcams_are_not_white_plates(seed, cells, monkeypatch):
    """Fresh frames through webcams whose sharpening left halos beside bare tiles that the
    rules read as white plates (docs/vision.md): the model leaves them ``?``, the frame's
    white plates stay read, and nothing in the frame is read wrong. The model is asked
    alone: a halo's wood round 4200230 g6, judged against the plate's margin, is bright
    enough that the glare rule (vision/recognize_glare.py, ``unlike_margin``) doubts it
    first, as the last lines show."""
    sc, image = frame_in_look(GRID, seed, "webcam")
    everything = Recognizer(GRID, sc.game).read(image).observation.cells
    monkeypatch.setattr("vision.recognize_glare.UNLIKE_MARGIN", float("inf"))
    result = Recognizer(GRID, sc.game).read(image)
    for n in cells:
        assert sc.cells[n][1] == "." and result.observation.cells[n] == sc.cells[n][0] + "?", n
        assert "looks like a white plate at P 0." in result.details[n]
        assert everything[n] == result.observation.cells[n]
    kept = [n for n, c in result.observation.cells.items() if c[1:] == "w"]
    assert kept and all(sc.cells[n][1] == "w" for n in kept)
    c: Counter = Counter()
    assert score(result.observation.cells, sc.cells, c) == [] and c["wrong"] == 0


def test_training_measures_cells_as_recognition_does_and_writes_weights_it_loads(tmp_path):
    """``python -m vision.border_train``: a frame's cells with a tile read, labelled with
    their true controllers, and a weights file a model is built from."""
    sc, image = frame_in_look(GRID, 4600064, "webcam")
    x, y = cell_measures("webcam", 4600064)
    seen = Recognizer(GRID, sc.game).read(image).observation.cells
    expect = [".wb".index(sc.cells[n][1]) for n in GridLayout.of(GRID).names
              if sc.cells.get(n, ".")[0] != "." and seen[n][0] != "?"]
    assert x.shape == (len(expect), FEATURES) and y.tolist() == expect and {0, 1} <= set(expect)
    np.savez(tmp_path / "m.npz", x=x, y=y)
    out = tmp_path / "weights.py"
    assert train_main(["--data", str(tmp_path / "m.npz"), "--out", str(out)]) == 0
    assert out.read_text().startswith('"""Weights of the border model, written by ``python -m vision.border_train``')
    model = Ensemble(tuple(Model.from_dict(d) for d in runpy.run_path(str(out))["WEIGHTS"]))
    p = model.probabilities(x)
    assert p.shape == (len(y), 3) and np.allclose(p.sum(axis=1), 1.0) and (p.argmax(axis=1) == y).mean() > 0.9


def test_training_refuses_files_that_are_not_measures_saying_which_and_why(tmp_path, capsys):
    """A missing file, one that is not an .npz of ``x`` and ``y``, measures of another
    width or labels out of range: exit status 2 and the file named on stderr, no weights."""
    out = tmp_path / "weights.py"
    np.savez(tmp_path / "narrow.npz", x=np.zeros((4, FEATURES - 1)), y=np.zeros(4, dtype=int))
    np.savez(tmp_path / "nolabels.npz", x=np.zeros((4, FEATURES)))
    np.savez(tmp_path / "labels.npz", x=np.zeros((4, FEATURES)), y=np.array([0, 1, 2, 3]))
    (tmp_path / "text.npz").write_text("not an archive")
    for name, why in (("missing.npz", "not an .npz file of measures"), ("text.npz", "not an .npz file of measures"),
                      ("nolabels.npz", "not an .npz file of measures"), ("narrow.npz", f"expected N x {FEATURES}"),
                      ("labels.npz", "labels must be 0, 1 or 2")):
        with pytest.raises(SystemExit) as stop:
            train_main(["--data", str(tmp_path / name), "--out", str(out)])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and str(tmp_path / name) in err and why in err, (name, err)
    assert not out.exists()
