"""A second renderer, so that recognition is checked on frames the project's own renderer
(vision/render.py) did not make: the same board, pieces and camera, path traced by Mitsuba
3, a physically based renderer (``pip install 'tabletop-arbiter[pbr]'``; the test extra has
it).

What differs from the project's renderer is what a photograph has and a hand-written shader
need not get right: light bouncing between the pieces and the plate, soft shadows from a
window-sized light, glossy plastic highlights (a microfacet model, not Phong), a lamp's hard
shadows and glare, a tinted sky, the pixel filter's blur, and a camera's exposure, noise and
JPEG applied afterwards. The wood is drawn here too (rings, fine grain), so no texture is
shared. Hands are the project's (vision/render_hand.py: capsules and a palm), in skin with
a sheen; pieces put down off true are not drawn (docs/vision.md, Limits).
"""

from __future__ import annotations

import math
import random
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from .geometry import Board
from .markers import marker_cells
from .render_camera import PLATE_THICKNESS, Camera
from .render_hand import Hand
from .render_surface import to_linear, to_srgb

#: table tops the board may stand on (sRGB): dark and light wood, grey, white, black
TABLES = ((60, 45, 35), (150, 120, 90), (120, 110, 100), (200, 200, 195), (40, 40, 45))


def _mitsuba() -> Any:
    """Mitsuba 3 on its CPU variant, or a clear error saying how to install it."""
    try:
        import mitsuba as mi
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("vision.render_pbr needs Mitsuba 3: pip install 'tabletop-arbiter[pbr]'") from exc
    if mi.variant() != "scalar_rgb":
        mi.set_variant("scalar_rgb")
        mi.set_log_level(mi.LogLevel.Error)
    return mi


@dataclass(frozen=True)
class Room:
    """The light and the table: a tinted sky, a window (a square light of ``window_mm`` a
    side at ``window_at``, facing the board), perhaps a bare lamp (a point light), the
    table's colour, the pixel filter's blur (pixels), and the plate's ``varnish`` (the
    GGX roughness of its top: the less, the more it mirrors the room)."""

    tint: tuple[float, float, float]
    sky: float
    window_at: tuple[float, float, float]
    window_mm: float
    window: float
    lamp_at: tuple[float, float, float] | None
    lamp: float
    table: tuple[int, int, int]
    blur: float
    seed: int
    varnish: float = 0.35

    @classmethod
    def random(cls, rng: random.Random) -> Room:
        """A room drawn from ``rng``: its light's colour, place, size and strength, a lamp
        or none, the table and the blur, and the path tracer's seed."""
        warm = rng.uniform(-1.0, 1.0)  # cool daylight .. warm bulbs
        tint = (1.0 + 0.25 * max(warm, 0.0) - 0.1 * max(-warm, 0.0), 1.0,
                1.0 + 0.3 * max(-warm, 0.0) - 0.25 * max(warm, 0.0))
        az, el, dist = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(35, 80)), rng.uniform(700, 1500)
        window_at = (dist * math.cos(el) * math.cos(az), dist * math.cos(el) * math.sin(az), dist * math.sin(el))
        size = rng.uniform(150, 600)
        lamp_at = None
        if rng.random() < 0.5:
            az2, el2 = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(40, 85))
            lamp_at = (900 * math.cos(el2) * math.cos(az2), 900 * math.cos(el2) * math.sin(az2), 900 * math.sin(el2))
        return cls(tint, rng.uniform(0.15, 0.5), window_at, size, rng.uniform(3, 8) * (800 / size) ** 2, lamp_at,
                   rng.uniform(2e5, 8e5), rng.choice(TABLES), rng.uniform(0.4, 0.7), rng.randrange(1 << 30))

    def with_glare(self, eye: Sequence[float], half_width: float, rng: random.Random) -> Room:
        """This room with its plate varnished (roughness 0.06-0.2) and a bare lamp where
        the plate mirrors it into a camera at ``eye`` (mm): seen from a point drawn within
        0.6 of ``half_width`` of the plate's centre, 700-1100 mm away. A ceiling light
        across the board from the camera does this to a glossy board."""
        aim = np.array([rng.uniform(-0.6, 0.6) * half_width, rng.uniform(-0.6, 0.6) * half_width, 0.0])
        back = np.asarray(eye, dtype=np.float64) - aim
        mirrored = np.array([-back[0], -back[1], back[2]]) / np.linalg.norm(back)
        lamp_at = aim + mirrored * rng.uniform(700, 1100)
        return replace(self, lamp_at=tuple(float(c) for c in lamp_at), lamp=rng.uniform(2e5, 8e5),
                       varnish=rng.uniform(0.06, 0.2))


