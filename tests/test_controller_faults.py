"""The board controller's faults against the real firmware in the simulator: a noisy line,
fuzzed frames, the cable pulled out, a controller reset, another firmware API level, and
commands that must be acknowledged (see tests/controller_link_kit.py for how it waits).
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import serial

from controller_sim import SimController  # noqa: F401
from controller_link_kit import (  # noqa: F401 (fixtures among them)
    Board, Collected, DARK, HOST_GONE, Link, OFF, TIMEOUT, at_least, boards, cells, elf, elf_api2,
    kind, links, lit, message, messages, palette, px, sim, sim_build, sim_link, sims, uptimes,
    wait_for, wait_frame)
from host import controller_protocol as proto
from host.controller_link import CONNECTED, END, FAILED, LOST, RESET
from host.games import rules_for
from host.indicators import IN_TURN, SLOW
from host.serial_source import SerialBoard, SourceFailed


# -- 5. a noisy line ----------------------------------------------------------------------------

class NoisyPort:
    """A serial port whose writes and/or reads are damaged while ``active``: bytes inserted
    (now and then a sync byte with a plausible length), bits flipped, bytes dropped, the end
    cut off. Seeded; used only from the link's I/O thread."""

    def __init__(self, port: Any, seed: int, *, writes: bool = False, reads: bool = False,
                 rate: float = 0.3) -> None:
        self.port, self.rng, self.rate = port, random.Random(seed), rate
        self.writes, self.reads = writes, reads
        self.active = False
        self.damaged = 0

    def damage(self, data: bytes) -> bytes:
        if not data or self.rng.random() >= self.rate:
            return data
        self.damaged += 1
        b = bytearray(data)
        what = self.rng.randrange(5)
        i = self.rng.randrange(len(b))
        if what == 0:
            b[i] ^= 1 << self.rng.randrange(8)
        elif what == 1:
            del b[i]
        elif what == 2:
            b[i:i] = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 12)))
        elif what == 3:
            b[i:i] = bytes((proto.SYNC, self.rng.randint(0, 60)))
        else:
            del b[i:]
        return bytes(b)

    def write(self, data: bytes) -> int:
        self.port.write(self.damage(data) if self.active and self.writes else data)
        return len(data)

    def read(self, size: int = 1) -> bytes:
        data = self.port.read(size)
        return self.damage(data) if self.active and self.reads else data

    @property
    def in_waiting(self) -> int:
        return self.port.in_waiting

    def close(self) -> None:
        self.port.close()


def noisy_opener(seed: int, **options: Any) -> tuple[list[NoisyPort], Callable[[str, int], NoisyPort]]:
    ports: list[NoisyPort] = []

    def open_port(name: str, baud: int) -> NoisyPort:
        port = serial.Serial(name, baud, timeout=0.01, write_timeout=0.5)
        ports.append(NoisyPort(port, seed + len(ports), **options))
        return ports[-1]
    return ports, open_port


def no_reset(link: Link, since: int = 0) -> None:
    """The firmware did not restart: no RESET, no HELLO, its uptime only grew."""
    assert not [r for r in link.reports.since(since) if r.kind in (RESET, LOST)]
    up = uptimes(link.reports, since)
    assert up == sorted(up), up
    assert link.link.stats.resets == 0


