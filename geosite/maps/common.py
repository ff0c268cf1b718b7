"""What every plan map shares: the map context (site, profile, derived layers, scale, extent, sheets),
the panel layout, and the render loop that writes PDF (print master) and PNG previews per tile.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from matplotlib import rc_context
from shapely.geometry import box

from geosite.errors import InputError
from geosite.maps import labels
from geosite.maps import layout as L
from geosite.maps import panel as P
from geosite.maps import title as T
from geosite.maps.preview import PNG_DPI
from geosite.maps.printing import (
    CoreFontCanvas,
    PngWriter,
    alias_core_fonts,
    core_text,
    core_texts,
    preview_png,
)
from geosite.maps.sheets import SheetPlan, check_margin, check_scale, fit_sheets, map_extent, plan_sheets
from geosite.maps.symbology import BODY_PT, HEADING_PT, MIN_PT, STYLES, Style
from geosite.plan.stamp import stamp_text
from geosite.units import SQFT_PER_ACRE

log = logging.getLogger(__name__)


@dataclass
class Panel:
    """What a map puts in its panel, besides the fixed parts (north arrow, scales, title block)."""

    heading: str
    subheading: str
    entries: list[tuple[Style, str, str | None]] = field(default_factory=list)  # style, label, edge override
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    table: list[str] = field(default_factory=list)  # monospaced rows (schedules)
    table_title: str = ""
    provisions: list[str] = field(default_factory=list)  # written provisions, after the table (A(3)(e), (f))
    location: bool = False  # a location map in the panel (the existing site map: A(1)(a) site location)
    keys: list[str] = field(default_factory=list)  # the keyed labels' table rows (key, text)

    def add(self, st: Style, label: str, edge: str | None = None) -> None:
        """Add a legend row, unless one with this label is there already.

        Parameters
        ----------
        st : Style
            The layer's style (its swatch).
        label : str
            The legend text.
        edge : str or None
            An edge colour other than the style's.
        """
        if label not in [e[1] for e in self.entries]:
            self.entries.append((st, label, edge))


@dataclass
class MapContext:
    """What the maps of one site share: the site, its profile and derived layers, the scale (feet per
    inch), the margin (feet), the sheet plan, and the DEM, contours and relief read once for all.
    """

    site: Any
    profile: Any
    derived: dict[str, gpd.GeoDataFrame]
    scale_ft: float
    margin_ft: float
    plan: SheetPlan
    vertical_datum: str | None
    date: str
    hillshade: bool
    interval_ft: float
    index_every: int
    _dem: Any = None
    _dem_read: bool = False
    _contours: Any = None
    _hillshade: Any = None
    sheet_request: str | None = "auto"
    analysis_dem: Any = None  # the DEM the analysis measured (AnalysisResult.dem), when there was one
    report: dict[str, Any] | None = (
        None  # the analysis' report.json: every number a sheet prints comes from it
    )
    #: the site's plan (geosite.plan.Plan): every control a sheet draws, its phases and piles
    site_plan: Any = None

    def measured(self, key: str, default: Any = None) -> Any:
        """A measurement as report.json holds it (``disturbed.phases``), or ``default``."""
        if self.report is None:
            return default
        return self.report.get("measurements", {}).get(key, default)

    def phases(self) -> list[dict[str, Any]]:
        """Each phase's disturbed area and dates: report.json's ``disturbed.phases``, else measured the
        same way here (a Site without an analysis).
        """
        got = self.measured("disturbed.phases")
        if got is None:
            from geosite.site import phase_areas

            got = phase_areas(self.site).phases
        return got

    @property
    def upi(self) -> float:
        """CRS units per paper inch."""
        return self.plan.units_per_inch

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """What the maps show: the site's bounding box and the margin around it (CRS units)."""
        return map_extent(self.site, self.margin_ft)

    @property
    def margin_area(self):
        """The site and the ground within the map margin of it (a polygon, CRS units)."""
        return self.site.boundary.buffer(self.margin_ft / self.site.ft_per_unit, quad_segs=16)

    def layer(self, name: str) -> gpd.GeoDataFrame | None:
        """A derived layer (analysis result) if present, else the site's own layer; None when absent/empty."""
        gdf = self.derived.get(name)
        if gdf is None:
            gdf = self.site.layers.get(name)
        return gdf if gdf is not None and len(gdf) else None

    def site_layer(self, name: str) -> gpd.GeoDataFrame | None:
        """The site's own layer ``name``; None when absent or empty.

        Parameters
        ----------
        name : str
            The layer's name (``roads``).

        Returns
        -------
        geopandas.GeoDataFrame or None
            The layer.
        """
        gdf = self.site.layers.get(name)
        return gdf if gdf is not None and len(gdf) else None

    def dem(self):
        """The DEM under the map (the site, its margin and two scale lengths more), read once; None
        without one. The analysis' own DEM when it holds exactly that window (see _analysis_dem).
        """
        if not self._dem_read:
            self._dem_read = True
            margin_ft = self.margin_ft + 2 * self.scale_ft
            try:
                self._dem = self._analysis_dem(margin_ft)
                if self._dem is None:
                    self._dem = self.site.read_dem(margin_ft=margin_ft)
            except Exception as exc:  # a map without relief is still a map; say why
                log.warning("DEM not read for the map: %s", exc)
                self._dem = None
        return self._dem

    def _analysis_dem(self, margin_ft: float):
        """The analysis' DEM when ``site.read_dem(margin_ft)`` would read the same grid again: the
        analysis read the whole DEM file and the map window takes all of it in. None otherwise.
        """
        dem, path = self.analysis_dem, self.site.dem_path
        if dem is None or path is None or self.site.dem_array is not None:
            return None
        import rasterio

        from geosite.grid import bounds_in as _bounds_in

        left, bottom, right, top = _bounds_in(
            self.site.boundary.bounds, margin_ft / self.site.ft_per_unit, self.site.crs, dem.crs
        )
        dl, db, dr, dt = dem.bounds
        if not (left <= dl and bottom <= db and right >= dr and top >= dt):
            return None
        with rasterio.open(path) as src:
            whole = src.transform == dem.transform and src.shape == dem.shape
        return dem if whole else None

    def share_terrain_from(self, other: MapContext) -> None:
        """Use ``other``'s DEM and contours (read and traced once for a set of maps of one site and
        extent) instead of reading and tracing them again.
        """
        self._dem, self._dem_read, self._contours = other._dem, other._dem_read, other._contours

    def contours(self) -> gpd.GeoDataFrame | None:
        """The analysis' contours, else contours traced here from the DEM, clipped to the map's extent."""
        if self._contours is None:
            c = self.derived.get("contours")
            if c is None or not len(c):
                dem = self.dem()
                if dem is not None:
                    from geosite import terrain

                    c = terrain.contours(dem, interval_ft=self.interval_ft, index_every=self.index_every)
                    if c.crs is not None and not c.crs.equals(self.site.crs):
                        c = c.to_crs(self.site.crs)
            if c is not None and len(c):
                c = c[c.intersects(box(*self.extent))].copy()
            self._contours = c if c is not None and len(c) else False
        return self._contours if self._contours is not False else None

    def shaded_relief(self):
        """Shaded relief of :meth:`dem` (uint8, one value a cell), computed once for every tile and
        every sheet tried; None without a DEM in the site's CRS.
        """
        if self._hillshade is None:
            dem = self.dem()
            if dem is None or not dem.crs.equals(self.site.crs):
                return None
            from geosite import terrain

            self._hillshade = terrain.hillshade(dem)
        return self._hillshade

    def convergence_deg(self) -> float | None:
        """Angle between grid north and true north at the site centre, degrees (pyproj), or None."""
        c = self.site.boundary.centroid
        return _convergence_deg(self.site.crs, c.x, c.y)


