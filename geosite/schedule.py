"""The review calendar: working days, review and permit deadlines, notices, inspections, stabilization.

Pure functions over ``datetime.date``; every number comes from the jurisdiction profile (``[review]``,
``[permit]``, ``[controls]``, ``[enforcement]``) and every deadline carries the citation it comes from.

Day counting (the same for every village; see docs in :func:`add_days`):

- The day of the event (receipt, issue, start of work, a notice) is **day 0**; the deadline is the
  **Nth day after it** (Wis. Stat. 990.001(4): exclude the first day, include the last).
- **Working days** (Grantsburg's "working day": a calendar day except Saturdays, Sundays and
  Village-recognized legal holidays): the deadline is the Nth working day after day 0. An event on a
  weekend or holiday is still day 0; counting starts with the next working day.
- **Calendar days** (Belgium's "days"): the deadline is day 0 + N. When that day is a Saturday, Sunday or
  holiday the chapter is silent: by default (``[review] non_working_last_day = "report"``) the date is
  *not* moved, so nobody relies on a later date the village may not grant, and the deadline says which
  day of the week it is and the next working day. A profile may set ``"extend"`` to move it to the
  next working day instead.
- **Hours** (48 hours, 24 hours): counted straight through; the date shown is day 0 + hours / 24, by the
  same time of day as the event.

Which days are holidays: the profile's ``[review.holidays]`` table (see :class:`HolidayCalendar`).
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosite.errors import InputError, MissingInputError, ProfileError
from geosite.rules.profile import Profile

MM_PER_IN = 25.4
PLAN_TYPES = ("full", "statement", "both")
TRACE_VALUES = ("t", "trace")          # NOAA daily records mark a trace of rain "T": counted as 0.0 in
NON_WORKING_LAST_DAY = ("report", "extend")

# ------------------------------------------------------------------------------------------ holidays


@dataclass(frozen=True)
class HolidayCalendar:
    """The holidays a village recognizes, for counting working days.

    Base list: the ``holidays`` library for ``country`` (and ``subdiv``), observed dates included when
    ``observed`` (for the US: a holiday on a Saturday is observed the Friday before, on a Sunday the
    Monday after). ``add`` puts village days on top, ``remove`` takes base days off:

    - ``add`` entries (tables): ``{ month_day = "12-24", name = "Christmas Eve" }`` every year on that
      date (never shifted); ``{ after = "Thanksgiving Day", days = 1, name = "Day after Thanksgiving" }``
      N days after a base holiday's own date; ``{ date = "2026-11-03", name = "General election" }`` once.
    - ``remove`` entries: a base holiday's name (its observed day goes too), or one date ``"YYYY-MM-DD"``.

    Parameters
    ----------
    country, subdiv : passed to ``holidays.country_holidays``.
    observed : include observed (shifted) days.
    add, remove : village changes, as above.
    citation : where the village defines a working day; ``source`` says why this list.
    """

    country: str = "US"
    subdiv: str | None = None
    observed: bool = True
    add: tuple[tuple[tuple[str, Any], ...], ...] = ()
    remove: tuple[str, ...] = ()
    citation: str = ""
    source: str = ""

    @classmethod
    def from_profile(cls, profile: Profile) -> HolidayCalendar:
        """The calendar in ``[review.holidays]``; US federal holidays as observed when the table is absent."""
        conf = profile.data.get("review", {}).get("holidays")
        if conf is None:
            return cls(source="geosite default: US federal legal public holidays, as observed")
        if not isinstance(conf, dict):
            raise ProfileError(f"profile {profile.path}: [review] holidays must be a table")
        known = {"country", "subdiv", "observed", "add", "remove", "citation", "section", "source"}
        unknown = sorted(set(conf) - known)
        if unknown:
            raise ProfileError(f"profile {profile.path}: [review.holidays] unknown keys {unknown}; known: {sorted(known)}")
        cal = cls(
            country=str(conf.get("country", "US")),
            subdiv=conf.get("subdiv"),
            observed=bool(conf.get("observed", True)),
            add=tuple(tuple(sorted(a.items())) if isinstance(a, dict) else (("bad", a),) for a in conf.get("add", [])),
            remove=tuple(str(r) for r in conf.get("remove", [])),
            citation=profile.cite(conf.get("citation"), conf.get("section")),
            source=str(conf.get("source", "")),
        )
        problems = cal.check()
        if problems:
            raise ProfileError(f"profile {profile.path}: [review.holidays]: " + "; ".join(problems))
        return cal

    def check(self) -> list[str]:
        """Problems with ``add`` / ``remove`` (unknown holiday names, bad dates), each naming the fix."""
        problems = []
        base_names = _base_names(self.country, self.subdiv)
        for entry in self.add:
            d = dict(entry)
            if "month_day" in d:
                try:
                    dt.date(2000, *map(int, str(d["month_day"]).split("-")))  # 2000: leap year, Feb 29 allowed
                except (TypeError, ValueError):
                    problems.append(f"add: month_day {d['month_day']!r} is not MM-DD")
            elif "after" in d:
                if d["after"] not in base_names:
                    problems.append(f"add: after {d['after']!r} is not a holiday of the base list; known: {', '.join(sorted(base_names))}")
                if not isinstance(d.get("days", 1), int):
                    problems.append(f"add: days {d.get('days')!r} after {d['after']!r} must be a whole number")
            elif "date" in d:
                if _as_date(d["date"]) is None:
                    problems.append(f"add: date {d['date']!r} is not YYYY-MM-DD")
            else:
                problems.append(f"add: {d!r} needs month_day, after or date (and a name)")
        for r in self.remove:
            if _as_date(r) is None and r not in base_names:
                problems.append(f"remove: {r!r} is neither a date (YYYY-MM-DD) nor a holiday of the base list; known: {', '.join(sorted(base_names))}")
        return problems

    def holiday(self, day: dt.date) -> str | None:
        """The holiday's name on ``day`` (names joined with '; '), or None."""
        return _holidays_of_year(self, day.year).get(day)

    def holidays_in(self, year: int) -> dict[dt.date, str]:
        """Every holiday in ``year``, by date."""
        return dict(sorted(_holidays_of_year(self, year).items()))

    def is_working_day(self, day: dt.date) -> bool:
        """Not a Saturday, Sunday or holiday."""
        return day.weekday() < 5 and self.holiday(day) is None

    def why_not_working(self, day: dt.date) -> str | None:
        """'Saturday', 'Sunday' or the holiday's name; None on a working day."""
        if day.weekday() >= 5:
            return day.strftime("%A")
        return self.holiday(day)

    def add_working_days(self, day: dt.date, n: int) -> dt.date:
        """The ``n``-th working day after ``day`` (``day`` itself is day 0, whatever it is); n >= 0."""
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        d = day
        while n:
            d += dt.timedelta(days=1)
            if self.is_working_day(d):
                n -= 1
        return d

    def on_or_after(self, day: dt.date) -> dt.date:
        """``day`` if it is a working day, else the next working day."""
        while not self.is_working_day(day):
            day += dt.timedelta(days=1)
        return day

    def working_days_between(self, a: dt.date, b: dt.date) -> int:
        """Working days in (a, b]: how many working days after ``a`` the day ``b`` is."""
        return sum(self.is_working_day(a + dt.timedelta(days=i)) for i in range(1, (b - a).days + 1))