def test_garbage_from_the_host_costs_nothing(sim, links):
    seed = 1234
    ports, open_port = noisy_opener(seed, writes=True, rate=0.35)
    link = links(sim.link, open_port=open_port)
    link.connected()
    first = link.heartbeat()
    start = link.reports.mark()
    rng = random.Random(seed)
    ports[-1].active = True
    noise_until = sim.time() + 3.0
    closed: set[int] = set()
    toggled: list[tuple[int, bool]] = []
    for k in range(8):
        pixels = palette(10 + k)
        pixels[0] = px(255, 0, 0, SLOW) if k % 2 else pixels[0]
        link.link.show(pixels)
        for n in rng.sample(range(49), 3):
            state = n not in closed
            sim.command(f"{'close' if state else 'open'} {n}")
            (closed.add if state else closed.discard)(n)
            toggled.append((n, state))
        steady = lit(pixels)
        wait_frame(sim, lambda f: f[1:] == steady[1:] and f[0] in (steady[0], OFF), 0,
                   f"LED state {k} through the noise (seed {seed})")
        # every change is reported: the controller's side of the line is clean
        changes = wait_for(lambda: at_least(len(toggled), messages(link.reports, proto.Change, start)),
                           f"the CHANGEs of round {k} (seed {seed})")
    sim.wait_sim_time(noise_until)
    ports[-1].active = False
    stats = link.link.stats
    assert ports[-1].damaged > 10 and stats.resent > 0, (ports[-1].damaged, stats)
    assert sorted((c.switch, c.closed) for c in changes) == sorted(toggled)
    assert link.snapshot_after(changes[-1].uptime_ms, start).closed == closed
    beat = link.heartbeat(link.reports.mark())
    assert beat.rx_errors > first.rx_errors and beat.host_alive
    no_reset(link)
    assert stats.refused == 0


def test_garbage_towards_the_host_loses_nothing_a_snapshot_does_not_restore(sim, links):
    """The harness cannot damage what the firmware sends; the host's reads are damaged
    instead, real frames mixed with random bytes."""
    seed = 4321
    ports, open_port = noisy_opener(seed, reads=True, rate=0.06)
    link = links(sim.link, open_port=open_port)
    link.connected()
    link.reports.wait(message(proto.Snapshot), "the first SNAPSHOT")
    start = link.reports.mark()
    ports[-1].active = True
    noise_until = sim.time() + 3.0
    rng = random.Random(seed)
    closed: set[int] = set()
    toggled: set[tuple[int, bool]] = set()
    for k in range(6):
        pixels = palette(20 + k)
        link.link.show(pixels)
        for _ in range(4):
            n = rng.randrange(49)
            sim.command(f"{'open' if n in closed else 'close'} {n}")
            (closed.discard if n in closed else closed.add)(n)
            toggled.add((n, n in closed))
        sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    sim.wait_sim_time(noise_until)
    ports[-1].active = False
    mark = link.reports.mark()
    t = sim.time()
    assert link.snapshot_after(int(1000 * t), mark).closed == closed
    stats = link.link.stats
    assert stats.damaged > 0 and ports[-1].damaged >= 5, (stats, ports[-1].damaged)
    # whatever CHANGE got through is one that happened, and the picture the host builds as
    # SerialBoard does (CHANGEs applied, each SNAPSHOT replacing all) ends right
    picture: set[int] = set()
    for report in link.reports.since(start):
        if isinstance(report.message, proto.Change):
            assert (report.message.switch, report.message.closed) in toggled, report
            (picture.add if report.message.closed else picture.discard)(report.message.switch)
        elif isinstance(report.message, proto.Snapshot):
            picture = set(report.message.closed)
    assert picture == closed
    no_reset(link, start)
    assert not [r for r in link.reports.since(start) if r.kind == CONNECTED]


# -- 6. fuzzing the firmware's receiver ----------------------------------------------------------

class RawPort:
    """The controller's UART opened directly (no ControllerLink): frames sent by hand, what
    comes back decoded by a thread."""

    def __init__(self, path: Path) -> None:
        self.serial = serial.Serial(str(path), 115200, timeout=0.05, write_timeout=60)
        self.decoder = proto.Decoder()
        self.received = Collected(self._frames(), "raw port reader")
        self.seq = 0

    def _frames(self) -> Iterator[tuple[float, proto.Frame]]:
        while self.serial.is_open:
            try:
                data = self.serial.read(256)
            except Exception:  # closed by close(), from the test's thread
                return
            for frame in self.decoder.feed(data):  # the firmware sends whole frames
                yield time.monotonic(), frame

    def send(self, type_: int, payload: bytes = b"") -> int:
        seq, self.seq = self.seq, (self.seq + 1) % 256
        self.serial.write(proto.encode(seq, type_, payload))
        return seq

    def wait(self, type_: int, what: str, since: int = 0, timeout: float = TIMEOUT, **fields: Any) -> Any:
        def match(item):
            if item[1].type != type_:
                return False
            m = proto.decode(item[1])
            return all(getattr(m, k) == v for k, v in fields.items())
        return proto.decode(self.received.wait(match, what, since, timeout)[1])

    def ack(self, seq: int, type_: int, since: int = 0) -> proto.Ack:
        return self.wait(proto.ACK, f"the ACK of {proto.type_name(type_)} seq {seq}", since, seq=seq, type=type_)

    def messages(self, since: int = 0) -> list[proto.Message]:
        return [proto.decode(f) for _, f in self.received.since(since)]

    def close(self) -> None:
        self.serial.close()
        self.received.join()


