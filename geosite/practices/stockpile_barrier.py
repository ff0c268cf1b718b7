"""Barriers round soil piles: a silt fence or straw bale line along each pile's downslope side (Grantsburg
B(6)(e): "straw bale or filter fabric fences on the downslope side of the piles"), or all round where the
requirement's ``side`` says so, with end hooks where its ``hooks`` asks.

Each pile is decided by the requirement's own conditions (a chapter may exempt a pile under a volume, or a
pile already stabilized: :mod:`geosite.practices.features`); the submitted barriers are held against the
side placed on the DEM by the one coverage test every fence requirement is judged by.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import shapely

from geosite import controls
from geosite.io.output import py_scalar
from geosite.practices.base import Outcome, OutputLayer, PayItem, Practice
from geosite.practices.context import mark
from geosite.practices.features import features_of
from geosite.practices.silt_fence import SiltFence
from geosite.rules.registry import BOOL, TEXT, Param
from geosite.symbols import CadLook, Style

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.practices.context import Context
    from geosite.practices.features import FeatureDecision, Features
    from geosite.rules import Finding, Requirement


class StockpileBarrier(Practice):
    """A sediment barrier along each soil pile's downslope side."""

    name = "stockpile_barrier"
    title = "Barrier round a soil pile"
    standard = "DNR 1056"
    family = "barrier"
    serves = ("stockpile_fence",)
    params: ClassVar[dict[str, Param]] = {
        "side": Param(
            TEXT, choices=("downslope", "all"), text="fence on the downslope side (default) or all round"
        ),
        "hooks": Param(BOOL, text="ends turned upslope"),
    }
    controls = (
        "stockpile_trace_ft",
        "stockpile_reach_tolerance_ft",
        "fence_sideslope_tolerance_deg",
        "fence_cover_tolerance_ft",
        "stockpile_fence_min_gap_ft",
        "fence_intercept_reach_ft",
        "fence_hook_ft",
    )
    needs_dem = True
    pay = PayItem("LF", "length", "along the barrier (silt fence) at the pile", "DNR 1056")
    looks: ClassVar[dict[str, Style]] = {
        "stockpile_fences": Style(
            "line",
            "Fences at stockpiles",
            edge="#5c3d1e",
            lw=0.9,
            z=8,
            extra={"marks": "x", "mark_every_in": 0.2, "mark_size": 3.0},
            clear="footprint",
        ),
    }
    layers = (
        OutputLayer(
            "stockpile_fences",
            "MultiLineString",
            (("pile_id", "int"), ("length_ft", "float"), ("required", "bool")),
            (("Fences at stockpiles", "stockpile_fences", None),),
            {"": CadLook("C-ESCP-SFNC-STKP", 6, "GS_SILT_FENCE", "fences at stockpiles")},
            label=lambda _row: "SILT FENCE (STOCKPILE)",
        ),
    )

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """The barrier along the downslope side of each pile the requirement applies to."""
        out = Outcome(self.name, q.id)
        piles = features_of(ctx, "stockpiles")
        if piles.frame is None or ctx.flow is None:
            return out
        decided = piles.decide(q)
        hook = float(ctx.control("fence_hook_ft")) if q.params.get("hooks", False) else 0.0
        fences = controls.pile_fences(
            piles.frame,
            ctx.flow.dem,
            ctx.flow.fg,
            tolerance_deg=float(ctx.control("fence_sideslope_tolerance_deg")),
            hook_ft=hook,
            side=str(q.params.get("side", "downslope")),
        )
        wanted = {d.id for d in decided if d.applies is not False}
        fences = fences[[py_scalar(p) in wanted for p in fences["pile_id"]]].reset_index(drop=True)
        out.layers["stockpile_fences"] = mark(fences, ctx.open(q))
        out.shared.update(fences=fences, decided=decided)
        out.proposed = [
            {
                "type": SiltFence.name,
                "practice": "silt fence along the pile's downslope side",
                "standard": self.standard,
                "geometry": g,
                "pile_id": py_scalar(pid),
                "side": "stockpile",
            }
            for pid, g in zip(fences["pile_id"], fences.geometry, strict=True)
            if g is not None and not g.is_empty and g.length > 0
        ]
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """The submitted barriers along the side of each pile the requirement applies to."""
        decided: list[FeatureDecision] | None = placed.shared.get("decided")
        if decided is None:
            return []
        piles = features_of(ctx, "stockpiles")
        need = [d.id for d in decided if d.applies is True]
        if ctx.bmps is None:
            found = [_not_applying(ctx, q, piles, d) for d in decided if d.applies is not True]
            return found + (
                [
                    ctx.finding(
                        q,
                        "stockpile_fence",
                        "not_assessed",
                        f"No bmps layer submitted: the fences along the downslope side of stockpile(s) "
                        f"{', '.join(map(str, need))} cannot be checked.",
                        settle="a bmps layer with the plan's controls",
                        feature_ids=need,
                    )
                ]
                if need
                else []
            )
        found = [_not_applying(ctx, q, piles, d) for d in decided if d.applies is not True]
        judged = [_pile(ctx, q, piles, placed.shared["fences"], d) for d in decided if d.applies is True]
        missing = [j for j in judged if j is not None]
        if not need:
            return found
        if missing:
            found += missing
        else:
            found.append(
                ctx.finding(
                    q,
                    "stockpile_fence",
                    "pass",
                    f"Every stockpile the requirement applies to ({', '.join(map(str, need))}) has a fence "
                    "along "
                    "its downslope side"
                    + (" (no end hooks are asked for)." if not q.params.get("hooks") else "."),
                    required=True,
                    feature_ids=need,
                    layer="stockpiles",
                )
            )
        return found


