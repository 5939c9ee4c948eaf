"""``arbiter leds`` against a real Mosquitto: the test publishes what the daemon would (retained
state and turn, events) and checks what a WLED device would receive, or the GPIO pins (on
gpiozero's MockFactory, passed in) and the commands the buttons send."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from conftest_mqtt import REPO, Mosquitto, Subscriber, mosquitto, wait_until  # noqa: F401 (a fixture)
from gpio_mock import Clock, factory  # noqa: F401 (a fixture)
from host.games import rules_for
from host.indicators import FIRST_RGB, SECOND_RGB
from host.leds_cli import run_leds

START = rules_for("pylos").format_position(rules_for("pylos").start())


def state(board: str, status: str = "playing", to_move: str | None = "light", result: str = "*") -> bytes:
    return json.dumps({"board": board, "game": "pylos", "variant": "standard", "position": START,
                       "to_move": to_move, "turn": 0, "status": status, "last_move": None, "result": result,
                       "players": {}}).encode()


def args(board: str, url: str, **extra: Any) -> argparse.Namespace:
    base = dict(board_id=board, driver="wled", mqtt=url, config=None, token=None, wled_topic=None, wled_api=None,
                no_buttons=False, verbose=False)
    return argparse.Namespace(**{**base, **extra})


class Running:
    """run_leds on a thread, stopped and joined at the end."""

    def __init__(self, a: argparse.Namespace, **kw: Any):
        self.stop = threading.Event()
        self.code: list[int] = []
        self.thread = threading.Thread(target=lambda: self.code.append(run_leds(a, stop=self.stop, **kw)))
        self.thread.start()

    def finish(self) -> int:
        self.stop.set()
        self.thread.join(15)
        assert not self.thread.is_alive()
        return self.code[0]


def api(sub: Subscriber, topic: str = "wled/board/api") -> list[Any]:
    return [m.json() for m in sub.on(topic)]


def test_wled_json_shows_each_situation(mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="arbiter.leds")
    board = "w1"
    with Subscriber(mosquitto.port, "wled/board/#") as wled, Subscriber(mosquitto.port, "none") as daemon:
        daemon.publish(f"arbiter/{board}/state", state(board), retain=True)
        daemon.publish(f"arbiter/{board}/turn", "light", retain=True)
        run = Running(args(board, mosquitto.url, wled_topic="wled/board"))
        try:
            playing = {"on": True, "bri": 128, "seg": [{"col": [list(FIRST_RGB), [0, 0, 0]], "fx": 0, "sx": 40}]}
            assert wait_until(lambda: playing in api(wled)), api(wled)
            assert api(wled)[0] == {"on": False}  # dark until the state came

            def event(body: dict) -> None:
                daemon.publish(f"arbiter/{board}/events", json.dumps(body))

            event({"seq": 7, "type": "illegal", "reason": "x", "cells": [{"cell": "1b2"}], "position": START})
            flagged = {"on": True, "bri": 128, "seg": [{"col": [[255, 0, 0], [0, 0, 0]], "fx": 1, "sx": 240}]}
            assert wait_until(lambda: api(wled)[-1] == flagged)

            # malformed payloads: logged naming the topic, ignored, and the program goes on
            daemon.publish(f"arbiter/{board}/events", "{not json")
            daemon.publish(f"arbiter/{board}/turn", "purple")
            daemon.publish(f"arbiter/{board}/state", b"[1, 2]")
            daemon.publish(f"arbiter/{board}/events", json.dumps({"type": "move"}))
            assert wait_until(lambda: sum("ignored" in r.getMessage() for r in caplog.records) >= 4)
            messages = [r.getMessage() for r in caplog.records]
            assert any(m.startswith(f"arbiter/{board}/events: payload is not JSON") for m in messages)
            assert any(m.startswith(f"arbiter/{board}/turn: turn: expected white, black") for m in messages)
            assert any(m.startswith(f"arbiter/{board}/state: state: expected a JSON object") for m in messages)
            assert any("\"seq\" must be an integer" in m for m in messages)

            event({"seq": 7, "type": "restored", "position": START})   # a duplicate seq: dropped
            event({"seq": 8, "type": "restored", "position": START})
            assert wait_until(lambda: api(wled)[-1] == playing)
            assert flagged == api(wled)[-2]

            event({"seq": 9, "type": "confirm-needed", "question": "?", "candidates": ["1a1", "1b1"]})
            breathe = {"on": True, "bri": 128, "seg": [{"col": [list(FIRST_RGB), [0, 0, 0]], "fx": 2, "sx": 128}]}
            assert wait_until(lambda: api(wled)[-1] == breathe)

            event({"seq": 10, "type": "game-over", "result": "0-1", "winner": "dark", "reason": "x"})
            over = {"on": True, "bri": 128, "seg": [{"col": [list(SECOND_RGB), [0, 0, 0]], "fx": 1, "sx": 40}]}
            assert wait_until(lambda: api(wled)[-1] == over)

            count = len(api(wled))
            daemon.publish("wled/board/status", "online")  # the WLED device restarted
            assert wait_until(lambda: len(api(wled)) == count + 1)  # the lights again
            assert api(wled)[-1] == over
        finally:
            assert run.finish() == 0
        assert wait_until(lambda: api(wled)[-1] == {"on": False})  # dark when the program stops
        daemon.publish(f"arbiter/{board}/state", b"", retain=True)


def test_console_script_wled_colour(mosquitto: Mosquitto, tmp_path: Path) -> None:
    board = "w2"
    arbiter = Path(sys.executable).parent / "arbiter"
    with Subscriber(mosquitto.port, "wled/strip/#") as wled, Subscriber(mosquitto.port, "none") as daemon:
        daemon.publish(f"arbiter/{board}/state", state(board, to_move="dark"), retain=True)
        log = open(tmp_path / "stderr.txt", "w+")
        proc = subprocess.Popen([str(arbiter), "leds", "--board-id", board, "--driver", "wled", "--mqtt",
                                 mosquitto.url, "--wled-topic", "wled/strip", "--wled-api", "colour"],
                                stdout=subprocess.DEVNULL, stderr=log, cwd=REPO)
        try:
            cols = lambda: [m.payload.decode() for m in wled.on("wled/strip/col")]  # noqa: E731
            blue = "#{:02X}{:02X}{:02X}".format(*SECOND_RGB)
            assert wait_until(lambda: blue in cols()), cols()
            daemon.publish(f"arbiter/{board}/state", b"oops", retain=True)
            daemon.publish(f"arbiter/{board}/events", json.dumps(
                {"seq": 1, "type": "illegal", "cells": [{"cell": "1a1"}]}))
            assert wait_until(lambda: cols()[-1] == "#FF0000")
            assert proc.poll() is None
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(15)
        assert code == 0
        assert wait_until(lambda: cols()[-1] == "#000000")
        log.seek(0)
        err = log.read()
        assert f"arbiter/{board}/state: payload is not JSON: Expecting value at line 1 column 1; ignored" in err
        daemon.publish(f"arbiter/{board}/state", b"", retain=True)


def test_bad_options_exit_2(mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stop = threading.Event()
    assert run_leds(args("w3", mosquitto.url), stop=stop) == 2
    assert "wled: give the WLED device's MQTT topic" in capsys.readouterr().err
    assert run_leds(args("bad/id", mosquitto.url, wled_topic="w"), stop=stop) == 2
    assert "cannot be an MQTT topic level" in capsys.readouterr().err
    config = tmp_path / "arbiter.toml"
    config.write_text("[gpio]\nconfirm = 40\n")
    assert run_leds(args("w3", mosquitto.url, driver="gpio", config=str(config)), stop=stop) == 2
    assert "arbiter.toml: gpio.confirm: 40 is not a BCM pin number (2 to 27)" in capsys.readouterr().err
    assert run_leds(args("w3", "http://x", wled_topic="w"), stop=stop) == 2
    assert "expected mqtt://host[:port]" in capsys.readouterr().err
    proc = subprocess.run([str(Path(sys.executable).parent / "arbiter"), "leds", "--driver", "hue"],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2 and "invalid choice: 'hue'" in proc.stderr


# -- the gpio driver -------------------------------------------------------------------------




def test_gpio_driver_lights_and_buttons(mosquitto: Mosquitto, factory: MockFactory, tmp_path: Path,
                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="arbiter.leds")
    board = "g1"
    config = tmp_path / "arbiter.toml"
    config.write_text("[mqtt]\ntoken = \"s3cret\"\n\n[gpio]\nhollows = { 1a1 = 4 }\nled_first = 17\n"
                      "led_second = 18\nrgb = [23, 24, 25]\nbuzzer = 26\nturn_first = 20\nturn_second = 21\n"
                      "confirm = 22\n")
    clock = Clock(10.0)
    first, second = factory.pin(17), factory.pin(18)
    with Subscriber(mosquitto.port, f"arbiter/{board}/cmd") as daemon:
        daemon.publish(f"arbiter/{board}/state", state(board), retain=True)
        run = Running(args(board, mosquitto.url, driver="gpio", config=str(config)), pin_factory=factory, clock=clock)
        try:
            assert wait_until(lambda: first.state == 1 and second.state == 0)
            cmds = lambda: [m.json() for m in daemon.on(f"arbiter/{board}/cmd")]  # noqa: E731
            logged = lambda text: any(text in r.getMessage() for r in caplog.records)  # noqa: E731

            def press(pin: int, at: float, done) -> None:
                factory.pin(pin).drive_low()
                clock.t = at            # the press settles
                assert wait_until(done)
                factory.pin(pin).drive_high()
                clock.t = at + 0.1      # and so does the release, at the main loop's next turn
                time.sleep(0.1)

            press(21, 10.1, lambda: logged("not their turn"))   # dark's button while light is to move
            press(20, 10.3, lambda: len(cmds()) == 1)           # light ends the turn
            sent = cmds()[0]
            assert {k: v for k, v in sent.items() if k != "id"} == {"cmd": "end-turn", "token": "s3cret"}
            daemon.publish(f"arbiter/{board}/cmd/reply",
                           json.dumps({"ok": False, "cmd": "end-turn", "id": sent["id"], "error": "too soon"}))
            assert wait_until(lambda: logged("end-turn refused: too soon"))

            clock.t = 20.0              # the question comes: its cycle starts now
            daemon.publish(f"arbiter/{board}/state", state(board, status="awaiting-confirmation"), retain=True)
            daemon.publish(f"arbiter/{board}/events", json.dumps(
                {"seq": 3, "type": "confirm-needed", "question": "?", "candidates": ["1a1", "1b1", "1c1"]}))
            assert wait_until(lambda: len(first.states) > 4)  # light's LED blinks slowly
            press(22, 21.3, lambda: len(cmds()) == 2)         # during slot 1
            assert cmds()[1]["cmd"] == "confirm" and cmds()[1]["move"] == "1b1"
            press(22, 22.9, lambda: len(cmds()) == 3)         # between slots 2 and 0: none lit
            assert cmds()[2]["cmd"] == "confirm" and "move" not in cmds()[2]

            daemon.publish(f"arbiter/{board}/events", "not json")  # survived
            daemon.publish(f"arbiter/{board}/state", state(board, to_move="dark"), retain=True)
            assert wait_until(lambda: second.state == 1 and first.state == 0)
            assert logged(f"arbiter/{board}/events: payload is not JSON")
        finally:
            assert run.finish() == 0
        assert first.state == 0 and second.state == 0 and factory.pin(17).function == "input"
        daemon.publish(f"arbiter/{board}/state", b"", retain=True)
