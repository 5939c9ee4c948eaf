"""The pure parts of the MQTT link: command parsing and authorisation, replies, topics and
payloads, broker urls, the memory outbox, configuration errors, and the embedded broker's
start-up error when its port is taken."""

from __future__ import annotations

import json
import logging
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.broker import BrokerStartError, EmbeddedBroker
from host.mqtt import BrokerAddress, MqttLink, parse_url
from host.mqtt_commands import (COMMANDS, MAX_PAYLOAD, Authority, Command, CommandError, parse_command,
                                reply_payload)
from host.mqtt_outbox import MemoryOutbox
from host.mqtt_topics import Topics, event_payload, state_payloads, turn_text

TOKEN = "tok-123"
AUTH = Authority(TOKEN)


def parse(data: object, authority: Authority = AUTH, **kw: bool) -> Command:
    return parse_command(json.dumps(data).encode(), authority, **kw)


def refusal(data: object, authority: Authority = AUTH, **kw: bool) -> CommandError:
    with pytest.raises(CommandError) as info:
        parse_command(data if isinstance(data, bytes) else json.dumps(data).encode(), authority, **kw)
    return info.value


# -- commands


def test_every_command_with_its_arguments() -> None:
    assert parse({"cmd": "new-game", "token": TOKEN}) == Command("new-game")
    assert parse({"cmd": "new-game", "token": TOKEN, "game": "Pylos", "variant": "mature", "id": "a"}) == \
        Command("new-game", id="a", game="pylos", variant="mature")
    assert parse({"cmd": "takeback", "token": TOKEN, "turns": 3}) == Command("takeback", turns=3)
    assert parse({"cmd": "confirm", "token": TOKEN, "move": " 1b2 "}) == Command("confirm", move="1b2")
    assert parse({"cmd": "end-turn", "token": TOKEN, "id": 9}) == Command("end-turn", id=9)
    command = parse({"cmd": "set-players", "token": TOKEN, "players": {"white": "Cy", "black": "Di"}})
    assert dict(command.players) == {"white": "Cy", "black": "Di"}
    with pytest.raises(TypeError):
        command.players["white"] = "Eve"  # type: ignore[index]


@pytest.mark.parametrize("data, message", [
    ({"cmd": "new-game", "token": TOKEN, "game": "chess"}, "new-game: unknown game 'chess' (one of: pylos, sparks, sparklies)"),
    ({"cmd": "new-game", "token": TOKEN, "variant": ""}, 'new-game: "variant" must be 1 to 64 characters'),
    ({"cmd": "new-game", "token": TOKEN, "game": ["pylos"]}, 'new-game: "game" must be a string, not an array'),
    ({"cmd": "takeback", "token": TOKEN, "turns": True}, '"turns" must be a positive integer, not true'),
    ({"cmd": "takeback", "token": TOKEN, "turns": 1.5}, '"turns" must be a positive integer, not 1.5'),
    ({"cmd": "takeback", "token": TOKEN, "move": "1a1"}, "takeback: unknown field 'move' (its fields: turns)"),
    ({"cmd": "end-turn", "token": TOKEN, "x": 1}, "end-turn: unknown field 'x' (its fields: none)"),
    ({"cmd": "confirm", "token": TOKEN, "move": None}, 'confirm: "move" must be a string, not null'),
    ({"cmd": "set-players", "token": TOKEN}, 'set-players: missing "players"'),
    ({"cmd": "set-players", "token": TOKEN, "players": {}}, 'set-players: "players" is empty'),
    ({"cmd": "set-players", "token": TOKEN, "players": {"red": "Al"}}, "set-players: unknown side 'red'"),
    ({"cmd": "set-players", "token": TOKEN, "players": {"light": 3}}, '"players.light" must be a string'),
    ({"cmd": "set-players", "token": TOKEN, "players": {"light": "x" * 65}}, "must be 1 to 64 characters"),
    ({"cmd": "CONFIRM", "token": TOKEN}, "unknown cmd 'CONFIRM' (one of: new-game, takeback, confirm, end-turn, "
                                         "set-players)"),
    ({"cmd": "confirm", "token": TOKEN, "id": [1]}, '"id" must be a string or an integer, not an array'),
    ({"cmd": "confirm", "token": TOKEN, "id": True}, '"id" must be a string or an integer, not a boolean'),
    (3, "payload must be a JSON object, not a number"),
    ("confirm", "payload must be a JSON object, not a string"),
    (None, "payload must be a JSON object, not null"),
])
def test_malformed_commands_say_what_is_wrong(data: object, message: str) -> None:
    assert message in str(refusal(data))


def test_the_reply_echoes_what_could_be_read_of_a_bad_command() -> None:
    error = refusal({"cmd": "confirm", "token": TOKEN, "id": "q7", "move": 5})
    assert (error.cmd, error.id) == ("confirm", "q7")
    error = refusal({"cmd": 5, "token": TOKEN, "id": 4})
    assert (error.cmd, error.id) == (None, 4)
    error = refusal(b"{not json")
    assert (error.cmd, error.id) == (None, None)
    assert str(error).startswith("payload is not JSON: Expecting property name enclosed in double quotes at line 1 column 2")


