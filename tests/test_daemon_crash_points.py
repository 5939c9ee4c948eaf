"""The daemon killed at every instant that matters, made exact: a SIGKILL leaves the database
as of its last commit, so every state a kill can leave is one of the committed states of an
uninterrupted run. Each is taken (from a second connection, which sees only what is
committed), and a daemon started on it must finish with the same games as the uninterrupted
run, which itself equals the simulator's ground truth. tests/test_daemon.py kills real
processes at random instants; this covers the narrow windows random kills seldom hit (between
a move and its game-over, a game's start and its new-game event, an illegal move and the
board put right)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from daemon_records import check_against_truth, game_records, query, without_ids
from host.config import load
from host.daemon import Daemon, build_rules
from host.observation import write_log
from host.recorder import Recorder
from host.sim import SimConfig, Simulator
from host.sources import open_source

#: (game, seed, games, simulator options): two to four games each, so that the windows
#: between games are there too; seeds the referee follows without answers to its questions
#: (see CRASH_CASES in test_daemon.py), and Sparks seed 5, whose games ask which turn
#: was played, the players playing on unanswered (a kill while a question stands: docs/recording.md)
CASES = [("pylos", 21, 2, {}), ("sparks", 2, 2, {}), ("sparks", 5, 4, {}), ("sparklies", 5, 3, {"size": (4, 4)})]


class CommittedStates(Recorder):
    """The daemon's recorder, copying the database as committed before and after each of its
    writes (a write inside a larger transaction shows the state before that transaction:
    the copies are what a kill at any instant could leave, and every such state is copied)."""

    def __init__(self, path: Path, directory: Path, **options: Any):
        super().__init__(path, **options)
        self.directory = directory
        self.states: list[Path] = []
        self._keys: set[tuple] = set()

    def _copy(self) -> None:
        source = sqlite3.connect(str(self.path))
        try:
            key = source.execute("SELECT (SELECT MAX(seq) FROM events), (SELECT COUNT(*) FROM games)").fetchone()
            if key in self._keys:
                return
            self._keys.add(key)
            copy = self.directory / f"state-{len(self.states)}.sqlite3"
            target = sqlite3.connect(str(copy))
            source.backup(target)
            target.close()
            self.states.append(copy)
        finally:
            source.close()

    def start_game(self, *args: Any, **kwargs: Any) -> int:
        self._copy()
        try:
            return super().start_game(*args, **kwargs)
        finally:
            self._copy()

    def record(self, *args: Any, **kwargs: Any) -> int:
        self._copy()
        try:
            return super().record(*args, **kwargs)
        finally:
            self._copy()


def run_daemon(config_path: Path, log: Path, db: Path, recorder: type[Recorder] = Recorder, **options: Any) -> None:
    """`arbiter run --config C --source replay:LOG --speed 0 --no-mqtt` in this process."""
    config = load(config_path)
    rules = build_rules(config, None, None)
    source = open_source(f"replay:{log}", rules, speed=0, coverage=config.source["coverage"])
    with recorder(db, board_id=config.board_id, **options) as rec:
        Daemon(config, rules, source, recorder=rec).run()


def describe(state: Path, whole: Path) -> str:
    """Where a state stands in the uninterrupted run, for the failure message."""
    last = query(state, "SELECT MAX(seq) FROM events")[0][0] or 0
    games = query(state, "SELECT COUNT(*) FROM games")[0][0]
    around = dict(query(whole, "SELECT seq, type FROM events WHERE seq IN (?, ?)", last, last + 1))
    return (f"killed after event {last} ({around.get(last, 'none')}) with {games} game(s) started, "
            f"before event {last + 1} ({around.get(last + 1, 'none')})")


def difference(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> str:
    """The first game that differs, and how."""
    if len(got) != len(want):
        return f"{len(got)} games instead of {len(want)}: {[len(g['positions']) for g in got]} turns " \
               f"instead of {[len(w['positions']) for w in want]}"
    number, g, w = next((n, g, w) for n, (g, w) in enumerate(zip(got, want), start=1) if g != w)
    fields = []
    for key in w:
        if g[key] != w[key]:
            fields.append(f"{key} {len(g[key])} instead of {len(w[key])}" if key == "positions"
                          else f"{key} {g[key]!r} instead of {w[key]!r}")
    return f"game {number}: " + "; ".join(fields)


@pytest.mark.parametrize("game, seed, games, options", CASES, ids=[f"{case[0]}-{case[1]}" for case in CASES])
def test_a_kill_after_any_commit_loses_nothing(tmp_path, fast_dir, game, seed, games, options):
    """Games, turns, results, illegal-move episodes (and how each ended), takebacks and each
    game's first event (its new-game) all as in the uninterrupted run, from every state."""
    played = list(Simulator(SimConfig(seed=seed, game=game, games=games, hands=0.1, illegal=0.1, takeback=0.1,
                                      **options)).games())
    log = tmp_path / "games.jsonl"
    write_log(log, [obs for g in played for obs in g.observations])
    config = tmp_path / "arbiter.toml"
    rules = f'[rules]\nsize = "{options["size"][0]}x{options["size"][1]}"\n' if "size" in options else ""
    config.write_text(f'game = "{game}"\n{rules}')
    states = fast_dir / "states"
    states.mkdir()
    whole = fast_dir / "whole.sqlite3"
    run_daemon(config, log, whole, CommittedStates, directory=states)
    check_against_truth(whole, played)
    want = without_ids(game_records(whole))
    committed = sorted(states.iterdir(), key=lambda p: int(p.stem.split("-")[1]))
    assert len(committed) > len(want) * 10  # every event's commit, at least
    wrong = []
    for state in committed:
        db = fast_dir / "resumed.sqlite3"
        for old in fast_dir.glob("resumed.sqlite3*"):
            old.unlink()
        shutil.copy(state, db)
        run_daemon(config, log, db)
        got = without_ids(game_records(db))
        if got != want:
            wrong.append(f"{describe(state, whole)}: {difference(got, want)}")
    assert not wrong, f"{len(wrong)} of {len(committed)} states a kill can leave end wrong:\n" + "\n".join(wrong)
