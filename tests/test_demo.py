"""`arbiter demo` and `make demo`: every part at once on embedded defaults. The demo's
games must all be refereed to the example records, each with its illegal move flagged and
put right, the records must replay with `arbiter replay`, the web display must serve the
boards while it runs, and Ctrl-C must stop it cleanly with nothing recorded lost."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest_mqtt import free_port

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^demo: 3 games, (\d+) turns refereed from simulated camera frames, 3 illegal moves flagged "
                     r"and 3 put right, (\d+) questions? answered; 3 of 3 records equal the examples$", re.M)


def arbiter(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "host.cli", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)


def check_records(out: str, folder: Path) -> None:
    """Every record the summary lists replays, all legal, with the example's result."""
    listed = re.findall(r"^  (\S+\.pgn)  (\w+) (\S+), (\d+) turns$", out, re.M)
    assert [game for _, game, _, _ in listed] == ["pylos", "sparks", "sparklies"], out[-800:]
    for path, game, result, turns in listed:
        assert Path(path).resolve().parent == folder.resolve() / "records"
        checked = arbiter("replay", path, "--json")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        answer = json.loads(checked.stdout)
        assert answer["ok"] and answer["turns"] == int(turns) and answer["result"] == result


def test_demo_referees_every_example_and_writes_records_that_replay(tmp_path):
    proc = arbiter("demo", "--speed", "0", "--no-browser", "--dir", str(tmp_path / "demo"),
                   "--port", str(free_port()), "--mqtt-port", str(free_port()))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert SUMMARY.search(out), out[-1500:]
    for board in ("demo-pylos", "demo-sparks", "demo-sparklies"):
        assert f"== {board}:" in out and f"{board}:      ILLEGAL: " in out
    assert "LEDs demo-pylos  turn ● ○  illegal ◍" in out  # the flag drawn on the terminal's LEDs
    assert "the players confirm 1d4:B4a1" in out  # the question answered by command, as a tablet would
    check_records(out, tmp_path / "demo")
    assert "Traceback" not in proc.stderr


def demo_through_vision(game: str, tmp_path: Path, turns: str) -> str:
    """`arbiter demo --camera --game GAME`: its output, once it ran cleanly and the summary
    says ``turns`` turns were refereed, the one illegal move flagged and put right, and the
    record equals the example."""
    proc = arbiter("demo", "--camera", "--game", game, "--speed", "0", "--no-browser", "--no-display",
                   "--dir", str(tmp_path / "demo"), "--mqtt-port", str(free_port()), timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert re.search(rf"^demo: 1 game, {turns} turns refereed from vision reading rendered camera frames, 1 illegal "
                     r"move flagged and 1 put right, \d+ questions? answered; 1 of 1 records equal the examples$",
                     proc.stdout, re.M), proc.stdout[-1500:]
    assert "Traceback" not in proc.stderr
    return proc.stdout


@pytest.mark.long(120)
def test_demo_through_vision_referees_the_pylos_example(tmp_path):
    """`--camera`: every frame rendered by the synthetic camera and read by vision; the game
    must still be refereed to the example record."""
    out = demo_through_vision("pylos", tmp_path, r"\d+")
    listed = re.findall(r"^  (\S+\.pgn)  pylos (\S+), (\d+) turns$", out, re.M)
    assert len(listed) == 1, out[-800:]
    checked = arbiter("replay", listed[0][0], "--json")
    assert checked.returncode == 0 and json.loads(checked.stdout)["ok"], checked.stdout + checked.stderr


@pytest.mark.long(260)
def test_demo_through_vision_referees_the_sparklies_example(tmp_path):
    """The grid through the camera: control plates one or two pixels wide, put down and
    taken up under hands, and tiles that change colour; the game must be refereed to the
    example record, its one illegal move flagged and nothing else."""
    out = demo_through_vision("sparklies", tmp_path, "77")
    assert re.search(r"^  \S+\.pgn  sparklies 0-1, 77 turns$", out, re.M), out[-800:]


def test_demo_serves_the_display_and_stops_cleanly_on_ctrl_c(tmp_path):
    port = free_port()
    demo = subprocess.Popen([sys.executable, "-m", "host.cli", "demo", "--speed", "1", "--no-browser", "--game",
                             "pylos", "--dir", str(tmp_path / "demo"), "--port", str(port), "--mqtt-port",
                             str(free_port())], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if re.match(r"demo-pylos:\s+3\. ", line):
                break
        assert any(f"web display http://127.0.0.1:{port}/" in line for line in lines), "".join(lines)
        # The terminal line is printed as the daemon referees the turn; the display hears of it
        # over MQTT a moment later, so the page is asked until it has caught up.
        deadline = time.monotonic() + 15
        while True:
            boards = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/boards", timeout=10))
            assert [b["board"] for b in boards["boards"]] == ["demo-pylos"] and boards["link"]["connected"]
            if boards["boards"][0]["turn"] >= 3 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert boards["boards"][0]["turn"] >= 3, boards
        demo.send_signal(signal.SIGINT)
        out, err = demo.communicate(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 130 and "demo: stopped" in out, out[-500:] + err[-1500:]
    assert "Traceback" not in err
    db = sqlite3.connect(tmp_path / "demo" / "games.sqlite3")
    moves = db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    db.close()
    assert moves >= 3  # what was refereed before Ctrl-C is in the database


@pytest.mark.long(50)
def test_make_demo_on_a_fresh_virtual_environment(tmp_path):
    """The README's first command, as a newcomer runs it: `make demo` creates the virtual
    environment, installs and runs the demo (here without a browser and at full speed)."""
    venv = tmp_path / "venv"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    args = f"--speed 0 --no-browser --dir {tmp_path / 'demo'} --port {free_port()} --mqtt-port {free_port()}"
    proc = subprocess.run(["make", "-s", "demo", f"VENV={venv}", f"DEMO_ARGS={args}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert (venv / "bin" / "arbiter").exists()
    assert SUMMARY.search(proc.stdout), proc.stdout[-1500:]
    check_records(proc.stdout, tmp_path / "demo")
