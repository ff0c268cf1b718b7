"""The plan as CAD items (:mod:`geosite.views.cad_items` holds the item and the layers' looks): each
control on its practice's CAD look, with its fields, block and label; each phase with its dates; each
stockpile footprint; then :func:`plan_items` gathers them with the analysis' and the site's layers.

A control's look is its practice's (:mod:`geosite.practices`): the practice's output layer of the control's
geometry family (a fence's line, a trap's footprint), by the value of that layer's ``cad_field`` (a fence's
``side``); else the practice's own ``cad``; a practice geosite does not know goes on ``C-ESCP-<TYPE>``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shapely

from geosite.practices import registry
from geosite.symbols import CadLook
from geosite.views.cad_items import (
    ANALYSIS_LAYERS,
    CLEAR,
    GENERIC_BLOCK,
    PAY_DECIMALS,
    PRIORITY,
    SITE_LAYERS,
    BlockRef,
    FeatureRow,
    Item,
    analysis_layer,
    basin_size_ft,
    cad_look,
    cad_text,
    given,
    layer_items,
    number_of,
    other_crs,
)

if TYPE_CHECKING:
    from geosite.plan import Control, Plan
    from geosite.practices.base import OutputLayer, Practice


def plan_items(plan: Plan) -> list[Item]:
    """Everything the DXF draws of ``plan``: the analysis' layers, the phases, the stockpiles and the
    controls, then the site's layers within their extent (with the site boundary's).

    Parameters
    ----------
    plan : geosite.plan.Plan
        The site's plan.

    Returns
    -------
    list of Item
        The items, in drawing order.
    """
    fpu = plan.site.ft_per_unit
    items: list[Item] = []
    for name, gdf in plan.derived.items():
        if gdf is not None and len(gdf) and analysis_layer(name):
            items += layer_items(name, gdf.to_crs(plan.site.crs) if other_crs(gdf, plan) else gdf, fpu)
    items += phase_items(plan)
    items += pile_items(plan)
    items += [
        control_item(c, plan) for c in plan.controls if c.geometry is not None and not c.geometry.is_empty
    ]
    bounds = [i.geometry.bounds for i in items] + [plan.site.boundary.bounds]
    frame = shapely.box(
        min(b[0] for b in bounds),
        min(b[1] for b in bounds),
        max(b[2] for b in bounds),
        max(b[3] for b in bounds),
    )
    for name in SITE_LAYERS:
        if ":" in name:
            continue
        gdf = plan.site.layers.get(name)
        if gdf is not None and len(gdf):
            gdf = gdf.to_crs(plan.site.crs) if other_crs(gdf, plan) else gdf
            items += layer_items(name, gdf, fpu, table=SITE_LAYERS, frame=frame, source="site")
    return items


# ------------------------------------------------------------------------------------------- controls


@dataclass(frozen=True)
class ControlLook:
    """A control's CAD look and its practice's output layer of its geometry family (None where the
    practice has none, or geosite does not know the practice).
    """

    look: CadLook
    layer: OutputLayer | None


def control_look(c: Control) -> ControlLook:
    """A control's CAD look and the practice layer it is drawn as (see the module notes).

    Parameters
    ----------
    c : geosite.plan.Control
        The control.

    Returns
    -------
    ControlLook
        Its look and its practice's output layer.
    """
    p = registry.named(c.practice)
    layer = _family_layer(p, c.family) if p is not None else None
    if layer is not None:
        value = c.get(layer.cad_field) if layer.cad_field else None
        return ControlLook(layer.cad_look(value), layer)
    if p is not None and p.cad is not None:
        return ControlLook(p.cad, None)
    return ControlLook(cad_look({}, c.practice or "bmp"), None)


def _family_layer(p: Practice, family: str) -> OutputLayer | None:
    """The practice's first control layer of geometry ``family`` (point, line, polygon)."""
    for layer in p.layers:
        t = layer.geometry
        fam = "polygon" if "Polygon" in t else "line" if "LineString" in t else "point"
        if fam == family and layer.control:
            return layer
    return None


def _control_block(p: Practice | None, layer: OutputLayer | None) -> str:
    """The block a point control (or a polygon control's inside point) is drawn as."""
    if layer is not None and layer.block:
        return layer.block
    if p is None:
        return GENERIC_BLOCK
    own = [b.name for b in p.blocks if not b.name.endswith("_RECT")]
    points = [ly.block for ly in p.layers if ly.block]
    return (points or own or [GENERIC_BLOCK])[0]


