"""What the QGIS plugin reads from the command line (issue 35): ``--progress-json`` (each stage, warning and
bad input as one JSON line on stderr, whatever stderr is), ``geosite profile list`` (the jurisdictions a
program offers) and ``geosite map --dem`` (a DEM given beside the folder, as ``analyze`` takes it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from geosite.cli import cli
from geosite.rules.profile import available_profiles, load_profile

ROOT = Path(__file__).resolve().parents[1]
LOT7 = ROOT / "data" / "sample_sites" / "grantsburg_lot7"


def _events(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def _small_site(tmp_path: Path) -> Path:
    from sitebuilder import make_site, rect

    from geosite.testing import inclined_plane

    return make_site(
        tmp_path / "s",
        {"site_boundary": [rect(60, -240, 80, 120)], "disturbance": [rect(80, -220, 40, 60)]},
        dem=inclined_plane(5.0, shape=(150, 150), cell=2.0),
    )


def test_each_stage_is_one_numbered_json_line_even_quiet_and_piped(tmp_path):
    """The flag, like -q and -v, may also follow the command."""
    site = _small_site(tmp_path)
    res = CliRunner().invoke(
        cli, ["analyze", str(site), "--out", str(tmp_path / "out"), "--no-maps", "-q", "--progress-json"]
    )
    assert res.exit_code == 0, res.output
    events = _events(res.stderr)
    steps = [e for e in events if "step" in e]
    assert [e["step"] for e in steps] == list(range(1, len(steps) + 1))
    assert steps[0]["name"] == "loading and validating the site" and steps[-1]["name"] == "writing outputs"
    assert "reading the DEM" in [e["name"] for e in steps]
    times = [e["elapsed_s"] for e in steps]
    assert times[0] == 0.0 and times == sorted(times)
    # nothing but JSON lines on stderr: a program reads every line
    assert all(line.startswith("{") for line in res.stderr.splitlines())


def test_a_bad_input_is_one_json_error_line_and_exit_2(tmp_path):
    res = CliRunner().invoke(cli, ["--progress-json", "analyze", str(tmp_path / "missing"), "--no-maps"])
    assert res.exit_code == 2
    (error,) = [e for e in _events(res.stderr) if "error" in e]
    assert error["error"].endswith("missing: site folder not found")
    assert "error: " not in res.stderr  # the plain line is replaced, not doubled


def test_a_warning_is_a_json_line(tmp_path):
    """Lot 7 lies in Burnett County; under Belgium's profile the site is outside the village: a warning."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "geosite.cli",
            "--progress-json",
            "schedule",
            str(LOT7),
            "--jurisdiction",
            "belgium",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    warnings = [e["warning"] for e in _events(run.stderr) if "warning" in e]
    assert any("lies outside Village of Belgium, Wisconsin's extent" in w for w in warnings), run.stderr
    assert not [line for line in run.stderr.splitlines() if line.startswith("warning: ")]


def test_profile_list_names_every_installed_profile():
    res = CliRunner().invoke(cli, ["profile", "list", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["id"] for r in rows] == available_profiles()
    assert {r["id"]: r["name"] for r in rows}["grantsburg"] == load_profile("grantsburg").name
    text = CliRunner().invoke(cli, ["profile", "list"]).stdout.splitlines()
    assert text[0].split("\t") == [rows[0]["id"], rows[0]["name"]]


def test_map_takes_the_dem_beside_the_folder(tmp_path):
    """A folder without [dem] path and the DEM given as --dem: the sheets have the DEM's contours, as
    when the folder names it."""
    import shutil

    folder = tmp_path / "nodem"
    folder.mkdir()
    shutil.copy(LOT7 / "layers.gpkg", folder)
    (folder / "site.toml").write_text('jurisdiction = "grantsburg"\n[layers]\npath = "layers.gpkg"\n')
    res = CliRunner().invoke(
        cli,
        ["map", str(folder), "--dem", str(LOT7 / "dem.tif"), "--dem-vertical-unit", "us_ft",
         "--out", str(tmp_path / "maps"), "--progress-json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    names = [e["name"] for e in _events(res.stderr) if "step" in e]
    assert "reading the DEM" in names and "tracing steep-slope polygons and contours" in names
    assert sorted(p.name for p in (tmp_path / "maps").glob("*.pdf")) == [
        "construction_plan.pdf",
        "existing_site_map.pdf",
        "final_conditions.pdf",
    ]
