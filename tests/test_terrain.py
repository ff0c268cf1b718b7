"""geosite.terrain against closed forms (planes, cones, a paraboloid, a terraced slope) and against GDAL
(``gdaldem slope -p -compute_edges``, ``gdaldem hillshade -compute_edges``) on real LiDAR DEMs.

Every expected number here can be checked by hand: a plane of grade g has slope 100 g everywhere; a
paraboloid z = k r^2 has slope 200 k r percent, so it is steeper than s percent outside the circle of
radius s / (200 k); a plane of grade g has contours every interval / g feet.
"""

from __future__ import annotations

import itertools
import math
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import rasterio
import shapely
from affine import Affine

from geosite import terrain
from geosite.errors import CRSError, InputError
from geosite.grid import Dem
from geosite.io.raster import read_dem
from geosite.testing import CRS_M, CRS_US_FT, cell_centres, cone, inclined_plane, rolling_terrain
from geosite.units import METRES_PER_FOOT, METRES_PER_US_SURVEY_FOOT

GDALDEM = shutil.which("gdaldem")
needs_gdal = pytest.mark.skipif(GDALDEM is None, reason="gdaldem is not on PATH")
CORNERS = ([0, 0, -1, -1], [0, -1, 0, -1])
UNITS = [(crs, vu) for crs in (CRS_US_FT, CRS_M) for vu in ("us_ft", "ft", "m")]


# ----------------------------------------------------------------------------------------- helpers


def _write_tif(path: Path, z: np.ndarray, transform: Affine, crs: object, nodata: float = -9999.0) -> Path:
    arr = np.where(np.isnan(z), nodata, z).astype("float32")
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        width=z.shape[1],
        height=z.shape[0],
        count=1,
        dtype="float32",
        crs=crs,
        transform=transform,
        nodata=nodata,
    ) as ds:
        ds.write(arr, 1)
    return path


def _gdaldem(mode: str, src: Path, dst: Path, *args: str) -> np.ndarray:
    subprocess.run([GDALDEM, mode, "-q", "-compute_edges", *args, str(src), str(dst)], check=True)
    with rasterio.open(dst) as ds:
        out = ds.read(1, masked=True)
    return out.filled(np.nan) if out.dtype.kind == "f" else out.data


def _paraboloid(k: float, n: int = 201, cell: float = 2.0) -> Dem:
    """z = 900 + k r^2 (ft) about the centre of an n x n grid of ``cell``-ft cells, US-ft CRS."""
    t = Affine(cell, 0, 500_000.0, 0, -cell, 200_000.0)
    x, y = cell_centres((n, n), t)
    r2 = (x - (t.c + n / 2 * cell)) ** 2 + (y - (t.f - n / 2 * cell)) ** 2
    return Dem.from_array(900.0 + k * r2, t, CRS_US_FT, "us_ft", source="paraboloid")


def _terraced(cols: int = 40, cell: float = 2.0) -> Dem:
    """Falls south: 6 % between rows 0-60, 16 % between rows 60-120, 26 % between rows 120-200.

    Horn's slope on row i is the mean of the grades either side: rows 0-59 6 %, row 60 11 %,
    rows 61-119 16 %, row 120 21 %, rows 121-199 26 %."""
    grade = np.where(np.arange(199) < 60, 0.06, np.where(np.arange(199) < 120, 0.16, 0.26))
    z = 900.0 - np.concatenate([[0.0], np.cumsum(grade * cell)])
    t = Affine(cell, 0, 500_000.0, 0, -cell, 200_000.0)
    return Dem.from_array(np.repeat(z[:, None], cols, axis=1), t, CRS_US_FT, "us_ft", source="terraced")


# ------------------------------------------------------------------------------------------- slope


