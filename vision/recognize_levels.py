"""Measuring a pyramid's levels for reading them from the top, in as few batches as a guess allows.

A level is read after the levels above it, because whether a ball above may be present
decides which of its samples are in view (vision/recognize_features.py). Measured level
by level, every level pays NumPy's per-call cost of the whole measure again; on a frame
of 1280x720 that was most of the reading. Here the levels still to read are measured
together, each position with a *guess* of which positions above it hold a ball; as the
caller reads a level, the guess is checked against what it read. Where it was right (or
wrong only about balls that could hide none of a position's samples, ``Geometry.touches``)
the measures stand; from the first level it got wrong, the rest is measured again with
what was read, and for the levels between, what the measures just dropped suggest (an
empty place where they show enough of it and the model finds it empty as surely as
reading one empty asks). The measures are those of measuring level by level, whatever
the guess: a good guess (the last frame's reading, on a camera on a stand) only makes
them cheaper.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from .recognize_features import Batch
from .recognize_pyramid import Geometry, Layout
from .recognize_thresholds import Thresholds

#: the model's class for an empty place (its probabilities: empty, ball, hand)
EMPTY = 0

#: measures of positions (``rows``), each row with the positions taken to be present above
#: it (rows x positions): the measures and the model's probabilities
Measure = Callable[[np.ndarray, np.ndarray], tuple[Batch, np.ndarray]]


def measured_levels(layout: Layout, geo: Geometry, maybe: np.ndarray, guess: np.ndarray,
                    measure: Measure, th: Thresholds) -> Iterator[tuple[np.ndarray, Batch, np.ndarray]]:
    """Each level's positions, highest first, with their measures and probabilities.

    ``maybe`` (all True to begin with) is the caller's: it sets a position False when it
    reads it empty, before asking for the next level. ``guess``: which positions are
    expected to hold a ball. Yields as many levels as there are; measures as few batches
    as the guess allows (one when it is right)."""
    levels = layout.by_level()
    k = 0
    while k < len(levels):
        rows = np.concatenate(levels[k:])
        read = np.zeros(len(maybe), dtype=bool)
        for idx in levels[:k]:
            read[idx] = True
        assumed = np.where(read, maybe, guess)
        above = layout.levels[None, :] > layout.levels[rows][:, None]
        batch, probs = measure(rows, np.where(above, assumed[None, :], True))
        start = 0
        for m, idx in enumerate(levels[k:]):
            if m:
                # positions read since the batch, above this level, read otherwise than taken
                wrong = np.flatnonzero((maybe != assumed) & (layout.levels > layout.levels[idx[0]]))
                if len(wrong) and geo.touches[np.ix_(idx, wrong)].any():
                    k += m
                    guess = guess.copy()
                    rest = slice(start, len(rows))
                    need = np.array([th.empty_at(level) for level in layout.levels[rows[rest]].tolist()])
                    guess[rows[rest]] = ((probs[rest, EMPTY] < need)
                                         | (batch.counts[rest] < th.min_samples))
                    break
            stop = start + len(idx)
            yield idx, batch.rows(start, stop), probs[start:stop]
            start = stop
        else:
            return
