"""NR 151.11 in ``check``: the soil loss recomputed from the submitted layers, compared with the figure the
plan declares, reported beside the chapter's verdict; and the plan folder that ``analyze`` writes declares
the figure ``check`` then recomputes (one plan, one figure)."""

from __future__ import annotations

import json
import tomllib
import warnings

import geopandas as gpd
import pytest
from sitebuilder import make_site, rect
from test_soil_loss_stage import _by_hand

from geosite.review.check import check_submission, write_check_outputs
from geosite.review.state_standard import HEADING, compare_declared
from geosite.soil_loss import load_soil_loss_data
from geosite.soil_loss.figure import SoilLossFigure
from geosite.testing import inclined_plane

CRS = "EPSG:7593"
DATA = load_soil_loss_data()
RAIN = {
    "r_factor": 150.0,
    "r_source": "a test value",
    "ei_cumulative_pct": [["04-01", 10.0], ["10-16", 90.0]],
    "ei_source": "a test table, not a published one",
}


# ------------------------------------------------------------------------------- the comparison by hand


@pytest.mark.parametrize(
    ("declared", "status"),
    [
        (20.0, "pass"),
        (18.5, "pass"),  # 7.5 % under: within 10 %
        (17.0, "inspector_decision"),  # 15 % under: the plan understates it
        (23.0, "info"),  # 15 % over, both over 5 t/ac: a conservative figure
        (4.0, "inspector_decision"),  # under the standard where the recomputed figure is over it
    ],
)
def test_a_declared_figure_against_an_exact_one(declared, status):
    f = compare_declared(declared, SoilLossFigure(20.0, 20.0, "2027-04-01 to 2028-03-31", 5.0), DATA)
    assert f.status == status and f.rule == "declared_soil_loss" and f.citation == "NR 151.11(6m)(b)"
    assert f.values["declared_tpa"] == declared and f.values["recomputed_high_tpa"] == 20.0
    assert "20.00 t/ac" in f.message and f"{declared:.2f} t/ac" in f.message


@pytest.mark.parametrize(
    ("declared", "status"),
    [
        (6.0, "pass"),  # inside the bounds 2-8
        (1.85, "pass"),  # 2 x 0.9 = 1.8: within 10 % of the lower bound
        (1.5, "inspector_decision"),  # under the lower bound by more than 10 %
        (9.5, "info"),  # over 8 x 1.1 = 8.8, and over the standard as the upper bound is
    ],
)
def test_a_declared_figure_against_bounds(declared, status):
    f = compare_declared(declared, SoilLossFigure(2.0, 8.0, "2027-04-01 to 2028-03-31", 5.0), DATA)
    assert f.status == status
    assert "between 2.00 and 8.00 t/ac" in f.message


def test_the_tolerance_is_sourced():
    tol = DATA.declared_tolerance_pct
    assert tol.value == 10.0 and tol.source.startswith("geosite:")


# --------------------------------------------------------------------------- check on a built submission


def _plane(tmp_path, declared=None, area=(100, -400, 300, 200), c=None):
    """A 500 x 500 ft plane at 6 % falling south, one phase over ``area`` bare Apr 1 - Oct 15, 2027, K
    0.30, R 150 with a two-point distribution (tests/test_soil_loss_stage.py's site), Grantsburg."""
    dist = gpd.GeoDataFrame(
        {"phase": ["grading"], "start": ["2027-04-01"], "end": ["2027-09-30"], "stabilized": ["2027-10-15"]},
        geometry=[rect(*area)],
        crs=CRS,
    )
    soils = gpd.GeoDataFrame({"musym": ["A"], "kwfact": [0.30]}, geometry=[rect(0, -500, 500, 500)], crs=CRS)
    conf: dict = {"jurisdiction": "grantsburg", "soil_loss": {**RAIN, **({"c": c} if c else {})}}
    if declared is not None:
        conf["declared"] = {"soil_loss_tons_per_acre": declared}
    return make_site(
        tmp_path / "site",
        {"site_boundary": [rect(0, -500, 500, 500)], "disturbance": dist, "soils": soils},
        conf,
        dem=inclined_plane(6.0, shape=(250, 250), cell=2.0),
    )


