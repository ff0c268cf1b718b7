"""Benchmark a site inside a large closed depression (issue 15, goal 6: under 0.5 s on 16 M cells, equal
to the whole-DEM answer).

    .venv/bin/python benchmarks/bench_depression.py [--mcells 16] [--repeat N] [--dir DIR]

The DEM (float32 GeoTIFF, 3 ft cells, EPSG:7593, written tile by tile and kept in ``--dir``) is rolling
terrain (geosite.testing.rolling_terrain, cubic-interpolated from a coarse grid) with a kettle 3,000 ft
across pressed into its centre: a bowl whose rim stands 25 ft above its floor on every side, so the whole
DEM's priority flood fills it to the rim's lowest saddle and the site, 450 ft off the bowl's centre, sits
on a filled flat: its upslope area is the whole kettle, not the few acres a window around the site sees.

Each measurement is a fresh process, from the file to the site's drainage answer (the D8 upslope area
and the D-infinity total of a 2-acre disturbed square), with its peer measured the same way:

* file: :func:`geosite.hydrology.window.read_site_dem` (the window the site's drainage needs, certified
  equal to the whole DEM's routing) + ``upslope_area`` + ``upslope_area_dinf_sqft`` on its flow grid,
  against whole: ``read_dem`` of the whole DEM + ``flow_grid`` + the same two (what geosite did before);
* memory: ``upslope_area`` (D8) on the DEM already read whole, the library call a notebook makes (its
  own certified window, :mod:`geosite.hydrology.upslope`), against memory-whole: ``flow_grid`` of that
  DEM + ``upslope_area`` on it; neither times the reading.

The four take turns round after round (``--repeat`` rounds); times and peaks are medians, each ratio
the median of each round's ratio. Peak memory is VmHWM from /proc of the measuring process, reset
after imports and a warm-up run of the same code (the DEM held in memory counts on both memory sides).
The answers must be equal to the bit.
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
from _measure import machine, median, paired_ratio, peak_bytes, reset_peak

HERE = Path(__file__).resolve()
CELL = 3.0
CRS = "EPSG:7593"
#: contributing area of a channel cell, sq ft: the bundled profiles' [terrain] channel_threshold_sqft (1 acre)
CHANNEL_SQFT = 43_560.0
TILE = 2048


def make_dem(path: Path, mcells: float) -> Path:
    import rasterio
    from affine import Affine
    from rasterio.windows import Window
    from scipy import ndimage

    from geosite.testing import rolling_terrain

    if path.exists():
        return path
    side = int(round((mcells * 1e6) ** 0.5))
    up = 16
    coarse = rolling_terrain(
        (side // up + 4, side // up + 4), cell=CELL * up, relief_ft=60.0, kettles=10, seed=7
    ).elevation_ft
    t = Affine(CELL, 0, 500_000.0, 0, -CELL, 200_000.0 + side * CELL)
    radius = 1500.0 / CELL  # cells
    tmp = path.with_suffix(".tmp.tif")
    path.parent.mkdir(parents=True, exist_ok=True)
    with rasterio.open(
        tmp,
        "w",
        driver="GTiff",
        width=side,
        height=side,
        count=1,
        dtype="float32",
        crs=CRS,
        transform=t,
        nodata=-9999.0,
        tiled=True,
        blockxsize=256,
        blockysize=256,
        BIGTIFF="IF_SAFER",
    ) as dst:
        centre = ndimage.map_coordinates(coarse, [[side / 2 / up + 1.5], [side / 2 / up + 1.5]], order=3)[0]
        for r0 in range(0, side, TILE):
            for c0 in range(0, side, TILE):
                hh, ww = min(TILE, side - r0), min(TILE, side - c0)
                rr, cc = np.mgrid[r0 : r0 + hh, c0 : c0 + ww].astype(np.float64)
                z = ndimage.map_coordinates(coarse, [rr / up + 1.5, cc / up + 1.5], order=3, mode="nearest")
                d = np.hypot(rr - side / 2, cc - side / 2) / radius
                # the kettle: a floor 25 ft below the land's height at the centre, rising to a rim 8 ft above
                # it at one radius; the rim then falls back to the land over 0.3 radii (the land kept where
                # higher)
                ring = centre + 8.0 * np.clip(1.3 - d, 0.0, 0.3) / 0.3
                z = np.where(d < 1.0, centre - 25.0 + 33.0 * d**2, np.where(d < 1.3, np.maximum(z, ring), z))
                dst.write(z.astype(np.float32), 1, window=Window(c0, r0, ww, hh))
    os.replace(tmp, path)
    return path


def child(mode: str, path: str) -> None:
    import rasterio
    import shapely

    from geosite import hydrology as hy
    from geosite.hydrology.window import read_site_dem
    from geosite.io.raster import read_dem

    with rasterio.open(path) as src:
        t, side = src.transform, src.width
    x0, y0 = t.c + side / 2 * CELL + 450.0, t.f - side / 2 * CELL - 150.0
    s = (2 * 43_560.0) ** 0.5
    site = shapely.box(x0 - s / 2 - 20, y0 - s / 2 - 20, x0 + s / 2 + 20, y0 + s / 2 + 20)
    disturbed = shapely.box(x0 - s / 2, y0 - s / 2, x0 + s / 2, y0 + s / 2)
    core = tuple(np.add(site.bounds, (-200.0, -200.0, 200.0, 200.0)))

    held = read_dem(path, "us_ft") if mode.startswith("memory") else None

    def answer():
        if mode == "memory":  # the library call on a DEM already in memory: upslope_area's own window
            up = hy.upslope_area(held, disturbed, channel_threshold_sqft=CHANNEL_SQFT)
            return up.area_sqft, None, f"upslope_area on the DEM in memory, method {up.method!r}"
        if mode == "memory-whole":  # the same DEM in memory, routed whole
            up = hy.upslope_area(hy.flow_grid(held), disturbed, channel_threshold_sqft=CHANNEL_SQFT)
            return up.area_sqft, None, "the whole DEM in memory"
        if mode == "ours":
            dem, fg, where = read_site_dem(Path(path), "us_ft", site, core, channel_threshold_sqft=43_560.0)
            fg = fg or hy.flow_grid(dem)
            info = where.describe()
        else:
            dem = read_dem(path, "us_ft")
            fg = hy.flow_grid(dem)
            info = "the whole DEM"
        up = hy.upslope_area(fg, disturbed, channel_threshold_sqft=CHANNEL_SQFT)
        return up.area_sqft, hy.upslope_area_dinf_sqft(fg, disturbed), info

    # warm-up on the same code (imports, kernels), then the measured run
    answer()
    reset_peak()
    t0 = time.perf_counter()
    d8, dinf, info = answer()
    print(
        json.dumps(
            {
                "seconds": time.perf_counter() - t0,
                "peak_bytes": peak_bytes(),
                "d8_sqft": d8,
                "dinf_sqft": dinf,
                "where": info,
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mcells", type=float, default=16.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return 0
    work = a.dir or Path(tempfile.gettempdir()) / "geosite-bench-depression"
    dem = make_dem(work / f"kettle_{a.mcells:g}M.tif", a.mcells)
    modes = ("ours", "whole", "memory", "memory-whole")
    got: dict[str, list[dict]] = {m: [] for m in modes}
    for _ in range(a.repeat):  # the modes take turns: the machine may be shared
        for mode in modes:
            p = subprocess.run(
                [sys.executable, str(HERE), "--child", mode, str(dem)], capture_output=True, text=True
            )
            if p.returncode:
                raise RuntimeError(p.stderr[-2000:])
            got[mode].append(json.loads(p.stdout.strip().splitlines()[-1]))
    print(
        f"site in a kettle 3,000 ft across, {a.mcells:g} M-cell DEM; {machine()}; medians of {a.repeat} "
        "rounds of fresh processes"
    )
    print(f"{'':<14}{'time s':>9}{'peak MB':>9}{'D8 upslope ac':>15}{'D-inf ac':>10}")
    for name, mode in (
        ("file", "ours"),
        ("whole", "whole"),
        ("memory", "memory"),
        ("memory-whole", "memory-whole"),
    ):
        r = got[mode]
        dinf = f"{r[0]['dinf_sqft'] / 43_560:>10.2f}" if r[0]["dinf_sqft"] is not None else f"{'-':>10}"
        secs, peak = median([x["seconds"] for x in r]), median([x["peak_bytes"] for x in r])
        print(f"{name:<14}{secs:>9.3f}{peak / 2**20:>9.0f}{r[0]['d8_sqft'] / 43_560:>15.2f}{dinf}")
    print(f"file: {got['ours'][0]['where']}\nmemory: {got['memory'][0]['where']}")
    for name, a_mode, b_mode in (("file", "ours", "whole"), ("memory", "memory", "memory-whole")):
        x, y = got[a_mode], got[b_mode]
        same = all((u["d8_sqft"], u["dinf_sqft"]) == (y[0]["d8_sqft"], y[0]["dinf_sqft"]) for u in x + y)
        print(
            f"{name} / {b_mode}: {paired_ratio([u['seconds'] for u in x], [u['seconds'] for u in y]):.3f}x "
            f"time, {paired_ratio([u['peak_bytes'] for u in x], [u['peak_bytes'] for u in y]):.3f}x peak "
            f"memory; answers equal: {same}"
        )
    mem = median([u["seconds"] for u in got["memory"]])
    print(f"goal 6 (issue 15: upslope_area on the DEM in memory < 0.5 s on 16 M cells): {mem:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
