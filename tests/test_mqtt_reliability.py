"""Delivery when the broker goes away: Mosquitto killed and restarted mid-stream, the embedded
broker stopped and started again, a daemon started before its broker, and events kept in the
recorder's SQLite database across a daemon restart. Every event arrives, in seq order; a
subscriber that drops seqs it has already handled sees each exactly once."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from conftest_mqtt import (TIMEOUT, Mosquitto, Subscriber, free_port, in_order, move_event, pylos_state,
                           wait_until)
from host.broker import EmbeddedBroker
from host.mqtt import MqttLink
from host.mqtt_outbox import MemoryOutbox

BOARD = "hall"
T = f"arbiter/{BOARD}"


def fast_link(port: int, **options: Any) -> MqttLink:
    return MqttLink(**{"board_id": BOARD, "url": f"mqtt://127.0.0.1:{port}", "token": "tok",
                       "reconnect_min": 0.05, "reconnect_max": 0.3, "inflight": 8, **options})


def check_stream(sub: Subscriber, last: int) -> None:
    """All of 1..last arrived; dropping already-handled seqs leaves exactly 1..last in order;
    every copy of an event is the same event."""
    events = sub.events(BOARD)
    seqs = [e["seq"] for e in events]
    assert in_order(seqs) == list(range(1, last + 1)), str(seqs)
    for event in events:
        assert event == {"seq": event["seq"], **move_event(event["seq"])}


class Broker:
    """Stop and start one broker kind on a fixed port."""

    def __init__(self, kind: str, tmp_path: Path):
        self.kind = kind
        self.port = free_port()
        self.mosquitto = Mosquitto(tmp_path, self.port) if kind == "mosquitto" else None
        self.embedded: EmbeddedBroker | None = None

    def start(self) -> None:
        if self.mosquitto is not None:
            self.mosquitto.start()
        else:
            self.embedded = EmbeddedBroker(port=self.port)
            self.embedded.start()

    def crash(self, clean: bool = False) -> None:
        """Mosquitto: SIGKILL (SIGTERM when ``clean``). The embedded broker: shut down, its
        client connections dropped (it cannot be killed alone)."""
        if self.mosquitto is not None:
            if clean:
                self.mosquitto.stop()
            else:
                self.mosquitto.kill()
        elif self.embedded is not None:
            self.embedded.stop()
            self.embedded = None

    def stop(self) -> None:
        if self.mosquitto is not None:
            self.mosquitto.stop()
        elif self.embedded is not None:
            self.embedded.stop()
            self.embedded = None


@pytest.fixture(params=["mosquitto", "embedded"])
def broker(request: pytest.FixtureRequest, tmp_path: Path):
    b = Broker(request.param, tmp_path)
    b.start()
    yield b
    b.stop()


def test_broker_restarted_mid_stream_loses_and_reorders_nothing(broker: Broker) -> None:
    outbox = MemoryOutbox()
    link = fast_link(broker.port, outbox=outbox)
    sub = Subscriber(broker.port, f"{T}/#").connect()
    link.start()
    try:
        assert link.wait_connected(TIMEOUT)
        link.publish_state(pylos_state(BOARD, turn=0))
        last = 0
        for cycle in range(3):
            # a burst larger than the in-flight window, the broker dies while it is going out
            for _ in range(60):
                last += 1
                outbox.add(move_event(last))
                link.publish_event(last, move_event(last))
            assert wait_until(lambda: len(sub.on(f"{T}/events")) >= last - 45, link=link)
            broker.crash(clean=cycle == 1)
            assert outbox.pending > 0  # the broker went while events were still going out
            assert wait_until(lambda: not link.connected and not sub.subscribed.is_set())
            # the game goes on while the broker is away
            for _ in range(25):
                last += 1
                outbox.add(move_event(last))
                link.publish_event(last, move_event(last))
            link.publish_state(pylos_state(BOARD, turn=last))
            assert outbox.pending >= 25
            broker.start()  # same port, no persistence: the broker remembers nothing
            # the display is back before the daemon's link resumes the events
            assert wait_until(sub.subscribed.is_set), f"cycle {cycle}: the subscriber did not come back"
            assert wait_until(lambda: link.connected), f"cycle {cycle}: the link did not reconnect"
            assert wait_until(lambda: outbox.pending == 0 and bool(sub.seqs(BOARD)) and sub.seqs(BOARD)[-1] == last,
                              link=link), f"cycle {cycle}: events missing: {in_order(sub.seqs(BOARD))[-5:]}"
            check_stream(sub, last)
        # the retained state was republished after the reconnect: a new display gets the latest
        with Subscriber(broker.port, f"{T}/state") as late:
            assert wait_until(lambda: late.last(f"{T}/state") is not None)
            assert late.last(f"{T}/state").json() == pylos_state(BOARD, turn=last)
        assert sub.texts(f"{T}/status").count("online") >= 4  # status republished on each connect
    finally:
        link.stop(timeout=1.0)
        sub.close()


def test_a_link_started_before_its_broker_connects_when_it_comes(tmp_path: Path) -> None:
    broker = Broker("mosquitto", tmp_path)
    link = fast_link(broker.port)
    link.start()
    try:
        link.publish_state(pylos_state(BOARD, turn=4, to_move="light"))
        for n in (1, 2, 3):
            link.publish_event(n, move_event(n))
        assert not link.connected
        broker.start()
        with Subscriber(broker.port, f"{T}/#") as sub:
            assert wait_until(lambda: link.connected)
            assert wait_until(lambda: sub.seqs(BOARD) == [1, 2, 3], link=link)
            assert wait_until(lambda: sub.texts(f"{T}/turn") == ["light"])
    finally:
        link.stop(timeout=1.0)
        broker.stop()


def test_reconnect_back_off_doubles_up_to_its_maximum(caplog: pytest.LogCaptureFixture) -> None:
    """Against a closed port, each failed attempt waits twice as long as the one before, up to
    the maximum. Only lower bounds are checked (a sleep never ends early), so a slow machine
    cannot fail this test; a fixed delay of the minimum would."""
    port = free_port()
    link = fast_link(port, reconnect_min=0.2, reconnect_max=0.8)
    caplog.set_level(logging.WARNING, logger="host.mqtt")

    def failures() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "cannot connect" in r.getMessage()]

    link.start()
    try:
        assert wait_until(lambda: len(failures()) >= 5)
        assert not link.connected
    finally:
        link.stop(timeout=0.5)
    times = [r.created for r in failures()[:5]]
    waits = [b - a for a, b in zip(times, times[1:])]
    for wait, least in zip(waits, [0.2, 0.4, 0.8, 0.8]):
        assert wait >= least * 0.9, waits
    assert f"127.0.0.1:{port}" in failures()[0].getMessage()


def test_events_wait_in_the_recorder_across_a_daemon_restart(tmp_path: Path) -> None:
    """The outbox is the recorder's SQLite database: events recorded while the broker is down
    and the daemon then stops are delivered, in order, by the next daemon."""
    recorder_module = pytest.importorskip("host.recorder")
    from host.events import Event
    from host.games import rules_for

    rules = rules_for("pylos")
    broker = Broker("mosquitto", tmp_path)
    broker.start()
    db = tmp_path / "games.sqlite3"
    recorder = recorder_module.Recorder(db, board_id=BOARD)
    game = recorder.start_game(rules, rules.start())
    sub = Subscriber(broker.port, f"{T}/events").connect()
    link = fast_link(broker.port, outbox=recorder)
    link.start()
    try:
        assert link.wait_connected(TIMEOUT)
        seqs = []
        for n in range(1, 6):
            seq = recorder.record(game, Event.from_json(move_event(n)))
            seqs.append(seq)
            link.publish_event(seq, move_event(n))
        assert wait_until(lambda: len(sub.on(f"{T}/events")) == 5 and not recorder.unsent(10), link=link)
        broker.crash()
        assert wait_until(lambda: not link.connected)
        for n in range(6, 16):
            seq = recorder.record(game, Event.from_json(move_event(n)))
            seqs.append(seq)
            link.publish_event(seq, move_event(n))
        link.stop(timeout=0.5)  # the daemon stops while the broker is still away
        recorder.close()
        broker.start()
        assert wait_until(sub.subscribed.is_set)
        recorder = recorder_module.Recorder(db, board_id=BOARD)
        assert [seq for seq, _ in recorder.unsent(100)] == seqs[5:]
        link = fast_link(broker.port, outbox=recorder)
        link.start()
        assert wait_until(lambda: not recorder.unsent(100) and len(in_order(sub.seqs(BOARD))) == 15, link=link)
        events = sub.events(BOARD)
        assert in_order([e["seq"] for e in events]) == seqs
        assert [e["turn"] for e in events if e["seq"] in seqs] == list(range(1, 16))
        assert all(e["game_id"] == game and e["type"] == "move" for e in events)
    finally:
        link.stop(timeout=0.5)
        recorder.close()
        sub.close()
        broker.stop()