def test_payloads_that_are_not_text_or_too_large() -> None:
    assert str(refusal(b"\x80abc")) == "payload is not UTF-8 text (byte 0)"
    big = json.dumps({"cmd": "confirm", "token": TOKEN, "move": "x" * MAX_PAYLOAD}).encode()
    assert "payload too large" in str(refusal(big))


def test_tokens() -> None:
    assert str(refusal({"cmd": "confirm"})) == 'missing "token"'
    assert str(refusal({"cmd": "confirm", "token": "tok-124"})) == "wrong token"
    assert str(refusal({"cmd": "confirm", "token": None})) == 'missing "token"'
    assert "commands are disabled" in str(refusal({"cmd": "confirm", "token": TOKEN}, Authority(None)))
    # an unauthorised sender learns nothing about the rest of its command
    assert str(refusal({"cmd": "nonsense", "token": "guess"})) == "wrong token"
    trusted = Authority(None, trust_authenticated=True)
    assert parse({"cmd": "confirm"}, trusted) == Command("confirm")
    assert parse({"cmd": "confirm", "token": "whatever"}, trusted) == Command("confirm")


def test_retained_commands_are_refused_with_their_id() -> None:
    error = refusal({"cmd": "takeback", "token": TOKEN, "id": 1}, retained=True)
    assert "retained commands are ignored" in str(error) and (error.cmd, error.id) == ("takeback", 1)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_give_a_command_or_a_command_error(payload: bytes) -> None:
    try:
        command = parse_command(payload, AUTH)
    except CommandError as exc:
        assert str(exc)
    else:
        assert command.cmd in COMMANDS


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["cmd", "token", "id", "game", "variant", "move", "turns", "players", "x"]),
                       json_values, max_size=6),
       st.sampled_from(COMMANDS), st.booleans())
def test_any_json_object_gives_a_command_or_a_command_error(fields: dict, cmd: str, authorised: bool) -> None:
    data = {**fields, "cmd": cmd}
    if authorised:
        data["token"] = TOKEN
    try:
        command = parse(data)
    except CommandError as exc:
        assert str(exc)
    else:
        assert authorised and command.cmd == cmd


def test_reply_payloads() -> None:
    assert json.loads(reply_payload(ok=True, cmd="confirm", id="x")) == {"ok": True, "cmd": "confirm", "id": "x"}
    assert json.loads(reply_payload(ok=False, cmd=None, error="bad")) == {"ok": False, "cmd": None, "error": "bad"}
    with pytest.raises(ValueError, match="needs an error"):
        reply_payload(ok=False, cmd="confirm")


# -- topics and payloads


def test_topics_of_a_board() -> None:
    t = Topics("kitchen-2")
    assert (t.state, t.turn, t.events, t.status, t.cmd, t.reply, t.all) == (
        "arbiter/kitchen-2/state", "arbiter/kitchen-2/turn", "arbiter/kitchen-2/events",
        "arbiter/kitchen-2/status", "arbiter/kitchen-2/cmd", "arbiter/kitchen-2/cmd/reply", "arbiter/kitchen-2/#")
    for bad in ("", "a/b", "a+", "#", "-x", "x" * 65, "tab le"):
        with pytest.raises(ValueError, match="cannot be an MQTT topic level"):
            Topics(bad)


def test_turn_text() -> None:
    assert turn_text({"status": "playing", "to_move": "light"}) == "light"
    assert turn_text({"status": "flagged", "to_move": "black"}) == "black"
    assert turn_text({"status": "awaiting-confirmation", "to_move": "white"}) == "white"
    assert turn_text({"status": "finished", "to_move": "dark"}) == "none"
    assert turn_text({"status": "playing", "to_move": None}) == "none"
    assert turn_text({}) == "none"
    with pytest.raises(ValueError, match="to_move must be one of white, black, light, dark or null, not 'red'"):
        turn_text({"status": "playing", "to_move": "red"})


def test_state_payloads_check_the_state() -> None:
    state = {"board": "b", "status": "playing", "to_move": "dark", "players": {"light": "Åsa"}}
    body, turn = state_payloads(state)
    assert json.loads(body) == state and "Åsa" in body.decode() and turn == b"dark"
    with pytest.raises(ValueError, match="status must be one of playing, flagged, awaiting-confirmation, finished"):
        state_payloads({"status": "paused"})
    with pytest.raises(ValueError, match="state must be a JSON object"):
        state_payloads(["playing"])  # type: ignore[arg-type]


