"""The ``arbiter`` command line. Exit codes: 0 success, 1 a rules verdict against the input
(an illegal turn, no turn found), 2 input that could not be read or, for ``infer``, no answer
within the budget. Results go to stdout, errors to stderr."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from . import __version__
from .cli_options import UsageError, no_sparklies_options, sparklies_options
from .games import GAMES, Rules, RulesError, rules_for
from .record import RecordError, read_any, replay
from .referee_cli import add_referee_parser
from .vision_cli import add_vision_parsers
from .run_cli import add_run_parser


def _read_file(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start}): not a game record") from None


def guess_game(text: str) -> str:
    """Which game a position string belongs to, from its shape."""
    fields = text.split()
    if fields and fields[0].count("/") == 3 and "," in fields[0]:
        return "pylos" if len(fields) == 4 else "sparks"
    return "sparklies"


def _rules(game: str, variant: str | None, position_text: str | None = None, size: str | None = None,
           wrap: bool = False) -> Rules:
    if game != "sparklies":
        no_sparklies_options(game, size, wrap)
        return rules_for(game, variant)
    if position_text is None:
        raise UsageError("sparklies needs a position: its board size and colours are not fixed")
    return rules_for(game, variant, **sparklies_options(size, wrap, position_text))


# -- commands ------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        record = read_any(_read_file(args.file))
        result = replay(record)
    except RecordError as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    rules = result.rules
    final = rules.format_position(result.final)
    if args.json:
        out: dict[str, Any] = {"ok": result.ok, "turns": len(result.turns), "final": final, "result": result.result}
        if result.error:
            out["error"] = {"turn": result.error.turn, "move": result.error.move, "reason": result.error.reason}
        print(json.dumps(out))
    elif result.ok:
        print(f"{len(result.turns)} turns, all legal")
        print(f"final: {final}")
        print(f"result: {result.result}")
    else:
        err = result.error
        assert err is not None
        where = f"turn {err.turn} ({err.move})" if err.turn is not None else "result"
        print(f"{args.file}: illegal {where}: {err.reason}")
        print(f"last legal position: {final}")
    return 0 if result.ok else 1


def cmd_legal(args: argparse.Namespace) -> int:
    rules = _rules(args.game, args.variant, args.position)
    if args.game == "sparklies":
        raise UsageError("sparklies turns can cycle forever, so they are not listed; use 'arbiter infer'")
    position = rules.parse_position(args.position) if args.position else rules.start()
    turns = [rules.format_turn(t) for t in rules.legal_turns(position)]
    if args.count:
        print(len(turns))
    else:
        for t in turns:
            print(t)
    return 0


def cmd_infer(args: argparse.Namespace) -> int:
    rules = _rules(args.game, args.variant, args.before, args.size, args.wrap)
    before = rules.parse_position(args.before)
    after = rules.parse_position(args.after)
    answer = rules.infer(before, after, budget_ms=args.budget_ms)
    turn = rules.format_turn(answer.turn) if answer.turn is not None else None
    if args.json:
        print(json.dumps({"status": answer.status, "turn": turn, "unexplained": list(answer.unexplained),
                          "reason": answer.reason}))
    elif answer.status == "found":
        print(turn)
    elif answer.status == "none":
        print(f"no legal turn: {answer.reason}")
        if answer.unexplained:
            print("unexplained: " + " ".join(answer.unexplained))
    else:
        print(f"undecided within {args.budget_ms:g} ms: {answer.reason}")
    return {"found": 0, "none": 1}.get(answer.status, 2)


def cmd_show(args: argparse.Namespace) -> int:
    if args.position:
        game = args.game or guess_game(args.position)
        rules = _rules(game, args.variant, args.position)
        position = rules.parse_position(args.position)
        print(rules.diagram(position))
        return 0
    if not args.record:
        raise UsageError("give a record file or --position STRING")
    try:
        result = replay(read_any(_read_file(args.record)))
    except RecordError as exc:
        raise UsageError(f"{args.record}: {exc}") from None
    rules = result.rules
    n = len(result.turns) if args.turn is None else args.turn
    if not 0 <= n <= len(result.turns):
        raise UsageError(f"--turn {n}: the record has {len(result.turns)} legal turns")
    print(f"{rules.game} ({rules.variant}), after {n} of {len(result.turns)} turns")
    moves = [rules.format_turn(t) for t in result.turns[:n]]
    for k in range(0, len(moves), 2):
        print(f"{k // 2 + 1:3}. " + "  ".join(moves[k:k + 2]))
    print(rules.diagram(result.positions[n]))
    if n == len(result.turns):
        print(f"result: {result.result}")
    if result.error:
        print(f"warning: turn {result.error.turn} ({result.error.move}) is illegal: {result.error.reason}",
              file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Everything at once on embedded defaults (host/demo.py); Ctrl-C stops it cleanly."""
    from .demo import run_demo
    from .signals import stop_on_signals
    return run_demo(args, stop=stop_on_signals())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arbiter", description="Tabletop Arbiter: referee for Pylos, Sparks and Sparklies")
    parser.add_argument("--version", action="version", version=f"arbiter {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("replay", help="check a game record turn by turn")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("legal", help="list every legal turn (pyramid games)")
    p.add_argument("game", choices=GAMES)
    p.add_argument("--variant")
    p.add_argument("--position", help="position string (default: the start)")
    p.add_argument("--count", action="store_true", help="print only how many")
    p.set_defaults(func=cmd_legal)

    p = sub.add_parser("infer", help="find a legal turn from one position to another")
    p.add_argument("game", choices=GAMES)
    p.add_argument("--before", required=True)
    p.add_argument("--after", required=True)
    p.add_argument("--variant")
    p.add_argument("--size", help="Sparklies board size WxH (default: read from the position)")
    p.add_argument("--wrap", action="store_true", help="Sparklies: wrap-around edges")
    p.add_argument("--budget-ms", type=float, default=1000.0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_infer)

    p = sub.add_parser("show", help="draw a record's position or a position string as text")
    p.add_argument("record", nargs="?")
    p.add_argument("--position")
    p.add_argument("--game", choices=GAMES, help="game of --position (default: guessed from its shape)")
    p.add_argument("--variant")
    p.add_argument("--turn", type=int, help="show the position after this many turns")
    p.set_defaults(func=cmd_show)

    add_referee_parser(sub)
    add_run_parser(sub)
    from .leds_cli import add_leds_parser
    add_leds_parser(sub)
    from .display_cli import add_display_parser
    add_display_parser(sub)

    p = sub.add_parser("demo", help="the whole system on embedded defaults: simulated boards, referee, broker, "
                       "recorder, web display and LEDs")
    p.add_argument("--game", choices=GAMES, help="play only this game's example (default: each in turn)")
    p.add_argument("--speed", type=float, default=2.0, help="how fast the players play: 1 real time, 5 five times "
                   "as fast, 0 no waiting (default 2)")
    p.add_argument("--no-browser", action="store_true", help="do not open the web display in a browser")
    p.add_argument("--no-display", action="store_true", help="no web display at all")
    p.add_argument("--stay", action="store_true", help="keep the web display up after the games, until Ctrl-C")
    p.add_argument("--camera", action="store_true", help="render every frame and read it with vision (slower)")
    p.add_argument("--port", type=int, default=8080, help="web display port (default 8080, or any free one)")
    p.add_argument("--mqtt-port", type=int, default=1883, help="embedded broker port (default 1883, or any free one)")
    p.add_argument("--dir", default="arbiter-demo", help="where the games database and records go "
                   "(default ./arbiter-demo, emptied first)")
    p.set_defaults(func=cmd_demo)

    from .games_cli import add_games_parser
    add_games_parser(sub)
    add_vision_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"arbiter {args.command}: {exc}", file=sys.stderr)
    except RulesError as exc:
        print(f"arbiter {args.command}: {exc}", file=sys.stderr)
    except OSError as exc:
        print(f"arbiter {args.command}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"arbiter {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
