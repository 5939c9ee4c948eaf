"""Board positions drawn as SVG for the web companion display.

The phone, tablet or TV page inserts the string with ``innerHTML``, so the drawing has a
``viewBox`` and no fixed size (CSS scales it), ``role="img"`` and an ``aria-label`` that
says what is on the board. Everything here is a pure function of the rules and a position:
no I/O and no state, so the page, the tests and a recorder can all call it freely.

Colour is never the only cue: every ball and tile carries its letter, control markers have
an owner badge, and every text colour meets WCAG 4.5:1 on its fill (see :data:`TEXT_ON`).
Elements carry ``class`` and ``data-cell`` attributes so page scripts and browser tests can
find a square: ``ball light``, ``hollow``, ``tile red``, ``dead``, ``changed``,
``flagged`` and ``active``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping
from xml.sax.saxutils import escape, quoteattr

PALETTE: dict[str, str] = {
    "board": "#c49a6c", "hollow": "#8d6238", "label": "#2a1a0e",
    "light": "#e9d3a6", "dark": "#3b2a1e", "white": "#f5f3ee", "black": "#1d1d1d",
    "spark": "#b3261e", "ball-edge": "#4a3220",
    "grid": "#263238", "grid-label": "#eceff1", "dead": "#101010",
    "red": "#c62828", "green": "#2e7d32", "blue": "#1565c0",
    "owner-black": "#111111", "owner-white": "#ffffff",
    "changed": "#ffeb3b", "ring-under": "#000000", "flagged": "#ff3d00",
    "warning": "#c62828", "active": "#ffd600",
}
#: fill name -> the text colour drawn on it (each pair at least 4.5:1)
TEXT_ON: dict[str, str] = {
    "board": "#2a1a0e", "grid": "#eceff1",
    "light": "#2a1a0e", "dark": "#f3e6cc", "white": "#1d1d1d", "black": "#f5f3ee",
    "spark": "#ffffff", "red": "#ffffff", "green": "#ffffff", "blue": "#ffffff",
    "owner-black": "#ffffff", "owner-white": "#111111", "warning": "#ffffff",
}

BALL_NAMES = {"L": "light", "D": "dark", "W": "white", "B": "black", "R": "spark"}
TILE_NAMES = {"R": "red", "G": "green", "B": "blue"}
OWNER_NAMES = {"b": "black", "w": "white", ".": "none"}
COLUMNS = "abcdefghijklmnopqrstuvwxyz"

SPACING = 100.0          # base hollow spacing of the pyramid board
RADIUS = 46.0            # ball radius
PYR_MARGIN = 56.0
TILE = 60.0              # Sparklies square size
GRID_MARGIN = 34.0
COVERED_OPACITY = 0.45
FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"


# -- colour ---------------------------------------------------------------------------
def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(fg_hex: str, bg_hex: str) -> float:
    """The WCAG 2.x contrast ratio of two colours such as ``#e9d3a6`` (1 to 21)."""
    a, b = sorted((_luminance(fg_hex), _luminance(bg_hex)), reverse=True)
    return (a + 0.05) / (b + 0.05)


# -- SVG building blocks --------------------------------------------------------------
def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _el(tag: str, attrs: Mapping[str, Any], content: str = "") -> str:
    parts = "".join(f" {k}={quoteattr(_num(v) if isinstance(v, float) else str(v))}"
                    for k, v in attrs.items() if v is not None)
    return f"<{tag}{parts}>{content}</{tag}>" if content else f"<{tag}{parts}/>"


def _text(x: float, y: float, label: str, fill: str, size: float, **extra: Any) -> str:
    attrs = {"x": x, "y": y, "fill": fill, "font-size": size, "font-family": FONT,
             "font-weight": "bold", "text-anchor": "middle", "dominant-baseline": "central"}
    return _el("text", {**attrs, **extra}, escape(label))


def _letter(x: float, y: float, label: str, fill_name: str, size: float) -> str:
    """A letter with a halo of its own fill, so shading never lowers its contrast."""
    return _text(x, y, label, TEXT_ON[fill_name], size, stroke=PALETTE[fill_name],
                 **{"stroke-width": size * 0.12, "paint-order": "stroke"})