def _rgb(v: np.ndarray | tuple[float, ...]) -> dict:
    return {"type": "rgb", "value": [float(x) for x in v]}


def _plastic(colour: tuple[int, int, int], alpha: float) -> dict:
    return {"type": "roughplastic", "distribution": "ggx", "alpha": alpha, "int_ior": 1.5,
            "diffuse_reflectance": _rgb(to_linear(colour))}


def _box(mi: Any, lo: tuple[float, ...], hi: tuple[float, ...], bsdf: dict) -> dict:
    T = mi.ScalarTransform4f
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    half = [(b - a) / 2 for a, b in zip(lo, hi)]
    return {"type": "cube", "to_world": T.translate(centre) @ T.scale(half), "bsdf": bsdf}


def wood(colour: tuple[int, int, int], rng: random.Random, size: int = 512) -> np.ndarray:
    """A plank's albedo (linear RGB, size x size): rings that wander across it and fine
    grain along it, about the plate's colour."""
    y = np.linspace(0, 1, size)[:, None]
    x = np.linspace(0, 1, size)[None, :]
    rings = np.sin(2 * math.pi * (y * rng.uniform(18, 40)
                                  + 0.8 * np.sin(2 * math.pi * x * rng.uniform(0.5, 2) + rng.uniform(0, 2 * math.pi))))
    grain = np.random.default_rng(rng.randrange(1 << 30)).normal(0.0, 0.5, (size, 1)).astype(np.float32)
    grain = cv2.GaussianBlur(np.repeat(grain, size, axis=1), (1, 9), 0)
    shade = (1.0 + 0.07 * rings + 0.05 * grain)[..., None]
    redder = np.array([1.0, 0.97, 0.94])[None, None, :] ** rings[..., None]  # dark rings a little redder
    return np.clip(to_linear(colour)[None, None, :] * shade * redder, 0.0, 1.0).astype(np.float32)


def _marker(board: Board, marker_id: int, px: int = 16) -> np.ndarray:
    """A printed marker's albedo (toner black, paper white), its first row at +y."""
    cells = marker_cells(board.dictionary, marker_id)
    img = np.kron(np.where(cells == 1, 0.02, 0.85).astype(np.float32), np.ones((px, px), dtype=np.float32))
    return np.ascontiguousarray(np.repeat(img[::-1, :, None], 3, axis=2))  # Mitsuba's texture v runs up


def _palm(path: Path, centre: np.ndarray, axes: np.ndarray, radii: np.ndarray, steps: int = 24) -> None:
    """An ellipsoid as a mesh in an OBJ file: Mitsuba's spheres take no uneven scale."""
    theta, phi = np.meshgrid(np.linspace(0, math.pi, steps + 1), np.linspace(0, 2 * math.pi, 2 * steps + 1),
                             indexing="ij")
    unit = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], axis=-1).reshape(-1, 3)
    points = centre + (unit * radii) @ axes
    cols = 2 * steps + 1
    lines = [f"v {x:.4f} {y:.4f} {z:.4f}" for x, y, z in points]
    for i in range(steps):
        for j in range(2 * steps):
            a, b, c, d = i * cols + j + 1, i * cols + j + 2, (i + 1) * cols + j + 2, (i + 1) * cols + j + 1
            lines.append(f"f {a} {d} {c} {b}")
    path.write_text("\n".join(lines) + "\n")


