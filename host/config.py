"""The daemon's configuration: a TOML file, every key checked at start-up.

A wrong key or value stops start-up with a message naming it (``mqtt.url: expected a
string``). Every key is documented in docs/configuration.md; :data:`SCHEMA` is the single
list of them.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .games import GAMES

#: the games played on each kind of board (a board's games must all be of one kind)
BOARD_GAMES: dict[str, tuple[str, ...]] = {"pyramid": ("pylos", "sparks"), "grid": ("sparklies",)}
#: the [rules] keys that apply to each game
RULE_KEYS: dict[str, tuple[str, ...]] = {"pylos": ("reserve_rule",), "sparks": (),
                                         "sparklies": ("size", "dead", "wrap")}


def board_kind(game: str) -> str:
    """``pyramid`` or ``grid``: the board a game is played on."""
    return next(kind for kind, games in BOARD_GAMES.items() if game in games)


class ConfigError(ValueError):
    """A configuration problem, naming the file and the key."""


#: section -> key -> (type, default). A section of None holds top-level keys.
SCHEMA: dict[str | None, dict[str, tuple[type | tuple[type, ...], Any]]] = {
    None: {"board_id": (str, "board-1"), "game": (str, None), "variant": (str, None), "games": (list, None)},
    "source": {"spec": (str, None), "speed": ((int, float), 1.0), "coverage": (str, "all")},
    "rules": {"reserve_rule": (str, None), "size": (str, "9x9"), "dead": (list, []), "wrap": (bool, False)},
    "mqtt": {"url": (str, None), "embedded_port": (int, 1883), "username": (str, None), "password": (str, None),
             "ca_file": (str, None), "certfile": (str, None), "keyfile": (str, None), "tls_insecure": (bool, False),
             "token": (str, None), "trust_authenticated": (bool, False), "keepalive": (int, 30),
             "enabled": (bool, True)},
    "storage": {"database": (str, None)},
    "stability": {"frames": (int, 3), "seconds": ((int, float), 0.25)},
    "camera": {"board": (str, None), "intrinsics": (str, None), "calibration": (str, None), "fps": ((int, float), 10.0),
               "debug_dir": (str, None), "debug_before": ((int, float), 5.0), "debug_after": ((int, float), 2.0)},
    "gpio": {"hollows": (dict, {}), "turn_first": (int, None), "turn_second": (int, None), "turn": (int, None),
             "confirm": (int, None), "led_first": (int, None), "led_second": (int, None), "rgb": (list, None),
             "buzzer": (int, None), "active_high": (bool, True), "buzzer_active_high": (bool, True),
             "bounce": ((int, float), 0.05), "interval": ((int, float), 0.1)},
    "leds": {"driver": (str, None), "wled_topic": (str, None), "wled_api": (str, "json"), "brightness": (int, 128)},
    "players": {},  # free keys: the game's player names (light/dark, white/black)
}


@dataclass(frozen=True)
class Config:
    board_id: str = "board-1"
    game: str | None = None
    variant: str | None = None
    #: the games this board may switch between (None: every game of its board)
    games: tuple[str, ...] | None = None
    source: Mapping[str, Any] = field(default_factory=dict)
    rules: Mapping[str, Any] = field(default_factory=dict)
    mqtt: Mapping[str, Any] = field(default_factory=dict)
    storage: Mapping[str, Any] = field(default_factory=dict)
    stability: Mapping[str, Any] = field(default_factory=dict)
    camera: Mapping[str, Any] = field(default_factory=dict)
    gpio: Mapping[str, Any] = field(default_factory=dict)
    leds: Mapping[str, Any] = field(default_factory=dict)
    players: Mapping[str, str] = field(default_factory=dict)

    def rule_options(self, game: str | None = None) -> dict[str, Any]:
        """Keyword options for :func:`host.games.rules_for` from [rules], for ``game``
        (default: the configured game)."""
        return rule_options(game or self.game, self.rules)

    def board_games(self, game: str) -> tuple[str, ...]:
        """The games the board that ``game`` is started on may switch between: ``games``,
        or every game of that board; ConfigError when ``games`` leaves ``game`` out."""
        allowed = self.games if self.games is not None else BOARD_GAMES[board_kind(game)]
        if game not in allowed:
            raise ConfigError(f"games: {', '.join(allowed)} does not include {game}, the game the daemon "
                              "starts with (--game or game)")
        return tuple(allowed)


def rule_options(game: str | None, rules: Mapping[str, Any], where: str = "rules") -> dict[str, Any]:
    """Engine options for ``game`` from [rules]-style values (``size = "9x9"`` becomes width
    and height); keys that are not the game's are left out."""
    if game == "pylos":
        return {"reserve_rule": rules["reserve_rule"]} if rules.get("reserve_rule") else {}
    if game == "sparklies":
        out: dict[str, Any] = {}
        if rules.get("size") is not None:
            out["width"], out["height"] = parse_size(rules["size"], f"{where}.size")
        if rules.get("dead") is not None:
            out["dead"] = list(rules["dead"])
        if rules.get("wrap") is not None:
            out["wrap"] = rules["wrap"]
        return out
    return {}


def parse_size(text: str, where: str) -> tuple[int, int]:
    try:
        width, height = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise ConfigError(f"{where}: {text!r} is not a size like 9x9") from None
    return width, height


