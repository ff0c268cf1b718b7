"""Temporary stabilization: seeding, mulching, sodding or covering ground that goes inactive (DNR technical
standards 1058, mulching, and 1059, seeding), and the requirement that disturbed ground left inactive is
stabilized within its days (Grantsburg B(6)(c)[1]).

``judge`` holds each disturbance polygon's stabilization date (its ``stabilized`` attribute, or the install
date of a submitted cover over most of it, installed on or after its end) against its end date. The plan
proposes mulch where it stands in for interior fence rows no crew could build (rows out of proportion to
the area) and over piles kept longer than a chapter allows unstabilized.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from geosite.io.output import py_scalar
from geosite.practices.base import PayItem, Practice
from geosite.rules.registry import NUMBER, Param
from geosite.symbols import CadLook, Style

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.practices.base import Outcome
    from geosite.practices.context import Context
    from geosite.rules import Finding, Requirement


class Stabilization(Practice):
    """Mulch, seed, sod or a cover over ground that goes inactive (DNR 1058, 1059)."""

    name = "stabilization"
    title = "Temporary stabilization (mulch, seed, cover)"
    standard = "DNR 1058"
    family = "cover"
    looks: ClassVar[dict[str, Style]] = {
        "stabilization": Style(
            "polygon",
            "Mulch, seed or tarp (DNR 1058, 1059)",
            face="#fcf3cf",
            edge="#b7950b",
            lw=0.6,
            hatch="..",
            z=4.5,
            clear="edge",
        )
    }
    drawn: ClassVar[dict[str, str]] = {"polygon": "stabilization"}
    serves = ("inactive_stabilization",)
    params: ClassVar[dict[str, Param]] = {
        "days": Param(
            NUMBER, "days", required=True, text="ground inactive this long or more is stabilized within it"
        ),
    }
    temporary = False
    submitted: ClassVar[dict[str, dict[str, Any]]] = {"polygon": {"face": "none", "hatch": ".."}}
    cad = CadLook("C-ESCP-STAB", 30, "CONTINUOUS", "temporary stabilization (mulch, seed, cover)")
    pay = PayItem("AC", "area", "the area mulched, seeded or covered, by its method", "DNR 1058", by="method")

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """Each disturbance polygon stabilized within the requirement's days of its end."""
        dist = ctx.site.layer("disturbance")
        if dist is None or not len(dist):
            return []
        days = int(q.param("days"))
        timing = timing_of(dist, ctx.submitted("cover"), days)
        return [
            ctx.finding(
                q,
                "inactive_stabilization_submitted",
                status,
                message,
                required=True,
                feature_ids=ids,
                geometry=_areas(dist, ids),
                layer="disturbance",
                submitted=_dated(timing, days),
                settle="an end date and a 'stabilized' date on each disturbance polygon"
                if status == "not_assessed"
                else "",
            )
            for status, message, ids in _findings(timing, days, q.requires)
        ]


class Timing(NamedTuple):
    """The disturbance polygons by when they are stabilized: too late (id, end, stabilized dates), without a
    date to tell, in time, and dated stabilized before their work ends (id, end, date: a date that cannot be
    the stabilization of ground gone inactive).
    """

    late: list[tuple[Any, Any, Any]]
    undated: list[Any]
    in_time: list[Any]
    early: list[tuple[Any, Any, Any]]


def _dated(timing: Timing, days: int) -> str:
    """What the plan shows of its stabilization dates, in words (a finding's "submitted")."""
    n = sum(len(part) for part in timing)
    said = [f"{len(timing.in_time)} of {n} disturbed areas stabilized within {days} days of their end"]
    said += [f"{len(timing.late)} later"] if timing.late else []
    said += [f"{len(timing.early)} dated stabilized before their work ends"] if timing.early else []
    said += [f"{len(timing.undated)} undated"] if timing.undated else []
    return ", ".join(said)


def _areas(dist: gpd.GeoDataFrame, ids: list[Any]) -> Any:
    """The union of the disturbance polygons ``ids`` (None for none)."""
    import shapely

    if not ids or "id" not in dist.columns:
        return None
    sel = dist[[py_scalar(i) in ids for i in dist["id"]]]
    return shapely.union_all(sel.geometry.values) if len(sel) else None


def _findings(timing: Timing, days: int, requires: str) -> list[tuple[str, str, list[Any]]]:
    """The findings of a plan's stabilization ``timing`` (``days``: the requirement's days), each (status,
    message, the areas concerned).
    """
    late, undated, ok, early = timing
    found: list[tuple[str, str, list[Any]]] = []
    if early:
        found.append(
            (
                "fail",
                "Disturbed ground dated stabilized before its work ends, so the plan shows no stabilization "
                f"within {days} days of the ground going inactive: "
                + "; ".join(
                    f"area {f} ends {e.isoformat()}, 'stabilized' {w.isoformat()}" for f, e, w in early
                )
                + f" ({requires}).",
                [f for f, _e, _w in early],
            )
        )
    if late:
        found.append(
            (
                "fail",
                f"Disturbed ground stabilized more than {days} days after its work ends: "
                + "; ".join(
                    f"area {f} ends {e.isoformat()}, stabilized {w.isoformat()} ({(w - e).days} days)"
                    for f, e, w in late
                )
                + f" ({requires}).",
                [f for f, _e, _w in late],
            )
        )
    if undated:
        found.append(
            (
                "not_assessed",
                f"Disturbance area(s) {', '.join(map(str, undated))}: no end date or no stabilization date, "
                "so "
                f"whether the ground is stabilized within {days} days of going inactive cannot be told "
                f"({requires}).",
                undated,
            )
        )
    if ok and not late and not undated and not early:
        found.append(
            (
                "pass",
                f"Every disturbance area is stabilized within {days} days of its end ({len(ok)} areas).",
                [],
            )
        )
    return found


def timing_of(dist: gpd.GeoDataFrame, covers: gpd.GeoDataFrame | None, days: int) -> Timing:
    """Each disturbance polygon of ``dist`` by whether it is stabilized within ``days`` days of its end
    (``covers``: the plan's stabilization features).
    """
    timing = Timing([], [], [], [])
    for i in range(len(dist)):
        fid = py_scalar(dist["id"].iloc[i]) if "id" in dist.columns else i + 1
        end = dist["end"].iloc[i] if "end" in dist.columns else None
        when = stabilized_on(dist, i, covers, end)
        if end is None or when is None:
            timing.undated.append(fid)
        elif when < end:
            timing.early.append((fid, end, when))
        elif (when - end).days > days:
            timing.late.append((fid, end, when))
        else:
            timing.in_time.append(fid)
    return timing


def stabilized_on(dist: gpd.GeoDataFrame, i: int, covers: gpd.GeoDataFrame | None, end: Any) -> Any:
    """The date disturbance polygon ``i`` is stabilized: its ``stabilized`` attribute, else the latest install
    date of the cover features over most of it installed on or after its ``end`` (mulch laid while the ground
    is worked controls erosion then; it is not the stabilization of ground gone inactive); None when the plan
    gives none.
    """
    v = dist["stabilized"].iloc[i] if "stabilized" in dist.columns else None
    if v is not None:
        return v
    if covers is None or not len(covers) or "install" not in covers.columns:
        return None
    g = dist.geometry.iloc[i]
    over = [
        d
        for d, s in zip(covers["install"], covers.geometry, strict=True)
        if d is not None
        and (end is None or d >= end)
        and s.geom_type.endswith("Polygon")
        and s.intersection(g).area >= 0.5 * g.area
    ]
    return max(over) if over else None
