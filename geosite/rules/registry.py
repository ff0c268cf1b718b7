"""What a profile may name: the measurements the stages record, the layers, the control parameters of
``[controls]`` and the other tables' entries. What the practices take (their names, parameters and the
``[controls]`` they read) is each practice's own descriptor, held against a profile by
:mod:`geosite.practices.validate`.

A profile is validated against these tables when it is loaded (:mod:`geosite.rules.schema`), so a
clerk's typo (``disturbed.area_sqf``, ``at_one_time_acre``) is an error naming the nearest valid name,
never a silently different verdict. Each measurement says its unit and the stage that sets it; a stage
that records a new measurement adds it here (``tests/test_profile_schema.py`` checks that every key a
stage records on the sample sites is registered).
"""

from __future__ import annotations

from dataclasses import dataclass

from geosite.io.layers import LAYERS as SITE_LAYERS

#: the kinds of value a profile entry may hold
NUMBER, INTEGER, BOOL, TEXT, DATE, TABLE, LIST = (
    "number",
    "integer",
    "boolean",
    "text",
    "date",
    "table",
    "list",
)


@dataclass(frozen=True)
class Measure:
    """One measurement a stage records (``SiteMeasurements.set``): its kind, unit and stage, what it is, and
    what data would settle it when it cannot be measured (:func:`settle_for`).
    """

    kind: str
    unit: str
    stage: str
    text: str
    settle: str = ""


def _m(kind: str, unit: str, stage: str, text: str, settle: str = "") -> Measure:
    return Measure(kind, unit, stage, text, settle)


_SITE, _TERRAIN, _HYDRO, _DECL = (
    "site.measurements",
    "terrain.stage",
    "hydrology.stage",
    "site.toml [project]",
)

