"""Records against the rules: random games of every game survive the text and JSON formats
turn for turn, and replay finds the first broken turn."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.games import rules_for
from host.record import (Record, RecordedTurn, RecordError, new_record, read_json, read_text, replay,
                         write_json, write_text)

GAMES = [
    ("pylos", "standard", {}),
    ("pylos", "mature", {}),
    ("pylos", "children", {"reserve_rule": "moves"}),
    ("sparks", "standard", {}),
    ("sparklies", "subtle", {"width": 4, "height": 4}),
    ("sparklies", "speed", {"width": 5, "height": 3, "wrap": True}),
    ("sparklies", "subtle", {"width": 4, "height": 4, "dead": ["b2"]}),
]


def play_random(rules, rng, max_turns=400):
    position = rules.start(rng) if rules.game == "sparklies" else rules.start()
    start, positions, turns = position, [position], []
    while rules.outcome(position) is None and len(turns) < max_turns:
        turn = rules.random_turn(position, rng)
        turns.append(turn)
        position = rules.play(position, turn)
        positions.append(position)
    return start, turns, positions


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 2**32 - 1))
def test_random_games_round_trip_through_both_formats(case, seed):
    game, variant, options = case
    rules = rules_for(game, variant, **options)
    start, turns, positions = play_random(rules, random.Random(seed))
    over = rules.outcome(positions[-1])
    record = new_record(rules, start=start, Result=over.result if over else "*", Date="2026.11.21")
    record = Record(record.tags, tuple(RecordedTurn(rules.format_turn(t), f"2026-11-21T18:{k // 60 % 60:02}:{k % 60:02}Z")
                                       for k, t in enumerate(turns)))
    for text_form in (read_text(write_text(record)), read_json(write_json(record))):
        assert text_form == record
        result = replay(text_form)
        assert result.ok, result.error
        assert result.positions == tuple(positions)
        assert result.rules.tags() == rules.tags()
        assert result.result == (over.result if over else "*")


def test_sparklies_tags_carry_every_board_option():
    rules = rules_for("sparklies", "speed", width=6, height=4, dead=["c2", "a1"], wrap=True)
    start, turns, positions = play_random(rules, random.Random(5), max_turns=3)
    record = new_record(rules, start=start)
    assert record.tags["Variant"] == "speed" and record.tags["Size"] == "6x4"
    assert record.tags["Dead"] == "a1 c2" and record.tags["Wrap"] == "true"
    assert "Start" in record.tags
    again = replay(read_text(write_text(record)))
    assert again.rules.tags() == rules.tags() and again.final == start


def test_replay_reports_first_illegal_turn_with_reason():
    record = read_text('[Game "sparks"]\n\n1. 1b1:W2a1 1a1:W2b1 *\n')
    result = replay(record)
    assert not result.ok
    assert result.error.turn == 2 and result.error.move == "1a1:W2b1"
    assert result.error.reason
    assert len(result.positions) == 2


@pytest.mark.parametrize("tags, words", [
    ({"Game": "pylos", "Start": "nonsense L 15 15"}, "tags:"),
    ({"Game": "sparklies", "Size": "9by9"}, "Size"),
    ({"Variant": "standard"}, "Game"),
])
def test_bad_tags_are_record_errors(tags, words):
    with pytest.raises(RecordError, match=words):
        replay(Record({**tags, "Result": "*"}))
