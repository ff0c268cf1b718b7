"""The analyze pipeline's drainage answers on closed-form surfaces: upslope area on a plane
(width x upslope length), the B(6)(a) diversion decision on both sides of 10,000 sq ft and of
0.5 ft/s (the velocity across the disturbed area, beside the adjacent land's), and the B(6)(c)[2]
channel-origin trigger on a V-shaped valley."""

from __future__ import annotations

import warnings

import geopandas as gpd
import pytest
from sitebuilder import RIDGE_Y, make_site, rect, ridge_plane

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


def tr55_fps(n: float, length_ft: float, slope: float, p_in: float = 4.1) -> float:
    """TR-55 sheet flow velocity, by hand: L / (3600 Tt), Tt = 0.007 (n L)^0.8 / (P^0.5 s^0.4)."""
    length_ft = min(length_ft, 300.0)
    return length_ft / (3600 * 0.007 * (n * length_ft) ** 0.8 / (p_in**0.5 * slope**0.4))


TOP = RIDGE_Y - 1.0  # the top of the land draining south from the ridge


@pytest.mark.parametrize("upslope_ft", [98.0, 102.0, 550.0])
def test_upslope_area_on_a_plane_is_width_times_upslope_length(tmp_path, upslope_ft):
    # a 5 % plane falling south from a ridge (so the upslope area is bounded, not cut by the DEM's edge)
    dem = ridge_plane(5.0)
    top = TOP - upslope_ft
    width = 100.0
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, -990, 1000, 990)], "disturbance": [rect(350, top - 100, width, 100)]},
        dem=dem,
    )
    r = analyze(folder)
    (u,) = r["upslope"]
    assert u["area_sqft"] == pytest.approx(width * upslope_ft, rel=0.02)
    assert u["sheetflow_area_sqft"] == pytest.approx(u["area_sqft"])
    assert u["channelized"] is False and u["upslope_reaches_dem_edge"] is False
    assert u["mean_slope_pct"] == pytest.approx(5.0, abs=0.01)
    # B(6)(a) decides on the velocity across the disturbed area: bare soil (n = 0.05), the 100 ft the flow
    # crosses (cell centre to cell centre: 1 ft inside to 1 ft outside), s = 0.05, P = 4.1 in
    assert u["across"]["length_ft"] == pytest.approx(100.0) and u["across"]["slope_pct"] == pytest.approx(5.0)
    assert u["velocity_fps"] == pytest.approx(tr55_fps(0.05, 100.0, 0.05), rel=1e-6)
    assert (
        "across the disturbed area" in u["velocity_method"] and "neighbouring county" in u["velocity_method"]
    )
    # the adjacent land's (bare soil assumed: no vegetation layer) beside it, for information
    assert u["adjacent_velocity_fps"] == pytest.approx(tr55_fps(0.05, upslope_ft, 0.05), rel=0.02)
    over = width * upslope_ft > 10_000
    assert u["diversion_required"] is over
    assert finding(r, "sheetflow_diversion")["required"] is over


def cut_below(tmp_path, slope_pct: float, cover: str):
    """A 100 x 100 ft bare cut 200 ft below the top of a ridge plane covered by ``cover``: its report and
    its one upslope entry (20,000 sq ft of sheetflow)."""
    veg = gpd.GeoDataFrame({"cover": [cover]}, geometry=[rect(0, -1000, 1000, 1000)], crs="EPSG:7593")
    folder = make_site(
        tmp_path / "s",
        {
            "site_boundary": [rect(0, -990, 1000, 990)],
            "disturbance": [rect(350, TOP - 300, 100, 100)],
            "vegetation": veg,
        },
        dem=ridge_plane(slope_pct),
    )
    r = analyze(folder)
    (u,) = r["upslope"]
    assert u["sheetflow_area_sqft"] == pytest.approx(20_000.0, rel=0.02)
    return r, u


def test_grass_sheetflow_onto_a_steep_bare_cut_needs_a_diversion(tmp_path):
    """The case the old reading got wrong: 200 ft of dense grass (n = 0.24) above a bare cut, all at 5 %.
    On the grass the flow runs 0.22 ft/s ("no diversion" if judged there); across the 100 ft of bare cut
    it runs 0.67 ft/s: over 0.5, so B(6)(a) wants a diversion."""
    r, u = cut_below(tmp_path, 5.0, "dense_grass")
    assert u["adjacent_velocity_fps"] == pytest.approx(tr55_fps(0.24, 200.0, 0.05), rel=0.02)
    assert u["adjacent_velocity_fps"] == pytest.approx(0.219, abs=0.005) and u["adjacent_velocity_fps"] < 0.5
    assert u["velocity_fps"] == pytest.approx(tr55_fps(0.05, 100.0, 0.05), rel=1e-6)
    assert u["velocity_fps"] == pytest.approx(0.669, abs=0.001) and u["velocity_fps"] >= 0.5
    assert u["diversion_required"] is True
    f = finding(r, "sheetflow_diversion")
    assert f["required"] is True and f["citation"] == "B(6)(a)"


