"""The sheet's panel and frame blocks: text and tables wrapped to the panel's width, the legend's rows and
swatches (each drawn as the map draws its layer), blocks set in a blank strip of the map frame, the north
arrow and scale bar, and the key map of a multi-sheet set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon as MplPolygon
from matplotlib.patches import Rectangle

from geosite.maps.layout import MapSheet, NullAxes
from geosite.maps.symbology import BODY_PT, FONT, HEADING_PT, INK, MIN_PT, Style
from geosite.maps.tables import wrap_in

if TYPE_CHECKING:
    from geosite.maps.sheets import Tile


def panel_table(sheet: MapSheet, rows: list[str], size: float) -> float:
    """A table (:mod:`geosite.maps.tables`) at the panel's cursor, as wide as the panel allows; returns the
    height used, inches (measured alone on a probe sheet).
    """
    from geosite.maps.tables import draw_table

    pw, ph = sheet.plan.sheet.panel[2], sheet.plan.sheet.panel[3]
    size = max(size, MIN_PT)
    used = draw_table(sheet.panel, 0.1, ph - sheet.cursor, rows, width_in=pw - 0.2, size=size)
    sheet.cursor += used
    return used


def panel_text(
    sheet: MapSheet,
    text: str,
    size: float = BODY_PT,
    bold: bool = False,
    indent: float = 0.0,
    *,
    gid: str | None = None,
    color: str = INK,
) -> float:
    """Wrapped text at the panel's cursor (top down); returns the height used, inches."""
    size = max(size, MIN_PT)  # the size printed, and so the pitch of its lines
    pw = sheet.plan.sheet.panel[2]
    ph = sheet.plan.sheet.panel[3]
    lines = wrap_in(text, pw - 0.2 - indent, size, bold=bold)
    lh = size * 1.25 / 72
    y = ph - sheet.cursor
    for k, line in enumerate(
        lines
    ):  # one text a line, baselines at this pitch (a line's own ink never moves it)
        sheet.panel.text(
            0.1 + indent,
            y - k * lh - 0.8 * size / 72,
            line,
            fontsize=size,
            va="baseline",
            ha="left",
            fontweight="bold" if bold else "normal",
            gid=gid,
            color=color,
            family=FONT,
        )
    used = lh * len(lines)
    sheet.cursor += used
    return used


def legend_row(
    sheet: MapSheet, st: Style, label: str, size: float = BODY_PT, edge: str | None = None
) -> None:
    """One legend row: a swatch drawn as the map draws the layer, then its label.

    Parameters
    ----------
    sheet : MapSheet
        The sheet; the row goes at its panel's cursor, which moves down past it.
    st : Style
        The layer's style.
    label : str
        The legend text.
    size : float
        Text size, points.
    edge : str or None
        An edge colour other than the style's.
    """
    p = sheet.panel
    ph = sheet.plan.sheet.panel[3]
    lh = max(0.17, size * 1.3 / 72)
    y = ph - sheet.cursor - lh / 2
    x0, w = 0.12, 0.42
    if not isinstance(p, NullAxes):  # measuring the panel only: no swatch is made
        _swatch(p, st, edge or st.edge, x0=x0, y=y, w=w)
    pw = sheet.plan.sheet.panel[2]
    lines = wrap_in(label, pw - x0 - w - 0.2, size)
    p.text(
        x0 + w + 0.1,
        y + lh / 2 - 0.02,
        "\n".join(lines),
        fontsize=max(size, MIN_PT),
        va="top",
        ha="left",
        gid="legend",
        linespacing=1.25,
    )
    sheet.legend.append(label)
    sheet.swatches.append((label, st.kind, st.marker if st.kind == "point" else ""))
    sheet.cursor += lh + (len(lines) - 1) * size * 1.25 / 72


