"""What a sensor reports about a physical board, frame by frame, for the simulator.

A :class:`SensorView` turns a physical board (every cell's true content, as
``Rules.cells`` and ``TurnInProgress.cells`` give it) into an observation's cells: a camera
reports every cell but the balls other balls rest on (``?``); reed switches report only the
16 base hollows, ``#`` or ``.``. A :class:`Reel` lays the frames out in time: each board is
held for several frames, a hand passes over the cells that change, and the noise the
configuration asks for (random hands, single-frame flicker) is added where it can never
look like a stable wrong board. Every frame keeps its ground truth (:class:`FrameTruth`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from .games import Rules
from .games import pyramid
from .games.sparklies_geometry import split_square
from .observation import EMPTY, OCCUPIED, PYRAMID_LETTERS, UNKNOWN, Observation, Press

if TYPE_CHECKING:
    from .sim import SimConfig

PYRAMID_GAMES = ("pylos", "sparks")
BASE_NAMES: tuple[str, ...] = tuple(n for n in pyramid.NAMES if n.startswith("1"))
_BIT = {name: 1 << i for i, name in enumerate(pyramid.NAMES)}


class SimError(ValueError):
    """A simulator that cannot be set up as asked (bad option, bad script); says which."""


def frames_needed(frames: int, seconds: float, fps: float) -> int:
    """Frames a run of identical observations needs to hold ``frames`` observations and
    span ``seconds`` at ``fps``, with one frame of margin on the time."""
    return max(frames, math.floor(seconds * fps + 1e-9) + 2)


@dataclass(frozen=True, slots=True)
class FrameTruth:
    """The ground truth of one emitted frame: the physical ``board``, the last ``legal``
    board (they differ only while an injected illegal move lies on the board), the cells a
    hand covers, and the cell shown wrong by sensor flicker (None when none)."""

    board: Mapping[str, str]
    legal: Mapping[str, str]
    hand: frozenset[str] = frozenset()
    flicker: str | None = None


# -- geometry ------------------------------------------------------------------------------


def _pyramid_centre(name: str) -> tuple[float, float]:
    """Centre of a position in base-cell coordinates (1-based columns and rows)."""
    level, col, row = int(name[0]), "abcd".index(name[1]) + 1, int(name[2])
    half = (level - 1) / 2
    return col + half, row + half


_CENTRES = {name: _pyramid_centre(name) for name in pyramid.NAMES}


def pyramid_footprint(name: str) -> tuple[int, int, int, int]:
    """(first column, last column, first row, last row) of the base under a position."""
    level, col, row = int(name[0]), "abcd".index(name[1]) + 1, int(name[2])
    return col, col + level - 1, row, row + level - 1


def pyramid_patch(c0: int, c1: int, r0: int, r1: int) -> frozenset[str]:
    """The positions a hand over base columns c0..c1 and rows r0..r1 hides: every position
    whose centre lies inside that area (balls stacked there included)."""
    return frozenset(n for n, (x, y) in _CENTRES.items()
                     if c0 - 0.5 < x < c1 + 0.5 and r0 - 0.5 < y < r1 + 0.5)


def supported(board: Mapping[str, str]) -> bool:
    """Whether every ball of a pyramid board rests on four balls (a state a camera can see:
    a ball whose support was just lifted falls at once)."""
    occupied = sum(_BIT[n] for n, v in board.items() if v != EMPTY)
    for i in pyramid.bits(occupied):
        sup = pyramid.SUPPORTS[i]
        if occupied & sup != sup:
            return False
    return True


class SensorView:
    """What one kind of sensor reports for a physical board of one game."""

    def __init__(self, rules: Rules, occupancy: bool, trays: bool = False):
        self.game = rules.game
        self.pyramid = rules.game in PYRAMID_GAMES
        if occupancy and not self.pyramid:
            raise SimError(f"occupancy-only output (reed switches) is for the pyramid games, not {rules.game}")
        reserves = rules.reserves(rules.start()) if self.pyramid else None
        if trays and reserves is None:
            raise SimError(f"trays: reserve trays are sensed for Pylos only, not {rules.game}")
        self.occupancy = occupancy
        #: balls of each colour in the game (a sensed tray holds the ones not on the board)
        self.balls: dict[str, int] | None = None
        if trays and reserves is not None:
            self.balls = {"L": reserves["light"], "D": reserves["dark"]}
        if self.pyramid:
            self.names: tuple[str, ...] = BASE_NAMES if occupancy else pyramid.NAMES
            self.unknown = UNKNOWN
            self.values: tuple[str, ...] = ((OCCUPIED, EMPTY) if occupancy
                                            else tuple(PYRAMID_LETTERS[rules.game]) + (EMPTY,))
            self.width = self.height = 4
        else:
            board = rules.board  # type: ignore[attr-defined]
            self.names = board.names_of(board.live)
            self.unknown = UNKNOWN * 2
            self.values = tuple(c + m for c in "RGB" for m in ".bw")
            self.width, self.height = board.width, board.height
            self._coords = {n: split_square(n) for n in self.names}

    @property
    def camera(self) -> bool:
        return not self.occupancy

    def __call__(self, board: Mapping[str, str]) -> dict[str, str]:
        """The cells reported for ``board``."""
        if self.occupancy:
            return {n: EMPTY if board[n] == EMPTY else OCCUPIED for n in BASE_NAMES}
        if not self.pyramid:
            return {n: board[n] for n in self.names}
        occupied = sum(_BIT[n] for n, v in board.items() if v != EMPTY)
        return {n: UNKNOWN if pyramid.ABOVE[i] & occupied else board[n] for i, n in enumerate(pyramid.NAMES)}

    def reserves(self, board: Mapping[str, str]) -> dict[str, int] | None:
        """What the reserve trays' switches count for ``board`` (None: trays not sensed)."""
        if self.balls is None:
            return None
        on_board = {letter: sum(1 for v in board.values() if v == letter) for letter in self.balls}
        return {"light": max(0, self.balls["L"] - on_board["L"]), "dark": max(0, self.balls["D"] - on_board["D"])}

    # -- hands -------------------------------------------------------------------------
    def random_patch(self, rng: random.Random) -> frozenset[str]:
        """A hand somewhere over the board: mostly 2x2 base hollows (and what stands on
        them), or a patch of one to three Sparklies squares each way."""
        if self.pyramid:
            w, h = rng.choice(((2, 2), (2, 2), (1, 2), (2, 1), (1, 1)))
            c0, r0 = rng.randint(1, 5 - w), rng.randint(1, 5 - h)
            return pyramid_patch(c0, c0 + w - 1, r0, r0 + h - 1)
        w, h = rng.randint(1, min(3, self.width)), rng.randint(1, min(3, self.height))
        c0, r0 = rng.randrange(self.width - w + 1), rng.randrange(self.height - h + 1)
        return frozenset(n for n, (c, r) in self._coords.items()
                         if c0 <= c < c0 + w and r0 <= r < r0 + h)

    def patch_over(self, changed: list[str]) -> frozenset[str]:
        """The hand making a change: over every changed cell (and, for the pyramid, over
        the smallest base area under them, which hides everything that area holds)."""
        if not changed:
            return frozenset()
        if self.pyramid:
            prints = [pyramid_footprint(n) for n in changed]
            return pyramid_patch(min(p[0] for p in prints), max(p[1] for p in prints),
                                 min(p[2] for p in prints), max(p[3] for p in prints))
        cols = [self._coords[n][0] for n in changed]
        rows = [self._coords[n][1] for n in changed]
        if max(cols) - min(cols) < 3 and max(rows) - min(rows) < 3:
            return frozenset(n for n, (c, r) in self._coords.items()
                             if min(cols) <= c <= max(cols) and min(rows) <= r <= max(rows))
        return frozenset(changed)

    def flicker_value(self, value: str, rng: random.Random) -> str:
        """A wrong reading of one cell."""
        return rng.choice([v for v in self.values if v != value])


