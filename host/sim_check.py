"""Which boards a referee could explain, so the simulator's injected mistakes are real ones.

An illegal move the simulator puts on the board must be one that no legal continuation
explains, or the referee would rightly accept it; a takeback must show a board that no
forward continuation explains, or the referee would rightly take it for progress. The
referee follows a pyramid turn through its physical states and closes a finished turn with
the next player's first steps, so :func:`explained` searches exactly that: every state of
the turns from the given roots, and every state of the turn after each complete one.
Sparklies chains are endless and partly invisible, so only changes that no Sparklies turn
ever makes (a marker taken off, the wrong player's marker first) are injected there.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Mapping

from .games import Rules, TurnInProgress
from .games.base import walk_turn
from .games import pyramid
from .observation import EMPTY, OCCUPIED, UNKNOWN
from .sim_render import BASE_NAMES, SensorView


def _cones() -> tuple[int, ...]:
    """For each position, the positions above it, directly or not."""
    out = []
    for i in range(pyramid.COUNT):
        cone, todo = 0, pyramid.ABOVE[i]
        while todo:
            cone |= todo
            nxt = 0
            for j in pyramid.bits(todo):
                nxt |= pyramid.ABOVE[j]
            todo = nxt & ~cone
        out.append(cone)
    return tuple(out)


#: the positions above each pyramid position, directly or not (where balls drop from)
CONE: tuple[int, ...] = _cones()
#: the letter of each player's own balls
OWN = {"light": "L", "dark": "D", "white": "W", "black": "B"}


def turn_states(rules: Rules, root: TurnInProgress) -> list[TurnInProgress]:
    """``root`` and every state reachable from it by legal steps (equal states merged)."""
    return [state for state, _ in walk_turn(root)]


def _flat(cells: Mapping[str, str]) -> str:
    """A pyramid board as one string in position order (compact and quick to compare)."""
    return "".join([cells[n] for n in pyramid.NAMES])


class TurnIndex:
    """The boards every pyramid turn can show, per position it starts from, kept for the
    positions of one game (a bounded cache: searches revisit the same turns)."""

    def __init__(self, rules: Rules, limit: int = 2048):
        self.rules = rules
        self.limit = limit
        self._turns: dict[Any, tuple[frozenset[str], tuple[tuple[str, Any], ...]]] = {}

    def turn(self, position: Any) -> tuple[frozenset[str], tuple[tuple[str, Any], ...]]:
        """(every board of the turn from ``position``, (board, position after) of every way
        to complete it)."""
        found = self._turns.get(position)
        if found is None:
            found = self.states(self.rules.begin_turn(position), position)
            if len(self._turns) >= self.limit:
                self._turns.clear()
            self._turns[position] = found
        return found

    def states(self, root: TurnInProgress, position: Any) -> tuple[frozenset[str], tuple[tuple[str, Any], ...]]:
        boards: set[str] = set()
        completions: dict[tuple[str, Any], None] = {}
        for state in turn_states(self.rules, root):
            board = _flat(state.cells())
            boards.add(board)
            for turn in state.complete_turns():
                completions[(board, self.rules.play(position, turn))] = None
        return frozenset(boards), tuple(completions)


def _fits(known: list[tuple[int, str]], board: str) -> bool:
    for i, value in known:
        actual = board[i]
        if value != actual and not (value == OCCUPIED and actual != EMPTY):
            return False
    return True


def _next_turn_may_show(game: str, known: list[tuple[int, str]], board: str, mover: str) -> bool:
    """A quick necessary condition: whether the next player's turn from ``board`` could
    change it into something ``known`` fits. Pylos: only balls of the mover put on empty
    places or taken off; Sparks: the cells of one coal of the mover and those above it,
    and sparks or the coal put on empty places."""
    own = OWN[mover]
    if game == "pylos":
        for i, value in known:
            actual = board[i]
            if value == actual or (value == OCCUPIED and actual != EMPTY):
                continue
            if actual == EMPTY and value in (own, OCCUPIED) or actual == own and value == EMPTY:
                continue
            return False
        return True
    region = 0  # cells that must lie on the lifted coal or above it
    for i, value in known:
        actual = board[i]
        if value == actual or (value == OCCUPIED and actual != EMPTY):
            continue
        if actual == EMPTY and value in ("R", own, OCCUPIED):
            continue
        region |= 1 << i
    if not region:
        return True
    for x, letter in enumerate(board):
        if letter == own and region & ~((1 << x) | CONE[x]) == 0:
            return True
    return False


def explained(index: TurnIndex, seen: Mapping[str, str], positions: Iterable[Any] = (),
              states: Iterable[tuple[TurnInProgress, Any]] = ()) -> bool:
    """Whether a sensor reading ``seen`` fits a board a referee could reach: any state of
    the whole turns from ``positions`` or of the turns in progress ``states`` ((state,
    position the turn started from) pairs), or, after any way to complete one of those turns
    that does not end the game, any state of the next player's turn."""
    rules = index.rules
    known = [(pyramid.BY_NAME[n], v) for n, v in seen.items() if v != UNKNOWN]
    sources = [index.turn(p) for p in positions] + [index.states(s, p) for s, p in states]
    for boards, _ in sources:
        if any(_fits(known, b) for b in boards):
            return True
    for _, completions in sources:
        for board, after in completions:
            if rules.outcome(after) is not None:
                continue
            if not _next_turn_may_show(rules.game, known, board, rules.to_move(after)):
                continue
            if any(_fits(known, b) for b in index.turn(after)[0]):
                return True
    return False


