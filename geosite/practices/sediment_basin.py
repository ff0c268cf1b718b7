"""Sediment basin (DNR technical standard 1064), and the requirement for basins or traps at every outlet of
the disturbed area (Grantsburg B(6)(c)[2]; Belgium's design criteria).

``place`` finds the outlets (:func:`geosite.controls.disturbed_outlets`: where the disturbed area's runoff
leaves it and how much land drains there), the control each needs by its drainage (a trap under DNR
1063's limit, a basin up to DNR 1064's, and beyond that a named stand-in for the inspector: basins in
series or the clean runoff diverted, designed by an engineer), the trap footprints
(:mod:`geosite.practices.sediment_trap`), and the submitted basins and traps receiving each outlet's
runoff; ``judge`` says whether each outlet has one of a kind its drainage suits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import geopandas as gpd
import numpy as np
import shapely

from geosite import controls
from geosite.io.output import py_scalar
from geosite.practices import sediment_trap
from geosite.practices.base import Outcome, OutputLayer, PayItem, Practice
from geosite.practices.context import mark
from geosite.rules.registry import TEXT, Param
from geosite.symbols import Block, CadLook, Style

if TYPE_CHECKING:
    from geosite.practices.context import Context, Flow
    from geosite.rules import Finding, Requirement

#: the drainage classes of geosite.controls.basin_kind: the practice each needs (None: none suits alone)
NEEDS = {"trap": sediment_trap.SedimentTrap.name, "basin": "sediment_basin", "beyond": None}
#: what the plan proposes where an outlet drains more than one basin may (DNR 1064's largest drainage)
BEYOND = (
    "more than one sediment basin (in series or in parallel) or the clean upslope runoff diverted around the "
    "work, designed by an engineer for this drainage: DNR 1064's basin is for {limit:g} acres at most; "
    "for the {official}'s decision"
)


def basin_label(row: Any) -> str:
    """A sediment basin's or trap's CAD label (capitals, as CAD notes are lettered): its kind, storage and
    drainage area.
    """
    kind = str(row.get("kind") or "sediment basin").replace("_", " ").upper()
    parts = [kind]
    storage, acres = row.get("storage_cy"), row.get("drainage_acres")
    if storage is not None and storage == storage and float(storage) > 0:
        parts.append(f"{float(storage):,.0f} CY STORAGE")
    if acres is not None and acres == acres:
        parts.append(f"{float(acres):.2f} AC DRAIN HERE")
    return "\n".join(parts)


class SedimentBasin(Practice):
    """A sediment basin, and the requirement for a basin or trap at every outlet of the disturbed area."""

    name = "sediment_basin"
    title = "Sediment basin"
    standard = "DNR 1064"
    family = "trap"
    drawn: ClassVar[dict[str, str]] = {"point": "sediment_basins"}
    serves = ("sediment_basin",)
    params: ClassVar[dict[str, Param]] = {
        "outlets": Param(
            TEXT,
            choices=("all", "concentrated"),
            text="which outlets of the disturbed area need a trap or basin: every outlet draining at least "
            "[controls] basin_outlet_min_acres, or only where concentrated runoff leaves",
        ),
    }
    controls = (
        "sediment_trap_max_drainage_acres",
        "sediment_basin_max_drainage_acres",
        "basin_outlet_min_acres",
        "basin_outlet_merge_ft",
        "basin_search_ft",
    )
    needs_dem = True
    looks: ClassVar[dict[str, Style]] = {
        # the analysis' basins (and traps the profile gives no size for) are outlets (points): a circle
        "sediment_basins": Style(
            "point",
            "Sediment trap or basin at an outlet (label: type, drainage; sized per its DNR standard)",
            face="#a9cce3",
            edge="#1f618d",
            marker="o",
            size=9.0,
            z=8.3,
        ),
        "sediment_basins_submitted": Style(
            "polygon",
            "Sediment trap or basin, at its size (label: type, storage)",
            face="#a9cce3",
            edge="#1f618d",
            lw=1.0,
            hatch="--",
            z=6,
            clear="footprint",
        ),
    }
    layers = (
        OutputLayer(
            "sediment_basins",
            "Point",
            (
                ("outlet", "int"),
                ("kind", "str"),
                ("limit", "str"),
                ("drainage_sqft", "float"),
                ("drainage_acres", "float"),
                ("disturbed_sqft", "float"),
                ("disturbed_acres", "float"),
                ("concentrated", "bool"),
                ("exit_cell_count", "int"),
                ("required", "bool"),
            ),
            (("Sediment basins and traps", "sediment_basins", None),),
            {"": CadLook("C-ESCP-BASN", 5, "CONTINUOUS", "sediment basins and traps")},
            block="GS_SEDIMENT_BASIN",
            qgis_label=("replace(\"kind\", '_', ' ')", None, "#1f618d", 6.0),
            label=basin_label,
            sized=True,
        ),
    )
    submitted: ClassVar[dict[str, dict[str, Any]]] = {
        "polygon": {"face": "#a9cce3", "hatch": "--"},
        "point": {"marker": "o"},
    }
    cad = CadLook("C-ESCP-BASN", 5, "CONTINUOUS", "sediment basins and traps")
    blocks = (
        Block(
            "GS_SEDIMENT_BASIN_RECT",
            (
                ("poly", [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]),
                ("line", ((-0.4, 0.2), (0.4, 0.2))),
                ("line", ((-0.4, 0.0), (0.4, 0.0))),
                ("line", ((-0.4, -0.2), (0.4, -0.2))),
            ),
            ("kind", "outlet", "drainage_acres", "disturbed_acres", "size", "storage_cy", "required"),
        ),
    )
    pay = PayItem(
        "CY",
        "storage",
        "storage by the basin's design (its storage_cy)",
        "DNR 1064",
        also=(PayItem("SF", "surface", "surface of the basin's storage", "DNR 1064", part="surface"),),
        part="storage",
    )

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """The outlets needing a trap or basin, their footprints, and the submitted ones at them."""
        out = Outcome(self.name, q.id)
        out.report["sediment_basin"] = _summary(ctx, q)
        dist = ctx.m.layers.get("disturbed_area")
        if dist is None or not len(dist) or ctx.flow is None:
            out.report["sediment_basin_location"] = {"required": None, "why": "no disturbance layer"}
            return out
        d = ctx.decision(q)
        ctx.step("locating sediment basins and traps")
        b = _plan(ctx, ctx.flow, q, dist)
        out.report["sediment_basin_location"] = b.rep
        route_req = d.met if not b.either else False  # under 10 acres a basin is one route of two
        marked = bool(route_req and ctx.open(q)) if d.met is not None else None
        out.layers["sediment_basins"] = mark(_named(b.outlets), marked)
        per_acre = ctx.profile.value("controls", "sediment_trap_surface_sqft_per_acre")
        own = _served_outlets(b, per_acre, ctx.site.ft_per_unit)  # one control an outlet: the submitted one
        keep = np.array([int(o) not in own for o in b.outlets["outlet"]], dtype=bool)
        traps = sediment_trap.footprints(
            ctx,
            ctx.flow,
            b.outlets[keep].reset_index(drop=True),
            [c for c, k in zip(b.cells, keep, strict=True) if k],
            taken=_submitted_areas(b.got),
        )
        traps["kind"] = [NEEDS.get(k) or k for k in traps["kind"]]
        out.layers["sediment_basin_footprints"] = mark(traps, marked)
        if len(traps):
            b.rep["trap_footprints"] = sediment_trap.footprint_report(traps)
            out.findings += _no_room(ctx, q, b, traps)
        out.proposed = proposals(
            b.outlets[keep].reset_index(drop=True),
            traps,
            basin_max_acres=float(ctx.control("sediment_basin_max_drainage_acres")),
            official=ctx.profile.official,
        ) + kept_submitted(b, own)
        satisfied = bool(b.served) and all(s["suitable_by"] for s in b.served)
        out.shared.update(
            plan=b,
            route_required=bool(route_req),
            satisfied=satisfied,
            instead="basins at every outlet",
            satisfied_how="the submitted basins or traps receive the runoff at every outlet of the disturbed "
            "area",
        )
        if d.met is None:
            pending = "; ".join(t.message for t in d.conditions if t.met is None)
            out.findings.append(
                ctx.finding(
                    q,
                    "sediment_basin_submitted",
                    "not_assessed",
                    f"Whether sediment basins are required is not assessed: {pending} not assessed.",
                    settle="the data each pending condition names",
                    geometry=shapely.union_all(dist.geometry.values),
                    layer="disturbed_area",
                )
            )
        elif d.met:
            out.findings.append(_location(ctx, q, b, bool(route_req)))
        return out

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """Whether the plan submits a basin or trap of a kind its drainage suits at each outlet."""
        b: _Plan | None = placed.shared.get("plan")
        if b is None or not ctx.decision(q).met:
            return []
        return [_submitted(ctx, q, b, placed.shared["route_required"])]


def _summary(ctx: Context, q: Requirement) -> dict[str, Any]:
    """report.json's ``sediment_basin`` block: whether the requirement applies here, the other route, why."""
    d = ctx.decision(q)
    return {
        "required": d.applies,
        "either_with": d.either_with,
        "reasons": [t.message for t in d.conditions if t.met] or ([d.why] if d.why else []),
    }


