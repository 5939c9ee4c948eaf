"""How long a board must be seen before the referee judges it (``[stability]``): flicker
and a passing hand never reach its decisions."""

from __future__ import annotations

from dataclasses import dataclass

from .observation import Observation


@dataclass(frozen=True, slots=True)
class Stability:
    """How long a board must stay the same before it counts: ``frames`` consecutive
    identical observations spanning at least ``seconds``."""

    frames: int = 3
    seconds: float = 0.25


class StabilityFilter:
    """Passes an observation on once the same cells have been seen long enough, and only
    once per stable board: flicker and a passing hand never reach the referee's decisions."""

    def __init__(self, stability: Stability):
        self.stability = stability
        self._key: tuple | None = None
        self._count = 0
        self._since = 0.0
        self._done = False
        self._last: Observation | None = None

    def feed(self, obs: Observation) -> Observation | None:
        key = tuple(sorted(obs.cells.items()))
        self._last = obs
        if key != self._key:
            self._key, self._count, self._since, self._done = key, 1, obs.t, False
        else:
            self._count += 1
        if (not self._done and self._count >= self.stability.frames
                and obs.t - self._since >= self.stability.seconds):
            self._done = True
            return obs
        return None

    def reset(self) -> None:
        """Forget the last stable board, so the current one is judged again (after a
        command changed what the referee expects)."""
        self._done = False

    def settle(self) -> Observation | None:
        """The board seen last, if it has not been passed on yet: a player who presses their
        turn button says the board is as they left it, however briefly it has been seen."""
        if self._done or self._last is None:
            return None
        self._done = True
        return self._last
