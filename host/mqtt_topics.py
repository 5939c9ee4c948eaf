"""The MQTT topics of one board and the payloads published on them (docs/mqtt.md).

Pure functions: no connection here, so the payload rules are easy to test and to share with
displays written in Python.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

PREFIX = "arbiter"
#: what a board id may contain: it becomes one level of every topic
BOARD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: plain-text values of the ``turn`` topic
TURN_VALUES = ("white", "black", "light", "dark", "none")
STATUSES = ("playing", "flagged", "awaiting-confirmation", "finished")
ONLINE = "online"
OFFLINE = "offline"


def check_board_id(board_id: str) -> str:
    if not isinstance(board_id, str) or not BOARD_ID.fullmatch(board_id):
        raise ValueError(f"board id {board_id!r} cannot be an MQTT topic level: use 1 to 64 letters, "
                         f"digits, '.', '_' or '-', starting with a letter or digit")
    return board_id


@dataclass(frozen=True, slots=True)
class Topics:
    """Every topic of board ``board_id``."""

    board_id: str
    prefix: str = PREFIX

    def __post_init__(self) -> None:
        check_board_id(self.board_id)

    def _topic(self, leaf: str) -> str:
        return f"{self.prefix}/{self.board_id}/{leaf}"

    @property
    def state(self) -> str:
        return self._topic("state")

    @property
    def turn(self) -> str:
        return self._topic("turn")

    @property
    def events(self) -> str:
        return self._topic("events")

    @property
    def status(self) -> str:
        return self._topic("status")

    @property
    def cmd(self) -> str:
        return self._topic("cmd")

    @property
    def reply(self) -> str:
        return self._topic("cmd/reply")

    @property
    def all(self) -> str:
        """The filter a display subscribes to for everything of this board."""
        return self._topic("#")


def turn_text(state: Mapping[str, Any]) -> str:
    """The ``turn`` topic's value for a state object: the colour to move, or ``none`` when
    the game is over or there is no game. A flagged board still shows whose turn it is."""
    if state.get("status") == "finished" or state.get("to_move") is None:
        return "none"
    to_move = state["to_move"]
    if to_move not in TURN_VALUES:
        raise ValueError(f"state: to_move must be one of {', '.join(TURN_VALUES[:-1])} or null, "
                         f"not {to_move!r}")
    return str(to_move)


def state_payloads(state: Mapping[str, Any]) -> tuple[bytes, bytes]:
    """The retained ``state`` JSON and ``turn`` text for a state object (checked first: a
    state that would mislead displays is the daemon's bug and raises ValueError)."""
    if not isinstance(state, Mapping):
        raise ValueError(f"state must be a JSON object, not {type(state).__name__}")
    status = state.get("status")
    if status is not None and status not in STATUSES:
        raise ValueError(f"state: status must be one of {', '.join(STATUSES)}, not {status!r}")
    turn = turn_text(state)
    return encode(dict(state)), turn.encode("ascii")


def event_payload(seq: int, event_json: Mapping[str, Any]) -> bytes:
    """One ``events`` message: the event's JSON with its recorder sequence number first."""
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise ValueError(f"event seq must be an integer, not {seq!r}")
    if "type" not in event_json:
        raise ValueError(f"event {seq} has no \"type\"")
    body = {"seq": seq}
    body.update((k, v) for k, v in event_json.items() if k != "seq")
    return encode(body)


def encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
