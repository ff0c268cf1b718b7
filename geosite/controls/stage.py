"""The controls stage of the analyze pipeline: where the chapter (or the BMP Handbook its design criteria
make binding) wants controls, and whether the submitted plan (``bmps``) has them.

Which controls a village asks for, and under which section, is its profile's ``[practices]`` table: a
practice absent there is one the chapter does not ask for (the rules engine reports that silence once).
Every number comes from the profile's ``[controls]`` table. Every finding passes through the site's gate
(:class:`geosite.rules.Gate`, computed once by the pipeline): where the chapter, or the scope a practice
sits in (Grantsburg B(6): runoff leaving the site), does not apply, nothing fails: the finding becomes
information and the control's layer is drawn for reference (its ``required`` column False); where that
is not decided, a would-be failure is ``not_assessed``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import geopandas as gpd
import numpy as np
import shapely

from geosite import controls, grid
from geosite.controls import fence_ends
from geosite.controls.submitted import FENCE_TYPES
from geosite.grid import to_crs, to_dem_crs
from geosite.io.output import py_scalar
from geosite.rules import Decision, Finding, Gate, Profile, Requirement, decide, feature_applies, site_gate

if TYPE_CHECKING:
    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid
    from geosite.site import Site, SiteMeasurements

#: practices whose placement needs the DEM (where flow goes)
NEEDS_DEM = (
    "filter_fence",
    "channel_fence",
    "sediment_basin",
    "stockpile_setback",
    "stockpile_fence",
    "sheetflow_diversion",
)


@dataclass
class ControlsResult:
    """Top-level report keys, findings and layers (site CRS) of the controls stage."""

    report: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)


@dataclass
class _Ctx:
    """What every placement reads and writes: the profile, the gate, the measurements and the requirements
    decided once for the site (:func:`geosite.rules.decide`); the site, its submitted ``bmps`` layer, the
    stage's result and its progress callback.
    """

    p: Profile
    gate: Gate
    m: SiteMeasurements
    decisions: dict[str, Decision]
    site: Site
    res: ControlsResult
    step: Callable[[str], None]
    bmps: gpd.GeoDataFrame | None = None

    def v(self, key: str) -> Any:
        """A ``[controls]`` number (an error naming the profile when it is missing)."""
        return self.p.control(key)

    def practice(self, name: str) -> Requirement | None:
        """The profile's requirement for practice ``name`` (None when the chapter does not ask for it)."""
        return self.p.practice(name)

    def decision(self, name: str) -> Decision | None:
        """The site's decision on practice ``name``'s requirement (None without one)."""
        q = self.practice(name)
        return None if q is None else self.decisions.get(q.id)

    def open(self, name: str) -> bool | None:
        """Whether the gate lets ``name`` apply here (the chapter, and the requirement's scope)."""
        q = self.practice(name)
        return self.gate.open(q.gate if q else None)

    def finding(self, name: str, rule: str, status: str, message: str, **kw: Any) -> Finding:
        """A finding of practice ``name`` (its requirement's citation and section), passed through the
        gate.
        """
        q = self.practice(name)
        f = Finding(
            rule=rule,
            citation=q.citation if q else "",
            section=self.p.section_name(q.section if q else "requirements"),
            status=status,
            message=message,
            **kw,
        )
        return self.gate.apply(f, q.gate if q else None)

    def acres_at_once(self) -> float | None:
        """The most ground disturbed at one time, acres (None when not measured)."""
        return self.m.values.get("disturbed.max_at_one_time_acres")


@dataclass(frozen=True)
class _Flow:
    """The DEM and its flow grid (both in the DEM's CRS), for the placements that need where flow goes."""

    dem: Dem
    fg: FlowGrid

    def on_site(self, site: Site) -> controls.SiteFlow:
        """The DEM, its flow grid and the site's cells on it (what :func:`controls.fence_coverage` follows).

        Parameters
        ----------
        site : Site
            The site whose boundary bounds the flow followed.

        Returns
        -------
        controls.SiteFlow
            The flow on the site.
        """
        return controls.SiteFlow(self.dem, self.fg, site.mask_on(self.dem, "site"))


@dataclass(frozen=True)
class _BasinRoute:
    """What the fence route needs to know of the basins: whether the submitted basins receive the runoff at
    every outlet (``serves_all``), and whether basins are the other route the chapter allows here
    (``alternative_open``).
    """

    serves_all: bool = False
    alternative_open: bool = False


class _FenceLayout(NamedTuple):
    """The fence lines geosite places (site CRS) and the classified edge runs of the disturbed area."""

    fence: gpd.GeoDataFrame
    runs: gpd.GeoDataFrame


class _Route(NamedTuple):
    """Whether the fences are the route the chapter requires here, and why."""

    required: bool
    why: str


class _Outlets(NamedTuple):
    """The outlets needing their own trap or basin (site CRS), their cells on the DEM grid, and the fringe
    of smaller outlets.
    """

    outlets: gpd.GeoDataFrame
    cells: list[Any]
    fringe: gpd.GeoDataFrame


def _mark(gdf: gpd.GeoDataFrame, required: bool | None) -> gpd.GeoDataFrame:
    """The layer with its ``required`` column: False where it is drawn for reference only (the maps' legend
    reads it), None where that is not decided.
    """
    gdf = gdf.copy()
    gdf["required"] = required
    return gdf


def measure_controls(
    site: Site,
    profile: Profile,
    dem: Dem | None,
    fg: FlowGrid | None,
    m: SiteMeasurements,
    *,
    step: Callable[[str], None] | None = None,
) -> ControlsResult:
    """Where the controls go (fences, setbacks, basins, inlets, tracking, diversions) and how the
    submitted ``bmps`` compare.

    Parameters
    ----------
    site : Site
        The site (its layers in the site CRS, lengths in ``site.ft_per_unit`` ft per CRS unit).
    profile : Profile
        The village's profile: its ``[practices]`` and ``[controls]`` numbers (ft, acres, degrees).
    dem : Dem or None
        The DEM (elevations in ft, its own CRS); None when the site has none.
    fg : FlowGrid or None
        The flow grid on ``dem`` (None with it).
    m : SiteMeasurements
        The measurements so far; ``m.gate`` is the site's gate (computed here from ``m`` when the pipeline
        has not).
    step : callable, optional
        Called with a short progress message before each placement.

    Returns
    -------
    ControlsResult
        Report keys, findings and layers (site CRS).
    """
    c = _context(site, profile, m, step=step)
    if not any(q.practice for q in profile.requirements):
        return c.res
    c.bmps = site.layer("bmps")
    if dem is None or fg is None:
        _without_dem(c)
    else:
        _with_dem(c, _Flow(dem, fg))
    return c.res


def _context(
    site: Site, profile: Profile, m: SiteMeasurements, *, step: Callable[[str], None] | None
) -> _Ctx:
    """The stage's context: the site's gate and decisions (computed from ``m`` when the pipeline has not),
    an empty result with the gate reported in it.
    """
    res = ControlsResult()
    gate = m.gate if m.gate is not None else site_gate(profile, m.values)
    res.report["controls_gate"] = {
        "chapter_applies": gate.applies,
        "why": gate.message,
        **{k: t.met for k, t in gate.scopes.items()},
    }
    return _Ctx(
        profile,
        gate,
        m,
        m.decisions if m.decisions is not None else decide(profile, m.values, gate),
        site=site,
        res=res,
        step=step or (lambda _s: None),
    )


def _with_dem(c: _Ctx, flow: _Flow) -> None:
    """Every placement, in order: the basins first (the fence route turns on them), then the fences,
    stockpiles, inlets, tracking pads, diversions and the plan checks without placement.
    """
    chan = c.m.layers.get("channels")
    chan_dem = to_crs(chan, flow.dem.crs) if chan is not None and len(chan) else None
    basins = _basin(c, flow)
    _fences(c, flow, chan_dem, basins)
    _stockpiles(c, flow, chan)
    _inlets(c, flow.dem, flow.fg)
    _tracking(c)
    _diversions(c, flow)
    _channelized_inflows(c, flow)
    _dewatering(c)
    _inactive_stabilization(c)
    _bmp_removal(c)


def _without_dem(c: _Ctx) -> None:
    """The placements that need where flow goes are not assessed; the rest are checked."""
    why = "no DEM: where flow leaves the disturbed area cannot be told"
    for name in NEEDS_DEM:
        q = c.practice(name)
        if q:
            c.res.report.setdefault(name, {"assessed": False, "why": why})
            text = q.requires
            c.res.findings.append(
                c.finding(
                    name,
                    f"controls.{name}",
                    "not_assessed",
                    f"{text[:1].upper()}{text[1:]}: not assessed ({why}).",
                )
            )
    _inlets(c, None, None)  # on-site and adjacent inlets need no DEM
    _tracking(c)
    _dewatering(c)
    _inactive_stabilization(c)
    _bmp_removal(c)


# --------------------------------------------------------------------------------------------- fences


def _fences(c: _Ctx, flow: _Flow, chan_dem: gpd.GeoDataFrame | None, basins: _BasinRoute) -> None:
    """Filter fence: where it goes (downslope, sideslope and channel edges, interior rows), whether it is
    the route the chapter requires here, and the submitted fences against it.
    """
    pr = c.practice("filter_fence")
    area = c.m.layers.get("disturbed_area")
    res = c.res
    if pr is None:
        return
    if area is None or not len(area):
        res.report["filter_fence"] = {"required": None, "why": "no disturbance layer"}
        return
    c.step("placing filter fence")
    # the union (clipped to the site): edges shared by adjacent disturbance polygons get no fence
    parts = area[["geometry"]].explode(index_parts=False).reset_index(drop=True)
    parts["id"] = range(1, len(parts) + 1)
    fence, runs = _fence_lines(c, flow, pr, parts, chan_dem)
    summary = controls.fence_summary(fence)
    unclassified_ft = float(runs.loc[runs["side"] == controls.UNCLASSIFIED, "length_ft"].sum())
    route, why = _fence_route(c, pr, basins)
    state = c.open("filter_fence")
    required = route and state
    res.report["filter_fence"] = {
        "required": required,
        "route": why,
        "disturbed_max_at_one_time_acres": c.acres_at_once(),
        **summary,
        "upslope_length_ft": float(runs.loc[runs["side"] == "upslope", "length_ft"].sum()),
        "unclassified_length_ft": unclassified_ft,
    }
    res.layers["filter_fence"] = _mark(fence, required if route else False)
    if unclassified_ft > 0:
        _fence_unclassified(c, unclassified_ft)
    if not route:
        res.findings.append(
            c.finding(
                "filter_fence", "filter_fence_location", "info", f"Fence lines shown for reference: {why}."
            )
        )
        return
    _fence_location(c, pr, summary, state)
    _fence_submitted(c, flow, fence=fence, parts=parts, summary=summary, basins=basins)


