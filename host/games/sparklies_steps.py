"""Sparklies turns as physical steps, with every intermediate board state representable.

The board shows a coloured tile in each cell over an optional black or white marker. Step
vocabulary (``Step.kind``):

- ``control`` (where, piece ``b``/``w``): put the mover's marker under an uncontrolled tile;
- ``activate`` (where): activate a square the mover controls (invisible on the board);
- ``deactivate`` (where, piece = chosen colour letter): swap the tile if the colour changes;
  the captures it makes happen logically at this moment;
- ``marker`` (where, piece ``b``/``w``): put or swap the marker of a square captured during the
  chain. Markers are owed from the capture on and may be laid at any time before the turn ends,
  between other steps; the turn is complete only when nothing is active and nothing is owed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable, Iterator

from .base import IllegalTurn, Step, TurnInProgress
from .sparklies_geometry import ATTACKER, COLOUR_INDEX, COLOURS, bits

if TYPE_CHECKING:
    from .sparklies import SparkliesPosition, SparkliesRules, SparkliesTurn

MOVER_LETTERS = "bw"
#: phases of a turn in progress
CONTROL, ACTIVATE, FIRST, CHAIN = "control", "activate", "first", "chain"


class SparkliesTurnInProgress(TurnInProgress):
    """A Sparklies turn after some steps. Immutable: :meth:`apply` returns a new state.

    ``phase``: ``control`` (a square must be taken), ``activate``, ``first`` (the activated
    square awaits its first deactivation, whose colour is free in both rulesets) or ``chain``."""

    __slots__ = ("rules", "before", "phase", "control", "pings", "cols", "mine", "theirs",
                 "active", "owed")

    def __init__(self, rules: "SparkliesRules", before: "SparkliesPosition", phase: str,
                 control: int | None, pings: tuple[tuple[int, str], ...],
                 cols: tuple[int, int, int], mine: int, theirs: int, active: int, owed: int):
        self.rules, self.before, self.phase = rules, before, phase
        self.control, self.pings = control, pings
        self.cols, self.mine, self.theirs = cols, mine, theirs
        self.active, self.owed = active, owed

    @classmethod
    def begin(cls, rules: "SparkliesRules", position: "SparkliesPosition") -> "SparkliesTurnInProgress":
        me = position.to_move
        mine, theirs = position.controlled(me), position.controlled(1 - me)
        free = rules.board.live & ~(mine | theirs)
        return cls(rules, position, CONTROL if free else ACTIVATE, None, (), position.colours,
                   mine, theirs, 0, 0)

    def _with(self, **changes: object) -> "SparkliesTurnInProgress":
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return SparkliesTurnInProgress(**values)  # type: ignore[arg-type]

    @property
    def mover_letter(self) -> str:
        return MOVER_LETTERS[self.before.to_move]

    # -- what the board shows ------------------------------------------------------
    def cells(self) -> dict[str, str]:
        """Tiles as they lie now; markers as laid so far (an owed marker still shows the
        square's controller from before the turn)."""
        b = self.rules.board
        bl_before, wh_before = self.before.black, self.before.white
        me = self.before.to_move
        black, white = (self.mine, self.theirs) if me == 0 else (self.theirs, self.mine)
        r, g, _ = self.cols
        out = {}
        for i in bits(b.live):
            bit = 1 << i
            colour = "R" if r & bit else "G" if g & bit else "B"
            if self.owed & bit:
                ctrl = "b" if bl_before & bit else "w" if wh_before & bit else "."
            else:
                ctrl = "b" if black & bit else "w" if white & bit else "."
            out[b.names[i]] = colour + ctrl
        return out

    def active_squares(self) -> tuple[str, ...]:
        """The active squares (not visible on the board: the referee tracks them)."""
        return self.rules.board.names_of(self.active)

    def owed_markers(self) -> tuple[str, ...]:
        """Captured squares whose marker has not been laid yet."""
        return self.rules.board.names_of(self.owed)

    def is_complete(self) -> bool:
        return self.phase == CHAIN and not self.active and not self.owed

    # -- steps ---------------------------------------------------------------------
    def next_steps(self) -> Iterator[Step]:
        b = self.rules.board
        names = b.names
        ml = self.mover_letter
        if self.phase == CONTROL:
            for i in bits(b.live & ~(self.mine | self.theirs)):
                yield Step("control", names[i], ml)
            return
        if self.phase == ACTIVATE:
            for i in bits(self.mine):
                yield Step("activate", names[i])
            return
        for i in bits(self.active):
            for c in self._colours_for(i):
                yield Step("deactivate", names[i], COLOURS[c])
        for i in bits(self.owed):
            yield Step("marker", names[i], ml)

    def _colour_of(self, i: int) -> int:
        bit = 1 << i
        return 0 if self.cols[0] & bit else 1 if self.cols[1] & bit else 2

    def _colours_for(self, i: int) -> tuple[int, ...]:
        if self.rules.board.speed and self.phase == CHAIN:
            return (ATTACKER[self._colour_of(i)],)
        return (0, 1, 2)

    def apply(self, step: Step) -> "SparkliesTurnInProgress":
        b = self.rules.board
        kind = step.kind
        index = b.by_name.get(step.where or "")
        if index is None or b.dead >> index & 1:
            raise IllegalTurn(f"{kind} step: {step.where!r} is not a square of this board")
        bit = 1 << index
        name = step.where
        ml = self.mover_letter
        if kind in ("control", "marker") and step.piece not in (None, ml):
            raise IllegalTurn(f"{kind} {name}: the marker must be the mover's ({ml}), not {step.piece!r}")
        if kind == "control":
            if self.phase != CONTROL:
                raise IllegalTurn(f"control {name}: a square has already been taken this turn"
                                  if self.control is not None
                                  else f"control {name}: no uncontrolled square is left")
            if (self.mine | self.theirs) & bit:
                raise IllegalTurn(f"control {name}: {name} is already controlled")
            return self._with(phase=ACTIVATE, control=index, mine=self.mine | bit)
        if kind == "activate":
            if self.phase == CONTROL:
                raise IllegalTurn(f"activate {name}: first take control of an uncontrolled square")
            if self.phase != ACTIVATE:
                raise IllegalTurn(f"activate {name}: a square has already been activated this turn")
            if not self.mine & bit:
                raise IllegalTurn(f"activate {name}: the mover does not control {name}")
            return self._with(phase=FIRST, active=bit)
        if kind == "deactivate":
            if self.phase in (CONTROL, ACTIVATE):
                raise IllegalTurn(f"deactivate {name}: nothing has been activated yet")
            if not self.active & bit:
                raise IllegalTurn(f"deactivate {name}: {name} is not active")
            if step.piece not in COLOUR_INDEX:
                raise IllegalTurn(f"deactivate {name}: the colour must be R, G or B, not {step.piece!r}")
            new = COLOUR_INDEX[step.piece]
            if new not in self._colours_for(index):
                forced = COLOURS[self._colours_for(index)[0]]
                raise IllegalTurn(f"deactivate {name}: in speed Sparklies {name} must turn {forced}")
            cols = list(self.cols)
            cols[self._colour_of(index)] &= ~bit
            cols[new] |= bit
            new_cols = (cols[0], cols[1], cols[2])
            cap = b.captures(new_cols, self.mine, index, new)
            return self._with(phase=CHAIN, cols=new_cols, mine=self.mine | cap,
                              theirs=self.theirs & ~cap, active=(self.active & ~bit) | cap,
                              owed=self.owed | (cap & ~self.mine),
                              pings=self.pings + ((index, COLOURS[new]),))
        if kind == "marker":
            if not self.owed & bit:
                raise IllegalTurn(f"marker {name}: no marker is owed on {name}")
            return self._with(owed=self.owed & ~bit)
        raise IllegalTurn(f"unknown Sparklies step {kind!r}: expected control, activate, deactivate "
                          "or marker")

    def complete_turns(self) -> tuple["SparkliesTurn", ...]:
        if not self.is_complete():
            return ()
        from .sparklies import SparkliesTurn
        return (SparkliesTurn(self.control, self.pings),)

    def position_after(self) -> "SparkliesPosition | None":
        """The position the finished turn leads to (None while the turn is unfinished)."""
        if not self.is_complete():
            return None
        from .sparklies import SparkliesPosition
        me = self.before.to_move
        black, white = (self.mine, self.theirs) if me == 0 else (self.theirs, self.mine)
        r, g, bl = self.cols
        return SparkliesPosition(r, g, bl, black, white, 1 - me)

    def key(self) -> Hashable:
        """Everything that decides what may follow (not the steps' history)."""
        return (self.before.to_move, self.phase, self.cols, self.mine, self.theirs, self.active,
                self.owed)


def turn_steps(rules: "SparkliesRules", position: "SparkliesPosition",
               turn: "SparkliesTurn") -> tuple[Step, ...]:
    """control, activate, then per ping its deactivation followed by the markers it owes."""
    _, owed_list = rules._execute(position, turn)
    names = rules.board.names
    ml = MOVER_LETTERS[position.to_move]
    out = []
    if turn.control is not None:
        out.append(Step("control", names[turn.control], ml))
    out.append(Step("activate", names[turn.pings[0][0]]))
    for (s, letter), owed in zip(turn.pings, owed_list):
        out.append(Step("deactivate", names[s], letter))
        out.extend(Step("marker", names[i], ml) for i in bits(owed))
    return tuple(out)
