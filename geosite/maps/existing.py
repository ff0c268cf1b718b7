"""The existing site map (Grantsburg plan A(1)(a)-(j), Belgium A(1)(a)-(d), (f)-(h)): the site and the
adjacent area, every existing-conditions layer the data holds, 5-ft contours with labelled index
contours over an optional hillshade, and the contacts in the title block. Every item the data lacks is
listed on the sheet as not present, never silently left out."""

from __future__ import annotations

from pathlib import Path

from geosite.maps import layout as L
from geosite.maps.common import (
    MapContext,
    Panel,
    area_text,
    draw_boundary,
    draw_relief,
    is_nan,
    make_context,
    render,
    status_filter,
)
from geosite.maps.symbology import EXISTING_ITEMS, STYLES, item_of

HEADING = "EXISTING SITE MAP"


def _txt(v) -> str:
    return "" if is_nan(v) else str(v)


def draw_existing(ctx: MapContext, sheet: L.MapSheet) -> tuple[Panel, list[tuple[str, str]]]:
    j = ctx.profile.id
    panel = Panel(HEADING, f"{ctx.profile.name} ordinance, plan content A(1): existing conditions on the site "
                           f"and within {ctx.margin_ft:g} ft of it")
    letter = lambda layer: item_of(j, layer)  # noqa: E731
    pre = lambda layer: f"({letter(layer)}) " if letter(layer) else ""  # noqa: E731
    absent: dict[str, list[str]] = {}

    def missing(layer: str, what: str) -> None:
        absent.setdefault(letter(layer) or "", []).append(what)

    fpu = ctx.site.ft_per_unit
    # relief first (under everything)
    has_relief = draw_relief(ctx, sheet, panel, letter("contours"))
    # area layers, bottom up
    # area layers, bottom up: (layer, label column, label text, label colour, size, legend note, if absent)
    for name, col, text, color, size, note, what in (
        ("vegetation", "cover", lambda v: _txt(v).replace("_", " "), "#4d7a3a", 6.5, "",
         "vegetative cover (layer vegetation)"),
        ("soils", "musym", _txt, "#7a4f1c", 7, "", "soil types (layer soils)"),
        ("floodplain", "zone", lambda v: _txt(v).replace("100yr", "100-yr floodplain"), None, 6.5, " (label: zone)",
         "floodplain, fringe and floodway (layer floodplain)"),
    ):
        gdf = ctx.site_layer(name)
        if gdf is None:
            missing(name, what)
            continue
        st = STYLES[name]
        L.draw_geoms(sheet, gdf.geometry.values, st)
        if col in gdf.columns:
            L.label_polygons(sheet, gdf, [text(v) for v in gdf[col]], color=color or st.edge, size=size)
        panel.add(st, pre(name) + st.label + (note if col in gdf.columns else ""))
    for name, what in (("wetlands", "wetlands"), ("lakes", "lakes and ponds"), ("streams", "streams"),
                       ("channels", "channels and ditches (layer channels)")):
        gdf = ctx.site_layer(name)
        if gdf is None:
            missing(name, what)
            continue
        st = STYLES[name]
        L.draw_geoms(sheet, gdf.geometry.values, st)
        if "name" in gdf.columns:
            L.label_polygons(sheet, gdf, [_txt(n) for n in gdf["name"]], color=st.edge, style="italic")
        panel.add(st, pre(name) + st.label)
    # drainage: storm system (submitted) and natural drainage (hydrology stage)
    nat = ctx.derived.get("channels")
    if nat is not None and len(nat):
        st = STYLES["natural_drainage"]
        L.draw_geoms(sheet, nat.geometry.values, st)
        panel.add(st, pre("natural_drainage") + st.label)
    elif nat is not None:
        panel.notes.append(f"{pre('natural_drainage')}Natural drainage: the DEM's flow routing finds no channel "
                           "on or near the site (sheet flow only).")
    else:
        missing("natural_drainage", "natural drainage paths: not computed (needs the DEM and the hydrology stage)")
    up = ctx.derived.get("upslope_areas")
    if up is not None and not len(up):
        panel.notes.append(f"{pre('upslope_areas')}Upslope drainage areas: none drain onto the disturbed area.")
    if up is not None and len(up):
        st = STYLES["upslope_areas"]
        L.draw_geoms(sheet, up.geometry.values, st)
        L.label_polygons(sheet, up, [_upslope_label(r, fpu) for _, r in up.iterrows()], color=st.edge)
        panel.add(st, pre("upslope_areas") + st.label)
        ent = ctx.derived.get("upslope_entry_points")
        if ent is not None and len(ent):
            st2 = STYLES["upslope_entry_points"]
            L.draw_geoms(sheet, _thin_entries(ent, 40.0 / fpu).geometry.values, st2)
            panel.add(st2, pre("upslope_areas") + st2.label)
    else:
        missing("upslope_areas", "upslope drainage areas: not computed (needs the DEM and the hydrology stage)")
    # improvements
    roads = status_filter(ctx.site_layer("roads"), lambda s: s != "new")
    for name, gdf, what in (
        ("roads", roads, "roads, highways and paving (layer roads)"),
        ("access_drives", ctx.site_layer("access_drives"), "access drives"),
        ("utilities", status_filter(ctx.site_layer("utilities"), lambda s: s != "new"), "utilities (layer utilities)"),
        ("structures", status_filter(ctx.site_layer("structures"), lambda s: s != "proposed"), "existing structures"),
    ):
        if gdf is None:
            missing(name, what)
            continue
        st = STYLES[name]
        L.draw_geoms(sheet, gdf.geometry.values, st)
        col = {"roads": "name", "utilities": "kind"}.get(name)
        if col and col in gdf.columns:
            L.label_polygons(sheet, gdf, [_txt(v) for v in gdf[col]], size=6.5, color=st.edge)
        if name == "structures":
            L.label_polygons(sheet, gdf, [area_text(g, fpu) for g in gdf.geometry.values], size=6, min_sq_in=0.12)
        panel.add(st, pre(name) + st.label)
    inlets = ctx.site_layer("storm_inlets")
    if inlets is not None:
        st = STYLES["storm_inlets"]
        L.draw_geoms(sheet, inlets.geometry.values, st)
        panel.add(st, pre("storm_inlets") + st.label)
    else:
        missing("storm_inlets", "storm drain inlets (layer storm_inlets)")
    draw_boundary(ctx, sheet, panel, letter("site_boundary"))
    if not has_relief:
        missing("contours", "topography: no DEM, so no contours")

    # (j) contacts
    site = ctx.site
    jl = next((x for x, _, layers in EXISTING_ITEMS.get(j, []) if "title_block" in layers), None)
    if jl:
        gaps = [f"{who} {k}" for who, c in (("applicant", site.applicant), ("maintenance person", site.maintainer))
                for k in ("name", "address", "phone") if not getattr(c, k)]
        if gaps:
            absent.setdefault(jl, []).append(", ".join(gaps) + " (site.toml)")
        panel.notes.append(f"({jl}) Applicant and person responsible for BMP maintenance: see the title block.")
    for k in sorted(absent):
        panel.missing.append((f"({k}) " if k else "") + "; ".join(absent[k]))
    return panel, []