@pytest.fixture
def raw(sim: SimController) -> Iterator[RawPort]:
    port = RawPort(sim.link)
    yield port
    port.close()


def valid_command(rng: random.Random) -> bytes:
    type_ = rng.choice([proto.CMD_HELLO, proto.CMD_HEARTBEAT, proto.SET_INDICATORS, proto.SET_STRIP,
                        proto.GET_SNAPSHOT, proto.SET_SLOTS])
    if type_ == proto.CMD_HELLO:
        payload = bytes((1,))
    elif type_ == proto.SET_INDICATORS:
        payload = b"".join(px(*rng.randbytes(3), rng.randrange(4)) for _ in range(3))
    elif type_ == proto.SET_STRIP:
        first = rng.randrange(16)
        payload = bytes((first,)) + b"".join(px(*rng.randbytes(3), rng.randrange(4))
                                             for _ in range(rng.randint(1, min(11, 16 - first))))
    elif type_ == proto.SET_SLOTS:
        payload = proto.slots_payload([rng.randrange(1 << 16) for _ in range(rng.randint(0, 16))])
    else:
        payload = b""
    return proto.encode(rng.randrange(256), type_, payload)


def fuzz_strings(rng: random.Random, count: int) -> Iterator[bytes]:
    """Random bytes, random frames with a valid CRC, mutated valid commands."""
    for _ in range(count):
        what = rng.randrange(8)
        if what == 0:
            yield rng.randbytes(rng.randint(1, 60))
        elif what == 1:  # a valid CRC around random type, length and payload
            yield proto.encode(rng.randrange(256), rng.randrange(256), rng.randbytes(rng.randint(0, 48)))
        elif what == 2:  # a valid CRC around a host type with a payload of the wrong size
            yield proto.encode(rng.randrange(256), rng.randint(0x81, 0x8F), rng.randbytes(rng.randint(0, 48)))
        else:
            frame = bytearray(valid_command(rng))
            if what == 3:
                for _ in range(rng.randint(1, 3)):
                    frame[rng.randrange(len(frame))] ^= 1 << rng.randrange(8)
            elif what == 4:
                del frame[rng.randint(1, len(frame) - 1):]
            elif what == 5:
                frame[1] = rng.choice([0, 1, 47, 48, 49, 200, 255, rng.randrange(256)])
            elif what == 6:
                frame[:0] = bytes((proto.SYNC,)) * rng.randint(1, 6)
            else:
                frame[rng.randrange(len(frame)):rng.randrange(len(frame))] = rng.randbytes(rng.randint(1, 8))
            yield bytes(frame)


