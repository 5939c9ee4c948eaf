"""The rules that judge a ball's colour against the frame it is in
(vision/recognize_fellows.py): the plate's shade round the base, and the frame's other
balls read in its colour (its fellows), from readings built here and from the benchmark's
frames they were made for."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_balls import Reading, Thresholds
from vision.recognize_features import plate_shade
from vision.recognize_fellows import (dark_in_shade, odd_black, odd_red, odd_wood, plate_coloured, white_in_hollow,
                                      wood_in_hollow)
from vision.recognize_pyramid import Layout
from vision.recognize_train import frame_in_look

from test_recognize import tally
from test_stained_beside import traced

PYRAMID = load_board("pyramid-4")


def test_a_black_ball_no_darker_than_the_plates_shade_is_unknown():
    """Lit by the sky alone, a white ball is as dark as a black one in the light (frame
    2300374 in test_frames_once_misread shows it), and a light wooden ball as dark as a
    stained one; how dark the shade is, the plate round the base tells."""
    def read(code: str, level: float, shade: float, top: float | None = None, base: bool = False) -> str:
        top = level + 1.0 if top is None else top  # the brightest tenth
        r = {0: Reading(code, "seen", colour=(level, top, 0.0, 0.0, 0.3, 0.0))}
        return dark_in_shade(r, shade, Thresholds(), {0} if base else set())[0].code

    assert read("B", -3.6, -3.3) == "?"
    assert read("B", -4.5, -3.3) == "B"       # darker than a white ball in that shade
    assert read("B", -3.6, -0.5) == "B"       # no deep shade in this frame
    assert read("B", -3.6, -math.inf) == "B"  # the ring not seen
    assert read("W", -1.0, -3.3) == "W"
    assert read("D", -2.9, -3.25) == "?"      # a light wooden ball in that shade could look so
    assert read("D", -3.4, -3.25) == "D"      # darker than the shade itself
    assert read("D", -2.9, -1.5) == "D"
    # its lit side near the lit plate: a light wooden ball half in shadow (5500726 1c3)
    assert read("D", -3.8, -3.2, top=-0.43) == "?"
    assert read("D", -3.8, -math.inf, top=-0.43) == "?"
    assert read("D", -3.8, -3.2, top=-1.0) == "D"
    assert read("B", -4.5, -3.3, top=-0.43) == "B"  # black balls have their own rule (odd_black)
    assert read("L", -0.5, -3.25) == "L"
    # a white base ball half in the shadow of the balls on it (fresh 8000187 1c2)
    assert read("B", -3.22, -math.inf, top=0.30, base=True) == "?"
    assert read("B", -3.22, -math.inf, top=-0.81, base=True) == "B"  # a black ball's highlight
    assert read("B", -4.0, -math.inf, top=0.30) == "B"  # above the base, a highlight can fill a tenth
    assert read("W", -0.2, -math.inf, top=0.30, base=True) == "W"


def test_a_light_wooden_ball_of_the_plates_colour_among_pinker_ones_is_unknown():
    """An empty hollow ringed by balls is shaded much as a ball is, and shows the plate's
    wood: where this frame's light wooden balls are of another tint, a "ball" of the plate's
    tint there may be the hollow (frames 2401053, 2402437 and 3001416 in
    test_frames_once_misread)."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}

    def wood(rg: float, bg: float, seen: float = 0.9) -> Reading:
        return Reading("L", "seen", colour=(-0.5, 0.0, rg, bg, 0.35, 0.0), seen=seen)

    def read(hollow: Reading, fellows: list[Reading], above: str = ".") -> str:
        r = {i: Reading(".", "seen empty") for i in range(len(layout.names))}
        r[index["1b2"]] = hollow
        for name, fellow in zip(("1a1", "1d4", "1c1"), fellows):
            r[index[name]] = fellow
        r[index["2a1"]] = Reading(above, "seen")
        return plate_coloured(layout, r, Thresholds())[index["1b2"]].code

    pinker = [wood(0.35, 0.2), wood(0.3, 0.15), wood(0.4, 0.2)]
    assert read(wood(0.01, -0.02), pinker) == "?"
    assert read(wood(0.25, 0.12), pinker) == "L"                 # of their tint
    assert read(wood(0.01, -0.02), [wood(0.03, 0.02)] * 3) == "L"  # wood and plate alike: no cue
    assert read(wood(0.01, -0.02), [wood(0.35, 0.2, seen=0.5)]) == "?"  # half in view is enough (5400588)
    assert read(wood(0.01, -0.02), [wood(0.35, 0.2, seen=0.3)]) == "L"  # fellows seen too little
    less_sure = [replace(f, p=(0.05, 0.95, 0.0)) for f in pinker]  # read at ``light_ball``: judge none
    assert read(wood(0.01, -0.02), less_sure) == "L"
    assert read(wood(0.01, -0.02), []) == "L"
    assert read(wood(0.01, -0.02), pinker, above="D") == "?"     # a ball on it may yet be withdrawn
    # through a webcam the two woods come together (fresh 5100568 1c2: 0.02 from the plate,
    # 0.12 from its fellows, themselves 0.10 from it), but the hollow stays far nearer the plate
    paler = [wood(0.1, 0.0), wood(0.09, 0.02), wood(0.11, -0.01)]
    assert read(wood(-0.02, 0.0), paler) == "?"                  # 0.10 nearer the plate
    assert read(wood(0.03, 0.0), paler) == "L"                    # 0.04 nearer only
    # off the plate's colour, only far nearer it than its fellows: a hollow in a room's
    # shadow (fresh path traced 7500005 1b2: 0.24 from the plate, 0.58 from its fellows)
    bluer = [wood(0.0, -0.59), wood(-0.02, -0.6), wood(0.01, -0.58)]
    shaded = read(wood(0.23, -0.07), bluer)
    assert shaded == "?"
    assert read(wood(0.1, -0.4), bluer) == "L"                    # 0.41 from the plate, 0.21 from them
    assert read(wood(0.23, -0.07), [replace(f, p=(0.05, 0.95, 0.0)) for f in bluer]) == "L"  # judged by none


