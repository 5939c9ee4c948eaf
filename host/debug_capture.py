"""Debug captures: the camera frames around an illegal flag, saved as a zip for whoever
has to find out whether the players or the camera were wrong.

The camera source keeps its recent frames in a :class:`FrameBuffer` (JPEG, bounded by time
and by count, so memory stays small). The daemon hands every batch of events to a
:class:`DebugCapture`; on an ``illegal`` event it takes the frames from ``before`` seconds
before the flag to ``after`` seconds after, waiting on a background thread for the later
ones, and writes ``<dir>/<board>-<game id or time>-<t>.zip`` holding:

- ``frames/NNNNNN.jpg``: the frames, named by their index in the source;
- ``observations.jsonl``: each frame's observation (the referee's log format), so
  ``arbiter referee`` can run over it;
- ``events.json``: the events of the flagged observation;
- ``capture.json``: board, game, times, each frame's file, time, pose and recognition error,
  the software version.

Data flows one way: the source fills the buffer, the sink reads it and never decides
anything. A directory that cannot be written or a full disk is logged, never fatal.
"""

from __future__ import annotations

import io
import json
import logging
import math
import os
import queue
import re
import threading
import time
import zipfile
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from . import __version__
from .events import ILLEGAL, Event
from .observation import Observation

log = logging.getLogger("arbiter")
#: the most frames a buffer keeps, whatever its time span (about 100-250 kB each as JPEG)
MAX_FRAMES = 300
JPEG_QUALITY = 90


@dataclass(frozen=True, slots=True)
class KeptFrame:
    """One frame as kept for debugging: its JPEG (None when it could not be read), the
    observation read from it (None likewise), the pose as ``arbiter recognize --json``
    gives it, and ``error``: why it was unreadable or showed no board."""

    t: float
    index: int
    name: str
    jpeg: bytes | None
    observation: Observation | None
    pose: dict[str, Any] | None = None
    error: str | None = None


def buffer_size(fps: float, before: float, after: float) -> tuple[float, int]:
    """(seconds, frames) a buffer needs for a capture window at ``fps``: the window and one
    second of slack, at most :data:`MAX_FRAMES` frames."""
    seconds = before + after + 1.0
    return seconds, max(2, min(MAX_FRAMES, math.ceil(seconds * fps) + 2))


class FrameBuffer:
    """The recent frames of a source, oldest first: at most ``seconds`` of source time and
    at most ``max_frames`` frames. Filled by the source's thread, read by others."""

    def __init__(self, seconds: float, max_frames: int, *, quality: int = JPEG_QUALITY):
        self.seconds, self.max_frames, self.quality = seconds, max_frames, quality
        self._frames: deque[KeptFrame] = deque()
        self._changed = threading.Condition()
        self._closed = False

    def keep(self, frame: Any, recognition: Any | None) -> None:
        """A frame (vision.capture.Frame) and what recognition made of it (None when the
        frame could not be read): encoded as JPEG and added."""
        jpeg = None
        if frame.image is not None:
            import cv2
            ok, data = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            jpeg = data.tobytes() if ok else None
        if recognition is None:
            self.add(KeptFrame(frame.t, frame.index, frame.name, jpeg, None, None, frame.error or None))
        else:
            self.add(KeptFrame(frame.t, frame.index, frame.name, jpeg, recognition.observation,
                               recognition.to_json().get("pose"), recognition.error))

    def add(self, kept: KeptFrame) -> None:
        with self._changed:
            self._frames.append(kept)
            while len(self._frames) > self.max_frames or kept.t - self._frames[0].t > self.seconds + 1e-6:
                self._frames.popleft()
            self._changed.notify_all()

    def between(self, t0: float, t1: float) -> list[KeptFrame]:
        """The frames kept from source time ``t0`` to ``t1`` (both included)."""
        with self._changed:
            return [f for f in self._frames if t0 <= f.t <= t1]

    @property
    def latest(self) -> float | None:
        """The newest frame's time (None while empty)."""
        with self._changed:
            return self._frames[-1].t if self._frames else None

    @property
    def closed(self) -> bool:
        return self._closed

    def wait_past(self, t: float, timeout: float) -> bool:
        """Wait until a frame at ``t`` or later is kept, or the source has ended; False on
        timeout."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self._closed or (bool(self._frames) and self._frames[-1].t >= t), timeout)

    def close(self) -> None:
        """The source has ended: nobody need wait for more frames."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()


@dataclass
class _Job:
    t: float
    events: list[dict[str, Any]]
    context: dict[str, Any]
    early: list[KeptFrame]  # the frames kept when the flag was raised


