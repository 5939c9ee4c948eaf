"""The daemon's ``camera:`` source: frames from vision/capture.py, each read by
vision/recognize.py into an Observation at the frame's time.

    camera:0   camera:game.mp4   camera:frames/   camera:rtsp://host/stream

A frame with no usable board (no markers, a blank frame, a hand over the markers) becomes
an all-unknown observation, which the referee treats as occlusion, and the reason is
logged at most every few seconds. Positions that stay unknown with no arm in view (glare,
a shadow, a view that cannot read them) keep the referee waiting: after
:data:`STUCK_AFTER` seconds they are named in the log. A frame that cannot be decoded becomes an
ObservationError, which the daemon reports and skips. Nothing a camera delivers stops the
daemon. :func:`observe_frames` is the whole frame -> observation step, for any frames (the
simulator's rendered ones too).

The ``[camera]`` configuration section (docs/configuration.md) names the board geometry,
the lens (an intrinsics file), the most frames a live camera is read at per second, and the
debug captures (host/debug_capture.py).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Protocol

from .config import SCHEMA, board_kind
from .debug_capture import DebugCapture, FrameBuffer, buffer_size
from .games import Rules
from .observation import Observation, ObservationError
from .referee_match import occluded_cells
from .sources import SourceError

if TYPE_CHECKING:
    from vision.capture import CameraSpec, Frame
    from vision.geometry import Board
    from vision.recognize import Recognition

log = logging.getLogger("arbiter")
#: the board geometry each kind of game is read on unless camera.board names another
DEFAULT_BOARDS = {"pyramid": "pyramid-4", "grid": "grid-9"}
#: seconds between two "no board in view" messages
LOG_EVERY = 5.0
#: seconds of frame time positions may stay unknown, in every frame with the board in view
#: and no arm over it, before they are named in the log: the referee decides nothing
#: while one is unknown for no reason it can see (a player's hand is over in seconds)
STUCK_AFTER = 20.0


class Reader(Protocol):
    """What reads a frame: vision.recognize.Recognizer or anything like it."""

    def read(self, image: Any, t: float = 0.0) -> "Recognition": ...


class _NoBoardLog:
    """Says why frames show no board at most once per ``every`` seconds of ``clock`` (with
    how many such frames went by since), and that the board is back (unless that too would
    come within ``every`` seconds of the last message)."""

    def __init__(self, every: float, clock: Callable[[], float]):
        self.every, self.clock = every, clock
        self.last: float | None = None  # when the last message was logged
        self.missed = 0  # frames without a board since then
        self.out = False

    def _due(self) -> bool:
        now = self.clock()
        if self.last is not None and now - self.last < self.every:
            return False
        self.last = now
        return True

    def no_board(self, frame: "Frame", error: str) -> None:
        self.missed += 1
        self.out = True
        if self._due():
            more = f" ({self.missed} frames without a board since the last message)" if self.missed > 1 else ""
            log.warning("camera: no board in view at t=%s (%s): %s%s", frame.t, frame.name or frame.index, error, more)
            self.missed = 0

    def board(self, frame: "Frame") -> None:
        if self.out:
            if self._due():
                log.info("camera: the board is in view again at t=%s", frame.t)
            self.out = False


class _StuckLog:
    """Names the positions that keep the referee waiting: those ``waiting`` finds unknown in
    every frame with no arm in view for ``after`` seconds of frame time, once, and says when
    they are read again. Frames with an arm in view neither start nor end a wait: the hand
    explains what it covers."""

    def __init__(self, after: float, waiting: Callable[[Observation], list[str]]):
        self.after, self.waiting = after, waiting
        self.since: dict[str, float] = {}
        self.said: set[str] = set()

    def frame(self, obs: Observation, hand: bool) -> None:
        if hand:
            return
        now = set(self.waiting(obs))
        back = sorted(self.said - now)
        if back:
            self.said -= set(back)
            log.info("camera: %s read again at t=%s", " ".join(back), obs.t)
        self.since = {n: self.since.get(n, obs.t) for n in now}
        due = sorted(n for n, since in self.since.items() if n not in self.said and obs.t - since >= self.after)
        if due:
            self.said.update(due)
            log.warning("camera: %s not read for %.0f s with no arm in view (t=%s): the referee decides nothing "
                        "until it can read %s; glare, a shadow or the camera's view? (docs/camera-setup.md)",
                        " ".join(due), self.after, obs.t, "them" if len(due) > 1 else "it")


def observe_frames(frames: Iterable["Frame"], recognizer: Reader, *, keep: FrameBuffer | None = None,
                   clock: Callable[[], float] = time.monotonic, log_every: float = LOG_EVERY,
                   waiting: Callable[[Observation], list[str]] | None = None,
                   stuck_after: float = STUCK_AFTER) -> Iterator[Observation | ObservationError]:
    """The source items of ``frames`` (vision.capture.Frame): each frame's observation at
    the frame's time, read by ``recognizer`` (all unknown when the frame shows no usable
    board, the reason logged at most every ``log_every`` seconds of ``clock``), or an
    ObservationError for a frame that could not be decoded. ``keep``: a buffer that gets
    every frame with its reading, for debug captures. ``waiting``: the positions of an
    observation the referee waits on; named in the log once they have stayed so for
    ``stuck_after`` seconds with no arm in view."""
    quiet = _NoBoardLog(log_every, clock)
    stuck = _StuckLog(stuck_after, waiting) if waiting is not None else None
    try:
        for frame in frames:
            if frame.image is None:
                if keep is not None:
                    keep.keep(frame, None)
                yield ObservationError(f"{frame.error or f'frame {frame.name or frame.index}: no image'} "
                                       f"(the frame at t={frame.t})")
                continue
            try:
                result = recognizer.read(frame.image, frame.t)
            except Exception as exc:  # recognition never raises for a bad frame; should it, the source goes on
                log.error("camera: recognition failed on the frame at t=%s (%s): %r", frame.t,
                          frame.name or frame.index, exc)
                yield ObservationError(f"frame {frame.name or frame.index}: recognition failed: {exc}")
                continue
            if keep is not None:
                keep.keep(frame, result)
            if result.ok:
                quiet.board(frame)
                if stuck is not None:
                    stuck.frame(result.observation, result.hand)
            else:
                quiet.no_board(frame, result.error or "unknown reason")
            yield result.observation
    finally:
        if keep is not None:
            keep.close()


def throttle(frames: Iterable["Frame"], fps: float) -> Iterator["Frame"]:
    """At most ``fps`` frames a second of frame time; the others are dropped before anyone
    spends time on them (a live camera delivering 30 frames a second)."""
    period, due = 1.0 / fps, None
    for frame in frames:
        if due is None or frame.t >= due - 1e-6:  # (a microsecond for rounding)
            due = frame.t + period if due is None or frame.t - due >= period else due + period
            yield frame


def settings(section: Mapping[str, Any]) -> dict[str, Any]:
    """The [camera] section with every key (defaults from the schema filled in)."""
    return {key: section.get(key, default) for key, (_, default) in SCHEMA["camera"].items()}


def load_board_for(rules: Rules, name: str | None) -> "Board":
    """The board geometry the game is read on: ``camera.board`` or the default for the
    game's kind; SourceError (naming the key) for one the game cannot be played on."""
    from vision.geometry import GeometryError, load_board
    kind = board_kind(rules.game)
    where = "camera.board" if name else f"camera.board (default {DEFAULT_BOARDS[kind]})"
    try:
        board = load_board(name or DEFAULT_BOARDS[kind])
    except GeometryError as exc:
        raise SourceError(f"camera.board: {exc}") from None
    if rules.game not in board.games:
        raise SourceError(f"{where}: {board.name} is a {board.kind} board for {', '.join(board.games)}; "
                          f"{rules.game} is played on a {kind} board")
    if kind == "grid" and (board.columns, board.rows) != (rules.width, rules.height):
        raise SourceError(f"{where}: {board.name} is a {board.columns}x{board.rows} grid, the game's board is "
                          f"{rules.width}x{rules.height} (rules.size): name a geometry file of that size")
    return board


