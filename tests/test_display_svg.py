"""The companion display's SVG boards (host/display_svg.py): parsed back with ElementTree."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from host.display_svg import PALETTE, TEXT_ON, board_svg, contrast_ratio, counts
from host.games import rules_for

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def with_class(root: ET.Element, *names: str) -> list[ET.Element]:
    """Elements whose class attribute holds every one of ``names``."""
    return [e for e in root.iter() if set(names) <= set(e.get("class", "").split())]


def letters(group: ET.Element) -> list[str]:
    return [t.text for t in group.iter(f"{NS}text")]


def ball_centre(group: ET.Element) -> tuple[float, float]:
    circle = next(group.iter(f"{NS}circle"))
    return float(circle.get("cx")), float(circle.get("cy"))


def body_opacity(group: ET.Element) -> float:
    return float(with_class(group, "body")[0].get("opacity"))


def play_pylos(n_turns: int, seed: int):
    rules = rules_for("pylos")
    position, rng = rules.start(), random.Random(seed)
    for _ in range(n_turns):
        if rules.outcome(position):
            break
        position = rules.play(position, rules.random_turn(position, rng))
    return rules, position


def stacked_pylos():
    """A Pylos position with balls on level 2 or higher."""
    for seed in range(50):
        rules, position = play_pylos(40, seed)
        if any(name[0] != "1" and v != "." for name, v in rules.cells(position).items()):
            return rules, position
    raise AssertionError("no stacked position found")


def sparklies_with_markers(**options):
    rules = rules_for("sparklies", **options)
    colours = {name: value[0] for name, value in rules.cells(rules.start(random.Random(3))).items()}
    return rules, rules.make_position(colours, black=["a1", "b2"], white=["e5"], to_move="white")


# -- the SVG element ---------------------------------------------------------------------
def test_svg_scales_with_css_and_is_labelled():
    rules = rules_for("pylos")
    root = parse(board_svg(rules, rules.start()))
    assert root.tag == f"{NS}svg"
    assert root.get("width") is None and root.get("height") is None
    assert len(root.get("viewBox").split()) == 4
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Pylos board: 0 light balls, 0 dark balls"


# -- Pylos -----------------------------------------------------------------------------
def test_pylos_start_has_sixteen_hollows_and_no_balls():
    rules = rules_for("pylos")
    root = parse(board_svg(rules, rules.start()))
    hollows = with_class(root, "hollow")
    assert len(hollows) == 16
    assert {h.get("data-cell") for h in hollows} == {f"1{c}{r}" for c in "abcd" for r in "1234"}
    assert with_class(root, "ball") == []
    assert [t.text for t in root.iter(f"{NS}text")][:8] == ["a", "1", "b", "2", "c", "3", "d", "4"]


def test_no_position_draws_the_empty_board():
    for game in ("pylos", "sparks"):
        root = parse(board_svg(rules_for(game), None))
        assert len(with_class(root, "hollow")) == 16
        assert with_class(root, "ball") == []


def test_pylos_balls_match_the_cells():
    rules, position = play_pylos(9, seed=1)
    cells = rules.cells(position)
    root = parse(board_svg(rules, position))
    light, dark = with_class(root, "ball", "light"), with_class(root, "ball", "dark")
    assert len(light) == list(cells.values()).count("L") > 0
    assert len(dark) == list(cells.values()).count("D") > 0
    assert {b.get("data-cell") for b in light} == {n for n, v in cells.items() if v == "L"}
    assert all(letters(b) == ["L"] for b in light) and all(letters(b) == ["D"] for b in dark)
    empty_base = {n for n, v in cells.items() if n[0] == "1" and v == "."}
    assert {h.get("data-cell") for h in with_class(root, "hollow")} == empty_base
    assert root.get("aria-label") == (f"Pylos board: {len(light)} light balls, {len(dark)} dark balls")


def test_upper_ball_sits_between_the_four_under_it_and_covers_them():
    rules, position = stacked_pylos()
    root = parse(board_svg(rules, position))
    balls = {b.get("data-cell"): b for b in with_class(root, "ball")}
    upper = next(name for name, b in balls.items() if name[0] != "1" and b.get("data-covered") == "false")
    level, col, row = int(upper[0]), "abc".index(upper[1]), int(upper[2])
    below = [balls[f"{level - 1}{'abcd'[c]}{r}"] for c in (col, col + 1) for r in (row, row + 1)]
    xs, ys = zip(*(ball_centre(b) for b in below))
    assert ball_centre(balls[upper]) == pytest.approx((sum(xs) / 4, sum(ys) / 4))
    top_levels = [int(b.get("data-level")) for b in with_class(root, "ball")]
    assert top_levels == sorted(top_levels), "lower levels are drawn first"
    for b in below:
        assert b.get("data-covered") == "true"
        assert body_opacity(b) < body_opacity(balls[upper])
        assert letters(b) in (["L"], ["D"])
    uncovered = [b for b in balls.values() if b.get("data-covered") == "false"]
    assert uncovered and all(body_opacity(b) == 1 for b in uncovered)


def test_counts_for_pylos():
    rules, position = play_pylos(9, seed=1)
    values = list(rules.cells(position).values())
    assert counts(rules, position) == {**rules.reserves(position), "light_on_board": values.count("L"),
                                       "dark_on_board": values.count("D")}
    assert counts(rules, None) == {"light": 15, "dark": 15, "light_on_board": 0, "dark_on_board": 0}


def test_changed_cells_are_ringed():
    rules, position = play_pylos(3, seed=2)
    root = parse(board_svg(rules, position, changed=["1a1", "2b2", "nowhere"]))
    assert sorted(e.get("data-cell") for e in with_class(root, "changed")) == ["1a1", "2b2"]
    assert with_class(parse(board_svg(rules, position)), "changed") == []


def test_flagged_cells_point_at_the_offending_positions():
    rules = rules_for("pylos")
    position = rules.play(rules.start(), rules.parse_turn(rules.start(), "1a1"))
    assert rules.cells(position)["1a1"] == "L"
    flagged = {"1a1": ("L", "."), "1c3": (".", "D")}
    root = parse(board_svg(rules, position, flagged=flagged))
    marks = {e.get("data-cell"): e for e in with_class(root, "flagged")}
    assert set(marks) == {"1a1", "1c3"}
    assert (marks["1a1"].get("data-expected"), marks["1a1"].get("data-seen")) == ("L", ".")
    assert letters(marks["1a1"]) == ["?"], "a missing ball is an empty circle with '?'"
    assert any(c.get("stroke-dasharray") for c in marks["1a1"].iter(f"{NS}circle"))
    assert letters(marks["1c3"]) == ["!"]
    seen = with_class(root, "ball", "dark", "seen")
    assert [b.get("data-cell") for b in seen] == ["1c3"], "the illegal ball is drawn"
    assert with_class(root, "ball", "light") == [], "the missing ball is not drawn"
    assert "2 flagged cells" in root.get("aria-label")


# -- Sparks ------------------------------------------------------------------------------
def test_sparks_start_has_eight_white_and_eight_black_balls():
    rules = rules_for("sparks")
    root = parse(board_svg(rules, rules.start()))
    white, black = with_class(root, "ball", "white"), with_class(root, "ball", "black")
    assert len(white) == len(black) == 8
    assert all(letters(b) == ["W"] for b in white) and all(letters(b) == ["B"] for b in black)
    assert with_class(root, "ball", "spark") == [] and with_class(root, "hollow") == []
    assert root.get("aria-label").startswith("Sparks board: 8 white balls, 8 black balls")
    assert counts(rules, rules.start()) == {"white": 8, "black": 8, "sparks": 0}


def test_sparks_spark_is_drawn_with_its_letter():
    rules = rules_for("sparks")
    position = rules.start()
    turn = next(t for t in rules.legal_turns(position)
                if "R" in rules.cells(rules.play(position, t)).values())
    after = rules.play(position, turn)
    root = parse(board_svg(rules, after))
    sparks = with_class(root, "ball", "spark")
    assert {s.get("data-cell") for s in sparks} == {n for n, v in rules.cells(after).items() if v == "R"}
    assert all(letters(s) == ["R"] for s in sparks)
    assert counts(rules, after)["sparks"] == len(sparks)


# -- Sparklies ---------------------------------------------------------------------------
def test_sparklies_tiles_carry_letters_and_owner_markers():
    rules, position = sparklies_with_markers()
    cells = rules.cells(position)
    root = parse(board_svg(rules, position))
    tiles = {t.get("data-cell"): t for t in with_class(root, "tile")}
    assert len(tiles) == 81
    for name, tile in tiles.items():
        colour = {"R": "red", "G": "green", "B": "blue"}[cells[name][0]]
        assert colour in tile.get("class").split()
        assert letters(tile)[0] == cells[name][0]
    assert {n for n, t in tiles.items() if t.get("data-owner") == "black"} == {"a1", "b2"}
    assert {n for n, t in tiles.items() if t.get("data-owner") == "white"} == {"e5"}
    assert sum(t.get("data-owner") == "none" for t in tiles.values()) == 78
    assert letters(tiles["a1"]) == [cells["a1"][0], "b"] and letters(tiles["e5"]) == [cells["e5"][0], "w"]
    border = with_class(tiles["a1"], "marker", "black")[0].find(f"{NS}rect")
    assert border.get("stroke") == PALETTE["owner-black"] and float(border.get("stroke-width")) >= 4
    assert with_class(tiles["c3"], "marker") == []
    assert counts(rules, position) == {"black": 2, "white": 1, "uncontrolled": 78}
    assert "black controls 2 squares, white 1, 78 uncontrolled" in root.get("aria-label")


def test_sparklies_row_one_is_at_the_bottom():
    rules, position = sparklies_with_markers()
    root = parse(board_svg(rules, position))
    tiles = {t.get("data-cell"): t.find(f"{NS}rect") for t in with_class(root, "tile")}
    assert float(tiles["a1"].get("y")) > float(tiles["a9"].get("y"))
    assert float(tiles["i1"].get("x")) > float(tiles["a1"].get("x"))


def test_sparklies_dead_cells_and_board_shape():
    rules = rules_for("sparklies", width=5, height=7, dead=("c3",))
    root = parse(board_svg(rules, rules.start(random.Random(1))))
    assert [d.get("data-cell") for d in with_class(root, "dead")] == ["c3"]
    assert len(with_class(root, "tile")) == 34
    assert "c3" not in {t.get("data-cell") for t in with_class(root, "tile")}
    _, _, w, h = map(float, root.get("viewBox").split())
    square = parse(board_svg(rules_for("sparklies"), rules_for("sparklies").start(random.Random(1))))
    _, _, w9, h9 = map(float, square.get("viewBox").split())
    assert w9 == h9 and h > w


def test_sparklies_active_changed_and_flagged():
    rules, position = sparklies_with_markers(width=5, height=5)
    root = parse(board_svg(rules, position, changed=["a1"], active=["b2", "b3"],
                           flagged={"d4": ("R.", "Gb"), "e1": ("Gw", "--")}))
    assert [e.get("data-cell") for e in with_class(root, "active")] == ["b2", "b3"]
    assert any(e.tag == f"{NS}polygon" for e in with_class(root, "active")[0].iter())
    assert [e.get("data-cell") for e in with_class(root, "changed")] == ["a1"]
    marks = {e.get("data-cell"): e for e in with_class(root, "flagged")}
    assert set(marks) == {"d4", "e1"} and letters(marks["e1"]) == ["?"]
    seen = with_class(root, "tile", "seen")
    assert [(t.get("data-cell"), t.get("class"), t.get("data-owner")) for t in seen] == [
        ("d4", "tile green seen", "black")]


def test_sparklies_without_a_position_is_a_placeholder():
    root = parse(board_svg(rules_for("sparklies"), None))
    assert "waiting for the board" in [t.text for t in root.iter(f"{NS}text")]
    assert with_class(root, "tile") == [] and root.get("role") == "img"


# -- colour, text and output -----------------------------------------------------------
def test_contrast_ratio_formula():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("fill", sorted(TEXT_ON))
def test_every_text_colour_has_enough_contrast(fill):
    assert contrast_ratio(TEXT_ON[fill], PALETTE[fill]) >= 4.5


def test_drawn_letters_use_the_text_colour_of_their_fill():
    rules = rules_for("sparks")
    svg = board_svg(rules, rules.start())
    for colour in ("white", "black"):
        for ball in with_class(parse(svg), "ball", colour):
            assert ball.find(f"{NS}text").get("fill") == TEXT_ON[colour]
    assert all(re.fullmatch(r"#[0-9a-f]{6}", v) for v in (*PALETTE.values(), *TEXT_ON.values()))


def test_different_positions_give_different_drawings():
    rules, position = play_pylos(5, seed=4)
    assert board_svg(rules, position) != board_svg(rules, rules.start())
    assert board_svg(rules, position) == board_svg(rules, position)
    root = parse(board_svg(rules, position, hints=False))
    assert not [t.text for t in root.iter(f"{NS}text") if t.text in ("a", "1")]


def test_aria_label_is_escaped():
    rules = rules_for("pylos")
    svg = board_svg(rules, rules.start(), flagged={"1a1": ("<&>", '"')})
    mark = with_class(parse(svg), "flagged")[0]
    assert (mark.get("data-expected"), mark.get("data-seen")) == ("<&>", '"')
