"""One plan, every view (issue 31): the sheets, the plan folder's layers and ``check`` are drawn from one
:class:`geosite.plan.Plan`.

The rules held here, each on the Lot 7 sample and a built lot:

- the plan folder's construction sheet names every control of its layers (its tag, ``C7``, on the map or in
  the schedule) and no other; the top-level sheet is the plan folder's;
- the plan folder's GeoPackage is 1.2, the controls in one layer per geometry type with the same typed
  columns for every site (INTEGER ids, DATE dates), every layer styled, read back by ``check``;
- a sheet of another plan than the layers (a control moved or removed since it was drawn) is the
  inspector's decision, naming the controls; a sheet drawn elsewhere is declared, not read;
- opened in QGIS (Debian's python3-qgis, where installed): no warning, every layer valid and styled, no
  feature hidden.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import geopandas as gpd
import pyogrio
import pypdfium2
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st
from test_round_trip import lot

import geosite
from geosite.pipeline import write_outputs
from geosite.plan.model import COLUMNS
from geosite.plan.stamp import read_stamp, stamp_of
from geosite.plan.table import parse_tags, tag_runs
from geosite.practices import registry
from geosite.review import check_submission
from geosite.views.plan_layers import CONTROL_LAYERS

ROOT = Path(__file__).resolve().parents[1]
LOT7 = ROOT / "data" / "sample_sites" / "grantsburg_lot7"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[object, Path]]:
    """Lot 7 and a built 14 % lot, analyzed with their sheets: (the analysis, its output folder)."""
    tmp = tmp_path_factory.mktemp("one_plan")
    out = {}
    for name, folder in (("lot7", LOT7), ("lot", lot(tmp / "lot_site", 14.0, (200.0, -420.0, 220.0, 160.0)))):
        result = geosite.analyze(geosite.load_site(folder))
        write_outputs(result, tmp / name, maps=True)
        out[name] = (result, tmp / name)
    return out


def _controls(gpkg: Path) -> gpd.GeoDataFrame:
    """The plan folder's controls, the three layers read as one."""
    frames = [gpd.read_file(gpkg, layer=name) for name in CONTROL_LAYERS.values()]
    return gpd.GeoDataFrame(gpd.pd.concat(frames, ignore_index=True), geometry="geometry", crs=frames[0].crs)


def _text(pdf: Path) -> str:
    doc = pypdfium2.PdfDocument(pdf)
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in doc)
    finally:
        doc.close()


@pytest.mark.parametrize("name", ["lot7", "lot"])
def test_the_sheet_names_every_control_of_the_layers_and_no_other(runs, name):
    result, out = runs[name]
    ids = {int(i) for i in _controls(out / "plan" / "layers.gpkg")["id"]}
    assert ids == {c.id for c in result.plan.controls} and ids
    sheet = out / "plan" / "construction_plan.pdf"
    assert parse_tags(_text(sheet)) == ids
    # the run's own sheet is the plan folder's: one plan drawn once
    assert sheet.read_bytes() == (out / "construction_plan.pdf").read_bytes()
    # the schedule's quantities are the layer's measured sizes: the fences' feet summed by hand
    fences = [c for c in result.plan.controls if c.practice == "silt_fence"]
    assert sum(result.plan.quantity(c)[0] for c in fences) == pytest.approx(
        sum(c.geometry.length for c in fences) * result.site.ft_per_unit, abs=0.05 * len(fences)
    )


def test_the_plan_geopackage_is_1_2_typed_and_the_same_for_every_site(runs):
    schemas = []
    for _result, out in runs.values():
        gpkg = out / "plan" / "layers.gpkg"
        with sqlite3.connect(gpkg) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == 10200  # GeoPackage 1.2
            styled = {r[0] for r in db.execute("SELECT f_table_name FROM layer_styles")}
        names = [n for n, _ in pyogrio.list_layers(gpkg) if n != "layer_styles"]
        assert styled == set(names)
        assert set(CONTROL_LAYERS.values()) <= set(names)
        info = {n: pyogrio.read_info(gpkg, layer=n) for n in CONTROL_LAYERS.values()}
        for n, family in zip(
            CONTROL_LAYERS.values(), ("MultiPoint", "MultiLineString", "MultiPolygon"), strict=True
        ):
            assert info[n]["geometry_type"] == family
        schemas.append({n: (list(i["fields"]), list(i["ogr_types"])) for n, i in info.items()})
    assert schemas[0] == schemas[1]
    fields, types = schemas[0]["bmps_lines"]
    assert fields == list(COLUMNS)
    typed = dict(zip(fields, types, strict=True))
    assert typed["id"] == typed["pile_id"] == typed["drive_id"] == "OFTInteger64"
    assert typed["install"] == typed["remove"] == "OFTDate"


def test_check_reads_the_plan_folder_back_and_its_sheets_agree(runs):
    result, out = runs["lot7"]
    checked = check_submission(out / "plan")
    assert sorted((c.id, c.practice) for c in checked.analysis.plan.controls) == [
        (c.id, c.practice) for c in result.plan.controls
    ]
    agree = [f for f in checked.findings if f.rule.endswith("maps_agree")]
    assert [f.status for f in agree] == ["pass"], [f.message for f in agree]


