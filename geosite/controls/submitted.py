"""The submitted controls (``bmps`` layer, by ``type``) against the required ones.

A required fence stretch is covered where a submitted barrier line (silt fence, straw bales: the practices
of the barrier family, geosite.practices) lies within
``tolerance_ft`` of it, or, given the flow routing, where the runoff leaving the stretch meets such a
line within ``reach_ft`` downslope before it leaves the site (a fence set a few yards below the limits
of disturbance, along the site's low edge, does the edge fence's work: B(6)(c)[3] asks for fences
"along all sideslope and downslope sides of the site"); the rest are the gaps (pieces shorter than
``min_gap_ft`` are ignored). An inlet is protected by an ``inlet_protection`` BMP within ``search_ft``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

import numpy as np
import shapely

from geosite import grid
from geosite.controls.slope_length import cells_polygon, slope_length_excess

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid

#: DNR 1056's slope length above the submitted fences: one definition (:func:`slope_length_excess`, beside
#: the rows that keep it), used by ``check`` here and by the proposal's rows and stand-ins
__all__ = [
    "Coverage",
    "FenceCoverage",
    "SiteFlow",
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

    A submitted fence covers the stretch between the positions along the line of its parts lying within
    ``tol`` (CRS units) of it, segment by segment of the line (so a fence identical to the line covers all of
    it, whatever its start vertex, its direction, or whether the line closes on itself or doubles back).
    Unlike a buffer of the fences, this does not stretch
    coverage ``tol`` past a fence's ends, so a missing 140 ft stretch reads 140 ft, not 120.
    """
    from shapely.ops import substring

    gaps = []
    for r in getattr(required, "geoms", [required]):
        if r.length <= 0:
            continue
        intervals = _covered_intervals(r, fences, tol) if fences is not None else []
        intervals.sort()
        pos = 0.0
        for a, b in intervals + [(r.length, r.length)]:
            if a > pos + 1e-9:
                gaps.append(substring(r, pos, a))
            pos = max(pos, b)
    return gaps


def _covered_intervals(r: Any, fences: Any, tol: float) -> list[tuple[float, float]]:
    """The (start, end) positions along the line ``r`` of the fences' segments within ``tol`` of it, each
    of ``r``'s segments taken on its own (a line that doubles back or closes on itself is covered where a
    fence runs along each of its passes, not only the first).
    """
    near = shapely.intersection(fences, r.buffer(tol, cap_style="flat"))
    if near.is_empty:
        return []
    out: list[tuple[float, float]] = []
    xy = list(r.coords)
    start = 0.0
    for p0, p1 in zip(xy[:-1], xy[1:], strict=True):
        seg = shapely.LineString([p0, p1])
        if seg.length <= 0:
            continue
        for part in shapely.get_parts(shapely.intersection(near, seg.buffer(tol, cap_style="flat"))):
            if part.is_empty or part.geom_type not in ("LineString", "LinearRing"):
                continue
            pts = list(part.coords)
            for q0, q1 in zip(pts[:-1], pts[1:], strict=True):
                a, b = seg.project(shapely.Point(q0)), seg.project(shapely.Point(q1))
                out.append((start + min(a, b), start + max(a, b)))
        start += seg.length
    return out


class Coverage(TypedDict):
    """How far the submitted fences cover the required ones (lengths in ft)."""

    required_length_ft: float
    covered_length_ft: float
    gap_length_ft: float
    #: the covered share of the required length (None when nothing is required)
    covered_fraction: float | None
    #: covered by a fence downslope rather than beside
    intercepted_length_ft: float
    submitted_fence_length_ft: float


@dataclass(frozen=True, eq=False)
class FenceCoverage:
    """The submitted fences along the required ones (:func:`fence_coverage`): how much they cover, and
    where they do not.

    Attributes
    ----------
    summary : Coverage
        ``required_length_ft``, ``covered_length_ft``, ``gap_length_ft``, ``covered_fraction``,
        ``intercepted_length_ft`` and ``submitted_fence_length_ft``, all ft but the fraction.
    gaps : geopandas.GeoDataFrame
        The gaps as lines (the required lines' CRS) with ``side``, ``polygon_id`` and ``length_ft``.
    """

    summary: Coverage
    gaps: gpd.GeoDataFrame


class SiteFlow(NamedTuple):
    """Where runoff goes on the site: the DEM, its flow grid and the site's cells on the DEM's grid."""

    dem: Dem
    fg: FlowGrid
    site_cells: np.ndarray


