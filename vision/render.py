"""The synthetic renderer: camera frames of a reference board, with their ground truth.

One ray per pixel (or per sub-pixel with ``supersample``), cast with NumPy: every solid is
tested only against the rays inside its projected bounding box. The table, the wooden
plate with its base hollows and printed ArUco markers, balls (Lambert + Blinn-Phong),
tiles on control plates and hands are shaded in linear light under one distant light plus
hemispherical ambient light, with cast shadows (a ray towards the light, blocked by any
solid; several over the disc of a light with a size, for soft edges), light bounced up
from the plate if asked, and soft contact darkening under balls. Then the camera: optical
blur, sRGB encoding, Gaussian sensor noise, and optionally a JPEG round trip.

Used by the tests, the benchmarks and the ``sim:`` source. Deterministic: the only random
draws (sensor noise) come from the ``rng`` passed in, and the wood grain from ``wood_seed``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import cv2
import numpy as np

from .geometry import Board
from .render_camera import PLATE_THICKNESS, Camera, as_generator, random_camera, sees_board
from .render_hand import Hand, random_hand
from .render_light import Lighting, random_lighting
from .render_scene import (FIRST_SOLID, MISS, PLATE_SIDE, PLATE_TOP, TABLE, WOOD_FINISH, Material, Placed, Scene,
                           Solid, build_scene)
from .render_kept import by_pixel, gloss_of, points_of, stage_points
from .render_shapes import Box, Sphere, dot, plane_axes
from .render_surface import ball_grain, marker_albedo, sample_wood, table_shade, to_linear, to_srgb, wood_texture

__all__ = ["Camera", "Frame", "Hand", "Lighting", "PositionTruth", "Stage", "random_camera", "random_hand",
           "random_lighting", "render", "sees_board", "TABLE_COLOUR"]

RGB = tuple[int, int, int]
#: a plain grey-blue table, clearly not wood
TABLE_COLOUR: RGB = (84, 92, 104)
#: what a ray that hits nothing sees (the room beyond the table)
BACKGROUND: RGB = (40, 40, 42)
#: how much nearer than a position's surface another surface must be to hide it (mm)
HIDE_TOLERANCE = 0.5


@dataclass(frozen=True, slots=True)
class PositionTruth:
    """What the camera sees of one position (a ball's sphere, a tile's top face, drawn
    whether or not a piece is there). ``in_view``: some of it lies inside the image;
    ``area``: the pixels where it would be seen without hands (pieces in front of it hide
    the rest); ``covered``: the fraction of that area a hand hides; ``hand``: whether a hand
    hides any of it."""

    in_view: bool
    area: float
    covered: float
    hand: bool


@dataclass(frozen=True, eq=False)
class Frame:
    """A rendered frame: ``image`` (H x W x 3 uint8, BGR as OpenCV), ``hand_mask`` (H x W
    bool, the pixels showing a hand), ``truth`` by position name, the camera, and the JPEG
    bytes when the frame went through JPEG."""

    image: np.ndarray
    hand_mask: np.ndarray
    truth: Mapping[str, PositionTruth]
    camera: Camera
    jpeg: bytes | None = None


@dataclass(slots=True)
class _Buffers:
    """Per-pixel results of the ray cast: distance, normal, object id."""

    t: np.ndarray
    n: np.ndarray
    id: np.ndarray

    @classmethod
    def empty(cls, h: int, w: int) -> _Buffers:
        return cls(np.full((h, w), np.inf), np.zeros((h, w, 3)), np.zeros((h, w), dtype=np.int32))

    def copy(self) -> _Buffers:
        return _Buffers(self.t.copy(), self.n.copy(), self.id.copy())


def _screen_box(cam: Camera, lo: np.ndarray, hi: np.ndarray, pad: int = 2) -> tuple[slice, slice] | None:
    """The image rows and columns a world box can cover (all of them when part of the box
    is behind the camera); None when it is entirely outside the image."""
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    c = cam.to_camera(corners)
    if (c[:, 2] <= 1.0).any():
        if (c[:, 2] <= 1.0).all():
            return None
        return slice(0, cam.height), slice(0, cam.width)
    u = cam.fx * c[:, 0] / c[:, 2] + cam.cx
    v = cam.fy * c[:, 1] / c[:, 2] + cam.cy
    u0, u1 = max(0, int(math.floor(u.min())) - pad), min(cam.width, int(math.ceil(u.max())) + pad + 1)
    v0, v1 = max(0, int(math.floor(v.min())) - pad), min(cam.height, int(math.ceil(v.max())) + pad + 1)
    if u0 >= u1 or v0 >= v1:
        return None
    return slice(v0, v1), slice(u0, u1)


def _draw(cam: Camera, origin: np.ndarray, rays: np.ndarray, buf: _Buffers, solid: Solid, oid: int) -> None:
    """Ray-cast one solid into the buffers where it is nearer than what is there."""
    sl = _screen_box(cam, *solid.extent())
    if sl is None:
        return
    t, n = solid.hit(origin, rays[sl])
    nearer = t < buf.t[sl]
    if nearer.any():
        buf.t[sl][nearer] = t[nearer]
        buf.n[sl][nearer] = n[nearer]  # type: ignore[index]
        buf.id[sl][nearer] = oid


def _surfaces(board: Board, cam: Camera, origin: np.ndarray, rays: np.ndarray) -> _Buffers:
    """The table (a plane PLATE_THICKNESS below the plate's top) and the plate (a box)."""
    buf = _Buffers.empty(cam.height, cam.width)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_table = (-PLATE_THICKNESS - origin[2]) / rays[..., 2]
    down = rays[..., 2] < -1e-9
    buf.t[down] = t_table[down]
    buf.n[down] = (0.0, 0.0, 1.0)
    buf.id[down] = TABLE
    w, d = board.plate[0] / 2, board.plate[1] / 2
    plate = Box((-w, -d, -PLATE_THICKNESS), (w, d, 0.0))
    sl = _screen_box(cam, *plate.extent())
    if sl is not None:
        t, n = plate.hit(origin, rays[sl])
        nearer = t < buf.t[sl]
        buf.t[sl][nearer] = t[nearer]
        buf.n[sl][nearer] = n[nearer]  # type: ignore[index]
        buf.id[sl][nearer] = np.where(n[nearer][:, 2] > 0.5, PLATE_TOP, PLATE_SIDE)  # type: ignore[index]
    return buf


@dataclass(frozen=True, eq=False)
class Stage:
    """What one camera sees of a board with nothing on it: the ray through every pixel (or
    sub-pixel) and where it meets the table, the plate and the base hollows. Frames from one
    camera (a game rendered frame by frame) can share it: made once, it saves about a quarter
    of each frame's rendering, and the frames are the same as without it. It also keeps what
    the shading of the empty board needs and no piece or hand changes (:meth:`kept`): the
    wood, markers and table under the camera, and the highlights' shape."""

    board: Board
    camera: Camera
    supersample: int
    #: the camera the rays are cast from: ``camera`` scaled by ``supersample``
    view: Camera
    rays: np.ndarray
    buffers: _Buffers
    dent: np.ndarray
    _kept: dict = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def of(cls, board: Board, camera: Camera, supersample: int = 1) -> Stage:
        if supersample < 1:
            raise ValueError("supersample must be at least 1")
        view, rays, buf, dent = _empty_board(board, camera, supersample, build_scene(board, {}, ()))
        for a in (rays, buf.t, buf.n, buf.id, dent):
            a.flags.writeable = False
        return cls(board, camera, supersample, view, rays, buf, dent)

    def fits(self, board: Board, camera: Camera, supersample: int) -> bool:
        return self.board is board and self.camera is camera and self.supersample == supersample

    def kept(self, key: tuple, make: Callable[[], tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
        """``make()``'s arrays, made once per ``key`` (read-only). The :data:`KEPT` keys used
        last are kept, so a stage shared by renders in other looks (wood, table, light) does
        not grow without end."""
        found = self._kept.pop(key, None)
        if found is None:
            found = make()
            for a in found:
                a.flags.writeable = False
            if len(self._kept) >= KEPT:
                self._kept.pop(next(iter(self._kept)))
        self._kept[key] = found
        return found


#: how many sets of arrays a :class:`Stage` keeps (one look, its wood, table colour and a
#: point light, takes four: about 60 MB at 1280x720)
KEPT = 12


def _empty_board(board: Board, camera: Camera, supersample: int, scene: Scene
                 ) -> tuple[Camera, np.ndarray, _Buffers, np.ndarray]:
    """The camera rays are cast from, its rays, and the table, plate and hollows (those of
    ``scene``, which are the board's whatever it holds) they meet."""
    view = camera.scaled(supersample) if supersample > 1 else camera
    rays = view.rays()
    buf = _surfaces(board, view, view.centre, rays)
    return view, rays, buf, _hollows(scene, view, view.centre, rays, buf)


def _hollows(scene: Scene, cam: Camera, origin: np.ndarray, rays: np.ndarray, buf: _Buffers) -> np.ndarray:
    """Carve the base hollows into the plate's top: a ray through a hollow's rim meets the
    dent's spherical floor. Returns each pixel's hollow index (-1: none)."""
    dent = np.full(buf.t.shape, -1, dtype=np.int16)
    for k, h in enumerate(scene.hollows):
        sl = _screen_box(cam, np.array([h.x - h.rim, h.y - h.rim, -h.depth]), np.array([h.x + h.rim, h.y + h.rim, 0.0]))
        if sl is None:
            continue
        t = buf.t[sl]
        top = buf.id[sl] == PLATE_TOP
        d = rays[sl]
        px = origin[0] + t * d[..., 0]
        py = origin[1] + t * d[..., 1]
        inside = top & ((px - h.x) ** 2 + (py - h.y) ** 2 < h.rim ** 2)
        if not inside.any():
            continue
        s = np.asarray(h.sphere_centre)
        oc = origin - s
        di = d[inside]
        b = dot(oc, di)
        disc = b * b - (float(oc @ oc) - h.sphere_radius ** 2)
        far = -b + np.sqrt(np.maximum(disc, 0.0))
        t[inside] = far
        buf.n[sl][inside] = (s - (origin + far[:, None] * di)) / h.sphere_radius
        dent[sl][inside] = k
    return dent


def _shadows(scene: Scene, cam: Camera, board: Board, points: np.ndarray, buf: _Buffers,
             dent: np.ndarray, light: np.ndarray, stage: Stage | None = None) -> np.ndarray:
    """1 where the light reaches a surface, 0 where the surface faces away or a solid (or
    the rim of its own hollow, or the plate's edge for the table) stands in the way."""
    e1, e2 = plane_axes(light)
    hollows = scene.hollows

    def facing(points: np.ndarray, n: np.ndarray, ids: np.ndarray, dent: np.ndarray) -> tuple[np.ndarray, ...]:
        """Which pixels face the light and are not in their hollow's shade; and every
        point seen along the light, on a plane across it (a solid can shade only the points
        inside its bounding circle there, on the side away from the light)."""
        lit = (ids != MISS) & (dot(n, light) > 0)
        in_dent = lit & (dent >= 0)
        if in_dent.any():  # a light ray leaving a dent below the surface goes through the plate
            which = dent[in_dent]
            centres = np.array([h.sphere_centre for h in hollows])[which]
            radii = np.array([h.sphere_radius for h in hollows])[which]
            p = points[in_dent]
            oc = p - centres
            b = dot(oc, light)
            exit_t = -b + np.sqrt(np.maximum(b * b - (dot(oc, oc) - radii ** 2), 0.0))
            lit[in_dent] = p[:, 2] + exit_t * light[2] >= -1e-6
        across = np.stack([dot(points, e1), dot(points, e2)], axis=-1).astype(np.float32)
        return lit, across, dot(points, light).astype(np.float32)

    lit, across, along = by_pixel(facing, ("facing", tuple(light.tolist())), stage, buf, (points, buf.n, buf.id, dent),
                                  lambda: (stage_points(stage), stage.buffers.n, stage.buffers.id, stage.dent))
    occluders: list[tuple[int, Solid]] = [(FIRST_SOLID + i, s) for i, s in enumerate(scene.solids)]
    w, d = board.plate[0] / 2, board.plate[1] / 2
    occluders.append((PLATE_TOP, Box((-w, -d, -PLATE_THICKNESS), (w, d, 0.0))))
    reach = 1.0 / max(light[2], 0.05)
    for oid, solid in occluders:
        lo, hi = solid.extent()
        far = (hi[2] + PLATE_THICKNESS) * reach
        sl = _screen_box(cam, np.minimum(lo, lo - light * far), np.maximum(hi, hi - light * far))
        if sl is None:
            continue
        centre, radius = (lo + hi) / 2, float(np.linalg.norm(hi - lo)) / 2
        offset = across[sl] - np.array([centre @ e1, centre @ e2], dtype=np.float32)
        ids = buf.id[sl]
        cand = (lit[sl] & (dot2(offset) < radius * radius) & (along[sl] < float(centre @ light) + radius)
                & (ids != oid))
        if oid == PLATE_TOP:
            cand &= ids == TABLE
        if not cand.any():
            continue
        start = points[sl][cand] + buf.n[sl][cand] * 0.01
        t, _ = solid.hit(start, light, normals=False)
        blocked = np.zeros(cand.shape, dtype=bool)
        blocked[cand] = np.isfinite(t)
        lit[sl][blocked] = False
    return lit.astype(np.float32)


def dot2(v: np.ndarray) -> np.ndarray:
    """Squared length of 2-vectors (arrays ending in 2)."""
    return v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1]


def _contact(scene: Scene, cam: Camera, points: np.ndarray, buf: _Buffers) -> np.ndarray:
    """Ambient occlusion near balls (the dark ring where a ball meets the plate or another
    ball): each sphere's solid angle as seen from the surface, within three radii."""
    occ = np.zeros(buf.t.shape, dtype=np.float32)
    for i, s in enumerate(scene.solids[:scene.hands[0] - FIRST_SOLID]):
        if not isinstance(s, Sphere):
            continue
        c, r = np.asarray(s.centre), s.radius
        lo, hi = c - 3 * r, c + np.array([3 * r, 3 * r, r])
        sl = _screen_box(cam, lo, hi)
        if sl is None:
            continue
        v = c - points[sl]
        dist2 = dot(v, v)
        with np.errstate(invalid="ignore", divide="ignore"):
            facing = np.clip(dot(buf.n[sl], v) / np.sqrt(dist2), 0.0, 1.0)
            o = np.nan_to_num(r * r / dist2 * facing) * (buf.id[sl] != FIRST_SOLID + i)
        occ[sl] += o.astype(np.float32)
    return np.clip(1.0 - occ, 0.15, 1.0)


def _albedo(board: Board, scene: Scene, buf: _Buffers, points: np.ndarray, table_colour: RGB, wood_seed: int,
            footprint: float, grain: float = 0.0, stage: Stage | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...] | None]:
    """Per-pixel albedo (linear), specular strength and shininess, and with a ``stage`` the
    empty board's three (:func:`_surface_albedo`): kept by the stage once per look, so only
    the pieces' and hands' pixels are filled in."""
    plate = to_linear(board.plate_colour)
    fixed = (Material((0.0, 0.0, 0.0), 0.0, 1.0), Material(tuple(to_linear(table_colour).tolist()), 0.03, 8.0),
             Material(tuple(plate.tolist()), *WOOD_FINISH), Material(tuple((plate * 0.72).tolist()), *WOOD_FINISH))
    alb_t, ks_t, sh_t = scene.albedo_table(fixed)  # type: ignore[arg-type]
    base = None
    if stage is None:
        albedo, ks, shin = _surface_albedo(board, (alb_t, ks_t, sh_t), buf, points, wood_seed, footprint)
    else:
        empty = stage.buffers
        base = stage.kept(("albedo", tuple(table_colour), wood_seed, footprint), lambda: _surface_albedo(
            board, (alb_t, ks_t, sh_t), empty, stage_points(stage), wood_seed, footprint))
        albedo, ks, shin = (a.copy() for a in base)
        on = buf.id >= FIRST_SOLID
        ids = buf.id[on]
        albedo[on], ks[on], shin[on] = alb_t[ids], ks_t[ids], sh_t[ids]
    if grain > 0:
        for i, (solid, material) in enumerate(zip(scene.solids, scene.materials)):
            on = buf.id == FIRST_SOLID + i
            if material.grain > 0 and isinstance(solid, Sphere) and on.any():
                rel = points[on] - np.asarray(solid.centre)
                albedo[on] *= ball_grain(rel, (wood_seed, i), grain * material.grain, footprint).astype(np.float32)
    return albedo, ks, shin, base


def _surface_albedo(board: Board, tables: tuple[np.ndarray, np.ndarray, np.ndarray], buf: _Buffers,
                    points: np.ndarray, wood_seed: int, footprint: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Albedo, specular strength and shininess by id (``tables``), with the plate's wood and
    printed markers and the table's mottling: pixel by pixel, so the empty board's are
    those of every frame wherever no piece or hand is."""
    alb_t, ks_t, sh_t = tables
    albedo, ks, shin = alb_t[buf.id], ks_t[buf.id], sh_t[buf.id]
    top = buf.id == PLATE_TOP
    if top.any():
        on_top = points[top]
        x, y = on_top[:, 0], on_top[:, 1]
        wood = sample_wood(wood_texture(board, wood_seed, footprint), board, x, y)
        printed, colour = marker_albedo(board, x, y)
        albedo[top] = np.where(printed[:, None], colour, wood)
        ks_top = ks[top]
        ks_top[printed] = 0.01  # matte print
        ks[top] = ks_top
    table = buf.id == TABLE
    if table.any():
        on_table = points[table]
        albedo[table] *= table_shade(on_table[:, 0], on_table[:, 1], wood_seed)[:, None]
    return albedo, ks, shin


def _shade(board: Board, scene: Scene, cam: Camera, origin: np.ndarray, rays: np.ndarray, buf: _Buffers,
           dent: np.ndarray, lighting: Lighting, table_colour: RGB, wood_seed: int, grain: float = 0.0,
           stage: Stage | None = None) -> np.ndarray:
    """Linear RGB radiance of every pixel; with ``stage`` (whose rays are ``rays``), what
    the empty board's shading needs is the stage's, worked out once."""
    points = points_of(origin, rays, buf, stage)
    light = np.asarray(lighting.direction)
    # the size of a pixel at the plate's centre: how much to soften the grain (a property
    # of the view alone, so a hand or a piece never changes the wood elsewhere)
    footprint = max(float(cam.to_camera([(0.0, 0.0, 0.0)])[0, 2]), 1.0) / cam.fx
    albedo, ks, shin, empty = _albedo(board, scene, buf, points, table_colour, wood_seed, footprint, grain, stage)
    n = buf.n.astype(np.float32)
    # a light with a size: shading and shadows averaged over points of its disc
    ndotl = np.zeros(buf.t.shape, dtype=np.float32)
    reached = np.zeros(buf.t.shape, dtype=np.float32)
    towards = lighting.directions()
    for d in towards:
        # a light with a size has a dozen directions: too many to keep what each sees
        lit = _shadows(scene, cam, board, points, buf, dent, d, stage if len(towards) == 1 else None)
        ndotl += np.clip(dot(n, d.astype(np.float32)), 0.0, None) * lit
        reached += lit
    if len(towards) > 1:
        ndotl /= len(towards)
        reached /= len(towards)
    spec = np.zeros_like(ndotl)
    shiny = (ndotl > 0) & (ks > 0)
    with np.errstate(under="ignore"):
        if empty is None:  # no stage
            gloss = gloss_of(n[shiny], rays[shiny], shin[shiny], light)
        else:  # the empty board's is kept: only the pieces' and hands' pixels are worked out
            look = ("gloss", tuple(table_colour), wood_seed, footprint, tuple(light.tolist()))
            gloss = by_pixel(lambda *a: (gloss_of(*a, light),), look, stage, buf, (n, rays, shin),
                             lambda: (stage.buffers.n.astype(np.float32), stage.rays, empty[2]))[0][shiny]
        spec[shiny] = ks[shiny] * reached[shiny] * gloss
    # sky light from above: surfaces facing down get less; hollows and ball contacts less still
    ambient = lighting.ambient * (0.55 + 0.45 * n[..., 2]) * _contact(scene, cam, points, buf)
    in_dent = dent >= 0
    if in_dent.any():
        depth = np.clip(-points[in_dent][:, 2] / max(h.depth for h in scene.hollows), 0.0, 1.0)
        ambient[in_dent] *= 1.0 - 0.5 * depth
    colour = np.asarray(lighting.colour, dtype=np.float32)
    sky = 0.5 * colour + 0.5
    direct = lighting.intensity * colour
    radiance = albedo * (ambient[..., None] * sky + ndotl[..., None] * direct) + spec[..., None] * direct
    if lighting.bounce > 0:  # the lit plate below lights the pieces' undersides in its colour
        floor = to_linear(board.plate_colour) * (lighting.intensity * max(float(light[2]), 0.0) * colour
                                                 + lighting.ambient * sky)
        below = np.clip((1.0 - n[..., 2]) / 2.0, 0.0, 1.0) * (buf.id >= FIRST_SOLID)
        radiance += lighting.bounce * albedo * below[..., None] * floor.astype(np.float32)
    radiance[buf.id == MISS] = to_linear(BACKGROUND)
    return radiance.astype(np.float32)


def _truth(scene: Scene, cam: Camera, origin: np.ndarray, rays: np.ndarray, t_scene: np.ndarray,
           hand: np.ndarray, scale: float) -> dict[str, PositionTruth]:
    """Each position's truth from the scene's depth without hands (``t_scene``) and the
    hand mask, in output pixels (``scale``: sub-pixels per pixel)."""
    out = {}
    for name, proxy in scene.proxies:
        sl = _screen_box(cam, *proxy.extent())
        if sl is None:
            out[name] = PositionTruth(False, 0.0, 0.0, False)
            continue
        t, _ = proxy.hit(origin, rays[sl], normals=False)
        seen = np.isfinite(t)
        visible = seen & (t_scene[sl] >= t - HIDE_TOLERANCE)
        area = int(visible.sum())
        covered = int((visible & hand[sl]).sum())
        out[name] = PositionTruth(bool(seen.any()), area / scale, covered / area if area else 0.0, covered > 0)
    return out


def _camera_effects(radiance: np.ndarray, *, blur: float, noise: float, rng: np.random.Generator | None,
                    jpeg_quality: int | None) -> tuple[np.ndarray, bytes | None]:
    """Optics, sensor and encoder: blur in linear light, sRGB, noise, 8 bits, JPEG."""
    if blur > 0:
        radiance = cv2.GaussianBlur(radiance, (0, 0), blur)
    srgb = to_srgb(radiance)
    if noise > 0:
        assert rng is not None
        srgb = srgb + rng.standard_normal(srgb.shape, dtype=np.float32) * np.float32(noise)
    image = np.ascontiguousarray(np.clip(np.rint(srgb), 0, 255).astype(np.uint8)[..., ::-1])
    if jpeg_quality is None:
        return image, None
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    jpeg = data.tobytes()
    return cv2.imdecode(data, cv2.IMREAD_COLOR), jpeg


#: instants of an exposure a moving hand is drawn at (odd: the middle one is where it is)
EXPOSURE_STEPS = 7


def render(board: Board, cells: Mapping[str, str], camera: Camera, *, lighting: Lighting = Lighting(),
           hands: Sequence[Hand] = (), rng: random.Random | np.random.Generator | None = None,
           noise: float = 0.0, blur: float = 0.0, jpeg_quality: int | None = None,
           table_colour: RGB = TABLE_COLOUR, supersample: int = 1, wood_seed: int = 0,
           ball_grain: float = 0.0, hand_travel: Sequence[float] | None = None,
           placed: Mapping[str, Placed] | None = None, stage: Stage | None = None) -> Frame:
    """A camera frame of ``board`` holding ``cells`` (position name to the referee's cell
    code: a ball letter or ``.``; for grids tile colour then controller, ``..`` or ``--``
    for an empty cell; missing positions are empty), seen by ``camera`` under ``lighting``
    with ``hands`` over it.

    ``noise``: the sensor noise's standard deviation in 8-bit levels (needs ``rng``);
    ``blur``: a Gaussian blur's sigma in pixels; ``jpeg_quality``: a JPEG round trip at this
    quality (1-100); ``supersample``: rays per pixel along each axis (anti-aliasing, at
    its square in time); ``wood_seed``: which plank of wood the plate is made of (and
    which logs the wooden balls were turned from); ``ball_grain``: how strongly wooden
    balls show their grain (0, the default, not at all; 1 as strongly as the plate);
    ``hand_travel``: how far (x, y, z in mm) the hands move while the shutter is open,
    centred on where they are: motion blur, :data:`EXPOSURE_STEPS` instants averaged in
    linear light (the hand mask is every pixel a hand crosses; the truth is the middle
    instant's); ``placed``: where a grid's tiles and control plates lie in their cells
    (:func:`vision.render_scene.hand_placed`: off true, as put down by hand; true without it);
    ``stage``: this board, camera and supersampling's :class:`Stage`, to render several
    frames from one camera faster."""
    if noise < 0 or blur < 0:
        raise ValueError("noise and blur must be at least 0")
    if noise > 0 and rng is None:
        raise ValueError("sensor noise needs an rng (random.Random or numpy Generator)")
    if jpeg_quality is not None and not 1 <= jpeg_quality <= 100:
        raise ValueError(f"jpeg_quality must be 1 to 100, got {jpeg_quality}")
    if supersample < 1:
        raise ValueError("supersample must be at least 1")
    if ball_grain < 0:
        raise ValueError(f"ball_grain must be at least 0, got {ball_grain}")
    if hand_travel is not None and len(hand_travel) != 3:
        raise ValueError(f"hand_travel is a movement (x, y, z) in mm, got {hand_travel!r}")
    if stage is not None and not stage.fits(board, camera, supersample):
        raise ValueError("the stage was made for another board, camera or supersampling")
    gen = as_generator(rng) if rng is not None else None
    shade = dict(lighting=lighting, table_colour=table_colour, wood_seed=wood_seed, grain=ball_grain, stage=stage)
    if hand_travel is None or not hands:
        scene = build_scene(board, cells, hands, placed)
        drawn = _drawn_board(board, scene, camera, supersample, stage)
        radiance, hand, truth = _exposure(board, scene, camera, supersample, drawn, shade)
    else:
        # the board's pieces stand still: drawn once, each instant draws its hands on a copy
        stage = stage or Stage.of(board, camera, supersample)
        shade["stage"] = stage
        cam, rays, still, still_dent = _drawn_board(board, build_scene(board, cells, (), placed), camera,
                                                    supersample, stage)
        step = np.asarray(hand_travel, dtype=np.float64)
        total, hand, truth = None, None, {}
        for k in range(EXPOSURE_STEPS):
            shift = step * (k / (EXPOSURE_STEPS - 1) - 0.5)
            scene = build_scene(board, cells, [h.moved(shift) for h in hands], placed)
            middle = k == EXPOSURE_STEPS // 2
            r, m, t = _exposure(board, scene, camera, supersample, (cam, rays, still.copy(), still_dent.copy()),
                                shade, truth=middle)
            total = r if total is None else total + r
            hand = m if hand is None else hand | m
            if middle:
                truth = t
        radiance = total / EXPOSURE_STEPS
    image, jpeg = _camera_effects(radiance, blur=blur, noise=noise, rng=gen, jpeg_quality=jpeg_quality)
    return Frame(image, hand, truth, camera, jpeg)


def _drawn_board(board: Board, scene: Scene, camera: Camera, supersample: int, stage: Stage | None
                 ) -> tuple[Camera, np.ndarray, _Buffers, np.ndarray]:
    """The camera the rays are cast from, its rays, and the buffers and hollow map of the
    board with ``scene``'s pieces drawn (not its hands): on a copy of ``stage``'s empty board,
    or on one made for this frame alone."""
    if stage is None:
        cam, rays, buf, dent = _empty_board(board, camera, supersample, scene)
    else:
        cam, rays, buf, dent = stage.view, stage.rays, stage.buffers.copy(), stage.dent.copy()
    origin = cam.centre
    for i, solid in enumerate(scene.solids[:scene.hands[0] - FIRST_SOLID]):
        _draw(cam, origin, rays, buf, solid, FIRST_SOLID + i)
    return cam, rays, buf, dent


def _exposure(board: Board, scene: Scene, camera: Camera, supersample: int,
              drawn: tuple[Camera, np.ndarray, _Buffers, np.ndarray], shade: dict, truth: bool = True
              ) -> tuple[np.ndarray, np.ndarray, dict[str, PositionTruth]]:
    """One instant's linear radiance (at the camera's size), hand mask and truth (empty
    unless ``truth``): ``scene``'s hands drawn on ``drawn`` (:func:`_drawn_board`, with
    the same pieces), in place."""
    cam, rays, buf, dent = drawn
    origin = cam.centre
    first_hand, end = scene.hands
    hand = np.zeros(buf.t.shape, dtype=bool)
    t_scene = buf.t
    if end > first_hand:
        hb = _Buffers.empty(cam.height, cam.width)
        for oid in range(first_hand, end):
            _draw(cam, origin, rays, hb, scene.solids[oid - FIRST_SOLID], oid)
        hand = hb.t < buf.t
        t_scene = buf.t.copy()
        buf.t[hand] = hb.t[hand]
        buf.n[hand] = hb.n[hand]
        buf.id[hand] = hb.id[hand]
        dent[hand] = -1
    found = _truth(scene, cam, origin, rays, t_scene, hand, float(supersample ** 2)) if truth else {}
    radiance = _shade(board, scene, cam, origin, rays, buf, dent, **shade)
    if supersample > 1:
        size = (camera.width, camera.height)
        radiance = cv2.resize(radiance, size, interpolation=cv2.INTER_AREA)
        hand = cv2.resize(hand.astype(np.float32), size, interpolation=cv2.INTER_AREA) > 0.5
    return radiance, hand, found
