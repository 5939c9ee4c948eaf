"""The Referee: stable boards become moves; flags, restores, takebacks, hands, flicker,
occupancy-only confirmation, commands and new games."""

import json
import random

import pytest

from host.cli import main
from host.games import pyramid, rules_for
from host.observation import Observation, Press, write_log
from host.record import read_text, replay
from host.referee import CommandError, Referee

BASE = frozenset(n for n in pyramid.NAMES if n.startswith("1"))


def camera(rules, cells):
    """What a camera above the board sees: balls under other balls are unknown."""
    if rules.game == "sparklies":
        return dict(cells)
    out = dict(cells)
    for name, value in cells.items():
        i = pyramid.BY_NAME[name]
        if value != "." and any(cells[pyramid.NAMES[j]] != "." for j in pyramid.bits(pyramid.ABOVE[i])):
            out[name] = "?"
    return out


def reeds(cells):
    """What reed switches under the base hollows see."""
    return {n: ("#" if v != "." else ".") for n, v in cells.items() if n in BASE}


class Board:
    """Feeds a referee frames at 10 per second, several frames per board state."""

    def __init__(self, referee, view):
        self.referee, self.view, self.t, self.events = referee, view, 0.0, []

    def show(self, cells, frames=4):
        out = []
        for _ in range(frames):
            self.t += 0.1
            out += self.referee.observe(Observation(self.t, self.view(cells)))
        self.events += out
        return out

    def play(self, rules, position, turn):
        state = rules.begin_turn(position)
        for step in rules.steps(position, turn):
            state = state.apply(step)
            self.show(state.cells())
        return rules.play(position, turn)

    def types(self):
        return [e.type for e in self.events]


def pylos_at_start():
    """A Pylos referee watching an empty board through a camera that sees every cell."""
    rules = rules_for("pylos")
    referee = Referee(rules)
    board = Board(referee, lambda cells: dict(cells))
    referee.begin(0.0)
    start = rules.cells(rules.start())
    board.show(start)
    return rules, referee, board, start


def play_game(rules, seed, view=None):
    rng = random.Random(seed)
    position = rules.start(rng) if rules.game == "sparklies" else rules.start()
    referee = Referee(rules, start=position)
    board = Board(referee, view or (lambda cells: camera(rules, cells)))
    board.events += referee.begin(0.0)
    board.show(rules.cells(position))
    truth = []
    while rules.outcome(position) is None:
        turn = rules.random_turn(position, rng)
        position = board.play(rules, position, turn)
        truth.append(rules.format_position(position))
    board.events += referee.flush(board.t)
    return board, truth


@pytest.mark.parametrize("game, options, games", [
    ("pylos", {}, 40), ("pylos", {"variant": "mature"}, 10), ("sparks", {}, 40),
    ("sparklies", {"width": 4, "height": 4}, 30), ("sparklies", {"variant": "speed", "width": 5, "height": 4}, 15),
])
def test_camera_games_are_recorded_turn_for_turn(game, options, games):
    rules = rules_for(game, **options)
    for seed in range(games):
        board, truth = play_game(rules, seed)
        moves = [e.data["position"] for e in board.events if e.type == "move"]
        assert moves == truth, f"seed {seed}"
        assert board.types()[0] == "new-game" and board.types()[-1] == "game-over"
        assert not {"illegal", "confirm-needed", "takeback"} & set(board.types()), f"seed {seed}"


def test_illegal_placement_is_flagged_then_restored():
    rules, referee, board, start = pylos_at_start()
    wrong = {**start, "1b2": "D"}
    events = board.show(wrong)
    assert [e.type for e in events] == ["illegal"]
    illegal = events[0].data
    assert illegal["cells"] == [{"cell": "1b2", "expected": ".", "seen": "D"}]
    assert illegal["reason"] == "1b2: a dark ball cannot be placed, it is Light's turn"
    assert referee.state()["status"] == "flagged"
    # another wrong board while flagged: a new flag, never a move
    assert [e.type for e in board.show({**start, "1b2": "D", "1c1": "D"})] == ["illegal"]
    assert [e.type for e in board.show(start)] == ["restored"]
    events = board.show({**start, "1c3": "L"})
    assert [e.type for e in events] == ["move"] and events[0].data["move"] == "1c3"


