"""The analyze pipeline on DEMs with closed-form slopes: A(7) and B(6)(d) on both sides of 12 %,
in each combination of horizontal and vertical units."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from shapely.geometry import box
from sitebuilder import make_site, rect, write_dem

import geosite
from geosite.testing import CRS_M, ORIGIN, inclined_plane


def analyze(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return geosite.analyze(geosite.load_site(folder)).report


@pytest.mark.parametrize("vertical", ["us_ft", "m", "ft"])
@pytest.mark.parametrize(("slope", "steep"), [(11.9, False), (12.0, True), (15.0, True)])
def test_steep_slope_trigger_on_planes(tmp_path, slope, steep, vertical):
    dem = inclined_plane(slope, shape=(500, 500), cell=2.0)
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(300, -700, 300, 200)], "disturbance": [rect(350, -650, 100, 100)]},
        conf={"dem": {"path": "dem.tif", "vertical_unit": vertical}},
    )
    metres_per_unit = {"us_ft": 1200 / 3937, "m": 1.0, "ft": 0.3048}[vertical]
    write_dem(folder / "dem.tif", dem, dtype="float64", vertical_factor=metres_per_unit / (1200 / 3937))
    r = analyze(folder)
    s = r["slopes"]
    assert s["max_slope_pct"] == pytest.approx(slope, abs=1e-6)
    assert s["steep_area_sqft"] == pytest.approx(60_000.0 if steep else 0.0, rel=1e-9)
    assert s["steep_disturbed_area_sqft"] == pytest.approx(10_000.0 if steep else 0.0, rel=1e-9)
    t = next(t for t in r["applicability"]["triggers"] if t["rule"] == "disturbance_on_steep_slopes")
    assert t["met"] is steep and t["citation"] == "A(7)"
    f = next(f for f in r["findings"] if f["rule"] == "steep_slope_controls")
    # B(6)(d): such sites "may require additional or different controls": a flag, never "Required"
    assert f["citation"] == "B(6)(d)" and f["status"] == "info" and f["required"] is False
    assert ("may require" in f["message"]) is steep and "Required" not in f["message"]


def test_metre_dem_on_metre_crs_site_in_us_feet(tmp_path):
    """A UTM (metre) DEM with metre heights under a site drawn in WISCRS US survey feet: 15 % everywhere."""
    dem = inclined_plane(15.0, shape=(400, 400), cell=1.0, crs=CRS_M, vertical_unit="m")
    x0, y0 = ORIGIN[CRS_M]
    import geopandas as gpd

    site_m = gpd.GeoDataFrame(geometry=[box(x0 + 100, y0 - 300, x0 + 250, y0 - 150)], crs=CRS_M).to_crs(
        "EPSG:7593"
    )
    folder = make_site(
        tmp_path / "s", {"site_boundary": site_m}, conf={"dem": {"path": "dem.tif", "vertical_unit": "m"}}
    )
    write_dem(folder / "dem.tif", dem, dtype="float64", vertical_factor=1 / 0.3048 * 1.0)
    r = analyze(folder)
    assert r["slopes"]["max_slope_pct"] == pytest.approx(15.0, abs=1e-6)
    assert r["slopes"]["mean_slope_pct"] == pytest.approx(15.0, abs=1e-6)
    # 150 m x 150 m = 22,500 m² on the UTM grid; WISCRS and UTM scale distances differently here
    # (UTM's 0.9996 factor and distance from its central meridian), about 0.1 % apart
    assert r["site"]["area_sqft"] == pytest.approx(22_500 / (1200 / 3937) ** 2, rel=2e-3)
    assert r["slopes"]["steep_area_sqft"] == pytest.approx(22_500 / 0.3048**2, rel=2e-3)


def test_contours_layer_at_five_feet(tmp_path):
    dem = inclined_plane(10.0, shape=(500, 500), cell=2.0)
    folder = make_site(tmp_path / "s", {"site_boundary": [rect(300, -700, 300, 200)]}, dem=dem)
    import pyogrio

    from geosite.pipeline import analyze as run
    from geosite.pipeline import write_outputs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run(geosite.load_site(folder))
    write_outputs(res, tmp_path / "out")
    c = pyogrio.read_dataframe(tmp_path / "out" / "derived.gpkg", layer="contours")
    assert np.allclose(c["elevation_ft"] % 5.0, 0.0)
    assert set(c.loc[c["index"].astype(bool), "elevation_ft"] % 25.0) == {0.0}
    # on a 10 % plane contours 5 ft apart are 50 ft apart horizontally
    ys = sorted({round(g.centroid.y, 3) for g in c.geometry})
    assert np.allclose(np.diff(ys), 50.0, atol=0.01)


def test_dem_crop_keeps_georeferencing():
    dem = inclined_plane(10.0, shape=(100, 80), cell=2.0)
    left, top = dem.transform.c, dem.transform.f
    sub, (rows, cols) = dem.crop((left + 10.0, top - 60.0, left + 31.0, top - 20.0))
    assert (rows.start, rows.stop, cols.start, cols.stop) == (10, 30, 5, 16)
    assert sub.transform.c == left + 10.0 and sub.transform.f == top - 20.0
    assert np.shares_memory(sub.elevation_ft, dem.elevation_ft)
    assert np.array_equal(sub.elevation_ft, dem.elevation_ft[10:30, 5:16])
    # a crop beyond the grid is clipped to it
    whole, _ = dem.crop((left - 100, top - 1000, left + 1000, top + 100))
    assert whole.shape == dem.shape


# A(4): the larger of the declared and the measured volume decides (a declared 100 cu yd does not hide 463 +
# 93 measured)
@pytest.mark.parametrize(
    ("raise_ft", "declared", "met"),
    [(2.0, None, True), (0.5, None, False), (2.0, 100.0, True), (0.5, 500.0, True), (0.5, 300.0, False)],
)
def test_cut_and_fill_from_a_proposed_grade(tmp_path, raise_ft, declared, met):
    # existing: a 5 % plane; proposed: the same with a 100 x 100 ft pad raised `raise_ft` and a 50 x 50 ft
    # cut 1 ft. Fill = 100 x 100 x raise / 27 cu yd, cut = 50 x 50 x 1 / 27 = 92.6 cu yd.
    from sitebuilder import write_dem

    from geosite.grid import Dem
    from geosite.testing import cell_centres

    dem = inclined_plane(5.0, shape=(500, 500), cell=2.0)
    x, y = cell_centres(dem.shape, dem.transform)
    x0, y0 = dem.transform.c, dem.transform.f
    z = dem.elevation_ft.copy()
    z[(x > x0 + 400) & (x < x0 + 500) & (y < y0 - 500) & (y > y0 - 600)] += raise_ft
    z[(x > x0 + 520) & (x < x0 + 570) & (y < y0 - 500) & (y > y0 - 550)] -= 1.0
    project = {"cut_cy": declared} if declared is not None else {}
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(300, -700, 400, 300)], "disturbance": [rect(390, -610, 200, 120)]},
        conf={
            "dem": {"path": "dem.tif", "vertical_unit": "us_ft", "proposed": "proposed.tif"},
            "project": project,
        },
    )
    write_dem(folder / "dem.tif", dem, dtype="float64")
    write_dem(folder / "proposed.tif", Dem.from_array(z, dem.transform, dem.crs, "us_ft"), dtype="float64")
    r = analyze(folder)
    e = r["earthwork"]
    assert e["fill_cy"] == pytest.approx(100 * 100 * raise_ft / 27, rel=1e-9)
    assert e["cut_cy"] == pytest.approx(50 * 50 / 27, rel=1e-9)
    t = next(t for t in r["applicability"]["triggers"] if t["rule"] == "cut_and_fill_volume")
    assert t["met"] is met
    measured = e["cut_cy"] + e["fill_cy"]
    assert e["decides_a4"] == ("measured" if declared is None or measured > declared else "declared")


def test_a_steep_strip_reaching_into_the_site_keeps_its_whole_size(tmp_path):
    # a ridge one cell wide and 3 ft high makes a steep strip on each side of it (Horn slope 75 %):
    # it runs 250 cells north of the site and 3 rows into it, about 1,000 sq ft each, over the 500 sq
    # ft minimum area, so their part in the site counts, as on an unbounded DEM. The patches are
    # cleaned on the site's box widened by the minimum area's cells (127 of 2 ft cells here): cut any
    # closer to the site, the strips would be under 500 sq ft there and dropped.
    from geosite import terrain
    from geosite.grid import rasterize

    dem = inclined_plane(5.0, shape=(700, 500), cell=2.0)
    site_poly = rect(300, -1000, 300, 200)
    cells = rasterize(site_poly, dem.shape, dem.transform)
    r_in, c_in = np.flatnonzero(cells.any(axis=1)), np.flatnonzero(cells.any(axis=0))
    top, col = int(r_in[0]) + 3, int(c_in[50])  # the ridge's last row is the site's third
    assert top - 250 > 0
    z = dem.elevation_ft.copy()
    z[top - 250 : top, col] += 3.0
    dem = type(dem)(z, dem.transform, dem.crs, dem.ft_per_unit, dem.vertical_unit)
    whole = terrain.steep_area_sqft(dem, within=site_poly, threshold_pct=12.0, min_area_sqft=500.0)
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [site_poly], "disturbance": [rect(350, -950, 100, 100)]},
        conf={"dem": {"path": "dem.tif", "vertical_unit": "us_ft"}},
    )
    write_dem(folder / "dem.tif", dem, dtype="float64")
    got = analyze(folder)["slopes"]["steep_area_sqft"]
    assert whole > 0 and got == pytest.approx(whole, rel=1e-12)
    assert 6 * 4.0 <= got <= 12 * 4.0  # two strips, three or four rows each, of 4 sq ft cells
