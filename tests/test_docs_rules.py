"""The docs cannot drift: docs/rules.md's requirement tables and docs/profiles.md's reference are generated
from the profiles and the registry (scripts/make_rules_doc.py), and the worked example of docs/profiles.md
is a valid profile that decides what its text says."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from geosite.practices.validate import practice_problems
from geosite.rules import feature_applies
from geosite.rules.profile import Requirement, parse
from geosite.rules.schema import validate

ROOT = Path(__file__).resolve().parents[1]


def test_generated_docs_match_the_profiles_and_the_registry():
    res = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_rules_doc.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, "docs/rules.md or docs/profiles.md is stale: run scripts/make_rules_doc.py"


def _worked_example() -> dict:
    text = (ROOT / "docs" / "profiles.md").read_text().split("## A worked example")[1]
    return tomllib.loads("\n".join(re.findall(r"```toml\n(.*?)```", text, re.S)))


def test_the_worked_example_is_a_valid_profile_deciding_what_it_says():
    base = tomllib.loads((ROOT / "geosite/rules/profiles/grantsburg.toml").read_text())
    ex = _worked_example()
    base["applicability"]["triggers"] = [
        t for t in base["applicability"]["triggers"] if t["rule"] != "disturbed_area"
    ] + ex["applicability"]["triggers"]
    base["plan_type"] = ex["plan_type"]
    ids = {q["id"] for q in ex["requirements"]}
    base["requirements"] = [q for q in base["requirements"] if q["id"] not in ids] + ex["requirements"]
    base["review"].update(ex["review"])
    assert validate(base) == []
    prof = parse(base)
    assert practice_problems(prof) == []
    stab = Requirement.from_toml(next(q for q in ex["requirements"] if q["id"] == "stockpile_stabilization"))
    # both sides of each threshold: 10 cu yd and 7 days
    assert feature_applies(prof, stab, {"volume_cy": 10.0, "days": 30}).met is False
    assert feature_applies(prof, stab, {"volume_cy": 10.5, "days": 7}).met is False
    assert feature_applies(prof, stab, {"volume_cy": 10.5, "days": 8}).met is True
    assert feature_applies(prof, stab, {"volume_cy": None, "days": 8}).met is None  # no volume: not assessed
