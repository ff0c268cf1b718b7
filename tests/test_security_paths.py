"""A submission reaches nothing outside its folder and nothing on a network (issue 13, requirement 2).

Every hostile file is built here; ``geosite check`` must refuse it with exit 2 naming the key and why,
make zero requests to a counting loopback HTTP server, leave the submission byte-identical, and word
its refusal the same whether or not the outside file exists.
"""

from __future__ import annotations

import os
import re

import pytest
from click.testing import CliRunner
from hostile import digest, loopback_server, run_geosite, submission
from sitebuilder import write_toml

from geosite.cli import cli


def check(folder, out, *extra):
    return CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(out), *extra])


def toml(folder, **over):
    """Rewrite the submission's site.toml with tables replaced or added."""
    import tomllib

    conf = tomllib.loads((folder / "site.toml").read_text())
    for k, v in over.items():
        conf[k] = {**conf.get(k, {}), **v} if isinstance(v, dict) else v
        if isinstance(v, dict):
            conf[k] = {kk: vv for kk, vv in conf[k].items() if vv is not None}
    write_toml(folder / "site.toml", conf)


def assert_refused(res, out, *needles):
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    for n in needles:
        assert n in res.output, res.output
    assert not out.exists()


# ------------------------------------------------------------------------------------------ GDAL offline


def test_offline_gdal_makes_no_request_where_plain_gdal_does(tmp_path):
    """The GDAL options themselves (not only geosite's path checks): /vsicurl/ in rasterio's GDAL and
    pyogrio's makes requests without them and none with them."""
    import pyogrio
    import rasterio

    from geosite.io.untrusted import offline

    with loopback_server() as (url, requests):
        for name in ("a.tif", "b.geojson"):
            with pytest.raises(Exception):  # noqa: B017 - rasterio and pyogrio raise their own classes
                rasterio.open(f"/vsicurl/{url}/{name}") if name.endswith(".tif") else pyogrio.read_dataframe(
                    f"/vsicurl/{url}/{name}"
                )
        plain = len(requests)
        with offline():
            for name in ("c.tif", "d.tif"):
                with pytest.raises(Exception):  # noqa: B017 - any error of the reader is the refusal
                    rasterio.open(f"/vsicurl/{url}/{name}")
            for name in ("e.geojson", "f.gpkg"):
                with pytest.raises(Exception):  # noqa: B017 - any error of the reader is the refusal
                    pyogrio.read_dataframe(f"/vsicurl/{url}/{name}")
        assert plain >= 2 and len(requests) == plain, requests
    assert pyogrio.get_gdal_config_option("CPL_VSIL_CURL_ALLOWED_EXTENSIONS") is None  # restored


# ------------------------------------------------------------------------------------------ remote paths


REMOTE = [
    ("dem", "path", "/vsicurl/{url}/dem.tif"),
    ("dem", "path", "{url}/dem.tif"),
    ("dem", "proposed", "/vsicurl/{url}/proposed.tif"),
    ("layers", "roads", "/vsicurl/{url}/roads.geojson"),
    ("layers", "streams", "{url}/streams.geojson"),
    ("layers", "path", "WFS:{url}/wfs"),
    ("declared", "submitted_map", "/vsicurl/{url}/map.tif"),
]


@pytest.mark.parametrize(("table", "key", "value"), REMOTE)
def test_remote_paths_are_refused_with_no_request(tmp_path, table, key, value):
    folder = submission(tmp_path / "sub")
    with loopback_server() as (url, requests):
        toml(folder, **{table: {key: value.format(url=url)}})
        before = digest(folder)
        res = check(folder, tmp_path / "out")
        assert_refused(
            res, tmp_path / "out", f"[{table}]", key, "URL, connection string or GDAL virtual path"
        )
        assert requests == []
    assert digest(folder) == before


