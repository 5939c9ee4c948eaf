"""The simulator: games played by themselves, seen the way a board's sensors see them.

``simulate_game`` plays one game (random or scripted players) as physical steps and returns
the observations a camera or reed switches would produce, with hands, flicker, illegal moves
put right again and takebacks as configured, and the ground truth to check a referee
against. ``Simulator`` strings games together for ever (the daemon's ``sim:`` source).
Everything random comes from the ``random.Random`` passed in: the same seed gives the same
stream. See docs/simulator.md.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from .games import Rules, rules_for
from .observation import Observation, Press, matches
from .record import Record, RecordedTurn, new_record
from .sim_check import OWN, TurnIndex, explained, forward_states, pick_illegal, pyramid_candidates, sparklies_candidates
from .sim_play import RandomPlayer, ScriptedPlayer, turn_boards
from .sim_render import PYRAMID_GAMES, FrameTruth, Reel, SensorView, SimError, frames_needed
from .sim_spec import SIM_GAMES, SimSpecError, load_script, parse_sim_spec

__all__ = ["FrameTruth", "IllegalEpisode", "SimConfig", "SimError", "SimGame", "SimSpecError", "SimTruth",
           "Simulator", "Takeback", "load_script", "pace", "parse_sim_spec", "simulate_game"]


def _range(name: str, value: Any, low: int = 1) -> tuple[int, int]:
    if (not isinstance(value, tuple) or len(value) != 2 or not all(isinstance(v, int) for v in value)
            or not low <= value[0] <= value[1]):
        raise SimError(f"{name} must be a pair (least, most) of whole numbers, {low} <= least <= most; got {value!r}")
    return value


@dataclass(frozen=True)
class SimConfig:
    """How the simulator plays and what the sensor shows. Rates are probabilities: ``hands``
    per board shown, ``flicker`` per frame, ``illegal`` and ``takeback`` per turn. The
    ``stable_*`` and ``flag_*`` settings are the referee's stability contract that the
    stream keeps (a board is held long enough to count; an illegal one long enough to be
    flagged)."""

    seed: int | None = None
    game: str | None = None
    variant: str | None = None
    size: tuple[int, int] | None = None
    dead: tuple[str, ...] = ()
    wrap: bool = False
    occupancy: bool = False
    #: the reserve trays are sensed too (Pylos): observations carry the balls in each tray
    trays: bool = False
    #: press the mover's turn button after every turn (None: with occupancy-only output)
    buttons: bool | None = None
    fps: float = 10.0
    frames_per_state: tuple[int, int] = (4, 8)
    transition_hands: float = 1.0
    transition_frames: tuple[int, int] = (1, 2)
    hands: float = 0.0
    hand_frames: tuple[int, int] = (3, 20)
    flicker: float = 0.0
    illegal: float = 0.0
    #: the number of a turn that surely gets an illegal move put right (0: none)
    illegal_at: int = 0
    takeback: float = 0.0
    max_turns: int = 300
    max_pings: int = 12
    end_hold: float = 2.0
    pause: float = 3.0
    reset: float = 1.0
    games: int = 0
    speed: float = 1.0
    script: str | None = None
    #: every frame rendered from a camera on a stand and read by vision (host/sim_vision.py)
    camera: bool = False
    resolution: tuple[int, int] = (800, 600)
    stable_frames: int = 3
    stable_seconds: float = 0.25
    flag_frames: int = 5
    flag_seconds: float = 0.5

    def __post_init__(self) -> None:
        if self.game is not None and self.game not in SIM_GAMES:
            raise SimError(f"game must be one of {', '.join(SIM_GAMES)}, not {self.game!r}")
        if not (isinstance(self.fps, (int, float)) and 0 < self.fps <= 1000):
            raise SimError(f"fps must be a number of frames per second above 0 (at most 1000), not {self.fps!r}")
        for name in ("transition_hands", "hands", "flicker", "illegal", "takeback"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise SimError(f"{name} must be a probability from 0 to 1, not {value!r}")
        for name in ("end_hold", "pause", "reset", "speed", "stable_seconds", "flag_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e6:
                raise SimError(f"{name} must be a number of seconds (speed: a factor) of 0 or more, not {value!r}")
        for name, low in (("max_turns", 1), ("max_pings", 1), ("games", 0), ("stable_frames", 1), ("flag_frames", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise SimError(f"{name} must be a whole number of at least {low}, not {value!r}")
        _range("frames_per_state", self.frames_per_state)
        _range("transition_frames", self.transition_frames)
        _range("hand_frames", self.hand_frames)
        need = self.state_frames
        if self.frames_per_state[0] < need:
            raise SimError(f"frames_per_state: at least {need} frames per board are needed at {self.fps:g} "
                           f"frames/s for a board to be stable ({self.stable_frames} frames and "
                           f"{self.stable_seconds:g} s), not {self.frames_per_state[0]}")
        if self.camera and self.occupancy:
            raise SimError("camera: a camera sees colours; it cannot be combined with occupancy (reed switches)")
        if self.camera and self.game in ("sparklies", "all") and self.size not in (None, (9, 9)):
            raise SimError("camera: the rendered Sparklies board is grid-9, a 9x9 board; leave size out or set 9x9")
        if not (isinstance(self.resolution, tuple) and len(self.resolution) == 2
                and all(isinstance(v, int) and 64 <= v <= 4096 for v in self.resolution)):
            raise SimError(f"resolution must be WIDTHxHEIGHT, each 64 to 4096 pixels; got {self.resolution!r}")
        if self.size is not None and (not isinstance(self.size, tuple) or len(self.size) != 2 or not all(
                isinstance(v, int) and 3 <= v <= 26 for v in self.size)):
            raise SimError(f"size must be (width, height) of a Sparklies board, each 3 to 26; got {self.size!r}")

    @property
    def presses(self) -> bool:
        """Whether the players press their turn buttons (reed switches cannot see a ball put
        on an upper level: the button says the turn is over)."""
        return self.occupancy if self.buttons is None else self.buttons

    @property
    def state_frames(self) -> int:
        """Frames a board must be held, free of noise, to count as stable."""
        return frames_needed(self.stable_frames, self.stable_seconds, self.fps)

    @property
    def illegal_frames(self) -> int:
        """Frames an illegal board is held so that the referee flags it."""
        return max(self.state_frames, frames_needed(self.flag_frames, self.flag_seconds, self.fps))

    def rules(self) -> list[Rules]:
        """The rules of the games this configuration plays (``game=all``: the three in turn)."""
        games = ("pylos", "sparks", "sparklies") if self.game in (None, "all") else (self.game,)
        out = []
        for game in games:
            variant = self.variant if self.game not in (None, "all") else None
            if game == "sparklies":
                width, height = self.size or (9, 9)
                out.append(rules_for(game, variant, width=width, height=height, dead=self.dead, wrap=self.wrap))
            else:
                out.append(rules_for(game, variant))
        return out


# -- ground truth ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IllegalEpisode:
    """A wrong change put on the board and then put back. ``turn`` is the 1-based number of
    the turn under way, ``player`` who was to move, ``position`` the position string that
    turn started from; ``kind`` says what was done (docs/simulator.md); ``cells`` (cell,
    expected, seen) are the reported cells that differ from the legal board; the illegal
    board is shown from ``t_first`` to ``t_last`` and the legal board again from
    ``t_restored``."""

    turn: int
    player: str
    position: str
    kind: str
    cells: tuple[tuple[str, str, str], ...]
    t_first: float
    t_last: float
    t_restored: float
    #: the configuration's illegal move (``illegal_at``), not a random one
    scripted: bool = False


@dataclass(frozen=True, slots=True)
class Takeback:
    """The last turn taken back: from ``t`` the board steadily shows ``position`` again, the
    position after ``to_turn`` turns; ``undone`` are the turn texts removed."""

    t: float
    to_turn: int
    undone: tuple[str, ...]
    position: str


@dataclass(frozen=True)
class SimTruth:
    """What really happened in a simulated game. ``turns`` are the turns kept (after
    takebacks), ``positions`` the position strings after each, ``turn_times`` when each
    turn's last board was first shown (a turn whose end is optional is closed later, by the
    next player's first step)."""

    game: str
    tags: Mapping[str, str]
    start: str
    turns: tuple[str, ...]
    positions: tuple[str, ...]
    turn_times: tuple[float, ...]
    result: str
    reason: str | None
    illegal: tuple[IllegalEpisode, ...]
    takebacks: tuple[Takeback, ...]
    t_start: float
    t_end: float

    def record(self) -> Record:
        """The game record of the kept turns (``Start`` tag as ``new_record`` writes it)."""
        return Record({**self.tags, "Result": self.result}, tuple(RecordedTurn(t) for t in self.turns))


