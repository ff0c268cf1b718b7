"""Benchmark geosite.scale: whole-DEM steep-slope screening in tiles, and geosite batch on Dask.

Usage::

    .venv/bin/python benchmarks/bench_scale.py [--cells 100] [--sites 200] [--dir DIR]
        [--skip-dem] [--skip-batch]

1. Screening: a deterministic DEM of ``--cells`` million cells (square, 3 ft cells, EPSG:7593), written
   tile by tile (2,500-cell GeoTIFF tiles, never whole in memory) and mosaicked as a VRT: continuous
   rolling terrain (geosite.testing.rolling_terrain on a coarse grid, cubic-interpolated, plus fine
   ripples) with lakes as nodata. Each measurement is a fresh subprocess reporting its wall time and
   the peak RSS of the measured work (VmHWM from /proc/self/status, reset after the imports and warm-up:
   ru_maxrss would start at the parent's RSS, inherited at fork), medians of 3 rounds: the tiled screening
   (totals only; + steep mask; + float32 slope) and, for
   reference, the in-memory path (read_dem of the whole VRT, then terrain.slope_pct). Goals: peak
   memory under 2 GB, time within 1.5x of the in-memory kernel over the same cells.
2. Batch: ``--sites`` small sites; one process analysing them one after another (process_site, warm)
   against run_batch on a LocalCluster of 2 worker processes (warm workers; cluster start reported
   apart), beside the machine's ceiling: two plain processes (no Dask), each warm and given half the
   sites, with the environment the workers get (geosite.scale.batch.local_worker_env). Goal (issue 15):
   Dask within 90 % of that ceiling.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _measure import machine, median, paired_ratio, peak_bytes, reset_peak, rss_bytes

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests"))
CELL_FT = 3.0
CRS = "EPSG:7593"
TILE = 2500


# ----------------------------------------------------------------------------------------- DEM


def make_dem(folder: Path, side: int) -> Path:
    """A side x side DEM as GeoTIFF tiles + VRT; deterministic; returns the VRT path."""
    import rasterio
    from affine import Affine
    from scipy import ndimage

    from geosite.scale.tiles import build_vrt
    from geosite.testing import rolling_terrain

    vrt = folder / f"dem_{side}.vrt"
    if vrt.exists():
        return vrt
    tiles_dir = folder / f"tiles_{side}"
    tiles_dir.mkdir(parents=True, exist_ok=True)
    up = 8
    coarse = rolling_terrain(
        (side // up + 4, side // up + 4), cell=CELL_FT * up, relief_ft=300.0, kettles=40, seed=7
    ).elevation_ft
    x0, y0 = 500_000.0, 300_000.0
    rng = np.random.default_rng(11)
    lakes = [(rng.uniform(0, side), rng.uniform(0, side), rng.uniform(20, 150)) for _ in range(60)]
    paths = []
    for r0 in range(0, side, TILE):
        for c0 in range(0, side, TILE):
            h, w = min(TILE, side - r0), min(TILE, side - c0)
            rr, cc = np.mgrid[r0 : r0 + h, c0 : c0 + w].astype(np.float64)
            z = ndimage.map_coordinates(coarse, [rr / up + 1.5, cc / up + 1.5], order=3, mode="nearest")
            z += 4.0 * np.sin(rr / 37.0) * np.cos(cc / 53.0) + 0.4 * np.sin((rr + 2 * cc) / 11.0)
            for lr, lc, rad in lakes:
                if lr + rad >= r0 and lr - rad < r0 + h and lc + rad >= c0 and lc - rad < c0 + w:
                    z[(rr - lr) ** 2 + (cc - lc) ** 2 <= rad**2] = -9999.0
            del rr, cc
            p = tiles_dir / f"t_{r0:05d}_{c0:05d}.tif"
            with rasterio.open(
                p,
                "w",
                driver="GTiff",
                width=w,
                height=h,
                count=1,
                dtype="float32",
                crs=CRS,
                transform=Affine(CELL_FT, 0, x0 + c0 * CELL_FT, 0, -CELL_FT, y0 - r0 * CELL_FT),
                nodata=-9999.0,
                tiled=True,
                blockxsize=256,
                blockysize=256,
            ) as dst:
                dst.write(z.astype(np.float32), 1)
            paths.append(p)
            del z
    return build_vrt(paths, vrt)


def child(mode: str, vrt: str, out: str) -> None:
    """One measurement in this (fresh) process; prints JSON."""
    from geosite.io.raster import read_dem
    from geosite.rules import load_profile
    from geosite.scale._kernels import tile_stats
    from geosite.scale.tiles import screen_steep_slopes
    from geosite.terrain import slope_pct
    from geosite.testing import inclined_plane

    s0 = slope_pct(inclined_plane(10.0, shape=(64, 64)))  # load the modules before timing
    tile_stats(s0[1:, 1:], np.array([12.0]), np.empty(s0[1:, 1:].shape, np.uint8), True, 255)
    base = rss_bytes()
    reset_peak()  # the peak (VmHWM) from here
    res: dict = {"mode": mode}
    profile = load_profile("grantsburg")  # the thresholds screened: the village's and the state's
    village = float(profile.required("terrain", "steep_slope_pct"))
    state = float(profile.required("terrain", "state_steep_slope_pct"))
    t = time.perf_counter()
    if mode.startswith("screen"):
        kw = {}
        if mode in ("screen_mask", "screen_slope"):
            kw["mask_out"] = Path(out) / "mask.tif"
        if mode == "screen_slope":
            kw["slope_out"] = Path(out) / "slope.tif"
        s = screen_steep_slopes(vrt, "us_ft", threshold_pct=(village, state), tile=2048, overwrite=True, **kw)
        res.update(steep_acres_12=s.steep_area_acres[village], valid_cells=s.valid_cells, tiles=s.tiles)
    else:
        from geosite.io.limits import Limits

        # the reference holds the whole DEM by design: past the default raster budget, raised here only
        dem = read_dem(vrt, "us_ft", limits=Limits(raster_budget_bytes=256 * 2**30))
        res["read_s"] = time.perf_counter() - t
        t1 = time.perf_counter()
        s = slope_pct(dem)
        res["slope_s"] = time.perf_counter() - t1
        with np.errstate(invalid="ignore"):
            res["steep_acres_12"] = float(np.count_nonzero(s >= village - 1e-6)) * dem.cell_area_sqft / 43_560
        res["valid_cells"] = int(np.count_nonzero(~np.isnan(s)))
    res["seconds"] = time.perf_counter() - t
    res["peak_rss_bytes"] = peak_bytes()
    res["baseline_rss_bytes"] = base
    print(json.dumps(res))


def run_child(mode: str, vrt: Path, out: Path) -> dict:
    p = subprocess.run(
        [sys.executable, str(HERE), "--child", mode, str(vrt), str(out)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    return json.loads(p.stdout.strip().splitlines()[-1])


def bench_dem(folder: Path, mcells: float, repeats: int = 3) -> None:
    side = int(round((mcells * 1e6) ** 0.5))
    vrt = make_dem(folder, side)
    print(f"DEM {side} x {side} = {side * side / 1e6:.1f} M cells as {TILE}-cell tiles + VRT", flush=True)
    out = folder / "screen_out"
    out.mkdir(exist_ok=True)
    rows: dict = {m: [] for m in ("inmem", "screen", "screen_mask", "screen_slope")}
    for _ in range(repeats):  # the modes take turns: the machine may be shared
        for m in rows:
            rows[m].append(run_child(m, vrt, out))
    ratio = {
        m: paired_ratio([r["seconds"] for r in rows[m]], [r["seconds"] for r in rows["inmem"]]) for m in rows
    }
    kernel = {
        m: paired_ratio([r["seconds"] for r in rows[m]], [r["slope_s"] for r in rows["inmem"]]) for m in rows
    }
    rows = {
        m: dict(
            runs[0], **{k: median([r.get(k, 0.0) for r in runs]) for k in ("seconds", "slope_s", "read_s")}
        )
        | {"peak_rss_bytes": median([r["peak_rss_bytes"] for r in runs])}
        for m, runs in rows.items()
    }
    ref = rows["inmem"]
    gb = 1024**3
    print(
        f"(medians of {repeats} rounds, the modes taking turns; each ratio the median of each round's; "
        f"{machine()})"
    )
    print(
        f"in memory : read {ref['read_s']:.1f} s + slope_pct {ref['slope_s']:.1f} s; peak RSS "
        f"{ref['peak_rss_bytes'] / gb:.2f} GB"
    )
    for m in ("screen", "screen_mask", "screen_slope"):
        r = rows[m]
        assert (
            r["valid_cells"] == ref["valid_cells"] and abs(r["steep_acres_12"] - ref["steep_acres_12"]) < 1e-6
        )
        print(
            f"{m:12s}: {r['seconds']:.1f} s; peak RSS {r['peak_rss_bytes'] / gb:.2f} GB "
            f"(goal < 2 GB: {'met' if r['peak_rss_bytes'] < 2 * gb else 'NOT met'}); "
            f"vs read+slope in memory {ratio[m]:.2f}x, vs slope kernel alone {kernel[m]:.2f}x (goal 1.5x)"
        )
    print(f"steep (>= 12 %) {ref['steep_acres_12']:,.1f} acres, same from every path", flush=True)


# ----------------------------------------------------------------------------------------- batch


def _make_sites(sites_dir: Path, n: int) -> list[Path]:
    """``n`` small synthetic site folders (planes of varied slope and aspect, the two villages in turn),
    made once."""
    from sitebuilder import make_site, rect

    from geosite.testing import inclined_plane

    if not sites_dir.exists():
        for i in range(n):
            dem = inclined_plane(
                4.0 + (i % 9) * 2.0, shape=(150, 150), cell=2.0, azimuth_deg=(37.0 * i) % 360
            )
            w = 80 + (i % 7) * 10
            make_site(
                sites_dir / f"site{i:03d}",
                {"site_boundary": [rect(60, -240, w, 120)], "disturbance": [rect(80, -220, w - 40, 60)]},
                conf={"name": f"Site {i}", "jurisdiction": ("grantsburg", "belgium")[i % 2]},
                dem=dem,
            )
    return sorted(p for p in sites_dir.iterdir() if p.is_dir())


def _dask_batch(sites: list[Path], folder: Path, par_out: Path) -> tuple[float, float, float, float]:
    """(cluster start, worker warm-up, the batch, the batch resumed with every site skipped), seconds, on
    a 2-worker local cluster as run_batch starts it."""
    from distributed import Client

    from geosite.scale.batch import local_cluster, process_site, run_batch

    t = time.perf_counter()
    cluster = local_cluster(2)  # as run_batch starts it
    client = Client(cluster)
    t_start = time.perf_counter() - t
    t = time.perf_counter()
    client.run(process_site, str(sites[0]), str(folder / "warm_out"))
    t_warm = time.perf_counter() - t
    try:
        t = time.perf_counter()
        res = run_batch(sites, par_out, client=client)
        t_par = time.perf_counter() - t
        assert res.ok
        t = time.perf_counter()
        again = run_batch(sites, par_out, client=client)
        t_resume = time.perf_counter() - t
        assert all(r["action"] == "skipped" for r in again.rows)
    finally:
        client.close()
        cluster.close()
    return t_start, t_warm, t_par, t_resume


def _two_plain_processes(sites: list[Path], folder: Path) -> float:
    """The machine's own ceiling: two plain processes (no Dask), each warm, each doing half the sites;
    seconds."""
    import shutil

    from geosite.scale.batch import local_worker_env

    code = (
        "import sys, time, warnings; warnings.simplefilter('ignore'); from pathlib import Path; "
        "from geosite.scale.batch import process_site; s = sys.argv[3:]; process_site(s[0], sys.argv[2]); "
        "print('ready', flush=True); sys.stdin.readline(); t = time.perf_counter(); "
        "[process_site(x, sys.argv[1]) for x in s]; print(time.perf_counter() - t, flush=True)"
    )
    halves = [sites[0::2], sites[1::2]]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(folder / "raw_out"), str(folder / "warm_out"), *map(str, h)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, **local_worker_env(2)},
        )
        for h in halves
    ]
    for p in procs:
        p.stdout.readline()
    t = time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        p.communicate()
    t_raw = time.perf_counter() - t
    shutil.rmtree(folder / "raw_out", ignore_errors=True)
    return t_raw


def bench_batch(folder: Path, n: int) -> None:
    import shutil
    import warnings

    from geosite.scale.batch import process_site

    warnings.simplefilter("ignore")
    sites = _make_sites(folder / f"sites_{n}", n)
    seq_out, par_out = folder / "seq_out", folder / "par_out"
    for d in (seq_out, par_out):
        shutil.rmtree(d, ignore_errors=True)
    process_site(sites[0], folder / "warm_out")  # imports and kernels, not timed
    t = time.perf_counter()
    rows = [process_site(s, seq_out) for s in sites]
    t_seq = time.perf_counter() - t
    assert all(r["status"] == "ok" for r in rows)
    t_start, t_warm, t_par, t_resume = _dask_batch(sites, folder, par_out)
    t_raw = _two_plain_processes(sites, folder)
    same = all(
        (seq_out / s.name / "report.json").read_text() == (par_out / s.name / "report.json").read_text()
        for s in sites
    )
    print(
        f"batch of {n} sites: sequential {t_seq:.1f} s ({n / t_seq:.1f} sites/s); 2 workers {t_par:.1f} s "
        f"({n / t_par:.1f} sites/s): speed-up {t_seq / t_par:.2f}x; "
        f"cluster start {t_start:.1f} s + worker warm-up {t_warm:.1f} s "
        f"(speed-up counting them {t_seq / (t_par + t_start + t_warm):.2f}x); resumed run (all skipped) "
        f"{t_resume:.1f} s ({t_resume / t_seq:.2f}x the sequential run); "
        f"reports identical to sequential: {same}",
        flush=True,
    )
    share = t_raw / t_par
    print(
        f"  ceiling on this machine now: 2 plain processes (no Dask) {t_raw:.1f} s, speed-up "
        f"{t_seq / t_raw:.2f}x; "
        f"Dask reaches {share:.0%} of it (goal 90 %: {'met' if share >= 0.9 else 'NOT met'})",
        flush=True,
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(*sys.argv[2:5])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=float, default=100.0, help="DEM size, millions of cells")
    ap.add_argument("--sites", type=int, default=200)
    ap.add_argument("--dir", type=Path, default=None, help="work folder (kept, so the DEM is made once)")
    ap.add_argument("--skip-dem", action="store_true")
    ap.add_argument("--skip-batch", action="store_true")
    a = ap.parse_args()
    folder = a.dir or Path(tempfile.mkdtemp(prefix="geosite-bench-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"work folder {folder}; {os.cpu_count()} CPUs", flush=True)
    if not a.skip_batch:
        bench_batch(folder, a.sites)
    if not a.skip_dem:
        bench_dem(folder, a.cells)


if __name__ == "__main__":
    main()
