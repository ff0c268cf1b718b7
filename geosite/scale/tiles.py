"""Whole-DEM slope and steep-slope screening in tiles, for DEMs too big to hold (a county's LiDAR).

:func:`screen_steep_slopes` reads the DEM (GeoTIFF, COG, or a VRT mosaic of many tiles) one tile at a
time with a one-cell halo, computes Horn's slope with :func:`geosite.terrain.slope_pct` on the tile,
and keeps only the tile's own cells. The numbers are the ones ``terrain.slope_pct`` gives on the whole
DEM held in memory, bit for bit:

* a cell's slope depends only on its 3x3 neighbourhood, which the halo supplies;
* at the DEM's own edge the tile has no halo there, so ``slope_pct``'s ``-compute_edges`` padding
  (``2 a - b`` from the two nearest rows/columns, diagonal at the DEM corners) is built from the same
  cells as on the whole grid; a tile edge inside the DEM always has a real halo, so the padding the
  kernel puts there (beyond the halo) is never used;
* nodata holes are NaN in the tile as in the whole grid, so a tile boundary through a hole changes
  nothing (missing neighbours are replaced by the centre cell either way).

Memory is bounded by the tile size (two tiles in flight, about 5 float64 tile-sized arrays each:
350 MB at 2048) whatever the DEM
size. Results go to tiled, compressed (ZSTD) GeoTIFFs (the slope and/or a steep class mask), and the steep
area totals come back as a :class:`Screening`. Tiles can run on a Dask cluster (``client=``); the
writing stays in this process, with a bounded number of tiles in flight.

The mask is per cell (``slope >= threshold``, with :data:`geosite.terrain.SLOPE_TOLERANCE_PCT`); the
minimum mapping unit of :func:`geosite.terrain.steep_class_grid` joins cells across tiles and is not
applied here (screening finds where to look; a site's analysis applies it on its own window).
"""

from __future__ import annotations

import math
import os
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from geosite.units import SQFT_PER_ACRE

#: Value of the steep mask where the DEM has no height.
MASK_NODATA = 255


@dataclass
class Screening:
    """Totals of a whole-DEM screening.

    Attributes
    ----------
    thresholds_pct : the thresholds, ascending.
    shape : (rows, cols) of the DEM.
    cell_area_sqft : area of one cell, sq ft.
    valid_cells : cells with a height.
    steep_cells : per threshold, cells with slope at or above it.
    max_slope_pct : steepest cell (NaN when no cell has a slope).
    tiles : how many tiles were computed.
    files : the GeoTIFFs written.
    """

    thresholds_pct: list[float]
    shape: tuple[int, int]
    cell_area_sqft: float
    valid_cells: int = 0
    steep_cells: dict[float, int] = field(default_factory=dict)
    max_slope_pct: float = math.nan
    tiles: int = 0
    files: list[Path] = field(default_factory=list)

    @property
    def steep_area_sqft(self) -> dict[float, float]:
        """Steep area per threshold, sq ft."""
        return {t: n * self.cell_area_sqft for t, n in self.steep_cells.items()}

    @property
    def steep_area_acres(self) -> dict[float, float]:
        """Steep area per threshold, acres."""
        return {t: a / SQFT_PER_ACRE for t, a in self.steep_area_sqft.items()}

    @property
    def valid_area_sqft(self) -> float:
        """Area with heights, sq ft."""
        return self.valid_cells * self.cell_area_sqft


def tile_windows(rows: int, cols: int, tile: int) -> Iterator[tuple[int, int, int, int]]:
    """(row_off, col_off, height, width) of each tile, row by row."""
    for r0 in range(0, rows, tile):
        for c0 in range(0, cols, tile):
            yield r0, c0, min(tile, rows - r0), min(tile, cols - c0)


