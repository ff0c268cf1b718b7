"""Contour lines of a :class:`~geosite.grid.Dem` at the ordinance's interval (5 ft), with index contours,
traced on a lightly smoothed grid (never smoothed as lines, so they cannot cross), in the DEM's CRS.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from geosite.errors import InputError

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem


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
        Float64 heights in feet, ``dem.shape``, NaN where the DEM has none.
    """
    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    return _smooth_rows(z, 0, z.shape[0], int(passes)).copy()


def _smooth_rows(z: np.ndarray, a: int, b: int, passes: int) -> np.ndarray:
    """Rows ``a`` to ``b - 1`` of :func:`smooth_elevation`, from only the rows they depend on (one more
    each side per pass), so a band of a large grid is smoothed without smoothing the whole grid.
    """
    if passes <= 0:
        return z[a:b]
    from geosite.terrain import _kernels as k

    s, e = max(a - 1, 0), min(b + 1, z.shape[0])
    p = k.pad_extrapolate(np.ascontiguousarray(_smooth_rows(z, s, e, passes - 1)))
    # p's row j is the padded grid's row s + j (its first and last rows, extrapolated from this band
    # alone, are the padded grid's only at the grid's edges, which is where they are used)
    return k.binomial_smooth(p[a - s : b - s + 2])


#: The most contour levels a DEM is traced at (a 50,000 ft range at 0.5 ft): more means heights no
#: terrain has, refused with an InputError rather than traced.
MAX_CONTOUR_LEVELS = 100_000
#: Cells per band of rows traced at once: at most _BAND_CELLS, at most a sixteenth of the grid (a band's
#: smoothed heights and the tracer's numbering take about 50 bytes a cell, so the bands add about 3 bytes
#: a cell of the grid at most), at least _MIN_BAND_ROWS rows. Each band seam cuts the lines crossing it,
#: joined again afterwards: more, shorter bands, more to join (measured: 2**17 cells is as fast as one band
#: on a 16 M-cell DEM; 2**14 is 20 % slower).
_BAND_CELLS = 1 << 17
_MIN_BAND_ROWS = 8


