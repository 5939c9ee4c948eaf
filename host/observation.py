"""Observations: what one source saw at one instant, and the JSON Lines log that keeps them.

A log line is ``{"t": 12.345, "cells": {"1a1": "W", "1b1": ".", "2a1": "?", "1c1": "#"}}``:
``.`` empty, ``?`` unknown, ``#`` occupied with unknown colour, otherwise the piece letter.
Sparklies cells are two characters, tile colour then controller (``Rb``, ``G.``), ``??``
unknown; either character alone may be ``?``. Positions a source does not report are unknown.

A board that senses its reserve trays adds how many balls each holds:
``{"t": 3.0, "cells": {...}, "reserves": {"light": 14, "dark": 15}}``.

A board's buttons share the log: ``{"t": 12.5, "press": "end-turn", "player": "light"}`` is a
player's turn button (chess-clock style), ``{"t": 13.0, "press": "confirm"}`` the confirm
button; ``{"press": "confirm", "choice": 1}`` is the confirm button pressed while the board's
lights showed the second candidate of the question asked. A press is a :class:`Press`, not an
observation: it says nothing about the cells.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from .games import Rules

EMPTY = "."
UNKNOWN = "?"
OCCUPIED = "#"
#: letters a pyramid cell may hold, by game
PYRAMID_LETTERS = {"pylos": "LD", "sparks": "WBR"}
TILE_COLOURS = "RGB"
CONTROLLERS = ".bw"


class ObservationError(ValueError):
    """A malformed observation: says which line (when read from a log) and what is wrong."""

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


@dataclass(frozen=True, slots=True)
class Observation:
    """Cells seen at time ``t`` (seconds, the source's clock). ``cells`` is read-only."""

    t: float
    cells: Mapping[str, str] = field(default_factory=dict)
    #: balls in each player's reserve tray, for a board that senses them; None: not sensed
    reserves: Mapping[str, int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.cells, MappingProxyType):
            object.__setattr__(self, "cells", MappingProxyType(dict(self.cells)))
        if self.reserves is not None and not isinstance(self.reserves, MappingProxyType):
            object.__setattr__(self, "reserves", MappingProxyType(dict(self.reserves)))

    def get(self, name: str, unknown: str = UNKNOWN) -> str:
        """The cell's content; ``unknown`` (``?``, or ``??`` for Sparklies) when the source
        did not report it."""
        return self.cells.get(name, unknown)

    def to_json(self) -> dict:
        out: dict = {"t": self.t, "cells": dict(self.cells)}
        if self.reserves is not None:
            out["reserves"] = dict(self.reserves)
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))


#: the buttons a board may have: each player's turn button, and the confirm button
BUTTONS = ("end-turn", "confirm")


@dataclass(frozen=True, slots=True)
class Press:
    """A button pressed at time ``t``: ``end-turn`` (a player's turn button; ``player`` says
    whose, None when the board has one button for both) or ``confirm`` (``choice``: the
    candidate the board's lights showed at that moment, by its place in the question)."""

    t: float
    button: str
    player: str | None = None
    choice: int | None = None

    def __post_init__(self) -> None:
        if self.button not in BUTTONS:
            raise ObservationError(f"unknown button {self.button!r} (expected {' or '.join(BUTTONS)})")

    def to_json(self) -> dict:
        out: dict = {"t": self.t, "press": self.button}
        if self.player is not None:
            out["player"] = self.player
        if self.choice is not None:
            out["choice"] = self.choice
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))


def _parse_press(data: dict, t: float, line: int | None) -> Press:
    extra = set(data) - {"t", "press", "player", "choice"}
    if extra:
        raise ObservationError(f"unknown key {sorted(extra)[0]!r} in a button press "
                               "(expected 't', 'press', 'player', 'choice')", line)
    player = data.get("player")
    if player is not None and not isinstance(player, str):
        raise ObservationError(f"'player' must be a player's name, not {player!r}", line)
    choice = data.get("choice")
    if choice is not None and (isinstance(choice, bool) or not isinstance(choice, int) or choice < 0):
        raise ObservationError(f"'choice' must be a candidate's place (0, 1, ...), not {choice!r}", line)
    try:
        return Press(t, data["press"], player, choice)
    except ObservationError as exc:
        raise ObservationError(str(exc), line) from None


