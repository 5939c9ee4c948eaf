"""Pylos rules, one ruling at a time (RULINGS.md, Pylos section), with the awkward cases."""

from __future__ import annotations

import pytest

from host.games import IllegalTurn, rules_for
from host.games.pylos import PylosPosition, PylosRules, PylosTurn
from host.games.pyramid import BY_NAME, LEVEL_MASK, TOP

STANDARD = PylosRules()
CHILDREN = PylosRules("children")
MATURE = PylosRules("mature")
MOVES = PylosRules(reserve_rule="moves")


def mask(names: str) -> int:
    return sum(1 << BY_NAME[n] for n in names.split())


def at(light: str = "", dark: str = "", mover: str = "L", lr: int | None = None, dr: int | None = None) -> PylosPosition:
    """A position from ball names; reserves default to 15 minus the balls on the board."""
    lm, dm = mask(light), mask(dark)
    return PylosPosition(lm, dm, "LD".index(mover), 15 - lm.bit_count() if lr is None else lr,
                         15 - dm.bit_count() if dr is None else dr)


def turns(rules: PylosRules, pos: PylosPosition) -> list[str]:
    return sorted(rules.format_turn(t) for t in rules.legal_turns(pos))


def illegal(rules: PylosRules, pos: PylosPosition, text: str) -> str:
    """The reason ``text`` is refused, checked both by parse_turn and by play."""
    with pytest.raises(IllegalTurn) as err:
        rules.parse_turn(pos, text)
    with pytest.raises(IllegalTurn) as err2:
        rules.play(pos, PylosRules.read_turn(text))
    assert str(err.value) == str(err2.value)
    return str(err.value)


# a 2x2 square of mixed colours under 2b2 (1b2 1c2 1b3 1c3), light 1d4 free to be raised
SQUARE_UNDER_2B2 = at("1b2 1c3 1d4 1a1", "1c2 1b3 1d1", mover="L")
# light's level-2 ball on 2a1 resting on light 1a1 (a corner: 1a1 supports only 2a1)
STACKED = at("1a1 1b1 1a2 2a1 1d1 1d2 1c1", "1b2 1c3 1d3 1c4 1b4 1a4", mover="L")


# -- placing -------------------------------------------------------------------------------

def test_start_offers_the_sixteen_base_hollows():
    assert turns(STANDARD, STANDARD.start()) == sorted(f"1{c}{r}" for c in "abcd" for r in range(1, 5))


def test_place_takes_a_ball_from_the_reserve_and_passes_the_turn():
    after = STANDARD.play(STANDARD.start(), STANDARD.parse_turn(STANDARD.start(), "1c2"))
    assert after == at("1c2", mover="D")
    assert (after.light_reserve, after.dark_reserve, after.to_move) == (14, 15, 1)


def test_place_on_a_supported_upper_position():
    assert "2b2" in turns(STANDARD, SQUARE_UNDER_2B2)
    after = STANDARD.play(SQUARE_UNDER_2B2, PylosTurn(BY_NAME["2b2"]))
    assert after.light >> BY_NAME["2b2"] & 1 and after.light_reserve == SQUARE_UNDER_2B2.light_reserve - 1


def test_unsupported_and_occupied_targets_are_refused_with_the_positions_named():
    assert illegal(STANDARD, STANDARD.start(), "2a1") == "2a1 is not supported: 1a1 1b1 1a2 1b2 are empty"
    assert illegal(STANDARD, at("1a1 1b1", "1a2"), "2a1") == "2a1 is not supported: 1b2 is empty"
    assert illegal(STANDARD, at("1a1", "1b1", mover="L"), "1b1") == "1b1 is occupied by a dark ball"
    assert illegal(STANDARD, STANDARD.start(), "4a1") == "4a1 is not supported: 3a1 3b1 3a2 3b2 are empty"


def test_turn_values_outside_the_pyramid_are_refused_not_crashed_on():
    assert illegal_turn(PylosTurn(30)) == "30 is not a pyramid position"
    assert illegal_turn(PylosTurn(BY_NAME["1a1"], -1)) == "-1 is not a pyramid position"
    assert illegal_turn(PylosTurn(BY_NAME["1b2"], None, (BY_NAME["1b2"], 99))) == "99 is not a pyramid position"
    assert illegal_turn(PylosTurn(BY_NAME["1b2"], None, [BY_NAME["1b2"]])) == "the take-backs must be a tuple of positions"


def illegal_turn(turn: PylosTurn) -> str:
    with pytest.raises(IllegalTurn) as err:
        STANDARD.play(SQUARE_NEXT, turn)
    return str(err.value)


