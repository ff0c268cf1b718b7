"""Map labels placed without overlaps, kept as real (searchable) text.

Drawing code *asks* for labels (:func:`request`, :func:`request_along`); once a sheet's map is drawn,
:func:`place` puts them, highest priority first, each at the first candidate position whose text box
(axis-aligned, on paper, padded) meets no box already placed, no symbol it must not hide and stays
inside the map frame. A label moved off its feature gets a leader line back to it. Candidates: a
polygon's label inside it, near its representative point; a line's label along the line (upright,
rotated with it) or beside it; then rings of positions around the anchor at growing distances.

Besides the labels already placed and the point markers (:func:`avoid`), a label keeps clear of every
symbol drawn in a style that asks it to (``Style.clear``: practice symbols, structures, water lines, the
site boundary; :func:`keep_clear`), at the symbol's own ink width: the test is one STRtree query of the
symbols' shapes on paper per candidate position. A label may sit on the feature it names only inside it
(a structure's footprint, a pile big enough to hold its name) or along it (a stream's name); a feature
too small to hold its label has it beside, with a leader.

Hand-written on shapely (an STRtree of placed boxes) rather than adjustText: adjustText repels
labels iteratively and guarantees neither zero overlaps nor that a label stays on its feature; a
greedy candidate search does both, and what it could not place it reports (``sheet.unplaced``).

Each label is two artists: a white halo (the text drawn as a stroked outline, no text) and the text
itself with no path effect, so the PDF keeps it as text an inspector can search (``Birch Street``)
and a test can read back with its box.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from matplotlib import patheffects
from matplotlib.lines import Line2D
from shapely import affinity, ops
from shapely.geometry import LineString, Point, box

from geosite.maps.symbology import BODY_PT, INK, LABELS, MIN_PT
from geosite.symbols import CAP_HEIGHT_EM, PlacedLabel, line_offsets

#: placement order: lower first (what the ordinance asks to be labelled wins the space)
PRIORITY = LABELS["priority"]


@dataclass
class Label:
    """A label asked for: text, where it belongs (data coordinates) and how it looks."""

    text: str
    x: float
    y: float
    size: float = BODY_PT
    color: str = INK
    priority: int = 50
    feature: Any = None  # the shapely geometry it names (data coordinates); a leader points at it
    along: Any = None  # a LineString to run the label along (upright), when it names a line
    rotation: float = 0.0
    fixed: bool = False  # contour labels: only on their line, never moved off it
    kw: dict[str, Any] = field(default_factory=dict)
    gid: str = "map-label"
    kind: str = "feature"  # what it names (the priority table's words)
    names: str = ""  # the plan item it names (``control:12``), where the drawing code knows it


def request(
    sheet,
    x: float,
    y: float,
    text: str,
    *,
    size: float = BODY_PT,
    color: str = INK,
    kind: str = "feature",
    feature: Any = None,
    along: Any = None,
    rotation: float = 0.0,
    fixed: bool = False,
    gid: str = "map-label",
    names: str = "",
    **kw,
) -> None:
    """Ask for a label at (x, y) (data coordinates) on ``sheet``; placed by :func:`place`. ``names``: the
    plan item it names (``control:12``, ``pile:3``), handed on with its place (:attr:`MapSheet.model_labels`).
    """
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
            kind,
            names,
        )
    )


@dataclass(frozen=True)
class Obstacle:
    """A drawn symbol labels keep clear of.

    Attributes
    ----------
    paper : shapely geometry
        What a label must not meet, in paper inches from the sheet's lower left: a filled symbol's
        polygon, a line, or a polygon's outline.
    source : shapely geometry
        The feature drawn (data coordinates, CRS units): a label naming it may sit inside or along it.
    reach_in : float
        How far the symbol's ink reaches beyond ``paper``, inches (half its line width, its marks).
    """

    paper: Any
    source: Any
    reach_in: float


def keep_clear(sheet, parts: list, *, reach_in: float, edge_only: bool = False) -> None:
    """Register drawn symbol parts labels must not sit on (:attr:`MapSheet.clear`).

    Parameters
    ----------
    sheet : geosite.maps.layout.MapSheet
        The sheet drawn on.
    parts : list of shapely geometry
        Single polygons or lines as drawn (data coordinates, CRS units).
    reach_in : float
        Half the symbol's line width (or its marks' size), paper inches.
    edge_only : bool
        Keep labels off a polygon's outline only (its ground may hold labels).
    """
    if not sheet.drawing:
        return
    for g in parts:
        if g is None or g.is_empty:
            continue
        shape = g.boundary if edge_only and g.geom_type == "Polygon" else g
        sheet.clear.append(Obstacle(_paper(sheet, shape), g, float(reach_in)))


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
        symbols=_Symbols.of(sheet.clear),
    )
    shown = sheet.window
    for i in sorted(range(len(sheet.labels)), key=lambda i: (sheet.labels[i].priority, i)):
        lab = sheet.labels[i]
        if not shown.intersects(Point(lab.x, lab.y)) and (
            lab.feature is None or not shown.intersects(lab.feature)
        ):
            continue  # a feature beyond the map's edge is clipped there, not labelled
        art = _text(sheet.ax, lab, lab.x, lab.y, lab.rotation)
        room.own = room.symbols.own(sheet, lab)
        room.target = _paper(sheet, lab.feature if lab.feature is not None else Point(lab.x, lab.y))
        if _place_one(sheet, lab, art, room) or (not lab.fixed and _place_keyed(sheet, lab, art, room)):
            continue
        art.remove()
        if not lab.fixed:  # a contour's elevation is repeated along it: one that finds no place is
            sheet.unplaced.append(lab.text)  # left out, as the other repeats say it


#: A label at most this long is its own key (a control's tag, an inlet's name): never keyed again.
KEY_MAX_CHARS = 6


def _place_keyed(sheet, lab: Label, art: Any, room: _Room) -> bool:
    """Where a label finds no place by its feature: a short key (``K3``) there instead, the label's text in
    the sheet's table of keyed labels (``sheet.keyed``, printed in the panel); False when the text is as
    short as a key already or the key finds no place either.
    """
    if len(lab.text) <= KEY_MAX_CHARS:
        return False
    key = f"{KEY_PREFIX}{len(sheet.keyed) + 1}"
    short = dataclasses.replace(lab, text=key)
    art.set_text(key)
    if _place_one(sheet, short, art, room):
        sheet.keyed.append((key, lab.text.replace("\n", " ")))
        return True
    art.set_text(lab.text)
    return False


#: The keys of labels printed in a table (``K1``, ``K2``...): no tag of a control (``C7``), inlet or contour.
KEY_PREFIX = "K"


@dataclass
class _Symbols:
    """The drawn symbols labels keep clear of (:class:`Obstacle`), indexed on paper."""

    paper: np.ndarray  # shapely geometries, paper inches
    sources: list[Any]  # the features drawn, data coordinates
    reach: np.ndarray  # ink beyond each shape, inches
    tree: Any  # shapely.STRtree over ``paper`` (None: no symbols)

    @classmethod
    def of(cls, obstacles: list[Obstacle]) -> _Symbols:
        """The index of ``obstacles``."""
        paper = np.array([o.paper for o in obstacles], dtype=object)
        return cls(
            paper=paper,
            sources=[o.source for o in obstacles],
            reach=np.array([o.reach_in for o in obstacles], float),
            tree=shapely.STRtree(paper) if len(paper) else None,
        )

    def own(self, sheet, lab: Label) -> dict[int, Any]:
        """The symbols that draw the feature ``lab`` names, each with where the label may sit on it:
        inside a polygon (its shape on paper), anywhere along a line (None).
        """
        feat = lab.feature if lab.feature is not None else lab.along
        if self.tree is None or feat is None or feat.is_empty:
            return {}
        out: dict[int, Any] = {}
        tol = 0.02 * sheet.plan.units_per_inch
        near = None
        for i in self.tree.query(_paper(sheet, feat)).tolist():
            src = self.sources[i]
            if src.geom_type == "Polygon":
                if _same_polygon(src, feat):
                    out[i] = _paper(sheet, src)
            elif "LineString" in feat.geom_type:
                near = feat.buffer(tol) if near is None else near
                if near.covers(src):
                    out[i] = None
        return out

    def hit(self, b: tuple[float, float, float, float], pad: float, own: dict[int, Any]) -> bool:
        """Whether box ``b`` (x0, y0, x1, y1, inches), grown by ``pad``, meets a symbol's ink: any line
        (its own too: a label goes beside the line it names, never on it), any polygon but its own, and
        its own polygon unless the box lies inside it.
        """
        if self.tree is None:
            return False
        bb = box(*b)
        grow = pad + float(self.reach.max())
        idx = self.tree.query(box(b[0] - grow, b[1] - grow, b[2] + grow, b[3] + grow))
        if not len(idx):
            return False
        d = shapely.distance(self.paper[idx], bb)
        for i in idx[d <= self.reach[idx] + pad].tolist():
            if i not in own or own[i] is None or not own[i].contains(bb):
                return True
        return False

    def crossed(self, seg: Any, own: dict[int, Any]) -> bool:
        """Whether the leader ``seg`` (paper inches) runs across a drawn symbol other than the feature it
        points at.
        """
        if self.tree is None:
            return False
        idx = self.tree.query(seg, predicate="intersects").tolist()
        return any(i not in own for i in idx)


def _same_polygon(src: Any, feat: Any) -> bool:
    """Whether the drawn polygon ``src`` is the feature ``feat`` a label names (a point inside it, or a
    polygon sharing at least half of each one's area).
    """
    if feat.geom_type in ("Point", "MultiPoint"):
        return bool(src.intersects(feat))
    if "Polygon" not in feat.geom_type:
        return False
    both = src.intersection(feat).area
    return both >= 0.5 * src.area and both >= 0.5 * feat.area


@dataclass
class _Room:
    """Where labels may go on a sheet: inside ``frame`` (paper inches), clear of the ``taken`` boxes
    (rows x0, y0, x1, y1, inches); ``renderer`` measures text.
    """

    frame: Any
    taken: np.ndarray
    renderer: Any
    symbols: _Symbols
    own: dict[int, Any] = field(default_factory=dict)  # the symbols of the label being placed
    target: Any = None  # what its leader points at (paper inches)
    leaders: list[Any] = field(default_factory=list)  # the leaders drawn (paper inches)
    marks: int = -1  # the first rows of ``taken`` that are point markers and fixed text (-1: all of them)

    def __post_init__(self) -> None:
        if self.marks < 0:
            self.marks = len(self.taken)

    def free(self, b: tuple[float, float, float, float], pad: float) -> bool:
        """Whether box ``b`` (x0, y0, x1, y1, paper inches) stays inside the frame, ``pad`` inches clear
        of the labels placed, the point markers, the drawn symbols and the leaders.
        """
        if not self.holds(b) or _hits(self.taken, b, pad) or self.symbols.hit(b, pad, self.own):
            return False
        if not self.leaders:
            return True
        grown = box(b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad)
        return not bool(shapely.intersects(np.array(self.leaders, dtype=object), grown).any())

    def crosses(self, seg: Any) -> int:
        """How many labels placed, point markers and leaders the leader ``seg`` (paper inches, from a
        label's box to its feature) runs across: the feature's own marker (a box around the leader's end)
        and leaders meeting it only at the feature they share aside.
        """
        n = 0
        t = self.taken
        (ex, ey) = seg.coords[-1]
        if len(t):  # a marker holding the leader's end is the feature's own; a label there is not
            at_end = (t[:, 0] <= ex) & (ex <= t[:, 2]) & (t[:, 1] <= ey) & (ey <= t[:, 3])
            t = t[~(at_end & (np.arange(len(t)) < self.marks))]
            n += int(shapely.intersects(shapely.box(t[:, 0], t[:, 1], t[:, 2], t[:, 3]), seg).sum())
        if self.leaders:
            short = _shortened(seg, LEADER_END_IN)
            n += int(shapely.intersects(np.array(self.leaders, dtype=object), short).sum())
        return n

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
    and clear of every box taken, the drawn symbols and the leaders, and whose leader (if it needs one)
    crosses no label and no other leader, nor a drawn symbol where a position allows (else the first whose
    leader crosses only symbols); add its halo (and leader), and take its box. False when none is: the
    label is not moved farther than the last ring of positions (``LABELS["ring_radii_in"]``), so it always
    sits by its feature.
    """
    spot = _first_fit(sheet, lab, art, room, leader_clear=True) or _first_fit(
        sheet, lab, art, room, leader_clear=False
    )
    if spot is None:
        return False
    cx, cy, rot, bb, seg = spot
    art.set_position((cx, cy))
    art.set_rotation(rot)
    room.taken = np.vstack([room.taken, bb.bounds])
    if seg is not None:
        room.leaders.append(seg)
        _leader(sheet, lab, seg)
    _halo(sheet.ax, lab, cx, cy, rot)
    sheet.placed.append((lab.text, bb))
    sheet.model_labels.append(_in_model(sheet, lab, art, (cx, cy, rot), seg=seg, renderer=room.renderer))
    return True


def _in_model(
    sheet, lab: Label, art: Any, at: tuple[float, float, float], *, seg: Any, renderer: Any
) -> PlacedLabel:
    """The label placed at ``at`` (x, y, rotation: data coordinates, degrees) in model space: each line as
    wide as matplotlib sets it, the lines filling the text's unrotated box in equal bands
    (:func:`geosite.symbols.line_offsets`), with its leader ``seg`` (paper inches) or None.
    """
    upi = sheet.plan.units_per_inch
    ppi = renderer.points_to_pixels(72.0)  # pixels per inch of paper
    prop = art.get_fontproperties()
    lines = lab.text.split("\n")
    widths = [
        renderer.get_text_width_height_descent(t, prop, ismath=False)[0] / ppi if t else 0.0 for t in lines
    ]
    art.set_rotation(0.0)
    tall = art.get_window_extent(renderer).height / ppi  # the text's box, unrotated
    art.set_rotation(at[2])
    height = CAP_HEIGHT_EM * lab.size / 72.0
    leader = None
    if seg is not None:
        fx0, fy0, _, _ = sheet.plan.sheet.frame
        tx, ty = sheet.tile.bounds[0], sheet.tile.bounds[1]
        (ax_, ay), (bx, by) = (((x - fx0) * upi + tx, (y - fy0) * upi + ty) for x, y in seg.coords)
        leader = (float(ax_), float(ay), float(bx), float(by))
    feature = lab.feature if lab.feature is not None else lab.along
    return PlacedLabel(
        lab.text,
        float(at[0]),
        float(at[1]),
        float(at[2]),
        height * upi,
        tuple(w * upi for w in widths),
        tuple(o * upi for o in line_offsets(len(lines), tall / len(lines), height)),
        size_pt=float(lab.size),
        units_per_inch=float(upi),
        kind=lab.kind,
        names=lab.names,
        feature_wkb=None if feature is None or feature.is_empty else shapely.to_wkb(feature),
        leader=leader,
        window=_bounds(sheet.window),
    )


def _first_fit(sheet, lab: Label, art: Any, room: _Room, *, leader_clear: bool) -> tuple | None:
    """The first candidate (x, y, rotation, box on paper, leader or None) whose box is free
    (:meth:`_Room.free`) and whose leader crosses no label nor leader (:meth:`_Room.crosses`) and, with
    ``leader_clear``, no drawn symbol either. None when none is.
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
        x0, y0, x1, y1 = base[key]
        if leader:  # a ring position: the box's edge, not its middle, that far from the anchor
            ux, uy = (px - ax0, py - ay0)
            n = math.hypot(ux, uy) or 1.0
            ux, uy = ux / n, uy / n
            reach = (x1 - x0) / 2 * abs(ux) + (y1 - y0) / 2 * abs(uy)  # the box's half-extent along u
            px, py = px + ux * reach, py + uy * reach
        b = (x0 + px - ax0, y0 + py - ay0, x1 + px - ax0, y1 + py - ay0)  # the box moved there
        if not room.free(b, pad):
            continue
        bb = box(*b)
        if leader:  # where the box went, in data coordinates
            cx, cy = _from_in(sheet, px, py)
        seg = (
            _leader_in(room.target, bb.buffer(pad, join_style="mitre"))
            if leader and room.target is not None
            else None
        )
        if seg is None:
            return cx, cy, key, bb, seg
        if room.crosses(seg) or (
            leader_clear and room.symbols.crossed(_shortened(seg, LEADER_END_IN), room.own)
        ):
            continue
        return cx, cy, key, bb, seg
    return None


#: A leader's last stretch at its feature, inches: leaders meeting there only (two labels of one feature)
#: do not cross, and the feature's own symbol is where it ends.
LEADER_END_IN = 0.03


def _shortened(seg: Any, by_in: float) -> Any:
    """The leader ``seg`` without its last ``by_in`` inches (its end at the feature)."""
    n = seg.length
    if n <= by_in:
        return LineString([seg.coords[0], seg.coords[0]])
    return ops.substring(seg, 0.0, n - by_in)


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
    """(x, y, rotation, needs a leader) in the order tried: on or beside its line (a line's label), on
    its anchor and inside its polygon (never on a point, which it would hide), then rings around it.
    """
    upi = sheet.plan.units_per_inch
    if lab.along is not None:
        yield from _beside_line(sheet, lab)
        if lab.fixed:
            return
    else:
        feat = lab.feature
        if feat is None or feat.geom_type not in ("Point", "MultiPoint"):  # a point's label never hides it
            yield lab.x, lab.y, lab.rotation, False
        if feat is not None and feat.geom_type in ("Polygon", "MultiPolygon"):
            for p in _interior_points(feat, sheet.window, upi):
                yield p.x, p.y, 0.0, False
    for r in LABELS["ring_radii_in"]:  # how far the box's edge is from the anchor (_first_fit)
        n = 8 if r < 0.3 else 16 if r < 0.6 else 24
        for k in range(n):
            a = math.pi / 2 - 2 * math.pi * k / n  # start north, go clockwise
            yield lab.x + r * upi * math.cos(a), lab.y + r * upi * math.sin(a), 0.0, True


def _beside_line(sheet, lab: Label):
    """A line label's positions: a contour's elevation on its line (the line broken under it), any other
    beside its line, either side, parallel to it (a line is never drawn through its own name).
    """
    upi = sheet.plan.units_per_inch
    h = lab.size / 72 * (1.0 + lab.text.count("\n"))
    for x, y, ang in _along_points(sheet, lab.along, fixed=lab.fixed):
        if lab.fixed:
            yield x, y, ang, False
            continue
        nx, ny = -math.sin(math.radians(ang)), math.cos(math.radians(ang))
        for gap in (0.04, 0.08):
            for side in (1, -1):
                off = (h / 2 + gap) * upi * side
                yield x + nx * off, y + ny * off, ang, False


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


def _interior_points(poly, window, upi: float, n: int = 400):
    """Points inside the visible part of ``poly``, nearest its representative point first."""
    vis = shapely.intersection(poly, window)
    if vis.is_empty or vis.area <= 0:
        return []
    rp = vis.representative_point()
    x0, y0, x1, y1 = vis.bounds
    step = max(max((x1 - x0), (y1 - y0)) / 24, INTERIOR_STEP_IN * upi)
    if step <= 0:
        return []
    xs, ys = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
    pts = shapely.points(xs.ravel(), ys.ravel())
    pts = pts[shapely.contains(vis, pts)]
    pts = sorted(pts, key=lambda p: p.distance(rp))
    return pts[:n]


#: The spacing of the positions tried inside a polygon for its label, inches of paper (at least).
INTERIOR_STEP_IN = 0.15


#: A label this close to its feature, inches, needs no leader: it reads as the feature's.
NO_LEADER_IN = 0.05


def _leader_in(target: Any, bb: Any) -> Any:
    """The leader from the label's box ``bb`` to its feature ``target`` (both paper inches), nearest
    point to nearest point: None where the box touches a polygon feature or lies within
    :data:`NO_LEADER_IN` of it.
    """
    if target.geom_type in ("Polygon", "MultiPolygon") and target.intersects(bb):
        return None
    p_box, p_feat = ops.nearest_points(bb.exterior, target)
    if p_box.distance(p_feat) < NO_LEADER_IN:
        return None
    return LineString([p_box, p_feat])


def _leader(sheet, lab: Label, seg: Any) -> None:
    """Draw the leader ``seg`` (paper inches, :func:`_leader_in`) with a dot at the feature's end."""
    upi = sheet.plan.units_per_inch
    fx0, fy0, _, _ = sheet.plan.sheet.frame
    x0, y0 = sheet.tile.bounds[0], sheet.tile.bounds[1]
    (bx, by), (px, py) = (((x - fx0) * upi + x0, (y - fy0) * upi + y0) for x, y in seg.coords)
    sheet.ax.add_line(
        Line2D([bx, px], [by, py], color=lab.color, lw=LABELS["leader_pt"], zorder=10.05, gid="leader")
    )
    sheet.ax.plot([px], [py], marker="o", ms=1.2, color=lab.color, zorder=10.05)


def _bounds(g: Any) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = g.bounds
    return float(x0), float(y0), float(x1), float(y1)


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


def _paper(sheet, geom: Any) -> Any:
    """``geom`` (data coordinates) on paper: inches from the sheet's lower left."""
    upi = sheet.plan.units_per_inch
    fx0, fy0, _, _ = sheet.plan.sheet.frame
    tx, ty = sheet.tile.bounds[0], sheet.tile.bounds[1]
    return affinity.affine_transform(geom, [1 / upi, 0, 0, 1 / upi, fx0 - tx / upi, fy0 - ty / upi])


def _from_in(sheet, px: float, py: float) -> tuple[float, float]:
    """Paper inches from the sheet's lower left to data coordinates (:func:`_to_in`'s inverse)."""
    upi = sheet.plan.units_per_inch
    fx0, fy0, _, _ = sheet.plan.sheet.frame
    return sheet.tile.bounds[0] + (px - fx0) * upi, sheet.tile.bounds[1] + (py - fy0) * upi


def _to_in(sheet, x: float, y: float) -> tuple[float, float]:
    upi = sheet.plan.units_per_inch
    fx0, fy0, _, _ = sheet.plan.sheet.frame
    return fx0 + (x - sheet.tile.bounds[0]) / upi, fy0 + (y - sheet.tile.bounds[1]) / upi


__all__ = ["Label", "Obstacle", "avoid", "keep_clear", "place", "request"]
