"""The controls stage of the analyze pipeline: where the ordinance wants controls, and whether the
submitted plan (``bmps``) has them. Every number comes from the profile's ``[controls]`` table; a
profile without one (Belgium) gets "not specified by this chapter" for every control."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import geopandas as gpd

from geosite import controls
from geosite.io.output import py_scalar
from geosite.rules import Finding, Profile

if TYPE_CHECKING:
    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid
    from geosite.site import Site, SiteMeasurements

REPORT_KEYS = ("filter_fence", "stockpiles", "sediment_basin_location", "inlets", "tracking", "diversions", "submitted_controls")
LAYER_NAMES = ("filter_fence", "stockpile_setbacks", "stockpile_fences", "sediment_basins", "inlet_protection", "tracking_pads", "diversions", "fence_gaps")
TOPICS = {
    "filter_fence": ("B(6)(c)[3]", "filter fence along downslope and sideslope sides"),
    "stockpiles": ("B(6)(e)", "stockpile setback from downslope roads and waters"),
    "sediment_basin_location": ("B(6)(c)[2]", "sediment basin location"),
    "inlets": ("B(4)", "storm drain inlet protection"),
    "tracking": ("B(3)", "tracking pads at access drives"),
    "diversions": ("B(6)(a)", "diversion of sheetflow from adjacent areas"),
}


@dataclass
class ControlsResult:
    """Top-level report keys, findings and layers (site CRS) of the controls stage."""

    report: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)


class _Ctx:
    def __init__(self, profile: Profile):
        self.p = profile

    def v(self, key: str, default: Any = None) -> Any:
        return self.p.value("controls", key, default)

    def cite(self, key: str, fallback: str) -> tuple[str, str]:
        e = self.p.entry("controls", key) or {}
        return e.get("citation", fallback), self.p.section_name(e.get("section", "requirements"))

    def finding(self, rule: str, key: str, fallback: str, status: str, message: str, **kw: Any) -> Finding:
        citation, section = self.cite(key, fallback)
        return Finding(rule=rule, citation=citation, section=section, status=status, message=message, **kw)


def measure_controls(
    site: Site,
    profile: Profile,
    dem: Dem | None,
    fg: FlowGrid | None,
    m: SiteMeasurements,
    step: Callable[[str], None] | None = None,
) -> ControlsResult:
    """Where the controls go (fences, setbacks, basins, inlets, tracking, diversions) and how the
    submitted ``bmps`` compare. ``dem``/``fg`` are in the DEM's CRS; layers come back in the site CRS."""
    step = step or (lambda _s: None)
    res = ControlsResult()
    if "controls" not in profile.data:
        # a profile that lists what its chapter leaves unsaid ([[not_specified]]) has the rules engine
        # report it; findings here would say it twice
        listed = bool(profile.data.get("not_specified"))
        for key, (_cit, topic) in TOPICS.items():
            msg = f"{topic[:1].upper()}{topic[1:]}: not specified by this chapter."
            res.report[key] = {"specified": False, "message": msg}
            if not listed:
                res.findings.append(Finding(rule=f"controls.{key}", citation="", section="", status="info", message=msg))
        res.report["submitted_controls"] = {"specified": False, "message": "Controls: not specified by this chapter."}
        return res
    c = _Ctx(profile)
    if dem is None or fg is None:
        why = "no DEM: where flow leaves the disturbed area cannot be told"
        for key, (cit, _topic) in TOPICS.items():
            res.report[key] = {"assessed": False, "why": why}
            res.findings.append(c.finding(f"controls.{key}", "", cit, "not_assessed", f"{TOPICS[key][1]}: not assessed ({why})"))
        _tracking(site, c, res, step)  # needs no DEM
        return res
    bmps = site.layer("bmps")
    _fences(site, c, dem, fg, m, bmps, res, step)
    _stockpiles(site, c, dem, fg, bmps, res, step)
    _basin(site, c, dem, fg, m, res, step)
    _inlets(site, c, dem, fg, bmps, res, step)
    _tracking(site, c, res, step)
    _diversions(site, c, dem, fg, m, bmps, res, step)
    return res