def test_an_empty_hollow_tinted_as_the_light_wooden_balls_is_unknown():
    """A hollow shows the plate's wood. Under a soft light a light wooden ball is barely
    shaded, and one read empty kept the light wood's tint (fresh 5300162 1c4, below): a
    hollow far nearer that tint than the plate's may hold the ball."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    paler = Reading("L", "seen", colour=(-0.4, 0.2, -0.16, -0.2, 0.32, 0.0), seen=0.9)

    def read(tint: tuple[float, float], fellow: Reading | None = paler) -> str:
        r = {i: Reading(".", "seen empty") for i in range(len(layout.names))}
        if fellow is not None:
            r[index["1a2"]] = fellow
        out = wood_in_hollow(layout, r, {index["1c4"]: np.array(tint), index["1a1"]: np.array((0.0, 0.01))},
                             Thresholds())
        assert out[index["1a1"]].code == "."  # of the plate's tint
        return out[index["1c4"]].code

    assert read((-0.15, -0.2)) == "?"                            # 0.25 from the plate, 0.01 from the ball
    assert read((-0.08, -0.1)) == "."                            # halfway: 0.13 from each
    assert read((-0.15, -0.2), replace(paler, seen=0.5)) == "."  # the ball seen too little to judge by
    assert read((-0.15, -0.2), None) == "."                      # no light wooden ball to judge by
    # a ball read at ``light_ball`` only does not judge by the difference (0.26 nearer it than
    # the plate here, 0.34 from it: farther than ``hollow_near`` allows) ...
    assert read((-0.36, -0.48)) == "?"
    assert read((-0.36, -0.48), replace(paler, p=(0.05, 0.95, 0.0))) == "."
    # ... but does where the hollow's tint lies within ``hollow_near`` of it
    assert read((-0.15, -0.2), replace(paler, p=(0.05, 0.95, 0.0))) == "?"


def test_a_hollow_much_nearer_the_light_balls_tint_than_the_plates_is_unknown():
    """Where light wood's tint lies near the plate's, a hollow cannot lie ``hollow_wood``
    nearer it: one ``hollow_near[0]`` or more from the plate and within ``hollow_near[1]``
    of that from the light wooden base balls (read at any P(ball), seen ``wooden_seen``) is
    unknown. Path traced 9220037 1d4 through a webcam under glare: a lit light wooden ball
    shaded flat, read empty at P(empty) 1.00, 0.21 from the plate and 0.08 from its fellows,
    themselves read at P(ball) 0.90-0.98 (their tints rounded here: 0.09)."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    fellows = [(-0.07, -0.27), (-0.12, -0.27), (-0.12, -0.26)]  # 9220037's, as measured

    def read(tint: tuple[float, float], seen: float = 1.0, p_ball: float = 0.9) -> Reading:
        r = {i: Reading(".", "seen empty") for i in range(len(layout.names))}
        for name, (rg, bg) in zip(("1a2", "1b2", "1c2"), fellows):
            r[index[name]] = Reading("L", "seen", p=(1.0 - p_ball, p_ball, 0.0),
                                     colour=(-0.5, -0.1, rg, bg, 0.33, -0.2), seen=seen)
        return wood_in_hollow(layout, r, {index["1d4"]: np.array(tint)}, Thresholds())[index["1d4"]]

    taken = read((-0.093, -0.189))
    assert taken.code == "?" and "tinted as this frame's light wooden balls (0.09 from them, 0.21 from" in taken.why
    assert read((-0.093, -0.189), p_ball=0.999).code == "?"
    assert read((0.02, -0.06)).code == "."          # 9220037's empty 1b4: the plate's tint
    assert read((-0.05, -0.12)).code == "."         # 0.13 from the plate, 0.15 from them
    assert read((-0.093, -0.189), seen=0.5).code == "."  # the balls seen too little to judge by
    assert read((-0.07, -0.05)).code == "."         # under 0.1 from the plate: noise


def test_a_path_traced_light_ball_shaded_flat_is_not_read_empty():
    """Path traced 9220037 through a webcam under glare: the light wooden base ball 1d4, lit
    from above and shaded flat, was read empty at P(empty) 1.00; its tint is its fellows'."""
    image, truth, board = traced(9220037, "webcam", glare=True)
    res = Recognizer(board, "pylos").read(image)
    cells = dict(res.observation.cells)
    assert truth["cells"]["1d4"] == "L"
    assert cells["1d4"] == "?" and "tinted as this frame's light wooden balls" in res.details["1d4"]
    assert tally([(res, truth["cells"])])["wrong"] == 0


def test_a_hollow_the_model_leans_empty_is_read_by_its_tint():
    """Where light wooden balls are played a base hollow the model leans empty, but under
    ``base_empty``, stays read empty only where its tint tells it from the frame's light
    wooden base balls: the plate's own, ``hollow_plate`` or more nearer it than theirs, and
    theirs ``wood_apart`` or more from it (fresh 8800070 1d1 and 1a3, at P(empty) 0.96 and
    0.92, 0.01 from the plate where the light balls were 0.31 from it)."""
    layout = Layout.of(PYRAMID)
    index = {n: i for i, n in enumerate(layout.names)}
    paler = Reading("L", "seen", colour=(-0.4, 0.2, -0.16, -0.2, 0.32, 0.0), seen=0.9)  # 0.26 from the plate

    def read(tint: tuple[float, float], p_empty: float = 0.95, fellow: Reading | None = paler) -> Reading:
        r = {i: Reading(".", "seen empty") for i in range(len(layout.names))}
        r[index["1c4"]] = Reading(".", "empty", p=(p_empty, 1.0 - p_empty, 0.0))
        if fellow is not None:
            r[index["1a2"]] = fellow
        return wood_in_hollow(layout, r, {index["1c4"]: np.array(tint)}, Thresholds())[index["1c4"]]

    assert read((0.0, 0.01)).code == "."                        # the plate's tint, 0.26 from the balls'
    halfway = read((-0.08, -0.1))                                  # 0.13 from each
    assert halfway.code == "?" and "its tint 0.13 from the plate's and 0.13 from this frame's" in halfway.why
    assert read((-0.08, -0.1), p_empty=0.998).code == "."        # the model sure of it
    alone = read((0.0, 0.01), fellow=None)
    assert alone.code == "?" and "no light wooden base ball read to tell its tint from" in alone.why
    assert read((0.0, 0.01), fellow=replace(paler, seen=0.5)).code == "?"  # seen too little to judge by
    # the balls' wood near the plate's, 0.11 from it, tells nothing
    assert read((0.0, 0.01), fellow=replace(paler, colour=(-0.4, 0.2, -0.08, -0.08, 0.32, 0.0))).code == "?"


