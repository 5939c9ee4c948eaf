"""One board, several games: the daemon follows the board from Pylos to Sparks and back (a
start position after a finished game, or the new-game command), refuses games the board
cannot show, and resumes the game kind the database says after a restart. The daemon runs
in-process over simulated observation logs; commands come through a real Mosquitto or,
where only the daemon's answer matters, a stand-in link."""

from __future__ import annotations

import io
import json
import logging
import os
import queue
import random
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator

import pytest

from conftest_mqtt import Mosquitto, Subscriber, wait_until
from host.board_games import StartWatch
from host.config import ConfigError, from_mapping, load
from host.daemon import Daemon, build_rules
from host.events import CONFIRM_NEEDED, Event
from host.games import rules_for
from host.mqtt import MqttLink
from host.mqtt_commands import Command
from host.observation import Observation, Press
from host.record import read_text, replay
from host.recorder import Recorder
from host.sim import SimConfig, Simulator, simulate_game
from host.sources import BASE_HOLLOWS, Source

ROOT = Path(__file__).resolve().parent.parent
BOARD = "club"
TOKEN = "s3cret"
PYLOS, SPARKS = rules_for("pylos"), rules_for("sparks")


class FakeLink:
    """The daemon's side of MQTT, kept in lists: replies, states and events."""

    def __init__(self) -> None:
        self.commands: queue.Queue = queue.Queue()
        self.replies: list[tuple[str, bool, str | None]] = []
        self.states: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []

    def reply(self, command: Command, ok: bool, error: str | None = None) -> None:
        self.replies.append((command.cmd, ok, error))

    def publish_state(self, state: dict[str, Any]) -> None:
        self.states.append(state)

    def publish_event(self, seq: int, event: dict[str, Any]) -> None:
        self.events.append(event)

    def poll(self, timeout: float = 0.0) -> int:
        return 0


@pytest.fixture
def boards(tmp_path: Path) -> Iterator[Any]:
    """Makes daemons over one database; closes their recorders at the end."""
    recorders: list[Recorder] = []

    def make(rules: Any, items: Iterable[Any] = (), *, config: Any = None, link: Any = None,
             coverage: frozenset[str] | None = None, status: io.StringIO | None = None) -> Daemon:
        """``link``: a link, or a function making one around the recorder (its outbox)."""
        recorder = Recorder(tmp_path / "games.sqlite3", board_id=BOARD)
        recorders.append(recorder)
        if callable(link):
            link = link(recorder)
        config = config or from_mapping({"board_id": BOARD})
        return Daemon(config, rules, Source("test", list(items), coverage, finite=True), recorder=recorder,
                      link=link, status_out=status)

    yield make
    for recorder in recorders:
        recorder.close()


def held(cells: dict[str, str], t0: float, frames: int = 8, dt: float = 0.1) -> list[Observation]:
    """A board shown steadily: long enough to count."""
    return [Observation(round(t0 + k * dt, 6), dict(cells)) for k in range(frames)]


def start_cells(rules: Any) -> dict[str, str]:
    return rules.cells(rules.start())


def recorded(recorder: Recorder, game_id: int) -> tuple[str, list[str]]:
    """A recorded game's kind and its positions, replayed from its export."""
    result = replay(read_text(recorder.export(game_id)))
    assert result.ok, result.error
    return result.rules.game, [result.rules.format_position(p) for p in result.positions]


def truth_positions(sim: Any) -> list[str]:
    return [sim.truth.start, *sim.truth.positions]


def assert_recorded(recorder: Recorder, game_id: int, sim: Any) -> None:
    """The recorded game is the simulated one. A turn the camera could not tell apart and
    nobody confirmed (its move event lists the others as ``unconfirmed``) may be another
    candidate; the true turn must be among them and the game's length the same."""
    game, got = recorded(recorder, game_id)
    want = truth_positions(sim)
    assert game == sim.rules.game and len(got) == len(want)
    moves = [e for _, e in recorder.events(game_id) if e["type"] == "move"]
    open_turns = {e["turn"]: [e["move"], *e["unconfirmed"]] for e in moves if "unconfirmed" in e}
    for k, (g, w) in enumerate(zip(got, want)):
        if k in open_turns:
            assert sim.truth.turns[k - 1] in open_turns[k], f"game {game_id} turn {k}"
        else:
            assert g == w, f"game {game_id} position {k}"


