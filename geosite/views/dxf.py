"""The DXF for CAD: the site's plan (:class:`geosite.plan.Plan`) on named, coloured CAD layers, drawn from
the plan and nothing else.

What it holds (:mod:`geosite.views.cad_items`): every control of the plan on its practice's CAD look (a
fence on its side's layer and linetype, a point as its practice's block, scaled to its footprint where the
practice sizes it), every stockpile's footprint, each phase's outline with its dates (start, end,
stabilized) as attributes and label, the analysis' layers (limits of disturbance, contours at their
elevation, steep slopes, drainage, upslope areas, setback zones), and the site's layers the sheets show
(boundary, roads, drives, structures, inlets, streams, lakes, channels, wetlands, floodplain, utilities),
within the drawing's extent. Layer names follow the US National CAD Standard's pattern (discipline ``C``,
a major group, minor groups): ``C-ESCP-*`` erosion and sediment control, ``C-TOPO-*`` topography and water,
``C-UTIL-*`` utilities, ``C-PROP-*`` the property, ``C-ANNO-*`` text (docs/cad_layers.md); colours are
AutoCAD colour indices (ACI).

Every entity carries its feature's attributes as XDATA of the application ``GEOSITE`` (one ``name=value``
string each: a control's ``control_id``, ``type``, ``status``, dates, attributes and pay quantity), rounded
to what was measured (lengths 0.1 ft, areas 1 sq ft, acres 0.01, dates ISO); a block's attributes are also
its ATTRIBs. Text (:mod:`geosite.views.cad_labels`) sits where the construction sheet's label placement put
it, else where the DXF finds room, never over another symbol; each line is a TEXT fitted to its width, on
``C-ANNO-ESCP`` (controls, piles, phases), ``C-ANNO-IDEN`` (the site's names) or ``C-ANNO-TOPO`` (contour
elevations), with the feature it names in its XDATA (``names=control:12``).

What a CAD technician opens: coordinates in the site CRS's units, ``$INSUNITS`` from that CRS (US survey
feet 21, feet 2, metres 6) and ``$MEASUREMENT`` agreeing, ``$EXTMIN``/``$EXTMAX`` on the drawing's extent so
it opens on the site. Written with ezdxf (audited on read back by the tests).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite.errors import CRSError, OutputError
from geosite.io.text import dxf_text
from geosite.practices import registry
from geosite.views.cad_items import (
    ANALYSIS_LAYERS,
    POINT_BLOCKS,
    SITE_LAYERS,
    Item,
    block_shapes,
    layer_items,
)
from geosite.views.cad_labels import PAPER_IN, Lettering, place_labels
from geosite.views.cad_plan import plan_items
from geosite.views.cad_tables import SPACING, Table, plan_tables, write_tables

if TYPE_CHECKING:
    from geosite.plan import Plan
    from geosite.symbols import PlacedLabel

#: DXF $INSUNITS codes by metres per CRS unit.
INSUNITS = {1200.0 / 3937.0: 21, 0.3048: 2, 1.0: 6}
#: $MEASUREMENT (0 imperial, 1 metric) for each $INSUNITS code.
MEASUREMENT = {21: 0, 2: 0, 6: 1}
APPID = "GEOSITE"
#: The text style of every label: Arial (Helvetica's metrics, the sheets' face); each line is fitted to its
#: width, so a CAD program that substitutes another font still draws it the same width.
TEXT_STYLE = ("GEOSITE", "arial.ttf")

#: Linetypes of the site's own layers: name -> (description, pattern in feet: total, then dashes (> 0),
#: gaps (< 0) and dots (0)), scaled to the CRS unit when written. The practices' are their own
#: (:func:`geosite.practices.registry.linetypes`).
BASE_LINETYPES: dict[str, tuple[str, list[float]]] = {
    "GS_LIMITS": ("Limits of disturbance ---- ----", [14.0, 10.0, -4.0]),
    "GS_DRAINAGE": ("Drainage path . . . .", [3.0, 0.0, -3.0]),
}


def linetypes() -> dict[str, tuple[str, list[float]]]:
    """Every linetype the DXF defines: the site layers' and the practices'."""
    return {
        **BASE_LINETYPES,
        **{lt.name: (lt.description, list(lt.pattern_ft)) for lt in registry.linetypes()},
    }


def cad_layers() -> dict[str, tuple[str, int, str, str]]:
    """Every analysis and practice layer's CAD look (``layer`` or ``layer:value``): (CAD layer, ACI colour,
    linetype, what it holds).
    """
    looks = {**ANALYSIS_LAYERS, **registry.cad_layers()}
    return {k: (c.layer, c.colour, c.linetype, c.description) for k, c in looks.items()}


#: every analysis and practice layer's CAD look (a fence's by ``filter_fence:<side>``)
CAD_LAYERS = cad_layers()
#: the site's layers drawn for context, by layer (or ``layer:<value>``)
CONTEXT_LAYERS = {k: (c.layer, c.colour, c.linetype, c.description) for k, c in SITE_LAYERS.items()}


def cad_layer(name: str, side: str | None = None) -> tuple[str, int, str, str]:
    """(CAD layer, ACI colour, linetype, description) of an analysis or practice layer, for the value of the
    field its look is chosen by (a fence's side).
    """
    from geosite.views.cad_items import cad_look

    c = cad_look(ANALYSIS_LAYERS, name, side)
    return c.layer, c.colour, c.linetype, c.description


#: Annotation layers (National CAD Standard ``C-ANNO-*``): name -> (ACI colour, what it holds).
ANNO_LAYERS: dict[str, tuple[int, str]] = {
    "C-ANNO-TOPO": (32, "contour elevations (index contours)"),
    "C-ANNO-ESCP": (7, "labels of controls, stockpiles and phases (with their dates)"),
    "C-ANNO-IDEN": (7, "names of roads, structures, inlets and streams"),
}


class DxfDraft:
    """A DXF drawn but not yet lettered: its entities written, its labels placed and the file saved by
    :meth:`write` (so the drawing is made while the sheets are drawn, and lettered where they placed theirs).

    Parameters
    ----------
    items : sequence of Item
        What it draws.
    crs : pyproj.CRS or None
        The items' CRS (its unit sets $INSUNITS).
    scale_ft : float
        The plot scale the symbols and texts are sized for, feet on the ground per inch of paper.
    tables : sequence of Table
        The plan's tables, written beside the drawing (:mod:`geosite.views.cad_tables`).
    """

    def __init__(
        self, items: Sequence[Item], crs: Any, scale_ft: float, tables: Sequence[Table] = ()
    ) -> None:
        self.doc, ft_per_unit = _new_document(crs)
        self.units_per_inch = scale_ft / ft_per_unit
        self.ft_per_unit = ft_per_unit
        self.items = list(items)
        msp = self.doc.modelspace()
        for it in self.items:
            _draw(msp, it, self.units_per_inch, ft_per_unit)
        self.bounds = _bounds(self.items)
        self.tables = list(tables)

    def write(self, path: str | Path, labels: Sequence[PlacedLabel] = ()) -> Path:
        """Letter the drawing (the sheet's ``labels`` where they fit, the DXF's own for the rest) and save
        it to ``path``.

        Parameters
        ----------
        path : str or Path
            The DXF file.
        labels : sequence of PlacedLabel
            The construction sheet's labels as it placed them (model space); none without maps.

        Returns
        -------
        Path
            The path written.
        """
        msp = self.doc.modelspace()
        for lettering in place_labels(self.items, labels, self.units_per_inch):
            _letter(msp, lettering)
        box = self.bounds
        if self.tables and math.isfinite(box[0]):  # beside the drawing, over nothing
            h = PAPER_IN["text"] * self.units_per_inch
            t = write_tables(msp, self.tables, (box[2] + SPACING["margin"] * h, box[3]), h, TEXT_STYLE[0])
            box = (box[0], min(box[1], t[1]), max(box[2], t[2]), box[3])
        if math.isfinite(box[0]):  # ezdxf writes the header's $EXTMIN/$EXTMAX from the layout's on save
            msp.dxf.extmin = (box[0], box[1], 0.0)
            msp.dxf.extmax = (box[2], box[3], 0.0)
            self.doc.set_modelspace_vport(
                height=(box[3] - box[1]) * 1.1, center=((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            )
        out = Path(path)
        try:
            self.doc.saveas(out)
        except OSError as exc:
            raise OutputError(f"{out}: cannot write the DXF ({exc})") from exc
        return out


def draft_dxf(plan: Plan, scale_ft: float) -> DxfDraft:
    """The DXF of ``plan`` drawn, to be lettered and saved by :meth:`DxfDraft.write`.

    Parameters
    ----------
    plan : geosite.plan.Plan
        The site's plan.
    scale_ft : float
        The plot scale, feet on the ground per inch of paper (:func:`geosite.pipeline.write_outputs` passes
        the maps').

    Returns
    -------
    DxfDraft
        The drawing.
    """
    return DxfDraft(plan_items(plan), plan.site.crs, scale_ft, plan_tables(plan))


def write_dxf(
    plan: Plan, path: str | Path, *, scale_ft: float = 100.0, labels: Sequence[PlacedLabel] = ()
) -> Path:
    """Write the DXF of a site's plan (see the module notes).

    Parameters
    ----------
    plan : geosite.plan.Plan
        The site's plan (``AnalysisResult.plan``).
    path : str or Path
        The DXF file to write.
    scale_ft : float
        The plot scale the symbols and texts are sized for, feet on the ground per inch of paper. The
        default, 100, is geosite's choice, not the ordinance's: a drawing size for CAD, which rescales text
        at will (:func:`geosite.pipeline.write_outputs` passes the maps' scale,
        :func:`geosite.pipeline.fitted_scale`).
    labels : sequence of PlacedLabel
        The construction sheet's labels as it placed them (model space): the text goes there where it
        fits.

    Returns
    -------
    Path
        The path written.
    """
    return draft_dxf(plan, scale_ft).write(path, labels)


def write_layers_dxf(
    layers: Mapping[str, Any],
    path: str | Path,
    *,
    context: Mapping[str, Any] | None = None,
    scale_ft: float,
) -> Path:
    """Write any geosite layers to a DXF on the same CAD layers, blocks and labels as a plan's (a
    notebook's layers, a controls stage's result); ``context``: site layers drawn within their extent.

    Parameters
    ----------
    layers : mapping of str to GeoDataFrame
        Layer name -> features, all in one projected CRS (others are reprojected to the first's).
    path : str or Path
        The DXF file.
    context : mapping of str to GeoDataFrame, optional
        The site's layers (:data:`CONTEXT_LAYERS`), clipped to the layers' extent.
    scale_ft : float
        The plot scale, feet on the ground per inch of paper.

    Returns
    -------
    Path
        The path written.
    """
    import shapely

    frames, crs = _one_crs(dict(layers))
    fpu = _ft_per_unit(crs)
    items = [
        it
        for name, gdf in frames.items()
        if gdf is not None and len(gdf)
        for it in layer_items(name, gdf, fpu)
    ]
    if context and items:
        b = _bounds(items)
        frame = shapely.box(*b)
        for name in SITE_LAYERS:
            gdf = context.get(name)
            if ":" not in name and gdf is not None and len(gdf):
                gdf = gdf.to_crs(crs) if crs is not None and not gdf.crs.equals(crs) else gdf
                items += layer_items(name, gdf, fpu, table=SITE_LAYERS, frame=frame, source="site")
    return DxfDraft(items, crs, scale_ft).write(path)


# ------------------------------------------------------------------------------------------- document


def insunits(crs: Any) -> int:
    """The DXF ``$INSUNITS`` code for a projected CRS's linear unit."""
    from geosite.units import crs_linear_unit_metres

    m = crs_linear_unit_metres(crs, "DXF export")
    for metres, code in INSUNITS.items():
        if abs(m - metres) < 1e-9:
            return code
    raise CRSError(f"DXF export: no $INSUNITS code for a unit of {m} m; reproject to feet or metres")


def _ft_per_unit(crs: Any) -> float:
    """Feet in one drawing unit: 1 on a foot CRS (US survey or international), international feet in a
    metre on a metre CRS (heights, linetype lengths and sizes are in feet).
    """
    return 1.0 / 0.3048 if crs is not None and insunits(crs) == 6 else 1.0


def _new_document(crs: Any) -> tuple[Any, float]:
    """An empty drawing with geosite's header, linetypes, text style, annotation layers and blocks, and
    the feet in one of its units.
    """
    import ezdxf

    doc = ezdxf.new("R2010", setup=True)
    ft_per_unit = _ft_per_unit(crs)
    if crs is not None:
        code = insunits(crs)
        doc.header["$INSUNITS"] = code
        doc.header["$MEASUREMENT"] = MEASUREMENT[code]
    for lt, (desc, pattern) in linetypes().items():
        doc.linetypes.add(lt, pattern=[v / ft_per_unit for v in pattern], description=desc)
    doc.styles.add(TEXT_STYLE[0], font=TEXT_STYLE[1])
    doc.appids.add(APPID)
    for name, (aci, what) in ANNO_LAYERS.items():
        doc.layers.add(name, color=aci).description = what
    define_blocks(doc)
    return doc, ft_per_unit


def _one_crs(layers: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    crs = None
    for name, gdf in layers.items():
        if gdf is None or not len(gdf):
            continue
        if gdf.crs is None:
            raise CRSError(f"DXF export: layer {name!r} has no CRS")
        if crs is None:
            crs = gdf.crs
        elif not gdf.crs.equals(crs):
            layers = {**layers, name: gdf.to_crs(crs)}
    return layers, crs


def define_blocks(doc: Any) -> None:
    """The point symbols, one drawing unit in radius (inserted scaled to their size), drawn with lines and
    circles on layer 0 (so they take the inserting layer's colour) and plotted at any ``$PDMODE``; each
    block's ATTDEFs (invisible: the data, not a label) are its tags.
    """
    solid = {"layer": "0", "linetype": "CONTINUOUS"}
    shapes = block_shapes()
    tags = {**dict(POINT_BLOCKS.values()), **{b.name: b.tags for b in registry.blocks()}}
    for name, parts in shapes.items():
        blk = doc.blocks.new(name)
        for kind, arg in parts:
            if kind == "poly":
                blk.add_lwpolyline(arg, close=True, dxfattribs=solid)
            elif kind == "line":
                blk.add_line(*arg, dxfattribs=solid)
            else:
                blk.add_circle((0, 0), arg, dxfattribs=solid)
        for i, tag in enumerate(tags.get(name, ())):
            blk.add_attdef(
                tag.upper(), insert=(_ATT_X, -_ATT_DY * i), dxfattribs={**solid, "height": _ATT_H, "flags": 1}
            )


#: Where a block's attributes sit, in its units: right of the symbol, one under another.
_ATT_X, _ATT_DY, _ATT_H = 1.2, 0.3, 0.25


# ------------------------------------------------------------------------------------------- entities


def _bounds(items: Sequence[Item]) -> tuple[float, float, float, float]:
    """The extent of ``items`` (infinite when there are none)."""
    b = [it.geometry.bounds for it in items if not it.geometry.is_empty]
    if not b:
        return (math.inf, math.inf, -math.inf, -math.inf)
    return (min(x[0] for x in b), min(x[1] for x in b), max(x[2] for x in b), max(x[3] for x in b))


def _xdata(it: Item) -> list[tuple[int, str]]:
    """An item's attributes as XDATA strings, escaped for DXF (values may be the applicant's)."""
    return [(1000, dxf_text(f"{k}={v}")[:255]) for k, v in it.attrs]


def _draw(msp: Any, it: Item, upi: float, fpu: float) -> None:
    """One item's entities on its CAD layer: a block reference at each point (and at a polygon control's
    inside point), LWPOLYLINEs for lines and rings (a contour at its elevation); its attributes as XDATA.
    """
    doc = msp.doc
    look = it.look
    if look.layer not in doc.layers:
        doc.layers.add(look.layer, color=look.colour, linetype=look.linetype).description = look.description
    xdata = _xdata(it)
    g = it.geometry
    if it.block is not None:
        pts = (
            list(g.geoms)
            if g.geom_type == "MultiPoint"
            else [g]
            if g.geom_type == "Point"
            else [g.representative_point()]
        )
        for p in pts:
            _insert(msp, it, p, upi, xdata, sized="Point" in g.geom_type)
    if "Point" in g.geom_type:
        return
    elevation = None if it.elevation is None else it.elevation / fpu
    _polylines(msp, g, look.layer, elevation, xdata)


def _insert(msp: Any, it: Item, p: Any, upi: float, xdata: list, *, sized: bool) -> None:
    """A block reference of ``it`` at ``p`` with its ATTRIBs, at its footprint's size where it has one."""
    assert it.block is not None
    blk = it.block
    xs = ys = blk.symbol_in * upi
    if sized and blk.size is not None:
        xs, ys = blk.size
    layer = it.look.layer
    ref = msp.add_blockref(blk.name, (p.x, p.y), dxfattribs={"layer": layer, "xscale": xs, "yscale": ys})
    # where the block's ATTDEFs are (define_blocks), placed directly: ezdxf's autofill transforms each
    # definition, 3x the cost with hundreds of entry points
    for i, (tag, value) in enumerate(blk.values):
        ref.add_attrib(
            tag,
            dxf_text(value),
            (p.x + _ATT_X * xs, p.y - _ATT_DY * i * ys),
            dxfattribs={"layer": layer, "height": _ATT_H * ys, "flags": 1},
        )
    ref.set_xdata(APPID, xdata)


def _polylines(msp: Any, geom: Any, layer: str, elevation: float | None, xdata: list) -> None:
    """LWPOLYLINEs of a line or polygon (each part, each ring), on ``layer``."""
    import shapely

    attribs: dict[str, Any] = {"layer": layer}
    if elevation is not None:
        attribs["elevation"] = elevation
    for part in shapely.get_parts(geom):
        t = part.geom_type
        if t == "Polygon":
            rings = [(list(r.coords)[:-1], True) for r in (part.exterior, *part.interiors)]
        elif t in ("LineString", "LinearRing"):
            rings = [(list(part.coords), t == "LinearRing")]
        elif t == "GeometryCollection" or t.startswith("Multi"):
            _polylines(msp, part, layer, elevation, xdata)
            continue
        else:
            continue
        for coords, closed in rings:
            if len(coords) < 2:
                continue
            e = msp.add_lwpolyline([tuple(c[:2]) for c in coords], close=closed, dxfattribs=attribs)
            e.set_xdata(APPID, xdata)


def _natural(key: str) -> tuple[str, int]:
    """A feature's key in the order of its number (``control:9`` before ``control:10``)."""
    head, _, n = key.rpartition(":")
    return (head, int(n)) if n.isdigit() else (key, 0)


def _letter(msp: Any, lettering: Lettering) -> None:
    """A label's lines as TEXTs fitted between two points on the item's annotation layer (its XDATA: the
    item it names, and whence its place), and its leader as a LINE.
    """
    from ezdxf.enums import TextEntityAlignment

    it, lab = lettering.item, lettering.label
    c, s = math.cos(math.radians(lab.rotation_deg)), math.sin(math.radians(lab.rotation_deg))
    keys = ",".join(sorted(lettering.names or {it.key}, key=_natural))
    names = [(1000, dxf_text(f"names={keys}")[:255]), (1000, dxf_text(f"source={lettering.placed_by}"))]
    for line, w, off in zip(lab.text.split("\n"), lab.line_widths, lab.line_offsets, strict=False):
        if not line.strip() or w <= 0:
            continue
        a = (lab.x - w / 2 * c - off * s, lab.y - w / 2 * s + off * c)
        b = (lab.x + w / 2 * c - off * s, lab.y + w / 2 * s + off * c)
        t = msp.add_text(
            dxf_text(line),  # the label's lines are geosite's; the text in them may be the applicant's
            height=lab.height,
            rotation=lab.rotation_deg,
            dxfattribs={"layer": it.label_layer, "style": TEXT_STYLE[0]},
        )
        t.set_placement(a, b, align=TextEntityAlignment.FIT)
        t.set_xdata(APPID, names)
    if lab.leader is not None:
        x0, y0, x1, y1 = lab.leader
        msp.add_line((x0, y0), (x1, y1), dxfattribs={"layer": it.label_layer}).set_xdata(APPID, names)
