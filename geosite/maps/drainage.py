"""Direction and destination of drainage flows (Grantsburg plan A(1)(g)): arrowheads along each natural
drainage path pointing downslope, and where each path's flow goes, labelled by name.

The drainage paths are the hydrology stage's ``channels`` layer: LineStrings from each path's head
downstream (the D8 links through cell centres), split at junctions. A path's destination is the first
thing its flow reaches, following it and the paths below it: a storm drain inlet, a stream, channel or
ditch, a wetland or lake (by the layer's ``name`` where it has one); failing those, the site edge where
the flow leaves the site; failing that, the map's edge it runs off (or the place it ends).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from matplotlib.collections import PathCollection
from matplotlib.path import Path as MplPath
from shapely.geometry import Point

from geosite.maps import layout as L
from geosite.maps import panel as P
from geosite.maps import title as T
from geosite.maps.common import MapContext, Panel, is_nan
from geosite.maps.symbology import MIN_PT, STYLES

#: Arrowheads along a drainage path: one per this many inches of paper (at least one a path).
ARROW_EVERY_IN = 1.0
#: An arrowhead's length, inches of paper.
ARROW_SIZE_IN = 0.09
#: Two labels of the same destination closer than this (inches of paper) are one label.
DESTINATION_SPACING_IN = 3.0


@dataclass(frozen=True)
class Destination:
    """Where a drainage path's flow goes: ``text`` (``flows to Little Wood Creek``) and the point
    (site CRS) where it gets there.
    """

    text: str
    x: float
    y: float
    kind: str  # inlet, water, site_edge, map_edge, end


def _targets(ctx: MapContext, tol: float) -> list[tuple[str, str, Any]]:
    """(kind, text, geometry to meet) for what a drainage path can reach, inlets first."""
    out = []
    for layer, kind, what in (
        ("storm_inlets", "inlet", "storm inlet"),
        ("channels", "water", "channel"),
        ("streams", "water", "stream"),
        ("wetlands", "water", "wetland"),
        ("lakes", "water", "lake"),
    ):
        gdf = ctx.site_layer(layer)
        if gdf is None:
            continue
        names = gdf["name"] if "name" in gdf.columns else [None] * len(gdf)
        for g, nm in zip(gdf.geometry.values, names, strict=True):
            if g is None or g.is_empty:
                continue
            named = str(nm).strip() if not is_nan(nm) and str(nm).strip() else ""
            text = (f"inlet {named}" if layer == "storm_inlets" else named) if named else f"a {what}"
            out.append((kind, f"flows to {text}", g.buffer(tol) if g.geom_type != "Polygon" else g))
    return out


def _first_hit(line, targets) -> tuple[tuple[float, str, str] | None, tuple[float, str, str] | None]:
    """The first target ``line`` meets going downstream, as (distance along it, kind, text), and the first
    one it starts in (it runs along a creek, through a wetland: what it reaches beyond counts first).
    """
    start = Point(line.coords[0])
    best = along = None
    for kind, text, g in targets:
        if not line.intersects(g):
            continue
        if g.contains(
            start
        ):  # a path along a creek or through a wetland: what it reaches beyond counts first
            along = along or (0.0, kind, text.replace("flows to", "flows along"))
            continue
        inter = line.intersection(g)
        coords = [c for part in shapely.get_parts(inter) for c in part.coords]
        if not coords:
            continue
        d = min(line.project(Point(c)) for c in coords)
        if best is None or d < best[0]:
            best = (d, kind, text)
    return best, along


def _downstream(paths: list) -> list[int | None]:
    """Each path's next path downstream: the one starting at (or passing through) its last vertex."""
    ends = [Point(p.coords[-1]) for p in paths]
    tree = shapely.STRtree(paths)
    nxt: list[int | None] = []
    for i, e in enumerate(ends):
        cand = [int(j) for j in tree.query(e.buffer(1e-6), predicate="intersects") if int(j) != i]
        starts = [j for j in cand if Point(paths[j].coords[0]).distance(e) < 1e-6]
        nxt.append(starts[0] if starts else (cand[0] if cand else None))
    return nxt


