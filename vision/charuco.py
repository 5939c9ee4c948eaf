"""Camera calibration with a printed ChArUco board (``arbiter calibrate-camera``).

A ChArUco board is a chessboard with ArUco markers in its white squares: its corners are
found precisely, and each is identified even when part of the board is out of view. Its
markers come from DICT_5X5_100, so they are never mistaken for a game board's DICT_4X4_50
fiducials.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from .intrinsics import Intrinsics

DICTIONARY = cv2.aruco.DICT_5X5_100
#: images needed, and ChArUco corners needed in each image for it to count
MIN_IMAGES = 5
MIN_CORNERS = 8


class CalibrationError(ValueError):
    """Calibration that cannot be done: says which images failed and why."""


@dataclass(frozen=True, slots=True)
class CalibrationBoard:
    """The printed board: squares across and down, and sizes in millimetres."""

    squares: tuple[int, int] = (7, 5)
    square_mm: float = 30.0
    marker_mm: float = 22.0

    def __post_init__(self) -> None:
        if min(self.squares) < 3 or max(self.squares) > 20:
            raise CalibrationError(f"a calibration board needs 3 to 20 squares each way, not {self.squares}")
        if not 0 < self.marker_mm < self.square_mm:
            raise CalibrationError(f"markers ({self.marker_mm:g} mm) must be smaller than the squares ({self.square_mm:g} mm)")

    def opencv(self) -> cv2.aruco.CharucoBoard:
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm,
                                      cv2.aruco.getPredefinedDictionary(DICTIONARY))

    def image(self, dpi: float = 300, margin_mm: float = 10.0) -> np.ndarray:
        """The board to print at ``dpi``: exactly ``square_mm`` a square at that resolution."""
        px = dpi / 25.4
        w = int(round((self.squares[0] * self.square_mm + 2 * margin_mm) * px))
        h = int(round((self.squares[1] * self.square_mm + 2 * margin_mm) * px))
        return self.opencv().generateImage((w, h), marginSize=int(round(margin_mm * px)))


@dataclass(frozen=True, slots=True)
class ImageReport:
    name: str
    corners: int
    used: bool
    why: str = ""


def calibrate(images: Sequence[tuple[str, np.ndarray]], board: CalibrationBoard = CalibrationBoard()
              ) -> tuple[Intrinsics, list[ImageReport]]:
    """Intrinsics from named images of the board (all the same size); CalibrationError when
    too few images show enough of it."""
    cboard = board.opencv()
    detector = cv2.aruco.CharucoDetector(cboard)
    objects, points, reports = [], [], []
    size: tuple[int, int] | None = None
    for name, image in images:
        if image is None or image.size == 0:
            reports.append(ImageReport(name, 0, False, "not an image"))
            continue
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        shape = (grey.shape[1], grey.shape[0])
        if size is None:
            size = shape
        elif shape != size:
            reports.append(ImageReport(name, 0, False, f"{shape[0]}x{shape[1]}, not {size[0]}x{size[1]} like the first"))
            continue
        corners, ids, _, _ = detector.detectBoard(grey)
        count = 0 if ids is None else len(ids)
        if count < MIN_CORNERS:
            reports.append(ImageReport(name, count, False, f"{count} board corners found, {MIN_CORNERS} needed"))
            continue
        obj, img = cboard.matchImagePoints(corners, ids)
        if cboard.checkCharucoCornersCollinear(ids):
            reports.append(ImageReport(name, count, False, "the corners found lie on one line"))
            continue
        objects.append(obj.astype(np.float32))
        points.append(img.astype(np.float32))
        reports.append(ImageReport(name, count, True))
    used = sum(r.used for r in reports)
    if used < MIN_IMAGES or size is None:
        bad = "; ".join(f"{r.name}: {r.why}" for r in reports if not r.used)
        raise CalibrationError(f"{used} of {len(reports)} images show the calibration board well enough, "
                               f"{MIN_IMAGES} needed" + (f" ({bad})" if bad else ""))
    flags = cv2.CALIB_FIX_K3
    rms, K, dist, _, _ = cv2.calibrateCamera(objects, points, size, None, None, flags=flags)
    d = tuple(float(v) for v in np.ravel(dist)[:5])
    return Intrinsics(size[0], size[1], float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]), d,
                      float(rms)), reports
