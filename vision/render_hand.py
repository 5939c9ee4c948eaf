"""Hands over the board for the renderer: skin-coloured occluders made of a palm
(an ellipsoid), four fingers and a thumb (capsules) and a forearm reaching in from beyond
the plate's edge. They hover above the surface and cast shadows like any other solid."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from .geometry import Board
from .render_camera import as_generator
from .render_shapes import Capsule, Ellipsoid

RGB = tuple[int, int, int]
#: skin tones (sRGB), light to dark; a random hand is drawn between two neighbours
SKIN: tuple[RGB, ...] = ((246, 212, 190), (232, 182, 150), (212, 152, 112), (170, 110, 74), (122, 78, 52), (84, 54, 38))


@dataclass(frozen=True, slots=True)
class Hand:
    """A hand: its colour (sRGB) and solids (world mm)."""

    colour: RGB
    capsules: tuple[Capsule, ...]
    ellipsoids: tuple[Ellipsoid, ...] = ()

    @property
    def parts(self) -> tuple[Capsule | Ellipsoid, ...]:
        return self.ellipsoids + self.capsules

    @property
    def lowest(self) -> float:
        """The height (mm above the surface) of the hand's lowest point."""
        return float(min(p.extent()[0][2] for p in self.parts))

    def raised(self, dz: float) -> Hand:
        """The same hand ``dz`` mm higher."""
        return self.moved((0.0, 0.0, dz))

    def moved(self, by: Sequence[float]) -> Hand:
        """The same hand moved by ``by`` (x, y, z in mm)."""
        d = np.asarray(by, dtype=np.float64)
        caps = tuple(Capsule(_v(np.add(c.a, d)), _v(np.add(c.b, d)), c.radius) for c in self.capsules)
        ells = tuple(replace(e, centre=_v(np.add(e.centre, d))) for e in self.ellipsoids)
        return Hand(self.colour, caps, ells)


def _v(a: Sequence[float]) -> tuple[float, float, float]:
    return (float(a[0]), float(a[1]), float(a[2]))


def _unit(a: np.ndarray) -> np.ndarray:
    return a / np.linalg.norm(a)


def random_hand(board: Board, rng: random.Random | np.random.Generator, *,
                over: Sequence[float] | None = None, height_mm: tuple[float, float] = (20.0, 150.0),
                colour: RGB | None = None, reach_deg: float | None = None) -> Hand:
    """A hand whose palm is over ``over`` (x, y; a random point of the plate by default),
    its lowest point ``height_mm`` above the surface, the arm coming in along ``reach_deg``
    (the direction from wrist to fingers; random by default) from beyond the plate's edge,
    fingers spread and curled at random."""
    g = as_generator(rng)
    if over is None:
        over = (g.uniform(-0.4, 0.4) * board.plate[0], g.uniform(-0.4, 0.4) * board.plate[1])
    phi = math.radians(reach_deg) if reach_deg is not None else g.uniform(0, 2 * math.pi)
    size = g.uniform(0.88, 1.12)
    reach = np.array([math.cos(phi), math.sin(phi), 0.0])
    side = np.array([-math.sin(phi), math.cos(phi), 0.0])
    z = np.array([0.0, 0.0, 1.0])
    pitch = math.radians(g.uniform(3, 18))  # the palm slopes down towards the fingers
    along = math.cos(pitch) * reach - math.sin(pitch) * z
    normal = math.sin(pitch) * reach + math.cos(pitch) * z
    palm_centre = np.array([over[0], over[1], 0.0])
    palm = Ellipsoid(_v(palm_centre), (_v(along), _v(side), _v(normal)), (46 * size, 40 * size, 13 * size))
    thumb_side = 1.0 if g.random() < 0.5 else -1.0
    fingers = []
    # index, middle, ring, little finger, from the thumb's side across
    for k, (length, radius) in enumerate(((62, 8.5), (68, 8.5), (63, 8.0), (50, 7.0))):
        offset = thumb_side * (1.5 - k) * 11.0 * size
        spread = math.radians(thumb_side * (1.5 - k) * g.uniform(0, 7))
        curl = math.radians(g.uniform(5, 50))
        flat = math.cos(spread) * reach + math.sin(spread) * side
        direction = math.cos(curl) * flat - math.sin(curl) * z
        base = palm_centre + along * 38 * size + side * offset
        fingers.append(Capsule(_v(base), _v(base + direction * length * size * g.uniform(0.92, 1.08)), radius * size))
    thumb_base = palm_centre + side * thumb_side * 30 * size - along * 8 * size
    thumb_dir = _unit(0.65 * reach + thumb_side * 0.65 * side - 0.3 * z)
    thumb = Capsule(_v(thumb_base), _v(thumb_base + thumb_dir * 48 * size), 10 * size)
    rise = math.radians(g.uniform(5, 25))
    wrist = palm_centre - along * 55 * size
    elbow = wrist - reach * 260 * math.cos(rise) + z * 260 * math.sin(rise)
    arm = Capsule(_v(wrist), _v(elbow), 26 * size)
    if colour is None:
        k = g.uniform(0, len(SKIN) - 1)
        a, b = SKIN[int(k)], SKIN[min(int(k) + 1, len(SKIN) - 1)]
        f = k - int(k)
        colour = tuple(int(round(a[i] + (b[i] - a[i]) * f)) for i in range(3))  # type: ignore[assignment]
    hand = Hand(colour, (*fingers, thumb, arm), (palm,))  # type: ignore[arg-type]
    return hand.raised(g.uniform(*height_mm) - hand.lowest)


#: how far a moving hand travels while the shutter is open (mm): 0.3-1.8 m/s through a
#: 1/30 s exposure, as a hand placing or taking a piece moves
TRAVEL_MM = (10.0, 60.0)


def hand_motion(rng: random.Random | np.random.Generator) -> tuple[float, float, float]:
    """A random hand's travel during one exposure (x, y, z in mm), for
    ``render(hand_travel=...)``: mostly across the board, up to a third of it up or down."""
    g = as_generator(rng)
    length = g.uniform(*TRAVEL_MM)
    angle = g.uniform(0, 2 * math.pi)
    rise = g.uniform(-1 / 3, 1 / 3)
    d = np.array([math.cos(angle), math.sin(angle), rise])
    d *= length / np.linalg.norm(d)
    return (float(d[0]), float(d[1]), float(d[2]))
