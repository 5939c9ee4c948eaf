"""The referee's pruned search over a turn's states (referee_match.reaches) gives the same
answers as the plain walk (reaches_by_walk), and the bound it prunes by
(games.turn_bounds.steps_bound) never claims more steps than a turn needs.

Cases come from the questions the referee asks while refereeing noisy simulated games
(illegal boards, turns that ended unseen, reed switches) and from random positions with
boards taken a few steps into the turn, partly hidden and changed at random."""

from __future__ import annotations

import random

import pytest

from host import referee as referee_module
from host.games import rules_for
from host.games.pyramid import NAMES
from host.games.sparks_core import SparksPosition
from host.games.turn_bounds import steps_bound
from host.referee import Referee
from host.referee_match import TurnGraph, reaches, reaches_by_walk
from host.sim import SimConfig, simulate_game

BASE = frozenset(n for n in NAMES if n.startswith("1"))
GAMES = [("pylos", "standard"), ("pylos", "mature"), ("pylos", "children"), ("sparks", "standard")]
STEP_LIMITS = (0, 1, 2, 3, 4, 5, None)


def positions(rules, rng: random.Random, games: int) -> list:
    """Every position of some random games, the final ones included."""
    out = []
    for _ in range(games):
        p = rules.start()
        out.append(p)
        while rules.outcome(p) is None:
            p = rules.play(p, rules.random_turn(p, rng))
            out.append(p)
    return out


def state_after(rules, position, steps: int, rng: random.Random):
    """A state of the turn from ``position`` after up to ``steps`` random steps."""
    state = rules.begin_turn(position)
    for _ in range(steps):
        options = list(state.next_steps())
        if not options:
            break
        state = state.apply(rng.choice(options))
    return state


def blur(rules, cells: dict[str, str], rng: random.Random) -> dict[str, str]:
    """A sensor's view of ``cells``: some cells left out or unknown, some seen as just a
    ball, some misread, or only the base (reed switches)."""
    letters = "LD" if rules.game == "pylos" else "WBR"
    if rng.random() < 0.2:
        return {n: ("#" if v != "." else ".") for n, v in cells.items() if n in BASE}
    out = {}
    for name, value in cells.items():
        r = rng.random()
        if r < 0.15:
            continue
        if r < 0.2:
            out[name] = "?"
        elif r < 0.25 and value != ".":
            out[name] = "#"
        else:
            out[name] = value
    for name in rng.sample(sorted(out), min(len(out), rng.choice((0, 0, 1, 1, 2, 3)))):
        out[name] = rng.choice(letters + ".#")
    return out


def random_cases(game: str, variant: str, seed: int, count: int):
    """(position, seen, max_steps) for positions of random games: boards a few steps into the
    position's turn or the one after it, blurred; boards of another position's turn."""
    rules = rules_for(game, variant)
    rng = random.Random(seed)
    pool = positions(rules, rng, 6)
    cases = []
    while len(cases) < count:
        k = rng.randrange(len(pool))
        position = pool[k]
        kind = rng.random()
        if kind < 0.45:
            board = state_after(rules, position, rng.randint(0, 7), rng).cells()
        elif kind < 0.8 and k > 0 and rules.outcome(pool[k - 1]) is None:
            # the turn before ended unseen: the board shows the turn from this position
            board = state_after(rules, pool[k - 1], rng.randint(0, 7), rng).cells()
            position = pool[k - 1] if rng.random() < 0.3 else position
        else:
            board = state_after(rules, rng.choice(pool), rng.randint(0, 7), rng).cells()
        cases.append((rules, position, blur(rules, board, rng), rng.choice(STEP_LIMITS)))
    return cases


@pytest.mark.parametrize("game,variant", GAMES)
def test_pruned_search_agrees_with_the_walk_on_random_boards(game, variant):
    answers = []
    for rules, position, seen, max_steps in random_cases(game, variant, seed=len(variant), count=1000):
        want = reaches_by_walk(rules, position, seen, max_steps)
        assert reaches(rules, position, seen, max_steps) == want, (
            rules.format_position(position), seen, max_steps, want)
        answers.append(want)
    assert 40 < sum(answers) < len(answers) - 40  # both answers are well represented


def referee_questions(game: str, seeds: range, base_only: bool) -> list[tuple]:
    """Every (rules, position, seen, max_steps) the Referee asked ``reaches`` while
    refereeing noisy simulated games with many illegal boards."""
    rules = rules_for(game)
    asked = []

    def ask(rules_, position, seen, max_steps=None):
        asked.append((rules_, position, dict(seen), max_steps))
        return reaches(rules_, position, seen, max_steps)

    noise = dict(flicker=0.05, illegal=0.3, takeback=0.1, hands=0.0 if base_only else 0.2)
    mp = pytest.MonkeyPatch()
    mp.setattr(referee_module, "reaches", ask)
    try:
        for seed in seeds:
            sim = simulate_game(rules, random.Random(seed),
                                SimConfig(seed=seed, game=game, occupancy=base_only, **noise))
            referee = Referee(rules, start=rules.parse_position(sim.truth.start),
                              coverage=BASE if base_only else None)
            referee.begin(0.0)
            for obs in sim.observations:
                referee.observe(obs)
    finally:
        mp.undo()
    return asked


