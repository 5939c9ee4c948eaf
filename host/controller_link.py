"""One board controller on one serial port (docs/protocol.md, "What the host does").

A single I/O thread owns the port: it opens it (again and again while it is away), says
HELLO and checks the API level, asks for a snapshot, sends a heartbeat when it has nothing
else to say, sends the LEDs the host wants until each command is acknowledged, and reports
what the controller says as :class:`Report` values on a queue. The link's users never touch
the port: they read :meth:`ControllerLink.next_report` and call :meth:`ControllerLink.show`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from . import controller_protocol as proto

log = logging.getLogger("arbiter.controller")

#: report kinds besides the controller's messages
CONNECTED, RESET, LOST, FAILED = "connected", "reset", "lost", "failed"
#: what :meth:`ControllerLink.next_report` returns once the link has ended
END = object()


class LinkError(RuntimeError):
    """The controller cannot be used: a firmware of another API level, a port that is not a
    controller. The message says what to do."""


@dataclass(frozen=True, slots=True)
class Report:
    """Something the link learnt at host time ``t``: a controller message (``message``), or
    ``kind`` connected / reset / lost / failed with ``detail``."""

    t: float
    kind: str = "message"
    message: proto.Message | None = None
    detail: str = ""


@dataclass
class LinkStats:
    damaged: int = 0          # frames thrown away by the host's decoder
    missed: int = 0           # controller frames never seen (gaps in its numbering)
    resent: int = 0           # commands sent again for want of an ACK
    refused: int = 0          # commands the controller acknowledged with an error
    reconnects: int = 0
    resets: int = 0


def _open_serial(port: str, baud: int) -> Any:
    import serial  # pyserial; imported here so the pure parts need no serial package
    return serial.Serial(port, baud, timeout=0.01, write_timeout=0.5)


class ControllerLink:
    """The controller on ``port``. ``clock`` is monotonic seconds; ``wall`` stamps reports.
    Call :meth:`start`, then :meth:`next_report` until END; :meth:`close` stops it."""

    HEARTBEAT = 0.5
    LOST_AFTER = 2.0
    RETRY = 0.2
    TRIES = 5
    HELLO_EVERY = 0.5
    HELLO_FOR = 5.0
    REOPEN = 0.5

    def __init__(self, port: str, *, baud: int = 115200, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time,
                 open_port: Callable[[str, int], Any] = _open_serial) -> None:
        self.port_name, self.baud = port, baud
        self._clock, self._wall, self._open = clock, wall, open_port
        self._reports: queue.Queue[Report | None] = queue.Queue()
        self._lock = threading.Lock()
        self._desired: list[bytes] = [proto.pixel_bytes(0, 0, 0)] * proto.PIXELS
        self._acked: list[bytes | None] = [None] * proto.PIXELS
        self._slots: bytes = proto.slots_payload([])
        self._slots_acked: bytes | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.stats = LinkStats()
        self.hello: proto.Hello | None = None
        self._seq = 0
        self._port: Any = None
        self._ended = False
        self._unopened = False  # the port could not be opened last time

    # -- the users' side ----------------------------------------------------------------------
    def start(self) -> "ControllerLink":
        self._thread = threading.Thread(target=self._run, name=f"controller {self.port_name}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)

    def next_report(self, timeout: float | None = None) -> "Report | None | object":
        """The next report; None when ``timeout`` passes without one; :data:`END` once the
        link is closed or has failed (after the FAILED report)."""
        if self._ended:
            return END
        try:
            report = self._reports.get(timeout=timeout)
        except queue.Empty:
            return None
        if report is None:
            self._ended = True
            return END
        return report

    def wall(self) -> float:
        return self._wall()

    def show(self, pixels: list[bytes], slots: list[int] = ()) -> None:
        """The 19 pixels (4 bytes each: R G B pattern) the strip should show, and the
        in-turn cycle (one mask of hollows per slot); sent, and sent again after a
        reconnection or a controller reset, until acknowledged."""
        if len(pixels) != proto.PIXELS or any(len(p) != 4 for p in pixels):
            raise ValueError(f"show: expected {proto.PIXELS} pixels of 4 bytes")
        payload = proto.slots_payload(list(slots))
        with self._lock:
            self._desired = list(pixels)
            self._slots = payload

    # -- the I/O thread --------------------------------------------------------------------------
    def _report(self, kind: str = "message", message: proto.Message | None = None, detail: str = "") -> None:
        self._reports.put(Report(self._wall(), kind, message, detail))

    def _run(self) -> None:
        first = True
        try:
            while not self._stop.is_set():
                if not first:
                    self.stats.reconnects += 1
                first = False
                if not self._connect():
                    continue
                reason = self._serve()
                self._close_port()
                if reason is not None:
                    log.warning("controller on %s: link lost (%s); reconnecting", self.port_name, reason)
                    self._report(LOST, detail=reason)
        except LinkError as exc:
            self._close_port()
            self._report(FAILED, detail=str(exc))
        finally:
            self._close_port()
            self._reports.put(None)

    def _close_port(self) -> None:
        if self._port is not None:
            try:
                self._port.close()
            except Exception:  # a vanished device may fail to close: it is gone either way
                pass
            self._port = None

    def _connect(self) -> bool:
        """Open the port and shake hands; False (after a pause) when it is not there yet."""
        try:
            self._port = self._open(self.port_name, self.baud)
        except Exception as exc:
            # said once (a wrong port, a cable not yet in), then waited for quietly
            (log.debug if self._unopened else log.warning)(
                "controller on %s: cannot open the port (%s); trying again every %.1f s",
                self.port_name, exc, self.REOPEN)
            self._unopened = True
            self._stop.wait(self.REOPEN)
            return False
        self._unopened = False
        self._decoder = proto.Decoder()
        self._expect_seq: int | None = None
        self._inflight: tuple[int, int, bytes, float, int, Any] | None = None
        self._snapshot_wanted = True
        self._hello_answer = False  # a HELLO that answers one of ours is no restart
        self._forget_shown()
        try:
            hello = self._handshake()
        except OSError as exc:
            self._close_port()
            log.debug("controller on %s: handshake failed (%s)", self.port_name, exc)
            self._stop.wait(self.REOPEN)
            return False
        if hello is None:
            self._close_port()
            log.warning("controller on %s: no HELLO within %.0f s; trying again", self.port_name, self.HELLO_FOR)
            return False
        self.hello = hello
        log.info("controller on %s: firmware %s, API level %d, started by %s", self.port_name, hello.version,
                 hello.api, " and ".join(hello.causes))
        self._report(CONNECTED, hello, f"firmware {hello.version}")
        return True

    def _handshake(self) -> proto.Hello | None:
        deadline = self._clock() + self.HELLO_FOR
        next_hello = 0.0
        while self._clock() < deadline and not self._stop.is_set():
            if self._clock() >= next_hello:
                self._send(proto.CMD_HELLO, proto.hello_payload())
                next_hello = self._clock() + self.HELLO_EVERY
            for message in self._read():
                if isinstance(message, proto.Hello):
                    if message.api != proto.API_LEVEL:
                        raise LinkError(
                            f"the board controller on {self.port_name} runs firmware API level {message.api}; "
                            f"this arbiter speaks level {proto.API_LEVEL}: reflash the controller with "
                            f'"make -C firmware flash PORT={self.port_name}"')
                    return message
        return None

    def _serve(self) -> str | None:
        """Talk until the link is lost (the reason) or the link is closed (None)."""
        heard = sent = self._clock()
        while not self._stop.is_set():
            try:
                messages = self._read()
                now = self._clock()
                if messages:
                    heard = now
                for message in messages:
                    self._handle(message, now)
                if now - heard > self.LOST_AFTER:
                    return f"nothing heard for {self.LOST_AFTER:.0f} s"
                if self._pump(now):
                    sent = now
                elif now - sent >= self.HEARTBEAT:
                    self._command(proto.CMD_HEARTBEAT, b"", None, now)
                    sent = now
            except OSError as exc:
                return f"port error: {exc}"
        return None

    def _read(self) -> list[proto.Message]:
        port = self._port
        # waits up to the port's timeout (10 ms) for a first byte, then takes what is there
        data = port.read(port.in_waiting or 1)
        if data and port.in_waiting:
            data += port.read(port.in_waiting)
        out = []
        damaged = self._decoder.dropped
        for frame in self._decoder.feed(data, self._clock()):
            self._check_seq(frame.seq)
            try:
                out.append(proto.decode(frame))
            except proto.ProtocolError as exc:
                log.warning("controller on %s: %s", self.port_name, exc)
        if self._decoder.dropped != damaged:
            self.stats.damaged += self._decoder.dropped - damaged
            log.warning("controller on %s: %d damaged frame(s) thrown away (%d so far)", self.port_name,
                        self._decoder.dropped - damaged, self.stats.damaged)
        return out

    def _check_seq(self, seq: int) -> None:
        if self._expect_seq is not None and seq != self._expect_seq:
            self.stats.missed += (seq - self._expect_seq) % 256
        self._expect_seq = (seq + 1) % 256

    def _send(self, type_: int, payload: bytes) -> int:
        seq = self._seq
        self._seq = (self._seq + 1) % 256
        self._port.write(proto.encode(seq, type_, payload))
        return seq

    def _handle(self, message: proto.Message, now: float) -> None:
        if isinstance(message, proto.Ack):
            if message.type == proto.CMD_HELLO:
                self._hello_answer = True
            self._acknowledged(message)
            return
        if isinstance(message, proto.Hello) and self._hello_answer:
            self._hello_answer = False  # the answer to a HELLO the handshake repeated
            return
        if isinstance(message, proto.Hello):
            # a HELLO nobody asked for: the controller started again (reset button, watchdog,
            # power): its LEDs are blank and its picture of the switches is new
            self.stats.resets += 1
            self._expect_seq = None
            log.warning("controller on %s: the controller restarted (%s); setting its LEDs and rereading "
                        "the switches", self.port_name, " and ".join(message.causes))
            self._report(RESET, message, " and ".join(message.causes))
            self._forget_shown()
            self._snapshot_wanted = True
            return
        if isinstance(message, proto.Snapshot):
            self._snapshot_wanted = False
        self._report(message=message)

    def _forget_shown(self) -> None:
        """A new or restarted controller shows nothing the host set: send everything again."""
        with self._lock:
            self._acked = [None] * proto.PIXELS
            self._slots_acked = None

    def _acknowledged(self, ack: proto.Ack) -> None:
        flight = self._inflight
        if flight is None or (ack.seq, ack.type) != (flight[0], flight[1]):
            return  # an ACK of a command already given up on, or of a repeated one
        self._inflight = None
        if not ack.ok:
            self.stats.refused += 1
            log.error("controller on %s: %s refused: %s", self.port_name, proto.type_name(ack.type),
                      proto.ACK_STATUS.get(ack.status, f"status {ack.status}"))
        done = flight[5]
        if done is not None:
            done()

    def _pump(self, now: float) -> bool:
        """Send the next command if none is waiting for its ACK (or resend one whose ACK is
        late); True when something was sent."""
        flight = self._inflight
        if flight is not None:
            seq, type_, payload, at, tries, done = flight
            if now - at < self.RETRY:
                return False
            if tries >= self.TRIES:
                log.warning("controller on %s: %s not acknowledged after %d tries", self.port_name,
                            proto.type_name(type_), tries)
                self._inflight = None
                return False
            self.stats.resent += 1
            self._port.write(proto.encode(seq, type_, payload))  # same SEQ: the ACK names it
            self._inflight = (seq, type_, payload, now, tries + 1, done)
            return True
        if self._snapshot_wanted:
            self._snapshot_wanted = False
            self._command(proto.GET_SNAPSHOT, b"", None, now)
            return True
        with self._lock:
            desired, acked = list(self._desired), list(self._acked)
            slots, slots_acked = self._slots, self._slots_acked
        if slots != slots_acked:  # the cycle first: in-turn pixels then light the right slots
            self._command(proto.SET_SLOTS, slots, self._mark_slots(slots), now)
            return True
        if desired[:3] != acked[:3]:
            self._command(proto.SET_INDICATORS, b"".join(desired[:3]), self._mark(0, desired[:3]), now)
            return True
        for first in (0, 8):
            chunk = desired[3 + first:3 + first + 8]
            if chunk != acked[3 + first:3 + first + 8]:
                self._command(proto.SET_STRIP, bytes((first,)) + b"".join(chunk), self._mark(3 + first, chunk), now)
                return True
        return False

    def _mark(self, start: int, pixels: list[bytes]) -> Callable[[], None]:
        def done() -> None:
            with self._lock:
                self._acked[start:start + len(pixels)] = pixels
        return done

    def _mark_slots(self, payload: bytes) -> Callable[[], None]:
        def done() -> None:
            with self._lock:
                self._slots_acked = payload
        return done

    def _command(self, type_: int, payload: bytes, done: Callable[[], None] | None, now: float) -> None:
        seq = self._send(type_, payload)
        self._inflight = (seq, type_, payload, now, 1, done)
