"""Glare off a varnished plate (vision/recognize_glare.py): where the plate's reference
shines brighter than the markers' matte paper, wooden balls' colours are not read; where a
grid cell judged against the plate's margin has wood round it far brighter than that
margin, a border no brighter than that wood is not read white; where a grid's wood is
nearly the paper's white, a border read bare must be surer."""

from __future__ import annotations

import numpy as np

from vision.pose import Pose, estimate_pose
from vision.recognize_covered import MarkerRings
from vision.recognize_glare import (SHINING, UNLIKE_MARGIN, WOOD_OVER_BORDER, from_white, shine, under_glare,
                                    unlike_margin)
from vision.recognize_reading import Reading
from vision.srgb import decode

from test_covered import PYRAMID, rendered


def _readings() -> dict[str, Reading]:
    p = (0.0, 1.0, 0.0)
    return {"1a1": Reading("L", "ball, light wood", p), "1b1": Reading("D", "ball, dark wood", p),
            "1c1": Reading(".", "empty", (1.0, 0.0, 0.0)), "1d1": Reading("?", "unsure", (0.5, 0.5, 0.0))}


def test_wood_against_a_plate_that_outshines_the_paper_is_unknown_and_nothing_else():
    readings = _readings()
    assert under_glare(readings, SHINING - 0.01) is readings
    doubted = under_glare(readings, 1.26)
    assert [doubted[n].code for n in ("1a1", "1b1", "1c1", "1d1")] == ["?", "?", ".", "?"]
    assert doubted["1a1"].colour_only and doubted["1b1"].colour_only  # a ball is there still
    assert "shines 1.26 times as bright as the markers' paper" in doubted["1a1"].why
    assert doubted["1d1"] is readings["1d1"] and doubted["1c1"] is readings["1c1"]


def test_a_border_judged_against_a_margin_darker_than_the_wood_round_it():
    """Four cells judged against the margin (no wood of their own): the wood round them 1.5
    times its light; borders as bright as that wood (0, 3) or brighter by more than
    ``WOOD_OVER_BORDER`` (1, a white plate); the wood round one only 1.2 times (2). A fifth
    has wood of its own (4), a sixth no border in view (5)."""
    margin = np.array([0.4, 0.3, 0.2])
    ref = np.tile(margin, (6, 1))
    around = ref * np.array([1.5, 1.5, 1.2, 1.5, 1.5, 1.5])[:, None]
    border = around * np.array([1.0, WOOD_OVER_BORDER + 0.05, 1.0, WOOD_OVER_BORDER - 0.01, 1.0, 1.0])[:, None]
    ring = np.repeat(border[:, None, :], 20, axis=1)
    ok = np.ones((6, 20), dtype=bool)
    ok[5] = False
    own = np.array([False, False, False, False, True, False])
    lit = unlike_margin(own, around, ref, ring, ok)
    assert np.allclose(lit, [1.5, 0.0, 0.0, 1.5, 0.0, 0.0])
    assert UNLIKE_MARGIN > 1.2  # cell 2's wood is the margin's light, near enough


def test_shine_is_the_plate_over_the_paper_and_nothing_without_paper():
    plate = np.array([0.5, 0.4, 0.3])
    light = float(plate @ np.array([0.2126, 0.7152, 0.0722]))
    assert abs(shine(plate, light / 1.3) - 1.3) < 1e-6
    assert shine(plate, None) == 0.0 and shine(plate, 0.0) == 0.0


def test_wood_from_white_is_its_light_and_tint_against_the_paper_and_infinite_without_paper():
    paper = np.array([0.6, 0.6, 0.6])
    assert from_white(paper * 0.999, paper) < 0.01  # as white as the paper
    darker = from_white(paper * np.exp(-0.3), paper)
    assert abs(darker - 0.3) < 1e-6  # only dimmer: its log light ratio
    warm = paper * np.array([1.2, 1.0, 1.2 * np.exp(-0.4)])  # its log blue/red 0.4 below the paper's
    light = np.log(float(warm @ np.array([0.2126, 0.7152, 0.0722])) / 0.6)
    assert abs(from_white(warm, paper) - np.hypot(light, 0.4)) < 1e-6
    assert from_white(warm, None) == float("inf")


def test_the_markers_paper_is_measured_where_it_is_seen():
    _, image = rendered(hand=False)
    pose = estimate_pose(image, PYRAMID)
    rings = MarkerRings.of(PYRAMID, pose, image.shape)
    paper = rings.seen(image).paper()
    # the rendered paper's own pixels, beside marker 0's left edge, 2 mm out
    m = PYRAMID.markers[0]
    u, v = pose.project([(m.centre[0] - PYRAMID.marker_size / 2 - 2.0, m.centre[1], 0.0)])[0].round().astype(int)
    own = float(np.median(decode(image[v - 1:v + 2, u - 1:u + 2, ::-1] / 255.0) @ np.array([0.2126, 0.7152, 0.0722])))
    assert paper is not None and abs(paper - own) < 0.15 * own, (paper, own)
    own_rgb = np.median(decode(image[v - 1:v + 2, u - 1:u + 2, ::-1] / 255.0).reshape(-1, 3), axis=0)
    colour = rings.seen(image).paper_colour()
    assert colour is not None and np.all(np.abs(colour - own_rgb) < 0.15 * own_rgb), (colour, own_rgb)
    away = Pose(pose.K, pose.R, pose.t + np.array([5000.0, 0.0, 0.0]), pose.markers, 0.0)  # the board out of view
    lost = MarkerRings.of(PYRAMID, away, image.shape).seen(image)
    assert lost.paper() is None and lost.paper_colour() is None