def test_sheetflow_across_a_gentle_cut_needs_no_diversion(tmp_path):
    # dense woods above, 100 ft of bare cut at 2 %: across it the flow runs 0.46 ft/s, under 0.5
    r, u = cut_below(tmp_path, 2.0, "dense_woods")
    assert u["land_cover"] == "dense_woods" and u["manning_n"] == 0.8
    assert u["adjacent_velocity_fps"] == pytest.approx(tr55_fps(0.8, 200.0, 0.02), rel=0.02)
    assert u["velocity_fps"] == pytest.approx(tr55_fps(0.05, 100.0, 0.02), rel=1e-6)
    assert u["velocity_fps"] == pytest.approx(0.464, abs=0.001) and u["velocity_fps"] < 0.5
    assert u["diversion_required"] is False
    assert finding(r, "sheetflow_diversion")["required"] is False


def test_disturbed_cover_given_by_the_plan_sets_the_velocity(tmp_path):
    # the same cut declared as dense grass (disturbance cover): n = 0.24 across it, 0.19 ft/s at 5 %
    dem = ridge_plane(5.0)
    dist = gpd.GeoDataFrame(
        {"cover": ["dense_grass"]}, geometry=[rect(350, TOP - 300, 100, 100)], crs="EPSG:7593"
    )
    folder = make_site(
        tmp_path / "s", {"site_boundary": [rect(0, -990, 1000, 990)], "disturbance": dist}, dem=dem
    )
    (u,) = analyze(folder)["upslope"]
    assert u["disturbed_cover"] == "dense_grass"
    assert u["velocity_fps"] == pytest.approx(tr55_fps(0.24, 100.0, 0.05), rel=1e-6)
    assert u["diversion_required"] is False


def test_channel_originating_in_small_disturbance_requires_basin(tmp_path):
    # V valley: 600 ft long (300 rows), 202 ft wide (101 cols), axis falling south at 2 %, sides 10 %.
    # The axis accumulates about a row of 101 cells per row, so 1 acre (10,890 cells) is reached
    # about 108 rows (216 ft) down the valley: the channel head.
    dem = v_valley(10.0, 2.0, shape=(300, 101), cell=2.0)
    upper = rect(60, -260, 82, 80)  # rows 90-130 around the axis: holds the head
    lower = rect(60, -540, 82, 60)  # rows 240-270: the channel passes through it
    site = rect(0, -580, 202, 580)  # the channel leaves the site 20 ft above the DEM's edge
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
        conf={"project": {"plat": "subdivision"}},  # the chapter applies (A(1)); B(6) is the question
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
        {
            "site_boundary": [rect(0, -300, 900, 250)],
            "disturbance": [rect(50, -200, 100, 100), rect(600, -200, 100, 100)],
        },
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


@pytest.mark.parametrize(
    ("rain_in", "pit_in_site", "held"), [(4.1, True, True), (30.0, True, False), (4.1, False, False)]
)
def test_a_depression_holds_the_storm_by_volume_and_only_inside_the_site(rain_in, pit_in_site, held):
    # the 25 ft pit on the 5 % plane fills to its downhill lip; it holds rain_in of runoff from what
    # drains into it when its volume (fill depth x 4 sq ft per cell) is at least that depth over that
    # area: 141,440 cu ft over 63,340 sq ft, up to 26.8 in. A pit partly outside the site holds nothing.
    import numpy as np

    from geosite import hydrology as hy
    from geosite.hydrology.stage import retaining_depressions

    fg = hy.flow_grid(_plane_with_pit(25.0))
    depth = np.nan_to_num(fg.filled_ft - fg.dem.elevation_ft)
    pit = depth > 1e-6
    volume_cuft = depth[pit].sum() * 4.0
    drains_in_sqft = np.nan_to_num(fg.accumulation_cells())[pit].max() * 4.0
    assert volume_cuft == pytest.approx(141_440, rel=1e-3) and drains_in_sqft == pytest.approx(
        63_340, rel=1e-3
    )
    in_site = np.zeros(fg.dem.shape, bool)
    in_site[10:-10, 10:-10] = True
    if not pit_in_site:
        in_site[:, 150:] = False  # the site's east edge runs through the pit's centre
    got = retaining_depressions(fg, in_site, rain_in)
    assert (got == pit).all() if held else not got.any()


