"""``arbiter leds --driver serial``: a board controller (the real firmware in the simavr
harness) used as an MQTT LED indicator. The test publishes what the daemon would and checks
the strip the harness decodes, and that the controller's buttons send the right commands:
the confirm button sends the candidate the strip showed when it was pressed."""

from __future__ import annotations

import json
import time

from conftest_mqtt import Mosquitto, Subscriber, mosquitto, wait_until  # noqa: F401 (a fixture)
from controller_sim import SimController, build_sim, firmware_elf
from host.games import rules_for
from host.indicators import BASE, FIRST_RGB, SECOND_RGB
from test_leds_cli import Running, args

RULES = rules_for("pylos")


def hexed(rgb: tuple[int, int, int]) -> str:
    return "{:02x}{:02x}{:02x}".format(*rgb)


def pylos_state(board: str, position: str, status: str = "playing") -> bytes:
    to_move = RULES.to_move(RULES.parse_position(position))
    return json.dumps({"board": board, "game": "pylos", "variant": "standard", "position": position,
                       "to_move": to_move, "turn": 4, "status": status, "last_move": None, "result": "*",
                       "players": {}}).encode()


def test_a_controller_shows_the_turn_and_its_confirm_button_answers_the_question(mosquitto, tmp_path):
    build_sim()
    board = "ser1"
    position = RULES.start()
    for move in ("1a1", "1b1", "1a2", "1b2", "1c1"):
        position = RULES.play(position, RULES.parse_turn(position, move))
    text = RULES.format_position(position)  # dark to move; 2a1 is open, and 1d4 is a placement
    first, second = hexed(FIRST_RGB), hexed(SECOND_RGB)
    with SimController(firmware_elf(), tmp_path / "tty") as sim, \
            Subscriber(mosquitto.port, f"arbiter/{board}/cmd") as daemon:
        daemon.publish(f"arbiter/{board}/state", pylos_state(board, text), retain=True)
        run = Running(args(board, mosquitto.url, driver="serial", port=str(tmp_path / "tty"), token="t0k"))
        try:
            sim.wait_strip(lambda px: px[1] == second and px[0] == "000000", 15)  # dark to move
            daemon.publish(f"arbiter/{board}/events", json.dumps(
                {"seq": 3, "type": "confirm-needed", "question": "?", "candidates": ["2a1", "1d4"]}))
            daemon.publish(f"arbiter/{board}/state", pylos_state(board, text, "awaiting-confirmation"),
                           retain=True)
            under_2a1 = {BASE.index(h) for h in ("1a1", "1b1", "1a2", "1b2")}
            # the two candidates in turn: the hollows under 2a1, then 1d4 alone
            sim.wait_strip(lambda px: {i for i in range(16) if px[3 + i] != "000000"} == under_2a1, 10)
            since = sim.mark()
            while True:  # press when 1d4 comes on: a player confirming what they see
                line = sim.wait_line("strip", 10, since)
                since = sim.lines().index(line, since) + 1
                pixels = line.split()[3:]
                if {i for i in range(16) if pixels[3 + i] != "000000"} == {BASE.index("1d4")}:
                    break
            sim.close_switch(48)
            time.sleep(0.1)
            sim.open_switch(48)
            commands = lambda: [m.json() for m in daemon.on(f"arbiter/{board}/cmd")]  # noqa: E731
            assert wait_until(lambda: any(c.get("cmd") == "confirm" for c in commands()), 10), commands()
            confirm = next(c for c in commands() if c["cmd"] == "confirm")
            assert confirm["move"] == "1d4" and confirm["token"] == "t0k"
            sim.close_switch(47)  # dark's turn button during the question: it answers nothing
            time.sleep(0.1)
            sim.open_switch(47)
            daemon.publish(f"arbiter/{board}/events", json.dumps({"seq": 4, "type": "move", "turn": 6,
                                                                  "player": "dark", "move": "1d4"}))
            after = RULES.play(position, RULES.parse_turn(position, "1d4"))
            daemon.publish(f"arbiter/{board}/state", pylos_state(board, RULES.format_position(after)), retain=True)
            sim.wait_strip(lambda px: px[0] == first and px[1] == "000000" and set(px[3:]) == {"000000"}, 10)
            sim.close_switch(46)  # light's turn button: end-turn
            time.sleep(0.1)
            sim.open_switch(46)
            assert wait_until(lambda: any(c.get("cmd") == "end-turn" for c in commands()), 10), commands()
            assert [c["cmd"] for c in commands()] == ["confirm", "end-turn"]
        finally:
            assert run.finish() == 0
            daemon.publish(f"arbiter/{board}/state", b"", retain=True)
        assert sim.errors() == []
