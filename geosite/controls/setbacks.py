"""Soil stockpile setbacks (Grantsburg B(6)(e)): "wherever possible" 25 ft from any **downslope** road,
lake, stream, wetland or drainage channel (the drainage channels traced on the DEM count as much as
drawn ones); a fence on the downslope side of each pile (the text asks for no end hooks); piles kept
over 30 days stabilized.

Notes
-----
When a feature is downslope of a pile is decided from the DEM, in either of two ways:

1. **Flow reaches it**: the D8 flow paths traced from every cell of the pile (on the depression-filled
   routing), as the segments from each cell centre to the next, pass within ``reach_tolerance_ft`` of
   the feature within ``trace_ft`` (path steps). The tolerance is three quarters of a cell, capped in
   feet (``reach_tolerance_ft``, 5 ft by default): on a coarse DEM a cell is wider than the setback
   itself, and a road beside or above a pile must never read "downslope" because it shares its cell.
2. **It lies below and faces the pile**: the feature's height at its nearest point to the pile is
   below the pile's lowest edge height (min of the DEM along the pile's outline) by more than
   ``tolerance_ft``, and the straight line from the pile's nearest point to the feature's descends:
   its far end is lower than its start and no point along it rises above the start by more than
   ``tolerance_ft`` (no ridge between them).

Anything else is upslope or beside the pile: reported (as information when within the setback), never
a violation. Distances are planar, between the pile's outline and the feature, in feet of the site CRS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid
from geosite.hydrology import trace_down
from geosite.io.output import py_scalar
from geosite.rules import Verdict

if TYPE_CHECKING:
    from collections.abc import Callable

    import geopandas as gpd

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid

FEATURE_LAYERS = ("roads", "lakes", "streams", "wetlands", "channels")
#: the features key of the drainage channels traced on the DEM (hydrology.channels), beside the drawn layers
DEM_CHANNELS = "dem_channels"


class NearestFeature(TypedDict):
    """A feature near a pile: its layer, its id and its distance from the pile's outline, ft."""

    layer: str
    id: Any
    distance_ft: float


class FeatureNear(NearestFeature):
    """A feature near a pile, whether it is downslope of the pile and why (:func:`is_downslope`; None
    where the DEM's heights cannot tell).
    """

    downslope: bool | None
    why: str


class PileReport(TypedDict):
    """One pile's entry in :func:`stockpile_setbacks`' report; the controls stage adds the pile's measures
    (for requirements written ``for_each`` pile) and whether it must be stabilized.
    """

    id: Any
    #: the distance to the nearest (downslope) feature, ft; None when there is none
    min_setback_ft: float | None
    nearest_feature: NearestFeature | None
    downslope: bool
    violation: bool
    #: how long the pile stays, days (None when not given)
    days: float | None
    #: the pile's own attributes of these names (None when not given)
    stabilization: str | None
    setback_reason: str | None
    extra_bmps: str | None
    #: the features within the setback that are not downslope (reported, never a violation)
    near_upslope: list[FeatureNear]
    #: the features within the setback whether downslope or not the DEM cannot tell (no heights there)
    undecided: list[FeatureNear]
    #: every feature considered, nearest first
    features: list[FeatureNear]
    area_sqft: NotRequired[float]
    height_ft: NotRequired[float | None]
    volume_cy: NotRequired[float | None]
    downslope_distance_ft: NotRequired[float | None]
    stabilization_required: NotRequired[bool | None]


@dataclass(frozen=True, eq=False)
class StockpileSetbacks:
    """The piles against their setback (:func:`stockpile_setbacks`): each pile's report, its setback zone
    and its fence.

    Attributes
    ----------
    piles : list of PileReport
        Per pile: ``id``, ``min_setback_ft``, ``nearest_feature``, ``downslope``, ``violation``, ``days``,
        ``stabilization``, ``near_upslope``, ``undecided``, ``setback_reason`` and ``extra_bmps``,
        ``features`` (distances in ft).
    zones : geopandas.GeoDataFrame
        Setback zone polygons (each pile buffered by the setback), in the piles' CRS, with ``pile_id`` and
        ``setback_ft``.
    fences : geopandas.GeoDataFrame
        The piles' fence lines with ``pile_id`` and ``length_ft``, in the piles' CRS.
    """

    piles: list[PileReport]
    zones: gpd.GeoDataFrame
    fences: gpd.GeoDataFrame


