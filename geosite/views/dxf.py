"""DXF export for CAD: geosite's layers on named, coloured CAD layers, with the attributes kept.

Layer names follow the US National CAD Standard's pattern (discipline ``C`` civil, a major group, a
minor group): erosion and sediment control on ``C-ESCP-*``, topography on ``C-TOPO-*``, the property on
``C-PROP-*``, text on ``C-ANNO-*``; each filter fence kind on its own layer with its own linetype. The
tables are :data:`CAD_LAYERS`, :data:`ANNO_LAYERS` and :data:`CONTEXT_LAYERS` (documented in
docs/cad_layers.md); colours are AutoCAD colour indices (ACI).

What a CAD technician opens: coordinates in the layers' CRS units, ``$INSUNITS`` from that CRS (US
survey feet 21, feet 2, metres 6) and ``$MEASUREMENT`` agreeing (0 imperial for feet, 1 metric for
metres), ``$EXTMIN``/``$EXTMAX`` on the drawing's extent so it opens on the site, contours as
LWPOLYLINEs at their elevation, and every feature's attributes as XDATA of the application
``GEOSITE`` (one ``name=value`` string each). Point practices (inlet protection, sediment basins and
traps, upslope entry points) are block references (:data:`POINT_BLOCKS`): symbols of lines and circles
that plot at any ``$PDMODE``, their attributes as ATTRIBs, a basin or trap scaled to its footprint
where its size attributes give one (:data:`BASIN_SIZE_COLUMNS`). Labels are TEXT/MTEXT sized for the
plot scale (1 in = 100 ft unless told): index contour elevations on C-ANNO-TOPO, practice labels on
C-ANNO-ESCP, the site's road, structure, inlet and stream names on C-ANNO-IDEN. Written with ezdxf
(audited on read back by the tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geosite.errors import CRSError, OutputError
from geosite.practices import registry

#: DXF $INSUNITS codes by metres per CRS unit.
INSUNITS = {1200.0 / 3937.0: 21, 0.3048: 2, 1.0: 6}
#: $MEASUREMENT (0 imperial, 1 metric) for each $INSUNITS code.
MEASUREMENT = {21: 0, 2: 0, 6: 1}
APPID = "GEOSITE"

#: Linetypes of the site's own layers: name -> (description, pattern in drawing units: total, then dashes
#: (> 0), gaps (< 0) and dots (0)); lengths in feet, scaled to the CRS unit when written. The practices'
#: are their own (:func:`geosite.practices.registry.linetypes`).
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


#: the site's and the analysis' own layers (or ``layer:<value>``) -> (CAD layer, ACI colour, linetype, what
#: it holds); the practices' layers are theirs (:func:`geosite.practices.registry.cad_layers`).
BASE_LAYERS: dict[str, tuple[str, int, str, str]] = {
    "site_boundary": ("C-PROP-BNDY", 7, "PHANTOM", "site boundary (the parcel)"),
    "disturbed_area": (
        "C-ESCP-LIMT",
        30,
        "GS_LIMITS",
        "limits of land disturbance (union, clipped to the site)",
    ),
    "disturbance_phases": ("C-ESCP-PHAS", 40, "DASHED", "land disturbance by phase"),
    "steep_slopes": ("C-TOPO-STEP", 221, "CONTINUOUS", "slopes of 12 % or more (and 20 %)"),
    "contours": ("C-TOPO-MINR", 33, "CONTINUOUS", "existing contours (minor)"),
    "contours:index": ("C-TOPO-MAJR", 32, "CONTINUOUS", "existing index contours"),
    "channels": ("C-ESCP-DRNG", 150, "GS_DRAINAGE", "natural drainage paths from the DEM"),
    "upslope_areas": ("C-ESCP-UPSL", 1, "DASHDOT", "upslope drainage areas"),
    "upslope_entry_points": ("C-ESCP-UPSL-PNTS", 1, "CONTINUOUS", "where upslope drainage enters"),
}
#: A geosite layer not in the table: ``C-ESCP-`` and its name, white, continuous.
DEFAULT_LAYER = ("C-ESCP-{name}", 7, "CONTINUOUS", "geosite layer {name}")


def insunits(crs: Any) -> int:
    """The DXF ``$INSUNITS`` code for a projected CRS's linear unit."""
    from geosite.units import crs_linear_unit_metres

    m = crs_linear_unit_metres(crs, "DXF export")
    for metres, code in INSUNITS.items():
        if abs(m - metres) < 1e-9:
            return code
    raise CRSError(f"DXF export: no $INSUNITS code for a unit of {m} m; reproject to feet or metres")


