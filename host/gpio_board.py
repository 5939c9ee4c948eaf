"""A board wired straight to a Raspberry Pi's GPIO header (docs/gpio.md): reed switches under
the base hollows and the players' buttons as inputs, turn LEDs, an RGB LED and a buzzer as
outputs. The ``gpio:`` source of the daemon and the ``gpio`` LED driver are both built on
:class:`GpioBoard`.

gpiozero is imported only when a board is opened, so the configuration can be checked on a
machine without it. Tests pass a ``MockFactory`` as ``pin_factory``; nothing here sets
gpiozero's global factory.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Mapping

from .config import BOARD_GAMES, ConfigError
from .indicators import BASE, BLINK, FAST, FIRST_COLOURS, IN_TURN, SECOND_COLOURS, SLOW, Lights, Pixel
from .observation import EMPTY, OCCUPIED, Observation, Press

#: BCM numbers a board may use: GPIO 0 and 1 are the HAT EEPROM's I2C bus
PINS = range(2, 28)
BUTTONS = ("turn_first", "turn_second", "turn", "confirm")
SINGLE_OUTPUTS = ("led_first", "led_second", "buzzer")
#: the buzzer's beep for a new illegal flag, seconds
BEEP = 0.3


@dataclass(frozen=True, slots=True)
class GpioPins:
    """BCM pin numbers from the configuration's [gpio] section (None: not wired)."""

    hollows: tuple[tuple[str, int], ...] = ()
    turn_first: int | None = None
    turn_second: int | None = None
    turn: int | None = None
    confirm: int | None = None
    led_first: int | None = None
    led_second: int | None = None
    rgb: tuple[int, int, int] | None = None
    buzzer: int | None = None
    active_high: bool = True
    buzzer_active_high: bool = True
    bounce: float = 0.05
    interval: float = 0.1

    @property
    def coverage(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.hollows)

    def inputs_only(self) -> "GpioPins":
        return replace(self, led_first=None, led_second=None, rgb=None, buzzer=None)

    def without_hollows(self, *, buttons: bool = True) -> "GpioPins":
        if buttons:
            return replace(self, hollows=())
        return replace(self, hollows=(), turn_first=None, turn_second=None, turn=None, confirm=None)