def is_downslope(
    pile: Any,
    feature: Any,
    dem: Dem,
    fg: FlowGrid,
    *,
    trace_ft: float,
    tolerance_ft: float = 0.1,
    _paths: Any = None,
    reach_tolerance_ft: float,
) -> Verdict:
    """Whether ``feature`` is downslope of ``pile`` (both shapely geometries in the DEM CRS), and why
    ("flow reaches it", "lower and facing", or "not downslope"); None where the DEM has no heights at the
    pile's edge or the feature and the pile's flow does not reach it (it cannot be told). See the
    module notes.

    ``trace_ft``, how far D8 paths are followed from the pile, and ``reach_tolerance_ft``, how near a
    path must pass a feature to reach it, are the profile's ``[controls] stockpile_trace_ft`` and
    ``stockpile_reach_tolerance_ft``. ``tolerance_ft``, how much lower than the pile's edge the feature
    must lie, ft, defaults to 0.1 ft: geosite's choice, not the ordinance's (a numerical tolerance).
    """
    cellu = max(abs(dem.transform.a), abs(dem.transform.e))
    segments = _paths if _paths is not None else _flow_segments(pile, dem, fg, trace_ft)
    if len(segments):
        tol = min(0.75 * cellu, reach_tolerance_ft / dem.ft_per_unit)
        if np.any(shapely.dwithin(feature, segments, tol)):
            return Verdict(True, "flow reaches it")
    p_pile, p_feat = shapely.ops.nearest_points(pile, feature)
    ring = shapely.segmentize(pile.boundary, cellu)
    edge = np.asarray(shapely.get_coordinates(ring))
    z_ring = grid.elevation_at(dem, edge[:, 0], edge[:, 1])
    z_edge = float(np.nanmin(z_ring)) if np.isfinite(z_ring).any() else np.nan
    z_feat = float(grid.elevation_at(dem, np.array([p_feat.x]), np.array([p_feat.y]))[0])
    if not (np.isfinite(z_edge) and np.isfinite(z_feat)):
        return Verdict(None, "no DEM heights at the pile's edge or at the feature")
    if not z_feat < z_edge - tolerance_ft:
        return Verdict(False, "not downslope")
    line = shapely.segmentize(LineString([p_pile, p_feat]), cellu)
    pts = np.asarray(line.coords)
    prof = grid.elevation_at(dem, pts[:, 0], pts[:, 1])
    prof = prof[np.isfinite(prof)]
    if prof.size >= 2 and prof[-1] < prof[0] and np.max(prof) <= prof[0] + tolerance_ft:
        return Verdict(True, "lower and facing")
    return Verdict(False, "not downslope")


def _flow_segments(pile: Any, dem: Dem, fg: FlowGrid, trace_ft: float) -> np.ndarray:
    """The D8 flow paths from the pile's cells, as segments from each path cell's centre to the next's."""
    mask = grid.rasterize(pile, dem.shape, dem.transform)
    rows, cols = np.nonzero(mask)
    if not rows.size:
        return np.array([], dtype=object)
    steps = int(np.ceil(trace_ft / min(dem.cell_x_ft, dem.cell_y_ft)))
    cells = trace_down(fg.directions, rows, cols, steps)
    r, c = np.divmod(cells, dem.shape[1])
    d = fg.directions[r, c].astype(np.int64)
    go = (d >= 1) & (d <= 8)
    k = np.where(go, d - 1, 0)
    r2, c2 = r + np.where(go, grid.DR[k], 0), c + np.where(go, grid.DC[k], 0)
    x0, y0 = grid.centres(dem, r, c)
    x1, y1 = grid.centres(dem, r2, c2)
    # a cell with no receiver on the grid keeps a zero-length segment: its own centre
    return shapely.linestrings(np.stack([np.column_stack([x0, y0]), np.column_stack([x1, y1])], axis=1))


