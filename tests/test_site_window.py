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
from geosite.testing import cone, inclined_plane, rolling_terrain


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
    assert json.dumps(rep, sort_keys=True, default=str) == json.dumps(
        whole.report, sort_keys=True, default=str
    )
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
    return make_site(
        folder,
        {
            "site_boundary": [box(x - h, y - h, x + h, y + h)],
            "disturbance": [box(x - h + 10, y - h + 10, x + h - 10, y + h - 10)],
            "stockpiles": [box(x - 10, y - 10, x + 5, y + 5)],
        },
        dem=dem,
    )


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


@pytest.mark.parametrize(
    "seed,at,windowed", [(3, (1350.0, 1350.0), False), (5, (700.0, 2000.0), True), (8, (2100.0, 600.0), True)]
)
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
def test_coarse_grid_bounds_every_cells_filled_height(tmp_path, dtype, monkeypatch):
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
    monkeypatch.setattr("geosite.hydrology.certify.COARSE_MAX_CELLS", 2_000)
    co = CoarseOutlets.read(path, factor, z.shape)
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


def test_coarse_grid_reads_every_way_of_marking_no_height_alike(tmp_path, monkeypatch):
    """The coarse pass reads a band as the file stores it and skips no-height cells itself: holes kept
    as the nodata value, as infinities, or by a mask band give the coarse grid of the heights read_dem
    reads (NaN there), block for block."""
    import rasterio

    dem = rolling_terrain((203, 190), cell=3.0, relief_ft=40.0, kettles=8, seed=5)
    z = dem.elevation_ft.astype(np.float32).astype(np.float64)
    rng = np.random.default_rng(5)
    holes = rng.random(z.shape) < 0.02
    holes[100:130, 0:25] = True  # a hole on the edge
    z[holes] = np.nan
    monkeypatch.setattr("geosite.hydrology.certify.COARSE_MAX_CELLS", 1_500)
    profile = {
        "driver": "GTiff",
        "height": z.shape[0],
        "width": z.shape[1],
        "count": 1,
        "dtype": "float32",
        "crs": dem.crs,
        "transform": dem.transform,
    }
    sign = np.where(rng.random(z.shape) < 0.5, np.inf, -np.inf)
    grids = {}
    for way in ("value", "infinity", "mask"):
        path = tmp_path / f"{way}.tif"
        stored = np.where(holes, {"value": -9999.0, "infinity": sign, "mask": 123.0}[way], z).astype(
            np.float32
        )
        with rasterio.open(path, "w", nodata=-9999.0 if way == "value" else None, **profile) as dst:
            dst.write(stored, 1)
            if way == "mask":
                dst.write_mask(~holes)
        grids[way] = CoarseOutlets.read(path, 1.0, z.shape)
        read = read_dem(path, "us_ft").elevation_ft
        assert np.array_equal(np.isnan(read), holes)
    co = grids["value"]
    top, low = fk.block_extremes(np.where(holes, np.nan, z), co.f, np.nan)
    assert co.f == 6 and np.isnan(low).any() and not np.isnan(top).all()
    for way, got in grids.items():
        assert np.array_equal(got.floor_blocks, low, equal_nan=True), way
        want = np.empty_like(top)
        fk.priority_flood(top, want, False, np.empty((1, 1), dtype=np.int64))
        assert np.array_equal(got.level, want, equal_nan=True), way


def test_site_toml_map_margin_sets_the_clip_of_every_layer(tmp_path):
    """site.toml's map_margin_ft (50 ft here, the profile's 200 otherwise) is the margin the contours,
    the steep slopes and the channels are clipped to, as the maps show it."""
    dem = cone(15.0, shape=(400, 400), cell=3.0)
    t = dem.transform
    x, y = t.c + 600.0, t.f - 900.0
    folder = make_site(
        tmp_path / "m",
        {
            "site_boundary": [box(x - 45, y - 45, x + 45, y + 45)],
            "disturbance": [box(x - 35, y - 35, x + 35, y + 35)],
        },
        conf={"map_margin_ft": 50},
        dem=dem,
    )
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


