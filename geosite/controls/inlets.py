"""Storm drain inlets (Grantsburg B(4), DNR technical standard 1060): which inlets need protection, and
which drain more than DNR 1060's one acre (protection alone is not enough there: a trap or basin upstream).

Which inlets, by the chapter's reading (``which``):

* ``"all"`` (Grantsburg B(4), "all storm drain inlets shall be protected"): every inlet on the site or in
  its immediately adjacent area (within ``adjacent_ft``, the 200 ft of plan A(1)), and any farther one
  the disturbed area's runoff reaches;
* ``"receiving"`` (DNR 1060 alone, as Belgium's design criteria bring it in): inlets in the disturbed
  area or receiving its runoff.

An inlet receives the runoff when it lies on a D8 path from a disturbed cell: the accumulation weighted
by the disturbed cells is > 0 in the inlet's cell or its 8 neighbours. Its drainage is the largest
accumulation within one cell. Off the DEM, or with no DEM, whether runoff reaches it is not known (None).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from geosite import grid
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid

WHICH = ("all", "receiving")


def inlet_protection(
    inlets: gpd.GeoDataFrame,
    disturbed: Any,
    dem: Dem | None,
    fg: FlowGrid | None,
    *,
    max_drainage_acres: float,
    site: BaseGeometry | None = None,
    adjacent_ft: float | None = None,
    which: str = "receiving",
) -> gpd.GeoDataFrame:
    """The inlets, which of them need protection, and which drain more than protection alone can serve.

    Parameters
    ----------
    inlets : geopandas.GeoDataFrame
        The storm drain inlets, any projected CRS.
    disturbed : shapely geometry, geopandas.GeoDataFrame or None
        The disturbed area, in the inlets' CRS.
    dem : Dem or None
        The DEM (elevations in ft); None when the site has none.
    fg : FlowGrid or None
        Its flow grid (None with it).
    max_drainage_acres : float
        The most drainage, acres, one inlet protection serves (DNR 1060); beyond it a trap or basin
        upstream as well: the profile's ``[controls] inlet_protection_max_drainage_acres``
        (``profile.control("inlet_protection_max_drainage_acres")``).
    site : shapely geometry or None
        The site boundary, in the inlets' CRS.
    adjacent_ft : float or None
        Inlets within this distance, ft, of the site are in its immediately adjacent area: the profile's
        ``[controls] inlet_adjacent_ft``, which ``which="all"`` needs. None: the chapter names no
        adjacent area, only inlets touching the site are marked ``adjacent``.
    which : str
        ``"all"`` or ``"receiving"`` (see the module notes).

    Returns
    -------
    geopandas.GeoDataFrame
        The inlets (input CRS) with ``on_site``, ``adjacent``, ``in_disturbed``, ``downslope_of_disturbed``
        (None off the DEM), ``protection_required`` (None when it turns on what is not known),
        ``drainage_area_sqft``, ``drainage_area_acres`` and ``trap_or_basin_required`` (draining more than
        ``max_drainage_acres``, DNR 1060).
    """
    from geosite.errors import InputError
    from geosite.units import feet_per_crs_unit

    if which not in WHICH:
        raise InputError(f"inlet_protection: which = {which!r}; use one of {', '.join(WHICH)}")
    if which == "all" and adjacent_ft is None:
        raise InputError(
            "inlet_protection: which = 'all' needs adjacent_ft, the chapter's immediately adjacent area "
            "(profile.control('inlet_adjacent_ft'))"
        )
    near_ft = 0.0 if adjacent_ft is None else adjacent_ft
    out = inlets.copy()
    geoms = list(inlets.geometry)
    dist = None
    if disturbed is not None:
        dist = disturbed if hasattr(disturbed, "geom_type") else disturbed.geometry.union_all()
    out["in_disturbed"] = [bool(dist is not None and g.intersects(dist)) for g in geoms]
    fpu = feet_per_crs_unit(inlets.crs, "storm_inlets")
    out["on_site"] = [bool(site is not None and g.intersects(site)) for g in geoms]
    out["adjacent"] = [bool(site is not None and g.distance(site) * fpu <= near_ft + 1e-9) for g in geoms]
    down: list[bool | None] = [None] * len(out)
    area = [np.nan] * len(out)
    if dem is not None and fg is not None and dist is not None:
        down, area = _reached(inlets, dist, dem, fg)
    out["downslope_of_disturbed"] = down
    req: list[bool | None] = []
    for k in range(len(out)):
        known = bool(out["in_disturbed"].iloc[k]) or (
            which == "all" and (out["on_site"].iloc[k] or out["adjacent"].iloc[k])
        )
        req.append(True if known or down[k] else (None if down[k] is None else False))
    out["protection_required"] = req
    out["drainage_area_sqft"] = area
    out["drainage_area_acres"] = np.asarray(area, float) / SQFT_PER_ACRE
    out["trap_or_basin_required"] = [
        bool(q) and bool(a > max_drainage_acres) for q, a in zip(req, out["drainage_area_acres"], strict=True)
    ]
    return out


def _reached(
    inlets: gpd.GeoDataFrame, dist: Any, dem: Dem, fg: FlowGrid
) -> tuple[list[bool | None], list[float]]:
    """Per inlet: whether the runoff of the disturbed area ``dist`` (the inlets' CRS) reaches its cell or
    one of its 8 neighbours (None off the DEM or where it has no heights), and its drainage (the largest
    accumulation there, sq ft; NaN where not known).
    """
    from geosite.hydrology import weighted_accumulation

    down: list[bool | None] = [None] * len(inlets)
    area = [np.nan] * len(inlets)
    inside = grid.rasterize(grid.geom_to_crs(dist, inlets.crs, dem.crs), dem.shape, dem.transform)
    reach = weighted_accumulation(fg.directions, inside)
    acc = fg.accumulation_sqft()
    pts = grid.to_crs(inlets, dem.crs).geometry.centroid
    px, py = pts.x.to_numpy(), pts.y.to_numpy()
    r, c = grid.rowcol(dem, px, py)
    on = grid.inside_grid(dem, px, py)
    nr, nc = dem.shape
    lost = _lost_in_holes(reach, dem, fg)
    for k, (ri, ci, ok) in enumerate(zip(r, c, on, strict=True)):
        win = (slice(max(ri - 1, 0), min(ri + 2, nr)), slice(max(ci - 1, 0), min(ci + 2, nc)))
        if not ok or not np.isfinite(dem.elevation_ft[win]).any():
            continue
        hit = bool(np.nanmax(reach[win]) > 0)
        down[k] = True if hit else (None if lost else False)  # runoff lost in a hole may reach it beyond
        area[k] = float(np.nanmax(acc[win]))
    return down, area


def _lost_in_holes(reach: np.ndarray, dem: Dem, fg: FlowGrid) -> bool:
    """Whether runoff of the disturbed area (``reach``: its accumulation on the grid) ends beside a nodata
    hole inside the grid: a path that stops there could go on, beyond the hole, to an inlet.
    """
    from scipy import ndimage

    nodata = ~np.isfinite(dem.elevation_ft)
    if not nodata.any():
        return False
    beside = ndimage.binary_dilation(nodata, structure=np.ones((3, 3), bool)) & ~nodata
    _rr, _rc, has = fg.receivers()
    return bool(np.any((reach > 0) & beside & ~has))