def destinations(ctx: MapContext, paths: list, window) -> list[Destination]:
    """Each drainage path's destination (see the module notes), in the order of ``paths`` (LineStrings,
    site CRS, drawn downstream); ``window`` is the ground the map shows.
    """
    tol = max(5.0 / ctx.site.ft_per_unit, 0.02 * ctx.upi)
    targets = _targets(ctx, tol)
    nxt = _downstream(paths)
    site = ctx.site.boundary
    out = []
    for i in range(len(paths)):
        seen: set[int] = set()
        cur: int | None = i
        exit_pt, last = None, paths[i]
        hit = along = None
        while cur is not None and cur not in seen:
            seen.add(cur)
            line = paths[cur]
            last = line
            found, on = _first_hit(line, targets)
            if along is None and on is not None:
                p = line.interpolate(line.length / 2)
                along = Destination(on[2], p.x, p.y, on[1])
            if (
                exit_pt is None
                and site.contains(Point(line.coords[0]))
                and not site.contains(Point(line.coords[-1]))
            ):
                out_part = line.difference(site)
                if not out_part.is_empty:
                    exit_pt = min(
                        (Point(c) for p in shapely.get_parts(out_part) for c in p.coords), key=line.project
                    )
            if found is not None:
                p = line.interpolate(found[0])
                hit = Destination(found[2], p.x, p.y, found[1])
                break
            cur = nxt[cur]
        hit = hit or along
        if hit is None and exit_pt is not None:
            c = site.centroid
            hit = Destination(
                f"leaves the site at its {T.compass(exit_pt.x - c.x, exit_pt.y - c.y)} edge",
                exit_pt.x,
                exit_pt.y,
                "site_edge",
            )
        if hit is None:
            end = Point(last.coords[-1])
            edge = min(
                window.exterior.distance(end), ctx.margin_area.exterior.distance(end)
            ) < 2 * tol or not window.contains(end)
            a, b = Point(last.coords[max(len(last.coords) - 3, 0)]), end
            if edge:
                hit = Destination(
                    f"flows on off the map, {T.compass(b.x - a.x, b.y - a.y)}", end.x, end.y, "map_edge"
                )
            else:
                hit = Destination("flow path ends (DEM edge or no heights)", end.x, end.y, "end")
        out.append(hit)
    return out


def _visible_paths(nat, window) -> list:
    """The drainage paths' LineString parts (site CRS), in their downstream direction."""
    parts = []
    for g in nat.geometry.values:
        if g is None or g.is_empty:
            continue
        parts += [
            p
            for p in shapely.get_parts(shapely.line_merge(g) if g.geom_type == "MultiLineString" else g)
            if p.geom_type == "LineString" and p.length > 0
        ]
    return parts


def draw_flow_arrows(sheet: L.MapSheet, paths: list, color: str) -> int:
    """Arrowheads along each path pointing downstream, one per :data:`ARROW_EVERY_IN` inches of paper
    (at least one a path, at its middle when short); returns how many were drawn on this sheet.
    """
    upi = sheet.plan.units_per_inch
    win = sheet.window
    heads = []
    for line in paths:
        vis = line.intersection(win)
        for part in shapely.get_parts(vis):
            if part.geom_type != "LineString" or part.length <= 0:
                continue
            for x, y, ang in L.points_along([part], ARROW_EVERY_IN * upi):
                heads.append(P.arrow_head(x, y, ang, ARROW_SIZE_IN * upi))
    if heads:
        codes = [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY]
        pc = PathCollection(
            [MplPath(np.vstack([h, h[:1]]), codes) for h in heads],
            facecolors=color,
            edgecolors=color,
            linewidths=0.3,
            zorder=4.05,
            gid="flow-arrows",
        )
        sheet.ax.add_collection(pc, autolim=False)
        _keep_clear_of(sheet, heads)
    return len(heads)


def _keep_clear_of(sheet: L.MapSheet, heads: list) -> None:
    """Labels keep clear of the arrowheads (their corners, data coordinates) as of any drawn symbol."""
    from shapely.geometry import Polygon

    from geosite.maps import labels

    labels.keep_clear(sheet, [Polygon(h) for h in heads], reach_in=0.3 / 72 / 2)


def downslope_deg(dem, x: float, y: float) -> float | None:
    """The downhill direction (degrees counter-clockwise from grid east) at (x, y) on ``dem`` (same CRS):
    central differences of the heights one cell either side; None off the grid, on a flat or a hole.
    """
    inv = ~dem.transform
    c, r = inv @ (x, y)
    r, c = int(r), int(c)
    z = dem.elevation_ft
    if not (1 <= r < z.shape[0] - 1 and 1 <= c < z.shape[1] - 1):
        return None
    gx = (z[r, c + 1] - z[r, c - 1]) / (2 * abs(dem.transform.a))
    gy = (z[r - 1, c] - z[r + 1, c]) / (2 * abs(dem.transform.e))  # rows run south: up the sheet is r - 1
    if not np.isfinite(gx) or not np.isfinite(gy) or math.hypot(gx, gy) < 1e-9:
        return None
    return math.degrees(math.atan2(-gy, -gx))