# -- the reel ------------------------------------------------------------------------------


class Reel:
    """Frames in time order, with their ground truth. ``show`` puts a new board in front of
    the sensor; the noise settings come from the configuration."""

    def __init__(self, view: SensorView, config: "SimConfig", rng: random.Random, t0: float = 0.0):
        self.view = view
        self.config = config
        self.rng = rng
        self.t0 = t0
        self.observations: list[Observation] = []
        self.truths: list[FrameTruth] = []
        self.presses: list[Press] = []
        self.shown: Mapping[str, str] | None = None
        self.legal: Mapping[str, str] | None = None
        self.stable = frames_needed(config.stable_frames, config.stable_seconds, config.fps)
        self._hand: frozenset[str] = frozenset()
        self._hand_left = 0
        self._last_flicker: tuple[str, str] | None = None
        self._clean = 0  # frames in a row, up to now, that show _clean_board as it is
        self._clean_board: Mapping[str, str] | None = None
        camera = view.camera
        self._hands = config.hands if camera else 0.0
        self._transitions = config.transition_hands if camera else 0.0

    @property
    def t_next(self) -> float:
        return self._time(len(self.observations))

    @property
    def t_last(self) -> float:
        return self._time(len(self.observations) - 1)

    def _time(self, index: int) -> float:
        return round(self.t0 + index / self.config.fps, 6)

    def press(self, button: str, player: str | None = None) -> None:
        """A button pressed half a frame after the last frame."""
        self.presses.append(Press(round(self.t_last + 0.5 / self.config.fps, 6), button, player))

    def _emit(self, board: Mapping[str, str], legal: Mapping[str, str], seen: dict[str, str],
              patch: frozenset[str] = frozenset(), flicker_ok: bool = False) -> bool:
        """One frame; True when it shows the board as it is (no hand, no flicker)."""
        hand = patch
        if self._hand_left > 0:
            hand = hand | self._hand
            self._hand_left -= 1
        cells = seen
        if hand:
            cells = dict(seen)
            for name in hand:
                if name in cells:
                    cells[name] = self.view.unknown
        flicker = None
        if flicker_ok and self.config.flicker and self.rng.random() < self.config.flicker:
            choices = [n for n, v in cells.items() if n not in hand and v != self.view.unknown]
            if choices:
                name = self.rng.choice(choices)
                value = self.view.flicker_value(cells[name], self.rng)
                if (name, value) == self._last_flicker:
                    value = self.view.flicker_value(cells[name], self.rng)
                glitch = {**cells, name: value}
                previous = self.observations[-1].cells if self.observations else None
                # never the same glitch twice running, never one that repeats the last frame
                if (name, value) != self._last_flicker and glitch != previous:
                    cells, flicker = glitch, name
                    self._last_flicker = (name, value)
        if flicker is None:
            self._last_flicker = None
        self.observations.append(Observation(self._time(len(self.observations)), cells, self.view.reserves(board)))
        self.truths.append(FrameTruth(board, legal, frozenset(n for n in hand if n in seen), flicker))
        clean = not hand and flicker is None
        if not clean:
            self._clean = 0
        elif self._clean and board == self._clean_board:
            self._clean += 1
        else:
            self._clean, self._clean_board = 1, board
        return clean

    def show(self, board: Mapping[str, str], *, legal: Mapping[str, str] | None = None,
             frames: int | None = None, important: bool = False, settle: bool = False) -> tuple[float, float]:
        """Put ``board`` in front of the sensor and hold it. A hand makes the change (it
        covers the changed cells for a frame or two); the board is then held for ``frames``
        (by default a random count from the configuration), its last frames free of noise
        so that it is stable for the referee; a random hand may stay over the board while
        it changes underneath, except at a ``settle`` board (the end of a turn: the player
        takes the hand away), which is always seen clearly for a while. ``important``
        boards (an illegal move, a restored or taken-back board) are held with no noise.
        Returns the times of the first and last frames that show the board held."""
        cfg, rng = self.config, self.rng
        legal = board if legal is None else legal
        old, old_legal = self.shown, self.legal
        if important or settle:
            self._hand_left = 0  # the hand leaves
        elif self._hands and self._hand_left <= 0 and rng.random() < self._hands:
            self._hand = self.view.random_patch(rng)
            self._hand_left = rng.randint(*cfg.hand_frames)
        if old is not None and old != board and self._transitions and rng.random() < self._transitions:
            changed = [n for n in board if board[n] != old.get(n)]
            patch = self.view.patch_over(changed)
            count = rng.randint(*cfg.transition_frames)
            seen_old, seen_new = self.view(old), self.view(board)
            for j in range(count):
                if j < count // 2:
                    self._emit(old, old_legal or old, seen_old, patch)
                else:
                    self._emit(board, legal, seen_new, patch)
        seen = self.view(board)
        nominal = frames if frames is not None else rng.randint(*cfg.frames_per_state)
        need = nominal if important else self.stable
        first = self.t_next
        emitted = clean = 0
        while True:
            flicker_ok = not important and emitted + self.stable < nominal
            clean = clean + 1 if self._emit(board, legal, seen, flicker_ok=flicker_ok) else 0
            emitted += 1
            if emitted >= nominal:
                if clean >= need:
                    break
                if self._hand_left > 0 and not (important or settle):
                    break  # the hand stays: the board may change under it
        self.shown, self.legal = board, legal
        return first, self.t_last

    def settle(self) -> None:
        """Make sure the board shown has just been seen long enough, with no hand or
        flicker (before something the referee must judge against it)."""
        if self.shown is None:
            return
        self._hand_left = 0
        seen = self.view(self.shown)
        while self._clean < self.stable or self._clean_board != self.shown:
            self._emit(self.shown, self.legal or self.shown, seen)

    def hold(self, seconds: float) -> None:
        """Keep the board shown, with no noise, for ``seconds`` more."""
        if self.shown is None or seconds <= 0:
            return
        seen = self.view(self.shown)
        for _ in range(max(1, round(seconds * self.config.fps))):
            self._emit(self.shown, self.legal or self.shown, seen)

    def cover(self, seconds: float, board: Mapping[str, str]) -> None:
        """Hands over the whole board while it is cleared and set up again as ``board``
        (nothing for reed switches, which no hand hides)."""
        if not self.view.camera or seconds <= 0:
            return
        everything = frozenset(self.view.names)
        seen = self.view(board)
        for _ in range(max(1, round(seconds * self.config.fps))):
            self._emit(board, board, seen, everything)
