"""The sRGB transfer curve, both ways: one definition for the renderer, which encodes
linear light as a camera does, and for recognition, which decodes a frame's levels and
asks how coarse a level's step is. Values 0-1 either side, computed in the input's dtype."""

from __future__ import annotations

import numpy as np


def decode(srgb: np.ndarray) -> np.ndarray:
    """Linear light of sRGB values (0-1)."""
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def encode(linear: np.ndarray) -> np.ndarray:
    """sRGB values (0-1) of linear light (0 or more)."""
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
