"""Fit the pyramid model (vision/recognize_model.py) on rendered frames and write
vision/recognize_weights.py:

    python -m vision.recognize_train [--frames 1200] [--seed 1] [--mid-move 300]
                                     [--pbr 300 [--pbr-weight 3]] [--pbr-dirs DIR...]

Frames come from the renderer with random games (random legal play), cameras, light,
hands, table colours, sensor noise, blur and JPEG, and with the plate's and the balls'
colours varied around the geometry file's defaults, so that the model learns shape and
shading relative to the plate rather than this renderer's exact colours. With ``--pbr``,
scenes of the same kind path traced by Mitsuba 3 (vision/render_pbr.py, no hands) are
measured too, each position weighted ``--pbr-weight``: glossy balls reflect the room and
light bounces between the pieces, which this project's renderer does not draw. With
``--mid-move``, more frames whose Sparks positions show empty base hollows (with balls
resting on the full ones), as a board does while a coal is taken
(:func:`mid_move_position`; seeds apart from the benchmark's). With ``--pbr-dirs``, the
path traced frames kept in those folders (``python -m vision.pbr_frames --board
pyramid-4``) are measured in every photograph's look (webcam, JPEG, shadow, colour cast),
weighted ``--pbr-weight`` too; with ``--frames 0`` and ``--out
vision/pyramid_pbr_weights.py`` that fits the second model, on path traced frames alone
(vision/recognize_balls.py, ``second_empty``).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from host.games import rules_for

from .geometry import Board, load_board
from .pose import PoseError, estimate_pose
from .recognize_balls import gather
from .recognize_colour import margin_points, measure_plate, prototypes
from .recognize_features import NAMES, measure_level
from .recognize_hands import band_points, find_hands
from .recognize_model import Ensemble, train
from .recognize_pyramid import Geometry, Layout
from .recognize_thresholds import Thresholds
from .render import Camera, Lighting, random_camera, random_hand, random_lighting, render
from .render_hand import hand_motion
from .render_light import soft_lighting
from .render_room import RoomLight
from .render_scene import hand_placed
from .render_webcam import Webcam

#: tables the training frames stand on (sRGB): grey-blue, dark grey, green felt, navy, slate
TABLES = ((84, 92, 104), (60, 60, 62), (52, 96, 64), (40, 52, 84), (110, 118, 122))
#: where a ball is covered this much by a hand, the model learns "hand"
HAND_COVER = 0.02
MIN_SAMPLES = Thresholds().min_samples
#: the first seed of the path traced training frames (``--pbr``): apart from the seeds the
#: path traced benchmark reads (benchmarks/bench_vision_pbr.py, 7,000,000 on)
PBR_FIRST = 7_500_000
#: the seed of the mid-move training frames (``--mid-move``): apart from the seeds the
#: benchmark's mid-move row and the looks read (5,000,000 on)
MID_MOVE_TRAIN_SEED = 7_700_000
#: the random sets' looks (benchmarks/bench_vision_random.py): as rendered, through the
#: seed's random webcam, with colours far from the defaults, under a soft bouncing light,
#: with a white balance drifting across the frame, with a large soft shadow over part of it,
#: with the wood's grain on the wooden balls, with a hand in every frame blurred by its motion,
#: with a grid's pieces put down off true (a pyramid's frames are then its plain ones)
LOOKS = ("plain", "webcam", "far-colour", "soft-light", "cast-drift", "shadow", "grain", "motion", "placed")
#: the looks that change the rendered frame afterwards, as a room's light would
ROOM_LOOKS = ("cast-drift", "shadow")


def random_position(game: str, rng: random.Random, turns: int) -> dict[str, str]:
    """The cells after up to ``turns`` random legal turns from the start."""
    rules = rules_for(game)
    position = rules.start(rng) if game == "sparklies" else rules.start()  # type: ignore[call-arg]
    for _ in range(turns):
        if rules.outcome(position) is not None:
            break
        position = rules.play(position, rules.random_turn(position, rng))
    return rules.cells(position)


def mid_move_position(game: str, rng: random.Random, turns: int) -> dict[str, str]:
    """For Sparks, what a board shows mid-move: a Pylos position's balls as Sparks balls
    (light wood white, stained black, three in ten red), so that base hollows are empty,
    which no legal Sparks position leaves (every turn fills the hollow it empties). Other
    games as :func:`random_position`."""
    if game != "sparks":
        return random_position(game, rng, turns)
    cells = random_position("pylos", rng, turns)
    return {name: ("R" if rng.random() < 0.3 else "W" if v == "L" else "B") if v in "LD" else v
            for name, v in cells.items()}


def _jitter(colour: tuple[int, int, int], rng: random.Random, amount: int) -> tuple[int, int, int]:
    return tuple(int(min(255, max(0, c + rng.randint(-amount, amount)))) for c in colour)  # type: ignore[return-value]


def varied(board: Board, rng: random.Random, spread: tuple[int, int] = (14, 18)) -> Board:
    """The board with its ball (or tile) and plate colours moved from the defaults, each
    channel by up to ``spread`` sRGB levels (balls, plate)."""
    colours = {k: _jitter(c, rng, spread[0]) for k, c in (board.colours or {}).items()}
    return dataclasses.replace(board, plate_colour=_jitter(board.plate_colour, rng, spread[1]), colours=colours)


def far_colours(board: Board, rng: random.Random) -> Board:
    """The board with colours farther from the defaults than any frame the thresholds were
    chosen on: each channel moved by up to 10 % (balls, tiles) or 14 % (plate) of the
    colour's brightest channel, so that light wood may be redder or greener than the
    plate while black stays black (another renderer's idea of the materials)."""
    def move(c: tuple[int, int, int], share: float) -> tuple[int, int, int]:
        return _jitter(c, rng, max(2, round(share * max(c))))
    colours = {k: move(c, 0.10) for k, c in (board.colours or {}).items()}
    return dataclasses.replace(board, plate_colour=move(board.plate_colour, 0.14), colours=colours)


@dataclasses.dataclass(frozen=True)
class Scene:
    """One rendered frame with what it holds."""

    frame: object
    cells: dict[str, str]
    game: str
    seen_board: Board
    #: how the frame was rendered, but for the sensor noise's generator (:meth:`retake`)
    settings: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)

    def retake(self, seed: int) -> np.ndarray:
        """The same scene from the same camera with other sensor noise (and its JPEG): the
        next frame of a camera on a stand."""
        return render(**self.settings, rng=np.random.default_rng(seed)).image