#: every measurement a profile condition may read, by its dotted key
MEASURES: dict[str, Measure] = {
    "site.area_sqft": _m(NUMBER, "sq ft", _SITE, "area of the site boundary"),
    "site.area_acres": _m(NUMBER, "acres", _SITE, "area of the site boundary"),
    "disturbed.area_sqft": _m(
        NUMBER,
        "sq ft",
        _SITE,
        "area of the land disturbing activity (the disturbance polygons, "
        "on or off the parcel: A(3) measures the activity)",
    ),
    "disturbed.area_acres": _m(NUMBER, "acres", _SITE, "area of the land disturbing activity"),
    "disturbed.on_site_sqft": _m(
        NUMBER, "sq ft", _SITE, "the part of the disturbed area inside the site boundary"
    ),
    "disturbed.outside_site_sqft": _m(
        NUMBER, "sq ft", _SITE, "the part of the disturbed area outside the site boundary"
    ),
    "disturbed.max_at_one_time_sqft": _m(
        NUMBER, "sq ft", _SITE, "largest area disturbed at one time (bare until stabilized)"
    ),
    "disturbed.max_at_one_time_acres": _m(
        NUMBER, "acres", _SITE, "largest area disturbed at one time (bare until stabilized)"
    ),
    "project.plat": _m(TEXT, "", _DECL, "plat approval: none, subdivision or certified_survey"),
    "project.cut_cy": _m(NUMBER, "cu yd", _DECL, "declared excavation"),
    "project.fill_cy": _m(NUMBER, "cu yd", _DECL, "declared fill"),
    "project.cut_fill_cy": _m(
        NUMBER,
        "cu yd",
        _SITE,
        "excavation plus fill: the larger of the declared and the measured",
        "[project] cut_cy and fill_cy in site.toml (or a proposed-grade DEM)",
    ),
    "project.dewatering": _m(BOOL, "", _DECL, "site dewatering planned"),
    "project.state_funded": _m(BOOL, "", _DECL, "state-funded or state-conducted work"),
    "project.authority_superseded": _m(
        BOOL, "", _DECL, "erosion control authority superseded by the county or state"
    ),
    "project.landscaping_only": _m(BOOL, "", _DECL, "landscaping modifications only"),
    "earthwork.cut_cy": _m(NUMBER, "cu yd", _TERRAIN, "cut measured from a proposed-grade DEM"),
    "earthwork.fill_cy": _m(NUMBER, "cu yd", _TERRAIN, "fill measured from a proposed-grade DEM"),
    "earthwork.cut_fill_cy": _m(
        NUMBER, "cu yd", _TERRAIN, "cut plus fill measured from a proposed-grade DEM"
    ),
    "roads.work_count": _m(
        INTEGER, "road features", _SITE, "roads being built, enlarged, relocated or reconstructed"
    ),
    "utilities.work_length_ft": _m(
        NUMBER, "ft", _SITE, "underground pipe laid, repaired, replaced or enlarged"
    ),
    "utilities.longest_work_ft": _m(
        NUMBER, "ft", _SITE, "the longest single pipe being laid, repaired, replaced or enlarged"
    ),
    "storm_inlets.count": _m(INTEGER, "inlets", _SITE, "storm drain inlets in the layer"),
    "access_drives.count": _m(INTEGER, "drives", _SITE, "access drives in the layer"),
    "stockpiles.count": _m(INTEGER, "piles", _SITE, "soil stockpiles in the layer"),
    "stockpiles.max_days": _m(NUMBER, "days", _SITE, "longest planned days in place of any pile"),
    "roads.count": _m(INTEGER, "roads", _SITE, "roads in the layer"),
    "streams.count": _m(INTEGER, "streams", _SITE, "streams in the layer"),
    "wetlands.count": _m(INTEGER, "wetlands", _SITE, "wetlands in the layer"),
    "lakes.count": _m(INTEGER, "lakes", _SITE, "lakes in the layer"),
    "channels.count": _m(INTEGER, "channels", _SITE, "drawn channels in the layer"),
    "slopes.steep_disturbed_area_sqft": _m(
        NUMBER, "sq ft", _TERRAIN, "disturbed area on slopes at or over the profile's steep slope"
    ),
    "slopes.steep_area_sqft": _m(
        NUMBER, "sq ft", _TERRAIN, "site area on slopes at or over the profile's steep slope"
    ),
    "slopes.state_steep_disturbed_area_sqft": _m(
        NUMBER, "sq ft", _TERRAIN, "disturbed area on slopes of the state's band"
    ),
    "slopes.max_disturbed_slope_pct": _m(NUMBER, "%", _TERRAIN, "steepest slope in the disturbed area"),
    "slopes.max_slope_pct": _m(NUMBER, "%", _TERRAIN, "steepest slope on the site"),
    "slopes.mean_slope_pct": _m(NUMBER, "%", _TERRAIN, "mean slope on the site"),
    "hydrology.runoff_leaves_site": _m(BOOL, "", _HYDRO, "runoff from the disturbed area leaves the site"),
    "hydrology.channel_originates_in_disturbed": _m(
        BOOL, "", _HYDRO, "a channel originates in the disturbed area"
    ),
    "hydrology.concentrated_outflows": _m(
        INTEGER, "channel cells", _HYDRO, "concentrated runoff leaving the disturbed area"
    ),
    "hydrology.sheetflow_diversions_required": _m(
        INTEGER,
        "disturbed areas",
        _HYDRO,
        "disturbed areas receiving sheetflow over the diversion requirement's area at or over its velocity",
    ),
    "hydrology.max_sheetflow_area_sqft": _m(
        NUMBER, "sq ft", _HYDRO, "largest sheetflow area draining onto a disturbed area"
    ),
    "hydrology.channelized_inflows": _m(
        INTEGER, "disturbed areas", _HYDRO, "disturbed areas receiving channelized runoff"
    ),
    "hydrology.channels_receiving_disturbed_runoff": _m(
        INTEGER,
        "channel segments",
        "practices.channel_fence",
        "channel segments through the site that the disturbed area's runoff reaches",
    ),
    "hydrology.channels_through_site": _m(
        INTEGER, "channel segments", _HYDRO, "channel segments passing through the site"
    ),
    # recorded for the report and the later stages (a condition may read the numbers among them)
    "contours.count": _m(INTEGER, "contours", _TERRAIN, "contour lines drawn"),
    "contours.interval_ft": _m(NUMBER, "ft", _TERRAIN, "the contour interval drawn"),
    "disturbed.max_at_one_time_date": _m(DATE, "", _SITE, "a day the most ground is disturbed at one time"),
    "disturbed.max_at_one_time_phases": _m(LIST, "", _SITE, "the phases disturbed on that day"),
    "disturbed.phases": _m(LIST, "", _SITE, "each phase's dates and area"),
    "hydrology.channel_origin_disturbance_ids": _m(
        LIST, "", _HYDRO, "the disturbance polygons a channel originates in"
    ),
    "hydrology.upslope": _m(LIST, "", _HYDRO, "each disturbed part's upslope area and sheetflow"),
    "roads.work_ids": _m(LIST, "", _SITE, "the roads being built, enlarged, relocated or reconstructed"),
    "utilities.work_ids": _m(LIST, "", _SITE, "the pipes being laid, repaired, replaced or enlarged"),
    "slopes.disturbed_without_heights_sqft": _m(
        NUMBER, "sq ft", _TERRAIN, "disturbed area the DEM has no heights in"
    ),
    "slopes.min_area_sqft": _m(NUMBER, "sq ft", _TERRAIN, "the steep-slope polygons' minimum mapping unit"),
    "slopes.state_steep_area_sqft": _m(NUMBER, "sq ft", _TERRAIN, "site area on slopes of the state's band"),
    "slopes.steep_disturbed_mapped_area_sqft": _m(
        NUMBER, "sq ft", _TERRAIN, "steep disturbed area in patches at least the mapping unit"
    ),
    "slopes.threshold_pct": _m(NUMBER, "%", _TERRAIN, "the steep-slope threshold measured against"),
}

