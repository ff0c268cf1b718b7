"""The sheet's title block (heading, sheet number, the plan's people and dates, revisions) and its location
map (the site among the roads and places around it), with the compass words and the date they print.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon as MplPolygon
from matplotlib.patches import Rectangle
from shapely.geometry import box

from geosite.maps.layout import MapSheet, halo
from geosite.maps.symbology import HEADING_PT, INK, MIN_PT
from geosite.maps.tables import wrap_in

if TYPE_CHECKING:
    pass


def title_block(
    sheet: MapSheet,
    rows: list[tuple[str, str]],
    heading: str,
    sheet_no: str,
    size: float = MIN_PT,
    *,
    revisions: list[tuple[str, str, str]] | None = None,
    of: int | None = None,
) -> None:
    """The title block at the bottom of the panel: a heading and the sheet number box ("1 of 3"),
    labelled rows, then above it the revision block and a blank square for the preparer's seal.

    Parameters
    ----------
    sheet : MapSheet
        The sheet; its panel's floor rises above the block.
    rows : list of tuple of str
        (label, text) per row.
    heading : str
        The map's title.
    sheet_no : str
        The sheet's number in the set.
    size : float
        The rows' text size, points.
    revisions : list of tuple of str or None
        The revision block's rows (number, date, description).
    of : int or None
        How many sheets the set has ("1 of 3"); None: the number alone.
    """
    p = sheet.panel
    pw = sheet.plan.sheet.panel[2]
    lh = size * 1.25 / 72
    label_w = 0.85
    blocks = [(label, wrap_in(value or "", pw - label_w - 0.2, size)) for label, value in rows]
    head_h = 0.42
    total = sum(len(lines) * lh + 0.03 for _, lines in blocks) + head_h + 0.12
    _title_head(p, pw, total, heading, f"{sheet_no} of {of}" if of else sheet_no, head_h=head_h)
    y = total - head_h - 0.06
    for label, lines in blocks:
        p.text(0.1, y, label, fontsize=max(size, MIN_PT), fontweight="bold", va="top", ha="left")
        p.text(
            0.1 + label_w,
            y,
            "\n".join(lines),
            fontsize=max(size, MIN_PT),
            va="top",
            ha="left",
            linespacing=1.25,
            gid="title-block",
        )
        y -= len(lines) * lh + 0.03
    band = _revision_block(p, pw, total, revisions or [])
    sheet.floor = total + band + 0.08


def _title_head(p: Any, pw: float, total: float, heading: str, number: str, *, head_h: float) -> None:
    """The title block's frame (``total`` inches high, ``pw`` wide) and its head: the map's title and
    the sheet number box.
    """
    p.add_patch(Rectangle((0, 0), pw, total, fill=False, ec=INK, lw=1.0))
    p.add_line(Line2D([0, pw], [total - head_h, total - head_h], color=INK, lw=0.6))
    p.text(0.1, total - 0.08, heading, fontsize=HEADING_PT, fontweight="bold", va="top", ha="left")
    p.add_patch(Rectangle((pw - 0.8, total - head_h), 0.8, head_h, fill=False, ec=INK, lw=0.6))
    p.text(pw - 0.4, total - 0.05, "SHEET", fontsize=MIN_PT, ha="center", va="top")
    p.text(
        pw - 0.4,
        total - head_h + 0.04,
        number,
        fontsize=HEADING_PT,
        fontweight="bold",
        ha="center",
        va="bottom",
        gid="sheet-number",
    )


def _revision_block(p: Any, pw: float, y0: float, rev_rows: list[tuple[str, str, str]]) -> float:
    """The revision block (left) and the seal (right) from ``y0`` inches up; returns their height."""
    seal = 0.9
    rh = MIN_PT * 1.3 / 72
    band = max(seal, 0.2 + rh * (len(rev_rows) + 1) + 0.08)
    p.add_patch(Rectangle((0, y0), pw, band, fill=False, ec=INK, lw=0.8))
    p.add_patch(Rectangle((pw - seal, y0), seal, band, fill=False, ec=INK, lw=0.6))
    p.text(pw - seal / 2, y0 + band - 0.05, "SEAL", fontsize=MIN_PT, ha="center", va="top", color="#555555")
    p.text(0.08, y0 + band - 0.05, "REVISIONS", fontsize=MIN_PT + 0.5, fontweight="bold", va="top", ha="left")
    cols = (0.08, 0.38, 1.1)
    yy = y0 + band - 0.05 - rh - 0.03
    for x, head in zip(cols, ("No.", "Date", "Description"), strict=True):
        p.text(x, yy, head, fontsize=MIN_PT, fontweight="bold", va="top", ha="left")
    for no, date, what in rev_rows:
        yy -= rh
        for x, v in zip(cols, (no, date, what), strict=True):
            p.text(x, yy, v, fontsize=MIN_PT, va="top", ha="left", gid="revision")
    return band


def location_map(
    sheet: MapSheet,
    site_geom,
    extent,
    lines: list[tuple[Any, str, str]],
    caption: str,
    *,
    height_in: float = 1.4,
) -> None:
    """A location (vicinity) map in the panel: the site filled, this sheet's map extent as a box, and
    the roads and waters of the site's data (``lines``: geometry, colour, name), with the caption under it;
    ``height_in`` inches of paper high (1.4 by default: geosite's choice, not the ordinance's, a drawing
    size).

    Parameters
    ----------
    sheet : MapSheet
        The sheet; its panel's floor rises above the map.
    site_geom : shapely geometry
        The site boundary (site CRS).
    extent : tuple of float
        This sheet's map extent (xmin, ymin, xmax, ymax, CRS units); the location map shows it and half
        its size again on each side.
    lines : list of tuple
        (geometry, colour, name) of each road, stream, lake and wetland to draw.
    caption : str
        The text under the map.
    height_in : float
        The map's height at most, inches.
    """
    pw = sheet.plan.sheet.panel[2]
    p = sheet.panel
    y = sheet.floor + 0.05
    x0, y0, x1, y1 = extent
    gx0, gy0, gx1, gy1 = x0 - (x1 - x0) / 2, y0 - (y1 - y0) / 2, x1 + (x1 - x0) / 2, y1 + (y1 - y0) / 2
    w_in = pw - 0.3
    k = min(w_in / (gx1 - gx0), height_in / (gy1 - gy0))
    ox = 0.15 + (w_in - (gx1 - gx0) * k) / 2
    cap = wrap_in(caption, pw - 0.2, MIN_PT)
    p.text(0.1, y, "\n".join(cap), fontsize=MIN_PT, va="bottom", ha="left", linespacing=1.25, gid="location")
    y += len(cap) * MIN_PT * 1.25 / 72 + 0.04
    hgt = (gy1 - gy0) * k
    tr = _Inset(ox, y, gx0, gy0, k)
    p.add_patch(Rectangle((ox, y), (gx1 - gx0) * k, hgt, fill=False, ec=INK, lw=0.6))
    win = box(gx0, gy0, gx1, gy1)
    _location_features(p, lines, win, tr)
    _location_site(p, site_geom, extent, tr)
    _location_names(p, [(shapely.intersection(g, win), n) for g, _, n in lines if n], tr)
    # a north arrow (grid north, as the sheet's) in the map's upper right corner
    nx, ny = ox + (gx1 - gx0) * k - 0.12, y + hgt - 0.32
    p.add_patch(
        MplPolygon(
            [(nx, ny + 0.22), (nx - 0.05, ny), (nx, ny + 0.05), (nx + 0.05, ny)],
            closed=True,
            fc=INK,
            ec=INK,
            lw=0.3,
            gid="location-north",
        )
    )
    p.text(nx, ny + 0.23, "N", fontsize=MIN_PT, fontweight="bold", ha="center", va="bottom")
    p.text(
        0.1, y + hgt + 0.04, "LOCATION MAP", fontsize=MIN_PT + 0.5, fontweight="bold", va="bottom", ha="left"
    )
    sheet.floor = y + hgt + 0.25


@dataclass(frozen=True)
class _Inset:
    """CRS coordinates to panel inches on a small map: ``(xy - (gx0, gy0)) * k + (ox, oy)``."""

    ox: float
    oy: float
    gx0: float
    gy0: float
    k: float

    def __call__(self, xy: Any) -> np.ndarray:
        """An (n, 2) array of CRS coordinates in panel inches."""
        a = np.asarray(xy)[:, :2]
        return np.column_stack(
            [self.ox + (a[:, 0] - self.gx0) * self.k, self.oy + (a[:, 1] - self.gy0) * self.k]
        )


def _location_features(p: Any, lines: list[tuple[Any, str, str]], win: Any, tr: _Inset) -> None:
    """The roads and waters of the location map, cut to its window ``win``: areas filled, lines drawn."""
    for geom, color, _name in lines:
        g = shapely.intersection(geom, win)
        for part in shapely.get_parts(g):
            if part.geom_type == "Polygon":
                p.add_patch(
                    MplPolygon(tr(part.exterior.coords), closed=True, fc=color, ec=color, lw=0.3, alpha=0.6)
                )
            elif part.geom_type == "LineString":
                xy = tr(part.coords)
                p.add_line(Line2D(xy[:, 0], xy[:, 1], color=color, lw=0.8))


def _location_site(p: Any, site_geom: Any, extent: Any, tr: _Inset) -> None:
    """The site filled black and named, and this sheet's map extent as a red dashed box."""
    for poly in shapely.get_parts(site_geom):
        if poly.geom_type == "Polygon":
            p.add_patch(MplPolygon(tr(poly.exterior.coords), closed=True, fc=INK, ec=INK, lw=0.5))
    x0, y0, x1, y1 = extent
    a, b = tr([(x0, y0), (x1, y1)])
    p.add_patch(
        Rectangle(tuple(a), b[0] - a[0], b[1] - a[1], fill=False, ec="#c0392b", lw=0.6, ls=(0, (3, 2)))
    )
    c = site_geom.centroid
    sx, sy = tr([(c.x, c.y)])[0]
    p.text(
        sx,
        sy - 0.06,
        "SITE",
        fontsize=MIN_PT,
        fontweight="bold",
        ha="center",
        va="top",
        gid="location-site",
        path_effects=halo(1.5),
    )