@dataclass(frozen=True)
class SimGame:
    """One simulated game: the observations, each frame's ground truth, and the game's."""

    rules: Rules
    observations: tuple[Observation, ...]
    frames: tuple[FrameTruth, ...]
    truth: SimTruth
    view: SensorView = field(repr=False)
    presses: tuple[Press, ...] = ()

    def stream(self, read: Callable[[Observation, FrameTruth], Observation] | None = None
               ) -> Iterator[Observation | Press]:
        """The observations with the button presses among them, in time order. ``read``:
        what a sensor makes of each frame instead of the ideal observation (host/sim_vision.py
        renders it and reads it through vision)."""
        presses = iter(self.presses)
        press = next(presses, None)
        for obs, truth in zip(self.observations, self.frames):
            while press is not None and press.t < obs.t:
                yield press
                press = next(presses, None)
            yield obs if read is None else read(obs, truth)
        if press is not None:
            yield press
        yield from presses


# -- playing a game -------------------------------------------------------------------------


class _Game:
    """The state of one game being simulated."""

    def __init__(self, rules: Rules, rng: random.Random, config: SimConfig, reel: Reel, player: Any):
        self.rules, self.rng, self.config, self.reel, self.player = rules, rng, config, reel, player
        self.view = reel.view
        self.positions: list[Any] = []
        self.turns: list[Any] = []
        self.times: list[float] = []
        self.finals: list[Any] = []  # the turn in progress at each kept turn's end
        self.illegal: list[IllegalEpisode] = []
        self.takebacks: list[Takeback] = []
        self.index = TurnIndex(rules) if rules.game in PYRAMID_GAMES else None

    def play(self, start: Any) -> None:
        rules, rng, cfg = self.rules, self.rng, self.config
        self.positions.append(start)
        self.reel.show(rules.cells(start), important=True)
        avoid = None
        while rules.outcome(self.positions[-1]) is None and len(self.turns) < cfg.max_turns:
            position = self.positions[-1]
            number = len(self.turns) + 1
            turn = self.player.turn(position, rng, number, avoid=avoid)
            avoid = None
            if turn is None:
                break
            boards = turn_boards(rules, position, turn)
            after = rules.play(position, turn)
            ends = rules.outcome(after) is not None
            # the scripted illegal move: at its turn, or the first turn after it that allows one
            scripted = 0 < cfg.illegal_at <= number and not any(e.scripted for e in self.illegal)
            inject = (rng.randrange(len(boards)) if not ends and (scripted or (cfg.illegal and rng.random() < cfg.illegal))
                      else -1)
            first = 0.0
            # a hand may hide steps, but the end of a turn is seen clearly, and so is the
            # first step that closes a turn whose end was optional
            closes = bool(self.finals) and self._is_open(self.finals[-1])
            for i, board in enumerate(boards):
                if i == inject:
                    self._illegal(position, number, boards[i - 1].state if i else None, scripted=scripted)
                first, _ = self.reel.show(board.cells, settle=i == len(boards) - 1 or (i == 0 and closes))
            if cfg.presses:
                self.reel.press("end-turn", rules.to_move(position))
            self.turns.append(turn)
            self.positions.append(after)
            self.times.append(first)
            self.finals.append(boards[-1].state)
            if not ends and cfg.takeback and rng.random() < cfg.takeback:
                avoid = self._takeback()

    def _is_open(self, state: Any) -> bool:
        """Whether a finished turn could have gone on (a second Pylos take-back; any
        Sparklies chain, whose pings may be invisible): the next player's first step ends it.
        With turn buttons the press ends every turn."""
        if self.config.presses:
            return False
        return self.rules.game == "sparklies" or any(True for _ in state.next_steps())

    # -- illegal moves ---------------------------------------------------------------------
    def _earlier(self, seen: Mapping[str, str]) -> bool:
        """Whether the reading fits a position the game has been in (a takeback to it)."""
        for position in self.positions:
            cells = self.rules.cells(position)
            if all(matches(v, cells[n]) for n, v in seen.items()):
                return True
        return False

    def _illegal(self, position: Any, number: int, state: Any, *, scripted: bool = False) -> None:
        """Put a wrong change on the board, hold it until it is flagged, put it back."""
        rules, rng = self.rules, self.rng
        legal = self.reel.shown
        assert legal is not None
        if state is not None and any(rules.outcome(rules.play(position, t)) is not None
                                     for t in state.complete_turns()):
            return  # the turn could already be the last of the game: nothing wrong can follow
        mover = rules.to_move(position)
        if rules.game == "sparklies":
            if state is None and self.turns:  # the referee still follows the last turn
                following, before = rules.players[1 - rules.players.index(mover)], self.positions[-2]
            else:
                following, before = mover, position
            candidates = sparklies_candidates(legal, rules.cells(before), following[0], rng)

            def unexplained(seen: dict[str, str]) -> bool:
                return not self._earlier(seen)
        else:
            candidates = pyramid_candidates(rules, legal, OWN[mover], self.view.occupancy, rng)
            roots = [position]
            if state is None and len(self.positions) > 1:
                # the referee may still follow the last turn: its end was optional, or looked
                # so on the sensor (a second take-back hidden under a ball)
                roots.append(self.positions[-2])
            index = self.index
            assert index is not None

            def unexplained(seen: dict[str, str]) -> bool:
                return not self._earlier(seen) and not explained(index, seen, roots)
        picked = pick_illegal(self.view, candidates, legal, unexplained)
        if picked is None:
            return
        self.reel.settle()
        kind, bad = picked
        legal_seen, bad_seen = self.view(legal), self.view(bad)
        cells = tuple((n, legal_seen[n], bad_seen[n]) for n in legal_seen if legal_seen[n] != bad_seen[n])
        hold = self.config.illegal_frames
        t_first, t_last = self.reel.show(bad, legal=legal, frames=rng.randint(hold, hold + 3), important=True)
        t_restored, _ = self.reel.show(legal, important=True)
        self.illegal.append(IllegalEpisode(number, mover, rules.format_position(position), kind, cells,
                                           t_first, t_last, t_restored, scripted))

    # -- takebacks -------------------------------------------------------------------------
    def _takeback(self) -> str | None:
        """Take the last turn back if the board can show it unmistakably; returns its text.
        A turn whose end is optional is only over once the next player starts, so the
        next player's first visible step comes first (and is taken back with it)."""
        rules, view = self.rules, self.view
        if len(self.turns) < 1:
            return None
        after, before = self.positions[-1], self.positions[-2]
        current = self.reel.shown
        assert current is not None
        is_open = self._is_open(self.finals[-1])
        prefix = []
        if is_open:
            following = self.player.turn(after, self.rng, len(self.turns) + 1)
            if following is None:
                return None
            boards = turn_boards(rules, after, following)
            shown = view(current)
            step = next((b for b in boards if view(b.cells) != shown), None)
            if step is None or step.state.complete_turns():
                return None
            prefix = boards[:boards.index(step) + 1]
            current = step.cells
        target = rules.cells(before)
        seen = view(target)
        if seen == view(current):
            return None
        if self.index is not None and explained(self.index, seen, states=forward_states(rules, after, current)):
            return None
        for board in prefix:
            self.reel.show(board.cells, settle=True)
        self.reel.settle()
        t, _ = self.reel.show(target, important=True, frames=self.config.illegal_frames)
        text = rules.format_turn(self.turns[-1])
        self.takebacks.append(Takeback(t, len(self.turns) - 1, (text,), rules.format_position(before)))
        for kept in (self.turns, self.positions, self.times, self.finals):
            kept.pop()
        return text

    def truth(self, start: Any, t_start: float) -> SimTruth:
        rules = self.rules
        final = self.positions[-1]
        outcome = rules.outcome(final)
        texts, positions = [], []
        position = start
        for turn in self.turns:
            texts.append(rules.format_turn(turn))
            position = rules.play(position, turn)
            positions.append(rules.format_position(position))
        tags = dict(new_record(rules, start=start).tags)
        result = outcome.result if outcome else "*"
        tags["Result"] = result
        return SimTruth(rules.game, tags, rules.format_position(start), tuple(texts), tuple(positions),
                        tuple(self.times), result, outcome.reason if outcome else None, tuple(self.illegal),
                        tuple(self.takebacks), t_start, self.reel.t_last)