#: the text measurements that say how a value was found (the findings quote them)
HOW: dict[str, Measure] = {
    k: _m(TEXT, "", st, t)
    for k, st, t in (
        ("slopes.steep_disturbed_how", _TERRAIN, "how the steep disturbed area was found"),
        ("hydrology.runoff_leaves_site_how", _HYDRO, "how runoff leaving the site was decided"),
        ("disturbed.max_at_one_time_basis", _SITE, "how the area disturbed at one time was counted"),
        ("disturbed.area_how", _SITE, "how the disturbed area was measured"),
        ("project.cut_fill_how", _SITE, "how the cut and fill was decided"),
    )
}


def settle_for(key: str) -> str:
    """What data would settle measurement ``key`` where it could not be measured, in words."""
    m = MEASURES.get(key)
    if m is None:
        return "the data the finding names"
    if m.settle:
        return m.settle
    if m.stage == _DECL:
        return f"[project] {key.split('.', 1)[1]} in site.toml"
    if m.stage in (_TERRAIN, _HYDRO):
        return "a DEM covering the site and the land around it the chapter's map shows"
    layer = key.split(".", 1)[0]
    return f"the site's {'disturbance' if layer == 'disturbed' else layer} layer"


#: measurements of one feature, for requirements written ``for_each`` feature of a layer
FEATURE_MEASURES: dict[str, dict[str, Measure]] = {
    "stockpiles": {
        "days": _m(NUMBER, "days", "the layer's days", "planned days in place"),
        "volume_cy": _m(
            NUMBER, "cu yd", "the layer's volume_cy, else area x height_ft", "volume of the pile"
        ),
        "area_sqft": _m(NUMBER, "sq ft", _SITE, "footprint of the pile"),
        "height_ft": _m(NUMBER, "ft", "the layer's height_ft", "height of the pile"),
        "downslope_distance_ft": _m(
            NUMBER,
            "ft",
            "practices.features",
            "distance to the nearest feature downslope of the pile, of the layers `to` names (by default "
            "the pile setback requirement's), measured `along` the straight line (the default) or the flow "
            "path",
        ),
        "stabilized": _m(
            BOOL,
            "",
            "practices.features",
            "the plan stabilizes the pile (its stabilization attribute, or a cover bmps feature with its "
            "pile_id)",
        ),
    },
    "storm_inlets": {
        "drainage_acres": _m(NUMBER, "acres", "controls.inlets", "area draining to the inlet"),
    },
    "access_drives": {
        "width_ft": _m(
            NUMBER, "ft", "the layer's width_ft, else the drive polygon's width", "width of the drive"
        ),
    },
}


