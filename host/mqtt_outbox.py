"""Where the MQTT link takes the events it must deliver.

The daemon's outbox is the recorder's database (``Recorder.unsent``/``Recorder.mark_sent``),
so events raised while the broker is away survive a restart of the daemon too.
:class:`MemoryOutbox` is the same contract in memory, for a daemon that records nothing.
"""

from __future__ import annotations

import threading
from itertools import islice
from typing import Any, Mapping, Protocol


class Outbox(Protocol):
    """Events waiting for the broker's acknowledgement, oldest first.

    ``unsent(limit)`` gives up to ``limit`` ``(seq, event_json)`` pairs that are not marked
    sent, in increasing ``seq``; ``mark_sent(seq)`` marks one. The link calls both only
    from the thread that calls its own methods (the daemon's main thread), and marks
    events strictly in ``seq`` order. The event JSON may already carry ``seq`` (the
    recorder's does, with ``game_id``); the published payload's ``seq`` is always ``seq``.
    """

    def unsent(self, limit: int) -> list[tuple[int, dict[str, Any]]]: ...

    def mark_sent(self, seq: int) -> object: ...


class MemoryOutbox:
    """An in-memory :class:`Outbox`; ``add`` numbers events 1, 2, 3... unless given a seq."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: dict[int, dict[str, Any]] = {}
        self._last = 0

    def add(self, event_json: Mapping[str, Any], seq: int | None = None) -> int:
        with self._lock:
            seq = self._last + 1 if seq is None else seq
            if seq <= self._last:
                raise ValueError(f"event seq {seq} is not after the last one ({self._last})")
            self._events[seq] = dict(event_json)
            self._last = seq
            return seq

    def unsent(self, limit: int) -> list[tuple[int, dict[str, Any]]]:
        with self._lock:
            # insertion order is seq order: add() only appends larger seqs
            return [(seq, dict(event)) for seq, event in islice(self._events.items(), limit)]

    def mark_sent(self, seq: int) -> None:
        with self._lock:
            if seq not in self._events:
                raise KeyError(f"no event with seq {seq}")
            del self._events[seq]  # delivered: forgotten, so a long-running daemon does not grow

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._events)
