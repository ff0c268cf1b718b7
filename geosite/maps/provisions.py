"""Plan content A(3)(d)-(f) on the site construction plan: the schedule of every BMP's installation and
removal beside the disturbance phases, and the written provisions for maintaining the BMPs and
stabilizing the site.

Dates come from a submitted ``bmps`` layer's ``install`` and ``remove`` where it gives them; otherwise
geosite proposes them: each practice installed before the phase it serves (the nearest disturbance
polygon) begins, and removed once that phase's ground is stabilized (not before its end plus the
profile's inactive-stabilization days, Grantsburg B(6)(c)[1]). The provisions are the plan's own
(site.toml ``[declared] maintenance`` / ``stabilization``), else the profile's ``[maintenance]`` and
``[stabilization]`` defaults, each cited to its DNR technical standard; the inspection frequency is the
profile's ``[permit]`` (D(3)(g)) either way.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import shapely

from geosite.maps.common import MapContext, is_nan

#: Practices the analysis places (derived layers), the schedule's words for them and the profile's
#: ``[maintenance]`` key of each.
CONTROL_WORDS: dict[str, tuple[str, str]] = {
    "filter_fence": ("silt fence", "silt_fence"),
    "stockpile_fences": ("stockpile fence", "silt_fence"),
    "inlet_protection": ("inlet protection", "inlet_protection"),
    "tracking_pads": ("tracking pad", "tracking_pad"),
    "sediment_basins": ("sediment trap/basin", "sediment_basin"),
    "diversions": ("diversion", "diversion"),
}


@dataclass(frozen=True)
class ScheduleRow:
    """One practice (or run of them) in the schedule: what, the phase it serves, install and remove."""

    what: str
    phase: str
    install: str
    remove: str
    submitted: bool
    dated: bool = False  # the dates are the submitted layer's (install / remove)
    length_ft: float | None = None  # the run's length for line practices geosite places, ft


def _date(v: Any) -> dt.date | None:
    if is_nan(v) or v is None or str(v) in ("NaT", "None", ""):
        return None
    try:
        return dt.date.fromisoformat(str(v)[:10])
    except ValueError:
        return None


def _phase_of(ctx: MapContext) -> tuple[Any, dict[str, dict[str, Any]]]:
    """The disturbance polygons with their phase key, and each phase's dates (report.json's)."""
    dist = ctx.site_layer("disturbance")
    phases = {str(p["phase"]): p for p in ctx.phases()}
    if dist is None:
        return None, phases
    key = (
        dist["phase"] if "phase" in dist.columns else dist["id"] if "id" in dist.columns else range(len(dist))
    )
    return list(zip(dist.geometry.values, [str(k) for k in key], strict=True)), phases


def _nearest_phase(geom, polys) -> str:
    if not polys or geom is None or geom.is_empty:
        return ""
    return min(polys, key=lambda gp: shapely.distance(gp[0], geom))[1]


def _proposed(phase: dict[str, Any] | None, inactive_days: Any) -> tuple[str, str]:
    """(install, remove) proposed for a practice serving ``phase``."""
    if phase is None:
        return "before work", "stabilized"
    start, end = _date(phase.get("start")), _date(phase.get("end"))
    inst = f"<{start.isoformat()}" if start else "before work"
    if end and inactive_days is not None:
        rem = f">{(end + dt.timedelta(days=int(inactive_days))).isoformat()}"
    else:
        rem = "stabilized"
    return inst, rem


def _groups(ctx: MapContext) -> list[tuple[str, Any, str | None, str | None, bool, str]]:
    """(what, geometry, install, remove, submitted, maintenance key) for each practice on the plan."""
    out = []
    bmps = ctx.site_layer("bmps")
    if bmps is not None:
        for _, r in bmps.iterrows():
            t = str(r.get("type", "bmp"))
            nm = r.get("name")
            what = str(nm) if not is_nan(nm) and str(nm).strip() else t.replace("_", " ")
            inst = r.get("install") if "install" in bmps.columns else None
            rem = r.get("remove") if "remove" in bmps.columns else None
            out.append(
                (
                    what,
                    r.geometry,
                    None if is_nan(inst) else str(inst)[:10],
                    None if is_nan(rem) else str(rem)[:10],
                    True,
                    t,
                )
            )
    if bmps is None:  # no submitted BMPs: the analysis' practices, with geosite's proposed dates
        for layer, (words, key) in CONTROL_WORDS.items():
            gdf = ctx.derived.get(layer)
            if gdf is None or not len(gdf):
                continue
            sides = (
                gdf["side"].fillna("").astype(str)
                if layer == "filter_fence" and "side" in gdf.columns
                else [""] * len(gdf)
            )
            for g, side in zip(gdf.geometry.values, sides, strict=True):
                if side == "stand_in":
                    continue
                out.append((f"{words}, {side}" if side else words, g, None, None, False, key))
        out += _stand_in_groups(ctx)
    return out


#: A stand-in's schedule name by its ``method`` (controls.fences.AREA_STAND_INS): what governs its ground.
STAND_IN_WORDS: dict[str, str] = {
    "erosion_mat": "erosion mat, in place of interior rows",
    "mulch": "mulch, in place of interior rows",
}


def _stand_in_groups(ctx: MapContext) -> list[tuple[str, Any, str | None, str | None, bool, str]]:
    """The stand-in areas (layer ``stand_ins``) as schedule groups, one per piece: the mat or mulch that
    governs its ground where interior fence rows are not built (maintenance key: the method).
    """
    gdf = ctx.derived.get("stand_ins")
    if gdf is None or not len(gdf) or "method" not in gdf.columns:
        return []
    return [
        (STAND_IN_WORDS.get(str(m), f"{m}, in place of interior rows"), g, None, None, False, str(m))
        for m, g in zip(gdf["method"], gdf.geometry.values, strict=True)
    ]


def bmp_schedule(ctx: MapContext) -> list[ScheduleRow]:
    """Every BMP's install and removal dates, one row per practice and phase (see the module notes)."""
    polys, phases = _phase_of(ctx)
    e = ctx.profile.days_of("inactive_stabilization")
    inactive = e["value"] if e else None
    rows: dict[tuple[str, str, str, str, bool, bool], float] = {}
    fpu = ctx.site.ft_per_unit
    for what, geom, inst, rem, submitted, _ in _groups(ctx):
        ph = _nearest_phase(geom, polys)
        p_inst, p_rem = _proposed(phases.get(ph), inactive)
        k = (what, ph, inst or p_inst, rem or p_rem, submitted, inst is not None)
        size = geom.length * fpu if geom is not None and geom.geom_type.endswith("LineString") else 0.0
        rows[k] = rows.get(k, 0.0) + size
    out = []
    for (what, ph, inst, rem, submitted, dated), ft in rows.items():
        length = ft if ft >= 1 and not submitted else None
        out.append(ScheduleRow(what, ph, inst, rem, submitted, dated, length))
    return sorted(out, key=lambda r: (r.phase, r.install, r.what))


