"""Sheets at exact scale: the map axes, geometry drawing, contour labels, and the panel (legend, north
arrow, graphic and written scale, key map, title block).

The map axes sit at a fixed place on the sheet in inches, and their data limits are set so that one
inch of paper spans exactly ``scale_ft`` ground feet (``units_per_inch`` CRS units). Aspect is exact
because both axes get the same units per inch; nothing here may call tight_layout or save with
``bbox_inches="tight"`` (either would move the axes or crop the page).

Only ``matplotlib.figure.Figure`` is used, never pyplot: no global state, no GUI backend.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import shapely
from matplotlib import patheffects
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon as MplPolygon
from matplotlib.patches import Rectangle
from matplotlib.path import Path as MplPath
from shapely.geometry import box

from geosite.maps.symbology import BODY_PT, FONT, HEADING_PT, INK, MIN_PT, Style

if TYPE_CHECKING:
    from geosite.maps.sheets import SheetPlan, Tile

#: Courier, the standard font the sheets once set their tables in (FONT, Helvetica, is every text's now).
MONO = "Courier"

RC: dict[Any, Any] = {
    "pdf.use14corefonts": True,  # text stays searchable text, in the reader's own Helvetica
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    "font.family": FONT,
    "text.parse_math": False,  # a "$" in a name or a note is a dollar sign, never mathtext
    "hatch.linewidth": 0.4,
    "path.simplify": False,  # matplotlib's own simplification works in screen pixels: see PRINT_TOLERANCE_IN
    "lines.solid_capstyle": "butt",
}


#: Linework is simplified to this many inches of paper before it is drawn (Douglas-Peucker, topology
#: kept): 0.005 in, 0.5 ft at 1 in = 100 ft, about the width of the thinnest line on the sheet
#: (0.35 pt), so no vertex it drops could be seen in print; the derived layers keep every vertex.
PRINT_TOLERANCE_IN = 0.005
#: Raster layers are drawn at most this many cells per inch of paper (print resolution), cropped to the
#: sheet's window; the PNG preview resamples them to its own resolution.
PRINT_DPI = 300


# --------------------------------------------------------------------------------------------- sheet


@dataclass
class MapSheet:
    """One sheet being drawn: the figure, the map axes, the panel axes (inch coordinates)."""

    fig: Figure
    ax: Any
    panel: Any
    plan: SheetPlan
    tile: Tile
    legend: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sheet_no: str = "1"
    heading: str = ""
    cursor: float = 0.0  # panel: inches from the panel's top already used
    floor: float = 0.0  # panel: inches from the panel's bottom already used
    labels: list[Any] = field(default_factory=list)  # geosite.maps.labels.Label, placed by labels.place
    avoid: list[Any] = field(default_factory=list)  # symbol boxes (paper inches) labels must not hide
    clear: list[Any] = field(default_factory=list)  # geosite.maps.labels.Obstacle: drawn symbols, ditto
    placed: list[Any] = field(default_factory=list)  # (text, box in paper inches) of the labels placed
    unplaced: list[str] = field(default_factory=list)  # labels no candidate position could hold
    keyed: list[tuple[str, str]] = field(default_factory=list)  # (key, text) of labels shown by their key
    #: what is drawn under the labels and cut where one lies (:func:`cut_under_labels`): (artist, kind,
    #: shapely parts as drawn, data coordinates), kind ``lines``, ``polygons`` or ``marks``
    cuttable: list[Any] = field(default_factory=list)
    model_labels: list[Any] = field(
        default_factory=list
    )  # geosite.symbols.PlacedLabel: the placed, in model space
    swatches: list[tuple[str, str, str]] = field(default_factory=list)  # legend rows: (label, kind, marker)
    destinations: list[Any] = field(
        default_factory=list
    )  # geosite.maps.drainage.Destination, per drainage path
    limit: tuple[float, float, float, float] | None = (
        None  # what the map shows (the site and its margin), CRS units
    )

    @property
    def drawing(self) -> bool:
        """False on a probe sheet (:func:`probe_sheet`): what is drawn is only measured, never made."""
        return not isinstance(self.ax, NullAxes)

    @property
    def window(self):
        """The ground this sheet shows: its tile, cut to :attr:`limit` (nothing is drawn or labelled
        beyond).
        """
        w = box(*self.tile.bounds)
        return w if self.limit is None else w.intersection(box(*self.limit))

    @property
    def window_in(self):
        """:attr:`window` on paper: inches from the sheet's lower left."""
        upi = self.plan.units_per_inch
        fx, fy, _, _ = self.plan.sheet.frame
        x0, y0, x1, y1 = self.window.bounds
        tx, ty = self.tile.bounds[0], self.tile.bounds[1]
        return box(fx + (x0 - tx) / upi, fy + (y0 - ty) / upi, fx + (x1 - tx) / upi, fy + (y1 - ty) / upi)


def new_sheet(
    plan: SheetPlan, tile: Tile, limit: tuple[float, float, float, float] | None = None
) -> MapSheet:
    """A blank sheet: the map frame at exact scale over ``tile`` and an empty panel.

    Parameters
    ----------
    plan : SheetPlan
        The sheet plan.
    tile : Tile
        This sheet's tile of it.
    limit : tuple of float or None
        The ground the map shows (xmin, ymin, xmax, ymax, CRS units: the site and its map margin);
        drawing and labels stop at it (:func:`clip_map`). None: the whole tile.

    Returns
    -------
    MapSheet
        The sheet, its figure at the sheet's size.
    """
    s = plan.sheet
    W, H = s.width_in, s.height_in
    fig = Figure(figsize=(W, H), dpi=100)
    fx, fy, fw, fh = s.frame
    ax = fig.add_axes((fx / W, fy / H, fw / W, fh / H))
    xmin, ymin, xmax, ymax = tile.bounds
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    ax.set_aspect("auto")  # exact already: both axes carry units_per_inch; 'equal' could only move them
    ax.set_autoscale_on(False)
    ax.set_xticks([])
    ax.set_yticks([])
    for sp in ax.spines.values():
        sp.set_linewidth(1.0)
    px, py, pw, ph = s.panel
    panel = fig.add_axes((px / W, py / H, pw / W, ph / H))
    panel.set_xlim(0, pw)
    panel.set_ylim(0, ph)
    panel.set_autoscale_on(False)
    panel.set_axis_off()
    panel.add_patch(Rectangle((0, 0), pw, ph, fill=False, lw=1.0, ec=INK))
    # sheet border
    fig.add_artist(
        Rectangle(
            (0.5 * s.border_in / W, 0.5 * s.border_in / H),
            1 - s.border_in / W,
            1 - s.border_in / H,
            transform=fig.transFigure,
            fill=False,
            lw=0.5,
            ec="#888888",
        )
    )
    return MapSheet(fig, ax, panel, plan, tile, limit=limit)


class NullAxes:
    """Stands in for a figure or axes that is only measured: accepts every drawing call, draws nothing."""

    def __getattr__(self, name: str) -> Any:
        """A do-nothing callable for any method asked for.

        Parameters
        ----------
        name : str
            The method's name.

        Returns
        -------
        callable
            A function taking any arguments and returning None.
        """
        return _nothing


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


