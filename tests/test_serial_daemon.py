"""Whole Pylos games played on the board controller: the real firmware runs in the simavr
harness (firmware/sim/), ``arbiter run --source serial:LINK`` referees it, and the test plays
the simulator's games by closing and opening the harness's reed switches and pressing its
buttons, as players would. Every record must equal the ground truth, and the strip (decoded
by the harness) must show whose turn it is after every turn and the illegal move at every
flag. Questions are answered with the confirm button while the strip shows the true turn."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from controller_sim import SimController, build_sim, firmware_elf
from host.games import rules_for
from host.indicators import BASE, footprint
from host.observation import Observation
from host.sim import SimConfig, simulate_game

ROOT = Path(__file__).resolve().parent.parent
#: seconds each board is held on the switches (the daemon counts a board after 0.15 s)
HOLD = 0.3
#: how long a test waits for the daemon to record what the simulated controller reported:
#: a guard against a hang, not a measure of speed. simavr shares the cores with the suite's
#: workers, so under a loaded full run a damaged frame's recovery (the controller's next
#: snapshot) can lag: at 8 s a 300-turn game once timed out at turn 57 and passed alone
TIMEOUT = 30.0


@dataclass(frozen=True)
class Step:
    kind: str                 # "board" or "press"
    closed: frozenset[int] = frozenset()
    illegal: bool = False
    button: int = 0
    turn: int = 0             # a turn button press: the turns played once it is pressed


def switches(obs: Observation) -> frozenset[int]:
    """The closed switches of an occupancy observation with reserves (docs/protocol.md)."""
    closed = {i for i, name in enumerate(BASE) if obs.cells[name] == "#"}
    closed |= set(range(16, 16 + obs.reserves["light"])) | set(range(31, 31 + obs.reserves["dark"]))
    return frozenset(closed)


def script(sim) -> list[Step]:
    """The game as switch boards and button presses, in time order."""
    steps: list[Step] = []
    last: frozenset[int] | None = None
    presses = sorted(sim.presses, key=lambda p: p.t)
    turns = 0
    k = 0
    for obs, truth in zip(sim.observations, sim.frames):
        while k < len(presses) and presses[k].t < obs.t:
            turns += 1
            steps.append(Step("press", button=46 if presses[k].player == "light" else 47, turn=turns))
            k += 1
        closed = switches(obs)
        if closed != last:
            steps.append(Step("board", closed, illegal=truth.board != truth.legal))
            last = closed
    for press in presses[k:]:
        turns += 1
        steps.append(Step("press", button=46 if press.player == "light" else 47, turn=turns))
    return steps


class Daemon:
    def __init__(self, tmp_path: Path, link: Path):
        self.db = tmp_path / "games.sqlite3"
        config = tmp_path / "arbiter.toml"
        config.write_text('game = "pylos"\n[stability]\nframes = 2\nseconds = 0.15\n')
        self.err = tmp_path / "daemon.err"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--quiet", "--no-mqtt",
                                          "--config", str(config), "--db", str(self.db),
                                          "--source", f"serial:{link}"],
                                         cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)

    def events(self) -> list[dict]:
        if not self.db.exists():
            return []
        import json
        try:
            with sqlite3.connect(self.db, timeout=5) as db:
                rows = db.execute("SELECT type, data FROM events ORDER BY seq").fetchall()
        except sqlite3.OperationalError:
            return []
        return [{"type": kind, **json.loads(data)} for kind, data in rows]

    def wait(self, predicate: Callable[[list[dict]], bool], what: str, timeout: float = TIMEOUT) -> list[dict]:
        deadline = time.monotonic() + timeout
        while True:
            events = self.events()
            if predicate(events):
                return events
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"{what}: not within {timeout} s; last events "
                                     f"{[e['type'] for e in events[-6:]]}\n{self.err.read_text()[-3000:]}")
            time.sleep(0.05)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def lit(pixel: str) -> bool:
    return pixel != "000000"


def red(pixel: str) -> bool:
    return pixel[:2] != "00" and pixel[2:] == "0000"


def moves(events: list[dict]) -> int:
    """Turns kept: moves recorded, less the ones taken back."""
    count = 0
    for e in events:
        if e["type"] == "move":
            count = e["turn"]
        elif e["type"] == "takeback":
            count = e["to_turn"]
    return count


def press(sim: SimController, button: int) -> None:
    sim.close_switch(button)
    time.sleep(0.08)  # a finger on the button: longer than the firmware's debounce
    sim.open_switch(button)


def play(sim: SimController, daemon: Daemon, game, rules) -> dict:
    """Plays the game on the switches; returns counts of what was checked."""
    truth = game.truth
    checked = {"turn lights": 0, "flags": 0, "questions": 0}
    positions = [rules.parse_position(truth.start)] + [rules.parse_position(p) for p in truth.positions]
    for step in script(game):
        if step.kind == "board":
            sim.set_all(set(step.closed))
            time.sleep(HOLD)
            if step.illegal:
                events = daemon.wait(lambda ev: ev and ev[-1]["type"] == "illegal", "an illegal move flagged")
                cells = [c["cell"] for c in events[-1]["cells"]]
                spots = {BASE.index(h) for c in cells for h in footprint(c)}
                sim.wait_strip(lambda px: red(px[2]) and all(red(px[3 + i]) for i in spots), TIMEOUT)
                checked["flags"] += 1
            continue
        press(sim, step.button)
        events = daemon.wait(lambda ev: moves(ev) >= step.turn or (ev and ev[-1]["type"] == "confirm-needed"),
                             f"turn {step.turn} recorded or asked")
        if moves(events) < step.turn:
            question = events[-1]
            before = positions[step.turn - 1]
            want = positions[step.turn]
            choice = next(k for k, c in enumerate(question["candidates"])
                          if rules.play(before, rules.parse_turn(before, c)) == want)
            spots = [{BASE.index(h) for h in footprint_of(rules, before, c)} for c in question["candidates"]]
            assert sum(s == spots[choice] for s in spots) == 1, "two candidates light the same hollows"
            # wait until the strip shows the true turn (its hollows alone), then confirm
            cycle = min(len(spots), 16)  # seconds: one slot per candidate
            await_frame(sim, lambda px: {i for i in range(16) if lit(px[3 + i])} == spots[choice], TIMEOUT + cycle)
            press(sim, 48)  # at once: the slot stays lit for 0.8 s
            daemon.wait(lambda ev: moves(ev) >= step.turn, f"turn {step.turn} confirmed")
            checked["questions"] += 1
        position = positions[step.turn]
        if rules.outcome(position) is None:
            first = rules.to_move(position) == "light"
            sim.wait_strip(lambda px: lit(px[0]) == first and lit(px[1]) != first and not lit(px[2]), TIMEOUT)
            checked["turn lights"] += 1
    return checked


def await_frame(sim: SimController, predicate: Callable[[tuple[str, ...]], bool], timeout: float) -> None:
    """Wait for a strip frame written from now on that satisfies ``predicate`` (a player
    presses when the light comes on, not at the end of a slot)."""
    deadline = time.monotonic() + timeout
    since = sim.mark()
    while True:
        line = sim.wait_line("strip", max(0.1, deadline - time.monotonic()), since)
        since = sim.lines().index(line, since) + 1
        if predicate(tuple(line.split()[3:])):
            return


def footprint_of(rules, before, move: str) -> set[str]:
    """The base hollows the strip lights for a candidate turn (what it changes, projected)."""
    after = rules.play(before, rules.parse_turn(before, move))
    a, b = rules.cells(before), rules.cells(after)
    return {h for cell in a if a[cell] != b[cell] for h in footprint(cell)}


@pytest.mark.long(80)
@pytest.mark.parametrize("seed, turns, illegal", [(21, 300, 0.1), (22, 24, 0.15)])
def test_pylos_games_played_on_the_controller_are_recorded_exactly(tmp_path, seed, turns, illegal):
    build_sim()
    rules = rules_for("pylos")
    game = simulate_game(rules, random.Random(seed), SimConfig(
        seed=seed, game="pylos", occupancy=True, trays=True, buttons=True, max_turns=turns, illegal=illegal))
    link = tmp_path / "ttyARB"
    with SimController(firmware_elf(), link) as sim:
        daemon = Daemon(tmp_path, link)
        try:
            try:
                checked = play(sim, daemon, game, rules)
            except Exception:  # what the board and the daemon last did, to see why
                print("harness:", *sim.lines()[-10:], "daemon:", daemon.err.read_text()[-3000:], sep="\n")
                raise
            events = daemon.wait(lambda ev: moves(ev) == len(game.truth.turns), "every turn recorded")
        finally:
            daemon.stop()
        assert sim.errors() == []
    # positions, not notation: two take-backs that may go in either order are recorded in the
    # engine's order (docs/referee.md)
    assert [e["position"] for e in events if e["type"] == "move"] == list(game.truth.positions)
    assert checked["flags"] == len(game.truth.illegal) > 0
    assert sum(e["type"] == "illegal" for e in events) == len(game.truth.illegal)
    assert checked["questions"] > 0 and checked["turn lights"] > 0
    if turns == 300:  # a whole game: it ends, and the winner is shown
        over = daemon.wait(lambda ev: any(e["type"] == "game-over" for e in ev), "game over", 2)
        assert any(e["type"] == "game-over" for e in over)
