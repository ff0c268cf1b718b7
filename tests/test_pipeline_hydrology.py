"""The analyze pipeline's drainage answers on closed-form surfaces: upslope area on a plane
(width x upslope length), the B(6)(a) diversion decision on both sides of 10,000 sq ft and of
0.5 ft/s, and the B(6)(c)[2] channel-origin trigger on a V-shaped valley."""

from __future__ import annotations

import warnings

import geopandas as gpd
import pytest
from sitebuilder import make_site, rect

import geosite
from geosite.testing import inclined_plane, v_valley


def analyze(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return geosite.analyze(geosite.load_site(folder)).report


def finding(report, rule):
    return next(f for f in report["findings"] if f["rule"] == rule)


# DEM: 500 x 500 cells of 2 ft from (X0, Y0) going east and south, a 5 % plane falling south.
# In sitebuilder coordinates the DEM spans x 0..1000 and y -1000..0; its top (upslope) edge is y = 0.


@pytest.mark.parametrize(("top", "upslope_ft"), [(-98.0, 98.0), (-102.0, 102.0), (-550.0, 550.0)])
def test_upslope_area_on_a_plane_is_width_times_upslope_length(tmp_path, top, upslope_ft):
    dem = inclined_plane(5.0, shape=(500, 500), cell=2.0)
    width = 100.0
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, -1000, 1000, 1000)], "disturbance": [rect(350, top - 100, width, 100)]},
        dem=dem,
    )
    r = analyze(folder)
    (u,) = r["upslope"]
    assert u["area_sqft"] == pytest.approx(width * upslope_ft, rel=0.02)
    assert u["sheetflow_area_sqft"] == pytest.approx(u["area_sqft"])
    assert u["channelized"] is False
    assert u["mean_slope_pct"] == pytest.approx(5.0, abs=0.01)
    # bare soil assumed (no vegetation layer): n = 0.05, L = min(upslope, 300) ft, P = 4.1 in, s = 0.05
    length = min(upslope_ft, 300.0)
    tt = 0.007 * (0.05 * length) ** 0.8 / (4.1**0.5 * 0.05**0.4)
    assert u["velocity_fps"] == pytest.approx(length / (3600 * tt), rel=0.02)
    over = width * upslope_ft > 10_000
    assert u["diversion_required"] is over
    assert finding(r, "sheetflow_diversion")["required"] is over


def test_slow_sheetflow_through_dense_woods_needs_no_diversion(tmp_path):
    dem = inclined_plane(2.0, shape=(500, 500), cell=2.0)
    veg = gpd.GeoDataFrame({"cover": ["dense_woods"]}, geometry=[rect(0, -1000, 1000, 1000)], crs="EPSG:7593")
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, -1000, 1000, 1000)], "disturbance": [rect(350, -300, 100, 100)], "vegetation": veg},
        dem=dem,
    )
    r = analyze(folder)
    (u,) = r["upslope"]
    assert u["sheetflow_area_sqft"] == pytest.approx(20_000.0, rel=0.02)
    assert u["land_cover"] == "dense_woods" and u["manning_n"] == 0.8
    tt = 0.007 * (0.8 * 200.0) ** 0.8 / (4.1**0.5 * 0.02**0.4)
    assert u["velocity_fps"] == pytest.approx(200.0 / (3600 * tt), rel=0.02)
    assert u["velocity_fps"] < 0.5
    assert u["diversion_required"] is False
    assert finding(r, "sheetflow_diversion")["required"] is False


