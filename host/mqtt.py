"""The MQTT link: publishes a board's state, turn and events, and takes commands (docs/mqtt.md).

Threads: paho runs the connection in its own network thread. Its callbacks never block and
never decide anything: they record what happened (connected, acknowledged, disconnected) in a
queue, answer malformed commands, and hand well-formed ones to the daemon's ``commands``
queue. Everything else (reading the outbox, marking events sent, publishing events) happens
in the thread that calls :meth:`MqttLink.poll` and the ``publish_*`` methods: the daemon's
main thread, which also owns the recorder's database connection.

Delivery: events are taken from an outbox (the recorder) strictly in ``seq`` order and
marked sent only when the broker acknowledges them (QoS 1 PUBACK). After every (re)connect
the link drops what paho still held, republishes status and state, publishes the last few
acknowledged events again (a broker that died may have acknowledged events it never passed
on) and then resumes from the first unacknowledged one. A subscriber may thus see an event
twice around a reconnect; it drops any event whose ``seq`` it has already handled and is
left with every event, once, in order.
"""

from __future__ import annotations

import logging
import os
import queue
import ssl
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt

from .broker import DEFAULT_HOST, DEFAULT_PORT, EmbeddedBroker
from .mqtt_commands import Authority, Command, CommandError, parse_command, reply_payload
from .mqtt_outbox import MemoryOutbox, Outbox
from .mqtt_topics import OFFLINE, ONLINE, Topics, event_payload, state_payloads

log = logging.getLogger(__name__)

MQTT_PORT = 1883
MQTTS_PORT = 8883
#: what the network thread tells the main thread
_CONNECTED, _DISCONNECTED, _ACK = "connected", "disconnected", "ack"

CommandSink = Callable[[Command], None]


class _QuietCleanDisconnect(logging.Filter):
    """paho 2.2's network thread logs "Client is not connected" at ERROR once after every
    clean disconnect; it is no error, so it becomes DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.ERROR and str(record.msg).startswith("Client is not connected"):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


def _paho_logger() -> logging.Logger:
    logger = logging.getLogger(__name__ + ".paho")
    if not any(isinstance(f, _QuietCleanDisconnect) for f in logger.filters):
        logger.addFilter(_QuietCleanDisconnect())
    return logger


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_url(url: str) -> BrokerAddress:
    """``mqtt://host[:port]`` or ``mqtts://host[:port]`` (TLS, port 8883 by default)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"mqtt url {url!r}: {exc}") from None
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ValueError(f"mqtt url {url!r}: expected mqtt://host[:port] or mqtts://host[:port]")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"mqtt url {url!r}: give the user name and password as mqtt.username "
                         f"and mqtt.password, not in the url")
    if not parts.hostname:
        raise ValueError(f"mqtt url {url!r}: no host name")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"mqtt url {url!r}: nothing may follow host:port")
    tls = parts.scheme == "mqtts"
    return BrokerAddress(parts.hostname, port or (MQTTS_PORT if tls else MQTT_PORT), tls)