def forward_states(rules: Rules, position: Any, board: Mapping[str, str]) -> list[tuple[TurnInProgress, Any]]:
    """The states of the turn from ``position`` that show ``board``: where a referee that
    followed the turn can be now."""
    return [(s, position) for s in turn_states(rules, rules.begin_turn(position)) if s.cells() == board]


# -- illegal boards ---------------------------------------------------------------------------


def _occupied(board: Mapping[str, str]) -> int:
    return sum(1 << pyramid.BY_NAME[n] for n, v in board.items() if v != EMPTY)


def pyramid_candidates(rules: Rules, board: Mapping[str, str], mover_letter: str,
                       occupancy: bool, rng: random.Random) -> list[tuple[str, dict[str, str]]]:
    """Physically possible wrong changes of a pyramid board, in random order: a ball put on
    a free supported place (a Pylos ball of either colour, a Sparks spark, or the Sparks
    coal in hand), a ball with nothing on it taken away, such a ball swapped for another
    colour. For reed switches, two or three base balls put or taken at once."""
    occ = _occupied(board)
    free = [pyramid.NAMES[i] for i in pyramid.bits(pyramid.free_spots(occ))]
    loose = [pyramid.NAMES[i] for i in pyramid.bits(occ) if not pyramid.ABOVE[i] & occ]
    out: list[tuple[str, dict[str, str]]] = []
    if occupancy:
        free_base = [n for n in free if n in BASE_NAMES]
        loose_base = [n for n in loose if n in BASE_NAMES]
        for count in (2, 3):
            for _ in range(6):
                if len(free_base) >= count:
                    out.append(("balls-added", {**board, **{n: mover_letter for n in rng.sample(free_base, count)}}))
                if len(loose_base) >= count:
                    out.append(("balls-removed", {**board, **{n: EMPTY for n in rng.sample(loose_base, count)}}))
        rng.shuffle(out)
        return out
    if rules.game == "pylos":
        letters = "LD"
    else:  # Sparks: sparks come from the supply; a coal only while one is in the hand
        letters = "R" + (mover_letter if list(board.values()).count(mover_letter) < 8 else "")
    for name in free:
        for letter in letters:
            kind = "wrong-colour" if rules.game == "pylos" and letter != mover_letter else "ball-added"
            out.append((kind, {**board, name: letter}))
    for name in loose:
        out.append(("ball-removed", {**board, name: EMPTY}))
        for letter in ("LD" if rules.game == "pylos" else "WBR"):
            if letter != board[name]:
                out.append(("ball-swapped", {**board, name: letter}))
    rng.shuffle(out)
    return out


def sparklies_candidates(board: Mapping[str, str], before: Mapping[str, str], marker: str,
                         rng: random.Random) -> list[tuple[str, dict[str, str]]]:
    """Changes no Sparklies turn makes: the marker of ``marker`` (b or w: the player whose
    turn the referee is following, from the board ``before`` that turn) taken off a square
    it had before that turn (taking off a marker laid in the turn would only undo it); on an
    uncontrolled board, the second player's marker put down first."""
    out: list[tuple[str, dict[str, str]]] = []
    own = [n for n, v in board.items() if v[1] == marker and before[n][1] == marker]
    for name in rng.sample(own, min(3, len(own))):
        out.append(("marker-removed", {**board, name: board[name][0] + "."}))
    if all(v[1] == "." for v in board.values()):
        name = rng.choice(sorted(board))
        out.append(("wrong-marker", {**board, name: board[name][0] + "w"}))
    rng.shuffle(out)
    return out


def pick_illegal(view: SensorView, candidates: list[tuple[str, dict[str, str]]],
                 legal: Mapping[str, str], unexplained: Callable[[dict[str, str]], bool],
                 tries: int = 16) -> tuple[str, dict[str, str]] | None:
    """The first candidate the sensor can tell from ``legal`` and that ``unexplained``
    accepts (it is passed the sensor reading)."""
    legal_seen = view(legal)
    for kind, board in candidates[:tries]:
        seen = view(board)
        if seen == legal_seen:
            continue
        if unexplained(seen):
            return kind, board
    return None
