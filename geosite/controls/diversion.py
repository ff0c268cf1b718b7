"""Sheetflow diversions (Grantsburg B(6)(a)): along the upslope-classified edges of each disturbed polygon
receiving more than ``area_sqft`` of sheetflow at a velocity not below ``velocity_fps``, offset outward.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import shapely

from geosite import grid
from geosite.io.output import py_scalar

if TYPE_CHECKING:
    from collections.abc import Callable

    import geopandas as gpd

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid


class SheetflowNeed(TypedDict):
    """Whether a disturbed polygon needs a diversion above it: the sheetflow reaching it (sq ft, ft/s) and
    how it was found.
    """

    id: Any
    sheetflow_area_sqft: float | None
    velocity_fps: float | None
    required: bool
    method: str


@dataclass(frozen=True, eq=False)
class Diversions:
    """The diversions B(6)(a) asks for (:func:`diversions`): which polygons need one, and the lines.

    Attributes
    ----------
    needs : list of SheetflowNeed
        Per disturbed polygon: ``id``, ``sheetflow_area_sqft`` (sq ft), ``velocity_fps`` (ft/s), ``required``
        and ``method``.
    lines : geopandas.GeoDataFrame
        The proposed diversion lines (the polygons' CRS) with ``polygon_id`` and ``length_ft``.
    """

    needs: list[SheetflowNeed]
    lines: gpd.GeoDataFrame


def diversions(
    polygons: gpd.GeoDataFrame,
    dem: Dem,
    fg: FlowGrid,
    *,
    area_sqft: float,
    velocity_fps: float,
    rain_in: float | None = None,
    upslope: dict[Any, dict[str, Any]] | None = None,
    channel_threshold_sqft: float,
    offset_ft: float,
    tolerance_deg: float,
    min_run_ft: float,
) -> Diversions:
    """Proposed diversions above disturbed polygons receiving sheetflow (B(6)(a)).

    Parameters
    ----------
    polygons : geopandas.GeoDataFrame
        The disturbed polygons (with ``id``), any projected CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid
        Its flow grid.
    area_sqft : float
        A polygon needs a diversion when the sheetflow reaching it comes from more than this area, sq ft
        (at ``velocity_fps`` or faster): the requirement's ``params.adjacent_area_sqft``
        (``profile.practice("sheetflow_diversion").param("adjacent_area_sqft")``, Grantsburg B(6)(a)).
    velocity_fps : float
        The slowest sheetflow velocity, ft/s, that calls for a diversion: the requirement's
        ``params.velocity_fps``.
    rain_in : float or None
        The design storm's rainfall depth, in, for the TR-55 velocity estimate (None: no estimate): the
        profile's storm the requirement names, ``profile.storm_in(requirement.param("storm"))``.
    upslope : dict or None
        Per polygon id, ``sheetflow_area_sqft`` and ``velocity_fps`` from the hydrology stage; otherwise the
        upslope area is computed (:func:`geosite.hydrology.upslope_area`) and the velocity across the
        polygon estimated by TR-55 sheet flow on bare soil (n 0.05) with ``rain_in``, the polygon's mean
        slope and its flow length (capped at 300 ft).
    channel_threshold_sqft : float
        Contributing area of a channel cell, sq ft: flow in a channel is not sheetflow (the profile's
        ``[terrain] channel_threshold_sqft``).
    offset_ft : float
        How far outside the polygon's upslope edge the diversion runs, ft (``[controls]
        diversion_offset_ft``).
    tolerance_deg : float
        The boundary classification's sideslope band, degrees either side of 90 (``[controls]
        fence_sideslope_tolerance_deg``).
    min_run_ft : float
        The boundary classification's shortest run, ft (``[controls] fence_min_run_ft``).

    Returns
    -------
    Diversions
        ``needs``: per polygon, ``id``, ``sheetflow_area_sqft``, ``velocity_fps``, ``required`` and
        ``method``; ``lines``: the diversion lines in the input CRS, with ``polygon_id`` and ``length_ft``.
    """
    import geopandas as gpd

    from geosite.controls.boundary_sides import classify_boundary
    from geosite.terrain import slope_pct
    from geosite.units import feet_per_crs_unit

    crs = polygons.crs
    fpu = feet_per_crs_unit(crs, "disturbance")
    pd_ = grid.to_crs(polygons, dem.crs)
    slope_of = functools.cache(functools.partial(slope_pct, dem))  # computed once, when first needed
    out: list[SheetflowNeed] = []
    geoms, gids = [], []
    for i in range(len(polygons)):
        pid = py_scalar(polygons["id"].iloc[i]) if "id" in polygons.columns else i + 1
        poly = pd_.geometry.iloc[i]
        given = (upslope or {}).get(pid)
        if given is not None:
            sheet, vel, how = given.get("sheetflow_area_sqft"), given.get("velocity_fps"), "hydrology stage"
        else:
            sheet, vel, how = _sheetflow(
                poly,
                dem,
                fg,
                rain_in=rain_in,
                channel_threshold_sqft=channel_threshold_sqft,
                slope_of=slope_of,
            )
        needed = bool(sheet is not None and sheet > area_sqft and (vel is None or vel >= velocity_fps))
        out.append(
            {"id": pid, "sheetflow_area_sqft": sheet, "velocity_fps": vel, "required": needed, "method": how}
        )
        if needed:
            runs = classify_boundary(poly, dem, fg, tolerance_deg=tolerance_deg, min_run_ft=min_run_ft)
            for g in runs.geometry[runs["side"] == "upslope"]:
                geoms.append(shapely.offset_curve(g, -offset_ft / dem.ft_per_unit))  # negative: outward
                gids.append(pid)
    lines = grid.to_crs(gpd.GeoDataFrame({"polygon_id": gids}, geometry=geoms, crs=dem.crs), crs)
    lines["length_ft"] = lines.geometry.length * fpu
    return Diversions(out, lines)


def _sheetflow(
    poly: Any,
    dem: Dem,
    fg: FlowGrid,
    *,
    rain_in: float | None,
    channel_threshold_sqft: float,
    slope_of: Callable[[], np.ndarray],
) -> tuple[float | None, float | None, str]:
    """The sheetflow reaching ``poly`` (DEM CRS) computed on the DEM: the upslope area (sq ft), the TR-55
    velocity across the polygon (ft/s; None without a rainfall depth ``rain_in``, in) and how they were
    found. ``slope_of`` gives the DEM's slope (percent).
    """
    from geosite.hydrology import sheetflow_velocity_fps, upslope_area

    sheet = upslope_area(fg, poly, channel_threshold_sqft=channel_threshold_sqft).sheetflow_area_sqft
    if not rain_in:
        return sheet, None, "upslope_area (no velocity: no rainfall depth)"
    m = grid.rasterize(poly, dem.shape, dem.transform)
    s = float(np.nanmean(slope_of()[m])) / 100.0 if m.any() else 0.0
    bounds = poly.bounds
    length = max(bounds[2] - bounds[0], bounds[3] - bounds[1]) * dem.ft_per_unit
    vel = sheetflow_velocity_fps("bare_soil", length, rain_in, s) if s > 0 else 0.0
    return sheet, vel, f"upslope_area + TR-55 sheet flow, bare soil, {rain_in} in"
