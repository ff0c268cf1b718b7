"""The analyst notebooks (notebooks/*.ipynb) run top to bottom, and are committed without outputs.

The kernel is this very interpreter (``sys.executable``, i.e. the venv scripts/run_tests.sh made): a
kernelspec
naming it is written to a temporary Jupyter path, so a user's own ``python3`` kernel is never picked up. Each
notebook makes its own cross-checks (e.g. against ``geosite analyze`` run on the same site) with ``assert``,
so a failing assertion fails here. Set ``GEOSITE_NOTEBOOK_TIMEOUT`` to change the per-cell limit (s).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL = "geosite-test-python"
#: Each notebook should run well within this (seconds, whole notebook); see the module docstring.
BUDGET_S = 60.0


def test_there_are_notebooks():
    names = {p.name for p in NOTEBOOKS}
    assert {"consultant_workflow.ipynb", "inspector_review.ipynb", "terrain_analysis.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [
        i
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None)
    ]
    assert not dirty, (
        f"{path.name}: cells {dirty} have outputs or execution counts; strip them before committing "
        f"(.venv/bin/python notebooks/strip_outputs.py {path.relative_to(ROOT)})"
    )


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory) -> str:
    """A kernelspec for ``sys.executable``, first on the Jupyter path for the duration of the module."""
    pytest.importorskip("ipykernel", reason="ipykernel is in the test extra: pip install -e .[test]")
    base = tmp_path_factory.mktemp("jupyter")
    spec = base / "kernels" / KERNEL
    spec.mkdir(parents=True)
    scratch = base / "tmp"  # the notebooks write into tempfile.mkdtemp(): keep that inside pytest's tmp
    scratch.mkdir()
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": f"geosite tests ({sys.executable})",
                "language": "python",
                "env": {
                    "TMPDIR": str(scratch),
                    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
                    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
                },
            }
        )
    )
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(base), *([old] if old else [])])
    yield KERNEL
    if old is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old


def _run(path: Path, kernel_name: str) -> float:
    """Execute the notebook in a fresh kernel, from notebooks/ as Jupyter would; the seconds it took."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=int(os.environ.get("GEOSITE_NOTEBOOK_TIMEOUT", "120")),
        resources={"metadata": {"path": str(path.parent)}},
    )
    t0 = time.perf_counter()
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name} failed:\n{exc}", pytrace=False)
    elapsed = time.perf_counter() - t0
    print(f"{path.name}: {elapsed:.1f} s")
    return elapsed


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, kernel_name):
    elapsed = _run(path, kernel_name)
    assert elapsed < BUDGET_S, f"{path.name} took {elapsed:.0f} s; keep each notebook under {BUDGET_S:.0f} s"


@pytest.mark.slow
def test_terrain_notebook_runs_without_the_real_dems(kernel_name, monkeypatch, tmp_path):
    """Outside this workplace the shared real DEMs are absent: the notebook says so and runs on its
    stand-in."""
    monkeypatch.setenv("GEOSITE_REAL_DEMS", str(tmp_path / "absent"))
    _run(ROOT / "notebooks" / "terrain_analysis.ipynb", kernel_name)
