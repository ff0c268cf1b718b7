"""Dated obligations, each with the citation it comes from: the review decision, the permit's expiry and
extensions, the permittee's notices, enforcement periods, and when disturbed ground and stockpiles
must be stabilized. Counting follows :mod:`geosite.schedule.calendar`.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from geosite.errors import InputError
from geosite.practices.stabilization import Stabilization
from geosite.practices.stockpile_stabilization import StockpileStabilization
from geosite.schedule.calendar import HolidayCalendar, add_days, as_date, holiday_calendar, non_working_policy

if TYPE_CHECKING:
    from geosite.rules import Profile
    from geosite.rules.model import Entry

PLAN_TYPES = ("full", "statement", "both")


@dataclass(frozen=True)
class Deadline:
    """One dated item of the calendar.

    Attributes
    ----------
    date : datetime.date
        The day it falls due (the last day allowed).
    what : str
        What is due, e.g. "Review of the erosion control plan (full plan)".
    kind : str
        Review, permit, notice, inspection, stabilization or enforcement.
    rule : str
        How the date was counted, e.g. "30 working days after receipt on 2026-12-15".
    citation : str
        The ordinance (or state rule) it comes from, as a reader finds it.
    note : str
        Anything the reader must know (a calendar-day deadline on a weekend, an assumption).
    """

    date: dt.date
    what: str
    kind: str
    rule: str
    citation: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The deadline as JSON-ready data (the date in ISO form, with its weekday)."""
        return {
            "date": self.date.isoformat(),
            "weekday": self.date.strftime("%a"),
            "what": self.what,
            "kind": self.kind,
            "rule": self.rule,
            "citation": self.citation,
            "note": self.note,
        }


def dated_entry(profile: Profile, table: str, key: str) -> Entry | None:
    """The profile's ``[table] key`` entry, or None when it is absent or has no value."""
    e = profile.entry(table, key)
    return e if e is not None and e.get("value") is not None else None


def cite(profile: Profile, e: Entry | Mapping[str, Any]) -> str:
    """Where an entry comes from, as a reader finds it: its section and citation, else its source's head."""
    text = profile.cite(e.get("citation"), e.get("section"))
    return text or str(e.get("source", "")).split(":")[0]  # a source's head names it; the rest explains


def _due(
    profile: Profile,
    calendar: HolidayCalendar,
    table: str,
    key: str,
    start: dt.date,
    *,
    what: str,
    kind: str,
    default_unit: str,
    event: str,
) -> Deadline | None:
    """The deadline the entry ``[table] key`` sets after ``start`` (None when the profile has none), counted
    in the entry's unit (else ``default_unit``); ``event`` names the day counted from.
    """
    e = dated_entry(profile, table, key)
    if e is None:
        return None
    unit = e.get("unit", default_unit)
    due, rule, note = add_days(start, e["value"], unit, calendar, policy=non_working_policy(profile))
    return Deadline(
        due,
        what,
        kind,
        rule.replace(f"after {start.isoformat()}", f"after {event} on {start.isoformat()}"),
        cite(profile, e),
        note,
    )


def review_deadlines(
    received: dt.date,
    profile: Profile,
    plan_type: str | None = None,
    *,
    info_received: dt.date | None = None,
    calendar: HolidayCalendar | None = None,
) -> list[Deadline]:
    """The Building Inspector's review deadline(s).

    Parameters
    ----------
    received : datetime.date
        The day the application, plan and fee were all received (day 0).
    profile : Profile
        The village's profile; ``[review] kind`` says working or calendar days.
    plan_type : {"full", "statement", "both"}, optional
        The plan type; None (unknown): both deadlines are given, each labelled.
    info_received : datetime.date, optional
        The day needed information was received; adds the second review's deadline.
    calendar : HolidayCalendar, optional
        The holidays (default: the profile's).

    Returns
    -------
    list of Deadline
        The deadlines in date order, one row where both plan types give the same.
    """
    if plan_type is not None and plan_type not in PLAN_TYPES:
        raise InputError(f"plan type {plan_type!r}; use one of {', '.join(PLAN_TYPES)}")
    cal = calendar or holiday_calendar(profile)
    unit = profile.review.kind
    kinds = ("full", "statement") if plan_type in (None, "both") else (plan_type,)
    label = {"full": "full plan", "statement": "plan statement"}
    out = []
    for k in kinds:
        suffix = (
            ""
            if plan_type in ("full", "statement")
            else f" (if a {label[k]})"
            if plan_type is None
            else f" ({label[k]})"
        )
        first = _due(
            profile,
            cal,
            "review",
            f"{k}_plan_days" if k == "full" else "statement_days",
            received,
            what=f"Plan review decision{suffix}",
            kind="review",
            default_unit=unit,
            event="receipt",
        )
        out += [first] if first else []
        if info_received is not None:
            out += _second_review(profile, cal, k, info_received, what_suffix=suffix, unit=unit)
    return _dedupe(out)