def slope_tile(
    path: str | Path,
    vertical_unit: str,
    window: tuple[int, int, int, int],
    thresholds: Sequence[float] = (),
    want_slope: bool = True,
    *,
    want_mask: bool = True,
) -> dict[str, Any]:
    """Slope of one tile of the DEM at ``path``, read with a one-cell halo (where the DEM has one).

    Returns a dict: ``window``; ``slope`` (float64, the tile's cells) if asked; ``mask`` (uint8: the
    number of thresholds met, :data:`MASK_NODATA` without height) if asked; ``valid``, ``steep`` (a
    count per threshold) and ``max`` (steepest slope, NaN if none). Runs anywhere (a Dask worker too).
    """
    import rasterio
    from rasterio.windows import Window

    from geosite.grid import Dem
    from geosite.io.raster import read_heights
    from geosite.scale._kernels import tile_stats
    from geosite.terrain import SLOPE_TOLERANCE_PCT, slope_pct

    r0, c0, h, w = window
    with rasterio.open(path) as src:
        rr0, cc0 = max(r0 - 1, 0), max(c0 - 1, 0)
        rr1, cc1 = min(r0 + h + 1, src.height), min(c0 + w + 1, src.width)
        halo = Window(cc0, rr0, cc1 - cc0, rr1 - rr0)
        z = read_heights(src, halo)
        dem = Dem.from_array(
            z, src.window_transform(halo), src.crs, vertical_unit, source=str(path), copy=False
        )
    s = slope_pct(dem)[r0 - rr0 : r0 - rr0 + h, c0 - cc0 : c0 - cc0 + w]
    del dem, z
    # the mask's rule, s >= t - SLOPE_TOLERANCE_PCT, as in terrain.steep_class_grid (before its cleaning)
    lowered = np.array([t - SLOPE_TOLERANCE_PCT for t in thresholds], dtype=np.float64)
    mask = np.empty(s.shape, dtype=np.uint8) if want_mask else np.empty((1, 1), dtype=np.uint8)
    valid, top, steep = tile_stats(s, lowered, mask, want_mask, MASK_NODATA)
    out: dict[str, Any] = {
        "window": window,
        "valid": int(valid),
        "max": float(top) if valid else math.nan,
        "steep": [int(n) for n in steep],
    }
    if want_mask:
        out["mask"] = mask
    if want_slope:
        out["slope"] = np.ascontiguousarray(s)
    return out


#: Compression of the outputs: ZSTD level 1 writes a float slope about 3.5x faster than DEFLATE
#: (measured: 25 M float32 cells in 0.39 s against 1.39 s) for the same size; "deflate" for
#: software older than GDAL 2.3.
COMPRESS: dict[str, dict[str, Any]] = {
    "zstd": {"compress": "zstd", "zstd_level": 1},
    "deflate": {"compress": "deflate"},
    "lzw": {"compress": "lzw"},
}


def _profile(src: Any, dtype: str, nodata: float, block: int, compress: str) -> dict[str, Any]:
    return {
        "driver": "GTiff",
        "width": src.width,
        "height": src.height,
        "count": 1,
        "dtype": dtype,
        "crs": src.crs,
        "transform": src.transform,
        "nodata": nodata,
        "tiled": True,
        "blockxsize": block,
        "blockysize": block,
        **COMPRESS[compress],
        "predictor": 3 if dtype.startswith("float") else 2,
        "bigtiff": "if_safer",
        "num_threads": "all_cpus",
    }


