"""The review calendar: working days, review and permit deadlines, notices, inspections, stabilization.

Pure functions over ``datetime.date``; every number comes from the jurisdiction profile (``[review]``,
``[permit]``, ``[controls]``, ``[enforcement]``) and every deadline carries the citation it comes from.

- :mod:`~geosite.schedule.calendar`: holidays (:class:`HolidayCalendar`), working days, :func:`add_days`;
- :mod:`~geosite.schedule.deadlines`: :class:`Deadline` and each kind of deadline, and the conditions of
  issuing the permit (surety, building permit hold);
- :mod:`~geosite.schedule.inspections`: weekly and after-rain inspections, the rainfall CSV;
- :mod:`~geosite.schedule.table`: :func:`build_schedule` -> :class:`Schedule` (text, Markdown, JSON).

Day counting (the same for every village; see :func:`add_days`):

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
"""

from geosite.schedule.calendar import HolidayCalendar, add_days, holiday_calendar
from geosite.schedule.deadlines import (
    Deadline,
    bmp_completion_notice_due,
    enforcement_deadlines,
    permit_conditions,
    permit_expiry,
    review_deadlines,
    stabilization_deadlines,
    start_notice_due,
)
from geosite.schedule.inspections import Inspection, inspection_schedule, read_rainfall
from geosite.schedule.table import Schedule, build_schedule, counting_rules, plan_type_of

__all__ = [
    "Deadline",
    "HolidayCalendar",
    "Inspection",
    "Schedule",
    "add_days",
    "bmp_completion_notice_due",
    "build_schedule",
    "counting_rules",
    "enforcement_deadlines",
    "holiday_calendar",
    "inspection_schedule",
    "permit_conditions",
    "permit_expiry",
    "plan_type_of",
    "read_rainfall",
    "review_deadlines",
    "stabilization_deadlines",
    "start_notice_due",
]
