"""The terminal display draws what the referee's retained state says, fed through a real
Hall: the board, whose turn, the last moves, flags and questions, within the screen."""

import io
import json
import random
import re
import threading

import pytest

from host.display_model import Hall
from host.display_tui import render, run, visible_width
from host.games import rules_for
from host.referee import Referee

from test_referee import Board, on_reeds

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def pylos(*moves, players=None):
    """A Pylos referee that saw ``moves`` played on a camera board."""
    rules = rules_for("pylos")
    referee = Referee(rules, players=players)
    board = Board(referee, dict)
    referee.begin(0.0)
    position = rules.start()
    board.show(rules.cells(position))
    for text in moves:
        position = board.play(rules, position, rules.parse_turn(position, text))
    return rules, referee, board, position


def fed(*boards, connected=True):
    """A hall fed each (id, referee) board's status and retained state."""
    hall = Hall()
    hall.set_connected(connected, None if connected else "connection refused")
    for board_id, referee in boards:
        publish(hall, board_id, referee)
    return hall


def publish(hall, board_id, referee):
    hall.feed(f"arbiter/{board_id}/status", b"online")
    hall.feed(f"arbiter/{board_id}/state", json.dumps({"board": board_id, **referee.state()}).encode())


def screen(hall, *, width=80, height=24, colour=False, board=None):
    views = [v.view() for v in hall.online()]
    return render(views, width=width, height=height, connected=hall.connected,
                  link_problem=hall.link_problem, board=board, colour=colour)


def text(lines):
    return "\n".join(ANSI.sub("", line) for line in lines)


def test_pylos_mid_game_shows_the_diagram_whose_turn_and_the_last_moves():
    rules, referee, _, position = pylos("1a1", "1b1", "1c3", players={"light": "Ann", "dark": "Bob"})
    shown = text(screen(fed(("kitchen", referee))))
    assert "kitchen" in shown and "pylos standard" in shown and "turn 3" in shown
    assert "DARK to move (Bob)" in shown
    art = rules.diagram(position).splitlines()
    for line in art[:6]:
        assert line.rstrip() in shown
    assert "reserves: light 13, dark 14" in shown
    assert all(f"{n}. {p:<6}{m}" in shown for n, p, m in ((1, "light", "1a1"), (2, "dark", "1b1"),
                                                          (3, "light", "1c3")))
    _, referee, _, _ = pylos("1a1", "1b1")
    assert "LIGHT to move" in text(screen(fed(("kitchen", referee))))


def test_only_the_last_five_moves_are_listed_with_their_numbers():
    _, referee, _, _ = pylos("1a1", "1b1", "1c1", "1d1", "1a2", "1b2", "1c2")
    shown = text(screen(fed(("b1", referee))))
    assert "1. light 1a1" not in shown and "2. dark  1b1" not in shown
    assert "3. light 1c1" in shown and "7. light 1c2" in shown


def test_a_flagged_board_says_illegal_why_and_where():
    rules, referee, board, position = pylos("1a1")
    board.show({**rules.cells(position), "1b2": "L"})  # light again, on dark's turn
    shown = text(screen(fed(("b1", referee)), width=120))
    assert referee.state()["status"] == "flagged"
    assert "ILLEGAL: " + referee.state()["flag"]["reason"] in shown
    assert "at 1b2 (expected ., seen L)" in shown


def test_a_question_shows_confirm_and_the_numbered_candidates():
    _, _, referee, board, cells = on_reeds("L...,....,LDLD,DLLD/...,...,.../..,../. L 10 11")
    board.show({**cells, "1a4": "."})
    referee.command("end-turn", 20.0)
    shown = text(screen(fed(("b1", referee))))
    assert "CONFIRM: Several turns fit" in shown
    candidates = referee.state()["question"]["candidates"]
    for k, candidate in enumerate(candidates, 1):
        assert f"{k}) {candidate}" in shown