def test_vrts_and_xml_that_point_at_the_network_are_refused_with_no_request(tmp_path):
    folder = submission(tmp_path / "sub")
    with loopback_server() as (url, requests):
        # a raster VRT mosaicking a remote tile; a GDAL WMS description named like a GeoTIFF
        (folder / "mosaic.vrt").write_text(f"""<VRTDataset rasterXSize="10" rasterYSize="10">
  <VRTRasterBand dataType="Float32" band="1"><SimpleSource>
    <SourceFilename relativeToVRT="0">/vsicurl/{url}/tile.tif</SourceFilename><SourceBand>1</SourceBand>
  </SimpleSource></VRTRasterBand></VRTDataset>""")
        (folder / "wms.tif").write_text(
            f'<GDAL_WMS><Service name="TMS"><ServerUrl>{url}/${{z}}/${{x}}/${{y}}.png</ServerUrl>'
            "</Service><DataWindow><UpperLeftX>0</UpperLeftX></DataWindow></GDAL_WMS>"
        )
        # an OGR VRT over a remote GeoJSON; a WFS description named like a GeoPackage
        (folder / "roads.vrt").write_text(f"""<OGRVRTDataSource><OGRVRTLayer name="roads">
  <SrcDataSource>{url}/roads.geojson</SrcDataSource></OGRVRTLayer></OGRVRTDataSource>""")
        (folder / "wfs.gpkg").write_text(f"<OGRWFSDataSource><URL>{url}/wfs</URL></OGRWFSDataSource>")
        # check reads no VRT at all (issue 24): the refusal names the file and says what to send instead
        cases = [
            ({"dem": {"path": "mosaic.vrt"}}, "mosaic.vrt: a VRT"),
            ({"dem": {"path": "wms.tif"}}, "not a GeoTIFF, VRT or ASCII grid"),
            ({"layers": {"roads": "roads.vrt"}}, "roads.vrt: an OGR VRT"),
            ({"layers": {"streams": "wfs.gpkg"}}, "not a GeoPackage"),
        ]
        original = (folder / "site.toml").read_text()
        for over, needle in cases:
            (folder / "site.toml").write_text(original)
            toml(folder, **over)
            before = digest(folder)
            res = check(folder, tmp_path / "out")
            assert_refused(res, tmp_path / "out", needle)
            assert digest(folder) == before
        assert requests == []


def test_gml_and_kml_with_remote_references_are_read_offline(tmp_path):
    """A GML whose schema and a KML whose network link and icon are on a server: read from the file
    alone, no request made."""
    folder = submission(tmp_path / "sub")
    with loopback_server() as (url, requests):
        x0, y0 = 500_200.0 + 150, 200_000.0 - 300
        (folder / "inlets.gml").write_text(
            '<?xml version="1.0"?><ogr:FeatureCollection '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="http://ogr.maptools.org/ {url}/schema.xsd" '
            'xmlns:ogr="http://ogr.maptools.org/" '
            'xmlns:gml="http://www.opengis.net/gml"><gml:featureMember><ogr:inlets '
            'fid="inlets.0"><ogr:geometryProperty>'
            "<gml:Point "
            f'srsName="EPSG:7593"><gml:coordinates>{x0},{y0}</gml:coordinates></gml:Point></ogr:geometryProperty>'
            "</ogr:inlets></gml:featureMember></ogr:FeatureCollection>"
        )
        (folder / "wetlands.kml").write_text(
            f'<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><NetworkLink><Link>'
            f"<href>{url}/more.kml</href></Link></NetworkLink><Style "
            f'id="s"><IconStyle><Icon><href>{url}/i.png</href>'
            "</Icon></IconStyle></Style></Document></kml>"
        )
        toml(folder, layers={"storm_inlets": "inlets.gml", "wetlands": "wetlands.kml"})
        res = check(folder, tmp_path / "out")
        assert res.exit_code in (0, 1, 2) and "Traceback" not in res.output, res.output
        assert requests == []


# ------------------------------------------------------------------------------------------ escaping paths