def test_a_wooden_ball_that_looks_like_the_other_wood_beside_its_fellows_is_unknown():
    """In one frame the balls of one wood share a tint, and shade makes a ball darker but no
    redder. A "light wooden" ball both darker and redder than the frame's others is a
    stained one lit from the side (frame 2700029 in test_frames_once_misread), a "stained"
    one far less red than its fellows light wood through a webcam (3200968, below)."""
    def wood(code: str, level: float, rg: float) -> Reading:  # red share: stained the redder
        return Reading(code, "seen", colour=(level, 0.0, rg, -0.9, 0.5 if code == "D" else 0.38, 0.0), seen=0.9)

    def read(ball: Reading, *fellows: Reading) -> str:
        r = {0: ball, **{k + 1: f for k, f in enumerate(fellows)}, 9: Reading(".", "seen empty")}
        out = odd_wood(r, Thresholds())
        assert all(out[k].code == r[k].code for k in r if k != 0)
        return out[0].code

    light = [wood("L", 0.4, 0.0), wood("L", 0.2, 0.05)]
    assert read(wood("L", -1.2, 0.2), *light) == "?"
    assert read(wood("L", -1.2, -0.05), *light) == "L"   # in shade, lit by the sky: darker, bluer
    assert read(wood("L", 0.3, 0.2), *light) == "L"      # redder, as bright: another ball's wood
    assert read(wood("L", -0.2, 0.2), *light) == "L"     # ... only a little darker
    assert read(wood("L", -1.2, 0.2)) == "L"             # no fellow to judge by
    assert read(wood("L", -1.2, 0.2), wood("D", -2.5, 1.2)) == "L"
    # read at light_ball only (the model unsure), half as much darker is enough: an empty
    # hollow in stained balls' shade (path traced 7000072, tests/test_render_pbr.py)
    shaded = wood("L", -0.3, 0.15)                        # 0.125 redder, 0.6 darker
    assert read(shaded, *light) == "L"
    assert read(replace(shaded, p=(0.02, 0.978, 0.0)), *light) == "?"
    assert read(replace(shaded, p=(0.0, 0.995, 0.0)), *light) == "L"
    assert read(replace(wood("L", 0.0, 0.15), p=(0.02, 0.978, 0.0)), *light) == "L"  # only 0.3 darker
    dark = [wood("D", -2.6, 1.25), wood("D", -2.3, 1.3), wood("D", -3.0, 1.2)]
    assert read(wood("D", -2.1, 0.36), *dark) == "?"
    assert read(wood("D", -2.1, 0.95), *dark) == "D"     # less red by under 0.35 (odd_dark)
    assert read(wood("D", -2.64, 0.89), *dark) == "?"    # 0.36 less red, 0.04 darker: glare (8300077 1d3)
    assert read(wood("D", -2.7, 0.89), *dark) == "D"     # ... 0.1 darker: a stained ball in shade
    assert read(wood("D", -3.3, 0.36), *dark) == "D"     # darker: not light wood
    # lit more than its fellows, stained wood is lighter and keeps its red: 0.2 less red will
    # do where it is 1.0 lighter (odd_dark_lit; path traced 8710016 1a1 in a room's shadow,
    # 0.25 less red and 1.17 lighter, in tests/test_light_wood_in_shade.py)
    assert read(wood("D", -1.5, 1.0), *dark) == "?"      # 0.25 less red, 1.1 lighter
    assert read(wood("D", -1.7, 1.0), *dark) == "D"      # 0.9 lighter only
    assert read(wood("D", -1.5, 1.1), *dark) == "D"      # 0.15 less red only
    # ... and 0.05 less red where it is 1.5 lighter (odd_dark_far; path traced 9040008 1d1
    # and 1c2 through a webcam, 0.11-0.15 less red and 2.0 lighter than their fellows)
    shaded = [wood("D", -3.4, 1.25), wood("D", -3.1, 1.3), wood("D", -3.6, 1.2)]
    assert read(wood("D", -1.8, 1.15), *shaded) == "?"   # 0.1 less red, 1.6 lighter
    assert read(wood("D", -2.0, 1.15), *shaded) == "D"   # 1.4 lighter only
    assert read(wood("D", -1.8, 1.22), *shaded) == "D"   # 0.03 less red only
    assert "may be light wood" in odd_wood({0: wood("D", -2.1, 0.36), 1: dark[0]}, Thresholds())[0].why


