"""The MQTT link against a real Mosquitto and against the embedded amqtt broker: retained
state, turn and status, events in order with their seq, the last will, commands with and
without a token, malformed commands answered on cmd/reply."""

from __future__ import annotations

import json
import queue
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest_mqtt import (TIMEOUT, Mosquitto, Subscriber, free_port, link_process, move_event, pylos_state,
                           wait_until)
from host.broker import EmbeddedBroker
from host.mqtt import MqttLink
from host.mqtt_commands import Command
from host.mqtt_outbox import MemoryOutbox

BOARD = "kitchen"
TOKEN = "s3cret-token"
T = f"arbiter/{BOARD}"


class Setup:
    """One broker kind: Mosquitto started by the test, or the embedded broker that the link
    itself starts (url None)."""

    def __init__(self, kind: str, tmp_path: Path):
        self.kind = kind
        self.port = free_port()
        self.mosquitto = Mosquitto(tmp_path, self.port).start() if kind == "mosquitto" else None
        self.links: list[MqttLink] = []
        self.subscribers: list[Subscriber] = []

    def link(self, *, join: bool = False, **options: Any) -> MqttLink:
        """A started link; ``join``: connect to the embedded broker another link started."""
        where: dict[str, Any] = ({"url": f"mqtt://127.0.0.1:{self.port}"} if self.mosquitto or join
                                 else {"url": None, "embedded_port": self.port})
        link = MqttLink(**{"board_id": BOARD, "token": TOKEN, "reconnect_min": 0.05, "reconnect_max": 0.5,
                           **where, **options})
        link.start()
        self.links.append(link)
        assert link.wait_connected(TIMEOUT), f"the link did not connect to the {self.kind} broker"
        return link

    def subscriber(self, topic_filter: str = f"{T}/#") -> Subscriber:
        sub = Subscriber(self.port, topic_filter).connect()
        self.subscribers.append(sub)
        return sub

    def close(self) -> None:
        for sub in self.subscribers:
            sub.close()
        for link in self.links:
            link.stop(timeout=1.0)
        if self.mosquitto is not None:
            self.mosquitto.stop()


