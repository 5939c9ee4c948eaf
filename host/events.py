"""Events: what the referee decided, for the sinks (MQTT, the recorder, LEDs, displays), and
what the sensors found about themselves (``sensors-disagree``).

Every event is one JSON object ``{"t": ..., "type": ..., ...}`` (docs/mqtt.md lists the
fields of each type). Events are immutable values; sinks never change or reinterpret them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

MOVE = "move"
ILLEGAL = "illegal"
RESTORED = "restored"
TAKEBACK = "takeback"
CONFIRM_NEEDED = "confirm-needed"
CONFIRM_WITHDRAWN = "confirm-withdrawn"
GAME_OVER = "game-over"
NEW_GAME = "new-game"
#: the camera and the reed switches see a hollow differently (host/fusion.py), and again alike
SENSORS_DISAGREE = "sensors-disagree"
SENSORS_AGREE = "sensors-agree"
TYPES = (MOVE, ILLEGAL, RESTORED, TAKEBACK, CONFIRM_NEEDED, CONFIRM_WITHDRAWN, GAME_OVER, NEW_GAME,
         SENSORS_DISAGREE, SENSORS_AGREE)


@dataclass(frozen=True, slots=True)
class Event:
    """``t`` is the time of the observation (or command) that caused the event, on the
    source's clock; ``data`` the type's fields."""

    type: str
    t: float
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"unknown event type {self.type!r}")
        if not isinstance(self.data, MappingProxyType):
            object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    def to_json(self) -> dict[str, Any]:
        return {"t": self.t, "type": self.type, **self.data}

    def to_line(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Event":
        rest = {k: v for k, v in data.items() if k not in ("t", "type")}
        return cls(str(data["type"]), float(data["t"]), rest)
