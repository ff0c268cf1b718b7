"""Benchmark geosite.hydrology against its peers: time, peak memory per cell, agreement.

Usage::

    .venv/bin/python benchmarks/bench_hydrology.py [--quick] [--sizes 1,4,16]

Cases: deterministic synthetic terrain (fractal hills on a regional grade, with closed kettle
depressions and flats) of 1, 4 and 16 million cells, an inclined plane and a cone, and the real DEMs in
$GEOSITE_REAL_DEMS, else ../shared/data/real_dems beside the repository (skipped when absent).
Peers: topotoolbox (fill + FlowObject + accumulation), pyflwdir (``from_dem`` + ``accuflux``), richdem
when importable.

Every engine run is a fresh subprocess that loads the DEM from a .npy file, warms up on a small DEM
(imports; pyflwdir's numba cache), resets its peak RSS (/proc/self/clear_refs), notes its RSS, runs,
and reports the wall time and its peak RSS (VmHWM) minus that baseline: "B/cell" is the working memory
the engine added on top of the float64 DEM (8 B/cell, not counted). Each peer runs at its fastest
settings with the same input and output as ours (a float64 array in, contributing cells out):
topotoolbox's FlowObject fills and carves the DEM itself (it is not filled first); pyflwdir's
``from_dem`` and ``accuflux``. geosite's kernels are compiled ahead of time; "first use" times a fresh
process doing import + a small DEM.
"upslope" is :func:`geosite.hydrology.upslope_area` for a 5-acre square (windowed, certified) at three
places, checked equal to the whole-DEM answer, against the fastest peer's whole-DEM fill+accumulation.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
#: Real DEMs (``*.tif``): $GEOSITE_REAL_DEMS, else ../shared/data/real_dems beside the repository
REAL = Path(os.environ.get("GEOSITE_REAL_DEMS") or REPO.parent / "shared" / "data" / "real_dems")
CELL_FT = 3.0
CRS = "EPSG:7593"
#: contributing area of a channel cell, sq ft: the bundled profiles' [terrain] channel_threshold_sqft (1 acre)
CHANNEL_SQFT = 43_560.0


# ------------------------------------------------------------------------------------------ surfaces


def terrain(n_cells: int, seed: int = 0) -> np.ndarray:
    """Square realistic terrain (ft): multi-scale smoothed noise, a 1 % regional fall to the south,
    closed kettle depressions, heights rounded to 0.01 ft (so real flats exist, as in LiDAR products)."""
    from scipy.ndimage import gaussian_filter, zoom

    side = int(round(n_cells**0.5))
    rng = np.random.default_rng(seed)
    z = np.zeros((side, side), dtype=np.float64)
    for sigma, amp in ((side / 16, 60.0), (side / 64, 15.0), (8.0, 4.0), (1.5, 0.5)):
        k = max(
            1, int(sigma // 4)
        )  # smooth coarse noise, then interpolate: cost O(cells), not O(cells x sigma)
        m = side // k + 2
        f = gaussian_filter(rng.standard_normal((m, m)).astype(np.float32), sigma / k, mode="wrap")
        if k > 1:
            f = zoom(f, k, order=3)
        f = f[:side, :side]
        z += amp * f / max(float(f.std()), 1e-9)
        del f
    z -= (0.01 * CELL_FT * np.arange(side, dtype=np.float64))[:, None]
    for _ in range(max(4, side // 100)):
        r0, c0 = rng.uniform(0, side, 2)
        rad = rng.uniform(8, 40)
        depth = rng.uniform(3, 15)
        r_lo, r_hi = int(max(r0 - 3 * rad, 0)), int(min(r0 + 3 * rad, side))
        c_lo, c_hi = int(max(c0 - 3 * rad, 0)), int(min(c0 + 3 * rad, side))
        rr, cc = np.mgrid[r_lo:r_hi, c_lo:c_hi]
        z[r_lo:r_hi, c_lo:c_hi] -= depth * np.exp(-((rr - r0) ** 2 + (cc - c0) ** 2) / (2 * rad**2))
    return np.round(z + 900.0, 2)


def plane(n_cells: int) -> np.ndarray:
    side = int(round(n_cells**0.5))
    return 900.0 - 0.05 * CELL_FT * (np.arange(side, dtype=np.float64) + 0.5)[:, None] * np.ones((1, side))


def cone(n_cells: int) -> np.ndarray:
    side = int(round(n_cells**0.5))
    r, c = np.ogrid[0:side, 0:side]
    return 1000.0 - 0.05 * CELL_FT * np.hypot(r + 0.5 - side / 2, c + 0.5 - side / 2)


# ------------------------------------------------------------------------------------------ workers


def _rss() -> int:
    import psutil

    return psutil.Process().memory_info().rss


def _peak() -> int:
    """This process's peak RSS (VmHWM; unlike ru_maxrss it does not inherit the parent's peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def _load(npy: str, cell: float, crs: str):
    from affine import Affine
    from pyproj import CRS as PCRS

    from geosite.grid import Dem
    from geosite.units import VerticalUnit, feet_per_crs_unit

    z = np.load(npy)
    c = PCRS.from_user_input(crs)
    return Dem(
        z,
        Affine(cell, 0, 500_000.0, 0, -cell, 200_000.0),
        c,
        feet_per_crs_unit(c, "bench"),
        VerticalUnit.US_FT,
    )