class CameraSource:
    """The frames of one camera spec read into observations; iterate it once. ``follow``
    switches the colours read when the daemon switches games (Pylos and Sparks on one
    pyramid). ``buffer`` keeps recent frames when debug captures are on."""

    def __init__(self, spec: "CameraSpec", board: "Board", rules: Rules, config: Mapping[str, Any], *,
                 opener: Callable[["CameraSpec"], Any] | None = None, intrinsics: Any = None,
                 calibration: Any = None, clock: Callable[[], float] = time.time):
        self.spec, self.board, self.config = spec, board, config
        self.opener, self.intrinsics, self.calibration, self.clock = opener, intrinsics, calibration, clock
        self.rules = rules
        self.recognizer = self._recognizer(rules.game)
        #: the daemon waits for the players to set up a game's start (:meth:`expect_start`)
        self.expecting = False
        self.buffer: FrameBuffer | None = None
        if config["debug_dir"]:
            seconds, count = buffer_size(self.rate(), config["debug_before"], config["debug_after"])
            self.buffer = FrameBuffer(seconds, count)

    def _recognizer(self, game: str) -> Any:
        """The reader of ``game``'s frames: recognition followed over time (vision/track.py),
        with the calibration's colours when it is for this game."""
        from vision.recognize import RecognitionError, Recognizer
        from vision.track import Tracker
        calibration = self.calibration if self.calibration is not None and self.calibration.game == game else None
        try:
            return Tracker(Recognizer(self.board, game, intrinsics=self.intrinsics, calibration=calibration))
        except RecognitionError as exc:
            raise SourceError(f"camera: {exc}") from None

    def rate(self) -> float:
        """Frames a second the source delivers at most (a video file's own rate)."""
        if self.spec.kind == "file":
            import cv2
            cap = self._open()
            try:
                return max(float(cap.get(cv2.CAP_PROP_FPS) or 0.0), self.config["fps"])
            finally:
                cap.release()
        return self.config["fps"]

    def _open(self) -> Any:
        if self.opener is not None:
            return self.opener(self.spec)
        import cv2
        return cv2.VideoCapture(int(self.spec.target) if self.spec.kind == "device" else self.spec.target)

    def check(self) -> None:
        """That the camera, video or directory can be read now; SourceError saying why."""
        from vision.capture import IMAGE_SUFFIXES
        where = f"camera:{self.spec.target}"
        if self.spec.kind == "directory":
            if not any(p.suffix.lower() in IMAGE_SUFFIXES for p in Path(self.spec.target).iterdir()):
                raise SourceError(f"{where}: no images ({', '.join(IMAGE_SUFFIXES)}) in the directory")
            return
        cap = self._open()
        try:
            if not cap.isOpened():
                what = {"file": "the video cannot be opened (not a video OpenCV can decode?)",
                        "device": "the camera cannot be opened (not connected, or in use by another program?)",
                        "stream": "the stream cannot be opened (wrong address, or the camera is offline?)"}
                raise SourceError(f"{where}: {what[self.spec.kind]}")
            if self.spec.kind == "file" and not cap.read()[0]:
                raise SourceError(f"{where}: the video has no frame that can be decoded")
        finally:
            cap.release()

    def follow(self, rules: Rules) -> None:
        """Read the colours of ``rules.game`` from the next frame on."""
        if rules.game in self.board.games:
            if rules.game != self.recognizer.game:
                self.recognizer = self._recognizer(rules.game)
            self.rules = rules

    def expect_start(self, waiting: bool) -> None:
        """Whether the daemon waits for the players to set up a game's start (a Sparklies
        referee with no game yet, or after one finished). A Sparklies start has no control
        plate: while waiting, a frame with no arm in view that reads every tile and no plate
        is the players' setup, and the borders it leaves unread are taken for the bare wood
        (vision/track.py, ``Tracker.bare``), so that the referee can read the board whole and
        start the game. Some views leave borders unread in every frame: too thin, the pose
        too loose there, a red tile's colour spilt over them. Once a frame reads the start
        whole, no more is taken until the daemon says again that it waits."""
        self.expecting = waiting

    def read(self, image: Any, t: float = 0.0) -> "Recognition":
        result = self.recognizer.read(image, t)
        if self.expecting and self.rules.game == "sparklies" and result.ok and not result.hand:
            cells = result.observation.cells
            if all(code[0] != "?" and code[1] == "." for code in cells.values()):
                # the start, read whole: the referee takes it from here. The daemon reads the
                # source on its own thread, which may run ahead of it (a video file)
                self.expecting = False
            else:
                took = self.recognizer.bare(cells)
                if took:
                    log.info("camera: a Sparklies board set up with no plate seen (t=%s): the borders of %s, not "
                             "read, are taken for bare wood", t, " ".join(took))
        return result

    def frames(self) -> Iterator["Frame"]:
        from vision.capture import Capture
        kwargs = {"opener": self.opener} if self.opener is not None else {}
        capture = Capture(self.spec, fps=self.config["fps"], clock=self.clock, **kwargs)
        return throttle(capture, self.config["fps"]) if self.spec.live else iter(capture)

    def __iter__(self) -> Iterator[Observation | ObservationError]:
        return observe_frames(self.frames(), self, keep=self.buffer, waiting=self.waiting)

    def waiting(self, obs: Observation) -> list[str]:
        """The positions of ``obs`` the referee waits on: unknown where nothing explains it
        (host/referee_match.py)."""
        return occluded_cells(self.rules, obs, frozenset(obs.cells))

    def debug_sink(self) -> DebugCapture | None:
        """The sink that writes debug captures from this source's buffer (None when
        camera.debug_dir is not set)."""
        if self.buffer is None:
            return None
        return DebugCapture(self.buffer, self.config["debug_dir"], before=self.config["debug_before"],
                            after=self.config["debug_after"], board=self.board.name,
                            source=f"camera:{self.spec.target}")


