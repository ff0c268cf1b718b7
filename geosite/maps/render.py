"""A sheet drawn and saved: each tile of the set drawn with its panel (title block and its rows, location
map, key map, legend and provisions, set top down at the largest text size that fits), its labels placed,
then written as PDF (with the plan's stamp), PNG preview and SVG.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from matplotlib import rc_context

from geosite.maps import labels
from geosite.maps import layout as L
from geosite.maps import panel as P
from geosite.maps import title as T
from geosite.maps.common import DrawMap, MapContext, Panel, is_nan, lon_lat
from geosite.maps.preview import PNG_DPI
from geosite.maps.printing import (
    CoreFontCanvas,
    PngWriter,
    alias_core_fonts,
    core_text,
    core_texts,
    preview_png,
)
from geosite.maps.sheets import LARGEST_SHEET, plan_sheets
from geosite.maps.symbology import BODY_PT, HEADING_PT, MIN_PT
from geosite.plan.stamp import stamp_text

log = logging.getLogger(__name__)

#: An empty field of the title block, for the preparer to fill in by hand (what is missing is said in the
#: report's notes and as a warning: :mod:`geosite.site.title_block`).
BLANK = "_" * 24


def datum_text(ctx: MapContext) -> str:
    """The title block's line on elevations: their unit and vertical datum (an empty field where neither
    the site nor the DEM states it), or that there is no DEM.
    """
    from geosite.site.title_block import vertical_datum

    dem = ctx.dem() if ctx.site.dem_path is not None or ctx.site.dem_array is not None else None
    unit = (
        ctx.site.dem_vertical_unit.label
        if ctx.site.dem_vertical_unit is not None
        else (dem.vertical_unit.label if dem is not None else None)
    )
    if dem is None:
        return "No DEM in the submitted data: no contours."
    datum = ctx.vertical_datum or vertical_datum(ctx.site, dem.crs)
    given = f"the DEM's heights, in {unit} units, converted"
    return f"Elevations in feet ({given}); vertical datum: {datum or BLANK}."


def contact_text(parts: dict[str, str], *, firm: bool = False) -> str:
    """A contact on one line: name, (``firm``), address and daytime phone, an empty field for each not given.

    Parameters
    ----------
    parts : dict of str to str
        The parts given (:func:`geosite.site.title_block.contact_parts`).
    firm : bool
        Whether the firm has its place (the preparer's): shown only when given.

    Returns
    -------
    str
        The line.
    """
    blank = "_" * 14
    out = [parts.get("name") or f"name {blank}"]
    if firm and parts.get("firm"):
        out.append(parts["firm"])
    out.append(parts.get("address") or f"address {blank}")
    out.append(f"daytime phone {parts.get('phone') or blank}")
    return "; ".join(out)


def crs_text(ctx: MapContext) -> str:
    """The title block's line on coordinates: the site's CRS, its EPSG code and horizontal unit."""
    crs = ctx.site.crs
    epsg = crs.to_epsg()
    return f"{crs.name}" + (f" (EPSG:{epsg})" if epsg else "") + f"; horizontal unit: {ctx.site.foot}"


def title_rows(ctx: MapContext, extra: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """The title block's rows (label, text): site, jurisdiction, contacts, project dates, ``extra``,
    coordinates, elevations, preparer and date.

    Parameters
    ----------
    ctx : MapContext
        The maps' context.
    extra : list of tuple of str or None
        Rows a map adds after the project dates.

    Returns
    -------
    list of tuple of str
        (label, text) per row.
    """
    from geosite.site.title_block import contact_parts

    site, p = ctx.site, ctx.site.project
    rows = [
        ("Site", site.name),
        ("Jurisdiction", ctx.profile.name),
        ("Applicant", contact_text(contact_parts(site, "applicant"))),
        ("BMP maint.", contact_text(contact_parts(site, "maintainer"))),
    ]
    if p.start or p.end:
        rows.append(("Project", f"{p.start or BLANK[:10]} to {p.end or BLANK[:10]}"))
    rows += extra or []
    rows += [
        ("Coordinates", crs_text(ctx)),
        ("Elevations", datum_text(ctx)),
        ("Prepared by", contact_text(contact_parts(site, "preparer"), firm=True)),
        ("Date", ctx.date),
    ]
    return rows


def _location_lines(ctx: MapContext) -> list[tuple[Any, str, str]]:
    from geosite.maps.symbology import WATER

    out = []
    for name, color in (("roads", "#777777"), ("streams", WATER), ("lakes", WATER), ("wetlands", "#3f8f3f")):
        gdf = ctx.site_layer(name)
        if gdf is not None:
            names = gdf["name"] if name == "roads" and "name" in gdf.columns else [None] * len(gdf)
            out += [
                (g, color, "" if is_nan(n) else str(n))
                for g, n in zip(gdf.geometry.values, names, strict=True)
                if g is not None
            ]
    return out


def _location_caption(ctx: MapContext) -> str:
    """Where the site is: its centre in latitude and longitude, the village, the roads it fronts."""
    c = ctx.site.boundary.centroid
    lon, lat = lon_lat(ctx.site.crs, c.x, c.y)
    roads = ctx.site_layer("roads")
    near: list[str] = []
    if (
        roads is not None and "name" in roads.columns
    ):  # every named road within the map margin: where and how far
        from shapely.ops import nearest_points

        for n, g in zip(roads["name"], roads.geometry.values, strict=True):
            dd = g.distance(ctx.site.boundary) * ctx.site.ft_per_unit
            if is_nan(n) or dd > ctx.margin_ft or str(n) in " ".join(near):
                continue
            q = nearest_points(g, c)[0]
            near.append(
                f"{n} ({'adjoining' if dd < 1 else f'{dd:,.0f} ft'}, {T.compass(q.x - c.x, q.y - c.y)})"
            )
    return (
        f"(a) Site location: {ctx.profile.name}; site centre {abs(lat):.5f}° {'N' if lat >= 0 else 'S'}, "
        f"{abs(lon):.5f}° {'W' if lon < 0 else 'E'} (WGS 84)"
        + (f"; roads: {', '.join(near)}" if near else "")
        + ". Black: the site; red box: this sheet's map."
    )


def revisions(ctx: MapContext) -> list[tuple[str, str, str]]:
    """The revision block's rows: site.toml ``[[revisions]]`` (no, date, description), else the issue."""
    given = ctx.site.settings.get("revisions") or []
    rows = [
        (str(r.get("no", i)), str(r.get("date", "")), str(r.get("description", "")))
        for i, r in enumerate(given)
    ]
    return rows or [("0", ctx.date, "Issued for review")]


#: The panel's text sizes tried, points, largest first: the largest at which it all fits is printed
PANEL_SIZES_PT = (9.0, BODY_PT, MIN_PT)


def layout_panel(ctx: MapContext, sheet: L.MapSheet, panel: Panel, rows, sheet_no: str) -> None:
    """Fixed parts from the bottom up (title block, key map, scales), then the heading, legend, absent
    items, notes and table from the top down, shrinking the text (never below :data:`MIN_PT`) to fit.
    """
    panel_fixed_parts(ctx, sheet, panel, rows, sheet_no)
    panel_top_down(sheet, panel)


def panel_fixed_parts(ctx: MapContext, sheet: L.MapSheet, panel: Panel, rows, sheet_no: str) -> None:
    """The panel's fixed parts, from the bottom up: title block, key map, location map, north arrow and
    scales (they set ``sheet.floor``).
    """
    T.title_block(sheet, rows, panel.heading, sheet_no, revisions=revisions(ctx), of=ctx.sheets_in_set)
    if ctx.plan.tiled:
        P.key_map(sheet, ctx.site.boundary, ctx.plan.tiles)
    if panel.location:
        T.location_map(
            sheet, ctx.site.boundary, sheet.window.bounds, _location_lines(ctx), _location_caption(ctx)
        )
    P.north_and_scale(sheet, ctx.site.crs, ctx.convergence_deg())


def panel_overflows(sheet: L.MapSheet, panel: Panel) -> bool:
    """Whether the panel's text would overflow even at its smallest size (:data:`MIN_PT`), measured without
    drawing anything.
    """
    cursor = sheet.cursor
    _top_down(sheet, panel, MIN_PT, dry=True)
    over = P.space_left(sheet) < 0
    sheet.cursor = cursor
    return over


def panel_top_down(sheet: L.MapSheet, panel: Panel) -> None:
    """The heading, legend, absent items, notes and table from the top down, at the largest size of
    :data:`PANEL_SIZES_PT` that fits; a note on the sheet when even the smallest overflows.
    """
    for size in PANEL_SIZES_PT:
        _top_down(sheet, panel, size, dry=True)
        if P.space_left(sheet) >= 0 or size == MIN_PT:
            break
    _top_down(sheet, panel, size, dry=False)
    if P.space_left(sheet) < 0:
        sheet.notes.append("panel text overflows; use a larger sheet (--sheet)")


def _top_down(sheet: L.MapSheet, panel: Panel, size: float, dry: bool) -> None:
    if dry:
        # measure on a throwaway copy of the cursor; drawing nothing
        from copy import copy

        probe = copy(sheet)
        probe.legend, probe.missing, probe.swatches = [], [], []
        probe.cursor = 0.1
        probe.panel = L.NullAxes()
        _top_down_draw(probe, panel, size)
        sheet.cursor = probe.cursor
        return
    sheet.cursor = 0.1
    _top_down_draw(sheet, panel, size)


def _top_down_draw(sheet: L.MapSheet, panel: Panel, size: float) -> None:
    P.panel_text(sheet, panel.heading, size=HEADING_PT, bold=True)
    if panel.subheading:
        P.panel_text(sheet, panel.subheading, size=size)
    sheet.cursor += 0.08
    P.panel_text(sheet, "LEGEND", size=size + 0.5, bold=True)
    for st, label, edge in panel.entries:
        P.legend_row(sheet, st, label, size=size, edge=edge)
    if panel.missing:
        sheet.cursor += 0.05
        P.panel_text(
            sheet, "Not present in the submitted data:", size=size, bold=True, gid="legend-missing-head"
        )
        for m in panel.missing:
            P.panel_text(sheet, "– " + m, size=size, indent=0.05, gid="legend-missing")
            sheet.missing.append(m)
    for n in panel.notes:
        sheet.cursor += 0.04
        P.panel_text(sheet, n, size=size, gid="note")
    if panel.table:
        sheet.cursor += 0.06
        P.panel_text(sheet, panel.table_title, size=size, bold=True)
        P.panel_table(sheet, panel.table, size)
    for n in panel.provisions:
        sheet.cursor += 0.04
        P.panel_text(sheet, n, size=size, gid="provision")
    if panel.keys:
        sheet.cursor += 0.06
        P.panel_text(
            sheet,
            "KEYED LABELS (where the map has no room for the label by its feature)",
            size=size,
            bold=True,
        )
        P.panel_table(sheet, panel.keys, size)


def render(
    ctx: MapContext,
    draw: DrawMap,
    out_path: str | Path | None,
    sheet_no: str,
    png_dpi: int | None = PNG_DPI,
    *,
    svg: bool = False,
    writer: PngWriter | None = None,
):
    """Draw every tile; write ``out_path`` (.pdf; tiles get -1, -2 ... suffixes) and PNG previews, or
    return the Figures when ``out_path`` is None. With ``sheet="auto"``, a sheet whose panel cannot hold
    the legend and title block is given up for the next larger one (as soon as that is known: before
    its labels are placed). With ``writer`` (:class:`~geosite.maps.printing.PngWriter`), the previews
    are encoded on its thread and complete when it is closed.
    """
    auto = str(ctx.sheet_request or "auto").strip().lower() == "auto"
    alias_core_fonts()
    while True:
        larger = auto and ctx.plan.sheet.size != LARGEST_SHEET
        sheets = _draw_all(ctx, draw, sheet_no) if not larger or _panels_fit(ctx, draw, sheet_no) else None
        overflow = sheets is None or any(s.notes and "overflows" in s.notes[-1] for s in sheets)
        if sheets is not None and not (overflow and larger):
            break
        ctx.plan = plan_sheets(
            ctx.extent, ctx.scale_ft, ctx.site.ft_per_unit, "auto", larger_than=ctx.plan.sheet
        )
    if out_path is None:  # the caller (geosite.maps.planset) sizes the set and says what still overflows
        return [s.fig for s in sheets]
    for s in sheets:
        if s.notes and "overflows" in s.notes[-1]:
            log.warning("map panel overflows on %s; choose a larger sheet", ctx.plan.sheet.label)
    written = []
    with rc_context(L.RC):
        for s in sheets:
            written += save_sheets(ctx, s, Path(out_path), png_dpi, svg, writer=writer)
    return written


def save_sheets(
    ctx: MapContext,
    sheet: L.MapSheet,
    out: Path,
    png_dpi: int | None,
    svg: bool,
    *,
    writer: PngWriter | None = None,
) -> list[Path]:
    """Write ``sheet`` to ``out`` (PDF with the plan's stamp; a PNG preview at ``png_dpi`` unless None; SVG
    with ``svg``), a tiled set's sheet numbered; returns the files written.
    """
    stem = out.with_suffix("")
    base = Path(f"{stem}-{sheet.tile.number}") if ctx.plan.tiled else stem
    pdf = base.with_suffix(".pdf")
    pdf.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "Title": f"{sheet.heading}: {ctx.site.name}",
        "Creator": "geosite",
        "Subject": ctx.profile.name,
        "Keywords": stamp_text(ctx.site_plan),  # the plan drawn: check compares it with the layers'
    }
    sheet.fig.savefig(pdf, format="pdf", metadata=meta)
    written = [pdf]
    if png_dpi:  # the PDF rasterised: one drawing pass for both (geosite.maps.printing)
        written.append(preview_png(pdf, base.with_suffix(".png"), png_dpi, sheet.fig, writer))
    if svg:
        s = base.with_suffix(".svg")
        sheet.fig.savefig(s, format="svg")
        written.append(s)
    return written


