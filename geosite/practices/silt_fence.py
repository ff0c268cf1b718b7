"""Silt fence (DNR technical standard 1056): the sediment barrier along the disturbed area's downslope and
sideslope edges, its ends turned upslope (J-hooks), and interior rows where the slope above a fence is
longer than the standard allows.

``place`` draws the fence (:func:`geosite.controls.filter_fence`: the edge classified on the DEM, hooks,
rows a crew can build, stand-ins where none can) and says whether it is the route the chapter requires
(its requirement's conditions, and the alternative it names: B(6)(c)'s "either ... or"); ``judge`` holds
the submitted barriers (every practice of the ``barrier`` family: silt fence, straw bales) against the
required edge stretches, their ends against DNR 1056's hooks, and the slope above them against its
maximum slope lengths.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

import geopandas as gpd
import shapely

from geosite import controls
from geosite.controls import fence_ends
from geosite.grid import to_crs, to_dem_crs
from geosite.io.output import py_scalar
from geosite.practices.base import Outcome, OutputLayer, PayItem, Practice
from geosite.practices.context import mark
from geosite.practices.erosion_mat import ErosionMat
from geosite.practices.sediment_basin import SedimentBasin
from geosite.practices.stabilization import Stabilization
from geosite.rules.registry import BOOL, Param
from geosite.symbols import CadLook, Linetype, Style, Symbol

if TYPE_CHECKING:
    from geosite.practices.context import Context, Flow
    from geosite.rules import Finding, Requirement

#: the layers the silt fence practice writes: the fence lines, and the gaps a submission leaves in them
FENCE_LAYER, GAPS_LAYER = "filter_fence", "fence_gaps"
#: the edge sides the fence requirement covers (channel edges are the channel-edge practice's)
SIDES = ("downslope", "sideslope")
#: the fence layer's rows, by ``side``: what each is in words (the plan's ``bmps`` and labels)
ROLES = {
    "downslope": "silt fence along the downslope edge",
    "sideslope": "silt fence along the sideslope edge",
    "hook": "silt fence end turned upslope (J-hook)",
    "channel": "silt fence along the channel edge",
    "interior": "silt fence row on the contour",
    "stockpile": "silt fence along the pile's downslope side",
}
#: each side's colour on the sheets (each drawn with the fence's x marks; none black, none dashed like the
#: site boundary)
SIDE_COLOURS = {
    "downslope": "#b03a2e",
    "sideslope": "#b9770e",
    "channel": "#117a65",
    "interior": "#6e2c00",
    "hook": "#b03a2e",
    "stockpile": "#5c3d1e",
}
_FENCE_MARKS = {"marks": "x", "mark_every_in": 0.25, "mark_size": 3.2}
#: what stands in where no buildable row keeps the slope above a fence within DNR 1056's length, by why the
#: row is not built (geosite.controls.fences.STAND_IN_KINDS): (what, practice, method, standard)
STAND_INS = {
    "proportion": ("temporary mulch on the slope between the edge fences", Stabilization, "mulch"),
    "row": ("erosion mat on the slope above the unbuilt row", ErosionMat, ErosionMat.name),
}


def _fence_label(row: Any) -> str:
    """A fence's CAD label by its side (a hook has none)."""
    side = str(row.get("side", "")) if hasattr(row, "get") else ""
    if side == "hook":
        return ""
    if side == "stand_in":
        return "ROW NOT BUILDABLE: SEE PLAN NOTE"
    return "SILT FENCE" + {"interior": " (ROW)", "stockpile": " (STOCKPILE)"}.get(side, "")


