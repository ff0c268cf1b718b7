"""The DEM window a site is analysed on (geosite.hydrology.window) gives the whole DEM's answer: the same
report and layers as routing the whole DEM (the reference: every earlier release did that), on terrain
where the site's drainage is bounded, where the site lies in a closed basin wider than its map margin,
and on rolling terrain with kettles and nodata holes; and the coarse grid's bounds hold cell by cell."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from shapely.geometry import box
from sitebuilder import make_site

import geosite
import geosite.pipeline as pipeline
from geosite.grid import Dem
from geosite.hydrology import _kernels as fk
from geosite.hydrology.window import CoarseOutlets
from geosite.io.raster import read_dem
from geosite.testing import cone, rolling_terrain


def _analyses(folder):
    """(windowed, whole-DEM) analyses of the site folder."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        windowed = geosite.analyze(geosite.load_site(folder))
        real = pipeline.read_dem_for
        try:
            pipeline.read_dem_for = lambda site, profile: (site.read_dem(margin_ft=None), None, None)
            whole = geosite.analyze(geosite.load_site(folder))
        finally:
            pipeline.read_dem_for = real
    return windowed, whole


def _same(windowed, whole) -> None:
    rep = dict(windowed.report)
    where = rep.pop("dem_window")
    assert json.dumps(rep, sort_keys=True, default=str) == json.dumps(whole.report, sort_keys=True, default=str)
    assert set(windowed.layers) == set(whole.layers)
    for name, gdf in whole.layers.items():
        other = windowed.layers[name]
        assert len(other) == len(gdf), name
        assert all(a.equals_exact(b, 1e-6) for a, b in zip(other.geometry, gdf.geometry, strict=True)), name
    return where


def _site(folder, dem: Dem, at: tuple[float, float], side_ft: float = 90.0):
    """A square site of ``side_ft`` centred ``at`` (x, y: feet east and south of the DEM's north-west
    corner), disturbed but for a 10-ft rim, with a stockpile."""
    t = dem.transform
    x, y = t.c + at[0], t.f - at[1]
    h = side_ft / 2
    return make_site(folder, {"site_boundary": [box(x - h, y - h, x + h, y + h)],
                              "disturbance": [box(x - h + 10, y - h + 10, x + h - 10, y + h - 10)],
                              "stockpiles": [box(x - 10, y - 10, x + 5, y + 5)]}, dem=dem)


def test_a_site_on_a_hill_is_read_on_a_window_holding_the_summit(tmp_path):
    """On a cone (15 % sides) of 1,800 x 1,800 ft, a site 300 ft south of the summit drains the wedge
    above it up to the summit and no farther: the window holds the summit, is a small part of the
    DEM, and the answer is the whole DEM's."""
    dem = cone(15.0, shape=(600, 600), cell=3.0)
    folder = _site(tmp_path / "cone", dem, (900.0, 1200.0))
    windowed, whole = _analyses(folder)
    where = _same(windowed, whole)
    assert not where["whole"] and where["certified"]
    (r0, r1), (c0, c1) = where["rows"], where["columns"]
    assert r0 <= 299 and r1 > 300 and c0 <= 299 and c1 > 300  # the summit, cell (300, 300)
    assert (r1 - r0) * (c1 - c0) < 0.25 * 600 * 600


def test_a_site_in_a_closed_basin_wider_than_its_margin_takes_the_basin_in(tmp_path):
    """A bowl 800 ft across (rising 5 % from its floor to a rim 20 ft up, the land beyond falling away
    to the DEM's edges): the whole DEM fills it to the rim, so the site inside lies on a filled flat.
    The window must hold the whole bowl, rim included, to give that answer."""
    n, cell = 700, 3.0
    dem0 = cone(5.0, shape=(n, n), cell=cell)
    rim = 400.0
    r_ft = (1000.0 - dem0.elevation_ft) / 0.05  # distance from the centre, ft
    z = np.where(r_ft < rim, 900.0 + 0.05 * r_ft, 900.0 + 0.05 * rim - 0.05 * (r_ft - rim))
    dem = Dem.from_array(z, dem0.transform, dem0.crs, "us_ft")
    folder = _site(tmp_path / "bowl", dem, (n * cell / 2 + 60.0, n * cell / 2 + 30.0))
    windowed, whole = _analyses(folder)
    where = _same(windowed, whole)
    assert not where["whole"] and where["certified"]
    (r0, r1), (c0, c1) = where["rows"], where["columns"]
    rim_cells = rim / cell
    assert r0 <= n / 2 - rim_cells and r1 >= n / 2 + rim_cells
    assert c0 <= n / 2 - rim_cells and c1 >= n / 2 + rim_cells
    up = whole.report["hydrology"]["upslope"][0] if "hydrology" in whole.report else None
    assert up is None or up["area_sqft"] is not None