def _swatch(p: Any, st: Style, ec: str, *, x0: float, y: float, w: float) -> None:
    """A legend swatch ``w`` inches wide from ``x0``, centred on ``y`` (panel inches), as the map draws
    the layer: a patch, a line, an arrowhead or a marker.
    """
    if st.kind == "polygon":
        h = 0.11
        r = Rectangle(
            (x0, y - h / 2),
            w,
            h,
            fc=st.face,
            ec=ec,
            lw=st.lw,
            ls=st.ls,
            hatch=st.hatch,
            alpha=st.alpha if st.face != "none" else None,
            gid="swatch-polygon",
        )
        if st.hatch:
            r.set_hatchcolor(ec)
        p.add_patch(r)
    elif st.kind == "line":
        _line_swatch(p, st, ec=ec, x0=x0, y=y, w=w)
    elif st.extra.get("arrow_point"):  # a point drawn as an arrowhead on the map: the same arrowhead here
        head = arrow_head(x0 + w / 2, y, -90.0, float(st.extra["arrow_point"]) / 72)
        p.add_patch(MplPolygon(head, closed=True, fc=st.face, ec=ec, lw=0.3, gid="swatch-arrow"))
    else:
        p.add_line(
            Line2D(
                [x0 + w / 2],
                [y],
                ls="none",
                marker=st.marker,
                ms=st.size,
                mfc=st.face,
                mec=ec,
                mew=0.7,
                gid="swatch-point",
            )
        )


def _line_swatch(p, st: Style, *, ec: str, x0: float, y: float, w: float) -> None:
    """A line's legend swatch as the map draws it: casing, line, inner line, marks and flow arrow."""
    if st.face not in ("none", None):
        p.add_line(Line2D([x0, x0 + w], [y, y], color=st.face, lw=st.lw * 3))
    p.add_line(Line2D([x0, x0 + w], [y, y], color=ec, lw=st.lw, ls=st.ls, gid="swatch-line"))
    inner = st.extra.get("inner")
    if inner:
        p.add_line(Line2D([x0, x0 + w], [y, y], color=inner[0], lw=inner[1], ls=inner[2]))
    if st.extra.get("marks"):
        p.add_line(
            Line2D(
                [x0 + w * 0.25, x0 + w * 0.75],
                [y, y],
                ls="none",
                marker=st.extra["marks"],
                ms=st.extra.get("mark_size", 3.2),
                mec=ec,
                mfc=ec,
                mew=0.8,
                gid="swatch-mark",
            )
        )
    if st.extra.get("arrows"):
        p.add_patch(
            MplPolygon(
                arrow_head(x0 + w * 0.6, y, 0.0, float(st.extra["arrows"]) / 72),
                closed=True,
                fc=ec,
                ec=ec,
                lw=0.3,
                gid="swatch-arrow",
            )
        )


def arrow_head(x: float, y: float, angle_deg: float, size: float) -> np.ndarray:
    """An arrowhead's three corners, tip ``size * 0.6`` ahead of (x, y), pointing at ``angle_deg``."""
    a = np.radians(angle_deg)
    ux, uy = np.cos(a), np.sin(a)
    nx, ny = -uy, ux
    tip = (x + ux * size * 0.6, y + uy * size * 0.6)
    back = (x - ux * size * 0.4, y - uy * size * 0.4)
    return np.array(
        [
            tip,
            (back[0] + nx * size * 0.35, back[1] + ny * size * 0.35),
            (back[0] - nx * size * 0.35, back[1] - ny * size * 0.35),
        ]
    )


def _frame_strip(sheet: MapSheet, min_w: float, min_h: float) -> tuple[float, float, float, float] | None:
    """The largest blank strip of the map frame beside the ground shown (:attr:`MapSheet.window_in`):
    (left, bottom, width, height) inches, or None when no strip is ``min_w`` x ``min_h`` inches.
    """
    fx, fy, fw, fh = sheet.plan.sheet.frame
    wx0, wy0, wx1, wy1 = sheet.window_in.bounds
    gap = 0.2
    strips = [
        (fx + gap, fy + gap, wx0 - fx - 2 * gap, fh - 2 * gap),
        (wx1 + gap, fy + gap, fx + fw - wx1 - 2 * gap, fh - 2 * gap),
        (fx + gap, fy + gap, fw - 2 * gap, wy0 - fy - 2 * gap),
        (fx + gap, wy1 + gap, fw - 2 * gap, fy + fh - wy1 - 2 * gap),
    ]
    fits = [s for s in strips if s[2] >= min_w and s[3] >= min_h]
    return max(fits, key=lambda s: s[2] * s[3]) if fits else None


