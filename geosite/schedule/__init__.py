"""The review calendar: working days, review and permit deadlines, notices, inspections, stabilization.

Pure functions over ``datetime.date``; every number comes from the jurisdiction profile (``[review]``,
``[permit]``, ``[controls]``, ``[enforcement]``) and every deadline carries the citation it comes from.

- :mod:`~geosite.schedule.calendar`: holidays (:class:`HolidayCalendar`), working days, :func:`add_days`;
- :mod:`~geosite.schedule.deadlines`: :class:`Deadline` and each kind of deadline, and the conditions of
  issuing the permit (surety, building permit hold);
- :mod:`~geosite.schedule.inspections`: weekly and after-rain inspections, the rainfall CSV;
- :mod:`~geosite.schedule.table`: :func:`build_schedule` -> :class:`Schedule` (text, Markdown, JSON).

Day counting (the same for every village): day 0 is the event, a deadline the Nth day after it, in
working days, calendar days or hours, as :mod:`geosite.schedule.calendar` sets out.
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
