"""Unit tests of the Sparks engine: every rule of RULINGS.md (Sparks section), the notation,
the conventions this engine decided, and the physical steps."""

from __future__ import annotations

import re

import pytest

from host.games import (IllegalTurn, NotationError, OptionError, Step, rules_for,
                        rules_from_tags)
from host.games.pyramid import ABOVE, BY_NAME, LEVEL_MASK, SUPPORTS, bits
from host.games.sparks import START, SparksPosition, SparksRules, SparksTurn
from host.games.sparks_core import cascades

R = SparksRules()

#: after White's first turn 1b1:W2a1
AFTER_1B1 = "WBWB,BWBW,WBWB,BRBW/...,...,W../..,../. B"
#: 1b1 (white) carries 2a1 and 2b1: pinned; 1a2 (white) carries only the spark on 2a1
PINNED = "WBWB,BWBW,WBWB,RWBW/...,...,RB./..,../. W"
#: Black's 1a1 carries 2a1 (white), which carries 3a1 (a spark): a two-step cascade
CASCADE = "WBWB,BWBW,WBWB,BWBW/...,RB.,WR./..,R./. B"
#: everything full, a spark on top: 1a1 -> 2a1 -> 3a1 -> 4a1 all fall
FULL = "WBWB,BWBW,WBWB,BWBW/RRR,RRR,WRR/RR,RR/R B"
#: 2a1 2b1 2a2 filled, 2b2 empty: a ball on 2b2 completes the square under 3a1
SQUARE = "WBRB,BWBW,WBWB,BRBW/..W,R..,WR./..,../. B"
#: White has no coal that may be taken (found in a seeded random game)
NO_COAL_BEFORE = "RRWB,WWBB,RBWW,BWBR/BBR,RRR,RWR/W.,RR/. B"
NO_COAL_AFTER = "RRWB,WWBB,RBWW,BWBR/BWR,RRR,RWR/RB,RR/. W"


def pos(text: str) -> SparksPosition:
    return R.parse_position(text)


def turns(text: str) -> set[str]:
    return {R.format_turn(t) for t in R.legal_turns(pos(text))}


def after(text: str, turn: str) -> str:
    p = pos(text)
    return R.format_position(R.play(p, R.parse_turn(p, turn)))


def illegal(text: str, turn: str, message: str) -> None:
    with pytest.raises(IllegalTurn, match=re.escape(message)):
        R.parse_turn(pos(text), turn)


def floating_position() -> SparksPosition:
    """A board no game reaches (3a1 and 3b1 float): the only way to have two balls that could
    drop into one place, since the 4x4 pyramid never allows it (see the test below)."""
    start = pos(START)
    bit = lambda *names: sum(1 << BY_NAME[n] for n in names)  # noqa: E731
    return SparksPosition(start.white | bit("2b2"), start.black | bit("3b1"), bit("3a1"), 1)


# -- rules objects, tags, registry -----------------------------------------------------------

def test_registry_and_tags():
    rules = rules_for("sparks")
    assert isinstance(rules, SparksRules)
    assert rules.game == "sparks" and rules.players == ("white", "black")
    assert rules.tags() == {"Variant": "standard"}
    assert isinstance(rules_from_tags({"Game": "Sparks", "Variant": "standard", "Size": "9x9"}), SparksRules)
    assert isinstance(SparksRules.from_tags({}), SparksRules)
    with pytest.raises(OptionError, match="Variant"):
        rules_from_tags({"Game": "sparks", "Variant": "mature"})
    with pytest.raises(OptionError, match="unknown Sparks variant"):
        rules_for("sparks", "children")
    with pytest.raises(OptionError, match="no options"):
        rules_for("sparks", None, reserve_rule="moves")


# -- positions -------------------------------------------------------------------------------

def test_start_position():
    p = R.start()
    assert R.format_position(p) == START
    assert R.to_move(p) == "white"
    cells = R.cells(p)
    assert cells["1a1"] == "B" and cells["1b1"] == "W" and cells["1d4"] == "B"
    assert cells["2a1"] == "." and cells["4a1"] == "."
    assert len(cells) == 30
    assert (p.white.bit_count(), p.black.bit_count(), p.red) == (8, 8, 0)
    assert R.outcome(p) is None
    d = R.diagram(p)
    assert "level 4" in d and d.endswith("White to move")