def statuses(recorder: Recorder) -> list[tuple[str, str, int]]:
    return [(g.game, g.status, g.turns) for g in recorder.list_games()]


# -- the board shows another game's start --------------------------------------------------


#: simulated pairs of games (seed, first game, noise) that are refereed right: 3 with hands
#: and flicker; 31 ends Pylos on a turn that could have gone on (a second take-back), closed
#: when the Sparks start appears; Sparks seed 9 ends on a question nobody answers, settled
#: when the board is reset to the Pylos start
PAIRS = [(3, "pylos", 0.1), (31, "pylos", 0.0), (9, "sparks", 0.1)]


@pytest.mark.parametrize("seed, first, noise", PAIRS)
def test_the_other_start_after_a_finished_game_starts_the_other_game(boards, seed, first, noise):
    """A game to the end, then the players reset the board to the other game's start and
    play it: that game is recorded under its own rules; the state and status line follow."""
    order = [PYLOS, SPARKS] if first == "pylos" else [SPARKS, PYLOS]
    played = list(Simulator(SimConfig(seed=seed, games=2, hands=noise, flicker=noise / 5), rules=order).games())
    status = io.StringIO()
    link = FakeLink()
    config = from_mapping({"board_id": BOARD, "players": {"light": "Ann", "dark": "Bob", "white": "Cy"}})
    daemon = boards(order[0], (i for g in played for i in g.stream()), config=config, link=link, status=status)
    assert daemon.run() == 0
    rec = daemon.recorder
    assert statuses(rec) == [(g.rules.game, "finished", len(g.truth.turns)) for g in played]
    for game_id, sim in enumerate(played, start=1):
        assert_recorded(rec, game_id, sim)
    sparks_id = 2 if first == "pylos" else 1
    tags = rec.get_game(sparks_id).tags
    assert tags["Game"] == "sparks" and tags["White"] == "Cy" and "Light" not in tags
    assert rec.get_game(3 - sparks_id).tags["Light"] == "Ann"
    new_games = [e for e in link.events if e["type"] == "new-game"]
    assert [(e["game"], e["game_id"]) for e in new_games] == [(g.rules.game, n) for n, g in enumerate(played, 1)]
    last = [e for _, e in rec.events(1) if e["type"] == "move"][-1]
    if (seed, first) == (31, "pylos"):  # the open last turn is closed by the Sparks start
        assert last["t"] == new_games[1]["t"] and "unconfirmed" not in last
    if first == "sparks":  # the unanswered last turn is settled by the Pylos start
        assert "unconfirmed" in last
    second = played[1].rules.game
    assert link.states[-1]["game"] == second and link.states[-1]["status"] == "finished"
    assert link.states[-1]["players"] == ({"white": "Cy"} if second == "sparks" else {"light": "Ann", "dark": "Bob"})
    lines = status.getvalue().splitlines()
    assert any(line.startswith(f"[{BOARD}] {first} standard") for line in lines)
    assert lines[-1].startswith(f"[{BOARD}] {second} standard") and "| finished" in lines[-1]