@functools.lru_cache(maxsize=16)
def _lon_lat(crs: Any, x: float, y: float) -> tuple[float, float]:
    """(longitude, latitude) in degrees (WGS 84) of (x, y) in the pyproj CRS ``crs``: every sheet of a
    set asks for the site centre's, and a pyproj transformer takes a tenth of a second to make.
    """
    from pyproj import Transformer

    lon, lat = Transformer.from_crs(crs, "EPSG:4326", always_xy=True).transform(x, y)
    return float(lon), float(lat)


@functools.lru_cache(maxsize=16)
def _convergence_deg(crs: Any, x: float, y: float) -> float | None:
    """Grid convergence at (x, y) in the pyproj CRS ``crs``, degrees; None where unknown."""
    try:
        from pyproj import Proj

        lon, lat = _lon_lat(crs, x, y)
        v = float(Proj(crs).get_factors(lon, lat).meridian_convergence)
        return v if math.isfinite(v) else None
    except Exception:  # a note on the sheet, never a reason to fail
        return None


def _profile_scale(profile: Any) -> float:
    """The map scale ``profile``'s chapter asks for, feet per inch; an InputError when it gives none."""
    scale = profile.map_scale_ft
    if scale is None:
        raise InputError(
            f"profile {profile.id} gives no map scale (its chapter's map item has no max_ft_per_in): pass "
            "scale_ft, feet per inch (100, 50, 40 or 20)"
        )
    return float(scale)


