"""``arbiter games list|show|export|delete`` on real database files, through the real
``arbiter`` entry point, with its exit codes."""

from __future__ import annotations

import os
import pty
import random
import re
import select
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from host.cli import main
from host.events import Event
from host.games import rules_for
from host.record import read_any, replay
from host.recorder import Recorder, iso_utc

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2026, 11, 21, 18, 0, 0, tzinfo=timezone.utc)


def clock():
    moments = (T0 + timedelta(seconds=k) for k in range(1, 10 ** 6))
    return lambda: next(moments)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class Recorded:
    """What the fixture recorded, to compare the commands' output with."""

    def __init__(self, path: Path):
        self.path = path
        self.db = str(path)
        self.pylos_texts: list[str] = []
        self.pylos_final = ""
        self.pylos_result = ""
        self.episode_seq = 0
        self.restored_seq = 0
        self.sparks_texts: list[str] = []


@pytest.fixture
def recorded(tmp_path) -> Recorded:
    """Two games: a finished Pylos game with an illegal episode and a takeback, and a Sparks
    game in progress on another board."""
    info = Recorded(tmp_path / "games.sqlite3")
    rules = rules_for("pylos")
    rng = random.Random(4)
    with Recorder(info.path, board_id="table-3", now=clock()) as rec:
        gid = rec.start_game(rules, rules.start(), players={"light": "Ann", "dark": "Bob"})
        positions, texts, t = [rules.start()], [], 0.0

        def move():
            nonlocal t
            turn = rules.random_turn(positions[-1], rng)
            player = rules.to_move(positions[-1])
            positions.append(rules.play(positions[-1], turn))
            texts.append(rules.format_turn(turn))
            t += 2
            rec.record(gid, Event("move", t, {"turn": len(texts), "player": player, "move": texts[-1],
                                              "position": rules.format_position(positions[-1]),
                                              "ts": iso_utc(T0 + timedelta(seconds=t))}))

        for _ in range(5):
            move()
        info.episode_seq = rec.record(gid, Event("illegal", t, {
            "reason": "1b2: a dark ball cannot be placed, it is Light's turn",
            "cells": [{"cell": "1b2", "expected": ".", "seen": "D"}], "position": rules.format_position(positions[-1])}))
        info.restored_seq = rec.record(gid, Event("restored", t, {"position": rules.format_position(positions[-1])}))
        move()
        move()
        undone = texts[-2:]
        del texts[-2:], positions[-2:]
        rec.record(gid, Event("takeback", t, {"to_turn": len(texts), "undone": undone,
                                              "position": rules.format_position(positions[-1])}))
        while rules.outcome(positions[-1]) is None:
            move()
        over = rules.outcome(positions[-1])
        rec.record(gid, Event("game-over", t, {"result": over.result, "winner": over.winner, "reason": over.reason}))
        info.pylos_texts, info.pylos_result = list(texts), over.result
        info.pylos_final = rules.format_position(positions[-1])
    sparks = rules_for("sparks")
    with Recorder(info.path, board_id="table-4", now=clock()) as rec:
        gid = rec.start_game(sparks, sparks.start())
        position = sparks.start()
        for n in range(1, 4):
            turn = next(iter(sparks.legal_turns(position)))
            info.sparks_texts.append(sparks.format_turn(turn))
            position = sparks.play(position, turn)
            rec.record(gid, Event("move", float(n), {"turn": n, "player": "white", "move": info.sparks_texts[-1],
                                                     "position": sparks.format_position(position),
                                                     "ts": iso_utc(T0)}))
    return info


def test_list_prints_one_line_per_game(recorded, capsys):
    code, out, err = run(capsys, "games", "list", "--db", recorded.db)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["id", "board", "game", "variant", "started", "turns", "result", "status"]
    assert lines[1].split() == ["1", "table-3", "pylos", "standard", "2026-11-21T18:00:01.000Z",
                                str(len(recorded.pylos_texts)), recorded.pylos_result, "finished"]
    assert lines[2].split() == ["2", "table-4", "sparks", "standard", "2026-11-21T18:00:01.000Z", "3", "*",
                                "in-progress"]
    assert len(lines) == 3


