"""Sparklies turn inference: which turn leads from one position to the next?

Chains can cycle (quadrilles) and pings that keep a square's colour are invisible, so turns
are not enumerable. Instead the search runs over chain states (colours, the mover's squares,
the active squares), memoised so that cycles terminate, with pruning from what the
after-position tells:

- static checks first: squares taken from the mover, gained by the opponent, recoloured but
  not the mover's afterwards, captured squares without enough neighbours, changes that no
  connected chain links: no search at all;
- a ping may never capture a square the mover does not control afterwards;
- every square that must still be pinged (wrong colour, not yet captured; in speed also
  every active square, whose forced colour may be wrong) must be able to get there: a square
  is pinged only when active or captured later, a capture needs a pingable neighbour and two
  neighbours that can have the attacking colour. This grows, from the active squares, the set
  of squares that can still be pinged (and, in speed, to which colours); it over-estimates, so
  pruning on it is safe.

Two complete strategies run interleaved in time slices, since their hard cases differ:
a greedy best-first search (fewest squares still wrong, fewest active squares, nearest) and
an iterative deepening on the number of intermediate colours (pings with a colour the
after-position does not show). The first that finds a turn, or proves that none exists,
answers. A wall-clock budget bounds the whole (``undecided`` when it runs out).
"""

from __future__ import annotations

import heapq
from time import perf_counter
from typing import TYPE_CHECKING, Generator, Optional

from .base import Inference
from .sparklies_geometry import ATTACKER, COLOURS, Board, bits

if TYPE_CHECKING:
    from .sparklies import SparkliesPosition, SparkliesRules

#: states between two yields of a strategy, and seconds per time slice
_YIELD_EVERY = 16
_SLICE = 0.002
#: weight of an intermediate colour in the best-first priority (subtle)
_INTERMEDIATE_WEIGHT = 1

Pings = list[tuple[int, int]]
Result = Optional[tuple[Optional[int], Pings]]
Child = tuple[int, int, int, int, int, tuple[int, int, int], int, int]


class _Undecided(Exception):
    pass