def test_a_ball_read_stained_no_redder_than_light_wood_and_lighter_than_its_fellows_is_unknown():
    """Shade darkens a light wooden ball into stained wood's band and keeps its tint, and a
    stained ball in the same light would be darker still. So a ball read dark wood no redder
    (red share) than the median of the frame's balls read light wood by ``stained_redder``,
    and ``stained_lighter`` lighter than its fellows, is unknown (fresh 8500108 1c3 through
    a webcam, in test_fresh_frames_once_misread_in_a_look). Redness alone tells nothing:
    glossy stained wood, path traced, is no redder than light wood."""
    def wood(code: str, level: float, red: float) -> Reading:
        return Reading(code, "seen", colour=(level, 0.0, 0.5, -0.9, red, 0.0), seen=0.9)

    light = {1: wood("L", -0.9, 0.41), 2: wood("L", -0.7, 0.42), 3: wood("L", -0.2, 0.41)}
    dark = {4: wood("D", -4.3, 0.48), 5: wood("D", -4.4, 0.48), 6: wood("D", -5.1, 0.47)}

    def read(ball: Reading, th: Thresholds = Thresholds(), **fellows: dict) -> Reading:
        others = {**fellows.get("light", light), **fellows.get("dark", dark)}
        out = odd_wood({0: ball, **others}, th)
        assert all(out[k].code == r.code for k, r in others.items())
        return out[0]

    out = read(wood("D", -2.91, 0.43))
    assert out.code == "?" and "no redder than this frame's balls read light wood (0.41), and 1.49 lighter" in out.why
    assert read(wood("D", -2.91, 0.45)).code == "D"    # 0.04 redder: stained wood's
    assert read(wood("D", -3.5, 0.43)).code == "D"     # 0.9 lighter only: a stained ball in the light
    assert read(wood("D", -2.91, 0.43), dark={}).code == "D"  # no stained fellow to judge by
    assert read(wood("D", -2.91, 0.43), light={}).code == "D"  # no light wood to judge by
    assert read(wood("D", -2.91, 0.43), replace(Thresholds(), stained_lighter=1.6)).code == "D"
    # light wooden balls read at ``light_ball`` only are judged, but judge none
    unsure = {k: replace(r, p=(0.05, 0.95, 0.0)) for k, r in light.items()}
    assert read(wood("D", -2.91, 0.43), light=unsure).code == "D"


def test_a_ball_read_stained_at_stained_ball_must_be_as_dark_as_its_fellows():
    """A ball read stained below P(ball) ``ball`` (at ``stained_ball``) must lie within
    ``stained_unsure_lighter`` of the frame's stained balls read at ``ball``: on the path
    traced study sets, light wooden balls in shade that would read so lay a median 1.4
    lighter than those (8700065 1d4 among them), stained ones a median 0.02, 95 % of them
    within 0.46. With no such ball in the frame there is nothing to hold it to."""
    def wood(code: str, level: float, p_ball: float = 1.0) -> Reading:
        return Reading(code, "seen", p=(1.0 - p_ball, p_ball, 0.0), colour=(level, 0.0, 0.5, -0.9, 0.47, 0.0),
                       seen=0.9)

    dark = {4: wood("D", -4.3), 5: wood("D", -4.4), 6: wood("D", -5.1)}

    def read(ball: Reading, fellows: dict = dark, th: Thresholds = Thresholds()) -> Reading:
        out = odd_wood({0: ball, **fellows}, th)
        assert all(out[k].code == r.code for k, r in fellows.items())
        return out[0]

    assert read(wood("D", -4.0, 0.95)).code == "D"   # 0.4 lighter
    assert read(wood("D", -4.9, 0.95)).code == "D"   # darker: shade
    out = read(wood("D", -3.7, 0.95))
    assert out.code == "?" and "at P(ball) 0.950 only, and 0.70 lighter" in out.why and not out.colour_only
    assert read(wood("D", -3.7, 1.0)).code == "D"    # the model sure: the other rules judge it
    assert read(wood("D", -3.7, 0.95), th=replace(Thresholds(), stained_unsure_lighter=0.8)).code == "D"
    alone = read(wood("D", -4.3, 0.95), fellows={})
    assert alone.code == "?" and "no other ball read dark wood" in alone.why
    # stained balls read at ``stained_ball`` are judged, but judge none
    unsure = {k: replace(r, p=(0.05, 0.95, 0.0)) for k, r in dark.items()}
    assert {r.code for r in odd_wood({0: wood("D", -4.3, 0.95), **unsure}, Thresholds()).values()} == {"?"}


def test_a_ball_read_stained_far_lighter_than_its_fellows_and_off_their_tint_is_unknown():
    """Lit more, stained wood is lighter and keeps its fellows' tint; light wood under a
    webcam's or a colour cast's processing keeps a tint of its own. A ball read stained
    ``odd_dark_tint[0]`` lighter than its fellows with its tint ``odd_dark_tint[1]`` from
    theirs is unknown (fresh path traced 9080030 1a4 and 1b4 through a webcam, light balls
    1.7 and 1.3 lighter and 0.46 and 0.52 from their tint, bluer, as red as they are)."""
    def wood(level: float, tint: tuple[float, float]) -> Reading:
        return Reading("D", "seen", colour=(level, 0.0, *tint, 0.47, 0.0), seen=0.9)

    dark = {4: wood(-4.3, (0.8, -0.6)), 5: wood(-4.4, (0.8, -0.6)), 6: wood(-5.1, (0.8, -0.6))}

    def read(ball: Reading, th: Thresholds = Thresholds()) -> Reading:
        out = odd_wood({0: ball, **dark}, th)
        assert all(out[k].code == "D" for k in dark)
        return out[0]

    out = read(wood(-3.0, (0.8, -0.1)))  # bluer
    assert out.code == "?" and "1.40 lighter than its other dark wooden balls, and its tint 0.50 from" in out.why
    assert read(wood(-3.0, (0.8, -0.5))).code == "D"   # their tint: stained wood lit more
    assert read(wood(-3.5, (0.8, -0.1))).code == "D"   # 0.9 lighter only
    assert read(wood(-3.0, (0.8, -0.1)), replace(Thresholds(), odd_dark_tint=(1.5, 0.2))).code == "D"