def control_fields(c: Control, plan: Plan) -> dict[str, Any]:
    """A control's fields as CAD gets them: its number, type, status, words, standard, name (a point's from
    the site feature it stands at, where it has none of its own), phase, dates, attributes and pay quantity.
    """
    p = registry.named(c.practice)
    q = plan.quantity(c)
    return {
        "control_id": c.id,
        "type": c.practice,
        "status": c.status,
        "practice": c.what,
        "standard": c.standard,
        "name": c.name or _stands_at_name(c, p, plan),
        "phase": c.phase,
        "install": c.install,
        "remove": c.remove,
        **dict(c.attrs),
        "quantity": None if q is None else q[0],
        "pay_unit": None if q is None else q[1],
    }


def _stands_at_name(c: Control, p: Practice | None, plan: Plan) -> str | None:
    """The name of the site feature a point control stands at (its practice's ``stands_at`` layers, within
    one foot): an inlet protection's inlet.
    """
    if p is None or c.family != "point":
        return None
    tol = 1.0 / plan.site.ft_per_unit
    for name in p.stands_at:
        gdf = plan.site.layers.get(name)
        if gdf is None or "name" not in gdf.columns:
            continue
        near = gdf[gdf.geometry.distance(c.geometry) <= tol]
        for v in near["name"]:
            if given(v):
                return str(v)
    return None


def control_item(c: Control, plan: Plan) -> Item:
    """A control of the plan as an item: on its practice's look, its fields as attributes, a point (or an
    area of a practice with a block) as its block, labelled with what it is and its pay quantity.

    Parameters
    ----------
    c : geosite.plan.Control
        The control.
    plan : geosite.plan.Plan
        Its plan.

    Returns
    -------
    Item
        The control's item.
    """
    p = registry.named(c.practice)
    looked = control_look(c)
    look, layer = looked.look, looked.layer
    fields = control_fields(c, plan)
    attrs: tuple[tuple[str, str], ...] = (
        ("geosite_layer", layer.name if layer else c.practice),
        ("source", "plan"),
    )
    attrs += tuple(
        (
            k,
            f"{float(v):.{PAY_DECIMALS.get(str(fields['pay_unit']), 0)}f}"
            if k == "quantity"
            else cad_text(k, v),
        )
        for k, v in fields.items()
        if given(v)
    )
    block = None
    if c.family == "point":  # an area is its outline (its attributes in its XDATA)
        name = _control_block(p, layer)
        size = basin_size_ft(fields) if layer is not None and layer.sized else None
        tags = next((b.tags for b in registry.blocks() if b.name == name), ())
        values = tuple(
            (
                t.upper(),
                (size.text if size else "not sized: symbol only") if t == "size" else _field_text(t, fields),
            )
            for t in tags
        )
        block = BlockRef(
            f"{name}_RECT" if size and size.shape == "rect" else name,
            values,
            None
            if size is None
            else (size.length_ft / plan.site.ft_per_unit, size.width_ft / plan.site.ft_per_unit),
        )
    return Item(
        f"control:{c.id}",
        layer.name if layer else c.practice,
        c.geometry,
        look,
        attrs,
        block,
        control_text(c, fields, layer, p),
        "C-ANNO-ESCP",
        "control",
        PRIORITY["point" if c.family == "point" else "line" if c.family == "line" else "control"],
        "edge" if c.family == "polygon" else "footprint",
        short=f"C{c.id}",
    )


def _field_text(tag: str, fields: Mapping[str, Any]) -> str:
    """A block attribute's value from a control's fields: ``kind`` its type, ``id`` its number."""
    alias = {"kind": "type", "id": "control_id"}
    return cad_text(tag, fields.get(tag, fields.get(alias.get(tag, ""))))


def control_text(c: Control, fields: Mapping[str, Any], layer: OutputLayer | None, p: Practice | None) -> str:
    """A control's CAD label: its tag (``C7``, the schedule's number), its practice layer's label of it (a
    fence's by its side; a J-hook has only its tag), else the practice's title; with its pay quantity.
    """
    tag = f"C{c.id}"  # the schedule's number (geosite.plan.table)
    if layer is not None and layer.label is not None:
        head = str(layer.label(FeatureRow(fields)))
        if not head:
            return tag  # a J-hook: its number only
    else:  # its title without the parenthesis, and how it is done where that adds a word
        head = (p.title if p is not None else c.practice.replace("_", " ")).split(" (")[0].upper()
        how = str(c.get("method") or "").replace("_", " ").upper()
        head += f" ({how})" if how and how not in head else ""
    head = f"{tag} {head}"
    q, unit = fields.get("quantity"), str(fields.get("pay_unit") or "")
    if q is None:
        return head
    text = pay_text(float(q), unit)
    return f"{head} {text}" if c.family == "line" else f"{head}\n{text}"


