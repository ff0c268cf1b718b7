"""The site construction plan (plan A(3)): disturbed areas by phase with their dates, stockpiles with
their setback zones, and every control of the site's plan (:class:`geosite.plan.Plan`: geosite's proposal
after ``analyze``, the submission's own controls for a submitted site), each in its practice's symbol and
tagged with its number, over a faint base of the existing site; the panel carries the schedule of the
disturbance phases and of every control (its tags, quantity, install and removal dates) and the
maintenance and stabilization provisions.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import shapely

from geosite.maps import layout as L
from geosite.maps import panel as P
from geosite.maps.common import (
    MapContext,
    Panel,
    area_text,
    draw_boundary,
    draw_relief,
    faint_style,
    is_nan,
    make_context,
    name_of,
    short_name,
    sqft_text,
    status_filter,
)
from geosite.maps.existing import label_improvements
from geosite.maps.preview import PNG_DPI
from geosite.maps.provisions import maintenance_text, practices_on_plan, schedule_table, stabilization_text
from geosite.maps.quantities import quantity_table
from geosite.maps.render import render
from geosite.maps.symbology import BODY_PT, INK, MIN_PT, STYLES, Style
from geosite.maps.tables import cells
from geosite.plan.table import short_words, tag_runs
from geosite.practices import registry
from geosite.symbols import Symbol

if TYPE_CHECKING:
    from geosite.plan import Control, Plan

HEADING = "SITE CONSTRUCTION PLAN"
PHASE_COLORS = ["#f4d9a6", "#f5b7b1", "#d2b4de", "#aed6f1", "#a3e4d7", "#f9e79f", "#d5dbdb"]


def _d(v) -> str:
    return "?" if is_nan(v) or v is None or str(v) in ("NaT", "None", "") else str(v)[:10]


def draw_base(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> None:
    """The existing site, faint: contours, water, roads, structures (labelled), inlets (legend entries
    'existing').
    """
    draw_relief(ctx, sheet, panel, None, label="Existing ", faint=True)
    for name in ("lakes", "wetlands", "streams", "channels"):
        gdf = ctx.site_layer(name)
        if gdf is not None:
            L.draw_geoms(sheet, gdf.geometry.values, STYLES[name])
            panel.add(STYLES[name], STYLES[name].label)
    for name, keep in (("roads", lambda s: s != "new"), ("structures", lambda s: s != "proposed")):
        gdf = status_filter(ctx.site_layer(name), keep)
        if gdf is not None:
            st = STYLES[name]
            faint = faint_style(st)
            L.draw_geoms(sheet, gdf.geometry.values, faint)
            panel.add(faint, "Existing " + st.label[0].lower() + st.label[1:])
            label_improvements(sheet, name, gdf, ctx.site.ft_per_unit, "#555555")
    inlets = ctx.site_layer("storm_inlets")
    if inlets is not None:
        L.draw_geoms(sheet, inlets.geometry.values, STYLES["storm_inlets"])
        label_improvements(sheet, "storm_inlets", inlets, ctx.site.ft_per_unit, INK)
        panel.add(STYLES["storm_inlets"], STYLES["storm_inlets"].label)


def draw_construction(ctx: MapContext, sheet: L.MapSheet) -> tuple[Panel, list[tuple[str, str]]]:
    """The site construction plan's content (plan A(3)) on ``sheet``; returns its panel and title rows.

    Parameters
    ----------
    ctx : MapContext
        The maps' context.
    sheet : MapSheet
        The sheet drawn on.

    Returns
    -------
    tuple of Panel and list of tuple of str
        The panel's legend and notes, and the title block's extra rows.
    """
    panel = Panel(
        HEADING,
        f"{ctx.profile.name} ordinance, plan content A(3)(a)-(f): land disturbance, "
        "stockpiles, best management practices, schedule, maintenance and stabilization",
    )
    draw_base(ctx, sheet, panel)
    absent: list[str] = []
    _disturbance(ctx, sheet, panel, absent)
    _proposed_improvements(ctx, sheet, panel)
    _stockpiles(ctx, sheet, panel, absent)
    _zones(ctx, sheet, panel)
    _controls(ctx, sheet, panel)
    if not ctx.site_plan.controls:
        absent.append("(c) erosion and sediment controls")
    draw_boundary(ctx, sheet, panel)
    panel.missing = absent
    rows, notes = schedule_table(ctx)
    rows += quantity_table(ctx)  # (c) the pay quantities, in the same block (geosite.maps.quantities)
    provisions = (
        [f"(d) {n}" for n in notes] + maintenance_text(ctx, practices_on_plan(ctx)) + stabilization_text(ctx)
    )
    block = [("table", r) for r in panel.table + rows] + [("provision", t) for t in provisions]
    if P.frame_block(sheet, panel.table_title + ", MAINTENANCE (e) AND STABILIZATION (f)", block):
        panel.table, panel.table_title = [], ""
        panel.notes.append(
            "(d)-(f) Schedule, maintenance and stabilization: in the boxed block on the map, where it "
            "shows no ground."
        )
    else:
        panel.table += rows
        panel.provisions += provisions
    return panel, []


def _disturbance(ctx: MapContext, sheet: L.MapSheet, panel: Panel, absent: list[str]) -> None:
    """(a) land disturbance by phase, one label and one (d) schedule row per phase (report.json's area)."""
    import geopandas as gpd

    dist = ctx.site_layer("disturbance")
    p = ctx.site.project
    if dist is None:
        absent.append("(a) land disturbance")
        panel.table_title = "(d) SCHEDULE"
        panel.table = [f"project: {p.start or 'start not given'} to {p.end or 'end not given'}"]
        return
    phases = dist["phase"].fillna("").astype(str).tolist() if "phase" in dist.columns else [""] * len(dist)
    base = STYLES["disturbance"]
    for i, ph in enumerate(dict.fromkeys(phases)):
        sel = dist[[q == ph for q in phases]]
        st = Style(
            "polygon",
            base.label,
            face=PHASE_COLORS[i % len(PHASE_COLORS)],
            edge=base.edge,
            lw=base.lw,
            alpha=base.alpha,
            z=base.z,
        )
        L.draw_geoms(sheet, sel.geometry.values, st)
        panel.add(st, f"(a) Land disturbance, phase {ph}" if ph else "(a) Land disturbance")
    label_geoms, texts, rows = [], [], []
    key = dist["phase"] if "phase" in dist.columns else dist["id"]
    for ph in ctx.phases():
        sel = dist[[str(q) == str(ph["phase"]) for q in key]]
        if not len(sel):
            continue
        head = f"Phase {ph['phase']}" if "phase" in dist.columns else f"Disturbance {ph['phase']}"
        label_geoms.append(shapely.union_all(sel.geometry.values))
        texts.append(f"{head}\n{_d(ph.get('start'))} to {_d(ph.get('end'))}\n{sqft_text(ph['area_sqft'])}")
        rows.append(cells(ph["phase"], _d(ph.get("start")), _d(ph.get("end")), f"{ph['area_acres']:.2f}"))
    L.label_polygons(
        sheet,
        gpd.GeoDataFrame(geometry=label_geoms, crs=dist.crs),
        texts,
        size=BODY_PT,
        min_sq_in=0.15,
        kind="phase",
    )
    panel.table_title = "(d) SCHEDULE: disturbance phases and BMPs"
    panel.table = [
        cells("phase", "start", "end", "acres"),
        *rows,
        f"project: {p.start or 'start not given'} to {p.end or 'end not given'}",
    ]


def _proposed_improvements(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> None:
    """What the plan builds: proposed structures, new roads and utilities, labelled from their attributes."""
    for name, st_key in (
        ("roads", "roads_proposed"),
        ("utilities", "utilities_proposed"),
        ("structures", "structures_proposed"),
    ):
        keep = (lambda s: s == "proposed") if name == "structures" else (lambda s: s not in ("existing", ""))
        new = status_filter(ctx.site_layer(name), keep)
        if new is None:
            continue
        st = STYLES[st_key]
        L.draw_geoms(sheet, new.geometry.values, st)
        label_improvements(sheet, name, new, ctx.site.ft_per_unit, st.edge)
        panel.add(st, "(a) " + st.label)


def _stockpiles(ctx: MapContext, sheet: L.MapSheet, panel: Panel, absent: list[str]) -> None:
    """(b) soil stockpiles, labelled with name, days and area."""
    piles = ctx.site_layer("stockpiles")
    if piles is None:
        absent.append("(b) soil stockpiles")
        return
    st = STYLES["stockpiles"]
    L.draw_geoms(sheet, piles.geometry.values, st)
    days = piles["days"] if "days" in piles.columns else [None] * len(piles)
    texts = [
        short_name(name_of(r, "stockpile"), 24)
        + (f", {int(d)} days" if not is_nan(d) else "")
        + f"\n{area_text(r.geometry, ctx.site.ft_per_unit)}"
        for (_, r), d in zip(piles.iterrows(), days, strict=True)
    ]
    L.label_polygons(sheet, piles, texts, size=MIN_PT, min_sq_in=0.5, kind="stockpile")
    panel.add(st, "(b) " + st.label)


def _zones(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> None:
    """The distances the plan keeps (the practices of the ``setback`` family: a pile's setback zone), from
    the analysis' layers, each in its practice's look.
    """
    for p in registry.PRACTICES:
        if p.family != "setback":
            continue
        for layer in p.layers:
            gdf = ctx.site_plan.derived.get(layer.name)
            if gdf is None or not len(gdf):
                continue
            st = p.looks[layer.rules[-1][1]]
            L.draw_geoms(sheet, gdf.geometry.values, st)
            panel.add(st, "(b) " + st.label)


def _controls(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> None:
    """(c) every control of the plan in its practice's symbol (one legend row a symbol), each tagged with
    its number (``C7``: the schedule's row names it), and a note for each kind standing in for another.
    """
    plan = ctx.site_plan
    by_symbol: dict[str, tuple[Symbol, list[Control]]] = {}
    for c in plan.controls:
        sym = c.symbol()
        by_symbol.setdefault(sym.key, (sym, []))[1].append(c)
    for sym, cs in sorted(by_symbol.values(), key=lambda v: v[0].style.z):
        L.draw_geoms(sheet, [c.geometry for c in cs], sym.style)
        panel.add(
            sym.style,
            "(c) "
            + sym.style.label
            + (for_reference(plan, cs[0].practice) if plan.source == "proposed" else ""),
        )
    tol = 1.0 / plan.site.ft_per_unit
    for sym, cs in by_symbol.values():
        runs = control_runs(cs, tol)
        L.label_polygons(
            sheet,
            gpd.GeoDataFrame(geometry=[g for g, _ in runs], crs=plan.site.crs),
            [run_label(run) for _, run in runs],
            size=MIN_PT,
            color=sym.style.edge,
            kind="control",
            min_sq_in=0.0,
        )
    areas = [c.geometry for c in plan.controls if c.family != "line"]
    _boundary_kept_clear(ctx, sheet, shapely.union_all(areas) if areas else None)
    panel.notes += stand_in_notes(plan)
    if plan.source == "proposed" and plan.submitted:
        panel.notes.append(
            f"(c) The {len(plan.controls)} controls shown are this plan's; the {len(plan.submitted)} "
            "controls submitted earlier for this site are replaced by them."
        )


def for_reference(plan: Plan, practice: str) -> str:
    """What a legend row of ``practice``'s controls adds where the chapter does not ask for them here: the
    gate's decision its layers carry (their ``required`` column, :func:`geosite.practices.context.mark`):
    shown for reference where every feature is not required, "required only if it applies" where none is
    decided, nothing where any is required or the layers say nothing.
    """
    import pandas as pd

    p = registry.named(practice)
    got = [
        gdf["required"]
        for layer in (p.layers if p is not None else ())
        if (gdf := plan.derived.get(layer.name)) is not None and len(gdf) and "required" in gdf.columns
    ]
    if not got:
        return ""
    req = pd.concat(got, ignore_index=True)
    if req.eq(True).any():
        return ""
    if req.eq(False).all():
        return " (shown for reference: not required here)"
    return " (required only if it applies: not decided)"


def control_runs(controls: list[Control], tol: float) -> list[tuple[Any, list[Control]]]:
    """The controls of one symbol in runs labelled once: lines that meet (within ``tol``, CRS units) merged
    into one line, touching areas into one, points one by one; controls of different names never share a
    run. Each run: (its geometry, its controls).
    """
    out: list[tuple[Any, list[Control]]] = []
    by_name: dict[str | None, list[Control]] = {}
    for c in controls:
        by_name.setdefault(c.name, []).append(c)
    for cs in by_name.values():
        if cs[0].family == "point" or len(cs) == 1:
            out += [(c.geometry, [c]) for c in cs]
            continue
        whole = shapely.union_all([c.geometry.buffer(tol / 2) for c in cs])
        for part in shapely.get_parts(whole):
            held = [c for c in cs if c.geometry.intersects(part)]
            shape = shapely.union_all([c.geometry for c in held])
            if cs[0].family == "line":
                snapped = [shapely.snap(c.geometry, shape, tol) for c in held]
                shape = shapely.line_merge(shapely.union_all(snapped))
            out.append((shape, held))
    return out


def run_label(run: list[Control]) -> str:
    """A run's label: its controls' tags, the name they share, and each note of theirs (a trap with no room
    on the site says so where it would go).
    """
    name = run[0].name
    text = tag_runs([c.id for c in run]) + (f" {name}" if name else "")
    notes = dict.fromkeys(str(c.get("note")) for c in run if c.get("note"))
    return "\n".join([text, *(_wrapped(n) for n in notes)])


def _wrapped(text: str, width: int = 48) -> str:
    """``text`` in lines of about ``width`` characters, for a label."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def stand_in_notes(plan: Plan) -> list[str]:
    """One note for each kind of control standing in for another (its ``stand_in_for``): its tags, what it
    is, its quantity and why.
    """
    groups: dict[tuple[str, str], list[Control]] = {}
    for c in plan.controls:
        why = c.get("stand_in_for")
        if why:
            groups.setdefault((short_words(c.what), str(why)), []).append(c)
    out = []
    for (what, why), cs in groups.items():
        amounts = [plan.quantity(c) for c in cs]
        qty = (
            f", {sum(a[0] for a in amounts if a):,.0f} {amounts[0][1]}"
            if amounts and all(a is not None for a in amounts) and amounts[0] is not None
            else ""
        )
        out.append(f"(c) {tag_runs([c.id for c in cs])} {what}{qty} ({cs[0].standard}): in place of {why}.")
    return out


def _boundary_kept_clear(ctx: MapContext, sheet: L.MapSheet, near) -> None:
    """Keep labels off the site boundary's line within 1.5 in (on paper) of ``near`` (the controls drawn
    as areas and points): its line marked every 0.05 in as a symbol a label must not hide.
    """
    from geosite.maps import labels

    if not sheet.drawing or near is None or near.is_empty:
        return
    upi = sheet.plan.units_per_inch
    line = ctx.site.boundary.boundary.intersection(near.buffer(1.5 * upi))
    marks = [
        p.interpolate(d)
        for p in shapely.get_parts(line)
        if p.length > 0
        for d in np.arange(0.0, p.length + 1e-9, 0.05 * upi)
    ]
    labels.avoid(sheet, marks, pad_in=0.03)


def render_construction_plan(
    result_or_site,
    out_path: str | Path | None = None,
    sheet: str = "auto",
    scale_ft: float | None = None,
    *,
    margin_ft: float | None = None,
    vertical_datum: str | None = None,
    date: str | None = None,
    sheet_no: str = "2",
    png_dpi: int | None = PNG_DPI,
    svg: bool = False,
):
    """Draw the site construction plan at exactly 1 in = ``scale_ft`` ft; arguments and return value as
    :func:`geosite.maps.render_existing_site_map`. The control layers come from the analysis result.
    """
    ctx = make_context(
        result_or_site,
        scale_ft=scale_ft,
        sheet=sheet,
        margin_ft=margin_ft,
        vertical_datum=vertical_datum,
        date=date,
        hillshade=False,
    )
    return render(ctx, draw_construction, out_path, sheet_no, png_dpi=png_dpi, svg=svg)


__all__ = ["render_construction_plan", "shapely"]
