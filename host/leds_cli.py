"""``arbiter leds``: the board's lights and buttons as an MQTT client of the daemon
(docs/leds.md). Subscribes to ``arbiter/<id>/state|turn|events|status``, feeds an
:class:`~host.indicators.Indicator` and hands every change to a driver; the gpio driver's
buttons become commands on ``arbiter/<id>/cmd``.

paho's callbacks run on its network thread; they only queue the messages, which
:func:`run_leds` handles on its own thread.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sys
import threading
import time
from typing import Any, Callable

from .config import ConfigError, load
from .signals import stop_on_signals
from .indicators import DARK, Indicator, IndicatorError, Lights, side, slot_shown
from .led_drivers import DRIVERS, Driver, DriverError, DriverOptions, open_driver
from .mqtt_topics import Topics
from .observation import Press

log = logging.getLogger("arbiter.leds")
#: how long the main loop waits for a message before it looks at the buttons again
POLL = 0.02


class LedsError(ValueError):
    """Bad options or configuration for ``arbiter leds``: printed, exit 2."""


def decode(topic_kind: str, payload: bytes) -> Any:
    """A subscribed message's content: JSON for state and events, text for turn and status;
    IndicatorError saying what is wrong."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IndicatorError(f"payload is not UTF-8 (byte {exc.start})") from None
    if topic_kind in ("turn", "status"):
        return text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise IndicatorError(f"payload is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


class LedsApp:
    """The main-thread side: messages in, lights to the driver, presses out as commands."""

    def __init__(self, board_id: str, driver: Driver, publish: Callable[[str, bytes], None], *,
                 token: str | None = None, clock: Callable[[], float] = time.monotonic):
        self.topics = Topics(board_id)
        self.driver = driver
        self.indicator = Indicator()
        self._publish = publish
        self._token = token
        self._clock = clock
        self._cycle_start = clock()
        self._cycle: tuple[str, ...] = ()
        self._ids: set[str] = set()
        self._count = 0
        self.driver.show(self.indicator.lights)

    def handle(self, topic: str, payload: bytes) -> None:
        """One message; a malformed one is logged, naming the topic, and changes nothing."""
        if topic in self.driver.subscriptions:
            self.driver.message(topic, payload)
            return
        kind = topic[len(self.topics.prefix) + len(self.topics.board_id) + 2:]
        if kind == "cmd/reply":
            self._reply(payload)
            return
        if not payload and kind in ("state", "turn", "status"):
            return  # a retained message being cleared
        try:
            content = decode(kind, payload)
            feed = {"state": self.indicator.state, "turn": self.indicator.turn, "events": self.indicator.event,
                    "status": self.indicator.status}[kind]
            lights = feed(content)
        except (IndicatorError, KeyError) as exc:
            log.warning("%s: %s; ignored", topic, exc)
            return
        if lights is not None:
            self.show(lights)

    def show(self, lights: Lights) -> None:
        if self.indicator.candidates != self._cycle:  # the in-turn cycle starts with its candidates
            self._cycle = self.indicator.candidates
            self._cycle_start = self._clock()
        self.driver.show(lights)

    def press(self, press: Press) -> None:
        """A button: the turn buttons end the mover's turn, the confirm button confirms the
        candidate lit at the press (or the only one)."""
        ind = self.indicator
        if press.button == "end-turn":
            if press.player is not None and ind.mover is not None and side(press.player) != ind.mover:
                log.info("turn button of %s pressed, but it is not their turn: ignored", press.player)
                return
            if ind.candidates:
                log.info("turn button pressed during a question: answer it with the confirm button")
                return
            self.command({"cmd": "end-turn"})
            return
        body: dict[str, Any] = {"cmd": "confirm"}
        # a controller says which slot its strip showed; otherwise work it out from the time
        slot = press.choice if press.choice is not None else slot_shown(press.t - self._cycle_start, ind.slots)
        move = ind.candidate_for_slot(slot)
        if move is not None:
            body["move"] = move
        self.command(body)

    def command(self, body: dict[str, Any]) -> None:
        self._count += 1
        ident = f"leds-{os.getpid()}-{self._count}"
        self._ids.add(ident)
        if self._token:
            body["token"] = self._token
        body["id"] = ident
        log.info("sending %s", {k: v for k, v in body.items() if k != "token"})
        self._publish(self.topics.cmd, json.dumps(body, separators=(",", ":")).encode("utf-8"))

    def _reply(self, payload: bytes) -> None:
        try:
            reply = json.loads(payload)
        except (json.JSONDecodeError, UnicodeDecodeError):
            log.warning("%s: a reply that is not JSON; ignored", self.topics.reply)
            return
        if not isinstance(reply, dict) or reply.get("id") not in self._ids:
            return
        self._ids.discard(reply["id"])
        if reply.get("ok"):
            log.info("%s: done", reply.get("cmd"))
        else:
            log.warning("%s refused: %s", reply.get("cmd"), reply.get("error"))


def _client(url: str, mqtt_config: Any, client_id: str, messages: "queue.SimpleQueue[tuple[str, bytes]]",
            subscriptions: list[str]) -> Any:
    from .mqtt_client import subscriber
    try:
        return subscriber(url, mqtt_config, client_id, subscriptions,
                          on_message=lambda topic, payload: messages.put((topic, payload)), log=log)
    except ValueError as exc:
        raise LedsError(f"--mqtt: {exc}") from None


def run_leds(args: Any, *, pin_factory: Any = None, stop: threading.Event,
             clock: Callable[[], float] = time.monotonic) -> int:
    """Runs until ``stop`` is set; 0 then, 2 for bad options or configuration."""
    try:
        config = load(getattr(args, "config", None))
        board_id = args.board_id or config.board_id
        topics = Topics(board_id)
        leds = config.leds
        driver_name = args.driver or leds["driver"]
        if not driver_name:
            raise LedsError(f"no driver: give --driver ({' or '.join(DRIVERS)}) or set leds.driver")
        m = config.mqtt
        url = args.mqtt or m["url"] or f"mqtt://127.0.0.1:{m['embedded_port']}"
        messages: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
        client_box: list[Any] = []
        sent: list[Any] = []

        def publish(topic: str, payload: bytes) -> None:
            sent[:] = [client_box[0].publish(topic, payload, qos=1)]

        options = DriverOptions(board_id=board_id, publish=publish, gpio=config.gpio,
                                buttons=not getattr(args, "no_buttons", False),
                                wled_topic=args.wled_topic or leds["wled_topic"],
                                wled_api=args.wled_api or leds["wled_api"], brightness=leds["brightness"],
                                pin_factory=pin_factory, clock=clock, port=getattr(args, "port", None))
        subscriptions = [topics.state, topics.turn, topics.events, topics.status, topics.reply]
        client_box.append(_client(url, m, f"arbiter-leds-{board_id}-{os.getpid()}", messages, subscriptions))
        driver = open_driver(driver_name, options)
    except (ConfigError, LedsError, DriverError, ValueError, OSError) as exc:
        print(f"arbiter leds: {exc}", file=sys.stderr)
        return 2
    client = client_box[0]
    subscriptions += list(driver.subscriptions)
    try:
        app = LedsApp(board_id, driver, publish, token=args.token or m["token"], clock=clock)
        client.loop_start()
        while not stop.is_set():
            try:
                topic, payload = messages.get(timeout=POLL)
                app.handle(topic, payload)
            except queue.Empty:
                pass
            for press in driver.presses():
                app.press(press)
    finally:
        driver.show(DARK)  # a WLED strip goes dark with the program; GPIO outputs close dark
        if sent and client.is_connected():
            try:
                sent[0].wait_for_publish(2.0)
            except (ValueError, RuntimeError):  # it was refused (not connected then): nothing to wait for
                pass
        driver.close()
        client.disconnect()
        client.loop_stop()
    return 0


def cmd_leds(args: Any) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.verbose else logging.INFO,
                        format="arbiter leds: %(message)s")
    return run_leds(args, stop=stop_on_signals())


