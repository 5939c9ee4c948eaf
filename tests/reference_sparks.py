"""A deliberately simple second implementation of the Sparks rules, for cross-checking the
engine (perft counts, turn sets). Plain dicts and lists, names like ``2b3`` as keys, no
bitmasks and nothing shared with host/games: it walks every physical way to make a turn
(each coal, each cascade, each placement order) and merges the ways that give the same
record, i.e. the same (coal, balls that dropped, set of placements).
"""

from __future__ import annotations

TOP = "4a1"
SIZES = {1: 4, 2: 3, 3: 2, 4: 1}


def name(level: int, col: int, row: int) -> str:
    return f"{level}{'abcd'[col - 1]}{row}"


def on_board(level: int, col: int, row: int) -> bool:
    return level in SIZES and 1 <= col <= SIZES[level] and 1 <= row <= SIZES[level]


ALL = [name(lv, c, r) for lv in (1, 2, 3, 4) for r in range(1, SIZES[lv] + 1)
       for c in range(1, SIZES[lv] + 1)]


def coords(pos: str) -> tuple[int, int, int]:
    return int(pos[0]), "abcd".index(pos[1]) + 1, int(pos[2])


def below(pos: str) -> list[str]:
    """The four balls a position rests on (none on the base)."""
    lv, c, r = coords(pos)
    if lv == 1:
        return []
    return [name(lv - 1, c + dc, r + dr) for dc in (0, 1) for dr in (0, 1)]


def over(pos: str) -> list[str]:
    """The positions that rest on pos."""
    lv, c, r = coords(pos)
    return [name(lv + 1, c - dc, r - dr) for dc in (0, 1) for dr in (0, 1)
            if on_board(lv + 1, c - dc, r - dr)]


def parse(text: str) -> tuple[dict[str, str], str]:
    board_text, mover = text.split(" ")
    board = {}
    for lv, level_text in zip((1, 2, 3, 4), board_text.split("/")):
        rows = level_text.split(",")
        n = SIZES[lv]
        for k, row_text in enumerate(rows):
            for c, ch in enumerate(row_text, start=1):
                board[name(lv, c, n - k)] = ch
    return board, mover


def unparse(board: dict[str, str], mover: str) -> str:
    levels = []
    for lv in (1, 2, 3, 4):
        n = SIZES[lv]
        levels.append(",".join("".join(board[name(lv, c, r)] for c in range(1, n + 1))
                               for r in range(n, 0, -1)))
    return "/".join(levels) + " " + mover


def places(board: dict[str, str]) -> list[str]:
    """Empty positions whose four supports are all there."""
    return [p for p in ALL if board[p] == "." and all(board[s] != "." for s in below(p))]


def falls(board: dict[str, str], hole: str) -> list[tuple[list[str], dict[str, str]]]:
    """Every way the balls above the empty ``hole`` can fall in: (balls that fell, board)."""
    resting = [p for p in over(hole) if board[p] != "."]
    if not resting:
        return [([], board)]
    out = []
    for p in resting:
        b = dict(board)
        b[hole] = b[p]
        b[p] = "."
        for rest, final in falls(b, p):
            out.append(([p] + rest, final))
    return out


def placings(board: dict[str, str], hand: list[str], me: str):
    """Every order of putting the balls in hand on the board: (placements, board)."""
    if not hand:
        yield [], board
        return
    for letter in sorted(set(hand)):
        for p in places(board):
            b = dict(board)
            b[p] = letter
            if letter == me and p == TOP:
                yield [(letter, p)], b  # own ball on top: the game is over at once
                continue
            rest = list(hand)
            rest.remove(letter)
            for more, final in placings(b, rest, me):
                yield [(letter, p)] + more, final


def turns(text: str) -> dict[tuple, str]:
    """Every distinct turn of the position ``text``: key (coal, fallen balls, set of
    placements) -> the position string after it."""
    board, mover = parse(text)
    if board[TOP] in ("W", "B"):
        return {}
    nxt = "B" if mover == "W" else "W"
    out: dict[tuple, str] = {}
    for coal in ALL:
        if board[coal] != mover:
            continue
        resting = [p for p in over(coal) if board[p] != "."]
        if len(resting) >= 2:
            continue
        b = dict(board)
        b[coal] = "."
        if not resting:
            b[coal] = "R"
            for seq, final in placings(b, [mover], mover):
                out[(coal, (), frozenset(seq))] = unparse(final, nxt)
            continue
        for fallen, b2 in falls(b, coal):
            hand = [mover] if board[fallen[0]] == "R" else [mover, "R"]
            for seq, final in placings(b2, hand, mover):
                out[(coal, tuple(fallen), frozenset(seq))] = unparse(final, nxt)
    return out


def perft(text: str, depth: int) -> int:
    if depth == 0:
        return 1
    children = turns(text)
    if depth == 1:
        return len(children)
    return sum(perft(child, depth - 1) for child in children.values())