@pytest.mark.parametrize("text", [START, AFTER_1B1, PINNED, CASCADE, FULL, SQUARE, NO_COAL_AFTER])
def test_position_round_trip(text):
    p = R.parse_position(text)
    assert R.format_position(p) == text
    assert R.parse_position(R.format_position(p)) == p
    assert hash(p) == hash(R.parse_position(text))


@pytest.mark.parametrize("text,message", [
    ("", "expected a Sparks position"),
    ("WBWB,BWBW,WBWB,BWBW/...,...,.../..,../.", "expected the side to move"),
    ("WBWB,BWBW,WBWB,BWBW/...,...,.../..,../. X", "expected the side to move: W (White) or B"),
    ("WBWB,BWBW,WBWB,BWBW/...,...,.../..,../. W 15 15", "unexpected text after the side to move"),
    ("WBWB,BWBW,WBWB,BWBL/...,...,.../..,../. W", "unknown cell 'L' at 1d1"),
    ("WBWB,BWBW,WBWB,BWBW/...,...,.../..,.. W", "expected 4 levels"),
    ("WBWB,BWBW,WBWB/...,...,.../..,../. W", "level 1 needs 4 rows"),
    ("WBWB,BWBW,WBWB,BWBW/...,...,.../..,R./. W", "the ball on 3a1 is not supported: 2a1, 2b1, 2a2 and 2b2 are empty"),
    (" WBWB,BWBW,WBWB,BWBW/...,...,.../..,../. W", "unexpected whitespace"),
])
def test_position_errors(text, message):
    with pytest.raises(NotationError, match=re.escape(message)):
        R.parse_position(text)


def test_unsupported_ball_error_names_its_column():
    text = "WBWB,BWBW,WBWB,BWBW/...,...,W../..,.R/. W"
    with pytest.raises(NotationError) as err:
        R.parse_position(text)
    assert "3b1 is not supported" in str(err.value)
    assert text[err.value.column] == "R" and err.value.column == 36


# -- turns at the start ----------------------------------------------------------------------

def test_free_coal_spark_fills_its_place():
    ts = turns(START)
    assert len(ts) == 72  # 8 white coals, each to one of the 9 level-2 places
    assert "1b1:W2a1" in ts and "1a1:W2a1" not in ts
    assert after(START, "1b1:W2a1") == AFTER_1B1
    p = pos(AFTER_1B1)
    assert R.to_move(p) == "black"
    assert p.red.bit_count() == 1 and p.white.bit_count() == 8


def test_free_coal_notation_has_no_spark_placement():
    illegal(START, "1b1:R1b1,W2a1", "the spark filled 1b1, so only the coal is placed")
    illegal(START, "1b1:W2a1,R2b1", "R2b1: the spark filled 1b1, so only the coal is placed")
    illegal(START, "1b1:W1b1", "1b1 is occupied (R)")


# -- taking coals ----------------------------------------------------------------------------

def test_pinned_coal_cannot_be_taken():
    p = pos(PINNED)
    assert "1b1" not in R.takeable_coals(p)
    assert not any(t.coal == BY_NAME["1b1"] for t in R.legal_turns(p))
    illegal(PINNED, "1b1:W2c1", "1b1 is pinned: 2a1 and 2b1 rest on it, so it cannot be taken")


@pytest.mark.parametrize("text,turn,message", [
    (START, "2a1:W2b2", "2a1 is empty: there is no ball to take"),
    (START, "1a1:B2a1", "1a1 holds a black ball: White must take a white ball"),
    (PINNED, "1a1:W2c1", "1a1 holds a spark: sparks cannot be taken"),
])
def test_wrong_coal(text, turn, message):
    illegal(text, turn, message)


def test_corner_coals_are_never_pinned():
    p = pos(FULL)
    assert R.takeable_coals(p) == ("1a1", "1d4")


# -- a coal that supports one ball -------------------------------------------------------------

def test_supported_coal_ball_drops_and_both_balls_are_placed():
    # Black's 1a1 carries the white ball on 2a1: it drops into 1a1, 2a1 is left empty
    assert after(AFTER_1B1, "1a1:R2a1,B2b2") == "WBWB,BWBW,WBWB,WRBW/...,.B.,R../..,../. W"
    ts = turns(AFTER_1B1)
    assert "1a1:R2a1,B2b2" in ts and "1a1:R2b2,B2a1" in ts
    # the coal may go back onto the place the cascade left empty
    assert after(AFTER_1B1, "1a1:R2c3,B2a1").endswith("/..R,...,B../..,../. W")