def test_a_cleared_board_then_the_sparks_start_switches_and_back(boards):
    """The usual way: the finished Pylos board is cleared (an empty board: a new Pylos game
    starts), then the Sparks start is set up: that unplayed Pylos game is abandoned and Sparks
    starts. After Sparks, the empty board switches back to Pylos."""
    rng = random.Random(11)
    config = SimConfig(seed=11)
    first = simulate_game(PYLOS, rng, config)
    t = first.observations[-1].t + 0.1
    empty = held(start_cells(PYLOS), t)
    second = simulate_game(SPARKS, rng, config, t0=empty[-1].t + 0.1, reset=True)
    back = held(start_cells(PYLOS), second.observations[-1].t + 0.1)
    items = [*first.stream(), *empty, *second.stream(), *back]
    daemon = boards(PYLOS, items)
    daemon.run()
    rec = daemon.recorder
    assert statuses(rec) == [("pylos", "finished", len(first.truth.turns)), ("pylos", "abandoned", 0),
                             ("sparks", "finished", len(second.truth.turns)), ("pylos", "in-progress", 0)]
    assert recorded(rec, 3) == ("sparks", truth_positions(second))
    assert daemon.state()["game"] == "pylos" and daemon.rules.game == "pylos"


def test_a_sparks_start_before_the_first_turn_switches_at_once(boards):
    """The daemon started with --game pylos begins a Pylos game; players who set up Sparks
    instead get Sparks (the unplayed Pylos game is abandoned)."""
    daemon = boards(PYLOS)
    daemon.resume_or_begin()
    for obs in held(start_cells(SPARKS), 1.0):
        daemon.observe(obs)
    assert daemon.state()["game"] == "sparks" and daemon.state()["turn"] == 0
    assert statuses(daemon.recorder) == [("pylos", "abandoned", 0), ("sparks", "in-progress", 0)]


def test_a_start_in_the_middle_of_a_game_changes_nothing(boards):
    """Once a turn is played, another game's start is just a wrong board."""
    sim = simulate_game(PYLOS, random.Random(5), SimConfig(seed=5))
    cut = sim.truth.turn_times[3]
    daemon = boards(PYLOS)
    daemon.resume_or_begin()
    for obs in sim.observations:
        if obs.t > cut + 0.5:
            break
        daemon.observe(obs)
    turns = daemon.state()["turn"]
    assert turns >= 4
    for obs in held(start_cells(SPARKS), cut + 1.0):
        daemon.observe(obs)
    assert daemon.state()["game"] == "pylos" and daemon.state()["turn"] == turns
    assert statuses(daemon.recorder) == [("pylos", "in-progress", turns)]


def test_reed_switches_never_take_a_full_base_for_the_sparks_start():
    """Sixteen occupied hollows are also how most Pylos games end: only the empty board is
    unmistakable with reed switches."""
    watch = StartWatch([SPARKS, PYLOS], frames=3, seconds=0.25, coverage=BASE_HOLLOWS)
    base_full = {n: "#" for n in BASE_HOLLOWS}
    assert all(watch.feed(obs) is None for obs in held(base_full, 0.0))
    found = [watch.feed(obs) for obs in held({n: "." for n in BASE_HOLLOWS}, 2.0)]
    assert found[:2] == [None, None] and found[-1] is PYLOS  # once steady, not before
    camera = StartWatch([SPARKS], frames=3, seconds=0.25, coverage=None)
    glare = {**start_cells(SPARKS), "1a1": "?"}
    assert all(camera.feed(obs) is None for obs in held(glare, 0.0))
    assert camera.feed(held(start_cells(SPARKS), 5.0)[0]) is None
    assert [camera.feed(o) for o in held(start_cells(SPARKS), 5.1)][-1] is SPARKS


def test_the_configuration_can_keep_a_board_to_one_game(boards):
    daemon = boards(PYLOS, config=from_mapping({"board_id": BOARD, "games": ["pylos"]}), link=FakeLink())
    daemon.resume_or_begin()
    for obs in held(start_cells(SPARKS), 1.0):
        daemon.observe(obs)
    assert daemon.state()["game"] == "pylos"
    daemon.command(Command("new-game", id=1, game="sparks"))
    assert daemon.link.replies[-1] == ("new-game", False,
                                       "sparks is not played on this board (the configuration's games: pylos)")


# -- the new-game command --------------------------------------------------------------


def pump(daemon: Daemon, link: MqttLink, predicate: Any) -> bool:
    """Run the daemon's command handling and the link's main-thread side until ``predicate``."""
    def step() -> bool:
        daemon.take_commands()
        return bool(predicate())
    return wait_until(step, link=link)


