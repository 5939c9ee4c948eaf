"""Pylos text formats, options and tags: position strings, turn notation, clear errors, and
a fuzzer that feeds junk to the parsers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.games import NotationError, OptionError, RulesError, rules_for, rules_from_tags
from host.games.pylos import PylosPosition, PylosRules, PylosTurn
from host.games.pyramid import BY_NAME, NAMES

R = PylosRules()
START = "....,....,....,..../...,...,.../..,../. L 15 15"
MID = "DDDL,..DL,LDDD,DLLD/..D,..L,.LL/..,../. D 7 5"


def notation_error(text: str, parse=R.parse_position) -> NotationError:
    with pytest.raises(NotationError) as err:
        parse(text)
    return err.value


# -- options and tags --------------------------------------------------------------------------

def test_variants_and_reserve_rules():
    for variant in ("standard", "children", "mature"):
        for rule in ("empty", "moves"):
            rules = PylosRules(variant, reserve_rule=rule)
            assert (rules.variant, rules.reserve_rule, rules.game, rules.players) == (
                variant, rule, "pylos", ("light", "dark"))
            assert PylosRules.from_tags(rules.tags()) == rules
            assert rules_from_tags({"Game": "pylos", **rules.tags()}) == rules


def test_unknown_options_name_the_value_and_the_choices():
    with pytest.raises(OptionError, match="'speed'.*standard, children, mature"):
        PylosRules("speed")
    with pytest.raises(OptionError, match="'never'.*empty, moves"):
        PylosRules(reserve_rule="never")
    with pytest.raises(OptionError, match="'speed'.*standard, children, mature"):
        rules_for("pylos", "speed")


def test_tags_name_the_variant_and_only_a_non_default_reserve_rule():
    assert PylosRules().tags() == {"Variant": "standard"}
    assert PylosRules("mature").tags() == {"Variant": "mature"}
    assert PylosRules("children", reserve_rule="moves").tags() == {"Variant": "children", "ReserveRule": "moves"}


def test_from_tags_defaults_ignores_foreign_tags_and_names_bad_tags():
    assert PylosRules.from_tags({}) == PylosRules()
    assert PylosRules.from_tags({"Game": "pylos", "Size": "9x9", "Result": "1-0"}) == PylosRules()
    assert PylosRules.from_tags({"ReserveRule": "moves"}) == PylosRules(reserve_rule="moves")
    with pytest.raises(OptionError, match=r"\[Variant 'huge'\].*standard, children, mature"):
        PylosRules.from_tags({"Variant": "huge"})
    with pytest.raises(OptionError, match=r"\[ReserveRule 'x'\].*empty, moves"):
        PylosRules.from_tags({"ReserveRule": "x"})


# -- position strings ----------------------------------------------------------------------------

def test_start_position_string():
    assert R.format_position(R.start()) == START
    assert R.parse_position(START) == R.start() == PylosPosition(0, 0, 0, 15, 15)


def test_position_string_round_trip_and_layout():
    pos = R.parse_position(MID)
    assert R.format_position(pos) == MID
    assert pos.to_move == 1 and (pos.light_reserve, pos.dark_reserve) == (7, 5)
    cells = R.cells(pos)
    # highest row first: the first row written is row 4, column a first
    assert (cells["1a4"], cells["1d4"], cells["1a1"], cells["1d1"]) == ("D", "L", "D", "D")
    assert (cells["2c3"], cells["2c2"], cells["2b1"], cells["2c1"], cells["2a1"]) == ("D", "L", "L", "L", ".")
    assert len(cells) == 30 and set(cells.values()) == {"L", "D", "."}
    assert R.parse_position("  " + MID + "\n") == pos


def test_cells_diagram_and_to_move():
    pos = R.parse_position(MID)
    assert R.to_move(pos) == "dark"
    picture = R.diagram(pos)
    assert picture.splitlines()[-2:] == ["Dark (D) to move", "reserves: light 7, dark 5"]
    assert "level 4" in picture.splitlines()[0]
    # hidden balls (under an upper ball) are shown in lower case
    assert "1  D l l d" in picture


@pytest.mark.parametrize("text, message, column, token", [
    ("", "expected 4 fields separated by spaces", 0, None),
    (START.rsplit(" ", 1)[0], "found 3", len(START.rsplit(" ", 1)[0]), None),
    (START + " extra", "found 5", len(START) + 1, "extra"),
    (START.replace(" L ", " X "), "expected the side to move, L or D", 40, "X"),
    (START.replace(" L 15", " L 16"), "expected the light reserve, a number 0..15", 42, "16"),
    (START.replace(" 15 15", " 15 -1"), "expected the dark reserve, a number 0..15", 45, "-1"),
    (START.replace(" 15 15", " 1x 15"), "expected the light reserve, a number 0..15", 42, "1x"),
    (START.replace(" 15 15", " 14 15"), "light has 0 balls on the board and 14 in reserve: they must add up to 15", 42, "14"),
    ("L" + START[1:], "light has 1 balls on the board and 15 in reserve", 42, "15"),
    (START.replace("/...,", "/.D.,"), "the ball on 2b3 is not supported: 1b3 1c3 1b4 1c4 are empty", 21, "D"),
    ("LLL.,LLLL,LLLL,LLLL/..D,...,.../..,../. L 0 14", "the ball on 2c3 is not supported: 1d4 is empty", 22, "D"),
    (START.replace("....,", "..x.,", 1), "unknown cell 'x' at 1c4", 2, "x"),
    ("  " + START.replace("....,", "..x.,", 1), "unknown cell 'x' at 1c4", 4, "x"),
    (START.replace("....,", "...,", 1), "level 1 row 4 needs 4 cells, found 3", 0, "..."),
    (START.replace("/.", "", 1), "expected 4 levels", 0, None),
])
def test_bad_position_strings_say_what_and_where(text, message, column, token):
    err = notation_error(text)
    assert message in str(err)
    assert (err.column, err.token) == (column, token)


def test_non_string_position_is_a_notation_error():
    with pytest.raises(NotationError, match="expected a position string"):
        R.parse_position(None)  # type: ignore[arg-type]


# -- turn notation -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, turn", [
    ("1b2", PylosTurn(BY_NAME["1b2"])),
    ("1a1-2b2", PylosTurn(BY_NAME["2b2"], BY_NAME["1a1"])),
    ("1c3x1c3x2a1", PylosTurn(BY_NAME["1c3"], None, (BY_NAME["1c3"], BY_NAME["2a1"]))),
    ("1a1-2b2x1d4", PylosTurn(BY_NAME["2b2"], BY_NAME["1a1"], (BY_NAME["1d4"],))),
    ("4a1", PylosTurn(29)),
])
def test_turn_notation_round_trip(text, turn):
    assert PylosRules.read_turn(text) == turn
    assert R.format_turn(turn) == text
    assert PylosRules.read_turn(f" {text}\n") == turn


@pytest.mark.parametrize("text, message, column, token", [
    ("", "expected a turn such as 1b2, 1a1-2b2 or 1c3x1c3x2a1", 0, None),
    ("1e1", "expected a pyramid position", 0, "1e1"),
    ("5a1", "expected a pyramid position", 0, "5a1"),
    ("1A1", "expected a pyramid position", 0, "1A1"),
    ("1a1-", "expected a position after '-'", 4, None),
    ("1b2x", "expected a position after 'x'", 4, None),
    ("1a1--2b2", "expected a position", 4, "-"),
    ("x1a1", "expected a position", 0, "x"),
    ("1a1-2b2-3a1", "'-' may only follow the first position", 7, "-"),
    ("1b2x1a1-2b2", "'-' may only follow the first position", 7, "-"),
    ("1b2 x1a1", "expected a pyramid position", 0, "1b2 "),
    ("1b2x2d1", "expected a pyramid position", 4, "2d1"),
])
def test_bad_turn_text_says_what_and_where(text, message, column, token):
    err = notation_error(text, parse=lambda t: R.parse_turn(R.start(), t))
    assert message in str(err)
    assert (err.column, err.token) == (column, token)


# -- fuzz ----------------------------------------------------------------------------------------

POSITION_ALPHABET = "LD.,/ 0123456789-x\n\tabcdABCD"
TURN_ALPHABET = "1234abcdex- \n5A"


def _only_rules_errors(parse, text):
    try:
        parse(text)
    except RulesError:
        pass


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(st.text(), st.text(POSITION_ALPHABET), st.binary(), st.binary().map(lambda b: b.decode("latin-1"))))
def test_fuzz_parse_position_raises_only_rules_errors(text):
    _only_rules_errors(R.parse_position, text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, len(MID) - 1), st.sampled_from(POSITION_ALPHABET), st.booleans())
def test_fuzz_mutated_positions_either_parse_consistently_or_fail_cleanly(index, char, delete):
    text = MID[:index] + ("" if delete else char) + MID[index + 1:]
    try:
        pos = R.parse_position(text)
    except RulesError:
        return
    assert R.parse_position(R.format_position(pos)) == pos
    assert pos.light.bit_count() + pos.light_reserve == 15 and pos.dark.bit_count() + pos.dark_reserve == 15


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(st.text(), st.text(TURN_ALPHABET, max_size=16), st.binary(),
                 st.lists(st.sampled_from(NAMES + ("-", "x", "1e5")), max_size=6).map("".join)))
def test_fuzz_parse_turn_raises_only_rules_errors(text):
    for position in (R.start(), R.parse_position(MID)):
        try:
            turn = R.parse_turn(position, text)
        except RulesError:
            continue
        # whatever parses formats back to the same turn and is one of the legal turns
        # (or, for two take-backs written in the other order, has the same result as one)
        assert R.read_turn(R.format_turn(turn)) == turn
        results = {R.play(position, t) for t in R.legal_turns(position)}
        assert R.play(position, turn) in results