@pytest.mark.parametrize(("crs", "vu"), UNITS)
@pytest.mark.parametrize("azimuth", [180.0, 30.0])
def test_plane_is_15_pct_on_every_cell_in_every_unit(crs: str, vu: str, azimuth: float) -> None:
    dem = inclined_plane(15.0, shape=(40, 50), cell=2.0, crs=crs, vertical_unit=vu, azimuth_deg=azimuth)
    s = terrain.slope_pct(dem)
    assert s.shape == dem.shape and s.dtype == np.float64
    np.testing.assert_allclose(s, 15.0, atol=1e-9)  # edges and corners too (linear extrapolation)


def test_cone_sides_are_15_pct_away_from_the_apex() -> None:
    dem = cone(15.0, shape=(201, 201), cell=2.0)
    s = terrain.slope_pct(dem)
    x, y = cell_centres(dem.shape, dem.transform)
    r_cells = np.hypot(x - (dem.transform.c + 201.0), y - (dem.transform.f - 201.0)) / 2.0
    # Horn's 3x3 window smooths the apex; the error falls as 1/r (0.13 at 5 cells, 0.04 at 10 cells)
    assert np.abs(s[r_cells > 5] - 15.0).max() < 0.15
    assert np.abs(s[r_cells > 10] - 15.0).max() < 0.04


def test_nodata_cells_have_no_slope_and_neighbours_use_the_centre_height() -> None:
    z = np.array([[10.0, 10.0, 10.0], [10.0, 10.0, 10.0], [np.nan, 4.0, 4.0]])
    dem = Dem.from_array(z, Affine(1, 0, 0, 0, -1, 3), CRS_US_FT, "us_ft")
    s = terrain.slope_pct(dem)
    assert np.isnan(s[2, 0])
    # centre (1,1): the missing SW neighbour takes the centre's 10 ft. ns = (10+20+10) - (10+8+4) = 18,
    # ew = (10+20+4) - (10+20+10) = -6; slope = 100 * hypot(18, -6) / 8 = 237.17 %
    assert s[1, 1] == pytest.approx(100 * math.hypot(18, 6) / 8)


def test_one_row_dem_gets_a_slope_along_the_row() -> None:
    dem = Dem.from_array(np.array([[0.0, 1.0, 2.0, 3.0]]), Affine(10, 0, 0, 0, -10, 10), CRS_US_FT, "us_ft")
    np.testing.assert_allclose(terrain.slope_pct(dem), 10.0)


@needs_gdal
@pytest.mark.parametrize("name", ["minnesota_1m/dem.tif", "virginia_2m/dtm.tif"])
def test_slope_and_hillshade_match_gdaldem_on_real_dems(real_dems: Path, tmp_path: Path, name: str) -> None:
    src = real_dems / name
    dem = read_dem(src, "m")
    ours = terrain.slope_pct(dem)
    theirs = _gdaldem("slope", src, tmp_path / "slope.tif", "-p")
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))  # the same cells have no slope
    diff = np.abs(ours - theirs)
    diff[CORNERS] = 0.0  # GDAL's corner cells reuse the corner column (see the module docstring)
    assert np.nanmax(diff[1:-1, 1:-1]) < 0.01  # interior, percentage points (measured: 0.0043)
    assert np.nanmax(diff) < 0.01  # edges too
    shade = terrain.hillshade(dem)
    gshade = _gdaldem("hillshade", src, tmp_path / "shade.tif")
    d = np.abs(shade.astype(int) - gshade.astype(int))
    d[CORNERS] = 0
    assert d.max() <= 1  # GDAL rounds an approximate 1/sqrt; one grey level at most


