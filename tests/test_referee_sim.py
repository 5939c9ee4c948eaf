"""End to end: thousands of simulated games per game, with hands, flicker, injected illegal
moves and takebacks, refereed from the observation stream alone. Every recorded game must
equal the simulator's ground truth turn for turn, every injected illegal move must be flagged
and no legal move flagged. ARBITER_E2E_GAMES sets the number of noisy games per game."""

import multiprocessing
import os

import pytest

from sim_referee import Outcome, referee_game, run_games

GAMES = int(os.environ.get("ARBITER_E2E_GAMES", "2000"))


def referee_many(game: str, count: int, noisy: bool, occupancy: bool = False) -> Outcome:
    workers = max(1, min(2, os.cpu_count() or 1))
    chunks = [(game, range(k, count, workers), noisy, occupancy) for k in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(run_games, chunks)
    total = Outcome()
    for part in parts:
        total.add(part)
    return total


@pytest.mark.long(250)
@pytest.mark.parametrize("game", ["pylos", "sparks", "sparklies"])
def test_noisy_simulated_games_equal_the_ground_truth(game):
    result = referee_many(game, GAMES, noisy=True)
    assert result.games == GAMES
    assert result.failures == [], f"{len(result.failures)} games differ, e.g. {result.failures[:5]}"
    assert result.injected > GAMES // 10  # the simulator did inject illegal moves
    assert result.flagged == result.injected
    assert result.false_flags == 0
    # a turn taken back before its final board was ever seen whole (a hand over it) was
    # never recorded, so there is nothing to take back: the records above are still exact
    assert result.takebacks > 0
    assert 0.97 * result.takebacks <= result.takebacks_seen <= result.takebacks


@pytest.mark.parametrize("game", ["pylos", "sparks", "sparklies"])
def test_clean_simulated_games_need_no_flags(game):
    result = referee_many(game, max(GAMES // 10, 20), noisy=False)
    assert result.failures == []
    assert result.false_flags == 0 and result.injected == 0


def test_occupancy_only_pylos_is_recorded_or_asked():
    """Reed switches under the base hollows and the players' turn buttons: a ball put on an
    upper level is invisible, so the referee asks which turn it was (the test answers with
    the true one, as the players would); everything the hollows show is decided alone."""
    result = referee_many("pylos", max(GAMES // 4, 20), noisy=True, occupancy=True)
    assert result.failures == [], f"{len(result.failures)} games differ, e.g. {result.failures[:5]}"
    assert result.injected > 0 and result.flagged == result.injected
    assert result.false_flags == 0
    assert result.takebacks > 0 and 0.97 * result.takebacks <= result.takebacks_seen <= result.takebacks
    # questions are needed (upper levels are invisible) but never where the base tells the turn
    assert 0 < result.confirmations < result.turns
    assert result.needless == 0


def test_sensed_reserve_trays_answer_questions_the_hollows_cannot():
    """With the reserve trays sensed too, the balls left in each tray tell how many balls a
    turn took back, so fewer turns need a question; every record still equals the truth."""
    seeds = range(24)
    plain, trays = Outcome(), Outcome()
    for seed in seeds:
        plain.add(referee_game("pylos", seed, True, True))
        trays.add(referee_game("pylos", seed, True, True, trays=True))
    assert trays.failures == [], trays.failures[:5]
    assert trays.flagged == trays.injected > 0 and trays.false_flags == 0
    assert trays.takebacks_seen == trays.takebacks
    assert trays.confirmations < 0.9 * plain.confirmations


def test_questions_answered_with_the_confirm_button():
    """The confirm button pressed while the lights show a candidate chooses that candidate
    (``choice``): games answered only that way are recorded exactly."""
    total = Outcome()
    for seed in range(6):
        total.add(referee_game("pylos", seed, True, True, button=True))
    assert total.failures == [] and total.confirmations > 10