def test_both_balls_are_required():
    illegal(AFTER_1B1, "1a1:B2b2", "so both the coal (B) and the spark (R) are placed; R is still in hand")
    illegal(AFTER_1B1, "1a1:R2b2", "B is still in hand")
    illegal(AFTER_1B1, "1a1:R2b2,R2c2", "R2c2: the balls in hand are B, not R")
    illegal(AFTER_1B1, "1a1:W2b2,R2c2", "W2b2: the balls in hand are B and R, not W")
    illegal(AFTER_1B1, "1a1:R2b2,B2c2,R2a1", "R2a1: nothing is left in hand")


def test_spark_drop_returns_the_spark():
    # White's 1a2 carries only the spark on 2a1, which drops into 1a2
    p = pos(PINNED)
    t = R.parse_turn(p, "1a2:W2a1")
    q = R.play(p, t)
    assert R.format_position(q) == "WBWB,BWBW,RBWB,RWBW/...,...,WB./..,../. B"
    assert (q.white | q.black | q.red).bit_count() == (p.white | p.black | p.red).bit_count()
    assert q.red.bit_count() == p.red.bit_count()
    illegal(PINNED, "1a2:R2c1,W2a1", "a spark dropped into 1a2 and the spark in hand went back, "
                                     "so only the coal is placed; the ball in hand is W")
    assert R.steps(p, t) == (Step("lift", "1a2", "W"), Step("drop", "2a1", "R", "1a2"),
                             Step("return", None, "R"), Step("place", "2a1", "W"))


def test_multi_level_cascade():
    p = pos(CASCADE)
    t = R.parse_turn(p, "1a1:R3a1,B2c1")
    assert t == SparksTurn(BY_NAME["1a1"], (), (("R", BY_NAME["3a1"]), ("B", BY_NAME["2c1"])))
    assert R.steps(p, t) == (
        Step("lift", "1a1", "B"), Step("drop", "2a1", "W", "1a1"), Step("drop", "3a1", "R", "2a1"),
        Step("place", "3a1", "R"), Step("place", "2c1", "B"))
    assert R.format_position(R.play(p, t)) == "WBWB,BWBW,WBWB,WWBW/...,RB.,RRB/..,R./. W"


def test_three_level_cascade_and_winning_first_placement_ends_the_turn():
    p = pos(FULL)
    assert turns(FULL) == {"1a1:B4a1", "1d4:B4a1"}
    t = R.parse_turn(p, "1a1:B4a1")
    assert R.steps(p, t) == (
        Step("lift", "1a1", "B"), Step("drop", "2a1", "W", "1a1"), Step("drop", "3a1", "R", "2a1"),
        Step("drop", "4a1", "R", "3a1"), Step("place", "4a1", "B"))
    q = R.play(p, t)
    assert R.format_position(q) == "WBWB,BWBW,WBWB,WWBW/RRR,RRR,RRR/RR,RR/B W"
    out = R.outcome(q)
    assert out is not None and (out.result, out.winner) == ("0-1", "black")
    # the spark is not placed once the coal has won; the spark first has no room for the coal
    illegal(FULL, "1a1:B4a1,R3a1", "the game ended when B4a1 was placed")
    illegal(FULL, "1a1:R4a1", "B is still in hand")
    # 1d4 carries a spark: spark drop (three levels), the coal alone goes on top
    assert R.steps(p, R.parse_turn(p, "1d4:B4a1"))[-2:] == (Step("return", None, "R"), Step("place", "4a1", "B"))


# -- placements -----------------------------------------------------------------------------

def test_second_ball_on_the_square_the_first_completed():
    ts = turns(SQUARE)
    assert "1d4:B2b2,R3a1" in ts  # the coal completes 2a1 2b1 2a2 2b2, the spark goes on 3a1
    assert "1d4:R2b2,B3a1" in ts  # the other way round
    assert after(SQUARE, "1d4:B2b2,R3a1").endswith("/...,RB.,WR./..,R./. W")
    assert after(SQUARE, "1d4:R2b2,B3a1").endswith("/...,RR.,WR./..,B./. W")
    illegal(SQUARE, "1d4:R3a1,B2b2", "R3a1: 3a1 is not supported: 2b2 is empty")


def test_either_order_is_legal_but_generated_once():
    p = pos(SQUARE)
    spark_first = R.parse_turn(p, "1d4:R2c1,B2a3")
    coal_first = R.parse_turn(p, "1d4:B2a3,R2c1")
    assert R.play(p, spark_first) == R.play(p, coal_first)
    generated = list(R.legal_turns(p))
    assert spark_first in generated and coal_first not in generated
    assert len(generated) == len(set(generated))
    # one turn per distinct (coal, drops, set of placements)
    keys = {(t.coal, t.drops, frozenset(t.placements)) for t in generated}
    assert len(keys) == len(generated)


