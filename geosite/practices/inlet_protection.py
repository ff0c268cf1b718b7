"""Storm drain inlet protection (DNR technical standard 1060): a barrier at each inlet the requirement reaches
(Grantsburg B(4): "all storm drain inlets"; DNR 1060 alone: the inlets in the disturbed area or receiving
its runoff), and a trap or basin upstream as well where an inlet drains more than the standard's one acre.

``place`` decides which inlets need protection (:func:`geosite.controls.inlet_protection`: the
requirement's ``which``); ``judge`` looks for a submitted protection within ``[controls] inlet_search_ft`` of
each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import shapely

from geosite import controls
from geosite.io.output import py_scalar
from geosite.practices.base import Outcome, OutputLayer, PayItem, Practice
from geosite.practices.context import mark
from geosite.rules.registry import TEXT, Param
from geosite.symbols import Block, CadLook, Style

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.practices.context import Context
    from geosite.rules import Finding, Requirement


class InletProtection(Practice):
    """Protection at a storm drain inlet (DNR 1060)."""

    name = "inlet_protection"
    title = "Storm drain inlet protection"
    standard = "DNR 1060"
    family = "inlet"
    drawn: ClassVar[dict[str, str]] = {"point": "inlet_protection"}
    serves = ("inlet_protection",)
    params: ClassVar[dict[str, Param]] = {
        "which": Param(
            TEXT,
            choices=controls.inlets.WHICH,
            required=True,
            text="all: every inlet on the site, within [controls] inlet_adjacent_ft, or reached by its "
            "runoff; "
            "receiving: inlets in the disturbed area or receiving its runoff",
        ),
    }
    controls = ("inlet_protection_max_drainage_acres", "inlet_search_ft", "inlet_adjacent_ft")
    looks: ClassVar[dict[str, Style]] = {
        "inlet_protection": Style(
            "point",
            "Storm drain inlet protection",
            face="#f1c40f",
            edge="#1a1a1a",
            marker="D",
            size=6.0,
            z=8.5,
        ),
    }
    layers = (
        OutputLayer(
            "inlet_protection",
            "Point",
            (
                ("id", "int"),
                ("name", "str"),
                ("status", "str"),
                ("in_disturbed", "bool"),
                ("on_site", "bool"),
                ("adjacent", "bool"),
                ("downslope_of_disturbed", "bool"),
                ("protection_required", "bool"),
                ("drainage_area_sqft", "float"),
                ("drainage_area_acres", "float"),
                ("trap_or_basin_required", "bool"),
                ("protected", "bool"),
                ("required", "bool"),
            ),
            (("Storm drain inlet protection", "inlet_protection", None),),
            {"": CadLook("C-ESCP-INLT", 2, "CONTINUOUS", "storm drain inlet protection")},
            block="GS_INLET_PROTECTION",
            qgis_label=("name", None, "#1a1a1a", 6.0),
            label=lambda _row: "INLET PROTECTION",
        ),
    )
    submitted: ClassVar[dict[str, dict[str, Any]]] = {
        "polygon": {"face": "#f9e79f", "hatch": None},
        "point": {"marker": "D"},
    }
    stands_at = ("storm_inlets",)
    cad = CadLook("C-ESCP-INLT", 2, "CONTINUOUS", "storm drain inlet protection")
    # a diamond round a grate (the sheets' yellow diamond)
    blocks = (
        Block(
            "GS_INLET_PROTECTION",
            (
                ("poly", [(0, 1), (1, 0), (0, -1), (-1, 0)]),
                ("poly", [(-0.45, -0.45), (0.45, -0.45), (0.45, 0.45), (-0.45, 0.45)]),
                ("line", ((-0.45, -0.45), (0.45, 0.45))),
                ("line", ((-0.45, 0.45), (0.45, -0.45))),
            ),
            (
                "id",
                "name",
                "status",
                "protected",
                "drainage_area_acres",
                "trap_or_basin_required",
                "required",
            ),
        ),
    )
    pay = PayItem("EA", "count", "one at each inlet protected, by its type (method)", "DNR 1060", by="method")

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """Which inlets need protection, and whether each has it."""
        out = Outcome(self.name, q.id)
        inlets = ctx.site.layer("storm_inlets")
        if inlets is None:
            out.report["inlets"] = []
            return out
        ctx.step("checking storm drain inlets")
        which = str(q.param("which"))
        flow = ctx.flow
        got = controls.inlet_protection(
            inlets,
            ctx.site.disturbed,
            None if flow is None else flow.dem,
            None if flow is None else flow.fg,
            max_drainage_acres=float(ctx.control("inlet_protection_max_drainage_acres")),
            site=ctx.site.boundary,
            adjacent_ft=float(ctx.control("inlet_adjacent_ft")) if which == "all" else None,
            which=which,
        )
        got["protected"] = controls.protected(
            got, ctx.bmps, ctx.catalogue.of(self.family), float(ctx.control("inlet_search_ft"))
        )
        need = got[got["protection_required"].fillna(False).astype(bool)]
        out.layers["inlet_protection"] = mark(need, ctx.open(q))
        out.report["inlets"] = _report(got, ctx.bmps)
        out.shared.update(inlets=got, need=need)
        out.proposed = [
            {
                "type": self.name,
                "practice": "storm drain inlet protection",
                "standard": self.standard,
                "geometry": g,
            }
            for g in need.geometry
        ]
        out.findings += _not_required(ctx, q, got, _scope(ctx, which))
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """The submitted protection at each inlet that needs it."""
        need: gpd.GeoDataFrame | None = placed.shared.get("need")
        if need is None or not len(need):
            return []
        return _submitted(ctx, q, need, _scope(ctx, str(q.param("which"))))


def _scope(ctx: Context, which: str) -> str:
    """The inlets the requirement reaches, in words."""
    if which == "all":
        near = float(ctx.control("inlet_adjacent_ft"))
        return f"on the site, within {near:g} ft of it, or reached by its runoff"
    return "in the disturbed area or receiving its runoff"


def _report(out: gpd.GeoDataFrame, bmps: gpd.GeoDataFrame | None) -> list[dict[str, Any]]:
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


def _ids(gdf: gpd.GeoDataFrame) -> list[Any]:
    return [py_scalar(i) for i in gdf["id"]]


def _place(gdf: gpd.GeoDataFrame) -> dict[str, Any]:
    """The finding's place: the inlets of ``gdf``."""
    return {
        "feature_ids": _ids(gdf),
        "geometry": shapely.union_all(gdf.geometry.values) if len(gdf) else None,
        "layer": "storm_inlets",
    }


