"""Glare off a varnished plate: the plate shining brighter than the markers' paper, and a
grid's wood lit unlike the margin a white border is judged against.

Wooden balls are told apart by their level and tint against the lit plate's (the median
of the brighter half of its free strips, vision/recognize_colour.py). A varnished plate
under a lamp it mirrors into the lens shines: its strips then carry the lamp's light as
well as their own colour, every ball reads darker and more saturated against them, and
light wood in shade reads as stained. The markers' paper is matte and whiter than any
wooden plate, so lit as the plate is it is the brighter of the two; where the plate's
reference is brighter than the paper by ``SHINING``, the wooden balls' colours are not
read (docs/vision.md, Limits, "Glare off a varnished plate").

On a grid, a cell's border is judged against the wood beside it; where no wood beside it
has the plate's colour (glare whitens it, as neighbours' plates hide it), against the
plate's margin. Where the wood round such a cell is far brighter than that margin, the
margin does not say how the border is lit: a border that looks white against it but no
brighter than the wood round it is not read (:func:`unlike_margin`).

Glare whitens the wood itself: lit by the lamp's mirrored light as well as its own, pale
wood comes near the markers' paper in light and colour, and a white plate, the paper's
white, hardly stands out from it; often only its edge's thin line tells it. There the
border model's bare wood is not to be trusted as elsewhere: a border read bare must be
bare to it with ``PALE_SURE`` (:func:`from_white`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .recognize_colour import luminance
from .recognize_features import percentiles
from .recognize_reading import WOOD_LETTERS, Reading

#: the plate's reference over the lit paper's light (linear luminance, the paper's upper
#: quartile: ``MarkerLight.paper``) from which the plate shines. With no hand in view it
#: lay at 1.04 at most on path traced frames without glare (400 from seed 7,800,000 and
#: 75 from 8,200,000, as rendered and in four looks) and at 0.94 on rendered Pylos and
#: Sparks frames (400 from 2,600,240, six looks); with glare (``Room.with_glare``, 150
#: frames from 8,300,000) at up to 1.20, and 1.10-1.13 in 8300037, whose backlit light
#: wooden balls were read stained in four looks of five (docs/vision.md, Recognition)
SHINING = 1.07
#: a grid's wood no farther than this from the lit paper's white (:func:`from_white`) is
#: pale: a border read bare there must be bare to the border model with ``PALE_SURE``, not
#: vision/recognize_border.py's ``SURE``. Path traced, 400 frames under glare
#: (``Room.with_glare``: 150 from 8,350,000, 100 from 8,360,000, 150 from 8,450,000) and 100
#: without (8,430,000), five looks: of the 80 white plates the border model called bare at
#: 0.95-0.999, this leaves 67 ``?``, at 1.3-4.3 % of the cells read right on those sets.
#: Held out, 150 fresh frames under glare (8,460,000 on): 30 wrong to 4, at 3.5 %; 100 with
#: a hand in every frame (8,470,000 on): 21 to 11, at 4.1 %; on 100 rendered grid frames in
#: seven looks, 10 of 16,100 bare borders read right (docs/vision.md, Recognition)
PALE_WOOD = 0.65
PALE_SURE = 0.995


def shine(plate: np.ndarray, paper: float | None) -> float:
    """How many times brighter the plate's reference (linear RGB) is than the markers'
    lit paper (``MarkerLight.paper``: linear luminance); 0 where no paper was seen."""
    if paper is None or paper <= 0.0:
        return 0.0
    return float(luminance(np.asarray(plate, dtype=np.float64)[None])[0]) / paper


def from_white(plate: np.ndarray, paper: np.ndarray | None) -> float:
    """How far the plate's reference (linear RGB) lies from the lit paper's colour
    (``MarkerLight.paper_colour``): the distance of their log luminance ratio and their
    log blue/red ratios' difference, both 0 for wood as white as the paper; infinite where
    no paper was seen."""
    if paper is None:
        return float("inf")
    plate, paper = (np.maximum(np.asarray(c, dtype=np.float64), 1e-6) for c in (plate, paper))
    light = np.log(luminance(plate[None])[0] / luminance(paper[None])[0])
    tint = np.log(plate[2] / plate[0]) - np.log(paper[2] / paper[0])
    return float(np.hypot(light, tint))


def under_glare(readings: dict[str, Reading], shining: float) -> dict[str, Reading]:
    """The readings with every wooden ball's colour unknown where the plate shines
    ``shining`` times as bright as the paper, ``SHINING`` or more; as they are otherwise.
    A ball is still there: one resting on it is not doubted for it."""
    if shining < SHINING:
        return readings
    why = (f"wood?, but the plate shines {shining:.2f} times as bright as the markers' paper: glare off a "
           "varnished plate, against which wood's shade and tint do not tell")
    return {n: (replace(r, code="?", why=why, colour_only=True) if r.code in WOOD_LETTERS else r)
            for n, r in readings.items()}


#: a grid cell with no wood of the plate's colour beside it is judged against the plate's
#: margin; where the wood round it (the median of all its wood samples, whatever lies
#: there) is this many times as bright as that margin, the light there is not the
#: margin's ...
UNLIKE_MARGIN = 1.3
#: ... and a border no more than this many times as bright as the wood round it (median
#: luminance of its samples in view) is no white plate to be told by its light. Path traced
#: under glare (150 frames from 8,350,000, five looks): 8 bare borders read white so, in
#: 3 frames (the wood round them 1.35-2.18 times the margin's light, their border 0.95-1.13
#: times that wood's). Of the white plates read right with no wood of their own beside
#: them (171 path traced with and without glare, 1,570 rendered in six looks), 7 lie at
#: 1.3 or more (at most 1.63), 3 of them under 1.2 here (0.92-1.15), 2 of those in a glare
#: frame (docs/vision.md, Recognition)
WOOD_OVER_BORDER = 1.2


def unlike_margin(own: np.ndarray, around: np.ndarray, ref: np.ndarray, ring: np.ndarray,
                  ok: np.ndarray) -> np.ndarray:
    """Per grid cell, how many times as bright as its reference (``ref``, linear RGB) the
    wood round it (``around``) is, where: it has no wood of its own (``own`` False, so
    ``ref`` is the plate's margin), that wood is ``UNLIKE_MARGIN`` times as bright or
    more, and its border's median light (``ring``, in view where ``ok``) is at most
    ``WOOD_OVER_BORDER`` times that wood's. 0 elsewhere. A border read white there is
    not read."""
    wood = luminance(around)
    lit = wood / np.maximum(luminance(ref), 1e-6)
    border = percentiles(luminance(ring), ok, [50])[0]
    unlike = ~own & (lit >= UNLIKE_MARGIN) & (border <= WOOD_OVER_BORDER * wood) & ok.any(axis=1)
    return np.where(unlike, lit, 0.0)
