"""The host's side of the board controller (host/controller_link.py, host/serial_source.py)
against the real firmware (firmware/build/arbiter.elf) running in the simulator harness
(firmware/sim, driven through tests/controller_sim.py).

Every wait has a generous deadline and waits on a condition. Durations are asserted only in
simulated time (the harness's ``t=``, the firmware's uptime): the harness paces the firmware
to the wall clock, but a loaded machine delays the test's own threads, never the firmware's
clock. Randomness is seeded; a failing fuzz run prints its seed and the bytes it sent.
"""

from __future__ import annotations

import pytest

from controller_link_kit import (  # noqa: F401 (fixtures among them)
    Board, Collected, DARK, HOST_GONE, OFF, PIXELS, Pixels, TIMEOUT, at_least, boards, cells, elf,
    kind, links, lit, message, messages, palette, px, reports_of, sim, sim_build, sim_link, sims,
    strip_frames, timed, wait_for, wait_frame, wait_in_second)
from host import controller_protocol as proto
from host.controller_link import CONNECTED, ControllerLink
from host.indicators import FAST, IN_TURN, SLOW
from host.observation import Press


# -- 1. handshake ---------------------------------------------------------------------------

def test_handshake_and_first_snapshot(sims, elf, links):
    closed = {0, 7, 15, 16, 30, 31, 45, 48}
    sim = sims(elf, closed)
    link = links(sim.link)
    hello = link.connected()
    assert (hello.api, hello.switches, hello.pixels) == (proto.API_LEVEL, 49, 19)
    assert hello.causes == ["power-on"] and hello.version == "1.0.0"
    assert link.link.hello == hello
    snapshot = link.reports.wait(message(proto.Snapshot), "a SNAPSHOT").message
    assert snapshot.closed == closed
    assert snapshot.slot is None  # no in-turn cycle
    beat = link.heartbeat()
    assert beat.host_alive and beat.rx_frames >= 2 and beat.rx_errors == 0
    assert link.link.stats.damaged == link.link.stats.missed == link.link.stats.refused == 0


# -- 2. switches ----------------------------------------------------------------------------

#: a hollow in each corner, a slot at each end of both trays, the three buttons, one per row/column
SAMPLE = (0, 3, 12, 15, 16, 30, 31, 45, 46, 47, 48, 8, 24, 40)


def test_switch_changes_arrive_once_and_snapshots_agree(sim, links):
    link = links(sim.link)
    link.connected()
    link.reports.wait(message(proto.Snapshot), "the first SNAPSHOT")
    start = link.reports.mark()
    closed: set[int] = set()
    debounce_ms = []
    for state in (True, False):
        for n in SAMPLE:
            mark = link.reports.mark()
            t = timed(sim, f"{'close' if state else 'open'} {n}")
            change = link.reports.wait(message(proto.Change, switch=n), f"CHANGE of switch {n}", mark).message
            assert change.closed is state
            (closed.add if state else closed.discard)(n)
            debounce_ms.append(change.uptime_ms - 1000 * t)
        assert link.snapshot_after(change.uptime_ms).closed == closed
    changes = [(c.switch, c.closed) for c in messages(link.reports, proto.Change, start)]
    assert changes == [(n, True) for n in SAMPLE] + [(n, False) for n in SAMPLE]
    # the firmware's debounce: 3 equal readings 7 ms apart (uptime counts from the start
    # of the simulation, give or take a millisecond)
    assert all(12 <= d <= 23 for d in debounce_ms), debounce_ms


@pytest.mark.parametrize("switch", [5, 20, 48])
def test_contact_bounce_gives_one_change(sim, links, switch):
    link = links(sim.link)
    link.connected()
    link.reports.wait(message(proto.Snapshot), "the first SNAPSHOT")
    mark = link.reports.mark()
    t_close = timed(sim, f"bounce {switch}")
    first = link.reports.wait(message(proto.Change, switch=switch), "the CHANGE", mark).message
    t_open = timed(sim, f"bounce-open {switch}")
    # a snapshot well after the chatter ended: any second change would have come before it
    assert switch not in link.snapshot_after(int(1000 * t_open) + 60).closed
    changes = [(c.switch, c.closed) for c in messages(link.reports, proto.Change, mark)]
    assert changes == [(switch, True), (switch, False)]
    # the first reading may catch the chatter closed, the last comes at most 21 ms after it ended
    assert 12 <= first.uptime_ms - 1000 * t_close <= 5 + 23


