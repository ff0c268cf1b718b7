"""Fences along a channel: the channel-edge fences of B(6)(c)[3] where a channel passes through the disturbed
area, the banks a channelized inflow enters by, and the runs of a bank left to fence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid


def channel_fences(
    polygon: BaseGeometry,
    dem: Dem,
    fg: FlowGrid,
    threshold_sqft: float | None,
    *,
    offset_ft: float,
    chan: gpd.GeoDataFrame | None = None,
) -> list[LineString]:
    """Fence lines along both edges of every channel (contributing area >= ``threshold_sqft``) passing
    through ``polygon``, ``offset_ft`` either side of its centreline (the profile's ``[controls]
    fence_channel_offset_ft``), clipped to the polygon.
    ``chan``: the channel network (DEM CRS) when already traced, so it is not traced again (then
    ``threshold_sqft`` may be None).
    """
    from geosite.hydrology import channels

    if chan is None:
        if threshold_sqft is None:
            raise ValueError("channel_fences: neither a channel network nor a threshold to trace one")
        chan = channels(fg, threshold_sqft)
    out: list[LineString] = []
    if not len(chan):
        return out
    off = offset_ft / dem.ft_per_unit
    for g in chan.geometry:
        part = shapely.intersection(g, polygon)
        for ln in getattr(part, "geoms", [part]):
            if ln.geom_type != "LineString" or ln.is_empty:
                continue
            for sgn in (1.0, -1.0):
                e = shapely.intersection(shapely.offset_curve(ln, sgn * off, join_style="mitre"), polygon)
                out += [p for p in getattr(e, "geoms", [e]) if p.geom_type == "LineString" and not p.is_empty]
    return out


def channel_inflow_banks(
    disturbed: BaseGeometry, dem: Dem, fg: FlowGrid, threshold_sqft: float
) -> tuple[np.ndarray, np.ndarray]:
    """Channel cells (contributing area >= ``threshold_sqft``) that the runoff of ``disturbed`` (DEM CRS)
    reaches overland, from their left and from their right bank (facing downstream): a cell is marked
    when one of its D8 donors is not a channel cell and is a disturbed cell or downstream of one.
    Runoff arriving along the channel itself (from upstream) marks nothing: a fence on the bank cannot
    keep out what is already in the channel.
    """
    from geosite.hydrology import weighted_accumulation

    inside = grid.rasterize(disturbed, dem.shape, dem.transform)
    reach = weighted_accumulation(fg.directions, inside) > 0  # NaN (nodata) compares False
    is_chan = fg.channel_cells(threshold_sqft)
    rr, rc, has = fg.receivers()
    donor = has & ~is_chan & reach & is_chan[rr, rc]
    dr_, dc_ = np.nonzero(donor)
    tr, tc = rr[donor], rc[donor]
    fx = (rc[tr, tc] - tc) * dem.cell_x_ft  # the channel's flow at the cell it enters (x east, y north)
    fy = -(rr[tr, tc] - tr) * dem.cell_y_ft
    vx = (dc_ - tc) * dem.cell_x_ft  # from that cell to the donor
    vy = -(dr_ - tr) * dem.cell_y_ft
    cross = fx * vy - fy * vx
    left = np.zeros(dem.shape, bool)
    right = np.zeros(dem.shape, bool)
    left[tr[cross > 0], tc[cross > 0]] = True
    right[tr[cross < 0], tc[cross < 0]] = True
    return left, right


def channel_edge_fences(
    disturbed: BaseGeometry,
    site: BaseGeometry,
    dem: Dem,
    fg: FlowGrid,
    chan: gpd.GeoDataFrame,
    *,
    threshold_sqft: float,
    offset_ft: float,
    min_piece_ft: float,
) -> gpd.GeoDataFrame:
    """Grantsburg B(6)(c)[3] ("if a channel or area of concentrated runoff passes through the site, filter
    fences shall be placed along the channel edges"): fences along the channels of ``chan`` (DEM CRS)
    inside ``site``, **outside** the disturbed polygons (inside them :func:`channel_fences` fences both
    edges), on the stretches and banks the disturbed area's runoff reaches (:func:`channel_inflow_banks`),
    ``offset_ft`` from the centreline (the profile's ``[controls] fence_channel_offset_ft``), each stretch
    half a cell longer at both ends; stretches on one bank less than ``min_piece_ft`` (ft; ``[controls]
    fence_row_min_length_ft``) apart joined and each run at least that long (:func:`bank_runs`).

    Returns a GeoDataFrame (DEM CRS) with ``side`` ("channel"), ``bank`` (left/right, facing downstream),
    ``segment`` (row of ``chan``) and ``length_ft``; empty when no such stretch exists. Its
    ``attrs["segments_reached"]`` counts the segments in the site the runoff reaches, inside the disturbed
    polygons or out.
    """
    import geopandas as gpd
    from shapely.ops import substring

    rows: dict[str, list[Any]] = {"side": [], "bank": [], "segment": [], "geometry": []}
    reached: set[int] = set()
    if chan is not None and len(chan):
        left, right = channel_inflow_banks(disturbed, dem, fg, threshold_sqft)
        off = offset_ft / dem.ft_per_unit
        half = 0.5 * min(abs(dem.transform.a), abs(dem.transform.e))
        keep_out = disturbed.buffer(0)
        lines = [(k, g) for k, whole in enumerate(chan.geometry) for g in line_parts(whole)]  # single parts
        for k, g in lines:
            if not g.intersects(site):
                continue
            xy = np.asarray(g.coords)[:, :2]
            r, c = grid.rowcol(dem, xy[:, 0], xy[:, 1])
            along = np.r_[0.0, np.cumsum(np.hypot(*np.diff(xy, axis=0).T))]
            for bank, mask, sgn in (("left", left, 1.0), ("right", right, -1.0)):
                flags = mask[r, c]
                if not flags.any():
                    continue
                reached.add(k)
                edges = np.flatnonzero(np.diff(np.r_[0, flags.astype(np.int8), 0]))
                spans = [
                    (along[a] - half, along[b] + half)
                    for a, b in zip(edges[::2], edges[1::2] - 1, strict=False)
                ]
                for lo, hi in bank_runs(spans, g.length, min_piece_ft / dem.ft_per_unit):
                    piece = substring(g, lo, hi)
                    if piece.geom_type != "LineString" or piece.length <= 0:
                        continue
                    edge = shapely.offset_curve(piece, sgn * off, join_style="mitre")
                    edge = shapely.difference(shapely.intersection(edge, site), keep_out)
                    for p in line_parts(edge) if not edge.is_empty else []:
                        rows["side"].append("channel")
                        rows["bank"].append(bank)
                        rows["segment"].append(k)
                        rows["geometry"].append(p)
    out = gpd.GeoDataFrame(rows, geometry="geometry", crs=dem.crs)
    out["length_ft"] = out.geometry.length * dem.ft_per_unit
    out.attrs["segments_reached"] = len(reached)
    return out


def bank_runs(spans: list[tuple[float, float]], length: float, min_run: float) -> list[tuple[float, float]]:
    """The runs of fence along one bank of a channel line of ``length``: the ``spans`` (start, end, along
    the line, CRS units) the runoff reaches, joined where the gap between them is under ``min_run`` and
    each run lengthened about its middle to ``min_run`` (as far as the line goes), so a crew builds runs,
    not a fragment a cell.
    """
    runs: list[list[float]] = []
    for lo, hi in sorted((max(a, 0.0), min(b, length)) for a, b in spans):
        if runs and lo - runs[-1][1] < min_run:
            runs[-1][1] = max(runs[-1][1], hi)
        else:
            runs.append([lo, hi])
    out = []
    for lo, hi in runs:
        grow = max(min_run - (hi - lo), 0.0) / 2
        lo, hi = lo - grow, hi + grow
        shift = max(-lo, 0.0) - max(hi - length, 0.0)  # slide back onto the line at either end
        out.append((max(lo + shift, 0.0), min(hi + shift, length)))
    return [(lo, hi) for lo, hi in out if hi > lo]


def channel_corridor(
    poly: BaseGeometry, chan: gpd.GeoDataFrame | None, half_width: float
) -> BaseGeometry | None:
    """The strip of concentrated flow through ``poly``: its channels buffered ``half_width`` (CRS units)."""
    if chan is None or not len(chan):
        return None
    near = chan.geometry.values[shapely.intersects(chan.geometry.values, poly)]
    if not len(near):
        return None
    return shapely.buffer(shapely.union_all(near), half_width, cap_style="flat")


def line_parts(geom: BaseGeometry) -> list[LineString]:
    """The non-empty LineStrings of a difference result."""
    merged = shapely.line_merge(geom) if geom.geom_type == "MultiLineString" else geom
    return [p for p in getattr(merged, "geoms", [merged]) if p.geom_type == "LineString" and not p.is_empty]
