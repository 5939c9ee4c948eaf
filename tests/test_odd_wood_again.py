"""Balls judged again once the balls ``odd_wood`` doubted judge no more
(vision/recognize_fellows.py; ``Thresholds.odd_wood_again``).

Light wooden balls read stained drag the stained balls' medians towards their own: in path
traced 8980015, through a webcam, three of the seven balls read stained were light wood. The
rules doubted one of them, and the other two passed as stained until the one doubted no
longer judged them."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from vision.recognize import Recognizer
from vision.recognize_fellows import odd_wood
from vision.recognize_reading import Reading
from vision.recognize_thresholds import Thresholds
from vision.score import score

from test_stained_beside import NO_SPLIT, traced

#: judged once only, as before the rules judged again (and before the stained balls were
#: split in two groups, which takes 1c2, 1d3 and 1d4 too: tests/test_stained_split.py)
ONCE = replace(Thresholds(), odd_wood_again=99, stained_split=NO_SPLIT)


def ball(code: str, level: float, top: float, rg: float, bg: float, red: float, outside: float,
         p: float = 0.999, seen: float = 0.8) -> Reading:
    """A wooden ball reading with the colour measures ``odd_wood`` judges by: level and
    brightest tenth (log, relative to the lit plate), tint (log red/green and blue/green,
    relative to the plate's), red share and the level just outside its outline."""
    return Reading(code, "seen", p=(1 - p, p, 0.0), colour=(level, top, rg, bg, red, outside), seen=seen)


#: 8980015's base balls through a webcam, as ``odd_wood`` was given them: 1c2, 1d3 and 1d4
#: are light wood, lighter (-1.6 to -1.9) and nearer the plate's tint than the stained four
FRAME = {
    "1a1": ball("D", -2.60, -1.54, 0.327, -0.424, 0.442, -0.14, seen=0.76),
    "1a4": ball("D", -2.78, -2.04, 0.206, -0.199, 0.397, -0.09, seen=0.62),
    "1b1": ball("D", -2.89, -1.71, 0.383, -0.262, 0.454, -0.23, seen=0.71),
    "1d2": ball("D", -3.54, -2.57, 0.400, -0.370, 0.478, -1.28, seen=0.85),
    "1c2": ball("D", -1.90, -1.22, 0.153, -0.161, 0.374, float("nan"), seen=0.54),
    "1d3": ball("D", -1.61, -1.34, 0.137, -0.175, 0.382, -1.13, p=0.992, seen=0.63),
    "1d4": ball("D", -1.77, -1.08, 0.075, -0.130, 0.364, -0.91, p=0.991, seen=0.72),
    "1c1": ball("L", -1.16, -0.16, 0.001, -0.019, 0.331, -0.32, p=0.991, seen=0.85),
}
NAMES = list(FRAME)
LIGHT_READ_STAINED = ("1c2", "1d3", "1d4")


def judged(frame: dict[str, Reading], th: Thresholds = Thresholds()) -> dict[str, Reading]:
    out = odd_wood({k: frame[n] for k, n in enumerate(frame)}, th)
    return {n: out[k] for k, n in enumerate(frame)}


def test_a_doubted_ball_judges_no_other_and_the_rest_are_judged_again():
    out = judged(FRAME)
    assert [n for n in NAMES if out[n].code == "?"] == ["1c2", "1d3", "1d4"]
    for name in ("1a1", "1a4", "1b1", "1d2", "1c1"):
        assert out[name] is FRAME[name]
    # 1d4 first; then 1c2 and 1d3, each against the stained balls and the other
    assert "0.92 lighter than its other dark wooden balls" in out["1d4"].why
    assert "0.88 lighter than its other dark wooden balls" in out["1c2"].why
    assert "1.17 lighter than its other dark wooden balls" in out["1d3"].why
    assert out["1c2"].colour_only and out["1c2"].p == FRAME["1c2"].p  # still a ball to the support rules
    # judged once, as before: only 1d4 stood out
    once = judged(FRAME, ONCE)
    assert [n for n in NAMES if once[n].code == "?"] == ["1d4"]
    # judged once, the split takes the other two: the less red group, 1a4 in it by its red
    # (0.21) but kept at the stained balls' level
    split = judged(FRAME, replace(Thresholds(), odd_wood_again=99))
    assert [n for n in NAMES if split[n].code == "?"] == ["1c2", "1d3", "1d4"]
    assert all("balls read dark wood that lie apart" in split[n].why for n in ("1c2", "1d3"))


def test_a_ball_is_judged_again_only_against_three_fellows_or_more():
    # without 1a1 and 1a4, once 1d4 is out 1c2 and 1d3 each have three fellows left
    frame = {n: r for n, r in FRAME.items() if n not in ("1a1", "1a4")}
    assert [n for n, r in judged(frame).items() if r.code == "?"] == ["1c2", "1d3", "1d4"]
    four = judged(frame, replace(ONCE, odd_wood_again=4))
    assert [n for n, r in four.items() if r.code == "?"] == ["1d4"]


def test_stained_balls_are_not_judged_again_into_doubt():
    # 8980015's stained balls alone, and with a lone light ball read stained: nothing more
    stained = {n: r for n, r in FRAME.items() if n not in LIGHT_READ_STAINED}
    assert all(r.code == FRAME[n].code for n, r in judged(stained).items())
    out = judged({**stained, "1d4": FRAME["1d4"]})
    assert [n for n, r in out.items() if r.code == "?"] == ["1d4"]


def test_light_balls_read_stained_through_a_webcam_are_unknown():
    """Path traced 8980015 (Pylos, under glare) through a webcam: 1c2 and 1d3, light wood,
    were read stained at P(ball) 1.00 and 0.99."""
    image, truth, board = traced(8_980_015, "webcam", glare=True)
    result = Recognizer(board, truth["game"]).read(image)
    cells = dict(result.observation.cells)
    for name in LIGHT_READ_STAINED:
        assert truth["cells"][name] == "L" and cells[name] == "?", (name, result.details[name])
    for name in ("1a1", "1a4", "1b1", "1d2"):  # the stained balls keep their reading
        assert truth["cells"][name] == cells[name] == "D"
    assert score(cells, truth["cells"], Counter()) == []
    again = Recognizer(board, truth["game"], thresholds=ONCE).read(image).observation.cells
    assert again["1c2"] == again["1d3"] == "D"
