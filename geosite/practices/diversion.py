"""Diversion (DNR technical standard 1066, temporary diversion): a berm or swale across the slope above the
disturbed area, carrying clean runoff from adjacent land around it (Grantsburg B(6)(a)).

It serves two requirements: sheetflow from adjacent areas over the requirement's area diverted unless its
velocity across the disturbed area is below the requirement's (``sheetflow_diversion``: TR-55 sheet flow,
:func:`geosite.controls.diversions`), and channelized runoff from adjacent areas diverted where practical,
otherwise the channel protected by the channel-edge fences (``channelized_diversion``, judged on its own
whichever route the perimeter takes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import geopandas as gpd
import shapely

from geosite import controls
from geosite.practices import channel_fence
from geosite.practices.base import Outcome, OutputLayer, PayItem, Practice
from geosite.practices.context import mark
from geosite.rules.registry import NUMBER, TEXT, Param
from geosite.symbols import CadLook, Style

if TYPE_CHECKING:
    from geosite.practices.context import Context
    from geosite.rules import Finding, Requirement

_BERM = {"inner": ("white", 0.9, (0, (2, 2)))}
SHEETFLOW, CHANNELIZED = "sheetflow_diversion", "channelized_diversion"


class Diversion(Practice):
    """A diversion berm or swale above the disturbed area (DNR 1066)."""

    name = "diversion"
    title = "Diversion"
    standard = "DNR 1066"
    family = "diversion"
    drawn: ClassVar[dict[str, str]] = {"line": "diversions"}
    serves = (SHEETFLOW, CHANNELIZED)
    #: the parameters of a sheetflow diversion requirement (a channelized one takes none)
    params: ClassVar[dict[str, Param]] = {
        "adjacent_area_sqft": Param(
            NUMBER, "sq ft", required=True, text="sheetflow from adjacent areas greater than this is diverted"
        ),
        "velocity_fps": Param(
            NUMBER, "ft/s", required=True, text="unless its velocity across the disturbed area is below this"
        ),
        "storm": Param(TEXT, required=True, text="the [rain] depth the velocity is computed for"),
    }

    @classmethod
    def params_for(cls, key: str) -> dict[str, Param]:
        """The parameters a requirement of practice key ``key`` may give: a sheetflow diversion's, none for a
        channelized one.
        """
        return dict(cls.params) if key == SHEETFLOW else {}

    controls = ("diversion_offset_ft", "fence_sideslope_tolerance_deg", "fence_min_run_ft")
    needs_dem = True
    after = (channel_fence.ChannelFence.name,)
    looks: ClassVar[dict[str, Style]] = {
        # a berm: a heavy line split by a white dashed centre, unlike any fence or channel
        "diversions": Style(
            "line",
            "Diversions (berm or swale)",
            edge="#1a5276",
            lw=2.6,
            z=7.5,
            extra=_BERM,
            clear="footprint",
        ),
    }
    layers = (
        OutputLayer(
            "diversions",
            "MultiLineString",
            (("polygon_id", "int"), ("length_ft", "float"), ("required", "bool")),
            (("Diversions", "diversions", None),),
            {"": CadLook("C-ESCP-DIVR", 5, "DASHED2", "diversions")},
            label=lambda _row: "DIVERSION",
        ),
    )
    submitted: ClassVar[dict[str, dict[str, Any]]] = {"line": {"extra": _BERM, "lw": 2.6}}
    cad = CadLook("C-ESCP-DIVR", 5, "DASHED2", "diversions")
    pay = PayItem("LF", "length", "along the berm or swale", "DNR 1066")

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """Diversions above the disturbed areas that sheetflow reaches (the channelized requirement places
        nothing of its own: its route is the channel-edge fences').
        """
        out = Outcome(self.name, q.id)
        if q.practice != SHEETFLOW:
            return out
        dist = ctx.site.layer("disturbance")
        if dist is None or ctx.flow is None:
            out.report["diversions"] = []
            return out
        ctx.step("proposing diversions")
        given = ctx.m.values.get("hydrology.upslope")
        upslope = (
            {d.get("disturbance_id", d.get("id")): d for d in given} if isinstance(given, list) else None
        )
        parts = ctx.site.disturbed_parts  # measured per connected part, as the hydrology stage measured them
        polys = gpd.GeoDataFrame(
            {"id": [p[0] for p in parts]}, geometry=[p[2] for p in parts], crs=ctx.site.crs
        )
        found = controls.diversions(
            polys,
            ctx.flow.dem,
            ctx.flow.fg,
            area_sqft=float(q.param("adjacent_area_sqft")),
            velocity_fps=float(q.param("velocity_fps")),
            rain_in=ctx.profile.storm_in(q.param("storm")),
            upslope=upslope,
            channel_threshold_sqft=float(ctx.profile.value("terrain", "channel_threshold_sqft")),
            offset_ft=float(ctx.control("diversion_offset_ft")),
            tolerance_deg=float(ctx.control("fence_sideslope_tolerance_deg")),
            min_run_ft=float(ctx.control("fence_min_run_ft")),
        )
        needs, lines = found.needs, found.lines
        out.report["diversions"] = needs
        out.layers["diversions"] = mark(lines, ctx.open(q))
        need = [d["id"] for d in needs if d["required"]]
        out.shared.update(lines=lines, need=need)
        out.proposed = [
            {
                "type": self.name,
                "practice": "diversion above the disturbed area",
                "standard": self.standard,
                "geometry": g,
            }
            for g in lines.geometry
            if not g.is_empty
        ]
        if need:
            out.findings.append(
                ctx.finding(
                    q,
                    "sheetflow_diversion_location",
                    "info",
                    f"Diversion proposed above disturbed area(s) {', '.join(map(str, need))} "
                    f"({lines['length_ft'].sum():,.0f} ft along their upslope edges).",
                    required=True,
                    feature_ids=need,
                    geometry=shapely.union_all(lines.geometry.values) if len(lines) else None,
                    layer="diversions",
                )
            )
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """The submitted diversions along the ones proposed (sheetflow), or at each channelized inflow."""
        if q.practice == CHANNELIZED:
            return _channelized(ctx, q)
        lines = placed.shared.get("lines")
        if lines is None or not len(lines) or not placed.shared.get("need"):
            return []
        return [_sheetflow(ctx, q, lines, placed.shared["need"])]


def _sheetflow(ctx: Context, q: Requirement, lines: gpd.GeoDataFrame, need: list[Any]) -> Finding:
    """The submitted diversions along the ones proposed (``lines``, above areas ``need``)."""
    fpu = ctx.site.ft_per_unit
    tol = float(ctx.profile.value("submission", "diversion_cover_tolerance_ft"))
    want = shapely.union_all(lines.geometry.values)
    need_len = want.length * fpu
    got = ctx.submitted("diversion")
    gap = (
        want
        if got is None or not len(got)
        else shapely.difference(want, shapely.union_all(got.geometry.values).buffer(tol / fpu))
    )
    gap_len = gap.length * fpu if not gap.is_empty else 0.0
    vals = {"required_length_ft": need_len, "gap_length_ft": gap_len}
    kw: dict[str, Any] = dict(  # noqa: C408 - keyword names read as the finding's fields
        values=vals,
        submitted=f"{need_len - gap_len:,.0f} ft of the {need_len:,.0f} ft covered by submitted diversions",
        layer="diversions",
    )
    if gap_len <= 0.1 * need_len:
        return ctx.finding(
            q,
            "sheetflow_diversion_submitted",
            "pass",
            f"Submitted diversions cover the {need_len:,.0f} ft proposed above the disturbed areas.",
            **kw,
        )
    area_ft2, v_fps = float(q.param("adjacent_area_sqft")), float(q.param("velocity_fps"))
    return ctx.finding(
        q,
        "sheetflow_diversion_submitted",
        "fail",
        f"No submitted diversion along {gap_len:,.0f} ft of the {need_len:,.0f} ft geosite proposes above "
        "the "
        f"disturbed areas (sheetflow from more than {area_ft2:,.0f} sq ft reaching them at {v_fps:g} ft/s "
        "or more "
        "across the disturbed area).",
        feature_ids=need,
        geometry=gap,
        **kw,
    )


def _channelized(ctx: Context, q: Requirement) -> list[Finding]:
    """Channelized runoff from adjacent areas: diverted (a submitted diversion within the profile's cover
    tolerance of each channelized entry), or else its channel protected by the channel-edge fences of the
    requirement's alternative, judged on their own: B(6)(a) asks for them whichever route B(6)(c) takes.
    """
    d = ctx.decision(q)
    if not d.met:
        return []
    entries = ctx.m.layers.get("upslope_entry_points")
    pts = (
        entries[entries["channelized"].astype(bool)]
        if entries is not None and "channelized" in entries.columns
        else None
    )
    if ctx.bmps is None or pts is None or not len(pts):
        return [
            ctx.finding(
                q,
                "channelized_diversion_submitted",
                "not_assessed",
                f"Channelized runoff enters the disturbed area: {q.requires}; "
                + ("no bmps layer submitted." if ctx.bmps is None else "its entry points are not located."),
                required=True,
                settle="a bmps layer with the plan's controls"
                if ctx.bmps is None
                else "a DEM covering the land above the site",
            )
        ]
    tol = float(ctx.profile.value("submission", "diversion_cover_tolerance_ft")) / ctx.site.ft_per_unit
    div = ctx.submitted("diversion")
    near = div is not None and len(div) and all(div.distance(p).min() <= tol for p in pts.geometry)
    alt = ctx.outcomes.get(q.alternative or "")
    alt_q = ctx.profile.requirement(q.alternative or "")
    protected = not near and channel_fence.covered(ctx, alt)
    how = (
        "submitted diversions at every channelized inflow"
        if near
        else "the channel is protected by the channel-edge fences instead "
        f"({alt_q.citation if alt_q else ''}, the "
        "route the text allows 'otherwise')"
        if protected
        else "no diversion at the inflows and the channel-edge fences have gaps or are not submitted"
    )
    return [
        ctx.finding(
            q,
            "channelized_diversion_submitted",
            "pass" if near or protected else "fail",
            f"Channelized runoff enters the disturbed area at {len(pts)} point(s): {how}.",
            required=True,
            submitted=how,
            geometry=shapely.union_all(pts.geometry.values),
            layer="upslope_entry_points",
        )
    ]
