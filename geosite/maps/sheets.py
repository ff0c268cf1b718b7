"""Paper: sheet sizes, orientation, the boxes on a sheet, and fitting a site to sheets (or tiles).

Everything here is plain arithmetic in inches and ground feet; no matplotlib (the command line checks
a site's sheets here before any work, without loading it). A sheet is laid out as a
map frame on the left and a panel on the right (legend, north arrow, scale, title block). The map
frame's size in inches times the scale (feet per inch) is the ground it shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from geosite.errors import InputError

#: Sheet sizes, inches (short side, long side).
SHEET_SIZES_IN: dict[str, tuple[float, float]] = {
    "ANSI-A": (8.5, 11.0),
    "ANSI-B": (11.0, 17.0),
    "ANSI-C": (17.0, 22.0),
    "ANSI-D": (22.0, 34.0),
    "ARCH-D": (24.0, 36.0),
    "ARCH-E": (36.0, 48.0),
}
#: Sizes "auto" takes only when the panel of every smaller sheet overflows (a schedule of many controls):
#: a site is fitted on ARCH D at the largest; ARCH E is the next size a drafter would print.
OVERFLOW_SIZES = ("ARCH-E",)
#: The largest sheet "auto" may reach.
LARGEST_SHEET = "ARCH-E"
ORIENTATIONS = ("landscape", "portrait")
#: The engineer's scales a civil sheet is drawn at, ground feet per paper inch (the divisions of a
#: triangular engineer's scale: 1 in = 10, 20, 30, 40, 50 and 60 ft, and 100 ft, the ordinances' smallest).
STANDARD_SCALES_FT = (10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 100.0)
#: Plain-paper conventions: blank border and the width of the legend/title panel, inches.
BORDER_IN = {"ANSI-A": 0.4, "ANSI-B": 0.5, "ANSI-C": 0.5, "ANSI-D": 0.75, "ARCH-D": 0.75, "ARCH-E": 0.75}
PANEL_IN = {"ANSI-A": 2.75, "ANSI-B": 3.0, "ANSI-C": 3.4, "ANSI-D": 3.6, "ARCH-D": 3.6, "ARCH-E": 3.6}
GAP_IN = 0.15
#: Blank paper kept between the map's extent and its frame where the frame has room, inches.
FRAME_PAD_IN = 0.25


@dataclass(frozen=True)
class Sheet:
    """A sheet of paper in one orientation and the boxes drawn on it (inches from the lower left)."""

    size: str
    orientation: str

    @property
    def width_in(self) -> float:
        """The sheet's width as oriented, inches."""
        a, b = SHEET_SIZES_IN[self.size]
        return b if self.orientation == "landscape" else a

    @property
    def height_in(self) -> float:
        """The sheet's height as oriented, inches."""
        a, b = SHEET_SIZES_IN[self.size]
        return a if self.orientation == "landscape" else b

    @property
    def border_in(self) -> float:
        """The blank border around the sheet, inches."""
        return BORDER_IN[self.size]

    @property
    def frame(self) -> tuple[float, float, float, float]:
        """The map frame: (left, bottom, width, height), inches."""
        m = self.border_in
        w = self.width_in - 2 * m - PANEL_IN[self.size] - GAP_IN
        return (m, m, w, self.height_in - 2 * m)

    @property
    def panel(self) -> tuple[float, float, float, float]:
        """The legend and title panel: (left, bottom, width, height), inches."""
        m = self.border_in
        p = PANEL_IN[self.size]
        return (self.width_in - m - p, m, p, self.height_in - 2 * m)

    @property
    def label(self) -> str:
        """The sheet named as printed: ``ANSI-C (17 x 22 in, landscape)``."""
        a, b = SHEET_SIZES_IN[self.size]
        return f"{self.size} ({_num(a)} x {_num(b)} in, {self.orientation})"

    def ground_ft(self, scale_ft: float) -> tuple[float, float]:
        """Ground width and height (feet) the map frame shows at ``scale_ft`` feet per inch."""
        _, _, w, h = self.frame
        return w * scale_ft, h * scale_ft


def _num(x: float) -> str:
    return f"{x:g}"


