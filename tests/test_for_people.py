"""Reports and messages for people (issue 33 items 5 and 6), held as rules over every output: the Lot 7
and Belgium analyses' report.md and findings, and a failing built site's check (findings.json,
findings.md, report.html) carry no profile or measurement key, no layer key before an id, no named
feature by its id, no coordinate with a thousands separator or without its unit, no "rises -", and every
failing finding says what was required and what was submitted (the scanner: tests/for_people.py; the
two samples' checks are scanned in tests/test_sample_checks.py).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from for_people import finding_problems, problems
from pyproj import CRS
from sitebuilder import make_site, write_map
from test_review_check import DIST, PILE, bmp_frame, clean_conf, clean_layers, gdf, line, point

from geosite.cli import cli
from geosite.report import render_markdown
from geosite.rules import load_profile
from geosite.rules.words import feature_words, param_words, sign_words
from geosite.testing import inclined_plane
from geosite.units import coordinates


def test_one_coordinate_formatter_in_the_crs_unit_without_separators():
    assert coordinates(153322.4, 151932.6, CRS.from_epsg(7593)) == "E 153322, N 151933 (US ft)"
    assert coordinates(622612.6, 467751.2, CRS.from_epsg(32616)) == "E 622613, N 467751 (m)"
    # an international-foot CRS (EPSG:2868, Arizona Central, ft)
    assert coordinates(-5.0, 1234567.0, CRS.from_epsg(2868)) == "E -5, N 1234567 (ft)"


def test_a_parameter_is_said_by_its_value_and_name():
    prof = load_profile("grantsburg")
    hook = prof.value("controls", "fence_hook_ft")
    said = param_words("its last fence_hook_ft climbs; see [controls] fence_intercept_reach_ft", prof)
    assert said == (
        f"its last {hook:g} ft (the length of a fence end's upslope hook) climbs; see "
        f"{prof.value('controls', 'fence_intercept_reach_ft'):g} ft (the reach below a fence end within "
        "which another fence catches its runoff)"
    )
    # a measurement by its registered text; a one-word key that is an English word is left alone
    assert param_words("slopes.max_slope_pct and the surety") == "steepest slope on the site and the surety"


def test_features_are_said_by_their_names():
    names = {
        "roads": {"1": "Birch Street"},
        "storm_inlets": {"2": "CB-2", "5": "CB-5"},
        "access_drives": {"1": "North drive"},
        "bmps": {"4": "silt fence C4"},
    }
    assert feature_words("Drive 1 onto road 1 (public)", names) == "North drive onto Birch Street (public)"
    assert feature_words("Storm drain inlet(s) 2, 5 unprotected", names) == (
        "Storm drain inlet CB-2, storm drain inlet CB-5 unprotected"
    )
    assert feature_words("bmps 4 (silt_fence) ends short", names) == "Silt fence C4 ends short"
    # no name: the id stays, after a word a person reads (never the layer's key)
    assert (
        feature_words("see bmps 9 (silt_fence) and storm_inlets 3", names)
        == "see silt fence 9 and storm drain inlet 3"
    )
    # a number after a layer's word that is no feature's id is left alone ("inlets 1 acre or less")
    assert feature_words("inlets 1 acre or less", names) == "inlets 1 acre or less"


def test_a_fall_is_said_as_a_fall():
    assert sign_words("E 1, N 2 (US ft): rises -1.56 ft where the ground climbs 2.20 ft") == (
        "E 1, N 2 (US ft): falls 1.56 ft where the ground climbs 2.20 ft"
    )


@pytest.mark.parametrize("name", ["lot7_result", "belgium_result"])
def test_sample_reports_speak_to_people(name, request):
    result = request.getfixturevalue(name)
    report = result.report
    names = report["inputs"]["feature_names"]
    assert finding_problems(report["findings"], names) == []
    assert problems(render_markdown(report), names) == []


@pytest.fixture(scope="module")
def failing_check(tmp_path_factory) -> Path:
    """A built site that fails B(3) (a 20-ft pad), B(4) (an unprotected inlet), B(6)(c)[3] (a fence gap)
    and B(6)(e) (a 45-day pile not stabilized), its features named, checked through the CLI."""
    tmp = tmp_path_factory.mktemp("people")
    layers = clean_layers()
    x, y, w, _ = DIST
    px, py, pw, _ = PILE
    layers["stockpiles"] = gdf(
        [layers["stockpiles"].geometry.iloc[0]], id=[1], days=[45], name=["Topsoil pile"]
    )
    layers["storm_inlets"] = gdf([point(400, -560), point(300, -590)], id=[1, 2], name=["CB-1", "CB-2"])
    layers["access_drives"] = gdf([line((450, -610), (450, y))], id=[1], name=["Main drive"])
    keep = layers["bmps"]
    geoms = list(keep.geometry)
    geoms[0] = line((x, y - 1), (x + 60, y - 1))  # the downslope fence stops 180 ft short
    geoms[5] = line((444, -610), (444, -590)).buffer(6, cap_style="flat")  # a 20-ft pad
    layers["bmps"] = bmp_frame(geoms, list(keep["id"]), list(keep["type"]))
    (tmp / "sub").mkdir(parents=True, exist_ok=True)
    write_map(tmp / "sub" / "map.tif", 2.0, 50)
    folder = make_site(tmp / "sub", layers, clean_conf(), dem=inclined_plane(4.0, shape=(200, 200), cell=4.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp / "out")])
    assert res.exit_code == 1, res.output
    return tmp / "out"


def test_a_failing_check_speaks_to_people(failing_check):
    data = json.loads((failing_check / "findings.json").read_text())
    names = {
        "stockpiles": {"1": "Topsoil pile"},
        "storm_inlets": {"1": "CB-1", "2": "CB-2"},
        "access_drives": {"1": "Main drive"},
        "roads": {"1": "Birch St"},
        "streams": {"1": "Wood Creek"},
    }
    failed = {f["rule"] for f in data["findings"] if f["status"] == "fail"}
    assert {"tracking_pad", "stockpile_stabilization", "filter_fence_submitted"} <= failed, failed
    assert finding_problems(data["findings"], names) == []
    assert problems((failing_check / "findings.md").read_text(), names) == []
    page = (failing_check / "report.html").read_text()
    assert problems(page, names) == []
    # the head says what fails; the files read and their hashes are the appendix, at the end
    head = page[page.index('<div class="head">') : page.index('<div class="main">')]
    assert "What fails (" in head and "sha256" not in head
    assert page.index('id="appendix"') > page.index("Quantities, estimate and surety")


def test_every_failing_finding_is_born_with_what_was_submitted():
    """The rule at its source: every finding the code makes with a literal "fail" status names what was
    submitted (or passes its fields on, ``**kw``); its requirement comes from the profile's words
    (``Context.finding``) or the plan item's (``review.completeness``). The built sites' checks
    (tests/test_review_check.py ``run_check``) hold the same on the outputs."""
    import ast

    root = Path(__file__).resolve().parents[1] / "geosite"
    bare = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            if ast.unparse(node.func).split(".")[-1] not in (
                "finding",
                "_f",
                "ReviewFinding",
                "Finding",
                "add",
            ):
                continue
            kws = {k.arg for k in node.keywords}
            if "'fail'" in ast.unparse(node) and "submitted" not in kws and None not in kws:
                bare.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    assert bare == []