@needs_gdal
@pytest.mark.parametrize(
    ("crs", "vu", "scale"),
    [
        (CRS_US_FT, "m", METRES_PER_US_SURVEY_FOOT),
        (CRS_M, "ft", 1 / METRES_PER_FOOT),
        (CRS_US_FT, "us_ft", 1.0),
    ],
)
def test_slope_matches_gdaldem_with_scale_when_units_differ(
    tmp_path: Path, crs: str, vu: str, scale: float
) -> None:
    dem = rolling_terrain((90, 110), cell=3.0, crs=crs, vertical_unit=vu, relief_ft=15.0, seed=3)
    # the file holds heights in the DEM's own vertical unit; gdaldem -s converts its horizontal unit
    foot_m = METRES_PER_US_SURVEY_FOOT if crs == CRS_US_FT else METRES_PER_FOOT
    native = (
        dem.elevation_ft * foot_m / {"m": 1.0, "ft": METRES_PER_FOOT, "us_ft": METRES_PER_US_SURVEY_FOOT}[vu]
    )
    src = _write_tif(tmp_path / "dem.tif", native, dem.transform, crs)
    theirs = _gdaldem("slope", src, tmp_path / "slope.tif", "-p", "-s", repr(scale))
    ours = terrain.slope_pct(dem)
    assert np.abs(ours - theirs)[1:-1, 1:-1].max() < 0.1
    assert 2.0 < np.median(ours) < 40.0  # hilly: a wrong unit factor (3.28x) would break the match


@needs_gdal
def test_nodata_holes_follow_gdal_compute_edges(tmp_path: Path) -> None:
    dem = rolling_terrain((60, 70), cell=2.0, relief_ft=30.0, seed=5)
    z = dem.elevation_ft.copy()
    z[20:25, 30:33] = np.nan
    z[0, 5] = np.nan
    z[40, 0] = np.nan
    holey = Dem.from_array(z, dem.transform, CRS_US_FT, "us_ft")
    theirs = _gdaldem(
        "slope", _write_tif(tmp_path / "h.tif", z, dem.transform, CRS_US_FT), tmp_path / "s.tif", "-p"
    )
    ours = terrain.slope_pct(holey)
    assert np.array_equal(np.isnan(ours), np.isnan(z))
    diff = np.abs(ours - theirs)
    diff[CORNERS] = 0
    assert np.nanmax(diff) < 0.01


def test_hillshade_hand_values() -> None:
    flat = inclined_plane(0.0, shape=(5, 5))
    assert (terrain.hillshade(flat) == 181).all()  # 1 + 254 sin(45 deg) = 180.6
    facing = inclined_plane(100.0, shape=(5, 5), azimuth_deg=315.0)  # 45 deg face, normal at the sun
    assert (terrain.hillshade(facing) == 255).all()
    away = inclined_plane(100.0, shape=(5, 5), azimuth_deg=135.0)  # sun grazes it: cos = 0 -> 1
    assert (terrain.hillshade(away) == 1).all()


# ------------------------------------------------------------------------------------ steep slopes


def test_terraced_slope_bands_have_hand_counted_areas() -> None:
    dem = _terraced()
    gdf = terrain.steep_slope_polygons(dem, threshold_pct=(12.0, 20.0), min_area_sqft=500.0)
    assert set(gdf["class"]) == {"12-20%", ">=20%"}
    assert gdf.crs.equals(dem.crs)
    by_class = gdf.groupby("class")["area_sqft"].sum()
    assert by_class["12-20%"] == pytest.approx(59 * 40 * 4.0)  # rows 61-119
    assert by_class[">=20%"] == pytest.approx(80 * 40 * 4.0)  # rows 120-199
    assert np.allclose(gdf.geometry.area * dem.ft_per_unit**2, gdf["area_sqft"])
    single = terrain.steep_slope_polygons(dem, threshold_pct=12.0, min_area_sqft=500.0)
    assert list(single["class"]) == [">=12%"] and single["area_sqft"].iloc[0] == pytest.approx(139 * 160.0)


def test_steep_area_of_a_paraboloid_matches_the_closed_form() -> None:
    dem = _paraboloid(0.001)  # slope 0.2 r %, so 12 % at r = 60 ft, 20 % at r = 100 ft
    square = (201 * 2.0) ** 2
    assert terrain.steep_area_sqft(dem, threshold_pct=12.0) == pytest.approx(
        square - math.pi * 60**2, rel=0.01
    )
    band = terrain.steep_area_sqft(dem, threshold_pct=12.0, below_pct=20.0)
    assert band == pytest.approx(math.pi * (100**2 - 60**2), rel=0.01)
    # over a site polygon: a 150-ft-radius disc round the centre holds the ring 60 ft < r < 150 ft
    cx, cy = dem.transform.c + 201.0, dem.transform.f - 201.0
    site = shapely.Point(cx, cy).buffer(150.0, quad_segs=64)
    assert terrain.steep_area_sqft(dem, site, threshold_pct=12.0) == pytest.approx(
        site.area - math.pi * 60**2, rel=0.01
    )


