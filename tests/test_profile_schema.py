"""Profiles are checked when loaded (issue "One model of each ordinance"): a clerk's typo is an exit-2 error
naming the file, the key and the nearest valid name, never a silently different verdict; every requirement
is written once and read alike by the rules, the controls stage and the report."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner

from geosite.cli import cli
from geosite.errors import ProfileError
from geosite.practices.validate import load_profile  # the profile and its practices, as geosite.load_profile
from geosite.rules import available_profiles, decide
from geosite.rules.profile import parse
from geosite.rules.registry import MEASURES
from geosite.rules.schema import validate

PROFILES = Path(__file__).resolve().parents[1] / "geosite" / "rules" / "profiles"


def grantsburg() -> dict:
    return tomllib.loads((PROFILES / "grantsburg.toml").read_text())


def req(data: dict, rid: str) -> dict:
    return next(q for q in data["requirements"] if q["id"] == rid)


def problems_of(data: dict) -> str:
    """Every problem of a profile: the schema's, then (a valid schema) the practices' (geosite.practices)."""
    from geosite.practices.validate import practice_problems
    from geosite.rules.profile import parse

    problems = validate(data)
    return "\n".join(problems or practice_problems(parse(data)))


@pytest.mark.parametrize("name", available_profiles())
def test_every_bundled_profile_is_valid(name):
    assert validate(tomllib.loads((PROFILES / f"{name}.toml").read_text())) == []
    load_profile(name)


def _typo_measure(d):
    d["applicability"]["triggers"][2]["measure"] = "disturbed.area_sqf"
    return (
        "applicability.triggers[2].measure: unknown measure 'disturbed.area_sqf'; did "
        "you mean 'disturbed.area_sqft'?"
    )


def _old_vocabulary(d):
    req(d, "sediment_basin")["when"] = ["at_one_time_acre"]
    return "requirements[9] (sediment_basin).when: unknown key 'when'"


def _operator(d):
    req(d, "filter_fence")["conditions"][0]["op"] = "=<"
    return "(filter_fence).conditions[0].op: '=<' is not an operator the engine has"


def _unit(d):
    req(d, "filter_fence")["conditions"][0]["unit"] = "sq ft"
    return "'sq ft', but disturbed.max_at_one_time_acres is measured in 'acres'"


def _param(d):
    req(d, "stockpile_setback")["params"]["setbak_ft"] = req(d, "stockpile_setback")["params"].pop(
        "setback_ft"
    )
    return "unknown parameter of stockpile_setback 'setbak_ft'; did you mean 'setback_ft'?"


def _param_type(d):
    req(d, "stockpile_setback")["params"]["setback_ft"] = "25 ft"
    return "(stockpile_setback).params.setback_ft: '25 ft' is not a number (ft)"


def _controls_key(d):
    d["controls"]["basin_disturbed_acres"] = {
        "value": 0.5,
        "citation": "B(6)(c)[2]",
        "section": "requirements",
    }
    return "controls.basin_disturbed_acres: unknown key 'basin_disturbed_acres'"


def _controls_missing(d):
    del d["controls"]["fence_hook_ft"]
    return "controls: fence_hook_ft is needed by practice filter_fence"


def _no_citation(d):
    del req(d, "waste")["citation"]
    return "requirements[1] (waste).citation: required text: every requirement cites its section"


def _gate(d):
    req(d, "sediment_basin")["gate"] = "b7"
    return "(sediment_basin).gate: unknown gate (not in [gates]) 'b7' (valid: b6)"


def _alternative(d):
    req(d, "filter_fence")["alternative"] = "sediment_basins"
    return "unknown requirement 'sediment_basins'; did you mean 'sediment_basin'?"


def _practice(d):
    req(d, "tracking")["practice"] = "tracking_pads"
    return "unknown practice 'tracking_pads'; did you mean 'tracking_pad'?"


def _storm(d):
    req(d, "sheetflow_diversion")["params"]["storm"] = "ten_year_24_hr_in"
    return "did you mean 'ten_year_24_hour_in'?"


def _section(d):
    req(d, "tracking")["section"] = "requirement"
    return "unknown section (not in [sections]) 'requirement'; did you mean 'requirements'?"


def _twice(d):
    d["requirements"].append(dict(req(d, "tracking")))
    return "id 'tracking' is written twice"


def _feature_measure(d):
    req(d, "stockpile_stabilization")["conditions"][0]["measure"] = "day"
    return "unknown measure 'day'; did you mean 'days'?"


def _bool_threshold(d):
    req(d, "dewatering")["conditions"][0]["threshold"] = "yes"
    return "'yes' is not a boolean"


@pytest.mark.parametrize(
    "mutate",
    [
        _typo_measure,
        _old_vocabulary,
        _operator,
        _unit,
        _param,
        _param_type,
        _controls_key,
        _controls_missing,
        _no_citation,
        _gate,
        _alternative,
        _practice,
        _storm,
        _section,
        _twice,
        _feature_measure,
        _bool_threshold,
    ],
)
def test_a_typo_is_refused_naming_the_key_and_the_nearest_name(tmp_path, mutate):
    d = grantsburg()
    want = mutate(d)
    assert want in problems_of(d)
    path = tmp_path / "village.toml"
    path.write_bytes(tomli_w.dumps(d).encode())
    with pytest.raises(ProfileError, match=re.escape(str(path))):
        load_profile(path)
    res = CliRunner().invoke(cli, ["profile", "check", str(path)])
    assert res.exit_code == 2 and want in res.output


def test_profile_check_and_show_from_the_command_line():
    res = CliRunner().invoke(cli, ["profile", "check", "grantsburg"])
    assert res.exit_code == 0 and "valid profile 'grantsburg'" in res.output
    res = CliRunner().invoke(cli, ["profile", "show", "grantsburg", "--markdown"])
    assert res.exit_code == 0
    for q in load_profile("grantsburg").requirements:
        assert f"| {q.id}: " in res.output


def test_every_registered_measure_is_recorded_by_a_stage():
    """The registry lists what the stages record: no phantom key a profile could name and never get."""
    src = "\n".join(p.read_text() for p in (PROFILES.parents[1]).rglob("*.py") if p.name != "registry.py")
    for key in MEASURES:
        head, tail = key.split(".", 1)
        assert f'"{key}"' in src or f'f"{head}.{{' in src or f'"{tail}"' in src, key


def _one_decision(data: dict, values: dict) -> dict:

    prof = parse(data)
    return decide(prof, values)


def test_the_basin_and_fence_routes_are_decided_once_from_one_threshold_each():
    """A village writing 0.5 acres in place of 10: basins required and fences not, in the one decision both
    the controls and the findings read (the contradiction the issue found cannot arise)."""
    d = grantsburg()
    req(d, "sediment_basin")["conditions"][0]["threshold"] = 0.5
    req(d, "filter_fence")["conditions"][0]["threshold"] = 0.5
    req(d, "channel_edge_fences")["conditions"][0]["threshold"] = 0.5
    assert validate(d) == []
    values = {
        "disturbed.area_sqft": 43_560.0,
        "disturbed.max_at_one_time_acres": 1.0,
        "hydrology.runoff_leaves_site": True,
        "hydrology.channel_originates_in_disturbed": False,
    }
    dec = _one_decision(d, values)
    assert dec["sediment_basin"].applies is True and dec["sediment_basin"].either_with is None
    assert dec["filter_fence"].applies is False
    # under the threshold: fences, and a channel origin opens the basin route as the alternative
    values["disturbed.max_at_one_time_acres"] = 0.4
    values["hydrology.channel_originates_in_disturbed"] = True
    dec = _one_decision(d, values)
    assert dec["filter_fence"].applies is True and dec["filter_fence"].either_with == "sediment_basin"
    assert dec["sediment_basin"].either_with == "filter_fence"


def test_a_copy_under_a_new_id_keeps_the_map_item_letters(tmp_path):
    """The existing site map's item letters are the profile's (its plan items' map_layers), not a table keyed
    by profile id: a village copying a profile under its own id keeps them."""
    from geosite.maps.existing import _Items

    d = grantsburg()
    d["jurisdiction"]["id"] = "newtown"
    path = tmp_path / "newtown.toml"
    path.write_bytes(tomli_w.dumps(d).encode())
    copy = load_profile(path)
    assert copy.map_items() == load_profile("grantsburg").map_items()
    items = _Items(copy.map_items())
    assert (items.letter("contours"), items.letter("upslope_areas"), items.letter("title_block")) == (
        "i",
        "g",
        "j",
    )
    belgium = _Items(load_profile("belgium").map_items())
    assert (belgium.letter("contours"), belgium.letter("vegetation")) == (
        "h",
        None,
    )  # Belgium's chapter has no (e)


def _missing_terrain(d):
    del d["terrain"]["contour_interval_ft"]
    return "terrain.contour_interval_ft: missing: geosite needs this number"


def _not_specified_section(d):
    d["not_specified"] = [{"id": "x", "topic": "y", "kind": "unread", "section": "requirement"}]
    return "not_specified[0].section: unknown section (not in [sections]) 'requirement'"


@pytest.mark.parametrize("mutate", [_missing_terrain, _not_specified_section])
def test_numbers_geosite_needs_are_given_and_every_section_named_exists(mutate):
    d = grantsburg()
    want = mutate(d)
    assert want in problems_of(d)


@pytest.mark.parametrize(
    ("kind", "status", "settle"),
    [
        ("silent", "info", ""),
        ("unread", "not_assessed", "the chapter's text"),
        ("unexpressed", "not_assessed", "the official's reading"),
    ],
)
def test_what_a_chapter_does_not_say_or_the_language_cannot(kind, status, settle):
    """A rule the chapter states that the profile language cannot say is never passed nor borrowed: not
    assessed, like a part not read; what the chapter is silent on is information."""
    from geosite.rules import evaluate

    d = grantsburg()
    d["not_specified"] = [
        {
            "id": "watercourse_work",
            "kind": kind,
            "citation": "§ 446-2D",
            "topic": "any watercourse changed or enlarged",
        }
    ]
    assert validate(d) == []
    ev = evaluate(parse(d), {"disturbed.area_sqft": 5000.0, "disturbed.area_acres": 0.11})
    (f,) = [f for f in ev.findings if f.rule == "watercourse_work"]
    assert f.status == status and f.settle.startswith(settle) and f.citation == "§ 446-2D"
