"""Sheets at exact scale: the map axes, geometry drawing, contour labels, and the panel (legend, north
arrow, graphic and written scale, key map, title block).

The map axes sit at a fixed place on the sheet in inches, and their data limits are set so that one
inch of paper spans exactly ``scale_ft`` ground feet (``units_per_inch`` CRS units). Aspect is exact
because both axes get the same units per inch; nothing here may call tight_layout or save with
``bbox_inches="tight"`` (either would move the axes or crop the page).

Only ``matplotlib.figure.Figure`` is used, never pyplot: no global state, no GUI backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import shapely
from matplotlib import patheffects
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.path import Path as MplPath
from shapely.geometry import box

from geosite.maps.symbology import BODY_PT, FONT, INK, MIN_PT, Style

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
    """The shaded relief under the map (:func:`draw_cells`): flat ground under a 45-degree sun shades to
    255 sin 45 = 180, so that and brighter print white and only the shadows of the relief darken the sheet.
    """
    draw_cells(
        sheet,
        shade,
        dem.transform,
        zorder=0.5,
        hidden=0,
        cmap="gray",
        vmin=0,
        vmax=180,
        alpha=alpha,
    )


def draw_cells(
    sheet: MapSheet,
    cells: np.ndarray,
    transform: Any,
    *,
    zorder: float,
    hidden: int | None = None,
    **image: Any,
) -> None:
    """A grid's cells on the map (a north-up ``transform`` in the site's CRS): only the cells under the
    sheet's tile, at most :data:`PRINT_DPI` of them per inch of paper (every k-th cell where the grid is
    finer), each drawn as a square, cells of the value ``hidden`` left out (``image``:
    :meth:`matplotlib.axes.Axes.imshow`'s colour options).
    """
    if not sheet.drawing:
        return
    inv = ~transform
    xmin, ymin, xmax, ymax = sheet.tile.bounds
    c0, r0 = inv @ (xmin, ymax)
    c1, r1 = inv @ (xmax, ymin)
    rows, cols = cells.shape
    r0, c0 = max(int(np.floor(r0)) - 1, 0), max(int(np.floor(c0)) - 1, 0)
    r1, c1 = min(int(np.ceil(r1)) + 1, rows), min(int(np.ceil(c1)) + 1, cols)
    if r0 >= r1 or c0 >= c1:
        return
    per_in = sheet.plan.units_per_inch / abs(transform.a)
    k = max(int(np.ceil(per_in / PRINT_DPI)), 1)
    t = transform
    img = cells[r0:r1:k, c0:c1:k]
    if hidden is not None:
        img = np.ma.masked_equal(img, hidden)
    # each sample stands for k x k cells from its own: the image spans n * k cells, not c1 - c0
    left, r = t.c + c0 * t.a, t.c + (c0 + img.shape[1] * k) * t.a
    top, b = t.f + r0 * t.e, t.f + (r0 + img.shape[0] * k) * t.e
    sheet.ax.imshow(
        img, extent=(left, r, b, top), origin="upper", interpolation="nearest", zorder=zorder, **image
    )
    sheet.ax.set_xlim(sheet.tile.bounds[0], sheet.tile.bounds[2])  # imshow must not move the limits
    sheet.ax.set_ylim(sheet.tile.bounds[1], sheet.tile.bounds[3])


# --------------------------------------------------------------------------------------------- panel


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