def test_a_finished_game_shows_the_result_and_why():
    rules, rng = rules_for("pylos"), random.Random(3)
    position = rules.start()
    while True:
        turn = rules.random_turn(position, rng)
        if rules.outcome(rules.play(position, turn)) is not None:
            break
        position = rules.play(position, turn)
    referee = Referee(rules, start=position, players={"light": "Ann", "dark": "Bob"})
    referee.begin(0.0)
    board = Board(referee, dict)
    board.show(rules.cells(position))
    board.play(rules, position, turn)
    state = referee.state()
    shown = text(screen(fed(("b1", referee)), width=200))
    winner, name = ("LIGHT", "Ann") if state["result"] == "1-0" else ("DARK", "Bob")
    assert f"GAME OVER {state['result']}  {winner} wins ({name}): {state['reason']}" in shown
    assert "LIGHT to move" not in shown and "DARK to move" not in shown


def test_sparklies_shows_its_squares_and_who_controls_them():
    rules = rules_for("sparklies", width=3, height=3)
    start = rules.parse_position("R.G.B./G.G.B./B.R.G. b")
    referee = Referee(rules, start=start)
    referee.begin(0.0)
    Board(referee, dict).show(rules.cells(start))
    shown = text(screen(fed(("s1", referee))))
    for line in rules.diagram(start).splitlines()[:5]:
        assert line.rstrip() in shown
    assert "BLACK to move" in shown and "squares: black 0, white 0, uncontrolled 9" in shown


def test_sparks_shows_its_diagram_and_counts_the_balls():
    rules = rules_for("sparks")
    referee = Referee(rules)
    board = Board(referee, dict)
    referee.begin(0.0)
    position = rules.start()
    board.show(rules.cells(position))
    position = board.play(rules, position, rules.random_turn(position, random.Random(1)))
    shown = text(screen(fed(("s2", referee))))
    for line in rules.diagram(position).splitlines()[:6]:
        assert line.rstrip() in shown
    cells = list(rules.cells(position).values())
    counts = "  ".join(f"{k} {cells.count(k)}" for k in "WBR")
    assert f"on the board: {counts}" in shown and "BLACK to move" in shown


@pytest.mark.parametrize("width, height", [(40, 12), (80, 24), (20, 5)])
@pytest.mark.parametrize("colour", [False, True])
def test_the_screen_fits_its_size_whatever_is_on_it(width, height, colour):
    _, flagged, board, position = pylos("1a1", "1b1")
    board.show({**rules_for("pylos").cells(position), "1c2": "D"})
    _, quiet, _, _ = pylos("1a1", "1b1", "1c1", "1d1", "1a2", "1b2")
    hall = fed(("b1", flagged), ("b2", quiet), connected=False)
    for board_id in (None, "b1", "b2"):
        lines = screen(hall, width=width, height=height, colour=colour, board=board_id)
        assert 0 < len(lines) <= height
        assert all(visible_width(line) <= width for line in lines)
        assert all(len(ANSI.sub("", line)) <= width for line in lines)


def test_flags_survive_a_short_screen_before_the_moves_do():
    rules, referee, board, position = pylos("1a1", "1b1", "1c1")
    board.show({**rules.cells(position), "1d4": "L"})
    shown = text(screen(fed(("b1", referee)), width=40, height=6))
    assert "ILLEGAL" in shown and "last moves" not in shown


def test_colour_uses_escapes_and_plain_does_not():
    rules, referee, board, position = pylos("1a1")
    board.show({**rules.cells(position), "1b2": "L"})
    hall = fed(("b1", referee))
    coloured, plain = screen(hall, colour=True), screen(hall)
    assert any("\x1b[" in line for line in coloured) and not any("\x1b" in line for line in plain)
    assert "ILLEGAL" in text(coloured) and text(coloured) == "\n".join(plain)