def test_new_game_command_switches_mid_game_over_mosquitto(boards, tmp_path):
    """Pylos under way; `new-game` with game sparks: the Pylos game is abandoned (as a
    new-game of the same game does), a Sparks game starts, its board is refereed; a game the
    board cannot show is refused on cmd/reply and changes nothing."""
    rng = random.Random(8)
    config = SimConfig(seed=8)
    pylos = simulate_game(PYLOS, rng, config)
    cut = pylos.truth.turn_times[4] + 0.5
    mosquitto = Mosquitto(tmp_path).start()
    daemon = boards(PYLOS, link=lambda recorder: MqttLink(board_id=BOARD, outbox=recorder, url=mosquitto.url,
                                                          token=TOKEN, reconnect_min=0.05, reconnect_max=0.5))
    link = daemon.link
    link.start()
    try:
        assert link.wait_connected(15)
        with Subscriber(mosquitto.port, f"arbiter/{BOARD}/#") as sub:
            daemon.resume_or_begin()
            for obs in pylos.observations:
                if obs.t > cut:
                    break
                daemon.observe(obs)
            turns = daemon.state()["turn"]
            assert turns >= 5
            replies = lambda: [m.json() for m in sub.on(f"arbiter/{BOARD}/cmd/reply")]  # noqa: E731
            state = lambda: sub.last(f"arbiter/{BOARD}/state").json()  # noqa: E731

            sub.publish(f"arbiter/{BOARD}/cmd", json.dumps({"cmd": "new-game", "game": "sparklies", "id": 1,
                                                            "token": TOKEN}))
            assert pump(daemon, link, lambda: len(replies()) == 1)
            assert replies()[0] == {"ok": False, "cmd": "new-game", "id": 1,
                                    "error": "sparklies needs a grid board; this board is a pyramid"}
            assert statuses(daemon.recorder) == [("pylos", "in-progress", turns)]
            assert pump(daemon, link, lambda: state()["turn"] == turns and state()["game"] == "pylos")

            sub.publish(f"arbiter/{BOARD}/cmd", json.dumps({"cmd": "new-game", "game": "sparks", "id": 2,
                                                            "token": TOKEN}))
            assert pump(daemon, link, lambda: len(replies()) == 2)
            assert replies()[1] == {"ok": True, "cmd": "new-game", "id": 2}
            assert pump(daemon, link, lambda: state()["game"] == "sparks")
            assert state()["turn"] == 0 and state()["to_move"] == "white"
            assert sub.last(f"arbiter/{BOARD}/turn").payload == b"white"
            assert pump(daemon, link, lambda: sub.events(BOARD)[-1]["type"] == "new-game")
            event = sub.events(BOARD)[-1]
            assert (event["game"], event["game_id"], event["tags"]["Game"]) == ("sparks", 2, "sparks")
            assert statuses(daemon.recorder) == [("pylos", "abandoned", turns), ("sparks", "in-progress", 0)]

            # the players put the Pylos balls away and set up Sparks, then play it
            sparks = simulate_game(SPARKS, rng, config, t0=cut + 0.1, reset=True)
            for item in sparks.stream():
                daemon.observe(item)
            daemon.handle(daemon.referee.flush(daemon._last_t))
            assert pump(daemon, link, lambda: state()["status"] == "finished")
            assert state()["game"] == "sparks"
    finally:
        link.stop(timeout=1.0)
        mosquitto.stop()
    assert recorded(daemon.recorder, 2) == ("sparks", truth_positions(sparks))
    assert statuses(daemon.recorder)[1] == ("sparks", "finished", len(sparks.truth.turns))


