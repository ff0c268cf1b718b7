"""The DXF's text, placed in model space where it meets no symbol the DXF draws but its own feature's.

Two sources, one rule. The construction sheet's labels as it placed them (:class:`PlacedLabel`, from
:func:`geosite.maps.labels.place`) are kept where the sheet put them, each on the item it names (by the
drawing code's ``names``, else by its geometry: the item that, cut to the sheet's window, is the feature the
label names); a feature no sheet label names gets its own label, placed here by candidates like the
sheet's: beside a point's symbol, beside or along a line, inside an area, then on rings around it at
growing distances with a leader back to it. Every label, the sheet's included, is written only where its
text box meets no symbol the DXF draws (:data:`geosite.views.cad_items.CLEAR`: every control's line, block
and outline, piles, structures, water, inlets, the site boundary, each at half its pen width) other than
its own feature's (a line's label may run along it; an area's sit inside it), nor a label already
written; a sheet's label whose box in the DXF meets one is moved by the same candidates, and a label no
candidate can hold is left out (its feature's attributes still say it all).

A text box is exact whatever the CAD font: each line is written as a TEXT fitted between two points
(:func:`geosite.views.dxf.write_dxf`), so it is as wide as the width used here. The DXF's own lines are
estimated from the sheets' Helvetica widths (:func:`text_block`); a sheet's are as matplotlib measured
them. Hand-written on shapely (STRtree queries per candidate), like the sheets' placement, because neither
matplotlib (not loaded for the DXF) nor ezdxf places labels.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import box

from geosite.symbols import CAP_HEIGHT_EM, TEXT_ASCENT, TEXT_DESCENT, PlacedLabel, line_offsets

if TYPE_CHECKING:
    from geosite.views.cad_items import Item

#: The DXF's own text sizes, points on paper: the sheets' (geosite.maps.layout.draw_contours, labels), so
#: every label of the DXF is as large as the sheet's.
TEXT_PT = {"text": 6.5, "contour_text": 6.5}
#: Paper sizes, inches (times the plot scale's units per inch): the DXF's own text (capital height) and a
#: contour's, the gap between a symbol and its label, the clear space round every label, half a symbol's
#: pen width, how near a leader's end need not be drawn.
PAPER_IN = {
    **{k: CAP_HEIGHT_EM * pt / 72.0 for k, pt in TEXT_PT.items()},
    "gap": 0.03,
    "pad": 0.015,
    "pen": 0.01,
    "leader_min": 0.02,
}
#: Ring radii (paper inches) of the positions tried off a feature, the sheets' (geosite.maps.symbology): a
#: label that finds no room within them is left out (its feature's attributes still say it all).
RING_IN = (0.1, 0.18, 0.28, 0.4, 0.55, 0.75, 1.0, 1.3, 1.7, 2.2, 2.8)
#: How far from its feature (paper inches) a label whose feature has a short form (a control's tag) is
#: written whole; farther, the short form is (a full label an inch off with a leader reads worse than the
#: tag beside its line).
NEAR_IN = 0.28
#: An index contour's elevations: one on each piece at least ``first`` inches long on paper, then one every
#: ``every`` inches; each tried at its station and up to ``slide`` inches either way along the line.
CONTOUR_IN = {"first": 0.75, "every": 5.0, "slide": 1.0}
#: The DXF's own labels: baselines this many capital heights apart.
PITCH = 1.5
#: Helvetica's advance widths in ems by character class (its AFM: capitals 0.61-0.94, mostly 0.67-0.72;
#: lower case and digits 0.5-0.56; narrow letters and punctuation 0.22-0.33; space 0.278).
_EM = {"upper": 0.69, "lower": 0.53, "digit": 0.556, "narrow": 0.26, "space": 0.278, "other": 0.5}
_NARROW = set("iljtfrI.,:;'!|()[]-/")


def text_block(text: str, height: float) -> PlacedLabel:
    """The DXF's own label ``text`` as a text block at the origin: lines ``height`` (capital height, CRS
    units) high, :data:`PITCH` apart, each as wide as Helvetica sets it (the width its TEXT is fitted to).

    Parameters
    ----------
    text : str
        The label, lines joined by newlines.
    height : float
        Its capital height, CRS units.

    Returns
    -------
    PlacedLabel
        The block, centred on (0, 0), unrotated.
    """
    lines = text.split("\n")
    widths = tuple(_width_em(t) * height / CAP_HEIGHT_EM for t in lines)
    return PlacedLabel(text, 0.0, 0.0, 0.0, height, widths, line_offsets(len(lines), PITCH * height, height))


def _width_em(s: str) -> float:
    """A line's width in ems, Helvetica (:data:`_EM`)."""
    w = 0.0
    for ch in s:
        if ch == " ":
            w += _EM["space"]
        elif ch in _NARROW:
            w += _EM["narrow"]
        elif ch.isdigit():
            w += _EM["digit"]
        elif ch.isupper():
            w += _EM["upper"]
        elif ch.isalpha():
            w += _EM["lower"]
        else:
            w += _EM["other"]
    return w


