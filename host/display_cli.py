"""``arbiter display``: the companion display, in a browser (a page per board and a hall
page) or in the terminal (``--tui``), fed by every board on one MQTT broker
(docs/display.md). :func:`start_display` is shared with ``arbiter run --display`` and the
demo."""

from __future__ import annotations

import logging
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

from .config import ConfigError, load
from .signals import stop_on_signals
from .display_model import Hall

log = logging.getLogger("arbiter.display")


@dataclass
class Display:
    """A running display: its boards, its MQTT client and, unless in the terminal, its web
    server."""

    hall: Hall
    client: Any
    server: Any | None

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        self.client.disconnect()
        self.client.loop_stop()


def start_display(url: str, mqtt_config: Any, *, host: str = "127.0.0.1", port: int = 8080, web: bool = True,
                  read_only: bool = False) -> Display:
    """Subscribe to every board on ``url`` and serve the pages; ValueError for a bad url,
    OSError when the port cannot be served."""
    from .display_server import DisplayServer
    from .display_svg import board_svg
    from .mqtt_client import subscriber

    hall = Hall()
    client = subscriber(url, mqtt_config, f"arbiter-display-{os.getpid()}-{id(hall) % 10000}", ["arbiter/+/#"],
                        on_message=hall.feed, on_link=hall.set_connected, log=log)
    server = None
    if web:
        publish = None if read_only else (lambda topic, payload: client.publish(topic, payload, qos=1))
        server = DisplayServer(hall, publish=publish, svg=board_svg, host=host, port=port)
    client.loop_start()
    if server is not None:
        server.start()
    return Display(hall, client, server)


def run_display(args: Any, *, stop: threading.Event) -> int:
    try:
        config = load(args.config)
    except ConfigError as exc:
        print(f"arbiter display: {exc}", file=sys.stderr)
        return 2
    m = config.mqtt
    url = args.mqtt or m["url"] or f"mqtt://127.0.0.1:{m['embedded_port']}"
    try:
        display = start_display(url, m, host=args.host, port=args.port, web=not args.tui, read_only=args.read_only)
    except ValueError as exc:
        print(f"arbiter display: --mqtt: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"arbiter display: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        if args.tui:
            from . import display_tui
            return display_tui.run(display.hall, out=sys.stdout, stop=stop, board=args.board,
                                   keys=sys.stdin if sys.stdin.isatty() else None)
        print(f"arbiter display: serving {display.server.url} (boards from {url}); Ctrl-C to stop", flush=True)
        stop.wait()
        return 0
    finally:
        display.stop()


def cmd_display(args: Any) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="arbiter display: %(message)s")
    return run_display(args, stop=stop_on_signals())


def add_display_parser(sub: Any) -> None:
    p = sub.add_parser("display", help="show every board on the broker in a browser (or the terminal with --tui)")
    p.add_argument("--mqtt", help="broker url mqtt://host[:port] or mqtts://... (default mqtt.url, else the "
                   "embedded broker on 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="web server port (default 8080)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1; 0.0.0.0 for "
                   "tablets on the network)")
    p.add_argument("--tui", action="store_true", help="draw the boards in this terminal instead of serving pages")
    p.add_argument("--board", help="--tui: the board to show first")
    p.add_argument("--read-only", action="store_true", help="pages cannot send commands, whatever token they hold")
    p.add_argument("--config", help="TOML configuration file, for the broker's url and credentials")
    p.add_argument("--verbose", action="store_true", help="log more")
    p.set_defaults(func=cmd_display)
