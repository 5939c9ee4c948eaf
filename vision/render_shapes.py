"""Ray intersections with the renderer's solids, vectorised over many rays at once.

Every ``hit`` takes ray origins ``o`` and unit directions ``d`` (arrays ending in 3; either
may be a single 3-vector, broadcast against the other) and returns the distance ``t`` to
the first surface ahead (``inf`` where the ray misses) and, when asked, the outward unit
normal there. Only hits beyond ``EPS`` count, so a shadow ray leaving a surface does not
hit it again. ``extent`` gives each solid's axis-aligned box, which the renderer projects
to the screen to test only the rays that can hit it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Vec3 = tuple[float, float, float]
EPS = 1e-4
INF = np.inf


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot product of arrays ending in 3 (faster than a reduction over axis -1)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def plane_axes(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors at right angles to the unit vector ``d`` and to each other: the
    axes of a plane across it."""
    e1 = np.cross(d, (1.0, 0.0, 0.0) if abs(d[0]) < 0.9 else (0.0, 1.0, 0.0))
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(d, e1)


def _nearest(t1: np.ndarray, t2: np.ndarray, ok: np.ndarray) -> np.ndarray:
    t = np.where(t1 > EPS, t1, t2)
    return np.where(ok & (t > EPS), t, INF)


