"""The simulator as the daemon's ``sim:`` source: the spec string, game after game for
ever, scripted games, pacing, and clear errors."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from host.games import rules_for
from host.observation import UNKNOWN
from host.record import read_any
from host.sim import (SimConfig, SimError, SimSpecError, Simulator, load_script, pace, parse_sim_spec,
                      simulate_game)

EXAMPLES = Path(__file__).resolve().parent.parent / "host" / "examples"


# -- the spec string ---------------------------------------------------------------------------


def test_spec_with_every_kind_of_value():
    cfg = parse_sim_spec("sim:seed=7,game=sparks,occupancy=1,illegal=0.05,hands=0.1,speed=5,"
                         "frames=5-9,fps=12.5,turns=40,takebacks=0.02,flicker=0.01,pause=1.5,games=3")
    assert (cfg.seed, cfg.game, cfg.occupancy, cfg.illegal, cfg.hands, cfg.speed) == (7, "sparks", True, 0.05, 0.1, 5.0)
    assert (cfg.frames_per_state, cfg.fps, cfg.max_turns, cfg.takeback) == ((5, 9), 12.5, 40, 0.02)
    assert (cfg.flicker, cfg.pause, cfg.games) == (0.01, 1.5, 3)
    assert cfg.presses and not parse_sim_spec("sim:occupancy=1,buttons=0").presses
    assert parse_sim_spec("sim:buttons=yes").presses and not parse_sim_spec("sim:").presses
    sparklies = parse_sim_spec("sim:game=sparklies,variant=speed,size=5x4,dead=c2+d3,wrap=yes,pings=6,frames=6")
    assert (sparklies.size, sparklies.dead, sparklies.wrap, sparklies.max_pings) == ((5, 4), ("c2", "d3"), True, 6)
    assert sparklies.frames_per_state == (6, 6)
    (rules,) = sparklies.rules()
    assert rules.tags() == {"Variant": "speed", "Size": "5x4", "Dead": "c2 d3", "Wrap": "true"}


def test_bare_spec_gives_the_defaults():
    assert parse_sim_spec("sim:") == SimConfig()
    assert parse_sim_spec("  SIM:  ") == SimConfig()
    assert parse_sim_spec("seed=3") == SimConfig(seed=3)


@pytest.mark.parametrize("spec,words", [
    ("sim:colour=red", ["unknown key 'colour'", "seed"]),
    ("sim:illegal=2", ["illegal='2'", "probability"]),
    ("sim:hands=lots", ["hands='lots'", "probability"]),
    ("sim:game=chess", ["game='chess'", "pylos, sparks, sparklies, all"]),
    ("sim:seed=-1", ["seed='-1'", "whole number"]),
    ("sim:frames=8-4", ["frames='8-4'", "range"]),
    ("sim:frames=2", ["frames='2'", "at least 4 frames", "10 frames/s"]),
    ("sim:fps=0", ["fps='0'", "above 0"]),
    ("sim:occupancy=maybe", ["occupancy='maybe'", "1 or 0"]),
    ("sim:size=4by4", ["size='4by4'", "WIDTHxHEIGHT"]),
    ("sim:size=2x9", ["size='2x9'"]),
    ("sim:seed", ["'seed' is not key=value"]),
    ("sim:seed=1,seed=2", ["seed is given twice"]),
    ("replay:game.jsonl", ["not a sim source"]),
])
def test_bad_specs_name_the_key_and_value(spec, words):
    with pytest.raises(SimSpecError) as info:
        parse_sim_spec(spec)
    for word in words:
        assert word in str(info.value)


def test_config_checks_every_setting():
    with pytest.raises(SimError, match="hands must be a probability"):
        SimConfig(hands=1.5)
    with pytest.raises(SimError, match="frames_per_state"):
        SimConfig(frames_per_state=(3, 8))
    with pytest.raises(SimError, match="max_turns"):
        SimConfig(max_turns=0)
    with pytest.raises(SimError, match="game must be one of"):
        SimConfig(game="go")
    # a slower camera needs fewer frames for the same quarter of a second
    assert SimConfig(fps=4, frames_per_state=(3, 3)).state_frames == 3
    assert SimConfig(fps=30, frames_per_state=(9, 12)).state_frames == 9
    assert SimConfig().illegal_frames == 7  # 5 frames and 0.5 s, with a frame of margin


def test_reed_switches_are_for_the_pyramid_games_only():
    with pytest.raises(SimError, match="occupancy-only .* not sparklies"):
        Simulator(parse_sim_spec("sim:game=sparklies,occupancy=1,size=4x4"))


def test_daemon_sim_source_refuses_another_sparklies_size():
    from host.sources import SourceError, open_source
    with pytest.raises(SourceError, match="size 4x4 is not the daemon's Sparklies board \\(9x9\\)"):
        open_source("sim:game=sparklies,size=4x4", rules_for("sparklies", width=9, height=9))
    source = open_source("sim:game=sparklies,size=4x4,games=1", rules_for("sparklies", width=4, height=4))
    assert len(next(iter(source.items)).cells) == 16


def test_rules_must_agree_with_the_configured_game():
    with pytest.raises(SimError, match="set to play sparks but the rules are pylos"):
        Simulator(SimConfig(game="sparks"), rules=rules_for("pylos"))


# -- game after game ---------------------------------------------------------------------------


def test_simulator_plays_game_after_game_with_a_reset_between():
    cfg = parse_sim_spec("sim:seed=11,game=all,size=4x4,games=4,pause=2,hands=0.1,flicker=0.02")
    games = list(Simulator(cfg).games())
    assert [g.rules.game for g in games] == ["pylos", "sparks", "sparklies", "pylos"]
    stream = [o for g in games for o in g.observations]
    assert all(b.t > a.t for a, b in zip(stream, stream[1:]))
    assert stream == list(Simulator(cfg))  # the flat stream is the games one after another
    for previous, game in zip(games, games[1:]):
        # the last board is held for the end hold and the pause, with no noise
        tail = [o for o in previous.observations if o.t > previous.truth.t_end - cfg.end_hold - cfg.pause]
        assert len({tuple(o.cells.items()) for o in tail}) == 1
        # then hands over the whole board while it is reset, then the start position
        lead = [o for o in game.observations if o.t < game.truth.t_start]
        assert lead and all(UNKNOWN in v for o in lead for v in o.cells.values())
        first = next(o for o in game.observations if o.t >= game.truth.t_start)
        start = game.rules.parse_position(game.truth.start)
        assert dict(first.cells) == game.view(game.rules.cells(start))
    # a new Sparklies game starts on a fresh, uncontrolled board
    sparklies = games[2]
    assert "Start" in sparklies.truth.tags
    assert all(v[1] == "." for v in sparklies.rules.cells(sparklies.rules.parse_position(sparklies.truth.start)).values())


def test_simulator_is_reproducible_and_endless_by_default():
    cfg = parse_sim_spec("sim:seed=5,game=sparks,illegal=0.1,takeback=0.1,hands=0.2")
    one = list(itertools.islice(Simulator(cfg), 3000))
    two = list(itertools.islice(Simulator(cfg), 3000))
    other = list(itertools.islice(Simulator(parse_sim_spec("sim:seed=6,game=sparks")), 3000))
    assert len(one) == 3000 and one == two and one != other
    games = list(itertools.islice(Simulator(cfg).games(), 5))
    assert len(games) == 5 and all(g.truth.result != "*" for g in games)


def test_simulator_uses_the_rules_it_is_given():
    rules = rules_for("pylos", "mature")
    (game,) = Simulator(SimConfig(games=1), random.Random(3), rules=rules).games()
    assert game.rules is rules and game.truth.tags["Variant"] == "mature"


# -- scripted games ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["pylos.pgn", "sparks.pgn", "sparklies.pgn"])
def test_scripted_game_from_a_record(name):
    path = EXAMPLES / name
    record = read_any(path.read_text(encoding="utf-8"))
    cfg = parse_sim_spec(f"sim:script={path},games=1,illegal=0.1,hands=0.1,flicker=0.02")
    (game,) = Simulator(cfg, random.Random(1)).games()
    assert list(game.truth.turns) == [t.text for t in record.turns]
    assert game.truth.result == record.result
    assert game.truth.start == record.tags.get("Start", game.rules.format_position(game.rules.start()))


def test_scripted_takebacks_replay_the_same_turn():
    rules, start, turns = load_script(EXAMPLES / "pylos.pgn")
    game = simulate_game(rules, random.Random(2), SimConfig(takeback=0.3), script=turns[:20], start=start)
    assert list(game.truth.turns) == turns[:20] and game.truth.result == "*"
    assert game.truth.takebacks
    for tb in game.truth.takebacks:
        assert tb.undone == (turns[tb.to_turn],)


def test_script_errors_name_the_turn_and_the_file(tmp_path):
    rules = rules_for("pylos")
    with pytest.raises(SimError, match=r"script turn 2 '1a1': .*occupied"):
        simulate_game(rules, random.Random(1), SimConfig(), script=["1a1", "1a1"])
    missing = tmp_path / "nothing.pgn"
    with pytest.raises(SimSpecError, match="script=.*nothing.pgn.*cannot read"):
        Simulator(parse_sim_spec(f"sim:script={missing}"))
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Game "pylos"]\n\n1. 1a1 3. 1b1 *\n', encoding="utf-8")
    with pytest.raises(SimSpecError, match="script=.*bad.pgn.*line 3.*move number 3. out of sequence"):
        Simulator(parse_sim_spec(f"sim:script={bad}"))
    chess = tmp_path / "chess.pgn"
    chess.write_text('[Game "chess"]\n\n*\n', encoding="utf-8")
    with pytest.raises(SimSpecError, match="script=.*chess.pgn.*unknown game 'chess'"):
        Simulator(parse_sim_spec(f"sim:script={chess}"))


# -- pacing -------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self):
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def test_pace_releases_observations_on_time():
    game = simulate_game(rules_for("pylos"), random.Random(1), SimConfig(max_turns=2))
    obs = game.observations[:6]
    clock = FakeClock()
    out = list(pace(obs, 2.0, clock=clock, sleep=clock.sleep))
    assert out == list(obs)
    assert clock.sleeps == [0.05] * 5  # 10 frames/s at twice the speed
    clock = FakeClock()
    assert list(pace(obs, 0, clock=clock, sleep=clock.sleep)) == list(obs) and not clock.sleeps
    # a slow consumer is not made to wait again
    clock = FakeClock()
    paced = pace(obs, 1.0, clock=clock, sleep=clock.sleep)
    next(paced)
    clock.now += 5
    list(paced)
    assert clock.sleeps == []