def make_context(
    result_or_site,
    *,
    scale_ft: float | None = None,
    sheet: str | None = "auto",
    margin_ft: float | None = None,
    vertical_datum: str | None = None,
    date: str | None = None,
    hillshade: bool = True,
) -> MapContext:
    """Gather what the maps need from an AnalysisResult (preferred: it carries the derived layers) or a
    Site. ``scale_ft`` (ground feet per paper inch) None: the largest standard scale at which the site and
    its margin fit a sheet, never smaller than the profile's chapter allows
    (:attr:`geosite.rules.Profile.map_scale_ft`; :func:`geosite.maps.sheets.fit_sheets`).
    """
    from geosite.rules import load_profile
    from geosite.site import Site

    if scale_ft is not None:
        scale_ft = check_scale(scale_ft)  # refused before the profile is looked at
    if isinstance(result_or_site, Site):
        site, derived = result_or_site, {}
        profile = site.profile or load_profile(site.jurisdiction)  # the profile loaded with it (a file too)
    elif hasattr(result_or_site, "site") and hasattr(result_or_site, "layers"):
        site, profile, derived = result_or_site.site, result_or_site.profile, dict(result_or_site.layers)
    else:
        raise InputError(f"expected a geosite AnalysisResult or Site, got {type(result_or_site).__name__}")
    if scale_ft is not None:
        scale_ft = check_scale(scale_ft, profile.map_scale_ft)
    else:
        _profile_scale(profile)  # a profile with no scale is refused here, naming the option
    if margin_ft is None:
        margin_ft = site.map_margin_ft(profile)
    margin_ft = check_margin(margin_ft)
    interval = float(profile.required("terrain", "contour_interval_ft"))
    index_every = int(profile.required("terrain", "index_contour_every"))
    ctx = MapContext(
        site,
        profile,
        derived,
        0.0,  # the scale, set below with the sheet plan once the context can measure its extent
        float(margin_ft),
        None,  # type: ignore[arg-type]  # the sheet plan, set below once the context can measure
        vertical_datum,
        date or T.today(),
        hillshade,
        interval,
        index_every,
    )
    ctx.sheet_request = sheet
    ctx.analysis_dem = getattr(result_or_site, "dem", None)  # an AnalysisResult's; a Site has none
    ctx.report = getattr(result_or_site, "report", None)
    ctx.site_plan = getattr(result_or_site, "plan", None)
    if ctx.site_plan is None:  # a site without an analysis: the controls its own bmps layer shows
        from geosite.plan.build import plan_of_site

        ctx.site_plan = plan_of_site(site, profile)
    ctx.plan = fit_sheets(ctx.extent, site.ft_per_unit, profile.map_scale_ft, sheet=sheet, scale_ft=scale_ft)
    ctx.scale_ft = ctx.plan.scale_ft
    site.limits.check_sheet_tiles(
        f"site {site.root or site.name}", len(ctx.plan.tiles), ctx.plan.sheet.label, ctx.scale_ft
    )
    return ctx


# ------------------------------------------------------------------------------------------ shared parts


