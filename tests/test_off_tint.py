"""A light wooden base ball off its fellows' tint (vision/recognize_fellows.py, ``off_tint``).

One wood in one light shows one tint. An empty hollow among light balls shows the plate's
wood, shaded and lit by the balls round it, and the model may take that shading for a
ball's: path traced frames read such hollows light wood at P(ball) 0.94-1.00, their tint
0.16-0.36 from the frame's other light balls', which lay within 0.04 of their median."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_balls import Reading, Thresholds
from vision.recognize_fellows import off_tint
from vision.recognize_pyramid import Layout
from vision.score import score

from test_stained_beside import traced

LAYOUT = Layout.of(load_board("pyramid-4"))
INDEX = {n: i for i, n in enumerate(LAYOUT.names)}


def wood(rg: float, bg: float, seen: float = 0.9, p: float = 0.999) -> Reading:
    """A light wooden ball reading of tint ``rg``, ``bg`` (log red/green and blue/green,
    relative to the plate's), ``seen`` in view, read at P(ball) ``p``."""
    return Reading("L", "seen", p=(1 - p, p, 0.0), colour=(-0.5, 0.0, rg, bg, 0.42, 0.0), seen=seen)


def read(place: Reading, fellows: list[Reading], at: str = "1b4") -> Reading:
    r = {i: Reading(".", "seen empty") for i in range(len(LAYOUT.names))}
    r[INDEX[at]] = place
    for name, fellow in zip(("1a4", "1b3", "1c4", "2a1"), fellows):
        r[INDEX[name]] = fellow
    return off_tint(LAYOUT, r, Thresholds())[INDEX[at]]


#: as 8960030's light balls: within 0.03 of their median tint
FELLOWS = [wood(0.29, -0.28), wood(0.31, -0.30), wood(0.28, -0.26)]


def test_a_light_ball_far_off_its_fellows_tint_is_unknown():
    out = read(wood(0.12, -0.35), FELLOWS)  # 8960030 1b4 through no look: 0.19 from them
    assert out.code == "?" and out.p[1] == pytest.approx(0.999) and out.seen == 0.9
    assert out.why == ("light wood?, but its tint lies 0.18 from this frame's other light wooden balls', which lie "
                       "0.02 from it: may be the hollow, lit and shaded by the balls round it")
    assert read(wood(0.19, -0.31), FELLOWS).code == "L"               # 0.11 from them only
    assert read(wood(0.12, -0.35, seen=0.45), FELLOWS).code == "L"    # its foot alone in view
    assert read(wood(0.12, -0.35), FELLOWS[:1]).code == "L"           # one fellow says little
    # fellows that lie apart themselves: a tint so far off is within their spread
    scattered = [wood(0.45, -0.28), wood(0.29, -0.10), wood(0.15, -0.40)]
    assert read(wood(0.12, -0.35), scattered).code == "L"
    # fellows that judge: read at ``ball`` and in view enough
    assert read(wood(0.12, -0.35), [replace(f, p=(0.05, 0.95, 0.0)) for f in FELLOWS]).code == "L"
    assert read(wood(0.12, -0.35), [replace(f, seen=0.3) for f in FELLOWS]).code == "L"
    # above the base no hollow lies, and the rule's fellows are the base's
    assert read(wood(0.12, -0.35), FELLOWS, at="2b2").code == "L"
    dark = Reading("D", "seen", p=(0.001, 0.999, 0.0), colour=(-2.5, -2.0, 0.12, -0.35, 0.5, 0.0), seen=0.9)
    assert read(dark, FELLOWS).code == "D"


def test_the_empty_hollow_among_light_balls_under_glare_is_not_read_light_wood():
    """Path traced 8960030 (Pylos, under glare): 1b4, an empty hollow ringed on three sides
    by light balls, was read light wood at P(ball) 1.00; its tint lay 0.19 from theirs."""
    image, truth, board = traced(8_960_030, "plain", glare=True)
    result = Recognizer(board, truth["game"]).read(image)
    cells, details = dict(result.observation.cells), dict(result.details)
    assert truth["cells"]["1b4"] == "." and cells["1b4"] == "?"
    assert "may be the hollow, lit and shaded" in details["1b4"], details["1b4"]
    assert score(cells, truth["cells"], Counter()) == []
    for name in ("1a4", "1b3", "1c4"):  # its fellows keep their reading
        assert truth["cells"][name] == cells[name] == "L"
    # without the rule it is read light wood again
    without = replace(Thresholds(), off_tint=9.0)
    again = Recognizer(board, truth["game"], thresholds=without).read(image).observation.cells
    assert again["1b4"] == "L"