def _fences(site, c: _Ctx, dem, fg, m, bmps, res: ControlsResult, step) -> None:

    dist = site.layer("disturbance")
    acres = m.values.get("disturbed.max_at_one_time_acres")
    limit = float(c.v("basin_disturbed_acres", 10.0))
    if dist is None:
        res.report["filter_fence"] = {"required": None, "why": "no disturbance layer"}
        return
    step("placing filter fence")
    required = acres is not None and acres < limit
    thr = float(c.p.value("terrain", "channel_threshold_sqft", 43_560.0))
    area = m.layers.get("disturbed_area")
    if area is not None and len(area):
        # the union (clipped to the site): edges shared by adjacent disturbance polygons get no fence
        parts = area[["geometry"]].explode(index_parts=False).reset_index(drop=True)
        parts["id"] = range(1, len(parts) + 1)
        dist = parts
    fence, runs = controls.filter_fence(
        dist, dem, fg,
        tolerance_deg=float(c.v("fence_sideslope_tolerance_deg", 20.0)),
        min_run_ft=float(c.v("fence_min_run_ft", 20.0)),
        hook_ft=float(c.v("fence_hook_ft", 10.0)),
        table=c.v("fence_max_slope_length_ft"),
        channel_threshold_sqft=thr,
        channel_offset_ft=float(c.v("fence_channel_offset_ft", 5.0)),
        obstacles=controls.row_obstacles(site),
        row_clearance_ft=float(c.v("fence_row_clearance_ft", 5.0)),
        row_min_length_ft=float(c.v("fence_row_min_length_ft", 25.0)),
    )
    summary = controls.fence_summary(fence)
    res.report["filter_fence"] = {"required": required, "disturbed_max_at_one_time_acres": acres, **summary,
                                  "upslope_length_ft": float(runs.loc[runs["side"] == "upslope", "length_ft"].sum())}
    res.layers["filter_fence"] = fence
    if not required:
        res.findings.append(c.finding("filter_fence_location", "basin_disturbed_acres", "B(6)(c)[3]", "info",
                                      f"{acres:,.2f} acres disturbed at one time: B(6)(c)[3] fences not the required route (basins instead); fence lines shown for reference"
                                      if acres is not None else "disturbed area at one time not assessed"))
        return
    res.findings.append(Finding("filter_fence_location", "B(6)(c)[3]", c.p.section_name("requirements"), "info",
                                f"Filter fence required along {summary['downslope_length_ft']:,.0f} ft of downslope and {summary['sideslope_length_ft']:,.0f} ft of sideslope edge"
                                f" and {summary['channel_length_ft']:,.0f} ft along channel edges ({summary['total_length_ft']:,.0f} ft), plus {summary['interior_length_ft']:,.0f} ft of interior rows where the slope above a fence is longer than DNR 1056 allows.",
                                required=True, values=summary))
    need = fence[fence["side"].isin(("downslope", "sideslope", "channel"))]
    if bmps is None:
        res.report["submitted_controls"] = {"bmps_layer": False}
        res.findings.append(Finding("filter_fence_submitted", "B(6)(c)[3]", c.p.section_name("requirements"), "not_assessed",
                                    f"No bmps layer submitted: {need['length_ft'].sum():,.0f} ft of filter fence is required and cannot be checked."))
        return
    cov, gaps = controls.fence_coverage(need, bmps, float(c.v("fence_cover_tolerance_ft", 10.0)))
    res.layers["fence_gaps"] = gaps
    sub = res.report.setdefault("submitted_controls", {"bmps_layer": True})
    sub["filter_fence"] = {**cov, "gaps": [{"side": s, "polygon_id": py_scalar(p), "length_ft": float(L)} for s, p, L in zip(gaps["side"], gaps["polygon_id"], gaps["length_ft"])]}
    ok = cov["gap_length_ft"] <= 0.0
    ids = sorted({py_scalar(p) for p in gaps["polygon_id"]}) if len(gaps) else []
    by_side = gaps.groupby("side")["length_ft"].sum() if len(gaps) else {}
    res.findings.append(Finding(
        "filter_fence_submitted", "B(6)(c)[3]", c.p.section_name("requirements"), "pass" if ok else "fail",
        "Submitted silt fence / straw bales cover every required downslope, sideslope and channel-edge stretch."
        if ok else f"Filter fence missing along {cov['gap_length_ft']:,.0f} ft of the {cov['required_length_ft']:,.0f} ft required ("
        + ", ".join(f"{v:,.0f} ft {k}" for k, v in sorted(by_side.items())) + f"; {len(gaps)} gap{'s' if len(gaps) != 1 else ''}).",
        required=True, values=cov, feature_ids=ids))