def check_scale(scale_ft: float, max_ft_per_in: float | None = None) -> float:
    """The scale as feet per paper inch, refused (InputError) unless positive and, given the chapter's
    limit, no smaller a scale than it allows.

    Parameters
    ----------
    scale_ft : float
        The scale asked for, ground feet per paper inch.
    max_ft_per_in : float or None
        The village's chapter's smallest scale, ground feet per paper inch
        (:attr:`geosite.rules.Profile.map_scale_ft`: Grantsburg's and Belgium's 100, Newburg's 20);
        None checks the number alone.

    Returns
    -------
    float
        The scale, feet per inch.
    """
    try:
        s = float(scale_ft)
    except (TypeError, ValueError):
        raise InputError(
            f"map scale must be a number of feet per inch (e.g. 100, 50, 40, 20), got {scale_ft!r}"
        ) from None
    if not (s > 0 and math.isfinite(s)):
        raise InputError(f"map scale must be a positive number of feet per inch, got {scale_ft!r}")
    if max_ft_per_in is not None and s > max_ft_per_in:
        raise InputError(
            f"map scale 1 in = {s:g} ft is smaller than the village's chapter allows: its plan map must be "
            f"at least 1 in = {max_ft_per_in:g} ft; leave --scale out for that scale, or give a larger one "
            f"(fewer feet per inch)"
        )
    return s


def parse_sheet(sheet: str | None, *, overflow: bool = False) -> list[Sheet]:
    """Candidate sheets for a ``--sheet`` value, smallest first.

    ``"auto"`` (or None): every size in both orientations but :data:`OVERFLOW_SIZES`, which ``overflow``
    (a larger sheet sought because a panel overflows) adds; ``"ANSI-D"``: that size, both orientations;
    ``"ANSI-D-portrait"`` / ``"ANSI-D landscape"``: exactly that. Case and ``_``/space are forgiven.
    """
    text = (sheet or "auto").strip().upper().replace("_", "-").replace(" ", "-")
    if text == "AUTO":
        sizes = [s for s in SHEET_SIZES_IN if overflow or s not in OVERFLOW_SIZES]
        return [Sheet(s, o) for s in sizes for o in ORIENTATIONS]
    for o in ORIENTATIONS:
        if text.endswith("-" + o.upper()):
            size = text[: -len(o) - 1]
            if size in SHEET_SIZES_IN:
                return [Sheet(size, o)]
    if text in SHEET_SIZES_IN:
        return [Sheet(text, o) for o in ORIENTATIONS]
    if text.replace("-", "") in {k.replace("-", "") for k in SHEET_SIZES_IN}:
        size = next(k for k in SHEET_SIZES_IN if k.replace("-", "") == text.replace("-", ""))
        return [Sheet(size, o) for o in ORIENTATIONS]
    valid = ", ".join(list(SHEET_SIZES_IN) + [f"{k}-portrait" for k in ("ANSI-D",)] + ["auto"])
    raise InputError(f"unknown sheet {sheet!r}; use one of {valid} (sizes may take -landscape or -portrait)")


def map_extent(site: Any, margin_ft: float) -> tuple[float, float, float, float]:
    """The maps' extent (site CRS): the site's bounding box and ``margin_ft`` around it."""
    xmin, ymin, xmax, ymax = site.boundary.bounds
    m = margin_ft / site.ft_per_unit
    return (xmin - m, ymin - m, xmax + m, ymax + m)


def check_margin(margin_ft: Any) -> float:
    """A map margin in feet: a finite number of at least 0, else :class:`~geosite.errors.InputError`."""
    if not (isinstance(margin_ft, (int, float)) and margin_ft >= 0 and math.isfinite(margin_ft)):
        raise InputError(f"map margin must be a non-negative number of feet, got {margin_ft!r}")
    return float(margin_ft)


