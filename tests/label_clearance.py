"""What a reviewer checks on a construction plan at print size, measured on the sheets as drawn: no label's
box on another label, nor on a practice symbol's drawn footprint (tracking pads, traps and basins, fences,
stockpiles), a structure, a water line or the site boundary's line, except a label inside the footprint it
names or along the line it names. The footprints come from the analysis' layers (not from what the map
code registers), put on paper with the sheet's own scale and frame.
"""

from __future__ import annotations

import itertools
import warnings

import shapely
from shapely import affinity

#: a line's ink reaches this far either side of it, paper inches (a 0.9-pt fence with 3.2-pt marks: the
#: line alone, to leave the marks' reach to the placement's own margin)
LINE_INK_IN = 0.006


def construction_sheets(result) -> list:
    """The construction plan's map sheets, drawn in this process (no file): each sheet as its labels
    were placed on it (``placed``: text and box in paper inches).
    """
    from geosite.maps import labels
    from geosite.maps.construction import render_construction_plan

    seen = []
    place = labels.place

    def spy(sheet):
        place(sheet)
        seen.append(sheet)

    labels.place = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            figs = render_construction_plan(result, None)
    finally:
        labels.place = place
    return [s for s in seen if s.fig in figs]


def _paper(sheet, geom):
    upi = sheet.plan.units_per_inch
    fx0, fy0, _, _ = sheet.plan.sheet.frame
    tx, ty = sheet.tile.bounds[0], sheet.tile.bounds[1]
    return affinity.affine_transform(geom, [1 / upi, 0, 0, 1 / upi, fx0 - tx / upi, fy0 - ty / upi])


def _names(row) -> list[str]:
    out = []
    for col in ("name", "type"):
        v = row.get(col) if hasattr(row, "get") else None
        if isinstance(v, str) and v.strip():
            out.append(v.strip().replace("_", " ").lower())
    return out


def footprints(result) -> list[tuple[str, object, list[str]]]:
    """(what, geometry in the site's CRS, the names a label of it carries) of every symbol labels keep
    clear of.
    """
    site, layers = result.site, dict(result.layers)
    out: list[tuple[str, object, list[str]]] = []

    def add(what, gdf, keep=lambda r: True):
        if gdf is None or not len(gdf):
            return
        for _, r in gdf.iterrows():
            if r.geometry is not None and not r.geometry.is_empty and keep(r):
                out.append((what, r.geometry, _names(r)))

    fence = layers.get("filter_fence")
    if fence is not None and "side" in fence.columns:
        fence = fence[fence["side"] != "stand_in"]
    add("fence", fence)
    add("stockpile fence", layers.get("stockpile_fences"))
    add("tracking pad", layers.get("tracking_pads"))
    add("diversion", layers.get("diversions"))
    traps = layers.get("sediment_basin_footprints")  # each trap as placed on the site (trap_sites)
    add("sediment trap", traps, keep=lambda r: bool(r["placed"]))
    for name in ("stockpiles", "structures", "streams", "channels"):
        add(name, site.layers.get(name))
    plan = getattr(result, "plan", None)
    if plan is None or plan.source == "submitted":  # the site's own controls, where the sheet draws them
        add("bmps", site.layers.get("bmps"))
    out.append(("site boundary", site.boundary.boundary, []))
    return out


def clashes(sheet, symbols) -> list[tuple[str, str]]:
    """(label, what it sits on) for every placed label whose box meets another label's box, or a symbol
    (a polygon it does not lie inside, a line it does not name).
    """
    boxes = [(t, shapely.box(*b.bounds)) for t, b in sheet.placed]
    bad = [(a, b) for (a, ra), (b, rb) in itertools.combinations(boxes, 2) if ra.intersects(rb)]
    win = sheet.window
    shown = [(w, _paper(sheet, g), n) for w, g, n in symbols if g.intersects(win)]
    for text, bb in boxes:
        low = text.lower().replace("\n", " ")
        for what, g, names in shown:
            if not g.intersects(bb.buffer(LINE_INK_IN)):
                continue
            polygonal = g.geom_type in ("Polygon", "MultiPolygon")
            if polygonal and g.contains(bb):
                continue  # a footprint's own name inside it
            if not polygonal and any(n and n in low for n in names):
                continue  # a line's own name along it
            bad.append((text, what))
    return bad
