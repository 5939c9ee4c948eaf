"""What a consumer webcam does to a picture after its sensor, which the renderer's own
camera (blur, noise, JPEG in :mod:`vision.render`) leaves out: a white balance a little
off, a tone curve, vignetting, saturation pushed or pulled, unsharp masking and a
low-quality JPEG stream. Real photographs come through such pipelines, so recognition is
measured on rendered frames put through them too (``benchmarks/bench_vision_random.py``).
"""

from __future__ import annotations

from random import Random
from dataclasses import dataclass

import cv2
import numpy as np

from .render_surface import to_linear, to_srgb


@dataclass(frozen=True, slots=True)
class Webcam:
    """One camera's processing; each stage is off at its neutral value.

    ``gains``: linear R, G, B multipliers (white balance; G stays 1); ``gamma``: a power on
    the 0-1 output; ``contrast``: how much of an S-curve is mixed in (0-1); ``vignette``:
    the brightness left in the image's corners (linear, 1 none); ``saturation``: chroma
    scale in YCrCb; ``sharpen``: unsharp-mask amount, with a Gaussian of ``sharpen_sigma``
    pixels; ``jpeg_quality``: a JPEG round trip at this quality, or None."""

    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gamma: float = 1.0
    contrast: float = 0.0
    vignette: float = 1.0
    saturation: float = 1.0
    sharpen: float = 0.0
    sharpen_sigma: float = 1.5
    jpeg_quality: int | None = None

    @classmethod
    def random(cls, rng: Random) -> Webcam:
        """A random webcam: each stage on with even odds, over the range cheap cameras
        show (white balance off by 12 % per channel (sd), gamma 0.75-1.35, vignetting to
        55-85 % in the corners, saturation 0.7-1.5, sharpening 0.5-1.5, JPEG 25-55)."""
        def on() -> bool:
            return rng.random() < 0.5
        wb = on()
        r, b = (float(np.exp(rng.gauss(0.0, 0.12))) for _ in range(2)) if wb else (1.0, 1.0)
        tone = on()
        return cls(gains=(r, 1.0, b),
                   gamma=rng.uniform(0.75, 1.35) if tone else 1.0,
                   contrast=rng.uniform(0.0, 0.6) if tone else 0.0,
                   vignette=rng.uniform(0.55, 0.85) if on() else 1.0,
                   saturation=rng.uniform(0.7, 1.5) if on() else 1.0,
                   sharpen=rng.uniform(0.5, 1.5) if on() else 0.0,
                   sharpen_sigma=rng.uniform(1.0, 2.0),
                   jpeg_quality=rng.randint(25, 55) if on() else None)

    def apply(self, image: np.ndarray) -> np.ndarray:
        """The BGR uint8 ``image`` as this camera would deliver it."""
        out = image
        if self.gains != (1.0, 1.0, 1.0) or self.vignette != 1.0:
            linear = to_linear(out[..., ::-1].astype(np.float32))
            linear = linear * np.asarray(self.gains, dtype=np.float32)
            if self.vignette != 1.0:
                h, w = out.shape[:2]
                y, x = np.mgrid[0:h, 0:w].astype(np.float32)
                r2 = ((x - w / 2) ** 2 + (y - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
                linear = linear * (1.0 - (1.0 - self.vignette) * r2)[..., None]
            out = _bytes(to_srgb(linear)[..., ::-1])
        if self.gamma != 1.0 or self.contrast:
            x = (np.arange(256, dtype=np.float64) / 255.0) ** self.gamma
            x = (1.0 - self.contrast) * x + self.contrast * (0.5 - 0.5 * np.cos(np.pi * x))
            out = _bytes(x * 255.0)[out]
        if self.saturation != 1.0:
            ycc = cv2.cvtColor(out, cv2.COLOR_BGR2YCrCb).astype(np.float32)
            ycc[..., 1:] = 128.0 + (ycc[..., 1:] - 128.0) * self.saturation
            out = cv2.cvtColor(_bytes(ycc), cv2.COLOR_YCrCb2BGR)
        if self.sharpen:
            soft = cv2.GaussianBlur(out, (0, 0), self.sharpen_sigma)
            out = cv2.addWeighted(out, 1.0 + self.sharpen, soft, -self.sharpen, 0)
        if self.jpeg_quality is not None:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(self.jpeg_quality)])
            if not ok:
                raise RuntimeError("JPEG encoding failed")
            out = cv2.imdecode(data, cv2.IMREAD_COLOR)
        return np.ascontiguousarray(out)


def _bytes(x: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)
