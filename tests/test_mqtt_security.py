"""Locking the board down on a real Mosquitto: the password file and ACL of docs/mqtt.md (only
the trusted user may command, displays read only), refused credentials, and TLS with a CA
file, a client certificate, and the insecure switch."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from conftest_mqtt import (MOSQUITTO_PASSWD, TIMEOUT, Mosquitto, Subscriber, free_port, move_event, pylos_state,
                           wait_until)
from host.mqtt import MqttLink
from host.mqtt_commands import Command

BOARD = "kitchen"
T = f"arbiter/{BOARD}"
USERS = {"arbiter-daemon": "daemon-pw", "display": "display-pw", "referee": "referee-pw"}
#: the ACL file docs/mqtt.md shows, for board "kitchen"
ACL = """\
# the referee daemon: publishes every board's topics, reads their commands
user arbiter-daemon
topic readwrite arbiter/+/#

# displays and LED controllers: read only
user display
topic read arbiter/#

# the one trusted to give commands (a phone, the controller's buttons)
user referee
topic write arbiter/kitchen/cmd
topic read arbiter/kitchen/#
"""


@pytest.fixture
def locked_broker(tmp_path: Path):
    passwords = tmp_path / "passwords"
    for n, (user, password) in enumerate(USERS.items()):
        subprocess.run([MOSQUITTO_PASSWD, *(["-c"] if n == 0 else []), "-b", str(passwords), user, password],
                       check=True, capture_output=True)
    acl = tmp_path / "acl"
    acl.write_text(ACL)
    broker = Mosquitto(tmp_path, lines=["allow_anonymous false", f"password_file {passwords}",
                                        f"acl_file {acl}"]).start()
    yield broker
    broker.stop()


def as_user(broker: Mosquitto, user: str, topic_filter: str = f"{T}/#") -> Subscriber:
    return Subscriber(broker.port, topic_filter, username=user, password=USERS[user]).connect()


def test_with_acls_only_the_trusted_user_commands_and_displays_only_read(locked_broker: Mosquitto) -> None:
    link = MqttLink(board_id=BOARD, url=locked_broker.url, username="arbiter-daemon",
                    password=USERS["arbiter-daemon"], trust_authenticated=True)
    link.start()
    display = referee = late = None
    try:
        assert link.wait_connected(TIMEOUT)
        link.publish_state(pylos_state(BOARD, turn=2))
        display = as_user(locked_broker, "display")
        referee = as_user(locked_broker, "referee")
        assert wait_until(lambda: display.last(f"{T}/state") is not None)
        # a display cannot command, even with a well-formed command...
        display.publish(f"{T}/cmd", b'{"cmd": "takeback", "id": "forged"}')
        # ...nor overwrite the retained state
        display.publish(f"{T}/state", b'{"forged": true}', retain=True)
        # the trusted user commands without a token: the broker vouches for it
        referee.publish(f"{T}/cmd", b'{"cmd": "takeback", "id": "trusted"}')
        command = link.commands.get(timeout=TIMEOUT)
        assert command == Command("takeback", id="trusted")  # the forged one never arrived first
        assert link.commands.empty()
        link.reply(command, ok=True)
        assert wait_until(lambda: referee.last(f"{T}/cmd/reply") is not None)
        assert referee.last(f"{T}/cmd/reply").json() == {"ok": True, "cmd": "takeback", "id": "trusted"}
        late = as_user(locked_broker, "display")
        assert wait_until(lambda: late.last(f"{T}/state") is not None)
        assert late.last(f"{T}/state").json() == pylos_state(BOARD, turn=2)
        # events reach the read-only displays
        link.publish_event(1, move_event(1))
        assert wait_until(lambda: late.seqs(BOARD) == [1], link=link)
    finally:
        for client in (display, referee, late):
            if client is not None:
                client.close()
        link.stop(timeout=1.0)


def test_anonymous_clients_and_wrong_passwords_are_refused(locked_broker: Mosquitto,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    anonymous = Subscriber(locked_broker.port, f"{T}/#")
    anonymous.client.connect_async("127.0.0.1", locked_broker.port)
    anonymous.client.loop_start()
    try:
        assert wait_until(lambda: bool(anonymous.refused))
    finally:
        anonymous.close()
    caplog.set_level(logging.ERROR, logger="host.mqtt")
    link = MqttLink(board_id=BOARD, url=locked_broker.url, username="arbiter-daemon", password="wrong",
                    token="t", reconnect_min=0.05, reconnect_max=0.2)
    link.start()
    try:
        assert wait_until(lambda: any("refused the connection" in r.getMessage() for r in caplog.records))
        assert not link.connected
    finally:
        link.stop(timeout=0.5)
    message = next(r.getMessage() for r in caplog.records if "refused the connection" in r.getMessage())
    assert locked_broker.url in message and "authori" in message.lower()


# -- TLS


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private CA, a server certificate for 127.0.0.1 and a client certificate."""
    d = tmp_path_factory.mktemp("tls")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Arbiter Test CA",
            cwd=d)
    (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name, subject in (("server", "/CN=127.0.0.1"), ("client", "/CN=arbiter-daemon")):
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, cwd=d)
        extra = ["-extfile", "server.ext"] if name == "server" else []
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.crt", "-days", "2", *extra, cwd=d)
    openssl("req", "-x509", *ec, "-keyout", "other-ca.key", "-out", "other-ca.crt", "-days", "2",
            "-subj", "/CN=Someone Else", cwd=d)
    return d