def test_a_game_chosen_by_command_is_not_switched_away_while_set_up(boards):
    """After `new-game` sparks the board is cleared on its way to the Sparks start: the
    empty board (the Pylos start) must not switch back."""
    daemon = boards(PYLOS, link=FakeLink())
    daemon.resume_or_begin()
    daemon.command(Command("new-game", game="sparks"))
    for obs in held(start_cells(PYLOS), 1.0):
        daemon.observe(obs)
    assert daemon.state()["game"] == "sparks"
    for obs in held(start_cells(SPARKS), 2.0):
        daemon.observe(obs)
    assert daemon.state()["game"] == "sparks" and daemon.state()["status"] == "playing"


@pytest.mark.parametrize("command, error", [
    (Command("new-game", game="sparklies"), "sparklies needs a grid board; this board is a pyramid"),
    (Command("new-game", game="sparks", variant="mature"), "unknown Sparks variant 'mature': expected standard"),
    (Command("new-game", game="sparks", rules={"reserve_rule": "moves"}),
     "rules.reserve_rule is not a rule of sparks (its rules: none)"),
    (Command("new-game", rules={"reserve_rule": "sometimes"}), "reserve rule"),
])
def test_refused_new_games_say_why_and_change_nothing(boards, command, error):
    link = FakeLink()
    daemon = boards(PYLOS, link=link)
    daemon.resume_or_begin()
    before, events = daemon.state(), list(link.events)
    daemon.command(command)
    cmd, ok, text = link.replies[-1]
    assert (cmd, ok) == ("new-game", False) and error in text
    assert daemon.state() == before and link.events == events and daemon.rules is PYLOS
    assert statuses(daemon.recorder) == [("pylos", "in-progress", 0)]


def test_new_game_variant_and_rules_are_those_of_the_next_game(boards):
    """A variant or rule option in `new-game` is taken (it used to be ignored), remembered
    for that game across a switch, and recorded in the new game's tags."""
    link = FakeLink()
    daemon = boards(PYLOS, link=link)
    daemon.resume_or_begin()
    daemon.command(Command("new-game", variant="mature", rules={"reserve_rule": "moves"}))
    assert link.replies[-1] == ("new-game", True, None)
    tags = daemon.recorder.get_game(2).tags
    assert (tags["Variant"], tags["ReserveRule"]) == ("mature", "moves")
    daemon.command(Command("new-game", game="sparks"))
    daemon.command(Command("new-game", game="pylos"))
    assert (daemon.rules.variant, daemon.rules.reserve_rule) == ("mature", "moves")
    assert [g.variant for g in daemon.recorder.list_games()] == ["standard", "mature", "standard", "mature"]


def test_sparklies_keeps_its_grid(boards):
    """A Sparklies grid plays Sparklies of its size: the variant, wrap and dead squares may
    change, the size and the pyramid games may not."""
    config = from_mapping({"board_id": BOARD, "game": "sparklies", "rules": {"size": "5x5"}})
    link = FakeLink()
    daemon = boards(build_rules(config, None, None), config=config, link=link)
    daemon.resume_or_begin()
    daemon.command(Command("new-game", game="pylos"))
    assert link.replies[-1] == ("new-game", False, "pylos needs a pyramid board; this board is a 5x5 grid")
    daemon.command(Command("new-game", rules={"size": "7x7"}))
    assert link.replies[-1][1] is False and "this board is a 5x5 grid" in link.replies[-1][2]
    daemon.command(Command("new-game", variant="speed", rules={"wrap": True, "size": "5x5"}))
    assert link.replies[-1] == ("new-game", True, None)
    assert daemon.rules.tags() == {"Variant": "speed", "Size": "5x5", "Wrap": "true"}
    state = daemon.state()
    assert (state["game"], state["variant"], state["position"]) == ("sparklies", "speed", None)


# -- restarts ----------------------------------------------------------------------------


