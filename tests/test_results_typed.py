"""Results as small frozen dataclasses, not tuples (issue 30 item 7): a caller reads ``result.gaps``, never
``result[1]``, and a yes / no / not decided with its reason is the one :class:`geosite.verdict.Verdict`.

The rule is held over the whole package by reading its source: a public function (or a public class's
method) whose return annotation is a tuple of two or more items (``tuple[X, ...]``, one kind of thing
however many, is a sequence and allowed) is listed in :data:`TUPLES_KEPT` with why, and nothing is listed
there that no longer returns one. Then each converted result is checked on a case small enough to work by
hand.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest
from shapely.geometry import LineString, box

ROOT = Path(__file__).resolve().parents[1]

NUMPY = "arrays (or a numpy index) returned together, the numpy idiom (np.nonzero, np.divmod, a.shape)"
BOUNDS = (
    "a box (minx, miny, maxx, maxy) or (left, bottom, width, height): shapely's, rasterio's, matplotlib's"
)
MPL = "overrides matplotlib's RendererBase method: its signature is matplotlib's"
AFTER = "in a file being edited elsewhere now; after the merge: "
NEXT = "not converted yet (its file was not in this change); proposed: "

#: every public function still returning a tuple, and why (each a reason, or the dataclass it is to get)
TUPLES_KEPT: dict[tuple[str, str], str] = {
    # the numpy idiom
    ("geosite/grid.py", "Dem.shape"): NUMPY,
    ("geosite/grid.py", "rowcol"): NUMPY,
    ("geosite/grid.py", "centres"): NUMPY,
    ("geosite/grid.py", "cells_box"): NUMPY + " (a (rows, cols) slice pair indexes an array)",
    ("geosite/testing.py", "cell_centres"): NUMPY,
    ("geosite/hydrology/flow.py", "FlowGrid.downhill"): NUMPY,
    ("geosite/hydrology/flow.py", "FlowGrid.downhill_at"): NUMPY,
    ("geosite/hydrology/flow.py", "FlowGrid.receivers"): NUMPY,
    ("geosite/hydrology/flow.py", "FlowGrid.dinf"): NUMPY,
    ("geosite/hydrology/flow.py", "downhill_field"): NUMPY,
    ("geosite/hydrology/flow.py", "sample_vectors"): NUMPY,
    ("geosite/hydrology/flow.py", "receivers"): NUMPY,
    ("geosite/hydrology/certify.py", "lowest_fill_by_seed"): NUMPY,
    # boxes
    ("geosite/grid.py", "Dem.bounds"): BOUNDS,
    ("geosite/grid.py", "bounds_in"): BOUNDS,
    ("geosite/hydrology/certify.py", "coarse_drainage_box"): BOUNDS + " (rows r0:r1, columns c0:c1)",
    ("geosite/hydrology/fill_proof.py", "CoarseOutlets.basin_box"): BOUNDS + " (rows r0:r1, columns c0:c1)",
    ("geosite/maps/common.py", "MapContext.extent"): BOUNDS,
    (
        "geosite/maps/common.py",
        "lon_lat",
    ): "a coordinate pair (longitude, latitude), as pyproj's Transformer.transform returns it",
    ("geosite/maps/sheets.py", "Sheet.frame"): BOUNDS,
    ("geosite/maps/sheets.py", "Sheet.panel"): BOUNDS,
    ("geosite/maps/sheets.py", "map_extent"): BOUNDS,
    ("geosite/maps/printing.py", "CoreFontRenderer.get_text_width_height_descent"): MPL,
    # files other changes are editing now: the dataclass each is to get after the merge
    ("geosite/controls/fences.py", "filter_fence"): AFTER + "FilterFence(fence, runs)",
    ("geosite/controls/fences.py", "buildable_rows"): AFTER + "Rows(lines, gaps: list[RowGap])",
    ("geosite/controls/fences.py", "crew_rows"): AFTER + "Rows(lines, gaps: list[RowGap])",
    ("geosite/controls/slope_length.py", "cells_window"): NUMPY
    + " (a (rows, cols) slice pair indexes an array)",
    ("geosite/controls/slope_length.py", "inside_receiver"): NUMPY,
    ("geosite/controls/channel_fences.py", "channel_inflow_banks"): AFTER + "InflowBanks(left, right)",
    ("geosite/controls/fence_ends.py", "best_turn"): AFTER
    + "Turn(direction, climb_ft) | None (its caller, fences._climbing, reads best[0] and best[1])",
    ("geosite/maps/existing.py", "draw_existing"): AFTER + "DrawnSheet(panel, title_rows)",
    ("geosite/maps/construction.py", "draw_construction"): AFTER + "DrawnSheet(panel, title_rows)",
    ("geosite/maps/final.py", "draw_final"): AFTER + "DrawnSheet(panel, title_rows)",
    ("geosite/maps/soil_loss.py", "draw_soil_loss"): AFTER + "DrawnSheet(panel, title_rows)",
    ("geosite/maps/provisions.py", "schedule_table"): AFTER + "ScheduleTable(rows, notes)",
    ("geosite/maps/sheets.py", "Sheet.ground_ft"): AFTER + "GroundSize(width_ft, height_ft)",
    ("geosite/views/dxf.py", "cad_layer"): AFTER + "geosite.symbols.CadLook (the same four fields)",
    ("geosite/views/cad_tables.py", "write_tables"): BOUNDS + " (the extent written)",
    ("geosite/hydrology/certify.py", "coarse_floor"): AFTER + "CoarseFloor(floor, block_side)",
    ("geosite/io/isolate.py", "enter_network_namespace"): AFTER + "geosite.verdict.Verdict (held, why not)",
    ("geosite/io/isolate.py", "block_sockets"): AFTER + "geosite.verdict.Verdict (held, why not)",
    ("geosite/io/isolate.py", "restrict_files"): AFTER + "geosite.verdict.Verdict (held, why not)",
    ("geosite/site/site_toml.py", "read_site_toml"): AFTER + "SiteToml(table, path)",
    ("geosite/site/layer_checks.py", "validate_layers"): AFTER + "ValidLayers(crs, layers)",
    ("geosite/site/site_toml.py", "jurisdiction_of"): NEXT + "Jurisdiction(name, profile)",
    # not in this change's files
    ("geosite/grid.py", "Dem.crop"): NEXT + "Crop(dem, rows, cols)",
    ("geosite/io/output.py", "layer_arrays"): NEXT + "LayerArrays(geometry, names, arrays, masks)",
    ("geosite/plan/model.py", "Plan.quantity"): NEXT + "Quantity(amount, unit) | None",
    ("geosite/scale/inputs_marker.py", "inputs_hash"): NEXT + "InputsHash(digest, lines)",
}


def _returns_tuple(ann: ast.expr | None) -> bool:
    """Whether a return annotation is a tuple of two or more items (``X | None`` read through)."""
    if ann is None:
        return False
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _returns_tuple(ann.left) or _returns_tuple(ann.right)
    if not isinstance(ann, ast.Subscript):
        return False
    name = ann.value.attr if isinstance(ann.value, ast.Attribute) else getattr(ann.value, "id", "")
    if name not in ("tuple", "Tuple"):
        return False
    items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    homogeneous = len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis
    return len(items) >= 2 and not homogeneous


def tuple_returns(source: str) -> list[str]:
    """The public functions and public classes' methods of ``source`` that return a tuple."""
    found = []
    for node in ast.parse(source).body:
        members = [(None, node)]
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            members = [(node.name, n) for n in node.body]
        for owner, fn in members:
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or fn.name.startswith("_"):
                continue
            if _returns_tuple(fn.returns):
                found.append(f"{owner}.{fn.name}" if owner else fn.name)
    return found


