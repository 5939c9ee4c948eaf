"""The geometry of reading a pyramid board: where each position's ball would be seen.

Every position's ball is a known sphere. For a pose, this module works out once which
pixels to sample and what they mean, so that reading a frame is only gathering pixels and
arithmetic (a camera on a stand keeps its pose; :class:`Geometry` is reused while it does):

- body samples: points of the sphere facing the camera (with their normals), each with the
  other spheres that would hide it (``hidden``) and, on the same level, the spheres the view
  would meet behind it if the position were empty (``beyond``);
- outline samples: just inside and just outside the silhouette a ball there would have;
- under samples (base positions): the ring of plate just outside the hollow's rim that a
  ball would hide;
- for positions above the base, the lower balls seen right behind them (``behind``), and
  those almost exactly behind (``aligned``);
- ring samples: the plate in a band round the base, where the pieces' shadows fall.

Which spheres may be present is decided level by level at read time, so occlusion is kept
as a matrix (sample x sphere) and reduced with the current "may be present" mask.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .geometry import Board
from .pose import Pose
from .render_camera import MARKER_PAPER

#: surface points of the unit sphere the body samples are taken from
SPHERE_POINTS = 160
#: a sample must face the camera at least this much (cos of the angle between its normal
#: and the view): the limb is left out, where blur and pose error mix in the background
MIN_FACING = 0.35
#: occluding spheres are taken this much larger, so that a sample at a contact counts as hidden
INFLATE = 1.02
#: angles around the outline and the under ring
ANGLES = np.linspace(0.0, 2 * math.pi, 24, endpoint=False)
#: a lower ball whose image centre lies within this share of a position's image radius of its
#: own is right behind it (:attr:`Geometry.aligned`): an empty level-2 place was read as the
#: base ball 0.09 radii behind it; from 38 degrees off vertical the nearest are 0.34 apart
ALIGNED = 0.25


def _fibonacci(n: int) -> np.ndarray:
    k = np.arange(n) + 0.5
    z = 1 - 2 * k / n
    phi = math.pi * (1 + 5 ** 0.5) * k
    r = np.sqrt(1 - z * z)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


UNIT = _fibonacci(SPHERE_POINTS)


@dataclass(frozen=True, eq=False)
class Layout:
    """A pyramid board's positions as arrays: centres (N x 3), levels, ball radius, each
    position's supports (indices of the four balls under it; empty on level 1), the
    positions resting on each (its supports turned round; empty on the top) and the base
    hollows' rim radius."""

    names: tuple[str, ...]
    centres: np.ndarray
    levels: np.ndarray
    radius: float
    supports: tuple[tuple[int, ...], ...]
    resting: tuple[tuple[int, ...], ...]
    rim: float
    #: points of the plate in a band round the base, clear of the markers: where the
    #: pieces' shadows show how dark this frame's shade is
    ring: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))

    @classmethod
    def of(cls, board: Board) -> Layout:
        names = tuple(p.name for p in board.positions)
        centres = np.array([p.centre for p in board.positions], dtype=np.float64)
        levels = np.array([int(n[0]) for n in names])
        supports = []
        for i, c in enumerate(centres):
            below = [j for j in range(len(names)) if levels[j] == levels[i] - 1
                     and np.hypot(*(centres[j, :2] - c[:2])) < board.ball_diameter * 0.9]
            supports.append(tuple(below))
        resting = tuple(tuple(k for k, sup in enumerate(supports) if i in sup) for i in range(len(names)))
        return cls(names, centres, levels, board.ball_diameter / 2, tuple(supports), resting,
                   board.hollow_diameter / 2, _ring(board, centres))

    def by_level(self) -> list[np.ndarray]:
        """Position indices level by level, the highest first (the reading order)."""
        return [np.flatnonzero(self.levels == lv) for lv in sorted(set(self.levels.tolist()), reverse=True)]


#: the band of plate round the base whose shade is measured (mm beyond the base balls)
RING_BAND = (1.0, 15.0)


def _ring(board: Board, centres: np.ndarray) -> np.ndarray:
    """Points on a 2 mm grid in the :data:`RING_BAND` round the base, off the markers and
    their paper."""
    reach = float(np.abs(centres[:, :2]).max()) + board.ball_diameter / 2
    keep = board.marker_size / 2 + MARKER_PAPER + 2.0
    g = np.arange(-reach - RING_BAND[1], reach + RING_BAND[1] + 0.1, 2.0)
    x, y = (v.reshape(-1) for v in np.meshgrid(g, g))
    far = np.maximum(np.abs(x), np.abs(y))
    ok = (far >= reach + RING_BAND[0]) & (far <= reach + RING_BAND[1])
    for m in board.markers:
        ok &= ~((np.abs(x - m.centre[0]) < keep) & (np.abs(y - m.centre[1]) < keep))
    return np.stack([x[ok], y[ok], np.zeros(int(ok.sum()))], axis=1)