def test_disconnected_offline_and_empty_say_so():
    _, referee, _, _ = pylos("1a1")
    hall = fed(("b1", referee), connected=False)
    assert "DISCONNECTED from the broker: connection refused" in text(screen(hall))
    hall.feed("arbiter/b1/status", b"offline")
    assert "board offline" in text(render([hall.board("b1").view()], width=80, height=24, connected=True))
    empty = Hall()
    empty.set_connected(True)
    assert text(screen(empty)) == "waiting for boards on the broker…"


def test_control_characters_in_a_payload_do_not_reach_the_terminal():
    _, referee, _, _ = pylos("1a1", players={"light": "Ann", "dark": "\x1b[2JBob"})
    assert not any("\x1b" in line for line in screen(fed(("b1", referee))))


def test_several_boards_are_listed_one_a_line_above_the_first():
    _, first, _, _ = pylos("1a1")
    _, second, _, _ = pylos("1a1", "1b1")
    hall = fed(("alpha", first), ("beta", second))
    lines = text(screen(hall)).splitlines()
    assert lines[0].startswith(">alpha") and "DARK to move" in lines[0] and lines[0].endswith("1a1")
    assert lines[1].startswith(" beta") and "LIGHT to move" in lines[1] and lines[1].endswith("1b1")
    assert any(line.startswith("alpha  pylos standard  turn 1") for line in lines)
    chosen = text(screen(hall, board="beta"))
    assert chosen.startswith("beta  pylos standard  turn 2  [2/2]") and "alpha" not in chosen


class Screen(io.StringIO):
    """An output that says when a frame was drawn."""

    def __init__(self):
        super().__init__()
        self.drawn = threading.Event()

    def flush(self):
        self.drawn.set()


def test_run_redraws_when_the_hall_changes_and_stops_on_the_event():
    rules, referee, board, position = pylos("1a1", "1b1")
    hall = fed(("b1", referee))
    out, stop = Screen(), threading.Event()

    def play_on():
        out.drawn.wait(10)
        board.play(rules, position, rules.parse_turn(position, "1d4"))
        publish(hall, "b1", referee)
        stop.set()

    player = threading.Thread(target=play_on)
    player.start()
    assert run(hall, out=out, stop=stop, size=lambda: (80, 24)) == 0
    player.join()
    frames = out.getvalue().split("\x1b[H")
    assert "1d4" not in frames[1] and "3. light 1d4" in frames[-1] and "DARK to move" in frames[-1]
    assert "\x1b[?1049h" not in out.getvalue()  # no alternate screen on what is not a terminal


def test_run_quits_on_q():
    hall = fed(("b1", pylos("1a1")[1]))
    out = Screen()
    assert run(hall, out=out, stop=threading.Event(), keys=io.StringIO("q"), size=lambda: (80, 24)) == 0


class Keys(io.StringIO):
    """Keys typed one at a time."""

    def read(self, size=-1):
        return super().read(1)


def test_run_keys_choose_the_board():
    hall = fed(("alpha", pylos("1a1")[1]), ("beta", pylos("1a1", "1b1")[1]))
    out = Screen()
    assert run(hall, out=out, stop=threading.Event(), keys=Keys("nnq"), size=lambda: (80, 24)) == 0
    assert out.getvalue().split("\x1b[H")[-1].startswith("beta")


def test_the_events_and_the_sensors_fill_the_rest_of_the_screen():
    _, referee, _, _ = pylos("1a1")
    hall = fed(("b1", referee))
    events = [{"seq": 1, "type": "move", "turn": 1, "player": "light", "move": "1a1"},
              {"seq": 2, "type": "sensors-disagree", "hollows": ["1d1"], "detail": "the camera sees a ball"}]
    for event in events:
        hall.feed("arbiter/b1/events", json.dumps(event).encode())
    shown = text(screen(hall))
    assert "SENSORS DISAGREE at 1d1: the camera sees a ball" in shown
    assert shown.splitlines()[-2:] == ["1. light 1a1", "sensors disagree: 1d1"]
