"""Simulated games through the Referee, compared with the simulator's ground truth (shared by
the end-to-end tests and the referee benchmark)."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from host.games import rules_for
from host.observation import UNKNOWN, Observation, Press
from host.referee import Referee
from host.sim import SimConfig, simulate_game
from host.sources import BASE_HOLLOWS

NOISY = dict(hands=0.2, flicker=0.05, illegal=0.1, takeback=0.1)
OPTIONS = {"sparklies": {"width": 4, "height": 4}}
#: the referee's time for inferring a turn: the daemon's 300 ms guards its latency, which
#: the benchmarks measure; here the records must not hang on how loaded the machine is (a
#: Sparklies inference of 7 ms ran out of its 300 ms in a full run of the suite on two
#: cores, and the game, seed 673, was recorded otherwise)
UNHURRIED_MS = 20_000.0


@dataclass
class Outcome:
    games: int = 0
    exact: int = 0
    injected: int = 0
    flagged: int = 0
    false_flags: int = 0
    takebacks: int = 0
    takebacks_seen: int = 0
    confirmations: int = 0
    #: questions asked where the base hollows alone tell the turn (reed switches)
    needless: int = 0
    turns: int = 0
    observations: int = 0
    failures: list = field(default_factory=list)

    def add(self, other: "Outcome") -> None:
        for name in ("games", "exact", "injected", "flagged", "false_flags", "takebacks", "takebacks_seen",
                     "confirmations", "needless", "turns", "observations"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures


def _base(rules, position) -> frozenset[str]:
    return frozenset(n for n, v in rules.cells(position).items() if n in BASE_HOLLOWS and v != ".")


def told_by_base(rules, position, after) -> bool:
    """Whether the base hollows' occupancy after the turn leaves one legal turn only."""
    base = _base(rules, after)
    return sum(1 for turn in rules.legal_turns(position) if _base(rules, rules.play(position, turn)) == base) == 1


def true_after(rules, truth, position, number: int, t: float) -> str:
    """The position after the turn the players really played as turn ``number + 1`` at time
    ``t``: a turn taken back later is not among the kept turns, but it was played."""
    for tb in sorted(truth.takebacks, key=lambda tb: tb.t):
        if tb.t > t and tb.to_turn == number:
            return rules.format_position(rules.play(position, rules.parse_turn(position, tb.undone[0])))
    return truth.positions[number]


def referee_game(game: str, seed: int, noisy: bool, occupancy: bool = False, *,
                 camera: tuple[int, int] | None = None, turns: int = 300, trays: bool = False,
                 button: bool = False, blind: float = 0.0, hand_first: float = 0.0) -> Outcome:
    """One simulated game refereed; a confirmation is answered with the true turn, as the
    players would. ``occupancy``: reed switches under the base hollows and turn buttons, no
    camera (no hands over the board, then). ``camera``: every frame rendered at this
    resolution and read by vision (host/sim_vision.py) instead of the simulator's ideal
    sensor (no flicker then: vision makes its own errors). ``trays``: the reserve trays are
    sensed too (Pylos). ``button``: questions are answered with the confirm button pressed
    while the board's lights show the true candidate (a press with its ``choice``). ``blind``:
    the whole board out of sight for this many seconds every 5 to 20 s (:func:`out_of_sight`).
    ``hand_first``: the whole board out of sight for this many seconds before each illegal
    board (the hand that makes it, :func:`hand_before_illegal`)."""
    options = {"width": 9, "height": 9} if camera and game == "sparklies" else OPTIONS.get(game, {})
    rules = rules_for(game, **options)
    noise = {k: v for k, v in NOISY.items() if k != "hands"} if occupancy else NOISY
    if camera:
        noise = {k: v for k, v in noise.items() if k != "flicker"}
    config = SimConfig(seed=seed, game=game, occupancy=occupancy, trays=trays, max_turns=turns,
                       **(noise if noisy else {}))
    sim = simulate_game(rules, random.Random(seed), config)
    truth = sim.truth
    referee = Referee(rules, start=rules.parse_position(truth.start),
                      coverage=BASE_HOLLOWS if occupancy else None, infer_budget_ms=UNHURRIED_MS)
    events = referee.begin(0.0)
    result = Outcome(games=1, observations=len(sim.observations), turns=len(truth.turns))
    stream = sim.stream()
    if camera:
        from host.sim_vision import Cameras
        stream = Cameras(random.Random(seed), camera).observations(sim)
    if blind:
        stream = out_of_sight(stream, random.Random(seed * 7 + 1), blind)
    if hand_first:
        stream = hand_before_illegal(stream, truth, hand_first)
    for obs in stream:
        out = referee.observe(obs)
        for event in list(out):
            if event.type == "confirm-needed":
                want = true_after(rules, truth, referee.position, len(referee.turns), obs.t)
                if occupancy and told_by_base(rules, referee.position, rules.parse_position(want)):
                    result.needless += 1
                for k, (turn, after) in enumerate(referee.candidates):
                    if rules.format_position(after) == want:
                        out += (referee.observe(Press(obs.t, "confirm", choice=k)) if button else
                                referee.command("confirm", obs.t, {"move": rules.format_turn(turn)}))
                        break
        events += out
    events += referee.flush(sim.observations[-1].t)
    got = [rules.format_position(p) for p in referee.positions]
    want = [truth.start, *truth.positions]
    result.exact = int(got == want)
    if got != want:
        result.failures.append((game, seed, noisy))
    flags = [e.t for e in events if e.type == "illegal"]
    result.injected = len(truth.illegal)
    result.flagged = sum(1 for ep in truth.illegal
                         if any(ep.t_first <= t <= (ep.t_restored or float("inf")) for t in flags))
    result.false_flags = sum(1 for t in flags if not any(
        ep.t_first <= t <= (ep.t_restored or float("inf")) for ep in truth.illegal))
    result.takebacks = len(truth.takebacks)
    result.takebacks_seen = sum(1 for e in events if e.type == "takeback")
    result.confirmations = sum(1 for e in events if e.type == "confirm-needed")
    return result


def _all_unknown(obs: Observation) -> Observation:
    """The observation with every place unknown: the board out of sight."""
    return dataclasses.replace(obs, cells={name: UNKNOWN for name in obs.cells})


def out_of_sight(stream: Iterable, rng: random.Random, seconds: float) -> Iterator:
    """The observations with every place unknown for ``seconds`` from a time every 5 to 20 s
    (the first 2 to 10 s in): a player leaning over the board while turns are made."""
    start = rng.uniform(2, 10)
    for obs in stream:
        if isinstance(obs, Observation):
            while obs.t > start + seconds:
                start += seconds + rng.uniform(5, 20)
            if obs.t >= start:
                obs = _all_unknown(obs)
        yield obs


def hand_before_illegal(stream: Iterable, truth, seconds: float) -> Iterator:
    """The observations with every place unknown for ``seconds`` before each illegal board
    first shows: with a camera, the hand that makes an illegal move hides the board first."""
    windows = [(ep.t_first - seconds, ep.t_first) for ep in truth.illegal]
    for obs in stream:
        if isinstance(obs, Observation) and any(a <= obs.t < b for a, b in windows):
            obs = _all_unknown(obs)
        yield obs


def run_games(args: tuple) -> Outcome:
    game, seeds, noisy, *occupancy = args
    total = Outcome()
    for seed in seeds:
        total.add(referee_game(game, seed, noisy, *occupancy))
    return total