def test_fuzzing_never_wedges_the_firmware(sim, raw, tmp_path):
    seed = 20261122
    before = raw.wait(proto.HEARTBEAT, "a HEARTBEAT before the fuzz")
    start = raw.received.mark()
    sent = list(fuzz_strings(random.Random(seed), 2500))
    # the marker below must not share its SEQ with a HEARTBEAT hidden in the fuzz
    used = {f.seq for f in proto.Decoder().feed(b"".join(sent)) if f.type == proto.CMD_HEARTBEAT}
    raw.seq = min(set(range(256)) - used)
    log = tmp_path / "fuzz-sent.txt"
    log.write_text("".join(s.hex() + "\n" for s in sent))
    where = f"(seed {seed}, the {len(sent)} strings sent, one per line: {log})"
    for s in sent:
        raw.serial.write(s)
    raw.serial.flush()
    # a marker: when its ACK comes back, the firmware has read everything before it
    marker = raw.send(proto.CMD_HEARTBEAT)
    raw.ack(marker, proto.CMD_HEARTBEAT, start)
    time.sleep(0.05)  # quiet line: a bogus frame still open times out (20 ms)
    mark = raw.received.mark()
    hello = raw.send(proto.CMD_HELLO, bytes((1,)))
    snap = raw.send(proto.GET_SNAPSHOT)
    assert raw.ack(hello, proto.CMD_HELLO, mark).status == 0, where
    answer = raw.wait(proto.HELLO, "the HELLO", mark)
    assert answer.causes == ["power-on"], where
    assert raw.ack(snap, proto.GET_SNAPSHOT, mark).status == 0, where
    raw.wait(proto.SNAPSHOT, "the SNAPSHOT", mark)
    # heartbeats go on, the uptime only grows, nothing restarted
    after = raw.wait(proto.HEARTBEAT, "a HEARTBEAT after the fuzz", raw.received.mark())
    later = raw.wait(proto.HEARTBEAT, "another HEARTBEAT", raw.received.mark())
    assert later.uptime_ms == after.uptime_ms + 500, where
    assert after.rx_errors > before.rx_errors + 100 and after.rx_frames > before.rx_frames + 100, (before, after)
    msgs = raw.messages(start)
    up = [m.uptime_ms for m in msgs if hasattr(m, "uptime_ms")]
    assert up == sorted(up), where
    assert all(m.causes == ["power-on"] for m in msgs if isinstance(m, proto.Hello)), where
    assert raw.decoder.dropped == 0, where  # what the firmware sent stayed intact


# -- 7. the cable pulled out and put back ---------------------------------------------------------

def test_unplug_and_replug(sims, elf, links):
    sim = sims(elf, {1, 2})
    link = links(sim.link)
    link.connected()
    pixels = palette(30)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    mark = link.reports.mark()
    sim.kill()
    link.reports.wait(kind(LOST), "LOST", mark)
    mark = link.reports.mark()
    new = sims(elf, {3, 46})
    hello = link.connected(mark)
    assert hello.causes == ["power-on"]
    # the host's pixels on the new controller, without show() again, and its switches
    new.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    link.reports.wait(message(proto.Snapshot, closed={3, 46}), "a SNAPSHOT of the new switches", mark)
    new.close_switch(4)
    assert link.reports.wait(message(proto.Change, switch=4), "CHANGE 4", mark).message.closed
    assert link.link.stats.reconnects >= 1


def test_lost_is_reported_promptly(sims, elf, links):
    sim = sims(elf)
    link = links(sim.link)
    link.connected()
    link.heartbeat()
    mark = link.reports.mark()
    t0 = link.link.wall()
    sim.kill()
    lost = link.reports.wait(kind(LOST), "LOST", mark)
    assert lost.t - t0 < 3.0, lost  # a vanished pty is a port error at once; silence takes 2 s


def test_serial_board_goes_on_after_a_reconnection(sims, elf, boards):
    sim = sims(elf, {0, 1})
    board = boards(sim.link)
    board.observation(lambda o: dict(o.cells) == cells({0, 1}), "the first board")
    sim.kill()
    mark = board.items.mark()
    new = sims(elf, {2, 3, 20})
    board.observation(lambda o: dict(o.cells) == cells({2, 3}) and dict(o.reserves) == {"light": 1, "dark": 0},
                      "the new controller's board", mark)
    mark = board.items.mark()
    new.close_switch(47)
    press = board.press("the dark player's turn button", mark)
    assert (press.button, press.player) == ("end-turn", "dark")


# -- 8. a controller reset ------------------------------------------------------------------------