@functools.lru_cache(maxsize=8)
def _base(country: str, subdiv: str | None, observed: bool):  # noqa: ANN202
    import holidays

    try:
        return holidays.country_holidays(country, subdiv=subdiv, observed=observed)
    except NotImplementedError as exc:
        raise ProfileError(f"[review.holidays]: {exc}") from exc


@functools.lru_cache(maxsize=8)
def _base_names(country: str, subdiv: str | None) -> frozenset[str]:
    """Every holiday name of the base list (eight years hold every rule's holiday at least once)."""
    base = _base(country, subdiv, False)
    for year in range(2024, 2032):
        base.get(dt.date(year, 6, 1))  # populates the year
    return frozenset(n for names in base.values() for n in names.split("; "))


def _strip_observed(name: str) -> str:
    return name.removesuffix(" (observed)").strip()


@functools.lru_cache(maxsize=256)
def _holidays_of_year(cal: HolidayCalendar, year: int) -> dict[dt.date, str]:
    base = _base(cal.country, cal.subdiv, cal.observed)
    removed_names = {r for r in cal.remove if _as_date(r) is None}
    removed_dates = {_as_date(r) for r in cal.remove} - {None}
    out: dict[dt.date, list[str]] = {}
    # the library files an observed day under its holiday's year (New Year's Day 2028, a Saturday, is
    # observed Fri 2027-12-31): look at the neighbouring years too
    for y in (year - 1, year, year + 1):
        base.get(dt.date(y, 6, 1))  # populates year y
        for d, names in base.items():
            if d.year != year:
                continue
            keep = [n for n in names.split("; ") if _strip_observed(n) not in removed_names]
            if keep:
                out.setdefault(d, [])
                out[d] += [n for n in keep if n not in out[d]]
    unshifted = _base(cal.country, cal.subdiv, False)
    unshifted.get(dt.date(year, 6, 1))
    for entry in cal.add:
        a = dict(entry)
        name = str(a.get("name", "village holiday"))
        if "month_day" in a:
            m, dd = map(int, str(a["month_day"]).split("-"))
            if m == 2 and dd == 29 and not _leap(year):
                continue
            days = [dt.date(year, m, dd)]
        elif "after" in a:
            days = [d + dt.timedelta(days=int(a.get("days", 1))) for d, n in unshifted.items()
                    if d.year == year and a["after"] in n.split("; ")]
        else:
            d = _as_date(a["date"])
            days = [d] if d is not None and d.year == year else []
        for d in days:
            out.setdefault(d, [])
            if name not in out[d]:
                out[d].append(name)
    return {d: "; ".join(n) for d, n in out.items() if n and d not in removed_dates}


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _as_date(value: Any) -> dt.date | None:
    """A date from a date, datetime / Timestamp or ISO string; None for anything else (None, NaN, NaT)."""
    try:
        if value is None or value != value:  # NaN and NaT are not equal to themselves
            return None
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        return dt.date.fromisoformat(str(value).strip())
    except (ValueError, TypeError):
        return None


