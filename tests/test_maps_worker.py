"""The plan maps' worker process (geosite.maps.worker): the same sheets as drawn in one process, the
child's errors raised in the parent, and the parent's output folder never made when the maps fail."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from geosite.errors import InputError
from geosite.maps.worker import PendingMaps, map_worker, start_plan_maps

ROOT = Path(__file__).resolve().parents[1]
LOT7 = ROOT / "data" / "sample_sites" / "grantsburg_lot7"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the worker forks")


def test_importing_the_worker_loads_no_matplotlib() -> None:
    code = "import sys, geosite.maps.worker; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_failure_in_the_worker_is_raised_in_the_parent(tmp_path: Path) -> None:
    with map_worker() as worker:
        if worker is None:
            pytest.skip("one CPU: no worker")
        pending = start_plan_maps("not a result", tmp_path, worker=worker)
        assert pending.worker is worker  # sent to the child, not drawn here
        with pytest.raises(InputError, match="expected a geosite AnalysisResult or Site") as got:
            pending.wait()
    assert any("worker process" in note for note in getattr(got.value, "__notes__", []))


def test_a_worker_never_given_a_job_ends_at_once() -> None:
    t = time.perf_counter()
    with map_worker() as worker:
        proc = worker._proc if worker is not None else None
    assert time.perf_counter() - t < 5
    assert proc is None or not proc.is_alive()


def test_no_maps_asked_for_draws_none(tmp_path: Path) -> None:
    assert start_plan_maps(None, tmp_path, enabled=False).wait() == []
    assert PendingMaps(None).wait() == []


def test_the_cli_fails_and_writes_nothing_when_a_sheet_fails(tmp_path: Path) -> None:
    # a sheet that cannot be drawn (the worker's render raises): the run exits non-zero with the error,
    # and no output folder is left
    out = tmp_path / "out"
    code = (
        "import sys; import geosite.maps.planset as p\n"
        "def boom(*a, **k): raise RuntimeError('sheet drawing failed on purpose')\n"
        "p.render_plan_maps = boom\n"
        "from geosite.cli import main\n"
        f"sys.argv = ['geosite', '-q', 'analyze', {str(LOT7)!r}, '--out', {str(out)!r}]\n"
        "main()\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode != 0
    assert "sheet drawing failed on purpose" in run.stderr
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.tmp")]


def test_sheets_drawn_in_the_worker_are_those_drawn_here(tmp_path: Path, monkeypatch, lot7_result) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # PDFs dated alike
    result = lot7_result  # conftest's Lot 7 analysis, once per session
    with map_worker() as worker:
        if worker is None:
            pytest.skip("one CPU: no worker")
        there = start_plan_maps(result, tmp_path / "worker", worker=worker).wait()
    here = start_plan_maps(result, tmp_path / "here").wait()
    assert [p.name for p in there] == [p.name for p in here]
    for a, b in zip(there, here, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
