"""The LED plan (host/indicators.py): plain dicts in, Lights out, as the daemon publishes them."""

from __future__ import annotations

import dataclasses

import pytest

from host.games import rules_for
from host.indicators import (BASE, FAST, FIRST_RGB, IN_TURN, MAX_SLOT, OFF, RED, SECOND_RGB, SLOW, STEADY,
                             Indicator, IndicatorError, Lights, Pixel, footprint, slot_shown)


def state(status: str = "playing", to_move: str | None = "light", game: str = "pylos", position: str | None = None,
          result: str = "*") -> dict:
    if position is None:
        position = rules_for(game).format_position(rules_for(game).start()) if game != "sparklies" else None
    return {"board": "b", "game": game, "variant": "standard" if game != "sparklies" else "subtle",
            "position": position, "to_move": to_move, "turn": 0, "status": status, "last_move": None,
            "result": result, "players": {}}


def lit(lights: Lights) -> dict[str, Pixel]:
    return {name: p for name, p in zip(BASE, lights.hollows) if p.lit}


def test_value_types_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        OFF.r = 3  # type: ignore[misc]
    assert not OFF.lit and Pixel(1, 0, 0).lit


def test_footprint_of_each_level() -> None:
    assert footprint("1b2") == ("1b2",)
    assert footprint("2a1") == ("1a1", "1b1", "1a2", "1b2")
    assert set(footprint("3b2")) == {f"1{c}{r}" for c in "bcd" for r in (2, 3, 4)}
    assert len(footprint("4a1")) == 16
    assert footprint("e5") == () and footprint("2d1") == ()


def test_slot_timing_follows_the_protocol() -> None:
    assert slot_shown(0.0, 3) == 0 and slot_shown(0.79, 3) == 0
    assert slot_shown(0.85, 3) is None
    assert slot_shown(1.1, 3) == 1 and slot_shown(2.5, 3) == 2 and slot_shown(3.2, 3) == 0
    assert slot_shown(0.5, 0) is None


def test_nothing_before_a_state() -> None:
    ind = Indicator()
    assert ind.lights.turn == (OFF, OFF) and not any(p.lit for p in ind.lights.hollows)
    assert ind.turn("dark") is None  # no game yet: still dark


def test_playing_shows_the_mover_in_their_colour() -> None:
    ind = Indicator()
    lights = ind.state(state(to_move="light"))
    assert lights is not None and lights.status == "playing"
    assert lights.turn == (Pixel(*FIRST_RGB, STEADY), OFF)
    assert lights.illegal == OFF and not lit(lights)
    lights = ind.turn("dark")
    assert lights is not None and lights.turn == (OFF, Pixel(*SECOND_RGB, STEADY))
    assert ind.turn("dark") is None  # unchanged


def test_sparks_colours_map_by_name() -> None:
    ind = Indicator()
    lights = ind.state(state(game="sparks", to_move="black", position="WBWB,BWBW,WBWB,BWBW/...,...,.../..,../. B"))
    assert lights is not None and lights.turn == (OFF, Pixel(*SECOND_RGB))


def test_illegal_flags_the_footprint_and_buzzes_once() -> None:
    ind = Indicator()
    ind.state(state())
    lights = ind.event({"seq": 5, "type": "illegal", "reason": "x", "position": "p",
                        "cells": [{"cell": "1b2", "expected": ".", "seen": "D"},
                                  {"cell": "2c3", "expected": ".", "seen": "#"}]})
    assert lights is not None and lights.buzz and lights.status == "flagged"
    assert lights.illegal == Pixel(*RED, FAST)
    assert lit(lights) == {n: Pixel(*RED, FAST) for n in ("1b2", "1c3", "1d3", "1c4", "1d4")}
    assert lights.turn[0] == Pixel(*FIRST_RGB)  # still the mover's turn
    assert not ind.lights.buzz  # the buzz is for that one change only
    assert ind.state(state(status="flagged")) is None  # the state agrees: nothing new
    lights = ind.event({"seq": 6, "type": "restored", "position": "p"})
    assert lights is not None and lights.illegal == OFF and not lit(lights) and not lights.buzz


