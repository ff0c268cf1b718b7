"""Benchmark what the sandbox costs: a sandboxed ``check`` against the same work in one process.

    .venv/bin/python benchmarks/bench_sandbox.py [--site DIR] [--repeat N] [--sites K] [--skip-batch]

1. **One check** (``geosite check SITE --out DIR``), fresh processes, interleaved, ``--repeat`` each:
   the command as shipped (staged, read in the sandbox's forked child, outputs written by the parent)
   against a script doing the same work in one process (the same CLI start, the output folder checked,
   ``check_submission`` on the folder itself, the same outputs written, the verdict printed).
2. **Batch, per site**: ``run_batch`` of ``--sites`` copies of the site with ``check=True`` on one local
   worker, in a fresh process each, sandboxed (the worker's warm server forks a child per site) against
   ``BatchOptions(sandbox=False)`` (each check in the worker's own process); the per-site time is each
   summary row's ``seconds`` (what the worker spent on that site: check, outputs, marker), the first
   site of each batch left out (it includes the worker's warm-up on both sides).

Each line prints both medians, their difference and ratio (for the single check, the CPU seconds of the
whole process tree too: on a shared machine it moves less than the wall time). Goal (issue 37 item 3):
the sandboxed check within 0.3 s of the same work unsandboxed, in both.

With ``--explain``, where the time of one sandboxed check goes (one process): staging; the child on a
cold server (its imports, kernels and GDAL's drivers, then fork, isolation, check with everything a check
loads on first use, result written) and on the same server once it has warmed itself (fork, isolation,
check, result written); the parent's own imports; the result's size and its reading back (safe
unpickling, every geometry checked).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
SITE = REPO / "data" / "sample_sites" / "grantsburg_lot7"

#: The same work as ``geosite check SITE --out OUT`` in one process: the CLI's start, the output folder
#: checked, the check of the folder itself, the same outputs, the verdict printed.
UNSANDBOXED = """
import sys
from pathlib import Path
import click
import geosite.cli.app
from geosite.cli.app import output_folder
from geosite.review.check import check_submission, write_check_outputs
from geosite.review.returned import verdict_lines
site, out = Path(sys.argv[1]), Path(sys.argv[2])
out = output_folder(out, [site], True)
result = check_submission(site)
files = write_check_outputs(result, out, overwrite=True)
for line in verdict_lines(result, files):
    click.echo(line)
sys.exit(result.exit_code)
"""

BATCH = """
import json, sys
from geosite.scale.batch import BatchOptions, run_batch
sites, out, sandbox = sys.argv[1].split(","), sys.argv[2], sys.argv[3] == "1"
res = run_batch(sites, out, workers=1, options=BatchOptions(check=True, force=True, sandbox=sandbox))
print(json.dumps([[r["site"], r["status"], r["seconds"], r.get("error")] for r in res.rows]))
"""

EXPLAIN = """
import json, pickle, sys, tempfile, time
from pathlib import Path
from geosite.io.limits import Limits
from geosite.io.stage import stage_submission
from geosite.review.returned import safe_loads, unpack
from geosite.review.sandbox import Sandbox, _load_writers
site, limits = Path(sys.argv[1]), Limits()
times = {}
box = Sandbox().start()
for run in ("cold", "warm"):
    tmp = Path(tempfile.mkdtemp())
    t = time.perf_counter()
    staged = stage_submission(site, tmp / "submission", limits)
    times["staging_s"] = time.perf_counter() - t
    req = {"root": str(staged.root), "shown": str(site), "jurisdiction": None, "dem": None,
           "dem_vertical_unit": None, "received": None, "make_valid": False, "limits": limits,
           "analysis_outputs": False}
    (tmp / "request.pickle").write_bytes(pickle.dumps(req))
    t = time.perf_counter()
    data = box.run(tmp, site, limits, time.monotonic() + 600)
    times[f"child_{run}_server_s"] = time.perf_counter() - t
    time.sleep(5)  # the server warms itself after its first check
