"""Stockpile setback: soil piles kept a distance from the roads and waters downslope of them (Grantsburg
B(6)(e): "a minimum of 25 ft from any downslope road, lake, stream, wetland, or drainage channel,
wherever possible").

The requirement's ``params`` say the distance (``setback_ft``), what it is measured to (``to``: layer names,
``dem_channels`` for the channels traced on the DEM), how (``along``: ``straight``, the shortest line to a
feature lying downslope, or ``flow_path``, the drainage length along the flow path from the pile's
downslope edge), whether only downslope features count, and whether a closer pile with the plan's reason and
extra BMPs is the official's decision ("wherever possible") or fails. Each pile is decided by the
requirement's own conditions (:mod:`geosite.practices.features`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import shapely

from geosite import controls
from geosite.practices.base import Outcome, OutputLayer, Practice
from geosite.practices.context import mark
from geosite.practices.features import ALONG, DEM_CHANNELS, Nearest, features_of
from geosite.rules.registry import BOOL, LIST, NUMBER, SETBACK_FEATURES, TEXT, Param
from geosite.symbols import CadLook, Style

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.practices.context import Context
    from geosite.practices.features import FeatureDecision, Features
    from geosite.rules import Finding, Requirement


class StockpileSetback(Practice):
    """A distance kept between each soil pile and the roads and waters downslope of it."""

    name = "stockpile_setback"
    title = "Stockpile setback"
    standard = ""
    family = "setback"
    serves = ("stockpile_setback",)
    params: ClassVar[dict[str, Param]] = {
        "setback_ft": Param(
            NUMBER, "ft", required=True, text="distance a pile keeps from the features named in 'to'"
        ),
        "to": Param(
            LIST,
            choices=SETBACK_FEATURES,
            required=True,
            text="the kinds of feature the setback is measured to",
        ),
        "along": Param(
            TEXT,
            choices=ALONG,
            text="how it is measured: straight (the shortest line to a feature downslope, the default) or "
            "flow_path (the drainage length along the flow path from the pile's downslope edge)",
        ),
        "downslope_only": Param(BOOL, text="only features downslope of the pile count (default true)"),
        "wherever_possible": Param(
            BOOL,
            text="a closer pile with the plan's reason and extra BMPs is the inspector's decision (default "
            "true); false: a closer pile fails",
        ),
    }
    controls = ("stockpile_trace_ft", "stockpile_reach_tolerance_ft", "fence_sideslope_tolerance_deg")
    needs_dem = True
    looks: ClassVar[dict[str, Style]] = {
        "stockpile_setbacks": Style(
            "polygon",
            "Stockpile setback zones",
            face="none",
            edge="#d35400",
            lw=0.7,
            ls=(0, (3, 2)),
            hatch="xx",
            z=4.5,
        ),
    }
    layers = (
        OutputLayer(
            "stockpile_setbacks",
            "MultiPolygon",
            (("pile_id", "int"), ("setback_ft", "float"), ("required", "bool")),
            (("Stockpile setback zones", "stockpile_setbacks", None),),
            {"": CadLook("C-ESCP-STKP-SETB", 30, "DASHED", "stockpile setback zones")},
            control=False,
        ),
    )

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """Each pile's setback zone and the nearest feature downslope of it."""
        out = Outcome(self.name, q.id)
        piles = features_of(ctx, "stockpiles")
        if piles.frame is None or ctx.flow is None:
            return out
        ctx.step("checking stockpile setbacks")
        setback = float(q.param("setback_ft"))
        found = controls.stockpile_setbacks(
            piles.frame,
            _targets(ctx, q),
            ctx.flow.dem,
            ctx.flow.fg,
            min_setback_ft=setback,
            trace_ft=float(ctx.control("stockpile_trace_ft")),
            tolerance_deg=float(ctx.control("fence_sideslope_tolerance_deg")),
            hook_ft=0.0,
            reach_tolerance_ft=float(ctx.control("stockpile_reach_tolerance_ft")),
            downslope_only=bool(q.params.get("downslope_only", True)),
        )
        rep = found.piles
        if q.params.get("along", "straight") == "flow_path":
            rep = [_along_flow(piles, i, r, q, setback) for i, r in enumerate(rep)]
        out.layers["stockpile_setbacks"] = mark(found.zones, ctx.open(q))
        for row, r in zip(piles.rows, rep, strict=True):
            row.update({k: v for k, v in r.items() if k != "features"})
            row["downslope_distance_ft"] = r["min_setback_ft"]
        out.shared["piles"] = rep
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """Each pile the requirement applies to, against its setback."""
        rep: list[controls.PileReport] | None = placed.shared.get("piles")
        if rep is None:
            return []
        piles = features_of(ctx, "stockpiles")
        setback = float(q.param("setback_ft"))
        extra = _extra_bmps(ctx)
        found: list[Finding] = []
        for d, r in zip(piles.decide(q), rep, strict=True):
            found += _upslope(ctx, q, piles, r)
            found.append(_pile(ctx, q, piles, d, r, setback=setback, extra=extra))
        return found


