"""Benchmark geosite.hydrology against its peers: time, peak memory per cell, agreement.

Usage::

    .venv/bin/python benchmarks/bench_hydrology.py [--quick] [--sizes 1,4,16] [--repeat 3]

Cases: deterministic synthetic terrain (fractal hills on a regional grade, with closed kettle
depressions and flats) of 1, 4 and 16 million cells, an inclined plane, a cone (no depression: every
cell drains down its flank), a bowl (one closed basin over three quarters of the DEM, filled to its rim)
and a kettle field (hundreds of closed pits on a plane), 4 M cells each, and the real DEMs in
$GEOSITE_REAL_DEMS, else ../shared/data/real_dems beside the repository (skipped when absent; the
Minnesota one holds a lake over 45 % of its cells).
Peers: topotoolbox (fill + FlowObject + accumulation), pyflwdir (``from_dem`` + ``accuflux``), richdem
when importable.

Every engine run is a fresh subprocess that loads the DEM from a .npy file, warms up on a small DEM
(imports; pyflwdir's numba cache), resets its peak RSS (/proc/self/clear_refs), notes its RSS, runs,
and reports the wall time and its peak RSS (VmHWM) minus that baseline: "B/cell" is the working memory
the engine added on top of the float64 DEM (8 B/cell, not counted). Each peer runs at its fastest
settings with the same input and output as ours (a float64 array in, contributing cells out):
topotoolbox's FlowObject fills and carves the DEM itself (it is not filled first; hybrid
reconstruction, its default); pyflwdir's ``from_dem`` and ``accuflux``. The engines take turns, round
after round (``--repeat`` rounds), and every figure is a median: the times over the rounds, and
"ours/fastest" the median of each round's ratio of our time to the fastest peer's in that round.
"fill" rows time the depression fill alone: ours (:func:`geosite.hydrology.fill_depressions`, float64)
against topotoolbox's ``GridObject.fillsinks`` (hybrid reconstruction, given its float32 grid ready, so
its conversion is not timed); "same" is the share of cells whose filled height, cast to float32, equals
topotoolbox's. geosite's kernels are compiled ahead of time; "first use" times a fresh process doing
import + a small DEM.
"upslope" is :func:`geosite.hydrology.upslope_area` for a 5-acre square (windowed, certified) at three
places, checked equal to the whole-DEM answer, each time the median of ``--repeat`` fresh processes,
against the fastest peer's median whole-DEM fill+accumulation on the same DEM; and each place's
``method="auto"`` time against the same call with ``method="whole"`` (the median of the rounds' ratios).
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
from _measure import peak_bytes, reset_peak, rss_bytes

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


def bowl(n_cells: int) -> np.ndarray:
    """The cone upside down: one closed basin, filled to the lowest edge cell, three quarters of the DEM."""
    side = int(round(n_cells**0.5))
    r, c = np.ogrid[0:side, 0:side]
    return 900.0 + 0.05 * CELL_FT * np.hypot(r + 0.5 - side / 2, c + 0.5 - side / 2)


def kettle_field(n_cells: int, seed: int = 3) -> np.ndarray:
    """A plane falling 1 % to the south with a closed kettle (a round Gaussian pit 3-20 ft deep, 10-60
    cells across) for every 10,000 cells, many overlapping, heights rounded to 0.01 ft."""
    side = int(round(n_cells**0.5))
    rng = np.random.default_rng(seed)
    z = 900.0 - 0.01 * CELL_FT * (np.arange(side, dtype=np.float64) + 0.5)[:, None] * np.ones((1, side))
    for _ in range(max(1, n_cells // 10_000)):
        r0, c0 = rng.uniform(0, side, 2)
        rad, depth = rng.uniform(5, 30), rng.uniform(3, 20)
        r_lo, r_hi = int(max(r0 - 3 * rad, 0)), int(min(r0 + 3 * rad, side))
        c_lo, c_hi = int(max(c0 - 3 * rad, 0)), int(min(c0 + 3 * rad, side))
        rr, cc = np.mgrid[r_lo:r_hi, c_lo:c_hi]
        z[r_lo:r_hi, c_lo:c_hi] -= depth * np.exp(-((rr - r0) ** 2 + (cc - c0) ** 2) / (2 * rad**2))
    return np.round(z, 2)


# ------------------------------------------------------------------------------------------ workers


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
    reset_peak()  # the peak (VmHWM) from here on
    base = rss_bytes()
    t = time.perf_counter()
    acc = eng.accumulation_cells(dem)
    dt = time.perf_counter() - t
    peak = peak_bytes()
    np.save(out, acc)
    print(json.dumps({"time_s": dt, "extra_bytes": peak - base}))


def worker_fill(engine: str, npy: str, cell: float, crs: str, out: str) -> None:
    """The depression fill alone: ours from the float64 DEM, topotoolbox's from its float32 grid."""
    dem = _load(npy, cell, crs)
    small = _load_small(dem)
    if engine == "native":
        from geosite.hydrology import fill_depressions

        def run(d):
            return fill_depressions(d)

    else:
        import topotoolbox as tt

        def grid(d):
            g = tt.GridObject()
            g.z = np.ascontiguousarray(d.elevation_ft, dtype=np.float32)
            g.cellsize = d.cell_x_ft
            return g

        ready = {id(small): grid(small), id(dem): grid(dem)}  # its own float32 grid, made before timing

        def run(d):
            return np.asarray(ready[id(d)].fillsinks().z)

    run(small)
    reset_peak()
    base = rss_bytes()
    t = time.perf_counter()
    filled = run(dem)
    dt = time.perf_counter() - t
    peak = peak_bytes()
    np.save(out, filled)
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
    times, whole_times, again_times, results = [], [], [], []
    for fr, fc in ((0.3, 0.4), (0.5, 0.5), (0.7, 0.6)):
        poly = _square(dem, int(fr * nr), int(fc * nc), side)
        t = time.perf_counter()
        res = h.upslope_area(dem, poly, channel_threshold_sqft=CHANNEL_SQFT)
        times.append(time.perf_counter() - t)
        results.append((res.method, res.area_sqft, res.flow_length_ft, res.sheetflow_area_sqft))
        # what "auto" costs against the same call told to route the whole DEM: both timed after a first
        # call at this place (the first pays the fresh pages of its large arrays: measured 1.43x on two
        # runs of the same path)
        for method, bucket in (("whole", whole_times), ("auto", again_times)):
            t = time.perf_counter()
            h.upslope_area(dem, poly, channel_threshold_sqft=CHANNEL_SQFT, method=method)
            bucket.append(time.perf_counter() - t)
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
                "whole_times": whole_times,
                "again_times": again_times,
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
    """Import + fill/route/accumulate/upslope/channels on 100x100 in a fresh process, then the same
    calls again in it (the baseline: everything imported and loaded)."""
    t = time.perf_counter()
    from geosite import hydrology as h
    from geosite.testing import inclined_plane

    def calls() -> None:
        import shapely

        dem = inclined_plane(5.0, shape=(100, 100))
        fg = h.flow_grid(dem)
        fg.accumulation_cells()
        h.upslope_area(dem, shapely.box(*dem.bounds).buffer(-50), channel_threshold_sqft=CHANNEL_SQFT)
        h.channels(fg, 1000.0)

    calls()
    first = time.perf_counter() - t
    t = time.perf_counter()
    calls()
    print(json.dumps({"first_s": first, "again_s": time.perf_counter() - t}))


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
    cells, a plane, a cone, a bowl and a kettle field (not ``quick``), and the real DEMs under REAL."""
    cases: list[tuple[str, np.ndarray, float, str]] = []
    for m in sizes:
        cases.append((f"terrain {m:g}M", terrain(int(m * 1e6)), CELL_FT, CRS))
    if not quick:
        cases.append(("plane 4M", plane(4_000_000), CELL_FT, CRS))
        cases.append(("cone 4M", cone(4_000_000), CELL_FT, CRS))
        cases.append(("bowl 4M", bowl(4_000_000), CELL_FT, CRS))
        cases.append(("kettle field 4M", kettle_field(4_000_000), CELL_FT, CRS))
    for rel in ("minnesota_1m/dem.tif", "virginia_2m/dtm.tif"):
        if (REAL / rel).exists():
            sys.path.insert(0, str(REPO))
            from geosite.io.raster import read_dem

            d = read_dem(REAL / rel, "m")
            cases.append((f"real {rel.split('/')[0]}", d.elevation_ft, abs(d.transform.a), str(d.crs)))
    return cases


def _rounds(mode: str, engines: list[str], dem: tuple[Path, float, str], *, tmp: Path, repeat: int):
    """``repeat`` rounds of every engine in turn (fresh processes) on ``dem`` (.npy, cell size ft, CRS):
    {engine: [result of each round]}."""
    npy, cell, crs = dem
    runs: dict[str, list[dict]] = {e: [] for e in engines}
    for _ in range(repeat):
        for e in engines:
            runs[e].append(_run([mode, e, str(npy), str(cell), crs, str(tmp / f"{mode[2:]}_{e}.npy")]))
    return runs


def _table(name: str, n: int, runs: dict[str, list[dict]], *, tmp: Path, mode: str, same) -> float:
    """Print a row per engine: median time, memory per cell, the median of each round's ours/fastest
    peer ratio, agreement with ours (``same``: (ours, theirs) -> share equal); returns the fastest peer's
    median time."""
    ok = {e: r for e, r in runs.items() if not any("error" in x for x in r)}
    peers = [e for e in ok if e != "native"]
    fastest = min((float(np.median([x["time_s"] for x in ok[e]])) for e in peers), default=float("nan"))
    ratio = float("nan")
    if "native" in ok and peers:
        rounds = zip(*(ok[e] for e in ["native", *peers]), strict=True)
        ratio = float(np.median([r[0]["time_s"] / min(x["time_s"] for x in r[1:]) for r in rounds]))
    ours = np.load(tmp / f"{mode[2:]}_native.npy") if "native" in ok else None
    label = name if mode == "--worker" else f"{name} (fill)"
    for e, r in runs.items():
        if e not in ok:
            err = next(x["error"] for x in r if "error" in x)
            print(f"{label:<28}{n:>11,} {e:<12}  failed: {err[:60]}")
            continue
        t = float(np.median([x["time_s"] for x in r]))
        mem = float(np.median([x["extra_bytes"] for x in r])) / n
        agree = f"{100 * same(ours, np.load(tmp / f'{mode[2:]}_{e}.npy')):.1f}%" if ours is not None else ""
        rs = f"{ratio:.2f}" if e == "native" else ""
        print(f"{label:<28}{n:>11,} {e:<12}{t:>9.3f}{mem:>9.1f}{rs:>14}{agree:>10}")
    return fastest


def _same_acc(ours: np.ndarray, other: np.ndarray) -> float:
    valid = ~np.isnan(ours)
    return float(np.mean(ours[valid] == other[valid]))


def _same_fill(ours: np.ndarray, other: np.ndarray) -> float:
    valid = ~np.isnan(ours)
    return float(np.mean(ours[valid].astype(np.float32) == np.asarray(other, dtype=np.float32)[valid]))


def _bench_case(name: str, z: np.ndarray, cell: float, crs: str, *, engines, tmp: Path, repeat: int) -> None:
    """Every engine on one case (fresh processes, ``repeat`` rounds), a row each: median time, memory
    per cell, ratio, agreement; the fill alone against topotoolbox's; for synthetic terrain also
    ``upslope_area`` at three places."""
    npy = tmp / "dem.npy"
    np.save(npy, np.ascontiguousarray(z, dtype=np.float64))
    n = int(np.asarray(z).size)
    runs = _rounds("--worker", engines, (npy, cell, crs), tmp=tmp, repeat=repeat)
    fastest = _table(name, n, runs, tmp=tmp, mode="--worker", same=_same_acc)
    if "topotoolbox" in engines:
        fill = _rounds("--fill", ["native", "topotoolbox"], (npy, cell, crs), tmp=tmp, repeat=repeat)
        _table(name, n, fill, tmp=tmp, mode="--fill", same=_same_fill)
    if name.startswith("terrain"):
        ups = [_run(["--upslope", str(npy), str(cell), crs]) for _ in range(repeat)]
        bad = [u for u in ups if "error" in u]
        if bad:
            print(f"{'':<28}{'':>11} upslope 5 ac failed: {bad[0]['error'][:60]}")
        else:
            times = np.median([u["times"] for u in ups], axis=0)
            # auto against method="whole" at each place, each round's ratio, the median of the rounds
            auto_whole = np.median([np.divide(u["again_times"], u["whole_times"]) for u in ups], axis=0)
            u = ups[0]
            print(
                f"{'':<28}{'':>11} upslope 5 ac: {', '.join(f'{t:.3f}' for t in times)} s "
                f"(worst/fastest peer whole-DEM = {max(times) / fastest:.3f}; goal < 0.25), "
                f"methods {u['methods']}, equal to whole-DEM: {all(all(x['same']) for x in ups)}, "
                f"areas {', '.join(f'{x:.1f}' for x in u['areas_acres'])} ac"
            )
            print(
                f"{'':<28}{'':>11} upslope auto / method='whole' at each place: "
                f"{', '.join(f'{r:.2f}x' for r in auto_whole)} (auto picking 'whole' costs the whole "
                "routing and its decision; picking 'window', the window)"
            )
    sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 M cells and the real DEMs only")
    ap.add_argument("--sizes", default=None, help="comma-separated million-cell sizes (default 1,4,16)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of fresh processes (medians of them)")
    ap.add_argument("--only", default=None, help="run only the cases whose name contains this")
    a = ap.parse_args()
    sizes = [float(s) for s in (a.sizes or ("1" if a.quick else "1,4,16")).split(",")]
    engines = ["native"] + [e for e in ("topotoolbox", "pyflwdir", "richdem") if importlib.util.find_spec(e)]
    tmp = Path(tempfile.mkdtemp(prefix="bench_hydro_"))
    cases = [c for c in _cases(sizes, a.quick) if a.only is None or a.only in c[0]]

    # warm numba's on-disk cache once (compilation is not what we time)
    warm = tmp / "warm.npy"
    np.save(warm, terrain(10_000, seed=1))
    _run(["--worker", "native", str(warm), str(CELL_FT), CRS, str(tmp / "w.npy")])
    _run(["--upslope", str(warm), str(CELL_FT), CRS])

    print(
        f"engines: {', '.join(engines)}; richdem {'present' if 'richdem' in engines else 'not importable'}; "
        f"{os.cpu_count()} CPUs; medians of {a.repeat} rounds of fresh processes"
    )
    header = (
        f"{'case':<28}{'cells':>11} {'engine':<12}{'time s':>9}{'B/cell':>9}{'ours/fastest':>14}{'same':>10}"
    )
    print(header)
    print("-" * len(header))
    for name, z, cell, crs in cases:
        _bench_case(name, z, cell, crs, engines=engines, tmp=tmp, repeat=a.repeat)
    fu = [_run(["--first-use"]) for _ in range(a.repeat)]
    first, again = (float(np.median([x[k] for x in fu])) for k in ("first_s", "again_s"))
    print(
        "first use in a fresh process (import + fill/route/accumulate/upslope/channels on 100x100; kernels "
        f"compiled ahead of time): {first:.3f} s, against {again:.3f} s for the same calls again in it"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif len(sys.argv) > 1 and sys.argv[1] == "--fill":
        worker_fill(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif len(sys.argv) > 1 and sys.argv[1] == "--upslope":
        worker_upslope(sys.argv[2], float(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) > 1 and sys.argv[1] == "--first-use":
        worker_first_use()
    else:
        main()
