"""The ``terminal`` LED driver: the board's lights drawn as one line of text, for the demo
and for trying ``arbiter leds`` without hardware. Each change prints a line such as

    LEDs demo-pylos  turn ● ○  illegal ○  hollows ○○○○ ○○○○ ●○○○ ○○○○  playing

Lit lights are ``●`` and dark ones ``○`` (a blinking light is ``◍``), so the line reads
without colour; on a colour terminal the lit ones also show their colour."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

from .indicators import STEADY, Lights, Pixel
from .led_drivers import DriverOptions, register


def dot(pixel: Pixel, colour: bool) -> str:
    symbol = "○" if not pixel.lit else ("●" if pixel.mode == STEADY else "◍")
    if not colour or not pixel.lit:
        return symbol
    r, g, b = pixel.rgb
    return f"\x1b[38;2;{r};{g};{b}m{symbol}\x1b[0m"


def lights_line(board_id: str, lights: Lights, *, colour: bool = False) -> str:
    first, second = (dot(p, colour) for p in lights.turn)
    line = f"LEDs {board_id}  turn {first} {second}  illegal {dot(lights.illegal, colour)}"
    if lights.hollows:
        rows = ["".join(dot(p, colour) for p in lights.hollows[k:k + 4]) for k in range(0, len(lights.hollows), 4)]
        line += "  hollows " + " ".join(rows)
    if lights.slots:
        line += f"  ({len(lights.slots)} candidates shown in turn)"
    return line + f"  {lights.status}"


class TerminalDriver:
    """Prints a line when what the lights show changes; presses nothing."""

    subscriptions: tuple[str, ...] = ()

    def __init__(self, options: DriverOptions, out: Any = None, sink: Callable[[str], None] | None = None):
        """``sink`` takes each new line instead of ``out`` (the demo keeps it at the bottom
        of its terminal)."""
        self.board_id = options.board_id
        self.out = out if out is not None else sys.stdout
        self.colour = bool(getattr(self.out, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ
        self.sink = sink
        self._last: str | None = None

    def show(self, lights: Lights) -> None:
        line = lights_line(self.board_id, lights, colour=self.colour)
        if line != self._last:
            self._last = line
            if self.sink is not None:
                self.sink(line)
            else:
                print(line, file=self.out, flush=True)

    def presses(self) -> list:
        return []

    def message(self, topic: str, payload: bytes) -> None:
        pass

    def close(self) -> None:
        pass


register("terminal")(TerminalDriver)
