"""A second look at a border the rules read bare or white: its light across the border,
from inside the tile's edge to the wood beyond the plate's edge, weighed by a small model.

A webcam that sharpens its frames leaves a bright halo on the wood right beside a dark
tile, and blur spills the tile's colour over it: on bare wood the halo can be as bright and
as blue as a white plate, sample by sample, and the rules of vision/recognize_grid.py read
it white (fresh sets through webcams, docs/vision.md). What differs is the shape across
the border: a plate is a band of even light as wide as the plate's margin, ending at the
plate's edge; a halo fades from the tile's edge. The profile here is measured at
:data:`STEPS` (in border widths from the tile's edge) on every side of the cell, and a
two-layer perceptron (vision/recognize_model.py, weights in vision/border_weights.py from
``python -m vision.border_train``) gives the probabilities of bare wood, a white plate and
a black plate. A border the rules read bare or white that the model does not call so with
:data:`SURE` (:data:`DIM_SURE`, :data:`SPILT_SURE` for a bare border lit less than the
wood, or read on few samples) is left ``?``, and so is one that a second model of the same
form, fitted on path traced frames alone (vision/border_pbr_weights.py), does not call so
with ``PBR_SURE``. It makes readings only where the rules leave a border open
(vision/recognize_second.py): a border they find dark all round, which they
cannot tell from wood in shade, is a black plate where the model says so with
``BLACK_SURE``; one whose samples split, black, white or bare wood leading but too few to
read by, is what leads where it says so with ``SPLIT_SURE`` (white: ``WHITE_SPLIT_SURE``,
bare: ``BARE_SPLIT_SURE``, and the needs beside them); and one held for its light alone
(too thin to tell bare from a pale plate, or on overexposed wood) is a black plate where it
says so with ``HELD_BLACK_SURE``; none with an arm in view.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .pose import Pose
from .recognize_colour import to_linear
from .recognize_features import LUMA
from .recognize_model import Ensemble, load_weights

#: where across the border the profile is measured, in border widths from the tile's edge
#: (0) to the plate's edge (1): from inside the tile to the middle of the wood between
#: plates (on the reference boards; farther would be the next cell's plate)
STEPS = np.linspace(-0.4, 1.6, 11)
#: where along each side, as shares of the tile's half side
ALONG = (-2 / 3, -1 / 3, 0.0, 1 / 3, 2 / 3)
#: the profile's steps whose spread (quartiles of the light) is a measure: over the border
SPREAD = slice(3, 9)
#: measures per cell: 3 channels per step, 2 quartiles per spread step, the border's width
FEATURES = len(STEPS) * 3 + 2 * (SPREAD.stop - SPREAD.start) + 1
#: a border read bare or white must be so to the model with at least this probability.
#: White: on the webcam look of seeds 4,600,000 on (1,000 frames; docs/vision.md,
#: Recognition) 0.95 takes all 11 bare borders read white and costs 13 of the 2,145 white
#: plates read right; 0.9 would leave one (4600965 b7, white at 0.941) and cost 10. Bare:
#: 0.8 takes 3 of the 4 white plates read bare on the fresh sets before (4400609 b2 and
#: e3 under soft light, 4200312 f7 with far colours; not 4400892 a1, a black plate under
#: a hand's fingers, bare at 0.99) and costs 23 of the 3,684 bare borders read right on
#: that webcam look. Raised to 0.95 (2026-11-29): three cream plates round green tiles on
#: thin borders, with far colours (5100674 a6, 5300147 g5, 5500180 h2), passed at 0.92,
#: 0.87 and 0.81; 0.95 costs 244 of 12,805 bare borders read right (1.9 %) on 1,700 frames
#: of seeds already studied (800 with far colours, 500 through webcams, 400 plain)
SURE = {".": 0.95, "w": 0.95}
#: a border read bare whose votes' median light is under vision/recognize_grid.py's
#: ``ALONE_LIGHT`` of the wood's next to the cell must be bare to the model with this
#: probability, not :data:`SURE`'s: a white plate round a green tile, on a path traced frame
#: in a room's shadow (7000038 e2, 2.16 px wide), voted bare with 80 % of its samples, lit
#: 0.55 of the wood, and was bare to the model at 0.955. Of the 12,725 bare borders read
#: right on the path traced grid frames (seeds 7,000,000 and 7,300,000 on, 120 frames in
#: five looks), none lit so was under 0.97 (docs/vision.md, Recognition)
DIM_SURE = 0.97
#: ... and one read bare on the share of its samples that are not the tile's spill alone
#: (vision/recognize_grid.py's ``SPILT_SHARE``: under ``ALONE_SHARE`` of all its samples
#: voting bare), with this: a white plate round a green tile on a path traced frame with
#: colours far from the defaults, through JPEG at quality 46 (7300006 g1, 2.17 px wide),
#: voted bare with half its samples, four fifths of those not spilt, and was bare to the
#: model at 0.967. Of the 4,590 bare borders read right so on those frames and on rendered
#: ones, 221 are under 0.98 (docs/vision.md, Recognition)
SPILT_SURE = 0.98


@dataclass(frozen=True, eq=False)
class BorderProfile:
    """The profile's points round every cell, relative to the cell's centre (mm, P x 3):
    on the plate's top across the border, on the wood beyond the plate's edge."""

    offsets: np.ndarray

    @classmethod
    def of(cls, half_tile: float, border_width: float, plate_thickness: float) -> BorderProfile:
        pts = []
        for u in STEPS:
            d = half_tile + u * border_width
            z = plate_thickness if u <= 1.0 else 0.0
            for side in range(4):
                for a in ALONG:
                    t = a * half_tile
                    x, y = ((t, -d), (t, d), (-d, t), (d, t))[side]
                    pts.append((x, y, z))
        return cls(np.array(pts))

    def points(self, centres: np.ndarray, pose: Pose) -> np.ndarray:
        """Image points (x, y; N cells x P, float32) of every cell's profile."""
        n = len(centres)
        pts = np.concatenate([centres[:, None, :2] + self.offsets[None, :, :2],
                              np.broadcast_to(self.offsets[None, :, 2:], (n, len(self.offsets), 1))], axis=2)
        uv = pose.project(pts.reshape(-1, 3)).reshape(n, len(self.offsets), 2)
        return np.nan_to_num(uv, nan=-1.0).astype(np.float32)