def _badge(x: float, y: float, r: float, label: str, fill_name: str) -> str:
    return (_el("circle", {"cx": x, "cy": y, "r": r, "fill": PALETTE[fill_name],
                           "stroke": TEXT_ON[fill_name], "stroke-width": r * 0.18})
            + _text(x, y, label, TEXT_ON[fill_name], r * 1.4))


def _svg(width: float, height: float, label: str, body: Iterable[str]) -> str:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_num(width)} {_num(height)}" '
            f'role="img" aria-label={quoteattr(label)}>')
    return head + _DEFS + "".join(body) + "</svg>"


_DEFS = (
    '<defs>'
    '<radialGradient id="ta-shine" cx="0.35" cy="0.3" r="0.6">'
    '<stop offset="0" stop-color="#ffffff" stop-opacity="0.45"/>'
    '<stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>'
    '<radialGradient id="ta-rim" cx="0.5" cy="0.5" r="0.5">'
    '<stop offset="0.7" stop-color="#000000" stop-opacity="0"/>'
    '<stop offset="1" stop-color="#000000" stop-opacity="0.35"/></radialGradient>'
    '<filter id="ta-glow" x="-20%" y="-20%" width="140%" height="140%">'
    '<feGaussianBlur stdDeviation="2"/></filter>'
    '</defs>')


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _placeholder(label: str, message: str) -> str:
    body = [_el("rect", {"width": 320, "height": 120, "rx": 12, "fill": PALETTE["grid"]}),
            _text(160.0, 60.0, message, TEXT_ON["grid"], 20.0, **{"class": "placeholder"})]
    return _svg(320, 120, label, body)


# -- pyramid games (Pylos, Sparks) ----------------------------------------------------
def _place(name: str) -> tuple[int, int, int]:
    """``2b3`` -> (level 2, column 1, row 2), column and row counted from 0."""
    return int(name[0]), COLUMNS.index(name[1]), int(name[2:]) - 1


def _centre(level: int, col: int, row: int) -> tuple[float, float]:
    """Top view: a ball of level n sits between the four below it (half a spacing in)."""
    shift = (level - 1) / 2
    x = PYR_MARGIN + (col + shift + 0.5) * SPACING
    y = PYR_MARGIN + (3.5 - row - shift) * SPACING
    return x, y


def _is_covered(cell: str, shown: Mapping[str, str]) -> bool:
    level, col, row = _place(cell)
    above = (f"{level + 1}{COLUMNS[c]}{r + 1}" for c in (col - 1, col) for r in (row - 1, row))
    return any(shown.get(name, ".") in BALL_NAMES for name in above)


def _ball(cell: str, letter: str, covered: bool, seen: bool) -> str:
    """A shaded ball with its letter; covered (partly hidden) balls are drawn faintly."""
    colour = BALL_NAMES[letter]
    x, y = _centre(*_place(cell))
    body = "".join(_el("circle", {"cx": x, "cy": y, "r": RADIUS, "fill": fill})
                   for fill in (PALETTE[colour], "url(#ta-shine)", "url(#ta-rim)"))
    edge = _el("circle", {"cx": x, "cy": y, "r": RADIUS, "fill": "none",
                          "stroke": PALETTE["ball-edge"], "stroke-width": 2.0})
    opacity = COVERED_OPACITY if covered else 1.0
    classes = f"ball {colour}" + (" covered" if covered else "") + (" seen" if seen else "")
    group = _el("g", {"class": "body", "opacity": opacity}, body + edge)
    return _el("g", {"class": classes, "data-cell": cell, "data-level": cell[0],
                     "data-covered": str(covered).lower()},
               group + _letter(x, y, letter, colour, 34.0))


def _hollow(cell: str) -> str:
    x, y = _centre(*_place(cell))
    return _el("circle", {"class": "hollow", "data-cell": cell, "cx": x, "cy": y, "r": RADIUS * 0.72,
                          "fill": PALETTE["hollow"], "stroke": PALETTE["ball-edge"],
                          "stroke-width": 1.5, "stroke-opacity": 0.5})


def _ring(x: float, y: float, r: float, colour: str, dash: str | None = None) -> str:
    """A two-tone ring: a dark underlay under a bright stroke shows on any fill."""
    under = _el("circle", {"cx": x, "cy": y, "r": r, "fill": "none",
                           "stroke": PALETTE["ring-under"], "stroke-width": 9.0, "stroke-opacity": 0.7})
    return under + _el("circle", {"cx": x, "cy": y, "r": r, "fill": "none", "stroke": colour,
                                  "stroke-width": 5.0, "stroke-dasharray": dash})


