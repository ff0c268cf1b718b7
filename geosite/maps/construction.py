"""The site construction plan (plan A(3)): disturbed areas by phase with their dates, stockpiles with
their setback zones, every control the analysis placed (fences by side, basins, inlet protection,
tracking pads, diversions) and the submitted BMPs, over a faint base of the existing site; the panel
carries the schedule of disturbance phases and project dates.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import shapely

from geosite.maps import layout as L
from geosite.maps.common import (
    PNG_DPI,
    MapContext,
    Panel,
    area_text,
    draw_boundary,
    draw_relief,
    faint_style,
    is_nan,
    make_context,
    name_of,
    render,
    short_name,
    sqft_text,
    status_filter,
)
from geosite.maps.existing import label_improvements
from geosite.maps.provisions import maintenance_text, practices_on_plan, schedule_table, stabilization_text
from geosite.maps.symbology import INK, STYLES, SUBMITTED, Style, submitted_style

HEADING = "SITE CONSTRUCTION PLAN"
PHASE_COLORS = ["#f4d9a6", "#f5b7b1", "#d2b4de", "#aed6f1", "#a3e4d7", "#f9e79f", "#d5dbdb"]
#: filter fence colours by side (each drawn with the fence's x marks; none black, none dashed like the
#: site boundary)
SIDE_COLORS = {
    "downslope": "#b03a2e",
    "sideslope": "#b9770e",
    "channel": "#117a65",
    "interior": "#6e2c00",
    "hook": "#b03a2e",
    "stockpile": "#5c3d1e",
}
#: control layers (analysis) in drawing order: layer, the A(3) item they answer
CONTROL_LAYERS = (
    "stockpile_setbacks",
    "sediment_basins",
    "tracking_pads",
    "diversions",
    "filter_fence",
    "stockpile_fences",
    "inlet_protection",
)


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
    present = _controls(ctx, sheet, panel)
    not_placed = [n.replace("_", " ") for n in CONTROL_LAYERS if n not in present]
    if not draw_submitted(ctx, sheet, panel):
        absent.append("(c) submitted BMPs (layer bmps)")
    draw_boundary(ctx, sheet, panel)
    panel.missing = absent
    if not_placed:
        panel.notes.append(
            "(c) Controls the analysis did not place (not required by its findings, or the controls "
            "stage has not run): " + ", ".join(not_placed) + "."
        )
    rows, notes = schedule_table(ctx)
    provisions = (
        [f"(d) {n}" for n in notes] + maintenance_text(ctx, practices_on_plan(ctx)) + stabilization_text(ctx)
    )
    block = [("table", r) for r in panel.table + rows] + [("provision", t) for t in provisions]
    if L.frame_block(sheet, panel.table_title + ", MAINTENANCE (e) AND STABILIZATION (f)", block):
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
        absent.append("(a) land disturbance (layer disturbance)")
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
        rows.append(
            f"{str(ph['phase'])[:6]:<6} {_d(ph.get('start')):<10} {_d(ph.get('end')):<10} "
            f"{ph['area_acres']:6.2f}"
        )
    L.label_polygons(
        sheet,
        gpd.GeoDataFrame(geometry=label_geoms, crs=dist.crs),
        texts,
        size=6.5,
        min_sq_in=0.15,
        kind="phase",
    )
    panel.table_title = "(d) SCHEDULE: disturbance phases and BMPs"
    panel.table = [
        f"{'phase':<6} {'start':<10} {'end':<10} {'acres':>6}",
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
        absent.append("(b) soil stockpiles (layer stockpiles)")
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
    L.label_polygons(sheet, piles, texts, size=6, min_sq_in=0.5, kind="stockpile")
    panel.add(st, "(b) " + st.label)


def _controls(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> list[str]:
    """(c) the controls the analysis placed; fences coloured by side, traps and basins at their outlets
    labelled with type and drainage. Returns the layers drawn.
    """
    present = []
    for name in CONTROL_LAYERS:
        gdf = ctx.derived.get(name)
        if gdf is None or not len(gdf):
            continue
        present.append(name)
        st = STYLES[name]
        req = (
            gdf["required"] if "required" in gdf.columns else None
        )  # the controls stage's gate: False = for reference
        ref = (
            ""
            if req is None or req.eq(True).any()
            else (
                " (shown for reference: not required here)"
                if req.eq(False).all()
                else " (required only if it applies: not decided)"
            )
        )
        if name == "filter_fence" and "side" in gdf.columns:
            _stand_in_areas(sheet, panel, ctx.derived.get("stand_ins"))
            _stand_ins(ctx, sheet, panel, gdf[gdf["side"] == "stand_in"])
            gdf = gdf[gdf["side"] != "stand_in"]
            for side, sel in gdf.groupby(gdf["side"].fillna("unspecified").astype(str)):
                color = SIDE_COLORS.get(side, "#7d3c98")
                L.draw_geoms(sheet, sel.geometry.values, st, edge=color)
                panel.add(
                    dataclasses.replace(st, edge=color),
                    f"(c) {st.label}, {side}{' side' if side != 'hook' else 's (ends turned upslope)'}{ref}",
                )
            continue
        if name == "sediment_basins":
            _traps_and_basins(ctx, sheet, panel, gdf, ref)
            continue
        L.draw_geoms(sheet, gdf.geometry.values, st)
        panel.add(st, "(c) " + st.label + ref)
    return present


def _traps_and_basins(ctx: MapContext, sheet: L.MapSheet, panel: Panel, gdf, ref: str) -> None:
    """Proposed traps as their footprints: their DNR 1063 surface area (the profile's sq ft per acre
    drained), on the site at the outlet they serve (:mod:`geosite.controls.trap_sites`), or, where none
    fits, the statement in words at the outlet; basins (DNR 1064, sized by design) and traps the profile
    gives no size for, as a circle symbol at the outlet. Each labelled with type, drainage and, for a
    trap, its area.
    """
    feet = ctx.derived.get("sediment_basin_footprints")
    by_outlet = {} if feet is None else {int(r.outlet): r for r in feet.itertuples()}
    outlet = gdf["outlet"] if "outlet" in gdf.columns else [None] * len(gdf)
    fps = [by_outlet.get(int(o)) if o is not None else None for o in outlet]
    placed = [fp is not None and bool(fp.placed) for fp in fps]
    if any(placed):
        st = STYLES["sediment_traps_sized"]
        L.draw_geoms(
            sheet, [fp.geometry for fp, ok in zip(fps, placed, strict=True) if ok and fp is not None], st
        )
        panel.add(st, "(c) " + st.label + ref)
    symbols = [g for g, fp in zip(gdf.geometry.values, fps, strict=True) if fp is None]
    if symbols:
        st = STYLES["sediment_basins"]
        L.draw_geoms(sheet, symbols, st)
        panel.add(st, "(c) " + st.label + ref)
    where, texts = [], []
    for (_, r), fp, ok in zip(gdf.iterrows(), fps, placed, strict=True):
        where.append(fp.geometry if ok and fp is not None else r.geometry)
        texts.append(
            _basin_text(r)
            + ("" if fp is None else f"\n{float(fp.surface_sqft):,.0f} sq ft surface")
            + ("" if fp is None or ok else f"\n{_wrapped(str(fp.placement))}")
        )
    at = gdf.set_geometry(where, crs=gdf.crs)
    _boundary_kept_clear(ctx, sheet, shapely.union_all(where))
    L.label_polygons(sheet, at, texts, size=6, color=STYLES["sediment_basins"].edge, kind="control")


def _boundary_kept_clear(ctx: MapContext, sheet: L.MapSheet, near) -> None:
    """Keep labels off the site boundary's line within 1.5 in (on paper) of ``near`` (the traps): its
    line marked every 0.05 in as a symbol a label must not hide.
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


