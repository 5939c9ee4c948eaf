"""Read and write the text diagrams of Don Kirkby's open-source "shibumi-games" program
(Python/Qt) for Sparks positions, so positions can be exchanged with it.

The format, as its ``ShibumiGameState.display`` and ``SparksState.display`` write it: the
levels are drawn as separate blocks on one 7x7 label grid, columns A-G and rows 1-7. The base
uses the odd labels A C E G / 1 3 5 7, level 2 the even labels B D F / 2 4 6, level 3 C E /
3 5 and the top D / 4, so a ball is labelled with the point it sits over. Each block is a
column header, its rows highest first (row label, the cells separated by spaces, the row label
again) with an empty line between rows, and the header again; a block is indented by one space
per level. Blocks stop at the first empty level above the base. The last line says whose turn
it is: ``<W`` (White is to take a coal), or ``>`` and what is in hand while placing:
``>W, R`` (coal and spark), ``>W`` (coal only), ``>R`` (spark only; the line does not say
whose turn it is). The start position::

      A C E G
    7 W B W B 7

    5 B W B W 5

    3 W B W B 3

    1 B W B W 1
      A C E G
    <W

Mapping to this project: base label (column X, row n) is ``1`` + column + row with A C E G ->
a b c d and 1 3 5 7 -> 1 2 3 4; level-2 label B2 is ``2a1``, and so on (black on A1 = 1a1).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import NotationError
from .pyramid import NAMES, SUPPORTS, bits, index
from .sparks_core import BLACK, WHITE, SparksPosition, letter_at, names_and

__all__ = ["ShibumiHand", "read_shibumi", "write_shibumi"]

CELLS = "WBR."


@dataclass(frozen=True, slots=True)
class ShibumiHand:
    """The diagram's last line. ``adding`` False (``<``): the mover is to take a coal and holds
    nothing. ``adding`` True (``>``): the coal has been taken and the mover is placing; ``coal``
    and ``spark`` say which balls are still in hand."""

    adding: bool = False
    coal: bool = False
    spark: bool = False


def _header(height: int) -> str:
    n = 4 - height
    return " " * (height + 2) + " ".join(chr(ord("A") + height + 2 * col) for col in range(n))


def _row_label(height: int, row: int) -> str:
    """The label of 0-based ``row`` (from the bottom) on ``height`` (0 = base)."""
    return str(row * 2 + 1 + height)


def _hand_line(mover: int, hand: ShibumiHand) -> str:
    me = "W" if mover == WHITE else "B"
    if not hand.adding:
        return "<" + me
    held = ([me] if hand.coal else []) + (["R"] if hand.spark else [])
    if not held:
        raise ValueError("a placing hand ('>') holds the coal, the spark or both")
    return ">" + ", ".join(held)


def write_shibumi(position: SparksPosition, hand: ShibumiHand | None = None) -> str:
    """The diagram of ``position`` exactly as shibumi-games prints it (ending with a newline).
    ``hand`` describes a state in the middle of a turn (``>``); by default the mover is to
    take a coal (``<``)."""
    hand = hand or ShibumiHand()
    lines: list[str] = []
    occ = position.white | position.black | position.red
    for height in range(4):
        n = 4 - height
        level = height + 1
        cells = [[letter_at(position.white, position.black, position.red, index(level, c + 1, r + 1))
                  for c in range(n)] for r in range(n)]
        if height > 0 and not any(occ >> index(level, c + 1, r + 1) & 1
                                  for r in range(n) for c in range(n)):
            break
        header = _header(height)
        lines.append(header)
        for row in reversed(range(n)):
            label = _row_label(height, row)
            lines.append(" ".join([" " * height + label] + cells[row] + [label]))
            if row:
                lines.append("")
        lines.append(header)
    lines.append("")
    return "\n".join(lines) + _hand_line(position.to_move, hand) + "\n"


def _error(message: str, text: str, line_no: int, column: int | None = None,
           token: str | None = None) -> NotationError:
    err = NotationError(f"line {line_no + 1}: {message}", text=text, column=column, token=token)
    err.line = line_no + 1  # type: ignore[attr-defined]
    return err


def _read_hand(line: str, text: str, line_no: int, mover: str | None) -> tuple[int, ShibumiHand]:
    expected = "expected the last line '<W', '<B', '>W, R', '>B, R', '>W', '>B' or '>R'"
    if line in ("<W", "<B"):
        return (WHITE if line[1] == "W" else BLACK), ShibumiHand()
    if line in (">W", ">B", ">W, R", ">B, R"):
        return (WHITE if line[1] == "W" else BLACK), ShibumiHand(True, True, line.endswith(", R"))
    if line == ">R":
        if mover not in ("W", "B"):
            raise _error("'>R' (only the spark in hand) does not say whose turn it is: "
                         "pass mover='W' or mover='B'", text, line_no, 0, line)
        return (WHITE if mover == "W" else BLACK), ShibumiHand(True, False, True)
    col = 0
    for k, ch in enumerate(line):
        if k == 0 and ch not in "<>" or k == 1 and ch not in "WBR":
            col = k
            break
    else:
        col = min(len(line), 2)
    raise _error(expected, text, line_no, col, line or None)


def read_shibumi(text: str, *, mover: str | None = None) -> tuple[SparksPosition, ShibumiHand]:
    """Read a shibumi-games Sparks diagram: the position (its ``to_move`` is the player named
    on the last line) and the hand line. Trailing spaces and a missing final newline are
    accepted; anything else out of place raises NotationError naming the line and column.
    ``mover`` ('W' or 'B') is needed only for the ``>R`` line, which does not name a player."""
    if not isinstance(text, str):
        raise NotationError("expected the diagram as text")
    lines = [ln.rstrip() for ln in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise _error("empty diagram: expected the base level block and the hand line", text, 0, 0)
    last = len(lines) - 1
    masks = [0, 0, 0]
    where: dict[int, tuple[int, int]] = {}
    idx = 0
    for height in range(4):
        if idx >= last:
            if height == 0:
                raise _error("expected the base level block (header '  A C E G') before the hand line",
                             text, idx, 0)
            break
        if height > 0 and lines[idx][:1] in ("<", ">"):
            break  # the program stops at the first empty level
        idx = _read_level(lines, idx, height, last, text, masks, where)
    if idx != last:
        raise _error("unexpected line: expected the hand line ('<W', '>B, R', ...) to end the diagram",
                     text, idx, 0, lines[idx] or None)
    to_move, hand = _read_hand(lines[last], text, last, mover)
    occ = masks[0] | masks[1] | masks[2]
    for i in bits(occ):
        missing = SUPPORTS[i] & ~occ
        if missing:
            line_no, col = where[i]
            gone = [NAMES[j] for j in bits(missing)]
            raise _error(f"the ball on {NAMES[i]} is not supported: {names_and(gone)} "
                         f"{'is' if len(gone) == 1 else 'are'} empty", text, line_no, col,
                         letter_at(masks[0], masks[1], masks[2], i))
    return SparksPosition(masks[0], masks[1], masks[2], to_move), hand


def _read_level(lines: list[str], idx: int, height: int, last: int, text: str,
                masks: list[int], where: dict[int, tuple[int, int]]) -> int:
    """Read one level block starting at line ``idx``; returns the line after it."""
    n = 4 - height
    level = height + 1
    header = _header(height)

    def expect_header(k: int) -> None:
        if k >= last:
            raise _error(f"the level {level} block is cut short: expected its header {header.strip()!r}",
                         text, min(k, last), 0)
        if lines[k] != header:
            col = next((c for c, (a, b) in enumerate(zip(lines[k], header)) if a != b),
                       min(len(lines[k]), len(header)))
            raise _error(f"expected the level {level} column header {header!r}", text, k, col,
                         lines[k][col:col + 1] or None)

    expect_header(idx)
    idx += 1
    for row in reversed(range(n)):
        if idx >= last:
            raise _error(f"the level {level} block is cut short: expected row {_row_label(height, row)}",
                         text, min(idx, last), 0)
        label = _row_label(height, row)
        template = " " * height + label + " ?" * n + " " + label
        line = lines[idx]
        for k, want in enumerate(template):
            if k >= len(line):
                raise _error(f"row {label} of level {level} is cut short: expected {n} cells and the "
                             f"row label {label} again", text, idx, len(line))
            ch = line[k]
            if want == "?":
                if ch not in CELLS:
                    raise _error(f"unexpected {ch!r}: expected a cell W, B, R or .", text, idx, k, ch)
                col = (k - height - len(label)) // 2
                pos = index(level, col + 1, row + 1)
                if ch != ".":
                    masks["WBR".index(ch)] |= 1 << pos
                where[pos] = (idx, k)
            elif ch != want:
                if k < height:
                    what = f"a space (level {level} rows are indented by {height})"
                else:
                    what = "a space" if want == " " else f"the row label {label}"
                raise _error(f"unexpected {ch!r}: expected {what} (row {label} of level {level})",
                             text, idx, k, ch)
        if len(line) > len(template):
            raise _error(f"unexpected text after row {label} of level {level}", text, idx,
                         len(template), line[len(template):])
        idx += 1
        if row:
            if idx >= last or lines[idx]:
                raise _error(f"expected an empty line between rows {label} and "
                             f"{_row_label(height, row - 1)} of level {level}", text, min(idx, last), 0,
                             (lines[idx] if idx < len(lines) else "") or None)
            idx += 1
    expect_header(idx)
    return idx + 1
