"""Geosite: erosion control plans for construction sites under Wisconsin village ordinances.

``import geosite`` is light (no pyplot, numba or geopandas): every name below is loaded from its module
the first time it is used. Results are GeoDataFrames in the site's (or the DEM's) CRS and dataclasses
whose fields carry their unit (``area_sqft``, ``length_ft``, ``slope_pct``).

To load a site:

- `load_site` -- a site folder (``site.toml`` + layers + DEM; see docs/site_folder.md), validated at once.
- `site_from_frames` -- the same from GeoDataFrames keyed by layer name and a DEM path or `Dem`.
- `Dem` (`Dem.from_array`: an array + affine transform + CRS + vertical unit), `read_dem` (a DEM file).
- `Site`, `Project`, `Contact` -- the loaded site, its declared project facts and its people.

To run the whole analysis:

- `analyze` -> `AnalysisResult` (``report`` dict as in report.json, ``findings``, derived ``layers``).
- `write_outputs` -- report.json, report.md, derived.gpkg/.dxf (and the plan maps) into a folder.

To measure one thing (each takes a `Dem` (heights in feet, its own CRS), never a file name):

- terrain: `slope_pct`, `hillshade`, `steep_slope_polygons`, `steep_area_sqft`, `contours`;
- hydrology: `flow_grid` -> `FlowGrid`, `flow_accumulation`, `upslope_area` -> `UpslopeArea`,
  `upslope_area_dinf_sqft`, `channels`, `sheetflow_velocity_fps`;
- controls: `filter_fence`, `fence_summary`, `stockpile_setbacks` -> `StockpileSetbacks`;
- areas from the vector layers: `measure_site` -> `SiteMeasurements` (site and disturbed area, phases,
  pipe, roads).

Rules, maps and review:

- `load_profile` -> `Profile`, `available_profiles`, `evaluate` -> `Evaluation` (``applies``, a
  `Trigger` per applicability criterion, ``plan_type``, a `Finding` per rule, each citing its section).
- `render_existing_site_map`, `render_construction_plan`, `render_final_conditions` (to a PDF, or
  matplotlib Figures with ``out_path=None``), `render_plan_maps` (all three into a folder).
- `check_submission` -> `CheckResult` (``geosite check``: the submission staged and read in a sandbox,
  docs/security.md), `write_check_outputs`;
  `build_schedule` -> `Schedule`.
- `errors` (``geosite.errors.InputError`` ...) and `testing` (synthetic DEMs with known answers).

Examples
--------
>>> import geosite
>>> site = geosite.load_site("data/sample_sites/grantsburg_lot7")   # doctest: +SKIP
>>> result = geosite.analyze(site)                                  # doctest: +SKIP
>>> result.report["disturbed"]["area_acres"]                        # doctest: +SKIP
0.5985...
>>> dem = site.read_dem(margin_ft=site.map_margin_ft())             # doctest: +SKIP
>>> village = site.profile.required("terrain", "steep_slope_pct")      # doctest: +SKIP
>>> state = site.profile.required("terrain", "state_steep_slope_pct")  # doctest: +SKIP
>>> mmu = site.profile.required("terrain", "steep_min_area_sqft")      # doctest: +SKIP
>>> steep = geosite.steep_slope_polygons(dem, threshold_pct=(village, state),  # doctest: +SKIP
...                                      min_area_sqft=mmu)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geosite._version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from geosite import errors, testing
    from geosite.controls import StockpileSetbacks, fence_summary, filter_fence, stockpile_setbacks
    from geosite.grid import Dem
    from geosite.hydrology import (
        FlowGrid,
        UpslopeArea,
        channels,
        flow_accumulation,
        flow_grid,
        sheetflow_velocity_fps,
        upslope_area,
        upslope_area_dinf_sqft,
    )
    from geosite.io.raster import read_dem
    from geosite.maps import (
        render_construction_plan,
        render_existing_site_map,
        render_final_conditions,
        render_plan_maps,
    )
    from geosite.pipeline import AnalysisResult, analyze, write_outputs
    from geosite.practices.validate import load_profile
    from geosite.review.check import CheckResult, write_check_outputs
    from geosite.review.sandbox import check_submission_sandboxed as check_submission
    from geosite.rules import (
        Evaluation,
        Finding,
        Profile,
        Trigger,
        available_profiles,
        evaluate,
    )
    from geosite.schedule import Schedule, build_schedule
    from geosite.site import (
        Contact,
        Project,
        Site,
        SiteMeasurements,
        load_site,
        measure_site,
        site_from_frames,
    )
    from geosite.terrain import contours, hillshade, slope_pct, steep_area_sqft, steep_slope_polygons

#: Public name -> the module it is loaded from on first use (``import geosite`` imports none of them).
_LAZY: dict[str, str] = {
    # sites and DEMs
    "load_site": "geosite.site",
    "site_from_frames": "geosite.site",
    "Site": "geosite.site",
    "Project": "geosite.site",
    "Contact": "geosite.site",
    "Dem": "geosite.grid",
    "read_dem": "geosite.io.raster",
    # the pipeline
    "analyze": "geosite.pipeline",
    "AnalysisResult": "geosite.pipeline",
    "write_outputs": "geosite.pipeline",
    "measure_site": "geosite.site",
    "SiteMeasurements": "geosite.site",
    # terrain
    "slope_pct": "geosite.terrain",
    "hillshade": "geosite.terrain",
    "steep_slope_polygons": "geosite.terrain",
    "steep_area_sqft": "geosite.terrain",
    "contours": "geosite.terrain",
    # hydrology
    "flow_grid": "geosite.hydrology",
    "FlowGrid": "geosite.hydrology",
    "flow_accumulation": "geosite.hydrology",
    "upslope_area": "geosite.hydrology",
    "upslope_area_dinf_sqft": "geosite.hydrology",
    "UpslopeArea": "geosite.hydrology",
    "channels": "geosite.hydrology",
    "sheetflow_velocity_fps": "geosite.hydrology",
    # controls
    "filter_fence": "geosite.controls",
    "fence_summary": "geosite.controls",
    "stockpile_setbacks": "geosite.controls",
    "StockpileSetbacks": "geosite.controls",
    # rules
    "load_profile": "geosite.practices.validate",
    "available_profiles": "geosite.rules",
    "Profile": "geosite.rules",
    "evaluate": "geosite.rules",
    "Evaluation": "geosite.rules",
    "Finding": "geosite.rules",
    "Trigger": "geosite.rules",
    # maps
    "render_existing_site_map": "geosite.maps",
    "render_construction_plan": "geosite.maps",
    "render_final_conditions": "geosite.maps",
    "render_plan_maps": "geosite.maps",
    # review and schedule
    "check_submission": "geosite.review",  # the sandboxed check (geosite.review.sandbox)
    "CheckResult": "geosite.review.check",
    "write_check_outputs": "geosite.review.check",
    "build_schedule": "geosite.schedule",
    "Schedule": "geosite.schedule",
}

#: Submodules reachable as attributes (``geosite.errors.InputError``) without importing them first.
_SUBMODULES = ("errors", "testing")

__all__ = sorted(["__version__", *_LAZY, *_SUBMODULES])


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"geosite.{name}")
    raise AttributeError(f"module 'geosite' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
