"""Calibration from a known position: the pose and the colours of this board under this
light, measured on a frame that shows the game's start (the Sparks start, an empty Pylos
board, a Sparklies board with its tiles and no control plates), saved as JSON.

    from vision.calibration import calibrate, load_calibration
    cal = calibrate(image, load_board("pyramid-4"), "sparks")   # CalibrationError if not
    cal.save("cal.json")
    Recognizer(board, "sparks", calibration=load_calibration("cal.json"), adapt=True)

Recognition judges colours relative to the plate in the same frame, starting from the
geometry file's defaults; calibration replaces the defaults by what this set of balls or
tiles measures (vision/calibration_colours.py). What the start cannot show keeps its
default: Pylos' balls (the board starts empty), Sparks' red, the control plates. The frame
is checked against the start first, so that a wrong position is refused, not learnt.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .calibration_colours import NAMES, BallColour, tile_chroma
from .geometry import Board, need
from .intrinsics import Intrinsics
from .pose import Pose, PoseError, as_grey
from .recognize_balls import gather, read_pyramid
from .recognize_colour import measure_plate
from .recognize_features import measure_level
from .recognize_grid import read_grid
from .recognize_hands import find_hands

VERSION = 1
#: a ball is measured when this many of its samples are in view
MIN_SAMPLES = 16
#: a letter's colour is kept when this many balls or tiles show it
MIN_PIECES = 3
#: the share of the start's balls (or, on an empty board, of its positions) that must be
#: seen as the start has them
MIN_AGREE = 0.75
#: the model's probability, with the start's contents known, that makes a ball seen (or
#: refuses the frame, as an empty place where the start has a ball)
MIN_BALL = 0.9
MIN_EMPTY = 0.9


class CalibrationError(ValueError):
    """The frame cannot calibrate (says what is wrong), or a calibration file cannot be
    used (names the file and the field)."""


@dataclass(frozen=True, eq=False)
class Calibration:
    """What :func:`calibrate` measured: the board and game, the image size, the pose, the
    plate's lit colour (linear RGB), the balls' colours by letter (pyramid) or the tiles'
    chromaticities (grid), when (UTC, ISO 8601) and the format's version."""

    board: str
    game: str
    size: tuple[int, int]
    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    plate: tuple[float, float, float]
    balls: Mapping[str, BallColour] = field(default_factory=dict)
    tiles: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)
    time: str = ""
    version: int = VERSION
    dist: tuple[float, ...] = ()

    @property
    def pose(self) -> Pose:
        dist = np.array(self.dist) if self.dist else None
        return Pose(self.K, self.R, self.t, (), 0.0, "calibration", dist, self.size)

    def to_json(self) -> dict[str, Any]:
        r = lambda v, n=5: [round(float(x), n) for x in v]  # noqa: E731
        return {"version": self.version, "board": self.board, "game": self.game, "time": self.time,
                "image_size": list(self.size),
                "pose": {"K": [r(row, 3) for row in self.K], "R": [r(row, 7) for row in self.R], "t": r(self.t, 3),
                         "dist": r(self.dist, 6)},
                "plate": r(self.plate, 6),
                "balls": {k: {"level": round(b.level, 4), "rg": round(b.rg, 4), "bg": round(b.bg, 4),
                              "red": round(b.red, 4), "dark": round(b.dark, 4), "balls": b.balls}
                          for k, b in self.balls.items()},
                "tiles": {k: r(v, 5) for k, v in self.tiles.items()}}

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path

    def describe(self) -> str:
        parts = [f"{k} {NAMES[k]} level {b.level:.2f} ({b.balls} balls)" for k, b in self.balls.items()]
        parts += [f"{k} tile ({', '.join(f'{v:.2f}' for v in c)})" for k, c in self.tiles.items()]
        return "; ".join(parts) or "the plate only (the pieces keep their default colours)"


def _matrix(value: Any, shape: tuple[int, ...], name: str, where: str) -> np.ndarray:
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.zeros(0)
    if a.shape != shape or not np.all(np.isfinite(a)):
        raise CalibrationError(f"{where}: field {name!r} must be {' x '.join(map(str, shape))} numbers")
    a.setflags(write=False)
    return a