# -- raising ---------------------------------------------------------------------------------

def test_raise_moves_an_own_free_ball_up_without_using_the_reserve():
    assert "1d4-2b2" in turns(STANDARD, SQUARE_UNDER_2B2)
    after = STANDARD.play(SQUARE_UNDER_2B2, STANDARD.parse_turn(SQUARE_UNDER_2B2, "1d4-2b2"))
    assert after == at("1b2 1c3 2b2 1a1", "1c2 1b3 1d1", mover="D", lr=SQUARE_UNDER_2B2.light_reserve)


def test_raising_onto_a_square_the_ball_is_part_of_is_illegal():
    assert "1b2-2b2" not in turns(STANDARD, SQUARE_UNDER_2B2)
    assert illegal(STANDARD, SQUARE_UNDER_2B2, "1b2-2b2") == (
        "2b2 rests on 1b2, the ball being raised: it would not be supported once 1b2 is lifted")


def test_a_ball_that_supports_another_cannot_be_raised():
    pos = at("1a1 1b1 1a2 1b2 1d4", "2a1 1c3 1c4 1d3", mover="L")
    assert illegal(STANDARD, pos, "1a1-3a1") == "1a1 supports 2a1 and cannot be raised"
    assert not [t for t in STANDARD.legal_turns(pos) if t.source == BY_NAME["1a1"]]


def test_a_raise_must_go_up_at_least_one_level():
    assert illegal(STANDARD, SQUARE_UNDER_2B2, "1d4-1d3") == (
        "a raise must go to a higher level: 1d3 is on level 1, 1d4 on level 1")
    assert not [t for t in STANDARD.legal_turns(SQUARE_UNDER_2B2) if t.source is not None and t.target < 16]


def test_only_own_balls_are_raised():
    assert illegal(STANDARD, SQUARE_UNDER_2B2, "1d1-2b2") == "1d1 holds a dark ball, not a light ball, and cannot be raised"
    assert illegal(STANDARD, SQUARE_UNDER_2B2, "1a3-2b2") == "1a3 holds nothing, not a light ball, and cannot be raised"


def test_raise_may_go_up_two_levels():
    # level 2 square 2a1 2b1 2a2 2b2 complete: a free light base ball may go to 3a1
    pos = PylosRules().parse_position("L..L,DLDD,LDLD,DLDL/...,DL.,LD./..,../. L 6 6")
    assert "1a4-3a1" in turns(STANDARD, pos) and "1d4-3a1" in turns(STANDARD, pos)


# -- squares and take-backs ------------------------------------------------------------------

SQUARE_NEXT = at("1a1 1b1 1a2", "1d4 1c4", mover="L")


def test_completing_an_own_square_forces_one_or_two_take_backs():
    assert illegal(STANDARD, SQUARE_NEXT, "1b2") == (
        "1b2 completes a light square (1a1 1b1 1a2 1b2): at least one ball must be taken back")
    options = [t for t in turns(STANDARD, SQUARE_NEXT) if t.startswith("1b2")]
    # four free light balls: 4 singles and 6 pairs
    assert options == sorted(["1b2x1a1", "1b2x1b1", "1b2x1a2", "1b2x1b2", "1b2x1a1x1b1", "1b2x1a1x1a2",
                              "1b2x1a1x1b2", "1b2x1b1x1a2", "1b2x1b1x1b2", "1b2x1a2x1b2"])
    after = STANDARD.play(SQUARE_NEXT, STANDARD.parse_turn(SQUARE_NEXT, "1b2x1a1x1b1"))
    assert after == at("1a2 1b2", "1d4 1c4", mover="D", lr=13)


def test_the_ball_just_placed_may_be_taken_back():
    after = STANDARD.play(SQUARE_NEXT, STANDARD.parse_turn(SQUARE_NEXT, "1b2x1b2"))
    assert after == at("1a1 1b1 1a2", "1d4 1c4", mover="D")
    assert after.light_reserve == SQUARE_NEXT.light_reserve


def test_no_more_than_two_take_backs_and_each_ball_once():
    assert illegal(STANDARD, SQUARE_NEXT, "1b2x1a1x1b1x1a2") == "at most two balls may be taken back"
    assert illegal(STANDARD, SQUARE_NEXT, "1b2x1a1x1a1") == "1a1 was already taken back"