def flow_path_distance(
    pile: Any, feature: Any, dem: Dem, fg: FlowGrid, *, trace_ft: float, reach_tolerance_ft: float
) -> float:
    """The drainage length from ``pile``'s downslope edge to ``feature`` along the D8 flow path, ft: the
    shortest, over the paths leaving the pile, of the length from where the path leaves the pile's outline to
    where it first passes within ``reach_tolerance_ft`` (at most three quarters of a cell) of ``feature``
    (both geometries in the DEM's CRS); ``inf`` when no path reaches it within ``trace_ft`` of the pile.

    Parameters
    ----------
    pile, feature : shapely geometry
        The pile's polygon and the feature, in the DEM's CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid
        Its flow grid (the routing of the depression-filled surface).
    trace_ft : float
        How far, ft, the paths are followed beyond the pile's edge.
    reach_tolerance_ft : float
        How near, ft, a path must pass the feature to reach it (capped at three quarters of a cell).

    Returns
    -------
    float
        The drainage length, ft (``inf``: not reached within ``trace_ft``).
    """
    inside = grid.rasterize(pile, dem.shape, dem.transform)
    rr, rc, has = fg.receivers()
    exits = inside & has & ~inside[rr, rc]
    r, c = np.nonzero(exits)
    if not r.size:
        return float("inf")
    cellu = max(abs(dem.transform.a), abs(dem.transform.e))
    tol = min(0.75 * cellu, reach_tolerance_ft / dem.ft_per_unit)
    edge = pile.boundary
    x, y = grid.centres(dem, r, c)
    # the length walked from the pile's outline: each path starts at its exit cell's centre, inside the pile
    walked = -shapely.distance(shapely.points(x, y), edge) * dem.ft_per_unit
    best = float("inf")
    nr, nc = dem.shape
    alive = np.ones(r.size, bool)
    for _ in range(int(np.ceil(trace_ft / min(dem.cell_x_ft, dem.cell_y_ft))) + 1):
        d = fg.directions[r, c].astype(np.int64)
        go = alive & (d >= 1) & (d <= 8)
        if not go.any():
            break
        k = np.where(go, d - 1, 0)
        r2, c2 = r + np.where(go, grid.DR[k], 0), c + np.where(go, grid.DC[k], 0)
        go &= (r2 >= 0) & (r2 < nr) & (c2 >= 0) & (c2 < nc)
        x2, y2 = grid.centres(dem, r2, c2)
        segs = shapely.linestrings(np.stack([np.column_stack([x, y]), np.column_stack([x2, y2])], axis=1))
        hit = go & shapely.dwithin(segs, feature, tol)
        for j in np.flatnonzero(hit):
            near = shapely.ops.nearest_points(segs[j], feature)[0]
            best = min(best, float(walked[j] + segs[j].project(near) * dem.ft_per_unit))
        step = np.hypot(x2 - x, y2 - y) * dem.ft_per_unit
        walked = walked + np.where(go, step, 0.0)
        alive = go & ~hit & (walked <= trace_ft)
        r, c, x, y = np.where(go, r2, r), np.where(go, c2, c), np.where(go, x2, x), np.where(go, y2, y)
    return max(best, 0.0)


def pile_fences(
    piles: gpd.GeoDataFrame, dem: Dem, fg: FlowGrid, *, tolerance_deg: float, hook_ft: float, side: str
) -> gpd.GeoDataFrame:
    """The fence of each pile: along its downslope side (``side`` "downslope") or all round (``"all"``),
    with hooks of ``hook_ft`` ft at the ends of each downslope run.

    Parameters
    ----------
    piles : geopandas.GeoDataFrame
        Stockpile polygons with ``id``, any projected CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid
        Its flow grid.
    tolerance_deg : float
        The boundary classification's sideslope band, degrees (:func:`geosite.controls.classify_boundary`).
    hook_ft : float
        Upslope hooks at the fence's ends, ft (0: none).
    side : str
        "downslope" or "all".

    Returns
    -------
    geopandas.GeoDataFrame
        The fence lines (the piles' CRS) with ``pile_id`` and ``length_ft``.
    """
    import geopandas as gpd

    from geosite.units import feet_per_crs_unit

    piles_dem = grid.to_crs(piles, dem.crs)
    rows: dict[str, list[Any]] = {"pile_id": [], "geometry": []}
    for i in range(len(piles)):
        pid = py_scalar(piles["id"].iloc[i]) if "id" in piles.columns else i + 1
        for g in _pile_fence(
            piles_dem.geometry.iloc[i], dem, fg, tolerance_deg=tolerance_deg, hook_ft=hook_ft, side=side
        ):
            rows["pile_id"].append(pid)
            rows["geometry"].append(g)
    fences = grid.to_crs(gpd.GeoDataFrame(rows, geometry="geometry", crs=dem.crs), piles.crs)
    fences["length_ft"] = fences.geometry.length * feet_per_crs_unit(piles.crs, "stockpiles")
    return fences


