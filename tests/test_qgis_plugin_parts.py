"""The QGIS plugin's parts that need no QGIS (issue 35), run with the project's Python: which geosite it
finds and the environment it gives it (engine), how a run's lines become progress, log, errors, and how
Cancel stops a child and everything it started (runner), the site.toml it writes (site_toml), and the
installable zip (scripts/build_qgis_plugin.py)."""

from __future__ import annotations

import datetime as dt
import os
import sys
import textwrap
import time
import tomllib
import zipfile
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "qgis_plugin"))
sys.path.insert(0, str(ROOT / "scripts"))

import build_qgis_plugin  # noqa: E402
from geosite_processing import engine, runner, site_toml  # noqa: E402

GEOSITE = ROOT / ".venv" / "bin" / "geosite"
LOT7 = ROOT / "data" / "sample_sites" / "grantsburg_lot7"


class Feedback:
    """QgsProcessingFeedback's methods the runner calls, recorded; Cancel pressed at a given stage."""

    def __init__(self, cancel_at_step: int | None = None) -> None:
        self.cancel_at_step = cancel_at_step
        self.info: list[str] = []
        self.warnings: list[str] = []
        self.texts: list[str] = []
        self.progress: list[float] = []
        self.commands: list[str] = []
        self.console: list[str] = []
        self.cancelled = False

    def isCanceled(self) -> bool:
        return self.cancelled

    def setProgress(self, value: float) -> None:
        self.progress.append(value)

    def setProgressText(self, text: str) -> None:
        self.texts.append(text)
        if self.cancel_at_step is not None and len(self.texts) >= self.cancel_at_step:
            self.cancelled = True

    def pushInfo(self, text: str) -> None:
        self.info.append(text)

    def pushWarning(self, text: str) -> None:
        self.warnings.append(text)

    def pushConsoleInfo(self, text: str) -> None:
        self.console.append(text)

    def pushCommandInfo(self, text: str) -> None:
        self.commands.append(text)


def _script(tmp_path: Path, body: str) -> list[str]:
    """A stand-in child: ``python -c`` of ``body`` (what geosite would print, and how it would end)."""
    path = tmp_path / "child.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


# ------------------------------------------------------------------------------------------ engine


def test_a_venv_folder_or_the_executable_itself_finds_the_same_geosite(tmp_path):
    if not GEOSITE.exists():
        pytest.skip("no .venv/bin/geosite (scripts/run_tests.sh makes it)")
    by_file = engine.find_engine(str(GEOSITE))
    by_venv = engine.find_engine(str(ROOT / ".venv"))
    assert by_file == by_venv
    assert by_file.executable == str(GEOSITE.resolve())
    from geosite import __version__
    from geosite.rules.profile import available_profiles

    assert by_file.version == __version__
    assert [pid for pid, _ in by_file.profiles] == available_profiles()
    assert by_file.describe() == f"geosite {__version__} at {GEOSITE.resolve()}"


def test_nothing_runnable_says_where_it_looked_and_where_to_set_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no geosite on PATH
    with pytest.raises(engine.EngineNotFound, match="no 'geosite' on PATH.*Providers > geosite"):
        engine.locate("")
    with pytest.raises(engine.EngineNotFound, match=str(tmp_path / "bin" / "geosite")):
        engine.locate(str(tmp_path))
    other = tmp_path / "geosite"
    other.write_text("#!/bin/sh\necho 'something else 1.0'\n")
    other.chmod(0o755)
    with pytest.raises(engine.EngineNotFound, match="is not geosite"):
        engine.find_engine(str(other))


def test_the_child_gets_no_qgis_library_settings():
    qgis_env = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "PYTHONPATH": "/usr/share/qgis/python",
        "PYTHONHOME": "/opt/qgis",
        "GDAL_DATA": "/usr/share/gdal",
        "GDAL_DRIVER_PATH": "/opt/qgis/gdalplugins",
        "PROJ_LIB": "/usr/share/proj",
        "PROJ_DATA": "/usr/share/proj",
        "LD_LIBRARY_PATH": "/opt/qgis/lib",
        "CPL_DEBUG": "ON",
        "QT_QPA_PLATFORM": "offscreen",
    }
    env = engine.child_env(qgis_env)
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONUNBUFFERED": "1",
        "PYTHONIOENCODING": "utf-8",
    }


# ------------------------------------------------------------------------------------------ runner


