"""The hydrology stage of the analyze pipeline: for each disturbed polygon, the land outside it that
drains into it (split into sheetflow and channelized flow), the TR-55 velocity of that sheetflow and
the B(6)(a) diversion decision; the channel network, and whether a channel originates in the
disturbed area (B(6)(c)[2]) or passes through the site (B(6)(c)[3]).

Method of the velocity estimate (stated in every finding): TR-55 sheet flow,
Tt = 0.007 (n L)^0.8 / (P^0.5 s^0.4), V = L / (3600 Tt), with
- n from the predominant land cover of the upslope area (``vegetation`` layer, by area); where the
  site has no vegetation layer, bare soil (n = 0.05): the conservative choice, since a smoother surface
  gives a faster flow and so a diversion more often;
- L the longest D8 flow path across the upslope area, capped at TR-55's 300 ft;
- s the mean slope of the upslope area (ft/ft);
- P the 10-year, 24-hour depth from the profile: the ordinance asks about the 10-year storm, so the
  10-year depth replaces TR-55's 2-year P2 (a larger P gives a faster flow: conservative).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import shapely

from geosite.grid import to_crs, to_dem_crs
from geosite.rules import Profile, fmt

if TYPE_CHECKING:
    from geosite.grid import Dem
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


def predominant_cover(site: Site, area_site_crs) -> tuple[str | None, str]:
    """The vegetation ``cover`` covering most of ``area_site_crs``, and how it was chosen."""
    veg = site.layer("vegetation")
    if veg is None or "cover" not in veg.columns or area_site_crs is None or area_site_crs.is_empty:
        return None, "no vegetation layer with a 'cover' column"
    parts = shapely.intersection(veg.geometry.values, area_site_crs)
    areas = shapely.area(parts)
    if not (areas > 0).any():
        return None, "the vegetation layer does not cover the upslope area"
    by_cover = gpd.pd.Series(areas, index=veg["cover"].astype(str).str.strip().str.lower()).groupby(level=0).sum()
    cover = str(by_cover.idxmax())
    share = float(by_cover.max() / areas.sum())
    return cover, f"predominant cover of the upslope area ({share:.0%} of it)"


def measure_hydrology(site: Site, profile: Profile, dem: Dem, m: SiteMeasurements, step) -> dict[str, Any]:
    """Route the DEM, then measure upslope areas per disturbed polygon and the channel network."""
    from geosite import hydrology as hy

    threshold = float(profile.value("terrain", "channel_threshold_sqft", hy.DEFAULT_CHANNEL_THRESHOLD_SQFT))
    area_limit = profile.value("controls", "sheetflow_area_sqft")
    v_limit = profile.value("controls", "sheetflow_velocity_fps")
    rain_key = "ten_year_24_hour_in"
    rain_in = profile.value("rain", rain_key)

    step("routing flow (fill, D8, accumulation)")
    fg = hy.flow_grid(dem)
    m.flow_grid = fg  # reused by the controls stage

    step("tracing channels")
    chan = hy.channels(fg, threshold)
    boundary_dem = to_dem_crs(site.boundary, site, dem)
    through = hy.channels_through(chan, boundary_dem)
    m.set("hydrology.channels_through_site", int(len(through)))
    m.layers["channels"] = to_crs(chan, site.crs)

    dist = site.layer("disturbance")
    if site.disturbed is not None:
        leaves, where = runoff_leaves_site(fg, site.mask_on(dem, "disturbed"), site.mask_on(dem, "site"), rain_in)
        m.set("hydrology.runoff_leaves_site", leaves)
        m.set("hydrology.runoff_leaves_site_how", where)
    else:
        m.set("hydrology.runoff_leaves_site", None, "no disturbance layer in the site")
    if dist is None:
        for key in ("hydrology.channel_originates_in_disturbed", "hydrology.max_sheetflow_area_sqft",
                    "hydrology.sheetflow_diversions_required", "hydrology.channelized_inflows"):
            m.set(key, None, "no disturbance layer in the site")
        return {"channels": _channel_summary(chan, through, threshold)}

    step("upslope drainage areas")
    upslope: list[dict[str, Any]] = []
    polys, entries = [], []
    originating_ids: list[Any] = []
    for fid, geom in zip(dist["id"], dist.geometry, strict=True):
        clipped = shapely.intersection(geom, site.boundary)
        if clipped.is_empty:
            continue
        g_dem = to_dem_crs(clipped, site, dem)
        if not shapely.intersects(g_dem, shapely.box(*dem.bounds)):
            # beyond the DEM: nothing can be said of its drainage (the coverage warning named the shortfall)
            upslope.append({"disturbance_id": fid, "area_sqft": None, "sheetflow_area_sqft": None,
                            "channelized": None, "velocity_fps": None, "diversion_required": None,
                            "why": "the disturbed area lies outside the DEM"})
            continue
        up = hy.upslope_area(fg, g_dem, channel_threshold_sqft=threshold)
        # the total by D-infinity (sheet flow's true direction, see hydrology.upslope_area_dinf_sqft);
        # the concentrated part stays D8's (channels converge, where D8 is right)
        area = hy.upslope_area_dinf_sqft(fg, g_dem)
        sheet = max(area - up.channelized_area_sqft, 0.0)
        if len(chan) and len(hy.channels_originating_in(chan, g_dem)):
            originating_ids.append(fid)
        up_site = to_crs(up.to_geodataframe(), site.crs).geometry.iloc[0] if up.cell_count else None
        cover, cover_why = predominant_cover(site, up_site)
        assumed = cover is None
        cover = cover or DEFAULT_COVER
        velocity = None
        why_v = ""
        if sheet > 0 and np.isfinite(up.mean_slope_pct) and up.mean_slope_pct > 0 and rain_in:
            velocity = hy.sheetflow_velocity_fps(cover, max(up.flow_length_ft, 1.0), rain_in, up.mean_slope_pct / 100.0)
        elif sheet > 0:
            why_v = "no slope or rainfall depth to estimate a velocity"
        over_area = area_limit is not None and sheet > float(area_limit)
        if area_limit is None or v_limit is None:
            diversion = None
        elif not over_area:
            diversion = False
        else:
            diversion = True if velocity is None else velocity >= float(v_limit)
        entry = {
            "disturbance_id": fid,
            "area_sqft": area,
            "area_acres": area / 43_560.0,
            "sheetflow_area_sqft": sheet,
            "channelized_area_sqft": up.channelized_area_sqft,
            "area_d8_sqft": up.area_sqft,
            "area_method": "D-infinity (Tarboton 1997) total; the channelized part by D8 entry cells; sheetflow = total - channelized",
            "channelized": bool(up.channelized),
            "mean_slope_pct": _num(up.mean_slope_pct),
            "flow_length_ft": _num(up.flow_length_ft),
            "land_cover": cover,
            "land_cover_source": f"assumed {DEFAULT_COVER} ({cover_why}; conservative)" if assumed else cover_why,
            "manning_n": hy.manning_n(cover),
            "rain_in": rain_in,
            "velocity_fps": velocity,
            "velocity_method": (
                f"TR-55 sheet flow, n = {hy.manning_n(cover)}, L = {min(up.flow_length_ft, 300.0):.0f} ft, "
                f"s = {_num(up.mean_slope_pct) or 0:.1f} %, P = {rain_in} in (10-year, 24-hour depth in place of P2)"
                if velocity is not None else why_v or "no sheetflow"
            ),
            "diversion_required": diversion,
            "channel_originates_inside": fid in originating_ids,
        }
        upslope.append(entry)
        if up.cell_count:
            polys.append({**{k: entry[k] for k in ("disturbance_id", "area_sqft", "area_d8_sqft", "sheetflow_area_sqft", "channelized",
                                                  "mean_slope_pct", "flow_length_ft", "land_cover", "velocity_fps")},
                          "geometry": up_site})
        if up.entry_points is not None and len(up.entry_points):
            ep = to_crs(up.entry_points, site.crs)
            ep["disturbance_id"] = fid
            entries.append(ep)

    if polys:
        m.layers["upslope_areas"] = gpd.GeoDataFrame(polys, geometry="geometry", crs=site.crs)
    if entries:
        m.layers["upslope_entry_points"] = gpd.GeoDataFrame(gpd.pd.concat(entries, ignore_index=True), crs=site.crs)

    m.set("hydrology.upslope", upslope)
    assessed = [u for u in upslope if u["sheetflow_area_sqft"] is not None]
    m.set("hydrology.max_sheetflow_area_sqft", max((u["sheetflow_area_sqft"] for u in assessed), default=0.0))
    required = [u for u in upslope if u["diversion_required"]]
    m.set("hydrology.sheetflow_diversions_required",
          None if any(u["diversion_required"] is None for u in upslope) and not required else len(required),
          "a disturbed area lies outside the DEM, or the profile sets no sheetflow area or velocity limit")
    m.set("hydrology.channelized_inflows", sum(1 for u in upslope if u["channelized"]))
    m.set("hydrology.channel_originates_in_disturbed", bool(originating_ids))
    m.set("hydrology.channel_origin_disturbance_ids", originating_ids)

    reasons = []
    v = m.values
    basin_at = profile.value("controls", "basin_disturbed_acres")
    if basin_at is not None and v.get("disturbed.max_at_one_time_acres") is not None:
        if v["disturbed.max_at_one_time_acres"] >= float(basin_at) * (1 - 1e-9):
            reasons.append(f"{fmt(v['disturbed.max_at_one_time_acres'], 'acres')} disturbed at one time (>= {basin_at} acres)")
        if originating_ids:
            reasons.append(f"a channel originates in disturbed area(s) {', '.join(map(str, originating_ids))}")
    return {
        "upslope": upslope,
        "channels": _channel_summary(chan, through, threshold),
        "sediment_basin": {
            "required": bool(reasons) if basin_at is not None else None,
            "reasons": reasons if basin_at is not None else ["not specified by this chapter"],
        },
        "flow_routing": {
            "method": "priority-flood depression filling, D8 steepest descent with diagonal distance, "
            "DEM edge and nodata as outlets",
            "channel_threshold_sqft": threshold,
        },
    }


def retaining_depressions(fg, in_site: np.ndarray, rain_in: float | None) -> np.ndarray:
    """Cells of closed depressions inside the site (``in_site``: its cells) that hold the design storm's runoff.

    A depression is a connected patch where filling raised the surface. It holds the storm when its
    volume (sum of fill depths x cell area) is at least ``rain_in`` of rain over everything draining
    into it, all of it taken as runoff (no infiltration: the conservative reading). Without a depth,
    no depression is taken to hold anything."""
    from scipy import ndimage

    dem = fg.dem
    out = np.zeros(dem.shape, dtype=bool)
    if not rain_in:
        return out
    depth = np.nan_to_num(fg.filled_ft - dem.elevation_ft)
    labels, n = ndimage.label(depth > 1e-6, structure=np.ones((3, 3), bool))
    if n == 0:
        return out
    idx = np.arange(1, n + 1)
    volume_cuft = ndimage.sum(depth, labels, idx) * dem.cell_area_sqft
    contrib_sqft = ndimage.maximum(np.nan_to_num(fg.accumulation_cells()), labels, idx) * dem.cell_area_sqft
    outside = ndimage.sum(~in_site, labels, idx) > 0
    holds = (volume_cuft >= rain_in / 12.0 * contrib_sqft) & ~outside
    if holds.any():
        out = np.isin(labels, idx[holds])
    return out


def runoff_leaves_site(fg, disturbed: np.ndarray, in_site: np.ndarray, rain_in: float | None = None) -> tuple[bool, str]:
    """Whether runoff from the disturbed area leaves the site (Grantsburg B(6)'s condition).

    ``disturbed`` and ``in_site`` are the cells of the disturbed area and of the site on ``fg``'s grid
    (:meth:`geosite.site.Site.mask_on`).

    Accumulating a weight of 1 on disturbed cells marks every cell downstream of them (D8 over the
    filled surface); closed depressions inside the site that hold the design storm
    (:func:`retaining_depressions`) stop the flow. Runoff leaves when a marked cell lies outside the
    site, or drains off the DEM (edge or nodata) from inside it."""
    from geosite.hydrology import weighted_accumulation

    weight = disturbed.astype(np.float64)
    if not weight.any():
        return False, "the disturbed area covers no DEM cell"
    dirs = fg.directions
    sinks = retaining_depressions(fg, in_site, rain_in)
    if sinks.any():
        dirs = dirs.copy()
        dirs[sinks] = 255  # flow reaching a holding depression stops there
    acc = weighted_accumulation(dirs, weight)
    downstream = np.nan_to_num(acc) > 0
    if (downstream & ~in_site).any():
        return True, "flow paths from the disturbed area cross the site boundary"
    if (downstream & in_site & (dirs == 0)).any():
        return True, "flow from the disturbed area drains off the DEM (its edge or a nodata hole) inside the site"
    held = f"closed depressions inside the site that hold {rain_in} in of runoff" if sinks.any() else "the site"
    return False, f"every flow path from the disturbed area ends in {held}"


def _channel_summary(chan, through, threshold) -> dict[str, Any]:
    return {
        "threshold_sqft": threshold,
        "segments": int(len(chan)),
        "segments_through_site": int(len(through)),
    }


def _num(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None
