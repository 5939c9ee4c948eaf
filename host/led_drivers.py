"""LED drivers for ``arbiter leds`` (docs/leds.md): each renders :class:`Lights` on some
hardware: a Raspberry Pi's pins (``gpio``), a WLED device over MQTT (``wled``) or a board
controller's strip and buttons (``serial``, firmware/). Drivers register by name in
:data:`DRIVERS`.

A driver gets :class:`DriverOptions` and offers ``show``, ``presses`` (buttons pressed since
the last call), ``message`` (a message on one of its own ``subscriptions``) and ``close``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from .indicators import OFF, Lights
from .observation import Press

#: WLED effect ids (WLED's FX.h): Solid, Blink, Breathe
FX_SOLID, FX_BLINK, FX_BREATHE = 0, 1, 2
#: WLED effect speeds (0-255): a fast blink for a flag, slow ones otherwise
SPEED_FAST, SPEED_SLOW, SPEED_BREATHE = 240, 40, 128
BLACK = (0, 0, 0)


class DriverError(ValueError):
    """A driver that cannot start: says which option or device and why."""


@dataclass(frozen=True)
class DriverOptions:
    """What a driver may need; each takes the fields it uses."""

    board_id: str
    publish: Callable[[str, bytes], None]      # an MQTT publication (QoS 1, not retained)
    gpio: Any = None                           # the [gpio] section
    buttons: bool = True                       # the gpio driver reads the turn and confirm buttons
    wled_topic: str | None = None
    wled_api: str = "json"
    brightness: int = 128
    pin_factory: Any = None
    clock: Callable[[], float] = field(default=time.monotonic)
    port: str | None = None                    # the board controller's serial port


class Driver(Protocol):
    subscriptions: tuple[str, ...]

    def show(self, lights: Lights) -> None: ...

    def presses(self) -> list[Press]: ...

    def message(self, topic: str, payload: bytes) -> None: ...

    def close(self) -> None: ...


DRIVERS: dict[str, Callable[[DriverOptions], Driver]] = {}


def register(name: str) -> Callable[[Callable[[DriverOptions], Driver]], Callable[[DriverOptions], Driver]]:
    def add(factory: Callable[[DriverOptions], Driver]) -> Callable[[DriverOptions], Driver]:
        DRIVERS[name] = factory
        return factory
    return add


def open_driver(name: str, options: DriverOptions) -> Driver:
    if name not in DRIVERS:
        raise DriverError(f"--driver {name}: unknown driver (one of: {', '.join(DRIVERS)})")
    return DRIVERS[name](options)


# -- gpio ----------------------------------------------------------------------------------


@register("gpio")
class GpioDriver:
    """The [gpio] section's turn LEDs, RGB LED and buzzer, and its buttons (not its reed
    switches: those belong to the daemon's ``gpio:`` source)."""

    subscriptions: tuple[str, ...] = ()

    def __init__(self, options: DriverOptions):
        from .config import ConfigError
        from .gpio_board import GpioBoard, gpio_pins
        try:
            pins = gpio_pins(options.gpio or {}).without_hollows(buttons=options.buttons)
        except ConfigError as exc:
            raise DriverError(str(exc)) from None
        if pins.led_first is None and pins.led_second is None and pins.rgb is None:
            raise DriverError("gpio: no lights configured: set gpio.led_first and gpio.led_second, or gpio.rgb")
        try:
            self.board = GpioBoard(pins, pin_factory=options.pin_factory, clock=options.clock)
        except Exception as exc:  # gpiozero: not a Pi, a pin in use, no permission
            raise DriverError(f"gpio: cannot open the pins: {type(exc).__name__}: {exc}") from None

    def show(self, lights: Lights) -> None:
        self.board.show(lights)

    def presses(self) -> list[Press]:
        return [item for item in self.board.step() if isinstance(item, Press)]

    def message(self, topic: str, payload: bytes) -> None:
        pass

    def close(self) -> None:
        self.board.close()


# -- serial ----------------------------------------------------------------------------------


