"""What a companion display knows of the boards: one :class:`BoardView` per board, built from
the board's MQTT messages alone (docs/mqtt.md), and the :class:`Hall` of every board seen.

No connection here: :meth:`Hall.feed` takes a topic and a payload, so the web page, the
terminal display and the tests share one model. A display draws; it never decides. The
retained ``state`` message carries everything drawn (move list, flag, question), so a
display that starts mid-game shows the whole game at once; events only add what the state
does not hold (the sensors disagreeing) and a short log.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from .display_svg import counts
from .games import Rules, RulesError, rules_from_tags
from .mqtt_topics import BOARD_ID, PREFIX, STATUSES
from .record import Record, RecordedTurn, write_text

log = logging.getLogger("arbiter.display")

#: events kept for the log of a board (the terminal display shows the last few)
LOG_LENGTH = 20
#: the most bytes of one payload a display reads
MAX_PAYLOAD = 256 * 1024


class PayloadError(ValueError):
    """A message a display cannot use: says which topic and what is wrong."""


class BoardView:
    """One board as its messages describe it. ``seq`` drops the events seen twice after a
    reconnection."""

    def __init__(self, board_id: str):
        self.board_id = board_id
        self.online = False
        self.state: dict[str, Any] | None = None
        self.seq = -1
        self.sensors: dict[str, str] = {}  # hollow -> what the camera and the switches disagree on
        self.log: list[dict[str, Any]] = []
        self.problem: str | None = None  # the last message that could not be used
        self._rules: tuple[tuple[tuple[str, str], ...], Rules] | None = None

    # -- messages ----------------------------------------------------------------------
    def message(self, leaf: str, payload: bytes) -> bool:
        """One message on ``arbiter/<board>/<leaf>``; True when the view changed."""
        try:
            if leaf == "status":
                return self._status(_text(leaf, payload))
            if leaf == "state":
                return self._state(_json(leaf, payload))
            if leaf == "events":
                return self._event(_json(leaf, payload))
        except PayloadError as exc:
            self.problem = str(exc)
            log.warning("board %s: %s", self.board_id, exc)
            return True
        return False  # turn (the same as state.to_move), cmd, cmd/reply: not drawn

    def _status(self, text: str) -> bool:
        if text not in ("online", "offline"):
            raise PayloadError(f"status: expected 'online' or 'offline', not {text[:40]!r}")
        changed, self.online = self.online != (text == "online"), text == "online"
        return changed

    def _state(self, obj: Any) -> bool:
        if not isinstance(obj, dict):
            raise PayloadError(f"state: expected a JSON object, not {type(obj).__name__}")
        for key, kind in (("game", str), ("status", str), ("turn", int), ("players", dict)):
            if not isinstance(obj.get(key), kind):
                raise PayloadError(f"state: field {key!r} is missing or not a {kind.__name__}")
        if obj["status"] not in STATUSES:
            raise PayloadError(f"state: unknown status {obj['status']!r} (one of: {', '.join(STATUSES)})")
        if obj.get("game") != (self.state or {}).get("game"):
            self.sensors.clear()
        self.state, self.problem = obj, None  # online or not is the status topic's to say (a dead board's state stays retained)
        return True

    def _event(self, obj: Any) -> bool:
        if not isinstance(obj, dict) or not isinstance(obj.get("seq"), int) or not isinstance(obj.get("type"), str):
            raise PayloadError("events: expected a JSON object with an integer 'seq' and a 'type'")
        if obj["seq"] <= self.seq:
            return False  # a duplicate after a reconnection
        self.seq = obj["seq"]
        kind = obj["type"]
        if kind == "sensors-disagree":
            self.sensors.update({h: str(obj.get("detail", "")) for h in obj.get("hollows", [])})
        elif kind == "sensors-agree":
            for h in obj.get("hollows", []):
                self.sensors.pop(h, None)
        elif kind == "new-game":
            self.sensors.clear()
        self.log = (self.log + [{"type": kind, "text": describe_event(obj), "ts": obj.get("ts")}])[-LOG_LENGTH:]
        return True

    # -- what is drawn -----------------------------------------------------------------
    def rules(self) -> Rules | None:
        """The rules of the game shown, from the state's tags; None when they name none."""
        if self.state is None:
            return None
        tags = self.state.get("tags") or {"Game": self.state["game"], "Variant": self.state.get("variant") or ""}
        key = tuple(sorted((str(k), str(v)) for k, v in tags.items() if k != "Start"))
        if self._rules is None or self._rules[0] != key:
            try:
                self._rules = (key, rules_from_tags({k: v for k, v in tags.items() if k != "Start"}))
            except (RulesError, TypeError, AttributeError) as exc:
                self.problem = f"state: its tags name no rules this display knows ({exc})"
                return None
        return self._rules[1]

    def position(self) -> Any | None:
        rules, text = self.rules(), (self.state or {}).get("position")
        if rules is None or not isinstance(text, str):
            return None
        try:
            return rules.parse_position(text)
        except RulesError as exc:
            self.problem = f"state: position {text[:60]!r} cannot be read: {exc}"
            return None

    def view(self, *, svg: Callable[..., str] | None = None) -> dict[str, Any]:
        """The board as one JSON object for the pages and the terminal (docs/display.md).
        ``svg(rules, position, changed=, flagged=, active=)`` draws the board."""
        state = dict(self.state or {})
        out: dict[str, Any] = {
            "board": self.board_id, "online": self.online,
            "sensors": [{"hollow": h, "detail": d} for h, d in sorted(self.sensors.items())],
            "log": list(self.log),
        }
        for key, default in (("game", None), ("variant", None), ("position", None), ("turn", 0),
                             ("to_move", None), ("status", None), ("result", "*"), ("reason", None),
                             ("players", {}), ("moves", []), ("last_move", None), ("changed", []),
                             ("reserves", None), ("flag", None), ("question", None), ("active", []),
                             ("tags", {})):
            out[key] = state.get(key, default)
        rules, position = self.rules(), self.position()
        out["counts"] = counts(rules, position) if rules is not None else {}
        if svg is not None and rules is not None:
            flagged = {c["cell"]: (c.get("expected"), c.get("seen"))
                       for c in (out["flag"] or {}).get("cells", []) if isinstance(c, dict) and "cell" in c}
            out["svg"] = svg(rules, position, changed=out["changed"], flagged=flagged, active=out["active"])
        out["problem"] = self.problem  # after reading the rules and position, which may add one
        return out

    def record_text(self, *, today: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> str | None:
        """The game shown as a record in the text format (docs/formats.md); None before a game.
        Raises :class:`RecordError` naming the turn when a move in the state is not one a
        record can carry."""
        state = self.state
        if state is None or not isinstance(state.get("tags"), dict):
            return None
        moves = [m for m in state.get("moves") or [] if isinstance(m, dict) and isinstance(m.get("move"), str)]
        first = next((m["ts"] for m in moves if m.get("ts")), None)
        date = first[:10].replace("-", ".") if isinstance(first, str) else f"{today():%Y.%m.%d}"
        tags = {**state["tags"], "Board": self.board_id, "Date": date,
                **{colour.capitalize(): name for colour, name in (state.get("players") or {}).items()},
                "Result": str(state.get("result") or "*")}
        return write_text(Record(tags, tuple(RecordedTurn(m["move"], m.get("ts")) for m in moves)))


class Hall:
    """Every board a display has heard of, and a version number that grows at each change,
    so pages and the terminal wait for changes instead of polling (:meth:`wait`)."""

    def __init__(self, *, prefix: str = PREFIX, clock: Callable[[], float] = time.monotonic):
        self.prefix = prefix
        self.clock = clock
        self.boards: dict[str, BoardView] = {}
        self.versions: dict[str, int] = {}
        self.version = 0
        self.connected = False
        self.link_problem: str | None = None
        self.closed = False
        self._changed = threading.Condition()
        self._replies: dict[str, Callable[[dict[str, Any]], None]] = {}

    def feed(self, topic: str, payload: bytes) -> bool:
        """One MQTT message; True when a board changed. Topics of no board are ignored."""
        parts = topic.split("/")
        if len(parts) < 3 or parts[0] != self.prefix or not BOARD_ID.fullmatch(parts[1]):
            return False
        board, leaf = parts[1], "/".join(parts[2:])
        if leaf == "cmd/reply":
            self._reply(board, payload)
            return False
        with self._changed:
            view = self.boards.get(board)
            if view is None:
                if leaf == "status" and payload.strip() == b"offline":
                    return False  # an old board's will: nothing to show
                view = self.boards[board] = BoardView(board)
            if not view.message(leaf, payload):
                return False
            self._bump(board)
            return True

    def set_connected(self, connected: bool, problem: str | None = None) -> None:
        with self._changed:
            self.connected, self.link_problem = connected, problem
            self._bump(None)

    def _bump(self, board: str | None) -> None:
        self.version += 1
        if board is not None:
            self.versions[board] = self.version
        self._changed.notify_all()

    def close(self) -> None:
        """No more changes will come: every :meth:`wait`, now and later, returns at once (a
        display stopping ends its event streams instead of leaving them open until their
        next heartbeat)."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def wait(self, version: int, timeout: float) -> int:
        """Block until something changed after ``version`` (or ``timeout`` seconds); the
        current version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version > version or self.closed, timeout)
            return self.version

    def online(self) -> list[BoardView]:
        with self._changed:
            return [self.boards[b] for b in sorted(self.boards) if self.boards[b].online]

    def board(self, board_id: str) -> BoardView | None:
        return self.boards.get(board_id)

    def views(self, *, also: str | None = None, svg: Callable[..., str] | None = None) -> list[dict[str, Any]]:
        """The views of the online boards (and of board ``also``, even offline), read under
        the lock so that no message changes them half-way."""
        with self._changed:
            shown = [b for b in sorted(self.boards) if self.boards[b].online or b == also]
            return [self.boards[b].view(svg=svg) for b in shown]

    def snapshot(self, board_id: str, *, svg: Callable[..., str] | None = None) -> tuple[int, dict[str, Any]] | None:
        """One board's view and the version it shows; None for a board never heard of."""
        with self._changed:
            view = self.boards.get(board_id)
            return None if view is None else (self.versions.get(board_id, 0), view.view(svg=svg))

    # -- command replies ---------------------------------------------------------------
    def expect_reply(self, command_id: str, callback: Callable[[dict[str, Any]], None]) -> None:
        with self._changed:
            self._replies[command_id] = callback

    def forget_reply(self, command_id: str) -> None:
        with self._changed:
            self._replies.pop(command_id, None)

    def _reply(self, board: str, payload: bytes) -> None:
        try:
            obj = json.loads(payload)
        except ValueError:
            return
        if isinstance(obj, dict) and isinstance(obj.get("id"), str):
            with self._changed:
                callback = self._replies.pop(obj["id"], None)
            if callback is not None:
                callback(obj)