def intercepted(
    line: Any,
    crs: Any,
    flow: SiteFlow | tuple[Any, Any, np.ndarray],
    fence_mask: np.ndarray,
    *,
    reach_ft: float,
    beyond_ft: float,
    required_dem: Any,
) -> list[tuple[float, float]]:
    """The parts of ``line`` whose runoff meets a submitted fence on its way down.

    Sampled about every DEM cell along the line, each point's D8 path is followed within ``reach_ft``
    while it stays on the site; a path meets a fence in a ``fence_mask`` cell more than ``beyond_ft``
    from every required line (a fence beside a required line is the beside-the-line rule's,
    :func:`gaps_along`, so a gap keeps its measured length up to a fence's end).

    Parameters
    ----------
    line : shapely.geometry.LineString
        A stretch of required fence, in ``crs``.
    crs : pyproj.CRS
        The CRS of ``line``.
    flow : SiteFlow
        The DEM, its flow grid and the site's cells on it (runoff that leaves the site has passed every
        fence of the plan).
    fence_mask : numpy.ndarray
        The DEM cells within three quarters of a cell of a submitted fence.
    reach_ft : float
        How far, ft, a path is followed downslope.
    beyond_ft : float
        A fence cell counts only this far, ft, or farther from every required line.
    required_dem : shapely geometry
        The required lines in the DEM's CRS.

    Returns
    -------
    list of tuple of float
        The intercepted stretches as (start, end) distances along ``line``, in ``crs`` units.
    """
    from geosite.units import feet_per_crs_unit

    dem = flow[0]
    step_ft = min(dem.cell_x_ft, dem.cell_y_ft)
    fpu = feet_per_crs_unit(crs, "required fence")
    n = max(int(np.ceil(line.length * fpu / step_ft)), 1)
    d = np.linspace(0.0, line.length, n + 1)
    pts = grid.geom_to_crs(shapely.multipoints(shapely.line_interpolate_point(line, d)), crs, dem.crs)
    xy = shapely.get_coordinates(pts)
    hit = _paths_meeting_fence(
        SiteFlow(*flow),
        xy[:, 0],
        xy[:, 1],
        fence_mask,
        steps=int(np.ceil(reach_ft / step_ft)),
        beyond_ft=beyond_ft,
        required_dem=required_dem,
    )
    return _hit_stretches(hit, d, line.length)


def _paths_meeting_fence(
    flow: SiteFlow,
    x: np.ndarray,
    y: np.ndarray,
    fence_mask: np.ndarray,
    *,
    steps: int,
    beyond_ft: float,
    required_dem: Any,
) -> np.ndarray:
    """Whether the D8 path from each point (x, y, DEM CRS) meets a ``fence_mask`` cell more than
    ``beyond_ft`` ft from the required lines within ``steps`` cells, before it leaves the site.
    """
    dem, fg, site_cells = flow
    on = grid.inside_grid(dem, x, y)
    r, c = grid.rowcol(dem, x, y)
    hit = np.zeros(on.shape, bool)
    alive = on.copy()
    nr, nc = dem.shape
    for _ in range(steps):
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
    return hit


def _hit_stretches(hit: np.ndarray, d: np.ndarray, length: float) -> list[tuple[float, float]]:
    """The runs of ``hit`` samples (at distances ``d`` along a line of ``length``, CRS units) as (start,
    end) distances, each sample standing for half a spacing either side.
    """
    parts = []
    n = len(d) - 1
    half = 0.5 * (d[1] - d[0])
    k = 0
    while k <= n:
        if not hit[k]:
            k += 1
            continue
        j = k
        while j + 1 <= n and hit[j + 1]:
            j += 1
        parts.append((max(d[k] - half, 0.0), min(d[j] + half, length)))
        k = j + 1
    return parts


def fence_coverage(
    required: gpd.GeoDataFrame,
    fences: gpd.GeoDataFrame | None,
    *,
    tolerance_ft: float,
    min_gap_ft: float = 1.0,
    flow: SiteFlow | tuple[Any, Any, np.ndarray] | None = None,
    reach_ft: float,
) -> FenceCoverage:
    """Coverage of the required fence lines by submitted fences.

    Parameters
    ----------
    required : geopandas.GeoDataFrame
        The required fence lines (any projected CRS), with ``side`` and ``polygon_id`` when known.
    fences : geopandas.GeoDataFrame or None
        The submitted barrier lines (the ``bmps`` features of the barrier practices: silt fence, straw
        bales), any projected CRS; None: none submitted.
    tolerance_ft : float
        A submitted fence within this distance, ft, of a required line runs beside it: the profile's
        ``[controls] fence_cover_tolerance_ft``.
    min_gap_ft : float
        Gaps shorter than this, ft, are ignored (a stockpile's fence: ``[controls]
        stockpile_fence_min_gap_ft``). The default, 1 ft, is geosite's choice, not the ordinance's.
    flow : SiteFlow or None
        The DEM, its flow grid and the site's cells on it: a stretch no fence runs beside is covered too
        where its runoff meets a submitted fence within ``reach_ft`` downslope on the site
        (:func:`intercepted`).
    reach_ft : float
        How far downslope, ft, a submitted fence may catch a stretch's runoff: the profile's
        ``[controls] fence_intercept_reach_ft``.

    Returns
    -------
    FenceCoverage
        ``summary``: ``required_length_ft``, ``covered_length_ft``, ``gap_length_ft``, ``covered_fraction``,
        ``intercepted_length_ft`` (covered by a fence downslope rather than beside) and
        ``submitted_fence_length_ft``, all ft but the fraction; ``gaps``: the gaps as lines (``required``'s
        CRS) with ``side``, ``polygon_id`` when present, and ``length_ft``.
    """
    import geopandas as gpd

    from geosite.units import feet_per_crs_unit

    crs = required.crs
    fpu = feet_per_crs_unit(crs, "required fence")
    fence_u = grid.to_crs(fences, crs).geometry.union_all() if fences is not None and len(fences) else None
    catch = (
        _Catch.of(required, fence_u, SiteFlow(*flow), reach_ft=reach_ft, beside_ft=tolerance_ft)
        if flow is not None and fence_u is not None
        else None
    )
    rows: dict[str, list[Any]] = {"side": [], "polygon_id": [], "geometry": []}
    req_len = 0.0
    caught_ft = 0.0
    for i in range(len(required)):
        g = required.geometry.iloc[i]
        req_len += g.length * fpu
        for part in gaps_along(g, fence_u, tolerance_ft / fpu):
            pieces = [part]
            if catch is not None and part.length * fpu >= min_gap_ft:
                got = catch.uncaught(part, crs)
                pieces = got.pieces
                caught_ft += got.caught_crs_length * fpu
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
    submitted_ft = float(fences.geometry.length.sum() * fpu) if fences is not None and len(fences) else 0.0
    return FenceCoverage(
        _coverage_summary(req_len, float(gaps["length_ft"].sum()), caught_ft, submitted_ft), gaps
    )