def _check(where: str, value: Any, kind: type | tuple[type, ...]) -> None:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        ok = False
    else:
        ok = isinstance(value, kinds)
    if not ok:
        names = " or ".join({str: "a string", int: "a whole number", float: "a number", bool: "true or false",
                             list: "a list", dict: "a table"}[k] for k in kinds)
        raise ConfigError(f"{where}: expected {names}, got {value!r}")


def from_mapping(data: Mapping[str, Any], origin: str = "configuration") -> Config:
    """Check a parsed TOML document and fill in the defaults."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in SCHEMA and key is not None:
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: [{key}] must be a table")
            section = SCHEMA[key]
            values = {k: d for k, (_, d) in section.items()}
            for sub, v in value.items():
                where = f"{origin}: {key}.{sub}"
                if key == "players":
                    _check(where, v, str)
                elif sub not in section:
                    raise ConfigError(f"{where}: unknown key (expected one of: {', '.join(section)})")
                else:
                    _check(where, v, section[sub][0])
                values[sub] = v
            out[key] = values
        elif key in SCHEMA[None]:
            _check(f"{origin}: {key}", value, SCHEMA[None][key][0])
            out[key] = value
        else:
            known = list(SCHEMA[None]) + [f"[{s}]" for s in SCHEMA if s]
            raise ConfigError(f"{origin}: unknown key {key!r} (expected one of: {', '.join(known)})")
    for section, keys in SCHEMA.items():
        if section is not None and section not in out:
            out[section] = {k: d for k, (_, d) in keys.items()}
    if out.get("games") is not None:
        out["games"] = _games(origin, out["games"])
    config = Config(**out)
    if config.game is not None and config.game not in GAMES:
        raise ConfigError(f"{origin}: game: {config.game!r} is not one of {', '.join(GAMES)}")
    if config.game is not None and config.games is not None and config.game not in config.games:
        raise ConfigError(f"{origin}: games: {', '.join(config.games)} does not include game {config.game!r}")
    if config.stability["frames"] < 1 or config.stability["seconds"] < 0:
        raise ConfigError(f"{origin}: stability: frames must be at least 1 and seconds not negative")
    if config.source["coverage"] not in ("all", "base"):
        raise ConfigError(f"{origin}: source.coverage: expected \"all\" (camera) or \"base\" (reed switches)")
    _check_camera(origin, config.camera)
    _check_gpio_leds(origin, config.gpio, config.leds)
    if config.mqtt["url"] is not None and not config.mqtt["url"].startswith(("mqtt://", "mqtts://")):
        raise ConfigError(f"{origin}: mqtt.url: expected mqtt://host:port or mqtts://host:port")
    return config


#: the most seconds a debug capture may reach before or after a flag (the frames are kept in memory)
DEBUG_SECONDS = 60


def _check_camera(origin: str, camera: Mapping[str, Any]) -> None:
    if not 0 < camera["fps"] <= 120:
        raise ConfigError(f"{origin}: camera.fps: expected more than 0 and at most 120 frames a second, "
                          f"got {camera['fps']!r}")
    for key in ("debug_before", "debug_after"):
        if not 0 <= camera[key] <= DEBUG_SECONDS:
            raise ConfigError(f"{origin}: camera.{key}: expected 0 to {DEBUG_SECONDS} seconds, got {camera[key]!r}")
    for key in ("board", "intrinsics", "debug_dir"):
        if camera[key] is not None and not camera[key].strip():
            raise ConfigError(f"{origin}: camera.{key}: an empty string (leave the key out for the default)")


def _check_gpio_leds(origin: str, gpio: Mapping[str, Any], leds: Mapping[str, Any]) -> None:
    """[gpio]: pins 2-27, each used once, hollows on the base (host/gpio_board.py checks
    them); [leds]: a known driver and WLED API, a brightness 0-255."""
    from .gpio_board import gpio_pins
    from .led_drivers import DRIVERS
    gpio_pins(gpio, origin)
    if leds["driver"] is not None and leds["driver"] not in DRIVERS:
        raise ConfigError(f"{origin}: leds.driver: {leds['driver']!r} is not one of {', '.join(DRIVERS)}")
    if leds["wled_api"] not in ("json", "colour"):
        raise ConfigError(f"{origin}: leds.wled_api: expected \"json\" or \"colour\", got {leds['wled_api']!r}")
    if not 0 <= leds["brightness"] <= 255:
        raise ConfigError(f"{origin}: leds.brightness: expected 0 to 255, got {leds['brightness']!r}")
    if leds["wled_topic"] is not None and (not leds["wled_topic"].strip("/") or any(c in leds["wled_topic"] for c in "#+")):
        raise ConfigError(f"{origin}: leds.wled_topic: {leds['wled_topic']!r} is not a topic (no wildcards, not empty)")


def _games(origin: str, value: list[Any]) -> tuple[str, ...]:
    """The ``games`` list: known games, all played on one kind of board."""
    if not value:
        raise ConfigError(f"{origin}: games: the list is empty (leave it out for every game of the board)")
    for name in value:
        if name not in GAMES:
            raise ConfigError(f"{origin}: games: {name!r} is not one of {', '.join(GAMES)}")
    kinds = {board_kind(name): name for name in value}
    if len(kinds) > 1:
        (a, one), (b, other) = sorted(kinds.items(), reverse=True)
        raise ConfigError(f"{origin}: games: {one} and {other} are not played on the same board "
                          f"(a {a} and a {b}); list the games of one board")
    return tuple(dict.fromkeys(value))


def load(path: str | Path | None) -> Config:
    """The configuration in ``path`` (None: all defaults)."""
    if path is None:
        return from_mapping({})
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return from_mapping(data, str(path))
