"""Map labels placed without overlaps, kept as real (searchable) text.

Drawing code *asks* for labels (:func:`request`, :func:`request_along`); once a sheet's map is drawn,
:func:`place` puts them, highest priority first, each at the first candidate position whose text box
(axis-aligned, on paper, padded) meets no box already placed, no symbol it must not hide and stays
inside the map frame. A label moved off its feature gets a leader line back to it. Candidates: a
polygon's label inside it, near its representative point; a line's label along the line (upright,
rotated with it) or beside it; then rings of positions around the anchor at growing distances.

Hand-written on shapely (an STRtree of placed boxes) rather than adjustText: adjustText repels
labels iteratively and guarantees neither zero overlaps nor that a label stays on its feature; a
greedy candidate search does both, and what it could not place it reports (``sheet.unplaced``).

Each label is two artists: a white halo (the text drawn as a stroked outline, no text) and the text
itself with no path effect, so the PDF keeps it as text an inspector can search (``Birch Street``)
and a test can read back with its box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from matplotlib import patheffects
from matplotlib.lines import Line2D
from shapely import affinity, ops
from shapely.geometry import Point, box

from geosite.maps.symbology import INK, LABELS, MIN_PT

#: placement order: lower first (what the ordinance asks to be labelled wins the space)
PRIORITY = LABELS["priority"]


@dataclass
class Label:
    """A label asked for: text, where it belongs (data coordinates) and how it looks."""

    text: str
    x: float
    y: float
    size: float = 6.5
    color: str = INK
    priority: int = 50
    feature: Any = None  # the shapely geometry it names (data coordinates); a leader points at it
    along: Any = None  # a LineString to run the label along (upright), when it names a line
    rotation: float = 0.0
    fixed: bool = False  # contour labels: only on their line, never moved off it
    kw: dict[str, Any] = field(default_factory=dict)
    gid: str = "map-label"


def request(
    sheet,
    x: float,
    y: float,
    text: str,
    *,
    size: float = 6.5,
    color: str = INK,
    kind: str = "feature",
    feature: Any = None,
    along: Any = None,
    rotation: float = 0.0,
    fixed: bool = False,
    gid: str = "map-label",
    **kw,
) -> None:
    """Ask for a label at (x, y) (data coordinates) on ``sheet``; placed by :func:`place`."""
    if not text or not sheet.drawing:  # a probe sheet places no labels
        return
    sheet.labels.append(
        Label(
            text,
            float(x),
            float(y),
            max(size, MIN_PT),
            color,
            PRIORITY.get(kind, 50),
            feature,
            along,
            rotation,
            fixed,
            kw,
            gid,
        )
    )


def avoid(sheet, geoms, pad_in: float = 0.03) -> None:
    """Symbols labels must not hide: point markers, drawn as boxes of ``pad_in`` inches around each (by
    default 0.03 in of paper: geosite's choice, not the ordinance's, a drawing size).
    """
    for g in geoms:
        if g is None or g.is_empty:
            continue
        for p in shapely.get_parts(g):
            if p.geom_type == "Point":
                x, y = _to_in(sheet, p.x, p.y)
                sheet.avoid.append(box(x - pad_in, y - pad_in, x + pad_in, y + pad_in))


# ------------------------------------------------------------------------------------------ placing


def place(sheet) -> None:
    """Place every requested label on ``sheet`` (see the module notes). Fixed text already on the map
    (match lines) counts as placed.

    Parameters
    ----------
    sheet : geosite.maps.layout.MapSheet
        The drawn sheet; its ``labels`` are placed, ``placed`` and ``unplaced`` filled.
    """
    renderer = _renderer(sheet.fig)
    room = _Room(
        frame=sheet.window_in.buffer(-LABELS["frame_inset_in"], join_style="mitre"),  # the map's neat line
        taken=np.array(
            [_bbox_in(t, renderer, sheet.fig).bounds for t in sheet.ax.texts]  # match lines: obstacles
            + [b.bounds for b in sheet.avoid],
            float,
        ).reshape(-1, 4),
        renderer=renderer,
    )
    shown = sheet.window
    for i in sorted(range(len(sheet.labels)), key=lambda i: (sheet.labels[i].priority, i)):
        lab = sheet.labels[i]
        if not shown.intersects(Point(lab.x, lab.y)) and (
            lab.feature is None or not shown.intersects(lab.feature)
        ):
            continue  # a feature beyond the map's edge is clipped there, not labelled
        art = _text(sheet.ax, lab, lab.x, lab.y, lab.rotation)
        if not _place_one(sheet, lab, art, room):
            art.remove()
            sheet.unplaced.append(lab.text)


@dataclass
class _Room:
    """Where labels may go on a sheet: inside ``frame`` (paper inches), clear of the ``taken`` boxes
    (rows x0, y0, x1, y1, inches); ``renderer`` measures text.
    """

    frame: Any
    taken: np.ndarray
    renderer: Any

    def holds(self, b: tuple[float, float, float, float]) -> bool:
        """Whether the frame contains the box ``b`` (x0, y0, x1, y1, paper inches): by its bounds where
        the frame is a rectangle (a map window always is), else by shapely.
        """
        fx0, fy0, fx1, fy1 = self.frame.bounds
        if abs(self.frame.area - (fx1 - fx0) * (fy1 - fy0)) > 1e-12 or b[0] >= b[2] or b[1] >= b[3]:
            return bool(self.frame.contains(box(*b)))
        return fx0 <= b[0] and b[2] <= fx1 and fy0 <= b[1] and b[3] <= fy1


def _text(ax: Any, lab: Label, x: float, y: float, rotation: float) -> Any:
    """The label's text artist at (x, y) (data coordinates), turned ``rotation`` degrees."""
    return ax.text(
        x,
        y,
        lab.text,
        fontsize=lab.size,
        color=lab.color,
        ha="center",
        va="center",
        rotation=rotation,
        rotation_mode="anchor",
        zorder=10.2,
        gid=lab.gid,
        clip_on=False,
        **lab.kw,
    )


