"""Inspections: weekly, and after each rain of the chapter's depth (from a daily rainfall CSV)."""

from __future__ import annotations

import csv
import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite.errors import InputError, MissingInputError
from geosite.schedule.calendar import as_date
from geosite.schedule.deadlines import cite, dated_entry

if TYPE_CHECKING:
    from geosite.rules import Profile

MM_PER_IN = 25.4
TRACE_VALUES = ("t", "trace")  # NOAA daily records mark a trace of rain "T": counted as 0.0 in


@dataclass(frozen=True)
class Inspection:
    """An inspection due on ``date``, for each of ``reasons`` (weekly, after a rain)."""

    date: dt.date
    reasons: tuple[str, ...]
    citation: str

    def to_dict(self) -> dict[str, Any]:
        """The inspection as JSON-ready data (the date in ISO form, with its weekday)."""
        return {
            "date": self.date.isoformat(),
            "weekday": self.date.strftime("%a"),
            "reasons": list(self.reasons),
            "citation": self.citation,
        }


def read_rainfall(path: str | Path) -> dict[dt.date, float]:
    """Daily rainfall from a CSV with columns ``date`` and ``rain_in`` (or ``rain_mm``, converted to inches).

    Every bad row is reported at once, by file and line number (the header is line 1). A trace ("T") is
    0.0 in. Returns rain in inches by date.
    """
    path = Path(path)
    if not path.is_file():
        raise MissingInputError(f"rainfall file {path}: not found")
    try:
        return _read_rainfall(path)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"rainfall file {path}: not UTF-8 text (byte {exc.start}: "
            f"{exc.object[exc.start : exc.start + 1]!r}); "
            "save it as UTF-8 (or plain ASCII) CSV"
        ) from exc
    except csv.Error as exc:
        raise InputError(f"rainfall file {path}: not a CSV file geosite can read ({exc})") from exc


def _read_rainfall(path: Path) -> dict[dt.date, float]:
    """The rain in inches by date of a CSV file; every bad row is a problem, all raised together."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        col = _rain_column(path, reader)
        factor = 1.0 if col == "rain_in" else 1.0 / MM_PER_IN
        rain: dict[dt.date, float] = {}
        problems: list[str] = []
        for line, row in enumerate(reader, start=2):
            raw_d, raw_r = (row.get("date") or "").strip(), (row.get(col) or "").strip()
            if (
                not raw_d
                and not raw_r
                and not any((v or "").strip() for v in row.values() if isinstance(v, str))
            ):
                continue  # blank line
            d = as_date(raw_d)
            if d is None:
                problems.append(f"line {line}: date {raw_d!r} is not YYYY-MM-DD")
            value = _rain_value(raw_r, col, line, problems)
            if value is not None and d is not None:
                if d in rain:
                    problems.append(f"line {line}: date {d.isoformat()} appears twice")
                rain[d] = value * factor
    if problems:
        raise InputError(f"rainfall file {path}: {len(problems)} bad row(s):\n  - " + "\n  - ".join(problems))
    return rain


def _rain_column(path: Path, reader: csv.DictReader) -> str:
    """The rain column of the CSV, ``rain_in`` or ``rain_mm`` (the header's names stripped of spaces)."""
    cols = [c.strip() for c in (reader.fieldnames or [])]
    reader.fieldnames = cols
    rain_cols = [c for c in ("rain_in", "rain_mm") if c in cols]
    if "date" not in cols or len(rain_cols) != 1:
        raise InputError(
            f"rainfall file {path}: needs columns 'date' and one of 'rain_in' or 'rain_mm' "
            f"(found {', '.join(map(repr, cols)) or 'no header'})"
        )
    return rain_cols[0]


def _rain_value(raw: str, col: str, line: int, problems: list[str]) -> float | None:
    """One day's rain, in the column's unit (a trace is 0.0); None, with a problem, when it is not a number
    0 or more.
    """
    if raw.lower() in TRACE_VALUES:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        problems.append(f"line {line}: {col} {raw!r} is not a number (write 0 for a dry day, T for a trace)")
        return None
    if not math.isfinite(value) or value < 0:
        problems.append(f"line {line}: {col} {raw!r} must be a number 0 or more")
        return None
    return value


def inspection_schedule(
    start: dt.date, end: dt.date, profile: Profile, rain_in: Mapping[dt.date, float] | None = None
) -> list[Inspection]:
    """Inspections from ``start`` to ``end``: every ``inspect_every_days`` after the start, and the day after
    each day with ``inspect_rain_in`` or more of rain (within 24 hours after the rain, Wis. Admin. Code
    ch. NR 216; the chapter says "after each rain"). Same-day inspections are merged, reasons kept.
    """
    if end < start:
        raise InputError(f"inspection schedule: end {end} is before start {start}")
    every = dated_entry(profile, "permit", "inspect_every_days")
    rain_e = dated_entry(profile, "permit", "inspect_rain_in")
    hours_e = dated_entry(profile, "permit", "inspect_after_rain_hours")
    due: dict[dt.date, list[tuple[str, str]]] = {}
    if every is not None:
        step = dt.timedelta(days=int(every["value"]))
        d = start + step
        while d <= end:
            due.setdefault(d, []).append(("weekly inspection", cite(profile, every)))
            d += step
    if rain_e is not None and rain_in:
        hours = hours_e["value"] if hours_e else 24
        lag = dt.timedelta(days=math.ceil(hours / 24))
        rain_cite = cite(profile, rain_e) + (f"; {cite(profile, hours_e)}" if hours_e else "")
        for day, inches in sorted(rain_in.items()):
            if start <= day <= end and inches >= rain_e["value"] - 1e-9:
                due.setdefault(day + lag, []).append(
                    (
                        f"{inches:.2f} in of rain on {day.isoformat()} (>= {rain_e['value']:g} in; within "
                        f"{hours:g} h)",
                        rain_cite,
                    )
                )
    return [
        Inspection(d, tuple(r for r, _ in items), "; ".join(dict.fromkeys(c for _, c in items)))
        for d, items in sorted(due.items())
    ]
