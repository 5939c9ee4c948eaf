"""The games one board can referee, and what switches it from one to another.

One pyramid board serves Pylos and Sparks; a Sparklies grid serves Sparklies of its size.
The daemon switches game on a ``new-game`` command naming another game, and by itself when,
after a finished game (or before the first turn of one it started by itself), the board
shows the start position of another game of the board: the Pylos start is the empty
pyramid, the Sparks start its full checkered base. docs/configuration.md describes it.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .config import RULE_KEYS, ConfigError, board_kind, rule_options
from .games import Rules, RulesError, rules_for
from .observation import Observation, ObservationError, check_cells


def describe_board(rules: Rules) -> str:
    """The board ``rules`` need, in words: ``a pyramid``, ``a 9x9 grid``."""
    if board_kind(rules.game) == "grid":
        return f"a {rules.width}x{rules.height} grid"  # type: ignore[attr-defined]
    return "a pyramid"


def unplayable(rules: Rules, board: Rules) -> str | None:
    """Why ``rules`` cannot be played on the board ``board`` is refereeing, or None."""
    need, have = board_kind(rules.game), board_kind(board.game)
    if need != have:
        return f"{rules.game} needs a {need} board; this board is {describe_board(board)}"
    if describe_board(rules) != describe_board(board):
        return (f"{rules.game} on {describe_board(rules)} needs that board; this board is {describe_board(board)} "
                "(set rules.size and restart the daemon to change it)")
    return None


def options_of(rules: Rules) -> dict[str, Any]:
    """The engine options that build ``rules`` again with :func:`host.games.rules_for`."""
    if rules.game == "pylos":
        return {"reserve_rule": rules.reserve_rule}  # type: ignore[attr-defined]
    if rules.game == "sparklies":
        return {"width": rules.width, "height": rules.height,  # type: ignore[attr-defined]
                "dead": list(rules.dead_names), "wrap": rules.wrap}  # type: ignore[attr-defined]
    return {}


def same_rules(a: Rules, b: Rules) -> bool:
    """Whether two rules objects are one game with one variant and the same options."""
    return a.game == b.game and a.tags() == b.tags()


def rules_with(base: Rules, variant: str | None, overrides: Mapping[str, Any]) -> Rules:
    """``base`` with another variant and some [rules]-style options (``size``, ``dead``,
    ``wrap``, ``reserve_rule``); RulesError or ConfigError naming what does not fit."""
    foreign = [key for key in overrides if key not in RULE_KEYS[base.game]]
    if foreign:
        own = ", ".join(RULE_KEYS[base.game]) or "none"
        raise ConfigError(f"rules.{foreign[0]} is not a rule of {base.game} (its rules: {own})")
    options = {**options_of(base), **rule_options(base.game, overrides)}
    return rules_for(base.game, variant or base.variant, **options)


def configured_rules(config: Any, started: Rules) -> dict[str, Rules]:
    """The rules each game of the board starts with: ``started`` for its game; for the
    others the configuration's [rules] (and ``variant`` when it is that game's)."""
    out = {}
    for game in config.board_games(started.game):
        if game == started.game:
            out[game] = started
            continue
        variant = config.variant if game == config.game else None
        try:
            out[game] = rules_for(game, variant, **config.rule_options(game))
        except RulesError as exc:
            raise ConfigError(f"{game}, a game of this board (games): {exc}") from None
    return out


class _Steady:
    """Whether the board has shown the same cells for ``frames`` observations spanning
    ``seconds``: a start position counts only once it is set up, not while hands pass."""

    def __init__(self, frames: int, seconds: float):
        self.frames, self.seconds = frames, seconds
        self._key: tuple | None = None
        self._count = 0
        self._since = 0.0

    def feed(self, obs: Observation) -> bool:
        key = tuple(sorted(obs.cells.items()))
        if key != self._key:
            self._key, self._count, self._since = key, 0, obs.t
        self._count += 1
        return self._count >= self.frames and obs.t - self._since >= self.seconds


class StartWatch:
    """Spots another game's start position on a steady board. Every cell the source sees
    must show exactly the start (``#`` or ``?`` leave doubt), so reed switches, which see
    the Sparks start as sixteen occupied hollows like most ends of Pylos, never switch to
    Sparks by themselves; the empty board is unmistakable."""

    def __init__(self, candidates: Iterable[Rules], *, frames: int, seconds: float,
                 coverage: frozenset[str] | None):
        self.candidates = [r for r in candidates if board_kind(r.game) == "pyramid"]
        self.coverage = coverage
        self._steady = _Steady(frames, seconds)
        self._starts = [(r, r.cells(r.start())) for r in self.candidates]

    def feed(self, obs: Observation) -> Rules | None:
        """The rules whose start the board steadily shows, or None."""
        steady = self._steady.feed(obs)
        if not steady:
            return None
        for rules, start in self._starts:
            names = start.keys() if self.coverage is None else self.coverage & start.keys()
            if names and all(obs.cells.get(n) == start[n] for n in names):
                return rules
        return None

    def fits(self, obs: Observation) -> Rules | None:
        """A candidate whose pieces the board shows (one being set up), or None."""
        for rules, start in self._starts:
            try:
                check_cells(rules, obs, frozenset(start))
            except ObservationError:
                continue
            return rules
        return None
