"""The simulator seen through a camera: every frame of a simulated game is rendered
(vision/render.py) and read by vision (vision/recognize.py), so the referee gets what a
real camera would give it, misreadings and unknowns included.

The simulator's frames keep their ground truth (host/sim_render.py, FrameTruth): the
physical board and the cells a hand covers. A :class:`CameraRig` is the camera on its
stand, the room's light and the sensor; a :class:`SeenGame` renders each frame of a game
from it, puts a hand over the cells the simulator says are covered, and reads the frame.
Rendering is the slow part, so the image of each distinct (board, hand) is rendered once,
without sensor noise, and every frame gets its own noise and JPEG compression on top; what
the camera sees of the empty board (vision.render.Stage) is worked out once for all.
The simulator's single-frame flicker (a stand-in for misreadings) is not used here: vision
makes its own.
"""

from __future__ import annotations

import math
import random
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Mapping

import cv2
import numpy as np

from .observation import Observation, Press

if TYPE_CHECKING:
    from vision.geometry import Board
    from vision.recognize import Recognizer
    from vision.render import Camera, Lighting

    from .sim import SimGame

#: the board each game is played on
BOARDS = {"pylos": "pyramid-4", "sparks": "pyramid-4", "sparklies": "grid-9"}
#: distinct images kept (an image of 1280x720 is 2.7 MB)
CACHE = 48
#: a light placed without glare is reflected at least this far from the lens (degrees)
NO_GLARE_DEG = 20.0
#: for a rig without glare: lights tried per camera, and cameras tried
LIGHT_TRIES = 5000
CAMERA_TRIES = 100


@dataclass(frozen=True)
class CameraRig:
    """A camera fixed above the board, the light, and the sensor's noise."""

    camera: "Camera"
    lighting: "Lighting"
    noise: float = 1.5
    blur: float = 0.6
    jpeg_quality: int | None = 90
    table_colour: tuple[int, int, int] = (84, 92, 104)
    wood_seed: int = 0

    @classmethod
    def typical(cls, board: "Board", rng: random.Random, resolution: tuple[int, int] = (1280, 720), *,
                glare: bool = True) -> CameraRig:
        """A camera as players set one up: on a stand over the board, 0-30 degrees off
        vertical, 450-650 mm away, a 55-70 degree lens; a room's light from above.
        ``glare=False``: the light is placed as docs/camera-setup.md advises, where its
        reflection off the board misses the lens (:func:`glare_deg`)."""
        from vision.render import Lighting, random_camera
        for _ in range(CAMERA_TRIES):
            camera = random_camera(board, rng, tilt_deg=(0.0, 30.0), distance_mm=(450.0, 650.0),
                                   fov_deg=(55.0, 70.0), resolutions=(resolution,), roll_deg=4.0)
            direction = _room_light(board, camera.centre, rng, glare)
            if direction is not None:
                break
        else:
            raise ValueError(f"no light without glare found for any of {CAMERA_TRIES} cameras")
        warm = rng.uniform(-1, 1) * 0.08
        lighting = Lighting(direction=direction, colour=(1.0 + warm, 1.0, 1.0 - warm),
                            intensity=rng.uniform(0.7, 1.3), ambient=rng.uniform(0.25, 0.4))
        return cls(camera, lighting, wood_seed=rng.randrange(1000))


def _room_light(board: "Board", eye: Any, rng: random.Random, glare: bool) -> tuple[float, float, float] | None:
    """A room light's direction, 50-80 degrees up; without ``glare``, the first of
    :data:`LIGHT_TRIES` whose reflection misses the lens. None when none does: a camera
    looking nearly straight down sees some such lamp reflected near it wherever the lamp
    goes (about half the cameras)."""
    for _ in range(LIGHT_TRIES):
        az = rng.uniform(0, 2 * math.pi)
        elevation = math.radians(rng.uniform(50, 80))
        direction = (math.cos(elevation) * math.cos(az), math.cos(elevation) * math.sin(az), math.sin(elevation))
        if glare or glare_deg(board, eye, direction) >= NO_GLARE_DEG:
            return direction
    return None


def glare_deg(board: "Board", eye: Any, light: tuple[float, float, float]) -> float:
    """How far (degrees) the light's mirror image in the board's plane is from the lens, at
    the cell or position where it is nearest: the angle between the plane's normal and the
    half-way vector of the light and the view. Glossy tiles shine where it is small (the
    renderer's tiles: 50 % of their highlight at 10 degrees, 6 % at 20)."""
    centres = np.array([p.centre for p in board.positions], dtype=np.float64)
    view = np.asarray(eye, dtype=np.float64) - centres
    view /= np.linalg.norm(view, axis=1, keepdims=True)
    half = view + np.asarray(light, dtype=np.float64)
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    return float(np.degrees(np.arccos(np.clip(half[:, 2].max(), -1.0, 1.0))))