@pytest.mark.parametrize("text,turn,message", [
    (START, "1b1:W1c1", "W1c1: 1c1 is occupied (B)"),
    (START, "1b1:W3a1", "W3a1: 3a1 is not supported: 2a1, 2b1, 2a2 and 2b2 are empty"),
    (AFTER_1B1, "1a1:R3a1,B2b2", "3a1 is not supported: 2a1, 2b1, 2a2 and 2b2 are empty"),
    (PINNED, "1a2:W3a1", "3a1 is not supported: 2a1, 2a2 and 2b2 are empty"),
    (START, "1b1:B2a1", "W"),
    (START, "1b1:", None),
])
def test_bad_placements(text, turn, message):
    if message is None:
        with pytest.raises(NotationError, match="expected a placement"):
            R.parse_turn(pos(text), turn)
    else:
        illegal(text, turn, message)


# -- the end ----------------------------------------------------------------------------------

def test_spark_on_top_does_not_end_the_game():
    p = pos(FULL.replace(" B", " W"))
    assert R.cells(p)["4a1"] == "R"
    assert R.outcome(p) is None
    assert R.takeable_coals(p) == ("1d1", "1a4", "2a1")
    assert turns(FULL.replace(" B", " W")) == {"1d1:W4a1", "1a4:W4a1", "2a1:W4a1"}


def test_spark_placed_on_top_continues_and_the_coal_on_top_wins():
    # 1a1 -> 2a1 -> 3a1 fall; the first ball on 3a1 completes level 3, the second goes on top
    text = "WBWB,BWBW,WBWB,BWBW/RRR,RRR,WRR/RR,RR/. B"
    assert turns(text) >= {"1a1:R3a1,B4a1", "1a1:B3a1,R4a1"}
    illegal(text, "1a1:B4a1", "B4a1: 4a1 is not supported: 3a1 is empty")
    spark_top = R.play(pos(text), R.parse_turn(pos(text), "1a1:B3a1,R4a1"))
    assert R.cells(spark_top)["4a1"] == "R"
    assert R.outcome(spark_top) is None and R.to_move(spark_top) == "white"
    assert list(R.legal_turns(spark_top))
    coal_top = R.play(pos(text), R.parse_turn(pos(text), "1a1:R3a1,B4a1"))
    assert R.outcome(coal_top).winner == "black"


def test_own_ball_on_top_wins_for_white():
    q = pos(FULL.replace(" B", " W"))
    done = R.play(q, R.parse_turn(q, "1d1:W4a1"))
    out = R.outcome(done)
    assert (out.result, out.winner) == ("1-0", "white")
    assert "top" in out.reason
    assert list(R.legal_turns(done)) == []
    illegal(R.format_position(done), "1a1:B2a1", "the game is over: White has a ball on the top")
    assert "game over 1-0" in R.diagram(done)


def test_no_coal_loses():
    before = pos(NO_COAL_BEFORE)
    after_p = R.play(before, R.parse_turn(before, "2b3:R3a2,B3b2"))
    assert R.format_position(after_p) == NO_COAL_AFTER
    out = R.outcome(after_p)
    assert (out.result, out.winner) == ("0-1", "black")
    assert out.reason == "White has no coal that may be taken"
    assert R.takeable_coals(after_p) == ()
    assert list(R.legal_turns(after_p)) == []


# -- cascades with a choice of ball -------------------------------------------------------------

def test_no_valid_position_has_a_choice_of_falling_ball():
    """Why brackets never appear in a real game: a coal that carries one ball b keeps the other
    places above it empty, and every ball that could rest on b also rests on one of those.
    Checked over every supported filling of levels 2-4 (the base is always full)."""
    patterns = [LEVEL_MASK[1]]
    for lv in (2, 3, 4):
        grown = []
        for p in patterns:
            spots = [i for i in bits(LEVEL_MASK[lv]) if SUPPORTS[i] & p == SUPPORTS[i]]
            for m in range(1 << len(spots)):
                grown.append(p | sum(1 << i for k, i in enumerate(spots) if m >> k & 1))
        patterns = grown
    assert len(patterns) == 690
    multi = 0
    for p in patterns:
        for c in bits(p):
            if (ABOVE[c] & p).bit_count() == 1:
                ways = cascades(p & ~(1 << c), c)
                assert len(ways) == 1 and ways[0][1] == ()
                multi += len(ways[0][0]) >= 2
    assert multi > 0  # multi-level cascades do exist


