"""What the DXF draws, as items, and the looks it draws them with: the analysis' layers and the site's
layers the sheets show (boundary, roads, drives, structures, inlets, streams, lakes, channels, wetlands,
floodplain, utilities); the plan's controls, phases and stockpiles are made items in
:mod:`geosite.views.cad_plan`.

An :class:`Item` is one feature as CAD gets it: its geometry (site CRS), its CAD layer (:class:`CadLook`),
its attributes as text rounded to what was measured (:func:`cad_text`), the block a point is drawn as, the
label CAD letters for it and whether labels keep clear of it. :func:`layer_items` makes the items of any
one layer (:func:`geosite.views.dxf.write_layers_dxf`).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shapely

from geosite.practices import registry
from geosite.symbols import CadLook

if TYPE_CHECKING:
    from geosite.plan import Plan


# --------------------------------------------------------------------------------------------- tables

#: The analysis' own layers (or ``layer:<value>`` by :data:`BY_FIELD`); the practices' are theirs
#: (:func:`geosite.practices.registry.cad_layers`).
ANALYSIS_LAYERS: dict[str, CadLook] = {
    "site_boundary": CadLook("C-PROP-BNDY", 7, "PHANTOM", "site boundary (the parcel)"),
    "disturbed_area": CadLook(
        "C-ESCP-LIMT", 30, "GS_LIMITS", "limits of land disturbance (union, clipped to the site)"
    ),
    "disturbance_phases": CadLook(
        "C-ESCP-PHAS", 40, "DASHED", "land disturbance by phase (XDATA and label: start, end, stabilized)"
    ),
    "stockpiles": CadLook("C-ESCP-STKP", 38, "CONTINUOUS", "soil stockpiles (footprints)"),
    "steep_slopes": CadLook("C-TOPO-STEP", 221, "CONTINUOUS", "slopes of 12 % or more (and 20 %)"),
    "contours": CadLook("C-TOPO-MINR", 33, "CONTINUOUS", "existing contours (minor)"),
    "contours:index": CadLook("C-TOPO-MAJR", 32, "CONTINUOUS", "existing index contours"),
    "channels": CadLook("C-ESCP-DRNG", 150, "GS_DRAINAGE", "natural drainage paths from the DEM"),
    "upslope_areas": CadLook("C-ESCP-UPSL", 1, "DASHDOT", "upslope drainage areas"),
    "upslope_entry_points": CadLook("C-ESCP-UPSL-PNTS", 1, "CONTINUOUS", "where upslope drainage enters"),
}
#: The site's own layers the sheets show (``layer:<value>`` by :data:`BY_FIELD`): drawn within the drawing's
#: extent (clipped to it).
SITE_LAYERS: dict[str, CadLook] = {
    "site_boundary": ANALYSIS_LAYERS["site_boundary"],
    "roads": CadLook("C-ROAD", 8, "CONTINUOUS", "roads and paving (from the site)"),
    "access_drives": CadLook("C-ROAD-DRIV", 8, "DASHED", "access drives (from the site)"),
    "structures": CadLook("C-BLDG", 7, "CONTINUOUS", "structures (from the site)"),
    "storm_inlets": CadLook("C-STRM-STRC", 7, "CONTINUOUS", "storm drain inlets (from the site)"),
    "streams": CadLook("C-TOPO-WATR", 150, "CONTINUOUS", "streams (from the site)"),
    "lakes": CadLook("C-TOPO-LAKE", 150, "CONTINUOUS", "lakes and ponds (from the site)"),
    "channels": CadLook("C-TOPO-CHNL", 150, "DASHED", "drainage channels and swales (from the site)"),
    "wetlands": CadLook("C-TOPO-WETL", 94, "CONTINUOUS", "wetlands (from the site)"),
    "floodplain": CadLook("C-TOPO-FLOD", 140, "DASHED", "floodplain (from the site)"),
    "floodplain:floodway": CadLook("C-TOPO-FLOD-FWAY", 140, "DASHED", "floodway (from the site)"),
    "floodplain:fringe": CadLook("C-TOPO-FLOD-FRNG", 141, "DASHED", "flood fringe (from the site)"),
    "floodplain:flood_fringe": CadLook("C-TOPO-FLOD-FRNG", 141, "DASHED", "flood fringe (from the site)"),
    "utilities": CadLook("C-UTIL-MISC", 7, "CONTINUOUS", "utilities, kind not given (from the site)"),
    "utilities:water": CadLook("C-UTIL-WATR", 5, "CONTINUOUS", "water mains and services (from the site)"),
    "utilities:sanitary": CadLook("C-UTIL-SSWR", 3, "CONTINUOUS", "sanitary sewers (from the site)"),
    "utilities:storm": CadLook("C-UTIL-STRM", 4, "CONTINUOUS", "storm sewers (from the site)"),
    "utilities:gas": CadLook("C-UTIL-NGAS", 2, "CONTINUOUS", "gas mains (from the site)"),
    "utilities:electric": CadLook("C-UTIL-POWR", 1, "CONTINUOUS", "electric lines (from the site)"),
    "utilities:telecom": CadLook("C-UTIL-COMM", 6, "CONTINUOUS", "telecommunication lines (from the site)"),
}
#: The field whose value picks a layer's look (``layer:<value>``), for the layers looked up by it.
BY_FIELD = {"floodplain": "zone", "utilities": "kind"}
#: A site feature whose ``status`` is one of these is new work: its layer's name gains :data:`NEW_SUFFIX`.
NEW_STATUSES = ("new", "proposed")
NEW_SUFFIX = "-NEWW"
#: A geosite layer in no table: ``C-ESCP-`` and its name, white, continuous.
DEFAULT_LAYER = ("C-ESCP-{name}", 7, "CONTINUOUS", "geosite layer {name}")
#: The sheets' label kinds (which a sheet's placed label says it names) of each site and analysis layer;
#: controls are ``control``, piles ``stockpile``, phases ``phase``.
LABEL_KINDS = {
    "roads": "road",
    "structures": "structure",
    "storm_inlets": "inlet",
    "streams": "water",
    "lakes": "water",
    "channels": "water",
    "wetlands": "water",
    "utilities": "utility",
    "floodplain": "floodplain",
    "contours": "contour",
    "upslope_areas": "upslope",
}
#: The layers whose ``name`` the DXF letters itself on C-ANNO-IDEN where no sheet label names them (an access
#: drive's would sit on its tracking pad's label).
NAMED = ("roads", "structures", "storm_inlets", "streams")
#: What labels keep clear of: ``footprint`` the symbol as drawn (a line, a filled area, a point's block),
#: ``edge`` an area's outline only (its ground may hold labels). Controls: their lines and blocks, their
#: areas' outlines. As the sheets do (geosite.maps.symbology.KEEP_CLEAR).
CLEAR = {
    "site_boundary": "edge",
    "stockpiles": "footprint",
    "structures": "footprint",
    "storm_inlets": "footprint",
    "streams": "footprint",
    "lakes": "footprint",
    "channels": "footprint",
    "wetlands": "footprint",
}
#: Label priorities, lower placed first: points (their label is beside them or nowhere), names, piles and
#: phases, controls, contours.
PRIORITY = {"point": 10, "name": 20, "stockpile": 25, "phase": 30, "control": 35, "line": 50, "contour": 70}
#: Point layers drawn as blocks (block, ATTRIB tags from the layer's columns): the site's and the analysis'
#: own, and each practice layer that names a block (its tags are its block's).
POINT_BLOCKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "upslope_entry_points": ("GS_UPSLOPE_ENTRY", ("contrib_area_sqft", "flow_length_ft")),
    "storm_inlets": ("GS_STORM_INLET", ("id", "name")),
    **{
        layer.name: (layer.block, next(b.tags for b in registry.blocks() if b.name == layer.block))
        for p in registry.PRACTICES
        for layer in p.layers
        if layer.block
    },
}
#: The symbol of a point without a block of its own.
GENERIC_BLOCK = "GS_POINT"
#: The site's and the analysis' own point symbols (the practices' are theirs,
#: :func:`geosite.practices.registry.blocks`), one unit in radius: shapes as :class:`geosite.symbols.Block`.
BASE_BLOCKS: dict[str, tuple[tuple[str, Any], ...]] = {
    # a triangle pointing down the slope, its tail up it (the sheets' red triangle)
    "GS_UPSLOPE_ENTRY": (
        ("poly", [(-0.87, 0.5), (0.87, 0.5), (0.0, -1.0)]),
        ("line", ((0.0, 0.5), (0.0, 1.3))),
    ),
    "GS_STORM_INLET": (
        ("poly", [(-0.7, -0.7), (0.7, -0.7), (0.7, 0.7), (-0.7, 0.7)]),
        ("line", ((-0.7, 0.0), (0.7, 0.0))),
        ("line", ((0.0, -0.7), (0.0, 0.7))),
    ),
    GENERIC_BLOCK: (
        ("circle", 1.0),
        ("line", ((-1.0, 0.0), (1.0, 0.0))),
        ("line", ((0.0, -1.0), (0.0, 1.0))),
    ),
}


def block_shapes() -> dict[str, tuple[tuple[str, Any], ...]]:
    """Every block the DXF defines, by name: its shapes (one unit in radius)."""
    return {**{b.name: tuple(b.shapes) for b in registry.blocks()}, **BASE_BLOCKS}


def block_outline(name: str) -> Any:
    """The outline a block's shapes draw (their convex hull, one unit in radius): what text keeps clear of."""
    parts = []
    for kind, arg in block_shapes().get(name, BASE_BLOCKS[GENERIC_BLOCK]):
        if kind == "circle":
            parts.append(shapely.Point(0.0, 0.0).buffer(float(arg), 16))
        elif kind == "poly":
            parts.append(shapely.Polygon(arg))
        else:
            parts.append(shapely.LineString(arg))
    return shapely.union_all(parts).convex_hull


