"""The plan sheets as a village engineer reads them at print size (issue 33), measured on the PDFs by an
independent reader (tests/sheet_ink.py: MuPDF's text boxes and stroked paths) on both samples and on a
built lot on real terrain:

- no drawn line crosses a label, no leader crosses a label or another leader, every leader short (a
  label sits by its feature: the last ring of positions tried, 0.75 in);
- no text under the stated minimum: capitals 0.08 in high at print size (the civil drafting minimum);
- nothing addressed to geosite's user on a sheet (site.toml, its tables, layer names): a missing title
  block item is an empty field to fill in, and a warning and a report note instead;
- the scale is the largest standard one at which the site and its margin fit a sheet, and the plan
  folder declares the scale the sheets are drawn at.
"""

from __future__ import annotations

import re
import tomllib
import warnings
from pathlib import Path

import pytest
from sheet_ink import crossings, leader_crossings, read_page, small_text
from test_round_trip import virginia_site

from geosite.maps.symbology import CAP_HEIGHT_EM, LABELS, MIN_PT, MIN_TEXT_IN

SHEETS = ("existing_site_map.pdf", "construction_plan.pdf", "final_conditions.pdf")


def _outputs(result, out: Path) -> Path:
    from geosite.pipeline import write_outputs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_outputs(result, out, maps=True, dxf=False)
    return out


@pytest.fixture(scope="module")
def belgium_outputs(belgium_result, tmp_path_factory) -> Path:
    return _outputs(belgium_result, tmp_path_factory.mktemp("belgium") / "out")


@pytest.fixture(scope="module")
def virginia_outputs(tmp_path_factory) -> Path:
    """A 2-acre lot on real urban LiDAR (tests/test_round_trip.py's builder), analyzed with its sheets."""
    import geosite

    folder = virginia_site(tmp_path_factory.mktemp("virginia") / "site")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = geosite.analyze(geosite.load_site(folder))
    return _outputs(result, tmp_path_factory.mktemp("virginia") / "out")


@pytest.fixture(scope="module", params=["lot7", "belgium", "virginia"])
def outputs(request) -> Path:
    return request.getfixturevalue(f"{request.param}_outputs")


def test_the_minimum_text_is_0_08_in_capitals():
    # Helvetica's capitals are 718/1000 of its size (Adobe's AFM): 0.08 in x 72 / 0.718 = 8.02 pt
    assert MIN_TEXT_IN == 0.08 and CAP_HEIGHT_EM == 0.718
    assert MIN_PT == 8.1 and MIN_PT * CAP_HEIGHT_EM / 72 >= 0.08 > 8.0 * CAP_HEIGHT_EM / 72


@pytest.mark.parametrize("name", SHEETS)
def test_no_line_crosses_a_label_and_leaders_are_short_and_apart(outputs, name):
    page = read_page(outputs / name)
    assert page.labels()
    crossed = crossings(page)
    assert not crossed, crossed[:10]
    assert not leader_crossings(page)
    longest = max((s.line.length for s in page.leaders()), default=0.0)
    assert longest <= max(LABELS["ring_radii_in"]) + LABELS["pad_in"] + 0.01


@pytest.mark.parametrize("name", SHEETS)
def test_no_text_under_the_minimum_and_nothing_for_the_tool(outputs, name):
    page = read_page(outputs / name)
    assert not small_text(page, MIN_TEXT_IN)
    text = " ".join(s.text for s in page.spans)
    for hint in ("site.toml", "[preparer]", "[dem]", "(layer ", "report.json", "not given ("):
        assert hint not in text, hint


def test_the_declared_scale_is_the_scale_drawn(outputs):
    declared = tomllib.loads((outputs / "plan" / "site.toml").read_text())["declared"]
    text = " ".join(s.text for s in read_page(outputs / "existing_site_map.pdf").spans)
    drawn = float(re.search(r"1 in = (\d+) ft", text).group(1))
    assert declared["map_scale_ft_per_in"] == drawn


def test_lot7_is_drawn_at_1_in_30_ft_on_arch_d(lot7_outputs):
    # 600 x 640 ft (the lot and 200 ft around it): 20 x 21.3 in at 1 in = 30 ft fits ARCH-D's frame
    # (30.75 x 22.5 in) and no smaller sheet's; at 1 in = 20 ft it is 30 x 32 in, wider than any
    import pymupdf

    page = pymupdf.open(lot7_outputs / "construction_plan.pdf")[0]
    assert (round(page.rect.width / 72), round(page.rect.height / 72)) == (36, 24)
    assert "1 in = 30 ft" in page.get_text()


def test_a_missing_title_block_item_is_a_field_to_fill_a_warning_and_a_note(lot7_result, lot7_outputs):
    from geosite.errors import TitleBlockWarning
    from geosite.site import load_site
    from geosite.site.title_block import title_block_gaps

    notes = [n for n in lot7_result.report["notes"] if n.startswith("title block:")]
    assert any("preparer's name, address, daytime phone" in n and "[preparer]" in n for n in notes)
    assert any("vertical datum" in n for n in notes)
    md = (lot7_outputs / "report.md").read_text()
    assert "title block: the preparer's" in md
    text = read_page(lot7_outputs / "construction_plan.pdf").spans
    joined = " ".join(s.text for s in text)
    assert "name ____" in joined and "vertical datum: ____" in joined
    from geosite.pipeline import _note_title_block

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        site = load_site(Path(__file__).resolve().parents[1] / "data" / "sample_sites" / "grantsburg_lot7")
    with pytest.warns(TitleBlockWarning, match="preparer"):  # as analyze says it, once per site
        _note_title_block(site)
    site.settings["preparer"] = {"name": "A. Engineer", "address": "1 Main St", "phone": "715-555-0100"}
    site.settings["vertical_datum"] = "NAVD88"
    assert not title_block_gaps(site)