def test_brackets_are_rejected_when_nothing_had_a_choice():
    illegal(START, "1b1[2a1]:W2a1", "1b1 is free (no ball rests on it), so no ball drops")
    illegal(CASCADE, "1a1[2a1]:R3a1,B2c1", "no step of this cascade had a choice of ball")


def test_ambiguous_drop_on_a_constructed_board():
    p = floating_position()
    with pytest.raises(NotationError, match="not supported"):
        R.parse_position(R.format_position(p))  # no game reaches it
    ts = {R.format_turn(t) for t in R.legal_turns(p) if t.coal == BY_NAME["1b2"]}
    assert "1b2[3a1]:R2a1,B2c3" in ts and "1b2[3b1]:R2a1,B2c3" in ts
    assert all("[" in t for t in ts)
    illegal_msgs = {
        "1b2:R3a1,B2a1": "1b2: 3a1 or 3b1 could drop into 2b2; name the one that fell, e.g. 1b2[3a1]:...",
        "1b2[3a2]:R3a1,B2a1": "1b2[3a2]: 3a2 cannot drop into 2b2; 3a1 or 3b1 could",
        "1b2[3a1,4a1]:R3a1,B2a1": "the cascade had only 1 step(s) with a choice; [4a1] is extra",
    }
    for text, message in illegal_msgs.items():
        with pytest.raises(IllegalTurn, match=re.escape(message)):
            R.parse_turn(p, text)
    a = R.play(p, R.parse_turn(p, "1b2[3a1]:R2a1,B2c3"))
    b = R.play(p, R.parse_turn(p, "1b2[3b1]:R2a1,B2c3"))
    assert R.cells(a)["2b2"] == "R" and R.cells(b)["2b2"] == "B"
    # the steps: each alternative is a different drop after the first one
    tip = R.begin_turn(p).apply(Step("lift", "1b2", "B")).apply(Step("drop", "2b2", "W", "1b2"))
    assert set(tip.next_steps()) == {Step("drop", "3a1", "R", "2b2"), Step("drop", "3b1", "B", "2b2")}
    done = tip.apply(Step("drop", "3b1", "B", "2b2"))
    done = done.apply(Step("place", "2a1", "R")).apply(Step("place", "2c3", "B"))
    assert R.format_turn(done.complete_turns()[0]) == "1b2[3b1]:R2a1,B2c3"


# -- notation -------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1c1:W2b2", "2a1:R1b1,W2c2", "1b2[3a1]:W2a2", "1a1[3a1,4a1]:B4a1"])
def test_turn_format_round_trip(text):
    from host.games.sparks import parse_turn_text
    t = parse_turn_text(text)
    assert R.format_turn(t) == text and str(t) == text


@pytest.mark.parametrize("text,message,column", [
    ("1b1W2a1", "expected ':'", 7),
    ("1e1:W2a1", "expected a pyramid position", 0),
    ("1b1:X2a1", "expected a colour letter W, B or R", 4),
    ("1b1:W2a1,", "empty placement", 9),
    ("1b1[2a1:W2a1", "expected ']'", 7),
    ("1b1[]:W2a1", "empty brackets", 3),
    ("1b1[2z1]:W2a1", "expected a pyramid position", 4),
    ("1b1:W5a1", "expected a pyramid position", 5),
    ("", "expected a Sparks turn", 0),
])
def test_turn_notation_errors(text, message, column):
    with pytest.raises(NotationError, match=re.escape(message)) as err:
        R.parse_turn(R.start(), text)
    assert err.value.column == column


def test_turn_text_may_have_surrounding_spaces():
    assert R.format_turn(R.parse_turn(R.start(), "  1b1:W2a1 ")) == "1b1:W2a1"


def test_play_rejects_foreign_objects_and_illegal_turns():
    with pytest.raises(IllegalTurn):
        R.play(R.start(), "1b1:W2a1")
    with pytest.raises(IllegalTurn, match="1a1 holds a black ball"):
        R.play(R.start(), SparksTurn(BY_NAME["1a1"], (), (("W", BY_NAME["2a1"]),)))
    with pytest.raises(IllegalTurn, match="no placement"):
        R.play(R.start(), SparksTurn(BY_NAME["1b1"], (), ()))


