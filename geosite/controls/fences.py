"""Filter fence (Grantsburg B(6)(c)[3], DNR technical standard 1056): where it goes.

Notes
-----
How the boundary is classified. Each ring of a disturbed polygon is cut into stretches of about one
DEM cell. For each stretch the outward normal ``n`` is compared with the downhill direction ``u`` of
the cell just inside it (the steepest descent of the depression-filled surface, central differences
averaged over 3x3 cells, exact on a plane; the cell's D8 direction on flats). With ``a`` the angle
between ``n`` and ``u``:

* ``a < 90 - tol``: flow leaves the area across the stretch: **downslope**;
* ``90 - tol <= a <= 90 + tol``: flow runs along it: **sideslope**;
* ``a > 90 + tol``: flow enters: **upslope** (no fence: DNR 1056 says not where clean water enters);
* no height in the DEM just inside the stretch (off the grid, or a nodata cell): **unclassified**, no
  fence drawn, and the report says how long those stretches are ("not assessed", never "sideslope").

``tol`` is the profile's ``fence_sideslope_tolerance_deg``. Runs shorter than ``fence_min_run_ft``
take the class of their longer neighbour (repeatedly, shortest first), so runs read as continuous.

Fences go along downslope and sideslope runs. Each open end of a fence chain is turned upslope by a
hook of ``fence_hook_ft``; where the fence itself runs up or down the slope into its end, the hook
turns off it at 45 deg (a J-hook) instead of retracing it. Interior rows keep the slope length above
any fence within the DNR 1056 table: each disturbed cell gets its D8 flow distance to where its water
leaves the area, divided by the table's length for its slope (``d``); row k runs **on the contour**
of the filled surface (lightly smoothed, then straightened to within 2 ft) at the lowest height of the
``d = k`` line, and only beside ground whose ``d`` reaches k - 1/2 (on a plane: rows every table length
up the slope, exactly; D8 paths on planes not aligned with the grid are up to 8 % longer than straight
flow, so rows there are a little closer than needed). :func:`buildable_rows` then cuts the rows where
they would cross a structure, drive, road, water or stockpile (5 ft clear) and drops pieces under
25 ft; each gap is a ``stand_in`` naming the obstacle and what replaces the row there (a row along the
obstacle's downslope side, erosion mat on the slope, phasing: :data:`STAND_INS`). Where a channel
(``hydrology.channels``) crosses the area,
fences are drawn along both its edges, ``fence_channel_offset_ft`` either side of its centreline.
Outside the disturbed polygons (Grantsburg B(6)(c)[3]: a channel passing through the site),
:func:`channel_edge_fences` draws them along the stretches of the channel the disturbed area's runoff
reaches, on the side it reaches from.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid
from geosite.controls.fence_ends import best_turn, rise_ft, uphill_at
from geosite.hydrology import downhill_field, receivers, sample_vectors

if TYPE_CHECKING:
    from collections.abc import Callable

    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid

FENCED = ("downslope", "sideslope")


class RowGap(NamedTuple):
    """A piece of interior row not built: the line, why (an obstacle's layer, or ``loop``, ``kink``,
    ``short``, ``channel``) and the obstacle's id (None when no obstacle stops it).
    """

    line: LineString
    why: str
    obstacle: Any


UNCLASSIFIED = "unclassified"  # a boundary stretch with no DEM height just inside it


def _rings(polygon: BaseGeometry) -> list[LineString]:
    out = []
    for p in getattr(polygon, "geoms", [polygon]):
        if p.geom_type != "Polygon" or p.is_empty:
            continue
        p = shapely.geometry.polygon.orient(p, sign=1.0)  # exterior CCW, holes CW: area on the left
        out.append(LineString(p.exterior.coords))
        out += [LineString(r.coords) for r in p.interiors]
    return out


@dataclasses.dataclass
class _Run:
    """A run of boundary stretches with one label: the label, its length (ft) and its stretches' indices."""

    label: str
    length: float
    cells: list[int]


def _runs(labels: list[str], lengths: np.ndarray, min_run: float) -> list[tuple[str, list[int]]]:
    """Cyclic runs of equal labels, short ones absorbed by their longer neighbour.

    Parameters
    ----------
    labels : list of str
        The side of each stretch along the ring, in ring order.
    lengths : numpy.ndarray
        Each stretch's length, ft.
    min_run : float
        Runs shorter than this, ft, take the label of their longer neighbour.

    Returns
    -------
    list of tuple
        (label, stretch indices) per run, in ring order.
    """
    runs = _merge_equal(
        [_Run(lab, float(n), [i]) for i, (lab, n) in enumerate(zip(labels, lengths, strict=True))]
    )
    # stretches without heights (unclassified) keep their label, and lend it to no neighbour
    while len(runs) > 1:
        k = _shortest_short_run(runs, min_run)
        if k is None:
            break
        runs[k].label = _absorbing_label(runs[k - 1], runs[(k + 1) % len(runs)])
        runs = _merge_equal(runs)
    return [(r.label, r.cells) for r in runs]


def _merge_equal(runs: list[_Run]) -> list[_Run]:
    """Neighbouring runs of one label joined, the last with the first when they share it (a ring)."""
    merged: list[_Run] = []
    for r in runs:
        if merged and merged[-1].label == r.label:
            merged[-1].length += r.length
            merged[-1].cells += r.cells
        else:
            merged.append(r)
    if len(merged) > 1 and merged[0].label == merged[-1].label:
        last = merged.pop()
        merged[0] = _Run(last.label, last.length + merged[0].length, last.cells + merged[0].cells)
    return merged


def _shortest_short_run(runs: list[_Run], min_run: float) -> int | None:
    """The shortest classified run under ``min_run`` ft with a classified neighbour (None when none is)."""
    short = [
        j
        for j in range(len(runs))
        if runs[j].label != UNCLASSIFIED
        and runs[j].length < min_run
        and {runs[j - 1].label, runs[(j + 1) % len(runs)].label} != {UNCLASSIFIED}
    ]
    return min(short, key=lambda j: runs[j].length) if short else None


def _absorbing_label(prev: _Run, nxt: _Run) -> str:
    """The label a short run takes: its longer neighbour's, never an unclassified one's."""
    if prev.label == UNCLASSIFIED:
        return nxt.label
    if nxt.label == UNCLASSIFIED:
        return prev.label
    return prev.label if prev.length >= nxt.length else nxt.label


def _line(seg_start: np.ndarray, seg_end: np.ndarray, idx: list[int]) -> LineString:
    pts = [seg_start[idx[0]]] + [seg_end[i] for i in idx]
    return LineString(pts)


