"""A ball read stained that is lighter than what lies just outside its outline and lighter
than the frame's other stained balls, and in view enough to be judged so, is unknown
(vision/recognize_fellows.py, ``odd_wood``; ``Thresholds.stained_beside``): shade darkens
stained wood below the wood round it and below its fellows, while a light wooden ball in
the pyramid's shade faces more of the sky than the shaded wood at its foot."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest

import vision.recognize_balls as recognize_balls
from vision.geometry import load_board
from vision.pbr_frames import in_look, render_frame
from vision.recognize import Recognizer
from vision.recognize_fellows import odd_wood
from vision.recognize_reading import Reading
from vision.recognize_thresholds import Thresholds
from vision.score import score

BESIDE = "lighter than what lies just outside it"
TINT = "from this frame's light balls'"
#: ``stained_split`` blinded: the stained balls' groups never lie that far apart
#: (tests/test_stained_split.py). It takes light balls read stained by the half dozen, so
#: the rules it came after are shown alone with it blinded.
NO_SPLIT = (math.inf, math.inf, math.inf, 0.0)
#: the rule blinded: no ball is that much lighter than what lies beside it
BLIND = replace(Thresholds(), stained_beside=(math.inf, math.inf, 0.0))


def stained(level: float, beside: float, p: float = 0.999, seen: float = 0.9) -> Reading:
    """A ball read dark wood at ``level`` (log, relative to the lit plate), the median level
    just outside its outline ``beside``, ``seen`` of it in view; its tint and red share are
    stained wood's."""
    return Reading("D", "seen", p=(1 - p, p, 0.0), colour=(level, level + 0.8, 0.55, -0.2, 0.48, beside), seen=seen)


def read(ball: Reading, fellows: dict[int, Reading], th: Thresholds = Thresholds()) -> Reading:
    """``ball`` judged by ``odd_wood`` among ``fellows``, which it leaves as they were."""
    out = odd_wood({0: ball, **fellows}, th)
    assert all(out[k].code == r.code for k, r in fellows.items())
    return out[0]


def traced(seed: int, look: str, glare: bool = False):
    """Path traced pyramid-4 frame ``seed`` through ``look``: the image, its truth and the board."""
    image, truth = render_frame("pyramid-4", seed, glare=glare)
    return in_look(image, look, seed), truth, load_board("pyramid-4")


def drop_upper(monkeypatch) -> None:
    """``odd_wood`` as read before the balls above the base held the light balls' tint."""
    monkeypatch.setattr(recognize_balls, "odd_wood", lambda readings, th, upper=(): odd_wood(readings, th))


FELLOWS = {1: stained(-2.6, -0.3), 2: stained(-2.5, -1.0), 3: stained(-2.9, -0.1)}


def test_a_ball_read_stained_lighter_than_beside_it_and_than_its_fellows_is_unknown():
    out = read(stained(-2.0, -2.3), FELLOWS)
    assert out.code == "?" and out.colour_only  # P(ball) 0.999: still a ball to the support rules
    assert out.why == ("dark wood?, but 0.30 lighter than what lies just outside it (level -2.30) and 0.60 lighter "
                       "than its other dark wooden balls: a light wooden ball in shade")
    assert read(stained(-2.0, -1.9), FELLOWS).code == "D"          # darker than beside it
    assert read(stained(-2.55, -2.8), FELLOWS).code == "D"         # 0.05 lighter than its fellows only
    assert read(stained(-2.0, math.nan), FELLOWS).code == "D"      # nothing outside it in view
    assert read(stained(-2.0, -2.3, seen=0.55), FELLOWS).code == "D"  # under balls: its lit rim by their shade
    assert read(stained(-2.0, -2.3, seen=0.6), FELLOWS).code == "?"
    assert read(stained(-2.0, -2.3), {}).code == "D"               # no fellow to judge by
    # fellows read at ``dark_ball`` only are judged, but judge none
    assert read(stained(-2.0, -2.3), {k: replace(r, p=(0.05, 0.95, 0.0)) for k, r in FELLOWS.items()}).code == "D"
    assert read(stained(-2.0, -2.3), FELLOWS, replace(Thresholds(), stained_beside=(0.4, 0.1, 0.6))).code == "D"
    assert read(stained(-2.0, -2.3), FELLOWS, replace(Thresholds(), stained_beside=(0.0, 0.7, 0.6))).code == "D"


def test_a_colour_of_five_measures_has_no_beside_to_judge_by():
    ball = Reading("D", "seen", p=(0.001, 0.999, 0.0), colour=(-2.0, -1.2, 0.55, -0.2, 0.48), seen=0.9)
    assert read(ball, FELLOWS).code == "D"


@pytest.mark.parametrize("look", ["JPEG", "cast-drift"])
def test_light_wooden_balls_in_the_pyramids_shade_are_not_read_stained(look, monkeypatch):
    """Fresh path traced 8400145 (Pylos, 1280x720) through JPEG and a colour cast: the light
    wooden base balls 1c4, 1d2 and 1d3 in the pyramid's shade were read stained at P(ball)
    1.00, level -1.8 to -2.1, their red share (0.44-0.46) stained wood's and no light ball
    read at P(ball) 0.99 to hold their tint against. Each is lighter than what lies beside
    it (0.07-0.81) and than the frame's other stained balls (0.13-0.42). Since the light
    balls above the base read at ``light_ball`` hold the tint too
    (tests/test_light_wood_in_shade.py), the tint rule, asked first, takes some of them."""
    image, truth, board = traced(8_400_145, look)
    result = Recognizer(board, truth["game"]).read(image)
    cells, details = dict(result.observation.cells), dict(result.details)
    assert score(cells, truth["cells"], Counter()) == []
    for place in ("1c4", "1d2", "1d3"):
        assert truth["cells"][place] == "L"
        assert cells[place] == "?" and (BESIDE in details[place] or TINT in details[place]), details[place]
    assert BESIDE in details["1c4"], details["1c4"]
    # with the light balls above the base left out, and the base's read under P(ball) 0.99
    # (``lit_seen``), and stained wood read at 0.99 only (``stained_ball``: 1d4, a light ball
    # at P(ball) 0.97, read stained then), as the rule was chosen, it takes all three
    drop_upper(monkeypatch)
    chosen = replace(Thresholds(), lit_seen=math.inf, stained_ball=0.99)
    result = Recognizer(board, truth["game"], thresholds=chosen).read(image)
    for place in ("1c4", "1d2", "1d3"):
        assert result.observation.cells[place] == "?" and BESIDE in result.details[place], result.details[place]
    blind = replace(BLIND, lit_seen=math.inf, stained_ball=0.99)
    without = dict(Recognizer(board, truth["game"], thresholds=blind).read(image).observation.cells)
    wrong = score(without, truth["cells"], Counter())
    assert sorted(wrong) == ["1c4", "1d2", "1d3"] and all(without[p] == "D" for p in wrong)
