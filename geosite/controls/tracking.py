"""Tracking pads (Grantsburg B(3), DNR technical standard 1057): an entrance is where an access drive
meets a road, public or private alike (B(3): "tracked onto public or private roadways"; a road's
``public`` attribute is reported, never used to skip it); the pad runs ``min_length_ft`` along the drive
from the road."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid
from geosite.io.output import py_scalar

if TYPE_CHECKING:
    import geopandas as gpd



def tracking_pads(
    drives: gpd.GeoDataFrame,
    roads: gpd.GeoDataFrame,
    min_length_ft: float = 50.0,
    width_ft: float = 12.0,
    bmps: gpd.GeoDataFrame | None = None,
    search_ft: float = 10.0,
) -> tuple[list[dict[str, Any]], gpd.GeoDataFrame]:
    """Entrances (access drive meets road) and the tracking pad each needs (B(3), DNR 1057).

    Returns (entrances, pads): per entrance ``drive_id``, ``road_id``, ``road_public`` (True, False or
    None when the road does not say), ``x``, ``y``,
    ``pad_length_ft`` (declared on the drive), ``submitted_pad`` (a ``tracking_pad`` BMP within
    ``search_ft``, or a declared pad of at least ``min_length_ft``); pads as polygons (same CRS as the
    drives) with ``drive_id`` and ``length_ft``.
    """
    import geopandas as gpd

    from geosite.units import feet_per_crs_unit

    crs = drives.crs
    fpu = feet_per_crs_unit(crs, "access_drives")
    roads = grid.to_crs(roads, crs)
    pads_b = None
    if bmps is not None and "type" in bmps.columns:
        pads_b = grid.to_crs(bmps[bmps["type"].astype(str).str.lower() == "tracking_pad"], crs)
    entrances, pad_geoms, pad_ids, pad_len = [], [], [], []
    road_u = roads.geometry.union_all() if len(roads) else None
    for i in range(len(drives)):
        g = drives.geometry.iloc[i]
        did = py_scalar(drives["id"].iloc[i]) if "id" in drives.columns else i + 1
        if road_u is None or not g.intersects(road_u.buffer(1.0 / fpu)):
            continue
        hit = shapely.intersection(g, road_u.buffer(1.0 / fpu))
        pt = hit.centroid
        j = next((j for j in range(len(roads)) if roads.geometry.iloc[j].distance(g) <= 1.0 / fpu), None)
        rid = py_scalar(roads["id"].iloc[j]) if j is not None and "id" in roads.columns else None
        public = roads["public"].iloc[j] if j is not None and "public" in roads.columns else None
        public = None if public is None or (isinstance(public, float) and np.isnan(public)) else bool(public)
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
            "drive_id": did, "road_id": rid, "road_public": public, "x": float(pt.x), "y": float(pt.y),
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
