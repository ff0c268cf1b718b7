"""Dewatering treatment (DNR technical standard 1061, dewatering): water pumped from the site passed through a
dewatering bag or settling tank, or a sediment trap or basin, before it is discharged (Grantsburg B(1):
"shall be treated by temporary sedimentation basins or other appropriate BMPs").

When the plan declares dewatering, ``judge`` looks for what treats the pumped water: a submitted feature of
a practice that treats it (this one, or a trap or basin); the plan proposes a bag's pad beside the largest
trap or basin, else at the disturbed area's lowest outlet, else inside the disturbed area.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import shapely

from geosite.io.output import py_scalar
from geosite.practices.base import Outcome, PayItem, Practice
from geosite.practices.sediment_basin import SedimentBasin
from geosite.symbols import CadLook, Style

if TYPE_CHECKING:
    from geosite.practices.context import Context
    from geosite.rules import Finding, Requirement

#: Half the side of the square drawn for a dewatering bag's or tank's pad beside the trap it discharges to,
#: ft (a drawing size of geosite's, not a number of the standard).
PAD_HALF_FT = 5.0
#: the practice families that treat pumped water: a dewatering practice, or a trap or basin
TREATS = ("treatment", "trap")


class Dewatering(Practice):
    """A dewatering bag or settling tank for water pumped from the site (DNR 1061)."""

    name = "dewatering"
    title = "Dewatering treatment"
    standard = "DNR 1061"
    family = "treatment"
    looks: ClassVar[dict[str, Style]] = {
        "dewatering": Style(
            "polygon",
            "Dewatering bag or tank (DNR 1061)",
            face="#d6eaf8",
            edge="#1f618d",
            lw=0.8,
            hatch="//",
            z=6.5,
        )
    }
    drawn: ClassVar[dict[str, str]] = {"polygon": "dewatering"}
    serves = ("dewatering",)
    after = (SedimentBasin.name,)
    submitted: ClassVar[dict[str, dict[str, Any]]] = {
        "polygon": {"face": "none", "hatch": "//"},
        "point": {"marker": "s"},
    }
    cad = CadLook("C-ESCP-DEWT", 4, "CONTINUOUS", "dewatering treatment")
    pay = PayItem("EA", "count", "one bag or tank at each discharge", "DNR 1061")

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """The bag's pad the plan proposes where dewatering is declared."""
        out = Outcome(self.name, q.id)
        if not ctx.decision(q).met:
            return out
        basin = ctx.outcome_of(SedimentBasin.name)
        basins = basin.shared["plan"].outlets if basin is not None and "plan" in basin.shared else None
        where = None
        if basins is not None and len(basins):
            where = basins.geometry.iloc[int(np.argmax(basins["drainage_acres"].to_numpy()))]
        elif ctx.site.disturbed is not None:
            where = ctx.site.disturbed.representative_point()
        if where is None:
            return out
        h = PAD_HALF_FT / ctx.site.ft_per_unit  # the pad beside the trap it discharges to, not on its point
        pad = (
            shapely.box(where.x - h, where.y - h, where.x + h, where.y + h)
            if where.geom_type == "Point"
            else where
        )
        out.proposed = [
            {
                "type": self.name,
                "practice": "pumped water through a dewatering bag or settling tank before discharge",
                "standard": self.standard,
                "geometry": pad,
            }
        ]
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """When dewatering is declared, what the plan names to treat the pumped water."""
        if not ctx.decision(q).met:
            return []
        if ctx.bmps is None:
            return [
                ctx.finding(
                    q,
                    "dewatering_submitted",
                    "not_assessed",
                    f"Dewatering is declared: {q.requires}; no bmps layer submitted to show what treats it.",
                    required=True,
                    settle="a bmps layer with the plan's controls",
                )
            ]
        got = ctx.submitted(*TREATS)
        ids = [py_scalar(i) for i in got["id"]] if got is not None and len(got) else []
        types = ", ".join(ctx.catalogue.of(*TREATS))
        return [
            ctx.finding(
                q,
                "dewatering_submitted",
                "pass" if ids else "fail",
                f"Dewatering is declared and bmps {', '.join(map(str, ids))} treat the pumped water."
                if ids
                else "Dewatering is declared but the plan names nothing to treat the pumped water "
                f"({q.requires}; a "
                f"bmps feature of type {types}).",
                required=True,
                feature_ids=ids,
                submitted=f"bmps {', '.join(map(str, ids))}" if ids else "nothing that treats pumped water",
                geometry=shapely.union_all(got.geometry.values) if ids and got is not None else None,
                layer="bmps" if ids else None,
            )
        ]