def _location_names(p, named: list[tuple[Any, str]], tr) -> None:
    """Each named road of the location map labelled once, along its longest visible piece."""
    done = set()
    for g, name in named:
        if name in done or g is None or g.is_empty:
            continue
        piece = max(shapely.get_parts(g), key=lambda q: q.area if "Polygon" in q.geom_type else q.length)
        r = shapely.minimum_rotated_rectangle(piece)
        xy = np.asarray(r.exterior.coords) if r.geom_type == "Polygon" else np.asarray(piece.coords)
        sides = np.diff(xy[:3], axis=0)
        d = sides[int(np.argmax(np.hypot(sides[:, 0], sides[:, 1])))]
        ang = float(np.degrees(np.arctan2(d[1], d[0])))
        ang = ang - 180 if ang > 90 else ang + 180 if ang < -90 else ang
        q = piece.representative_point()
        px, py = tr([(q.x, q.y)])[0]
        p.text(
            px,
            py,
            name,
            fontsize=MIN_PT,
            rotation=ang,
            rotation_mode="anchor",
            ha="center",
            va="center",
            color="#333333",
            gid="location-road",
            path_effects=halo(1.5),
        )
        done.add(name)


_COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def compass(dx: float, dy: float) -> str:
    """The grid direction of (dx, dy) in words, to the nearest eighth (``north-east``)."""
    a = float(np.degrees(np.arctan2(dy, dx))) % 360
    return _COMPASS[int(((a + 22.5) % 360) // 45)]


def today() -> str:
    """Today's date, ISO (``2026-12-02``)."""
    return dt.date.today().isoformat()