#: The narrowest blank strip of the frame a table goes in with its widest text column wrapped, inches.
FRAME_TABLE_MIN_IN = 4.0


def frame_block(sheet: MapSheet, title: str, rows: list[tuple[str, str]], size: float = BODY_PT) -> bool:
    """Text beside the map inside its frame, where the map frame is blank beyond the ground shown: a bold
    ``title`` (wrapped to the block) and ``rows`` of (gid, text); the gid ``table`` rows one table in
    columns (:mod:`geosite.maps.tables`: its widest text column wrapped where the strip is narrower than
    the table, in a strip at least :data:`FRAME_TABLE_MIN_IN` wide). False (nothing drawn) when no blank
    strip is wide or tall enough for it all; the caller then puts it in the panel.
    """
    from geosite.maps.tables import draw_table, table_lines, widest_row_in

    strip = _frame_strip(sheet, 3.0, 2.0)
    if strip is None:
        return False
    x0, y0, w, h = strip
    w = min(w, 7.0)
    size = max(size, MIN_PT)
    lh = size * 1.25 / 72
    groups: list[tuple[str, list[str]]] = []  # consecutive rows of one gid
    for gid, text in rows:
        if groups and groups[-1][0] == gid == "table":
            groups[-1][1].append(text)
        else:
            groups.append((gid, [text]))
    tables = [g for gid, g in groups if gid == "table"]
    if w < FRAME_TABLE_MIN_IN and any(widest_row_in(t, size) + 0.2 > w for t in tables):
        return False  # too narrow a strip for the table whole, and too narrow to wrap its text column
    heading = wrap_in(title, w - 0.2, size + 0.5, bold=True)
    blocks = [
        (gid, table_lines(g, w - 0.2, size) if gid == "table" else len(wrap_in(g[0], w - 0.2, size)))
        for gid, g in groups
    ]
    need = lh * (len(heading) + sum(n for _, n in blocks)) + 0.06 * len(blocks) + 0.2
    if need > h:
        return False
    fig = sheet.fig
    tr = fig.dpi_scale_trans
    fig.add_artist(Rectangle((x0, y0 + h - need), w, need, transform=tr, fill=False, ec=INK, lw=0.6))
    y = y0 + h - 0.1
    for line in heading:
        fig.text(x0 + 0.1, y, line, transform=tr, fontsize=size + 0.5, fontweight="bold", va="top", ha="left")
        y -= lh
    y -= 0.04
    for gid, g in groups:
        if gid == "table":
            y -= draw_table(fig, x0 + 0.1, y, g, width_in=w - 0.2, size=size, transform=tr)
            continue
        for line in wrap_in(g[0], w - 0.2, size):  # one text a line, baselines at the block's pitch
            fig.text(
                x0 + 0.1,
                y - 0.8 * size / 72,
                line,
                transform=tr,
                fontsize=size,
                va="baseline",
                ha="left",
                gid=gid,
            )
            y -= lh
        y -= 0.06
    return True


def space_left(sheet: MapSheet) -> float:
    """The panel's height still free between its top-down cursor and its floor, inches."""
    return sheet.plan.sheet.panel[3] - sheet.cursor - sheet.floor