def classify_boundary(
    polygon: BaseGeometry,
    dem: Dem,
    fg: FlowGrid | None = None,
    *,
    tolerance_deg: float,
    min_run_ft: float,
    spacing_ft: float | None = None,
) -> gpd.GeoDataFrame:
    """Classify the boundary of ``polygon`` (DEM CRS) by how surface flow crosses it.

    Parameters
    ----------
    polygon : shapely.geometry.base.BaseGeometry
        A (Multi)Polygon in the DEM's CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid or None
        Its flow grid (filled surface and D8 directions); without one, the DEM's filled surface.
    tolerance_deg : float
        Half-width, degrees, of the sideslope band around 90 degrees between outward normal and flow: the
        profile's ``[controls] fence_sideslope_tolerance_deg`` (``profile.control(...)``).
    min_run_ft : float
        Runs shorter than this, ft, are merged into their longer neighbour: the profile's ``[controls]
        fence_min_run_ft``.
    spacing_ft : float or None
        Stretch length, ft; default one cell.

    Returns
    -------
    geopandas.GeoDataFrame
        One row per run: ``side`` (downslope, sideslope, upslope, or unclassified where the DEM has no
        height just inside the stretch), ``length_ft``, ``ring``, ``chain``
        (runs in a row on one ring that share a fence), LineString geometry in the DEM CRS, in ring
        order (counter-clockwise around the area).
    """
    import geopandas as gpd

    sample = _downhill_sampler(dem, fg)
    spacing = (spacing_ft or min(dem.cell_x_ft, dem.cell_y_ft)) / dem.ft_per_unit
    rows: dict[str, list[Any]] = {"side": [], "length_ft": [], "ring": [], "geometry": []}
    for ri, ring in enumerate(_rings(polygon)):
        a, b, seg = _stretches(ring, spacing)
        if not len(seg):
            continue
        labels = _stretch_sides(a, b, dem, sample, tolerance_deg=tolerance_deg)
        for side, idx in _runs(list(labels), seg * dem.ft_per_unit, min_run_ft):
            geom = _line(a, b, idx)
            rows["side"].append(str(side))
            rows["length_ft"].append(float(geom.length) * dem.ft_per_unit)
            rows["ring"].append(ri)
            rows["geometry"].append(geom)
    gdf = gpd.GeoDataFrame(rows, geometry="geometry", crs=dem.crs)
    chain, pos = _chains(gdf)
    gdf["chain"] = chain
    gdf["chain_pos"] = pos
    return gdf


