"""The analyze pipeline: Site → measurements → findings → outputs.

``analyze`` runs the stages in order, each adding to one :class:`~geosite.site.SiteMeasurements`:

1. the site's vector layers (:func:`geosite.site.measure_site`);
2. terrain on the DEM (:mod:`geosite.terrain.stage`): slopes, steep areas, contours, cut and fill;
3. hydrology (:mod:`geosite.hydrology.stage`): flow routing, upslope areas, channels, runoff leaving;
4. the gate (:func:`geosite.rules.site_gate`), once: whether the chapter applies, and where its scopes do
   (Grantsburg B(6): where runoff leaves the site); every later stage reads it;
5. controls (:mod:`geosite.practices.stage`): each requirement handed to the practice that serves it, to
   place (what ``analyze`` proposes) and judge (the submitted ones); then soil loss over the schedule
   (:mod:`geosite.soil_loss.stage`, NR 151.11: the state's standard);
6. the rules (:func:`geosite.rules.engine.evaluate`): applicability, plan type, findings;

then the report (:mod:`geosite.report`). ``write_outputs`` writes report.json, report.md and
derived.gpkg (and the DXF and plan maps) atomically.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

import geopandas as gpd

from geosite.hydrology.stage import HYDRO_KEYS, channel_threshold_sqft, measure_hydrology
from geosite.plan import plan_of
from geosite.plan.prices import PriceTable
from geosite.plan.quantity_report import quantity_report
from geosite.practices import measure_controls
from geosite.practices.validate import validate_practices
from geosite.report import build_report, plan_block, render_markdown
from geosite.rules import Evaluation, Finding, Profile, decide, evaluate, load_profile, site_gate
from geosite.rules.words import feature_names, for_people
from geosite.site import Site, SiteMeasurements, measure_site
from geosite.soil_loss.stage import measure_soil_loss
from geosite.terrain.stage import TERRAIN_KEYS, measure_earthwork, measure_slopes
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    from geosite.maps.worker import MapWorker

log = logging.getLogger(__name__)
Step = Callable[[str], None]


@dataclass
class AnalysisResult:
    """What ``analyze`` produced: the report dict, the evaluation and the derived layers."""

    site: Site
    profile: Profile
    measurements: SiteMeasurements
    evaluation: Evaluation
    report: dict[str, Any]
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)
    dem: Any = None  # the geosite.grid.Dem the terrain was measured on (None without a DEM)
    #: the controls stage's result (geosite.practices.ControlsResult): each requirement's outcome and the
    #: controls proposed
    controls: Any = None
    soil_loss: Any = None  # the geosite.soil_loss.stage.SoilLossResult (NR 151.11), None when not run
    #: the site's plan (geosite.plan.Plan): the controls proposed (or, with none, the ones submitted)
    plan: Any = None
    #: its quantities, estimate and surety (geosite.plan.quantity_report.QuantityReport)
    quantities: Any = None

    @property
    def findings(self) -> list[Finding]:
        """The findings of the evaluation."""
        return self.evaluation.findings


def analyze(
    site: Site,
    profile: Profile | str | None = None,
    step: Step | None = None,
    *,
    prices: PriceTable | None = None,
    plan_source: str | None = None,
) -> AnalysisResult:
    """Measure ``site`` and evaluate the rules of its jurisdiction (or of ``profile``); the plan's
    quantities are priced at ``prices`` (:func:`geosite.plan.read_prices`), else at the profile's
    ``[prices]``. ``plan_source`` (:func:`geosite.plan.plan_of`): ``submitted`` judges the site's own
    controls (``check``); None: the controls geosite proposes where it proposes any.
    """
    step = step or (lambda name: log.info(name))
    if isinstance(profile, Profile):
        prof = profile
    else:  # the profile the site was loaded with (it may be a file, not an installed name)
        prof = (
            site.profile
            if profile is None and site.profile is not None
            else load_profile(profile or site.jurisdiction)
        )
    validate_practices(prof)  # its practices, parameters and [controls]: before any work
    _note_title_block(site)
    step("measuring areas and phases")
    m = measure_site(site)
    extra: dict[str, Any] = {}
    dem = None
    if site.dem_path is not None or site.dem_array is not None:
        step("reading the DEM")
        dem, m.flow_grid, window = read_dem_for(site, prof)
        if window is not None:
            extra["dem_window"] = window
    if dem is None:
        for key in TERRAIN_KEYS + HYDRO_KEYS:
            m.set(key, None, "no DEM was given")
    else:
        extra.update(measure_slopes(site, prof, dem, m, step))
        extra.update(measure_earthwork(site, prof, dem, m, step))
        extra.update(measure_hydrology(site, prof, dem, m, step))
    m.gate = site_gate(prof, m)  # once: the controls, the rules, check, maps and report all read it
    m.decisions = decide(prof, m, m.gate)  # once: each requirement required here or not
    controls = measure_controls(site, prof, dem, m.flow_grid, m, step=step)
    extra.update(controls.report)
    step("evaluating the rules")
    ev = evaluate(prof, m, m.gate, decisions=m.decisions)
    ev.findings.extend(controls.findings)
    # every finding said for a person once: parameters by value and name, features by name
    for_people(ev.findings, prof, feature_names(site.layers))
    report = build_report(site, prof, m, ev, extra)
    layers = {**m.layers, **controls.layers}
    result = AnalysisResult(site, prof, m, ev, report, layers, dem, controls)
    result.plan = plan_of(result, plan_source)  # the one plan every view is drawn from
    report["plan"] = plan_block(result.plan)
    result.quantities = quantity_report(result.plan, prices)
    report["quantities"] = result.quantities.to_dict()
    _plan_soil_loss(result, step)
    return result


def _plan_soil_loss(result: AnalysisResult, step: Step) -> None:
    """NR 151.11 (the state's standard, beside the chapter's findings: :mod:`geosite.soil_loss`): the soil
    loss of the result's plan, into ``result.soil_loss`` and report.json's ``soil_loss``.
    """
    site, m = result.site, result.measurements
    soil = measure_soil_loss(site, result.profile, result.dem, m.flow_grid, m, plan=result.plan, step=step)
    for_people([soil.finding], result.profile, feature_names(site.layers))
    result.soil_loss = soil
    result.report["soil_loss"] = {**soil.report, "finding": soil.finding.to_dict()}


def _note_title_block(site: Site) -> None:
    """Each title-block item the site folder does not give (:func:`geosite.site.title_block.title_block_gaps`)
    warned now and kept in the site's notes (report.json and report.md list them), once per site.
    """
    import warnings

    from geosite.errors import Note, TitleBlockWarning
    from geosite.site.title_block import title_block_gaps

    for gap in title_block_gaps(site):
        if gap.note not in site.notes:
            site.notes.append(Note(gap.note, TitleBlockWarning))
            warnings.warn(gap.note, TitleBlockWarning, stacklevel=3)


#: The largest DEM read whole when the site's drainage needs over half of it; a larger one is read on
#: the widest window tried (upslope areas reaching farther are cut there, and the report says so).
WHOLE_DEM_MAX_CELLS = 16_000_000
#: The core read around the site beyond its map margin: B(4)'s 200 ft adjacent area, and the 100 ft a
#: stockpile's runoff is followed plus its 25 ft setback.
CORE_MARGIN_FT = 200.0


class DemWindow(TypedDict):
    """Where the DEM was read (report.json's ``dem_window``): its rows and columns, the whole DEM's shape,
    whether it was read whole, whether the window was certified, the cells searched, and in words.
    """

    rows: list[int]
    columns: list[int]
    dem_shape: list[int]
    whole: bool
    certified: bool
    searched_cells: int
    description: str


class DemRead(NamedTuple):
    """The DEM read for an analysis: the :class:`geosite.grid.Dem`, its flow routing
    (:class:`geosite.hydrology.flow.FlowGrid`, None when not routed while reading) and where it was read
    (None for an in-memory DEM).
    """

    dem: Any
    flow_grid: Any
    window: DemWindow | None


def read_dem_for(site: Site, profile: Profile) -> DemRead:
    """The DEM the analysis needs (:mod:`geosite.hydrology.window`): the site, its map margin, the storm
    inlets and every cell draining into the site, certified equal to the whole DEM's routing.
    """
    from geosite.grid import bounds_in, geom_to_crs
    from geosite.hydrology.window import read_site_dem
    from geosite.io.raster import raster_crs

    if site.dem_path is None or site.dem_array is not None:
        return DemRead(site.read_dem(margin_ft=None), None, None)
    dem_crs = raster_crs(site.dem_path, site.dem_root, site.limits)
    margin_ft = max(site.map_margin_ft(profile), CORE_MARGIN_FT)
    left, bottom, right, top = bounds_in(
        site.boundary.bounds, margin_ft / site.ft_per_unit, site.crs, dem_crs
    )
    threshold = channel_threshold_sqft(profile)
    inlets = site.layer("storm_inlets")  # B(4) reaches any inlet the runoff gets to, however far
    if inlets is not None:
        il, ib, ir, it = bounds_in(tuple(inlets.total_bounds), 0.0, inlets.crs, dem_crs)
        left, bottom, right, top = min(left, il), min(bottom, ib), max(right, ir), max(top, it)
        # an inlet's drainage decides DNR 1060's trap or basin: exact up to that limit as well
        limit_ac = profile.value("controls", "inlet_protection_max_drainage_acres")
        if limit_ac is not None:
            threshold = min(threshold, float(limit_ac) * SQFT_PER_ACRE)
    site_geom = geom_to_crs(site.boundary, site.crs, dem_crs)
    dem, fg, where = read_site_dem(
        site.dem_path,
        site.dem_vertical_unit,
        site_geom,
        (left, bottom, right, top),
        limits=site.limits,
        root=site.dem_root,
        max_cells=WHOLE_DEM_MAX_CELLS,
        channel_threshold_sqft=threshold,
    )
    if not where.certified:
        site.notes.append(
            f"DEM {site.dem_path}: the land draining into the site was not proven to fit a window geosite "
            "reads "
            f"(over half of this {where.height * where.width:,}-cell DEM, which is more than the "
            f"{WHOLE_DEM_MAX_CELLS:,} cells read whole, or more than the raster budget lets an analysis "
            "hold); read "
            f"{where.describe()}, so upslope areas reaching farther are cut at that window"
        )
    info: DemWindow = {
        "rows": [where.r0, where.r1],
        "columns": [where.c0, where.c1],
        "dem_shape": [where.height, where.width],
        "whole": where.whole,
        "certified": where.certified,
        "searched_cells": where.searched_cells,
        "description": where.describe(),
    }
    return DemRead(dem, fg, info)


def write_outputs(
    result: AnalysisResult,
    out: Path,
    overwrite: bool = False,
    *,
    maps: bool = False,
    sheet: str = "auto",
    scale_ft: float | None = None,
    dxf: bool = True,
    plan: bool = True,
    map_worker: MapWorker | None = None,
) -> list[Path]:
    """Write report.json, report.md, derived.gpkg (and derived.dxf for CAD; the plan maps with
    ``maps=True``; the submission folder ``plan/`` with ``plan=True``, :mod:`geosite.plan_folder`) into
    ``out`` atomically. Returns the files written. With ``map_worker``
    (:func:`geosite.maps.worker.map_worker`) the maps are drawn in that process while this one writes the
    other files. ``scale_ft``, the maps' (and the DXF's text, and the plan folder's declared) scale in feet
    per inch, is by default the largest standard scale at which the site and its margin fit a ``sheet``,
    never smaller than the profile's chapter allows (:func:`geosite.maps.sheets.fit_sheets`): one number
    for every view of the run.
    """
    from geosite.io.output import atomic_dir
    from geosite.maps.worker import start_plan_maps

    if scale_ft is None:
        scale_ft = fitted_scale(result, sheet)  # None still: the maps refuse, the DXF takes its own
    out = Path(out)
    with atomic_dir(out, overwrite=overwrite) as tmp:
        # drawn beside the files below when a worker is given (geosite.maps.worker), else at wait()
        pending = start_plan_maps(
            result, tmp, enabled=maps, worker=map_worker, sheet=sheet, scale_ft=scale_ft
        )
        try:
            names = _write_files(result, tmp)
            # drawn while the sheets are, lettered where the construction sheet placed its labels
            cad = _PlanDxf(result, tmp / "derived.dxf", scale_ft) if dxf else None
            sheets = pending.wait(on_labels=cad.write if cad is not None else None)
            if cad is not None:
                names.append(cad.finish().name)
        except BaseException:
            pending.cancel()
            raise
        names += [p.name for p in sheets]
        if plan:
            from geosite.plan_folder import PLAN_DIR, write_plan_folder

            names += [
                str(p)
                for p in write_plan_folder(
                    result, tmp / PLAN_DIR, sheets=sheets, scale_ft=scale_ft if maps else None
                )
            ]
    return [out / n for n in names]


def fitted_scale(result: AnalysisResult, sheet: str = "auto") -> float | None:
    """The scale the plan maps are drawn at when none is asked for, feet per paper inch
    (:func:`geosite.maps.sheets.fit_site`: plain arithmetic, no drawing); None where the profile gives
    no map scale. The sheet count is not limited here: the maps refuse too many sheets before any work
    (:func:`geosite.maps.sheets.check_sheet_count`), and a run without maps draws none.
    """
    from geosite.maps.sheets import fit_site

    if result.profile.map_scale_ft is None:
        return None
    return fit_site(result.site, None, sheet).scale_ft


def _write_files(result: AnalysisResult, tmp: Path) -> list[str]:
    """report.json, report.md and derived.gpkg into ``tmp``; their names."""
    from geosite.io.output import write_gpkg, write_json
    from geosite.views.layers import derived_schema, derived_styles, sheet_styles

    write_json(tmp / "report.json", result.report)
    (tmp / "report.md").write_text(render_markdown(result.report), encoding="utf-8")
    layers = {"site_boundary": result.site.layers["site_boundary"][["id", "geometry"]], **result.layers}
    write_gpkg(tmp / "derived.gpkg", layers, schema=derived_schema(), styles=derived_styles(sheet_styles()))
    names = ["report.json", "report.md", "derived.gpkg"]
    if result.quantities is not None:  # the pay quantities, for a spreadsheet (no cell runs as a formula)
        from geosite.plan.quantity_report import csv_text

        (tmp / "quantities.csv").write_text(csv_text(result.quantities), encoding="utf-8")
        names.append("quantities.csv")
    if result.soil_loss is not None and result.soil_loss.raster is not None:
        from geosite.soil_loss.raster import write_soil_loss_tif

        names.append(write_soil_loss_tif(result.soil_loss.raster, tmp).name)
    return names


#: The plot scale the DXF's text and symbols are sized for where the profile gives no map scale, feet per
#: inch: geosite's choice, not the ordinance's (CAD rescales text at will).
DEFAULT_DXF_SCALE_FT = 100.0


class _PlanDxf:
    """derived.dxf: the plan drawn now (:func:`geosite.views.dxf.draft_dxf`), lettered and written where the
    construction sheet placed its labels as soon as they come (:meth:`write`), else without them
    (:meth:`finish`, the DXF placing its own).
    """

    def __init__(self, result: AnalysisResult, path: Path, scale_ft: float | None) -> None:
        from geosite.views.dxf import draft_dxf

        self.path = path
        plan = result.plan if result.plan is not None else plan_of(result)
        self.draft = draft_dxf(plan, DEFAULT_DXF_SCALE_FT if scale_ft is None else scale_ft)
        self.written = False

    def write(self, labels: tuple[Any, ...] = ()) -> None:
        """Letter and write the DXF (``labels``: the construction sheet's, as
        :class:`geosite.symbols.PlacedLabel`).
        """
        self.draft.write(self.path, labels)
        self.written = True

    def finish(self) -> Path:
        """The DXF written (by :meth:`write`, or now without the sheet's labels)."""
        if not self.written:
            self.write()
        return self.path
