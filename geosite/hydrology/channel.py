"""Channels: the cells whose contributing area reaches a threshold, as line segments split at junctions,
and which of them originate in or pass through a polygon (Grantsburg B(6)(c)[2] and [3]).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from geosite.errors import InputError
from geosite.hydrology.flow import FlowGrid, flow_grid

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem

# ---------------------------------------------------------------------------------------------------
# channels


def channels(dem: Dem | FlowGrid, threshold_sqft: float) -> gpd.GeoDataFrame:
    """The channel network: cells whose contributing area reaches ``threshold_sqft``, as LineStrings
    through cell centres along D8 links, split at junctions.

    Columns: ``contrib_area_sqft`` (contributing area at the segment's last own cell, i.e. just above
    the junction it joins, or at its outlet), ``starts_at_head`` (the segment begins at a channel head,
    a channel cell no channel drains into), ``head_x``/``head_y`` (its first vertex). Segments of a
    single cell (a head draining straight out of the grid) are left out.
    """
    import geopandas as gpd
    import shapely

    from geosite.hydrology import _kernels as fk

    if threshold_sqft <= 0:
        raise InputError(f"channels: threshold_sqft must be positive, got {threshold_sqft}")
    fg = dem if isinstance(dem, FlowGrid) else flow_grid(dem)
    d = fg.dem
    acc = fg.accumulation_cells()
    thr = threshold_sqft / d.cell_area_sqft
    verts, offsets, is_head, to_junction = fk.channel_segments(fg.directions, acc, thr)
    nc = d.shape[1]
    rows, cols = np.divmod(verts, nc)
    t = d.transform
    x = t.c + (cols + 0.5) * t.a
    y = t.f + (rows + 0.5) * t.e
    accv = acc.reshape(-1)[verts]
    lines, contrib, heads, hx, hy = [], [], [], [], []
    for s in range(len(is_head)):
        a, b = int(offsets[s]), int(offsets[s + 1])
        if b - a < 2:
            continue
        lines.append(shapely.LineString(np.column_stack([x[a:b], y[a:b]])))
        own_end = b - 2 if to_junction[s] else b - 1
        contrib.append(float(accv[own_end]) * d.cell_area_sqft)
        heads.append(bool(is_head[s]))
        hx.append(float(x[a]))
        hy.append(float(y[a]))
    return gpd.GeoDataFrame(
        {"contrib_area_sqft": contrib, "starts_at_head": heads, "head_x": hx, "head_y": hy},
        geometry=lines,
        crs=d.crs,
    )


def channels_originating_in(chan: gpd.GeoDataFrame, polygon: BaseGeometry) -> gpd.GeoDataFrame:
    """Channel segments whose head cell (a channel cell no channel drains into) lies inside ``polygon``:
    the "channel originating in the disturbed area" of Grantsburg B(6)(c)[2].
    """
    import shapely

    pts = shapely.points(chan["head_x"].to_numpy(), chan["head_y"].to_numpy())
    inside = shapely.contains(polygon, pts) | shapely.touches(polygon, pts)
    return chan[chan["starts_at_head"].to_numpy() & inside]


def channels_through(chan: gpd.GeoDataFrame, polygon: BaseGeometry) -> gpd.GeoDataFrame:
    """Channel segments that cross or lie in ``polygon`` (concentrated flow through the site, B(6)(c)[3])."""
    return chan[chan.intersects(polygon)]