def test_cone_of_15_pct_is_steep_everywhere() -> None:
    dem = cone(15.0, shape=(101, 101), cell=2.0)
    assert terrain.steep_area_sqft(dem, threshold_pct=12.0) == pytest.approx(101 * 101 * 4.0, rel=0.01)
    site = shapely.box(500_020.0, 199_830.0, 500_170.0, 199_990.0)  # cuts through cells
    assert terrain.steep_area_sqft(dem, site, threshold_pct=12.0) == pytest.approx(150 * 160, rel=0.01)
    gdf = terrain.steep_slope_polygons(dem, threshold_pct=12.0, min_area_sqft=500.0)
    assert len(gdf) == 1 and gdf["area_sqft"].iloc[0] == pytest.approx(101 * 101 * 4.0, rel=0.01)


def test_minimum_mapping_unit_drops_specks_and_fills_small_holes() -> None:
    dem = _paraboloid(0.001)  # the gentle centre (< 12 %) is a hole of pi 60^2 = 11,310 sq ft
    kept = terrain.steep_slope_polygons(dem, min_area_sqft=5_000.0, threshold_pct=12.0)
    assert len(kept) == 1 and len(kept.geometry.iloc[0].interiors) == 1
    filled = terrain.steep_slope_polygons(dem, min_area_sqft=12_000.0, threshold_pct=12.0)
    assert len(filled) == 1 and len(filled.geometry.iloc[0].interiors) == 0
    assert filled["area_sqft"].iloc[0] == pytest.approx((201 * 2.0) ** 2)
    # a 10 % plane with three 1-ft bumps: each makes a ring of 8 steep cells (32 sq ft)
    plane = inclined_plane(10.0, shape=(60, 60), cell=2.0)
    z = plane.elevation_ft.copy()
    z[10, 10] += 1.0
    z[30, 40] += 1.0
    z[50, 20] += 1.0
    bumpy = Dem.from_array(z, plane.transform, CRS_US_FT, "us_ft")
    assert len(terrain.steep_slope_polygons(bumpy, min_area_sqft=0.0, threshold_pct=12.0)) == 3
    assert (
        len(terrain.steep_slope_polygons(bumpy, threshold_pct=12.0, min_area_sqft=500.0)) == 0
    )  # Grantsburg's 500 sq ft


def test_area_in_another_crs_is_refused() -> None:
    import geopandas as gpd

    dem = cone(15.0, shape=(21, 21))
    site = gpd.GeoSeries([shapely.box(0, 0, 1, 1)], crs="EPSG:4326")
    with pytest.raises(CRSError, match="reproject"):
        terrain.steep_area_sqft(dem, site, threshold_pct=12.0)


# ---------------------------------------------------------------------------------------- contours