def _along(mi: Any, a: tuple[float, ...], b: tuple[float, ...], radius: float) -> Any:
    """The transform taking Mitsuba's unit cylinder (radius 1, z from 0 to 1) to one from
    ``a`` to ``b``: built from an orthonormal frame (its own from p0 and p1 is not quite)."""
    axis = np.subtract(b, a, dtype=np.float64)
    length = float(np.linalg.norm(axis))
    z = axis / length
    x = np.cross(z, (1.0, 0.0, 0.0) if abs(z[0]) < 0.9 else (0.0, 1.0, 0.0))
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = x * radius, y * radius, z * length, a
    return mi.ScalarTransform4f(m.tolist())


def _hands(mi: Any, hands: Sequence[Hand], folder: Path) -> dict[str, dict]:
    """The hands' shapes: a capsule is a cylinder with a sphere at each end."""
    out: dict[str, dict] = {}
    for h, hand in enumerate(hands):
        skin = {"type": "roughplastic", "alpha": 0.4, "int_ior": 1.4,
                "diffuse_reflectance": _rgb(to_linear(hand.colour))}
        for k, c in enumerate(hand.capsules):
            out[f"hand{h} capsule{k}"] = {"type": "cylinder", "to_world": _along(mi, c.a, c.b, c.radius), "bsdf": skin}
            for e, end in enumerate((c.a, c.b)):
                out[f"hand{h} capsule{k} end{e}"] = {"type": "sphere", "center": list(end), "radius": c.radius,
                                                     "bsdf": skin}
        for k, ell in enumerate(hand.ellipsoids):
            path = folder / f"hand{h}-palm{k}.obj"
            _palm(path, np.asarray(ell.centre), np.asarray(ell.axes), np.asarray(ell.radii))
            out[f"hand{h} palm{k}"] = {"type": "obj", "filename": str(path), "bsdf": skin, "face_normals": True}
    return out