class _Problem:
    """The fixed data of one inference and what both strategies share (statistics, the closest
    partial explanation). ``gained``: squares the mover controls afterwards but not before; the
    control square among them is in every state's ``mine`` from the start."""

    def __init__(self, board: Board, before: "SparkliesPosition", after: "SparkliesPosition",
                 gained: int, changed: int):
        self.board = board
        self.speed = board.speed
        self.before = before
        me = before.to_move
        self.mine_before = before.controlled(me)
        self.final = after.colours
        self.mine_after = after.controlled(me)
        self.gained = gained
        self.changed = changed
        self.explored = 0
        self.best_key = (1 << 30, 0, 0)
        self.best_miss = changed

    def miss(self, cols: tuple[int, int, int], mine: int) -> int:
        """Squares still wrong: colour differs from the after-position, or not yet captured."""
        fr, fg, _ = self.final
        return (cols[0] ^ fr) | (cols[1] ^ fg) | (self.gained & ~mine)

    def note(self, miss: int) -> None:
        """Remember the closest partial explanation: fewest changed squares still wrong, then
        fewest squares; between equals the lowest squares, so that the answer does not hang
        on which of the interleaved searches (time slices) met one first."""
        key = ((miss & self.changed).bit_count(), miss.bit_count(), miss)
        if key < self.best_key:
            self.best_key, self.best_miss = key, miss

    # -- pruning -----------------------------------------------------------------
    def reach_layers(self, cols: tuple[int, int, int], mine: int, active: int,
                     need: int) -> int | None:
        """Subtle: None when some square of ``need`` can never be pinged again, else the sum of
        the capture layers (from the active squares outwards) at which they can be (0 when all
        are active): a rough distance to the goal. A square can be captured when it is next to
        a square that can be pinged and has two neighbours that can have the attacking colour
        and be the mover's (already the mover's with that colour, or pingable)."""
        need &= ~active
        if not need:
            return 0
        if not active:
            return None
        reach = active
        total = layer = 0
        while True:
            grown = self.grow(cols, mine, reach)
            if not grown:
                return None
            layer += 1
            total += layer * (grown & need).bit_count()
            reach |= grown
            if not need & ~reach:
                return total

    def grow(self, cols: tuple[int, int, int], mine: int, reach: int) -> int:
        """The squares next to ``reach`` that a chain from ``reach`` could capture at once
        (subtle): a square of the attacked colour, kept by the mover at the end, with two
        attackers among the mover's squares or the squares already reached."""
        board = self.board
        two = board.at_least_two
        r, g, b = cols
        front = board.dilate(reach) & self.mine_after & ~reach
        return ((r & front & two((b & mine) | reach))
                | (g & front & two((r & mine) | reach))
                | (b & front & two((g & mine) | reach)))

    def intermediate_bound(self, cols: tuple[int, int, int], mine: int, active: int,
                           need: int) -> int:
        """Subtle: a lower bound on the intermediate colours still needed. A square that must
        be captured again needs a neighbour pinged with the attacking colour and a second
        attacker; when no neighbour that can be pinged has that colour as its final colour, or
        no second neighbour has or finally gets it, an intermediate colour next to it is
        unavoidable. Squares with disjoint neighbourhoods need distinct pings."""
        need &= ~active
        if not need:
            return 0
        reach = active
        while True:
            grown = self.grow(cols, mine, reach)
            if not grown:
                break
            reach |= grown
        dilate, two = self.board.dilate, self.board.at_least_two
        final = self.final
        hard = 0
        for v in range(3):
            a = ATTACKER[v]
            cheap_pinger = reach & final[a]
            cheap = (cols[a] & (mine | reach)) | cheap_pinger
            hard |= need & cols[v] & ~(dilate(cheap_pinger) & two(cheap))
        count = 0
        blocked = 0
        while hard:
            low = hard & -hard
            hard ^= low
            if low & blocked:
                continue
            count += 1
            blocked |= dilate(dilate(low))
        return count

    def speed_alive(self, cols: tuple[int, int, int], active: int, need: int) -> bool:
        """Speed: a pinged square takes the colour that attacks its colour (R->B->G->R), so
        what a square can become is limited. p[k]: squares that may at some time be pinged to
        colour k; h[k]: squares that may at some time have colour k. Every square still to be
        pinged (active, wrong colour, not yet captured) must be able to be pinged to its final
        colour, its last ping."""
        board = self.board
        dilate, two = board.dilate, board.at_least_two
        within = self.mine_after
        final = self.final
        r, g, b = cols
        p0, p1, p2 = active & g, active & b, active & r
        h0, h1, h2 = r | p0, g | p1, b | p2
        while True:
            new0 = within & h1 & two(h0) & dilate(p0) & ~p0  # green captured by red
            new1 = within & h2 & two(h1) & dilate(p1) & ~p1  # blue captured by green
            new2 = within & h0 & two(h2) & dilate(p2) & ~p2  # red captured by blue
            if not (new0 | new1 | new2):
                break
            p0, p1, p2 = p0 | new0, p1 | new1, p2 | new2
            h0, h1, h2 = h0 | new0, h1 | new1, h2 | new2
        must = need | active
        return not ((must & final[0] & ~p0) | (must & final[1] & ~p1) | (must & final[2] & ~p2))

    def alive(self, cols: tuple[int, int, int], mine: int, active: int, miss: int) -> bool:
        if self.speed:
            return self.speed_alive(cols, active, miss & ~active)
        return self.reach_layers(cols, mine, active, miss) is not None

    # -- moves -------------------------------------------------------------------
    def sources(self, cols: tuple[int, int, int], active: int) -> list[tuple[int, tuple[int, ...]]]:
        """(active square, allowed colours): any colour in subtle, the forced one in speed."""
        if not self.speed:
            return [(a, (0, 1, 2)) for a in bits(active)]
        out = []
        for a in bits(active):
            bit = 1 << a
            out.append((a, (ATTACKER[0 if cols[0] & bit else 1 if cols[1] & bit else 2],)))
        return out

    def children(self, cols: tuple[int, int, int], mine: int, active: int,
                 sources: list[tuple[int, tuple[int, ...]]], first: bool) -> list[Child]:
        """The pings allowed from a state, best first, as (cost, -progress, extra, s, c, cols,
        mine, active). cost 1: an intermediate colour chosen (not the final one; a forced colour
        in speed costs nothing). progress: squares still to be pinged that the ping captures;
        extra: other squares it activates. Pings capturing a square the mover does not control
        afterwards are left out."""
        captures = self.board.captures
        allowed = self.mine_after
        final = self.final
        need = self.miss(cols, mine) & ~active
        free_choice = first or not self.speed
        out = []
        for s, colours in sources:
            bit = 1 << s
            old = 0 if cols[0] & bit else 1 if cols[1] & bit else 2
            f = 0 if final[0] & bit else 1 if final[1] & bit else 2
            rest = active & ~bit
            for c in colours:
                if c == old:
                    new_cols = cols
                else:
                    lst = [cols[0], cols[1], cols[2]]
                    lst[old] &= ~bit
                    lst[c] |= bit
                    new_cols = (lst[0], lst[1], lst[2])
                cap = captures(new_cols, mine, s, c)
                if cap & ~allowed:
                    continue
                cost = 1 if c != f and free_choice else 0
                out.append((cost, -(cap & need).bit_count(), (cap & ~rest & ~need).bit_count(),
                            s, c, new_cols, mine | cap, rest | cap))
        out.sort(key=lambda m: m[:3])
        return out

    def roots(self, candidates: list[tuple[int | None, int]]) -> list[tuple[int | None, Child]]:
        """The activation pings (free colour) of every candidate control square."""
        out = []
        for control, starts in candidates:
            mine0 = self.mine_before | (0 if control is None else 1 << control)
            cols0 = self.before.colours
            self.note(self.miss(cols0, mine0))
            for child in self.children(cols0, mine0, 0, [(a, (0, 1, 2)) for a in bits(starts & mine0)], True):
                out.append((control, child))
        return out

    def is_goal(self, cols: tuple[int, int, int], mine: int) -> bool:
        return cols == self.final and mine == self.mine_after


