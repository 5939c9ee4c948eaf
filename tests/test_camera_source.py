"""The daemon's camera: source: rendered frames of a short Pylos game (vision/render.py) go
through vision/capture.py and vision/recognize.py into the referee, from an image directory,
an .mp4 video and a live camera that an injected opener plays; frames with no board,
undecodable files, an illegal board with its debug capture, and bad configuration.

The view: 800x600, straight above the board from 420 mm with a 50 degree field of view,
one light 80 degrees up. Each distinct board is rendered once and held for several frames.
In this view recognition reads every board of the script exactly; in other views it left
some light balls unknown (docs/vision.md, "The camera source").
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from host.config import ConfigError, from_mapping
from host.daemon import Daemon
from host.debug_capture import DebugCapture, FrameBuffer, KeptFrame, buffer_size
from host.events import Event
from host.games import rules_for
from host.observation import Observation, ObservationError
from host.record import read_text, replay
from host.recorder import Recorder
from host.camera_source import _StuckLog, observe_frames, open_camera, throttle
from host.referee_match import occluded_cells
from host.sources import SourceError, open_source
from vision.capture import Frame
from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.render import Camera, Lighting, render
from vision.track import Tracker

ROOT = Path(__file__).resolve().parent.parent
PYLOS = rules_for("pylos")
PYRAMID = load_board("pyramid-4")
CAMERA = Camera.look_at(eye_mm=(0, 0, 420), target_mm=(0, 0, 0), fov_h_deg=50, width=800, height=600)
_UP, _ROUND = math.radians(80), math.radians(0)
LIGHT = Lighting(direction=(math.cos(_UP) * math.cos(_ROUND), math.cos(_UP) * math.sin(_ROUND), math.sin(_UP)),
                 colour=(1.0, 1.0, 1.0), intensity=1.3, ambient=0.2)
#: placements that recognition reads exactly in this view (no square, no raise)
SCRIPT = ["1c3", "1d4", "1b3", "1c4", "1c1"]
HOLD = 5  # frames per board: 0.4 s at 10 frames a second, more than the referee's 3 frames / 0.25 s
FPS = 10.0


def positions() -> list[Any]:
    out = [PYLOS.start()]
    for text in SCRIPT:
        out.append(PYLOS.play(out[-1], PYLOS.parse_turn(out[-1], text)))
    return out


class Renders:
    """Each distinct board rendered once (800x600 costs about 0.2 s)."""

    def __init__(self) -> None:
        self._images: dict[tuple, np.ndarray] = {}

    def __call__(self, cells: dict[str, str]) -> np.ndarray:
        key = tuple(sorted((n, v) for n, v in cells.items() if v != "."))
        if key not in self._images:
            self._images[key] = render(PYRAMID, cells, CAMERA, lighting=LIGHT, rng=random.Random(7),
                                       noise=1.0, blur=0.5).image
        return self._images[key]


@pytest.fixture(scope="module")
def renders() -> Renders:
    return Renders()


def game_images(renders: Renders) -> list[np.ndarray]:
    """The scripted game, every board held for HOLD frames."""
    return [renders(PYLOS.cells(p)) for p in positions() for _ in range(HOLD)]


def write_dir(directory: Path, images: list[np.ndarray | bytes]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for k, image in enumerate(images):
        path = directory / f"{k:04d}.png"
        if isinstance(image, bytes):
            path.write_bytes(image)
        else:
            assert cv2.imwrite(str(path), image)
    return directory


def write_video(path: Path, images: list[np.ndarray]) -> Path:
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (images[0].shape[1], images[0].shape[0]))
    assert out.isOpened()
    for image in images:
        out.write(image)
    out.release()
    return path


def recorded_positions(db: Path, game_id: int = 1) -> list[str]:
    with Recorder(db) as recorder:
        result = replay(read_text(recorder.export(game_id)))
    assert result.ok, result.error
    return [PYLOS.format_position(p) for p in result.positions]


def scripted_positions() -> list[str]:
    return [PYLOS.format_position(p) for p in positions()]


def run_daemon(tmp_path: Path, spec: str, camera: dict[str, Any] | None = None) -> tuple[Daemon, Path]:
    """The daemon in-process over a camera: source until the frames end."""
    config = from_mapping({"game": "pylos", "camera": camera or {}})
    source = open_source(spec, PYLOS, speed=0, camera=config.camera)
    db = tmp_path / "games.sqlite3"
    recorder = Recorder(db, board_id=config.board_id)
    try:
        daemon = Daemon(config, PYLOS, source, recorder=recorder, debug=source.camera.debug_sink())
        assert daemon.run() == 0
    finally:
        recorder.close()
    return daemon, db


# -- whole runs -------------------------------------------------------------------------------


def test_arbiter_run_on_an_image_directory_records_the_game(tmp_path, renders):
    """`arbiter run --source camera:DIR/`: the scripted turns are recorded. A blank frame and
    a file that is no image in the sequence are reported and the daemon goes on."""
    images: list[np.ndarray | bytes] = list(game_images(renders))
    images.insert(3 * HOLD, np.full((600, 800, 3), 90, np.uint8))  # the lens covered: no board
    images.insert(4 * HOLD + 3, b"not a png")  # 0023.png
    frames = write_dir(tmp_path / "frames", images)
    db = tmp_path / "games.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "host.cli", "run", "--game", "pylos", "--source", f"camera:{frames}/",
                           "--no-mqtt", "--quiet", "--speed", "0", "--db", str(db)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert recorded_positions(db) == scripted_positions()
    assert "no board in view" in proc.stderr and "blank frame" in proc.stderr
    assert "0023.png" in proc.stderr and "not an image" in proc.stderr and "(skipped)" in proc.stderr


def test_an_mp4_video_records_the_game(tmp_path, renders):
    video = write_video(tmp_path / "game.mp4", game_images(renders))
    daemon, db = run_daemon(tmp_path, f"camera:{video}")
    assert recorded_positions(db) == scripted_positions()
    assert daemon.debug is None  # no camera.debug_dir: no buffer, no captures


def test_an_illegal_board_is_flagged_and_its_frames_captured(tmp_path, renders):
    """A ball taken off that should stay (1c3, placed first): flagged, then put back
    (restored) and the game goes on. The zip holds the frames from debug_before seconds
    before the flag to debug_after seconds after, their observations, the events and
    capture.json."""
    boards = [PYLOS.cells(p) for p in positions()]
    wrong = {**boards[4], "1c3": "."}
    shown = boards[:5] + [wrong, wrong, boards[4]] + boards[5:]
    images = [renders(cells) for cells in shown for _ in range(HOLD)]
    frames = write_dir(tmp_path / "frames", images)
    debug = tmp_path / "debug"
    daemon, db = run_daemon(tmp_path, f"camera:{frames}/",
                            {"debug_dir": str(debug), "debug_before": 1.0, "debug_after": 0.5})
    assert recorded_positions(db) == scripted_positions()
    with Recorder(db) as recorder:
        events = [e for _, e in recorder.events(1)]
    illegal = [e for e in events if e["type"] == "illegal"]
    assert len(illegal) == 1 and [e["type"] for e in events].count("restored") == 1
    assert illegal[0]["cells"] == [{"cell": "1c3", "expected": "L", "seen": "."}]
    t = illegal[0]["t"]
    zips = sorted(debug.glob("*.zip"))
    assert [z.name for z in zips] == [f"board-1-1-{t:.3f}.zip"] and daemon.debug.written == zips
    with zipfile.ZipFile(zips[0]) as z:
        names = set(z.namelist())
        capture = json.loads(z.read("capture.json"))
        observations = [json.loads(line) for line in z.read("observations.jsonl").decode().splitlines()]
        events_json = json.loads(z.read("events.json"))
        first = cv2.imdecode(np.frombuffer(z.read(capture["frames"][0]["file"]), np.uint8), cv2.IMREAD_COLOR)
    window = [k / FPS for k in range(len(images)) if t - 1.0 <= k / FPS <= t + 0.5]
    assert [f["t"] for f in capture["frames"]] == [round(x, 6) for x in window]
    assert names == {"capture.json", "observations.jsonl", "events.json", *(f["file"] for f in capture["frames"])}
    assert [o["t"] for o in observations] == [f["t"] for f in capture["frames"]]
    by_t = {o["t"]: o["cells"] for o in observations}
    assert by_t[t]["1c3"] == "." and all(v == wrong.get(n, ".") for n, v in by_t[t].items())
    assert [e["type"] for e in events_json] == ["illegal"] and events_json[0]["t"] == t
    assert capture["board_id"] == "board-1" and capture["board"] == "pyramid-4" and capture["game_id"] == 1
    assert (capture["game"], capture["variant"], capture["flag_t"], capture["complete"]) == ("pylos", "standard", t, True)
    assert capture["software"]["name"] == "tabletop-arbiter" and capture["software"]["version"]
    assert all(f["pose"] is not None and f["pose"]["markers"] and f["error"] is None for f in capture["frames"])
    assert first.shape == (600, 800, 3)


def test_a_live_camera_is_read_at_most_fps_frames_a_second(renders):
    """A camera delivering 30 frames a second (an injected opener and clock) with
    camera.fps 10: every third frame is read, at the camera's time."""
    image = renders(PYLOS.cells(PYLOS.start()))

    class Device:
        def isOpened(self) -> bool:
            return True

        def read(self) -> tuple[bool, np.ndarray]:
            return True, image

        def release(self) -> None:
            pass

    ticks = itertools.count()
    cam = open_camera("camera:0", PYLOS, {"fps": 10}, opener=lambda spec: Device())
    cam.clock = lambda: 100.0 + next(ticks) / 30
    got = list(itertools.islice(iter(cam), 4))
    assert [round(o.t - 100.0, 3) for o in got] == [0.0, 0.1, 0.2, 0.3]
    assert all(o.cells["1a1"] == "." for o in got)
    cam.follow(rules_for("sparks"))  # the daemon switched games: Sparks colours from now on
    assert cam.recognizer.game == "sparks"


