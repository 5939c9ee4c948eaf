"""Readings scored against what the board really holds (the renderer's or the simulator's
ground truth), for the tests and the benchmarks.

A character is right when it equals the truth (``#``, a ball whose colour is not read,
is right over any ball), unknown when ``?``, and wrong otherwise: a confident wrong
reading, the one thing recognition must not produce.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping


def judge(seen: str, actual: str) -> str:
    """``right``, ``unknown`` or ``wrong`` for one character read against the truth."""
    if seen == "?":
        return "unknown"
    return "right" if seen == actual or (seen == "#" and actual != ".") else "wrong"


def score(cells: Mapping[str, str], truth: Mapping[str, str], counts: Counter, prefix: str = "") -> list[str]:
    """Add each character of ``cells`` to ``counts`` (``chars``, ``right``, ``unknown``,
    ``wrong``, each after ``prefix``); positions missing from ``truth`` are empty. Returns
    the names of the positions read wrong."""
    wrong = []
    for name, seen in cells.items():
        actual = truth.get(name, "." * len(seen))
        for s, a in zip(seen, actual):
            verdict = judge(s, a)
            counts[prefix + "chars"] += 1
            counts[prefix + verdict] += 1
            if verdict == "wrong" and name not in wrong:
                wrong.append(name)
    return wrong
