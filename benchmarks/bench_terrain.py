"""Benchmark geosite.terrain against GDAL, with the same I/O on both sides.

    .venv/bin/python benchmarks/bench_terrain.py [--quick] [--repeat N]

DEMs: deterministic synthetic glacial terrain (geosite.testing.rolling_terrain) of 1, 4 and 16 million
cells, a plane and a cone of 4 million cells, and the real LiDAR DEMs in $GEOSITE_REAL_DEMS (else
../shared/data/real_dems beside the repository) when present. ``--quick`` keeps the 1-million-cell DEMs
and the real ones.

What is timed, each side reading the same float32 GeoTIFF and writing the same kind of file, as a user
of either pays:

* slope: ``read_dem`` + ``terrain.slope_pct`` + the slope written as a float32 GeoTIFF (rasterio),
  against ``gdaldem slope -p -compute_edges`` (its output: a float32 GeoTIFF);
* contours: ``read_dem`` + ``terrain.contours(interval_ft=5, index_every=5)`` (light smoothing; unsmoothed,
  "raw") + the lines written as an ESRI Shapefile (pyogrio), against ``gdal_contour -i 5`` writing an
  ESRI Shapefile (its fastest output format here; GeoPackage costs it 4x more).

Every run is a fresh process, ours and GDAL's taking turns for ``--repeat`` rounds; the figures are
medians, each ratio the median of each round's ratio (ours / GDAL: below 1 we are faster). GDAL's tool
is timed from outside, its process start included (printed: a few milliseconds); ours from inside its
process, after the imports and a warm-up on a small DEM (what a notebook or a long-running command
pays; the imports are the first-run benchmark's, bench_first_run.py). "kernel s" is the operation alone
on the DEM in memory, in the same process.

Memory, each the process's VmHWM (benchmarks/_measure.py): "ours MB" the whole process' peak over the
read, the operation and the write (its imports included), against "GDAL MB", the whole peak of GDAL's
process (GDAL streams by blocks, so that is its total); "+MB" (and "B/cell") the peak our operation adds
on top of the loaded DEM ("DEM MB", the float64 heights), with the heap the read freed handed back first
(malloc_trim).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _measure import machine, median, paired_ratio, peak_bytes, reset_peak, rss_bytes, run_program

from geosite.io.raster import READ_CACHE_MB

HERE = Path(__file__).resolve().parent
#: GDAL's block cache for the peers, as geosite reads with (geosite.io.raster.READ_CACHE_MB): the same I/O
#: on both sides (gdaldem slope of the 16 M DEM: 0.57 s with it, 0.71-0.82 s with GDAL's default 5 % of RAM)
PEER_CACHE = ["--config", "GDAL_CACHEMAX", str(READ_CACHE_MB)]
#: The real DEMs: $GEOSITE_REAL_DEMS, else ../shared/data/real_dems beside the repository (README)
REAL_DEMS = Path(os.environ.get("GEOSITE_REAL_DEMS") or HERE.parents[1] / "shared" / "data" / "real_dems")
SIZES = {"1M": (1024, 1024, 60.0), "4M": (2048, 2048, 120.0), "16M": (4096, 4096, 200.0)}


def _op(op: str, dem):
    """Our operation ``op`` (slope, contours, contours_raw) on ``dem``."""
    from geosite import terrain

    if op == "slope":
        return terrain.slope_pct(dem)
    return terrain.contours(dem, interval_ft=5.0, index_every=5, smooth=op == "contours")


def _child(op: str, path: str, vertical_unit: str, out: str) -> None:
    """One measurement of ``op`` in this fresh process; prints JSON (see the module notes)."""
    import json

    from geosite import terrain
    from geosite.io.raster import read_dem
    from geosite.testing import inclined_plane

    # load the modules the operation uses (a plane whose contours cross band seams: shapely's line
    # merge, whose first call costs a process about 1 MB, is part of the path)
    warm = inclined_plane(5.0, shape=(64, 64), azimuth_deg=160.0)
    terrain.slope_pct(warm), terrain.contours(warm, interval_ft=1.0, index_every=5)
    write = _write_slope if op == "slope" else _write_lines
    reset_peak()
    t = time.perf_counter()
    dem = read_dem(path, vertical_unit)
    got = _op(op, dem)
    write(got, dem, Path(out))
    res = {"seconds": time.perf_counter() - t, "peak_bytes": peak_bytes(), "cells": dem.elevation_ft.size}
    res["lines"] = len(got) if op != "slope" else 0
    del got
    t = time.perf_counter()
    _op(op, dem)
    res["kernel_s"] = time.perf_counter() - t
    # the heap freed before handed back first (glibc keeps freed pages, and an operation reusing them
    # would look smaller than it is: 31 against 43 MB for the 4 M cone's contours, as GDAL's cache held more)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    rss0 = rss_bytes()
    reset_peak()
    _op(op, dem)
    res["added_bytes"] = peak_bytes() - rss0
    print(json.dumps(res))


def _ours(op: str, path: Path, vertical_unit: str, out: Path) -> dict:
    """One fresh process of ours (:func:`_child`): its JSON."""
    import json

    p = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", op, str(path), vertical_unit, str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(p.stdout.strip().splitlines()[-1])


def _rounds(ops: list[str], peer: list[str] | None, *, repeat: int, pre=None, args=()) -> dict:
    """``repeat`` rounds of our ``ops`` (each a fresh process) and the peer command (after ``pre``),
    taking turns: {op or "peer": [result of each round]}."""
    runs: dict[str, list] = {k: [] for k in [*ops, "peer"]}
    for _ in range(repeat):
        for op in ops:
            runs[op].append(_ours(op, *args))
        if peer:
            if pre:
                pre()
            runs["peer"].append(run_program(peer))
    return runs


def _write_tif(dem: object, path: Path) -> None:
    import rasterio

    z = dem.elevation_ft  # type: ignore[attr-defined]
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        width=z.shape[1],
        height=z.shape[0],
        count=1,
        dtype="float32",
        crs=dem.crs.to_wkt(),
        transform=dem.transform,
        nodata=-9999.0,  # type: ignore[attr-defined]
    ) as ds:
        ds.write(np.where(np.isnan(z), -9999.0, z).astype("float32"), 1)


def _write_slope(slope: np.ndarray, dem: object, path: Path) -> None:
    """Our slope written as gdaldem writes its own: a float32 GeoTIFF with a nodata value."""
    import rasterio

    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        width=slope.shape[1],
        height=slope.shape[0],
        count=1,
        dtype="float32",
        crs=dem.crs.to_wkt(),
        transform=dem.transform,  # type: ignore[attr-defined]
        nodata=-9999.0,
    ) as ds:
        ds.write(np.where(np.isnan(slope), -9999.0, slope).astype("float32"), 1)


def _write_lines(gdf: object, dem: object, path: Path) -> None:
    """Our contours written as gdal_contour writes its own: an ESRI Shapefile (replaced)."""
    import warnings

    import pyogrio

    for f in path.parent.glob(path.stem + ".*"):
        f.unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the field name is laundered to 10 characters, as GDAL's own
        pyogrio.write_dataframe(gdf, path, driver="ESRI Shapefile")


def _dems(quick: bool, tmp: Path) -> list[tuple[str, Path, str]]:
    """(name, GeoTIFF path, vertical unit) of every DEM to run, written to ``tmp``."""
    from geosite import testing

    out = []
    sizes = ["1M"] if quick else list(SIZES)
    for s in sizes:
        rows, cols, relief = SIZES[s]
        p = tmp / f"terrain_{s}.tif"
        _write_tif(testing.rolling_terrain((rows, cols), cell=3.0, relief_ft=relief, seed=1), p)
        out.append((f"terrain {s}", p, "us_ft"))
    shape = (1024, 1024) if quick else (2048, 2048)
    label = "1M" if quick else "4M"
    for name, dem in [
        (f"plane 8% {label}", testing.inclined_plane(8.0, shape=shape, cell=3.0, azimuth_deg=160.0)),
        (f"cone 15% {label}", testing.cone(15.0, shape=shape, cell=3.0)),
    ]:
        p = tmp / (name.split()[0] + ".tif")
        _write_tif(dem, p)
        out.append((name, p, "us_ft"))
    if REAL_DEMS.is_dir():
        for rel in ("minnesota_1m/dem.tif", "virginia_2m/dtm.tif"):
            if (REAL_DEMS / rel).exists():
                out.append((rel.split("/")[0], REAL_DEMS / rel, "m"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="1-million-cell synthetic DEMs and the real ones only"
    )
    ap.add_argument("--repeat", type=int, default=3, help="rounds (medians of them)")
    ap.add_argument("--child", nargs=4, metavar=("OP", "PATH", "VUNIT", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0

    from geosite import terrain

    gdaldem, gdal_contour = shutil.which("gdaldem"), shutil.which("gdal_contour")
    gdalinfo = shutil.which("gdalinfo")  # gdaldem --version exits 1 (GDAL 3.6); gdalinfo's exits 0
    start = median([run_program([gdalinfo, "--version"])[0] for _ in range(5)]) if gdalinfo else float("nan")
    print(
        f"gdaldem: {gdaldem or 'absent'}; gdal_contour: {gdal_contour or 'absent'}; {machine()}; medians "
        f"of {args.repeat} rounds; a GDAL tool's process start (gdalinfo --version): {start * 1000:.0f} ms"
    )
    from geosite.testing import inclined_plane

    warm = inclined_plane(5.0, shape=(20, 20))
    spent = []
    for _ in range(2):  # the first use, then the same calls again: its baseline
        t = time.perf_counter()
        terrain.slope_pct(warm), terrain.hillshade(warm)
        terrain.contours(warm, interval_ft=5.0, index_every=5)
        spent.append(time.perf_counter() - t)
    print(
        f"first use in this process (imports; nothing is compiled): {spent[0]:.2f} s, against "
        f"{spent[1]:.3f} s for the same calls again\n"
    )

    rows_out = []
    with tempfile.TemporaryDirectory(prefix="bench_terrain_") as td:
        tmp = Path(td)
        for name, path, vu in _dems(args.quick, tmp):
            rows_out.append(_bench_slope(name, path, vu, tmp=tmp, repeat=args.repeat, gdaldem=gdaldem))
            rows_out.append(_bench_contours(name, path, vu, tmp=tmp, repeat=args.repeat, tool=gdal_contour))
    _print_rows(rows_out)
    return 0


def _bench_slope(name: str, path: Path, vu: str, *, tmp: Path, repeat: int, gdaldem: str | None) -> dict:
    """The slope row: ours (read + slope + write) against gdaldem, round by round."""
    peer = None
    if gdaldem:
        out = tmp / "slope_out.tif"
        peer = [gdaldem, "slope", "-q", *PEER_CACHE, "-p", "-compute_edges", str(path), str(out)]
    runs = _rounds(["slope"], peer, repeat=repeat, args=(path, vu, tmp / "ours_slope.tif"))
    return {"op": "slope", "name": name, "ours": runs["slope"], "peer": runs["peer"], "peer_name": "gdaldem"}


def _bench_contours(name: str, path: Path, vu: str, *, tmp: Path, repeat: int, tool: str | None) -> dict:
    """The contours row: ours (read + trace + write; raw without smoothing) against gdal_contour."""
    peer = None
    if tool:
        peer = [tool, "-q", *PEER_CACHE, "-i", "5", "-a", "elev", "-f", "ESRI Shapefile"]
        peer += [str(path), str(tmp / "contours.shp")]

    def clean() -> None:
        for f in tmp.glob("contours.*"):
            f.unlink()

    runs = _rounds(
        ["contours", "contours_raw"], peer, repeat=repeat, pre=clean, args=(path, vu, tmp / "ours.shp")
    )
    raw = median([r["seconds"] for r in runs["contours_raw"]])
    op = f"contours ({runs['contours'][0]['lines']} lines; raw {raw:.3f} s)"
    return {
        "op": op,
        "name": name,
        "ours": runs["contours"],
        "peer": runs["peer"],
        "peer_name": "gdal_contour",
    }


def _print_rows(rows_out: list[dict]) -> None:
    head = (
        f"{'operation':<38} {'DEM':<16} {'cells':>10} {'ours s':>7} {'kernel s':>8} {'GDAL s':>7} "
        f"{'ratio':>6} {'ours MB':>8} {'GDAL MB':>8} {'ratio':>6} {'DEM MB':>7} {'+MB':>5} {'B/cell':>6}"
    )
    print(head)
    print("-" * len(head))
    for row in rows_out:
        ours, peer = row["ours"], row["peer"]
        cells = ours[0]["cells"]
        secs = median([r["seconds"] for r in ours])
        mb = median([r["peak_bytes"] for r in ours]) / 2**20
        added = median([r["added_bytes"] for r in ours])
        if peer:
            ps, pmb = median([p[0] for p in peer]), median([p[1] for p in peer]) / 2**20
            tr = paired_ratio([r["seconds"] for r in ours], [p[0] for p in peer])
            mr = paired_ratio([r["peak_bytes"] for r in ours], [p[1] for p in peer]) if pmb else float("nan")
        else:
            ps = pmb = tr = mr = float("nan")
        print(
            f"{row['op']:<38} {row['name']:<16} {cells:>10,} {secs:>7.3f} "
            f"{median([r['kernel_s'] for r in ours]):>8.3f} {ps:>7.3f} {tr:>6.2f} {mb:>8.0f} {pmb:>8.0f} "
            f"{mr:>6.2f} {cells * 8 / 2**20:>7.0f} {added / 2**20:>5.0f} {added / cells:>6.1f}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