def cad_layers() -> dict[str, tuple[str, int, str, str]]:
    """Every geosite layer's CAD look: the site's and the analysis' (:data:`BASE_LAYERS`) and the
    practices'.
    """
    return {
        **BASE_LAYERS,
        **{k: (c.layer, c.colour, c.linetype, c.description) for k, c in registry.cad_layers().items()},
    }


#: every layer's CAD look (the table the writer reads)
CAD_LAYERS = cad_layers()


def cad_layer(name: str, side: str | None = None) -> tuple[str, int, str, str]:
    """(CAD layer, ACI colour, linetype, description) for a geosite layer (and the value of the field its CAD
    look is chosen by: a fence's side).
    """
    key = f"{name}:{side}" if side else name
    if key in CAD_LAYERS:
        return CAD_LAYERS[key]
    if name in CAD_LAYERS:
        return CAD_LAYERS[name]
    cad, aci, lt, what = DEFAULT_LAYER
    return cad.format(name=name.upper().replace("_", "-")), aci, lt, what.format(name=name)


#: Annotation layers (National CAD Standard ``C-ANNO-*``): name -> (ACI colour, what it holds).
ANNO_LAYERS: dict[str, tuple[int, str]] = {
    "C-ANNO-TOPO": (32, "contour elevations (index contours)"),
    "C-ANNO-ESCP": (7, "erosion and sediment control practice labels"),
    "C-ANNO-IDEN": (7, "names of roads, structures, inlets and streams"),
}
#: The site's own layers drawn for context (clipped to the drawing's extent) and named on C-ANNO-IDEN.
CONTEXT_LAYERS: dict[str, tuple[str, int, str, str]] = {
    "roads": ("C-ROAD", 8, "CONTINUOUS", "roads and paving (from the site)"),
    "access_drives": ("C-ROAD-DRIV", 8, "DASHED", "access drives (from the site)"),
    "structures": ("C-BLDG", 7, "CONTINUOUS", "structures (from the site)"),
    "storm_inlets": ("C-STRM-STRC", 7, "CONTINUOUS", "storm drain inlets (from the site)"),
    "streams": ("C-TOPO-WATR", 150, "CONTINUOUS", "streams (from the site)"),
}
#: Context layers whose ``name`` is written (an access drive's would sit on its tracking pad's label).
NAMED_CONTEXT = ("roads", "structures", "storm_inlets", "streams")
#: Point layers drawn as blocks: geosite layer -> (block, ATTRIB tags from the layer's columns): the site's
#: own, and each practice layer that names a block (its tags are its block's).
POINT_BLOCKS: dict[str, tuple[str, tuple[str, ...]]] = {
    # hundreds on a site (a cell apart): the two numbers a reader wants; the rest is in the XDATA
    "upslope_entry_points": ("GS_UPSLOPE_ENTRY", ("contrib_area_sqft", "flow_length_ft")),
    "storm_inlets": ("GS_STORM_INLET", ("id", "name")),
    **{
        layer.name: (layer.block, next(b.tags for b in registry.blocks() if b.name == layer.block))
        for p in registry.PRACTICES
        for layer in p.layers
        if layer.block
    },
}
#: The symbol of a point layer not in :data:`POINT_BLOCKS`.
GENERIC_BLOCK = "GS_POINT"
#: Sizes on paper (inches; times the drawing scale's feet per inch on the ground): a point practice's
#: symbol (radius), label text heights, how far a label sits off its symbol.
PAPER_IN = {"symbol": 0.06, "text": 0.08, "contour_text": 0.07, "gap": 0.03}
#: Point layers whose symbol is smaller (radius, paper inches): upslope entry points lie a cell apart.
SYMBOL_IN = {"upslope_entry_points": 0.025}
#: An index contour's elevations: one label on each piece at least ``first`` inches long on paper, then
#: one every ``every`` inches (the sheets' spacing, geosite.maps.symbology.LABELS).
CONTOUR_LABEL_IN = {"first": 0.75, "every": 5.0}
#: Basin and trap footprints from the layer's size attributes (feet): an area (a circle of that area),
#: a diameter, or a length and width (an axis-aligned rectangle).
BASIN_SIZE_COLUMNS = ("footprint_sqft", "diameter_ft", ("length_ft", "width_ft"))


