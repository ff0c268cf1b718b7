"""Stockpile stabilization: a soil pile kept longer than a chapter allows unstabilized is mulched, seeded or
covered (Grantsburg B(6)(e): "piles remaining for more than 30 days stabilized by mulching, vegetative
cover, tarps or other means").

Each pile is decided by the requirement's own conditions (its ``days``, or any measure of the pile:
:mod:`geosite.practices.features`); a pile that needs it is stabilized in the plan when its
``stabilization`` attribute says how, or a submitted cover (mulch, seed, mat, tarp) carries its
``pile_id``. The plan proposes mulch over each pile that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from geosite.practices.base import Outcome, Practice
from geosite.practices.features import features_of, text_at
from geosite.practices.stabilization import Stabilization

if TYPE_CHECKING:
    from geosite.practices.context import Context
    from geosite.practices.features import FeatureDecision, Features
    from geosite.rules import Finding, Requirement


class StockpileStabilization(Practice):
    """Mulch, seed or a tarp over a soil pile kept longer than the chapter allows unstabilized."""

    name = "stockpile_stabilization"
    title = "Stockpile stabilization"
    standard = "DNR 1058"
    family = "schedule"
    serves = ("stockpile_stabilization",)

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """Which piles must be stabilized, and the mulch the plan proposes over each."""
        out = Outcome(self.name, q.id)
        piles = features_of(ctx, "stockpiles")
        if piles.frame is None:
            return out
        decided = piles.decide(q)
        for d in decided:
            piles.rows[d.index]["stabilization_required"] = d.applies
        out.shared["decided"] = decided
        out.proposed = [
            {
                "type": Stabilization.name,
                "practice": "mulch or tarp the pile (kept longer than the chapter allows unstabilized)",
                "standard": self.standard,
                "geometry": piles.frame.geometry.iloc[d.index],
                "method": "mulch",
                "pile_id": d.id,
            }
            for d in decided
            if d.applies
        ]
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """Each pile that must be stabilized, against what the plan says or draws for it."""
        decided: list[FeatureDecision] = placed.shared.get("decided", [])
        piles = features_of(ctx, "stockpiles")
        return [_pile(ctx, q, piles, d) for d in decided if d.applies is not False]


def _pile(ctx: Context, q: Requirement, piles: Features, d: FeatureDecision) -> Finding:
    """Pile ``d``'s stabilization in the plan (``d.applies`` True or None)."""
    assert piles.frame is not None
    where = {"feature_ids": [d.id], "geometry": piles.frame.geometry.iloc[d.index], "layer": "stockpiles"}
    because = f" ({d.why})" if d.why else ""
    if d.applies is None:
        return ctx.finding(
            q,
            "stockpile_stabilization",
            "not_assessed",
            f"Stockpile {d.id}: whether it must be stabilized is not assessed{because}.",
            required=None,
            settle="the pile's attributes the requirement's conditions read (its days)",
            **where,
        )
    said = piles.rows[d.index].get("stabilization") or _said(piles, d.index)
    tied = piles.tied(d.index, "cover")
    ok = bool(said) or bool(tied)
    how = (
        f"the plan stabilizes it: {said}"
        if said
        else f"bmps {', '.join(map(str, tied))} stabilize it"
        if tied
        else ""
    )
    return ctx.finding(
        q,
        "stockpile_stabilization",
        "pass" if ok else "fail",
        f"Stockpile {d.id}{because}: {how}."
        if ok
        else f"Stockpile {d.id}{because}: the plan does not stabilize it ({q.requires}; give the pile a "
        "'stabilization' attribute or a stabilization bmps feature with its pile_id).",
        required=True,
        submitted=how or "no stabilization given",
        **where,
    )


def _said(piles: Features, i: int) -> str | None:
    """The pile's own ``stabilization`` attribute (None when not given)."""
    return text_at(piles.frame, i, "stabilization")
