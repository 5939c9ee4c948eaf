"""The referee's state object carries what a display draws: the move list with times, the
last move's cells, the flag, the question, Sparklies' chain so far and the reason a game
ended (docs/mqtt.md, State)."""

import random
from datetime import datetime, timedelta, timezone

from host.games import rules_for
from host.observation import Observation
from host.referee import Referee
from host.referee_match import CellDiff

from test_referee import Board, on_reeds


class Clock:
    def __init__(self):
        self.t = datetime(2026, 11, 22, 9, 0, 0, tzinfo=timezone.utc)

    def __call__(self):
        self.t += timedelta(seconds=7)
        return self.t


def pylos(**kwargs):
    rules = rules_for("pylos")
    referee = Referee(rules, now=Clock(), **kwargs)
    board = Board(referee, dict)
    referee.begin(0.0)
    board.show(rules.cells(rules.start()))
    return rules, referee, board


def test_moves_carry_player_time_and_the_cells_they_changed():
    rules, referee, board = pylos()
    position = rules.start()
    for text in ("1a1", "1b1", "1c3"):
        position = board.play(rules, position, rules.parse_turn(position, text))
    state = referee.state()
    assert state["moves"] == [{"move": "1a1", "player": "light", "ts": "2026-11-22T09:00:07.000Z"},
                              {"move": "1b1", "player": "dark", "ts": "2026-11-22T09:00:14.000Z"},
                              {"move": "1c3", "player": "light", "ts": "2026-11-22T09:00:21.000Z"}]
    assert state["changed"] == ["1c3"]
    assert state["reserves"] == {"light": 13, "dark": 14}
    referee.command("takeback", 9.0)
    state = referee.state()
    assert [m["move"] for m in state["moves"]] == ["1a1", "1b1"] and state["changed"] == ["1b1"]


def test_the_flag_says_what_is_wrong_and_where_until_the_board_is_put_back():
    rules, referee, board = pylos()
    cells = rules.cells(rules.start())
    board.show({**cells, "1b2": "D"})  # dark on light's turn
    state = referee.state()
    assert state["status"] == "flagged"
    assert state["flag"]["cells"] == [{"cell": "1b2", "expected": ".", "seen": "D"}]
    assert "1b2" in state["flag"]["reason"] and "Light" in state["flag"]["reason"]
    board.show(cells)
    assert referee.state()["flag"] is None and referee.state()["status"] == "playing"


def test_the_question_lists_the_candidates_while_it_stands():
    rules, before, referee, board, cells = on_reeds("L...,....,LDLD,DLLD/...,...,.../..,../. L 10 11")
    board.show({**cells, "1a4": "."})
    referee.command("end-turn", 20.0)
    question = referee.state()["question"]
    assert question["question"].startswith("Several turns fit")
    assert sorted(question["candidates"]) == ["1a4-2a1", "1a4-2b1", "1a4-2c1"]
    referee.command("confirm", 21.0, {"move": "1a4-2b1"})
    assert referee.state()["question"] is None and referee.state()["changed"] == ["1a4", "2b1"]


def test_a_finished_game_says_why():
    rules, rng = rules_for("pylos"), random.Random(3)
    position = rules.start()
    while True:  # the position one turn before the end of a random game
        turn = rules.random_turn(position, rng)
        if rules.outcome(rules.play(position, turn)) is not None:
            break
        position = rules.play(position, turn)
    referee = Referee(rules, start=position)
    referee.begin(0.0)
    board = Board(referee, dict)
    board.show(rules.cells(position))
    board.play(rules, position, turn)
    state = referee.state()
    assert state["status"] == "finished" and state["to_move"] is None
    assert state["reason"] and state["result"] in ("1-0", "0-1")


def test_sparklies_state_shows_the_chain_so_far_and_the_start_tag():
    rules = rules_for("sparklies", width=3, height=3)
    start = rules.parse_position("R.G.B./G.G.B./B.R.G. b")
    referee = Referee(rules, start=start)
    referee.begin(0.0)
    board = Board(referee, dict)
    cells = rules.cells(start)
    board.show(cells)
    assert referee.state()["active"] == [] and referee.state()["tags"]["Start"] == rules.format_position(start)
    board.show({**cells, "a1": "Rb"})  # black takes a1: the turn is under way
    assert referee.state()["active"] == ["a1"]


def test_resume_keeps_the_recorded_times_and_the_open_flag():
    rules = rules_for("pylos")
    referee = Referee(rules)
    start = rules.start()
    turns = [rules.parse_turn(start, "1a1")]
    referee.resume(start, turns, [CellDiff("1b2", ".", "L")], stamps=["2026-11-22T08:00:00.000Z"],
                   flag_reason="1b2: a light ball cannot be placed, it is Dark's turn")
    state = referee.state()
    assert state["moves"] == [{"move": "1a1", "player": "light", "ts": "2026-11-22T08:00:00.000Z"}]
    assert state["flag"] == {"reason": "1b2: a light ball cannot be placed, it is Dark's turn",
                             "cells": [{"cell": "1b2", "expected": ".", "seen": "L"}]}
    referee.resume(start, turns)
    assert referee.state()["moves"][0]["ts"] is None and referee.state()["flag"] is None
    assert referee.observe(Observation(1.0, rules.cells(rules.play(start, turns[0])))) == []


def test_a_takeback_of_more_than_was_played_says_so():
    import pytest
    from host.referee import CommandError
    rules, referee, board = pylos()
    with pytest.raises(CommandError, match="^nothing to take back$"):
        referee.command("takeback", 1.0)
    board.play(rules, rules.start(), rules.parse_turn(rules.start(), "1a1"))
    with pytest.raises(CommandError, match="only 1 turn played, not more"):
        referee.command("takeback", 2.0, {"to_turn": -1})
