"""Vision: single-frame recognition on thousands of random rendered frames (issue 4's
proof): random legal positions, cameras over the whole envelope (overhead to 45 degrees,
35-80 cm, 50-90 degree field of view, 640x480 to 1280x720), light, table, noise, blur,
JPEG and, in a third of the frames, a hand over the board.

Figures: frames with a pose, characters right / unknown / wrong, boards read whole; every
confident wrong reading is listed on stderr (frame seed, position, read, truth, why) so it
can be rendered again with ``vision.recognize_train.frame_in_look(board, seed, look)``.
The seeds are held out: the thresholds were chosen on other frames (docs/vision.md). The
earlier held-out sets (seeds 800000 and 900000 on) were studied frame by frame once their
misreadings were known, so they are held out no longer; each such change moves the
benchmark to seeds no rule was looked at on.
The webcam rows read the first frames of the same sets again, each put through a random
consumer webcam's processing (``vision.render_webcam``: white balance, tone curve,
vignetting, saturation, sharpening, low-quality JPEG), which the renderer does not make.
The far-colour rows render the first seeds of the same sets with the ball (or tile) and
plate colours moved farther from the defaults than the thresholds were chosen on
(``vision.recognize_train.far_colours``): another renderer's idea of light wood or red.
(The draws differ, so these are other frames.)
The soft-light rows render the first seeds with a light that has a size and bounces off
the plate (``vision.render_light.soft_lighting``): soft shadows and warm undersides, as a
real lamp or window gives, which the thresholds were never chosen on.
The cast-drift and shadow rows put the first frames of the sets under a room's light
(``vision.render_room``): a white balance drifting across the frame, or a large soft
shadow over part of it, which the renderer's lights do not make.
The mid-move row renders Sparks balls on positions with empty base hollows, as a Sparks
board shows while a coal is taken (``vision.recognize_train.mid_move_position``), which no
legal Sparks position does; of its seeds only the Sparks frames are counted.
The grain row renders the Pylos frames of the first seeds with the grain of the wood on
its balls (``render(ball_grain=...)``), as turned wooden balls show it and the other rows'
balls do not; of its seeds only the Pylos frames are counted.
The motion rows render the first seeds with a hand over the board in every frame, moving
10-60 mm while the shutter is open (``render(hand_travel=...)``): motion blur, as a video
of a player reaching in shows.
The placed row renders the grid's first seeds with every tile and control plate off true,
as a hand puts them down (``render(placed=...)``, ``vision.render_scene.hand_placed``:
up to 1.2 mm along each axis and 5 degrees), where the other rows' pieces are squared with
their cells.
Frames are spread over the machine's cores.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections import Counter

import cv2

from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.recognize_train import ROOM_LOOKS, frame_in_look, seed_game
from vision.score import score

#: board -> (first seed, frames in a full run)
SETS = {"pyramid-4": (2_600_000, 3000), "grid-9": (1_100_000, 1500)}
#: board -> frames of its set read again through a random webcam
WEBCAM = {"pyramid-4": 1000, "grid-9": 500}
#: board -> frames of its seeds rendered with colours far from the defaults
FAR = {"pyramid-4": 1000, "grid-9": 500}
#: board -> frames of its seeds rendered under a soft, bouncing light
SOFT = {"pyramid-4": 1000, "grid-9": 500}
#: board -> frames of its set read again under each room light (cast-drift, shadow)
ROOM = {"pyramid-4": 300, "grid-9": 300}
#: board -> seeds (from :data:`MID_MOVE_FIRST`) whose Sparks frames show empty base hollows
MID_MOVE = {"pyramid-4": 1000}
MID_MOVE_FIRST = 5_000_000
#: board -> seeds of its set whose Pylos frames are rendered with grain on the wooden balls
GRAIN = {"pyramid-4": 1000}
#: board -> seeds of its set rendered with a hand in every frame, blurred by its motion
MOTION = {"pyramid-4": 300, "grid-9": 300}
#: board -> seeds of its set rendered with its pieces put down off true, by hand
PLACED = {"grid-9": 500}
#: rows that count one game's frames only: mid-move Sparks positions; grain on wooden
#: balls, which Sparks' lacquered ones do not show
ONE_GAME = {"mid-move": "sparks", "grain": "pylos"}
HANDS = 0.35
_recognizers: dict = {}


def _frame(job: tuple[str, int, str]) -> tuple[Counter, list[str]]:
    board_name, seed, kind = job
    cv2.setNumThreads(1)
    board = load_board(board_name)
    mid_move = kind == "mid-move"
    if kind in ONE_GAME and seed_game(board, seed) != ONE_GAME[kind]:
        return Counter(), []  # not rendered: the row counts one game's frames only
    sc, image = frame_in_look(board, seed, "plain" if kind in ("random", "mid-move") else kind, hands=HANDS,
                              mid_move=mid_move)
    key = (board_name, sc.game)
    if key not in _recognizers:
        _recognizers[key] = Recognizer(board, sc.game)
    result = _recognizers[key].read(image)  # type: ignore[attr-defined]
    c: Counter = Counter(frames=1)
    if not result.ok:
        c["no_pose"] += 1
        return c, []
    wrong = score(result.observation.cells, sc.cells, c)
    c["whole"] += c["right"] == c["chars"]
    how = {"webcam": " through a webcam", "far-colour": " with far colours",
           "soft-light": " under a soft light", "cast-drift": " with a drifting white balance",
           "shadow": " half in a soft shadow", "mid-move": " mid-move",
           "grain": " with grain on its balls", "motion": " with a moving hand",
           "placed": " with its pieces off true"}.get(kind, "")
    notes = [f"{board_name} seed {seed}{how} ({sc.game}) {n}: read {result.observation.cells[n]}, "
             f"truth {sc.cells.get(n, '.' * len(result.observation.cells[n]))}: {result.details.get(n, '')}"
             for n in wrong]
    return c, notes


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    rows = []
    plan = [(b, first, frames, "random") for b, (first, frames) in SETS.items()]
    plan += [(b, SETS[b][0], frames, "webcam") for b, frames in WEBCAM.items()]
    plan += [(b, SETS[b][0], frames, "far-colour") for b, frames in FAR.items()]
    plan += [(b, SETS[b][0], frames, "soft-light") for b, frames in SOFT.items()]
    plan += [(b, SETS[b][0], frames, kind) for b, frames in ROOM.items() for kind in ROOM_LOOKS]
    plan += [(b, MID_MOVE_FIRST, frames, "mid-move") for b, frames in MID_MOVE.items()]
    plan += [(b, SETS[b][0], frames, "grain") for b, frames in GRAIN.items()]
    plan += [(b, SETS[b][0], frames, "motion") for b, frames in MOTION.items()]
    plan += [(b, SETS[b][0], frames, "placed") for b, frames in PLACED.items()]
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        for board_name, first, frames, kind in plan:
            count = 40 if quick else frames
            jobs = [(board_name, first + k, kind) for k in range(count)]
            total: Counter = Counter()
            t0 = time.perf_counter()
            for k, (c, notes) in enumerate(pool.imap_unordered(_frame, jobs, chunksize=4)):
                total += c
                for note in notes:
                    print("  wrong: " + note, file=sys.stderr)
                if k % 250 == 249:
                    print(f"  {board_name} ({kind}): {k + 1}/{count} frames", file=sys.stderr, flush=True)
            posed = total["frames"] - total["no_pose"]
            chars = max(total["chars"], 1)
            shown = total["frames"]  # the mid-move and grain rows count one game's frames only
            rows.append((f"{board_name}, {count} {kind} seeds: frames with a pose",
                         f"{posed} of {shown} ({posed / max(shown, 1):.1%}) in {time.perf_counter() - t0:.0f} s", ""))
            rows.append((f"{board_name}, {kind} frames: characters right / unknown",
                         f"{total['right'] / chars:.1%} / {total['unknown'] / chars:.1%} of {total['chars']}; "
                         f"boards whole {total['whole']} of {posed}", ""))
            rows.append((f"{board_name}, {kind} frames: confident wrong readings",
                         f"{total['wrong']} of {total['chars']}", "0"))
        pool.close()  # then join: the context's terminate alone can hang (CPython issue 78178)
        pool.join()
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(" | ".join(row))
