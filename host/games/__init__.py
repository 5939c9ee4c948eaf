"""The rules engines. ``rules_for('pylos', 'mature')`` gives a :class:`Rules` object; records
build one from their tags with :func:`rules_from_tags`."""

from __future__ import annotations

from typing import Mapping

from .base import (IllegalTurn, Inference, NotationError, OptionError, Outcome, Rules,
                   RulesError, Step, TurnInProgress)

GAMES = ("pylos", "sparks", "sparklies")
#: the keyword options each engine takes besides its variant
OPTIONS: dict[str, tuple[str, ...]] = {
    "pylos": ("reserve_rule",),
    "sparks": (),
    "sparklies": ("width", "height", "dead", "wrap"),
}

__all__ = ["GAMES", "IllegalTurn", "Inference", "NotationError", "OptionError", "Outcome",
           "Rules", "RulesError", "Step", "TurnInProgress", "rules_for", "rules_from_tags"]


def rules_for(game: str, variant: str | None = None, **options: object) -> Rules:
    """The rules of ``game`` with a variant and engine options (see docs/games/)."""
    game = game.lower()
    unknown = sorted(set(options) - set(OPTIONS.get(game, options)))
    if unknown:
        if not OPTIONS[game]:
            raise OptionError(f"{game} takes no options, not {unknown[0]!r}")
        raise OptionError(f"{game} has no option {unknown[0]!r} (options: {', '.join(OPTIONS[game])})")
    if game == "pylos":
        from .pylos import PylosRules
        return PylosRules(variant or "standard", **options)  # type: ignore[arg-type]
    if game == "sparks":
        from .sparks import SparksRules
        return SparksRules(variant or "standard", **options)  # type: ignore[arg-type]
    if game == "sparklies":
        from .sparklies import SparkliesRules
        return SparkliesRules(variant or "subtle", **options)  # type: ignore[arg-type]
    raise OptionError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")


def rules_from_tags(tags: Mapping[str, str]) -> Rules:
    """The rules a record's tags describe (``Game``, ``Variant`` and the game's own tags)."""
    if "Game" not in tags:
        raise OptionError("the record has no [Game] tag: expected pylos, sparks or sparklies")
    game = tags["Game"].lower()
    if game == "pylos":
        from .pylos import PylosRules
        return PylosRules.from_tags(tags)
    if game == "sparks":
        from .sparks import SparksRules
        return SparksRules.from_tags(tags)
    if game == "sparklies":
        from .sparklies import SparkliesRules
        return SparkliesRules.from_tags(tags)
    raise OptionError(f"unknown game {tags['Game']!r} in the [Game] tag: expected one of {', '.join(GAMES)}")
