"""Sheetflow diversions (Grantsburg B(6)(a)): along the upslope-classified edges of each disturbed polygon
receiving more than ``area_sqft`` of sheetflow at a velocity not below ``velocity_fps``, offset outward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from geosite import grid
from geosite.io.output import py_scalar

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid


def diversions(
    polygons: gpd.GeoDataFrame,
    dem: Dem,
    fg: FlowGrid,
    area_sqft: float = 10_000.0,
    velocity_fps: float = 0.5,
    *,
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
    pd_ = grid.to_crs(polygons, dem.crs)
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
                m = grid.rasterize(poly, dem.shape, dem.transform)
                s = float(np.nanmean(slope[m])) / 100.0 if m.any() else 0.0
                bounds = poly.bounds
                length = max(bounds[2] - bounds[0], bounds[3] - bounds[1]) * dem.ft_per_unit
                vel = sheetflow_velocity_fps("bare_soil", length, rain_in, s) if s > 0 else 0.0
            how = (
                f"upslope_area + TR-55 sheet flow, bare soil, {rain_in} in"
                if rain_in
                else "upslope_area (no velocity: no rainfall depth)"
            )
        needed = bool(sheet is not None and sheet > area_sqft and (vel is None or vel >= velocity_fps))
        out.append(
            {"id": pid, "sheetflow_area_sqft": sheet, "velocity_fps": vel, "required": needed, "method": how}
        )
        if needed:
            runs = classify_boundary(poly, dem, fg, tolerance_deg, min_run_ft)
            for g in runs.geometry[runs["side"] == "upslope"]:
                off = shapely.offset_curve(
                    g, -offset_ft / dem.ft_per_unit
                )  # negative = right of travel: outward
                geoms.append(off)
                gids.append(pid)
    lines = grid.to_crs(gpd.GeoDataFrame({"polygon_id": gids}, geometry=geoms, crs=dem.crs), crs)
    lines["length_ft"] = lines.geometry.length * fpu
    return out, lines