#: The longest BMP name the schedule prints whole, characters (a longer one is cut there).
WHAT_MAX_CHARS = 40


def schedule_table(ctx: MapContext) -> tuple[list[str], list[str]]:
    """The BMP rows of the (d) schedule (monospaced, ``what phase install remove``) and their notes."""
    rows = bmp_schedule(ctx)
    if not rows:
        return [], []
    w = min(max(len(r.what) for r in rows), WHAT_MAX_CHARS)  # the names whole, up to a limit
    table = ["", f"{'BMP':<{w}} {'length':>8} {'phase':<5} {'install':<11} {'remove':<11}"]
    for r in rows:
        length = f"{r.length_ft:,.0f} ft" if r.length_ft is not None else ""
        table.append(
            f"{r.what[:w]:<{w}} {length:>8} {r.phase[:5]:<5} {r.install[:11]:<11} {r.remove[:11]:<11}"
        )
    notes = []
    if any(r.dated for r in rows):
        notes.append("BMP dates as submitted (layer bmps: install, remove).")
    if any(not r.dated for r in rows):
        e = ctx.profile.days_of("inactive_stabilization") or {}
        inactive = e.get("value")
        after = (
            f"not before the phase's end + {inactive} days "
            f"({ctx.profile.cite(e.get('citation'), e.get('section'))})"
            if inactive is not None
            else "once its ground is stabilized"
        )
        notes.append(
            "Dates proposed by geosite (the plan gives none): '<date' install before the phase it serves "
            f"starts; '>date' remove once that phase is stabilized, {after}."
        )
    return table, notes


