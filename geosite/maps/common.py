"""What every plan map shares: the map context (site, profile, derived layers, scale, extent, sheets),
the panel layout, and the render loop that writes PDF (print master) and PNG previews per tile.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from shapely.geometry import box

from geosite.errors import InputError
from geosite.maps import layout as L
from geosite.maps import title as T
from geosite.maps.sheets import SheetPlan, check_margin, check_scale, fit_sheets, map_extent
from geosite.maps.symbology import STYLES, Style
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
    #: the soil-loss stage's result (geosite.soil_loss.stage.SoilLossResult), None without an analysis
    soil_loss: Any = None
    #: the flow routing the analysis measured on :attr:`analysis_dem` (geosite.hydrology.FlowGrid), or None
    flow_grid: Any = None
    #: the sheets of the set ("1 of 4"): the existing, construction and final sheets, and the soil-loss
    #: sheet where soil loss was computed (:func:`has_soil_loss_sheet`)
    sheets_in_set: int = 3

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
def lon_lat(crs: Any, x: float, y: float) -> tuple[float, float]:
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

        lon, lat = lon_lat(crs, x, y)
        v = float(Proj(crs).get_factors(lon, lat).meridian_convergence)
        return v if math.isfinite(v) else None
    except Exception:  # a note on the sheet, never a reason to fail
        return None


def has_soil_loss_sheet(result_or_site: Any) -> bool:
    """Whether the set has the soil-loss sheet (:mod:`geosite.maps.soil_loss`): NR 151.11 applies (the
    site disturbs its acre or more) and the analysis computed soil loss over the schedule on some cell (its
    raster exists). A site whose soil loss is not assessed has none (report.json says why), nor has a site
    under the acre or without an analysis.
    """
    from geosite.soil_loss.data import load_soil_loss_data

    soil = getattr(result_or_site, "soil_loss", None)
    if soil is None or getattr(soil, "raster", None) is None:
        return False
    acres = getattr(getattr(result_or_site, "measurements", None), "values", {}).get("disturbed.area_acres")
    return acres is not None and acres >= load_soil_loss_data().applies_from_acres.required()


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
    ctx.soil_loss = getattr(result_or_site, "soil_loss", None)
    ctx.flow_grid = getattr(getattr(result_or_site, "measurements", None), "flow_grid", None)
    ctx.sheets_in_set = 3 + int(has_soil_loss_sheet(result_or_site))
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


#: A map's drawing function: draws on the sheet, returns its panel and extra title-block rows.
DrawMap = Callable[[MapContext, L.MapSheet], tuple[Panel, list[tuple[str, str]]]]


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


__all__ = ["MapContext", "Panel", "make_context", "shapely"]


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
