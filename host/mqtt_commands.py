"""Commands arriving on ``arbiter/<board-id>/cmd``: parsing, validation and authorisation.

Only the form of a command is judged here (JSON, known name, field types, token): whether it
can be carried out (is there a move to take back?) is the daemon's decision, which it answers
with :meth:`host.mqtt.MqttLink.reply`. A command that fails here never reaches the daemon;
its sender gets a reply saying what is wrong.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

NEW_GAME = "new-game"
TAKEBACK = "takeback"
CONFIRM = "confirm"
END_TURN = "end-turn"
SET_PLAYERS = "set-players"
COMMANDS = (NEW_GAME, TAKEBACK, CONFIRM, END_TURN, SET_PLAYERS)
#: player names a ``set-players`` command may use (Pylos; Sparks and Sparklies)
PLAYER_NAMES = ("light", "dark", "white", "black")
#: the largest command payload accepted, in bytes
MAX_PAYLOAD = 16 * 1024
MAX_NAME = 64
#: the longest turn text a confirm command may carry (Sparklies chains are long)
MAX_MOVE = 512
#: the most squares a list in a command's rules may name (a 26x26 Sparklies board)
MAX_SQUARES = 26 * 26

_COMMON = ("cmd", "token", "id")
#: each command's own fields, besides cmd, token and id
_FIELDS: dict[str, tuple[str, ...]] = {
    NEW_GAME: ("game", "variant", "rules"),
    TAKEBACK: ("turns",),
    CONFIRM: ("move",),
    END_TURN: (),
    SET_PLAYERS: ("players",),
}


class CommandError(ValueError):
    """A command that is malformed or not authorised. ``cmd`` and ``id`` are what could be
    read of the command (for the reply), or None."""

    def __init__(self, message: str, *, cmd: str | None = None, id: str | int | None = None):
        super().__init__(message)
        self.cmd = cmd
        self.id = id


@dataclass(frozen=True, slots=True)
class Command:
    """A well-formed, authorised command. ``id`` is the sender's correlation id, echoed in
    the reply; the other fields are the command's arguments (None when not given)."""

    cmd: str
    id: str | int | None = None
    game: str | None = None
    variant: str | None = None
    move: str | None = None
    turns: int = 1
    players: Mapping[str, str] = field(default_factory=dict)
    #: new-game: rule options as in the configuration's [rules] (``size``, ``dead``, ``wrap``, ``reserve_rule``)
    rules: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.cmd not in COMMANDS:
            raise ValueError(f"unknown command {self.cmd!r}")
        for name in ("players", "rules"):
            if not isinstance(getattr(self, name), MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


@dataclass(frozen=True, slots=True)
class Authority:
    """Who may command: holders of ``token``, or, with ``trust_authenticated``, anyone the
    broker lets write the cmd topic (the broker's ACLs are then the only lock)."""

    token: str | None = None
    trust_authenticated: bool = False

    def check(self, given: Any) -> str | None:
        """None when authorised, otherwise why not."""
        if self.trust_authenticated:
            return None
        if self.token is None:
            return "commands are disabled: no command token is configured (mqtt.token)"
        if given is None:
            return "missing \"token\""
        if not isinstance(given, str):
            return "\"token\" must be a string"
        if not hmac.compare_digest(given.encode("utf-8"), self.token.encode("utf-8")):
            return "wrong token"
        return None


def parse_command(payload: bytes, authority: Authority, *, retained: bool = False) -> Command:
    """The command in an MQTT payload, or :class:`CommandError` saying what is wrong."""
    if len(payload) > MAX_PAYLOAD:
        raise CommandError(f"payload too large: {len(payload)} bytes, at most {MAX_PAYLOAD}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(f"payload is not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"payload is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise CommandError(f"payload must be a JSON object, not {_json_type(data)}")
    cmd = data.get("cmd")
    echo_cmd = cmd if isinstance(cmd, str) else None
    ident = data.get("id")
    if ident is not None and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
        raise CommandError(f"\"id\" must be a string or an integer, not {_json_type(ident)}", cmd=echo_cmd)
    if retained:
        raise CommandError("retained commands are ignored: publish commands without the retain flag "
                           "(and clear this one with an empty retained message)", cmd=echo_cmd, id=ident)
    refusal = authority.check(data.get("token"))
    if refusal is not None:
        raise CommandError(refusal, cmd=echo_cmd, id=ident)
    try:
        return _command(data, ident)
    except CommandError as exc:
        raise CommandError(str(exc), cmd=echo_cmd, id=ident) from None


def _command(data: dict[str, Any], ident: str | int | None) -> Command:
    if "cmd" not in data:
        raise CommandError(f"missing \"cmd\" (one of: {', '.join(COMMANDS)})")
    cmd = data["cmd"]
    if not isinstance(cmd, str):
        raise CommandError(f"\"cmd\" must be a string, not {_json_type(cmd)}")
    if cmd not in COMMANDS:
        raise CommandError(f"unknown cmd {cmd!r} (one of: {', '.join(COMMANDS)})")
    allowed = _COMMON + _FIELDS[cmd]
    for key in data:
        if key not in allowed:
            own = ", ".join(_FIELDS[cmd]) or "none"
            raise CommandError(f"{cmd}: unknown field {key!r} (its fields: {own})")
    args: dict[str, Any] = {}
    for key in ("game", "variant", "move"):
        if key in data:
            args[key] = _name(cmd, key, data[key], MAX_MOVE if key == "move" else MAX_NAME)
    if "turns" in data:
        turns = data["turns"]
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
            raise CommandError(f"{cmd}: \"turns\" must be a positive integer, not {json.dumps(turns)}")
        args["turns"] = turns
    if cmd == SET_PLAYERS:
        args["players"] = _players(data.get("players"))
    if "rules" in data:
        args["rules"] = _rules(cmd, data["rules"])
    if "game" in args:
        from .games import GAMES
        if args["game"].lower() not in GAMES:
            raise CommandError(f"{cmd}: unknown game {args['game']!r} (one of: {', '.join(GAMES)})")
        args["game"] = args["game"].lower()
    return Command(cmd=cmd, id=ident, **args)


def _name(cmd: str, key: str, value: Any, limit: int = MAX_NAME) -> str:
    if not isinstance(value, str):
        raise CommandError(f"{cmd}: \"{key}\" must be a string, not {_json_type(value)}")
    if not value.strip() or len(value) > limit:
        raise CommandError(f"{cmd}: \"{key}\" must be 1 to {limit} characters, not {value!r}")
    return value.strip()


def _players(value: Any) -> dict[str, str]:
    if value is None:
        raise CommandError("set-players: missing \"players\", e.g. {\"light\": \"Ann\", \"dark\": \"Bob\"}")
    if not isinstance(value, dict):
        raise CommandError(f"set-players: \"players\" must be an object, not {_json_type(value)}")
    if not value:
        raise CommandError("set-players: \"players\" is empty")
    players = {}
    for side, name in value.items():
        if side not in PLAYER_NAMES:
            raise CommandError(f"set-players: unknown side {side!r} (one of: {', '.join(PLAYER_NAMES)})")
        players[side] = _name("set-players", f"players.{side}", name)
    return players


def _rules(cmd: str, value: Any) -> dict[str, Any]:
    """Rule options by their configuration names and types; whether they suit the game is
    the daemon's decision."""
    from .config import SCHEMA
    keys = SCHEMA["rules"]
    if not isinstance(value, dict):
        raise CommandError(f"{cmd}: \"rules\" must be an object, not {_json_type(value)}")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in keys:
            raise CommandError(f"{cmd}: unknown rule {key!r} (one of: {', '.join(keys)})")
        kind = keys[key][0]
        where = f"rules.{key}"
        if kind is bool:
            if not isinstance(item, bool):
                raise CommandError(f"{cmd}: \"{where}\" must be true or false, not {_json_type(item)}")
            out[key] = item
        elif kind is list:
            if not isinstance(item, list) or len(item) > MAX_SQUARES:
                raise CommandError(f"{cmd}: \"{where}\" must be a list of at most {MAX_SQUARES} square names")
            out[key] = tuple(_name(cmd, where, v) for v in item)
        else:
            out[key] = _name(cmd, where, item)
    return out


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def reply_payload(*, ok: bool, cmd: str | None, id: str | int | None = None,
                  error: str | None = None) -> bytes:
    """The JSON published on ``cmd/reply``: ``{"ok", "cmd", "id"?, "error"?}``."""
    if not ok and not error:
        raise ValueError("a failed command's reply needs an error")
    body: dict[str, Any] = {"ok": ok, "cmd": cmd}
    if id is not None:
        body["id"] = id
    if not ok:
        body["error"] = error
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