# -- frames to observations ---------------------------------------------------------------------


def test_frames_without_a_board_are_all_unknown_and_logged_at_most_every_few_seconds(renders, caplog):
    caplog.set_level(logging.INFO, logger="arbiter")
    board = renders(PYLOS.cells(PYLOS.start()))
    blank = np.zeros((600, 800, 3), np.uint8)
    noise = np.random.default_rng(3).integers(0, 256, (600, 800, 3), dtype=np.uint8)
    images = [board, blank, noise, blank, None, board]
    frames = [Frame(k / 10, k, image, f"f{k}.png", "" if image is not None else "f4.png: not an image")
              for k, image in enumerate(images)]
    now = iter([0.0, 1.0, 6.5, 12.0])  # wall clock at each no-board frame and the board's return
    items = list(observe_frames(frames, Recognizer(PYRAMID, "pylos"), clock=lambda: next(now)))
    assert isinstance(items[4], ObservationError) and "f4.png: not an image" in str(items[4])
    obs = [i for i in items if isinstance(i, Observation)]
    assert [o.t for o in obs] == [0.0, 0.1, 0.2, 0.3, 0.5]
    for o in obs[1:4]:
        assert set(o.cells) == {p.name for p in PYRAMID.positions} and set(o.cells.values()) == {"?"}
    assert obs[0].cells["1a1"] == "." and obs[4].cells["1a1"] == "."
    said = [r.getMessage() for r in caplog.records if r.name == "arbiter"]
    no_board = [m for m in said if "no board in view" in m]
    assert len(no_board) == 2  # frames 1 and 3 (6.5 s later); frame 2 came 1 s after the first
    assert "blank frame" in no_board[0] and "(2 frames without a board since the last message)" in no_board[1]
    assert any("in view again at t=0.5" in m for m in said)