class SiltFence(Practice):
    """Silt fence: edges, J-hooks and interior rows (DNR 1056)."""

    name = "silt_fence"
    title = "Silt fence"
    standard = "DNR 1056"
    family = "barrier"
    serves = ("filter_fence",)
    params: ClassVar[dict[str, Param]] = {"hooks": Param(BOOL, text="ends turned upslope (DNR 1056)")}
    controls = (
        "fence_sideslope_tolerance_deg",
        "fence_min_run_ft",
        "fence_hook_ft",
        "fence_end_climb_fraction",
        "fence_end_flat_pct",
        "fence_end_join_ft",
        "fence_max_slope_length_ft",
        "fence_channel_offset_ft",
        "fence_cover_tolerance_ft",
        "fence_intercept_reach_ft",
        "fence_row_clearance_ft",
        "fence_row_min_length_ft",
    )
    needs_dem = True
    after = (SedimentBasin.name,)
    looks: ClassVar[dict[str, Style]] = {
        # a solid line with an x every quarter inch (the plan-set fence symbol), coloured by side; never
        # dashed like the site boundary
        "filter_fence": Style(
            "line",
            "Filter fence / silt fence",
            edge="#b03a2e",
            lw=0.9,
            z=8,
            extra=_FENCE_MARKS,
            clear="footprint",
        ),
        "fence_stand_in": Style(
            "line",
            "Interior row not buildable here (see note: what stands in)",
            edge="#d35400",
            lw=1.0,
            ls=(0, (1, 1.5)),
            z=7.9,
            clear="footprint",
        ),
        "stand_ins": Style(
            "polygon",
            "Erosion mat / mulch standing in for interior fence rows: it governs the hatched ground "
            "(no row is built there; a row drawn beside it governs its own line)",
            face="#f5cba7",
            edge="#d35400",
            lw=0.6,
            hatch="..",
            z=4.6,
        ),
        "fence_gaps": Style(
            "line", "Required fence missing from the plan", edge="#d7191c", lw=2.0, ls=(0, (3, 1.5))
        ),
        "slope_length_excess": Style(
            "polygon",
            "Slope above the next fence longer than DNR 1056 allows",
            face="#d7191c",
            edge="#d7191c",
            lw=0.5,
            alpha=0.25,
            hatch="\\\\",
        ),
    }
    #: the sheet's colour of each side (each drawn with the fence's x marks)
    side_colours: ClassVar[dict[str, str]] = {
        "downslope": "#b03a2e",
        "sideslope": "#b9770e",
        "channel": "#117a65",
        "interior": "#6e2c00",
        "hook": "#b03a2e",
    }
    linetypes = (
        Linetype("GS_SILT_FENCE", "Silt fence ---- x ----", (12.0, 8.0, -2.0, 0.0, -2.0)),
        Linetype("GS_SILT_FENCE_ROW", "Silt fence row -- x -- x --", (9.0, 4.0, -2.0, 0.0, -2.0, 0.0, -1.0)),
        Linetype(
            "GS_CHANNEL_FENCE", "Channel-edge fence --- . . ---", (12.0, 6.0, -1.5, 0.0, -1.5, 0.0, -3.0)
        ),
    )
    layers = (
        OutputLayer(
            FENCE_LAYER,
            "MultiLineString",
            (
                ("side", "str"),
                ("polygon_id", "int"),
                ("length_ft", "float"),
                ("obstacle", "str"),
                ("practice", "str"),
                ("required", "bool"),
            ),
            (
                ("Interior row not buildable here: stand-in", "fence_stand_in", ("side", "stand_in")),
                ("Filter fence / silt fence", "filter_fence", None),
            ),
            {
                "": CadLook("C-ESCP-SFNC", 6, "GS_SILT_FENCE", "silt fence"),
                "downslope": CadLook("C-ESCP-SFNC-DOWN", 6, "GS_SILT_FENCE", "silt fence, downslope edges"),
                "sideslope": CadLook("C-ESCP-SFNC-SIDE", 6, "GS_SILT_FENCE", "silt fence, sideslope edges"),
                "hook": CadLook("C-ESCP-SFNC-HOOK", 6, "CONTINUOUS", "silt fence end hooks (turned upslope)"),
                "channel": CadLook(
                    "C-ESCP-SFNC-CHNL", 4, "GS_CHANNEL_FENCE", "silt fence along channel edges"
                ),
                "interior": CadLook(
                    "C-ESCP-SFNC-ROWS", 210, "GS_SILT_FENCE_ROW", "interior silt fence rows (DNR 1056)"
                ),
                "stand_in": CadLook(
                    "C-ESCP-SFNC-NBLD", 8, "DOT", "interior rows not buildable: what stands in"
                ),
                # a fence along a pile's downslope side (geosite.practices.stockpile_barrier)
                "stockpile": CadLook("C-ESCP-SFNC-STKP", 6, "GS_SILT_FENCE", "fences at stockpiles"),
            },
            cad_field="side",
            label=_fence_label,
        ),
        OutputLayer(
            "stand_ins",
            "MultiPolygon",
            (
                ("type", "str"),
                ("method", "str"),
                ("practice", "str"),
                ("standard", "str"),
                ("stand_in_for", "str"),
                ("polygon_id", "int"),
                ("area_sqft", "float"),
            ),
            (("Stand-in where a fence row cannot be built", "stand_ins", None),),
            {
                "": CadLook(
                    "C-ESCP-STND",
                    30,
                    "CONTINUOUS",
                    "stand-ins where a fence row cannot be built (erosion mat, mulch)",
                )
            },
        ),
        OutputLayer(
            GAPS_LAYER,
            "MultiLineString",
            (("side", "str"), ("polygon_id", "int"), ("length_ft", "float")),
            (("Required fence missing from the plan", "fence_gaps", None),),
            {
                "": CadLook(
                    "C-ESCP-SFNC-GAPS", 1, "CONTINUOUS", "required fence missing from the submitted plan"
                )
            },
            control=False,
        ),
        OutputLayer(
            "slope_length_excess",
            "MultiPolygon",
            (("what", "str"),),
            (("Slope above the next fence longer than DNR 1056 allows", "slope_length_excess", None),),
            {
                "": CadLook(
                    "C-ESCP-SLEN", 1, "CONTINUOUS", "slope above the next fence longer than DNR 1056 allows"
                )
            },
            control=False,
        ),
    )
    submitted: ClassVar[dict[str, dict[str, Any]]] = {"line": {"extra": _FENCE_MARKS, "lw": 0.9}}
    cad = CadLook("C-ESCP-SFNC", 6, "GS_SILT_FENCE", "silt fence")
    pay = PayItem("LF", "length", "along the fence line, J-hooks and interior rows included", "DNR 1056")

    drawn: ClassVar[dict[str, str]] = {"line": FENCE_LAYER}

    @classmethod
    def symbols(cls, family: str, status: str) -> tuple[Symbol, ...]:
        """A proposed fence line in its side's colour (:data:`SIDE_COLOURS`), one legend row per side."""
        if status != "proposed" or family != "line":
            return super().symbols(family, status)
        look = cls.looks[FENCE_LAYER]
        by_side = tuple(
            Symbol(
                f"{FENCE_LAYER}_{side}",
                replace(
                    look, edge=SIDE_COLOURS[side], label=f"{words[:1].upper()}{words[1:]} ({cls.standard})"
                ),
                (("side", side),),
            )
            for side, words in ROLES.items()
        )
        return (*by_side, Symbol(FENCE_LAYER, look))

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """The fence along the downslope and sideslope edges, hooks and rows; whether it is required here."""
        out = Outcome(self.name, q.id)
        area = ctx.m.layers.get("disturbed_area")
        if area is None or not len(area) or ctx.flow is None:
            out.report["filter_fence"] = {"required": None, "why": "no disturbance layer"}
            return out
        ctx.step("placing filter fence")
        parts = area[["geometry"]].explode(index_parts=False).reset_index(drop=True)
        parts["id"] = range(1, len(parts) + 1)
        fence, runs = _fence_lines(ctx, ctx.flow, q, parts)
        out.shared.update(parts=parts, channel_sides=fence[fence["side"] == "channel"])
        stand = stand_ins(controls.row_stand_ins(fence))
        if stand is not None:
            out.layers["stand_ins"] = stand
        fence = fence[fence["side"] != "channel"].reset_index(drop=True)
        summary = controls.fence_summary(fence)
        unclassified_ft = float(runs.loc[runs["side"] == controls.UNCLASSIFIED, "length_ft"].sum())
        route = route_of(ctx, q)
        state = ctx.open(q)
        required = route.required and state
        out.report["filter_fence"] = {
            "required": required,
            "route": route.why,
            "disturbed_max_at_one_time_acres": ctx.acres_at_once(),
            **summary,
            "upslope_length_ft": float(runs.loc[runs["side"] == "upslope", "length_ft"].sum()),
            "unclassified_length_ft": unclassified_ft,
        }
        out.layers[FENCE_LAYER] = mark(fence, required if route.required else False)
        out.shared.update(route=route, summary=summary, fence=fence)
        out.proposed = _proposals(ctx, fence, out.layers.get("stand_ins"))
        if unclassified_ft > 0:
            out.findings.append(_unclassified(ctx, q, runs, unclassified_ft))
        if not route.required:
            out.findings.append(
                ctx.finding(
                    q,
                    "filter_fence_location",
                    "info",
                    f"Fence lines shown for reference: {route.why}.",
                    geometry=_union(fence),
                    layer=FENCE_LAYER,
                )
            )
            return out
        out.findings.append(_location(ctx, q, summary, state, fence))
        return out

    def finish(self, ctx: Context, q: Requirement, proposed: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Erosion mat where the slope above the plan's own barriers is still too long (:func:`finish`)."""
        return finish(ctx, proposed)

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """The submitted barriers along the required edge stretches, their ends, and the slope above them."""
        route = placed.shared.get("route")
        if route is None or not route.required or ctx.flow is None:
            return []
        fence = placed.shared["fence"]
        need = fence[fence["side"].isin(SIDES)]
        if ctx.bmps is None:
            return [
                ctx.finding(
                    q,
                    "filter_fence_submitted",
                    "not_assessed",
                    f"No bmps layer submitted: {need['length_ft'].sum():,.0f} ft of filter fence is required "
                    "and cannot be checked.",
                    settle="a bmps layer with the plan's controls",
                    geometry=_union(need),
                    layer=FENCE_LAYER,
                )
            ]
        got = cover(ctx, ctx.flow, need)
        cov, gaps = got.summary, got.gaps
        placed.layers[GAPS_LAYER] = gaps
        sub = placed.report.setdefault("submitted_controls", {"bmps_layer": True})
        sub["filter_fence"] = _coverage_report(cov, gaps)
        ends = _ends(ctx, ctx.flow, q, need)
        if ends is not None:
            sub["filter_fence"]["ends"] = ends.report()
        found = [_submitted(ctx, q, cov, gaps, ends)]
        found += _slope_lengths(ctx, ctx.flow, placed)
        return found


def stand_ins(areas: gpd.GeoDataFrame | None) -> gpd.GeoDataFrame | None:
    """The stand-in areas of the fence placement with what stands in (:data:`STAND_INS`): ``type`` (the
    practice), ``method``, ``practice`` (in words) and ``standard`` (None without any).
    """
    if areas is None:
        return None
    out = areas.copy()
    picks = [STAND_INS[k] for k in out["kind"]] if len(out) else []
    out["type"] = [p[1].name for p in picks]
    out["method"] = [p[2] for p in picks]
    out["practice"] = [p[0] for p in picks]
    out["standard"] = [p[1].standard for p in picks]
    return out.drop(columns=["kind"])


def _proposals(ctx: Context, fence: gpd.GeoDataFrame, stand: gpd.GeoDataFrame | None) -> list[dict[str, Any]]:
    """The fence the plan builds (edges, hooks, rows: one row each, its ``side`` in words) and the areas
    standing in for rows no crew could build, but the slivers (a remnant between an obstacle and the edge,
    which :func:`finish`'s pass covers).
    """
    rows: list[dict[str, Any]] = [
        {
            "type": SiltFence.name,
            "practice": ROLES[side],
            "standard": SiltFence.standard,
            "geometry": g,
            "side": side,
        }
        for side, g in zip(fence["side"], fence.geometry, strict=True)
        if side in ROLES and g is not None and not g.is_empty
    ]
    for r in [] if stand is None else stand.explode(index_parts=False).itertuples():
        if not ctx.is_sliver(r.geometry):
            rows.append(
                {
                    "type": r.type,
                    "practice": r.practice,
                    "standard": r.standard,
                    "geometry": r.geometry,
                    "method": r.method,
                    "stand_in_for": r.stand_in_for,
                }
            )
    return rows


def finish(ctx: Context, proposed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Erosion mat (DNR 1052) over the ground where the slope above the plan's own barriers, diversions and
    covers (``proposed``: every control of the plan) is still longer than DNR 1056 allows, measured exactly as
    ``check`` measures it (:func:`geosite.controls.slope_length_excess`), each saying what it stands in for.
    """
    table = ctx.profile.value("controls", "fence_max_slope_length_ft")
    area = ctx.m.layers.get("disturbed_area")
    if ctx.flow is None or table is None or area is None or not len(area):
        return []
    dem, fg, site = ctx.flow.dem, ctx.flow.fg, ctx.site
    stops = set(ctx.catalogue.of("barrier", "diversion", "cover"))
    lines = [r["geometry"] for r in proposed if r["type"] in stops]
    barriers = (
        shapely.union_all(to_crs(gpd.GeoDataFrame(geometry=lines, crs=site.crs), dem.crs).geometry.values)
        if lines
        else None
    )
    parts = area[["geometry"]].explode(index_parts=False).reset_index(drop=True)
    geoms = []
    built = built_over(ctx, dem.crs)
    for poly in to_crs(parts, dem.crs).geometry:
        got = controls.slope_length_excess(poly, dem, fg, barriers, table, geometry=True, built=built)
        g = got.get("geometry")
        if g is not None and not g.is_empty:
            geoms += _mat_strips(ctx, g, poly, built)
    if not geoms:
        return []
    cover = to_crs(gpd.GeoDataFrame(geometry=geoms, crs=dem.crs), site.crs)
    return [_mat(g) for g in cover.explode(index_parts=False).geometry]


def built_over(ctx: Context, crs: Any, *, proposed: bool = True) -> Any:
    """The built ground in ``crs`` (dissolved; None without any): the site's structures, roads and drives
    and the plan's traps (:data:`geosite.controls.fences.BUILT_LAYERS`, as the fence engine reads them):
    ground the slope length above a fence does not run across and no mat is laid on. Without
    ``proposed`` (judging a submission) geosite's own traps are left out: the plan judged is the
    submitted one.
    """
    from geosite.controls.fences import BUILT_LAYERS

    obst = _obstacles(ctx, proposed=proposed)
    if obst is None or not len(obst):
        return None
    got = obst[obst["layer"].isin(BUILT_LAYERS)]
    polys = [g for g in to_crs(got, crs).geometry.values if g is not None and not g.is_empty]
    return shapely.union_all(polys) if polys else None


def _mat_strips(ctx: Context, over: Any, poly: Any, built: Any = None) -> list[Any]:
    """Where the mat goes over the cells ``over`` the limit on the disturbed part ``poly`` (DEM CRS): a crew
    lays mat in strips, not cell by cell, so the cells grown by a cell and drawn at the drafting scale
    (:func:`geosite.controls.drafted.drafted_area`), kept on the disturbed part and off the ``built`` ground.
    """
    from geosite.controls.drafted import drafted_area

    assert ctx.flow is not None
    dem = ctx.flow.dem
    cell = max(abs(dem.transform.a), abs(dem.transform.e))
    allowed = poly.buffer(0)
    if built is not None:
        allowed = shapely.difference(allowed, built)
    area = shapely.intersection(over.buffer(cell, join_style="mitre"), allowed)
    return drafted_area(area, allowed, cell=cell, ft_per_unit=dem.ft_per_unit, must=over)


def _mat(g: Any) -> dict[str, Any]:
    """The erosion mat over ``g`` as a proposed control saying what it stands in for (its area is its
    quantity, measured by the plan).
    """
    return {
        "type": ErosionMat.name,
        "practice": "erosion mat on the slope",
        "standard": ErosionMat.standard,
        "geometry": g,
        "method": ErosionMat.name,
        "stand_in_for": (
            "interior silt fence rows (DNR 1056) where no buildable row keeps the slope above the next fence "
            "within the standard's length (a row cut at an obstacle, a loop, a sharp kink, a piece too "
            "short, or rows out of proportion to the area)"
        ),
    }


class Route:
    """Whether a practice is the route the chapter requires here (``required``), and why, in words."""

    def __init__(self, required: bool, why: str) -> None:
        self.required, self.why = required, why


def route_of(ctx: Context, q: Requirement) -> Route:
    """Whether requirement ``q``'s practice is the route the chapter requires here, and why: its decision
    (its conditions), and its alternative (B(6)(c)'s 'either ... or'), taken where the submitted basins
    receive the runoff at every outlet (the basins' outcome says so).
    """
    d = ctx.decision(q)
    if d.met is None:
        pending = "; ".join(t.message for t in d.conditions if t.met is None)
        return Route(False, f"whether they are required is not assessed ({pending})")
    if d.met is False:
        alt = ctx.decisions.get(q.alternative or "")
        instead = (
            f"; {alt.requirement.requires} ({alt.requirement.citation}) instead"
            if alt is not None and alt.met
            else ""
        )
        return Route(False, "; ".join(t.message for t in d.conditions) + instead)
    other = ctx.outcomes.get(d.either_with or "")
    if d.either_with and other is not None and other.shared.get("satisfied"):
        alt_q = ctx.decisions[d.either_with].requirement
        return Route(
            False,
            f"{other.shared.get('satisfied_how', 'the submitted plan meets it')} ({alt_q.citation}), the "
            "other route the chapter allows",
        )
    acres = ctx.acres_at_once()
    return Route(
        True, q.citation + (f" ({acres:,.2f} acres disturbed at one time)" if acres is not None else "")
    )


def _union(gdf: gpd.GeoDataFrame | None) -> Any:
    """One geometry of a layer's features (None when it has none)."""
    if gdf is None or not len(gdf):
        return None
    return shapely.union_all(gdf.geometry.values)


def _fence_lines(ctx: Context, flow: Flow, q: Requirement, parts: gpd.GeoDataFrame) -> tuple[Any, Any]:
    """The fence lines placed (site CRS; the engine's channel-edge pieces with ``side`` channel) and the
    classified edge runs of the disturbed area.
    """
    c = ctx.control
    fence, runs = controls.filter_fence(
        parts,
        flow.dem,
        flow.fg,
        tolerance_deg=float(c("fence_sideslope_tolerance_deg")),
        min_run_ft=float(c("fence_min_run_ft")),
        hook_ft=float(c("fence_hook_ft")) if q.params.get("hooks", False) else 0.0,
        table=c("fence_max_slope_length_ft"),
        channel_threshold_sqft=float(ctx.profile.value("terrain", "channel_threshold_sqft")),
        channel_offset_ft=float(c("fence_channel_offset_ft")),
        obstacles=_obstacles(ctx),
        row_clearance_ft=float(c("fence_row_clearance_ft")),
        row_min_length_ft=float(c("fence_row_min_length_ft")),
        row_rules=controls.RowRules.from_profile(ctx.profile),
        phases=_phases(ctx),
    )
    return fence, runs


def _obstacles(ctx: Context, *, proposed: bool = True) -> gpd.GeoDataFrame | None:
    """What no interior row crosses and no stand-in covers: the site's structures, piles, drives, roads
    and waters (:func:`geosite.controls.row_obstacles`) and the plan's trap footprints (a row stops at a
    trap's pool, which takes the runoff there): the submitted ones, and with ``proposed`` geosite's own.
    """
    import pandas as pd

    site_obst = controls.row_obstacles(ctx.site)
    traps = plan_traps(ctx, proposed=proposed)
    if traps is None:
        return site_obst
    frame = gpd.GeoDataFrame(
        {"layer": ["sediment_trap"] * len(traps), "id": list(range(1, len(traps) + 1))},
        geometry=list(traps),
        crs=ctx.site.crs,
    )
    if site_obst is None:
        return frame
    return gpd.GeoDataFrame(
        pd.concat([site_obst, frame], ignore_index=True), geometry="geometry", crs=ctx.site.crs
    )


def plan_traps(ctx: Context, *, proposed: bool = True) -> list[Any] | None:
    """The trap and basin footprints of the plan (site CRS): the submitted ones drawn at their size and,
    with ``proposed``, those the sediment basin practice placed; None without any.
    """
    got = []
    placed = ctx.outcome_of(SedimentBasin.name) if proposed else None
    fp = placed.layers.get("sediment_basin_footprints") if placed is not None else None
    if fp is not None and len(fp):
        got += [g for g, ok in zip(fp.geometry, fp["placed"], strict=True) if ok and g is not None]
    sub = ctx.submitted("trap")
    if sub is not None and len(sub):
        got += [g for g in sub.geometry if g is not None and "Polygon" in g.geom_type]
    return got or None


def _phases(ctx: Context) -> gpd.GeoDataFrame | None:
    """The disturbance polygons with their ``phase`` (None where the site's disturbance has no phases):
    rows go in phase by phase (:func:`geosite.controls.filter_fence`).
    """
    d = ctx.site.layer("disturbance")
    if d is None or "phase" not in d.columns:
        return None
    d = d[d["phase"].notna()]
    return d[["phase", "geometry"]] if len(d) else None


def _unclassified(ctx: Context, q: Requirement, runs: gpd.GeoDataFrame, length_ft: float) -> Finding:
    """The edge stretches (``length_ft`` ft) with no DEM heights just inside them: not assessed."""
    return ctx.finding(
        q,
        "filter_fence_unclassified",
        "not_assessed",
        f"{length_ft:,.0f} ft of the disturbed area's edge has no DEM heights just inside it: whether it is "
        "a "
        "downslope or sideslope side needing fence is not assessed there (no fence placed).",
        values={"unclassified_length_ft": length_ft},
        settle="a DEM with heights along the whole edge of the disturbed area",
        geometry=_union(runs[runs["side"] == controls.UNCLASSIFIED]),
        layer="disturbed_area",
    )


def _location(
    ctx: Context, q: Requirement, summary: dict[str, Any], state: bool | None, fence: gpd.GeoDataFrame
) -> Finding:
    """Where the required fence goes (``summary``: its lengths by side, ft)."""
    return ctx.finding(
        q,
        "filter_fence_location",
        "info",
        f"Filter fence {'required ' if state else ''}({q.citation}) along "
        f"{summary['downslope_length_ft']:,.0f} "
        f"ft of downslope and {summary['sideslope_length_ft']:,.0f} ft of sideslope edge "
        f"({summary['total_length_ft']:,.0f} ft in all, end hooks included), plus "
        f"{summary['interior_length_ft']:,.0f} ft of interior rows where the slope above a fence is longer "
        "than "
        "DNR 1056 allows.",
        required=True,
        values=summary,
        geometry=_union(fence),
        layer=FENCE_LAYER,
    )


def cover(ctx: Context, flow: Flow, need: gpd.GeoDataFrame) -> controls.FenceCoverage:
    """The submitted barriers' coverage of the required stretches ``need`` (site CRS), with the profile's
    cover tolerance and reach downslope: the one test every fence requirement is judged by.
    """
    return controls.fence_coverage(
        need,
        ctx.submitted("barrier"),
        tolerance_ft=float(ctx.control("fence_cover_tolerance_ft")),
        flow=flow.on_site(ctx.site),
        reach_ft=float(ctx.control("fence_intercept_reach_ft")),
    )


def _submitted(
    ctx: Context, q: Requirement, cov: controls.Coverage, gaps: gpd.GeoDataFrame, ends: Any
) -> Finding:
    """The finding on the submitted fence along the required stretches (and its ends)."""
    covered = cov["gap_length_ft"] <= 0.0
    ok = covered and (ends is None or not ends.not_turned)
    ids = sorted({py_scalar(p) for p in gaps["polygon_id"] if p is not None}, key=str) if len(gaps) else []
    text = (
        "Submitted silt fence / straw bales cover every required downslope and sideslope stretch."
        if covered
        else _gap_message(ctx, q, cov, gaps)
    )
    where = _union(gaps) if not covered else None
    if (
        where is None and ends is not None and ends.not_turned
    ):  # the ends not turned, where no stretch lacks fence
        assert ctx.flow is not None  # ends are judged on the DEM
        pts = gpd.GeoDataFrame(
            geometry=shapely.points([(e["x"], e["y"]) for e in ends.not_turned]), crs=ctx.flow.dem.crs
        )
        where = shapely.union_all(to_crs(pts, ctx.site.crs).geometry.values)
    return ctx.finding(
        q,
        "filter_fence_submitted",
        "pass" if ok else "fail",
        text + (ends_text(ends, ctx.control("fence_hook_ft"), ctx.site.crs) if ends is not None else ""),
        required=True,
        values=dict(cov),
        feature_ids=ids,
        submitted=f"{cov.get('submitted_fence_length_ft', 0.0):,.0f} ft of silt fence / straw bales",
        geometry=where,
        layer=GAPS_LAYER,
    )


def _ends(ctx: Context, flow: Flow, q: Requirement, need: gpd.GeoDataFrame) -> fence_ends.FenceEnds | None:
    """DNR 1056's fence ends turned upslope, judged on the submitted perimeter fences' open ends (None
    where the requirement asks for no hooks).
    """
    fences = ctx.submitted("barrier")
    if not q.params.get("hooks", False) or fences is None:
        return None
    if "pile_id" in fences.columns:  # a pile's own fence: judged by the pile barrier practice
        fences = fences[fences["pile_id"].isna()]
    c = ctx.control
    rules = fence_ends.EndRules(
        hook_ft=float(c("fence_hook_ft")),
        climb_fraction=float(c("fence_end_climb_fraction")),
        flat_pct=float(c("fence_end_flat_pct")),
        join_ft=float(c("fence_end_join_ft")),
        serve_ft=float(c("fence_cover_tolerance_ft")),
        reach_ft=float(c("fence_intercept_reach_ft")),
    )
    sides = need[need["side"].isin(SIDES)]
    required = to_crs(sides, flow.dem.crs).geometry.union_all() if len(sides) else None
    lines = list(to_crs(fences, flow.dem.crs).geometry)
    chan = ctx.m.layers.get("channels")
    corridor = None
    if chan is not None and len(chan):  # DNR 1056: a fence stops at concentrated flow, whose own
        # protection governs there (the channel-edge fences): an end at the channel is not open
        half = (float(c("fence_channel_offset_ft")) + rules.join_ft) / flow.dem.ft_per_unit
        corridor = to_crs(chan, flow.dem.crs).geometry.buffer(half).union_all()
    area = to_dem_crs(ctx.site.disturbed, ctx.site, flow.dem)
    return fence_ends.fence_ends(
        lines, required, flow.dem, rules, channels=corridor, directions=flow.fg.directions, area=area
    )


def ends_text(ends: fence_ends.FenceEnds, hook_ft: float, crs: Any = None) -> str:
    """The finding's sentence on the fence ends (DNR 1056): how many were judged, and where one is not
    turned upslope (``hook_ft``: the hook's length, ft; ``crs``: the site's, for the coordinates' unit).
    """
    from geosite.units import coordinates

    skipped = ends.flat + ends.no_heights
    aside = f"; {skipped} on flat ground or without DEM heights, not judged" if skipped else ""
    if ends.caught_below:
        aside += f"; {ends.caught_below} backed by a fence below, which catches what goes round them"
    if not ends.not_turned:
        return (
            f" Fence ends turned upslope (DNR 1056): {ends.turned} of {ends.judged} open ends judged{aside}."
        )
    where = "; ".join(
        f"{coordinates(e['x'], e['y'], crs)}: "
        + (f"falls {-e['rise_ft']:.2f} ft" if e["rise_ft"] < 0 else f"rises {e['rise_ft']:.2f} ft")
        + f" where the ground climbs {e['climb_ft']:.2f} ft"
        for e in ends.not_turned[:5]
    )
    more = f" and {len(ends.not_turned) - 5} more" if len(ends.not_turned) > 5 else ""
    return (
        f" {len(ends.not_turned)} of {ends.judged} open fence ends are not turned upslope (DNR 1056: the "
        f"fence's last {float(hook_ft):g} ft must climb the slope so water is held at its end, not led "
        f"round it): {where}{more}{aside}."
    )


def _gap_message(ctx: Context, q: Requirement, cov: controls.Coverage, gaps: gpd.GeoDataFrame) -> str:
    """The failing finding's text: the fence missing (``cov``: the coverage, ft) by side, and the basins
    that would be the other route where the chapter allows one.
    """
    by_side = gaps.groupby("side")["length_ft"].sum() if len(gaps) else {}
    either = ctx.decision(q).either_with
    other = ctx.outcomes.get(either or "")
    instead = other.shared.get("instead", "the other route the chapter allows") if other else ""
    alt = f" (or {instead}, {ctx.decisions[either].requirement.citation})" if either else ""
    return (
        f"Filter fence missing along {cov['gap_length_ft']:,.0f} ft of the {cov['required_length_ft']:,.0f} "
        "ft "
        f"required{alt} ("
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


def _slope_lengths(ctx: Context, flow: Flow, placed: Outcome) -> list[Finding]:
    """DNR 1056's maximum slope length above a fence, checked on the submitted barriers, diversions and
    covers: the Handbook's design criteria, which both chapters make binding on every BMP, so it is cited
    there, under the fence requirement's gate.
    """
    table = ctx.control("fence_max_slope_length_ft")
    if table is None:
        return []
    site, dem, fg = ctx.site, flow.dem, flow.fg
    lines = ctx.submitted("barrier", "diversion", "cover")
    barriers = (
        shapely.union_all(to_crs(lines, dem.crs).geometry.values)
        if lines is not None and len(lines)
        else None
    )
    worst = {"excess_sqft": 0.0, "max_ratio": 0.0, "longest_ft": 0.0}
    where = []
    built = built_over(ctx, dem.crs, proposed=False)
    for poly in to_crs(placed.shared["parts"], dem.crs).geometry:
        got = controls.slope_length_excess(poly, dem, fg, barriers, table, geometry=True, built=built)
        if got["geometry"] is not None:
            where.append(got["geometry"])
        worst["excess_sqft"] += got["excess_sqft"]
        worst["max_ratio"] = max(worst["max_ratio"], got["max_ratio"])
        worst["longest_ft"] = max(worst["longest_ft"], got["longest_ft"])
    placed.report.setdefault("submitted_controls", {})["slope_length"] = worst
    excess = None
    if where:
        excess = to_crs(
            gpd.GeoDataFrame(
                {"what": ["slope above the next fence longer than DNR 1056 allows"] * len(where)},
                geometry=where,
                crs=dem.crs,
            ),
            site.crs,
        )
        placed.layers["slope_length_excess"] = excess
    q = ctx.profile.requirement(placed.requirement)
    ok = worst["excess_sqft"] <= 0
    interior = placed.shared["summary"]["interior_length_ft"]
    f = ctx.finding(
        q,
        "filter_fence_slope_length",
        "pass" if ok else "fail",
        "The slope above every submitted fence is within DNR 1056's maximum lengths "
        f"(the longest, {worst['longest_ft']:,.0f} ft, is {worst['max_ratio']:.0%} of what its slope allows)."
        if ok
        else f"On {worst['excess_sqft']:,.0f} sq ft of the disturbed area the slope above the next submitted "
        "fence "
        f"is longer than DNR 1056 allows for its steepness (up to {worst['longest_ft']:,.0f} ft of slope, "
        f"{worst['max_ratio']:.1f} times the table's length): interior fence rows (geosite proposes "
        f"{interior:,.0f} ft), diversions across the slope or a stabilization BMP over it are needed.",
        values=worst,
        required=True,
        requirement="the slope above each fence within DNR 1056's maximum slope length for its steepness",
        submitted=f"the longest slope above a submitted fence, {worst['longest_ft']:,.0f} ft",
        geometry=_union(excess),
        layer="slope_length_excess",
    )
    f.citation, f.section = "Design criteria (DNR 1056)", ctx.profile.section_name("design")
    return [f]