def test_reset_is_reported_and_the_controller_set_again(sim, links):
    link = links(sim.link)
    link.connected()
    pixels = palette(40)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    mark, strip_mark = link.reports.mark(), sim.mark()
    sim.command("reset\nclose 9")  # a switch closed during the reset: only a snapshot has it
    reset = link.reports.wait(kind(RESET), "RESET", mark)
    assert reset.detail == "reset pin" and reset.message.causes == ["reset pin"]
    after = link.reports.since().index(reset) + 1
    # the firmware starts dark; the link sets the pixels again by itself
    t_dark, _ = wait_frame(sim, lambda f: f in (DARK, HOST_GONE), strip_mark, "the restarted firmware's strip")
    wait_frame(sim, lambda f: f == lit(pixels), strip_mark, "the pixels set again", after=t_dark)
    snap = link.reports.wait(message(proto.Snapshot), "a SNAPSHOT after the reset", after).message
    assert 9 in snap.closed
    assert snap.uptime_ms < 2000  # counted from the restart
    assert link.link.stats.resets == 1
    assert not [r for r in link.reports.since(mark) if r.kind in (LOST, CONNECTED)]


# -- 9. another API level --------------------------------------------------------------------------

def test_api_mismatch_fails_with_instructions(sims, elf_api2, links):
    sim = sims(elf_api2)
    link = links(sim.link)
    failed = link.reports.wait(kind(FAILED), "FAILED")
    port = str(sim.link)
    assert "API level 2" in failed.detail and f"make -C firmware flash PORT={port}" in failed.detail, failed.detail
    link.reports.join()  # the link ends after FAILED
    assert link.link.next_report(0) is END
    board = SerialBoard(port, rules_for("pylos"))
    with pytest.raises(SourceFailed, match="API level 2") as info:
        list(board.items())
    assert f"make -C firmware flash PORT={port}" in str(info.value)


# -- 10. every command is acknowledged -------------------------------------------------------------

class TapPort:
    """A serial port that decodes what the link writes and what it reads. Once the
    controller's HELLO is read, it reads nothing more until the link has sent a command
    after its HELLOs: the link asks for a snapshot first, unless the controller's own
    (one a second) has come in, and under load that one could come first. Held back, the
    bytes wait in the port."""

    def __init__(self, port: Any) -> None:
        self.port = port
        self.written, self.read_frames = proto.Decoder(), proto.Decoder()
        self.commands: list[proto.Frame] = []
        self.acks: list[proto.Ack] = []
        self.hello = False

    def write(self, data: bytes) -> int:
        self.commands.extend(self.written.feed(data))
        return self.port.write(data)

    def _held(self) -> bool:
        return self.hello and all(f.type == proto.CMD_HELLO for f in self.commands)

    def read(self, size: int = 1) -> bytes:
        if self._held():
            return b""
        data = self.port.read(size)
        frames = list(self.read_frames.feed(data))
        self.hello |= any(f.type == proto.HELLO for f in frames)
        self.acks.extend(proto.decode(f) for f in frames if f.type == proto.ACK)
        return data

    @property
    def in_waiting(self) -> int:
        return 0 if self._held() else self.port.in_waiting

    def close(self) -> None:
        self.port.close()


def test_every_command_of_the_link_is_acknowledged(sim, links):
    taps: list[TapPort] = []

    def open_port(name: str, baud: int) -> TapPort:
        taps.append(TapPort(serial.Serial(name, baud, timeout=0.01, write_timeout=0.5)))
        return taps[-1]

    link = links(sim.link, open_port=open_port)
    link.connected()
    for k in range(4):
        pixels = palette(50 + k)
        pixels[3] = px(1, 2, 3, IN_TURN)
        link.link.show(pixels, [1, 0, 1][:k])
        sim.wait_strip(lambda f: f[4:] == lit(pixels)[4:], TIMEOUT)
    link.heartbeat(link.reports.mark())
    link.heartbeat(link.reports.mark())  # a second of heartbeats
    tap = taps[-1]
    commands = list(tap.commands)
    types = {f.type for f in commands}
    assert {proto.CMD_HELLO, proto.CMD_HEARTBEAT, proto.SET_INDICATORS, proto.SET_STRIP, proto.GET_SNAPSHOT,
            proto.SET_SLOTS} <= types, types

    def unacknowledged():
        acked = {(a.seq, a.type): a.status for a in list(tap.acks)}
        return [f for f in commands if acked.get((f.seq, f.type)) != 0]
    wait_for(lambda: not unacknowledged(), "an ACK of every command")
    assert link.link.stats.refused == 0