def scene_dict(board: Board, cells: Mapping[str, str], camera: Camera, room: Room, spp: int,
               hands: Sequence[Hand] = (), folder: Path | None = None) -> dict:
    """Mitsuba's scene description (millimetres, the board's frame) of these cells, and
    ``hands`` over them (their palms' meshes written into ``folder``)."""
    mi = _mitsuba()
    T = mi.ScalarTransform4f
    rng = random.Random(room.seed)
    eye = -camera.R.T @ camera.t
    fov = math.degrees(2 * math.atan(camera.width / 2 / camera.fx))
    d: dict[str, Any] = {"type": "scene", "integrator": {"type": "path", "max_depth": 5}}
    d["sensor"] = {"type": "perspective", "fov": fov, "fov_axis": "x", "near_clip": 5.0, "far_clip": 20000.0,
                   "to_world": T.look_at(origin=eye.tolist(), target=(eye + camera.R[2]).tolist(),
                                         up=(-camera.R[1]).tolist()),
                   "film": {"type": "hdrfilm", "width": camera.width, "height": camera.height, "pixel_format": "rgb",
                            "rfilter": {"type": "gaussian", "stddev": room.blur}},
                   "sampler": {"type": "independent", "sample_count": spp, "seed": room.seed}}
    tint = np.array(room.tint)
    d["sky"] = {"type": "constant", "radiance": _rgb(tint * room.sky)}
    d["window"] = {"type": "rectangle", "emitter": {"type": "area", "radiance": _rgb(tint * room.window)},
                   "to_world": T.look_at(origin=list(room.window_at), target=[0, 0, 0], up=[0, 0, 1])
                   @ T.scale([room.window_mm / 2, room.window_mm / 2, 1])}
    if room.lamp_at is not None:
        d["lamp"] = {"type": "point", "position": list(room.lamp_at),
                     "intensity": _rgb(np.array([1.0, 0.9, 0.75]) * room.lamp)}
    d["table"] = {"type": "rectangle", "to_world": T.translate([0, 0, -PLATE_THICKNESS]) @ T.scale([3000, 3000, 1]),
                  "bsdf": {"type": "diffuse", "reflectance": _rgb(to_linear(room.table))}}
    w, depth = board.plate
    d["plate"] = _box(mi, (-w / 2, -depth / 2, -PLATE_THICKNESS), (w / 2, depth / 2, -0.01),
                      {"type": "diffuse", "reflectance": _rgb(to_linear(board.plate_colour))})
    d["plate_top"] = {"type": "rectangle", "to_world": T.scale([w / 2, depth / 2, 1]),
                      "bsdf": {"type": "roughplastic", "alpha": room.varnish, "diffuse_reflectance":
                               {"type": "bitmap", "bitmap": mi.Bitmap(wood(board.plate_colour, rng))}}}
    h = board.marker_size / 2
    for m in board.markers:
        x, y = m.centre
        d[f"paper{m.id}"] = {"type": "rectangle", "to_world": T.translate([x, y, 0.05]) @ T.scale([h + 4, h + 4, 1]),
                             "bsdf": {"type": "diffuse", "reflectance": _rgb((0.8, 0.8, 0.8))}}
        d[f"marker{m.id}"] = {"type": "rectangle", "to_world": T.translate([x, y, 0.1]) @ T.scale([h, h, 1]),
                              "bsdf": {"type": "diffuse", "reflectance": {"type": "bitmap", "filter_type": "nearest",
                                                                          "bitmap": mi.Bitmap(_marker(board, m.id))}}}
    colours = board.colours or {}
    for p in board.positions:
        code = cells.get(p.name, "." if board.kind == "pyramid" else "..")
        if board.kind == "pyramid":
            if code != ".":
                d[f"ball {p.name}"] = {"type": "sphere", "center": list(p.centre), "radius": board.ball_diameter / 2,
                                       "bsdf": _plastic(colours[code], rng.uniform(0.08, 0.3))}
            continue
        x, y, _ = p.centre
        top = 0.0
        if code[1] != ".":
            cs = board.control_size / 2
            finish = (_plastic(colours[code[1]], 0.3) if code[1] == "w"
                      else {"type": "diffuse", "reflectance": _rgb(to_linear(colours[code[1]]))})
            d[f"plate {p.name}"] = _box(mi, (x - cs, y - cs, 0.0), (x + cs, y + cs, board.control_thickness), finish)
            top = board.control_thickness
        if code[0] != ".":
            ts = board.tile_size / 2
            d[f"tile {p.name}"] = _box(mi, (x - ts, y - ts, top), (x + ts, y + ts, top + board.tile_thickness),
                                       _plastic(colours[code[0]], rng.uniform(0.1, 0.3)))
    if hands:
        if folder is None:
            raise ValueError("scene_dict: hands need a folder for their palms' meshes")
        d.update(_hands(mi, hands, folder))
    return d


def develop(radiance: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A camera's frame (BGR uint8) of linear radiance: exposed so that the brightest half
    percent is near white (a lamp's glare clips), shot noise and read noise, sRGB, JPEG."""
    lum = radiance @ np.array([0.2126, 0.7152, 0.0722])
    light = np.clip(radiance * (rng.uniform(0.75, 1.0) / max(float(np.percentile(lum, 99.5)), 1e-6)), 0.0, None)
    light = np.clip(light + rng.normal(0.0, 1.0, light.shape) * np.sqrt(light * 0.0004 + 0.00002), 0.0, 1.0)
    bgr = (to_srgb(light)[..., ::-1] + 0.5).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.choice([75, 85, 95]))])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def render_pbr(board: Board, cells: Mapping[str, str], camera: Camera, *, hands: Sequence[Hand] = (),
               room: Room | None = None, spp: int = 16, seed: int = 0) -> np.ndarray:
    """The frame (BGR uint8) of these cells seen by ``camera``, with ``hands`` over the
    board, path traced with ``spp`` samples a pixel; ``room`` drawn from ``seed`` when not
    given. The same arguments give the same frame."""
    mi = _mitsuba()
    room = room if room is not None else Room.random(random.Random(seed))
    with tempfile.TemporaryDirectory(prefix="arbiter-pbr-") as folder:
        scene = mi.load_dict(scene_dict(board, cells, camera, room, spp, hands, Path(folder)))
    radiance = np.array(mi.render(scene), dtype=np.float64)
    return develop(radiance, np.random.default_rng(seed))