def test_restored_by_a_legal_continuation_accepts_the_move():
    rules, referee, board, start = pylos_at_start()
    board.show({**start, "1b2": "D"})
    events = board.show({**start, "1a1": "L"})
    assert [e.type for e in events] == ["restored", "move"]


def test_flicker_and_hands_never_make_moves_or_flags():
    rules, referee, board, start = pylos_at_start()
    # one-frame flicker of a wrong colour, many times
    for _ in range(10):
        board.show({**start, "1d4": "D"}, frames=1)
        board.show(start, frames=1)
    # a hand over the corner for a long time while a ball is put under it
    hand = {n: "?" for n in ("1a1", "1b1", "1a2", "1b2", "2a1")}
    board.show({**start, **hand}, frames=30)
    board.show({**start, **hand, "1c1": "D"}, frames=30)  # wrong colour, but a hand is over the board
    assert board.events == []
    events = board.show({**start, "1a1": "L"})
    assert [e.type for e in events] == ["move"] and events[0].data["move"] == "1a1"


def test_stability_needs_frames_and_time():
    rules = rules_for("pylos")
    referee = Referee(rules)
    referee.begin(0.0)
    start = rules.cells(rules.start())
    placed = {**start, "1a1": "L"}
    # three frames within 0.1 s are not enough; a fourth after 0.25 s is
    assert referee.observe(Observation(1.00, placed)) == []
    assert referee.observe(Observation(1.05, placed)) == []
    assert referee.observe(Observation(1.10, placed)) == []
    assert [e.type for e in referee.observe(Observation(1.30, placed))] == ["move"]
    assert referee.observe(Observation(1.40, placed)) == []  # once per stable board


def test_board_back_to_an_earlier_position_is_a_takeback():
    rules = rules_for("sparks")
    referee = Referee(rules)
    board = Board(referee, lambda cells: camera(rules, cells))
    referee.begin(0.0)
    p0 = rules.start()
    board.show(rules.cells(p0))
    t1 = next(iter(rules.legal_turns(p0)))
    p1 = board.play(rules, p0, t1)
    t2 = next(iter(rules.legal_turns(p1)))
    board.play(rules, p1, t2)
    events = board.show(rules.cells(p1))
    assert [e.type for e in events][-1] == "takeback"
    assert events[-1].data["to_turn"] == 1 and events[-1].data["undone"] == [rules.format_turn(t2)]
    assert referee.state()["turn"] == 1 and referee.position == p1


def test_takeback_command_and_errors():
    rules = rules_for("pylos")
    referee = Referee(rules)
    referee.begin(0.0)
    with pytest.raises(CommandError, match="^nothing to take back$"):
        referee.command("takeback", 1.0)
    board = Board(referee, lambda cells: dict(cells))
    start = rules.cells(rules.start())
    board.show({**start, "1a1": "L"})
    events = referee.command("takeback", 5.0)
    assert events[0].type == "takeback" and events[0].data["undone"] == ["1a1"]
    with pytest.raises(CommandError, match="unknown command"):
        referee.command("teleport", 6.0)
    with pytest.raises(CommandError, match="players"):
        referee.command("set-players", 6.0, {"players": {"red": "Ann"}})
    referee.command("set-players", 6.0, {"players": {"light": "Ann"}})
    assert referee.state()["players"] == {"light": "Ann"}