def _panels_fit(ctx: MapContext, draw: DrawMap, sheet_no: str) -> bool:
    """Whether every tile's panel holds its legend, notes and title block on ``ctx.plan``'s sheet,
    measured on probe sheets (:func:`geosite.maps.layout.probe_sheet`) before anything is drawn.
    """
    for tile in ctx.plan.tiles:
        sheet = L.probe_sheet(ctx.plan, tile, limit=ctx.extent)
        if panel_overflows(sheet, _draw_tile(ctx, draw, sheet, sheet_no)):
            return False
    return True


def _draw_tile(ctx: MapContext, draw: DrawMap, sheet: L.MapSheet, sheet_no: str) -> Panel:
    """One tile's map drawn on ``sheet`` and its panel's fixed parts laid out (labels not yet placed);
    returns what the map puts in its panel.
    """
    tile = sheet.tile
    sheet.sheet_no = sheet_no
    panel, extra_rows = draw(ctx, sheet)
    if ctx.plan.tiled:
        L.match_lines(sheet, ctx.plan)
        extra_rows = extra_rows + [
            (
                "Sheet",
                (
                    f"{tile.number} of {len(ctx.plan.tiles)} of this map "
                    f"({ctx.plan.rows} row(s) x {ctx.plan.cols} column(s))"
                ),
            )
        ]
    no = sheet_no if not ctx.plan.tiled else f"{sheet_no}-{tile.number}"
    panel_fixed_parts(ctx, sheet, panel, title_rows(ctx, extra_rows), no)
    return panel


