"""Geometry of the 4x4 pyramid shared by Pylos and Sparks.

Positions are plain ints 0..29: level 1 (4x4) is 0..15, level 2 (3x3) 16..24, level 3 (2x2)
25..28 and the top 29; within a level, index = (row - 1) * size + (column - 1). A set of
positions is an int bitmask. Every table is built once at import time and never changes.
Names are level, column letter, row: ``1a1``, ``2b3``, ``4a1``; ``2a1`` rests on
``1a1 1b1 1a2 1b2``.
"""

from __future__ import annotations


from .base import NotationError, bits  # noqa: F401  (bits: part of this module's interface)

LEVELS: tuple[int, ...] = (1, 2, 3, 4)
SIZE: dict[int, int] = {1: 4, 2: 3, 3: 2, 4: 1}
OFFSET: dict[int, int] = {1: 0, 2: 16, 3: 25, 4: 29}
COUNT = 30
TOP = 29
ALL = (1 << COUNT) - 1
COLUMNS = "abcd"


def index(level: int, column: int, row: int) -> int:
    """Index of the position at 1-based ``column`` and ``row`` of ``level``."""
    return OFFSET[level] + (row - 1) * SIZE[level] + (column - 1)


LEVEL: tuple[int, ...] = tuple(lv for lv in LEVELS for _ in range(SIZE[lv] ** 2))
COLUMN: tuple[int, ...] = tuple(c for lv in LEVELS for r in range(SIZE[lv]) for c in range(1, SIZE[lv] + 1))
ROW: tuple[int, ...] = tuple(r for lv in LEVELS for r in range(1, SIZE[lv] + 1) for _ in range(SIZE[lv]))
NAMES: tuple[str, ...] = tuple(f"{LEVEL[i]}{COLUMNS[COLUMN[i] - 1]}{ROW[i]}" for i in range(COUNT))
BY_NAME: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
LEVEL_MASK: dict[int, int] = {
    lv: sum(1 << i for i in range(COUNT) if LEVEL[i] == lv) for lv in LEVELS
}


def _supports(i: int) -> int:
    lv, c, r = LEVEL[i], COLUMN[i], ROW[i]
    if lv == 1:
        return 0
    return sum(1 << index(lv - 1, c + dc, r + dr) for dc in (0, 1) for dr in (0, 1))


#: SUPPORTS[i]: mask of the four balls position i rests on (0 on level 1)
SUPPORTS: tuple[int, ...] = tuple(_supports(i) for i in range(COUNT))
#: ABOVE[i]: mask of the positions that rest on i (up to four)
ABOVE: tuple[int, ...] = tuple(
    sum(1 << j for j in range(COUNT) if SUPPORTS[j] >> i & 1) for i in range(COUNT)
)
#: every 2x2 square on a level, as a mask; SQUARES_THROUGH[i] the squares that contain i
SQUARES: tuple[int, ...] = tuple(SUPPORTS[j] for j in range(COUNT) if SUPPORTS[j])
SQUARES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(sq for sq in SQUARES if sq >> i & 1) for i in range(COUNT)
)


def _lines() -> tuple[int, ...]:
    """Orthogonal full lines on levels 1 and 2 (the mature variant's alignments)."""
    out = []
    for lv in (1, 2):
        n = SIZE[lv]
        for k in range(1, n + 1):
            out.append(sum(1 << index(lv, c, k) for c in range(1, n + 1)))
            out.append(sum(1 << index(lv, k, r) for r in range(1, n + 1)))
    return tuple(out)


LINES: tuple[int, ...] = _lines()
LINES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(ln for ln in LINES if ln >> i & 1) for i in range(COUNT)
)


def supported(i: int, occupied: int) -> bool:
    """Whether a ball may stand at ``i`` given the occupied positions (``i`` itself empty)."""
    return SUPPORTS[i] & occupied == SUPPORTS[i]


_UPPER: tuple[tuple[int, int, int], ...] = tuple(
    (i, 1 << i, SUPPORTS[i]) for i in range(COUNT) if LEVEL[i] > 1
)


def free_spots(occupied: int) -> int:
    """Mask of the empty positions where a ball may be put. Every empty base hollow is
    one, so only the 14 upper positions need their supports checked (the hot path of
    move generation)."""
    out = LEVEL_MASK[1] & ~occupied
    for i, bit, sup in _UPPER:
        if occupied & sup == sup and not occupied & bit:
            out |= bit
    return out


