"""``arbiter referee``: the Referee run offline over an observation log."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from .cli_options import UsageError, no_sparklies_options, sparklies_options
from .events import Event
from .games import Rules, rules_for
from .observation import Observation, ObservationError, Press, check_cells, read_log
from .record import Record, RecordedTurn, new_record, write_text
from .referee import Referee

_SQUARE = re.compile(r"([a-z])([0-9]+)$")


def sparklies_size(observations: list[Observation]) -> tuple[int, int]:
    """The board size a Sparklies log covers, from its square names."""
    width = height = 0
    for obs in observations:
        for name in obs.cells:
            m = _SQUARE.match(name)
            if m:
                width = max(width, ord(m.group(1)) - ord("a") + 1)
                height = max(height, int(m.group(2)))
    return width, height


def build_rules(args: argparse.Namespace, observations: list[Observation]) -> Rules:
    """The rules the log is refereed by; a Sparklies board from ``--start``, ``--size`` or
    the log's square names, in that order."""
    if args.game != "sparklies":
        no_sparklies_options(args.game, args.size, args.wrap)
        return rules_for(args.game, args.variant)
    seen = sparklies_size(observations) if not (args.start or args.size) else None
    if seen == (0, 0):
        raise UsageError(f"{args.observations}: the log names no Sparklies squares, so its board size is "
                         "unknown: give --size or --start")
    return rules_for("sparklies", args.variant, **sparklies_options(args.size, args.wrap, args.start, seen))


class GameRecords:
    """Collects the games an event stream contains, as records."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.games: list[tuple[dict[str, str], list[RecordedTurn]]] = []

    def add(self, event: Event) -> None:
        if event.type == "new-game":
            start = self.rules.parse_position(event.data["position"])
            record = new_record(self.rules, start=start)
            self.games.append((dict(record.tags), []))
        elif not self.games:
            return
        elif event.type == "move":
            self.games[-1][1].append(RecordedTurn(event.data["move"], event.data["ts"]))
        elif event.type == "takeback":
            del self.games[-1][1][event.data["to_turn"]:]
        elif event.type == "game-over":
            self.games[-1][0]["Result"] = event.data["result"]

    def records(self) -> list[Record]:
        return [Record(tags, tuple(turns)) for tags, turns in self.games]


def run_referee(args: argparse.Namespace, out: TextIO) -> int:
    items = list(read_log(args.observations))
    observations = [i for i in items if isinstance(i, Observation)]
    for item in items:
        if isinstance(item, ObservationError):
            print(f"{args.observations}: {item} (skipped)", file=sys.stderr)
    rules = build_rules(args, observations)
    start = rules.parse_position(args.start) if args.start else None
    coverage = None
    if args.coverage == "base":
        if rules.game == "sparklies":
            print("--coverage base is for the pyramid games (reed switches under the base hollows)", file=sys.stderr)
            return 2
        from .sources import BASE_HOLLOWS
        coverage = BASE_HOLLOWS
    referee = Referee(rules, start=start, coverage=coverage)
    names = referee.names
    records = GameRecords(rules)
    events_out = open(args.events, "w", encoding="utf-8") if args.events else out
    count = 0
    try:
        def emit(events: list[Event]) -> None:
            nonlocal count
            for event in events:
                count += 1
                records.add(event)
                events_out.write(event.to_line() + "\n")

        emit(referee.begin(observations[0].t if observations else 0.0))
        line_of = {id(i): n for n, i in enumerate(items, start=1)}
        for obs in items:
            if isinstance(obs, Press):
                emit(referee.observe(obs))
                continue
            if not isinstance(obs, Observation):
                continue
            try:
                check_cells(rules, obs, names)
            except ObservationError as exc:
                print(f"{args.observations}: line {line_of[id(obs)]}: {exc} (skipped)", file=sys.stderr)
                continue
            emit(referee.observe(obs))
        emit(referee.flush(observations[-1].t if observations else 0.0))
    finally:
        if args.events:
            events_out.close()
    if args.record:
        written = write_records(Path(args.record), records.records())
        for path in written:
            print(f"record written to {path}", file=sys.stderr)
    print(f"{len(observations)} observations, {count} events, {len(records.games)} games", file=sys.stderr)
    return 0


def write_records(path: Path, records: list[Record]) -> list[Path]:
    """One file per game: ``game.pgn``, then ``game-2.pgn``... (``.json`` writes JSON)."""
    from .record import write_json
    written = []
    for k, record in enumerate(records, start=1):
        target = path if k == 1 else path.with_name(f"{path.stem}-{k}{path.suffix}")
        text = write_json(record) if path.suffix == ".json" else write_text(record)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


def add_referee_parser(sub: Any) -> None:
    p = sub.add_parser("referee", help="run the referee offline over an observation log")
    p.add_argument("game", choices=("pylos", "sparks", "sparklies"))
    p.add_argument("--observations", required=True, help="observation log (JSON Lines)")
    p.add_argument("--variant")
    p.add_argument("--start", help="start position string (Sparklies: default the first uncontrolled board seen)")
    p.add_argument("--size", help="Sparklies board size WxH (default: from the log's square names)")
    p.add_argument("--wrap", action="store_true", help="Sparklies: wrap-around edges")
    p.add_argument("--coverage", choices=("all", "base"), default="all",
                   help="what the log's source sees: all (a camera) or base (reed switches under the 16 hollows)")
    p.add_argument("--events", help="write the events here (JSON Lines) instead of stdout")
    p.add_argument("--record", help="write the game record here (.pgn text or .json)")
    p.set_defaults(func=lambda args: run_referee(args, sys.stdout))