def open_camera(spec: str, rules: Rules, config: Mapping[str, Any] | None = None, *,
                opener: Callable[["CameraSpec"], Any] | None = None) -> CameraSource:
    """The camera source a ``camera:`` spec names, checked (SourceError saying what cannot
    be used: the spec, the board, the intrinsics file, a camera that cannot be opened)."""
    from vision.capture import CaptureError, parse_camera_spec
    from vision.intrinsics import IntrinsicsError, load_intrinsics
    values = settings(config or {})
    try:
        camera_spec = parse_camera_spec(spec)
    except CaptureError as exc:
        raise SourceError(str(exc)) from None
    board = load_board_for(rules, values["board"])
    intrinsics = None
    if values["intrinsics"]:
        try:
            intrinsics = load_intrinsics(values["intrinsics"])
        except IntrinsicsError as exc:
            raise SourceError(f"camera.intrinsics: {exc}") from None
    calibration = None
    if values.get("calibration"):
        from vision.calibration import CalibrationError, load_calibration
        try:
            calibration = load_calibration(values["calibration"])
        except (CalibrationError, OSError, ValueError) as exc:
            raise SourceError(f"camera.calibration: {exc}") from None
        if calibration.board != board.name:
            raise SourceError(f"camera.calibration: {values['calibration']} is for board {calibration.board}, "
                              f"not {board.name}")
    source = CameraSource(camera_spec, board, rules, values, opener=opener, intrinsics=intrinsics,
                          calibration=calibration)
    source.check()
    if values["debug_dir"]:
        _check_debug_dir(values["debug_dir"])
    return source


def _check_debug_dir(directory: str) -> None:
    """Says at start-up when the debug directory cannot be written (captures then fail
    one by one, logged; the daemon runs on)."""
    path = Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.error("camera.debug_dir: %s cannot be created (%s); debug captures will fail", directory,
                  exc.strerror or exc)
        return
    if not os.access(path, os.W_OK):
        log.error("camera.debug_dir: %s is not writable; debug captures will fail", directory)
