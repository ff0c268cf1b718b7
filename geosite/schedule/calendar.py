"""Which days count: the village's holidays, working days, and counting N days (working, calendar or
hours) from an event.

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

import datetime as dt
import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from geosite.errors import ProfileError

if TYPE_CHECKING:
    from geosite.rules import Profile

NON_WORKING_LAST_DAY = ("report", "extend")


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

    Attributes
    ----------
    country : str
        The country, passed to ``holidays.country_holidays``.
    subdiv : str, optional
        The state or other subdivision, passed to ``holidays.country_holidays``.
    observed : bool
        Whether observed (shifted) days are included.
    add : tuple
        The village's days on top of the base list, as above (each entry's table as sorted key, value
        pairs).
    remove : tuple of str
        Base holidays (names or dates) the village does not recognize.
    citation : str
        Where the village defines a working day.
    source : str
        Why this list.
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
        conf = profile.review.holidays
        if conf is None:
            return cls(source="geosite default: US federal legal public holidays, as observed")
        if not isinstance(conf, dict):
            raise ProfileError(f"profile {profile.path}: [review] holidays must be a table")
        known = {"country", "subdiv", "observed", "add", "remove", "citation", "section", "source"}
        unknown = sorted(set(conf) - known)
        if unknown:
            raise ProfileError(
                f"profile {profile.path}: [review.holidays] unknown keys {unknown}; known: {sorted(known)}"
            )
        cal = cls(
            country=str(conf.get("country", "US")),
            subdiv=conf.get("subdiv"),
            observed=bool(conf.get("observed", True)),
            add=tuple(
                tuple(sorted(a.items())) if isinstance(a, dict) else (("bad", a),)
                for a in conf.get("add", [])
            ),
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
            problems += _added_day_problems(dict(entry), base_names)
        for r in self.remove:
            if as_date(r) is None and r not in base_names:
                problems.append(
                    f"remove: {r!r} is neither a date (YYYY-MM-DD) nor a holiday of the base list; known: "
                    f"{', '.join(sorted(base_names))}"
                )
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


def _added_day_problems(d: dict[str, Any], base_names: frozenset[str]) -> list[str]:
    """Problems with one ``add`` entry: a bad month_day or date, an ``after`` not in the base list."""
    if "month_day" in d:
        try:
            dt.date(2000, *map(int, str(d["month_day"]).split("-")))  # 2000: leap year, Feb 29 allowed
        except (TypeError, ValueError):
            return [f"add: month_day {d['month_day']!r} is not MM-DD"]
        return []
    if "after" in d:
        problems = []
        if d["after"] not in base_names:
            problems.append(
                f"add: after {d['after']!r} is not a holiday of the base list; known: "
                f"{', '.join(sorted(base_names))}"
            )
        if not isinstance(d.get("days", 1), int):
            problems.append(f"add: days {d.get('days')!r} after {d['after']!r} must be a whole number")
        return problems
    if "date" in d:
        return [f"add: date {d['date']!r} is not YYYY-MM-DD"] if as_date(d["date"]) is None else []
    return [f"add: {d!r} needs month_day, after or date (and a name)"]


@functools.lru_cache(maxsize=8)
def _base(country: str, subdiv: str | None, observed: bool) -> Any:
    """The ``holidays`` library's calendar of the country and subdivision (a ProfileError if it has none)."""
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
    """A holiday's name without the library's " (observed)"."""
    return name.removesuffix(" (observed)").strip()


@functools.lru_cache(maxsize=256)
def _holidays_of_year(cal: HolidayCalendar, year: int) -> dict[dt.date, str]:
    """The calendar's holidays in ``year``: the base list's (less those removed) and the village's added
    days, their names joined with '; '.
    """
    removed_names = {r for r in cal.remove if as_date(r) is None}
    removed_dates = {as_date(r) for r in cal.remove} - {None}
    out = _base_days(cal, year, removed_names)
    unshifted = _base(cal.country, cal.subdiv, False)
    unshifted.get(dt.date(year, 6, 1))
    for entry in cal.add:
        a = dict(entry)
        name = str(a.get("name", "village holiday"))
        for d in _added_days(a, year, unshifted):
            out.setdefault(d, [])
            if name not in out[d]:
                out[d].append(name)
    return {d: "; ".join(n) for d, n in out.items() if n and d not in removed_dates}