def _pin(where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in PINS:
        raise ConfigError(f"{where}: {value!r} is not a BCM pin number (2 to 27)")
    return value


def gpio_pins(section: Mapping[str, Any], origin: str = "configuration") -> GpioPins:
    """The pins of a [gpio] section, checked: ConfigError naming the key for a pin out of
    range, a hollow that is not on the base, a pin used twice."""
    used: dict[int, str] = {}

    def take(key: str, value: Any) -> int:
        where = f"{origin}: gpio.{key}"
        pin = _pin(where, value)
        if pin in used:
            raise ConfigError(f"{where}: pin {pin} is already used by gpio.{used[pin]}")
        used[pin] = key
        return pin

    hollows_in = section.get("hollows") or {}
    if not isinstance(hollows_in, Mapping):
        raise ConfigError(f"{origin}: gpio.hollows: expected a table of hollow = pin, like 1a1 = 4")
    hollows = []
    for name, value in hollows_in.items():
        if name not in BASE:
            raise ConfigError(f"{origin}: gpio.hollows.{name}: not a base hollow (1a1 to 1d4)")
        hollows.append((name, take(f"hollows.{name}", value)))
    hollows.sort(key=lambda item: BASE.index(item[0]))
    single = {key: take(key, section[key]) for key in BUTTONS + SINGLE_OUTPUTS if section.get(key) is not None}
    if ("turn_first" in single) != ("turn_second" in single):
        missing = "turn_second" if "turn_first" in single else "turn_first"
        raise ConfigError(f"{origin}: gpio.{missing}: missing (each player has a turn button; or use gpio.turn)")
    rgb = section.get("rgb")
    if rgb is not None:
        if not isinstance(rgb, (list, tuple)) or len(rgb) != 3:
            raise ConfigError(f"{origin}: gpio.rgb: expected three pins [red, green, blue], got {rgb!r}")
        rgb = tuple(take(f"rgb[{i}]", v) for i, v in enumerate(rgb))
    times: dict[str, float] = {}
    for key, low, high in (("bounce", 0.0, 1.0), ("interval", 0.01, 10.0)):
        value = section.get(key, GpioPins.__dataclass_fields__[key].default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise ConfigError(f"{origin}: gpio.{key}: expected {low:g} to {high:g} seconds, got {value!r}")
        times[key] = float(value)
    flags = {k: section[k] for k in ("active_high", "buzzer_active_high") if section.get(k) is not None}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigError(f"{origin}: gpio.{key}: expected true or false, got {value!r}")
    return GpioPins(hollows=tuple(hollows), rgb=rgb, **times, **single, **flags)


@dataclass(frozen=True, slots=True)
class Shown:
    """What an output was last told: off, on (a colour for the RGB LED) or blinking."""

    kind: str                       # "off", "on", "blink"
    colour: tuple[int, int, int] = (0, 0, 0)
    on: float = 0.0
    off: float = 0.0
    other: tuple[int, int, int] = (0, 0, 0)  # the RGB LED's colour between blinks


def _shown(pixel: Pixel, other: tuple[int, int, int] = (0, 0, 0)) -> Shown:
    if not pixel.lit:
        return Shown("off")
    if pixel.mode == FAST:
        return Shown("blink", pixel.rgb, *BLINK[FAST], other)
    if pixel.mode in (SLOW, IN_TURN):  # in turn on a single LED: a slow blink
        return Shown("blink", pixel.rgb, *BLINK[SLOW], other)
    return Shown("on", pixel.rgb)


def rgb_shown(lights: Lights) -> Shown:
    """The single RGB LED: the illegal flag's red when flagged, else the lit turn indicator
    (mover or winner); a draw alternates between both players' colours."""
    if lights.illegal.lit:
        return _shown(lights.illegal)
    first, second = lights.turn
    if first.lit and second.lit:
        return Shown("blink", first.rgb, *BLINK[SLOW], second.rgb)
    return _shown(first if first.lit else second)


@dataclass
class _Input:
    """One debounced input: its settled value and the raw change waiting to settle."""

    device: Any
    value: bool
    pending: tuple[bool, float] | None = None


class GpioBoard:
    """Reed switches, buttons, LEDs and a buzzer on GPIO pins.

    Inputs are pulled up: a closed reed switch or a held button pulls its pin to GND. Their
    edges (from gpiozero's callbacks, on its own thread) go through a queue; :meth:`step`
    (on the caller's thread) debounces them: a change counts once the pin has kept its new
    value for ``pins.bounce`` seconds of ``clock``.
    """

    def __init__(self, pins: GpioPins, *, pin_factory: Any = None, clock: Callable[[], float] = time.monotonic,
                 players: tuple[str, str] = ("light", "dark")):
        from gpiozero import LED, RGBLED, Button, Buzzer
        self.pins = pins
        self._clock = clock
        self._edges: queue.SimpleQueue[tuple[str, bool, float] | None] = queue.SimpleQueue()
        self._inputs: dict[str, _Input] = {}
        self._outputs: dict[str, Any] = {}
        self.shown: dict[str, Shown] = {}
        self._players = players
        self._closed = False
        self._started = False
        self._next_snapshot = 0.0
        bounce = pins.bounce or None
        try:
            for name, pin in pins.hollows + tuple((b, getattr(pins, b)) for b in BUTTONS):
                if pin is not None:
                    button = Button(pin, pull_up=True, bounce_time=bounce, pin_factory=pin_factory)
                    self._inputs[name] = _Input(button, button.is_pressed)
                    button.when_pressed = self._callback(name, True)
                    button.when_released = self._callback(name, False)
            for name in ("led_first", "led_second"):
                if getattr(pins, name) is not None:
                    self._outputs[name] = LED(getattr(pins, name), active_high=pins.active_high,
                                              pin_factory=pin_factory)
            if pins.rgb is not None:
                self._outputs["rgb"] = RGBLED(*pins.rgb, active_high=pins.active_high, pin_factory=pin_factory)
            if pins.buzzer is not None:
                self._outputs["buzzer"] = Buzzer(pins.buzzer, active_high=pins.buzzer_active_high,
                                                 pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def _callback(self, name: str, value: bool) -> Callable[[], None]:
        def edge() -> None:
            self._edges.put((name, value, self._clock()))
        return edge

    def follow(self, rules: Any) -> None:
        """The daemon now referees ``rules``: its players' names go into turn-button presses."""
        self._players = tuple(rules.players)

    @property
    def cells(self) -> dict[str, str]:
        """Every configured hollow: ``#`` closed (a ball on it), ``.`` open."""
        return {name: OCCUPIED if self._inputs[name].value else EMPTY for name, _ in self.pins.hollows}

    def _player(self, button: str) -> str | None:
        wanted = {"turn_first": FIRST_COLOURS, "turn_second": SECOND_COLOURS}.get(button)
        if wanted is None:
            return None
        return next((p for p in self._players if p in wanted), None)

    def step(self, timeout: float = 0.0) -> list[Observation | Press]:
        """Waits at most ``timeout`` seconds for an input edge, then returns, in time order,
        what is due: the first observation, changes that have settled, button presses and
        the periodic observation (every ``pins.interval``, so the referee's stability filter
        sees a board that stays the same)."""
        try:
            item = self._edges.get(timeout=timeout) if timeout > 0 else self._edges.get_nowait()
            while item is not None:
                name, value, t = item
                self._inputs[name].pending = (value, t)
                item = self._edges.get_nowait()
        except queue.Empty:
            pass
        now = self._clock()
        out: list[Observation | Press] = []
        changed = not self._started
        due = sorted((inp.pending[1], name) for name, inp in self._inputs.items()
                     if inp.pending is not None and now - inp.pending[1] >= self.pins.bounce)
        for _, name in due:
            inp = self._inputs[name]
            value = inp.pending[0]  # type: ignore[index]
            inp.pending = None
            if value == inp.value:
                continue  # a bounce that came back
            inp.value = value
            if name in BUTTONS:
                if value:
                    if changed and self.pins.hollows:
                        out.append(Observation(now, self.cells))
                        changed = False
                    out.append(Press(now, "confirm" if name == "confirm" else "end-turn", self._player(name)))
            else:
                changed = True
        if self.pins.hollows and (changed or now >= self._next_snapshot):
            out.append(Observation(now, self.cells))
            self._next_snapshot = now + self.pins.interval
        self._started = True
        return out

    def _wait(self) -> float:
        """How long step may wait for an edge: until the next change settles or the next
        periodic observation, at most ``interval`` (the clock may be a test's)."""
        now = self._clock()
        deadlines = [inp.pending[1] + self.pins.bounce for inp in self._inputs.values() if inp.pending]
        if self.pins.hollows:
            deadlines.append(self._next_snapshot)
        wait = min(deadlines, default=now + self.pins.interval) - now
        return min(max(wait, 0.001), self.pins.interval)

    def items(self) -> Iterator[Observation | Press]:
        """Observations and presses as they come, until :meth:`close` (blocking)."""
        try:
            while not self._closed:
                yield from self.step(self._wait())
        finally:
            self.close()

    # -- outputs -------------------------------------------------------------------------

    def show(self, lights: Lights) -> None:
        """Drives the outputs: each turn LED after its indicator, the RGB LED after
        :func:`rgb_shown`, one beep when ``lights.buzz``. An output whose pattern did not
        change is left alone, so a blink keeps its rhythm."""
        wanted = {"led_first": _shown(lights.turn[0]), "led_second": _shown(lights.turn[1]),
                  "rgb": rgb_shown(lights)}
        for name, shown in wanted.items():
            device = self._outputs.get(name)
            if device is None or self.shown.get(name) == shown:
                continue
            self.shown[name] = shown
            colour = tuple(c / 255 for c in shown.colour)
            if name != "rgb":
                if shown.kind == "off":
                    device.off()
                elif shown.kind == "on":
                    device.on()
                else:
                    device.blink(on_time=shown.on, off_time=shown.off, background=True)
            elif shown.kind == "off":
                device.off()
            elif shown.kind == "on":
                device.color = colour
            else:
                device.blink(on_time=shown.on, off_time=shown.off, fade_in_time=0, fade_out_time=0,
                             on_color=colour, off_color=tuple(c / 255 for c in shown.other), background=True)
        if lights.buzz and "buzzer" in self._outputs:
            self._outputs["buzzer"].beep(on_time=BEEP, off_time=BEEP, n=1, background=True)

    def close(self) -> None:
        """Turns the outputs off and releases every pin; :meth:`items` then ends."""
        self._closed = True
        self._edges.put(None)
        for device in list(self._outputs.values()) + [i.device for i in self._inputs.values()]:
            try:
                device.close()
            except Exception:  # noqa: BLE001 - closing must release the others
                pass
        self._outputs.clear()
        self._inputs.clear()


def open_gpio_source(spec: str, rules: Any, gpio_config: Mapping[str, Any], pin_factory: Any = None,
                     clock: Callable[[], float] = time.time, *, outputs: bool = False) -> Any:
    """The daemon's ``gpio:`` source: the [gpio] section's reed switches and buttons; with
    ``outputs`` its LEDs and buzzer too, for a daemon that shows the lights itself
    (``source.board.show(lights)``), else they are left to ``arbiter leds --driver gpio``.
    Times are the wall clock, as a live camera's, so a restarted daemon resumes after what
    it recorded."""
    from .sources import SourceError
    if spec not in ("gpio", "gpio:"):
        raise SourceError(f"{spec}: the gpio source takes no options (its pins are the [gpio] section): use gpio:")
    if rules.game not in BOARD_GAMES["pyramid"]:
        raise SourceError(f"gpio: reed switches sense a pyramid's base hollows; {rules.game} needs a grid board")
    try:
        pins = gpio_pins(gpio_config)
        pins = pins if outputs else pins.inputs_only()
    except ConfigError as exc:
        raise SourceError(f"gpio: {exc}") from None
    if not pins.hollows:
        raise SourceError("gpio: no reed switches configured: map the hollows to pins in [gpio.hollows]")
    try:
        board = GpioBoard(pins, pin_factory=pin_factory, clock=clock, players=tuple(rules.players))
    except Exception as exc:  # gpiozero: no pin library (not a Pi), a pin in use, no permission
        raise SourceError(f"gpio: cannot open the pins: {type(exc).__name__}: {exc}") from None
    from .sources import Source
    return Source(spec, board.items(), pins.coverage, board=board, wall_clock=True)