def probe_sheet(
    plan: SheetPlan, tile: Tile, limit: tuple[float, float, float, float] | None = None
) -> MapSheet:
    """A sheet that measures without drawing (no figure): a map drawn on it fills its panel, legend
    and notes as on a real sheet, so whether the panel overflows is known before anything is drawn.

    Parameters
    ----------
    plan : SheetPlan
        The sheet plan.
    tile : Tile
        This sheet's tile of it.
    limit : tuple of float or None
        The ground the map shows (xmin, ymin, xmax, ymax, CRS units); None: the whole tile.

    Returns
    -------
    MapSheet
        The probe sheet.
    """
    return MapSheet(cast(Figure, NullAxes()), NullAxes(), NullAxes(), plan, tile, limit=limit)


def clip_map(sheet: MapSheet) -> None:
    """Clip everything drawn on the map to :attr:`MapSheet.window` (the site and its margin): features
    beyond it are cut at its edge, and its edge is drawn as a thin neat line.
    """
    if sheet.limit is None:
        return
    x0, y0, x1, y1 = sheet.window.bounds
    rect = Rectangle((x0, y0), x1 - x0, y1 - y0, transform=sheet.ax.transData, fill=False)
    for art in [*sheet.ax.collections, *sheet.ax.lines, *sheet.ax.images, *sheet.ax.patches]:
        if art.get_gid() != "leader":
            art.set_clip_path(rect)
    sheet.ax.add_patch(
        Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec="#555555", lw=0.5, zorder=10.3, gid="neat-line")
    )


def scale_check(sheet: MapSheet) -> float:
    """Ground feet per paper inch as the figure will print it (from its transforms)."""
    ax, fig = sheet.ax, sheet.fig
    (x0, _), (x1, _) = ax.transData.transform([(sheet.tile.bounds[0], 0), (sheet.tile.bounds[2], 0)])
    inches = (x1 - x0) / fig.dpi
    return (
        (sheet.tile.bounds[2] - sheet.tile.bounds[0])
        * sheet.plan.scale_ft
        / sheet.plan.units_per_inch
        / inches
    )


# ------------------------------------------------------------------------------------------ geometry


def _ring_codes(n: int) -> np.ndarray:
    codes = np.full(n, MplPath.LINETO, dtype=MplPath.code_type)
    codes[0] = MplPath.MOVETO
    codes[-1] = MplPath.CLOSEPOLY
    return codes


def polygon_path(geom) -> MplPath | None:
    """A matplotlib Path for a (multi)polygon, holes included."""
    verts, codes = [], []
    for poly in shapely.get_parts(geom):
        if poly.geom_type != "Polygon" or poly.is_empty:
            continue
        for ring in [poly.exterior, *poly.interiors]:
            xy = np.asarray(ring.coords)
            if len(xy) < 3:
                continue
            verts.append(xy)
            codes.append(_ring_codes(len(xy)))
    if not verts:
        return None
    return MplPath(np.concatenate(verts), np.concatenate(codes))


def _split(geoms) -> tuple[list, list, list]:
    polys, lines, points = [], [], []
    for g in geoms:
        if g is None or g.is_empty:
            continue
        for part in shapely.get_parts(g):
            t = part.geom_type
            if t == "Polygon":
                polys.append(part)
            elif t in ("LineString", "LinearRing"):
                lines.append(part)
            elif t == "Point":
                points.append(part)
            elif t.startswith("Multi") or t == "GeometryCollection":
                p2, l2, pt2 = _split([part])
                polys += p2
                lines += l2
                points += pt2
    return polys, lines, points


def draw_geoms(
    sheet: MapSheet, geoms, st: Style, *, edge: str | None = None, clip_to_window: bool = True
) -> int:
    """Draw polygons, lines and points in ``st``; returns how many parts fall in the sheet's window.

    Parameters
    ----------
    sheet : MapSheet
        The sheet drawn on.
    geoms : sequence of shapely geometry
        The features (site CRS); None and empty ones are skipped.
    st : Style
        The layer's style.
    edge : str or None
        An edge colour other than the style's.
    clip_to_window : bool
        Leave out features wholly beyond the sheet's window (and half an inch of paper around it).

    Returns
    -------
    int
        The polygon, line and point parts drawn (on a probe sheet: counted before simplification).
    """
    win = sheet.window.buffer(sheet.plan.units_per_inch * 0.5)
    geoms = [g for g in geoms if g is not None and not g.is_empty]
    if clip_to_window:
        geoms = [g for g in geoms if g.intersects(win)]
    polys, lines, points = _split(geoms)
    if not sheet.drawing:  # a probe: only the parts counted (before simplification)
        return len(polys) + len(lines) + len(points)
    tol = PRINT_TOLERANCE_IN * sheet.plan.units_per_inch
    polys = [g for g in shapely.simplify(polys, tol, preserve_topology=True) if not g.is_empty]
    lines = list(shapely.simplify(lines, tol, preserve_topology=True))
    ec = edge or st.edge
    if st.clear:
        _keep_clear(sheet, polys, lines, st)
    if polys:
        pc = _draw_polygons(sheet.ax, polys, st, ec)
        if not st.clear or st.hatch:  # a symbol's own hatching opens under its name inside it
            sheet.cuttable.append((pc, "polygons", polys))
    if lines:
        for art in _draw_lines(sheet, lines, st, ec):
            if not st.clear:
                sheet.cuttable.append((art, "marks" if art.get_gid() == "line-mark" else "lines", lines))
    if points:
        _draw_points(sheet, points, st, ec)
    return len(polys) + len(lines) + len(points)


def _keep_clear(sheet: MapSheet, polys: list, lines: list, st: Style) -> None:
    """Register the parts drawn in ``st`` as symbols labels keep clear of (``st.clear``), at the reach
    of their ink on paper: half the line width, or half a fence's mark.
    """
    from geosite.maps import labels

    reach_in = max(st.lw, float(st.extra.get("mark_size", 0.0)) if st.extra.get("marks") else 0.0) / 72 / 2
    labels.keep_clear(sheet, polys, reach_in=reach_in, edge_only=st.clear == "edge")
    labels.keep_clear(sheet, lines, reach_in=reach_in)


def _draw_polygons(ax: Any, polys: list, st: Style, ec: str) -> Any:
    """Polygons (holes kept) as one collection in ``st``, edged ``ec``; returns it."""
    paths = [p for p in (polygon_path(g) for g in polys) if p is not None]
    pc = PathCollection(
        paths,
        facecolors=st.face,
        edgecolors=ec,
        linewidths=st.lw,
        linestyles=[st.ls],
        alpha=st.alpha if st.face != "none" else None,
        zorder=st.z,
        hatch=st.hatch,
    )
    if st.hatch:
        pc.set_hatchcolor(ec)
    ax.add_collection(pc, autolim=False)
    return pc


