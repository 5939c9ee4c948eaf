"""The simulator's streams: reproducible, valid, refereeable (the stability contract) and
true to their ground truth, over a few hundred quick games of the three games."""

from __future__ import annotations

import functools
import random

import pytest

from host.games import pyramid, rules_for
from host.observation import EMPTY, OCCUPIED, UNKNOWN, check_cells, matches
from host.record import replay
from host.sim import SimConfig, SimGame, simulate_game
from host.sim_render import BASE_NAMES, frames_needed

NOISY = SimConfig(hands=0.15, flicker=0.03, illegal=0.1, takeback=0.1)
READ_SWITCHES = SimConfig(occupancy=True, flicker=0.03, illegal=0.1, takeback=0.1)
PYLOS_VARIANTS = ("standard", "children", "mature")
SPARKLIES_BOARDS = (dict(variant="subtle", width=4, height=4), dict(variant="speed", width=4, height=4),
                    dict(variant="subtle", width=5, height=4, dead=["c2"], wrap=True))
COUNTS = {"pylos": 90, "sparks": 60, "sparklies": 120}
OCCUPANCY_COUNTS = {"pylos": 40, "sparks": 30}


def rules_of(game: str, seed: int):
    if game == "pylos":
        return rules_for("pylos", PYLOS_VARIANTS[seed % 3])
    if game == "sparklies":
        options = dict(SPARKLIES_BOARDS[seed % 3])
        return rules_for("sparklies", options.pop("variant"), **options)
    return rules_for("sparks")


@functools.lru_cache(maxsize=None)
def game_of(game: str, seed: int, occupancy: bool = False) -> SimGame:
    return simulate_game(rules_of(game, seed), random.Random(seed), READ_SWITCHES if occupancy else NOISY)


def all_games():
    for game, count in COUNTS.items():
        for seed in range(count):
            yield game_of(game, seed)
    for game, count in OCCUPANCY_COUNTS.items():
        for seed in range(count):
            yield game_of(game, seed, True)


CASES = [(g, s, False) for g, n in COUNTS.items() for s in range(n)] + \
        [(g, s, True) for g, n in OCCUPANCY_COUNTS.items() for s in range(n)]


def hidden_view(board: dict[str, str]) -> dict[str, str]:
    """What a camera above a pyramid shows, worked out here independently: a position with
    a ball on a position resting on it is unknown."""
    out = {}
    for name, value in board.items():
        above = pyramid.ABOVE[pyramid.BY_NAME[name]]
        covered = any(board[pyramid.NAMES[j]] != EMPTY for j in pyramid.bits(above))
        out[name] = UNKNOWN if covered else value
    return out


def positions_of(g: SimGame) -> list:
    rules = g.rules
    position = rules.parse_position(g.truth.start)
    out = [position]
    for text in g.truth.turns:
        position = rules.play(position, rules.parse_turn(position, text))
        out.append(position)
    return out


def frames_from(g: SimGame, t: float) -> int:
    return next(i for i, o in enumerate(g.observations) if o.t >= t - 1e-9)


def clean_run(g: SimGame, start: int) -> int:
    """The longest run of frames, while the physical board stays what it is at ``start``,
    that show that board as it is (no hand, no flicker)."""
    board = g.frames[start].board
    best = run = 0
    for truth in g.frames[start:]:
        if truth.board != board:
            break
        run = 0 if truth.hand or truth.flicker else run + 1
        best = max(best, run)
    return best


# -- per game -----------------------------------------------------------------------------------


