"""derived.gpkg and findings.gpkg as GIS software reads them: a fixed schema whatever the site (every
layer, one declared geometry type, dates as GPKG DATE fields), a GeoPackage Debian's GDAL 3.6 reads
without a warning, and the sheets' styles applied by QGIS (Debian's python3-qgis, headless) when it
opens each layer.

The independent readers: SQLite (the file's version, the ``layer_styles`` rows), pyogrio (field types),
``/usr/bin/ogrinfo`` (GDAL 3.6) and QGIS 3.22 under ``/usr/bin/python3``; each skips, saying why, where
it is not installed (scripts/run_tests.sh installs gdal-bin, qgis and python3-qgis with apt as root)."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import geopandas as gpd
import pyogrio
import pytest
import shapely
from shapely.geometry import LineString, MultiLineString, Point, Polygon

from geosite.errors import OutputError
from geosite.io.output import FINDINGS_SCHEMA, write_findings_gpkg, write_gpkg
from geosite.io.qgis_styles import STATUS_COLOURS, dash_pattern
from geosite.views.layers import derived_schema, derived_styles, findings_context

#: derived.gpkg's schema: the site's and the analysis' layers, then each practice's (its descriptor's)
DERIVED_SCHEMA = derived_schema()


from geosite.maps.symbology import STYLES  # noqa: E402 - after the schema it styles


def layer_rules(styles):
    """derived.gpkg's QGIS styles (the practices' layers' legends from their descriptors)."""
    return derived_styles(styles)


CRS = "EPSG:7593"  # NAD83(2011) / WISCRS Burnett (ftUS), the Lot 7 sample's
OGRINFO = Path("/usr/bin/ogrinfo")
SYS_PYTHON = Path("/usr/bin/python3")


def _frame(geoms, crs=CRS, **cols):
    return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=crs)


def _declared(path):
    return dict(pyogrio.list_layers(path))


# --------------------------------------------------------------------------------------- the schema


def test_lot7_derived_gpkg_has_every_layer_of_the_readme_with_its_declared_type(lot7_outputs):
    path = lot7_outputs / "derived.gpkg"
    layers = pyogrio.list_layers(path)
    assert [n for n, _ in layers] == [*DERIVED_SCHEMA, "layer_styles"]
    got = _declared(path)
    for name, ls in DERIVED_SCHEMA.items():
        assert got[name] == ls.geometry, name
    # Lot 7 has no diversion: the layer is there, empty, declared
    assert pyogrio.read_info(path, layer="diversions")["features"] == 0
    with sqlite3.connect(path) as db:  # GPKG 1.2 (GDAL 3.6 warns on 1.4), read by SQLite itself
        assert db.execute("PRAGMA user_version").fetchone()[0] == 10200
        decl = {r[1]: r[2] for r in db.execute("PRAGMA table_info(disturbance_phases)")}
        assert decl["start"] == "DATE" and decl["end"] == "DATE"


def test_phase_dates_read_back_as_dates(lot7_outputs):
    report = json.loads((lot7_outputs / "report.json").read_text())
    phases = gpd.read_file(lot7_outputs / "derived.gpkg", layer="disturbance_phases")
    info = pyogrio.read_info(lot7_outputs / "derived.gpkg", layer="disturbance_phases")
    types = dict(zip(info["fields"], info["ogr_types"], strict=True))
    assert types["start"] == types["end"] == "OFTDate"
    want = {p["phase"]: p["start"] for p in report["measurements"]["disturbed.phases"]}
    got = {p: d.date().isoformat() for p, d in zip(phases["phase"], phases["start"], strict=True)}
    assert got == want  # Lot 7's one phase starts 2027-05-03