def test_channel_originating_in_small_disturbance_requires_basin(tmp_path):
    # V valley: 600 ft long (300 rows), 202 ft wide (101 cols), axis falling south at 2 %, sides 10 %.
    # The axis accumulates about a row of 101 cells per row, so 1 acre (10,890 cells) is reached
    # about 108 rows (216 ft) down the valley: the channel head.
    dem = v_valley(10.0, 2.0, shape=(300, 101), cell=2.0)
    upper = rect(60, -260, 82, 80)   # rows 90-130 around the axis: holds the head
    lower = rect(60, -540, 82, 60)   # rows 240-270: the channel passes through it
    site = rect(0, -600, 202, 600)
    r1 = analyze(make_site(tmp_path / "a", {"site_boundary": [site], "disturbance": [upper]}, dem=dem))
    r2 = analyze(make_site(tmp_path / "b", {"site_boundary": [site], "disturbance": [lower]}, dem=dem))
    assert r1["disturbed"]["max_at_one_time_acres"] < 10
    assert r1["sediment_basin"]["required"] is True
    assert finding(r1, "sediment_basin")["required"] is True
    assert "channel originates" in finding(r1, "sediment_basin")["message"]
    assert r2["sediment_basin"]["required"] is False
    assert finding(r2, "sediment_basin")["required"] is False
    (u2,) = r2["upslope"]
    assert u2["channelized"] is True
    assert finding(r2, "channelized_diversion")["required"] is True
    assert finding(r2, "channel_edge_fences")["required"] is True


def _plane_with_pit(depth_ft: float):
    """A 5 % plane falling south with a conical pit (radius 100 ft) centred 150 ft below the top."""
    import numpy as np

    from geosite.grid import Dem
    from geosite.testing import cell_centres

    dem = inclined_plane(5.0, shape=(300, 300), cell=2.0)
    x, y = cell_centres(dem.shape, dem.transform)
    r = np.hypot(x - (dem.transform.c + 300.0), y - (dem.transform.f - 250.0))
    z = dem.elevation_ft - np.clip(depth_ft * (1 - r / 100.0), 0, None)
    return Dem.from_array(z, dem.transform, dem.crs, "us_ft")


@pytest.mark.parametrize(("pit_ft", "leaves"), [(0.0, True), (25.0, False)])
def test_b6_applies_only_where_runoff_leaves_the_site(tmp_path, pit_ft, leaves):
    # disturbed 40 x 40 ft just above the pit; the site is the whole 600 x 600 ft DEM minus a 20 ft rim.
    # The pit holds 1/3 pi 100^2 25 = 261,800 cu ft; 4.1 in over everything draining in (< 600 x 350 ft)
    # is at most 71,750 cu ft, so it holds the 10-year storm and nothing leaves.
    dem = _plane_with_pit(pit_ft)
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(20, -580, 560, 560)], "disturbance": [rect(280, -130, 40, 40)]},
        dem=dem,
    )
    r = analyze(folder)
    assert r["measurements"]["hydrology.runoff_leaves_site"] is leaves
    fence = finding(r, "filter_fence")
    assert fence["required"] is leaves
    if not leaves:
        assert "Does not apply (B(6))" in fence["message"]


def test_disturbed_area_beyond_the_dem_is_not_assessed_not_a_crash(tmp_path):
    # the DEM covers x 0..400 ft; the second disturbed square lies at x 600..700
    dem = inclined_plane(5.0, shape=(200, 200), cell=2.0)
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, -300, 900, 250)], "disturbance": [rect(50, -200, 100, 100), rect(600, -200, 100, 100)]},
        dem=dem,
    )
    r = analyze(folder)
    inside, outside = r["upslope"]
    assert inside["area_sqft"] == pytest.approx(100 * 100, rel=0.02)
    assert outside["area_sqft"] is None and "outside the DEM" in outside["why"]
    assert finding(r, "sheetflow_diversion")["status"] == "not_assessed"


def test_steep_slopes_unknown_where_the_dem_has_no_data(tmp_path):
    dem = inclined_plane(15.0, shape=(200, 200), cell=2.0)  # covers x 0..400
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, -300, 900, 250)], "disturbance": [rect(600, -200, 100, 100)]},
        dem=dem,
    )
    r = analyze(folder)
    t = next(t for t in r["applicability"]["triggers"] if t["rule"] == "disturbance_on_steep_slopes")
    assert t["met"] is None and "no data in the disturbed area" in t["message"]
    assert r["slopes"]["steep_area_sqft"] > 0  # the covered part of the site is 15 %
