"""An overlay for checking a calibration by eye: the frame with every position drawn where
the pose puts it (a ball's outline, a tile's square), the letter read there, the markers
outlined and a legend line. Positions read are green, unknown ones orange, markers blue."""

from __future__ import annotations

from typing import Mapping

import cv2
import numpy as np

from .geometry import Board
from .pose import Pose

READ = (80, 200, 60)  # BGR
UNKNOWN = (0, 150, 255)
MARKER = (255, 120, 40)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def _label(img: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int], scale: float) -> None:
    size, _ = cv2.getTextSize(text, FONT, scale, 1)
    org = (at[0] - size[0] // 2, at[1] + size[1] // 2)
    cv2.putText(img, text, org, FONT, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, org, FONT, scale, colour, 1, cv2.LINE_AA)


def _ball_radius_px(pose: Pose, centre: np.ndarray, radius: float) -> float:
    """The projected radius of a sphere (pixels), from its distance to the camera."""
    depth = float(np.linalg.norm(pose.to_camera(centre[None])[0]))
    return pose.focal * radius / max(depth, 1e-6)


def draw(image: np.ndarray, board: Board, pose: Pose, cells: Mapping[str, str], legend: str = "") -> np.ndarray:
    """A copy of ``image`` (BGR) with the overlay; ``cells`` are the codes read."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    h = out.shape[0]
    scale = max(0.35, min(1.0, h / 900))
    for m in board.markers:
        corners = pose.project(np.array(board.marker_corners(m)))
        if np.isfinite(corners).all():
            cv2.polylines(out, [np.rint(corners).astype(np.int32)], True, MARKER, 2, cv2.LINE_AA)
    read = unknown = 0
    if board.kind == "pyramid":
        # lower levels first, so the balls on top are drawn over them
        for p in sorted(board.positions, key=lambda q: q.centre[2]):
            code = cells.get(p.name, "?")
            c = np.array(p.centre)
            uv = pose.project(c[None])[0]
            if not np.isfinite(uv).all():
                continue
            colour = UNKNOWN if "?" in code else READ
            read, unknown = read + ("?" not in code), unknown + ("?" in code)
            r = _ball_radius_px(pose, c, board.ball_diameter / 2)
            centre = (int(round(uv[0])), int(round(uv[1])))
            if code == ".":  # an empty place: a small ring, so the balls stay readable
                cv2.circle(out, centre, max(2, int(round(r / 3))), colour, 1, cv2.LINE_AA)
                continue
            cv2.circle(out, centre, max(2, int(round(r))), colour, 1, cv2.LINE_AA)
            _label(out, code, centre, colour, scale)
    else:
        half = board.tile_size / 2
        z = board.tile_thickness + board.control_thickness
        for p in board.positions:
            code = cells.get(p.name, "??")
            x, y = p.centre[:2]
            sq = pose.project(np.array([(x - half, y - half, z), (x + half, y - half, z), (x + half, y + half, z),
                                        (x - half, y + half, z)]))
            if not np.isfinite(sq).all():
                continue
            colour = UNKNOWN if "?" in code else READ
            read, unknown = read + ("?" not in code), unknown + ("?" in code)
            cv2.polylines(out, [np.rint(sq).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
            mid = sq.mean(axis=0)
            _label(out, code, (int(round(mid[0])), int(round(mid[1]))), colour, scale * 0.8)
    text = f"{legend}  {read} read (green), {unknown} unknown (orange), markers blue".strip()
    bar = int(28 * scale) + 8
    cv2.rectangle(out, (0, h - bar), (out.shape[1], h), (0, 0, 0), -1)
    cv2.putText(out, text, (6, h - bar // 3), FONT, scale * 0.9, (255, 255, 255), 1, cv2.LINE_AA)
    return out
