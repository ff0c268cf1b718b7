"""A profile's tables as frozen, typed records, parsed once when the profile is loaded
(:func:`geosite.rules.profile.load_profile`, after :mod:`geosite.rules.schema` has validated the TOML):
nothing outside :mod:`geosite.rules` reads the TOML itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class FrozenMap(dict):
    """A read-only table: a profile's tables cannot be changed once it is loaded (a pickled profile, as the
    sandbox's child hands a check back, is rebuilt as one).
    """

    def _read_only(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a profile's tables are read-only once it is loaded")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMap, (dict(self),))


#: the kinds of applicability trigger: one the profile's measures can decide, one the chapter states that
#: the profile language cannot say, one in a part of the chapter the profile's author could not read
TRIGGER_KINDS = ("measured", "unexpressed", "unread")


@dataclass(frozen=True)
class Entry:
    """A number (or value) of a profile table with where it comes from: the chapter's ``citation`` and
    ``section``, or a ``source``; its ``unit`` where given; ``by``/``text``/``note``: words the findings
    quote; ``date``: when a price was given.
    """

    value: Any
    citation: str = ""
    section: str = ""
    source: str = ""
    note: str = ""
    unit: str = ""
    by: str = ""
    text: str = ""
    date: Any = ""  # when a price was given (a [prices] entry: an ISO date)

    def get(self, key: str, default: Any = None) -> Any:
        """Field ``key`` (``default`` where it is not given), for readers that take an entry where a table of
        the same keys would do (the schedule's deadlines and notices).
        """
        v = getattr(self, key, None)
        return default if v is None or v == "" else v

    def __getitem__(self, key: str) -> Any:
        """Field ``key`` (a KeyError for a field an entry does not have)."""
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    @classmethod
    def parse(cls, e: Any) -> Entry:
        """The entry of a table's value ``e`` (``{value = ..., citation = ...}``, or a bare value)."""
        if not isinstance(e, Mapping):
            return cls(e)
        return cls(
            **{
                k: e[k]
                for k in ("value", "citation", "section", "source", "note", "unit", "by", "text", "date")
                if k in e
            }
        )


@dataclass(frozen=True)
class Condition:
    """A test on a measurement (``measure op threshold``), as the applicability triggers, the gates, the plan
    type and the requirements write it; ``to`` and ``along`` say what a per-feature distance is measured to
    and how; ``kind`` marks an applicability trigger the profile cannot measure (``unexpressed``,
    ``unread``: :data:`TRIGGER_KINDS`), which has no measure.
    """

    measure: str = ""
    op: str = "=="
    threshold: Any = None
    unit: str = ""
    text: str = ""
    how: str | None = None
    rule: str = ""
    citation: str = ""
    section: str | None = None
    reading: str = ""
    to: tuple[str, ...] | None = None
    along: str | None = None
    kind: str = "measured"

    @classmethod
    def parse(cls, c: Mapping[str, Any], **defaults: Any) -> Condition:
        """The condition of a table ``c`` (``defaults`` fill what it does not give)."""
        d = {**defaults, **{k: v for k, v in c.items() if k in cls.__dataclass_fields__}}
        if d.get("to") is not None:
            d["to"] = tuple(d["to"])
        return cls(**d)


@dataclass(frozen=True)
class Applicability:
    """Where the chapter applies: its triggers combined (``any``/``all``), its exemptions, the section they
    are cited to, and ``unread``: the part of the chapter holding (more of) its triggers that was not read.
    """

    combine: str = "any"
    section: str = ""
    triggers: tuple[Condition, ...] = ()
    exemptions: tuple[Condition, ...] = ()
    unread: str = ""


@dataclass(frozen=True)
class PlanType:
    """The plan type's rule: the measure it reads, the section, and the full plan's and the statement's
    conditions (None when the chapter gives none).
    """

    measure: str = ""
    section: str = ""
    full: Condition | None = None
    statement: Condition | None = None


@dataclass(frozen=True)
class PlanItem:
    """One item of a plan's required content and how a submission shows it (geosite.review.completeness)."""

    citation: str = ""
    text: str = ""
    layers: tuple[str, ...] = ()
    contacts: tuple[str, ...] = ()
    project: tuple[str, ...] = ()
    declared: str | None = None
    check: str | None = None
    max_ft_per_in: float | None = None
    margin_ft: float | None = None
    map_label: str = ""
    map_layers: tuple[str, ...] = ()
    reading: str = ""

    @classmethod
    def parse(cls, item: Mapping[str, Any]) -> PlanItem:
        """The item of a ``[[plan_content.*]]`` table."""
        d = {k: v for k, v in item.items() if k in cls.__dataclass_fields__}
        for k in ("layers", "contacts", "project", "map_layers"):
            if k in d:
                d[k] = tuple(d[k])
        return cls(**d)


@dataclass(frozen=True)
class PlanContent:
    """What a full plan and a plan statement must show, and the section they are cited to."""

    section: str = "plan"
    full: tuple[PlanItem, ...] = ()
    statement: tuple[PlanItem, ...] = ()

    def items(self, kind: str) -> tuple[PlanItem, ...]:
        """The items of plan type ``kind`` (``full`` or ``statement``; none for another)."""
        return self.full if kind == "full" else self.statement if kind == "statement" else ()


@dataclass(frozen=True)
class NotSpecified:
    """A topic the chapter is silent on (``silent``), that was not read (``unread``), or that it states but
    the profile language cannot say (``unexpressed``).
    """

    id: str
    topic: str
    kind: str
    citation: str = ""
    section: str | None = None


@dataclass(frozen=True)
class Jurisdiction:
    """The village: its id and name, its chapter and where the text is, its CRS, the land around a site a
    map shows (ft), the official it names, where a site under it can lie.
    """

    id: str
    name: str
    chapter: str = ""
    source: str = ""
    expected_crs: str | None = None
    map_margin_ft: float | None = None
    official: str = "the official the chapter names"
    extent: Mapping[str, Any] | None = None
    notes: str = ""


@dataclass(frozen=True)
class Review:
    """The review clock: working or calendar days, the holiday calendar's settings, its numbers."""

    kind: str = "working_days"
    holidays: Mapping[str, Any] | None = None
    entries: Mapping[str, Entry] = field(default_factory=FrozenMap)


def entries(table: Any) -> Mapping[str, Entry]:
    """A profile table of entries as a read-only mapping of :class:`Entry`."""
    return FrozenMap({k: Entry.parse(v) for k, v in (table or {}).items()})


def frozen(d: Any) -> Mapping[str, Any]:
    """A read-only view of a table (empty for none)."""
    return FrozenMap(dict(d or {}))
