"""Following a board frame after frame from a camera that stays put.

A single frame can leave a position ``?`` (a light ball in poor light, a model that is not
sure) or read it one way in one frame and ``?`` in the next as the sensor's noise moves a
measure across a threshold. A board on a table only changes under a player's hand, so a
fixed camera sees the same pixels wherever nothing changed. :class:`Tracker` keeps, for
every position, what it last read there with confidence and the pixels it read it from
(leaving out what balls in front may hide). A position whose pixels have not changed since
keeps that reading; a position whose pixels changed is read afresh: as it was at an earlier
reading if it looks as it did then, else by what the model finds likely (the change itself
standing in for the model's usual threshold), else ``?``.

A reading is carried over only where the image gives no reason to doubt it: a fresh
confident reading that disagrees with unchanged pixels makes the position ``?`` (one of the
two is wrong), except against the known start, which is the players' word. Nothing is
guessed from the game's rules, with one exception of how it is played: a Pylos turn puts
one ball, so no ball is put on a place over an empty one in one reach
(:data:`ONE_BALL_A_TURN`). The support rules are checked again on the result (no ball over
an empty place, nothing floats).

A known position (``known``: the start a game is set up in, as at calibration) anchors
the readings at the first clear frame; without one the tracker starts from the frame's own
confident readings. A pose that moves by less than :data:`REBASE_PX` between two clear
frames that agree with what is kept (or when the lens has just been learnt) keeps what was
read and takes the pixels again; a larger move starts afresh. docs/vision.md has the rules
and the figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from host.observation import Observation

from .geometry import Board
from .intrinsics import Intrinsics
from .pose import Pose
from .recognize import Recognition, Recognizer, pose_shift
from .recognize_colour import pixels_at
from .recognize_pyramid import UNIT

#: a sample differs when a colour channel moved by more than this (8-bit levels)
DIFF_LEVELS = 14.0
#: a position changed when more than this share of its samples differ
CHANGED_SHARE = 0.06
#: the pose moved by more than this (pixels, anywhere on the plate): start afresh
MOVED_PX = 1.5
#: the model's probability that, with the pixels changed, reads a ball (or empty where it was empty)
CHANGE_BALL = 0.8
#: ... and empty where a ball was
CHANGE_EMPTY = 0.6
#: a move of the pose under this between two clear frames is noise: what is kept stays
REBASE_PX = 4.0
#: clear frames whose focal length estimates are pooled (no intrinsics file)
FOCAL_FRAMES = 5
#: a ball in front hides this much more than its own outline: blur, and the shadow and contact
#: darkening it casts on the balls it rests on
OCCLUDER_MARGIN = 1.25
#: a place read empty whose changed samples are fewer than this share of those in view, each
#: darker by the same factor in every channel (within SHADE_TINT), lies in the shadow of a
#: ball put beside it: still empty. Measured on a Pylos hollow shaded by the ball put next to
#: it (noisy game seed 2 through vision): 13 of 58 samples changed, each channel at 0.31-0.91
#: of before, the channels within 0.11 of each other
SHADE_SHARE = 0.5
#: how far apart the channels' factors of a shadow's darkening may lie (see SHADE_SHARE)
SHADE_TINT = 0.15
#: a place read empty is read ``#`` (likely a ball) from its changed pixels only where at
#: least this share of its samples changed: on 19 noisy games through vision the 94 right
#: such readings changed 0.56 or more, 3 of the 4 wrong ones (empty level-2 places over a
#: base ball that changed) 0.08-0.41
PUT_SHARE = 0.5
#: fewer samples in view than this: the position is hidden under balls
MIN_SAMPLES = 8
#: grids: a plate's ring this much darker than the bare wood is black, this much brighter white,
#: and within BARE_RATIO of it still bare
PLATE_DARK = 0.6
PLATE_BRIGHT = 1.15
BARE_RATIO = 0.06
#: ... but bare only where a white plate could not pass for it: the camera clips at this (the
#: 8-bit level 255, plus the 1 the ratios are taken with), and over wood lit to within
#: BARE_RATIO of it a white plate, clipped, would be as bright as the wood
CLIP_LUM = 256.0
#: a Sparklies setup's unread border is taken for bare wood only where its light, relative to
#: its own tile's (log ratio of the medians), is within this of the other borders round tiles
#: of that colour (at least SETUP_ALIKE of them). On rendered boards at 640x480 to 1280x720
#: bare borders were within 0.09 of their colour's median, white plates 0.18 or more above
#: it and black plates 0.71 or more below it
SETUP_SPREAD = 0.12
SETUP_ALIKE = 5
#: more than this share of the positions changed since read, on retaking the pixels at a
#: slightly moved pose between two clear frames: the camera moved (a move changes only the
#: few places a hand was over), so everything starts afresh
MOVED_SHARE = 0.25
#: earlier readings remembered per position
HISTORY = 4
#: grids: a cell's samples lie on this many by this many points over its control plate's square
PLATE_GRID = 8
#: how fast the pixels kept follow slow changes of light (per frame, where unchanged)
BLEND = 0.05
#: games where a turn puts one ball at most, so that a ball cannot be put on a place over
#: an empty one in one reach (a Sparks turn may put a ball and a second on it)
ONE_BALL_A_TURN = frozenset({"pylos"})


@dataclass(frozen=True, eq=False)
class Samples:
    """Per position, the pixels (row, column; -1 outside the image) where it shows: points
    on a ball's visible surface on a pyramid board, the control plate's square on a grid;
    and ``hidden[i, s, j]``: whether ball ``j``, when present, hides sample ``s`` of ``i``."""

    pixels: np.ndarray
    hidden: np.ndarray
    #: grids: per cell, pixels on the ring between the tile and the control plate's edge
    ring: np.ndarray | None = None

    @classmethod
    def of(cls, board: Board, pose: Pose) -> Samples:
        eye = pose.centre
        pts = []
        if board.kind == "pyramid":
            r = board.ball_diameter / 2 * 0.9
            for p in board.positions:
                c = np.asarray(p.centre, dtype=np.float64)
                view = (eye - c) / np.linalg.norm(eye - c)
                pts.append(c + r * UNIT[UNIT @ view > 0.25])
        else:
            h = board.control_size / 2
            z = board.control_thickness + board.tile_thickness
            grid = np.linspace(-h, h, PLATE_GRID)
            offsets = np.array([(x, y, z) for x in grid for y in grid])
            pts = [np.asarray(p.centre, dtype=np.float64) + offsets for p in board.positions]
        n, width = len(pts), max(len(q) for q in pts)
        pixels = np.full((n, width, 2), -1, dtype=np.intp)
        world = np.full((n, width, 3), np.nan)
        for i, q in enumerate(pts):
            pixels[i, :len(q)] = pose.pixels(q)
            world[i, :len(q)] = q
        hidden = np.zeros((n, width, n), dtype=bool)
        if board.kind == "pyramid":
            centres = np.array([p.centre for p in board.positions], dtype=np.float64)
            radius = board.ball_diameter / 2 * OCCLUDER_MARGIN
            ray = world - eye
            length = np.linalg.norm(ray, axis=2)
            d = ray / length[..., None]
            to_c = centres - eye  # P x 3
            along = np.einsum("isk,jk->isj", d, to_c)
            miss2 = np.sum(to_c ** 2, axis=1)[None, None, :] - along ** 2
            with np.errstate(invalid="ignore"):
                entry = along - np.sqrt(np.maximum(radius ** 2 - miss2, 0.0))
                hidden = (miss2 < radius ** 2) & (entry < length[..., None] - 1.0)
            hidden[np.isnan(length)] = False
            hidden[:, :, np.arange(n)] = hidden[:, :, np.arange(n)] & ~np.eye(n, dtype=bool)[:, None, :]
        ring = None
        if board.kind == "grid":
            half = (board.tile_size + board.control_size) / 4
            t = np.linspace(-half, half, 9)[:-1]
            square = np.concatenate([np.stack([t, np.full_like(t, -half)], 1), np.stack([np.full_like(t, half), t], 1),
                                     np.stack([-t, np.full_like(t, half)], 1), np.stack([np.full_like(t, -half), -t], 1)])
            offsets = np.concatenate([square, np.full((len(square), 1), board.control_thickness)], axis=1)
            ring = np.stack([pose.pixels(np.asarray(p.centre, dtype=np.float64) + offsets)
                             for p in board.positions])
        return cls(pixels, hidden, ring)


def _pixels(image: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The image's pixels at the samples ``pts`` (float, a channel axis even for grey) and
    which of them lie inside the image."""
    px, inside = pixels_at(image, pts)
    return px.astype(np.float32), inside