#: A point symbol's radius on paper, inches (times the plot scale's feet per inch); upslope entry points
#: lie a cell apart and are drawn smaller.
SYMBOL_IN = {"": 0.06, "upslope_entry_points": 0.025}
#: A basin's or trap's footprint from its size attributes (feet): an area (a circle of that area: the
#: layer's footprint or a trap's DNR 1063 surface), a diameter, or a length and width (a rectangle).
BASIN_SIZE_COLUMNS = ("footprint_sqft", "surface_sqft", "diameter_ft", ("length_ft", "width_ft"))
#: Decimals a control's pay quantity shows in its label, by pay unit (whole feet, square yards and each;
#: acres to 0.01; cubic yards and tons to 0.1).
PAY_DECIMALS = {"AC": 2, "CY": 1, "TON": 1}
#: Decimals an attribute keeps, by its name's unit suffix: what was measured (lengths to 0.1 ft, areas to
#: 1 sq ft, acres to 0.01, volumes to 0.1 cu yd, percentages and degrees to 0.1). Other numbers keep 2
#: decimals at most.
DECIMALS = {"_sqft": 0, "_acres": 2, "_ac": 2, "_ft": 1, "_cy": 1, "_pct": 1, "_deg": 1, "_in": 2, "days": 0}


def cad_look(table: Mapping[str, CadLook], name: str, value: Any = None) -> CadLook:
    """The look of layer ``name`` in ``table`` for the value of its :data:`BY_FIELD` field (the layer's
    own look otherwise; :data:`DEFAULT_LAYER` for a layer in no table).
    """
    if value is not None and f"{name}:{value}" in table:
        return table[f"{name}:{value}"]
    if name in table:
        return table[name]
    spec = registry.output_layer(name)
    if spec is not None:
        return spec.cad_look(value)
    cad, aci, lt, what = DEFAULT_LAYER
    return CadLook(cad.format(name=name.upper().replace("_", "-")), aci, lt, what.format(name=name))


