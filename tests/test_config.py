"""The daemon's TOML configuration: defaults, every key checked, errors naming the key."""

import pytest

from host.config import ConfigError, from_mapping, load


def test_defaults():
    config = load(None)
    assert config.board_id == "board-1" and config.game is None
    assert config.stability == {"frames": 3, "seconds": 0.25}
    assert config.mqtt["url"] is None and config.mqtt["embedded_port"] == 1883 and config.mqtt["enabled"]
    assert config.source["coverage"] == "all"


def test_full_file(tmp_path):
    path = tmp_path / "arbiter.toml"
    path.write_text('''
board_id = "table-3"
game = "sparklies"
variant = "speed"

[source]
spec = "sim:seed=4"
speed = 2

[rules]
size = "7x5"
dead = ["d3"]
wrap = true

[mqtt]
url = "mqtts://broker.local:8883"
username = "arbiter"
password = "secret"
token = "t0k3n"

[storage]
database = "/tmp/games.sqlite3"

[stability]
frames = 5
seconds = 0.5

[players]
black = "Ann"
white = "Bob"
''')
    config = load(path)
    assert config.board_id == "table-3" and config.variant == "speed"
    assert config.rule_options() == {"width": 7, "height": 5, "dead": ["d3"], "wrap": True}
    assert config.mqtt["url"] == "mqtts://broker.local:8883" and config.mqtt["token"] == "t0k3n"
    assert config.players == {"black": "Ann", "white": "Bob"}
    assert config.stability == {"frames": 5, "seconds": 0.5}


@pytest.mark.parametrize("data, words", [
    ({"bord_id": "x"}, "unknown key 'bord_id'"),
    ({"mqtt": {"urll": "mqtt://x"}}, "mqtt.urll: unknown key"),
    ({"mqtt": {"url": 5}}, "mqtt.url: expected a string, got 5"),
    ({"mqtt": {"url": "http://x"}}, "mqtt.url: expected mqtt://"),
    ({"stability": {"frames": "3"}}, "stability.frames: expected a whole number"),
    ({"stability": {"frames": True}}, "stability.frames: expected a whole number"),
    ({"stability": {"frames": 0}}, "frames must be at least 1"),
    ({"game": "chess"}, "game: 'chess' is not one of"),
    ({"mqtt": "yes"}, "[mqtt] must be a table"),
    ({"source": {"coverage": "top"}}, "source.coverage"),
    ({"players": {"light": 3}}, "players.light: expected a string"),
    ({"game": "sparklies", "rules": {"size": "nine"}}, None),
])
def test_wrong_keys_and_values_are_named(data, words):
    if words is None:
        with pytest.raises(ConfigError, match="rules.size"):
            from_mapping(data, "a.toml").rule_options()
        return
    with pytest.raises(ConfigError) as info:
        from_mapping(data, "a.toml")
    assert str(info.value).startswith("a.toml: ") and words in str(info.value)


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("board_id = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load(bad)
