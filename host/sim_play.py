"""The simulator's players: which turn they play, and the boards a turn shows on the way.

A turn is played as its physical steps (``Rules.steps``), applied one by one to the turn in
progress; each step that changes what lies on the board gives a new board, except the
moment a Sparks ball hangs over a lifted coal (gravity drops it at once, no camera sees
that). Random players draw turns with ``Rules.random_turn`` and redraw the few a watcher
of the board could not tell apart: a pyramid turn that leaves the board looking unchanged,
a final turn that looks complete, game over included, before its last step, and a
Sparklies turn that still changes the board after every square shows a marker.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .games import IllegalTurn, Rules, RulesError, TurnInProgress
from .sim_render import PYRAMID_GAMES, SensorView, SimError, supported

#: random draws before falling back to searching for an acceptable turn
DRAWS = 24


@dataclass(frozen=True, slots=True)
class Board:
    """One board a turn shows, with the turn in progress that shows it."""

    cells: Mapping[str, str]
    state: TurnInProgress
    steps: int  # steps made so far


def turn_boards(rules: Rules, position: Any, turn: Any) -> list[Board]:
    """The boards ``turn`` shows from ``position``, one per visible change, the last one
    the position after it."""
    state = rules.begin_turn(position)
    last = rules.cells(position)
    out = []
    check = rules.game in PYRAMID_GAMES
    for count, step in enumerate(rules.steps(position, turn), start=1):
        state = state.apply(step)
        cells = state.cells()
        if cells != last and (not check or supported(cells)):
            out.append(Board(cells, state, count))
            last = cells
    if not out:
        out.append(Board(last, state, count))  # nothing visible at all
    elif out[-1].steps != count:
        out[-1] = Board(out[-1].cells, state, count)  # invisible last steps: the same board
    return out


def looks_right(rules: Rules, view: SensorView, position: Any, turn: Any) -> bool:
    """Whether a watcher of the board could follow ``turn`` (see the module text)."""
    boards = turn_boards(rules, position, turn)
    if rules.game == "sparklies":
        for k, board in enumerate(boards):
            if all(v[1] != "." for v in board.cells.values()):
                return all(b.cells == board.cells for b in boards[k:])
        return True
    if view.camera and view(boards[-1].cells) == view(rules.cells(position)):
        return False
    state = rules.begin_turn(position)
    steps = rules.steps(position, turn)
    for step in steps[:-1]:
        state = state.apply(step)
        for done in state.complete_turns():
            if rules.outcome(rules.play(position, done)) is not None:
                return False
    return True


def _sparklies_quiet_turns(rules: Rules, position: Any) -> list[Any]:
    """Sparklies turns that take a square and ping one square without changing it or
    capturing anything: the last turn of a game that must end as soon as it looks over."""
    from .games.sparklies import SparkliesTurn
    from .games.sparklies_geometry import bits
    board = rules.board  # type: ignore[attr-defined]
    me = position.to_move
    free = board.live & ~(position.black | position.white)
    out = []
    for x in bits(free):
        mine = position.controlled(me) | 1 << x
        for s in bits(mine):
            colour = "R" if position.red >> s & 1 else "G" if position.green >> s & 1 else "B"
            turn = SparkliesTurn(x, ((s, colour),))
            try:
                rules.play(position, turn)
            except IllegalTurn:
                continue
            out.append(turn)
    return out


class RandomPlayer:
    """Uniform over the legal turns a watcher can follow (``Rules.random_turn``, redrawn)."""

    def __init__(self, rules: Rules, view: SensorView, max_pings: int):
        self.rules, self.view, self.max_pings = rules, view, max_pings

    def _draw(self, position: Any, rng: random.Random) -> Any:
        if self.rules.game == "sparklies":
            return self.rules.random_turn(position, rng, max_pings=self.max_pings)  # type: ignore[call-arg]
        return self.rules.random_turn(position, rng)

    def turn(self, position: Any, rng: random.Random, number: int, *, avoid: str | None = None) -> Any:
        """A turn for ``position`` (``number`` is its 1-based place in the game); ``avoid``:
        a turn text to play differently from when possible (the one just taken back)."""
        rules = self.rules
        turn = None
        for _ in range(DRAWS):
            turn = self._draw(position, rng)
            if looks_right(rules, self.view, position, turn) and (
                    avoid is None or rules.format_turn(turn) != avoid):
                return turn
        if rules.game == "sparklies":
            pool = _sparklies_quiet_turns(rules, position)
        else:
            pool = list(rules.legal_turns(position))
        fits = [t for t in pool if looks_right(rules, self.view, position, t)]
        different = [t for t in fits if rules.format_turn(t) != avoid]
        if different or fits:
            return rng.choice(different or fits)
        return turn


class ScriptedPlayer:
    """Plays the turns of a script in order (turn texts in record notation)."""

    def __init__(self, rules: Rules, script: Sequence[str]):
        self.rules = rules
        self.script = tuple(script)

    def turn(self, position: Any, rng: random.Random, number: int, *, avoid: str | None = None) -> Any:
        """The script's turn ``number`` (1-based), or None when the script has ended."""
        if number > len(self.script):
            return None
        text = self.script[number - 1]
        try:
            return self.rules.parse_turn(position, text)
        except RulesError as exc:
            raise SimError(f"script turn {number} {text!r}: {exc}") from None