def _draw_lines(sheet: MapSheet, lines: list, st: Style, ec: str) -> list[Any]:
    """Lines as one collection in ``st``: a road's casing under it, a berm's inner line, a fence's marks;
    returns the artists drawn.
    """
    ax = sheet.ax
    segs = [np.asarray(ln.coords) for ln in lines]
    out = []
    if st.face not in ("none", None) and st.kind == "line":  # roads: a casing under the line
        out.append(
            LineCollection(segs, colors=st.face, linewidths=st.lw * 3, zorder=st.z - 0.01, capstyle="round")
        )
    out.append(LineCollection(segs, colors=ec, linewidths=st.lw, linestyles=[st.ls], zorder=st.z))
    inner = st.extra.get("inner")
    if inner:  # a second line inside the first (a diversion's berm): drawn the same in the legend
        out.append(
            LineCollection(
                segs, colors=inner[0], linewidths=inner[1], linestyles=[inner[2]], zorder=st.z + 0.001
            )
        )
    for c in out:
        ax.add_collection(c, autolim=False)
    if st.extra.get("marks"):
        marks = _line_marks(sheet, lines, st, ec)
        if marks is not None:
            out.append(marks)
    return out


def _draw_points(sheet: MapSheet, points: list, st: Style, ec: str) -> None:
    """Point markers in ``st``, which labels then keep clear of."""
    xy = np.array([(p.x, p.y) for p in points])
    sheet.ax.plot(
        xy[:, 0],
        xy[:, 1],
        ls="none",
        marker=st.marker,
        ms=st.size,
        mfc=st.face,
        mec=ec,
        mew=0.7,
        zorder=st.z,
    )
    from geosite.maps import labels

    labels.avoid(sheet, points, pad_in=st.size / 72 / 2 + 0.01)


def points_along(lines, spacing: float, first: float | None = None) -> list[tuple[float, float, float]]:
    """(x, y, direction in degrees) every ``spacing`` (CRS units) along each line, the first at
    ``first`` (default half a spacing) from its start; a line shorter than that gets one, at its middle.
    """
    out = []
    for ln in lines:
        n = ln.length
        if n <= 0:
            continue
        start = spacing / 2 if first is None else first
        ds = np.arange(start, n, spacing) if n > start else np.array([n / 2])
        for d in ds:
            a, b = ln.interpolate(max(d - spacing * 0.05, 0)), ln.interpolate(min(d + spacing * 0.05, n))
            p = ln.interpolate(d)
            out.append((p.x, p.y, float(np.degrees(np.arctan2(b.y - a.y, b.x - a.x)))))
    return out


def _line_marks(sheet: MapSheet, lines, st: Style, color: str) -> Any:
    """A line symbol's marks (a fence's x) every ``mark_every_in`` inches of paper along it (the artist, or
    None without any).
    """
    every = float(st.extra.get("mark_every_in", 0.3)) * sheet.plan.units_per_inch
    pts = points_along(lines, every)
    if not pts:
        return None
    xy = np.array([(x, y) for x, y, _ in pts])
    return sheet.ax.plot(
        xy[:, 0],
        xy[:, 1],
        ls="none",
        marker=st.extra["marks"],
        ms=st.extra.get("mark_size", 3.2),
        mec=color,
        mfc=color,
        mew=0.8,
        zorder=st.z + 0.002,
        gid="line-mark",
    )[0]


def cut_under_labels(sheet: MapSheet) -> None:
    """Break the linework drawn under the placed labels (:attr:`MapSheet.cuttable`: contours, roads,
    utilities, area outlines, hatching; never a practice symbol, which labels keep clear of): each line
    cut where it enters a label's box (padded), a hatched fill opened there, a line's marks dropped, as a
    drafter breaks a line for its text. The labels' boxes are the ones placed (``sheet.placed``).
    """
    from geosite.maps.symbology import LABELS

    if not sheet.placed or not sheet.cuttable or not sheet.drawing:
        return
    upi = sheet.plan.units_per_inch
    fx, fy, _, _ = sheet.plan.sheet.frame
    tx, ty = sheet.tile.bounds[0], sheet.tile.bounds[1]
    pad = LABELS["pad_in"]
    boxes = [
        box(
            tx + (b.bounds[0] - pad - fx) * upi,
            ty + (b.bounds[1] - pad - fy) * upi,
            tx + (b.bounds[2] + pad - fx) * upi,
            ty + (b.bounds[3] + pad - fy) * upi,
        )
        for _, b in sheet.placed
    ]
    holes = shapely.union_all(boxes)
    tree = shapely.STRtree(boxes)
    for art, kind, parts in sheet.cuttable:
        hit = [g for g in parts if len(tree.query(g, predicate="intersects"))]
        if not hit:
            continue
        if kind == "marks":
            xy = np.column_stack(art.get_data())
            keep = ~shapely.intersects(holes, shapely.points(xy))
            art.set_data(xy[keep, 0], xy[keep, 1])
        elif kind == "lines":
            art.set_segments(_cut_segments(art.get_segments(), holes))
        else:
            _cut_polygons(sheet, art, parts, holes)


def _cut_segments(segs: list, holes: Any) -> list:
    """Line segments (arrays of x, y) with the parts inside ``holes`` taken out."""
    out = []
    for xy in segs:
        if len(xy) < 2:
            continue
        line = shapely.LineString(xy)
        if not line.intersects(holes):
            out.append(xy)
            continue
        for part in shapely.get_parts(line.difference(holes)):
            if part.geom_type == "LineString" and part.length > 0:
                out.append(np.asarray(part.coords))
    return out


def _cut_polygons(sheet: MapSheet, pc: Any, polys: list, holes: Any) -> None:
    """A polygon collection cut under the labels: its outline drawn apart as lines broken at ``holes``,
    its hatching (where it has any) opened there; a plain fill is left whole (a fill is no line).
    """
    ec = pc.get_edgecolor()
    lw, ls = pc.get_linewidths(), pc.get_linestyles()
    if pc.get_hatch():
        opened = [g.difference(holes) for g in polys]
        pc.set_paths([p for p in (polygon_path(g) for g in opened) if p is not None])
    pc.set_edgecolor("none")
    if not len(ec) or (len(lw) and lw[0] <= 0):
        return
    rings = [np.asarray(r.coords) for g in polys for r in [g.exterior, *g.interiors]]
    edges = LineCollection(
        _cut_segments(rings, holes),
        colors=[ec[0]],
        linewidths=lw[0] if len(lw) else 1.0,
        linestyles=[ls[0]] if len(ls) else "solid",
        zorder=pc.get_zorder(),
        alpha=pc.get_alpha(),
    )
    sheet.ax.add_collection(edges, autolim=False)
    edges.set_clip_box(pc.get_clip_box())  # clipped as the polygons are (clip_map: the map's window)
    if pc.get_clip_path() is not None:
        edges.set_clip_path(pc.get_clip_path())


def halo(width: float = 2.0):
    """A white halo (stroke ``width`` points) for text over the map."""
    return [patheffects.withStroke(linewidth=width, foreground="white")]


def label_at(
    sheet: MapSheet,
    x: float,
    y: float,
    text: str,
    size: float = BODY_PT,
    *,
    color: str = INK,
    kind: str = "feature",
    feature=None,
    along=None,
    **kw,
) -> None:
    """Ask for a label at (x, y); :func:`geosite.maps.labels.place` puts it where it overlaps nothing."""
    from geosite.maps import labels

    labels.request(sheet, x, y, text, size=size, color=color, kind=kind, feature=feature, along=along, **kw)


