"""Camera and reed switches together: ``--source serial:PORT+camera:0``.

The switches under the base hollows answer fast and never mistake a hand for a ball; the
camera sees colours and the levels above the base. :func:`merge` puts one observation of
each together. Where they disagree about a base hollow (a switch closed under a hollow the
camera sees empty, or the reverse) the hollow is reported unknown, so the referee neither
moves nor flags on it, and :class:`Fusion` reports the disagreement once it has lasted
longer than a camera's lag: one of the two sensors is wrong, and the players must know. The
report is a :class:`Notice` in the source's stream, which the daemon records and publishes
as a ``sensors-disagree`` event (``sensors-agree`` when it is over).
"""

from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from .observation import EMPTY, OCCUPIED, UNKNOWN, Observation, ObservationError, Press

log = logging.getLogger("arbiter.fusion")


@dataclass(frozen=True, slots=True)
class Notice:
    """Something a source found out about its sensors at time ``t``: ``kind``
    (``sensors-disagree`` or ``sensors-agree``), ``hollows`` and a ``detail`` for people."""

    t: float
    kind: str
    hollows: tuple[str, ...]
    detail: str

    def to_json(self) -> dict:
        return {"hollows": list(self.hollows), "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A base hollow the switches and the camera see differently."""

    hollow: str
    switch: str   # '#' or '.'
    camera: str   # a letter or '.'

    def describe(self) -> str:
        said = "a ball" if self.switch == OCCUPIED else "no ball"
        seen = {EMPTY: "empty", OCCUPIED: "holding a ball"}.get(self.camera, f"holding {self.camera}")
        return f"{self.hollow}: the reed switch says {said}, the camera sees it {seen}"


def merge(camera: Observation | None, switches: Observation | None, t: float,
          suspect: frozenset[str] = frozenset()) -> tuple[Observation, list[Disagreement]]:
    """One observation from the camera's and the switches' latest; the base hollows where
    they disagree are unknown, and listed. Where the camera cannot see (a hand), the switch
    is taken, unless its hollow is ``suspect`` (it disagreed with the camera last time the
    camera saw it): a stuck switch must not turn a passing hand into a ball."""
    cells: dict[str, str] = dict(camera.cells) if camera is not None else {}
    disagree: list[Disagreement] = []
    for hollow, switch in (switches.cells.items() if switches is not None else ()):
        seen = cells.get(hollow, UNKNOWN)
        if switch == UNKNOWN:
            continue
        if seen != UNKNOWN and (seen == EMPTY) != (switch == EMPTY):
            cells[hollow] = UNKNOWN
            disagree.append(Disagreement(hollow, switch, seen))
        elif seen in (UNKNOWN, OCCUPIED):  # a hand over it, or no colour read: the switch knows
            cells[hollow] = UNKNOWN if hollow in suspect else switch
    reserves = switches.reserves if switches is not None else None
    return Observation(t, cells, reserves), disagree


class Merger:
    """Merges the two sensors' observations as they come (in time order) and watches their
    disagreements. ``patience``: seconds a disagreement may last before it is reported (a
    camera frame lags the switches)."""

    def __init__(self, *, patience: float = 1.0,
                 report: Callable[[list[Disagreement], float], None] | None = None) -> None:
        self.patience = patience
        self.report = report or _log_disagreements
        self.camera: Observation | None = None
        self.switches: Observation | None = None
        self._since: dict[Disagreement, float] = {}
        self._reported: set[Disagreement] = set()
        self._suspect: frozenset[str] = frozenset()
        #: disagreements reported and ended, as notices for the stream (taken by :meth:`notices`)
        self._notices: list[Notice] = []

    def notices(self) -> list[Notice]:
        out, self._notices = self._notices, []
        return out

    def feed(self, camera: bool, obs: Observation) -> Observation | None:
        """A new observation from the camera (``camera``) or the switches: the merged board,
        or None before the switches have been read."""
        if camera:
            self.camera = obs
        else:
            self.switches = obs
        if self.switches is None:
            return None
        merged, disagree = merge(self.camera, self.switches, obs.t, self._suspect)
        seen = {n for n, v in (self.camera.cells.items() if self.camera else ()) if v != UNKNOWN}
        # a hollow stays suspect while the camera cannot see it again
        self._suspect = frozenset({d.hollow for d in disagree} | (self._suspect - seen))
        self._watch(disagree, obs.t)
        return merged

    def _watch(self, disagree: list[Disagreement], t: float) -> None:
        now = set(disagree)
        agreed = []
        for d in list(self._since):
            if d not in now:
                del self._since[d]
                if d in self._reported:
                    self._reported.discard(d)
                    agreed.append(d.hollow)
        if agreed:
            log.info("fusion: the camera and the reed switches agree again on %s at t=%.2f", " ".join(agreed), t)
            self._notices.append(Notice(t, "sensors-agree", tuple(agreed), "the camera and the reed switches agree"))
        for d in disagree:
            self._since.setdefault(d, t)
        due = [d for d, since in self._since.items() if d not in self._reported and t - since >= self.patience]
        if due:
            self._reported.update(due)
            self.report(due, t)
            self._notices.append(Notice(t, "sensors-disagree", tuple(d.hollow for d in due),
                                        "; ".join(d.describe() for d in due)))


class Fusion:
    """Reads both sources on their own threads and yields merged observations (one per new
    observation from either, through a :class:`Merger`) and the switches' button presses."""

    def __init__(self, camera: Iterable, switches: Iterable, *, patience: float = 1.0,
                 report: Callable[[list[Disagreement], float], None] | None = None) -> None:
        self.camera, self.switches = camera, switches
        self.merger = Merger(patience=patience, report=report)

    def __iter__(self) -> Iterator[Observation | Press | ObservationError | Notice]:
        items: queue.Queue = queue.Queue(maxsize=1000)
        done = object()

        def pump(which: str, source: Iterable) -> None:
            try:
                for item in source:
                    items.put((which, item))
            except Exception as exc:  # one sensor failing is reported; the other goes on
                items.put((which, ObservationError(f"{which} source failed: {exc}")))
            finally:
                items.put((which, done))

        for which, source in (("camera", self.camera), ("switches", self.switches)):
            threading.Thread(target=pump, args=(which, source), name=f"fusion {which}", daemon=True).start()
        running = 2
        while running:
            which, item = items.get()
            if item is done:
                running -= 1
            elif isinstance(item, (Press, ObservationError)):
                yield item
            else:
                merged = self.merger.feed(which == "camera", item)
                yield from self.merger.notices()
                if merged is not None:
                    yield merged


def _log_disagreements(found: list[Disagreement], t: float) -> None:
    log.warning("the camera and the reed switches disagree at t=%.2f: %s (left unknown: check the switch "
                "and the camera's view)", t, "; ".join(d.describe() for d in found))
