"""The third sample site: a subdivision on real LiDAR (shared/data/real_dems/minnesota_1m), generated
on the fly by scripts/make_sample_sites.py into a temporary folder (with its own copy of the DEM, never
committed; the test skips where shared/ is absent). Its sheets, GeoPackage and DXF are read back as Lot 7's
are,
on terrain that is not smooth, a parcel turned 25 deg off the grid and a metre CRS."""

from __future__ import annotations

import hashlib
import itertools
import json
import subprocess
import sys
import warnings

import geopandas as gpd
import pyogrio
import pytest
from conftest import REAL_DEMS, ROOT

SCRIPT = ROOT / "scripts" / "make_sample_sites.py"
NAME = "crow_wing_real_terrain"


def _generate(out):
    subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--only",
            NAME,
            "--out",
            str(out),
            "--real-dems",
            str(REAL_DEMS),
            "--quiet",
        ],
        check=True,
        timeout=300,
    )
    return out / NAME


@pytest.fixture(scope="module")
def real_site(tmp_path_factory):
    if not REAL_DEMS.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    return _generate(tmp_path_factory.mktemp("real"))


@pytest.fixture(scope="module")
def real_result(real_site):
    from geosite.pipeline import analyze
    from geosite.site import load_site

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return analyze(load_site(real_site))


@pytest.fixture(scope="module")
def real_outputs(real_result, tmp_path_factory):
    from geosite.pipeline import write_outputs

    out = tmp_path_factory.mktemp("real-out") / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_outputs(real_result, out, maps=True)
    return out


def test_generator_is_deterministic_and_the_folder_self_contained(real_site, tmp_path):
    again = _generate(tmp_path)
    for f in ("site.toml", "layers.gpkg", "dem.tif"):
        assert (
            hashlib.sha256((real_site / f).read_bytes()).digest()
            == hashlib.sha256((again / f).read_bytes()).digest()
        )
    assert sorted(p.name for p in real_site.iterdir()) == [
        "dem.tif",
        "layers.gpkg",
        "site.toml",
    ]  # self-contained
    import tomllib

    conf = tomllib.loads((real_site / "site.toml").read_text())
    assert conf["dem"]["path"] == "dem.tif"  # the folder names nothing outside itself
    assert (real_site / "dem.tif").read_bytes() == (REAL_DEMS / "minnesota_1m" / "dem.tif").read_bytes()
    assert conf["crs"] == "EPSG:26915" and conf["dem"]["vertical_unit"] == "m"


def test_the_creek_is_the_dem_s_own_channel(real_site):
    """Every vertex of the creek lies on the DEM's channel network (1-acre threshold) within a cell."""
    import numpy as np
    import rasterio

    from geosite.grid import Dem
    from geosite.hydrology import channels, flow_grid

    with rasterio.open(REAL_DEMS / "minnesota_1m" / "dem.tif") as src:
        dem = Dem.from_array(src.read(1).astype(float), src.transform, src.crs, "m")
    net = channels(flow_grid(dem), 43_560.0).union_all()
    creek = gpd.read_file(real_site / "layers.gpkg", layer="streams").geometry.iloc[0]
    xy = np.asarray(creek.coords)
    assert creek.length > 150 and max(net.distance(shapely_point(x, y)) for x, y in xy[1:]) < 1.5


def shapely_point(x, y):
    import shapely

    return shapely.Point(x, y)


@pytest.mark.parametrize("name", ["existing_site_map.pdf", "construction_plan.pdf", "final_conditions.pdf"])
def test_real_site_sheets_have_no_overlapping_labels(real_outputs, name):
    pymupdf = pytest.importorskip("pymupdf")
    page = pymupdf.open(real_outputs / name)[0]
    blocks = page.get_text("dict", flags=pymupdf.TEXT_ACCURATE_BBOXES)["blocks"]  # ink boxes (standard fonts)
    spans = [
        (s["text"], pymupdf.Rect(s["bbox"]))
        for b in blocks
        for ln in b.get("lines", [])
        for s in ln["spans"]
        if s["text"].strip()
    ]
    bad = [
        (a, b)
        for (a, ra), (b, rb) in itertools.combinations(spans, 2)
        if (ra & rb).width > 0.3 and (ra & rb).height > 0.3
    ]
    assert not bad, bad[:5]
    text = page.get_text()
    assert "County Road 3" in text and "confirm" not in text.lower()


