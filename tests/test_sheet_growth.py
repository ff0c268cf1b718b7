"""A panel that cannot hold its legend, notes and schedule on the largest sheet a site is fitted on
(ARCH D) grows the plan set to ARCH E, the next size a drafter prints; a site whose panels fit is never
put on it (geosite.maps.sheets.OVERFLOW_SIZES)."""

from __future__ import annotations

import logging

import pymupdf
import pytest

from geosite.maps.sheets import Sheet, parse_sheet, plan_sheets


def test_auto_fits_a_site_on_arch_d_at_most_and_grows_to_arch_e_only_on_overflow():
    assert "ARCH-E" not in {s.size for s in parse_sheet("auto")}
    assert {s.size for s in parse_sheet("ARCH-E")} == {"ARCH-E"}  # asked for by name, it is given
    # 2,000 x 1,200 ft at 1 in = 60 ft is 33.3 x 20 in: ARCH D's map frame holds it ...
    extent = (0.0, 0.0, 2000.0, 1200.0)
    assert plan_sheets(extent, 60.0, 1.0).sheet.size == "ARCH-D"
    # ... and when its panel overflows, the next larger sheet is ARCH E (36 x 48 in), one tile
    bigger = plan_sheets(extent, 60.0, 1.0, "auto", larger_than=Sheet("ARCH-D", "landscape"))
    assert bigger.sheet.size == "ARCH-E" and len(bigger.tiles) == 1


def test_no_panel_overflows_on_the_sheets_geosite_prints(belgium_result, tmp_path, caplog):
    """Belgium's schedule (40-odd rows) overflowed ARCH D's panel over the scale bar and title block:
    every word of every sheet now lies on its page, no sheet notes an overflow and none is warned of."""
    from geosite.maps.planset import render_plan_maps

    with caplog.at_level(logging.WARNING):
        pdfs = [p for p in render_plan_maps(belgium_result, tmp_path, png_dpi=None) if p.suffix == ".pdf"]
    assert len(pdfs) == 3 and not [r for r in caplog.records if "overflows" in r.getMessage()]
    for pdf in pdfs:
        page = pymupdf.open(pdf)[0]
        assert page.rect.width == pytest.approx(48 * 72) and page.rect.height == pytest.approx(36 * 72)
        words = page.get_text("words")
        assert words and all(page.rect.contains(pymupdf.Rect(w[:4])) for w in words), pdf.name
