"""Jurisdiction profiles: one TOML file per village in ``geosite/rules/profiles``.

A profile holds every threshold the engine uses, each with the ordinance section it comes from. A new
village is a new file; the engine reads only what is here. ``load_profile`` accepts a profile name or
a path to a TOML file of the same shape.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from geosite.errors import ProfileError
from geosite.rules.model import (
    Applicability,
    Condition,
    Entry,
    FrozenMap,
    Jurisdiction,
    NotSpecified,
    PlanContent,
    PlanItem,
    PlanType,
    Review,
    entries,
    frozen,
)
from geosite.rules.schema import OPS, validate

__all__ = [
    "OPS",
    "Condition",
    "Entry",
    "Profile",
    "Requirement",
    "available_profiles",
    "load_profile",
    "parse",
]


@dataclass(frozen=True)
class Requirement:
    """One requirement of the chapter, written once in the profile's ``[[requirements]]``: where it applies
    (``gate``, ``conditions`` combined by ``combine``, ``for_each`` feature of a layer), what satisfies it
    (``practice`` with ``params``, a plan ``provision``, or for a ``flag`` nothing: the official decides), its
    citation, section and reading, and the ``alternative`` requirement whose practice satisfies it too where
    that one applies as well (B(6)(c)'s "either [1] and [2] or [1] and [3]").
    """

    id: str
    kind: str
    citation: str
    section: str
    requires: str
    practice: str | None = None
    provision: str | None = None
    gate: str | None = None
    conditions: tuple[Condition, ...] = ()
    combine: str = "any"
    for_each: str | None = None
    alternative: str | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: FrozenMap({}))
    reading: str = ""
    may_require: str = ""

    @classmethod
    def from_toml(cls, q: Mapping[str, Any]) -> Requirement:
        """The requirement of a profile's ``[[requirements]]`` table ``q`` (checked by the schema first)."""
        section = q.get("section", "")
        return cls(
            id=q["id"],
            kind=q.get("kind", "practice"),
            citation=q["citation"],
            section=section,
            requires=q["requires"],
            practice=q.get("practice"),
            provision=q.get("provision"),
            gate=q.get("gate"),
            conditions=tuple(Condition.parse(c) for c in q.get("conditions", [])),
            combine=q.get("combine", "any"),
            for_each=q.get("for_each"),
            alternative=q.get("alternative"),
            params=FrozenMap(dict(q.get("params", {}))),
            reading=q.get("reading", ""),
            may_require=q.get("may_require", ""),
        )

    def param(self, name: str) -> Any:
        """A parameter the profile must give (the validation makes sure of the required ones)."""
        if name not in self.params:
            raise ProfileError(f"requirement {self.id}: params.{name} is not given")
        return self.params[name]


#: the profile tables of cited entries, by name
ENTRY_TABLES = (
    "terrain",
    "rain",
    "controls",
    "permit",
    "enforcement",
    "submission",
    "maintenance",
    "stabilization",
    "quantities",
    "prices",
)


@dataclass(frozen=True)
class Profile:
    """A jurisdiction profile, parsed once into typed tables (:mod:`geosite.rules.model`)."""

    jurisdiction: Jurisdiction
    sections: Mapping[str, str]
    applicability: Applicability
    gates: Mapping[str, Condition]
    plan_type: PlanType | None
    requirements: tuple[Requirement, ...]
    plan_content: PlanContent
    review: Review
    not_specified: tuple[NotSpecified, ...]
    tables: Mapping[str, Mapping[str, Entry]]
    runoff_storm: str | None = None
    path: str = ""
    sha256: str = ""  # of the profile file's bytes: which rulebook a report was decided by

    @property
    def id(self) -> str:
        """The profile's id (its file stem)."""
        return self.jurisdiction.id

    @property
    def name(self) -> str:
        """The village's name."""
        return self.jurisdiction.name

    @property
    def controls(self) -> Mapping[str, Entry]:
        """The ``[controls]`` table: the Handbook's and geosite's numbers the practices use."""
        return self.tables["controls"]

    @property
    def storms(self) -> tuple[str, ...]:
        """The design storms of ``[rain]`` (their depths' keys, ``<storm>_in``)."""
        return tuple(self.tables["rain"])

    def section_name(self, key: str | None) -> str:
        """The name ``[sections]`` gives the section ``key`` (the key itself when unnamed; "" for none)."""
        if not key:
            return ""
        return self.sections.get(key, key)

    def entry(self, table: str, key: str) -> Entry | None:
        """The entry ``key`` of ``table`` (None when absent)."""
        if table == "review":
            return self.review.entries.get(key)
        return self.tables.get(table, {}).get(key)

    def value(self, table: str, key: str, default: Any = None) -> Any:
        """The ``value`` of the entry ``key`` of ``table``, or ``default`` when absent (``[rain]
        runoff_storm`` is the storm's key).
        """
        if table == "rain" and key == "runoff_storm":
            return self.runoff_storm if self.runoff_storm is not None else default
        e = self.entry(table, key)
        return default if e is None else e.value

    def cite(self, citation: str | None, section: str | None) -> str:
        """A citation a reader can find: the section's name and the chapter's own notation."""
        name = self.section_name(section)
        if not citation:
            return name
        return f"{name} {citation}" if name and name != citation else citation

    def requirement(self, rid: str) -> Requirement | None:
        """The requirement with id ``rid`` (None when the profile has none)."""
        return next((q for q in self.requirements if q.id == rid), None)

    def practice(self, key: str) -> Requirement | None:
        """The requirement placed by practice key ``key`` (its citation, section, gate, wording and
        parameters); None when the chapter does not ask for it.
        """
        return next((q for q in self.requirements if q.practice == key), None)

    def days_of(self, key: str) -> Entry | None:
        """The days of the requirement of practice key ``key``: its ``params.days`` (Grantsburg
        B(6)(c)[1]'s 7),
        else the threshold of its ``days`` condition (B(6)(e)'s 30), as an entry with the requirement's
        citation and section; None when the chapter does not ask for the practice.
        """
        q = self.practice(key)
        if q is None:
            return None
        days = q.params.get("days")
        if days is None:
            days = next((c.threshold for c in q.conditions if c.measure == "days"), None)
        return None if days is None else Entry(days, citation=q.citation, section=q.section)

    def required(self, table: str, key: str) -> Any:
        """The value of an entry every profile gives (the schema's ``REQUIRED_ENTRIES``): an error naming the
        profile when it is missing (ordinance and Handbook numbers are profile data, never code defaults).
        """
        value = self.value(table, key)
        if value is None:
            raise ProfileError(
                f"profile {self.path or self.id}: [{table}] {key} is required and is not given"
            )
        return value

    def control(self, key: str) -> Any:
        """A ``[controls]`` number a practice needs: an error naming the profile when it is missing
        (Handbook and method numbers are profile data, never code defaults).
        """
        value = self.value("controls", key)
        if value is None:
            raise ProfileError(
                f"profile {self.path or self.id}: [controls] {key} is needed by a practice the profile asks "
                "for and is not given"
            )
        return value

    def storm_in(self, key: str | None) -> float | None:
        """The depth, inches, of the ``[rain]`` storm ``key`` (None when not given)."""
        return None if not key else self.value("rain", key)

    @property
    def official(self) -> str:
        """The title of the official the chapter names (who reviews plans and decides what it leaves to
        judgement).
        """
        return self.jurisdiction.official

    @property
    def map_margin_ft(self) -> float:
        """The land around the site a map shows, feet (``[jurisdiction] map_margin_ft``, which every profile
        gives: Grantsburg's 200 ft of plan A(1) is the chapter's number, never a code default).
        """
        value = self.jurisdiction.map_margin_ft
        if value is None:
            raise ProfileError(
                f"profile {self.path or self.id}: [jurisdiction] map_margin_ft is required and is not given"
            )
        return float(value)

    @property
    def map_scale_ft(self) -> float | None:
        """The map scale the chapter asks for, ground feet per paper inch: the ``max_ft_per_in`` of its plan
        content's map item (Grantsburg plan A(1)'s 1 in = 100 ft); None when the profile gives none.
        """
        for kind in ("full", "statement"):
            for item in self.plan_content.items(kind):
                if item.check == "map" and item.max_ft_per_in is not None:
                    return float(item.max_ft_per_in)
        return None

    def map_items(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """The existing site map's lettered items: (letter, label, layers drawn for it), from the full plan's
        items that carry ``map_layers``.
        """
        out = []
        for item in self.plan_content.full:
            if item.map_layers:
                cite = item.citation
                letter = cite.rsplit("(", 1)[-1].rstrip(")") if "(" in cite else cite
                out.append((letter, item.map_label or item.text, item.map_layers))
        return out


def parse(data: Mapping[str, Any], path: str = "", sha256: str = "") -> Profile:
    """The typed profile of a validated TOML ``data``."""
    app = data.get("applicability", {})
    section = app.get("section", "")
    pt = data.get("plan_type")
    pc = data.get("plan_content", {})
    rv = data.get("review", {})
    rain = dict(data.get("rain", {}))
    runoff = rain.pop("runoff_storm", None)
    return Profile(
        jurisdiction=Jurisdiction(
            **{k: v for k, v in data["jurisdiction"].items() if k in Jurisdiction.__dataclass_fields__}
        ),
        sections=frozen(data.get("sections")),
        applicability=Applicability(
            combine=app.get("combine", "any"),
            section=section,
            triggers=tuple(Condition.parse(t) for t in app.get("triggers", [])),
            exemptions=tuple(Condition.parse(t) for t in app.get("exemptions", [])),
            unread=app.get("unread", ""),
        ),
        gates=FrozenMap({k: Condition.parse(g, rule=k) for k, g in data.get("gates", {}).items()}),
        plan_type=None
        if not pt
        else PlanType(
            measure=pt.get("measure", ""),
            section=pt.get("section", ""),
            full=Condition.parse(pt["full"], measure=pt.get("measure", "")) if "full" in pt else None,
            statement=Condition.parse(pt["statement"], measure=pt.get("measure", ""))
            if "statement" in pt
            else None,
        ),
        requirements=tuple(Requirement.from_toml(q) for q in data.get("requirements", [])),
        plan_content=PlanContent(
            section=pc.get("section", "plan"),
            full=tuple(PlanItem.parse(i) for i in pc.get("full", [])),
            statement=tuple(PlanItem.parse(i) for i in pc.get("statement", [])),
        ),
        review=Review(
            kind=rv.get("kind", "working_days"),
            holidays=frozen(rv["holidays"]) if rv.get("holidays") is not None else None,
            entries=entries({k: v for k, v in rv.items() if k not in ("kind", "holidays")}),
        ),
        not_specified=tuple(
            NotSpecified(i["id"], i["topic"], i["kind"], i.get("citation", ""), i.get("section"))
            for i in data.get("not_specified", [])
        ),
        tables=FrozenMap({t: entries(rain if t == "rain" else data.get(t)) for t in ENTRY_TABLES}),
        runoff_storm=runoff,
        path=path,
        sha256=sha256,
    )


def _profiles_dir() -> Path:
    return Path(str(resources.files("geosite.rules") / "profiles"))


def available_profiles() -> list[str]:
    """Names of the bundled profiles."""
    return sorted(p.stem for p in _profiles_dir().glob("*.toml"))


def load_profile(
    name_or_path: str | Path,
    *,
    installed_only: bool = False,
    checks: Callable[[Profile], list[str]] | None = None,
) -> Profile:
    """Load a bundled profile by name, or a profile TOML by path. Unknown names list the known ones.

    ``installed_only``: only a bundled profile's name (as a submission's site.toml may give); a path, or
    a name that is not one of :func:`available_profiles`, is a :class:`~geosite.errors.ProfileError`.
    ``checks``: more checks of the parsed profile, each problem ``key: what is wrong`` (the practices' own:
    geosite.practices.validate), reported with the schema's in one error.
    """
    import hashlib

    text = str(name_or_path)
    path = Path(text)
    known = available_profiles()
    if installed_only:
        if text.strip().lower() not in known:
            raise ProfileError(
                f"jurisdiction {text!r} is not an installed profile ({', '.join(known)}); a submission "
                "may only name one of those (the inspector chooses any other with --jurisdiction)"
            )
        path = _profiles_dir() / f"{text.strip().lower()}.toml"
    elif not (text.endswith(".toml") and path.exists()):
        path = _profiles_dir() / f"{text.strip().lower()}.toml"
        if text.strip().lower() not in known:
            raise ProfileError(
                f"unknown jurisdiction {text!r}; known: {', '.join(known)} "
                "(or give the path of a profile .toml)"
            )
    try:
        raw = path.read_bytes()
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ProfileError(f"profile {path}: not valid TOML ({exc})") from exc
    except OSError as exc:
        raise ProfileError(f"profile {path}: cannot be read ({exc.strerror})") from exc
    problems = validate(data)
    profile = None if problems else parse(data, str(path), hashlib.sha256(raw).hexdigest())
    if profile is not None and checks is not None:
        problems = checks(profile)
    if problems or profile is None:
        raise ProfileError(
            f"profile {path}: {len(problems)} problem{'s' if len(problems) != 1 else ''}:\n  "
            + "\n  ".join(problems)
        )
    return profile