@dataclass(kw_only=True)
class _Plan:
    """The outlets of the disturbed area needing a basin or trap (site CRS), and the submitted ones at
    them.
    """

    outlets: gpd.GeoDataFrame
    #: per outlet: its cells on the DEM grid (exit cells and their first steps downhill, flat indices)
    cells: list[Any]
    fringe: gpd.GeoDataFrame
    #: per outlet: its drainage (acres), class, and the bmps ids receiving its runoff / suiting it
    served: list[controls.OutletService]
    #: the submitted basins and traps (None when the plan has none)
    got: gpd.GeoDataFrame | None
    reasons: list[str]
    #: the alternative applies too: either route complies
    either: bool
    #: the report entry (``sediment_basin_location``)
    rep: dict[str, Any]


def _served_outlets(b: _Plan, per_acre: float | None, ft_per_unit: float) -> dict[int, list[Any]]:
    """The outlets a submitted basin or trap serves, with those features' ids: the plan keeps the submitted
    control there and proposes none of its own. It serves when it receives the outlet's runoff, suits its
    drainage (:func:`suits`) and, drawn as an area, has at least the surface DNR 1063 asks of a trap there
    (``per_acre``, sq ft per acre drained, times the outlet's acres; a basin is never smaller than the trap
    it replaces): one drawn smaller than that is replaced by the plan's own. ``ft_per_unit``: feet per CRS
    unit. Without ``per_acre`` the kind alone decides.
    """
    acres = {int(o): float(a) for o, a in zip(b.outlets["outlet"], b.outlets["drainage_acres"], strict=True)}
    area = _submitted_sqft(b.got, ft_per_unit)
    out = {}
    for s in b.served:
        o = int(s["outlet"])
        need = None if per_acre is None or o not in acres else float(per_acre) * acres[o]
        ids = [i for i in s["suitable_by"] if need is None or area.get(i) is None or area[i] >= need]
        if ids:
            out[o] = ids
    return out


