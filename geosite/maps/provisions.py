"""Plan content A(3)(d)-(f) on the site construction plan: the schedule of every control's installation and
removal beside the disturbance phases, and the written provisions for maintaining the controls and
stabilizing the site.

The rows are the plan's (:func:`geosite.plan.table.schedule`): a submission's controls with their own
``install`` and ``remove`` dates, geosite's with the dates :mod:`geosite.plan.build` gives them. The
provisions are the plan's own
(site.toml ``[declared] maintenance`` / ``stabilization``), else the profile's ``[maintenance]`` and
``[stabilization]`` defaults, each cited to its DNR technical standard; the inspection frequency is the
profile's ``[permit]`` (D(3)(g)) either way.
"""

from __future__ import annotations

import datetime as dt

from geosite.maps.common import MapContext
from geosite.maps.tables import cells
from geosite.plan.table import ScheduleRow, schedule


def _day(d: dt.date | None) -> str:
    return d.isoformat() if d is not None else "not given"


def _qty(r: ScheduleRow) -> str:
    if r.amount is None or r.unit is None:
        return "-"
    return f"{r.amount:,.2f} {r.unit}" if r.unit == "AC" else f"{r.amount:,.0f} {r.unit}"


def schedule_table(ctx: MapContext) -> tuple[list[str], list[str]]:
    """The controls' rows of the (d) schedule (a table's cells: tags, what, quantity, install, remove), one
    per kind of control and its dates (:func:`geosite.plan.table.schedule`), and their notes.
    """
    plan = ctx.site_plan
    rows = schedule(plan)
    if not rows:
        return [], []
    table = ["", cells("tags", "control", "qty", "install", "remove")]
    table += [cells(r.tags, r.what, _qty(r), _day(r.install), _day(r.remove)) for r in rows]
    notes = []
    if plan.source == "submitted":
        notes.append("Control dates as submitted.")
    else:
        e = ctx.profile.days_of("inactive_stabilization")
        after = (
            f"the polygon's end + {e.value:g} days ({ctx.profile.cite(e.citation, e.section)})"
            if e is not None
            else "its end"
        )
        notes.append(
            "Dates proposed: each control installed the day before the earliest start of the "
            "disturbance within 50 ft of it, removed the day after the latest of their stabilization (a "
            f"polygon's own stabilized date, else {after}). Quantities in pay units: LF along lines, SY / "
            "AC of areas, EA each; '-' where not measured (a basin's storage is its design's)."
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
        out.append(f"(e) Maintenance: {given}")
        return out
    defaults = p.tables["maintenance"]
    keys = [k for k in defaults if k in practices] or list(defaults)
    if keys:
        body = "; ".join(
            f"{k.replace('_', ' ')}: {p.value('maintenance', k)} ({_cite(ctx, 'maintenance', k)})"
            for k in keys
        )
        out.append(f"(e) Maintenance: {body}.")
    return out


def stabilization_text(ctx: MapContext) -> list[str]:
    """(f): the plan's stabilization provisions, else the profile's ``[stabilization]`` defaults, cited."""
    given = _declared(ctx, "stabilization")
    if given:
        return [f"(f) Stabilization: {given}"]
    defaults = ctx.profile.tables["stabilization"]
    if not defaults:
        return ["(f) Stabilization: " + "_" * 40]
    body = "; ".join(
        f"{k}: {ctx.profile.value('stabilization', k)} ({_cite(ctx, 'stabilization', k)})" for k in defaults
    )
    return [f"(f) Stabilization: {body}."]


def practices_on_plan(ctx: MapContext) -> set[str]:
    """The practices the plan holds (their names: the profile's ``[maintenance]`` keys)."""
    return {c.practice for c in ctx.site_plan.controls}


__all__ = ["maintenance_text", "schedule_table", "stabilization_text"]
