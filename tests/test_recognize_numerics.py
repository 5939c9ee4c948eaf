"""The arithmetic recognition does its own to stay within its time per frame (issue 4:
5 ms on one thread): each shortcut must give what the plain NumPy it replaces gives."""

from __future__ import annotations

import random

import numpy as np
import pytest

from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_balls import gather
from vision.recognize_colour import LINEAR, Patches, distance, measure_plate, pixels_at, quantile, to_linear
from vision.recognize_features import measure_level, percentiles
from vision.recognize_fellows import median_tint
from vision.recognize_plates import _border_fits, _squares
from vision.recognize_levels import measured_levels
from vision.recognize_model import load
from vision.recognize_thresholds import Thresholds
from vision.render import Camera, render

PYRAMID = load_board("pyramid-4")


def test_percentiles_per_row_are_numpys_and_stack():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(3, 12, 40))
    ok = rng.random((3, 12, 40)) < 0.6
    ok[0, 3] = False  # an empty row reads 0
    ok[1, 4] = False
    ok[1, 4, 9] = True  # one sample is every percentile
    q = [10, 50, 75, 90]
    stacked = percentiles(x, ok, q)
    assert stacked.shape == (4, 3, 12)
    for s in range(3):
        alone = percentiles(x[s], ok[s], q)
        assert np.array_equal(alone, stacked[:, s])
        for r in range(12):
            want = np.percentile(x[s, r][ok[s, r]], q) if ok[s, r].any() else np.zeros(4)
            assert np.allclose(alone[:, r], want, rtol=0, atol=1e-12), (s, r)
    assert np.all(stacked[:, 0, 3] == 0) and np.all(stacked[:, 1, 4] == x[1, 4, 9])
    # one mask for every stacked array
    assert np.array_equal(percentiles(x, ok[0], [50]), np.stack([percentiles(x[s], ok[0], [50]) for s in range(3)], 1))


@pytest.mark.parametrize("n", [1, 2, 3, 8, 31])
def test_median_tint_is_numpys_median(n):
    rng = np.random.default_rng(n)
    tints = [tuple(float(v) for v in rng.normal(scale=0.3, size=2)) for _ in range(n)]
    assert np.array_equal(median_tint(tints), np.median(np.array(tints), axis=0))
    rows = [np.array(t) for t in tints]  # as the rules pass them: NumPy rows of a reading's colour
    assert np.array_equal(median_tint(rows), np.median(np.array(rows), axis=0))


def test_details_are_written_out_as_asked_for():
    """A pyramid reading's details, written out on demand, are each position's reason with
    the model's probabilities, as a dict of them would be."""
    board = PYRAMID
    rec = Recognizer(board, "sparks")
    cam = Camera.look_at((60, -300, 420), (0, 0, 0), 60, 1280, 720)
    image = render(board, {"1a1": "W", "1b1": "B", "1c2": "R"}, cam, rng=random.Random(3), noise=1.0).image
    result = rec.read(image)
    assert result.ok and len(result.details) == len(board.positions) == len(list(result.details))
    for name, why in result.details.items():
        p = result.probabilities[name]
        assert why.endswith(f"(empty {p[0]:.2f}, ball {p[1]:.2f}, hand {p[2]:.2f})"), (name, why)
    assert result.details == dict(result.details) and result.to_json()["details"] == dict(result.details)
    with pytest.raises(KeyError):
        result.details["9z9"]


@pytest.mark.parametrize("n", [1, 2, 5, 64, 341])
@pytest.mark.parametrize("q", [2.0, 50, 75])
def test_quantile_is_numpys_percentile(n, q):
    rng = np.random.default_rng(n)
    one = rng.normal(size=n).astype(np.float32)
    many = rng.normal(size=(n, 3))
    assert np.isclose(quantile(one, q), np.percentile(one, q), rtol=1e-6, atol=0)
    assert np.allclose(quantile(many, q), np.percentile(many, q, axis=0), rtol=0, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 3), (7,), (40, 3), (6, 5, 3), (2, 3, 4, 27)])