def box_of(lab: PlacedLabel) -> Any:
    """The box round a label's text as the DXF writes it (a rotated rectangle, CRS units): its widest line
    and its lines' boxes (:data:`geosite.symbols.TEXT_DESCENT`, ``TEXT_ASCENT``) top to bottom.
    """
    w = max(lab.line_widths, default=0.0)
    y0 = min(lab.line_offsets, default=0.0) - TEXT_DESCENT * lab.height
    y1 = max(lab.line_offsets, default=0.0) + TEXT_ASCENT * lab.height
    c, s = math.cos(math.radians(lab.rotation_deg)), math.sin(math.radians(lab.rotation_deg))
    pts = [
        (lab.x + x * c - y * s, lab.y + x * s + y * c)
        for x, y in ((-w / 2, y0), (w / 2, y0), (w / 2, y1), (-w / 2, y1))
    ]
    return shapely.Polygon(pts)


# -------------------------------------------------------------------------------------------- symbols


@dataclass
class _Symbols:
    """What labels keep clear of (model space): each symbol's shape, its reach (half its pen width, CRS
    units), the item it draws and what that item's own label may do with it (``cross`` a line, sit
    ``inside`` an area, ``none``).
    """

    shapes: list[Any] = field(default_factory=list)
    reach: list[float] = field(default_factory=list)
    owner: list[str] = field(default_factory=list)
    own: list[str] = field(default_factory=list)
    tree: Any = None

    def add(self, shape: Any, reach: float, owner: str, own: str) -> None:
        """Add a symbol."""
        for part in shapely.get_parts(shape):
            if not part.is_empty:
                self.shapes.append(part)
                self.reach.append(reach)
                self.owner.append(owner)
                self.own.append(own)

    def index(self) -> None:
        """Build the search tree (after the last :meth:`add`)."""
        self.tree = shapely.STRtree(self.shapes) if self.shapes else None

    def hit(self, b: Any, pad: float, keys: frozenset[str]) -> bool:
        """Whether box ``b`` (grown by ``pad``) meets a symbol: any but those of the items ``keys`` (the
        label's own), and of its own those it may not sit on (an area it is not inside, a block).
        """
        if self.tree is None:
            return False
        idx = self.tree.query(b, predicate="dwithin", distance=pad + max(self.reach))
        for i in idx.tolist():
            if shapely.distance(self.shapes[i], b) > self.reach[i] + pad:
                continue
            if self.owner[i] in keys and (
                self.own[i] == "cross" or (self.own[i] == "inside" and self.shapes[i].contains(b))
            ):
                continue
            return True
        return False


def symbols_of(items: Sequence[Item], units_per_inch: float) -> _Symbols:
    """The symbols of ``items`` labels keep clear of (those with a ``clear`` look): lines as drawn, areas
    as their outline (``edge``) or whole (``footprint``), blocks as the circle they are drawn in.
    """
    sym = _Symbols()
    pen = PAPER_IN["pen"] * units_per_inch
    for it in items:
        if not it.clear:
            continue
        g = it.geometry
        if it.block is not None:
            for p in _points(g):
                sym.add(block_at(it, p, units_per_inch), pen, it.key, "none")
        if "Point" in g.geom_type:
            continue
        if "Polygon" in g.geom_type:
            if it.clear == "edge":
                sym.add(g.boundary, pen, it.key, "none")
            else:
                sym.add(g, pen, it.key, "inside")
        else:
            sym.add(g, pen, it.key, "cross")
    sym.index()
    return sym


