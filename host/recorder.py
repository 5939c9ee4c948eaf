"""The game recorder: every game, accepted turn and event in one SQLite file.

Each event is stored and applied in a single transaction committed with ``synchronous=FULL``
in WAL mode, so once :meth:`Recorder.record` returns the event survives ``kill -9`` (and a
power cut). The events table doubles as the MQTT outbox: the publisher takes
:meth:`Recorder.unsent` in order and :meth:`Recorder.mark_sent` once the broker has them.
Schema and behaviour: docs/recording.md.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping

from . import events as ev
from .events import Event
from .games import Rules, RulesError, rules_from_tags
from .record import RESULTS, RecordedTurn, RecordError, new_record, write_json, write_text
from .recorder_schema import SCHEMA_VERSION, GameNotFound, RecorderError, open_database
from .recorder_types import (ABANDONED, FINISHED, IN_PROGRESS, GameDetail, GameState, GameSummary,
                             IllegalEpisode, Takeback, TurnRow)

__all__ = ["Recorder", "RecorderError", "GameNotFound", "GameState", "GameSummary", "GameDetail",
           "TurnRow", "IllegalEpisode", "Takeback", "SCHEMA_VERSION", "iso_utc"]

APP_DIR = "tabletop-arbiter"
DB_NAME = "games.sqlite3"
EXPORT_FORMATS = ("pgn", "json")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso_utc(moment: datetime) -> str:
    """ISO 8601 UTC with milliseconds, as in records: ``2026-11-21T18:03:12.345Z``. A naive
    datetime is taken to be UTC already."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def _player_tags(rules: Rules, players: Mapping[str, str]) -> dict[str, str]:
    """``{"light": "Ann"}`` as the record tag ``Light``; the colours must be the game's."""
    tags = {}
    for colour, name in players.items():
        if not isinstance(colour, str) or colour.lower() not in rules.players:
            raise RecorderError(f"player colour {colour!r}: {rules.game} is played by "
                                f"{' and '.join(rules.players)}")
        if not isinstance(name, str):
            raise RecorderError(f"player {colour}: the name must be a string, not {name!r}")
        tags[colour.lower().capitalize()] = name
    return tags


def _frozen(data: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(data))