def parse_line(text: str, line: int | None = None) -> Observation | Press:
    """One log line; ObservationError with the line number for anything malformed."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ObservationError(f"not JSON: {exc.msg} at column {exc.colno}", line) from None
    if not isinstance(data, dict):
        raise ObservationError('expected an object like {"t": 1.0, "cells": {...}}', line)
    t = data.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise ObservationError(f"'t' must be a finite number of seconds, not {t!r}", line)
    if "press" in data:
        return _parse_press(data, float(t), line)
    extra = set(data) - {"t", "cells", "reserves"}
    if extra:
        raise ObservationError(f"unknown key {sorted(extra)[0]!r} (expected 't', 'cells' and 'reserves', "
                               "or 'press')", line)
    reserves = data.get("reserves")
    if reserves is not None:
        if not isinstance(reserves, dict):
            raise ObservationError("'reserves' must be an object mapping players to ball counts", line)
        for player, count in reserves.items():
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 99:
                raise ObservationError(f"reserves: {player!r}: {count!r} is not a count of balls (0 to 99)", line)
    cells = data.get("cells")
    if not isinstance(cells, dict):
        raise ObservationError("'cells' must be an object mapping position names to contents", line)
    width = None
    for name, value in cells.items():
        if not isinstance(value, str) or len(value) not in (1, 2):
            raise ObservationError(f"cell {name!r}: {value!r} is not a cell content (one or two characters)", line)
        if width is None:
            width = len(value)
        elif len(value) != width:
            raise ObservationError(f"cell {name!r}: {value!r} mixes one- and two-character cells", line)
    return Observation(float(t), cells, reserves)


def read_log(path: str | Path) -> Iterator[Observation | Press | ObservationError]:
    """Every line of an observation log: an Observation or a Press, or the error for a bad
    line, so a reader can report it and go on. Blank lines are skipped."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, text in enumerate(f, start=1):
            if text.strip():
                try:
                    yield parse_line(text, number)
                except ObservationError as exc:
                    yield exc


def write_log(path: str | Path, observations: Iterable[Observation | Press]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for obs in observations:
            f.write(obs.to_line() + "\n")


def check_cells(rules: Rules, obs: Observation, names: frozenset[str]) -> None:
    """That every cell name belongs to the board and every content to the game; raises
    ObservationError naming the cell."""
    if obs.reserves is not None:
        if rules.reserves(rules.start()) is None:
            raise ObservationError(f"reserves: {rules.game} has no reserves to sense (only Pylos does)")
        for player in obs.reserves:
            if player not in rules.players:
                raise ObservationError(f"reserves: {player!r} is not a player of {rules.game} "
                                       f"({', '.join(rules.players)})")
    if rules.game == "sparklies":
        for name, value in obs.cells.items():
            if name not in names:
                raise ObservationError(f"cell {name!r} is not a square of this board")
            if len(value) != 2 or value[0] not in TILE_COLOURS + UNKNOWN or value[1] not in CONTROLLERS + UNKNOWN:
                raise ObservationError(f"cell {name}: {value!r} is not a tile colour (R, G, B, ?) "
                                       f"followed by a controller (., b, w, ?)")
        return
    letters = PYRAMID_LETTERS[rules.game]
    for name, value in obs.cells.items():
        if name not in names:
            raise ObservationError(f"cell {name!r} is not a position of the pyramid (1a1..4a1)")
        if len(value) != 1 or value not in letters + EMPTY + UNKNOWN + OCCUPIED:
            raise ObservationError(f"cell {name}: {value!r} is not one of {' '.join(letters)} . ? #")


def matches(seen: str, actual: str) -> bool:
    """Whether a seen cell content is consistent with the actual one: ``?`` matches
    anything, ``#`` any ball, and for two-character cells each character separately."""
    if len(seen) == 2:
        return all(s == UNKNOWN or s == a for s, a in zip(seen, actual))
    if seen == UNKNOWN:
        return True
    if seen == OCCUPIED:
        return actual != EMPTY
    return seen == actual
