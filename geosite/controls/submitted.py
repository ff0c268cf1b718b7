"""The submitted controls (``bmps`` layer, by ``type``) against the required ones.

A required fence stretch is covered where a ``silt_fence`` or ``straw_bales`` line lies within
``tolerance_ft`` of it; the rest are the gaps (pieces shorter than ``min_gap_ft`` are ignored). An inlet
is protected by an ``inlet_protection`` BMP within ``search_ft``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from geosite import grid

if TYPE_CHECKING:
    import geopandas as gpd

FENCE_TYPES = ("silt_fence", "straw_bales")


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


def fence_coverage(
    required: gpd.GeoDataFrame,
    bmps: gpd.GeoDataFrame | None,
    tolerance_ft: float = 10.0,
    min_gap_ft: float = 1.0,
) -> tuple[dict[str, Any], gpd.GeoDataFrame]:
    """Coverage of the required fence lines by submitted fences.

    Returns (summary, gaps): ``required_length_ft``, ``covered_length_ft``, ``gap_length_ft``,
    ``covered_fraction``; gaps as lines (``required``'s CRS) with ``side``, ``polygon_id`` when present,
    and ``length_ft``.
    """
    import geopandas as gpd

    from geosite.units import feet_per_crs_unit

    crs = required.crs
    fpu = feet_per_crs_unit(crs, "required fence")
    fences = bmps_of(bmps, FENCE_TYPES)
    fence_u = grid.to_crs(fences, crs).geometry.union_all() if fences is not None and len(fences) else None
    tol = tolerance_ft / fpu
    rows: dict[str, list[Any]] = {"side": [], "polygon_id": [], "geometry": []}
    req_len = 0.0
    for i in range(len(required)):
        g = required.geometry.iloc[i]
        req_len += g.length * fpu
        for part in gaps_along(g, fence_u, tol):
            if part.length * fpu < min_gap_ft:
                continue
            rows["side"].append(required["side"].iloc[i] if "side" in required.columns else None)
            rows["polygon_id"].append(required["polygon_id"].iloc[i] if "polygon_id" in required.columns else None)
            rows["geometry"].append(part)
    gaps = gpd.GeoDataFrame(rows, geometry="geometry", crs=crs)
    gaps["length_ft"] = gaps.geometry.length * fpu
    gap_len = float(gaps["length_ft"].sum())
    summary = {
        "required_length_ft": req_len,
        "covered_length_ft": max(req_len - gap_len, 0.0),
        "gap_length_ft": gap_len,
        "covered_fraction": (1.0 - gap_len / req_len) if req_len > 0 else None,
        "submitted_fence_length_ft": float(fences.geometry.length.sum() * fpu) if fences is not None and len(fences) else 0.0,
    }
    return summary, gaps


def protected(points: gpd.GeoDataFrame, bmps: gpd.GeoDataFrame | None, types: tuple[str, ...], search_ft: float) -> np.ndarray:
    """For each point (or feature), whether a BMP of ``types`` lies within ``search_ft``."""
    from geosite.units import feet_per_crs_unit

    got = bmps_of(bmps, types)
    if got is None or not len(got):
        return np.zeros(len(points), bool)
    fpu = feet_per_crs_unit(points.crs, "points")
    u = grid.to_crs(got, points.crs).geometry.union_all()
    return np.array([g.distance(u) * fpu <= search_ft for g in points.geometry], bool)