@pytest.mark.parametrize("game,seed,occupancy", CASES)
def test_stream_is_valid_and_true_to_its_ground_truth(game, seed, occupancy):
    g = game_of(game, seed, occupancy)
    rules, cfg = g.rules, (READ_SWITCHES if occupancy else NOISY)
    truth = g.truth
    start = rules.parse_position(truth.start)
    names = frozenset(rules.cells(start))
    # every cell name and content is one of the game's; time goes forward
    for obs in g.observations:
        check_cells(rules, obs, names)
    times = [o.t for o in g.observations]
    assert all(b > a for a, b in zip(times, times[1:]))
    assert len(g.frames) == len(g.observations)
    # each frame is its physical board as the sensor sees it, but for the hand and flicker
    for obs, frame in zip(g.observations, g.frames):
        seen = g.view(frame.board)
        assert set(obs.cells) == set(seen)
        for name, value in obs.cells.items():
            if name in frame.hand:
                assert UNKNOWN in value
            elif name == frame.flicker:
                assert value != seen[name] and UNKNOWN not in value
            else:
                assert value == seen[name], (obs.t, name)
    # the kept turns are legal and lead to the result; the end shows the final position
    record = replay(truth.record())
    assert record.ok, record.error
    assert record.result == truth.result
    assert [rules.format_position(p) for p in record.positions[1:]] == list(truth.positions)
    final = record.final
    assert (rules.outcome(final) is not None) == (truth.result != "*")
    last = g.observations[-1].cells
    board = rules.cells(final)
    if occupancy:
        assert dict(last) == {n: OCCUPIED if board[n] != EMPTY else EMPTY for n in BASE_NAMES}
    elif game == "sparklies":
        assert dict(last) == board
    else:
        assert dict(last) == hidden_view(board)
    # each kept turn's end is seen clearly for long enough to count
    need = cfg.state_frames
    for k, t in enumerate(truth.turn_times):
        i = frames_from(g, t)
        assert g.frames[i].board == rules.cells(record.positions[k + 1])
        assert clean_run(g, i) >= need


@pytest.mark.parametrize("game,seed,occupancy", CASES)
def test_only_injected_illegal_moves_are_ever_stable_and_wrong(game, seed, occupancy):
    g = game_of(game, seed, occupancy)
    cfg = READ_SWITCHES if occupancy else NOISY
    episodes = g.truth.illegal
    run = 0
    for i, obs in enumerate(g.observations):
        run = run + 1 if i and obs.cells == g.observations[i - 1].cells else 1
        first = g.observations[i - run + 1]
        if run < cfg.stable_frames or obs.t - first.t < cfg.stable_seconds:
            continue
        legal = g.frames[i].legal
        if all(matches(v, legal[n]) for n, v in obs.cells.items()):
            continue
        assert any(e.t_first <= first.t and obs.t <= e.t_last for e in episodes), (
            f"{game} seed {seed}: a wrong board is stable at t={obs.t} outside any injected illegal move")
        assert g.frames[i].board != legal


@pytest.mark.parametrize("game,seed,occupancy", CASES)
def test_illegal_episodes_are_held_long_enough_and_put_back(game, seed, occupancy):
    g = game_of(game, seed, occupancy)
    cfg = READ_SWITCHES if occupancy else NOISY
    rules = g.rules
    for e in g.truth.illegal:
        i = frames_from(g, e.t_first)
        frames = [k for k, o in enumerate(g.observations) if e.t_first <= o.t <= e.t_last]
        assert frames[0] == i and len(frames) >= cfg.flag_frames
        assert e.t_last - e.t_first >= cfg.flag_seconds
        shown = g.observations[i].cells
        for k in frames:
            assert g.observations[k].cells == shown
            assert not g.frames[k].hand and g.frames[k].flicker is None
            assert g.frames[k].board != g.frames[k].legal
        legal_seen = g.view(g.frames[i].legal)
        assert e.cells and all(legal_seen[c] == want and shown[c] == seen for c, want, seen in e.cells)
        assert {c for c, _, _ in e.cells} == {n for n in shown if shown[n] != legal_seen[n]}
        # put back: the legal board again, steadily
        j = frames_from(g, e.t_restored)
        assert dict(g.observations[j].cells) == legal_seen
        assert clean_run(g, j) >= cfg.state_frames
        assert e.player == rules.to_move(rules.parse_position(e.position))


def explainable(rules, position, seen: dict[str, str]) -> bool:
    """Whether any board of a legal turn from ``position`` (every prefix of every legal
    turn, by its steps) fits the reading: worked out from legal_turns and steps, not the
    simulator's own search."""
    for turn in rules.legal_turns(position):
        state = rules.begin_turn(position)
        for step in rules.steps(position, turn):
            state = state.apply(step)
            cells = state.cells()
            if all(matches(v, cells[n]) for n, v in seen.items()):
                return True
    return False