def draw_entry_arrows(ctx: MapContext, sheet: L.MapSheet, points, color: str) -> int:
    """Where upslope drainage enters the disturbed area: an arrowhead at each point, pointing down the
    DEM's slope there (toward the disturbed area where the ground is flat); returns how many.
    """
    dem = ctx.dem()
    same = dem is not None and dem.crs is not None and dem.crs.equals(ctx.site.crs)
    target = ctx.site.disturbed if getattr(ctx.site, "disturbed", None) is not None else ctx.site.boundary
    heads = []
    for p in points:
        if p is None or p.is_empty or not sheet.window.contains(p):
            continue
        ang = downslope_deg(dem, p.x, p.y) if same else None
        if ang is None:
            q = target.centroid
            ang = math.degrees(math.atan2(q.y - p.y, q.x - p.x))
        heads.append(P.arrow_head(p.x, p.y, ang, ARROW_SIZE_IN * 1.2 * sheet.plan.units_per_inch))
    if heads:
        codes = [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY]
        sheet.ax.add_collection(
            PathCollection(
                [MplPath(np.vstack([h, h[:1]]), codes) for h in heads],
                facecolors=color,
                edgecolors=color,
                linewidths=0.3,
                zorder=7,
                gid="entry-arrows",
            ),
            autolim=False,
        )
        _keep_clear_of(sheet, heads)
    return len(heads)


def label_destinations(sheet: L.MapSheet, dests: list[Destination], color: str) -> list[str]:
    """One label per destination and place (labels of one destination within
    :data:`DESTINATION_SPACING_IN` of each other are one); returns the texts asked for.
    """
    from shapely.ops import nearest_points

    upi = sheet.plan.units_per_inch
    inner = sheet.window.buffer(
        -0.05 * upi
    )  # a place on the map's edge (flow leaving it) is labelled just inside
    kept: list[Destination] = []
    for d in dests:
        p = Point(d.x, d.y)
        if not inner.contains(p):
            if p.distance(inner) > 0.1 * upi:
                continue  # beyond this sheet
            p = nearest_points(inner, p)[0]
        if any(
            k.text == d.text and math.hypot(k.x - p.x, k.y - p.y) < DESTINATION_SPACING_IN * upi for k in kept
        ):
            continue
        kept.append(Destination(d.text, p.x, p.y, d.kind))
        L.label_at(sheet, p.x, p.y, d.text, size=MIN_PT, color=color, kind="water", feature=p, style="italic")
    return [k.text for k in kept]


def draw_drainage(ctx: MapContext, sheet: L.MapSheet, panel: Panel, prefix: str) -> bool:
    """The natural drainage paths with flow arrows and their destinations (A(1)(g) "direction and
    destination of drainage flows"); a note lists each destination with the number of paths reaching
    it. False when the analysis traced no drainage path near the site.
    """
    nat = ctx.derived.get("channels")
    if nat is None or not len(nat):
        return False
    st = STYLES["natural_drainage"]
    L.draw_geoms(sheet, nat.geometry.values, st)
    paths = _visible_paths(nat, sheet.window)
    n_arrows = draw_flow_arrows(sheet, paths, st.edge)
    dests = destinations(ctx, paths, sheet.window)
    label_destinations(sheet, dests, "#1b4f72")
    sheet.destinations = dests  # for tests and notebooks
    panel.add(st, prefix + st.label)
    counts: dict[str, int] = {}
    for d in dests:
        counts[d.text] = counts.get(d.text, 0) + 1
    listed = "; ".join(
        f"{t} ({n} path{'s' if n != 1 else ''})" for t, n in sorted(counts.items(), key=lambda kv: -kv[1])
    )
    panel.notes.append(
        f"{prefix}Direction and destination of drainage flows: {len(paths)} drainage path(s) from the "
        f"DEM, {n_arrows} arrow(s) downslope; where the flow goes: {listed}."
    )
    return True


__all__ = [
    "Destination",
    "destinations",
    "downslope_deg",
    "draw_drainage",
    "draw_entry_arrows",
    "draw_flow_arrows",
]