# --------------------------------------------------------------------------------------------- values


def cad_text(name: str, value: Any) -> str:
    """An attribute as CAD gets it: a number rounded to what was measured (:data:`DECIMALS` by the unit its
    name ends in: ``length_ft`` 168.7, ``area_sqft`` 26312, ``drainage_acres`` 0.65), a whole number without
    decimals, a date in ISO form, a missing value as "".

    Parameters
    ----------
    name : str
        The attribute's name (its unit suffix picks the decimals).
    value : object
        Its value.

    Returns
    -------
    str
        The text.
    """
    if value is None or value is _NAT or (isinstance(value, float) and math.isnan(value)):
        return ""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()  # a numpy scalar
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(timespec="seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if hasattr(value, "to_pydatetime"):  # a pandas Timestamp
        return cad_text(name, value.to_pydatetime())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return ""
    n = next((d for suffix, d in DECIMALS.items() if name == suffix or name.endswith(suffix)), None)
    if n is not None:
        return f"{value:.{n}f}"
    return str(int(value)) if value == int(value) else f"{round(value, 2):g}"


def _nat() -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas comes with geopandas
        return object()
    return pd.NaT


_NAT = _nat()


def given(v: Any) -> bool:
    """Whether ``v`` is a value CAD writes (not None, NaN, NaT or empty)."""
    return cad_text("", v) != ""


# ---------------------------------------------------------------------------------------------- items


@dataclass(frozen=True)
class BlockRef:
    """A block a point is drawn as: its name, its ATTRIB values (tag, text), and its size: half its width
    and height in CRS units where the feature gives a footprint (a trap's), else None (the symbol size,
    ``symbol_in`` paper inches in radius).
    """

    name: str
    values: tuple[tuple[str, str], ...] = ()
    size: tuple[float, float] | None = None
    symbol_in: float = SYMBOL_IN[""]


@dataclass(frozen=True)
class Item:
    """One feature as the DXF draws it.

    Attributes
    ----------
    key : str
        Which feature: ``control:12``, ``pile:3``, ``phase:1``, ``<layer>:<row>``.
    layer : str
        The geosite layer it is of (XDATA ``geosite_layer``).
    geometry : shapely geometry
        Site CRS.
    look : CadLook
        Its CAD layer.
    attrs : tuple of (str, str)
        Its attributes (XDATA), rounded.
    block : BlockRef or None
        The block a point is drawn as (and an area of a point layer at its inside point).
    label : str
        What CAD letters for it where no sheet label names it ("" none).
    label_layer : str
        The C-ANNO layer its labels go on.
    kind : str
        The sheets' label kind a sheet's label naming it carries (``control``, ``phase``, ``road`` ...).
    priority : int
        Its label's placing order (:data:`PRIORITY`).
    clear : str
        What labels keep clear of (:data:`CLEAR`).
    elevation : float or None
        A contour's height, feet.
    repeat : bool
        A contour's label: along it, repeated.
    short : str
        Its label where the whole finds no room (a control's tag: the schedule says the rest).
    """

    key: str
    layer: str
    geometry: Any
    look: CadLook
    attrs: tuple[tuple[str, str], ...]
    block: BlockRef | None = None
    label: str = ""
    label_layer: str = "C-ANNO-ESCP"
    kind: str = "feature"
    priority: int = 50
    clear: str = ""
    elevation: float | None = None
    repeat: bool = False
    short: str = ""


def other_crs(gdf: Any, plan: Plan) -> bool:
    """Whether the frame ``gdf`` is in a CRS other than the plan's site's."""
    return gdf.crs is not None and plan.site.crs is not None and not gdf.crs.equals(plan.site.crs)


def analysis_layer(name: str) -> bool:
    """Whether a layer of the plan's analysis is drawn from it: every layer the analysis measures, and the
    practices' layers that show what the analysis found (``control=False``: setback zones, gaps); not the
    practices' control layers (the plan's controls are drawn instead) nor the disturbance by phase (the
    plan's phases are, with their dates).
    """
    if name == "disturbance_phases":
        return False
    spec = registry.output_layer(name)
    return spec is None or not spec.control


def layer_items(
    name: str,
    gdf: Any,
    ft_per_unit: float,
    *,
    table: Mapping[str, CadLook] | None = None,
    frame: Any = None,
    source: str = "analysis",
) -> list[Item]:
    """Every feature of one geosite layer as items: its look by :data:`BY_FIELD` (a practice layer's by its
    ``cad_field``; a contour's by ``index``), points as blocks, its name or practice label.

    Parameters
    ----------
    name : str
        The layer's name.
    gdf : GeoDataFrame
        Its features (site CRS).
    ft_per_unit : float
        Feet in one CRS unit (contour heights are feet; sizes are feet).
    table : mapping of str to CadLook, optional
        The looks it is read from: :data:`SITE_LAYERS`, or (None) :data:`ANALYSIS_LAYERS`.
    frame : shapely geometry, optional
        Features are clipped to it (points outside it left out).
    source : str
        Where the layer comes from (XDATA ``source``): ``analysis`` or ``site``.

    Returns
    -------
    list of Item
        One item per feature drawn.
    """
    table = ANALYSIS_LAYERS if table is None else table
    spec = registry.output_layer(name)
    by = BY_FIELD.get(name) or (spec.cad_field if spec is not None else None)
    cols = [c for c in gdf.columns if c != gdf.geometry.name]
    out = []
    for i, geom in enumerate(gdf.geometry.values):
        if geom is None or geom.is_empty:
            continue
        if frame is not None:
            if not geom.intersects(frame):
                continue
            geom = geom if geom.geom_type in ("Point", "MultiPoint") else geom.intersection(frame)
        row = {c: gdf[c].iloc[i] for c in cols}
        value = row.get(by) if by else None
        if name == "contours":
            value = "index" if bool(row.get("index")) else None
        look = cad_look(table, name, value if given(value) else None)
        if source == "site" and str(row.get("status", "")).strip().lower() in NEW_STATUSES:
            look = CadLook(
                look.layer + NEW_SUFFIX, look.colour, look.linetype, look.description + ", new work"
            )
        out.append(_layer_item(f"{name}:{i}", geom, row, look, fpu=ft_per_unit, source=source))
    return out


def _layer_item(key: str, geom: Any, row: dict[str, Any], look: CadLook, *, fpu: float, source: str) -> Item:
    """One feature of a layer as an item (see :func:`layer_items`), ``key`` its layer and row."""
    name = key.rpartition(":")[0]
    attrs = (("geosite_layer", name), ("source", source), *((k, cad_text(k, v)) for k, v in row.items()))
    kind = LABEL_KINDS.get(name, "feature")
    block = None
    if "Point" in geom.geom_type or ("Polygon" in geom.geom_type and name in POINT_BLOCKS):
        # a point layer's areas (a basin drawn as its outline) carry the block at their inside point
        block_name, tags = POINT_BLOCKS.get(name, (GENERIC_BLOCK, ()))
        spec = registry.output_layer(name)
        size = basin_size_ft(row) if spec is not None and spec.sized and "Point" in geom.geom_type else None
        values = tuple((t.upper(), cad_text(t, row.get(t))) for t in tags)
        if "size" in tags:
            values = tuple(
                (t, (size.text if size else "not sized: symbol only") if t == "SIZE" else v)
                for t, v in values
            )
        block = BlockRef(
            f"{block_name}_RECT" if size and size.shape == "rect" else block_name,
            values,
            None if size is None else (size.length_ft / fpu, size.width_ft / fpu),
            SYMBOL_IN.get(name, SYMBOL_IN[""]),
        )
    label, layer, priority = "", "C-ANNO-ESCP", PRIORITY["control"]
    elevation = None
    if name == "contours" and given(row.get("elevation_ft")):
        elevation = float(row["elevation_ft"])
        label = f"{elevation:g}" if bool(row.get("index")) else ""
        layer, priority = "C-ANNO-TOPO", PRIORITY["contour"]
    elif source == "site":
        label = cad_text("name", row.get("name")) if name in NAMED else ""
        layer, priority = "C-ANNO-IDEN", PRIORITY["point" if "Point" in geom.geom_type else "name"]
    elif name == "upslope_areas":
        a = number_of(row.get("area_sqft"))
        label = f"UPSLOPE AREA {a / 43_560.0:.2f} AC" if a else "UPSLOPE AREA"
    else:
        label = practice_text(name, row)
        priority = PRIORITY[
            "point" if "Point" in geom.geom_type else "line" if "Line" in geom.geom_type else "control"
        ]
    return Item(
        key,
        name,
        geom,
        look,
        attrs,
        block,
        label,
        layer,
        kind,
        priority,
        _clear(name, geom, source),
        elevation,
        repeat=name == "contours",
    )


def _clear(name: str, geom: Any, source: str) -> str:
    """What labels keep clear of in a layer's feature (:data:`CLEAR`): a site layer's by the table; a
    practice's control layer's as a control's (its lines and blocks, its areas' outlines); nothing else.
    """
    if source == "site":
        return CLEAR.get(name, "")
    spec = registry.output_layer(name)
    if spec is None or not spec.control:
        return ""
    return "edge" if "Polygon" in geom.geom_type else "footprint"


def practice_text(name: str, row: Mapping[str, Any]) -> str:
    """A practice layer's CAD label of a feature (capitals, as CAD notes are lettered): what it is, and a
    basin's size where the layer gives one.

    Parameters
    ----------
    name : str
        The layer's name.
    row : mapping
        The feature's attributes.

    Returns
    -------
    str
        The label, lines joined by newlines; "" for a feature not labelled.
    """
    spec = registry.output_layer(name)
    if spec is None or spec.label is None:
        return ""
    text = str(spec.label(FeatureRow(row)))
    size = basin_size_ft(row) if spec.sized else None
    if size and text:
        head, _, rest = text.partition("\n")
        text = "\n".join(t for t in (head, size.text.upper(), rest) if t)
    return text


class FeatureRow(dict):
    """A feature's attributes read by a practice's label: ``row.get(name)``, missing values as None."""

    def __init__(self, row: Mapping[str, Any]) -> None:
        super().__init__({k: (v if given(v) else None) for k, v in row.items()})


@dataclass(frozen=True)
class BasinSize:
    """A basin's or trap's footprint as its block is drawn: ``shape`` ``circle`` (``length_ft`` and
    ``width_ft`` both the radius, ft) or ``rect`` (length and width, ft), and ``text`` saying it.
    """

    shape: str
    length_ft: float
    width_ft: float
    text: str


def basin_size_ft(row: Mapping[str, Any]) -> BasinSize | None:
    """A basin's or trap's footprint from its size attributes (:data:`BASIN_SIZE_COLUMNS`).

    Parameters
    ----------
    row : mapping
        The feature's attributes: ``footprint_sqft`` or ``surface_sqft`` (sq ft), ``diameter_ft`` (ft), or
        ``length_ft`` and ``width_ft`` (ft), the first given.

    Returns
    -------
    BasinSize or None
        A circle (radius ft twice) or a rectangle (length and width ft) and its text; None where the row
        gives no size.
    """
    area = number_of(row.get("footprint_sqft")) or number_of(row.get("surface_sqft"))
    dia = number_of(row.get("diameter_ft"))
    length, width = number_of(row.get("length_ft")), number_of(row.get("width_ft"))
    if area and area > 0:
        r = math.sqrt(area / math.pi)
        return BasinSize("circle", r, r, f"{area:,.0f} sq ft footprint")
    if dia and dia > 0:
        return BasinSize("circle", dia / 2, dia / 2, f"{dia:g} ft diameter")
    if length and width and length > 0 and width > 0:
        return BasinSize("rect", length, width, f"{length:g} x {width:g} ft")
    return None


def number_of(v: Any) -> float | None:
    """``v`` as a finite float (None where it is not one)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None