def _stockpiles(site, c: _Ctx, dem, fg, bmps, res: ControlsResult, step) -> None:

    piles = site.layer("stockpiles")
    if piles is None:
        res.report["stockpiles"] = []
        return
    step("checking stockpile setbacks")
    setback = float(c.v("stockpile_setback_ft", 25.0))
    rep, zones, fences = controls.stockpile_setbacks(
        piles, {k: site.layer(k) for k in controls.FEATURE_LAYERS}, dem, fg,
        min_setback_ft=setback,
        stabilize_after_days=c.v("stockpile_stabilize_after_days"),
        trace_ft=float(c.v("stockpile_trace_ft", 100.0)),
        tolerance_deg=float(c.v("fence_sideslope_tolerance_deg", 20.0)),
        hook_ft=float(c.v("fence_hook_ft", 10.0)),
    )
    res.layers["stockpile_setbacks"] = zones
    res.layers["stockpile_fences"] = fences
    res.report["stockpiles"] = [{k: v for k, v in r.items() if k != "features"} for r in rep]
    for r in rep:
        nf = r["nearest_feature"]
        if r["violation"]:
            res.findings.append(c.finding("stockpile_setback", "stockpile_setback_ft", "B(6)(e)", "fail",
                                          f"Stockpile {r['id']} is {r['min_setback_ft']:,.1f} ft from downslope {nf['layer']} {nf['id']}; piles must be {setback:g} ft from any downslope road, lake, stream, wetland or drainage channel.",
                                          required=True, values={"min_setback_ft": r["min_setback_ft"]}, feature_ids=[r["id"]]))
        else:
            res.findings.append(c.finding("stockpile_setback", "stockpile_setback_ft", "B(6)(e)", "pass",
                                          f"Stockpile {r['id']}: " + (f"nearest downslope feature {r['min_setback_ft']:,.1f} ft away ({nf['layer']} {nf['id']})." if r["min_setback_ft"] is not None else "no road, lake, stream, wetland or channel downslope."),
                                          values={"min_setback_ft": r["min_setback_ft"]}, feature_ids=[r["id"]]))
        for f in r["near_upslope"]:
            res.findings.append(c.finding("stockpile_setback_upslope", "stockpile_setback_ft", "B(6)(e)", "info",
                                          f"Stockpile {r['id']} is {f['distance_ft']:,.1f} ft from {f['layer']} {f['id']}, which is not downslope of it (no setback required).",
                                          feature_ids=[r["id"]]))
        if r["stabilization_required"]:
            res.findings.append(c.finding("stockpile_stabilization", "stockpile_stabilize_after_days", "B(6)(e)", "info",
                                          f"Stockpile {r['id']} stays {r['days']:g} days: stabilize it (mulch, vegetative cover, tarps).",
                                          required=True, feature_ids=[r["id"]]))
    if bmps is not None and len(fences):
        tol = float(c.v("fence_cover_tolerance_ft", 10.0))
        missing = []
        for pid in sorted({py_scalar(p) for p in fences["pile_id"]}, key=str):
            need = fences[(fences["pile_id"] == pid) & (fences["length_ft"] > 0)].copy()
            # B(6)(e) asks for a fence on the downslope side; the upslope hooks at its ends are DNR
            # practice, so a shortfall shorter than a hook (e.g. a hook drawn 1 ft short) is not a missing fence
            cov, _gaps = controls.fence_coverage(need.rename(columns={"pile_id": "polygon_id"}), bmps, tol,
                                        min_gap_ft=float(c.v("fence_hook_ft", 10.0)))
            covered = cov["gap_length_ft"] <= 0.0
            for r in res.report["stockpiles"]:
                if r["id"] == pid:
                    r["downslope_fence_submitted"] = covered
            if not covered:
                missing.append(pid)
        res.findings.append(c.finding("stockpile_fence", "stockpile_setback_ft", "B(6)(e)", "fail" if missing else "pass",
                                      f"No straw bale or filter fabric fence on the downslope side of stockpile{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}."
                                      if missing else "Every stockpile has a fence on its downslope side.", required=True, feature_ids=missing))


