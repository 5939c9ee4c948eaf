"""Observation sources for the daemon: ``replay:FILE``, ``sim:...``, ``camera:...``
(host/camera_source.py), ``serial:PORT`` (the board controller, host/serial_source.py) and
``gpio:`` (a Raspberry Pi's pins, host/gpio_board.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from .games import Rules, pyramid
from .observation import Observation, ObservationError, Press, read_log

BASE_HOLLOWS = frozenset(n for n in pyramid.NAMES if n.startswith("1"))


class SourceError(ValueError):
    """A source that cannot be opened: says which and why."""


@dataclass
class Source:
    """``items``: observations and button presses, or the ObservationError of a bad input
    line (reported and skipped by the daemon). ``coverage``: the cells the source can see
    (None: all)."""

    name: str
    items: Iterable[Observation | Press | ObservationError]
    coverage: frozenset[str] | None = None
    finite: bool = False
    #: replay speed: 1 as recorded, 2 twice as fast, 0 no waiting
    speed: float = 0.0
    #: the camera behind ``items`` (host/camera_source.py's CameraSource), None for other sources
    camera: Any = None
    #: the board's own lights (a controller's strip, a Pi's LEDs): ``show(lights)``; None: none
    board: Any = None
    #: items are stamped with the wall clock (a live camera, reed switches), not with a time
    #: of their own that starts over when reopened (a log, the simulator, a video file): a
    #: resumed game does not skip them by time, as a Pi without a battery-backed clock may
    #: come back from a reboot with its clock behind the recorded game
    wall_clock: bool = False

    def follow(self, rules: Rules) -> None:
        """The daemon now referees ``rules``: a camera reads that game's colours."""
        if self.camera is not None:
            self.camera.follow(rules)
        if self.board is not None:
            self.board.follow(rules)

    def expect_start(self, waiting: bool) -> None:
        """Whether the daemon waits for the players to set up a game's start: a camera then
        takes a Sparklies board with no plate seen for that start (host/camera_source.py)."""
        if self.camera is not None:
            self.camera.expect_start(waiting)

    def paced(self, after: float | None = None) -> Iterator[Observation | Press | ObservationError]:
        """The items at their speed, leaving out observations and presses up to source time
        ``after`` (what a resumed game already covers) without waiting for them; a
        :attr:`wall_clock` source leaves out none (its time does not start over)."""
        from .sim import pace
        if self.wall_clock:
            after = None
        skipped = (i for i in self.items
                   if after is None or isinstance(i, ObservationError) or i.t > after)
        errors: list[ObservationError] = []

        def observations() -> Iterator[Observation | Press]:
            for item in skipped:
                if isinstance(item, ObservationError):
                    errors.append(item)
                else:
                    yield item

        for obs in pace(observations(), self.speed):
            while errors:
                yield errors.pop(0)
            yield obs
        yield from errors


def open_source(spec: str, rules: Rules, *, speed: float = 1.0, coverage: str = "all",
                camera: Mapping[str, Any] | None = None, gpio: Mapping[str, Any] | None = None) -> Source:
    """The source a spec string names; ``camera`` and ``gpio``: the configuration's [camera]
    and [gpio] sections."""
    if "+camera:" in spec:
        return _fused(spec, rules, speed, camera, gpio)
    kind, _, rest = spec.partition(":")
    cover = BASE_HOLLOWS if coverage == "base" else None
    if kind == "replay":
        if not rest:
            raise SourceError("replay: needs a file, e.g. replay:game.jsonl")
        path = Path(rest)
        if not path.is_file():
            raise SourceError(f"replay: {rest}: no such file")
        return Source(spec, read_log(path), cover, finite=True, speed=speed)
    if kind == "sim":
        from .sim import Simulator
        from .sim_spec import parse_sim_spec
        try:
            config = parse_sim_spec(spec)
            if config.size is not None and rules.game == "sparklies" and config.size != (rules.width, rules.height):
                raise ValueError(f"size {config.size[0]}x{config.size[1]} is not the daemon's Sparklies board "
                                 f"({rules.width}x{rules.height}): set rules.size in the configuration to match")
            simulator = Simulator(config, rules=rules)
        except ValueError as exc:
            raise SourceError(f"{spec}: {exc}") from None
        if config.occupancy:
            cover = BASE_HOLLOWS
        return Source(spec, simulator, cover, finite=bool(config.games), speed=config.speed)
    if kind == "camera":
        from .camera_source import open_camera
        cam = open_camera(spec, rules, camera)
        # a live camera delivers in real time; a video file or directory plays at ``speed``
        return Source(spec, cam, cover, finite=not cam.spec.live, speed=0.0 if cam.spec.live else speed, camera=cam,
                      wall_clock=cam.spec.live)
    if kind == "serial":
        if not rest:
            raise SourceError("serial: needs the controller's port, e.g. serial:/dev/ttyUSB0")
        from .serial_source import SerialBoard
        board = SerialBoard(rest, rules)
        return Source(spec, board.items(), BASE_HOLLOWS, board=board, wall_clock=True)
    if kind == "gpio":
        from .gpio_board import open_gpio_source
        # the daemon drives the Pi's LEDs and buzzer itself, unless none are wired
        return open_gpio_source(spec, rules, gpio or {}, outputs=True)
    raise SourceError(f"unknown source {spec!r}: expected replay:FILE, sim:[options], camera:..., "
                      "serial:PORT or gpio:")


def _fused(spec: str, rules: Rules, speed: float, camera: Mapping[str, Any] | None,
           gpio: Mapping[str, Any] | None) -> Source:
    """``SWITCHES+camera:...``: reed switches (serial: or gpio:) and a camera together
    (host/fusion.py); the camera's cells, the switches' base hollows and buttons."""
    from .fusion import Fusion
    switches_spec, _, camera_spec = spec.partition("+")
    if not switches_spec.startswith(("serial:", "gpio:")):
        raise SourceError(f"{spec}: a camera is combined with reed switches (serial:PORT or gpio:), "
                          f"not {switches_spec!r}")
    switches = open_source(switches_spec, rules, speed=speed, gpio=gpio)
    cam = open_source(camera_spec, rules, speed=speed, camera=camera)
    return Source(spec, Fusion(cam.items, switches.items), None, finite=False, speed=0.0,
                  camera=cam.camera, board=switches.board, wall_clock=True)
