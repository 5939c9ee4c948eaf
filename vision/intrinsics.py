"""Camera intrinsics: focal lengths, principal point and lens distortion of one camera at
one resolution, as measured by ``arbiter calibrate-camera`` and read by recognition.

Without a file, recognition assumes the principal point at the image centre and no
distortion, and estimates the focal length from the board's markers.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .geometry import read_json


class IntrinsicsError(ValueError):
    """An intrinsics file that cannot be used: names the file and the field."""


@dataclass(frozen=True, slots=True)
class Intrinsics:
    """A pinhole camera with OpenCV's distortion model (k1, k2, p1, p2, k3)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    distortion: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    #: RMS reprojection error of the calibration, in pixels (None when not calibrated)
    rms: float | None = None

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def dist(self) -> np.ndarray:
        return np.array(self.distortion, dtype=float)

    @property
    def fov_h(self) -> float:
        """Horizontal field of view in degrees."""
        return math.degrees(2 * math.atan(self.width / (2 * self.fx)))

    def scaled(self, width: int, height: int) -> "Intrinsics":
        """The same camera at another resolution of the same aspect (a webcam switched
        from 1920x1080 to 1280x720)."""
        if abs(width / height - self.width / self.height) > 0.01:
            raise IntrinsicsError(f"the camera was calibrated at {self.width}x{self.height}; "
                                  f"{width}x{height} has another aspect ratio: calibrate at that size")
        k = width / self.width
        return Intrinsics(width, height, self.fx * k, self.fy * k, (self.cx + 0.5) * k - 0.5,
                          (self.cy + 0.5) * k - 0.5, self.distortion, self.rms)

    def to_json(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "fx": self.fx, "fy": self.fy, "cx": self.cx,
                "cy": self.cy, "distortion": list(self.distortion), "rms": self.rms}


def parse_intrinsics(data: Any, origin: str = "<intrinsics>") -> Intrinsics:
    if not isinstance(data, dict):
        raise IntrinsicsError(f"{origin}: expected a JSON object")
    values: dict[str, Any] = {}
    for key in ("width", "height"):
        v = data.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise IntrinsicsError(f"{origin}: {key!r} must be a whole number of pixels above 0, not {v!r}")
        values[key] = v
    for key in ("fx", "fy", "cx", "cy"):
        v = data.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or (key[0] == "f" and v <= 0):
            raise IntrinsicsError(f"{origin}: {key!r} must be a number of pixels{' above 0' if key[0] == 'f' else ''}, not {v!r}")
        values[key] = float(v)
    dist = data.get("distortion", [0, 0, 0, 0, 0])
    if (not isinstance(dist, list) or len(dist) not in (4, 5, 8)
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in dist)):
        raise IntrinsicsError(f"{origin}: 'distortion' must be a list of 4, 5 or 8 numbers (k1 k2 p1 p2 [k3 ...])")
    rms = data.get("rms")
    if rms is not None and not isinstance(rms, (int, float)):
        raise IntrinsicsError(f"{origin}: 'rms' must be a number or null")
    extra = set(data) - {"width", "height", "fx", "fy", "cx", "cy", "distortion", "rms", "images"}
    if extra:
        raise IntrinsicsError(f"{origin}: unknown key {sorted(extra)[0]!r}")
    return Intrinsics(distortion=tuple(float(v) for v in dist), rms=rms, **values)


def load_intrinsics(path: str | Path) -> Intrinsics:
    path = Path(path)
    return parse_intrinsics(read_json(path, IntrinsicsError), str(path))


def save_intrinsics(intrinsics: Intrinsics, path: str | Path, images: int | None = None) -> None:
    data = intrinsics.to_json()
    if images is not None:
        data["images"] = images
    Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
