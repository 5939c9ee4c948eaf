"""Pylos perft: the number of turn sequences of each depth from fixed positions, pinned in
tests/data/perft_pylos.txt and recounted both by the engine and by the independent
reference implementation (tests/reference_pylos.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from host.games.pylos import PylosPosition, PylosRules

try:
    from tests import reference_pylos as ref
except ImportError:  # pytest's rootdir-less import mode puts tests/ itself on the path
    import reference_pylos as ref  # type: ignore[no-redef]

DATA = Path(__file__).parent / "data" / "perft_pylos.txt"


def load_cases() -> list[tuple[str, str, int, int]]:
    """``<position string> | <variant> | <depth> | <nodes>`` per line; # starts a comment."""
    cases = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        position, variant, depth, nodes = (field.strip() for field in line.split("|"))
        cases.append((position, variant, int(depth), int(nodes)))
    return cases


CASES = load_cases()


def perft(rules: PylosRules, pos: PylosPosition, depth: int) -> int:
    turns = rules.turn_list(pos)
    if depth == 1:
        return len(turns)
    return sum(perft(rules, rules.play(pos, t), depth - 1) for t in turns)


def test_the_file_covers_the_start_and_three_middle_positions_of_every_variant():
    positions = {(p, v) for p, v, _, _ in CASES}
    assert ("....,....,....,..../...,...,.../..,../. L 15 15", "standard") in positions
    assert {v for _, v in positions} == {"standard", "children", "mature"}
    assert len(positions) >= 4
    assert max(d for _, _, d, _ in CASES) >= 3


@pytest.mark.parametrize("position, variant, depth, nodes", CASES)
def test_engine_perft(position, variant, depth, nodes):
    rules = PylosRules(variant)
    assert perft(rules, rules.parse_position(position), depth) == nodes


@pytest.mark.parametrize("position, variant, depth, nodes", CASES)
def test_reference_perft_agrees(position, variant, depth, nodes):
    assert ref.perft(ref.parse(position), depth, variant) == nodes
