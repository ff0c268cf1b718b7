"""Benchmark what the DEM's size costs one site: the same site inside 1 M, 16 M and 64 M-cell DEMs
against its site-sized DEM (issue 15, goal 1: within 1.5x, memory bounded by the site's drainage).

    .venv/bin/python benchmarks/bench_site_scaling.py [--site DIR] [--sizes 1,16,64] [--repeat N] [--dir DIR]

The site is a sample site folder (default: Lot 7); its own DEM is the site-sized one. Each larger DEM
is deterministic synthetic rolling terrain (geosite.testing.rolling_terrain on a coarse grid,
cubic-interpolated, plus ripples) with the site's DEM set into its centre (the terrain levelled to the
site DEM's edge and blended over 64 cells, so no cliff surrounds it), written tile by tile as a float32
GeoTIFF in the same CRS, cell size and grid as the site's DEM; the site folder is copied with
``[dem] path`` pointing at it. Larger DEMs are made once into ``--dir`` and reused.

Each run is ``geosite analyze SITE --no-maps -q`` in a fresh process, timed from outside, its peak
memory the process's VmHWM (benchmarks/_measure.py). The cases take turns round by round (``--repeat``
rounds); every figure is a median, and each ratio against the site-sized DEM the median of each round's
ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

import numpy as np
from _measure import machine, median, paired_ratio, run_cli

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
SITE = REPO / "data" / "sample_sites" / "grantsburg_lot7"
TILE = 2048
BLEND = 64


def make_dem(site_dem: Path, path: Path, mcells: float) -> Path:
    """A square DEM of about ``mcells`` million cells holding ``site_dem`` at its centre (see the
    module notes), written tile by tile; returns ``path``."""
    import rasterio
    from affine import Affine
    from rasterio.windows import Window
    from scipy import ndimage

    from geosite.testing import rolling_terrain

    if path.exists():
        return path
    with rasterio.open(site_dem) as src:
        inner = src.read(1, masked=True).filled(np.nan).astype(np.float64)
        t, crs, nodata = src.transform, src.crs, src.nodata if src.nodata is not None else -9999.0
    h, w = inner.shape
    side = max(int(round((mcells * 1e6) ** 0.5)), max(h, w) + 2 * BLEND + 2)
    r_in, c_in = (side - h) // 2, (side - w) // 2
    transform = Affine(t.a, 0, t.c - c_in * t.a, 0, t.e, t.f - r_in * t.e)
    up = 16
    coarse = rolling_terrain(
        (side // up + 4, side // up + 4), cell=abs(t.a) * up, relief_ft=120.0, kettles=30, seed=3
    ).elevation_ft
    edge = np.concatenate([inner[0], inner[-1], inner[:, 0], inner[:, -1]])
    level = float(np.nanmean(edge))

    def outer(r0: int, c0: int, hh: int, ww: int) -> np.ndarray:
        rr, cc = np.mgrid[r0 : r0 + hh, c0 : c0 + ww].astype(np.float64)
        z = ndimage.map_coordinates(coarse, [rr / up + 1.5, cc / up + 1.5], order=3, mode="nearest")
        return z + 2.0 * np.sin(rr / 41.0) * np.cos(cc / 57.0)

    centre = outer(side // 2 - 1, side // 2 - 1, 3, 3).mean()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.tif")
    with rasterio.open(
        tmp,
        "w",
        driver="GTiff",
        width=side,
        height=side,
        count=1,
        dtype="float32",
        crs=crs,
        transform=transform,
        nodata=nodata,
        tiled=True,
        blockxsize=256,
        blockysize=256,
        BIGTIFF="IF_SAFER",
    ) as dst:
        for r0 in range(0, side, TILE):
            for c0 in range(0, side, TILE):
                hh, ww = min(TILE, side - r0), min(TILE, side - c0)
                z = outer(r0, c0, hh, ww) - centre + level
                # the site's DEM, blended in over BLEND cells around it
                rr, cc = np.mgrid[r0 : r0 + hh, c0 : c0 + ww]
                d = np.maximum.reduce([r_in - rr, rr - (r_in + h - 1), c_in - cc, cc - (c_in + w - 1)])
                near = d < BLEND
                if near.any():
                    wgt = np.clip(1.0 - d / BLEND, 0.0, 1.0)
                    ri, ci = np.clip(rr - r_in, 0, h - 1), np.clip(cc - c_in, 0, w - 1)
                    site_z = inner[ri, ci]
                    inside = d <= 0
                    z = np.where(inside, site_z, np.where(near, wgt * site_z + (1 - wgt) * z, z))
                z = np.where(np.isnan(z), nodata, z)
                dst.write(z.astype(np.float32), 1, window=Window(c0, r0, ww, hh))
    os.replace(tmp, path)
    return path


def site_with_dem(site: Path, dem: Path, dest: Path) -> Path:
    """A copy of the site folder whose site.toml reads ``dem``."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(site, dest)
    toml = (dest / "site.toml").read_text(encoding="utf-8")
    conf = tomllib.loads(toml)
    old = conf["dem"]["path"]
    (dest / "site.toml").write_text(toml.replace(f'path = "{old}"', f'path = "{dem}"', 1), encoding="utf-8")
    (dest / old).unlink(missing_ok=True)
    return dest