def _second_review(
    profile: Profile, cal: HolidayCalendar, kind: str, info_received: dt.date, *, what_suffix: str, unit: str
) -> list[Deadline]:
    """The second review's deadline for the plan ``kind``, after the needed information was received."""
    d = _due(
        profile,
        cal,
        "review",
        f"after_information_{kind}_days",
        info_received,
        what=f"Second review decision, after the needed information{what_suffix}",
        kind="review",
        default_unit=unit,
        event="receipt of the information",
    )
    return [d] if d else []


def _dedupe(items: list[Deadline]) -> list[Deadline]:
    """Where both plan types give the same date and citation, one row."""
    seen: dict[tuple, Deadline] = {}
    for d in items:
        key = (d.date, d.citation, d.what.split(" (")[0])
        if key in seen:
            continue
        seen[key] = d
    return sorted(seen.values(), key=lambda d: d.date)


def permit_expiry(
    issued: dt.date, profile: Profile, building_permit_days: int | None = None, extensions: Sequence[int] = ()
) -> list[Deadline]:
    """The permit's last valid day: issue + max(duration, building permit length), then each extension.

    Parameters
    ----------
    issued : datetime.date
        The day the permit was issued (day 0).
    profile : Profile
        Its ``[permit] duration_days`` and ``extension_days`` (the most one extension may add).
    building_permit_days : int, optional
        Length of the building permit or other construction authorization, days, if any.
    extensions : sequence of int
        Days granted by each extension, in order; each at most ``extension_days``.

    Returns
    -------
    list of Deadline
        The expiry, then the expiry after each extension.
    """
    dur = dated_entry(profile, "permit", "duration_days")
    if dur is None:
        return []
    days = int(dur["value"])
    rule = f"{days} days after issue on {issued.isoformat()} (day 0)"
    if building_permit_days is not None and building_permit_days > days:
        days = int(building_permit_days)
        rule = (
            f"the building permit's {days} days (longer than {dur['value']}) after issue on "
            f"{issued.isoformat()} (day 0)"
        )
    expires = issued + dt.timedelta(days=days)
    out = [
        Deadline(
            expires, "Erosion control permit expires (last valid day)", "permit", rule, cite(profile, dur)
        )
    ]
    ext = dated_entry(profile, "permit", "extension_days")
    for i, n in enumerate(extensions, 1):
        if ext is None:
            raise InputError("permit extensions: not specified by this chapter")
        if not 0 < n <= ext["value"]:
            raise InputError(
                f"extension {i} of {n} days: each extension may add 1 to {ext['value']} days "
                f"({cite(profile, ext)})"
            )
        expires += dt.timedelta(days=int(n))
        out.append(
            Deadline(
                expires,
                f"Permit expires after extension {i}",
                "permit",
                f"previous expiry + {n} days (at most {ext['value']} per extension)",
                cite(profile, ext),
            )
        )
    return out


def start_notice_due(
    start: dt.date, profile: Profile, calendar: HolidayCalendar | None = None
) -> Deadline | None:
    """When the permittee must notify the village that land disturbance started on ``start``."""
    return _due(
        profile,
        calendar or holiday_calendar(profile),
        "permit",
        "notify_start",
        start,
        what="Permittee notifies the village that work started",
        kind="notice",
        default_unit="working_days",
        event="the start of work",
    )