@pytest.mark.parametrize(("crs", "vu"), [(CRS_US_FT, "us_ft"), (CRS_M, "m")])
@pytest.mark.parametrize("smooth", [True, False])
def test_plane_contours_are_straight_at_the_right_spacing(crs: str, vu: str, smooth: bool) -> None:
    # 4 % grade falling south, 600 columns (three contour tiles wide): 1 ft contours every 25 ft
    dem = inclined_plane(
        4.0, shape=(120, 600), cell=2.0 if crs == CRS_US_FT else 0.6, crs=crs, vertical_unit=vu
    )
    gdf = terrain.contours(dem, interval_ft=1.0, smooth=smooth, index_every=5)
    assert gdf.crs.equals(dem.crs) and (gdf.geom_type == "LineString").all()
    assert gdf["elevation_ft"].is_unique  # one line per level: the tiles were stitched back together
    t = dem.transform
    width = 599 * t.a
    for geom, elev in zip(gdf.geometry, gdf["elevation_ft"], strict=True):
        xy = shapely.get_coordinates(geom)
        expected_y = t.f - (900.0 - elev) / 0.04 / dem.ft_per_unit
        np.testing.assert_allclose(xy[:, 1], expected_y, atol=1e-6)
        assert xy[:, 0].max() - xy[:, 0].min() == pytest.approx(width)
    ys = np.sort([shapely.get_coordinates(g)[0, 1] for g in gdf.geometry])
    np.testing.assert_allclose(np.diff(ys) * dem.ft_per_unit, 25.0, rtol=1e-6)


@pytest.mark.parametrize("smooth", [True, False])
def test_oblique_plane_contours_are_stitched_across_bands(
    monkeypatch: pytest.MonkeyPatch, smooth: bool
) -> None:
    # bands of 37 rows (seams at rows 37, 74, ...): every contour of the plane crosses dozens of seams
    # and must come out whole, one line per level, its ends on the grid's edge
    import geosite.terrain.contour as contour_module

    monkeypatch.setattr(contour_module, "_BAND_CELLS", 37 * 1024)
    monkeypatch.setattr(contour_module, "_MIN_BAND_ROWS", 2)
    dem = inclined_plane(8.0, shape=(1500, 1024), cell=3.0, azimuth_deg=160.0)
    gdf = terrain.contours(dem, interval_ft=5.0, smooth=smooth, index_every=5)
    lo, hi = float(dem.elevation_ft.min()), float(dem.elevation_ft.max())
    assert list(gdf["elevation_ft"]) == list(np.arange(np.ceil(lo / 5) * 5, hi, 5.0))
    t = dem.transform
    ends = np.array([geom.coords[i] for geom in gdf.geometry for i in (0, -1)])
    col, row = ((ends[:, 0] - t.c) / t.a - 0.5), ((ends[:, 1] - t.f) / t.e - 0.5)
    assert (np.isclose(col, 0) | np.isclose(col, 1023) | np.isclose(row, 0) | np.isclose(row, 1499)).all()


def _segments(lines: list[np.ndarray]) -> set:
    """The undirected segments of polylines, vertices rounded to 1e-7 (a zero-length one dropped)."""
    out = set()
    for p in lines:
        p = np.round(p, 7)
        out |= {frozenset((tuple(a), tuple(b))) for a, b in itertools.pairwise(p) if tuple(a) != tuple(b)}
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_tracer_draws_contourpys_segments(seed: int) -> None:
    # the one-pass tracer against contourpy (serial, corner mask, one level at a time) on random
    # grids: integer heights put corners exactly on levels, holes make corner triangles and boundaries
    import contourpy

    from geosite.terrain import _contour_kernels as ck

    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(2, 40, size=2))
    z = rng.normal(size=(h, w)).cumsum(0).cumsum(1) * rng.uniform(0.2, 3.0)
    if seed % 3 == 0:
        z = np.round(z)
    if seed % 2 == 0:
        z[rng.random((h, w)) < rng.uniform(0.0, 0.3)] = np.nan
    iv = float(rng.choice([0.5, 1.0, 2.5]))
    xy, offs, ks = ck.contour_band(np.ascontiguousarray(z), iv)
    assert np.all(np.diff(ks) >= 0)
    x, y = np.meshgrid(np.arange(w, dtype=float), np.arange(h, dtype=float))
    gen = contourpy.contour_generator(
        x, y, np.ma.masked_invalid(z), name="serial", corner_mask=True, line_type="Separate"
    )
    for k in range(int(np.floor(np.nanmin(z) / iv)) - 1, int(np.ceil(np.nanmax(z) / iv)) + 2):
        ours = [xy[offs[i] : offs[i + 1]] for i in np.flatnonzero(ks == k)]
        theirs = gen.lines(k * iv)
        assert len(ours) == len(theirs), k
        assert _segments(ours) == _segments(theirs), k