def holiday_calendar(profile: Profile) -> HolidayCalendar:
    """The profile's holiday calendar (``[review.holidays]``)."""
    return HolidayCalendar.from_profile(profile)


# ------------------------------------------------------------------------------------------ deadlines


@dataclass(frozen=True)
class Deadline:
    """One dated item of the calendar.

    Attributes
    ----------
    date : the day it falls due (the last day allowed).
    what : what is due, e.g. "Review of the erosion control plan (full plan)".
    kind : review, permit, notice, inspection, stabilization or enforcement.
    rule : how the date was counted, e.g. "30 working days after receipt on 2026-12-15".
    citation : the ordinance (or state rule) it comes from, as a reader finds it.
    note : anything the reader must know (a calendar-day deadline on a weekend, an assumption).
    """

    date: dt.date
    what: str
    kind: str
    rule: str
    citation: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"date": self.date.isoformat(), "weekday": self.date.strftime("%a"), "what": self.what,
                "kind": self.kind, "rule": self.rule, "citation": self.citation, "note": self.note}


def _entry(profile: Profile, table: str, key: str) -> dict[str, Any] | None:
    e = profile.entry(table, key)
    return e if e is not None and e.get("value") is not None else None


def _cite(profile: Profile, e: Mapping[str, Any]) -> str:
    cite = profile.cite(e.get("citation"), e.get("section"))
    return cite or str(e.get("source", "")).split(":")[0]  # a source's head names it; the rest explains


def _non_working_policy(profile: Profile) -> str:
    policy = profile.value("review", "non_working_last_day", "report")
    if policy not in NON_WORKING_LAST_DAY:
        raise ProfileError(f"profile {profile.path}: [review] non_working_last_day = {policy!r}; use one of {', '.join(NON_WORKING_LAST_DAY)}")
    return policy


def add_days(start: dt.date, n: float, unit: str, calendar: HolidayCalendar, *,
             policy: str = "report", act: bool = True) -> tuple[dt.date, str, str]:
    """Count ``n`` ``unit`` from ``start`` (day 0).

    Parameters
    ----------
    start : day 0: the day of receipt, issue, start of work or notice.
    n : how many days (or hours).
    unit : "working_days", "calendar_days" / "days", or "hours".
    calendar : the village's holidays.
    policy : for calendar days and hours ending on a non-working day: "report" keeps the date and says so;
        "extend" moves it to the next working day.
    act : whether someone must act by the date (a validity period such as a permit's is never moved).

    Returns
    -------
    (date, rule, note) : the deadline, how it was counted, and a note (empty when nothing to say).
    """
    if unit == "working_days":
        due = calendar.add_working_days(start, int(n))
        return due, f"{n:g} working day{'s' if n != 1 else ''} after {start.isoformat()} (day 0)", ""
    if unit in ("calendar_days", "days"):
        due, rule = start + dt.timedelta(days=int(n)), f"{n:g} days after {start.isoformat()} (day 0)"
    elif unit == "hours":
        due = start + dt.timedelta(days=math.ceil(n / 24))
        rule = f"{n:g} hours from {start.isoformat()}: by the same time of day on {due.isoformat()}"
    else:
        raise ProfileError(f"unit {unit!r} is not one of working_days, calendar_days, days, hours")
    why = calendar.why_not_working(due) if act else None
    if why is None:
        return due, rule, ""
    nxt = calendar.on_or_after(due)
    if policy == "extend":
        return nxt, rule + f"; {due.isoformat()} is a {why}, moved to the next working day", ""
    return due, rule, (f"falls on a non-working day ({why}); the chapter counts calendar days and does not "
                       f"move it (next working day {nxt.strftime('%a')} {nxt.isoformat()})")


