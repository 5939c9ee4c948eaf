"""The GPIO board (host/gpio_board.py) on gpiozero's MockFactory, passed in explicitly: the
reed switches and buttons are driven through the mock pins, the LEDs read back from them.
Time is a fake clock the test moves on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from gpio_mock import Clock, factory, wait_pins  # noqa: F401 (a fixture)
from host.config import ConfigError, from_mapping
from host.games import rules_for
from host.gpio_board import GpioBoard, GpioPins, Shown, gpio_pins, open_gpio_source
from host.indicators import BASE, FIRST_RGB, RED, SECOND_RGB, Indicator
from host.observation import Observation, Press
from host.sources import SourceError

HOLLOWS = {"1a1": 4, "1b1": 5, "1d4": 6}
OUTPUTS = {"led_first": 17, "led_second": 18, "rgb": [23, 24, 25], "buzzer": 26}
BUTTONS = {"turn_first": 20, "turn_second": 21, "confirm": 22}


def board(factory: MockFactory, clock: Clock, **extra: object) -> GpioBoard:
    section = {"hollows": HOLLOWS, **BUTTONS, **OUTPUTS, "interval": 10.0, **extra}
    return GpioBoard(gpio_pins(section), pin_factory=factory, clock=clock)


def test_first_observation_and_changes(factory: MockFactory) -> None:
    clock = Clock(1.0)
    b = board(factory, clock)
    try:
        assert b.step() == [Observation(1.0, {"1a1": ".", "1b1": ".", "1d4": "."})]
        assert b.step() == []
        factory.pin(4).drive_low()            # a ball on 1a1: the reed switch closes
        assert b.step() == []                 # not settled yet
        clock.t = 1.06
        assert b.step() == [Observation(1.06, {"1a1": "#", "1b1": ".", "1d4": "."})]
        factory.pin(4).drive_high()
        factory.pin(6).drive_low()
        clock.t = 1.2
        out = b.step()
        assert out == [Observation(1.2, {"1a1": ".", "1b1": ".", "1d4": "#"})]
    finally:
        b.close()


def test_bounces_are_filtered(factory: MockFactory) -> None:
    clock = Clock(0.0)
    b = board(factory, clock)
    try:
        b.step()
        pin = factory.pin(5)
        for t, low in ((1.0, True), (1.01, False), (1.02, True)):  # a contact bouncing as it closes
            clock.t = t
            pin.drive_low() if low else pin.drive_high()
        clock.t = 1.05
        assert b.step() == []                 # 30 ms after the last bounce
        clock.t = 1.08
        assert b.step() == [Observation(1.08, {"1a1": ".", "1b1": "#", "1d4": "."})]
        clock.t = 2.0
        pin.drive_high()                      # a glitch that comes back at once
        clock.t = 2.01
        pin.drive_low()
        clock.t = 2.2
        assert b.step() == []
        confirm = factory.pin(22)             # a bouncing press is one press
        for t in (3.0, 3.005, 3.01):
            clock.t = t
            confirm.drive_low() if t != 3.005 else confirm.drive_high()
        clock.t = 3.1
        assert b.step() == [Press(3.1, "confirm")]
    finally:
        b.close()


def test_periodic_observations_let_the_board_settle(factory: MockFactory) -> None:
    clock = Clock(0.0)
    b = board(factory, clock, interval=0.1)
    try:
        assert len(b.step()) == 1
        clock.t = 0.05
        assert b.step() == []
        clock.t = 0.1
        assert [o.t for o in b.step()] == [0.1]
        clock.t = 0.35
        assert [o.t for o in b.step()] == [0.35]
    finally:
        b.close()


def test_buttons_name_the_player_of_the_current_game(factory: MockFactory) -> None:
    clock = Clock(0.0)
    b = board(factory, clock)
    try:
        b.step()
        factory.pin(4).drive_low()            # a ball put down, then the turn button
        clock.t = 0.01
        factory.pin(20).drive_low()
        clock.t = 0.2
        out = b.step()
        assert out == [Observation(0.2, {"1a1": "#", "1b1": ".", "1d4": "."}), Press(0.2, "end-turn", "light")]
        factory.pin(20).drive_high()
        b.follow(rules_for("sparks"))
        factory.pin(21).drive_low()
        clock.t = 0.5
        assert b.step() == [Press(0.5, "end-turn", "black")]
    finally:
        b.close()


def test_a_single_turn_button_names_nobody(factory: MockFactory) -> None:
    clock = Clock(0.0)
    b = GpioBoard(gpio_pins({"hollows": {"1a1": 4}, "turn": 20, "interval": 10}), pin_factory=factory, clock=clock)
    try:
        b.step()
        factory.pin(20).drive_low()
        clock.t = 0.1
        assert b.step() == [Press(0.1, "end-turn", None)]
    finally:
        b.close()


def lights_for(*feeds) -> object:
    ind = Indicator()
    state = {"board": "b", "game": "pylos", "variant": "standard", "position": None, "to_move": "light",
             "turn": 0, "status": "playing", "result": "*"}
    ind.state(state)
    for kind, obj in feeds:
        getattr(ind, kind)(obj)
    return ind.lights


def rgb(factory: MockFactory) -> tuple[float, ...]:
    return tuple(round(factory.pin(p).state, 3) for p in OUTPUTS["rgb"])  # type: ignore[union-attr]


def colour(c: tuple[int, int, int]) -> tuple[float, ...]:
    return tuple(round(x / 255, 3) for x in c)


def test_outputs_follow_the_lights(factory: MockFactory) -> None:
    clock = Clock(0.0)
    b = board(factory, clock)
    first, second, buzzer = factory.pin(17), factory.pin(18), factory.pin(26)
    try:
        b.show(lights_for())                              # light to move
        assert first.state == 1 and second.state == 0
        assert rgb(factory) == colour(FIRST_RGB)
        b.show(lights_for(("turn", "dark")))
        assert first.state == 0 and second.state == 1
        assert rgb(factory) == colour(SECOND_RGB)
        assert buzzer.state == 0

        flag = lights_for(("event", {"seq": 1, "type": "illegal", "cells": [{"cell": "1a1"}]}))
        from dataclasses import replace
        b.show(replace(flag, buzz=True))
        assert b.shown["rgb"] == Shown("blink", RED, 0.125, 0.125)
        assert first.state == 1 and b.shown["led_first"] == Shown("on", FIRST_RGB)
        assert wait_pins(lambda: any(s.state for s in buzzer.states[1:])), "the buzzer did not beep"
        assert wait_pins(lambda: len(factory.pin(23).states) > 4), "the RGB LED does not blink"

        over = lights_for(("event", {"seq": 1, "type": "game-over", "result": "0-1", "winner": "dark"}))
        b.show(over)
        assert b.shown["led_first"] == Shown("off") and first.state == 0
        assert b.shown["led_second"] == Shown("blink", SECOND_RGB, 0.5, 0.5)
        assert b.shown["rgb"] == Shown("blink", SECOND_RGB, 0.5, 0.5)
        assert wait_pins(lambda: len(second.states) > 3), "the winner's LED does not blink"

        draw = lights_for(("state", {"status": "finished", "result": "1/2-1/2", "game": "pylos"}))
        b.show(draw)
        assert b.shown["rgb"] == Shown("blink", FIRST_RGB, 0.5, 0.5, SECOND_RGB)

        confirm = lights_for(("event", {"seq": 1, "type": "confirm-needed", "candidates": ["1a1", "1b1"]}))
        b.show(confirm)
        assert b.shown["led_first"] == Shown("blink", FIRST_RGB, 0.5, 0.5)  # in turn on one LED: slow

        b.show(Indicator().lights)                       # no state: dark
        assert first.state == 0 and second.state == 0 and rgb(factory) == (0, 0, 0)
    finally:
        b.close()


def test_active_low_leds(factory: MockFactory) -> None:
    b = board(factory, Clock(), active_high=False)
    try:
        b.show(lights_for())
        assert factory.pin(17).state == 0 and factory.pin(18).state == 1
    finally:
        b.close()


def test_close_releases_every_pin(factory: MockFactory) -> None:
    b = board(factory, Clock())
    b.show(lights_for())
    b.close()
    again = board(factory, Clock())  # the same pins can be opened again
    again.close()
    assert list(b.items()) == []     # a closed board's items end


@pytest.mark.parametrize("section, message", [
    ({"hollows": {"1a5": 4}}, "gpio.hollows.1a5: not a base hollow"),
    ({"hollows": {"2a1": 4}}, "gpio.hollows.2a1: not a base hollow"),
    ({"hollows": {"1a1": 17}, "confirm": 17}, "gpio.confirm: pin 17 is already used by gpio.hollows.1a1"),
    ({"confirm": 1}, "gpio.confirm: 1 is not a BCM pin number (2 to 27)"),
    ({"led_first": 28}, "gpio.led_first: 28 is not a BCM pin number"),
    ({"rgb": [5, 6]}, "gpio.rgb: expected three pins"),
    ({"rgb": [5, 6, 5]}, "gpio.rgb[2]: pin 5 is already used by gpio.rgb[0]"),
    ({"turn_first": 6}, "gpio.turn_second: missing"),
    ({"bounce": 3}, "gpio.bounce: expected 0 to 1 seconds"),
])
def test_wrong_pins_name_the_key(section: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        gpio_pins(section)
    with pytest.raises(ConfigError, match=re.escape("arbiter.toml: " + message)):
        from_mapping({"gpio": section}, "arbiter.toml")


def test_config_types_are_checked() -> None:
    with pytest.raises(ConfigError, match="gpio.confirm: expected a whole number, got '17'"):
        from_mapping({"gpio": {"confirm": "17"}})
    with pytest.raises(ConfigError, match="gpio.hollows: expected a table"):
        from_mapping({"gpio": {"hollows": [4]}})
    with pytest.raises(ConfigError, match="gpio.pins: unknown key"):
        from_mapping({"gpio": {"pins": 4}})
    pins = gpio_pins(from_mapping({"gpio": {"hollows": {"1d4": 6, "1a1": 4}}}).gpio)
    assert pins.hollows == (("1a1", 4), ("1d4", 6)) and pins.coverage == {"1a1", "1d4"}


def test_gpio_source(factory: MockFactory) -> None:
    free = [p for p in range(2, 28) if p not in (17, 18, 20, 21, 22, 23, 24, 25, 26)]
    section = {"hollows": dict(zip(BASE, free)), **BUTTONS, **OUTPUTS}
    clock = Clock(100.0)
    source = open_gpio_source("gpio:", rules_for("pylos"), section, pin_factory=factory, clock=clock)
    try:
        assert source.coverage == frozenset(BASE) and not source.finite and source.speed == 0
        first = next(iter(source.items))
        assert isinstance(first, Observation) and set(first.cells.values()) == {"."} and first.t == 100.0
        assert factory.pin(17).function == "input"  # the outputs are left to `arbiter leds`
        source.follow(rules_for("sparks"))
        factory.pin(20).drive_low()
        clock.t = 101.0
        items = iter(source.items)
        press = next(i for i in items if isinstance(i, Press))
        assert press == Press(101.0, "end-turn", "white")
    finally:
        source.items.close()  # type: ignore[attr-defined]
    GpioBoard(GpioPins(hollows=(("1a1", 2),)), pin_factory=factory).close()  # the pins were released
    # a daemon that shows the lights itself opens the outputs with the source
    source = open_gpio_source("gpio:", rules_for("pylos"), section, pin_factory=factory, clock=clock, outputs=True)
    try:
        source.board.show(lights_for())
        assert factory.pin(17).state == 1
    finally:
        source.board.close()  # (closing items closes the board only once they were started)
    assert factory.pin(17).function == "input"


def test_gpio_source_refusals(factory: MockFactory) -> None:
    with pytest.raises(SourceError, match="gpio: reed switches sense a pyramid's base hollows; sparklies"):
        open_gpio_source("gpio:", rules_for("sparklies"), {"hollows": {"1a1": 4}}, pin_factory=factory)
    with pytest.raises(SourceError, match=r"gpio: no reed switches configured"):
        open_gpio_source("gpio:", rules_for("pylos"), {"confirm": 4}, pin_factory=factory)
    with pytest.raises(SourceError, match="gpio: configuration: gpio.hollows.1e1: not a base hollow"):
        open_gpio_source("gpio:", rules_for("pylos"), {"hollows": {"1e1": 4}}, pin_factory=factory)
    with pytest.raises(SourceError, match="takes no options"):
        open_gpio_source("gpio:fast", rules_for("pylos"), {"hollows": {"1a1": 4}}, pin_factory=factory)


def test_the_documented_configurations_are_accepted() -> None:
    import tomllib
    for doc in ("docs/gpio.md", "docs/configuration.md"):
        text = (Path(__file__).resolve().parent.parent / doc).read_text()
        block = text.split("```toml\n", 1)[1].split("```", 1)[0]
        config = from_mapping(tomllib.loads(block), doc)
        assert gpio_pins(config.gpio).confirm == 16
