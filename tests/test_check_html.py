"""report.html of geosite check in a real headless Chromium: loads with no console errors, draws the
site and the problem geometries, and the findings list and the map are linked both ways."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitebuilder import make_site, write_map
from test_review_check import DIST, bmp_frame, clean_conf, clean_layers, line

from geosite.cli import cli
from geosite.testing import inclined_plane

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs /usr/bin/chromium and chromedriver (Debian chromium chromium-driver)",
)


@contextmanager
def chromium_page(page: Path, height: int = 900) -> Iterator:
    """A headless Chromium (no network helpers, console logged) with ``page`` loaded; quit after."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for a in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size=1400,{height}",
    ):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    try:
        driver.set_page_load_timeout(20)
        driver.get(page.resolve().as_uri())
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("html")
    layers = clean_layers()
    x, y, w, _ = DIST
    bmps = layers["bmps"]
    south = [line((x, y - 1), (x + 50, y - 1)), line((x + 190, y - 1), (x + w, y - 1))]  # 140 ft missing
    layers["bmps"] = bmp_frame(
        south + list(bmps.geometry.iloc[1:]),
        [1, 8] + list(bmps["id"].iloc[1:]),
        ["silt_fence", "silt_fence"] + list(bmps["type"].iloc[1:]),
    )
    (tmp / "sub").mkdir(parents=True, exist_ok=True)
    write_map(tmp / "sub" / "map.tif", 2.0, 50)  # the existing site map clean_conf declares
    folder = make_site(tmp / "sub", layers, clean_conf(), dem=inclined_plane(4.0, shape=(200, 200), cell=4.0))
    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp / "out")])
    assert res.exit_code == 1, res.output
    return tmp / "out" / "report.html"


def test_report_is_self_contained(report):
    text = report.read_text()
    assert "L.map(" in text and ".leaflet-container" in text  # Leaflet JS and CSS inline
    # nothing is loaded from outside the page (Leaflet's own attribution link is text, and is switched off)
    for ref in ("<script src", "<link ", "url(images/", "tileLayer(", "sourceMappingURL"):
        assert ref not in text, ref


@needs_chromium
def test_report_in_headless_chromium(report):
    from selenium.webdriver.common.by import By

    with chromium_page(report) as driver:
        assert driver.execute_script("return typeof window.geosite === 'object'")
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert errors == []
        # the site, the disturbed area, fences, BMPs and the finding geometries are drawn as SVG paths
        n_paths = len(driver.find_elements(By.CSS_SELECTOR, ".leaflet-overlay-pane svg path"))
        n_findings = driver.execute_script("return Object.keys(window.geosite.findingLayers).length")
        assert n_findings >= 3 and n_paths >= n_findings + 3
        # the failed fence finding: click it in the list -> the map moves to the gap and highlights it
        fid = driver.execute_script(
            "return window.geosite.data.findings.filter(f => f.rule === 'filter_fence_submitted')[0].id"
        )
        # the map opens on the site: its boundary in view and filling much of it (the contours and layers
        # around it reach far wider), not the whole context zoomed out
        site_in_view, share = driver.execute_script(
            "var m = window.geosite.map, s = window.geosite.contextLayers['site boundary'].getBounds(), "
            "v = m.getBounds(); "
            "return [v.contains(s), (s.getEast() - s.getWest()) / (v.getEast() - v.getWest())]"
        )
        assert site_in_view and share > 0.6, share
        before = driver.execute_script(
            "var m = window.geosite.map, c = m.getCenter(); return [c.lat, c.lng, m.getZoom()]"
        )
        driver.find_element(By.ID, f"finding-{fid}").click()
        time.sleep(0.5)
        after = driver.execute_script(
            "var m = window.geosite.map, c = m.getCenter(); return [c.lat, c.lng, m.getZoom()]"
        )
        assert after != before and after[2] > before[2]
        gap_in_view = driver.execute_script(
            "return "
            f"window.geosite.map.getBounds().contains(window.geosite.findingLayers['{fid}'].getBounds())"
        )
        assert gap_in_view
        assert (
            driver.execute_script(f"return window.geosite.findingLayers['{fid}'].options.color") == "#f0c000"
        )
        assert "selected" in driver.find_element(By.ID, f"finding-{fid}").get_attribute("class")
        # the other way: clicking a map feature selects (and scrolls to) its finding
        other = driver.execute_script(
            f"return Object.keys(window.geosite.findingLayers).filter(k => k !== '{fid}')[0]"
        )
        driver.execute_script(f"window.geosite.findingLayers['{other}'].fire('click')")
        assert "selected" in driver.find_element(By.ID, f"finding-{other}").get_attribute("class")
        assert "selected" not in driver.find_element(By.ID, f"finding-{fid}").get_attribute("class")
        assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []


