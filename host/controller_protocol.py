"""The board controller's serial protocol (docs/protocol.md): frames and messages.

Pure: no port here. :class:`Decoder` takes bytes as they come and gives back whole frames,
throwing away what is damaged and resynchronising on the next sync byte, as the firmware's
receiver does; :func:`encode` builds a frame. Messages are small frozen values.
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass
from typing import Iterator

SYNC = 0xA5
MAX_PAYLOAD = 48
#: the API level this host speaks (the firmware's HELLO must carry the same)
API_LEVEL = 1
#: seconds between two bytes of one frame after which the frame is thrown away
BYTE_TIMEOUT = 0.020

# controller -> host
HELLO, SNAPSHOT, CHANGE, HEARTBEAT, ACK = 0x01, 0x02, 0x03, 0x04, 0x05
# host -> controller
CMD_HELLO, CMD_HEARTBEAT, SET_INDICATORS, SET_STRIP, GET_SNAPSHOT, SET_SLOTS = 0x81, 0x82, 0x83, 0x84, 0x85, 0x86

SWITCHES = 49
PIXELS = 19
HOLLOWS = 16
NO_SLOT = 255
#: at most this many slots in the in-turn cycle
SLOTS = 16
#: ACK status codes and what they mean
ACK_STATUS = {0: "done", 1: "wrong length", 2: "unknown type", 3: "value out of range"}
#: MCUSR bits reported as the reset cause
RESET_CAUSES = ((0x01, "power-on"), (0x02, "reset pin"), (0x04, "brown-out"), (0x08, "watchdog"))


class ProtocolError(ValueError):
    """A frame that is intact but whose message cannot be read (wrong length, unknown type)."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, as the firmware computes it."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    type: int
    payload: bytes


def encode(seq: int, type_: int, payload: bytes = b"") -> bytes:
    if not 0 <= len(payload) <= MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes: at most {MAX_PAYLOAD}")
    body = bytes((len(payload), seq & 0xFF, type_)) + payload
    return bytes((SYNC,)) + body + crc16(body).to_bytes(2, "big")


class Decoder:
    """Bytes in, frames out. ``dropped`` counts frames thrown away (bad length, bad CRC, a
    pause inside a frame); ``skipped`` counts bytes seen outside any frame."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._last: float | None = None
        self.dropped = 0
        self.skipped = 0

    def feed(self, data: bytes, now: float | None = None) -> Iterator[Frame]:
        """The frames ``data`` completes; ``now`` (seconds, any monotonic clock) lets a
        frame left incomplete for over 20 ms be thrown away."""
        if now is not None and self._buf and self._last is not None and now - self._last > BYTE_TIMEOUT:
            self._drop()
        if now is not None and data:
            self._last = now
        self._buf += data
        while True:
            start = self._buf.find(SYNC)
            if start < 0:
                self.skipped += len(self._buf)
                self._buf.clear()
                return
            if start:
                self.skipped += start
                del self._buf[:start]
            if len(self._buf) < 2:
                return
            length = self._buf[1]
            if length > MAX_PAYLOAD:
                self._drop()
                continue
            end = 4 + length + 2
            if len(self._buf) < end:
                return
            body = bytes(self._buf[1:4 + length])
            if crc16(body) != int.from_bytes(self._buf[4 + length:end], "big"):
                self._drop()
                continue
            del self._buf[:end]
            yield Frame(body[1], body[2], body[3:])

    def _drop(self) -> None:
        """Throw the frame at the buffer's start away: look again from the byte after its sync."""
        self.dropped += 1
        del self._buf[:1]


# -- messages from the controller ------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hello:
    api: int
    version: str
    reset_cause: int
    switches: int
    pixels: int

    @property
    def causes(self) -> list[str]:
        return [name for bit, name in RESET_CAUSES if self.reset_cause & bit] or ["unknown"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    uptime_ms: int
    closed: frozenset[int]
    slot: int | None


@dataclass(frozen=True, slots=True)
class Change:
    uptime_ms: int
    switch: int
    closed: bool
    slot: int | None


@dataclass(frozen=True, slots=True)
class Heartbeat:
    uptime_ms: int
    rx_frames: int
    rx_errors: int
    host_alive: bool


@dataclass(frozen=True, slots=True)
class Ack:
    seq: int
    type: int
    status: int

    @property
    def ok(self) -> bool:
        return self.status == 0


Message = Hello | Snapshot | Change | Heartbeat | Ack
_SIZES = {HELLO: 7, SNAPSHOT: 12, CHANGE: 7, HEARTBEAT: 9, ACK: 3}
_NAMES = {HELLO: "HELLO", SNAPSHOT: "SNAPSHOT", CHANGE: "CHANGE", HEARTBEAT: "HEARTBEAT", ACK: "ACK",
          CMD_HELLO: "HELLO", CMD_HEARTBEAT: "HEARTBEAT", SET_INDICATORS: "SET_INDICATORS",
          SET_STRIP: "SET_STRIP", GET_SNAPSHOT: "GET_SNAPSHOT", SET_SLOTS: "SET_SLOTS"}


def type_name(type_: int) -> str:
    return _NAMES.get(type_, f"0x{type_:02x}")


def _slot(value: int) -> int | None:
    return None if value == NO_SLOT else value


def decode(frame: Frame) -> Message:
    """The controller's message in an intact frame; ProtocolError saying what is wrong."""
    size = _SIZES.get(frame.type)
    if size is None:
        raise ProtocolError(f"unknown message type 0x{frame.type:02x} (seq {frame.seq})")
    p = frame.payload
    if len(p) != size:
        raise ProtocolError(f"{type_name(frame.type)} (seq {frame.seq}) has {len(p)} bytes of payload, expected {size}")
    if frame.type == HELLO:
        return Hello(p[0], f"{p[1]}.{p[2]}.{p[3]}", p[4], p[5], p[6])
    if frame.type == SNAPSHOT:
        bits = int.from_bytes(p[4:11], "little")
        closed = frozenset(i for i in range(SWITCHES) if bits >> i & 1)
        return Snapshot(struct.unpack_from("<I", p)[0], closed, _slot(p[11]))
    if frame.type == CHANGE:
        if p[4] >= SWITCHES or p[5] > 1:
            raise ProtocolError(f"CHANGE (seq {frame.seq}): switch {p[4]} state {p[5]} out of range")
        return Change(struct.unpack_from("<I", p)[0], p[4], bool(p[5]), _slot(p[6]))
    if frame.type == HEARTBEAT:
        uptime, frames, errors = struct.unpack_from("<IHH", p)
        return Heartbeat(uptime, frames, errors, bool(p[8]))
    return Ack(p[0], p[1], p[2])


# -- commands to the controller --------------------------------------------------------------

def pixel_bytes(r: int, g: int, b: int, mode: int = 0) -> bytes:
    return bytes((r, g, b, mode & 0x0F))


def slots_payload(masks: list[int]) -> bytes:
    """``SET_SLOTS``: the in-turn cycle, one mask of hollows (bit i: hollow i) per slot."""
    if len(masks) > SLOTS:
        raise ValueError(f"{len(masks)} in-turn slots: at most {SLOTS}")
    return bytes((len(masks),)) + b"".join((m & 0xFFFF).to_bytes(2, "little") for m in masks)


def hello_payload() -> bytes:
    return bytes((API_LEVEL,))
