"""Recognition: one camera frame of a board -> the referee's Observation.

    from vision.geometry import load_board
    from vision.recognize import recognize
    result = recognize(image, load_board("pyramid-4"), "sparks", t=12.5)
    result.observation.to_line()   # {"t":12.5,"cells":{"1a1":"W","1b1":".",...}}

The pose comes from the board's markers (vision/pose.py) unless one is passed in. The
plate's colour is measured in the frame and every colour is judged relative to it. Pyramid
boards are read by vision/recognize_balls.py, grids by vision/recognize_grid.py; arms over
the board are looked for by vision/recognize_hands.py, and where it sees none, by
vision/recognize_outline.py. Whatever cannot be read with
confidence is ``?``; a frame with no usable pose is all ``?`` with ``error`` saying why.
Nothing here raises for a bad frame: a daemon can feed it anything.

:class:`Recognizer` keeps what depends only on the board (sample layouts, the model), so a
stream of frames pays for it once; :func:`recognize` builds one per call.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator, Mapping

import numpy as np

from host.observation import Observation

from .calibration_colours import BallPalette, TilePalette, tile_chroma
from .frame_still import StillBoard, region
from .geometry import Board
from .pose import MIN_MARKERS, Intrinsics, Pose, PoseError, as_grey, check_frame, estimate, pose_markers
from .pose_track import MarkerTracker
from .recognize_balls import Reading, Thresholds, read_pyramid
from .recognize_colour import Patches, margin_patches, margin_points, measure_plate, prototypes
from .recognize_border import load_border_model
from .recognize_grid import GridGeometry, GridLayout, read_grid, tile_prototypes
from .recognize_hands import HandSigns, band_hidden, band_patches, band_points, find_hands, plate_halo
from .recognize_covered import MarkerRings
from .recognize_glare import from_white, shine, under_glare
from .recognize_outline import Outline
from .recognize_reach import arm_reach
from .recognize_plates import plate_albedos
from .recognize_model import Ensemble, load
from .recognize_pyramid import Geometry, Layout

if TYPE_CHECKING:
    from .calibration import Calibration

#: ball letters by game
LETTERS = {"pylos": "LD", "sparks": "WBR"}
#: a new pose that moves the board less than this (pixels) keeps the previous one
STEADY_PX = 0.3
#: a reading stands for unchanged frames up to this long after its frame (seconds)
HOLD_S = 1.0


class RecognitionError(ValueError):
    """Recognition cannot run at all: an unknown game for the board, no trained model."""


@dataclass(frozen=True, eq=False)
class Recognition:
    """The observation, the pose it rests on (None without one), ``error`` (why the frame
    is all unknown, None when it was read) and per-position details."""

    observation: Observation
    pose: Pose | None
    board: str
    game: str
    error: str | None = None
    details: Mapping[str, str] = field(default_factory=dict)
    hand: bool = False
    #: pyramid boards: the model's (empty, ball, hand) probabilities per position
    probabilities: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)
    #: the reading of an earlier frame, which this one shows unchanged (vision/frame_still.py)
    held: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.observation.to_json(), "board": self.board, "game": self.game}
        if self.error is not None:
            out["error"] = self.error
        if self.pose is not None:
            out["pose"] = {"markers": list(self.pose.markers), "reprojection_px": round(self.pose.reprojection_px, 3),
                           "focal_px": round(self.pose.focal, 1), "focal_source": self.pose.focal_source,
                           "camera_mm": [round(float(v), 1) for v in self.pose.centre]}
        out["hand"] = self.hand
        out["details"] = dict(self.details)
        return out


def unknown_cells(board: Board, game: str) -> dict[str, str]:
    mark = "??" if game == "sparklies" else "?"
    return {p.name: mark for p in board.positions}


class Recognizer:
    """Recognition for one board and game; ``read`` a frame at a time.

    With a ``calibration`` (vision/calibration.py) the colour prototypes are the ones it
    measured; the pose is still found in every frame. With ``adapt`` the prototypes follow
    the light slowly: after each frame without a hand in view, the letters read with
    confidence pull their prototype a little towards what they measured, within a bound
    of the calibrated (or default) value (vision/calibration_colours.py). The markers are
    looked for first where the last frame had them (:class:`MarkerTracker`), and the last
    pose is kept while the frames show the markers exactly where it was found; while the
    board's region too is unchanged since the last frame read in full, that frame's reading
    stands, for up to ``hold`` seconds of frame time (vision/frame_still.py; 0: read every
    frame in full); a pyramid's levels are measured guessing the last frame's contents
    (vision/recognize_levels.py). That state lives in this instance. On a grid,
    ``border_model`` (the shipped one by default) looks again at borders read bare or white
    (vision/recognize_border.py), and ``border_pbr`` (the shipped one fitted on path traced
    frames by default) at those it passes. On a pyramid, ``model_pbr`` (the shipped one
    fitted on path traced frames by default) must call a place read empty so too."""

    def __init__(self, board: Board, game: str | None = None, *, intrinsics: Intrinsics | None = None,
                 model: Ensemble | None = None, thresholds: Thresholds = Thresholds(),
                 calibration: Calibration | None = None, adapt: bool = False,
                 border_model: Ensemble | None = None, border_pbr: Ensemble | None = None,
                 model_pbr: Ensemble | None = None, hold: float = HOLD_S):
        if calibration is not None:
            if calibration.board != board.name:
                raise RecognitionError(f"the calibration is for board {calibration.board}, not {board.name}")
            if game is not None and game != calibration.game:
                raise RecognitionError(f"the calibration is for {calibration.game}, not {game}")
            game = calibration.game
        game = game or board.games[0]
        if game not in board.games:
            raise RecognitionError(f"{board.name} is a board for {', '.join(board.games)}, not {game}")
        self.calibration = calibration
        self.adapt = adapt
        self.palette: BallPalette | None = None
        self.tile_palette: TilePalette | None = None
        colours_follow = calibration is not None or adapt
        self.board = board
        self.game = game
        self.intrinsics = intrinsics
        self.thresholds = thresholds
        self.protos = prototypes(board.colours or {}, board.plate_colour)
        self.rings = band_points(board)
        self.margin = margin_points(board)
        self._geometry: tuple[Pose, Geometry] | None = None
        self._grid_geometry: tuple[Pose, GridGeometry] | None = None
        self._patches: tuple[Pose, tuple[int, ...], Patches, Patches] | None = None
        self._band_masks: tuple[Pose, np.ndarray | None, np.ndarray] | None = None
        self._outline: tuple[Pose, tuple[int, ...], Outline] | None = None
        self._marker_rings: tuple[Pose, tuple[int, ...], MarkerRings] | None = None
        self.markers = MarkerTracker(board)
        self._held: Pose | None = None
        self.hold = hold
        self.still = StillBoard()
        #: the reading of the last frame read in full, when its pose came from the frames
        self._last: Recognition | None = None
        #: the image box compared for a pose and frame size: (pose, shape, box)
        self._region: tuple[Pose, tuple[int, ...], tuple[slice, slice] | None] | None = None
        #: which positions the last frame's reading took to maybe hold a ball
        #: (vision/recognize_levels.py: the next reading's guess)
        self._present: np.ndarray | None = None
        if board.kind == "pyramid":
            self.layout: Layout | None = Layout.of(board)
            self.border: Ensemble | None = None
            self.border_pbr: Ensemble | None = None
            self.model = model or load()
            if self.model is None:
                raise RecognitionError("no trained model: run python -m vision.recognize_train")
            self.model_pbr = model_pbr if model_pbr is not None else load(pbr=True)
            if colours_follow:
                self.palette = BallPalette(LETTERS[game], calibration.balls if calibration else {}, self.protos)
        else:
            self.layout = None
            self.model_pbr = None
            self.grid = GridLayout.of(board)
            self.tiles = tile_prototypes(board)
            self.albedo = plate_albedos(board)
            self.border = border_model if border_model is not None else load_border_model()
            self.border_pbr = border_pbr if border_pbr is not None else load_border_model(pbr=True)
            if colours_follow:
                self.tile_palette = TilePalette(calibration.tiles if calibration else {}, self.tiles)

    def unknown(self, t: float, error: str, pose: Pose | None = None) -> Recognition:
        return Recognition(Observation(t, unknown_cells(self.board, self.game)), pose, self.board.name, self.game,
                           error)

    def geometry(self, pose: Pose) -> Geometry:
        """The sample geometry for ``pose``, kept while the same pose is passed again (a
        camera on a stand, or a smoothed pose)."""
        if self._geometry is None or self._geometry[0] is not pose:
            assert self.layout is not None
            self._geometry = (pose, Geometry.of(self.layout, pose))
        return self._geometry[1]

    def patches(self, pose: Pose, shape: tuple[int, ...]) -> tuple[Patches, Patches]:
        """Where the plate's margin and the arm band fall in frames of ``shape`` for
        ``pose``, kept while the same pose is passed again."""
        if self._patches is None or self._patches[0] is not pose or self._patches[1] != shape[:2]:
            self._patches = (pose, shape[:2], margin_patches(self.board, pose, shape, self.margin),
                             band_patches(pose, self.rings, shape))
        return self._patches[2], self._patches[3]

    def band_masks(self, pose: Pose) -> tuple[np.ndarray | None, np.ndarray]:
        """Which arm band samples a ball may hide for ``pose`` (pyramid boards; None on a
        grid, whose flat pieces hide none), and which lie beside the plate's outline in the
        image; kept while the same pose is passed again."""
        if self._band_masks is None or self._band_masks[0] is not pose:
            hidden = None if self.layout is None else band_hidden(pose, self.rings, self.layout.centres,
                                                                  self.geometry(pose).radius_px)
            self._band_masks = (pose, hidden, plate_halo(pose, self.board, self.rings))
        return self._band_masks[1], self._band_masks[2]

    def outline(self, pose: Pose, shape: tuple[int, ...]) -> Outline:
        """The pairs of points across the plate's outline that show an arm the band missed
        (vision/recognize_outline.py), kept while the same pose and frame size come again."""
        if self._outline is None or self._outline[0] is not pose or self._outline[1] != shape[:2]:
            self._outline = (pose, shape[:2], Outline.of(self.board, pose, shape, *self._balls(pose)))
        return self._outline[2]

    def marker_rings(self, pose: Pose, shape: tuple[int, ...]) -> MarkerRings:
        """The rings round each marker that show a hand lying over one (vision/recognize_covered.py),
        kept while the same pose and frame size come again."""
        if self._marker_rings is None or self._marker_rings[0] is not pose or self._marker_rings[1] != shape[:2]:
            self._marker_rings = (pose, shape[:2], MarkerRings.of(self.board, pose, shape, *self._balls(pose)))
        return self._marker_rings[2]

    def _balls(self, pose: Pose) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
        """The balls that may stand between the camera and the plate's edge or a marker:
        their centres (mm) and radii in the image (px); none on a grid."""
        return (None, None) if self.layout is None else (self.layout.centres, self.geometry(pose).radius_px)

    def grid_geometry(self, pose: Pose) -> GridGeometry:
        """The grid's sample pixels for ``pose``, kept while the same pose is passed again."""
        if self._grid_geometry is None or self._grid_geometry[0] is not pose:
            self._grid_geometry = (pose, GridGeometry.of(self.grid, pose))
        return self._grid_geometry[1]

    def steady(self, pose: Pose) -> Pose:
        """The previous frame's pose when the new one moves no point of the board by more
        than :data:`STEADY_PX` (a camera on a stand) and rests on no more markers: its
        sample geometry is kept. A pose from more markers pins the board down better (the
        cells far from a marker hidden a frame before were unknown for it)."""
        last = self._geometry or self._grid_geometry
        if last is None:
            return pose
        old = last[0]
        keep = len(old.markers) >= len(pose.markers) and pose_shift(self.board, old, pose) < STEADY_PX
        return old if keep else pose

    def pose(self, image: np.ndarray) -> Pose:
        """The frame's pose from the markers (PoseError if none), looked for first where
        the last frame had them (vision/pose_track.py); the last pose found, when the
        frame shows every marker exactly where that frame did (vision/pose_still.py)."""
        check_frame(image)  # before the held check too: a bad frame is an error, never the last pose
        held = self._held_pose(image)
        return held if held is not None else self._measure(as_grey(image))

    def _held_pose(self, image: np.ndarray) -> Pose | None:
        return self._held if self._held is not None and self.markers.unmoved(image) else None

    def _measure(self, grey: np.ndarray) -> Pose:
        self._held = None
        found, quads = self.markers.find(grey)
        markers, rough = pose_markers(found, quads, self.board, grey, intrinsics=self.intrinsics)
        self._held = estimate(markers, self.board, (grey.shape[1], grey.shape[0]), intrinsics=self.intrinsics,
                              rough=rough)
        if len(found.keys() & self.markers.ids) < MIN_MARKERS:  # fewer than three decoded: the tracker held nothing
            self.markers.hold_matched(grey, self._held, markers)
        return self._held

    def read(self, image: Any, t: float = 0.0, pose: Pose | None = None) -> Recognition:
        """The observation of one frame (BGR uint8, H x W x 3); never raises for a bad
        frame: the result is all unknown and ``error`` says why."""
        try:
            check_frame(image)
        except PoseError as exc:
            return self.unknown(t, str(exc))
        if image.shape[0] < 16 or image.shape[1] < 16:
            return self.unknown(t, f"image of {image.shape[1]}x{image.shape[0]} pixels is too small")
        grey = None
        if image.ndim != 3 or image.shape[2] != 3:
            grey = as_grey(image)
            image = np.repeat(grey[..., None], 3, axis=2)
        found = pose is None
        if pose is None:
            pose = self._held_pose(image)
            if pose is not None:
                still = self._still_reading(image, t, pose)
                if still is not None:
                    return still
            else:
                grey = as_grey(image) if grey is None else grey
                if int(grey.max()) - int(grey.min()) < 16:
                    return self.unknown(t, "blank frame (no contrast): is the lens covered or the room dark?")
                try:
                    pose = self._held = self.steady(self._measure(grey))
                except PoseError as exc:
                    return self.unknown(t, str(exc))
        margin, band = self.patches(pose, image.shape)
        hands = find_hands(image, pose, self.rings, band, *self.band_masks(pose))
        marks = None  # the markers' rings' light: asked whether a hand lies over one, then of glare
        if not hands.present:  # on a table of the skin's colour the band sees no arm
            hidden = self.outline(pose, image.shape).crossings(image)
            if not len(hidden):  # an arm that crosses the outline under a marker it hides
                marks = self.marker_rings(pose, image.shape).seen(image)
                hidden = marks.covered()
            if len(hidden):
                hands = HandSigns(hidden, hands.seen)
        if self.layout is not None:
            palette = self.palette
            geo = self.geometry(pose)
            clear = keep = over = None
            if hands.present:  # which places, and which of the plate's strips, the arm lies well clear of
                centres = pose.project(self.layout.centres)
                reach = arm_reach(image, pose, self.board, hands, centres, geo.radius_px)
                if reach is not None:
                    clear = reach.clear(centres, geo.radius_px)
                    over = reach.over(centres, geo.radius_px)
                    strips = pose.project(self.margin)
                    keep = reach.clear(strips, np.zeros(len(strips)))
            plate = measure_plate(image, self.board, pose, patches=margin, keep=keep).colour
            readings, self._present = read_pyramid(image, self.layout, geo, plate,
                                                   palette.protos() if palette else self.protos, LETTERS[self.game],
                                                   self.model, hands, self.thresholds,
                                                   palette.colour if palette else None, self._present, clear,
                                                   self.model_pbr, over)
            if marks is not None and not hands.present:  # a varnished plate's glare: wood's colours not read
                readings = under_glare(readings, shine(plate, marks.paper()))
            cells = {n: r.code for n, r in readings.items()}
            details: Mapping[str, str] = Described(readings)
            probabilities = {n: r.p for n, r in readings.items()}
            if palette is not None and self.adapt and not hands.present:
                palette.adapt(readings)
        else:
            plate = measure_plate(image, self.board, pose, patches=margin).colour
            tiles = self.tile_palette
            geo = self.grid_geometry(pose)
            # the paper's colour with a hand in view too: its brighter half is the clear markers'; a
            # hand over most of them mismeasures it, which can only doubt more borders or none
            paper = (marks if marks is not None else self.marker_rings(pose, image.shape).seen(image)).paper_colour()
            to_white = from_white(plate, paper)
            cellr = read_grid(image, self.grid, geo, plate, tiles.protos() if tiles else self.tiles, self.albedo,
                              hands, self.border, to_white, self.border_pbr)
            cells = {n: r.code for n, r in cellr.items()}
            details = {n: r.why for n, r in cellr.items()}
            probabilities = {}
            if tiles is not None and self.adapt and not hands.present:
                tiles.adapt(cells, self.grid.names, *tile_chroma(image, self.grid, geo, plate))
        result = Recognition(Observation(t, cells), pose, self.board.name, self.game, None, details, hands.present,
                             probabilities)
        self._hold(image, result if found else None)
        return result

    def _still_reading(self, image: np.ndarray, t: float, pose: Pose) -> Recognition | None:
        """The last reading, when ``image`` shows the board as its frame did (same pose,
        region unchanged) within ``hold`` seconds of it."""
        last = self._last
        if last is None or last.pose is not pose or not 0.0 <= t - last.observation.t <= self.hold:
            return None
        if not self.still.unchanged(image):
            return None
        return replace(last, observation=replace(last.observation, t=t), held=True)

    def _hold(self, image: np.ndarray, result: Recognition | None) -> None:
        """Keep ``result`` and its frame's region to compare later frames with; None
        (a pose passed in, which later frames need not share) keeps nothing."""
        if result is None or result.pose is None or self.hold <= 0:
            self._last = None
            self.still.clear()
            return
        pose = result.pose
        if self._region is None or self._region[0] is not pose or self._region[1] != image.shape:
            self._region = (pose, image.shape, region(pose.project(self._region_points()), image.shape))
        self._last = result
        self.still.hold(image, self._region[2])

    def _region_points(self) -> np.ndarray:
        """Points whose image box holds all a reading looks at: the plate up to the top of
        the highest piece, and the band round it that hands are looked for in."""
        w, d = self.board.plate[0] / 2, self.board.plate[1] / 2
        top = max(p.centre[2] for p in self.board.positions) + max(self.board.ball_diameter, 10.0)
        box = np.array([(x, y, z) for x in (-w, w) for y in (-d, d) for z in (0.0, top)])
        return np.concatenate([box, *self.rings])