def _outside(tmp_path):
    out = tmp_path / "outside"
    out.mkdir(exist_ok=True)
    (out / "secret.tif").write_bytes((tmp_path / "sub" / "dem.tif").read_bytes())
    (out / "secret.gpkg").write_bytes((tmp_path / "sub" / "layers.gpkg").read_bytes())
    (out / "secret.pdf").write_bytes(b"%PDF-1.4 secret")
    return out


ESCAPES = [
    ("dem", "path", "../outside/{name}.tif"),
    ("dem", "path", "{abs}/{name}.tif"),
    ("dem", "proposed", "../outside/{name}.tif"),
    ("layers", "path", "../outside/{name}.gpkg"),
    ("layers", "roads", "sub/../../outside/{name}.gpkg:site_boundary"),
    ("declared", "submitted_map", "../outside/{name}.tif"),
    ("declared", "final_conditions", "../outside/{name}.pdf"),
]


@pytest.mark.parametrize(("table", "key", "value"), ESCAPES)
def test_paths_leaving_the_folder_are_refused_alike_whether_or_not_the_file_exists(
    tmp_path, table, key, value
):
    folder = submission(tmp_path / "sub")
    outside = _outside(tmp_path)
    messages = []
    for name in ("secret", "nothing_here"):
        toml(folder, **{table: {key: value.format(name=name, abs=outside)}})
        before = digest(folder)
        res = check(folder, tmp_path / "out")
        assert_refused(res, tmp_path / "out", key)
        assert "outside the submission folder" in res.output or "absolute path" in res.output
        assert "not found" not in res.output
        assert digest(folder) == before
        messages.append(res.output.replace(name, "NAME"))
    assert messages[0] == messages[1]


def test_symbolic_links_out_of_the_folder_are_refused(tmp_path):
    folder = submission(tmp_path / "sub")
    outside = _outside(tmp_path)
    # the DEM a link to an outside file; a linked folder; the GeoPackage's side file a link
    # check stages the submission's regular files and refuses any link in it (issue 24), naming it
    (folder / "dem.tif").unlink()
    (folder / "dem.tif").symlink_to(outside / "secret.tif")
    res = check(folder, tmp_path / "out")
    assert_refused(res, tmp_path / "out", "dem.tif: a symbolic link")
    (folder / "dem.tif").unlink()
    (folder / "dem.tif").write_bytes((outside / "secret.tif").read_bytes())
    (folder / "data").symlink_to(outside, target_is_directory=True)
    toml(folder, layers={"roads": "data/secret.gpkg:site_boundary"})
    assert_refused(check(folder, tmp_path / "out"), tmp_path / "out", "data: a symbolic link")
    (folder / "data").unlink()
    toml(folder, layers={"roads": "layers.gpkg:site_boundary"})
    os.symlink("/etc/hostname", folder / "layers.gpkg-journal")
    assert_refused(check(folder, tmp_path / "out"), tmp_path / "out", "layers.gpkg-journal: a symbolic link")
    (folder / "layers.gpkg-journal").unlink()
    # site.toml itself a link out of the folder
    (outside / "site.toml").write_text((folder / "site.toml").read_text())
    (folder / "site.toml").unlink()
    (folder / "site.toml").symlink_to(outside / "site.toml")
    assert_refused(check(folder, tmp_path / "out"), tmp_path / "out", "site.toml: a symbolic link")
    # analyze (a consultant's own folder, not staged) still refuses a link leaving the folder
    (folder / "site.toml").unlink()
    (folder / "site.toml").write_text((outside / "site.toml").read_text())
    (folder / "dem.tif").unlink()
    (folder / "dem.tif").symlink_to(outside / "secret.tif")
    res = CliRunner().invoke(cli, ["-q", "analyze", str(folder), "--out", str(tmp_path / "a"), "--no-maps"])
    assert_refused(res, tmp_path / "a", "[dem] path", "outside the submission folder")