#: of a grid cell's PLATE_GRID x PLATE_GRID samples over its control plate's square, all but
#: the outer ring: on the tile
_TILE = np.array([r * PLATE_GRID + c for r in range(1, PLATE_GRID - 1) for c in range(1, PLATE_GRID - 1)])


def _median(values: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Per row, the median of ``values`` where ``ok``; NaN for a row with fewer than 8."""
    out = np.full(len(values), np.nan)
    for i in np.flatnonzero(ok.sum(axis=1) >= 8):
        out[i] = np.median(values[i][ok[i]])
    return out


def _bright_enough(bare: np.ndarray) -> bool:
    """Whether a white plate over this bare wood (its ring's brightness) would show as one."""
    return float(np.median(bare)) * (1.0 + BARE_RATIO) < CLIP_LUM


def _changed_samples(pixels: np.ndarray, ref: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Which of a position's samples (where ``ok``) changed from ``ref``."""
    return (np.abs(pixels - ref).max(axis=-1) > DIFF_LEVELS) & ok


def _differs(pixels: np.ndarray, ref: np.ndarray, ok: np.ndarray) -> bool:
    """Whether a position's samples (where ``ok``) changed from ``ref``."""
    return bool(_changed_samples(pixels, ref, ok).sum() > CHANGED_SHARE * max(int(ok.sum()), 1))


def _shaded(pixels: np.ndarray, ref: np.ndarray, differ: np.ndarray, ok: np.ndarray) -> bool:
    """Whether a position's samples (where ``ok``) changed as a shadow changes them (``differ``,
    :func:`_changed_samples`): fewer than :data:`SHADE_SHARE` of them, each darker in every
    channel by the same factor (within :data:`SHADE_TINT`). A ball put on the place changes
    most of its samples, and its shading and highlight make some lighter; a ball put beside
    it shades part of it."""
    if not differ.any() or differ.sum() >= SHADE_SHARE * ok.sum():
        return False
    ratio = pixels[differ] / np.maximum(ref[differ], 1.0)
    return bool((ratio.max(axis=1) < 1.0).all() and (ratio.max(axis=1) - ratio.min(axis=1) <= SHADE_TINT).all())


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
        self._samples: Samples | None = None
        self._kept: dict[int, tuple[str, np.ndarray]] = {}
        #: per position, earlier confident readings and their pixels (the newest last)
        self._history: dict[int, list[tuple[str, np.ndarray]]] = {}
        #: grids: per cell, the ring's pixels and their brightness when it was bare wood
        self._bare: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        #: grids, the frame just read if it had no arm in view: every cell's ring pixels, their
        #: brightness and which are in the image, and the frame
        self._rings: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        #: positions whose kept reading is the known start's, not the model's
        self._trusted: set[int] = set()
        self._supports = self._support_indices()
        self._focals: list[float] = []
        self._rebase = False
        self._last_clear = False
        #: a turn puts one ball at most (Pylos; a Sparks turn may put a ball and one on it)
        self._one_a_turn = recognizer.game in ONE_BALL_A_TURN
        #: positions from the top down: what lies over a place is settled before it
        self._order = sorted(range(len(self.names)), key=lambda i: -self.board.positions[i].centre[2])

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
        self._pose, self._samples, self._kept, self._history, self._trusted = None, None, {}, {}, set()
        self._bare, self._rings = {}, None

    def bare(self, cells: Mapping[str, str]) -> list[str]:
        """``cells``: what the frame just read showed, with no arm in view, every tile's
        colour read and no plate seen; taken for a Sparklies board set up for a game, which
        has no plate (the players' word, as at calibration). Its unread borders are the bare
        wood that a plate put down later is measured against, except where a border looks
        unlike the other borders round tiles of that colour (:data:`SETUP_SPREAD`): a plate
        the frame could not read may lie there. A cell whose bare wood is kept keeps it. The
        cells that took it (none for another board)."""
        if self._rings is None or any(c[0] == "?" or c[1] not in ".?" for c in cells.values()):
            return []
        assert self._samples is not None
        pts, lum, inside, frame = self._rings
        grey = frame if frame.ndim == 2 else frame.mean(axis=2)
        tile, on = _pixels(grey, self._samples.pixels[:, _TILE])
        framing = np.log(_median(lum, inside) / _median(tile[..., 0] + 1.0, on))
        took = []
        for colour in sorted({c[0] for c in cells.values()}):
            alike = [i for i, n in enumerate(self.names) if cells[n][0] == colour and not np.isnan(framing[i])]
            if len(alike) < SETUP_ALIKE:
                continue
            usual = float(np.median(framing[alike]))
            for i in alike:
                if cells[self.names[i]][1] == "?" and i not in self._bare and abs(framing[i] - usual) <= SETUP_SPREAD:
                    self._bare[i] = (pts[i], lum[i].copy())
                    took.append(self.names[i])
        return sorted(took, key=self.names.index)

    def _shift(self, pose: Pose) -> float:
        """How far (pixels, anywhere on the plate) ``pose`` moves the board from the pose the
        kept pixels were taken at; infinite when there is none."""
        if self._pose is None:
            return math.inf
        return 0.0 if self._pose is pose else pose_shift(self.board, self._pose, pose)

    @staticmethod
    def _clear(result: Recognition) -> bool:
        """No arm in view and no place that looks covered by a hand."""
        return not result.hand and not any(p[2] > 0.5 for p in result.probabilities.values() if p[2] == p[2])

    def _agrees(self, result: Recognition) -> bool:
        """Whether what the frame reads with confidence is what was kept (before the kept
        readings are carried over to new pixels); the known start's readings stand."""
        sure = [(result.observation.cells[self.names[i]], code) for i, (code, _) in self._kept.items()
                if "?" not in result.observation.cells[self.names[i]] and i not in self._trusted]
        return all(seen == code or (code == "#" and seen != ".") for seen, code in sure)

    def _learn_focal(self, result: Recognition) -> None:
        """Without an intrinsics file each frame's focal length is estimated anew, and its
        noise moves the pose by a pixel or two from frame to frame. A camera that stays put
        keeps its lens: the median of the first clear frames' estimates is kept."""
        pose = result.pose
        if self.recognizer.intrinsics is not None or pose is None or not self._clear(result) or not self._last_clear:
            return
        if len(pose.markers) < len(self.board.markers) or pose.focal_source not in ("estimated", "blend"):
            return
        self._focals.append(pose.focal)
        if len(self._focals) >= FOCAL_FRAMES:
            w, h = pose.size
            f = float(np.median(self._focals))
            self.recognizer.intrinsics = Intrinsics(w, h, f, f, (w - 1) / 2, (h - 1) / 2)
            self._rebase = True  # the next pose is the reference; what is kept stays

    def read(self, image: np.ndarray, t: float = 0.0) -> Recognition:
        """The frame's observation, with what unchanged pixels show carried over."""
        self._rings = None
        result = self.recognizer.read(image, t)
        if not result.ok or result.pose is None:
            self._last_clear = False  # (a hand over the markers, perhaps)
            return result  # a frame without the board says nothing about it
        self._learn_focal(result)
        rebase = False
        shift = self._shift(result.pose)
        if shift > MOVED_PX or self._rebase:
            if result.hand and self._samples is not None:
                return result  # a hand over a marker moves the pose: wait until it is gone
            # a small move between two clear frames (or the lens just learnt) keeps what
            # was read: nothing on the board moves without a hand
            rebase = (self._samples is not None and self._last_clear and self._clear(result)
                      and (self._rebase or shift < REBASE_PX) and self._agrees(result))
            if rebase and self._forget_changed(image) > MOVED_SHARE * len(self.names):
                rebase = False  # that much changed without a hand: the camera itself moved
            if not rebase:
                self._kept, self._history, self._trusted = {}, {}, set()
                self._bare = {}  # (a small move keeps them: each is held with its own pixels)
            self._pose, self._samples = result.pose, Samples.of(self.board, result.pose)
            self._rebase = False
        assert self._samples is not None
        hidden = self._samples.hidden
        px, inside = _pixels(image, self._samples.pixels)
        cells = dict(result.observation.cells)
        details = dict(result.details)
        if rebase:
            self._kept = {i: (code, px[i].copy()) for i, (code, _) in self._kept.items()}
            self._history = {}
        self._last_clear = self._clear(result)
        if self._known is not None and not result.hand:
            for i, name in enumerate(self.names):
                if name in self._known:
                    self._kept[i] = (self._known[name], px[i].copy())
                    self._trusted.add(i)
            self._known = None
        maybe = self._possible(cells)
        gone = np.zeros(len(self.names), dtype=bool)  # balls kept until this frame, now read empty
        for i in self._order:
            name = self.names[i]
            seen = cells[name]
            sure = self.unknown not in seen and "?" not in seen
            kept = self._kept.get(i)
            if kept is None:
                if sure and not result.hand:
                    self._keep(i, seen, px[i])
                maybe[i] = cells[name] != "."
                continue
            code, ref = kept
            ok = inside[i] & ~hidden[i][:, maybe].any(axis=1)
            # where a ball just taken off hid it, the kept pixels show that ball: take them anew
            bared = inside[i] & hidden[i][:, gone].any(axis=1)
            ref[bared] = px[i][bared]
            if ok.sum() < MIN_SAMPLES:
                # too little in view past what may stand in front: judge it past the balls
                # seen there only; covered by those, it cannot change without them moving
                balls = maybe & np.array([self.unknown not in cells[n] for n in self.names])
                ok = inside[i] & ~hidden[i][:, balls].any(axis=1)
                if ok.sum() < MIN_SAMPLES:
                    if not sure:
                        cells[name] = code
                        details[name] = f"hidden under balls, kept {code}"
                    maybe[i] = cells[name] != "."
                    continue
            if _differs(px[i], ref, ok):
                back = None if result.hand else self._recall(i, px[i], ok)
                if sure and not result.hand:
                    self._keep(i, seen, px[i])
                elif back is not None:
                    # it looks again as it did when it was read ``back``: the same content
                    cells[name], details[name] = back, f"looks as when it was read {back}"
                    self._keep(i, back, px[i])
                elif not sure and not result.hand:
                    changed = _changed_samples(px[i], ref, ok)
                    if code == "." and self._one_a_turn and self._over_empty(i):
                        # nothing rests on an empty place: a ball on it would need another put
                        # under it at once. A ball put (or taken) under it shows through it
                        cells[name] = "."
                        details[name] = "changed, but a place under it is empty: still empty"
                        self._keep(i, ".", px[i])
                    elif code == "." and _shaded(px[i], ref, changed, ok):
                        # (its pixels are not kept: where the shadow moves on, it looks as before)
                        cells[name] = "."
                        details[name] = "a shadow fell on part of it (darker, its colour kept): still empty"
                    else:
                        share = float(changed.sum()) / max(int(ok.sum()), 1)
                        if code == "." and share >= PUT_SHARE and self._put_on(i, px, inside, maybe):
                            cells[name] = "#"
                            why = "changed from empty, the balls under it only where it covers them: a ball put on it"
                        else:
                            cells[name], why = self._changed(code, result.probabilities.get(name), seen, share)
                        if why:
                            details[name] = why
                            self._keep(i, cells[name], px[i])  # held while the pixels stay so
                maybe[i] = cells[name] != "."
                gone[i] = code != "." and cells[name] == "."  # (``code``: kept until this frame)
                continue
            ref += BLEND * (px[i] - ref) * ok[:, None]  # slow changes of light
            if sure and seen != code and code == "#" and seen != ".":
                self._kept[i] = (seen, ref)  # the ball's colour, now read
                self._trusted.discard(i)
            elif sure and seen != code and i in self._trusted:
                # the pixels are those of the known start: the model misreads this place here
                cells[name] = code
                details[name] = f"read {seen}, but unchanged since the known start showed {code}"
            elif sure and seen != code:
                cells[name] = self.unknown
                details[name] = f"read {seen}, but unchanged since read {code}"
            elif not sure:
                cells[name] = code
                details[name] = f"unchanged since read {code}"
            maybe[i] = cells[name] != "."
        self._check_supports(cells, details)
        if self._samples.ring is not None:
            self._plates(image, result.hand, cells, details)
        return replace(result, observation=Observation(result.observation.t, cells), details=details)

    def _forget_changed(self, image: np.ndarray) -> int:
        """Before the pixels are taken again at a new pose: a position whose pixels changed
        since it was read, judged where it was read, loses its reading (a plate put down
        under the hand that was just lifted is not taken for the bare wood it covers). How
        many did."""
        assert self._samples is not None
        px, inside = _pixels(image, self._samples.pixels)
        maybe = self._possible({n: self._kept[i][0] if i in self._kept else "?" for i, n in enumerate(self.names)})
        forgot = 0
        for i, (_, ref) in list(self._kept.items()):
            ok = inside[i] & ~self._samples.hidden[i][:, maybe].any(axis=1)
            if ok.sum() >= MIN_SAMPLES and _differs(px[i], ref, ok):
                del self._kept[i]
                self._trusted.discard(i)
                forgot += 1
        return forgot

    def _plates(self, image: np.ndarray, hand: bool, cells: dict[str, str], details: dict[str, str]) -> None:
        """Grids: a control plate's border is one or two pixels wide in many views, too thin
        for a single frame to tell black from white. With a fixed camera, the same ring of
        pixels was seen as bare wood before: a plate put there since makes it much darker
        (black) or brighter (white) than the wood it covers, whatever the light. The ring is
        kept with the pixels it was seen at: taking the pixels again at a slightly moved
        pose (or once the lens is learnt) does not lose it."""
        assert self._samples is not None and self._samples.ring is not None
        if hand:
            return
        ring = self._samples.ring
        pts = np.stack([self._bare[i][0] if i in self._bare else ring[i] for i in range(len(self.names))])
        px, inside = pixels_at(image, pts)
        lum = px.mean(axis=-1).astype(np.float32) + 1.0  # the grey frame's (the channels' mean)
        self._rings = (pts, lum, inside, image)
        for i, name in enumerate(self.names):
            code = cells[name]
            if len(code) != 2 or code[0] == "?":
                continue
            bare = self._bare[i][1] if i in self._bare else None
            if code[1] == ".":
                self._bare[i] = (pts[i], lum[i].copy() if bare is None else bare + BLEND * (lum[i] - bare))
            elif code[1] == "?" and bare is not None and inside[i].sum() >= 8:
                ratio = float(np.median(lum[i][inside[i]] / bare[inside[i]]))
                plate = "b" if ratio < PLATE_DARK else "w" if ratio > PLATE_BRIGHT else None
                if plate is None and abs(ratio - 1.0) < BARE_RATIO and _bright_enough(bare[inside[i]]):
                    plate = "."
                if plate is not None:
                    cells[name] = code[0] + plate
                    details[name] = f"border {ratio:.2f} times as bright as the bare wood there: {plate}"

    def _keep(self, i: int, code: str, pixels: np.ndarray) -> None:
        """``code`` is what position ``i`` holds now, seen as ``pixels``; what was kept
        before goes into its history."""
        self._trusted.discard(i)
        old = self._kept.get(i)
        if old is not None:
            history = [h for h in self._history.get(i, []) if h[0] != old[0]] + [old]
            self._history[i] = history[-HISTORY:]
        self._kept[i] = (code, pixels.copy())

    def _recall(self, i: int, pixels: np.ndarray, ok: np.ndarray) -> str | None:
        """An earlier reading of position ``i`` whose pixels match the present ones."""
        for code, ref in reversed(self._history.get(i, [])):
            if not _differs(pixels, ref, ok):
                return code
        return None

    def _possible(self, cells: Mapping[str, str]) -> np.ndarray:
        """Positions that may hold a ball: not read empty, and every support may hold one
        (nothing floats), worked out from the base up."""
        possible = np.array([cells[n] != "." for n in self.names])
        for i in reversed(self._order):
            sup = self._supports.get(i, ())
            if sup and not possible[list(sup)].all():
                possible[i] = False
        return possible

    def _over_empty(self, i: int) -> bool:
        """Whether a place that upper place ``i`` rests on is read empty (as last kept)."""
        return any(s in self._kept and self._kept[s][0] == "." for s in self._supports.get(i, ()))

    def _put_on(self, i: int, px: np.ndarray, inside: np.ndarray, maybe: np.ndarray) -> bool:
        """Whether a ball was put on upper place ``i`` (read empty before; its pixels changed):
        the balls it rests on that are seen beyond it did not change there, and changed
        where it covers them (:data:`PUT_SHARE` of those samples or more). A ball under an
        empty place that changed, or was taken, changes beyond it too; one seen only under
        the place tells nothing either way. Colour need not tell a light ball from the
        light balls under it; this does."""
        assert self._samples is not None
        sup = self._supports.get(i, ())
        if not sup or any(s not in self._kept or self._kept[s][0] == "." for s in sup):
            return False
        others = maybe.copy()
        others[i] = False
        hidden = self._samples.hidden
        under = changed_under = 0
        for s in sup:
            ref = self._kept[s][1]
            ok = inside[s] & ~hidden[s][:, others].any(axis=1)
            changed = _changed_samples(px[s], ref, ok)
            beyond = ok & ~hidden[s][:, i]
            if beyond.sum() < MIN_SAMPLES:
                continue
            if changed[beyond].sum() > CHANGED_SHARE * beyond.sum():
                return False
            under += int((ok & hidden[s][:, i]).sum())
            changed_under += int((changed & hidden[s][:, i]).sum())
        return under >= MIN_SAMPLES and changed_under >= PUT_SHARE * under

    def _changed(self, code: str, p: tuple[float, float, float] | None, seen: str,
                 share: float = 1.0) -> tuple[str, str]:
        """A position whose pixels changed and that the frame alone leaves unsure: what the
        model finds likely (a ball, ``#`` as its colour may have changed; or empty) is taken.
        The change itself is the evidence the model's threshold asks for; the ball that
        left a place is judged more leniently, as the empty place over balls is where the
        model is least sure. A ball put on an empty place changes most of its samples
        (``share``): with fewer than :data:`PUT_SHARE` changed, a ball beside it or under it
        changed, and the place is left as the frame reads it."""
        if p is None or p[0] != p[0]:
            return seen, ""
        if code == "." and p[1] >= CHANGE_BALL and share >= PUT_SHARE:
            return "#", f"changed from empty, likely a ball (ball {p[1]:.2f})"
        if code == "." and p[0] >= CHANGE_BALL:
            return ".", f"changed around it, likely still empty (empty {p[0]:.2f})"
        if code != "." and p[0] >= CHANGE_EMPTY:
            return ".", f"changed from {code}, likely empty (empty {p[0]:.2f})"
        if code != "." and p[1] >= CHANGE_BALL:
            return "#", f"changed from {code}, likely a ball (ball {p[1]:.2f})"
        return seen, ""

    def _check_supports(self, cells: dict[str, str], details: dict[str, str]) -> None:
        """No ball over a place read empty: both become unknown; and nothing floats: an
        unknown place over a place read empty is empty (from the base up)."""
        for i, sup in self._supports.items():
            name = self.names[i]
            if cells[name] in (".", "?") or not sup:
                continue
            empty = [self.names[j] for j in sup if cells[self.names[j]] == "."]
            for other in (name, *empty):
                if empty:
                    cells[other] = "?"
                    details[other] = "support rules: a ball over an empty-looking support"
        for i in reversed(self._order):
            sup = self._supports.get(i, ())
            name = self.names[i]
            if sup and cells[name] == "?" and any(cells[self.names[j]] == "." for j in sup):
                cells[name] = "."
                details[name] = "support rules: a support is empty"
