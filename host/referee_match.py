"""Matching what the board shows against what the rules allow, for the Referee.

A pyramid turn has few physical states (at most a few hundred in Sparks), so the
:class:`TurnGraph` lists them all once per turn and an observation is compared with each.
Sparklies chains can cycle forever and their pings are partly invisible, so
:func:`sparklies_progress` only checks that a board could be part of a turn; the whole turn
is found by inference when the turn is closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .games import Rules, TurnInProgress
from .games.base import walk_turn
from .games.turn_bounds import steps_bound
from .games import pyramid
from .observation import EMPTY, OCCUPIED, UNKNOWN, Observation, matches

#: words for the pieces in reasons
PIECE_WORDS = {
    "L": "a light ball", "D": "a dark ball", "W": "a white ball", "B": "a black ball", "R": "a spark",
    ".": "nothing", "#": "a ball",
}
#: the letter of each player's own pieces
OWN_LETTER = {"light": "L", "dark": "D", "white": "W", "black": "B"}


@dataclass(frozen=True, slots=True)
class CellDiff:
    cell: str
    expected: str
    seen: str

    def to_json(self) -> dict[str, str]:
        return {"cell": self.cell, "expected": self.expected, "seen": self.seen}


class TurnGraph:
    """Every physical state a pyramid turn can pass through from ``position``."""

    def __init__(self, rules: Rules, position: Any):
        self.rules = rules
        self.position = position
        root = rules.begin_turn(position)
        index: dict[Any, int] = {root.key(): 0}
        self.states: list[TurnInProgress] = [root]
        #: children[k]: the states one step after state k
        self.children: list[list[int]] = [[]]
        todo = [0]
        while todo:
            k = todo.pop()
            for step in self.states[k].next_steps():
                nxt = self.states[k].follow(step)
                key = nxt.key()
                j = index.get(key)
                if j is None:
                    j = index[key] = len(self.states)
                    self.states.append(nxt)
                    self.children.append([])
                    todo.append(j)
                self.children[k].append(j)
        self.cells: list[dict[str, str]] = [s.cells() for s in self.states]
        self.terminal: list[bool] = [not c for c in self.children]
        self.done: list[bool] = [bool(s.complete_turns()) for s in self.states]
        self._after: dict[int, list[tuple[Any, Any]]] = {}

    def ends_game(self, k: int) -> bool:
        """Whether state ``k`` completes a turn that ends the game."""
        return any(self.rules.outcome(after) is not None for _, after in self._turns(k))

    def _turns(self, k: int) -> list[tuple[Any, Any]]:
        """(turn, position after) for the whole turns state ``k`` completes, worked out once
        (the referee asks for them at many boards of the turn)."""
        found = self._after.get(k)
        if found is None:
            found = self._after[k] = [(turn, self.rules.play(self.position, turn))
                                      for turn in self.states[k].complete_turns()]
        return found

    def descendants(self, starts: Iterable[int]) -> list[int]:
        """The given states and every state reachable from them, in index order."""
        seen = set(starts)
        todo = list(seen)
        while todo:
            for j in self.children[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        return sorted(seen)

    def matching(self, seen: Mapping[str, str], among: Iterable[int] | None = None) -> list[int]:
        """Indices of the states consistent with the seen cells (only the cells in ``seen``),
        among the given states or all."""
        items = list(seen.items())
        out = []
        for k in (range(len(self.cells)) if among is None else among):
            cells = self.cells[k]
            for name, value in items:
                actual = cells[name]
                if value != actual and not matches(value, actual):
                    break
            else:
                out.append(k)
        return out

    def closest(self, seen: Mapping[str, str]) -> tuple[int, list[CellDiff]]:
        """The state that differs from the seen cells in the fewest cells (the first such),
        and those cells."""
        items = list(seen.items())
        best, fewest = 0, len(items) + 1
        for k, cells in enumerate(self.cells):
            count = 0
            for name, value in items:
                actual = cells[name]
                if value != actual and not matches(value, actual):
                    count += 1
                    if count >= fewest:
                        break  # no better than the best so far
            else:
                best, fewest = k, count
                if not count:
                    break
        cells = self.cells[best]
        return best, [CellDiff(n, cells[n], v) for n, v in items if not matches(v, cells[n])]

    def complete(self, indices: Iterable[int]) -> list[tuple[Any, Any]]:
        """(turn, position after) for every whole turn the given states complete, one per
        distinct position after."""
        out: dict[Any, Any] = {}
        for k in indices:
            for turn, after in self._turns(k):
                out.setdefault(after, turn)
        return [(turn, after) for after, turn in out.items()]

    def whole_turns(self) -> list[tuple[Any, Any]]:
        """:meth:`complete` for every state that completes a turn: every whole turn from
        the position."""
        return self.complete(k for k, done in enumerate(self.done) if done)


def reaches(rules: Rules, position: Any, seen: Mapping[str, str], max_steps: int | None = None, *,
            whole: bool = False) -> bool:
    """Whether some physical state of the turn from ``position``, at most ``max_steps``
    steps in, shows the seen cells: the question :class:`TurnGraph` answers, but stopping at
    the first match instead of listing every state (it is asked of many positions when a
    turn may have ended unseen, and mostly answered no). ``whole``: only the position itself
    or a state that completes a turn counts (not a ball held in the air).

    The same walk as :func:`reaches_by_walk`, pruned: a state is neither compared nor
    followed when :func:`~host.games.turn_bounds.steps_bound` shows that no state after it
    within the steps left can show the cells. The answer is the same."""
    bound = steps_bound(rules.game, seen, position)
    if bound is None:
        return reaches_by_walk(rules, position, seen, max_steps, whole=whole)
    limit = float("inf") if max_steps is None else max_steps
    root = rules.begin_turn(position)
    need = bound(root)
    if need is None or need > max(limit, 0):
        return False
    if need == 0:
        return True
    # walk_turn's depth-first order; a state's depth is the number of its steps whatever
    # the path, so a pruned state is pruned on every path to it
    done = {root.key()}
    todo = [(root, 0)]
    while todo:
        state, depth = todo.pop()
        if depth >= limit:
            continue
        depth += 1
        for step in state.next_steps():
            nxt = state.follow(step)
            key = nxt.key()
            if key in done:
                continue
            done.add(key)
            need = bound(nxt)
            if need is None or depth + need > limit:
                continue
            if need == 0 and (not whole or nxt.complete_turns()):
                return True
            todo.append((nxt, depth))
    return False


def unseen_turns(rules: Rules, graph: TurnGraph, seen: Mapping[str, str], *,
                 whole: bool = False) -> list[tuple[Any, Any]]:
    """The whole turns from ``graph``'s position after which the board shows the next turn,
    whole or under way (``whole``: not begun, or whole): a turn made while the board was out
    of sight (a hand over it, a place unknown), that the board then shows followed by
    another. (turn, position after), one per position after."""
    return [(turn, after) for turn, after in graph.whole_turns()
            if rules.outcome(after) is None and reaches(rules, after, seen, whole=whole)]


#: the first turns tried, closest to the board first, when two turns may have been made out
#: of sight: each costs a turn graph of the position after it (up to 5 ms in Sparks, whose
#: first turns can number 200)
TWO_UNSEEN_TRIED = 48


def two_unseen_turns(rules: Rules, graph: TurnGraph, seen: Mapping[str, str],
                     tried: int = TWO_UNSEEN_TRIED) -> list[tuple[Any, Any]]:
    """The first of two whole turns from ``graph``'s position after which the board shows
    nothing more or a third, whole (:func:`unseen_turns` from each first turn's position
    after): two turns made while the board was out of sight. (turn, position after) of the
    first, one per position after. Each of the two must leave a trace (:func:`_shows`), and
    a third under way is not looked for: with a ball held in the air, three turns explain
    too many boards (an illegal one made by hand, which hides the board too). The ``tried``
    first turns whose positions after differ from the board in the fewest places are tried,
    in that order, so the answer is the same on any machine."""
    firsts = [(turn, after, rules.cells(after)) for turn, after in graph.whole_turns()
              if rules.outcome(after) is None]
    items = list(seen.items())
    firsts.sort(key=lambda first: sum(1 for name, value in items if not matches(value, first[2][name])))
    before = rules.cells(graph.position)
    out = []
    for turn, after, middle in firsts[:tried]:
        if not _shows(before, middle, seen):
            continue
        seconds = unseen_turns(rules, TurnGraph(rules, after), seen, whole=True)
        if any(_shows(middle, rules.cells(after2), seen) for _, after2 in seconds):
            out.append((turn, after))
    return out


def _shows(before: Mapping[str, str], after: Mapping[str, str], seen: Mapping[str, str]) -> bool:
    """Whether the board shows a trace of a turn made out of sight: some place it changed
    is seen as it left it, and none otherwise. A turn that left nothing, or whose trace a
    later one undid (a Pylos ball put, then taken back with a square), explains too much: an
    illegal board made by hand would pass for three turns."""
    changed = [(name, value) for name, value in after.items() if value != before[name]]
    return (any(name in seen for name, _ in changed)
            and all(name not in seen or matches(seen[name], value) for name, value in changed))


def reaches_by_walk(rules: Rules, position: Any, seen: Mapping[str, str], max_steps: int | None = None, *,
                    whole: bool = False) -> bool:
    """:func:`reaches` by comparing every state of the walk (the reference it is tested
    against, and the answer for games without a bound)."""
    items = list(seen.items())
    for state, depth in walk_turn(rules.begin_turn(position), max_steps):
        if whole and depth and not state.complete_turns():
            continue
        cells = state.cells()
        if all(v == cells[n] or matches(v, cells[n]) for n, v in items):
            return True
    return False


def pyramid_excused(seen: Mapping[str, str], name: str) -> bool:
    """An unknown pyramid cell is no occlusion when a ball rests on it (seen, or itself
    hidden under a ball further up): a camera above the board cannot see it."""
    i = pyramid.BY_NAME[name]
    for j in pyramid.bits(pyramid.ABOVE[i]):
        above = pyramid.NAMES[j]
        v = seen.get(above, UNKNOWN)
        if v not in (EMPTY, UNKNOWN) or (v == UNKNOWN and pyramid_excused(seen, above)):
            return True
    return False


def occluded_cells(rules: Rules, obs: Observation, coverage: frozenset[str]) -> list[str]:
    """Covered cells that are unknown for no good reason: a hand, glare, a misread."""
    out = []
    for name in sorted(coverage):
        value = obs.cells.get(name, UNKNOWN * (2 if rules.game == "sparklies" else 1))
        if UNKNOWN in value and not (rules.game != "sparklies" and pyramid_excused(obs.cells, name)):
            out.append(name)
    return out


def seen_cells(rules: Rules, obs: Observation, coverage: frozenset[str]) -> dict[str, str]:
    """The covered cells with their seen contents (unknown ones left out)."""
    out = {}
    for name in sorted(coverage):  # a fixed order: events name cells the same way every run
        value = obs.cells.get(name)
        if value is not None and value != UNKNOWN and value != "??":
            out[name] = value
    return out


def describe_diff(rules: Rules, position: Any, diffs: list[CellDiff]) -> str:
    """A short human reason for an illegal board, from the cells that differ from the
    closest legal state, e.g. ``1b2: a dark ball cannot be placed, it is Light's turn``."""
    mover = rules.to_move(position)
    parts = []
    for d in diffs[:3]:
        parts.append(f"{d.cell}: " + _phrase(rules, mover, d))
    more = f" (and {len(diffs) - 3} more)" if len(diffs) > 3 else ""
    return "; ".join(parts) + more