@dataclass(frozen=True)
class Param:
    """A parameter of a practice or of ``[controls]``: its kind, unit, whether a profile must give it."""

    kind: str
    unit: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()
    text: str = ""


#: kinds of feature a stockpile setback may be measured to
SETBACK_FEATURES = (
    "roads",
    "lakes",
    "streams",
    "wetlands",
    "channels",
    "dem_channels",
    "storm_inlets",
    "structures",
)

#: what kind of requirement it is: a practice placed and checked on the plan, a plan provision checked
#: from the plan's text, or a flag the chapter leaves to its official ("may require")
REQUIREMENT_KINDS = ("practice", "provision", "flag")


def _c(kind: str, unit: str = "", text: str = "") -> Param:
    return Param(kind, unit, text=text)


#: ``[controls]``: the numbers of the DNR Handbook standards and geosite's methods the practices use
CONTROL_PARAMS: dict[str, Param] = {
    "fence_sideslope_tolerance_deg": _c(NUMBER, "deg"),
    "fence_min_run_ft": _c(NUMBER, "ft"),
    "fence_hook_ft": _c(NUMBER, "ft"),
    "fence_end_climb_fraction": _c(NUMBER, ""),
    "fence_end_flat_pct": _c(NUMBER, "percent"),
    "fence_end_join_ft": _c(NUMBER, "ft"),
    "fence_max_slope_length_ft": _c(LIST, "[slope_pct below, max slope length ft]"),
    "fence_channel_offset_ft": _c(NUMBER, "ft"),
    "fence_cover_tolerance_ft": _c(NUMBER, "ft"),
    "fence_intercept_reach_ft": _c(NUMBER, "ft"),
    "fence_row_clearance_ft": _c(NUMBER, "ft"),
    "fence_row_min_length_ft": _c(NUMBER, "ft"),
    "fence_row_max_turn_deg": _c(NUMBER, "deg"),
    "fence_row_max_perimeter_ratio": _c(NUMBER, ""),
    "stockpile_trace_ft": _c(NUMBER, "ft"),
    "stockpile_reach_tolerance_ft": _c(NUMBER, "ft"),
    "stockpile_fence_min_gap_ft": _c(NUMBER, "ft"),
    "inlet_protection_max_drainage_acres": _c(NUMBER, "acres"),
    "inlet_search_ft": _c(NUMBER, "ft"),
    "inlet_adjacent_ft": _c(NUMBER, "ft"),
    "sediment_trap_max_drainage_acres": _c(NUMBER, "acres"),
    "sediment_basin_max_drainage_acres": _c(NUMBER, "acres"),
    "sediment_trap_surface_sqft_per_acre": _c(NUMBER, "sq ft per acre"),
    "basin_outlet_min_acres": _c(NUMBER, "acres"),
    "basin_outlet_merge_ft": _c(NUMBER, "ft"),
    "basin_search_ft": _c(NUMBER, "ft"),
    "tracking_pad_min_length_ft": _c(NUMBER, "ft"),
    "tracking_pad_min_width_ft": _c(NUMBER, "ft"),
    "tracking_pad_width_ft": _c(NUMBER, "ft"),
    "tracking_pad_search_ft": _c(NUMBER, "ft"),
    "diversion_offset_ft": _c(NUMBER, "ft"),
}

