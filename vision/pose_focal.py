"""The focal length of an uncalibrated webcam, from the board's marker corners
(vision/pose.py): a first value from the plane homography (Zhang's two constraints with
the principal point at the image centre), refined on the profile of the reprojection
error in log f, and combined with a typical webcam's focal length as far as the view
leaves it uncertain. Seen square on, a plane does not tell the focal length at all."""

from __future__ import annotations

import math

import cv2
import numpy as np

#: the focal length assumed before the view says otherwise: a 70 degree horizontal field of
#: view, the middle of the 50-90 degree webcam range (f = 0.714 x image width)
DEFAULT_FOV_DEG = 70.0
#: how far (standard deviation of log f) a webcam's focal length strays from the default
FOCAL_PRIOR_SIGMA = 0.35
#: how far (px, per coordinate) detected corners stray from the truth, bias included: it
#: sets how much a reprojection error profile says about the focal length
CORNER_NOISE_PX = 0.7


def default_focal(width: int) -> float:
    return (width / 2) / math.tan(math.radians(DEFAULT_FOV_DEG) / 2)


def principal_point(width: int, height: int) -> tuple[float, float]:
    """The image centre with pixel centres at integer coordinates."""
    return (width - 1) / 2, (height - 1) / 2


def zhang_focal(H: np.ndarray, cx: float, cy: float) -> float | None:
    """The focal length from a plane's homography with the principal point known (Zhang's
    constraints h1'w h2 = 0 and h1'w h1 = h2'w h2, w = K^-T K^-1, solved together for
    1/f^2); None when the view leaves it unobservable (nearly fronto-parallel) or the
    answer is not a focal length."""
    T = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    h = T @ H
    h1, h2 = h[:, 0], h[:, 1]
    # a * (1/f^2) + b = 0 for each constraint
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    scale = np.abs(a).max()
    if scale == 0:
        return None
    a, b = a / scale, b / scale
    denom = float(a @ a)
    w = -float(a @ b) / denom
    if not w > 0:
        return None
    return 1.0 / math.sqrt(w)


def _rss(obj: np.ndarray, img: np.ndarray, f: float, cx: float, cy: float) -> float:
    """Sum of squared reprojection errors (px^2) of the best pose with focal length f."""
    K = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return math.inf
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, None, rvec, tvec)
    proj, _ = cv2.projectPoints(obj, rvec, tvec, K, None)
    return float(np.sum((proj.reshape(-1, 2) - img) ** 2))


def _profile(obj: np.ndarray, img: np.ndarray, f0: float, cx: float, cy: float) -> tuple[float, float]:
    """The focal length that fits best and its uncertainty (standard deviation of log f),
    from the reprojection error profile: a parabola in log f through three fits. A flat
    profile (a view nearly square on to the board) gives a large uncertainty."""
    step = 0.15
    logs = [math.log(f0) + k * step for k in (-1, 0, 1)]
    rss = [_rss(obj, img, math.exp(v), cx, cy) for v in logs]
    for _ in range(6):  # walk downhill until the middle one is the lowest
        if not all(math.isfinite(r) for r in rss):
            return f0, math.inf
        if rss[0] < rss[1]:
            logs = [logs[0] - step] + logs[:2]
            rss = [_rss(obj, img, math.exp(logs[0]), cx, cy)] + rss[:2]
        elif rss[2] < rss[1]:
            logs = logs[1:] + [logs[2] + step]
            rss = rss[1:] + [_rss(obj, img, math.exp(logs[2]), cx, cy)]
        else:
            break
    curvature = (rss[0] - 2 * rss[1] + rss[2]) / (step * step)  # d2 RSS / d(log f)2
    if not curvature > 0:
        return math.exp(logs[1]), math.inf
    best = logs[1] + max(-step, min(step, (rss[0] - rss[2]) / (2 * curvature * step)))
    # RSS ~ N(0, CORNER_NOISE) per coordinate: log-likelihood curvature = curvature / (2 noise^2)
    sigma = CORNER_NOISE_PX * math.sqrt(2.0 / curvature)
    return math.exp(best), sigma


def estimate_focal(obj: np.ndarray, img: np.ndarray, width: int, height: int) -> tuple[float, str]:
    """The focal length: the plane's estimate combined with the typical webcam's in log
    space, each weighted by its certainty."""
    cx, cy = principal_point(width, height)
    prior = default_focal(width)
    H, _ = cv2.findHomography(obj[:, :2], img, 0)
    f0 = zhang_focal(H, cx, cy) if H is not None else None
    if f0 is None or not 0.2 * prior < f0 < 5 * prior:
        f0 = prior
    f, sigma = _profile(obj, img, f0, cx, cy)
    if not 0.2 * prior < f < 5 * prior or not math.isfinite(sigma):
        return prior, "default"
    w_est, w_prior = 1 / sigma ** 2, 1 / FOCAL_PRIOR_SIGMA ** 2
    log_f = (w_est * math.log(f) + w_prior * math.log(prior)) / (w_est + w_prior)
    share = w_est / (w_est + w_prior)
    source = "estimated" if share > 0.95 else "default" if share < 0.05 else "blend"
    return math.exp(log_f), source