def pose_shift(board: Board, old: Pose, new: Pose) -> float:
    """How far (pixels) ``new`` moves any point of the board's plate, up to 60 mm above it,
    from where ``old`` shows it; infinite for another image size."""
    if old.size != new.size:
        return float("inf")
    w, d = board.plate[0] / 2, board.plate[1] / 2
    probe = np.array([(x, y, z) for x in (-w, w) for y in (-d, d) for z in (0.0, 60.0)])
    return float(np.max(np.abs(old.project(probe) - new.project(probe))))


class Described(Mapping[str, str]):
    """A pyramid reading's reasons with the model's probabilities, each written out when it
    is asked for: most frames' details are never looked at, and writing out every
    position's cost 0.15 ms a frame."""

    __slots__ = ("_readings",)

    def __init__(self, readings: Mapping[str, Reading]):
        self._readings = readings

    def __getitem__(self, name: str) -> str:
        return _describe(self._readings[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._readings)

    def __len__(self) -> int:
        return len(self._readings)

    def __repr__(self) -> str:
        return repr(dict(self))


def _describe(r: Reading) -> str:
    p = r.p
    if p[0] == p[0]:
        return f"{r.why} (empty {p[0]:.2f}, ball {p[1]:.2f}, hand {p[2]:.2f})"
    return r.why


def recognize(image: Any, board: Board, game: str | None = None, *, pose: Pose | None = None,
              intrinsics: Intrinsics | None = None, t: float = 0.0,
              calibration: Calibration | None = None) -> Recognition:
    """One frame's observation (see :class:`Recognizer`); ``game`` defaults to the board's
    first (or the calibration's)."""
    return Recognizer(board, game, intrinsics=intrinsics, calibration=calibration).read(image, t, pose)
