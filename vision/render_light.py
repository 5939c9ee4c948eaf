"""The light over the renderer's board: one distant light (a window, a lamp well above the
table) plus ambient light from the room, in any direction, colour and brightness. The
light may have a size (soft shadows, as a lampshade or a window casts) and the plate may
throw some of it back up onto the undersides of the pieces (bounce light)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

import numpy as np

from .render_camera import as_generator
from .render_shapes import plane_axes

Vec3 = tuple[float, float, float]
#: colour casts a random light is drawn between: warm (tungsten), neutral, cool (daylight)
WARM: Vec3 = (1.0, 0.80, 0.58)
NEUTRAL: Vec3 = (1.0, 1.0, 1.0)
COOL: Vec3 = (0.76, 0.87, 1.0)


@dataclass(frozen=True, slots=True)
class Lighting:
    """``direction``: a vector towards the light (normalised on construction; it must point
    upwards to light the board); ``colour``: linear RGB 0-1; ``intensity``: the direct
    light's strength (1 lights a white surface facing it to about full scale); ``ambient``:
    the room's diffuse light, in the same units; ``size``: the light's angular radius in
    degrees as seen from the board (0, a point: hard shadows; a lampshade or a window is
    a few degrees to a few tens, and its shadows have soft edges); ``bounce``: how much of
    the light the lit plate throws back up onto the surfaces above it that face sideways or
    down (0 none, 1 as a matte floor of the plate's colour would), tinted by the wood."""

    direction: Vec3 = (0.35, -0.45, 0.82)
    colour: Vec3 = NEUTRAL
    intensity: float = 1.0
    ambient: float = 0.3
    size: float = 0.0
    bounce: float = 0.0

    def __post_init__(self) -> None:
        d = np.asarray(self.direction, dtype=np.float64)
        n = float(np.linalg.norm(d))
        if n == 0 or d[2] <= 0:
            raise ValueError(f"Lighting.direction must point upwards, got {self.direction}")
        object.__setattr__(self, "direction", tuple(float(v) for v in d / n))
        if len(self.colour) != 3 or min(self.colour) < 0:
            raise ValueError(f"Lighting.colour must be three values of at least 0, got {self.colour}")
        if self.intensity < 0 or self.ambient < 0:
            raise ValueError("Lighting.intensity and Lighting.ambient must be at least 0")
        if not 0 <= self.size <= 45:
            raise ValueError(f"Lighting.size is the light's angular radius, 0 to 45 degrees, got {self.size}")
        if not 0 <= self.bounce <= 1:
            raise ValueError(f"Lighting.bounce must be 0 to 1, got {self.bounce}")

    @property
    def elevation_deg(self) -> float:
        return math.degrees(math.asin(self.direction[2]))

    def directions(self) -> np.ndarray:
        """Unit vectors towards points spread evenly over the light's disc (one for a
        point light; :data:`AREA_SAMPLES` for a light with a size), each above the
        horizon: shadows and shading averaged over them have the soft edges a lamp of that
        size casts."""
        d = np.asarray(self.direction, dtype=np.float64)
        if self.size == 0:
            return d[None]
        e1, e2 = plane_axes(d)
        k = np.arange(AREA_SAMPLES)
        r = math.tan(math.radians(self.size)) * np.sqrt((k + 0.5) / AREA_SAMPLES)
        a = k * math.pi * (3.0 - math.sqrt(5.0))  # the golden angle: a sunflower's spread
        out = d + r[:, None] * (np.cos(a)[:, None] * e1 + np.sin(a)[:, None] * e2)
        out[:, 2] = np.maximum(out[:, 2], 0.02 * np.linalg.norm(out, axis=1))
        return out / np.linalg.norm(out, axis=1, keepdims=True)


#: points over an area light's disc that its shading is averaged over
AREA_SAMPLES = 12


def _lerp(a: Vec3, b: Vec3, k: float) -> Vec3:
    return (a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k, a[2] + (b[2] - a[2]) * k)


def random_lighting(rng: random.Random | np.random.Generator, *,
                    elevation_deg: tuple[float, float] = (30.0, 85.0),
                    intensity: tuple[float, float] = (0.3, 1.6),
                    ambient: tuple[float, float] = (0.06, 0.4)) -> Lighting:
    """A light at a random azimuth and ``elevation_deg``, tinted anywhere from warm to
    cool, its intensity drawn log-uniformly (dim rooms are as likely as bright ones)."""
    g = as_generator(rng)
    azimuth = g.uniform(0, 2 * math.pi)
    elevation = math.radians(g.uniform(*elevation_deg))
    direction = (math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth), math.sin(elevation))
    cast = g.uniform(-1.0, 1.0)
    colour = _lerp(NEUTRAL, WARM, cast) if cast >= 0 else _lerp(NEUTRAL, COOL, -cast)
    level = math.exp(g.uniform(math.log(intensity[0]), math.log(intensity[1])))
    return Lighting(direction, colour, level, g.uniform(*ambient) * (0.5 + 0.5 * level))


def soft_lighting(rng: random.Random | np.random.Generator, *, size: tuple[float, float] = (3.0, 20.0),
                  bounce: tuple[float, float] = (0.3, 1.0)) -> Lighting:
    """A random room light (:func:`random_lighting`) that has a size and bounces off the
    plate: soft shadows and warm undersides, as a real lamp or window gives, which the
    recognition's thresholds were never chosen on."""
    g = as_generator(rng)
    light = random_lighting(g)
    return replace(light, size=g.uniform(*size), bounce=g.uniform(*bounce))


def glare_lighting(eye_mm, rng: random.Random | np.random.Generator, *,
                   intensity: tuple[float, float] = (1.0, 2.2),
                   ambient: tuple[float, float] = (0.1, 0.35), spread: float = 0.08) -> Lighting:
    """A strong light mirrored about the vertical through the board from the camera at
    ``eye_mm``, so the plate, the lacquered balls and the tiles reflect it into the lens: the
    worst case for glare (a lamp straight opposite the camera)."""
    g = as_generator(rng)
    d = np.array([-eye_mm[0], -eye_mm[1], eye_mm[2]], dtype=np.float64)
    d = d / np.linalg.norm(d) + np.array([g.uniform(-spread, spread), g.uniform(-spread, spread), 0.0])
    colour = _lerp(NEUTRAL, WARM, g.uniform(0.0, 1.0))
    return Lighting(tuple(float(v) for v in d), colour, g.uniform(*intensity), g.uniform(*ambient))