def _best_first(problem: _Problem, candidates: list[tuple[int | None, int]]
                ) -> Generator[None, None, Result]:
    """Greedy best-first search. Priority (subtle): squares still wrong and not active +
    active squares + capture-layer distance + intermediate colours so far; (speed): twice the
    squares still wrong and not active + the pings still needed (a square's forced colours
    cycle, so 1 to 3 per square). Complete: returns None only when every state is explored."""
    speed = problem.speed
    final = problem.final
    miss_of = problem.miss
    weight = _INTERMEDIATE_WEIGHT

    def priority(cols: tuple[int, int, int], mine: int, active: int, g: int) -> int | None:
        miss = miss_of(cols, mine)
        need = miss & ~active
        if speed:
            if not problem.speed_alive(cols, active, need):
                return None
            f0, f1, f2 = final
            one = (cols[0] & f2) | (cols[1] & f0) | (cols[2] & f1)   # one forced ping away
            two = (cols[0] & f1) | (cols[1] & f2) | (cols[2] & f0)   # two pings away
            todo = active | miss
            three = (active | (problem.gained & ~mine)) & ~one & ~two  # right colour, must cycle
            return (2 * need.bit_count() + (one & todo).bit_count() + 2 * (two & todo).bit_count()
                    + 3 * three.bit_count())
        layers = problem.reach_layers(cols, mine, active, miss)
        if layers is None:
            return None
        return need.bit_count() + active.bit_count() + layers + weight * g

    heap: list = []
    parent: dict[tuple[int, int, int, int], tuple] = {}
    counter = 0
    for control, (cost, _, _, s, c, cols, mine, active) in problem.roots(candidates):
        key = (cols[0], cols[1], mine, active)
        if key in parent:
            continue
        parent[key] = (None, s, c, control)
        pr = priority(cols, mine, active, cost)
        if pr is not None or not active:
            counter += 1
            heapq.heappush(heap, (pr or 0, -1, counter, key, cols, mine, active, cost))
    done: set[tuple[int, int, int, int]] = set()
    while heap:
        _, negdepth, _, key, cols, mine, active, g = heapq.heappop(heap)
        if key in done:
            continue
        done.add(key)
        problem.explored += 1
        if not problem.explored % _YIELD_EVERY:
            yield
        miss = miss_of(cols, mine)
        problem.note(miss)
        if not active:
            if problem.is_goal(cols, mine):
                pings = []
                k = key
                while True:
                    k, s, c, control = parent[k]
                    pings.append((s, c))
                    if k is None:
                        return control, pings[::-1]
            continue
        for cost, _, _, s, c, cols2, mine2, active2 in problem.children(
                cols, mine, active, problem.sources(cols, active), False):
            key2 = (cols2[0], cols2[1], mine2, active2)
            if key2 in parent:
                continue
            parent[key2] = (key, s, c, None)
            pr = priority(cols2, mine2, active2, g + cost) if active2 else 0
            if pr is not None:
                counter += 1
                heapq.heappush(heap, (pr, negdepth - 1, counter, key2, cols2, mine2, active2, g + cost))
    return None