def test_to_linear_is_the_tables_value_for_every_level(shape):
    levels = np.random.default_rng(len(shape)).integers(0, 256, shape, dtype=np.uint8)
    for view in (levels, levels[..., ::-1]):  # channels reversed, as BGR frames are read
        out = to_linear(view)
        assert out.dtype == np.float32 and out.shape == view.shape
        assert np.array_equal(out, LINEAR[view])
    assert np.array_equal(to_linear(np.arange(256, dtype=np.uint8)), LINEAR)


def test_distance_and_squares_are_numpys_hypot_and_squared_norm():
    rng = np.random.default_rng(5)
    dx, dy = rng.normal(0, 2, (40, 7)), rng.normal(0, 2, (40, 7))
    assert np.allclose(distance(dx, dy), np.hypot(dx, dy), rtol=1e-14, atol=0)
    assert distance(np.array([3.0]), np.array([-4.0]))[0] == 5.0
    v = rng.normal(0, 1, (9, 5, 3))
    assert np.allclose(_squares(v), np.einsum("...i,...i->...", v, v), rtol=1e-14, atol=0)


def test_border_fits_are_the_clipped_least_squares_of_each_sample():
    rng = np.random.default_rng(11)
    cells, n = 9, 14
    ring = rng.uniform(0.0, 1.0, (cells, n, 3))
    ring[0, 0] = 0.0  # a black sample: its distance is 0, not NaN
    tile = rng.uniform(0.01, 0.9, (cells, 3))
    ref = rng.uniform(0.05, 0.9, (cells, 3))
    surfaces = [ref, ref * 1.4, ref * 0.05]
    ring[1] = 0.3 * tile[1] + 6.5 * surfaces[2][1]  # light beyond the black plate's bound: clipped
    err, alpha, light, bright = _border_fits(ring, tile, surfaces)
    assert np.allclose(bright[..., 0], np.linalg.norm(ring, axis=-1) + 1e-4, rtol=1e-14, atol=0)
    for c in range(cells):
        for j, surface in enumerate(surfaces):
            A = np.stack([tile[c], surface[c]], axis=1)
            coef = np.linalg.solve(A.T @ A, A.T @ ring[c].T).T  # n x 2, unclipped
            coef = np.clip(coef, 0.0, [0.7, 6.0 if j == 2 else 1.6])
            want = np.linalg.norm(ring[c] - coef @ A.T, axis=1) / (np.linalg.norm(ring[c], axis=1) + 1e-4)
            assert np.allclose(alpha[c, :, j], coef[:, 0], rtol=1e-6, atol=1e-9), (c, j)
            assert np.allclose(light[c, :, j], coef[:, 1], rtol=1e-6, atol=1e-9), (c, j)
            assert np.allclose(err[c, :, j], want, rtol=1e-6, atol=1e-7), (c, j)
    assert np.all(light[1, :, 2] == 6.0) and np.all(err[0, 0] == 0.0)


def test_the_ensemble_in_one_pass_is_the_mean_of_its_models():
    ensemble = load()
    assert ensemble is not None
    x = np.random.default_rng(3).normal(size=(16, ensemble.models[0].mean.shape[0])) * 2.0
    each = np.mean([m.probabilities(x) for m in ensemble.models], axis=0)
    together = ensemble.probabilities(x)
    assert together.shape == (16, 3)
    assert np.allclose(together, each, rtol=0, atol=1e-14)
    assert np.allclose(together.sum(axis=1), 1.0)