def simulate_game(rules: Rules, rng: random.Random, config: SimConfig = SimConfig(), *,
                  script: Sequence[str] | None = None, start: Any | None = None, t0: float = 0.0,
                  reset: bool = False, hold_end: float | None = None) -> SimGame:
    """One game from ``start`` (default: the game's start; Sparklies colours from ``rng``),
    played by random players or the turns of ``script``; observations from ``t0`` seconds.
    ``reset``: the board is first cleared and set up under the players' hands (a game after
    another); ``hold_end``: seconds the final board stays (default ``config.end_hold``)."""
    view = SensorView(rules, config.occupancy, config.trays)
    reel = Reel(view, config, rng, t0)
    player = ScriptedPlayer(rules, script) if script is not None else RandomPlayer(rules, view, config.max_pings)
    if start is None:
        start = rules.start(rng) if rules.game == "sparklies" else rules.start()  # type: ignore[call-arg]
    game = _Game(rules, rng, config, reel, player)
    if reset:
        reel.cover(config.reset, rules.cells(start))
    t_start = reel.t_next
    game.play(start)
    reel.hold(config.end_hold if hold_end is None else hold_end)
    return SimGame(rules, tuple(reel.observations), tuple(reel.truths), game.truth(start, t_start), view,
                   tuple(reel.presses))


