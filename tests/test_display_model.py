"""The display's model of the boards (host/display_model.py): built from MQTT messages
alone, robust to bad ones, dropping duplicate events, and giving back the game as a record
that replays."""

from __future__ import annotations

import json
import threading

import pytest

from host.display_model import Hall
from host.games import rules_for
from host.observation import Observation
from host.record import RecordError, read_any, replay
from host.referee import Referee


def state_after(moves: list[str], board: str = "b1") -> bytes:
    rules = rules_for("pylos")
    referee = Referee(rules, players={"light": "Ann"})
    referee.begin(0.0)
    position, t = rules.start(), 0.0
    for text in moves:
        turn = rules.parse_turn(position, text)
        state = rules.begin_turn(position)
        for step in rules.steps(position, turn):
            state = state.apply(step)
            for _ in range(5):
                t += 0.1
                referee.observe(Observation(t, state.cells()))
        position = rules.play(position, turn)
    return json.dumps({"board": board, **referee.state()}).encode()


def test_a_display_started_mid_game_has_the_whole_game_from_the_retained_state():
    hall = Hall()
    assert hall.feed("arbiter/b1/status", b"online")
    assert hall.feed("arbiter/b1/state", state_after(["1a1", "1b1", "1c1"]))
    view = hall.board("b1").view()
    assert [m["move"] for m in view["moves"]] == ["1a1", "1b1", "1c1"] and view["to_move"] == "dark"
    assert view["changed"] == ["1c1"] and view["reserves"] == {"light": 13, "dark": 14}
    record = hall.board("b1").record_text()
    checked = replay(read_any(record))
    assert checked.ok and len(checked.turns) == 3 and '[Light "Ann"]' in record and '[Board "b1"]' in record


def test_a_game_whose_moves_no_record_can_carry_is_refused_naming_the_turn():
    """A state whose move reads as a result would make a record that no longer reads: the
    record is refused with the turn's number (the server answers 500 with it)."""
    hall = Hall()
    state = json.loads(state_after(["1a1", "1b1"]))
    state["moves"][1]["move"] = "1-0"
    assert hall.feed("arbiter/b1/state", json.dumps(state).encode())
    with pytest.raises(RecordError, match="turn 2: '1-0' is a result"):
        hall.board("b1").record_text()


def test_bad_messages_are_reported_and_change_nothing():
    hall = Hall()
    hall.feed("arbiter/b1/state", state_after(["1a1"]))
    board = hall.board("b1")
    for leaf, payload, message in [
            ("state", b"{not json", "state: payload is not JSON"),
            ("state", b"[1, 2]", "state: expected a JSON object, not list"),
            ("state", b'{"game": "pylos", "status": "dancing", "turn": 1, "players": {}}', "unknown status 'dancing'"),
            ("state", b'{"game": "pylos", "status": "playing", "players": {}}', "field 'turn' is missing"),
            ("status", b"maybe", "status: expected 'online' or 'offline'"),
            ("events", b'{"type": "move"}', "integer 'seq'"),
            ("state", b"\xff\xfe", "not UTF-8")]:
        assert hall.feed(f"arbiter/b1/{leaf}", payload)
        assert message in board.problem, (leaf, board.problem)
        assert board.view()["moves"][0]["move"] == "1a1"  # the last good state stands
    hall.feed("arbiter/b1/state", state_after(["1a1", "1b1"]))
    assert board.problem is None and board.view()["turn"] == 2
    # a state whose position does not parse: said, and the board drawn as far as it can be
    broken = json.loads(state_after(["1a1"]))
    broken["position"] = "LLLL"
    hall.feed("arbiter/b1/state", json.dumps(broken).encode())
    assert board.position() is None and "cannot be read" in board.problem


def test_events_are_deduplicated_by_seq_and_sensor_warnings_kept():
    hall = Hall()
    hall.feed("arbiter/b1/state", state_after([]))
    disagree = json.dumps({"seq": 5, "type": "sensors-disagree", "hollows": ["1a1"], "detail": "camera . switch #"})
    assert hall.feed("arbiter/b1/events", disagree.encode())
    assert not hall.feed("arbiter/b1/events", disagree.encode())  # the same seq again: dropped
    assert hall.board("b1").view()["sensors"] == [{"hollow": "1a1", "detail": "camera . switch #"}]
    hall.feed("arbiter/b1/events", json.dumps({"seq": 6, "type": "sensors-agree", "hollows": ["1a1"]}).encode())
    view = hall.board("b1").view()
    assert view["sensors"] == [] and [e["text"] for e in view["log"]] == ["sensors disagree: 1a1", "sensors agree: 1a1"]


def test_the_hall_lists_online_boards_only_and_ignores_other_topics():
    hall = Hall()
    hall.feed("arbiter/b2/state", state_after([], "b2"))
    hall.feed("arbiter/b1/state", state_after([], "b1"))
    assert hall.online() == []  # a retained state says nothing of whether its daemon runs
    hall.feed("arbiter/b1/status", b"online")
    hall.feed("arbiter/b2/status", b"online")
    assert [b.board_id for b in hall.online()] == ["b1", "b2"]
    hall.feed("arbiter/b2/status", b"offline")
    assert [v["board"] for v in hall.views()] == ["b1"]
    assert [v["board"] for v in hall.views(also="b2")] == ["b1", "b2"]
    assert not hall.feed("arbiter/old/status", b"offline")  # a will of a board never seen: nothing to show
    assert "old" not in hall.boards
    assert not hall.feed("other/b1/state", b"{}") and not hall.feed("arbiter/bad id/state", b"{}")
    version = hall.version
    assert hall.wait(version, 0.01) == version  # nothing changed


def test_replies_reach_the_command_that_waits_for_them():
    hall = Hall()
    got = []
    hall.expect_reply("display-1", got.append)
    hall.feed("arbiter/b1/cmd/reply", b'{"ok": false, "id": "other", "error": "x"}')
    hall.feed("arbiter/b1/cmd/reply", b"garbage")
    assert got == []
    hall.feed("arbiter/b1/cmd/reply", b'{"ok": true, "cmd": "confirm", "id": "display-1"}')
    assert got == [{"ok": True, "cmd": "confirm", "id": "display-1"}]


def test_closing_the_hall_releases_its_waiters():
    """A stopping display closes its hall: the event streams waiting on it end now, not at
    their next heartbeat."""
    hall = Hall()
    released = threading.Event()
    waiter = threading.Thread(target=lambda: (hall.wait(hall.version, 60.0), released.set()), daemon=True)
    waiter.start()
    assert not released.wait(0.2)  # nothing changed: it waits
    hall.close()
    assert released.wait(10.0), "close() left a waiter waiting for its timeout"