def _tif(path, z, transform, dtype="float32", nodata=None):
    import rasterio

    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        height=z.shape[0],
        width=z.shape[1],
        count=1,
        dtype=dtype,
        crs="EPSG:7593",
        transform=transform,
        nodata=nodata,
    ) as dst:
        dst.write(z.astype(dtype), 1)
    return path


def _bowl(n: int, cell: float, rim_cells: float) -> np.ndarray:
    rr, cc = np.mgrid[0:n, 0:n]
    d = np.hypot(rr - n / 2, cc - n / 2)
    return np.where(
        d < rim_cells, 900 + 0.05 * cell * d, 900 + 0.05 * cell * rim_cells - 0.05 * cell * (d - rim_cells)
    ), d


def test_a_float32_vrt_nodata_not_exact_in_float32_is_the_same_nodata_in_every_read(tmp_path):
    """A Float32 VRT declaring nodata 0.1 (float32(0.1) is 0.100000001): the cells holding it are nodata in
    the whole read, in a window and in the coarse grid alike (as GDAL's mask has them), so a hole at the
    floor of a bowl is an outlet in all of them and the windowed answer is the whole DEM's."""
    from affine import Affine

    from geosite.io.raster import read_dem

    n, cell = 600, 3.0
    z, d = _bowl(n, cell, 250)
    z[d < 4] = 0.1
    folder = tmp_path / "v"
    folder.mkdir()
    t = Affine(cell, 0, 500_000.0, 0, -cell, 200_000.0 + n * cell)
    _tif(folder / "src.tif", z, t)
    (folder / "dem.vrt").write_text(f"""<VRTDataset rasterXSize="{n}" rasterYSize="{n}">
  <SRS>EPSG:7593</SRS><GeoTransform>500000.0, {cell}, 0, {200_000.0 + n * cell}, 0, -{cell}</GeoTransform>
  <VRTRasterBand dataType="Float32" band="1"><NoDataValue>0.1</NoDataValue>
    <SimpleSource><SourceFilename relativeToVRT="1">src.tif</SourceFilename><SourceBand>1</SourceBand>\
</SimpleSource>
  </VRTRasterBand></VRTDataset>""")
    assert np.isnan(read_dem(folder / "dem.vrt", "us_ft").elevation_ft[n // 2, n // 2])
    x, y = 500_000.0 + n * cell / 2, 200_000.0 + n * cell / 2 - 480
    make_site(
        folder,
        {
            "site_boundary": [box(x - 45, y - 45, x + 45, y + 45)],
            "disturbance": [box(x - 35, y - 35, x + 35, y + 35)],
        },
        conf={"dem": {"path": "dem.vrt", "vertical_unit": "us_ft"}},
    )
    got, whole = _analyses(folder)
    _same(got, whole)


def test_an_averaging_vrt_is_read_whole(tmp_path):
    """A VRT averaging a 2-ft source onto 3-ft cells computes each cell from the source pixels around it,
    and GDAL's windowed reads of it differ from the whole read: such a DEM is never windowed."""
    from affine import Affine

    folder = tmp_path / "avg"
    folder.mkdir()
    src = cone(15.0, shape=(900, 900), cell=2.0).elevation_ft
    _tif(folder / "src.tif", src, Affine(2.0, 0, 500_000.0, 0, -2.0, 201_800.0))
    (folder / "dem.vrt").write_text("""<VRTDataset rasterXSize="600" rasterYSize="600">
  <SRS>EPSG:7593</SRS><GeoTransform>500000.0, 3.0, 0, 201800.0, 0, -3.0</GeoTransform>
  <VRTRasterBand dataType="Float32" band="1">
    <ComplexSource resampling="average"><SourceFilename relativeToVRT="1">src.tif</SourceFilename>\
<SourceBand>1</SourceBand>
      <SrcRect xOff="0" yOff="0" xSize="900" ySize="900"/>\
<DstRect xOff="0" yOff="0" xSize="600" ySize="600"/></ComplexSource>
  </VRTRasterBand></VRTDataset>""")
    x, y = 500_000.0 + 900.0, 200_000.0 + 600.0
    make_site(
        folder,
        {
            "site_boundary": [box(x - 45, y - 45, x + 45, y + 45)],
            "disturbance": [box(x - 35, y - 35, x + 35, y + 35)],
        },
        conf={"dem": {"path": "dem.vrt", "vertical_unit": "us_ft"}},
    )
    got, whole = _analyses(folder)
    assert _same(got, whole)["whole"]


def test_a_south_up_dem_is_a_clear_error(tmp_path):
    from affine import Affine
    from click.testing import CliRunner

    from geosite.cli import cli

    folder = tmp_path / "s"
    folder.mkdir()
    _tif(
        folder / "dem.tif",
        cone(15.0, shape=(200, 200), cell=3.0).elevation_ft,
        Affine(3.0, 0, 500_000.0, 0, 3.0, 199_400.0),
    )
    make_site(
        folder,
        {"site_boundary": [box(500_200, 199_500, 500_300, 199_600)]},
        conf={"dem": {"path": "dem.tif", "vertical_unit": "us_ft"}},
    )
    r = CliRunner().invoke(cli, ["-q", "analyze", str(folder), "--out", str(tmp_path / "o"), "--no-maps"])
    assert r.exit_code == 2 and "north-up" in r.output and "dem.tif" in r.output, r.output


def test_within_the_raster_budget_the_search_shrinks_and_the_window_stops(tmp_path):
    """A raster budget too small for the usual search window: the search is narrowed to fit and the
    answer still certified (the cone's summit); one too small for the drainage itself (a plane draining
    from the DEM's far edge) stops the window where the budget does, says so, and is not certified."""
    from geosite.io.limits import Limits

    def analysed(folder, budget):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return geosite.analyze(geosite.load_site(folder, limits=Limits(raster_budget_bytes=budget)))

    folder = _site(tmp_path / "cone", cone(15.0, shape=(600, 600), cell=3.0), (900.0, 1200.0))
    small = analysed(folder, 30_000_000)
    where = small.report["dem_window"]
    assert where["certified"] and not where["whole"] and where["searched_cells"] * 32 <= 30_000_000
    _, whole = _analyses(folder)
    rep = dict(small.report)
    rep.pop("dem_window")
    ref = dict(whole.report)
    assert json.dumps(rep, sort_keys=True, default=str) == json.dumps(ref, sort_keys=True, default=str)

    cut = analysed(
        _site(tmp_path / "plane", inclined_plane(5.0, shape=(1500, 300), cell=3.0), (450.0, 4200.0)),
        20_000_000,
    )
    where = cut.report["dem_window"]
    assert not where["certified"] and not where["whole"]
    assert (where["rows"][1] - where["rows"][0]) * (
        where["columns"][1] - where["columns"][0]
    ) * 200 <= 20_000_000
    assert any("not proven to fit a window" in n for n in cut.report["notes"])


def test_reading_a_dem_leaves_the_callers_gdal_cache_as_it_was(tmp_path):
    """open_raster reads with a small GDAL block cache (each tile is read once) and gives the caller's
    size back after, also when the read fails: a notebook's own rasterio work is not changed by it."""
    import rasterio
    from rasterio.env import get_gdal_config, set_gdal_config
    from sitebuilder import write_dem

    from geosite.errors import InputError
    from geosite.io.raster import READ_CACHE_MB, open_raster

    path = tmp_path / "dem.tif"
    write_dem(path, inclined_plane(5.0, shape=(40, 30), cell=3.0))
    old = get_gdal_config("GDAL_CACHEMAX")
    try:
        set_gdal_config("GDAL_CACHEMAX", 300)  # the caller's: 300 MB
        seen = []
        with open_raster(path) as src:
            seen.append(get_gdal_config("GDAL_CACHEMAX"))
            src.read(1)
        assert seen == [READ_CACHE_MB] and get_gdal_config("GDAL_CACHEMAX") == 300
        (tmp_path / "bad.tif").write_bytes(b"II*\x00" + b"\x00" * 60)
        with pytest.raises(InputError):
            read_dem(tmp_path / "bad.tif", "us_ft")
        assert get_gdal_config("GDAL_CACHEMAX") == 300
        with rasterio.open(path) as src:
            assert src.read(1).shape == (40, 30)
    finally:
        set_gdal_config("GDAL_CACHEMAX", old)
