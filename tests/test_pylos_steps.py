"""Pylos turns as physical steps: the step vocabulary, every intermediate state, and the
agreement between step-by-step play and whole turns."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.games import IllegalTurn, NotationError, Step
from host.games.pylos import PylosRules, PylosTurn
from host.games.pyramid import BY_NAME

R = PylosRules()
CHILDREN = PylosRules("children")
# light to move: 1c2 completes 1c1 1d1 1c2 1d2; light 2a1 rests on light 1a1 (which supports
# nothing else), so taking back 2a1 frees 1a1
STACKED = R.parse_position("DDD.,..DD,LD.L,LLLL/...,...,L../..,../. L 8 9")
RAISE = R.parse_position("DL..,.DL.,.LD.,L.DD/...,...,.../..,../. L 11 10")  # 2b2 supported, 1a1 free


def test_steps_of_each_kind_of_turn():
    assert R.steps(R.start(), R.parse_turn(R.start(), "1b2")) == (Step("place", "1b2", "L"),)
    assert R.steps(RAISE, R.parse_turn(RAISE, "1a1-2b2")) == (Step("lift", "1a1", "L"), Step("place", "2b2", "L"))
    assert R.steps(STACKED, R.parse_turn(STACKED, "1c2x2a1x1a1")) == (
        Step("place", "1c2", "L"), Step("lift", "2a1", "L"), Step("lift", "1a1", "L"))
    with pytest.raises(IllegalTurn, match="2a1 is not supported"):
        R.steps(R.start(), PylosTurn(BY_NAME["2a1"]))


def test_placing_from_the_reserve_step_by_step():
    state = R.begin_turn(R.start())
    assert sorted(s.where for s in state.next_steps()) == sorted(f"1{c}{r}" for c in "abcd" for r in range(1, 5))
    assert {s.kind for s in state.next_steps()} == {"place"}
    assert state.complete_turns() == ()
    assert state.cells() == R.cells(R.start())
    done = state.apply(Step("place", "1c2", "L"))
    assert state.apply(Step("place", "1c2")) == done  # no piece given: the mover's colour
    assert done.cells()["1c2"] == "L"
    assert done.complete_turns() == (R.parse_turn(R.start(), "1c2"),)
    assert list(done.next_steps()) == []


def test_a_raise_keeps_the_ball_in_the_hand_between_lift_and_place():
    state = R.begin_turn(RAISE)
    assert Step("lift", "1a1", "L") in set(state.next_steps())
    assert Step("lift", "1b2", "L") not in set(state.next_steps())  # under 2b2's square, 2b2 its only target
    hand = state.apply(Step("lift", "1a1", "L"))
    assert hand.cells()["1a1"] == "." and hand.complete_turns() == ()
    assert list(hand.next_steps()) == [Step("place", "2b2", "L")]
    with pytest.raises(IllegalTurn, match="in the hand"):
        hand.apply(Step("lift", "1d1", "L"))
    with pytest.raises(IllegalTurn, match="a raise must go to a higher level"):
        hand.apply(Step("place", "1a1", "L"))
    done = hand.apply(Step("place", "2b2", "L"))
    assert done.cells()["2b2"] == "L" and done.cells()["1a1"] == "."
    assert done.complete_turns() == (R.parse_turn(RAISE, "1a1-2b2"),)


def test_take_backs_are_owed_then_optional():
    state = R.begin_turn(STACKED).apply(Step("place", "1c2", "L"))
    assert state.complete_turns() == ()  # the take-back is compulsory
    assert {s.where for s in state.next_steps()} == {"2a1", "1c1", "1d1", "1d2", "1c2"}
    assert {s.kind for s in state.next_steps()} == {"lift"}
    one = state.apply(Step("lift", "2a1", "L"))
    assert one.cells()["2a1"] == "."
    assert one.complete_turns() == (R.parse_turn(STACKED, "1c2x2a1"),)
    assert Step("lift", "1a1", "L") in set(one.next_steps())  # freed by the first take-back
    two = one.apply(Step("lift", "1a1", "L"))
    assert two.complete_turns() == (R.parse_turn(STACKED, "1c2x2a1x1a1"),)
    assert list(two.next_steps()) == []
    with pytest.raises(IllegalTurn, match="at most two balls may be taken back"):
        two.apply(Step("lift", "1c2", "L"))
    with pytest.raises(IllegalTurn, match="1a1 supports 2a1 and cannot be taken back"):
        state.apply(Step("lift", "1a1", "L"))


def test_both_orders_of_two_take_backs_reach_the_same_state():
    placed = R.begin_turn(STACKED).apply(Step("place", "1c2", "L"))
    ab = placed.apply(Step("lift", "1d1", "L")).apply(Step("lift", "1d2", "L"))
    ba = placed.apply(Step("lift", "1d2", "L")).apply(Step("lift", "1d1", "L"))
    assert ab.key() == ba.key() and ab.cells() == ba.cells()
    assert R.play(STACKED, ab.complete_turns()[0]) == R.play(STACKED, ba.complete_turns()[0])
    assert ab.key() != placed.key() != R.begin_turn(STACKED).key()


def test_children_owe_no_take_back():
    state = CHILDREN.begin_turn(STACKED).apply(Step("place", "1c2", "L"))
    assert state.complete_turns() == (PylosTurn(BY_NAME["1c2"]),)
    assert list(state.next_steps()) == []
    with pytest.raises(IllegalTurn, match="children"):
        state.apply(Step("lift", "1c2", "L"))


def test_steps_that_are_not_allowed_say_why():
    state = R.begin_turn(RAISE)
    with pytest.raises(IllegalTurn, match="it is light's turn"):
        state.apply(Step("place", "1a2", "D"))
    with pytest.raises(IllegalTurn, match="2a1 is not supported"):
        state.apply(Step("place", "2a1", "L"))
    with pytest.raises(IllegalTurn, match="1a4 holds a dark ball"):
        state.apply(Step("lift", "1a4", "L"))
    with pytest.raises(IllegalTurn, match="1c3 has no higher supported position to be raised to"):
        state.apply(Step("lift", "1c3", "L"))
    with pytest.raises(IllegalTurn, match="unknown Pylos step"):
        state.apply(Step("drop", "1a2", "L"))
    with pytest.raises(NotationError, match="expected a pyramid position"):
        state.apply(Step("place", "9z9", "L"))
    placed = state.apply(Step("place", "1a2", "L"))
    with pytest.raises(IllegalTurn, match="already placed on 1a2"):
        placed.apply(Step("place", "1b1", "L"))
    with pytest.raises(IllegalTurn, match="1a2 completes no light square"):
        placed.apply(Step("lift", "1a2", "L"))


def test_no_step_once_the_game_is_over():
    over = R.parse_position("LDLD,DLLD,DDLD,DDLL/DLD,LDL,LDD/..,DL/. D 3 0")
    state = R.begin_turn(over)
    assert list(state.next_steps()) == [] and state.complete_turns() == ()
    with pytest.raises(IllegalTurn, match="the game is over"):
        state.apply(Step("lift", "2a3", "D"))
    moves = PylosRules(reserve_rule="moves").begin_turn(over)
    assert {s.kind for s in moves.next_steps()} == {"lift"}  # only raises without a reserve


# -- properties over random positions ----------------------------------------------------------

def random_position(rules: PylosRules, seed: int):
    """A position reached by random play, not finished."""
    rng = random.Random(seed)
    pos = rules.start()
    for _ in range(rng.randrange(0, 60)):
        turns = rules.turn_list(pos)
        if not turns:
            break
        nxt = rules.play(pos, rng.choice(turns))
        if rules.outcome(nxt) is not None:
            break
        pos = nxt
    return pos


RULES = [PylosRules(v, reserve_rule=r) for v in ("standard", "children", "mature") for r in ("empty", "moves")]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.integers(0, 10**9), st.sampled_from(RULES))
def test_replaying_steps_reaches_the_turn(seed, rules):
    pos = random_position(rules, seed)
    for turn in rules.legal_turns(pos):
        state = rules.begin_turn(pos)
        for step in rules.steps(pos, turn):
            assert step in set(state.next_steps())
            state = state.apply(step)
        assert turn in state.complete_turns()
        assert state.cells() == rules.cells(rules.play(pos, turn))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 10**9), st.sampled_from(RULES))
def test_every_step_sequence_makes_exactly_the_legal_turns(seed, rules):
    """Walk every sequence of next_steps: the complete turns met are legal, and together
    they reach every result the legal turns reach."""
    pos = random_position(rules, seed)
    seen, stack, results = set(), [rules.begin_turn(pos)], set()
    while stack:
        state = stack.pop()
        if state.key() in seen:
            continue
        seen.add(state.key())
        for turn in state.complete_turns():
            after = rules.play(pos, turn)  # raises if the steps made an illegal turn
            assert state.cells() == rules.cells(after)
            results.add(after)
        stack.extend(state.apply(step) for step in state.next_steps())
    assert results == {rules.play(pos, t) for t in rules.legal_turns(pos)}
