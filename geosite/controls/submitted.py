"""The submitted controls (``bmps`` layer, by ``type``) against the required ones.

A required fence stretch is covered where a ``silt_fence`` or ``straw_bales`` line lies within
``tolerance_ft`` of it, or, given the flow routing, where the runoff leaving the stretch meets such a
line within ``reach_ft`` downslope before it leaves the site (a fence set a few yards below the limits
of disturbance, along the site's low edge, does the edge fence's work: B(6)(c)[3] asks for fences
"along all sideslope and downslope sides of the site"); the rest are the gaps (pieces shorter than
``min_gap_ft`` are ignored). An inlet is protected by an ``inlet_protection`` BMP within ``search_ft``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from geosite import grid
from geosite.controls.fences import cells_polygon, slope_length_excess

if TYPE_CHECKING:
    import geopandas as gpd

FENCE_TYPES = ("silt_fence", "straw_bales")
#: DNR 1056's slope length above the submitted fences: one definition (:func:`slope_length_excess`, beside
#: the rows that keep it), used by ``check`` here and by the proposal's rows and stand-ins
__all__ = [
    "FENCE_TYPES",
    "bmps_of",
    "cells_polygon",
    "fence_coverage",
    "gaps_along",
    "intercepted",
    "protected",
    "slope_length_excess",
]


def bmps_of(bmps: gpd.GeoDataFrame | None, types: tuple[str, ...]) -> gpd.GeoDataFrame | None:
    """The BMPs of the given types (None when there is no bmps layer or no ``type`` column)."""
    if bmps is None or "type" not in bmps.columns:
        return None
    return bmps[bmps["type"].astype(str).str.strip().str.lower().isin(types)]


def gaps_along(required: Any, fences: Any, tol: float) -> list[Any]:
    """Stretches of a required fence line no submitted fence covers, measured along the line.

    A submitted fence covers the stretch between the projections onto the line of its parts lying
    within ``tol`` (CRS units) of it. Unlike a buffer of the fences, this does not stretch coverage
    ``tol`` past a fence's ends, so a missing 140 ft stretch reads 140 ft, not 120.
    """
    from shapely.ops import substring

    gaps = []
    for r in getattr(required, "geoms", [required]):
        if r.length <= 0:
            continue
        intervals = []
        if fences is not None:
            near = shapely.intersection(fences, r.buffer(tol, cap_style="flat"))
            for part in getattr(near, "geoms", [near]):
                if part.is_empty or part.geom_type not in ("LineString", "LinearRing", "Point"):
                    continue
                ds = [r.project(shapely.Point(c)) for c in part.coords]
                intervals.append((min(ds), max(ds)))
        intervals.sort()
        pos = 0.0
        for a, b in intervals + [(r.length, r.length)]:
            if a > pos:
                gaps.append(substring(r, pos, a))
            pos = max(pos, b)
    return gaps


def intercepted(
    line: Any,
    crs: Any,
    flow: tuple[Any, Any, np.ndarray],
    fence_mask: np.ndarray,
    *,
    reach_ft: float,
    beyond_ft: float,
    required_dem: Any,
) -> list[tuple[float, float]]:
    """The parts of ``line`` (in ``crs``) whose runoff meets a submitted fence (``fence_mask``: the DEM
    cells within three quarters of a cell of one) on its D8 path within ``reach_ft``, more than
    ``beyond_ft`` from every required line (``required_dem``, DEM CRS: a fence beside a required line is
    the beside-the-line rule's, :func:`gaps_along`, so a gap keeps its measured length up to a fence's
    end), before the path leaves the site (``flow`` = (dem, flow grid, the site's cells on it)). Sampled
    about every DEM cell along the line; returns the intercepted stretches as (start, end) distances
    along ``line``.
    """

    from geosite.units import feet_per_crs_unit

    dem, fg, site_cells = flow
    step_ft = min(dem.cell_x_ft, dem.cell_y_ft)
    fpu = feet_per_crs_unit(crs, "required fence")
    n = max(int(np.ceil(line.length * fpu / step_ft)), 1)
    d = np.linspace(0.0, line.length, n + 1)
    pts = grid.geom_to_crs(shapely.multipoints(shapely.line_interpolate_point(line, d)), crs, dem.crs)
    xy = shapely.get_coordinates(pts)
    x, y = xy[:, 0], xy[:, 1]
    on = grid.inside_grid(dem, x, y)
    r, c = grid.rowcol(dem, x, y)
    hit = np.zeros(on.shape, bool)
    alive = on.copy()
    nr, nc = dem.shape
    for _ in range(int(np.ceil(reach_ft / step_ft))):
        k = fg.directions[r, c].astype(np.int64)
        go = alive & (k >= 1) & (k <= 8)
        if not go.any():
            break
        k = np.where(go, k - 1, 0)
        r2, c2 = r + np.where(go, grid.DR[k], 0), c + np.where(go, grid.DC[k], 0)
        go &= (r2 >= 0) & (r2 < nr) & (c2 >= 0) & (c2 < nc)
        r, c = np.where(go, r2, r), np.where(go, c2, c)
        go &= site_cells[r, c]  # runoff that has left the site has passed every fence of the plan
        meet = go & fence_mask[r, c]
        if meet.any():
            cx, cy = grid.centres(dem, r[meet], c[meet])
            far = shapely.distance(required_dem, shapely.points(cx, cy)) * dem.ft_per_unit > beyond_ft
            meet[np.flatnonzero(meet)[~far]] = False
        hit |= meet
        alive = go & ~hit
    parts = []
    half = 0.5 * (d[1] - d[0])
    k = 0
    while k <= n:
        if not hit[k]:
            k += 1
            continue
        j = k
        while j + 1 <= n and hit[j + 1]:
            j += 1
        parts.append((max(d[k] - half, 0.0), min(d[j] + half, line.length)))
        k = j + 1
    return parts


def fence_coverage(
    required: gpd.GeoDataFrame,
    bmps: gpd.GeoDataFrame | None,
    tolerance_ft: float = 10.0,
    min_gap_ft: float = 1.0,
    *,
    flow: tuple[Any, Any, np.ndarray] | None = None,
    reach_ft: float = 50.0,
) -> tuple[dict[str, Any], gpd.GeoDataFrame]:
    """Coverage of the required fence lines by submitted fences.

    ``flow`` = (dem, flow grid, the site's cells on it): a stretch no fence runs beside is covered too
    where its runoff meets a submitted fence within ``reach_ft`` downslope on the site
    (:func:`intercepted`).

    Returns (summary, gaps): ``required_length_ft``, ``covered_length_ft``, ``gap_length_ft``,
    ``covered_fraction``, ``intercepted_length_ft`` (covered by a fence downslope rather than beside);
    gaps as lines (``required``'s CRS) with ``side``, ``polygon_id`` when present, and ``length_ft``.
    """
    import geopandas as gpd
    from shapely.ops import substring

    from geosite.units import feet_per_crs_unit

    crs = required.crs
    fpu = feet_per_crs_unit(crs, "required fence")
    fences = bmps_of(bmps, FENCE_TYPES)
    fence_u = grid.to_crs(fences, crs).geometry.union_all() if fences is not None and len(fences) else None
    tol = tolerance_ft / fpu
    rows: dict[str, list[Any]] = {"side": [], "polygon_id": [], "geometry": []}
    req_len = 0.0
    caught_ft = 0.0
    fence_mask = required_dem = None
    if flow is not None and fence_u is not None:
        dem = flow[0]
        fence_dem = grid.geom_to_crs(fence_u, crs, dem.crs)
        fence_mask = grid.rasterize(
            fence_dem.buffer(0.75 * min(abs(dem.transform.a), abs(dem.transform.e))), dem.shape, dem.transform
        )
        required_dem = grid.geom_to_crs(shapely.union_all(required.geometry.values), crs, dem.crs)
    for i in range(len(required)):
        g = required.geometry.iloc[i]
        req_len += g.length * fpu
        for part in gaps_along(g, fence_u, tol):
            pieces = [part]
            if fence_mask is not None and flow is not None and part.length * fpu >= min_gap_ft:
                caught = intercepted(
                    part,
                    crs,
                    flow,
                    fence_mask,
                    reach_ft=reach_ft,
                    beyond_ft=tolerance_ft,
                    required_dem=required_dem,
                )
                caught_ft += sum(b - a for a, b in caught) * fpu
                pieces, pos = [], 0.0
                for a, b in caught + [(part.length, part.length)]:
                    if a > pos:
                        pieces.append(substring(part, pos, a))
                    pos = max(pos, b)
            for piece in pieces:
                if piece.length * fpu < min_gap_ft:
                    continue
                rows["side"].append(required["side"].iloc[i] if "side" in required.columns else None)
                rows["polygon_id"].append(
                    required["polygon_id"].iloc[i] if "polygon_id" in required.columns else None
                )
                rows["geometry"].append(piece)
    gaps = gpd.GeoDataFrame(rows, geometry="geometry", crs=crs)
    gaps["length_ft"] = gaps.geometry.length * fpu
    gap_len = float(gaps["length_ft"].sum())
    summary = {
        "required_length_ft": req_len,
        "covered_length_ft": max(req_len - gap_len, 0.0),
        "gap_length_ft": gap_len,
        "covered_fraction": (1.0 - gap_len / req_len) if req_len > 0 else None,
        "intercepted_length_ft": caught_ft,
        "submitted_fence_length_ft": float(fences.geometry.length.sum() * fpu)
        if fences is not None and len(fences)
        else 0.0,
    }
    return summary, gaps


def protected(
    points: gpd.GeoDataFrame, bmps: gpd.GeoDataFrame | None, types: tuple[str, ...], search_ft: float
) -> np.ndarray:
    """For each point (or feature), whether a BMP of ``types`` lies within ``search_ft``."""
    from geosite.units import feet_per_crs_unit

    got = bmps_of(bmps, types)
    if got is None or not len(got):
        return np.zeros(len(points), bool)
    fpu = feet_per_crs_unit(points.crs, "points")
    u = grid.to_crs(got, points.crs).geometry.union_all()
    return np.array([g.distance(u) * fpu <= search_ft for g in points.geometry], bool)
