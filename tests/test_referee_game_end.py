"""A Pylos game whose last turn could have gone on, then the board cleared for the next game
(found by the daemon crash test: tests/test_daemon.py, Pylos seed 21, game 18)."""

from __future__ import annotations

from host.games import rules_for
from host.referee import Referee
from host.sim import SimConfig, Simulator


def test_clearing_the_board_closes_a_game_ending_turn_that_could_have_gone_on():
    """The last turn places a ball and takes one back (2b2x2b3), which leaves Dark without a
    ball: the game is over, but the turn could have taken a second ball back, so the referee
    waits for what comes next. Next come the hands clearing the board and the empty start
    position. docs/referee.md: "Clearing the board after a game whose last turn was still
    open (a possible second take-back) closes that turn first", then the start position
    starts the next game. The empty board is also the game's first position: it must not be
    taken for a takeback of all 32 turns (which then carried the next game on in this one)."""
    played = list(Simulator(SimConfig(seed=21, game="pylos", games=19, hands=0.1, illegal=0.1,
                                      takeback=0.1)).games())
    game, following = played[17], played[18]
    assert game.truth.turns[-1] == "2b2x2b3" and game.truth.result == "1-0"
    referee = Referee(rules_for("pylos"))
    events = [e for obs in game.observations + following.observations[:60] for e in referee.observe(obs)]
    turns = len(game.truth.turns)
    closing = [i for i, e in enumerate(events) if e.type == "move" and e.data["turn"] == turns]
    before = max(i for i, e in enumerate(events) if e.type == "move" and e.data["turn"] == turns - 1)
    then = [(e.type, dict(e.data).get("to_turn")) for e in events[before + 1:before + 4]]
    assert closing, f"turn {turns} never recorded; after turn {turns - 1}: {then}"
    last = closing[-1]
    assert events[last].data["position"] == game.truth.positions[-1]
    assert [e.type for e in events[last + 1:last + 3]] == ["game-over", "new-game"], \
        [(e.type, dict(e.data).get("to_turn")) for e in events[last + 1:last + 3]]
    assert events[last + 1].data["result"] == "1-0"
    assert not [e for e in events[last:] if e.type == "takeback"]