def _stretches(ring: LineString, spacing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ring cut into stretches of about ``spacing`` (CRS units): their starts, ends and lengths (CRS
    units), zero-length ones dropped.
    """
    coords = np.asarray(shapely.segmentize(ring, spacing).coords)[:, :2]
    a, b = coords[:-1], coords[1:]
    d = b - a
    seg = np.hypot(d[:, 0], d[:, 1])
    keep = seg > 0
    return a[keep], b[keep], seg[keep]


def _stretch_sides(
    a: np.ndarray,
    b: np.ndarray,
    dem: Dem,
    sample: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    *,
    tolerance_deg: float,
) -> np.ndarray:
    """The side of each stretch ``a`` -> ``b`` (area on its left): its outward normal against the downhill
    direction half a cell inside it (``sample``), within ``tolerance_deg`` degrees of 90 a sideslope.
    """
    cell = min(abs(dem.transform.a), abs(dem.transform.e))
    cos_lo = math.cos(math.radians(90.0 - tolerance_deg))
    cos_hi = math.cos(math.radians(90.0 + tolerance_deg))
    d = b - a
    seg = np.hypot(d[:, 0], d[:, 1])
    nx, ny = d[:, 1] / seg, -d[:, 0] / seg  # outward normal: right of travel
    mid = (a + b) / 2
    px, py = mid[:, 0] - nx * 0.5 * cell, mid[:, 1] - ny * 0.5 * cell
    vx, vy = sample(px, py)
    cosang = nx * vx + ny * vy
    nov = (vx == 0) & (vy == 0)
    labels = np.where(cosang > cos_lo, "downslope", np.where(cosang < cos_hi, "upslope", "sideslope"))
    labels = np.where(nov, "sideslope", labels)  # a flat with no flow direction: fence (conservative)
    no_height = ~np.isfinite(grid.elevation_at(dem, px, py))
    return np.where(no_height, UNCLASSIFIED, labels)  # no data: not assessed, never a guessed side


def _chains(runs: gpd.GeoDataFrame) -> tuple[list[int], list[int]]:
    """Label consecutive fenced runs (cyclic within a ring) with a shared chain number (-1 = not
    fenced) and their position along the chain.
    """
    out = [-1] * len(runs)
    pos = [0] * len(runs)
    chain = 0
    for ring in sorted(set(runs["ring"])):
        idx = [i for i in range(len(runs)) if runs["ring"].iloc[i] == ring]
        fenced = [runs["side"].iloc[i] in FENCED for i in idx]
        if all(fenced):
            for k, i in enumerate(idx):
                out[i] = chain
                pos[i] = k
            chain += 1
            continue
        start = next(k for k in range(len(idx)) if not fenced[k])
        order = idx[start:] + idx[:start]
        current = None
        for i in order:
            if runs["side"].iloc[i] in FENCED:
                if current is None:
                    current = chain
                    chain += 1
                    k = 0
                out[i] = current
                pos[i] = k
                k += 1
            else:
                current = None
    return out, pos


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


def _downhill_sampler(
    dem: Dem, fg: FlowGrid | None
) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Downhill unit vectors at points (x, y) in the DEM's CRS: the routed grid's, computed at the points'
    cells alone (:meth:`FlowGrid.downhill_at`); without one, of the DEM's filled surface.
    """
    if fg is not None:
        return fg.downhill_at
    from geosite.hydrology import fill_depressions

    ux, uy = downhill_field(fill_depressions(dem), dem, None)
    return lambda x, y: sample_vectors(ux, uy, dem, x, y)


def _hooks(
    runs: gpd.GeoDataFrame,
    sample: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    dem: Dem,
    hook_ft: float,
    polygon: BaseGeometry | None = None,
) -> list[LineString]:
    """A hook of ``hook_ft`` at each open end of each fence chain, turned upslope (DNR 1056). Where the
    fence runs up or down the slope into its end (within 45 deg), a hook straight upslope would only
    retrace the fence: it turns off the line instead, 45 deg back up the slope (a J-hook), toward the
    disturbed area where the ground allows, so every open end is turned upslope on the ground. Upslope
    is the DEM's own ground over the hook's length (:func:`geosite.controls.fence_ends.uphill_at`, what
    ``check`` judges a hook by); ``sample`` (the routed, depression-filled surface) only where the DEM
    has no height there.
    """
    hooks: list[LineString] = []
    if hook_ft <= 0:
        return hooks
    L = hook_ft / dem.ft_per_unit
    c45 = math.cos(math.radians(45.0))
    for chain in sorted({c for c in runs["chain"] if c >= 0}):
        part = runs[runs["chain"] == chain].sort_values("chain_pos")
        ring = part["ring"].iloc[0]
        whole = (runs[runs["ring"] == ring]["chain"] == chain).all()
        if whole:
            continue
        first = np.asarray(part.geometry.iloc[0].coords)
        last = np.asarray(part.geometry.iloc[-1].coords)
        for ends in ((first[0], first[1:]), (last[-1], last[-2::-1])):
            p, back = ends
            t = _out_of_end(p, back, 3.0 * L)  # pointing out of the chain at its end
            ground = uphill_at(dem, p, L)  # the ground the hook stands on (what check judges it by)
            if ground is None:  # no heights there: the routed surface's direction
                vx, vy = sample(np.array([p[0]]), np.array([p[1]]))
                ground = np.array([-vx[0], -vy[0]])
            if t is None or not np.hypot(*ground) > 0:
                continue
            up = ground / np.hypot(*ground)
            options = [up]
            if abs(np.dot(t, up)) > c45 + 1e-9:
                # the fence runs up or down the slope into its end: a hook straight upslope would lie
                # on the fence (zero length on the ground); turn it off the line, 45 deg up the slope,
                # to the side of the disturbed area
                n = np.array([-t[1], t[0]])
                side = (n + up) / np.hypot(*(n + up))
                alt = (up - n) / np.hypot(*(up - n))
                side, alt = _area_side_first(polygon, p, (side, alt), 0.5 * L)
                options = [side, alt]
            direction = _highest(dem, p, options, L)
            hooks.append(
                LineString([p, p + _climbing(dem, p, direction, back=-t, reach=L, polygon=polygon) * L])
            )
    return hooks


def _climbing(
    dem: Dem,
    p: np.ndarray,
    direction: np.ndarray,
    *,
    back: np.ndarray,
    reach: float,
    polygon: BaseGeometry | None,
) -> np.ndarray:
    """``direction`` where its point ``reach`` away climbs at least half what the best direction's does
    (:func:`geosite.controls.fence_ends.best_turn`, the measure ``check`` holds an end to), else the
    best: on curved ground the gradient at the end can point a hook along a slope that falls away.
    """
    best = best_turn(dem, p, back, reach, polygon)
    if best is None:
        return direction
    rise = rise_ft(dem, p + direction * reach, p)
    if not np.isfinite(rise):
        return best[0]
    if best[1] > 0.0:
        return direction if rise >= 0.5 * best[1] else best[0]
    return best[0] if best[1] > rise + 0.05 else direction  # on a rise: the least fall


def _area_side_first(
    polygon: BaseGeometry | None, p: np.ndarray, sides: tuple[np.ndarray, np.ndarray], reach: float
) -> tuple[np.ndarray, np.ndarray]:
    """The two J-hook directions, the one toward the disturbed area first (the first of ``sides`` unless
    only the second's point ``reach`` from ``p`` lies in ``polygon``).
    """
    side, alt = sides
    if polygon is None:
        return side, alt
    if not polygon.contains(shapely.Point(*(p + side * reach))) and polygon.contains(
        shapely.Point(*(p + alt * reach))
    ):
        return alt, side
    return side, alt


def _highest(dem: Dem, p: np.ndarray, options: list[np.ndarray], reach: float) -> np.ndarray:
    """The first of ``options`` (unit vectors, in order of preference) whose tip ``reach`` from ``p``
    stands within 0.05 ft of the highest tip on the DEM's ground: the hook that climbs (the ground
    curves within a hook's length, so the gradient at its start alone can point a J-hook along it).
    """
    tips = np.array([p + d * reach for d in options])
    z = grid.bilinear(dem.elevation_ft, dem, tips[:, 0], tips[:, 1])
    if not np.isfinite(z).any():
        return options[0]
    best = np.nanmax(z)
    return next(d for d, h in zip(options, z, strict=True) if np.isfinite(h) and h >= best - 0.05)


def _out_of_end(p: np.ndarray, back: np.ndarray, reach: float) -> np.ndarray | None:
    """Unit vector out of a fence at its end ``p``: from the fence's point ``reach`` back along it (or
    its far end), so a last stretch shorter than a cell does not decide the direction.
    """
    acc = 0.0
    prev = p
    q = None
    for pt in back:
        acc += float(np.hypot(*(pt - prev)))
        q, prev = pt, pt
        if acc >= reach:
            break
    if q is None:
        return None
    t = p - q
    n = float(np.hypot(*t))
    return t / n if n > 0 else None


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
    win = _window(inside, dem.shape)
    sub = _sub_dem(dem, win, dem.elevation_ft[win])
    ins = inside[win]
    d, filled = _slope_length_ratio(fg, sub, ins, polygon, table=table, win=win)
    return _rows_on_contours(d, filled, sub, ins, polygon, smooth=smooth, straighten_ft=straighten_ft)


def _window(inside: np.ndarray, shape: tuple[int, int]) -> tuple[slice, slice]:
    """The box of the cells of ``inside`` with two cells of margin, clipped to a grid of ``shape``."""
    rows, cols = np.nonzero(inside)
    r0, r1 = max(rows.min() - 2, 0), min(rows.max() + 3, shape[0])
    c0, c1 = max(cols.min() - 2, 0), min(cols.max() + 3, shape[1])
    return slice(r0, r1), slice(c0, c1)


def _sub_dem(dem: Dem, win: tuple[slice, slice], elevation_ft: np.ndarray) -> Dem:
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
    alt_r, alt_c, alt_ok = _inside_receiver(filled, ins, sub)
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


#: What stands in for an interior row where the row cannot be built, by the layer that stops it (DNR
#: practice: a row below the obstacle, erosion mat on the slope, or phasing the work).
STAND_INS: dict[str, str] = {
    "structures": "silt fence row along the downslope side of the structure",
    "stockpiles": "silt fence row along the downslope side of the pile",
    "access_drives": "erosion mat (DNR 1052) on the slope above the drive, or build the drive first",
    "roads": "erosion mat (DNR 1052) on the slope above the road, or phase the work",
    "streams": "no fence in the water: leave the bank vegetated",
    "lakes": "no fence in the water: leave the shore vegetated",
    "wetlands": "no fence in the wetland: leave it undisturbed",
    "channels": "no fence across concentrated flow: stabilize the channel",
    "sediment_trap": "no fence through the trap: its pool takes the runoff there",
    "short": "erosion mat (DNR 1052) on the slope: the row is too short to build",
}

#: The obstacles that end the slope above a fence and carry no stand-in (:func:`footprints`): a structure
#: (its excavation takes the flow above it), a road or drive (its pavement and edge end the slope, as
#: RUSLE ends a slope length at a road), a sediment trap (its pool takes the runoff).
BUILT_LAYERS = ("structures", "roads", "access_drives", "sediment_trap")


#: The site layers no interior row may cross.
ROW_OBSTACLE_LAYERS = (
    "structures",
    "stockpiles",
    "access_drives",
    "roads",
    "streams",
    "lakes",
    "wetlands",
    "channels",
)


def row_obstacles(site: Any, width_ft: float = 2.0) -> gpd.GeoDataFrame | None:
    """The site's structures, stockpiles, drives, roads and waters as one GeoDataFrame (``layer``,
    ``id``, site CRS) for :func:`filter_fence`'s ``obstacles``; lines get ``width_ft`` of width (by
    default 2 ft: geosite's choice, not the ordinance's, a line drawn for a drive or a ditch given the
    width of a post's footing).
    """
    import geopandas as gpd

    geoms, layers, ids = [], [], []
    half = width_ft / 2 / site.ft_per_unit
    for name in ROW_OBSTACLE_LAYERS:
        gdf = site.layer(name)
        if gdf is None:
            continue
        for g, i in zip(
            gdf.geometry.values, gdf["id"] if "id" in gdf.columns else range(1, len(gdf) + 1), strict=True
        ):
            if g is None or g.is_empty:
                continue
            geoms.append(g if g.geom_type in ("Polygon", "MultiPolygon") else g.buffer(half))
            layers.append(name)
            ids.append(int(i) if isinstance(i, (int, np.integer)) else i)
    if not geoms:
        return None
    return gpd.GeoDataFrame({"layer": layers, "id": ids}, geometry=geoms, crs=site.crs)


def footprints(obstacles: gpd.GeoDataFrame | None) -> BaseGeometry | None:
    """The built ground among ``obstacles`` (:func:`row_obstacles`' form; :data:`BUILT_LAYERS`: structures,
    roads, drives, traps), dissolved; None without any.
    """
    if obstacles is None or not len(obstacles) or "layer" not in obstacles.columns:
        return None
    got = obstacles[obstacles["layer"].isin(BUILT_LAYERS)]
    return shapely.union_all(got.geometry.values) if len(got) else None


def buildable_rows(
    rows: list[LineString], obstacles: Any, clearance: float, min_length: float
) -> tuple[list[LineString], list[RowGap]]:
    """Cut interior rows where they would cross an obstacle (``obstacles``: a GeoDataFrame with
    ``layer`` and ``id`` in the rows' CRS), ``clearance`` CRS units clear of it, and drop pieces shorter
    than ``min_length``. Returns the rows kept and the gaps as (line, stand-in layer key, obstacle id).
    """
    keep: list[LineString] = []
    gaps: list[RowGap] = []
    obst = (
        []
        if obstacles is None or not len(obstacles)
        else list(
            zip(
                shapely.buffer(obstacles.geometry.values, clearance),
                obstacles["layer"],
                obstacles["id"],
                strict=True,
            )
        )
    )
    for row in rows:
        pieces = [row]
        for geom, layer, oid in obst:
            nxt = []
            for piece in pieces:
                if not piece.intersects(geom):
                    nxt.append(piece)
                    continue
                cut = shapely.intersection(piece, geom)
                gaps += [RowGap(g, layer, oid) for g in _parts(cut) if g.length > 0]
                nxt += _parts(shapely.difference(piece, geom))
            pieces = nxt
        for piece in pieces:
            if piece.length >= min_length:
                keep.append(piece)
            else:
                gaps.append(RowGap(piece, "short", None))
    return keep, gaps


def _inside_receiver(
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


def channel_fences(
    polygon: BaseGeometry,
    dem: Dem,
    fg: FlowGrid,
    threshold_sqft: float | None,
    *,
    offset_ft: float,
    chan: gpd.GeoDataFrame | None = None,
) -> list[LineString]:
    """Fence lines along both edges of every channel (contributing area >= ``threshold_sqft``) passing
    through ``polygon``, ``offset_ft`` either side of its centreline (the profile's ``[controls]
    fence_channel_offset_ft``), clipped to the polygon.
    ``chan``: the channel network (DEM CRS) when already traced, so it is not traced again (then
    ``threshold_sqft`` may be None).
    """
    from geosite.hydrology import channels

    if chan is None:
        if threshold_sqft is None:
            raise ValueError("channel_fences: neither a channel network nor a threshold to trace one")
        chan = channels(fg, threshold_sqft)
    out: list[LineString] = []
    if not len(chan):
        return out
    off = offset_ft / dem.ft_per_unit
    for g in chan.geometry:
        part = shapely.intersection(g, polygon)
        for ln in getattr(part, "geoms", [part]):
            if ln.geom_type != "LineString" or ln.is_empty:
                continue
            for sgn in (1.0, -1.0):
                e = shapely.intersection(shapely.offset_curve(ln, sgn * off, join_style="mitre"), polygon)
                out += [p for p in getattr(e, "geoms", [e]) if p.geom_type == "LineString" and not p.is_empty]
    return out


def channel_inflow_banks(
    disturbed: BaseGeometry, dem: Dem, fg: FlowGrid, threshold_sqft: float
) -> tuple[np.ndarray, np.ndarray]:
    """Channel cells (contributing area >= ``threshold_sqft``) that the runoff of ``disturbed`` (DEM CRS)
    reaches overland, from their left and from their right bank (facing downstream): a cell is marked
    when one of its D8 donors is not a channel cell and is a disturbed cell or downstream of one.
    Runoff arriving along the channel itself (from upstream) marks nothing: a fence on the bank cannot
    keep out what is already in the channel.
    """
    from geosite.hydrology import weighted_accumulation

    inside = grid.rasterize(disturbed, dem.shape, dem.transform)
    reach = weighted_accumulation(fg.directions, inside) > 0  # NaN (nodata) compares False
    is_chan = fg.channel_cells(threshold_sqft)
    rr, rc, has = fg.receivers()
    donor = has & ~is_chan & reach & is_chan[rr, rc]
    dr_, dc_ = np.nonzero(donor)
    tr, tc = rr[donor], rc[donor]
    fx = (rc[tr, tc] - tc) * dem.cell_x_ft  # the channel's flow at the cell it enters (x east, y north)
    fy = -(rr[tr, tc] - tr) * dem.cell_y_ft
    vx = (dc_ - tc) * dem.cell_x_ft  # from that cell to the donor
    vy = -(dr_ - tr) * dem.cell_y_ft
    cross = fx * vy - fy * vx
    left = np.zeros(dem.shape, bool)
    right = np.zeros(dem.shape, bool)
    left[tr[cross > 0], tc[cross > 0]] = True
    right[tr[cross < 0], tc[cross < 0]] = True
    return left, right


def channel_edge_fences(
    disturbed: BaseGeometry,
    site: BaseGeometry,
    dem: Dem,
    fg: FlowGrid,
    chan: gpd.GeoDataFrame,
    *,
    threshold_sqft: float,
    offset_ft: float,
    min_piece_ft: float,
) -> gpd.GeoDataFrame:
    """Grantsburg B(6)(c)[3] ("if a channel or area of concentrated runoff passes through the site, filter
    fences shall be placed along the channel edges"): fences along the channels of ``chan`` (DEM CRS)
    inside ``site``, **outside** the disturbed polygons (inside them :func:`channel_fences` fences both
    edges), on the stretches and banks the disturbed area's runoff reaches (:func:`channel_inflow_banks`),
    ``offset_ft`` from the centreline (the profile's ``[controls] fence_channel_offset_ft``), each stretch
    half a cell longer at both ends; stretches on one bank less than ``min_piece_ft`` (ft; ``[controls]
    fence_row_min_length_ft``) apart joined and each run at least that long (:func:`bank_runs`).

    Returns a GeoDataFrame (DEM CRS) with ``side`` ("channel"), ``bank`` (left/right, facing downstream),
    ``segment`` (row of ``chan``) and ``length_ft``; empty when no such stretch exists. Its
    ``attrs["segments_reached"]`` counts the segments in the site the runoff reaches, inside the disturbed
    polygons or out.
    """
    import geopandas as gpd
    from shapely.ops import substring

    rows: dict[str, list[Any]] = {"side": [], "bank": [], "segment": [], "geometry": []}
    reached: set[int] = set()
    if chan is not None and len(chan):
        left, right = channel_inflow_banks(disturbed, dem, fg, threshold_sqft)
        off = offset_ft / dem.ft_per_unit
        half = 0.5 * min(abs(dem.transform.a), abs(dem.transform.e))
        keep_out = disturbed.buffer(0)
        lines = [(k, g) for k, whole in enumerate(chan.geometry) for g in _parts(whole)]  # single parts
        for k, g in lines:
            if not g.intersects(site):
                continue
            xy = np.asarray(g.coords)[:, :2]
            r, c = grid.rowcol(dem, xy[:, 0], xy[:, 1])
            along = np.r_[0.0, np.cumsum(np.hypot(*np.diff(xy, axis=0).T))]
            for bank, mask, sgn in (("left", left, 1.0), ("right", right, -1.0)):
                flags = mask[r, c]
                if not flags.any():
                    continue
                reached.add(k)
                edges = np.flatnonzero(np.diff(np.r_[0, flags.astype(np.int8), 0]))
                spans = [
                    (along[a] - half, along[b] + half)
                    for a, b in zip(edges[::2], edges[1::2] - 1, strict=False)
                ]
                for lo, hi in bank_runs(spans, g.length, min_piece_ft / dem.ft_per_unit):
                    piece = substring(g, lo, hi)
                    if piece.geom_type != "LineString" or piece.length <= 0:
                        continue
                    edge = shapely.offset_curve(piece, sgn * off, join_style="mitre")
                    edge = shapely.difference(shapely.intersection(edge, site), keep_out)
                    for p in _parts(edge) if not edge.is_empty else []:
                        rows["side"].append("channel")
                        rows["bank"].append(bank)
                        rows["segment"].append(k)
                        rows["geometry"].append(p)
    out = gpd.GeoDataFrame(rows, geometry="geometry", crs=dem.crs)
    out["length_ft"] = out.geometry.length * dem.ft_per_unit
    out.attrs["segments_reached"] = len(reached)
    return out


def bank_runs(spans: list[tuple[float, float]], length: float, min_run: float) -> list[tuple[float, float]]:
    """The runs of fence along one bank of a channel line of ``length``: the ``spans`` (start, end, along
    the line, CRS units) the runoff reaches, joined where the gap between them is under ``min_run`` and
    each run lengthened about its middle to ``min_run`` (as far as the line goes), so a crew builds runs,
    not a fragment a cell.
    """
    runs: list[list[float]] = []
    for lo, hi in sorted((max(a, 0.0), min(b, length)) for a, b in spans):
        if runs and lo - runs[-1][1] < min_run:
            runs[-1][1] = max(runs[-1][1], hi)
        else:
            runs.append([lo, hi])
    out = []
    for lo, hi in runs:
        grow = max(min_run - (hi - lo), 0.0) / 2
        lo, hi = lo - grow, hi + grow
        shift = max(-lo, 0.0) - max(hi - length, 0.0)  # slide back onto the line at either end
        out.append((max(lo + shift, 0.0), min(hi + shift, length)))
    return [(lo, hi) for lo, hi in out if hi > lo]


def _channel_corridor(
    poly: BaseGeometry, chan: gpd.GeoDataFrame | None, half_width: float
) -> BaseGeometry | None:
    """The strip of concentrated flow through ``poly``: its channels buffered ``half_width`` (CRS units)."""
    if chan is None or not len(chan):
        return None
    near = chan.geometry.values[shapely.intersects(chan.geometry.values, poly)]
    if not len(near):
        return None
    return shapely.buffer(shapely.union_all(near), half_width, cap_style="flat")


def _parts(geom: BaseGeometry) -> list[LineString]:
    """The non-empty LineStrings of a difference result."""
    merged = shapely.line_merge(geom) if geom.geom_type == "MultiLineString" else geom
    return [p for p in getattr(merged, "geoms", [merged]) if p.geom_type == "LineString" and not p.is_empty]


@dataclasses.dataclass(frozen=True)
class RowRules:
    """What makes an interior row one a crew can build (issue 25), from the profile's ``[controls]``.

    Attributes
    ----------
    max_turn_deg : float
        The sharpest turn (deg from straight on) a row may take at a post (``fence_row_max_turn_deg``):
        a row is cut there, the pieces built apart.
    min_piece_ft : float
        The shortest piece of row built, ft (``fence_row_min_length_ft``).
    max_perimeter_ratio : float
        Interior rows longer in all than this many times the disturbed part's perimeter are out of
        proportion (``fence_row_max_perimeter_ratio``): the Handbook's area practice stands in for them.
    """

    max_turn_deg: float
    min_piece_ft: float
    max_perimeter_ratio: float

    @classmethod
    def from_profile(cls, profile: Any) -> RowRules | None:
        """The rules of ``profile``'s ``[controls]`` (None when it lacks any of the three keys)."""
        keys = ("fence_row_max_turn_deg", "fence_row_min_length_ft", "fence_row_max_perimeter_ratio")
        vals = [profile.value("controls", k) for k in keys]
        if any(v is None for v in vals):
            return None
        return cls(*(float(v) for v in vals))


#: Why no buildable row keeps the slope above a fence within DNR 1056's length, as a stand-in area's
#: ``kind``: the rows would be out of proportion to the area, or a row is not built there (what stands in,
#: mulch or erosion mat, is the silt fence practice's choice: geosite.practices.silt_fence).
STAND_IN_KINDS = ("proportion", "row")
WHY_NOT_BUILT = {
    "loop": "a closed ring around a mound or hollow",
    "kink": "a kink sharper than a post can hold",
    "short": "a piece too short to build",
    "channel": "a row across concentrated flow",
}


def filter_fence(
    polygons: Any,
    dem: Dem,
    fg: FlowGrid | None = None,
    *,
    tolerance_deg: float,
    min_run_ft: float,
    hook_ft: float,
    table: Any,
    channel_threshold_sqft: float | None,
    channel_offset_ft: float,
    obstacles: gpd.GeoDataFrame | None = None,
    row_clearance_ft: float,
    row_min_length_ft: float,
    row_rules: RowRules | None = None,
    phases: gpd.GeoDataFrame | None = None,
) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """Filter fence for the disturbed polygons.

    Every number is the profile's (``[controls]`` and ``[terrain]``, each with its source), passed by
    name: ``tolerance_deg=profile.control("fence_sideslope_tolerance_deg")``,
    ``table=profile.control("fence_max_slope_length_ft")``, and so on; ``row_rules`` is
    ``RowRules.from_profile(profile)``.

    Parameters
    ----------
    polygons : geopandas.GeoDataFrame, geopandas.GeoSeries or shapely geometry
        The disturbed polygons (any projected CRS; reprojected to the DEM's and back), or a shapely
        geometry in the DEM's CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid or None
        Its flow grid (computed when None).
    tolerance_deg : float
        The boundary classification's sideslope band, degrees either side of 90 (:func:`classify_boundary`;
        ``[controls] fence_sideslope_tolerance_deg``).
    min_run_ft : float
        The boundary classification's shortest run, ft (:func:`classify_boundary`; ``[controls]
        fence_min_run_ft``).
    hook_ft : float
        Length of the upslope hooks at fence ends, ft (0: none): ``[controls] fence_hook_ft`` where the
        requirement's ``params.hooks`` asks for them (DNR 1056).
    table : sequence of (float, float) or None
        DNR 1056 rows (slope below, percent; maximum slope length, ft) for interior rows (None: no rows):
        ``[controls] fence_max_slope_length_ft``.
    channel_threshold_sqft : float or None
        Contributing area of a channel cell, sq ft, for the channel-edge fences (None: none):
        ``[terrain] channel_threshold_sqft``.
    channel_offset_ft : float
        Distance of the channel fences from the channel centreline, ft (``[controls]
        fence_channel_offset_ft``).
    obstacles : geopandas.GeoDataFrame or None
        What no interior row may cross (structures, drives, roads, water, stockpiles), with ``layer`` and
        ``id``. Each gap is a ``stand_in`` line naming the obstacle and what stands in for the row there
        (:data:`STAND_INS`).
    row_clearance_ft : float
        How far, ft, rows stop short of the obstacles (``[controls] fence_row_clearance_ft``).
    row_min_length_ft : float
        Pieces of row shorter than this, ft, are not built (``[controls] fence_row_min_length_ft``).
    row_rules : RowRules or None
        Rows a crew can build (:class:`RowRules`): no closed loops, no turn sharper than the profile's, no
        piece under its minimum, not out of proportion to the area. With them, ``fence`` holds only
        buildable fence and the stand-ins are areas where the replacement goes
        (``fence.attrs["stand_in_areas"]``, :func:`row_stand_ins`), never lines along the unbuilt row.
    phases : geopandas.GeoDataFrame or None
        The disturbance phases (``phase`` and each phase's ground; any CRS): rows are built phase by phase,
        so whether they are out of proportion is judged on each phase's ground, and a stand-in is split at
        the phases' edges (each piece goes down with its phase). None: the polygons are judged whole.

    Returns
    -------
    fence : geopandas.GeoDataFrame
        The fence lines in the input's CRS, with ``side`` (downslope, sideslope, hook, channel, interior;
        without ``row_rules`` also stand_in: not fence), ``polygon_id``, ``length_ft`` and, for stand-ins,
        ``obstacle`` and ``practice``.
    runs : geopandas.GeoDataFrame
        The classified boundary (downslope, sideslope, upslope, unclassified) in the input's CRS, with
        ``polygon_id`` and ``length_ft``.
    """
    from geosite.hydrology import flow_grid

    fg = fg or flow_grid(dem)
    geoms, ids, out_crs = _geoms_in_dem_crs(polygons, dem)
    where = _Layout(
        dem=dem,
        fg=fg,
        table=table,
        obst=_in_dem_crs(obstacles, dem),
        chan=_traced_channels(fg, channel_threshold_sqft),  # traced once for every polygon
        channel_threshold_sqft=channel_threshold_sqft,
        channel_offset_ft=channel_offset_ft,
        clearance=row_clearance_ft / dem.ft_per_unit,
        min_length=row_min_length_ft / dem.ft_per_unit,
        rules=row_rules,
        classify=(tolerance_deg, min_run_ft),
        phases=_phase_grounds(phases, dem),
    )
    fence_rows: dict[str, list[Any]] = {
        k: [] for k in ("side", "polygon_id", "geometry", "obstacle", "practice")
    }
    all_runs, stand_ins = [], []
    for pid, poly in zip(ids, geoms, strict=False):
        runs = classify_boundary(poly, dem, fg, tolerance_deg=tolerance_deg, min_run_ft=min_run_ft)
        runs["polygon_id"] = pid
        all_runs.append(runs)
        lines = [(side, g) for side, g in zip(runs["side"], runs.geometry, strict=False) if side in FENCED]
        lines += [("hook", h) for h in _hooks(runs, fg.downhill_at, dem, hook_ft, poly)]
        lines, gaps, areas = where.polygon(poly, lines)
        stand_ins += [{**a, "polygon_id": pid} for a in areas]
        _add_fence_rows(fence_rows, pid, lines, gaps)
    fence, runs_all = _fence_frames(fence_rows, all_runs, dem=dem, out_crs=out_crs)
    if row_rules is not None:
        fence.attrs["stand_in_areas"] = _stand_in_frame(stand_ins, dem, out_crs, _ft_per_unit(out_crs, dem))
    return fence, runs_all


def _in_dem_crs(obstacles: gpd.GeoDataFrame | None, dem: Dem) -> gpd.GeoDataFrame | None:
    """The obstacles in the DEM's CRS (None when there are none)."""
    if obstacles is None or not len(obstacles):
        return None
    return grid.to_crs(obstacles, dem.crs) if obstacles.crs is not None else obstacles


def _traced_channels(fg: FlowGrid, threshold_sqft: float | None) -> gpd.GeoDataFrame | None:
    """The channel network of ``fg`` (cells draining ``threshold_sqft`` sq ft or more; None without one)."""
    if not threshold_sqft:
        return None
    from geosite.hydrology import channels

    return channels(fg, threshold_sqft)


def _fence_frames(
    fence_rows: dict[str, list[Any]], all_runs: list[gpd.GeoDataFrame], *, dem: Dem, out_crs: Any
) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """The fence lines and the classified runs of every polygon, in ``out_crs`` with their ``length_ft``."""
    import geopandas as gpd
    import pandas as pd

    fence = gpd.GeoDataFrame(fence_rows, geometry="geometry", crs=dem.crs)
    runs_all = (
        gpd.GeoDataFrame(pd.concat(all_runs, ignore_index=True), geometry="geometry", crs=dem.crs)
        if all_runs
        else gpd.GeoDataFrame({"side": [], "length_ft": [], "polygon_id": []}, geometry=[], crs=dem.crs)
    )
    fence = grid.to_crs(fence, out_crs)
    runs_all = grid.to_crs(runs_all, out_crs)
    fpu = _ft_per_unit(out_crs, dem)
    fence["length_ft"] = fence.geometry.length * fpu
    runs_all["length_ft"] = runs_all.geometry.length * fpu
    return fence, runs_all


def _add_fence_rows(
    fence_rows: dict[str, list[Any]],
    pid: Any,
    lines: list[tuple[str, Any]],
    gaps: list[RowGap],
) -> None:
    """Polygon ``pid``'s fence ``lines`` (side, line) and stand-in ``gaps`` (line, obstacle layer, id)."""
    for side, g in lines:
        fence_rows["side"].append(side)
        fence_rows["polygon_id"].append(pid)
        fence_rows["geometry"].append(g)
        fence_rows["obstacle"].append(None)
        fence_rows["practice"].append(None)
    for g, layer, oid in gaps:
        fence_rows["side"].append("stand_in")
        fence_rows["polygon_id"].append(pid)
        fence_rows["geometry"].append(g)
        fence_rows["obstacle"].append(f"{layer} {oid}" if oid is not None else None)
        fence_rows["practice"].append(STAND_INS.get(layer, STAND_INS["short"]))


@dataclasses.dataclass(kw_only=True)
class _Layout:
    """The interior rows and channel fences of one disturbed polygon (DEM CRS; lengths in CRS units)."""

    dem: Dem
    fg: FlowGrid
    table: Any
    obst: gpd.GeoDataFrame | None
    chan: gpd.GeoDataFrame | None
    channel_threshold_sqft: float | None
    channel_offset_ft: float
    clearance: float
    min_length: float
    rules: RowRules | None
    classify: tuple[float, float]  # the boundary classification's tolerance_deg, min_run_ft (the profile's)
    phases: list[tuple[str, Any]] = dataclasses.field(default_factory=list)  # (phase, its ground, DEM CRS)

    @property
    def built(self) -> BaseGeometry | None:
        """The built ground among the obstacles (DEM CRS, :func:`footprints`): no slope length runs across
        it and no stand-in is laid on it.
        """
        return footprints(self.obst)

    def polygon(
        self, poly: BaseGeometry, lines: list[tuple[str, Any]]
    ) -> tuple[list[tuple[str, Any]], list[RowGap], list[dict[str, Any]]]:
        """(fence lines, stand-in lines (no ``rules``), stand-in areas (with ``rules``))."""
        dem, rules = self.dem, self.rules
        gaps: list[RowGap] = []
        if self.table is not None:
            raw = interior_rows(poly, dem, self.fg, self.table)
            if rules is None:
                rows, gaps = buildable_rows(raw, self.obst, self.clearance, self.min_length)
            else:
                rows, gaps = crew_rows(
                    raw, self.obst, rules, clearance=self.clearance, ft_per_unit=dem.ft_per_unit
                )
            lines = lines + [("interior", g) for g in rows]
        corridor = _channel_corridor(poly, self.chan, self.channel_offset_ft / dem.ft_per_unit)
        if corridor is not None:
            # DNR 1056: silt fence is for sheet and rill flow, never across concentrated flow: the
            # boundary and interior rows stop at the channel's edge fences
            lines = [(side, part) for side, g in lines for part in _parts(shapely.difference(g, corridor))]
            if rules is not None:  # the pieces the corridor leaves must be buildable too
                short = [
                    RowGap(g, "channel", None)
                    for side, g in lines
                    if side == "interior" and g.length * dem.ft_per_unit < rules.min_piece_ft
                ]
                gaps += short
                lines = [
                    (side, g)
                    for side, g in lines
                    if not (side == "interior" and g.length * dem.ft_per_unit < rules.min_piece_ft)
                ]
            lines += [
                ("channel", g)
                for g in channel_fences(
                    poly,
                    dem,
                    self.fg,
                    self.channel_threshold_sqft,
                    offset_ft=self.channel_offset_ft,
                    chan=self.chan,
                )
            ]
        if rules is None or self.table is None:
            return lines, gaps, []
        lines += self._below_obstacles(poly, gaps)
        lines, areas = self._stand_ins(poly, lines, gaps)
        return lines, [], areas

    def _below_obstacles(self, poly: BaseGeometry, gaps: list[RowGap]) -> list[tuple[str, Any]]:
        """Where a row stops at a structure or a pile: a row along the obstacle's downslope side instead
        (:data:`STAND_INS`), ``clearance`` from it, inside the polygon, of the minimum length: one
        straight run per obstacle (its longest downslope face), never a row turning the obstacle's
        corners, which would wrap the footprint a few feet off it where no crew can trench it.
        """
        assert self.rules is not None
        out: list[tuple[str, Any]] = []
        if self.obst is None:
            return out
        hit = {(layer, oid) for _g, layer, oid in gaps if layer in ("structures", "stockpiles")}
        for geom, layer, oid in zip(
            self.obst.geometry.values, self.obst["layer"], self.obst["id"], strict=True
        ):
            if (layer, oid) not in hit:
                continue
            ring = geom.buffer(self.clearance, join_style="mitre")
            tolerance_deg, min_run_ft = self.classify
            runs = classify_boundary(
                ring, self.dem, self.fg, tolerance_deg=tolerance_deg, min_run_ft=min_run_ft
            )
            pieces = [
                piece
                for g in runs.geometry[runs["side"] == "downslope"]
                for part in _parts(shapely.intersection(g, poly))
                for piece in split_at_kinks(part, self.rules.max_turn_deg)  # a corner is two rows
            ]
            face = max(pieces, key=lambda g: g.length, default=None)
            if face is not None and face.length * self.dem.ft_per_unit >= self.rules.min_piece_ft:
                out.append(("interior", face))
        return out

    def _stand_ins(
        self, poly: BaseGeometry, lines: list[tuple[str, Any]], gaps: list[RowGap]
    ) -> tuple[list[tuple[str, Any]], list[dict[str, Any]]]:
        """Rows out of proportion dropped, phase by phase (:meth:`_in_proportion`); then the ground still
        over DNR 1056's length above the fences (:func:`slope_length_excess`, the measure ``check``
        applies) as stand-in areas drawn as a crew lays them, one piece per phase, each with its reason.
        """
        lines, dropped = self._in_proportion(poly, lines)
        barriers = shapely.union_all([g for _side, g in lines]) if lines else None
        got = slope_length_excess(
            poly, self.dem, self.fg, barriers, self.table, geometry=True, built=self.built
        )
        if got.get("geometry") is None:
            return lines, []
        out = []
        for part in self._stand_in_ground(poly, got["geometry"], barriers):
            for piece, _key in self._by_phase(part):
                why = next((w for g, w in dropped if piece.intersection(g).area > 0.5 * piece.area), None)
                out.append(
                    {
                        "geometry": piece,
                        "kind": "proportion" if why else "row",
                        "stand_in_for": "interior silt fence rows (DNR 1056): "
                        + (why or _gap_reason(piece, gaps, self.table, self.dem.ft_per_unit)),
                    }
                )
        return lines, out

    def _in_proportion(
        self, poly: BaseGeometry, lines: list[tuple[str, Any]]
    ) -> tuple[list[tuple[str, Any]], list[tuple[Any, str]]]:
        """The fence lines with the interior rows of each phase (or of the whole polygon, without phases)
        whose rows total more than the profile's ratio times its perimeter dropped; and each such ground
        with why (rows are built phase by phase: a phase's rows go in when it opens).
        """
        assert self.rules is not None
        fpu = self.dem.ft_per_unit
        rows = [g for side, g in lines if side == "interior"]
        dropped: list[tuple[Any, str]] = []
        for key, ground in self._units(poly):
            rows_ft = sum(shapely.intersection(r, ground).length for r in rows) * fpu
            perimeter_ft = ground.boundary.length * fpu
            if perimeter_ft > 0 and rows_ft > self.rules.max_perimeter_ratio * perimeter_ft:
                where, whose = (
                    (f"in phase {key} ", f"phase {key}'s") if key is not None else ("", "the area's")
                )
                times = f"{rows_ft / perimeter_ft:.1f} times {whose} {perimeter_ft:,.0f} ft perimeter"
                dropped.append(
                    (
                        ground,
                        f"interior rows {where}would total {rows_ft:,.0f} ft, {times} (over the profile's "
                        f"{self.rules.max_perimeter_ratio:g}): out of proportion to build and keep up",
                    )
                )
        if not dropped:
            return lines, []
        cut = shapely.union_all([g for g, _ in dropped])
        keep = [(side, g) for side, g in lines if side != "interior"]
        for r in rows:
            keep += [
                ("interior", p)
                for p in _parts(shapely.difference(r, cut))
                if p.length * fpu >= self.rules.min_piece_ft
            ]
        return keep, dropped

    def _units(self, poly: BaseGeometry) -> list[tuple[str | None, Any]]:
        """The grounds rows are built on together: each phase's ground within ``poly``, or ``poly`` whole."""
        units: list[tuple[str | None, Any]] = []
        for k, g in self.phases:
            ground = shapely.intersection(g, poly)
            if not ground.is_empty and ground.area > 0.01 * poly.area:
                units.append((k, ground))
        return units or [(None, poly)]

    def _by_phase(self, part: BaseGeometry) -> list[tuple[Any, str | None]]:
        """``part`` cut at the phases' edges (each piece laid with its phase), or whole without phases."""
        if not self.phases:
            return [(part, None)]
        out: list[tuple[Any, str | None]] = []
        rest = part
        for k, g in self.phases:
            piece = shapely.intersection(rest, g)
            rest = shapely.difference(rest, g)
            out += [(p, k) for p in shapely.get_parts(piece) if p.geom_type == "Polygon" and p.area > 0]
        out += [(p, None) for p in shapely.get_parts(rest) if p.geom_type == "Polygon" and p.area > 0]
        return out

    def _stand_in_ground(
        self, poly: BaseGeometry, over: BaseGeometry, barriers: BaseGeometry | None
    ) -> list[Any]:
        """Where a stand-in goes: the cells over the length (``over``) and a cell around them, inside
        ``poly``, never on an obstacle (a house, a road, a drive, a pile, a trap) nor on a fence's own
        ground (the cells the measure stops at, within three quarters of a cell of it: one or the other,
        never both), drawn as a crew lays it (:func:`geosite.controls.drafted.drafted_area`); pieces left of
        the margin alone, holding no part of an over-length cell, are dropped.
        """
        from geosite.controls.drafted import drafted_area

        cell = max(abs(self.dem.transform.a), abs(self.dem.transform.e))
        area = shapely.intersection(over.buffer(cell, join_style="mitre"), poly)
        allowed = poly
        if self.obst is not None and len(self.obst):
            allowed = shapely.difference(allowed, shapely.union_all(self.obst.geometry.values))
        if barriers is not None:
            allowed = shapely.difference(allowed, barriers.buffer(0.75 * cell))
        core = over.buffer(-0.25 * cell, join_style="mitre")
        return drafted_area(area, allowed, cell=cell, ft_per_unit=self.dem.ft_per_unit, must=core)


def _gap_reason(area: BaseGeometry, gaps: list[RowGap], table: Any, fpu: float) -> str:
    """Why no row serves ``area``: the unbuilt row nearest it (within the table's longest slope length)."""
    reach = max(float(r[1]) for r in table) / fpu
    near = [(area.distance(g), layer, oid) for g, layer, oid in gaps if area.distance(g) <= reach]
    if not near:
        return "no row on the contour keeps the slope above the next fence within the standard's length here"
    _d, layer, oid = min(near, key=lambda t: t[0])
    what = (
        WHY_NOT_BUILT.get(layer)
        or f"the row would cross {layer} {oid}: {STAND_INS.get(layer, STAND_INS['short'])}"
    )
    return f"the row here is not built ({what})"


def crew_rows(
    rows: list[LineString], obstacles: Any, rules: RowRules, *, clearance: float, ft_per_unit: float
) -> tuple[list[LineString], list[RowGap]]:
    """Interior rows a crew can build (``rules``): closed loops dropped, rows cut at turns sharper than
    ``rules.max_turn_deg``, then cut at obstacles (:func:`buildable_rows`, ``clearance`` CRS units) and
    pieces under ``rules.min_piece_ft`` dropped. Returns (rows, unbuilt pieces as (line, why, obstacle id))
    with why ``loop``, ``kink``, ``short`` or the obstacle's layer.
    """
    gaps: list[RowGap] = []
    open_rows: list[LineString] = []
    for row in rows:
        if row.is_closed or (
            len(row.coords) > 3
            and shapely.Point(row.coords[0]).distance(shapely.Point(row.coords[-1])) * ft_per_unit
            < rules.min_piece_ft
            and row.length * ft_per_unit > 3 * rules.min_piece_ft
        ):
            gaps.append(RowGap(row, "loop", None))
            continue
        open_rows += split_at_kinks(row, rules.max_turn_deg)
    kept, cut = buildable_rows(open_rows, obstacles, clearance, rules.min_piece_ft / ft_per_unit)
    return kept, gaps + cut


def split_at_kinks(row: LineString, max_turn_deg: float) -> list[LineString]:
    """``row`` cut at every vertex where it turns more than ``max_turn_deg`` from straight on."""
    xy = np.asarray(row.coords)[:, :2]
    if len(xy) < 3:
        return [row]
    d = np.diff(xy, axis=0)
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0]))
    turn = np.abs((np.diff(ang) + 180.0) % 360.0 - 180.0)
    cuts = np.flatnonzero(turn > max_turn_deg) + 1  # vertex indices
    out, start = [], 0
    for k in [*cuts.tolist(), len(xy) - 1]:
        if k - start >= 1:
            out.append(LineString(xy[start : k + 1]))
        start = k
    return [g for g in out if g.length > 0]


