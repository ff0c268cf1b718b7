"""The schedule table: everything dated for one site (:func:`build_schedule` -> :class:`Schedule`), as
text, Markdown or JSON-ready rows, and the counting rules in words.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite.errors import InputError
from geosite.schedule.calendar import HolidayCalendar, holiday_calendar, non_working_policy
from geosite.schedule.deadlines import (
    PLAN_TYPES,
    Deadline,
    bmp_completion_notice_due,
    cite,
    dated_entry,
    enforcement_deadlines,
    permit_conditions,
    permit_expiry,
    review_deadlines,
    stabilization_deadlines,
    start_notice_due,
)
from geosite.schedule.inspections import Inspection, inspection_schedule, read_rainfall

if TYPE_CHECKING:
    from geosite.rules import Profile


@dataclass
class Schedule:
    """Everything dated for one site: deadlines (review, permit, notices, stabilization, enforcement),
    inspections, the conditions of issuing the permit (surety, building permit hold), and notes (rules
    without a date yet, things not specified, inputs missing).
    """

    site: str
    jurisdiction: str
    jurisdiction_name: str
    plan_type: str | None
    counting: list[str]
    deadlines: list[Deadline] = field(default_factory=list)
    inspections: list[Inspection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        """Deadlines and inspections merged in date order (inspections on one row per day)."""
        rows = [d.to_dict() for d in self.deadlines]
        rows += [
            {
                "date": i.date.isoformat(),
                "weekday": i.date.strftime("%a"),
                "what": "Inspect the BMPs and repair",
                "kind": "inspection",
                "rule": "; ".join(i.reasons),
                "citation": i.citation,
                "note": "",
            }
            for i in self.inspections
        ]
        order = {"review": 0, "notice": 1, "permit": 2, "enforcement": 3, "stabilization": 4, "inspection": 5}
        return sorted(rows, key=lambda r: (r["date"], order.get(r["kind"], 9)))

    def to_dict(self) -> dict[str, Any]:
        """The schedule as JSON-ready data (schedule.json)."""
        return {
            "site": self.site,
            "jurisdiction": self.jurisdiction,
            "jurisdiction_name": self.jurisdiction_name,
            "plan_type": self.plan_type,
            "counting": list(self.counting),
            "deadlines": [d.to_dict() for d in self.deadlines],
            "inspections": [i.to_dict() for i in self.inspections],
            "conditions": list(self.conditions),
            "notes": list(self.notes),
        }

    def to_text(self, *, width: int = 56) -> str:
        """A plain table for the terminal: date, day, what, citation; rule and note on the next line."""
        lines = [
            f"{self.site}: schedule under the {self.jurisdiction_name} erosion control chapter",
            f"plan type: {self.plan_type or 'not known'}",
            "",
        ]
        lines.append(f"{'date':<10}  {'day':<3}  {'what':<{width}}  citation")
        lines.append(f"{'-' * 10}  {'-' * 3}  {'-' * width}  {'-' * 20}")
        import textwrap

        for r in self.rows():
            # the whole of "what", wrapped in its column (never cut short)
            what = textwrap.wrap(r["what"], width) or [""]
            lines.append(f"{r['date']:<10}  {r['weekday']:<3}  {what[0]:<{width}}  {r['citation']}")
            lines += [f"{'':<17}{w}" for w in what[1:]]
            lines.append(f"{'':<17}{r['rule']}")
            if r["note"]:
                lines.append(f"{'':<17}NOTE: {r['note']}")
        lines += ["", "How days are counted:"] + [f"  - {c}" for c in self.counting]
        if self.conditions:
            lines += ["", "Conditions of the permit:"] + [f"  - {c}" for c in self.conditions]
        if self.notes:
            lines += ["", "Notes:"] + [f"  - {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def write(self, out: str | Path, overwrite: bool = False) -> list[Path]:
        """Write schedule.json and schedule.md into the folder ``out``, atomically. Returns the files."""
        from geosite.io.output import atomic_dir, write_json

        out = Path(out)
        with atomic_dir(out, overwrite=overwrite) as tmp:
            write_json(tmp / "schedule.json", self.to_dict())
            (tmp / "schedule.md").write_text(self.to_markdown(), encoding="utf-8")
        return [out / "schedule.json", out / "schedule.md"]

    def to_markdown(self) -> str:
        """The same calendar as a Markdown document (every text escaped: the site's name is the applicant's).

        Returns
        -------
        str
            The document.
        """
        from geosite.io.text import markdown as md

        out = [
            f"# Schedule: {md(self.site)}",
            "",
            f"Jurisdiction: {md(self.jurisdiction_name)}. Plan type: {md(self.plan_type or 'not known')}.",
            "",
            "| Date | Day | What | How counted | Citation | Note |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for r in self.rows():
            cells = [r["date"], r["weekday"], r["what"], r["rule"], r["citation"], r["note"]]
            out.append("| " + " | ".join(md(c) for c in cells) + " |")
        out += ["", "## How days are counted", ""] + [f"- {md(c)}" for c in self.counting]
        if self.conditions:
            out += ["", "## Conditions of the permit", ""] + [f"- {md(c)}" for c in self.conditions]
        if self.notes:
            out += ["", "## Notes", ""] + [f"- {md(n)}" for n in self.notes]
        return "\n".join(out) + "\n"


def counting_rules(profile: Profile, calendar: HolidayCalendar | None = None) -> list[str]:
    """The day-counting rules in force for this profile, in words (for reports)."""
    cal = calendar or holiday_calendar(profile)
    kind = profile.review.kind
    policy = non_working_policy(profile)
    rules = [
        "The day of the event (receipt, issue, start, installation, notice) is day 0; a deadline of N days "
        "is "
        "the Nth day after it."
    ]
    where = f" ({cal.citation})" if cal.citation else ""
    base = f"{cal.country}{'-' + cal.subdiv if cal.subdiv else ''} holidays from the holidays library" + (
        ", observed days included" if cal.observed else ""
    )
    changes = []
    if cal.add:
        changes.append("plus " + ", ".join(str(dict(a).get("name", "village day")) for a in cal.add))
    if cal.remove:
        changes.append("minus " + ", ".join(cal.remove))
    rules.append(
        f"Working days{where}: every day except Saturdays, Sundays and holidays: {base}"
        + (f" ({'; '.join(changes)})" if changes else "")
        + (f". {cal.source}" if cal.source else ".")
    )
    if kind == "calendar_days":
        rules.append("Review periods are calendar days (the chapter says 'days').")
    rules.append(
        "Calendar-day and hour deadlines that end on a Saturday, Sunday or holiday are "
        + (
            "moved to the next working day."
            if policy == "extend"
            else "not moved (the chapter is silent); the note gives the next working day."
        )
    )
    rules.append(
        "Hours are counted straight through: 48 hours after work starts is the same time two days later."
    )
    return rules


def plan_type_of(site: Any, profile: Profile) -> str | None:
    """'full', 'statement', 'both' or None, from the disturbed area and the profile's ``[plan_type]``
    (the rules engine's own decision, thresholds compared the same way).
    """
    from geosite.rules import plan_type
    from geosite.units import SQFT_PER_ACRE

    geom = site.disturbed
    if geom is None:
        return None
    acres = float(geom.area) * site.ft_per_unit**2 / SQFT_PER_ACRE
    return plan_type(profile, {"disturbed.area_acres": acres})[0]


def build_schedule(
    site: Any,
    profile: Profile | None = None,
    *,
    received: dt.date | None = None,
    issued: dt.date | None = None,
    info_received: dt.date | None = None,
    rain: str | Path | Mapping[dt.date, float] | None = None,
    plan_type: str | None = None,
    extensions: Sequence[int] = (),
    bmp_installed: Iterable[dt.date] = (),
    notice: dt.date | None = None,
    notice_of_intent: dt.date | None = None,
    notice_without_permit: dt.date | None = None,
) -> Schedule:
    """The site's calendar under its village's chapter.

    Parameters
    ----------
    site : Site
        The site (:class:`geosite.site.Site`): its project's start, end and building_permit_days, its
        disturbance and stockpiles.
    profile : Profile, optional
        The jurisdiction profile (default: the site's).
    received : datetime.date, optional
        Day the application, plan and fee were received: the review deadline.
    issued : datetime.date, optional
        Day the permit was issued: its expiry.
    info_received : datetime.date, optional
        Day needed information was received: the second review's deadline.
    rain : str, Path or Mapping of datetime.date to float, optional
        A rainfall CSV (see :func:`read_rainfall`), or the rain in inches by date: the rain inspections.
    plan_type : {"full", "statement", "both"}, optional
        The plan type; default from the disturbed area.
    extensions : sequence of int
        The permit's extensions, days each, added to its expiry.
    bmp_installed : iterable of datetime.date
        Days BMPs were installed: each completion notice's deadline.
    notice : datetime.date, optional
        Day of a notice of violation or stop-work order: the time to comply.
    notice_of_intent : datetime.date, optional
        Day a notice of intent was mailed or served: when the village may do the work.
    notice_without_permit : datetime.date, optional
        Day of a notice where work goes on without a permit: the time to cease (Grantsburg Enforcement C).

    Returns
    -------
    Schedule
        The deadlines, inspections, permit conditions and notes, deadlines in date order.
    """
    from geosite.rules import load_profile

    profile = profile or getattr(site, "profile", None) or load_profile(site.jurisdiction)
    events = _Events(
        received=received,
        issued=issued,
        info_received=info_received,
        rain=rain,
        extensions=extensions,
        bmp_installed=tuple(bmp_installed),
        notice=notice,
        notice_of_intent=notice_of_intent,
        notice_without_permit=notice_without_permit,
    )
    return _schedule(site, profile, plan_type, events)


@dataclass(frozen=True, kw_only=True)
class _Events:
    """The days a schedule counts from, as :func:`build_schedule` takes them (None or empty: not given)."""

    received: dt.date | None = None
    issued: dt.date | None = None
    info_received: dt.date | None = None
    rain: str | Path | Mapping[dt.date, float] | None = None
    extensions: Sequence[int] = ()
    bmp_installed: tuple[dt.date, ...] = ()
    notice: dt.date | None = None
    notice_of_intent: dt.date | None = None
    notice_without_permit: dt.date | None = None

    @property
    def no_notice(self) -> bool:
        """Whether no enforcement notice was given."""
        return self.notice is None and self.notice_of_intent is None and self.notice_without_permit is None


def _schedule(site: Any, profile: Profile, plan_type: str | None, events: _Events) -> Schedule:
    """The schedule of ``site`` from the ``events`` given: each kind of deadline, inspection and note."""
    cal = holiday_calendar(profile)
    if plan_type is None:
        plan_type = plan_type_of(site, profile)
    elif plan_type not in PLAN_TYPES:
        raise InputError(f"plan type {plan_type!r}; use one of {', '.join(PLAN_TYPES)}")
    sched = Schedule(
        site=site.name,
        jurisdiction=profile.id,
        jurisdiction_name=profile.name,
        plan_type=plan_type,
        counting=counting_rules(profile, cal),
    )
    p = site.project
    _add_review(sched, profile, cal, events.received, events.info_received)
    _add_permit(sched, profile, events.issued, events.extensions, p.building_permit_days)
    _add_start_notice(sched, profile, cal, p.start)
    _add_bmp_notices(sched, profile, cal, events.bmp_installed)
    _add_inspections(sched, profile, p, events.rain)
    stab, stab_notes = stabilization_deadlines(site, profile)
    sched.deadlines += stab
    sched.notes += stab_notes
    sched.conditions = permit_conditions(profile, events.issued)
    _add_enforcement(sched, profile, cal, events)
    sched.deadlines.sort(key=lambda d: d.date)
    return sched


def _add_start_notice(sched: Schedule, profile: Profile, cal: Any, start: dt.date | None) -> None:
    """The start-of-work notice's deadline (a note when the project has no start date)."""
    if start is None:
        sched.notes.append("start-of-work notice: the project has no start date")
        return
    d = start_notice_due(start, profile, cal)
    if d:
        sched.deadlines.append(d)


def _add_enforcement(sched: Schedule, profile: Profile, cal: Any, events: _Events) -> None:
    """The enforcement periods as notes (when no notice is given, or the chapter sets none) and the
    deadlines of the notices given.
    """
    if events.no_notice or not profile.tables["enforcement"]:
        sched.notes += _enforcement_notes(profile)
    sched.deadlines += enforcement_deadlines(
        profile,
        notice=events.notice,
        notice_of_intent=events.notice_of_intent,
        notice_without_permit=events.notice_without_permit,
        calendar=cal,
    )


def _add_review(
    sched: Schedule, profile: Profile, cal: Any, received: dt.date | None, info_received: dt.date | None
) -> None:
    """The review deadlines (from ``received``, and the second review's from ``info_received``)."""
    plan_type, notes = sched.plan_type, sched.notes
    if received is not None:
        sched.deadlines += review_deadlines(
            received, profile, plan_type, info_received=info_received, calendar=cal
        )
    else:
        notes.append(
            "review deadline: give the date the application, plan and fee were received (--received)"
        )
        if info_received is not None:
            sched.deadlines += [
                d
                for d in review_deadlines(
                    info_received, profile, plan_type, info_received=info_received, calendar=cal
                )
                if d.what.startswith("Second")
            ]


def _add_permit(
    sched: Schedule,
    profile: Profile,
    issued: dt.date | None,
    extensions: Sequence[int],
    building_permit_days: int | None,
) -> None:
    """The permit's expiry (from ``issued``; ``extensions`` in days each)."""
    notes = sched.notes
    if issued is not None:
        sched.deadlines += permit_expiry(issued, profile, building_permit_days, extensions)
        if dated_entry(profile, "permit", "duration_days") is None:
            notes.append("permit duration: not specified by this chapter")
    else:
        ext = dated_entry(profile, "permit", "extension_days")
        notes.append(
            "permit expiry: give the date the permit was issued (--issued)"
            + (f"; extensions of up to {ext['value']} days each ({cite(profile, ext)})" if ext else "")
        )


def _add_bmp_notices(sched: Schedule, profile: Profile, cal: Any, bmp_installed: Iterable[dt.date]) -> None:
    """Each BMP completion notice's deadline, for the installation days given."""
    notes = sched.notes
    bmp = dated_entry(profile, "permit", "notify_bmp_completion")
    if bmp is not None:
        unit = bmp.get("unit", "working_days").replace("_", " ")
        unit = unit.removesuffix("s") if bmp["value"] == 1 else unit
        notes.append(
            f"BMP completion notice: within {bmp['value']:g} {unit} after each BMP is installed "
            f"({cite(profile, bmp)}); dated below for the installation days given"
        )
    for day in bmp_installed:
        d = bmp_completion_notice_due(day, profile, cal)
        if d:
            sched.deadlines.append(d)


def _add_inspections(
    sched: Schedule, profile: Profile, p: Any, rain: str | Path | Mapping[dt.date, float] | None
) -> None:
    """Weekly and rain inspections over the project's dates (``p``: the site's project)."""
    notes = sched.notes
    if p.start is not None and p.end is not None:
        rain_in = read_rainfall(rain) if isinstance(rain, (str, Path)) else rain
        sched.inspections = inspection_schedule(p.start, p.end, profile, rain_in)
        if rain_in is None:
            notes.append(
                "rain inspections: no rainfall record given (--rain CSV); only weekly inspections are listed"
            )
    else:
        notes.append("inspections: the project needs start and end dates")


def _enforcement_notes(profile: Profile) -> list[str]:
    """The enforcement periods, as notes (when no notice is given)."""
    if not profile.tables["enforcement"]:
        return ["enforcement periods: not specified by this chapter"]
    notes: list[str] = []
    comply = dated_entry(profile, "enforcement", "comply_hours")
    cease = dated_entry(profile, "enforcement", "cease_without_permit_hours")
    work = dated_entry(profile, "enforcement", "village_work_after")
    if comply:
        notes.append(
            f"after a notice of violation or stop-work order: comply within {comply['value']:g} hours "
            f"({cite(profile, comply)})"
        )
    if cease:
        notes.append(
            f"where work goes on without a permit: cease within {cease['value']:g} hours of the notice, "
            "or the Building "
            f"Inspector may request a cease and desist order ({cite(profile, cease)})"
        )
    if work:
        notes.append(
            f"after a notice of intent: the village may start the work {work['value']:g} working days "
            f"after it is mailed or served ({cite(profile, work)})"
        )
    return notes