def _block_scale(it: Item, units_per_inch: float) -> tuple[float, float]:
    """The x and y scale a feature's block is inserted at: its footprint's, else its symbol's."""
    assert it.block is not None
    if it.block.size is not None and "Point" in it.geometry.geom_type:
        return it.block.size
    r = it.block.symbol_in * units_per_inch
    return r, r


def block_at(it: Item, p: Any, units_per_inch: float) -> Any:
    """The outline of ``it``'s block inserted at ``p`` (CRS units)."""
    from shapely import affinity

    from geosite.views.cad_items import block_outline

    assert it.block is not None
    xs, ys = _block_scale(it, units_per_inch)
    return affinity.affine_transform(block_outline(it.block.name), [xs, 0.0, 0.0, ys, p.x, p.y])


def block_radius(it: Item, units_per_inch: float) -> float:
    """How far a point's block reaches from its point, CRS units (0 without one)."""
    if it.block is None:
        return 0.0
    p = _points(it.geometry)[0]
    return float(shapely.Point(p.x, p.y).hausdorff_distance(block_at(it, p, units_per_inch).boundary))


def _points(g: Any) -> list[Any]:
    """The points a feature's block goes at: each point, or a polygon's inside point."""
    if "Point" in g.geom_type:
        return list(shapely.get_parts(g))
    return [g.representative_point()]


# ------------------------------------------------------------------------------------------- matching


@dataclass(frozen=True)
class Named:
    """A sheet's label and the items it names (their indices in the items drawn: one, or a run of controls
    the sheet labels once).
    """

    label: PlacedLabel
    items: tuple[int, ...]


def match(labels: Sequence[PlacedLabel], items: Sequence[Item]) -> list[Named]:
    """Each sheet label that names something the DXF draws, with what it names: by the label's ``names``
    (``control:12``, several comma-separated); a control's by the tags its text gives (``C5-C7``: the
    schedule's numbers); else the item of a kind the label may name whose geometry, cut to the sheet's
    window, is the label's feature (a point within the sheet's tolerance, a line covering it within it, an
    area differing by under a tenth), or the run of such items that together are it. A label naming nothing
    the DXF draws (a feature the plan does not hold) is left out.
    """
    from geosite.plan.table import parse_tags

    by_key = {it.key: i for i, it in enumerate(items)}
    tree = shapely.STRtree([it.geometry for it in items]) if items else None
    out = []
    for lab in labels:
        idx = tuple(by_key[k] for k in lab.names.split(",") if k in by_key) if lab.names else ()
        if not idx and lab.kind == "control":
            idx = tuple(
                by_key[f"control:{n}"] for n in sorted(parse_tags(lab.text)) if f"control:{n}" in by_key
            )
        if not idx and tree is not None and lab.feature_wkb is not None:
            idx = _by_geometry(lab, items, tree)
        if idx:
            out.append(Named(lab, idx))
    return out


def _by_geometry(lab: PlacedLabel, items: Sequence[Item], tree: Any) -> tuple[int, ...]:
    """The item (or run of items) whose geometry is the feature ``lab`` names (see :func:`match`)."""
    feat = shapely.from_wkb(lab.feature_wkb)
    tol = PAPER_IN["leader_min"] * (lab.units_per_inch or 1.0)
    window = box(*lab.window) if lab.window is not None else None
    near = feat.buffer(tol)
    run, parts = [], []
    for i in tree.query(near).tolist():
        it = items[i]
        if lab.kind not in ("", "feature", it.kind):
            continue
        g = it.geometry if window is None else it.geometry.intersection(window)
        if g.is_empty or _family(g) != _family(feat):
            continue
        if _same(g, feat, tol, one_way=lab.kind == "contour"):
            return (int(i),)
        if near.covers(g):
            run.append(int(i))
            parts.append(g)
    if len(run) > 1 and _same(shapely.union_all(parts), feat, tol, one_way=False):
        return tuple(sorted(run))
    return ()