def screen_steep_slopes(
    path: str | Path,
    vertical_unit: str,
    *,
    threshold_pct: float | Sequence[float],
    tile: int = 2048,
    slope_out: str | Path | None = None,
    mask_out: str | Path | None = None,
    slope_dtype: str = "float32",
    compress: str = "zstd",
    overwrite: bool = False,
    client: Any = None,
    progress: bool = False,
) -> Screening:
    """Slope and steep-slope screening of a whole DEM, one tile at a time.

    Parameters
    ----------
    path : str or Path
        The DEM (any raster GDAL reads: GeoTIFF, COG, VRT mosaic), in a projected CRS.
    vertical_unit : str
        The unit of its heights: ``us_ft``, ``ft`` or ``m`` (never guessed).
    threshold_pct : float or sequence of float
        One slope threshold in percent, or several (the mask then holds the number of thresholds met):
        the profile's ``[terrain] steep_slope_pct`` (and ``state_steep_slope_pct``), through
        ``profile.required("terrain", "steep_slope_pct")``.
    tile : int
        Tile side in cells (memory grows with its square); the default, 2048, is geosite's choice, not
        the ordinance's.
    slope_out : str or Path, optional
        GeoTIFF for the slope in percent (``slope_dtype``, NaN nodata), tiled and compressed.
    mask_out : str or Path, optional
        GeoTIFF for the steep class (uint8: 0 below every threshold, k at or above the k-th, 255 no
        height), tiled and compressed.
    slope_dtype : {"float32", "float64"}
        ``float32`` (half the size) or ``float64`` (exactly ``terrain.slope_pct``'s numbers).
    compress : {"zstd", "deflate", "lzw"}
        ``zstd`` (level 1, fastest), ``deflate`` or ``lzw`` (with a floating-point predictor).
    overwrite : bool
        Replace existing outputs (otherwise refused).
    client : distributed.Client, optional
        A Dask client to compute the tiles on (each worker reads its tiles from ``path``, which it must
        see); None computes them here.
    progress : bool
        Show a tqdm bar on stderr.

    Returns
    -------
    Screening
        Totals: valid cells, steep cells and areas per threshold, steepest slope, files written.
    """
    from geosite.terrain import steep_thresholds
    from geosite.units import parse_vertical_unit

    path = Path(path)
    vu = parse_vertical_unit(vertical_unit, where=f"DEM {path}")
    ts = steep_thresholds(threshold_pct)
    outs = [Path(p) for p in (slope_out, mask_out) if p is not None]
    _check_screening(path, tile, compress, slope_dtype, outs, overwrite=overwrite)
    tmp = {p: p.with_name(f".{p.name}.tmp-{os.getpid()}") for p in outs}
    with _open_north_up(path) as (src, fpu):
        t = src.transform
        result = Screening(
            ts, (src.height, src.width), (abs(t.a) * fpu) * (abs(t.e) * fpu), steep_cells=dict.fromkeys(ts, 0)
        )
        block = min(512 if tile % 512 == 0 else 256 if tile % 256 == 0 else 16 * max(tile // 256, 1), 512)
        outputs = {"slope": (slope_out, slope_dtype, float("nan")), "mask": (mask_out, "uint8", MASK_NODATA)}
        with _temporary_outputs(src, outputs, tmp, block=block, compress=compress) as dsts:
            windows = list(tile_windows(src.height, src.width, tile))
            for part in _run_tiles(
                str(path),
                vu.value,
                windows,
                ts,
                "slope" in dsts,
                want_mask="mask" in dsts,
                client=client,
                progress=progress,
            ):
                _absorb(result, part, dsts, slope_dtype)
    for final, p in tmp.items():
        os.replace(p, final)
        result.files.append(final)
    return result


@contextmanager
def _temporary_outputs(
    src: Any,
    outputs: dict[str, tuple[str | Path | None, str, float]],
    tmp: dict[Path, Path],
    *,
    block: int,
    compress: str,
) -> Iterator[dict[str, Any]]:
    """The outputs asked for (key -> (path or None, dtype, nodata)) open for writing on ``src``'s grid
    under their temporary names (``tmp``: final -> temporary), tiled in ``block`` cells; closed when done,
    and closed and deleted when the work fails.
    """
    import rasterio

    dsts = {}
    try:
        for key, (out, dtype, nodata) in outputs.items():
            if out is not None:
                profile = _profile(src, dtype, nodata, block, compress)
                dsts[key] = rasterio.open(tmp[Path(out)], "w", **profile)
        yield dsts
    except BaseException:
        for d in dsts.values():
            d.close()
        for p in tmp.values():
            p.unlink(missing_ok=True)
        raise
    for d in dsts.values():
        d.close()


def _check_screening(
    path: Path, tile: int, compress: str, slope_dtype: str, outs: list[Path], *, overwrite: bool
) -> None:
    """The arguments of :func:`screen_steep_slopes` checked before any work (InputError and kin)."""
    from geosite.errors import InputError, MissingInputError, OutputError

    if tile < 16:
        raise InputError(f"tile must be at least 16 cells, got {tile}")
    if compress not in COMPRESS:
        raise InputError(f"compress must be one of {', '.join(COMPRESS)}, got {compress!r}")
    if slope_dtype not in ("float32", "float64"):
        raise InputError(f"slope_dtype must be float32 or float64, got {slope_dtype!r}")
    if not path.exists():
        raise MissingInputError(f"DEM {path}: file not found")
    for p in outs:
        if p.exists() and not overwrite:
            raise OutputError(f"{p} exists; pass overwrite=True to replace it")


@contextmanager
def _open_north_up(path: Path) -> Iterator[tuple[Any, float]]:
    """The DEM at ``path`` open (rasterio), and feet per unit of its CRS; refused (CRSError and kin)
    without a CRS or when not north-up.
    """
    import rasterio
    from pyproj import CRS

    from geosite.errors import CRSError, UnreadableInputError
    from geosite.units import feet_per_crs_unit

    try:
        src = rasterio.open(path)
    except rasterio.errors.RasterioIOError as exc:
        raise UnreadableInputError(f"DEM {path}: cannot be read as a raster ({exc})") from exc
    with src:
        if src.crs is None:
            raise CRSError(f"DEM {path}: has no CRS; assign one before use")
        fpu = feet_per_crs_unit(CRS.from_user_input(src.crs), f"DEM {path}")
        t = src.transform
        if t.b != 0 or t.d != 0 or t.a <= 0 or t.e >= 0:
            raise CRSError(f"DEM {path}: must be north-up, not rotated (transform {tuple(t)[:6]})")
        yield src, fpu


def _absorb(result: Screening, part: dict[str, Any], dsts: dict[str, Any], slope_dtype: str) -> None:
    from rasterio.windows import Window

    r0, c0, h, w = part["window"]
    win = Window(c0, r0, w, h)
    if "slope" in dsts:
        dsts["slope"].write(part["slope"].astype(slope_dtype, copy=False), 1, window=win)
    if "mask" in dsts:
        dsts["mask"].write(part["mask"], 1, window=win)
    result.tiles += 1
    result.valid_cells += part["valid"]
    for t, n in zip(result.thresholds_pct, part["steep"], strict=True):
        result.steep_cells[t] += n
    if part["valid"] and not (part["max"] <= result.max_slope_pct):
        result.max_slope_pct = part["max"]


def _run_tiles(
    path: str,
    vu: str,
    windows: list[tuple[int, int, int, int]],
    ts: list[float],
    want_slope: bool,
    *,
    want_mask: bool,
    client: Any,
    progress: bool,
    threads: int = 2,
) -> Iterator[dict[str, Any]]:
    """Tile results in window order (here, ``threads`` tiles in flight on a thread pool), or in
    completion order from a Dask cluster with at most 2 per worker in flight: either way memory stays
    bounded however many tiles there are.
    """
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(windows), unit="tile", desc="slope tiles")
    job = _TileJob(path, vu, ts, want_slope, want_mask)
    try:
        parts = (
            _tiles_here(job, windows, threads) if client is None else _tiles_on_cluster(job, windows, client)
        )
        with closing(parts):  # an early stop ends the pool or the cluster's tasks here, not at collection
            for part in parts:
                yield part
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()


class _TileJob(NamedTuple):
    """What each tile's :func:`slope_tile` is given besides its window."""

    path: str
    vu: str
    ts: list[float]
    want_slope: bool
    want_mask: bool


def _tiles_here(
    job: _TileJob, windows: list[tuple[int, int, int, int]], threads: int
) -> Generator[dict[str, Any], None, None]:
    """Tile results in window order, ``threads`` tiles in flight on a thread pool: one is read (GDAL
    releases the GIL) while the other is computed, and both while the caller writes the previous one.
    """
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="geosite-tile") as pool:
        pending = iter(windows)
        queue = deque(
            pool.submit(slope_tile, job.path, job.vu, w, job.ts, job.want_slope, want_mask=job.want_mask)
            for w in _take(pending, threads)
        )
        while queue:
            part = queue.popleft().result()
            for w in _take(pending, 1):
                queue.append(
                    pool.submit(
                        slope_tile, job.path, job.vu, w, job.ts, job.want_slope, want_mask=job.want_mask
                    )
                )
            yield part


