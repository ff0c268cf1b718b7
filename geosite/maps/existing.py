"""The existing site map (Grantsburg plan A(1)(a)-(j), Belgium A(1)(a)-(d), (f)-(h)): the site and the
adjacent area, every existing-conditions layer the data holds, 5-ft contours with labelled index
contours over an optional hillshade, and the contacts in the title block. Every item the data lacks is
listed on the sheet as not present, never silently left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosite.maps import layout as L
from geosite.maps.common import (
    MapContext,
    Panel,
    area_text,
    dims_text,
    draw_boundary,
    draw_relief,
    is_nan,
    make_context,
    name_of,
    short_name,
    sqft_text,
    status_filter,
    width_text,
)
from geosite.maps.drainage import draw_drainage, draw_entry_arrows
from geosite.maps.preview import PNG_DPI
from geosite.maps.render import render
from geosite.maps.symbology import BODY_PT, FLOOD_ZONES, INK, LABELS, STYLES
from geosite.maps.tables import cells

HEADING = "EXISTING SITE MAP"


def _txt(v) -> str:
    return "" if is_nan(v) else str(v)


@dataclass
class _Items:
    """The jurisdiction's item letters for the layers (the profile's plan items with ``map_layers``), and what
    the data lacks, by letter.
    """

    items: list[tuple[str, str, tuple[str, ...]]]
    absent: dict[str, list[str]] = field(default_factory=dict)

    def letter(self, layer: str) -> str | None:
        """The item letter of the plan item that maps ``layer``, or None."""
        return next((letter for letter, _, layers in self.items if layer in layers), None)

    def pre(self, layer: str) -> str:
        """``"(x) "`` for the plan item that maps ``layer``, or blank."""
        return f"({self.letter(layer)}) " if self.letter(layer) else ""

    def missing(self, layer: str, what: str) -> None:
        """Note ``what`` as absent from the data, under the item that maps ``layer``."""
        self.absent.setdefault(self.letter(layer) or "", []).append(what)


def draw_existing(ctx: MapContext, sheet: L.MapSheet) -> tuple[Panel, list[tuple[str, str]]]:
    """The existing site map's content (plan A(1)) on ``sheet``; returns its panel and title rows.

    Parameters
    ----------
    ctx : MapContext
        The maps' context.
    sheet : MapSheet
        The sheet drawn on.

    Returns
    -------
    tuple of Panel and list of tuple of str
        The panel's legend, absent items and notes, and the title block's extra rows (none).
    """
    panel = Panel(
        HEADING,
        f"{ctx.profile.name} ordinance, plan content A(1): existing conditions on the site "
        f"and within {ctx.margin_ft:g} ft of it",
        location=True,
    )
    it = _Items(ctx.profile.map_items())
    has_relief = draw_relief(ctx, sheet, panel, it.letter("contours"))  # relief first (under everything)
    _areas(ctx, sheet, panel, it)
    _floodplain(ctx, sheet, panel, it.pre("floodplain"), it.missing)
    _soils_table(ctx, panel, it.pre("soils"))
    _waters(ctx, sheet, panel, it)
    _drainage(ctx, sheet, panel, it)
    _improvements(ctx, sheet, panel, it)
    draw_boundary(ctx, sheet, panel, it.letter("site_boundary"))
    if not has_relief:
        it.missing("contours", "topography: no DEM, so no contours")
    _contacts(ctx, panel, it)
    for k in sorted(it.absent):
        panel.missing.append((f"({k}) " if k else "") + "; ".join(it.absent[k]))
    return panel, []


def _areas(ctx: MapContext, sheet: L.MapSheet, panel: Panel, it: _Items) -> None:
    """Vegetative cover and soils, bottom up, each labelled from its attribute."""
    for name, col, text, color, kind, what in (
        (
            "vegetation",
            "cover",
            lambda v: _txt(v).replace("_", " "),
            "#4d7a3a",
            "vegetation",
            "vegetative cover",
        ),
        ("soils", "musym", _txt, "#7a4f1c", "soil", "soil types"),
    ):
        gdf = ctx.site_layer(name)
        if gdf is None:
            it.missing(name, what)
            continue
        st = STYLES[name]
        L.draw_geoms(sheet, gdf.geometry.values, st)
        if col in gdf.columns:
            L.label_polygons(sheet, gdf, [text(v) for v in gdf[col]], color=color or st.edge, kind=kind)
        panel.add(st, it.pre(name) + st.label)


def _waters(ctx: MapContext, sheet: L.MapSheet, panel: Panel, it: _Items) -> None:
    """Wetlands, lakes, streams and channels, labelled by name."""
    for name, what in (
        ("wetlands", "wetlands"),
        ("lakes", "lakes and ponds"),
        ("streams", "streams"),
        ("channels", "channels and ditches"),
    ):
        gdf = ctx.site_layer(name)
        if gdf is None:
            it.missing(name, what)
            continue
        st = STYLES[name]
        L.draw_geoms(sheet, gdf.geometry.values, st)
        if "name" in gdf.columns:
            L.label_polygons(
                sheet, gdf, [_txt(n) for n in gdf["name"]], color=st.edge, style="italic", kind="water"
            )
        panel.add(st, it.pre(name) + st.label)


def _drainage(ctx: MapContext, sheet: L.MapSheet, panel: Panel, it: _Items) -> None:
    """Natural drainage with its direction and destination, the upslope areas and where they enter."""
    nat = ctx.derived.get("channels")
    if nat is not None and len(nat):
        draw_drainage(ctx, sheet, panel, it.pre("natural_drainage"))
    elif nat is not None:
        panel.notes.append(
            f"{it.pre('natural_drainage')}Natural drainage: the DEM's flow routing finds no channel "
            "on or near the site (sheet flow only)."
        )
    else:
        it.missing(
            "natural_drainage", "natural drainage paths: not computed (needs the DEM and the hydrology stage)"
        )
    up = ctx.derived.get("upslope_areas")
    if up is not None and not len(up):
        panel.notes.append(
            f"{it.pre('upslope_areas')}Upslope drainage areas: none drain onto the disturbed area."
        )
    if up is None or not len(up):
        if up is None:
            it.missing(
                "upslope_areas",
                "upslope drainage areas: not computed (needs the DEM and the hydrology stage)",
            )
        return
    st = STYLES["upslope_areas"]
    L.draw_geoms(sheet, up.geometry.values, st)
    L.label_polygons(sheet, up, _upslope_labels(ctx, up), color=st.edge, kind="upslope")
    panel.add(st, it.pre("upslope_areas") + st.label)
    ent = ctx.derived.get("upslope_entry_points")
    if ent is not None and len(ent):
        st2 = STYLES["upslope_entry_points"]
        draw_entry_arrows(
            ctx, sheet, _thin_entries(ent, 40.0 / ctx.site.ft_per_unit).geometry.values, st2.edge
        )
        panel.add(st2, it.pre("upslope_areas") + st2.label)


def _improvements(ctx: MapContext, sheet: L.MapSheet, panel: Panel, it: _Items) -> None:
    """Roads, drives, utilities, existing structures and inlets, each labelled from its attributes."""
    fpu = ctx.site.ft_per_unit
    for name, gdf, what in (
        (
            "roads",
            status_filter(ctx.site_layer("roads"), lambda s: s != "new"),
            "roads, highways and paving",
        ),
        ("access_drives", ctx.site_layer("access_drives"), "access drives"),
        (
            "utilities",
            status_filter(ctx.site_layer("utilities"), lambda s: s != "new"),
            "utilities",
        ),
        (
            "structures",
            status_filter(ctx.site_layer("structures"), lambda s: s != "proposed"),
            "existing structures",
        ),
    ):
        if gdf is None:
            it.missing(name, what)
            continue
        st = STYLES[name]
        L.draw_geoms(sheet, gdf.geometry.values, st)
        label_improvements(sheet, name, gdf, fpu, st.edge if name != "structures" else INK)
        panel.add(st, it.pre(name) + st.label)
    inlets = ctx.site_layer("storm_inlets")
    if inlets is None:
        it.missing("storm_inlets", "storm drain inlets")
        return
    st = STYLES["storm_inlets"]
    L.draw_geoms(sheet, inlets.geometry.values, st)
    label_improvements(sheet, "storm_inlets", inlets, fpu, INK)
    panel.add(st, it.pre("storm_inlets") + st.label)


def _contacts(ctx: MapContext, panel: Panel, it: _Items) -> None:
    """(j): the applicant and the maintenance person are in the title block; what they lack is absent."""
    site = ctx.site
    jl = it.letter("title_block")
    if not jl:
        return
    gaps = [
        f"{who} {k}"
        for who, c in (("applicant", site.applicant), ("maintenance person", site.maintainer))
        for k in ("name", "address", "phone")
        if not getattr(c, k)
    ]
    if gaps:
        it.absent.setdefault(jl, []).append(", ".join(gaps))
    panel.notes.append(f"({jl}) Applicant and person responsible for BMP maintenance: see the title block.")


def _floodplain(ctx: MapContext, sheet: L.MapSheet, panel: Panel, prefix: str, missing) -> None:
    """Floodway, flood fringe and the 100-year floodplain, each with its own hatch (``zone``)."""
    gdf = ctx.site_layer("floodplain")
    if gdf is None:
        missing("floodplain", "floodplain, fringe and floodway")
        return
    zones = (
        gdf["zone"].fillna("100yr").astype(str).str.strip().str.lower()
        if "zone" in gdf.columns
        else ["100yr"] * len(gdf)
    )
    styles = [FLOOD_ZONES.get(z, "floodplain") for z in zones]
    for key in dict.fromkeys(sorted(styles, key=list(FLOOD_ZONES.values()).index)):
        sel = gdf[[k == key for k in styles]]
        st = STYLES[key]
        L.draw_geoms(sheet, sel.geometry.values, st)
        L.label_polygons(sheet, sel, [st.label] * len(sel), color=st.edge, kind="floodplain")
        panel.add(st, prefix + st.label)


def _soils_table(ctx: MapContext, panel: Panel, prefix: str) -> None:
    """The soils table: each map symbol on the sheet with its map unit name and hydrologic group."""
    gdf = ctx.site_layer("soils")
    if gdf is None or "musym" not in gdf.columns:
        return
    rows = [cells("symbol", "map unit (hydrologic soil group)")]
    for _, r in gdf.drop_duplicates("musym").sort_values("musym").iterrows():
        nm = _txt(r.get("name")) or "name not given"
        hsg = _txt(r.get("hsg"))
        rows.append(cells(_txt(r["musym"]), nm + (f" (HSG {hsg})" if hsg else "")))
    panel.table_title = f"{prefix}SOIL MAP UNITS"
    panel.table = rows


def label_improvements(
    sheet: L.MapSheet, layer: str, gdf, fpu: float, color: str, *, prefix: str = ""
) -> None:
    """Roads, drives, utilities, structures and inlets labelled from their attributes: the name
    (``6-in water main``, ``Birch Street``), a road's width, a structure's footprint, an inlet's tag.
    """
    texts = []
    for _, r in gdf.iterrows():
        g = r.geometry
        nm = name_of(r, _txt(r.get("kind")) if layer == "utilities" else "")
        if layer == "roads":
            w = width_text(g, fpu)
            t = nm + (f" ({w} wide)" if w and nm else w)
        elif layer == "structures":
            t = "\n".join(x for x in (nm, dims_text(g, fpu)) if x)
        elif layer == "storm_inlets":
            t = short_name(nm) if nm else f"inlet {r.get('id', '')}"
        else:
            t = nm
        texts.append(prefix + t if t else "")
    kind = {
        "roads": "road",
        "utilities": "utility",
        "structures": "structure",
        "storm_inlets": "inlet",
        "access_drives": "feature",
    }.get(layer, "feature")
    L.label_polygons(
        sheet, gdf, texts, size=LABELS["size_pt"].get(kind, BODY_PT), color=color, kind=kind, min_sq_in=0.12
    )


def _upslope_labels(ctx: MapContext, up) -> list[str]:
    """Each upslope area's label from report.json's ``hydrology.upslope`` (the D-infinity area the
    report gives), matched on ``disturbance_id``; the drawn polygon's own numbers without a report.
    """
    given = ctx.measured("hydrology.upslope")
    by_id = {d.get("disturbance_id"): d for d in given} if isinstance(given, list) else {}
    out = []
    for _, r in up.iterrows():
        d = by_id.get(r.get("disturbance_id"))
        out.append(_upslope_label(d if d is not None else r, ctx.site.ft_per_unit, r.geometry))
    return out


def _upslope_label(row, fpu: float, geom=None) -> str:
    parts = []
    a = row.get("area_sqft")
    if not is_nan(a):
        parts.append("upslope " + sqft_text(float(a)))
    elif geom is not None:
        parts.append("upslope " + area_text(geom, fpu))
    s = row.get("mean_slope_pct")
    if not is_nan(s):
        parts.append(f"{float(s):.1f} %")
    c = row.get("land_cover")
    if not is_nan(c) and c:
        parts.append(str(c).replace("_", " "))
    return ", ".join(parts)


def render_existing_site_map(
    result_or_site,
    out_path: str | Path | None = None,
    sheet: str = "auto",
    scale_ft: float | None = None,
    *,
    margin_ft: float | None = None,
    hillshade: bool = True,
    vertical_datum: str | None = None,
    date: str | None = None,
    sheet_no: str = "1",
    png_dpi: int | None = PNG_DPI,
    svg: bool = False,
):
    """Draw the existing site map at exactly 1 in = ``scale_ft`` ft.

    Parameters
    ----------
    result_or_site : geosite.pipeline.AnalysisResult or geosite.site.Site
        The analysis (preferred: natural drainage, upslope areas and the analysis' contours come from
        it), or a site (contours traced from its DEM here).
    out_path : str or pathlib.Path or None
        The PDF to write (``existing_site_map.pdf``); a PNG preview is written beside it. When the site
        does not fit one sheet, tiles are written as ``<stem>-1.pdf``, ``<stem>-2.pdf`` ... None: write
        nothing and return the matplotlib Figures (notebooks).
    sheet : str
        ``auto`` (the smallest sheet that holds the site and its margin), or ANSI-A, ANSI-B, ANSI-C,
        ANSI-D, ARCH-D, optionally with -landscape / -portrait.
    scale_ft : float or None
        Ground feet per paper inch: 100 or less (larger scale); anything smaller than 1 in = 100 ft
        raises geosite.errors.InputError. None: the scale the profile's chapter asks for (its map item's
        ``max_ft_per_in``, :attr:`geosite.rules.Profile.map_scale_ft`; Grantsburg's 100).
    margin_ft : float or None
        The adjacent area shown around the site, feet; default: site.toml map_margin_ft, else the
        jurisdiction profile's.
    hillshade : bool
        Shaded relief under the contours.
    vertical_datum : str or None
        The elevations' vertical datum as the title block names it; default: site.toml
        ``[dem] vertical_datum``, else the DEM's CRS.
    date : str or None
        The date in the title block (ISO); default: today.
    sheet_no : str
        The sheet number in the title block (``1`` of the set).
    png_dpi : int or None
        The PNG preview's resolution, dots per inch; None: no preview.
    svg : bool
        Also write an SVG beside the PDF.

    Returns
    -------
    list of pathlib.Path or list of matplotlib.figure.Figure
        The files written or, with ``out_path=None``, the Figures.
    """
    ctx = make_context(
        result_or_site,
        scale_ft=scale_ft,
        sheet=sheet,
        margin_ft=margin_ft,
        vertical_datum=vertical_datum,
        date=date,
        hillshade=hillshade,
    )
    return render(ctx, draw_existing, out_path, sheet_no, png_dpi=png_dpi, svg=svg)


def _thin_entries(ent, spacing: float, most: int = 12):
    """The entry points worth a symbol: per disturbed area, those carrying the most flow, at least
    ``spacing`` (CRS units) apart and at most ``most`` of them; every boundary cell where flow enters
    would print as a solid bar.
    """
    import pandas as pd

    keep = []
    groups = ent.groupby("disturbance_id") if "disturbance_id" in ent.columns else [(None, ent)]
    for _, g in groups:
        g = g.sort_values("contrib_area_sqft", ascending=False) if "contrib_area_sqft" in g.columns else g
        chosen: list[Any] = []
        for idx, pt in zip(g.index, g.geometry, strict=True):
            if all(pt.distance(q) >= spacing for q in chosen):
                chosen.append(pt)
                keep.append(idx)
                if len(chosen) >= most:
                    break
    return ent.loc[pd.Index(keep)]
