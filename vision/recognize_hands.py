"""Hands over the board: an arm reaching in crosses the plate's outline in the image.

A hand hovers above the board and its arm comes in from beyond the plate's edge, so in the
image it covers some of the table just outside the plate. The table is sampled on three
rings around the plate; samples whose chromaticity is far from the ring's own (measured in
the same frame: its median; how far allows for the ring's noise, and for how coarse a dark
table's levels are) and not merely darker (a shadow keeps the table's chromaticity) are
foreign. Beside the plate's outline in the image the plate's colour bleeds into the table,
so there a sample must differ in brightness too. A run of foreign samples that another
ring shows too is an arm; where it crosses tells recognition which positions to distrust.
Skin tones are close to light wood, so this looks at the table, not the plate; a table of
the skin's colour defeats it (the per-position checks remain).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import Board
from .pose import Pose
from .recognize_colour import Patches, distance, log_chroma, luminance, quantile, srgb_level
from .render_camera import PLATE_THICKNESS, plate_corners

#: the band of table sampled around the plate (mm beyond the plate's edge)
BAND_MM = (22.0, 30.0, 38.0)
STEP_MM = 5.0
#: a sample this far from the table's chromaticity (log ratios) is foreign, or farther where
#: the ring's own spread calls for it (NOISE_FACTOR times the distance three quarters of its
#: samples are within), but never farther than FOREIGN_CAP
FOREIGN_CHROMA = 0.3
NOISE_FACTOR = 2.5
FOREIGN_CAP = 0.5
#: ... and farther where the sample or the table is dark: an 8-bit level's step moves a
#: channel's log by about 2.4 / level, and a webcam's JPEG, sharpening and tone curve move
#: a dark channel by several levels in patches wider than the band, so a sample whose
#: darkest channel is at level a, on a table whose darkest is at b, must lie
#: NOISE_LEVELS (1/a + 1/b) away: 0.69 where both sit at 35, 0.16 at 150 (the limits
#: above decide there). 16 would leave 2 of the study's 21 false arms through webcams
#: (12: 6), but missed the arm in a dim frame (tests/test_hands.py: skin 0.55-0.9 from a
#: dark grey table, at levels 40-80)
NOISE_LEVELS = 12.0
#: seen from low down, the rings beyond the plate's far edge lie a few pixels from its
#: outline in the image, where a webcam's sharpening halo and JPEG's chroma (at half
#: resolution, in 8x8 blocks) carry the plate's light wood into the table: a sample within
#: PLATE_HALO_PX of the outline shows an arm by its colour only where its brightness
#: differs from the table's by HALO_LEVEL times too, either way (an arm there is lit or
#: shaded otherwise than the table; one 2.5 times brighter counts as anywhere); by its
#: colour alone it neither shows an arm nor rules out one another ring shows (an arm as
#: bright as the table, seen beyond the halo on the outer ring alone)
PLATE_HALO_PX = 6.0
HALO_LEVEL = 1.5
#: the table's colour drifting across the ring is taken as its colour where the drift
#: reaches this many times the samples' distance from it (:func:`table_trend`)
DRIFT_OVER_NOISE = 4.0
#: an arm crosses every ring of the band: a run counts where another ring in view within
#: this distance (mm) has a run too
AGREE_MM = 20.0
#: a ball's image, for the band samples it may hide: its radius grown by this share and
#: this many pixels (blur, and the 3x3 pixels a sample averages)
BALL_REACH = 1.25
BALL_BLUR_PX = 2.0


@dataclass(frozen=True, slots=True)
class HandSigns:
    """Where arms cross the band around the plate: board points (x, y) of the foreign
    samples in runs, and how many band samples were in view."""

    crossings: np.ndarray
    seen: int

    @property
    def present(self) -> bool:
        return len(self.crossings) > 0

    def distance(self, x: float, y: float) -> float:
        """Board distance (mm) from (x, y) to the nearest crossing; inf without a hand."""
        if not self.present:
            return math.inf
        return float(np.min(np.hypot(self.crossings[:, 0] - x, self.crossings[:, 1] - y)))


def band_points(board: Board) -> list[np.ndarray]:
    """Rings of table points around the plate, each in order along the perimeter."""
    rings = []
    for off in BAND_MM:
        w, d = board.plate[0] / 2 + off, board.plate[1] / 2 + off
        perimeter = 4 * (w + d)
        s = np.arange(0.0, perimeter, STEP_MM)
        pts = np.empty((len(s), 3))
        for k, t in enumerate(s):
            if t < 2 * w:
                pts[k] = (-w + t, -d, 0)
            elif t < 2 * w + 2 * d:
                pts[k] = (w, -d + (t - 2 * w), 0)
            elif t < 4 * w + 2 * d:
                pts[k] = (w - (t - 2 * w - 2 * d), d, 0)
            else:
                pts[k] = (-w, d - (t - 4 * w - 2 * d), 0)
        pts[:, 2] = -PLATE_THICKNESS
        rings.append(pts)
    return rings


def _foreign(rgb: np.ndarray, inside: np.ndarray, halo: np.ndarray | None = None,
             points: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Samples of one ring foreign to the table, in runs of three along it (it wraps), and
    those that can tell neither way: beside the plate's outline (``halo``,
    :func:`plate_halo`), off the table's colour but not its brightness. With the samples'
    board ``points`` (N x 2 mm), the table's colour is the ring's trend across the board
    (:func:`table_trend`), not one colour, where the ring's spread lifts "far" above
    :data:`FOREIGN_CHROMA`: below it the limit is the same either way, and the trend's
    fits would cost a frame 0.35 ms."""
    lum = luminance(rgb)
    chroma = log_chroma(rgb)
    ref = quantile(chroma[inside], 50)
    ref_lum = float(quantile(lum[inside], 50))
    dist = distance(*(chroma - ref).T)
    spread = float(quantile(dist[inside], 75))
    if points is not None and NOISE_FACTOR * spread > FOREIGN_CHROMA:  # only a wide spread hides an arm
        trend = table_trend(chroma, points, inside, ref)
        if trend is not None:
            dist = distance(*(chroma - trend).T)
            spread = float(quantile(dist[inside], 75))
    limit = min(max(FOREIGN_CHROMA, NOISE_FACTOR * spread), FOREIGN_CAP)
    far = dist > limit
    if far.any():  # the levels of those few only: a power per sample costs
        doubted = np.flatnonzero(far)
        table = float(srgb_level(quantile(rgb[inside], 50)).min())
        far[doubted] = dist[doubted] > NOISE_LEVELS * (1.0 / srgb_level(rgb[doubted]).min(axis=1) + 1.0 / table)
    bright = lum > 2.5 * ref_lum
    foreign = inside & ((far & (lum > 0.1 * ref_lum)) | bright)
    if halo is None:
        return in_runs(foreign), np.zeros(len(foreign), dtype=bool)
    shows = in_runs(foreign & (~halo | bright | (lum > HALO_LEVEL * ref_lum) | (lum * HALO_LEVEL < ref_lum)))
    return shows, in_runs(foreign) & ~shows


