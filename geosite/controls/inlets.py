"""Storm drain inlets (Grantsburg B(4), DNR technical standard 1060): an inlet in the disturbed area, or on
a D8 path from a disturbed cell (accumulation weighted by the disturbed cells > 0 in the inlet's cell or
its 8 neighbours), needs protection; one draining more than ``max_drainage_acres`` (largest accumulation
within one cell) needs a trap or basin upstream."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from geosite import grid
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid


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
    from geosite.hydrology import weighted_accumulation

    dist = grid.to_crs(disturbed, dem.crs).geometry.union_all()
    inside = grid.rasterize(dist, dem.shape, dem.transform)
    reach = weighted_accumulation(fg.directions, inside)
    acc = fg.accumulation_sqft()
    pts = grid.to_crs(inlets, dem.crs).geometry.centroid
    r, c = grid.rowcol(dem, pts.x.to_numpy(), pts.y.to_numpy())
    on = grid.inside_grid(dem, pts.x.to_numpy(), pts.y.to_numpy())
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
    out["in_disturbed"] = [bool(g.intersects(dist)) for g in grid.to_crs(inlets, dem.crs).geometry]
    out["downslope_of_disturbed"] = down
    out["protection_required"] = out["in_disturbed"] | out["downslope_of_disturbed"]
    out["drainage_area_sqft"] = area
    out["drainage_area_acres"] = np.asarray(area) / SQFT_PER_ACRE
    out["trap_or_basin_required"] = out["protection_required"] & (out["drainage_area_acres"] > max_drainage_acres)
    return out
