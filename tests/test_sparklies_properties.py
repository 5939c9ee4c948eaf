"""Sparklies property tests (hypothesis): thousands of random playouts keep the invariants,
turns and positions round-trip, steps replay, inference explains random turns, and random
text never crashes the parsers with anything but RulesError."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from host.games.base import RulesError
from host.games.sparklies import SparkliesPosition, SparkliesRules

from test_sparklies_steps import replay

SMALL = [
    SparkliesRules(width=3, height=3),
    SparkliesRules("speed", width=3, height=3),
    SparkliesRules(width=4, height=4),
    SparkliesRules("speed", width=4, height=4, wrap=True),
    SparkliesRules(width=5, height=5),
    SparkliesRules("speed", width=5, height=5),
    SparkliesRules(width=5, height=3, wrap=True),
    SparkliesRules(width=4, height=5, dead=["b2", "c4"]),
]
GAMES_PER_EXAMPLE = 8
PLAYOUT_EXAMPLES = 260  # 260 x 8 = 2080 games


def check_position(rules: SparkliesRules, p: SparkliesPosition) -> None:
    live = rules.board.live
    assert p.red | p.green | p.blue == live
    assert not (p.red & p.green or p.red & p.blue or p.green & p.blue)
    assert not (p.black & p.white) and (p.black | p.white) & ~live == 0
    assert rules.parse_position(rules.format_position(p)) == p
    assert set(rules.cells(p).values()) <= {c + k for c in "RGB" for k in ".bw"}


@settings(max_examples=PLAYOUT_EXAMPLES, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, len(SMALL) - 1))
def test_random_playouts_keep_invariants(seed, which):
    rules = SMALL[which]
    rng = random.Random(seed)
    for game in range(GAMES_PER_EXAMPLE):
        p = rules.start(rng)
        check_position(rules, p)
        controlled = 0
        turns = 0
        while rules.outcome(p) is None:
            t = rules.random_turn(p, rng)
            assert rules.parse_turn(p, rules.format_turn(t)) == t
            if game == 0:
                replay(rules, p, t)  # every step offered, every intermediate board consistent
            after = rules.play(p, t)
            assert after.to_move == 1 - p.to_move
            mover_before = p.controlled(p.to_move)
            assert after.controlled(p.to_move) & mover_before == mover_before  # never lost
            total = (after.black | after.white).bit_count()
            assert total > controlled or t.control is None
            controlled = total
            check_position(rules, after)
            p = after
            turns += 1
            assert turns <= rules.board.live.bit_count()
        assert p.black | p.white == rules.board.live
        out = rules.outcome(p)
        nb, nw = p.black.bit_count(), p.white.bit_count()
        assert out.result == ("1-0" if nb > nw else "0-1" if nw > nb else "1/2-1/2")


MEDIUM = [
    SparkliesRules(width=6, height=6),
    SparkliesRules("speed", width=6, height=6),
    SparkliesRules(width=9, height=9),
    SparkliesRules("speed", width=9, height=9),
    SparkliesRules(width=8, height=5, wrap=True, dead=["d3"]),
    SparkliesRules(width=20, height=20),
    SparkliesRules("speed", width=14, height=11),
]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, len(MEDIUM) - 1),
       progress=st.floats(0.1, 0.9))
def test_infer_explains_random_turns(seed, which, progress):
    rules = MEDIUM[which]
    rng = random.Random(seed)
    p = rules.start(rng)
    while (p.black | p.white).bit_count() < progress * rules.board.live.bit_count():
        p = rules.play(p, rules.random_turn(p, rng))
    t = rules.random_turn(p, rng)
    after = rules.play(p, t)
    inf = rules.infer(p, after, budget_ms=20_000)
    assert inf.status == "found", (rules.format_position(p), rules.format_turn(t), inf)
    assert rules.play(p, inf.turn) == after


@settings(max_examples=120, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_infer_explains_long_chains(seed):
    """Turns of at least 8 pings (drawn with random_turn until one is that long)."""
    rules = SparkliesRules("subtle" if seed % 2 else "speed", width=9, height=9)
    rng = random.Random(seed)
    p = rules.start(rng)
    while (p.black | p.white).bit_count() < 40:
        p = rules.play(p, rules.random_turn(p, rng))
    t = max((rules.random_turn(p, rng) for _ in range(300)), key=lambda x: len(x.pings))
    after = rules.play(p, t)
    inf = rules.infer(p, after, budget_ms=20_000)
    assert inf.status == "found" and rules.play(p, inf.turn) == after


# -- fuzz ------------------------------------------------------------------------------
ALPHABET = "RGBbw.-/ :,abcz0123456789xX\t"
FUZZ_RULES = [SparkliesRules(width=3, height=3), SparkliesRules(width=4, height=3, dead=["b2"])]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=st.one_of(st.text(max_size=40), st.text(alphabet=ALPHABET, max_size=40)))
def test_parsers_raise_only_rules_errors(text):
    for rules in FUZZ_RULES:
        p = rules.start(random.Random(1))
        for parse in (rules.parse_position, lambda s: rules.parse_turn(p, s),
                      SparkliesRules.geometry_from_position):
            try:
                parse(text)
            except RulesError:
                pass


@settings(max_examples=300, deadline=None, derandomize=True)
@given(tags=st.dictionaries(st.sampled_from(["Variant", "Size", "Dead", "Wrap", "Game", "Other"]),
                            st.one_of(st.text(max_size=12), st.text(alphabet="0123456789xXabe ", max_size=8))))
def test_from_tags_raises_only_option_errors(tags):
    try:
        rules = SparkliesRules.from_tags(tags)
    except RulesError:
        return
    assert SparkliesRules.from_tags(rules.tags()).tags() == rules.tags()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_near_miss_position_strings_round_trip_or_fail_cleanly(seed):
    """Mutating one character of a valid position string gives a valid position (that
    round-trips) or a NotationError naming a column."""
    rules = SparkliesRules(width=4, height=4, dead=["c3"])
    rng = random.Random(seed)
    text = rules.format_position(rules.start(rng))
    k = rng.randrange(len(text))
    mutated = text[:k] + rng.choice(ALPHABET) + text[k + 1:]
    try:
        p = rules.parse_position(mutated)
    except RulesError as exc:
        assert str(exc)
        return
    assert rules.format_position(p) == mutated