def from_json(data: Any, where: str = "calibration") -> Calibration:
    """A Calibration from its JSON form; CalibrationError naming ``where`` and the field."""
    if not isinstance(data, dict):
        raise CalibrationError(f"{where}: not a calibration (expected a JSON object)")
    version = need(data, "version", int, where, CalibrationError)
    if version != VERSION:
        raise CalibrationError(f"{where}: version {version} is not supported (this arbiter reads {VERSION})")
    size = _matrix(need(data, "image_size", list, where, CalibrationError), (2,), "image_size", where)
    pose = need(data, "pose", dict, where, CalibrationError)
    balls: dict[str, BallColour] = {}
    for k, b in need(data, "balls", dict, where, CalibrationError).items():
        if k not in NAMES or not isinstance(b, dict):
            raise CalibrationError(f"{where}: field 'balls.{k}': not a ball letter with its measures")
        try:
            balls[k] = BallColour(*(float(b[n]) for n in ("level", "rg", "bg", "red", "dark")), int(b["balls"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"{where}: field 'balls.{k}': {exc}") from None
    tiles = {}
    for k, v in need(data, "tiles", dict, where, CalibrationError).items():
        if k not in "RGB" or len(k) != 1:
            raise CalibrationError(f"{where}: field 'tiles.{k}': not a tile colour (R, G or B)")
        tiles[k] = tuple(_matrix(v, (3,), f"tiles.{k}", where).tolist())
    dist = pose.get("dist", [])
    return Calibration(need(data, "board", str, where, CalibrationError),
                       need(data, "game", str, where, CalibrationError),
                       (int(size[0]), int(size[1])), _matrix(pose.get("K"), (3, 3), "pose.K", where),
                       _matrix(pose.get("R"), (3, 3), "pose.R", where), _matrix(pose.get("t"), (3,), "pose.t", where),
                       tuple(_matrix(need(data, "plate", list, where, CalibrationError), (3,), "plate", where).tolist()),
                       balls, tiles, str(data.get("time", "")), version,
                       tuple(_matrix(dist, (len(dist),), "pose.dist", where).tolist()) if dist else ())


def load_calibration(path: str | Path) -> Calibration:
    """Read a file written by :meth:`Calibration.save`."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise CalibrationError(f"{path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CalibrationError(f"{path}: not JSON ({exc})") from None
    return from_json(data, str(path))


def start_cells(game: str) -> dict[str, str] | None:
    """The start position's cells (None for Sparklies, whose start is random)."""
    if game == "sparklies":
        return None
    from host.games import rules_for
    rules = rules_for(game)
    return {k: v for k, v in rules.cells(rules.start()).items() if v != "."}  # type: ignore[call-arg]


def _start_name(game: str) -> str:
    return {"pylos": "an empty Pylos board", "sparks": "the Sparks start"}.get(game, f"the {game} start")


def _refuse(game: str, problems: list[str]) -> CalibrationError:
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return CalibrationError(f"this is not {_start_name(game)}: {'; '.join(problems[:3])}{more}")


def calibrate(image: Any, board: Board, game: str | None = None, *, intrinsics: Intrinsics | None = None,
              clock: Any = time.time) -> Calibration:
    """Calibrate on a frame of the game's start (see the module docstring); raises
    CalibrationError saying what is wrong with the frame."""
    from .recognize import LETTERS, Recognizer
    game = game or board.games[0]
    rec = Recognizer(board, game, intrinsics=intrinsics)
    try:
        as_grey(image)
        pose = rec.pose(image)
    except PoseError as exc:
        raise CalibrationError(f"no board in view: {exc}") from None
    if image.ndim != 3 or image.shape[2] != 3:
        raise CalibrationError("calibration needs a colour frame (H x W x 3)")
    plate = measure_plate(image, board, pose, rec.margin)
    if plate.samples < 8:
        raise CalibrationError("the plate's edges are out of view: the whole board must be in the picture")
    hidden, halo = rec.band_masks(pose)
    hands = find_hands(image, pose, rec.rings, hidden=hidden, halo=halo)
    if hands.present:
        raise CalibrationError("something (a hand?) reaches over the board's edge: clear the view and try again")
    balls: dict[str, BallColour] = {}
    tiles: dict[str, tuple[float, float, float]] = {}
    if rec.layout is not None:
        balls = _pyramid(rec, image, pose, plate.colour, hands, game, LETTERS[game])
    else:
        tiles = _grid(rec, image, pose, plate.colour, game)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock()))
    dist = tuple(float(v) for v in pose.dist.ravel()) if pose.dist is not None else ()
    return Calibration(board.name, game, pose.size, pose.K, pose.R, pose.t,
                       tuple(float(v) for v in plate.colour), balls, tiles, stamp, VERSION, dist)