def _targets(ctx: Context, q: Requirement) -> dict[str, gpd.GeoDataFrame | None]:
    """The layers piles keep their setback from (the requirement's ``to``), by layer name; the channels
    traced on the DEM count as much as drawn ones.
    """
    kinds = tuple(q.param("to"))
    features = {k: ctx.site.layer(k) for k in kinds if k != DEM_CHANNELS}
    chan = ctx.m.layers.get("channels")
    if chan is not None and len(chan) and DEM_CHANNELS in kinds:
        features[DEM_CHANNELS] = chan
    return features


def _along_flow(
    piles: Features, i: int, r: controls.PileReport, q: Requirement, setback: float
) -> controls.PileReport:
    """Pile ``i``'s report measured along the flow path: the nearest feature of ``to`` its runoff reaches and
    the drainage length to it, ft (``setback``: the requirement's distance, ft).
    """
    near: Nearest = piles.nearest(i, tuple(q.param("to")), "flow_path")
    reached = near.distance_ft is not None and near.distance_ft < float("inf")
    return {
        **r,
        "min_setback_ft": near.distance_ft if reached else None,
        "nearest_feature": {
            "layer": str(near.layer),
            "id": near.id,
            "distance_ft": float(near.distance_ft or 0.0),
        }
        if reached
        else None,
        "downslope": reached,
        "violation": bool(reached and (near.distance_ft or 0.0) < setback),
        "near_upslope": [],
        "undecided": [] if near.distance_ft is not None else r["undecided"],
    }


def feature_name(f: Any, among: list[Any] | None = None) -> str:
    """A feature as the findings name it; a channel traced on the DEM also names the nearest drawn
    downslope feature of ``among`` (often the same creek, drawn).
    """
    if f["layer"] != DEM_CHANNELS:
        return f"{f['layer']} {f['id']}"
    drawn = next((g for g in among or [] if g["downslope"] and g["layer"] != DEM_CHANNELS), None)
    also = f"; {drawn['layer']} {drawn['id']} is {drawn['distance_ft']:,.1f} ft away" if drawn else ""
    return f"drainage channel {f['id']} (traced on the DEM{also})"


def _upslope(ctx: Context, q: Requirement, piles: Features, r: controls.PileReport) -> list[Finding]:
    """The features within the setback of pile ``r`` that are not downslope of it: information only."""
    return [
        ctx.finding(
            q,
            "stockpile_setback_upslope",
            "info",
            f"Stockpile {r['id']} is {f['distance_ft']:,.1f} ft from {feature_name(f)}, which is not "
            "downslope "
            "of it (no setback required).",
            feature_ids=[r["id"]],
            geometry=_pile_geom(piles, r["id"]),
            layer="stockpiles",
        )
        for f in r["near_upslope"]
    ]


def _pile_geom(piles: Features, pid: Any) -> Any:
    """Pile ``pid``'s polygon (site CRS)."""
    assert piles.frame is not None
    return piles.frame.geometry.iloc[piles.ids.index(pid)]


def _to_feature(ctx: Context, piles: Features, r: controls.PileReport) -> Any:
    """The shortest line from pile ``r`` to the feature too close (the pile itself where it is not found)."""
    pile = _pile_geom(piles, r["id"])
    nf = r.get("nearest_feature")
    if not nf or nf["layer"] == DEM_CHANNELS:
        return pile
    layer = ctx.site.layer(nf["layer"])
    if layer is None or "id" not in layer.columns:
        return pile
    hit = layer[layer["id"] == nf["id"]]
    return shapely.shortest_line(pile, hit.geometry.iloc[0]) if len(hit) else pile


def _pile(
    ctx: Context,
    q: Requirement,
    piles: Features,
    d: FeatureDecision,
    r: controls.PileReport,
    *,
    setback: float,
    extra: dict[Any, str],
) -> Finding:
    """Pile ``r``'s setback finding, as its decision ``d`` (the requirement's conditions for it) allows."""
    where = {"feature_ids": [r["id"]], "geometry": _pile_geom(piles, r["id"]), "layer": "stockpiles"}
    got = r["min_setback_ft"]
    sub = {
        "submitted": f"{got:,.1f} ft from the nearest feature downslope"
        if got is not None
        else "no feature downslope"
    }
    if d.applies is not True:
        return _not_decided(ctx, q, d, where)
    nf = r["nearest_feature"]
    name = feature_name(nf, r["features"]) if nf else ""
    if r["violation"]:
        more = "; ".join(v for v in (extra.get(r["id"]), r["extra_bmps"]) if v) or None
        return _too_close(ctx, q, r, setback, name=name, more=more, where={**where, **sub})
    if r.get("undecided"):
        near = ", ".join(f"{feature_name(f)} at {f['distance_ft']:,.1f} ft" for f in r["undecided"])
        return ctx.finding(
            q,
            "stockpile_setback",
            "not_assessed",
            f"Stockpile {r['id']}: within {setback:g} ft of {near}; the DEM has no heights at the pile's "
            "edge or at "
            "the feature and the pile's flow does not reach it, so whether it is downslope cannot be told.",
            required=True,
            settle="a DEM with heights at the pile's edge and the feature",
            **where,
        )
    return ctx.finding(
        q,
        "stockpile_setback",
        "pass",
        f"Stockpile {r['id']}: "
        + (
            f"nearest downslope feature {got:,.1f} ft away ({name})."
            if got is not None
            else "no road, lake, stream, wetland or drainage channel downslope."
        ),
        values={"min_setback_ft": got},
        **where,
        **sub,
    )