def _deepening(problem: _Problem, candidates: list[tuple[int | None, int]]
               ) -> Generator[None, None, Result]:
    """Depth-first search allowing at most ``budget`` intermediate colours, for budget 0, 1,
    2... Children are tried best first (final colour, then most progress). A state is skipped
    when already seen with at least as much budget left. Complete: returns None when an
    iteration ran without the budget cutting anything."""
    roots = problem.roots(candidates)
    budget = 0
    while True:
        cut = False
        seen: dict[tuple[int, int, int, int], int] = {}
        for control, root in roots:
            frames: list[list] = [[[root], 0, budget]]
            path: Pings = []
            while frames:
                frame = frames[-1]
                moves = frame[0]
                if frame[1] >= len(moves):
                    frames.pop()
                    if path:
                        path.pop()
                    continue
                cost, _, _, s, c, cols, mine, active = moves[frame[1]]
                frame[1] += 1
                left = frame[2] - cost
                if left < 0:
                    cut = True
                    continue
                key = (cols[0], cols[1], mine, active)
                if seen.get(key, -1) >= left:
                    continue
                seen[key] = left
                problem.explored += 1
                if not problem.explored % _YIELD_EVERY:
                    yield
                miss = problem.miss(cols, mine)
                problem.note(miss)
                if not active:
                    if problem.is_goal(cols, mine):
                        return control, path + [(s, c)]
                    continue
                if not problem.alive(cols, mine, active, miss):
                    continue
                if not problem.speed and problem.intermediate_bound(cols, mine, active, miss) > left:
                    cut = True
                    continue
                children = problem.children(cols, mine, active, problem.sources(cols, active), False)
                if children:
                    path.append((s, c))
                    frames.append([children, 0, left])
        if not cut:
            return None
        budget += 1


def _schedule(strategies: list[Generator[None, None, Result]], deadline: float) -> Result:
    """Runs the strategies in turn, a time slice each, until one answers (a turn, or None
    when its search is exhausted: no turn exists). Raises _Undecided at the deadline."""
    while True:
        for gen in strategies:
            now = perf_counter()
            if now >= deadline:
                raise _Undecided
            slice_end = min(now + _SLICE, deadline)
            try:
                while True:
                    next(gen)
                    if perf_counter() >= slice_end:
                        break
            except StopIteration as stop:
                return stop.value