def stockpile_setbacks(
    piles: gpd.GeoDataFrame,
    features: dict[str, gpd.GeoDataFrame],
    dem: Dem,
    fg: FlowGrid | None = None,
    *,
    min_setback_ft: float,
    trace_ft: float,
    tolerance_deg: float,
    reach_tolerance_ft: float,
    hook_ft: float,
    downslope_only: bool = True,
    fence_side: str = "downslope",
) -> StockpileSetbacks:
    """Setbacks of soil stockpiles from the downslope features.

    Parameters
    ----------
    piles : geopandas.GeoDataFrame
        Stockpile polygons with ``id`` (and ``days``), in a projected CRS.
    features : dict of str to geopandas.GeoDataFrame
        Layer name -> its features (roads, lakes, streams, wetlands, channels, and the channels traced on
        the DEM), any projected CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid or None
        Its flow grid (``flow_grid(dem)``, computed when omitted; pass one to reuse it).
    min_setback_ft : float
        Required distance, ft, from the features (the profile's requirement gives it).
    trace_ft : float
        How far, ft, D8 paths are followed from each pile.
    tolerance_deg : float
        The downslope fence's sideslope band, degrees (see
        :func:`geosite.controls.boundary_sides.classify_boundary`).
    reach_tolerance_ft : float
        The most, ft, a flow path may pass from a feature and still reach it (see the notes).
    hook_ft : float
        Upslope hooks at the fence's ends, ft: ``[controls] fence_hook_ft`` where the stockpile fence
        requirement's ``params.hooks`` asks for them, else 0 (Grantsburg's B(6)(e) asks for the downslope
        side only).
    downslope_only : bool
        Only features downslope of the pile count for the setback (True: the chapters' "downslope road,
        lake ..."); False: every feature within the setback counts.
    fence_side : str
        "downslope" (the pile's downslope side) or "all" (a fence all round).

    Returns
    -------
    StockpileSetbacks
        ``piles``: per pile, ``id``, ``min_setback_ft``, ``nearest_feature``, ``downslope``, ``violation``,
        ``days``, ``stabilization``, ``near_upslope``, ``undecided``, ``setback_reason`` and ``extra_bmps``
        (the pile's attributes of those names, None when not given), ``features``; ``zones``: setback zone
        polygons (each pile buffered by ``min_setback_ft``), in the piles' CRS; ``fences``: the downslope
        fence lines with ``pile_id`` and ``length_ft``, in the piles' CRS.
    """
    import geopandas as gpd

    from geosite.hydrology import flow_grid
    from geosite.units import feet_per_crs_unit

    fg = fg if fg is not None else flow_grid(dem)

    crs = piles.crs
    fpu = feet_per_crs_unit(crs, "stockpiles")
    piles_dem = grid.to_crs(piles, dem.crs)
    feats = {k: v for k, v in features.items() if v is not None and len(v)}
    feats_dem = {k: grid.to_crs(v, dem.crs) for k, v in feats.items()}
    report: list[PileReport] = []
    for i in range(len(piles)):
        pid = py_scalar(piles["id"].iloc[i]) if "id" in piles.columns else i + 1
        pile, pile_d = piles.geometry.iloc[i], piles_dem.geometry.iloc[i]
        found = _features_near(
            pile,
            pile_d,
            feats,
            feats_dem,
            dem=dem,
            fg=fg,
            paths=_flow_segments(pile_d, dem, fg, trace_ft),
            trace_ft=trace_ft,
            min_setback_ft=min_setback_ft,
            reach_tolerance_ft=reach_tolerance_ft,
            fpu=fpu,
        )
        found.sort(key=lambda f: f["distance_ft"])
        report.append(
            _pile_entry(piles, i, pid, found, min_setback_ft=min_setback_ft, downslope_only=downslope_only)
        )
    zones = gpd.GeoDataFrame(
        {"pile_id": [r["id"] for r in report], "setback_ft": [min_setback_ft] * len(report)},
        geometry=list(piles.geometry.buffer(min_setback_ft / fpu)),
        crs=crs,
    )
    fences = pile_fences(piles, dem, fg, tolerance_deg=tolerance_deg, hook_ft=hook_ft, side=fence_side)
    return StockpileSetbacks(report, zones, fences)


def _pile_fence(
    pile_d: Any, dem: Dem, fg: FlowGrid, *, tolerance_deg: float, hook_ft: float, side: str
) -> list[LineString]:
    """The fence of one pile (DEM CRS): along its downslope side (``side`` "downslope") or all round
    (``"all"``), with hooks of ``hook_ft`` ft at the ends of each downslope run; ``tolerance_deg`` the
    boundary classification's sideslope band, degrees.
    """
    from geosite.controls.boundary_sides import classify_boundary

    runs = classify_boundary(pile_d, dem, fg, tolerance_deg=tolerance_deg, min_run_ft=0.0)
    lines = list(runs.geometry if side == "all" else runs.geometry[runs["side"] == "downslope"])
    return lines + _pile_hooks(runs, fg.downhill_at, dem, hook_ft)