def _basin(site, c: _Ctx, dem, fg, m, res: ControlsResult, step) -> None:

    acres = m.values.get("disturbed.max_at_one_time_acres")
    chan = m.values.get("hydrology.channel_originates_in_disturbed")
    required = bool((acres is not None and acres >= float(c.v("basin_disturbed_acres", 10.0))) or chan is True)
    dist = m.layers.get("disturbed_area")
    if not required or dist is None:
        res.report["sediment_basin_location"] = {"required": required if acres is not None or chan is not None else None}
        return
    step("locating the sediment basin")
    pts = controls.basin_location(dist, dem, fg, float(c.v("sediment_trap_max_drainage_acres", 5.0)), float(c.v("sediment_basin_max_drainage_acres", 100.0)))
    res.layers["sediment_basins"] = pts
    if not len(pts):
        res.report["sediment_basin_location"] = {"required": True, "located": False}
        return
    row = pts.iloc[0]
    rep = {"required": True, "located": True, "x": float(row.geometry.x), "y": float(row.geometry.y),
           "drainage_area_sqft": float(row["drainage_area_sqft"]), "drainage_area_acres": float(row["drainage_area_acres"]),
           "kind": row["kind"], "limit": row["limit"]}
    res.report["sediment_basin_location"] = rep
    res.findings.append(c.finding("sediment_basin_location", "basin_disturbed_acres", "B(6)(c)[2]", "info",
                                  f"Proposed {row['kind'].replace('_', ' ')} at the disturbed area's lowest outlet, draining {rep['drainage_area_acres']:,.2f} acres ({row['limit']}).",
                                  required=True, values=rep))


def _inlets(site, c: _Ctx, dem, fg, bmps, res: ControlsResult, step) -> None:

    inlets = site.layer("storm_inlets")
    dist = site.layer("disturbance")
    if inlets is None:
        res.report["inlets"] = []
        return
    step("checking storm drain inlets")
    if dist is None:
        out = inlets.copy()
        out["in_disturbed"] = False
        out["downslope_of_disturbed"] = False
        out["protection_required"] = True  # B(4): all inlets
        out["drainage_area_acres"] = None
        out["trap_or_basin_required"] = False
    else:
        out = controls.inlet_protection(inlets, dist, dem, fg, float(c.v("inlet_protection_max_drainage_acres", 1.0)))
    out["protected"] = controls.protected(out, bmps, ("inlet_protection",), float(c.v("inlet_search_ft", 10.0)))
    res.layers["inlet_protection"] = out[out["protection_required"]]
    res.report["inlets"] = [
        {"id": py_scalar(r["id"]), "in_disturbed": bool(r["in_disturbed"]), "downslope_of_disturbed": bool(r["downslope_of_disturbed"]),
         "protection_required": bool(r["protection_required"]), "drainage_area_acres": py_scalar(r["drainage_area_acres"]),
         "trap_or_basin_required": bool(r["trap_or_basin_required"]), "protection_submitted": bool(r["protected"]) if bmps is not None else None}
        for _, r in out.iterrows()
    ]
    need = out[out["protection_required"]]
    if not len(need):
        return
    if bmps is None:
        res.findings.append(Finding("inlet_protection_submitted", "B(4)", c.p.section_name("requirements"), "not_assessed",
                                    f"{len(need)} inlet(s) need protection; no bmps layer submitted.", required=True, feature_ids=[py_scalar(i) for i in need["id"]]))
        return
    bad = need[~need["protected"]]
    res.findings.append(Finding("inlet_protection_submitted", "B(4)", c.p.section_name("requirements"), "fail" if len(bad) else "pass",
                                f"Storm drain inlet(s) {', '.join(str(py_scalar(i)) for i in bad['id'])} without inlet protection within {c.v('inlet_search_ft', 10.0):g} ft."
                                if len(bad) else "Every storm drain inlet in or below the disturbed area is protected.",
                                required=True, feature_ids=[py_scalar(i) for i in bad["id"]]))
    big = need[need["trap_or_basin_required"]]
    if len(big):
        res.findings.append(Finding("inlet_drainage", "B(4)", c.p.section_name("requirements"), "info",
                                    f"Inlet(s) {', '.join(str(py_scalar(i)) for i in big['id'])} drain more than {c.v('inlet_protection_max_drainage_acres', 1.0):g} acre: a sediment trap or basin upstream (DNR 1060).",
                                    feature_ids=[py_scalar(i) for i in big["id"]]))