@pytest.mark.parametrize("game,seed,occupancy", [c for c in CASES if c[0] != "sparklies"][::3])
def test_injected_pyramid_moves_are_really_illegal(game, seed, occupancy):
    g = game_of(game, seed, occupancy)
    rules = g.rules
    for e in g.truth.illegal:
        position = rules.parse_position(e.position)
        seen = dict(g.observations[frames_from(g, e.t_first)].cells)
        assert not explainable(rules, position, seen), (game, seed, e)
        assert not all(matches(v, rules.cells(position)[n]) for n, v in seen.items())


@pytest.mark.parametrize("seed", range(COUNTS["sparklies"]))
def test_sparklies_illegal_moves_and_the_last_turn(seed):
    g = game_of("sparklies", seed)
    for e in g.truth.illegal:
        assert e.kind in ("marker-removed", "wrong-marker")
        for cell, expected, seen in e.cells:
            if e.kind == "marker-removed":  # no Sparklies step ever takes a marker off
                assert expected[1] in "bw" and seen[1] == "."
            else:
                assert (expected[1], seen[1]) == (".", "w") and e.turn == 1
    # once every square shows a marker the game is over: nothing changes any more
    boards = [f.legal for f in g.frames]
    done = next((k for k, b in enumerate(boards) if all(v[1] != "." for v in b.values())), None)
    if g.truth.result != "*":
        assert done is not None and all(b == boards[done] for b in boards[done:])


@pytest.mark.parametrize("game,seed,occupancy", CASES)
def test_takebacks_return_to_the_previous_position(game, seed, occupancy):
    g = game_of(game, seed, occupancy)
    cfg = READ_SWITCHES if occupancy else NOISY
    rules = g.rules
    kept = positions_of(g)
    for tb in g.truth.takebacks:
        position = rules.parse_position(tb.position)
        i = frames_from(g, tb.t)
        assert g.frames[i].board == rules.cells(position)
        assert clean_run(g, i) >= cfg.state_frames
        # the undone turn was played from there, and was on the board just before
        (undone,) = tb.undone
        after = rules.play(position, rules.parse_turn(position, undone))
        earlier = [f.board for f in g.frames[:i]]
        assert rules.cells(after) in earlier
        # takebacks only ever remove the last turn, so what they keep is kept to the end
        assert kept[tb.to_turn] == position


@pytest.mark.parametrize("game,seed", [(g, s) for g, n in OCCUPANCY_COUNTS.items() for s in range(n)])
def test_reed_switches_report_only_base_occupancy(game, seed):
    g = game_of(game, seed, True)
    for obs in g.observations:
        assert set(obs.cells) == set(BASE_NAMES)
        assert set(obs.cells.values()) <= {OCCUPIED, EMPTY}
    assert not any(f.hand for f in g.frames)


@pytest.mark.parametrize("game,seed", [(g, s) for g, n in OCCUPANCY_COUNTS.items() for s in range(n)])
def test_reed_switch_players_press_their_turn_button_after_each_turn(game, seed):
    """One press per turn kept or taken back, by the player who moved, once the turn's last
    board has been held long enough to count and before the board changes again."""
    g = game_of(game, seed, True)
    rules = g.rules
    stream = list(g.stream())
    assert [x.t for x in stream] == sorted(x.t for x in stream)
    assert len(g.presses) >= len(g.truth.turns) and all(p.button == "end-turn" for p in g.presses)
    if not g.truth.takebacks:  # (a turn taken back was pressed for too)
        position = rules.parse_position(g.truth.start)
        for press, text in zip(g.presses, g.truth.turns, strict=True):
            assert press.player == rules.to_move(position)
            position = rules.play(position, rules.parse_turn(position, text))
    times = [o.t for o in g.observations]
    for press in g.presses:
        k = max(i for i, t in enumerate(times) if t < press.t)
        run = 1
        while k - run >= 0 and g.observations[k - run].cells == g.observations[k].cells:
            run += 1
        assert run >= 3, f"press at {press.t} after a board held {run} frames only"


def test_presses_follow_the_buttons_setting():
    rules = rules_for("pylos")
    with_reeds = simulate_game(rules, random.Random(1), SimConfig(seed=1, occupancy=True, buttons=False))
    assert with_reeds.presses == () and list(with_reeds.stream()) == list(with_reeds.observations)
    camera = simulate_game(rules, random.Random(1), SimConfig(seed=1, buttons=True))
    assert len(camera.presses) == len(camera.truth.turns)


