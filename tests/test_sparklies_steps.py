"""Sparklies physical steps: the step sequence of a turn, every intermediate board state, and the
step-by-step generator (begin_turn / next_steps / apply)."""

from __future__ import annotations

import random

import pytest

from host.games.base import IllegalTurn, Step
from host.games.sparklies import SparkliesRules

from test_sparklies import QUAD, QUAD_POS, colours


def test_steps_of_the_quadrille_turn():
    t = QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B,b2G,c1G,b1B,c2B")
    steps = QUAD.steps(QUAD_POS, t)
    assert [str(s) for s in steps] == [
        "control w a1", "activate b1", "deactivate B b1", "marker w b2", "deactivate R b2",
        "marker w c2", "deactivate B c2", "deactivate G b2", "deactivate G c1", "deactivate B b1",
        "deactivate B c2"]


def test_owed_marker_shows_old_controller_until_laid():
    tip = QUAD.begin_turn(QUAD_POS)
    assert tip.cells() == QUAD.cells(QUAD_POS)
    tip = tip.apply(Step("control", "a1", "w"))
    assert tip.cells()["a1"] == "Bw"
    tip = tip.apply(Step("activate", "b1"))
    assert tip.cells() == QUAD.cells(QUAD_POS) | {"a1": "Bw"}      # activation is invisible
    tip = tip.apply(Step("deactivate", "b1", "B"))
    assert tip.cells()["b1"] == "Bw"                                 # tile swapped
    assert tip.cells()["b2"] == "Rb"                                 # captured, marker owed
    assert tip.owed_markers() == ("b2",)
    assert Step("marker", "b2", "w") in set(tip.next_steps())
    # the marker may wait: the chain goes on first
    tip = tip.apply(Step("deactivate", "b2", "R"))
    assert tip.owed_markers() == ("b2", "c2") and tip.cells()["c2"] == "G."
    tip = tip.apply(Step("marker", "c2", "w"))
    assert tip.cells()["c2"] == "Gw" and tip.cells()["b2"] == "Rb"
    with pytest.raises(IllegalTurn, match="no marker is owed on c2"):
        tip.apply(Step("marker", "c2", "w"))


def test_turn_complete_only_without_active_squares_and_owed_markers():
    tip = QUAD.begin_turn(QUAD_POS)
    for s in (Step("control", "a1", "w"), Step("activate", "b1"), Step("deactivate", "b1", "B"),
              Step("deactivate", "b2", "R"), Step("deactivate", "c2", "B"),
              Step("deactivate", "c1", "B"), Step("deactivate", "b2", "R")):
        tip = tip.apply(s)
    assert tip.active_squares() == () and tip.owed_markers() == ("b2", "c2")
    assert tip.complete_turns() == () and not tip.is_complete()
    assert {str(s) for s in tip.next_steps()} == {"marker w b2", "marker w c2"}
    tip = tip.apply(Step("marker", "c2", "w")).apply(Step("marker", "b2", "w"))
    (turn,) = tip.complete_turns()
    assert QUAD.format_turn(turn) == "a1:b1B,b2R,c2B,c1B,b2R"
    assert tip.position_after() == QUAD.play(QUAD_POS, turn)
    assert tip.cells() == QUAD.cells(tip.position_after())
    assert list(tip.next_steps()) == []


@pytest.mark.parametrize("steps, words", [
    ([Step("activate", "b1")], "first take control"),
    ([Step("control", "b2", "w")], "already controlled"),
    ([Step("control", "a1", "b")], "must be the mover's"),
    ([Step("control", "a1", "w"), Step("control", "a3", "w")], "already been taken"),
    ([Step("control", "a1", "w"), Step("activate", "b2")], "does not control b2"),
    ([Step("control", "a1", "w"), Step("deactivate", "b1", "R")], "nothing has been activated"),
    ([Step("control", "a1", "w"), Step("activate", "b1"), Step("activate", "c1")], "already been activated"),
    ([Step("control", "a1", "w"), Step("activate", "b1"), Step("deactivate", "c1", "R")], "c1 is not active"),
    ([Step("control", "a1", "w"), Step("activate", "b1"), Step("deactivate", "b1", "X")], "R, G or B"),
    ([Step("control", "z9", "w")], "not a square"),
    ([Step("jump", "a1")], "unknown Sparklies step"),
])
def test_illegal_steps(steps, words):
    tip = QUAD.begin_turn(QUAD_POS)
    with pytest.raises(IllegalTurn, match=words):
        for s in steps:
            tip = tip.apply(s)


