"""``serial:PORT``: the board controller (firmware/) as a source of observations.

The controller reports its switches (docs/protocol.md); this turns them into what the
referee reads: an occupancy observation of the base hollows (``#`` a ball, ``.`` none)
whenever they change, and a :class:`Press` for each turn or confirm button pushed. The
lights the referee's state calls for go back to the controller's strip through
:meth:`SerialBoard.show`.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, Iterator

from . import controller_protocol as proto
from .controller_link import CONNECTED, END, FAILED, LOST, RESET, ControllerLink
from .games import Rules
from .indicators import BASE, OFF, Lights, side
from .observation import Observation, Press

log = logging.getLogger("arbiter.controller")

FIRST_TRAY = range(16, 31)
SECOND_TRAY = range(31, 46)
TURN_FIRST, TURN_SECOND, CONFIRM = 46, 47, 48
BUTTONS = (TURN_FIRST, TURN_SECOND, CONFIRM)


class SourceFailed(RuntimeError):
    """The controller cannot be used (the link's message says why and what to do)."""


class SerialBoard:
    """The controller on ``port`` seen as a board: :meth:`items` for the daemon's source
    thread, :meth:`show` for the lights."""

    def __init__(self, port: str, rules: Rules, *, link: ControllerLink | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.link = link or ControllerLink(port)
        self.closed: frozenset[int] | None = None
        self._clock = clock
        self.follow(rules)

    def follow(self, rules: Rules) -> None:
        # the first turn button and tray are light's or white's, the second dark's or black's
        self.players = tuple(sorted(rules.players, key=lambda p: side(p) or 0))
        self.trays = rules.reserves(rules.start()) is not None

    def items(self) -> Iterator[Observation | Press]:
        """Observations and presses as the controller reports them. The board is reported
        again every ``REPEAT`` seconds while nothing changes, so that the referee, which
        waits for a board to stay the same for a while, sees it stay."""
        self.link.start()
        self._emitted = self._clock()
        try:
            while True:
                report = self.link.next_report(self.REPEAT)
                if report is END:
                    return
                if self.closed is not None and self._clock() - self._emitted >= self.REPEAT:
                    yield self._observation(self.link.wall(), self.closed)
                if report is None:
                    continue
                if report.kind == FAILED:
                    raise SourceFailed(report.detail)
                if report.kind in (CONNECTED, RESET, LOST):
                    if report.kind == LOST:
                        self.closed = None  # unknown until the next snapshot: no stale repeats
                    if report.kind != CONNECTED or self.closed is not None:
                        log.info("controller on %s: %s %s", self.port, report.kind, report.detail)
                    continue
                message = report.message
                if isinstance(message, proto.Snapshot):
                    yield from self._update(report.t, message.closed, message.slot)
                elif isinstance(message, proto.Change):
                    now = set(self.closed or ())
                    (now.add if message.closed else now.discard)(message.switch)
                    yield from self._update(report.t, frozenset(now), message.slot)
        finally:
            self.link.close()

    #: seconds between repeats of an unchanged board
    REPEAT = 0.1

    def _update(self, t: float, closed: frozenset[int], slot: int | None) -> Iterator[Observation | Press]:
        before = self.closed
        self.closed = closed
        if before is None or _hollows(before) != _hollows(closed) or (
                self.trays and reserve_counts(before) != reserve_counts(closed)):
            yield self._observation(t, closed)
        if before is None:
            return  # a button already held when the controller was first heard is no press
        for button in BUTTONS:
            if button in closed and button not in before:
                if button == CONFIRM:
                    yield Press(t, "confirm", choice=slot)
                else:
                    yield Press(t, "end-turn", self.players[button - TURN_FIRST])

    def _observation(self, t: float, closed: frozenset[int]) -> Observation:
        self._emitted = self._clock()
        cells = {name: "#" if i in closed else "." for i, name in enumerate(BASE)}
        if not self.trays:
            return Observation(t, cells)
        first, second = reserve_counts(closed)
        return Observation(t, cells, {self.players[0]: first, self.players[1]: second})

    def show(self, lights: Lights) -> None:
        """The lights on the strip: the two turn indicators, the illegal indicator, then
        the hollows."""
        pixels = [*lights.turn, lights.illegal, *(lights.hollows or (OFF,) * len(BASE))]
        masks = [sum(1 << BASE.index(h) for h in hollows) for hollows in lights.slots]
        self.link.show([proto.pixel_bytes(p.r, p.g, p.b, p.mode) for p in pixels], masks)


def _hollows(closed: frozenset[int]) -> frozenset[int]:
    return frozenset(i for i in closed if i < len(BASE))


def reserve_counts(closed: frozenset[int]) -> tuple[int, int]:
    """Balls in the first and second player's reserve trays."""
    return sum(i in closed for i in FIRST_TRAY), sum(i in closed for i in SECOND_TRAY)