def _submitted_sqft(got: gpd.GeoDataFrame | None, ft_per_unit: float) -> dict[Any, float]:
    """Each submitted basin's or trap's area drawn, sq ft, by its id (a point has none)."""
    if got is None or not len(got):
        return {}
    ids = list(got["id"]) if "id" in got.columns else list(range(1, len(got) + 1))
    return {
        i: float(g.area) * ft_per_unit**2
        for i, g in zip(ids, got.geometry, strict=True)
        if g is not None and "Polygon" in g.geom_type
    }


def _submitted_areas(got: gpd.GeoDataFrame | None) -> list[Any]:
    """The submitted basins and traps drawn at their size (site CRS): ground no proposed trap is dug on."""
    if got is None or not len(got):
        return []
    return [g for g in got.geometry if g is not None and "Polygon" in g.geom_type]


def kept_submitted(b: _Plan, own: dict[int, list[Any]]) -> list[dict[str, Any]]:
    """The submitted basins and traps the plan keeps (each serving an outlet: :func:`_served_outlets`), as
    the plan's controls at their outlets, once each, with their name, size and the acres draining there.
    """
    if b.got is None or not own:
        return []
    acres = {int(o): float(a) for o, a in zip(b.outlets["outlet"], b.outlets["drainage_acres"], strict=True)}
    rows: dict[Any, dict[str, Any]] = {}
    ids = list(b.got["id"]) if "id" in b.got.columns else list(range(1, len(b.got) + 1))
    for outlet, served in own.items():
        for i in served:
            if i in rows or i not in ids:
                continue
            r = b.got.iloc[ids.index(i)]
            kind = str(r["type"])
            name = r.get("name")
            row: dict[str, Any] = {
                "type": kind,
                "practice": f"{kind.replace('_', ' ')} at the outlet, as submitted",
                "standard": "DNR 1063" if kind == sediment_trap.SedimentTrap.name else "DNR 1064",
                "geometry": r.geometry,
                "drainage_acres": acres.get(outlet),
            }
            if isinstance(name, str) and name.strip():
                row["name"] = name.strip()
            storage = r.get("storage_cy")
            if storage is not None and storage == storage:
                row["storage_cy"] = float(storage)
            rows[i] = row
    return list(rows.values())