def scenes(board: Board, rng: random.Random, count: int, *, hands: float = 0.35,
           resolutions=((640, 480), (800, 600), (1280, 720)),
           lighting: Callable[[Camera, random.Random], Lighting] | None = None,
           vary: Callable[[Board, random.Random], Board] = varied,
           position: Callable[[str, random.Random, int], dict[str, str]] = random_position,
           grain: bool = False, motion: bool = False, placed: bool = False) -> Iterator[Scene]:
    """Random frames of random positions; ``lighting(camera, rng)`` chooses the light (a
    random room light when None), ``vary(board, rng)`` the board's colours,
    ``position(game, rng, turns)`` the cells. With ``grain``, wooden balls show their
    grain at 0.7-1.5 times the plate's contrast (chosen by the plank, so the frames are
    otherwise those without it). With ``motion``, the hand moves while the shutter is open
    (:func:`vision.render_hand.hand_motion`). With ``placed``, a grid's tiles and control
    plates lie as a hand puts them down (:func:`vision.render_scene.hand_placed`, drawn
    from the frame's own noise level, so the frames are otherwise those without it)."""
    for _ in range(count):
        game = rng.choice(board.games)
        cells = position(game, rng, rng.randint(0, 40))
        shown = vary(board, rng)
        camera = random_camera(board, rng, resolutions=resolutions)
        hand = [random_hand(board, rng)] if rng.random() < hands else []
        light = random_lighting(rng) if lighting is None else lighting(camera, rng)
        settings = dict(board=shown, cells=cells, camera=camera, lighting=light, hands=hand,
                        noise=rng.uniform(0.5, 3.0), blur=rng.uniform(0.3, 1.0),
                        jpeg_quality=rng.choice((None, 75, 85, 95)), table_colour=rng.choice(TABLES),
                        wood_seed=rng.randrange(1000))
        if grain:
            settings["ball_grain"] = 0.7 + settings["wood_seed"] % 9 / 10
        if motion and hand:
            settings["hand_travel"] = hand_motion(rng)
        if placed and board.kind == "grid":
            settings["placed"] = hand_placed(board, random.Random(repr(settings["noise"])))
        yield Scene(render(**settings, rng=rng), cells, game, shown, settings)