def describe_event(event: Mapping[str, Any]) -> str:
    """One line for an event in a display's log."""
    kind, get = event.get("type"), event.get
    text = {"move": lambda: f"{get('turn')}. {get('player')} {get('move')}",
            "illegal": lambda: f"illegal: {get('reason')}",
            "restored": lambda: "the board is back to a legal position",
            "takeback": lambda: "taken back: " + " ".join(map(str, get("undone") or [])),
            "confirm-needed": lambda: f"{get('question')} " + " / ".join(map(str, get("candidates") or [])),
            "confirm-withdrawn": lambda: f"question dropped: {get('reason')}",
            "game-over": lambda: f"game over {get('result')}: {get('reason')}",
            "new-game": lambda: f"new game: {get('game')} {get('variant')}",
            "sensors-disagree": lambda: f"sensors disagree: {' '.join(map(str, get('hollows') or []))}",
            "sensors-agree": lambda: f"sensors agree: {' '.join(map(str, get('hollows') or []))}"}.get(kind)
    return text() if text is not None else str(kind)


def _text(leaf: str, payload: bytes) -> str:
    if len(payload) > MAX_PAYLOAD:
        raise PayloadError(f"{leaf}: payload too large ({len(payload)} bytes)")
    try:
        return payload.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{leaf}: payload is not UTF-8 (byte {exc.start})") from None


def _json(leaf: str, payload: bytes) -> Any:
    text = _text(leaf, payload)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise PayloadError(f"{leaf}: payload is not JSON: {exc}") from None