@pytest.mark.parametrize("seed,at,windowed", [(3, (1350.0, 1350.0), False), (5, (700.0, 2000.0), True),
                                              (8, (2100.0, 600.0), True)])
def test_rolling_terrain_with_kettles_and_holes_same_as_the_whole_dem(tmp_path, seed, at, windowed):
    """Sites whose drainage reaches the DEM's edge (read whole) and sites whose drainage fits a window."""
    dem = rolling_terrain((900, 900), cell=3.0, relief_ft=60.0, kettles=40, seed=seed)
    z = dem.elevation_ft
    rr, cc = np.mgrid[0:900, 0:900]
    z[(rr - 80) ** 2 + (cc - 700) ** 2 <= 15**2] = np.nan  # a nodata hole (a pond surveyed as none)
    folder = _site(tmp_path / f"rolling{seed}", dem, at)
    got, whole = _analyses(folder)
    where = _same(got, whole)
    assert where["whole"] is not windowed and where["certified"]
    # the channels layer and its count are the site's map margin (200 ft), however much DEM was read
    chan = got.layers["channels"]
    margin = got.site.boundary.buffer(200.0 / got.site.ft_per_unit + 1e-6)
    assert len(chan) and chan.geometry.within(margin).all()
    assert got.report["channels"]["segments"] == len(chan)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_coarse_grid_bounds_every_cells_filled_height(tmp_path, dtype):
    """The block grid's upper level is at or above, and its floor at or below, every cell's filled
    height on the whole DEM (nodata holes, a hole on the edge, a block size not dividing the DEM)."""
    dem = rolling_terrain((301, 257), cell=3.0, relief_ft=80.0, kettles=20, seed=11, vertical_unit="m")
    z = dem.elevation_ft
    rr, cc = np.mgrid[0 : z.shape[0], 0 : z.shape[1]]
    for r, c, rad in ((60, 60, 9), (150, 0, 6), (250, 200, 12)):
        z[(rr - r) ** 2 + (cc - c) ** 2 <= rad**2] = np.nan
    from sitebuilder import write_dem

    path = tmp_path / "dem.tif"
    factor = dem.ft_per_vertical_unit
    write_dem(path, dem, dtype=dtype, vertical_factor=factor)
    z = read_dem(path, "m").elevation_ft  # the heights as geosite reads them
    CoarseOutlets.MAX_CELLS, saved = 2_000, CoarseOutlets.MAX_CELLS
    try:
        co = CoarseOutlets.read(path, factor, z.shape)
    finally:
        CoarseOutlets.MAX_CELLS = saved
    assert co.f == 7
    filled = np.empty_like(z)
    fk.priority_flood(np.ascontiguousarray(z), filled, False, np.empty((1, 1), dtype=np.int64))
    level = co.level[rr // co.f, cc // co.f]
    floor = co.floor[rr // co.f, cc // co.f]
    ok = np.isfinite(filled)
    assert (level[ok] >= filled[ok] - 1e-9).all()
    known = ok & np.isfinite(floor)
    assert (floor[known] <= filled[known] + 1e-9).all()
    assert known.mean() > 0.5 and (level[ok] > filled[ok]).any()  # the bounds are bounds, not copies


def test_site_toml_map_margin_sets_the_clip_of_every_layer(tmp_path):
    """site.toml's map_margin_ft (50 ft here, the profile's 200 otherwise) is the margin the contours,
    the steep slopes and the channels are clipped to, as the maps show it."""
    dem = cone(15.0, shape=(400, 400), cell=3.0)
    t = dem.transform
    x, y = t.c + 600.0, t.f - 900.0
    folder = make_site(tmp_path / "m", {"site_boundary": [box(x - 45, y - 45, x + 45, y + 45)],
                                        "disturbance": [box(x - 35, y - 35, x + 35, y + 35)]},
                       conf={"map_margin_ft": 50}, dem=dem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = geosite.analyze(geosite.load_site(folder))
    site = res.site
    assert site.map_margin_ft() == 50.0
    within = site.boundary.buffer(50.0 / site.ft_per_unit + 1e-6)
    wider = site.boundary.buffer(45.0 / site.ft_per_unit)
    for name in ("contours", "steep_slopes"):
        gdf = res.layers[name]
        assert len(gdf) and gdf.geometry.within(within).all(), name
        assert not gdf.geometry.within(wider).all(), name  # they do reach past 45 ft: the clip is 50