def test_event_payload_puts_the_outbox_seq_first() -> None:
    body = event_payload(12, {"t": 3.5, "type": "restored", "position": "p", "seq": 99, "game_id": 4})
    assert body.decode().startswith('{"seq":12,')
    assert json.loads(body) == {"seq": 12, "t": 3.5, "type": "restored", "position": "p", "game_id": 4}
    with pytest.raises(ValueError, match="seq must be an integer"):
        event_payload(True, {"type": "restored"})  # type: ignore[arg-type]


# -- urls and configuration


def test_broker_urls() -> None:
    assert parse_url("mqtt://broker.lan") == BrokerAddress("broker.lan", 1883, False)
    assert parse_url("mqtts://broker.lan") == BrokerAddress("broker.lan", 8883, True)
    assert parse_url("mqtt://10.0.0.2:1999/") == BrokerAddress("10.0.0.2", 1999, False)
    assert str(parse_url("mqtts://h:1")) == "mqtts://h:1"
    for url, message in [("http://h", "expected mqtt://host[:port] or mqtts://host[:port]"),
                         ("broker.lan:1883", "expected mqtt://"),
                         ("mqtt://u:p@h", "give the user name and password as mqtt.username"),
                         ("mqtt://h:99999", "out of range"),
                         ("mqtt://h:port", "mqtt url 'mqtt://h:port'"),
                         ("mqtt://", "no host name"),
                         ("mqtt://h/topic", "nothing may follow host:port")]:
        with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
            parse_url(url)


@pytest.mark.parametrize("options, message", [
    ({"tls_ca_file": "ca.crt"}, "TLS options need an mqtts:// url (the embedded broker has no TLS)"),
    ({"url": "mqtt://h", "tls_insecure": True}, "TLS options need an mqtts:// url (the url is mqtt://)"),
    ({"url": "mqtts://h", "tls_certfile": "c.crt"}, "mqtt.certfile and mqtt.keyfile go together"),
    ({"url": "mqtts://h", "tls_ca_file": "/nonexistent/ca.crt"}, "mqtt.ca_file: no such file '/nonexistent/ca.crt'"),
    ({"password": "pw"}, "mqtt.password needs mqtt.username"),
    ({"trust_authenticated": True}, "trust_authenticated needs mqtt.username"),
    ({"token": ""}, "mqtt.token must be a non-empty string"),
    ({"keepalive": 0}, "keepalive must be 1..65535"),
    ({"reconnect_min": 5, "reconnect_max": 1}, "need 0 < min <= max"),
    ({"inflight": 0}, "inflight window must be at least 1"),
    ({"replay": -1}, "replay must be 0 or more"),
    ({"board_id": "a/b"}, "cannot be an MQTT topic level"),
])
def test_configuration_errors_name_the_option(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        MqttLink(**{"board_id": "b", **options})


def test_a_link_is_not_started_twice_and_stopping_an_unstarted_link_is_harmless() -> None:
    link = MqttLink(board_id="b", url="mqtt://127.0.0.1:9", token="t", reconnect_min=0.05, reconnect_max=0.1)
    link.stop()
    link.start()
    try:
        with pytest.raises(RuntimeError, match="already started"):
            link.start()
    finally:
        link.stop(timeout=0.2)


# -- the memory outbox


def test_memory_outbox() -> None:
    box = MemoryOutbox()
    assert box.add({"type": "restored", "t": 1}) == 1
    assert box.add({"type": "restored", "t": 2}, seq=5) == 5
    assert box.add({"type": "restored", "t": 3}) == 6
    with pytest.raises(ValueError, match="seq 6 is not after the last one"):
        box.add({"type": "restored"}, seq=6)
    assert [seq for seq, _ in box.unsent(2)] == [1, 5]
    box.mark_sent(5)
    assert [seq for seq, _ in box.unsent(10)] == [1, 6] and box.pending == 2
    with pytest.raises(KeyError, match="no event with seq 5"):
        box.mark_sent(5)


# -- the embedded broker


def test_the_embedded_broker_says_when_its_port_is_taken(caplog) -> None:
    """One clear error, and no traceback from amqtt's own log (it reads as a crash)."""
    caplog.set_level(logging.DEBUG)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        broker = EmbeddedBroker(port=port)
        with pytest.raises(BrokerStartError, match=f"port {port} on 127.0.0.1 is already in use"):
            broker.start()
        assert not broker.running
        link = MqttLink(board_id="b", embedded_port=port, token="t")
        with pytest.raises(BrokerStartError, match="already in use"):
            link.start()
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records if r.exc_info]
    with pytest.raises(ValueError, match="port must be 1..65535"):
        EmbeddedBroker(port=0)


def test_tls_files_that_are_not_certificates_are_named(tmp_path) -> None:
    bogus = tmp_path / "ca.pem"
    bogus.write_text("not a certificate\n")
    link = MqttLink(board_id="b", url="mqtts://127.0.0.1:9", token="t", tls_ca_file=str(bogus))
    with pytest.raises(ValueError, match=f"mqtt TLS: cannot load mqtt.ca_file = '{bogus}'"):
        link.start()
    link.stop()
