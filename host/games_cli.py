"""``arbiter games list|show|export|delete``: the recorded games (docs/recording.md).

Exit codes: 0 done, 1 no such game (or deletion declined), 2 bad input or a database that
cannot be used. Results go to stdout, errors to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from .record import ordered_tags
from .recorder import EXPORT_FORMATS, GameNotFound, Recorder, RecorderError
from .recorder_types import GameDetail, GameSummary

__all__ = ["add_games_parser", "describe", "format_table", "main"]

PROG = "arbiter games"


class _Refused(Exception):
    """A request the command will not carry out; exit code attached."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def add_games_parser(subparsers: Any) -> None:
    """Add ``games`` and its sub-commands to the ``arbiter`` parser's sub-parsers."""
    p = subparsers.add_parser("games", help="list, show, export or delete recorded games",
                              description="The games recorded by the referee daemon (docs/recording.md).")
    p.add_argument("--db", metavar="PATH", help=f"the games database (default: {Recorder.default_path()})")
    # the same option after the sub-command; SUPPRESS keeps it from hiding one given before
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS, help="the games database")
    sub = p.add_subparsers(dest="games_command", required=True, metavar="ACTION")

    s = sub.add_parser("list", parents=[db], help="one line per recorded game")
    s.set_defaults(func=_run(cmd_list))

    s = sub.add_parser("show", parents=[db], help="a game's tags, turns, illegal-move episodes and takebacks")
    s.add_argument("id", type=_game_id)
    s.set_defaults(func=_run(cmd_show))

    s = sub.add_parser("export", parents=[db], help="a game as a record (text or JSON)")
    s.add_argument("id", type=_game_id)
    s.add_argument("--format", choices=EXPORT_FORMATS, default="pgn", help="pgn (text, default) or json")
    s.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    s.set_defaults(func=_run(cmd_export))

    s = sub.add_parser("delete", parents=[db], help="remove a game and everything recorded with it")
    s.add_argument("id", type=_game_id)
    s.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    s.set_defaults(func=_run(cmd_delete))


def _game_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"game id {text!r} is not a number (see 'arbiter games list')") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"game id {text!r}: ids start at 1")
    return value


def _run(command: Callable[[argparse.Namespace, Recorder], int]) -> Callable[[argparse.Namespace], int]:
    """Open the database, run ``command``, and turn failures into messages and exit codes."""

    def run(args: argparse.Namespace) -> int:
        path = Path(args.db) if args.db else Recorder.default_path()
        try:
            if not path.exists():
                if args.games_command == "list":
                    print(f"no games recorded yet ({path} does not exist)")
                    return 0
                raise _Refused(f"no game {args.id}: {path} does not exist", 1)
            with Recorder(path) as recorder:
                return command(args, recorder)
        except _Refused as exc:
            print(f"{PROG} {args.games_command}: {exc}", file=sys.stderr)
            return exc.code
        except GameNotFound as exc:
            print(f"{PROG} {args.games_command}: {exc}", file=sys.stderr)
            return 1
        except RecorderError as exc:
            print(f"{PROG} {args.games_command}: {exc}", file=sys.stderr)
            return 2

    return run


# -- list ------------------------------------------------------------------------------------

LIST_COLUMNS = ("id", "board", "game", "variant", "started", "turns", "result", "status")


def _list_row(g: GameSummary) -> tuple[str, ...]:
    return (str(g.id), g.board, g.game, g.variant, g.started, str(g.turns), g.result, g.status)


def format_table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    """Columns padded to their widest cell; numbers right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    numeric = [all(r[i].isdigit() for r in rows) and bool(rows) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace, recorder: Recorder) -> int:
    games = recorder.list_games()
    if not games:
        print(f"no games recorded yet in {recorder.path}")
        return 0
    print(format_table([_list_row(g) for g in games], LIST_COLUMNS))
    return 0


# -- show ------------------------------------------------------------------------------------


def _tag_line(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def describe(game: GameDetail) -> str:
    """The text of ``arbiter games show``."""
    s = game.summary
    out = [f"game {s.id}: {s.game} ({s.variant}) on {s.board}, {s.status}, result {s.result}",
           f"started {s.started}" + (f", ended {s.ended}" if s.ended else ""),
           f"start position: {game.start}", ""]
    tags = ordered_tags({**game.tags, "Result": s.result})
    out += [_tag_line(k, v) for k, v in tags] + [""]
    out.append(f"turns ({len(game.turns)}):")
    for t in game.turns:
        out.append(f"  {t.number:3}. {t.player or '':6} {t.text:18} {t.ts}")
    out.append(f"illegal-move episodes ({len(game.episodes)}):")
    for e in game.episodes:
        closed = (f"{e.closed_by} at event {e.closed} ({e.closed_at})" if e.closed is not None
                  else "still open")
        out.append(f"  event {e.opened} ({e.opened_at}): {e.reason}; {closed}")
        cells = [f"{c.get('cell')} expected {c.get('expected')!s} saw {c.get('seen')!s}"
                 for c in e.cells if isinstance(c, dict) or hasattr(c, "get")]
        if cells:
            out.append("    " + "; ".join(cells))
    out.append(f"takebacks ({len(game.takebacks)}):")
    for k in game.takebacks:
        out.append(f"  event {k.event} ({k.at}): from turn {k.from_turn} back to turn {k.to_turn}, "
                   f"undoing {' '.join(k.undone) or 'nothing'}")
    out.append(f"events recorded: {game.events}")
    return "\n".join(out)


def cmd_show(args: argparse.Namespace, recorder: Recorder) -> int:
    print(describe(recorder.get_game(args.id)))
    return 0


# -- export ----------------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace, recorder: Recorder) -> int:
    text = recorder.export(args.id, args.format)
    if not args.out:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _Refused(f"{args.out}: cannot write: {exc.strerror or exc}", 2) from None
    print(f"game {args.id} written to {args.out} ({args.format})")
    return 0


# -- delete ----------------------------------------------------------------------------------


def cmd_delete(args: argparse.Namespace, recorder: Recorder) -> int:
    game = recorder.get_game(args.id)
    s = game.summary
    players = " vs ".join(f"{name} ({colour})" for colour, name in s.players.items())
    what = f"game {s.id} ({s.game}, {s.turns} turns, {s.status} {s.result}, started {s.started}" + (
        f", {players})" if players else ")")
    if not args.yes:
        if not sys.stdin.isatty():
            raise _Refused(f"not deleting {what}: stdin is not a terminal, so nothing can be confirmed; "
                           "add --yes to delete without asking", 2)
        print(f"Delete {what} with its {game.events} events? [y/N] ", end="", flush=True)
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            print("not deleted")
            return 1
    recorder.delete(args.id)
    print(f"deleted {what}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m host.games_cli ...``: the same commands without the rest of ``arbiter``."""
    parser = argparse.ArgumentParser(prog="arbiter")
    add_games_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())