def _base_days(cal: HolidayCalendar, year: int, removed_names: set[str]) -> dict[dt.date, list[str]]:
    """The base list's holidays in ``year`` (observed days included when the calendar says so), less the
    names removed.
    """
    base = _base(cal.country, cal.subdiv, cal.observed)
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
    return out


def _added_days(a: dict[str, Any], year: int, unshifted: Any) -> list[dt.date]:
    """The days in ``year`` of one ``add`` entry: a month_day (Feb 29 only in leap years), N days after a
    base holiday's own (unshifted) date, or one date.
    """
    if "month_day" in a:
        m, dd = map(int, str(a["month_day"]).split("-"))
        if m == 2 and dd == 29 and not _leap(year):
            return []
        return [dt.date(year, m, dd)]
    if "after" in a:
        return [
            d + dt.timedelta(days=int(a.get("days", 1)))
            for d, n in unshifted.items()
            if d.year == year and a["after"] in n.split("; ")
        ]
    d = as_date(a["date"])
    return [d] if d is not None and d.year == year else []


def _leap(year: int) -> bool:
    """Whether ``year`` is a leap year."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def as_date(value: Any) -> dt.date | None:
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


class CountedDay(NamedTuple):
    """A counted deadline: the day, how it was counted, and a note (empty when nothing to say)."""

    date: dt.date
    rule: str
    note: str


def add_days(
    start: dt.date,
    n: float,
    unit: str,
    calendar: HolidayCalendar,
    *,
    policy: str = "report",
    act: bool = True,
) -> CountedDay:
    """Count ``n`` ``unit`` from ``start`` (day 0).

    Parameters
    ----------
    start : datetime.date
        Day 0: the day of receipt, issue, start of work or notice.
    n : float
        How many days (or hours), in ``unit``.
    unit : {"working_days", "calendar_days", "days", "hours"}
        What ``n`` counts.
    calendar : HolidayCalendar
        The village's holidays.
    policy : {"report", "extend"}
        For calendar days and hours ending on a non-working day: "report" keeps the date and says so;
        "extend" moves it to the next working day.
    act : bool
        Whether someone must act by the date (a validity period such as a permit's is never moved).

    Returns
    -------
    CountedDay
        The deadline, how it was counted, and a note (empty when nothing to say).
    """
    if unit == "working_days":
        due = calendar.add_working_days(start, int(n))
        return CountedDay(
            due, f"{n:g} working day{'s' if n != 1 else ''} after {start.isoformat()} (day 0)", ""
        )
    if unit in ("calendar_days", "days"):
        due, rule = start + dt.timedelta(days=int(n)), f"{n:g} days after {start.isoformat()} (day 0)"
    elif unit == "hours":
        due = start + dt.timedelta(days=math.ceil(n / 24))
        rule = f"{n:g} hours from {start.isoformat()}: by the same time of day on {due.isoformat()}"
    else:
        raise ProfileError(f"unit {unit!r} is not one of working_days, calendar_days, days, hours")
    why = calendar.why_not_working(due) if act else None
    if why is None:
        return CountedDay(due, rule, "")
    nxt = calendar.on_or_after(due)
    if policy == "extend":
        return CountedDay(nxt, rule + f"; {due.isoformat()} is a {why}, moved to the next working day", "")
    return CountedDay(
        due,
        rule,
        (
            f"falls on a non-working day ({why}); the chapter counts calendar days and does not "
            f"move it (next working day {nxt.strftime('%a')} {nxt.isoformat()})"
        ),
    )


def non_working_policy(profile: Profile) -> str:
    """The profile's ``[review] non_working_last_day``: "report" (the default) or "extend"."""
    policy = profile.value("review", "non_working_last_day", "report")
    if policy not in NON_WORKING_LAST_DAY:
        raise ProfileError(
            f"profile {profile.path}: [review] non_working_last_day = {policy!r}; use one of "
            f"{', '.join(NON_WORKING_LAST_DAY)}"
        )
    return policy
