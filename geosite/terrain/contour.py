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
#: Cells smoothed at once (whole bands of tiles, at least one): enough for the threads to share, few
#: enough to hold beside the grid (a quarter of a 1 M-cell grid).
_CHUNK_CELLS = 1 << 18


def _trace(z: np.ndarray, interval: float, passes: int, tile: int) -> dict[int, list[tuple]]:
    """Trace contours tile by tile (tiles share their edge rows/columns), only for the levels inside
    each tile's height range: contourpy's cost grows with levels x cells, so this cuts it to about
    (levels per tile) x cells; a steep tile is halved. The grid is smoothed a few bands of tiles at a time.
    Returns, per level multiple k, (vertices, offsets) per tile: (col, row) vertices of its lines in
    the grid, each line ``vertices[offsets[i]:offsets[i + 1]]``."""
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
                pts[0] += (c0, r0)  # from the tile's corner to the grid's
                out.setdefault(kk, []).append((pts[0], offs[0]))

    # smoothed a few bands at a time (on every thread: a thread smoothing beside contourpy waits for
    # the GIL), tile by tile traced; the smoothed rows held are a chunk's, never the grid's
    step = tile * max(_CHUNK_CELLS // (tile * cols), 1)
    for a in range(0, max(rows - 1, 1), step):
        b = min(a + step, rows - 1) + 1
        chunk = _smooth_rows(z, a, b, passes)
        for r0b in range(a, b - 1, tile):
            band = chunk[r0b - a : min(r0b + tile, rows - 1) + 1 - a]
            for c0 in range(0, max(cols - 1, 1), tile):
                sub = band[:, c0 : min(c0 + tile, cols - 1) + 1]
                ks, mask = levels(sub)
                if ks.size:
                    run(band, r0b, c0, sub, ks, mask)
    return out


def _join(per_level: dict[int, list[tuple]], tile: int, rows: int,
          cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every level's lines, those cut at tile seams joined back into whole lines, in increasing level
    order (each level's uncut lines in tracing order, then its joined ones): the level multiple k of
    each line, the (col, row) vertices of all lines end to end, and each line's vertex count. A few
    whole-array operations and one shapely ``line_merge`` for every level; empties ``per_level``."""
    import shapely

    seam = math.gcd(tile, _MIN_TILE)  # every tile seam, halved tiles' too, is on a multiple of this
    levels = np.array(sorted(per_level), dtype=np.int64)
    nlev = len(levels)
    per_k = [len(per_level[kk]) for kk in levels.tolist()]
    pieces = [pc for kk in levels.tolist() for pc in per_level.pop(kk)]
    nlines = np.array([len(o) - 1 for _, o in pieces], dtype=np.int64)
    v = np.concatenate([p for p, _ in pieces])
    # contourpy interpolates both coordinates along an edge, so a vertex on a seam may be a last bit off
    # it (95.99999999999999); rounding to 1e-8 cell puts both tiles' copies of it on one point
    np.round(v, 8, out=v)
    counts = np.delete(np.diff(np.concatenate([o for _, o in pieces])), np.cumsum(nlines + 1)[:-1] - 1)
    del pieces
    lvl = np.repeat(np.repeat(np.arange(nlev), per_k), nlines)  # each line's level (its index in levels)
    ends = np.cumsum(counts)
    on = np.zeros(len(counts), dtype=bool)
    for x, y in (v[ends - counts].T, v[ends - 1].T):
        on |= ((x % seam == 0) & (0 < x) & (x < cols - 1)) | ((y % seam == 0) & (0 < y) & (y < rows - 1))
    on &= np.bincount(lvl, minlength=nlev)[lvl] > 1  # a level's only line is never cut
    ncut = np.bincount(lvl[on], minlength=nlev)
    merge = on & (ncut[lvl] > 1)  # a level's only cut line is kept as it is
    keep_v = np.repeat(~merge, counts)
    kept = np.compress(keep_v, v, axis=0)
    cat = np.compress(~keep_v, v, axis=0)  # memory: the vertices held once, then twice at most
    del v, keep_v
    parts_xy, parts_n, parts_lvl = cat[:0], counts[:0], lvl[:0]
    if merge.any():
        offsets = np.zeros(np.count_nonzero(merge) + 1, dtype=np.int64)
        np.cumsum(counts[merge], out=offsets[1:])
        geoms = shapely.from_ragged_array(shapely.GeometryType.LINESTRING, cat, (offsets,))
        del cat
        merged_lvls, group = np.unique(lvl[merge], return_inverse=True)
        geoms = shapely.line_merge(shapely.multilinestrings(geoms, indices=group))
        geoms, which = shapely.get_parts(geoms, return_index=True)
        parts_xy, parts_n, parts_lvl = shapely.get_coordinates(geoms), shapely.get_num_coordinates(geoms), merged_lvls[which]
        del geoms
    # each level's kept lines, then its joined ones: both sequences are in level order already
    own_n, own_l = counts[~merge], lvl[~merge]
    a_v = np.bincount(own_l, weights=own_n, minlength=nlev).astype(np.int64)
    b_v = np.bincount(parts_lvl, weights=parts_n, minlength=nlev).astype(np.int64)
    xy = np.empty((len(kept) + len(parts_xy), 2))
    ia = ib = o = 0
    for i in np.flatnonzero(a_v + b_v).tolist():
        xy[o : o + a_v[i]] = kept[ia : ia + a_v[i]]
        o, ia = o + a_v[i], ia + a_v[i]
        xy[o : o + b_v[i]] = parts_xy[ib : ib + b_v[i]]
        o, ib = o + b_v[i], ib + b_v[i]
    del kept, parts_xy
    order = np.argsort(np.concatenate([own_l, parts_lvl]), kind="stable")  # the lines in the same order
    line_lvl = np.concatenate([own_l, parts_lvl])[order]
    line_n = np.concatenate([own_n, parts_n]).astype(np.int64)[order]
    return levels[line_lvl], xy, line_n


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
    per_level = _trace(z, iv, passes, tile)
    if not per_level:
        return empty
    k_of_line, xy, counts = _join(per_level, tile, rows, cols)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
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
