"""A deliberately simple second Pylos implementation, used only to cross-check the engine.

Written from RULINGS.md without looking at host/games/pylos*.py and sharing no code with it:
balls are kept in a dict from (level, column, row) to "L"/"D", everything is recomputed by
brute force, and the only things in common with the engine are the names of positions and
the turn notation. It is slow on purpose: clarity over speed.
"""

from __future__ import annotations

SIZES = {1: 4, 2: 3, 3: 2, 4: 1}
LETTERS = "abcd"
# every position in the engine's index order: level, then row, then column
SPOTS = [(lv, c, r) for lv in (1, 2, 3, 4) for r in range(1, SIZES[lv] + 1) for c in range(1, SIZES[lv] + 1)]
ORDER = {s: k for k, s in enumerate(SPOTS)}
TOP = (4, 1, 1)


def name(spot):
    lv, c, r = spot
    return f"{lv}{LETTERS[c - 1]}{r}"


def below(spot):
    lv, c, r = spot
    if lv == 1:
        return []
    return [(lv - 1, c + dc, r + dr) for dc in (0, 1) for dr in (0, 1)]


def above(spot):
    return [s for s in SPOTS if spot in below(s)]


def supported(board, spot):
    return all(b in board for b in below(spot))


def free(board, spot):
    return not any(a in board for a in above(spot))


def groups_through(spot, mature):
    """The squares (and for mature the lines) on spot's level that contain spot."""
    lv, c, r = spot
    n = SIZES[lv]
    out = []
    for c0 in range(1, n):
        for r0 in range(1, n):
            group = [(lv, c0 + dc, r0 + dr) for dc in (0, 1) for dr in (0, 1)]
            if spot in group:
                out.append(group)
    if mature and lv in (1, 2):
        out.append([(lv, cc, r) for cc in range(1, n + 1)])
        out.append([(lv, c, rr) for rr in range(1, n + 1)])
    return out


def parse(text):
    """A position string into a state dict (no error handling: test data only)."""
    board_text, mover, light, dark = text.split()
    board = {}
    for lv, level_text in zip((1, 2, 3, 4), board_text.split("/")):
        rows = level_text.split(",")
        n = SIZES[lv]
        for k, row_text in enumerate(rows):
            for c, ch in enumerate(row_text, start=1):
                if ch in "LD":
                    board[(lv, c, n - k)] = ch
    return {"board": board, "mover": mover, "reserve": {"L": int(light), "D": int(dark)}}


def other(colour):
    return "D" if colour == "L" else "L"


def moves_without_takebacks(state):
    """(target, source) pairs: places from the reserve and raises."""
    board, mover = state["board"], state["mover"]
    out = []
    if state["reserve"][mover] > 0:
        for t in SPOTS:
            if t not in board and supported(board, t):
                out.append((t, None))
    for s in SPOTS:
        if board.get(s) != mover or not free(board, s):
            continue
        rest = {k: v for k, v in board.items() if k != s}
        for t in SPOTS:
            if t[0] > s[0] and t not in rest and supported(rest, t):
                out.append((t, s))
    return out


def winner(state, reserve_rule):
    """The winning colour once the game is over, else None."""
    board, mover = state["board"], state["mover"]
    if TOP in board:
        return other(mover)
    if state["reserve"][mover] == 0:
        if reserve_rule == "empty" or not moves_without_takebacks(state):
            return other(mover)
    return None


def turns(state, variant="standard", reserve_rule="empty"):
    """Every legal turn as text, one per distinct set of balls taken back (the first order
    found, trying lower positions first, is the one given)."""
    if winner(state, reserve_rule) is not None:
        return []
    board, mover = state["board"], state["mover"]
    out = []
    for t, s in moves_without_takebacks(state):
        head = name(t) if s is None else f"{name(s)}-{name(t)}"
        after = dict(board)
        if s is not None:
            del after[s]
        after[t] = mover
        formed = any(all(after.get(x) == mover for x in g) for g in groups_through(t, variant == "mature"))
        if not formed or variant == "children":
            out.append(head)
            continue
        seen = set()
        mine = sorted((x for x in after if after[x] == mover), key=ORDER.get)
        for r1 in mine:
            if not free(after, r1):
                continue
            out.append(f"{head}x{name(r1)}")
            after1 = {k: v for k, v in after.items() if k != r1}
            for r2 in mine:
                if r2 == r1 or not free(after1, r2):
                    continue
                pair = frozenset((r1, r2))
                if pair not in seen:
                    seen.add(pair)
                    out.append(f"{head}x{name(r1)}x{name(r2)}")
    return out


BY_NAME = {name(s): s for s in SPOTS}


def play(state, text):
    """The state after a turn produced by :func:`turns` (not checked)."""
    parts = text.replace("-", "x").split("x")
    mover = state["mover"]
    board = dict(state["board"])
    reserve = dict(state["reserve"])
    if "-" in text:
        source, target, removed = parts[0], parts[1], parts[2:]
        del board[BY_NAME[source]]
    else:
        target, removed = parts[0], parts[1:]
        reserve[mover] -= 1
    board[BY_NAME[target]] = mover
    for r in removed:
        del board[BY_NAME[r]]
        reserve[mover] += 1
    return {"board": board, "mover": other(mover), "reserve": reserve}


def perft(state, depth, variant="standard", reserve_rule="empty"):
    """The number of turn sequences of length ``depth`` from ``state``."""
    if depth == 0:
        return 1
    return sum(perft(play(state, t), depth - 1, variant, reserve_rule) for t in turns(state, variant, reserve_rule))