def analyze(folder, out):
    return CliRunner().invoke(cli, ["-q", "analyze", str(folder), "--out", str(out), "--no-maps"])


def test_vrt_sources_must_stay_inside(tmp_path):
    """analyze (a consultant's own folder) checks a VRT's sources; check refuses every VRT (issue 24)."""
    folder = submission(tmp_path / "sub")
    outside = _outside(tmp_path)
    vrt = """<VRTDataset rasterXSize="300" rasterYSize="300"><SRS>EPSG:7593</SRS>
  <GeoTransform>500000, 2, 0, 200000, 0, -2</GeoTransform>
  <VRTRasterBand dataType="Float32" band="1"><SimpleSource>
    <SourceFilename relativeToVRT="{rel}">{src}</SourceFilename><SourceBand>1</SourceBand>
  </SimpleSource></VRTRasterBand></VRTDataset>"""
    toml(folder, dem={"path": "mosaic.vrt"})
    for rel, src in (("1", "../outside/secret.tif"), ("0", str(outside / "secret.tif")), ("1", "dem.tif")):
        (folder / "mosaic.vrt").write_text(vrt.format(rel=rel, src=src))
        res = analyze(folder, tmp_path / ("ok" if src == "dem.tif" else "out"))
        if src == "dem.tif":  # a VRT over a tile inside the folder is fine for analyze
            assert res.exit_code in (0, 1), res.output
        else:
            assert_refused(res, tmp_path / "out", "VRT source", "outside the submission folder")
        assert_refused(check(folder, tmp_path / "out"), tmp_path / "out", "mosaic.vrt: a VRT")
    # a VRT of itself, and a Python pixel function
    (folder / "mosaic.vrt").write_text(vrt.format(rel="1", src="mosaic.vrt"))
    assert_refused(analyze(folder, tmp_path / "out"), tmp_path / "out", "cycle")
    (folder / "mosaic.vrt").write_text(
        vrt.format(rel="1", src="dem.tif")
        .replace("<VRTRasterBand", '<VRTRasterBand subClass="VRTDerivedRasterBand"')
        .replace(
            "<SimpleSource>",
            "<PixelFunctionLanguage>Python</PixelFunctionLanguage><PixelFunctionCode>import "
            "os</PixelFunctionCode><SimpleSource>",
        )
    )
    assert_refused(analyze(folder, tmp_path / "out"), tmp_path / "out", "Python pixel function")
    assert_refused(check(folder, tmp_path / "out"), tmp_path / "out", "mosaic.vrt: a VRT")


def test_ogr_vrt_sources_must_stay_inside(tmp_path):
    folder = submission(tmp_path / "sub")
    _outside(tmp_path)
    for src, ok in (("../outside/secret.gpkg", False), ("layers.gpkg", True)):
        (folder / "roads.vrt").write_text(f"""<OGRVRTDataSource><OGRVRTLayer name="roads">
  <SrcDataSource relativeToVRT="1">{src}</SrcDataSource><SrcLayer>site_boundary</SrcLayer>\
</OGRVRTLayer></OGRVRTDataSource>""")
        toml(folder, layers={"roads": "roads.vrt"})
        assert_refused(check(folder, tmp_path / "out"), tmp_path / "out", "roads.vrt: an OGR VRT")
        res = analyze(folder, tmp_path / ("ok" if ok else "out"))
        if ok:
            assert res.exit_code in (0, 1), res.output
        else:
            assert_refused(res, tmp_path / "out", "VRT source", "outside the submission folder")