def _tiles_on_cluster(
    job: _TileJob, windows: list[tuple[int, int, int, int]], client: Any
) -> Generator[dict[str, Any], None, None]:
    """Tile results in completion order from a Dask cluster, at most 2 per worker in flight."""
    from distributed import as_completed

    def submit(w: tuple[int, int, int, int]) -> Any:
        """One tile's task on the cluster."""
        return client.submit(
            slope_tile, job.path, job.vu, w, job.ts, job.want_slope, want_mask=job.want_mask, pure=False
        )

    limit = max(2 * len(client.scheduler_info().get("workers", {})), 2)
    pending = iter(windows)
    running = as_completed([submit(w) for w in _take(pending, limit)])
    for fut in running:
        part = fut.result()
        fut.release()
        for w in _take(pending, 1):
            running.add(submit(w))
        yield part


def _take(it: Iterator[Any], n: int) -> list[Any]:
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


def _tiles_on_one_grid(tiles: Sequence[str | Path]) -> list[tuple]:
    """Each tile's (path, transform, width, height, CRS, dtype, nodata, block shape); InputError when
    there is none or one is not on the first's grid.
    """
    import rasterio

    from geosite.errors import InputError

    metas = []
    for p in tiles:
        with rasterio.open(p) as s:
            metas.append(
                (Path(p), s.transform, s.width, s.height, s.crs, s.dtypes[0], s.nodata, s.block_shapes[0])
            )
    if not metas:
        raise InputError("build_vrt: no tiles")
    t0, crs, dtype, nodata = metas[0][1], metas[0][4], metas[0][5], metas[0][6]
    for p, t, _, _, c, d, nd, _ in metas:
        if (t.a, t.e) != (t0.a, t0.e) or c != crs or d != dtype or nd != nodata or t.b or t.d:
            raise InputError(
                f"build_vrt: {p} is not on the grid of {metas[0][0]} (cell size, CRS, dtype, nodata)"
            )
    return metas


