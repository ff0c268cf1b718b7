"""Sediment basin / trap location (Grantsburg B(6)(c)[2]; DNR technical standards 1063 and 1064): at the
disturbed area's lowest outlet, the boundary cell of the area whose D8 receiver lies outside it (or off
the grid) with the largest accumulation; its drainage area is that accumulation (upslope land included).
A trap under ``trap_max_acres`` (1063), a basin up to ``basin_max_acres`` (1064), more than one basin
beyond."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from shapely.geometry import Point

from geosite import grid
from geosite.hydrology import receivers
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem
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

    geom = grid.to_crs(disturbed, dem.crs).geometry.union_all()
    inside = grid.rasterize(geom, dem.shape, dem.transform)
    rr, rc, has = receivers(fg.directions)
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
    x, y = grid.centres(dem, np.array([r]), np.array([c]))
    out = gpd.GeoDataFrame(
        {"drainage_area_sqft": [area], "drainage_area_acres": [acres], "kind": [kind], "limit": [limit]},
        geometry=[Point(float(x[0]), float(y[0]))],
        crs=dem.crs,
    )
    return grid.to_crs(out, disturbed.crs)
