"""Every requirement that applies is held against the plan, not only reported (issue "The plan geosite draws
is a submission geosite approves", item 3): each case is the clean Grantsburg submission of
test_review_check.py (which passes) with one thing changed, on both sides of the chapter's number."""

from __future__ import annotations

import pytest
from test_review_check import PILE, bmp_frame, clean_conf, clean_layers, gdf, rect, run_check

from geosite.testing import inclined_plane


@pytest.fixture(scope="module")
def dem():
    return inclined_plane(4.0, shape=(200, 200), cell=4.0)


def by_rule(data, rule):
    return [f for f in data["findings"] if f["rule"] == rule]


def with_conf(**project):
    conf = clean_conf()
    conf["project"] = {**conf["project"], **project}
    return conf


@pytest.mark.parametrize(("treated", "status", "verdict"), [(False, "fail", "fail"), (True, "pass", "pass")])
def test_b1_dewatering_declared_needs_something_to_treat_it(tmp_path, dem, treated, status, verdict):
    layers = clean_layers()
    if treated:
        b = layers["bmps"]
        layers["bmps"] = bmp_frame(
            list(b.geometry) + [rect(300, -580, 10, 10)],
            list(b["id"]) + [20],
            list(b["type"]) + ["dewatering"],
        )
    res, data, _ = run_check(tmp_path, dem, layers, with_conf(dewatering=True))
    (f,) = by_rule(data, "dewatering_submitted")
    assert f["citation"] == "B(1)" and f["status"] == status
    assert data["verdict"] == verdict and res.exit_code == (1 if status == "fail" else 0)


@pytest.mark.parametrize(
    ("days", "stabilized", "status"), [(30, False, None), (31, False, "fail"), (31, True, "pass")]
)
def test_b6e_a_pile_kept_over_30_days_is_stabilized_in_the_plan(tmp_path, dem, days, stabilized, status):
    layers = clean_layers()
    layers["stockpiles"] = gdf(
        [rect(*PILE)], id=[1], days=[days], **({"stabilization": ["tarp"]} if stabilized else {})
    )
    _res, data, _ = run_check(tmp_path, dem, layers)
    got = by_rule(data, "stockpile_stabilization")
    if status is None:  # 30 days is not "more than 30 days": nothing to judge
        assert got == [] and data["verdict"] == "pass"
    else:
        (f,) = got
        assert f["citation"] == "B(6)(e)" and f["status"] == status and f["feature_ids"] == [1]


@pytest.mark.parametrize(
    ("stabilized", "status", "verdict"),
    [
        ("2027-11-05", "pass", "pass"),
        ("2027-11-06", "fail", "fail"),
        (None, "not_assessed", "incomplete"),
        ("2027-10-29", "pass", "pass"),
        ("2027-10-28", "fail", "fail"),
        ("2027-05-01", "fail", "fail"),
    ],
)
def test_b6c1_ground_stabilized_within_7_days_of_going_inactive(tmp_path, dem, stabilized, status, verdict):
    # the work ends 2027-10-29: stabilized by 11-05 (7 days) passes, 11-06 (8 days) fails, undated is
    # incomplete; stabilized the day it ends passes, the day before (or before the work starts: the
    # work begins 2027-05-03) is not the stabilization of ground gone inactive, so nothing is shown
    layers = clean_layers()
    d = layers["disturbance"]
    d["stabilized"] = [stabilized]
    _res, data, _ = run_check(tmp_path, dem, layers)
    (f,) = by_rule(data, "inactive_stabilization_submitted")
    assert f["citation"] == "B(6)(c)[1]" and f["status"] == status
    assert data["verdict"] == verdict
    if verdict == "incomplete":
        assert any(t["rule"] == "inactive_stabilization_submitted" for t in data["to_settle"])


def test_a_requirement_that_cannot_be_assessed_is_never_a_pass(tmp_path):
    """Without a DEM, whether runoff leaves the site (B(6)) and B(6)(a)'s diversion cannot be assessed: the
    verdict is incomplete, listing what would settle it, not pass."""
    from sitebuilder import make_site, write_map

    from geosite.cli import cli

    folder = tmp_path / "sub"
    folder.mkdir()
    write_map(folder / "map.tif", 2.0, 50)
    make_site(folder, clean_layers(), clean_conf(), dem=None)
    import json

    from click.testing import CliRunner

    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp_path / "out"), "--no-html"])
    data = json.loads((tmp_path / "out" / "findings.json").read_text())
    assert res.exit_code == 0 and data["verdict"] == "incomplete"
    assert data["to_settle"] and all(t["settle"] for t in data["to_settle"])


def test_the_slope_length_failure_has_its_place(tmp_path, dem):
    """DNR 1056's slope length above the next fence: a failing finding carries the ground where it is too long
    (findings.gpkg and report.html draw it), and that ground is derived.gpkg's slope_length_excess layer."""
    layers = clean_layers()
    b = layers["bmps"]
    keep = [
        t != "silt_fence" or i in (1, 2, 3) for i, t in zip(b["id"], b["type"], strict=True)
    ]  # no interior rows
    layers["bmps"] = bmp_frame(list(b.geometry[keep]), list(b["id"][keep]), list(b["type"][keep]))
    _res, data, out = run_check(tmp_path, dem, layers)
    (f,) = by_rule(data, "filter_fence_slope_length")
    assert f["status"] == "fail" and f["has_geometry"] and f["layer"] == "slope_length_excess"
    import geopandas as gpd

    polys = gpd.read_file(out / "findings.gpkg", layer="findings_polygons")
    area = polys.loc[polys["rule"] == "filter_fence_slope_length"].geometry.area.sum()
    # 4 % slope: DNR 1056 allows 75 ft above a fence; the 240 x 240 ft disturbance has only its bottom fence:
    # the ground more than 75 ft up the slope from it, 165 x 240 ft, less the 40 x 40 ft house (no slope
    # length runs across a structure) and the 40 x 75 ft strip above it whose slope ends at the house,
    # within a 4-ft cell's row
    assert area == pytest.approx(165 * 240 - 40 * 40 - 40 * 75, abs=4 * 240)
    assert area == pytest.approx(f["values"]["excess_sqft"], rel=0.02)


def test_leaving_out_a_declaration_geosite_cross_checks_does_not_make_a_plan_incomplete(tmp_path, dem):
    """The declared disturbed area and plan type are geosite's cross-checks, not the chapter's requirements:
    a plan that shows everything the chapter asks but declares neither passes (both findings not assessed)."""
    conf = clean_conf(plan_type=None, disturbed_area_sqft=None)
    _res, data, _ = run_check(tmp_path, dem, None, conf)
    open_ones = {f["rule"] for f in data["findings"] if f["status"] == "not_assessed"}
    assert open_ones == {"declared_disturbed_area", "plan_type_submitted"}
    assert data["verdict"] == "pass" and data["to_settle"] == []