def _fence_unclassified(c: _Ctx, unclassified_ft: float) -> None:
    """The edge stretches (``unclassified_ft`` ft) with no DEM heights just inside them: not assessed."""
    c.res.findings.append(
        c.finding(
            "filter_fence",
            "filter_fence_unclassified",
            "not_assessed",
            f"{unclassified_ft:,.0f} ft of the disturbed area's edge has no DEM heights just inside it: "
            "whether it is a "
            "downslope or sideslope side needing fence is not assessed there (no fence placed).",
            values={"unclassified_length_ft": unclassified_ft},
        )
    )


def _fence_location(c: _Ctx, pr: Requirement, summary: dict[str, Any], state: bool | None) -> None:
    """Where the required fence goes (``summary``: its lengths by side, ft)."""
    res, std, channel_pr = c.res, pr.citation, c.practice("channel_fence")
    channel_txt = f" and {summary['channel_length_ft']:,.0f} ft along channel edges" if channel_pr else ""
    res.findings.append(
        c.finding(
            "filter_fence",
            "filter_fence_location",
            "info",
            f"Filter fence {'required ' if state else ''}({std}) along {summary['downslope_length_ft']:,.0f} "
            "ft of downslope and "
            f"{summary['sideslope_length_ft']:,.0f} ft of sideslope edge{channel_txt} "
            f"({summary['total_length_ft']:,.0f} ft in all, end hooks included), plus "
            f"{summary['interior_length_ft']:,.0f} ft of "
            "interior rows where the slope above a fence is longer than DNR 1056 allows.",
            required=True,
            values=summary,
        )
    )


def _fence_lines(
    c: _Ctx, flow: _Flow, pr: Requirement, parts: gpd.GeoDataFrame, chan_dem: gpd.GeoDataFrame | None
) -> _FenceLayout:
    """The fence lines geosite places (site CRS) and the classified edge runs of the disturbed area."""
    site, dem, fg = c.site, flow.dem, flow.fg
    thr = float(c.p.value("terrain", "channel_threshold_sqft"))
    channel_pr = c.practice("channel_fence")
    fence, runs = controls.filter_fence(
        parts,
        dem,
        fg,
        tolerance_deg=float(c.v("fence_sideslope_tolerance_deg")),
        min_run_ft=float(c.v("fence_min_run_ft")),
        hook_ft=float(c.v("fence_hook_ft")) if pr.params.get("hooks", False) else 0.0,
        table=c.v("fence_max_slope_length_ft"),
        channel_threshold_sqft=thr,
        channel_offset_ft=float(c.v("fence_channel_offset_ft")),
        obstacles=controls.row_obstacles(site),
        row_clearance_ft=float(c.v("fence_row_clearance_ft")),
        row_min_length_ft=float(c.v("fence_row_min_length_ft")),
        row_rules=controls.RowRules.from_profile(c.p),
    )
    stand_ins = controls.row_stand_ins(fence)
    if stand_ins is not None:
        c.res.layers["stand_ins"] = stand_ins
    if channel_pr is not None and chan_dem is None:
        c.m.set("hydrology.channels_receiving_disturbed_runoff", 0)  # no channel traced on the DEM
    if channel_pr is None:
        # the chapter asks for no channel-edge fences: the side fences still stop at concentrated flow
        # (DNR 1056: silt fence is for sheet and rill flow), which a trap or basin takes instead
        fence = fence[fence["side"] != "channel"].reset_index(drop=True)
    elif chan_dem is not None:
        fence = _with_channel_edges(c, flow, fence, chan_dem, threshold_sqft=thr)
    return _FenceLayout(fence, runs)


def _with_channel_edges(
    c: _Ctx, flow: _Flow, fence: gpd.GeoDataFrame, chan_dem: gpd.GeoDataFrame, *, threshold_sqft: float
) -> gpd.GeoDataFrame:
    """``fence`` with the channel-edge fences outside the disturbed polygons (site CRS), where its runoff
    reaches the channels of ``chan_dem`` (DEM CRS; channel cells drain ``threshold_sqft`` sq ft or more).
    """
    site, dem = c.site, flow.dem
    out = controls.channel_edge_fences(
        to_dem_crs(site.disturbed, site, dem),
        to_dem_crs(site.boundary, site, dem),
        dem,
        flow.fg,
        chan_dem,
        threshold_sqft=threshold_sqft,
        offset_ft=float(c.v("fence_channel_offset_ft")),
        min_piece_ft=float(c.v("fence_row_min_length_ft")),
    )
    c.m.set("hydrology.channels_receiving_disturbed_runoff", int(out.attrs.get("segments_reached", 0)))
    if not len(out):
        return fence
    out = to_crs(out, site.crs)
    out["polygon_id"] = None
    out["length_ft"] = out.geometry.length * site.ft_per_unit
    return gpd.GeoDataFrame(
        gpd.pd.concat([fence, out[["side", "polygon_id", "geometry", "length_ft"]]], ignore_index=True),
        geometry="geometry",
        crs=site.crs,
    )


def _fence_cover(c: _Ctx, flow: _Flow, need: gpd.GeoDataFrame) -> tuple[controls.Coverage, gpd.GeoDataFrame]:
    """The submitted fences' coverage of the required stretches ``need``, with the profile's cover
    tolerance and reach downslope (the one test every fence requirement is judged by).
    """
    return controls.fence_coverage(
        need,
        c.bmps,
        tolerance_ft=float(c.v("fence_cover_tolerance_ft")),
        flow=flow.on_site(c.site),
        reach_ft=float(c.v("fence_intercept_reach_ft")),
    )


def _fence_submitted(
    c: _Ctx,
    flow: _Flow,
    *,
    fence: gpd.GeoDataFrame,
    parts: gpd.GeoDataFrame,
    summary: dict[str, Any],
    basins: _BasinRoute,
) -> None:
    """The submitted silt fence / straw bales against the required stretches, and the slope lengths above
    them.
    """
    res, bmps = c.res, c.bmps
    channel_pr = c.practice("channel_fence")
    sides = ("downslope", "sideslope", "channel") if channel_pr else ("downslope", "sideslope")
    need = fence[fence["side"].isin(sides)]
    if bmps is None:
        res.report["submitted_controls"] = {"bmps_layer": False}
        res.findings.append(
            c.finding(
                "filter_fence",
                "filter_fence_submitted",
                "not_assessed",
                f"No bmps layer submitted: {need['length_ft'].sum():,.0f} ft of filter fence is required and "
                "cannot be checked.",
            )
        )
        return
    cov, gaps = _fence_cover(c, flow, need)
    res.layers["fence_gaps"] = gaps
    sub = res.report.setdefault("submitted_controls", {"bmps_layer": True})
    sub["filter_fence"] = _coverage_report(cov, gaps)
    ends = _fence_ends(c, flow, need)
    if ends is not None:
        sub["filter_fence"]["ends"] = ends.report()
    covered = cov["gap_length_ft"] <= 0.0
    ok = covered and (ends is None or not ends.not_turned)
    ids = sorted({py_scalar(p) for p in gaps["polygon_id"] if p is not None}) if len(gaps) else []
    edges = "downslope, sideslope and channel-edge" if channel_pr else "downslope and sideslope"
    _slope_lengths(c, flow, parts, summary)
    text = (
        f"Submitted silt fence / straw bales cover every required {edges} stretch."
        if covered
        else _fence_gap_message(c, cov, gaps, basins)
    )
    res.findings.append(
        c.finding(
            "filter_fence",
            "filter_fence_submitted",
            "pass" if ok else "fail",
            text + (_ends_text(ends, c.v("fence_hook_ft")) if ends is not None else ""),
            required=True,
            values=dict(cov),
            feature_ids=ids,
        )
    )


def _fence_ends(c: _Ctx, flow: _Flow, need: gpd.GeoDataFrame) -> fence_ends.FenceEnds | None:
    """DNR 1056's fence ends turned upslope, judged on the submitted perimeter fences' open ends (None
    where the profile's fence practice asks for no hooks).
    """
    pr = c.practice("filter_fence")
    fences = controls.bmps_of(c.bmps, FENCE_TYPES)
    if pr is None or not pr.params.get("hooks", False) or fences is None:
        return None
    if "pile_id" in fences.columns:  # a pile's own fence: judged by stockpile_fence
        fences = fences[fences["pile_id"].isna()]
    rules = fence_ends.EndRules(
        hook_ft=float(c.v("fence_hook_ft")),
        climb_fraction=float(c.v("fence_end_climb_fraction")),
        flat_pct=float(c.v("fence_end_flat_pct")),
        join_ft=float(c.v("fence_end_join_ft")),
        serve_ft=float(c.v("fence_cover_tolerance_ft")),
        reach_ft=float(c.v("fence_intercept_reach_ft")),
    )
    sides = need[need["side"].isin(("downslope", "sideslope"))]  # the perimeter analyze hooks
    required = to_crs(sides, flow.dem.crs).geometry.union_all() if len(sides) else None
    lines = list(to_crs(fences, flow.dem.crs).geometry)
    chan = c.m.layers.get("channels")
    corridor = None
    if chan is not None and len(chan):  # DNR 1056: a fence stops at concentrated flow, whose own
        # protection governs there (the channel-edge fences): an end at the channel is not open
        half = (float(c.v("fence_channel_offset_ft")) + rules.join_ft) / flow.dem.ft_per_unit
        corridor = to_crs(chan, flow.dem.crs).geometry.buffer(half).union_all()
    area = to_dem_crs(c.site.disturbed, c.site, flow.dem)
    return fence_ends.fence_ends(
        lines, required, flow.dem, rules, channels=corridor, directions=flow.fg.directions, area=area
    )