def _pyramid(rec: Any, image: np.ndarray, pose: Pose, plate: np.ndarray, hands: Any, game: str,
             letters: str) -> dict[str, BallColour]:
    """Check the frame against the start with the default reading, then measure every
    ball of the start with the contents known."""
    start = start_cells(game) or {}
    layout, geo = rec.layout, rec.geometry(pose)
    readings, _ = read_pyramid(image, layout, geo, plate, rec.protos, letters, rec.model, hands, rec.thresholds)
    problems = []
    for name, r in readings.items():
        want = start.get(name, ".")
        if want != "." and r.code == ".":
            problems.append(f"{name} looks empty")
        elif want == "." and r.code not in ".?":
            problems.append(f"{name} has a ball")
        elif want != "." and r.code in letters and r.code != want:
            problems.append(f"{name} looks {NAMES[r.code]}, the start has {NAMES[want]} there")
    measured = _measure_balls(rec, image, geo, plate, start, letters)
    problems += [f"{n} looks empty" for n, m in measured.items() if m[3] >= MIN_EMPTY and f"{n} looks empty" not in problems]
    if problems:
        raise _refuse(game, problems)
    if start:
        seen = sum(m[2] >= MIN_BALL for m in measured.values())
        if seen < MIN_AGREE * len(start):
            raise CalibrationError(f"too few of the start's balls could be seen ({seen} of {len(start)}): "
                                   "is the whole board in view and lit?")
    else:
        empty = sum(r.code == "." for r in readings.values())
        if empty < MIN_AGREE * len(readings):
            raise CalibrationError(f"too little of the board could be read ({empty} of {len(readings)} positions "
                                   f"seen empty): is the whole board in view and lit?")
    by_letter: dict[str, list[str]] = {}
    for name in measured:
        by_letter.setdefault(start[name], []).append(name)
    if len(by_letter) >= 2:
        _check_apart(measured, by_letter, game)
    out = {}
    for k, names in by_letter.items():
        if len(names) < MIN_PIECES:
            continue
        c = np.array([measured[n][0] for n in names])
        out[k] = BallColour(*(float(v) for v in np.median(c[:, [0, 2, 3, 4]], axis=0)),
                            float(np.median([measured[n][1] for n in names])), len(names))
    return out


def _measure_balls(rec: Any, image: np.ndarray, geo: Any, plate: np.ndarray, cells: Mapping[str, str],
                   letters: str) -> dict[str, tuple[np.ndarray, float, float, float]]:
    """Each ball's colour measures (``Batch.colour``), its 10th-percentile level and the
    model's P(ball) and P(empty), measured as recognition does but with the contents known
    (nothing above a ball may hide it)."""
    layout = rec.layout
    lin, inside = gather(image, geo.pixels)
    maybe = np.array([cells.get(n, ".") != "." for n in layout.names])
    out = {}
    for idx in layout.by_level():
        mine = np.array([i for i in idx if maybe[i]], dtype=np.intp)
        if not len(mine):
            continue
        batch = measure_level(geo, mine, lin, inside, maybe, plate, rec.protos, letters, layout.levels, False,
                              np.zeros(len(layout.names)))
        probs = rec.model.probabilities(batch.x)
        for j, i in enumerate(mine):
            if batch.counts[j] >= MIN_SAMPLES:
                q10 = float(batch.colour[j][1] - batch.x[j, 5])
                out[layout.names[i]] = (batch.colour[j], q10, float(probs[j][1]), float(probs[j][0]))
    return out


def _check_apart(measured: Mapping[str, tuple[np.ndarray, float, float, float]], by_letter: Mapping[str, list[str]],
                 game: str) -> None:
    """Every ball must be nearer (in level and chromaticity) to its own letter's median
    than to another's: a swapped or foreign ball would otherwise be learnt."""
    medians = {k: np.median([measured[n][0][[0, 2, 3]] for n in names], axis=0) for k, names in by_letter.items()}
    problems = []
    for k, names in by_letter.items():
        for n in names:
            v = measured[n][0][[0, 2, 3]]
            d = {j: float(np.linalg.norm(v - m)) for j, m in medians.items()}
            near = min(d, key=d.__getitem__)
            if near != k:
                problems.append(f"{n} looks {NAMES[near]}, the start has {NAMES[k]} there")
    if problems:
        raise _refuse(game, problems)


def _grid(rec: Any, image: np.ndarray, pose: Pose, plate: np.ndarray, game: str) -> dict[str, tuple[float, ...]]:
    """Tiles on every cell and no control plate; the tiles' chromaticities by colour, from
    the cells read as that colour."""
    geo = rec.grid_geometry(pose)
    cells = read_grid(image, rec.grid, geo, plate, rec.tiles, rec.albedo, border=rec.border, border_pbr=rec.border_pbr)
    problems = [f"{n} has no tile" for n, c in cells.items() if c.code[0] == "."]
    problems += [f"{n} has a control plate" for n, c in cells.items() if c.code[1] in "wb"]
    if problems:
        raise _refuse(game, problems)
    read = sum(c.code[0] in "RGB" for c in cells.values())
    if read < MIN_AGREE * len(cells):
        raise CalibrationError(f"too few tiles could be read ({read} of {len(cells)}): "
                               "is the whole board in view and lit?")
    chroma, ok = tile_chroma(image, rec.grid, geo, plate)
    out = {}
    for k in "RGB":
        rows = [i for i, n in enumerate(rec.grid.names) if cells[n].code[0] == k and ok[i]]
        if len(rows) >= MIN_PIECES:
            out[k] = tuple(float(v) for v in np.median(chroma[rows], axis=0))
    return out
