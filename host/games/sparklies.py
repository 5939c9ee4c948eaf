"""Sparklies: a chain-reaction territory game on a grid of red, green and blue squares.

Rules as settled in RULINGS.md (rulesets ``subtle``, the default, and ``speed``; board size,
dead cells and wrap-around edges are options). A position is immutable bitmasks; a turn is
the control square plus the pings (the first one the activation). Turns can cycle forever,
so there is no ``legal_turns``: :meth:`SparkliesRules.begin_turn` generates them step by step
(sparklies_steps.py) and :meth:`SparkliesRules.infer` searches chain states
(sparklies_infer.py). Board geometry is in sparklies_geometry.py.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping

from .base import IllegalTurn, Inference, NotationError, OptionError, Outcome, Rules, Step
from .sparklies_geometry import (ATTACKER, COLOUR_INDEX, COLOURS, COLUMNS, MAX_SIZE, MIN_SIZE,
                                 Board, bits, split_square)

if TYPE_CHECKING:
    from .sparklies_steps import SparkliesTurnInProgress

VARIANTS = ("subtle", "speed")
PLAYERS = ("black", "white")
MOVER_LETTERS = "bw"


@dataclass(frozen=True, slots=True)
class SparkliesPosition:
    """A position between turns: colour masks (they partition the live squares), controller
    masks (disjoint) and the player to move (0 black, 1 white). No square is active."""

    red: int
    green: int
    blue: int
    black: int
    white: int
    to_move: int = 0

    @property
    def colours(self) -> tuple[int, int, int]:
        return (self.red, self.green, self.blue)

    def controlled(self, player: int) -> int:
        return self.white if player else self.black


@dataclass(frozen=True, slots=True)
class SparkliesTurn:
    """``control``: the square taken under control (None, written ``-``, when none is left);
    ``pings``: (square, colour letter) in the order deactivated, the first the activation."""

    control: int | None
    pings: tuple[tuple[int, str], ...]


def _int_option(name: str, value: object) -> int:
    if isinstance(value, bool):
        raise OptionError(f"Sparklies option {name}: expected a whole number {MIN_SIZE}..{MAX_SIZE}, got {value!r}")
    if isinstance(value, str) and value.strip().isdigit() and value.strip().isascii() and len(value.strip()) < 4:
        value = int(value.strip())
    if not isinstance(value, int) or not MIN_SIZE <= value <= MAX_SIZE:
        raise OptionError(f"Sparklies option {name}: expected a whole number {MIN_SIZE}..{MAX_SIZE}, got {value!r}")
    return value


def _bool_option(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    raise OptionError(f"Sparklies option {name}: expected true or false, got {value!r}")


class SparkliesRules(Rules):
    """Sparklies with its ruleset and board fixed. Geometry tables are built here, once."""

    game = "sparklies"
    players = PLAYERS

    def __init__(self, variant: str = "subtle", *, width: int = 9, height: int = 9,
                 dead: Iterable[str] = (), wrap: bool = False):
        if not isinstance(variant, str) or variant.lower() not in VARIANTS:
            raise OptionError(f"unknown Sparklies variant {variant!r}: expected subtle or speed")
        self.variant = variant.lower()
        self.width = _int_option("width", width)
        self.height = _int_option("height", height)
        self.wrap = _bool_option("wrap", wrap)
        if isinstance(dead, str):
            dead = dead.replace(",", " ").split()
        dead_squares: set[int] = set()
        for name in dead:
            parts = split_square(name) if isinstance(name, str) else None
            if parts is None or parts[0] >= self.width or parts[1] >= self.height:
                raise OptionError(f"Sparklies option dead: {name!r} is not a square of the "
                                  f"{self.width}x{self.height} board")
            dead_squares.add(parts[1] * self.width + parts[0])
        if len(dead_squares) >= self.width * self.height:
            raise OptionError("Sparklies option dead: every cell is dead, the board has no square")
        self.board = Board(self.width, self.height, sorted(dead_squares), self.wrap,
                           self.variant == "speed")

    def __repr__(self) -> str:
        return f"SparkliesRules({self.variant!r}, {self.tags()!r})"

    # -- options and tags --------------------------------------------------------
    @property
    def dead_names(self) -> tuple[str, ...]:
        return self.board.names_of(self.board.dead)

    def tags(self) -> dict[str, str]:
        out = {"Variant": self.variant, "Size": f"{self.width}x{self.height}"}
        if self.board.dead:
            out["Dead"] = " ".join(self.dead_names)
        if self.wrap:
            out["Wrap"] = "true"
        return out

    @classmethod
    def from_tags(cls, tags: Mapping[str, str]) -> "SparkliesRules":
        """Rules from record tags (Variant, Size, Dead, Wrap); other tags are ignored."""
        variant = tags.get("Variant", "subtle") or "subtle"
        if variant.lower() not in VARIANTS:
            raise OptionError(f"[Variant] tag {variant!r}: expected subtle or speed")
        size = tags.get("Size", "9x9")
        parts = size.strip().lower().split("x")
        if (len(parts) != 2 or not all(p.isdigit() and p.isascii() and len(p) < 4 for p in parts)
                or not all(MIN_SIZE <= int(p) <= MAX_SIZE for p in parts)):
            raise OptionError(f"[Size] tag {size!r}: expected WIDTHxHEIGHT such as 9x9, each {MIN_SIZE}..{MAX_SIZE}")
        wrap = tags.get("Wrap", "false")
        if wrap.strip().lower() not in ("true", "false"):
            raise OptionError(f"[Wrap] tag {wrap!r}: expected true or false")
        try:
            return cls(variant, width=int(parts[0]), height=int(parts[1]),
                       dead=tags.get("Dead", "").split(), wrap=wrap.strip().lower() == "true")
        except OptionError as exc:
            raise OptionError(f"[Dead] tag {tags.get('Dead', '')!r}: {exc}") from None

    @staticmethod
    def geometry_from_position(text: str) -> tuple[int, int, tuple[str, ...]]:
        """(width, height, dead square names) of a position string, so that rules can be built
        from a string alone. Only the shape is checked here; parse_position checks the rest."""
        board_part = text.strip().split()[0] if text.strip() else ""
        rows = board_part.split("/")
        height = len(rows)
        if not board_part or len(rows[0]) % 2 or not rows[0]:
            raise NotationError("expected rows of two-character cells separated by '/'", text=text,
                                column=0, token=rows[0] if rows else "")
        width = len(rows[0]) // 2
        if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
            raise NotationError(f"a board is {MIN_SIZE} to {MAX_SIZE} cells each way, this one is "
                                f"{width}x{height}", text=text, column=0, token=board_part[:8])
        dead = []
        offset = text.index(board_part)
        for k, row in enumerate(rows):
            row_number = height - k
            if len(row) != 2 * width:
                raise NotationError(f"row {row_number} has {len(row) / 2:g} cells, expected {width}",
                                    text=text, column=offset, token=row)
            for col in range(width):
                if row[2 * col:2 * col + 2] == "--":
                    dead.append((row_number - 1) * width + col)
            offset += len(row) + 1
        return width, height, tuple(f"{COLUMNS[i % width]}{i // width + 1}" for i in sorted(dead))

    # -- positions ---------------------------------------------------------------
    def start(self, rng: random.Random | None = None) -> SparkliesPosition:
        """Random colours (from ``rng``, seeded for reproducible games), nothing controlled,
        Black to move."""
        rng = rng if rng is not None else random.Random()
        cols = [0, 0, 0]
        for i in bits(self.board.live):
            cols[rng.randrange(3)] |= 1 << i
        return SparkliesPosition(cols[0], cols[1], cols[2], 0, 0, 0)

    def make_position(self, colours: Mapping[str, str] | str, black: Iterable[str] = (),
                      white: Iterable[str] = (), to_move: str = "black") -> SparkliesPosition:
        """A position from square names: ``colours`` maps every live square to R/G/B, or is one
        letter for all of them; ``black``/``white`` name the controlled squares."""
        b = self.board
        cols = [0, 0, 0]
        if isinstance(colours, str):
            if colours not in COLOUR_INDEX:
                raise NotationError("expected a colour R, G or B", token=colours)
            cols[COLOUR_INDEX[colours]] = b.live
        else:
            for name, letter in colours.items():
                if letter not in COLOUR_INDEX:
                    raise NotationError(f"{name}: expected a colour R, G or B", token=letter)
                cols[COLOUR_INDEX[letter]] |= 1 << b.square(name)
            missing = b.live & ~(cols[0] | cols[1] | cols[2])
            if missing:
                raise NotationError("no colour given for " + " ".join(b.names_of(missing)))
            if (cols[0] & cols[1]) | (cols[0] & cols[2]) | (cols[1] & cols[2]):
                raise NotationError("a square has two colours")
        bl = sum(1 << b.square(n) for n in set(black))
        wh = sum(1 << b.square(n) for n in set(white))
        if bl & wh:
            raise NotationError("controlled by both players: " + " ".join(b.names_of(bl & wh)))
        if to_move not in PLAYERS:
            raise OptionError(f"to_move must be black or white, got {to_move!r}")
        return SparkliesPosition(cols[0], cols[1], cols[2], bl, wh, PLAYERS.index(to_move))

    def parse_position(self, text: str) -> SparkliesPosition:
        b = self.board
        stripped = text.strip()
        offset = len(text) - len(text.lstrip())
        fields = stripped.split()
        if len(fields) != 2:
            raise NotationError("expected the rows, a space and the player to move (b or w), such as "
                                "'R.G.B./.../... b'", text=text, column=offset, token=stripped[:12] or None)
        board_part, mover = fields
        rows = board_part.split("/")
        if len(rows) != self.height:
            raise NotationError(f"expected {self.height} rows separated by '/', got {len(rows)}",
                                text=text, column=offset, token=board_part[:12])
        cols = [0, 0, 0]
        ctrl = [0, 0]
        pos = offset
        for k, row in enumerate(rows):
            r = self.height - 1 - k
            if len(row) != 2 * self.width:
                raise NotationError(f"row {r + 1} has {len(row) / 2:g} cells, expected {self.width} "
                                    "(two characters each)", text=text, column=pos, token=row)
            for c in range(self.width):
                cell = row[2 * c:2 * c + 2]
                i = r * self.width + c
                name = b.names[i]
                where = dict(text=text, column=pos + 2 * c, token=cell)
                if b.dead >> i & 1:
                    if cell != "--":
                        raise NotationError(f"{name} is a dead cell on this board: expected --", **where)
                    continue
                if cell == "--":
                    raise NotationError(f"{name} is a square on this board, not a dead cell: "
                                        "expected a colour and controller such as R.", **where)
                if cell[0] not in COLOUR_INDEX:
                    raise NotationError(f"row {r + 1}, column {COLUMNS[c]} ({name}): expected a colour "
                                        "R, G or B", **where)
                if cell[1] not in ".bw":
                    raise NotationError(f"row {r + 1}, column {COLUMNS[c]} ({name}): expected a "
                                        "controller . (none), b or w", **where)
                cols[COLOUR_INDEX[cell[0]]] |= 1 << i
                if cell[1] != ".":
                    ctrl[MOVER_LETTERS.index(cell[1])] |= 1 << i
            pos += len(row) + 1
        if mover not in ("b", "w"):
            raise NotationError("expected the player to move: b or w", text=text,
                                column=text.rindex(mover), token=mover)
        return SparkliesPosition(cols[0], cols[1], cols[2], ctrl[0], ctrl[1],
                                 MOVER_LETTERS.index(mover))

    def format_position(self, position: SparkliesPosition) -> str:
        cells = self._cell_letters(position)
        w = self.width
        rows = ("".join(cells[r * w:(r + 1) * w]) for r in reversed(range(self.height)))
        return "/".join(rows) + " " + MOVER_LETTERS[position.to_move]

    def _cell_letters(self, p: SparkliesPosition) -> list[str]:
        out = []
        for i in range(self.board.size):
            bit = 1 << i
            if self.board.dead & bit:
                out.append("--")
                continue
            colour = "R" if p.red & bit else "G" if p.green & bit else "B"
            out.append(colour + ("b" if p.black & bit else "w" if p.white & bit else "."))
        return out

    def to_move(self, position: SparkliesPosition) -> str:
        return PLAYERS[position.to_move]

    def cells(self, position: SparkliesPosition) -> dict[str, str]:
        """Square name -> colour letter and controller letter, such as ``Rb`` or ``G.``."""
        letters = self._cell_letters(position)
        return {self.board.names[i]: letters[i] for i in bits(self.board.live)}

    def diagram(self, position: SparkliesPosition) -> str:
        letters = self._cell_letters(position)
        w = self.width
        header = "    " + " ".join(f"{COLUMNS[c]:<2}" for c in range(w))
        lines = [header.rstrip()]
        for r in reversed(range(self.height)):
            lines.append(f"{r + 1:>2}  " + " ".join(letters[r * w:(r + 1) * w]) + f"  {r + 1}")
        lines.append(header.rstrip())
        nb, nw = position.black.bit_count(), position.white.bit_count()
        free = self.board.live.bit_count() - nb - nw
        lines.append(f"{PLAYERS[position.to_move].capitalize()} to move "
                     f"(black {nb}, white {nw}, uncontrolled {free}; {self.variant})")
        return "\n".join(lines)

    # -- turns -------------------------------------------------------------------
    def parse_turn(self, position: SparkliesPosition, text: str) -> SparkliesTurn:
        turn = self.parse_turn_text(text)
        self._execute(position, turn)
        return turn

    def parse_turn_text(self, text: str) -> SparkliesTurn:
        """The turn written ``text`` without checking legality (NotationError if malformed)."""
        b = self.board
        if text.count(":") != 1:
            raise NotationError("expected the control square (or -), ':' and the pings, such as "
                                "e5:e5G,d5R", text=text, column=text.find(":") if ":" in text else None,
                                token=text[:12] or None)
        head, tail = text.split(":")
        start = len(head) - len(head.lstrip())
        head = head.strip()
        if head == "-":
            control = None
        elif not head:
            raise NotationError("expected the control square or - before ':'", text=text, column=0)
        else:
            control = b.square(head, text=text, column=start)
        pings = []
        pos = len(text) - len(tail)
        for token in tail.split(","):
            lead = len(token) - len(token.lstrip())
            tok = token.strip()
            column = pos + lead
            if not tok:
                raise NotationError("expected a ping: square and colour letter, such as e5G",
                                    text=text, column=column)
            letter = tok[-1]
            if letter not in COLOUR_INDEX:
                raise NotationError(f"ping {tok}: expected the colour letter R, G or B after the square",
                                    text=text, column=column + len(tok) - 1, token=tok)
            square = b.square(tok[:-1], text=text, column=column)
            pings.append((square, letter))
            pos += len(token) + 1
        return SparkliesTurn(control, tuple(pings))

    def format_turn(self, turn: SparkliesTurn) -> str:
        names = self.board.names
        head = "-" if turn.control is None else names[turn.control]
        return head + ":" + ",".join(names[s] + c for s, c in turn.pings)

    def play(self, position: SparkliesPosition, turn: SparkliesTurn) -> SparkliesPosition:
        return self._execute(position, turn)[0]

    def _check_square(self, square: object, what: str) -> int:
        if not isinstance(square, int) or not 0 <= square < self.board.size:
            raise IllegalTurn(f"{what} {square!r} is not a square of this board")
        if self.board.dead >> square & 1:
            raise IllegalTurn(f"{what} {self.board.names[square]} is a dead cell")
        return square

    def _execute(self, position: SparkliesPosition, turn: SparkliesTurn
                 ) -> tuple[SparkliesPosition, list[int]]:
        """The position after ``turn`` and, per ping, the squares whose marker it makes owed
        (captured from the opponent or uncontrolled). IllegalTurn names squares and says why."""
        b = self.board
        names = b.names
        me = position.to_move
        player = PLAYERS[me]
        mine = position.controlled(me)
        theirs = position.controlled(1 - me)
        free = b.live & ~(mine | theirs)
        if turn.control is None:
            if free:
                shown = " ".join(b.names_of(free)[:5])
                raise IllegalTurn(f"{player} must take control of an uncontrolled square (such as "
                                  f"{shown}): '-' is only for when none is left")
        else:
            c = self._check_square(turn.control, "control square")
            if not free >> c & 1:
                owner = "black" if position.black >> c & 1 else "white"
                raise IllegalTurn(f"{names[c]} is already controlled by {owner}: the control square "
                                  "must be uncontrolled")
            mine |= 1 << c
        if not turn.pings:
            raise IllegalTurn(f"{player} must activate a square: the turn has no ping")
        cols = list(position.colours)
        active = 0
        owed_list = []
        speed = b.speed
        for k, (s, letter) in enumerate(turn.pings):
            s = self._check_square(s, "ping")
            if letter not in COLOUR_INDEX:
                raise IllegalTurn(f"ping {names[s]}: colour {letter!r} is not R, G or B")
            bit = 1 << s
            old = 0 if cols[0] & bit else 1 if cols[1] & bit else 2
            if k == 0:
                if not mine & bit:
                    raise IllegalTurn(f"{names[s]} cannot be activated: {player} does not control it")
            elif not active & bit:
                if active:
                    raise IllegalTurn(f"{names[s]} is not active (ping {k + 1}): the active squares "
                                      f"are {' '.join(b.names_of(active))}")
                raise IllegalTurn(f"{names[s]} is not active (ping {k + 1}): no square is active "
                                  "any more, the turn is over")
            new = COLOUR_INDEX[letter]
            if speed and k and new != ATTACKER[old]:
                raise IllegalTurn(f"{names[s]} must turn {COLOURS[ATTACKER[old]]} (ping {k + 1}): in "
                                  "speed Sparklies a captured square takes the colour that captured it")
            cols[old] &= ~bit
            cols[new] |= bit
            active &= ~bit
            cap = b.captures((cols[0], cols[1], cols[2]), mine, s, new)
            owed_list.append(cap & ~mine)
            mine |= cap
            theirs &= ~cap
            active |= cap
        if active:
            raise IllegalTurn("the turn ends with active squares left: "
                              + " ".join(b.names_of(active)) + " must still be deactivated")
        black, white = (mine, theirs) if me == 0 else (theirs, mine)
        return SparkliesPosition(cols[0], cols[1], cols[2], black, white, 1 - me), owed_list

    def random_turn(self, position: SparkliesPosition, rng: random.Random, *,
                    max_pings: int = 40) -> SparkliesTurn:
        """A random legal turn built step by step: random control, activation and pings (random
        active square, random allowed colour). After ``max_pings`` pings the chain is drained:
        each next ping is one that activates the fewest squares (none when possible)."""
        b = self.board
        me = position.to_move
        mine = position.controlled(me)
        theirs = position.controlled(1 - me)
        free = b.live & ~(mine | theirs)
        control = None
        if free:
            control = rng.choice(list(bits(free)))
            mine |= 1 << control
        if not mine:
            raise IllegalTurn(f"{PLAYERS[me]} controls no square and none is left to take: no legal turn")
        cols = list(position.colours)
        speed = b.speed
        captures = b.captures
        s = rng.choice(list(bits(mine)))
        c = rng.randrange(3)
        pings: list[tuple[int, str]] = []
        active = 0
        hard_limit = max_pings + 200 * b.size
        while True:
            bit = 1 << s
            old = 0 if cols[0] & bit else 1 if cols[1] & bit else 2
            cols[old] &= ~bit
            cols[c] |= bit
            active &= ~bit
            cap = captures((cols[0], cols[1], cols[2]), mine, s, c)
            mine |= cap
            active |= cap
            pings.append((s, COLOURS[c]))
            if not active:
                break
            if len(pings) >= hard_limit:
                raise RuntimeError("random_turn: the chain could not be drained")
            if len(pings) < max_pings:
                s = rng.choice(list(bits(active)))
                c = ATTACKER[0 if cols[0] & (1 << s) else 1 if cols[1] & (1 << s) else 2] if speed \
                    else rng.randrange(3)
            else:
                s, c = self._draining_ping(cols, mine, active, rng)
        return SparkliesTurn(control, tuple(pings))

    def _draining_ping(self, cols: list[int], mine: int, active: int,
                       rng: random.Random) -> tuple[int, int]:
        """The (square, colour) among the allowed pings that activates the fewest new squares."""
        b = self.board
        best: list[tuple[int, int]] = []
        best_count = None
        for s in bits(active):
            bit = 1 << s
            old = 0 if cols[0] & bit else 1 if cols[1] & bit else 2
            for c in ((ATTACKER[old],) if b.speed else (0, 1, 2)):
                trial = [cols[0], cols[1], cols[2]]
                trial[old] &= ~bit
                trial[c] |= bit
                fresh = (b.captures((trial[0], trial[1], trial[2]), mine, s, c) & ~active).bit_count()
                if best_count is None or fresh < best_count:
                    best, best_count = [(s, c)], fresh
                elif fresh == best_count:
                    best.append((s, c))
        return rng.choice(best)

    def outcome(self, position: SparkliesPosition) -> Outcome | None:
        """The game is over when every square is controlled (checked between turns)."""
        if (position.black | position.white) != self.board.live:
            return None
        nb, nw = position.black.bit_count(), position.white.bit_count()
        score = f"black {nb}, white {nw}"
        if nb > nw:
            return Outcome("1-0", "black", f"every square is controlled: {score}")
        if nw > nb:
            return Outcome("0-1", "white", f"every square is controlled: {score}")
        return Outcome("1/2-1/2", None, f"every square is controlled: {score}, a draw")

    def infer(self, before: SparkliesPosition, after: SparkliesPosition, *,
              budget_ms: float = 1000.0) -> Inference:
        """A turn from ``before`` to ``after`` (any with that result), ``none`` with the squares
        no turn explains, or ``undecided`` when ``budget_ms`` (wall clock) runs out."""
        from .sparklies_infer import infer_turn
        return infer_turn(self, before, after, budget_ms)

    # -- physical steps ----------------------------------------------------------
    def steps(self, position: SparkliesPosition, turn: SparkliesTurn) -> tuple[Step, ...]:
        from .sparklies_steps import turn_steps
        return turn_steps(self, position, turn)

    def begin_turn(self, position: SparkliesPosition) -> "SparkliesTurnInProgress":
        """The turn before its first step (control, or activation when nothing is left)."""
        from .sparklies_steps import SparkliesTurnInProgress
        return SparkliesTurnInProgress.begin(self, position)