def write_dxf(
    layers: dict[str, Any],
    path: str | Path,
    point_radius: float | None = None,
    *,
    context: dict[str, Any] | None = None,
    scale_ft: float = 100.0,
) -> Path:
    """Write geosite's layers to one DXF file (see the module notes).

    Parameters
    ----------
    layers : dict of str to GeoDataFrame
        Geosite layer name -> GeoDataFrame, all in one projected CRS (others are reprojected to the
        first's). Lines and polygon rings become LWPOLYLINEs; points become block references
        (:data:`POINT_BLOCKS`) with their attributes as ATTRIBs; every entity carries its feature's
        attributes as XDATA.
    path : str or Path
        The DXF file to write.
    point_radius : float, optional
        The radius (CRS units) of a point layer without a block of its own: a CIRCLE (None: the generic
        block at the symbol size).
    context : dict of str to GeoDataFrame, optional
        The site's layers; those in :data:`CONTEXT_LAYERS` are drawn within the drawing's extent and their
        ``name`` written on C-ANNO-IDEN.
    scale_ft : float
        The plot scale the symbols and texts are sized for, in feet on the ground per inch on paper
        (:func:`geosite.pipeline.write_outputs` passes the maps'). The default, 100, is geosite's choice,
        not the ordinance's: a drawing size for CAD, which rescales text at will.

    Returns
    -------
    Path
        The path written.
    """
    layers, crs = _one_crs(layers)
    doc, ft_per_unit = _new_document(crs)
    d = _Drawing(doc.modelspace(), scale_ft / ft_per_unit, ft_per_unit, point_radius)
    for name, gdf in layers.items():
        if gdf is not None:
            d.layer(name, gdf)
    box = list(d.bounds)  # the derived layers' extent: the context is clipped to it, the drawing opens on it
    if context and math.isfinite(box[0]):
        for name, gdf in context.items():
            if name in CONTEXT_LAYERS and gdf is not None and len(gdf):
                d.context(name, gdf.to_crs(crs) if crs is not None and not gdf.crs.equals(crs) else gdf, box)
    d.place_labels()
    if math.isfinite(box[0]):
        # ezdxf writes the header's $EXTMIN/$EXTMAX from the modelspace layout's on save
        msp = doc.modelspace()
        msp.dxf.extmin = (box[0], box[1], 0.0)
        msp.dxf.extmax = (box[2], box[3], 0.0)
        doc.set_modelspace_vport(
            height=(box[3] - box[1]) * 1.1, center=((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        )
    out = Path(path)
    try:
        doc.saveas(out)
    except OSError as exc:
        raise OutputError(f"{out}: cannot write the DXF ({exc})") from exc
    return out


def _new_document(crs: Any) -> tuple[Any, float]:
    """An empty drawing with geosite's header, linetypes, annotation layers and blocks, and the feet in
    one of its units: heights (``elevation_ft``), linetype lengths and paper sizes are in feet, the CRS
    unit on a foot CRS (US survey or international), international feet on a metre CRS.
    """
    import ezdxf

    doc = ezdxf.new("R2010", setup=True)
    code = insunits(crs) if crs is not None else None
    ft_per_unit = 1.0
    if code is not None:
        doc.header["$INSUNITS"] = code
        doc.header["$MEASUREMENT"] = MEASUREMENT[code]
        ft_per_unit = 1.0 / 0.3048 if code == 6 else 1.0
    for lt, (desc, pattern) in linetypes().items():
        doc.linetypes.add(lt, pattern=[v / ft_per_unit for v in pattern], description=desc)
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
    """The point practices' symbols, one drawing unit in radius (inserted scaled to their size), drawn
    with lines and circles on layer 0 (so they take the inserting layer's colour) and plotted at any
    ``$PDMODE``; each block's ATTDEFs (invisible: the data, not a label) are its tags.
    """
    solid = {"layer": "0", "linetype": "CONTINUOUS"}
    shapes: dict[str, list[tuple[str, Any]]] = {
        **{b.name: list(b.shapes) for b in registry.blocks()},
        # a triangle pointing down the slope, its tail up it (the sheets' red triangle)
        "GS_UPSLOPE_ENTRY": [
            ("poly", [(-0.87, 0.5), (0.87, 0.5), (0.0, -1.0)]),
            ("line", ((0.0, 0.5), (0.0, 1.3))),
        ],
        "GS_STORM_INLET": [
            ("poly", [(-0.7, -0.7), (0.7, -0.7), (0.7, 0.7), (-0.7, 0.7)]),
            ("line", ((-0.7, 0.0), (0.7, 0.0))),
            ("line", ((0.0, -0.7), (0.0, 0.7))),
        ],
        GENERIC_BLOCK: [
            ("circle", 1.0),
            ("line", ((-1.0, 0.0), (1.0, 0.0))),
            ("line", ((0.0, -1.0), (0.0, 1.0))),
        ],
    }
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


class _Drawing:
    """The modelspace being written: entities, blocks and labels at the plot scale."""

    def __init__(self, msp: Any, units_per_in: float, ft_per_unit: float, point_radius: float | None) -> None:
        self.msp = msp
        self.upi = units_per_in  # drawing units per paper inch
        self.fpu = ft_per_unit
        self.point_radius = point_radius
        self.bounds = [math.inf, math.inf, -math.inf, -math.inf]
        self.labels: list[_Label] = []

    def layer(self, name: str, gdf: Any) -> None:
        """One geosite layer: its CAD layers, entities and labels."""
        doc = self.msp.doc
        sides = None
        spec = registry.output_layer(name)
        if spec is not None and spec.cad_field and spec.cad_field in gdf.columns:
            sides = gdf[spec.cad_field].astype(str)
        elif name == "contours" and "index" in gdf.columns:
            sides = gdf["index"].map(lambda v: "index" if bool(v) else "")
        for key in set(sides) if sides is not None else {None}:
            cad, aci, lt, what = cad_layer(name, key or None)
            if cad not in doc.layers:
                doc.layers.add(cad, color=aci, linetype=lt).description = what
        attrs = [c for c in gdf.columns if c != gdf.geometry.name]
        for i, geom in enumerate(gdf.geometry.values):
            if geom is None or geom.is_empty:
                continue
            row = gdf.iloc[i]
            side = (sides.iloc[i] or None) if sides is not None else None
            cad = cad_layer(name, side)[0]
            xdata = [(1000, f"geosite_layer={name}")] + [(1000, f"{c}={_text(row[c])}"[:255]) for c in attrs]
            elevation = None
            if name == "contours" and "elevation_ft" in gdf.columns:
                elevation = float(row["elevation_ft"]) / self.fpu
            self.feature(name, geom, row, cad=cad, elevation=elevation, xdata=xdata)
            self._grow(geom.bounds)
            if name == "contours" and side == "index" and elevation is not None:
                self.contour_labels(geom, f"{float(row['elevation_ft']):g}")
            else:
                self.practice_label(name, geom, row)

    def _grow(self, b: tuple[float, float, float, float]) -> None:
        self.bounds[:] = [
            min(self.bounds[0], b[0]),
            min(self.bounds[1], b[1]),
            max(self.bounds[2], b[2]),
            max(self.bounds[3], b[3]),
        ]

    def feature(
        self, name: str, geom: Any, row: Any, *, cad: str, elevation: float | None, xdata: list
    ) -> None:
        """A feature's entities: a block reference for a point, else LWPOLYLINEs (and, for a basin drawn
        as a polygon, its block at the representative point).
        """
        if geom.geom_type in ("Point", "MultiPoint"):
            for p in getattr(geom, "geoms", [geom]):
                self.point(name, p, row, cad, xdata)
            return
        _add(self.msp, geom, cad, radius=None, elevation=elevation, xdata=xdata)
        if name in POINT_BLOCKS:
            self.point(name, geom.representative_point(), row, cad, xdata, footprint=False)

    def point(self, name: str, p: Any, row: Any, cad: str, xdata: list, *, footprint: bool = True) -> None:
        """A block reference at ``p`` with its ATTRIBs (the tags the layer has), scaled to the basin's
        footprint where its size is known, else to the symbol size.
        """
        symbol = SYMBOL_IN.get(name, PAPER_IN["symbol"]) * self.upi
        block, tags = POINT_BLOCKS.get(name, (GENERIC_BLOCK, ()))
        if name not in POINT_BLOCKS and self.point_radius:
            self.msp.add_circle((p.x, p.y), self.point_radius, dxfattribs={"layer": cad}).set_xdata(
                APPID, xdata
            )
            return
        xs = ys = symbol
        size_text = ""
        spec = registry.output_layer(name)
        if spec is not None and spec.sized and footprint:
            size = basin_size_ft(row)
            if size is not None:
                block = f"{block}_RECT" if size[0] == "rect" else block
                xs, ys = size[1] / self.fpu, size[2] / self.fpu
                size_text = size[3]
        ref = self.msp.add_blockref(block, (p.x, p.y), dxfattribs={"layer": cad, "xscale": xs, "yscale": ys})
        values = {t.upper(): _text(_get(row, t)) for t in tags}
        if "size" in tags:
            values["SIZE"] = size_text or "not sized: symbol only"
        # where the block's ATTDEFs are (define_blocks), placed directly: ezdxf's autofill transforms
        # each definition, 3x the cost with hundreds of entry points
        for i, (tag, value) in enumerate(values.items()):
            ref.add_attrib(
                tag,
                value,
                (p.x + _ATT_X * xs, p.y - _ATT_DY * i * ys),
                dxfattribs={"layer": cad, "height": _ATT_H * ys, "flags": 1},
            )
        ref.set_xdata(APPID, xdata)
        r = max(xs, ys)
        self._grow((p.x - r, p.y - r, p.x + r, p.y + r))

    def label(
        self,
        layer: str,
        s: str,
        spots: list[tuple[tuple[float, float], float, str]],
        *,
        priority: int,
        height_in: float | None = None,
        required: bool = True,
    ) -> None:
        """Queue a label: the places it may go, best first, as (point, angle in degrees, alignment)."""
        if s and spots:
            self.labels.append(_Label(priority, layer, s, height_in or PAPER_IN["text"], spots, required))

    def place_labels(self) -> None:
        """Write the queued labels, most important first, each at its first place whose box meets no
        label already placed; a required label with no free place goes at its first (CAD moves it).
        """
        placed: list[tuple[float, float, float, float]] = []
        for lab in sorted(self.labels, key=lambda x: x.priority):
            h = lab.height_in * self.upi
            choice = None
            for at, angle, align in lab.spots:
                box = _text_box(lab.text, at, h, angle, align)
                if not any(
                    box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed
                ):
                    choice = (at, angle, align, box)
                    break
            if choice is None and lab.required:
                at, angle, align = lab.spots[0]
                choice = (at, angle, align, _text_box(lab.text, at, h, angle, align))
            if choice is not None:
                placed.append(choice[3])
                self.text(lab.layer, lab.text, choice[0], height=h, angle=choice[1], align=choice[2])

    def text(
        self,
        layer: str,
        s: str,
        at: tuple[float, float],
        *,
        height: float,
        angle: float = 0.0,
        align: str = "MIDDLE_CENTER",
    ) -> None:
        """A TEXT (MTEXT when it has several lines) on an annotation layer, ``height`` in drawing units."""
        from ezdxf.enums import TextEntityAlignment

        if "\n" in s:
            self.msp.add_mtext(
                s.replace("\n", "\\P"),
                dxfattribs={
                    "layer": layer,
                    "char_height": height,
                    "insert": at,
                    "rotation": angle,
                    "attachment_point": _MTEXT_ATTACH[align],
                },
            )
            return
        t = self.msp.add_text(s, height=height, rotation=angle, dxfattribs={"layer": layer})
        t.set_placement(at, align=TextEntityAlignment[align])

    def contour_labels(self, geom: Any, text: str) -> None:
        """An index contour's elevation along each piece long enough on paper, upright: the first on a
        piece always, the others where they find room within an inch of their station.
        """
        first, every = CONTOUR_LABEL_IN["first"] * self.upi, CONTOUR_LABEL_IN["every"] * self.upi
        for part in getattr(geom, "geoms", [geom]):
            n = part.length
            if n < first:
                continue
            stations = (
                [n / 2]
                if n < every
                else [every / 2 + k * every for k in range(int((n - every / 2) // every) + 1)]
            )
            for k, d in enumerate(stations):
                tries = [min(max(d + f * self.upi, 0.0), n) for f in (0.0, 0.5, -0.5, 1.0, -1.0)]
                self.label(
                    "C-ANNO-TOPO",
                    text,
                    [(*_along(part, t), "MIDDLE_CENTER") for t in tries],
                    priority=40,
                    height_in=PAPER_IN["contour_text"],
                    required=k == 0,
                )

    def point_spots(
        self, p: Any, r: float, above_first: bool = False
    ) -> list[tuple[tuple[float, float], float, str]]:
        """Places beside a symbol of radius ``r``: right, left, below, above (above first for a name)."""
        g = r + PAPER_IN["gap"] * self.upi
        right, left = ((p.x + g, p.y), 0.0, "MIDDLE_LEFT"), ((p.x - g, p.y), 0.0, "MIDDLE_RIGHT")
        below, above = ((p.x, p.y - g), 0.0, "TOP_CENTER"), ((p.x, p.y + g), 0.0, "BOTTOM_CENTER")
        return [above, below, left, right] if above_first else [right, left, below, above]

    def practice_label(self, name: str, geom: Any, row: Any) -> None:
        """The label of a practice (or upslope area) on C-ANNO-ESCP: beside a point's symbol, along a
        line long enough on paper (where it finds room), inside a polygon.
        """
        s = practice_text(name, row)
        if not s:
            return
        if geom.geom_type in ("Point", "MultiPoint"):
            p = geom if geom.geom_type == "Point" else geom.geoms[0]
            spec = registry.output_layer(name)
            size = basin_size_ft(row) if spec is not None and spec.sized else None
            r = (
                max(size[1], size[2]) / self.fpu
                if size
                else SYMBOL_IN.get(name, PAPER_IN["symbol"]) * self.upi
            )
            self.label("C-ANNO-ESCP", s, self.point_spots(p, r), priority=10)
        elif geom.geom_type in ("LineString", "MultiLineString"):
            part = max(getattr(geom, "geoms", [geom]), key=lambda g: g.length)
            if part.length >= 1.0 * self.upi:
                spots = [
                    (*_along(part, f * part.length), "MIDDLE_CENTER") for f in (0.5, 0.35, 0.65, 0.2, 0.8)
                ]
                self.label("C-ANNO-ESCP", s, spots, priority=50, required=False)
        else:
            self.label("C-ANNO-ESCP", s, self.inside_spots(geom), priority=30)

    def context(self, name: str, gdf: Any, box: list[float]) -> None:
        """A site layer within the drawing's extent on its CAD layer, its names on C-ANNO-IDEN."""
        import shapely

        cad, aci, lt, what = CONTEXT_LAYERS[name]
        doc = self.msp.doc
        if cad not in doc.layers:
            doc.layers.add(cad, color=aci, linetype=lt).description = what
        frame = shapely.box(*box)
        for i, geom in enumerate(gdf.geometry.values):
            if geom is None or geom.is_empty or not geom.intersects(frame):
                continue
            row = gdf.iloc[i]
            xdata = [(1000, f"geosite_layer={name}")] + [
                (1000, f"{c}={_text(row[c])}"[:255]) for c in gdf.columns if c != gdf.geometry.name
            ]
            clipped = geom if geom.geom_type in ("Point", "MultiPoint") else geom.intersection(frame)
            self.feature(name, clipped, row, cad=cad, elevation=None, xdata=xdata)
            label = _text(_get(row, "name")) if name in NAMED_CONTEXT else ""
            if label and not clipped.is_empty:
                self.label("C-ANNO-IDEN", label, self.name_spots(clipped), priority=20)

    def name_spots(self, geom: Any) -> list[tuple[tuple[float, float], float, str]]:
        """Places for a feature's name: above or below an inlet (a practice's label is beside it), along
        a road or stream, inside a structure.
        """
        if geom.geom_type in ("Point", "MultiPoint"):
            p = geom if geom.geom_type == "Point" else geom.geoms[0]
            return self.point_spots(p, PAPER_IN["symbol"] * self.upi, above_first=True)
        if geom.geom_type in ("LineString", "MultiLineString"):
            part = max(getattr(geom, "geoms", [geom]), key=lambda g: g.length)
            return [(*_along(part, f * part.length), "MIDDLE_CENTER") for f in (0.5, 0.3, 0.7)]
        return self.inside_spots(geom)

    def inside_spots(self, geom: Any) -> list[tuple[tuple[float, float], float, str]]:
        """Places in a polygon: its representative point, then up and down from it by one and two
        label heights and a half.
        """
        p = geom.representative_point()
        step = 1.5 * PAPER_IN["text"] * self.upi
        return [((p.x, p.y + k * step), 0.0, "MIDDLE_CENTER") for k in (0, 1, -1, 2, -2)]


@dataclass
class _Label:
    priority: int
    layer: str
    text: str
    height_in: float
    spots: list[tuple[tuple[float, float], float, str]]
    required: bool


#: MTEXT attachment points of the TEXT alignments used.
_MTEXT_ATTACH = {"MIDDLE_CENTER": 5, "MIDDLE_LEFT": 4, "MIDDLE_RIGHT": 6, "TOP_CENTER": 2, "BOTTOM_CENTER": 8}
#: A character's width and an MTEXT line's pitch, in text heights (an estimate for the standard font).
_CHAR_W, _LINE_PITCH = 0.65, 1.67


def _text_box(
    s: str, at: tuple[float, float], h: float, angle: float, align: str
) -> tuple[float, float, float, float]:
    """The axis-aligned box round a text's estimated outline (drawing units)."""
    lines = s.split("\n")
    w = max(len(line) for line in lines) * _CHAR_W * h
    ht = h + (len(lines) - 1) * _LINE_PITCH * h
    xs = {"MIDDLE_LEFT": (0.0, w), "MIDDLE_RIGHT": (-w, 0.0)}.get(align, (-w / 2, w / 2))
    ys = {"TOP_CENTER": (-ht, 0.0), "BOTTOM_CENTER": (0.0, ht)}.get(align, (-ht / 2, ht / 2))
    c, sn = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    pts = [(at[0] + x * c - y * sn, at[1] + x * sn + y * c) for x in xs for y in ys]
    return (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))


def basin_size_ft(row: Any) -> tuple[str, float, float, str] | None:
    """A basin's or trap's footprint from its size attributes.

    Parameters
    ----------
    row : pandas.Series
        The feature's attributes: ``footprint_sqft`` (sq ft), ``diameter_ft`` (ft), or ``length_ft`` and
        ``width_ft`` (ft), the first given (:data:`BASIN_SIZE_COLUMNS`).

    Returns
    -------
    tuple of (str, float, float, str) or None
        (``circle``, radius ft, radius ft, text) or (``rect``, length ft, width ft, text); None where the
        row gives no size.
    """
    area, dia = _num(_get(row, "footprint_sqft")), _num(_get(row, "diameter_ft"))
    length, width = _num(_get(row, "length_ft")), _num(_get(row, "width_ft"))
    if area and area > 0:
        r = math.sqrt(area / math.pi)
        return "circle", r, r, f"{area:,.0f} sq ft footprint"
    if dia and dia > 0:
        return "circle", dia / 2, dia / 2, f"{dia:g} ft diameter"
    if length and width and length > 0 and width > 0:
        return "rect", length, width, f"{length:g} x {width:g} ft"
    return None


def practice_text(name: str, row: Any) -> str:
    """The label of a feature in CAD (capitals, as CAD notes are lettered): what it is and its numbers.

    Parameters
    ----------
    name : str
        The layer's name (a practice's, or ``upslope_areas``).
    row : pandas.Series
        The feature's attributes.

    Returns
    -------
    str
        The label, lines joined by newlines; empty for a feature that is not labelled.
    """
    if name == "upslope_areas":
        return _upslope_text(row)
    spec = registry.output_layer(name)
    if spec is None or spec.label is None:
        return ""
    text = str(spec.label(_Row(row)))
    size = basin_size_ft(row) if spec.sized else None
    if size and text:
        head, _, rest = text.partition("\n")
        text = "\n".join(t for t in (head, size[3].upper(), rest) if t)
    return text


class _Row(dict):
    """A feature's attributes read by a practice's label: ``row.get(name)``, missing values as None."""

    def __init__(self, row: Any) -> None:
        super().__init__(
            {k: (None if _num(v) is None and isinstance(v, float) else v) for k, v in row.items()}
        )


def _upslope_text(row: Any) -> str:
    """An upslope area's label, with its acres."""
    from geosite.units import SQFT_PER_ACRE

    a = _num(_get(row, "area_sqft"))
    return f"UPSLOPE AREA {a / SQFT_PER_ACRE:.2f} AC" if a else "UPSLOPE AREA"


def _along(line: Any, d: float) -> tuple[tuple[float, float], float]:
    """The point ``d`` along a line and the line's direction there (degrees), turned to read upright."""
    p = line.interpolate(d)
    a, b = line.interpolate(max(d - 0.5, 0.0)), line.interpolate(min(d + 0.5, line.length))
    angle = math.degrees(math.atan2(b.y - a.y, b.x - a.x))
    if angle > 90:
        angle -= 180
    elif angle <= -90:
        angle += 180
    return (p.x, p.y), angle


def _get(row: Any, col: str) -> Any:
    return row[col] if col in row.index else None


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _text(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _add(
    msp: Any, geom: Any, layer: str, *, radius: float | None, elevation: float | None, xdata: list
) -> None:
    if geom is None or geom.is_empty:
        return
    t = geom.geom_type
    attribs: dict[str, Any] = {"layer": layer}
    if elevation is not None:
        attribs["elevation"] = elevation
    if t.startswith("Multi") or t == "GeometryCollection":
        for g in geom.geoms:
            _add(msp, g, layer, radius=radius, elevation=elevation, xdata=xdata)
        return
    if t == "Point":
        e = (
            msp.add_circle((geom.x, geom.y), radius, dxfattribs=attribs)
            if radius
            else msp.add_point((geom.x, geom.y), dxfattribs=attribs)
        )
        e.set_xdata(APPID, xdata)
    elif t in ("LineString", "LinearRing"):
        e = msp.add_lwpolyline(
            [tuple(c[:2]) for c in geom.coords], close=t == "LinearRing", dxfattribs=attribs
        )
        e.set_xdata(APPID, xdata)
    elif t == "Polygon":
        for ring in [geom.exterior, *geom.interiors]:
            e = msp.add_lwpolyline(
                [tuple(c[:2]) for c in list(ring.coords)[:-1]], close=True, dxfattribs=attribs
            )
            e.set_xdata(APPID, xdata)
