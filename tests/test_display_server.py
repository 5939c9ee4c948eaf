"""The display's HTTP side without a browser: bad requests get a clear answer and change
nothing; the record download; `arbiter display` and `arbiter run --display` from the command
line; the terminal display (`--tui`) in a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from conftest_mqtt import free_port, mosquitto, wait_until  # noqa: F401  (fixture)
from display_kit import TOKEN, LiveBoard, display  # noqa: F401  (fixture)
from host.record import read_any, replay

ROOT = Path(__file__).resolve().parent.parent


def request(url: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int, dict | str]:
    req = urllib.request.Request(url, data=body, headers=headers or {}, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            status, data, kind = answer.status, answer.read(), answer.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        status, data, kind = exc.code, exc.read(), exc.headers.get("Content-Type", "")
    return status, json.loads(data) if kind.startswith("application/json") else data.decode()


def test_bad_commands_are_refused_with_the_reason(display, mosquitto, tmp_path):  # noqa: F811
    board = LiveBoard(mosquitto, tmp_path, "srv-1", "pylos")
    try:
        board.show(board.rules.cells(board.position))
        base = display.server.url
        assert wait_until(lambda: request(base + "api/board/srv-1")[0] == 200, 10.0)
        cmd = base + "api/board/srv-1/cmd"
        jsonh = {"Content-Type": "application/json"}
        cases = [
            (cmd, b'{"cmd": "end-turn"}', {}, 415, "application/json"),
            (cmd, b"{nope", jsonh, 400, "the command is not JSON"),
            (cmd, b'["end-turn"]', jsonh, 400, "must be a JSON object"),
            (cmd, b'{"cmd": "new-game", "token": "x"}', jsonh, 400, "unknown cmd 'new-game'"),
            (cmd, b'{"cmd": "confirm", "force": true}', jsonh, 400, "unknown field 'force'"),
            (base + "api/board/nobody/cmd", b'{"cmd": "end-turn"}', jsonh, 404, "no board 'nobody'"),
            (cmd, b'{"cmd": "end-turn"}', {**jsonh, "Origin": "http://evil.example"}, 403, "own pages only"),
            (cmd, b'{"cmd": "end-turn", "token": "wrong"}', jsonh, 200, "wrong token"),
            (cmd, json.dumps({"cmd": "takeback", "token": TOKEN}).encode(), jsonh, 200, "nothing to take back"),
        ]
        for url, body, headers, status, text in cases:
            got, answer = request(url, body, headers)
            assert got == status and text in answer["error"] and answer["ok"] is False, (body, got, answer)
        big = json.dumps({"cmd": "end-turn", "token": "x" * 20_000}).encode()
        got, answer = request(cmd, big, jsonh)
        assert got == 413 and "command too large" in answer["error"]
        assert len(board.daemon.referee.turns) == 0
        board.play("1a1")
        board.wait_turns(1)
        got, answer = request(cmd, json.dumps({"cmd": "takeback", "token": TOKEN}).encode(), jsonh)
        assert (got, answer) == (200, {"ok": True, "cmd": "takeback"})
        board.wait_turns(0)
        assert request(base + "nothing/here")[0] == 404
        assert request(base + "api/board/bad%20id")[0] == 404
        status, page = request(base + "board/srv-1")
        assert status == 200 and "<title>" in page and "cdn" not in page.lower()
    finally:
        board.stop()


def test_read_only_displays_send_nothing(mosquitto):  # noqa: F811
    from host.display_cli import start_display
    shown = start_display(mosquitto.url, {}, port=0, read_only=True)
    try:
        shown.hall.feed("arbiter/ro/status", b"online")
        status, answer = request(shown.server.url + "api/board/ro/cmd", b'{"cmd": "end-turn"}',
                                 {"Content-Type": "application/json"})
        assert status == 403 and "--read-only" in answer["error"]
    finally:
        shown.stop()


def test_a_record_that_cannot_be_written_is_refused_with_the_reason(mosquitto):  # noqa: F811
    from host.display_cli import start_display
    from host.games import rules_for
    from host.referee import Referee
    referee = Referee(rules_for("pylos"))
    referee.begin(0.0)
    state = {"board": "odd", **referee.state()}
    state["moves"] = [{"move": "1a1", "ts": None}, {"move": "1-0", "ts": None}]
    shown = start_display(mosquitto.url, {}, port=0, read_only=True)
    try:
        assert shown.hall.feed("arbiter/odd/state", json.dumps(state).encode())
        status, answer = request(shown.server.url + "board/odd/record.pgn")
        assert status == 500 and "turn 2: '1-0' is a result" in answer["error"], (status, answer)
    finally:
        shown.stop()


def test_arbiter_run_display_serves_the_board_and_its_record(mosquitto, tmp_path):  # noqa: F811
    port = free_port()
    config = tmp_path / "arbiter.toml"
    config.write_text(f'board_id = "kitchen"\n[mqtt]\nurl = "{mosquitto.url}"\n')
    run = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--config", str(config), "--game", "pylos",
                            "--source", "sim:seed=3,speed=4", "--db", str(tmp_path / "g.sqlite3"), "--quiet",
                            "--display", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT)
    try:
        first = run.stdout.readline()
        assert first.strip() == f"arbiter run: web display http://127.0.0.1:{port}/board/kitchen"
        base = f"http://127.0.0.1:{port}/"
        assert wait_until(lambda: (request(base + "api/board/kitchen")[1] or {}).get("turn", 0) >= 4
                          if request(base + "api/board/kitchen")[0] == 200 else False, 30.0)
        status, record = request(base + "board/kitchen/record.pgn")
        assert status == 200 and replay(read_any(record)).ok and len(replay(read_any(record)).turns) >= 4
    finally:
        run.terminate()
        run.wait(20)
    assert run.returncode == 0, run.stderr.read()[-1500:]


def test_arbiter_display_tui_draws_the_board_in_a_terminal(mosquitto, tmp_path):  # noqa: F811
    board = LiveBoard(mosquitto, tmp_path, "tui-1", "pylos")
    board.show(board.rules.cells(board.position))
    board.play("1b2")
    board.wait_turns(1)
    main, child = pty.openpty()
    tui = subprocess.Popen([sys.executable, "-m", "host.cli", "display", "--tui", "--mqtt", mosquitto.url],
                           stdin=child, stdout=child, stderr=child, cwd=ROOT, env={**os.environ, "COLUMNS": "80",
                                                                                   "LINES": "24"})
    os.close(child)
    seen = b""

    def read_until(done, deadline: float) -> bytes:
        """Reads the terminal until `done(seen)`: a screen can reach the pty in several reads."""
        nonlocal seen
        while not done(seen) and time.monotonic() < deadline:
            if select.select([main], [], [], 0.5)[0]:
                seen += os.read(main, 65536)
        return seen

    try:
        deadline = time.monotonic() + 20
        read_until(lambda s: b"DARK to move" in s and b"tui-1" in s and b"1b2" in s, deadline)
        assert b"DARK to move" in seen and b"tui-1" in seen and b"1b2" in seen, (
            f"after {time.monotonic() - deadline + 20:.1f} s the terminal display is "
            f"{'running' if tui.poll() is None else f'gone (exit {tui.returncode})'} and wrote {len(seen)} bytes, "
            f"ending {seen[-1500:]!r}")
        board.play("1c2")
        read_until(lambda s: b"LIGHT to move" in s.split(b"DARK to move")[-1] and b"1c2" in s, deadline + 10)
        assert b"LIGHT to move" in seen.split(b"DARK to move")[-1] and b"1c2" in seen
        os.write(main, b"q")
        assert tui.wait(10) == 0
    finally:
        if tui.poll() is None:
            tui.kill()
        board.stop()
        os.close(main)