def test_analyze_may_allow_outside_paths_with_a_flag_check_never(tmp_path):
    folder = submission(tmp_path / "sub")
    outside = _outside(tmp_path)
    toml(folder, dem={"path": str(outside / "secret.tif")})
    runner = CliRunner()
    res = runner.invoke(cli, ["-q", "analyze", str(folder), "--out", str(tmp_path / "a1"), "--no-maps"])
    assert_refused(res, tmp_path / "a1", "[dem] path", "absolute path")
    res = runner.invoke(
        cli,
        ["-q", "analyze", str(folder), "--out", str(tmp_path / "a2"), "--no-maps", "--allow-outside-paths"],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(
        cli, ["-q", "check", str(folder), "--out", str(tmp_path / "c"), "--allow-outside-paths"]
    )
    assert res.exit_code == 2 and "No such option" in res.output
    # the inspector's own --dem may lie anywhere
    toml(folder, dem={"path": "dem.tif"})
    res = check(folder, tmp_path / "c2", "--dem", str(outside / "secret.tif"))
    assert res.exit_code in (0, 1), res.output


# ------------------------------------------------------------------------------------------ special files


@pytest.mark.parametrize("which", ["layer", "dem", "site.toml", "side file"])
def test_fifos_are_refused_without_hanging(tmp_path, which):
    folder = submission(tmp_path / "sub")
    target = {"layer": "roads.gpkg", "dem": "fifo.tif", "site.toml": "site.toml", "side file": "layers.dbf"}[
        which
    ]
    if which == "layer":
        toml(folder, layers={"roads": "roads.gpkg"})
    elif which == "dem":
        toml(folder, dem={"path": "fifo.tif"})
    elif which == "side file":
        import geopandas as gpd

        gpd.read_file(folder / "layers.gpkg", layer="site_boundary").to_file(folder / "layers.shp")
        toml(folder, layers={"path": None, "site_boundary": "layers.shp"})
        (folder / "layers.dbf").unlink()
    if which == "site.toml":
        (folder / "site.toml").unlink()
    os.mkfifo(folder / target)
    res = run_geosite("-q", "check", str(folder), "--out", str(tmp_path / "out"), timeout=90)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "FIFO" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "out").exists()


def test_device_file_as_a_layer_is_refused(tmp_path):
    folder = submission(tmp_path / "sub")
    (folder / "zero.gpkg").symlink_to("/dev/zero")
    toml(folder, layers={"roads": "zero.gpkg"})
    assert_refused(check(folder, tmp_path / "out"), tmp_path / "out", "zero.gpkg: a symbolic link")
    assert_refused(
        analyze(folder, tmp_path / "out"), tmp_path / "out", "[layers] roads", "outside the submission folder"
    )
    # inside the folder (as a hard-to-make device would be): refused as a device, not read
    from geosite.errors import UnsafeInputError
    from geosite.io.untrusted import regular_file

    with pytest.raises(UnsafeInputError, match="device file"):
        regular_file(__import__("pathlib").Path("/dev/zero"), "layer roads")


def test_a_submission_with_a_path_to_a_profile_is_refused(tmp_path):
    """Requirement 3 in the same terms: site.toml's jurisdiction names an installed profile only."""
    folder = submission(tmp_path / "sub")
    lenient = folder / "lenient.toml"
    from importlib import resources

    text = (resources.files("geosite.rules") / "profiles" / "grantsburg.toml").read_text()
    lenient.write_text(text.replace('id = "grantsburg"', 'id = "lenient"'))
    for value in ("lenient.toml", str(lenient), "../../../tmp/lenient", "grantsburg/../belgium"):
        toml(folder, jurisdiction=value)
        res = check(folder, tmp_path / "out")
        assert_refused(res, tmp_path / "out", "not an installed profile")
    # the inspector may choose it, and the report names the file and its hash
    res = check(folder, tmp_path / "out", "--jurisdiction", str(lenient))
    assert res.exit_code in (0, 1), res.output
    import hashlib
    import json

    f = json.loads((tmp_path / "out" / "findings.json").read_text())
    assert f["profile_file"] == str(lenient)
    assert f["profile_sha256"] == hashlib.sha256(lenient.read_bytes()).hexdigest()
    html = (tmp_path / "out" / "report.html").read_text()
    assert f["profile_sha256"] in html and "lenient.toml" in html
    assert re.search(r"sha256", (tmp_path / "out" / "findings.md").read_text())
