"""A subscribing MQTT client for the daemon's listeners (``arbiter leds``, ``arbiter
display``): the configuration's credentials and TLS, paho's reconnect back-off, and the
subscriptions made again after every reconnection. paho's callbacks run on its network
thread, so ``on_message`` and ``on_link`` must only hand work on, never block."""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping

from .mqtt import parse_url


def subscriber(url: str, mqtt_config: Mapping[str, Any], client_id: str, subscriptions: list[str], *,
               on_message: Callable[[str, bytes], None],
               on_link: Callable[[bool, str | None], None] = lambda connected, problem: None,
               log: logging.Logger) -> Any:
    """A paho client, connecting in the background once its loop starts; ValueError for a
    bad url."""
    import paho.mqtt.client as mqtt

    address = parse_url(url)  # the daemon's own rules for a broker url
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311,
                         clean_session=True)
    if mqtt_config.get("username"):
        client.username_pw_set(mqtt_config["username"], mqtt_config.get("password"))
    if address.tls:
        client.tls_set(ca_certs=mqtt_config.get("ca_file"), certfile=mqtt_config.get("certfile"),
                       keyfile=mqtt_config.get("keyfile"))
        client.tls_insecure_set(bool(mqtt_config.get("tls_insecure")))
    client.reconnect_delay_set(0.5, 30)  # type: ignore[arg-type]

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("MQTT: %s refused the connection: %s", url, reason)
            on_link(False, f"{url} refused the connection: {reason}")
            return
        log.info("MQTT: connected to %s", url)
        c.subscribe([(t, 1) for t in subscriptions])  # again after every reconnection
        on_link(True, None)

    def on_disconnect(c: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:  # not our own disconnect at the end
            log.warning("MQTT: lost %s (%s); reconnecting", url, reason)
            on_link(False, f"lost {url} ({reason}); reconnecting")

    def on_connect_fail(c: Any, userdata: Any) -> None:
        on_link(False, f"cannot reach the broker at {url}; retrying")

    client.on_connect = on_connect
    client.on_disconnect = on_disconnect
    client.on_connect_fail = on_connect_fail
    client.on_message = lambda c, u, m: on_message(m.topic, bytes(m.payload))
    client.connect_async(address.host, address.port, keepalive=int(mqtt_config.get("keepalive") or 30))
    return client
