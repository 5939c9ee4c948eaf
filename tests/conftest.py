"""Fixtures shared by the test modules (the MQTT ones are in conftest_mqtt.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked ``long(seconds)`` first, the longest first, the rest in their order:
    with ``make test``'s ``--dist worksteal`` a worker that runs out of tests takes half of
    the other's queue, so the long ones are shared and the short ones fill in after. In
    collection order one worker was left running the last long tests alone for 130 s of the
    suite's 1,660 (docs/performance.md, Test suite)."""
    def seconds(item: pytest.Item) -> float:
        mark = item.get_closest_marker("long")
        if mark is None:
            return 0.0
        if len(mark.args) != 1 or not isinstance(mark.args[0], (int, float)):
            raise pytest.UsageError(f"{item.nodeid}: mark it long(seconds), e.g. @pytest.mark.long(60)")
        return float(mark.args[0])
    items.sort(key=lambda item: -seconds(item))


@pytest.fixture
def fast_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory on tmpfs when there is one, for databases written by many daemons: every
    commit is synced to the disk, which a killed process does not need (what it wrote is in
    the page cache) and which makes a disk-bound daemon lag far behind its source."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        directory = Path(tempfile.mkdtemp(prefix="arbiter-test-", dir="/dev/shm"))
        yield directory
        shutil.rmtree(directory, ignore_errors=True)
    else:
        yield tmp_path
