"""Soil loss's grid work (geosite.soil_loss.ls_factor) on a large DEM, against the flow routing the analysis
does without it, and against SAGA's LS where ``saga_cmd`` is installed; each in a fresh process, the same
GeoTIFF read and the LS written as a GeoTIFF on every side, wall time and peak memory (VmHWM) printed
with ratios.

    python benchmarks/bench_soil_loss.py [--size 4000] [--cell 3.0] [--repeat 3] [--no-saga]

The DEM is geosite.testing's rolling terrain at ``--size`` x ``--size`` cells (4000: 16 M cells). SAGA runs
its own sink fill (ta_preprocessor 4), D8 catchment area (ta_hydrology 0, METHOD 0), Horn's slope
(ta_morphometry 0, METHOD 2, as geosite's) and its LS (ta_hydrology 22, METHOD 1: Desmet & Govers), one
``saga_cmd`` process each, as a SAGA user runs them (each step writes its grid for the next), with one
more step that makes its LS Desmet & Govers' on a foot grid (grid_calculus 1): SAGA 8.5's LS puts the
AREA grid as given (CONV 0) where Desmet & Govers put A, the area draining into the cell, while its D8
area counts the cell itself (so D^2 is taken off), and its FEET option multiplies that area by 0.3048
once, as for a length, while taking the cell size to metres (so the area is first multiplied by 0.3048
once more: square metres in the end). SAGA sets x = 1 where geosite uses |sin a| + |cos a|.

After the timed rounds the script prints how far LS agrees with SAGA's on this DEM (tests/
test_ls_reference.py holds the same on real LiDAR): relative differences |geosite / SAGA - 1|, median and
95th percentile, over the cells in the method's range (slope <= 33 %) off the DEM's edge, geosite's LS
taken with SAGA's x = 1 (times x^m) and undisturbed (SAGA's EROSIVITY 1), no channel threshold. The
formula: SAGA given geosite's own D8 area (only the unit plot differs: 72.6 ft against 22.13 m = 72.605
ft, so up to 5.5e-5). SAGA's chain: its own fill and D8 area, over all those cells and over those
outside the depressions either fill raises (on a filled flat each engine routes D8 its own way).

Every side is a fresh process (SAGA: five), the sides taking turns for ``--repeat`` rounds; the figures
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


def _saga(path: Path, work: Path, cell: float) -> dict:
    """SAGA's fill, D8 area, slope and LS on the same GeoTIFF of ``cell``-ft cells (the LS written as a
    GeoTIFF): wall seconds of the chain and the largest step's VmHWM."""
    # Desmet & Govers' A excludes the cell; the 0.3048 makes FEET's one 0.3048 a square (module docstring)
    formula = f"(g1 - {cell * cell!r}) * 0.3048"
    steps = [
        ["ta_preprocessor", "4", "-ELEV", str(path), "-FILLED", str(work / "filled.sdat")],
        ["ta_hydrology", "0", "-ELEVATION", str(work / "filled.sdat"), "-FLOW", str(work / "area.sdat")]
        + ["-METHOD", "0"],
        ["ta_morphometry", "0", "-ELEVATION", str(path), "-SLOPE", str(work / "slope.sdat")]
        + ["-ASPECT", str(work / "aspect.sdat"), "-METHOD", "2"],
        ["grid_calculus", "1", "-GRIDS", str(work / "area.sdat"), "-RESULT", str(work / "upslope.sdat")]
        + ["-FORMULA", formula, "-TYPE", "8"],
        _saga_ls(work / "upslope.sdat", work / "slope.sdat", work / "ls.tif"),
    ]
    runs = [run_program(["saga_cmd", *s]) for s in steps]
    return {"wall_s": sum(r[0] for r in runs), "peak_bytes": max(r[1] for r in runs)}