def test_throttle_keeps_at_most_fps_frames_a_second():
    frames = [Frame(k / 30, k, None) for k in range(31)]
    assert [f.index for f in throttle(frames, 10)] == list(range(0, 31, 3))
    uneven = [Frame(t, k, None) for k, t in enumerate([0.0, 0.07, 0.14, 0.21, 0.28, 5.0, 5.05, 5.1])]
    assert [f.t for f in throttle(uneven, 10)] == [0.0, 0.14, 0.21, 5.0, 5.1]


# -- the frame buffer and the debug sink -----------------------------------------------------------


def kept(t: float, k: int) -> KeptFrame:
    return KeptFrame(t, k, f"f{k}", b"jpeg", Observation(t, {"1a1": "."}))


def test_the_frame_buffer_is_bounded_by_time_and_by_count():
    by_time = FrameBuffer(seconds=1.0, max_frames=100)
    for k in range(30):
        by_time.add(kept(k * 0.1, k))
    assert [f.index for f in by_time.between(0, 99)] == list(range(19, 30))
    by_count = FrameBuffer(seconds=100.0, max_frames=5)
    for k in range(30):
        by_count.add(kept(k * 0.1, k))
    assert [f.index for f in by_count.between(0, 99)] == list(range(25, 30))
    assert buffer_size(10, 5, 2) == (8.0, 82) and buffer_size(120, 60, 60)[1] == 300


