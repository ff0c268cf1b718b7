"""geosite check's validation of the submitted geometry and of the submitted map, each seeded alone on
the clean submission of test_review_check: slivers, duplicates, layers off the site, BMPs outside the
site, a layer whose CRS contradicts the declared one, the scale and extent of a GeoTIFF map."""

from __future__ import annotations

import pytest
from sitebuilder import X0, Y0, point, rect, write_map
from test_review_check import bmp_frame, clean_conf, clean_layers, fails, finding_geoms, gdf, line, run_check

from geosite.testing import inclined_plane


@pytest.fixture(scope="module")
def dem():
    return inclined_plane(4.0, shape=(200, 200), cell=4.0)


def only_fail(data, rule):
    fs = fails(data)
    assert [f["rule"] for f in fs] == [rule], [(f["rule"], f["message"]) for f in fs]
    return fs[0]


def test_sliver_in_disturbance(tmp_path, dem):
    layers = clean_layers()
    d = layers["disturbance"]
    layers["disturbance"] = gdf(
        list(d.geometry) + [rect(300, -400, 50, 0.5)],
        id=[1, 2],
        start=["2027-05-03"] * 2,
        end=["2027-10-29"] * 2,
    )
    res, data, out = run_check(tmp_path, dem, layers)
    f = only_fail(data, "geometry.sliver")
    assert res.exit_code == 1 and f["feature_ids"] == [2] and f["citation"] == "A(3)(a)"
    g = finding_geoms(out).set_index("finding_id").loc[f["id"], "geometry"]
    assert g.centroid.x - X0 == pytest.approx(325) and g.centroid.y - Y0 == pytest.approx(-399.75)


def test_duplicate_bmp(tmp_path, dem):
    layers = clean_layers()
    b = layers["bmps"]
    layers["bmps"] = bmp_frame(
        list(b.geometry) + [b.geometry.iloc[4]], list(b["id"]) + [9], list(b["type"]) + ["inlet_protection"]
    )
    res, data, _ = run_check(tmp_path, dem, layers)
    f = only_fail(data, "geometry.duplicate")
    assert f["feature_ids"] == [5, 9] and f["layer"] == "bmps"


def test_layer_off_site_and_bmp_outside(tmp_path, dem):
    layers = clean_layers()
    layers["wetlands"] = gdf([rect(5000, 5000, 100, 100)], id=[1])
    res, data, _ = run_check(tmp_path, dem, layers)
    f = only_fail(data, "geometry.layer_off_site")
    assert f["layer"] == "wetlands" and f["values"]["distance_ft"] > 4000

    layers = clean_layers()
    b = layers["bmps"]
    layers["bmps"] = bmp_frame(
        list(b.geometry) + [line((700, -300), (750, -300))],
        list(b["id"]) + [10],
        list(b["type"]) + ["silt_fence"],
    )
    res, data, _ = run_check(tmp_path / "b", dem, layers)
    f = only_fail(data, "geometry.bmp_outside_site")
    assert f["feature_ids"] == [10] and f["values"]["distance_ft"] == pytest.approx(100.0)


def test_trap_footprint_reaching_past_the_boundary(tmp_path, dem):
    """A submitted trap drawn at its size across the site's north edge (y = -200): a 30 ft square
    centred on the edge, 450 sq ft of its 900 off the site, 15 ft beyond it (past the profile's 10 ft
    tolerance); the same trap wholly inside passes, and a point trap on the edge is where it belongs.
    """

    def with_trap(geom, kind="sediment_trap"):
        layers = clean_layers()
        b = layers["bmps"]
        layers["bmps"] = bmp_frame(list(b.geometry) + [geom], list(b["id"]) + [10], list(b["type"]) + [kind])
        return layers

    res, data, _ = run_check(tmp_path / "a", dem, with_trap(rect(285, -215, 30, 30)))
    f = only_fail(data, "geometry.bmp_outside_site")
    assert f["feature_ids"] == [10] and "Sediment trap C10" in f["message"]  # the control by what it is
    assert f["values"]["outside_sqft"] == pytest.approx(450.0, rel=1e-6)
    assert f["values"]["footprint_sqft"] == pytest.approx(900.0, rel=1e-6)
    assert f["values"]["distance_ft"] == pytest.approx(15.0, rel=1e-6)
    assert "450 sq ft of its 900 sq ft footprint lies outside the boundary" in f["message"]
    _, data, _ = run_check(tmp_path / "b", dem, with_trap(rect(285, -245, 30, 30), "sediment_basin"))
    assert not any(f["rule"] == "geometry.bmp_outside_site" for f in fails(data))
    _, data, _ = run_check(tmp_path / "c", dem, with_trap(point(300, -200)))
    assert not any(f["rule"] == "geometry.bmp_outside_site" for f in fails(data))


def test_layer_crs_contradicts_declared(tmp_path, dem):
    layers = clean_layers()
    layers["soils"] = layers["soils"].to_crs("EPSG:3070")  # Wisconsin Transverse Mercator, metres
    res, data, _ = run_check(tmp_path, dem, layers)
    f = only_fail(data, "crs.layer_contradicts_declared")
    assert f["layer"] == "soils" and "Transverse Mercator" in f["submitted"]


@pytest.mark.parametrize(("pixel_ft", "dpi", "ok"), [(2.0, 50, True), (2.0, 72, False)])
def test_submitted_geotiff_scale(tmp_path, dem, pixel_ft, dpi, ok):
    folder = tmp_path / "sub"
    folder.mkdir()
    write_map(folder / "map.tif", pixel_ft, dpi)
    from sitebuilder import make_site  # writes into the same folder

    make_site(folder, clean_layers(), clean_conf(submitted_map="map.tif", map_dpi=dpi), dem=dem)
    from click.testing import CliRunner

    from geosite.cli import cli

    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp_path / "out"), "--no-html"])
    import json

    data = json.loads((tmp_path / "out" / "findings.json").read_text())
    f = next(x for x in data["findings"] if x["rule"] == "plan_content.full.A_1.map")
    assert f["values"]["ft_per_in"] == pytest.approx(pixel_ft * dpi)
    assert f["status"] == ("pass" if ok else "fail") and res.exit_code == (0 if ok else 1)


def test_submitted_map_too_small_an_extent(tmp_path, dem):
    folder = tmp_path / "sub"
    folder.mkdir()
    write_map(folder / "map.tif", 1.0, 100, extent=(150, -650, 500, 500))  # 50 ft around the site, not 200
    from sitebuilder import make_site

    make_site(folder, clean_layers(), clean_conf(submitted_map="map.tif", map_dpi=100), dem=dem)
    from click.testing import CliRunner

    from geosite.cli import cli

    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp_path / "out"), "--no-html"])
    assert res.exit_code == 1
    import json

    f = only_fail(json.loads((tmp_path / "out" / "findings.json").read_text()), "plan_content.full.A_1.map")
    assert "200 ft around it" in f["message"] and f["citation"] == "A(1)"
    assert f["values"]["ft_per_in"] == pytest.approx(100.0)
