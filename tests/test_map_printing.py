"""The sheets in the PDF's standard fonts, read back by an independent reader (MuPDF, via pymupdf):
the text is searchable, no font is embedded, and the labels MuPDF finds on the map do not overlap
(ink boxes) and sit inside the boxes geosite measured when it placed them (so measuring by the AFM
metrics is measuring what is printed). The PNG preview is the PDF rasterised."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from geosite.maps.printing import core_text

PT = 72.0


@pytest.fixture(scope="module")
def lot7(tmp_path_factory, lot7_result):
    """Lot 7 analysed (conftest's, once per session), its three sheets written, and the figures kept (for
    the boxes placed)."""
    from geosite.maps import render_plan_maps
    from geosite.maps.common import make_context
    from geosite.maps.existing import draw_existing
    from geosite.maps.render import render

    result = lot7_result
    out = tmp_path_factory.mktemp("lot7")
    files = render_plan_maps(result, out)
    fig = render(make_context(result), draw_existing, None, "1")[0]
    return out, files, fig


def _map_lines(pdf: Path, frame_in) -> list[tuple[object, str]]:
    """Every text line MuPDF finds inside the map frame: (ink box in PDF points, top-down; text)."""
    pymupdf = pytest.importorskip("pymupdf")
    page = pymupdf.open(pdf)[0]
    h = page.rect.height
    fx, fy, fw, fh = frame_in
    frame = pymupdf.Rect(fx * PT, h - (fy + fh) * PT, (fx + fw) * PT, h - fy * PT)
    out = []
    for block in page.get_text("dict", flags=pymupdf.TEXT_ACCURATE_BBOXES)["blocks"]:
        for line in block.get("lines", []):
            r = pymupdf.Rect(line["bbox"])
            if frame.contains(r):
                out.append((r, "".join(s["text"] for s in line["spans"])))
    return out


def test_pdfs_use_standard_fonts_and_text_is_searchable(lot7):
    pymupdf = pytest.importorskip("pymupdf")
    out, files, fig = lot7
    for pdf in (f for f in files if f.suffix == ".pdf"):
        page = pymupdf.open(pdf)[0]
        fonts = {f[3] for f in page.get_fonts()}
        assert fonts and fonts <= {"Helvetica", "Helvetica-Bold", "Helvetica-Oblique", "Courier"}, fonts
        assert all(f[1] == "n/a" for f in page.get_fonts())  # no font program embedded
        assert b"FontFile" not in pdf.read_bytes()
    words = pymupdf.open(out / "existing_site_map.pdf")[0].get_text()
    for text, _ in fig.geosite.placed:  # every label geosite placed is text MuPDF reads back
        assert text.split("\n")[0] in words, text


def test_labels_do_not_overlap_in_the_printed_pdf(lot7):
    _, files, fig = lot7
    frame = fig.geosite.plan.sheet.frame
    for pdf in (f for f in files if f.suffix == ".pdf"):
        lines = _map_lines(pdf, frame)
        assert len(lines) >= 8
        hits = [(a[1], b[1]) for a, b in itertools.combinations(lines, 2) if a[0].intersects(b[0])]
        assert hits == [], (pdf.name, hits)


def test_printed_label_lies_in_the_box_measured_for_it(lot7):
    """The box geosite measured (AFM metrics) holds the ink MuPDF finds for the same label, within
    1 pt (less than the 0.015 in = 1.08 pt kept clear around every label, so boxes apart when placed
    are apart when printed; rotated labels' ink reaches 0.6 pt past their measured box): the
    placement measured the text that is printed."""
    out, _, fig = lot7
    sheet = fig.geosite
    h = sheet.plan.sheet.height_in * PT
    printed = {}
    for r, text in _map_lines(out / "existing_site_map.pdf", sheet.plan.sheet.frame):
        printed.setdefault(text, []).append(r)
    checked = 0
    for text, bb in sheet.placed:
        if "\n" in text or len(printed.get(text, [])) != 1:
            continue
        r = printed[text][0]
        x0, y0, x1, y1 = bb.bounds  # inches from the lower left
        tol = 1.0
        assert r.x0 >= x0 * PT - tol and r.x1 <= x1 * PT + tol, text
        assert r.y0 >= h - y1 * PT - tol and r.y1 <= h - y0 * PT + tol, text
        # and the measured box is not loose: the printed ink spans most of it along the text
        assert (r.x1 - r.x0) >= 0.8 * (x1 - x0) * PT or (r.y1 - r.y0) >= 0.8 * (y1 - y0) * PT, text
        checked += 1
    assert checked >= 8


def test_png_preview_is_the_pdf_rasterised(lot7):
    pytest.importorskip("pypdfium2")
    from PIL import Image

    out, _, fig = lot7
    w_in, h_in = fig.get_size_inches()
    with Image.open(out / "existing_site_map.png") as im:
        assert im.size == (round(w_in * 96), round(h_in * 96))  # 96 dpi, the whole sheet
        assert im.getpixel((2, 2))[:3] == (255, 255, 255)  # white paper


def test_core_text_writes_what_the_standard_fonts_lack():
    assert core_text("slopes ≥ 12 %") == "slopes >= 12 %"
    assert core_text("Größe 45° – ½ in — Café") == "Größe 45° – ½ in — Café"  # all in Windows-1252
    assert core_text("Łódź → Ōtsu") == "?ódz -> Otsu"  # accents 1252 lacks dropped (Ł has no base letter)
    assert core_text("北") == "?"


def test_png_writer_finishes_every_file_and_raises_what_failed(tmp_path):
    from PIL import Image

    from geosite.maps.printing import PngWriter

    with PngWriter() as w:
        w.submit(Image.new("RGB", (40, 30), "white"), tmp_path / "a.png", 96)
    with Image.open(tmp_path / "a.png") as im:
        assert im.size == (40, 30) and round(im.info["dpi"][0]) == 96
    with pytest.raises(FileNotFoundError), PngWriter() as w:
        w.submit(Image.new("RGB", (4, 3)), tmp_path / "missing" / "b.png", 96)
