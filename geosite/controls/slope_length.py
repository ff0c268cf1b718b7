"""Slope length above a fence (DNR 1056): the table's maximum for a cell's slope, the interior rows drawn on
the contours where the slope above the next fence would run longer, and the ground where a submitted
plan's slope runs longer than the table allows (summed along D8 flow paths by pointer doubling).
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid
from geosite.hydrology import downhill_field, receivers

if TYPE_CHECKING:
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid


def max_slope_length_ft(slope_pct: np.ndarray | float, table: Any) -> np.ndarray:
    """DNR 1056 maximum slope length above a fence (ft) for each slope (%): the first row whose
    ``slope below`` exceeds the slope.

    Parameters
    ----------
    slope_pct : numpy.ndarray or float
        Slopes, percent.
    table : sequence of (float, float)
        DNR 1056 rows (slope below, percent; maximum slope length, ft): the profile's ``[controls]
        fence_max_slope_length_ft`` (``profile.control("fence_max_slope_length_ft")``).

    Returns
    -------
    numpy.ndarray
        The maximum slope length above a fence for each slope, ft.
    """
    s = np.asarray(slope_pct, float)
    out = np.full(s.shape, float(table[-1][1]))
    for below, length in reversed(list(table)):
        out = np.where(s < float(below), float(length), out)
    return out


def interior_rows(
    polygon: BaseGeometry,
    dem: Dem,
    fg: FlowGrid,
    table: Any,
    *,
    smooth: bool = True,
    straighten_ft: float = 2.0,
) -> list[LineString]:
    """Interior fence rows in ``polygon`` (DEM CRS) keeping the slope length above every fence within
    ``table`` (see the module notes): on the contour of the filled surface (smoothed by a 1-cell
    Gaussian when ``smooth``), straightened to within ``straighten_ft`` (Douglas-Peucker) so a crew can
    set posts along it. Cutting them at obstacles and dropping short pieces: :func:`buildable_rows`.

    ``table`` holds DNR 1056's rows (slope below, percent; maximum slope length, ft): the profile's
    ``[controls] fence_max_slope_length_ft``. ``straighten_ft``'s default, 2 ft, is geosite's choice, not
    the ordinance's (a drafting tolerance, finer than a crew sets posts).
    """
    inside = grid.rasterize(polygon, dem.shape, dem.transform)
    if not inside.any():
        return []
    win = cells_window(inside, dem.shape)
    sub = sub_dem(dem, win, dem.elevation_ft[win])
    ins = inside[win]
    d, filled = _slope_length_ratio(fg, sub, ins, polygon, table=table, win=win)
    return _rows_on_contours(d, filled, sub, ins, polygon, smooth=smooth, straighten_ft=straighten_ft)


def cells_window(inside: np.ndarray, shape: tuple[int, int]) -> tuple[slice, slice]:
    """The box of the cells of ``inside`` with two cells of margin, clipped to a grid of ``shape``."""
    rows, cols = np.nonzero(inside)
    r0, r1 = max(rows.min() - 2, 0), min(rows.max() + 3, shape[0])
    c0, c1 = max(cols.min() - 2, 0), min(cols.max() + 3, shape[1])
    return slice(r0, r1), slice(c0, c1)


def sub_dem(dem: Dem, win: tuple[slice, slice], elevation_ft: np.ndarray) -> Dem:
    """The DEM cut to the window ``win``, with the heights ``elevation_ft`` (ft) there."""
    from affine import Affine

    return dataclasses.replace(
        dem,
        elevation_ft=elevation_ft,
        transform=dem.transform @ Affine.translation(win[1].start, win[0].start),
    )


def _slope_length_ratio(
    fg: FlowGrid,
    sub: Dem,
    ins: np.ndarray,
    polygon: BaseGeometry,
    *,
    table: Any,
    win: tuple[slice, slice],
) -> tuple[np.ndarray, np.ndarray]:
    """On the window ``win`` of the flow grid (``sub``: the DEM there; ``ins``: the polygon's cells): the
    slope length above each cell over what ``table`` allows for its slope (NaN outside), and the filled
    surface (ft).
    """
    from geosite.terrain import slope_pct

    dirs = np.array(fg.directions[win])
    filled = np.asarray(fg.filled_ft[win], float)
    slope = slope_pct(dataclasses.replace(sub, elevation_ft=filled))
    slope = np.where(np.isfinite(slope), slope, 0.0)
    lmax = max_slope_length_ft(slope, table)
    rr, rc, has = receivers(dirs)
    recv_in = has & ins[rr, rc]
    w_self = 1.0 / lmax
    # exit cells: from the centre to the boundary along the downhill direction. A cell whose D8
    # receiver is outside but whose downhill ray stays inside for 1.5 cells (flow running along a
    # sideslope edge) is routed instead to its steepest lower neighbour inside the area.
    cand_r, cand_c = np.nonzero(ins & ~recv_in)
    dist, crosses = _exit_rays(filled, sub, dirs, polygon, cand_r=cand_r, cand_c=cand_c)
    alt_r, alt_c, alt_ok = inside_receiver(filled, ins, sub)
    reroute = ~crosses & alt_ok[cand_r, cand_c]
    rr[cand_r[reroute], cand_c[reroute]] = alt_r[cand_r[reroute], cand_c[reroute]]
    rc[cand_r[reroute], cand_c[reroute]] = alt_c[cand_r[reroute], cand_c[reroute]]
    recv_in[cand_r[reroute], cand_c[reroute]] = True
    inc = _step_ratios(filled, slope, w_self, sub, rr=rr, rc=rc, lmax=lmax)
    keep = ~reroute
    exit_r, exit_c = cand_r[keep], cand_c[keep]
    half = 0.5 * min(sub.cell_x_ft, sub.cell_y_ft)
    dist = np.where(crosses, dist, half)[keep]
    d = np.full(ins.shape, np.nan)
    d[ins] = np.inf
    d[exit_r, exit_c] = dist * w_self[exit_r, exit_c]
    return _summed_up_paths(d, ins & recv_in, rr, rc, inc), filled


def _exit_rays(
    filled: np.ndarray,
    sub: Dem,
    dirs: np.ndarray,
    polygon: BaseGeometry,
    *,
    cand_r: np.ndarray,
    cand_c: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """From each candidate exit cell's centre along its downhill direction (1.5 cells): the distance (ft)
    to the polygon's boundary, and whether the ray crosses it (the water leaves there).
    """
    ex, ey = grid.centres(sub, cand_r, cand_c)
    ux, uy = downhill_field(filled, sub, dirs)
    vx, vy = ux[cand_r, cand_c], uy[cand_r, cand_c]
    cellu = max(abs(sub.transform.a), abs(sub.transform.e))
    rays = shapely.linestrings(
        np.stack(
            [np.column_stack([ex, ey]), np.column_stack([ex + vx * 1.5 * cellu, ey + vy * 1.5 * cellu])],
            axis=1,
        )
    )
    hits = shapely.intersection(rays, polygon.boundary)
    dist = shapely.distance(shapely.points(ex, ey), hits) * sub.ft_per_unit
    return dist, np.isfinite(dist) & ((vx != 0) | (vy != 0))


def _step_ratios(
    filled: np.ndarray,
    slope: np.ndarray,
    w_self: np.ndarray,
    sub: Dem,
    *,
    rr: np.ndarray,
    rc: np.ndarray,
    lmax: np.ndarray,
) -> np.ndarray:
    """Each cell's D8 step to its receiver (``rr``, ``rc``) over the table's length (``lmax``, ft; its
    inverse ``w_self``), the two cells' ratios averaged. The step is measured along the gradient: drop /
    slope (exact on a plane whatever the grid's orientation); the step's length where the ground is flat.
    """
    w_recv = 1.0 / lmax[rr, rc]
    s_mean = 0.5 * (slope + slope[rr, rc]) / 100.0
    drop = filled - filled[rr, rc]
    step = np.hypot(
        (rr - np.arange(rr.shape[0])[:, None]) * sub.cell_y_ft,
        (rc - np.arange(rc.shape[1])[None, :]) * sub.cell_x_ft,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        along = np.where((s_mean > 1e-3) & (drop > 0), drop / s_mean, step)
    return 0.5 * along * (w_self + w_recv)


def _summed_up_paths(
    d: np.ndarray, routed: np.ndarray, rr: np.ndarray, rc: np.ndarray, inc: np.ndarray
) -> np.ndarray:
    """``d`` (set at the exit cells, inf at the other cells to fill, NaN outside) carried up the D8 paths:
    each ``routed`` cell gets its receiver's value plus its own step ``inc``, until nothing changes; NaN
    where no path reaches an exit.
    """
    for _ in range(int(np.count_nonzero(~np.isnan(d))) + 1):  # at most one pass per cell
        nd = np.where(routed, d[rr, rc] + inc, d)
        if np.array_equal(nd, d, equal_nan=True):
            break
        d = nd
    return np.where(np.isfinite(d), d, np.nan)


def _rows_on_contours(
    d: np.ndarray,
    filled: np.ndarray,
    sub: Dem,
    ins: np.ndarray,
    polygon: BaseGeometry,
    *,
    smooth: bool,
    straighten_ft: float,
) -> list[LineString]:
    """Row k on the contour of the filled surface at the lowest height where ``d`` reaches k."""
    import contourpy

    cellu = max(abs(sub.transform.a), abs(sub.transform.e))
    top = np.nanmax(d) if np.isfinite(d).any() else 0.0
    if not top > 1.0:
        return []
    x, y = grid.centres(sub, *np.mgrid[0 : ins.shape[0], 0 : ins.shape[1]])
    gen = contourpy.contour_generator(x, y, np.ma.masked_invalid(d), line_type="Separate")
    # the rows run on the contour: row k on the contour of the (lightly smoothed) filled surface at the
    # lowest height the slope length reaches k table lengths (the d = k line), so no point of that line
    # is below its row; kept only beside ground where d really reaches k - 1/2 or more
    from scipy.ndimage import gaussian_filter

    zs = np.where(np.isfinite(filled), filled, np.nanmean(filled))
    zs = np.where(ins, gaussian_filter(zs, 1.0), zs) if smooth else zs
    zgen = contourpy.contour_generator(x, y, zs, line_type="Separate")
    need = np.ma.masked_invalid(d)
    out: list[LineString] = []
    tol = straighten_ft / sub.ft_per_unit
    heights: set[float] = set()  # one row a height: fronts whose lowest point is shared give one line
    for level in range(1, math.floor(top) + 1):
        zk = _front_height(gen, level, filled, sub)
        if zk is None or zk in heights:
            continue
        heights.add(zk)
        for ln in zgen.lines(zk):
            if len(ln) < 2:
                continue
            clipped = shapely.intersection(LineString(ln), polygon)
            for g in getattr(clipped, "geoms", [clipped]):
                if g.geom_type != "LineString" or g.is_empty:
                    continue
                along = np.asarray(shapely.segmentize(g, cellu).coords)
                dd = grid.bilinear(need.filled(np.nan), sub, along[:, 0], along[:, 1])
                if np.isfinite(dd).any() and np.nanmax(dd) >= level - 0.5:
                    out.append(g.simplify(tol) if tol > 0 else g)
    return out


def _front_height(gen: Any, level: int, filled: np.ndarray, sub: Dem) -> float | None:
    """The lowest filled height (ft) along the front where the slope-length ratio reaches ``level``
    (``gen``: contourpy's generator of that ratio); None where there is no such front on the DEM.
    """
    front = [np.asarray(ln) for ln in gen.lines(float(level)) if len(ln) >= 2]
    if not front:
        return None
    pts = np.concatenate(front)
    z_front = grid.bilinear(filled, sub, pts[:, 0], pts[:, 1])
    return float(np.nanmin(z_front)) if np.isfinite(z_front).any() else None


def inside_receiver(
    filled: np.ndarray, ins: np.ndarray, dem: Dem
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steepest lower neighbour of every cell among the cells of ``ins`` (row, col, found)."""
    nr, nc = filled.shape
    best = np.zeros(filled.shape)
    br = np.tile(np.arange(nr)[:, None], (1, nc))
    bc = np.tile(np.arange(nc)[None, :], (nr, 1))
    pad = np.pad(filled, 1, constant_values=np.nan)
    pin = np.pad(ins, 1, constant_values=False)
    for k in range(8):
        dr, dc = int(grid.DR[k]), int(grid.DC[k])
        nb = pad[1 + dr : 1 + dr + nr, 1 + dc : 1 + dc + nc]
        nb_in = pin[1 + dr : 1 + dr + nr, 1 + dc : 1 + dc + nc]
        with np.errstate(invalid="ignore"):
            g = (filled - nb) / math.hypot(dr * dem.cell_y_ft, dc * dem.cell_x_ft)
        better = nb_in & np.isfinite(g) & (g > best)
        best = np.where(better, g, best)
        br = np.where(better, np.arange(nr)[:, None] + dr, br)
        bc = np.where(better, np.arange(nc)[None, :] + dc, bc)
    return br, bc, best > 0


def slope_length_excess(
    polygon: BaseGeometry,
    dem: Dem,
    fg: FlowGrid,
    barriers: BaseGeometry | None,
    table: Any,
    *,
    geometry: bool = False,
    built: BaseGeometry | None = None,
) -> dict[str, Any]:
    """Where the slope above the submitted fences is longer than DNR 1056 allows.

    For every cell of ``polygon`` (DEM CRS; a cell counts when its centre is inside) the D8 flow length
    down to the next barrier (a submitted fence, straw bale or diversion line in ``barriers``, DEM CRS,
    taken as the cells within three quarters of a cell of it) or to the polygon's edge (where the edge
    fence stands), each step divided by the table's maximum slope length for the cell's slope (Horn
    slope of the filled surface): a sum over 1 means the slope above the fence that catches that water
    is longer than the table allows. Sums along the flow paths by pointer doubling (log2 of the longest
    path in passes).

    Parameters
    ----------
    polygon : shapely.geometry.Polygon
        One connected part of the disturbed area, in the DEM's CRS.
    dem : geosite.grid.Dem
        The DEM (elevations in ft).
    fg : geosite.hydrology.FlowGrid
        Its flow grid (filled surface in ft, D8 directions).
    barriers : shapely geometry or None
        The fences, diversions and stabilization (DEM CRS).
    table : sequence of (float, float)
        DNR 1056 rows (slope below, percent; maximum slope length above a fence, ft).
    geometry : bool
        Also return ``geometry``: the cells over the limit as one (Multi)Polygon in the DEM's CRS (cell
        squares dissolved; None when there are none), the place of a failing finding.
    built : shapely geometry or None
        The footprints of the site's structures (DEM CRS): ground no cover is laid on and no slope length
        runs across (a foundation's excavation takes the flow above it); their cells are not counted.

    Returns
    -------
    dict
        ``excess_sqft`` (area of the cells over the limit, sq ft), ``max_ratio`` (the largest sum),
        ``longest_ft`` (the longest slope length above a barrier, ft), ``cells`` (the cells counted) and,
        with ``geometry``, ``geometry``.
    """
    inside = grid.rasterize(polygon, dem.shape, dem.transform)
    if built is not None and not built.is_empty:
        inside &= ~grid.rasterize(built, dem.shape, dem.transform)
    out: dict[str, Any] = {
        "excess_sqft": 0.0,
        "max_ratio": 0.0,
        "longest_ft": 0.0,
        "cells": int(inside.sum()),
    }
    if geometry:
        out["geometry"] = None
    if not inside.any():
        return out
    from geosite.terrain import slope_pct

    win = cells_window(inside, dem.shape)
    sub = sub_dem(dem, win, np.asarray(fg.filled_ft[win], float))
    ins = inside[win]
    stop = _barrier_cells(barriers, sub, ins.shape)
    slope = slope_pct(sub)
    lmax = max_slope_length_ft(np.where(np.isfinite(slope), slope, 0.0), table)
    ratio, length = _sums_to_barrier(np.asarray(fg.directions[win]).astype(np.int64), ins & ~stop, lmax, dem)
    ratio = np.where(ins.reshape(-1), ratio, 0.0)
    over = ratio > 1.0 + 1e-9
    out.update(
        excess_sqft=float(over.sum()) * dem.cell_area_sqft,
        max_ratio=float(ratio.max()),
        longest_ft=float(np.where(ins.reshape(-1), length, 0.0).max()),
    )
    if geometry and over.any():
        out["geometry"] = cells_polygon(over.reshape(ins.shape), sub.transform)
    return out


def _barrier_cells(barriers: BaseGeometry | None, sub: Dem, shape: tuple[int, int]) -> np.ndarray:
    """The cells of the window ``sub`` within three quarters of a cell of a barrier (none without one)."""
    if barriers is None or barriers.is_empty:
        return np.zeros(shape, bool)
    cellu = max(abs(sub.transform.a), abs(sub.transform.e))
    return grid.rasterize(barriers.buffer(0.75 * cellu), shape, sub.transform)


def _sums_to_barrier(
    d: np.ndarray, live_cells: np.ndarray, lmax: np.ndarray, dem: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Along each cell's D8 path (directions ``d``), summed while it stays on ``live_cells``: each step
    over the table's length for its cell (``lmax``, ft) and each step's length (ft); flattened. Pointer
    doubling: log2 of the longest path in passes.
    """
    from geosite import grid as g

    nr, nc = d.shape
    rr, cc = np.mgrid[0:nr, 0:nc]
    go = (d >= 1) & (d <= 8)
    k = np.where(go, d - 1, 0)
    r2, c2 = rr + np.where(go, g.DR[k], 0), cc + np.where(go, g.DC[k], 0)
    go &= (r2 >= 0) & (r2 < nr) & (c2 >= 0) & (c2 < nc)
    step = np.hypot(np.where(go, g.DR[k], 0) * dem.cell_y_ft, np.where(go, g.DC[k], 0) * dem.cell_x_ft)
    live = live_cells & go
    idx = np.arange(nr * nc).reshape(nr, nc)
    nxt = np.where(live, np.where(go, r2, rr) * nc + np.where(go, c2, cc), idx).reshape(-1)
    ratio = np.where(live, step / lmax, 0.0).reshape(-1)
    length = np.where(live, step, 0.0).reshape(-1)
    for _ in range(int(np.ceil(np.log2(max(nr * nc, 2)))) + 1):
        ratio = ratio + ratio[nxt]
        length = length + length[nxt]
        nxt = nxt[nxt]
    return ratio, length


def cells_polygon(mask: np.ndarray, transform: Any) -> Any:
    """The cells of ``mask`` (on the grid of ``transform``) as one dissolved (Multi)Polygon."""
    from rasterio import features

    shapes = [
        shapely.geometry.shape(g)
        for g, v in features.shapes(mask.astype(np.uint8), mask=mask, transform=transform)
        if v
    ]
    return shapely.union_all(shapes) if shapes else None