def test_stages_become_progress_and_log_and_the_count_is_returned(tmp_path):
    child = _script(
        tmp_path,
        """
        import json, sys
        for n, name in enumerate(["loading", "slopes", "writing"], 1):
            print(json.dumps({"step": n, "name": name, "elapsed_s": n / 10}), file=sys.stderr)
        print(json.dumps({"warning": "DEM covers 90 % of the site"}), file=sys.stderr)
        print("INFO geosite: a log line", file=sys.stderr)
        print("wrote out/report.json")
        """,
    )
    fb = Feedback()
    outcome = runner.run_geosite(child, fb, expected_steps=4)
    assert outcome.returncode == 0 and outcome.steps == 3
    assert fb.texts == ["geosite: loading", "geosite: slopes", "geosite: writing"]
    assert fb.progress == [0.0, 25.0, 50.0]  # stage n of 4 begins with n - 1 done
    assert fb.warnings == ["geosite warning: DEM covers 90 % of the site"]
    assert fb.console == ["INFO geosite: a log line"]
    assert "wrote out/report.json" in fb.info and outcome.stdout == "wrote out/report.json"
    assert outcome.warnings == ("DEM covers 90 % of the site",)


def test_percent_without_a_count_is_unknown_and_never_reaches_100():
    assert runner.percent(3, None) is None
    assert runner.percent(1, 16) == 0.0
    assert runner.percent(17, 16) == 99.0  # a run longer than the last one stays under 100


def test_a_refusal_is_geosites_one_message_not_a_traceback(tmp_path):
    child = _script(
        tmp_path,
        """
        import json, sys
        print(json.dumps({"step": 1, "name": "loading", "elapsed_s": 0.0}), file=sys.stderr)
        print(json.dumps({"error": "site.toml: [dem] vertical_unit is not set"}), file=sys.stderr)
        sys.exit(2)
        """,
    )
    with pytest.raises(runner.GeositeError) as info:
        runner.run_geosite(child, Feedback())
    assert str(info.value) == "site.toml: [dem] vertical_unit is not set"


def test_a_usage_error_and_a_crash_keep_their_last_words(tmp_path):
    usage = _script(
        tmp_path,
        "import sys\n"
        "print('Usage: geosite analyze\\nError: No such option: --nope', file=sys.stderr)\n"
        "sys.exit(2)",
    )
    with pytest.raises(runner.GeositeError, match="^geosite: No such option: --nope$"):
        runner.run_geosite(usage, Feedback())
    crash = _script(tmp_path, "raise MemoryError('out of memory reading dem.tif')")
    with pytest.raises(runner.GeositeError, match="exit code 1: MemoryError: out of memory reading dem.tif"):
        runner.run_geosite(crash, Feedback())


def test_check_exits_1_on_failed_findings_which_is_a_result(tmp_path):
    child = _script(tmp_path, "import sys; print('FAIL B(4)'); sys.exit(1)")
    outcome = runner.run_geosite(child, Feedback(), ok_codes=(0, 1))
    assert outcome.returncode == 1 and outcome.stdout == "FAIL B(4)"


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX here")
def test_cancel_stops_the_child_and_the_processes_it_started(tmp_path):
    """geosite starts a map worker (and check a sandbox child): Cancel must reach them all. The stand-in
    starts a grandchild, announces two stages and sleeps; Cancel at the second stops both within the
    grace period, and the child's KeyboardInterrupt cleanup runs (it removes its temporary output)."""
    marker = tmp_path / "partial"
    child = _script(
        tmp_path,
        f"""
        import json, subprocess, sys, time
        from pathlib import Path
        partial = Path({str(marker)!r}); partial.mkdir()
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(f"pid {{grandchild.pid}}", file=sys.stderr, flush=True)
        try:
            for n in (1, 2):
                step = {{"step": n, "name": f"stage {{n}}", "elapsed_s": 0}}
                print(json.dumps(step), file=sys.stderr, flush=True)
            time.sleep(60)
        except KeyboardInterrupt:
            partial.rmdir()
            raise
        """,
    )
    fb = Feedback(cancel_at_step=2)
    proc_pids: list[int] = []
    original = runner._start

    def spy(command):
        proc = original(command)
        proc_pids.append(proc.pid)
        return proc

    runner._start = spy
    t0 = time.monotonic()
    try:
        with pytest.raises(runner.Cancelled):
            runner.run_geosite(child, fb)
    finally:
        runner._start = original
    assert time.monotonic() - t0 < runner.GRACE_S
    assert not marker.exists()  # the child's own cleanup ran (SIGINT, not a kill)
    grandchild = [int(line.split()[1]) for line in fb.console if line.startswith("pid ")]
    assert len(grandchild) == 1
    for pid in proc_pids + grandchild:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, pid