def test_retaining_depressions_agree_with_per_label_statistics():
    # many depressions on rolling terrain, an irregular site: the same cells as scipy.ndimage's
    # per-label sum and maximum over every depression (how geosite measured them before)
    import numpy as np
    from scipy import ndimage

    from geosite import hydrology as hy
    from geosite.hydrology.stage import retaining_depressions
    from geosite.testing import rolling_terrain

    fg = hy.flow_grid(rolling_terrain((240, 260), cell=3.0, relief_ft=12.0, kettles=25, seed=11))
    r, c = np.mgrid[0:240, 0:260]
    in_site = np.hypot(r - 120, (c - 130) * 0.8) < 95
    for rain_in in (0.1, 0.3, 1.0):
        depth = np.nan_to_num(fg.filled_ft - fg.dem.elevation_ft)
        labels, n = ndimage.label(depth > 1e-6, structure=np.ones((3, 3), bool))
        idx = np.arange(1, n + 1)
        volume = ndimage.sum(depth, labels, idx) * fg.dem.cell_area_sqft
        contrib = ndimage.maximum(np.nan_to_num(fg.accumulation_cells()), labels, idx) * fg.dem.cell_area_sqft
        outside = ndimage.sum(~in_site, labels, idx) > 0
        want = np.isin(labels, idx[(volume >= rain_in / 12.0 * contrib) & ~outside])
        got = retaining_depressions(fg, in_site, rain_in)
        assert (got == want).all()
        if rain_in == 0.1:
            assert want.any()
    assert n > 10 and outside.any() and (~outside).sum() > 3


def test_concentrated_outflow_of_a_valley_is_its_one_channel_cell():
    # a V valley whose axis (the middle column) is the only channel: a disturbed box across it lets
    # concentrated flow out at one cell, the axis cell on its south (downstream) row; a box beside the
    # axis lets none out
    import numpy as np

    from geosite import hydrology as h
    from geosite.hydrology.stage import concentrated_outflows

    dem = v_valley(10.0, 2.0, shape=(100, 101), cell=2.0)
    fg = h.flow_grid(dem)
    threshold = 1000 * dem.cell_area_sqft  # the axis gathers 101 cells a row; a side column 50 at most
    chan = fg.channel_cells(threshold)
    assert chan[:, 50].sum() > 80 and chan[:, :50].sum() == chan[:, 51:].sum() == 0
    across = np.zeros(dem.shape, dtype=bool)
    across[60:70, 40:61] = True
    beside = np.zeros(dem.shape, dtype=bool)
    beside[60:70, 5:20] = True
    assert concentrated_outflows(fg, across, threshold) == 1
    assert concentrated_outflows(fg, beside, threshold) == 0
    assert concentrated_outflows(fg, np.zeros(dem.shape, dtype=bool), threshold) == 0


@pytest.mark.parametrize(("where", "truncated"), [("clear", False), ("beside_hole", True), ("edge", True)])
def test_an_upslope_area_touching_nodata_or_the_edge_is_truncated(where, truncated):
    # a polygon one cell from a nodata cell (its ring touches it) or on the grid's edge may have land
    # beyond it draining in; one clear of both may not
    from types import SimpleNamespace

    import numpy as np
    import shapely

    from geosite import hydrology as h
    from geosite.grid import Dem
    from geosite.hydrology.stage import _upslope_truncated

    base = inclined_plane(5.0, shape=(80, 80), cell=2.0)
    z = base.elevation_ft.copy()
    z[40, 60] = np.nan
    dem = Dem(z, base.transform, base.crs, base.ft_per_unit, base.vertical_unit)
    t = dem.transform
    # cells r..r+h-1, c..c+w-1; "beside_hole": rows 36-39, columns 52-59, cell (39, 59) beside (40, 60)
    r, c, hh, w = {"clear": (20, 20, 4, 9), "beside_hole": (36, 52, 4, 8), "edge": (0, 30, 4, 9)}[where]
    poly = shapely.box(
        t.c + (c + 0.1) * t.a, t.f + (r + hh - 0.1) * t.e, t.c + (c + w - 0.1) * t.a, t.f + (r + 0.1) * t.e
    )
    assert _upslope_truncated(h.flow_grid(dem), SimpleNamespace(polygon=poly)) is truncated
