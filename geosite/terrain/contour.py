"""Contour lines of a :class:`~geosite.grid.Dem` at the ordinance's interval (5 ft), with index contours,
traced on a lightly smoothed grid (never smoothed as lines, so they cannot cross), in the DEM's CRS."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
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
    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    return _smooth_rows(z, 0, z.shape[0], int(passes)).copy()


def _smooth_rows(z: np.ndarray, a: int, b: int, passes: int) -> np.ndarray:
    """Rows ``a`` to ``b - 1`` of :func:`smooth_elevation`, from only the rows they depend on (one more
    each side per pass), so a band of a large grid is smoothed without smoothing the whole grid."""
    if passes <= 0:
        return z[a:b]
    from geosite.terrain import _kernels as k

    s, e = max(a - 1, 0), min(b + 1, z.shape[0])
    p = k.pad_extrapolate(np.ascontiguousarray(_smooth_rows(z, s, e, passes - 1)))
    # p's row j is the padded grid's row s + j (its first and last rows, extrapolated from this band
    # alone, are the padded grid's only at the grid's edges, which is where they are used)
    return k.binomial_smooth(p[a - s : b - s + 2])


def _levels_in(lo: float, hi: float, interval: float) -> np.ndarray:
    """The multiples k of ``interval`` with ``lo <= k * interval <= hi`` (as int64 k)."""
    ks = np.arange(math.floor(lo / interval) - 1, math.ceil(hi / interval) + 2, dtype=np.int64)
    lv = ks * interval
    return ks[(lv >= lo) & (lv <= hi)]


class _Tracer:
    """contourpy's serial generator built directly (its ``contour_generator`` checks every argument
    again for each tile, twice the cost of the tile's construction), on cached index grids."""

    def __init__(self) -> None:
        import contourpy

        self._cls = contourpy.SerialContourGenerator
        self._kw = dict(x_chunk_size=0, y_chunk_size=0, line_type=contourpy.LineType.ChunkCombinedOffset,
                        fill_type=self._cls.default_fill_type, corner_mask=True, quad_as_tri=False,
                        z_interp=contourpy.ZInterp.Linear)
        self._xy: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, sub: np.ndarray, mask: np.ndarray | None):  # noqa: ANN204
        if sub.shape not in self._xy:
            self._xy[sub.shape] = tuple(np.meshgrid(np.arange(sub.shape[1], dtype=np.float64),
                                                    np.arange(sub.shape[0], dtype=np.float64)))
        x, y = self._xy[sub.shape]
        return self._cls(x, y, sub, mask, **self._kw)


#: Tiles are halved (down to this many cells a side) where that saves contourpy more cell scans than
#: the three more tiles cost: each tile's own work (its height range, a generator, the calls) is about
#: what scanning 13,000 cells for one level takes (measured: 40 us against 3 ns a cell; building a
#: generator costs about 4 ns a cell, the same for a tile or its four quarters).
_MIN_TILE = 32
_TILE_CELLS = 13_000