def _ends_text(ends: fence_ends.FenceEnds, hook_ft: float) -> str:
    """The finding's sentence on the fence ends (DNR 1056): how many were judged, and where one is not
    turned upslope.
    """
    skipped = ends.flat + ends.no_heights
    aside = f"; {skipped} on flat ground or without DEM heights, not judged" if skipped else ""
    if ends.caught_below:
        aside += f"; {ends.caught_below} backed by a fence below, which catches what goes round them"
    if not ends.not_turned:
        return (
            f" Fence ends turned upslope (DNR 1056): {ends.turned} of {ends.judged} open ends judged{aside}."
        )
    where = "; ".join(
        f"({e['x']:,.0f}, {e['y']:,.0f}) rises {e['rise_ft']:.2f} ft where the ground climbs "
        f"{e['climb_ft']:.2f} ft"
        for e in ends.not_turned[:5]
    )
    more = f" and {len(ends.not_turned) - 5} more" if len(ends.not_turned) > 5 else ""
    return (
        f" {len(ends.not_turned)} of {ends.judged} open fence ends are not turned upslope (DNR 1056: the "
        f"fence's last {float(hook_ft):g} ft must climb the slope so water is held at its end, not led "
        f"round it): {where}{more}{aside}."
    )


def _fence_gap_message(c: _Ctx, cov: controls.Coverage, gaps: gpd.GeoDataFrame, basins: _BasinRoute) -> str:
    """The failing finding's text: the fence missing (``cov``: the coverage, ft) by side, and the basins
    that would be the other route where the chapter allows one.
    """
    by_side = gaps.groupby("side")["length_ft"].sum() if len(gaps) else {}
    alt_q = c.practice("sediment_basin")
    alt = f" (or basins at every outlet, {alt_q.citation})" if basins.alternative_open and alt_q else ""
    return (
        f"Filter fence missing along {cov['gap_length_ft']:,.0f} ft of the "
        f"{cov['required_length_ft']:,.0f} ft required{alt} ("
        + ", ".join(f"{v:,.0f} ft {k}" for k, v in sorted(by_side.items()))
        + f"; {len(gaps)} gap{'s' if len(gaps) != 1 else ''})."
    )


def _coverage_report(cov: controls.Coverage, gaps: gpd.GeoDataFrame) -> dict[str, Any]:
    """The report's ``submitted_controls.filter_fence``: the coverage and each gap (side, polygon, ft)."""
    return {
        **cov,
        "gaps": [
            {"side": s, "polygon_id": py_scalar(p), "length_ft": float(L)}
            for s, p, L in zip(gaps["side"], gaps["polygon_id"], gaps["length_ft"], strict=True)
        ],
    }


def _slope_lengths(c: _Ctx, flow: _Flow, parts: gpd.GeoDataFrame, summary: dict[str, float]) -> None:
    """DNR 1056's maximum slope length above a fence, checked on the submitted fences: the Handbook's
    design criteria, which both chapters make binding on every BMP (Grantsburg's and Belgium's design
    criteria sections), so it is cited there, under the fence practice's gate.
    """
    table = c.v("fence_max_slope_length_ft")
    if table is None:
        return
    res, site, dem, fg = c.res, c.site, flow.dem, flow.fg
    lines = controls.bmps_of(c.bmps, ("silt_fence", "straw_bales", "diversion", "stabilization"))
    barriers = (
        shapely.union_all(to_crs(lines, dem.crs).geometry.values)
        if lines is not None and len(lines)
        else None
    )
    worst = {"excess_sqft": 0.0, "max_ratio": 0.0, "longest_ft": 0.0}
    where = []
    for poly in to_crs(parts, dem.crs).geometry:
        got = controls.slope_length_excess(poly, dem, fg, barriers, table, geometry=True)
        if got["geometry"] is not None:
            where.append(got["geometry"])
        worst["excess_sqft"] += got["excess_sqft"]
        worst["max_ratio"] = max(worst["max_ratio"], got["max_ratio"])
        worst["longest_ft"] = max(worst["longest_ft"], got["longest_ft"])
    res.report.setdefault("submitted_controls", {})["slope_length"] = worst
    if where:  # the finding's place (issue 23 item 5): the lead wires it into the finding's geometry
        res.layers["slope_length_excess"] = to_crs(
            gpd.GeoDataFrame(
                {"what": ["slope above the next fence longer than DNR 1056 allows"] * len(where)},
                geometry=where,
                crs=dem.crs,
            ),
            site.crs,
        )
    design = c.p.section_name("design")
    f = c.finding(
        "filter_fence",
        "filter_fence_slope_length",
        "pass" if worst["excess_sqft"] <= 0 else "fail",
        "The slope above every submitted fence is within DNR 1056's maximum lengths "
        f"(the longest, {worst['longest_ft']:,.0f} ft, is {worst['max_ratio']:.0%} of what its slope allows)."
        if worst["excess_sqft"] <= 0
        else f"On {worst['excess_sqft']:,.0f} sq ft of the disturbed area the slope above the "
        "next submitted fence is longer than DNR 1056 "
        f"allows for its steepness (up to {worst['longest_ft']:,.0f} ft of slope, {worst['max_ratio']:.1f} "
        "times the table's length): "
        f"interior fence rows (geosite proposes {summary['interior_length_ft']:,.0f} ft), diversions across "
        "the slope or a "
        "stabilization BMP over it are needed.",
        values=worst,
        required=True,
    )
    f.citation, f.section = "Design criteria (DNR 1056)", design
    res.findings.append(f)


def _fence_route(c: _Ctx, pr: Requirement, basins: _BasinRoute) -> _Route:
    """Whether the fences are the route the chapter requires here, and why, from the requirement's
    decision (its conditions, and its alternative: B(6)(c)'s 'either ... or').
    """
    d = c.decisions[pr.id]
    acres = c.acres_at_once()
    if d.met is None:
        return _Route(
            False,
            "whether they are required is not assessed ("
            + "; ".join(t.message for t in d.conditions if t.met is None)
            + ")",
        )
    if d.met is False:
        alt = c.decisions.get(pr.alternative or "")
        instead = (
            f"; {alt.requirement.requires} ({alt.requirement.citation}) instead"
            if alt is not None and alt.met
            else ""
        )
        return _Route(False, "; ".join(t.message for t in d.conditions) + instead)
    if d.either_with and basins.serves_all:
        alt_q = c.decisions[d.either_with].requirement
        return _Route(
            False,
            "the submitted basins receive the runoff at every outlet of the disturbed area "
            f"({alt_q.citation}), "
            "the other route the chapter allows",
        )
    return _Route(
        True, f"{pr.citation}" + (f" ({acres:,.2f} acres disturbed at one time)" if acres is not None else "")
    )


# --------------------------------------------------------------------------------------------- basins


@dataclass(kw_only=True)
class _BasinPlan:
    """The outlets of the disturbed area needing a basin or trap (site CRS), and the submitted ones at
    them.
    """

    outlets: gpd.GeoDataFrame
    #: per outlet: its cells on the DEM grid (exit cells and their first steps downhill, flat indices)
    cells: list[Any]
    fringe: gpd.GeoDataFrame
    #: per outlet: its drainage (acres), kind, and the bmps ids receiving its runoff / suiting it
    served: list[controls.OutletService]
    #: the submitted basins and traps (None when the plan has none)
    got: gpd.GeoDataFrame | None
    reasons: list[str]
    #: the alternative applies too: either route complies
    small_alt: bool
    #: acres draining to the outlets in all
    total: float
    #: the report entry (``sediment_basin_location``)
    rep: dict[str, Any]


def _basin(c: _Ctx, flow: _Flow) -> _BasinRoute:
    """Sediment basins and traps: the outlets, which need one, and the submitted ones at them. Returns
    what the fence route needs to know of them.
    """
    pr = c.practice("sediment_basin")
    dist = c.m.layers.get("disturbed_area")
    if pr is None or dist is None or not len(dist):
        if pr is not None:
            c.res.report["sediment_basin_location"] = {"required": None, "why": "no disturbance layer"}
        return _BasinRoute()
    d = c.decisions[pr.id]
    c.step("locating sediment basins and traps")
    b = _basin_plan(c, flow, pr, dist)
    c.res.report["sediment_basin_location"] = b.rep
    required = d.met
    # under 10 acres a basin is one route of two: never alone a failure
    route_req = required if not b.small_alt else False
    marked = bool(route_req and c.open("sediment_basin")) if required is not None else None
    c.res.layers["sediment_basins"] = _mark(b.outlets, marked)
    traps = _trap_footprints(c, flow, b, dist)
    c.res.layers["sediment_basin_footprints"] = _mark(traps, marked)
    if len(traps):
        b.rep["trap_footprints"] = _footprint_rep(traps)
        _no_room_finding(c, b, traps)
    if required is None:
        c.res.findings.append(
            c.finding(
                "sediment_basin",
                "sediment_basin_submitted",
                "not_assessed",
                "Whether sediment basins are required is not assessed: "
                + "; ".join(t.message for t in d.conditions if t.met is None)
                + " not assessed.",
            )
        )
    elif required:
        _basin_findings(c, pr, b, bool(route_req))
    return _BasinRoute(
        serves_all=bool(b.served) and all(s["suitable_by"] for s in b.served), alternative_open=b.small_alt
    )


