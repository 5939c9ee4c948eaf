"""Board geometry files: the reference boards hold the numbers the issue gives, every
position of the games is there, and a bad file names the field."""

import json

import pytest

from host.games import pyramid, rules_for
from vision.geometry import GeometryError, load_board, parse_board


def test_pyramid_4_matches_the_reference_board():
    board = load_board("pyramid-4")
    assert board.kind == "pyramid" and board.games == ("pylos", "sparks")
    assert board.plate == (220, 220) and board.ball_diameter == 30
    assert [p.name for p in board.positions] == list(pyramid.NAMES)
    assert board.position("1a1").centre == (-46.5, -46.5, 11)
    assert board.position("1d4").centre == (46.5, 46.5, 11)
    # each level up sits at the centre of the four balls below, 20.5 mm higher
    for p in board.positions:
        i = pyramid.BY_NAME[p.name]
        below = [board.positions[j].centre for j in pyramid.bits(pyramid.SUPPORTS[i])]
        if below:
            assert p.centre[0] == pytest.approx(sum(c[0] for c in below) / 4)
            assert p.centre[1] == pytest.approx(sum(c[1] for c in below) / 4)
            assert p.centre[2] == pytest.approx(below[0][2] + 20.5)
    assert board.position("4a1").centre == (0, 0, 11 + 3 * 20.5)
    assert [(m.id, m.centre) for m in board.markers] == [(0, (-85, -85)), (1, (85, -85)), (2, (85, 85)), (3, (-85, 85))]
    assert board.dictionary == "DICT_4X4_50" and board.marker_size == 30


def test_grid_9_matches_the_reference_board():
    board = load_board("grid-9")
    rules = rules_for("sparklies", width=9, height=9)
    import random
    names = set(rules.cells(rules.start(random.Random(0))))
    assert {p.name for p in board.positions} == names
    assert board.position("a1").centre == (-104, -104, 0) and board.position("i9").centre == (104, 104, 0)
    assert (board.pitch, board.tile_size, board.tile_thickness, board.control_size, board.control_thickness) == (26, 18, 3, 23, 2)
    assert [m.id for m in board.markers] == [4, 5, 6, 7] and board.markers[2].centre == (135, 135)
    assert set(board.colours) == {"R", "G", "B", "b", "w"}


def test_marker_corners_are_in_aruco_order():
    board = load_board("pyramid-4")
    corners = board.marker_corners(board.markers[0])
    assert corners == ((-100, -70, 0), (-70, -70, 0), (-70, -100, 0), (-100, -100, 0))


@pytest.mark.parametrize("change, words", [
    (lambda d: d.pop("name"), "missing 'name'"),
    (lambda d: d.update(games=["chess"]), "games"),
    (lambda d: d["markers"].update(dictionary="DICT_9X9"), "markers.dictionary"),
    (lambda d: d["markers"]["placed"][1].update(centre=[1]), "markers.placed[1].centre"),
    (lambda d: d["positions"][3].update(centre="x"), "positions[3].centre"),
    (lambda d: d["balls"].update(diameter=-3), "balls.diameter: must be above 0"),
    (lambda d: d["plate"].update(colour=[300, 0, 0]), "plate.colour"),
    (lambda d: d.pop("balls"), "expected 'balls'"),
])
def test_a_bad_geometry_names_the_field(change, words):
    data = json.loads(open(load_board.__globals__["BOARDS_DIR"] / "pyramid-4.json").read())
    change(data)
    with pytest.raises(GeometryError, match=None) as info:
        parse_board(data, "mine.json")
    assert str(info.value).startswith("mine.json") and words in str(info.value)


def test_unknown_board_lists_the_known_ones(tmp_path):
    with pytest.raises(GeometryError, match="known boards: grid-9, pyramid-4"):
        load_board("pyramid-5")
    bad = tmp_path / "b.json"
    bad.write_text("{nope")
    with pytest.raises(GeometryError, match="not JSON"):
        load_board(bad)