# -- for ever ----------------------------------------------------------------------------------


class Simulator:
    """Game after game (``config.games``, 0 for ever), each one's final board held for
    ``config.pause`` more seconds before the board is reset to a new start. ``rules``: the
    game(s) to play, by default from the configuration; a script (``config.script``, a
    record file, or ``script`` and ``start``) makes every game that game."""

    def __init__(self, config: SimConfig = SimConfig(), rng: random.Random | None = None, *,
                 rules: Rules | Sequence[Rules] | None = None, script: Sequence[str] | None = None,
                 start: Any | None = None):
        self.config = config
        self.rng = rng if rng is not None else random.Random(config.seed)
        self.script, self.start = (list(script) if script is not None else None), start
        script_rules = None
        if config.script is not None and script is None:
            script_rules, self.start, self.script = load_script(config.script)
        if rules is None:
            self.rules: list[Rules] = [script_rules] if script_rules is not None else config.rules()
        else:
            self.rules = [rules] if isinstance(rules, Rules) else list(rules)
            if not self.rules:
                raise SimError("the simulator needs the rules of at least one game")
        for r in self.rules:
            if config.game not in (None, "all") and r.game != config.game:
                raise SimError(f"the simulator is set to play {config.game} but the rules are {r.game}'s")
            if script_rules is not None and r.game != script_rules.game:
                raise SimError(f"the script is a {script_rules.game} game but the rules are {r.game}'s")
            SensorView(r, config.occupancy, config.trays)  # occupancy-only output is for the pyramid games

    def games(self) -> Iterator[SimGame]:
        cfg = self.config
        t0, n = 0.0, 0
        while not cfg.games or n < cfg.games:
            rules = self.rules[n % len(self.rules)]
            more = not cfg.games or n + 1 < cfg.games
            game = simulate_game(rules, self.rng, cfg, script=self.script, start=self.start, t0=t0,
                                 reset=n > 0, hold_end=cfg.end_hold + (cfg.pause if more else 0.0))
            yield game
            t0 = round(game.observations[-1].t + 1 / cfg.fps, 6)
            n += 1

    def __iter__(self) -> Iterator[Observation | Press]:
        cameras = None
        if self.config.camera:
            from .sim_vision import Cameras
            seed = None if self.config.seed is None else self.config.seed * 7919 + 1  # not from self.rng: the games stay the same
            cameras = Cameras(random.Random(seed), self.config.resolution)
        for game in self.games():
            yield from (cameras.observations(game) if cameras is not None else game.stream())


def pace(observations: Iterable[Observation | Press], speed: float, *, clock: Callable[[], float] = time.monotonic,
         sleep: Callable[[float], None] = time.sleep) -> Iterator[Observation | Press]:
    """Each observation when its time comes: ``t`` seconds after the first, divided by
    ``speed`` (2: twice as fast as real time; 0: no waiting at all)."""
    origin: tuple[float, float] | None = None
    for obs in observations:
        if speed > 0:
            if origin is None:
                origin = (clock(), obs.t)
            else:
                delay = origin[0] + (obs.t - origin[1]) / speed - clock()
                if delay > 0:
                    sleep(delay)
        yield obs