def test_serial_board_observations_and_end_turn_presses(sims, elf, boards):
    closed = {0, 5, 16, 17, 31}
    sim = sims(elf, closed)
    board = boards(sim.link)
    first = board.observation(lambda o: True, "the first observation")
    assert dict(first.cells) == cells(closed)
    assert dict(first.reserves) == {"light": 2, "dark": 1}
    for n, change in ((10, "close"), (18, "close"), (44, "close"), (0, "open"), (16, "open")):
        mark = board.items.mark()
        sim.command(f"{change} {n}")
        (closed.add if change == "close" else closed.discard)(n)
        light, dark = sum(i in closed for i in range(16, 31)), sum(i in closed for i in range(31, 46))
        reserves = {"light": light, "dark": dark}
        board.observation(lambda o: dict(o.cells) == cells(closed) and dict(o.reserves) == reserves,
                          f"the board after {change} {n}", mark)
    for button, player in ((46, "light"), (47, "dark"), (46, "light")):
        mark = board.items.mark()
        sim.close_switch(button)
        press = board.press(f"the press of {button}", mark)
        assert (press.button, press.player, press.choice) == ("end-turn", player, None)
        sim.open_switch(button)
    # releasing a button is no press
    time_mark = board.items.mark()
    sim.close_switch(2)
    closed.add(2)
    board.observation(lambda o: dict(o.cells) == cells(closed), "the board after close 2", time_mark)
    assert not [i for i in board.items.since(time_mark) if isinstance(i, Press)]


def test_confirm_press_carries_the_slot_on_show(sim, boards):
    """Three candidates, hollows 0, 1 and 2 in slots 0, 1 and 2: a confirm press reports the
    slot whose hollow the strip showed at that moment."""
    board = boards(sim.link)
    board.observation(lambda o: True, "the first observation")
    colour = px(0, 200, 90, IN_TURN)
    pixels = [px(0, 0, 0)] * PIXELS
    pixels[3:6] = [colour] * 3
    mark_strip = sim.mark()
    board.link.show(pixels, [1 << 0, 1 << 1, 1 << 2])
    lit_hollow = lambda f: [i for i in range(16) if f[3 + i] != OFF]  # noqa: E731
    wait_frame(sim, lambda f: lit_hollow(f) == [0], mark_strip, "the first candidate lit")
    choices: list[int] = []
    while set(choices) != {0, 1, 2}:
        assert len(choices) < 8, choices
        # press well inside a slot's lit part (0-0.8 s): the CHANGE comes 14-21 ms later
        wait_in_second(sim, 0.15, 0.45)
        mark = board.items.mark()
        t = timed(sim, "close 48")
        press = board.press("the confirm press", mark)
        sim.open_switch(48)
        shown = [f for ft, f in strip_frames(sim, mark_strip) if ft <= t][-1]
        assert press.button == "confirm" and lit_hollow(shown) == [press.choice], (press, shown)
        choices.append(press.choice)
        sim.wait_sim_time(t + 0.6)  # the next press in the next slot


# -- 3. LEDs --------------------------------------------------------------------------------

def test_steady_pixels_are_shown_and_stay(sim, links):
    link = links(sim.link)
    link.connected()
    for k in range(3):
        pixels = palette(k)
        link.link.show(pixels)
        sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    # steady: the strip is written only when it changes, so no new frame for a while
    mark = sim.mark()
    sim.wait_sim_time(sim.time() + 1.5)
    assert strip_frames(sim, mark) == []
    # one hollow changed: only that pixel differs
    pixels[10] = px(1, 2, 3)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    assert link.link.stats.refused == 0


def runs(frames: list[tuple[float, Pixels]], pixel: int) -> list[tuple[bool, float]]:
    """(on, duration) of every whole run of ``pixel`` staying on or off."""
    times = toggles(frames, pixel)
    first_on = next(f[pixel] != OFF for t, f in frames if t >= times[0]) if times else False
    return [((i % 2 == 0) == first_on, round(b - a, 4)) for i, (a, b) in enumerate(zip(times, times[1:]))]


def toggles(frames: list[tuple[float, Pixels]], pixel: int) -> list[float]:
    """Simulated times at which ``pixel`` went on or off."""
    out, state = [], None
    for t, frame in frames:
        on = frame[pixel] != OFF
        if state is not None and on != state:
            out.append(t)
        state = on
    return out