def _due(profile: Profile, calendar: HolidayCalendar, table: str, key: str, start: dt.date, what: str,
         kind: str, default_unit: str, event: str) -> Deadline | None:
    e = _entry(profile, table, key)
    if e is None:
        return None
    unit = e.get("unit", default_unit)
    due, rule, note = add_days(start, e["value"], unit, calendar, policy=_non_working_policy(profile))
    return Deadline(due, what, kind, rule.replace(f"after {start.isoformat()}", f"after {event} on {start.isoformat()}"),
                    _cite(profile, e), note)


def review_deadlines(received: dt.date, profile: Profile, plan_type: str | None = None, *,
                     info_received: dt.date | None = None, calendar: HolidayCalendar | None = None) -> list[Deadline]:
    """The Building Inspector's review deadline(s).

    Parameters
    ----------
    received : the day the application, plan and fee were all received (day 0).
    profile : the village's profile; ``[review] kind`` says working or calendar days.
    plan_type : "full", "statement", "both" or None (unknown: both deadlines are given, each labelled).
    info_received : the day needed information was received; adds the second review's deadline.
    calendar : holidays (default: the profile's).

    Returns
    -------
    list of Deadline, in date order.
    """
    if plan_type is not None and plan_type not in PLAN_TYPES:
        raise InputError(f"plan type {plan_type!r}; use one of {', '.join(PLAN_TYPES)}")
    cal = calendar or holiday_calendar(profile)
    unit = profile.data.get("review", {}).get("kind", "working_days")
    kinds = ("full", "statement") if plan_type in (None, "both") else (plan_type,)
    label = {"full": "full plan", "statement": "plan statement"}
    out = []
    for k in kinds:
        suffix = "" if plan_type in ("full", "statement") else f" (if a {label[k]})" if plan_type is None else f" ({label[k]})"
        d = _due(profile, cal, "review", f"{k}_plan_days" if k == "full" else "statement_days", received,
                 f"Plan review decision{suffix}", "review", unit, "receipt")
        if d:
            out.append(d)
        if info_received is not None:
            d = _due(profile, cal, "review", f"after_information_{k}_days", info_received,
                     f"Second review decision, after the needed information{suffix}", "review", unit,
                     "receipt of the information")
            if d:
                out.append(d)
    return _dedupe(out)


def _dedupe(items: list[Deadline]) -> list[Deadline]:
    """Where both plan types give the same date and citation, one row."""
    seen: dict[tuple, Deadline] = {}
    for d in items:
        key = (d.date, d.citation, d.what.split(" (")[0])
        if key in seen:
            continue
        seen[key] = d
    return sorted(seen.values(), key=lambda d: d.date)


def permit_expiry(issued: dt.date, profile: Profile, building_permit_days: int | None = None,
                  extensions: Sequence[int] = ()) -> list[Deadline]:
    """The permit's last valid day: issue + max(duration, building permit length), then each extension.

    Parameters
    ----------
    issued : the day the permit was issued (day 0).
    profile : ``[permit] duration_days`` and ``extension_days`` (the most one extension may add).
    building_permit_days : length of the building permit or other construction authorization, if any.
    extensions : days granted by each extension, in order; each at most ``extension_days``.

    Returns
    -------
    list of Deadline: the expiry, then the expiry after each extension.
    """
    dur = _entry(profile, "permit", "duration_days")
    if dur is None:
        return []
    days = int(dur["value"])
    rule = f"{days} days after issue on {issued.isoformat()} (day 0)"
    if building_permit_days is not None and building_permit_days > days:
        days = int(building_permit_days)
        rule = f"the building permit's {days} days (longer than {dur['value']}) after issue on {issued.isoformat()} (day 0)"
    expires = issued + dt.timedelta(days=days)
    out = [Deadline(expires, "Erosion control permit expires (last valid day)", "permit", rule, _cite(profile, dur))]
    ext = _entry(profile, "permit", "extension_days")
    for i, n in enumerate(extensions, 1):
        if ext is None:
            raise InputError("permit extensions: not specified by this chapter")
        if not 0 < n <= ext["value"]:
            raise InputError(f"extension {i} of {n} days: each extension may add 1 to {ext['value']} days ({_cite(profile, ext)})")
        expires += dt.timedelta(days=int(n))
        out.append(Deadline(expires, f"Permit expires after extension {i}", "permit",
                            f"previous expiry + {n} days (at most {ext['value']} per extension)", _cite(profile, ext)))
    return out


def start_notice_due(start: dt.date, profile: Profile, calendar: HolidayCalendar | None = None) -> Deadline | None:
    """When the permittee must notify the village that land disturbance started on ``start``."""
    return _due(profile, calendar or holiday_calendar(profile), "permit", "notify_start", start,
                "Permittee notifies the village that work started", "notice", "working_days", "the start of work")


