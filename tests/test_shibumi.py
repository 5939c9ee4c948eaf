"""The shibumi-games text diagram: exact output of the real program, round trips, errors.

The diagrams below are copied from donkirkby/shibumi-games, tests/sparks/test_sparks_state.py
(the expected output of ``SparksState.display()``), with the lines the test file indents
but ``textwrap.dedent`` empties written as empty lines."""

from __future__ import annotations

import re

import pytest

from host.games import NotationError, Step
from host.games.shibumi import ShibumiHand, read_shibumi, write_shibumi
from host.games.sparks import START, SparksRules

R = SparksRules()

PROGRAM_START = """\
  A C E G
7 W B W B 7

5 B W B W 5

3 W B W B 3

1 B W B W 1
  A C E G
<W
"""

# test_take_first: White has taken 1C (1b1); the spark filled it; the coal is in hand
PROGRAM_TAKE_FIRST = PROGRAM_START.replace("1 B W B W 1", "1 B R B W 1").replace("<W", ">W")

# test_place_first: the coal went to 2B (2a1); Black is to take
PROGRAM_PLACE_FIRST = """\
  A C E G
7 W B W B 7

5 B W B W 5

3 W B W B 3

1 B R B W 1
  A C E G
   B D F
 6 . . . 6

 4 . . . 4

 2 W . . 2
   B D F
<B
"""

# test_take_second: Black took 3C (1b2); the white ball on 2B dropped into it
PROGRAM_TAKE_SECOND = """\
  A C E G
7 W B W B 7

5 B W B W 5

3 W W W B 3

1 B R B W 1
  A C E G
>B, R
"""

# test_take_spark_drop: White takes 3E (1c2), the spark on 2D (2b1) drops into it
PROGRAM_SPARK_DROP_BEFORE = """\
  A C E G
7 W B W B 7

5 B W B W 5

3 W B W B 3

1 W R B W 1
  A C E G
   B D F
 6 . . . 6

 4 . . . 4

 2 B R . 2
   B D F
<W
"""
PROGRAM_SPARK_DROP_AFTER = """\
  A C E G
7 W B W B 7

5 B W B W 5

3 W B R B 3

1 W R B W 1
  A C E G
   B D F
 6 . . . 6

 4 . . . 4

 2 B . . 2
   B D F
>W
"""

# test_place_second_black / _red: from PROGRAM_TAKE_SECOND, one ball placed on 4D (2b2)
PROGRAM_PLACED_BLACK = """\
  A C E G
7 W B W B 7

5 B W B W 5

3 W W W B 3

1 B R B W 1
  A C E G
   B D F
 6 . . . 6

 4 . B . 4

 2 . . . 2
   B D F
>R
"""
PROGRAM_PLACED_RED = PROGRAM_PLACED_BLACK.replace(" 4 . B . 4", " 4 . R . 4").replace(">R", ">B")

# test_white_win, as written in the program's test: note the row label typo "6 R W B 2"
PROGRAM_WHITE_WIN = """\
  A C E G
7 R R R R 7

5 R W B B 5

3 R W W B 3

1 R R R R 1
  A C E G
   B D F
 6 R W B 2

 4 B W B 4

 2 R R W 2
   B D F
    C E
  5 W B 5

  3 B R 3
    C E
     D
   4 W 4
     D
<B
"""


def test_start_is_written_exactly_as_the_program_does():
    assert write_shibumi(R.start()) == PROGRAM_START
    p, hand = read_shibumi(PROGRAM_START)
    assert R.format_position(p) == START and hand == ShibumiHand()


@pytest.mark.parametrize("text", [PROGRAM_START, PROGRAM_TAKE_FIRST, PROGRAM_PLACE_FIRST,
                                  PROGRAM_TAKE_SECOND, PROGRAM_SPARK_DROP_BEFORE,
                                  PROGRAM_SPARK_DROP_AFTER, PROGRAM_PLACED_RED])
def test_program_diagrams_read_and_write_back_identically(text):
    p, hand = read_shibumi(text)
    assert write_shibumi(p, hand) == text


def test_spark_only_hand_needs_the_mover():
    with pytest.raises(NotationError, match=r"line 17: '>R' .* does not say whose turn"):
        read_shibumi(PROGRAM_PLACED_BLACK)
    p, hand = read_shibumi(PROGRAM_PLACED_BLACK, mover="B")
    assert hand == ShibumiHand(adding=True, coal=False, spark=True) and R.to_move(p) == "black"
    assert write_shibumi(p, hand) == PROGRAM_PLACED_BLACK


def test_program_turn_matches_the_engine_turn_and_its_steps():
    """The program's first two half-moves are the engine's turn 1b1:W2a1 step by step."""
    start, _ = read_shibumi(PROGRAM_START)
    tip = R.begin_turn(start).apply(Step("lift", "1b1", "W")).apply(Step("place", "1b1", "R"))
    mid, hand = read_shibumi(PROGRAM_TAKE_FIRST)
    assert hand == ShibumiHand(adding=True, coal=True, spark=False)
    assert tip.cells() == R.cells(mid) and tip.hand == ("W",)
    placed, hand = read_shibumi(PROGRAM_PLACE_FIRST)
    assert hand == ShibumiHand() and R.to_move(placed) == "black"
    assert R.play(start, R.parse_turn(start, "1b1:W2a1")) == placed
    # Black takes 1b2 (3C): the white ball on 2a1 drops, coal and spark in hand
    tip = R.begin_turn(placed).apply(Step("lift", "1b2", "B")).apply(Step("drop", "2a1", "W", "1b2"))
    taken, hand = read_shibumi(PROGRAM_TAKE_SECOND)
    assert hand == ShibumiHand(adding=True, coal=True, spark=True)
    assert tip.cells() == R.cells(taken) and tip.hand == ("B", "R")
    tip_b = tip.apply(Step("place", "2b2", "B"))
    assert tip_b.cells() == R.cells(read_shibumi(PROGRAM_PLACED_BLACK, mover="B")[0])
    tip_r = tip.apply(Step("place", "2b2", "R"))
    assert tip_r.cells() == R.cells(read_shibumi(PROGRAM_PLACED_RED)[0])