def _family(g: Any) -> str:
    t = g.geom_type
    return "polygon" if "Polygon" in t else "line" if "LineString" in t else "point" if "Point" in t else t


def _same(g: Any, feat: Any, tol: float, one_way: bool) -> bool:
    """Whether ``g`` is the feature ``feat`` within ``tol`` (a contour's label names a piece of it)."""
    fam = _family(g)
    if fam == "point":
        return bool(g.distance(feat) <= tol)
    if fam == "line":
        return bool(g.buffer(tol).covers(feat) and (one_way or feat.buffer(tol).covers(g)))
    if fam == "polygon":
        return bool(g.symmetric_difference(feat).area <= 0.1 * max(feat.area, 1e-12))
    return False


# -------------------------------------------------------------------------------------------- placing


@dataclass
class _Room:
    """The labels written so far (their boxes) and the symbols: where the next may go."""

    symbols: _Symbols
    pad: float
    boxes: list[Any] = field(default_factory=list)
    bounds: np.ndarray = field(default_factory=lambda: np.empty((0, 4)))
    leaders: list[Any] = field(default_factory=list)

    def free(self, b: Any, keys: frozenset[str], pad: float | None = None) -> bool:
        """Whether box ``b`` meets no label written, no leader and no symbol but its own features', ``pad``
        clear of them (:attr:`pad` unless given).
        """
        pad = self.pad if pad is None else pad
        if self.near(b, pad) or any(seg.distance(b) <= pad for seg in self.leaders):
            return False
        return not self.symbols.hit(b, pad, keys)

    def near(self, g: Any, pad: float) -> bool:
        """Whether ``g`` comes within ``pad`` of a label written."""
        x0, y0, x1, y1 = g.bounds
        t = self.bounds
        idx = np.nonzero(
            (t[:, 0] < x1 + pad) & (t[:, 2] > x0 - pad) & (t[:, 1] < y1 + pad) & (t[:, 3] > y0 - pad)
        )[0]
        return any(self.boxes[i].distance(g) <= pad for i in idx.tolist())

    def take(self, b: Any, leader: tuple[float, float, float, float] | None = None) -> None:
        """Count box ``b`` (and its leader) as written."""
        self.boxes.append(b)
        self.bounds = np.vstack([self.bounds, b.bounds])
        if leader is not None:
            self.leaders.append(shapely.LineString([leader[:2], leader[2:]]))


@dataclass(frozen=True)
class Lettering:
    """A label the DXF writes: the item it is written for, the text block where it goes, whence its place
    (``sheet``: where the construction sheet put it; ``moved``: a sheet's label the DXF moved off a symbol;
    ``dxf``: the DXF's own) and the keys of every item it names (a run of controls the sheet labels once).
    """

    item: Item
    label: PlacedLabel
    placed_by: str
    names: frozenset[str] = frozenset()