@register("serial")
class SerialDriver:
    """A board controller (firmware/) on ``port``: its strip shows the lights, its turn and
    confirm buttons send commands (a confirm press carries the in-turn slot the strip
    showed). Its reed switches are not read: they belong to a daemon's ``serial:`` source
    on another controller, or to none."""

    subscriptions: tuple[str, ...] = ()

    def __init__(self, options: DriverOptions):
        import queue
        import threading

        from .games import rules_for
        from .serial_source import SerialBoard, SourceFailed
        if not options.port:
            raise DriverError("serial: give the controller's port with --port, e.g. --port /dev/ttyUSB1")
        self.board = SerialBoard(options.port, rules_for("pylos"))  # turn buttons: first, second player
        self._presses: queue.SimpleQueue[Press] = queue.SimpleQueue()
        self.failed: str | None = None

        def read() -> None:
            try:
                for item in self.board.items():
                    if isinstance(item, Press):
                        self._presses.put(item)
            except SourceFailed as exc:
                self.failed = str(exc)
                import logging
                logging.getLogger("arbiter.leds").error("%s", exc)

        threading.Thread(target=read, name=f"controller {options.port}", daemon=True).start()

    def show(self, lights: Lights) -> None:
        self.board.show(lights)

    def presses(self) -> list[Press]:
        out = []
        while not self._presses.empty():
            out.append(self._presses.get())
        return out

    def message(self, topic: str, payload: bytes) -> None:
        pass

    def close(self) -> None:
        self.board.link.close()


# -- wled ----------------------------------------------------------------------------------


def _lit_turn(lights: Lights) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The main colour (the lit turn indicator's) and the second one (the other lit
    indicator's in a draw, else black)."""
    lit = [p.rgb for p in lights.turn if p.lit]
    if not lit:
        return BLACK, BLACK
    return lit[0], lit[1] if len(lit) > 1 else BLACK


def wled_state(lights: Lights, brightness: int = 128) -> dict[str, Any]:
    """The WLED JSON API state for the lights: the whole strip in one colour and effect."""
    main, second = _lit_turn(lights)
    if lights.status == "flagged":
        fx, speed, main, second = FX_BLINK, SPEED_FAST, lights.illegal.rgb, BLACK
    elif lights.status == "awaiting-confirmation":
        fx, speed = FX_BREATHE, SPEED_BREATHE
    elif lights.status == "finished":
        fx, speed = FX_BLINK, SPEED_SLOW
    else:
        fx, speed = FX_SOLID, SPEED_SLOW
    if main == BLACK:
        return {"on": False}
    return {"on": True, "bri": brightness,
            "seg": [{"col": [list(main), list(second)], "fx": fx, "sx": speed}]}


def wled_colour(lights: Lights) -> str:
    """The ``/col`` colour: the illegal flag's red, else the lit turn indicator's (a draw:
    both players' colours mixed), black when dark."""
    if lights.illegal.lit:
        r, g, b = lights.illegal.rgb
    else:
        lit = [p.rgb for p in lights.turn if p.lit] or [OFF.rgb]
        r, g, b = (sum(c[i] for c in lit) // len(lit) for i in range(3))
    return f"#{r:02X}{g:02X}{b:02X}"


@register("wled")
class WledDriver:
    """A WLED device on the same broker: ``<topic>/api`` gets the JSON API state
    (``--wled-api json``) or ``<topic>/col`` a colour (``--wled-api colour``). When the
    device announces ``online`` on ``<topic>/status`` (it restarted) it gets the lights
    again."""

    def __init__(self, options: DriverOptions):
        topic = (options.wled_topic or "").strip("/")
        if not topic or "#" in topic or "+" in topic:
            raise DriverError("wled: give the WLED device's MQTT topic: --wled-topic wled/board "
                              "(its Sync settings' Device Topic) or leds.wled_topic")
        if options.wled_api not in ("json", "colour"):
            raise DriverError(f"wled: --wled-api {options.wled_api!r}: expected json or colour")
        self.topic = topic
        self.api = options.wled_api
        self.brightness = options.brightness
        self._publish = options.publish
        self._last: tuple[str, bytes] | None = None
        self.subscriptions = (f"{topic}/status",)

    def payload(self, lights: Lights) -> tuple[str, bytes]:
        if self.api == "colour":
            return f"{self.topic}/col", wled_colour(lights).encode("ascii")
        body = wled_state(lights, self.brightness)
        return f"{self.topic}/api", json.dumps(body, separators=(",", ":")).encode("ascii")

    def show(self, lights: Lights) -> None:
        message = self.payload(lights)
        if message != self._last:
            self._last = message
            self._publish(*message)

    def presses(self) -> list[Press]:
        return []

    def message(self, topic: str, payload: bytes) -> None:
        if topic == f"{self.topic}/status" and payload.strip() == b"online" and self._last is not None:
            self._publish(*self._last)

    def close(self) -> None:
        pass


from . import led_terminal  # noqa: E402,F401  (registers the "terminal" driver)