def _check(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check_submission(folder)


def test_check_recomputes_the_soil_loss_by_hand_and_compares_the_declared_figure(tmp_path):
    expect = _by_hand(6.0, 0.30)  # no control ends the slope: the submission has none
    got = _check(_plane(tmp_path, declared=round(expect, 2)))
    s1, s2 = got.state
    assert (s1.id, s1.rule, s1.status) == ("S1", "nr151_soil_loss", "not_assessed")  # over 5 t/ac
    assert (s2.id, s2.rule, s2.status) == ("S2", "declared_soil_loss", "pass")
    assert s2.values["recomputed_high_tpa"] == pytest.approx(expect, rel=1e-6)


def test_an_understated_figure_is_the_reviewers_not_the_verdicts(tmp_path):
    honest = _check(_plane(tmp_path / "a", declared=round(_by_hand(6.0, 0.30), 2)))
    low = _check(_plane(tmp_path / "b", declared=4.0))
    assert low.state[1].status == "inspector_decision"
    assert "either side of the standard" in low.state[1].message
    # the chapter's verdict and counts do not take the state's findings
    assert low.verdict == honest.verdict and low.summary()["counts"] == honest.summary()["counts"]
    assert all(f.rule not in ("nr151_soil_loss", "declared_soil_loss") for f in low.findings)


def test_no_figure_declared_is_information_with_the_recomputed_one(tmp_path):
    got = _check(_plane(tmp_path))
    assert got.state[1].status == "info" and "No soil loss declared" in got.state[1].message
    assert f"{_by_hand(6.0, 0.30):.2f} t/ac" in got.state[1].message


def test_under_an_acre_nothing_is_compared(tmp_path):
    got = _check(_plane(tmp_path, declared=3.0, area=(100, -300, 100, 100)))
    assert [f.rule for f in got.state] == ["nr151_soil_loss"] and got.state[0].status == "info"


def test_the_outputs_carry_the_section_beside_the_verdict(tmp_path):
    got = _check(_plane(tmp_path, declared=4.0))
    write_check_outputs(got, tmp_path / "out")
    data = json.loads((tmp_path / "out" / "findings.json").read_text())
    assert [f["id"] for f in data["state_standard"]["findings"]] == ["S1", "S2"]
    assert data["state_standard"]["soil_loss"]["worst"]["tpa_high"] == pytest.approx(_by_hand(6.0, 0.30))
    md = (tmp_path / "out" / "findings.md").read_text()
    assert f"## {HEADING}" in md and "Not part of the verdict above" in md and "(S2)" in md
    html = (tmp_path / "out" / "report.html").read_text()
    assert 'id="finding-S2"' in html and "12-month window" in html


# ----------------------------------------------------------------------- one plan: analyze -> plan -> check


def test_the_plan_folder_declares_the_figure_check_recomputes(tmp_path):
    """analyze proposes controls (fence rows that end slope length, mats laid on the graded slope); its
    plan folder declares that plan's figure and carries R and C; check of the folder recomputes the same
    figure from the folder's layers."""
    from geosite import analyze, load_site
    from geosite.pipeline import write_outputs

    mat = {"erosion_mat": {"value": 0.05, "source": "a test value for the mat"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(load_site(_plane(tmp_path, c=mat)))
        write_outputs(result, tmp_path / "out", maps=False, dxf=False)
    worst = result.report["soil_loss"]["worst"]["tpa_high"]
    assert worst < _by_hand(6.0, 0.30)  # the proposed rows and mats cut it
    conf = tomllib.loads((tmp_path / "out" / "plan" / "site.toml").read_text())
    assert conf["declared"]["soil_loss_tons_per_acre"] == float(f"{worst:.4g}")
    assert conf["soil_loss"]["r_factor"] == 150.0 and conf["soil_loss"]["c"] == mat
    checked = _check(tmp_path / "out" / "plan")
    assert checked.analysis.report["soil_loss"]["worst"]["tpa_high"] == pytest.approx(worst, rel=1e-9)
    assert [f.status for f in checked.state] == [result.soil_loss.finding.status, "pass"]


@pytest.mark.parametrize("name", ["grantsburg_lot7", "big_site_basins", "steep_lot_15pct"])
def test_check_of_geosites_own_plan_recomputes_its_soil_loss(own_plans, name):
    """The rule on the round trip's sites: the soil-loss block check recomputes from the plan folder is the
    one analyze reported for the plan (its windows, its worst, its finding's status)."""
    result, _, checked = own_plans(name)
    a, c = result.report["soil_loss"], checked.analysis.report["soil_loss"]
    assert c.get("windows") == a.get("windows") and c.get("worst") == a.get("worst")
    assert c["finding"]["status"] == a["finding"]["status"]


def test_report_html_shows_the_submitted_plans_schedule(own_plans):
    """report.html lists every row of the plan's schedule (its controls' tags and dates) and its phases."""
    from geosite.review.html import render_html

    _, _, checked = own_plans("grantsburg_lot7")
    html = render_html(checked)
    block = checked.analysis.report["plan"]
    assert "<h2>The plan&#x27;s schedule</h2>" in html or "<h2>The plan's schedule</h2>" in html
    for row in block["schedule"]:
        assert f"<td>{row['tags']}</td>" in html
        assert f"<td>{row['install'] or 'not dated'}</td>" in html
    for ph in block["phases"]:
        assert f"<td>{ph['stabilized']}</td>" in html


def test_a_figure_only_where_the_standard_applies_and_every_number_is_known():
    """worst_figure, which the plan folder declares and check compares: none under an acre (the finding is
    info), none with R or a cover's C missing; the upper bound where the window is bounded."""
    from geosite.soil_loss.figure import worst_figure

    worst = {"tpa_low": 1.5, "tpa_high": 6.0, "acres": 2.0, "acres_not_assessed": 0.0}
    block = {"assessed": True, "worst": worst, "worst_window": "w", "exact": False, "r_factor": 150.0}
    assert worst_figure({**block, "finding": {"status": "not_assessed"}}, DATA) == SoilLossFigure(
        1.5, 6.0, "w", 5.0
    )
    assert worst_figure({**block, "finding": {"status": "info"}}, DATA) is None
    assert worst_figure({**block, "finding": {"status": "pass"}, "r_factor": None}, DATA) is None
    missing_c = {**block, "finding": {"status": "pass"}, "covers_without_c": ["tarp"]}
    assert worst_figure(missing_c, DATA) is None
    exact = worst_figure({**block, "exact": True, "finding": {"status": "pass"}}, DATA)
    assert exact is not None and exact.low == exact.high == 6.0