t = time.perf_counter()
_load_writers()
times["parent_imports_s"] = time.perf_counter() - t
t = time.perf_counter()
result = unpack(safe_loads(data), staged.to_dict(), site, limits)
times["result_read_back_s"] = time.perf_counter() - t
times["result_mb"] = len(data) / 1e6
box.close()
print(json.dumps({k: round(v, 3) for k, v in times.items()}))
"""


def _env() -> dict[str, str]:
    """The runs' environment: this checkout first on the path, and Python writing its bytecode caches (as
    after an ordinary install: a run that recompiled geosite's modules would time the compiler)."""
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONWARNINGS="ignore")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _timed(cmd: list[str], cwd: str) -> tuple[float, float]:
    """Wall seconds of one run, and the CPU seconds (user + system) of it and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    run = subprocess.run(cmd, env=_env(), cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:4]} failed ({run.returncode}): {run.stderr[-2000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def one_check(site: Path, repeat: int) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(wall, CPU) of ``repeat`` fresh sandboxed checks and as many unsandboxed ones, taking turns; a first
    pair untimed (bytecode caches written, the files in the page cache)."""
    sandboxed, plain = [], []
    with tempfile.TemporaryDirectory(prefix="bench_sandbox_") as td:
        out = Path(td) / "out"
        check = [
            sys.executable,
            "-m",
            "geosite.cli",
            "-q",
            "check",
            str(site),
            "--out",
            str(out),
            "--overwrite",
        ]
        same = [sys.executable, "-c", UNSANDBOXED, str(site), str(out)]
        for k in range(repeat + 1):
            a, b = _timed(check, td), _timed(same, td)
            if k:
                sandboxed.append(a)
                plain.append(b)
    return sandboxed, plain


def batch_per_site(site: Path, sites: int, repeat: int) -> tuple[list[float], list[float]]:
    """Per-site seconds (each row's, the first site of each batch left out) of ``repeat`` fresh batches
    of ``sites`` copies, sandboxed and not, interleaved.
    """
    sandboxed: list[float] = []
    plain: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench_sandbox_batch_") as td:
        copies = []
        for i in range(sites):
            dst = Path(td) / f"site{i:02d}"
            shutil.copytree(site, dst)
            copies.append(str(dst))
        for k in range(repeat):
            for flag, bucket in (("1", sandboxed), ("0", plain)):
                out = Path(td) / f"out{flag}-{k}"
                run = subprocess.run(
                    [sys.executable, "-c", BATCH, ",".join(copies), str(out), flag],
                    env=_env(),
                    cwd=td,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                rows = json.loads(run.stdout.strip().splitlines()[-1])
                bad = [r for r in rows if r[1] != "ok"]
                if bad:
                    raise SystemExit(f"batch failed: {bad}")
                bucket += [r[2] for r in rows[1:]]
    return sandboxed, plain


def _line(what: str, sandboxed: list[float], plain: list[float]) -> str:
    """Both medians, their difference and ratio."""
    a, b = statistics.median(sandboxed), statistics.median(plain)
    return (
        f"{what:<34} sandboxed {a:6.2f} s   unsandboxed {b:6.2f} s   "
        f"difference {a - b:+.2f} s   ratio {a / b:.2f}x   (n = {len(sandboxed)}, {len(plain)})"
    )


def _check_lines(sandboxed: list[tuple[float, float]], plain: list[tuple[float, float]]) -> str:
    """The single check's line for wall time and, below it, for the CPU seconds of the process tree."""
    wall = _line("geosite check (one, fresh process)", [w for w, _ in sandboxed], [w for w, _ in plain])
    cpu = _line("  CPU of its process tree", [c for _, c in sandboxed], [c for _, c in plain])
    return f"{wall}\n{cpu}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, default=SITE)
    ap.add_argument("--repeat", type=int, default=8)
    ap.add_argument("--sites", type=int, default=6, help="sites per batch")
    ap.add_argument("--batch-repeat", type=int, default=2)
    ap.add_argument("--skip-batch", action="store_true")
    ap.add_argument("--explain", action="store_true", help="also time the parts of one sandboxed check")
    args = ap.parse_args()
    site = args.site.resolve()
    print(f"site {site.name}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}")
    if args.explain:
        with tempfile.TemporaryDirectory() as td:
            run = subprocess.run(
                [sys.executable, "-c", EXPLAIN, str(site)],
                env=_env(),
                cwd=td,
                capture_output=True,
                text=True,
                check=True,
            )
            print("one sandboxed check, its parts:", run.stdout.strip().splitlines()[-1])
    print(_check_lines(*one_check(site, args.repeat)))
    if not args.skip_batch:
        print(
            _line(
                f"batch --check, per site ({args.sites})",
                *batch_per_site(site, args.sites, args.batch_repeat),
            )
        )


if __name__ == "__main__":
    main()
