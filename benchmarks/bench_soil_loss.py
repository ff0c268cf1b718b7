"""Soil loss's grid work (geosite.soil_loss.ls_factor) on a large DEM, against the flow routing the analysis
does without it, and against SAGA's LS where ``saga_cmd`` is installed; each in a fresh process, the same
GeoTIFF read and the LS written as a GeoTIFF on every side, wall time and peak memory (VmHWM) printed
with ratios.

    python benchmarks/bench_soil_loss.py [--size 4000] [--cell 3.0] [--repeat 3] [--no-saga]

The DEM is geosite.testing's rolling terrain at ``--size`` x ``--size`` cells (4000: 16 M cells). SAGA runs
its own sink fill (ta_preprocessor 4), D8 catchment area (ta_hydrology 0, METHOD 0) and slope, then its LS
(ta_hydrology 22, Desmet & Govers), one ``saga_cmd`` process each, as a SAGA user runs them (each step
writes its grid for the next); SAGA 8.5's LS tool takes the square root of the area it is given
whatever the conversion chosen and sets x = 1, so its numbers are not geosite's (the time is comparable).

Every side is a fresh process (SAGA: four), the sides taking turns for ``--repeat`` rounds; the figures
are medians, each ratio the median of each round's ratio. Against SAGA both sides are timed from outside,
process starts and imports included (what a command-line user waits); geosite's route-only and
route + LS runs are also timed inside their process, from the read on (after a warm-up on a small
plane: imports, kernels), for the cost of LS alone.
Peak memory is each process's VmHWM (SAGA's chain: its largest step's; benchmarks/_measure.py).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _measure import machine, median, paired_ratio, run_program

CHILD = r"""
import json, sys, time
from geosite.hydrology import flow_grid
from geosite.io.raster import read_dem
from geosite.soil_loss import ls_factor
from geosite.testing import inclined_plane
from geosite.units import VerticalUnit
ls_factor(flow_grid(inclined_plane(5.0, shape=(64, 64))), channel_threshold_sqft=43560.0)  # imports, kernels
t0 = time.perf_counter()
dem = read_dem(sys.argv[1], VerticalUnit.US_FT)
fg = flow_grid(dem)
fg.accumulation_cells()
t1 = time.perf_counter()
if sys.argv[2] == "ls":
    import numpy as np
    import rasterio
    ls = ls_factor(fg, channel_threshold_sqft=43560.0).ls
    with rasterio.open(sys.argv[3], "w", driver="GTiff", width=ls.shape[1], height=ls.shape[0], count=1,
                       dtype="float32", crs=dem.crs, transform=dem.transform, nodata=-9999.0) as ds:
        ds.write(np.where(np.isnan(ls), -9999.0, ls).astype("float32"), 1)
t2 = time.perf_counter()
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(json.dumps({"routing_s": t1 - t0, "ls_s": t2 - t1, "inside_s": t2 - t0, "peak_bytes": int(hwm) * 1024}))
"""


def _child(path: Path, what: str, out: Path) -> dict:
    """One fresh process: read + route (+ LS, written to ``out``); its JSON and its wall time from
    outside (``wall_s``)."""
    t = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), what, str(out)], capture_output=True, text=True, check=True
    )
    return dict(json.loads(p.stdout.strip().splitlines()[-1]), wall_s=time.perf_counter() - t)


def _saga(path: Path, work: Path) -> dict:
    """SAGA's fill, D8 area, slope and LS on the same GeoTIFF (the LS written as a GeoTIFF): wall
    seconds of the chain and the largest step's VmHWM."""
    steps = [
        ["ta_preprocessor", "4", "-ELEV", str(path), "-FILLED", str(work / "filled.sdat")],
        ["ta_hydrology", "0", "-ELEVATION", str(work / "filled.sdat"), "-FLOW", str(work / "area.sdat")]
        + ["-METHOD", "0"],
        ["ta_morphometry", "0", "-ELEVATION", str(work / "filled.sdat"), "-SLOPE", str(work / "slope.sdat")],
        ["ta_hydrology", "22", "-SLOPE", str(work / "slope.sdat"), "-AREA", str(work / "area.sdat")]
        + ["-LS", str(work / "ls.tif"), "-METHOD", "1"],
    ]
    runs = [run_program(["saga_cmd", *s]) for s in steps]
    return {"wall_s": sum(r[0] for r in runs), "peak_bytes": max(r[1] for r in runs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4000, help="cells a side (4000: 16 M cells)")
    ap.add_argument("--cell", type=float, default=3.0, help="cell size, US survey ft")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (medians of them)")
    ap.add_argument("--no-saga", action="store_true", help="skip SAGA (minutes at 16 M cells)")
    a = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from sitebuilder import write_dem

    from geosite.testing import rolling_terrain

    saga_ok = not a.no_saga and shutil.which("saga_cmd") is not None
    runs: dict[str, list[dict]] = {"route": [], "ls": [], "saga": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = work / "dem.tif"
        write_dem(path, rolling_terrain(shape=(a.size, a.size), cell=a.cell))
        for _ in range(a.repeat):  # the sides take turns: the machine may be shared
            runs["route"].append(_child(path, "route", work / "ours_ls.tif"))
            runs["ls"].append(_child(path, "ls", work / "ours_ls.tif"))
            if saga_ok:
                runs["saga"].append(_saga(path, work))
    base, with_ls = runs["route"], runs["ls"]

    def med(rs: list[dict], key: str) -> float:
        return median([r[key] for r in rs])

    def ratio(x: list[dict], y: list[dict], key: str) -> float:
        return paired_ratio([r[key] for r in x], [r[key] for r in y])

    print(
        f"DEM {a.size} x {a.size} = {a.size * a.size / 1e6:.1f} M cells of {a.cell:g} ft; {machine()}; "
        f"medians of {a.repeat} rounds"
    )
    print(
        f"read + route (the analysis without soil loss): {med(base, 'inside_s'):.2f} s in its process, "
        f"{med(base, 'peak_bytes') / 2**20:.0f} MB"
    )
    print(
        f"read + route + LS + LS written: {med(with_ls, 'inside_s'):.2f} s in its process "
        f"({med(with_ls, 'wall_s'):.2f} s the whole process), {med(with_ls, 'peak_bytes') / 2**20:.0f} MB"
    )
    print(
        f"LS alone (and its writing): {med(with_ls, 'ls_s'):.2f} s; with/without: "
        f"{ratio(with_ls, base, 'inside_s'):.2f}x time, {ratio(with_ls, base, 'peak_bytes'):.2f}x peak memory"
    )
    if not saga_ok:
        print(
            "SAGA: skipped (--no-saga)"
            if a.no_saga
            else "SAGA: saga_cmd not installed (apt-get install saga)"
        )
        return
    saga = runs["saga"]
    print(
        f"SAGA fill + D8 area + slope + LS (four processes): {med(saga, 'wall_s'):.2f} s, largest step "
        f"{med(saga, 'peak_bytes') / 2**20:.0f} MB; geosite/SAGA, whole processes: "
        f"{ratio(with_ls, saga, 'wall_s'):.2f}x time, {ratio(with_ls, saga, 'peak_bytes'):.2f}x peak memory"
    )


if __name__ == "__main__":
    main()