def _phrase(rules: Rules, mover: str, d: CellDiff) -> str:
    if rules.game == "sparklies":
        return _sparklies_phrase(mover, d)
    title = mover.capitalize()
    own = OWN_LETTER[mover]
    if d.expected == EMPTY and d.seen not in (EMPTY, OCCUPIED):
        if d.seen != own and d.seen != "R":
            return f"{PIECE_WORDS[d.seen]} cannot be placed, it is {title}'s turn"
        supports = pyramid.SUPPORTS[pyramid.BY_NAME[d.cell]]
        if supports:
            return f"{PIECE_WORDS[d.seen]} cannot be placed there now (it must rest on four balls)"
        return f"{PIECE_WORDS[d.seen]} cannot be placed there now"
    if d.expected == EMPTY:
        return "a ball appeared where none can be now"
    if d.seen == EMPTY:
        return f"{PIECE_WORDS[d.expected]} was taken away, which the rules do not allow now"
    return f"expected {PIECE_WORDS[d.expected]}, saw {PIECE_WORDS.get(d.seen, d.seen)}"


_COLOUR = {"R": "red", "G": "green", "B": "blue"}
_OWNER = {".": "uncontrolled", "b": "Black's", "w": "White's"}


def _sparklies_phrase(mover: str, d: CellDiff) -> str:
    exp, seen = d.expected, d.seen
    if exp[1] != seen[1] and seen[1] != UNKNOWN:
        return f"the square became {_OWNER[seen[1]]}, which this turn cannot explain (it is {mover.capitalize()}'s turn)"
    if exp[0] != seen[0] and seen[0] != UNKNOWN:
        return f"the tile changed from {_COLOUR[exp[0]]} to {_COLOUR[seen[0]]}, which this turn cannot explain"
    return f"expected {exp}, saw {seen}"


def sparklies_board(rules: Rules, position: Any, obs: Observation, mover_letter: str) -> tuple[dict[str, str], list[CellDiff]]:
    """The cells of a Sparklies board as seen, and the changes no part of a turn explains:
    a marker taken away, a mover's square given to the opponent, or more than one square
    newly controlled by the opponent (one is allowed: the opponent's first step of the next
    turn, which closes this one)."""
    before = rules.cells(position)
    cells = {n: obs.cells.get(n, before[n]) for n in before}
    bad: list[CellDiff] = []
    other = "w" if mover_letter == "b" else "b"
    newly_other = []
    for name, was in before.items():
        now = cells[name]
        if now == was:
            continue
        if (was[1] == mover_letter and now[1] != mover_letter) or (was[1] != "." and now[1] == "."):
            bad.append(CellDiff(name, was, now))  # markers are never taken away, nor the mover's lost
        elif now[1] == other and was[1] != other:
            if was[1] == ".":
                newly_other.append(CellDiff(name, was, now))
            else:
                bad.append(CellDiff(name, was, now))
    if len(newly_other) > 1:
        bad.extend(newly_other)
    return cells, bad
