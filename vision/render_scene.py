"""What stands on the rendered board: the solids a board's cells put there (balls; tiles on
control plates), their materials, the base hollows, and for every position the surface
whose visibility the ground truth measures.

Solids get numeric ids (the renderer's per-pixel object buffer); the first ids are the
fixed surfaces (table, plate top, plate sides), then the board's solids, then hand parts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .geometry import Board
from .render_hand import Hand
from .render_shapes import Box, Capsule, Ellipsoid, Sphere
from .render_surface import to_linear

Solid = Sphere | Box | Capsule | Ellipsoid
MISS, TABLE, PLATE_TOP, PLATE_SIDE = 0, 1, 2, 3
FIRST_SOLID = 4
BALL_LETTERS = "LDWBR"
TILE_LETTERS = "RGB"
CONTROL_LETTERS = "bw"


@dataclass(frozen=True, slots=True)
class Material:
    """Linear albedo, Blinn-Phong specular strength and exponent."""

    albedo: tuple[float, float, float]
    specular: float
    shininess: float
    #: how strongly a wooden ball shows its grain when the renderer is asked for it
    grain: float = 0.0


def _material(srgb: Sequence[int], specular: float, shininess: float, grain: float = 0.0) -> Material:
    a = to_linear(tuple(srgb))  # type: ignore[arg-type]
    return Material((float(a[0]), float(a[1]), float(a[2])), specular, shininess, grain)


#: wood balls are satin, Sparks balls lacquered
BALL_FINISH = {"L": (0.10, 20.0), "D": (0.14, 24.0), "W": (0.55, 90.0), "B": (0.55, 90.0), "R": (0.55, 90.0)}
#: wooden balls' grain (a stain darkens the rings with the rest, so they show less)
BALL_GRAIN = {"L": 1.0, "D": 0.6}
TILE_FINISH = (0.30, 45.0)
CONTROL_FINISH = (0.12, 25.0)
SKIN_FINISH = (0.08, 12.0)
WOOD_FINISH = (0.05, 14.0)


@dataclass(frozen=True, slots=True)
class Hollow:
    """A base hollow: a spherical dent of ``rim`` radius and ``depth`` at (x, y)."""

    x: float
    y: float
    rim: float
    depth: float

    @property
    def sphere_radius(self) -> float:
        return (self.rim ** 2 + self.depth ** 2) / (2 * self.depth)

    @property
    def sphere_centre(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.sphere_radius - self.depth)


@dataclass(frozen=True, slots=True)
class Scene:
    """The solids (id FIRST_SOLID + index), their materials, the hollows, and each
    position's name with the surface the ground truth measures (a ball's sphere, a tile's
    top face)."""

    solids: tuple[Solid, ...]
    materials: tuple[Material, ...]
    hollows: tuple[Hollow, ...]
    proxies: tuple[tuple[str, Solid], ...]
    #: ids of the first and one past the last hand part
    hands: tuple[int, int]

    def albedo_table(self, fixed: Sequence[Material]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Albedo (n x 3), specular and shininess arrays indexed by id."""
        mats = (*fixed, *self.materials)
        return (np.array([m.albedo for m in mats], dtype=np.float32),
                np.array([m.specular for m in mats], dtype=np.float32),
                np.array([m.shininess for m in mats], dtype=np.float32))


@dataclass(frozen=True, slots=True)
class Placed:
    """Where a hand put one cell's pieces down: (x, y, turn) of its control plate, from the
    cell's centre, and of its tile, from the centre of what it lies on (the plate, or the
    cell); mm and degrees (counter-clockwise seen from above)."""

    control: tuple[float, float, float] = (0.0, 0.0, 0.0)
    tile: tuple[float, float, float] = (0.0, 0.0, 0.0)


#: how far pieces put down by hand lie from true: up to this shift (mm, along x and y each)
#: and turn (degrees); a control plate has 1.5 mm to spare on each side of its cell, a tile
#: 2.5 mm on its plate
PLACED_SHIFT = 1.2
PLACED_TURN = 5.0


