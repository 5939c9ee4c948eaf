"""The shared pyramid geometry: names, support relations, squares and lines."""

import pytest

from host.games import NotationError
from host.games import pyramid as p


def names(mask):
    return {p.NAMES[i] for i in p.bits(mask)}


def test_thirty_positions_named_by_level_column_row():
    assert p.COUNT == len(p.NAMES) == 30
    assert p.NAMES[0] == "1a1" and p.NAMES[15] == "1d4" and p.NAMES[16] == "2a1"
    assert p.NAMES[24] == "2c3" and p.NAMES[25] == "3a1" and p.NAMES[28] == "3b2" and p.NAMES[p.TOP] == "4a1"
    assert all(p.BY_NAME[n] == i for i, n in enumerate(p.NAMES))


@pytest.mark.parametrize("pos, below", [
    ("2a1", {"1a1", "1b1", "1a2", "1b2"}),
    ("2c3", {"1c3", "1d3", "1c4", "1d4"}),
    ("3b1", {"2b1", "2c1", "2b2", "2c2"}),
    ("4a1", {"3a1", "3b1", "3a2", "3b2"}),
    ("1c2", set()),
])
def test_supports(pos, below):
    assert names(p.SUPPORTS[p.BY_NAME[pos]]) == below


def test_above_is_the_inverse_of_supports():
    assert names(p.ABOVE[p.BY_NAME["1b2"]]) == {"2a1", "2b1", "2a2", "2b2"}
    assert names(p.ABOVE[p.BY_NAME["1a1"]]) == {"2a1"}
    assert names(p.ABOVE[p.BY_NAME["2b2"]]) == {"3a1", "3b1", "3a2", "3b2"}
    assert p.ABOVE[p.TOP] == 0


def test_squares_and_lines():
    assert len(p.SQUARES) == 9 + 4 + 1
    assert len(p.SQUARES_THROUGH[p.BY_NAME["1b2"]]) == 4 and len(p.SQUARES_THROUGH[p.BY_NAME["1a1"]]) == 1
    # mature lines: 4 rows + 4 columns on level 1, 3 + 3 on level 2, none above
    assert len(p.LINES) == 14
    assert {frozenset(names(m)) for m in p.LINES_THROUGH[p.BY_NAME["1a1"]]} == {
        frozenset({"1a1", "1b1", "1c1", "1d1"}), frozenset({"1a1", "1a2", "1a3", "1a4"})}
    assert p.LINES_THROUGH[p.BY_NAME["3a1"]] == ()


def test_free_spots_follow_support():
    base = p.LEVEL_MASK[1]
    assert p.free_spots(0) == base
    assert names(p.free_spots(base)) == names(p.LEVEL_MASK[2])
    four = sum(1 << p.BY_NAME[n] for n in ("1a1", "1b1", "1a2", "1b2"))
    assert "2a1" in names(p.free_spots(four)) and "2b1" not in names(p.free_spots(four))


def test_levels_round_trip_and_errors():
    text = "WBWB,BWBW,WBWB,BWBW/...,...,.../..,../."
    masks, _ = p.parse_levels(text, "WBR")
    assert p.format_levels(masks) == text
    assert p.cells_of(masks)["1a1"] == "B" and p.cells_of(masks)["1a4"] == "W"
    with pytest.raises(NotationError, match="4 levels"):
        p.parse_levels("....,....,....,..../...,...,...", "LD")
    with pytest.raises(NotationError, match="level 2 row 3 needs 3 cells"):
        p.parse_levels("....,....,....,..../..,...,.../..,../.", "LD")
    with pytest.raises(NotationError, match="unknown cell 'X' at 1b4"):
        p.parse_levels(".X..,....,....,..../...,...,.../..,../.", "LD")
    with pytest.raises(NotationError, match="expected a pyramid position"):
        p.parse_name("2d1")
