"""The SQLite game recorder on real database files: recording, export, resume, the MQTT
outbox and the errors for files that are not ours."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from datetime import datetime, timedelta, timezone

import pytest

from host.events import Event
from host.games import rules_for
from host.record import read_any, replay
from host.recorder import GameNotFound, Recorder, RecorderError, iso_utc
from host.recorder_schema import APPLICATION_ID, SCHEMA_VERSION

T0 = datetime(2026, 11, 21, 12, 0, 0, tzinfo=timezone.utc)


class Clock:
    """An injected wall clock that advances one second per reading."""

    def __init__(self, start: datetime = T0, step: timedelta = timedelta(seconds=1)):
        self.moment = start
        self.step = step

    def __call__(self) -> datetime:
        self.moment += self.step
        return self.moment


class Game:
    """Plays legal turns of real rules and makes the events the referee would emit."""

    def __init__(self, rules, position, seed: int = 1):
        self.rules = rules
        self.positions = [position]
        self.texts: list[str] = []
        self.rng = random.Random(seed)
        self.t = 0.0

    @property
    def position(self):
        return self.positions[-1]

    def move(self, text: str | None = None) -> Event:
        rules, position = self.rules, self.position
        turn = rules.parse_turn(position, text) if text else rules.random_turn(position, self.rng)
        player = rules.to_move(position)
        after = rules.play(position, turn)
        self.positions.append(after)
        self.texts.append(rules.format_turn(turn))
        self.t += 1.5
        ts = iso_utc(T0 + timedelta(seconds=self.t))
        return Event("move", self.t, {"turn": len(self.texts), "player": player, "move": self.texts[-1],
                                      "position": rules.format_position(after), "ts": ts})

    def takeback(self, k: int) -> Event:
        undone = self.texts[-k:]
        del self.texts[-k:]
        del self.positions[-k:]
        self.t += 1
        return Event("takeback", self.t, {"to_turn": len(self.texts), "undone": undone,
                                          "position": self.rules.format_position(self.position)})

    def illegal(self) -> Event:
        self.t += 1
        return Event("illegal", self.t, {
            "reason": "1b2: a dark ball cannot be placed, it is Light's turn",
            "cells": [{"cell": "1b2", "expected": ".", "seen": "D"}],
            "position": self.rules.format_position(self.position)})

    def restored(self) -> Event:
        self.t += 1
        return Event("restored", self.t, {"position": self.rules.format_position(self.position)})

    def game_over(self) -> Event:
        over = self.rules.outcome(self.position)
        assert over is not None
        self.t += 1
        return Event("game-over", self.t, {"result": over.result, "winner": over.winner, "reason": over.reason})


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite3"


def play_full_pylos(rec: Recorder, seed: int = 7) -> tuple[int, Game, list[int]]:
    """A whole Pylos game with an illegal episode, a takeback of two turns and the game-over."""
    rules = rules_for("pylos")
    gid = rec.start_game(rules, rules.start(), players={"light": "Ann", "dark": "Bob"}, tags={"Site": "Club"})
    game = Game(rules, rules.start(), seed)
    seqs = []
    for _ in range(6):
        seqs.append(rec.record(gid, game.move()))
    seqs.append(rec.record(gid, game.illegal()))
    seqs.append(rec.record(gid, game.illegal()))  # still flagged: same episode
    seqs.append(rec.record(gid, game.restored()))
    seqs.append(rec.record(gid, game.move()))
    seqs.append(rec.record(gid, game.takeback(2)))
    while rules.outcome(game.position) is None:
        seqs.append(rec.record(gid, game.move()))
    seqs.append(rec.record(gid, game.game_over()))
    return gid, game, seqs


# -- recording and export --------------------------------------------------------------------


def test_full_game_is_recorded_and_its_export_replays_to_the_same_position(db):
    with Recorder(db, board_id="table-3", now=Clock()) as rec:
        gid, game, seqs = play_full_pylos(rec)
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        detail = rec.get_game(gid)
        pgn = rec.export(gid)
        js = rec.export(gid, format="json")
    rules = game.rules
    over = rules.outcome(game.position)
    assert detail.summary.status == "finished" and detail.summary.result == over.result
    assert [t.text for t in detail.turns] == game.texts
    assert [t.number for t in detail.turns] == list(range(1, len(game.texts) + 1))
    assert detail.turns[-1].position == rules.format_position(game.position)
    assert detail.summary.board == "table-3" and dict(detail.summary.players) == {"light": "Ann", "dark": "Bob"}
    # one episode for the two illegal events, closed by the restore
    (episode,) = detail.episodes
    assert (episode.opened, episode.closed, episode.closed_by) == (seqs[6], seqs[8], "restored")
    assert episode.reason.startswith("1b2:") and episode.cells[0]["seen"] == "D"
    (takeback,) = detail.takebacks
    assert (takeback.from_turn, takeback.to_turn, takeback.event) == (7, 5, seqs[10])
    assert len(takeback.undone) == 2
    assert detail.events == len(seqs)
    for text in (pgn, js):
        record = read_any(text)
        assert record.tags["Game"] == "pylos" and record.tags["Board"] == "table-3"
        assert record.tags["Light"] == "Ann" and record.tags["Dark"] == "Bob" and record.tags["Site"] == "Club"
        assert record.tags["Date"] == "2026.11.21"
        assert record.result == over.result
        assert [t.text for t in record.turns] == game.texts
        assert all(t.ts and t.ts.endswith("Z") for t in record.turns)
        result = replay(record)
        assert result.ok, result.error
        assert rules.format_position(result.final) == rules.format_position(game.position)
    assert "[%ts 2026-11-21T12:00:01.500Z]" in pgn
    assert json.loads(js)["result"] == over.result


def test_sparklies_game_keeps_its_random_start_and_board_tags(db):
    rules = rules_for("sparklies", width=5, height=5)
    start = rules.start(random.Random(2))
    with Recorder(db, now=Clock()) as rec:
        gid = rec.start_game(rules, rules.format_position(start), players={"black": "Cy", "white": "Di"})
        game = Game(rules, start, seed=3)
        for _ in range(6):
            if rules.outcome(game.position) is not None:
                break
            rec.record(gid, game.move())
        record = read_any(rec.export(gid, "json"))
    assert record.tags["Start"] == rules.format_position(start)
    assert record.tags["Size"] == "5x5" and record.tags["Black"] == "Cy" and record.tags["White"] == "Di"
    result = replay(record)
    assert result.ok and result.rules.format_position(result.final) == rules.format_position(game.position)


def test_timestamps_come_from_the_injected_clock(db):
    clock = Clock()
    rules = rules_for("sparks")
    with Recorder(db, now=clock) as rec:
        gid = rec.start_game(rules, rules.start())
        game = Game(rules, rules.start())
        event = game.move()
        plain = Event("move", event.t, {k: v for k, v in event.data.items() if k != "ts"})
        rec.record(gid, plain)
        detail = rec.get_game(gid)
    assert detail.summary.started == "2026-11-21T12:00:01.000Z"
    # a move without its own wall-clock time gets the recording time
    assert detail.turns[0].ts == "2026-11-21T12:00:02.000Z"


def test_start_game_abandons_the_unfinished_game_of_the_same_board_only(db):
    rules = rules_for("pylos")
    with Recorder(db, board_id="a", now=Clock()) as a, Recorder(db, board_id="b", now=Clock()) as b:
        g1 = a.start_game(rules, rules.start())
        other = b.start_game(rules, rules.start())
        g2 = a.start_game(rules, rules.start())
        games = {g.id: g for g in a.list_games()}
        assert games[g1].status == "abandoned" and games[g1].ended is not None
        assert games[g2].status == "in-progress" and games[other].status == "in-progress"
        assert a.in_progress().id == g2 and b.in_progress().id == other
        assert a.in_progress("b").id == other


def test_start_game_rejects_bad_players_and_tags(db):
    rules = rules_for("pylos")
    with Recorder(db) as rec:
        with pytest.raises(RecorderError, match="player colour 'white': pylos is played by light and dark"):
            rec.start_game(rules, rules.start(), players={"white": "Ann"})
        with pytest.raises(RecorderError, match="tag Game is 'pylos' for these rules, not 'sparks'"):
            rec.start_game(rules, rules.start(), tags={"Game": "sparks"})
        with pytest.raises(RecorderError, match="tag '1x'"):
            rec.start_game(rules, rules.start(), tags={"1x": "y"})
        assert rec.list_games() == []
        gid = rec.start_game(rules, rules.start())
        rec.set_players(gid, {"Dark": "Bob"})
        assert read_any(rec.export(gid)).tags["Dark"] == "Bob"
        assert dict(rec.get_game(gid).summary.players) == {"dark": "Bob"}


# -- applying events: refusals leave nothing behind ------------------------------------------


def test_a_move_with_the_wrong_turn_number_is_refused_and_nothing_is_stored(db):
    rules = rules_for("pylos")
    with Recorder(db) as rec:
        gid = rec.start_game(rules, rules.start())
        game = Game(rules, rules.start())
        rec.record(gid, game.move())
        second = game.move()
        skipped = Event("move", second.t, {**second.data, "turn": 3})
        with pytest.raises(RecorderError, match=r"move event for turn 3 \(.*\) but 1 turns are recorded: expected turn 2"):
            rec.record(gid, skipped)
        with pytest.raises(RecorderError, match="'move' must be a str"):
            rec.record(gid, Event("move", 1.0, {"turn": 2}))
        assert len(rec.unsent()) == 1 and len(rec.get_game(gid).turns) == 1
        assert rec.record(gid, second) == 2  # the refused events were rolled back entirely
        assert [t.text for t in rec.get_game(gid).turns] == game.texts


def test_takeback_must_undo_the_recorded_turns(db):
    rules = rules_for("pylos")
    with Recorder(db) as rec:
        gid = rec.start_game(rules, rules.start())
        game = Game(rules, rules.start())
        for _ in range(3):
            rec.record(gid, game.move())
        with pytest.raises(RecorderError, match="takeback to turn 1 says it undoes"):
            rec.record(gid, Event("takeback", 9.0, {"to_turn": 1, "undone": ["1a1", "1b1"]}))
        with pytest.raises(RecorderError, match="takeback to turn 5 but 3 turns are recorded"):
            rec.record(gid, Event("takeback", 9.0, {"to_turn": 5, "undone": []}))
        assert len(rec.get_game(gid).turns) == 3 and rec.get_game(gid).takebacks == ()


def test_game_over_finishes_and_a_takeback_reopens_the_game(db):
    rules = rules_for("pylos")
    with Recorder(db, now=Clock()) as rec:
        gid, game, _ = play_full_pylos(rec, seed=11)
        assert rec.in_progress() is None
        with pytest.raises(RecorderError, match=f"game {gid} is finished"):
            rec.record(gid, Event("move", 1.0, {"turn": len(game.texts) + 1, "move": "1a1"}))
        with pytest.raises(RecorderError, match="already finished"):
            rec.record(gid, game.game_over())
        with pytest.raises(RecorderError, match="'result' must be 1-0, 0-1 or 1/2-1/2"):
            rec.record(gid, Event("game-over", 1.0, {"result": "*"}))
        rec.record(gid, game.takeback(1))
        state = rec.in_progress()
        assert state is not None and state.id == gid and state.turn_texts == tuple(game.texts)
        summary = rec.get_game(gid).summary
        assert (summary.status, summary.result, summary.ended) == ("in-progress", "*", None)
        rec.record(gid, game.move(rules.format_turn(next(iter(rules.legal_turns(game.position))))))
        assert len(rec.get_game(gid).turns) == len(game.texts)


def test_a_takeback_closes_an_open_illegal_episode(db):
    rules = rules_for("pylos")
    with Recorder(db) as rec:
        gid = rec.start_game(rules, rules.start())
        game = Game(rules, rules.start())
        rec.record(gid, game.move())
        opened = rec.record(gid, game.illegal())
        assert rec.in_progress().flagged.opened == opened
        closed = rec.record(gid, game.takeback(1))
        (episode,) = rec.get_game(gid).episodes
        assert (episode.closed, episode.closed_by) == (closed, "takeback")
        assert rec.in_progress().flagged is None


# -- resuming after a restart ----------------------------------------------------------------


def test_in_progress_resumes_from_a_reopened_file(db):
    rules = rules_for("pylos")
    with Recorder(db, board_id="b1") as rec:
        gid = rec.start_game(rules, rules.start(), players={"light": "Ann"})
        game = Game(rules, rules.start(), seed=5)
        for _ in range(9):
            rec.record(gid, game.move())
        rec.record(gid, game.takeback(1))
        rec.record(gid, game.move())
        last = rec.record(gid, game.illegal())
    with Recorder(db, board_id="b1") as rec:
        state = rec.in_progress()
        assert rec.in_progress("elsewhere") is None
    assert state.id == gid and state.game == "pylos" and dict(state.players) == {"light": "Ann"}
    assert state.turn_texts == tuple(game.texts)
    assert state.flagged is not None and state.flagged.opened == last and state.last_event == last
    assert state.position == rules.format_position(game.position)
    result = replay(state.record())
    assert result.ok and result.final == game.position


# -- the MQTT outbox -------------------------------------------------------------------------


def test_outbox_returns_unsent_events_in_order_and_marks_one_at_a_time(db):
    rules = rules_for("pylos")
    with Recorder(db) as rec:
        g1 = rec.start_game(rules, rules.start())
        game1 = Game(rules, rules.start(), seed=1)
        seqs = [rec.record(g1, game1.move()) for _ in range(3)]
        seqs.append(rec.record(g1, Event("game-over", 9.0, {"result": "1-0", "winner": "light", "reason": "test"})))
        g2 = rec.start_game(rules, rules.start())
        seqs.append(rec.record(g2, Event("new-game", 10.0, {"game": "pylos", "variant": "standard",
                                                            "position": rules.format_position(rules.start()),
                                                            "tags": {"Game": "pylos"}})))
        out = rec.unsent()
        assert [s for s, _ in out] == seqs
        assert [e["seq"] for _, e in out] == seqs
        assert [e["game_id"] for _, e in out] == [g1] * 4 + [g2]
        assert out[0][1]["type"] == "move" and out[0][1]["move"] == game1.texts[0] and out[0][1]["t"] == 1.5
        assert out[4][1]["game"] == "pylos"  # the new-game payload's own field is untouched
        assert [s for s, _ in rec.unsent(limit=2)] == seqs[:2]
        assert rec.mark_sent(seqs[0]) is True
        assert rec.mark_sent(seqs[2]) is True
        assert [s for s, _ in rec.unsent()] == [seqs[1], seqs[3], seqs[4]]
        assert rec.mark_sent(999) is False
    with Recorder(db) as rec:  # the outbox survives a restart
        assert [s for s, _ in rec.unsent()] == [seqs[1], seqs[3], seqs[4]]
        rec.delete(g2)
        assert [s for s, _ in rec.unsent()] == [seqs[1], seqs[3]]
        assert rec.mark_sent(seqs[4]) is False


def test_boards_sharing_a_database_each_send_only_their_own_events(db):
    """Two daemons on one database (a tournament's): neither publishes the other's events
    under its own board's topics."""
    rules = rules_for("pylos")
    with Recorder(db, board_id="table-1") as one, Recorder(db, board_id="table-2") as two:
        g1, g2 = one.start_game(rules, rules.start()), two.start_game(rules, rules.start())
        first = [one.record(g1, move) for move in _moves(rules, 2, seed=1)]
        second = [two.record(g2, move) for move in _moves(rules, 3, seed=2)]
        assert [s for s, _ in one.unsent()] == first and {e["game_id"] for _, e in one.unsent()} == {g1}
        assert [s for s, _ in two.unsent()] == second
        assert one.mark_sent(first[0]) and [s for s, _ in one.unsent()] == first[1:]
        assert [s for s, _ in two.unsent()] == second


def _moves(rules, count: int, seed: int) -> list[Event]:
    game = Game(rules, rules.start(), seed=seed)
    return [game.move() for _ in range(count)]


def test_threads_share_one_recorder(db):
    """The daemon records on its main thread while paho's thread marks events sent."""
    rules = rules_for("pylos")
    with Recorder(db) as rec:
        gids = [rec.start_game(rules, rules.start()) for _ in range(1)]
        gid = gids[0]
        done = threading.Event()
        sent: list[int] = []
        errors: list[BaseException] = []

        def publisher():
            try:
                while not done.is_set() or rec.unsent():
                    for seq, _ in rec.unsent(10):
                        assert rec.mark_sent(seq)
                        sent.append(seq)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        thread = threading.Thread(target=publisher)
        thread.start()
        game = Game(rules, rules.start(), seed=9)
        recorded = []
        while rules.outcome(game.position) is None:
            recorded.append(rec.record(gid, game.move()))
        done.set()
        thread.join(timeout=60)
        assert not thread.is_alive() and not errors
        assert sent == recorded and rec.unsent() == []


def test_two_recorders_on_one_file_see_each_others_writes(db):
    rules = rules_for("pylos")
    with Recorder(db) as daemon, Recorder(db) as cli:
        gid = daemon.start_game(rules, rules.start())
        game = Game(rules, rules.start())
        daemon.record(gid, game.move())
        assert cli.list_games()[0].turns == 1
        cli.delete(gid)
        with pytest.raises(GameNotFound):
            daemon.record(gid, game.move())


# -- deletion ------------------------------------------------------------------------------


def test_delete_removes_the_game_and_everything_recorded_with_it(db):
    with Recorder(db, now=Clock()) as rec:
        keep, _, keep_seqs = play_full_pylos(rec, seed=3)
        gone, _, _ = play_full_pylos(rec, seed=4)
        rec.delete(gone)
        assert [g.id for g in rec.list_games()] == [keep]
        with pytest.raises(GameNotFound):
            rec.get_game(gone)
    conn = sqlite3.connect(db)
    for table in ("turns", "events", "illegal_episodes", "takebacks"):
        assert conn.execute(f"SELECT COUNT(*) FROM {table} WHERE game = ?", (gone,)).fetchone()[0] == 0
        assert conn.execute(f"SELECT COUNT(*) FROM {table} WHERE game = ?", (keep,)).fetchone()[0] > 0
    assert [r[0] for r in conn.execute("SELECT seq FROM events ORDER BY seq")] == keep_seqs
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()


# -- the file itself -------------------------------------------------------------------------


def test_the_database_uses_wal_synchronous_full_and_our_application_id(db):
    with Recorder(db) as rec:
        assert rec._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert rec._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    conn.close()


def test_default_path_follows_xdg_data_home_and_is_created_on_demand(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = Recorder.default_path()
    assert path == tmp_path / "data" / "tabletop-arbiter" / "games.sqlite3"
    assert not path.parent.exists()
    with Recorder(path) as rec:
        assert rec.list_games() == []
    assert path.is_file()
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")  # not absolute: ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Recorder.default_path() == tmp_path / "home" / ".local" / "share" / "tabletop-arbiter" / "games.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert Recorder.default_path() == tmp_path / "home" / ".local" / "share" / "tabletop-arbiter" / "games.sqlite3"


def _snapshot(directory):
    return {p.name: p.read_bytes() for p in directory.iterdir()}


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_text("these are my notes, not a database\n" * 50)
    before = _snapshot(tmp_path)
    with pytest.raises(RecorderError) as err:
        Recorder(path)
    assert str(err.value) == (f"{path} is not a Tabletop Arbiter database (file is not a database): "
                              "move it aside or choose another with --db")
    assert _snapshot(tmp_path) == before  # not changed, no -wal or -shm file either


def test_another_programs_sqlite_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.execute("INSERT INTO recipes VALUES ('soup')")
    conn.commit()
    conn.close()
    before = _snapshot(tmp_path)
    with pytest.raises(RecorderError, match=r"is not a Tabletop Arbiter database \(a SQLite database of another "
                                            r"program, with tables recipes\): move it aside"):
        Recorder(path)
    assert _snapshot(tmp_path) == before


def test_an_empty_sqlite_file_becomes_a_recorder_database(tmp_path):
    path = tmp_path / "empty.db"
    path.touch()
    with Recorder(path) as rec:
        assert rec.list_games() == []


def _damage(path, offset: int, length: int) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        f.write(bytes(random.Random(offset).randrange(256) for _ in range(length)))


def test_a_corrupt_database_gets_a_clear_error(db):
    with Recorder(db, now=Clock()) as rec:
        for seed in range(3):
            play_full_pylos(rec, seed)
    page = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    size = db.stat().st_size
    assert size > 4 * page
    _damage(db, 100, page - 100)  # the schema page, keeping the 100-byte header
    with pytest.raises(RecorderError) as err:
        Recorder(db)
    assert str(err.value) == (f"{db} is a corrupt Tabletop Arbiter database (database disk image is malformed): "
                              "move it aside (sqlite3's .recover command may save its games) or choose another "
                              "with --db")


def test_one_damaged_data_page_is_found_on_open(db):
    with Recorder(db, now=Clock()) as rec:
        for seed in range(3):
            play_full_pylos(rec, seed)
    page = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    pages = db.stat().st_size // page
    _damage(db, pages // 2 * page, page)
    with pytest.raises(RecorderError, match=rf"{db} is a corrupt Tabletop Arbiter database \("):
        Recorder(db)


def test_a_truncated_database_gets_a_clear_error(db):
    with Recorder(db, now=Clock()) as rec:
        for seed in range(3):
            play_full_pylos(rec, seed)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])
    with pytest.raises(RecorderError, match="is a corrupt Tabletop Arbiter database"):
        Recorder(db)


def test_a_database_from_a_newer_program_is_refused_and_left_alone(db):
    with Recorder(db) as rec:
        rec.start_game(rules_for("pylos"), rules_for("pylos").start())
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(RecorderError, match=rf"written by a newer Tabletop Arbiter \(schema version "
                                            rf"{SCHEMA_VERSION + 1}; this program reads up to {SCHEMA_VERSION}\)"):
        Recorder(db)
    assert db.read_bytes() == before


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(RecorderError, match="is a directory"):
        Recorder(tmp_path)


def test_unknown_game_ids_are_reported(db):
    with Recorder(db) as rec:
        for call in (lambda: rec.record(42, Event("restored", 1.0, {})), lambda: rec.get_game(42),
                     lambda: rec.export(42), lambda: rec.delete(42), lambda: rec.events(42),
                     lambda: rec.set_players(42, {"light": "A"})):
            with pytest.raises(GameNotFound, match=f"no game 42 in {db}"):
                call()
        with pytest.raises(RecorderError, match="export format 'txt'"):
            rec.export(1, "txt")


def test_a_closed_recorder_says_so(db):
    rec = Recorder(db)
    rec.close()
    with pytest.raises(RecorderError, match="the recorder is closed"):
        rec.list_games()