def test_a_restart_resumes_the_game_the_board_switched_to(boards):
    """Killed in the middle of the Sparks game that followed a Pylos game, the daemon
    started again with --game pylos resumes that Sparks game and records it to the end."""
    played = list(Simulator(SimConfig(seed=4, games=2), rules=[PYLOS, SPARKS]).games())
    items = [i for g in played for i in g.stream()]
    sparks = played[1]
    cut = sparks.truth.turn_times[len(sparks.truth.turns) // 2]
    first = boards(PYLOS)
    first.resume_or_begin()
    for item in items:
        if item.t > cut:
            break
        first.observe(item)  # then the process dies: no flush, nothing more
    assert statuses(first.recorder)[1][:2] == ("sparks", "in-progress")
    second = boards(PYLOS, items)
    second.run()
    assert second.rules.game == "sparks"
    assert statuses(second.recorder) == [("pylos", "finished", len(played[0].truth.turns)),
                                         ("sparks", "finished", len(sparks.truth.turns))]
    assert recorded(second.recorder, 2) == ("sparks", truth_positions(sparks))

    # and after the finished Sparks game: still Sparks, waiting; the empty board is Pylos
    config = from_mapping({"board_id": BOARD, "game": "pylos", "variant": "mature"})
    third = boards(build_rules(config, None, None), config=config)
    third.resume_or_begin()
    assert (third.state()["game"], third.state()["status"]) == ("sparks", "finished")
    for obs in held(start_cells(PYLOS), sparks.observations[-1].t + 1.0):
        third.observe(obs)
    assert (third.rules.game, third.rules.variant) == ("pylos", "mature")
    assert statuses(third.recorder)[-1] == ("pylos", "in-progress", 0)


def test_a_recorded_game_the_board_no_longer_plays_is_not_resumed(boards):
    """A Sparks game in progress, and the board now configured for Pylos only: a Pylos game
    begins and the Sparks game is abandoned."""
    first = boards(SPARKS)
    first.resume_or_begin()
    second = boards(PYLOS, config=from_mapping({"board_id": BOARD, "games": ["pylos"]}))
    second.resume_or_begin()
    assert second.state()["game"] == "pylos"
    assert statuses(second.recorder) == [("sparks", "abandoned", 0), ("pylos", "in-progress", 0)]


@pytest.mark.parametrize("candidates, words", [
    (["zz9", "1b1"], "expected a pyramid position"),        # not notation
    (["2a1", "1b1"], "2a1 is not supported"),               # notation, but no turn of that position
    ("1a1 1b1", "expected text and a list of turns"),       # not a list
])
def test_a_damaged_open_question_is_dropped_at_a_restart(boards, caplog, candidates, words):
    """A question left open whose candidates the recorded game cannot have had (a database
    edited by hand, or damaged): the restart names the game and what is wrong, drops the
    question and follows the board afresh, instead of failing to start."""
    first = boards(PYLOS)
    first.resume_or_begin()
    first.recorder.record(first.game_id, Event(CONFIRM_NEEDED, 1.0, {"question": "which ball?",
                                                                     "candidates": candidates}))
    second = boards(PYLOS, held({**start_cells(PYLOS), "1a1": "L"}, 2.0))
    with caplog.at_level(logging.WARNING, logger="arbiter"):
        second.run()
    dropped = [r.getMessage() for r in caplog.records if "question left open" in r.getMessage()]
    assert len(dropped) == 1 and f"game {first.game_id}:" in dropped[0] and words in dropped[0]
    moves = [e["move"] for _, e in second.recorder.events(first.game_id) if e["type"] == "move"]
    assert moves == ["1a1"]   # the board is followed on
    assert statuses(second.recorder) == [("pylos", "in-progress", 1)]


def test_an_open_question_stands_again_at_a_restart(boards):
    """The control for the test above: the same question with candidates the game can have."""
    first = boards(PYLOS)
    first.resume_or_begin()
    first.recorder.record(first.game_id, Event(CONFIRM_NEEDED, 1.0, {"question": "which ball?",
                                                                     "candidates": ["1a1", "1b1"]}))
    second = boards(PYLOS)
    second.resume_or_begin()
    state = second.state()
    assert state["status"] == "awaiting-confirmation"
    assert state["question"] == {"question": "which ball?", "candidates": ["1a1", "1b1"]}


# -- buttons -----------------------------------------------------------------------------


def test_a_button_press_reaches_the_referee(boards):
    daemon = boards(PYLOS)
    daemon.resume_or_begin()
    daemon.observe(Press(3.5, "end-turn", "light"))  # nothing to close: ignored, but the time moves on
    assert daemon._last_t == 3.5 and daemon.state()["turn"] == 0


# -- configuration -------------------------------------------------------------------------


@pytest.mark.parametrize("data, words", [
    ({"games": "pylos"}, "games: expected a list"),
    ({"games": []}, "games: the list is empty"),
    ({"games": ["pylos", "chess"]}, "games: 'chess' is not one of pylos, sparks, sparklies"),
    ({"games": ["pylos", "sparklies"]}, "games: pylos and sparklies are not played on the same board "
                                        "(a pyramid and a grid)"),
    ({"game": "sparks", "games": ["pylos"]}, "games: pylos does not include game 'sparks'"),
])
def test_wrong_games_are_named(data, words):
    with pytest.raises(ConfigError) as info:
        from_mapping(data, "a.toml")
    assert str(info.value).startswith("a.toml: ") and words in str(info.value)


def test_board_games_default_to_the_board_of_the_game():
    assert load(None).board_games("pylos") == ("pylos", "sparks")
    assert load(None).board_games("sparklies") == ("sparklies",)
    assert from_mapping({"games": ["sparks"]}).board_games("sparks") == ("sparks",)


def test_a_start_game_outside_games_stops_start_up(tmp_path):
    config = tmp_path / "arbiter.toml"
    config.write_text('games = ["pylos"]\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "host.cli", "run", "--config", str(config), "--game", "sparks",
                           "--source", "sim:", "--db", str(tmp_path / "g.sqlite3"), "--no-mqtt"],
                          cwd=ROOT, env=env, text=True, capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert "games: pylos does not include sparks, the game the daemon starts with" in proc.stderr


def test_the_documented_configuration_is_valid_and_complete():
    """docs/configuration.md's example names every key of the schema and loads as it is."""
    import tomllib
    from host.config import SCHEMA
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    example = tomllib.loads(text.split("```toml\n", 1)[1].split("```", 1)[0])
    config = from_mapping(example, "docs/configuration.md")
    assert config.games == ("pylos", "sparks")
    for section, keys in SCHEMA.items():
        documented = example if section is None else example.get(section, {})
        assert set(keys) <= set(documented), f"[{section}] keys missing from the example"


# -- resuming after a reboot --------------------------------------------------------------


@pytest.mark.parametrize("wall_clock", [True, False])
def test_a_live_source_is_not_skipped_when_the_clock_comes_back_behind(tmp_path, wall_clock):
    """A Pi without a battery-backed clock can come back from a reboot with its clock behind
    the game it recorded. A live source (wall-clock times) is refereed from its first frame;
    a replayed one (its own times, starting over) skips what the record covers."""
    sim = simulate_game(PYLOS, random.Random(5), SimConfig(seed=5))
    cut = sim.truth.turn_times[3] + 0.5
    ahead = [Observation(o.t + 10_000.0, o.cells) for o in sim.observations if o.t <= cut]
    config = from_mapping({"board_id": BOARD})
    with Recorder(tmp_path / "games.sqlite3", board_id=BOARD) as recorder:
        Daemon(config, PYLOS, Source("before", ahead, finite=True, wall_clock=True), recorder=recorder).run()
        assert statuses(recorder) == [("pylos", "in-progress", 4)]
    rest = [o for o in sim.observations if o.t > cut]  # the clock now reads less than before
    with Recorder(tmp_path / "games.sqlite3", board_id=BOARD) as recorder:
        Daemon(config, PYLOS, Source("after", rest, finite=True, wall_clock=wall_clock), recorder=recorder).run()
        if wall_clock:
            assert statuses(recorder) == [("pylos", "finished", len(sim.truth.turns))]
            assert recorded(recorder, 1) == ("pylos", truth_positions(sim))
        else:
            assert statuses(recorder) == [("pylos", "in-progress", 4)]