def test_program_spark_drop_matches_the_engine():
    before, _ = read_shibumi(PROGRAM_SPARK_DROP_BEFORE)
    tip = R.begin_turn(before).apply(Step("lift", "1c2", "W")).apply(Step("drop", "2b1", "R", "1c2"))
    tip = tip.apply(Step("return", None, "R"))
    after, hand = read_shibumi(PROGRAM_SPARK_DROP_AFTER)
    assert hand == ShibumiHand(adding=True, coal=True, spark=False)
    assert tip.cells() == R.cells(after) and tip.hand == ("W",)


def test_program_win_diagram_typo_is_reported_and_the_fixed_one_read():
    with pytest.raises(NotationError) as err:
        read_shibumi(PROGRAM_WHITE_WIN)
    assert err.value.line == 11 and err.value.column == 9
    assert "expected the row label 6" in str(err.value)
    p, hand = read_shibumi(PROGRAM_WHITE_WIN.replace(" 6 R W B 2", " 6 R W B 6"))
    assert R.cells(p)["4a1"] == "W" and R.outcome(p).winner == "white"
    assert R.cells(p)["3a2"] == "W" and R.cells(p)["2c3"] == "B" and R.cells(p)["1a1"] == "R"


@pytest.mark.parametrize("text", [
    START,
    "WBWB,BWBW,WBWB,BRBW/...,...,W../..,../. B",
    "WBWB,BWBW,WBWB,BWBW/RRR,RRR,WRR/RR,RR/R B",
    "WBWB,BWBW,WBWB,BWBW/RRR,RRR,WRR/RR,R./. W",
])
def test_round_trip_with_every_hand(text):
    p = R.parse_position(text)
    mover = "WB"[p.to_move]
    for hand in (ShibumiHand(), ShibumiHand(True, True, True), ShibumiHand(True, True, False),
                 ShibumiHand(True, False, True)):
        written = write_shibumi(p, hand)
        assert read_shibumi(written, mover=mover) == (p, hand)
        assert written.endswith("\n") and not written.endswith("\n\n")
    # tolerated: no final newline, trailing spaces, Windows line ends
    plain = write_shibumi(p)
    assert read_shibumi(plain.rstrip("\n"))[0] == p
    assert read_shibumi(plain.replace("\n", "  \r\n"))[0] == p


def test_levels_stop_at_the_first_empty_one():
    text = write_shibumi(R.parse_position("WBWB,BWBW,WBWB,BWBW/RRR,RRR,WRR/RR,R./. W"))
    assert "   B D F" in text and "    C E" in text and "     D" not in text
    assert text.count("\n") == 9 + 7 + 5 + 1


def test_hand_must_hold_something():
    with pytest.raises(ValueError):
        write_shibumi(R.start(), ShibumiHand(adding=True))


@pytest.mark.parametrize("text,line,message", [
    ("", 1, "empty diagram"),
    ("<W\n", 1, "expected the base level block"),
    (PROGRAM_START.replace("<W", "<X"), 10, "expected the last line"),
    (PROGRAM_START.replace("<W", "W"), 10, "expected the last line"),
    (PROGRAM_START.replace("5 B W B W 5", "5 B W Q W 5"), 4, "unexpected 'Q': expected a cell"),
    (PROGRAM_START.replace("5 B W B W 5", "5 B W B W"), 4, "row 5 of level 1 is cut short"),
    (PROGRAM_START.replace("5 B W B W 5", "5 B W B W 5 W"), 4, "unexpected text after row 5"),
    (PROGRAM_START.replace("5 B W B W 5", "5 B W BW 5"), 4, "expected a space"),
    (PROGRAM_START.replace("\n\n5", "\nx\n5"), 3, "expected an empty line between rows 7 and 5"),
    (PROGRAM_START.replace("  A C E G\n<W", "  A C E F\n<W"), 9, "expected the level 1 column header"),
    (PROGRAM_START.replace("1 B W B W 1\n  A C E G\n", "1 B W B W 1\n"), 9, "the level 1 block is cut short"),
    (PROGRAM_START.replace("<W", "<W\nextra"), 10, "unexpected line"),
    (PROGRAM_PLACE_FIRST.replace("   B D F\n<B", "<B"), 16, "the level 2 block is cut short"),
    (PROGRAM_PLACE_FIRST.replace("1 B R B W 1", "1 B . B W 1"), 15, "the ball on 2a1 is not supported: 1b1 is empty"),
    (PROGRAM_PLACE_FIRST.replace(" 2 W . . 2", "2 W . . 2"), 15, "expected a space (level 2 rows are indented by 1)"),
    (PROGRAM_PLACE_FIRST.replace(" 2 W . . 2", " 2 W . . 3"), 15, "expected the row label 2"),
])
def test_malformed_diagrams_name_the_line(text, line, message):
    with pytest.raises(NotationError, match=re.escape(message)) as err:
        read_shibumi(text)
    assert err.value.line == line
    assert f"line {line}:" in str(err.value)
