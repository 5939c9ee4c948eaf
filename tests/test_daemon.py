"""The daemon as users run it: `arbiter run` in a process, over replay and simulator
sources, with the recorder and a real Mosquitto; killed with SIGKILL and restarted."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest_mqtt import Mosquitto, Subscriber, in_order, wait_until
from daemon_records import (check_against_truth, check_delivery, last_event_t, query, recorded_positions,
                            stored_events, unsent)
from host.games import rules_for
from host.observation import write_log
from host.sim import SimConfig, Simulator, simulate_game

ROOT = Path(__file__).resolve().parent.parent


def arbiter(*args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "host.cli", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def simulated_log(tmp_path: Path, game: str, seed: int, **noise) -> tuple[Path, object]:
    rules = rules_for(game)
    sim = simulate_game(rules, random.Random(seed), SimConfig(seed=seed, game=game, **noise))
    path = tmp_path / f"{game}-{seed}.jsonl"
    write_log(path, sim.observations)
    return path, sim.truth


def test_replay_source_with_bad_lines_is_recorded(tmp_path):
    log, truth = simulated_log(tmp_path, "pylos", 4, hands=0.2, flicker=0.05, illegal=0.1)
    with open(log, "a") as f:
        f.write("not json at all\n")
    lines = log.read_text().splitlines()
    lines.insert(10, '{"t": 0.95, "cells": {"1z9": "L"}}')
    log.write_text("\n".join(lines) + "\n")
    db = tmp_path / "games.sqlite3"
    proc = arbiter("run", "--game", "pylos", "--source", f"replay:{log}", "--db", str(db), "--no-mqtt",
                   "--speed", "0")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "not JSON" in err and "1z9" in err  # reported, and the daemon went on
    assert recorded_positions(db, 1) == [truth.start, *truth.positions]
    assert "| finished |" in out  # the status line on the terminal
    assert "illegal" in err


@pytest.mark.parametrize("argv, words", [
    (["--game", "chess", "--source", "sim:"], "invalid choice"),
    (["--game", "pylos", "--source", "serial:"], "needs the controller's port"),
    (["--game", "pylos", "--source", "gpio:"], "no reed switches configured"),
    (["--game", "pylos", "--source", "usb:3"], "unknown source"),
    (["--game", "pylos", "--source", "camera:/nonexistent.mp4"], "no such file or directory"),
    (["--game", "pylos", "--source", "sim:illegal=2"], "illegal"),
    (["--game", "pylos", "--source", "replay:/nonexistent.jsonl"], "no such file"),
    (["--game", "pylos", "--source", "sim:", "--board-id", "table/3"], "board_id: board id 'table/3' cannot be"),
])
def test_bad_start_up_is_refused_with_the_reason(tmp_path, argv, words):
    proc = arbiter("run", *argv, "--db", str(tmp_path / "g.sqlite3"), "--no-mqtt")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and words in err


def test_wrong_config_key_stops_start_up(tmp_path):
    config = tmp_path / "arbiter.toml"
    config.write_text('game = "pylos"\n[mqtt]\nurll = "mqtt://x"\n')
    proc = arbiter("run", "--config", str(config), "--source", "sim:", "--db", str(tmp_path / "g.sqlite3"))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "mqtt.urll: unknown key" in err


def test_corrupt_database_is_refused_and_kept(tmp_path):
    db = tmp_path / "games.sqlite3"
    db.write_bytes(b"this is somebody's notes, not a database" * 10)
    before = db.read_bytes()
    proc = arbiter("run", "--game", "pylos", "--source", "sim:", "--db", str(db), "--no-mqtt")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "not a Tabletop Arbiter database" in err
    assert db.read_bytes() == before


def test_daemon_publishes_over_mosquitto_and_takes_commands(tmp_path):
    broker = Mosquitto(tmp_path).start()
    db = tmp_path / "games.sqlite3"
    config = tmp_path / "arbiter.toml"
    config.write_text(f'board_id = "t1"\n[mqtt]\nurl = "{broker.url}"\ntoken = "s3cret"\n'
                      '[players]\nwhite = "Ann"\n')
    proc = arbiter("run", "--config", str(config), "--game", "sparks", "--db", str(db),
                   "--source", "sim:seed=5,games=1,speed=20,hold=60")
    try:
        with Subscriber(broker.port) as sub:
            assert wait_until(lambda: any(e["type"] == "game-over" for e in sub.events("t1")), timeout=90)
            events = sub.events("t1")
            seqs = [e["seq"] for e in events]
            assert seqs == sorted(set(seqs)) and events[0]["type"] == "new-game"
            # the state is published just after the events it follows: it may be a moment behind
            assert wait_until(lambda: sub.last("arbiter/t1/state").json()["status"] == "finished", timeout=10)
            assert sub.last("arbiter/t1/state").json()["players"] == {"white": "Ann"}
            assert sub.last("arbiter/t1/status").payload == b"online"
            # the turn topic is published just after the state: it may be a moment behind
            assert wait_until(lambda: sub.last("arbiter/t1/turn").payload == b"none", timeout=10)
            # a command without the token is refused; with it, a takeback of the last turn
            sub.publish("arbiter/t1/cmd", json.dumps({"cmd": "takeback", "id": 1}))
            sub.publish("arbiter/t1/cmd", json.dumps({"cmd": "takeback", "id": 2, "token": "s3cret"}))
            assert wait_until(lambda: len(sub.on("arbiter/t1/cmd/reply")) >= 2, timeout=30)
            replies = {m.json()["id"]: m.json() for m in sub.on("arbiter/t1/cmd/reply")}
            assert replies[1]["ok"] is False and "token" in replies[1]["error"]
            assert replies[2]["ok"] is True, replies[2]
            assert wait_until(lambda: sub.events("t1")[-1]["type"] == "takeback", timeout=30)
            assert wait_until(lambda: sub.last("arbiter/t1/state").json()["status"] == "playing", timeout=30)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        broker.stop()
    assert proc.returncode == 0, err


#: games per game in the crash test (ARBITER_CRASH_GAMES); kills are one and a half times as
#: many. Fewer games play the first of the same games; more may bring a question (below).
CRASH_GAMES = int(os.environ.get("ARBITER_CRASH_GAMES", "20"))
#: (game, seed, simulator options). Seeds whose games the referee follows without an answer to
#: its questions: seen by a camera, a Sparks coal hidden under other balls can leave it asking
#: which turn was played (docs/simulator.md), and nobody answers here (Sparks seed 8 asks, at
#: 20 games). Sparklies on a 4x4 board: 15 turns a game.
CRASH_CASES = [("pylos", 21, {}), ("sparks", 5, {}), ("sparklies", 5, {"size": (4, 4)})]


def daemon_process(tmp_path: Path, attempt: int, *args: str) -> tuple[subprocess.Popen, Path]:
    """`arbiter run` with its log in a file (a pipe nobody reads could fill up and stall it)."""
    err = tmp_path / f"daemon-{attempt}.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(err, "w") as f:
        proc = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--quiet", *args], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=f, text=True)
    return proc, err


def said(log: Path) -> list[str]:
    """What the daemon has logged (its INFO lines) so far."""
    return [line for line in log.read_text().splitlines() if " INFO " in line]


def kill_instant(attempt: int, proc: subprocess.Popen, log: Path, resuming: bool, sub: Subscriber,
                 rng: random.Random) -> bool:
    """Wait for the instant to kill the daemon (True: it came after an event arrived). One
    attempt in six: a random instant from the start (start-up, resuming). The others once the
    daemon referees again (an event logged after the resumption): odd attempts the instant
    the subscriber has received a few more events, even ones after a random delay."""
    if attempt % 6 == 0:
        time.sleep(rng.uniform(0.0, 0.6))
        return False
    wait_until(lambda: len(said(log)) > (1 if resuming else 0) or proc.poll() is not None, timeout=30, step=0.005)
    if attempt % 2 == 0:
        time.sleep(rng.uniform(0.02, 0.5))
        return False
    target, deadline = sub.count() + rng.randint(1, 6), time.monotonic() + 3.0
    while sub.count() < target and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.001)
    return sub.count() >= target


@pytest.mark.long(35)
@pytest.mark.parametrize("game, seed, options", CRASH_CASES, ids=[case[0] for case in CRASH_CASES])
def test_killed_daemon_resumes_and_loses_nothing(tmp_path, fast_dir, game, seed, options):
    """SIGKILL at random instants during many simulated games in a row (hands, illegal moves,
    takebacks), the daemon publishing to a real Mosquitto. One kill in six comes at a random
    instant from the process's start (in start-up, or while the recorded game is resumed);
    the others once the daemon referees again: half after a random delay, half the instant
    the subscriber receives an event (the daemon is publishing: acknowledgements not yet
    taken in, the next events on their way). The stream's pace is set, and corrected as it
    goes, so that the kills spread over the games. Each restart resumes where the database
    says; at the end every recorded game equals the simulator's ground truth
    (docs/recording.md: "killing the daemon at any instant loses nothing it had accepted")
    and every recorded event reached the subscriber, first copies in order (docs/mqtt.md:
    duplicates only, dropped by seq)."""
    games, kills = CRASH_GAMES, max(3, CRASH_GAMES * 3 // 2)
    played = list(Simulator(SimConfig(seed=seed, game=game, games=games, hands=0.1, illegal=0.1, takeback=0.1,
                                      **options)).games())
    log = tmp_path / "games.jsonl"
    write_log(log, [obs for g in played for obs in g.observations])
    duration = played[-1].observations[-1].t
    db = fast_dir / "games.sqlite3"
    broker = Mosquitto(tmp_path).start()
    config = tmp_path / "arbiter.toml"
    rules = f'[rules]\nsize = "{options["size"][0]}x{options["size"][1]}"\n' if "size" in options else ""
    config.write_text(f'board_id = "crash"\ngame = "{game}"\n{rules}[mqtt]\nurl = "{broker.url}"\n')
    rng = random.Random(seed)
    figures = {"kills": 0, "in start-up": 0, "resumed": 0, "outbox not empty": 0, "on an event": 0}
    games_hit: set[int] = set()
    playing = 0.2  # seconds a daemon referees before its kill: measured as it goes
    try:
        with Subscriber(broker.port, "arbiter/crash/events") as sub:
            for attempt in range(kills):
                # pace the rest of the stream over the kills left, however fast this machine is
                reached = last_event_t(db)
                speed = max(duration - reached, 1.0) / ((kills - attempt) * playing)
                started = bool(query(db, "SELECT 1 FROM games LIMIT 1"))
                proc, err_path = daemon_process(tmp_path, attempt, "--config", str(config), "--source",
                                                f"replay:{log}", "--db", str(db), "--speed", f"{speed:.3f}")
                figures["on an event"] += kill_instant(attempt, proc, err_path, started, sub, rng)
                if proc.poll() is not None:  # the stream is over: nothing left to interrupt
                    assert proc.returncode == 0 and "ended" in err_path.read_text(), err_path.read_text()[-3000:]
                    break
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=30)
                if attempt % 6:
                    playing = max(0.02, 0.7 * playing + 0.3 * (last_event_t(db) - reached) / speed)
                figures["kills"] += 1
                figures["outbox not empty"] += unsent(db) > 0
                games_hit.update(row[0] for row in query(db, "SELECT MAX(id) FROM games") if row[0])
                lines = said(err_path)
                if not lines:
                    figures["in start-up"] += 1
                elif started:
                    # the first thing a restarted daemon does is take up the recorded game
                    assert "resuming game" in lines[0] or "was over when the daemon stopped" in lines[0], lines[0]
                    figures["resumed"] += 1
            covered = last_event_t(db) / duration
            proc, err_path = daemon_process(tmp_path, kills, "--config", str(config), "--source", f"replay:{log}",
                                            "--db", str(db), "--speed", "0")
            assert proc.wait(timeout=300) == 0, err_path.read_text()[-3000:]
            assert unsent(db) == 0  # a clean stop delivers what waits
            stored = [seq for seq, _ in stored_events(db)]
            wait_until(lambda: in_order(sub.seqs("crash"))[-1:] == stored[-1:], timeout=15)  # then checked:
            duplicates = check_delivery(db, sub.events("crash"))
    finally:
        broker.stop()
    print(f"\n{game}: {games} games, {len(stored)} events, {figures}, kills in {len(games_hit)} games, "
          f"{covered:.0%} of the stream played before the last kill, {duplicates} duplicates delivered")
    assert figures["kills"] >= kills * 2 // 3, figures
    assert len(games_hit) >= max(2, games // 4), sorted(games_hit)  # spread over the games
    assert figures["resumed"] >= figures["kills"] // 2, figures
    # some kills left events unacknowledged (a third to two thirds of them, at 30 kills)
    assert figures["outbox not empty"] > 0 or figures["kills"] < 10, figures
    check_against_truth(db, played)
