"""Pylos properties over random play: invariants of thousands of playouts, text round trips,
turn inference, and agreement with the independent reference implementation."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from host.games.pylos import PylosPosition, PylosRules
from host.games.pyramid import COUNT, SUPPORTS, TOP

try:
    from tests import reference_pylos as ref
except ImportError:  # pytest's rootdir-less import mode puts tests/ itself on the path
    import reference_pylos as ref  # type: ignore[no-redef]

RULES = [PylosRules(v, reserve_rule=r) for v in ("standard", "children", "mature") for r in ("empty", "moves")]
#: no repetition rule exists (placing a ball and taking it back passes the turn), so a
#: game could go on for ever; seeded random games end well below this (mature ones, with
#: take-backs for every line, run longest: about 130 turns on average, rarely 600)
MAX_TURNS = 2000


def check_invariants(rules: PylosRules, pos: PylosPosition) -> None:
    occ = pos.light | pos.dark
    assert pos.light & pos.dark == 0
    assert pos.light.bit_count() + pos.light_reserve == 15
    assert pos.dark.bit_count() + pos.dark_reserve == 15
    assert 0 <= pos.light_reserve <= 15 and 0 <= pos.dark_reserve <= 15
    for i in range(COUNT):
        if occ >> i & 1:
            assert SUPPORTS[i] & occ == SUPPORTS[i], f"unsupported ball in {rules.format_position(pos)}"


def playout(rules: PylosRules, rng: random.Random, every_position=None) -> tuple[PylosPosition, int]:
    pos = rules.start()
    turns = 0
    while rules.outcome(pos) is None:
        if every_position:
            every_position(pos)
        turn = rules.random_turn(pos, rng)
        pos = rules.play(pos, turn)
        turns += 1
        assert turns <= MAX_TURNS
    return pos, turns


@settings(max_examples=2100, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULES))
def test_random_playouts_keep_the_invariants(seed, rules):
    rng = random.Random(seed)
    end, turns = playout(rules, rng, lambda p: check_invariants(rules, p))
    check_invariants(rules, end)
    outcome = rules.outcome(end)
    assert outcome.winner in rules.players and outcome.result == ("1-0" if outcome.winner == "light" else "0-1")
    assert list(rules.legal_turns(end)) == []
    if end.occupied >> TOP & 1:
        assert outcome.winner == rules.players[1 - end.to_move]
    else:
        assert end.reserve == 0
    assert turns >= 29  # 29 balls are placed before the top; 15 before a reserve is empty


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULES))
def test_text_round_trips_for_every_position_and_turn(seed, rules):
    def check(pos):
        text = rules.format_position(pos)
        assert rules.parse_position(text) == pos
        for turn in rules.legal_turns(pos):
            written = rules.format_turn(turn)
            assert rules.parse_turn(pos, written) == turn
            assert not (turn.source is not None and turn.target == TOP)  # a raise never reaches the top
            if len(turn.removals) == 2 and not SUPPORTS[turn.removals[0]] >> turn.removals[1] & 1:
                # the other order of two free balls is accepted too, with the same result
                swapped = rules.format_turn(type(turn)(turn.target, turn.source, turn.removals[::-1]))
                assert rules.play(pos, rules.parse_turn(pos, swapped)) == rules.play(pos, turn)

    playout(rules, random.Random(seed), check)


def mid_game(rules: PylosRules, seed: int) -> PylosPosition:
    rng = random.Random(seed)
    pos = rules.start()
    for _ in range(rng.randrange(0, 70)):
        turns = rules.turn_list(pos)
        if not turns:
            break
        pos = rules.play(pos, rng.choice(turns))
    return pos


@settings(max_examples=250, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULES), st.integers(0, 10**6))
def test_inference_finds_the_turn_played(seed, rules, pick):
    before = mid_game(rules, seed)
    turns = rules.turn_list(before)
    if not turns:
        inference = rules.infer(before, before)
        assert inference.status == "none" and inference.reason == "no legal turn: the game is over"
        return
    turn = turns[pick % len(turns)]
    after = rules.play(before, turn)
    inference = rules.infer(before, after)
    assert inference.status == "found"
    assert inference.turn == turn or rules.play(before, inference.turn) == after
    # nothing changed is no turn: the board already matches, only the mover differs
    standstill = rules.infer(before, before)
    if standstill.status == "found":  # a ball placed and taken back leaves the board as it was
        assert standstill.turn.removals and standstill.turn.target in standstill.turn.removals
    else:
        assert standstill.status == "none"


def test_inference_names_the_cells_no_turn_explains():
    rules = PylosRules()
    before = rules.start()
    two = PylosPosition(0b11, 0, 1, 13, 15)  # two light balls at once
    inference = rules.infer(before, two)
    assert inference.status == "none" and inference.explored == 16
    assert len(inference.unexplained) == 1 and inference.unexplained[0] in ("1a1", "1b1")
    assert inference.reason.startswith("no legal turn explains ")
    same_board = PylosPosition(1, 0, 0, 14, 15)  # right board, wrong side to move
    inference = rules.infer(before, same_board)
    assert inference.status == "none" and inference.unexplained == ()
    assert inference.reason == "the board matches but not the side to move or reserves"


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULES))
def test_engine_and_reference_agree_on_random_positions(seed, rules):
    pos = mid_game(rules, seed)
    state = ref.parse(rules.format_position(pos))
    mine = sorted(rules.format_turn(t) for t in rules.legal_turns(pos))
    assert mine == sorted(ref.turns(state, rules.variant, rules.reserve_rule))
    assert len(set(mine)) == len(mine)
    outcome = rules.outcome(pos)
    winner = ref.winner(state, rules.reserve_rule)
    assert (outcome.winner[0].upper() if outcome else None) == winner
    for text in mine[:20]:
        assert rules.format_position(rules.play(pos, rules.parse_turn(pos, text))) == _ref_format(ref.play(state, text))


def _ref_format(state) -> str:
    """The reference state as a position string (written here from the reference's dict)."""
    levels = []
    for lv in (1, 2, 3, 4):
        n = ref.SIZES[lv]
        levels.append(",".join("".join(state["board"].get((lv, c, r), ".") for c in range(1, n + 1))
                               for r in range(n, 0, -1)))
    return f"{'/'.join(levels)} {state['mover']} {state['reserve']['L']} {state['reserve']['D']}"


def check_uniform(rules: PylosRules, pos: PylosPosition, seed: int) -> None:
    turns = rules.turn_list(pos)
    if not turns:
        return
    rng = random.Random(seed)
    draws = [rules.random_turn(pos, rng) for _ in range(200 * len(turns))]
    counts = {t: 0 for t in turns}
    for t in draws:
        counts[t] += 1  # a KeyError would be a turn outside legal_turns
    assert min(counts.values()) > 100 and max(counts.values()) < 300


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULES))
def test_random_turn_draws_uniformly_from_the_legal_turns(seed, rules):
    check_uniform(rules, mid_game(rules, seed), seed)


def test_random_turn_draws_raises_and_second_take_backs_freed_by_the_first():
    rules = PylosRules()
    pos = rules.parse_position("D.D.,LDDD,LLLD,..LD/...,.DD,.../..,../. D 10 6")
    turns = rules.turn_list(pos)
    assert any(t.source is not None for t in turns)
    assert any(len(t.removals) == 2 and SUPPORTS[t.removals[0]] >> t.removals[1] & 1 for t in turns)
    check_uniform(rules, pos, 7)