def _not_required(ctx: Context, q: Requirement, out: gpd.GeoDataFrame, scope: str) -> list[Finding]:
    """The inlets the requirement does not reach (``scope``), and those it is not known to."""
    req = out["protection_required"]
    unknown = out[req.isna()]
    free = out[req.apply(lambda v: v is False)]
    found = []
    if len(free):
        anyway = " (protected anyway)." if free["protected"].all() and ctx.bmps is not None else "."
        found.append(
            ctx.finding(
                q,
                "inlet_protection_not_required",
                "info",
                f"Storm drain inlet(s) {', '.join(map(str, _ids(free)))} are not {scope}: {q.citation} does "
                "not ask "
                f"for their protection{anyway}",
                **_place(free),
            )
        )
    if len(unknown):
        found.append(
            ctx.finding(
                q,
                "inlet_protection_unknown",
                "not_assessed",
                f"Storm drain inlet(s) {', '.join(map(str, _ids(unknown)))}: whether the disturbed area's "
                "runoff "
                "reaches them is not assessed (no DEM heights there).",
                settle="a DEM covering the inlets and the disturbed area",
                **_place(unknown),
            )
        )
    return found


def _submitted(ctx: Context, q: Requirement, need: gpd.GeoDataFrame, scope: str) -> list[Finding]:
    """The submitted protection at each inlet that needs it."""
    ids = _ids(need)
    if ctx.bmps is None:
        return [
            ctx.finding(
                q,
                "inlet_protection_submitted",
                "not_assessed",
                f"{len(need)} inlet(s) need protection ({q.citation}: {scope}); no bmps layer submitted.",
                required=True,
                settle="a bmps layer with the plan's controls",
                **_place(need),
            )
        ]
    bad = need[~need["protected"]]
    search = float(ctx.control("inlet_search_ft"))
    found = [
        ctx.finding(
            q,
            "inlet_protection_submitted",
            "fail" if len(bad) else "pass",
            f"Storm drain inlet(s) {', '.join(map(str, _ids(bad)))} without inlet protection within "
            f"{search:g} ft "
            f"({q.citation}: every inlet {scope})."
            if len(bad)
            else f"Every storm drain inlet {scope} is protected ({len(need)}: {', '.join(map(str, ids))}).",
            required=True,
            submitted=f"{int(need['protected'].sum())} of {len(need)} inlets protected",
            **_place(bad if len(bad) else need),
        )
    ]
    big = need[need["trap_or_basin_required"]]
    if len(big):
        limit = float(ctx.control("inlet_protection_max_drainage_acres"))
        found.append(
            ctx.finding(
                q,
                "inlet_drainage",
                "info",
                f"Inlet(s) {', '.join(map(str, _ids(big)))} drain more than {limit:g} acre: DNR 1060 "
                "protection is "
                "for 1 acre or less, so a sediment trap or basin upstream as well (the kind of protection, "
                "not "
                "whether).",
                **_place(big),
            )
        )
    return found
