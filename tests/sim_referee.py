"""Simulated games through the Referee, compared with the simulator's ground truth (shared by
the end-to-end tests and the referee benchmark)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from host.games import rules_for
from host.referee import Referee
from host.sim import SimConfig, simulate_game

NOISY = dict(hands=0.2, flicker=0.05, illegal=0.1, takeback=0.1)
OPTIONS = {"sparklies": {"width": 4, "height": 4}}


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
    observations: int = 0
    failures: list = field(default_factory=list)

    def add(self, other: "Outcome") -> None:
        for name in ("games", "exact", "injected", "flagged", "false_flags", "takebacks", "takebacks_seen",
                     "confirmations", "observations"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures


def referee_game(game: str, seed: int, noisy: bool) -> Outcome:
    """One simulated game refereed; a confirmation is answered with the true turn, as the
    players would."""
    rules = rules_for(game, **OPTIONS.get(game, {}))
    config = SimConfig(seed=seed, game=game, **(NOISY if noisy else {}))
    sim = simulate_game(rules, random.Random(seed), config)
    truth = sim.truth
    referee = Referee(rules, start=rules.parse_position(truth.start))
    events = referee.begin(0.0)
    for obs in sim.observations:
        out = referee.observe(obs)
        for event in list(out):
            if event.type == "confirm-needed":
                want = truth.positions[len(referee.turns)]
                for turn, after in referee.candidates:
                    if rules.format_position(after) == want:
                        out += referee.command("confirm", obs.t, {"move": rules.format_turn(turn)})
                        break
        events += out
    events += referee.flush(sim.observations[-1].t)
    result = Outcome(games=1, observations=len(sim.observations))
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


def run_games(args: tuple[str, range, bool]) -> Outcome:
    game, seeds, noisy = args
    total = Outcome()
    for seed in seeds:
        total.add(referee_game(game, seed, noisy))
    return total
