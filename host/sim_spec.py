"""The ``sim:`` source string of the daemon, and scripts read from game records.

``sim:seed=7,game=sparks,occupancy=1,illegal=0.05,hands=0.1,speed=5``: comma-separated
``key=value`` settings after ``sim:`` (all optional; docs/simulator.md lists every key).
A wrong key or value is a :class:`SimSpecError` that names it.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .games import Rules, RulesError, rules_from_tags
from .record import read_any, start_position
from .sim_render import SimError

if TYPE_CHECKING:
    from .sim import SimConfig

PREFIX = "sim:"
#: the games the simulator plays (``all``: the three in turn)
SIM_GAMES = ("pylos", "sparks", "sparklies", "all")


class SimSpecError(SimError):
    """A ``sim:`` source string that cannot be used; names the key and value."""


def _int(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.strip().lstrip("-").isdigit():
            raise ValueError(f"expected a whole number of at least {low}")
        value = int(text)
        if value < low:
            raise ValueError(f"expected a whole number of at least {low}")
        return value
    return parse


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("expected a number") from None
    if not 0 <= value < 1e6:
        raise ValueError("expected a number of 0 or more")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise ValueError("expected a number above 0")
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("expected a probability from 0 to 1, such as 0.05") from None
    if not 0 <= value <= 1:
        raise ValueError("expected a probability from 0 to 1, such as 0.05")
    return value


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected 1 or 0 (true/false, yes/no, on/off)")


def _pair(low: int) -> Callable[[str], tuple[int, int]]:
    def parse(text: str) -> tuple[int, int]:
        parts = text.split("-")
        if len(parts) > 2 or not all(p.strip().isdigit() for p in parts):
            raise ValueError("expected a whole number or a range such as 4-8")
        least, most = int(parts[0]), int(parts[-1])
        if not low <= least <= most:
            raise ValueError(f"expected a whole number or a range such as 4-8, each at least {low}, "
                             "the first no more than the second")
        return least, most
    return parse


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError("expected WIDTHxHEIGHT such as 4x4")
    return int(parts[0]), int(parts[1])


def _game(text: str) -> str:
    if text.lower() not in SIM_GAMES:
        raise ValueError(f"expected one of {', '.join(SIM_GAMES)}")
    return text.lower()


def _squares(text: str) -> tuple[str, ...]:
    return tuple(text.replace("+", " ").replace("/", " ").split())


#: key -> (SimConfig field, parser of the value)
KEYS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "seed": ("seed", _int(0)),
    "game": ("game", _game),
    "variant": ("variant", str),
    "size": ("size", _size),
    "dead": ("dead", _squares),
    "wrap": ("wrap", _bool),
    "occupancy": ("occupancy", _bool),
    "buttons": ("buttons", _bool),
    "trays": ("trays", _bool),
    "fps": ("fps", _positive),
    "frames": ("frames_per_state", _pair(1)),
    "transitions": ("transition_hands", _probability),
    "hands": ("hands", _probability),
    "hand-frames": ("hand_frames", _pair(1)),
    "flicker": ("flicker", _probability),
    "illegal": ("illegal", _probability),
    "illegal-at": ("illegal_at", _int(0)),
    "takeback": ("takeback", _probability),
    "turns": ("max_turns", _int(1)),
    "pings": ("max_pings", _int(1)),
    "hold": ("end_hold", _number),
    "pause": ("pause", _number),
    "reset": ("reset", _number),
    "games": ("games", _int(0)),
    "speed": ("speed", _number),
    "script": ("script", str),
    "camera": ("camera", _bool),
    "resolution": ("resolution", _size),
}
ALIASES = {"takebacks": "takeback", "hand_frames": "hand-frames"}


def parse_sim_spec(text: str) -> SimConfig:
    """The configuration a ``sim:`` source string describes (``sim:`` alone: the defaults)."""
    from .sim import SimConfig
    body = text.strip()
    if body.lower().startswith(PREFIX):
        body = body[len(PREFIX):]
    elif ":" in body.split("=", 1)[0]:
        raise SimSpecError(f"{text!r} is not a sim source: expected sim: or sim:key=value,...")
    values: dict[str, Any] = {}
    given: dict[str, str] = {}
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise SimSpecError(f"sim source: {item!r} is not key=value (keys: {', '.join(KEYS)})")
        key, value = (part.strip() for part in item.split("=", 1))
        key = ALIASES.get(key.lower(), key.lower())
        if key not in KEYS:
            raise SimSpecError(f"sim source: unknown key {key!r} (keys: {', '.join(KEYS)})")
        if key in given:
            raise SimSpecError(f"sim source: {key} is given twice ({given[key]!r} and {value!r})")
        given[key] = value
        name, parse = KEYS[key]
        try:
            values[name] = parse(value)
        except ValueError as exc:
            raise SimSpecError(f"sim source: {key}={value!r}: {exc}") from None
    try:
        return SimConfig(**values)
    except SimError as exc:
        field_to_key = {name: key for key, (name, _) in KEYS.items()}
        message = str(exc)
        for f in fields(SimConfig):
            if message.startswith(f.name + " ") or message.startswith(f.name + ":"):
                key = field_to_key.get(f.name, f.name)
                raise SimSpecError(f"sim source: {key}={given.get(key, '(default)')!r}: {message}") from None
        raise SimSpecError(f"sim source: {message}") from None


def load_script(path: str | Path) -> tuple[Rules, Any, list[str]]:
    """(rules, start position, turn texts) of the game record at ``path``, for a scripted
    simulation; SimSpecError naming the file and what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SimSpecError(f"sim source: script={str(path)!r}: cannot read it: {exc}") from None
    try:
        record = read_any(text)
        rules = rules_from_tags(record.tags)
        start = start_position(rules, record.tags)
    except RulesError as exc:
        raise SimSpecError(f"sim source: script={str(path)!r}: {exc}") from None
    return rules, start, [t.text for t in record.turns]
