"""R and its distribution through the year: the share of a year's rainfall erosivity falling between two
days, from a published cumulative EI table (USDA Agriculture Handbook 703 ch. 2 gives them by zone).

Days are placed on a 365-day year (RUSLE's tables are): a leap day carries no erosivity (Feb 29 sits at
Mar 1's place). Between the table's points the cumulative share is linear. Periods are half-open
``[start, stop)``: a window from Apr 1 through Mar 31 is ``[Apr 1, Apr 1 next year)``, exactly one year.
Hand-written: a table lookup and a subtraction; no library does construction-schedule erosivity.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geosite.errors import InputError

#: the days of the year the tables are on
YEAR_DAYS = 365
_REF_YEAR = 2001  # a year without Feb 29: month-day -> its place on the 365-day year


def year_position(day: dt.date) -> int:
    """Days from Jan 1 to ``day`` on a 365-day year (0-364; Feb 29 at Mar 1's place, 59)."""
    if day.month == 2 and day.day == 29:
        return 59
    return (dt.date(_REF_YEAR, day.month, day.day) - dt.date(_REF_YEAR, 1, 1)).days


def _position_of(month_day: str | tuple[int, int]) -> int:
    """A table point's place: "MM-DD" or (month, day); "12-31" style ends map inside the year."""
    if isinstance(month_day, str):
        try:
            month, day = (int(p) for p in month_day.split("-"))
        except ValueError as exc:
            raise InputError(f"EI table point {month_day!r}: use MM-DD") from exc
    else:
        month, day = month_day
    try:
        return year_position(dt.date(_REF_YEAR if (month, day) != (2, 29) else 2004, month, day))
    except ValueError as exc:
        raise InputError(f"EI table point {month_day!r}: not a day of the year") from exc


@dataclass(frozen=True)
class ErosivityDistribution:
    """The cumulative share of a year's erosivity (EI) from Jan 1 to the start of each point's day.

    ``positions`` are days on the 365-day year (0 = Jan 1, 365 = the next Jan 1), ``cumulative`` the
    share (0-1) by then; the ends (0, 0) and (365, 1) are always present. ``source`` says which table.
    """

    positions: tuple[int, ...]
    cumulative: tuple[float, ...]
    source: str

    @classmethod
    def from_table(
        cls, points: Sequence[tuple[str | tuple[int, int], float]], source: str
    ) -> ErosivityDistribution:
        """From (``"MM-DD"`` or (month, day), cumulative percent) points, e.g. a row of Handbook 703's
        EI table: percent of the annual EI from Jan 1 to the start of that day (0-100, not decreasing).
        """
        if not source or not str(source).strip():
            raise InputError("an EI distribution needs its source (the table it was read from)")
        pos = [0] + [_position_of(md) for md, _ in points] + [YEAR_DAYS]
        cum = [0.0] + [float(p) / 100.0 for _, p in points] + [1.0]
        if any(not 0.0 <= c <= 1.0 for c in cum) or any(b < a for a, b in zip(cum, cum[1:], strict=False)):
            raise InputError("EI table: cumulative percents must run from 0 to 100 without decreasing")
        if any(b < a for a, b in zip(pos, pos[1:], strict=False)):
            raise InputError("EI table: points must be in calendar order")
        return cls(tuple(pos), tuple(cum), str(source))

    def before(self, day: dt.date) -> float:
        """The share of the year's erosivity from Jan 1 to the start of ``day``."""
        return float(np.interp(year_position(day), self.positions, self.cumulative))

    def share(self, start: dt.date, stop: dt.date) -> float:
        """The erosivity of ``[start, stop)`` in years' worth (1.0 = one year's R)."""
        if stop <= start:
            return 0.0
        return (stop.year - start.year) + self.before(stop) - self.before(start)


@dataclass(frozen=True)
class Rainfall:
    """R (US customary: hundreds of ft tonf in per acre hour year) and its distribution, each with its
    source; ``r`` None or ``distribution`` None when not found (``r_source`` / ``ei_source`` then say
    what would settle it).
    """

    r: float | None
    r_source: str
    distribution: ErosivityDistribution | None
    ei_source: str
    county: str | None = None

    def erosivity(self, start: dt.date, stop: dt.date) -> float | None:
        """R over ``[start, stop)`` (None without R or the distribution)."""
        if self.r is None or self.distribution is None:
            return None
        return self.r * self.distribution.share(start, stop)