def test_a_debug_directory_that_cannot_be_written_is_logged_not_fatal(tmp_path, caplog):
    caplog.set_level(logging.ERROR, logger="arbiter")
    (tmp_path / "a-file").write_text("x")
    buffer = FrameBuffer(10.0, 50)
    for k in range(10):
        buffer.add(kept(k * 0.1, k))
    buffer.close()
    sink = DebugCapture(buffer, tmp_path / "a-file" / "debug", before=0.3, after=0.2, board="pyramid-4",
                        source="camera:x")
    illegal = Event("illegal", 0.5, {"reason": "r", "cells": [], "position": "x"})
    sink.events([illegal], board_id="b", game_id=1, game="pylos", variant="standard")
    sink.close()
    assert sink.written == []
    assert any("debug capture: cannot write" in r.getMessage() for r in caplog.records)


# -- what cannot be used is refused -----------------------------------------------------------------


@pytest.mark.parametrize("section, words", [
    ({"fps": 0}, "camera.fps: expected more than 0"),
    ({"fps": "10"}, "camera.fps: expected a whole number or a number"),
    ({"debug_before": -1}, "camera.debug_before: expected 0 to 60 seconds"),
    ({"debug_after": 600}, "camera.debug_after: expected 0 to 60 seconds"),
    ({"debug_dir": ""}, "camera.debug_dir: an empty string"),
    ({"calibrat": "x"}, "camera.calibrat: unknown key"),
])
def test_configuration_errors_name_the_key(section, words):
    with pytest.raises(ConfigError, match=words):
        from_mapping({"camera": section})


def test_sources_that_cannot_be_used_say_why(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "broken.mp4").write_bytes(b"\x00" * 4096)
    cases = [
        ("camera:", PYLOS, {}, "needs a device number"),
        (f"camera:{tmp_path / 'missing.mp4'}", PYLOS, {}, "no such file or directory"),
        (f"camera:{tmp_path / 'broken.mp4'}", PYLOS, {}, "the video cannot be opened"),
        (f"camera:{tmp_path / 'empty'}", PYLOS, {}, "no images"),
        (f"camera:{tmp_path}", rules_for("sparklies"), {"board": "pyramid-4"},
         "camera.board: pyramid-4 is a pyramid board for pylos, sparks; sparklies is played on a grid board"),
        (f"camera:{tmp_path}", PYLOS, {"board": "grid-9"}, "camera.board: grid-9 is a grid board for sparklies"),
        (f"camera:{tmp_path}", rules_for("sparklies", width=7, height=7), {},
         r"camera.board \(default grid-9\): grid-9 is a 9x9 grid, the game's board is 7x7"),
        (f"camera:{tmp_path}", PYLOS, {"board": "pyramid-9"}, "camera.board: no board 'pyramid-9'"),
        (f"camera:{tmp_path}", PYLOS, {"intrinsics": str(tmp_path / "lens.json")}, "camera.intrinsics: .*lens.json"),
    ]
    for spec, rules, section, words in cases:
        with pytest.raises(SourceError, match=words):
            open_source(spec, rules, camera=section)

    class Unplugged:
        def isOpened(self) -> bool:
            return False

        def release(self) -> None:
            pass

    with pytest.raises(SourceError, match="camera:0: the camera cannot be opened"):
        open_camera("camera:0", PYLOS, opener=lambda spec: Unplugged())


