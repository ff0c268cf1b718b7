"""Hydrology against closed forms (planes, valleys, holes, pits) and against topotoolbox.

Every expected number here can be checked by hand: on a plane falling south every cell drains to the
cell below, so a cell's accumulation is its row number + 1; a V-valley's axis collects whole rows.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
import shapely
from affine import Affine

from geosite import hydrology as h
from geosite.errors import InputError
from geosite.grid import Dem
from geosite.hydrology.engines import available_engines, get_engine
from geosite.testing import CRS_M, CRS_US_FT, cone, inclined_plane, v_valley

UNIT_COMBOS = [(CRS_US_FT, "us_ft"), (CRS_US_FT, "m"), (CRS_M, "m"), (CRS_M, "ft")]


def _box(dem: Dem, r0: int, r1: int, c0: int, c1: int) -> shapely.Polygon:
    """Polygon covering rows r0..r1-1 and cols c0..c1-1 exactly (cell edges)."""
    t = dem.transform
    return shapely.box(t.c + c0 * t.a, t.f + r1 * t.e, t.c + c1 * t.a, t.f + r0 * t.e)


def _rough(shape=(160, 180), seed=3, holes=True) -> Dem:
    """Deterministic rough terrain with closed pits and (optionally) nodata holes."""
    from scipy.ndimage import gaussian_filter

    rng = np.random.default_rng(seed)
    rows, cols = shape
    z = gaussian_filter(rng.standard_normal(shape), 4) * 40 + gaussian_filter(rng.standard_normal(shape), 1)
    z -= 0.02 * np.arange(rows)[:, None] * 3.0  # regional fall to the south
    z = np.round(z + 900.0, 1)  # 0.1 ft rounding makes real flats, as in LiDAR products
    if holes:
        z[40:46, 120:130] = np.nan
        z[100:103, 30:33] = np.nan
    return Dem.from_array(
        z, Affine(3.0, 0, 500_000.0, 0, -3.0, 200_000.0), CRS_US_FT, "us_ft", source="rough"
    )


@pytest.mark.parametrize("crs,vu", UNIT_COMBOS)
def test_plane_south_accumulates_its_column(crs, vu):
    dem = inclined_plane(4.0, shape=(37, 23), cell=2.0, crs=crs, vertical_unit=vu)
    acc = h.flow_accumulation(dem)
    assert np.array_equal(acc, np.repeat(np.arange(1.0, 38.0)[:, None], 23, axis=1))
    # the bottom row passes everything out of the grid; side columns do not leak sideways
    assert acc[-1].sum() == 37 * 23
    assert np.array_equal(h.flow_accumulation(dem, "sqft"), acc * dem.cell_area_sqft)


@pytest.mark.parametrize("az,expect", [(0.0, "north"), (90.0, "east"), (270.0, "west")])
def test_plane_edges_pass_flow_out(az, expect):
    dem = inclined_plane(3.0, shape=(20, 25), cell=2.0, azimuth_deg=az)
    acc = h.flow_accumulation(dem)
    r, c = np.mgrid[0:20, 0:25]
    n = {"north": 20 - r, "east": c + 1, "west": 25 - c}[expect]
    assert np.array_equal(acc, n.astype(float))


def test_plane_diagonal_and_non_square_cells():
    # falling south-east on square cells: every cell drains diagonally, 1 + min(row, col) cells
    dem = inclined_plane(6.0, shape=(15, 20), cell=2.0, azimuth_deg=135.0)
    r, c = np.mgrid[0:15, 0:20]
    assert np.array_equal(h.flow_accumulation(dem), 1.0 + np.minimum(r, c))
    # non-square cells (2 ft x 3 ft), plane falling south: still the column count
    rows = np.arange(12)[:, None] * np.ones((1, 9))
    z = 900.0 - 0.05 * (rows + 0.5) * 3.0
    dem = Dem.from_array(z, Affine(2.0, 0, 500_000.0, 0, -3.0, 200_000.0), CRS_US_FT, "us_ft")
    assert np.array_equal(h.flow_accumulation(dem), rows + 1.0)


def test_v_valley_axis_collects_whole_rows():
    dem = v_valley(10.0, 2.0, shape=(40, 31))
    acc = h.flow_accumulation(dem)
    assert np.array_equal(acc[:, 15], 31.0 * np.arange(1, 41))
    assert acc[-1, 15] == 40 * 31


def test_plane_marked_cells_count_down_their_column():
    # a plane falling south: each cell drains straight down its column, so a boolean weight of k marked
    # cells in a column gives k below the lowest of them, and 0 beside them
    dem = inclined_plane(5.0, shape=(40, 30), cell=3.0)
    fg = h.flow_grid(dem)
    marked = np.zeros(dem.shape, dtype=bool)
    marked[[5, 12, 20], 7] = True
    marked[30, 22] = True
    acc = h.weighted_accumulation(fg.directions, marked)
    np.testing.assert_array_equal(acc[:, 7], np.cumsum(marked[:, 7]))
    np.testing.assert_array_equal(acc[:, 22], np.cumsum(marked[:, 22]))
    assert acc[:, [0, 6, 8, 21, 23, 29]].sum() == 0


def test_cells_draining_into_a_target_on_a_plane_are_its_column_above():
    # a plane falling south: every cell drains straight down its column, so what drains into two cells
    # is the column above each, themselves included; counting them by accumulation agrees
    dem = inclined_plane(5.0, shape=(40, 30), cell=3.0)
    fg = h.flow_grid(dem)
    target = np.zeros(dem.shape, dtype=bool)
    target[25, 7] = target[10, 20] = True
    got = h.drains_into(fg.directions, target)
    want = np.zeros(dem.shape, dtype=bool)
    want[:26, 7] = want[:11, 20] = True
    np.testing.assert_array_equal(got, want)
    acc = h.weighted_accumulation(fg.directions, got)
    assert acc[25, 7] == 26 and acc[10, 20] == 11


@pytest.mark.parametrize("frac", [0.001, 0.05, 1.0])
def test_marked_accumulation_equals_the_weighted_one(frac):
    # the boolean path follows only the marked cells' flow paths; the float path accumulates the
    # grid: the same counts, NaN on nodata, on terrain with flats and holes
    from geosite.testing import rolling_terrain

    rng = np.random.default_rng(4)
    base = rolling_terrain((160, 150), cell=3.0, relief_ft=15.0, seed=4)
    z = np.round(base.elevation_ft, 1)
    z[rng.random(z.shape) < 0.01] = np.nan
    fg = h.flow_grid(Dem.from_array(z, base.transform, base.crs, "us_ft"))
    marked = rng.random(z.shape) < frac
    got = h.weighted_accumulation(fg.directions, marked)
    want = h.weighted_accumulation(fg.directions, marked.astype(np.float64))
    assert np.array_equal(got, want, equal_nan=True) and np.nanmax(got) > 1


def test_nodata_hole_is_an_outlet():
    # a bowl (inverted cone) whose bottom has no data: everything drains into the hole, nothing to the edge
    bowl = cone(-5.0, shape=(41, 41), cell=2.0)
    z = bowl.elevation_ft.copy()
    z[18:23, 18:23] = np.nan
    dem = Dem(z, bowl.transform, bowl.crs, bowl.ft_per_unit, bowl.vertical_unit)
    fg = h.flow_grid(dem)
    acc = fg.accumulation_cells()
    outlets = fg.directions == 0
    assert not outlets[0].any() and not outlets[-1].any() and not outlets[:, 0].any()
    near_hole = np.zeros_like(outlets)
    near_hole[17:24, 17:24] = True
    assert (outlets <= near_hole).all()
    assert acc[outlets].sum() == 41 * 41 - 25
    assert np.isnan(acc[20, 20]) and fg.directions[20, 20] == 255


def test_closed_depression_is_filled_and_drains_out():
    dem0 = inclined_plane(5.0, shape=(30, 20), cell=2.0)
    z = dem0.elevation_ft.copy()
    z[10:13, 8:11] -= 10.0  # a 3x3 pit, 10 ft deep
    dem = Dem(z, dem0.transform, dem0.crs, dem0.ft_per_unit, dem0.vertical_unit)
    fg = h.flow_grid(dem)
    # filled to its spill: the lowest cell of the ring around it, the row below (row 13, 0.1 ft per row)
    assert np.allclose(fg.filled_ft[10:13, 8:11], z[13, 9])
    assert np.array_equal(fg.filled_ft[z == dem0.elevation_ft], z[z == dem0.elevation_ft])
    acc = fg.accumulation_cells()
    assert (fg.directions[1:-1, 1:-1] != 0).all()  # no interior sink left
    assert acc[-1].sum() == 30 * 20  # everything leaves by the bottom edge
    # everything in columns 7-11 above row 14 (the pit, the cells that slide into it, and its ring)
    # passes through row 13 there; columns 6 and 12 are untouched plane
    assert acc[13, 7:12].sum() == 14 * 5
    assert acc[13, 6] == acc[13, 12] == 14


def test_flat_dem_drains_to_edges():
    dem = Dem.from_array(np.full((9, 11), 100.0), Affine(2, 0, 500_000, 0, -2, 200_000), CRS_US_FT, "us_ft")
    fg = h.flow_grid(dem)
    acc = fg.accumulation_cells()
    assert acc[fg.directions == 0].sum() == 99
    assert fg.directions[0].tolist() == [0] * 11  # edge cells are outlets


def test_upslope_area_of_rectangle_on_plane():
    dem = inclined_plane(5.0, shape=(300, 200), cell=2.0)
    poly = _box(dem, 150, 170, 60, 80)  # 20 x 20 cells, 40 ft x 40 ft
    res = h.upslope_area(dem, poly, channel_threshold_sqft=1000.0)
    width_ft, upslope_ft = 20 * 2.0, 150 * 2.0
    assert res.method == "window"
    assert res.area_sqft == pytest.approx(width_ft * upslope_ft, rel=0.02)
    assert res.flow_length_ft == pytest.approx(upslope_ft)
    assert res.mean_slope_pct == pytest.approx(5.0, rel=1e-6)
    assert len(res.entry_points) == 20
    # each entry cell carries its 150-cell column: 600 sq ft < 1000 -> sheet flow
    assert np.allclose(res.entry_points["contrib_area_sqft"], 600.0)
    assert not res.channelized and res.sheetflow_area_sqft == res.area_sqft
    assert res.polygon.area == pytest.approx(width_ft * upslope_ft)
    whole = h.upslope_area(h.flow_grid(dem), poly, channel_threshold_sqft=1000.0)
    assert whole.method == "whole" and whole.area_sqft == res.area_sqft
    # a threshold under one column's area makes every entry channelized
    assert h.upslope_area(dem, poly, channel_threshold_sqft=500.0).channelized_area_sqft == res.area_sqft


def test_upslope_area_metre_dem_matches_closed_form():
    dem = inclined_plane(8.0, shape=(200, 120), cell=1.0, crs=CRS_M, vertical_unit="m")
    poly = _box(dem, 100, 110, 50, 65)
    res = h.upslope_area(dem, poly, channel_threshold_sqft=43_560.0)
    ft = 1 / 0.3048
    assert res.area_sqft == pytest.approx(15 * ft * 100 * ft, rel=1e-9)


def test_window_equals_whole_dem():
    dem = _rough()
    fg = h.flow_grid(dem)
    rng = np.random.default_rng(7)
    methods = set()
    for _ in range(12):
        r0, c0 = int(rng.integers(5, 140)), int(rng.integers(5, 160))
        poly = _box(dem, r0, r0 + 12, c0, c0 + 15)
        a = h.upslope_area(dem, poly, channel_threshold_sqft=5000.0, method="window")
        b = h.upslope_area(fg, poly, channel_threshold_sqft=5000.0)
        methods.add(a.method)
        assert a.area_sqft == b.area_sqft
        assert a.sheetflow_area_sqft == b.sheetflow_area_sqft and a.channelized == b.channelized
        assert a.flow_length_ft == b.flow_length_ft
        assert (a.mean_slope_pct == b.mean_slope_pct) or (
            math.isnan(a.mean_slope_pct) and math.isnan(b.mean_slope_pct)
        )
        assert sorted(a.entry_points["contrib_area_sqft"]) == sorted(b.entry_points["contrib_area_sqft"])
    assert "window" in methods


def test_a_site_in_a_basin_wider_than_its_window_is_answered_on_the_basin():
    # a 2 % plane with a bowl 8 ft deep and about 250 cells across: the first window (the site and
    # 32 cells) cuts through it, so its water would leave by the window's edge
    dem0 = inclined_plane(2.0, shape=(600, 600), cell=3.0)
    r, c = np.mgrid[0:600, 0:600]
    z = dem0.elevation_ft - 8.0 * np.exp(-((r - 300.0) ** 2 + (c - 300.0) ** 2) / (2 * 60.0**2))
    dem = Dem(np.round(z, 2), dem0.transform, dem0.crs, dem0.ft_per_unit, dem0.vertical_unit)
    fg = h.flow_grid(dem)
    poly = _box(dem, 295, 305, 295, 305)
    a = h.upslope_area(dem, poly, channel_threshold_sqft=43_560.0, method="window")
    b = h.upslope_area(fg, poly, channel_threshold_sqft=43_560.0)
    assert a.method == "window" and a.cell_count > 1000
    assert (a.area_sqft, a.flow_length_ft, a.sheetflow_area_sqft) == (
        b.area_sqft,
        b.flow_length_ft,
        b.sheetflow_area_sqft,
    )
    # the search the window was sized by: the basin's spill height is the filled height at its cells,
    # and its box holds every cell the basin fills
    from geosite.hydrology import _kernels as fk

    level, r0, r1, c0, c1, outlet = fk.spill_basin(
        np.ascontiguousarray(dem.elevation_ft), 300 * 600 + 300, np.zeros(dem.shape, np.uint8)
    )
    assert level == fg.filled_ft[300, 300] > dem.elevation_ft[300, 300]
    lake = np.argwhere(fg.filled_ft > dem.elevation_ft)
    near = lake[np.abs(lake - 300).max(axis=1) < 200]  # this bowl's cells (other pits lie far off)
    assert (
        r0 <= near[:, 0].min() and near[:, 0].max() < r1 and c0 <= near[:, 1].min() and near[:, 1].max() < c1
    )
    # the way out it reports: a cell on the DEM's edge (no nodata here) no higher than the spill height
    orow, ocol = divmod(outlet, dem.shape[1])
    assert orow in (0, dem.shape[0] - 1) or ocol in (0, dem.shape[1] - 1)
    assert dem.elevation_ft[orow, ocol] <= level


def test_auto_gives_way_to_the_whole_dem_before_searching_a_basin_too_wide_for_a_window(monkeypatch):
    # a tilted bowl 30 ft deep over the whole 400 x 400 DEM: the first window around the site (the site
    # and 32 cells, 4 % of the DEM) cuts through the basin, and the coarse grid sees it over most of the
    # DEM, wider than a window may be (WHOLE_FRACTION). "auto" then routes the whole DEM after that one
    # window, without the search for the basin (which visits about the whole DEM at twice the cost per
    # cell of routing it: auto took 3.1x the whole routing on a 1 M-cell kettle); an explicit "window"
    # still searches it. The answers are the whole DEM's either way.
    from geosite.hydrology import _kernels as fk
    from geosite.hydrology import upslope

    dem0 = inclined_plane(0.5, shape=(400, 400), cell=3.0)
    r, c = np.mgrid[0:400, 0:400]
    z = dem0.elevation_ft + 30.0 * ((r - 210.0) ** 2 + (c - 190.0) ** 2) / 200.0**2
    dem = Dem(np.round(z, 2), dem0.transform, dem0.crs, dem0.ft_per_unit, dem0.vertical_unit)
    poly = _box(dem, 190, 210, 200, 220)
    calls = {"spill_basin": 0, "windows": 0, "flow_grid": 0}

    def counted(name, fn):
        def call(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return call

    route = upslope._RoutedWindow.route.__func__
    monkeypatch.setattr(fk, "spill_basin", counted("spill_basin", fk.spill_basin))
    monkeypatch.setattr(upslope._RoutedWindow, "route", classmethod(counted("windows", route)))
    monkeypatch.setattr(upslope, "flow_grid", counted("flow_grid", upslope.flow_grid))
    whole = h.upslope_area(h.flow_grid(dem), poly, channel_threshold_sqft=43_560.0)
    auto = h.upslope_area(dem, poly, channel_threshold_sqft=43_560.0)
    assert auto.method == "whole"
    assert calls == {"spill_basin": 0, "windows": 1, "flow_grid": 1}
    calls.update(spill_basin=0, windows=0, flow_grid=0)
    searched = h.upslope_area(dem, poly, channel_threshold_sqft=43_560.0, method="window")
    assert calls["spill_basin"] == 1 and searched.method == "whole"
    for a in (auto, searched):
        assert (a.area_sqft, a.flow_length_ft, a.sheetflow_area_sqft, a.cell_count) == (
            whole.area_sqft,
            whole.flow_length_ft,
            whole.sheetflow_area_sqft,
            whole.cell_count,
        )


def test_upslope_area_rejects_bad_input():
    dem = inclined_plane(5.0, shape=(20, 20))
    with pytest.raises(InputError):
        h.upslope_area(dem, shapely.Point(0, 0).buffer(1), channel_threshold_sqft=43_560.0)  # outside the DEM
    with pytest.raises(InputError):
        h.upslope_area(dem, _box(dem, 2, 5, 2, 5), channel_threshold_sqft=43_560.0, method="magic")


def test_channels_on_v_valley():
    dem = v_valley(10.0, 2.0, shape=(40, 31), cell=2.0)
    # the axis holds 31 cells per row (124 sq ft); side cells at most 15: threshold 10 rows of axis
    chan = h.channels(dem, threshold_sqft=31 * 10 * 4.0)
    assert len(chan) == 1
    line = chan.geometry.iloc[0]
    t = dem.transform
    x_axis = t.c + 15.5 * t.a
    assert np.allclose(np.asarray(line.coords)[:, 0], x_axis)
    assert len(line.coords) == 31  # rows 9..39
    assert chan["contrib_area_sqft"].iloc[0] == 40 * 31 * 4.0
    assert bool(chan["starts_at_head"].iloc[0]) and chan["head_y"].iloc[0] == t.f + 9.5 * t.e
    head_box = _box(dem, 5, 12, 10, 20)
    low_box = _box(dem, 25, 30, 10, 20)
    assert len(h.channels_originating_in(chan, head_box)) == 1
    assert len(h.channels_originating_in(chan, low_box)) == 0
    assert len(h.channels_through(chan, low_box)) == 1
    assert len(h.channels_through(chan, _box(dem, 25, 30, 0, 5))) == 0


def test_channelized_entry_on_valley():
    dem = v_valley(10.0, 2.0, shape=(60, 31), cell=2.0)
    site = _box(dem, 40, 50, 5, 26)  # across the axis
    res = h.upslope_area(dem, site, channel_threshold_sqft=31 * 10 * 4.0)
    # the 40 rows above it (all 31 columns) and, beside it, rows 40-49 of columns 0-4 and 26-30, whose
    # cells run across the contour (10 % side slope beats the 2 % axis fall) into the site
    assert res.area_sqft == (40 * 31 + 10 * 10) * 4.0
    # the axis cell above the site carries the 40 rows (1240 cells): channelized; the side rows are sheet flow
    assert res.channelized
    assert res.channelized_area_sqft == 40 * 31 * 4.0
    assert res.sheetflow_area_sqft == 10 * 10 * 4.0


def test_tr55_sheetflow_velocity_hand_value():
    # n = 0.15 (short grass), L = 100 ft, P2 = 2.9 in, s = 0.02:
    # Tt = 0.007 * 15^0.8 / (2.9^0.5 * 0.02^0.4) = 0.007 * 8.7272 / (1.70294 * 0.20912) = 0.17154 h
    # V = 100 / (3600 * 0.17154) = 0.1619 ft/s
    assert h.sheetflow_travel_time_hr("short_grass", 100.0, 2.9, 0.02) == pytest.approx(0.17154, rel=1e-4)
    assert h.sheetflow_velocity_fps(0.15, 100.0, 2.9, 0.02) == pytest.approx(0.1619, rel=1e-3)
    # L is capped at 300 ft: a 500 ft path gets the 300 ft velocity
    assert h.sheetflow_velocity_fps("bare_soil", 500.0, 4.1, 0.05) == h.sheetflow_velocity_fps(
        0.05, 300.0, 4.1, 0.05
    )
    with pytest.raises(InputError, match="short_grass"):
        h.manning_n("lawn")
    with pytest.raises(InputError):
        h.sheetflow_velocity_fps(0.15, 100.0, 2.9, 0.0)


def test_engine_interface():
    assert "native" in available_engines()
    with pytest.raises(InputError, match="native"):
        get_engine("whitebox")
    dem = inclined_plane(5.0, shape=(10, 8))
    assert np.array_equal(
        get_engine("native").accumulation_cells(dem), np.repeat(np.arange(1.0, 11)[:, None], 8, 1)
    )


@pytest.mark.skipif(importlib.util.find_spec("topotoolbox") is None, reason="topotoolbox not installed")
def test_agrees_with_topotoolbox():
    tt = get_engine("topotoolbox")
    nat = get_engine("native")
    for dem in (inclined_plane(5.0, shape=(30, 20)), v_valley(10.0, 2.0, shape=(30, 21))):
        assert np.array_equal(tt.accumulation_cells(dem), nat.accumulation_cells(dem))
    dem = _rough(holes=False)
    a, b = nat.accumulation_cells(dem), tt.accumulation_cells(dem)
    agree = float(np.mean(a == b))
    # they differ only where depressions are resolved differently (topotoolbox carves, geosite fills
    # and routes across the flat; this surface is rounded to 0.1 ft, so it has many flats): measured 0.79
    assert agree > 0.75, agree
    assert np.nansum(a[-1]) > 0 and abs(np.nanmax(a) - np.nanmax(b)) / np.nanmax(b) < 0.05


@pytest.mark.skipif(
    importlib.util.find_spec("richdem") is None, reason="richdem not installed (no build for Python 3.10+)"
)
def test_agrees_with_richdem():  # pragma: no cover
    dem = _rough(holes=False)
    a = get_engine("native").accumulation_cells(dem)
    b = get_engine("richdem").accumulation_cells(dem)
    assert float(np.mean(a == b)) > 0.5


@pytest.mark.parametrize("holes", [False, True])
def test_downhill_field_is_the_smoothed_gradient(holes):
    # the kernel against the same field written with numpy.gradient and scipy's uniform_filter (how
    # geosite computed it before): central differences averaged over 3x3 cells, the D8 direction on flats
    from scipy.ndimage import uniform_filter

    from geosite.grid import DC, DR
    from geosite.testing import rolling_terrain

    dem = rolling_terrain((70, 90), cell=3.0, relief_ft=15.0, seed=8)
    z = np.round(dem.elevation_ft)  # whole feet: flats to route
    if holes:
        z[np.random.default_rng(2).random(z.shape) < 0.02] = np.nan
    dem = Dem(z, dem.transform, dem.crs, dem.ft_per_unit, dem.vertical_unit)
    fg = h.flow_grid(dem)
    ux, uy = h.downhill_field(fg.filled_ft, dem, fg.directions)
    dzdr, dzdc = np.gradient(fg.filled_ft)
    gx, gy = dzdc / dem.cell_x_ft, -dzdr / dem.cell_y_ft
    ok = np.isfinite(gx) & np.isfinite(gy)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = uniform_filter(ok.astype(float), 3, mode="nearest")
        sx = np.where(ok, uniform_filter(np.where(ok, gx, 0.0), 3, mode="nearest") / w, np.nan)
        sy = np.where(ok, uniform_filter(np.where(ok, gy, 0.0), 3, mode="nearest") / w, np.nan)
        norm = np.hypot(sx, sy)
    sloped = norm > 1e-6  # clear of the flat threshold (1e-9), so rounding cannot flip the choice
    assert sloped.sum() > 3000 and (~sloped & ok).sum() > 30
    assert np.allclose(ux[sloped], -sx[sloped] / norm[sloped], rtol=0, atol=1e-9)
    assert np.allclose(uy[sloped], -sy[sloped] / norm[sloped], rtol=0, atol=1e-9)
    flat = ~(norm > 1e-9)
    d = fg.directions
    use = flat & (d >= 1) & (d <= 8)
    k = d[use].astype(int) - 1
    vx, vy = DC[k] * dem.cell_x_ft, -DR[k] * dem.cell_y_ft
    assert np.allclose(ux[use], vx / np.hypot(vx, vy)) and np.allclose(uy[use], vy / np.hypot(vx, vy))
    assert (ux[flat & ~use] == 0).all() and (uy[flat & ~use] == 0).all()
    # sampled at points (the fences' and stockpiles' way): the field's vectors to the bit, 0 off the grid
    t = dem.transform
    rng = np.random.default_rng(5)
    px = t.c + rng.uniform(-2, 92, 400) * t.a
    py = t.f + rng.uniform(-2, 72, 400) * t.e
    lazy = h.flow_grid(dem).downhill_at(px, py)
    want = h.sample_vectors(ux, uy, dem, px, py)
    assert np.array_equal(lazy[0], want[0]) and np.array_equal(lazy[1], want[1])
    assert (lazy[0] == 0).sum() >= 10  # points off the grid among them


def test_a_way_out_proven_at_one_height_is_not_reused_below_it():
    # a bowl whose rim stands at 10 ft: water in it gets out at 10 ft, not at 5. The search marks the
    # cells it proved at 12 ft; a later question at 5 ft (a wider window's seed) must not reuse them
    from geosite.hydrology.upslope import _uncertified_seed

    r, c = np.mgrid[0:21, 0:21]
    d = np.hypot(r - 10, c - 10)
    z = np.where(d < 6, d, np.where(d < 8, 10.0, 2.0)).astype(np.float64)  # floor 0, rim 10, plain 2
    state: dict = {}
    seed = 10 * 21 + 10

    def ask(height):
        label = np.full(z.shape, seed, dtype=np.int64)
        filled = np.full(z.shape, height)
        cells = np.zeros(z.shape, bool)
        cells[10, 11] = True
        return _uncertified_seed(z, label, filled, cells, r0=0, c0=0, state=state)

    assert ask(12.0) is None  # over the rim at 10 ft: proven
    assert ask(5.0) == seed  # below the rim: no way out, whatever the marks left from 12 ft
    assert ask(10.0) is None


def test_a_walled_edge_is_no_way_out():
    # a trough at 1 ft along row 2 to the left edge, the rest at 10 ft: water in it at 2 ft gets out by
    # the left edge, and not at all when that edge is a window's artificial one (walled), unless a
    # nodata cell beside the trough is an outlet of its own
    from geosite.hydrology import _kernels as fk

    z = np.full((5, 7), 10.0)
    z[2, :5] = 1.0
    start = 2 * 7 + 4

    no_level = np.full((1, 1), np.inf)

    def ask(walls, grid=z, cells=5, level=no_level, f=0):
        proven = np.zeros(grid.shape, np.uint8)
        scratch = np.zeros(grid.shape, np.uint8)
        # the grid is rows 10-14, columns 20-26 of a DEM whose coarse grid has blocks of f x f cells
        ok = fk.spill_below(grid, start, 2.0, scratch, proven, np.array(walls, np.uint8), level, f, 10, 20)
        # the trough's cells walked, on success: to the edge, or to (2, 2) beside the hole
        assert not scratch.any() and (proven.sum() == (cells if ok else 0))
        return ok

    assert ask([0, 0, 0, 0]) and ask([1, 1, 0, 1])
    assert not ask([0, 0, 1, 0])  # only the top, bottom and right edges are outlets: all at 10 ft
    holed = z.copy()
    holed[1, 1] = np.nan  # a hole beside the trough
    assert ask([1, 1, 1, 1], holed, cells=3)
    # a coarse grid proving DEM block (4, 7) (rows 12-14, columns 21-23: the trough's cells 1-3) at 2 ft
    level = np.full((6, 10), 50.0)
    level[4, 7] = 2.0
    assert ask([1, 1, 1, 1], level=level, f=3, cells=2)  # from (2, 4) to (2, 3), the block's nearest cell
    level[4, 7] = 2.5  # proven only at 2.5 ft: nothing at 2
    assert not ask([1, 1, 1, 1], level=level, f=3)


def test_walled_edges_search_as_a_frame_of_infinite_heights_does():
    # the walls are the +inf frame the certificate once padded the search window with, without the copy
    from geosite.hydrology import _kernels as fk

    rng = np.random.default_rng(4)
    for trial in range(30):
        z = rng.random((23, 19)) * 10
        z[rng.random(z.shape) < 0.03] = np.nan
        walls = rng.random(4) < 0.6
        framed = np.pad(
            z, ((int(walls[0]), int(walls[1])), (int(walls[2]), int(walls[3]))), constant_values=np.inf
        )
        for _ in range(10):
            r, c = int(rng.integers(23)), int(rng.integers(19))
            bound = float(rng.random() * 10)
            got = fk.spill_below(
                z,
                r * 19 + c,
                bound,
                np.zeros(z.shape, np.uint8),
                np.zeros(z.shape, np.uint8),
                walls.astype(np.uint8),
                np.full((1, 1), np.inf),
                0,
                0,
                0,
            )
            at = (r + int(walls[0])) * framed.shape[1] + c + int(walls[2])
            want = fk.spill_below(
                framed,
                at,
                bound,
                np.zeros(framed.shape, np.uint8),
                np.zeros(framed.shape, np.uint8),
                np.zeros(4, np.uint8),
                np.full((1, 1), np.inf),
                0,
                0,
                0,
            )
            assert got == want, (trial, r, c, bound)


@pytest.mark.parametrize("f", [2, 7, 8])
def test_block_extremes_are_each_blocks_highest_and_lowest_height(f):
    # the lowest is NaN where the block holds nodata or is cut by the grid's edge (outlets for a floor);
    # the highest ignores nodata (NaN only for a block of nothing else)
    from geosite.hydrology import _kernels as fk

    rng = np.random.default_rng(f)
    z = rng.random((50, 45)) * 100
    z[rng.random(z.shape) < 0.01] = np.nan
    z[0:f, 0:f] = np.nan  # one block all nodata
    top, low = fk.block_extremes(z, f, np.nan)
    # the float32 kernel (the coarse pass's, on a float32 file) gives the float32 grid's extremes, widened
    t4, l4 = fk.block_extremes_f4(z.astype(np.float32), f, np.nan)
    t8, l8 = fk.block_extremes(z.astype(np.float32).astype(np.float64), f, np.nan)
    assert np.array_equal(t4, t8, equal_nan=True) and np.array_equal(l4, l8, equal_nan=True)
    # the band as the file stores it: its nodata value and infinities are no height, as NaN is
    stored = z.copy()
    holes = np.isnan(stored)
    stored[holes] = np.where(rng.random(int(holes.sum())) < 0.5, -9999.0, np.inf)
    stored[np.flatnonzero(holes)[::7] // z.shape[1], np.flatnonzero(holes)[::7] % z.shape[1]] = -np.inf
    for kernel, grid in ((fk.block_extremes, stored), (fk.block_extremes_f4, stored.astype(np.float32))):
        ts, ls = kernel(grid, f, -9999.0)
        assert np.array_equal(ts, top if grid.dtype == np.float64 else t4, equal_nan=True)
        assert np.array_equal(ls, low if grid.dtype == np.float64 else l4, equal_nan=True)
    hr, hc = -(-50 // f), -(-45 // f)
    assert top.shape == low.shape == (hr, hc)
    for br in range(hr):
        for bc in range(hc):
            block = z[br * f : (br + 1) * f, bc * f : (bc + 1) * f]
            cut = block.shape != (f, f)
            want_low = np.nan if cut or np.isnan(block).any() else block.min()
            want_top = np.nan if np.isnan(block).all() else np.nanmax(block)
            for got, want in ((low[br, bc], want_low), (top[br, bc], want_top)):
                assert got == want or (np.isnan(want) and np.isnan(got))
    assert np.isnan(top[0, 0]) and np.isnan(low[0, 0])


def test_receivers_follow_the_codes_and_stop_at_the_edge():
    # codes 1..8 = E, SE, S, SW, W, NW, N, NE (row down = south); 0 drains out, 255 is nodata
    d = np.full((4, 5), 3, dtype=np.uint8)  # south everywhere
    d[1, 1], d[1, 2], d[2, 3], d[2, 0], d[0, 4] = (
        1,
        6,
        0,
        255,
        8,
    )  # east, north-west, out, nodata, NE off-grid
    rr, cc, has = h.receivers(d)
    assert (rr[1, 1], cc[1, 1]) == (1, 2) and (rr[1, 2], cc[1, 2]) == (0, 1)
    assert (rr[0, 0], cc[0, 0]) == (1, 0) and has[0, 0]
    for r, c in ((2, 3), (2, 0), (0, 4), (3, 2)):  # out, nodata, NE off the top, south off the bottom
        assert (rr[r, c], cc[r, c], has[r, c]) == (r, c, False)
    assert has.sum() == 20 - 3 - 5  # those three and the whole bottom row (south, off the grid) have none


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_window_rings_are_scipys_square_dilation(n):
    # the certified windows grow their masks by shifted ORs: the same cells as scipy's binary_dilation with
    # a 3 x 3 square, n iterations, nothing beyond the grid's edge
    from scipy.ndimage import binary_dilation

    from geosite.hydrology.certify import dilate

    mask = np.random.default_rng(n).random((37, 53)) < 0.03
    mask[0, 5] = mask[-1, -1] = mask[20, 0] = True  # on the edges
    want = binary_dilation(mask, structure=np.ones((3, 3), bool), iterations=n) if n else mask
    got = dilate(mask, n)
    assert got.dtype == bool and (got == want).all() and got is not mask


def test_cells_box_bounds_the_cells_and_clips_its_ring_to_the_grid():
    from geosite.grid import cells_box

    cells = np.zeros((6, 8), bool)
    assert cells_box(cells) is None and cells_box(cells, 2) is None
    cells[1, 2] = cells[3, 6] = True
    assert cells_box(cells) == (slice(1, 4), slice(2, 7))
    assert cells_box(cells, 1) == (slice(0, 5), slice(1, 8))
    assert cells_box(cells, 3) == (slice(0, 6), slice(0, 8))  # the ring stops at the grid's edges


def test_entry_lengths_are_the_longest_path_into_each_entry():
    # a hand-made trace: entries 0 and 1; 2, 3 drain into 0; 4 into 3; 5 into 1
    from geosite.hydrology import _kernels as fk

    parent = np.array([-1, -1, 0, 0, 3, 1], dtype=np.int64)
    length = np.array([3.0, 4.0, 6.0, 7.5, 10.5, 8.0])
    assert fk.entry_lengths(parent, length).tolist() == [10.5, 8.0]
    assert fk.entry_lengths(np.empty(0, np.int64), np.empty(0)).size == 0


def test_lowest_fill_by_seed_groups_the_checked_cells_by_their_seed():
    from geosite.hydrology.certify import lowest_fill_by_seed

    label = np.array([[5, 5, 2], [2, 7, 7]], dtype=np.int64)
    filled = np.array([[3.0, 1.0, 4.0], [2.5, np.nan, 9.0]])
    check = np.array([[True, True, True], [True, True, False]])
    seeds, bounds = lowest_fill_by_seed(label, filled, check)
    assert seeds.tolist() == [2, 5]  # 7: its only checked cell is nodata
    assert bounds.tolist() == [2.5, 1.0]


def test_each_checked_cell_relies_on_the_outlet_its_d8_path_leaves_by():
    # codes: 1 east, 3 south, 0 drains out. Row 0 runs east to its outlet (0, 3); rows 1-2 run south
    # to the outlets of the bottom row; the checked cells' lowest filled height by outlet
    from geosite.hydrology import _kernels as fk

    dirs = np.array([[1, 1, 1, 0], [3, 3, 3, 3], [0, 0, 0, 0]], dtype=np.uint8)
    filled = np.array([[9.0, 8.0, 7.0, 6.0], [5.0, 4.0, np.nan, 3.0], [2.0, 2.0, 2.0, 1.0]])
    check = np.array([[True, True, False, False], [True, True, True, False], [False, False, False, False]])
    seeds, bounds = fk.outlets_relied_on(dirs, filled, check)
    assert seeds.tolist() == [3, 8, 9]  # (0, 3), (2, 0), (2, 1); the nodata cell relies on nothing
    assert bounds.tolist() == [8.0, 5.0, 4.0]
