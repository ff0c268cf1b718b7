"""The 12-month windows of a construction schedule, as WDNR runs them (Dane County's manual: a project from
Apr 1, 2020 to Oct 31, 2021 is run as Apr 1, 2020 - Mar 31, 2021 and Nov 1, 2020 - Oct 31, 2021): the first
from the first disturbance, then one a month later each, and the last ending on the day of final
stabilization. A schedule of 12 months or less is one window from its first day.

Hand-written: calendar arithmetic on dates (a month later from Jan 31 is Feb 28 or 29).
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass


def add_months(day: dt.date, months: int) -> dt.date:
    """``day`` moved by whole calendar months (the day of the month clamped to the month's length)."""
    k = day.year * 12 + (day.month - 1) + months
    year, month = divmod(k, 12)
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


@dataclass(frozen=True)
class Window:
    """Twelve months ``[start, stop)``; :attr:`end` is its last day."""

    start: dt.date
    stop: dt.date

    @property
    def end(self) -> dt.date:
        """The window's last day (inclusive)."""
        return self.stop - dt.timedelta(days=1)

    def label(self) -> str:
        """ "2020-04-01 to 2021-03-31"."""
        return f"{self.start.isoformat()} to {self.end.isoformat()}"


def schedule_windows(first_day: dt.date, last_day: dt.date) -> tuple[Window, ...]:
    """Every 12-month window from ``first_day`` (the first disturbance) to ``last_day`` (final
    stabilization, inclusive): monthly steps from the first, and the last ending on ``last_day``.
    """
    if last_day < first_day:
        raise ValueError(f"schedule ends ({last_day}) before it starts ({first_day})")
    stop_all = last_day + dt.timedelta(days=1)
    out = [Window(first_day, add_months(first_day, 12))]
    k = 1
    while add_months(first_day, k + 12) <= stop_all:
        out.append(Window(add_months(first_day, k), add_months(first_day, k + 12)))
        k += 1
    if out[-1].stop < stop_all:
        out.append(Window(add_months(stop_all, -12), stop_all))
    return tuple(out)
