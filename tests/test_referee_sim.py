"""End to end: thousands of simulated games per game, with hands, flicker, injected illegal
moves and takebacks, refereed from the observation stream alone. Every recorded game must
equal the simulator's ground truth turn for turn, every injected illegal move must be flagged
and no legal move flagged. ARBITER_E2E_GAMES sets the number of noisy games per game."""

import multiprocessing
import os

import pytest

from sim_referee import Outcome, run_games

GAMES = int(os.environ.get("ARBITER_E2E_GAMES", "2000"))


def referee_many(game: str, count: int, noisy: bool) -> Outcome:
    workers = max(1, min(2, os.cpu_count() or 1))
    chunks = [(game, range(k, count, workers), noisy) for k in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(run_games, chunks)
    total = Outcome()
    for part in parts:
        total.add(part)
    return total


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