class MqttLink:
    """One board's connection to an MQTT broker (an embedded one when ``url`` is None).

    ``outbox`` holds the events to deliver (the recorder; a :class:`MemoryOutbox` when
    None). Well-formed, authorised commands go to ``commands``: a queue (``put_nowait``)
    or a callable that only enqueues; ``self.commands`` is a new ``queue.Queue`` when None.
    Commands need ``token``, or ``trust_authenticated`` with a ``username``, which trusts
    the broker's ACLs to let only trusted users write the cmd topic.
    """

    def __init__(self, *, board_id: str, outbox: Outbox | None = None,
                 commands: "queue.Queue[Command] | CommandSink | None" = None,
                 url: str | None = None, embedded_host: str = DEFAULT_HOST,
                 embedded_port: int = DEFAULT_PORT, username: str | None = None,
                 password: str | None = None, tls_ca_file: str | None = None,
                 tls_certfile: str | None = None, tls_keyfile: str | None = None,
                 tls_insecure: bool = False, client_id: str | None = None,
                 token: str | None = None, trust_authenticated: bool = False,
                 keepalive: int = 30, reconnect_min: float = 0.5, reconnect_max: float = 30.0,
                 inflight: int = 32, replay: int = 64) -> None:
        self.topics = Topics(board_id)
        self.address = parse_url(url) if url is not None else BrokerAddress(embedded_host, embedded_port, False)
        self._embedded = url is None
        #: keyed by their names in the configuration file (docs/configuration.md)
        tls_files = {"ca_file": tls_ca_file, "certfile": tls_certfile, "keyfile": tls_keyfile}
        if not self.address.tls and (any(tls_files.values()) or tls_insecure):
            where = "the embedded broker has no TLS" if self._embedded else "the url is mqtt://"
            raise ValueError(f"mqtt TLS options need an mqtts:// url ({where})")
        if (tls_certfile is None) != (tls_keyfile is None):
            raise ValueError("mqtt.certfile and mqtt.keyfile go together: give both or neither")
        for name, path in tls_files.items():
            if path is not None and not os.path.isfile(path):
                raise ValueError(f"mqtt.{name}: no such file {path!r}")
        if password is not None and username is None:
            raise ValueError("mqtt.password needs mqtt.username")
        if trust_authenticated and not username:
            raise ValueError("mqtt.trust_authenticated needs mqtt.username: an anonymous connection "
                             "proves nothing about who may write the cmd topic")
        if token is not None and (not isinstance(token, str) or not token):
            raise ValueError("mqtt.token must be a non-empty string")
        if not 1 <= keepalive <= 65535:
            raise ValueError(f"mqtt.keepalive must be 1..65535 seconds, not {keepalive}")
        if not 0 < reconnect_min <= reconnect_max:
            raise ValueError(f"mqtt reconnect back-off: need 0 < min <= max, not {reconnect_min}..{reconnect_max}")
        if inflight < 1:
            raise ValueError(f"mqtt inflight window must be at least 1, not {inflight}")
        if replay < 0:
            raise ValueError(f"mqtt replay must be 0 or more events, not {replay}")
        self.outbox: Outbox = outbox if outbox is not None else MemoryOutbox()
        self._own_outbox = outbox is None
        self.commands = commands if commands is not None else queue.Queue()
        self.client_id = client_id or f"arbiter-{board_id}"
        self._username, self._password = username, password
        self._tls_files, self._tls_insecure = tls_files, tls_insecure
        self._authority = Authority(token, trust_authenticated)
        self._keepalive = keepalive
        self._backoff = (reconnect_min, reconnect_max)
        self._window = inflight
        self._client: mqtt.Client | None = None
        self._broker: EmbeddedBroker | None = None
        # shared with the network thread: _lock orders on_connect against publishing
        self._lock = threading.Lock()
        self._generation = 0
        self._connected = False
        self._connected_event = threading.Event()
        self._stopping = False
        self._state: tuple[bytes, bytes] | None = None
        self._notes: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        # the main thread's own: which events went out on which connection
        self._pump_generation = 0
        self._published_upto: int | None = None
        self._inflight: dict[tuple[int, int], int] = {}
        self._acked: set[int] = set()
        #: whether the outbox may hold events not yet published on this connection: the
        #: outbox is read only then, not at every poll
        self._maybe_more = True
        #: the last events marked sent, published again after a reconnect (see _pump)
        self._recent: deque[tuple[int, bytes]] = deque(maxlen=replay)

    # -- life cycle

    def start(self) -> None:
        """Start the embedded broker if there is no url, then connect in the background
        (retrying with back-off while the broker is unreachable)."""
        if self._client is not None:
            raise RuntimeError("the MQTT link is already started")
        if self._embedded:
            broker = EmbeddedBroker(host=self.address.host, port=self.address.port)
            broker.start()
            self._broker = broker
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id,
                             clean_session=True, protocol=mqtt.MQTTv311)
        client.enable_logger(_paho_logger())
        if self._username is not None:
            client.username_pw_set(self._username, self._password)
        if self.address.tls:
            # the certificate chain is always verified (against ca_file, or the system's CAs);
            # tls_insecure only skips matching the broker's host name
            try:
                client.tls_set(ca_certs=self._tls_files["ca_file"], certfile=self._tls_files["certfile"],
                               keyfile=self._tls_files["keyfile"], cert_reqs=ssl.CERT_REQUIRED)
            except (ssl.SSLError, OSError) as exc:
                files = ", ".join(f"mqtt.{k} = {v!r}" for k, v in self._tls_files.items() if v)
                raise ValueError(f"mqtt TLS: cannot load {files or 'the system CAs'}: {exc}") from None
            client.tls_insecure_set(self._tls_insecure)
        client.will_set(self.topics.status, OFFLINE, qos=1, retain=True)
        client.reconnect_delay_set(*self._backoff)  # type: ignore[arg-type]  # floats work
        client.max_inflight_messages_set(self._window + 16)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        self._stopping = False
        self._client = client
        client.connect_async(self.address.host, self.address.port, self._keepalive)
        client.loop_start()
        log.info("MQTT: connecting to %s as %s", self.address, self.client_id)

    def stop(self, timeout: float = 5.0) -> None:
        """Deliver what is waiting (up to ``timeout``), publish ``offline``, disconnect
        cleanly and stop the embedded broker. Undelivered events stay in the outbox."""
        client = self._client
        if client is None:
            return
        deadline = time.monotonic() + timeout
        while self._connected and self.outbox.unsent(1) and time.monotonic() < deadline:
            self.poll(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
        with self._lock:
            self._stopping = True
            info = client.publish(self.topics.status, OFFLINE, qos=1, retain=True) if self._connected else None
        if info is not None:
            try:
                info.wait_for_publish(max(0.1, deadline - time.monotonic()))
            except (RuntimeError, ValueError) as exc:
                log.warning("MQTT: could not publish offline status: %s", exc)
        self._take_notes(0.0)
        self._mark_acknowledged()  # acknowledged meanwhile: not sent again by the next daemon
        client.disconnect()
        client.loop_stop()
        self._client = None
        self._connected = False
        self._connected_event.clear()
        if self._broker is not None:
            self._broker.stop()
            self._broker = None
        log.info("MQTT: disconnected from %s", self.address)

    def __enter__(self) -> "MqttLink":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def connected(self) -> bool:
        return self._connected

    def wait_connected(self, timeout: float) -> bool:
        return self._connected_event.wait(timeout)

    # -- what the daemon publishes (main thread)

    def publish_state(self, state: Mapping[str, Any]) -> None:
        """Publish the retained state object and turn text; republished on every reconnect."""
        payloads = state_payloads(state)
        with self._lock:
            self._state = payloads
            if self._connected and self._client is not None:
                self._client.publish(self.topics.state, payloads[0], qos=1, retain=True)
                self._client.publish(self.topics.turn, payloads[1], qos=1, retain=True)

    def publish_event(self, seq: int, event_json: Mapping[str, Any]) -> None:
        """Hand over a new event. With the recorder as outbox it is already stored there
        under ``seq``; with the link's own memory outbox it is added to it. Either way the
        link publishes from the outbox, in ``seq`` order."""
        if self._own_outbox:
            assert isinstance(self.outbox, MemoryOutbox)
            self.outbox.add(event_json, seq)
        self._maybe_more = True
        self.poll()

    def reply(self, command: Command, ok: bool, error: str | None = None) -> None:
        """Answer a command taken from the queue on ``cmd/reply``."""
        self._publish_reply(command.cmd, command.id, ok, error)

    def poll(self, timeout: float = 0.0) -> int:
        """Take in what the network thread reported (waiting up to ``timeout`` for the first
        report), mark acknowledged events sent and publish the next ones. Call it often from
        the daemon's main thread (each loop, at least every 100 ms or so). Returns the number
        of events marked sent."""
        self._take_notes(timeout)
        marked = self._mark_acknowledged()
        self._pump()
        return marked

    # -- main thread: delivery bookkeeping

    def _take_notes(self, timeout: float) -> None:
        try:
            note = self._notes.get(timeout=timeout) if timeout > 0 else self._notes.get_nowait()
        except queue.Empty:
            return
        while True:
            if note[0] == _ACK:
                seq = self._inflight.pop((note[1], note[2]), None)
                if seq is not None:
                    self._acked.add(seq)
            try:
                note = self._notes.get_nowait()
            except queue.Empty:
                return

    def _mark_acknowledged(self) -> int:
        """Mark acknowledged events sent, only ever the oldest unsent one next."""
        if not self._acked:
            return 0
        rows = self.outbox.unsent(len(self._acked) + 1)
        marked = 0
        for seq, event_json in rows:
            if seq not in self._acked:
                break
            self.outbox.mark_sent(seq)
            self._acked.discard(seq)
            if self._recent.maxlen:
                self._recent.append((seq, event_payload(seq, event_json)))
            marked += 1
        # the oldest event still unsent (None: all sent); anything older was marked already,
        # so its acks and in-flight entries (sent twice around a reconnect) are forgotten
        first = rows[marked][0] if marked < len(rows) else None
        self._acked = {s for s in self._acked if first is not None and s > first}
        if marked:
            self._inflight = {k: s for k, s in self._inflight.items() if first is not None and s >= first}
        return marked

    def _pump(self) -> None:
        client = self._client
        with self._lock:
            generation, connected = self._generation, self._connected
        if client is None or not connected or self._stopping:
            return
        replay: list[tuple[int, bytes]] = []
        if generation != self._pump_generation:
            # a new connection: start again from the first event not acknowledged, after the
            # last few acknowledged ones: a broker that died (or was restarted) may have
            # acknowledged events it never passed on to the subscribers it had then
            self._pump_generation, self._published_upto = generation, None
            self._maybe_more = True
            replay = list(self._recent)
        if not self._maybe_more:
            return
        current = sum(1 for (g, _) in self._inflight if g == generation)
        room = self._window - current
        if room <= 0:
            return
        limit = room + current + len(self._acked)
        batch = self.outbox.unsent(limit)
        self._maybe_more = len(batch) == limit  # fewer: everything unsent is in this batch
        with self._lock:
            if self._generation != generation or not self._connected:
                self._pump_generation = -1  # reconnected meanwhile: the next poll starts afresh
                return
            for _, payload in replay:
                client.publish(self.topics.events, payload, qos=1)
            for seq, event_json in batch:
                if room <= 0:
                    self._maybe_more = True  # the rest goes out as acknowledgements free room
                    break
                if self._published_upto is not None and seq <= self._published_upto:
                    continue
                info = client.publish(self.topics.events, event_payload(seq, event_json), qos=1)
                if info.rc != mqtt.MQTT_ERR_SUCCESS:
                    self._maybe_more = True
                    break  # connection lost: paho's copy is dropped on reconnect, we resend
                self._inflight[(generation, info.mid)] = seq
                self._published_upto = seq
                room -= 1

    def _publish_reply(self, cmd: str | None, ident: str | int | None, ok: bool, error: str | None) -> None:
        client = self._client
        if client is None:
            log.warning("MQTT: no connection, reply to %s not sent", cmd)
            return
        client.publish(self.topics.reply, reply_payload(ok=ok, cmd=cmd, id=ident, error=error), qos=1)

    # -- paho's network thread: record, answer malformed commands, enqueue; never block

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("MQTT: %s refused the connection: %s", self.address, reason)
            return
        with self._lock:
            client.drop_out_messages()  # events among them are resent from the outbox, in order
            self._generation += 1
            self._connected = True
            client.subscribe(self.topics.cmd, qos=1)
            client.publish(self.topics.status, ONLINE, qos=1, retain=True)
            if self._state is not None:
                client.publish(self.topics.state, self._state[0], qos=1, retain=True)
                client.publish(self.topics.turn, self._state[1], qos=1, retain=True)
            generation = self._generation
        self._connected_event.set()
        self._notes.put((_CONNECTED, generation))
        log.info("MQTT: connected to %s (connection %d)", self.address, generation)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        log.warning("MQTT: cannot connect to %s (broker unreachable, or the TLS handshake failed); "
                    "retrying with back-off (at most %g s)", self.address, self._backoff[1])

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected = False
        self._connected_event.clear()
        self._notes.put((_DISCONNECTED, self._generation))
        if not self._stopping:
            log.warning("MQTT: lost the connection to %s (%s); reconnecting with back-off", self.address, reason)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        # the generation is only changed by _on_connect, on this same thread
        self._notes.put((_ACK, self._generation, mid))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic != self.topics.cmd:
            return
        if not message.payload:
            return  # an empty message clears a retained command: nothing to do or answer
        try:
            command = parse_command(message.payload, self._authority, retained=bool(message.retain))
        except CommandError as exc:
            log.warning("MQTT: refused command on %s: %s", message.topic, exc)
            self._publish_reply(exc.cmd, exc.id, False, str(exc))
            return
        try:
            if callable(self.commands):
                self.commands(command)
            else:
                self.commands.put_nowait(command)
        except queue.Full:
            self._publish_reply(command.cmd, command.id, False, "the daemon is busy: too many commands waiting")
        except Exception as exc:  # a broken sink must not kill paho's network thread
            log.exception("MQTT: command sink failed")
            self._publish_reply(command.cmd, command.id, False, f"internal error: {exc}")