def bmp_completion_notice_due(installed: dt.date, profile: Profile,
                              calendar: HolidayCalendar | None = None) -> Deadline | None:
    """When the permittee must notify the village that BMPs installed on ``installed`` are complete."""
    return _due(profile, calendar or holiday_calendar(profile), "permit", "notify_bmp_completion", installed,
                "Permittee notifies the village that BMPs are installed", "notice", "working_days", "installation")


def enforcement_deadlines(profile: Profile, *, notice: dt.date | None = None, notice_of_intent: dt.date | None = None,
                          calendar: HolidayCalendar | None = None) -> list[Deadline]:
    """After a notice of violation / stop-work order: the time to comply; after a notice of intent: when
    the village may start the work itself. Empty when the chapter says nothing (Belgium)."""
    cal = calendar or holiday_calendar(profile)
    out = []
    if notice is not None:
        d = _due(profile, cal, "enforcement", "comply_hours", notice, "Permittee complies (else the permit may be revoked)",
                 "enforcement", "hours", "the notice")
        out += [d] if d else []
    if notice_of_intent is not None:
        d = _due(profile, cal, "enforcement", "village_work_after", notice_of_intent,
                 "Village may go on the land and start the work", "enforcement", "working_days",
                 "mailing or service of the notice of intent")
        out += [d] if d else []
    return out


# ------------------------------------------------------------------------------------------ inspections


@dataclass(frozen=True)
class Inspection:
    """An inspection due on ``date``, for each of ``reasons`` (weekly, after a rain)."""

    date: dt.date
    reasons: tuple[str, ...]
    citation: str

    def to_dict(self) -> dict[str, Any]:
        return {"date": self.date.isoformat(), "weekday": self.date.strftime("%a"), "reasons": list(self.reasons),
                "citation": self.citation}


def read_rainfall(path: str | Path) -> dict[dt.date, float]:
    """Daily rainfall from a CSV with columns ``date`` and ``rain_in`` (or ``rain_mm``, converted to inches).

    Every bad row is reported at once, by file and line number (the header is line 1). A trace ("T") is
    0.0 in. Returns rain in inches by date.
    """
    path = Path(path)
    if not path.is_file():
        raise MissingInputError(f"rainfall file {path}: not found")
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        cols = [c.strip() for c in (reader.fieldnames or [])]
        reader.fieldnames = cols
        rain_cols = [c for c in ("rain_in", "rain_mm") if c in cols]
        if "date" not in cols or len(rain_cols) != 1:
            raise InputError(f"rainfall file {path}: needs columns 'date' and one of 'rain_in' or 'rain_mm' "
                             f"(found {', '.join(map(repr, cols)) or 'no header'})")
        col = rain_cols[0]
        factor = 1.0 if col == "rain_in" else 1.0 / MM_PER_IN
        rain: dict[dt.date, float] = {}
        problems = []
        for line, row in enumerate(reader, start=2):
            raw_d, raw_r = (row.get("date") or "").strip(), (row.get(col) or "").strip()
            if not raw_d and not raw_r and not any((v or "").strip() for v in row.values() if isinstance(v, str)):
                continue  # blank line
            d = _as_date(raw_d)
            if d is None:
                problems.append(f"line {line}: date {raw_d!r} is not YYYY-MM-DD")
            if raw_r.lower() in TRACE_VALUES:
                value = 0.0
            else:
                try:
                    value = float(raw_r)
                except ValueError:
                    problems.append(f"line {line}: {col} {raw_r!r} is not a number (write 0 for a dry day, T for a trace)")
                    continue
                if not math.isfinite(value) or value < 0:
                    problems.append(f"line {line}: {col} {raw_r!r} must be a number 0 or more")
                    continue
            if d is not None:
                if d in rain:
                    problems.append(f"line {line}: date {d.isoformat()} appears twice")
                rain[d] = value * factor
    if problems:
        raise InputError(f"rainfall file {path}: {len(problems)} bad row(s):\n  - " + "\n  - ".join(problems))
    return rain