def _place_one(sheet, lab: Label, art: Any, room: _Room) -> bool:
    """Move ``art`` (the label's text) to the first candidate position whose box stays inside the frame
    and clear of every box taken, add its halo (and leader), and take its box; False when none is.
    """
    pad = LABELS["pad_in"]
    ax0, ay0 = _to_in(sheet, lab.x, lab.y)
    base: dict[float, tuple[float, float, float, float]] = {}
    for cx, cy, rot, leader in _candidates(sheet, lab):
        key = round(rot, 1)
        if key not in base:  # a text's box only moves with it: measured once per angle
            art.set_position((lab.x, lab.y))
            art.set_rotation(key)
            base[key] = _bbox_in(art, room.renderer, sheet.fig).bounds
        px, py = _to_in(sheet, cx, cy)
        dx, dy = px - ax0, py - ay0
        x0, y0, x1, y1 = base[key]
        b = (x0 + dx, y0 + dy, x1 + dx, y1 + dy)  # the box moved there (as shapely's translate moves it)
        if not room.holds(b) or _hits(room.taken, b, pad):
            continue
        bb = box(*b)
        art.set_position((cx, cy))
        art.set_rotation(key)
        room.taken = np.vstack([room.taken, bb.bounds])
        if leader:
            _leader(sheet, lab, bb)
        _halo(sheet.ax, lab, cx, cy, key)
        sheet.placed.append((lab.text, bb))
        return True
    return False


def _halo(ax: Any, lab: Label, x: float, y: float, rotation: float) -> None:
    """The label's white halo under it: its text as a stroked outline (the text itself stays text)."""
    ax.text(
        x,
        y,
        lab.text,
        fontsize=lab.size,
        color="white",
        ha="center",
        va="center",
        rotation=rotation,
        rotation_mode="anchor",
        zorder=10.1,
        gid="label-halo",
        clip_on=False,
        path_effects=[patheffects.Stroke(linewidth=LABELS["halo_pt"], foreground="white")],
        **lab.kw,
    )


def _hits(taken: np.ndarray, b: tuple[float, float, float, float], pad: float) -> bool:
    """Whether box ``b`` (x0, y0, x1, y1), grown by ``pad``, meets any row of ``taken``."""
    if not len(taken):
        return False
    return bool(
        np.any(
            (taken[:, 0] < b[2] + pad)
            & (taken[:, 2] > b[0] - pad)
            & (taken[:, 1] < b[3] + pad)
            & (taken[:, 3] > b[1] - pad)
        )
    )


