"""The site construction plan (plan A(3)): disturbed areas by phase with their dates, stockpiles with
their setback zones, every control the analysis placed (fences by side, basins, inlet protection,
tracking pads, diversions) and the submitted BMPs, over a faint base of the existing site; the panel
carries the schedule of disturbance phases and project dates."""

from __future__ import annotations

from pathlib import Path

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
from geosite.maps.symbology import INK, STYLES, Style

HEADING = "SITE CONSTRUCTION PLAN"
PHASE_COLORS = ["#f4d9a6", "#f5b7b1", "#d2b4de", "#aed6f1", "#a3e4d7", "#f9e79f", "#d5dbdb"]
SIDE_COLORS = {"downslope": "#111111", "sideslope": "#6e2c00", "channel": "#1f618d", "stockpile": "#5c3d1e"}
#: control layers (analysis) in drawing order: layer, the A(3) item they answer
CONTROL_LAYERS = ("stockpile_setbacks", "sediment_basins", "tracking_pads", "diversions", "filter_fence",
                  "stockpile_fences", "inlet_protection")


def _d(v) -> str:
    return "?" if is_nan(v) or v is None or str(v) in ("NaT", "None", "") else str(v)[:10]


def draw_base(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> None:
    """The existing site, faint: contours, water, roads, structures, inlets (legend entries 'existing')."""
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
            if name == "roads":
                label_improvements(sheet, name, gdf, ctx.site.ft_per_unit, "#555555")
    inlets = ctx.site_layer("storm_inlets")
    if inlets is not None:
        L.draw_geoms(sheet, inlets.geometry.values, STYLES["storm_inlets"])
        label_improvements(sheet, "storm_inlets", inlets, ctx.site.ft_per_unit, INK)
        panel.add(STYLES["storm_inlets"], STYLES["storm_inlets"].label)


def draw_construction(ctx: MapContext, sheet: L.MapSheet) -> tuple[Panel, list[tuple[str, str]]]:
    panel = Panel(HEADING, f"{ctx.profile.name} ordinance, plan content A(3)(a)-(d): land disturbance, "
                           "stockpiles, best management practices and schedule")
    fpu = ctx.site.ft_per_unit
    draw_base(ctx, sheet, panel)
    absent: list[str] = []
    # (a) disturbance by phase
    dist = ctx.site_layer("disturbance")
    if dist is not None:
        phases = dist["phase"].fillna("").astype(str).tolist() if "phase" in dist.columns else [""] * len(dist)
        order = list(dict.fromkeys(phases))
        base = STYLES["disturbance"]
        for i, ph in enumerate(order):
            sel = dist[[p == ph for p in phases]]
            st = Style("polygon", base.label, face=PHASE_COLORS[i % len(PHASE_COLORS)], edge=base.edge, lw=base.lw,
                       alpha=base.alpha, z=base.z)
            L.draw_geoms(sheet, sel.geometry.values, st)
            panel.add(st, f"(a) Land disturbance, phase {ph}" if ph else "(a) Land disturbance")
        # one label and one schedule row per phase, with report.json's area (clipped to the site)
        import geopandas as gpd

        phases = ctx.phases()
        label_geoms, texts, rows = [], [], []
        for ph in phases:
            sel = dist[[str(p) == str(ph["phase"]) for p in (dist["phase"] if "phase" in dist.columns else dist["id"])]]
            if not len(sel):
                continue
            head = f"Phase {ph['phase']}" if "phase" in dist.columns else f"Disturbance {ph['phase']}"
            label_geoms.append(shapely.union_all(sel.geometry.values))
            texts.append(f"{head}\n{_d(ph.get('start'))} to {_d(ph.get('end'))}\n{sqft_text(ph['area_sqft'])}")
            rows.append(f"{str(ph['phase'])[:6]:<6} {_d(ph.get('start')):<10} {_d(ph.get('end')):<10} "
                        f"{ph['area_acres']:6.2f}")
        L.label_polygons(sheet, gpd.GeoDataFrame(geometry=label_geoms, crs=dist.crs), texts, size=6.5,
                         min_sq_in=0.15, kind="phase")
        panel.table_title = "(d) SCHEDULE: disturbance phases"
        panel.table = [f"{'phase':<6} {'start':<10} {'end':<10} {'acres':>6}", *rows]
    else:
        absent.append("(a) land disturbance (layer disturbance)")
        panel.table_title = "(d) SCHEDULE"
    p = ctx.site.project
    panel.table.append(f"project: {p.start or 'start not given'} to {p.end or 'end not given'}")
    # what the plan builds: proposed structures, new roads and utilities, labelled from their attributes
    for name, st_key in (("roads", "roads_proposed"), ("utilities", "utilities_proposed"),
                         ("structures", "structures_proposed")):
        keep = (lambda s: s == "proposed") if name == "structures" else (lambda s: s not in ("existing", ""))
        new = status_filter(ctx.site_layer(name), keep)
        if new is None:
            continue
        st = STYLES[st_key]
        L.draw_geoms(sheet, new.geometry.values, st)
        label_improvements(sheet, name, new, fpu, st.edge)
        panel.add(st, "(a) " + st.label)
    # (b) stockpiles
    piles = ctx.site_layer("stockpiles")
    if piles is not None:
        st = STYLES["stockpiles"]
        L.draw_geoms(sheet, piles.geometry.values, st)
        texts = [(short_name(name_of(r, "stockpile"), 24) + (f", {int(r['days'])} days" if "days" in piles.columns and not is_nan(r.get("days")) else ""))
                 + f"\n{area_text(r.geometry, fpu)}" for _, r in piles.iterrows()]
        L.label_polygons(sheet, piles, texts, size=6, min_sq_in=0.5, kind="stockpile")
        panel.add(st, "(b) " + st.label)
    else:
        absent.append("(b) soil stockpiles (layer stockpiles)")
    # (c) controls placed by the analysis
    for name in CONTROL_LAYERS:
        gdf = ctx.derived.get(name)
        if gdf is None or not len(gdf):
            continue
        st = STYLES[name]
        req = gdf["required"] if "required" in gdf.columns else None  # the controls stage's gate: False = for reference
        ref = "" if req is None or (req == True).any() else (  # noqa: E712 (None-aware)
            " (shown for reference: not required here)" if (req == False).all() else " (required only if it applies: not decided)")  # noqa: E712
        if name == "filter_fence" and "side" in gdf.columns:
            stand = gdf[gdf["side"] == "stand_in"]
            gdf = gdf[gdf["side"] != "stand_in"]
            _stand_ins(ctx, sheet, panel, stand)
            for side, sel in gdf.groupby(gdf["side"].fillna("unspecified").astype(str)):
                color = SIDE_COLORS.get(side, "#7d3c98")
                L.draw_geoms(sheet, sel.geometry.values, st, edge=color)
                panel.add(Style(st.kind, st.label, edge=color, lw=st.lw, ls=st.ls), f"(c) {st.label}, {side} side{ref}", edge=color)
        else:
            L.draw_geoms(sheet, gdf.geometry.values, st)
            panel.add(st, "(c) " + st.label + ref)
    present = [n for n in CONTROL_LAYERS if ctx.derived.get(n) is not None and len(ctx.derived[n])]
    not_placed = [n.replace("_", " ") for n in CONTROL_LAYERS if n not in present]
    bmps = ctx.site_layer("bmps")
    if bmps is not None:
        st = STYLES["bmps"]
        L.draw_geoms(sheet, bmps.geometry.values, st)
        L.label_polygons(sheet, bmps, [str(t).replace("_", " ") for t in bmps["type"]] if "type" in bmps.columns
                         else [""] * len(bmps), size=6, min_sq_in=0.0)
        panel.add(st, "(c) " + st.label)
    else:
        absent.append("(c) submitted BMPs (layer bmps)")
    draw_boundary(ctx, sheet, panel)
    panel.missing = absent
    if not_placed:
        panel.notes.append("(c) Controls the analysis did not place (not required by its findings, or the controls "
                           "stage has not run): " + ", ".join(not_placed) + ".")
    panel.notes.append("(e) maintenance and (f) stabilization are written provisions of the plan, not drawn here.")
    return panel, []


def _stand_ins(ctx: MapContext, sheet: L.MapSheet, panel: Panel, stand) -> None:
    """Where an interior row cannot be built: drawn (not as fence) and named in a note with what
    stands in for it (controls.fences.STAND_INS)."""
    if stand is None or not len(stand):
        return
    st = STYLES["fence_stand_in"]
    L.draw_geoms(sheet, stand.geometry.values, st)
    panel.add(st, "(c) " + st.label)
    names = {}
    for layer in ("structures", "stockpiles", "access_drives", "roads", "streams", "lakes", "wetlands", "channels"):
        gdf = ctx.site_layer(layer)
        if gdf is not None and "id" in gdf.columns:
            names.update({f"{layer} {i}": name_of(r, f"{layer} {i}") for i, (_, r) in zip(gdf["id"], gdf.iterrows(), strict=True)})
    by = stand.groupby([stand["obstacle"].fillna("short pieces").astype(str), stand["practice"].astype(str)])["length_ft"].sum()
    for (obst, practice), ft in by.items():
        what = names.get(obst, obst)
        panel.notes.append(f"(c) Interior silt fence row not buildable at {what} ({ft:,.0f} ft): {practice}.")


def render_construction_plan(result_or_site, out_path: str | Path | None = None, sheet: str = "auto",
                             scale_ft: float = 100, *, margin_ft: float | None = None,
                             vertical_datum: str | None = None, date: str | None = None, sheet_no: str = "2",
                             png_dpi: int | None = PNG_DPI, svg: bool = False):
    """Draw the site construction plan at exactly 1 in = ``scale_ft`` ft; arguments and return value as
    :func:`geosite.maps.render_existing_site_map`. The control layers come from the analysis result."""
    ctx = make_context(result_or_site, scale_ft=scale_ft, sheet=sheet, margin_ft=margin_ft,
                       vertical_datum=vertical_datum, date=date, hillshade=False)
    return render(ctx, draw_construction, out_path, sheet_no, png_dpi=png_dpi, svg=svg)


__all__ = ["render_construction_plan", "shapely"]