def test_the_real_geosite_reports_its_stages(tmp_path):
    if not GEOSITE.exists():
        pytest.skip("no .venv/bin/geosite")
    fb = Feedback()
    outcome = runner.run_geosite(
        [str(GEOSITE), "--progress-json", "schedule", str(LOT7), "--format", "json"], fb, echo_stdout=False
    )
    assert outcome.returncode == 0
    assert '"jurisdiction": "grantsburg"' in outcome.stdout and fb.info == []
    with pytest.raises(runner.GeositeError, match="site folder not found"):
        runner.run_geosite(
            [str(GEOSITE), "--progress-json", "schedule", str(tmp_path / "nowhere")], Feedback()
        )


# --------------------------------------------------------------------------------------- site.toml


def test_the_written_toml_reads_back_as_the_document():
    doc = {
        "name": 'Lot 7 "north" \\ residence\tB',
        "jurisdiction": "grantsburg",
        "crs": "EPSG:7593",
        "dem": {"path": "dem.tif", "vertical_unit": "us_ft"},
        "layers": {"path": "layers.gpkg", "names": {"site_boundary": "PARCEL", "odd key": "x"}},
        "applicant": {"name": "Erik", "phone": "715-555-0142"},
        "project": {
            "start": dt.date(2027, 5, 3),
            "cut_cy": 180.0,
            "state_funded": False,
            "building_permit_days": 365,
        },
        "revisions": [
            {"no": "1", "date": dt.date(2027, 3, 10)},
            {"no": "2", "description": "per village\ncomments"},
        ],
        "declared": {"maintenance": "weekly", "notes": ["mat", "fence"]},
    }
    assert tomllib.loads(site_toml.dumps(doc, header="written by a test\nsecond line")) == doc


def test_a_value_toml_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="nan"):
        site_toml.dumps({"project": {"cut_cy": float("nan")}})


def test_the_dialog_replaces_the_templates_values_and_keeps_the_rest():
    template = tomllib.loads((LOT7 / "site.toml").read_text())
    template["declared"] = {"plan_type": "statement"}
    template["layers"] = {"path": "old.gpkg", "names": {"site_boundary": "PARCEL"}}
    doc = site_toml.site_document(
        template,
        name=None,
        jurisdiction="belgium",
        crs=None,
        dem={"vertical_unit": None},
        layers_path="layers.gpkg",
        project={"cut_cy": 250.0, "plat": "subdivision", "state_funded": None, "end": None},
        contacts={"applicant": {"phone": "715-555-0199", "name": None}, "preparer": {"name": None}},
    )
    assert doc["name"] == "Lot 7 residence, Birch Street" and doc["jurisdiction"] == "belgium"
    assert doc["dem"] == {"vertical_unit": "us_ft"}  # the template's file left behind, its unit kept
    assert doc["layers"] == {"path": "layers.gpkg"}  # the folder's GeoPackage holds geosite's names
    assert doc["project"]["cut_cy"] == 250.0 and doc["project"]["fill_cy"] == 95.0
    assert doc["project"]["state_funded"] is False  # not stated in the dialog: the template's "false"
    assert doc["project"]["plat"] == "subdivision" and doc["project"]["end"] == dt.date(2027, 10, 29)
    assert (
        doc["applicant"]["phone"] == "715-555-0199" and doc["applicant"]["name"] == "Erik and Karin Lindquist"
    )
    assert "preparer" not in doc and doc["declared"] == {"plan_type": "statement"}
    bare = site_toml.site_document(
        None, name="Lot 9", jurisdiction="grantsburg", crs="EPSG:7593",
        dem={"vertical_unit": "us_ft"}, layers_path="layers.gpkg",
        project={"state_funded": None, "plat": None}, contacts={"applicant": {"name": None}},
    )  # fmt: skip
    assert bare == {
        "name": "Lot 9",
        "jurisdiction": "grantsburg",
        "crs": "EPSG:7593",
        "dem": {"vertical_unit": "us_ft"},
        "layers": {"path": "layers.gpkg"},
    }


def test_declared_files_inside_the_template_folder_are_copied(tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "existing.pdf").write_bytes(b"%PDF-1.4")
    template = {
        "declared": {
            "submitted_map": "maps/existing.pdf",
            "final_conditions": "../outside.pdf",
            "maintenance": "inspect weekly and after 0.5 in of rain",
            "slopes_after": "missing.tif",
        }
    }
    assert site_toml.declared_files(template, tmp_path) == ["maps/existing.pdf"]