@pytest.mark.parametrize("game", ["pylos", "sparks"])
@pytest.mark.parametrize("base_only", [False, True], ids=["camera", "reed-switches"])
def test_pruned_search_agrees_with_the_walk_on_the_referees_questions(game, base_only):
    """Reed switches see the base only, so the referee asks about whole unseen turns (no
    step limit): thousands of questions a game in Sparks, the walk checks a sample."""
    asked = referee_questions(game, range(2 if base_only else 6), base_only)
    assert len(asked) > 30
    if len(asked) > 300:
        asked = random.Random(0).sample(asked, 300)
    answers = [reaches_by_walk(*case) for case in asked]
    assert [reaches(*case) for case in asked] == answers
    assert not all(answers)  # mostly no: illegal boards, and turns that did not end unseen


def exact_steps(graph: TurnGraph, seen: dict[str, str]) -> list[float]:
    """For every state of the graph, the fewest steps to a state showing ``seen``
    (inf: none)."""
    matching = set(graph.matching(seen))
    memo: dict[int, float] = {}

    def steps(k: int) -> float:
        if k not in memo:
            memo[k] = 0 if k in matching else 1 + min((steps(j) for j in graph.children[k]), default=float("inf"))
        return memo[k]

    return [steps(k) for k in range(len(graph.states))]


@pytest.mark.parametrize("game,variant", GAMES)
def test_the_bound_never_claims_more_steps_than_a_turn_needs(game, variant):
    graphs: dict = {}
    checked = pruned = 0
    for rules, position, seen, _ in random_cases(game, variant, seed=7, count=150):
        bound = steps_bound(rules.game, seen, position)
        assert bound is not None  # these boards use the game's names and letters only
        graph = graphs.get(position) or graphs.setdefault(position, TurnGraph(rules, position))
        for state, exact in zip(graph.states, exact_steps(graph, seen)):
            need = bound(state)
            assert (need == 0) == (exact == 0), (rules.format_position(position), seen, state)
            assert need is None and exact == float("inf") or need is not None and need <= exact, (
                rules.format_position(position), seen, state, need, exact)
            checked += 1
            pruned += need is None or need > 1  # more than the one step any change needs
    assert pruned > checked // 4  # the bound does prune


@pytest.mark.parametrize("game,variant", GAMES)
def test_a_states_depth_does_not_depend_on_the_path(game, variant):
    """The pruned search, like walk_turn, meets each state (by key) once and prunes it by
    its depth: that is only the walk's answer if every path to a state has one length."""
    rules = rules_for(game, variant)
    for position in positions(rules, random.Random(3), 2)[::3]:
        depths: dict = {}
        todo = [(rules.begin_turn(position), 0)]
        while todo:
            state, depth = todo.pop()
            assert depths.setdefault(state.key(), depth) == depth
            todo.extend((state.apply(step), depth + 1) for step in state.next_steps())
        assert len(depths) > 1 or rules.outcome(position) is not None


def test_a_board_the_bound_cannot_read_is_left_to_the_walk():
    sparks = rules_for("sparks")
    start = sparks.start()
    assert steps_bound("sparks", {"1a1": "L"}, start) is None  # a Pylos letter
    assert not reaches(sparks, start, {"1a1": "L"}, 4)
    assert steps_bound("sparks", {"9z9": "W"}, start) is None
    with pytest.raises(KeyError):  # as the walk: a name not on the board
        reaches(sparks, start, {"9z9": "W"}, 4)
    assert steps_bound("sparklies", {}, start) is None


def test_unknown_cells_and_balls_of_unknown_colour():
    pylos = rules_for("pylos")
    start = pylos.start()
    assert reaches(pylos, start, {"1a1": "?", "1b1": "#"}, 1)
    assert not reaches(pylos, start, {"1a1": "#", "1b1": "#"}, 4)  # one ball a turn
    assert reaches(pylos, start, {n: "?" for n in NAMES}, 0)


def test_a_ball_on_the_top_needs_the_level_under_it():
    """The case that took the referee a second and a half: a ball seen on the top while the
    camera cannot see the level under it."""
    sparks = rules_for("sparks")
    position = sparks.parse_position("WWWB,BWBR,WBRB,BWBW/...,W..,..B/..,../. B")
    seen = {"4a1": "B", "1a1": "B"}
    assert not reaches_by_walk(sparks, position, seen, 4)
    assert not reaches(sparks, position, seen, 4)
    assert steps_bound("sparks", seen, position)(sparks.begin_turn(position)) > 4  # the level under it


def test_a_board_with_floating_balls_is_searched_without_the_support_rule():
    """Positions built by hand may have balls with nothing under them (no game reaches them);
    the bound then drops the rule that every ball stands on four."""
    sparks = rules_for("sparks")
    start = sparks.start()
    bit = lambda *names: sum(1 << NAMES.index(n) for n in names)  # noqa: E731
    floating = SparksPosition(start.white | bit("2b2"), start.black | bit("3b1"), bit("3a1"), 1)
    rng = random.Random(5)
    for _ in range(200):
        board = state_after(sparks, floating, rng.randint(0, 6), rng).cells()
        seen = blur(sparks, board, rng)
        for max_steps in (2, 4, None):
            assert reaches(sparks, floating, seen, max_steps) == reaches_by_walk(sparks, floating, seen, max_steps)


def test_a_finished_game_has_no_next_turn():
    sparks = rules_for("sparks")
    won = sparks.parse_position("WBWB,BWBW,WBWB,BWBW/WBW,BWB,WBW/WB,BW/W B")
    cells = sparks.cells(won)
    assert reaches(sparks, won, cells, 4)
    assert not reaches(sparks, won, {**cells, "4a1": "."}, 4)
    assert not reaches_by_walk(sparks, won, {**cells, "4a1": "."}, 4)