def _band_rows(rows: int, cols: int) -> int:
    """Rows from one band's first row to the next band's (the bands share that row)."""
    cells = min(_BAND_CELLS, rows * cols // 16)
    return max(cells // max(cols, 1), _MIN_BAND_ROWS)


def _trace(z: np.ndarray, interval: float, passes: int, step: int) -> dict[int, list[tuple]]:
    """Trace every level in bands of ``step`` rows (consecutive bands share their edge row), each band
    smoothed from only the rows it depends on and traced in one pass for all its levels
    (:func:`geosite.terrain._contour_kernels.contour_band`). Returns, per level multiple k,
    (vertices, offsets) per band: (col, row) vertices of its lines in the grid, each line
    ``vertices[offsets[i]:offsets[i + 1]]``.
    """
    from geosite.terrain import _contour_kernels as ck

    rows = z.shape[0]
    out: dict[int, list[tuple]] = {}
    for a in range(0, rows - 1, step):
        b = min(a + step, rows - 1) + 1
        band = np.ascontiguousarray(_smooth_rows(z, a, b, passes))
        xy, offs, ks = ck.contour_band(band, float(interval))
        if not ks.size:
            continue
        xy[:, 1] += a  # from the band's first row to the grid's
        cut = np.flatnonzero(np.diff(ks)) + 1  # the lines come in increasing level
        for i, j in zip(
            np.concatenate(([0], cut)).tolist(), np.concatenate((cut, [ks.size])).tolist(), strict=True
        ):
            o = offs[i : j + 1]
            out.setdefault(int(ks[i]), []).append((xy[o[0] : o[-1]], o - o[0]))
    return out


def _join(per_level: dict[int, list[tuple]], step: int, rows: int, t) -> tuple[np.ndarray, np.ndarray]:
    """Every level's lines, those cut at band seams (rows ``step``, ``2 * step``, ...) joined back into
    whole lines, in increasing level order (each level's uncut lines in tracing order, then its joined
    ones): the level multiple k of each line and the lines (shapely LineStrings, in CRS coordinates by
    the DEM's transform ``t``, through cell centres). A few whole-array operations and one shapely
    ``line_merge`` for every level; empties ``per_level``. The lines are made from the vertices once
    and put in order as geometries: copying the joined lines' vertices back out to order them with
    the rest, then making every line again, took a 4 M-cell cone's contours to 44 MB, against 34 MB.
    """
    import shapely

    levels = np.array(sorted(per_level), dtype=np.int64)
    nlev = len(levels)
    per_k = [len(per_level[kk]) for kk in levels.tolist()]
    pieces = [pc for kk in levels.tolist() for pc in per_level.pop(kk)]
    nlines = np.array([len(o) - 1 for _, o in pieces], dtype=np.int64)
    v = np.concatenate([p for p, _ in pieces])
    # a vertex on a seam is computed from the same two heights in both bands (the smoothing of a row
    # depends only on its neighbours), so the two copies of it are equal to the bit, and stay so below
    counts = np.delete(np.diff(np.concatenate([o for _, o in pieces])), np.cumsum(nlines + 1)[:-1] - 1)
    del pieces
    lvl = np.repeat(np.repeat(np.arange(nlev), per_k), nlines)  # each line's level (its index in levels)
    ends = np.cumsum(counts)
    on = np.zeros(len(counts), dtype=bool)
    for y in (v[ends - counts, 1], v[ends - 1, 1]):
        on |= (y % step == 0) & (y > 0) & (y < rows - 1)
    on &= np.bincount(lvl, minlength=nlev)[lvl] > 1  # a level's only line is never cut
    ncut = np.bincount(lvl[on], minlength=nlev)
    merge = on & (ncut[lvl] > 1)  # a level's only cut line is kept as it is

    def to_crs(xy: np.ndarray) -> np.ndarray:
        """Cell (col, row) -> CRS (x, y) at the cell centre, in place."""
        xy[:, 0] = (xy[:, 0] + 0.5) * t.a + t.c
        xy[:, 1] = (xy[:, 1] + 0.5) * t.e + t.f
        return xy

    def lines(xy: np.ndarray, n: np.ndarray) -> np.ndarray:
        """LineStrings of ``n`` vertices each from the vertices ``xy``, in order."""
        offsets = np.zeros(len(n) + 1, dtype=np.int64)
        np.cumsum(n, out=offsets[1:])
        return shapely.from_ragged_array(shapely.GeometryType.LINESTRING, xy, (offsets,))

    if not merge.any():
        return levels[lvl], lines(to_crs(v), counts)
    keep_v = np.repeat(~merge, counts)
    own = lines(to_crs(np.compress(keep_v, v, axis=0)), counts[~merge])
    cat = np.compress(~keep_v, v, axis=0)
    del v, keep_v
    # joined in grid coordinates, then moved to the CRS: line_merge picks a joined line's start and
    # direction by its coordinates, and in the CRS (rows' axis flipped) it would pick others
    merged_lvls, group = np.unique(lvl[merge], return_inverse=True)
    joined = shapely.line_merge(shapely.multilinestrings(lines(cat, counts[merge]), indices=group))
    del cat
    joined, which = shapely.get_parts(joined, return_index=True)
    joined = shapely.transform(joined, to_crs)
    # each level's kept lines, then its joined ones (both in level order already): a stable sort
    line_lvl = np.concatenate([lvl[~merge], merged_lvls[which]])
    order = np.argsort(line_lvl, kind="stable")
    return levels[line_lvl[order]], np.concatenate([own, joined])[order]


def contours(
    dem: Dem,
    *,
    interval_ft: float,
    index_every: int,
    smooth: bool | int = True,
) -> gpd.GeoDataFrame:
    """Contour lines of the DEM, in its CRS.

    Lines run through cell centres (marching squares, every level in one pass over bands of rows:
    contourpy's lines exactly, :mod:`geosite.terrain._contour_numba`), skip cells with no height (a
    cell missing one corner is traced as a triangle), and are joined across the bands they are traced
    in. Smoothing, when asked for, is applied to the grid before tracing (:func:`smooth_elevation`),
    never to the lines, so contours cannot cross.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    interval_ft : float
        Contour interval, feet: the profile's ``[terrain] contour_interval_ft`` (the chapter's, e.g.
        Grantsburg plan A(1)(h)'s 5 ft), ``profile.required("terrain", "contour_interval_ft")``.
    index_every : int
        Every ``index_every``-th contour (elevation divisible by ``interval_ft * index_every``) is an
        index contour: the profile's ``[terrain] index_contour_every``.
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

    if not (interval_ft > 0 and math.isfinite(interval_ft)):
        raise InputError(f"contour interval must be a positive number of feet, got {interval_ft}")
    if int(index_every) < 1:
        raise InputError(f"index_every must be a positive integer, got {index_every}")
    passes = int(smooth)
    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    rows, cols = z.shape
    if rows < 2 or cols < 2:
        return _no_contours(dem)
    iv = float(interval_ft)
    z, lo, hi = _height_range(z)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return _no_contours(dem)
    _check_levels(dem, lo, hi, iv)
    step = _band_rows(rows, cols)
    per_level = _trace(z, iv, passes, step)
    if not per_level:
        return _no_contours(dem)
    k_of_line, geoms = _join(per_level, step, rows, dem.transform)
    return gpd.GeoDataFrame(
        {"elevation_ft": k_of_line * iv, "index": k_of_line % int(index_every) == 0},
        geometry=geoms,
        crs=dem.crs,
    )


def _height_range(z: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The heights ``z`` (feet) with infinities as no height (as read_dem has them), and their lowest and
    highest (NaN for a grid with none).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN grid: NaN, an empty answer
        lo, hi = float(np.nanmin(z)), float(np.nanmax(z))
        if np.isinf(lo) or np.isinf(hi):  # an infinite height is no height (as read_dem has it)
            z = np.where(np.isinf(z), np.nan, z)
            lo, hi = float(np.nanmin(z)), float(np.nanmax(z))
    return z, lo, hi


def _check_levels(dem: Dem, lo: float, hi: float, iv: float) -> None:
    """InputError when heights from ``lo`` to ``hi`` (feet) need more contours at ``iv`` feet than
    :data:`MAX_CONTOUR_LEVELS`, or level numbers past exact integers.
    """
    # heights no terrain has (an undeclared nodata value such as float32's 3.4e38, a wrong vertical unit)
    # would ask the tracer for more levels than memory holds, or level numbers past exact integers
    levels = (hi - lo) / iv
    if levels > MAX_CONTOUR_LEVELS or max(abs(lo), abs(hi)) / iv > 2.0**50:
        raise InputError(
            f"DEM {dem.source}: heights from {lo:,.6g} to {hi:,.6g} ft would need {levels:,.6g} "
            f"contours at {iv:g} ft (at most {MAX_CONTOUR_LEVELS:,}); check the DEM's nodata value "
            "and vertical unit"
        )


def _no_contours(dem: Dem) -> gpd.GeoDataFrame:
    """The empty answer of :func:`contours`: its columns, no lines, in the DEM's CRS."""
    import geopandas as gpd

    return gpd.GeoDataFrame(
        {"elevation_ft": np.zeros(0), "index": np.zeros(0, dtype=bool)}, geometry=[], crs=dem.crs
    )