def status_filter(gdf: gpd.GeoDataFrame | None, keep: Callable[[str], bool]) -> gpd.GeoDataFrame | None:
    """Rows whose ``status`` (lower case; missing = existing) passes ``keep``; None when none do."""
    if gdf is None:
        return None
    if "status" not in gdf.columns:
        out = gdf if keep("existing") else gdf.iloc[0:0]
    else:  # row by row in Python: a layer holds tens of rows, where pandas' string methods cost ms each
        statuses = ("existing" if pd.isna(v) else str(v) for v in gdf["status"].to_numpy(dtype=object))
        out = gdf[np.array([bool(keep(s.strip().lower())) for s in statuses], dtype=bool)]
    return out if len(out) else None


def draw_boundary(ctx: MapContext, sheet: L.MapSheet, panel: Panel, letter: str | None = None) -> None:
    """The site boundary and the map margin's outline, with their legend rows.

    Parameters
    ----------
    ctx : MapContext
        The maps' context.
    sheet : MapSheet
        The sheet drawn on.
    panel : Panel
        The sheet's panel (legend rows added).
    letter : str or None
        The plan item's letter that prefixes the legend rows.
    """
    site_st, margin_st = STYLES["site_boundary"], STYLES["map_margin"]
    L.draw_geoms(sheet, [ctx.site.boundary], site_st, clip_to_window=False)
    prefix = f"({letter}) " if letter else ""
    panel.add(site_st, prefix + site_st.label)
    if ctx.margin_ft > 0:
        L.draw_geoms(
            sheet,
            [ctx.margin_area.exterior],
            Style("line", "", edge=margin_st.edge, lw=margin_st.lw, ls=margin_st.ls, z=margin_st.z),
        )
        panel.add(
            Style("line", "", edge=margin_st.edge, lw=margin_st.lw, ls=margin_st.ls),
            prefix + margin_st.label.format(margin=f"{ctx.margin_ft:g}"),
        )


def draw_relief(
    ctx: MapContext,
    sheet: L.MapSheet,
    panel: Panel,
    letter: str | None = None,
    label: str = "",
    *,
    faint: bool = False,
) -> bool:
    """Hillshade (optional) and contours with labelled index contours; False when there is no DEM."""
    prefix = f"({letter}) " if letter else ""
    c = ctx.contours()
    if ctx.hillshade and not faint:
        shade = ctx.shaded_relief()
        if shade is not None:
            L.draw_hillshade(sheet, ctx.dem(), shade)
            panel.add(STYLES["hillshade"], STYLES["hillshade"].label)
    if c is None:
        return False
    minor, index = STYLES["contours"], STYLES["index_contours"]
    if faint:
        minor = Style("line", minor.label, edge="#b8956a", lw=0.35, z=minor.z)
        index = Style("line", index.label, edge="#b08650", lw=0.5, z=index.z)
    L.draw_contours(sheet, c, minor, index)
    iv = ctx.interval_ft

    def lab(text: str) -> str:
        """A contour legend row's text, with the item letter and the ``label`` prefix."""
        return prefix + (label + text[0].lower() + text[1:] if label else text)

    panel.add(minor, lab(minor.label.format(interval=f"{iv:g}")))
    panel.add(index, lab(index.label.format(index=f"{iv * ctx.index_every:g}")))
    return True


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
    lon, lat = _lon_lat(ctx.site.crs, c.x, c.y)
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

#: The plan set: the existing site map, the construction plan and the plan of final conditions.
SHEETS_IN_SET = 3


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
    T.title_block(sheet, rows, panel.heading, sheet_no, revisions=revisions(ctx), of=SHEETS_IN_SET)
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