class Recorder:
    """One SQLite database of games, for one board (``board_id``) by default. Safe to share
    between threads (calls are serialised); several processes may open the same file."""

    def __init__(self, path: str | os.PathLike[str], *, board_id: str = "board-1",
                 now: Callable[[], datetime] = _utc_now):
        self.path = Path(path)
        self.board_id = board_id
        self._now = now
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = open_database(self.path)
        self._conn.row_factory = sqlite3.Row

    @staticmethod
    def default_path() -> Path:
        """``$XDG_DATA_HOME/tabletop-arbiter/games.sqlite3`` (``~/.local/share/...`` when the
        variable is unset or not absolute, as the XDG spec says); the directory is created when
        the database is first opened."""
        base = os.environ.get("XDG_DATA_HOME", "")
        root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
        return root / APP_DIR / DB_NAME

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RecorderError(f"{self.path}: the recorder is closed")
        return self._conn

    def _transaction(self) -> "_Transaction":
        return _Transaction(self)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Several writes (``start_game``, ``record``...) committed as one transaction, so a
        kill keeps all of them or none. A write refused inside is undone alone, as outside."""
        with self._transaction():
            yield

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """Several reads that see one state of the file, even while another process writes."""
        with self._lock:
            db = self._db
            if db.in_transaction:  # inside a batch: it already sees one state
                yield db
                return
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")

    def _stamp(self) -> str:
        return iso_utc(self._now())

    # -- writing -------------------------------------------------------------------------

    def start_game(self, rules: Rules, start_position: Any, *, players: Mapping[str, str] | None = None,
                   tags: Mapping[str, str] | None = None) -> int:
        """A new game on this board; returns its id. ``start_position`` is a position of
        ``rules`` or its string; ``players`` maps colours (``light``, ``white``...) to names,
        written as the Light/Dark or White/Black tags. A game of this board still in progress
        is marked abandoned in the same transaction."""
        if isinstance(start_position, str):
            start_position = rules.parse_position(start_position)
        start_text = rules.format_position(start_position)
        moment = self._now()
        base = dict(new_record(rules, start=start_position).tags)
        player_tags = _player_tags(rules, players or {})
        extra = dict(tags or {})
        for name, value in extra.items():
            if not isinstance(name, str) or not _TAG_NAME.fullmatch(name) or not isinstance(value, str):
                raise RecorderError(f"tag {name!r}: names are a letter then letters, digits or _, "
                                    "values are strings")
            if name in base and name != "Result" and base[name] != value:
                raise RecorderError(f"tag {name} is {base[name]!r} for these rules, not {value!r}")
            if name == "Result":
                raise RecorderError("the Result tag is set by game-over events, not at the start")
        local = moment.astimezone() if moment.tzinfo is not None else moment
        all_tags = {**base, "Board": self.board_id, "Date": f"{local:%Y.%m.%d}", **player_tags, **extra}
        all_tags["Result"] = "*"
        started = iso_utc(moment)
        with self._transaction() as db:
            db.execute("UPDATE games SET status = ?, ended = ? WHERE board = ? AND status = ?",
                       (ABANDONED, started, self.board_id, IN_PROGRESS))
            cur = db.execute(
                "INSERT INTO games (board, game, variant, tags, start, players, started) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (self.board_id, rules.game, rules.variant, json.dumps(all_tags, ensure_ascii=False),
                 start_text, json.dumps({c.lower(): n for c, n in (players or {}).items()}, ensure_ascii=False),
                 started))
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def set_players(self, game_id: int, players: Mapping[str, str]) -> None:
        """Name the players of a game (the ``set-players`` command): the colour tags follow."""
        with self._transaction() as db:
            row = self._game_row(db, game_id)
            tags = json.loads(row["tags"])
            try:
                rules = rules_from_tags(tags)
            except RulesError as exc:
                raise RecorderError(f"game {game_id}: its tags do not name valid rules: {exc}") from None
            new_tags = _player_tags(rules, players)
            merged = {**json.loads(row["players"]), **{c.lower(): n for c, n in players.items()}}
            db.execute("UPDATE games SET players = ?, tags = ? WHERE id = ?",
                       (json.dumps(merged, ensure_ascii=False), json.dumps({**tags, **new_tags}, ensure_ascii=False),
                        game_id))

    def record(self, game_id: int, event: Event) -> int:
        """Store ``event`` for game ``game_id`` and apply it (docs/recording.md says how each
        type changes the game); returns its seq. Nothing is stored when it cannot be applied."""
        data = event.to_json()
        try:
            line = json.dumps(data, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise RecorderError(f"{event.type} event for game {game_id}: not JSON-serialisable: {exc}") from None
        with self._transaction() as db:
            game = self._game_row(db, game_id)
            stamp = self._stamp()
            cur = db.execute("INSERT INTO events (game, type, t, data, recorded) VALUES (?, ?, ?, ?, ?)",
                             (game_id, event.type, event.t, line, stamp))
            seq = int(cur.lastrowid)  # type: ignore[arg-type]
            _apply(db, game, seq, event, stamp)
            return seq

    def delete(self, game_id: int) -> None:
        """Remove a game with its turns, events, episodes and takebacks."""
        with self._transaction() as db:
            self._game_row(db, game_id)
            for table in ("turns", "illegal_episodes", "takebacks", "events"):
                db.execute(f"DELETE FROM {table} WHERE game = ?", (game_id,))
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))

    # -- the MQTT outbox -----------------------------------------------------------------

    def unsent(self, limit: int = 100) -> list[tuple[int, dict[str, Any]]]:
        """This board's oldest events not yet marked sent, in seq order: ``(seq, event JSON)``
        where the JSON also carries ``seq`` and ``game_id`` (the recorder's game id). Boards
        sharing a database each publish only their own."""
        with self._lock:
            rows = self._db.execute("SELECT e.seq, e.game, e.data FROM events e JOIN games g ON g.id = e.game "
                                    "WHERE e.sent = 0 AND g.board = ? ORDER BY e.seq LIMIT ?",
                                    (self.board_id, int(limit))).fetchall()
        return [(seq, {**json.loads(data), "seq": seq, "game_id": game}) for seq, game, data in rows]

    def mark_sent(self, seq: int) -> bool:
        """Mark one event delivered; False when no such event exists (its game was deleted)."""
        with self._transaction() as db:
            cur = db.execute("UPDATE events SET sent = 1 WHERE seq = ?", (int(seq),))
            return cur.rowcount == 1

    # -- reading -------------------------------------------------------------------------

    def in_progress(self, board_id: str | None = None) -> GameState | None:
        """The latest unfinished game of the board (this recorder's by default), or None."""
        board = self.board_id if board_id is None else board_id
        with self._snapshot() as db:
            row = db.execute("SELECT * FROM games WHERE board = ? AND status = ? ORDER BY id DESC LIMIT 1",
                             (board, IN_PROGRESS)).fetchone()
            if row is None:
                return None
            game = _row(db, row)
            turns = _turns(db, game["id"])
            episodes = _episodes(db, game["id"])
            last = db.execute("SELECT MAX(seq) FROM events WHERE game = ?", (game["id"],)).fetchone()[0]
        flagged = next((e for e in reversed(episodes) if e.closed is None), None)
        position = turns[-1].position if turns else game["start"]
        return GameState(
            id=game["id"], board=game["board"], tags=_frozen(json.loads(game["tags"])), start=game["start"],
            turns=tuple(RecordedTurn(t.text, t.ts) for t in turns), players=_frozen(json.loads(game["players"])),
            started=game["started"], flagged=flagged, position=position, last_event=last)

    def list_games(self) -> list[GameSummary]:
        """Every game, oldest first."""
        with self._snapshot() as db:
            rows = db.execute(_SUMMARY_SQL + " ORDER BY g.id").fetchall()
            return [_summary(r) for r in _rows(db, rows)]

    def get_game(self, game_id: int) -> GameDetail:
        with self._snapshot() as db:
            rows = _rows(db, db.execute(_SUMMARY_SQL + " WHERE g.id = ?", (game_id,)).fetchall())
            if not rows:
                raise self._unknown(game_id)
            game = rows[0]
            count = db.execute("SELECT COUNT(*) FROM events WHERE game = ?", (game_id,)).fetchone()[0]
            return GameDetail(summary=_summary(game), tags=_frozen(json.loads(game["tags"])), start=game["start"],
                              turns=_turns(db, game_id), episodes=_episodes(db, game_id),
                              takebacks=_takebacks(db, game_id), events=count)

    def export(self, game_id: int, format: str = "pgn") -> str:
        """The game as a record in the foundation's text (``pgn``) or JSON format."""
        if format not in EXPORT_FORMATS:
            raise RecorderError(f"export format {format!r}: expected one of {', '.join(EXPORT_FORMATS)}")
        record = self.get_game(game_id).record()
        try:
            return write_text(record) if format == "pgn" else write_json(record)
        except RecordError as exc:
            raise RecorderError(f"game {game_id}: {exc}") from None

    def events(self, game_id: int) -> list[tuple[int, dict[str, Any]]]:
        """Every event of a game in order, as ``(seq, event JSON)``."""
        with self._snapshot() as db:
            self._game_row(db, game_id)
            rows = db.execute("SELECT seq, data FROM events WHERE game = ? ORDER BY seq", (game_id,)).fetchall()
        return [(seq, json.loads(data)) for seq, data in rows]

    # -- helpers -------------------------------------------------------------------------

    def _unknown(self, game_id: object) -> GameNotFound:
        return GameNotFound(f"no game {game_id} in {self.path}")

    def _game_row(self, db: sqlite3.Connection, game_id: int) -> dict[str, Any]:
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise RecorderError(f"game id must be an integer, not {game_id!r}")
        row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise self._unknown(game_id)
        return _row(db, row)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` under the recorder's lock; rolls back on any error and
    turns SQLite failures into RecorderError naming the file."""

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        self.nested = False

    def __enter__(self) -> sqlite3.Connection:
        self.recorder._lock.acquire()
        try:
            db = self.recorder._db
            self.nested = db.in_transaction  # inside a batch (its lock is ours): a savepoint
            db.execute("SAVEPOINT nested" if self.nested else "BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self.recorder._lock.release()
            raise RecorderError(f"{self.recorder.path}: cannot write: {exc}") from None
        except BaseException:
            self.recorder._lock.release()
            raise
        return db

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> bool:
        db = self.recorder._db
        try:
            if self.nested:
                if exc_type is not None:
                    db.execute("ROLLBACK TO nested")
                db.execute("RELEASE nested")
                if isinstance(exc, sqlite3.Error):
                    raise RecorderError(f"{self.recorder.path}: cannot write: {exc}") from None
                return False
            if exc_type is None:
                try:
                    db.execute("COMMIT")
                except sqlite3.Error as err:
                    db.execute("ROLLBACK")
                    raise RecorderError(f"{self.recorder.path}: cannot write: {err}") from None
                return False
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise RecorderError(f"{self.recorder.path}: cannot write: {exc}") from None
            return False
        finally:
            self.recorder._lock.release()


# -- applying events -----------------------------------------------------------------------


def _need(event: Event, name: str, kind: type | tuple[type, ...]) -> Any:
    value = event.data.get(name)
    if isinstance(value, bool) and kind is int or not isinstance(value, kind):
        want = getattr(kind, "__name__", None) or " or ".join(k.__name__ for k in kind)  # type: ignore[union-attr]
        raise RecorderError(f"{event.type} event: {name!r} must be a {want}, not {value!r}")
    return value


def _apply(db: sqlite3.Connection, game: Mapping[str, Any], seq: int, event: Event, stamp: str) -> None:
    """Change the game as ``event`` says (inside the caller's transaction)."""
    gid = game["id"]
    count = db.execute("SELECT COUNT(*) FROM turns WHERE game = ?", (gid,)).fetchone()[0]
    if event.type == ev.MOVE:
        number = _need(event, "turn", int)
        text = _need(event, "move", str)
        if game["status"] != IN_PROGRESS:
            raise RecorderError(f"game {gid} is {game['status']} ({game['result']}): move {number} ({text}) "
                                "cannot be recorded")
        if number != count + 1:
            raise RecorderError(f"game {gid}: move event for turn {number} ({text}) but {count} turns are "
                                f"recorded: expected turn {count + 1}")
        ts = event.data.get("ts")
        position = event.data.get("position")
        player = event.data.get("player")
        db.execute("INSERT INTO turns (game, number, turn, player, ts, position, event) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (gid, number, text, player if isinstance(player, str) else None,
                    ts if isinstance(ts, str) and ts else stamp,
                    position if isinstance(position, str) else None, seq))
    elif event.type == ev.TAKEBACK:
        to_turn = _need(event, "to_turn", int)
        undone = _need(event, "undone", list)
        if not 0 <= to_turn <= count:
            raise RecorderError(f"game {gid}: takeback to turn {to_turn} but {count} turns are recorded")
        removed = [r[0] for r in db.execute("SELECT turn FROM turns WHERE game = ? AND number > ? ORDER BY number",
                                            (gid, to_turn))]
        if list(undone) != removed:
            raise RecorderError(f"game {gid}: takeback to turn {to_turn} says it undoes {undone} but the "
                                f"recorded turns after {to_turn} are {removed}")
        db.execute("DELETE FROM turns WHERE game = ? AND number > ?", (gid, to_turn))
        db.execute("INSERT INTO takebacks (game, event, from_turn, to_turn, undone) VALUES (?, ?, ?, ?, ?)",
                   (gid, seq, count, to_turn, json.dumps(removed, ensure_ascii=False)))
        db.execute("UPDATE illegal_episodes SET closed = ?, closed_by = 'takeback' WHERE game = ? AND closed IS NULL",
                   (seq, gid))
        if game["status"] == FINISHED:  # a finished game taken back is played on
            db.execute("UPDATE games SET status = ?, result = '*', ended = NULL WHERE id = ?", (IN_PROGRESS, gid))
    elif event.type == ev.ILLEGAL:
        reason = _need(event, "reason", str)
        cells = event.data.get("cells", [])
        if not isinstance(cells, (list, tuple)):
            raise RecorderError(f"illegal event: 'cells' must be a list, not {cells!r}")
        open_ = db.execute("SELECT 1 FROM illegal_episodes WHERE game = ? AND closed IS NULL", (gid,)).fetchone()
        if open_ is None:  # later illegal events of the same flagged period stay in the events table
            db.execute("INSERT INTO illegal_episodes (game, opened, reason, cells) VALUES (?, ?, ?, ?)",
                       (gid, seq, reason, json.dumps(list(cells), ensure_ascii=False)))
    elif event.type == ev.RESTORED:
        db.execute("UPDATE illegal_episodes SET closed = ?, closed_by = 'restored' WHERE game = ? AND closed IS NULL",
                   (seq, gid))
    elif event.type == ev.GAME_OVER:
        result = event.data.get("result")
        if result not in RESULTS or result == "*":
            raise RecorderError(f"game-over event: 'result' must be 1-0, 0-1 or 1/2-1/2, not {result!r}")
        if game["status"] != IN_PROGRESS:
            raise RecorderError(f"game {gid} is already {game['status']} ({game['result']}): game-over "
                                f"{result} cannot be recorded")
        db.execute("UPDATE games SET result = ?, status = ?, ended = ? WHERE id = ?", (result, FINISHED, stamp, gid))
    # confirm-needed and new-game change nothing but are kept (and published) in order


# -- reading helpers -------------------------------------------------------------------------

_SUMMARY_SQL = ("SELECT g.*, (SELECT COUNT(*) FROM turns t WHERE t.game = g.id) AS turn_count FROM games g")


def _row(db: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    return dict(zip(row.keys(), row))


def _rows(db: sqlite3.Connection, rows: list[sqlite3.Row]) -> list[dict[str, Any]]:
    return [_row(db, r) for r in rows]


def _summary(game: Mapping[str, Any]) -> GameSummary:
    return GameSummary(id=game["id"], board=game["board"], game=game["game"], variant=game["variant"],
                       started=game["started"], ended=game["ended"], turns=game["turn_count"],
                       result=game["result"], status=game["status"], players=_frozen(json.loads(game["players"])))


def _turns(db: sqlite3.Connection, game_id: int) -> tuple[TurnRow, ...]:
    rows = db.execute("SELECT number, turn, player, ts, position, event FROM turns WHERE game = ? ORDER BY number",
                      (game_id,))
    return tuple(TurnRow(*r) for r in rows)


def _episodes(db: sqlite3.Connection, game_id: int) -> tuple[IllegalEpisode, ...]:
    rows = db.execute(
        "SELECT i.id, i.opened, i.closed, i.closed_by, i.reason, i.cells, o.recorded, c.recorded "
        "FROM illegal_episodes i JOIN events o ON o.seq = i.opened LEFT JOIN events c ON c.seq = i.closed "
        "WHERE i.game = ? ORDER BY i.id", (game_id,))
    return tuple(IllegalEpisode(id=r[0], opened=r[1], closed=r[2], closed_by=r[3], reason=r[4],
                                cells=tuple(_frozen(c) if isinstance(c, dict) else c for c in json.loads(r[5])),
                                opened_at=r[6], closed_at=r[7]) for r in rows)


def _takebacks(db: sqlite3.Connection, game_id: int) -> tuple[Takeback, ...]:
    rows = db.execute("SELECT k.id, k.event, k.from_turn, k.to_turn, k.undone, e.recorded FROM takebacks k "
                      "JOIN events e ON e.seq = k.event WHERE k.game = ? ORDER BY k.id", (game_id,))
    return tuple(Takeback(id=r[0], event=r[1], from_turn=r[2], to_turn=r[3], undone=tuple(json.loads(r[4])), at=r[5])
                 for r in rows)