def sphere_hits(points: np.ndarray, direction: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """For rays from ``points`` (N x 3) along unit ``direction`` (N x 3), whether each hits
    each sphere (M x 3) ahead of it or starts inside it: N x M."""
    oc = points[:, None, :] - centres[None, :, :]
    b = np.einsum("nmk,nk->nm", oc, direction)
    c = np.einsum("nmk,nmk->nm", oc, oc) - radius * radius
    disc = b * b - c
    near = -b - np.sqrt(np.maximum(disc, 0.0))
    return (c < 0) | ((disc > 0) & (near > 1e-6))


def _towards(points: np.ndarray, eye: np.ndarray) -> np.ndarray:
    d = eye - points
    return d / np.linalg.norm(d, axis=1, keepdims=True)


@dataclass(frozen=True, eq=False)
class Geometry:
    """Sample pixels and their occlusion for one pose (see the module's docstring).

    ``pixels``: every sampled pixel as (row, column), -1 outside the image; the other
    arrays index into it. Body arrays are P x S (positions x samples, ``body_ok`` marks the
    real ones); outline arrays P x A; under arrays P x U."""

    pixels: np.ndarray
    body: np.ndarray
    body_ok: np.ndarray
    normals: np.ndarray
    facing: np.ndarray
    hidden: np.ndarray
    beyond: np.ndarray
    inner: np.ndarray
    outer: np.ndarray
    outline_hidden: np.ndarray
    under: np.ndarray
    under_ok: np.ndarray
    under_hidden: np.ndarray
    #: how loosely the markers pin each position's image down: the pose's spread there
    #: (:meth:`Pose.spread`, one standard deviation) over the ball's radius in pixels
    loose: np.ndarray
    #: each position's ball radius in pixels
    radius_px: np.ndarray
    #: per position above the base, the lower positions whose ball would be seen right behind
    #: its ball (image centres less than a radius apart, farther from the camera)
    behind: tuple[tuple[int, ...], ...]
    #: ... of those, the ones whose image centre lies within :data:`ALIGNED` of its radius of
    #: its own: a ball there and the one behind differ in size only
    aligned: tuple[tuple[int, ...], ...]
    #: body samples (P x S x P) of positions above the base: the lower spheres the view would
    #: meet through the sample's point if the position were empty
    through: np.ndarray
    #: the ring's samples (:attr:`Layout.ring`) and the spheres that would hide each (R x P)
    ring: np.ndarray
    ring_hidden: np.ndarray
    #: whether a ball at position j could hide any of position i's samples (P x P): only
    #: then does i's measure depend on whether j holds one (vision/recognize_levels.py)
    touches: np.ndarray
    #: ``hidden | beyond``, ``outline_hidden`` and ``under_hidden`` as 0/1 in float32, for
    #: reducing with a matrix product where each position has its own "may be present"
    #: (:func:`vision.recognize_features.blocked`; many times faster than masking)
    body_by: np.ndarray
    outline_by: np.ndarray
    under_by: np.ndarray

    @classmethod
    def of(cls, layout: Layout, pose: Pose) -> Geometry:
        eye = pose.centre
        n = len(layout.names)
        r = layout.radius
        big = r * INFLATE
        points: list[np.ndarray] = []

        def add(p: np.ndarray) -> np.ndarray:
            start = sum(len(q) for q in points)
            points.append(p)
            return np.arange(start, start + len(p))

        views = _towards(layout.centres, eye)
        facing = UNIT @ views.T > MIN_FACING  # S_all x P
        width = max(int(facing.sum(axis=0).max()), 1)
        body = np.zeros((n, width), dtype=np.intp)
        body_ok = np.zeros((n, width), dtype=bool)
        normals = np.zeros((n, width, 3))
        face = np.zeros((n, width))
        hidden = np.zeros((n, width, n), dtype=bool)
        beyond = np.zeros((n, width, n), dtype=bool)
        through = np.zeros((n, width, n), dtype=bool)
        for i in range(n):
            unit = UNIT[facing[:, i]]
            pts = layout.centres[i] + r * unit
            keep = pts[:, 2] > 1.0
            unit, pts = unit[keep], pts[keep]
            k = len(pts)
            body[i, :k] = add(pts)
            body_ok[i, :k] = True
            normals[i, :k] = unit
            face[i, :k] = unit @ views[i]
            to_eye = _towards(pts, eye)
            hidden[i, :k] = sphere_hits(pts + to_eye * 1e-3, to_eye, layout.centres, big)
            beyond[i, :k] = sphere_hits(pts - to_eye * 1e-3, -to_eye, layout.centres, big)
            hidden[i, :, i] = False
            beyond[i, :, i] = False
            through[i] = beyond[i] & (layout.levels < layout.levels[i])
            beyond[i][:, layout.levels != layout.levels[i]] = False
        inner, outer, outline_hidden = cls._outlines(layout, eye, add)
        under, under_ok, under_hidden = cls._under(layout, eye, add)
        to_eye = _towards(layout.ring, eye)
        ring_hidden = sphere_hits(layout.ring + to_eye * 1e-3, to_eye, layout.centres, big)
        ring = add(layout.ring)
        allpts = np.concatenate(points)
        pixels = pose.pixels(allpts)
        depth = np.maximum(pose.to_camera(layout.centres)[:, 2], 1e-6)
        radius_px = pose.focal * r / depth
        loose = pose.spread(layout.centres) / radius_px
        touches = hidden.any(axis=1) | beyond.any(axis=1) | outline_hidden.any(axis=1) | under_hidden.any(axis=1)
        return cls(pixels, body, body_ok, normals, face, hidden, beyond, inner, outer, outline_hidden,
                   under, under_ok, under_hidden, loose, radius_px, *cls._behind(layout, pose, depth, radius_px),
                   through, ring, ring_hidden, touches, (hidden | beyond).astype(np.float32),
                   outline_hidden.astype(np.float32), under_hidden.astype(np.float32))

    @staticmethod
    def _behind(layout: Layout, pose: Pose, depth: np.ndarray,
                radius: np.ndarray) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """:attr:`behind` and :attr:`aligned` (``radius``: each ball's in pixels)."""
        centres = pose.project(layout.centres)
        apart = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)) / radius[:, None]
        lower = (layout.levels[None, :] < layout.levels[:, None]) & (depth[None, :] > depth[:, None])
        return tuple(tuple(tuple(int(j) for j in np.flatnonzero(lower[i] & (apart[i] < limit)))
                           for i in range(len(layout.names))) for limit in (1.0, ALIGNED))

    @staticmethod
    def _outlines(layout: Layout, eye: np.ndarray, add) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n, r = len(layout.names), layout.radius
        a_count = len(ANGLES)
        inner = np.zeros((n, a_count), dtype=np.intp)
        outer = np.zeros((n, a_count), dtype=np.intp)
        hid = np.zeros((n, a_count, n), dtype=bool)
        for i, c in enumerate(layout.centres):
            w = eye - c
            d = float(np.linalg.norm(w))
            w /= d
            a = np.cross(w, (1.0, 0.0, 0.0) if abs(w[0]) < 0.9 else (0.0, 1.0, 0.0))
            a /= np.linalg.norm(a)
            b = np.cross(w, a)
            centre = c + (r * r / d) * w
            rad = r * math.sqrt(max(1 - r * r / (d * d), 0.0))
            ring = np.cos(ANGLES)[:, None] * a + np.sin(ANGLES)[:, None] * b
            pin, pout = centre + 0.8 * rad * ring, centre + 1.25 * rad * ring
            inner[i], outer[i] = add(pin), add(pout)
            for pts in (pin, pout):
                to_eye = _towards(pts, eye)
                hid[i] |= sphere_hits(pts + to_eye * 1e-3, to_eye, layout.centres, r * INFLATE)
            hid[i, :, i] = False
        return inner, outer, hid

    @staticmethod
    def _under(layout: Layout, eye: np.ndarray, add) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n, r = len(layout.names), layout.radius
        radii = (layout.rim + 0.8, layout.rim + 2.2)
        u_count = len(radii) * len(ANGLES)
        under = np.zeros((n, u_count), dtype=np.intp)
        ok = np.zeros((n, u_count), dtype=bool)
        hid = np.zeros((n, u_count, n), dtype=bool)
        for i, c in enumerate(layout.centres):
            if layout.levels[i] != 1:
                continue
            pts = np.array([(c[0] + q * math.cos(t), c[1] + q * math.sin(t), 0.0) for q in radii for t in ANGLES])
            to_eye = _towards(pts, eye)
            start = pts + to_eye * 1e-3
            own = sphere_hits(start, to_eye, c[None, :], r)[:, 0]
            under[i] = add(pts)
            ok[i] = own
            hid[i] = sphere_hits(start, to_eye, layout.centres, r * INFLATE)
            hid[i, :, i] = False
        return under, ok, hid