#: ``[terrain]`` entries
TERRAIN_PARAMS: dict[str, Param] = {
    "steep_slope_pct": _c(NUMBER, "%"),
    "state_steep_slope_pct": _c(NUMBER, "%"),
    "steep_min_area_sqft": _c(NUMBER, "sq ft"),
    "contour_interval_ft": _c(NUMBER, "ft"),
    "index_contour_every": _c(INTEGER, "contours"),
    "channel_threshold_sqft": _c(NUMBER, "sq ft"),
    "ground_elevation_ft": _c(
        LIST, "ft", "the lowest and highest ground of the state, for the DEM height check"
    ),
}

#: ``[submission]`` entries (how ``geosite check`` reads a plan)
SUBMISSION_PARAMS: dict[str, Param] = {
    "declared_area_tolerance_pct": _c(NUMBER, "%"),
    "declared_volume_tolerance_pct": _c(NUMBER, "%"),
    "sliver_area_sqft": _c(NUMBER, "sq ft"),
    "sliver_width_ft": _c(NUMBER, "ft"),
    "overlap_margin_ft": _c(NUMBER, "ft"),
    "bmp_outside_tolerance_ft": _c(NUMBER, "ft"),
    "diversion_cover_tolerance_ft": _c(NUMBER, "ft"),
    "declared_quantity_tolerance_pct": _c(NUMBER, "%"),
}

#: the pay units a practice's quantity is counted and priced in (state DOTs' erosion-control pay items)
PAY_UNITS = ("LF", "EA", "SY", "SF", "AC", "CY", "TON")

#: ``[quantities]`` entries: the numbers a practice's pay quantity is counted with (geosite.practices.pay)
QUANTITY_PARAMS: dict[str, Param] = {
    "tracking_pad_stone_depth_in": _c(NUMBER, "in", "the pad's stone depth (DNR 1057)"),
    "tracking_pad_stone_tons_per_cy": _c(NUMBER, "tons per cu yd", "the stone's weight per cu yd in place"),
    "sediment_trap_storage_cy_per_acre": _c(
        NUMBER, "cu yd per acre", "a trap's storage per acre drained, where the standard sizes it so"
    ),
}

#: ``[permit]`` entries
PERMIT_PARAMS: dict[str, Param] = {
    "duration_days": _c(INTEGER, "days"),
    "extension_days": _c(INTEGER, "days"),
    "notify_start": _c(NUMBER),
    "notify_bmp_completion": _c(NUMBER),
    "inspect_rain_in": _c(NUMBER, "in"),
    "inspect_every_days": _c(INTEGER, "days"),
    "inspect_after_rain_hours": _c(NUMBER, "hours"),
    "surety": Param(TEXT, choices=("shall", "may")),
    "surety_amount_by": _c(TEXT, "", "who sets the surety's amount (the chapter's words)"),
    "surety_percent_of_estimate": _c(NUMBER, "%", "a published rule: the surety as a share of the estimate"),
    "surety_minimum_usd": _c(NUMBER, "USD", "a published rule: the smallest surety"),
    "building_permit_hold": _c(BOOL),
}

#: ``[enforcement]`` entries
ENFORCEMENT_PARAMS: dict[str, Param] = {
    "comply_hours": _c(NUMBER, "hours"),
    "cease_without_permit_hours": _c(NUMBER, "hours"),
    "village_work_after": _c(NUMBER),
    "village_cost_recovery": _c(BOOL, "", "the Village's cost of work beyond the deposit is recovered"),
}

#: ``[review]`` entries with a value
REVIEW_PARAMS: dict[str, Param] = {
    "full_plan_days": _c(INTEGER, "days"),
    "statement_days": _c(INTEGER, "days"),
    "after_information_full_days": _c(INTEGER, "days"),
    "after_information_statement_days": _c(INTEGER, "days"),
    "non_working_last_day": Param(TEXT, choices=("report", "extend")),
}