def _features_near(
    pile: Any,
    pile_d: Any,
    feats: dict[str, gpd.GeoDataFrame],
    feats_dem: dict[str, gpd.GeoDataFrame],
    *,
    dem: Dem,
    fg: FlowGrid,
    paths: Any,
    trace_ft: float,
    min_setback_ft: float,
    reach_tolerance_ft: float,
    fpu: float,
) -> list[FeatureNear]:
    """Each feature of ``feats`` (the piles' CRS; ``feats_dem`` in the DEM's) with its distance from the
    pile (ft) and whether it is downslope of it (``pile_d``: the pile in the DEM's CRS).
    """
    found: list[FeatureNear] = []
    for lname, gdf in feats.items():
        gd = feats_dem[lname]
        for j in range(len(gdf)):
            dist = float(pile.distance(gdf.geometry.iloc[j])) * fpu
            if lname == DEM_CHANNELS and dist > trace_ft + min_setback_ft:
                continue  # the traced network is large: beyond the trace and the setback it cannot matter
            down = is_downslope(
                pile_d,
                gd.geometry.iloc[j],
                dem,
                fg,
                trace_ft=trace_ft,
                _paths=paths,
                reach_tolerance_ft=reach_tolerance_ft,
            )
            fid = py_scalar(gdf["id"].iloc[j]) if "id" in gdf.columns else j + 1
            found.append(
                {"layer": lname, "id": fid, "distance_ft": dist, "downslope": down.value, "why": down.why}
            )
    return found


def _pile_entry(
    piles: gpd.GeoDataFrame,
    i: int,
    pid: Any,
    found: list[FeatureNear],
    *,
    min_setback_ft: float,
    downslope_only: bool,
) -> PileReport:
    """Pile ``i``'s report entry from the features ``found`` near it (nearest first)."""
    downs = [f for f in found if f["downslope"] or not downslope_only]
    nearest = downs[0] if downs else (found[0] if found else None)
    min_set = downs[0]["distance_ft"] if downs else None
    days = piles["days"].iloc[i] if "days" in piles.columns else None
    days = None if days is None or (isinstance(days, float) and np.isnan(days)) else float(days)
    return {
        "id": pid,
        "min_setback_ft": min_set,
        "nearest_feature": None
        if nearest is None
        else {"layer": nearest["layer"], "id": nearest["id"], "distance_ft": nearest["distance_ft"]},
        "downslope": bool(nearest["downslope"]) if nearest else False,
        "violation": bool(min_set is not None and min_set < min_setback_ft),
        "days": days,
        "stabilization": _text(piles, i, "stabilization"),
        "near_upslope": [
            f
            for f in found
            if downslope_only and f["downslope"] is False and f["distance_ft"] < min_setback_ft
        ],
        "undecided": [
            f
            for f in found
            if downslope_only and f["downslope"] is None and f["distance_ft"] < min_setback_ft
        ],
        "setback_reason": _text(piles, i, "setback_reason"),
        "extra_bmps": _text(piles, i, "extra_bmps"),
        "features": found,
    }


def number_at(gdf: gpd.GeoDataFrame, i: int, col: str) -> float | None:
    """A numeric attribute of row ``i`` (site loading has checked it is a number), None when the column is
    absent or the value missing.
    """
    if col not in gdf.columns:
        return None
    v = gdf[col].iloc[i]
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if np.isnan(x) else x


def _text(gdf: gpd.GeoDataFrame, i: int, col: str) -> str | None:
    """A text attribute of row ``i``, None when the column is absent or the value empty."""
    if col not in gdf.columns:
        return None
    v = gdf[col].iloc[i]
    if v is None or (isinstance(v, float) and np.isnan(v)) or not str(v).strip():
        return None
    return str(v).strip()


def _pile_hooks(
    runs: gpd.GeoDataFrame,
    sample: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    dem: Dem,
    hook_ft: float,
) -> list[LineString]:
    """Hooks of ``hook_ft`` ft at the ends of each downslope run (each run its own chain), turned upslope
    (``sample``: the downhill direction at points).
    """
    from geosite.controls.fence_hooks import fence_hooks

    out = []
    for idx in np.flatnonzero(runs["side"].to_numpy() == "downslope"):
        one = runs.copy()
        one["chain"] = -1
        one.iloc[idx, one.columns.get_loc("chain")] = 0
        one["chain_pos"] = 0
        out += fence_hooks(one, sample, dem, hook_ft)
    return out
