"""`arbiter markers`: printable marker sheets at exact size that OpenCV reads back."""

import re
import xml.etree.ElementTree as ET

import cv2
import numpy as np
import pytest

from host.cli import main
from vision.geometry import load_board
from vision.markers import PT, layout, marker_cells, to_image, to_pdf, to_svg


@pytest.mark.parametrize("name", ["pyramid-4", "grid-9"])
def test_png_sheet_is_read_back_at_exact_size(tmp_path, name):
    board = load_board(name)
    out = tmp_path / "sheet.png"
    assert main(["markers", "--board", name, "--out", str(out), "--dpi", "300"]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and b"pHYs" in data[:64]
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(image)
    assert sorted(ids.ravel().tolist()) == [m.id for m in board.markers]
    want = board.marker_size / 25.4 * 300
    for quad in corners:
        sides = np.linalg.norm(quad[0] - np.roll(quad[0], 1, axis=0), axis=1)
        assert np.all(np.abs(sides - want) < 2.5), sides  # within a pixel or two at 300 dpi


def test_svg_sheet_is_in_millimetres():
    board = load_board("pyramid-4")
    svg = ET.fromstring(to_svg(layout(board)))
    assert svg.get("width") == "210mm" and svg.get("viewBox") == "0 0 210 297"
    rects = [r for r in svg if r.tag.endswith("rect") and r.get("fill") == "black"]
    first = layout(board).placed[0]
    inside = [r for r in rects if first.x - 1e-6 <= float(r.get("x")) < first.x + board.marker_size
              and first.y - 1e-6 <= float(r.get("y")) < first.y + board.marker_size]
    xs = [float(r.get("x")) for r in inside] + [float(r.get("x")) + float(r.get("width")) for r in inside]
    assert max(xs) - min(xs) == pytest.approx(board.marker_size)
    assert len(inside) == int(marker_cells(board.dictionary, first.marker.id).sum())
    assert any(float(r.get("width")) == pytest.approx(100.0) for r in rects)  # the scale bar
    assert "id 0: centre at x -85, y -85 mm" in to_svg(layout(board))


def test_pdf_sheet_has_the_page_and_squares_at_size():
    board = load_board("grid-9")
    pdf = to_pdf(layout(board)).decode("latin-1")
    assert pdf.startswith("%PDF-1.4") and pdf.rstrip().endswith("%%EOF")
    box = [float(v) for v in re.search(r"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf).groups()]
    assert box == pytest.approx([210 * PT, 297 * PT], abs=0.01)
    squares = [tuple(map(float, m)) for m in re.findall(r"([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", pdf)]
    assert any(w == pytest.approx(100 * PT, abs=0.01) for _, _, w, _ in squares)
    cell = board.marker_size / 6 * PT
    assert sum(1 for _, _, w, h in squares if w == pytest.approx(cell, abs=0.01)) == sum(
        int(marker_cells(board.dictionary, m.id).sum()) for m in board.markers)
    # the cross-reference table points at each object
    start = int(re.search(r"startxref\n(\d+)", pdf).group(1))
    assert pdf[start:start + 4] == "xref"


def test_raster_matches_the_vector_layout():
    board = load_board("pyramid-4")
    image = to_image(layout(board), dpi=254)  # 10 pixels a millimetre
    p = layout(board).placed[0]
    x0, y0 = int(p.x * 10), int(p.y * 10)
    assert image[y0 + 2, x0 + 2] == 0 and image[y0 - 3, x0 - 3] == 255  # border black, margin white


@pytest.mark.parametrize("args, words", [
    (["--board", "pyramid-9", "--out", "x.pdf"], "no board 'pyramid-9'"),
    (["--board", "pyramid-4", "--out", "x.txt"], "as .pdf, .svg or .png"),
    (["--board", "pyramid-4", "--out", "x.png", "--dpi", "5"], "--dpi must be"),
])
def test_markers_errors(tmp_path, capsys, args, words):
    args = [a if not a.startswith("x.") else str(tmp_path / a) for a in args]
    assert main(["markers", *args]) == 2
    assert words in capsys.readouterr().err
