"""Board geometry files (hardware/boards/*.json): where every position, tile and fiducial
marker of a physical board is, in millimetres.

Coordinates have their origin at the centre of the board's top surface, x towards later
columns, y towards higher rows, z up. One file per board; vision, the renderer and the
displays read it, so a new board (another grid size, other balls) is a new file, not code.
docs/hardware.md documents every field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

#: where the reference boards live
BOARDS_DIR = Path(__file__).resolve().parent.parent / "hardware" / "boards"
DICTIONARIES = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_6X6_50")
RGB = tuple[int, int, int]


class GeometryError(ValueError):
    """A geometry file that cannot be used: names the file and the field."""


@dataclass(frozen=True, slots=True)
class Marker:
    """A printed fiducial glued flat on the surface: its id and centre (x, y)."""

    id: int
    centre: tuple[float, float]


@dataclass(frozen=True, slots=True)
class Position:
    """A place a ball (pyramid boards) or a tile (grids) can be: its name and 3-D centre
    (a ball's centre; a grid cell's centre on the surface, z = 0)."""

    name: str
    centre: tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Board:
    """One board's geometry. ``kind`` is ``pyramid`` (balls) or ``grid`` (tiles)."""

    name: str
    games: tuple[str, ...]
    kind: str
    plate: tuple[float, float]
    plate_colour: RGB
    dictionary: str
    marker_size: float
    markers: tuple[Marker, ...]
    positions: tuple[Position, ...]
    #: pyramid boards: ball diameter and hollow diameter; grids: pitch
    ball_diameter: float = 0.0
    hollow_diameter: float = 0.0
    pitch: float = 0.0
    columns: int = 0
    rows: int = 0
    tile_size: float = 0.0
    tile_thickness: float = 0.0
    control_size: float = 0.0
    control_thickness: float = 0.0
    #: default colours (sRGB) by piece letter: balls, tiles (R G B) and controllers (b w)
    colours: Mapping[str, RGB] | None = None

    def position(self, name: str) -> Position:
        for p in self.positions:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no position {name!r}")

    def marker_corners(self, marker: Marker) -> tuple[tuple[float, float, float], ...]:
        """The marker's four corners on the surface, in OpenCV's ArUco order (top-left,
        top-right, bottom-right, bottom-left as printed, the top towards +y)."""
        h = self.marker_size / 2
        x, y = marker.centre
        return ((x - h, y + h, 0.0), (x + h, y + h, 0.0), (x + h, y - h, 0.0), (x - h, y - h, 0.0))


def need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str,
         error: type[Exception] = GeometryError) -> Any:
    """``data[key]``, which must be there and of ``kind`` (a bool is not a number);
    otherwise ``error`` naming ``where`` and the key. Shared by the JSON files vision reads
    (geometry, calibration)."""
    if key not in data:
        raise error(f"{where}: missing {key!r}")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise error(f"{where}.{key}: expected {_kind_name(kind)}, got {value!r}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({int: "a number", float: "a number", str: "text", list: "a list", dict: "an object"}[k] for k in kinds)


def _number(data: Mapping[str, Any], key: str, where: str, positive: bool = True) -> float:
    value = float(need(data, key, (int, float), where))
    if positive and value <= 0:
        raise GeometryError(f"{where}.{key}: must be above 0, got {value:g}")
    return value


def _point(value: Any, size: int, where: str) -> tuple[float, ...]:
    if (not isinstance(value, list) or len(value) != size
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise GeometryError(f"{where}: expected a list of {size} numbers (millimetres), got {value!r}")
    return tuple(float(v) for v in value)


def _colour(value: Any, where: str) -> RGB:
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in value)):
        raise GeometryError(f"{where}: expected an sRGB colour [r, g, b], each 0 to 255, got {value!r}")
    return (value[0], value[1], value[2])


def _colours(data: Mapping[str, Any], where: str) -> dict[str, RGB]:
    return {k: _colour(v, f"{where}.{k}") for k, v in need(data, "colours", dict, where).items()}