@dataclass(frozen=True)
class _Uncaught:
    """What of a gap no fence below catches (:meth:`_Catch.uncaught`).

    Attributes
    ----------
    pieces : list of shapely.LineString
        The pieces of the gap whose runoff no fence below catches.
    caught_crs_length : float
        The length of the gap caught below, in the gap's CRS units (not ft).
    """

    pieces: list[Any]
    caught_crs_length: float


@dataclass(frozen=True)
class _Catch:
    """The submitted fences as the flow meets them: the DEM cells near a fence and the required lines (DEM
    CRS), for :func:`intercepted`.
    """

    flow: SiteFlow
    fence_mask: np.ndarray
    required_dem: Any
    reach_ft: float
    beside_ft: float

    @classmethod
    def of(
        cls, required: gpd.GeoDataFrame, fence_u: Any, flow: SiteFlow, *, reach_ft: float, beside_ft: float
    ) -> _Catch:
        """The catch of the fences ``fence_u`` (``required``'s CRS) below the ``required`` lines.

        Parameters
        ----------
        required : geopandas.GeoDataFrame
            The required fence lines.
        fence_u : shapely geometry
            The submitted fences, in ``required``'s CRS.
        flow : SiteFlow
            The DEM, its flow grid and the site's cells on it.
        reach_ft : float
            How far downslope, ft, a fence may catch a stretch's runoff.
        beside_ft : float
            A fence within this distance, ft, of a required line runs beside it (not below it).

        Returns
        -------
        _Catch
            The fence cells and the required lines on the DEM.
        """
        dem, crs = flow.dem, required.crs
        fence_dem = grid.geom_to_crs(fence_u, crs, dem.crs)
        fence_mask = grid.rasterize(
            fence_dem.buffer(0.75 * min(abs(dem.transform.a), abs(dem.transform.e))), dem.shape, dem.transform
        )
        required_dem = grid.geom_to_crs(shapely.union_all(required.geometry.values), crs, dem.crs)
        return cls(flow, fence_mask, required_dem, reach_ft, beside_ft)

    def uncaught(self, part: Any, crs: Any) -> _Uncaught:
        """The pieces of the gap ``part`` (in ``crs``) whose runoff no fence below catches, and the length
        caught (``crs`` units).
        """
        from shapely.ops import substring

        caught = intercepted(
            part,
            crs,
            self.flow,
            self.fence_mask,
            reach_ft=self.reach_ft,
            beyond_ft=self.beside_ft,
            required_dem=self.required_dem,
        )
        pieces, pos = [], 0.0
        for a, b in caught + [(part.length, part.length)]:
            if a > pos:
                pieces.append(substring(part, pos, a))
            pos = max(pos, b)
        return _Uncaught(pieces, sum(b - a for a, b in caught))


def _coverage_summary(req_len: float, gap_len: float, caught_ft: float, submitted_ft: float) -> Coverage:
    """The coverage summary from the required, gap, intercepted and submitted lengths (ft)."""
    return {
        "required_length_ft": req_len,
        "covered_length_ft": max(req_len - gap_len, 0.0),
        "gap_length_ft": gap_len,
        "covered_fraction": (1.0 - gap_len / req_len) if req_len > 0 else None,
        "intercepted_length_ft": caught_ft,
        "submitted_fence_length_ft": submitted_ft,
    }


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