def pay_text(q: float, unit: str) -> str:
    """A pay quantity as a label gives it: to :data:`PAY_DECIMALS` by its unit, never rounded to nothing
    (``< 0.01 AC``).

    Parameters
    ----------
    q : float
        The quantity, in ``unit``.
    unit : str
        Its pay unit (LF, SY, AC ...).

    Returns
    -------
    str
        The text, with its unit.
    """
    n = PAY_DECIMALS.get(unit, 0)
    if 0 < q < 0.5 * 10**-n:
        return f"< {10**-n:.{n}f} {unit}"
    return f"{q:,.{n}f} {unit}"


# ------------------------------------------------------------------------------------ phases and piles


def phase_items(plan: Plan) -> list[Item]:
    """Each phase of the plan: its outline on C-ESCP-PHAS with its key, start, end and stabilization dates
    and area as attributes and label.
    """
    look = ANALYSIS_LAYERS["disturbance_phases"]
    out = []
    for ph in plan.phases:
        if ph.geometry is None or ph.geometry.is_empty:
            continue
        fields = {
            "phase": ph.key,
            "start": ph.start,
            "end": ph.end,
            "stabilized": ph.stabilized,
            "area_sqft": ph.area_sqft,
            "area_acres": ph.area_sqft / 43_560.0,
        }
        text = "\n".join(
            [
                f"PHASE {ph.key}".upper(),
                f"{cad_text('start', ph.start) or 'START NOT GIVEN'} TO "
                f"{cad_text('end', ph.end) or 'END NOT GIVEN'}",
                f"STABILIZED {cad_text('stabilized', ph.stabilized) or 'DATE NOT GIVEN'}",
                f"{ph.area_sqft:,.0f} SQ FT ({ph.area_sqft / 43_560.0:.2f} AC)",
            ]
        )
        out.append(
            Item(
                f"phase:{ph.key}",
                "disturbance_phases",
                ph.geometry,
                look,
                (("geosite_layer", "disturbance_phases"), ("source", "plan"))
                + tuple((k, cad_text(k, v)) for k, v in fields.items()),
                label=text,
                kind="phase",
                priority=PRIORITY["phase"],
            )
        )
    return out


def pile_items(plan: Plan) -> list[Item]:
    """Each stockpile of the plan: its footprint on C-ESCP-STKP, with its attributes, the day it is placed
    (its own ``start``, else the earliest start of the disturbance it lies in, else the project's: the
    rule the schedule dates its stabilization by), its days and area, labelled with its name and dates.
    """
    piles = plan.piles
    if piles is None or not len(piles):
        return []
    look = ANALYSIS_LAYERS["stockpiles"]
    cols = [c for c in piles.columns if c != piles.geometry.name]
    out = []
    for i, geom in enumerate(piles.geometry.values):
        if geom is None or geom.is_empty:
            continue
        row = {c: piles[c].iloc[i] for c in cols}
        pid = cad_text("id", row.get("id")) or str(i + 1)
        placed = _pile_start(row, geom, plan)
        days = number_of(row.get("days"))
        fields = {
            **row,
            "placed": placed,
            "until": placed + dt.timedelta(days=int(days)) if placed and days is not None else None,
            "area_sqft": geom.area * plan.site.ft_per_unit**2,
        }
        name = cad_text("name", row.get("name")) or f"STOCKPILE {pid}"
        when = (
            f"{days:g} DAYS FROM {placed.isoformat()}"
            if days is not None and placed
            else (f"{days:g} DAYS" if days is not None else "DAYS NOT GIVEN")
        )
        out.append(
            Item(
                f"pile:{pid}",
                "stockpiles",
                geom,
                look,
                (("geosite_layer", "stockpiles"), ("source", "plan"))
                + tuple((k, cad_text(k, v)) for k, v in fields.items()),
                label=f"{name.upper()}\n{when}",
                kind="stockpile",
                priority=PRIORITY["stockpile"],
                clear=CLEAR["stockpiles"],
            )
        )
    return out


def _pile_start(row: Mapping[str, Any], geom: Any, plan: Plan) -> dt.date | None:
    """When a pile is placed (see :func:`pile_items`)."""
    own = row.get("start")
    if given(own):
        try:
            return dt.date.fromisoformat(cad_text("start", own)[:10])
        except ValueError:
            pass
    d = plan.disturbance
    starts: Iterable[Any] = d["start"][d.geometry.intersects(geom)] if len(d) and "start" in d.columns else []
    found = [s for s in starts if isinstance(s, dt.date)]
    return min(found) if found else plan.site.project.start
