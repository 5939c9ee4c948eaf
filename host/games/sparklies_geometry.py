"""Board geometry and the capture rule of Sparklies, built once per Rules object.

Squares are ints: index = (row - 1) * width + (column - 1), ``a1`` bottom-left. Sets of squares
are int bitmasks. Dead cells (holes) keep their index but are never live, never a neighbour
and never controlled. A :class:`Board` is immutable after construction; every table lives on
the instance, so two Rules objects with different options never share mutable state.
"""

from __future__ import annotations

from typing import Iterable

from .base import NotationError, bits  # noqa: F401  (bits: part of this module's interface)

#: colour letters by colour index
COLOURS = "RGB"
COLOUR_INDEX = {"R": 0, "G": 1, "B": 2}
#: VICTIM[c]: the colour that colour c attacks (red attacks green, green blue, blue red)
VICTIM = (1, 2, 0)
#: ATTACKER[x]: the colour that attacks colour x
ATTACKER = (2, 0, 1)
COLUMNS = "abcdefghijklmnopqrstuvwxyz"
MIN_SIZE, MAX_SIZE = 3, 26


def square_name(index: int, width: int) -> str:
    row, col = divmod(index, width)
    return f"{COLUMNS[col]}{row + 1}"


def split_square(token: str) -> tuple[int, int] | None:
    """(column, row), both 0-based, of a well-formed name such as ``e5``; None otherwise."""
    if len(token) < 2 or token[0] not in COLUMNS:
        return None
    digits = token[1:]
    if not digits.isdigit() or not digits.isascii() or digits[0] == "0" or len(digits) > 3:
        return None
    return COLUMNS.index(token[0]), int(digits) - 1


class Board:
    """Geometry tables (names, neighbour lists and masks, shift masks) and the ruleset flag.

    ``speed`` selects Speed Sparklies' capture rule (attackers of any controller count)."""

    __slots__ = ("width", "height", "wrap", "speed", "size", "full", "live", "dead", "names",
                 "by_name", "nb", "nbmask", "_not_first", "_not_last", "_first_col",
                 "_last_col", "_bottom", "_top", "_vshift")

    def __init__(self, width: int, height: int, dead: Iterable[int] = (), wrap: bool = False,
                 speed: bool = False):
        self.width, self.height, self.wrap, self.speed = width, height, wrap, speed
        self.size = width * height
        self.full = (1 << self.size) - 1
        dead_mask = 0
        for i in dead:
            dead_mask |= 1 << i
        self.dead = dead_mask
        self.live = self.full & ~dead_mask
        self.names = tuple(square_name(i, width) for i in range(self.size))
        self.by_name = {name: i for i, name in enumerate(self.names)}
        nb: list[tuple[int, ...]] = []
        for i in range(self.size):
            if dead_mask >> i & 1:
                nb.append(())
                continue
            row, col = divmod(i, width)
            found: list[int] = []
            for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                r, c = row + dr, col + dc
                if wrap:
                    r, c = r % height, c % width
                elif not (0 <= r < height and 0 <= c < width):
                    continue
                j = r * width + c
                if j != i and not dead_mask >> j & 1 and j not in found:
                    found.append(j)
            nb.append(tuple(sorted(found)))
        self.nb = tuple(nb)
        self.nbmask = tuple(sum(1 << j for j in n) for n in self.nb)
        first_col = sum(1 << (r * width) for r in range(height))
        last_col = first_col << (width - 1)
        self._first_col, self._last_col = first_col, last_col
        self._not_first, self._not_last = self.full & ~first_col, self.full & ~last_col
        self._bottom = (1 << width) - 1
        self._top = self._bottom << (width * (height - 1))
        self._vshift = width * (height - 1)

    # -- names -------------------------------------------------------------------
    def name(self, index: int) -> str:
        return self.names[index]

    def names_of(self, mask: int) -> tuple[str, ...]:
        """Names of the squares in ``mask``, in index order (a1, b1, ..., a2, ...)."""
        return tuple(self.names[i] for i in bits(mask))

    def square(self, token: str, *, text: str = "", column: int | None = None) -> int:
        """The live square named ``token``; NotationError naming the token otherwise."""
        parts = split_square(token)
        if parts is None:
            raise NotationError("expected a square name such as e5 (column letter a-z, row number)",
                                text=text, column=column, token=token)
        col, row = parts
        if col >= self.width or row >= self.height:
            raise NotationError(
                f"{token} is off the {self.width}x{self.height} board (columns a-{COLUMNS[self.width - 1]}, "
                f"rows 1-{self.height})", text=text, column=column, token=token)
        index = row * self.width + col
        if self.dead >> index & 1:
            raise NotationError(f"{token} is a dead cell, not a square", text=text, column=column,
                                token=token)
        return index

    # -- set operations ----------------------------------------------------------
    def dilate(self, x: int) -> int:
        """Every live square next to a square of ``x`` (bit-parallel, no loops over squares)."""
        w = self.width
        out = ((x & self._not_last) << 1) | ((x & self._not_first) >> 1) | (x << w) | (x >> w)
        if self.wrap:
            out |= ((x & self._last_col) >> (w - 1)) | ((x & self._first_col) << (w - 1))
            out |= ((x & self._top) >> self._vshift) | ((x & self._bottom) << self._vshift)
        return out & self.live

    def at_least_two(self, x: int) -> int:
        """Every live square with at least two neighbours in ``x`` (bit-parallel)."""
        w = self.width
        x &= self.live
        east = (x & self._not_first) >> 1   # squares whose east neighbour is in x
        west = (x & self._not_last) << 1
        north = x >> w
        south = (x << w) & self.full
        if self.wrap:
            east |= (x & self._first_col) << (w - 1)
            west |= (x & self._last_col) >> (w - 1)
            north |= (x & self._bottom) << self._vshift
            south |= (x & self._top) >> self._vshift
        return ((east & (west | north | south)) | (west & (north | south)) | (north & south)) & self.live

    def component(self, seed: int, within: int) -> int:
        """The squares of ``within`` connected to ``seed`` through squares of ``within``."""
        reach = seed & within
        while True:
            grown = reach | (self.dilate(reach) & within)
            if grown == reach:
                return reach
            reach = grown

    def components(self, within: int) -> list[int]:
        """The connected parts of ``within``."""
        out = []
        rest = within
        while rest:
            part = self.component(rest & -rest, within)
            out.append(part)
            rest &= ~part
        return out

    # -- the capture rule --------------------------------------------------------
    def captures(self, cols: tuple[int, int, int], mover: int, s: int, c: int) -> int:
        """The squares captured when ``s`` (controlled by the mover) is deactivated as colour
        ``c``; ``cols`` are the colour masks *after* ``s`` took colour ``c``, ``mover`` the
        mover's squares. A neighbour N of the attacked colour is captured when at least two
        squares of colour ``c`` next to N are the mover's (subtle) or of anyone (speed)."""
        victims = self.nbmask[s] & cols[VICTIM[c]]
        if not victims:
            return 0
        attackers = cols[c] if self.speed else cols[c] & mover
        nbmask = self.nbmask
        out = 0
        while victims:
            low = victims & -victims
            victims ^= low
            a = nbmask[low.bit_length() - 1] & attackers
            if a & (a - 1):
                out |= low
        return out