def test_optional_second_takeback_is_closed_by_the_next_players_step_or_end_turn():
    rules = rules_for("pylos")
    before = rules.parse_position("....,....,L...,LLDD/...,...,.../..,../. L 12 13")
    referee = Referee(rules, start=before)
    board = Board(referee, lambda cells: dict(cells))
    referee.begin(0.0)
    cells = rules.cells(before)
    board.show(cells)
    square = {**cells, "1b2": "L"}
    assert board.show(square) == []  # a take-back is owed
    one_back = {**square, "1a1": "."}
    assert board.show(one_back) == []  # complete, but a second take-back may follow
    events = referee.command("end-turn", 9.0)
    assert [e.type for e in events] == ["move"] and events[0].data["move"] == "1b2x1a1"
    # the same, closed by Dark's first step instead
    referee2 = Referee(rules, start=before)
    board2 = Board(referee2, lambda cells: dict(cells))
    referee2.begin(0.0)
    board2.show(cells)
    board2.show(square)
    board2.show(one_back)
    events = board2.show({**one_back, "1d4": "D"})
    assert [e.data["move"] for e in events if e.type == "move"] == ["1b2x1a1", "1d4"]


def on_reeds(position: str):
    """A Pylos referee on reed switches from ``position``, the board shown to it."""
    rules = rules_for("pylos")
    before = rules.parse_position(position)
    referee = Referee(rules, start=before, coverage=BASE)
    board = Board(referee, reeds)
    referee.begin(0.0)
    cells = rules.cells(before)
    board.show(cells)
    return rules, before, referee, board, cells


def test_occupancy_only_raise_asks_for_confirmation_and_takes_the_answer():
    rules, before, referee, board, cells = on_reeds("L...,....,LDLD,DLLD/...,...,.../..,../. L 10 11")
    # Light raises 1a4 onto 2b1: the reeds see only 1a4 emptied (2a1, 2b1, 2c1 all fit)
    lifted = {**cells, "1a4": "."}
    assert board.show(lifted) == []
    raised = {**lifted, "2b1": "L"}
    assert board.show(raised) == []  # invisible on the reeds: the turn is still open
    events = referee.command("end-turn", 20.0)
    assert [e.type for e in events] == ["confirm-needed"]
    assert sorted(events[0].data["candidates"]) == ["1a4-2a1", "1a4-2b1", "1a4-2c1"]
    assert referee.state()["status"] == "awaiting-confirmation"
    with pytest.raises(CommandError, match="not one of"):
        referee.command("confirm", 21.0, {"move": "1c2-2a1"})
    events = referee.command("confirm", 21.0, {"move": "1a4-2b1"})
    assert [e.type for e in events] == ["move"] and events[0].data["move"] == "1a4-2b1"
    assert referee.position == rules.play(before, rules.parse_turn(before, "1a4-2b1"))


def test_occupancy_only_placements_on_the_base_need_no_confirmation():
    rules = rules_for("pylos")
    referee = Referee(rules, coverage=BASE)
    board = Board(referee, reeds)
    referee.begin(0.0)
    position = rules.start()
    board.show(rules.cells(position))
    for name in ("1a1", "1d4", "1b2", "1c3"):
        position = board.play(rules, position, rules.parse_turn(position, name))
    assert [e.data["move"] for e in board.events if e.type == "move"] == ["1a1", "1d4", "1b2", "1c3"]


def test_turn_buttons_close_invisible_turns_and_are_ignored_out_of_turn():
    """Reed switches cannot see a ball put on level 2: the mover's turn button ends the turn
    and the referee asks which placement it was. The other player's button, or the mover's
    after the board already showed the turn, changes nothing."""
    rules, before, referee, board, cells = on_reeds("LDLD,DLDL,LDLD,DLDL/...,...,.../..,../. L 7 7")
    board.show({**cells, "2b2": "L"})  # invisible
    assert referee.observe(Press(5.0, "end-turn", "dark")) == []  # not Dark's turn
    events = referee.observe(Press(5.1, "end-turn", "light"))
    assert [e.type for e in events] == ["confirm-needed"]
    assert len(events[0].data["candidates"]) == 9  # any of the nine places on level 2
    assert referee.observe(Press(5.2, "end-turn", "light")) == []  # the question stands
    events = referee.command("confirm", 6.0, {"move": "2b2"})
    assert [e.data["move"] for e in events] == ["2b2"]
    assert referee.observe(Press(6.1, "end-turn", "light")) == []  # already closed