def _normalise(v: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return v / np.sqrt(dot(v, v))[..., None]


def _sphere_t(oc: np.ndarray, d: np.ndarray, radius: float) -> np.ndarray:
    """Distance to a sphere of ``radius`` whose centre is at ``-oc`` from the origins."""
    b = dot(oc, d)
    disc = b * b - (dot(oc, oc) - radius * radius)
    s = np.sqrt(np.maximum(disc, 0.0))
    return _nearest(-b - s, -b + s, disc >= 0)


@dataclass(frozen=True, slots=True)
class Sphere:
    centre: Vec3
    radius: float

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        c = np.asarray(self.centre, dtype=np.float64)
        return c - self.radius, c + self.radius

    def hit(self, o: np.ndarray, d: np.ndarray, normals: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        oc = o - np.asarray(self.centre, dtype=np.float64)
        t = _sphere_t(oc, d, self.radius)
        if not normals:
            return t, None
        with np.errstate(invalid="ignore"):
            n = (oc + t[..., None] * d) / self.radius
        return t, n


@dataclass(frozen=True, slots=True)
class Box:
    """A box from corner ``lo`` to corner ``hi``, turned by ``turn`` degrees about the
    vertical through its centre (counter-clockwise seen from above; 0: axis-aligned), as a
    tile put down by hand lies."""

    lo: Vec3
    hi: Vec3
    turn: float = 0.0

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = np.asarray(self.lo, dtype=np.float64), np.asarray(self.hi, dtype=np.float64)
        if not self.turn:
            return lo, hi
        c, s = math.cos(math.radians(self.turn)), math.sin(math.radians(self.turn))
        half = (hi - lo) / 2
        reach = np.array([abs(c) * half[0] + abs(s) * half[1], abs(s) * half[0] + abs(c) * half[1], half[2]])
        return (lo + hi) / 2 - reach, (lo + hi) / 2 + reach

    def hit(self, o: np.ndarray, d: np.ndarray, normals: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        if self.turn:
            return self._hit_turned(o, d, normals)
        lo, hi = np.asarray(self.lo, dtype=np.float64), np.asarray(self.hi, dtype=np.float64)
        safe = np.where(np.abs(d) < 1e-12, 1e-12, d)
        inv = 1.0 / safe
        ta = (lo - o) * inv
        tb = (hi - o) * inv
        tn = np.minimum(ta, tb)
        tf = np.maximum(ta, tb)
        near = np.maximum(np.maximum(tn[..., 0], tn[..., 1]), tn[..., 2])
        far = np.minimum(np.minimum(tf[..., 0], tf[..., 1]), tf[..., 2])
        t = _nearest(near, far, far >= near)
        if not normals:
            return t, None
        axis = np.argmax(tn, axis=-1)
        sign = -np.sign(np.take_along_axis(np.broadcast_to(safe, tn.shape), axis[..., None], -1))
        n = np.zeros(tn.shape)
        np.put_along_axis(n, axis[..., None], sign, -1)
        return t, n

    def _hit_turned(self, o: np.ndarray, d: np.ndarray, normals: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """The rays turned back into the box's own axes, the straight box hit, and the
        normals turned out again."""
        c, s = math.cos(math.radians(self.turn)), math.sin(math.radians(self.turn))
        turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])  # v @ turn turns row vectors back
        centre = (np.asarray(self.lo, dtype=np.float64) + np.asarray(self.hi, dtype=np.float64)) / 2
        straight = Box(self.lo, self.hi)
        t, n = straight.hit((np.asarray(o, dtype=np.float64) - centre) @ turn + centre,
                            np.asarray(d, dtype=np.float64) @ turn, normals)
        return t, (None if n is None else n @ turn.T)


@dataclass(frozen=True, slots=True)
class Capsule:
    """A segment from ``a`` to ``b`` thickened by ``radius``: a finger, a thumb, an arm."""

    a: Vec3
    b: Vec3
    radius: float

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        a, b = np.asarray(self.a, dtype=np.float64), np.asarray(self.b, dtype=np.float64)
        return np.minimum(a, b) - self.radius, np.maximum(a, b) + self.radius

    def hit(self, o: np.ndarray, d: np.ndarray, normals: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        a, b = np.asarray(self.a, dtype=np.float64), np.asarray(self.b, dtype=np.float64)
        r = self.radius
        ba = b - a
        oa = o - a
        baba = float(ba @ ba)
        bard, baoa, rdoa, oaoa = dot(ba, d), dot(ba, oa), dot(d, oa), dot(oa, oa)
        A = baba - bard * bard
        B = baba * rdoa - baoa * bard
        C = baba * oaoa - baoa * baoa - r * r * baba
        h = B * B - A * C
        with np.errstate(invalid="ignore", divide="ignore"):
            t_side = (-B - np.sqrt(np.maximum(h, 0.0))) / A
            y = baoa + t_side * bard
            side = (h >= 0) & (y > 0) & (y < baba) & (t_side > EPS) & (np.abs(A) > 1e-12)
        # the end caps: the nearest hit on either end's sphere (a cap hit behind the side
        # hit is inside the capsule, so the minimum is the entry point)
        t_cap = np.minimum(_sphere_t(oa, d, r), _sphere_t(o - b, d, r))
        t = np.where(side, np.minimum(t_side, t_cap), t_cap)
        if not normals:
            return t, None
        with np.errstate(invalid="ignore"):
            pa = oa + t[..., None] * d
            k = np.clip(dot(pa, ba) / baba, 0.0, 1.0)
            n = (pa - k[..., None] * ba) / r
        return t, n


@dataclass(frozen=True, slots=True)
class Ellipsoid:
    """An ellipsoid: its centre, three orthonormal axes and the radius along each (a palm)."""

    centre: Vec3
    axes: tuple[Vec3, Vec3, Vec3]
    radii: Vec3

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        c = np.asarray(self.centre, dtype=np.float64)
        M = np.asarray(self.axes, dtype=np.float64) * np.asarray(self.radii, dtype=np.float64)[:, None]
        half = np.sqrt((M ** 2).sum(axis=0))
        return c - half, c + half

    def hit(self, o: np.ndarray, d: np.ndarray, normals: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        c = np.asarray(self.centre, dtype=np.float64)
        M = np.asarray(self.axes, dtype=np.float64)
        r = np.asarray(self.radii, dtype=np.float64)
        ol = ((o - c) @ M.T) / r
        dl = (np.broadcast_to(d, np.broadcast_shapes(np.shape(o), np.shape(d))) @ M.T) / r
        qa = dot(dl, dl)
        qb = dot(ol, dl)
        disc = qb * qb - qa * (dot(ol, ol) - 1.0)
        s = np.sqrt(np.maximum(disc, 0.0))
        t = _nearest((-qb - s) / qa, (-qb + s) / qa, disc >= 0)
        if not normals:
            return t, None
        with np.errstate(invalid="ignore"):
            pl = ol + t[..., None] * dl
            n = _normalise((pl / r) @ M)
        return t, n
