"""The sandbox's boundary on every path (issue 32 items 1 and 4): after staging nothing opens the
applicant's folder again, and what the child hands back is checked like input.

Item 1: right after staging, every file of the submission is replaced by a symbolic link to an outside
file whose bytes carry a marker. On each path that reads a submission (``geosite check``, ``batch --check``'s
worker, ``geosite map --submission``, the Python API with the analysis' outputs, its plan folder and a plan
sheet), no output holds the
marker, and this process opens nothing under the submission's folder after the swap (an audit hook sees
every ``open`` Python makes; GDAL's own opens are covered by the marker).

Item 4: a finding's bow-tie polygon comes back repaired; a coordinate that is not a number, a feature over
the vertex limit and something that is not a geometry are refused before the parent touches them; a GEOS
error while writing is exit 2.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
import shapely
from click.testing import CliRunner
from hostile import gdf, submission
from sitebuilder import rect

from geosite.cli import cli
from geosite.errors import GeometryError, InputError, UnreadableInputError

MARK = b"GEOSITE-OUTSIDE-" + uuid.uuid4().hex.encode()
_OPENED: list[str] = []
_WATCH: list[str] = []


def _audit(event: str, args: tuple) -> None:
    """Record every open / listing of a path under a watched folder (one hook for the whole process)."""
    if not _WATCH or event not in ("open", "os.scandir", "os.listdir"):
        return
    path = args[0] if args else None
    if isinstance(path, bytes):
        path = path.decode("utf-8", "surrogateescape")
    if isinstance(path, str | Path) and any(str(path).startswith(w) for w in _WATCH):
        _OPENED.append(f"{event} {path}")


sys.addaudithook(_audit)


@pytest.fixture
def swapped(tmp_path, monkeypatch):
    """A submission whose every file becomes a link to an outside file of marker bytes right after it is
    staged; yields the folder, and the list of what this process opened under it afterwards."""
    import geosite.review.sandbox as sandbox

    folder = submission(
        tmp_path / "applicant", conf={"name": "Lot 9", "declared": {"estimate": "estimate.csv"}}
    )
    (folder / "estimate.csv").write_text("item,unit,quantity\nsilt_fence,LF,320\n")  # read in the child only
    outside = tmp_path / "outside"
    outside.mkdir()
    stage = sandbox.stage_submission

    def stage_then_swap(src, dest, limits=None, *, deadline=None):
        staged = stage(src, dest, limits, deadline=deadline)
        for p in sorted(Path(src).rglob("*")):
            if p.is_file() and not p.is_symlink():
                target = outside / p.name
                target.write_bytes(MARK + p.read_bytes())
                p.unlink()
                p.symlink_to(target)
        _WATCH.append(str(Path(src).resolve()))
        _WATCH.append(str(src))
        return staged

    monkeypatch.setattr(sandbox, "stage_submission", stage_then_swap)
    _OPENED.clear()
    yield folder
    _WATCH.clear()


def _holds_marker(folder: Path) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and MARK in p.read_bytes()]


def test_check_reads_nothing_of_the_applicants_folder_after_staging(tmp_path, swapped):
    """With the estimate CSV the submission declares (read in the child, from the stage) and the inspector's
    unit prices (read outside the sandbox, where they lie): the estimate is compared and priced, and no
    output holds what the applicant's files now point at."""
    out = tmp_path / "out"
    prices = tmp_path / "prices.csv"  # the inspector's
    prices.write_text("item,unit,price,source,date\nsilt_fence,LF,2.75,2026 bid tabulation,2026-03-01\n")
    res = CliRunner().invoke(cli, ["-q", "check", str(swapped), "--out", str(out), "--prices", str(prices)])
    assert res.exit_code in (0, 1), res.output
    assert (out / "report.html").is_file() and _holds_marker(out) == []
    report = json.loads((out / "findings.json").read_text())
    assert any(f["rule"] == "declared_quantities" for f in report["findings"])  # the staged estimate.csv
    assert report["quantities"]["prices"]["origin"] == str(prices.resolve())
    assert _OPENED == []


def test_batch_check_writes_the_plan_folder_from_the_child_alone(tmp_path, swapped):
    """The worker's own function (what each Dask worker runs): the plan folder's DEM is the window the
    child read (a GeoTIFF of its heights), never a copy of what the applicant's dem.tif now points at."""
    import numpy as np
    import rasterio

    from geosite.scale.batch import BatchOptions, process_site

    row = process_site(swapped, tmp_path / "out", BatchOptions(check=True))
    assert row["status"] == "ok", row
    site = tmp_path / "out" / row["site"]
    assert (site / "findings.json").is_file() and (site / "plan" / "layers.gpkg").is_file()
    assert _holds_marker(tmp_path / "out") == []
    with rasterio.open(site / "plan" / "dem.tif") as src:
        z = src.read(1, masked=True)
    assert z.count() > 0 and np.isfinite(z.compressed()).all()  # the 4 % plane's heights, no marker
    assert _OPENED == []