def test_take_backs_are_own_free_balls():
    assert illegal(STANDARD, SQUARE_NEXT, "1b2x1d4") == "1d4 is not a light ball and cannot be taken back"
    assert illegal(STANDARD, SQUARE_NEXT, "1b2x1c1") == "1c1 is empty and cannot be taken back"
    assert illegal(STANDARD, STACKED, "1c2x1a1") == "1a1 supports 2a1 and cannot be taken back"


def test_a_square_not_of_the_movers_colour_gives_nothing():
    pos = at("1a1 1b1", "1a2 1c4", mover="L")
    assert illegal(STANDARD, pos, "1b2x1b2") == "1b2 completes no light square: no ball may be taken back"
    assert "1b2" in turns(STANDARD, pos)


def test_an_own_square_not_made_by_the_ball_just_placed_gives_nothing():
    pos = at("1a1 1b1 1a2 1b2", "1d4 1c4 1d3", mover="L")
    assert illegal(STANDARD, pos, "1d1x1a1") == "1d1 completes no light square: no ball may be taken back"


def test_second_take_back_may_be_a_ball_freed_by_the_first():
    # light completes 1c1 1d1 1c2 1d2 by placing 1c2; 2a1 then 1a1 (freed by the first) is legal
    legal = turns(STANDARD, STACKED)
    assert "1c2x2a1x1a1" in legal
    assert "1c2x1a1x2a1" not in legal  # 1a1 still supports 2a1 at first
    assert illegal(STANDARD, STACKED, "1c2x1a1x2a1") == "1a1 supports 2a1 and cannot be taken back"
    after = STANDARD.play(STACKED, STANDARD.parse_turn(STACKED, "1c2x2a1x1a1"))
    assert not after.light >> BY_NAME["2a1"] & 1 and not after.light >> BY_NAME["1a1"] & 1
    assert after.light_reserve == STACKED.light_reserve + 1


def test_either_order_of_two_free_balls_is_one_legal_turn_lower_index_first():
    legal = turns(STANDARD, SQUARE_NEXT)
    assert "1b2x1a1x1b1" in legal and "1b2x1b1x1a1" not in legal
    written = STANDARD.parse_turn(SQUARE_NEXT, "1b2x1b1x1a1")  # the other order is accepted as written
    assert written.removals == (BY_NAME["1b1"], BY_NAME["1a1"])
    assert STANDARD.play(SQUARE_NEXT, written) == STANDARD.play(SQUARE_NEXT, STANDARD.parse_turn(SQUARE_NEXT, "1b2x1a1x1b1"))


def test_several_squares_at_once_still_give_one_or_two():
    # 1b2 completes the four squares around it at once
    pos = at("1a1 1b1 1c1 1a2 1c2 1a3 1b3 1c3", "1d4 1c4 1b4 1a4 1d1 1d2 1d3", mover="L")
    made = [t for t in STANDARD.legal_turns(pos) if t.target == BY_NAME["1b2"]]
    assert {len(t.removals) for t in made} == {1, 2}
    assert len(made) == 9 + 9 * 8 // 2  # nine free light balls: singles and unordered pairs
    assert illegal(STANDARD, pos, "1b2x1a1x1b1x1c1") == "at most two balls may be taken back"


def test_square_on_level_two():
    pos = PylosRules().parse_position("LDLD,DLDL,LDLD,DLDL/...,LL.,L../..,../. L 4 7")
    assert "2b1x2b1" in turns(STANDARD, pos)
    assert illegal(STANDARD, pos, "2b1").startswith("2b1 completes a light square (2a1 2b1 2a2 2b2)")


def test_a_raise_that_completes_a_square_gives_take_backs():
    pos = PylosRules().parse_position("LDLD,DLDL,LDLD,DLDL/...,LL.,L../..,../. L 4 7")
    # 1a4 is a free light ball (supports nothing on level 2 row 3 empty)
    assert "1a4-2b1x2b1" in turns(STANDARD, pos)
    assert illegal(STANDARD, pos, "1a4-2b1").endswith("at least one ball must be taken back")
    after = STANDARD.play(pos, STANDARD.parse_turn(pos, "1a4-2b1x2a1"))
    assert after.light_reserve == 5 and not after.light >> BY_NAME["1a4"] & 1


def test_a_take_back_refills_the_reserve_of_a_player_who_placed_the_last_ball():
    pos = STANDARD.parse_position("DLDL,DLDL,L.DL,LLDL/LLL,..L,..L/..,../. L 1 9")
    after = STANDARD.play(pos, STANDARD.parse_turn(pos, "1b2x1b2"))
    assert after.light_reserve == 1 and STANDARD.outcome(after) is None
    after2 = STANDARD.play(pos, STANDARD.parse_turn(pos, "1b2x1a1x2c1"))
    assert after2.light_reserve == 2