def table_trend(chroma: np.ndarray, points: np.ndarray, inside: np.ndarray, median: np.ndarray) -> np.ndarray | None:
    """The table's chromaticity at each sample (N x 2) where the ring's colour drifts across
    the board far beyond its noise; else None. The trend is a plane over the board fitted to
    the samples ``inside``, again to the three quarters of them nearest the first fit, so
    that an arm crossing the ring does not pull it; it is taken where it reaches (away from
    the ring's ``median``) :data:`DRIFT_OVER_NOISE` times the distance three quarters of
    the samples lie from it. A room's white balance drifting across the frame (a warm lamp one side, a
    window the other) parts the table's colour by 0.3-0.5 across the ring, which as one
    colour's spread hid an arm of skin 0.4-0.5 off it (path traced 7000115 in the
    cast-drift look: the trend reaches 0.47, its samples lie within 0.06 of it). A dim
    webcam's noise on a dark table fits planes too, reaching at most 2.1 times its
    samples' distance from them (tests/test_hands.py's dark tables)."""
    design = np.column_stack([np.ones(len(points)), points / 100.0])
    use = inside
    for _ in range(2):
        coef = np.linalg.lstsq(design[use], chroma[use], rcond=None)[0]
        fit = design @ coef
        off = distance(*(chroma - fit).T)
        use = inside & (off <= quantile(off[inside], 75))
    reach = float(distance(*(fit[inside] - median).T).max())
    return fit if reach >= DRIFT_OVER_NOISE * float(quantile(off[inside], 75)) else None


def in_runs(foreign: np.ndarray) -> np.ndarray:
    """The ``foreign`` samples of a ring in runs of three along it (it wraps)."""
    f = np.concatenate([foreign[-2:], foreign, foreign[:2]])
    n = len(foreign)
    before2, before, after, after2 = f[:n], f[1:n + 1], f[3:n + 3], f[4:n + 4]
    return foreign & ((before & before2) | (before & after) | (after & after2))


def band_patches(pose: Pose, rings: list[np.ndarray], shape: tuple[int, ...]) -> Patches:
    """Where the rings' samples fall in frames of ``shape`` for ``pose``: each the mean of
    3x3 pixels, since one pixel's sensor noise, sharpening halo or JPEG block would
    otherwise pass for a foreign colour on a dark table."""
    return Patches.of(pose.project(np.concatenate(rings)), shape, radius=1)