def test_the_python_api_writes_analysis_outputs_and_a_sheet_from_the_child_alone(tmp_path, swapped):
    import geosite

    result = geosite.check_submission(swapped)
    assert result.site.dem_path is None and result.site.dem_array is not None
    geosite.write_check_outputs(result, tmp_path / "check")
    geosite.write_outputs(result.analysis, tmp_path / "analysis")  # report, gpkg, dxf and the plan folder
    figures = geosite.render_existing_site_map(result.analysis, out_path=None, png_dpi=None)
    figures[0].savefig(tmp_path / "sheet.pdf")  # the relief drawn from the DEM window the child read
    assert _holds_marker(tmp_path / "check") == [] and _holds_marker(tmp_path / "analysis") == []
    assert MARK not in (tmp_path / "sheet.pdf").read_bytes()
    assert _OPENED == []


def test_map_of_a_submission_draws_its_sheets_from_the_child_alone(tmp_path, swapped):
    """``geosite map --submission``: the sheets drawn from what the sandbox handed back (the relief from the
    DEM window the child read), never from what the applicant's files now point at."""
    out = tmp_path / "maps"
    res = CliRunner().invoke(cli, ["-q", "map", str(swapped), "--submission", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.glob("*.pdf")) == [
        "construction_plan.pdf",
        "existing_site_map.pdf",
        "final_conditions.pdf",
    ]
    assert _holds_marker(out) == []
    assert _OPENED == []


# ------------------------------------------------------------------------------------------ item 4


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """A real CheckResult (in this process) to spoil as a subverted child could."""
    from geosite.review.check import check_submission

    folder = submission(tmp_path_factory.mktemp("ret") / "sub")
    return check_submission(folder)


def _spoiled(checked, geometry):
    import copy

    result = copy.deepcopy(checked)
    result.findings[0].geometry = geometry
    return result


def test_a_bow_tie_handed_back_is_repaired_before_the_parent_touches_it(checked):
    from geosite.io.limits import Limits
    from geosite.review.returned import check_returned

    bow = shapely.Polygon([(0, 0), (10, 10), (10, 0), (0, 10)])
    assert not bow.is_valid
    result = check_returned(_spoiled(checked, bow), Limits(), "sub")
    g = result.findings[0].geometry
    assert g.is_valid and g.geom_type == "MultiPolygon" and g.area == pytest.approx(50.0)


@pytest.mark.parametrize(
    ("geometry", "why"),
    [
        (shapely.LineString([(0, 0), (float("nan"), 1)]), "not finite"),
        (shapely.LineString([(i, i % 2) for i in range(300)]), "over max_vertices_per_feature 299"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0))", "a finding whose place is a str"),
    ],
)
def test_what_no_input_could_hold_is_refused(checked, geometry, why):
    from geosite.io.limits import Limits
    from geosite.review.returned import check_returned

    limits = Limits(max_vertices_per_feature=299)
    with pytest.raises(UnreadableInputError, match=why):
        check_returned(_spoiled(checked, geometry), limits, "sub")


def test_a_geos_error_while_writing_is_an_input_error():
    from shapely.errors import GEOSException

    from geosite.review.returned import geometry_errors_are_input

    with (
        pytest.raises(GeometryError, match="sub: a geometry of the submission could not be handled"),
        geometry_errors_are_input("sub"),
    ):
        raise GEOSException("TopologyException: side location conflict")
    assert issubclass(GeometryError, InputError)


def test_make_valid_with_two_bow_ties_writes_the_report(tmp_path):
    """The issue's case: with --make-valid, two bow-tie disturbance polygons come back in a finding; the
    report's renderer ran a GEOS operation on them in the parent (a traceback, no outputs)."""
    from shapely import affinity

    x, y = 250, -350
    bow = shapely.Polygon([(x, y), (x + 100, y + 100), (x + 100, y), (x, y + 100)])
    bow = affinity.translate(bow, 500_000.0, 200_000.0)
    layers = {
        "disturbance": gdf(
            [bow, affinity.translate(bow, 0, 40)],
            id=[1, 2],
            phase=["all", "all"],
            start=["2027-05-03"] * 2,
            end=["2027-10-29"] * 2,
        ),
        "site_boundary": gdf([rect(200, -400, 200, 200)], id=[1]),
    }
    folder = submission(tmp_path / "sub", layers=layers)
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(out), "--make-valid"])
    assert res.exit_code in (0, 1), res.output
    assert "Traceback" not in res.output and (out / "report.html").is_file()
