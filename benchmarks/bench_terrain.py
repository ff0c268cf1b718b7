"""Benchmark geosite.terrain against GDAL (and richdem when importable), with the same I/O on both sides.

    .venv/bin/python benchmarks/bench_terrain.py [--quick] [--repeat N]

DEMs: deterministic synthetic glacial terrain (geosite.testing.rolling_terrain) of 1, 4 and 16 million
cells, a plane and a cone of 4 million cells, and the real LiDAR DEMs in $GEOSITE_REAL_DEMS (else
../shared/data/real_dems beside the repository) when present. ``--quick`` keeps the 1-million-cell DEMs
and the real ones.

What is timed (best of ``--repeat`` runs, seconds), each side reading the same float32 GeoTIFF and
writing the same kind of file, as a user of either pays:

* slope: ``read_dem`` + ``terrain.slope_pct`` + the slope written as a float32 GeoTIFF (rasterio),
  against ``gdaldem slope -p -compute_edges`` (its output: a float32 GeoTIFF), run as a subprocess,
  and ``richdem.TerrainAttribute(..., "slope_percentage")`` if installed (in memory: "kernel s" is
  ours in memory too).
* contours: ``read_dem`` + ``terrain.contours(interval_ft=5, index_every=5)`` (light smoothing; unsmoothed,
  "raw") + the lines written as an ESRI Shapefile (pyogrio), against ``gdal_contour -i 5`` writing an
  ESRI Shapefile (its fastest output format here; GeoPackage costs it 4x more).

Ours runs in this process, its imports loaded (GDAL's tools start in a few milliseconds); "kernel s"
is the operation alone on the DEM in memory.

Memory: "DEM MB" is the float64 height array; "ours +MB" (and "B/cell") the peak resident memory the
operation adds on top of the loaded DEM (a fresh process: load the modules and the DEM, hand freed
heap back (malloc_trim), reset the peak with /proc/self/clear_refs, run, read VmHWM); "peer MB" the
whole peak RSS of the GDAL process (``/usr/bin/time -f %M``; GDAL streams by blocks, so that is its total).

The ratio column is ours (with I/O) / fastest peer: below 1 we are faster.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from geosite.io.raster import READ_CACHE_MB

HERE = Path(__file__).resolve().parent
#: GDAL's block cache for the peers, as geosite reads with (geosite.io.raster.READ_CACHE_MB): the same I/O
#: on both sides (gdaldem slope of the 16 M DEM: 0.57 s with it, 0.71-0.82 s with GDAL's default 5 % of RAM)
PEER_CACHE = ["--config", "GDAL_CACHEMAX", str(READ_CACHE_MB)]
#: The real DEMs: $GEOSITE_REAL_DEMS, else ../shared/data/real_dems beside the repository (README)
REAL_DEMS = Path(os.environ.get("GEOSITE_REAL_DEMS") or HERE.parents[1] / "shared" / "data" / "real_dems")
SIZES = {"1M": (1024, 1024, 60.0), "4M": (2048, 2048, 120.0), "16M": (4096, 4096, 200.0)}


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _run_peak_mb(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one run of ``cmd``.

    The peak comes from ``/usr/bin/time -f %M``, which forks the command from its own small process:
    a child forked straight from this (large) Python process would inherit its high-water mark.
    The wall time is taken on a separate, unwrapped run."""
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    gnu_time = shutil.which("time") or "/usr/bin/time"
    if not Path(gnu_time).exists():
        return wall, float("nan")
    res = subprocess.run(
        [gnu_time, "-f", "%M", *cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    return wall, int(res.stderr.strip().splitlines()[-1]) / 1024.0


def _time_cmd(cmd: list[str], repeat: int, pre: Callable[[], None] | None = None) -> tuple[float, float]:
    best = float("inf")
    for _ in range(repeat):
        if pre:
            pre()
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t)
    if pre:
        pre()
    return best, _run_peak_mb(cmd)[1]


def _child(op: str, path: str, vertical_unit: str) -> None:
    """Run one operation in this (fresh) process, for the peak-memory measurement."""
    from geosite import terrain
    from geosite.io.raster import read_dem
    from geosite.testing import inclined_plane

    # load the modules the operation uses (a plane whose contours cross band seams: shapely's line
    # merge, whose first call costs a process about 1 MB, is part of the path)
    warm = inclined_plane(5.0, shape=(64, 64), azimuth_deg=160.0)
    terrain.slope_pct(warm), terrain.contours(warm, interval_ft=1.0, index_every=5)
    dem = read_dem(path, vertical_unit)
    status = Path("/proc/self/status")

    def vm(key: str) -> float:
        line = next(ln for ln in status.read_text().splitlines() if ln.startswith(key + ":"))
        return int(line.split()[1]) / 1024.0

    # the heap the read freed handed back first (glibc keeps freed pages, and an operation reusing them
    # would look smaller than it is: 31 against 43 MB for the 4 M cone's contours, as GDAL's cache held more)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    rss0 = vm("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak RSS (VmHWM) to the current RSS
    if op == "slope":
        terrain.slope_pct(dem)
    elif op == "contours":
        terrain.contours(dem, interval_ft=5.0, index_every=5)
    print(f"OP_MB {vm('VmHWM') - rss0:.1f}")


def _op_mb(op: str, path: Path, vertical_unit: str) -> float:
    """Peak memory (MB) one of our operations adds over the loaded DEM, measured in a fresh process."""
    if not Path("/proc/self/clear_refs").exists():
        return float("nan")
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", op, str(path), vertical_unit],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(out.split("OP_MB")[-1])


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


def _write_lines(gdf: object, path: Path) -> None:
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
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best is kept)")
    ap.add_argument("--child", nargs=3, metavar=("OP", "PATH", "VUNIT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0

    from geosite import terrain
    from geosite.io.raster import read_dem

    gdaldem, gdal_contour = shutil.which("gdaldem"), shutil.which("gdal_contour")
    try:
        import richdem  # type: ignore[import-not-found]
    except ImportError:
        richdem = None
    print(
        f"gdaldem: {gdaldem or 'absent'}; gdal_contour: {gdal_contour or 'absent'}; "
        f"richdem: {'yes' if richdem else 'not importable'}; cores: {os.cpu_count()}"
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
            dem = read_dem(path, vu)
            tools = {"gdaldem": gdaldem, "gdal_contour": gdal_contour, "richdem": richdem}
            rows_out.append(_bench_slope(name, dem, path, vu, tmp=tmp, repeat=args.repeat, tools=tools))
            rows_out.append(_bench_contours(name, dem, path, vu, tmp=tmp, repeat=args.repeat, tools=tools))
            del dem
    _print_rows(rows_out)
    return 0


def _bench_slope(name: str, dem, path: Path, vu: str, *, tmp: Path, repeat: int, tools: dict) -> tuple:
    """The slope row: ours (read + slope + write), the kernel alone, memory, gdaldem and richdem."""
    from geosite import terrain
    from geosite.io.raster import read_dem

    cells = dem.elevation_ft.size
    dem_mb = dem.elevation_ft.nbytes / 2**20
    slope_out = tmp / "ours_slope.tif"
    ours = _best(
        lambda d=dem, path=path, vu=vu, slope_out=slope_out: _write_slope(
            terrain.slope_pct(read_dem(path, vu)), d, slope_out
        ),
        repeat,
    )
    kernel = _best(lambda d=dem: terrain.slope_pct(d), repeat)
    ours_mb = _op_mb("slope", path, vu)
    peers: dict[str, tuple[float, float]] = {}
    if tools["gdaldem"]:
        out = tmp / "slope_out.tif"
        peers["gdaldem"] = _time_cmd(
            [tools["gdaldem"], "slope", "-q", *PEER_CACHE, "-p", "-compute_edges", str(path), str(out)],
            repeat,
        )
    richdem = tools["richdem"]
    if richdem:
        arr = richdem.rdarray(np.nan_to_num(dem.elevation_ft, nan=-9999.0), no_data=-9999.0)
        arr.geotransform = dem.transform.to_gdal()
        peers["richdem"] = (
            _best(lambda arr=arr: richdem.TerrainAttribute(arr, attrib="slope_percentage"), repeat),
            float("nan"),
        )
    return ("slope", name, cells, ours, kernel, dem_mb, ours_mb, peers)


def _bench_contours(name: str, dem, path: Path, vu: str, *, tmp: Path, repeat: int, tools: dict) -> tuple:
    """The contours row: ours (read + trace + write; raw without smoothing), the kernel alone, memory,
    gdal_contour."""
    from geosite import terrain
    from geosite.io.raster import read_dem

    shp_ours = tmp / "ours_contours.shp"
    ours = _best(
        lambda path=path, vu=vu, shp_ours=shp_ours: _write_lines(
            terrain.contours(read_dem(path, vu), interval_ft=5.0, index_every=5), shp_ours
        ),
        repeat,
    )
    raw = _best(
        lambda path=path, vu=vu, shp_ours=shp_ours: _write_lines(
            terrain.contours(read_dem(path, vu), interval_ft=5.0, smooth=False, index_every=5), shp_ours
        ),
        repeat,
    )
    kernel = _best(lambda d=dem: terrain.contours(d, interval_ft=5.0, index_every=5), repeat)
    n_lines = len(terrain.contours(dem, interval_ft=5.0, index_every=5))
    ours_mb = _op_mb("contours", path, vu)
    peers: dict[str, tuple[float, float]] = {}
    if tools["gdal_contour"]:
        shp = tmp / "contours.shp"

        def clean(shp: Path = shp) -> None:
            for f in tmp.glob("contours.*"):
                f.unlink()

        cmd = [tools["gdal_contour"], "-q", *PEER_CACHE, "-i", "5", "-a", "elev", "-f", "ESRI Shapefile"]
        peers["gdal_contour"] = _time_cmd([*cmd, str(path), str(shp)], repeat, pre=clean)
    op = f"contours ({n_lines} lines; raw {raw:.3f} s)"
    cells = dem.elevation_ft.size
    return (op, name, cells, ours, kernel, dem.elevation_ft.nbytes / 2**20, ours_mb, peers)


def _print_rows(rows_out: list[tuple]) -> None:
    head = (
        f"{'operation':<38} {'DEM':<16} {'cells':>10} {'ours s':>8} {'kernel s':>8} {'peer':<13} "
        f"{'peer s':>8} "
        f"{'ratio':>6} {'DEM MB':>7} {'ours +MB':>8} {'B/cell':>6} {'peer MB':>8}"
    )
    print(head)
    print("-" * len(head))
    for op, name, cells, ours, kernel, dem_mb, ours_mb, peers in rows_out:
        if peers:
            pname, (ps, pmb) = min(peers.items(), key=lambda kv: kv[1][0])
        else:
            pname, ps, pmb = "-", float("nan"), float("nan")
        print(
            f"{op:<38} {name:<16} {cells:>10,} {ours:>8.3f} {kernel:>8.3f} {pname:<13} {ps:>8.3f} "
            f"{ours / ps:>6.2f} "
            f"{dem_mb:>7.0f} {ours_mb:>8.0f} {ours_mb * 2**20 / cells:>6.1f} {pmb:>8.0f}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
