"""What a :class:`vision.render.Stage` keeps of the empty board's shading, pixel by pixel.

A game rendered frame by frame from one camera changes only the pixels its pieces and hands
cover: every other pixel's point, normal, material, ray and hollow are the empty board's.
Whatever is worked out from those alone, pixel by pixel, is worked out once for the empty
board and kept by the stage; each frame works it out for its pieces' and hands' pixels only
and fills them in. The frames are exactly those rendered without a stage
(tests/test_render.py checks it), and rendering a game takes about a third less time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from .render_scene import FIRST_SOLID, MISS
from .render_shapes import dot

if TYPE_CHECKING:
    from .render import Stage, _Buffers


def points_of(origin: np.ndarray, rays: np.ndarray, buf: _Buffers, stage: Stage | None = None) -> np.ndarray:
    """Where each pixel's ray meets what it hits (0 where it hits nothing); with ``stage``
    (whose rays are ``rays``), the empty board's are kept and only the pieces' and hands'
    pixels are worked out."""
    def meet(t: np.ndarray, along: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(invalid="ignore"):
            points = origin + t[..., None] * along
        points[ids == MISS] = 0.0
        return (points,)

    return by_pixel(meet, POINTS, stage, buf, (buf.t, rays, buf.id),
                    lambda: (stage.buffers.t, rays, stage.buffers.id))[0]


#: the key a stage keeps the empty board's points under
POINTS = ("points",)


def stage_points(stage: Stage) -> np.ndarray:
    """The empty board's points, kept by the stage (as :func:`points_of` keeps them)."""
    return stage.kept(POINTS, lambda: (points_of(stage.view.centre, stage.rays, stage.buffers),))[0]


def by_pixel(f: Callable[..., tuple[np.ndarray, ...]], key: tuple, stage: Stage | None, buf: _Buffers,
             inputs: tuple[np.ndarray, ...], empty: Callable[[], tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """``f(*inputs)``, which works pixel by pixel on arrays of pixels. With ``stage``, its
    results for the empty board (``f(*empty())``) are kept under ``key`` and only the
    pieces' and hands' pixels are worked out: the same arrays, sooner (no piece or hand
    changes another pixel's point, normal, id, hollow, ray or material)."""
    if stage is None:
        return f(*inputs)
    base = stage.kept(key, lambda: f(*empty()))
    on = buf.id >= FIRST_SOLID
    part = f(*(a[on] for a in inputs))
    out = []
    for whole, some in zip(base, part):
        whole = whole.copy()
        whole[on] = some
        out.append(whole)
    return tuple(out)


def gloss_of(n: np.ndarray, rays: np.ndarray, shininess: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Blinn-Phong's highlight before its strength: the normals' cosine to the unit
    half-way vectors between the light and the view along ``rays``, to the power of the
    shininess."""
    half = light - rays
    half /= np.sqrt(dot(half, half))[..., None]
    return np.power(np.clip(dot(n, half), 0.0, 1.0), shininess)