def _tracking(site, c: _Ctx, res: ControlsResult, step) -> None:

    drives, roads = site.layer("access_drives"), site.layer("roads")
    if drives is None or roads is None:
        res.report["tracking"] = {"entrances": [], "why": "no access_drives or roads layer"}
        return
    step("placing tracking pads")
    min_len = float(c.v("tracking_pad_min_length_ft", 50.0))
    bmps = site.layer("bmps")
    ent, pads = controls.tracking_pads(drives, roads, min_len, float(c.v("tracking_pad_width_ft", 12.0)), bmps, float(c.v("inlet_search_ft", 10.0)))
    res.layers["tracking_pads"] = pads
    res.report["tracking"] = {"entrances": ent, "min_pad_length_ft": min_len}
    if not ent:
        return
    bad = [e["drive_id"] for e in ent if not e["submitted_pad"]]
    res.findings.append(c.finding("tracking_pad", "tracking_pad_min_length_ft", "B(3)", "fail" if bad else "pass",
                                  f"Entrance(s) of access drive(s) {', '.join(map(str, bad))} onto roads have no tracking pad of {min_len:g} ft or more (DNR 1057)"
                                  + "".join(f"; drive {e['drive_id']}'s drawn pad is {e['drawn_pad_length_ft']:.0f} ft" for e in ent if not e["submitted_pad"] and e.get("drawn_pad_length_ft")) + "."
                                  if bad else f"Every entrance has a tracking pad of {min_len:g} ft or more.", required=True, feature_ids=bad))


def _diversions(site, c: _Ctx, dem, fg, m, bmps, res: ControlsResult, step) -> None:

    dist = site.layer("disturbance")
    if dist is None:
        res.report["diversions"] = []
        return
    step("proposing diversions")
    given = m.values.get("hydrology.upslope")
    upslope = {d.get("disturbance_id", d.get("id")): d for d in given} if isinstance(given, list) else None
    out, lines = controls.diversions(
        dist, dem, fg,
        area_sqft=float(c.v("sheetflow_area_sqft", 10_000.0)),
        velocity_fps=float(c.v("sheetflow_velocity_fps", 0.5)),
        rain_in=c.p.value("rain", "ten_year_24_hour_in"),
        upslope=upslope,
        channel_threshold_sqft=float(c.p.value("terrain", "channel_threshold_sqft", 43_560.0)),
        offset_ft=float(c.v("diversion_offset_ft", 5.0)),
        tolerance_deg=float(c.v("fence_sideslope_tolerance_deg", 20.0)),
        min_run_ft=float(c.v("fence_min_run_ft", 20.0)),
    )
    res.report["diversions"] = out
    res.layers["diversions"] = lines
    need = [d["id"] for d in out if d["required"]]
    if need:
        res.findings.append(c.finding("sheetflow_diversion_location", "sheetflow_area_sqft", "B(6)(a)", "info",
                                      f"Diversion proposed above disturbed area(s) {', '.join(map(str, need))} ({lines['length_ft'].sum():,.0f} ft along their upslope edges).",
                                      required=True, feature_ids=need))
