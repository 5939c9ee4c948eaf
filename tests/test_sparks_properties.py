"""Property tests of the Sparks engine over random games (2300 seeded playouts in all:
1500 + 300 + 300 + 200) and fuzzing of every text reader."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.games import IllegalTurn, RulesError
from host.games.pyramid import LEVEL_MASK, SUPPORTS, TOP, bits
from host.games.shibumi import read_shibumi, write_shibumi
from host.games.sparks import START, SparksRules
from host.games.sparks_core import resolve

R = SparksRules()
SEEDS = st.integers(0, 2**32 - 1)
MAX_PLIES = 200


def run(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def playout(seed: int):
    """The (position, turn) pairs of one game with uniformly random legal turns, and the
    final position."""
    rng = random.Random(seed)
    p = R.start()
    plies = []
    for _ in range(MAX_PLIES):
        if R.outcome(p) is not None:
            return plies, p
        t = R.random_turn(p, rng)
        plies.append((p, t))
        p = R.play(p, t)
    raise AssertionError(f"seed {seed}: the game did not end within {MAX_PLIES} turns")


def balls(p) -> int:
    return (p.white | p.black | p.red).bit_count()


@run(1500)
@given(SEEDS)
def test_random_playouts_keep_the_invariants(seed):
    plies, final = playout(seed)
    for p, t in plies:
        assert list(R.legal_turns(p)), "a position with a coal to take has a legal turn"
        q = R.play(p, t)
        assert R.play_legal(p, t) == q
        assert p.white & p.black == 0 and p.white & p.red == 0 and p.black & p.red == 0
        occ = q.white | q.black | q.red
        assert all(SUPPORTS[i] & occ == SUPPORTS[i] for i in bits(occ)), "every ball is supported"
        assert occ & LEVEL_MASK[1] == LEVEL_MASK[1], "the base is always full"
        assert q.white.bit_count() == 8 and q.black.bit_count() == 8
        assert q.to_move == 1 - p.to_move
        done = resolve(p, t)
        won_at_once = len(done.placements) == 1 and not done.free and not done.spark_returned
        if done.spark_returned or won_at_once:
            assert balls(q) == balls(p)
        else:
            assert balls(q) == balls(p) + 1
            assert q.red.bit_count() == p.red.bit_count() + 1
    out = R.outcome(final)
    assert out is not None and list(R.legal_turns(final)) == []
    if final.white >> TOP & 1 or final.black >> TOP & 1:
        # 14 balls must go above the base, at most one a turn
        assert len(plies) >= 14
        assert out.winner == R.players[1 - final.to_move], "the player who just moved won"
    else:
        assert out.winner == R.players[1 - final.to_move] and "no coal" in out.reason


@run(300)
@given(SEEDS)
def test_turns_and_positions_round_trip(seed):
    plies, final = playout(seed)
    for p, chosen in plies + [(final, None)]:
        text = R.format_position(p)
        assert R.parse_position(text) == p
        assert R.format_position(R.parse_position(text)) == text
        assert read_shibumi(write_shibumi(p))[0] == p
        for t in R.legal_turns(p):  # every generated turn
            written = R.format_turn(t)
            assert R.parse_turn(p, written) == t
            assert R.format_turn(R.parse_turn(p, written)) == written


@run(300)
@given(SEEDS)
def test_inference_finds_the_turn_played(seed):
    plies, _ = playout(seed)
    for p, t in plies:
        q = R.play(p, t)
        inf = R.infer(p, q)
        assert inf.status == "found", inf.reason
        assert inf.turn == t or R.play(p, inf.turn) == q


@run(200)
@given(SEEDS)
def test_replaying_the_steps_reaches_the_turn(seed):
    plies, _ = playout(seed)
    rng = random.Random(seed)
    for p, chosen in plies:
        turns = list(R.legal_turns(p))
        for t in [chosen, rng.choice(turns)]:
            q = R.play(p, t)
            tip = R.begin_turn(p)
            now = tip.cells()
            for step in R.steps(p, t):
                assert step in list(tip.next_steps()), (R.format_turn(t), str(step))
                assert tip.complete_turns() == ()
                before, tip = now, tip.apply(step)
                now = tip.cells()
                changed = {k for k in before if before[k] != now[k]}
                if step.kind == "lift":
                    assert changed == {step.where} and now[step.where] == "."
                elif step.kind == "drop":
                    assert changed == {step.where, step.to} and now[step.to] == step.piece
                elif step.kind == "place":
                    assert changed == {step.where} and now[step.where] == step.piece
                else:
                    assert step.kind == "return" and changed == set()
            assert t in tip.complete_turns()
            assert now == R.cells(q)
            assert list(tip.next_steps()) == []


@run(60)
@given(SEEDS)
def test_apply_takes_each_offered_step_and_refuses_the_others(seed):
    """Searches call ``follow``, which trusts its step to be one the state offered; ``apply``
    checks first, so at every state of the turns walked it takes each offered step (giving
    what ``follow`` gives) and refuses each step offered at other states but not here."""
    plies, _ = playout(seed)
    rng = random.Random(seed)
    for p, _ in rng.sample(plies, min(len(plies), 3)):
        offered_anywhere = set()
        states = [R.begin_turn(p)]
        seen = {states[0].key()}
        while states:
            tip = states.pop()
            steps = list(tip.next_steps())
            offered_anywhere.update(steps)
            for step in steps:
                nxt = tip.follow(step)
                assert nxt == tip.apply(step) and nxt.cells() == tip.apply(step).cells()
                if nxt.key() not in seen:
                    seen.add(nxt.key())
                    states.append(nxt)
            for step in offered_anywhere - set(steps):
                with pytest.raises(IllegalTurn):
                    tip.apply(step)


# -- fuzzing: nothing but RulesError may come out of the readers -------------------------------

def _readers_survive(text) -> None:
    for call in (lambda: R.parse_position(text), lambda: R.parse_turn(R.start(), text),
                 lambda: read_shibumi(text), lambda: read_shibumi(text, mover="W")):
        try:
            call()
        except RulesError:
            pass


@run(400)
@given(st.text(max_size=60))
def test_fuzz_text(text):
    _readers_survive(text)


@run(300)
@given(st.binary(max_size=80))
def test_fuzz_bytes(data):
    _readers_survive(data)
    _readers_survive(data.decode("latin-1"))


_VALID = [START, "WBWB,BWBW,WBWB,BRBW/...,...,W../..,../. B", "1b1:W2a1", "1a1:R2a1,B2b2",
          "1b2[3a1]:W2a2", write_shibumi(R.start()),
          write_shibumi(R.parse_position("WBWB,BWBW,WBWB,BWBW/RRR,RRR,WRR/RR,RR/R B"))]


@run(600)
@given(st.sampled_from(_VALID), st.lists(st.tuples(st.integers(0, 400), st.sampled_from(
    list("WBR.,/: []<>\n0123456789abcdefgABCDEFG") + ["", "  ", "\n\n"])), min_size=1, max_size=4),
    st.booleans())
def test_fuzz_mutations(base, edits, insert):
    text = base
    for at, piece in edits:
        at %= len(text) + 1
        text = text[:at] + piece + text[at + (0 if insert else 1):]
    _readers_survive(text)
