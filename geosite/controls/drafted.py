"""An area control (erosion mat, mulch) drawn as a crew lays it, not as the DEM's cells it covers.

The ground a stand-in must cover comes from the DEM: cells over DNR 1056's slope length, each a square.
Drawn as they are, their outline steps cell by cell and sprouts one-cell spikes where a fence or an
obstacle was cut out of it; no crew stakes that. :func:`drafted_area` draws it at the drafting scale:

1. a closing (grown, then shrunk back, by :data:`DRAFT_TOLERANCE_FT` or a cell and a half, whichever is
   more) fills the notches between the cells' steps, so a staircase becomes the line through its outer
   corners;
2. a simplification within half that distance, and never more than a cell, straightens what is left:
   the area comes in with a cell's margin around the cells it must cover, so every such cell's centre
   stays inside it (``check`` counts a cell covered within three quarters of a cell of the area's edge:
   nothing covered before is uncovered after);
3. what may not be covered is cut out again (the obstacles, the fences' own ground), and pieces too thin
   to lay (under :data:`MIN_WIDTH_FT` across) are grown by half that width either side where they hold a
   cell that must be covered; pieces holding none are dropped.

Hand-written on shapely's buffers (the morphological closing of GIS packages is this same pair of buffers).
"""

from __future__ import annotations

from typing import Any

import shapely

#: The drafting tolerance of a stand-in's outline, ft: 0.1 in of paper at 1 in = 30 ft, about the finest
#: step a crew staking the area would keep (a drawing size: geosite's choice).
DRAFT_TOLERANCE_FT = 3.0
#: The narrowest strip of mat or mulch drawn, ft: the narrowest roll of erosion mat is 4 ft wide (a drawing
#: size: geosite's choice).
MIN_WIDTH_FT = 4.0


def drafted_area(area: Any, allowed: Any, *, cell: float, ft_per_unit: float, must: Any = None) -> list[Any]:
    """``area`` (the cells a stand-in covers) as a crew lays it (see the module notes): its polygons.

    Parameters
    ----------
    area : shapely geometry
        The ground to cover, as cells (CRS units).
    allowed : shapely geometry
        Where the stand-in may lie (the disturbed ground less the obstacles and the fences' own ground).
    cell : float
        The DEM's cell size, CRS units.
    ft_per_unit : float
        Feet per CRS unit.
    must : shapely geometry or None
        The cells that must stay covered (default: ``area``); a piece holding none of them is dropped.

    Returns
    -------
    list of shapely.geometry.Polygon
        The drafted pieces, inside ``allowed``.
    """
    if area is None or area.is_empty or allowed is None or allowed.is_empty:
        return []
    must = area if must is None else must
    d = max(DRAFT_TOLERANCE_FT / ft_per_unit, 1.5 * cell)
    closed = shapely.union(area.buffer(d, quad_segs=8).buffer(-d, quad_segs=8), area)
    smooth = shapely.simplify(closed, min(d / 2, cell), preserve_topology=True)
    got = shapely.intersection(smooth, allowed)
    out = []
    half = MIN_WIDTH_FT / 2 / ft_per_unit
    for p in shapely.get_parts(got):
        if p.geom_type != "Polygon" or p.is_empty or not p.intersects(must):
            continue
        if p.buffer(-half * 0.999).is_empty:  # thinner than a strip of mat: laid a strip wide
            p = shapely.intersection(p.buffer(half, quad_segs=8), allowed)
        out.append(p)
    merged = shapely.union_all(out) if out else None
    if merged is None:
        return []
    return [q for q in shapely.get_parts(merged) if q.geom_type == "Polygon" and not q.is_empty]


__all__ = ["DRAFT_TOLERANCE_FT", "MIN_WIDTH_FT", "drafted_area"]