def test_a_frame_with_its_pose_known_is_still_checked_and_a_grey_one_read():
    cam = Camera.look_at((0, -200, 450), (0, 0, 0), 60, 640, 480)
    frame = render(PYRAMID, {"1a1": "W", "1b1": "B"}, cam, rng=random.Random(1), noise=1.0)
    rec = Recognizer(PYRAMID, "sparks")
    first = rec.read(frame.image)
    assert first.ok and first.observation.cells["1a1"] == "W"
    for bad, message in ((frame.image.astype(np.float32), "8-bit"), (frame.image[..., :2], "channels"),
                         (b"garbage", "not an image"), (frame.image[:8, :8], "too small"),
                         (np.zeros((16, 32768, 3), dtype=np.uint8), "too large")):
        result = rec.read(bad, pose=first.pose)
        assert not result.ok and message in result.error
        assert set(result.observation.cells.values()) == {"?"}
    grey = frame.image.mean(axis=2).astype(np.uint8)
    assert rec.read(grey).observation.cells == rec.read(grey, pose=rec.pose(grey)).observation.cells


@pytest.mark.parametrize("radius", [0, 1])
def test_patches_gather_each_points_square_of_pixels(radius):
    rng = np.random.default_rng(radius)
    image = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    uv = np.array([[0.2, 0.4], [39.4, 29.3], [12.6, 7.5], [-3.0, 5.0], [5.0, 30.2], [np.nan, 1.0]])
    patches = Patches.of(uv, image.shape, radius)
    rgb, inside = patches.sample(image)
    assert inside.tolist() == [True, True, True, False, False, False]
    assert np.all(rgb[~inside] == 0)
    for k in np.flatnonzero(inside):
        u, v = int(np.rint(uv[k, 0])), int(np.rint(uv[k, 1]))
        rows = np.clip(np.arange(v - radius, v + radius + 1), 0, 29)
        cols = np.clip(np.arange(u - radius, u + radius + 1), 0, 39)
        square = LINEAR[image[np.ix_(rows, cols)]].reshape(-1, 3)[:, ::-1]
        assert np.allclose(rgb[k], square.mean(axis=0), rtol=1e-6, atol=0)
    grey_rgb, _ = Patches.of(uv, image.shape[:2], radius).sample(image[..., 1].copy())
    assert np.allclose(grey_rgb[inside][:, 0], grey_rgb[inside][:, 2])
    mirrored = image[:, ::-1]  # a view with negative strides reads as its copy does
    assert np.array_equal(patches.sample(mirrored)[0], patches.sample(mirrored.copy())[0])