def seed_game(board: Board, seed: int) -> str:
    """The game that frame ``seed`` of the random sets shows, without rendering it: the
    first draw :func:`scenes` makes."""
    return random.Random(seed).choice(board.games)


def frame_in_look(board: Board, seed: int, look: str = "plain", *, hands: float = 0.35,
                  mid_move: bool = False) -> tuple[Scene, np.ndarray]:
    """The random sets' frame ``seed`` in one of ``LOOKS``, exactly as the benchmark reads
    it, so that a misread it lists can be rendered again: the scene and the image. With
    ``mid_move``, Sparks frames show positions with empty hollows (:func:`mid_move_position`).
    The motion look puts a hand in every frame (the cells and camera are the seed's)."""
    if look not in LOOKS:
        raise ValueError(f"no look {look!r}: the looks are {', '.join(LOOKS)}")
    light = (lambda camera, rng: soft_lighting(rng)) if look == "soft-light" else None
    sc = next(scenes(board, random.Random(seed), 1, hands=1.0 if look == "motion" else hands, lighting=light,
                     vary=far_colours if look == "far-colour" else varied,
                     position=mid_move_position if mid_move else random_position, grain=look == "grain",
                     motion=look == "motion", placed=look == "placed"))
    return sc, after_look(sc.frame.image, look, seed)


def after_look(image: np.ndarray, look: str, seed: int) -> np.ndarray:
    """``image`` as the looks applied after rendering leave it (a webcam, a room's light),
    seeded by the frame's ``seed``; as it is for the others, drawn by the renderer. Any
    renderer's frame: the path traced benchmark reads its frames through them too."""
    if look == "webcam":
        return Webcam.random(random.Random(seed)).apply(image)
    if look in ROOM_LOOKS:
        return RoomLight.random(random.Random(seed), look).apply(image)
    return image


def label(truth, content: str) -> int:
    if truth.hand and truth.covered > HAND_COVER:
        return 2
    return 0 if content == "." else 1


def dataset(board: Board, seed: int, frames: int, *, hands: float = 0.35,
            position: Callable[[str, random.Random, int], dict[str, str]] = random_position
            ) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    """Measures (N x F), labels (0 empty, 1 ball, 2 hand) and (frame, position, content).
    Positions are measured as recognition does, level by level from the top, with the true
    contents of the levels above (what a correct reading of them would give). ``position``
    draws the cells (:func:`scenes`)."""
    rng = random.Random(seed)
    measure = FrameMeasures.of(board)
    xs, ys, meta = [], [], []
    for k, sc in enumerate(scenes(board, rng, frames, hands=hands, position=position)):
        for x, y, name in measure(sc, sc.frame.image):  # type: ignore[attr-defined]
            xs.append(x)
            ys.append(y)
            meta.append((k, name, sc.cells.get(name, ".")))
        if k % 50 == 49:
            print(f"  {k + 1}/{frames} frames", file=sys.stderr, flush=True)
    return np.array(xs), np.array(ys), meta


