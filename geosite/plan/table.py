"""The plan's controls as a schedule: one row per kind of control and its dates, with the tags of the
controls it holds (``C5-C16``), their quantity in the practice's pay unit, and when they go in and come out.
The construction sheet's (d) schedule, report.md and report.html print these rows; ``check`` and the tests
read a sheet's tags back with :func:`parse_tags`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from geosite.plan.model import Control, Plan

#: a tag, or a run of tags, as a schedule prints them: ``C7``, ``C5-C16``
TAG_RUN = re.compile(r"\bC(\d{1,6})(?:\s*[-\u2013]\s*C(\d{1,6}))?\b")


@dataclass(frozen=True)
class ScheduleRow:
    """One kind of control in the schedule: the controls' numbers, what they are (their name, else short
    words), their
    standard, their quantity summed (None when a control's is not known) in ``unit``, their install and
    remove dates and the phase they serve.
    """

    ids: tuple[int, ...]
    what: str
    standard: str
    amount: float | None
    unit: str | None
    install: dt.date | None
    remove: dt.date | None
    phase: str | None

    @property
    def tags(self) -> str:
        """The controls' tags, runs of consecutive numbers joined (``C1, C5-C9``)."""
        return tag_runs(self.ids)


def short_words(what: str) -> str:
    """What a control is, in a few words: its words up to the first comma or bracket (``stone tracking
    pad, 50 ft along the drive ...`` -> ``stone tracking pad``).
    """
    cut = re.split(r",|\s\(", what, maxsplit=1)[0].strip()
    return cut or what.strip()


def tag_runs(ids: tuple[int, ...] | list[int]) -> str:
    """Numbers as tags with runs joined: (1, 5, 6, 7) -> ``C1, C5-C7``."""
    out: list[str] = []
    run: list[int] = []
    for i in sorted(set(ids)):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(_run(run))
        run = [i]
    if run:
        out.append(_run(run))
    return ", ".join(out)


def _run(run: list[int]) -> str:
    return f"C{run[0]}" if len(run) == 1 else f"C{run[0]}-C{run[-1]}"


def parse_tags(text: str) -> set[int]:
    """The control numbers a text names by tag (``C7``, ``C5-C16``), runs expanded (a run over 100,000
    numbers is read as its two ends).
    """
    out: set[int] = set()
    for m in TAG_RUN.finditer(text):
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        out.update(range(a, b + 1) if 0 <= b - a <= 100_000 else (a, b))
    return out


def schedule(plan: Plan) -> list[ScheduleRow]:
    """The plan's controls grouped by what they are, their standard, unit and dates, in the order of their
    first number.

    Parameters
    ----------
    plan : Plan
        The plan.

    Returns
    -------
    list of ScheduleRow
        One row per group; every control of the plan in exactly one.
    """
    groups: dict[tuple[object, ...], list[Control]] = {}
    for c in plan.controls:
        q = plan.quantity(c)
        key = (c.name or short_words(c.what), c.standard, q[1] if q else None, c.install, c.remove, c.phase)
        groups.setdefault(key, []).append(c)
    rows = []
    for (what, standard, unit, install, remove, phase), cs in groups.items():
        amounts = [plan.quantity(c) for c in cs]
        amount = None if any(a is None for a in amounts) else sum(a[0] for a in amounts if a is not None)
        rows.append(
            ScheduleRow(
                tuple(c.id for c in cs),
                str(what),
                str(standard),
                amount,
                unit if isinstance(unit, str) else None,
                install if isinstance(install, dt.date) else None,
                remove if isinstance(remove, dt.date) else None,
                phase if isinstance(phase, str) else None,
            )
        )
    return sorted(rows, key=lambda r: min(r.ids))
