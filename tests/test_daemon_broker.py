"""The whole daemon against a real Mosquitto that goes away mid-game: `arbiter run` on the
simulator, the broker stopped (SIGTERM) and killed (SIGKILL), restarted on the same port after
a pause, while a display keeps a persistent session. tests/test_mqtt_reliability.py does the
same to the MQTT link alone; here the events come from the referee and the recorder's outbox
of a daemon that keeps playing while the broker is away."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest_mqtt import Mosquitto, Subscriber, wait_until
from daemon_records import check_delivery, query, stored_events, unsent

ROOT = Path(__file__).resolve().parent.parent
BOARD = "brk"
T = f"arbiter/{BOARD}"
#: the daemon's status line (daemon.publish_state), its final state as the daemon itself saw it
STATUS_LINE = re.compile(r"^\[(?P<board>[^\]]+)\] (?P<game>\S+) (?P<variant>\S+) \| turn (?P<turn>\d+) \| "
                         r"(?:(?P<to_move>\S+) to move|result (?P<result>\S+)) \| (?P<status>[a-z-]+)"
                         r"(?: \| last (?P<last_move>.+))?$")


def mid_game(db: Path, min_turns: int) -> bool:
    """The last thing recorded is a move of a game under way with at least ``min_turns`` turns."""
    rows = query(db, "SELECT e.type, g.status, (SELECT COUNT(*) FROM turns WHERE game = g.id) "
                     "FROM events e JOIN games g ON g.id = e.game ORDER BY e.seq DESC LIMIT 1")
    return bool(rows) and rows[0][0] == "move" and rows[0][1] == "in-progress" and rows[0][2] >= min_turns


def last_seq(db: Path) -> int:
    rows = query(db, "SELECT COALESCE(MAX(seq), 0) FROM events")
    return rows[0][0] if rows else 0


def final_state(stdout: str) -> dict[str, Any]:
    """The state of the daemon's last status line, in the fields of the retained state."""
    match = STATUS_LINE.match(stdout.strip().splitlines()[-1])
    assert match, stdout[-500:]
    found = match.groupdict()
    return {"board": found["board"], "game": found["game"], "variant": found["variant"], "turn": int(found["turn"]),
            "to_move": None if found["to_move"] in (None, "nobody") else found["to_move"],
            "status": found["status"], "last_move": found["last_move"]}


def test_broker_stopped_and_killed_mid_game_loses_and_reorders_no_event(tmp_path):
    """What this proves, and how. The display subscribes with a persistent session (fixed
    client id, clean_session false, QoS 1) before the daemon starts, on a Mosquitto that saves
    its sessions, queued messages and retained messages at a clean stop only. Every
    reconnection must find the display's session (``session present``), so what it receives
    does not depend on whether it or the daemon reconnects first, and "no event lost" can be
    proved rather than hoped for. Three outages, each in a later game:

    1. SIGTERM: the broker saves everything and comes back with it.
    2. SIGKILL while the display is offline: the broker has acknowledged to the daemon the
       events it was queueing for the display, and loses them (nothing saved since the last
       clean stop). Only the daemon can give them back: after reconnecting it republishes its
       last 64 acknowledged events (docs/mqtt.md); without that they would be lost.
    3. SIGKILL with the display online: what was on its way is lost; the retained state
       comes back stale from the last save and the daemon must replace it.

    Meanwhile the daemon referees on: the events recorded while the broker is away wait in
    the recorder's outbox and are delivered after the reconnection (the outbox empties).

    The recorder's database is the truth: at the end every recorded event has reached the
    display, the first copy of each in seq order, each copy equal to the recorded event, and
    nothing that was not recorded. Exactly once is not promised (QoS 1, and the republished
    events): duplicates are counted, and a display drops them by seq. After each restart the
    daemon says ``online`` again; after its clean stop the retained state and turn are the
    daemon's last state (its last status line) and the status is ``offline``."""
    broker = Mosquitto(tmp_path, persistence=True, autosave=False).start()
    display = Subscriber(broker.port, f"{T}/#", client_id="display-brk", clean_session=False).connect()
    db = tmp_path / "games.sqlite3"
    config = tmp_path / "arbiter.toml"
    config.write_text(f'board_id = "{BOARD}"\ngame = "pylos"\n[mqtt]\nurl = "{broker.url}"\n')
    out, err = tmp_path / "daemon.out", tmp_path / "daemon.err"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(out, "w") as stdout, open(err, "w") as stderr:
        daemon = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--config", str(config), "--db", str(db),
                                   "--source", "sim:seed=3,game=pylos,games=0,speed=40,hands=0.1,illegal=0.1,"
                                               "takeback=0.1"],
                                  cwd=ROOT, env=env, stdout=stdout, stderr=stderr, text=True)
    outages = []
    try:
        for number, (stop, offline) in enumerate([(broker.stop, False), (broker.kill, True), (broker.kill, False)]):
            # well into a game (each outage lands in a later one: about 45 turns a game)
            assert wait_until(lambda: mid_game(db, 5 + 10 * number) and last_seq(db) > 80 * number, timeout=60), \
                err.read_text()[-2000:]
            if offline:
                display.go_offline()
                missed = last_seq(db)
                assert wait_until(lambda: last_seq(db) >= missed + 8, timeout=30)  # queued for it, acknowledged
                time.sleep(0.2)
            stop()
            stopped_at = last_seq(db)
            assert wait_until(lambda: not display.subscribed.is_set())
            time.sleep(1.5)
            # the daemon refereed on, recording into the outbox
            backlog = unsent(db)
            assert last_seq(db) > stopped_at and backlog > 0, "nothing happened while the broker was away"
            restart = display.count()
            broker.start()
            if offline:
                display.come_back()
            assert wait_until(display.subscribed.is_set), "the display did not come back"
            assert display.sessions_present[-1], "the broker lost the display's session"
            # the daemon reconnects (its back-off is 0.5 s doubling), says online again, delivers
            assert wait_until(lambda: any(m.topic == f"{T}/status" and m.payload == b"online" and not m.retain
                                          for m in display.since(restart)), timeout=30), err.read_text()[-2000:]
            assert wait_until(lambda: unsent(db) == 0, timeout=30), "the backlog was not delivered"
            outages.append((stop.__name__ + (" (display offline)" if offline else ""), stopped_at, backlog))
        assert wait_until(lambda: last_seq(db) > outages[-1][1] + 60, timeout=60)  # and plays on
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=30) == 0, err.read_text()[-2000:]
        assert unsent(db) == 0
        stored = [seq for seq, _ in stored_events(db)]
        assert wait_until(lambda: stored[-1] in display.seqs(BOARD)), "the last events did not arrive"
        duplicates = check_delivery(db, display.events(BOARD))
        state = final_state(out.read_text())
        with Subscriber(broker.port, f"{T}/#") as late:  # a display arriving now: the retained messages
            assert wait_until(lambda: all(late.last(f"{T}/{t}") for t in ("state", "status", "turn")))
            retained = late.last(f"{T}/state").json()
            assert {k: retained[k] for k in state} == state
            assert late.last(f"{T}/status").payload == b"offline"
            assert late.last(f"{T}/turn").payload.decode() == (state["to_move"] or "none")
    finally:
        if daemon.poll() is None:
            daemon.kill()
        display.close()
        broker.stop()
    print(f"\n{len(stored)} events recorded and delivered, {duplicates} duplicates; outages (how, last seq "
          f"before, events recorded while away): {outages}; {display.texts(f'{T}/status').count('online')} "
          f"online messages")