def test_duplicate_events_are_dropped() -> None:
    ind = Indicator()
    ind.state(state())
    flag = {"seq": 9, "type": "illegal", "reason": "x", "cells": [{"cell": "1a1"}]}
    assert ind.event(flag) is not None
    ind.event({"seq": 10, "type": "restored", "position": "p"})
    assert ind.event(flag) is None  # seq 9 again after a reconnection
    assert ind.lights.illegal == OFF


def test_a_flag_ends_with_a_move_a_takeback_or_a_new_game() -> None:
    for seq, ending in enumerate(({"type": "move", "player": "light", "move": "1a1", "position": "p"},
                                  {"type": "takeback", "to_turn": 0, "undone": [], "position": "p"},
                                  {"type": "new-game", "game": "pylos", "variant": "standard", "position": "p"}), 1):
        ind = Indicator()
        ind.state(state())
        ind.event({"seq": 1, "type": "illegal", "cells": [{"cell": "1a1"}]})
        ind.event({"seq": 2, **ending})
        assert ind.lights.illegal == OFF and not lit(ind.lights), ending["type"]
    assert ind.lights.status == "playing"


def test_a_move_passes_the_turn() -> None:
    ind = Indicator()
    ind.state(state(to_move="light"))
    lights = ind.event({"seq": 1, "type": "move", "player": "light", "move": "1a1", "position": "p"})
    assert lights is not None and lights.turn == (OFF, Pixel(*SECOND_RGB))


def test_confirmation_cycles_the_candidates_in_turn() -> None:
    rules = rules_for("pylos")
    position = rules.start()
    for move in ("1a1", "1b1", "1a2", "1b2", "1c1"):
        position = rules.play(position, rules.parse_turn(position, move))
    text = rules.format_position(position)
    ind = Indicator()
    ind.state(state(to_move=rules.to_move(position), position=text))
    mover = 0 if rules.to_move(position) == "light" else 1
    colour = FIRST_RGB if mover == 0 else SECOND_RGB
    lights = ind.event({"seq": 3, "type": "confirm-needed", "question": "which?", "candidates": ["2a1", "1d4"]})
    assert lights is not None and lights.status == "awaiting-confirmation"
    assert lights.turn[mover] == Pixel(*colour, SLOW)
    shown = lit(lights)
    assert shown["1a1"] == Pixel(*colour, IN_TURN) and shown["1d4"] == Pixel(*colour, IN_TURN)
    assert set(shown) == {"1a1", "1b1", "1a2", "1b2", "1d4"}
    # 2a1 lights the four hollows under it; 1d4 its own (a raise would light both ends)
    assert lights.slots == (frozenset({"1a1", "1b1", "1a2", "1b2"}), frozenset({"1d4"}))
    assert ind.slots == 2
    assert ind.candidate_for_slot(0) == "2a1" and ind.candidate_for_slot(1) == "1d4"
    assert ind.candidate_for_slot(2) is None and ind.candidate_for_slot(None) is None
    lights = ind.event({"seq": 4, "type": "confirm-withdrawn", "reason": "gone", "position": text})
    assert lights is not None and not lit(lights) and lights.turn[mover].mode == STEADY
    assert ind.candidate_for_slot(0) is None


def test_candidates_beyond_sixteen_share_the_last_slot() -> None:
    ind = Indicator()
    ind.state(state(status="awaiting-confirmation"))
    cands = [f"1{c}{r}" for r in "1234" for c in "abcd"] + ["1a1"]  # 17 (the rules need not agree)
    lights = ind.event({"seq": 1, "type": "confirm-needed", "question": "?", "candidates": cands})
    assert lights is not None
    assert len(lights.slots) == MAX_SLOT + 1
    assert lights.slots[MAX_SLOT] == frozenset({"1d4", "1a1"})
    assert ind.slots == 16
    assert ind.candidate_for_slot(14) == cands[14]
    assert ind.candidate_for_slot(15) is None  # shared: it does not say which


