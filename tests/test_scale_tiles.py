"""Tiled whole-DEM slope screening equals terrain.slope_pct on the DEM held whole, bit for bit
(nodata holes cut by tile boundaries, DEM edges and corners, metre heights); the same from a VRT
mosaic of tiles and from a COG; a site's windowed DEM read from a VRT or a COG gives the same analysis
as from a GeoTIFF."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import rasterio
from rasterio.windows import Window
from sitebuilder import make_site

import geosite
from geosite.io.raster import read_dem
from geosite.scale.tiles import MASK_NODATA, build_vrt, screen_steep_slopes
from geosite.terrain import SLOPE_TOLERANCE_PCT, slope_pct, steep_area_sqft
from geosite.testing import rolling_terrain

SHAPE = (203, 251)  # not a multiple of any tile size used


def holed_terrain(vertical_unit: str = "us_ft"):
    """Rolling terrain (steep enough to have both classes) with nodata holes: interior blobs, one on
    the west edge, one taking the north-east corner, a one-cell hole and a one-cell island."""
    dem = rolling_terrain(SHAPE, cell=3.0, relief_ft=120.0, seed=3, vertical_unit=vertical_unit)
    z = dem.elevation_ft
    rr, cc = np.mgrid[0 : SHAPE[0], 0 : SHAPE[1]]
    for r, c, rad in ((64, 64, 9), (100, 130, 14), (150, 0, 6), (0, SHAPE[1] - 1, 12), (31, 190, 5)):
        z[(rr - r) ** 2 + (cc - c) ** 2 <= rad**2] = np.nan
    z[128, 128] = np.nan  # on a tile corner at tile=64 and tile=32
    z[40:50, 40:50] = np.nan
    z[45, 45] = 950.0  # an island in a hole
    return dem


def write_tif(path: Path, dem, vertical_unit: str = "us_ft", dtype: str = "float64", **extra) -> Path:
    factor = {"us_ft": 1.0, "m": 1200 / 3937}[vertical_unit]
    z = dem.elevation_ft * factor
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        height=z.shape[0],
        width=z.shape[1],
        count=1,
        dtype=dtype,
        crs=dem.crs,
        transform=dem.transform,
        nodata=-9999.0,
        **extra,
    ) as dst:
        dst.write(np.where(np.isnan(z), -9999.0, z).astype(dtype), 1)
    return path


def write_tiles_vrt(src: Path, folder: Path, piece: tuple[int, int] = (70, 90)) -> Path:
    """Cut ``src`` into GeoTIFF tiles of ``piece`` cells and mosaic them back as a VRT."""
    folder.mkdir(parents=True, exist_ok=True)
    tiles = []
    with rasterio.open(src) as s:
        for r0 in range(0, s.height, piece[0]):
            for c0 in range(0, s.width, piece[1]):
                win = Window(c0, r0, min(piece[1], s.width - c0), min(piece[0], s.height - r0))
                prof = {
                    **s.profile,
                    "width": win.width,
                    "height": win.height,
                    "transform": s.window_transform(win),
                }
                p = folder / "tiles" / f"t_{r0:04d}_{c0:04d}.tif"
                p.parent.mkdir(exist_ok=True)
                with rasterio.open(p, "w", **prof) as d:
                    d.write(s.read(1, window=win), 1)
                tiles.append(p)
    return build_vrt(tiles, folder / "mosaic.vrt")


def write_cog(src: Path, path: Path) -> Path:
    from rasterio.shutil import copy

    copy(src, path, driver="COG", blocksize=64, compress="deflate")
    return path


def read_band(path: Path) -> np.ndarray:
    with rasterio.open(path) as s:
        return s.read(1)


@pytest.fixture(scope="module")
def dem_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("dems")
    dem = holed_terrain()
    tif = write_tif(root / "dem.tif", dem)
    return {
        "tif": tif,
        "vrt": write_tiles_vrt(tif, root / "vrt"),
        "cog": write_cog(tif, root / "dem_cog.tif"),
    }


@pytest.mark.parametrize("tile", [16, 64, 100, 1000])
def test_tiled_slope_equals_whole_dem_bitwise(dem_files, tmp_path, tile):
    whole = read_dem(dem_files["tif"], "us_ft")
    assert np.isnan(whole.elevation_ft).sum() > 1000
    expected = slope_pct(whole)
    res = screen_steep_slopes(
        dem_files["tif"],
        "us_ft",
        threshold_pct=(12.0, 20.0),
        tile=tile,
        slope_out=tmp_path / "slope.tif",
        mask_out=tmp_path / "mask.tif",
        slope_dtype="float64",
    )
    got = read_band(tmp_path / "slope.tif")
    assert np.array_equal(got, expected, equal_nan=True)
    assert res.tiles == -(-SHAPE[0] // tile) * -(-SHAPE[1] // tile)
    assert res.valid_cells == np.count_nonzero(~np.isnan(expected))
    assert res.max_slope_pct == np.nanmax(expected)
    with np.errstate(invalid="ignore"):
        n12 = np.count_nonzero(expected >= 12.0 - SLOPE_TOLERANCE_PCT)
        n20 = np.count_nonzero(expected >= 20.0 - SLOPE_TOLERANCE_PCT)
    assert 0 < n20 < n12 < res.valid_cells
    assert res.steep_cells == {12.0: n12, 20.0: n20}
    assert res.steep_area_sqft[12.0] == pytest.approx(steep_area_sqft(whole, threshold_pct=12.0), rel=1e-12)
    mask = read_band(tmp_path / "mask.tif")
    with np.errstate(invalid="ignore"):
        want = (expected >= 12.0 - SLOPE_TOLERANCE_PCT).astype(np.uint8) + (
            expected >= 20.0 - SLOPE_TOLERANCE_PCT
        )
    want[np.isnan(expected)] = MASK_NODATA
    assert np.array_equal(mask, want)
    with rasterio.open(tmp_path / "mask.tif") as s:
        assert s.profile["tiled"] and s.compression.name.lower() == "zstd" and s.nodata == MASK_NODATA


@pytest.mark.parametrize("kind", ["vrt", "cog"])
def test_vrt_mosaic_and_cog_give_the_same_slope(dem_files, tmp_path, kind):
    expected = slope_pct(read_dem(dem_files["tif"], "us_ft"))
    assert np.array_equal(
        read_dem(dem_files[kind], "us_ft").elevation_ft,
        read_dem(dem_files["tif"], "us_ft").elevation_ft,
        equal_nan=True,
    )
    screen_steep_slopes(
        dem_files[kind],
        "us_ft",
        threshold_pct=12.0,
        tile=64,
        slope_out=tmp_path / "s.tif",
        slope_dtype="float64",
    )
    assert np.array_equal(read_band(tmp_path / "s.tif"), expected, equal_nan=True)


def test_metre_heights_and_float32_output(tmp_path):
    dem = holed_terrain("m")
    tif = write_tif(tmp_path / "m.tif", dem, "m")
    whole = read_dem(tif, "m")
    expected = slope_pct(whole)
    res = screen_steep_slopes(
        tif, "m", threshold_pct=12.0, tile=50, slope_out=tmp_path / "s.tif", compress="deflate"
    )
    assert np.array_equal(read_band(tmp_path / "s.tif"), expected.astype(np.float32), equal_nan=True)
    assert res.cell_area_sqft == whole.cell_area_sqft


@pytest.mark.parametrize("kind", ["vrt", "cog"])
def test_windowed_read_from_vrt_and_cog(dem_files, kind):
    with rasterio.open(dem_files["tif"]) as s:
        left, b, r, t = s.bounds
    for bounds in (
        (left + 100, b + 77, left + 400, b + 300),
        (left - 50, t - 200, left + 150, t + 50),
        (r - 31, b - 5, r + 9, b + 40),
    ):
        a, w = (
            read_dem(dem_files["tif"], "us_ft", bounds=bounds),
            read_dem(dem_files[kind], "us_ft", bounds=bounds),
        )
        assert a.transform == w.transform
        assert np.array_equal(a.elevation_ft, w.elevation_ft, equal_nan=True)


def test_site_analysis_same_from_tif_vrt_cog_in_window(dem_files, tmp_path, monkeypatch):
    """A DEM read in a window around the site (the margins lowered for the test, so the window is a
    small part of this small DEM); from a VRT mosaic or a COG the whole analysis is the one from the
    GeoTIFF."""
    import geosite.pipeline as pipeline

    monkeypatch.setattr(pipeline, "CORE_MARGIN_FT", 0.0)
    with rasterio.open(dem_files["tif"]) as s:
        left, b, r, t = s.bounds
    from shapely.geometry import box

    reports = {}
    for kind, path in dem_files.items():
        folder = make_site(
            tmp_path / kind,
            {
                "site_boundary": [box(left + 250, b + 200, left + 450, b + 330)],
                "disturbance": [box(left + 270, b + 220, left + 400, b + 300)],
            },
            conf={"dem": {"path": str(path), "vertical_unit": "us_ft"}, "map_margin_ft": 0},
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rep = geosite.analyze(geosite.load_site(folder, allow_outside=True)).report
        assert not rep["dem_window"]["whole"] and rep["dem_window"]["certified"]
        text = (
            json.dumps(rep, sort_keys=True, default=str)
            .replace(str(path), "DEM")
            .replace(str(folder), "SITE")
        )
        reports[kind] = json.loads(text)
    assert reports["tif"]["slopes"]["steep_area_sqft"] > 0
    assert reports["vrt"] == reports["tif"]
    assert reports["cog"] == reports["tif"]


def test_tiles_on_dask(dem_files, tmp_path):
    distributed = pytest.importorskip("distributed")
    expected = slope_pct(read_dem(dem_files["vrt"], "us_ft"))
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as client:
        res = screen_steep_slopes(
            dem_files["vrt"],
            "us_ft",
            threshold_pct=12.0,
            tile=40,
            slope_out=tmp_path / "s.tif",
            slope_dtype="float64",
            client=client,
        )
    assert res.tiles == 6 * 7
    assert np.array_equal(read_band(tmp_path / "s.tif"), expected, equal_nan=True)


def test_refuses_existing_output_and_bad_arguments(dem_files, tmp_path):
    from geosite.errors import InputError, OutputError

    (tmp_path / "s.tif").write_bytes(b"x")
    with pytest.raises(OutputError, match="exists"):
        screen_steep_slopes(dem_files["tif"], "us_ft", threshold_pct=12.0, slope_out=tmp_path / "s.tif")
    with pytest.raises(InputError, match="vertical|unit"):
        screen_steep_slopes(dem_files["tif"], None, threshold_pct=12.0)
    with pytest.raises(InputError, match="compress must be one of zstd, deflate, lzw"):
        screen_steep_slopes(dem_files["tif"], "us_ft", threshold_pct=12.0, compress="jpeg")
    with pytest.raises(InputError, match="tile"):
        screen_steep_slopes(dem_files["tif"], "us_ft", threshold_pct=12.0, tile=4)
    assert not list(tmp_path.glob(".*tmp*"))