def worker(engine: str, npy: str, cell: float, crs: str, out: str) -> None:
    dem = _load(npy, cell, crs)
    import geosite.hydrology._kernels  # noqa: F401  (loading the kernels is not the engine's cost)
    from geosite.hydrology.engines import get_engine

    eng = get_engine(engine)
    # warm up on a small DEM: loads numba caches (ours and pyflwdir's) and imports, not timed
    small = _load_small(dem)
    eng.accumulation_cells(small)
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) from here on
    base = _rss()
    t = time.perf_counter()
    acc = eng.accumulation_cells(dem)
    dt = time.perf_counter() - t
    peak = _peak()
    np.save(out, acc)
    print(json.dumps({"time_s": dt, "extra_bytes": peak - base}))


def _load_small(dem):
    from geosite.grid import Dem

    z = np.ascontiguousarray(dem.elevation_ft[:64, :64])
    return Dem(z, dem.transform, dem.crs, dem.ft_per_unit, dem.vertical_unit)


def worker_upslope(npy: str, cell: float, crs: str) -> None:
    import shapely

    from geosite import hydrology as h

    dem = _load(npy, cell, crs)
    nr, nc = dem.shape
    side = int(round((5 * 43_560.0) ** 0.5 / dem.cell_x_ft))  # 5 acres
    h.upslope_area(
        dem, _square(dem, 10, 10, 4), channel_threshold_sqft=CHANNEL_SQFT
    )  # warm the numba cache load
    times, results = [], []
    for fr, fc in ((0.3, 0.4), (0.5, 0.5), (0.7, 0.6)):
        poly = _square(dem, int(fr * nr), int(fc * nc), side)
        t = time.perf_counter()
        res = h.upslope_area(dem, poly, channel_threshold_sqft=CHANNEL_SQFT)
        times.append(time.perf_counter() - t)
        results.append((res.method, res.area_sqft, res.flow_length_ft, res.sheetflow_area_sqft))
    fg = h.flow_grid(dem)
    same = []
    for (fr, fc), got in zip(((0.3, 0.4), (0.5, 0.5), (0.7, 0.6)), results, strict=True):
        w = h.upslope_area(
            fg, _square(dem, int(fr * nr), int(fc * nc), side), channel_threshold_sqft=CHANNEL_SQFT
        )
        same.append(got[1:] == (w.area_sqft, w.flow_length_ft, w.sheetflow_area_sqft))
    print(
        json.dumps(
            {
                "times": times,
                "methods": [r[0] for r in results],
                "areas_acres": [r[1] / 43560 for r in results],
                "same": same,
            }
        )
    )
    _ = shapely


def _square(dem, r0: int, c0: int, side: int):
    import shapely

    t = dem.transform
    return shapely.box(t.c + c0 * t.a, t.f + (r0 + side) * t.e, t.c + (c0 + side) * t.a, t.f + r0 * t.e)


def worker_first_use() -> None:
    t = time.perf_counter()
    from geosite import hydrology as h
    from geosite.testing import inclined_plane

    dem = inclined_plane(5.0, shape=(100, 100))
    fg = h.flow_grid(dem)
    fg.accumulation_cells()
    import shapely

    h.upslope_area(dem, shapely.box(*dem.bounds).buffer(-50), channel_threshold_sqft=CHANNEL_SQFT)
    h.channels(fg, 1000.0)
    print(json.dumps({"time_s": time.perf_counter() - t}))


# ------------------------------------------------------------------------------------------ driver