def test_pixels_at_reads_what_indexing_by_rows_and_columns_reads():
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    rows, cols = rng.integers(0, 30, (7, 5)), rng.integers(0, 40, (7, 5))
    rows[0, :2] = -1  # outside the image: reads pixel 0, 0, marked outside
    px, inside = pixels_at(image, np.stack([rows, cols], axis=-1))
    assert np.array_equal(inside, rows >= 0)
    assert np.array_equal(px[inside], image[rows[inside], cols[inside]])
    assert np.array_equal(px[~inside], image[[0, 0], [0, 0]])
    grey, _ = pixels_at(image[..., 1].copy(), np.stack([rows, cols], axis=-1))
    assert np.array_equal(grey[inside][:, 0], image[rows[inside], cols[inside], 1])
    view = image[:, ::2]  # not contiguous: read as it is, not as the memory beneath it lies
    px, _ = pixels_at(view, np.stack([rows, cols // 2], axis=-1))
    assert np.array_equal(px[inside], view[rows[inside], cols[inside] // 2])


def test_a_recognizer_works_out_where_to_sample_once_per_pose_and_frame_size():
    cam = Camera.look_at((0, -200, 450), (0, 0, 0), 60, 640, 480)
    image = render(PYRAMID, {"1a1": "W"}, cam, rng=random.Random(2), noise=1.0).image
    rec = Recognizer(PYRAMID, "sparks")
    pose = rec.pose(image)
    first = rec.patches(pose, image.shape)
    assert rec.patches(pose, image.shape) is not None and rec.patches(pose, image.shape)[0] is first[0]
    assert rec.patches(pose, (240, 320, 3))[0] is not first[0]
    assert rec.patches(rec.pose(image), image.shape)[0] is not first[0]


def _lit_pyramid(cells: dict[str, str], seed: int):
    """A frame of ``cells`` from 35 degrees off vertical, its geometry and samples."""
    cam = Camera.look_at((60, -300, 420), (0, 0, 0), 60, 1280, 720)
    image = render(PYRAMID, cells, cam, rng=random.Random(seed), noise=1.0).image
    rec = Recognizer(PYRAMID, "sparks")
    pose = rec.pose(image)
    geo = rec.geometry(pose)
    lin, inside = gather(image, geo.pixels)
    plate = measure_plate(image, PYRAMID, pose).colour
    return rec, image, geo, lin, inside, plate


def _measure_levels(rec, geo, lin, inside, plate, guess):
    """Each level read with ``guess`` (a place read empty where the model finds it so more
    likely than not), its measures checked against measuring that level alone: the
    positions then taken to maybe hold a ball, and the rows of each batch measured."""
    layout = rec.layout
    zeros = np.zeros(len(guess))
    batches = []

    def measure(rows, above):
        batch = measure_level(geo, rows, lin, inside, above, plate, rec.protos, "WBR", layout.levels, False, zeros)
        batches.append(len(rows))
        return batch, rec.model.probabilities(batch.x)

    maybe = np.ones(len(guess), dtype=bool)
    levels = 0
    for idx, batch, probs in measured_levels(layout, geo, maybe, guess, measure, Thresholds()):
        alone = measure_level(geo, idx, lin, inside, maybe.copy(), plate, rec.protos, "WBR", layout.levels, False,
                              zeros)
        assert np.array_equal(batch.x, alone.x) and np.array_equal(batch.counts, alone.counts)
        assert np.array_equal(batch.colour, alone.colour, equal_nan=True) and batch.shares == alone.shares
        assert np.allclose(probs, rec.model.probabilities(alone.x), rtol=0, atol=1e-12)
        maybe[idx] = probs[:, 0] < 0.5
        levels += 1
    assert levels == 4 and 1 <= len(batches) <= 4
    return maybe, batches


@pytest.mark.parametrize("guess_of", ["none above", "all", "random"])
def test_levels_measured_together_are_what_measuring_level_by_level_gives(guess_of):
    cells = {"1a1": "W", "1b1": "R", "1a2": "B", "1b2": "W", "1c1": "B", "1c2": "R", "1b3": "W", "1c3": "W",
             "1d4": "R", "2a1": "B", "2b1": "W", "2b2": "R", "3a1": "R"}
    rec, _, geo, lin, inside, plate = _lit_pyramid(cells, 4)
    layout = rec.layout
    truth = np.array([cells.get(n, ".") != "." for n in layout.names])
    guess = {"none above": layout.levels == 1, "all": np.ones(len(truth), dtype=bool),
             "random": np.random.default_rng(5).random(len(truth)) < 0.5}[guess_of]
    maybe, batches = _measure_levels(rec, geo, lin, inside, plate, guess)
    assert maybe[truth].all() and not maybe[~truth & (layout.levels > 2)].any(), "the frame was seen"
    if guess_of == "none above":
        assert len(batches) > 1, "wrong about the balls above: the levels under them measured again"
    again, batches = _measure_levels(rec, geo, lin, inside, plate, maybe)
    assert np.array_equal(again, maybe) and batches == [30], "guessed right: every level measured at once"


def test_a_reading_is_the_same_whatever_the_last_frame_was():
    rec, image, *_ = _lit_pyramid({"1a1": "W", "1b1": "R", "1a2": "B", "1b2": "W", "2a1": "B", "1c1": "W"}, 6)
    first = rec.read(image)
    assert first.observation.cells["2a1"] == "B"
    other = Recognizer(PYRAMID, "sparks")
    for guess in (np.ones(30, dtype=bool), np.zeros(30, dtype=bool), rec._present):
        other._present = guess
        again = other.read(image)
        assert again.observation.cells == first.observation.cells and again.details == first.details
        assert again.probabilities == first.probabilities
