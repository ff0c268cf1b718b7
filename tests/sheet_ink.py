"""A sheet read back from its PDF by an independent reader (MuPDF, through pymupdf), as a reviewer reads
it at print size: every text span's box and every stroked path, in inches from the page's top left.

What a reviewer holds the sheets to (issue 33):

- no drawn line crosses a label: a stroked path meeting the inside of a text box on the map (the label's
  own white halo aside; the frame, the panel's rules and a table's rules never reach a label);
- no leader crosses a label or another leader, and each is short: the label sits by its feature;
- no text smaller than the stated minimum: its capitals at least ``MIN_TEXT_IN`` high at print size.

pymupdf is a test dependency only (AGPL: geosite, MIT, never imports it and does not ship it).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import shapely
from shapely.geometry import LineString, box

from geosite.maps.sheets import ORIENTATIONS, SHEET_SIZES_IN, Sheet
from geosite.maps.symbology import LABELS

PT = 72.0
#: Capital height of each standard font the sheets may use, em (Adobe's AFM CapHeight).
CAP_EM = {"Helvetica": 0.718, "Courier": 0.562}
#: A text box is read this much smaller each side, inches: its edge is where a leader starts.
INSIDE_IN = 0.004


@dataclass(frozen=True)
class Span:
    text: str
    box: object  # shapely box, inches from the page's top left
    size_pt: float
    font: str


@dataclass(frozen=True)
class Stroke:
    line: object  # shapely LineString, inches
    width_pt: float
    color: tuple


@dataclass(frozen=True)
class Page:
    spans: list[Span]
    strokes: list[Stroke]
    frame: object  # the map frame, inches from the top left

    def labels(self) -> list[Span]:
        """The text on the map (inside its frame)."""
        return [s for s in self.spans if self.frame.contains(s.box.centroid)]

    def leaders(self) -> list[Stroke]:
        """The leaders: single segments in the leaders' own line width."""
        w = LABELS["leader_pt"]
        return [s for s in self.strokes if abs(s.width_pt - w) < 1e-3 and len(s.line.coords) == 2]


def _sheet_of(w_in: float, h_in: float) -> Sheet:
    for size, orient in itertools.product(SHEET_SIZES_IN, ORIENTATIONS):
        s = Sheet(size, orient)
        if abs(s.width_in - w_in) < 0.01 and abs(s.height_in - h_in) < 0.01:
            return s
    raise AssertionError(f"no sheet is {w_in} x {h_in} in")


def read_page(pdf) -> Page:
    import pymupdf

    page = pymupdf.open(pdf)[0]
    w_in, h_in = page.rect.width / PT, page.rect.height / PT
    fx, fy, fw, fh = _sheet_of(w_in, h_in).frame
    frame = box(fx, h_in - fy - fh, fx + fw, h_in - fy)
    spans = []
    for b in page.get_text("dict", flags=pymupdf.TEXT_ACCURATE_BBOXES)["blocks"]:
        for ln in b.get("lines", []):
            for s in ln["spans"]:
                if s["text"].strip():
                    x0, y0, x1, y1 = (v / PT for v in s["bbox"])
                    spans.append(Span(s["text"], box(x0, y0, x1, y1), s["size"], s["font"]))
    return Page(spans, _strokes(page), frame)


def _strokes(page) -> list[Stroke]:
    """Every stroked path segment as printed: cut to the clip paths in force where it is drawn (a hatch
    opened under a label is no line there), fills and the labels' white halos left out.
    """
    strokes = []
    clips: list[tuple[int, object]] = []  # (level, the clip in force from that level on), inches
    for d in page.get_drawings(extended=True):
        level = d.get("level", 0)
        while clips and clips[-1][0] >= level:
            clips.pop()
        if d["type"] == "clip":
            area = _area(d["items"])
            if area is not None:
                clips.append((level, clips[-1][1].intersection(area) if clips else area))
            continue
        color = d.get("color")
        if d["type"] not in ("s", "fs") or color is None or all(c > 0.99 for c in color):
            continue
        shown = clips[-1][1] if clips else None
        for item in d["items"]:
            strokes += [Stroke(g, d.get("width") or 0.0, color) for g in _drawn(item, shown)]
    return strokes


def _drawn(item, shown) -> list:
    """The visible pieces of one path item (inches): its line cut to the clip ``shown``."""
    pts = _points(item)
    if len(pts) < 2:
        return []
    line = LineString([(p.x / PT, p.y / PT) for p in pts])
    if shown is not None:
        line = line.intersection(shown)
    return [g for g in shapely.get_parts(line) if g.geom_type == "LineString" and g.length > 0]


def _area(items) -> object:
    """A clip path's area, inches (its subpaths even-odd), or None when it encloses nothing."""
    rings, ring = [], []
    for item in items:
        pts = [(p.x / PT, p.y / PT) for p in _points(item)]
        if not pts:
            continue
        if ring and pts[0] != ring[-1]:
            rings.append(ring)
            ring = []
        ring += pts if not ring else pts[1:]
    rings.append(ring)
    area = None
    for r in rings:
        if len(r) >= 3:
            poly = shapely.make_valid(shapely.Polygon(r))
            area = poly if area is None else area.symmetric_difference(poly)
    return area


def _points(item) -> list:
    kind = item[0]
    if kind == "l":
        return [item[1], item[2]]
    if kind == "c":  # a Bezier: its control polygon holds the curve
        return [item[1], item[2], item[3], item[4]]
    if kind == "re":
        r = item[1]
        return [r.tl, r.tr, r.br, r.bl, r.tl]
    if kind == "qu":
        q = item[1]
        return [q.ul, q.ur, q.lr, q.ll, q.ul]
    return []


def crossings(page: Page) -> list[tuple[str, float]]:
    """(label, line width) for every stroked path crossing a label's box on the map."""
    labels = page.labels()
    if not labels or not page.strokes:
        return []
    inner = [s.box.buffer(-INSIDE_IN, join_style="mitre") for s in labels]
    lines = [s.line for s in page.strokes]
    tree = shapely.STRtree(lines)
    out = []
    for span, b in zip(labels, inner, strict=True):
        if b.is_empty:
            continue
        for i in tree.query(b, predicate="intersects").tolist():
            out.append((span.text, page.strokes[i].width_pt))
    return out


def leader_crossings(page: Page) -> list[tuple[int, int]]:
    """Pairs of leaders that cross each other."""
    leaders = [s.line for s in page.leaders()]
    return [
        (i, j)
        for (i, a), (j, b) in itertools.combinations(enumerate(leaders), 2)
        if a.crosses(b) or (a.intersects(b) and a.intersection(b).length > 0)
    ]


def small_text(page: Page, min_in: float) -> list[tuple[str, float]]:
    """(text, its capitals' height, inches) of every span whose capitals are under ``min_in``."""
    out = []
    for s in page.spans:
        face = "Courier" if "Courier" in s.font else "Helvetica"
        cap = s.size_pt * CAP_EM[face] / PT
        if cap < min_in - 1e-9:
            out.append((s.text, round(cap, 4)))
    return out