def test_speed_steps_offer_only_the_forced_colour():
    r = SparkliesRules("speed", width=3, height=3)
    p = r.make_position(colours("BBB/RGB/BRB"), black=["b1"], white=["a2"])
    tip = r.begin_turn(p).apply(Step("control", "c3", "b")).apply(Step("activate", "b1"))
    assert {s.piece for s in tip.next_steps()} == {"R", "G", "B"}    # the activation is free
    tip = tip.apply(Step("deactivate", "b1", "R"))
    assert {str(s) for s in tip.next_steps()} == {"deactivate R b2", "marker b b2"}
    with pytest.raises(IllegalTurn, match="must turn R"):
        tip.apply(Step("deactivate", "b2", "G"))


def test_dash_turn_starts_with_activation():
    r = SparkliesRules(width=3, height=3)
    p = r.make_position("G", black=["a1", "b1", "c1", "a2", "b2"], white=["c2", "a3", "b3", "c3"])
    tip = r.begin_turn(p)
    assert {s.kind for s in tip.next_steps()} == {"activate"}
    with pytest.raises(IllegalTurn, match="no uncontrolled square is left"):
        tip.apply(Step("control", "a1", "b"))
    t = r.parse_turn(p, "-:a1G")
    assert [str(s) for s in r.steps(p, t)] == ["activate a1", "deactivate G a1"]


def test_key_identifies_state_not_history():
    """Two orders reaching the same chain state share a key (searches may merge them)."""
    tip = QUAD.begin_turn(QUAD_POS)
    for s in (Step("control", "a1", "w"), Step("activate", "b1"), Step("deactivate", "b1", "B")):
        tip = tip.apply(s)
    one = tip.apply(Step("marker", "b2", "w")).apply(Step("deactivate", "b2", "R"))
    two = tip.apply(Step("deactivate", "b2", "R")).apply(Step("marker", "b2", "w"))
    assert one.key() == two.key() and one.cells() == two.cells()
    assert one.key() != tip.key()


def replay(rules: SparkliesRules, position, turn) -> None:
    """Every step of ``steps`` is offered by next_steps, the board after each step shows the
    tiles and markers as laid so far, and the end is the turn and the position ``play`` gives."""
    tip = rules.begin_turn(position)
    after = rules.play(position, turn)
    for step in rules.steps(position, turn):
        assert step in set(tip.next_steps()), step
        assert tip.complete_turns() == ()
        tip = tip.apply(step)
        shown = tip.cells()
        for name in rules.board.names_of(tip.owed):
            assert shown[name][1] == rules.cells(position)[name][1]
    assert tip.complete_turns() == (turn,)
    assert tip.position_after() == after and tip.cells() == rules.cells(after)


def test_random_turns_replay_through_steps():
    rng = random.Random(21)
    for rules in (SparkliesRules(width=5, height=5), SparkliesRules("speed", width=4, height=6, wrap=True),
                  SparkliesRules(width=6, height=4, dead=["c2", "d3"])):
        p = rules.start(rng)
        while rules.outcome(p) is None:
            t = rules.random_turn(p, rng)
            replay(rules, p, t)
            p = rules.play(p, t)


def test_random_walk_over_next_steps_always_ends_in_a_legal_turn():
    """Choosing uniformly among next_steps (drain bias after a bound) yields turns that
    parse_turn accepts and play agrees with."""
    rules = SparkliesRules(width=4, height=4)
    rng = random.Random(5)
    for _ in range(60):
        p = rules.start(rng)
        for _ in range(rng.randrange(6)):
            p = rules.play(p, rules.random_turn(p, rng))
        if rules.outcome(p):
            continue
        tip = rules.begin_turn(p)
        count = 0
        while not tip.is_complete():
            options = list(tip.next_steps())
            if count > 30:  # prefer markers and pings of the current colour to end the chain
                options = [s for s in options if s.kind == "marker"] or options
            tip = tip.apply(rng.choice(options))
            count += 1
            assert count < 500
        (turn,) = tip.complete_turns()
        assert rules.parse_turn(p, rules.format_turn(turn)) == turn
        assert rules.play(p, turn) == tip.position_after()
