"""Soil loss's grid work (geosite.soil_loss.ls_factor) on a large DEM, against the flow routing the analysis
does without it, and against SAGA's LS where ``saga_cmd`` is installed; each in a fresh process, the same
GeoTIFF read on every side, wall time and peak memory (VmHWM) printed with ratios.

    python benchmarks/bench_soil_loss.py [--size 4000] [--cell 3.0]

The DEM is geosite.testing's rolling terrain at ``--size`` x ``--size`` cells (4000: 16 M cells). SAGA runs
its own sink fill (ta_preprocessor 4), D8 catchment area (ta_hydrology 0, METHOD 0) and slope, then its LS
(ta_hydrology 22, Desmet & Govers); SAGA 8.5's LS tool takes the square root of the area it is given
whatever the conversion chosen and sets x = 1, so its numbers are not geosite's (the time is comparable).
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

CHILD = r"""
import json, sys, time
from geosite.io.raster import read_dem
from geosite.units import VerticalUnit
t0 = time.perf_counter()
dem = read_dem(sys.argv[1], VerticalUnit.US_FT)
from geosite.hydrology import flow_grid
fg = flow_grid(dem)
fg.accumulation_cells()
t1 = time.perf_counter()
if sys.argv[2] == "ls":
    from geosite.soil_loss import ls_factor
    ls_factor(fg, channel_threshold_sqft=43560.0)
t2 = time.perf_counter()
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(json.dumps({"routing_s": t1 - t0, "ls_s": t2 - t1, "total_s": t2 - t0, "vmhwm_mb": int(hwm) / 1024}))
"""


def _child(path: Path, what: str) -> dict:
    """One fresh process: read + route (+ LS)."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), what], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _saga(path: Path, work: Path) -> float | None:
    """SAGA's fill, D8 area, slope and LS on the same GeoTIFF, seconds (None without saga_cmd)."""
    if shutil.which("saga_cmd") is None:
        return None
    steps = [
        ["ta_preprocessor", "4", "-ELEV", str(path), "-FILLED", str(work / "filled.sdat")],
        [
            "ta_hydrology",
            "0",
            "-ELEVATION",
            str(work / "filled.sdat"),
            "-FLOW",
            str(work / "area.sdat"),
            "-METHOD",
            "0",
        ],
        ["ta_morphometry", "0", "-ELEVATION", str(work / "filled.sdat"), "-SLOPE", str(work / "slope.sdat")],
        [
            "ta_hydrology",
            "22",
            "-SLOPE",
            str(work / "slope.sdat"),
            "-AREA",
            str(work / "area.sdat"),
            "-LS",
            str(work / "ls.sdat"),
            "-METHOD",
            "1",
        ],
    ]
    t0 = time.perf_counter()
    for s in steps:
        subprocess.run(["saga_cmd", *s], capture_output=True, check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4000, help="cells a side (4000: 16 M cells)")
    ap.add_argument("--cell", type=float, default=3.0, help="cell size, US survey ft")
    ap.add_argument("--no-saga", action="store_true", help="skip SAGA (minutes at 16 M cells)")
    a = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from sitebuilder import write_dem

    from geosite.testing import rolling_terrain

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = work / "dem.tif"
        write_dem(path, rolling_terrain(shape=(a.size, a.size), cell=a.cell))
        base = _child(path, "route")
        with_ls = _child(path, "ls")
        saga = None if a.no_saga else _saga(path, work)
    print(f"DEM {a.size} x {a.size} = {a.size * a.size / 1e6:.1f} M cells of {a.cell:g} ft")
    print(
        f"read + route (the analysis without soil loss): {base['total_s']:.2f} s, {base['vmhwm_mb']:.0f} MB"
    )
    print(f"read + route + LS: {with_ls['total_s']:.2f} s, {with_ls['vmhwm_mb']:.0f} MB")
    print(
        f"LS alone: {with_ls['ls_s']:.2f} s; with/without: {with_ls['total_s'] / base['total_s']:.2f}x time, "
        f"{with_ls['vmhwm_mb'] / base['vmhwm_mb']:.2f}x peak memory"
    )
    if saga is None:
        print(
            "SAGA: skipped (--no-saga)"
            if a.no_saga
            else "SAGA: saga_cmd not installed (apt-get install saga)"
        )
    else:
        print(
            f"SAGA fill + D8 area + slope + LS: {saga:.2f} s; geosite/SAGA: {with_ls['total_s'] / saga:.2f}x"
        )


if __name__ == "__main__":
    main()