def test_a_ball_read_stained_of_the_light_balls_tint_is_unknown():
    """Shade darkens a light wooden ball and keeps its tint. A ball read dark wood whose tint
    lies ``light_tint`` times farther from its fellows' than from the frame's light balls'
    is unknown, whatever those light balls were read as: with colours far from the defaults
    they can be too red for light wood's band (fresh 8000073 1c3 with far colours, in
    test_fresh_frames_once_misread_in_a_look)."""
    def ball(code: str, level: float, rg: float, bg: float, p: float = 0.999) -> Reading:
        return Reading(code, "seen", p=(1 - p, p, 0.0), colour=(level, level + 0.5, rg, bg, 0.5, 0.0), seen=0.9)

    # the light balls read unknown, as in 8000073: redder than light wood's band
    lit = {1: ball("?", -0.5, 0.55, -0.19), 2: ball("?", -0.2, 0.58, -0.2), 3: ball("?", -0.3, 0.53, -0.18)}
    dark = {4: ball("D", -2.5, 0.8, -0.41), 5: ball("D", -2.3, 0.74, -0.43), 6: ball("D", -3.9, 0.87, -0.53)}

    def read(ball: Reading, lit: dict = lit, dark: dict = dark, th: Thresholds = Thresholds()) -> Reading:
        out = odd_wood({0: ball, **lit, **dark}, th)
        assert all(out[k].code == r.code for k, r in {**lit, **dark}.items())
        return out[0]

    shaded = ball("D", -2.26, 0.51, -0.09)
    out = read(shaded)
    assert out.code == "?" and "its tint is 0.11 from this frame's light balls' and 0.45" in out.why
    assert read(ball("D", -2.26, 0.62, -0.25)).code == "D"  # 0.09 and 0.25 away: under 3 times
    assert read(shaded, dark={}).code == "D"                 # no fellow to judge by
    assert read(shaded, lit={}).code == "D"                  # no light ball to judge by
    assert read(shaded, lit={k: replace(r, colour=(-1.5, *r.colour[1:])) for k, r in lit.items()}).code == "D"
    assert read(shaded, lit={k: replace(r, p=(0.05, 0.95, 0.0)) for k, r in lit.items()}).code == "D"
    assert read(shaded, th=replace(Thresholds(), light_tint=5.0)).code == "D"
    # it must also lie near the light balls' tint: fresh 8500049 1c3, stained through a
    # webcam, was 0.60 from the one light ball's and 3.6 times that from the one stained one's
    assert read(shaded, th=replace(Thresholds(), light_near=0.1)).code == "D"
    # ``lit_tint`` (2.2) times will do where its brightest tenth is above ``lit_top``: lit so
    # far, stained wood would show its own tint (fresh 8800070 1c2: 0.14 from the light balls'
    # and 2.6 times that from the stained ones', its brightest tenth at -0.85)

    def lit(top: float, rg: float = 0.62, bg: float = -0.257) -> Reading:
        return replace(ball("D", -2.55, rg, bg), colour=(-2.55, top, rg, bg, 0.5, 0.0))

    assert read(lit(-2.05)).code == "D"                            # 0.10 and 2.6 times, in shade
    out = read(lit(-0.85))
    assert out.code == "?" and "(its brightest tenth at -0.85)" in out.why
    assert read(lit(-1.5)).code == "D"                             # under ``lit_top``
    assert read(lit(-0.85, 0.633, -0.27)).code == "D"              # 2.0 times only


def test_a_ball_read_stained_far_lighter_than_its_fellows_and_of_the_plates_tint_is_unknown():
    """The plate's wood can stand in for the light balls', so that none need be read: a
    ball read stained ``plate_lighter`` (1.5) lighter than its fellows whose tint lies
    ``plate_tint`` (1.5) times farther from theirs than from the plate's is unknown (fresh
    8900123 1a2 through a webcam that turned stained wood olive, in
    test_fresh_frames_once_misread_in_a_look: 2.11 lighter, 0.40 from the plate's tint and
    0.67 from the stained ball's). Nearer, ``plate_near`` (0.6 lighter, 0.7 times as far:
    fresh path traced 7600240 1b2, tests/test_render_pbr.py)."""
    def ball(level: float, rg: float, bg: float) -> Reading:
        return Reading("D", "seen", p=(0.0, 1.0, 0.0), colour=(level, level + 0.4, rg, bg, 0.4, 0.0), seen=0.9)

    olive = {1: ball(-4.99, -0.121, -1.054)}

    def read(r: Reading, th: Thresholds = Thresholds()) -> Reading:
        out = odd_wood({0: r, **olive}, th)
        assert out[1].code == "D"
        return out[0]

    out = read(ball(-2.88, 0.016, -0.398))
    assert out.code == "?" and "2.11 lighter than its other dark wooden balls, and its tint 0.40" in out.why
    near = read(ball(-3.7, 0.016, -0.398))  # 1.29 lighter: not plate_lighter's 1.5, but plate_near's 0.6
    assert near.code == "?" and "1.29 lighter than its other dark wooden balls" in near.why
    assert read(ball(-4.5, 0.016, -0.398)).code == "D"    # 0.49 lighter only
    # 0.70 from the plate's tint, 0.36 from theirs: not this rule's, but odd_dark_tint's (2.11 lighter)
    off = read(ball(-2.88, -0.05, -0.7))
    assert off.code == "?" and "2.11 lighter than its other dark wooden balls, and its tint 0.36 from theirs" in off.why
    assert read(ball(-2.88, -0.05, -0.7), replace(Thresholds(), odd_dark_tint=(math.inf, math.inf))).code == "D"