def _pyramid_flag(cell: str, expected: str, seen: str) -> str:
    x, y = _centre(*_place(cell))
    marks = _ring(x, y, RADIUS + 6, PALETTE["flagged"], "10 6")
    if seen not in BALL_NAMES and expected in BALL_NAMES:
        marks += _badge(x, y, 15.0, "?", "warning")
    elif seen in BALL_NAMES and seen != expected:
        marks += _badge(x + RADIUS * 0.75, y - RADIUS * 0.75, 14.0, "!", "warning")
    return _el("g", {"class": "flagged", "data-cell": cell, "data-expected": expected,
                     "data-seen": seen}, marks)


def _pyramid_labels() -> list[str]:
    out = []
    for i in range(4):
        x, y = _centre(1, i, i)
        out.append(_text(x, PYR_MARGIN + 4 * SPACING + 28, COLUMNS[i], TEXT_ON["board"], 24.0))
        out.append(_text(PYR_MARGIN - 28, y, str(i + 1), TEXT_ON["board"], 24.0))
    return out


def _pyramid_svg(rules: Any, position: Any, changed: Iterable[str],
                 flagged: Mapping[str, tuple[str, str]], hints: bool) -> str:
    shown = dict(rules.cells(position)) if position is not None else _empty_pyramid()
    for cell, (_, seen) in flagged.items():
        if cell in shown:
            shown[cell] = seen if seen in BALL_NAMES else "."
    size = 4 * SPACING + 2 * PYR_MARGIN
    body = [_el("rect", {"width": size, "height": size, "rx": 18, "fill": PALETTE["board"]})]
    body += _pyramid_labels() if hints else []
    for cell in sorted(shown, key=_place):
        letter = shown[cell]
        if letter in BALL_NAMES:
            seen = cell in flagged and letter != flagged[cell][0]
            body.append(_ball(cell, letter, _is_covered(cell, shown), seen))
        elif cell.startswith("1"):
            body.append(_hollow(cell))
    for cell in (c for c in changed if c in shown):
        x, y = _centre(*_place(cell))
        body.append(_el("g", {"class": "changed", "data-cell": cell},
                        _ring(x, y, RADIUS + 2, PALETTE["changed"])))
    for cell, (expected, seen) in flagged.items():
        if cell in shown:
            body.append(_pyramid_flag(cell, expected, seen))
    return _svg(size, size, _pyramid_label(rules.game, shown, len(flagged)), body)


def _empty_pyramid() -> dict[str, str]:
    return {f"{level}{COLUMNS[c]}{r + 1}": "." for level in range(1, 5)
            for r in range(5 - level) for c in range(5 - level)}


def _pyramid_label(game: str, shown: Mapping[str, str], flags: int) -> str:
    n = {letter: sum(1 for v in shown.values() if v == letter) for letter in BALL_NAMES}
    if game == "pylos":
        parts = [_plural(n["L"], "light ball"), _plural(n["D"], "dark ball")]
    else:
        parts = [_plural(n["W"], "white ball"), _plural(n["B"], "black ball"), _plural(n["R"], "spark")]
    if flags:
        parts.append(_plural(flags, "flagged cell"))
    return f"{game.capitalize()} board: " + ", ".join(parts)


# -- Sparklies -------------------------------------------------------------------------
def _square_origin(rules: Any, cell: str) -> tuple[float, float]:
    col, row = COLUMNS.index(cell[0]), int(cell[1:]) - 1
    return GRID_MARGIN + col * TILE, GRID_MARGIN + (rules.height - 1 - row) * TILE


def _tile(rules: Any, cell: str, value: str, seen: bool) -> str:
    x, y = _square_origin(rules, cell)
    colour, owner = TILE_NAMES[value[0]], OWNER_NAMES.get(value[1:2], "none")
    inset = 3.0
    parts = [_el("rect", {"x": x + inset, "y": y + inset, "width": TILE - 2 * inset,
                          "height": TILE - 2 * inset, "rx": 5, "fill": PALETTE[colour]})]
    parts.append(_letter(x + TILE / 2, y + TILE / 2, value[0], colour, TILE * 0.4))
    if owner != "none":
        parts.append(_owner_marker(x, y, owner))
    if seen:
        parts.append(_badge(x + TILE * 0.22, y + TILE * 0.22, 9.0, "!", "warning"))
    classes = f"tile {colour}" + (" seen" if seen else "")
    return _el("g", {"class": classes, "data-cell": cell, "data-owner": owner}, "".join(parts))