@pytest.fixture(params=["mosquitto", "embedded"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    s = Setup(request.param, tmp_path)
    yield s
    s.close()


def test_state_and_turn_are_retained_for_a_late_subscriber(setup: Setup) -> None:
    link = setup.link()
    link.publish_state(pylos_state(BOARD, turn=3, to_move="dark"))
    first = setup.subscriber()
    assert wait_until(lambda: first.last(f"{T}/turn") is not None and first.last(f"{T}/state") is not None)
    # a display that comes later still gets the current state: it is retained
    late = setup.subscriber()
    assert wait_until(lambda: late.last(f"{T}/state") is not None and late.last(f"{T}/turn") is not None
                      and late.last(f"{T}/status") is not None)
    state = late.last(f"{T}/state")
    assert state is not None and state.retain and state.json() == pylos_state(BOARD, turn=3, to_move="dark")
    assert late.texts(f"{T}/turn") == ["dark"] and late.on(f"{T}/turn")[0].retain
    assert late.texts(f"{T}/status") == ["online"]


def test_turn_follows_the_state_and_is_none_when_the_game_is_over(setup: Setup) -> None:
    link = setup.link()
    sub = setup.subscriber()
    link.publish_state(pylos_state(BOARD, turn=0, to_move="light"))
    link.publish_state(pylos_state(BOARD, turn=1, to_move="dark"))
    link.publish_state(pylos_state(BOARD, turn=2, status="flagged", to_move="light"))
    link.publish_state(pylos_state(BOARD, turn=3, status="finished", to_move="dark"))
    sparks = {**pylos_state(BOARD), "game": "sparks", "to_move": "white"}
    link.publish_state(sparks)
    assert wait_until(lambda: len(sub.on(f"{T}/turn")) == 5)
    assert sub.texts(f"{T}/turn") == ["light", "dark", "light", "none", "white"]
    assert [m.json()["turn"] for m in sub.on(f"{T}/state")] == [0, 1, 2, 3, 0]
    late = setup.subscriber()
    assert wait_until(lambda: late.last(f"{T}/turn") is not None)
    assert late.texts(f"{T}/turn") == ["white"]


def test_events_arrive_in_order_with_their_seq_at_qos_1_and_are_marked_sent(setup: Setup) -> None:
    outbox = MemoryOutbox()
    link = setup.link(outbox=outbox, inflight=8)
    sub = setup.subscriber(f"{T}/events")
    for n in range(1, 121):
        outbox.add(move_event(n))
        link.publish_event(n, move_event(n))
    assert wait_until(lambda: len(sub.on(f"{T}/events")) >= 120 and outbox.pending == 0, link=link)
    messages = sub.on(f"{T}/events")
    assert [m.json()["seq"] for m in messages] == list(range(1, 121))
    assert all(m.qos == 1 and not m.retain for m in messages)
    assert messages[6].json() == {"seq": 7, **move_event(7)}
    assert outbox.unsent(10) == []


def test_the_link_keeps_its_own_memory_outbox_without_a_recorder(setup: Setup) -> None:
    link = setup.link()
    sub = setup.subscriber(f"{T}/events")
    link.publish_event(1, {"t": 0.5, "type": "restored", "position": "p"})
    link.publish_event(2, {"t": 0.7, "type": "confirm-needed", "question": "which?", "candidates": ["a", "b"]})
    assert wait_until(lambda: len(sub.on(f"{T}/events")) == 2, link=link)
    assert [e["type"] for e in sub.events(BOARD)] == ["restored", "confirm-needed"]
    assert sub.events(BOARD)[1]["candidates"] == ["a", "b"]
    with pytest.raises(ValueError, match="not after the last one"):
        link.publish_event(2, {"t": 1, "type": "restored"})


def test_status_is_online_then_offline_after_a_clean_stop(setup: Setup) -> None:
    link = setup.link()
    sub = setup.subscriber()
    assert wait_until(lambda: sub.texts(f"{T}/status") == ["online"])
    if setup.kind == "embedded":
        # the broker goes with the link: the offline message is the last thing it passes on
        link.stop()
        assert wait_until(lambda: sub.texts(f"{T}/status")[-1:] == ["offline"])
        return
    link.stop()
    assert wait_until(lambda: sub.texts(f"{T}/status") == ["online", "offline"])
    late = setup.subscriber()
    assert wait_until(lambda: late.last(f"{T}/status") is not None)
    status = late.last(f"{T}/status")
    assert status is not None and status.retain and status.payload == b"offline"


@pytest.mark.parametrize("kind", ["mosquitto", "embedded"])
def test_the_last_will_says_offline_when_the_daemon_dies(kind: str, tmp_path: Path) -> None:
    port = free_port()
    broker: Any = Mosquitto(tmp_path, port).start() if kind == "mosquitto" else EmbeddedBroker(port=port)
    if kind == "embedded":
        broker.start()
    try:
        with Subscriber(port, f"{T}/status") as sub:
            daemon = link_process(BOARD, f"mqtt://127.0.0.1:{port}")
            try:
                assert wait_until(lambda: sub.texts(f"{T}/status") == ["online"])
            finally:
                daemon.kill()  # SIGKILL: no DISCONNECT, the broker publishes the will
                daemon.wait(TIMEOUT)
            assert wait_until(lambda: sub.texts(f"{T}/status") == ["online", "offline"])
        with Subscriber(port, f"{T}/status") as late:
            assert wait_until(lambda: late.last(f"{T}/status") is not None)
            assert late.texts(f"{T}/status") == ["offline"] and late.on(f"{T}/status")[0].retain
    finally:
        broker.stop()


# -- commands


def replies(sub: Subscriber) -> list[dict[str, Any]]:
    return [m.json() for m in sub.on(f"{T}/cmd/reply")]


def send(sub: Subscriber, command: Any, *, raw: bytes | None = None, retain: bool = False) -> None:
    sub.publish(f"{T}/cmd", raw if raw is not None else json.dumps(command), retain=retain)


def test_commands_with_the_token_reach_the_queue_and_the_daemon_replies(setup: Setup) -> None:
    link = setup.link()
    sub = setup.subscriber()
    send(sub, {"cmd": "takeback", "token": TOKEN, "id": "c1"})
    send(sub, {"cmd": "confirm", "token": TOKEN, "move": "1b2", "id": 2})
    send(sub, {"cmd": "set-players", "token": TOKEN, "players": {"light": "Ann", "dark": "Bob"}})
    send(sub, {"cmd": "new-game", "token": TOKEN, "game": "Sparks", "variant": "standard"})
    send(sub, {"cmd": "end-turn", "token": TOKEN})
    commands = [link.commands.get(timeout=TIMEOUT) for _ in range(5)]
    assert commands == [Command("takeback", id="c1"), Command("confirm", id=2, move="1b2"),
                        Command("set-players", players={"light": "Ann", "dark": "Bob"}),
                        Command("new-game", game="sparks", variant="standard"), Command("end-turn")]
    # the link answers nothing itself for a valid command: the daemon decides and replies
    link.reply(commands[0], ok=False, error="nothing to take back")
    link.reply(commands[1], ok=True)
    assert wait_until(lambda: len(replies(sub)) == 2)
    assert replies(sub) == [{"ok": False, "cmd": "takeback", "id": "c1", "error": "nothing to take back"},
                            {"ok": True, "cmd": "confirm", "id": 2}]


def test_commands_without_or_with_a_wrong_token_are_refused(setup: Setup) -> None:
    link = setup.link()
    sub = setup.subscriber()
    send(sub, {"cmd": "takeback", "id": 1})
    send(sub, {"cmd": "takeback", "token": "guess", "id": 2})
    send(sub, {"cmd": "new-game", "token": 12345, "id": 3})
    assert wait_until(lambda: len(replies(sub)) == 3)
    assert replies(sub) == [{"ok": False, "cmd": "takeback", "id": 1, "error": 'missing "token"'},
                            {"ok": False, "cmd": "takeback", "id": 2, "error": "wrong token"},
                            {"ok": False, "cmd": "new-game", "id": 3, "error": '"token" must be a string'}]
    assert link.commands.empty()


def test_without_a_configured_token_commands_are_disabled(setup: Setup) -> None:
    link = setup.link(token=None)
    sub = setup.subscriber()
    send(sub, {"cmd": "end-turn", "token": "anything"})
    assert wait_until(lambda: len(replies(sub)) == 1)
    assert "commands are disabled" in replies(sub)[0]["error"]
    assert link.commands.empty()


@pytest.mark.parametrize("payload, error", [
    (b"takeback please", "payload is not JSON: Expecting value at line 1 column 1"),
    (b"\xff\xfe{}", "payload is not UTF-8 text (byte 0)"),
    (b'["takeback"]', "payload must be a JSON object, not an array"),
    (b'{"token": "s3cret-token"}', 'missing "cmd"'),
    (b'{"cmd": "resign", "token": "s3cret-token"}', "unknown cmd 'resign'"),
    (b'{"cmd": 7, "token": "s3cret-token"}', '"cmd" must be a string, not a number'),
    (b'{"cmd": "confirm", "token": "s3cret-token", "move": 12}', 'confirm: "move" must be a string, not a number'),
    (b'{"cmd": "set-players", "token": "s3cret-token", "players": ["Ann"]}',
     'set-players: "players" must be an object, not an array'),
    (b'{"cmd": "takeback", "token": "s3cret-token", "turns": 0}', '"turns" must be a positive integer, not 0'),
    (b'{"cmd": "end-turn", "token": "s3cret-token", "force": true}', "end-turn: unknown field 'force'"),
])
def test_malformed_commands_are_answered_with_what_is_wrong(setup: Setup, payload: bytes, error: str) -> None:
    link = setup.link()
    sub = setup.subscriber()
    send(sub, None, raw=payload)
    assert wait_until(lambda: len(replies(sub)) == 1)
    reply = replies(sub)[0]
    assert reply["ok"] is False and error in reply["error"], reply
    # the link keeps working: a good command after the bad one goes through
    send(sub, {"cmd": "end-turn", "token": TOKEN})
    assert link.commands.get(timeout=TIMEOUT) == Command("end-turn")
    assert link.commands.empty()


def test_a_retained_command_is_not_replayed_on_reconnect(setup: Setup) -> None:
    link = setup.link()
    sub = setup.subscriber()
    send(sub, {"cmd": "end-turn", "token": TOKEN, "id": "r"}, retain=True)
    assert link.commands.get(timeout=TIMEOUT) == Command("end-turn", id="r")  # live delivery: executed once
    second = setup.link(join=True, client_id="arbiter-kitchen-2")  # a daemon connecting later gets it as retained
    assert wait_until(lambda: any(r.get("id") == "r" for r in replies(sub)))
    assert "retained commands are ignored" in [r for r in replies(sub) if r.get("id") == "r"][0]["error"]
    assert second.commands.empty()
    sub.publish(f"{T}/cmd", b"", retain=True)  # clearing it is no command and gets no answer
    send(sub, {"cmd": "end-turn", "token": TOKEN, "id": "after"})
    assert second.commands.get(timeout=TIMEOUT) == Command("end-turn", id="after")
    assert len(replies(sub)) == 1


def test_a_command_callback_instead_of_a_queue(setup: Setup) -> None:
    taken: queue.Queue[Command] = queue.Queue()
    setup.link(commands=lambda command: taken.put(command))
    sub = setup.subscriber()
    send(sub, {"cmd": "confirm", "token": TOKEN})
    assert taken.get(timeout=TIMEOUT) == Command("confirm")


def test_a_full_command_queue_is_answered_busy(setup: Setup) -> None:
    link = setup.link(commands=queue.Queue(maxsize=1))
    sub = setup.subscriber()
    send(sub, {"cmd": "confirm", "token": TOKEN, "id": 1})
    send(sub, {"cmd": "confirm", "token": TOKEN, "id": 2})
    assert wait_until(lambda: len(replies(sub)) == 1)
    assert replies(sub) == [{"ok": False, "cmd": "confirm", "id": 2,
                             "error": "the daemon is busy: too many commands waiting"}]
    assert link.commands.get_nowait() == Command("confirm", id=1)


class CountingOutbox(MemoryOutbox):
    """Counts how often the link reads the outbox (the recorder's database in the daemon)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def unsent(self, limit: int) -> list[tuple[int, dict[str, Any]]]:
        self.reads += 1
        return super().unsent(limit)


def test_an_idle_link_does_not_read_the_outbox_at_every_poll(setup: Setup) -> None:
    outbox = CountingOutbox()
    link = setup.link(outbox=outbox)
    sub = setup.subscriber(f"{T}/events")
    outbox.add(move_event(1))
    link.publish_event(1, move_event(1))
    assert wait_until(lambda: outbox.pending == 0 and len(sub.on(f"{T}/events")) == 1, link=link)
    link.poll()
    reads = outbox.reads
    for _ in range(200):
        link.poll()
    assert outbox.reads == reads
    outbox.add(move_event(2))
    link.publish_event(2, move_event(2))
    assert wait_until(lambda: sub.seqs(BOARD) == [1, 2], link=link)
