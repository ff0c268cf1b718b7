"""Temporary BMPs removed once the ground they serve is stabilized (Grantsburg B(6)(f)), read from each
submitted feature's ``remove`` date against the stabilization of the disturbance nearest it (every polygon
at the least distance). Which features are temporary is each practice's descriptor
(:attr:`geosite.practices.base.Practice.temporary`: a cover stays); a feature or ground without the dates
is left to the schedule and the stabilization findings that ask for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geosite.io.output import py_scalar
from geosite.practices.base import Outcome, Practice
from geosite.practices.stabilization import stabilized_on

if TYPE_CHECKING:
    from geosite.practices.context import Context
    from geosite.rules import Finding, Requirement


class TemporaryRemoval(Practice):
    """The removal of temporary BMPs after stabilization (a plan provision judged from the plan's dates)."""

    name = "bmp_removal"
    title = "Removal of temporary BMPs"
    family = "schedule"
    serves = ("bmp_removal",)

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """Each temporary feature's ``remove`` date against the stabilization of the ground it serves."""
        dist, bmps = ctx.site.layer("disturbance"), ctx.bmps
        if dist is None or not len(dist) or bmps is None or "remove" not in bmps.columns:
            return []
        covers = ctx.submitted("cover")
        kept = set(ctx.catalogue.kept)
        ends = dist["end"] if "end" in dist.columns else [None] * len(dist)
        ready = [stabilized_on(dist, i, covers, e) for i, e in enumerate(ends)]
        early: list[Any] = []
        judged = 0
        types = bmps["type"] if "type" in bmps.columns else [""] * len(bmps)
        for fid, kind, gone, g in zip(bmps["id"], types, bmps["remove"], bmps.geometry, strict=True):
            if str(kind) in kept or gone is None or gone != gone:
                continue
            d = dist.geometry.distance(g)
            served = [r for r, x in zip(ready, d, strict=True) if x <= d.min() + 1e-9]
            if None in served:
                continue
            judged += 1
            if gone < max(served):
                early.append(py_scalar(fid))
        if not judged:
            return []
        return [
            ctx.finding(
                q,
                "bmp_removal_submitted",
                "fail" if early else "pass",
                f"bmps {', '.join(map(str, early))}: removed before the ground they serve is stabilized "
                f"({q.requires}; each feature's remove date against the stabilized date of the disturbance "
                "nearest "
                "it)."
                if early
                else "Every temporary BMP is removed on or after the stabilization of the ground it serves "
                f"({judged} features with dates).",
                required=True,
                submitted=f"{len(early)} of the {judged} dated temporary BMPs removed before the ground they "
                "serve is stabilized"
                if early
                else f"{judged} dated temporary BMPs",
                feature_ids=early,
                layer="bmps",
            )
        ]
