"""Benchmark the first run against the second: what a user waits for before the kernels are ready.

    .venv/bin/python benchmarks/bench_first_run.py [--site DIR] [--repeat N] [--no-maps] [--skip-wheel]

Every run is a fresh process. Each round starts from what a fresh set-up leaves: a copy of the package
with no ``__pycache__`` (an editable install, the README's, compiles no bytecode), an empty home folder
(no matplotlib or ezdxf font list in its cache) and an empty numba cache (``NUMBA_CACHE_DIR``); then,
as ``scripts/_venv.sh`` does at the end of set-up, ``scripts/warm_up.py`` (not timed); then the first
run and the second, which reuses what the first left. Figures are medians over ``--repeat`` rounds,
"first/second" the median of each round's ratio (the machine may be shared).

1. ``geosite analyze SITE`` (the README's first command, with the plan sheets unless ``--no-maps``)
   after that set-up, with the kernels compiled ahead of time; the same without the warm-up (what the
   first run cost before set-up did it: the baseline); and without the compiled extension (a machine
   without a C compiler: the warm-up has numba compile the kernels into its cache).
2. A fresh ``pip install`` (a wheel built from this checkout, installed into an empty folder; pip
   compiles the bytecode), then a notebook's first run (``import geosite``, ``load_site``,
   ``analyze``) against its second.
3. What each hydrology kernel costs numba to compile in a fresh process (the JIT path), in call order,
   and ``import numba``; the terrain stencils are numpy (nothing to compile).

Goal (issue 37): the first run after set-up within 1.2x the second.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _measure import machine, median, paired_ratio

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
SITE = REPO / "data" / "sample_sites" / "grantsburg_lot7"
WARM_UP = REPO / "scripts" / "warm_up.py"

NOTEBOOK = """
import sys, time
t = time.perf_counter()
import geosite
site = geosite.load_site(sys.argv[1])
result = geosite.analyze(site)
print(time.perf_counter() - t)
"""


def _package_copy(dest: Path, compiled: bool = True) -> Path:
    """geosite copied into ``dest`` without bytecode (and without the compiled kernels unless
    ``compiled``); returns the folder to put on PYTHONPATH."""
    ignore = ["__pycache__", "*.pyc"] + ([] if compiled else ["*_aot.*"])
    shutil.copytree(REPO / "geosite", dest / "geosite", ignore=shutil.ignore_patterns(*ignore))
    return dest


def _fresh_env(td: Path, path: Path | None, compiled: bool) -> dict[str, str]:
    """The environment of a fresh set-up in ``td``: an empty home (font lists) and numba cache, the
    package copied without bytecode (or ``path``, an installed one)."""
    home = td / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), NUMBA_CACHE_DIR=str(td / "numba"), PYTHONWARNINGS="ignore")
    for key in ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        env.pop(key, None)
    env["PYTHONPATH"] = str(path if path is not None else _package_copy(td / "pkg", compiled))
    return env


def _timed(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    """Wall time of one run (from ``cwd``, so ``python -m`` does not find this checkout's package)."""
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - t


def first_and_second(
    cmd: list[str], path: Path | None, repeat: int, *, compiled: bool = True, warm: bool = True
) -> tuple[float, float, float]:
    """Median (first, second, first/second) wall times of ``cmd`` over ``repeat`` fresh set-ups (each
    warmed up as set-up does when ``warm``)."""
    firsts, seconds = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="bench_first_") as td:
            env = _fresh_env(Path(td), path, compiled)
            if warm:
                subprocess.run(
                    [sys.executable, str(WARM_UP)], check=True, env=env, cwd=td, capture_output=True
                )
            out = Path(td) / "out"
            full = [*cmd, "--out", str(out), "--overwrite"] if "analyze" in cmd else cmd
            firsts.append(_timed(full, env, td))
            seconds.append(_timed(full, env, td))
    return median(firsts), median(seconds), paired_ratio(firsts, seconds)