def place_labels(
    items: Sequence[Item], sheet_labels: Sequence[PlacedLabel], units_per_inch: float
) -> list[Lettering]:
    """The labels the DXF writes, each with the item it names (see the module notes).

    Parameters
    ----------
    items : sequence of Item
        What the DXF draws.
    sheet_labels : sequence of PlacedLabel
        The construction sheet's labels as it placed them (empty without maps).
    units_per_inch : float
        The plot scale: CRS units per inch of paper.

    Returns
    -------
    list of Lettering
        Each label written, the sheet's first.
    """
    upi = units_per_inch
    room = _Room(symbols_of(items, upi), PAPER_IN["pad"] * upi)
    named = match(sheet_labels, items)
    out: list[Lettering] = []
    moved: list[tuple[Item, PlacedLabel | None, frozenset[str]]] = []
    for n in sorted(named, key=lambda n: (min(items[i].priority for i in n.items), n.items)):
        it, keys = _named_item(items, n.items), frozenset(items[i].key for i in n.items)
        b = box_of(n.label)
        if room.free(b, keys, pad=0.0):  # the sheet kept its own clearance: only never on one
            room.take(b, n.label.leader)
            out.append(Lettering(it, n.label, "sheet", keys))
        elif it.kind != "contour":  # a contour's other labels say it; any other is moved
            moved.append((it, n.label, keys))
    done = {i for n in named for i in n.items}
    own = [(it, None, frozenset([it.key])) for i, it in enumerate(items) if i not in done and it.label]
    for it, given, keys in sorted([*own, *moved], key=lambda x: x[0].priority):
        if it.repeat:
            out += [Lettering(it, c, "dxf", keys) for c in _contour_labels(it, room, upi)]
            continue
        block = replace(given or text_block(it.label, PAPER_IN["text"] * upi), leader=None)
        spot = None
        if (
            it.short and it.short != block.text
        ):  # the whole near it, else its tag (the schedule says the rest)
            spot = _first_free(it, block, room, upi, keys, reach_in=NEAR_IN)
            block = text_block(it.short, block.height) if spot is None else block
        spot = spot or _first_free(it, block, room, upi, keys)
        if spot is not None:
            out.append(Lettering(it, spot, "dxf" if given is None else "moved", keys))
    return out


def _named_item(items: Sequence[Item], idx: tuple[int, ...]) -> Item:
    """The item a label naming ``idx`` is written for: the one, or the first of a run with the run's
    geometry (its candidates and leader go round the whole run).
    """
    it = items[idx[0]]
    if len(idx) == 1:
        return it
    return replace(it, geometry=shapely.union_all([items[i].geometry for i in idx]))


def _first_free(
    it: Item,
    block: PlacedLabel,
    room: _Room,
    upi: float,
    keys: frozenset[str],
    *,
    reach_in: float | None = None,
) -> PlacedLabel | None:
    """``block`` moved to the first candidate position (:func:`_candidates`, rings up to ``reach_in``
    inches of paper, no limit where None) whose box is free, with a leader to its feature where it sits
    off it; None where none is.
    """
    for x, y, rot, leader in _candidates(it, block, upi, reach_in):
        lab = replace(block, x=x, y=y, rotation_deg=rot)
        b = box_of(lab)
        if not room.free(b, keys):
            continue
        seg = _leader(b, it.geometry, upi) if leader else None
        if seg is not None and room.near(shapely.LineString([seg[:2], seg[2:]]), 0.0):
            continue  # its leader would cross a label
        room.take(b, seg)
        return replace(lab, leader=seg)
    return None


def _candidates(
    it: Item, block: PlacedLabel, upi: float, reach_in: float | None = None
) -> Iterator[tuple[float, float, float, bool]]:
    """(x, y, rotation, whether it needs a leader) in the order tried: beside a point's symbol; beside a
    line (either side), then along it; inside an area; then rings around the feature's anchor, up to
    ``reach_in`` inches of paper.
    """
    g = it.geometry
    w = max(block.line_widths, default=0.0)
    h = max(block.line_offsets) - min(block.line_offsets) + (TEXT_ASCENT + TEXT_DESCENT) * block.height
    gap = PAPER_IN["gap"] * upi
    if "Point" in g.geom_type:
        p = _points(g)[0]
        r = block_radius(it, upi) + gap
        yield p.x + r + w / 2, p.y, 0.0, False
        yield p.x - r - w / 2, p.y, 0.0, False
        yield p.x, p.y - r - h / 2, 0.0, False
        yield p.x, p.y + r + h / 2, 0.0, False
    elif "LineString" in g.geom_type:
        part = max(shapely.get_parts(g), key=lambda q: q.length)
        for f in (0.5, 0.35, 0.65, 0.2, 0.8):
            at = along(part, f * part.length, 0.1 * upi)
            x, y, ang = at.x, at.y, at.angle_deg
            nx, ny = -math.sin(math.radians(ang)), math.cos(math.radians(ang))
            for side in (1, -1):
                off = (h / 2 + gap) * side
                yield x + nx * off, y + ny * off, ang, False
        for f in (0.5, 0.35, 0.65):
            at = along(part, f * part.length, 0.1 * upi)
            x, y, ang = at.x, at.y, at.angle_deg
            yield x, y, ang, False
        p = part.interpolate(0.5, normalized=True)
    else:
        p = g.representative_point()
        for q in _inside_points(g):
            yield q.x, q.y, 0.0, False
    for r in (r for r in RING_IN if reach_in is None or r <= reach_in):
        n = 8 if r < 0.5 else 16 if r < 1.0 else 32
        for k in range(n):
            a = math.pi / 2 - 2 * math.pi * k / n  # north first, clockwise
            yield p.x + r * upi * math.cos(a), p.y + r * upi * math.sin(a), 0.0, True


