"""The board controller firmware builds from scratch, passes its native unit tests and fits
the ATmega328P (32 KB flash, 2 KB RAM) with room to spare.

Builds go to a temporary BUILD directory so that they never race a test that uses
firmware/build/arbiter.elf.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"
FLASH, RAM = 32768, 2048
SIZE_LINE = re.compile(r"arbiter\.elf: flash (\d+) bytes \(([\d.]+)% of 32768\), RAM (\d+) bytes \(([\d.]+)% of 2048\)")

pytestmark = pytest.mark.skipif(shutil.which("avr-gcc") is None, reason="needs gcc-avr (make system-deps)")


def make(build: Path, *targets: str, **variables: str) -> str:
    proc = subprocess.run(["make", "-C", str(FIRMWARE), f"BUILD={build}", *targets,
                           *(f"{k}={v}" for k, v in variables.items())], capture_output=True, text=True)
    assert proc.returncode == 0, f"make {' '.join(targets)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
    return proc.stdout + proc.stderr


def test_clean_build_fits_the_atmega328p(tmp_path: Path) -> None:
    build = tmp_path / "build"
    out = make(build, "clean", "all")
    for product in ("arbiter.elf", "arbiter.hex", "arbiter.lss"):
        assert (build / product).stat().st_size > 0, product
    sizes = SIZE_LINE.findall(out)
    assert len(sizes) == 1, out
    flash, flash_pct, ram, ram_pct = sizes[0]
    flash, ram = int(flash), int(ram)
    assert abs(float(flash_pct) - 100 * flash / FLASH) < 0.1 and abs(float(ram_pct) - 100 * ram / RAM) < 0.1
    # the printed figures are the ELF's sections: .text + .data in flash, .data + .bss + .noinit in RAM
    assert 1000 < flash < FLASH // 2, f"flash {flash} bytes: over half of {FLASH}"
    assert 100 < ram < RAM // 2, f"static RAM {ram} bytes: over half of {RAM} (the stack comes on top)"
    assert "warning" not in out.lower(), out


def test_native_unit_tests_pass(tmp_path: Path) -> None:
    out = make(tmp_path / "build", "test")
    assert "all native tests passed" in out, out
    assert re.search(r"== .*test_proto", out) and re.search(r"== .*test_frame", out), out


def test_api_level_variant_rebuilds_and_differs(tmp_path: Path) -> None:
    """``make API_LEVEL=2`` (the mismatch test's firmware) recompiles everything even in a
    directory built for level 1, and only the HELLO's API byte differs in behaviour."""
    build = tmp_path / "build"
    make(build, "all")
    level1 = (build / "arbiter.hex").read_bytes()
    out = make(build, "all", API_LEVEL="2")
    assert "-DPROTO_API=2" in out and "proto.c" in out, out
    assert (build / "arbiter.hex").read_bytes() != level1
    assert "avr-gcc" not in make(build, "all", API_LEVEL="2")  # nothing to do the second time
    out = make(build, "all")
    assert (build / "arbiter.hex").read_bytes() == level1  # back to level 1: the same image