def kernel_compile_times() -> dict[str, float]:
    """Run in a fresh process: import numba, then compile each kernel (its signature): the hydrology
    kernels in the order a run calls them, then the contour tracer."""
    out: dict[str, float] = {}
    t = time.perf_counter()
    import numba  # noqa: F401

    out["import numba"] = time.perf_counter() - t
    import importlib

    from geosite.hydrology import _kernels
    from geosite.terrain import _contour_kernels

    for ks in (_kernels.KERNELS, _contour_kernels.KERNELS):
        source = importlib.import_module(ks.source)
        for name, sig in ks.signatures.items():
            t = time.perf_counter()
            getattr(source, name).compile(sig)
            out[name] = time.perf_counter() - t
    return out


def _ext_load_time() -> float:
    code = (
        "import time; t = time.perf_counter(); from geosite.hydrology import _kernels as k; "
        "from geosite.terrain import _contour_kernels as c; "
        "print(time.perf_counter() - t if k.ENGINE == c.ENGINE == 'aot' else 'nan')"
    )
    return float(
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    )


def _fresh_install_row(site: Path, repeat: int) -> tuple[str, float, float, float, float | None]:
    """A wheel built and installed into an empty target (as a fresh ``pip install``), then a notebook's
    first and second run on ``site``: the table's row."""
    with tempfile.TemporaryDirectory(prefix="bench_wheel_") as td:
        wheels, target = Path(td) / "wheels", Path(td) / "site-packages"
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(REPO)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        whl = next(wheels.glob("geosite-*.whl"))
        pip_install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target"]
        subprocess.run(
            [*pip_install, str(target), str(whl)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        build = time.perf_counter() - t
        nb = Path(td) / "notebook.py"
        nb.write_text(NOTEBOOK)
        f, s, r = first_and_second([sys.executable, str(nb), str(site)], target, repeat, warm=False)
        name = (
            f"fresh pip install ({whl.name.split('-')[-1][:-4]}; built in {build:.0f} s), notebook first run"
        )
        return (name, f, s, r, None)


def _print_jit_times() -> None:
    """numba's JIT compile time of each kernel, in a fresh process with an empty cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="bench_numba_"))
    p = subprocess.run(
        [sys.executable, str(HERE), "--child"], check=True, capture_output=True, text=True, env=env
    )
    times = json.loads(p.stdout.strip().splitlines()[-1])
    shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
    print("\nnumba JIT compile per kernel, fresh process, empty cache (the path without the extension):")
    for k, v in times.items():
        print(f"  {k:<28}{v:>6.2f} s")
    print(f"  {'total':<28}{sum(times.values()):>6.2f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, default=SITE)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-maps", action="store_true", help="analyze without the plan sheets")
    ap.add_argument(
        "--skip-wheel", action="store_true", help="skip the fresh pip install (it builds a wheel)"
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(kernel_compile_times()))
        return 0
    from geosite.hydrology import _kernels
    from geosite.terrain import _contour_kernels

    print(
        f"site {a.site.name}{' (no maps)' if a.no_maps else ''}; {machine()}; kernels installed "
        f"here: {_kernels.ENGINE} (contours: {_contour_kernels.ENGINE}); medians of {a.repeat} fresh set-ups"
    )
    cli = [sys.executable, "-m", "geosite.cli", "analyze", str(a.site), "-q"] + (
        ["--no-maps"] if a.no_maps else []
    )
    rows = [
        (
            "geosite analyze after set-up (compiled kernels, set-up's warm-up)",
            *first_and_second(cli, None, a.repeat),
            1.2,
        ),
        (
            "  the same without the warm-up (bytecode, font lists): the baseline",
            *first_and_second(cli, None, a.repeat, warm=False),
            None,
        ),
        (
            "geosite analyze, no compiled kernels (numba JIT, compiled by the warm-up)",
            *first_and_second(cli, None, a.repeat, compiled=False),
            None,
        ),
    ]
    if not a.skip_wheel:
        rows.append(_fresh_install_row(a.site, a.repeat))
    print(f"\n{'case':<76}{'first s':>9}{'second s':>10}{'first/second':>14}  goal")
    for name, f, s, r, goal in rows:
        verdict = "" if goal is None else f"<= {goal:g}x: {'met' if r <= goal else 'NOT met'}"
        print(f"{name:<76}{f:>9.2f}{s:>10.2f}{r:>13.2f}x  {verdict}")

    _print_jit_times()
    print(
        f"compiled extension: import {_ext_load_time():.3f} s (no numba import); "
        "terrain stencils: numpy, nothing to compile"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
