"""A profile's requirements as rows of text: what ``geosite profile show`` prints and ``docs/rules.md``'s
tables are generated from (scripts/make_rules_doc.py), so the docs cannot drift from the profiles.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from geosite.rules.model import Condition
from geosite.rules.profile import Profile

HEADER = ("requirement", "citation", "applies where", "satisfied by", "reading")


def _condition(c: Condition) -> str:
    unit = f" {c.unit}" if c.unit else ""
    if c.kind != "measured":
        return f"{c.kind}: {c.text}"
    to = f" to {', '.join(c.to)}" if c.to else ""
    along = f" along the {c.along.replace('_', ' ')}" if c.along and c.along != "straight" else ""
    return f"{c.measure}{to}{along} {c.op} {c.threshold!r}{unit}".replace("True", "true").replace(
        "False", "false"
    )


def _where(profile: Profile, q: Any) -> str:
    parts = []
    if q.gate:
        g = profile.gates[q.gate]
        parts.append(f"gate {q.gate} ({g.citation}: {_condition(g)})")
    if q.for_each:
        parts.append(f"each feature of {q.for_each}")
    if q.conditions:
        parts.append(
            f" {q.combine} of: ".join([""])
            + f"{q.combine} of "
            + "; ".join(_condition(c) for c in q.conditions)
            if len(q.conditions) > 1
            else _condition(q.conditions[0])
        )
    if not parts:
        parts.append("every site the chapter applies to")
    return "; ".join(parts)


def _by(q: Any) -> str:
    if q.kind == "flag":
        return f"the official's call ({q.may_require} may require it)"
    if q.kind == "provision":
        return f"a duty during construction ([declared] {q.provision} states it)"
    params = ", ".join(f"{k} = {v!r}" for k, v in q.params.items())
    alt = f"; or instead: {q.alternative}" if q.alternative else ""
    return f"practice {q.practice}" + (f" ({params})" if params else "") + alt


class RequirementTable(NamedTuple):
    """A profile's requirements as a table: the column names (:data:`HEADER`) and one row of texts each."""

    header: tuple[str, ...]
    rows: list[tuple[str, ...]]


def requirement_rows(profile: Profile) -> RequirementTable:
    """The requirements table: one row per requirement and per topic the chapter does not specify (or that
    was not read).
    """
    rows: list[tuple[str, ...]] = [
        (f"{q.id}: {q.requires}", profile.cite(q.citation, q.section), _where(profile, q), _by(q), q.reading)
        for q in profile.requirements
    ]
    kinds = {
        "unread": "not read (the profile's author could not read this part)",
        "unexpressed": "stated by the chapter, not sayable in a profile: for the official",
        "silent": "not specified by this chapter",
    }
    for item in profile.not_specified:
        rows.append((f"{item.id}: {item.topic}", item.citation, kinds[item.kind], "", ""))
    return RequirementTable(HEADER, rows)
