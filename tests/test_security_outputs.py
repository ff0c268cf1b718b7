"""Nothing geosite did not write is deleted, the swap of old and new output is crash-safe, killed runs
leave nothing behind for long, and no site runs past its time (issue 13, requirements 5 and 6)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from hostile import submission

from geosite.cli import cli
from geosite.io import output


def run(*args):
    return CliRunner().invoke(cli, ["-q", *map(str, args)])


def complete(out) -> bool:
    return output.geosite_wrote(out).value is True and (out / "report.json").is_file()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return submission(tmp_path_factory.mktemp("s") / "sub", dem=False)


@pytest.mark.parametrize("command", ["analyze", "check"])
def test_overwrite_replaces_only_what_geosite_wrote(site, tmp_path, command):
    extra = ["--no-maps"] if command == "analyze" else []
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "thesis.docx").write_text("years of work")
    res = run(command, site, "--out", theirs, "--overwrite", *extra)
    assert res.exit_code == 2 and "geosite did not write it" in res.output, res.output
    assert (theirs / "thesis.docx").read_text() == "years of work"
    ours = tmp_path / "ours"
    assert run(command, site, "--out", ours, *extra).exit_code in (0, 1)
    manifest = json.loads((ours / output.MANIFEST).read_text())
    assert manifest["generator"] == "geosite" and (
        "findings.json" in manifest["files"] or "report.json" in manifest["files"]
    )
    # a file of the user's added to geosite's output: the folder is no longer only geosite's
    (ours / "my notes.txt").write_text("mine")
    res = run(command, site, "--out", ours, "--overwrite", *extra)
    assert res.exit_code == 2 and "my notes.txt" in res.output
    (ours / "my notes.txt").unlink()
    assert run(command, site, "--out", ours, "--overwrite", *extra).exit_code in (0, 1)
    assert output.geosite_wrote(ours).value is True


def test_batch_never_replaces_an_unrelated_folder_without_overwrite(site, tmp_path):
    from geosite.scale.batch import BatchOptions, process_site

    out = tmp_path / "out"
    (out / site.name).mkdir(parents=True)
    (out / site.name / "keep.txt").write_text("mine")
    row = process_site(site, out)
    assert (
        row["status"] == "error"
        and "geosite did not write it" in row["error"]
        and "--overwrite" in row["error"]
    )
    assert (out / site.name / "keep.txt").read_text() == "mine"
    row = process_site(site, out, BatchOptions(overwrite=True))
    assert row["status"] == "ok" and not (out / site.name / "keep.txt").exists()
    assert output.geosite_wrote(out / site.name).value is True
    # geosite's own folder is replaced when its inputs change, without --overwrite
    (site / "site.toml").write_text((site / "site.toml").read_text() + "\n# changed\n")
    row = process_site(site, out)
    assert row["status"] == "ok" and row["action"] == "analyzed"


def test_the_swap_leaves_old_or_new_output_at_every_instant(site, tmp_path, monkeypatch):
    """The exchange is one system call; where it is not available, a kill between the two renames is
    repaired by the next run to the same place (the old output put back)."""
    out = tmp_path / "out"
    assert run("analyze", site, "--out", out, "--no-maps").exit_code == 0
    first = (out / output.MANIFEST).read_text()
    assert run("analyze", site, "--out", out, "--no-maps", "--overwrite").exit_code == 0
    assert complete(out) and (out / output.MANIFEST).read_text() != first
    assert not list(tmp_path.glob(".out.*"))  # nothing left beside it

    real_rename = os.rename
    calls = []

    def rename_then_die(a, b):
        calls.append((a, b))
        real_rename(a, b)
        if len(calls) == 1:
            raise KeyboardInterrupt("killed between the two renames")

    monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    monkeypatch.setattr(output.os, "rename", rename_then_die)
    with pytest.raises(KeyboardInterrupt):
        import warnings

        from geosite.pipeline import analyze, write_outputs
        from geosite.site import load_site

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write_outputs(analyze(load_site(site)), out, overwrite=True)
    monkeypatch.undo()
    assert not out.exists() and list(tmp_path.glob(".out.old-*"))  # the moment that must not last
    output.clean_stale(out)
    assert complete(out)  # the old output is back
    assert not list(tmp_path.glob(".out.*"))


def test_killed_runs_at_random_instants_leave_a_complete_output(site, tmp_path):
    out = tmp_path / "out"
    assert run("analyze", site, "--out", out, "--no-maps").exit_code == 0
    cmd = [
        sys.executable,
        "-m",
        "geosite.cli",
        "-q",
        "analyze",
        str(site),
        "--out",
        str(out),
        "--no-maps",
        "--overwrite",
    ]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    duration = time.perf_counter() - t0
    for k in range(6):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(duration * (0.55 + 0.08 * k))  # late in the run: the writing and the swap
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert complete(out), k
    assert run("analyze", site, "--out", out, "--no-maps", "--overwrite").exit_code == 0
    assert not [
        p for p in tmp_path.iterdir() if p.name.startswith(".out.")
    ]  # killed runs' temporaries cleaned


def test_stale_temporaries_are_cleaned_and_nothing_else(site, tmp_path):
    out = tmp_path / "out"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / ".out.tmp-killed"
    stale.mkdir()
    (stale / output.TMP_MARKER).write_text(f"{dead.pid}\n")
    (stale / "report.json").write_text("{}")
    empty = tmp_path / ".out.tmp-empty"
    empty.mkdir()
    foreign = tmp_path / ".out.tmp-mine"
    foreign.mkdir()
    (foreign / "thesis.docx").write_text("not geosite's")
    # a run killed while writing its marker (empty), and one killed while removing the old output it
    # swapped out (no marker, no manifest left): both carry their dead writer's pid in the name
    half_marked = tmp_path / f".out.tmp-{dead.pid}-x1y2"
    half_marked.mkdir()
    (half_marked / output.TMP_MARKER).write_text("")
    half_removed = tmp_path / f".out.old-{dead.pid}"
    (half_removed / "maps").mkdir(parents=True)
    (half_removed / "maps" / "existing_site_map.png").write_bytes(b"\x89PNG")
    assert run("analyze", site, "--out", out, "--no-maps").exit_code == 0
    assert not stale.exists() and not empty.exists()
    assert not half_marked.exists() and not half_removed.exists()
    assert (foreign / "thesis.docx").read_text() == "not geosite's"


#: Run by the timed-out site's child process (a sitecustomize on its PYTHONPATH): its work (the private
#: _process_site) sleeps a minute first, a site stuck past any timeout
STUCK_SITE = """
import time