def test_contours_end_only_on_the_grid_edge() -> None:
    # on a DEM with no nodata an open contour can only end on the grid's edge, never on a tile seam
    dem = rolling_terrain((400, 400), cell=3.0, relief_ft=40.0, seed=2)
    gdf = terrain.contours(dem, interval_ft=1.0, smooth=False, index_every=5)
    t = dem.transform
    ends = np.array([shapely.get_coordinates(g)[[0, -1]] for g in gdf.geometry if not g.is_ring]).reshape(
        -1, 2
    )
    col = (ends[:, 0] - t.c) / t.a - 0.5
    row = (ends[:, 1] - t.f) / t.e - 0.5
    on_edge = np.isclose(col, 0) | np.isclose(col, 399) | np.isclose(row, 0) | np.isclose(row, 399)
    assert len(ends) > 20 and on_edge.all()


def test_every_fifth_contour_is_an_index_contour() -> None:
    dem = inclined_plane(10.0, shape=(300, 20), cell=2.0)  # 900 ft down to 840.3 ft
    gdf = terrain.contours(dem, interval_ft=2.0, index_every=5)
    assert list(gdf["elevation_ft"]) == list(np.arange(842.0, 900.0, 2.0))
    assert list(gdf.loc[gdf["index"], "elevation_ft"]) == [850.0, 860.0, 870.0, 880.0, 890.0]


def _assert_no_crossings(gdf: object) -> None:
    geoms = np.asarray(gdf.geometry)  # type: ignore[attr-defined]
    tree = shapely.STRtree(geoms)
    i, j = tree.query(geoms, predicate="intersects")
    assert not np.any(i < j), f"{np.count_nonzero(i < j)} pairs of contours intersect"


def test_cone_contours_are_closed_circles_that_do_not_cross() -> None:
    dem = cone(15.0, shape=(601, 601), cell=2.0)  # three tiles a side
    gdf = terrain.contours(dem, interval_ft=5.0, index_every=5)
    _assert_no_crossings(gdf)
    cx, cy = dem.transform.c + 601.0, dem.transform.f - 601.0
    inside = gdf[gdf["elevation_ft"] >= 960.0]  # radius (1000 - elev) / 0.15 <= 267 ft < 601 ft
    assert inside["elevation_ft"].is_unique and inside.geometry.is_ring.all()
    for geom, elev in zip(inside.geometry, inside["elevation_ft"], strict=True):
        r = np.hypot(*(shapely.get_coordinates(geom) - (cx, cy)).T)
        assert np.abs(r - (1000.0 - elev) / 0.15).max() < 0.5


def test_real_dem_contours_skip_nodata_and_never_cross(real_dems: Path) -> None:
    dem = read_dem(real_dems / "virginia_2m" / "dtm.tif", "m")
    for smooth in (False, True):
        gdf = terrain.contours(dem, interval_ft=1.0, smooth=smooth, index_every=5)
        assert len(gdf) > 50
        _assert_no_crossings(gdf)
    # no vertex inside a nodata cell's square, shrunk by half a cell (contours stop at the hole)
    rows, cols = np.nonzero(np.isnan(dem.elevation_ft))
    t = dem.transform
    holes = shapely.union_all(
        shapely.box(
            t.c + (cols + 0.25) * t.a,
            t.f + (rows + 0.75) * t.e,
            t.c + (cols + 0.75) * t.a,
            t.f + (rows + 0.25) * t.e,
        )
    )
    assert not shapely.intersects(shapely.multipoints(shapely.get_coordinates(gdf.geometry.values)), holes)


def test_rough_real_dem_contours_never_cross(real_dems: Path) -> None:
    dem = read_dem(real_dems / "minnesota_1m" / "dem.tif", "m")
    gdf = terrain.contours(dem, interval_ft=2.0, smooth=False, index_every=5)
    _assert_no_crossings(gdf)
    assert set(gdf.loc[gdf["index"], "elevation_ft"] % 10.0) == {0.0}


