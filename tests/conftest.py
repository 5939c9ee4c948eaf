"""Fixtures shared by the test modules (the MQTT ones are in conftest_mqtt.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest


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