def inspection_schedule(start: dt.date, end: dt.date, profile: Profile,
                        rain_in: Mapping[dt.date, float] | None = None) -> list[Inspection]:
    """Inspections from ``start`` to ``end``: every ``inspect_every_days`` after the start, and the day after
    each day with ``inspect_rain_in`` or more of rain (within 24 hours after the rain, Wis. Admin. Code
    ch. NR 216; the chapter says "after each rain"). Same-day inspections are merged, reasons kept."""
    if end < start:
        raise InputError(f"inspection schedule: end {end} is before start {start}")
    every = _entry(profile, "permit", "inspect_every_days")
    rain_e = _entry(profile, "permit", "inspect_rain_in")
    hours_e = _entry(profile, "permit", "inspect_after_rain_hours")
    due: dict[dt.date, list[tuple[str, str]]] = {}
    if every is not None:
        step = dt.timedelta(days=int(every["value"]))
        d = start + step
        while d <= end:
            due.setdefault(d, []).append(("weekly inspection", _cite(profile, every)))
            d += step
    if rain_e is not None and rain_in:
        hours = hours_e["value"] if hours_e else 24
        lag = dt.timedelta(days=math.ceil(hours / 24))
        cite = _cite(profile, rain_e) + (f"; {_cite(profile, hours_e)}" if hours_e else "")
        for day, inches in sorted(rain_in.items()):
            if start <= day <= end and inches >= rain_e["value"] - 1e-9:
                due.setdefault(day + lag, []).append(
                    (f"{inches:.2f} in of rain on {day.isoformat()} (>= {rain_e['value']:g} in; within {hours:g} h)", cite))
    return [Inspection(d, tuple(r for r, _ in items), "; ".join(dict.fromkeys(c for _, c in items)))
            for d, items in sorted(due.items())]


# ------------------------------------------------------------------------------------------ stabilization


def stabilization_deadlines(site: Any, profile: Profile) -> tuple[list[Deadline], list[str]]:
    """Stabilization due dates from the site's ``disturbance`` and ``stockpiles`` layers.

    Disturbed ground inactive ``[controls] inactive_stabilize_days`` (7) or more: each disturbance
    polygon's ``end`` + 7 days, if work stops there. Piles kept more than
    ``[controls] stockpile_stabilize_after_days`` (30): the pile's ``start`` (else the earliest start of the
    disturbance polygons it touches, else the project start) + 30 days.

    Returns
    -------
    (deadlines, notes) : notes say what could not be dated, or that the chapter does not specify it.
    """
    out: list[Deadline] = []
    notes: list[str] = []
    inactive = _entry(profile, "controls", "inactive_stabilize_days")
    piles_e = _entry(profile, "controls", "stockpile_stabilize_after_days")
    dist = site.layer("disturbance")
    project_start = getattr(site.project, "start", None)
    if inactive is None:
        notes.append("stabilization of inactive disturbed ground: not specified by this chapter")
    elif dist is not None:
        n = int(inactive["value"])
        for _, row in dist.iterrows():
            end = _as_date(row.get("end")) if "end" in dist.columns else None
            label = _feature_label(row, "disturbance area")
            if end is None:
                notes.append(f"{label}: no end date, so its stabilization ({n} days after work stops) cannot be dated")
                continue
            out.append(Deadline(end + dt.timedelta(days=n), f"Stabilize {label} if left inactive", "stabilization",
                                f"{n} days after its planned end on {end.isoformat()} (inactive {n} days or more)",
                                _cite(profile, inactive)))
    if piles_e is None:
        notes.append("stabilization of soil stockpiles: not specified by this chapter")
        return out, notes
    piles = site.layer("stockpiles")
    if piles is None:
        return out, notes
    limit = int(piles_e["value"])
    for _, row in piles.iterrows():
        label = _feature_label(row, "stockpile")
        start, whence = _pile_start(row, piles, dist, project_start)
        days = row.get("days") if "days" in piles.columns else None
        days = None if days is None or (isinstance(days, float) and math.isnan(days)) else float(days)
        if days is not None and days <= limit:
            notes.append(f"{label}: planned {days:g} days, not more than {limit}: no stabilization required ({_cite(profile, piles_e)})")
            continue
        if start is None:
            notes.append(f"{label}: no start date (pile, disturbance or project), so its stabilization cannot be dated")
            continue
        stay = f"planned {days:g} days" if days is not None else "days in place unknown; due if it stays longer"
        out.append(Deadline(start + dt.timedelta(days=limit), f"Stabilize {label} (mulch, vegetative cover, tarps)",
                            "stabilization", f"{limit} days after it is placed ({whence} {start.isoformat()}); {stay}",
                            _cite(profile, piles_e)))
    return out, notes


def _feature_label(row: Any, kind: str) -> str:
    name = row.get("name") if hasattr(row, "get") else None
    fid = row.get("id") if hasattr(row, "get") else None
    text = f"{kind} {fid}" if fid is not None else kind
    return f"{text} ({name})" if isinstance(name, str) and name else text


def _pile_start(row: Any, piles: Any, dist: Any, project_start: dt.date | None) -> tuple[dt.date | None, str]:
    if "start" in piles.columns and _as_date(row.get("start")) is not None:
        return _as_date(row.get("start")), "pile start"
    if dist is not None and "start" in dist.columns:
        touching = dist[dist.geometry.intersects(row.geometry)]
        starts = [s for s in (_as_date(v) for v in touching["start"]) if s is not None]
        if starts:
            return min(starts), "start of the disturbance it lies in"
    if project_start is not None:
        return project_start, "project start"
    return None, ""


