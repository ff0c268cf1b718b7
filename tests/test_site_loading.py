"""Site folders in every supported shape: one GeoPackage, one file per layer (shapefile, GeoJSON),
DXF from CAD, layer-name mapping, reprojection; and the CLI on a good site."""

from __future__ import annotations

import json
import warnings

import ezdxf
import geopandas as gpd
import pytest
from click.testing import CliRunner
from sitebuilder import X0, Y0, make_site, rect, write_toml

import geosite
from geosite.cli import cli
from geosite.errors import ReprojectionWarning


def test_one_file_per_layer_and_dxf(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    gpd.GeoDataFrame(geometry=[rect(0, 0, 300, 200)], crs="EPSG:7593").to_file(folder / "boundary.shp")
    gpd.GeoDataFrame({"phase": ["1"]}, geometry=[rect(10, 10, 100, 50)], crs="EPSG:7593").to_file(
        folder / "disturb.geojson", driver="GeoJSON"
    )
    # CAD drawing: a closed polyline on layer STOCKPILE, a line on layer FENCE
    doc = ezdxf.new()
    msp = doc.modelspace()
    msp.add_lwpolyline(
        [(X0 + 150, Y0 + 20), (X0 + 170, Y0 + 20), (X0 + 170, Y0 + 40), (X0 + 150, Y0 + 40)],
        close=True,
        dxfattribs={"layer": "STOCKPILE"},
    )
    msp.add_line((X0, Y0 + 5), (X0 + 100, Y0 + 5), dxfattribs={"layer": "FENCE"})
    doc.saveas(folder / "plan.dxf")
    write_toml(
        folder / "site.toml",
        {
            "name": "files",
            "jurisdiction": "grantsburg",
            "crs": "EPSG:7593",
            "layers": {
                "site_boundary": "boundary.shp",
                "disturbance": "disturb.geojson",
                "bmps": "plan.dxf:FENCE",
            },
        },
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        site = geosite.load_site(folder)
    assert site.layers["bmps"].geometry.iloc[0].length == pytest.approx(100.0)
    assert any("no CRS in the file" in n for n in site.notes)
    r = geosite.analyze(site).report
    assert r["disturbed"]["area_sqft"] == pytest.approx(5000.0)
    assert "stockpiles" in r["inputs"]["layers_missing"]


def test_layer_name_mapping(tmp_path):
    folder = make_site(tmp_path / "s", {"PARCEL": [rect(0, 0, 300, 200)], "GRADING": [rect(0, 0, 100, 100)]})
    write_toml(
        folder / "site.toml",
        {
            "name": "mapped",
            "jurisdiction": "grantsburg",
            "layers": {"path": "layers.gpkg", "names": {"site_boundary": "PARCEL", "disturbance": "GRADING"}},
        },
    )
    r = geosite.analyze(geosite.load_site(folder)).report
    assert r["site"]["area_sqft"] == pytest.approx(60_000.0)
    assert r["disturbed"]["area_sqft"] == pytest.approx(10_000.0)


def test_layer_in_other_projected_crs_is_reprojected(tmp_path):
    dist = gpd.GeoDataFrame(geometry=[rect(10, 10, 100, 100)], crs="EPSG:7593").to_crs("EPSG:26915")
    folder = make_site(tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": dist})
    with pytest.warns(ReprojectionWarning, match="reprojected"):
        site = geosite.load_site(folder)
    assert geosite.analyze(site).report["disturbed"]["area_sqft"] == pytest.approx(10_000.0, rel=1e-6)


def test_cli_writes_the_three_outputs(tmp_path):
    folder = make_site(
        tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": [rect(0, 0, 100, 50)]}
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["analyze", str(folder), "--out", str(out)])
    assert res.exit_code == 0, res.output
    r = json.loads((out / "report.json").read_text())
    for key in ("jurisdiction", "site", "disturbed", "applicability", "plan_type", "findings"):
        assert key in r
    assert r["jurisdiction"] == "grantsburg" and r["plan_type"] == "statement"
    assert r["disturbed"]["area_sqft"] == pytest.approx(5000.0)
    assert all({"rule", "citation", "status", "message"} <= set(f) for f in r["findings"])
    assert {f["status"] for f in r["findings"]} <= {"pass", "fail", "info", "not_assessed"}
    md = (out / "report.md").read_text()
    assert "A(3)" in md and "## Findings by section" in md
    layers = [row[0] for row in __import__("pyogrio").list_layers(out / "derived.gpkg")]
    assert "disturbed_area" in layers
    assert not list(tmp_path.glob(".out.tmp-*"))
    for name in ("existing_site_map.pdf", "construction_plan.pdf", "final_conditions.pdf", "derived.dxf"):
        assert (out / name).stat().st_size > 0
    dxf = __import__("pyogrio").read_dataframe(out / "derived.dxf")
    assert set(dxf["Layer"]) >= {"C-PROP-BNDY", "C-ESCP-LIMT"}  # site boundary, limits of disturbance
    # the DXF keeps site coordinates: the disturbed rectangle's bounds in US survey feet
    b = dxf[dxf["Layer"] == "C-ESCP-LIMT"].total_bounds
    assert b == pytest.approx([X0, Y0, X0 + 100, Y0 + 50])


def test_cli_no_maps(tmp_path):
    folder = make_site(
        tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": [rect(0, 0, 100, 50)]}
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["analyze", str(folder), "--out", str(out), "--no-maps"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.iterdir()) == [
        "derived.dxf",
        "derived.gpkg",
        "geosite-manifest.json",
        "plan",
        "quantities.csv",
        "report.json",
        "report.md",
    ]


def test_cli_refuses_small_map_scale_before_work(tmp_path):
    folder = make_site(tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)]})
    res = CliRunner().invoke(cli, ["analyze", str(folder), "--out", str(tmp_path / "out"), "--scale", "200"])
    assert res.exit_code == 2 and "100" in res.output
    assert not (tmp_path / "out").exists()


def test_site_from_frames_with_a_dem_array():
    from geosite.site import Project
    from geosite.testing import inclined_plane

    crs = "EPSG:7593"
    layers = {
        "site_boundary": gpd.GeoDataFrame(geometry=[rect(300, -700, 300, 200)], crs=crs),
        "disturbance": gpd.GeoDataFrame(geometry=[rect(350, -650, 100, 100)], crs=crs),
    }
    site = geosite.site_from_frames(
        layers,
        name="frames",
        jurisdiction="grantsburg",
        dem=inclined_plane(15.0, shape=(500, 500)),
        project=Project(cut_cy=450.0),
    )
    r = geosite.analyze(site).report
    assert r["disturbed"]["area_sqft"] == pytest.approx(10_000.0)
    assert r["slopes"]["steep_disturbed_area_sqft"] == pytest.approx(10_000.0)
    assert r["applicability"]["applies"] is True
    with pytest.raises(geosite.errors.SiteValidationError, match="site_boundary"):
        geosite.site_from_frames({"disturbance": layers["disturbance"]}, name="x", jurisdiction="grantsburg")


def test_attribute_names_in_any_case(tmp_path):
    import datetime as dt

    roads = gpd.GeoDataFrame(
        {"STATUS": ["New"]}, geometry=[__import__("sitebuilder").line((0, -40), (300, -40))], crs="EPSG:7593"
    )
    dist = gpd.GeoDataFrame(
        {
            "Phase": [1, 2],
            "START": [dt.date(2027, 4, 1), dt.date(2027, 5, 1)],
            "End": [dt.date(2027, 6, 1), dt.date(2027, 9, 1)],
        },
        geometry=[rect(0, 0, 100, 100), rect(150, 0, 100, 100)],
        crs="EPSG:7593",
    )
    folder = make_site(
        tmp_path / "s", {"site_boundary": [rect(-50, -50, 400, 300)], "disturbance": dist, "roads": roads}
    )
    r = geosite.analyze(geosite.load_site(folder)).report
    assert next(t for t in r["applicability"]["triggers"] if t["rule"] == "road_work")["met"] is True
    assert r["disturbed"]["max_at_one_time_sqft"] == pytest.approx(20_000.0)
    assert r["disturbed"]["max_at_one_time_phases"] == ["1", "2"]


def test_quiet_flag_after_the_command(tmp_path):
    folder = make_site(
        tmp_path / "s", {"site_boundary": [rect(0, 0, 300, 200)], "disturbance": [rect(0, 0, 100, 50)]}
    )
    res = CliRunner().invoke(cli, ["analyze", str(folder), "--out", str(tmp_path / "out"), "--no-maps", "-q"])
    assert res.exit_code == 0, res.output
    assert res.output == ""
