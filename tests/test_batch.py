"""geosite batch on real Dask clusters and the real engine.

* a LocalCluster of 2 worker processes: every site's report.json equals the same site analysed alone
  in this process; a bad site is a summary row, not a stopped batch; a second run skips every site and
  redoes the one whose site.toml changed;
* a real ``dask scheduler`` and ``dask worker`` processes on loopback: the CLI against its address;
  one worker SIGKILLed while tasks run: every site's folder exists exactly once, complete, identical to
  the standalone result (Dask re-runs the lost tasks on the survivor);
* the CLI's exit codes (0 all ok, 1 some failed, 2 bad usage).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest
from shapely.geometry import Polygon
from sitebuilder import X0, Y0, make_site, rect

import geosite
from geosite.testing import inclined_plane

distributed = pytest.importorskip("distributed")

VENV_BIN = Path(sys.executable).parent
SLOPES = (5.0, 10.0, 14.0, 20.0, 8.0, 16.0)


def build_sites(root: Path, n: int) -> list[Path]:
    """``n`` small sites: different slopes, sizes, aspects and villages, so no two reports agree."""
    folders = []
    for i in range(n):
        dem = inclined_plane(SLOPES[i % len(SLOPES)], shape=(150, 150), cell=2.0, azimuth_deg=90.0 * (i % 4))
        w = 100 + 10 * i
        folders.append(
            make_site(
                root / f"site{i:02d}",
                {"site_boundary": [rect(60, -240, w, 120)], "disturbance": [rect(80, -220, w - 50, 60)]},
                conf={"name": f"Site {i}", "jurisdiction": ("grantsburg", "belgium")[i % 2]},
                dem=dem,
            )
        )
    return folders


def bad_site(root: Path) -> Path:
    """A site whose boundary is a self-intersecting bow tie: fails validation."""
    bowtie = Polygon([(X0, Y0), (X0 + 100, Y0 - 100), (X0 + 100, Y0), (X0, Y0 - 100)])
    return make_site(root / "zz_bad", {"site_boundary": [bowtie]}, dem=inclined_plane(5.0, shape=(80, 80)))


def standalone_report(folder: Path, out: Path) -> dict:
    """The site analysed alone in this process, written and read back as batch writes it: report.json
    as a dict, report.md's text and the names of the files written (under ``"_files"``, ``"_md"``)."""
    from geosite.pipeline import write_outputs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = geosite.analyze(geosite.load_site(folder))
    write_outputs(result, out / folder.name)
    ref = json.loads((out / folder.name / "report.json").read_text())
    ref["_md"] = (out / folder.name / "report.md").read_text()
    ref["_files"] = sorted(p.name for p in (out / folder.name).iterdir())
    return ref


def without_extras(ref: dict) -> dict:
    return {k: v for k, v in ref.items() if not k.startswith("_")}


def assert_outputs_match(out: Path, folders: list[Path], refs: dict[str, dict]) -> None:
    from geosite.scale.batch import STAGING
    from geosite.scale.inputs_marker import MARKER, inputs_hash, read_marker

    names = sorted(p.name for p in out.iterdir())
    assert STAGING not in names, "staging debris left behind"
    assert not [n for n in names if n.startswith(".")], names
    for f in folders:
        site_out = out / f.name
        ref = refs[f.name]
        assert sorted(p.name for p in site_out.iterdir()) == sorted([*ref["_files"], MARKER])
        assert json.loads((site_out / "report.json").read_text()) == without_extras(ref)
        assert (site_out / "report.md").read_text() == ref["_md"]
        assert read_marker(site_out) == inputs_hash(f)[0]


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    root = tmp_path_factory.mktemp("sites")
    folders = build_sites(root, 6)
    ref_out = tmp_path_factory.mktemp("ref")
    refs = {f.name: standalone_report(f, ref_out) for f in folders}
    return root, folders, refs


@pytest.fixture(scope="module")
def local_client(request):
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)

    def close():
        client.close()
        cluster.close()

    request.addfinalizer(close)
    return client


# --------------------------------------------------------------------------------- LocalCluster