def test_db_may_be_given_before_the_action(recorded, capsys):
    code, out, _ = run(capsys, "games", "--db", recorded.db, "list")
    assert code == 0 and "table-4" in out


def test_list_without_a_database_says_so_and_creates_nothing(tmp_path, capsys):
    path = tmp_path / "none" / "games.sqlite3"
    code, out, _ = run(capsys, "games", "list", "--db", str(path))
    assert code == 0 and "no games recorded yet" in out
    assert not path.parent.exists()
    empty = tmp_path / "empty.sqlite3"
    Recorder(empty).close()
    code, out, _ = run(capsys, "games", "list", "--db", str(empty))
    assert code == 0 and out.startswith("no games recorded yet in")


def test_default_database_is_in_the_users_data_directory(recorded, tmp_path, monkeypatch, capsys):
    data = tmp_path / "xdg"
    (data / "tabletop-arbiter").mkdir(parents=True)
    recorded.path.rename(data / "tabletop-arbiter" / "games.sqlite3")
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    code, out, _ = run(capsys, "games", "list")
    assert code == 0 and "table-3" in out and "table-4" in out


def test_show_prints_tags_turns_episodes_and_takebacks(recorded, capsys):
    code, out, err = run(capsys, "games", "show", "1", "--db", recorded.db)
    assert code == 0, err
    assert out.startswith(f"game 1: pylos (standard) on table-3, finished, result {recorded.pylos_result}\n")
    for tag in ('[Game "pylos"]', '[Board "table-3"]', '[Light "Ann"]', '[Dark "Bob"]',
                f'[Result "{recorded.pylos_result}"]', '[Date "2026.11.21"]'):
        assert tag in out
    assert f"turns ({len(recorded.pylos_texts)}):" in out
    turn_lines = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\. ", line)]
    assert [parts[2] for parts in turn_lines] == recorded.pylos_texts
    assert turn_lines[0] == ["1.", "light", recorded.pylos_texts[0], "2026-11-21T18:00:02.000Z"]
    assert "illegal-move episodes (1):" in out
    assert (f"event {recorded.episode_seq} (2026-11-21T18:00:07.000Z): 1b2: a dark ball cannot be placed, "
            f"it is Light's turn; restored at event {recorded.restored_seq}") in out
    assert "1b2 expected . saw D" in out
    assert "takebacks (1):" in out and "from turn 7 back to turn 5, undoing" in out


def test_show_of_an_unknown_game_exits_1(recorded, tmp_path, capsys):
    code, out, err = run(capsys, "games", "show", "9", "--db", recorded.db)
    assert (code, out) == (1, "")
    assert err.strip() == f"arbiter games show: no game 9 in {recorded.db}"
    code, _, err = run(capsys, "games", "export", "3", "--db", str(tmp_path / "missing.sqlite3"))
    assert code == 1 and "no game 3" in err and "does not exist" in err


def test_a_game_id_that_is_not_a_number_is_a_usage_error(recorded, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["games", "show", "first", "--db", recorded.db])
    assert exit_.value.code == 2
    assert "game id 'first' is not a number" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["pgn", "json"])
def test_export_round_trips_through_arbiter_replay(recorded, tmp_path, capsys, fmt):
    out_file = tmp_path / f"game.{fmt}"
    code, out, err = run(capsys, "games", "export", "1", "--format", fmt, "--out", str(out_file), "--db", recorded.db)
    assert code == 0, err
    assert out.strip() == f"game 1 written to {out_file} ({fmt})"
    assert out_file.read_text().lstrip().startswith("{" if fmt == "json" else "[")
    code, out, err = run(capsys, "replay", str(out_file))
    assert code == 0, err
    assert f"{len(recorded.pylos_texts)} turns, all legal" in out
    assert f"final: {recorded.pylos_final}" in out
    assert f"result: {recorded.pylos_result}" in out