def _owner_marker(x: float, y: float, owner: str) -> str:
    """A thick border in the owner's colour plus a lettered badge (b or w) in the corner."""
    fill, other = f"owner-{owner}", f"owner-{'white' if owner == 'black' else 'black'}"
    border = _el("rect", {"x": x + 9, "y": y + 9, "width": TILE - 18, "height": TILE - 18, "rx": 4,
                          "fill": "none", "stroke": PALETTE[fill], "stroke-width": 6.0})
    edge = _el("rect", {"x": x + 13, "y": y + 13, "width": TILE - 26, "height": TILE - 26, "rx": 3,
                        "fill": "none", "stroke": PALETTE[other], "stroke-width": 1.0})
    badge = _badge(x + TILE - 13, y + 13, 9.0, owner[0], fill)
    return _el("g", {"class": f"marker {owner}"}, border + edge + badge)


def _dead(rules: Any, cell: str) -> str:
    x, y = _square_origin(rules, cell)
    a, b = x + 14, x + TILE - 14
    cross = "".join(_el("line", {"x1": a, "y1": y1, "x2": b, "y2": y2, "stroke": "#5f5f5f",
                                 "stroke-width": 4.0, "stroke-linecap": "round"})
                    for y1, y2 in ((y + 14, y + TILE - 14), (y + TILE - 14, y + 14)))
    hole = _el("rect", {"x": x + 3, "y": y + 3, "width": TILE - 6, "height": TILE - 6, "rx": 5,
                        "fill": PALETTE["dead"]})
    return _el("g", {"class": "dead", "data-cell": cell}, hole + cross)


def _square_ring(x: float, y: float, colour: str, dash: str | None = None) -> str:
    frame = {"x": x + 1.5, "y": y + 1.5, "width": TILE - 3, "height": TILE - 3, "rx": 6, "fill": "none"}
    return (_el("rect", {**frame, "stroke": PALETTE["ring-under"], "stroke-width": 7.0, "stroke-opacity": 0.7})
            + _el("rect", {**frame, "stroke": colour, "stroke-width": 4.0, "stroke-dasharray": dash}))


#: a five-pointed star on a unit circle, for the active mark
_STAR = ((0.0, -1.0), (0.24, -0.33), (0.95, -0.31), (0.38, 0.12), (0.59, 0.81),
         (0.0, 0.4), (-0.59, 0.81), (-0.38, 0.12), (-0.95, -0.31), (-0.24, -0.33))


def _active_mark(x: float, y: float) -> str:
    frame = {"x": x + 4.5, "y": y + 4.5, "width": TILE - 9, "height": TILE - 9, "rx": 4,
             "fill": "none", "stroke": PALETTE["active"]}
    glow = (_el("rect", {**frame, "stroke-width": 5.0, "filter": "url(#ta-glow)"})
            + _el("rect", {**frame, "stroke-width": 2.5}))
    cx, cy, r = x + 13, y + TILE - 13, 8.0
    points = " ".join(f"{_num(cx + dx * r)},{_num(cy + dy * r)}" for dx, dy in _STAR)
    star = _el("polygon", {"points": points, "fill": PALETTE["active"], "stroke": "#000000",
                           "stroke-width": 1.2})
    return glow + star


def _grid_labels(rules: Any) -> list[str]:
    out, w, h = [], rules.width, rules.height
    size, colour = 18.0, TEXT_ON["grid"]
    for c in range(w):
        x = GRID_MARGIN + (c + 0.5) * TILE
        out += [_text(x, GRID_MARGIN / 2, COLUMNS[c], colour, size),
                _text(x, GRID_MARGIN * 1.5 + h * TILE, COLUMNS[c], colour, size)]
    for r in range(h):
        y = GRID_MARGIN + (h - r - 0.5) * TILE
        out += [_text(GRID_MARGIN / 2, y, str(r + 1), colour, size),
                _text(GRID_MARGIN * 1.5 + w * TILE, y, str(r + 1), colour, size)]
    return out