def test_batch_equals_standalone_and_reports_bad_site(sites, local_client, tmp_path):
    import geopandas as gpd
    import pandas as pd

    from geosite.scale.batch import run_batch

    root, folders, refs = sites
    bad = bad_site(tmp_path)
    out = tmp_path / "out"
    result = run_batch([*folders[:4], bad], out, client=local_client)
    assert not result.ok
    assert [r["site"] for r in result.rows] == [f.name for f in folders[:4]] + ["zz_bad"]
    assert [r["status"] for r in result.rows] == ["ok"] * 4 + ["error"]
    assert {r["action"] for r in result.rows[:4]} == {"analyzed"}
    assert "invalid polygon" in result.rows[4]["error"] and "Self-intersection" in result.rows[4]["error"]
    assert not (out / "zz_bad").exists() and result.rows[4]["output"] is None
    assert_outputs_match(out, folders[:4], refs)

    table = pd.read_csv(out / "summary.csv")
    assert list(table["site"]) == [f.name for f in folders[:4]] + ["zz_bad"]
    for _, row in table.iloc[:4].iterrows():
        ref = refs[row["site"]]
        assert row["disturbed_acres"] == ref["disturbed"]["area_acres"]
        assert row["plan_type"] == ref["plan_type"]
        assert row["fail_findings"] == sum(f["status"] == "fail" for f in ref["findings"])
    gdf = gpd.read_file(out / "summary.gpkg", layer="sites")
    assert len(gdf) == 5 and gdf.crs.to_epsg() == 7593
    assert gdf.geometry.iloc[0].equals(rect(60, -240, 100, 120))
    assert gdf.geometry.iloc[4] is None and gdf["status"].iloc[4] == "error"


def test_resume_skips_done_and_redoes_changed(sites, local_client, tmp_path):
    from geosite.scale.batch import run_batch

    root, _, _ = sites
    folders = build_sites(tmp_path / "s", 3)
    out = tmp_path / "out"
    first = run_batch(folders, out, client=local_client)
    assert [r["action"] for r in first.rows] == ["analyzed"] * 3
    mtimes = {f.name: (out / f.name / "report.json").stat().st_mtime_ns for f in folders}
    again = run_batch(folders, out, client=local_client)
    assert [r["action"] for r in again.rows] == ["skipped"] * 3 and again.ok
    # a skipped site's summary row still carries its numbers and outline
    assert [r["disturbed_acres"] for r in again.rows] == [r["disturbed_acres"] for r in first.rows]
    assert all(r["boundary_wkb"] is not None for r in again.rows)
    assert {f.name: (out / f.name / "report.json").stat().st_mtime_ns for f in folders} == mtimes

    toml = folders[1] / "site.toml"
    toml.write_text(toml.read_text().replace('name = "Site 1"', 'name = "Site 1, revised"'))
    third = run_batch(folders, out, client=local_client)
    assert [r["action"] for r in third.rows] == ["skipped", "analyzed", "skipped"]
    assert (
        json.loads((out / folders[1].name / "report.json").read_text())["site"]["name"] == "Site 1, revised"
    )
    assert (out / folders[0].name / "report.json").stat().st_mtime_ns == mtimes[folders[0].name]


def test_a_summary_geosite_did_not_write_is_never_replaced(sites, local_client, tmp_path):
    """A summary.csv of the user's own in OUT, or one edited since batch wrote it, stops the batch before
    any work (exit 2 from the CLI), the file untouched; batch's own summaries are replaced (the resume
    test above runs twice over one OUT)."""
    from click.testing import CliRunner

    from geosite.cli import cli
    from geosite.errors import OutputError
    from geosite.scale.batch import run_batch

    _, folders, _ = sites
    out = tmp_path / "out"
    out.mkdir()
    mine = out / "summary.csv"
    mine.write_text("my own table\n")
    r = CliRunner().invoke(cli, ["batch", str(folders[0]), "--workers", "1", "--out", str(out)])
    assert r.exit_code == 2 and "summary.csv" in r.output and "replaces only its own summaries" in r.output, (
        r.output
    )
    assert mine.read_text() == "my own table\n" and not (out / folders[0].name).exists()

    out2 = tmp_path / "out2"
    run_batch(folders[:1], out2, client=local_client)
    edited = (out2 / "summary.gpkg").read_bytes()
    (out2 / "summary.gpkg").write_bytes(edited + b"\0")  # someone's edit after the batch
    with pytest.raises(OutputError, match="summary.gpkg"):
        run_batch(folders[:1], out2, client=local_client)
    assert (out2 / "summary.gpkg").read_bytes() == edited + b"\0"


def test_a_batch_killed_between_its_two_summary_swaps_knows_them_next_time(
    sites, local_client, tmp_path, monkeypatch
):
    import geosite.scale.batch as B

    _, folders, _ = sites
    out = tmp_path / "out"
    first = B.run_batch(folders[:1], out, client=local_client)
    real = os.replace

    def killed_at_the_gpkg(src, dst):
        if str(dst).endswith("summary.gpkg"):
            raise KeyboardInterrupt  # the run dies after summary.csv was swapped in, before summary.gpkg
        return real(src, dst)

    monkeypatch.setattr(B.os, "replace", killed_at_the_gpkg)
    with pytest.raises(KeyboardInterrupt):
        B.write_summary([{**first.rows[0], "site": "renamed"}], out)
    monkeypatch.setattr(B.os, "replace", real)
    B.check_summaries(out)  # the new summary.csv and the old summary.gpkg are both batch's own