def bmp_completion_notice_due(
    installed: dt.date, profile: Profile, calendar: HolidayCalendar | None = None
) -> Deadline | None:
    """When the permittee must notify the village that BMPs installed on ``installed`` are complete."""
    return _due(
        profile,
        calendar or holiday_calendar(profile),
        "permit",
        "notify_bmp_completion",
        installed,
        what="Permittee notifies the village that BMPs are installed",
        kind="notice",
        default_unit="working_days",
        event="installation",
    )


def enforcement_deadlines(
    profile: Profile,
    *,
    notice: dt.date | None = None,
    notice_of_intent: dt.date | None = None,
    notice_without_permit: dt.date | None = None,
    calendar: HolidayCalendar | None = None,
) -> list[Deadline]:
    """After a notice of violation / stop-work order: the time to comply; where work goes on without a
    permit, the time to cease after the notice (Grantsburg Enforcement C: 24 hours, else the Building
    Inspector may seek a cease and desist order); after a notice of intent: when the village may start the
    work itself. Empty when the chapter says nothing (Belgium).
    """
    cal = calendar or holiday_calendar(profile)
    out = []
    if notice is not None:
        d = _due(
            profile,
            cal,
            "enforcement",
            "comply_hours",
            notice,
            what="Permittee complies (else the permit may be revoked)",
            kind="enforcement",
            default_unit="hours",
            event="the notice",
        )
        out += [d] if d else []
    if notice_without_permit is not None:
        d = _due(
            profile,
            cal,
            "enforcement",
            "cease_without_permit_hours",
            notice_without_permit,
            what=(
                "Landowner or land user without a permit ceases the activity (else a cease and desist order "
                "may be sought)"
            ),
            kind="enforcement",
            default_unit="hours",
            event="the notice",
        )
        out += [d] if d else []
    if notice_of_intent is not None:
        d = _due(
            profile,
            cal,
            "enforcement",
            "village_work_after",
            notice_of_intent,
            what="Village may go on the land and start the work",
            kind="enforcement",
            default_unit="working_days",
            event="mailing or service of the notice of intent",
        )
        out += [d] if d else []
    return out


def permit_conditions(profile: Profile, issued: dt.date | None = None) -> list[str]:
    """The conditions the chapter sets on issuing the permit, in words with their citations: the surety
    (``[permit] surety``: Grantsburg D(2) "shall", Belgium D(2) "may") and the hold on building permits
    (``[permit] building_permit_hold``: Grantsburg C(3)); [] when the chapter sets none.
    """
    out = []
    s = dated_entry(profile, "permit", "surety")
    if s is not None:
        by = s.get("by", "the village")
        verb = "shall require" if s["value"] == "shall" else "may require"
        day = f" on {issued.isoformat()}" if issued else ""
        out.append(f"before the permit is issued{day}, {by} {verb} {s['text']} ({cite(profile, s)})")
    h = dated_entry(profile, "permit", "building_permit_hold")
    if h is not None:
        after = f": no building permit before {issued.isoformat()}" if issued else ""
        out.append(f"{h['text']} ({cite(profile, h)}){after}")
    return out


class Dated(NamedTuple):
    """Deadlines, and notes on what could not be dated or is not specified by the chapter."""

    deadlines: list[Deadline]
    notes: list[str]


def stabilization_deadlines(site: Any, profile: Profile) -> Dated:
    """Stabilization due dates from the site's ``disturbance`` and ``stockpiles`` layers.

    Disturbed ground inactive the ``inactive_stabilization`` requirement's ``days`` (Grantsburg B(6)(c)[1]:
    7) or more: each disturbance polygon's ``end`` + those days, if work stops there. Piles that the
    ``stockpile_stabilization`` requirement's ``days`` condition covers (Grantsburg B(6)(e): more than 30):
    the pile's ``start`` (else the earliest start of the disturbance polygons it touches, else the project
    start) + those days.

    Parameters
    ----------
    site : Site
        The site (:class:`geosite.site.Site`): its disturbance and stockpiles layers, its project start.
    profile : Profile
        The jurisdiction profile.

    Returns
    -------
    Dated
        The deadlines, and notes saying what could not be dated, or that the chapter does not specify it.
    """
    dist = site.layer("disturbance")
    inactive = profile.days_of(Stabilization.serves[0])
    if inactive is None:
        ground = Dated([], ["stabilization of inactive disturbed ground: not specified by this chapter"])
    else:
        ground = _inactive_ground(dist, profile, inactive)
    piles_e = profile.days_of(StockpileStabilization.serves[0])
    if piles_e is None:
        piles = Dated([], ["stabilization of soil stockpiles: not specified by this chapter"])
    else:
        piles = _stockpiles(site, dist, profile, piles_e)
    return Dated(ground.deadlines + piles.deadlines, ground.notes + piles.notes)