def test_same_schema_whatever_the_site(tmp_path):
    """One site's contours are all LineStrings, another's mixed with MultiLineStrings, a third has no
    layer but its boundary: the same layers and declared types in all three."""
    sq = Polygon([(0, 0), (100, 0), (100, 100), (0, 100)])
    a = {
        "site_boundary": _frame([sq], id=[1]),
        "contours": _frame([LineString([(0, 5), (100, 5)])], elevation_ft=[900.0], index=[False]),
    }
    b = {
        "site_boundary": _frame([sq], id=[1]),
        "contours": _frame(
            [LineString([(0, 5), (100, 5)]), MultiLineString([[(0, 10), (40, 10)], [(60, 10), (100, 10)]])],
            elevation_ft=[900.0, 905.0],
            index=[False, True],
        ),
    }
    c = {"site_boundary": _frame([sq], id=[1])}
    kinds = []
    for i, layers in enumerate((a, b, c)):
        path = tmp_path / f"{i}.gpkg"
        write_gpkg(path, layers, schema=DERIVED_SCHEMA)
        kinds.append(_declared(path))
    assert kinds[0] == kinds[1] == kinds[2] == {n: s.geometry for n, s in DERIVED_SCHEMA.items()}
    back = gpd.read_file(tmp_path / "1.gpkg", layer="contours")
    assert list(back.geom_type) == ["MultiLineString", "MultiLineString"]
    assert [round(g.length, 6) for g in back.geometry] == [100.0, 80.0]
    empty = pyogrio.read_info(tmp_path / "2.gpkg", layer="contours")
    assert empty["features"] == 0 and list(empty["fields"][:2]) == ["elevation_ft", "index"]


def test_clip_artefacts_dropped_and_a_wrong_family_refused(tmp_path):
    poly = Polygon([(0, 0), (10, 0), (10, 10), (0, 10)])
    clip = shapely.GeometryCollection([poly, LineString([(10, 0), (20, 0)])])  # what a clip can leave
    write_gpkg(tmp_path / "a.gpkg", {"site_boundary": _frame([clip], id=[1])})
    (g,) = gpd.read_file(tmp_path / "a.gpkg", layer="site_boundary").geometry
    assert g.geom_type == "MultiPolygon" and g.area == 100.0
    with pytest.raises(OutputError, match="inlet_protection.*Polygon"):
        write_gpkg(tmp_path / "b.gpkg", {"inlet_protection": _frame([poly], id=[1])}, schema=DERIVED_SCHEMA)


def test_findings_split_by_geometry_type(tmp_path):
    pt, ln = Point(5, 5), LineString([(0, 0), (30, 40)])
    poly = Polygon([(0, 0), (10, 0), (10, 10), (0, 10)])
    frame = _frame(
        [pt, ln, poly, shapely.GeometryCollection([Point(1, 1), poly]), None],
        finding_id=["F1", "F2", "F3", "F4", "F5"],
        rule=["r"] * 5,
        status=["fail", "info", "pass", "fail", "not_assessed"],
    )
    site = _frame([poly], id=[1])
    path = tmp_path / "findings.gpkg"
    # as review.check writes it: the context layers in the sheets' styles
    context, styles = findings_context(), layer_rules(STYLES)
    write_findings_gpkg(path, {"findings": frame, "site_boundary": site}, context=context, styles=styles)
    kinds = _declared(path)
    assert {n: kinds[n] for n in FINDINGS_SCHEMA} == {
        "findings": None,
        "findings_points": "MultiPoint",
        "findings_lines": "MultiLineString",
        "findings_polygons": "MultiPolygon",
    }
    assert "Unknown" not in kinds.values()
    ids = {
        n: list(pyogrio.read_dataframe(path, layer=n, read_geometry=False)["finding_id"])
        for n in FINDINGS_SCHEMA
    }
    assert ids == {
        "findings": ["F5"],
        "findings_points": ["F1", "F4"],
        "findings_lines": ["F2"],
        "findings_polygons": ["F3", "F4"],
    }
    lines = gpd.read_file(path, layer="findings_lines")
    assert lines.length.tolist() == [50.0]


# ----------------------------------------------------------------------------------------- GDAL 3.6


def _ogrinfo_version():
    if not OGRINFO.exists():
        return None
    return subprocess.run([OGRINFO, "--version"], capture_output=True, text=True, check=False).stdout


@pytest.mark.gdal
def test_debian_gdal_reads_both_geopackages_without_a_warning(lot7_outputs, tmp_path):
    version = _ogrinfo_version()
    if version is None:
        pytest.skip("/usr/bin/ogrinfo not installed (Debian gdal-bin; scripts/run_tests.sh installs it)")
    test_findings_split_by_geometry_type(tmp_path)
    for path in (lot7_outputs / "derived.gpkg", tmp_path / "findings.gpkg"):
        run = subprocess.run(
            [OGRINFO, "-ro", "-so", "-al", path], capture_output=True, text=True, check=False
        )
        said = run.stdout + run.stderr
        assert run.returncode == 0, said
        assert "Warning" not in said and "partially supported" not in said, (version, said[:2000])
        assert "Unknown (any)" not in said
    listing = subprocess.run(
        [OGRINFO, "-ro", lot7_outputs / "derived.gpkg"], capture_output=True, text=True, check=False
    ).stdout
    assert "5: contours (Multi Line String)" in listing and "4: steep_slopes (Polygon)" in listing