def test_a_calibration_file_gives_its_colours_to_the_game_it_was_made_for(tmp_path, renders):
    """camera.calibration: the file of ``arbiter calibrate`` (here from a rendered Sparks
    start); its colours are used while the board plays Sparks, not Pylos; a file for another
    board or a corrupt file is refused naming the key."""
    from vision.calibration import calibrate
    sparks = rules_for("sparks")
    start = {n: v for n, v in sparks.cells(sparks.start()).items() if v != "."}
    image = render(PYRAMID, start, CAMERA, lighting=LIGHT).image
    path = tmp_path / "board.json"
    calibrate(image, PYRAMID, "sparks").save(path)
    write_dir(tmp_path / "frames", [image])
    cam = open_camera(f"camera:{tmp_path / 'frames'}", sparks, {"calibration": str(path)})
    assert cam.recognizer.recognizer.calibration is not None
    cam.follow(PYLOS)
    assert cam.recognizer.game == "pylos" and cam.recognizer.recognizer.calibration is None
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(SourceError, match="camera.calibration: .*bad.json"):
        open_camera(f"camera:{tmp_path / 'frames'}", sparks, {"calibration": str(tmp_path / "bad.json")})
    grid = rules_for("sparklies")
    with pytest.raises(SourceError, match="camera.calibration: .* is for board pyramid-4, not grid-9"):
        open_camera(f"camera:{tmp_path / 'frames'}", grid, {"calibration": str(path)})