# -- variants --------------------------------------------------------------------------------

def test_children_never_take_back():
    assert "1b2" in turns(CHILDREN, SQUARE_NEXT)
    assert not [t for t in CHILDREN.legal_turns(SQUARE_NEXT) if t.removals]
    assert illegal(CHILDREN, SQUARE_NEXT, "1b2x1b2") == "no ball is taken back in the children variant"


def test_mature_line_of_four_on_level_one():
    pos = at("1a1 1b1 1c1", "1a4 1b4", mover="L")
    assert illegal(MATURE, pos, "1d1") == (
        "1d1 completes a light line (1a1 1b1 1c1 1d1): at least one ball must be taken back")
    assert "1d1x1b1x1c1" in turns(MATURE, pos)
    assert "1d1" in turns(STANDARD, pos)  # lines count only in mature
    assert illegal(STANDARD, pos, "1d1x1d1") == "1d1 completes no light square: no ball may be taken back"
    column = at("1a1 1a2 1a3", "1d4 1c4", mover="L")
    assert "1a4x1a4" in turns(MATURE, column)


LEVEL_TWO_ROW = "LDLD,DLDL,LDLD,DLDL/...,...,LL./..,../. L 5 7"


def test_mature_line_of_three_on_level_two():
    pos = MATURE.parse_position(LEVEL_TWO_ROW)
    assert illegal(MATURE, pos, "2c1") == (
        "2c1 completes a light line (2a1 2b1 2c1): at least one ball must be taken back")
    assert "2c1x2a1" in turns(MATURE, pos)
    assert "2c1" in turns(STANDARD, pos)


def test_mature_diagonals_do_not_count():
    pos = at("1a1 1b2 1c3", "1a4 1b4 1c4", mover="L")
    assert "1d4" in turns(MATURE, pos)
    assert illegal(MATURE, pos, "1d4x1d4") == "1d4 completes no light square or line: no ball may be taken back"


def test_mature_line_not_made_by_the_ball_just_placed_does_not_count():
    pos = at("1a1 1b1 1c1 1d1", "1a4 1b4 1c4", mover="L")
    assert "1a3" in turns(MATURE, pos)
    assert illegal(MATURE, pos, "1a3x1a1") == "1a3 completes no light square or line: no ball may be taken back"


def test_mature_two_in_a_row_on_level_three_is_no_line():
    pos = MATURE.parse_position("LDLD,DLDL,LDLD,DLDL/LDL,DLD,LDL/..,L./. L 1 3")
    assert "3b1" in turns(MATURE, pos)
    assert illegal(MATURE, pos, "3b1x3b1") == "3b1 completes no light square or line: no ball may be taken back"


# -- the end of the game ---------------------------------------------------------------------

BEFORE_TOP = "LLDL,LDDD,DDDL,LLDD/LLD,LLL,DDL/LD,DD/. L 1 0"


def test_the_top_ball_wins():
    pos = STANDARD.parse_position(BEFORE_TOP)
    assert turns(STANDARD, pos) == ["4a1"]
    after = STANDARD.play(pos, STANDARD.parse_turn(pos, "4a1"))
    outcome = STANDARD.outcome(after)
    assert outcome is not None
    assert (outcome.result, outcome.winner, outcome.reason) == ("1-0", "light", "Light placed the top ball")
    assert list(STANDARD.legal_turns(after)) == []
    assert illegal(STANDARD, after, "1a1").startswith("the game is over: Light placed the top ball")


def test_the_top_ball_placed_by_dark_is_a_dark_win():
    pos = STANDARD.parse_position("DDLD,DLLL,LLLD,DDLL/DDL,DDD,LLD/DL,LL/. D 0 1")
    after = STANDARD.play(pos, STANDARD.parse_turn(pos, "4a1"))
    outcome = STANDARD.outcome(after)
    assert outcome is not None
    assert (outcome.result, outcome.winner, outcome.reason) == ("0-1", "dark", "Dark placed the top ball")