def _edited(out: Path, tmp: Path, edit) -> Path:
    """A copy of the plan folder whose controls ``edit`` changes (the sheets left as they were)."""
    folder = tmp / "edited"
    shutil.copytree(out / "plan", folder)
    gpkg = folder / "layers.gpkg"
    layers = {n: gpd.read_file(gpkg, layer=n) for n, _ in pyogrio.list_layers(gpkg) if n != "layer_styles"}
    edit(layers)
    gpkg.unlink()
    for n, g in layers.items():
        g.to_file(gpkg, layer=n, driver="GPKG")
    return folder


def test_a_sheet_of_another_plan_is_the_inspectors_decision(runs, tmp_path):
    result, out = runs["lot7"]
    lines = [c for c in result.plan.controls if c.family == "line"]
    areas = [c for c in result.plan.controls if c.family == "polygon"]
    moved, gone = lines[0].id, areas[-1].id

    def edit(layers):
        sel = layers["bmps_lines"]["id"] == moved
        layers["bmps_lines"].loc[sel, "geometry"] = layers["bmps_lines"][sel].translate(xoff=20.0)
        layers["bmps_polygons"] = layers["bmps_polygons"][layers["bmps_polygons"]["id"] != gone]

    checked = check_submission(_edited(out, tmp_path, edit))
    agree = [f for f in checked.findings if f.rule.endswith("maps_agree")]
    assert [f.status for f in agree] == ["inspector_decision"]
    msg = agree[0].message
    assert f"C{moved} drawn elsewhere" in msg and f"C{gone} on the sheet, not in the layers" in msg


def test_a_sheet_drawn_elsewhere_is_declared_not_read(runs, tmp_path):
    _result, out = runs["lot"]
    folder = tmp_path / "elsewhere"
    shutil.copytree(out / "plan", folder)
    for pdf in folder.glob("*.pdf"):  # the same sheets, without geosite's stamp (drawn by another program)
        data = pdf.read_bytes()
        start = data.rfind(b"geosite-plan:")
        pdf.write_bytes(data[:start] + b"x" * 13 + data[start + 13 :])
    agree = [f for f in check_submission(folder).findings if f.rule.endswith("maps_agree")]
    assert [f.status for f in agree] == ["info"]
    assert "declared, not read" in agree[0].message


def test_the_stamp_read_back_is_the_plans(runs):
    result, out = runs["lot7"]
    assert read_stamp(out / "plan" / "construction_plan.pdf") == stamp_of(result.plan)


@given(st.sets(st.integers(min_value=1, max_value=400), max_size=60))
def test_tag_runs_read_back_as_the_numbers_they_name(ids):
    assert parse_tags(tag_runs(sorted(ids))) == ids


def test_every_control_symbol_is_one_its_practice_lists():
    for p in registry.PRACTICES:
        for family in {*p.drawn, *p.submitted}:
            for status in ("proposed", "submitted"):
                options = p.symbols(family, status)
                assert not options[-1].where  # the last takes every other control
                for attrs in ({}, *(dict(s.where) for s in options)):
                    assert p.symbol(family, attrs, status) in options
    fence = registry.named("silt_fence")
    down = fence.symbol("line", {"side": "downslope"}, "proposed")
    side = fence.symbol("line", {"side": "sideslope"}, "proposed")
    assert down.style.edge != side.style.edge and "downslope" in down.style.label


def test_no_cover_is_laid_on_a_structure(runs):
    result, _out = runs["lot7"]
    house = shapely.union_all(result.site.layers["structures"].geometry.values)
    covers = [c for c in result.plan.controls if registry.named(c.practice).family == "cover"]
    assert covers
    for c in covers:  # under 1 sq ft: the edges the cells' outline shares with the footprint
        assert c.geometry.intersection(house).area * result.site.ft_per_unit**2 < 1.0, c.tag


def _qgis_python() -> str | None:
    python = shutil.which("python3", path="/usr/bin")
    if python is None:
        return None
    ok = subprocess.run(
        [python, "-c", "import qgis.core"],
        capture_output=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    return python if ok.returncode == 0 else None


@pytest.mark.skipif(_qgis_python() is None, reason="QGIS's Python (python3-qgis) is not installed")
def test_qgis_opens_the_plan_folder_without_a_warning_every_layer_styled(runs):
    _result, out = runs["lot7"]
    gpkg = out / "plan" / "layers.gpkg"
    run = subprocess.run(
        [str(_qgis_python()), str(ROOT / "scripts" / "qgis_open_gpkg.py"), str(gpkg)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["warnings"] == []
    for name, layer in seen["layers"].items():
        assert layer["valid"], name
        assert layer["features"] == pyogrio.read_info(gpkg, layer=name)["features"], name
        assert layer["hidden"] == 0, name
    # the controls drawn in their practices' colours: the downslope fence's red, the sideslope's ochre
    assert {"#b03a2e", "#b9770e"} <= set(seen["layers"]["bmps_lines"]["colours"])
