"""The soil-loss sheet (Wis. Admin. Code NR 151.11): the worst 12-month window's soil loss cell by cell,
in classes of tons per acre set by the standard, over the disturbed area by phase, the controls that end
slope length, the site boundary and faint existing contours; its panel holds the table of every window
(the worst marked) and the worst window by phase, the method with each factor's source and the finding.

Drawn only where the set has it (:func:`geosite.maps.common.has_soil_loss_sheet`: an acre or more
disturbed and soil loss computed on some cell). Every number printed is report.json's ``soil_loss`` block
(:mod:`geosite.soil_loss.stage`), the cells are the stage's raster (soil_loss.tif), never computed again.
The cells beyond the method's range (slopes over its maximum, concentrated flow), which the stage leaves
without a figure and reports as areas only, are flagged here as the stage flags them
(:func:`beyond_cells`: the slope of the analysis' DEM against the report's maximum, the channel cells of
its routing at the profile's threshold), so the sheet shows where they are.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from geosite.maps import layout as L
from geosite.maps import panel as P
from geosite.maps.common import MapContext, Panel, draw_boundary, draw_relief, is_nan, make_context
from geosite.maps.preview import PNG_DPI
from geosite.maps.render import render
from geosite.maps.symbology import BODY_PT, INK, Style
from geosite.maps.tables import cells
from geosite.soil_loss.report import tpa_text

if TYPE_CHECKING:
    from geosite.plan import Control

HEADING = "SOIL LOSS MAP, NR 151.11"
#: The class breaks as shares of the standard's tons per acre per year (report.json ``soil_loss``
#: ``max_tons_per_acre_year``, from geosite/soil_loss/wisconsin.toml): a fifth, two fifths, the standard and
#: twice it, so 1, 2, 5 and 10 t/ac at 5 t/ac/yr. geosite's drawing choice, not the standard's.
CLASS_SHARES = (0.2, 0.4, 1.0, 2.0)
#: The classes' fills, lightest first (ColorBrewer YlOrRd, 5 classes): each darker than the one before in
#: colour and in grey (luminance falls class by class), so the map reads in print and in a greyscale copy.
CLASS_COLORS = ("#ffffb2", "#fecc5c", "#fd8d3c", "#f03b20", "#bd0026")
#: Cells beyond the method's range: hatched, not filled, so no class colour is taken for them.
STEEP_STYLE = Style("polygon", "", face="#f2f2f2", edge="#333333", lw=0.3, hatch="xxxx", z=2.6)
CONCENTRATED_STYLE = Style("polygon", "", face="#deebf7", edge="#08519c", lw=0.6, hatch="||||", z=2.7)
PHASE_STYLE = Style("polygon", "", face="none", edge=INK, lw=1.0, ls=(0, (6, 2, 1, 2)), z=4.0, clear="edge")


def class_breaks(limit_tpa: float) -> tuple[float, ...]:
    """The breaks between the classes, tons per acre, for a standard of ``limit_tpa`` tons per acre per
    year (:data:`CLASS_SHARES` of it).

    Parameters
    ----------
    limit_tpa : float
        The standard, tons per acre per year.

    Returns
    -------
    tuple of float
        The breaks, t/ac, ascending.
    """
    return tuple(share * limit_tpa for share in CLASS_SHARES)


def class_labels(limit_tpa: float) -> list[str]:
    """Each class's legend text, lightest first, for a standard of ``limit_tpa`` tons per acre per year:
    its bounds, and where it stands against the standard.

    Parameters
    ----------
    limit_tpa : float
        The standard, tons per acre per year.

    Returns
    -------
    list of str
        One text a class.
    """
    b = class_breaks(limit_tpa)
    out = []
    for lo, hi in zip((0.0, *b[:-1]), b, strict=True):
        where = (
            " (up to the standard)" if hi == limit_tpa else " (over the standard)" if lo == limit_tpa else ""
        )
        out.append(f"{lo:g} - {hi:g} t/ac{where}")
    return out + [f"over {b[-1]:g} t/ac (over {b[-1] / limit_tpa:g} x the standard)"]


def class_of(tpa: np.ndarray, limit_tpa: float) -> np.ndarray:
    """Each cell's class (uint8: 1 the lightest ... 0 where it has no figure) for a standard of
    ``limit_tpa`` tons per acre per year; a cell on a break falls in the class below it.

    Parameters
    ----------
    tpa : numpy.ndarray
        Soil loss per cell, tons per acre (NaN: no figure).
    limit_tpa : float
        The standard, tons per acre per year.

    Returns
    -------
    numpy.ndarray
        The classes.
    """
    tpa = np.asarray(tpa, dtype=np.float64)
    got = np.digitize(np.nan_to_num(tpa, nan=0.0), class_breaks(limit_tpa), right=True) + 1
    return np.where(np.isfinite(tpa), got, 0).astype(np.uint8)


def soil_loss_block(ctx: MapContext) -> dict[str, Any]:
    """The ``soil_loss`` block of report.json of the analysis the maps are drawn from."""
    if ctx.report is None or "soil_loss" not in ctx.report:
        raise ValueError("the soil-loss sheet needs an analysis with report.json's soil_loss block")
    return ctx.report["soil_loss"]


def beyond_cells(ctx: MapContext) -> np.ndarray:
    """The disturbed cells beyond the method's range on the soil-loss raster's grid, flagged as the stage
    flags them (:mod:`geosite.soil_loss.ls`: :data:`~geosite.soil_loss.ls.STEEP` where the slope of the
    analysis' DEM is over the report's ``max_slope_pct``, :data:`~geosite.soil_loss.ls.CONCENTRATED` on
    the channel cells of its routing at the profile's channel threshold); 0 elsewhere (uint8).

    Parameters
    ----------
    ctx : MapContext
        The maps' context of an analysis with a soil-loss raster.

    Returns
    -------
    numpy.ndarray
        The flags, the raster's shape.
    """
    from geosite.grid import geom_to_crs, rasterize
    from geosite.hydrology import flow_grid
    from geosite.hydrology.stage import channel_threshold_sqft
    from geosite.soil_loss.ls import CONCENTRATED, STEEP
    from geosite.terrain.slope import slope_pct

    raster, dem = ctx.soil_loss.raster, ctx.analysis_dem
    fg = ctx.flow_grid if ctx.flow_grid is not None else flow_grid(dem)
    c0, r0 = (round(v) for v in ~dem.transform @ (raster.transform.c, raster.transform.f))
    h, w = raster.tons_per_acre.shape
    box = (slice(r0, r0 + h), slice(c0, c0 + w))
    limit = float(soil_loss_block(ctx)["max_slope_pct"])
    flags = np.where(slope_pct(dem)[box] > limit, STEEP, 0).astype(np.uint8)
    flags |= np.where(fg.channel_cells(channel_threshold_sqft(ctx.profile))[box], CONCENTRATED, 0).astype(
        np.uint8
    )
    dist = ctx.site_layer("disturbance")
    if dist is None:
        return np.zeros((h, w), np.uint8)
    ground = geom_to_crs(shapely.union_all(dist.geometry.values), ctx.site.crs, raster.crs)
    return np.where(rasterize(ground, (h, w), raster.transform), flags, 0).astype(np.uint8)


def _site_crs_grid(classes: np.ndarray, ctx: MapContext) -> tuple[np.ndarray, Any]:
    """The class grid (0: nothing) and its transform in the site's CRS: the raster's own where the DEM is
    in the site's CRS, else warped to it (nearest cell, rasterio).
    """
    raster = ctx.soil_loss.raster
    if raster.crs is None or raster.crs.equals(ctx.site.crs):
        return classes, raster.transform
    from rasterio.crs import CRS
    from rasterio.warp import Resampling, calculate_default_transform, reproject

    src, dst = CRS.from_wkt(raster.crs.to_wkt()), CRS.from_wkt(ctx.site.crs.to_wkt())
    h, w = classes.shape
    t = raster.transform
    left, top, right, bottom = t.c, t.f, t.c + w * t.a, t.f + h * t.e
    to, dw, dh = calculate_default_transform(src, dst, w, h, left, bottom, right, top)
    out = np.zeros((dh, dw), np.uint8)
    reproject(
        classes,
        out,
        src_transform=t,
        src_crs=src,
        dst_transform=to,
        dst_crs=dst,
        resampling=Resampling.nearest,
        src_nodata=0,
        dst_nodata=0,
    )
    return out, to


def _draw_classes(ctx: MapContext, sheet: L.MapSheet, panel: Panel, limit_tpa: float) -> None:
    """The worst window's soil loss per cell in its classes (standard ``limit_tpa``, t/ac/yr), with a legend
    row per class.
    """
    from matplotlib.colors import BoundaryNorm, ListedColormap

    if sheet.drawing:  # a probe sheet measures the panel only
        grid, transform = _site_crs_grid(class_of(ctx.soil_loss.raster.tons_per_acre, limit_tpa), ctx)
        n = len(CLASS_COLORS)
        L.draw_cells(
            sheet,
            grid,
            transform,
            zorder=1.0,
            hidden=0,
            cmap=ListedColormap(list(CLASS_COLORS)),
            norm=BoundaryNorm(np.arange(0.5, n + 1.0), n),
        )
    for color, label in zip(CLASS_COLORS, class_labels(limit_tpa), strict=True):
        panel.add(Style("polygon", label, face=color, edge="#555555", lw=0.3), label)


def _flag_polygons(flags: np.ndarray, bit: int, ctx: MapContext) -> list[Any]:
    """The cells carrying ``bit`` of ``flags`` as polygons in the site's CRS (rasterio's shapes)."""
    from rasterio.features import shapes
    from shapely.geometry import shape

    from geosite.grid import geom_to_crs

    raster = ctx.soil_loss.raster
    mask = (flags & bit) > 0
    if not mask.any():
        return []
    parts = [shape(g) for g, _ in shapes(mask.astype(np.uint8), mask=mask, transform=raster.transform)]
    return [geom_to_crs(shapely.union_all(parts), raster.crs, ctx.site.crs)]


def _draw_beyond(ctx: MapContext, sheet: L.MapSheet, panel: Panel, block: dict[str, Any]) -> None:
    """The disturbed cells beyond the method's range (:func:`beyond_cells`), each kind in its hatch and
    named in the legend with the area the report counts in the worst window.
    """
    from geosite.maps.common import sqft_text
    from geosite.soil_loss.ls import CONCENTRATED, STEEP

    # a probe sheet (geosite.maps.layout.probe_sheet) only measures the panel: the report says which rows
    flags = beyond_cells(ctx) if sheet.drawing else None
    for bit, st, text, key in (
        (STEEP, STEEP_STYLE, f"slope over {block['max_slope_pct']:g} %", "beyond_steep_sqft"),
        (CONCENTRATED, CONCENTRATED_STYLE, "concentrated flow (a channel cell)", "beyond_concentrated_sqft"),
    ):
        geoms = _flag_polygons(flags, bit, ctx) if flags is not None else []
        if not geoms and (flags is not None or not block.get(key)):
            continue
        L.draw_geoms(sheet, geoms, st)
        label = (
            f"Not computed, beyond the method (sheet and rill erosion only): {text}; "
            f"{sqft_text(block.get(key) or 0.0)} in the worst window"
        )
        panel.add(st, label)


def _draw_phases(ctx: MapContext, sheet: L.MapSheet, panel: Panel, block: dict[str, Any]) -> None:
    """The disturbed area by phase, outlined and labelled with its name, dates and the worst window's
    soil loss (report.json's phase rows).
    """
    import geopandas as gpd

    dist = ctx.site_layer("disturbance")
    if dist is None:
        return
    worst = {r["phase"]: r for r in block.get("phases", []) if r["window"] == block["worst_window"]}
    dates = {str(p["phase"]): p for p in ctx.phases()}
    has_phase = "phase" in dist.columns
    names = [
        str(ph) if has_phase and not is_nan(ph) and str(ph) else f"disturbance {i}"
        for ph, i in zip(dist["phase"] if has_phase else [None] * len(dist), dist["id"], strict=True)
    ]
    geoms, texts = [], []
    for name in dict.fromkeys(names):
        geoms.append(
            shapely.union_all([g for g, n in zip(dist.geometry.values, names, strict=True) if n == name])
        )
        p = dates.get(name, {})
        when = f"\n{str(p.get('start'))[:10]} to {str(p.get('end'))[:10]}" if p.get("start") else ""
        loss = f"\n{tpa_text(worst[name])} t/ac" if name in worst else ""
        texts.append(f"{'Phase ' if has_phase else ''}{name}{when}{loss}")
    L.draw_geoms(sheet, geoms, PHASE_STYLE)
    L.label_polygons(
        sheet,
        gpd.GeoDataFrame(geometry=geoms, crs=dist.crs),
        texts,
        size=BODY_PT,
        min_sq_in=0.15,
        kind="phase",
    )
    panel.add(PHASE_STYLE, "Land disturbance by phase (label: phase, dates, soil loss in the worst window)")


def _slope_enders(ctx: MapContext) -> list[Control]:
    """The plan's lines that end slope length in the stage's computation: its controls of the stage's
    reset kinds (:func:`geosite.soil_loss.stage.plan_controls` reads the same plan).
    """
    from geosite.soil_loss.stage import reset_types

    kinds = set(reset_types())
    return [c for c in ctx.site_plan.controls if c.practice in kinds and c.family == "line"]


def _draw_slope_enders(ctx: MapContext, sheet: L.MapSheet, panel: Panel) -> None:
    """The fences and diversions that end slope length, each in its practice's symbol."""
    by_symbol: dict[str, tuple[Any, list[Any]]] = {}
    for c in _slope_enders(ctx):
        sym = c.symbol()
        by_symbol.setdefault(sym.key, (sym, []))[1].append(c.geometry)
    for sym, geoms in sorted(by_symbol.values(), key=lambda v: v[0].style.z):
        st = sym.style
        if st.face in ("none", None):  # a white casing: the line reads on the darkest class
            st = replace(st, face="white")
        L.draw_geoms(sheet, geoms, st)
        panel.add(st, f"{st.label}: ends slope length")


def window_table(block: dict[str, Any]) -> list[str]:
    """The panel's table (:mod:`geosite.maps.tables` rows): every 12-month window of the disturbed area
    with its acres and tons per acre (and the acres without a figure, where any window has some), the
    worst marked, then the worst window by phase.

    Parameters
    ----------
    block : dict
        The ``soil_loss`` block of report.json (assessed).

    Returns
    -------
    list of str
        The rows.
    """
    unit = "t/ac" if all(r.get("exact") for r in block["windows"]) else "t/ac (bounds)"
    gaps = any(r.get("acres_not_assessed") for r in [*block["windows"], *block.get("phases", [])])

    def row(first: str, r: dict[str, Any], *last: str) -> str:
        """One row: ``first``, the acres, t/ac, the acres without a figure where the table has them."""
        no_figure = [f"{r['acres_not_assessed']:.2f}"] if gaps else []
        return cells(first, f"{r['acres']:.2f}", tpa_text(r), *no_figure, *last)

    head = ["acres", unit, *(["no figure, ac"] if gaps else [])]
    rows = [cells("12-month window", *head, "")]
    marked = False
    for r in block["windows"]:
        worst = not marked and r["window"] == block["worst_window"]
        marked = marked or worst
        rows.append(row(r["window"], r, "WORST" if worst else ""))
    phases = [r for r in block.get("phases", []) if r["window"] == block["worst_window"]]
    if phases:
        rows += ["", f"The worst window, {block['worst_window']}, by phase:", cells("phase", *head)]
        rows += [row(r["phase"], r) for r in phases]
    return rows


def _table_notes(block: dict[str, Any]) -> list[str]:
    """What the table's figures are: soil loss before sediment controls over the acres with a figure."""
    out = [
        "Soil loss before any sediment control, over the disturbed acres with a figure in each window; "
        f"the standard, {block['max_tons_per_acre_year']:g} t/ac/yr, limits the sediment discharged."
    ]
    if any(r.get("acres_not_assessed") for r in block["windows"]):
        out.append("No figure: ground beyond the method, or where K or C is not known.")
    if not block.get("exact"):
        out.append(
            f"Bounds, not figures: {_sentence(for_reviewer(block['ei_source']))} The map shows each cell's "
            "upper bound."
        )
    return out


#: Where a number's source is the site's own settings, the report names them (``site.toml [soil_loss]
#: r_factor: <source>``): the sheet says "given for this site" and the source.
_GIVEN = re.compile(r"site\.toml \[soil_loss(?:\.c)?\](?: \w+)?: ")


def for_reviewer(text: str) -> str:
    """A source as the report gives it, said for the sheet's reader (a reviewer, not geosite's user):
    the site's settings named as "given for this site", and a sentence telling geosite's user what to
    set where left out (report.json and report.md keep it).

    Parameters
    ----------
    text : str
        The report's text.

    Returns
    -------
    str
        The text for the sheet.
    """
    text = _GIVEN.sub("given for this site: ", text)
    sentences = re.split(r"(?<=[.;])\s+(?=[A-Z])", text)
    return " ".join(s for s in sentences if "site.toml" not in s).strip()


def _sentence(text: str) -> str:
    """``text`` ending in one full stop."""
    return text.rstrip(". ") + "."


def _c_text(block: dict[str, Any]) -> str:
    """C by cover with its source, covers sharing a source named once with it (each its table row)."""
    groups: dict[str, list[str]] = {}
    for kind, e in block.get("c_factors", {}).items():
        if e["value"] is None and kind not in block.get("covers_without_c", []):
            continue  # a cover the schedule does not use and no C was found for
        source, _, row = str(e["source"]).partition(" (row: ")
        name = kind.replace("_", " ")
        what = f"{name} {e['value']:g}" if e["value"] is not None else f"{name}: not known"
        groups.setdefault(for_reviewer(source).rstrip(". "), []).append(
            what + (f" (row: {row}" if row else "")
        )
    return "C by cover: " + "; ".join(f"{', '.join(kinds)}: {source}" for source, kinds in groups.items())


def method_lines(block: dict[str, Any]) -> list[str]:
    """The method and each factor with its source, as report.json's ``soil_loss`` block gives them.

    Parameters
    ----------
    block : dict
        The ``soil_loss`` block of report.json.

    Returns
    -------
    list of str
        One paragraph a factor.
    """
    r = block.get("r_factor")
    k_problems = "; ".join(block.get("k_problems", []))
    return [
        _sentence(f"Method: {block['method']}"),
        _sentence(f"LS on the DEM's cells: {block['ls_method']}"),
        (_sentence(f"R = {r:g}: {for_reviewer(block['r_source'])}") if r is not None else "R: not known.")
        + " "
        + _sentence(f"R through the year: {for_reviewer(block['ei_source'])}"),
        f"K: each soil map unit's {block.get('k_attribute', 'kwfact')} (soils layer)"
        + (f"; {k_problems}." if k_problems else "."),
        _sentence(_c_text(block)),
    ]


def finding_text(block: dict[str, Any]) -> str:
    """The NR 151.11 finding as report.json gives it: citation, status and message."""
    f = block.get("finding", {})
    status = str(f.get("status", "")).replace("_", " ")
    return f"Finding, {f.get('citation', '')} [{status}]: {for_reviewer(str(f.get('message', '')))}"


def draw_soil_loss(ctx: MapContext, sheet: L.MapSheet) -> tuple[Panel, list[tuple[str, str]]]:
    """The soil-loss sheet's content (see the module notes) on ``sheet``; returns its panel and title rows.

    Parameters
    ----------
    ctx : MapContext
        The maps' context of an analysis with a soil-loss raster.
    sheet : MapSheet
        The sheet drawn on.

    Returns
    -------
    tuple of Panel and list of tuple of str
        The panel's legend, table and notes, and the title block's extra rows.
    """
    block = soil_loss_block(ctx)
    limit = float(block["max_tons_per_acre_year"])
    panel = Panel(
        HEADING,
        f"Wis. Admin. Code {block['finding']['citation']}: soil loss over the worst 12-month window of the "
        f"construction schedule, {block['worst_window']}, cell by cell, in classes set by the standard's "
        f"{limit:g} t/ac/yr (breaks at {', '.join(f'{s:g}' for s in CLASS_SHARES)} x the standard)",
    )
    draw_relief(ctx, sheet, panel, None, label="Existing ", faint=True)
    _draw_classes(ctx, sheet, panel, limit)
    _draw_beyond(ctx, sheet, panel, block)
    _draw_phases(ctx, sheet, panel, block)
    _draw_slope_enders(ctx, sheet, panel)
    draw_boundary(ctx, sheet, panel)
    panel.notes += _table_notes(block)
    rows = [*window_table(block), ""]
    texts = [finding_text(block), *method_lines(block)]
    title = "SOIL LOSS BY 12-MONTH WINDOW, METHOD AND FINDING"
    if P.frame_block(sheet, title, [("table", r) for r in rows] + [("provision", t) for t in texts]):
        panel.notes.append("The windows, the method and the finding: in the boxed block on the map.")
    else:
        panel.table_title, panel.table, panel.provisions = "SOIL LOSS BY 12-MONTH WINDOW", rows, texts
    worst = tpa_text(block["worst"] | {"exact": block["exact"]})
    return panel, [("Worst window", f"{block['worst_window']}: {worst} t/ac")]


def render_soil_loss_map(
    result,
    out_path: str | Path | None = None,
    sheet: str = "auto",
    scale_ft: float | None = None,
    *,
    margin_ft: float | None = None,
    vertical_datum: str | None = None,
    date: str | None = None,
    sheet_no: str = "4",
    png_dpi: int | None = PNG_DPI,
    svg: bool = False,
):
    """Draw the soil-loss sheet at exactly 1 in = ``scale_ft`` ft (the existing site map's scale);
    arguments and return value as :func:`geosite.maps.render_existing_site_map`, ``result`` an analysis
    whose set has the sheet (:func:`geosite.maps.common.has_soil_loss_sheet`, else an InputError).
    """
    from geosite.errors import InputError
    from geosite.maps.common import has_soil_loss_sheet

    if not has_soil_loss_sheet(result):
        raise InputError(
            "no soil-loss sheet: NR 151.11's soil loss was not computed for this site (under an acre "
            "disturbed, or not assessed: report.json soil_loss says why)"
        )
    ctx = make_context(
        result,
        scale_ft=scale_ft,
        sheet=sheet,
        margin_ft=margin_ft,
        vertical_datum=vertical_datum,
        date=date,
        hillshade=False,
    )
    return render(ctx, draw_soil_loss, out_path, sheet_no, png_dpi=png_dpi, svg=svg)


__all__ = [
    "CLASS_COLORS",
    "CLASS_SHARES",
    "beyond_cells",
    "class_breaks",
    "class_labels",
    "class_of",
    "draw_soil_loss",
    "finding_text",
    "method_lines",
    "render_soil_loss_map",
    "window_table",
]
