"""The soil-loss stage on a site folder, against numbers by hand: a plane, one phase, K from the soils layer,
R and its distribution from site.toml; the finding by the standard; the outputs of ``analyze``."""

from __future__ import annotations

import datetime as dt
import json
import math

import geopandas as gpd
import numpy as np
import pytest
import rasterio
from sitebuilder import make_site, rect

from geosite.site import load_site, measure_site
from geosite.soil_loss.stage import measure_soil_loss
from geosite.testing import inclined_plane

CRS = "EPSG:7593"


def _sin(pct: float) -> float:
    return math.sin(math.atan(pct / 100.0))


def _site(tmp_path, pct: float, k: float, area=(100, -400, 300, 200), soil_loss=None):
    """A 500 x 500 ft plane falling south (2-ft cells), one phase over ``area``, bare Apr 1 - Oct 15, 2027."""
    dem = inclined_plane(pct, shape=(250, 250), cell=2.0)
    dist = gpd.GeoDataFrame(
        {"phase": ["grading"], "start": ["2027-04-01"], "end": ["2027-09-30"], "stabilized": ["2027-10-15"]},
        geometry=[rect(*area)],
        crs=CRS,
    )
    soils = gpd.GeoDataFrame({"musym": ["A"], "kwfact": [k]}, geometry=[rect(0, -500, 500, 500)], crs=CRS)
    conf = {
        "soil_loss": soil_loss
        or {
            "r_factor": 150.0,
            "r_source": "a test value",
            "ei_cumulative_pct": [["04-01", 10.0], ["10-16", 90.0]],
            "ei_source": "a test table, not a published one",
        }
    }
    folder = make_site(
        tmp_path / "site",
        {"site_boundary": [rect(0, -500, 500, 500)], "disturbance": dist, "soils": soils},
        conf,
        dem=dem,
    )
    return load_site(folder)


def _by_hand(pct: float, k: float, rows: tuple[int, int] = (100, 200), cell: float = 2.0) -> float:
    """t/ac over the one window: R K S mean(L) (0.80 x 1 + 0.20 x 0.01); a column's cells i = r0+1..r1
    from the plane's top have mean L = D^m (r1^(m+1) - r0^(m+1)) / ((r1 - r0) 72.6^m) (Desmet & Govers,
    disturbed m).
    """
    s = _sin(pct)
    beta = 2.0 * (s / 0.0896) / (3 * s**0.8 + 0.56)
    m = beta / (1 + beta)
    r0, r1 = rows
    mean_l = cell**m * (r1 ** (m + 1) - r0 ** (m + 1)) / ((r1 - r0) * 72.6**m)
    steep = 10.8 * s + 0.03 if pct < 9 else 16.8 * s - 0.5
    return 150.0 * k * steep * mean_l * (0.80 * 1.0 + 0.20 * 0.01)


def _run(site):
    from geosite.rules import load_profile

    m = measure_site(site)
    return measure_soil_loss(site, load_profile("grantsburg"), site.read_dem(margin_ft=None), None, m)


def test_plane_soil_loss_by_hand_over_the_standard(tmp_path):
    res = _run(_site(tmp_path, 6.0, 0.30))
    r = res.report
    assert r["assessed"] and r["exact"] and len(r["windows"]) == 1
    assert r["worst_window"] == "2027-04-01 to 2028-03-31"
    assert r["worst"]["acres"] == pytest.approx(60_000 / 43_560, rel=1e-9)
    expect = _by_hand(6.0, 0.30)
    assert r["worst"]["tpa_high"] == pytest.approx(expect, rel=1e-6)
    assert r["phases"][0]["phase"] == "grading" and r["phases"][0]["tpa_high"] == pytest.approx(
        expect, rel=1e-6
    )
    f = res.finding
    assert f.citation == "NR 151.11(6m)(b)" and f.status == "not_assessed"
    assert f"{1 - 5.0 / expect:.0%}" in f.message  # the share the sediment controls must remove
    assert res.raster is not None and np.nanmax(res.raster.tons_per_acre) > 0


def test_gentle_plane_passes(tmp_path):
    res = _run(_site(tmp_path, 1.0, 0.05))
    expect = _by_hand(1.0, 0.05)
    assert expect < 5.0
    assert res.report["worst"]["tpa_high"] == pytest.approx(expect, rel=1e-6)
    assert res.finding.status == "pass"


def test_without_the_distribution_the_window_is_bounded(tmp_path):
    res = _run(_site(tmp_path, 1.0, 0.05, soil_loss={"r_factor": 150.0, "r_source": "a test value"}))
    w = res.report["worst"]
    full = _by_hand(1.0, 0.05) / 0.802  # bare all year
    assert not res.report["exact"]
    assert w["tpa_high"] == pytest.approx(full, rel=1e-6) and w["tpa_low"] == pytest.approx(
        full * 0.01, rel=1e-6
    )
    assert res.finding.status == "pass"  # even bare all year it is under 5 t/ac


def test_without_r_it_is_not_assessed_naming_what_settles_it(tmp_path):
    res = _run(_site(tmp_path, 6.0, 0.30, soil_loss={"county": "Burnett"}))
    assert res.finding.status == "not_assessed"
    assert "R for Burnett County" in res.finding.message and "r_factor" in res.finding.settle


def test_dane_county_r_is_the_published_one(tmp_path):
    res = _run(_site(tmp_path, 6.0, 0.30, soil_loss={"county": "Dane"}))
    assert res.report["r_factor"] == 150.0 and "Dane County" in res.report["r_source"]


def test_under_one_acre_it_does_not_apply(tmp_path):
    res = _run(_site(tmp_path, 6.0, 0.30, area=(100, -300, 100, 100)))
    assert res.finding.status == "info" and "does not apply" in res.finding.message


def test_soils_without_k_are_not_assessed(tmp_path):
    site = _site(tmp_path, 6.0, 0.30)
    site.layers["soils"] = site.layers["soils"].assign(kwfact=[None])
    res = _run(site)
    assert res.finding.status == "not_assessed" and "kwfact" in res.finding.message


def test_bad_soil_loss_settings_are_refused(tmp_path):
    from geosite.errors import SiteValidationError

    with pytest.raises(SiteValidationError, match="r_factor needs r_source"):
        _site(tmp_path, 6.0, 0.30, soil_loss={"r_factor": 150.0})


def test_analyze_writes_the_geotiff_and_the_section(tmp_path):
    import geosite
    from geosite.pipeline import write_outputs

    site = _site(tmp_path, 6.0, 0.30)
    result = geosite.analyze(site)
    out = tmp_path / "out"
    write_outputs(result, out, maps=False, dxf=False, plan=False)
    with rasterio.open(out / "soil_loss.tif") as src:
        a = src.read(1)
        assert src.crs.to_epsg() == 7593 and "tons per acre" in src.descriptions[0]
        assert np.isfinite(a).sum() > 0
    report = json.loads((out / "report.json").read_text())
    assert report["soil_loss"]["finding"]["citation"] == "NR 151.11(6m)(b)"
    md = (out / "report.md").read_text()
    assert (
        "## Soil loss over the schedule (Wis. Admin. Code NR 151.11)" in md
        and "2027-04-01 to 2028-03-31" in md
    )
    assert dt.date(2027, 4, 1).isoformat() == report["soil_loss"]["first_disturbance"]