def test_template_errors_name_the_file(tmp_path):
    bad = tmp_path / "site.toml"
    bad.write_text("name = \n")
    with pytest.raises(site_toml.TemplateError, match=f"{bad}: not valid TOML"):
        site_toml.read_template(str(bad))
    with pytest.raises(site_toml.TemplateError, match="cannot be read"):
        site_toml.read_template(str(tmp_path / "none.toml"))


def test_the_dialogs_layers_are_the_site_folders_with_their_geometry_types():
    from geosite.io.layers import LAYERS

    family = {"Point": "point", "LineString": "line", "Polygon": "polygon"}
    want = {name: {family[g] for g in spec.geometry if g in family} for name, spec in LAYERS.items()}
    assert {name: set(families) for name, families, *_ in site_toml.LAYERS} == want


# ------------------------------------------------------------------------------------------- build


def test_the_zip_is_one_folder_of_the_plugins_files(tmp_path):
    zip_path = build_qgis_plugin.build(tmp_path, {})
    assert zip_path.name == "geosite_processing-0.1.0.zip"
    with zipfile.ZipFile(zip_path) as zf:
        names = zf.namelist()
        metadata = zf.read("geosite_processing/metadata.txt").decode()
        licence = zf.read("geosite_processing/LICENSE")
    modules = sorted(p.name for p in (ROOT / "qgis_plugin" / "geosite_processing").glob("*.py"))
    assert sorted(names) == sorted(
        f"geosite_processing/{n}" for n in [*modules, "metadata.txt", "icon.svg", "LICENSE", "CHANGELOG.md"]
    )
    assert licence == (ROOT / "LICENSE").read_bytes()
    import configparser

    meta = configparser.ConfigParser(interpolation=None)
    meta.read_string(metadata)
    general = meta["general"]
    assert general["qgisMinimumVersion"] == "3.22" and general["hasProcessingProvider"] == "yes"
    assert general["changelog"].splitlines()[0] == "0.1.0"
    assert "Review calendar, Write a submission folder (from layers)." in general["changelog"]
    # the same sources, the same bytes
    assert build_qgis_plugin.build(tmp_path / "again", {}).read_bytes() == zip_path.read_bytes()


def test_the_icon_is_an_svg_of_our_own():
    import xml.etree.ElementTree as ET

    svg = ET.parse(ROOT / "qgis_plugin" / "geosite_processing" / "icon.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.get("viewBox") == "0 0 64 64"


def test_a_version_out_of_step_with_the_changelog_is_refused(tmp_path):
    folder = tmp_path / "geosite_processing"
    source = ROOT / "qgis_plugin" / "geosite_processing"
    folder.mkdir()
    for p in source.iterdir():
        if p.is_file():
            (folder / p.name).write_bytes(p.read_bytes())
    (folder / "metadata.txt").write_text(
        (source / "metadata.txt").read_text().replace("version=0.1.0", "version=0.2.0")
    )
    with pytest.raises(build_qgis_plugin.BuildError, match="'0.2.0' is not CHANGELOG.md's newest '0.1.0'"):
        build_qgis_plugin.build(tmp_path / "out", {}, folder=folder)
    assert not list((tmp_path / "out").glob("*.zip"))


def test_upload_needs_the_repository_fields(tmp_path, capsys):
    assert build_qgis_plugin.main(["--out", str(tmp_path), "--for-upload", "--email", "a@b.invalid"]) == 2
    assert "--repository, --tracker, --homepage" in capsys.readouterr().err
    args = ["--out", str(tmp_path), "--for-upload", "--repository", "https://example.invalid/r",
            "--tracker", "https://example.invalid/t", "--homepage", "https://example.invalid/h",
            "--email", "a@b.invalid"]  # fmt: skip
    assert build_qgis_plugin.main(args) == 0
    with zipfile.ZipFile(tmp_path / "geosite_processing-0.1.0.zip") as zf:
        assert "repository = https://example.invalid/r" in zf.read("geosite_processing/metadata.txt").decode()


def test_the_plugin_folder_holds_the_projects_licence():
    assert (ROOT / "qgis_plugin" / "geosite_processing" / "LICENSE").read_bytes() == (
        ROOT / "LICENSE"
    ).read_bytes()
    assert os.access(ROOT / "scripts" / "build_qgis_plugin.py", os.R_OK)