def test_smoothing_keeps_a_plane_and_nodata() -> None:
    dem = inclined_plane(7.0, shape=(30, 40), azimuth_deg=60.0)
    np.testing.assert_allclose(terrain.smooth_elevation(dem, 3), dem.elevation_ft, atol=1e-9)
    z = dem.elevation_ft.copy()
    z[5:8, 5:8] = np.nan
    sm = terrain.smooth_elevation(Dem.from_array(z, dem.transform, CRS_US_FT, "us_ft"))
    assert np.array_equal(np.isnan(sm), np.isnan(z))


# ------------------------------------------------------------------------------------------- import


def test_import_compiles_nothing() -> None:
    code = "import sys, geosite.terrain; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_dem_with_no_heights_gives_empty_results() -> None:
    dem = Dem.from_array(np.full((10, 12), np.nan), Affine(2, 0, 0, 0, -2, 20), CRS_US_FT, "us_ft")
    assert np.isnan(terrain.slope_pct(dem)).all()
    assert (terrain.hillshade(dem) == 0).all()
    assert len(terrain.contours(dem, interval_ft=5.0, index_every=5)) == 0
    steep = terrain.steep_slope_polygons(dem, threshold_pct=(12, 20), min_area_sqft=500.0)
    assert len(steep) == 0 and list(steep.columns) == ["class", "min_slope_pct", "area_sqft", "geometry"]
    assert terrain.steep_area_sqft(dem, shapely.box(0, 0, 10, 10), threshold_pct=12.0) == 0.0


@pytest.mark.parametrize("bad", [3.4028235e38, 2.0e6])
def test_heights_no_terrain_has_are_refused_not_traced(bad: float) -> None:
    # float32's largest value left in as an undeclared nodata, or heights a million feet too high: more
    # contour levels than any terrain needs (2e6 ft at 5 ft: 400,000 > 100,000), an InputError naming
    # the DEM and what to check, not an attempt to allocate them
    dem = inclined_plane(5.0, shape=(50, 50))
    z = dem.elevation_ft.copy()
    z[10, 10] = bad
    bad_dem = Dem(z, dem.transform, dem.crs, dem.ft_per_unit, dem.vertical_unit, "spiky.tif")
    with pytest.raises(InputError, match=r"DEM spiky\.tif: heights from .* check the DEM's nodata value"):
        terrain.contours(bad_dem, interval_ft=5.0, index_every=5)
    assert len(terrain.contours(dem, interval_ft=0.5, index_every=5)) > 0  # the same DEM without it traces


def test_an_infinite_height_is_no_height() -> None:
    # as read_dem has it: the contours of a plane with an infinite cell are those of the plane with a
    # hole there, not none at all
    dem = inclined_plane(5.0, shape=(60, 60), cell=2.0)
    z_inf, z_nan = dem.elevation_ft.copy(), dem.elevation_ft.copy()
    z_inf[30, 30], z_nan[30, 30] = np.inf, np.nan
    a = terrain.contours(
        Dem(z_inf, dem.transform, dem.crs, dem.ft_per_unit, dem.vertical_unit), interval_ft=0.5, index_every=5
    )
    b = terrain.contours(
        Dem(z_nan, dem.transform, dem.crs, dem.ft_per_unit, dem.vertical_unit), interval_ft=0.5, index_every=5
    )
    assert len(a) == len(b) > 5 and all(g1.equals(g2) for g1, g2 in zip(a.geometry, b.geometry, strict=True))


def test_a_dem_without_heights_has_no_contours() -> None:
    dem = inclined_plane(5.0, shape=(20, 20))
    empty = Dem(np.full(dem.shape, np.nan), dem.transform, dem.crs, dem.ft_per_unit, dem.vertical_unit)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and says nothing about it
        assert len(terrain.contours(empty, interval_ft=5.0, index_every=5)) == 0