def _stand_in_frame(rows: list[dict[str, Any]], dem: Dem, out_crs: Any, fpu: float) -> gpd.GeoDataFrame:
    import geopandas as gpd

    cols = ("kind", "stand_in_for", "polygon_id")
    frame = gpd.GeoDataFrame(
        {c: [r[c] for r in rows] for c in cols}, geometry=[r["geometry"] for r in rows], crs=dem.crs
    )
    frame = grid.to_crs(frame, out_crs)
    frame["area_sqft"] = frame.geometry.area * fpu**2
    return frame


def row_stand_ins(fence: gpd.GeoDataFrame) -> gpd.GeoDataFrame | None:
    """The stand-in areas :func:`filter_fence` placed with ``row_rules`` (None without them)."""
    return fence.attrs.get("stand_in_areas")


def fence_summary(fence: gpd.GeoDataFrame) -> dict[str, float]:
    """Lengths (ft) by side: downslope, sideslope, hook, channel, interior; ``total_length_ft`` is the
    B(6)(c)[3] fence (downslope, sideslope and channel-edge runs with their end hooks); DNR 1056's interior
    rows come on top, in ``with_interior_length_ft``. Unclassified boundary stretches get no fence: their
    length is in the classified runs, not here.
    """
    out = {}
    for side in ("downslope", "sideslope", "hook", "channel", "interior"):
        out[f"{side}_length_ft"] = (
            float(fence.loc[fence["side"] == side, "length_ft"].sum()) if len(fence) else 0.0
        )
    out["total_length_ft"] = sum(out[f"{k}_length_ft"] for k in ("downslope", "sideslope", "hook", "channel"))
    out["with_interior_length_ft"] = out["total_length_ft"] + out["interior_length_ft"]
    # where an interior row cannot be built: not fence, what stands in for it (a row below, mat, phasing)
    out["interior_stand_in_length_ft"] = (
        float(fence.loc[fence["side"] == "stand_in", "length_ft"].sum()) if len(fence) else 0.0
    )
    return out


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

    win = _window(inside, dem.shape)
    sub = _sub_dem(dem, win, np.asarray(fg.filled_ft[win], float))
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