def test_confirm_button_takes_the_only_candidate_and_a_camera_turn_needs_no_button():
    rules, referee, board, cells = pylos_at_start()
    events = board.show({**cells, "1a1": "L"})
    assert [e.data["move"] for e in events] == ["1a1"]
    assert referee.observe(Press(1.0, "end-turn", "light")) == []  # late: the turn was seen
    assert referee.observe(Press(1.1, "end-turn")) == []  # nothing has happened in Dark's turn
    assert referee.observe(Press(1.2, "confirm")) == []  # nothing to confirm


def test_a_question_the_board_no_longer_fits_is_withdrawn():
    rules, before, referee, board, cells = on_reeds("L...,....,LDLD,DLLD/...,...,.../..,../. L 10 11")
    board.show({**cells, "1a4": "."})
    assert [e.type for e in referee.observe(Press(5.0, "end-turn", "light"))] == ["confirm-needed"]
    # the ball goes back to 1a4 and Light places on 1b3 instead; Dark pressed nothing, so
    # this is not Dark having played on 1a4
    events = board.show({**cells, "1b3": "L"})
    assert [e.type for e in events] == ["confirm-withdrawn", "move"]
    assert events[0].data["reason"] and events[1].data["move"] == "1b3"
    assert referee.state()["status"] == "playing"


def test_a_question_left_open_stands_again_after_a_resume():
    """The daemon restarted while the players were asked which turn it was
    (docs/recording.md): the resumed referee asks the same and takes the answer. A question
    without its candidates is not taken up: the board is worked out afresh."""
    rules, before, referee, board, cells = on_reeds("L...,....,LDLD,DLLD/...,...,.../..,../. L 10 11")
    lifted = {**cells, "1a4": "."}
    board.show(lifted)
    board.show({**lifted, "2b1": "L"})
    asked = referee.command("end-turn", 20.0)[0].data
    again = Referee(rules, start=before, coverage=BASE)
    again.resume(before, [], question=asked["question"], candidates=list(asked["candidates"]))
    assert again.state()["status"] == "awaiting-confirmation"
    with pytest.raises(CommandError, match="not one of"):
        again.command("confirm", 21.0, {"move": "1c2-2a1"})
    events = again.command("confirm", 21.0, {"move": "1a4-2b1"})
    assert [(e.type, e.data["move"]) for e in events] == [("move", "1a4-2b1")]
    bare = Referee(rules, start=before, coverage=BASE)
    bare.resume(before, [], question=asked["question"], candidates=[])
    assert bare.state()["status"] == "playing"


def test_new_game_after_the_end():
    rules = rules_for("sparks")
    board, truth = play_game(rules, 3)
    referee = board.referee
    assert referee.state()["status"] == "finished"
    events = board.show(rules.cells(rules.start()))
    assert [e.type for e in events] == ["new-game"]
    assert referee.state()["status"] == "playing" and referee.state()["turn"] == 0


def test_sparklies_markers_taken_away_are_flagged_and_restored():
    rules = rules_for("sparklies", width=3, height=3)
    start = rules.parse_position("RbG.B./G.GwB./BbR.G. b")
    referee = Referee(rules, start=start)
    board = Board(referee, dict)
    referee.begin(0.0)
    cells = rules.cells(start)
    board.show(cells)
    events = board.show({**cells, "a3": "R."})
    assert [e.type for e in events] == ["illegal"] and events[0].data["cells"][0]["cell"] == "a3"
    assert [e.type for e in board.show(cells)] == ["restored"]