def infer_turn(rules: "SparkliesRules", before: "SparkliesPosition", after: "SparkliesPosition",
               budget_ms: float) -> Inference:
    """See :meth:`SparkliesRules.infer`."""
    from .sparklies import PLAYERS, SparkliesTurn

    start_time = perf_counter()
    deadline = start_time + budget_ms / 1000.0
    board = rules.board
    names_of = board.names_of
    me = before.to_move
    player, other = PLAYERS[me], PLAYERS[1 - me]
    if after.to_move == me:
        return Inference("none", reason=f"{player} is still to move afterwards: a turn hands the "
                         f"move to {other}")
    mine_b, theirs_b = before.controlled(me), before.controlled(1 - me)
    mine_a, theirs_a = after.controlled(me), after.controlled(1 - me)
    recoloured = ((before.red ^ after.red) | (before.green ^ after.green)
                  | (before.blue ^ after.blue)) & board.live
    # static culprits: what no turn of the mover can do
    reasons = []
    bad = 0
    for mask, why in (
        (mine_b & ~mine_a, f"taken from {player} (a turn never loses the mover a square)"),
        (theirs_a & ~theirs_b, f"newly controlled by {other}, who is not moving"),
        (theirs_b & ~theirs_a & ~mine_a, "no longer controlled by anybody"),
        (recoloured & ~mine_a & ~(theirs_a & ~theirs_b), f"changed colour but not controlled by {player} "
         "afterwards (only the mover's squares are pinged)"),
    ):
        if mask:
            bad |= mask
            reasons.append(" ".join(names_of(mask)) + ": " + why)
    if bad:
        return Inference("none", unexplained=names_of(bad), reason="; ".join(reasons))
    free_b = board.live & ~mine_b & ~theirs_b
    gained = mine_a & ~mine_b
    new_free = gained & free_b
    if free_b and not new_free:
        changed = recoloured | gained
        return Inference("none", unexplained=names_of(changed),
                         reason=f"{player} took no uncontrolled square under control, which every "
                         "turn does while any is left" + ("" if changed else " (nothing changed)"))
    subtle = not board.speed
    cols_b = before.colours

    def unreachable(k: int) -> bool:
        """Whether square k can never be captured (static check on its neighbours)."""
        nbm = board.nbmask[k]
        if not nbm & mine_a:
            return True
        if subtle:
            return (nbm & mine_a).bit_count() < 2
        bit = 1 << k
        colour = 0 if cols_b[0] & bit else 1 if cols_b[1] & bit else 2
        helpers = nbm & (mine_a | cols_b[ATTACKER[colour]])
        return helpers.bit_count() < 2

    components = board.components(mine_a)
    candidates = []  # (control, start squares)
    best_fail: tuple[int, str] | None = None
    for control in (list(bits(new_free)) if free_b else [None]):
        cbit = 0 if control is None else 1 << control
        must_capture = gained & ~cbit
        stuck = sum(1 << k for k in bits(must_capture) if unreachable(k))
        if stuck:
            fail = (stuck, " ".join(names_of(stuck)) + f": captured by {player} but no chain could "
                    "reach " + ("it" if stuck.bit_count() == 1 else "them") + " (too few attackers "
                    "around)")
        else:
            need = recoloured | must_capture
            parts = [p for p in components if p & need]
            if len(parts) > 1:
                main = max(parts, key=lambda p: (p & need).bit_count())
                stray = need & ~main
                fail = (stray, " ".join(names_of(stray)) + ": changed, but not connected to the "
                        f"other changes through squares {player} controls (a chain only spreads "
                        "to neighbours)")
            else:
                starts = parts[0] if parts else board.live
                candidates.append((control, starts))
                continue
        if best_fail is None or fail[0].bit_count() < best_fail[0].bit_count():
            best_fail = fail
    if not candidates:
        assert best_fail is not None
        return Inference("none", unexplained=names_of(best_fail[0]), reason=best_fail[1])
    # likelier control squares first: fewest neighbours the mover ends up controlling
    if candidates[0][0] is not None:
        candidates.sort(key=lambda cs: (board.nbmask[cs[0]] & mine_a).bit_count())
    problem = _Problem(board, before, after, gained, recoloured | gained)
    try:
        found = _schedule([_best_first(problem, candidates), _deepening(problem, candidates)], deadline)
    except _Undecided:
        return Inference("undecided", reason=f"the search ran out of its {budget_ms:g} ms budget "
                         f"after {problem.explored} chain states", explored=problem.explored)
    if found is not None:
        control, pings = found
        turn = SparkliesTurn(control, tuple((s, COLOURS[c]) for s, c in pings))
        return Inference("found", turn=turn, explored=problem.explored)
    miss = problem.best_miss
    if miss & problem.changed:
        miss &= problem.changed
    if best_fail is not None and best_fail[0].bit_count() <= miss.bit_count():
        # another control square fails on a static reason no larger: more telling
        return Inference("none", unexplained=names_of(best_fail[0]), reason=best_fail[1],
                         explored=problem.explored)
    if miss:
        reason = ("no chain of pings explains " + " ".join(names_of(miss))
                  + ": the closest chain found leaves " + ("it" if miss.bit_count() == 1 else "them")
                  + " wrong")
    else:
        reason = "no chain of pings ends exactly in this position"
    return Inference("none", unexplained=names_of(miss), reason=reason, explored=problem.explored)