def _saga_ls(area: Path, slope: Path, out: Path) -> list[str]:
    """ta_hydrology 22's arguments: Desmet & Govers, the area as given (m^2 once FEET has scaled it),
    EROSIVITY 1 (undisturbed), the cell size in feet."""
    return ["ta_hydrology", "22", "-SLOPE", str(slope), "-AREA", str(area), "-LS", str(out)] + [
        "-METHOD", "1", "-CONV", "0", "-FEET", "1", "-EROSIVITY", "1"
    ]  # fmt: skip


def _spread(ours: object, theirs: object, cells: object) -> str:
    """Median and 95th percentile of |ours / theirs - 1| over ``cells``."""
    import numpy as np

    rel = np.abs(np.asarray(ours)[cells] / np.asarray(theirs)[cells] - 1.0)
    return f"median {np.median(rel):.2g}, 95th percentile {np.percentile(rel, 95):.2g} ({rel.size:,} cells)"


def _agreement(path: Path, work: Path) -> list[str]:
    """How far geosite's LS agrees with SAGA's on the DEM (module docstring): the formula on geosite's
    D8 area, then SAGA's whole chain (its LS left in ``work`` by :func:`_saga`)."""
    import numpy as np
    import rasterio

    from geosite.hydrology import flow_grid
    from geosite.io.raster import read_dem
    from geosite.soil_loss import ls_factor
    from geosite.units import VerticalUnit

    dem = read_dem(path, VerticalUnit.US_FT)
    flow = flow_grid(dem)
    grid = ls_factor(flow, disturbed=False)  # no channel threshold: SAGA resets no slope length
    ux, uy = flow.downhill()
    x = np.abs(ux) + np.abs(uy)
    ours = grid.ls * np.where(x > 0.0, x, 1.0) ** grid.m  # SAGA's x = 1
    cells = np.isfinite(ours)
    cells[[0, -1], :] = cells[:, [0, -1]] = False
    with rasterio.open(path) as src:
        profile, z, cell_area = src.profile, src.read(1), abs(src.transform.a * src.transform.e)
    area = grid.upslope_sqft / dem.cell_area_sqft * cell_area * 0.3048  # as _saga's calculator gives it
    profile.update(dtype="float64", nodata=-99999.0)
    with rasterio.open(work / "geosite_area.tif", "w", **profile) as dst:
        dst.write(np.where(np.isnan(area), -99999.0, area), 1)
    subprocess.run(
        ["saga_cmd", *_saga_ls(work / "geosite_area.tif", work / "slope.sdat", work / "formula.tif")],
        capture_output=True,
        check=True,
    )

    def saga(name: str) -> np.ndarray:
        with rasterio.open(work / name) as src:
            return src.read(1, masked=True).astype(np.float64).filled(np.nan)

    formula, chain = saga("formula.tif"), saga("ls.tif")
    raised = (flow.filled_ft - dem.elevation_ft > 1e-6) | (saga("filled.sdat") - z > 1e-6)
    return [
        "LS against SAGA's, |geosite / SAGA - 1|: the formula on geosite's D8 area: "
        + _spread(ours, formula, cells),
        f"  SAGA's own fill + D8 area + slope + LS: {_spread(ours, chain, cells & np.isfinite(chain))}",
        "  the same outside the depressions either fill raises: "
        + _spread(ours, chain, cells & np.isfinite(chain) & ~raised),
    ]


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
                runs["saga"].append(_saga(path, work, a.cell))
        agreement = _agreement(path, work) if saga_ok else []  # after the timed rounds
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
        "SAGA fill + D8 area + slope + area less the cell + LS (five processes): "
        f"{med(saga, 'wall_s'):.2f} s, largest step "
        f"{med(saga, 'peak_bytes') / 2**20:.0f} MB; geosite/SAGA, whole processes: "
        f"{ratio(with_ls, saga, 'wall_s'):.2f}x time, {ratio(with_ls, saga, 'peak_bytes'):.2f}x peak memory"
    )
    print("\n".join(agreement))


if __name__ == "__main__":
    main()