def _public_modules():
    for path in sorted((ROOT / "geosite").rglob("*.py")):
        parts = path.relative_to(ROOT / "geosite").with_suffix("").parts
        if any(p.startswith("_") and p != "__init__" for p in parts):
            continue  # a private module (_kernels, _compiled): not the public API
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def test_the_scan_finds_tuples_and_leaves_sequences_and_private_names():
    source = (
        "from __future__ import annotations\n"
        "def pair() -> tuple[int, str]: ...\n"
        "def maybe() -> tuple[str, str] | None: ...\n"
        "def many() -> tuple[int, ...]: ...\n"
        "def one() -> Verdict: ...\n"
        "def _private() -> tuple[int, int]: ...\n"
        "class Box:\n"
        "    def sides(self) -> tuple[float, float]: ...\n"
        "    def _inner(self) -> tuple[float, float]: ...\n"
        "class _Hidden:\n"
        "    def sides(self) -> tuple[float, float]: ...\n"
    )
    assert tuple_returns(source) == ["pair", "maybe", "Box.sides"]


def test_public_functions_return_dataclasses_not_tuples():
    """Every public function returning a tuple is in :data:`TUPLES_KEPT` with why, and every entry there
    still returns one (a converted function leaves the list).
    """
    found = {(rel, name) for rel, text in _public_modules() for name in tuple_returns(text)}
    assert not found - set(TUPLES_KEPT), f"tuples returned, not listed: {sorted(found - set(TUPLES_KEPT))}"
    assert not set(TUPLES_KEPT) - found, f"listed, no longer tuples: {sorted(set(TUPLES_KEPT) - found)}"