def test_game_over_shows_the_winner() -> None:
    ind = Indicator()
    ind.state(state())
    lights = ind.event({"seq": 1, "type": "game-over", "result": "0-1", "winner": "dark", "reason": "x"})
    assert lights is not None and lights.status == "finished"
    assert lights.turn == (OFF, Pixel(*SECOND_RGB, SLOW))
    assert all(p == Pixel(*SECOND_RGB) for p in lights.hollows) and len(lights.hollows) == 16
    assert ind.state(state(status="finished", to_move=None, result="0-1")) is None


def test_a_draw_blinks_both_indicators() -> None:
    ind = Indicator()
    lights = ind.state(state(status="finished", to_move=None, result="1/2-1/2"))
    assert lights is not None and lights.turn == (Pixel(*FIRST_RGB, SLOW), Pixel(*SECOND_RGB, SLOW))
    assert not lit(lights)


def test_sparklies_has_no_hollows_and_black_moves_first() -> None:
    ind = Indicator()
    lights = ind.state(state(game="sparklies", status="finished", to_move=None, result="1-0"))
    assert lights is not None and lights.hollows == ()
    assert lights.turn == (OFF, Pixel(*SECOND_RGB, SLOW))  # 1-0 is black's win in Sparklies
    ind2 = Indicator()
    ind2.state(state(game="sparklies", to_move="black"))
    lights = ind2.event({"seq": 1, "type": "illegal", "cells": [{"cell": "e5", "expected": "R.", "seen": "Rb"}]})
    assert lights is not None and lights.illegal.lit and lights.hollows == ()


def test_offline_daemon_goes_dark() -> None:
    ind = Indicator()
    ind.state(state())
    lights = ind.status("offline")
    assert lights is not None and lights.turn == (OFF, OFF) and lights.status == "off"
    assert ind.status("online") is not None and ind.lights.turn[0].lit


@pytest.mark.parametrize("call, message", [
    (lambda i: i.state([1]), "state: expected a JSON object, not list"),
    (lambda i: i.state({"status": "dancing"}), "state: \"status\" must be one of"),
    (lambda i: i.state({"to_move": 3}), "state: \"to_move\" must be a string, not int"),
    (lambda i: i.event({"type": "move"}), "event: \"seq\" must be an integer, not None"),
    (lambda i: i.event({"seq": 1}), "event: \"type\" must be a string"),
    (lambda i: i.event({"seq": 1, "type": "illegal", "cells": "1a1"}), "event 1 (illegal): \"cells\" must be a list"),
    (lambda i: i.event({"seq": 1, "type": "confirm-needed", "candidates": [1]}), "\"candidates\" must be a list"),
    (lambda i: i.turn("purple"), "turn: expected white, black, light, dark or none, not 'purple'"),
])
def test_malformed_input_says_what_is_wrong(call, message) -> None:
    ind = Indicator()
    ind.state(state())
    before = ind.lights
    with pytest.raises(IndicatorError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(ind)
    assert ind.lights == before


def test_a_sensor_fault_shows_amber_until_the_sensors_agree() -> None:
    from host.indicators import AMBER
    ind = Indicator()
    ind.state(state(to_move="light"))
    lights = ind.event({"seq": 1, "type": "sensors-disagree", "hollows": ["1c3"], "detail": "x"})
    assert lights is not None and lights.illegal == Pixel(*AMBER, SLOW)
    assert lit(lights) == {"1c3": Pixel(*AMBER, SLOW)}
    assert lights.turn[0] == Pixel(*FIRST_RGB)  # play goes on showing whose turn it is
    lights = ind.event({"seq": 2, "type": "illegal", "reason": "x", "cells": [{"cell": "1a1"}], "position": "p"})
    assert lights is not None and lights.illegal == Pixel(*RED, FAST)  # a flag comes first
    ind.event({"seq": 3, "type": "restored", "position": "p"})
    lights = ind.event({"seq": 4, "type": "sensors-agree", "hollows": ["1c3"], "detail": "y"})
    assert lights is not None and lights.illegal == OFF and lit(lights) == {}
    with pytest.raises(IndicatorError, match="hollows"):
        ind.event({"seq": 5, "type": "sensors-disagree", "hollows": "1c3"})
