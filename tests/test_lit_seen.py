"""Base balls read light wood under P(ball) ``ball`` that are all in view count towards the
frame's light tint (vision/recognize_fellows.py, ``_lit_tint``; ``Thresholds.lit_seen``),
which a ball read stained is held to: a light wooden ball in shade keeps its tint.

Path traced 8980010 (Pylos, under glare): its two light balls in the open were read at
P(ball) 0.93-0.97 only, so no light tint was known, and 1c3, a light ball in shade, was
read stained, its tint 0.10 from theirs and 0.32 from the stained balls'."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from vision.recognize import Recognizer
from vision.recognize_thresholds import Thresholds
from vision.score import score

from test_odd_wood_again import ball, judged
from test_stained_beside import NO_SPLIT, traced

#: base balls read light wood under ``ball`` never count, as before (and the stained balls
#: are not split in two groups: with no light tint to hold them to, that takes 1c3 too)
BEFORE = replace(Thresholds(), lit_seen=2.0, stained_split=NO_SPLIT)

#: 8980010's base balls as rendered, as ``odd_wood`` was given them
FRAME = {
    "1a1": ball("D", -2.21, -1.52, 0.426, -0.109, 0.452, 0.01, seen=0.63),
    "1a3": ball("D", -1.95, -1.33, 0.368, -0.025, 0.436, 0.02, p=1.0, seen=0.32),
    "1a4": ball("D", -2.32, -1.64, 0.405, -0.051, 0.439, -0.17, p=1.0, seen=0.50),
    "1b3": ball("D", -2.25, -1.63, 0.621, -0.189, 0.506, float("nan"), p=1.0, seen=0.22),
    "1c3": ball("D", -1.72, -1.00, 0.235, -0.062, 0.391, -1.39, p=0.998, seen=0.79),
    "1c4": ball("D", -3.14, -2.41, 0.548, -0.187, 0.484, -0.62, p=1.0, seen=0.83),
    "1d1": ball("D", -2.65, -1.90, 0.561, -0.124, 0.475, -1.03, seen=1.0),
    "1d3": ball("D", -2.76, -2.11, 0.581, -0.190, 0.496, -0.82, seen=1.0),
    "1c1": ball("L", -0.94, -0.36, 0.154, -0.023, 0.373, -0.29, p=0.973, seen=1.0),
    "1d2": ball("L", -0.96, -0.26, 0.137, 0.003, 0.366, -1.00, p=0.927, seen=1.0),
}


def test_light_balls_all_in_view_hold_a_ball_read_stained_to_their_tint():
    out = judged(FRAME)
    assert [n for n, r in out.items() if r.code == "?"] == ["1c3"]
    assert out["1c3"].why.startswith("dark wood?, but its tint is 0.10 from this frame's light balls' and 0.32 "
                                      "from its other dark wooden balls'"), out["1c3"].why
    # before: the light balls, under P(ball) 0.99, held no tint, and 1c3 passed as stained
    assert all(r.code == FRAME[n].code for n, r in judged(FRAME, BEFORE).items())
    # light balls partly hidden may be hollows among balls: they hold no tint
    hidden = {n: replace(r, seen=0.85) if r.code == "L" else r for n, r in FRAME.items()}
    assert judged(hidden, replace(Thresholds(), stained_split=NO_SPLIT))["1c3"].code == "D"  # the split takes it: below
    # with no light tint, the split takes 1c3, and with it three stained balls of its group
    # lighter than the group's middle: held to the light balls' tint (0.53 times as far from
    # it as the others', over ``stained_split[3]``), it takes none
    unlit = judged(FRAME, replace(Thresholds(), lit_seen=2.0))
    assert [n for n, r in unlit.items() if r.code == "?"] == ["1a1", "1a3", "1a4", "1c3"]
    assert "no light ball read to hold them to" in unlit["1a1"].why
    # one light ball all in view is enough to hold it
    one = {n: replace(r, seen=0.85) if n == "1d2" else r for n, r in FRAME.items()}
    assert judged(one)["1c3"].code == "?"


def test_a_light_ball_in_shade_read_stained_among_light_balls_read_at_light_ball():
    """Path traced 8980010 (under glare) as rendered and under a colour cast: 1c3, light
    wood, was read stained at P(ball) 1.00."""
    for look in ("plain", "cast-drift"):
        image, truth, board = traced(8_980_010, look, glare=True)
        result = Recognizer(board, truth["game"]).read(image)
        cells = dict(result.observation.cells)
        assert truth["cells"]["1c3"] == "L" and cells["1c3"] == "?", (look, result.details["1c3"])
        assert "from this frame's light balls'" in result.details["1c3"]
        assert score(cells, truth["cells"], Counter()) == [], look
        for name in ("1c1", "1d1", "1d3"):  # its fellows keep their reading
            assert cells[name] == truth["cells"][name] != "."
        again = Recognizer(board, truth["game"], thresholds=BEFORE).read(image).observation.cells
        assert again["1c3"] == "D", look
