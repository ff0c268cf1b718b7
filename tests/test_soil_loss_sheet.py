"""The soil-loss sheet (NR 151.11, issue 36 item 4), read back from its PDF (tests/sheet_ink.py, MuPDF):

- on a plane of 1.5 % with R and K given and the ground bare over one 12-month window (C = 1), a cell's
  soil loss on the map is R K LS C by hand (Desmet & Govers' L on the D8 column, McCool's S), and the
  table's worst figure is report.json's;
- the legend names the classes (0-1, 1-2, 2-5, 5-10, over 10 t/ac from the 5 t/ac/yr standard) and the
  cells beyond the method's range, whose area on the sheet is the area report.json counts;
- the set numbers the sheet ("4 of 4") and the manifest lists it; a site under an acre, or whose soil
  loss is not assessed, has no sheet and its set stays three;
- the house rules of the sheets: no text under the minimum, no line across a label, nothing for geosite's
  user.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
from sheet_ink import crossings, read_page, small_text
from sitebuilder import X0, Y0, make_site, rect, write_dem

from geosite.maps.symbology import MIN_TEXT_IN
from geosite.testing import inclined_plane

CRS = "EPSG:7593"
R, K = 150.0, 0.30
PLANE_PCT = 1.5
#: one window, bare throughout (C = 1): first disturbance 2027-04-01, final stabilization 2028-03-31
SCHEDULE = {
    "phase": ["grading"],
    "start": ["2027-04-01"],
    "end": ["2028-03-15"],
    "stabilized": ["2028-03-31"],
}
GIVEN = {
    "r_factor": R,
    "r_source": "a test value",
    "ei_cumulative_pct": [["04-01", 10.0], ["10-16", 90.0]],
    "ei_source": "a test table, not a published one",
}


def _analyze(folder: Path, out: Path | None):
    import geosite
    from geosite.pipeline import write_outputs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = geosite.analyze(geosite.load_site(folder))
        if out is not None:
            write_outputs(result, out, maps=True, dxf=False, plan=False)
    return result


def _plane_site(folder: Path, area=(24, -108, 450, 98), soil_loss=None) -> Path:
    """A 500 x 500 ft plane of 1.5 % falling south (2-ft cells), one phase over ``area`` (450 x 98 ft: 1.01
    acres, 10 ft below the plane's top), K = 0.30 over the site.
    """
    dem = inclined_plane(PLANE_PCT, shape=(250, 250), cell=2.0)
    dist = gpd.GeoDataFrame(SCHEDULE, geometry=[rect(*area)], crs=CRS)
    soils = gpd.GeoDataFrame({"musym": ["A"], "kwfact": [K]}, geometry=[rect(0, -500, 500, 500)], crs=CRS)
    layers = {"site_boundary": [rect(0, -500, 500, 500)], "disturbance": dist, "soils": soils}
    folder = make_site(folder, layers, {"soil_loss": soil_loss or GIVEN}, dem=dem)
    write_dem(folder / "dem.tif", dem, dtype="float64")  # heights exact: the slope is 1.5 % to the last digit
    return folder


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    base = tmp_path_factory.mktemp("plane")
    result = _analyze(_plane_site(base / "site"), base / "out")
    return result, base / "out"


def _row_ending(pdf: Path, last: str) -> list[str]:
    """The table row ending in the span ``last``: the spans on its baseline, from its table's left edge
    (within 4 in of it, the width of a block) to it.
    """
    page = read_page(pdf)
    end = next(s for s in page.spans if s.text.strip() == last)
    x0, _, x1, y = end.box.bounds
    row = [s for s in page.spans if abs(s.box.bounds[3] - y) < 0.01 and x1 - 4.0 <= s.box.bounds[0] <= x0]
    return [s.text.strip() for s in sorted(row, key=lambda s: s.box.bounds[0])]


def _text(pdf: Path) -> str:
    """The page's text, lines joined by spaces."""
    import pymupdf

    return " ".join(pymupdf.open(pdf)[0].get_text().split())


def _by_hand_cell(row: int) -> float:
    """t/ac of a cell ``row`` cells below the plane's top, in a column the controls leave whole: R K S L C,
    L = D^m ((n + 1)^(m+1) - n^(m+1)) / 72.6^m with n = ``row`` cells draining into it, m with beta doubled
    (disturbed soil), S = 10.8 sin + 0.03 (under 9 %), C = 1 (bare the whole window)."""
    s = math.sin(math.atan(PLANE_PCT / 100.0))
    beta = 2.0 * (s / 0.0896) / (3 * s**0.8 + 0.56)
    m = beta / (1 + beta)
    length = 2.0**m * ((row + 1) ** (m + 1) - row ** (m + 1)) / 72.6**m
    return R * K * (10.8 * s + 0.03) * length * 1.0


def test_a_cell_on_the_map_is_r_k_ls_c_by_hand(plane):
    from geosite.maps.soil_loss import class_of

    result, _ = plane
    raster = result.soil_loss.raster
    # the cell centred at (250, -51) ft: column 125, row 25 of the plane, 25 cells above it
    c, r = (round(v - 0.5) for v in ~raster.transform @ (X0 + 251.0, Y0 - 51.0))
    got = float(raster.tons_per_acre[r, c])
    assert got == pytest.approx(_by_hand_cell(25), rel=1e-6)  # the raster is float32
    assert 10.0 < got < 11.0 and class_of(np.array([got]), 5.0)[0] == 5  # the sheet's "over 10 t/ac"


def test_the_worst_window_reads_back_as_report_json(plane):
    result, out = plane
    report = json.loads((out / "report.json").read_text())["soil_loss"]
    assert report["worst_window"] == "2027-04-01 to 2028-03-31" and len(report["windows"]) == 1
    assert report["exact"] and report["worst"]["acres"] == pytest.approx(450 * 98 / 43_560, rel=1e-9)
    worst = _row_ending(out / "soil_loss.pdf", "WORST")
    assert worst == [
        "2027-04-01 to 2028-03-31",
        f"{report['worst']['acres']:.2f}",
        f"{report['worst']['tpa_high']:.2f}",
        "WORST",
    ]
    # the phase's row of the worst window, and the title block's
    text = _text(out / "soil_loss.pdf")
    assert f"grading {report['phases'][0]['acres']:.2f} {report['phases'][0]['tpa_high']:.2f}" in text
    assert f"2027-04-01 to 2028-03-31: {report['worst']['tpa_high']:.2f} t/ac" in text


def test_the_legend_names_the_classes_of_the_standard(plane):
    _, out = plane
    report = json.loads((out / "report.json").read_text())["soil_loss"]
    assert report["max_tons_per_acre_year"] == 5.0
    text = _text(out / "soil_loss.pdf")
    for label in (
        "0 - 1 t/ac",
        "1 - 2 t/ac",
        "2 - 5 t/ac (up to the standard)",
        "5 - 10 t/ac (over the standard)",
        "over 10 t/ac (over 2 x the standard)",
    ):
        assert label in text, label
    assert "breaks at 0.2, 0.4, 1, 2 x the standard" in text
    # the method and the finding, from report.json: R and its source, K's attribute, the finding's words
    assert "R = 150: given for this site: a test value" in text and "kwfact" in text
    assert report["finding"]["citation"] in text and "bare 1" in text


def test_the_set_numbers_the_sheet_and_the_manifest_lists_it(plane):
    _, out = plane
    for name, no in (
        ("existing_site_map.pdf", "1 of 4"),
        ("construction_plan.pdf", "2 of 4"),
        ("final_conditions.pdf", "3 of 4"),
        ("soil_loss.pdf", "4 of 4"),
    ):
        assert no in [s.text for s in read_page(out / name).spans], name
    files = json.loads((out / "geosite-manifest.json").read_text())["files"]
    assert {"soil_loss.pdf", "soil_loss.png", "soil_loss.tif"} <= set(files)


def test_the_sheet_is_at_the_sets_scale_and_size(plane):
    import pymupdf

    _, out = plane
    pages = [pymupdf.open(out / n)[0] for n in ("existing_site_map.pdf", "soil_loss.pdf")]
    assert pages[0].rect == pages[1].rect
    scales = [next(line for line in p.get_text().splitlines() if line.startswith("1 in = ")) for p in pages]
    assert scales[0] == scales[1]


def test_the_house_rules_of_the_sheets(plane):
    _, out = plane
    page = read_page(out / "soil_loss.pdf")
    assert page.labels() and not crossings(page)
    assert not small_text(page, MIN_TEXT_IN)
    text = " ".join(s.text for s in page.spans)
    for hint in ("site.toml", "[preparer]", "[dem]", "(layer ", "report.json", "not given ("):
        assert hint not in text, hint


def test_the_class_colours_read_in_greyscale():
    from geosite.maps.soil_loss import CLASS_COLORS, class_of

    def grey(hex_colour: str) -> float:  # ITU-R BT.601 luma, 0-255
        r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
        return 0.299 * r + 0.587 * g + 0.114 * b

    lum = [grey(c) for c in CLASS_COLORS]
    assert all(a - b >= 25 for a, b in zip(lum, lum[1:], strict=False)), lum
    # a cell on a break falls in the class below it; no figure, no class
    got = class_of(np.array([0.0, 1.0, 1.0001, 5.0, 5.0001, 10.0, 99.0, np.nan]), 5.0)
    assert got.tolist() == [1, 1, 2, 3, 4, 4, 5, 0]


def _steep_valley_site(folder: Path) -> Path:
    """A valley falling south at 2 % whose sides rise at 8 % to 150 ft from its axis, then at 40 %: the
    disturbed ground spans the axis (concentrated flow past an acre of drainage) and both 40 % bands.
    """
    from geosite.grid import Dem
    from geosite.testing import cell_centres

    shape, cell = (250, 251), 2.0
    from affine import Affine

    t = Affine(cell, 0.0, X0, 0.0, -cell, Y0)
    x, y = cell_centres(shape, t)
    across = np.abs(x - (X0 + shape[1] * cell / 2))
    z = 900.0 + 0.08 * np.minimum(across, 150.0) + 0.40 * np.maximum(across - 150.0, 0.0) - 0.02 * (Y0 - y)
    dem = Dem.from_array(z, t, CRS, "us_ft", source="valley")
    dist = gpd.GeoDataFrame(SCHEDULE, geometry=[rect(51, -400, 400, 300)], crs=CRS)
    soils = gpd.GeoDataFrame({"musym": ["A"], "kwfact": [K]}, geometry=[rect(0, -500, 502, 500)], crs=CRS)
    layers = {"site_boundary": [rect(0, -500, 502, 500)], "disturbance": dist, "soils": soils}
    return make_site(folder, layers, {"soil_loss": GIVEN}, dem=dem)


def test_cells_beyond_the_method_are_shown_and_named(tmp_path):
    from geosite.maps.common import make_context
    from geosite.maps.soil_loss import beyond_cells
    from geosite.soil_loss.ls import CONCENTRATED, STEEP

    result = _analyze(_steep_valley_site(tmp_path / "site"), tmp_path / "out")
    report = result.report["soil_loss"]
    assert report["beyond_steep_sqft"] > 0 and report["beyond_concentrated_sqft"] > 0
    flags = beyond_cells(make_context(result))
    cell_sqft = abs(result.soil_loss.raster.transform.a * result.soil_loss.raster.transform.e)
    # one window holding every disturbed cell: the cells flagged on the sheet are the ones the report counts
    assert ((flags & STEEP) > 0).sum() * cell_sqft == pytest.approx(report["beyond_steep_sqft"], abs=1e-6)
    assert ((flags & CONCENTRATED) > 0).sum() * cell_sqft == pytest.approx(
        report["beyond_concentrated_sqft"], abs=1e-6
    )
    assert np.isnan(result.soil_loss.raster.tons_per_acre[flags > 0]).all()  # no figure where flagged
    page = read_page(tmp_path / "out" / "soil_loss.pdf")
    text = " ".join(s.text for s in page.spans)
    assert "slope over 33 %" in text and "concentrated flow" in text
    assert not crossings(page) and not small_text(page, MIN_TEXT_IN)


@pytest.mark.parametrize(
    "case",
    ["under an acre", "not assessed"],
)
def test_no_sheet_without_soil_loss_over_an_acre(tmp_path, case):
    area, given = ((24, -60, 400, 50), GIVEN) if case == "under an acre" else ((24, -108, 450, 98), None)
    folder = _plane_site(tmp_path / "site", area=area, soil_loss=given or {"county": "Burnett"})
    out = tmp_path / "out"
    result = _analyze(folder, out)
    if case == "under an acre":  # computed, but NR 151.11 does not apply: the finding says so
        assert result.soil_loss.raster is not None and result.soil_loss.finding.status == "info"
    else:  # no R for Burnett County: not assessed, no raster
        assert result.soil_loss.raster is None and result.soil_loss.finding.status == "not_assessed"
    assert not (out / "soil_loss.pdf").exists() and not (out / "soil_loss.png").exists()
    assert "3 of 3" in [s.text for s in read_page(out / "final_conditions.pdf").spans]


def test_cells_on_a_dem_in_another_crs_are_drawn_in_the_sites(tmp_path):
    """A UTM (metre) DEM under a site drawn in WISCRS US survey feet: the cells are warped to the site's
    CRS, and the ground they cover there is the disturbed acres the report counts (UTM's and WISCRS's
    scale factors differ by about 0.1 % here; the cells' edges by half a cell).
    """
    from shapely.geometry import box

    from geosite.maps.common import make_context
    from geosite.maps.soil_loss import _site_crs_grid, class_of
    from geosite.testing import CRS_M, ORIGIN

    dem = inclined_plane(PLANE_PCT, shape=(200, 200), cell=1.0, crs=CRS_M, vertical_unit="m")
    x0, y0 = ORIGIN[CRS_M]

    def in_feet(g):
        return gpd.GeoDataFrame(geometry=[g], crs=CRS_M).to_crs(CRS).geometry.values[0]

    site = in_feet(box(x0 + 20, y0 - 180, x0 + 180, y0 - 20))
    dist = gpd.GeoDataFrame(SCHEDULE, geometry=[in_feet(box(x0 + 30, y0 - 60, x0 + 170, y0 - 30))], crs=CRS)
    soils = gpd.GeoDataFrame({"musym": ["A"], "kwfact": [K]}, geometry=[site], crs=CRS)
    layers = {"site_boundary": [site], "disturbance": dist, "soils": soils}
    conf = {"soil_loss": GIVEN, "dem": {"path": "dem.tif", "vertical_unit": "m"}}
    folder = make_site(tmp_path / "site", layers, conf)
    write_dem(folder / "dem.tif", dem, dtype="float64", vertical_factor=1 / 0.3048)
    result = _analyze(folder, tmp_path / "out")
    assert not result.soil_loss.raster.crs.equals(result.site.crs)
    grid, t = _site_crs_grid(class_of(result.soil_loss.raster.tons_per_acre, 5.0), make_context(result))
    drawn_acres = (grid > 0).sum() * abs(t.a * t.e) / 43_560  # the site's CRS is in US survey feet
    assert drawn_acres == pytest.approx(result.report["soil_loss"]["worst"]["acres"], rel=5e-3)
    assert (tmp_path / "out" / "soil_loss.pdf").is_file()