#: units a ``[permit]``/``[enforcement]`` entry may count in
TIME_UNITS = ("days", "working_days", "hours")
#: what a ``[plan_content]`` item's ``check`` may name (geosite.review.completeness)
PLAN_CHECKS = ("map", "dem", "contours", "slopes", "schedule")
#: layers a site folder may hold (docs/site_folder.md)
LAYERS = tuple(SITE_LAYERS)
#: layers drawn on the sheets that are not site layers, which a plan item's map_layers may name
MAP_ONLY_LAYERS = (
    "map_margin",
    "natural_drainage",
    "upslope_areas",
    "upslope_entry_points",
    "index_contours",
    "title_block",
)
#: the people site.toml names
CONTACTS = ("applicant", "maintainer", "preparer", "owner")
#: the [project] fields
PROJECT_FIELDS = (
    "start",
    "end",
    "cut_cy",
    "fill_cy",
    "plat",
    "dewatering",
    "state_funded",
    "authority_superseded",
    "landscaping_only",
    "description",
)
#: the [declared] fields
DECLARED_FIELDS = (
    "plan_type",
    "disturbed_area_sqft",
    "disturbed_area_acres",
    "submitted_map",
    "map_dpi",
    "map_scale_ft_per_in",
    "map_contour_interval_ft",
    "maintenance",
    "stabilization",
    "steep_slope_controls",
    "final_conditions",
    "slopes_after",
    "surety",
    "contours",
    "waste",
    "offsite_cleanup",
    "street_cleaning",
    "dewatering_treatment",
    "bmp_removal",
    "estimate",
)

#: keys no longer read, and what replaced them (a profile naming one is told)
RETIRED: dict[str, str] = {
    "controls.dewatering_types": "the practices that treat pumped water are the dewatering practice and the "
    "traps and basins (their families, geosite.practices)",
    "controls.stabilization_types": "the practices that stabilize ground are those of the cover family "
    "(mulch, seed, erosion mat: geosite.practices)",
    "submission.sediment_basin_types": "the practices a basin requirement counts are those of the trap "
    "family "
    "(sediment trap, sediment basin: geosite.practices)",
}
#: ``[stabilization]``: geosite's default stabilization provisions (text)
STABILIZATION_PARAMS: dict[str, Param] = {k: _c(TEXT) for k in ("temporary", "permanent", "maintain")}


