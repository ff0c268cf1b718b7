"""The plan folder's GeoPackage (``OUT/plan/layers.gpkg``): the site's plan as layers a consultant edits in
QGIS and ``geosite check`` reads back, written from the one :class:`~geosite.plan.Plan`.

- GeoPackage 1.2 (:data:`geosite.io.output.GPKG_VERSION`), every layer of one declared geometry type;
- the controls in ``bmps_points``, ``bmps_lines`` and ``bmps_polygons`` (all three always, empty ones too),
  each with the columns of :data:`geosite.plan.model.COLUMNS` whatever the site: INTEGER ``id``,
  ``pile_id`` and ``drive_id``, DATE ``install`` and ``remove``; ``check`` reads the three as one ``bmps``
  layer (:func:`geosite.site.loading.split_part`);
- ``disturbance`` with DATE ``start``, ``end`` and ``stabilized``, ``stockpiles`` as the plan gives them,
  ``contours`` when the analysis drew them, and the site's other layers (a layer holding several geometry
  types written one layer per type, ``roads_lines`` and ``roads_polygons``);
- ``layer_styles``: each layer's QGIS style from the same looks as the sheets and ``derived.gpkg`` (the
  controls rule-based by practice, and a fence by its side, from the practices' symbols).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import geopandas as gpd

from geosite.io.layers import LAYERS
from geosite.io.output import LayerSchema, write_gpkg
from geosite.io.qgis_styles import Rule, layer_rules
from geosite.plan.model import COLUMNS
from geosite.practices import registry
from geosite.site.loading import PART_SUFFIXES
from geosite.symbols import submitted_look

if TYPE_CHECKING:
    from geosite.plan import Plan

#: the controls' layers by geometry family, in the order written
CONTROL_LAYERS = {f: f"bmps{s}" for f, s in zip(("point", "line", "polygon"), PART_SUFFIXES, strict=True)}
_OGR = {"point": "Point", "line": "LineString", "polygon": "Polygon"}
_FAMILY = {"Point": "point", "MultiPoint": "point", "LineString": "line", "MultiLineString": "line"}
_DATES = (("start", "date"), ("end", "date"), ("stabilized", "date"))
#: the fixed layers of the plan folder (the site's others follow, typed from their own values)
PLAN_SCHEMA: dict[str, LayerSchema] = {
    "site_boundary": LayerSchema("MultiPolygon", (("id", "int"),)),
    "disturbance": LayerSchema("MultiPolygon", (("id", "int"), ("phase", "str"), *_DATES)),
    "stockpiles": LayerSchema(
        "MultiPolygon",
        (("id", "int"), ("name", "str"), ("days", "float"), ("setback_reason", "str"), ("extra_bmps", "str")),
    ),
    "contours": LayerSchema("MultiLineString", (("elevation_ft", "float"), ("index", "bool"))),
    **{
        name: LayerSchema(f"Multi{_OGR[family]}", tuple(COLUMNS.items()))
        for family, name in CONTROL_LAYERS.items()
    },
}


def family_of(geometry_type: str) -> str:
    """``point``, ``line`` or ``polygon`` for an OGR / shapely geometry type name."""
    return _FAMILY.get(geometry_type, "polygon")


def plan_layers(plan: Plan) -> dict[str, gpd.GeoDataFrame]:
    """The layers of the plan folder, by name (site CRS): the site's own (its ``bmps`` replaced by the
    plan's controls), ``disturbance`` dated, ``stockpiles``, ``contours`` and the three control layers.

    Parameters
    ----------
    plan : Plan
        The site's plan.

    Returns
    -------
    dict of str to geopandas.GeoDataFrame
        The layers, the fixed ones of :data:`PLAN_SCHEMA` first.
    """
    site = plan.site
    out: dict[str, gpd.GeoDataFrame] = {"site_boundary": site.layers["site_boundary"]}
    out["disturbance"] = plan.disturbance
    if plan.piles is not None:
        out["stockpiles"] = plan.piles
    contours = plan.derived.get("contours")
    if contours is not None:
        out["contours"] = contours[["elevation_ft", "index", "geometry"]]
    frame = plan.frame()
    families = [family_of(t) for t in frame.geom_type] if len(frame) else []
    for family, name in CONTROL_LAYERS.items():
        out[name] = frame[[f == family for f in families]] if len(frame) else frame
    for name, gdf in site.layers.items():
        if name in out or name in ("bmps", "disturbance", "contours", "stockpiles") or gdf is None:
            continue
        out.update(_by_family(name, gdf))
    return out


def _by_family(name: str, gdf: gpd.GeoDataFrame) -> dict[str, gpd.GeoDataFrame]:
    """A site layer as one layer, or, when it holds several geometry types, one layer per type."""
    families = [family_of(t) for t in gdf.geom_type] if len(gdf) else []
    present = list(dict.fromkeys(families))
    if len(present) <= 1:
        return {name: gdf}
    return {
        f"{name}{CONTROL_LAYERS[f].removeprefix('bmps')}": gdf[[x == f for x in families]] for f in present
    }


def plan_styles(symbology: dict[str, Any], names: list[str]) -> dict[str, list[Rule]]:
    """Each plan-folder layer's QGIS style: the controls' from the practices' symbols (rule-based by
    ``type`` and, for a fence, ``side``), the site's layers from the sheets' looks (``symbology``: the
    sheets' styles by name).
    """
    rules = layer_rules(symbology)
    out: dict[str, list[Rule]] = {}
    for family, name in CONTROL_LAYERS.items():
        out[name] = control_rules(family)
    looks = {"disturbance": "disturbance", "stockpiles": "stockpiles", "site_boundary": "site_boundary"}
    for name in names:
        if name in out:
            continue
        if name in rules:
            out[name] = rules[name]
            continue
        key = looks.get(name) or _site_key(name, symbology)
        if key is not None:
            st = symbology[key]
            out[name] = [Rule(st.label, st, None)]
    return out


def _site_key(name: str, symbology: dict[str, Any]) -> str | None:
    """The sheets' style a site layer (or a part of one, ``roads_lines``) is drawn with, None for none."""
    base = name
    for suffix in PART_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in LAYERS:
            base = name[: -len(suffix)]
    return base if base in symbology else None


def control_rules(family: str) -> list[Rule]:
    """The rules of the ``family`` controls' layer: each practice's symbols for a control geosite
    proposes, its ``type`` (and the symbol's own attributes) the filter, and a last rule for the rest.
    """
    out = []
    for p in registry.PRACTICES:
        if family not in p.drawn and family not in p.submitted:
            continue  # no control of the practice is drawn as this family
        symbols = p.symbols(family, "proposed")
        taken: dict[str, set[Any]] = {}
        for sym in symbols:
            if sym.where:
                out.append(Rule(sym.style.label, sym.style, (("type", p.name), *sym.where)))
                for k, v in sym.where:
                    taken.setdefault(k, set()).add(v)
            else:  # the rest of the practice's controls: none of the values the others took
                rest = tuple((k, frozenset(v)) for k, v in taken.items())
                out.append(Rule(sym.style.label, sym.style, (("type", p.name), *rest)))
    other = submitted_look("bmp", {}, family)
    out.append(Rule("Other controls (type not a geosite practice)", other, None))
    return out


def write_plan_gpkg(path: Path, plan: Plan, symbology: dict[str, Any]) -> list[str]:
    """Write the plan folder's ``layers.gpkg`` (see the module notes); the layer names written."""
    layers = plan_layers(plan)
    schema = {k: v for k, v in PLAN_SCHEMA.items() if k in layers}
    for name, gdf in layers.items():
        if name not in schema:
            schema[name] = site_schema(name, gdf)
    return write_gpkg(path, layers, schema=schema, styles=plan_styles(symbology, list(layers)))


def site_schema(name: str, gdf: gpd.GeoDataFrame) -> LayerSchema:
    """A site layer's schema in the plan folder: ``Multi*`` of the family it holds (its parts' one, or, for
    an empty layer, the first its kind of layer allows: an empty layer states "none on or near the site"),
    an INTEGER ``id``; its other columns typed from their values.
    """
    base = _site_key(name, {n: n for n in LAYERS}) or name
    allowed = LAYERS[base].geometry if base in LAYERS else ("Polygon",)
    present = {family_of(t) for t in gdf.geom_type.dropna()} if len(gdf) else set()
    family = next(iter(present)) if len(present) == 1 else family_of(allowed[0])
    return LayerSchema(f"Multi{_OGR[family]}", (("id", "int"),))
