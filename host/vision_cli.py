"""The vision commands of ``arbiter``: ``markers`` (and, as they arrive, calibration and
recognition). OpenCV is imported only when one of them runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def run_markers(args: argparse.Namespace) -> int:
    from vision.geometry import GeometryError, load_board
    from vision.markers import write_sheet
    if not 50 <= args.dpi <= 2400:
        print(f"arbiter markers: --dpi must be 50 to 2400, not {args.dpi}", file=sys.stderr)
        return 2
    try:
        board = load_board(args.board)
        path = write_sheet(board, Path(args.out), args.dpi)
    except (GeometryError, ValueError) as exc:
        print(f"arbiter markers: {exc}", file=sys.stderr)
        return 2
    ids = ", ".join(str(m.id) for m in board.markers)
    print(f"{path}: markers {ids} of {board.name}, {board.marker_size:g} mm; print at 100 %", file=sys.stderr)
    return 0


def add_vision_parsers(sub: Any) -> None:
    p = sub.add_parser("markers", help="a printable sheet of a board's fiducial markers at exact size")
    p.add_argument("--board", required=True, help="board name (hardware/boards/NAME.json) or a geometry file")
    p.add_argument("--out", required=True, help="output file: .pdf, .svg or .png")
    p.add_argument("--dpi", type=int, default=300, help="resolution of a .png sheet (default 300)")
    p.set_defaults(func=run_markers)