#: The name a person reads for each profile parameter (the one place they are kept): a report or message
#: never shows a key such as ``fence_hook_ft``; it shows the value and this name ("10 ft (the length of an
#: end's upslope hook)"). A key missing here is named from its words (:func:`human_name`).
PARAM_NAMES: dict[str, str] = {
    "fence_sideslope_tolerance_deg": "the angle within which a fence counts as running across the slope",
    "fence_min_run_ft": "the shortest fence run placed",
    "fence_hook_ft": "the length of a fence end's upslope hook",
    "fence_end_climb_fraction": "the share of the best turn's climb a turned end must climb",
    "fence_end_flat_pct": "the slope below which ground counts as flat at a fence end",
    "fence_end_join_ft": "the gap within which two fence ends count as joined",
    "fence_max_slope_length_ft": "the maximum slope length above a fence by slope",
    "fence_channel_offset_ft": "the offset of a channel fence from the channel",
    "fence_cover_tolerance_ft": "the distance within which a submitted fence covers a required line",
    "fence_intercept_reach_ft": "the reach below a fence end within which another fence catches its runoff",
    "fence_row_clearance_ft": "the clearance between interior fence rows",
    "fence_row_min_length_ft": "the shortest interior fence row",
    "fence_row_max_turn_deg": "the sharpest turn along an interior fence row",
    "fence_row_max_perimeter_ratio": "the largest length of interior rows against the perimeter fence",
    "stockpile_trace_ft": "the distance a pile's runoff is traced downslope",
    "stockpile_reach_tolerance_ft": "the tolerance on a pile's downslope reach",
    "stockpile_fence_min_gap_ft": "the smallest gap between a pile and its fence",
    "inlet_protection_max_drainage_acres": "the largest drainage area for inlet protection",
    "inlet_search_ft": "the distance searched for an inlet's protection",
    "inlet_adjacent_ft": "the distance from the site within which an inlet is protected",
    "sediment_trap_max_drainage_acres": "the largest drainage area of a sediment trap",
    "sediment_basin_max_drainage_acres": "the largest drainage area of a sediment basin",
    "sediment_trap_surface_sqft_per_acre": "a sediment trap's surface area per acre drained",
    "basin_outlet_min_acres": "the smallest drainage area of an outlet that needs a basin",
    "basin_outlet_merge_ft": "the distance within which outlets count as one",
    "basin_search_ft": "the distance searched for a submitted basin",
    "tracking_pad_min_length_ft": "the shortest tracking pad",
    "tracking_pad_min_width_ft": "the narrowest tracking pad",
    "tracking_pad_width_ft": "the width of a proposed tracking pad",
    "tracking_pad_search_ft": "the distance searched for a drive's tracking pad",
    "diversion_offset_ft": "the offset of a diversion above the disturbed area",
    "steep_slope_pct": "the steep slope",
    "state_steep_slope_pct": "the state's steep slope",
    "steep_min_area_sqft": "the steep-slope map's smallest patch",
    "contour_interval_ft": "the contour interval",
    "channel_threshold_sqft": "the drainage area at which a channel starts",
    "declared_area_tolerance_pct": "the tolerance on a declared area",
    "declared_volume_tolerance_pct": "the tolerance on a declared volume",
    "declared_quantity_tolerance_pct": "the tolerance on a declared quantity",
    "sliver_area_sqft": "the largest area counted as a sliver",
    "sliver_width_ft": "the widest strip counted as a sliver",
    "overlap_margin_ft": "the margin within which features count as overlapping",
    "bmp_outside_tolerance_ft": "how far a control may be drawn outside the site",
    "diversion_cover_tolerance_ft": "the distance within which a diversion covers a required line",
}

#: the profile tables whose entries a text may name, by table
PARAM_TABLES: dict[str, dict[str, Param]] = {
    "controls": CONTROL_PARAMS,
    "terrain": TERRAIN_PARAMS,
    "submission": SUBMISSION_PARAMS,
    "quantities": QUANTITY_PARAMS,
    "permit": PERMIT_PARAMS,
    "enforcement": ENFORCEMENT_PARAMS,
    "review": REVIEW_PARAMS,
}

#: unit suffixes a key ends in, left out of the name made from its words
_UNIT_SUFFIXES = ("ft", "pct", "deg", "acres", "sqft", "cy", "in", "days", "hours", "fraction", "usd")


def human_name(key: str) -> str:
    """The name a person reads for a profile parameter or a measurement: :data:`PARAM_NAMES`, a
    measurement's text, else the key's words without its unit suffix (``comply_hours``: "comply").
    """
    if key in PARAM_NAMES:
        return PARAM_NAMES[key]
    if key in MEASURES or key in HOW:
        return (MEASURES.get(key) or HOW[key]).text
    text = next((t[key].text for t in PARAM_TABLES.values() if key in t and t[key].text), "")
    if text:
        return text.split(" (")[0].split(", where")[0]
    words = key.rsplit(".", 1)[-1].split("_")
    while len(words) > 1 and words[-1] in _UNIT_SUFFIXES:
        words.pop()
    return " ".join(words)


def recorded(key: str) -> bool:
    """Whether ``key`` is a measurement a stage may record (:data:`MEASURES` and :data:`HOW`)."""
    return key in MEASURES or key in HOW