@pytest.mark.parametrize("seed", range(COUNTS["sparks"]))
def test_sparks_boards_never_show_a_hanging_ball(seed):
    g = game_of("sparks", seed)
    for frame in g.frames:
        occupied = sum(1 << pyramid.BY_NAME[n] for n, v in frame.board.items() if v != EMPTY)
        for i in pyramid.bits(occupied):
            assert occupied & pyramid.SUPPORTS[i] == pyramid.SUPPORTS[i]


# -- over all games -------------------------------------------------------------------------------


def test_the_noise_is_there():
    """The configured noise really happens across the games: hands (some with the board
    changing under them), flicker, illegal moves of several kinds, takebacks."""
    hands = changed_under_hand = flicker = 0
    kinds: dict[str, set[str]] = {}
    takebacks = {}
    for g in all_games():
        for a, b in zip(g.frames, g.frames[1:]):
            hands += bool(b.hand)
            flicker += b.flicker is not None
            changed_under_hand += bool(a.hand and b.hand and a.board != b.board)
        kinds.setdefault(g.rules.game, set()).update(e.kind for e in g.truth.illegal)
        takebacks[g.rules.game] = takebacks.get(g.rules.game, 0) + len(g.truth.takebacks)
    assert hands > 1000 and changed_under_hand > 50 and flicker > 500
    assert {"wrong-colour", "ball-removed"} <= kinds["pylos"]
    assert {"ball-added", "ball-swapped"} <= kinds["sparks"]
    assert "balls-added" in kinds["pylos"] | kinds["sparks"]
    assert kinds["sparklies"] == {"marker-removed", "wrong-marker"}
    assert all(takebacks[game] >= 5 for game in ("pylos", "sparks", "sparklies"))


def test_flicker_never_repeats_the_same_glitch_twice_running():
    for game in ("pylos", "sparklies"):
        for seed in range(10):
            g = game_of(game, seed)
            for k in range(1, len(g.frames)):
                a, b = g.frames[k - 1], g.frames[k]
                if a.flicker and b.flicker == a.flicker:
                    assert g.observations[k].cells[b.flicker] != g.observations[k - 1].cells[a.flicker]


@pytest.mark.parametrize("game", ["pylos", "sparks", "sparklies"])
def test_same_seed_same_stream_other_seed_other_stream(game):
    rules = rules_of(game, 0)
    one = simulate_game(rules, random.Random(42), NOISY)
    two = simulate_game(rules_of(game, 0), random.Random(42), NOISY)
    other = simulate_game(rules, random.Random(43), NOISY)
    assert [o.to_line() for o in one.observations] == [o.to_line() for o in two.observations]
    assert one.truth == two.truth
    assert [o.to_line() for o in one.observations] != [o.to_line() for o in other.observations]


def test_a_clean_stream_holds_every_board_and_only_hands_make_changes():
    """No noise: every physical board is held clean for a stable run, and the only unknown
    cells are hidden balls and the hand making each change."""
    rules = rules_for("pylos")
    cfg = SimConfig()
    g = simulate_game(rules, random.Random(5), cfg)
    need = frames_needed(cfg.stable_frames, cfg.stable_seconds, cfg.fps)
    assert need == cfg.state_frames == 4
    k = 0
    while k < len(g.frames):
        board = g.frames[k].board
        run = 0
        while k < len(g.frames) and g.frames[k].board == board:
            run += not g.frames[k].hand
            k += 1
        assert run >= need
    assert all(f.flicker is None and f.board == f.legal for f in g.frames)
    assert not g.truth.illegal and not g.truth.takebacks


def test_turn_boards_show_intermediate_states():
    from host.sim_play import turn_boards
    rules = rules_for("pylos")
    position = rules.start()
    for text in ("1a1", "1b1", "1a2", "1b2", "1d4", "1c4"):
        position = rules.play(position, rules.parse_turn(position, text))
    raise_turn = rules.parse_turn(position, "1d4-2a1")  # Light raises: lifted, then put
    boards = turn_boards(rules, position, raise_turn)
    assert [b.cells["1d4"] for b in boards] == [EMPTY, EMPTY]
    assert [b.cells["2a1"] for b in boards] == [EMPTY, "L"]
    assert boards[-1].cells == rules.cells(rules.play(position, raise_turn))