def _candidates(sheet, lab: Label):
    """(x, y, rotation, needs a leader) in the order tried."""
    upi = sheet.plan.units_per_inch
    if lab.along is not None:
        for x, y, ang in _along_points(sheet, lab.along, fixed=lab.fixed):
            yield x, y, ang, False
            if lab.fixed:
                continue
            # beside the line, either side
            h = lab.size / 72 * (1.0 + lab.text.count("\n"))
            for side in (1, -1):
                nx, ny = -math.sin(math.radians(ang)), math.cos(math.radians(ang))
                off = (h / 2 + 0.04) * upi * side
                yield x + nx * off, y + ny * off, ang, False
        if lab.fixed:
            return
    else:
        yield lab.x, lab.y, lab.rotation, False
        feat = lab.feature
        if feat is not None and feat.geom_type in ("Polygon", "MultiPolygon"):
            for p in _interior_points(feat, sheet.window, upi):
                yield p.x, p.y, 0.0, False
    for r in LABELS["ring_radii_in"]:
        n = 8 if r < 0.5 else 16
        for k in range(n):
            a = math.pi / 2 - 2 * math.pi * k / n  # start north, go clockwise
            yield lab.x + r * upi * math.cos(a), lab.y + r * upi * math.sin(a), 0.0, True


def _along_points(sheet, line, fixed: bool):
    """Points along the visible part of ``line`` with the upright angle of the line there."""
    upi = sheet.plan.units_per_inch
    vis = shapely.intersection(line, sheet.window)
    parts = sorted(
        (p for p in shapely.get_parts(vis) if p.geom_type == "LineString"), key=lambda g: -g.length
    )
    fracs = (0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9) if not fixed else tuple(np.linspace(0.05, 0.95, 19))
    for part in parts[:3]:
        L = part.length
        if L <= 0:
            continue
        for f in fracs:
            d = L * f
            p = part.interpolate(d)
            a = part.interpolate(max(d - 0.1 * upi, 0))
            b = part.interpolate(min(d + 0.1 * upi, L))
            ang = math.degrees(math.atan2(b.y - a.y, b.x - a.x))
            if ang > 90:
                ang -= 180
            elif ang < -90:
                ang += 180
            yield p.x, p.y, ang


def _interior_points(poly, window, upi: float, n: int = 24):
    """Points inside the visible part of ``poly``, nearest its representative point first."""
    vis = shapely.intersection(poly, window)
    if vis.is_empty or vis.area <= 0:
        return []
    rp = vis.representative_point()
    x0, y0, x1, y1 = vis.bounds
    step = max((x1 - x0), (y1 - y0)) / 8
    if step <= 0:
        return []
    xs, ys = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
    pts = shapely.points(xs.ravel(), ys.ravel())
    pts = pts[shapely.contains(vis, pts)]
    pts = sorted(pts, key=lambda p: p.distance(rp))
    return pts[:n]


def _leader(sheet, lab: Label, bb) -> None:
    """A thin line from the label's box to its feature (the nearest point of either)."""
    upi = sheet.plan.units_per_inch
    target = lab.feature if lab.feature is not None else Point(lab.x, lab.y)
    fx0, fy0, _, _ = sheet.plan.sheet.frame
    x0, y0 = sheet.tile.bounds[0], sheet.tile.bounds[1]
    # the box in data coordinates
    b = affinity.affine_transform(bb, [upi, 0, 0, upi, x0 - fx0 * upi, y0 - fy0 * upi])
    if target.geom_type in ("Polygon", "MultiPolygon") and target.intersects(b):
        return
    p_box, p_feat = ops.nearest_points(b.exterior, target)
    if p_box.distance(p_feat) < 0.02 * upi:
        return
    sheet.ax.add_line(
        Line2D(
            [p_box.x, p_feat.x],
            [p_box.y, p_feat.y],
            color=lab.color,
            lw=LABELS["leader_pt"],
            zorder=10.05,
            gid="leader",
        )
    )
    sheet.ax.plot([p_feat.x], [p_feat.y], marker="o", ms=1.2, color=lab.color, zorder=10.05)


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    return fig.canvas.get_renderer()


def _bbox_in(artist, renderer, fig):
    """The artist's box on paper, inches from the sheet's lower left."""
    e = artist.get_window_extent(renderer)
    d = fig.dpi
    return box(e.x0 / d, e.y0 / d, e.x1 / d, e.y1 / d)


def _to_in(sheet, x: float, y: float) -> tuple[float, float]:
    upi = sheet.plan.units_per_inch
    fx0, fy0, _, _ = sheet.plan.sheet.frame
    return fx0 + (x - sheet.tile.bounds[0]) / upi, fy0 + (y - sheet.tile.bounds[1]) / upi


__all__ = ["Label", "avoid", "place", "request"]