def _ft_per_unit(crs: Any, dem: Dem) -> float:
    from geosite.units import feet_per_crs_unit

    return dem.ft_per_unit if crs is None or crs.equals(dem.crs) else feet_per_crs_unit(crs, "layer")


def _phase_grounds(phases: gpd.GeoDataFrame | None, dem: Dem) -> list[tuple[str, Any]]:
    """Each phase's ground (its polygons dissolved, DEM CRS), in the order given; none without phases."""
    if phases is None or not len(phases) or "phase" not in phases.columns:
        return []
    gs = grid.to_crs(phases, dem.crs) if phases.crs is not None else phases
    keys = [str(k) for k in gs["phase"]]
    out = []
    for k in dict.fromkeys(keys):
        out.append(
            (k, shapely.union_all([g for g, x in zip(gs.geometry.values, keys, strict=True) if x == k]))
        )
    return out if len(out) > 1 else []  # one phase: the polygons are its ground


def _geoms_in_dem_crs(polygons: Any, dem: Dem) -> tuple[list[Any], list[Any], Any]:
    """(geometries in the DEM CRS, ids, the CRS results go back to)."""
    from shapely.geometry.base import BaseGeometry

    if isinstance(polygons, BaseGeometry):
        return [polygons], [1], dem.crs
    crs = polygons.crs or dem.crs
    gs = grid.to_crs(polygons, dem.crs)
    ids = (
        list(polygons["id"])
        if hasattr(polygons, "columns") and "id" in polygons.columns
        else list(range(1, len(polygons) + 1))
    )
    return list(gs.geometry), ids, crs


__all__ = [
    "BUILT_LAYERS",
    "STAND_IN_KINDS",
    "ROW_OBSTACLE_LAYERS",
    "RowGap",
    "STAND_INS",
    "UNCLASSIFIED",
    "RowRules",
    "buildable_rows",
    "cells_polygon",
    "channel_edge_fences",
    "channel_fences",
    "channel_inflow_banks",
    "classify_boundary",
    "crew_rows",
    "fence_summary",
    "filter_fence",
    "interior_rows",
    "max_slope_length_ft",
    "row_stand_ins",
    "slope_length_excess",
    "split_at_kinks",
]