def _not_applying(ctx: Context, q: Requirement, piles: Features, d: FeatureDecision) -> Finding:
    """Pile ``d`` the requirement does not apply to (its conditions not met) or may (not decided)."""
    geom = piles.frame.geometry.iloc[d.index] if piles.frame is not None else None
    if d.applies is False:
        return ctx.finding(
            q,
            "stockpile_fence",
            "info",
            f"Stockpile {d.id}: no fence is required on its downslope side ({d.why}).",
            feature_ids=[d.id],
            geometry=geom,
            layer="stockpiles",
        )
    return ctx.finding(
        q,
        "stockpile_fence",
        "not_assessed",
        f"Stockpile {d.id}: whether a fence is required on its downslope side is not assessed ({d.why}).",
        settle="the pile's attributes the requirement's conditions read",
        feature_ids=[d.id],
        geometry=geom,
        layer="stockpiles",
    )


def _pile(
    ctx: Context, q: Requirement, piles: Features, fences: gpd.GeoDataFrame, d: FeatureDecision
) -> Finding | None:
    """Pile ``d``'s submitted barrier against its side placed (``fences``): None when covered, else the
    failing finding, saying what the barrier the plan ties to the pile does if it does not run along the
    side.
    """
    need = fences[(fences["pile_id"] == d.id) & (fences["length_ft"] > 0)].copy()
    row = piles.rows[d.index]
    if not len(need):
        row["downslope_fence_submitted"] = None
        return None
    assert ctx.flow is not None
    got = controls.fence_coverage(
        need.rename(columns={"pile_id": "polygon_id"}),
        ctx.submitted("barrier"),
        tolerance_ft=float(ctx.control("fence_cover_tolerance_ft")),
        min_gap_ft=float(ctx.control("stockpile_fence_min_gap_ft")),
        flow=ctx.flow.on_site(ctx.site),
        reach_ft=float(ctx.control("fence_intercept_reach_ft")),
    )
    cov, gaps = got.summary, got.gaps
    covered = cov["gap_length_ft"] <= 0.0
    row["downslope_fence_submitted"] = covered
    if covered:
        return None
    tied = piles.tied(d.index, "barrier")
    side = str(q.params.get("side", "downslope"))
    what = "downslope side" if side == "downslope" else "outline"
    text = (
        f"Stockpile {d.id}: bmps {', '.join(map(str, tied))}, tied to it by its pile_id, do not run along "
        "its "
        f"{what}: {cov['gap_length_ft']:,.0f} ft of the {cov['required_length_ft']:,.0f} ft there is not "
        "fenced."
        if tied
        else f"Stockpile {d.id}: no straw bale or filter fabric fence along its {what} "
        f"({cov['required_length_ft']:,.0f} ft)."
    )
    return ctx.finding(
        q,
        "stockpile_fence",
        "fail",
        text,
        required=True,
        feature_ids=[d.id],
        values=dict(cov),
        submitted=f"{cov['covered_length_ft']:,.0f} ft of the pile's {what} fenced",
        geometry=shapely.union_all(gaps.geometry.values) if len(gaps) else None,
        layer="stockpile_fences",
    )