def hand_placed(board: Board, rng: random.Random, shift: float = PLACED_SHIFT,
                turn: float = PLACED_TURN) -> dict[str, Placed]:
    """Every cell's pieces as a hand puts them down: each control plate and each tile off
    by up to ``shift`` along x and y and ``turn`` degrees, drawn uniformly (a real player
    does not centre a tile on its plate, nor square it with the grid)."""
    def draw() -> tuple[float, float, float]:
        return (rng.uniform(-shift, shift), rng.uniform(-shift, shift), rng.uniform(-turn, turn))

    return {p.name: Placed(draw(), draw()) for p in board.positions}


def _check_cells(board: Board, cells: Mapping[str, str]) -> None:
    names = {p.name for p in board.positions}
    for name, code in cells.items():
        if name not in names:
            raise ValueError(f"{board.name} has no position {name!r}")
        if board.kind == "pyramid":
            if code not in ("." + BALL_LETTERS) or len(code) != 1:
                raise ValueError(f"{name}: {code!r} is not a ball the renderer knows (one of . L D W B R)")
        elif code != "--" and (len(code) != 2 or code[0] not in "." + TILE_LETTERS
                               or code[1] not in "." + CONTROL_LETTERS):
            raise ValueError(f"{name}: {code!r} is not a Sparklies cell (tile R G B or ., then controller . b w)")


def build_scene(board: Board, cells: Mapping[str, str], hands: Sequence[Hand] = (),
                placed: Mapping[str, Placed] | None = None) -> Scene:
    """The solids a board shows with these cells (ValueError on a name or code the board
    does not have); positions not in ``cells`` are empty. ``placed``: where the grid's
    pieces lie, cell by cell (:func:`hand_placed`); true to their cells without it."""
    _check_cells(board, cells)
    if placed:
        if board.kind != "grid":
            raise ValueError(f"placed: {board.name}'s balls rest where they are; only a grid's pieces are put "
                             "down off true")
        stray = sorted(set(placed) - {p.name for p in board.positions})
        if stray:
            raise ValueError(f"placed: {board.name} has no position {stray[0]!r}")
    colours = board.colours or {}
    solids: list[Solid] = []
    materials: list[Material] = []
    proxies: list[tuple[str, Solid]] = []
    hollows: list[Hollow] = []
    if board.kind == "pyramid":
        r = board.ball_diameter / 2
        base_z = min(p.centre[2] for p in board.positions)
        depth = max(2.0, r - base_z + 0.5)
        for p in board.positions:
            if p.centre[2] == base_z:
                hollows.append(Hollow(p.centre[0], p.centre[1], board.hollow_diameter / 2, depth))
            ball = Sphere(p.centre, r)
            proxies.append((p.name, ball))
            code = cells.get(p.name, ".")
            if code != ".":
                solids.append(ball)
                materials.append(_material(colours[code], *BALL_FINISH[code], BALL_GRAIN.get(code, 0.0)))
    else:
        ts, tt = board.tile_size / 2, board.tile_thickness
        cs, ct = board.control_size / 2, board.control_thickness
        for p in board.positions:
            x, y, _ = p.centre
            code = cells.get(p.name, "..")
            where = (placed or {}).get(p.name, Placed())
            top, turn = 0.0, 0.0
            if code != "--" and code[1] != ".":
                x, y, turn = x + where.control[0], y + where.control[1], where.control[2]
                solids.append(Box((x - cs, y - cs, 0.0), (x + cs, y + cs, ct), turn))
                materials.append(_material(colours[code[1]], *CONTROL_FINISH))
                top = ct
            if code != "--" and code[0] != ".":
                x, y, turn = x + where.tile[0], y + where.tile[1], turn + where.tile[2]
                solids.append(Box((x - ts, y - ts, top), (x + ts, y + ts, top + tt), turn))
                materials.append(_material(colours[code[0]], *TILE_FINISH))
                top += tt
            proxies.append((p.name, Box((x - ts, y - ts, top - 0.01), (x + ts, y + ts, top), turn)))
    first_hand = FIRST_SOLID + len(solids)
    for hand in hands:
        for part in hand.parts:
            solids.append(part)
            materials.append(_material(hand.colour, *SKIN_FINISH))
    return Scene(tuple(solids), tuple(materials), tuple(hollows), tuple(proxies),
                 (first_hand, FIRST_SOLID + len(solids)))
