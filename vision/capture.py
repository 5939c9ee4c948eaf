"""Frames from a camera, a video file, an image directory or a network stream, for the
daemon's ``camera:`` source.

``camera:0`` (device index), ``camera:game.mp4``, ``camera:frames/`` (an image sequence,
in name order), ``camera:rtsp://host/stream``. A live camera (device or stream) that stops
delivering frames is reopened with back-off until it is back; a file or directory ends.
How a camera is opened is injected (``opener``), so the reconnection logic is tested with a
camera that comes and goes; the clock and sleep are injected too.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2
import numpy as np

log = logging.getLogger("arbiter")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v")


class CaptureError(ValueError):
    """A camera spec or input that cannot be used: says which and why."""


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """What ``camera:`` names: ``kind`` is ``device``, ``file``, ``directory`` or ``stream``."""

    kind: str
    target: str

    @property
    def live(self) -> bool:
        return self.kind in ("device", "stream")


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: ``t`` seconds (the file's time for files and sequences, the clock for live
    cameras), its index, the image (BGR) or None with ``error`` for a frame that could not
    be read."""

    t: float
    index: int
    image: np.ndarray | None
    name: str = ""
    error: str = ""


def parse_camera_spec(spec: str) -> CameraSpec:
    body = spec[len("camera:"):] if spec.startswith("camera:") else spec
    if not body:
        raise CaptureError("camera: needs a device number, a video file, an image directory or a stream URL "
                           "(camera:0, camera:game.mp4, camera:frames/, camera:rtsp://...)")
    if body.isdigit():
        return CameraSpec("device", body)
    if "://" in body:
        return CameraSpec("stream", body)
    path = Path(body)
    if path.is_dir():
        return CameraSpec("directory", body)
    if path.is_file():
        if path.suffix.lower() not in VIDEO_SUFFIXES:
            raise CaptureError(f"camera:{body}: not a video file ({', '.join(VIDEO_SUFFIXES)}) or a directory")
        return CameraSpec("file", body)
    raise CaptureError(f"camera:{body}: no such file or directory")


def _open_cv(spec: CameraSpec) -> Any:
    return cv2.VideoCapture(int(spec.target) if spec.kind == "device" else spec.target)


class Capture:
    """Iterates the frames of a camera spec (see the module docstring)."""

    def __init__(self, spec: CameraSpec, *, fps: float = 10.0, opener: Callable[[CameraSpec], Any] = _open_cv,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 max_backoff: float = 8.0, stop: Callable[[], bool] = lambda: False):
        self.spec, self.fps, self.opener = spec, fps, opener
        self.clock, self.sleep, self.max_backoff, self.stop = clock, sleep, max_backoff, stop
        #: times the live camera was lost and reopened
        self.reconnects = 0

    def __iter__(self) -> Iterator[Frame]:
        if self.spec.kind == "directory":
            yield from self._directory()
        elif self.spec.kind == "file":
            yield from self._file()
        else:
            yield from self._live()

    def _directory(self) -> Iterator[Frame]:
        names = sorted(p for p in Path(self.spec.target).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not names:
            raise CaptureError(f"camera:{self.spec.target}: no images ({', '.join(IMAGE_SUFFIXES)}) in the directory")
        for index, path in enumerate(names):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            t = round(index / self.fps, 6)
            if image is None:
                yield Frame(t, index, None, path.name, f"{path.name}: not an image that can be read")
            else:
                yield Frame(t, index, image, path.name)

    def _file(self) -> Iterator[Frame]:
        cap = self.opener(self.spec)
        if not cap.isOpened():
            raise CaptureError(f"camera:{self.spec.target}: the video cannot be opened")
        fps = cap.get(cv2.CAP_PROP_FPS) or self.fps
        index = 0
        try:
            while not self.stop():
                ok, image = cap.read()
                if not ok:
                    return
                yield Frame(round(index / fps, 6), index, image, self.spec.target)
                index += 1
        finally:
            cap.release()

    def _live(self) -> Iterator[Frame]:
        index, backoff, cap = 0, 0.5, None
        while not self.stop():
            if cap is None:
                cap = self.opener(self.spec)
                if not cap.isOpened():
                    cap.release()
                    cap = None
                    log.warning("camera %s cannot be opened; trying again in %.1f s", self.spec.target, backoff)
                    self.sleep(backoff)
                    backoff = min(backoff * 2, self.max_backoff)
                    continue
                if index:
                    self.reconnects += 1
                    log.info("camera %s is back", self.spec.target)
                backoff = 0.5
            ok, image = cap.read()
            if not ok:
                log.warning("camera %s stopped delivering frames (unplugged?); reopening", self.spec.target)
                cap.release()
                cap = None
                continue
            yield Frame(self.clock(), index, image, self.spec.target)
            index += 1
        if cap is not None:
            cap.release()
