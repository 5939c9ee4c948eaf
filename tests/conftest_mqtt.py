"""Shared pieces of the MQTT tests: a real Mosquitto process on a free loopback port, a
recording subscriber (what a display sees), and waiting on conditions while driving the
link's main-thread side. Test modules import what they need from here."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import paho.mqtt.client as mqtt
import pytest

from host.mqtt import MqttLink

REPO = Path(__file__).resolve().parent.parent
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
TIMEOUT = 15.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate: Callable[[], bool], timeout: float = TIMEOUT, link: MqttLink | None = None,
               step: float = 0.02) -> bool:
    """True once ``predicate()`` holds; False after ``timeout``. With a link, its main-thread
    side (poll) runs meanwhile, as the daemon's loop would."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() > deadline:
            return False
        if link is not None:
            link.poll(timeout=step)
        else:
            time.sleep(step)


def accepts_connections(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class Mosquitto:
    """A real Mosquitto broker with a generated configuration, on 127.0.0.1, persistence off
    unless ``persistence``. ``lines`` are added to its listener's configuration (auth, TLS...)."""

    def __init__(self, directory: Path, port: int | None = None, lines: Iterable[str] = (), *,
                 persistence: bool = False, autosave: bool = True):
        if not os.path.exists(MOSQUITTO):
            pytest.fail("mosquitto is not installed: `make test` installs it (scripts/apt-packages.txt)")
        self.directory = directory
        self.port = port or free_port()
        self.lines = list(lines)
        #: keep sessions, queued QoS 1 messages and retained messages in a file across restarts:
        #: saved at a clean stop (SIGTERM), and with ``autosave`` after every change too (a
        #: SIGKILL then loses at most the last one; without, everything since the last clean stop)
        self.persistence = persistence
        self.autosave = autosave
        self.process: subprocess.Popen[bytes] | None = None
        self.config = directory / f"mosquitto-{self.port}.conf"
        self.log = directory / f"mosquitto-{self.port}.log"

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> "Mosquitto":
        body = [f"listener {self.port} 127.0.0.1", "log_dest stderr",
                "log_type error", "log_type warning", "log_type notice"]
        if self.persistence:
            body += ["persistence true", f"persistence_location {self.directory}/",
                     f"persistence_file mosquitto-{self.port}.db"]
            body += ["autosave_on_changes true", "autosave_interval 1"] if self.autosave else ["autosave_interval 0"]
        else:
            body.append("persistence false")
        if os.geteuid() == 0:
            # started as root, mosquitto drops to user "mosquitto", who cannot read the
            # test's private temporary files (password file, certificates)
            body.insert(0, "user root")
        if not any(line.startswith("allow_anonymous") for line in self.lines):
            body.append("allow_anonymous true")
        self.config.write_text("\n".join(body + self.lines) + "\n")
        log = open(self.log, "ab")
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=log, stderr=log)
        log.close()
        if not wait_until(lambda: accepts_connections(self.port) or self.process.poll() is not None, 10.0) \
                or self.process.poll() is not None:
            raise RuntimeError(f"mosquitto did not start on port {self.port}:\n{self.log.read_text()}")
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.process = None

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    broker = Mosquitto(tmp_path).start()
    yield broker
    broker.stop()


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    retain: bool
    qos: int

    def json(self) -> Any:
        return json.loads(self.payload)


