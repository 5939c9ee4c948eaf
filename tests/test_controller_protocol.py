"""The host's side of the controller protocol (docs/protocol.md): framing, CRC, resync."""

from __future__ import annotations

import random
import re
import struct

import pytest
from hypothesis import given, settings, strategies as st

from host import controller_protocol as proto


def test_crc_is_ccitt_false():
    assert proto.crc16(b"123456789") == 0x29B1


def test_frame_layout():
    frame = proto.encode(7, proto.SET_STRIP, b"\x02abcd")
    assert frame[:4] == bytes((0xA5, 5, 7, 0x84))
    assert frame[4:9] == b"\x02abcd"
    assert int.from_bytes(frame[9:], "big") == proto.crc16(frame[1:9])
    assert list(proto.Decoder().feed(frame)) == [proto.Frame(7, 0x84, b"\x02abcd")]


def test_payload_limit():
    proto.encode(0, 1, bytes(48))
    with pytest.raises(ValueError, match="at most 48"):
        proto.encode(0, 1, bytes(49))


def test_bad_crc_is_dropped_and_next_frame_survives():
    good = proto.encode(1, proto.HEARTBEAT, bytes(9))
    bad = bytearray(proto.encode(2, proto.HEARTBEAT, bytes(9)))
    bad[6] ^= 0x40
    dec = proto.Decoder()
    assert list(dec.feed(bytes(bad) + good)) == [proto.Frame(1, proto.HEARTBEAT, bytes(9))]
    assert dec.dropped == 1


def test_bogus_length_does_not_swallow_the_frames_after_it():
    """A sync byte with a plausible length just before a real frame: the receiver must look
    again from the byte after the bogus sync, not skip LEN bytes."""
    good = proto.encode(9, proto.ACK, b"\x01\x83\x00")
    dec = proto.Decoder()
    frames = list(dec.feed(b"\xa5\x20\x00" + good + good, now=0.0))
    frames += dec.feed(b"", now=0.001)
    assert frames == []  # the bogus frame might still be completed
    frames += dec.feed(b"", now=0.05)  # 20 ms without a byte: it never will
    assert [f.seq for f in frames] == [9, 9]
    # or its CRC fails once enough bytes are in
    dec = proto.Decoder()
    assert [f.seq for f in dec.feed(b"\xa5\x05\x00" + good + good)] == [9, 9]


def test_frame_split_across_reads_and_stale_partial_frame():
    frame = proto.encode(3, proto.ACK, b"\x00\x81\x00")
    dec = proto.Decoder()
    assert list(dec.feed(frame[:4], now=0.0)) == []
    assert [f.seq for f in dec.feed(frame[4:], now=0.005)] == [3]
    # a frame left half-sent for longer than 20 ms is thrown away
    assert list(dec.feed(frame[:5], now=1.0)) == []
    assert [f.seq for f in dec.feed(frame, now=1.1)] == [3]
    assert dec.dropped == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=8), st.integers(0, 2**32 - 1))
def test_garbage_between_frames_costs_no_good_frame(garbage, seed):
    rnd = random.Random(seed)
    frames = [proto.encode(i, proto.HEARTBEAT, struct.pack("<IHHB", i, 0, 0, 1)) for i in range(len(garbage) + 1)]
    stream = b"".join(g + f for g, f in zip(garbage + [b""], frames))
    dec = proto.Decoder()
    out = []
    pos = 0
    now = 0.0
    while pos < len(stream):  # fed in random pieces, as a serial port delivers
        step = rnd.randint(1, 30)
        now += 0.001
        out += dec.feed(stream[pos:pos + step], now=now)
        pos += step
    for k in range(len(garbage) + 1):  # the line goes quiet: every bogus frame is given up
        out += dec.feed(b"", now=now + 1 + k)
    # garbage may itself hold a valid frame only with a valid CRC: vanishingly rare, but a
    # stray frame must never cost a real one
    assert [f.seq for f in out if f.type == proto.HEARTBEAT and len(f.payload) == 9][-len(frames):] == \
        list(range(len(frames)))


def test_decode_messages():
    hello = proto.decode(proto.Frame(0, proto.HELLO, bytes((1, 1, 0, 2, 0x02, 49, 19))))
    assert hello == proto.Hello(1, "1.0.2", 2, 49, 19) and hello.causes == ["reset pin"]
    bits = (1 << 0) | (1 << 15) | (1 << 48)
    snap = proto.decode(proto.Frame(1, proto.SNAPSHOT, struct.pack("<I", 1234) + bits.to_bytes(7, "little") + b"\xff"))
    assert snap == proto.Snapshot(1234, frozenset({0, 15, 48}), None)
    change = proto.decode(proto.Frame(2, proto.CHANGE, struct.pack("<IBBB", 99, 46, 1, 2)))
    assert change == proto.Change(99, 46, True, 2)
    beat = proto.decode(proto.Frame(3, proto.HEARTBEAT, struct.pack("<IHHB", 5, 6, 7, 0)))
    assert beat == proto.Heartbeat(5, 6, 7, False)
    ack = proto.decode(proto.Frame(4, proto.ACK, bytes((9, 0x84, 3))))
    assert ack == proto.Ack(9, 0x84, 3) and not ack.ok


@pytest.mark.parametrize("frame, message", [
    (proto.Frame(0, 0x42, b""), "unknown message type 0x42"),
    (proto.Frame(5, proto.ACK, b"\x00"), "ACK (seq 5) has 1 bytes of payload, expected 3"),
    (proto.Frame(6, proto.CHANGE, struct.pack("<IBBB", 0, 60, 1, 0)), "switch 60"),
])
def test_decode_errors_say_what(frame, message):
    with pytest.raises(proto.ProtocolError, match=re.escape(message)):
        proto.decode(frame)