# -- physical steps ----------------------------------------------------------------------------

def test_free_coal_steps_and_intermediate_boards():
    p = R.start()
    t = R.parse_turn(p, "1b1:W2a1")
    steps = R.steps(p, t)
    assert steps == (Step("lift", "1b1", "W"), Step("place", "1b1", "R"), Step("place", "2a1", "W"))
    tip = R.begin_turn(p)
    assert tip.cells() == R.cells(p)
    assert len(list(tip.next_steps())) == 8
    tip = tip.apply(steps[0])
    assert tip.cells()["1b1"] == "." and tip.complete_turns() == ()
    assert list(tip.next_steps()) == [Step("place", "1b1", "R")]
    with pytest.raises(IllegalTurn, match="not allowed now"):
        tip.apply(Step("place", "2a1", "W"))
    tip = tip.apply(steps[1])
    assert tip.cells()["1b1"] == "R"
    tip = tip.apply(steps[2])
    assert tip.complete_turns() == (t,)
    assert tip.cells() == R.cells(R.play(p, t))
    assert tip.after() == R.play(p, t)
    assert list(tip.next_steps()) == []
    with pytest.raises(IllegalTurn, match="already complete"):
        tip.apply(Step("place", "2b1", "W"))


def test_cascade_intermediate_boards_are_distinct_states():
    p = pos(CASCADE)
    t = R.parse_turn(p, "1a1:R3a1,B2c1")
    tip = R.begin_turn(p)
    boards = [tip.cells()]
    keys = {tip.key()}
    for step in R.steps(p, t):
        tip = tip.apply(step)
        boards.append(tip.cells())
        keys.add(tip.key())
    assert len(keys) == 6
    assert [b["1a1"] + b["2a1"] + b["3a1"] for b in boards] == ["BWR", ".WR", "W.R", "WR.", "WRR", "WRR"]
    assert boards[-1]["2c1"] == "B"
    assert tip.complete_turns() == (t,)


def test_spark_first_is_offered_only_when_the_coal_still_fits():
    p = pos(FULL)
    tip = R.begin_turn(p)
    for step in (Step("lift", "1a1", "B"), Step("drop", "2a1", "W", "1a1"),
                 Step("drop", "3a1", "R", "2a1"), Step("drop", "4a1", "R", "3a1")):
        tip = tip.apply(step)
    assert list(tip.next_steps()) == [Step("place", "4a1", "B")]
    tip = tip.apply(Step("place", "4a1", "B"))
    assert R.format_turn(tip.complete_turns()[0]) == "1a1:B4a1"


def test_every_step_path_gives_a_legal_turn_and_every_legal_turn_a_path():
    for text in (START, AFTER_1B1, PINNED, CASCADE, FULL, SQUARE):
        p = pos(text)
        legal = set(R.legal_turns(p))
        reached = set()
        stack = [R.begin_turn(p)]
        seen = set()
        while stack:
            tip = stack.pop()
            if tip.key() in seen:
                continue
            seen.add(tip.key())
            for t in tip.complete_turns():
                reached.add(t)
                assert R.cells(R.play(p, t)) == tip.cells()
            stack.extend(tip.apply(s) for s in tip.next_steps())
        assert legal <= reached
        # the extra ones are the coal-first orders of turns generated spark-first
        for t in reached - legal:
            assert t.placements[0][0] != "R" and len(t.placements) == 2
            swapped = SparksTurn(t.coal, t.drops, t.placements[::-1])
            assert swapped in legal and R.play(p, swapped) == R.play(p, t)


# -- inference --------------------------------------------------------------------------------

def test_infer_found_none_and_undecided():
    p = pos(AFTER_1B1)
    t = R.parse_turn(p, "1a1:R2a1,B2b2")
    inf = R.infer(p, R.play(p, t))
    assert inf.status == "found" and R.play(p, inf.turn) == R.play(p, t)
    # a board no turn reaches: two more balls than a turn adds
    target = pos("WBWB,BWBW,WBWB,WRBW/...,BB.,R../..,../. W")
    inf = R.infer(p, target)
    assert inf.status == "none" and len(inf.unexplained) == 1 and "explains" in inf.reason
    assert inf.explored == len(list(R.legal_turns(p)))
    assert R.infer(p, target, budget_ms=0).status == "undecided"
    done = R.play(pos(FULL), R.parse_turn(pos(FULL), "1a1:B4a1"))
    assert R.infer(done, done).status == "none"
