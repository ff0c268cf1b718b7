"""The controls stage of the analyze pipeline: each requirement of the profile that a practice serves, handed
to that practice (:mod:`geosite.practices.registry`) to place (what ``analyze`` proposes) and judge (what the
submitted ``bmps`` show), in the profile's order but for the practices that read another's outcome
(``Practice.after``: the fences' route turns on the basins').

Which controls a village asks for, and under which section, is its profile's ``[[requirements]]``: a
practice no requirement names is not placed. Every number comes from the profile (the requirement's
``params`` and ``[controls]``). Every finding passes through the site's gate (:class:`geosite.rules.Gate`,
computed once by the pipeline): where the chapter, or the scope a requirement sits in, does not apply,
nothing fails; where that is not decided, a would-be failure is ``not_assessed``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import geopandas as gpd

from geosite.practices import registry
from geosite.practices.context import Context, Flow
from geosite.practices.features import features_of
from geosite.rules import decide, site_gate

if TYPE_CHECKING:
    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid
    from geosite.practices.base import Outcome
    from geosite.rules import Finding, Profile, Requirement
    from geosite.site import Site, SiteMeasurements

#: what settles a practice that needs where flow goes, on a site without a DEM
NO_DEM = "no DEM: where flow leaves the disturbed area cannot be told"


@dataclass
class ControlsResult:
    """What the controls stage found: top-level report keys, findings, layers (site CRS), the controls it
    proposes (one row each: see :attr:`geosite.practices.base.Outcome.proposed`) and each requirement's
    outcome.
    """

    report: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)
    proposed: list[dict[str, Any]] = field(default_factory=list)
    outcomes: dict[str, Outcome] = field(default_factory=dict)


def measure_controls(
    site: Site,
    profile: Profile,
    dem: Dem | None,
    fg: FlowGrid | None,
    m: SiteMeasurements,
    *,
    step: Callable[[str], None] | None = None,
) -> ControlsResult:
    """Where the controls go and how the submitted ``bmps`` compare: each requirement a practice serves,
    placed and judged by it.

    Parameters
    ----------
    site : Site
        The site (its layers in the site CRS, lengths in ``site.ft_per_unit`` ft per CRS unit).
    profile : Profile
        The village's profile: its ``[[requirements]]`` and ``[controls]`` numbers (ft, acres, degrees).
    dem : Dem or None
        The DEM (elevations in ft, its own CRS); None when the site has none.
    fg : FlowGrid or None
        The flow grid on ``dem`` (None with it).
    m : SiteMeasurements
        The measurements so far; ``m.gate`` and ``m.decisions`` the site's gate and decided requirements
        (computed here from ``m`` when the pipeline has not).
    step : callable, optional
        Called with a short progress message before each placement.

    Returns
    -------
    ControlsResult
        Report keys, findings, layers (site CRS) and the proposed controls.
    """
    gate = m.gate if m.gate is not None else site_gate(profile, m)
    res = ControlsResult()
    res.report["controls_gate"] = {
        "chapter_applies": gate.applies,
        "why": gate.message,
        **{k: t.met for k, t in gate.scopes.items()},
    }
    served = [q for q in profile.requirements if _key(q) in registry.practice_keys()]
    if not any(q.kind == "practice" for q in served):
        return res
    ctx = Context(
        profile,
        gate,
        m,
        m.decisions if m.decisions is not None else decide(profile, m, gate),
        site,
        registry.catalogue(),
        flow=Flow(dem, fg) if dem is not None and fg is not None else None,
        bmps=site.layer("bmps"),
        step=step or (lambda _s: None),
    )
    res.report["submitted_controls"] = {"bmps_layer": ctx.bmps is not None}
    for q in ordered(served):
        _dispatch(ctx, q)
    _gather(ctx, res)
    return res


def _key(q: Requirement) -> str:
    """The practice key a requirement names (its practice, or a provision a practice judges)."""
    return q.practice or q.provision or ""


def ordered(reqs: list[Requirement]) -> list[Requirement]:
    """``reqs`` in the profile's order, each after the requirements served by the practices its own
    practice reads (``Practice.after``) when the profile has them.
    """
    served_by = {q.id: registry.serving(_key(q)).name for q in reqs}
    out: list[Requirement] = []
    left = list(reqs)
    while left:
        done = {served_by[q.id] for q in out}
        pending = {served_by[q.id] for q in left}
        ready = next(
            (q for q in left if all(a in done or a not in pending for a in registry.serving(_key(q)).after)),
            left[0],  # a cycle of `after`s: the profile's order
        )
        out.append(ready)
        left.remove(ready)
    return out


def _dispatch(ctx: Context, q: Requirement) -> None:
    """Requirement ``q`` placed and judged by the practice that serves it (not assessed where it needs a DEM
    and the site has none).
    """
    p = registry.serving(_key(q))
    if p.needs_dem and ctx.flow is None:
        out = _without_dem(ctx, q, p.name)
    else:
        out = p.place(ctx, q)
        ctx.outcomes[q.id] = out
        out.findings += p.judge(ctx, q, out)
    ctx.outcomes[q.id] = out


def _without_dem(ctx: Context, q: Requirement, name: str) -> Outcome:
    """The outcome of a practice that needs where flow goes, on a site without a DEM: not assessed."""
    from geosite.practices.base import Outcome

    out = Outcome(name, q.id)
    out.report[_key(q)] = {"assessed": False, "why": NO_DEM}
    text = q.requires
    out.findings.append(
        ctx.finding(
            q,
            f"controls.{_key(q)}",
            "not_assessed",
            f"{text[:1].upper()}{text[1:]}: not assessed ({NO_DEM}).",
            settle="a DEM covering the site and the land around it the chapter's map shows",
        )
    )
    return out


def _gather(ctx: Context, res: ControlsResult) -> None:
    """The outcomes into the stage's result: report entries (tables merged), findings in dispatch order,
    layers (one per name, the parts concatenated), proposed controls (and what each practice adds once all
    have proposed), the per-feature rows of the stockpiles.
    """
    proposed: list[dict[str, Any]] = []
    for out in ctx.outcomes.values():
        for k, v in out.report.items():
            if isinstance(v, dict) and isinstance(res.report.get(k), dict):
                res.report[k].update(v)
            else:
                res.report[k] = v
        res.findings += out.findings
        for name, gdf in out.layers.items():
            prev = res.layers.get(name)
            res.layers[name] = gdf if prev is None else _concat(prev, gdf)
        proposed += out.proposed
    for qid in ctx.outcomes:
        q = ctx.profile.requirement(qid)
        if q is not None and ctx.flow is not None:
            proposed += registry.serving(_key(q)).finish(ctx, q, proposed)
    res.proposed, res.outcomes = proposed, dict(ctx.outcomes)
    piles = features_of(ctx, "stockpiles")
    if piles.frame is not None:
        res.report["stockpiles"] = [dict(r) for r in piles.rows]


def _concat(a: gpd.GeoDataFrame, b: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Two parts of one layer as one (the first's CRS; what the parts' engines kept on them left behind)."""
    parts = [a.copy(), b.to_crs(a.crs)]
    for p in parts:
        p.attrs = {}
    return gpd.GeoDataFrame(gpd.pd.concat(parts, ignore_index=True), geometry="geometry", crs=a.crs)
