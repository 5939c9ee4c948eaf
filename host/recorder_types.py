"""The values the recorder hands out: immutable snapshots of what the database holds, so
callers (the daemon, ``arbiter games``) never see a half-applied transaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .record import Record, RecordedTurn

IN_PROGRESS = "in-progress"
FINISHED = "finished"
ABANDONED = "abandoned"


@dataclass(frozen=True, slots=True)
class TurnRow:
    """One accepted turn: its number in the game, the text, who played it, its wall-clock
    time and the position string after it."""

    number: int
    text: str
    player: str | None
    ts: str
    position: str | None
    event: int


@dataclass(frozen=True, slots=True)
class IllegalEpisode:
    """A period during which the board showed an illegal position: from the ``illegal`` event
    ``opened`` until the ``restored`` or ``takeback`` event ``closed`` (None while open)."""

    id: int
    opened: int
    closed: int | None
    closed_by: str | None
    reason: str
    cells: tuple[Mapping[str, Any], ...]
    opened_at: str
    closed_at: str | None


@dataclass(frozen=True, slots=True)
class Takeback:
    """Turns taken back: the game went from ``from_turn`` turns to ``to_turn``; ``undone``
    are the texts of the removed turns in game order."""

    id: int
    event: int
    from_turn: int
    to_turn: int
    undone: tuple[str, ...]
    at: str


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A line of ``arbiter games list``."""

    id: int
    board: str
    game: str
    variant: str
    started: str
    ended: str | None
    turns: int
    result: str
    status: str
    players: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class GameDetail:
    """Everything recorded about one game (``arbiter games show``)."""

    summary: GameSummary
    tags: Mapping[str, str]
    start: str
    turns: tuple[TurnRow, ...]
    episodes: tuple[IllegalEpisode, ...]
    takebacks: tuple[Takeback, ...]
    events: int

    @property
    def id(self) -> int:
        return self.summary.id

    def record(self) -> Record:
        """The game as a record (docs/formats.md): stored tags, the game's result, and every
        turn with its ``[%ts]``."""
        tags = {**self.tags, "Result": self.summary.result}
        return Record(tags, tuple(RecordedTurn(t.text, t.ts) for t in self.turns))


@dataclass(frozen=True, slots=True)
class GameState:
    """The unfinished game of a board, for the daemon to resume after a restart: replay
    :meth:`record` (``host.record.replay``) to rebuild the position."""

    id: int
    board: str
    tags: Mapping[str, str]
    start: str
    turns: tuple[RecordedTurn, ...]
    players: Mapping[str, str]
    started: str
    #: the open illegal episode, if the game was flagged when the program stopped
    flagged: IllegalEpisode | None
    #: the position string after the last turn (the start position when none was played; None
    #: when the last move event carried no position)
    position: str | None
    #: seq of the last event recorded for this game
    last_event: int | None

    @property
    def game(self) -> str:
        return self.tags["Game"]

    @property
    def turn_texts(self) -> tuple[str, ...]:
        return tuple(t.text for t in self.turns)

    def record(self) -> Record:
        return Record({**self.tags, "Result": "*"}, self.turns)
