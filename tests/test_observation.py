"""Observation log lines and events: parsing, errors that name the line, matching."""

import pytest

from host.events import Event
from host.games import rules_for
from host.observation import (Observation, ObservationError, Press, check_cells, matches, parse_line, read_log,
                              write_log)


def test_round_trip_and_read_only_cells(tmp_path):
    obs = Observation(12.345, {"1a1": "W", "1b1": ".", "2a1": "?", "1c1": "#"})
    assert parse_line(obs.to_line()) == obs
    with pytest.raises(TypeError):
        obs.cells["1a1"] = "B"  # type: ignore[index]
    path = tmp_path / "log.jsonl"
    write_log(path, [obs, Observation(13.0, {"1a1": "B"})])
    assert [o.t for o in read_log(path)] == [12.345, 13.0]


@pytest.mark.parametrize("line, words", [
    ("{nope", "not JSON"),
    ("[1]", "expected an object"),
    ('{"t": "x", "cells": {}}', "'t' must be a finite number"),
    ('{"t": 1, "cells": []}', "'cells' must be an object"),
    ('{"t": 1, "cells": {"1a1": "LL", "1b1": "L"}}', "mixes"),
    ('{"t": 1, "cells": {"1a1": 3}}', "not a cell content"),
    ('{"t": 1, "cells": {}, "x": 1}', "unknown key 'x'"),
    ('{"t": 1, "press": "reset"}', "unknown button 'reset'"),
    ('{"t": 1, "press": "end-turn", "player": 2}', "'player' must be"),
    ('{"t": 1, "press": "confirm", "cells": {}}', "unknown key 'cells' in a button press"),
    ('{"press": "confirm"}', "'t' must be a finite number"),
])
def test_malformed_lines_name_the_line(line, words):
    with pytest.raises(ObservationError) as info:
        parse_line(line, 7)
    assert str(info.value).startswith("line 7: ") and words in str(info.value)


def test_button_presses_share_the_log(tmp_path):
    path = tmp_path / "log.jsonl"
    items = [Observation(1.0, {"1a1": "#"}), Press(1.05, "end-turn", "light"), Press(2.0, "confirm")]
    write_log(path, items)
    assert list(read_log(path)) == items
    assert '"press":"end-turn","player":"light"' in path.read_text()


def test_log_reader_reports_bad_lines_and_goes_on(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"t": 1, "cells": {}}\ngarbage\n\n{"t": 2, "cells": {}}\n')
    items = list(read_log(path))
    assert isinstance(items[1], ObservationError) and items[1].line == 2
    assert [i.t for i in items if isinstance(i, Observation)] == [1.0, 2.0]


def test_check_cells_against_the_game():
    pylos = rules_for("pylos")
    names = frozenset(pylos.cells(pylos.start()))
    check_cells(pylos, Observation(0, {"1a1": "L", "4a1": "?", "1b1": "#"}), names)
    with pytest.raises(ObservationError, match="'1e1' is not a position"):
        check_cells(pylos, Observation(0, {"1e1": "L"}), names)
    with pytest.raises(ObservationError, match="1a1: 'W' is not one of L D"):
        check_cells(pylos, Observation(0, {"1a1": "W"}), names)
    sparklies = rules_for("sparklies", width=3, height=3)
    names = frozenset(n for n in sparklies.cells(sparklies.start()))
    check_cells(sparklies, Observation(0, {"a1": "Rb", "c3": "??", "b2": "G?"}), names)
    with pytest.raises(ObservationError, match="b2: 'Gx'"):
        check_cells(sparklies, Observation(0, {"b2": "Gx"}), names)


def test_matches():
    assert matches("?", "L") and matches("#", "D") and not matches("#", ".")
    assert matches("L", "L") and not matches("L", "D")
    assert matches("R?", "Rb") and matches("??", "Gw") and not matches("Rb", "Rw")


def test_event_json_round_trip_and_type_check():
    event = Event("illegal", 3.5, {"reason": "r", "cells": [{"cell": "1a1", "expected": ".", "seen": "D"}]})
    assert Event.from_json(event.to_json()) == event
    assert event.to_json()["type"] == "illegal"
    with pytest.raises(ValueError, match="unknown event type"):
        Event("teleport", 0.0)


def test_reserves_and_choice_round_trip_and_errors():
    from host.games import rules_for
    from host.observation import Observation, ObservationError, Press, check_cells, parse_line
    obs = parse_line('{"t": 1, "cells": {"1a1": "#"}, "reserves": {"light": 14, "dark": 15}}')
    assert obs.reserves == {"light": 14, "dark": 15}
    assert parse_line(obs.to_line()) == obs
    press = parse_line('{"t": 2, "press": "confirm", "choice": 1}')
    assert press == Press(2.0, "confirm", None, 1) and parse_line(press.to_line()) == press
    for bad, message in [('{"t": 1, "cells": {}, "reserves": [1]}', "'reserves' must be an object"),
                         ('{"t": 1, "cells": {}, "reserves": {"light": -1}}', "reserves: 'light': -1"),
                         ('{"t": 1, "press": "confirm", "choice": "2"}', "'choice' must be")]:
        with pytest.raises(ObservationError, match=message):
            parse_line(bad, 3)
    pylos = rules_for("pylos")
    names = frozenset(pylos.cells(pylos.start()))
    check_cells(pylos, obs, names)
    with pytest.raises(ObservationError, match="'white' is not a player of pylos"):
        check_cells(pylos, Observation(0.0, {}, {"white": 3}), names)
    sparks = rules_for("sparks")
    with pytest.raises(ObservationError, match="sparks has no reserves"):
        check_cells(sparks, obs, names)