def _named(outlets: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """The outlets with ``kind`` the practice each needs (``multiple_basins`` beyond one basin's drainage)."""
    out = outlets.copy()
    out["kind"] = [NEEDS.get(k) or "multiple_basins" for k in outlets["kind"]]
    return out


def suits(practice: str, needed: str, *, stand_in: bool = False) -> bool:
    """Whether a submitted practice suits an outlet whose drainage needs ``needed`` (a drainage class of
    :func:`geosite.controls.basin_kind`): a basin suits any drainage up to the basin limit, a trap only a
    trap's; beyond one basin's drainage none suits alone (a stand-in is the inspector's decision).
    """
    if needed == "trap":
        return practice in (sediment_trap.SedimentTrap.name, SedimentBasin.name)
    if needed == "basin":
        return practice == SedimentBasin.name
    return False


def _plan(ctx: Context, flow: Flow, q: Requirement, dist: gpd.GeoDataFrame) -> _Plan:
    """The outlets of ``dist`` needing a basin or trap, why, and the submitted basins and traps at them."""
    d = ctx.decision(q)
    reasons = [t.message for t in d.conditions if t.met] or [
        f"every site the requirement applies to ({q.citation})"
    ]
    outlets, cells, fringe = _outlets(ctx, flow, q, dist)
    either = bool(d.met) and d.either_with is not None
    got = ctx.submitted("trap")
    served = _served(ctx, flow, got, outlets, cells=cells, dist=dist)
    rep = _report(outlets, fringe, served, required=d.met, reasons=reasons, either=either)
    return _Plan(
        outlets=outlets,
        cells=cells,
        fringe=fringe,
        served=served,
        got=got,
        reasons=reasons,
        either=either,
        rep=rep,
    )


def _outlets(ctx: Context, flow: Flow, q: Requirement, dist: gpd.GeoDataFrame) -> tuple[Any, list[Any], Any]:
    """The outlets needing their own trap or basin, their cells, and the fringe of smaller outlets: where
    concentrated runoff leaves (Belgium's reading: each sized by its own catchment), or every outlet
    draining at least ``basin_outlet_min_acres`` (the fringe below that is reported, not required one by
    one).
    """
    c = ctx.control
    found = controls.disturbed_outlets(
        dist,
        flow.dem,
        flow.fg,
        trap_max_acres=float(c("sediment_trap_max_drainage_acres")),
        basin_max_acres=float(c("sediment_basin_max_drainage_acres")),
        channel_threshold_sqft=float(ctx.profile.value("terrain", "channel_threshold_sqft")),
        merge_ft=float(c("basin_outlet_merge_ft")),
        concentrated_only=q.params.get("outlets", "all") == "concentrated",
    )
    outlets = found.points
    keep = outlets["concentrated"].to_numpy(bool) | (
        outlets["drainage_acres"].to_numpy() >= float(c("basin_outlet_min_acres"))
    )
    cells = [x for x, k in zip(found.exit_cells, keep, strict=True) if k]
    return outlets[keep].reset_index(drop=True), cells, outlets[~keep]


def _served(
    ctx: Context,
    flow: Flow,
    got: gpd.GeoDataFrame | None,
    outlets: gpd.GeoDataFrame,
    *,
    cells: list[Any],
    dist: Any,
) -> list[controls.OutletService]:
    """Per outlet: its drainage (acres), class, and the submitted basins (``got``) receiving its runoff
    or suiting it (a receiving feature whose practice suits the outlet's drainage).
    """
    if got is None or not len(got) or not len(outlets):
        return [
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
    served = controls.submitted_at_outlets(
        got,
        outlets,
        cells,
        flow.dem,
        flow.fg,
        disturbed=dist,
        search_ft=float(ctx.control("basin_search_ft")),
    )
    kinds = {py_scalar(i): str(t).strip().lower() for i, t in zip(got["id"], got["type"], strict=True)}
    for s in served:
        s["suitable_by"] = [i for i in s["served_by"] if suits(kinds.get(i, ""), s["kind"])]
    return served


def _report(
    outlets: gpd.GeoDataFrame,
    fringe: gpd.GeoDataFrame,
    served: list[controls.OutletService],
    *,
    required: bool | None,
    reasons: list[str],
    either: bool,
) -> dict[str, Any]:
    """The report's ``sediment_basin_location``: the outlets, their drainage (acres), the first one."""
    named = [{**s, "kind": NEEDS.get(s["kind"]) or "multiple_basins"} for s in served]
    rep: dict[str, Any] = {
        "required": required,
        "reasons": reasons,
        "outlets": named,
        "drainage_acres": float(outlets["drainage_acres"].sum()) if len(outlets) else 0.0,
        "disturbed_acres_at_outlets": float(outlets["disturbed_acres"].sum()) if len(outlets) else 0.0,
        "fringe_outlets": int(len(fringe)),
        "fringe_drainage_acres": float(fringe["drainage_acres"].sum()),
        "either_route": either,
    }
    if len(outlets):
        first = outlets.iloc[0]
        rep.update(
            {
                "located": True,
                "x": float(first.geometry.x),
                "y": float(first.geometry.y),
                "kind": NEEDS.get(first["kind"]) or "multiple_basins",
                "limit": first["limit"],
                "drainage_area_sqft": float(first["drainage_sqft"]),
                "drainage_area_acres": float(first["drainage_acres"]),
            }
        )
    return rep


def _no_room(ctx: Context, q: Requirement, b: _Plan, traps: gpd.GeoDataFrame) -> list[Finding]:
    """The outlets whose trap fits nowhere on the site and which no suitable submitted basin or trap
    serves, in words.
    """
    suited = {s["outlet"] for s in b.served if s["suitable_by"]}
    rows = [t for t in traps.itertuples() if not t.placed and int(t.outlet) not in suited]
    if not rows:
        return []
    at = b.outlets.set_index("outlet").geometry
    return [
        ctx.finding(
            q,
            "sediment_trap_room",
            "info",
            "; ".join(
                f"Outlet {int(t.outlet)} ({float(t.drainage_acres):,.2f} acres drain there): {t.placement}"
                for t in rows
            )
            + ".",
            values={"outlets": [int(t.outlet) for t in rows]},
            geometry=shapely.union_all([at[int(t.outlet)] for t in rows]),
            layer="sediment_basins",
        )
    ]


def _where(b: _Plan, crs: Any) -> str:
    """Each outlet as the findings name it: where, its drainage (acres), the submitted basins."""
    from geosite.units import coordinates

    at = {
        int(o): (float(g.x), float(g.y)) for o, g in zip(b.outlets["outlet"], b.outlets.geometry, strict=True)
    }
    return "; ".join(
        f"outlet {s['outlet']} at {coordinates(*at[s['outlet']], crs)} "
        f"({s['drainage_acres']:,.2f} acres drain there, {s['disturbed_acres']:,.2f} of them disturbed): "
        + ((NEEDS.get(s["kind"]) or "more than one sediment basin").replace("_", " "))
        + (
            f", submitted bmps {', '.join(map(str, s['suitable_by']))}"
            if s["suitable_by"]
            else f"; bmps {', '.join(map(str, s['served_by']))} receive its runoff but do not suit it"
            if s["served_by"]
            else "; none submitted"
        )
        for s in b.served
    )


def _location(ctx: Context, q: Requirement, b: _Plan, route_req: bool) -> Finding:
    """Where the required basins go (the outlets, their drainage and the fringe)."""
    what = (
        "Sediment basins or traps are one route"
        if b.either
        else "Sediment basins or traps required"
        if ctx.open(q)
        else "Sediment basins or traps"
    )
    n, total = len(b.outlets), b.rep["drainage_acres"]
    fringe = (
        f"; {len(b.fringe)} smaller outlet{'s' if len(b.fringe) != 1 else ''} drain "
        f"{b.rep['fringe_drainage_acres']:,.2f} acres more, each under "
        f"{float(ctx.control('basin_outlet_min_acres')):g} acre"
        if len(b.fringe)
        else ""
    )
    return ctx.finding(
        q,
        "sediment_basin_location",
        "info",
        f"{what} ({'; '.join(b.reasons)}): the disturbed area's runoff leaves at {n} "
        f"outlet{'s' if n != 1 else ''} "
        f"needing one, draining {total:,.2f} acres in all ({_where(b, ctx.site.crs)}){fringe}.",
        required=route_req,
        values=b.rep,
        geometry=shapely.union_all(b.outlets.geometry.values) if n else None,
        layer="sediment_basins",
    )


def _submitted(ctx: Context, q: Requirement, b: _Plan, route_req: bool) -> Finding:
    """Whether the plan submits a basin or trap of a kind its drainage suits at each outlet; an outlet
    beyond one basin's drainage whose submitted control says what stands in (``stand_in_for``) is the
    official's decision.
    """
    stand = _stand_ins(b)
    missing = [s for s in b.served if not s["suitable_by"] and s["outlet"] not in stand]
    reading = f" Reading: {q.reading}" if q.reading else ""
    at = b.outlets.set_index("outlet").geometry
    got_ids = [py_scalar(i) for i in b.got["id"]] if b.got is not None else []
    kw: dict[str, Any] = {
        "values": b.rep,
        "geometry": shapely.union_all([at[s["outlet"]] for s in missing]) if missing else None,
        "layer": "sediment_basins",
        "submitted": f"{len(got_ids)} basin(s) or trap(s) submitted"
        if got_ids
        else "no basin or trap submitted",
    }
    if b.either:
        ok = not missing and not stand
        msg = (
            "Submitted basins or traps receive the runoff at every outlet, each of a kind its drainage "
            "suits: "
            f"{q.citation} is met, so the other route is not required."
            if ok
            else f"Basins per {q.citation} would be one way to comply; the plan is judged on the other route "
            f"instead ({len(missing)} outlet{'s' if len(missing) != 1 else ''} without a suitable basin or "
            "trap)."
        )
        return ctx.finding(q, "sediment_basin_submitted", "pass" if ok else "info", msg + reading, **kw)
    status, msg = _verdict(ctx, b, missing, stand, got_ids)
    if status == "inspector_decision":
        kw["geometry"] = shapely.union_all([at[o] for o in stand])
    return ctx.finding(
        q, "sediment_basin_submitted", status, msg + reading, required=True, feature_ids=got_ids, **kw
    )


def _verdict(
    ctx: Context, b: _Plan, missing: list[Any], stand: dict[int, str], got_ids: list[Any]
) -> tuple[str, str]:
    """The status and words of the basins' finding where basins are the route the chapter requires."""
    where = _where(b, ctx.site.crs)
    if not got_ids:
        return (
            "fail",
            f"Sediment basins are required ({'; '.join(b.reasons)}) but the bmps layer has none: {where}.",
        )
    if missing:
        upslope = [i for i in got_ids if not any(i in s["served_by"] for s in b.served)]
        n = len(b.served)
        return "fail", (
            f"{len(missing)} of {n} outlet{'s' if n != 1 else ''} of the disturbed area "
            f"{'has' if len(missing) == 1 else 'have'} no submitted basin or trap of a kind its drainage "
            "suits "
            f"({where})."
            + (
                f" bmps {', '.join(map(str, upslope))} receive none of the disturbed area's runoff."
                if upslope
                else ""
            )
        )
    if stand:
        return "inspector_decision", (
            "Every outlet has a submitted basin or trap of a kind its drainage suits, but for outlet(s) "
            f"{', '.join(map(str, sorted(stand)))}, whose drainage is beyond one basin's (DNR 1064), where "
            "the plan "
            "says what stands in: "
            + "; ".join(f"outlet {o}: {t}" for o, t in sorted(stand.items()))
            + f". The {ctx.profile.official}'s decision."
        )
    return (
        "pass",
        "Every outlet of the disturbed area has a submitted basin or trap of a kind its drainage suits "
        f"({where}).",
    )


def _stand_ins(b: _Plan) -> dict[int, str]:
    """Outlet -> what stands in there, for the outlets beyond one basin's drainage that a submitted trap or
    basin with a ``stand_in_for`` text receives.
    """
    if b.got is None or "stand_in_for" not in b.got.columns:
        return {}
    said = {
        py_scalar(i): str(t).strip()
        for i, t in zip(b.got["id"], b.got["stand_in_for"], strict=True)
        if t is not None and str(t).strip() and str(t) != "nan"
    }
    return {
        s["outlet"]: said[i] for s in b.served if s["kind"] == "beyond" for i in s["served_by"] if i in said
    }


def proposals(
    outlets: gpd.GeoDataFrame, traps: gpd.GeoDataFrame, *, basin_max_acres: float, official: str
) -> list[dict[str, Any]]:
    """The trap or basin the plan proposes at each outlet: a trap at its footprint (its DNR 1063 surface
    area) or, where none fits on the site, at its outlet's point saying so; a basin at its outlet's point
    (DNR 1064 sizes it by design); beyond one basin's drainage (``basin_max_acres``, acres), a basin at the
    outlet with the stand-in the ``official`` decides on (:data:`BEYOND`).

    Parameters
    ----------
    outlets : geopandas.GeoDataFrame
        The outlets needing one (site CRS), with ``outlet``, ``kind`` (the drainage class) and
        ``drainage_acres``.
    traps : geopandas.GeoDataFrame
        The trap footprints (:func:`geosite.practices.sediment_trap.footprints`).
    basin_max_acres : float
        The most one basin may drain, acres (``[controls] sediment_basin_max_drainage_acres``).
    official : str
        The official the chapter names.

    Returns
    -------
    list of dict
        One proposed control per outlet.
    """
    feet = {int(r.outlet): r for r in traps.itertuples()}
    rows = []
    for o, k, g, ac in zip(
        outlets["outlet"], outlets["kind"], outlets.geometry, outlets["drainage_acres"], strict=True
    ):
        kind = NEEDS.get(k) or SedimentBasin.name
        row: dict[str, Any] = {
            "type": kind,
            "practice": f"{kind.replace('_', ' ')} at the outlet",
            "standard": "DNR 1063" if kind == sediment_trap.SedimentTrap.name else "DNR 1064",
            "geometry": g,
            "drainage_acres": float(ac),
        }
        fp = feet.get(int(o))
        if fp is not None:
            row["surface_sqft"] = round(float(fp.surface_sqft), 1)
            if fp.placed:
                row["geometry"] = fp.geometry
            else:  # the trap the outlet needs, at its point, saying its footprint fits nowhere on the site
                row["note"] = str(fp.placement)
        if k == "beyond":
            row["stand_in_for"] = BEYOND.format(limit=basin_max_acres, official=official)
        rows.append(row)
    return rows