def _upslope_label(row, fpu: float) -> str:
    parts = []
    a = row.get("area_acres")
    if not is_nan(a):
        parts.append(f"{float(a):.2f} ac")
    elif row.geometry is not None:
        parts.append(area_text(row.geometry, fpu))
    s = row.get("mean_slope_pct")
    if not is_nan(s):
        parts.append(f"{float(s):.1f} %")
    c = row.get("land_cover")
    if not is_nan(c) and c:
        parts.append(str(c).replace("_", " "))
    return ", ".join(parts)


def render_existing_site_map(result_or_site, out_path: str | Path | None = None, sheet: str = "auto",
                             scale_ft: float = 100, *, margin_ft: float | None = None, hillshade: bool = True,
                             vertical_datum: str | None = None, date: str | None = None, sheet_no: str = "1",
                             png_dpi: int | None = 120, svg: bool = False):
    """Draw the existing site map at exactly 1 in = ``scale_ft`` ft.

    Parameters
    ----------
    result_or_site : geosite.pipeline.AnalysisResult (preferred: natural drainage, upslope areas and the
        analysis' contours come from it) or geosite.site.Site (contours traced from its DEM here).
    out_path : the PDF to write (``existing_site_map.pdf``); a PNG preview is written beside it. When the
        site does not fit one sheet, tiles are written as ``<stem>-1.pdf``, ``<stem>-2.pdf`` ... None:
        write nothing and return the matplotlib Figures (notebooks).
    sheet : "auto" (the smallest sheet that holds the site and its margin), or ANSI-A, ANSI-B, ANSI-C,
        ANSI-D, ARCH-D, optionally with -landscape / -portrait.
    scale_ft : ground feet per paper inch: 100 or less (larger scale); anything smaller than
        1 in = 100 ft raises geosite.errors.InputError.
    margin_ft : the adjacent area shown around the site; default: site.toml map_margin_ft, else the
        jurisdiction profile's (200 ft).

    Returns
    -------
    list of Path (files written) or, with ``out_path=None``, list of matplotlib Figure.
    """
    ctx = make_context(result_or_site, scale_ft=scale_ft, sheet=sheet, margin_ft=margin_ft,
                       vertical_datum=vertical_datum, date=date, hillshade=hillshade)
    return render(ctx, draw_existing, out_path, sheet_no, png_dpi=png_dpi, svg=svg)


def _thin_entries(ent, spacing: float, most: int = 12):
    """The entry points worth a symbol: per disturbed area, those carrying the most flow, at least
    ``spacing`` (CRS units) apart and at most ``most`` of them; every boundary cell where flow enters
    would print as a solid bar."""
    import pandas as pd

    keep = []
    groups = ent.groupby("disturbance_id") if "disturbance_id" in ent.columns else [(None, ent)]
    for _, g in groups:
        g = g.sort_values("contrib_area_sqft", ascending=False) if "contrib_area_sqft" in g.columns else g
        chosen = []
        for idx, pt in zip(g.index, g.geometry, strict=True):
            if all(pt.distance(q) >= spacing for q in chosen):
                chosen.append(pt)
                keep.append(idx)
                if len(chosen) >= most:
                    break
    return ent.loc[pd.Index(keep)]

