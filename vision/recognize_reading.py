"""One pyramid position's reading, and the kinds of ball letter the rules treat apart:
shared by the reading (vision/recognize_balls.py) and the rules that judge it
(vision/recognize_fellows.py, vision/recognize_through.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


#: balls of the plate's lightness, told from it by shading alone
LIGHT = "LW"
#: balls of the plate's own wood
WOODEN = "L"
#: Pylos' two woods, light and stained, told apart by level and tint against the plate
WOOD_LETTERS = "LD"
#: stained wood, Pylos' dark ball
STAINED = "D"
#: the white ball (Sparks): the plate's lightness, told in shade by its tint leaning away from the plate's
WHITE = "W"
#: the red ball: the one colour told by chromaticity alone, so one a dark sliver can take on
RED = "R"
#: the colours no empty place shows, read at ``Thresholds.dark_ball``: the plate and its
#: hollows are light wood, which deep in shade keeps its tint, as stained wood near it does
DARK_LETTERS = frozenset("BR")
HIDDEN = "not enough of it in view"


@dataclass(frozen=True, slots=True)
class Reading:
    """One position: ``code`` (a ball letter, ``#``, ``.``, ``?``), ``why``, and the model's
    probabilities (empty, ball, hand)."""

    code: str
    why: str
    p: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    shares: dict[str, float] = field(default_factory=dict)
    #: a ball read by colour: its colour measures (``Batch.colour``), for adapting to the light
    colour: tuple[float, ...] = ()
    #: the share of its facing surface in view (not hidden by balls that may be present)
    seen: float = math.nan
    #: ``?`` only because too little of it was in view, as a ball that could be the balls
    #: below (:func:`alike_below`), or as a ball seen whose own supports are not (the
    #: support rules): a ball read resting on it is not doubted for that (:func:`settle`)
    glimpsed: bool = False
    #: ``?`` only for its colour, the model sure of a ball (P(ball) at ``Thresholds.ball``):
    #: a ball is there, whichever colour it is, and one resting on it is not doubted for it
    #: (:func:`settle`)
    colour_only: bool = False
