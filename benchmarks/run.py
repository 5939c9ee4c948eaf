"""Run every benchmarks/bench_*.py and print one table (``make bench``).

Each module offers ``run(quick: bool = False) -> list[tuple[str, str, str]]``: rows of
(measure, figure, target). ``--quick`` runs few repetitions (a smoke test, not figures).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    # registered under its name, so that worker processes (multiprocessing pickles
    # functions by module and name) find this very module
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few repetitions: checks the benchmarks run")
    parser.add_argument("names", nargs="*", help="only these benchmark modules (e.g. bench_rules)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE.parent))
    rows: list[tuple[str, str, str]] = []
    for path in sorted(HERE.glob("bench_*.py")):
        if args.names and path.stem not in args.names:
            continue
        print(f"running {path.stem} ...", file=sys.stderr, flush=True)
        rows.extend(load(path).run(quick=args.quick))
    widths = [max(len(r[i]) for r in rows + [("measure", "figure", "target")]) for i in range(3)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(("measure", "figure", "target"), widths)) + " |"
    print(line)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