def test_the_converted_results_are_frozen_dataclasses():
    from geosite import controls
    from geosite.hydrology.stage import PredominantCover
    from geosite.site import PhaseAreas
    from geosite.soil_loss import County
    from geosite.verdict import Verdict

    for cls in (
        Verdict,
        PredominantCover,
        controls.DrainageClass,
        controls.Outlets,
        controls.Diversions,
        controls.StockpileSetbacks,
        controls.FenceCoverage,
        controls.TrackingPads,
        controls.PadExtent,
        County,
        PhaseAreas,
    ):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls


def test_one_verdict_type_and_only_a_yes_is_true():
    import geosite.rules
    import geosite.rules.engine
    from geosite.verdict import Verdict

    assert geosite.rules.Verdict is geosite.rules.engine.Verdict is Verdict
    assert [bool(Verdict(v, "")) for v in (True, False, None)] == [True, False, False]


def test_runoff_leaving_a_plane_is_a_verdict_with_its_reason():
    """A plane falling south: runoff from a disturbed square inside a site that stops short of the grid's
    south edge crosses the site boundary (yes); a site reaching the grid's edge lets it reach the DEM's
    edge inside the site, where the DEM cannot tell where it goes (not decided)."""
    from geosite.hydrology import flow_grid
    from geosite.hydrology.stage import runoff_leaves_site
    from geosite.testing import inclined_plane

    fg = flow_grid(inclined_plane(5.0, shape=(40, 40), cell=2.0))
    disturbed = np.zeros((40, 40), bool)
    disturbed[10:20, 10:20] = True
    site = np.zeros((40, 40), bool)
    site[5:30, 5:30] = True
    leaves = runoff_leaves_site(fg, disturbed, site)
    assert leaves.value is True and bool(leaves)
    assert leaves.why == "flow paths from the disturbed area cross the site boundary"
    site[5:, 5:30] = True  # the site now runs to the grid's south edge
    edge = runoff_leaves_site(fg, disturbed, site)
    assert edge.value is None and not edge
    assert "reaches the DEM's edge" in edge.why


def test_a_drawn_pad_measured_as_built_by_name():
    """A 12 x 50 ft pad on a drive running north from a road along y = 0: 50 ft along, 12 ft across."""
    from geosite.controls import pad_extent

    axis = LineString([(200.0, 0.0), (200.0, 150.0)])
    got = pad_extent(box(194.0, 0.0, 206.0, 50.0), axis, fpu=1.0, search_ft=10.0)
    assert got.length_ft == pytest.approx(50.0, abs=0.02) and got.width_ft == pytest.approx(12.0, abs=0.02)


def test_the_drainage_class_names_its_kind_and_limit():
    from geosite.controls import basin_kind

    got = basin_kind(4.99, trap_max_acres=5.0, basin_max_acres=100.0)
    assert got.kind == "trap" and got.limit == "DNR 1063: a sediment trap for drainage under 5 acres"
    assert basin_kind(100.01, trap_max_acres=5.0, basin_max_acres=100.0).kind == "beyond"


def test_a_villages_county_and_its_source():
    """geosite/soil_loss/wisconsin.toml: Grantsburg is in Burnett County, known from its profile's CRS."""
    from geosite.soil_loss import County, load_soil_loss_data

    data = load_soil_loss_data()
    burnett = data.county_for("Grantsburg")
    assert burnett.name == "Burnett" and "EPSG:7593" in burnett.source
    assert data.county_for("nowhere") == County(None, "") and data.county_for(None).name is None