@pytest.fixture(scope="module")
def no_contours(tmp_path_factory) -> Path:
    """A submission without its contours layer: A(1)(i) fails for the plan as a whole (the finding
    carries the site boundary), beside findings with a place of their own."""
    tmp = tmp_path_factory.mktemp("html_nc")
    layers = clean_layers()
    del layers["contours"]
    (tmp / "sub").mkdir(parents=True, exist_ok=True)
    write_map(tmp / "sub" / "map.tif", 2.0, 50)  # the existing site map clean_conf declares
    folder = make_site(tmp / "sub", layers, clean_conf(), dem=inclined_plane(4.0, shape=(200, 200), cell=4.0))
    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp / "out")])
    assert res.exit_code == 1, res.output
    return tmp / "out" / "report.html"


def _data(page: Path) -> dict:
    import html as _html
    import json
    import re

    block = re.search(
        r'<script type="application/json" id="geosite-data">(.*?)</script>', page.read_text(), re.DOTALL
    )
    return json.loads(_html.unescape(block.group(1)))


def test_plan_content_finding_is_listed_not_painted(no_contours):
    data = _data(no_contours)
    (f,) = [
        f
        for f in data["findings"]
        if f["status"] == "fail" and "contours" in f["message"] and "missing" in f["message"]
    ]
    assert f["site_wide"] and not f["has_geometry"] and f["where"] == ""
    drawn = {g["properties"]["id"] for g in data["finding_geometry"]["features"]}
    assert f["id"] not in drawn  # the site is not painted for it
    assert drawn  # while findings with a place of their own still are
    text = no_contours.read_text()
    assert f'id="finding-{f["id"]}"' in text and "whole plan</span>" in text


def test_where_reads_as_easting_and_northing_with_the_crs(report):
    """The fence gap runs along y = Y0 - 601 ft from x = X0 + 250 to X0 + 390 (test_review_check's
    DIST): its "where" is a point on it, in the CRS's unit, as "E 500400, N 199480 (US ft)" (no thousands
    separator: a comma there makes one coordinate read as two)."""
    import re

    from sitebuilder import X0, Y0

    data = _data(report)
    (gap,) = [f for f in data["findings"] if f["rule"] == "filter_fence_submitted"]
    m = re.fullmatch(r"E (\d+), N (\d+) \(US ft\)", gap["where"])
    assert m, gap["where"]
    e, n = (float(v) for v in m.groups())
    x, y, w, _ = DIST
    assert X0 + x - 1 <= e <= X0 + x + w + 1 and abs(n - (Y0 + y)) <= 2
    assert f"Where:</b> {gap['where']}" in report.read_text()


@needs_chromium
def test_legend_and_layer_switches_sit_beside_the_map(report, tmp_path):
    """The legend and the layer switches are a column of their own: no part of them lies over the
    map; unticking a layer takes it off the map; structures are drawn."""
    from selenium.webdriver.common.by import By

    with chromium_page(report) as driver:
        m = driver.find_element(By.ID, "map").rect
        legend = driver.find_element(By.ID, "legend")
        g = legend.rect
        assert g["x"] >= m["x"] + m["width"] - 1  # right of the map, not over it
        assert driver.find_elements(By.CSS_SELECTOR, ".leaflet-control-layers, .leaflet-control.legend") == []
        assert "structures" in legend.text and "finding: fail" in legend.text
        assert (
            driver.execute_script("return window.geosite.contextLayers['structures'].getLayers().length") == 1
        )
        box = next(
            b for b in legend.find_elements(By.CSS_SELECTOR, "label") if b.text.strip() == "structures"
        )
        box.find_element(By.TAG_NAME, "input").click()
        assert not driver.execute_script(
            "return window.geosite.map.hasLayer(window.geosite.contextLayers['structures'])"
        )
        assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
        driver.save_screenshot(str(tmp_path / "report.png"))