def profile_features(image: np.ndarray, points: np.ndarray, ref: np.ndarray, border_px: float) -> np.ndarray:
    """The model's measures (N x F) of cells whose profile points (N x P x 2) are given,
    with ``ref`` the wood next to each (linear RGB): per step and channel the median of
    the log ratio to that wood, the quartiles of the light over the border (linear
    interpolation, as NumPy's percentiles), and the border's width in pixels (log).
    Bilinear samples; points off the image take its edge."""
    n, p = points.shape[:2]
    if n == 0:
        return np.zeros((0, FEATURES))
    flat = points.reshape(1, -1, 2)
    values = cv2.remap(image, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    per = p // len(STEPS)
    rgb = to_linear(values[0, :, ::-1]).reshape(n, len(STEPS), per, 3)  # float32: sorted as is, widened after
    ref = np.maximum(ref, 1e-4)
    # the logs sort as the light does: only the order statistics wanted are logged
    light = np.sort(rgb.transpose(0, 1, 3, 2), axis=-1)  # n x steps x 3 x samples
    mid = per // 2
    med = _log(light[..., mid]) if per % 2 else (_log(light[..., mid - 1]) + _log(light[..., mid])) / 2
    med = (med - np.log(ref)[:, None, :]).reshape(n, -1)
    lum = np.sort(rgb[:, SPREAD].astype(np.float64) @ LUMA, axis=-1)
    ref_lum = np.log(ref @ LUMA)[:, None]
    quart = np.stack([_log_quantile(lum, 0.25, ref_lum), _log_quantile(lum, 0.75, ref_lum)], axis=1)  # n x 2 x steps
    return np.concatenate([med, quart.reshape(n, -1), np.full((n, 1), np.log(max(border_px, 1e-3)))], axis=1)


def _log(light: np.ndarray) -> np.ndarray:
    """The log of linear light (widened to float64), dark taken as 1e-4."""
    return np.log(np.maximum(light.astype(np.float64), 1e-4))


def _log_quantile(ordered: np.ndarray, q: float, offset: np.ndarray) -> np.ndarray:
    """The ``q`` quantile along the last axis of the logs of sorted light less ``offset``,
    interpolated linearly: only the two values it lies between are logged."""
    h = q * (ordered.shape[-1] - 1)
    i = int(h)
    j = min(i + 1, ordered.shape[-1] - 1)
    a, b = _log(ordered[..., i]) - offset, _log(ordered[..., j]) - offset
    return a + (b - a) * (h - i)


def load_border_model(pbr: bool = False) -> Ensemble | None:
    """The trained border model, None before training; with ``pbr``, the second one, fitted
    on path traced frames alone (vision/border_pbr_weights.py; vision/recognize_second.py,
    ``PBR_SURE``)."""
    return load_weights("border_pbr_weights" if pbr else "border_weights")