def band_hidden(pose: Pose, rings: list[np.ndarray], centres: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """Which of the rings' samples a ball standing at one of ``centres`` (N x 3 mm, each of
    ``radius_px`` in the image: :attr:`Geometry.radius_px`) may hide. Seen from low down, a
    pyramid's upper balls stand over the band beyond the plate's far edge, and a white, red
    or light wooden ball there is as foreign to the table as an arm."""
    return hidden_by_balls(pose.project(np.concatenate(rings)), pose.project(centres), radius_px)


def hidden_by_balls(uv: np.ndarray, centre_uv: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """Which image points ``uv`` (N x 2) lie within a ball's image centred at one of
    ``centre_uv`` (M x 2) of ``radius_px`` (M): within :data:`BALL_REACH` of its radius and
    :data:`BALL_BLUR_PX` more, for blur and the samples' own 3x3 pixels."""
    reach = BALL_REACH * radius_px + BALL_BLUR_PX
    d = np.hypot(uv[:, None, 0] - centre_uv[None, :, 0], uv[:, None, 1] - centre_uv[None, :, 1])
    return (d <= reach[None, :]).any(axis=1)


def plate_halo(pose: Pose, board: Board, rings: list[np.ndarray]) -> np.ndarray:
    """Which of the rings' samples lie within :data:`PLATE_HALO_PX` of the plate's
    outline in the image (its top and bottom corners' hull), or inside it."""
    return near_polygon(pose.project(np.concatenate(rings)), plate_outline(pose, board), PLATE_HALO_PX)


def plate_outline(pose: Pose, board: Board) -> np.ndarray:
    """The plate's outline in the image: the hull of its top and bottom corners (M x 2, in
    order)."""
    return cv2.convexHull(pose.project(plate_corners(board)).astype(np.float32))[:, 0].astype(np.float64)


def near_polygon(uv: np.ndarray, polygon: np.ndarray, px: float) -> np.ndarray:
    """Which points ``uv`` (N x 2) lie inside the convex ``polygon`` (M x 2, in order)
    or within ``px`` of its edges."""
    a, ab = polygon, np.roll(polygon, -1, axis=0) - polygon
    ap = uv[:, None, :] - a[None]
    t = np.clip((ap * ab).sum(axis=2) / np.maximum((ab * ab).sum(axis=1), 1e-12), 0.0, 1.0)
    gap = ap - t[..., None] * ab
    near = np.hypot(gap[..., 0], gap[..., 1]).min(axis=1) < px
    turn = ab[None, :, 0] * ap[..., 1] - ab[None, :, 1] * ap[..., 0]
    return near | (turn >= 0).all(axis=1) | (turn <= 0).all(axis=1)


def find_hands(image: np.ndarray, pose: Pose, rings: list[np.ndarray], patches: Patches | None = None,
               hidden: np.ndarray | None = None, halo: np.ndarray | None = None) -> HandSigns:
    """Foreign runs on the table band around the plate, where the other rings agree.
    ``patches``: :func:`band_patches` for this pose, if already worked out. ``hidden``
    (:func:`band_hidden`): samples a ball may hide, which join the table's statistics as
    before but are never taken for an arm. ``halo`` (:func:`plate_halo`): samples beside
    the plate's outline, which by colour alone neither show an arm nor rule one out."""
    rgb_all, inside_all = (patches or band_patches(pose, rings, image.shape)).sample(image)
    runs, seen = [], []
    start = 0
    for pts in rings:
        rgb, inside = rgb_all[start:start + len(pts)], inside_all[start:start + len(pts)]
        shown = ~hidden[start:start + len(pts)] if hidden is not None else True
        near = halo[start:start + len(pts)] if halo is not None else None
        start += len(pts)
        if inside.sum() >= 12:
            foreign, unsure = _foreign(rgb, inside, near, pts[:, :2])
        else:
            foreign = unsure = np.zeros(len(pts), dtype=bool)
        seen.append(pts[inside & ~unsure, :2])
        runs.append(pts[foreign & shown, :2])
    crossings = []
    for k, run in enumerate(runs):
        if not len(run):
            continue
        others = [j for j in range(len(rings)) if j != k]
        agreed = np.zeros(len(run), dtype=bool)
        watched = np.zeros(len(run), dtype=bool)
        for j in others:
            agreed |= _within(run, runs[j])
            watched |= _within(run, seen[j])
        crossings.append(run[agreed | ~watched])
    found = np.concatenate(crossings) if crossings else np.zeros((0, 2))
    return HandSigns(found, int(inside_all.sum()))


def _within(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Which ``points`` have one of ``others`` within :data:`AGREE_MM`."""
    if not len(others):
        return np.zeros(len(points), dtype=bool)
    d = np.hypot(points[:, None, 0] - others[None, :, 0], points[:, None, 1] - others[None, :, 1])
    return d.min(axis=1) <= AGREE_MM