# -------------------------------------------------------------------------------------- QGIS styles


def test_one_default_style_per_layer(lot7_outputs):
    with sqlite3.connect(lot7_outputs / "derived.gpkg") as db:
        rows = db.execute(
            "SELECT f_table_name, f_geometry_column, useAsDefault, styleQML, styleSLD FROM layer_styles"
        ).fetchall()
    assert sorted(r[0] for r in rows) == sorted(DERIVED_SCHEMA)  # one row per layer
    assert all(
        r[1] == "geom"
        and r[2] == 1
        and r[3].startswith("<!DOCTYPE qgis")
        and "<StyledLayerDescriptor" in r[4]
        for r in rows
    )


def test_styles_are_well_formed_xml(lot7_outputs):
    import xml.etree.ElementTree as ET

    with sqlite3.connect(lot7_outputs / "derived.gpkg") as db:
        for name, q, sld in db.execute("SELECT f_table_name, styleQML, styleSLD FROM layer_styles"):
            assert ET.fromstring(q).tag == "qgis", name
            assert ET.fromstring(sld.encode()).tag.endswith("StyledLayerDescriptor"), name


def test_sheet_styles_read_without_matplotlib():
    """write_outputs without maps reads the sheets' styles without the maps package's matplotlib, and
    gets the same looks."""
    import sys

    code = (
        "import sys, json; from geosite.views.layers import sheet_styles; s = sheet_styles(); "
        "print(json.dumps(['matplotlib' in sys.modules, {k: [v.edge, v.face, v.lw, str(v.ls)] for k, v in "
        "s.items()}]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    loaded, looks = json.loads(run.stdout)
    assert not loaded
    assert looks == {k: [v.edge, v.face, v.lw, str(v.ls)] for k, v in STYLES.items()}


def test_status_colours_are_report_html_s():
    from geosite.review.html import STATUS_COLOURS as HTML

    assert STATUS_COLOURS == HTML


def test_matplotlib_dashes_scale_with_the_line_width():
    # matplotlib draws (0, (4, 1.5, 1, 1.5)) at 1.2 pt as 4.8 pt dashes; QGIS takes absolute lengths
    assert dash_pattern((0, (4, 1.5, 1, 1.5)), 1.2) == (4.8, 1.8, 1.2, 1.8)
    assert dash_pattern("-", 2.0) is None


_QGIS_SCRIPT = r"""
import json, sqlite3, sys
from qgis.core import QgsApplication, QgsRenderContext, QgsVectorLayer
app = QgsApplication([], False)
app.initQgis()
out = {}
for path in sys.argv[1:]:
    names = [r[0] for r in sqlite3.connect(path).execute(
        "SELECT table_name FROM gpkg_contents WHERE table_name != 'layer_styles'")]
    for name in names:
        layer = QgsVectorLayer(f"{path}|layername={name}", name, "ogr")
        r = layer.renderer()
        symbols = r.symbols(QgsRenderContext()) if r is not None else []
        lab = layer.labeling() if layer.labelsEnabled() else None
        if lab is not None and lab.type() == "rule-based":
            rule = lab.rootRule().children()[0]
            lab = {
                "type": "rule-based",
                "filter": rule.filterExpression(),
                "field": rule.settings().fieldName,
            }
        elif lab is not None:
            lab = {"type": lab.type(), "field": lab.settings().fieldName}
        out[f"{path.rsplit('/', 1)[-1].removesuffix('.gpkg')}:{name}"] = {
                     "labels": lab,
                     "valid": layer.isValid(), "renderer": r.type() if r is not None else None,
                     "symbols": [[{"class": sl.layerType(), "color": sl.color().name(),
                                   "alpha": sl.color().alpha(),
                                   "width": sl.width() if hasattr(sl, "width") else None,
                                   "size": sl.size() if hasattr(sl, "size") else None}
                                  for sl in s.symbolLayers()] for s in symbols]}
print(json.dumps(out))
"""


def _qgis_available():
    if not SYS_PYTHON.exists():
        return "no /usr/bin/python3"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("PYTHONPATH", None)
    run = subprocess.run(
        [SYS_PYTHON, "-c", "import qgis.core"], capture_output=True, text=True, env=env, check=False
    )
    return (
        None if run.returncode == 0 else "QGIS's Python bindings are not installed (Debian qgis python3-qgis)"
    )


def _expected(look, geometry):
    """The first symbol layer's colour and its width (line) or size (marker), as the sheets draw it."""
    family = geometry.removeprefix("Multi")
    if family == "LineString":
        return "SimpleLine", look.edge, look.lw
    if family == "Point":
        face = look.face if look.face != "none" else "#ffffff"
        return "SimpleMarker", face, None if look.kind == "polygon" else look.size
    if look.face != "none":
        return "SimpleFill", look.face, None
    return ("SimpleFill", look.edge, None) if look.hatch else ("SimpleLine", look.edge, look.lw)


def test_qgis_opens_every_layer_with_the_sheets_style(lot7_outputs, tmp_path):
    why = _qgis_available()
    if why:
        pytest.skip(why)
    test_findings_split_by_geometry_type(tmp_path)
    findings = tmp_path / "findings.gpkg"
    script = tmp_path / "load.py"
    script.write_text(_QGIS_SCRIPT)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": str(tmp_path)}
    env.pop("PYTHONPATH", None)
    run = subprocess.run(
        [SYS_PYTHON, script, lot7_outputs / "derived.gpkg", findings],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    rules = layer_rules(STYLES)
    schema = {**DERIVED_SCHEMA, **FINDINGS_SCHEMA}
    assert set(got) == (
        {f"derived:{n}" for n in DERIVED_SCHEMA}
        | {f"findings:{n}" for n in FINDINGS_SCHEMA}
        | {
            "findings:site_boundary",
            "findings:disturbed_area",
            "findings:filter_fence",
            "findings:fence_gaps",
        }
    )
    for key, info in got.items():
        name = key.split(":")[1]
        assert info["valid"], key
        geometry = schema[name].geometry
        if geometry is None:  # the findings without a place: a table, nothing to draw
            assert info["renderer"] is None, name
            continue
        want = "singleSymbol" if len(rules[name]) == 1 else "RuleRenderer"
        assert info["renderer"] == want, name
        assert len(info["symbols"]) == len(rules[name]), name
        for rule, symbol in zip(rules[name], info["symbols"], strict=True):
            cls, colour, width = _expected(rule.look, geometry)
            first = symbol[0]
            assert (first["class"], first["color"]) == (cls, colour.lower()), (name, rule.label, symbol)
            if width is not None:
                assert first["width" if cls == "SimpleLine" else "size"] == pytest.approx(width), (
                    name,
                    rule.label,
                )
    # the stand-in rows and index contours: their own symbols, as on the sheets
    assert got["derived:filter_fence"]["symbols"][0][0]["color"] == STYLES["fence_stand_in"].edge
    assert got["derived:contours"]["symbols"][0][0]["width"] == STYLES["index_contours"].lw
    assert got["findings:findings_polygons"]["symbols"][0][0]["color"] == STATUS_COLOURS["fail"]
    # labelled as on the sheets: index contours with their elevation, inlets with their names
    assert got["derived:contours"]["labels"] == {
        "type": "rule-based",
        "filter": '"index"',
        "field": "elevation_ft",
    }
    assert got["derived:inlet_protection"]["labels"] == {"type": "simple", "field": "name"}
    assert got["derived:site_boundary"]["labels"] is None


def test_dates_of_any_layer_are_dates(tmp_path):
    """A practice's install and removal dates (bmps conventions) are DATE fields in any layer."""
    f = _frame(
        [Point(0, 0), Point(1, 1)],
        id=[1, 2],
        install=["2027-05-03", None],
        remove=[dt.date(2027, 10, 1), None],
    )
    write_gpkg(tmp_path / "a.gpkg", {"site_boundary": None, "extra_points": f})
    info = pyogrio.read_info(tmp_path / "a.gpkg", layer="extra_points")
    types = dict(zip(info["fields"], info["ogr_types"], strict=True))
    assert types["install"] == types["remove"] == "OFTDate"
    back = gpd.read_file(tmp_path / "a.gpkg", layer="extra_points")
    assert back["install"].iloc[0].date() == dt.date(2027, 5, 3) and back["install"].isna().iloc[1]
    assert info["geometry_type"] == "MultiPoint"