def _inside_points(poly: Any, n: int = 24) -> list[Any]:
    """Points inside ``poly``: its representative point, then a grid's, nearest it first."""
    rp = poly.representative_point()
    x0, y0, x1, y1 = poly.bounds
    step = max(x1 - x0, y1 - y0) / 8
    if step <= 0:
        return [rp]
    xs, ys = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
    pts = shapely.points(xs.ravel(), ys.ravel())
    pts = pts[shapely.contains(poly, pts)]
    return [rp, *sorted(pts, key=lambda q: q.distance(rp))[: n - 1]]


def _contour_labels(it: Item, room: _Room, upi: float) -> list[PlacedLabel]:
    """An index contour's elevations along it (:data:`CONTOUR_IN`), upright, each where it finds room
    within ``slide`` inches of its station.
    """
    first, every, slide = (CONTOUR_IN[k] * upi for k in ("first", "every", "slide"))
    block = text_block(it.label, PAPER_IN["contour_text"] * upi)
    out = []
    for part in shapely.get_parts(it.geometry):
        n = part.length
        if n < first:
            continue
        stations = (
            [n / 2]
            if n < every
            else [every / 2 + k * every for k in range(int((n - every / 2) // every) + 1)]
        )
        for d in stations:
            for f in (0.0, 0.25, -0.25, 0.5, -0.5, 0.75, -0.75, 1.0, -1.0):
                at = along(part, min(max(d + f * slide, 0.0), n), 0.1 * upi)
                x, y, ang = at.x, at.y, at.angle_deg
                lab = replace(block, x=x, y=y, rotation_deg=ang)
                b = box_of(lab)
                if room.free(b, frozenset([it.key])):
                    room.take(b)
                    out.append(lab)
                    break
    return out


@dataclass(frozen=True)
class Along:
    """A point along a line (``x``, ``y``, CRS units) and the line's direction there (``angle_deg``,
    degrees within (-90, 90], turned to read upright).
    """

    x: float
    y: float
    angle_deg: float


def along(line: Any, d: float, span: float) -> Along:
    """The point ``d`` along ``line`` and the line's direction there over ``span`` (degrees), turned to
    read upright.

    Parameters
    ----------
    line : LineString
        The line (CRS units).
    d : float
        The distance along it, CRS units.
    span : float
        The stretch its direction is measured over, CRS units.

    Returns
    -------
    Along
        The point and the angle.
    """
    p = line.interpolate(d)
    a, b = line.interpolate(max(d - span / 2, 0.0)), line.interpolate(min(d + span / 2, line.length))
    angle = math.degrees(math.atan2(b.y - a.y, b.x - a.x))
    if angle > 90:
        angle -= 180
    elif angle <= -90:
        angle += 180
    return Along(p.x, p.y, angle)


def _leader(b: Any, feature: Any, upi: float) -> tuple[float, float, float, float] | None:
    """The leader from box ``b`` to ``feature``, nearest point to nearest point; None where it is short."""
    from shapely import ops

    p_box, p_feat = ops.nearest_points(b.exterior, feature)
    if p_box.distance(p_feat) < PAPER_IN["leader_min"] * upi:
        return None
    return (p_box.x, p_box.y, p_feat.x, p_feat.y)


__all__ = ["Lettering", "Named", "along", "box_of", "match", "place_labels", "symbols_of", "text_block"]