class DebugCapture:
    """Writes a zip of the frames around every ``illegal`` event (see the module
    docstring). ``events`` never blocks: the frames after the flag are awaited, and the
    zip written, on a background thread. ``wait`` bounds (wall-clock seconds) the wait for
    the frames after the flag: a camera that stops delivering does not hold a capture back
    for ever; what was kept by then is written."""

    def __init__(self, buffer: FrameBuffer, directory: str | Path, *, before: float, after: float,
                 board: str, source: str, wait: float | None = None,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)):
        self.buffer, self.directory = buffer, Path(directory)
        self.before, self.after = before, after
        self.board, self.source = board, source
        self.wait = after + 10.0 if wait is None else wait
        self.now = now
        #: the zips written so far
        self.written: list[Path] = []
        self._jobs: queue.Queue = queue.Queue()
        self._closing = threading.Event()
        self._worker: threading.Thread | None = None

    def events(self, events: Sequence[Event], *, board_id: str, game_id: int | None, game: str,
               variant: str) -> None:
        """The events of one observation or command: a capture is started when one of them
        is ``illegal``."""
        flags = [e for e in events if e.type == ILLEGAL]
        if not flags:
            return
        t = flags[0].t
        context = {"board_id": board_id, "game_id": game_id, "game": game, "variant": variant}
        early = self.buffer.between(t - self.before, t + self.after)
        self._jobs.put(_Job(t, [e.to_json() for e in events], context, early))
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="debug-capture", daemon=True)
            self._worker.start()

    def close(self, timeout: float = 10.0) -> None:
        """Write the captures still pending with the frames kept so far (waiting at most
        ``timeout`` seconds in all)."""
        self._closing.set()
        if self._worker is not None:
            self._jobs.put(None)
            self._worker.join(timeout)
            if self._worker.is_alive():
                log.error("debug capture: still writing after %.0f s; captures may be incomplete", timeout)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                self._capture(job)
            except Exception as exc:  # a debugging aid must never take the daemon down
                log.error("debug capture at t=%s failed: %s", job.t, exc)

    def _capture(self, job: _Job) -> None:
        end = job.t + self.after
        deadline = time.monotonic() + self.wait
        while not self.buffer.wait_past(end, 0.2):
            if self._closing.is_set() or time.monotonic() > deadline:
                break
        frames = {(f.index, f.t): f for f in job.early}
        frames.update({(f.index, f.t): f for f in self.buffer.between(job.t - self.before, end)})
        kept = sorted(frames.values(), key=lambda f: (f.t, f.index))
        path = self._path(job)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            data = self._zip(job, kept)
            partial = path.with_name(path.name + ".part")
            partial.write_bytes(data)
            os.replace(partial, path)
        except OSError as exc:
            log.error("debug capture: cannot write %s: %s", path, exc.strerror or exc)
            try:
                path.with_name(path.name + ".part").unlink(missing_ok=True)
            except OSError:
                pass
            return
        self.written.append(path)
        log.info("debug capture: %s (%d frames, t=%.3f to %.3f)", path, len(kept), job.t - self.before, end)

    def _path(self, job: _Job) -> Path:
        board = re.sub(r"[^A-Za-z0-9._-]", "_", job.context["board_id"])
        game = job.context["game_id"]
        stem = f"{board}-{game if game is not None else self.now().strftime('%Y%m%dT%H%M%S')}-{job.t:.3f}"
        path, k = self.directory / f"{stem}.zip", 2
        while path.exists():
            path, k = self.directory / f"{stem}-{k}.zip", k + 1
        return path

    def _zip(self, job: _Job, frames: list[KeptFrame]) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            listed = []
            for f in frames:
                name = f"frames/{f.index:06d}.jpg" if f.jpeg is not None else None
                if name is not None:
                    z.writestr(zipfile.ZipInfo(name, _stamp(self.now())), f.jpeg, zipfile.ZIP_STORED)
                listed.append({"file": name, "t": f.t, "index": f.index, "name": f.name,
                               "pose": f.pose, "error": f.error})
            z.writestr("observations.jsonl",
                       "".join(f.observation.to_line() + "\n" for f in frames if f.observation is not None))
            z.writestr("events.json", json.dumps(job.events, indent=1, ensure_ascii=False) + "\n")
            z.writestr("capture.json", json.dumps(self._description(job, listed), indent=1) + "\n")
        return out.getvalue()

    def _description(self, job: _Job, frames: list[dict[str, Any]]) -> dict[str, Any]:
        latest = self.buffer.latest
        return {**job.context, "board": self.board, "source": self.source, "flag_t": job.t,
                "from_t": job.t - self.before, "to_t": job.t + self.after,
                "complete": latest is not None and latest >= job.t + self.after,
                "frames": frames, "software": {"name": "tabletop-arbiter", "version": __version__},
                "written": self.now().isoformat(timespec="seconds")}


def _stamp(moment: datetime) -> tuple[int, int, int, int, int, int]:
    return (max(moment.year, 1980), moment.month, moment.day, moment.hour, moment.minute, moment.second)