def _trap_footprints(c: _Ctx, flow: _Flow, b: _BasinPlan, dist: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """The footprint of the trap at each outlet of ``b`` needing one (:func:`geosite.controls.place_traps`):
    its DNR 1063 surface area (the profile's sq ft per acre drained), on the site, in the disturbed area
    where it fits, clear of the structures, within ``basin_search_ft`` of the cells where its outlet's
    runoff leaves (the distance within which ``check`` counts a trap as receiving it).
    """
    outlets = b.outlets
    nc = flow.dem.shape[1]
    receives = list(
        to_crs(
            gpd.GeoSeries(
                [
                    shapely.multipoints(np.column_stack(grid.centres(flow.dem, *np.divmod(k, nc))))
                    for k in b.cells
                ],
                crs=flow.dem.crs,
            ),
            outlets.crs,
        )
    )
    structures = c.site.layer("structures")
    ground = controls.TrapGround(
        site=c.site.boundary,
        disturbed=to_crs(dist, outlets.crs).geometry.union_all(),
        structures=(
            to_crs(structures, outlets.crs).geometry.union_all()
            if structures is not None and len(structures)
            else None
        ),
        ft_per_unit=c.site.ft_per_unit,
    )
    per_acre = c.p.value("controls", "sediment_trap_surface_sqft_per_acre")
    return controls.place_traps(
        outlets,
        ground,
        surface_sqft_per_acre=None if per_acre is None else float(per_acre),
        reach_ft=float(c.v("basin_search_ft")),
        receives=receives,
    )


def _no_room_finding(c: _Ctx, b: _BasinPlan, traps: gpd.GeoDataFrame) -> None:
    """The outlets whose trap fits nowhere on the site (``traps``: the footprints of
    :func:`_trap_footprints`) and which no suitable submitted basin or trap serves, in words.
    """
    suited = {s["outlet"] for s in b.served if s["suitable_by"]}
    rows = [t for t in traps.itertuples() if not t.placed and int(t.outlet) not in suited]
    if not rows:
        return
    c.res.findings.append(
        c.finding(
            "sediment_basin",
            "sediment_trap_room",
            "info",
            "; ".join(
                f"Outlet {int(t.outlet)} ({float(t.drainage_acres):,.2f} acres drain there): {t.placement}"
                for t in rows
            )
            + ".",
            values={"outlets": [int(t.outlet) for t in rows]},
        )
    )


def _footprint_rep(traps: gpd.GeoDataFrame) -> list[dict[str, Any]]:
    """The report's ``trap_footprints``: per trap its outlet, surface (sq ft), where it lies, in words."""
    return [
        {
            "outlet": int(r.outlet),
            "surface_sqft": round(float(r.surface_sqft), 1),
            "placed": bool(r.placed),
            "moved_ft": round(float(r.moved_ft), 1) if r.placed else None,
            "in_disturbed": bool(r.in_disturbed),
            "placement": str(r.placement),
        }
        for r in traps.itertuples()
    ]


def _basin_plan(c: _Ctx, flow: _Flow, pr: Requirement, dist: gpd.GeoDataFrame) -> _BasinPlan:
    """The outlets of the disturbed area ``dist`` needing a basin or trap, why (requirement ``pr``'s
    conditions met), and the submitted basins and traps at them.
    """
    d = c.decisions[pr.id]
    reasons = [t.message for t in d.conditions if t.met]
    if not d.conditions:
        reasons = [f"every site the requirement applies to ({pr.citation})"]
    outlets, cells, fringe = _basin_outlets(c, flow, pr, dist)
    # the alternative applies too: either route complies
    small_alt = bool(d.met) and d.either_with is not None
    got = controls.bmps_of(
        c.bmps, tuple(c.p.value("submission", "sediment_basin_types", ["sediment_basin", "sediment_trap"]))
    )
    served = _served(c, flow, got=got, outlets=outlets, cells=cells, dist=dist)
    rep = _basin_rep(outlets, fringe, served, required=d.met, reasons=reasons, small_alt=small_alt)
    return _BasinPlan(
        outlets=outlets,
        cells=cells,
        fringe=fringe,
        served=served,
        got=got,
        reasons=reasons,
        small_alt=small_alt,
        total=rep["drainage_acres"],
        rep=rep,
    )


def _served(
    c: _Ctx,
    flow: _Flow,
    *,
    got: gpd.GeoDataFrame | None,
    outlets: gpd.GeoDataFrame,
    cells: list[Any],
    dist: gpd.GeoDataFrame,
) -> list[controls.OutletService]:
    """Per outlet: its drainage (acres), kind, and the submitted basins (``got``) receiving its runoff or
    suiting it.
    """
    return (
        controls.submitted_at_outlets(
            got, outlets, cells, flow.dem, flow.fg, disturbed=dist, search_ft=float(c.v("basin_search_ft"))
        )
        if got is not None and len(got) and len(outlets)
        else [
            {
                "outlet": int(o),
                "drainage_acres": float(a),
                "disturbed_acres": float(d),
                "kind": k,
                "served_by": [],
                "suitable_by": [],
            }
            for o, a, d, k in zip(
                outlets["outlet"],
                outlets["drainage_acres"],
                outlets["disturbed_acres"],
                outlets["kind"],
                strict=True,
            )
        ]
    )


def _basin_rep(
    outlets: gpd.GeoDataFrame,
    fringe: gpd.GeoDataFrame,
    served: list[controls.OutletService],
    *,
    required: bool | None,
    reasons: list[str],
    small_alt: bool,
) -> dict[str, Any]:
    """The report's ``sediment_basin_location``: the outlets, their drainage (acres), the first one."""
    total = float(outlets["drainage_acres"].sum()) if len(outlets) else 0.0
    rep: dict[str, Any] = {
        "required": required,
        "reasons": reasons,
        "outlets": served,
        "drainage_acres": total,
        "disturbed_acres_at_outlets": float(outlets["disturbed_acres"].sum()) if len(outlets) else 0.0,
        "fringe_outlets": int(len(fringe)),
        "fringe_drainage_acres": float(fringe["drainage_acres"].sum()),
        "either_route": small_alt,
    }
    if len(outlets):
        first = outlets.iloc[0]
        rep.update(
            {
                "located": True,
                "x": float(first.geometry.x),
                "y": float(first.geometry.y),
                "kind": first["kind"],
                "limit": first["limit"],
                "drainage_area_sqft": float(first["drainage_sqft"]),
                "drainage_area_acres": float(first["drainage_acres"]),
            }
        )
    return rep


def _basin_outlets(c: _Ctx, flow: _Flow, pr: Requirement, dist: gpd.GeoDataFrame) -> _Outlets:
    """The outlets needing their own trap or basin, their cells, and the fringe of smaller outlets."""
    thr = float(c.p.value("terrain", "channel_threshold_sqft"))
    trap, basin = (
        float(c.v("sediment_trap_max_drainage_acres")),
        float(c.v("sediment_basin_max_drainage_acres")),
    )
    # which outlets need their own trap or basin: where concentrated runoff leaves (Belgium's reading: each
    # sized by its own catchment), or every outlet draining at least basin_outlet_min_acres (the fringe
    # below that is reported, not required one by one)
    concentrated_only = pr.params.get("outlets", "all") == "concentrated"
    outlets, cells = controls.disturbed_outlets(
        dist,
        flow.dem,
        flow.fg,
        trap_max_acres=trap,
        basin_max_acres=basin,
        channel_threshold_sqft=thr,
        merge_ft=float(c.v("basin_outlet_merge_ft")),
        concentrated_only=concentrated_only,
    )
    keep = outlets["concentrated"].to_numpy(bool) | (
        outlets["drainage_acres"].to_numpy() >= float(c.v("basin_outlet_min_acres"))
    )
    fringe = outlets[~keep]
    cells = [x for x, k in zip(cells, keep, strict=True) if k]
    outlets = outlets[keep].reset_index(drop=True)
    return _Outlets(outlets, cells, fringe)


def _basin_findings(c: _Ctx, pr: Requirement, b: _BasinPlan, route_req: bool) -> None:
    """Where the required basins go, and whether the plan submits one of a suiting kind at each outlet."""
    res, outlets, fringe, served, reasons, rep = c.res, b.outlets, b.fringe, b.served, b.reasons, b.rep
    small_alt, total = b.small_alt, b.total
    where = _basin_where(outlets, served)
    if small_alt:
        what = "Sediment basins or traps are one route"
    elif c.open("sediment_basin"):
        what = "Sediment basins or traps required"
    else:
        what = "Sediment basins or traps"
    res.findings.append(
        c.finding(
            "sediment_basin",
            "sediment_basin_location",
            "info",
            f"{what} ({'; '.join(reasons)}): "
            f"the disturbed area's runoff leaves at {len(outlets)} outlet{'s' if len(outlets) != 1 else ''} "
            f"needing one, draining {total:,.2f} acres "
            f"in all ({where})"
            + (
                f"; {len(fringe)} smaller outlet{'s' if len(fringe) != 1 else ''} drain "
                f"{rep['fringe_drainage_acres']:,.2f} acres more, "
                f"each under {float(c.v('basin_outlet_min_acres')):g} acre"
                if len(fringe)
                else ""
            )
            + ".",
            required=route_req,
            values=rep,
        )
    )
    _basin_submitted(c, pr, b, where)


def _basin_where(outlets: gpd.GeoDataFrame, served: list[controls.OutletService]) -> str:
    """Each outlet as the findings name it: where (site CRS), its drainage (acres), the submitted basins."""
    at = {int(o): (float(g.x), float(g.y)) for o, g in zip(outlets["outlet"], outlets.geometry, strict=True)}
    where = "; ".join(
        f"outlet {s['outlet']} near ({at[s['outlet']][0]:,.0f}, {at[s['outlet']][1]:,.0f}) "
        f"({s['drainage_acres']:,.2f} acres drain there, "
        f"{s['disturbed_acres']:,.2f} of them disturbed): "
        f"{s['kind'].replace('_', ' ')}"
        + (
            f", submitted {', '.join(map(str, s['suitable_by']))}"
            if s["suitable_by"]
            else f"; bmps {', '.join(map(str, s['served_by']))} receive its runoff but do not suit it"
            if s["served_by"]
            else "; none submitted"
        )
        for s in served
    )
    return where


def _basin_submitted(c: _Ctx, pr: Requirement, b: _BasinPlan, where: str) -> None:
    """Whether the plan submits a basin or trap of a kind its drainage suits at each outlet (``where``:
    the outlets as the findings name them).
    """
    res, served, got, reasons, rep, small_alt = c.res, b.served, b.got, b.reasons, b.rep, b.small_alt
    missing = [s for s in served if not s["suitable_by"]]
    reading = f" Reading: {pr.reading}" if pr.reading else ""
    if small_alt:
        status = "pass" if not missing else "info"
        msg = (
            "Submitted basins or traps receive the runoff at every outlet, each of a kind its drainage "
            "suits: "
            f"{pr.citation} is met, so the other route is not required."
            if not missing
            else f"Basins per {pr.citation} would be one way to comply; the plan is judged on the "
            "other route instead "
            f"({len(missing)} outlet{'s' if len(missing) != 1 else ''} without a suitable basin or trap)."
        ) + reading
        res.findings.append(c.finding("sediment_basin", "sediment_basin_submitted", status, msg, values=rep))
        return
    if got is None or not len(got):
        status, msg = (
            "fail",
            f"Sediment basins are required ({'; '.join(reasons)}) but the bmps layer has none: {where}.",
        )
    elif missing:
        upslope = [i for i in map(py_scalar, got["id"]) if not any(i in s["served_by"] for s in served)]
        status = "fail"
        msg = (
            f"{len(missing)} of {len(served)} outlet{'s' if len(served) != 1 else ''} of the disturbed area "
            f"{'has' if len(missing) == 1 else 'have'} no submitted basin or trap of a kind its drainage "
            f"suits ({where})."
            + (
                f" bmps {', '.join(map(str, upslope))} receive none of the disturbed area's runoff."
                if upslope
                else ""
            )
        )
    else:
        status, msg = (
            "pass",
            "Every outlet of the disturbed area has a submitted basin or trap of a kind its drainage suits "
            f"({where}).",
        )
    res.findings.append(
        c.finding(
            "sediment_basin",
            "sediment_basin_submitted",
            status,
            msg + reading,
            required=True,
            values=rep,
            feature_ids=[py_scalar(i) for i in got["id"]] if got is not None else [],
        )
    )


# --------------------------------------------------------------------------------------------- stockpiles


def _stockpiles(c: _Ctx, flow: _Flow, chan: gpd.GeoDataFrame | None) -> None:
    """Stockpiles: their setbacks from downslope roads and waters, their fences and stabilization."""
    site, res = c.site, c.res
    piles = site.layer("stockpiles")
    setback_pr, fence_pr, stab_pr = (
        c.practice("stockpile_setback"),
        c.practice("stockpile_fence"),
        c.practice("stockpile_stabilization"),
    )
    if piles is None:
        res.report["stockpiles"] = []
        return
    c.step("checking stockpile setbacks")
    setback = float(setback_pr.param("setback_ft")) if setback_pr is not None else 0.0
    rep, zones, fences = controls.stockpile_setbacks(
        piles,
        _setback_features(c, setback_pr, chan),
        flow.dem,
        flow.fg,
        min_setback_ft=setback,
        trace_ft=float(c.v("stockpile_trace_ft")),
        tolerance_deg=float(c.v("fence_sideslope_tolerance_deg")),
        hook_ft=float(c.v("fence_hook_ft")) if fence_pr and fence_pr.params.get("hooks", False) else 0.0,
        reach_tolerance_ft=float(c.v("stockpile_reach_tolerance_ft")),
        downslope_only=bool(setback_pr.params.get("downslope_only", True))
        if setback_pr is not None
        else True,
        fence_side=str(fence_pr.params.get("side", "downslope")) if fence_pr is not None else "downslope",
    )
    if setback_pr is not None:
        res.layers["stockpile_setbacks"] = _mark(zones, c.open("stockpile_setback"))
    if fence_pr is not None:
        res.layers["stockpile_fences"] = _mark(fences, c.open("stockpile_fence"))
    _pile_measures(piles, rep, site.ft_per_unit)
    for r in rep:
        r["stabilization_required"] = _pile_needs(c, stab_pr, r)
    res.report["stockpiles"] = [{k: v for k, v in r.items() if k != "features"} for r in rep]
    extra = _extra_bmps(c.bmps)
    for r in rep:
        _pile_setback(c, r, setback, extra)
        if setback_pr is not None:
            _pile_upslope(c, r)
        if stab_pr is not None:
            _pile_stabilization(c, stab_pr, r)
    if fence_pr is None:
        return
    _pile_fences(c, flow, fences)


def _pile_upslope(c: _Ctx, r: controls.PileReport) -> None:
    """The features within the setback of pile ``r`` that are not downslope of it: information only."""
    for f in r["near_upslope"]:
        c.res.findings.append(
            c.finding(
                "stockpile_setback",
                "stockpile_setback_upslope",
                "info",
                f"Stockpile {r['id']} is {f['distance_ft']:,.1f} ft from {_feature_name(f)}, which "
                "is not downslope of it (no setback required).",
                feature_ids=[r["id"]],
            )
        )


def _setback_features(
    c: _Ctx, setback_pr: Requirement | None, chan: gpd.GeoDataFrame | None
) -> dict[str, gpd.GeoDataFrame | None]:
    """The layers piles keep their setback from (the requirement's ``to``), by layer name."""
    kinds = (
        tuple(setback_pr.param("to"))
        if setback_pr is not None
        else (*controls.FEATURE_LAYERS, controls.DEM_CHANNELS)
    )
    features = {k: c.site.layer(k) for k in kinds if k != controls.DEM_CHANNELS}
    if chan is not None and len(chan) and controls.DEM_CHANNELS in kinds:
        # drainage channels traced on the DEM count as much as drawn ones
        features[controls.DEM_CHANNELS] = chan
    return features


def _pile_setback(c: _Ctx, r: controls.PileReport, setback: float, extra: dict[Any, str]) -> None:
    """Pile ``r``'s setback (``setback`` ft) from the roads and waters downslope of it; ``extra`` the BMPs
    the plan ties to each pile.
    """
    setback_pr = c.practice("stockpile_setback")
    res = c.res
    nf = r["nearest_feature"]
    name = _feature_name(nf, r["features"]) if nf else ""
    if setback_pr is None:
        down = [f for f in r["features"] if f["downslope"]]
        if down:
            f0 = down[0]
            res.findings.append(
                Finding(
                    "stockpile_downslope",
                    "",
                    "",
                    "info",
                    f"Stockpile {r['id']} is {f0['distance_ft']:,.1f} ft from downslope "
                    f"{_feature_name(f0, down)}: "
                    "a setback distance from roads and waters is not specified by this chapter.",
                    values={"distance_ft": f0["distance_ft"]},
                    feature_ids=[r["id"]],
                )
            )
    elif r["violation"] and _pile_needs(c, setback_pr, r) is not False:
        more = _pile_extras(text=r["extra_bmps"], drawn=extra.get(r["id"]))
        _pile_too_close(c, setback_pr, r, setback, name=name, more=more)
    elif r.get("undecided"):
        _pile_undecided(c, r, setback)
    else:
        res.findings.append(
            c.finding(
                "stockpile_setback",
                "stockpile_setback",
                "pass",
                f"Stockpile {r['id']}: "
                + (
                    f"nearest downslope feature {r['min_setback_ft']:,.1f} ft away ({name})."
                    if r["min_setback_ft"] is not None
                    else "no road, lake, stream, wetland or drainage channel downslope."
                ),
                values={"min_setback_ft": r["min_setback_ft"]},
                feature_ids=[r["id"]],
            )
        )


def _pile_undecided(c: _Ctx, r: controls.PileReport, setback: float) -> None:
    """Pile ``r`` has features within the setback (``setback`` ft) whose place downslope or not the DEM
    cannot tell (no heights at the pile's edge or at the feature): not assessed, never a pass.
    """
    near = ", ".join(f"{_feature_name(f)} at {f['distance_ft']:,.1f} ft" for f in r["undecided"])
    c.res.findings.append(
        c.finding(
            "stockpile_setback",
            "stockpile_setback",
            "not_assessed",
            f"Stockpile {r['id']}: within {float(setback):g} ft of {near}; the DEM has no heights at the "
            "pile's edge or at the feature and the pile's flow does not reach it, so whether it is downslope "
            "cannot be told.",
            required=True,
            feature_ids=[r["id"]],
        )
    )


def _pile_too_close(
    c: _Ctx, setback_pr: Requirement, r: controls.PileReport, setback: float, *, name: str, more: Any
) -> None:
    """Pile ``r`` closer than ``setback`` ft to ``name`` downslope: the inspector's decision when the plan
    says
    why and what more it does (``more``), else a failure.
    """
    reason = r["setback_reason"]
    if not setback_pr.params.get("wherever_possible", True):
        reason = None  # the chapter sets the setback without "wherever possible": a closer pile fails
    base = (
        f"Stockpile {r['id']} is {r['min_setback_ft']:,.1f} ft from downslope {name}; piles are to be "
        f"{float(setback):g} ft from "
        "any downslope road, lake, stream, wetland or drainage channel wherever possible."
    )
    if reason and more:
        c.res.findings.append(
            c.finding(
                "stockpile_setback",
                "stockpile_setback",
                "inspector_decision",
                f'{base} The plan says why {float(setback):g} ft is not possible ("{reason}") and what more '
                "it does there "
                f"({more}): {setback_pr.citation} leaves piles closer than {float(setback):g} ft to the "
                f"{c.p.official}, "
                "who may require additional or different BMPs. The inspector's decision.",
                required=True,
                values={"min_setback_ft": r["min_setback_ft"], "setback_reason": reason, "extra_bmps": more},
                feature_ids=[r["id"]],
            )
        )
        return
    lack = "why it is not possible (the pile's setback_reason)" if not reason else ""
    told = r["extra_bmps"] and c.bmps is not None
    lack += (" and " if lack and not more else "") + (
        (
            f'what more it does there (its extra_bmps says "{r["extra_bmps"]}", but no bmps feature carries '
            "the pile's pile_id)"
            if told
            else "what more it does there (extra_bmps)"
        )
        if not more
        else ""
    )
    c.res.findings.append(
        c.finding(
            "stockpile_setback",
            "stockpile_setback",
            "fail",
            (
                f"{base} The plan does not say {lack}, so {setback_pr.citation}'s 'wherever possible' is not "
                "shown."
                if setback_pr.params.get("wherever_possible", True)
                else f"{base} ({setback_pr.citation}: no exception.)"
            ),
            required=True,
            values={"min_setback_ft": r["min_setback_ft"]},
            feature_ids=[r["id"]],
        )
    )


def _pile_fences(c: _Ctx, flow: _Flow, fences: gpd.GeoDataFrame) -> None:
    """The submitted fences along the downslope side of each pile (``fences``: the ones geosite places)."""
    res, bmps = c.res, c.bmps
    if bmps is None:
        res.findings.append(
            c.finding(
                "stockpile_fence",
                "stockpile_fence",
                "not_assessed",
                "No bmps layer submitted: the fences on the downslope side of the piles cannot be checked.",
            )
        )
        return
    tol = float(c.v("fence_cover_tolerance_ft"))
    on_site = flow.on_site(c.site)
    missing = []
    for pid in sorted({py_scalar(p) for p in fences["pile_id"]}, key=str):
        need = fences[(fences["pile_id"] == pid) & (fences["length_ft"] > 0)].copy()
        cov, _gaps = controls.fence_coverage(
            need.rename(columns={"pile_id": "polygon_id"}),
            bmps,
            tolerance_ft=tol,
            min_gap_ft=float(c.v("stockpile_fence_min_gap_ft")),
            flow=on_site,
            reach_ft=float(c.v("fence_intercept_reach_ft")),
        )
        covered = cov["gap_length_ft"] <= 0.0
        for r in res.report["stockpiles"]:
            if r["id"] == pid:
                r["downslope_fence_submitted"] = covered
        if not covered:
            missing.append(pid)
    res.findings.append(
        c.finding(
            "stockpile_fence",
            "stockpile_fence",
            "fail" if missing else "pass",
            "No straw bale or filter fabric fence along the downslope side of "
            f"stockpile{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}."
            if missing
            else "Every stockpile has a fence along its downslope side (no end hooks are asked for).",
            required=True,
            feature_ids=missing,
        )
    )


def _pile_measures(piles: gpd.GeoDataFrame, rep: list[controls.PileReport], ft_per_unit: float) -> None:
    """Each pile's own measures, for requirements written ``for_each`` pile (rules.registry.FEATURE_MEASURES):
    days, area, height, volume (the layer's volume_cy, else area x height), distance to the nearest
    feature downslope.
    """
    for i, r in enumerate(rep):
        area = float(piles.geometry.iloc[i].area) * ft_per_unit**2
        height = controls.number_at(piles, i, "height_ft")
        volume = controls.number_at(piles, i, "volume_cy")
        if volume is None and height is not None:
            volume = area * height / 27.0  # cu ft -> cu yd
        r.update(
            {
                "area_sqft": area,
                "height_ft": height,
                "volume_cy": volume,
                "downslope_distance_ft": r["min_setback_ft"],
            }
        )


def _pile_needs(c: _Ctx, q: Requirement | None, r: controls.PileReport) -> bool | None:
    """Whether requirement ``q`` (written for each pile) applies to pile ``r`` (None: not decided)."""
    if q is None:
        return False
    t = feature_applies(c.p, q, r)
    return True if t is None else t.met


def _pile_stabilization(c: _Ctx, q: Requirement, r: controls.PileReport) -> None:
    """B(6)(e)-style: a pile that meets the requirement's conditions (kept over 30 days) has its stabilization
    in the plan: the pile's ``stabilization`` attribute, or a bmps feature of a stabilization type with its
    ``pile_id``.
    """
    res, bmps = c.res, c.bmps
    need = r["stabilization_required"]
    if need is False:
        return
    why = feature_applies(c.p, q, r)
    because = f" ({why.message})" if why is not None else ""
    if need is None:
        res.findings.append(
            c.finding(
                "stockpile_stabilization",
                "stockpile_stabilization",
                "not_assessed",
                f"Stockpile {r['id']}: whether it must be stabilized is not assessed{because}.",
                required=None,
                feature_ids=[r["id"]],
            )
        )
        return
    types = tuple(c.v("stabilization_types"))
    tied = (
        []
        if bmps is None or "pile_id" not in bmps.columns
        else [
            py_scalar(i)
            for i, p, t in zip(bmps["id"], bmps["pile_id"], bmps.get("type", [""] * len(bmps)), strict=True)
            if py_scalar(p) == r["id"] and str(t) in types
        ]
    )
    said = r.get("stabilization")
    ok = bool(said) or bool(tied)
    how = (
        f"the plan stabilizes it: {said}"
        if said
        else f"bmps {', '.join(map(str, tied))} stabilize it"
        if tied
        else ""
    )
    res.findings.append(
        c.finding(
            "stockpile_stabilization",
            "stockpile_stabilization",
            "pass" if ok else "fail",
            f"Stockpile {r['id']}{because}: {how}."
            if ok
            else f"Stockpile {r['id']}{because}: the plan does not stabilize it ({q.requires}; "
            "give the pile a "
            "'stabilization' attribute or a stabilization bmps feature with its pile_id).",
            required=True,
            feature_ids=[r["id"]],
        )
    )


def _feature_name(
    f: controls.NearestFeature | controls.FeatureNear, among: list[controls.FeatureNear] | None = None
) -> str:
    """A feature as the findings name it; a channel traced on the DEM also names the nearest drawn
    downslope feature of ``among`` (often the same creek, drawn).
    """
    if f["layer"] != controls.DEM_CHANNELS:
        return f"{f['layer']} {f['id']}"
    drawn = next((g for g in among or [] if g["downslope"] and g["layer"] != controls.DEM_CHANNELS), None)
    also = f"; {drawn['layer']} {drawn['id']} is {drawn['distance_ft']:,.1f} ft away" if drawn else ""
    return f"drainage channel {f['id']} (traced on the DEM{also})"


def _pile_extras(*, text: str | None, drawn: str | None) -> str | None:
    """What more a plan does at a pile closer than the setback: what it says (the pile's ``extra_bmps``
    ``text``, which may name what no layer draws, a tarp) and what it draws for the pile (``drawn``:
    bmps features with its ``pile_id``); None when it does neither.
    """
    return "; ".join(v for v in (drawn, text) if v) or None


def _extra_bmps(bmps: gpd.GeoDataFrame | None) -> dict[Any, str]:
    """BMPs the plan ties to a pile (a ``pile_id`` attribute): pile id -> "bmps 7 (silt_fence), ..."."""
    if bmps is None or "pile_id" not in bmps.columns:
        return {}
    out: dict[Any, list[str]] = {}
    for i, pid, t in zip(
        bmps["id"], bmps["pile_id"], bmps["type"] if "type" in bmps.columns else [""] * len(bmps), strict=True
    ):
        if pid is None or (isinstance(pid, float) and pid != pid):
            continue
        out.setdefault(py_scalar(pid), []).append(f"bmps {py_scalar(i)} ({t})")
    return {k: ", ".join(v) for k, v in out.items()}


# --------------------------------------------------------------------------------------------- inlets


def _inlets(c: _Ctx, dem: Dem | None, fg: FlowGrid | None) -> None:
    """Storm drain inlets: which need protection (on the site, near it, or reached by its runoff), and
    whether the plan protects them.
    """
    site, res, bmps, step = c.site, c.res, c.bmps, c.step
    pr = c.practice("inlet_protection")
    inlets = site.layer("storm_inlets")
    if pr is None:
        return
    if inlets is None:
        res.report["inlets"] = []
        return
    step("checking storm drain inlets")
    which = str(pr.param("which"))
    limit = float(c.v("inlet_protection_max_drainage_acres"))
    out = controls.inlet_protection(
        inlets,
        site.disturbed,
        dem,
        fg,
        max_drainage_acres=limit,
        site=site.boundary,
        adjacent_ft=float(c.v("inlet_adjacent_ft")) if which == "all" else None,
        which=which,
    )
    out["protected"] = controls.protected(out, bmps, ("inlet_protection",), float(c.v("inlet_search_ft")))
    req = out["protection_required"]
    state = c.open("inlet_protection")
    res.layers["inlet_protection"] = _mark(out[req.fillna(False).astype(bool)], state)
    res.report["inlets"] = _inlet_report(out, bmps)
    scope = (
        "on the site, within {:g} ft of it, or reached by its runoff".format(float(c.v("inlet_adjacent_ft")))
        if which == "all"
        else "in the disturbed area or receiving its runoff"
    )
    need = out[req.fillna(False).astype(bool)]
    _inlets_not_required(c, pr, out, scope)
    if not len(need):
        return
    _inlets_submitted(c, pr, need, scope, limit)


def _inlet_report(out: gpd.GeoDataFrame, bmps: gpd.GeoDataFrame | None) -> list[dict[str, Any]]:
    """The report's entry per inlet: where it is, whether it needs protection and has it."""
    return [
        {
            "id": py_scalar(r["id"]),
            "on_site": bool(r["on_site"]),
            "adjacent": bool(r["adjacent"]),
            "in_disturbed": bool(r["in_disturbed"]),
            "downslope_of_disturbed": r["downslope_of_disturbed"],
            "protection_required": r["protection_required"],
            "drainage_area_acres": py_scalar(r["drainage_area_acres"]),
            "trap_or_basin_required": bool(r["trap_or_basin_required"]),
            "protection_submitted": bool(r["protected"]) if bmps is not None else None,
        }
        for _, r in out.iterrows()
    ]


def _inlets_not_required(c: _Ctx, pr: Requirement, out: gpd.GeoDataFrame, scope: str) -> None:
    """The inlets the requirement does not reach (``scope``), and those it is not known to."""
    res, bmps = c.res, c.bmps
    req = out["protection_required"]
    unknown = out[req.isna()]
    free = out[req.apply(lambda v: v is False)]
    if len(free):
        ids = [py_scalar(i) for i in free["id"]]
        res.findings.append(
            c.finding(
                "inlet_protection",
                "inlet_protection_not_required",
                "info",
                f"Storm drain inlet(s) {', '.join(map(str, ids))} are not {scope}: {pr.citation} does not "
                "ask for their "
                "protection"
                + (" (protected anyway)." if free["protected"].all() and bmps is not None else "."),
                feature_ids=ids,
            )
        )
    if len(unknown):
        res.findings.append(
            c.finding(
                "inlet_protection",
                "inlet_protection_unknown",
                "not_assessed",
                f"Storm drain inlet(s) {', '.join(str(py_scalar(i)) for i in unknown['id'])}: whether the "
                "disturbed area's runoff "
                "reaches them is not assessed (no DEM heights there).",
                feature_ids=[py_scalar(i) for i in unknown["id"]],
            )
        )


def _inlets_submitted(c: _Ctx, pr: Requirement, need: gpd.GeoDataFrame, scope: str, limit: float) -> None:
    """The submitted protection at each inlet that needs it (``limit``: acres one protection serves)."""
    res, bmps = c.res, c.bmps
    ids = [py_scalar(i) for i in need["id"]]
    if bmps is None:
        res.findings.append(
            c.finding(
                "inlet_protection",
                "inlet_protection_submitted",
                "not_assessed",
                f"{len(need)} inlet(s) need protection ({pr.citation}: {scope}); no bmps layer submitted.",
                required=True,
                feature_ids=ids,
            )
        )
        return
    bad = need[~need["protected"]]
    res.findings.append(
        c.finding(
            "inlet_protection",
            "inlet_protection_submitted",
            "fail" if len(bad) else "pass",
            f"Storm drain inlet(s) {', '.join(str(py_scalar(i)) for i in bad['id'])} without inlet "
            "protection within "
            f"{float(c.v('inlet_search_ft')):g} ft ({pr.citation}: every inlet {scope})."
            if len(bad)
            else f"Every storm drain inlet {scope} is protected ({len(need)}: {', '.join(map(str, ids))}).",
            required=True,
            feature_ids=[py_scalar(i) for i in bad["id"]],
        )
    )
    big = need[need["trap_or_basin_required"]]
    if len(big):
        res.findings.append(
            c.finding(
                "inlet_protection",
                "inlet_drainage",
                "info",
                f"Inlet(s) {', '.join(str(py_scalar(i)) for i in big['id'])} drain more than {limit:g} acre: "
                "DNR 1060 protection is for "
                "1 acre or less, so a sediment trap or basin upstream as well (the kind of protection, not "
                "whether).",
                feature_ids=[py_scalar(i) for i in big["id"]],
            )
        )


# --------------------------------------------------------------------------------------------- tracking


def _tracking(c: _Ctx) -> None:
    """Tracking pads at each entrance where vehicles leave the site onto a road."""
    site, res, step = c.site, c.res, c.step
    pr = c.practice("tracking_pad")
    if pr is None:
        return
    drives, roads = site.layer("access_drives"), site.layer("roads")
    if roads is None:
        res.report["tracking"] = {"entrances": [], "why": "no roads layer"}
        return
    if drives is None:
        _tracking_without_drives(c, pr, roads)
        return
    step("placing tracking pads")
    rule = controls.PadRule(
        min_length_ft=float(c.v("tracking_pad_min_length_ft")),
        min_width_ft=float(c.v("tracking_pad_min_width_ft")),
        search_ft=float(c.v("tracking_pad_search_ft")),
    )
    ent, pads = controls.tracking_pads(drives, roads, rule, site.layer("bmps"))
    res.layers["tracking_pads"] = _mark(pads, c.open("tracking_pad"))
    res.report["tracking"] = {"entrances": ent, "min_pad_length_ft": rule.min_length_ft}
    if not ent:
        return
    kinds = {True: "public", False: "private", None: "public or private"}
    for e in ent:
        res.findings.append(
            c.finding(
                "tracking_pad",
                "tracking_pad",
                "pass" if e["submitted_pad"] else "fail",
                _pad_message(e, kinds[e["road_public"]]),
                required=True,
                values={
                    k: e[k]
                    for k in (
                        "required_length_ft",
                        "drive_width_ft",
                        "drawn_pad_length_ft",
                        "drawn_pad_width_ft",
                    )
                },
                feature_ids=[] if e["submitted_pad"] else [e["drive_id"]],
            )
        )


def _tracking_without_drives(c: _Ctx, pr: Requirement, roads: gpd.GeoDataFrame) -> None:
    """No access_drives layer: where the disturbed area meets a road, the entrances are not assessed."""
    site = c.site
    c.res.report["tracking"] = {"entrances": [], "why": "no access_drives layer"}
    touch = site.disturbed is not None and bool(
        site.disturbed.buffer(1.0 / site.ft_per_unit).intersects(roads.geometry.union_all())
    )
    if touch:
        c.res.findings.append(
            c.finding(
                "tracking_pad",
                "tracking_pad",
                "not_assessed",
                "The disturbed area meets a road but no access_drives layer says where vehicles leave "
                "the site: each entrance "
                f"needs a tracking pad ({pr.citation}, DNR 1057).",
                required=True,
            )
        )


def _pad_message(e: controls.Entrance, kind: str) -> str:
    """What the plan's pad at one entrance is, against DNR 1057 as the requirement reads it."""
    where = f"Drive {e['drive_id']} onto {kind} road {e['road_id']}"
    need = (
        f"{e['required_length_ft']:,.0f} ft along the drive from the road and "
        f"{e['drive_width_ft']:,.0f} ft wide (the drive's width)"
    )
    if e["submitted_pad"]:
        got = (
            f"{e['drawn_pad_length_ft']:,.0f} ft along the drive, {e['drawn_pad_width_ft']:,.0f} ft wide"
            if e["drawn_pad_length_ft"] is not None
            else f"{e['pad_length_ft']:,.0f} ft declared on the drive"
        )
        return f"{where}: tracking pad {got}; DNR 1057 asks {need}."
    if e["drawn_pad_length_ft"] is None:
        return f"{where}: no tracking pad; DNR 1057 asks {need}."
    return (
        f"{where}: the drawn pad runs {e['drawn_pad_length_ft']:,.0f} ft along the drive and is "
        f"{e['drawn_pad_width_ft']:,.0f} ft "
        f"wide; DNR 1057 asks {need}."
    )


# --------------------------------------------------------------------------------------------- diversions


def _diversions(c: _Ctx, flow: _Flow) -> None:
    """Diversions above disturbed areas that sheetflow from upslope reaches, and the submitted ones."""
    site, res, step, dem, fg = c.site, c.res, c.step, flow.dem, flow.fg
    pr = c.practice("sheetflow_diversion")
    dist = site.layer("disturbance")
    if pr is None:
        return
    if dist is None:
        res.report["diversions"] = []
        return
    step("proposing diversions")
    given = c.m.values.get("hydrology.upslope")
    upslope = {d.get("disturbance_id", d.get("id")): d for d in given} if isinstance(given, list) else None
    parts = site.disturbed_parts  # measured per connected part, as the hydrology stage measured them
    polys = gpd.GeoDataFrame({"id": [p[0] for p in parts]}, geometry=[p[2] for p in parts], crs=site.crs)
    out, lines = controls.diversions(
        polys,
        dem,
        fg,
        area_sqft=float(pr.param("adjacent_area_sqft")),
        velocity_fps=float(pr.param("velocity_fps")),
        rain_in=c.p.storm_in(pr.param("storm")),
        upslope=upslope,
        channel_threshold_sqft=float(c.p.value("terrain", "channel_threshold_sqft")),
        offset_ft=float(c.v("diversion_offset_ft")),
        tolerance_deg=float(c.v("fence_sideslope_tolerance_deg")),
        min_run_ft=float(c.v("fence_min_run_ft")),
    )
    res.report["diversions"] = out
    state = c.open("sheetflow_diversion")
    res.layers["diversions"] = _mark(lines, state)
    need = [d["id"] for d in out if d["required"]]
    if not need:
        return
    res.findings.append(
        c.finding(
            "sheetflow_diversion",
            "sheetflow_diversion_location",
            "info",
            f"Diversion proposed above disturbed area(s) {', '.join(map(str, need))} "
            f"({lines['length_ft'].sum():,.0f} ft along their upslope edges).",
            required=True,
            feature_ids=need,
        )
    )
    if not len(lines):
        return
    _diversions_submitted(c, pr, lines, need)


def _diversions_submitted(c: _Ctx, pr: Requirement, lines: gpd.GeoDataFrame, need: list[Any]) -> None:
    """The submitted diversions along the ones geosite proposes (``lines``, above areas ``need``)."""
    site, res, bmps = c.site, c.res, c.bmps
    fpu = site.ft_per_unit
    tol = float(c.p.value("submission", "diversion_cover_tolerance_ft"))
    want = shapely.union_all(lines.geometry.values)
    need_len = want.length * fpu
    got = controls.bmps_of(bmps, ("diversion",))
    gap = (
        want
        if got is None or not len(got)
        else shapely.difference(want, shapely.union_all(got.geometry.values).buffer(tol / fpu))
    )
    gap_len = gap.length * fpu if not gap.is_empty else 0.0
    area_ft2, v_fps = float(pr.param("adjacent_area_sqft")), float(pr.param("velocity_fps"))
    vals = {"required_length_ft": need_len, "gap_length_ft": gap_len}
    if gap_len <= 0.1 * need_len:
        res.findings.append(
            c.finding(
                "sheetflow_diversion",
                "sheetflow_diversion_submitted",
                "pass",
                f"Submitted diversions cover the {need_len:,.0f} ft proposed above the disturbed areas.",
                values=vals,
            )
        )
        return
    res.findings.append(
        c.finding(
            "sheetflow_diversion",
            "sheetflow_diversion_submitted",
            "fail",
            f"No submitted diversion along {gap_len:,.0f} ft of the {need_len:,.0f} ft geosite proposes "
            "above the disturbed areas "
            f"(sheetflow from more than {area_ft2:,.0f} sq ft reaching them at {v_fps:g} ft/s or more across "
            "the disturbed area).",
            values=vals,
            feature_ids=need,
        )
    )


# ------------------------------------------------------------------------------ plan checks without placement


def _dewatering(c: _Ctx) -> None:
    """B(1)-style: when dewatering is declared, the plan names what treats the pumped water (a bmps feature
    of one of ``[controls] dewatering_types``).
    """
    res, bmps = c.res, c.bmps
    q, d = c.practice("dewatering"), c.decision("dewatering")
    if q is None or d is None or not d.met:
        return
    types = tuple(c.v("dewatering_types"))
    got = controls.bmps_of(bmps, types)
    if bmps is None:
        res.findings.append(
            c.finding(
                "dewatering",
                "dewatering_submitted",
                "not_assessed",
                f"Dewatering is declared: {q.requires}; no bmps layer submitted to show what treats it.",
                required=True,
            )
        )
        return
    ids = [py_scalar(i) for i in got["id"]] if got is not None and len(got) else []
    res.findings.append(
        c.finding(
            "dewatering",
            "dewatering_submitted",
            "pass" if ids else "fail",
            f"Dewatering is declared and bmps {', '.join(map(str, ids))} treat the pumped water."
            if ids
            else "Dewatering is declared but the plan names nothing to treat the pumped water "
            f"({q.requires}; a bmps "
            f"feature of type {', '.join(types)}).",
            required=True,
            feature_ids=ids,
        )
    )


class _Timing(NamedTuple):
    """The disturbance polygons by when they are stabilized: too late (id, end, stabilized dates),
    without a date to tell, in time, and dated stabilized before their work ends (id, end, date: a date
    that cannot be the stabilization of ground gone inactive).
    """

    late: list[tuple[Any, Any, Any]]
    undated: list[Any]
    in_time: list[Any]
    early: list[tuple[Any, Any, Any]]


def _inactive_stabilization(c: _Ctx) -> None:
    """B(6)(c)[1]-style: each disturbance polygon is stabilized within the requirement's days of its end
    (its ``stabilized`` date, or the install date of a stabilization bmps feature over it).
    """
    q = c.practice("inactive_stabilization")
    dist = c.site.layer("disturbance")
    if q is None or dist is None or not len(dist):
        return
    days = int(q.param("days"))
    timing = _stabilization_timing(dist, controls.bmps_of(c.bmps, tuple(c.v("stabilization_types"))), days)
    found = _stabilization_findings(timing, days, q.requires)
    for status, message, ids in found:
        c.res.findings.append(
            c.finding(
                "inactive_stabilization",
                "inactive_stabilization_submitted",
                status,
                message,
                required=True,
                feature_ids=ids,
            )
        )


def _bmp_removal(c: _Ctx) -> None:
    """B(6)(f)-style: temporary BMPs removed after the site is stabilized, read from each bmps feature's
    ``remove`` date against the stabilization of the ground it serves (the disturbance polygon nearest
    it: every polygon at the least distance). Stabilization features stay and are not judged; a BMP or
    ground without the dates is left to the schedule and B(6)(c)[1] findings that ask for them.
    """
    q = next((r for r in c.p.requirements if r.provision == "bmp_removal"), None)
    dist, bmps = c.site.layer("disturbance"), c.bmps
    if q is None or dist is None or not len(dist) or bmps is None or "remove" not in bmps.columns:
        return
    kept = set(c.v("stabilization_types")) if c.p.value("controls", "stabilization_types") else set()
    stab = controls.bmps_of(bmps, tuple(kept)) if kept else None
    ends = dist["end"] if "end" in dist.columns else [None] * len(dist)
    ready = [_stabilized_on(dist, i, stab, e) for i, e in enumerate(ends)]
    early: list[Any] = []
    judged = 0
    for fid, kind, gone, g in zip(bmps["id"], bmps["type"], bmps["remove"], bmps.geometry, strict=True):
        if kind in kept or gone is None or gone != gone:
            continue
        d = dist.geometry.distance(g)
        served = [r for r, x in zip(ready, d, strict=True) if x <= d.min() + 1e-9]
        if None in served:
            continue
        judged += 1
        if gone < max(served):
            early.append(py_scalar(fid))
    if not judged:
        return
    f = Finding(
        rule="bmp_removal_submitted",
        citation=q.citation,
        section=c.p.section_name(q.section),
        status="fail" if early else "pass",
        message=(
            f"bmps {', '.join(map(str, early))}: removed before the ground they serve is stabilized "
            f"({q.requires}; each feature's remove date against the stabilized date of the disturbance "
            "nearest it)."
            if early
            else f"Every temporary BMP is removed on or after the stabilization of the ground it serves "
            f"({judged} features with dates)."
        ),
        required=True,
        feature_ids=early,
    )
    c.res.findings.append(c.gate.apply(f, q.gate))


def _stabilization_findings(timing: _Timing, days: int, requires: str) -> list[tuple[str, str, list[Any]]]:
    """The B(6)(c)[1] findings of a plan's stabilization ``timing`` (``days``: the requirement's days),
    each (status, message, the areas concerned).
    """
    late, undated, ok, early = timing
    found: list[tuple[str, str, list[Any]]] = []  # status, message, the areas concerned
    if early:
        found.append(
            (
                "fail",
                "Disturbed ground dated stabilized before its work ends, so the plan shows no stabilization "
                f"within {days} days of the ground going inactive: "
                + "; ".join(
                    f"area {f} ends {e.isoformat()}, 'stabilized' {w.isoformat()}" for f, e, w in early
                )
                + f" ({requires}).",
                [f for f, _e, _w in early],
            )
        )
    if late:
        found.append(
            (
                "fail",
                "Disturbed ground stabilized more than "
                f"{days} days after its work ends: "
                + "; ".join(
                    f"area {f} ends {e.isoformat()}, stabilized {w.isoformat()} ({(w - e).days} days)"
                    for f, e, w in late
                )
                + f" ({requires}).",
                [f for f, _e, _w in late],
            )
        )
    if undated:
        found.append(
            (
                "not_assessed",
                f"Disturbance area(s) {', '.join(map(str, undated))}: no end date or no stabilization date, "
                "so whether the "
                f"ground is stabilized within {days} days of going inactive cannot be told ({requires}).",
                undated,
            )
        )
    if ok and not late and not undated and not early:
        found.append(
            (
                "pass",
                f"Every disturbance area is stabilized within {days} days of its end ({len(ok)} areas).",
                [],
            )
        )
    return found


def _stabilization_timing(dist: gpd.GeoDataFrame, stab: gpd.GeoDataFrame | None, days: int) -> _Timing:
    """Each disturbance polygon of ``dist`` by whether it is stabilized within ``days`` days of its end
    (``stab``: the plan's stabilization features).
    """
    timing = _Timing([], [], [], [])
    for i in range(len(dist)):
        fid = py_scalar(dist["id"].iloc[i]) if "id" in dist.columns else i + 1
        end = dist["end"].iloc[i] if "end" in dist.columns else None
        when = _stabilized_on(dist, i, stab, end)
        if end is None or when is None:
            timing.undated.append(fid)
        elif when < end:
            timing.early.append((fid, end, when))
        elif (when - end).days > days:
            timing.late.append((fid, end, when))
        else:
            timing.in_time.append(fid)
    return timing


def _stabilized_on(dist: gpd.GeoDataFrame, i: int, stab: gpd.GeoDataFrame | None, end: Any) -> Any:
    """The date disturbance polygon ``i`` is stabilized: its ``stabilized`` attribute, else the latest install
    date of stabilization features covering most of it installed on or after its ``end`` (mulch laid
    while the ground is worked controls erosion then; it is not the stabilization of ground gone
    inactive); None when the plan gives none.
    """
    v = dist["stabilized"].iloc[i] if "stabilized" in dist.columns else None
    if v is not None:
        return v
    if stab is None or not len(stab) or "install" not in stab.columns:
        return None
    g = dist.geometry.iloc[i]
    over = [
        d
        for d, s in zip(stab["install"], stab.geometry, strict=True)
        if d is not None
        and (end is None or d >= end)
        and s.geom_type.endswith("Polygon")
        and s.intersection(g).area >= 0.5 * g.area
    ]
    return max(over) if over else None


def _channelized_inflows(c: _Ctx, flow: _Flow) -> None:
    """B(6)(a)-style channelized runoff from adjacent areas: diverted (a submitted diversion within the
    profile's cover tolerance of each channelized entry), or else its channel protected by the channel-edge
    fences of the requirement's alternative, judged on their own: B(6)(a) asks for them whichever route
    B(6)(c) takes, so a basin route that closes the perimeter fences does not close these.
    """
    site, res, bmps = c.site, c.res, c.bmps
    q, d = c.practice("channelized_diversion"), c.decision("channelized_diversion")
    if q is None or d is None or not d.met:
        return
    entries = c.m.layers.get("upslope_entry_points")
    pts = (
        entries[entries["channelized"].astype(bool)]
        if entries is not None and "channelized" in entries.columns
        else None
    )
    if bmps is None or pts is None or not len(pts):
        res.findings.append(
            c.finding(
                "channelized_diversion",
                "channelized_diversion_submitted",
                "not_assessed",
                f"Channelized runoff enters the disturbed area: {q.requires}; "
                + ("no bmps layer submitted." if bmps is None else "its entry points are not located."),
                required=True,
            )
        )
        return
    tol = float(c.p.value("submission", "diversion_cover_tolerance_ft")) / site.ft_per_unit
    div = controls.bmps_of(bmps, ("diversion",))
    near = div is not None and len(div) and all(div.distance(p).min() <= tol for p in pts.geometry)
    protected = not near and _channel_edges_covered(c, flow)
    status = "pass" if near or protected else "fail"
    how = (
        "submitted diversions at every channelized inflow"
        if near
        else "the channel is protected by the channel-edge fences instead (B(6)(c)[3], the "
        "route the text allows 'otherwise')"
        if protected
        else "no diversion at the inflows and the channel-edge fences have gaps or are not submitted"
    )
    res.findings.append(
        c.finding(
            "channelized_diversion",
            "channelized_diversion_submitted",
            status,
            f"Channelized runoff enters the disturbed area at {len(pts)} point(s): {how}.",
            required=True,
        )
    )


def _channel_edges_covered(c: _Ctx, flow: _Flow) -> bool:
    """Whether submitted fences cover every channel-edge stretch placed for the disturbed area's runoff
    (B(6)(c)[3]'s channel edges), by the same coverage test the filter-fence check uses; False where the
    profile has no channel-edge practice or no such stretch is placed.
    """
    placed = c.res.layers.get("filter_fence")
    if c.practice("channel_fence") is None or placed is None or "side" not in placed.columns:
        return False
    need = placed[placed["side"] == "channel"]
    if not len(need):
        return False
    cov, _gaps = _fence_cover(c, flow, need)
    return bool(cov["gap_length_ft"] <= 0.0)
