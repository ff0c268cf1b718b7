"""The whole analyze pipeline on real LiDAR nobody on the project made (shared/data/real_dems):
Alexandria, Virginia (2 m DTM in UTM 18N metres, holes around buildings; buildings in EPSG:4326).
Skipped where the folder is absent."""

from __future__ import annotations

import json
import shutil
import warnings

import geopandas as gpd
import numpy as np
import pytest
from click.testing import CliRunner
from shapely.geometry import box
from sitebuilder import write_toml

import geosite
from geosite.cli import cli


@pytest.fixture
def virginia_site(tmp_path, real_dems):
    src = real_dems / "virginia_2m"
    folder = tmp_path / "alexandria"
    folder.mkdir()
    shutil.copy(src / "dtm.tif", folder / "dtm.tif")
    shutil.copy(src / "buildings.geojson", folder / "buildings.geojson")
    crs = "EPSG:26918"
    # a 300 m x 250 m site over the middle of the DTM, a 120 m x 80 m disturbed area inside it
    x0, y0 = 321_630.0, 4_297_640.0
    gpd.GeoDataFrame(geometry=[box(x0, y0, x0 + 300, y0 + 250)], crs=crs).to_file(
        folder / "layers.gpkg", layer="site_boundary"
    )
    gpd.GeoDataFrame({"phase": ["1"]}, geometry=[box(x0 + 90, y0 + 80, x0 + 210, y0 + 160)], crs=crs).to_file(
        folder / "layers.gpkg", layer="disturbance"
    )
    write_toml(
        folder / "site.toml",
        {
            "name": "Alexandria block",
            "jurisdiction": "grantsburg",
            "crs": crs,  # names the target, so the EPSG:4326 buildings are reprojected, not refused
            "dem": {"path": "dtm.tif", "vertical_unit": "m"},
            "layers": {"path": "layers.gpkg", "structures": "buildings.geojson"},
        },
    )
    return folder


def test_analyze_on_real_lidar(virginia_site, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        site = geosite.load_site(virginia_site)
        res = geosite.analyze(site)
    r = res.report
    assert any("reprojected" in n and "buildings.geojson" in n for n in site.notes)
    assert len(site.layers["structures"]) == 84
    # areas: 300 m x 250 m and 120 m x 80 m in international feet
    assert r["site"]["area_sqft"] == pytest.approx(75_000 / 0.3048**2, rel=1e-9)
    assert r["disturbed"]["area_sqft"] == pytest.approx(9_600 / 0.3048**2, rel=1e-9)
    s = r["slopes"]
    assert 0 < s["max_slope_pct"] < 500 and np.isfinite(s["mean_slope_pct"])
    assert 0 <= s["steep_disturbed_area_sqft"] <= r["disturbed"]["area_sqft"]
    assert 0 <= s["steep_area_sqft"] <= r["site"]["area_sqft"]
    assert s["state_steep_area_sqft"] <= s["steep_area_sqft"]
    # the DTM's nodata holes around buildings are outlets: the routing covers every valid cell
    fg = res.measurements.flow_grid
    assert ((fg.directions == 255) == np.isnan(res.dem.elevation_ft)).all()
    (u,) = r["upslope"]
    assert u["area_sqft"] >= 0 and u["sheetflow_area_sqft"] + u["channelized_area_sqft"] == pytest.approx(
        u["area_sqft"]
    )
    assert r["applicability"]["applies"] is True  # 103,333 sq ft disturbed
    assert r["plan_type"] == "full"
    c = res.layers["contours"]
    assert len(c) and np.allclose(c["elevation_ft"] % 5.0, 0.0)
    # outputs (no maps, to keep the test short) and a report readable as strict JSON
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["analyze", str(virginia_site), "--out", str(out), "--no-maps"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text())["disturbed"]["area_sqft"] == pytest.approx(
        r["disturbed"]["area_sqft"]
    )


def test_geographic_layer_refused_without_a_named_crs(virginia_site, tmp_path):
    text = (virginia_site / "site.toml").read_text().replace('crs = "EPSG:26918"\n', "")
    (virginia_site / "site.toml").write_text(text)
    result = CliRunner().invoke(
        cli, ["analyze", str(virginia_site), "--out", str(tmp_path / "out"), "--no-maps"]
    )
    assert result.exit_code == 2
    assert "buildings.geojson" in result.output and "geographic" in result.output
