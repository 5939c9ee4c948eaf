"""The border model's second look (vision/recognize_border.py) at the borders the rules of
vision/recognize_grid.py read or leave open.

Mostly it takes readings away: a border read bare or white that the model does not call
so is left ``?``. It makes readings of its own only where the rules leave a border open and
lean one way: a border dark all round (or on the sides in view), and one whose samples
split with black leading, is read black where the model calls it so with near certainty and
no arm is in view; one whose samples split with white leading is read white so, too, unless
bare wood looks pale all over the frame; and one whose samples split with bare wood leading
is read bare so. A border the rules hold for its light alone (bare-looking but thin, or on
overexposed wood) is read black where the model is sure of a black plate there. A border
the rules read bare or white that the model passes must be so to a second model too, fitted
on path traced frames alone, which sees glare and a camera's processing as this project's
renderer does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .recognize_border import SURE, profile_features
from .recognize_model import Ensemble

if TYPE_CHECKING:
    from .recognize_grid import CellReading, GridGeometry, GridLayout

#: a border dark all round (vision/recognize_plates.py, ``DARK_LIGHT``) is a black plate where
#: the border model says so with this probability. The rules leave black plates unknown
#: where the blur mixes them with the wood beside them (then they look as wood in shade
#: does): on 150 plain frames of the benchmark's grid seeds, none of the 1,259 black plates
#: round tiles read right was read black. The model tells them apart from the light across
#: the border, a dark band as wide as the plate's margin: of the first 150 frames' tiles
#: read right in each of five looks (plain, webcams, far colours, pieces off true, moving
#: hands), 5,387 of 6,016 black plates are black to it at 0.99 or more, and 6 of 39,278 bare
#: borders and white plates, none of them dark all round. Not with an arm in view, whose
#: shadow may darken a border where the tile's does not (fresh 6400142 f5 and 6400147 e1
#: and e4 through webcams: bare borders, dark on three sides, read black at 0.99-1.00 when
#: three were enough). With no arm in view, a border dark on three sides (``DIM_SIDES``: a
#: tile seen from the side hides the fourth) is asked too: of the benchmark's first 200 grid
#: frames in five looks, of the borders not lit like the wood and seen on three sides, 1,163
#: black plates were black to the model at 0.99 or more, the 58 bare borders and white
#: plates at most 0.18
BLACK_SURE = 0.99
#: a border whose samples split, more of them voting black (or white) than anything else but
#: too few to read by (vision/recognize_grid.py, ``SHARE``), is read so where the model calls
#: it so with this probability, and no arm is in view (as above). On fresh seeds 8,500,000 on
#: (200 frames in eight looks: 1,600 reads) and six path traced sets (750 frames in five
#: looks: 3,750 reads) it reads 463 and 1,132 black plates that were ``?``, none wrong at
#: 0.95 or more
SPLIT_SURE = 0.99
#: ... white where the model calls it so with this probability: glare on bare wood can pass
#: for a white plate's light (path traced 8460065 c3, bare, white at 0.983-0.991 in four
#: looks). With :data:`WHITE_SPLIT_LEAST` and :data:`PALE_FRAME`, on the benchmark's grid
#: frames (2,150 with no arm in view), 8,500,000 on (200 frames in eight looks) and six path
#: traced sets (3,750 reads), 6,066, 2,327 and 2,151 white plates are read that were ``?``,
#: none wrong; at 0.99, 7,566, 2,916 and 3,658 with one wrong (8460065 c3 through JPEG)
WHITE_SPLIT_SURE = 0.998
#: ... and only where at least this share of the border's samples vote white: bare wood lit
#: by glare or a halo votes white here and there (the benchmark's grid seeds 1101471 b6 at
#: 5 % and 1100337 e9 through a webcam at 20 %, both bare, white to the model at 0.997-0.998)
WHITE_SPLIT_LEAST = 0.25
#: ... and only where at most this share of the frame's borders round clear tiles lean white
#: rather than bare (vision/recognize_grid.py): where more do, bare wood looks pale all over
#: the frame, as a webcam's sharpening halo beside dark tiles makes it, and the model calls
#: bare borders white too (1100189 through a webcam: 81 % lean white, seven bare borders
#: white at 0.993-1.000). Random positions put plates under about a quarter of the tiles
PALE_FRAME = 0.5
#: a border whose samples split with bare wood leading is read bare where the model calls it
#: bare wood with this probability (and no arm is in view): under glare, through JPEG or a
#: colour cast it calls some white plates so at 0.99 or more. Of the borders so led with no
#: arm in view, on the benchmark's grid frames, 8,500,000 on (eight looks) and nine path
#: traced sets (4,700 reads), the white and black plates are bare to it at 0.9964 at most
#: (path traced 8460031 a1 in a colour cast), but for one (:data:`BARE_SPLIT_LEAST`). At
#: 0.999 it reads 8,621, 2,928 and 11,708 bare borders that were ``?``, none wrong; at 0.998,
#: 10,231, 3,530 and 16,007, none wrong but nearer; at 0.995, 3 wrong on the path traced sets
BARE_SPLIT_SURE = 0.999
#: ... and only where at least this share of the border's samples vote bare: path traced
#: 8430049 h1 through a webcam, a white plate only 5 % of whose samples voted at all, was bare
#: to the model at 0.9999
BARE_SPLIT_LEAST = 0.2
#: a border the rules hold for its light alone is read black where the model calls it a
#: black plate with this probability and no arm is in view: one that looks bare but is too
#: thin for bare to be told from a pale plate (vision/recognize_grid.py, ``BARE_PX``), and
#: one on overexposed wood, where a white plate would look as bare wood does but a black
#: one would not. Of those with no arm in view, on the benchmark's grid frames, 8,500,000
#: on (eight looks) and nine path traced sets (4,700 reads), the bare borders and white
#: plates are black to it at 0.975 at most (path traced 8480038 f2 through a webcam, thin;
#: 1100170 e6 through a webcam, overexposed, 0.968), and at 0.998 it reads 3,941, 920 and
#: 9,889 black plates that were ``?``. Not borders only not lit like the wood (1100170 b6,
#: bare, dark on two sides through a webcam, black to it at 0.995): those need the rules'
#: darkness on three sides or more (:data:`BLACK_SURE`)
HELD_BLACK_SURE = 0.998
#: a border the rules read bare or white, and the border model passes, must be so to the
#: second border model, fitted on path traced frames alone (vision/border_pbr_weights.py),
#: with this probability. The first model learnt its borders from this project's renderer;
#: under glare off a varnished plate, through JPEG or in a room's shadow it called white
#: plates on path traced frames bare at 0.95-0.998 (docs/vision.md, Limits). On the fresh
#: path traced sets 8,520,000, 8,540,000 and 8,580,000 on (1,250 reads in five looks),
#: which neither model was fitted on, 0.95 leaves all 11 white plates read bare ``?`` (0.9
#: 10: 8580052 g9 in a room's shadow is bare to it at 0.9006) and costs 3.2 % of the 33,891
#: bare borders read right there, 6.3 % of 13,514 on this project's frames (8,560,000 on)
PBR_SURE = 0.95
#: what the light across a border looks like, by what the rules read there
_LOOKS = {".": "like bare wood", "w": "like a white plate"}
#: what an arm in view may do to a border, by the plate the model sees there
_ARM = ("shadow may dim a white plate to the wood's light", "skin or shadow may change a border's light",
        "shadow may darken a border")
#: what the model reads a border whose samples split as, by the plate leading
_SPLIT = ("bare wood", "a white plate", "a black plate")


def second_look(out: Mapping[str, CellReading], image: np.ndarray, layout: GridLayout, geo: GridGeometry,
                ref: np.ndarray, border: Ensemble, dark: Sequence[int],
                partly: frozenset[int] | set[int] = frozenset(),
                stricter: Mapping[int, tuple[float, str]] | None = None,
                split: Sequence[tuple[int, int, float]] = (), hand: bool = False,
                pale: float = 0.0, held: Mapping[int, str] | None = None,
                pbr: Ensemble | None = None) -> dict[str, tuple[str, str]]:
    """The readings (code, why) that change, by cell name. Borders read bare or white
    that the model does not call so with :data:`SURE` (for the bare borders of
    ``stricter``, with the probability it gives and the reason why) become ``?``; borders
    dark all round (``dark``; ``partly``: those dark on the sides in view, a side hidden)
    that it calls black with :data:`BLACK_SURE` are read black, and so are borders whose
    samples split (``split``: the cell, what leads, 0 bare wood, 1 white or 2 black, and its
    share of the samples) that it calls so with :data:`SPLIT_SURE` (white:
    :data:`WHITE_SPLIT_SURE`, bare: :data:`BARE_SPLIT_SURE`) are read so, but not with an arm
    in view (``hand``); white ones only by :data:`WHITE_SPLIT_LEAST` of their samples and
    where at most :data:`PALE_FRAME` of the frame's borders lean white (``pale``), bare ones
    only by :data:`BARE_SPLIT_LEAST`. Borders the rules hold for their light alone (``held``:
    what the rules saw there, by cell) that it calls black with :data:`HELD_BLACK_SURE` are
    read black. Borders read bare or white that the model passes must be so to ``pbr``, the
    model fitted on path traced frames, with :data:`PBR_SURE`. ``ref``: the wood next to
    every cell (linear RGB)."""
    stricter = stricter or {}
    held = held or {}
    checked = [i for i, n in enumerate(layout.names) if out[n].code[1] in SURE and out[n].why == "read"]
    least = (BARE_SPLIT_LEAST, WHITE_SPLIT_LEAST, 0.0)  # looked up here, where tests may change them
    split = [(i, plate, share) for i, plate, share in split if share >= least[plate]]
    asked = checked + list(dark) + [i for i, _, _ in split] + list(held)
    if not asked:
        return {}
    idx = np.array(asked, dtype=np.intp)
    features = profile_features(image, geo.profile[idx], ref[idx], geo.border_px)
    p = border.probabilities(features)
    p_checked, p_dark, p_split, p_held = np.split(p, np.cumsum([len(checked), len(dark), len(split)]))
    q_checked = pbr.probabilities(features[:len(checked)]) if pbr is not None and checked else p_checked
    again: dict[str, tuple[str, str]] = {}
    for (i, saw), probs in zip(held.items(), p_held):
        if probs[2] >= HELD_BLACK_SURE:
            name = layout.names[i]
            again[name] = (out[name].code[0] + "b", f"read: across the border the light of a black plate at P "
                                                    f"{probs[2]:.3f}, where the rules saw {saw}")
    for i, probs in zip(dark, p_dark):
        name = layout.names[i]
        if probs[2] >= BLACK_SURE:
            where = "on the sides in view" if i in partly else "all round"
            again[name] = (out[name].code[0] + "b", f"read: a border dark {where}, and across it the light of a black "
                                                    f"plate at P {probs[2]:.2f}")
    for (i, plate, share), probs in zip(split, p_split):
        name = layout.names[i]
        if probs[plate] < (BARE_SPLIT_SURE, WHITE_SPLIT_SURE, SPLIT_SURE)[plate]:
            continue
        seen = f"{out[name].why}: across the border the light of {_SPLIT[plate]} at P {probs[plate]:.3f}, but "
        if hand:
            again[name] = (out[name].code, seen + f"an arm is in view, whose {_ARM[plate]}")
        elif plate == 1 and pale > PALE_FRAME:
            again[name] = (out[name].code, seen + f"{pale:.0%} of the frame's borders lean white: bare wood looks "
                                                  "pale all over it (a webcam's sharpening halo?)")
        else:
            again[name] = (out[name].code[0] + ".wb"[plate], f"read: {_SPLIT[plate]} by {share:.0%} of the border's "
                                                             f"samples, too few alone, and across the border the "
                                                             f"light of {('bare wood', 'one', 'one')[plate]} at P "
                                                             f"{probs[plate]:.3f}")
    for i, probs, second in zip(checked, p_checked, q_checked):
        name = layout.names[i]
        read = out[name].code[1]
        sure = probs[".wb".index(read)]
        need, why = stricter[i] if read == "." and i in stricter else (SURE[read], "")
        why = why if sure >= SURE[read] else ""  # said only where the stricter need decides
        if sure < need:
            again[name] = (out[name].code[0] + "?", f"controller unclear: across the border the light looks "
                                                    f"{_LOOKS[read]} at P {sure:.{3 if why else 2}f} only"
                                                    f"{', ' + why if why else ''} (bare wood {probs[0]:.2f}, a white "
                                                    f"plate {probs[1]:.2f}, a black one {probs[2]:.2f})")
        elif pbr is not None and second[".wb".index(read)] < PBR_SURE:
            again[name] = (out[name].code[0] + "?", f"controller unclear: across the border the light looks "
                                                    f"{_LOOKS[read]} at P {sure:.3f}, but at P "
                                                    f"{second['.wb'.index(read)]:.2f} only to the model fitted on "
                                                    f"path traced frames (bare wood {second[0]:.2f}, a white plate "
                                                    f"{second[1]:.2f}, a black one {second[2]:.2f})")
    return again