def _run(args: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run(
        [sys.executable, str(HERE), *args], capture_output=True, text=True, env=env, timeout=3600
    )
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _cases(sizes: list[float], quick: bool) -> list[tuple[str, np.ndarray, float, str]]:
    """(name, heights in ft, cell size in ft, CRS) of each case: synthetic terrain of ``sizes`` million
    cells, a plane and a cone (not ``quick``), and the real DEMs found under REAL."""
    cases: list[tuple[str, np.ndarray, float, str]] = []
    for m in sizes:
        cases.append((f"terrain {m:g}M", terrain(int(m * 1e6)), CELL_FT, CRS))
    if not quick:
        cases.append(("plane 4M", plane(4_000_000), CELL_FT, CRS))
        cases.append(("cone 4M", cone(4_000_000), CELL_FT, CRS))
    for rel in ("minnesota_1m/dem.tif", "virginia_2m/dtm.tif"):
        if (REAL / rel).exists():
            sys.path.insert(0, str(REPO))
            from geosite.io.raster import read_dem

            d = read_dem(REAL / rel, "m")
            cases.append((f"real {rel.split('/')[0]}", d.elevation_ft, abs(d.transform.a), str(d.crs)))
    return cases


def _bench_case(name: str, z: np.ndarray, cell: float, crs: str, *, engines: list[str], tmp: Path) -> None:
    """Every engine on one case (fresh processes), a row each: time, memory per cell, ratio, agreement;
    for synthetic terrain also ``upslope_area`` at three places."""
    npy = tmp / "dem.npy"
    np.save(npy, np.ascontiguousarray(z, dtype=np.float64))
    n = int(np.asarray(z).size)
    res = {e: _run(["--worker", e, str(npy), str(cell), crs, str(tmp / f"acc_{e}.npy")]) for e in engines}
    ours = np.load(tmp / "acc_native.npy") if "error" not in res["native"] else None
    peers = {e: r for e, r in res.items() if e != "native" and "error" not in r}
    fastest = min((r["time_s"] for r in peers.values()), default=float("nan"))
    for e, r in res.items():
        if "error" in r:
            print(f"{name:<22}{n:>11,} {e:<12}  failed: {r['error'][:60]}")
            continue
        ratio = r["time_s"] / fastest if e == "native" else float("nan")
        agree = ""
        if ours is not None:
            other = np.load(tmp / f"acc_{e}.npy")
            valid = ~np.isnan(ours)
            agree = f"{100 * np.mean(ours[valid] == other[valid]):.1f}%"
        rs = f"{ratio:.2f}" if e == "native" else ""
        print(f"{name:<22}{n:>11,} {e:<12}{r['time_s']:>9.2f}{r['extra_bytes'] / n:>9.1f}{rs:>14}{agree:>10}")
    if name.startswith("terrain"):
        up = _run(["--upslope", str(npy), str(cell), crs])
        if "error" in up:
            print(f"{'':<22}{'':>11} upslope 5 ac failed: {up['error'][:60]}")
        else:
            worst = max(up["times"])
            print(
                f"{'':<22}{'':>11} upslope 5 ac: {', '.join(f'{t:.3f}' for t in up['times'])} s "
                f"(worst/fastest peer whole-DEM = {worst / fastest:.3f}; goal < 0.25), "
                f"methods {up['methods']}, equal to whole-DEM: {all(up['same'])}, "
                f"areas {', '.join(f'{x:.1f}' for x in up['areas_acres'])} ac"
            )
    sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 M cells and the real DEMs only")
    ap.add_argument("--sizes", default=None, help="comma-separated million-cell sizes (default 1,4,16)")
    a = ap.parse_args()
    sizes = [float(s) for s in (a.sizes or ("1" if a.quick else "1,4,16")).split(",")]
    engines = ["native"] + [e for e in ("topotoolbox", "pyflwdir", "richdem") if importlib.util.find_spec(e)]
    tmp = Path(tempfile.mkdtemp(prefix="bench_hydro_"))
    cases = _cases(sizes, a.quick)

    # warm numba's on-disk cache once (compilation is not what we time)
    warm = tmp / "warm.npy"
    np.save(warm, terrain(10_000, seed=1))
    _run(["--worker", "native", str(warm), str(CELL_FT), CRS, str(tmp / "w.npy")])
    _run(["--upslope", str(warm), str(CELL_FT), CRS])

    print(f"engines: {', '.join(engines)}; richdem {'present' if 'richdem' in engines else 'not importable'}")
    header = (
        f"{'case':<22}{'cells':>11} {'engine':<12}{'time s':>9}{'B/cell':>9}{'ours/fastest':>14}"
        f"{'same acc':>10}"
    )
    print(header)
    print("-" * len(header))
    for name, z, cell, crs in cases:
        _bench_case(name, z, cell, crs, engines=engines, tmp=tmp)
    fu = _run(["--first-use"])
    print(
        "first use in a fresh process (import + fill/route/accumulate/upslope/channels on 100x100; kernels "
        f"compiled ahead of time): {fu}"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif len(sys.argv) > 1 and sys.argv[1] == "--upslope":
        worker_upslope(sys.argv[2], float(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) > 1 and sys.argv[1] == "--first-use":
        worker_first_use()
    else:
        main()