def test_a_ball_read_stained_nearer_the_light_balls_level_than_its_fellows_is_unknown():
    """A webcam that reddens light wood leaves a light wooden ball in shade only its level
    to tell it from stained wood by: a ball read stained whose level lies nearer the median
    of the frame's light wooden balls than ``level_near`` (0.75) times its distance from its
    stained fellows' is unknown (fresh path traced 7800190 1c3 through a webcam, in
    tests/test_render_pbr.py: -1.80, 1.41 from the light balls and 2.02 from the stained)."""
    def wood(code: str, level: float, red: float) -> Reading:
        return Reading(code, "seen", p=(0.0, 1.0, 0.0), colour=(level, level + 0.5, 0.5, -0.9, red, 0.0), seen=0.9)

    light = {1: wood("L", -0.55, 0.44), 2: wood("L", -0.38, 0.42), 3: wood("L", -0.39, 0.44), 4: wood("L", 0.25, 0.32)}
    dark = {5: wood("D", -4.06, 0.46), 6: wood("D", -3.47, 0.50), 7: wood("D", -3.84, 0.50), 8: wood("D", -3.8, 0.43)}

    def read(ball: Reading, light: dict = light, dark: dict = dark, th: Thresholds = Thresholds()) -> Reading:
        out = odd_wood({0: ball, **light, **dark}, th)
        assert all(out[k].code == r.code for k, r in {**light, **dark}.items())
        return out[0]

    out = read(wood("D", -1.80, 0.49))
    assert out.code == "?" and "its level -1.80 lies 1.42 from this frame's light wooden balls' and 2.02" in out.why
    assert read(wood("D", -2.1, 0.49)).code == "D"           # 1.71 and 1.72: 0.99 times
    assert read(wood("D", -1.80, 0.49), th=replace(Thresholds(), level_near=0.6)).code == "D"
    assert read(wood("D", -1.80, 0.49), light=dict(list(light.items())[:1])).code == "D"  # one light ball only
    assert read(wood("D", -1.80, 0.49), dark=dict(list(dark.items())[:1])).code == "D"    # one fellow only
    # light wooden balls read at ``light_ball`` only are judged, but judge none
    unsure = {k: replace(r, p=(0.05, 0.95, 0.0)) for k, r in light.items()}
    assert read(wood("D", -1.80, 0.49), light=unsure).code == "D"


def test_plate_shade_is_the_darkest_of_the_plate_coloured_ring():
    layout = Layout.of(PYRAMID)
    ring = layout.ring
    far = np.abs(ring[:, :2]).max(axis=1)
    assert len(ring) > 300 and far.min() >= 62.5 and far.max() <= 76.5
    for m in PYRAMID.markers:  # off the markers and their paper
        assert (np.abs(ring[:, :2] - m.centre).max(axis=1) > PYRAMID.marker_size / 2).all()
    plate = np.array([0.6, 0.4, 0.24])
    lit, shade, black = plate, plate * math.exp(-3.0) * np.array([0.95, 1.0, 1.1]), np.array([0.004, 0.003, 0.004])
    lin = np.array([lit] * 200 + [shade] * 10 + [black] * 40 + [plate * math.exp(-5.0)] * 20)
    n = len(lin)
    hidden = np.zeros((n, 2), dtype=bool)
    hidden[-20:, 1] = True  # the darkest samples lie behind a ball that may be there
    geo = SimpleNamespace(ring=np.arange(n), ring_hidden=hidden)
    inside = np.ones(n, dtype=bool)
    assert plate_shade(geo, lin, inside, np.array([True, True]), plate) == pytest.approx(-3.0, abs=0.05)
    assert plate_shade(geo, lin, inside, np.array([True, False]), plate) < -4.9  # that ball is not there
    few = SimpleNamespace(ring=np.arange(40), ring_hidden=hidden[:40])
    assert plate_shade(few, lin[:40], inside[:40], np.array([True, True]), plate) == -math.inf


def test_a_black_ball_far_lighter_than_the_others_is_unknown():
    """A white ball deep in its neighbours' shadow falls into black's band of brightness
    but stays far above the black balls themselves; shade dims every black ball alike.
    Levels as ``Batch.colour`` gives them (level, q90, rg, bg, red, outside)."""
    def black(level: float) -> Reading:
        return Reading("B", "seen", colour=(level, level + 0.5, 0.1, 0.1, 0.3, 0.0), seen=1.0)

    fellows = {1: black(-5.5), 2: black(-5.9), 3: black(-5.3), 4: black(-4.6)}

    def read(level: float) -> str:
        return odd_black(fellows | {0: black(level)}, Thresholds())[0].code

    assert read(-3.23) == "?"                # as 4700565: a white ball in shadow, 2.17 lighter
    assert read(-3.6) == "B"                 # 1.8 lighter: a black ball in the light
    assert read(-6.5) == "B"                 # darker than the others: in shade
    assert odd_black({0: black(-3.23)}, Thresholds())[0].code == "B"  # no other black to go by
    assert {i: r.code for i, r in odd_black(fellows | {0: black(-3.23)}, Thresholds()).items()
            if i} == {1: "B", 2: "B", 3: "B", 4: "B"}  # the others stay read


def test_a_black_ball_mostly_hidden_and_lighter_than_the_others_is_unknown():
    """Of a white base ball a third in view only the sliver deep between its neighbours
    shows: 2601203 1c4 through a webcam was read black 1.07 lighter than the frame's other
    black balls, where ``odd_black`` asks 2.0 of a ball seen whole."""
    def black(level: float, seen: float = 1.0) -> Reading:
        return Reading("B", "seen", p=(0.0, 1.0, 0.0), colour=(level, level + 0.5, -0.3, 0.6, 0.2, 0.0), seen=seen)

    fellows = {1: black(-3.8), 2: black(-3.9), 3: black(-3.7)}

    def read(level: float, seen: float) -> Reading:
        return odd_black(fellows | {0: black(level, seen)}, Thresholds())[0]

    sliver = read(-2.76, 0.30)
    assert sliver.code == "?" and sliver.colour_only  # still a ball to the support rules
    assert "30% of it in view and 1.04 lighter than this frame's other black balls" in sliver.why
    assert read(-2.76, 0.5).code == "B"    # seen half: a black ball that lighter is lit
    assert read(-3.3, 0.30).code == "B"    # 0.5 lighter only
    assert odd_black({0: black(-2.76, 0.30)}, Thresholds())[0].code == "B"  # no other black to go by