def _cite(ctx: MapContext, table: str, key: str, short: bool = False) -> str:
    """An entry's citation and source; ``short``: the source up to its first colon (its name)."""
    e = ctx.profile.entry(table, key) or {}
    src = str(e.get("source") or "")
    parts = [
        ctx.profile.cite(e.get("citation"), e.get("section")) if e.get("citation") else "",
        src.split(":")[0] if short else src,
    ]
    return "; ".join(p for p in parts if p)


def _declared(ctx: MapContext, key: str) -> str | None:
    """site.toml's ``[declared] key`` text (the plan's own provisions), or None (none, or no site.toml)."""
    from geosite.errors import GeositeError
    from geosite.site import read_site_toml

    root = getattr(ctx.site, "root", None)
    if root is None:
        return None
    try:
        conf, _ = read_site_toml(root, ctx.site.limits)
    except (GeositeError, OSError):
        return None
    d = conf.get("declared") or {}
    v = d.get(key) if isinstance(d, dict) else None
    return str(v).strip() if isinstance(v, str) and v.strip() else None


def maintenance_text(ctx: MapContext, practices: set[str]) -> list[str]:
    """(e): the permit's inspection frequency, then the plan's maintenance provisions or geosite's
    defaults for the ``practices`` on the plan (profile ``[maintenance]`` keys), each cited.
    """
    p = ctx.profile
    days, rain = p.value("permit", "inspect_every_days"), p.value("permit", "inspect_rain_in")
    hours = p.value("permit", "inspect_after_rain_hours")
    out = []
    if days is not None and rain is not None:
        within = (
            f", within {hours} hours of it ({_cite(ctx, 'permit', 'inspect_after_rain_hours', short=True)})"
            if hours
            else ""
        )
        out.append(
            f"(e) Inspection: every BMP at least once every {days} days and after each rain of {rain:g} in "
            "or "
            f"more ({_cite(ctx, 'permit', 'inspect_rain_in')}){within}; repairs made then."
        )
    given = _declared(ctx, "maintenance")
    if given:
        out.append(f"(e) Maintenance, as the plan provides (site.toml [declared] maintenance): {given}")
        return out
    defaults = p.tables["maintenance"]
    keys = [k for k in defaults if k in practices] or list(defaults)
    if keys:
        body = "; ".join(
            f"{k.replace('_', ' ')}: {p.value('maintenance', k)} ({_cite(ctx, 'maintenance', k)})"
            for k in keys
        )
        out.append(f"(e) Maintenance (geosite's defaults; the plan states none): {body}.")
    return out


def stabilization_text(ctx: MapContext) -> list[str]:
    """(f): the plan's stabilization provisions, else the profile's ``[stabilization]`` defaults, cited."""
    given = _declared(ctx, "stabilization")
    if given:
        return [f"(f) Stabilization, as the plan provides (site.toml [declared] stabilization): {given}"]
    defaults = ctx.profile.tables["stabilization"]
    if not defaults:
        return ["(f) Stabilization: not stated (site.toml [declared] stabilization)."]
    body = "; ".join(
        f"{k}: {ctx.profile.value('stabilization', k)} ({_cite(ctx, 'stabilization', k)})" for k in defaults
    )
    return [f"(f) Stabilization (geosite's defaults; the plan states none): {body}."]


def practices_on_plan(ctx: MapContext) -> set[str]:
    """The profile ``[maintenance]`` keys of the practices the plan holds (placed or submitted)."""
    return {key for _, _, _, _, _, key in _groups(ctx)} | (
        {"sediment_trap"} if "sediment_basin" in {k for *_, k in _groups(ctx)} else set()
    )


__all__ = ["ScheduleRow", "bmp_schedule", "maintenance_text", "schedule_table", "stabilization_text"]
