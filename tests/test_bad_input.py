"""Bad input: a clear message naming the file, the layer and the problem; exit code 2; nothing written
over and the inputs untouched."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner
from shapely.geometry import Polygon
from sitebuilder import X0, Y0, make_site, rect, write_toml

import geosite
from geosite.cli import cli
from geosite.errors import CoverageWarning, InputError, SiteValidationError
from geosite.testing import inclined_plane


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def run_cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def good_site(tmp_path: Path, **kw) -> Path:
    return make_site(
        tmp_path / "site",
        {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": [rect(10, 10, 50, 100)]},
        **kw,
    )


def bowtie():
    return Polygon([(X0, Y0), (X0 + 100, Y0 + 100), (X0 + 100, Y0), (X0, Y0 + 100)])


def assert_bad(tmp_path: Path, folder: Path, *needles: str, extra: tuple[str, ...] = ()):
    before = digest(folder)
    out = tmp_path / "out"
    res = run_cli("analyze", str(folder), "--out", str(out), *extra)
    assert res.exit_code == 2, res.output
    for needle in needles:
        assert needle in res.output, res.output
    assert not out.exists()
    assert digest(folder) == before
    return res.output


def test_missing_site_toml(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    assert_bad(tmp_path, folder, "site.toml", "missing")


def test_missing_site_boundary(tmp_path):
    folder = make_site(tmp_path / "s", {"disturbance": [rect(0, 0, 10, 10)]})
    assert_bad(tmp_path, folder, "site_boundary", "required")


def test_corrupt_layer_file(tmp_path):
    folder = good_site(tmp_path)
    (folder / "layers.gpkg").write_bytes(b"this is not a geopackage")
    assert_bad(tmp_path, folder, "layers.gpkg", "cannot be read")


def test_invalid_polygon_lists_ids_and_make_valid_repairs(tmp_path):
    gdf = gpd.GeoDataFrame(
        {"id": [4, 9, 11]}, geometry=[bowtie(), rect(200, 0, 10, 10), bowtie()], crs="EPSG:7593"
    )
    folder = make_site(tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": gdf})
    msg = assert_bad(
        tmp_path, folder, "disturbance", "invalid", "4:", "11:", "Self-intersection", "--make-valid"
    )
    assert "9:" not in msg
    out = tmp_path / "fixed"
    res = run_cli("analyze", str(folder), "--out", str(out), "--make-valid")
    assert res.exit_code == 0, res.output
    # each bowtie is two triangles of 2,500 sq ft; they coincide, so the union is 5,000 + the 100 sq ft square
    import json

    r = json.loads((out / "report.json").read_text())
    assert r["disturbed"]["area_sqft"] == pytest.approx(5100.0)


def test_empty_geometry(tmp_path):
    gdf = gpd.GeoDataFrame({"id": [1, 2]}, geometry=[rect(0, 0, 10, 10), Polygon()], crs="EPSG:7593")
    folder = make_site(tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)], "stockpiles": gdf})
    assert_bad(tmp_path, folder, "stockpiles", "empty", "ids 2")


def test_wrong_geometry_type(tmp_path):
    from sitebuilder import line

    folder = make_site(
        tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": [line((0, 0), (10, 10))]}
    )
    assert_bad(tmp_path, folder, "disturbance", "wrong geometry type", "LineString", "Polygon")


def test_no_crs(tmp_path):
    folder = good_site(tmp_path)
    gpd.GeoDataFrame(geometry=[rect(0, 0, 300, 200)]).to_file(folder / "bounds.geojson", driver="GeoJSON")
    write_toml(
        folder / "site.toml",
        {"name": "x", "jurisdiction": "grantsburg", "layers": {"site_boundary": "bounds.geojson"}},
    )
    # GeoJSON without a crs member is WGS84 by the standard; strip it to a truly CRS-less shapefile instead
    gpd.GeoDataFrame(geometry=[rect(0, 0, 300, 200)]).to_file(folder / "bounds.shp")
    write_toml(
        folder / "site.toml",
        {"name": "x", "jurisdiction": "grantsburg", "layers": {"site_boundary": "bounds.shp"}},
    )
    assert_bad(tmp_path, folder, "bounds.shp", "no CRS")


def test_geographic_crs_is_an_error_unless_a_target_is_named(tmp_path):
    gdf = gpd.GeoDataFrame(geometry=[rect(0, 0, 300, 200)], crs="EPSG:7593").to_crs("EPSG:4326")
    folder = make_site(tmp_path / "s", {"site_boundary": gdf})
    assert_bad(tmp_path, folder, "geographic", "degrees")
    write_toml(
        folder / "site.toml",
        {"name": "x", "jurisdiction": "grantsburg", "crs": "EPSG:7593", "layers": {"path": "layers.gpkg"}},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        site = geosite.load_site(folder)
    assert site.crs.to_epsg() == 7593
    assert geosite.analyze(site).report["site"]["area_sqft"] == pytest.approx(60_000.0, rel=1e-6)


def test_unknown_jurisdiction_lists_known(tmp_path):
    folder = good_site(tmp_path, conf={"jurisdiction": "atlantis"})
    assert_bad(tmp_path, folder, "atlantis", "belgium", "grantsburg")


def test_vertical_unit_not_given(tmp_path):
    folder = good_site(tmp_path, dem=inclined_plane(5.0, shape=(300, 300), cell=2.0))
    write_toml(
        folder / "site.toml",
        {
            "name": "x",
            "jurisdiction": "grantsburg",
            "dem": {"path": "dem.tif"},
            "layers": {"path": "layers.gpkg"},
        },
    )
    assert_bad(tmp_path, folder, "vertical unit", "dem.tif", "--dem-vertical-unit")


def test_dem_short_of_margin_warns_naming_shortfall(tmp_path):
    # DEM covers x in [0, 400) and y in [-400, 0] around origin (X0, Y0+200): the site is 300 x 200 at (X0,
    # Y0)
    dem = inclined_plane(5.0, shape=(200, 200), cell=2.0)  # from (500000, 200000) east 400 ft, south 400 ft
    folder = good_site(tmp_path, dem=dem)
    with pytest.warns(CoverageWarning, match="ft short on the"):
        geosite.load_site(folder)
    with pytest.raises(SiteValidationError, match="does not cover"):
        geosite.load_site(folder, strict=True)


def test_all_problems_reported_at_once(tmp_path):
    gdf = gpd.GeoDataFrame({"id": [1]}, geometry=[bowtie()], crs="EPSG:7593")
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(0, 0, 300, 200)], "stockpiles": gdf},
        conf={"jurisdiction": "nowhere"},
    )
    with pytest.raises(SiteValidationError) as info:
        geosite.load_site(folder)
    assert len(info.value.problems) == 2
    assert isinstance(info.value, InputError) and isinstance(info.value, ValueError)


def test_existing_output_not_overwritten_without_flag(tmp_path):
    folder = good_site(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    res = run_cli("analyze", str(folder), "--out", str(out))
    assert res.exit_code == 2 and "--overwrite" in res.output
    assert (out / "keep.txt").read_text() == "mine"
    # --overwrite replaces only what geosite wrote (issue 13): this folder is the user's
    res = run_cli("analyze", str(folder), "--out", str(out), "--overwrite")
    assert res.exit_code == 2 and "geosite did not write it" in res.output
    assert (out / "keep.txt").read_text() == "mine"
    mine = tmp_path / "geosite-made"
    assert run_cli("analyze", str(folder), "--out", str(mine), "--no-maps").exit_code == 0
    res = run_cli("analyze", str(folder), "--out", str(mine), "--overwrite", "--no-maps")
    assert res.exit_code == 0 and (mine / "report.json").exists()


def test_output_inside_the_site_is_refused(tmp_path):
    folder = good_site(tmp_path)
    before = digest(folder)
    res = run_cli("analyze", str(folder), "--out", str(folder / "out"))
    assert res.exit_code == 2 and "overlaps the input" in res.output
    assert digest(folder) == before


def test_corrupt_dem(tmp_path):
    folder = good_site(tmp_path, dem=inclined_plane(5.0, shape=(300, 300), cell=2.0))
    (folder / "dem.tif").write_bytes(b"not a GeoTIFF" * 50)
    assert_bad(tmp_path, folder, "dem.tif", "cannot be read as a raster")


def test_missing_dem_file(tmp_path):
    folder = good_site(tmp_path, dem=inclined_plane(5.0, shape=(300, 300), cell=2.0))
    (folder / "dem.tif").unlink()
    assert_bad(tmp_path, folder, "dem.tif", "file not found")


def test_dem_without_crs(tmp_path):
    import rasterio

    folder = good_site(tmp_path, dem=inclined_plane(5.0, shape=(300, 300), cell=2.0))
    with rasterio.open(folder / "dem.tif") as src:
        profile, data = src.profile, src.read(1)
    profile.pop("crs")
    with rasterio.open(folder / "dem.tif", "w", **profile) as dst:
        dst.write(data, 1)
    assert_bad(tmp_path, folder, "dem.tif", "no CRS")


def test_yes_no_settings_must_be_booleans(tmp_path):
    folder = good_site(
        tmp_path,
        conf={
            "project": {
                "dewatering": "yes",
                "state_funded": "no",
                "cut_cy": "lots",
                "building_permit_days": "1y",
            }
        },
    )
    assert_bad(
        tmp_path,
        folder,
        "dewatering = 'yes'",
        "state_funded = 'no'",
        "true or false",
        "cut_cy",
        "building_permit_days",
    )
