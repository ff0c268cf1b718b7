"""The soil-loss stage of ``analyze``: NR 151.11's 12-month windows over the site's schedule, cell by cell
from the DEM, the soils and the phases (:func:`measure_soil_loss`), and the finding.

What it reads: the site (its ``disturbance`` and ``soils`` layers, site.toml ``[soil_loss]``), the DEM and
its flow grid, and the plan (:class:`geosite.plan.Plan`: what ``analyze`` proposes, or what a submission
shows in ``check``): its fence and diversion lines end slope length, its dated covers (mulch, seed, mat ...)
cover the ground. Without a plan, the site's ``bmps`` layer is the plan. So the figure is the plan's, the
same in ``analyze``, in its plan folder and in ``check`` of that folder. What it gives: report.json's
``soil_loss`` block (a row per window and per phase and window), one finding citing NR 151.11, and the
soil loss of the worst window on the grid for the GeoTIFF.

The finding is the state's standard, not the village chapter's: it is reported beside the chapter's
findings (report.json ``soil_loss.finding``), and ``check``'s verdict on the chapter does not take it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from geosite.rules import Finding
from geosite.soil_loss.compute import WindowLoss, window_loss
from geosite.soil_loss.cover import (
    CoverSchedule,
    CoverSpan,
    CoverTimeline,
    DatedControl,
    cover_schedule,
    cover_timeline,
)
from geosite.soil_loss.data import SoilLossData, load_soil_loss_data
from geosite.soil_loss.erosivity import ErosivityDistribution, Rainfall
from geosite.soil_loss.kfactor import k_grid
from geosite.soil_loss.ls import LSGrid, ls_factor
from geosite.soil_loss.windows import schedule_windows

if TYPE_CHECKING:
    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid
    from geosite.plan import Plan
    from geosite.rules import Profile
    from geosite.site import Site, SiteMeasurements

#: the kinds of control (practice families) whose lines end slope length
RESET_FAMILIES = ("barrier", "diversion")


def reset_types() -> tuple[str, ...]:
    """The ``bmps`` types of the practices of :data:`RESET_FAMILIES`."""
    from geosite.practices import registry

    return registry.catalogue().of(*RESET_FAMILIES)


@dataclass(frozen=True, eq=False)
class SoilLossRaster:
    """Soil loss of the worst window, tons per acre (NaN where not counted or not assessed), on a grid
    ``transform`` in ``crs`` (the DEM's).
    """

    tons_per_acre: np.ndarray
    transform: Any
    crs: Any
    window: str


@dataclass(frozen=True, eq=False)
class SoilLossResult:
    """The stage's result: report.json's ``soil_loss`` block, the finding, the worst window's raster."""

    report: dict[str, Any]
    finding: Finding
    raster: SoilLossRaster | None = None


def rainfall_for(site: Site, data: SoilLossData | None = None) -> Rainfall:
    """R and its distribution for the site: site.toml ``[soil_loss]`` first, else the published table
    for its county (the village's county, or ``[soil_loss] county``).
    """
    data = data or load_soil_loss_data()
    given = site.settings.get("soil_loss", {})
    county = given.get("county") or data.county_for(site.jurisdiction).name
    r: float | None
    if given.get("r_factor") is not None:
        r, r_source = float(given["r_factor"]), f"site.toml [soil_loss] r_factor: {given['r_source']}"
    else:
        found = data.r_for(county)
        r, r_source = found.value, found.source
    points = given.get("ei_cumulative_pct")
    dist = None
    ei_source = data.ei_missing
    if points:
        dist = ErosivityDistribution.from_table([(p[0], p[1]) for p in points], given["ei_source"])
        ei_source = f"site.toml [soil_loss] ei_cumulative_pct: {given['ei_source']}"
    return Rainfall(r, r_source, dist, ei_source, county)


def c_values(site: Site, data: SoilLossData | None = None) -> dict[str, tuple[float | None, str]]:
    """The C of each cover kind and its source: site.toml ``[soil_loss.c]`` over the data file's."""
    data = data or load_soil_loss_data()
    out = {k: (v.value, v.source + (f" (row: {v.row})" if v.row else "")) for k, v in data.cover.items()}
    for kind, e in site.settings.get("soil_loss", {}).get("c", {}).items():
        out[kind] = (float(e["value"]), f"site.toml [soil_loss.c]: {e['source']}")
    return out


def _reset_lines(controls: list[DatedControl], crs: Any, dem: Dem) -> np.ndarray:
    """The cells (bool, the DEM's grid) that the plan's fence and diversion lines (``crs``: the site's)
    touch.
    """
    from rasterio.features import rasterize

    from geosite.grid import geom_to_crs

    kinds = set(reset_types())
    geoms = [
        geom_to_crs(c.geometry, crs, dem.crs)
        for c in controls
        if c.practice in kinds
        and c.geometry is not None
        and not c.geometry.is_empty
        and c.geometry.geom_type in ("LineString", "MultiLineString")
    ]
    if not geoms:
        return np.zeros(dem.shape, bool)
    got = rasterize([(g, 1) for g in geoms], out_shape=dem.shape, transform=dem.transform, all_touched=True)
    return got.astype(bool)


def plan_controls(plan: Plan | None, site: Site) -> list[DatedControl]:
    """The plan's controls as the soil loss reads them (None: the site's ``bmps`` layer as submitted)."""
    from geosite.soil_loss.cover import bmps_controls

    if plan is None:
        return bmps_controls(site)
    return [
        DatedControl(c.id, c.geometry, c.practice, c.get("method"), c.install, c.remove)
        for c in plan.controls
    ]


def _schedule_on_dem(schedule: CoverSchedule, dem: Dem) -> CoverSchedule:
    """The schedule's geometries in the DEM's CRS."""
    from dataclasses import replace

    from geosite.grid import geom_to_crs

    if schedule.crs is None or schedule.crs.equals(dem.crs):
        return schedule
    spans = tuple(replace(s, geometry=geom_to_crs(s.geometry, schedule.crs, dem.crs)) for s in schedule.spans)
    return CoverSchedule(spans, dem.crs, schedule.notes)


@dataclass(frozen=True, eq=False)
class _Grids:
    """What the windows are computed from, on the box of the schedule's cells: the timeline, R K LS of its
    cells (NaN where not assessed), the box's slices and transform, LS's flags there, K's problems.
    """

    timeline: CoverTimeline
    rkls: np.ndarray
    rows: slice
    cols: slice
    transform: Any
    beyond: np.ndarray
    k_missing: np.ndarray
    k_problems: tuple[str, ...]
    cell_sqft: float


def _grids(
    site: Site, dem: Dem, schedule: CoverSchedule, ls: LSGrid, *, rain: Rainfall, c: dict[str, Any]
) -> _Grids | None:
    """The schedule and the factors on the box of the schedule's cells (None: no cell)."""
    from affine import Affine

    from geosite.grid import cells_box, rasterize, to_crs

    union = np.zeros(dem.shape, bool)
    for s in schedule.spans:
        union |= rasterize(s.geometry, dem.shape, dem.transform)
    box = cells_box(union)
    if box is None:
        return None
    rows, cols = box
    t = dem.transform @ Affine.translation(cols.start, rows.start)
    shape = (rows.stop - rows.start, cols.stop - cols.start)
    tl = cover_timeline(schedule, shape, t, {k: v[0] for k, v in c.items()})
    soils = to_crs(site.layer("soils"), dem.crs)
    kg = k_grid(soils, shape, t)
    k = kg.k.reshape(-1)[tl.cells]
    r = np.nan if rain.r is None else rain.r
    rkls = r * k * ls.ls[rows, cols].reshape(-1)[tl.cells]
    beyond = ls.beyond[rows, cols].reshape(-1)[tl.cells]
    return _Grids(tl, rkls, rows, cols, t, beyond, np.isnan(k), kg.problems, dem.cell_area_sqft)


def _window_rows(g: _Grids, losses: list[WindowLoss], schedule: CoverSchedule) -> dict[str, Any]:
    """report rows: per window (the site), per phase and window."""
    site_rows = [{"window": w.window.label(), "exact": w.exact, **w.totals(g.cell_sqft)} for w in losses]
    phases: dict[str, np.ndarray] = {}
    for s, mk in zip(schedule.spans, g.timeline.span_masks, strict=True):
        if s.layer == "disturbance":
            name = s.phase or f"disturbance {s.feature_id}"
            phases[name] = phases.get(name, np.zeros(mk.size, bool)) | mk
    phase_rows = [
        {"phase": name, "window": w.window.label(), "exact": w.exact, **w.totals(g.cell_sqft, among=mk)}
        for name, mk in phases.items()
        for w in losses
    ]
    return {"windows": site_rows, "phases": phase_rows}


def _raster(g: _Grids, worst: WindowLoss, crs: Any) -> SoilLossRaster:
    """The worst window's loss (its upper bound when bounded) on the box, t/ac; NaN elsewhere."""
    shape = (g.rows.stop - g.rows.start, g.cols.stop - g.cols.start)
    out = np.full(shape[0] * shape[1], np.nan, dtype=np.float32)
    keep = worst.counted & np.isfinite(worst.high_tpa)
    out[g.timeline.cells[keep]] = worst.high_tpa[keep]
    return SoilLossRaster(out.reshape(shape), g.transform, crs, worst.window.label())


def measure_soil_loss(
    site: Site,
    profile: Profile,
    dem: Dem | None,
    fg: FlowGrid | None,
    m: SiteMeasurements,
    *,
    plan: Plan | None = None,
    step: Callable[[str], None] | None = None,
) -> SoilLossResult:
    """NR 151.11's soil loss over every 12-month window of the site's schedule, and its finding.

    Parameters
    ----------
    site : Site
        The site (layers in the site CRS; site.toml ``[soil_loss]`` in ``site.settings``).
    profile : Profile
        The village's profile (its channel threshold, sq ft, and inactive-ground days).
    dem : Dem or None
        The DEM (heights in ft); None: not assessed.
    fg : FlowGrid or None
        Its flow routing (routed here when None).
    m : SiteMeasurements
        The measurements so far (``disturbed.area_acres``).
    plan : Plan, optional
        The plan whose soil loss it is: its fence and diversion lines end slope length, its dated covers
        cover the ground (None: the site's ``bmps`` layer).
    step : callable, optional
        Called with a progress message.

    Returns
    -------
    SoilLossResult
        The ``soil_loss`` block of report.json, the finding, the worst window's raster.
    """
    from geosite.soil_loss.finding import soil_loss_finding

    (step or (lambda _s: None))("soil loss over the schedule (NR 151.11)")
    data = load_soil_loss_data()
    acres = m.values.get("disturbed.area_acres")
    rain = rainfall_for(site, data)
    c = c_values(site, data)
    base = _base_report(data, rain, c)
    if dem is None:
        base["assessed"] = False
        return SoilLossResult(base, soil_loss_finding(data, acres, base, why="no DEM was given"))
    from geosite.site.measurements import stabilize_within_days

    controls = plan_controls(plan, site)
    schedule = _schedule_on_dem(cover_schedule(site, stabilize_within_days(site), controls), dem)
    base["schedule_notes"] = list(schedule.notes)
    if schedule.first_day() is None:
        base["assessed"] = False
        return SoilLossResult(base, soil_loss_finding(data, acres, base, why="no dated disturbance"))
    report, raster = _run_windows(
        site, profile, dem, fg, controls=controls, schedule=schedule, rain=rain, c=c, base=base
    )
    return SoilLossResult(report, soil_loss_finding(data, acres, report), raster)


def _base_report(data: SoilLossData, rain: Rainfall, c: dict[str, Any]) -> dict[str, Any]:
    """The inputs part of report.json's ``soil_loss``: the method, R, its distribution, C, the standard."""
    return {
        "citation": data.citation,
        "guidance": data.guidance,
        "standard_read": data.read,
        "standard_wording_read_whole": data.wording_read_whole,
        "max_tons_per_acre_year": data.max_tons_per_acre_year.value,
        "max_source": data.max_tons_per_acre_year.source,
        "max_slope_pct": data.max_slope_pct.value,
        "method": data.equation,
        "windows_method": data.windows,
        "ls_method": data.contributing_area,
        "county": rain.county,
        "r_factor": rain.r,
        "r_source": rain.r_source,
        "ei_distribution": None if rain.distribution is None else rain.distribution.source,
        "ei_source": rain.ei_source,
        "c_factors": {k: {"value": v[0], "source": v[1]} for k, v in c.items()},
        "units": "R US customary (hundreds of ft tonf in / (ac h yr)), K (ton ac h / (hundreds of ac ft tonf "
        "in)): soil loss in tons per acre over each 12-month window",
    }


def _run_windows(
    site: Site,
    profile: Profile,
    dem: Dem,
    fg: FlowGrid | None,
    *,
    controls: list[DatedControl],
    schedule: CoverSchedule,
    rain: Rainfall,
    c: dict[str, Any],
    base: dict[str, Any],
) -> tuple[dict[str, Any], SoilLossRaster | None]:
    """LS, K and the cover on the grid, every window's loss, the report rows and the worst raster."""
    from geosite.grid import rasterize
    from geosite.hydrology import flow_grid
    from geosite.hydrology.stage import channel_threshold_sqft

    fg = fg if fg is not None else flow_grid(dem)
    bare = np.zeros(dem.shape, bool)
    for s in schedule.spans:
        if s.cover == "bare":
            bare |= rasterize(s.geometry, dem.shape, dem.transform)
    ls = ls_factor(
        fg,
        barriers=_reset_lines(controls, site.crs, dem),
        channel_threshold_sqft=channel_threshold_sqft(profile),
        disturbed=bare,
    )
    g = _grids(site, dem, schedule, ls, rain=rain, c=c)
    first, last = schedule.first_day(), schedule.final_day()
    if g is None or first is None:
        return {**base, "assessed": False}, None
    windows = schedule_windows(first, last if last is not None else first)
    losses = [window_loss(g.timeline, w, g.rkls, rain) for w in windows]
    worst = max(losses, key=lambda w: w.totals(g.cell_sqft)["tpa_high"])
    report = {
        **base,
        "assessed": True,
        "first_disturbance": first.isoformat(),
        "final_stabilization": None if last is None else last.isoformat(),
        **_window_rows(g, losses, schedule),
        "worst_window": worst.window.label(),
        "worst": worst.totals(g.cell_sqft),
        "exact": worst.exact,
        **_beyond_block(g, ls, worst),
        "k_attribute": "kwfact",
        "k_problems": list(g.k_problems),
        "covers_without_c": _covers_without_c(g.timeline, c),
    }
    # no GeoTIFF where no cell has a number (R or K unknown)
    has = bool((worst.counted & np.isfinite(worst.high_tpa)).any())
    return report, _raster(g, worst, dem.crs) if has else None


def _covers_without_c(tl: CoverTimeline, c: dict[str, Any]) -> list[str]:
    """The cover kinds with no known C that some cell takes on some day (a cover always under a later
    one, such as a mulch dated before the grading over it, changes no figure).
    """
    taken = {tl.covers[i] for i in np.unique(tl.cover[tl.cover >= 0])}
    return sorted(k for k in taken if c.get(k, (None,))[0] is None)


def _beyond_block(g: _Grids, ls: LSGrid, worst: WindowLoss) -> dict[str, Any]:
    """The counted area beyond the method's range (slopes over 33 %, concentrated flow), sq ft, in the
    worst window, and the cells without K.
    """
    from geosite.soil_loss.ls import CONCENTRATED, STEEP

    counted = worst.counted
    return {
        "beyond_steep_sqft": float((counted & ((g.beyond & STEEP) > 0)).sum()) * g.cell_sqft,
        "beyond_concentrated_sqft": float((counted & ((g.beyond & CONCENTRATED) > 0)).sum()) * g.cell_sqft,
        "without_k_sqft": float((counted & g.k_missing).sum()) * g.cell_sqft,
    }


def schedule_from_spans(spans: list[CoverSpan], crs: Any = None) -> CoverSchedule:
    """A :class:`CoverSchedule` of the given spans (a notebook's, or the plan object's)."""
    return CoverSchedule(tuple(spans), crs)
