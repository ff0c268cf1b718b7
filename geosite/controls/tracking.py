"""Tracking pads (Grantsburg B(3), DNR technical standard 1057): an entrance is where an access drive
meets a road, public or private alike (B(3): "tracked onto public or private roadways"; a road's
``public`` attribute is reported, never used to skip it). Each entrance needs its own pad, running along
the drive from the road, as wide as the drive, and as long as the standard asks where the drive allows it.

A drawn pad is measured the way a crew builds it, not as its polygon's longest side: its length is the
drive's centre line inside the pad, from the road; its width is the narrowest cut across the drive
through the pad. Geometry (centre lines, cross cuts) is shapely's; only the sampling is written here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from geosite import grid
from geosite.controls.setbacks import number_at
from geosite.io.output import py_scalar

if TYPE_CHECKING:
    import geopandas as gpd


@dataclass(frozen=True)
class PadRule:
    """What a pad must be (from the profile): ``min_length_ft`` along the drive (DNR 1057: 50 ft where
    space allows), ``min_width_ft`` (the width assumed for a drive drawn as a line without ``width_ft``),
    ``search_ft`` (a drawn pad serves an entrance when it lies this close to where the drive meets the
    road).
    """

    min_length_ft: float
    min_width_ft: float
    search_ft: float


class Entrance(TypedDict):
    """One entrance (an access drive meets a road) and the pad it needs and has (lengths in ft)."""

    drive_id: Any
    road_id: Any
    #: the road's ``public`` attribute (None when the road does not say)
    road_public: bool | None
    x: float
    y: float
    drive_width_ft: float
    #: the standard's length, or the drive's own length from the road where it is shorter
    required_length_ft: float
    #: declared on the drive
    pad_length_ft: float | None
    #: the submitted pad measured along and across the drive
    drawn_pad_length_ft: float | None
    drawn_pad_width_ft: float | None
    #: True when a declared or drawn pad is long and wide enough
    submitted_pad: bool


@dataclass(frozen=True, eq=False)
class TrackingPads:
    """The entrances of a site and the pads they need (:func:`tracking_pads`).

    Attributes
    ----------
    entrances : list of Entrance
        Per entrance (an access drive meets a road): where, the drive's width, the pad it needs and the pad
        submitted (lengths in ft).
    pads : geopandas.GeoDataFrame
        The proposed pads as polygons (the drives' CRS) with ``drive_id``, ``length_ft`` and ``width_ft``.
    """

    entrances: list[Entrance]
    pads: gpd.GeoDataFrame


@dataclass(frozen=True)
class PadExtent:
    """A drawn pad measured as built (:func:`pad_extent`).

    Attributes
    ----------
    length_ft : float
        Its length along the drive from the road, ft.
    width_ft : float
        Its narrowest width across the drive, ft (0 for a pad drawn as a line).
    """

    length_ft: float
    width_ft: float


def tracking_pads(
    drives: gpd.GeoDataFrame, roads: gpd.GeoDataFrame, rule: PadRule, pads: gpd.GeoDataFrame | None = None
) -> TrackingPads:
    """Entrances (an access drive meets a road) and the tracking pad each needs (B(3), DNR 1057).

    Parameters
    ----------
    drives : geopandas.GeoDataFrame
        The access drives (lines or polygons, with ``id`` and ``width_ft`` where known), any projected CRS.
    roads : geopandas.GeoDataFrame
        The roads (with ``id`` and ``public`` where known), any projected CRS.
    rule : PadRule
        What a pad must be (lengths in ft).
    pads : geopandas.GeoDataFrame or None
        The submitted pads (the ``bmps`` features of the pad practice), any projected CRS; None: none.

    Returns
    -------
    TrackingPads
        ``entrances``: per entrance ``drive_id``, ``road_id``, ``road_public`` (None when the road does not
        say), ``x``, ``y``, ``drive_width_ft``, ``required_length_ft`` (the standard's length, or the drive's
        own length from the road where it is shorter), ``pad_length_ft`` (declared on the drive),
        ``drawn_pad_length_ft`` and ``drawn_pad_width_ft`` (the submitted pad measured along and across the
        drive), ``submitted_pad`` (True when a declared or drawn pad is long and wide enough); ``pads``: the
        proposed pads as polygons (the drives' CRS) with ``drive_id``, ``length_ft`` and ``width_ft``.
    """
    import geopandas as gpd

    from geosite.units import feet_per_crs_unit

    crs = drives.crs
    fpu = feet_per_crs_unit(crs, "access_drives")
    roads = grid.to_crs(roads, crs)
    drawn = grid.to_crs(pads, crs) if pads is not None else None
    entrances: list[Entrance] = []
    rows = []
    for i in range(len(drives)):
        g = drives.geometry.iloc[i]
        met = roads[
            [not _runs_on(g, r) for r in roads.geometry]
        ]  # a road the drive runs on is its way in, not a roadway it meets
        road_u = met.geometry.union_all() if len(met) else None
        if road_u is None or not g.intersects(road_u.buffer(1.0 / fpu)):
            continue
        e, pad = _entrance(drives, i, met, road_u, fpu, rule=rule, drawn=drawn)
        entrances.append(e)
        rows.append(
            {
                "drive_id": e["drive_id"],
                "length_ft": e["required_length_ft"],
                "width_ft": e["drive_width_ft"],
                "geometry": pad,
            }
        )
    pads = gpd.GeoDataFrame(
        rows, columns=["drive_id", "length_ft", "width_ft", "geometry"], geometry="geometry", crs=crs
    )
    return TrackingPads(entrances, pads)


def _entrance(
    drives: gpd.GeoDataFrame,
    i: int,
    roads: gpd.GeoDataFrame,
    road_u: Any,
    fpu: float,
    *,
    rule: PadRule,
    drawn: gpd.GeoDataFrame | None,
) -> tuple[Entrance, Any]:
    g = drives.geometry.iloc[i]
    j = next((j for j in range(len(roads)) if roads.geometry.iloc[j].distance(g) <= 1.0 / fpu), None)
    public = roads["public"].iloc[j] if j is not None and "public" in roads.columns else None
    public = None if public is None or (isinstance(public, float) and np.isnan(public)) else public
    axis = _from_road(centre_line(g), road_u, fpu)
    pt = Point(axis.coords[0])
    width_ft = _drive_width_ft(drives, i, axis, fpu) or rule.min_width_ft
    need_ft = min(rule.min_length_ft, axis.length * fpu)  # "where space allows": the drive's own length
    pad_line = shapely.ops.substring(axis, 0.0, need_ft / fpu)
    pad = pad_line.buffer(width_ft / 2 / fpu, cap_style="flat")
    declared = number_at(drives, i, "pad_length_ft")
    along = across = None
    if drawn is not None and len(drawn):
        near = drawn[drawn.distance(pt) * fpu <= rule.search_ft]
        if len(near):
            best = max(
                (pad_extent(p, axis, fpu, rule.search_ft) for p in near.geometry),
                key=lambda a: (a.length_ft, a.width_ft),
            )
            along, across = best.length_ft, best.width_ft
    ok_drawn = (
        along is not None and along >= need_ft - 0.5 and across is not None and across >= width_ft - 0.5
    )
    e: Entrance = {
        "drive_id": py_scalar(drives["id"].iloc[i]) if "id" in drives.columns else i + 1,
        "road_id": py_scalar(roads["id"].iloc[j]) if j is not None and "id" in roads.columns else None,
        "road_public": None if public is None else bool(public),
        "x": float(pt.x),
        "y": float(pt.y),
        "drive_width_ft": float(width_ft),
        "required_length_ft": float(need_ft),
        "pad_length_ft": declared,
        "drawn_pad_length_ft": along,
        "drawn_pad_width_ft": across,
        "submitted_pad": bool(ok_drawn or (declared is not None and declared >= need_ft - 0.5)),
    }
    return e, pad


def _runs_on(drive: Any, road: Any) -> bool:
    """Whether the drive lies mostly on the road (a construction entrance drawn over the street being built):
    then the road is the way in, and the entrance is where that way meets another road.
    """
    if drive.geom_type.endswith("Polygon") and road.geom_type.endswith("Polygon"):
        return bool(drive.area > 0 and drive.intersection(road).area >= 0.5 * drive.area)
    axis = centre_line(drive)
    return bool(axis.length > 0 and axis.intersection(road.buffer(1e-6)).length >= 0.5 * axis.length)


def centre_line(geom: Any) -> LineString:
    """A drive's centre line: the line itself (its longest part), or a polygon's long axis."""
    if geom.geom_type.endswith("LineString"):
        return max(geom.geoms, key=lambda a: a.length) if geom.geom_type == "MultiLineString" else geom
    rect = np.asarray(geom.minimum_rotated_rectangle.exterior.coords)[:4]
    e = [np.hypot(*(rect[(k + 1) % 4] - rect[k])) for k in range(4)]
    k = int(np.argmin(e[:2]))
    return LineString([(rect[k] + rect[k + 1]) / 2, (rect[k + 2] + rect[(k + 3) % 4]) / 2])


def _from_road(axis: LineString, road_u: Any, fpu: float) -> LineString:
    """The centre line from the road's edge into the site: oriented away from the road, starting where
    it leaves the road (a line road's centre line, or a polygon road's edge).
    """
    if Point(axis.coords[0]).distance(road_u) > Point(axis.coords[-1]).distance(road_u):
        axis = shapely.reverse(axis)
    on_road = shapely.intersection(axis, road_u.buffer(1e-6 / fpu))
    coords = [c for part in getattr(on_road, "geoms", [on_road]) for c in getattr(part, "coords", [])]
    s0 = max((axis.project(Point(c)) for c in coords), default=0.0)
    out = shapely.ops.substring(axis, s0, axis.length)
    return out if out.geom_type == "LineString" else LineString([axis.interpolate(s0), axis.interpolate(s0)])


def _drive_width_ft(drives: gpd.GeoDataFrame, i: int, axis: LineString, fpu: float) -> float | None:
    """The drive's width: its ``width_ft``, else a polygon drive's area over its centre line's length."""
    w = number_at(drives, i, "width_ft")
    if w is not None:
        return float(w)
    g = drives.geometry.iloc[i]
    if g.geom_type.endswith("Polygon"):
        length = centre_line(g).length
        return float(g.area / length * fpu) if length > 0 else None
    return None


def pad_extent(pad: Any, axis: LineString, fpu: float, search_ft: float) -> PadExtent:
    """A drawn pad measured as built: its length along the drive from the road and its narrowest width
    across it, ft.

    The length is the piece of the drive's centre line (``axis``, from the road) inside the pad that starts
    within ``search_ft`` of the road; the width, the shortest of cuts square to the drive at a quarter,
    half and three quarters of that piece. A line drawn as a pad has no width (0).
    """
    inside = shapely.intersection(axis, pad.buffer(0.01 / fpu))
    parts = [p for p in getattr(inside, "geoms", [inside]) if p.geom_type == "LineString" and p.length > 0]
    start = Point(axis.coords[0])
    parts = [p for p in parts if p.distance(start) * fpu <= search_ft]
    if not parts or not pad.geom_type.endswith("Polygon"):
        return PadExtent(max((p.length for p in parts), default=0.0) * fpu, 0.0)
    piece = min(parts, key=lambda p: p.distance(start))
    widths = [_cut_width(pad, piece, f, fpu) for f in (0.25, 0.5, 0.75)]
    return PadExtent(float(piece.length * fpu), float(min(widths)))


def _cut_width(pad: Any, piece: LineString, frac: float, fpu: float) -> float:
    p = piece.interpolate(frac, normalized=True)
    q = piece.interpolate(min(1.0, frac + 0.01), normalized=True)
    dx, dy = q.x - p.x, q.y - p.y
    n = float(np.hypot(dx, dy)) or 1.0
    reach = 1000.0 / fpu
    cut = LineString(
        [(p.x - dy / n * reach, p.y + dx / n * reach), (p.x + dy / n * reach, p.y - dx / n * reach)]
    )
    hit = shapely.intersection(cut, pad)
    segs = [s for s in getattr(hit, "geoms", [hit]) if s.geom_type == "LineString"]
    seg = min(segs, key=lambda s: s.distance(p), default=None)
    return float(seg.length * fpu) if seg is not None else 0.0
