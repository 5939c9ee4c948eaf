"""The LED plan: what the board's lights show, from what the daemon publishes (docs/leds.md).

Pure: an :class:`Indicator` is fed the decoded MQTT messages (or the daemon's own state and
events, the same JSON) and answers with :class:`Lights`, which any driver (GPIO, WLED, the
board controller's strip) renders as well as its hardware allows. Nothing here touches a
pin or a socket, so every rule is testable with plain dicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Mapping

from .mqtt_topics import STATUSES

#: the board controller's pattern modes (docs/protocol.md)
STEADY, SLOW, FAST, IN_TURN = 0, 1, 2, 3
MODES = (STEADY, SLOW, FAST, IN_TURN)
#: the highest in-turn slot; candidates after the 16th share it
MAX_SLOT = 15
#: the in-turn timing of the protocol: each slot lasts 1 s, lit for its first 0.8 s
SLOT_SECONDS, SLOT_LIT = 1.0, 0.8
#: blink timings (on, off) in seconds of the slow and fast modes
BLINK = {SLOW: (0.5, 0.5), FAST: (0.125, 0.125)}

#: colour names of the first indicator (light/white) and the second (dark/black)
FIRST_COLOURS, SECOND_COLOURS = ("light", "white"), ("dark", "black")
#: the indicators' colours: warm white for light/white, blue for dark/black, red for a flag
FIRST_RGB, SECOND_RGB, RED = (255, 160, 60), (0, 60, 255), (255, 0, 0)
#: a sensor fault: the camera and the reed switches disagree about a hollow
AMBER = (255, 100, 0)

#: the 16 base hollows in the strip's order: 1a1, 1b1, 1c1, 1d1, 1a2, ... 1d4
BASE = tuple(f"1{c}{r}" for r in "1234" for c in "abcd")
_PYRAMID_CELL = re.compile(r"([1-4])([a-d])([1-4])")
PYRAMID_GAMES = ("pylos", "sparks")


class IndicatorError(ValueError):
    """A message the indicator cannot read: says which field and what is wrong."""


@dataclass(frozen=True, slots=True)
class Pixel:
    """One light: a colour (0-255 each) shown in a pattern mode (an IN_TURN hollow is lit
    in the slots of :attr:`Lights.slots` that hold it)."""

    r: int
    g: int
    b: int
    mode: int = STEADY

    @property
    def lit(self) -> bool:
        return bool(self.r or self.g or self.b)

    @property
    def rgb(self) -> tuple[int, int, int]:
        return (self.r, self.g, self.b)


OFF = Pixel(0, 0, 0)


@dataclass(frozen=True, slots=True)
class Lights:
    """Everything the board shows at one moment. ``status`` names the situation for drivers
    that show less than every pixel (one WLED strip, one RGB LED): ``off``, ``playing``,
    ``flagged``, ``awaiting-confirmation`` or ``finished``."""

    turn: tuple[Pixel, Pixel]        # first player's (light/white), second player's (dark/black)
    illegal: Pixel
    hollows: tuple[Pixel, ...]       # BASE order; empty for a grid board
    buzz: bool = False               # sound the buzzer once (a new illegal flag)
    status: str = "off"
    #: the in-turn cycle: the hollows each slot lights (a hollow may be in several)
    slots: tuple[frozenset[str], ...] = ()


DARK = Lights((OFF, OFF), OFF, (OFF,) * len(BASE))


def side(colour: str | None) -> int | None:
    """0 for light/white, 1 for dark/black, None for anything else (``none``, null)."""
    if colour in FIRST_COLOURS:
        return 0
    if colour in SECOND_COLOURS:
        return 1
    return None


def colour_of(which: int) -> tuple[int, int, int]:
    return FIRST_RGB if which == 0 else SECOND_RGB


def footprint(cell: str) -> tuple[str, ...]:
    """The base hollows under a pyramid cell: a level-L cell at column c, row r covers
    columns c..c+L-1, rows r..r+L-1 of the base. Not a pyramid cell: ()."""
    m = _PYRAMID_CELL.fullmatch(cell)
    if not m:
        return ()
    level, col, row = int(m[1]), "abcd".index(m[2]), int(m[3])
    if col + level > 4 or row + level - 1 > 4:
        return ()
    return tuple(f"1{'abcd'[c]}{r}" for r in range(row, row + level) for c in range(col, col + level))


def slot_shown(elapsed: float, slots: int) -> int | None:
    """The in-turn slot lit ``elapsed`` seconds after the cycle started, None between slots:
    the cycle has ``slots`` slots of 1 s, each lit for its first 0.8 s (docs/protocol.md)."""
    if slots <= 0 or elapsed < 0:
        return None
    within = elapsed % SLOT_SECONDS
    return int(elapsed // SLOT_SECONDS) % slots if within < SLOT_LIT else None


def _text(obj: Mapping[str, Any], key: str, where: str, *, optional: bool = True) -> str | None:
    value = obj.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise IndicatorError(f"{where}: \"{key}\" must be a string, not {type(value).__name__}")
    return value


def _mapping(obj: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise IndicatorError(f"{where}: expected a JSON object, not {type(obj).__name__}")
    return obj


class Indicator:
    """The lights of one board, kept up to date from its ``state``, ``events``, ``turn`` and
    ``status``. Each feeding method returns the new Lights, or None when nothing changed."""

    def __init__(self) -> None:
        self._game: str | None = None
        self._variant: str | None = None
        self._position: str | None = None
        self._status: str | None = None      # None: no state yet
        self._online = True
        self._mover: int | None = None
        self._winner: int | None = None      # with status finished; None: a draw
        self._flag_cells: tuple[str, ...] = ()
        self._sensor_cells: frozenset[str] = frozenset()  # hollows the sensors disagree about
        self._candidates: tuple[str, ...] = ()
        self._candidate_cells: tuple[tuple[str, ...], ...] = ()
        self._seq: int | None = None
        self._lights = DARK
        self._rules: dict[tuple[str, str | None], Any] = {}

    # -- what callers read -------------------------------------------------------------

    @property
    def lights(self) -> Lights:
        return self._lights

    @property
    def candidates(self) -> tuple[str, ...]:
        """The turns of the open question (awaiting confirmation), in slot order."""
        return self._candidates if self._status == "awaiting-confirmation" else ()

    @property
    def slots(self) -> int:
        """How many in-turn slots the lights cycle through (0: none)."""
        return min(len(self.candidates), MAX_SLOT + 1)

    def candidate_for_slot(self, slot: int | None) -> str | None:
        """The candidate shown in ``slot``; None when none is, or when slot 15 is shared by
        several candidates (more than 16) and so does not say which."""
        cands = self.candidates
        if slot is None or not 0 <= slot < len(cands):
            return None
        if slot == MAX_SLOT and len(cands) > MAX_SLOT + 1:
            return None
        return cands[slot]

    @property
    def mover(self) -> int | None:
        """0 (light/white) or 1 (dark/black) to move; None when nobody is."""
        return self._mover

    # -- feeding -----------------------------------------------------------------------

    def state(self, obj: Any) -> Lights | None:
        """The retained state object (docs/mqtt.md): the truth about status and mover."""
        obj = _mapping(obj, "state")
        status = _text(obj, "status", "state")
        if status is not None and status not in STATUSES:
            raise IndicatorError(f"state: \"status\" must be one of {', '.join(STATUSES)}, not {status!r}")
        game = _text(obj, "game", "state")
        variant = _text(obj, "variant", "state")
        position = _text(obj, "position", "state")
        to_move = _text(obj, "to_move", "state")
        result = _text(obj, "result", "state")
        if game != self._game or position != self._position:
            self._candidate_cells = ()
        self._game, self._variant, self._position = game, variant, position
        self._status = status or "playing"
        self._mover = side(to_move)
        if self._status != "flagged":
            self._flag_cells = ()
        if self._status != "awaiting-confirmation":
            self._candidates, self._candidate_cells = (), ()
        elif self._candidates and not self._candidate_cells:
            self._candidate_cells = self._footprints(self._candidates)
        if self._status == "finished":
            self._winner = self._winner_of_result(result)
        return self._update()

    def turn(self, text: str) -> Lights | None:
        """The retained ``turn`` text: who moves (it stays on the mover while flagged)."""
        if not isinstance(text, str) or text not in FIRST_COLOURS + SECOND_COLOURS + ("none",):
            raise IndicatorError(f"turn: expected white, black, light, dark or none, not {text!r}")
        self._mover = side(text)
        return self._update()

    def status(self, text: str) -> Lights | None:
        """The daemon's ``status`` (online/offline): an offline daemon's board goes dark."""
        if text not in ("online", "offline"):
            raise IndicatorError(f"status: expected online or offline, not {text!r}")
        self._online = text == "online"
        return self._update()

    def event(self, obj: Any) -> Lights | None:
        """One event; one whose ``seq`` is not greater than the last handled is a duplicate
        (docs/mqtt.md) and changes nothing."""
        obj = _mapping(obj, "event")
        seq = obj.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise IndicatorError(f"event: \"seq\" must be an integer, not {seq!r}")
        kind = _text(obj, "type", "event", optional=False)
        if self._seq is not None and seq <= self._seq:
            return None
        handler = getattr(self, "_on_" + str(kind).replace("-", "_"), None)
        if handler is not None:
            handler(obj, f"event {seq} ({kind})")
        self._seq = seq
        lights = self._update()
        if kind == "illegal":
            lights = replace(self._lights, buzz=True)
        return lights

    # -- events ------------------------------------------------------------------------

    def _on_illegal(self, obj: Mapping[str, Any], where: str) -> None:
        cells = obj.get("cells", [])
        if not isinstance(cells, list):
            raise IndicatorError(f"{where}: \"cells\" must be a list, not {type(cells).__name__}")
        names: list[str] = []
        for item in cells:
            if not isinstance(item, Mapping) or not isinstance(item.get("cell"), str):
                raise IndicatorError(f"{where}: every entry of \"cells\" needs \"cell\": a cell name, got {item!r}")
            names.append(item["cell"])
        self._flag_cells = tuple(names)
        self._status = "flagged"

    def _on_restored(self, obj: Mapping[str, Any], where: str) -> None:
        self._back_to_play(obj, where)

    def _on_takeback(self, obj: Mapping[str, Any], where: str) -> None:
        self._back_to_play(obj, where)

    def _on_confirm_withdrawn(self, obj: Mapping[str, Any], where: str) -> None:
        self._back_to_play(obj, where)

    def _on_move(self, obj: Mapping[str, Any], where: str) -> None:
        player = _text(obj, "player", where)
        self._back_to_play(obj, where)
        if side(player) is not None:
            self._mover = 1 - side(player)  # type: ignore[operator]

    def _on_new_game(self, obj: Mapping[str, Any], where: str) -> None:
        self._game = _text(obj, "game", where) or self._game
        self._variant = _text(obj, "variant", where) or self._variant
        self._winner = None
        self._back_to_play(obj, where)

    def _on_confirm_needed(self, obj: Mapping[str, Any], where: str) -> None:
        cands = obj.get("candidates")
        if not isinstance(cands, list) or not all(isinstance(c, str) for c in cands):
            raise IndicatorError(f"{where}: \"candidates\" must be a list of turns in record notation")
        self._candidates = tuple(cands)
        self._candidate_cells = self._footprints(self._candidates)
        self._status = "awaiting-confirmation"

    def _on_game_over(self, obj: Mapping[str, Any], where: str) -> None:
        winner = _text(obj, "winner", where)
        self._winner = side(winner)
        self._status = "finished"
        self._mover = None
        self._flag_cells, self._candidates, self._candidate_cells = (), (), ()

    def _on_sensors_disagree(self, obj: Mapping[str, Any], where: str) -> None:
        self._sensor_cells |= frozenset(self._hollow_list(obj, where))

    def _on_sensors_agree(self, obj: Mapping[str, Any], where: str) -> None:
        self._sensor_cells -= frozenset(self._hollow_list(obj, where))

    @staticmethod
    def _hollow_list(obj: Mapping[str, Any], where: str) -> list[str]:
        hollows = obj.get("hollows")
        if not isinstance(hollows, list) or not all(isinstance(h, str) for h in hollows):
            raise IndicatorError(f"{where}: \"hollows\" must be a list of hollow names")
        return hollows

    def _back_to_play(self, obj: Mapping[str, Any], where: str) -> None:
        position = _text(obj, "position", where)
        if position is not None:
            self._position = position
        self._status = "playing"
        self._flag_cells, self._candidates, self._candidate_cells = (), (), ()

    # -- the plan ----------------------------------------------------------------------

    def _update(self) -> Lights | None:
        new = self._plan()
        if new == self._lights:
            return None
        self._lights = new
        return new

    def _grid(self) -> bool:
        return self._game is not None and self._game not in PYRAMID_GAMES

    def _plan(self) -> Lights:
        hollow_count = 0 if self._grid() else len(BASE)
        if self._status is None or not self._online:
            return Lights((OFF, OFF), OFF, (OFF,) * hollow_count)
        turn = [OFF, OFF]
        hollows = {name: OFF for name in BASE[:hollow_count]}
        illegal = OFF
        status = self._status
        if status == "finished":
            if self._winner is None:
                turn = [Pixel(*FIRST_RGB, SLOW), Pixel(*SECOND_RGB, SLOW)]
            else:
                turn[self._winner] = Pixel(*colour_of(self._winner), SLOW)
                hollows = {name: Pixel(*colour_of(self._winner)) for name in hollows}
        elif self._mover is not None:
            mode = SLOW if status == "awaiting-confirmation" else STEADY
            turn[self._mover] = Pixel(*colour_of(self._mover), mode)
        if self._sensor_cells and status != "flagged":
            # a sensor fault: amber, slowly, on the illegal indicator and the hollows in doubt
            illegal = Pixel(*AMBER, SLOW)
            for name in self._sensor_cells:
                if name in hollows:
                    hollows[name] = Pixel(*AMBER, SLOW)
        if status == "flagged":
            illegal = Pixel(*RED, FAST)
            for cell in self._flag_cells:
                for name in footprint(cell):
                    if name in hollows:
                        hollows[name] = Pixel(*RED, FAST)
        slots: list[set[str]] = []
        if status == "awaiting-confirmation" and self._mover is not None:
            for k, cells in enumerate(self._candidate_cells):
                if k <= MAX_SLOT:
                    slots.append(set())
                shown = {name for name in cells if name in hollows}
                slots[-1] |= shown  # candidates after the 16th share the last slot
                for name in shown:
                    hollows[name] = Pixel(*colour_of(self._mover), IN_TURN)
        return Lights((turn[0], turn[1]), illegal, tuple(hollows.values()), status=status,
                      slots=tuple(frozenset(s) for s in slots))

    def _footprints(self, candidates: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
        """Each candidate's footprint on the base: the hollows under the cells it changes.
        A candidate the rules cannot read (no position yet, another game) has none."""
        rules = self._rules_now()
        if rules is None or self._position is None:
            return ()
        try:
            before = rules.parse_position(self._position)
            cells_before = rules.cells(before)
        except Exception:  # noqa: BLE001 - a position the engine refuses lights nothing
            return ()
        out: list[tuple[str, ...]] = []
        for text in candidates:
            try:
                after = rules.cells(rules.play(before, rules.parse_turn(before, text)))
            except Exception:  # noqa: BLE001 - an unreadable candidate lights nothing
                out.append(())
                continue
            changed = [c for c in after if after[c] != cells_before.get(c)]
            out.append(tuple(dict.fromkeys(h for c in changed for h in footprint(c))))
        return tuple(out)

    def _rules_now(self) -> Any:
        if self._game not in PYRAMID_GAMES:
            return None
        key = (str(self._game), self._variant)
        if key not in self._rules:
            from .games import RulesError, rules_for
            try:
                self._rules[key] = rules_for(key[0], key[1])
            except RulesError:
                self._rules[key] = None
        return self._rules[key]

    def _winner_of_result(self, result: str | None) -> int | None:
        """The winner's side from a state's result: ``1-0`` is the first player of the
        game's rules (black in Sparklies), ``0-1`` the second, anything else a draw."""
        if result not in ("1-0", "0-1"):
            return self._winner if result == "*" else None
        from .games import RulesError, rules_for
        try:
            players = rules_for(self._game or "pylos").players
        except RulesError:
            return None
        return side(players[0 if result == "1-0" else 1])