def hand_over(board: "Board", cells: frozenset[str], rng: random.Random):
    """A hand low over the middle of ``cells`` (a player's hand making a move there)."""
    from vision.render import random_hand
    xs = [board.position(n).centre[0] for n in cells]
    ys = [board.position(n).centre[1] for n in cells]
    spread = max(max(xs) - min(xs), max(ys) - min(ys))
    top = max(board.position(n).centre[2] for n in cells)
    low = top + 25.0
    return random_hand(board, rng, over=(sum(xs) / len(xs), sum(ys) / len(ys)),
                       height_mm=(low, low + 30.0 + spread / 4))


class SeenGame:
    """Frames of simulated games on one board, rendered and read."""

    def __init__(self, board: "Board", rig: CameraRig, recognizers: Mapping[str, "Recognizer"],
                 rng: random.Random):
        self.board, self.rig, self.recognizers, self.rng = board, rig, recognizers, rng
        self._noise = np.random.default_rng(rng.randrange(2**32))
        self._images: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._stage: Any = None  # the board under this rig's camera, made at the first frame
        self.rendered = 0

    def _clean(self, cells: Mapping[str, str], hand: frozenset[str]) -> np.ndarray:
        """The frame before sensor noise, rendered once per (board, hand)."""
        from vision.render import Stage, render
        shown = {n: v for n, v in cells.items() if v not in (".", "..", "--")}
        key = (tuple(sorted(shown.items())), tuple(sorted(hand)))
        image = self._images.get(key)
        if image is not None:
            self._images.move_to_end(key)
            return image
        hands = []
        if hand:
            seed = zlib.crc32(",".join(sorted(hand)).encode())
            hands = [hand_over(self.board, hand, random.Random(seed))]
        rig = self.rig
        if self._stage is None:
            self._stage = Stage.of(self.board, rig.camera)
        image = render(self.board, shown, rig.camera, lighting=rig.lighting, hands=hands, blur=rig.blur,
                       table_colour=rig.table_colour, wood_seed=rig.wood_seed, stage=self._stage).image
        self.rendered += 1
        self._images[key] = image
        if len(self._images) > CACHE:
            self._images.popitem(last=False)
        return image

    def image(self, cells: Mapping[str, str], hand: frozenset[str] = frozenset()) -> np.ndarray:
        """One camera frame: the rendered board with fresh sensor noise and compression."""
        rig = self.rig
        image = self._clean(cells, hand)
        if rig.noise > 0:  # in place: no more frames of float64 than the noise itself
            noisy = self._noise.normal(0.0, rig.noise, image.shape)
            noisy += image
            image = np.clip(np.rint(noisy, out=noisy), 0, 255, out=noisy).astype(np.uint8)
        if rig.jpeg_quality is not None:
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, rig.jpeg_quality])
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        return image

    def observations(self, game: "SimGame", *, track: bool = True) -> Iterator[Observation | Press]:
        """The game's frames as vision reads them, with the button presses among them.
        ``track``: follow the board over time (vision/track.py), anchored on the game's start
        as a calibration would be."""
        from vision.track import Tracker
        reader: Any = self.recognizers[game.rules.game]
        if track:
            start = game.view(game.frames[0].board) if game.frames else {}
            reader = Tracker(reader, known={n: v for n, v in start.items() if "?" not in v})
        return game.stream(lambda obs, truth: reader.read(self.image(truth.board, truth.hand), obs.t).observation)


class Cameras:
    """One camera rig and reader per board, for games of any kind in turn."""

    def __init__(self, rng: random.Random, resolution: tuple[int, int] = (1280, 720), *, glare: bool = True):
        """``glare=False``: each light is placed where its reflection misses the lens."""
        self.rng, self.resolution, self.glare = rng, resolution, glare
        self._seen: dict[str, SeenGame] = {}

    def for_game(self, game: str) -> SeenGame:
        from vision.geometry import load_board
        from vision.recognize import Recognizer
        name = BOARDS[game]
        if name not in self._seen:
            board = load_board(name)
            rig = CameraRig.typical(board, self.rng, self.resolution, glare=self.glare)
            readers = {g: Recognizer(board, g) for g in board.games}
            self._seen[name] = SeenGame(board, rig, readers, random.Random(self.rng.randrange(2**32)))
        return self._seen[name]

    def observations(self, game: "SimGame") -> Iterator[Observation | Press]:
        return self.for_game(game.rules.game).observations(game)
