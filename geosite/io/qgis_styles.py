"""QGIS styles for geosite's GeoPackages, stored in the ``layer_styles`` table QGIS reads a layer's
default style from (as QML, with an SLD beside it for other clients).

The looks are the sheets' (:data:`geosite.maps.symbology.STYLES`: colours, line widths and dash patterns
in points, hatches, marker shapes), passed in by the caller: this module sits below the maps package and
reads any object with a Style's attributes (``face``, ``edge``, ``lw``, ``ls``, ``hatch``, ``alpha``,
``marker``, ``size``). Layers the sheets do not draw (steep slopes, fence gaps, the findings) have looks of
their own here (:data:`OWN_LOOKS`), the findings in report.html's status colours.

A layer's style is a list of :class:`Rule`: one rule without a condition is QGIS's single-symbol
renderer, several are its rule-based renderer (the last, without a condition, is ``ELSE``). A look is
drawn for the layer's geometry: a polygon look on points (sediment basins are outlet points on the
sheets' basin look) becomes a circle marker in its colours.
"""

from __future__ import annotations

import datetime as _dt
import html
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The table QGIS (and GDAL's GPKG driver) keep layer styles in.
STYLES_TABLE = "layer_styles"
#: report.html's colours of the finding statuses (geosite.review.html.STATUS_COLOURS; a test checks).
STATUS_COLOURS = {
    "fail": "#d7191c",
    "not_assessed": "#e08a00",
    "info": "#2b83ba",
    "pass": "#1a9641",
    "inspector_decision": "#7b3294",
}


@dataclass(frozen=True)
class Look:
    """A look with the attributes of a sheet's Style (matplotlib values: colours as hex or ``none``,
    widths and sizes in points, ``ls`` a matplotlib line style).
    """

    kind: str
    face: str = "none"
    edge: str = "#1a1a1a"
    lw: float = 0.6
    ls: Any = "-"
    hatch: str | None = None
    alpha: float = 1.0
    marker: str = "o"
    size: float = 4.0


@dataclass(frozen=True)
class Rule:
    """One symbol of a layer's style: its legend ``label``, its ``look``, and ``where`` (field, value), or a
    tuple of such pairs that must all hold, a value that is a frozenset meaning "none of these (or null)",
    applies (None: every feature no earlier rule took).
    """

    label: str
    look: Any
    where: Any = None
    #: on a layer's first rule: how QGIS labels the layer (as :data:`LAYER_LABELS` gives it), when the
    #: layer's own table says so
    label_by: tuple[str, tuple[str, Any] | None, str | None, float] | None = None


#: Looks of layers the sheets do not draw.
OWN_LOOKS: dict[str, Look] = {
    "steep_slopes": Look("polygon", face="none", edge="#b9770e", lw=0.5, hatch="////"),
    **{
        f"status_{s}": Look("polygon", face=c, edge=c, lw=1.2, alpha=0.35, marker="o", size=7.0)
        for s, c in STATUS_COLOURS.items()
    },
}

#: Each derived layer of the site and the analysis: its rules (label, look key, where); a key is a sheet
#: style's (or :data:`OWN_LOOKS`'). The practices' layers carry their own (geosite.views.layers).
LAYER_RULES: dict[str, tuple[tuple[str, str, tuple[str, Any] | None], ...]] = {
    "site_boundary": (("Site boundary", "site_boundary", None),),
    "disturbed_area": (("Land disturbance", "disturbance", None),),
    "disturbance_phases": (("Land disturbance, by phase", "disturbance", None),),
    "steep_slopes": (("Slopes of 12 % or more", "steep_slopes", None),),
    "contours": (("Index contours", "index_contours", ("index", True)), ("Contours", "contours", None)),
    "channels": (("Natural drainage paths (from the DEM)", "natural_drainage", None),),
    "upslope_areas": (("Upslope drainage areas", "upslope_areas", None),),
    "upslope_entry_points": (("Where upslope drainage enters", "upslope_entry_points", None),),
}
_FINDING_RULES = tuple((s.replace("_", " "), f"status_{s}", ("status", s)) for s in STATUS_COLOURS)


def layer_rules(
    symbology: Mapping[str, Any], extra: Mapping[str, tuple[tuple[str, str, Any], ...]] | None = None
) -> dict[str, list[Rule]]:
    """The GeoPackage layers' styles.

    Parameters
    ----------
    symbology : Mapping of str to Style
        The sheets' styles, name -> Style (:data:`geosite.maps.symbology.STYLES`: colours as hex, widths
        and marker sizes in points).
    extra : Mapping, optional
        More layers' rules in :data:`LAYER_RULES`'s form (the practices' layers).

    Returns
    -------
    dict of str to list of Rule
        Layer name -> rules: the derived layers' from ``symbology`` (:data:`LAYER_RULES`; a layer whose
        sheet style is missing is left unstyled), the findings layers' from :data:`STATUS_COLOURS`.
    """
    looks = {**OWN_LOOKS, **symbology}
    out = {
        name: [Rule(label, looks[key], where) for label, key, where in rules]
        for name, rules in {**LAYER_RULES, **(extra or {})}.items()
        if all(key in looks for _, key, _ in rules)
    }
    for name in ("findings_points", "findings_lines", "findings_polygons", "findings"):
        out[name] = [Rule(label, looks[key], where) for label, key, where in _FINDING_RULES]
    return out


def findings_rules() -> dict[str, list[Rule]]:
    """The findings layers' styles (:data:`STATUS_COLOURS`), without the sheets."""
    return {k: v for k, v in layer_rules({}).items() if k.startswith("findings")}


# ------------------------------------------------------------------------------------------------ QML

#: matplotlib's named line styles as dash patterns (in line widths, matplotlib's rcParams defaults).
_NAMED_DASHES = {
    "--": (3.7, 1.6),
    "dashed": (3.7, 1.6),
    ":": (1.0, 1.65),
    "dotted": (1.0, 1.65),
    "-.": (6.4, 1.6, 1.0, 1.6),
    "dashdot": (6.4, 1.6, 1.0, 1.6),
}
#: matplotlib hatch letters -> QGIS (Qt) brush patterns.
_HATCHES = {
    "-": "horizontal",
    "|": "vertical",
    "/": "b_diagonal",
    "\\": "f_diagonal",
    "x": "diagonal_x",
    "+": "cross",
    ".": "dense6",
    "o": "dense5",
    "O": "dense4",
    "*": "dense4",
}
#: matplotlib markers -> (QGIS simple marker name, rotation in degrees).
_MARKERS = {
    "o": ("circle", 0),
    "s": ("square", 0),
    "D": ("diamond", 0),
    "d": ("diamond", 0),
    "v": ("triangle", 180),
    "^": ("triangle", 0),
    "<": ("triangle", 90),
    ">": ("triangle", 270),
    "P": ("cross_fill", 0),
    "+": ("cross", 0),
    "x": ("cross2", 0),
    "X": ("cross2", 0),
    "*": ("star", 0),
    "p": ("pentagon", 0),
    "h": ("hexagon", 0),
}
_GEOMETRY_CODE = {"Point": 0, "LineString": 1, "Polygon": 2}


#: the colour names the looks use, as hex (the rest are written ``#rrggbb``)
NAMED_COLOURS = {"white": "#ffffff", "black": "#000000"}


def qgis_colour(colour: str, alpha: float = 1.0) -> str:
    """A ``#rrggbb`` colour (or one of :data:`NAMED_COLOURS`; ``none``: transparent) as QGIS's ``r,g,b,a``
    text.
    """
    if not colour or colour == "none":
        return "0,0,0,0"
    c = NAMED_COLOURS.get(colour, colour).lstrip("#")
    r, g, b = (int(c[i : i + 2], 16) for i in (0, 2, 4))
    a = int(c[6:8], 16) if len(c) == 8 else 255
    return f"{r},{g},{b},{round(a * alpha)}"


def dash_pattern(ls: Any, lw: float) -> tuple[float, ...] | None:
    """A matplotlib line style as absolute dash lengths in points (matplotlib scales a pattern by the
    line width, QGIS does not), None for a solid line.
    """
    if ls in (None, "-", "solid", "None", "none", ""):
        return None
    if isinstance(ls, str):
        return tuple(round(d * lw, 3) for d in _NAMED_DASHES.get(ls, (3.7, 1.6)))
    _, seq = ls
    return tuple(round(float(d) * lw, 3) for d in seq) if seq else None


def _options(opts: Mapping[str, Any]) -> str:
    items = "".join(
        f'<Option type="QString" name="{k}" value="{html.escape(str(v), quote=True)}"/>'
        for k, v in opts.items()
    )
    return f'<Option type="Map">{items}</Option>'


def _line_layer(look: Any) -> str:
    dashes = dash_pattern(look.ls, look.lw)
    opts = {
        "line_color": qgis_colour(look.edge),
        "line_width": look.lw,
        "line_width_unit": "Point",
        "line_style": "solid",
        "capstyle": "flat",
        "joinstyle": "round",
        "use_custom_dash": "1" if dashes else "0",
        "customdash": ";".join(f"{d:g}" for d in dashes or (5, 2)),
        "customdash_unit": "Point",
    }
    return f'<layer class="SimpleLine" enabled="1" locked="0" pass="0">{_options(opts)}</layer>'


def _fill_layer(colour: str, style: str) -> str:
    opts = {
        "color": colour,
        "style": style,
        "outline_style": "no",
        "outline_color": "0,0,0,0",
        "outline_width": 0,
        "outline_width_unit": "Point",
    }
    return f'<layer class="SimpleFill" enabled="1" locked="0" pass="0">{_options(opts)}</layer>'


def _marker_layer(look: Any) -> str:
    polygon_look = look.kind == "polygon"
    name, angle = ("circle", 0) if polygon_look else _MARKERS.get(look.marker, ("circle", 0))
    size = max(look.size, 6.0) if polygon_look else look.size
    face = look.face if look.face != "none" else "#ffffff"
    opts = {
        "name": name,
        "angle": angle,
        "color": qgis_colour(face, look.alpha if not polygon_look else 1.0),
        "outline_color": qgis_colour(look.edge),
        "outline_style": "solid",
        "outline_width": max(min(look.lw, 1.0), 0.4) if polygon_look else 0.5,
        "outline_width_unit": "Point",
        "size": size,
        "size_unit": "Point",
        "joinstyle": "miter",
    }
    return f'<layer class="SimpleMarker" enabled="1" locked="0" pass="0">{_options(opts)}</layer>'


def symbol_xml(look: Any, geometry: str, name: str) -> str:
    """The QGIS ``<symbol>`` of a look drawn on a geometry family (Point, LineString or Polygon): a
    polygon is its face (with the look's alpha), its hatch in the edge colour, then its outline.
    """
    family = geometry.removeprefix("Multi")
    if family == "Point":
        kind, layers = "marker", [_marker_layer(look)]
    elif family == "LineString":
        kind, layers = "line", [_line_layer(look)]
    else:
        kind, layers = "fill", []
        if look.face not in (None, "none"):
            layers.append(_fill_layer(qgis_colour(look.face, look.alpha), "solid"))
        if look.hatch:
            layers.append(_fill_layer(qgis_colour(look.edge), _HATCHES.get(look.hatch[0], "b_diagonal")))
        if look.edge not in (None, "none"):
            layers.append(_line_layer(look))
    return (
        f'<symbol type="{kind}" name="{name}" alpha="1" clip_to_extent="1" force_rhr="0">'
        + "".join(layers)
        + "</symbol>"
    )


def _conditions(where: Any) -> list[tuple[str, Any]]:
    """``where`` as (field, value) pairs: one pair, or a tuple of them."""
    return [where] if isinstance(where[0], str) else list(where)


def _expression(where: Any) -> str:
    """A rule's QGIS filter expression (``ELSE`` for None)."""
    if where is None:
        return "ELSE"
    return " AND ".join(_term(f, v) for f, v in _conditions(where))


def _literal(v: Any) -> str:
    return "'" + str(v).replace("'", "''") + "'" if isinstance(v, str) else str(v)


def _term(field: str, value: Any) -> str:
    if isinstance(value, bool):
        return f'"{field}"' if value else f'NOT "{field}"'
    if isinstance(value, frozenset):
        listed = ", ".join(_literal(v) for v in sorted(value, key=str))
        return f'("{field}" IS NULL OR "{field}" NOT IN ({listed}))'
    return f'"{field}" = {_literal(value)}'


def _sld_filter(where: Any) -> str:
    """A rule's OGC filter (SLD 1.1)."""
    terms = []
    for f, v in _conditions(where):
        if isinstance(v, frozenset):
            inner = "".join(_sld_equal(f, x) for x in sorted(v, key=str))
            terms.append(
                f"<ogc:Not><ogc:Or>{inner}</ogc:Or></ogc:Not>"
                if len(v) > 1
                else f"<ogc:Not>{inner}</ogc:Not>"
            )
        else:
            terms.append(_sld_equal(f, v))
    body = terms[0] if len(terms) == 1 else "<ogc:And>" + "".join(terms) + "</ogc:And>"
    return f"<ogc:Filter>{body}</ogc:Filter>"


def _sld_equal(field: str, v: Any) -> str:
    value = int(v) if isinstance(v, bool) else html.escape(str(v))
    return (
        f"<ogc:PropertyIsEqualTo><ogc:PropertyName>{html.escape(field)}</ogc:PropertyName>"
        f"<ogc:Literal>{value}</ogc:Literal></ogc:PropertyIsEqualTo>"
    )


#: Labels QGIS draws, as the sheets do: layer -> (field or QGIS expression, where (field, value) or None,
#: colour or None for the first rule's edge colour, size in points).
LAYER_LABELS: dict[str, tuple[str, tuple[str, Any] | None, str | None, float]] = {
    "contours": ("elevation_ft", ("index", True), None, 6.0),
}


def labeling_xml(field: str, where: tuple[str, Any] | None, colour: str, size: float, geometry: str) -> str:
    """QGIS labels of one field (rule-based when ``where`` limits them), with a white halo: along a
    line, or round a point.
    """
    line = geometry.removeprefix("Multi") == "LineString"
    placement = 'placement="2" placementFlags="9"' if line else 'placement="6" dist="1.5" distUnits="Point"'
    settings = (
        f'<settings calloutType="simple"><text-style fieldName="{html.escape(field, quote=True)}" '
        f'isExpression="{int("(" in field)}" fontSize="{size:g}" '
        f'fontSizeUnit="Point" textColor="{qgis_colour(colour)}" textOpacity="1" fontWeight="50" '
        'fontItalic="0">'
        '<text-buffer bufferDraw="1" bufferSize="0.8" bufferSizeUnits="Point" bufferColor="255,255,255,255" '
        f'bufferOpacity="1"/></text-style><placement {placement} repeatDistance="0"/>'
        '<rendering obstacle="1" drawLabels="1" scaleVisibility="0" upsidedownLabels="0"/></settings>'
    )
    if where is None:
        return f'<labeling type="simple">{settings}</labeling>'
    cond = html.escape(_expression(where), quote=True)
    return (
        f'<labeling type="rule-based"><rules key="{{labels}}"><rule key="{{label0}}" filter="{cond}">'
        f"{settings}</rule></rules></labeling>"
    )


def qml(rules: list[Rule], geometry: str | None, layer: str = "") -> str:
    """The QML document of a layer's style (QGIS 3.22 and later): single symbol for one unconditional
    rule, rule-based otherwise, and the ``layer``'s labels (:data:`LAYER_LABELS`); a table without
    geometry gets no renderer.
    """
    label = ((rules[0].label_by if rules else None) or LAYER_LABELS.get(layer)) if geometry else None
    head = (
        "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n<qgis version=\"3.22.0\" "
        f'styleCategories="Symbology|Labeling" labelsEnabled="{int(label is not None)}">'
    )
    if geometry is None:
        return head + "<layerGeometryType>4</layerGeometryType></qgis>\n"
    symbols = (
        "<symbols>"
        + "".join(symbol_xml(r.look, geometry, str(i)) for i, r in enumerate(rules))
        + "</symbols>"
    )
    attrs = 'forceraster="0" symbollevels="0" enableorderby="0" referencescale="-1"'
    if len(rules) == 1 and rules[0].where is None:
        renderer = f'<renderer-v2 type="singleSymbol" {attrs}>{symbols}<rotation/><sizescale/></renderer-v2>'
    else:
        items = "".join(
            f'<rule key="{{r{i}}}" symbol="{i}" label="{html.escape(r.label, quote=True)}" '
            f'filter="{html.escape(_expression(r.where), quote=True)}"/>'
            for i, r in enumerate(rules)
        )
        renderer = (
            f'<renderer-v2 type="RuleRenderer" {attrs}><rules key="{{root}}">{items}</rules>'
            f"{symbols}</renderer-v2>"
        )
    code = _GEOMETRY_CODE[geometry.removeprefix("Multi")]
    labels = ""
    if label is not None:
        field, where, colour, size = label
        labels = labeling_xml(field, where, colour or rules[0].look.edge, size, geometry)
    return f"{head}{renderer}{labels}<layerGeometryType>{code}</layerGeometryType></qgis>\n"


# ------------------------------------------------------------------------------------------------ SLD


def _sld_symbolizer(look: Any, geometry: str) -> str:
    family = geometry.removeprefix("Multi")
    dashes = dash_pattern(look.ls, look.lw)
    stroke = (
        (
            f'<se:Stroke><se:SvgParameter name="stroke">{look.edge}</se:SvgParameter>'
            f'<se:SvgParameter name="stroke-width">{look.lw:g}</se:SvgParameter>'
            + (
                "<se:SvgParameter "
                f'name="stroke-dasharray">{" ".join(f"{d:g}" for d in dashes)}</se:SvgParameter>'
                if dashes
                else ""
            )
            + "</se:Stroke>"
        )
        if look.edge != "none"
        else ""
    )
    fill = (
        f'<se:Fill><se:SvgParameter name="fill">{look.face}</se:SvgParameter>'
        f'<se:SvgParameter name="fill-opacity">{look.alpha:g}</se:SvgParameter></se:Fill>'
        if look.face != "none"
        else ""
    )
    if family == "Point":
        name = (
            "circle"
            if look.kind == "polygon"
            else {
                "s": "square",
                "D": "square",
                "v": "triangle",
                "^": "triangle",
                "P": "cross",
                "+": "cross",
                "x": "x",
            }.get(look.marker, "circle")
        )
        return (
            f"<se:PointSymbolizer><se:Graphic><se:Mark><se:WellKnownName>{name}</se:WellKnownName>{fill}{stroke}"
            f"</se:Mark><se:Size>{look.size:g}</se:Size></se:Graphic></se:PointSymbolizer>"
        )
    if family == "LineString":
        return f"<se:LineSymbolizer>{stroke}</se:LineSymbolizer>"
    return f"<se:PolygonSymbolizer>{fill}{stroke}</se:PolygonSymbolizer>"


def sld(rules: list[Rule], geometry: str | None, layer: str) -> str:
    """An SLD 1.1 document of a layer's style (rules with equality filters, the last an ElseFilter)."""
    body = ""
    for r in rules if geometry else []:
        otherwise = "<se:ElseFilter/>" if len(rules) > 1 else ""
        cond = otherwise if r.where is None else _sld_filter(r.where)
        body += (
            f"<se:Rule><se:Name>{html.escape(r.label)}</se:Name>{cond}"
            f"{_sld_symbolizer(r.look, geometry or '')}</se:Rule>"  # rules only when there is one
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><StyledLayerDescriptor version="1.1.0" '
        'xmlns="http://www.opengis.net/sld" xmlns:se="http://www.opengis.net/se" '
        'xmlns:ogc="http://www.opengis.net/ogc"><NamedLayer>'
        f"<se:Name>{html.escape(layer)}</se:Name><UserStyle><se:Name>{html.escape(layer)}</se:Name>"
        f"<se:FeatureTypeStyle>{body}</se:FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>\n"
    )


def write_layer_styles(path: Path, styles: Mapping[str, tuple[list[Rule], str | None]]) -> None:
    """Add the ``layer_styles`` table to a GeoPackage; QGIS applies a layer's default style on load.

    Parameters
    ----------
    path : Path
        The GeoPackage, its layers written (geometry column ``geom``).
    styles : Mapping of str to (list of Rule, str or None)
        Layer name -> (its rules, its declared geometry type or None for a table): one default style each
        (QML and SLD), named after the layer.
    """
    import numpy as np
    from pyogrio.raw import write

    names = list(styles)
    if not names:
        return
    now = np.datetime64(_dt.datetime.now(_dt.UTC).replace(tzinfo=None), "ms")
    cols = {
        "f_table_catalog": [""] * len(names),
        "f_table_schema": [""] * len(names),
        "f_table_name": names,
        "f_geometry_column": ["geom" if styles[n][1] else "" for n in names],
        "styleName": names,
        "styleQML": [qml(*styles[n], layer=n) for n in names],
        "styleSLD": [sld(styles[n][0], styles[n][1], n) for n in names],
        "useAsDefault": [True] * len(names),
        "description": [f"geosite: {n} as on the sheets" for n in names],
        "owner": [""] * len(names),
        "ui": [None] * len(names),
    }
    data = [np.array(v, dtype=bool if k == "useAsDefault" else object) for k, v in cols.items()]
    data.append(np.full(len(names), now, dtype="datetime64[ms]"))
    write(
        str(path),
        None,
        data,
        [*cols, "update_time"],
        layer=STYLES_TABLE,
        driver="GPKG",
        geometry_type=None,
        layer_options={"FID": "id"},
    )