def test_a_white_ball_mostly_hidden_is_not_read_black():
    """The frame itself: 2601203 through a webcam (Sparks; outside the benchmark's webcam
    row, which reads the first 1,000 seeds), found while measuring ``red_in_shade``."""
    sc, image = frame_in_look(PYRAMID, 2601203, "webcam")
    result = Recognizer(PYRAMID, sc.game).read(image)
    assert sc.cells["1c4"] == "W" and result.observation.cells["1c4"] == "?", result.details["1c4"]
    assert "may be a white ball deep between its neighbours" in result.details["1c4"]
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c
    before = Recognizer(PYRAMID, sc.game, thresholds=replace(Thresholds(), odd_black_seen=(0.0, 9.0))).read(image)
    assert before.observation.cells["1c4"] == "B"


def test_a_black_ball_far_lighter_and_redder_than_the_darkest_is_unknown():
    """Red balls deep in an arm's shadow read black, three of them beside two black balls:
    the medians ``odd_black`` goes by are theirs, but each is far lighter and redder (log
    red/green) than the darkest black ball. Levels as ``Batch.colour`` gives them (level,
    q90, rg, bg, red, outside), from 2602795."""
    def black(level: float, rg: float) -> Reading:
        return Reading("B", "seen", colour=(level, level + 0.5, rg, 0.1, 0.3, 0.0), seen=1.0)

    frame = {0: black(-3.03, 0.13), 1: black(-3.01, 0.24), 2: black(-2.90, 0.22),
             3: black(-5.26, -3.17), 4: black(-5.68, -3.17)}
    codes = {i: r.code for i, r in odd_black(frame, Thresholds()).items()}
    assert codes == {0: "?", 1: "?", 2: "?", 3: "B", 4: "B"}
    assert "redder (log red/green) than this frame's darkest black ball" in odd_black(frame, Thresholds())[0].why
    lit = frame | {0: black(-3.03, -1.50)}  # as light, but of the darkest one's colour: a lit black ball
    assert odd_black(lit, Thresholds())[0].code == "B"
    dim = frame | {0: black(-4.0, 0.13)}  # as red, but 1.68 lighter only
    assert odd_black(dim, Thresholds())[0].code == "B"


def test_red_balls_in_an_arms_shadow_are_not_read_black():
    """The benchmark's seed 2602795 (Sparks, 1280x720, an arm over the pyramid): 1b1 and
    2b1, red balls in the arm's shadow, were read black at P(ball) 0.99-1.00, found by a
    whole ``make bench`` run. Two black base balls, read at ``dark_ball``, judge no other
    ball in ``odd_black``; the darkest of them tells the red ones apart."""
    sc, image = frame_in_look(PYRAMID, 2602795, "plain")
    result = Recognizer(PYRAMID, sc.game).read(image)
    for place in ("1b1", "2b1"):
        assert sc.cells[place] == "R" and result.observation.cells[place] == "?", (place, result.details[place])
        assert "may be a red ball in shadow" in result.details[place]
    assert sc.cells["1a1"] == sc.cells["1c1"] == "B"
    assert result.observation.cells["1a1"] == result.observation.cells["1c1"] == "B"
    c = tally([(result, sc.cells)])
    assert c["frames"] == 1 and c["wrong"] == 0, c
    before = Recognizer(PYRAMID, sc.game, thresholds=replace(Thresholds(), red_in_shade=(9.0, 9.0))).read(image)
    before = before.observation.cells
    assert before["1b1"] == before["2b1"] == "B"


def test_a_red_ball_seen_little_darker_and_less_red_than_the_others_is_unknown():
    """A black ball partly hidden among red ones takes on their red in the blur and JPEG but
    stays darker than they are; shade makes a red ball darker, but as red. Levels and
    red/green as ``Batch.colour`` gives them (level, q90, rg, bg, red, outside)."""
    def red(level: float, rg: float, seen: float) -> Reading:
        return Reading("R", "seen", colour=(level, level + 0.5, rg, 0.3, 0.8, 0.0), seen=seen)

    fellows = {1: red(-1.0, 2.3, 0.9), 2: red(-1.2, 2.2, 0.9), 3: red(-0.9, 2.25, 0.6)}

    def read(level: float, rg: float, seen: float = 0.31) -> str:
        return odd_red(fellows | {0: red(level, rg, seen)}, Thresholds())[0].code

    assert read(-2.98, 1.77) == "?"          # 4400193: 1.87 darker, 0.46 less red
    assert read(-2.98, 2.0) == "?"           # ... under a soft light, 0.26 less red
    assert read(-2.98, 2.06) == "?"          # 4400157, through a webcam: 0.19 less red
    assert read(-2.98, 2.15) == "R"          # in shade, a little less red
    assert read(-2.98, 2.25) == "R"          # in shade, but as red as the others
    assert read(-1.8, 1.77) == "R"           # less red, but about as bright
    assert read(-2.98, 1.77, 0.8) == "R"     # seen whole: its shading says what it is
    assert odd_red({0: red(-2.98, 1.77, 0.31)}, Thresholds())[0].code == "R"  # no other red to go by