def test_export_to_stdout_is_the_record(recorded, capsys):
    code, out, err = run(capsys, "games", "export", "2", "--db", recorded.db)
    assert code == 0, err
    record = read_any(out)
    assert [t.text for t in record.turns] == recorded.sparks_texts and record.result == "*"
    assert record.tags["Board"] == "table-4" and all(t.ts == "2026-11-21T18:00:00.000Z" for t in record.turns)
    assert replay(record).ok


def test_export_to_an_unwritable_place_exits_2(recorded, tmp_path, capsys):
    code, _, err = run(capsys, "games", "export", "1", "--out", str(tmp_path / "no" / "dir" / "x.pgn"),
                       "--db", recorded.db)
    assert code == 2 and "cannot write" in err


def test_a_file_that_is_not_a_database_exits_2_and_is_left_alone(tmp_path, capsys):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"PK\x03\x04 a zip file, say" * 20)
    before = path.read_bytes()
    for argv in (["list"], ["show", "1"], ["delete", "1", "--yes"]):
        code, out, err = run(capsys, "games", *argv, "--db", str(path))
        assert code == 2 and out == ""
        assert err.strip() == (f"arbiter games {argv[0]}: {path} is not a Tabletop Arbiter database "
                               "(file is not a database): move it aside or choose another with --db")
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite3"]


def test_a_newer_database_exits_2(recorded, capsys):
    conn = sqlite3.connect(recorded.path)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    code, _, err = run(capsys, "games", "list", "--db", recorded.db)
    assert code == 2 and "newer Tabletop Arbiter (schema version 99" in err


def test_delete_with_yes_removes_the_game(recorded, capsys):
    code, out, err = run(capsys, "games", "delete", "1", "--yes", "--db", recorded.db)
    assert code == 0, err
    assert out.startswith("deleted game 1 (pylos,")
    code, out, _ = run(capsys, "games", "list", "--db", recorded.db)
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["2"]
    code, _, err = run(capsys, "games", "delete", "1", "--yes", "--db", recorded.db)
    assert code == 1 and "no game 1" in err


def _arbiter(*argv, **kwargs):
    return subprocess.run([sys.executable, "-m", "host.cli", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, **kwargs)


def test_delete_without_yes_and_without_a_terminal_refuses(recorded):
    proc = _arbiter("games", "delete", "1", "--db", recorded.db, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "stdin is not a terminal" in proc.stderr and "add --yes" in proc.stderr
    with Recorder(recorded.path) as rec:
        assert [g.id for g in rec.list_games()] == [1, 2]


def _delete_on_a_terminal(db: str, answer: bytes) -> tuple[int, str]:
    """Run ``arbiter games delete 1`` with a real pseudo-terminal as stdin and answer the prompt."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "games", "delete", "1", "--db", db], cwd=ROOT,
                            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        out = b""
        deadline = time.monotonic() + 60
        while b"[y/N]" not in out and time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                out += os.read(proc.stdout.fileno(), 4096)
        assert b"[y/N]" in out, proc.stderr.read()
        os.write(master, answer)
        rest, _ = proc.communicate(timeout=60)
        return proc.returncode, (out + rest).decode()
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_delete_on_a_terminal_asks_first(recorded):
    code, out = _delete_on_a_terminal(recorded.db, b"n\n")
    assert code == 1 and "Delete game 1 (pylos" in out and "Ann (light) vs Bob (dark)" in out
    assert "not deleted" in out
    with Recorder(recorded.path) as rec:
        assert [g.id for g in rec.list_games()] == [1, 2]
    code, out = _delete_on_a_terminal(recorded.db, b"y\n")
    assert code == 0 and "deleted game 1" in out
    with Recorder(recorded.path) as rec:
        assert [g.id for g in rec.list_games()] == [2]


def test_the_arbiter_entry_point_has_the_games_command(recorded):
    proc = _arbiter("games", "list", "--db", recorded.db)
    assert proc.returncode == 0 and "table-3" in proc.stdout
    proc = _arbiter("games", "--help")
    assert proc.returncode == 0 and all(word in proc.stdout for word in ("list", "show", "export", "delete"))