from geosite.scale import batch

_work = batch._process_site


def _stuck(*args, **kwargs):
    time.sleep(60.0)
    return _work(*args, **kwargs)


batch._process_site = _stuck
"""


def test_batch_timeout_stops_a_site_and_its_process(site, tmp_path, monkeypatch):
    psutil = pytest.importorskip("psutil")
    from geosite.scale.batch import BatchOptions, process_site

    stuck = tmp_path / "stuck"
    stuck.mkdir()
    (stuck / "sitecustomize.py").write_text(STUCK_SITE)
    paths = [str(stuck), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    t0 = time.perf_counter()
    with monkeypatch.context() as mp:
        mp.setenv("PYTHONPATH", os.pathsep.join(paths))
        row = process_site(site, tmp_path / "out", BatchOptions(timeout_s=3.0))
    took = time.perf_counter() - t0
    assert row["status"] == "error" and "timed out" in row["error"] and "3 s" in row["error"]
    assert took < 30
    assert {p.pid for p in psutil.Process().children(recursive=True)} <= before  # nothing left running
    assert not (tmp_path / "out" / site.name).exists()
    row = process_site(site, tmp_path / "out", BatchOptions(timeout_s=120.0))
    assert row["status"] == "ok", row


def test_batch_cli_timeout_option(site, tmp_path):
    res = run("batch", site, "--out", tmp_path / "o", "--timeout", "0")
    assert res.exit_code == 2 and "--timeout" in res.output
    res = run("batch", site, "--out", tmp_path / "o", "--check", "--allow-outside-paths")
    assert res.exit_code == 2 and "allow-outside-paths" in res.output


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077])
def test_an_output_folder_gets_the_users_umask(tmp_path, mask):
    """Issue 33 item 7: mkdtemp makes the owner's-only folder a run writes in; the finished output has
    the mode the user's umask gives any folder (0o755 under 022, so a colleague on a shared drive can open
    it), and its files and sub-folders likewise."""
    old = os.umask(mask)
    try:
        with output.atomic_dir(tmp_path / "out") as tmp:
            (tmp / "plan").mkdir()
            (tmp / "plan" / "a.txt").write_text("a", encoding="utf-8")
        assert output.current_umask() == mask
    finally:
        os.umask(old)
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o777 & ~mask
    assert (tmp_path / "out" / "plan").stat().st_mode & 0o777 == 0o777 & ~mask
    assert (tmp_path / "out" / "plan" / "a.txt").stat().st_mode & 0o777 == 0o666 & ~mask