#: A map's drawing function: draws on the sheet, returns its panel and extra title-block rows.
DrawMap = Callable[[MapContext, L.MapSheet], tuple[Panel, list[tuple[str, str]]]]


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
        larger = auto and ctx.plan.sheet.size != "ARCH-D"
        sheets = _draw_all(ctx, draw, sheet_no) if not larger or _panels_fit(ctx, draw, sheet_no) else None
        overflow = sheets is None or any(s.notes and "overflows" in s.notes[-1] for s in sheets)
        if sheets is not None and not (overflow and larger):
            break
        ctx.plan = plan_sheets(
            ctx.extent, ctx.scale_ft, ctx.site.ft_per_unit, "auto", larger_than=ctx.plan.sheet
        )
    for s in sheets:
        if s.notes and "overflows" in s.notes[-1]:
            log.warning("map panel overflows on %s; choose a larger sheet", ctx.plan.sheet.label)
    if out_path is None:
        return [s.fig for s in sheets]
    written = []
    with rc_context(L.RC):
        for s in sheets:
            written += _save(ctx, s, Path(out_path), png_dpi, svg, writer=writer)
    return written


def _save(
    ctx: MapContext,
    sheet: L.MapSheet,
    out: Path,
    png_dpi: int | None,
    svg: bool,
    *,
    writer: PngWriter | None = None,
) -> list[Path]:
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


def area_text(geom, ft_per_unit: float) -> str:
    """A drawn geometry's area in the sheet's one style (:func:`sqft_text`)."""
    return sqft_text(geom.area * ft_per_unit**2)


def sqft_text(sqft: float) -> str:
    """Every area on a sheet in one style: square feet, then acres (43,560 sq ft) to 0.01 ac where that
    says something (under 0.005 ac it would print "0.00 ac": the square feet alone).
    """
    acres = sqft / SQFT_PER_ACRE
    return f"{sqft:,.0f} sq ft ({acres:,.2f} ac)" if acres >= 0.005 else f"{sqft:,.0f} sq ft"


def name_of(row, fallback: str = "") -> str:
    """A feature's name from its attributes (``name``, else ``fallback``); blank when neither."""
    for col in ("name",):
        v = row.get(col) if hasattr(row, "get") else None
        if not is_nan(v) and str(v).strip():
            return str(v).strip()
    return fallback


def short_name(text: str, longest: int = 16) -> str:
    """An inlet's or pile's tag: the whole name when short, else its first word (``CB-2 County Road D``
    -> ``CB-2``).
    """
    return text if len(text) <= longest else text.split()[0]


def dims_text(geom, ft_per_unit: float) -> str:
    """A structure's footprint as the sides of its minimum rotated rectangle, ``40 x 60 ft``."""
    if geom is None or geom.is_empty or geom.geom_type not in ("Polygon", "MultiPolygon"):
        return ""
    r = shapely.minimum_rotated_rectangle(geom)
    xy = np.asarray(r.exterior.coords)
    if len(xy) < 4:
        return ""
    a, b = (float(np.hypot(*(xy[i + 1] - xy[i]))) * ft_per_unit for i in (0, 1))
    return f"{min(a, b):,.0f} x {max(a, b):,.0f} ft"


def width_text(geom, ft_per_unit: float) -> str:
    """The width of a long polygon (a road's pavement): the short side of the rectangle with its area
    and perimeter, ``24 ft``; blank for a line or a compact shape.
    """
    if geom is None or geom.geom_type not in ("Polygon", "MultiPolygon"):
        return ""
    if geom.area < 0.9 * shapely.minimum_rotated_rectangle(geom).area:
        return ""  # not a strip (a cul-de-sac, a bend): no single width to print
    a, half = geom.area * ft_per_unit**2, geom.length * ft_per_unit / 2
    disc = half * half - 4 * a
    if disc <= 0:
        return ""
    w = (half - math.sqrt(disc)) / 2
    return f"{w:,.0f} ft" if w > 0 and (half - w) / w > 3 else ""


def is_nan(v: Any) -> bool:
    """Whether an attribute value is missing (None or a float NaN)."""
    try:
        return v is None or (isinstance(v, float) and np.isnan(v))
    except TypeError:
        return False


__all__ = ["MapContext", "Panel", "make_context", "render", "shapely"]


def faint_style(st: Style) -> Style:
    """The grey, "existing, to remain" version of a style (same line dash and weight)."""
    return Style(
        st.kind,
        st.label,
        face="#e5e5e5" if st.face != "none" else "none",
        edge="#777777",
        lw=st.lw,
        ls=st.ls,
        z=st.z,
        clear=st.clear,
    )