def test_retried_task_keeps_the_identical_result(sites, tmp_path):
    """A task that runs again after its output was published (its worker died before reporting)
    keeps the folder already there instead of writing a second copy."""
    from geosite.scale.batch import BatchOptions, process_site

    _, folders, refs = sites
    out = tmp_path / "out"
    assert process_site(folders[0], out)["action"] == "analyzed"
    before = (out / folders[0].name / "report.json").stat().st_mtime_ns
    row = process_site(folders[0], out, BatchOptions(force=True))
    assert row["status"] == "ok" and row["action"] == "kept"
    assert (out / folders[0].name / "report.json").stat().st_mtime_ns == before
    shutil.rmtree(out / ".geosite-batch-tmp", ignore_errors=True)
    assert_outputs_match(out, folders[:1], refs)


# --------------------------------------------------------------------- dask scheduler + workers


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spawn(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [str(VENV_BIN / "dask"), *args],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture
def dask_cluster(tmp_path, request):
    """A ``dask scheduler`` and two single-threaded ``dask worker`` processes (no nanny: a killed
    worker stays dead) on 127.0.0.1, random free ports, no dashboard."""
    from distributed import Client

    if not (VENV_BIN / "dask").exists():
        pytest.skip("the venv has no dask entry point")
    address = f"tcp://127.0.0.1:{_free_port()}"
    procs: list[subprocess.Popen] = []

    def stop_all():
        for p in reversed(procs):
            _stop(p)

    request.addfinalizer(stop_all)
    procs.append(
        _spawn(
            ["scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
            tmp_path / "scheduler.log",
        )
    )
    for i in range(2):
        procs.append(
            _spawn(
                [
                    "worker",
                    address,
                    "--host",
                    "127.0.0.1",
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                ],
                tmp_path / f"worker{i}.log",
            )
        )
    client = _connect(Client, address, tmp_path / "scheduler.log")
    request.addfinalizer(lambda: _close(client))
    client.wait_for_workers(2, timeout=120)
    return address, client, procs[1:]


def _connect(client_class, address: str, log: Path, seconds: float = 120.0):
    """A client of the scheduler once its log says it listens; a connection the scheduler closes while
    it starts (distributed's CommClosedError, an OSError) is tried again until ``seconds`` have passed."""
    from distributed.comm.core import CommClosedError

    deadline = time.monotonic() + seconds
    while "Scheduler at:" not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"the scheduler never started:\n{log.read_text()}"
        time.sleep(0.2)
    while True:
        try:
            return client_class(address, timeout="30s")
        except (CommClosedError, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _close(client) -> None:
    """Close the test's client; a scheduler stream already closed (the test killed a worker, the
    finalizer stops the processes) is not the code under test failing."""
    from distributed.comm.core import CommClosedError

    with contextlib.suppress(CommClosedError, OSError):
        client.close(timeout=30)


def test_cli_against_running_scheduler_and_worker_killed_mid_batch(sites, dask_cluster, tmp_path):
    from geosite.scale.batch import BatchOptions, run_batch

    _, folders, refs = sites
    address, client, workers = dask_cluster

    # the CLI, as a user runs it, against the scheduler's address
    out = tmp_path / "cli"
    proc = subprocess.run(
        [
            str(VENV_BIN / "geosite"),
            "-q",
            "batch",
            *map(str, folders[:3]),
            "--scheduler",
            address,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "INFO" not in proc.stderr  # -q: only errors (distributed's own INFO logging included)
    assert_outputs_match(out, folders[:3], refs)

    # SIGKILL one worker while tasks run (each task sleeps 1 s first, so both workers are busy)
    def slow_sites(seconds: float) -> None:
        """On this worker, each site's work (the private _process_site) starts ``seconds`` late."""
        import time

        from geosite.scale import batch

        work = batch._process_site

        def slow(*args, **kwargs):
            time.sleep(seconds)
            return work(*args, **kwargs)

        batch._process_site = slow

    client.run(slow_sites, 1.0)
    out = tmp_path / "killed"
    holder: dict = {}
    runner = threading.Thread(
        target=lambda: holder.update(result=run_batch(folders, out, client=client, options=BatchOptions()))
    )
    runner.start()
    deadline = time.monotonic() + 30
    victim = None
    while time.monotonic() < deadline and victim is None:
        busy = {w for w, tasks in client.processing().items() if tasks}
        if len(busy) == 2:
            pids = client.run(os.getpid)
            victim = next(p for p in workers if p.pid in pids.values())
        time.sleep(0.1)
    assert victim is not None, "the workers never both got tasks"
    time.sleep(0.3)  # inside the victim's task
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    runner.join(120)
    assert not runner.is_alive()
    result = holder["result"]
    assert result.ok, result.failed
    assert [r["site"] for r in result.rows] == [f.name for f in folders]
    assert len(client.scheduler_info()["workers"]) == 1
    assert_outputs_match(out, folders, refs)


# --------------------------------------------------------------------------------- CLI exit codes


def test_cli_local_cluster_exit_1_with_a_bad_site(sites, tmp_path):
    _, folders, refs = sites
    bad = bad_site(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.run(
        [str(VENV_BIN / "geosite"), "batch", str(folders[4]), str(bad), "--workers", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "zz_bad" in proc.stderr and "invalid polygon" in proc.stderr
    assert "INFO distributed" not in proc.stderr  # the local cluster's INFO lines stay out of the default run
    assert "2 sites: 1 analyzed, 1 failed" in proc.stdout
    assert_outputs_match(out, folders[4:5], refs)
    assert (out / "summary.csv").is_file() and (out / "summary.gpkg").is_file()


def test_cli_usage_errors_exit_2(sites, tmp_path):
    from click.testing import CliRunner

    from geosite.cli import cli

    _, folders, _ = sites
    runner = CliRunner()
    r = runner.invoke(cli, ["batch", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "does not exist" in r.output
    r = runner.invoke(cli, ["batch", str(folders[0]), "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"])
    assert r.exit_code == 2 and "--workers" in r.output
    r = runner.invoke(cli, ["batch", str(folders[0]), "--out", str(folders[0] / "out")])
    assert r.exit_code == 2 and "overlaps the input" in r.output
    twin = make_site(tmp_path / "other" / folders[0].name, {"site_boundary": [rect(0, -100, 50, 50)]})
    r = runner.invoke(cli, ["batch", str(folders[0]), str(twin), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "same name" in r.output
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        r = runner.invoke(
            cli,
            [
                "batch",
                str(folders[0]),
                "--scheduler",
                f"tcp://127.0.0.1:{_free_port()}",
                "--out",
                str(tmp_path / "o2"),
            ],
        )
    assert r.exit_code == 2 and "cannot connect to the Dask scheduler" in r.output


def test_inputs_hash_follows_dem_outside_the_folder_and_vrt_tiles(tmp_path):
    """A DEM outside the site folder (a county VRT mosaic) is in the marker, tile by tile."""
    from sitebuilder import write_dem

    from geosite.scale.batch import inputs_hash
    from geosite.scale.tiles import build_vrt

    dem = inclined_plane(6.0, shape=(40, 60))
    county = tmp_path / "county"
    county.mkdir()
    write_dem(county / "a.tif", dem)
    vrt = build_vrt([county / "a.tif"], county / "mosaic.vrt")
    folder = make_site(
        tmp_path / "s",
        {"site_boundary": [rect(10, -60, 30, 30)]},
        conf={"dem": {"path": str(vrt), "vertical_unit": "us_ft"}},
    )
    before, lines = inputs_hash(folder)
    assert any(str(county / "a.tif") in line for line in lines)
    assert inputs_hash(folder)[0] == before
    os.utime(county / "a.tif", ns=(1, 1))  # a tile replaced, the VRT untouched
    assert inputs_hash(folder)[0] != before


def test_batch_check_matches_geosite_check_alone(sites, local_client, tmp_path):
    import json

    import pandas as pd

    from geosite.review.check import check_submission
    from geosite.scale.batch import BatchOptions, run_batch

    _, folders, _ = sites
    out = tmp_path / "out"
    result = run_batch(folders[:2], out, client=local_client, options=BatchOptions(check=True))
    assert result.ok
    table = pd.read_csv(out / "summary.csv")
    for f, row in zip(folders[:2], table.itertuples(), strict=True):
        alone = check_submission(f)
        got = json.loads((out / f.name / "findings.json").read_text())
        assert got["verdict"] == alone.verdict == row.verdict
        assert [x["rule"] for x in got["findings"]] == [x.rule for x in alone.findings]
        assert row.fail_findings == len(alone.failed)
        assert (out / f.name / "report.html").is_file() and (out / f.name / "report.json").is_file()
    assert result.plans_failed == [r for r in result.rows if r["verdict"] == "fail"]
    # resumable in check mode too; a plain analysis batch over the same output redoes the sites
    again = run_batch(folders[:2], out, client=local_client, options=BatchOptions(check=True))
    assert [r["action"] for r in again.rows] == ["skipped"] * 2
    assert [r["verdict"] for r in again.rows] == [r["verdict"] for r in result.rows]