def test_positions_that_keep_the_referee_waiting_are_named_once_they_stay_unread(caplog):
    """A still Sparklies start seen by one of the demo's grid cameras at 800x600, with no
    hand: six bare borders stay unread (``R?`` and ``B?``: on overexposed wood, or
    too few of their samples voting bare on borders 2.6 px wide; the camera of seed 7919 left
    one so until 2026-12-03, ``SPILT_SHARE``), and the referee decides nothing while any
    cell is unknown. After STUCK_AFTER seconds of frames the log names them, once; before,
    it says nothing."""
    from host.demo import examples
    from host.sim_vision import Cameras
    caplog.set_level(logging.INFO, logger="arbiter")
    _, example = examples("sparklies")[0]
    rules = example.rules
    board = rules.cells(example.positions[0])
    seen = Cameras(random.Random(4), (800, 600), glare=False).for_game("sparklies")
    reader = Tracker(Recognizer(seen.board, "sparklies"))
    frames = [Frame(float(k), k, seen.image(board, frozenset()), f"f{k}.png", "") for k in range(26)]
    waiting = lambda obs: occluded_cells(rules, obs, frozenset(obs.cells))  # noqa: E731
    items = list(observe_frames(frames, reader, waiting=waiting, stuck_after=20.0))
    last = items[-1]
    unread = waiting(last)
    assert unread and all(last.cells[n] == board[n][0] + "?" and board[n][1] == "." for n in unread), unread
    said = [r for r in caplog.records if r.name == "arbiter" and "not read for" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    message = said[0].getMessage()
    assert message.startswith(f"camera: {' '.join(unread)} not read for 20 s with no arm in view (t=20.0)")
    them = "them" if len(unread) > 1 else "it"
    assert f"the referee decides nothing until it can read {them}" in message and "camera-setup.md" in message


def test_the_stuck_log_ignores_frames_with_an_arm_and_says_when_positions_are_read_again(caplog):
    caplog.set_level(logging.INFO, logger="arbiter")
    rules = rules_for("pylos")
    waiting = lambda obs: occluded_cells(rules, obs, frozenset(obs.cells))  # noqa: E731
    stuck = _StuckLog(10.0, waiting)
    start = rules.cells(rules.start())
    blind = dict(start, **{"1a1": "?"})
    for t, cells, hand in [(0.0, blind, False), (5.0, blind, True), (9.0, start, True), (9.5, blind, False),
                           (10.0, blind, False), (12.0, blind, False), (13.0, start, False), (14.0, start, False)]:
        stuck.frame(Observation(t, cells), hand)
    said = [r.getMessage() for r in caplog.records if r.name == "arbiter"]
    # the arm's frames (at 5 and 9 s, one showing 1a1 read) neither ended nor restarted the wait
    assert said == ["camera: 1a1 not read for 10 s with no arm in view (t=10.0): the referee decides nothing until "
                    "it can read it; glare, a shadow or the camera's view? (docs/camera-setup.md)",
                    "camera: 1a1 read again at t=13.0"]
    # a ball resting on 1a1 (2a1, over 1a1 1a2 1b1 1b2) excuses its being unknown: no wait
    stuck = _StuckLog(0.0, waiting)
    caplog.clear()
    covered = dict(start, **{"2a1": "L", "1a1": "?", "1a2": "D", "1b1": "D", "1b2": "L"})
    stuck.frame(Observation(0.0, covered), False)
    assert not [r for r in caplog.records if r.name == "arbiter"]


def test_the_camera_source_waits_on_what_its_game_s_referee_waits_on(tmp_path, renders):
    """The source names unknowns as the referee of the game it reads does: in Sparks as
    in Pylos, an unknown base place is a wait unless a ball rests on it."""
    source = open_camera(f"camera:{write_dir(tmp_path / 'frames', [renders(PYLOS.cells(PYLOS.start()))])}", PYLOS)
    cells = dict(PYLOS.cells(PYLOS.start()), **{"1a1": "?", "1c3": "?", "1c4": "D", "1d3": "D", "1d4": "D",
                                                   "2c3": "L"})
    assert source.waiting(Observation(0.0, cells)) == ["1a1"]
    sparks = rules_for("sparks")
    source.follow(sparks)
    assert source.rules is sparks and source.recognizer.game == "sparks"
    assert source.waiting(Observation(0.0, dict(sparks.cells(sparks.start()), **{"1b2": "?"}))) == ["1b2"]


def test_a_sparklies_game_starts_from_the_camera_alone_where_single_frames_leave_borders_unread(tmp_path, caplog):
    """The demo's Sparklies example, its first turn played by the simulator with the
    players' hands, rendered at 640x480 and read by the daemon from ``camera:DIR/``. Single
    frames leave about 20 borders unread there in every frame, and the referee takes a start
    only from a board read whole: before, no game was ever started. The daemon tells the
    camera it waits for a start; the camera takes the still board with every tile read and
    no plate seen for it (its unread borders are bare wood) and the game is recorded."""
    from host.demo import examples
    from host.sim import SimConfig, simulate_game
    from host.sim_vision import Cameras
    caplog.set_level(logging.INFO, logger="arbiter")
    _, example = examples("sparklies")[0]
    rules = example.rules
    sim = simulate_game(rules, random.Random(1), SimConfig(seed=1, game="sparklies", camera=True),
                        script=[rules.format_turn(t) for t in example.turns[:1]], start=example.positions[0])
    seen = Cameras(random.Random(0), (640, 480), glare=False).for_game("sparklies")
    frames = write_dir(tmp_path / "frames", [seen.image(truth.board, truth.hand) for truth in sim.frames])
    config = from_mapping({"game": "sparklies"})
    source = open_source(f"camera:{frames}/", rules, speed=0, camera=config.camera)
    with Recorder(tmp_path / "games.sqlite3", board_id=config.board_id) as recorder:
        assert Daemon(config, rules, source, recorder=recorder).run() == 0
        result = replay(read_text(recorder.export(1)))
    assert result.ok, result.error
    assert [rules.format_position(p) for p in result.positions] == [rules.format_position(p)
                                                                   for p in example.positions[:2]]
    said = [r.getMessage() for r in caplog.records if "set up with no plate seen" in r.getMessage()]
    assert said and "are taken for bare wood" in said[0], said


def test_the_camera_takes_a_sparklies_setup_only_while_the_daemon_waits_and_until_it_reads_the_start(tmp_path):
    """A still Sparklies start at 640x480: a camera not told that the daemon waits leaves its
    unread borders unread; told so, it reads the start whole from the second frame and then
    stops taking a setup (the daemon reads the source on its own thread, which may run ahead
    of the referee), until the daemon says again that it waits."""
    from host.demo import examples
    from host.sim_vision import Cameras
    _, example = examples("sparklies")[0]
    rules = example.rules
    start = rules.cells(example.positions[0])
    seen = Cameras(random.Random(0), (640, 480), glare=False).for_game("sparklies")
    frames = write_dir(tmp_path / "frames", [seen.image(start, frozenset()) for _ in range(4)])
    idle = open_camera(f"camera:{frames}/", rules)
    assert [n for n, code in list(idle)[-1].cells.items() if code[1] == "?"]
    camera = open_camera(f"camera:{frames}/", rules)
    camera.expect_start(True)
    seen_cells = [obs.cells for obs in camera]
    assert [cells == start for cells in seen_cells] == [False, True, True, True]
    assert camera.expecting is False