class Subscriber:
    """A display: records every message under ``topic_filter``; reconnects and subscribes
    again by itself after the broker restarts."""

    def __init__(self, port: int, topic_filter: str = "arbiter/#", *, username: str | None = None,
                 password: str | None = None, client_id: str | None = None, clean_session: bool = True):
        self.port = port
        self.topic_filter = topic_filter
        self.messages: list[Message] = []
        self.subscribed = threading.Event()
        self.refused: list[str] = []
        #: one entry per accepted connection: whether the broker still had this client's session
        #: (only ever True with ``clean_session=False``, a ``client_id`` and a broker keeping it)
        self.sessions_present: list[bool] = []
        self._lock = threading.Lock()
        if not clean_session and not client_id:
            raise ValueError("a persistent session needs a client_id")
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or "",
                                  protocol=mqtt.MQTTv311, clean_session=clean_session)
        if username is not None:
            self.client.username_pw_set(username, password)
        self.client.reconnect_delay_set(0.05, 0.2)  # type: ignore[arg-type]
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda c, u, mid, codes, p: self.subscribed.set()
        self.client.on_disconnect = lambda c, u, f, rc, p: self.subscribed.clear()
        self.client.on_message = self._on_message

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.refused.append(str(reason))
            return
        self.sessions_present.append(bool(flags.session_present))
        client.subscribe(self.topic_filter, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._lock:
            self.messages.append(Message(message.topic, bytes(message.payload), bool(message.retain), message.qos))

    def connect(self) -> "Subscriber":
        self.client.connect_async("127.0.0.1", self.port, keepalive=10)
        self.client.loop_start()
        assert wait_until(self.subscribed.is_set), f"subscriber could not subscribe on port {self.port}"
        return self

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def go_offline(self) -> None:
        """Disconnect cleanly and stay away (a persistent session stays on the broker, which
        queues the QoS 1 messages for it) until :meth:`come_back`."""
        self.close()
        self.subscribed.clear()

    def come_back(self) -> "Subscriber":
        return self.connect()

    def __enter__(self) -> "Subscriber":
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def count(self) -> int:
        """Messages received so far (cheap enough to poll every millisecond)."""
        return len(self.messages)

    def since(self, index: int) -> list[Message]:
        """The messages received after the first ``index`` ones."""
        with self._lock:
            return self.messages[index:]

    def on(self, topic: str) -> list[Message]:
        with self._lock:
            return [m for m in self.messages if m.topic == topic]

    def last(self, topic: str) -> Message | None:
        found = self.on(topic)
        return found[-1] if found else None

    def texts(self, topic: str) -> list[str]:
        return [m.payload.decode() for m in self.on(topic)]

    def events(self, board: str) -> list[dict[str, Any]]:
        return [m.json() for m in self.on(f"arbiter/{board}/events")]

    def seqs(self, board: str) -> list[int]:
        return [e["seq"] for e in self.events(board)]

    def publish(self, topic: str, payload: bytes | str, *, retain: bool = False) -> None:
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(TIMEOUT)
        assert info.is_published(), f"could not publish on {topic}"


def in_order(seqs: list[int]) -> list[int]:
    """What a subscriber keeps when it drops every event whose seq it has already handled."""
    kept: list[int] = []
    for seq in seqs:
        if not kept or seq > kept[-1]:
            kept.append(seq)
    return kept


def move_event(n: int) -> dict[str, Any]:
    """The JSON of the n-th move event of a game (the fields the referee fills in)."""
    return {"t": 1.5 * n, "type": "move", "turn": n, "player": "light" if n % 2 else "dark",
            "move": f"1a{n}", "position": f"position-{n}", "ts": f"2026-11-21T18:03:{n % 60:02d}.000Z"}


def pylos_state(board: str, turn: int = 0, status: str = "playing", to_move: str | None = "light") -> dict[str, Any]:
    return {"board": board, "game": "pylos", "variant": "standard", "position": f"position-{turn}",
            "to_move": to_move, "turn": turn, "status": status, "last_move": None if turn == 0 else f"1a{turn}",
            "result": "*" if status != "finished" else "1-0", "players": {"light": "Ann", "dark": "Bob"}}


#: a daemon-side client in its own process, for the last will: killed, it cannot say goodbye
LINK_PROCESS = """
import sys
from host.mqtt import MqttLink
link = MqttLink(board_id=sys.argv[1], url=sys.argv[2], token="t", keepalive=5)
link.start()
if not link.wait_connected(15):
    sys.exit("no connection")
link.publish_state({"board": sys.argv[1], "to_move": "dark", "status": "playing"})
print("ready", flush=True)
while True:
    link.poll(timeout=0.2)
"""


def link_process(board: str, url: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-c", LINK_PROCESS, board, url], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    assert process.stdout is not None
    line = process.stdout.readline()
    if line.strip() != "ready":
        process.kill()
        raise RuntimeError(f"the link process did not start: {line}{process.stderr.read() if process.stderr else ''}")
    return process
