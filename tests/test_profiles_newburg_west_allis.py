"""Two more chapters of the 1987 model family, written as profile files only (no engine change for either):
the Village of Newburg (ch. 152) and the City of West Allis (§ 13.32), each read in part
(docs/ordinances/*_excerpt.txt). Each threshold of theirs is tested on both sides; what they do not say is
not borrowed, and what the profile's author could not read leaves geosite undecided, never passing."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner
from sitebuilder import make_site, write_map
from test_review_check import clean_conf, clean_layers

from geosite.cli import cli
from geosite.rules import evaluate, load_profile
from geosite.schedule.deadlines import enforcement_deadlines
from geosite.testing import inclined_plane

SQFT_PER_ACRE = 43_560.0


def values(acres: float, **more) -> dict:
    return {"disturbed.area_sqft": acres * SQFT_PER_ACRE, "disturbed.area_acres": acres, **more}


@pytest.mark.parametrize(("acres", "plan"), [(1.0, None), (1.0001, "full"), (3.0, "full")])
def test_newburg_full_plan_over_one_acre(acres, plan):
    # § 152.08(B): "covering more than one acre"; the statement for smaller sites was not read: undecided, not
    # borrowed
    ev = evaluate("newburg", values(acres))
    assert ev.plan_type == plan
    if plan is None:
        assert "not in the profile" in ev.plan_type_message


@pytest.mark.parametrize("name", ["newburg", "west_allis"])
@pytest.mark.parametrize("acres", [0.05, 0.5, 12.0])
def test_applicability_not_read_is_never_does_not_apply(name, acres):
    ev = evaluate(name, values(acres))
    assert ev.applies is None and "was not read" in ev.gate.message
    unread = [f for f in ev.findings if f.status == "not_assessed" and "could not read" in f.message]
    assert unread, "the parts not read are reported as not assessed"
    assert not [f for f in ev.findings if f.status == "fail"]


@pytest.mark.parametrize(("state_funded", "applies"), [(True, False), (False, None)])
def test_newburg_state_funded_exemption(state_funded, applies):
    # § 152.03(B): all state funded or conducted construction is exempt
    assert evaluate("newburg", values(2.0, **{"project.state_funded": state_funded})).applies is applies


def test_newburg_enforcement_days():
    notice = dt.date(2027, 6, 1)  # a Tuesday
    got = {
        d.what: d
        for d in enforcement_deadlines(
            load_profile("newburg"), notice=notice, notice_of_intent=notice, notice_without_permit=notice
        )
    }
    comply = next(d for w, d in got.items() if w.startswith("Permittee complies"))
    cease = next(d for w, d in got.items() if w.startswith("Landowner or land user"))
    work = next(d for w, d in got.items() if w.startswith("Village may go on the land"))
    assert comply.date == dt.date(2027, 6, 11) and "§ 152.10(B)" in comply.citation  # ten days, § 152.10(B)
    assert cease.date == dt.date(2027, 6, 11) and "§ 152.10(C)" in cease.citation
    assert (
        work.date == dt.date(2027, 6, 15) and "§ 152.10(E)" in work.citation
    )  # 14 days after the notice of intent


@pytest.fixture(scope="module")
def dem():
    return inclined_plane(4.0, shape=(200, 200), cell=4.0)


def _check(tmp_path, dem, jurisdiction, ft_per_in):
    folder = tmp_path / "sub"
    folder.mkdir()
    write_map(folder / "map.tif", ft_per_in / 50.0, 50)  # printed at 50 dpi: ft_per_in feet to the inch
    make_site(folder, clean_layers(), clean_conf(), dem=dem)
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli, ["-q", "check", str(folder), "--out", str(out), "--no-html", "--jurisdiction", jurisdiction]
    )
    assert res.exit_code in (0, 1), res.output
    return json.loads((out / "findings.json").read_text())


@pytest.mark.parametrize(("ft_per_in", "status"), [(20.0, "pass"), (25.0, "not_assessed")])
def test_newburg_map_scale_one_inch_to_twenty_feet(tmp_path, dem, ft_per_in, status):
    # a 1 in = 25 ft map is too small for § 152.08(B)(1); whether the chapter applies at all is in § 152.07
    # (not
    # read), so the gate turns the would-be failure into "not assessed", saying both
    data = _check(tmp_path, dem, "newburg", ft_per_in)
    (f,) = [f for f in data["findings"] if f["rule"].endswith(".map")]
    assert f["citation"] == "§ 152.08(B)(1)" and f["status"] == status
    if status == "not_assessed":
        assert (
            "smaller than the required 1 in = 20 ft" in f["message"]
            and "Required only if it applies" in f["message"]
        )
    assert f["values"]["ft_per_in"] == pytest.approx(ft_per_in)
    # nothing borrowed from Grantsburg, and the verdict is never a pass while parts were not read
    assert data["verdict"] in ("incomplete", "fail")
    assert not any(
        x in f["message"] for f in data["findings"] for x in ("4,000 sq ft", "25 ft from", "10 acres")
    )


def test_west_allis_submission_is_incomplete_not_passed(tmp_path, dem):
    data = _check(tmp_path, dem, "west_allis", 100.0)
    assert data["verdict"] == "incomplete" and data["chapter_applies"] is None
    assert not [
        f
        for f in data["findings"]
        if f["status"] == "fail" and f["section"] != "Submitted data: geometry and coordinate systems"
    ]
    assert {t["rule"] for t in data["to_settle"]} >= {"applicability", "control_requirements"}