# ------------------------------------------------------------------------------------------ the schedule


@dataclass
class Schedule:
    """Everything dated for one site: deadlines (review, permit, notices, stabilization, enforcement),
    inspections, and notes (rules without a date yet, things not specified, inputs missing)."""

    site: str
    jurisdiction: str
    jurisdiction_name: str
    plan_type: str | None
    counting: list[str]
    deadlines: list[Deadline] = field(default_factory=list)
    inspections: list[Inspection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        """Deadlines and inspections merged in date order (inspections on one row per day)."""
        rows = [d.to_dict() for d in self.deadlines]
        rows += [{"date": i.date.isoformat(), "weekday": i.date.strftime("%a"), "what": "Inspect the BMPs and repair",
                  "kind": "inspection", "rule": "; ".join(i.reasons), "citation": i.citation, "note": ""}
                 for i in self.inspections]
        order = {"review": 0, "notice": 1, "permit": 2, "enforcement": 3, "stabilization": 4, "inspection": 5}
        return sorted(rows, key=lambda r: (r["date"], order.get(r["kind"], 9)))

    def to_dict(self) -> dict[str, Any]:
        return {"site": self.site, "jurisdiction": self.jurisdiction, "jurisdiction_name": self.jurisdiction_name,
                "plan_type": self.plan_type, "counting": list(self.counting),
                "deadlines": [d.to_dict() for d in self.deadlines],
                "inspections": [i.to_dict() for i in self.inspections], "notes": list(self.notes)}

    def to_text(self, *, width: int = 56) -> str:
        """A plain table for the terminal: date, day, what, citation; rule and note on the next line."""
        lines = [f"{self.site}: schedule under the {self.jurisdiction_name} erosion control chapter",
                 f"plan type: {self.plan_type or 'not known'}", ""]
        lines.append(f"{'date':<10}  {'day':<3}  {'what':<{width}}  citation")
        lines.append(f"{'-' * 10}  {'-' * 3}  {'-' * width}  {'-' * 20}")
        for r in self.rows():
            lines.append(f"{r['date']:<10}  {r['weekday']:<3}  {_clip(r['what'], width):<{width}}  {r['citation']}")
            lines.append(f"{'':<17}{r['rule']}")
            if r["note"]:
                lines.append(f"{'':<17}NOTE: {r['note']}")
        lines += ["", "How days are counted:"] + [f"  - {c}" for c in self.counting]
        if self.notes:
            lines += ["", "Notes:"] + [f"  - {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        """The same calendar as a Markdown document."""
        out = [f"# Schedule: {self.site}", "", f"Jurisdiction: {self.jurisdiction_name}. Plan type: {self.plan_type or 'not known'}.", "",
               "| Date | Day | What | How counted | Citation | Note |", "| --- | --- | --- | --- | --- | --- |"]
        for r in self.rows():
            cells = [r["date"], r["weekday"], r["what"], r["rule"], r["citation"], r["note"]]
            out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
        out += ["", "## How days are counted", ""] + [f"- {c}" for c in self.counting]
        if self.notes:
            out += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def counting_rules(profile: Profile, calendar: HolidayCalendar | None = None) -> list[str]:
    """The day-counting rules in force for this profile, in words (for reports)."""
    cal = calendar or holiday_calendar(profile)
    kind = profile.data.get("review", {}).get("kind", "working_days")
    policy = _non_working_policy(profile)
    rules = ["The day of the event (receipt, issue, start, installation, notice) is day 0; a deadline of N days is "
             "the Nth day after it."]
    where = f" ({cal.citation})" if cal.citation else ""
    base = f"{cal.country}{'-' + cal.subdiv if cal.subdiv else ''} holidays from the holidays library" + (
        ", observed days included" if cal.observed else "")
    changes = []
    if cal.add:
        changes.append("plus " + ", ".join(str(dict(a).get("name", "village day")) for a in cal.add))
    if cal.remove:
        changes.append("minus " + ", ".join(cal.remove))
    rules.append(f"Working days{where}: every day except Saturdays, Sundays and holidays: {base}"
                 + (f" ({'; '.join(changes)})" if changes else "") + (f". {cal.source}" if cal.source else "."))
    if kind == "calendar_days":
        rules.append("Review periods are calendar days (the chapter says 'days').")
    rules.append("Calendar-day and hour deadlines that end on a Saturday, Sunday or holiday are "
                 + ("moved to the next working day." if policy == "extend" else
                    "not moved (the chapter is silent); the note gives the next working day."))
    rules.append("Hours are counted straight through: 48 hours after work starts is the same time two days later.")
    return rules


def plan_type_of(site: Any, profile: Profile) -> str | None:
    """'full', 'statement', 'both' or None, from the disturbed area and the profile's ``[plan_type]``
    (the rules engine's own decision, thresholds compared the same way)."""
    from geosite.rules.engine import plan_type
    from geosite.site.measurements import area_sqft, disturbed_geometry
    from geosite.units import SQFT_PER_ACRE

    geom = disturbed_geometry(site) if site.layer("disturbance") is not None else None
    if geom is None:
        return None
    acres = area_sqft(geom, site.ft_per_unit) / SQFT_PER_ACRE
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
) -> Schedule:
    """The site's calendar under its village's chapter.

    Parameters
    ----------
    site : a :class:`geosite.site.Site` (project start/end, building_permit_days, disturbance, stockpiles).
    profile : the jurisdiction profile (default: the site's).
    received : day the application, plan and fee were received: the review deadline.
    issued : day the permit was issued: its expiry (and ``extensions``, days each).
    info_received : day needed information was received: the second review's deadline.
    rain : a rainfall CSV path (see :func:`read_rainfall`) or rain in inches by date: rain inspections.
    plan_type : "full", "statement" or "both"; default from the disturbed area.
    bmp_installed : days BMPs were installed: each completion notice's deadline.
    notice, notice_of_intent : enforcement notices: the time to comply, when the village may act.

    Returns
    -------
    Schedule
    """
    from geosite.rules.profile import load_profile

    profile = profile or load_profile(site.jurisdiction)
    cal = holiday_calendar(profile)
    if plan_type is None:
        plan_type = plan_type_of(site, profile)
    elif plan_type not in PLAN_TYPES:
        raise InputError(f"plan type {plan_type!r}; use one of {', '.join(PLAN_TYPES)}")
    sched = Schedule(site=site.name, jurisdiction=profile.id, jurisdiction_name=profile.name, plan_type=plan_type,
                     counting=counting_rules(profile, cal))
    notes = sched.notes
    p = site.project
    if received is not None:
        sched.deadlines += review_deadlines(received, profile, plan_type, info_received=info_received, calendar=cal)
    else:
        notes.append("review deadline: give the date the application, plan and fee were received (--received)")
        if info_received is not None:
            sched.deadlines += [d for d in review_deadlines(info_received, profile, plan_type, info_received=info_received,
                                                            calendar=cal) if d.what.startswith("Second")]
    if issued is not None:
        sched.deadlines += permit_expiry(issued, profile, p.building_permit_days, extensions)
        if _entry(profile, "permit", "duration_days") is None:
            notes.append("permit duration: not specified by this chapter")
    else:
        ext = _entry(profile, "permit", "extension_days")
        notes.append("permit expiry: give the date the permit was issued (--issued)"
                     + (f"; extensions of up to {ext['value']} days each ({_cite(profile, ext)})" if ext else ""))
    if p.start is not None:
        d = start_notice_due(p.start, profile, cal)
        if d:
            sched.deadlines.append(d)
    else:
        notes.append("start-of-work notice: the project has no start date")
    bmp = _entry(profile, "permit", "notify_bmp_completion")
    if bmp is not None:
        unit = bmp.get("unit", "working_days").replace("_", " ")
        unit = unit.removesuffix("s") if bmp["value"] == 1 else unit
        notes.append(f"BMP completion notice: within {bmp['value']:g} {unit} after each BMP is installed "
                     f"({_cite(profile, bmp)}); dated below for the installation days given")
    for day in bmp_installed:
        d = bmp_completion_notice_due(day, profile, cal)
        if d:
            sched.deadlines.append(d)
    if p.start is not None and p.end is not None:
        rain_in = read_rainfall(rain) if isinstance(rain, (str, Path)) else rain
        sched.inspections = inspection_schedule(p.start, p.end, profile, rain_in)
        if rain_in is None:
            notes.append("rain inspections: no rainfall record given (--rain CSV); only weekly inspections are listed")
    else:
        notes.append("inspections: the project needs start and end dates")
    stab, stab_notes = stabilization_deadlines(site, profile)
    sched.deadlines += stab
    notes += stab_notes
    if not profile.data.get("enforcement"):
        notes.append("enforcement periods: not specified by this chapter")
    elif notice is None and notice_of_intent is None:
        comply = _entry(profile, "enforcement", "comply_hours")
        work = _entry(profile, "enforcement", "village_work_after")
        if comply:
            notes.append(f"after a notice of violation or stop-work order: comply within {comply['value']:g} hours ({_cite(profile, comply)})")
        if work:
            notes.append(f"after a notice of intent: the village may start the work {work['value']:g} working days after it is mailed or served ({_cite(profile, work)})")
    sched.deadlines += enforcement_deadlines(profile, notice=notice, notice_of_intent=notice_of_intent, calendar=cal)
    sched.deadlines.sort(key=lambda d: d.date)
    return sched