def _wrapped(text: str, width: int = 48) -> str:
    """``text`` in lines of about ``width`` characters, for a label."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def _basin_text(r) -> str:
    """A proposed trap's or basin's label: its type, what drains to it and its standard."""
    kind = str(r.get("kind") or "sediment trap or basin").replace("_", " ")
    ac = r.get("drainage_acres")
    std = str(r.get("limit") or "").split(":")[0]
    return kind + (f", drains {float(ac):.2f} ac" if not is_nan(ac) else "") + (f" ({std})" if std else "")


def draw_submitted(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> bool:
    """(c) the submitted BMPs (layer ``bmps``), each type in its practice's own symbol, one label per
    run (contiguous features of one type merged first), never one per segment. False without the layer.
    """
    bmps = ctx.site_layer("bmps")
    if bmps is None:
        return False
    types = bmps["type"].fillna("bmp").astype(str) if "type" in bmps.columns else ["bmp"] * len(bmps)
    fpu = ctx.site.ft_per_unit
    for t in dict.fromkeys(types):
        sel = bmps[[x == t for x in types]]
        for kind, geoms in _by_kind(sel.geometry.values).items():
            st = submitted_style(t, kind)
            L.draw_geoms(sheet, geoms, st)
            panel.add(st, "(c) " + st.label)
            for run in practice_runs(geoms, tol=1.0 / fpu):
                L.label_polygons(
                    sheet,
                    gpd_frame([run], bmps.crs),
                    [_run_text(t, run, sel, fpu)],
                    size=6,
                    color=SUBMITTED,
                    kind="control",
                    min_sq_in=0.0,
                )
    return True


def _by_kind(geoms) -> dict[str, list]:
    out: dict[str, list] = {}
    for g in geoms:
        if g is None or g.is_empty:
            continue
        t = g.geom_type
        kind = "polygon" if "Polygon" in t else "line" if "LineString" in t else "point"
        out.setdefault(kind, []).append(g)
    return out


def practice_runs(geoms, tol: float) -> list:
    """Runs of one practice: lines merged where they meet (within ``tol``, CRS units) into one line each,
    touching polygons into one, points one by one.
    """
    if not geoms:
        return []
    if all("LineString" in g.geom_type for g in geoms):
        merged = shapely.line_merge(
            shapely.union_all([shapely.snap(g, shapely.union_all(geoms), tol) for g in geoms])
        )
        return [p for p in shapely.get_parts(merged) if not p.is_empty]
    if all("Polygon" in g.geom_type for g in geoms):
        return [
            p
            for p in shapely.get_parts(shapely.union_all([g.buffer(tol / 2) for g in geoms]).buffer(-tol / 2))
            if not p.is_empty
        ]
    return list(geoms)


def _run_text(t: str, run, sel, fpu: float) -> str:
    """A run's label: the features' shared name (else the type), a line's length, a basin's storage."""
    hit = sel[sel.intersects(run.buffer(1.0 / fpu))]
    names = {
        str(n).strip()
        for n in (hit["name"] if "name" in hit.columns else [])
        if not is_nan(n) and str(n).strip()
    }
    text = names.pop() if len(names) == 1 else t.replace("_", " ")
    if "LineString" in run.geom_type:
        text += f", {run.length * fpu:,.0f} ft"
    if t in ("sediment_basin", "sediment_trap"):
        cy = hit["storage_cy"].dropna() if "storage_cy" in hit.columns else []
        ac = hit["drainage_acres"].dropna() if "drainage_acres" in hit.columns else []
        text += f"\n{t.replace('_', ' ')}" + (
            f", storage {float(sum(cy)):,.0f} cu yd" if len(cy) else ", storage not given"
        )
        text += f", drains {float(sum(ac)):.2f} ac" if len(ac) else ""
    return text


def gpd_frame(geoms, crs):
    """A GeoDataFrame of ``geoms`` (geometry only) in ``crs``."""
    import geopandas as gpd

    return gpd.GeoDataFrame(geometry=list(geoms), crs=crs)


def _stand_in_areas(sheet: L.MapSheet, panel: Panel, areas) -> None:
    """What stands in where an interior fence row cannot be built (the controls stage's ``stand_ins``
    layer): drawn where it goes, at its size, with one note per practice saying why.
    """
    if areas is None or not len(areas):
        return
    st = STYLES["stand_ins"]
    L.draw_geoms(sheet, areas.geometry.values, st)
    panel.add(st, "(c) " + st.label)
    by = areas.groupby(areas["practice"].astype(str))
    for practice, sel in by:
        why = str(sel["stand_in_for"].iloc[0]) if "stand_in_for" in sel.columns else ""
        panel.notes.append(
            f"(c) {practice[:1].upper()}{practice[1:]} ({sel['area_sqft'].sum():,.0f} sq ft"
            + (f"; {sel['standard'].iloc[0]}" if "standard" in sel.columns else "")
            + f"): {why}."
        )


def _stand_ins(ctx: MapContext, sheet: L.MapSheet, panel: Panel, stand) -> None:
    """Where an interior row cannot be built: drawn (not as fence) and named in a note with what
    stands in for it (controls.fences.STAND_INS).
    """
    if stand is None or not len(stand):
        return
    st = STYLES["fence_stand_in"]
    L.draw_geoms(sheet, stand.geometry.values, st)
    panel.add(st, "(c) " + st.label)
    names = {}
    for layer in (
        "structures",
        "stockpiles",
        "access_drives",
        "roads",
        "streams",
        "lakes",
        "wetlands",
        "channels",
    ):
        gdf = ctx.site_layer(layer)
        if gdf is not None and "id" in gdf.columns:
            names.update(
                {
                    f"{layer} {i}": name_of(r, f"{layer} {i}")
                    for i, (_, r) in zip(gdf["id"], gdf.iterrows(), strict=True)
                }
            )
    by = stand.groupby([stand["practice"].astype(str), stand["obstacle"].fillna("short pieces").astype(str)])[
        "length_ft"
    ].sum()
    for practice in dict.fromkeys(
        p for p, _ in by.index
    ):  # one note per practice standing in, its places listed
        where = ", ".join(f"{names.get(o, o)} ({ft:,.0f} ft)" for (p, o), ft in by.items() if p == practice)
        panel.notes.append(f"(c) Interior silt fence rows not buildable at {where}: {practice}.")


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
