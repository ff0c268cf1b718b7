"""The geosite QGIS plugin in Debian's QGIS, headless (issue 35): the provider loads with the geosite it
is pointed to, each algorithm runs on the Lot 7 sample's layers as a QGIS user picks them, its outputs
load as valid layers in their stored styles, grouped, and equal what the command line writes for the
same site; a bad input is the algorithm's error with geosite's message; Cancel stops geosite; the zip
installs into a clean QGIS profile and runs under ``qgis_process``.

QGIS runs in its own process (``/usr/bin/python3``, Debian's python3-qgis, QT_QPA_PLATFORM=offscreen,
a QGIS profile in a temporary folder); geosite is the worktree's ``.venv/bin/geosite``. The command-line
references run at the same time, as separate processes. Skips where QGIS or the venv is absent
(scripts/run_tests.sh installs qgis and python3-qgis as root on Debian).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pyogrio
import pytest

ROOT = Path(__file__).resolve().parents[1]
LOT7 = ROOT / "data" / "sample_sites" / "grantsburg_lot7"
GPKG = LOT7 / "layers.gpkg"
GEOSITE = ROOT / ".venv" / "bin" / "geosite"
HARNESS = ROOT / "qgis_plugin" / "tests" / "harness.py"
SYS_PYTHON = Path("/usr/bin/python3")
RECEIVED = "2027-03-01"


def _qgis_env(tmp: Path) -> dict[str, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": str(tmp / "xdg")}
    env["QGIS_CUSTOM_CONFIG_PATH"] = str(tmp / "qgis-profile")  # never the user's own QGIS settings
    env["GDAL_PAM_ENABLED"] = "NO"  # QGIS's GDAL writes no dem.tif.aux.xml (statistics) beside the sample
    (tmp / "xdg").mkdir(mode=0o700, exist_ok=True)
    env.pop("PYTHONPATH", None)
    return env


def _why_not() -> str | None:
    if not GEOSITE.exists():
        return "no .venv/bin/geosite (scripts/run_tests.sh makes it)"
    if not SYS_PYTHON.exists():
        return "no /usr/bin/python3"
    run = subprocess.run(
        [SYS_PYTHON, "-c", "import qgis.core"], capture_output=True, check=False, env={"PATH": "/usr/bin"}
    )
    return (
        None if run.returncode == 0 else "QGIS's Python bindings are not installed (Debian qgis python3-qgis)"
    )


pytestmark = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))


def _lot7_layers(*, dem: bool = True) -> dict[str, dict]:
    names = [n for (n,) in sqlite3.connect(GPKG).execute("SELECT table_name FROM gpkg_contents")]
    layers = {n.upper(): {"uri": f"{GPKG}|layername={n}", "name": f"Lot 7 {n}"} for n in names}
    if dem:
        layers["DEM"] = {"uri": str(LOT7 / "dem.tif"), "name": "Lot 7 LiDAR", "kind": "raster"}
    return layers


def _vrt_of(tif: Path, vrt: Path) -> Path:
    """A VRT over ``tif`` (a DEM that is not one GeoTIFF file: the plugin writes it as one)."""
    import rasterio

    with rasterio.open(tif) as src:
        gt = ", ".join(repr(v) for v in src.transform.to_gdal())
        vrt.write_text(
            f'<VRTDataset rasterXSize="{src.width}" rasterYSize="{src.height}">'
            f"<SRS>{src.crs.to_wkt()}</SRS><GeoTransform>{gt}</GeoTransform>"
            f'<VRTRasterBand dataType="Float32" band="1"><NoDataValue>{src.nodata}</NoDataValue>'
            f'<SimpleSource><SourceFilename relativeToVRT="0">{tif}</SourceFilename>'
            f"<SourceBand>1</SourceBand></SimpleSource></VRTRasterBand></VRTDataset>"
        )
    return vrt


def _scenarios(out: Path) -> list[dict]:
    template = str(LOT7 / "site.toml")
    dated = {
        "uri": f"{GPKG}|layername=disturbance",
        "name": "Work phases",
        "dated": {
            "renames": {"phase": "Phase_No", "start": "Begin", "end": "Finish"},
            "dates": ["Begin", "Finish"],
        },
    }
    vrt = {"uri": str(_vrt_of(LOT7 / "dem.tif", out / "dem.vrt")), "name": "LiDAR (VRT)", "kind": "raster"}
    return [
        {"id": "analyze", "alg": "geosite:analyze", "layers": _lot7_layers(),
         "params": {"SITE_TOML": template, "NO_MAPS": True, "OUTPUT": str(out / "analyze"),
                    "FINDINGS": "TEMPORARY_OUTPUT"}},
        {"id": "check", "alg": "geosite:check", "layers": _lot7_layers(),
         "params": {"SITE_TOML": template, "RECEIVED": RECEIVED, "OUTPUT": str(out / "check")}},
        {"id": "schedule", "alg": "geosite:schedule", "layers": _lot7_layers(dem=False),
         "params": {"SITE_TOML": template, "RECEIVED": RECEIVED, "OUTPUT": str(out / "schedule"),
                    "CALENDAR": "TEMPORARY_OUTPUT"}},
        {"id": "map", "alg": "geosite:map", "layers": _lot7_layers(dem=False),
         "params": {"SITE_TOML": template, "OUTPUT": str(out / "map")}},
        {"id": "write", "alg": "geosite:write_site_folder",
         "layers": {**_lot7_layers(), "DISTURBANCE": dated, "DEM": vrt},
         "params": {"SITE_TOML": template, "DISTURBANCE_PHASE": "Phase_No", "DISTURBANCE_START": "Begin",
                    "DISTURBANCE_END": "Finish", "JURISDICTION": "grantsburg",
                    "OUTPUT": str(out / "written")}},
        {"id": "bad_crs", "alg": "geosite:analyze",
         "layers": {"SITE_BOUNDARY": {"uri": str(out / "boundary_4326.geojson"), "name": "Parcel (lat/lon)"},
                    "DEM": _lot7_layers()["DEM"]},
         "params": {"JURISDICTION": "grantsburg", "DEM_VERTICAL_UNIT": "us_ft", "NO_MAPS": True,
                    "OUTPUT": str(out / "bad_crs")}},
        {"id": "folder_and_project", "alg": "geosite:map",
         "params": {"SITE_FOLDER": str(LOT7), "PROJECT_START": "2027-06-01", "DEWATERING": "yes",
                    "OUTPUT": str(out / "unused")}},
        {"id": "folder_and_layers", "alg": "geosite:check",
         "layers": {"BMPS": _lot7_layers()["BMPS"]},
         "params": {"SITE_FOLDER": str(LOT7), "OUTPUT": str(out / "unused")}},
        {"id": "cancel", "alg": "geosite:analyze", "cancel_at_step": 3,
         "params": {"SITE_FOLDER": str(LOT7), "NO_MAPS": True, "OUTPUT": str(out / "cancelled")}},
    ]  # fmt: skip


def _geosite(*args: str) -> subprocess.Popen:
    return subprocess.Popen([str(GEOSITE), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The harness's report of every scenario, and the command line's outputs for the same site."""
    import geopandas as gpd

    tmp = tmp_path_factory.mktemp("qgis")
    out = tmp / "out"
    out.mkdir()
    gpd.read_file(GPKG, layer="site_boundary").to_crs(4326).to_file(out / "boundary_4326.geojson")
    cli = tmp / "cli"
    refs = {
        "analyze": _geosite("analyze", str(LOT7), "--out", str(cli / "analyze"), "--no-maps", "-q"),
        "check": _geosite("check", str(LOT7), "--received", RECEIVED, "--out", str(cli / "check"), "-q"),
        "schedule": _geosite("schedule", str(LOT7), "--received", RECEIVED, "--format", "json"),
    }
    spec = {"geosite": str(GEOSITE), "plugin_dir": str(ROOT / "qgis_plugin"), "scenarios": _scenarios(out)}
    (tmp / "spec.json").write_text(json.dumps(spec))
    run = subprocess.run(
        [SYS_PYTHON, HARNESS, tmp / "spec.json", tmp / "result.json"],
        capture_output=True,
        text=True,
        env=_qgis_env(tmp),
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    stdout = {name: proc.communicate()[0] for name, proc in refs.items()}
    assert [p.returncode for p in refs.values()] == [0, 1, 0]  # check: Lot 7's plan has failed findings
    result = json.loads((tmp / "result.json").read_text())
    return {"result": result, "out": out, "cli": cli, "schedule": json.loads(stdout["schedule"]), "tmp": tmp}


def _scenario(runs: dict, name: str) -> dict:
    return runs["result"]["scenarios"][name]


def _qml_looks(gpkg: Path, table: str) -> dict:
    """The renderer type and each symbol's first symbol layer (class, colour) of ``table``'s stored
    style, read from the GeoPackage's layer_styles with SQLite and ElementTree (not QGIS)."""
    with sqlite3.connect(gpkg) as db:
        (qml,) = db.execute("SELECT styleQML FROM layer_styles WHERE f_table_name = ?", (table,)).fetchone()
    root = ET.fromstring(qml)
    renderer = root.find("renderer-v2")
    symbols = sorted(renderer.find("symbols"), key=lambda s: int(s.get("name")))
    looks = []
    for symbol in symbols:
        layer = symbol.find("layer")
        options = {o.get("name"): o.get("value") for o in layer.iter("Option") if o.get("name")}
        key = "line_color" if layer.get("class") == "SimpleLine" else "color"
        looks.append([layer.get("class"), options[key]])
    return {"renderer": renderer.get("type"), "symbols": looks}


def _only_group(scenario: dict) -> tuple[str, list[dict]]:
    (group,) = scenario["groups"].items()
    return group


# -------------------------------------------------------------------------------------------- provider


def test_the_provider_loads_with_the_geosite_it_is_pointed_to(runs):
    info = runs["result"]["provider"]
    assert info["algorithms"] == [
        "geosite:analyze",
        "geosite:check",
        "geosite:map",
        "geosite:schedule",
        "geosite:write_site_folder",
    ]
    assert info["display"]["geosite:analyze"] == "Analyze site"
    assert info["display"]["geosite:write_site_folder"] == "Write a submission folder (from layers)"
    from geosite import __version__
    from geosite.rules.profile import available_profiles

    found = f"geosite {__version__} at {GEOSITE.resolve()}"
    assert info["long_name"] == found
    assert info["setting"].endswith(f"found: {found}")  # the one found, shown in the settings
    assert found in info["help"]
    # a command that is not geosite is refused in the options dialog, saying why
    refused = r"/usr/bin/python3[.\d]* is not geosite \(--version said 'Python 3"
    assert re.match(refused, info["refused"] or ""), info["refused"]
    assert info["jurisdictions"] == available_profiles()
    for alg in ("geosite:analyze", "geosite:check", "geosite:map"):
        params = info["parameters"][alg]
        assert {"SITE_FOLDER", "SITE_BOUNDARY", "DISTURBANCE", "BMPS", "DEM", "DEM_VERTICAL_UNIT"} <= set(
            params
        )
        assert {"JURISDICTION", "PROFILE_FILE", "SITE_TOML", "OUTPUT"} <= set(params)


# ---------------------------------------------------------------------------------------------- analyze


def test_analyze_from_layers_writes_what_the_command_line_writes(runs):
    s = _scenario(runs, "analyze")
    assert s["error"] is None, s["errors"]
    ours = json.loads((runs["out"] / "analyze" / "report.json").read_text())
    theirs = json.loads((runs["cli"] / "analyze" / "report.json").read_text())
    ours["site"].pop("folder"), theirs["site"].pop("folder")  # the one difference: where the site was read
    assert ours == theirs
    for layer, _ in pyogrio.list_layers(runs["cli"] / "analyze" / "derived.gpkg"):
        a = pyogrio.read_dataframe(runs["out"] / "analyze" / "derived.gpkg", layer=layer)
        b = pyogrio.read_dataframe(runs["cli"] / "analyze" / "derived.gpkg", layer=layer)
        assert len(a) == len(b), layer
        if len(b) and "geometry" in b:
            assert a.geometry.length.sum() == pytest.approx(b.geometry.length.sum(), rel=1e-9), layer
            assert a.geometry.area.sum() == pytest.approx(b.geometry.area.sum(), rel=1e-9), layer
    assert s["results"]["PLAN_TYPE"] == theirs["plan_type"] == "statement"
    assert s["results"]["FAILED"] == sum(f["status"] == "fail" for f in theirs["findings"]) == 5


def test_analyze_loads_derived_layers_styled_and_grouped_with_the_findings(runs):
    s = _scenario(runs, "analyze")
    name, layers = _only_group(s)
    assert name == "Lot 7 residence, Birch Street: geosite analyze"
    derived = runs["out"] / "analyze" / "derived.gpkg"
    with sqlite3.connect(derived) as db:
        counts = {
            t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
            for (t,) in db.execute("SELECT table_name FROM gpkg_contents WHERE table_name != 'layer_styles'")
        }
    tables = [entry for entry in layers if entry["name"] != "Findings"]
    assert sorted(e["name"] for e in tables) == sorted(
        t for t, n in counts.items() if n
    )  # the empty left out
    for entry in tables:
        assert entry["valid"] and entry["features"] == counts[entry["name"]], entry
        looks = _qml_looks(derived, entry["name"])
        assert entry["renderer"] == looks["renderer"] and entry["symbols"] == looks["symbols"], entry["name"]
    # points above lines above polygons, as on the sheets
    kinds = dict(pyogrio.list_layers(derived))
    order = [kinds[e["name"]].removeprefix("Multi") for e in tables]
    assert order == sorted(order, key=["Point", "LineString", "Polygon"].index)
    (findings,) = [e for e in layers if e["name"] == "Findings"]
    report = json.loads((runs["out"] / "analyze" / "report.json").read_text())
    assert (
        findings["valid"] and findings["features"] == len(report["findings"]) and findings["renderer"] is None
    )


def test_progress_follows_geosites_stages_and_the_log_shows_the_command(runs):
    s = _scenario(runs, "analyze")
    stages = [t for t in s["texts"] if t.startswith("geosite: ")]
    assert (
        stages[0] == "geosite: loading and validating the site" and stages[-1] == "geosite: writing outputs"
    )
    command = next(line for line in s["log"] if line.startswith(str(GEOSITE)))
    assert " --progress-json analyze " in command and " --dem " in command and "--no-maps" in command
    assert "site_boundary: 1 features from 'Lot 7 site_boundary'" in s["log"]


# ------------------------------------------------------------------------------------------------ check


def test_check_from_layers_finds_what_the_command_line_finds(runs):
    s = _scenario(runs, "check")
    assert s["error"] is None, s["errors"]
    ours = json.loads((runs["out"] / "check" / "findings.json").read_text())
    theirs = json.loads((runs["cli"] / "check" / "findings.json").read_text())
    for key in ("verdict", "counts", "review_deadline", "plan_type_required", "disturbed_area_sqft"):
        assert ours[key] == theirs[key], key
    strip = ("rule", "status", "citation", "message")
    assert [{k: f[k] for k in strip} for f in ours["findings"]] == [
        {k: f[k] for k in strip} for f in theirs["findings"]
    ]
    assert s["results"]["VERDICT"] == "fail" and s["results"]["FAILED"] == theirs["counts"]["fail"] == 5
    assert s["results"]["REVIEW_DEADLINE"].startswith("2027-03-15")  # 10 working days after March 1
    assert s["results"]["REPORT_HTML"].endswith("report.html")


def test_check_loads_the_findings_where_they_are_styled_by_status(runs):
    name, layers = _only_group(_scenario(runs, "check"))
    assert name == "Lot 7 residence, Birch Street: geosite check (fail)"
    gpkg = runs["out"] / "check" / "findings.gpkg"
    by_name = {e["name"]: e for e in layers}
    assert {"findings_points", "findings_lines", "findings_polygons"} <= set(by_name)
    fails = json.loads((runs["out"] / "check" / "findings.json").read_text())["findings"]
    placed = sum(by_name[n]["features"] for n in ("findings_points", "findings_lines", "findings_polygons"))
    assert placed >= sum(1 for f in fails if f.get("has_geometry"))
    for entry in layers:
        assert entry["valid"], entry
        looks = _qml_looks(gpkg, entry["name"])
        assert entry["renderer"] == looks["renderer"] and entry["symbols"] == looks["symbols"], entry["name"]


# --------------------------------------------------------------------------------------- map, schedule


def test_map_from_layers_writes_the_three_sheets(runs):
    import pymupdf

    s = _scenario(runs, "map")
    assert s["error"] is None, s["errors"]
    sheets = s["results"]["SHEETS"].splitlines()
    assert [Path(p).name for p in sheets] == [
        "construction_plan.pdf",
        "existing_site_map.pdf",
        "final_conditions.pdf",
    ]
    for kind in ("EXISTING_SITE_MAP", "CONSTRUCTION_PLAN", "FINAL_CONDITIONS"):
        with pymupdf.open(s["results"][kind]) as pdf:
            assert pdf.page_count == 1
            assert "Lot 7 residence, Birch Street" in pdf[0].get_text()


def test_the_calendar_table_is_the_command_lines_calendar(runs):
    s = _scenario(runs, "schedule")
    assert s["error"] is None, s["errors"]
    name, layers = _only_group(s)
    (calendar,) = layers
    assert name.endswith("geosite schedule") and calendar["name"] == "Calendar" and calendar["valid"]
    cli = runs["schedule"]
    assert calendar["features"] == len(cli["deadlines"]) + len(cli["inspections"])
    written = json.loads((runs["out"] / "schedule" / "schedule.json").read_text())
    assert written["deadlines"] == cli["deadlines"]
    assert (
        cli["deadlines"][0]["date"] == "2027-03-15" and cli["deadlines"][0]["what"] == "Plan review decision"
    )


def test_a_template_dem_the_dialog_does_not_give_is_said_not_used(runs):
    """The map scenario gives the layers and Lot 7's site.toml, which names dem.tif, but no DEM."""
    s = _scenario(runs, "map")
    assert s["warnings"][0].startswith("The template's [dem] path (dem.tif) is not used")
    command = next(line for line in s["log"] if line.startswith(str(GEOSITE)))
    assert "--dem" not in command
    assert "geosite: reading the DEM" not in s["texts"]


# ------------------------------------------------------------------------------------ submission folder


def test_the_submission_folder_keeps_dates_as_dates_and_reads_back(runs):
    s = _scenario(runs, "write")
    assert s["error"] is None, s["errors"]
    folder = runs["out"] / "written"
    assert sorted(p.name for p in folder.iterdir()) == ["dem.tif", "layers.gpkg", "site.toml"]
    with sqlite3.connect(folder / "layers.gpkg") as db:
        columns = {r[1]: r[2] for r in db.execute("PRAGMA table_info(disturbance)")}
        layers = [r[0] for r in db.execute("SELECT table_name FROM gpkg_contents")]
    assert columns["start"] == columns["end"] == "DATE" and columns["phase"] == "TEXT"
    assert not {"Begin", "Finish", "Phase_No"} & set(columns)
    assert sorted(layers) == sorted(
        n for (n,) in sqlite3.connect(GPKG).execute("SELECT table_name FROM gpkg_contents")
    )
    from geosite.site import load_site

    theirs, ours = load_site(LOT7), load_site(folder)
    assert list(ours.layers["disturbance"]["start"]) == list(theirs.layers["disturbance"]["start"])
    assert list(ours.layers["disturbance"]["end"]) == list(theirs.layers["disturbance"]["end"])
    for name, frame in theirs.layers.items():
        assert len(ours.layers[name]) == len(frame), name
    assert ours.name == theirs.name and ours.project == theirs.project
    import numpy as np
    import rasterio

    with rasterio.open(folder / "dem.tif") as a, rasterio.open(LOT7 / "dem.tif") as b:
        assert (
            a.driver == "GTiff" and a.transform == b.transform and a.crs == b.crs
        )  # the VRT written as GeoTIFF
        assert np.array_equal(a.read(1), b.read(1))


# ------------------------------------------------------------------------------------ errors and cancel


def test_an_input_error_is_geosites_message_not_a_traceback(runs):
    s = _scenario(runs, "bad_crs")
    assert s["results"] is None and s["error"] is not None
    assert (
        "QGIS layer 'Parcel (lat/lon)' (site_boundary) is in a geographic CRS (WGS 84, degrees)" in s["error"]
    )
    assert s["error"].startswith("the site written from the layers given has 1 problem(s)")
    said = "\n".join([*s["errors"], *s["log"], s["error"]])
    assert "Traceback" not in said and "processing_" not in s["error"]  # no temporary paths either
    assert not (runs["out"] / "bad_crs").exists()


def test_a_folder_with_values_only_layers_use_is_refused_naming_them(runs):
    s = _scenario(runs, "folder_and_project")
    assert s["error"] == (
        f"With an existing site folder ({LOT7}) its site.toml holds the project: leave PROJECT_START, "
        "DEWATERING empty, or give the site as layers"
    )
    s = _scenario(runs, "folder_and_layers")
    assert s["error"].startswith(
        f"Give either an existing site folder or layers, not both (folder {LOT7}; layers: BMPS)"
    )
    assert not (runs["out"] / "unused").exists()


def test_the_sample_sites_files_are_untouched(runs):
    assert sorted(p.name for p in LOT7.iterdir()) == ["dem.tif", "layers.gpkg", "site.toml"]


def test_cancel_stops_geosite_and_nothing_is_written(runs):
    import psutil

    s = _scenario(runs, "cancel")
    assert s["error"] == "Cancelled: geosite was stopped and wrote nothing"
    assert len([t for t in s["texts"] if t.startswith("geosite: ")]) == 3
    assert s["elapsed_s"] < 10
    out = runs["out"] / "cancelled"
    assert not out.exists() and not [p for p in out.parent.iterdir() if p.name.startswith(".cancelled")]
    assert not [p for p in psutil.process_iter(["cmdline"]) if str(out) in " ".join(p.info["cmdline"] or [])]


# ----------------------------------------------------------------------------------- the zip, qgis_process


def _qgis_process() -> list[str]:
    # Debian 12's /usr/bin/qgis_process passes --noversioncheck, which QGIS 3.22's qgis_process.bin refuses
    binary = Path("/usr/bin/qgis_process.bin")
    return [str(binary if binary.exists() else "/usr/bin/qgis_process")]


def test_the_zip_installs_into_a_clean_profile_and_runs_under_qgis_process(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_qgis_plugin

    zip_path = build_qgis_plugin.build(tmp_path / "dist", {})
    env = _qgis_env(tmp_path)
    profile = tmp_path / "qgis-profile" / "profiles" / "default"
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(profile / "python" / "plugins")
    (profile / "QGIS").mkdir(parents=True)
    (profile / "QGIS" / "QGIS3.ini").write_text(
        f"[Processing]\nConfiguration\\GEOSITE_EXECUTABLE={GEOSITE}\n"
    )
    qp = _qgis_process()
    enable = subprocess.run(
        [*qp, "plugins", "enable", "geosite_processing"], env=env, capture_output=True, text=True
    )
    assert enable.returncode == 0, enable.stderr
    run = subprocess.run(
        [*qp, "--json", "run", "geosite:schedule", "--", f"SITE_FOLDER={LOT7}", f"RECEIVED={RECEIVED}",
         f"OUTPUT={tmp_path / 'schedule'}", f"CALENDAR={tmp_path / 'calendar.csv'}"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout)
    assert result["algorithm_details"]["id"] == "geosite:schedule"
    assert result["results"]["SCHEDULE_JSON"] == str(tmp_path / "schedule" / "schedule.json")
    calendar = (tmp_path / "calendar.csv").read_text().splitlines()
    assert calendar[0].startswith("date,weekday,what")
    # the date a date field, as QGIS's CSV writer writes one
    assert re.match(r"2027[-/]03[-/]15,Mon,Plan review decision,", calendar[1])
    bad = subprocess.run(
        [*qp, "run", "geosite:analyze", "--", f"SITE_FOLDER={tmp_path / 'nowhere'}",
         f"OUTPUT={tmp_path / 'a'}"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 1
    assert f"{tmp_path / 'nowhere'}: site folder not found" in bad.stdout + bad.stderr
    assert "Traceback" not in bad.stdout + bad.stderr
