"""``geosite check`` on the two bundled sample sites: every problem data/sample_sites/README.md seeds is
found, at its place and with its citation, and nothing else fails; the traps the README sets (a pile
near a street that is upslope of it, an inlet nothing drains to in Belgium, a pile near the creek where
Belgium's chapter sets no setback) fail nothing."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import shapely

from geosite.review.check import check_submission

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "sample_sites"


@pytest.fixture(scope="module")
def lot7():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check_submission(SAMPLES / "grantsburg_lot7")


@pytest.fixture(scope="module")
def commons():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check_submission(SAMPLES / "belgium_commons")


def failed(result) -> dict[str, object]:
    return {f.rule: f for f in result.failed}


def rule(result, name):
    (f,) = [f for f in result.findings if f.rule == name]
    return f


def local(result, geom):
    """A geometry in the generator's coordinates (the site boundary's lower-left corner at its origin)."""
    x0, y0 = result.site.layers["site_boundary"].total_bounds[:2]
    return shapely.affinity.translate(geom, -x0, -y0)


def test_grantsburg_lot7_finds_what_it_seeds_and_fails_nothing_else(lot7):
    assert lot7.analysis.evaluation.applies is True and lot7.analysis.evaluation.gate.open("b6") is True
    got = failed(lot7)
    assert set(got) == {
        "filter_fence_submitted",
        "filter_fence_slope_length",
        "inlet_protection_submitted",
        "tracking_pad",
        "stockpile_stabilization",
    }
    # B(6)(e): the topsoil pile stays 45 days and the plan does not stabilize it
    assert got["stockpile_stabilization"].citation == "B(6)(e)" and got[
        "stockpile_stabilization"
    ].feature_ids == [1]
    # silt fence: none on the east sideslope, the last ~45 ft of the downslope edge bare
    gaps = lot7.analysis.layers["fence_gaps"]
    east = [local(lot7, g) for g in gaps.geometry if local(lot7, g).bounds[0] > 145]
    assert sum(g.length for g in east) > 45 + 100
    assert got["filter_fence_submitted"].citation == "B(6)(c)[3]"
    # DNR 1056: one fence below the pad on a 16 % slope, no interior rows
    assert got["filter_fence_slope_length"].citation == "Design criteria (DNR 1056)"
    # B(4) all inlets: CB-2, 118 ft west in the street (upslope of the work, inside A(1)'s 200 ft),
    # unprotected
    assert (
        got["inlet_protection_submitted"].feature_ids == [2]
        and got["inlet_protection_submitted"].citation == "B(4)"
    )
    # B(3): a 30-ft pad where DNR 1057 asks for 50
    assert (
        got["tracking_pad"].citation == "B(3)"
        and "the drawn pad runs 30 ft along the drive" in got["tracking_pad"].message
    )
    # the trap: the pile 18 ft from Birch Street, which is upslope of it: information, and its fence passes
    up = rule(lot7, "stockpile_setback_upslope")
    assert up.status == "info" and "18.0 ft from Birch Street" in up.message
    assert rule(lot7, "stockpile_setback").status == "pass" and rule(lot7, "stockpile_fence").status == "pass"
    # statement B(2): the existing DEM shows the slopes before development only
    assert rule(lot7, "plan_content.statement.B_2.slopes").status == "not_assessed"


def test_belgium_commons_finds_what_it_seeds_and_fails_nothing_else(commons):
    assert commons.analysis.evaluation.applies is True
    got = failed(commons)
    assert set(got) == {
        "filter_fence_submitted",
        "filter_fence_slope_length",
        "inlet_protection_submitted",
        "tracking_pad",
        "sediment_basin_submitted",
        "plan_content.full.A_1_h.contours",
        "plan_content.full.A_3_d.schedule",
    }
    for name in (
        "filter_fence_submitted",
        "filter_fence_slope_length",
        "inlet_protection_submitted",
        "tracking_pad",
        "sediment_basin_submitted",
    ):
        assert got[name].citation.startswith("Design criteria (DNR 10"), name
        assert got[name].section == "Design criteria, standards and specifications", name
    # fence gaps around SP-2 (x 852-948) and along the east 110 ft of phase 1 (x 1010-1120)
    gaps = [local(commons, g) for g in commons.analysis.layers["fence_gaps"].geometry]
    assert any(g.intersects(shapely.box(852, -100, 948, 120)) for g in gaps)
    assert sum(g.intersection(shapely.box(1010, -100, 1120, 120)).length for g in gaps) > 100
    # DNR 1056: one fence row at the foot of phase 3's 600-ft slope
    assert got["filter_fence_slope_length"].values["longest_ft"] > 600
    # DNR 1060: CB-5 in the cul-de-sac (phase 2) unprotected; CB-2, in County Road D upslope of all the work,
    # receives none of its runoff: reported, not failed
    assert got["inlet_protection_submitted"].feature_ids == [5]
    assert 2 in rule(commons, "inlet_protection_not_required").feature_ids
    # DNR 1057: no pad at the phase 3 entrance (drive 2)
    assert got["tracking_pad"].feature_ids == [2]
    # DNR 1063/1064: concentrated runoff leaves the work at several places; SB-1 receives the runoff of one
    served = [o for o in commons.analysis.report["sediment_basin_location"]["outlets"] if o["suitable_by"]]
    assert [o["suitable_by"] for o in served] == [[11]]
    # SP-2, 17 ft from the creek below it: Belgium's chapter sets no setback, so no practice judges one; the
    # topic is reported as not specified by this chapter
    assert not [f for f in commons.findings if f.rule in ("stockpile_setback", "stockpile_setback_upslope")]
    topic = rule(commons, "stockpile_setback_distance")
    assert topic.status == "info" and "not specified by this chapter" in topic.message
    # nothing borrowed from Grantsburg: no 10-acre basin trigger, no 25-ft setback
    assert not any(
        "10 acres" in f.message or "25 ft from" in f.message
        for f in commons.findings
        if f.status in ("fail", "pass")
    )


def test_findings_name_the_features_the_plan_names(lot7):
    """A finding about a feature gives the name the plan gives it: "storm drain inlet CB-2", the id only
    where it has no name (the id stays in feature_ids)."""
    f = rule(lot7, "inlet_protection_submitted")
    assert f.message.startswith("Storm drain inlet CB-2 without inlet protection") and f.feature_ids == [2]
    pad = rule(lot7, "tracking_pad")
    assert "Birch Street" in pad.message and "road 1" not in pad.message


@pytest.mark.parametrize("name", ["lot7", "commons"])
def test_the_sample_checks_speak_to_people(name, request):
    """Issue 33 items 5-6 as rules (tests/for_people.py): findings.json, findings.md and report.html of
    both samples' checks name features by their names, parameters by value and name, coordinates as
    "E 153322, N 151932 (US ft)", and every failing finding says what was required and submitted."""
    import json

    from for_people import finding_problems, problems

    from geosite.review.findings import render_markdown
    from geosite.review.html import render_html

    result = request.getfixturevalue(name)
    names = result.analysis.report["inputs"]["feature_names"]
    data = json.loads(json.dumps(result.to_dict(), default=str))
    assert finding_problems(data["findings"], names) == []
    assert problems(render_markdown(result.summary(), result.findings), names) == []
    assert problems(render_html(result), names) == []