def _trace(z: np.ndarray, interval: float, passes: int, tile: int) -> dict[int, list[tuple]]:
    """Trace contours tile by tile (tiles share their edge rows/columns), only for the levels inside
    each tile's height range: contourpy's cost grows with levels x cells, so this cuts it to about
    (levels per tile) x cells; a steep tile is halved. The grid is smoothed a band of tiles at a time.
    Returns, per level multiple k, (vertices, offsets, c0, r0) per tile: (col, row) vertices of its
    lines from the tile's corner (c0, r0), each line ``vertices[offsets[i]:offsets[i + 1]]``."""
    rows, cols = z.shape
    trace = _Tracer()
    out: dict[int, list[tuple]] = {}

    def levels(sub: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        lo, hi = float(np.min(sub)), float(np.max(sub))  # NaN when any cell is: then the slow way
        if math.isfinite(lo) and math.isfinite(hi):
            return _levels_in(lo, hi, interval), None
        finite = np.isfinite(sub)
        if not finite.any():
            return np.zeros(0, dtype=np.int64), None
        return _levels_in(float(np.min(sub[finite])), float(np.max(sub[finite])), interval), ~finite

    def run(band: np.ndarray, r0: int, c0: int, sub: np.ndarray, ks: np.ndarray, mask: np.ndarray | None) -> None:
        h, w = sub.shape[0] - 1, sub.shape[1] - 1
        # quarters hold at least about half the levels each: look at them only where that could pay
        if min(h, w) >= 2 * _MIN_TILE and (ks.size / 2 - 1) * h * w > 3 * _TILE_CELLS:
            hh, hw = (h // 2) // _MIN_TILE * _MIN_TILE, (w // 2) // _MIN_TILE * _MIN_TILE  # seams stay on the grid
            quads = [(a, b, band[a - r0b : a - r0b + rh + 1, b : b + cw + 1]) for a, rh in ((r0, hh), (r0 + hh, h - hh))
                     for b, cw in ((c0, hw), (c0 + hw, w - hw))]
            found = [levels(q) for _, _, q in quads]
            if (ks.size * h * w - sum(f[0].size * q.size for f, (_, _, q) in zip(found, quads))
                    > 3 * _TILE_CELLS):
                for (a, b, q), (kq, mq) in zip(quads, found):
                    if kq.size:
                        run(band, a, b, q, kq, mq)
                return
        for kk, (pts, offs) in zip(ks.tolist(), trace(sub, mask).multi_lines(ks * interval)):
            if pts[0] is not None and len(pts[0]):
                out.setdefault(kk, []).append((pts[0], offs[0], c0, r0))

    bands = [(r0, min(r0 + tile, rows - 1) + 1) for r0 in range(0, max(rows - 1, 1), tile)]
    with ThreadPoolExecutor(1, thread_name_prefix="geosite-contour") as ahead:
        # the next band is smoothed (numpy, without the GIL) while contourpy traces this one
        nxt = ahead.submit(_smooth_rows, z, *bands[0], passes)
        for i, (r0b, _) in enumerate(bands):
            band = nxt.result()
            if i + 1 < len(bands):
                nxt = ahead.submit(_smooth_rows, z, *bands[i + 1], passes)
            for c0 in range(0, max(cols - 1, 1), tile):
                sub = band[:, c0 : min(c0 + tile, cols - 1) + 1]
                ks, mask = levels(sub)
                if ks.size:
                    run(band, r0b, c0, sub, ks, mask)
    return out


def _join(per_level: dict[int, list[tuple]], tile: int, rows: int,
          cols: int) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """Each level's lines, those cut at tile seams joined back into whole lines (one shapely
    ``line_merge`` call for every level), in increasing level order: the level multiple k of each
    line, and the (col, row) vertices and vertex counts of the lines in blocks, each level's uncut
    lines in tracing order, then its joined ones. Empties ``per_level`` as it goes."""
    import shapely

    seam = math.gcd(tile, _MIN_TILE)  # every tile seam, halved tiles' too, is on a multiple of this
    levels = sorted(per_level)
    uncut: list[tuple[np.ndarray, np.ndarray]] = []
    cut: list[tuple[np.ndarray, np.ndarray] | None] = []
    for kk in levels:
        pieces = per_level.pop(kk)
        lens = [len(p) for p, *_ in pieces]
        v = np.concatenate([p for p, *_ in pieces]) if len(pieces) > 1 else pieces[0][0].copy()
        v += np.repeat(np.array([(c0, r0) for *_, c0, r0 in pieces], dtype=np.float64), lens, axis=0)
        # contourpy interpolates both coordinates along an edge, so a vertex on a seam may be a last bit
        # off it (95.99999999999999); rounding to 1e-8 cell puts both tiles' copies of it on one point
        np.round(v, 8, out=v)
        offs = [o for _, o, *_ in pieces]
        counts = np.delete(np.diff(np.concatenate(offs)), np.cumsum([len(o) for o in offs])[:-1] - 1)
        ends = np.cumsum(counts)
        on = np.zeros(len(counts), dtype=bool)
        if len(counts) > 1:  # a level's only line is never cut
            for end_pts in (v[ends - counts], v[ends - 1]):
                x, y = end_pts[:, 0], end_pts[:, 1]
                on |= ((x % seam == 0) & (0 < x) & (x < cols - 1)) | ((y % seam == 0) & (0 < y) & (y < rows - 1))
        uncut.append((v[np.repeat(~on, counts)], counts[~on]))
        cut.append((v[np.repeat(on, counts)], counts[on]) if on.any() else None)
        del v
    # the cut pieces of every level with more than one, joined in one pass (levels never share a point)
    merging = [i for i, c in enumerate(cut) if c is not None and len(c[1]) > 1]
    joined: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if merging:  # memory: never more than two copies of the cut vertices at a time
        counts = np.concatenate([cut[i][1] for i in merging])  # type: ignore[index]
        per = np.array([len(cut[i][1]) for i in merging])  # type: ignore[index]
        cat = np.concatenate([cut[i][0] for i in merging])  # type: ignore[index]
        for i in merging:
            cut[i] = None
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        geoms = shapely.from_ragged_array(shapely.GeometryType.LINESTRING, cat, (offsets,))
        del cat
        geoms = shapely.multilinestrings(geoms, indices=np.repeat(np.arange(len(merging)), per))
        geoms = shapely.line_merge(geoms)
        geoms, which = shapely.get_parts(geoms, return_index=True)
        xy = shapely.get_coordinates(geoms)
        n = shapely.get_num_coordinates(geoms)
        del geoms
        stop = np.cumsum(n)
        bounds = np.searchsorted(which, np.arange(len(merging) + 1))
        for j, i in enumerate(merging):
            a, b = bounds[j], bounds[j + 1]
            joined[i] = (xy[stop[a] - n[a] : stop[b - 1]] if b > a else xy[:0], n[a:b])
    verts, nverts, k_of_line = [], [], []
    for i, kk in enumerate(levels):
        extra = joined.get(i, cut[i])
        for v, n in (uncut[i], extra) if extra is not None else (uncut[i],):
            verts.append(v)
            nverts.append(n)
            k_of_line.append(np.full(len(n), kk, dtype=np.int64))
        uncut[i] = cut[i] = None  # type: ignore[call-overload]
    return np.concatenate(k_of_line) if k_of_line else np.zeros(0, dtype=np.int64), verts, nverts


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
    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    rows, cols = z.shape
    empty = gpd.GeoDataFrame(
        {"elevation_ft": np.zeros(0), "index": np.zeros(0, dtype=bool)}, geometry=[], crs=dem.crs
    )
    if rows < 2 or cols < 2:
        return empty
    tile = _CONTOUR_TILE
    iv = float(interval_ft)
    k_of_line, verts, nverts = _join(_trace(z, iv, passes, tile), tile, rows, cols)
    if not k_of_line.size:
        return empty
    counts = np.concatenate(nverts)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    xy = np.concatenate(verts)
    del verts
    t = dem.transform
    xy[:, 0] = (xy[:, 0] + 0.5) * t.a + t.c  # cell (col, row) -> CRS (x, y) at the cell centre
    xy[:, 1] = (xy[:, 1] + 0.5) * t.e + t.f
    geoms = shapely.from_ragged_array(shapely.GeometryType.LINESTRING, xy, (offsets,))
    del xy
    return gpd.GeoDataFrame(
        {"elevation_ft": k_of_line * iv, "index": k_of_line % int(index_every) == 0},
        geometry=geoms,
        crs=dem.crs,
    )