def fit_site(
    site: Any, scale_ft: float | None = None, sheet: str = "auto", margin_ft: float | None = None
) -> SheetPlan:
    """The site's plan maps fitted to paper (:func:`fit_sheets`) with the margin its chapter asks for
    (``margin_ft``, ft, overriding it); plain arithmetic, no sheet count limited (:func:`check_sheet_count`
    limits it).

    Parameters
    ----------
    site : geosite.site.Site
        The site.
    scale_ft : float or None
        The scale asked for, ground feet per paper inch; None: the largest standard scale that fits, never
        smaller than the profile's.
    sheet : str
        The sheet asked for (``auto``, ``ANSI-D``, ...).
    margin_ft : float or None
        The map margin, ft; None: the site's for its profile.

    Returns
    -------
    SheetPlan
        The sheet, the scale and the tiles.
    """
    from geosite.rules import load_profile

    profile = site.profile or load_profile(site.jurisdiction)
    margin = site.map_margin_ft(profile) if margin_ft is None else margin_ft
    if scale_ft is None and profile.map_scale_ft is None:
        raise InputError(f"profile {profile.id} gives no map scale: pass scale_ft, feet per inch")
    if scale_ft is not None:
        scale_ft = check_scale(scale_ft, profile.map_scale_ft)
    extent = map_extent(site, check_margin(margin))
    return fit_sheets(extent, site.ft_per_unit, profile.map_scale_ft, sheet=sheet, scale_ft=scale_ft)


def check_sheet_count(
    site: Any, scale_ft: float | None = None, sheet: str = "auto", margin_ft: float | None = None
) -> SheetPlan:
    """Refuse, before any work, a bad margin or a site whose plan maps would be tiled over more sheets
    than its limits allow (:meth:`geosite.io.limits.Limits.check_sheet_tiles`), planned as the maps plan
    them (:func:`fit_sheets`). ``scale_ft`` (feet per inch) None: the largest standard scale that fits,
    never smaller than the profile's (:attr:`geosite.rules.Profile.map_scale_ft`); a smaller scale than
    the profile's is refused. Returns the sheet plan.
    """
    plan = fit_site(site, scale_ft, sheet, margin_ft)
    site.limits.check_sheet_tiles(
        f"site {site.root or site.name}", len(plan.tiles), plan.sheet.label, plan.scale_ft
    )
    return plan


def fit_sheets(
    extent: tuple[float, float, float, float],
    ft_per_unit: float,
    max_ft_per_in: float | None,
    *,
    sheet: str | None = "auto",
    scale_ft: float | None = None,
) -> SheetPlan:
    """The plan maps fitted to paper as a drafter fits them: the largest standard engineer's scale
    (:data:`STANDARD_SCALES_FT`, never smaller than the chapter allows) at which ``extent`` (the site and the
    margin the chapter asks for) fits one of the candidate sheets, on the smallest sheet that holds it at
    that scale (:func:`plan_sheets`). Where none holds it even at the chapter's scale, it is tiled at that
    scale. ``scale_ft`` given (``--scale``): exactly that scale, on the smallest sheet; ``sheet`` given
    (``--sheet``): only that sheet. The panel beside the map has its own width on every sheet (``PANEL_IN``):
    a sheet's frame is what is left for the map, so a map that fits its frame leaves the panel its room.

    Parameters
    ----------
    extent : tuple of float
        The ground the maps show (xmin, ymin, xmax, ymax, CRS units).
    ft_per_unit : float
        Feet per CRS unit.
    max_ft_per_in : float or None
        The chapter's smallest scale, ground feet per paper inch (None: the standard scales alone).
    sheet : str or None
        The sheet asked for (``auto``: any, :func:`parse_sheet`).
    scale_ft : float or None
        The scale asked for, ground feet per paper inch (None: fitted).

    Returns
    -------
    SheetPlan
        The sheet, the scale and the tiles.
    """
    if scale_ft is not None:
        return plan_sheets(extent, scale_ft, ft_per_unit, sheet)
    limit = math.inf if max_ft_per_in is None else float(max_ft_per_in)
    scales = sorted({s for s in STANDARD_SCALES_FT if s <= limit + 1e-9})
    if math.isfinite(limit) and limit not in scales:
        scales.append(limit)  # the chapter's own scale is always open (an odd one: 1 in = 80 ft)
    w, h = (extent[2] - extent[0]) * ft_per_unit, (extent[3] - extent[1]) * ft_per_unit
    cands = parse_sheet(sheet)
    for s in scales:
        if any(w / s <= c.frame[2] + 1e-9 and h / s <= c.frame[3] + 1e-9 for c in cands):
            return plan_sheets(extent, s, ft_per_unit, sheet)
    return plan_sheets(extent, scales[-1], ft_per_unit, sheet)