def build_vrt(tiles: Sequence[str | Path], vrt_path: str | Path) -> Path:
    """A VRT mosaic of single-band GeoTIFF tiles on one grid (same CRS, cell size, dtype, nodata),
    written as XML (no GDAL command-line tools needed); source paths relative to the VRT when they
    can be.
    """
    import xml.etree.ElementTree as ET

    vrt_path = Path(vrt_path)
    metas = _tiles_on_one_grid(tiles)
    t0, crs, dtype, nodata = metas[0][1], metas[0][4], metas[0][5], metas[0][6]
    left = min(t.c for _, t, *_ in metas)
    top = max(t.f for _, t, *_ in metas)
    right = max(t.c + w * t.a for _, t, w, *_ in metas)
    bottom = min(t.f + h * t.e for _, t, _, h, *_ in metas)
    width = round((right - left) / t0.a)
    height = round((bottom - top) / t0.e)
    gdal_type = {
        "float32": "Float32",
        "float64": "Float64",
        "int16": "Int16",
        "int32": "Int32",
        "uint16": "UInt16",
        "uint8": "Byte",
    }[dtype]
    root = ET.Element("VRTDataset", rasterXSize=str(width), rasterYSize=str(height))
    ET.SubElement(root, "SRS").text = crs.to_wkt()
    ET.SubElement(root, "GeoTransform").text = ", ".join(repr(v) for v in (left, t0.a, 0.0, top, 0.0, t0.e))
    band = ET.SubElement(root, "VRTRasterBand", dataType=gdal_type, band="1")
    if nodata is not None:
        ET.SubElement(band, "NoDataValue").text = repr(float(nodata))
    base = vrt_path.parent.resolve()
    for p, t, w, h, _, _, _, (by, bx) in metas:
        col = round((t.c - left) / t0.a)
        row = round((t.f - top) / t0.e)
        rel = os.path.relpath(p.resolve(), base)
        src = ET.SubElement(band, "ComplexSource" if nodata is not None else "SimpleSource")
        ET.SubElement(src, "SourceFilename", relativeToVRT="1").text = rel
        ET.SubElement(src, "SourceBand").text = "1"
        ET.SubElement(
            src,
            "SourceProperties",
            RasterXSize=str(w),
            RasterYSize=str(h),
            DataType=gdal_type,
            BlockXSize=str(bx),
            BlockYSize=str(by),
        )
        ET.SubElement(src, "SrcRect", xOff="0", yOff="0", xSize=str(w), ySize=str(h))
        ET.SubElement(src, "DstRect", xOff=str(col), yOff=str(row), xSize=str(w), ySize=str(h))
        if nodata is not None:
            ET.SubElement(src, "NODATA").text = repr(float(nodata))
    vrt_path.write_text(ET.tostring(root, encoding="unicode"), encoding="utf-8")
    return vrt_path


__all__ = ["MASK_NODATA", "Screening", "build_vrt", "screen_steep_slopes", "slope_tile", "tile_windows"]