def _not_decided(ctx: Context, q: Requirement, d: FeatureDecision, where: dict[str, Any]) -> Finding:
    """Pile ``d`` the requirement does not apply to (its conditions not met), or may (not decided)."""
    if d.applies is False:
        return ctx.finding(
            q,
            "stockpile_setback",
            "info",
            f"Stockpile {d.id}: the requirement does not apply to it ({d.why}).",
            **where,
        )
    return ctx.finding(
        q,
        "stockpile_setback",
        "not_assessed",
        f"Stockpile {d.id}: whether the requirement applies to it is not assessed ({d.why}).",
        settle="the pile's attributes its conditions read",
        **where,
    )


def _too_close(
    ctx: Context,
    q: Requirement,
    r: controls.PileReport,
    setback: float,
    *,
    name: str,
    more: str | None,
    where: dict[str, Any],
) -> Finding:
    """Pile ``r`` closer than ``setback`` ft to ``name`` downslope: the official's decision when the plan says
    why and what more it does (``more``), else a failure.
    """
    possible = bool(q.params.get("wherever_possible", True))
    reason = r["setback_reason"] if possible else None  # without "wherever possible" a closer pile fails
    how = " along its drainage path" if q.params.get("along") == "flow_path" else ""
    base = f"Stockpile {r['id']} is {r['min_setback_ft']:,.1f} ft{how} from downslope {name}; {q.requires}."
    geometry = where.pop("geometry")
    if reason and more:
        return ctx.finding(
            q,
            "stockpile_setback",
            "inspector_decision",
            f'{base} The plan says why {setback:g} ft is not possible ("{reason}") and what more it does '
            "there "
            f"({more}): {q.citation} leaves piles closer than {setback:g} ft to the {ctx.profile.official}, "
            "who "
            "may require additional or different BMPs. The inspector's decision.",
            required=True,
            values={"min_setback_ft": r["min_setback_ft"], "setback_reason": reason, "extra_bmps": more},
            geometry=geometry,
            **where,
        )
    lack = "why it is not possible (the pile's setback_reason)" if not reason else ""
    if not more:
        told = r["extra_bmps"] and ctx.bmps is not None
        lack += (" and " if lack else "") + (
            f'what more it does there (its extra_bmps says "{r["extra_bmps"]}", but no bmps feature carries '
            "the "
            "pile's pile_id)"
            if told
            else "what more it does there (extra_bmps)"
        )
    return ctx.finding(
        q,
        "stockpile_setback",
        "fail",
        f"{base} The plan does not say {lack}, so {q.citation}'s 'wherever possible' is not shown."
        if possible
        else f"{base} ({q.citation}: no exception.)",
        required=True,
        values={"min_setback_ft": r["min_setback_ft"]},
        geometry=_line_to(ctx, r) or geometry,  # the line from the pile to the feature too close
        **where,
    )


def _line_to(ctx: Context, r: controls.PileReport) -> Any:
    """The shortest line from pile ``r`` to the feature too close (None where the feature has no place in a
    layer: a channel traced on the DEM).
    """
    g = _to_feature(ctx, features_of(ctx, "stockpiles"), r)
    return g if g.geom_type == "LineString" else None


def _extra_bmps(ctx: Context) -> dict[Any, str]:
    """BMPs the plan ties to a pile (a ``pile_id`` attribute): pile id -> "bmps 7 (silt fence), ..."."""
    bmps = ctx.bmps
    if bmps is None or "pile_id" not in bmps.columns:
        return {}
    from geosite.io.output import py_scalar

    out: dict[Any, list[str]] = {}
    types = bmps["type"] if "type" in bmps.columns else [""] * len(bmps)
    for i, pid, t in zip(bmps["id"], bmps["pile_id"], types, strict=True):
        if pid is None or (isinstance(pid, float) and pid != pid):
            continue
        out.setdefault(py_scalar(pid), []).append(f"bmps {py_scalar(i)} ({t})")
    return {k: ", ".join(v) for k, v in out.items()}