def test_sparklies_waits_for_an_uncontrolled_board_to_start():
    rules = rules_for("sparklies", width=3, height=3)
    referee = Referee(rules)
    assert referee.begin(0.0) == []
    board = Board(referee, dict)
    start = rules.parse_position("R.G.B./G.G.B./B.R.G. b")
    events = board.show(rules.cells(start))
    assert [e.type for e in events] == ["new-game"] and events[0].data["tags"]["Start"] == rules.format_position(start)


def test_state_object():
    rules = rules_for("pylos")
    referee = Referee(rules, players={"light": "Ann", "dark": "Bob"})
    referee.begin(0.0)
    state = referee.state()
    start = rules.format_position(rules.start())
    assert state == {"game": "pylos", "variant": "standard", "position": start,
                     "to_move": "light", "turn": 0, "status": "playing", "last_move": None, "result": "*",
                     "players": {"light": "Ann", "dark": "Bob"}, "start": start,
                     "tags": {"Game": "pylos", "Variant": "standard"}, "moves": [], "changed": [],
                     "reserves": {"light": 15, "dark": 15}, "flag": None, "question": None, "active": [],
                     "reason": None}
    assert json.loads(json.dumps(state)) == state


def test_referee_command_line(tmp_path, capsys):
    rules = rules_for("sparks")
    rng = random.Random(8)
    position = rules.start()
    observations, t = [], 0.0
    for _ in range(4):
        observations.append(Observation(t, rules.cells(position)))
        t += 0.1
    while rules.outcome(position) is None:
        turn = rules.random_turn(position, rng)
        state = rules.begin_turn(position)
        for step in rules.steps(position, turn):
            state = state.apply(step)
            for _ in range(4):
                observations.append(Observation(t, camera(rules, state.cells())))
                t += 0.1
        position = rules.play(position, turn)
    log = tmp_path / "obs.jsonl"
    write_log(log, observations)
    with open(log, "a") as f:
        f.write("this is not json\n")
        f.write('{"t": 999, "cells": {"9z9": "W"}}\n')
    events_path, record_path = tmp_path / "events.jsonl", tmp_path / "game.pgn"
    code = main(["referee", "sparks", "--observations", str(log), "--events", str(events_path),
                 "--record", str(record_path)])
    err = capsys.readouterr().err
    assert code == 0
    assert "not JSON" in err and "9z9" in err  # bad lines reported, with their line numbers
    events = [json.loads(line) for line in events_path.read_text().splitlines()]
    assert events[0]["type"] == "new-game" and events[-1]["type"] == "game-over"
    record = read_text(record_path.read_text())
    assert all(turn.ts for turn in record.turns)
    result = replay(record)
    assert result.ok and result.final == position and result.result == rules.outcome(position).result


def test_referee_command_line_on_reed_switches_with_turn_buttons(tmp_path, capsys):
    """An occupancy log with turn-button presses, refereed offline: every turn the reeds
    cannot tell becomes a question in the events; the rest are moves."""
    from host.sim import SimConfig, simulate_game
    rules = rules_for("pylos")
    sim = simulate_game(rules, random.Random(3), SimConfig(seed=3, game="pylos", occupancy=True))
    assert sim.presses and len(sim.presses) == len(sim.truth.turns)
    log = tmp_path / "reeds.jsonl"
    write_log(log, sim.stream())
    events_path = tmp_path / "events.jsonl"
    assert main(["referee", "pylos", "--coverage", "base", "--observations", str(log),
                 "--events", str(events_path)]) == 0
    events = [json.loads(line) for line in events_path.read_text().splitlines()]
    first = next(k for k, e in enumerate(events) if e["type"] == "confirm-needed")
    moves = [e["move"] for e in events[:first] if e["type"] == "move"]
    assert not any(e["type"] == "illegal" for e in events[:first])
    # unanswered, the question holds the game up: every turn before it is right, and the true
    # turn is among the candidates
    assert moves == list(sim.truth.turns[:len(moves)]) and len(moves) >= 10
    assert sim.truth.turns[len(moves)] in events[first]["candidates"]
    assert main(["referee", "sparklies", "--coverage", "base", "--observations", str(log)]) == 2


