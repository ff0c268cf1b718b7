"""Sediment basin / trap location (Grantsburg B(6)(c)[2]; DNR technical standards 1063 and 1064), storm
drain inlets (B(4), DNR 1060), tracking pads (B(3), DNR 1057) and sheetflow diversions (B(6)(a)).

* Basin: at the disturbed area's lowest outlet, the boundary cell of the area whose D8 receiver lies
  outside it (or off the grid) with the largest accumulation; its drainage area is that accumulation
  (upslope land included). A trap under ``trap_max_acres`` (1063), a basin up to ``basin_max_acres``
  (1064), more than one basin beyond.
* Inlets: an inlet in the disturbed area, or on a D8 path from a disturbed cell (accumulation weighted
  by the disturbed cells > 0 in the inlet's cell or its 8 neighbours), needs protection; one draining
  more than ``inlet_max_acres`` (largest accumulation within one cell) needs a trap or basin upstream.
* Tracking: an entrance is where an access drive meets a road (public unless the road's ``public`` is
  false); the pad runs ``min_length_ft`` along the drive from the road.
* Diversions: along the upslope-classified edges of each disturbed polygon receiving more than
  ``area_sqft`` of sheetflow at a velocity not below ``velocity_fps``, offset outward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from geosite.controls import _grid
from geosite.dem import Dem
from geosite.io.output import py_scalar
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.hydrology import FlowGrid


def basin_location(
    disturbed: Any,
    dem: Dem,
    fg: FlowGrid,
    trap_max_acres: float = 5.0,
    basin_max_acres: float = 100.0,
) -> gpd.GeoDataFrame:
    """The proposed sediment basin/trap at the disturbed area's lowest outlet.

    Parameters
    ----------
    disturbed : GeoDataFrame/GeoSeries of the disturbed area (any projected CRS).
    dem, fg : the DEM and its FlowGrid.
    trap_max_acres, basin_max_acres : DNR 1063 / 1064 drainage limits.

    Returns
    -------
    geopandas.GeoDataFrame
        One point (in the input's CRS) with ``drainage_area_sqft``, ``drainage_area_acres``, ``kind``
        (sediment_trap, sediment_basin, multiple_basins) and ``limit``; empty when no cell drains out.
    """
    import geopandas as gpd

    geom = _grid.to_crs(disturbed, dem.crs).geometry.union_all()
    inside = _grid.rasterize(geom, dem)
    rr, rc, has = _grid.receivers(fg.directions)
    leaves = inside & (~has | ~inside[rr, rc]) & (fg.directions != 255)
    cols = {"drainage_area_sqft": [], "drainage_area_acres": [], "kind": [], "limit": []}
    if not leaves.any():
        return gpd.GeoDataFrame(cols, geometry=[], crs=disturbed.crs)
    acc = fg.accumulation_sqft()
    a = np.where(leaves, acc, -1.0)
    r, c = np.unravel_index(int(np.argmax(a)), a.shape)
    area = float(acc[r, c])
    acres = area / SQFT_PER_ACRE
    if acres < trap_max_acres:
        kind, limit = "sediment_trap", f"DNR 1063: trap for drainage under {trap_max_acres:g} acres"
    elif acres <= basin_max_acres:
        kind, limit = "sediment_basin", f"DNR 1064: basin for drainage up to {basin_max_acres:g} acres"
    else:
        kind, limit = "multiple_basins", f"drainage over {basin_max_acres:g} acres: more than one basin (DNR 1064)"
    x, y = _grid.centres(dem, np.array([r]), np.array([c]))
    out = gpd.GeoDataFrame(
        {"drainage_area_sqft": [area], "drainage_area_acres": [acres], "kind": [kind], "limit": [limit]},
        geometry=[Point(float(x[0]), float(y[0]))],
        crs=dem.crs,
    )
    return _grid.to_crs(out, disturbed.crs)


def inlet_protection(
    inlets: gpd.GeoDataFrame,
    disturbed: Any,
    dem: Dem,
    fg: FlowGrid,
    max_drainage_acres: float = 1.0,
) -> gpd.GeoDataFrame:
    """Storm drain inlets that need protection (in, or downslope of, the disturbed area).

    Returns the inlets (input CRS) with ``in_disturbed``, ``downslope_of_disturbed``,
    ``protection_required``, ``drainage_area_sqft``, ``drainage_area_acres`` and
    ``trap_or_basin_required`` (draining more than ``max_drainage_acres``, DNR 1060).
    """
    from geosite import _flow_kernels as fk

    dist = _grid.to_crs(disturbed, dem.crs).geometry.union_all()
    inside = _grid.rasterize(dist, dem)
    reach = np.empty(fg.directions.shape)
    fk.accumulate(fg.directions, inside.astype(np.float64), reach)
    acc = fg.accumulation_sqft()
    pts = _grid.to_crs(inlets, dem.crs).geometry.centroid
    r, c = _grid.rowcol(dem, pts.x.to_numpy(), pts.y.to_numpy())
    on = _grid.inside_grid(dem, pts.x.to_numpy(), pts.y.to_numpy())
    nr, nc = dem.shape
    down, area = [], []
    for ri, ci, ok in zip(r, c, on):
        if not ok:
            down.append(False)
            area.append(np.nan)
            continue
        win = (slice(max(ri - 1, 0), min(ri + 2, nr)), slice(max(ci - 1, 0), min(ci + 2, nc)))
        down.append(bool(np.nanmax(reach[win]) > 0))
        area.append(float(np.nanmax(acc[win])))
    out = inlets.copy()
    out["in_disturbed"] = [bool(g.intersects(dist)) for g in _grid.to_crs(inlets, dem.crs).geometry]
    out["downslope_of_disturbed"] = down
    out["protection_required"] = out["in_disturbed"] | out["downslope_of_disturbed"]
    out["drainage_area_sqft"] = area
    out["drainage_area_acres"] = np.asarray(area) / SQFT_PER_ACRE
    out["trap_or_basin_required"] = out["protection_required"] & (out["drainage_area_acres"] > max_drainage_acres)
    return out


def tracking_pads(
    drives: gpd.GeoDataFrame,
    roads: gpd.GeoDataFrame,
    min_length_ft: float = 50.0,
    width_ft: float = 12.0,
    bmps: gpd.GeoDataFrame | None = None,
    search_ft: float = 10.0,
) -> tuple[list[dict[str, Any]], gpd.GeoDataFrame]:
    """Entrances (access drive meets road) and the tracking pad each needs (B(3), DNR 1057).

    Returns (entrances, pads): per entrance ``drive_id``, ``road_id``, ``x``, ``y``,
    ``pad_length_ft`` (declared on the drive), ``submitted_pad`` (a ``tracking_pad`` BMP within
    ``search_ft``, or a declared pad of at least ``min_length_ft``); pads as polygons (same CRS as the
    drives) with ``drive_id`` and ``length_ft``.
    """
    import geopandas as gpd

    from geosite.units import feet_per_crs_unit

    crs = drives.crs
    fpu = feet_per_crs_unit(crs, "access_drives")
    roads = _grid.to_crs(roads, crs)
    if "public" in roads.columns:
        roads = roads[roads["public"].fillna(True).astype(bool)]
    pads_b = None
    if bmps is not None and "type" in bmps.columns:
        pads_b = _grid.to_crs(bmps[bmps["type"].astype(str).str.lower() == "tracking_pad"], crs)
    entrances, pad_geoms, pad_ids, pad_len = [], [], [], []
    road_u = roads.geometry.union_all() if len(roads) else None
    for i in range(len(drives)):
        g = drives.geometry.iloc[i]
        did = py_scalar(drives["id"].iloc[i]) if "id" in drives.columns else i + 1
        if road_u is None or not g.intersects(road_u.buffer(1.0 / fpu)):
            continue
        hit = shapely.intersection(g, road_u.buffer(1.0 / fpu))
        pt = hit.centroid
        rid = next((py_scalar(roads["id"].iloc[j]) for j in range(len(roads)) if roads.geometry.iloc[j].distance(g) <= 1.0 / fpu), None)
        axis = g if g.geom_type.endswith("LineString") else _long_axis(g)
        if axis.geom_type == "MultiLineString":
            axis = max(axis.geoms, key=lambda a: a.length)
        s0 = axis.project(pt)
        L = min_length_ft / fpu
        s1 = s0 + L if s0 + L <= axis.length else s0 - L
        pad_line = shapely.ops.substring(axis, min(s0, s1), max(s0, s1))
        pad = pad_line.buffer(width_ft / 2 / fpu, cap_style="flat")
        declared = drives["pad_length_ft"].iloc[i] if "pad_length_ft" in drives.columns else None
        declared = None if declared is None or (isinstance(declared, float) and np.isnan(declared)) else float(declared)
        submitted = bool(declared is not None and declared >= min_length_ft)
        drawn_ft = None
        if pads_b is not None and len(pads_b):
            near = pads_b[pads_b.distance(pt) * fpu <= search_ft]
            if len(near):
                # a drawn pad counts only if it is long enough: its length along the drive (a line's
                # length, a polygon's long axis)
                drawn_ft = max(_pad_length(gb) for gb in near.geometry) * fpu
                submitted = submitted or drawn_ft >= min_length_ft - 1e-6
        entrances.append({
            "drive_id": did, "road_id": rid, "x": float(pt.x), "y": float(pt.y),
            "pad_length_ft": declared, "drawn_pad_length_ft": drawn_ft, "submitted_pad": submitted,
        })
        pad_geoms.append(pad)
        pad_ids.append(did)
        pad_len.append(float(pad_line.length) * fpu)
    pads = gpd.GeoDataFrame({"drive_id": pad_ids, "length_ft": pad_len}, geometry=pad_geoms, crs=crs)
    return entrances, pads


def _pad_length(geom: Any) -> float:
    """Length of a drawn tracking pad in CRS units: a line's length, a polygon's long axis."""
    if geom.geom_type.endswith("LineString"):
        return float(geom.length)
    if geom.geom_type.endswith("Polygon"):
        return float(_long_axis(geom).length)
    return 0.0


def _long_axis(poly: Any) -> LineString:
    """A polygon drive's centre line, approximated by the long axis of its minimum rotated rectangle."""
    rect = np.asarray(poly.minimum_rotated_rectangle.exterior.coords)[:4]
    e = [np.hypot(*(rect[(k + 1) % 4] - rect[k])) for k in range(4)]
    k = int(np.argmin(e[:2]))
    a = (rect[k] + rect[k + 1]) / 2
    b = (rect[k + 2] + rect[(k + 3) % 4]) / 2
    return LineString([a, b])


def diversions(
    polygons: gpd.GeoDataFrame,
    dem: Dem,
    fg: FlowGrid,
    area_sqft: float = 10_000.0,
    velocity_fps: float = 0.5,
    rain_in: float | None = None,
    upslope: dict[Any, dict[str, Any]] | None = None,
    channel_threshold_sqft: float = 43_560.0,
    offset_ft: float = 5.0,
    tolerance_deg: float = 20.0,
    min_run_ft: float = 20.0,
) -> tuple[list[dict[str, Any]], gpd.GeoDataFrame]:
    """Proposed diversions above disturbed polygons receiving sheetflow (B(6)(a)).

    ``upslope`` may give, per polygon id, ``sheetflow_area_sqft`` and ``velocity_fps`` from the hydrology
    stage; otherwise the upslope area is computed (:func:`geosite.hydrology.upslope_area`) and the
    velocity across the polygon estimated by TR-55 sheet flow on bare soil (n 0.05) with ``rain_in``,
    the polygon's mean slope and its flow length (capped at 300 ft). Returns (per-polygon dicts,
    diversion lines in the input CRS with ``polygon_id`` and ``length_ft``).
    """
    import geopandas as gpd

    from geosite.controls.fences import classify_boundary
    from geosite.hydrology import sheetflow_velocity_fps, upslope_area
    from geosite.terrain import slope_pct
    from geosite.units import feet_per_crs_unit

    crs = polygons.crs
    fpu = feet_per_crs_unit(crs, "disturbance")
    pd_ = _grid.to_crs(polygons, dem.crs)
    slope = None
    out, geoms, gids = [], [], []
    for i in range(len(polygons)):
        pid = py_scalar(polygons["id"].iloc[i]) if "id" in polygons.columns else i + 1
        poly = pd_.geometry.iloc[i]
        given = (upslope or {}).get(pid)
        if given is not None:
            sheet = given.get("sheetflow_area_sqft")
            vel = given.get("velocity_fps")
            how = "hydrology stage"
        else:
            up = upslope_area(fg, poly, channel_threshold_sqft)
            sheet = up.sheetflow_area_sqft
            vel = None
            if rain_in:
                if slope is None:
                    slope = slope_pct(dem)
                m = _grid.rasterize(poly, dem)
                s = float(np.nanmean(slope[m])) / 100.0 if m.any() else 0.0
                bounds = poly.bounds
                length = max(bounds[2] - bounds[0], bounds[3] - bounds[1]) * dem.ft_per_unit
                vel = sheetflow_velocity_fps("bare_soil", length, rain_in, s) if s > 0 else 0.0
            how = f"upslope_area + TR-55 sheet flow, bare soil, {rain_in} in" if rain_in else "upslope_area (no velocity: no rainfall depth)"
        needed = bool(sheet is not None and sheet > area_sqft and (vel is None or vel >= velocity_fps))
        out.append({"id": pid, "sheetflow_area_sqft": sheet, "velocity_fps": vel, "required": needed, "method": how})
        if needed:
            runs = classify_boundary(poly, dem, fg, tolerance_deg, min_run_ft)
            for g in runs.geometry[runs["side"] == "upslope"]:
                off = shapely.offset_curve(g, -offset_ft / dem.ft_per_unit)  # negative = right of travel: outward
                geoms.append(off)
                gids.append(pid)
    lines = _grid.to_crs(gpd.GeoDataFrame({"polygon_id": gids}, geometry=geoms, crs=dem.crs), crs)
    lines["length_ft"] = lines.geometry.length * fpu
    return out, lines
