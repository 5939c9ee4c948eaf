"""``arbiter run``: start the daemon from the command line and the configuration file."""

from __future__ import annotations

import sys
from typing import Any

from .config import ConfigError, load
from .games import RulesError


def run_daemon(args: Any) -> int:
    from .board_games import configured_rules
    from .daemon import Daemon, build_rules, install_signal_handlers, setup_logging
    from .recorder import Recorder, RecorderError
    from .sources import SourceError, open_source

    setup_logging(args.verbose)
    try:
        config = load(args.config)
        if args.board_id:
            config = type(config)(**{**config.__dict__, "board_id": args.board_id})
        _check_board_id(config.board_id)
        rules = build_rules(config, args.game, args.variant)
        configured_rules(config, rules)  # checks games and the other games' configuration before anything opens
        spec = args.source or config.source["spec"]
        if not spec:
            raise ConfigError("no source: give --source (replay:FILE, sim:, camera:..., serial:PORT or gpio:) "
                              "or set source.spec")
        speed = config.source["speed"] if args.speed is None else args.speed
        source = open_source(spec, rules, speed=speed, coverage=config.source["coverage"], camera=config.camera,
                             gpio=config.gpio)
        db = args.db or config.storage["database"] or Recorder.default_path()
        recorder = Recorder(db, board_id=config.board_id)
    except (ConfigError, SourceError, RecorderError, RulesError) as exc:
        print(f"arbiter run: {exc}", file=sys.stderr)
        return 2
    link = display = None
    try:
        if config.mqtt["enabled"] and not args.no_mqtt:
            link = _link(config, recorder)
            link.start()
        if args.display is not None:
            display = _display(config, args, link)
        debug = source.camera.debug_sink() if source.camera is not None else None
        daemon = Daemon(config, rules, source, recorder=recorder, link=link,
                        status_out=None if args.quiet else sys.stdout, debug=debug)
        install_signal_handlers(daemon)
        return daemon.run()
    except (ValueError, RuntimeError) as exc:  # configuration the MQTT link refuses; a broker port in use
        print(f"arbiter run: {exc}", file=sys.stderr)
        return 2
    finally:
        if display is not None:
            display.stop()
        if link is not None:
            link.stop()
        recorder.close()


def _check_board_id(board_id: str) -> None:
    """The board id names the board in MQTT topics, the database and the display's address,
    so it is checked even when MQTT is off: a board recorded under an id MQTT refuses could
    not be switched on later."""
    from .mqtt_topics import check_board_id
    try:
        check_board_id(board_id)
    except ValueError as exc:
        raise ConfigError(f"board_id: {exc}") from None


def _display(config: Any, args: Any, link: Any) -> Any:
    """The web display beside the daemon, on the daemon's broker (docs/display.md)."""
    from .display_cli import start_display
    if link is None:
        raise ValueError("--display needs MQTT: the display follows the board on the broker (drop --no-mqtt)")
    url = config.mqtt["url"] or f"mqtt://127.0.0.1:{config.mqtt['embedded_port']}"
    try:
        display = start_display(url, config.mqtt, host=args.display_host, port=args.display)
    except OSError as exc:
        raise RuntimeError(exc.strerror or str(exc)) from None
    print(f"arbiter run: web display {display.server.url}board/{config.board_id}", flush=True)
    return display


def _link(config: Any, recorder: Any) -> Any:
    from .mqtt import MqttLink
    m = config.mqtt
    return MqttLink(board_id=config.board_id, outbox=recorder, url=m["url"], embedded_port=m["embedded_port"],
                    username=m["username"], password=m["password"], tls_ca_file=m["ca_file"],
                    tls_certfile=m["certfile"], tls_keyfile=m["keyfile"], tls_insecure=m["tls_insecure"],
                    token=m["token"], trust_authenticated=m["trust_authenticated"], keepalive=m["keepalive"])


def add_run_parser(sub: Any) -> None:
    p = sub.add_parser("run", help="run the referee daemon on a source until stopped")
    p.add_argument("--game", choices=("pylos", "sparks", "sparklies"))
    p.add_argument("--variant")
    p.add_argument("--source", help="replay:FILE, sim:[key=value,...], camera:DEVICE|VIDEO|DIR/|URL, serial:PORT, "
                   "gpio: or SWITCHES+camera:...")
    p.add_argument("--config", help="TOML configuration file (docs/configuration.md)")
    p.add_argument("--speed", type=float, help="replay speed of logs, videos and image directories: 1 as "
                   "recorded, 0 as fast as possible (source.speed)")
    p.add_argument("--board-id", help="board id (default from the configuration: board-1)")
    p.add_argument("--db", help="game database (default: the user's data directory)")
    p.add_argument("--no-mqtt", action="store_true", help="do not connect to or start an MQTT broker")
    p.add_argument("--display", type=int, nargs="?", const=8080, metavar="PORT",
                   help="serve the web display alongside, on PORT (default 8080)")
    p.add_argument("--display-host", default="127.0.0.1", help="the web display's address (0.0.0.0 for tablets "
                   "on the network)")
    p.add_argument("--quiet", action="store_true", help="no status lines on the terminal")
    p.add_argument("--verbose", action="store_true", help="log more")
    p.set_defaults(func=run_daemon)
