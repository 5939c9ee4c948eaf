"""The small model that weighs a position's measures (vision/recognize_features.py) into
three probabilities: empty, a ball, covered by a hand.

A two-layer perceptron: standardise, one hidden layer of rectified units, softmax. Its
weights (vision/recognize_weights.py) come from ``python -m vision.recognize_train`` on
rendered frames; the thresholds that turn probabilities into readings were chosen on other
rendered frames so that no reading there was confidently wrong (docs/vision.md).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

CLASSES = ("empty", "ball", "hand")


#: a model's parameters, in the order :func:`_forward` takes them
PARAMS = ("mean", "scale", "w1", "b1", "w2", "b2")


def _forward(x: np.ndarray, mean: np.ndarray, scale: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
             b2: np.ndarray) -> np.ndarray:
    """Class probabilities (last axis) of measures ``x`` (... x N x F): standardised, one
    hidden layer of rectifiers, softmax. Leading axes broadcast, so one call serves a stack
    of models."""
    z = (x - mean) / scale
    h = np.maximum(z @ w1 + b1, 0.0)
    logits = h @ w2 + b2
    logits -= logits.max(axis=-1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass(frozen=True, eq=False)
class Model:
    """Standardisation (``mean``, ``scale``) and the two layers."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @classmethod
    def from_dict(cls, d: dict) -> Model:
        return cls(*(np.asarray(d[k], dtype=np.float64) for k in PARAMS))

    def to_dict(self) -> dict:
        return {k: np.round(getattr(self, k), 6).tolist() for k in PARAMS}

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """N x 3 (empty, ball, hand) for N x F measures."""
        return _forward(np.atleast_2d(x), *(getattr(self, k) for k in PARAMS))


@dataclass(frozen=True, eq=False)
class Ensemble:
    """Several models fitted from different starts; their probabilities are averaged,
    which tempers the overconfidence of any one of them."""

    models: tuple[Model, ...]

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        stacked = self._stacked
        if stacked is None:
            return np.mean([m.probabilities(x) for m in self.models], axis=0)
        return np.mean(_forward(np.atleast_2d(x)[None], *stacked), axis=0)

    @cached_property
    def _stacked(self) -> tuple[np.ndarray, ...] | None:
        """The models' parameters stacked (model x ...; a vector becomes model x 1 x ...,
        to broadcast over the measures' rows), so that one pass of NumPy's calls serves
        all of them (a frame reads four levels); None if their shapes differ."""
        if len({tuple(getattr(m, k).shape for k in PARAMS) for m in self.models}) != 1:
            return None
        stacks = (np.stack([getattr(m, k) for m in self.models]) for k in PARAMS)
        return tuple(a[:, None] if a.ndim == 2 else a for a in stacks)

    def to_list(self) -> list[dict]:
        return [m.to_dict() for m in self.models]


def load_weights(module: str) -> Ensemble | None:
    """The ensemble whose weights ``python -m vision.recognize_train`` (or
    ``vision.border_train``) wrote as ``WEIGHTS`` in vision/``module``.py, None before
    training."""
    try:
        weights = importlib.import_module(f".{module}", __package__).WEIGHTS
    except ImportError:
        return None
    return Ensemble(tuple(Model.from_dict(d) for d in weights))


def load(pbr: bool = False) -> Ensemble | None:
    """The trained models, None before training; with ``pbr``, the second ones, fitted on
    path traced frames alone (vision/pyramid_pbr_weights.py; vision/recognize_balls.py,
    ``Thresholds.pbr_empty``)."""
    return load_weights("pyramid_pbr_weights" if pbr else "recognize_weights")


def train(x: np.ndarray, y: np.ndarray, *, hidden: int = 24, epochs: int = 300, seed: int = 0,
          weight: np.ndarray | None = None, l2: float = 1e-4) -> Model:
    """Fit the perceptron by full-batch Adam on cross-entropy (``weight`` per sample)."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-6
    z = (x - mean) / scale
    n, f = z.shape
    k = len(CLASSES)
    params = [rng.normal(0, (2 / f) ** 0.5, (f, hidden)), np.zeros(hidden),
              rng.normal(0, (1 / hidden) ** 0.5, (hidden, k)), np.zeros(k)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    onehot = np.eye(k)[y]
    sw = np.ones(n) if weight is None else weight
    sw = sw / sw.sum()
    lr, b1, b2 = 0.01, 0.9, 0.999
    for step in range(1, epochs + 1):
        w1, c1, w2, c2 = params
        pre = z @ w1 + c1
        h = np.maximum(pre, 0.0)
        logits = h @ w2 + c2
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * sw[:, None]
        grads = [None, None, h.T @ g + l2 * w2, g.sum(axis=0)]
        gh = (g @ w2.T) * (pre > 0)
        grads[0] = z.T @ gh + l2 * w1
        grads[1] = gh.sum(axis=0)
        for j, (pj, gj) in enumerate(zip(params, grads)):
            m[j] = b1 * m[j] + (1 - b1) * gj
            v[j] = b2 * v[j] + (1 - b2) * gj * gj
            mh = m[j] / (1 - b1 ** step)
            vh = v[j] / (1 - b2 ** step)
            params[j] = pj - lr * mh / (np.sqrt(vh) + 1e-8)
    return Model(mean, scale, *params)