def _sparklies_svg(rules: Any, position: Any, changed: Iterable[str],
                   flagged: Mapping[str, tuple[str, str]], active: Iterable[str], hints: bool) -> str:
    cells = rules.cells(position)
    shown = dict(cells)
    for cell, (_, seen) in flagged.items():
        if cell in shown and seen[:1] in TILE_NAMES:
            shown[cell] = seen
    width, height = rules.width * TILE + 2 * GRID_MARGIN, rules.height * TILE + 2 * GRID_MARGIN
    body = [_el("rect", {"width": width, "height": height, "rx": 12, "fill": PALETTE["grid"]})]
    body += _grid_labels(rules) if hints else []
    body += [_dead(rules, cell) for cell in rules.dead_names]
    body += [_tile(rules, cell, value, _differs(flagged.get(cell), value))
             for cell, value in shown.items()]
    for cell in (c for c in active if c in shown):
        body.append(_el("g", {"class": "active", "data-cell": cell},
                        _active_mark(*_square_origin(rules, cell))))
    for cell in (c for c in changed if c in shown):
        body.append(_el("g", {"class": "changed", "data-cell": cell},
                        _square_ring(*_square_origin(rules, cell), PALETTE["changed"])))
    for cell, (expected, seen) in flagged.items():
        if cell in shown:
            x, y = _square_origin(rules, cell)
            marks = _square_ring(x, y, PALETTE["flagged"], "9 5")
            if seen[:1] not in TILE_NAMES:
                marks += _badge(x + TILE / 2, y + TILE / 2, 12.0, "?", "warning")
            body.append(_el("g", {"class": "flagged", "data-cell": cell, "data-expected": expected,
                                  "data-seen": seen}, marks))
    return _svg(width, height, _sparklies_label(rules, shown, len(flagged)), body)


def _differs(flag: tuple[str, str] | None, value: str) -> bool:
    """Whether a flagged square shows a tile other than the expected one."""
    return flag is not None and flag[1][:1] in TILE_NAMES and value != flag[0]


def _sparklies_label(rules: Any, shown: Mapping[str, str], flags: int) -> str:
    n = _owner_counts(shown)
    label = (f"Sparklies board {rules.width}x{rules.height}: black controls {_plural(n['black'], 'square')}, "
             f"white {n['white']}, {n['uncontrolled']} uncontrolled")
    return label + (f", {_plural(flags, 'flagged cell')}" if flags else "")


def _owner_counts(cells: Mapping[str, str]) -> dict[str, int]:
    owners = [v[1:2] for v in cells.values()]
    return {"black": owners.count("b"), "white": owners.count("w"),
            "uncontrolled": len(owners) - owners.count("b") - owners.count("w")}


# -- public API -------------------------------------------------------------------------
def board_svg(rules: Any, position: Any, *, changed: Iterable[str] = (),
              flagged: Mapping[str, tuple[str, str]] | None = None, active: Iterable[str] = (),
              hints: bool = True) -> str:
    """The position as an SVG string (``position`` None: the empty board).

    ``changed``: cells the last move changed (ringed); ``flagged``: cell -> (expected, seen)
    of an illegal move (what is seen is drawn, with a dashed warning ring); ``active``:
    Sparklies squares in the chain of the turn in progress. ``hints`` False leaves out the
    coordinate labels (column letters, row numbers) round the board."""
    flagged = dict(flagged or {})
    if rules.game == "sparklies":
        if position is None:
            return _placeholder("Sparklies board: waiting for the board", "waiting for the board")
        return _sparklies_svg(rules, position, tuple(changed), flagged, tuple(active), hints)
    return _pyramid_svg(rules, position, tuple(changed), flagged, hints)


def counts(rules: Any, position: Any) -> dict[str, int]:
    """What the display shows beside the board. Pylos: reserves ``light``/``dark`` and
    ``light_on_board``/``dark_on_board``; Sparks: balls ``white``/``black`` and ``sparks`` on
    the board; Sparklies: squares controlled by ``black``/``white`` and ``uncontrolled``."""
    if rules.game == "sparklies":
        if position is None:
            return {"black": 0, "white": 0, "uncontrolled": 0}
        return _owner_counts(rules.cells(position))
    cells = list(rules.cells(position).values()) if position is not None else []
    if rules.game == "pylos":
        reserves = rules.reserves(position if position is not None else rules.start())
        return {**reserves, "light_on_board": cells.count("L"), "dark_on_board": cells.count("D")}
    return {"white": cells.count("W"), "black": cells.count("B"), "sparks": cells.count("R")}
