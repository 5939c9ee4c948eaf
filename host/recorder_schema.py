"""Opening the recorder's SQLite file safely: recognise our databases, create fresh ones,
refuse anything else without touching it (docs/recording.md describes the schema).

A file is ours when its SQLite ``application_id`` is :data:`APPLICATION_ID` and its ``meta``
table names the schema version. A file that is not SQLite is rejected from its first bytes,
before SQLite ever opens it, so it cannot be changed by accident.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: the schema this program writes; a file with a higher version comes from a newer program
SCHEMA_VERSION = 1
#: SQLite's application_id header field for our files: "TArb"
APPLICATION_ID = 0x54417262
SQLITE_HEADER = b"SQLite format 3\x00"
#: how long a writer waits for another process holding the write lock (``arbiter games delete``
#: while the daemon records)
BUSY_TIMEOUT_S = 10.0

SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE games (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    board   TEXT NOT NULL,
    game    TEXT NOT NULL,
    variant TEXT NOT NULL,
    tags    TEXT NOT NULL,
    start   TEXT NOT NULL,
    players TEXT NOT NULL DEFAULT '{}',
    started TEXT NOT NULL,
    ended   TEXT,
    result  TEXT NOT NULL DEFAULT '*' CHECK (result IN ('*', '1-0', '0-1', '1/2-1/2')),
    status  TEXT NOT NULL DEFAULT 'in-progress'
            CHECK (status IN ('in-progress', 'finished', 'abandoned'))
);
CREATE INDEX games_board_status ON games (board, status, id);
CREATE TABLE events (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    game     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    type     TEXT NOT NULL,
    t        REAL NOT NULL,
    data     TEXT NOT NULL,
    recorded TEXT NOT NULL,
    sent     INTEGER NOT NULL DEFAULT 0 CHECK (sent IN (0, 1))
);
CREATE INDEX events_game ON events (game, seq);
CREATE INDEX events_unsent ON events (seq) WHERE sent = 0;
CREATE TABLE turns (
    game     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    number   INTEGER NOT NULL CHECK (number >= 1),
    turn     TEXT NOT NULL,
    player   TEXT,
    ts       TEXT NOT NULL,
    position TEXT,
    event    INTEGER NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    PRIMARY KEY (game, number)
);
CREATE TABLE illegal_episodes (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    game      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    opened    INTEGER NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    closed    INTEGER REFERENCES events (seq) ON DELETE SET NULL,
    closed_by TEXT CHECK (closed_by IN ('restored', 'takeback')),
    reason    TEXT NOT NULL,
    cells     TEXT NOT NULL
);
CREATE INDEX illegal_episodes_game ON illegal_episodes (game, id);
CREATE TABLE takebacks (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    game      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    event     INTEGER NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    from_turn INTEGER NOT NULL,
    to_turn   INTEGER NOT NULL,
    undone    TEXT NOT NULL
);
CREATE INDEX takebacks_game ON takebacks (game, id);
"""


class RecorderError(ValueError):
    """A recorder database that cannot be used, or a request it cannot honour; the message
    names the file or the game and says what to do."""


class GameNotFound(RecorderError):
    """No game with the id asked for (``arbiter games`` exits 1 on it, not 2)."""


def not_ours(path: Path, why: str) -> RecorderError:
    return RecorderError(f"{path} is not a Tabletop Arbiter database ({why}): "
                         "move it aside or choose another with --db")


def corrupt(path: Path, detail: str) -> RecorderError:
    detail = "; ".join(line.strip() for line in detail.splitlines() if line.strip())
    return RecorderError(f"{path} is a corrupt Tabletop Arbiter database ({detail}): move it aside "
                         "(sqlite3's .recover command may save its games) or choose another with --db")


def _check_header(path: Path) -> bool:
    """True when ``path`` holds data (it is then SQLite or an error is raised), False when it
    is missing or empty (a fresh database will be created)."""
    if path.is_dir():
        raise RecorderError(f"{path} is a directory, not a database file: choose a file with --db")
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise RecorderError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not head:
        return False
    if head != SQLITE_HEADER:
        raise not_ours(path, "file is not a database")
    return True


def _version(conn: sqlite3.Connection, path: Path) -> int | None:
    """The schema version of an existing file, None for an empty SQLite database."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                         "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    if app_id == 0 and not tables:
        return None
    if app_id != APPLICATION_ID or "meta" not in tables:
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise not_ours(path, f"a SQLite database of another program, with tables {shown or 'none'}")
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or not str(row[0]).isdigit():
        raise not_ours(path, "its meta table has no valid schema_version")
    return int(row[0])


def open_database(path: Path) -> sqlite3.Connection:
    """A connection to our database at ``path`` in WAL mode with ``synchronous=FULL``,
    creating the file (and its directory) when it does not exist."""
    existing = _check_header(path)
    if not existing:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RecorderError(f"{path.parent}: cannot create the directory: {exc.strerror or exc}") from None
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                               timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise RecorderError(f"{path}: cannot open: {exc}") from None
    try:
        version = _version(conn, path)
        if version is not None and version > SCHEMA_VERSION:
            raise RecorderError(
                f"{path} was written by a newer Tabletop Arbiter (schema version {version}; this program "
                f"reads up to {SCHEMA_VERSION}): upgrade arbiter or choose another database with --db")
        if version is not None and version < 1:
            raise not_ours(path, f"unknown schema version {version}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        if version is None:
            _create(conn, path)
        else:
            problems = [r[0] for r in conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise corrupt(path, "; ".join(problems))
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode.lower() != "wal":
            raise RecorderError(f"{path}: SQLite refused the WAL journal (mode {mode}): "
                                "is it on a network file system?")
        return conn
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise corrupt(path, str(exc)) from None
    except BaseException:
        conn.close()
        raise


def _create(conn: sqlite3.Connection, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _version(conn, path) is None:  # nobody created it meanwhile
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?), ('application', ?)",
                         (str(SCHEMA_VERSION), "tabletop-arbiter"))
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