def label_polygons(
    sheet: MapSheet,
    gdf,
    texts: list[str],
    size: float = BODY_PT,
    color: str = INK,
    *,
    min_sq_in: float = 0.04,
    kind: str = "feature",
    **kw,
) -> None:
    """A label for each feature's visible part: inside a polygon large enough on paper to hold it
    (``min_sq_in`` square inches of paper, 0.04 by default: geosite's choice, not the ordinance's, a
    drawing size; else beside it, with a leader), along a line.
    """
    if not sheet.drawing:  # a probe sheet places no labels
        return
    win = sheet.window
    upi2 = sheet.plan.units_per_inch**2
    for geom, text in zip(gdf.geometry.values, texts, strict=True):
        if not text or geom is None or geom.is_empty:
            continue
        vis = geom.intersection(win)
        if vis.is_empty:
            continue
        along = None
        if vis.geom_type in ("LineString", "MultiLineString"):
            parts = sorted(shapely.get_parts(vis), key=lambda g: -g.length)
            along = parts[0]
            p = along.interpolate(0.5, normalized=True)
        else:
            p = vis.representative_point() if vis.geom_type != "Point" else vis
        if vis.geom_type in ("Polygon", "MultiPolygon") and vis.area / upi2 < min_sq_in:
            p = vis.centroid  # too small to hold its label: the label goes beside it, with a leader
        label_at(sheet, p.x, p.y, text, size=size, color=color, kind=kind, feature=vis, along=along, **kw)


# ------------------------------------------------------------------------------------------ contours


def draw_contours(
    sheet: MapSheet,
    contours,
    minor: Style,
    index: Style,
    label_every_in: float = 5.0,
    *,
    size: float = MIN_PT,
) -> list[tuple[float, float, float]]:
    """Contour lines (minor thin, index heavy) and the index contours' elevations along them, upright,
    on a white halo, at least once per visible piece at least 0.75 in long and then every
    ``label_every_in`` inches of paper (5 by default: geosite's choice, not the ordinance's, a drawing
    size). Returns the labels placed as (x, y, elevation_ft).

    Parameters
    ----------
    sheet : MapSheet
        The sheet drawn on.
    contours : geopandas.GeoDataFrame
        The contours (site CRS), with ``elevation_ft`` (feet) and ``index`` (bool) columns.
    minor : Style
        The minor contours' style.
    index : Style
        The index contours' style (their labels take its colour).
    label_every_in : float
        Paper inches between an index contour's labels.
    size : float
        The labels' text size, points.

    Returns
    -------
    list of tuple of float
        (x, y, elevation in feet) of each label asked for; none on a probe sheet.
    """
    if contours is None or len(contours) == 0 or not sheet.drawing:
        return []
    upi = sheet.plan.units_per_inch
    clipped = shapely.simplify(
        shapely.clip_by_rect(contours.geometry.values, *sheet.tile.bounds),
        PRINT_TOLERANCE_IN * upi,
        preserve_topology=True,
    )
    is_index = (
        contours["index"].to_numpy(dtype=bool)
        if "index" in contours.columns
        else np.zeros(len(contours), bool)
    )
    for want_index, st in ((False, minor), (True, index)):
        segs = [
            np.asarray(p.coords)
            for g, ix in zip(clipped, is_index, strict=True)
            if bool(ix) == want_index and g is not None and not g.is_empty
            for p in shapely.get_parts(g)
            if p.geom_type == "LineString"
        ]
        if segs:
            lc = LineCollection(segs, colors=st.edge, linewidths=st.lw, zorder=st.z)
            sheet.ax.add_collection(lc, autolim=False)
            sheet.cuttable.append((lc, "lines", [shapely.LineString(x) for x in segs if len(x) > 1]))
    elev = contours["elevation_ft"].to_numpy(dtype=float)
    placed = []
    for g, z in zip(clipped[is_index], elev[is_index], strict=True):
        if g is None or g.is_empty:
            continue
        for part in shapely.get_parts(g):
            if part.geom_type == "LineString":
                placed += _label_contour(sheet, part, z, index.edge, every_in=label_every_in, size=size)
    return placed