def test_a_red_ball_read_at_dark_ball_judges_a_sliver_only_on_the_base():
    """``odd_red``'s fellows: balls read red at P(ball) 0.99, and base balls read red at
    ``dark_ball`` (no empty hollow is red). A place above the base read red at less may be
    the balls below seen through it, and judges none."""
    def red(level: float, rg: float, seen: float, p: float) -> Reading:
        return Reading("R", "seen", (0.0, p, 0.0), colour=(level, level + 0.5, rg, 0.3, 0.8, 0.0), seen=seen)

    sliver = red(-2.98, 2.06, 0.37, 1.0)  # 4400157 1a1 through a webcam: 0.19 less red than its fellows
    fellows = {1: red(-1.3, 2.25, 0.9, 0.98), 2: red(-1.4, 2.26, 0.9, 1.0)}
    base = {0, 1, 2}
    assert odd_red(fellows | {0: sliver}, Thresholds(), base)[0].code == "?"
    # two places above the base read at 0.92 and 0.95, darker and less red: not fellows...
    upper = {3: red(-2.9, 2.08, 0.6, 0.92), 4: red(-2.9, 2.1, 0.6, 0.95)}
    assert odd_red(fellows | upper | {0: sliver}, Thresholds(), base)[0].code == "?"
    # ... for as fellows they would move the median, and the sliver would be read red
    assert odd_red(fellows | upper | {0: sliver}, Thresholds(), base | {3, 4})[0].code == "R"
    # 1 at 0.98 above the base judges none: 2 alone still does, and with 1 alone none is left
    assert odd_red(fellows | {0: sliver}, Thresholds(), {0})[0].code == "?"
    assert odd_red({1: fellows[1], 0: sliver}, Thresholds(), {0})[0].code == "R"


def _white(rg: float, bg: float, p_ball: float = 1.0) -> Reading:
    """A white ball as ``Batch.colour`` gives it: level, q90, red/green, blue/green, red, outside."""
    return Reading("W", "seen", p=(1.0 - p_ball, p_ball, 0.0), colour=(0.1, 0.5, rg, bg, 0.21, -0.1), seen=1.0)


#: the plate's tint round the base where it is as dark as 2600284's 1a4 (level -1.60)
SOFT_SHADE = (-0.044, 0.041)


def _read(tint: tuple[float, float], whites: list[Reading], shade: tuple[float, float] | None = SOFT_SHADE) -> Reading:
    readings = {0: Reading(".", "empty", p=(1.0, 0.0, 0.0)), 5: Reading(".", "empty", p=(1.0, 0.0, 0.0))}
    readings |= {10 + k: w for k, w in enumerate(whites)}
    shades = {0: None if shade is None else np.array(shade), 5: np.array(SOFT_SHADE)}
    out = white_in_hollow(readings, {0: np.array(tint), 5: np.array((-0.05, 0.03))}, shades, Thresholds())
    assert out[5].code == "."  # the shaded plate's own tint
    assert all(out[10 + k] is w for k, w in enumerate(whites))  # the balls stay as read
    return out[0]


def test_a_hollow_leaning_to_the_white_balls_tint_is_unknown():
    """Tints from 2600284 under a soft light: the white balls lit at (-0.46..-0.56,
    0.21..0.33) from the lit plate's tint, the white ball in the arm's shadow at (-0.17,
    0.04), where the plate round the base as dark as it lies at (-0.04, 0.04): 0.22 of the
    way from that to theirs (0.24 in the frame)."""
    whites = [_white(-0.46, 0.21), _white(-0.52, 0.24), _white(-0.56, 0.33)]
    shaded = _read((-0.168, 0.04), whites)
    assert shaded.code == "?" and "0.22 of the way from the plate's in its shade to this frame's white" in shaded.why
    assert _read((-0.06, 0.05), whites).code == "."      # the shaded plate's tint
    assert _read((0.059, -0.1), whites).code == "."      # off the plate's tint, but away from white
    sky = (-0.2, 0.2)  # a shadow lit by a blue sky: the plate there leans far toward white, and so does the hollow
    assert _read((-0.21, 0.21), whites, sky).code == "."
    assert _read((-0.168, 0.04), whites, None).code == "."  # the plate round the base nowhere that dark
    assert _read((-0.168, 0.04), []).code == "."         # no white ball to judge by
    unsure = [replace(w, p=(0.05, 0.95, 0.0)) for w in whites]
    assert _read((-0.168, 0.04), unsure).code == "."     # read at ``light_ball`` only: they judge none
    pale = [_white(-0.12, 0.1), _white(-0.13, 0.11)]
    assert _read((-0.168, 0.04), pale).code == "."       # their tint under ``white_apart`` from the shade's


def test_a_white_ball_in_an_arms_soft_shadow_is_not_read_empty():
    """The benchmark's seed 2600284 under a soft light (Sparks, 800x600, an arm beside the
    pyramid): the white base ball 1a4, in the arm's shadow, was read empty at P(empty) 1.00,
    the one confident wrong reading the whole ``make bench`` run of 2026-12-04's seventh
    session found. Its tint, not its shading, gives it away. (The second model, fitted on
    path traced frames, calls it empty at 0.60 only, and leaves it ``?`` first: the rule is
    proved with that model blinded.)"""
    sc, image = frame_in_look(PYRAMID, 2600284, "soft-light")
    shipped = Recognizer(PYRAMID, sc.game).read(image)
    assert shipped.observation.cells["1a4"] == "?", shipped.details["1a4"]
    assert "only to the model fitted on path traced frames" in shipped.details["1a4"]
    blind = Thresholds(pbr_empty=0.0)
    result = Recognizer(PYRAMID, sc.game, thresholds=blind).read(image)
    assert sc.cells["1a4"] == "W" and result.observation.cells["1a4"] == "?", result.details["1a4"]
    assert "of the way from the plate's in its shade to this frame's white balls'" in result.details["1a4"]
    for read in (result, shipped):
        wrong = [n for n, v in read.observation.cells.items() if v != "?" and v != sc.cells.get(n, ".")]
        assert wrong == []
        assert sum(v == "W" for v in read.observation.cells.values()) >= 3  # its fellows, read
    before = Recognizer(PYRAMID, sc.game, thresholds=replace(blind, hollow_white=9.0)).read(image)
    assert before.observation.cells["1a4"] == "."
