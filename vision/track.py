"""Following a board frame after frame from a camera that stays put.

A single frame can leave a position ``?`` (a light ball in poor light, a model that is not
sure) or read it one way in one frame and ``?`` in the next as the sensor's noise moves a
measure across a threshold. A board on a table only changes under a player's hand, so a
fixed camera sees the same pixels wherever nothing changed. :class:`Tracker` keeps, for
every position, what it last read there with confidence and the pixels it read it from. A
position whose pixels have not changed since keeps that reading; a position whose pixels
changed is read afresh, and is ``?`` until it is read with confidence again.

The rule is one-sided on purpose: a reading is carried over only where the image gives no
reason to doubt it, and a fresh confident reading that disagrees with unchanged pixels
makes the position ``?`` (one of the two readings is wrong). Nothing is ever guessed from
the game: vision knows nothing of rules. The support rules are checked again on what is
carried (no ball over an empty place).

A known position (``known``: the start a game is set up in, as at calibration) anchors
the readings at the first clear frame; without one the tracker starts from the frame's own
confident readings. Moving the camera (or the board) by more than :data:`MOVED_PX` starts
afresh.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Mapping

import numpy as np

from host.observation import Observation

from .geometry import Board
from .intrinsics import Intrinsics
from .pose import Pose
from .recognize import Recognition, Recognizer

#: a sample differs when a colour channel moved by more than this (8-bit levels)
DIFF_LEVELS = 14.0
#: a position changed when more than this share of its samples differ
CHANGED_SHARE = 0.06
#: the pose moved by more than this (pixels, anywhere on the plate): start afresh
MOVED_PX = 1.5
#: the model's probability that, with the pixels changed, reads a ball where it was empty
CHANGE_BALL = 0.9
#: ... and empty where a ball was
CHANGE_EMPTY = 0.9
#: clear frames whose focal length estimates are pooled (no intrinsics file)
FOCAL_FRAMES = 5
#: how fast the pixels kept follow slow changes of light (per frame, where unchanged)
BLEND = 0.05


def _sphere_directions(count: int = 160) -> np.ndarray:
    """Unit vectors spread evenly over a sphere (a Fibonacci lattice)."""
    k = np.arange(count) + 0.5
    z = 1 - 2 * k / count
    phi = math.pi * (1 + 5 ** 0.5) * k
    r = np.sqrt(1 - z * z)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


UNIT = _sphere_directions()


def sample_points(board: Board, pose: Pose) -> np.ndarray:
    """Per position, the pixels (row, column; -1 outside the image) where it shows: a
    ball's visible surface on a pyramid board, the control plate's square on a grid."""
    eye = pose.centre
    pts = []
    if board.kind == "pyramid":
        r = board.ball_diameter / 2 * 0.9
        for p in board.positions:
            c = np.asarray(p.centre, dtype=np.float64)
            view = (eye - c) / np.linalg.norm(eye - c)
            facing = UNIT[UNIT @ view > 0.25]
            pts.append(c + r * facing)
    else:
        h = board.control_size / 2
        z = board.control_thickness + board.tile_thickness
        grid = np.linspace(-h, h, 8)
        offsets = np.array([(x, y, z) for x in grid for y in grid])
        for p in board.positions:
            pts.append(np.asarray(p.centre, dtype=np.float64) + offsets)
    width = max(len(q) for q in pts)
    out = np.full((len(pts), width, 2), -1, dtype=np.intp)
    w, h_img = pose.size
    for i, q in enumerate(pts):
        uv = pose.project(q)
        col, row = np.rint(uv[:, 0]), np.rint(uv[:, 1])
        ok = np.isfinite(uv).all(axis=1) & (col >= 0) & (col < w) & (row >= 0) & (row < h_img)
        out[i, :len(q)][ok] = np.stack([row[ok], col[ok]], axis=1).astype(np.intp)
    return out


class Tracker:
    """A :class:`Recognizer` followed over time for a fixed camera (see the module's
    docstring); ``read`` a frame at a time, in order."""

    def __init__(self, recognizer: Recognizer, *, known: Mapping[str, str] | None = None):
        self.recognizer = recognizer
        self.board = recognizer.board
        self.names = tuple(p.name for p in self.board.positions)
        self.unknown = "??" if recognizer.game == "sparklies" else "?"
        self._known = dict(known) if known is not None else None
        self._pose: Pose | None = None
        self._points: np.ndarray | None = None
        self._kept: dict[int, tuple[str, np.ndarray]] = {}
        self._supports = self._support_indices()
        self._focals: list[float] = []

    @property
    def game(self) -> str:
        return self.recognizer.game

    def _support_indices(self) -> dict[int, tuple[int, ...]]:
        if self.board.kind != "pyramid":
            return {}
        from .recognize_pyramid import Layout
        layout = Layout.of(self.board)
        index = {n: i for i, n in enumerate(self.names)}
        return {index[n]: tuple(index[layout.names[j]] for j in layout.supports[k])
                for k, n in enumerate(layout.names)}

    def reset(self) -> None:
        """Forget everything kept (the board was set up anew, the camera moved)."""
        self._pose, self._points, self._kept = None, None, {}

    def _moved(self, pose: Pose) -> bool:
        old = self._pose
        if old is None or old.size != pose.size:
            return True
        if old is pose:
            return False
        w, d = self.board.plate[0] / 2, self.board.plate[1] / 2
        probe = np.array([(x, y, z) for x in (-w, w) for y in (-d, d) for z in (0.0, 60.0)])
        return float(np.max(np.abs(old.project(probe) - pose.project(probe)))) > MOVED_PX

    def _learn_focal(self, result: Recognition) -> None:
        """Without an intrinsics file each frame's focal length is estimated anew, and its
        noise moves the pose by a pixel or two from frame to frame. A camera that stays put
        keeps its lens: the median of the first clear frames' estimates is kept."""
        pose = result.pose
        if self.recognizer.intrinsics is not None or pose is None or result.hand:
            return
        if len(pose.markers) < len(self.board.markers) or pose.focal_source not in ("estimated", "blend"):
            return
        self._focals.append(pose.focal)
        if len(self._focals) >= FOCAL_FRAMES:
            w, h = pose.size
            f = float(np.median(self._focals))
            self.recognizer.intrinsics = Intrinsics(w, h, f, f, (w - 1) / 2, (h - 1) / 2)
            self._pose = None  # the next frame's pose is the reference

    def read(self, image: np.ndarray, t: float = 0.0) -> Recognition:
        """The frame's observation, with what unchanged pixels show carried over."""
        result = self.recognizer.read(image, t)
        if not result.ok or result.pose is None:
            return result  # a frame without the board says nothing about it
        self._learn_focal(result)
        if self._moved(result.pose):
            if result.hand and self._points is not None:
                return result  # a hand over a marker moves the pose: wait until it is gone
            self._kept = {}
            self._pose, self._points = result.pose, sample_points(self.board, result.pose)
        assert self._points is not None
        pts = self._points
        inside = pts[..., 0] >= 0
        colour = image.ndim == 3 and image.shape[2] == 3
        px = image[np.where(inside, pts[..., 0], 0), np.where(inside, pts[..., 1], 0)].astype(np.float32)
        if not colour:
            px = px[..., None]
        cells = dict(result.observation.cells)
        details = dict(result.details)
        if self._known is not None and not result.hand and self.recognizer.intrinsics is not None:
            for i, name in enumerate(self.names):
                if name in self._known:
                    self._kept[i] = (self._known[name], px[i].copy())
            self._known = None
        for i, name in enumerate(self.names):
            seen = cells[name]
            sure = self.unknown not in seen and "?" not in seen
            kept = self._kept.get(i)
            if kept is None:
                if sure and not result.hand:
                    self._kept[i] = (seen, px[i].copy())
                continue
            code, ref = kept
            ok = inside[i]
            differ = (np.abs(px[i] - ref).max(axis=-1) > DIFF_LEVELS) & ok
            changed = differ.sum() > CHANGED_SHARE * max(int(ok.sum()), 1)
            if changed:
                if sure and not result.hand:
                    self._kept[i] = (seen, px[i].copy())
                elif not sure and not result.hand:
                    cells[name], why = self._changed(code, result.probabilities.get(name), seen)
                    if why:
                        details[name] = why
                continue
            ref += BLEND * (px[i] - ref) * ok[:, None]  # slow changes of light
            if sure and seen != code:
                cells[name] = self.unknown
                details[name] = f"read {seen}, but unchanged since read {code}"
            elif not sure:
                cells[name] = code
                details[name] = f"unchanged since read {code}"
        self._check_supports(cells, details)
        return replace(result, observation=Observation(result.observation.t, cells), details=details)

    def _changed(self, code: str, p: tuple[float, float, float] | None, seen: str) -> tuple[str, str]:
        """A position whose pixels changed and that the frame alone leaves unsure: a place
        that was empty and now likely holds a ball holds one (``#``, colour unknown), and a
        ball that now likely is gone is gone. The change itself is the evidence the model's
        threshold asks for."""
        if p is None or p[0] != p[0]:
            return seen, ""
        if code == "." and p[1] >= CHANGE_BALL:
            return "#", f"changed from empty, likely a ball (ball {p[1]:.2f})"
        if code not in (".", "?") and p[0] >= CHANGE_EMPTY:
            return ".", f"changed from {code}, likely empty (empty {p[0]:.2f})"
        return seen, ""

    def _check_supports(self, cells: dict[str, str], details: dict[str, str]) -> None:
        """No ball over a place read empty: both become unknown."""
        for i, sup in self._supports.items():
            name = self.names[i]
            if cells[name] in (".", "?") or not sup:
                continue
            empty = [self.names[j] for j in sup if cells[self.names[j]] == "."]
            for other in (name, *empty):
                if empty:
                    cells[other] = "?"
                    details[other] = "support rules: a ball over an empty-looking support"
