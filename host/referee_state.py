"""The referee's state as one JSON object: what the retained MQTT ``state`` message carries
(docs/mqtt.md, State). It holds everything a display draws (the move list, the flag, the
question, the last move's cells), so a display that starts mid-game needs no history of
events."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .games.base import diff_cells

if TYPE_CHECKING:
    from .referee import Referee

PLAYING, FLAGGED, AWAITING, FINISHED = "playing", "flagged", "awaiting-confirmation", "finished"


def referee_state(referee: "Referee") -> dict[str, Any]:
    rules, pos, positions = referee.rules, referee.position, referee.positions
    over = rules.outcome(pos) if pos is not None and referee.status == FINISHED else None
    movers = [rules.to_move(p) for p in positions[:-1]]
    return {
        "game": rules.game,
        "variant": rules.variant,
        "position": rules.format_position(pos) if pos is not None else None,
        "to_move": rules.to_move(pos) if pos is not None and referee.status != FINISHED else None,
        "turn": len(referee.turns),
        "status": referee.status,
        "last_move": rules.format_turn(referee.turns[-1]) if referee.turns else None,
        "result": referee.result,
        "players": dict(referee.players),
        "start": rules.format_position(positions[0]) if positions else None,
        "tags": game_tags(rules, positions[0] if positions else None),
        "moves": [{"move": rules.format_turn(turn), "player": player, "ts": ts}
                  for turn, player, ts in zip(referee.turns, movers, referee.stamps)],
        "changed": list(diff_cells(rules.cells(positions[-2]), rules.cells(pos))) if referee.turns else [],
        "reserves": rules.reserves(pos) if pos is not None else None,
        "flag": ({"reason": referee.flag_reason or "the board does not show a legal position",
                  "cells": [d.to_json() for d in referee.flag]} if referee.flag is not None else None),
        "question": ({"question": referee.question,
                      "candidates": [rules.format_turn(turn) for turn, _ in referee.candidates]}
                     if referee.status == AWAITING else None),
        "active": active_squares(referee),
        "reason": over.reason if over is not None else None,
    }


def game_tags(rules: Any, start: Any | None) -> dict[str, str]:
    """A game's record tags: its rules, and the start when it is not the usual one."""
    tags = {"Game": rules.game, **rules.tags()}
    if start is not None and (rules.game == "sparklies" or start != rules.start()):
        tags["Start"] = rules.format_position(start)
    return tags


def active_squares(referee: "Referee") -> list[str]:
    """Sparklies: the squares the turn in progress has changed so far (a colour or a marker),
    the chain as far as the board shows it; activation itself cannot be seen."""
    pending = referee.pending_cells
    if not referee.sparklies or pending is None or referee.position is None:
        return []
    before = referee.rules.cells(referee.position)
    return [n for n, v in pending.items() if v != before.get(n)]