@dataclass(frozen=True)
class Tile:
    """One sheet's piece of the map: ground bounds in CRS units and its place in the tile grid."""

    bounds: tuple[float, float, float, float]
    row: int  # 0 = northernmost
    col: int  # 0 = westernmost
    number: int  # 1-based, row by row from the north-west


@dataclass(frozen=True)
class SheetPlan:
    """A map fitted to paper: the sheet, the scale (feet per inch), CRS units per inch, and its tiles
    (one, or a grid of ``rows`` x ``cols``).
    """

    sheet: Sheet
    scale_ft: float
    units_per_inch: float
    tiles: list[Tile]
    rows: int
    cols: int

    @property
    def tiled(self) -> bool:
        """Whether the map takes more than one sheet."""
        return len(self.tiles) > 1


def plan_sheets(
    extent: tuple[float, float, float, float],
    scale_ft: float,
    ft_per_unit: float,
    sheet: str | None = "auto",
    larger_than: Sheet | None = None,
) -> SheetPlan:
    """Fit ``extent`` (CRS units: the site plus its margin) on the smallest candidate sheet at exactly
    ``scale_ft`` feet per inch; when none holds it, tile it over the largest candidate (fewest tiles).

    Each tile's bounds span exactly the map frame's inches times the scale: tiles centred on the extent,
    a single sheet's map set against the frame's upper left (the blank frame one strip for the notes).
    """
    scale_ft = check_scale(scale_ft)
    upi = scale_ft / ft_per_unit  # CRS units per paper inch
    xmin, ymin, xmax, ymax = extent
    need_w, need_h = (xmax - xmin) / upi, (ymax - ymin) / upi  # inches
    cands = parse_sheet(sheet, overflow=larger_than is not None)
    if larger_than is not None:
        area = _area(larger_than)
        bigger = [c for c in cands if _area(c) > area]
        cands = bigger or [c for c in cands if _area(c) == max(_area(x) for x in cands)]
    for s in cands:
        _, _, fw, fh = s.frame
        if need_w <= fw + 1e-9 and need_h <= fh + 1e-9:
            return _tiles(s, extent, upi, scale_ft, 1, rows=1)
    biggest = max(SHEET_SIZES_IN[c.size][0] * SHEET_SIZES_IN[c.size][1] for c in cands)
    best = None
    for s in cands:
        a, b = SHEET_SIZES_IN[s.size]
        if a * b != biggest:
            continue
        _, _, fw, fh = s.frame
        cols, rows = math.ceil(need_w / fw - 1e-9), math.ceil(need_h / fh - 1e-9)
        if best is None or cols * rows < best[0]:
            best = (cols * rows, s, cols, rows)
    assert best is not None
    _, s, cols, rows = best
    return _tiles(s, extent, upi, scale_ft, cols, rows=rows)


def _area(s: Sheet) -> float:
    a, b = SHEET_SIZES_IN[s.size]
    return a * b


def _tiles(s: Sheet, extent, upi: float, scale_ft: float, cols: int, *, rows: int) -> SheetPlan:
    _, _, fw, fh = s.frame
    tw, th = fw * upi, fh * upi
    cx, cy = (extent[0] + extent[2]) / 2, (extent[1] + extent[3]) / 2
    x0 = cx - cols * tw / 2
    ytop = cy + rows * th / 2
    if cols == rows == 1:  # one sheet: the map against the frame's upper left, the blank frame in one
        # strip to its right (or below) where the schedule and notes go (layout.frame_block)
        x0, ytop = (
            extent[0] - min(FRAME_PAD_IN * upi, (tw - (extent[2] - extent[0])) / 2),
            extent[3] + min(FRAME_PAD_IN * upi, (th - (extent[3] - extent[1])) / 2),
        )
    tiles = []
    for r in range(rows):
        for c in range(cols):
            left, top = x0 + c * tw, ytop - r * th
            tiles.append(Tile((left, top - th, left + tw, top), r, c, r * cols + c + 1))
    return SheetPlan(s, scale_ft, upi, tiles, rows, cols)