def test_bad_commands_get_the_right_status(sim, raw):
    raw.wait(proto.HEARTBEAT, "a HEARTBEAT")
    good = px(10, 20, 30)
    seq = raw.send(proto.SET_STRIP, bytes((0,)) + good)
    assert raw.ack(seq, proto.SET_STRIP).status == 0
    sim.wait_strip(lambda f: f[3] == "0a141e", TIMEOUT)
    cases = [
        (proto.SET_STRIP, bytes((15,)) + px(1, 1, 1) * 2, 3),      # 15 + 2 pixels passes 16
        (proto.SET_STRIP, bytes((16,)) + px(1, 1, 1), 3),          # no hollow 16
        (proto.SET_STRIP, bytes((0,)) + px(1, 1, 1, 4), 3),        # no mode 4
        (proto.SET_STRIP, bytes((0,)) + px(1, 1, 1)[:3], 1),       # not whole pixels
        (proto.SET_INDICATORS, px(1, 1, 1) * 2, 1),
        (proto.SET_SLOTS, bytes((17,)) + bytes(34), 3),            # 17 slots
        (proto.SET_SLOTS, bytes((2, 1, 0)), 1),                    # 2 slots, 1 mask
        (proto.CMD_HEARTBEAT, b"\x00", 1),
        (proto.GET_SNAPSHOT, b"\x00\x00", 1),
        (proto.CMD_HELLO, b"", 1),
        (0x90, b"", 2),
        (0x04, bytes(9), 2),                                       # a controller message echoed
        (proto.CMD_HEARTBEAT, b"", 0),
    ]
    for type_, payload, status in cases:
        mark = raw.received.mark()
        seq = raw.send(type_, payload)
        assert raw.ack(seq, type_, mark).status == status, (hex(type_), payload.hex())
    # nothing refused changed the strip
    mark = sim.mark()
    sim.command("strip")
    line = sim.wait_line("strip", TIMEOUT, since=mark)
    assert line.split()[3:5] == [OFF, OFF] and line.split()[6] == "0a141e", line
    # GET_SNAPSHOT: ACK, then the SNAPSHOT
    mark = raw.received.mark()
    seq = raw.send(proto.GET_SNAPSHOT)
    raw.wait(proto.SNAPSHOT, "the SNAPSHOT", mark)
    frames = [f for _, f in raw.received.since(mark)]
    ack = next(i for i, f in enumerate(frames)
               if f.type == proto.ACK and f.payload[:2] == bytes((seq, proto.GET_SNAPSHOT)))
    assert frames[ack + 1].type == proto.SNAPSHOT, frames  # queued right behind its ACK


def test_a_port_that_is_not_there_is_said_once_and_waited_for(tmp_path, caplog):
    """A wrong port name, or a controller not plugged in yet: one warning naming the port,
    then the link keeps trying quietly until it is closed."""
    import logging
    from host.controller_link import ControllerLink
    caplog.set_level(logging.DEBUG, logger="arbiter.controller")
    missing = tmp_path / "ttyUSB9"
    link = ControllerLink(str(missing)).start()
    try:
        wait_for(lambda: sum("cannot open the port" in r.getMessage() for r in caplog.records) >= 3,
                 "three attempts to open the port")
    finally:
        link.close()
    said = [r for r in caplog.records if "cannot open the port" in r.getMessage()]
    assert said[0].levelno == logging.WARNING and str(missing) in said[0].getMessage()
    assert all(r.levelno == logging.DEBUG for r in said[1:])
