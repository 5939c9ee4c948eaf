"""Glare off a varnished plate: the plate shining brighter than the markers' paper.

Wooden balls are told apart by their level and tint against the lit plate's (the median
of the brighter half of its free strips, vision/recognize_colour.py). A varnished plate
under a lamp it mirrors into the lens shines: its strips then carry the lamp's light as
well as their own colour, every ball reads darker and more saturated against them, and
light wood in shade reads as stained. The markers' paper is matte and whiter than any
wooden plate, so lit as the plate is it is the brighter of the two; where the plate's
reference is brighter than the paper by ``SHINING``, the wooden balls' colours are not
read (docs/vision.md, Limits, "Glare off a varnished plate")."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .recognize_colour import luminance
from .recognize_reading import WOOD_LETTERS, Reading

#: the plate's reference over the lit paper's light (linear luminance, the paper's upper
#: quartile: ``MarkerLight.paper``) from which the plate shines. With no hand in view it
#: lay at 1.04 at most on path traced frames without glare (400 from seed 7,800,000 and
#: 75 from 8,200,000, as rendered and in four looks) and at 0.94 on rendered Pylos and
#: Sparks frames (400 from 2,600,240, six looks); with glare (``Room.with_glare``, 150
#: frames from 8,300,000) at up to 1.20, and 1.10-1.13 in 8300037, whose backlit light
#: wooden balls were read stained in four looks of five (docs/vision.md, Recognition)
SHINING = 1.07


def shine(plate: np.ndarray, paper: float | None) -> float:
    """How many times brighter the plate's reference (linear RGB) is than the markers'
    lit paper (``MarkerLight.paper``: linear luminance); 0 where no paper was seen."""
    if paper is None or paper <= 0.0:
        return 0.0
    return float(luminance(np.asarray(plate, dtype=np.float64)[None])[0]) / paper


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