def test_players_who_play_on_without_answering_are_followed_one_turn():
    """A question left unanswered while the next player takes a whole turn and starts the
    one after: no flag; the late answer lets the referee catch up with both turns."""
    from host.sim import SimConfig, simulate_game
    rules = rules_for("sparks")
    sim = simulate_game(rules, random.Random(16), SimConfig(seed=16))
    referee = Referee(rules)
    events = referee.begin(0.0)
    asked_at = None
    stream = iter(sim.observations)
    for obs in stream:
        if asked_at is not None and obs.t > sim.truth.turn_times[asked_at + 2] - 0.8:
            break  # the turn after next is under way, not finished
        out = referee.observe(obs)
        events += out
        if asked_at is None and any(e.type == "confirm-needed" for e in out):
            asked_at = len(referee.turns)
    assert asked_at is not None and "illegal" not in [e.type for e in events]
    assert referee.state()["status"] == "awaiting-confirmation"
    want = sim.truth.positions[asked_at]
    turn = next(turn for turn, after in referee.candidates if rules.format_position(after) == want)
    out = referee.command("confirm", obs.t, {"move": rules.format_turn(turn)})
    for obs in stream:
        out += referee.observe(obs)
        if obs.t > sim.truth.turn_times[asked_at + 2] - 0.3:
            break
    assert [e.data["move"] for e in out if e.type == "move"] == list(sim.truth.turns[asked_at:asked_at + 2])


def test_a_turn_button_pressed_at_once_counts_the_board_just_seen():
    """A quick player puts the ball down and presses the clock before the board has been
    seen long enough to count: the press says the board is as they left it, so the turn is
    the placement seen, not an invisible one."""
    rules, before, referee, board, cells = on_reeds("L...,....,....,..../...,...,.../..,../. D 14 15")
    seen = {n: v for n, v in reeds({**cells, "1b1": "D"}).items()}
    assert referee.observe(Observation(9.0, seen)) == []  # seen once: not stable yet
    events = referee.observe(Press(9.05, "end-turn", "dark"))
    assert [(e.type, e.data.get("move")) for e in events] == [("move", "1b1")]
    assert referee.observe(Observation(9.1, seen)) == []  # the same board again: nothing new


@pytest.mark.parametrize("argv, message", [
    (["sparklies", "--size", "9by9"], "--size '9by9': expected WIDTHxHEIGHT such as 9x9"),
    (["sparklies", "--size", "0x9"], "a board is at least 1x1"),
    (["sparklies"], "names no Sparklies squares, so its board size is unknown"),
    (["pylos", "--wrap"], "--size and --wrap are Sparklies options, not pylos ones"),
])
def test_referee_command_says_which_board_option_is_wrong(tmp_path, capsys, argv, message):
    log = tmp_path / "empty.jsonl"
    log.write_text('{"t": 0, "cells": {}}\n', encoding="utf-8")
    assert main(["referee", *argv, "--observations", str(log)]) == 2
    assert message in capsys.readouterr().err


def test_referee_command_checks_size_against_the_start_position(tmp_path, capsys):
    rules = rules_for("sparklies", width=5, height=5)
    start = rules.format_position(rules.start())
    log = tmp_path / "empty.jsonl"
    log.write_text('{"t": 0, "cells": {}}\n', encoding="utf-8")
    assert main(["referee", "sparklies", "--start", start, "--size", "7x7", "--observations", str(log)]) == 2
    assert "--size 7x7 but the position is 5x5" in capsys.readouterr().err
    assert main(["referee", "sparklies", "--start", start, "--size", "5x5", "--observations", str(log),
                 "--events", str(tmp_path / "events.jsonl")]) == 0
