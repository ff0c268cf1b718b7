"""Applicability triggers and plan type at and around every threshold, on rectangles of known area."""

from __future__ import annotations

import math
import warnings

import pytest
from sitebuilder import line, make_site, rect

import geosite
from geosite.units import SQFT_PER_ACRE


def run(tmp_path, layers, conf=None, name="site"):
    folder = make_site(tmp_path / name, {"site_boundary": [rect(-2000, -2000, 6000, 6000)], **layers}, conf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return geosite.analyze(geosite.load_site(folder)).report


def trigger(report, rule):
    return next(t for t in report["applicability"]["triggers"] if t["rule"] == rule)


@pytest.mark.parametrize(("area", "met"), [(3999.0, False), (4000.0, True), (4001.0, True)])
def test_disturbed_area_4000_sqft(tmp_path, area, met):
    r = run(tmp_path, {"disturbance": [rect(0, 0, 40.0, area / 40.0)]})
    assert r["disturbed"]["area_sqft"] == pytest.approx(area, rel=1e-9)
    t = trigger(r, "disturbed_area")
    assert t["met"] is met and t["citation"] == "A(3)"
    # without a DEM the slope trigger A(7) is not assessed, so a site below 4,000 sq ft is "not decided"
    assert r["applicability"]["applies"] is (True if met else None)
    assert trigger(r, "disturbance_on_steep_slopes")["met"] is None


def test_overlapping_disturbance_counted_once_and_the_activity_measured_whole(tmp_path):
    # two 100 x 100 squares overlapping by 50 x 100, the second sticking 20 ft outside a 300 x 300 site
    folder = make_site(
        tmp_path / "s",
        {
            "site_boundary": [rect(0, 0, 300, 300)],
            "disturbance": [rect(10, 10, 100, 100), rect(60, 10, 100, 100)],
        },
    )
    r = geosite.analyze(geosite.load_site(folder)).report
    assert r["disturbed"]["area_sqft"] == pytest.approx(150 * 100, rel=1e-12)
    folder2 = make_site(
        tmp_path / "s2", {"site_boundary": [rect(0, 0, 300, 300)], "disturbance": [rect(220, 10, 100, 100)]}
    )
    r2 = geosite.analyze(geosite.load_site(folder2)).report
    # A(3) measures the activity, not its part on the parcel: 100 x 100, 80 x 100 of it on the site
    assert r2["disturbed"]["area_sqft"] == pytest.approx(100 * 100, rel=1e-12)
    assert r2["measurements"]["disturbed.on_site_sqft"] == pytest.approx(80 * 100, rel=1e-12)
    assert r2["disturbed"]["outside_site_sqft"] == pytest.approx(20 * 100, rel=1e-9)
    assert r2["site"]["area_sqft"] == pytest.approx(90_000.0)
    assert r2["site"]["area_acres"] == pytest.approx(90_000.0 / 43_560.0)


@pytest.mark.parametrize(
    ("cut", "fill", "met"), [(200, 199, False), (200, 200, True), (0, 400, True), (399, 0, False)]
)
def test_cut_fill_400_cy(tmp_path, cut, fill, met):
    r = run(tmp_path, {"disturbance": [rect(0, 0, 10, 10)]}, {"project": {"cut_cy": cut, "fill_cy": fill}})
    t = trigger(r, "cut_and_fill_volume")
    assert t["value"] == cut + fill and t["met"] is met and t["citation"] == "A(4)"


@pytest.mark.parametrize(("length", "met"), [(299.0, False), (300.0, True), (301.0, True)])
def test_pipe_300_ft(tmp_path, length, met):
    import geopandas as gpd

    util = gpd.GeoDataFrame(
        {"status": ["new", "existing"]},
        geometry=[line((0, 0), (length * 0.6, 0), (length * 0.6, length * 0.4)), line((0, 50), (900, 50))],
        crs="EPSG:7593",
    )
    r = run(tmp_path, {"disturbance": [rect(0, 0, 10, 10)], "utilities": util})
    t = trigger(r, "underground_pipe_length")
    assert t["value"] == pytest.approx(length) and t["met"] is met and t["citation"] == "A(6)"


def test_road_construction_triggers_but_existing_road_does_not(tmp_path):
    import geopandas as gpd

    existing = gpd.GeoDataFrame(
        {"status": ["existing"]}, geometry=[line((0, -30), (500, -30))], crs="EPSG:7593"
    )
    r = run(tmp_path, {"disturbance": [rect(0, 0, 10, 10)], "roads": existing}, name="a")
    assert trigger(r, "road_work")["met"] is False
    new = gpd.GeoDataFrame(
        {"status": ["existing", "new"]},
        geometry=[line((0, -30), (500, -30)), line((5, 0), (5, 400))],
        crs="EPSG:7593",
    )
    r = run(tmp_path, {"disturbance": [rect(0, 0, 10, 10)], "roads": new}, name="b")
    assert trigger(r, "road_work")["met"] is True and trigger(r, "road_work")["citation"] == "A(5)"
    assert r["applicability"]["applies"] is True


@pytest.mark.parametrize(
    ("plat", "rule"), [("subdivision", "subdivision_plat"), ("certified_survey", "certified_survey")]
)
def test_plat_and_survey(tmp_path, plat, rule):
    r = run(tmp_path, {"disturbance": [rect(0, 0, 10, 10)]}, {"project": {"plat": plat}})
    assert trigger(r, rule)["met"] is True
    assert r["applicability"]["applies"] is True


def square_of_acres(acres: float):
    side = math.sqrt(acres * SQFT_PER_ACRE)
    return rect(0, 0, side, side)


@pytest.mark.parametrize(
    ("acres", "grantsburg", "belgium"),
    [(0.99, "statement", "statement"), (1.00, "full", "both"), (1.01, "full", "full")],
)
def test_plan_type_at_one_acre(tmp_path, acres, grantsburg, belgium):
    layers = {"disturbance": [square_of_acres(acres)]}
    g = run(tmp_path, layers, name="g")
    b = run(tmp_path, layers, {"jurisdiction": "belgium"}, name="b")
    assert g["disturbed"]["area_acres"] == pytest.approx(acres, rel=1e-9)
    assert g["plan_type"] == grantsburg
    assert b["plan_type"] == belgium
    pt = next(f for f in b["findings"] if f["rule"] == "plan_type")
    if belgium == "both":
        assert "A" in pt["citation"] and "B" in pt["citation"] and "both" in pt["message"]


@pytest.mark.parametrize(("acres", "basin"), [(9.9, False), (10.0, True), (10.1, True)])
def test_sediment_basin_at_ten_acres(tmp_path, acres, basin):
    r = run(tmp_path, {"disturbance": [square_of_acres(acres)]})
    assert r["disturbed"]["max_at_one_time_acres"] == pytest.approx(acres, rel=1e-9)
    f = next(f for f in r["findings"] if f["rule"] == "sediment_basin")
    assert f["citation"] == "B(6)(c)[2]"
    assert f["values"]["disturbed.max_at_one_time_acres"] == pytest.approx(acres)
    assert ("10 acres or more disturbed at one time: met" in f["message"]) is basin
    # without a DEM, whether runoff leaves the site (B(6)'s condition) and whether a channel originates in
    # the disturbed area are not assessed: the requirement is never settled (None), the message says why
    assert f["required"] is None and "Only if it applies" in f["message"]
    fence = next(f for f in r["findings"] if f["rule"] == "filter_fence")
    assert fence["required"] is (False if basin else None) and fence["citation"] == "B(6)(c)[3]"
    assert "B(6)" in fence["message"] and "runoff from the disturbed area leaves the site" in fence["message"]


def test_max_disturbed_at_one_time_from_phase_dates(tmp_path):
    import datetime as dt

    import geopandas as gpd

    # phase 1: 6 ac Apr–Jun; phase 2: 5 ac Jun 15–Sep (overlaps phase 1 by two weeks); phase 3: 4 ac Oct
    a = math.sqrt(6 * SQFT_PER_ACRE)
    b = math.sqrt(5 * SQFT_PER_ACRE)
    c = math.sqrt(4 * SQFT_PER_ACRE)
    gdf = gpd.GeoDataFrame(
        {
            "phase": ["1", "2", "3"],
            "start": ["2027-04-01", "2027-06-15", "2027-10-01"],
            "end": ["2027-06-30", "2027-09-30", "2027-10-31"],
        },
        geometry=[rect(0, 0, a, a), rect(a + 10, 0, b, b), rect(0, a + 10, c, c)],
        crs="EPSG:7593",
    )
    r = run(tmp_path, {"disturbance": gdf})
    d = r["disturbed"]
    assert d["area_acres"] == pytest.approx(15.0, rel=1e-9)
    assert d["max_at_one_time_acres"] == pytest.approx(11.0, rel=1e-9)
    assert d["max_at_one_time_date"] == dt.date(2027, 6, 15).isoformat()
    assert d["max_at_one_time_phases"] == ["1", "2"]


def test_belgium_silent_topics_say_not_specified(tmp_path):
    """Belgium's chapter sets no acreage that requires basins: that silence is "not specified"; traps and
    basins are still placed by the Handbook its design criteria make binding, where concentrated runoff
    leaves (DNR 1063/1064), and never at a borrowed 10 acres."""
    r = run(tmp_path, {"disturbance": [square_of_acres(12)]}, {"jurisdiction": "belgium"})
    silent = [f for f in r["findings"] if f["rule"] == "sediment_basin_acreage"]
    assert len(silent) == 1 and "not specified by this chapter" in silent[0]["message"]
    assert "10-acre rule" in silent[0]["message"]
    basin = next(f for f in r["findings"] if f["rule"] == "sediment_basin")
    assert basin["citation"] == "Design criteria (DNR 1063, 1064)" and "10 acres" not in basin["message"]
    assert r["applicability"]["applies"] is True
    assert not any("4,000" in t["message"] for t in r["applicability"]["triggers"])


def test_belgium_state_funded_is_exempt(tmp_path):
    r = run(
        tmp_path,
        {"disturbance": [square_of_acres(2)]},
        {"jurisdiction": "belgium", "project": {"state_funded": True}},
    )
    assert r["applicability"]["applies"] is False
    assert r["applicability"]["exemptions"][0]["met"] is True


def test_metre_crs_reports_feet(tmp_path):
    # a 100 m x 50 m rectangle in UTM 15N is 53,819.6 sq ft (international feet)
    from shapely.geometry import box

    crs = "EPSG:26915"
    folder = make_site(
        tmp_path / "m",
        {
            "site_boundary": [box(500_000, 5_000_000, 500_300, 5_000_300)],
            "disturbance": [box(500_010, 5_000_010, 500_110, 5_000_060)],
        },
        crs=crs,
    )
    r = geosite.analyze(geosite.load_site(folder)).report
    assert r["disturbed"]["area_sqft"] == pytest.approx(5000 / 0.3048**2, rel=1e-12)
    assert r["units"]["length"] == "ft (international foot)"


def test_belgium_each_silence_reported_once(tmp_path):
    r = run(tmp_path, {"disturbance": [square_of_acres(2)]}, {"jurisdiction": "belgium"})
    silent = [f["message"] for f in r["findings"] if "not specified by this chapter" in f["message"]]
    assert silent and len(silent) == len(set(silent))


@pytest.mark.parametrize(
    ("stabilized", "acres", "phases"),
    [
        ("2027-06-20", 11.0, ["1", "2"]),  # dated before phase 1 ends: still bare until its end, June 30
        ("2027-03-20", 11.0, ["1", "2"]),  # even before it starts: a date the ground cannot be stabilized by
        ("2027-06-10", 11.0, ["1", "2"]),
    ],
)
def test_ground_is_not_stabilized_before_its_work_ends(tmp_path, stabilized, acres, phases):
    import geopandas as gpd

    # phase 1: 6 ac Apr 1 - Jun 30 with a stabilized date before its end; phase 2: 5 ac from Jun 15.
    # Ground is disturbed from its start until stabilized, and not stabilized while worked: June 15 still
    # has both (11 ac), whatever date the plan writes
    a = math.sqrt(6 * SQFT_PER_ACRE)
    b = math.sqrt(5 * SQFT_PER_ACRE)
    gdf = gpd.GeoDataFrame(
        {
            "phase": ["1", "2"],
            "start": ["2027-04-01", "2027-06-15"],
            "end": ["2027-06-30", "2027-09-30"],
            "stabilized": [stabilized, "2027-10-05"],
        },
        geometry=[rect(0, 0, a, a), rect(a + 10, 0, b, b)],
        crs="EPSG:7593",
    )
    d = run(tmp_path, {"disturbance": gdf})["disturbed"]
    assert d["max_at_one_time_acres"] == pytest.approx(acres, rel=1e-9)
    assert d["max_at_one_time_phases"] == phases
