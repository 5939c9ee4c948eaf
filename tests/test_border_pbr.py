"""The second border model, fitted on path traced frames alone (vision/border_pbr_weights.py,
vision/recognize_second.py ``PBR_SURE``): a border the rules read bare or white, and the
first model passes, is ``?`` where the second does not call it so."""

from __future__ import annotations

from collections import Counter

import pytest

import vision.recognize_second as recognize_second
from vision.geometry import load_board
from vision.pbr_frames import in_look, render_frame
from vision.recognize import Recognizer
from vision.recognize_border import load_border_model
from vision.score import score

GRID = load_board("grid-9")


def test_the_second_model_is_shipped_and_asked_by_every_grid_recognizer():
    rec = Recognizer(GRID, "sparklies")
    assert rec.border is not None and rec.border_pbr is not None
    assert rec.border_pbr is not rec.border and len(rec.border_pbr.models) == 5
    assert Recognizer(load_board("pyramid-4"), "pylos").border_pbr is None
    assert recognize_second.PBR_SURE == 0.95
    assert load_border_model(pbr=True).models[0].mean.shape == rec.border.models[0].mean.shape


@pytest.mark.parametrize("seed, look, plates", [
    (8_580_010, "JPEG", ("c4",)), (8_540_008, "cast-drift", ("h1", "f3")), (8_580_052, "plain", ("g9",))])
def test_white_plates_under_glare_the_first_model_passes_are_unknown(seed, look, plates, monkeypatch):
    """Fresh path traced frames under glare, which neither model was fitted on: white plates
    the rules read bare in full and the first model calls bare at 0.96-0.997 are bare to the
    second at 0.03-0.82 only, and ``?``; without it they are read bare, wrong. Nothing else
    changes but borders it leaves ``?``."""
    image, truth = render_frame("grid-9", seed, glare=True)
    image = in_look(image, look, seed)
    result = Recognizer(GRID, truth["game"]).read(image)
    cells, details = dict(result.observation.cells), dict(result.details)
    assert score(cells, truth["cells"], Counter()) == [], {n: details[n] for n in plates}
    for name in plates:
        assert truth["cells"][name][1] == "w" and cells[name] == truth["cells"][name][0] + "?"
        assert "only to the model fitted on path traced frames" in details[name], details[name]
    monkeypatch.setattr(recognize_second, "PBR_SURE", 0.0)
    without = dict(Recognizer(GRID, truth["game"]).read(image).observation.cells)
    assert sorted(score(without, truth["cells"], Counter())) == sorted(plates)
    changed = [n for n in cells if cells[n] != without[n]]
    assert set(plates) <= set(changed)
    for name in changed:
        assert cells[name][1] == "?" and without[name][1] in ".w" and cells[name][0] == without[name][0]
        assert "only to the model fitted on path traced frames" in details[name], details[name]