def pbr_frame_measures(png: Path) -> tuple[np.ndarray, np.ndarray]:
    """Measures and labels of the positions of a path traced pyramid frame kept on disk
    (vision/pbr_frames.py) in each photograph's look, labelled from this project's frame of
    the same scene (``frame_scene``); FramesError for a frame that cannot be read, of a board
    not known or not a pyramid, or whose truth is not its seed's scene."""
    import cv2

    from .pbr_frames import PHOTO_LOOKS, FramesError, frame_scene, in_look, read_board_frame

    cv2.setNumThreads(1)
    image, truth, board = read_board_frame(png, "pyramid")
    sc = frame_scene(board, int(png.stem), bool(truth.get("hands", False)))
    if sc.cells != truth["cells"] or sc.game != truth["game"]:
        raise FramesError(f"{png}: its truth is not the scene of seed {png.stem}")
    measure = FrameMeasures.of(board)
    rows = [(x, y) for look in PHOTO_LOOKS for x, y, _ in measure(sc, in_look(image, look, int(png.stem)))]
    return (np.array([x for x, _ in rows]).reshape(-1, len(NAMES)),
            np.array([y for _, y in rows], dtype=np.intp))


def pbr_dir_dataset(folders: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pbr_frame_measures` of every frame of ``folders``, on every core."""
    import multiprocessing
    import os

    from .pbr_frames import frame_files

    pngs = [png for folder in folders for png in frame_files(folder)]
    xs, ys = [np.zeros((0, len(NAMES)))], [np.zeros(0, dtype=np.intp)]
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        for k, (x, y) in enumerate(pool.imap(pbr_frame_measures, pngs, chunksize=2)):
            xs.append(x)
            ys.append(y)
            if k % 20 == 19:
                print(f"  {k + 1}/{len(pngs)} path traced frames kept", file=sys.stderr, flush=True)
        pool.close()  # then join: the context's terminate alone can hang (CPython issue 78178)
        pool.join()
    return np.concatenate(xs), np.concatenate(ys)


def pbr_dataset(board: Board, first: int, frames: int, *, spp: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Measures and labels of ``frames`` random scenes (seeds ``first`` on, one scene a seed,
    no hands) path traced by Mitsuba 3 (:func:`vision.render_pbr.render_pbr`, about 5 s a
    frame); RuntimeError without Mitsuba. The labels come from this project's frame of the
    same scene, whose board, pieces and camera are the same."""
    from .render_pbr import render_pbr  # Mitsuba is optional: only this needs it

    measure = FrameMeasures.of(board)
    xs, ys = [], []
    for k, seed in enumerate(range(first, first + frames)):
        sc = next(scenes(board, random.Random(seed), 1, hands=0.0))
        image = render_pbr(sc.settings["board"], sc.cells, sc.settings["camera"], spp=spp, seed=seed)
        for x, y, _ in measure(sc, image):
            xs.append(x)
            ys.append(y)
        if k % 10 == 9:
            print(f"  {k + 1}/{frames} path traced frames", file=sys.stderr, flush=True)
    return np.array(xs).reshape(-1, len(NAMES)), np.array(ys, dtype=np.intp)


@dataclasses.dataclass(frozen=True)
class FrameMeasures:
    """Measures every position of a scene's frame as recognition does, level by level from
    the top, with the true contents of the levels above (what a correct reading of them
    would give), and labels it (:func:`label`) from the scene's truth."""

    board: Board
    layout: Layout
    protos: dict
    rings: list
    margin: object

    @classmethod
    def of(cls, board: Board) -> FrameMeasures:
        return cls(board, Layout.of(board), prototypes(board.colours or {}, board.plate_colour), band_points(board),
                   margin_points(board))

    def __call__(self, sc: Scene, image: np.ndarray) -> list[tuple[np.ndarray, int, str]]:
        """(measures, label, position name) of every position seen well enough; none
        without a pose."""
        board, layout = self.board, self.layout
        try:
            pose = estimate_pose(image, board)
        except PoseError:
            return []
        plate = measure_plate(image, board, pose, self.margin).colour
        signs = find_hands(image, pose, self.rings)
        geo = Geometry.of(layout, pose)
        lin, inside = gather(image, geo.pixels)
        near = np.array([signs.distance(*c[:2]) for c in layout.centres])
        closeness = np.where(np.isfinite(near), np.exp(-near / 60.0), 0.0)
        letters = "LD" if sc.game == "pylos" else "WBR"
        present = np.array([sc.cells.get(n, ".") != "." for n in layout.names])
        out = []
        for idx in layout.by_level():
            maybe = np.where(layout.levels > layout.levels[idx[0]], present, True)
            batch = measure_level(geo, idx, lin, inside, maybe, plate, self.protos, letters, layout.levels,
                                  signs.present, closeness)
            for j, i in enumerate(idx):
                if batch.counts[j] < MIN_SAMPLES:
                    continue
                name = layout.names[i]
                out.append((batch.x[j], label(sc.frame.truth[name], sc.cells.get(name, ".")), name))  # type: ignore[attr-defined]
        return out


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, *, models: int = 5, hidden: int = 16,
        epochs: int = 600) -> Ensemble:
    """An ensemble fitted from different starts, each class weighted equally, and within a
    class each sample by ``w`` (all 1 when None)."""
    w = np.ones(len(y)) if w is None else w
    counts = np.bincount(y, weights=w, minlength=3)
    weight = (1.0 / np.maximum(counts, 1e-12))[y] * w
    return Ensemble(tuple(train(x, y, weight=weight, epochs=epochs, hidden=hidden, seed=s) for s in range(models)))


def write_weights(ensemble: Ensemble, path: Path, what: str = "pyramid", by: str = "vision.recognize_train") -> None:
    text = (f'"""Weights of the {what} model, written by ``python -m {by}``."""\n\n'
            f"WEIGHTS = {ensemble.to_list()!r}\n")
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1200, help="rendered frames (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pbr", type=int, default=0, help="path traced frames to measure too (Mitsuba 3, ~5 s each)")
    parser.add_argument("--pbr-weight", type=float, default=3.0, help="the weight of each path traced position")
    parser.add_argument("--mid-move", type=int, default=0,
                        help="more frames whose Sparks positions show empty hollows, as mid-move")
    parser.add_argument("--pbr-dirs", nargs="+", default=[], metavar="DIR",
                        help="folders of path traced frames (python -m vision.pbr_frames) to measure too")
    parser.add_argument("--data", nargs="*", default=[],
                        help=".npz files of measures (x, y, optional weights w) to train on instead")
    parser.add_argument("--save", help="keep the measures in this .npz")
    parser.add_argument("--out", default=str(Path(__file__).with_name("recognize_weights.py")))
    args = parser.parse_args(argv)
    if not args.pbr_weight > 0:
        parser.error(f"--pbr-weight must be above 0, not {args.pbr_weight}")
    if args.pbr < 0:
        parser.error(f"--pbr must be 0 or more frames, not {args.pbr}")
    if args.mid_move < 0:
        parser.error(f"--mid-move must be 0 or more frames, not {args.mid_move}")
    if args.frames < 0:
        parser.error(f"--frames must be 0 or more, not {args.frames}")
    if args.data and (args.pbr or args.mid_move or args.pbr_dirs):
        parser.error("--pbr, --pbr-dirs and --mid-move make measures of frames; with --data the measures come "
                     "from the files alone")
    if not (args.data or args.frames or args.mid_move or args.pbr or args.pbr_dirs):
        parser.error("nothing to fit on: --frames 0 needs --pbr, --pbr-dirs or --mid-move")

    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        from .pbr_frames import FramesError

        board = load_board("pyramid-4")
        parts = [(np.zeros((0, len(NAMES))), np.zeros(0, dtype=np.intp), 1.0)]
        if args.frames > 0:
            parts.append((*dataset(board, args.seed, args.frames)[:2], 1.0))
        if args.mid_move > 0:
            parts.append((*dataset(board, MID_MOVE_TRAIN_SEED, args.mid_move, position=mid_move_position)[:2], 1.0))
        if args.pbr > 0:
            try:
                parts.append((*pbr_dataset(board, PBR_FIRST, args.pbr), args.pbr_weight))
            except RuntimeError as exc:  # no Mitsuba: the message says how to install it
                print(f"recognize_train: --pbr: {exc}", file=sys.stderr)
                raise SystemExit(2) from None
        if args.pbr_dirs:
            try:
                parts.append((*pbr_dir_dataset(args.pbr_dirs), args.pbr_weight))
            except FramesError as exc:
                print(f"recognize_train: --pbr-dirs: {exc}", file=sys.stderr)
                raise SystemExit(2) from None
        return (np.concatenate([x for x, _, _ in parts]), np.concatenate([y for _, y, _ in parts]),
                np.concatenate([np.full(len(y), w) for _, y, w in parts]))

    try:
        x, y, w = measures(args.data, args.save, make, len(NAMES))
    except MeasuresError as exc:
        parser.error(str(exc))
    alone = not (args.data or args.frames or args.mid_move)  # path traced frames alone: the second model
    fit_and_write(x, y, Path(args.out), "positions", ("empty", "ball", "hand"),
                  "second pyramid" if alone else "pyramid", w=w)
    return 0


class MeasuresError(ValueError):
    """A file of measures that cannot be trained on: the message names it and says why."""


def measures(data: list[str], save: str | None,
             make: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray | None]],
             width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Measures (N x ``width``), labels (0-2) and weights from ``.npz`` files (``x``, ``y``
    and, optionally, ``w``; 1 without), or made (weights None: 1 each; and kept in
    ``save``). MeasuresError for a file that is not such measures."""
    if data:
        xs, ys, ws = [], [], []
        for f in data:
            try:
                with np.load(f) as part:
                    x, y = part["x"], part["y"]
                    w = part["w"] if "w" in part.files else np.ones(len(y))
            except (OSError, ValueError, KeyError) as exc:
                raise MeasuresError(f"{f}: not an .npz file of measures x and labels y ({exc})") from None
            if x.ndim != 2 or x.shape[1] != width or y.shape != (len(x),):
                raise MeasuresError(f"{f}: measures of shape {x.shape} and labels of shape {y.shape}; "
                                    f"expected N x {width} and N")
            if len(y) and (y.min() < 0 or y.max() > 2):
                raise MeasuresError(f"{f}: labels must be 0, 1 or 2, found {y.min()} to {y.max()}")
            if w.shape != y.shape or not (np.isfinite(w).all() and (w > 0).all()):
                raise MeasuresError(f"{f}: weights w must be N positive numbers, one per label")
            xs.append(x)
            ys.append(y.astype(np.intp))
            ws.append(w.astype(np.float64))
        return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)
    x, y, w = make()
    w = np.ones(len(y)) if w is None else w
    if save:
        np.savez(save, x=x, y=y, w=w)
    return x, y, w


def fit_and_write(x: np.ndarray, y: np.ndarray, path: Path, things: str, classes: tuple[str, str, str],
                  what: str = "pyramid", by: str = "vision.recognize_train", w: np.ndarray | None = None) -> None:
    """Fit the ensemble (each sample weighted ``w``), say how many of each class and how
    well it fits them (stderr), and write its weights."""
    ensemble = fit(x, y, w)
    p = ensemble.probabilities(x)
    counts = np.bincount(y, minlength=3)
    print(f"trained on {len(y)} {things} ({', '.join(f'{c} {n}' for c, n in zip(classes, counts))}); "
          f"training accuracy {(p.argmax(axis=1) == y).mean():.3f}", file=sys.stderr)
    write_weights(ensemble, path, what, by)


if __name__ == "__main__":
    sys.exit(main())
