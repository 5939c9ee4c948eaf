"""Perft counts of the Sparks engine, checked against tests/data/perft_sparks.txt and against
tests/reference_sparks.py, a deliberately simple second implementation."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import reference_sparks as ref  # noqa: E402
from host.games.pyramid import NAMES  # noqa: E402
from host.games.sparks import START, SparksRules  # noqa: E402

R = SparksRules()
DATA = Path(__file__).parent / "data" / "perft_sparks.txt"


def load() -> list[tuple[str, int, int]]:
    rows = []
    for line in DATA.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            text, depth, nodes = (part.strip() for part in line.split("|"))
            rows.append((text, int(depth), int(nodes)))
    return rows


ROWS = load()


def perft(position, depth: int) -> int:
    if depth == 0:
        return 1
    turns = list(R.legal_turns(position))
    if depth == 1:
        return len(turns)
    return sum(perft(R.play_legal(position, t), depth - 1) for t in turns)


def test_the_data_file_covers_the_start_and_middle_positions():
    assert [(d, n) for t, d, n in ROWS if t == START] == [(1, 72), (2, 13824), (3, 2012032)]
    middles = {t for t, d, n in ROWS if t != START and d >= 3}
    assert len(middles) >= 3


@pytest.mark.parametrize("text,depth,nodes", ROWS, ids=[f"{t[:12]}-d{d}" for t, d, _ in ROWS])
def test_engine_perft(text, depth, nodes):
    assert perft(R.parse_position(text), depth) == nodes


SMALL = [row for row in ROWS if row[2] <= 25000]


@pytest.mark.parametrize("text,depth,nodes", SMALL, ids=[f"{t[:12]}-d{d}" for t, d, _ in SMALL])
def test_reference_perft(text, depth, nodes):
    assert ref.perft(text, depth) == nodes


def test_turn_sets_agree_with_the_reference():
    """Not only the counts: the same coals, placements and resulting positions, in positions
    from seeded random games (including finished ones)."""
    rng = random.Random(20240611)
    compared = 0
    for _ in range(12):
        p = R.start()
        while True:
            text = R.format_position(p)
            mine = sorted((NAMES[t.coal], tuple(sorted((c, NAMES[q]) for c, q in t.placements)),
                           R.format_position(R.play(p, t))) for t in R.legal_turns(p))
            theirs = sorted((coal, tuple(sorted(placed)), after)
                            for (coal, _fallen, placed), after in ref.turns(text).items())
            assert mine == theirs, text
            compared += 1
            if R.outcome(p) is not None:
                break
            p = R.play_legal(p, R.random_turn(p, rng))
    assert compared > 150
