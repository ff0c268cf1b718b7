"""The hydrology stage of the analyze pipeline: for each disturbed polygon, the land outside it that
drains into it (split into sheetflow and channelized flow), the TR-55 velocity of that sheetflow
across the disturbed area and the B(6)(a) diversion decision; the channel network, and whether a
channel originates in the disturbed area (B(6)(c)[2]), passes through the site (B(6)(c)[3]) or
carries concentrated runoff out of it; and whether runoff leaves the site (the B(6) gate).

B(6)(a) asks whether the sheetflow from adjacent areas has "runoff velocities of less than 0.5 foot
per second **across the disturbed area**". The velocity decided on is TR-55 sheet flow,
Tt = 0.007 (n L)^0.8 / (P^0.5 s^0.4), V = L / (3600 Tt), on the flow path across the disturbed area:
- the D8 path of the runoff arriving at each sheetflow entry cell, followed across the polygon;
- L its length within the polygon, capped at TR-55's 300 ft; s its drop over that length (filled
  heights) divided by L;
- n of the disturbed ground: bare soil (0.05) unless the plan says otherwise (the disturbance
  polygon's ``cover``);
- P the 10-year, 24-hour depth from the profile in place of TR-55's 2-year P2 (the ordinance asks
  about the 10-year storm; a larger P gives a faster flow), its source stated;
and the fastest of those paths decides ("less than 0.5 ft/s across the disturbed area" must hold for
all of it). The velocity on the adjacent land itself (its cover from the ``vegetation`` layer, its
longest flow path and mean slope) is reported beside it, for information.

Partial DEM coverage: a polygon partly without heights (beyond the DEM, or a nodata hole), or whose
upslope area reaches the DEM's edge or a nodata hole, has a sheetflow area that may be short: over the
limit it still decides; under it, the decision is "not assessed", saying how much has no heights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import shapely

from geosite.grid import cells_box, to_crs, to_dem_crs
from geosite.hydrology.sheetflow import TR55_MAX_SHEETFLOW_LENGTH_FT
from geosite.rules import Profile, Verdict
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    from collections.abc import Callable

    from geosite.grid import Dem
    from geosite.hydrology.flow import FlowGrid
    from geosite.site import Site, SiteMeasurements

HYDRO_KEYS = (
    "hydrology.runoff_leaves_site",
    "hydrology.channel_originates_in_disturbed",
    "hydrology.max_sheetflow_area_sqft",
    "hydrology.sheetflow_diversions_required",
    "hydrology.channelized_inflows",
    "hydrology.channels_through_site",
)
DEFAULT_COVER = "bare_soil"


@dataclass(frozen=True)
class PredominantCover:
    """The vegetation cover of most of an area (:func:`predominant_cover`), and how it was chosen.

    Attributes
    ----------
    cover : str or None
        The ``vegetation`` layer's ``cover`` (stripped, lower case) over the largest share of the area;
        None where the layer cannot say.
    why : str
        How it was chosen (its share of the area), or why there is none.
    """

    cover: str | None
    why: str


def predominant_cover(site: Site, area_site_crs) -> PredominantCover:
    """The vegetation ``cover`` covering most of ``area_site_crs``, and how it was chosen."""
    veg = site.layer("vegetation")
    if veg is None or "cover" not in veg.columns or area_site_crs is None or area_site_crs.is_empty:
        return PredominantCover(None, "no vegetation layer with a 'cover' column")
    parts = shapely.intersection(veg.geometry.values, area_site_crs)
    areas = shapely.area(parts)
    if not (areas > 0).any():
        return PredominantCover(None, "the vegetation layer does not cover the upslope area")
    by_cover = (
        gpd.pd.Series(areas, index=veg["cover"].astype(str).str.strip().str.lower()).groupby(level=0).sum()
    )
    cover = str(by_cover.idxmax())
    share = float(by_cover.max() / areas.sum())
    return PredominantCover(cover, f"predominant cover of the upslope area ({share:.0%} of it)")


def channel_threshold_sqft(profile: Profile) -> float:
    """The contributing area at which flow counts as a channel, sq ft (the profile's ``[terrain]
    channel_threshold_sqft``, which every profile gives).
    """
    return float(profile.required("terrain", "channel_threshold_sqft"))


@dataclass(frozen=True)
class _Storms:
    """What the profile sets for the hydrology stage: the channel threshold (sq ft), the sheetflow
    diversion limits (sq ft, ft/s; None where the profile asks for no diversions), the storm whose depth
    (in) the velocities use and its source, the storm a closed depression must hold (in), and the map's
    mapping unit (sq ft) for the upslope outlines.
    """

    threshold_sqft: float
    area_limit: Any
    v_limit: Any
    rain_in: float | None
    rain_src: Any
    leave_in: float | None
    mapping_unit_sqft: float

    @classmethod
    def of(cls, profile: Profile) -> _Storms:
        """The storms and figures ``profile`` names for the drainage measures."""
        # the chapter's numbers, where it asks: the requirement whose condition reads the diversions measured
        diversion_q = next(
            (
                q
                for q in profile.requirements
                if any(c.measure == "hydrology.sheetflow_diversions_required" for c in q.conditions)
            ),
            None,
        )
        rain_key = diversion_q.param("storm") if diversion_q else profile.value("rain", "runoff_storm")
        rain_note = profile.entry("rain", rain_key) if rain_key else None
        return cls(
            threshold_sqft=channel_threshold_sqft(profile),
            area_limit=diversion_q.param("adjacent_area_sqft") if diversion_q else None,
            v_limit=diversion_q.param("velocity_fps") if diversion_q else None,
            rain_in=profile.storm_in(rain_key),
            rain_src=(rain_note.source or profile.cite(rain_note.citation, rain_note.section))
            if rain_note is not None
            else "",
            # the storm a closed depression must hold
            leave_in=profile.storm_in(profile.value("rain", "runoff_storm")),
            # the map's, for the outline
            mapping_unit_sqft=float(profile.required("terrain", "steep_min_area_sqft")),
        )


def measure_hydrology(
    site: Site, profile: Profile, dem: Dem, m: SiteMeasurements, step: Callable[[str], None]
) -> dict[str, Any]:
    """Route the DEM, then measure upslope areas per disturbed polygon and the channel network."""
    from geosite import hydrology as hy

    storms = _Storms.of(profile)
    threshold = storms.threshold_sqft
    step("routing flow (fill, D8, accumulation)")
    # routed on reading
    fg = m.flow_grid if m.flow_grid is not None and m.flow_grid.dem is dem else hy.flow_grid(dem)
    m.flow_grid = fg  # reused by the controls stage

    step("tracing channels")
    chan, through = _trace_channels(site, profile, dem, m, fg, threshold=threshold)
    _set_runoff_leaves(site, dem, m, fg, storms.leave_in)
    if site.layer("disturbance") is None:
        for key in (
            "hydrology.channel_originates_in_disturbed",
            "hydrology.max_sheetflow_area_sqft",
            "hydrology.sheetflow_diversions_required",
            "hydrology.channelized_inflows",
        ):
            m.set(key, None, "no disturbance layer in the site")
        return {"channels": _channel_summary(m.layers["channels"], through, threshold)}

    step("upslope drainage areas")
    ctx = _Context(site=site, dem=dem, fg=fg, storms=storms)
    upslope, originating_ids = _measure_upslope(ctx, chan, m)
    _set_upslope_summary(m, upslope, originating_ids)
    m.set(
        "hydrology.concentrated_outflows",
        concentrated_outflows(fg, site.mask_on(dem, "disturbed"), threshold),
    )
    return {
        "upslope": upslope,
        "channels": _channel_summary(m.layers["channels"], through, threshold),
        "flow_routing": {
            "method": "priority-flood depression filling, D8 steepest descent with diagonal distance, "
            "DEM edge and nodata as outlets",
            "channel_threshold_sqft": threshold,
        },
    }


@dataclass(frozen=True)
class _Context:
    """What every disturbed area's measurement uses: the site, its DEM and routing, the profile's storms."""

    site: Site
    dem: Dem
    fg: FlowGrid
    storms: _Storms


def _measure_upslope(ctx: _Context, chan, m: SiteMeasurements) -> tuple[list[dict[str, Any]], list[Any]]:
    """Each disturbed area's upslope entry (and the ids of those a channel originates in); the
    ``upslope_areas`` and ``upslope_entry_points`` layers set on ``m``.
    """
    from geosite import hydrology as hy

    site, dem = ctx.site, ctx.dem
    upslope: list[dict[str, Any]] = []
    polys, entries = [], []
    originating_ids: list[Any] = []
    for fid, ids, clipped, declared_cover in site.disturbed_parts:
        g_dem = to_dem_crs(clipped, site, dem)
        no_heights = _area_without_heights(g_dem, dem)
        if not shapely.intersects(g_dem, shapely.box(*dem.bounds)) or no_heights >= shapely.area(
            g_dem
        ) * dem.ft_per_unit**2 * (1 - 1e-9):
            # beyond the DEM: nothing can be said of its drainage (the coverage warning named the shortfall)
            upslope.append(_without_heights(fid))
            continue
        up = hy.upslope_area(ctx.fg, g_dem, channel_threshold_sqft=ctx.storms.threshold_sqft)
        if len(chan) and len(hy.channels_originating_in(chan, g_dem)):
            originating_ids.append(fid)
        up_site = to_crs(up.to_geodataframe(), site.crs).geometry.iloc[0] if up.cell_count else None
        entry = _upslope_entry(
            ctx, g_dem, up, up_site, fid=fid, ids=ids, declared_cover=declared_cover,
            no_heights=no_heights, originating=fid in originating_ids,
        )  # fmt: skip
        upslope.append(entry)
        if up.cell_count:
            polys.append(_upslope_polygon(entry, up_site, site, dem, ctx.storms.mapping_unit_sqft))
        if up.entry_points is not None and len(up.entry_points):
            ep = to_crs(up.entry_points, site.crs)
            ep["disturbance_id"] = fid
            entries.append(ep)
    if polys:
        m.layers["upslope_areas"] = gpd.GeoDataFrame(polys, geometry="geometry", crs=site.crs)
    if entries:
        m.layers["upslope_entry_points"] = gpd.GeoDataFrame(
            gpd.pd.concat(entries, ignore_index=True), crs=site.crs
        )
    return upslope, originating_ids


def _trace_channels(
    site: Site, profile: Profile, dem: Dem, m: SiteMeasurements, fg: FlowGrid, *, threshold: float
):
    """The channel network (and the channels through the site), its count and layer set on ``m``."""
    from geosite import hydrology as hy

    chan = hy.channels(fg, threshold)
    boundary_dem = to_dem_crs(site.boundary, site, dem)
    through = hy.channels_through(chan, boundary_dem)
    m.set("hydrology.channels_through_site", int(len(through)))
    # the layer and its count: the site and its map margin (channels farther off are not the plan's)
    margin = site.boundary.buffer(site.map_margin_ft(profile) / site.ft_per_unit)
    shown = to_crs(chan, site.crs)
    shown = shown[shown.intersects(margin)].copy()
    shown["geometry"] = shown.geometry.intersection(margin)
    # a channel that leaves the margin and comes back is clipped into parts: one line a part, as every
    # reader of the layer's coordinates expects
    shown = shown.explode(index_parts=False)
    shown = shown[shown.geometry.geom_type.eq("LineString") & (shown.geometry.length > 0)]
    m.layers["channels"] = shown.reset_index(drop=True)
    return chan, through


def _set_runoff_leaves(
    site: Site, dem: Dem, m: SiteMeasurements, fg: FlowGrid, leave_in: float | None
) -> None:
    """``hydrology.runoff_leaves_site`` (the B(6) gate) and how it was decided, set on ``m``."""
    if site.disturbed is None:
        m.set("hydrology.runoff_leaves_site", None, "no disturbance layer in the site")
        return
    missing = _area_without_heights(to_dem_crs(site.disturbed, site, dem), dem)
    disturbed_cells, site_cells = site.mask_on(dem, "disturbed"), site.mask_on(dem, "site")
    # both set: the site has a boundary and, here, a disturbed area
    assert disturbed_cells is not None and site_cells is not None
    leaves = runoff_leaves_site(fg, disturbed_cells, site_cells, leave_in, missing)
    m.set("hydrology.runoff_leaves_site", leaves.value, leaves.why)
    m.set("hydrology.runoff_leaves_site_how", leaves.why)


def _without_heights(fid: Any) -> dict[str, Any]:
    """The upslope entry of a disturbed area without DEM heights: nothing measured."""
    return {
        "disturbance_id": fid,
        "area_sqft": None,
        "sheetflow_area_sqft": None,
        "channelized": None,
        "velocity_fps": None,
        "diversion_required": None,
        "why": "the disturbed area has no DEM heights (outside the DEM or in a nodata hole)",
    }


def _upslope_entry(
    ctx: _Context,
    g_dem,
    up,
    up_site,
    *,
    fid: Any,
    ids: Any,
    declared_cover: Any,
    no_heights: float,
    originating: bool,
) -> dict[str, Any]:
    """The report's entry of one disturbed area (``g_dem`` in the DEM's CRS; ``up`` its upslope area,
    ``up_site`` that area's outline in the site's CRS): areas (sq ft), covers, velocities (ft/s) and the
    B(6)(a) diversion decision.
    """
    from geosite import hydrology as hy

    area_limit, v_limit = ctx.storms.area_limit, ctx.storms.v_limit
    # the total by D-infinity (sheet flow's true direction, see hydrology.upslope_area_dinf_sqft);
    # the concentrated part stays D8's (channels converge, where D8 is right)
    area = hy.upslope_area_dinf_sqft(ctx.fg, g_dem)
    sheet = max(area - up.channelized_area_sqft, 0.0)
    flow = _sheetflow(ctx, g_dem, up, up_site, sheet, declared_cover=declared_cover)
    velocity = flow["velocity_fps"]
    truncated = _upslope_truncated(ctx.fg, up) if up.cell_count else False
    over_area = area_limit is not None and sheet > float(area_limit)
    short = no_heights > 0 or truncated
    diversion = _diversion_required(sheet, velocity, area_limit, v_limit, short=short)
    entry = {
        "disturbance_id": fid,
        "disturbance_ids": ids,
        "area_sqft": area,
        "area_acres": area / SQFT_PER_ACRE,
        "sheetflow_area_sqft": sheet,
        "channelized_area_sqft": up.channelized_area_sqft,
        "area_d8_sqft": up.area_sqft,
        "area_method": (
            "D-infinity (Tarboton 1997) total; the channelized part by D8 entry cells; "
            "sheetflow = total - channelized"
        ),
        "channelized": bool(up.channelized),
        "mean_slope_pct": _num(up.mean_slope_pct),
        "flow_length_ft": _num(up.flow_length_ft),
        **flow,
        "no_heights_sqft": no_heights,
        "upslope_reaches_dem_edge": truncated,
        "diversion_required": diversion,
        "channel_originates_inside": originating,
    }
    if diversion is None and short and not over_area and area_limit is not None:
        entry["why"] = _short_why(sheet, float(area_limit), no_heights)
    return entry


def _diversion_required(
    sheet: float, velocity: float | None, area_limit: Any, v_limit: Any, *, short: bool
) -> bool | None:
    """B(6)(a)'s decision on one disturbed area: a diversion is required when its sheetflow area (``sheet``,
    sq ft) is over ``area_limit`` (sq ft) and the sheet flow ``velocity`` (ft/s; None: not estimated)
    reaches ``v_limit`` (ft/s); None when the chapter sets neither, or the area is under the limit but
    ``short`` of heights (the rest not assessed).
    """
    if area_limit is None or v_limit is None:
        return None
    if not sheet > float(area_limit):
        return None if short else False
    return True if velocity is None else velocity >= float(v_limit)


def _short_why(sheet: float, area_limit: float, no_heights: float) -> str:
    """Why a disturbed area under the sheetflow ``area_limit`` (sq ft) is not assessed: ``no_heights`` sq ft
    of it without DEM heights, or its upslope area cut by the DEM's edge.
    """
    return (
        f"{sheet:,.0f} sq ft of sheetflow measured, under the {area_limit:,.0f} sq ft limit, "
        "but "
        + (
            f"{no_heights:,.0f} sq ft of the disturbed area has no DEM heights"
            if no_heights > 0
            else "its upslope area reaches the DEM's edge or a nodata hole"
        )
        + ": the rest is not assessed"
    )


def _sheetflow(ctx: _Context, g_dem, up, up_site, sheet: float, *, declared_cover: Any) -> dict[str, Any]:
    """The entry's covers and TR-55 sheet flow velocities (ft/s): across the disturbed area (decides) and
    on the adjacent land (information), each with how it was estimated.
    """
    from geosite import hydrology as hy

    rain_in = ctx.storms.rain_in
    found = predominant_cover(ctx.site, up_site)
    cover, cover_why = found.cover or DEFAULT_COVER, found.why
    assumed = found.cover is None
    adjacent_v = None
    if sheet > 0 and np.isfinite(up.mean_slope_pct) and up.mean_slope_pct > 0 and rain_in:
        adjacent_v = hy.sheetflow_velocity_fps(
            cover, max(up.flow_length_ft, 1.0), rain_in, up.mean_slope_pct / 100.0
        )
    on_cover, on_cover_why = _disturbed_cover(declared_cover)
    across = (
        velocity_across(ctx.fg, g_dem, up.entry_points, on_cover, rain_in) if sheet > 0 and rain_in else None
    )
    return {
        "land_cover": cover,
        "land_cover_source": f"assumed {DEFAULT_COVER} ({cover_why}; conservative)" if assumed else cover_why,
        "manning_n": hy.manning_n(cover),
        "rain_in": rain_in,
        "rain_source": ctx.storms.rain_src,
        "velocity_fps": across["velocity_fps"] if across else None,
        "velocity_where": (
            "across the disturbed area (the sheetflow diversion requirement's velocity; decides)"
        ),
        "velocity_method": _velocity_method(across, on_cover, on_cover_why, sheet, ctx.storms),
        "across": across,
        "disturbed_cover": on_cover,
        "adjacent_velocity_fps": adjacent_v,
        "adjacent_velocity_method": (
            f"TR-55 sheet flow on the adjacent land (information): n = {hy.manning_n(cover)}, "
            f"L = {min(up.flow_length_ft, 300.0):.0f} ft, s = {_num(up.mean_slope_pct) or 0:.1f} %, P = "
            f"{rain_in} in"
            if adjacent_v is not None
            else "no sheetflow, slope or rainfall depth"
        ),
    }


def _velocity_method(across, on_cover: str, on_cover_why: str, sheet: float, storms: _Storms) -> str:
    """How the velocity across the disturbed area was estimated (or why it was not)."""
    from geosite import hydrology as hy

    if across:
        return (
            "TR-55 sheet flow across the disturbed area on the fastest entry path: n = "
            f"{hy.manning_n(on_cover)} "
            f"({on_cover_why}), L = {across['length_ft']:.0f} ft within the area (300 ft at most), s = "
            f"{across['slope_pct']:.1f} %, "
            f"P = {storms.rain_in} in (10-year, 24-hour depth in place of P2; {storms.rain_src})"
        )
    return (
        "no sheetflow reaches the disturbed area"
        if sheet <= 0
        else "no rainfall depth to estimate a velocity"
    )


_UPSLOPE_LAYER_KEYS = (
    "disturbance_id",
    "area_sqft",
    "area_d8_sqft",
    "sheetflow_area_sqft",
    "channelized",
    "mean_slope_pct",
    "flow_length_ft",
    "land_cover",
    "velocity_fps",
)


def _upslope_polygon(entry: dict[str, Any], up_site, site: Site, dem: Dem, mapping_unit_sqft: float) -> dict:
    """The ``upslope_areas`` layer's row of one entry: its outline smoothed to the map's mapping unit."""
    from geosite.hydrology.upslope import smooth_outline

    return {
        **{k: entry[k] for k in _UPSLOPE_LAYER_KEYS},
        "geometry": smooth_outline(
            up_site,
            cell=dem.cell_x_ft / site.ft_per_unit,
            min_area=mapping_unit_sqft / site.ft_per_unit**2,
        ),
    }


def _set_upslope_summary(m: SiteMeasurements, upslope: list[dict[str, Any]], originating_ids: list) -> None:
    """The stage's totals over the disturbed areas' entries, set on ``m``."""
    m.set("hydrology.upslope", upslope)
    assessed = [u for u in upslope if u["sheetflow_area_sqft"] is not None]
    m.set("hydrology.max_sheetflow_area_sqft", max((u["sheetflow_area_sqft"] for u in assessed), default=0.0))
    required = [u for u in upslope if u["diversion_required"]]
    pending = [u for u in upslope if u["diversion_required"] is None]
    m.set(
        "hydrology.sheetflow_diversions_required",
        None if pending and not required else len(required),
        "; ".join(
            f"disturbed area {u['disturbance_id']}: "
            f"{u.get('why', 'the profile sets no sheetflow area or velocity limit')}"
            for u in pending
        ),
    )
    m.set("hydrology.channelized_inflows", sum(1 for u in upslope if u["channelized"]))
    m.set("hydrology.channel_originates_in_disturbed", bool(originating_ids))
    m.set("hydrology.channel_origin_disturbance_ids", originating_ids)


def retaining_depressions(fg: FlowGrid, in_site: np.ndarray, rain_in: float | None) -> np.ndarray:
    """Cells of closed depressions inside the site (``in_site``: its cells) that hold the design storm's
    runoff.

    A depression is a connected patch where filling raised the surface. It holds the storm when its
    volume (sum of fill depths x cell area) is at least ``rain_in`` of rain over everything draining
    into it, all of it taken as runoff (no infiltration: the conservative reading). Without a depth,
    no depression is taken to hold anything.
    """
    from scipy import ndimage

    dem = fg.dem
    out = np.zeros(dem.shape, dtype=bool)
    site_all = np.asarray(in_site, dtype=bool)
    if not rain_in or not site_all.any():
        return out
    # only a depression wholly inside the site can hold its runoff there: it lies within the site's
    # cells' bounding box, so that box and a ring of one cell are all that is looked at (a depression
    # reaching past it takes in a ring cell, which is not the site's); the DEM window around a site
    # holds many more depressions, and labelling all of them cost most of the time
    box = cells_box(site_all, 1)
    depth = np.nan_to_num(fg.filled_ft[box] - dem.elevation_ft[box], copy=False)
    labels, n = ndimage.label(depth > 1e-6, structure=np.ones((3, 3), bool))
    if n == 0:
        return out
    lab = labels.reshape(-1)
    site = site_all[box].reshape(-1)
    reaches_out = np.bincount(lab[~site], minlength=n + 1) > 0
    cells = np.flatnonzero(site & (lab > 0))
    cells = cells[~reaches_out[lab[cells]]]
    if not cells.size:
        return out
    which = lab[cells]
    volume_cuft = np.bincount(which, weights=depth.reshape(-1)[cells], minlength=n + 1) * dem.cell_area_sqft
    top = np.zeros(n + 1)
    np.maximum.at(top, which, np.nan_to_num(fg.accumulation_cells()[box].reshape(-1)[cells]))
    holds = (volume_cuft >= rain_in / 12.0 * top * dem.cell_area_sqft) & (
        np.bincount(which, minlength=n + 1) > 0
    )
    if holds.any():
        out[box] = holds[labels]
    return out


def runoff_leaves_site(
    fg, disturbed: np.ndarray, in_site: np.ndarray, rain_in: float | None = None, missing_sqft: float = 0.0
) -> Verdict:
    """Whether runoff from the disturbed area leaves the site (Grantsburg B(6)'s condition), and why; its
    value None when the DEM cannot tell.

    ``disturbed`` and ``in_site`` are the cells of the disturbed area and of the site on ``fg``'s grid
    (:meth:`geosite.site.Site.mask_on`); ``missing_sqft`` is the part of the disturbed area without
    heights (beyond the DEM or in a nodata hole), a measurement, not a threshold: its default, 0 (every
    part has heights), is geosite's choice, not the ordinance's.

    Accumulating a weight of 1 on disturbed cells marks every cell downstream of them (D8 over the
    filled surface); closed depressions inside the site that hold the design storm
    (:func:`retaining_depressions`) stop the flow. Runoff leaves when a marked cell lies outside the
    site. Where marked flow instead reaches the DEM's edge or a nodata hole inside the site, or part
    of the disturbed area has no heights, where it goes is not known: None, saying why.
    """
    from geosite.hydrology import weighted_accumulation

    weight = disturbed & np.isfinite(fg.dem.elevation_ft)  # boolean: only its flow paths are followed
    if not weight.any():
        return Verdict(None, "the disturbed area has no DEM heights")
    dirs = fg.directions
    sinks = retaining_depressions(fg, in_site, rain_in)
    if sinks.any():
        dirs = dirs.copy()
        dirs[sinks] = 255  # flow reaching a holding depression stops there
    acc = weighted_accumulation(dirs, weight)
    downstream = acc > 0  # NaN (nodata) compares False
    if (downstream & ~in_site).any():
        return Verdict(True, "flow paths from the disturbed area cross the site boundary")
    off = downstream & in_site & (dirs == 0)
    if off.any():
        return Verdict(
            None,
            f"flow from the disturbed area reaches the DEM's edge or a nodata hole inside the site "
            f"({int(off.sum())} cells): where it goes from there the DEM cannot tell",
        )
    held = (
        f"closed depressions inside the site that hold {rain_in} in of runoff" if sinks.any() else "the site"
    )
    if missing_sqft > 0:
        return Verdict(
            None,
            f"every flow path from the part with heights ends in {held}, but {missing_sqft:,.0f} sq ft of "
            "the disturbed area has no DEM heights",
        )
    return Verdict(False, f"every flow path from the disturbed area ends in {held}")


def velocity_across(
    fg,
    polygon,
    entry_points,
    cover: str | float,
    rain_in: float,
    *,
    max_length_ft: float = TR55_MAX_SHEETFLOW_LENGTH_FT,
) -> dict[str, Any] | None:
    """TR-55 sheet-flow velocity across ``polygon`` (DEM CRS) of the runoff arriving from upslope: from
    each sheetflow entry (``entry_points`` of :func:`geosite.hydrology.upslope_area`: the outside cells
    whose flow enters, not channelized) along the D8 path inside the polygon, L its length there (at most
    ``max_length_ft``, by default TR-55's own 300 ft limit on sheet flow, the method geosite computes
    with: geosite's choice, not the ordinance's) and s its drop over L (filled heights); n of ``cover``;
    P = ``rain_in``. Returns the fastest path (``velocity_fps``, ``length_ft``, ``slope_pct``, ``x``,
    ``y`` of where it enters, ``paths``), or None when no sheetflow enters.
    """
    from geosite.grid import rasterize, rowcol
    from geosite.hydrology import sheetflow_velocity_fps

    if entry_points is None or not len(entry_points):
        return None
    sheet = entry_points[~entry_points["channelized"].to_numpy(bool)]
    if not len(sheet):
        return None
    dem = fg.dem
    inside = rasterize(polygon, dem.shape, dem.transform)
    r, c = rowcol(dem, sheet.geometry.x.to_numpy(), sheet.geometry.y.to_numpy())
    length, z0, z_end = _walk_inside(fg, inside, r, c, max_length_ft=max_length_ft)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(length > 0, (z0 - z_end) / length, 0.0)
    ok = (length > 0) & np.isfinite(slope) & (slope > 0)
    if not ok.any():
        return {
            "velocity_fps": 0.0,
            "length_ft": float(length.max(initial=0.0)),
            "slope_pct": 0.0,
            "x": None,
            "y": None,
            "paths": int(r.size),
        }
    v = np.zeros(r.size)
    v[ok] = [
        sheetflow_velocity_fps(cover, float(L), rain_in, float(sl))
        for L, sl in zip(length[ok], slope[ok], strict=True)
    ]
    i = int(np.argmax(v))
    return {
        "velocity_fps": float(v[i]),
        "length_ft": float(length[i]),
        "slope_pct": float(slope[i] * 100.0),
        "x": float(sheet.geometry.x.iloc[i]),
        "y": float(sheet.geometry.y.iloc[i]),
        "paths": int(r.size),
    }


def _d8_step(fg: FlowGrid):
    """``step(r, c)``: each cell's D8 receiver (itself where it has none or that is off the DEM), whether
    it moved, and the distance moved (ft).
    """
    from geosite.grid import DC, DR

    dem, dirs = fg.dem, fg.directions
    nr, nc = dem.shape

    def step(r, c):
        """The D8 receivers of cells (``r``, ``c``); a cell without one stays put."""
        d = dirs[r, c].astype(np.int64)
        go = (d >= 1) & (d <= 8)
        k = np.where(go, d - 1, 0)
        r2, c2 = r + np.where(go, DR[k], 0), c + np.where(go, DC[k], 0)
        go &= (r2 >= 0) & (r2 < nr) & (c2 >= 0) & (c2 < nc)
        ln = np.hypot(np.where(go, DR[k], 0) * dem.cell_y_ft, np.where(go, DC[k], 0) * dem.cell_x_ft)
        return np.where(go, r2, r), np.where(go, c2, c), go, ln

    return step


def _walk_inside(fg: FlowGrid, inside: np.ndarray, r: np.ndarray, c: np.ndarray, *, max_length_ft: float):
    """The D8 paths from entry cells (``r``, ``c``) into ``inside``, followed while inside and for at most
    ``max_length_ft``: each path's length there (ft) and its filled heights (ft) at the start and the end
    (interpolated where the length limit cuts a step).
    """
    dem, z = fg.dem, fg.filled_ft
    step = _d8_step(fg)
    r, c, go, _ = step(r, c)  # the first cell inside: the entry cell's receiver
    alive = go & inside[r, c]
    z0 = z[r, c].copy()
    z_end = z0.copy()
    length = np.zeros(r.size)
    for _ in range(int(np.ceil(max_length_ft / min(dem.cell_x_ft, dem.cell_y_ft))) + 2):
        if not alive.any():
            break
        r2, c2, go, ln = step(r, c)
        go &= alive
        take = np.where(go, np.minimum(ln, max_length_ft - length), 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            z_next = np.where(go, z[r, c] - (z[r, c] - z[r2, c2]) * take / np.where(ln > 0, ln, 1.0), z_end)
        z_end = np.where(go & np.isfinite(z_next), z_next, z_end)
        length += take
        alive = go & inside[r2, c2] & (length < max_length_ft - 1e-9)
        r, c = np.where(go, r2, r), np.where(go, c2, c)
    return length, z0, z_end


def concentrated_outflows(fg: FlowGrid, disturbed: np.ndarray | None, threshold_sqft: float) -> int | None:
    """How many channel cells (contributing area >= ``threshold_sqft``) of the disturbed area drain out
    of it: the places where its runoff leaves as concentrated flow (silt fence, DNR 1056, is for sheet
    and rill flow only; concentrated runoff from disturbed ground goes through a trap or basin).
    """
    if disturbed is None:
        return None
    box = cells_box(disturbed, 0)  # only the disturbed cells can leave it: their box, not the window
    if box is None:
        return 0
    rr, rc, has = (a[box] for a in fg.receivers())
    chan = fg.channel_cells(threshold_sqft)[box]
    leaves = disturbed[box] & chan & (fg.directions[box] != 255) & (~has | ~disturbed[rr, rc])
    return int(leaves.sum())


def _area_without_heights(polygon, dem) -> float:
    """Sq ft of ``polygon`` (DEM CRS) with no DEM height: beyond the DEM's extent (exactly), plus its
    nodata cells (cells whose centre lies inside it).
    """
    from geosite.grid import rasterize

    beyond = shapely.area(shapely.difference(polygon, shapely.box(*dem.bounds))) * dem.ft_per_unit**2
    holes = rasterize(polygon, dem.shape, dem.transform) & ~np.isfinite(dem.elevation_ft)
    return float(beyond + holes.sum() * dem.cell_area_sqft)


def _upslope_truncated(fg: FlowGrid, up) -> bool:
    """Whether an upslope area reaches the DEM's edge or a nodata cell (so land beyond may drain in too)."""
    from scipy.ndimage import binary_dilation

    from geosite.grid import rasterize

    dem = fg.dem
    cells = rasterize(up.polygon, dem.shape, dem.transform)
    if cells[0].any() or cells[-1].any() or cells[:, 0].any() or cells[:, -1].any():
        return True
    box = cells_box(cells, 1)  # the cells and their ring: the dilation of the window cut to them
    if box is None:
        return False
    return bool(
        (binary_dilation(cells[box], np.ones((3, 3), bool)) & ~np.isfinite(dem.elevation_ft[box])).any()
    )


def _disturbed_cover(declared: Any) -> tuple[str, str]:
    """The cover of the disturbed ground for B(6)(a)'s velocity: the polygon's ``cover`` when the plan
    gives a known one, else bare soil.
    """
    from geosite.hydrology import MANNING_N_SHEETFLOW

    if isinstance(declared, str) and declared.strip().lower() in MANNING_N_SHEETFLOW:
        return declared.strip().lower(), "the cover the plan gives the disturbed area"
    return "bare_soil", "bare soil: the disturbed ground, as the plan gives no other cover"


def _channel_summary(chan, through, threshold) -> dict[str, Any]:
    return {
        "threshold_sqft": threshold,
        "segments": int(len(chan)),
        "segments_where": "within the site's map margin (the channels layer is clipped to it)",
        "segments_through_site": int(len(through)),
    }


def _num(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None
