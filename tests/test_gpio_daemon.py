"""The daemon on a Raspberry Pi's pins (``gpio:``), in-process so gpiozero's MockFactory can
be passed in: reed switches driven on the mock pins play Pylos turns, the referee records
them, and the daemon's own lights follow: the turn LEDs after every turn, the RGB LED red and
one beep at an illegal move, back to the mover's colour when the board is put right."""

from __future__ import annotations

import threading
import time


from gpio_mock import factory, wait_pins  # noqa: F401 (a fixture)
from host.config import from_mapping
from host.daemon import Daemon
from host.games import rules_for
from host.gpio_board import open_gpio_source
from host.indicators import BASE, RED, SECOND_RGB
from host.recorder import Recorder

HOLLOWS = {name: 2 + i for i, name in enumerate(BASE)}  # BCM 2..17
SECTION = {"hollows": HOLLOWS, "turn_first": 18, "turn_second": 19, "confirm": 20, "led_first": 21,
           "led_second": 22, "rgb": [23, 24, 25], "buzzer": 26, "bounce": 0.01}


def test_the_daemon_referees_the_pins_and_drives_the_leds(factory, tmp_path):
    rules = rules_for("pylos")
    config = from_mapping({"game": "pylos", "gpio": SECTION, "stability": {"frames": 2, "seconds": 0.1}})
    source = open_gpio_source("gpio:", rules, config.gpio, pin_factory=factory, outputs=True)
    recorder = Recorder(tmp_path / "games.sqlite3")
    daemon = Daemon(config, rules, source, recorder=recorder)
    runner = threading.Thread(target=daemon.run, daemon=True)
    runner.start()
    pin = factory.pin
    rgb = lambda: tuple(round(pin(p).state * 255) for p in SECTION["rgb"])  # noqa: E731
    buzzer = pin(26)
    try:
        assert wait_pins(lambda: pin(21).state == 1 and pin(22).state == 0)  # light to move
        moves = lambda: [e["move"] for _, e in recorder.events(daemon.game_id) if "move" in e]  # noqa: E731
        for name, mover_led, other_led in (("1a1", 22, 21), ("1b1", 21, 22), ("1c1", 22, 21)):
            pin(HOLLOWS[name]).drive_low()  # a ball on the hollow closes its reed switch
            assert wait_pins(lambda: moves() and moves()[-1] == name), moves()
            assert wait_pins(lambda: pin(mover_led).state == 1 and pin(other_led).state == 0)
        assert wait_pins(lambda: rgb() == SECOND_RGB)  # dark to move
        beeps = len([s for s in buzzer.states if s.state])
        pin(HOLLOWS["1a1"]).drive_high()  # Light's ball taken away: not allowed
        assert wait_pins(lambda: rgb() == RED or any(s.state for s in buzzer.states[1:]))
        assert wait_pins(lambda: len([s for s in buzzer.states if s.state]) > beeps)  # one beep
        events = [e for _, e in recorder.events(daemon.game_id)]
        assert any("1a1" in e.get("reason", "") for e in events)
        pin(HOLLOWS["1a1"]).drive_low()  # put back
        assert wait_pins(lambda: rgb() == SECOND_RGB)
        pin(19).drive_low()  # Dark's turn button with nothing played: ignored, no flag
        time.sleep(0.05)
        pin(19).drive_high()
        pin(HOLLOWS["1d4"]).drive_low()
        assert wait_pins(lambda: moves()[-1] == "1d4")
        assert moves() == ["1a1", "1b1", "1c1", "1d4"]
    finally:
        daemon.stop_requested.set()
        runner.join(10)
        source.board.close()
        recorder.close()
    assert not runner.is_alive()
