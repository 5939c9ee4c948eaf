"""What a room's light does to a picture that the renderer's lights leave out: a white
balance drifting across the frame (a warm lamp on one side, a window on the other) and a
large soft shadow over part of the board (a lamp's arm, a player leaning over). Applied to
rendered frames in linear light, so that recognition is measured on them too
(``benchmarks/bench_vision_random.py``, the cast-drift and shadow rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from random import Random

import numpy as np

from .render_surface import to_linear, to_srgb


@dataclass(frozen=True, slots=True)
class RoomLight:
    """A change of light over the frame, each part off at its neutral value.

    ``drift``: how far red and blue part across the frame (linear gains 1 + drift and
    1 - drift at the two ends, red up where blue goes down), along ``angle`` (radians);
    ``shadow``: the light left in a shadow that covers the frame beyond a line across
    ``angle``, ``offset`` pixels from the frame's centre, with an edge ``softness`` pixels
    wide (1: no shadow)."""

    angle: float = 0.0
    drift: float = 0.0
    shadow: float = 1.0
    offset: float = 0.0
    softness: float = 30.0

    @classmethod
    def random(cls, rng: Random, kind: str) -> RoomLight:
        """A random ``kind`` of room light: "cast-drift" (red and blue parting by 15-30 %
        from end to end) or "shadow" (35-60 % of the light left, its edge 10-60 px soft,
        within a quarter of the frame's shorter side from its centre)."""
        angle = rng.uniform(0.0, 2.0 * math.pi)
        if kind == "cast-drift":
            return cls(angle=angle, drift=rng.uniform(0.15, 0.3))
        if kind == "shadow":
            return cls(angle=angle, offset=rng.uniform(-0.25, 0.25), softness=rng.uniform(10.0, 60.0),
                       shadow=rng.uniform(0.35, 0.6))
        raise ValueError(f"no room light {kind!r}: the kinds are cast-drift and shadow")

    def apply(self, image: np.ndarray) -> np.ndarray:
        """The BGR uint8 ``image`` under this light. ``offset`` counts in the frame's
        shorter side."""
        if not self.drift and self.shadow == 1.0:
            return image
        h, w = image.shape[:2]
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        along = (x - w / 2) * math.cos(self.angle) + (y - h / 2) * math.sin(self.angle)
        linear = to_linear(image[..., ::-1].astype(np.float32))  # RGB
        if self.drift:
            t = along / (0.5 * math.hypot(w, h))  # -1 to 1 from end to end
            linear[..., 0] *= 1.0 + self.drift * t
            linear[..., 2] *= 1.0 - self.drift * t
        if self.shadow != 1.0:
            edge = np.clip((along - self.offset * min(h, w)) / self.softness, -60.0, 60.0)
            linear *= (1.0 - (1.0 - self.shadow) / (1.0 + np.exp(-edge)))[..., None]
        return np.clip(np.rint(to_srgb(linear)[..., ::-1]), 0, 255).astype(np.uint8)
