"""Vision on frames of another renderer: the random sets' boards, pieces and cameras,
without hands and then with a hand in every frame, path traced by Mitsuba 3
(vision/render_pbr.py) instead of the project's own renderer, and read as a camera's
frames are. Each row also gives the project's own frame of the same scene, read the
same way: what the path tracer changes; and the same path traced frames again through a
webcam, JPEG, a room's shadow and a colour cast (:data:`LOOKS`), as photographs come.
Issue 4 asks for zero confident wrong readings on held-out photorealistic images; these
are the nearest the project can make.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter

import cv2

from vision.geometry import load_board
from vision.recognize import Recognizer
from vision.pbr_frames import PHOTO_LOOKS, in_look
from vision.recognize_train import scenes
from vision.render_pbr import render_pbr
from vision.score import score

#: the sets' seeds: fresh, apart from every other set's
FIRST_SEED = 7_000_000
#: the seeds of the frames with a hand start this much later
HAND_SEEDS = 100
#: samples a pixel: enough that the path tracer's own noise is below a webcam's
SPP = 16


def _read(board, game: str, image, truth: dict[str, str], counts: Counter) -> list[str]:
    """Read one frame with a fresh recognizer into ``counts``: the cells read wrong."""
    result = Recognizer(board, game).read(image)
    counts["frames"] += 1
    if not result.ok:
        counts["no_pose"] += 1
        return []
    return score(dict(result.observation.cells), truth, counts)


#: what a camera and a room do to a photograph, applied to each path traced frame
#: afterwards (``in_look``, vision/pbr_frames.py)
LOOKS = PHOTO_LOOKS[1:]


def run(quick: bool = False) -> list[tuple[str, str, str]]:
    cv2.setNumThreads(1)
    rows = []
    for board_name, hands, frames in (("grid-9", 0.0, 40), ("pyramid-4", 0.0, 40), ("grid-9", 1.0, 20),
                                      ("pyramid-4", 1.0, 20)):
        frames = 1 if quick else frames
        board = load_board(board_name)
        what = "with a hand" if hands else "no hands"
        counts: Counter = Counter()
        own: Counter = Counter()  # the project's renderer's frames of the same scenes
        render_s: list[float] = []
        wrong_notes: list[str] = []
        seen = {look: Counter() for look in LOOKS}  # the same frames through each look
        seen_wrong: list[str] = []
        for k in range(frames):
            seed = FIRST_SEED + k + (HAND_SEEDS if hands else 0)
            sc = next(scenes(board, random.Random(seed), 1, hands=hands))
            t0 = time.perf_counter()
            image = render_pbr(sc.settings["board"], sc.cells, sc.settings["camera"], hands=sc.settings["hands"],
                               spp=SPP, seed=seed)
            render_s.append(time.perf_counter() - t0)
            wrong_notes += [f"{seed} {name}" for name in _read(board, sc.game, image, sc.cells, counts)]
            _read(board, sc.game, sc.frame.image, sc.cells, own)  # type: ignore[attr-defined]
            for look in LOOKS:
                seen_wrong += [f"{seed} {name} {look}" for name in
                               _read(board, sc.game, in_look(image, look, seed), sc.cells, seen[look])]
            print(f"  {board_name}, {what}: {k + 1}/{frames} path traced frames", file=sys.stderr, flush=True)
        chars = max(counts["chars"], 1)
        rows.append((f"{board_name} path traced frames, {what} (Mitsuba 3, {SPP} spp; seeds "
                     f"{FIRST_SEED + (HAND_SEEDS if hands else 0):,} on), "
                     f"{counts['frames']} frames ({counts['no_pose']} without a pose)",
                     f"{counts['right'] / chars:.1%} right, {counts['unknown'] / chars:.1%} unknown, {counts['wrong']} "
                     f"wrong of {counts['right'] + counts['wrong']} read"
                     + (f" ({', '.join(wrong_notes)})" if wrong_notes else "")
                     + f"; the project's renderer, same scenes: {own['right'] / max(own['chars'], 1):.1%} right, "
                       f"{own['wrong']} wrong ({own['no_pose']} without a pose)", "0 wrong"))
        rows.append((f"{board_name} the same path traced frames, {what}, through "
                     + ", ".join(f"{look} ({seen[look]['frames'] - seen[look]['no_pose']} with a pose)"
                                 for look in LOOKS),
                     " / ".join(f"{seen[look]['right'] / max(seen[look]['chars'], 1):.1%}" for look in LOOKS)
                     + f" right, {sum(seen[look]['wrong'] for look in LOOKS)} wrong"
                     + (f" ({', '.join(seen_wrong)})" if seen_wrong else ""), "0 wrong"))
        rows.append((f"{board_name} path tracing a frame, {what} (median, all cores)",
                     f"{statistics.median(render_s):.1f} s", ""))
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(" | ".join(row))