def test_blinking_and_in_turn_pixels(sim, links):
    link = links(sim.link)
    link.connected()
    pixels = [px(0, 0, 0)] * PIXELS
    pixels[0] = px(255, 0, 0, SLOW)
    pixels[1] = px(0, 255, 0, FAST)
    pixels[2] = px(0, 0, 255, IN_TURN)  # an indicator in turn keeps the cycle's rhythm
    pixels[3] = px(9, 9, 9)
    pixels[4:7] = [px(255, 255, 0, IN_TURN)] * 3
    # three candidates: hollows 1+2, hollow 3, hollows 1+3 (hollows shared between slots)
    masks = [0b0110, 0b1000, 0b1010]
    mark = sim.mark()
    link.link.show(pixels, masks)
    start, _ = wait_frame(sim, lambda f: f[3] == "090909", mark, "the steady pixel")
    sim.wait_sim_time(start + 3.6)
    frames = [(t, f) for t, f in strip_frames(sim, mark) if t >= start]
    allowed = [("ff0000", OFF), ("00ff00", OFF), ("0000ff", OFF), ("090909",)] + [("ffff00", OFF)] * 3
    for t, frame in frames:
        assert all(frame[i] in allowed[i] for i in range(7)) and frame[7:] == (OFF,) * 12, (t, frame)

    slow, fast, turn = runs(frames, 0), runs(frames, 1), runs(frames, 2)
    assert len(slow) >= 5 and all(abs(d - 0.5) <= 0.004 for _, d in slow), slow
    assert len(fast) >= 20 and all(abs(d - 0.125) <= 0.004 for _, d in fast), fast
    # in turn: lit for 0.8 s, dark for 0.2 s, every second of uptime
    assert len(turn) >= 5 and all(abs(d - (0.8 if on else 0.2)) <= 0.004 for on, d in turn), turn
    # each second, the hollows of its slot: slot = uptime in seconds mod 3 (the simulated
    # time runs a fraction of a millisecond ahead of the uptime)
    seconds: dict[int, set[int]] = {}
    for t, frame in frames:
        if frame[2] != OFF:
            hollows = sum(1 << (i - 3) for i in range(3, 19) if frame[i] not in (OFF, "090909"))
            seconds.setdefault(int(t), set()).add(hollows)
    assert len(seconds) >= 3 and all(shown == {masks[k % 3]} for k, shown in seconds.items()), seconds
    # the slot each snapshot reports is the one the strip shows at that uptime
    snap = link.snapshot_after(0, link.reports.mark())
    assert snap.slot == (snap.uptime_ms // 1000) % 3


# -- 4. heartbeats and the host going away ------------------------------------------------------

def test_host_heartbeat_keeps_the_host_alive_and_its_absence_shows(sim, links, sims, elf):
    link = links(sim.link)
    link.connected()
    pixels = palette(5)
    link.link.show(pixels)
    sim.wait_strip(lambda f: f == lit(pixels), TIMEOUT)
    mark = link.reports.mark()
    beats = wait_for(lambda: at_least(5, messages(link.reports, proto.Heartbeat, mark)), "5 HEARTBEATs")
    assert all(b.host_alive for b in beats), beats
    assert beats[-1].rx_frames >= beats[0].rx_frames + 3  # the host's heartbeats
    assert all(b.uptime_ms - a.uptime_ms == 500 for a, b in zip(beats, beats[1:])), beats
    strip_mark = sim.mark()
    t_close = sim.time()
    link.close()
    # no good frame for 3 s: the strip goes dark but for pixel 2 blinking blue
    t_gone, frame = wait_frame(sim, lambda f: f != lit(pixels), strip_mark, "the host-gone strip")
    assert frame in (DARK, HOST_GONE)
    assert 2.0 <= t_gone - t_close <= 3.2, (t_close, t_gone)
    on, _ = wait_frame(sim, lambda f: f == HOST_GONE, strip_mark, "pixel 2 blue")
    sim.wait_sim_time(on + 1.6)
    blink = toggles([f for f in strip_frames(sim, strip_mark) if f[0] >= on], 2)
    assert len(blink) >= 3 and all(abs(b - a - 0.5) <= 0.004 for a, b in zip(blink, blink[1:])), blink
    assert all(f in (DARK, HOST_GONE) for t, f in strip_frames(sim, strip_mark) if t >= t_gone)
    # a new host: its pixels come back (shown before it starts, so nothing else in between)
    strip_mark = sim.mark()
    again = ControllerLink(str(sim.link))
    pixels = palette(6)
    again.show(pixels)
    new = Collected(reports_of(again.start()), "the second link")
    try:
        new.wait(kind(CONNECTED), "CONNECTED")
        wait_frame(sim, lambda f: f == lit(pixels), strip_mark, "the new host's pixels")
        beat = new.wait(lambda r: isinstance(r.message, proto.Heartbeat) and r.message.host_alive, "host_alive")
        assert beat.message.host_alive
    finally:
        again.close()
        new.join()
