"""`make bench` (benchmarks/run.py) loads each benchmark module from its file; those that
spread frames over the cores hand their functions to worker processes, which pickle them
by module and name, so the loaded module must be the one that name finds."""

from __future__ import annotations

import importlib.util
import pickle
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_a_loaded_benchmarks_functions_can_go_to_worker_processes(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_run", BENCHMARKS / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.delitem(sys.modules, "bench_vision_random", raising=False)
    module = run.load(BENCHMARKS / "bench_vision_random.py")
    assert pickle.loads(pickle.dumps(module._frame)) is module._frame