def north_and_scale(sheet: MapSheet, crs, convergence_deg: float | None, size: float = BODY_PT) -> None:
    """North arrow (grid north) and the graphic and written scale, just above the panel's floor."""
    p = sheet.panel
    s = sheet.plan.scale_ft
    pw = sheet.plan.sheet.panel[2]
    y0 = sheet.floor + 0.12
    # written scale and the printing note
    note = (
        f"Scale exact when printed at 100 % on {sheet.plan.sheet.label}. "
        f"Grid north: up the sheet is north of the {crs.name} grid"
        + (
            f"; true north is {abs(convergence_deg):.2f}° {'west' if convergence_deg > 0 else 'east'} of "
            "grid north at the site."
            if convergence_deg is not None
            else "."
        )
    )
    lines = wrap_in(note, pw - 0.75, MIN_PT)  # the north arrow stands to the right of this note
    p.text(
        0.1, y0, "\n".join(lines), fontsize=MIN_PT, va="bottom", ha="left", linespacing=1.2, color="#333333"
    )
    nx, ny = pw - 0.3, y0 + 0.12
    y0 += len(lines) * MIN_PT * 1.2 / 72 + 0.08
    ratio = round(s * 12)
    p.text(
        0.1,
        y0,
        f"1 in = {s:g} ft   (1:{ratio:,})",
        fontsize=HEADING_PT,
        fontweight="bold",
        va="bottom",
        ha="left",
        gid="written-scale",
    )
    y0 += 0.25
    # graphic scale: 0, s/2, s, 2s feet = 0, 0.5, 1, 2 in
    x0, hbar = 0.15, 0.07
    for i, (a, b) in enumerate(((0, 0.5), (0.5, 1.0), (1.0, 2.0))):
        p.add_patch(Rectangle((x0 + a, y0), b - a, hbar, fc=INK if i % 2 == 0 else "white", ec=INK, lw=0.6))
    for v in (0, 0.5, 1.0, 2.0):
        p.text(x0 + v, y0 + hbar + 0.04, f"{v * s:g}", fontsize=MIN_PT + 0.5, ha="center", va="bottom")
    p.text(x0 + 2.0 + 0.08, y0 + hbar / 2, "feet", fontsize=MIN_PT + 0.5, ha="left", va="center")
    # north arrow (grid north), right of the note and the written scale
    arrow = MplPolygon(
        [(nx, ny + 0.55), (nx - 0.12, ny), (nx, ny + 0.12), (nx + 0.12, ny)],
        closed=True,
        fc=INK,
        ec=INK,
        lw=0.5,
    )
    p.add_patch(arrow)
    p.text(nx, ny + 0.6, "N", fontsize=HEADING_PT, fontweight="bold", ha="center", va="bottom")
    p.text(nx, ny - 0.03, "grid", fontsize=MIN_PT, ha="center", va="top")
    top = max(y0 + hbar + 0.2, ny + 0.8)
    sheet.floor = top + 0.05


def key_map(sheet: MapSheet, site_geom, all_tiles: list[Tile], height_in: float = 1.3) -> None:
    """A small map of every tile of this map, numbered, with this sheet's tile shaded, at most
    ``height_in`` inches of paper high (1.3 by default: geosite's choice, not the ordinance's, a drawing
    size).
    """
    pw = sheet.plan.sheet.panel[2]
    p = sheet.panel
    y = sheet.floor + 0.05
    xs = [t.bounds[0] for t in all_tiles] + [t.bounds[2] for t in all_tiles]
    ys = [t.bounds[1] for t in all_tiles] + [t.bounds[3] for t in all_tiles]
    gx0, gx1, gy0, gy1 = min(xs), max(xs), min(ys), max(ys)
    w_in = pw - 0.4
    k = min(w_in / (gx1 - gx0), height_in / (gy1 - gy0))
    ox = 0.2 + (w_in - (gx1 - gx0) * k) / 2

    def tr(x, yy):
        """(x, yy) in CRS units to panel inches on the key map."""
        return ox + (x - gx0) * k, y + (yy - gy0) * k

    for t in all_tiles:
        a = tr(t.bounds[0], t.bounds[1])
        b = tr(t.bounds[2], t.bounds[3])
        here = t.number == sheet.tile.number
        p.add_patch(Rectangle(a, b[0] - a[0], b[1] - a[1], fc="#dddddd" if here else "white", ec=INK, lw=0.6))
        p.text(
            (a[0] + b[0]) / 2,
            (a[1] + b[1]) / 2,
            str(t.number),
            fontsize=BODY_PT,
            ha="center",
            va="center",
            fontweight="bold" if here else "normal",
        )
    for poly in shapely.get_parts(site_geom):
        if poly.geom_type == "Polygon":
            xy = np.array([tr(x, yy) for x, yy in poly.exterior.coords])
            p.add_patch(MplPolygon(xy, closed=True, fill=False, ec=INK, lw=1.0))
    p.text(
        0.1,
        y + height_in + 0.05,
        "Key map: sheets of this map (this sheet shaded)",
        fontsize=MIN_PT + 0.5,
        va="bottom",
        ha="left",
    )
    sheet.floor = y + height_in + 0.25