def run(site: Path, out: Path) -> tuple[float, float]:
    """(wall seconds, peak MB) of one ``geosite analyze --no-maps`` in a fresh process."""
    args = [
        "analyze",
        str(site),
        "--out",
        str(out),
        "--overwrite",
        "--no-maps",
        "-q",
        "--allow-outside-paths",
    ]
    wall, hwm, _ = run_cli(args, env={**os.environ, "PYTHONWARNINGS": "ignore"}, cwd=out.parent)
    return wall, hwm / 2**20


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, default=SITE)
    ap.add_argument("--sizes", default="1,16,64", help="DEM sizes, millions of cells")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=None, help="where the large DEMs are made (kept for reuse)")
    a = ap.parse_args()
    work = a.dir or Path(tempfile.gettempdir()) / "geosite-bench-site-scaling"
    work.mkdir(parents=True, exist_ok=True)
    site = a.site.resolve()
    own_dem = (
        site / tomllib.loads((site / "site.toml").read_text(encoding="utf-8"))["dem"]["path"]
    ).resolve()
    import rasterio

    with rasterio.open(own_dem) as src:
        own_cells = src.width * src.height
    cases = [("site-sized", own_cells, site)]
    for s in (float(x) for x in a.sizes.split(",")):
        dem = make_dem(own_dem, work / f"{site.name}_{s:g}M.tif", s)
        with rasterio.open(dem) as src:
            cells = src.width * src.height
        print(f"DEM {s:g} M: {cells:,} cells", flush=True)
        cases.append((f"{s:g} M", cells, site_with_dem(site, dem, work / f"site_{s:g}M" / site.name)))
    print(
        f"\n{site.name}; {machine()}; geosite analyze --no-maps, fresh process each, medians of "
        f"{a.repeat} rounds"
    )
    print(f"{'DEM':<12}{'cells':>13}{'time s':>9}{'peak MB':>9}{'time x':>8}{'memory x':>10}")
    # the cases interleaved, one run of each per round: the VM's speed drifts by 15-30 % within the hour,
    # and a drift between one case's runs and the next case's would be read as the DEM's cost
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in cases}
    for _ in range(a.repeat):
        for name, _, folder in cases:
            runs[name].append(run(folder, work / f"out_{name.replace(' ', '')}"))
    base = runs[cases[0][0]]
    for name, cells, _folder in cases:
        r = runs[name]
        wall, peak = median([x[0] for x in r]), median([x[1] for x in r])
        tx = paired_ratio([x[0] for x in r], [x[0] for x in base])
        mx = paired_ratio([x[1] for x in r], [x[1] for x in base])
        print(f"{name:<12}{cells:>13,}{wall:>9.2f}{peak:>9.0f}{tx:>8.2f}{mx:>10.2f}", flush=True)
    print(
        "goal 1 (issue 15): every larger DEM within 1.5x the site-sized time, memory bounded by the site's "
        "drainage"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