def _inactive_ground(dist: Any, profile: Profile, inactive: Entry) -> Dated:
    """Each disturbance polygon's ``end`` + the ``inactive`` entry's days (a note for one without an end)."""
    out = Dated([], [])
    if dist is None:
        return out
    n = int(inactive["value"])
    for _, row in dist.iterrows():
        end = as_date(row.get("end")) if "end" in dist.columns else None
        label = _feature_label(row, "disturbance area")
        if end is None:
            out.notes.append(
                f"{label}: no end date, so its stabilization ({n} days after work stops) cannot be dated"
            )
            continue
        out.deadlines.append(
            Deadline(
                end + dt.timedelta(days=n),
                f"Stabilize {label} if left inactive",
                "stabilization",
                f"{n} days after its planned end on {end.isoformat()} (inactive {n} days or more)",
                cite(profile, inactive),
            )
        )
    return out


def _stockpiles(site: Any, dist: Any, profile: Profile, piles_e: Entry) -> Dated:
    """Each pile staying more than the ``piles_e`` entry's days: its start + those days (a note for a pile
    planned for no longer, or one whose start cannot be told).
    """
    out = Dated([], [])
    piles = site.layer("stockpiles")
    if piles is None:
        return out
    project_start = getattr(site.project, "start", None)
    limit = int(piles_e["value"])
    for _, row in piles.iterrows():
        label = _feature_label(row, "stockpile")
        start, whence = _pile_start(row, piles, dist, project_start)
        days = row.get("days") if "days" in piles.columns else None
        days = None if days is None or (isinstance(days, float) and math.isnan(days)) else float(days)
        if days is not None and days <= limit:
            out.notes.append(
                f"{label}: planned {days:g} days, not more than {limit}: no stabilization required "
                f"({cite(profile, piles_e)})"
            )
            continue
        if start is None:
            out.notes.append(
                f"{label}: no start date (pile, disturbance or project), so its stabilization cannot be dated"
            )
            continue
        stay = (
            f"planned {days:g} days" if days is not None else "days in place unknown; due if it stays longer"
        )
        out.deadlines.append(
            Deadline(
                start + dt.timedelta(days=limit),
                f"Stabilize {label} (mulch, vegetative cover, tarps)",
                "stabilization",
                f"{limit} days after it is placed ({whence} {start.isoformat()}); {stay}",
                cite(profile, piles_e),
            )
        )
    return out


def _feature_label(row: Any, kind: str) -> str:
    """A feature as a note names it: its kind and id, and its name when it has one."""
    name = row.get("name") if hasattr(row, "get") else None
    fid = row.get("id") if hasattr(row, "get") else None
    text = f"{kind} {fid}" if fid is not None else kind
    return f"{text} ({name})" if isinstance(name, str) and name else text


def _pile_start(row: Any, piles: Any, dist: Any, project_start: dt.date | None) -> tuple[dt.date | None, str]:
    """When a pile was placed, and whence that date comes (its start, the disturbance's, the project's)."""
    if "start" in piles.columns and as_date(row.get("start")) is not None:
        return as_date(row.get("start")), "pile start"
    if dist is not None and "start" in dist.columns:
        touching = dist[dist.geometry.intersects(row.geometry)]
        starts = [s for s in (as_date(v) for v in touching["start"]) if s is not None]
        if starts:
            return min(starts), "start of the disturbance it lies in"
    if project_start is not None:
        return project_start, "project start"
    return None, ""
