"""``arbiter display --tui``: the boards on a terminal, for a Raspberry Pi with a small screen
and no browser, or an SSH session.

Why a separate module: :func:`render` is pure (the views, the screen size and the link in,
the screen's lines out), so the layout is tested without a terminal; :func:`run` only owns
the terminal (alternate screen, hidden cursor, cbreak keys) and redraws when the
:class:`~host.display_model.Hall` changes. It takes the dicts of ``BoardView.view()`` (what
the web page gets too) and asks ``rules_of`` for the rules and position to draw the
diagram with; a display draws, it never decides.

Every line is cut to the width, never wrapped; flags come right after the header, so a short
screen loses the move list before it loses an ILLEGAL or a CONFIRM. Colour is only an extra
cue: the words ILLEGAL, CONFIRM, DISCONNECTED are always there. Text from the messages is
stripped of control characters, so a payload cannot drive the terminal.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import threading
import unicodedata
from itertools import zip_longest
from typing import IO, Any, Callable, Iterator, Sequence

from .display_model import BoardView
from .games import Rules

Segment = tuple[str, str]  # text, SGR style ("" for none)
Line = list[Segment]
RulesOf = Callable[[dict[str, Any]], "tuple[Rules, Any] | None"]

ALERT, ASK, WARN, BOLD, DIM = "1;7;31", "1;33", "33", "1", "2"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: the caption lines under the rules' diagrams, which the status and counts lines replace
CAPTION = re.compile(r"^(\w+( \(\w\))? to move\b|reserves:)")
MOVES_SHOWN = 5
ENTER, LEAVE = "\x1b[?1049h\x1b[?25l\x1b[2J", "\x1b[0m\x1b[?25h\x1b[?1049l"


def rules_from_view(view: dict[str, Any]) -> tuple[Rules, Any] | None:
    """The rules and position of a view (the default of :func:`render`; :func:`run` uses the
    hall's boards, which keep their rules): read as the display's model reads a state."""
    board = BoardView(str(view.get("board", "")))
    board.state = dict(view)
    rules, position = board.rules(), board.position()
    return (rules, position) if rules is not None and position is not None else None


def render(views: Sequence[dict[str, Any]], *, width: int, height: int, connected: bool,
           link_problem: str | None = None, board: str | None = None, colour: bool = False,
           rules_of: RulesOf = rules_from_view) -> list[str]:
    """The screen as at most ``height`` lines of at most ``width`` columns. ``views`` are
    ``BoardView.view()`` dicts; ``board`` picks the one drawn alone, else several boards are
    listed one a line above the first drawn in full."""
    lines: list[Line | None] = []  # None: a blank line, dropped first when the screen is short
    if not connected:
        lines.append([(f"DISCONNECTED from the broker: {link_problem or 'not connected'}", ALERT)])
    ids = [v["board"] for v in views]
    if board is not None and board not in ids:
        lines.append([(f"board {board}: nothing heard from it", WARN)])
        board = None
    if not views:
        lines.append([("waiting for boards on the broker…", "")])
    else:
        shown = views[ids.index(board)] if board is not None else views[0]
        if board is None and len(views) > 1:
            lines += [_summary(v, v is shown) for v in views] + [None]
        place = f"  [{ids.index(shown['board']) + 1}/{len(views)}]" if len(views) > 1 else ""
        lines += _board(shown, rules_of, place, width)
        room = height - len([line for line in lines if line is not None]) - 1
        if room > 0 and shown.get("log"):  # the events, on what is left of the screen
            lines += [None] + [[(str(e.get("text")), DIM)] for e in shown["log"][-room:] if isinstance(e, dict)]
    while lines and lines[-1] is None:
        lines.pop()
    if len(lines) > height:
        lines = [line for line in lines if line is not None]
    return [_fit(line or [], max(width, 0), colour) for line in lines[:max(height, 0)]]


def _summary(view: dict[str, Any], shown: bool) -> Line:
    """One board in the list: id, game, whose turn or what holds it, last move."""
    status, style = _short_status(view)
    last = view.get("last_move") or ""
    return [((">" if shown else " ") + f"{view['board']:<10} {view.get('game') or '?':<9} ", ""),
            (f"{status:<14}", style), (f" {last}", "")]


def _short_status(view: dict[str, Any]) -> tuple[str, str]:
    mover = view.get("to_move")
    if not view.get("online"):
        return "offline", WARN
    return {"flagged": ("ILLEGAL", ALERT), "awaiting-confirmation": ("CONFIRM", ASK),
            "finished": (f"over {view.get('result')}", BOLD)}.get(
        str(view.get("status")), (f"{mover.upper()} to move", "") if mover else ("no game", DIM))


def _board(view: dict[str, Any], rules_of: RulesOf, place: str, width: int) -> list[Line | None]:
    found = rules_of(view) if view.get("game") else None
    rules, position = found if found is not None else (None, None)
    title = " ".join(str(x) for x in (view.get("game"), view.get("variant")) if x) or "no game yet"
    lines: list[Line | None] = [[(str(view["board"]), BOLD), (f"  {title}  turn {view.get('turn', 0)}", ""),
                                 (place, DIM)]]
    lines += _alerts(view)
    lines.append(_status_line(view, rules))
    lines.append(None)
    art = _squeeze(_art(rules, position), width)
    counts = _counts(view, rules, position)
    moves = _moves(view)
    art_width = max((len(a) for a in art), default=0)
    if art and moves and width >= art_width + 3 + 16:  # the moves beside the board when they fit
        lines += [[((a or "").ljust(art_width) + "   ", ""), *(m or [])] for a, m in zip_longest(art, moves)]
        lines += [None, counts] if counts else []
    else:
        lines += [[(a, "")] for a in art] + ([None, counts] if counts else []) + ([None] + moves if moves else [])
    return lines


def _alerts(view: dict[str, Any]) -> list[Line | None]:
    out: list[Line | None] = []
    if not view.get("online"):
        out.append([("board offline: its last state is shown", WARN)])
    if view.get("problem"):
        out.append([(f"PROBLEM: {view['problem']}", WARN)])
    flag = view.get("flag")
    if isinstance(flag, dict):
        out.append([(f"ILLEGAL: {flag.get('reason') or 'the board does not show a legal position'}", ALERT)])
        cells = [c for c in flag.get("cells") or [] if isinstance(c, dict)]
        if cells:
            out.append([("at " + ", ".join(f"{c.get('cell')} (expected {c.get('expected')}, seen {c.get('seen')})"
                                           for c in cells), "1;31")])
    question = view.get("question")
    if isinstance(question, dict):
        out.append([(f"CONFIRM: {question.get('question') or 'which turn was played?'}", ASK)])
        numbered = [f"{k}) {c}" for k, c in enumerate(question.get("candidates") or [], 1)]
        out += [[("  " + "   ".join(numbered[k:k + 4]), ASK)] for k in range(0, len(numbered), 4)]
    sensors = [s for s in view.get("sensors") or [] if isinstance(s, dict)]
    if sensors:
        hollows = " ".join(str(s.get("hollow")) for s in sensors)
        detail = next((s.get("detail") for s in sensors if s.get("detail")), "")
        out.append([(f"SENSORS DISAGREE at {hollows}" + (f": {detail}" if detail else ""), WARN)])
    return out


def _status_line(view: dict[str, Any], rules: Rules | None) -> Line:
    players = view.get("players") or {}
    if view.get("status") == "finished":
        result = str(view.get("result") or "*")
        order = rules.players if rules is not None else ()
        winner = order[0] if result == "1-0" and order else order[1] if result == "0-1" and order else None
        name = f" ({players[winner]})" if winner in players else ""
        who = f"{winner.upper()} wins{name}" if winner else "DRAW" if result == "1/2-1/2" else result
        reason = f": {view['reason']}" if view.get("reason") else ""
        return [(f"GAME OVER {result}  {who}{reason}", BOLD)]
    mover = view.get("to_move")
    if not mover:
        return [("waiting for the game to start", DIM)]
    name = f" ({players[mover]})" if players.get(mover) else ""
    return [(f"{mover.upper()} to move", BOLD), (name, "")]


def _art(rules: Rules | None, position: Any) -> list[str]:
    if rules is None or position is None:
        return ["(no position to draw yet)"]
    art = [a.rstrip() for a in rules.diagram(position).splitlines()]
    while art and (CAPTION.match(art[-1]) or not art[-1]):
        art.pop()
    return art


def _squeeze(art: list[str], width: int) -> list[str]:
    """A diagram too wide for the screen without the blank columns beyond two in a row."""
    wide = max(map(len, art), default=0)
    if wide <= width:
        return art
    rows = [a.ljust(wide) for a in art]
    blank = [all(r[c] == " " for r in rows) for c in range(wide)]
    keep = [c for c in range(wide) if not (c >= 2 and blank[c] and blank[c - 1] and blank[c - 2])]
    return ["".join(r[c] for c in keep).rstrip() for r in rows]


def _counts(view: dict[str, Any], rules: Rules | None, position: Any) -> Line | None:
    n, game = view.get("counts") or {}, view.get("game")
    if not n:
        return None
    if game == "pylos":
        return [(f"reserves: light {n['light']}, dark {n['dark']}", "")]
    if game == "sparks":
        return [(f"on the board: W {n['white']}  B {n['black']}  R {n['sparks']}", "")]
    if game == "sparklies":
        return [(f"squares: black {n['black']}, white {n['white']}, uncontrolled {n['uncontrolled']}", "")]
    return None


def _moves(view: dict[str, Any]) -> list[Line]:
    moves = [m for m in view.get("moves") or [] if isinstance(m, dict)]
    if not moves:
        return []
    first = len(moves) - min(len(moves), MOVES_SHOWN) + 1
    out: list[Line] = [[("last moves", DIM)]]
    for n, m in enumerate(moves[-MOVES_SHOWN:], first):
        out.append([(f"{n:>3}. {m.get('player') or '':<6}{m.get('move')}", BOLD if n == len(moves) else "")])
    return out


def _columns(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _clean(text: str) -> str:
    return "".join("?" if unicodedata.category(ch) in ("Cc", "Cf") else ch for ch in text)


def _fit(line: Line, width: int, colour: bool) -> str:
    """The segments cut to ``width`` visible columns, in colour or plain."""
    pieces: list[Segment] = []
    used = 0
    for text, style in line:
        kept = []
        for ch in _clean(text):
            if used + _columns(ch) > width:
                break
            kept.append(ch)
            used += _columns(ch)
        pieces.append(("".join(kept), style))
        if len(kept) < len(text):
            break
    while pieces and (not pieces[-1][1] or not pieces[-1][0].strip()):  # no trailing blanks
        pieces[-1] = (pieces[-1][0].rstrip(), pieces[-1][1])
        if pieces[-1][0]:
            break
        pieces.pop()
    return "".join(f"\x1b[{style}m{text}\x1b[0m" if colour and style else text for text, style in pieces if text)


def visible_width(line: str) -> int:
    """The columns a rendered line takes on the screen (escape sequences take none)."""
    return sum(_columns(ch) for ch in ANSI.sub("", line))


# -- the terminal ------------------------------------------------------------------------
def run(hall: Any, *, out: IO[str], stop: threading.Event, board: str | None = None,
        keys: IO[str] | None = None, size: Callable[[], tuple[int, int]] = lambda: tuple(shutil.get_terminal_size()),
        colour: bool | None = None) -> int:
    """Draw ``hall`` on ``out`` until ``q`` is typed on ``keys`` or ``stop`` is set; 0.
    ``n``/``p`` show the next/previous board, ``1``-``9`` one board, ``0`` the list."""
    fd = _fileno(out)
    tty = fd is not None and os.isatty(fd)
    if colour is None:
        colour = tty and not os.environ.get("NO_COLOR")
    selected, drawn, version = board, None, hall.version
    try:
        with _terminal(out, tty, keys):
            while True:
                if keys is not None:
                    typed = _read_keys(keys)
                    if typed is None:
                        keys = None  # end of the input: keep drawing
                    for ch in (typed or "").split("\x1b")[0]:  # not the function keys' sequences
                        if ch in "qQ":
                            return 0
                        selected = _choose(ch, selected, [v.board_id for v in hall.online()])
                cols, rows = size()
                if (version, cols, rows, selected) != drawn:
                    lines = _screen(hall, selected, cols, rows, colour)
                    out.write(_frame(lines, cols, rows, clear=drawn is not None and drawn[1:3] != (cols, rows)))
                    out.flush()
                    drawn = (version, cols, rows, selected)
                if stop.is_set():
                    return 0
                version = hall.wait(version, 0.1 if keys is not None else 0.5)
    except KeyboardInterrupt:
        return 0


def _screen(hall: Any, selected: str | None, cols: int, rows: int, colour: bool) -> list[str]:
    """The hall's online boards (and the one chosen, even offline) rendered."""
    views = hall.views(also=selected)
    return render(views, width=cols, height=rows, connected=hall.connected, link_problem=hall.link_problem,
                  board=selected, colour=colour, rules_of=_hall_rules(hall))


def _frame(lines: list[str], cols: int, rows: int, *, clear: bool) -> str:
    """The whole screen, overwritten in place: no blank frame, so no flicker. A full line
    gets no erase (at the pending wrap it would erase its last character)."""
    parts = ["\x1b[2J" if clear else "", "\x1b[H"]
    for k, line in enumerate(lines):
        parts += ["\r\n" if k else "", line, "\x1b[K" if visible_width(line) < cols else ""]
    if len(lines) < rows:
        parts.append("\r\n\x1b[J" if lines else "\x1b[J")
    return "".join(parts)


def _choose(ch: str, selected: str | None, ids: list[str]) -> str | None:
    """The board shown after the key ``ch``: None is the list (with the first board)."""
    order: list[str | None] = [None, *ids]
    at, step = order.index(selected) if selected in order else 0, {"n": 1, "p": -1}.get(ch)
    if step is not None:
        return order[(at + step) % len(order)]
    return order[int(ch)] if ch.isdigit() and int(ch) < len(order) else selected


def _hall_rules(hall: Any) -> RulesOf:
    def rules_of(view: dict[str, Any]) -> tuple[Rules, Any] | None:
        found = hall.board(view["board"])
        rules, position = (found.rules(), found.position()) if found is not None else (None, None)
        return (rules, position) if rules is not None and position is not None else None
    return rules_of


def _fileno(stream: Any) -> int | None:
    try:
        return int(stream.fileno())
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is both
        return None


def _read_keys(keys: IO[str]) -> str | None:
    """What was typed, without waiting: "" for nothing, None at the end of the input."""
    fd = _fileno(keys)
    if fd is None:
        return keys.read(64) or None  # an in-memory file never blocks
    if not select.select([fd], [], [], 0)[0]:
        return ""
    data = os.read(fd, 64)
    return data.decode("utf-8", "replace") if data else None


@contextlib.contextmanager
def _terminal(out: IO[str], tty: bool, keys: IO[str] | None) -> Iterator[None]:
    """The alternate screen without a cursor on a terminal, and its keys one at a time and
    not echoed; both restored after, whatever happens."""
    fd = _fileno(keys) if keys is not None else None
    saved = None
    if fd is not None and os.isatty(fd):
        import termios
        import tty as tty_mode
        saved = termios.tcgetattr(fd)
        tty_mode.setcbreak(fd)
    try:
        if tty:
            out.write(ENTER)
            out.flush()
        yield
    finally:
        if tty:
            out.write(LEAVE)
            out.flush()
        if saved is not None:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