@pytest.fixture
def tls_broker(tmp_path: Path, certificates: Path):
    """Port: server authentication only; ``mutual_port``: a client certificate is required."""
    mutual = free_port()
    files = [f"cafile {certificates / 'ca.crt'}", f"certfile {certificates / 'server.crt'}",
             f"keyfile {certificates / 'server.key'}"]
    broker = Mosquitto(tmp_path, lines=[*files, f"listener {mutual} 127.0.0.1", *files, "require_certificate true"])
    broker.mutual_port = mutual  # type: ignore[attr-defined]
    broker.start()
    yield broker
    broker.stop()


def delivers(link: MqttLink) -> bool:
    """Connected, and an event went out and was acknowledged."""
    link.start()
    try:
        if not link.wait_connected(TIMEOUT):
            return False
        link.publish_event(1, move_event(1))
        return wait_until(lambda: link.outbox.unsent(1) == [], link=link)
    finally:
        link.stop(timeout=1.0)


def test_tls_with_the_ca_file_and_a_client_certificate(tls_broker: Mosquitto, certificates: Path) -> None:
    ca = str(certificates / "ca.crt")
    assert delivers(MqttLink(board_id=BOARD, url=f"mqtts://127.0.0.1:{tls_broker.port}", token="t", tls_ca_file=ca))
    assert delivers(MqttLink(board_id=BOARD, url=f"mqtts://127.0.0.1:{tls_broker.mutual_port}", token="t",
                             tls_ca_file=ca, tls_certfile=str(certificates / "client.crt"),
                             tls_keyfile=str(certificates / "client.key")))


def refused(link: MqttLink, caplog: pytest.LogCaptureFixture) -> bool:
    """The link tries (at least twice) and never gets connected."""
    caplog.clear()
    caplog.set_level(logging.WARNING, logger="host.mqtt")
    link.start()
    try:
        tried = wait_until(lambda: sum("cannot connect" in r.getMessage() or "lost the connection" in r.getMessage()
                                       for r in caplog.records) >= 2)
        return tried and not link.connected
    finally:
        link.stop(timeout=0.5)


def test_tls_refuses_what_it_cannot_verify(tls_broker: Mosquitto, certificates: Path,
                                           caplog: pytest.LogCaptureFixture) -> None:
    ca, other = str(certificates / "ca.crt"), str(certificates / "other-ca.crt")
    retry = {"token": "t", "reconnect_min": 0.05, "reconnect_max": 0.2}
    # a certificate from a CA we do not trust, even with the host name check off
    assert refused(MqttLink(board_id=BOARD, url=f"mqtts://127.0.0.1:{tls_broker.port}", tls_ca_file=other,
                            **retry), caplog)
    assert refused(MqttLink(board_id=BOARD, url=f"mqtts://127.0.0.1:{tls_broker.port}", tls_ca_file=other,
                            tls_insecure=True, **retry), caplog)
    # the certificate names 127.0.0.1, not localhost
    assert refused(MqttLink(board_id=BOARD, url=f"mqtts://localhost:{tls_broker.port}", tls_ca_file=ca,
                            **retry), caplog)
    # the listener that wants a client certificate
    assert refused(MqttLink(board_id=BOARD, url=f"mqtts://127.0.0.1:{tls_broker.mutual_port}", tls_ca_file=ca,
                            **retry), caplog)


def test_tls_insecure_skips_only_the_host_name_check(tls_broker: Mosquitto, certificates: Path) -> None:
    assert delivers(MqttLink(board_id=BOARD, url=f"mqtts://localhost:{tls_broker.port}", token="t",
                             tls_ca_file=str(certificates / "ca.crt"), tls_insecure=True))