def add_leds_parser(sub: Any) -> None:
    p = sub.add_parser("leds", help="show the board's state on LEDs (GPIO, a board controller or a WLED device) "
                       "over MQTT")
    p.add_argument("--board-id", help="board id (default from the configuration: board-1)")
    p.add_argument("--driver", choices=sorted(DRIVERS),
                   help="gpio (the [gpio] pins), serial (a board controller: --port) or wled (leds.driver)")
    p.add_argument("--port", help="serial: the board controller's port, e.g. /dev/ttyUSB1")
    p.add_argument("--mqtt", help="broker url mqtt://host[:port] or mqtts://... (default mqtt.url, else the "
                   "embedded broker on 127.0.0.1)")
    p.add_argument("--config", help="TOML configuration file (docs/configuration.md)")
    p.add_argument("--token", help="command token for the buttons' commands (default mqtt.token)")
    p.add_argument("--wled-topic", help="the WLED device's MQTT device topic (leds.wled_topic)")
    p.add_argument("--wled-api", choices=("json", "colour"), help="json: colours and effects on <topic>/api "
                   "(default); colour: steady colours on <topic>/col")
    p.add_argument("--no-buttons", action="store_true", help="gpio: leave the buttons to the daemon's gpio: source")
    p.add_argument("--verbose", action="store_true", help="log more")
    p.set_defaults(func=cmd_leds)