def _label_contour(
    sheet: MapSheet, part, z: float, color: str, *, every_in: float, size: float
) -> list[tuple[float, float, float]]:
    """Labels of elevation ``z`` (feet) along one visible piece of an index contour: none under
    0.75 in of paper, else one per ``every_in`` inches, each fixed to its stretch of the line.
    """
    from shapely.ops import substring

    from geosite.maps import labels
    from geosite.maps.symbology import LABELS

    length_in = part.length / sheet.plan.units_per_inch
    if length_in < LABELS["contour_min_in"]:
        return []
    n = max(1, int(length_in // every_in))
    text = f"{z:.0f}" if abs(z - round(z)) < 1e-6 else f"{z:.1f}"
    out = []
    for k in range(n):
        piece = substring(part, part.length * k / n, part.length * (k + 1) / n)
        p = piece.interpolate(0.5, normalized=True)
        labels.request(
            sheet,
            p.x,
            p.y,
            text,
            size=size,
            color=color,
            kind="contour",
            along=piece,
            fixed=True,
            gid="contour-label",
        )
        out.append((p.x, p.y, z))
    return out


def draw_hillshade(sheet: MapSheet, dem, shade: np.ndarray, alpha: float = 0.35) -> None:
    """The shaded relief under the map: only the cells under the sheet's window, at most
    :data:`PRINT_DPI` of them per inch of paper (every k-th cell where the DEM is finer).
    """
    if not sheet.drawing:
        return
    inv = ~dem.transform
    xmin, ymin, xmax, ymax = sheet.tile.bounds
    c0, r0 = inv @ (xmin, ymax)
    c1, r1 = inv @ (xmax, ymin)
    rows, cols = shade.shape
    r0, c0 = max(int(np.floor(r0)) - 1, 0), max(int(np.floor(c0)) - 1, 0)
    r1, c1 = min(int(np.ceil(r1)) + 1, rows), min(int(np.ceil(c1)) + 1, cols)
    if r0 >= r1 or c0 >= c1:
        return
    per_in = sheet.plan.units_per_inch / abs(dem.transform.a)
    k = max(int(np.ceil(per_in / PRINT_DPI)), 1)
    t = dem.transform
    img = np.ma.masked_equal(shade[r0:r1:k, c0:c1:k], 0)
    # each sample stands for k x k cells from its own: the image spans n * k cells, not c1 - c0
    left, r = t.c + c0 * t.a, t.c + (c0 + img.shape[1] * k) * t.a
    top, b = t.f + r0 * t.e, t.f + (r0 + img.shape[0] * k) * t.e
    # flat ground under a 45-degree sun shades to 255 sin 45 = 180: that and brighter print white, so
    # only the shadows of the relief darken the sheet
    sheet.ax.imshow(
        img,
        extent=(left, r, b, top),
        origin="upper",
        cmap="gray",
        vmin=0,
        vmax=180,
        alpha=alpha,
        interpolation="nearest",
        zorder=0.5,
    )
    sheet.ax.set_xlim(sheet.tile.bounds[0], sheet.tile.bounds[2])  # imshow must not move the limits
    sheet.ax.set_ylim(sheet.tile.bounds[1], sheet.tile.bounds[3])


# --------------------------------------------------------------------------------------------- panel


def _wrap(text: str, width_in: float, size: float, *, bold: bool = False) -> list[str]:
    """``text`` broken into lines that fit ``width_in`` inches at ``size`` points, by Helvetica's own widths
    (:func:`geosite.maps.tables.wrap_in`); its own line breaks kept.
    """
    from geosite.maps.tables import wrap_in

    return wrap_in(text, width_in, size, bold=bold)


def panel_table(sheet: MapSheet, rows: list[str], size: float) -> float:
    """A table (:mod:`geosite.maps.tables`) at the panel's cursor, as wide as the panel allows; returns the
    height used, inches (measured alone on a probe sheet).
    """
    from geosite.maps.tables import draw_table

    pw, ph = sheet.plan.sheet.panel[2], sheet.plan.sheet.panel[3]
    size = max(size, MIN_PT)
    used = draw_table(sheet.panel, 0.1, ph - sheet.cursor, rows, width_in=pw - 0.2, size=size)
    sheet.cursor += used
    return used


def panel_text(
    sheet: MapSheet,
    text: str,
    size: float = BODY_PT,
    bold: bool = False,
    indent: float = 0.0,
    *,
    gid: str | None = None,
    color: str = INK,
) -> float:
    """Wrapped text at the panel's cursor (top down); returns the height used, inches."""
    size = max(size, MIN_PT)  # the size printed, and so the pitch of its lines
    pw = sheet.plan.sheet.panel[2]
    ph = sheet.plan.sheet.panel[3]
    lines = _wrap(text, pw - 0.2 - indent, size, bold=bold)
    lh = size * 1.25 / 72
    y = ph - sheet.cursor
    for k, line in enumerate(
        lines
    ):  # one text a line, baselines at this pitch (a line's own ink never moves it)
        sheet.panel.text(
            0.1 + indent,
            y - k * lh - 0.8 * size / 72,
            line,
            fontsize=size,
            va="baseline",
            ha="left",
            fontweight="bold" if bold else "normal",
            gid=gid,
            color=color,
            family=FONT,
        )
    used = lh * len(lines)
    sheet.cursor += used
    return used


def legend_row(
    sheet: MapSheet, st: Style, label: str, size: float = BODY_PT, edge: str | None = None
) -> None:
    """One legend row: a swatch drawn as the map draws the layer, then its label.

    Parameters
    ----------
    sheet : MapSheet
        The sheet; the row goes at its panel's cursor, which moves down past it.
    st : Style
        The layer's style.
    label : str
        The legend text.
    size : float
        Text size, points.
    edge : str or None
        An edge colour other than the style's.
    """
    p = sheet.panel
    ph = sheet.plan.sheet.panel[3]
    lh = max(0.17, size * 1.3 / 72)
    y = ph - sheet.cursor - lh / 2
    x0, w = 0.12, 0.42
    if not isinstance(p, NullAxes):  # measuring the panel only: no swatch is made
        _swatch(p, st, edge or st.edge, x0=x0, y=y, w=w)
    pw = sheet.plan.sheet.panel[2]
    lines = _wrap(label, pw - x0 - w - 0.2, size)
    p.text(
        x0 + w + 0.1,
        y + lh / 2 - 0.02,
        "\n".join(lines),
        fontsize=max(size, MIN_PT),
        va="top",
        ha="left",
        gid="legend",
        linespacing=1.25,
    )
    sheet.legend.append(label)
    sheet.swatches.append((label, st.kind, st.marker if st.kind == "point" else ""))
    sheet.cursor += lh + (len(lines) - 1) * size * 1.25 / 72


def _swatch(p: Any, st: Style, ec: str, *, x0: float, y: float, w: float) -> None:
    """A legend swatch ``w`` inches wide from ``x0``, centred on ``y`` (panel inches), as the map draws
    the layer: a patch, a line, an arrowhead or a marker.
    """
    if st.kind == "polygon":
        h = 0.11
        r = Rectangle(
            (x0, y - h / 2),
            w,
            h,
            fc=st.face,
            ec=ec,
            lw=st.lw,
            ls=st.ls,
            hatch=st.hatch,
            alpha=st.alpha if st.face != "none" else None,
            gid="swatch-polygon",
        )
        if st.hatch:
            r.set_hatchcolor(ec)
        p.add_patch(r)
    elif st.kind == "line":
        _line_swatch(p, st, ec=ec, x0=x0, y=y, w=w)
    elif st.extra.get("arrow_point"):  # a point drawn as an arrowhead on the map: the same arrowhead here
        head = arrow_head(x0 + w / 2, y, -90.0, float(st.extra["arrow_point"]) / 72)
        p.add_patch(MplPolygon(head, closed=True, fc=st.face, ec=ec, lw=0.3, gid="swatch-arrow"))
    else:
        p.add_line(
            Line2D(
                [x0 + w / 2],
                [y],
                ls="none",
                marker=st.marker,
                ms=st.size,
                mfc=st.face,
                mec=ec,
                mew=0.7,
                gid="swatch-point",
            )
        )


def _line_swatch(p, st: Style, *, ec: str, x0: float, y: float, w: float) -> None:
    """A line's legend swatch as the map draws it: casing, line, inner line, marks and flow arrow."""
    if st.face not in ("none", None):
        p.add_line(Line2D([x0, x0 + w], [y, y], color=st.face, lw=st.lw * 3))
    p.add_line(Line2D([x0, x0 + w], [y, y], color=ec, lw=st.lw, ls=st.ls, gid="swatch-line"))
    inner = st.extra.get("inner")
    if inner:
        p.add_line(Line2D([x0, x0 + w], [y, y], color=inner[0], lw=inner[1], ls=inner[2]))
    if st.extra.get("marks"):
        p.add_line(
            Line2D(
                [x0 + w * 0.25, x0 + w * 0.75],
                [y, y],
                ls="none",
                marker=st.extra["marks"],
                ms=st.extra.get("mark_size", 3.2),
                mec=ec,
                mfc=ec,
                mew=0.8,
                gid="swatch-mark",
            )
        )
    if st.extra.get("arrows"):
        p.add_patch(
            MplPolygon(
                arrow_head(x0 + w * 0.6, y, 0.0, float(st.extra["arrows"]) / 72),
                closed=True,
                fc=ec,
                ec=ec,
                lw=0.3,
                gid="swatch-arrow",
            )
        )


def arrow_head(x: float, y: float, angle_deg: float, size: float) -> np.ndarray:
    """An arrowhead's three corners, tip ``size * 0.6`` ahead of (x, y), pointing at ``angle_deg``."""
    a = np.radians(angle_deg)
    ux, uy = np.cos(a), np.sin(a)
    nx, ny = -uy, ux
    tip = (x + ux * size * 0.6, y + uy * size * 0.6)
    back = (x - ux * size * 0.4, y - uy * size * 0.4)
    return np.array(
        [
            tip,
            (back[0] + nx * size * 0.35, back[1] + ny * size * 0.35),
            (back[0] - nx * size * 0.35, back[1] - ny * size * 0.35),
        ]
    )


def _frame_strip(sheet: MapSheet, min_w: float, min_h: float) -> tuple[float, float, float, float] | None:
    """The largest blank strip of the map frame beside the ground shown (:attr:`MapSheet.window_in`):
    (left, bottom, width, height) inches, or None when no strip is ``min_w`` x ``min_h`` inches.
    """
    fx, fy, fw, fh = sheet.plan.sheet.frame
    wx0, wy0, wx1, wy1 = sheet.window_in.bounds
    gap = 0.2
    strips = [
        (fx + gap, fy + gap, wx0 - fx - 2 * gap, fh - 2 * gap),
        (wx1 + gap, fy + gap, fx + fw - wx1 - 2 * gap, fh - 2 * gap),
        (fx + gap, fy + gap, fw - 2 * gap, wy0 - fy - 2 * gap),
        (fx + gap, wy1 + gap, fw - 2 * gap, fy + fh - wy1 - 2 * gap),
    ]
    fits = [s for s in strips if s[2] >= min_w and s[3] >= min_h]
    return max(fits, key=lambda s: s[2] * s[3]) if fits else None


#: The narrowest blank strip of the frame a table goes in with its widest text column wrapped, inches.
FRAME_TABLE_MIN_IN = 4.0


def frame_block(sheet: MapSheet, title: str, rows: list[tuple[str, str]], size: float = BODY_PT) -> bool:
    """Text beside the map inside its frame, where the map frame is blank beyond the ground shown: a bold
    ``title`` (wrapped to the block) and ``rows`` of (gid, text); the gid ``table`` rows one table in
    columns (:mod:`geosite.maps.tables`: its widest text column wrapped where the strip is narrower than
    the table, in a strip at least :data:`FRAME_TABLE_MIN_IN` wide). False (nothing drawn) when no blank
    strip is wide or tall enough for it all; the caller then puts it in the panel.
    """
    from geosite.maps.tables import draw_table, table_lines, widest_row_in

    strip = _frame_strip(sheet, 3.0, 2.0)
    if strip is None:
        return False
    x0, y0, w, h = strip
    w = min(w, 7.0)
    size = max(size, MIN_PT)
    lh = size * 1.25 / 72
    groups: list[tuple[str, list[str]]] = []  # consecutive rows of one gid
    for gid, text in rows:
        if groups and groups[-1][0] == gid == "table":
            groups[-1][1].append(text)
        else:
            groups.append((gid, [text]))
    tables = [g for gid, g in groups if gid == "table"]
    if w < FRAME_TABLE_MIN_IN and any(widest_row_in(t, size) + 0.2 > w for t in tables):
        return False  # too narrow a strip for the table whole, and too narrow to wrap its text column
    heading = _wrap(title, w - 0.2, size + 0.5, bold=True)
    blocks = [
        (gid, table_lines(g, w - 0.2, size) if gid == "table" else len(_wrap(g[0], w - 0.2, size)))
        for gid, g in groups
    ]
    need = lh * (len(heading) + sum(n for _, n in blocks)) + 0.06 * len(blocks) + 0.2
    if need > h:
        return False
    fig = sheet.fig
    tr = fig.dpi_scale_trans
    fig.add_artist(Rectangle((x0, y0 + h - need), w, need, transform=tr, fill=False, ec=INK, lw=0.6))
    y = y0 + h - 0.1
    for line in heading:
        fig.text(x0 + 0.1, y, line, transform=tr, fontsize=size + 0.5, fontweight="bold", va="top", ha="left")
        y -= lh
    y -= 0.04
    for gid, g in groups:
        if gid == "table":
            y -= draw_table(fig, x0 + 0.1, y, g, width_in=w - 0.2, size=size, transform=tr)
            continue
        for line in _wrap(g[0], w - 0.2, size):  # one text a line, baselines at the block's pitch
            fig.text(
                x0 + 0.1,
                y - 0.8 * size / 72,
                line,
                transform=tr,
                fontsize=size,
                va="baseline",
                ha="left",
                gid=gid,
            )
            y -= lh
        y -= 0.06
    return True


def space_left(sheet: MapSheet) -> float:
    """The panel's height still free between its top-down cursor and its floor, inches."""
    return sheet.plan.sheet.panel[3] - sheet.cursor - sheet.floor


def north_and_scale(sheet: MapSheet, crs, convergence_deg: float | None, size: float = BODY_PT) -> None:
    """North arrow (grid north) and the graphic and written scale, just above the panel's floor."""
    p = sheet.panel
    s = sheet.plan.scale_ft
    pw = sheet.plan.sheet.panel[2]
    y0 = sheet.floor + 0.12
    # written scale and the printing note
    note = (
        f"Scale exact when printed at 100 % on {sheet.plan.sheet.label}. "
        f"Grid north: up the sheet is north of the {crs.name} grid"
        + (
            f"; true north is {abs(convergence_deg):.2f}° {'west' if convergence_deg > 0 else 'east'} of "
            "grid north at the site."
            if convergence_deg is not None
            else "."
        )
    )
    lines = _wrap(note, pw - 0.75, MIN_PT)  # the north arrow stands to the right of this note
    p.text(
        0.1, y0, "\n".join(lines), fontsize=MIN_PT, va="bottom", ha="left", linespacing=1.2, color="#333333"
    )
    nx, ny = pw - 0.3, y0 + 0.12
    y0 += len(lines) * MIN_PT * 1.2 / 72 + 0.08
    ratio = round(s * 12)
    p.text(
        0.1,
        y0,
        f"1 in = {s:g} ft   (1:{ratio:,})",
        fontsize=HEADING_PT,
        fontweight="bold",
        va="bottom",
        ha="left",
        gid="written-scale",
    )
    y0 += 0.25
    # graphic scale: 0, s/2, s, 2s feet = 0, 0.5, 1, 2 in
    x0, hbar = 0.15, 0.07
    for i, (a, b) in enumerate(((0, 0.5), (0.5, 1.0), (1.0, 2.0))):
        p.add_patch(Rectangle((x0 + a, y0), b - a, hbar, fc=INK if i % 2 == 0 else "white", ec=INK, lw=0.6))
    for v in (0, 0.5, 1.0, 2.0):
        p.text(x0 + v, y0 + hbar + 0.04, f"{v * s:g}", fontsize=MIN_PT + 0.5, ha="center", va="bottom")
    p.text(x0 + 2.0 + 0.08, y0 + hbar / 2, "feet", fontsize=MIN_PT + 0.5, ha="left", va="center")
    # north arrow (grid north), right of the note and the written scale
    arrow = MplPolygon(
        [(nx, ny + 0.55), (nx - 0.12, ny), (nx, ny + 0.12), (nx + 0.12, ny)],
        closed=True,
        fc=INK,
        ec=INK,
        lw=0.5,
    )
    p.add_patch(arrow)
    p.text(nx, ny + 0.6, "N", fontsize=HEADING_PT, fontweight="bold", ha="center", va="bottom")
    p.text(nx, ny - 0.03, "grid", fontsize=MIN_PT, ha="center", va="top")
    top = max(y0 + hbar + 0.2, ny + 0.8)
    sheet.floor = top + 0.05


def key_map(sheet: MapSheet, site_geom, all_tiles: list[Tile], height_in: float = 1.3) -> None:
    """A small map of every tile of this map, numbered, with this sheet's tile shaded, at most
    ``height_in`` inches of paper high (1.3 by default: geosite's choice, not the ordinance's, a drawing
    size).
    """
    pw = sheet.plan.sheet.panel[2]
    p = sheet.panel
    y = sheet.floor + 0.05
    xs = [t.bounds[0] for t in all_tiles] + [t.bounds[2] for t in all_tiles]
    ys = [t.bounds[1] for t in all_tiles] + [t.bounds[3] for t in all_tiles]
    gx0, gx1, gy0, gy1 = min(xs), max(xs), min(ys), max(ys)
    w_in = pw - 0.4
    k = min(w_in / (gx1 - gx0), height_in / (gy1 - gy0))
    ox = 0.2 + (w_in - (gx1 - gx0) * k) / 2

    def tr(x, yy):
        """(x, yy) in CRS units to panel inches on the key map."""
        return ox + (x - gx0) * k, y + (yy - gy0) * k

    for t in all_tiles:
        a = tr(t.bounds[0], t.bounds[1])
        b = tr(t.bounds[2], t.bounds[3])
        here = t.number == sheet.tile.number
        p.add_patch(Rectangle(a, b[0] - a[0], b[1] - a[1], fc="#dddddd" if here else "white", ec=INK, lw=0.6))
        p.text(
            (a[0] + b[0]) / 2,
            (a[1] + b[1]) / 2,
            str(t.number),
            fontsize=BODY_PT,
            ha="center",
            va="center",
            fontweight="bold" if here else "normal",
        )
    for poly in shapely.get_parts(site_geom):
        if poly.geom_type == "Polygon":
            xy = np.array([tr(x, yy) for x, yy in poly.exterior.coords])
            p.add_patch(MplPolygon(xy, closed=True, fill=False, ec=INK, lw=1.0))
    p.text(
        0.1,
        y + height_in + 0.05,
        "Key map: sheets of this map (this sheet shaded)",
        fontsize=MIN_PT + 0.5,
        va="bottom",
        ha="left",
    )
    sheet.floor = y + height_in + 0.25


def title_block(
    sheet: MapSheet,
    rows: list[tuple[str, str]],
    heading: str,
    sheet_no: str,
    size: float = MIN_PT,
    *,
    revisions: list[tuple[str, str, str]] | None = None,
    of: int | None = None,
) -> None:
    """The title block at the bottom of the panel: a heading and the sheet number box ("1 of 3"),
    labelled rows, then above it the revision block and a blank square for the preparer's seal.

    Parameters
    ----------
    sheet : MapSheet
        The sheet; its panel's floor rises above the block.
    rows : list of tuple of str
        (label, text) per row.
    heading : str
        The map's title.
    sheet_no : str
        The sheet's number in the set.
    size : float
        The rows' text size, points.
    revisions : list of tuple of str or None
        The revision block's rows (number, date, description).
    of : int or None
        How many sheets the set has ("1 of 3"); None: the number alone.
    """
    p = sheet.panel
    pw = sheet.plan.sheet.panel[2]
    lh = size * 1.25 / 72
    label_w = 0.85
    blocks = [(label, _wrap(value or "", pw - label_w - 0.2, size)) for label, value in rows]
    head_h = 0.42
    total = sum(len(lines) * lh + 0.03 for _, lines in blocks) + head_h + 0.12
    _title_head(p, pw, total, heading, f"{sheet_no} of {of}" if of else sheet_no, head_h=head_h)
    y = total - head_h - 0.06
    for label, lines in blocks:
        p.text(0.1, y, label, fontsize=max(size, MIN_PT), fontweight="bold", va="top", ha="left")
        p.text(
            0.1 + label_w,
            y,
            "\n".join(lines),
            fontsize=max(size, MIN_PT),
            va="top",
            ha="left",
            linespacing=1.25,
            gid="title-block",
        )
        y -= len(lines) * lh + 0.03
    band = _revision_block(p, pw, total, revisions or [])
    sheet.floor = total + band + 0.08


def _title_head(p: Any, pw: float, total: float, heading: str, number: str, *, head_h: float) -> None:
    """The title block's frame (``total`` inches high, ``pw`` wide) and its head: the map's title and
    the sheet number box.
    """
    p.add_patch(Rectangle((0, 0), pw, total, fill=False, ec=INK, lw=1.0))
    p.add_line(Line2D([0, pw], [total - head_h, total - head_h], color=INK, lw=0.6))
    p.text(0.1, total - 0.08, heading, fontsize=HEADING_PT, fontweight="bold", va="top", ha="left")
    p.add_patch(Rectangle((pw - 0.8, total - head_h), 0.8, head_h, fill=False, ec=INK, lw=0.6))
    p.text(pw - 0.4, total - 0.05, "SHEET", fontsize=MIN_PT, ha="center", va="top")
    p.text(
        pw - 0.4,
        total - head_h + 0.04,
        number,
        fontsize=HEADING_PT,
        fontweight="bold",
        ha="center",
        va="bottom",
        gid="sheet-number",
    )


def _revision_block(p: Any, pw: float, y0: float, rev_rows: list[tuple[str, str, str]]) -> float:
    """The revision block (left) and the seal (right) from ``y0`` inches up; returns their height."""
    seal = 0.9
    rh = MIN_PT * 1.3 / 72
    band = max(seal, 0.2 + rh * (len(rev_rows) + 1) + 0.08)
    p.add_patch(Rectangle((0, y0), pw, band, fill=False, ec=INK, lw=0.8))
    p.add_patch(Rectangle((pw - seal, y0), seal, band, fill=False, ec=INK, lw=0.6))
    p.text(pw - seal / 2, y0 + band - 0.05, "SEAL", fontsize=MIN_PT, ha="center", va="top", color="#555555")
    p.text(0.08, y0 + band - 0.05, "REVISIONS", fontsize=MIN_PT + 0.5, fontweight="bold", va="top", ha="left")
    cols = (0.08, 0.38, 1.1)
    yy = y0 + band - 0.05 - rh - 0.03
    for x, head in zip(cols, ("No.", "Date", "Description"), strict=True):
        p.text(x, yy, head, fontsize=MIN_PT, fontweight="bold", va="top", ha="left")
    for no, date, what in rev_rows:
        yy -= rh
        for x, v in zip(cols, (no, date, what), strict=True):
            p.text(x, yy, v, fontsize=MIN_PT, va="top", ha="left", gid="revision")
    return band


def location_map(
    sheet: MapSheet,
    site_geom,
    extent,
    lines: list[tuple[Any, str, str]],
    caption: str,
    *,
    height_in: float = 1.4,
) -> None:
    """A location (vicinity) map in the panel: the site filled, this sheet's map extent as a box, and
    the roads and waters of the site's data (``lines``: geometry, colour, name), with the caption under it;
    ``height_in`` inches of paper high (1.4 by default: geosite's choice, not the ordinance's, a drawing
    size).

    Parameters
    ----------
    sheet : MapSheet
        The sheet; its panel's floor rises above the map.
    site_geom : shapely geometry
        The site boundary (site CRS).
    extent : tuple of float
        This sheet's map extent (xmin, ymin, xmax, ymax, CRS units); the location map shows it and half
        its size again on each side.
    lines : list of tuple
        (geometry, colour, name) of each road, stream, lake and wetland to draw.
    caption : str
        The text under the map.
    height_in : float
        The map's height at most, inches.
    """
    pw = sheet.plan.sheet.panel[2]
    p = sheet.panel
    y = sheet.floor + 0.05
    x0, y0, x1, y1 = extent
    gx0, gy0, gx1, gy1 = x0 - (x1 - x0) / 2, y0 - (y1 - y0) / 2, x1 + (x1 - x0) / 2, y1 + (y1 - y0) / 2
    w_in = pw - 0.3
    k = min(w_in / (gx1 - gx0), height_in / (gy1 - gy0))
    ox = 0.15 + (w_in - (gx1 - gx0) * k) / 2
    cap = _wrap(caption, pw - 0.2, MIN_PT)
    p.text(0.1, y, "\n".join(cap), fontsize=MIN_PT, va="bottom", ha="left", linespacing=1.25, gid="location")
    y += len(cap) * MIN_PT * 1.25 / 72 + 0.04
    hgt = (gy1 - gy0) * k
    tr = _Inset(ox, y, gx0, gy0, k)
    p.add_patch(Rectangle((ox, y), (gx1 - gx0) * k, hgt, fill=False, ec=INK, lw=0.6))
    win = box(gx0, gy0, gx1, gy1)
    _location_features(p, lines, win, tr)
    _location_site(p, site_geom, extent, tr)
    _location_names(p, [(shapely.intersection(g, win), n) for g, _, n in lines if n], tr)
    # a north arrow (grid north, as the sheet's) in the map's upper right corner
    nx, ny = ox + (gx1 - gx0) * k - 0.12, y + hgt - 0.32
    p.add_patch(
        MplPolygon(
            [(nx, ny + 0.22), (nx - 0.05, ny), (nx, ny + 0.05), (nx + 0.05, ny)],
            closed=True,
            fc=INK,
            ec=INK,
            lw=0.3,
            gid="location-north",
        )
    )
    p.text(nx, ny + 0.23, "N", fontsize=MIN_PT, fontweight="bold", ha="center", va="bottom")
    p.text(
        0.1, y + hgt + 0.04, "LOCATION MAP", fontsize=MIN_PT + 0.5, fontweight="bold", va="bottom", ha="left"
    )
    sheet.floor = y + hgt + 0.25


@dataclass(frozen=True)
class _Inset:
    """CRS coordinates to panel inches on a small map: ``(xy - (gx0, gy0)) * k + (ox, oy)``."""

    ox: float
    oy: float
    gx0: float
    gy0: float
    k: float

    def __call__(self, xy: Any) -> np.ndarray:
        """An (n, 2) array of CRS coordinates in panel inches."""
        a = np.asarray(xy)[:, :2]
        return np.column_stack(
            [self.ox + (a[:, 0] - self.gx0) * self.k, self.oy + (a[:, 1] - self.gy0) * self.k]
        )


def _location_features(p: Any, lines: list[tuple[Any, str, str]], win: Any, tr: _Inset) -> None:
    """The roads and waters of the location map, cut to its window ``win``: areas filled, lines drawn."""
    for geom, color, _name in lines:
        g = shapely.intersection(geom, win)
        for part in shapely.get_parts(g):
            if part.geom_type == "Polygon":
                p.add_patch(
                    MplPolygon(tr(part.exterior.coords), closed=True, fc=color, ec=color, lw=0.3, alpha=0.6)
                )
            elif part.geom_type == "LineString":
                xy = tr(part.coords)
                p.add_line(Line2D(xy[:, 0], xy[:, 1], color=color, lw=0.8))


def _location_site(p: Any, site_geom: Any, extent: Any, tr: _Inset) -> None:
    """The site filled black and named, and this sheet's map extent as a red dashed box."""
    for poly in shapely.get_parts(site_geom):
        if poly.geom_type == "Polygon":
            p.add_patch(MplPolygon(tr(poly.exterior.coords), closed=True, fc=INK, ec=INK, lw=0.5))
    x0, y0, x1, y1 = extent
    a, b = tr([(x0, y0), (x1, y1)])
    p.add_patch(
        Rectangle(tuple(a), b[0] - a[0], b[1] - a[1], fill=False, ec="#c0392b", lw=0.6, ls=(0, (3, 2)))
    )
    c = site_geom.centroid
    sx, sy = tr([(c.x, c.y)])[0]
    p.text(
        sx,
        sy - 0.06,
        "SITE",
        fontsize=MIN_PT,
        fontweight="bold",
        ha="center",
        va="top",
        gid="location-site",
        path_effects=halo(1.5),
    )


def _location_names(p, named: list[tuple[Any, str]], tr) -> None:
    """Each named road of the location map labelled once, along its longest visible piece."""
    done = set()
    for g, name in named:
        if name in done or g is None or g.is_empty:
            continue
        piece = max(shapely.get_parts(g), key=lambda q: q.area if "Polygon" in q.geom_type else q.length)
        r = shapely.minimum_rotated_rectangle(piece)
        xy = np.asarray(r.exterior.coords) if r.geom_type == "Polygon" else np.asarray(piece.coords)
        sides = np.diff(xy[:3], axis=0)
        d = sides[int(np.argmax(np.hypot(sides[:, 0], sides[:, 1])))]
        ang = float(np.degrees(np.arctan2(d[1], d[0])))
        ang = ang - 180 if ang > 90 else ang + 180 if ang < -90 else ang
        q = piece.representative_point()
        px, py = tr([(q.x, q.y)])[0]
        p.text(
            px,
            py,
            name,
            fontsize=MIN_PT,
            rotation=ang,
            rotation_mode="anchor",
            ha="center",
            va="center",
            color="#333333",
            gid="location-road",
            path_effects=halo(1.5),
        )
        done.add(name)


_COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def compass(dx: float, dy: float) -> str:
    """The grid direction of (dx, dy) in words, to the nearest eighth (``north-east``)."""
    a = float(np.degrees(np.arctan2(dy, dx))) % 360
    return _COMPASS[int(((a + 22.5) % 360) // 45)]


def today() -> str:
    """Today's date, ISO (``2026-12-02``)."""
    return dt.date.today().isoformat()


def match_lines(sheet: MapSheet, plan: SheetPlan) -> None:
    """Match lines along the frame edges that adjoin other tiles, naming the sheet beyond."""
    t = sheet.tile
    xmin, ymin, xmax, ymax = t.bounds
    inset = 0.06 * plan.units_per_inch
    by_rc = {(u.row, u.col): u for u in plan.tiles}
    ax = sheet.ax
    sides = {
        "north": ((t.row - 1, t.col), [(xmin, ymax - inset), (xmax, ymax - inset)], 0),
        "south": ((t.row + 1, t.col), [(xmin, ymin + inset), (xmax, ymin + inset)], 0),
        "west": ((t.row, t.col - 1), [(xmin + inset, ymin), (xmin + inset, ymax)], 90),
        "east": ((t.row, t.col + 1), [(xmax - inset, ymin), (xmax - inset, ymax)], 90),
    }
    for side, (rc, pts, rot) in sides.items():
        other = by_rc.get(rc)
        if other is None:
            continue
        (x0, y0), (x1, y1) = pts
        ax.add_line(Line2D([x0, x1], [y0, y1], color="#c0392b", lw=1.4, ls=(0, (10, 3, 2, 3)), zorder=11))
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        off = 0.12 * plan.units_per_inch
        if side == "north":
            my -= off
        elif side == "south":
            my += off
        elif side == "west":
            mx += off
        else:
            mx -= off
        ax.text(
            mx,
            my,
            f"MATCH LINE — SEE SHEET {sheet.sheet_no}-{other.number}",
            fontsize=BODY_PT,
            fontweight="bold",
            color="#c0392b",
            rotation=rot,
            ha="center",
            va="center",
            zorder=11,
            path_effects=halo(2.5),
        )