def test_real_site_labels_clear_of_labels_and_symbols(real_result):
    """On the construction plan no label's box meets another label's or a drawn practice symbol, a
    structure, a water line or the site boundary's line (tests/label_clearance.py)."""
    from label_clearance import clashes, construction_sheets, footprints

    sheets = construction_sheets(real_result)
    symbols = footprints(real_result)
    bad = [c for s in sheets for c in clashes(s, symbols)]
    assert sheets and not bad, bad[:8]
    assert not any(s.unplaced for s in sheets), [s.unplaced for s in sheets]


def test_real_site_no_ground_under_both_a_stand_in_and_a_row(real_result):
    from test_label_clearance import stand_in_and_row_overlap

    assert stand_in_and_row_overlap(real_result) < 0.01 / real_result.site.ft_per_unit


def test_real_site_fence_and_files(real_outputs, real_site):
    import ezdxf

    report = json.loads((real_outputs / "report.json").read_text())
    fence = gpd.read_file(real_outputs / "derived.gpkg", layer="filter_fence")
    rows = fence[fence["side"] == "interior"]
    for layer in ("structures", "access_drives", "roads", "stockpiles", "streams", "wetlands"):
        g = gpd.read_file(real_site / "layers.gpkg", layer=layer).union_all()
        assert rows.intersection(g).length.sum() == 0.0, layer
    assert report["filter_fence"]["interior_length_ft"] > 0
    for name, gtype in pyogrio.list_layers(real_outputs / "derived.gpkg"):
        assert gtype not in (None, "Unknown") or name == "layer_styles", name  # QGIS's styles: a table
    doc = ezdxf.readfile(real_outputs / "derived.dxf")
    assert not doc.audit().errors
    assert doc.header["$INSUNITS"] == 6 and doc.header["$MEASUREMENT"] == 1  # metres, metric


def test_check_finds_what_the_real_site_seeds_and_nothing_else(real_site):
    """data/sample_sites/README.md lists what check finds on the real-terrain site: each seeded problem
    fails with its citation, and nothing else does."""
    from geosite.review.check import check_submission

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = check_submission(real_site)
    got = {f.rule: f for f in result.failed}
    assert set(got) == {
        "plan_content.full.A_1_i.contours",  # no contours layer on the plan
        "plan_content.full.A_3_d.schedule",  # the BMPs have no install dates
        "filter_fence_submitted",  # the low-edge fence stops short of the east part
        "channel_fence_submitted",  # no channel-edge fences (their own requirement, B(6)(c)[3])
        "filter_fence_slope_length",  # no interior rows on the 12-20 % lots
        "stockpile_fence",  # no fence below the topsoil pile
        "inlet_protection_submitted",  # CB-2 unprotected
        "tracking_pad",  # a 40-ft pad, short of DNR 1057's 50
        "sheetflow_diversion_submitted",  # run-on from above County Road 3 reaches the lots unchecked
        # the channelized inflow is neither diverted nor its channel fenced
        "channelized_diversion_submitted",
        "stockpile_stabilization",  # the topsoil pile stays past 30 days with nothing to stabilize it
    }
    assert got["inlet_protection_submitted"].feature_ids == [2]
    assert (
        "the drawn pad runs 40 ft along the drive" in got["tracking_pad"].message
        and got["tracking_pad"].citation == "B(3)"
    )
    # the low-edge fence, set a few yards below the lots, covers part of their downslope edge by catching
    # its runoff (it is more than 10 ft from the edge, so only that rule credits it)
    assert result.analysis.report["submitted_controls"]["filter_fence"]["intercepted_length_ft"] > 300
