"""Options several commands share, and the error a wrong one raises.

Sparklies has no fixed board: its size comes from a position string, ``--size`` or what a
log shows, and the commands that take it must agree on how.
"""

from __future__ import annotations

from typing import Any


class UsageError(Exception):
    """A command line that cannot be run as given: the message says which option and why
    (exit status 2)."""


def parse_size(size: str) -> tuple[int, int]:
    """``--size WxH`` as (width, height)."""
    try:
        width, height = (int(x) for x in size.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size {size!r}: expected WIDTHxHEIGHT such as 9x9") from None
    if width < 1 or height < 1:
        raise UsageError(f"--size {size!r}: a board is at least 1x1")
    return width, height


def sparklies_options(size: str | None, wrap: bool, position: str | None = None,
                      seen: tuple[int, int] | None = None) -> dict[str, Any]:
    """The Sparklies rules' options: the board from ``position`` where one is given
    (``--size`` must then agree with it), else ``--size``, else the size ``seen``."""
    if position is not None:
        from .games.sparklies import SparkliesRules
        width, height, dead = SparkliesRules.geometry_from_position(position)
        if size and parse_size(size) != (width, height):
            raise UsageError(f"--size {size} but the position is {width}x{height}")
        return {"width": width, "height": height, "dead": dead, "wrap": wrap}
    if size:
        width, height = parse_size(size)
    elif seen is not None:
        width, height = seen
    else:
        raise UsageError("sparklies needs a position or --size: its board size is not fixed")
    return {"width": width, "height": height, "wrap": wrap}


def no_sparklies_options(game: str, size: str | None, wrap: bool) -> None:
    """``--size`` and ``--wrap`` given for a game that has no such options."""
    if size or wrap:
        raise UsageError(f"--size and --wrap are Sparklies options, not {game} ones")