def _draw_all(ctx: MapContext, draw: DrawMap, sheet_no: str) -> list[L.MapSheet]:
    """Every tile of ``ctx.plan`` drawn, labelled and laid out."""
    sheets = []
    with rc_context(L.RC):
        for tile in ctx.plan.tiles:
            sheet = L.new_sheet(ctx.plan, tile, limit=ctx.extent)
            CoreFontCanvas(sheet.fig)  # text measured as the PDF sets it
            panel = _draw_tile(ctx, draw, sheet, sheet_no)
            L.clip_map(sheet)  # nothing drawn beyond the site and its margin
            _place_labels(sheet, panel)
            sheet.heading = panel.heading
            panel_top_down(sheet, panel)
            core_texts(sheet.fig)
            sheet.fig.geosite = sheet  # type: ignore[attr-defined]  # for notebooks and tests: legend, absent items, scale
            sheets.append(sheet)
    return sheets


def _place_labels(sheet: L.MapSheet, panel: Panel) -> None:
    """The map's labels placed (in characters the standard fonts show), and a note on the panel naming
    any that found no clear place.
    """
    from geosite.maps.tables import cells

    for lab in sheet.labels:
        lab.text = core_text(lab.text)
    core_texts(sheet.fig)
    labels.place(sheet)
    L.cut_under_labels(sheet)
    if sheet.keyed:  # labels with no room by their feature: their key there, their text here
        panel.keys = [cells("key", "label"), *(cells(k, t) for k, t in sheet.keyed)]
    if sheet.unplaced:  # never silently: the sheet says which labels found no place clear of the others
        panel.notes.append(
            f"{len(sheet.unplaced)} label(s) found no place clear of the others and are not "
            "shown: " + "; ".join(t.replace("\n", " ") for t in sheet.unplaced) + "."
        )