def parse_board(data: Any, origin: str = "<board>") -> Board:
    """A Board from a geometry file's JSON; GeometryError naming the field otherwise."""
    if not isinstance(data, dict):
        raise GeometryError(f"{origin}: expected a JSON object")
    name = need(data, "name", str, origin)
    games = need(data, "games", list, origin)
    if not games or not all(g in ("pylos", "sparks", "sparklies") for g in games):
        raise GeometryError(f"{origin}.games: expected a list of pylos, sparks, sparklies; got {games!r}")
    plate = need(data, "plate", dict, origin)
    markers = need(data, "markers", dict, origin)
    dictionary = need(markers, "dictionary", str, f"{origin}.markers")
    if dictionary not in DICTIONARIES:
        raise GeometryError(f"{origin}.markers.dictionary: {dictionary!r} is not one of {', '.join(DICTIONARIES)}")
    placed = []
    for k, m in enumerate(need(markers, "placed", list, f"{origin}.markers")):
        where = f"{origin}.markers.placed[{k}]"
        if not isinstance(m, dict):
            raise GeometryError(f"{where}: expected an object with id and centre")
        mid = need(m, "id", int, where)
        placed.append(Marker(mid, _point(m.get("centre"), 2, f"{where}.centre")))  # type: ignore[arg-type]
    if len(placed) < 3 or len({m.id for m in placed}) != len(placed):
        raise GeometryError(f"{origin}.markers.placed: needs at least 3 markers with distinct ids")
    common = dict(name=name, games=tuple(games), plate=(_number(plate, "width", f"{origin}.plate"),
                                                          _number(plate, "depth", f"{origin}.plate")),
                  plate_colour=_colour(plate.get("colour"), f"{origin}.plate.colour"), dictionary=dictionary,
                  marker_size=_number(markers, "size", f"{origin}.markers"), markers=tuple(placed))
    if "balls" in data:
        balls = need(data, "balls", dict, origin)
        positions = tuple(Position(p["name"], _point(p.get("centre"), 3, f"{origin}.positions[{k}].centre"))  # type: ignore[arg-type]
                          for k, p in enumerate(_records(data, "positions", origin)))
        board = Board(kind="pyramid", positions=positions, ball_diameter=_number(balls, "diameter", f"{origin}.balls"),
                      hollow_diameter=_number(balls, "hollow_diameter", f"{origin}.balls"),
                      colours=_colours(balls, f"{origin}.balls"), **common)
    elif "grid" in data:
        grid = need(data, "grid", dict, origin)
        tile = need(grid, "tile", dict, f"{origin}.grid")
        control = need(grid, "control", dict, f"{origin}.grid")
        positions = tuple(Position(p["name"], (*_point(p.get("centre"), 2, f"{origin}.cells[{k}].centre"), 0.0))  # type: ignore[arg-type]
                          for k, p in enumerate(_records(data, "cells", origin)))
        board = Board(kind="grid", positions=positions, pitch=_number(grid, "pitch", f"{origin}.grid"),
                      columns=int(_number(grid, "columns", f"{origin}.grid")), rows=int(_number(grid, "rows", f"{origin}.grid")),
                      tile_size=_number(tile, "size", f"{origin}.grid.tile"),
                      tile_thickness=_number(tile, "thickness", f"{origin}.grid.tile"),
                      control_size=_number(control, "size", f"{origin}.grid.control"),
                      control_thickness=_number(control, "thickness", f"{origin}.grid.control"),
                      colours={**_colours(tile, f"{origin}.grid.tile"), **_colours(control, f"{origin}.grid.control")},
                      **common)
        if len(positions) != board.columns * board.rows:
            raise GeometryError(f"{origin}.cells: {len(positions)} cells for a {board.columns}x{board.rows} grid")
    else:
        raise GeometryError(f"{origin}: expected 'balls' (a pyramid board) or 'grid' (a tile grid)")
    names = [p.name for p in board.positions]
    if len(set(names)) != len(names):
        raise GeometryError(f"{origin}: a position name appears twice")
    return board


def _records(data: Mapping[str, Any], key: str, origin: str) -> list[dict]:
    items = need(data, key, list, origin)
    for k, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise GeometryError(f"{origin}.{key}[{k}]: expected an object with a name and a centre")
    return items


def load_board(name_or_path: str | Path) -> Board:
    """A board by name (``pyramid-4``: hardware/boards/pyramid-4.json) or by file path."""
    path = Path(name_or_path)
    if path.suffix != ".json":
        path = BOARDS_DIR / f"{name_or_path}.json"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in BOARDS_DIR.glob("*.json")))
            raise GeometryError(f"no board {str(name_or_path)!r} (known boards: {known})")
    return parse_board(read_json(path, GeometryError), str(path.name))


def read_json(path: Path, error: type[ValueError]) -> Any:
    """A JSON file's data; ``error`` naming the file when it cannot be read or parsed."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not JSON: {exc.msg} at line {exc.lineno}") from None