def parse_name(token: str, *, text: str = "", column: int | None = None) -> int:
    """The index of a position name such as ``2b3``; NotationError otherwise."""
    try:
        return BY_NAME[token]
    except KeyError:
        raise NotationError(
            "expected a pyramid position: level 1-4, column and row inside that level "
            "(1a1..1d4, 2a1..2c3, 3a1..3b2, 4a1)",
            text=text, column=column, token=token,
        ) from None


def parse_levels(text: str, letters: str) -> tuple[dict[str, int], int]:
    """Parse the board part of a pyramid position string (``<l1>/<l2>/<l3>/<l4>``, highest
    row first, rows split by ``,``) into one mask per letter in ``letters``; also returns
    the length consumed. Raises NotationError naming the column."""
    masks = {ch: 0 for ch in letters}
    levels = text.split("/")
    if len(levels) != 4:
        raise NotationError(f"expected 4 levels separated by '/', found {len(levels)}", text=text, column=0)
    col = 0
    for lv, part in zip(LEVELS, levels):
        rows = part.split(",")
        n = SIZE[lv]
        if len(rows) != n:
            raise NotationError(f"level {lv} needs {n} rows separated by ',', found {len(rows)}",
                                text=text, column=col, token=part)
        for k, row_text in enumerate(rows):
            row = n - k
            if len(row_text) != n:
                raise NotationError(f"level {lv} row {row} needs {n} cells, found {len(row_text)}",
                                    text=text, column=col, token=row_text)
            for c, ch in enumerate(row_text, start=1):
                if ch == ".":
                    pass
                elif ch in masks:
                    masks[ch] |= 1 << index(lv, c, row)
                else:
                    allowed = " ".join(letters) + " ."
                    raise NotationError(f"unknown cell {ch!r} at {lv}{COLUMNS[c - 1]}{row}, expected one of {allowed}",
                                        text=text, column=col + c - 1, token=ch)
            col += n + 1
    return masks, col


def format_levels(masks: dict[str, int]) -> str:
    """The board part of a pyramid position string from one mask per cell letter."""
    cells = cells_of(masks)
    return "/".join(",".join("".join([cells[name] for name in row]) for row in level) for level in _WRITTEN)


#: the position names in the order a position string writes them: level by level, each
#: level's highest row first, each row by column
_WRITTEN = tuple(tuple(tuple(NAMES[index(lv, c, row)] for c in range(1, SIZE[lv] + 1))
                       for row in range(SIZE[lv], 0, -1)) for lv in LEVELS)


def cells_of(masks: dict[str, int]) -> dict[str, str]:
    """Every position name mapped to its letter, ``.`` when empty; where masks overlap, the
    letter given first. Only the balls are visited: the referee asks for this at every
    state of every turn it searches."""
    out = dict.fromkeys(NAMES, ".")
    for letter, mask in reversed(masks.items()):
        while mask:
            low = mask & -mask
            out[NAMES[low.bit_length() - 1]] = letter
            mask ^= low
    return out


def diagram(masks: dict[str, int]) -> str:
    """A readable picture: the four levels side by side, highest row first, hidden
    balls (those under an upper ball) shown in lower case."""
    occupied = 0
    for m in masks.values():
        occupied |= m
    blocks = []
    for lv in LEVELS:
        n = SIZE[lv]
        lines = [f"level {lv}".ljust(4 + 2 * n)]
        for row in range(n, 0, -1):
            cells = []
            for c in range(1, n + 1):
                i = index(lv, c, row)
                ch = next((k for k, m in masks.items() if m >> i & 1), ".")
                if ch != "." and ABOVE[i] & occupied:
                    ch = ch.lower()
                cells.append(ch)
            lines.append(f"{row}  " + " ".join(cells) + "  ")
        lines.append("   " + " ".join(COLUMNS[:n]) + "  ")
        blocks.append(lines)
    height = max(len(b) for b in blocks)
    out = []
    for k in range(height):
        out.append("  ".join((b[k] if k < len(b) else "").ljust(len(b[0])) for b in blocks).rstrip())
    return "\n".join(out)
