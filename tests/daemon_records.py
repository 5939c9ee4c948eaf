"""What a daemon left in its database, compared with the simulator's ground truth and with what
an MQTT subscriber received (shared by the crash, crash-point and broker-restart tests)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Sequence

from conftest_mqtt import in_order
from host.record import read_text, replay
from host.recorder import Recorder


def query(db: Path, sql: str, *args: Any) -> list[tuple]:
    """A read of the database file, outside the Recorder (the daemon may be running or dead);
    no rows while the daemon has not created it yet."""
    if not db.exists():
        return []  # (connecting would create an empty file)
    conn = sqlite3.connect(str(db), timeout=10)
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []  # the daemon is creating it
        raise
    finally:
        conn.close()


def unsent(db: Path) -> int:
    """Events still waiting in the outbox (not acknowledged by the broker)."""
    rows = query(db, "SELECT COUNT(*) FROM events WHERE sent = 0")
    return rows[0][0] if rows else 0


def last_event_t(db: Path) -> float:
    """The source time of the last recorded event (0 when there is none)."""
    rows = query(db, "SELECT t FROM events ORDER BY seq DESC LIMIT 1")
    return float(rows[0][0]) if rows else 0.0


def recorded_positions(db: Path, game_id: int) -> list[str]:
    """The start position and the position after each turn, from the game as exported."""
    with Recorder(db) as recorder:
        record = read_text(recorder.export(game_id))
    result = replay(record)
    assert result.ok, result.error
    return [result.rules.format_position(p) for p in result.positions]


def game_records(db: Path) -> list[dict[str, Any]]:
    """Every game as a comparable value: status, result, positions, the illegal-move episodes
    (how each ended) and the takebacks."""
    out = []
    with Recorder(db) as recorder:
        summaries = recorder.list_games()
        details = [recorder.get_game(g.id) for g in summaries]
        firsts = [recorder.events(g.id)[:1] for g in summaries]
    for summary, detail, first in zip(summaries, details, firsts):
        out.append({"id": summary.id, "status": summary.status, "result": summary.result, "start": detail.start,
                    "positions": [t.position for t in detail.turns],
                    "episodes": [e.closed_by for e in detail.episodes],
                    "takebacks": [(t.from_turn, t.to_turn, t.undone) for t in detail.takebacks],
                    "first_event": first[0][1]["type"] if first else None})
    return out


def without_ids(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "id"} for r in records]


def check_against_truth(db: Path, played: Sequence[Any]) -> None:
    """Every simulated game is in the database, finished, turn for turn as the simulator played
    it, with one episode closed by ``restored`` per injected illegal move and one takeback per
    takeback made. The one accepted difference: a game-ending turn the board could not tell
    from others, that nobody confirmed, is recorded as the first candidate with the others
    under ``unconfirmed``; the true turn must be among them."""
    records = game_records(db)
    assert [r["status"] for r in records] == ["finished"] * len(played), (
        f"{len(records)} games recorded, {len(played)} played; not finished: "
        f"{[(r['id'], r['status']) for r in records if r['status'] != 'finished']}; turns recorded "
        f"{[len(r['positions']) for r in records]}, played {[len(g.truth.turns) for g in played]}")
    with Recorder(db) as recorder:
        moves = {r["id"]: [e for _, e in recorder.events(r["id"]) if e["type"] == "move"] for r in records}
    for number, (sim, record) in enumerate(zip(played, records), start=1):
        truth = sim.truth
        assert record["first_event"] == "new-game", f"game {number}: starts with {record['first_event']}"
        got, want = recorded_positions(db, record["id"]), [truth.start, *truth.positions]
        open_turns = {e["turn"]: [e["move"], *e["unconfirmed"]] for e in moves[record["id"]] if "unconfirmed" in e}
        for k, (g, w) in enumerate(zip(got, want)):
            if k in open_turns:
                assert truth.turns[k - 1] in open_turns[k], f"game {number} turn {k}"
            else:
                assert g == w, f"game {number} position {k}"
        assert len(got) == len(want), f"game {number}: {len(got) - 1} turns recorded, {len(want) - 1} played"
        assert record["result"] == truth.result, f"game {number}"
        assert record["episodes"] == ["restored"] * len(truth.illegal), \
            f"game {number}: episodes {record['episodes']}, {len(truth.illegal)} illegal moves made"
        # (the undone turns' texts may be other texts of the same positions)
        assert [(t[1], len(t[2])) for t in record["takebacks"]] == \
            [(tb.to_turn, len(tb.undone)) for tb in truth.takebacks], f"game {number}: takebacks"


def stored_events(db: Path) -> list[tuple[int, dict[str, Any]]]:
    """(seq, published payload) of every recorded event, in seq order: what the outbox sends."""
    with Recorder(db) as recorder:
        games = [g.id for g in recorder.list_games()]
        rows = [(seq, {**event, "seq": seq, "game_id": game}) for game in games for seq, event in recorder.events(game)]
    return sorted(rows, key=lambda row: row[0])


def check_delivery(db: Path, received: list[dict[str, Any]]) -> int:
    """Every recorded event reached the subscriber, first copies in seq order, every copy equal
    to what was recorded; no event that was not recorded. Returns the number of duplicates
    (QoS 1 around a reconnect or a daemon restart; a subscriber drops them by seq)."""
    stored = dict(stored_events(db))
    seqs = [e["seq"] for e in received]
    missing = sorted(set(stored) - set(seqs))
    assert not missing, f"{len(missing)} recorded events never arrived: {missing[:10]}"
    assert in_order(seqs) == sorted(stored), "an event arrived for the first time after a later one"
    for event in received:
        assert event["seq"] in stored, f"seq {event['seq']} arrived but was never recorded"
        assert event == stored[event["seq"]], f"seq {event['seq']} differs from the recorded event"
    return len(seqs) - len(stored)
