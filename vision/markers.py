"""Printable sheets of a board's fiducial markers, at exact size, as SVG, PDF or PNG.

Each marker is drawn from its ArUco dictionary's bit pattern (black border included), with
its id and where to glue it (its centre in board coordinates) under it, and a 100 mm scale
bar so the user can check the printer did not scale the page.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .geometry import Board, Marker

A4 = (210.0, 297.0)
MARGIN = 18.0
SLOT = (85.0, 62.0)  # mm per marker: the square, its label, space
SCALE_BAR = 100.0


def marker_cells(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells, border included, as a square array of 1 (black) and 0 (white)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = d.markerSize + 2
    image = cv2.aruco.generateImageMarker(d, marker_id, n, borderBits=1)
    return (image < 128).astype(np.uint8)


@dataclass(frozen=True, slots=True)
class Placed:
    """A marker on the sheet: its top-left corner (mm from the page's top-left)."""

    marker: Marker
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Sheet:
    board: Board
    size: tuple[float, float]
    placed: tuple[Placed, ...]

    @property
    def title(self) -> str:
        return f"Tabletop Arbiter markers for board {self.board.name} ({self.board.dictionary}, {self.board.marker_size:g} mm)"


def layout(board: Board) -> Sheet:
    """Markers in two columns on A4 pages' worth of height (one tall page if needed)."""
    rows = (len(board.markers) + 1) // 2
    height = max(A4[1], 2 * MARGIN + 20 + rows * SLOT[1] + 30)
    placed = []
    for k, marker in enumerate(board.markers):
        col, row = k % 2, k // 2
        x = MARGIN + col * SLOT[0] + (SLOT[0] - board.marker_size) / 2
        y = MARGIN + 20 + row * SLOT[1]
        placed.append(Placed(marker, x, y))
    return Sheet(board, (A4[0], height), tuple(placed))


def _label(p: Placed) -> tuple[str, str]:
    x, y = p.marker.centre
    return f"id {p.marker.id}: centre at x {x:g}, y {y:g} mm", "glue with this edge towards -y"


def _squares(sheet: Sheet):
    """(x, y, w, h) of every black square, in mm from the top-left, markers and scale bar."""
    board = sheet.board
    for p in sheet.placed:
        cells = marker_cells(board.dictionary, p.marker.id)
        cell = board.marker_size / cells.shape[0]
        for r in range(cells.shape[0]):
            for c in range(cells.shape[1]):
                if cells[r, c]:
                    yield (p.x + c * cell, p.y + r * cell, cell, cell)
    bx, by = MARGIN, sheet.size[1] - MARGIN - 8
    yield (bx, by, SCALE_BAR, 0.6)
    for k in range(11):
        yield (bx + k * 10 - 0.3, by - (3 if k % 5 == 0 else 1.5), 0.6, 3 if k % 5 == 0 else 1.5)


def _texts(sheet: Sheet):
    """(x, y, size, text) in mm from the top-left (baseline)."""
    yield (MARGIN, MARGIN + 6, 4.2, sheet.title)
    yield (MARGIN, MARGIN + 12, 3.0, "Print at 100 % (no fit-to-page); the bar below must measure 100 mm.")
    for p in sheet.placed:
        first, second = _label(p)
        yield (p.x - 12, p.y + sheet.board.marker_size + 7, 2.8, first)
        yield (p.x - 12, p.y + sheet.board.marker_size + 11, 2.8, second)
    yield (MARGIN + SCALE_BAR + 4, sheet.size[1] - MARGIN - 7, 3.0, "100 mm")


def to_svg(sheet: Sheet) -> str:
    w, h = sheet.size
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}mm" height="{h:g}mm" viewBox="0 0 {w:g} {h:g}">',
           f'<rect width="{w:g}" height="{h:g}" fill="white"/>']
    for x, y, sw, sh in _squares(sheet):
        out.append(f'<rect x="{x:.4f}" y="{y:.4f}" width="{sw:.4f}" height="{sh:.4f}" fill="black"/>')
    for x, y, size, text in _texts(sheet):
        out.append(f'<text x="{x:.2f}" y="{y:.2f}" font-family="Helvetica, Arial, sans-serif" '
                   f'font-size="{size:g}">{_xml(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


PT = 72 / 25.4  # PDF points per millimetre


def to_pdf(sheet: Sheet) -> bytes:
    """One page, vector squares and Helvetica text, page size in millimetres exactly."""
    w, h = sheet.size
    ops = ["0 g"]
    for x, y, sw, sh in _squares(sheet):
        ops.append(f"{x * PT:.3f} {(h - y - sh) * PT:.3f} {sw * PT:.3f} {sh * PT:.3f} re f")
    for x, y, size, text in _texts(sheet):
        safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"BT /F1 {size * PT:.2f} Tf {x * PT:.3f} {(h - y) * PT:.3f} Td ({safe}) Tj ET")
    content = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w * PT:.3f} {h * PT:.3f}] "
         f"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>").encode(),
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    pdf = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += f"{k} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        pdf += f"{off:010d} 00000 n \n".encode()
    pdf += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(pdf)


def to_image(sheet: Sheet, dpi: int = 300) -> np.ndarray:
    """The sheet as a greyscale image at ``dpi``; each marker cell is filled exactly as the
    pixel grid allows (edges rounded to the nearest pixel)."""
    scale = dpi / 25.4
    w, h = (int(round(v * scale)) for v in sheet.size)
    image = np.full((h, w), 255, np.uint8)
    for x, y, sw, sh in _squares(sheet):
        x0, y0 = int(round(x * scale)), int(round(y * scale))
        x1, y1 = int(round((x + sw) * scale)), int(round((y + sh) * scale))
        image[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)] = 0
    for x, y, size, text in _texts(sheet):
        font_scale = size * scale / 22.0
        cv2.putText(image, text, (int(x * scale), int(y * scale)), cv2.FONT_HERSHEY_SIMPLEX, font_scale, 0,
                    max(1, int(round(font_scale * 1.5))), cv2.LINE_AA)
    return image


def to_png(sheet: Sheet, dpi: int = 300) -> bytes:
    """PNG bytes with the resolution recorded (a pHYs chunk), so image viewers and printers
    print it at size."""
    ok, data = cv2.imencode(".png", to_image(sheet, dpi))
    if not ok:
        raise ValueError("the sheet could not be encoded as PNG")
    raw = data.tobytes()
    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_ihdr = 8 + 4 + 4 + 13 + 4
    return raw[:end_of_ihdr] + chunk + raw[end_of_ihdr:]


def write_sheet(board: Board, path: Path, dpi: int = 300) -> Path:
    """The board's marker sheet in the format the file name asks for (.svg, .pdf, .png)."""
    sheet = layout(board)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(to_svg(sheet), encoding="utf-8")
    elif suffix == ".pdf":
        path.write_bytes(to_pdf(sheet))
    elif suffix == ".png":
        path.write_bytes(to_png(sheet, dpi))
    else:
        raise ValueError(f"{path.name}: the sheet can be written as .pdf, .svg or .png, not {suffix or 'no extension'}")
    return path
