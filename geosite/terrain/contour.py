"""Contour lines of a :class:`~geosite.grid.Dem` at the ordinance's interval (5 ft), with index contours,
traced on a lightly smoothed grid (never smoothed as lines, so they cannot cross), in the DEM's CRS."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from geosite.errors import InputError

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem

_CONTOUR_TILE = 128  # cells per side of the tiles contours are traced in (see contours())



def smooth_elevation(dem: Dem, passes: int = 1) -> np.ndarray:
    """Heights after ``passes`` passes of a 3x3 binomial filter (about a 0.7-cell Gaussian each).

    NaN-aware (missing cells stay missing and give no weight); grid edges use the linear extrapolation
    of :func:`slope_pct`, so a plane comes out unchanged everywhere.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    passes : int
        Number of passes (0 returns a copy of the heights).

    Returns
    -------
    numpy.ndarray
        float64 heights in feet, ``dem.shape``, NaN where the DEM has none.
    """
    from geosite.terrain import _kernels as k

    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    for _ in range(int(passes)):
        z = k.binomial_smooth(k.pad_extrapolate(z))
    return z


def _contour_tiles(z: np.ndarray, levels: np.ndarray, tile: int) -> dict[int, list[np.ndarray]]:
    """Trace contours tile by tile (tiles share their edge rows/columns), only for the levels inside
    each tile's height range: contourpy's cost grows with levels x cells, so this cuts it to about
    (levels per tile) x cells. Returns, per level index, arrays of (col, row) vertices."""
    import contourpy

    rows, cols = z.shape
    out: dict[int, list[np.ndarray]] = {}
    for r0 in range(0, max(rows - 1, 1), tile):
        r1 = min(r0 + tile, rows - 1)
        for c0 in range(0, max(cols - 1, 1), tile):
            c1 = min(c0 + tile, cols - 1)
            sub = z[r0 : r1 + 1, c0 : c1 + 1]
            finite = np.isfinite(sub)
            if not finite.any():
                continue
            lo, hi = (np.min(sub), np.max(sub)) if finite.all() else (np.min(sub[finite]), np.max(sub[finite]))
            first = int(np.searchsorted(levels, lo, side="left"))
            last = int(np.searchsorted(levels, hi, side="right"))
            if first >= last:
                continue
            gen = contourpy.contour_generator(z=sub, name="serial", line_type="ChunkCombinedOffset")
            for li in range(first, last):
                pts, offs = gen.lines(levels[li])
                p = pts[0]
                if p is None or len(p) == 0:
                    continue
                # contourpy interpolates both coordinates along an edge, so a vertex on a seam may be a
                # last bit off it (95.99999999999999); rounding to 1e-8 cell puts both tiles' copies of a
                # seam vertex on the same point
                p = np.round(p + (c0, r0), 8)
                o = offs[0]
                out.setdefault(li, []).extend(np.split(p, o[1:-1]))
    return out


def _merge_at_seams(pieces: list[np.ndarray], tile: int, rows: int, cols: int) -> list[np.ndarray]:
    """Join the pieces of one level that were cut at tile seams back into whole lines."""
    import shapely

    if len(pieces) == 1:
        return pieces

    def on_seam(pt: np.ndarray) -> bool:
        x, y = pt
        return (x % tile == 0 and 0 < x < cols - 1) or (y % tile == 0 and 0 < y < rows - 1)

    keep, cut = [], []
    for p in pieces:
        (cut if on_seam(p[0]) or on_seam(p[-1]) else keep).append(p)
    if len(cut) > 1:
        counts = [len(p) for p in cut]
        lines = shapely.linestrings(np.concatenate(cut), indices=np.repeat(np.arange(len(cut)), counts))
        merged = shapely.line_merge(shapely.multilinestrings(lines))
        parts = shapely.get_parts(merged)
        keep.extend(shapely.get_coordinates(g) for g in parts)
    else:
        keep.extend(cut)
    return keep


def contours(
    dem: Dem,
    interval_ft: float = 5.0,
    index_every: int = 5,
    smooth: bool | int = True,
) -> gpd.GeoDataFrame:
    """Contour lines of the DEM, in its CRS.

    Lines run through cell centres (marching squares, contourpy), skip cells with no height, and are
    joined across the tiles they are traced in. Smoothing, when asked for, is applied to the grid
    before tracing (:func:`smooth_elevation`), never to the lines, so contours cannot cross.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    interval_ft : float
        Contour interval, feet (the ordinances ask for 5 ft or less).
    index_every : int
        Every ``index_every``-th contour (elevation divisible by ``interval_ft * index_every``) is an
        index contour.
    smooth : bool or int
        ``True`` for one pass of the 3x3 binomial filter, an int for that many passes, ``False`` / 0
        for none. One pass moves contours on real LiDAR by a fraction of a cell and removes the
        cell-scale jitter; a plane is unchanged.

    Returns
    -------
    geopandas.GeoDataFrame
        Columns ``elevation_ft`` (float), ``index`` (bool) and ``geometry`` (LineString; closed where the
        contour closes), ordered by elevation.
    """
    import geopandas as gpd
    import shapely

    if not (interval_ft > 0 and math.isfinite(interval_ft)):
        raise InputError(f"contour interval must be a positive number of feet, got {interval_ft}")
    if int(index_every) < 1:
        raise InputError(f"index_every must be a positive integer, got {index_every}")
    passes = int(smooth)
    z = smooth_elevation(dem, passes) if passes > 0 else np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    rows, cols = z.shape
    empty = gpd.GeoDataFrame(
        {"elevation_ft": np.zeros(0), "index": np.zeros(0, dtype=bool)}, geometry=[], crs=dem.crs
    )
    if rows < 2 or cols < 2 or not np.isfinite(z).any():
        return empty
    zmin, zmax = float(np.nanmin(z)), float(np.nanmax(z))
    k = np.arange(math.ceil(zmin / interval_ft), math.floor(zmax / interval_ft) + 1, dtype=np.int64)
    levels = k * float(interval_ft)
    tile = _CONTOUR_TILE
    per_level = _contour_tiles(z, levels, tile)
    coords, elev, index = [], [], []
    for li in sorted(per_level):
        lines = _merge_at_seams(per_level[li], tile, rows, cols)
        coords.extend(lines)
        elev.extend([levels[li]] * len(lines))
        index.extend([bool(k[li] % int(index_every) == 0)] * len(lines))
    if not coords:
        return empty
    counts = np.fromiter((len(c) for c in coords), dtype=np.int64, count=len(coords))
    xy = np.concatenate(coords)
    t = dem.transform
    x = t.c + (xy[:, 0] + 0.5) * t.a
    y = t.f + (xy[:, 1] + 0.5) * t.e
    geoms = shapely.linestrings(np.column_stack([x, y]), indices=np.repeat(np.arange(len(coords)), counts))
    return gpd.GeoDataFrame(
        {"elevation_ft": np.asarray(elev, dtype=np.float64), "index": np.asarray(index, dtype=bool)},
        geometry=geoms,
        crs=dem.crs,
    )