def test_a_raise_can_never_reach_the_top():
    """The top rests on all of level 3, which rests on all of level 2, which covers level 1:
    when the top is supported every ball below supports something, so the top ball always
    comes from the reserve. Nothing in the engine forbids a raise onto the top (the target
    only has to stay supported); geometry makes it impossible. The property tests check that
    no generated turn ever raises onto the top."""
    pos = STANDARD.parse_position(BEFORE_TOP)
    assert illegal(STANDARD, pos, "3a2-4a1") == (
        "4a1 rests on 3a2, the ball being raised: it would not be supported once 3a2 is lifted")
    assert illegal(STANDARD, pos, "2b2-4a1") == "2b2 supports 3a1 3b1 3a2 3b2 and cannot be raised"
    assert illegal(STANDARD, pos, "1a1-4a1") == "1a1 supports 2a1 and cannot be raised"
    # with no ball in reserve and only raises allowed, a supported top is out of reach
    stuck = MOVES.parse_position("LLLL,LDDD,DDDL,LLDD/LLD,LLL,DDL/LD,DD/. L 0 1")
    assert list(MOVES.legal_turns(stuck)) == []
    assert MOVES.outcome(stuck).reason == "Light is to move with no ball in reserve and no ball to raise"


def test_top_ball_outcome_whoever_moved_last():
    # the outcome only looks at the top: a top ball with light to move was placed by dark
    filled = LEVEL_MASK[1] | LEVEL_MASK[2] | LEVEL_MASK[3] | (1 << TOP)
    pos = PylosPosition(filled & 0x5555_5555, filled & ~0x5555_5555, 0, 0, 0)
    assert STANDARD.outcome(pos).winner == "dark"
    assert MOVES.outcome(PylosPosition(pos.light, pos.dark, 1, 0, 0)).winner == "light"


NO_RESERVE_WITH_RAISES = "LDLD,DLLD,DDLD,DDLL/DLD,LDL,LDD/..,DL/. D 3 0"
NO_RESERVE_NO_RAISE = "LLDD,LLLL,DDLL,.LLD/LLL,LDD,.DD/DL,.D/. L 0 4"


def test_empty_reserve_loses_under_the_default_rule():
    pos = STANDARD.parse_position(NO_RESERVE_WITH_RAISES)
    outcome = STANDARD.outcome(pos)
    assert outcome is not None
    assert (outcome.result, outcome.winner, outcome.reason) == (
        "1-0", "light", "Dark is to move with no ball left in reserve")
    assert list(STANDARD.legal_turns(pos)) == []
    assert illegal(STANDARD, pos, "2a3-3b2") == "the game is over: Dark is to move with no ball left in reserve"


def test_empty_reserve_may_still_raise_under_the_moves_rule():
    pos = MOVES.parse_position(NO_RESERVE_WITH_RAISES)
    assert MOVES.outcome(pos) is None
    assert turns(MOVES, pos) == ["2a3-3b2", "2c3-3a2"]
    assert illegal(MOVES, pos, "3a1") == "Dark has no ball in reserve to place on 3a1"
    after = MOVES.play(pos, MOVES.parse_turn(pos, "2a3-3b2"))
    assert after.dark_reserve == 0 and MOVES.outcome(after) is None


def test_empty_reserve_and_no_raise_loses_under_the_moves_rule():
    pos = MOVES.parse_position(NO_RESERVE_NO_RAISE)
    outcome = MOVES.outcome(pos)
    assert outcome is not None
    assert (outcome.result, outcome.winner, outcome.reason) == (
        "0-1", "dark", "Light is to move with no ball in reserve and no ball to raise")
    assert list(MOVES.legal_turns(pos)) == []
    assert STANDARD.outcome(pos).reason == "Light is to move with no ball left in reserve"


def test_placing_the_last_ball_loses_at_the_next_turn():
    pos = STANDARD.parse_position("DLLL,LDDL,LDDL,LLL./LLL,L..,.../..,../. L 1 10")
    last = STANDARD.play(pos, STANDARD.parse_turn(pos, "1d1"))
    assert last.light_reserve == 0 and STANDARD.outcome(last) is None  # dark still plays
    final = STANDARD.play(last, STANDARD.parse_turn(last, "2b2"))
    assert final.to_move == 0 and STANDARD.outcome(final).winner == "dark"
    # under the moves rule light may still raise instead of losing, and only raise
    assert MOVES.outcome(final) is None
    assert "2c3-3a2" in turns(MOVES, final) and all("-" in t for t in turns(MOVES, final))


def test_game_goes_on_while_reserves_last():
    assert STANDARD.outcome(STANDARD.start()) is None
    assert STANDARD.to_move(STANDARD.start()) == "light"
    assert STANDARD.to_move(STANDARD.play(STANDARD.start(), PylosTurn(0))) == "dark"


def test_registry_builds_the_rules():
    assert rules_for("pylos") == PylosRules()
    assert rules_for("pylos", "mature", reserve_rule="moves") == PylosRules("mature", reserve_rule="moves")
