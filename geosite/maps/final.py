"""The plan of final site conditions (plan A(2)), in the simple form the submitted data supports: the
existing site (faint), what the data marks as changing (structures with status proposed, roads and
utilities that are new or changed), and the disturbed area to be stabilized at completion. It does not
show final grades unless a proposed-grade surface is given; the sheet says so.
"""

from __future__ import annotations

from pathlib import Path

import shapely

from geosite.maps import layout as L
from geosite.maps.common import (
    MapContext,
    Panel,
    area_text,
    draw_boundary,
    draw_relief,
    faint_style,
    make_context,
    sqft_text,
    status_filter,
)
from geosite.maps.existing import label_improvements
from geosite.maps.preview import PNG_DPI
from geosite.maps.render import render
from geosite.maps.symbology import STYLES, Style

HEADING = "PLAN OF FINAL SITE CONDITIONS"


def draw_final(ctx: MapContext, sheet: L.MapSheet) -> tuple[Panel, list[tuple[str, str]]]:
    """The plan of final site conditions' content (plan A(2)) on ``sheet``; returns its panel and title
    rows.

    Parameters
    ----------
    ctx : MapContext
        The maps' context.
    sheet : MapSheet
        The sheet drawn on.

    Returns
    -------
    tuple of Panel and list of tuple of str
        The panel's legend and notes, and the title block's extra rows (none).
    """
    panel = Panel(
        HEADING,
        f"{ctx.profile.name} ordinance, plan content A(2): the site changes, at the scale "
        "of the existing site map",
    )
    has_relief = draw_relief(ctx, sheet, panel, None, label="Existing ", faint=True)
    proposed = ctx.derived.get("proposed_contours")
    if proposed is not None and len(proposed):
        iv = ctx.interval_ft
        minor = Style("line", f"Proposed contours, {iv:g} ft", edge="#1f5fa8", lw=0.45, z=2.2)
        index = Style(
            "line",
            f"Proposed index contours, every {iv * ctx.index_every:g} ft, labelled (ft)",
            edge="#123f73",
            lw=0.9,
            z=2.25,
        )
        L.draw_contours(sheet, proposed, minor, index)
        panel.add(minor, minor.label)
        panel.add(index, index.label)
    for name in ("lakes", "wetlands", "streams", "channels"):
        gdf = ctx.site_layer(name)
        if gdf is not None:
            L.draw_geoms(sheet, gdf.geometry.values, STYLES[name])
            panel.add(STYLES[name], STYLES[name].label)
    shown: list[str] = []
    absent: list[str] = []
    _stabilized(ctx, sheet, panel, shown, absent)
    _changes(ctx, sheet, panel, shown, absent)
    drives = ctx.site_layer("access_drives")
    if drives is not None:
        L.draw_geoms(sheet, drives.geometry.values, STYLES["access_drives"])
        panel.add(STYLES["access_drives"], STYLES["access_drives"].label)
    draw_boundary(ctx, sheet, panel)
    panel.missing = absent
    if proposed is not None and len(proposed):
        grades = (
            ". Final grades: proposed contours (blue) from the submitted proposed-grade "
            "surface, over existing (brown)."
        )
    else:
        grades = ". Final grades are not shown: no proposed-grade surface was submitted" + (
            "; contours are existing grades." if has_relief else "."
        )
    panel.notes.insert(
        0, "This sheet shows " + ("; ".join(shown) if shown else "no changes: the data marks none") + grades
    )
    return panel, []


def _stabilized(
    ctx: MapContext, sheet: L.MapSheet, panel: Panel, shown: list[str], absent: list[str]
) -> None:
    """The disturbed area, stabilized at completion (report.json's area)."""
    dist = ctx.derived.get("disturbed_area")
    if dist is None or not len(dist):
        d = ctx.site_layer("disturbance")
        geoms = [shapely.union_all(d.geometry.values)] if d is not None else []
    else:
        geoms = list(dist.geometry.values)
    if not geoms:
        absent.append("land disturbance")
        return
    st = STYLES["stabilized"]
    L.draw_geoms(sheet, geoms, st)
    panel.add(st, st.label)
    sqft = ctx.measured("disturbed.area_sqft")
    area = sqft_text(sqft) if sqft is not None else area_text(shapely.union_all(geoms), ctx.site.ft_per_unit)
    shown.append(f"the disturbed area ({area}) to be stabilized")


def _changes(ctx: MapContext, sheet: L.MapSheet, panel: Panel, shown: list[str], absent: list[str]) -> None:
    """Roads, utilities and structures: existing ones faint (roads and structures labelled), what changes
    in its own style, labelled with name and size.
    """
    fpu = ctx.site.ft_per_unit

    def changed(s: str) -> bool:
        """Whether a status marks a change (anything but existing or blank)."""
        return s not in ("existing", "")

    for name, keep_existing, keep_new, st_new in (
        ("roads", lambda s: s == "existing", changed, STYLES["roads_proposed"]),
        ("utilities", lambda s: s == "existing", changed, STYLES["utilities_proposed"]),
        ("structures", lambda s: s != "proposed", lambda s: s == "proposed", STYLES["structures_proposed"]),
    ):
        layer = ctx.site_layer(name)
        old = status_filter(layer, keep_existing)
        new = status_filter(layer, keep_new)
        if old is not None:
            st = STYLES[name]
            faint = faint_style(st)
            L.draw_geoms(sheet, old.geometry.values, faint)
            if name in ("roads", "structures"):  # existing structures are labelled on every sheet
                label_improvements(sheet, name, old, fpu, faint.edge if name == "roads" else "#555555")
            panel.add(faint, "Existing " + st.label[0].lower() + st.label[1:] + ", to remain")
        if new is not None:
            L.draw_geoms(sheet, new.geometry.values, st_new)
            label_improvements(sheet, name, new, fpu, st_new.edge)
            panel.add(st_new, st_new.label + " (label: name and size)")
            shown.append(
                f"{name} marked {'proposed' if name == 'structures' else 'new or changed'}: {len(new)}"
            )
        elif layer is None:
            absent.append(name.replace("_", " "))
        else:
            panel.notes.append(
                f"No {name} carry a status of change{' (proposed)' if name == 'structures' else ''}."
            )


def render_final_conditions(
    result_or_site,
    out_path: str | Path | None = None,
    sheet: str = "auto",
    scale_ft: float | None = None,
    *,
    margin_ft: float | None = None,
    vertical_datum: str | None = None,
    date: str | None = None,
    sheet_no: str = "3",
    png_dpi: int | None = PNG_DPI,
    svg: bool = False,
):
    """Draw the plan of final site conditions at exactly 1 in = ``scale_ft`` ft (the existing site map's
    scale); arguments and return value as :func:`geosite.maps.render_existing_site_map`.
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
    return render(ctx, draw_final, out_path, sheet_no, png_dpi=png_dpi, svg=svg)
