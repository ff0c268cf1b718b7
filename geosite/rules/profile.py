"""Jurisdiction profiles: one TOML file per village in ``geosite/rules/profiles``.

A profile holds every threshold the engine uses, each with the ordinance section it comes from. A new
village is a new file; the engine reads only what is here. ``load_profile`` accepts a profile name or
a path to a TOML file of the same shape.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from geosite.errors import ProfileError
from geosite.rules.schema import OPS, validate

__all__ = ["OPS", "Profile", "Requirement", "available_profiles", "load_profile"]


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
    conditions: tuple[dict[str, Any], ...] = ()
    combine: str = "any"
    for_each: str | None = None
    alternative: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    reading: str = ""
    may_require: str = ""

    @classmethod
    def from_toml(cls, q: dict[str, Any]) -> Requirement:
        """The requirement of a profile's ``[[requirements]]`` table ``q`` (checked by the schema first)."""
        return cls(
            id=q["id"],
            kind=q.get("kind", "practice"),
            citation=q["citation"],
            section=q.get("section", ""),
            requires=q["requires"],
            practice=q.get("practice"),
            provision=q.get("provision"),
            gate=q.get("gate"),
            conditions=tuple(q.get("conditions", [])),
            combine=q.get("combine", "any"),
            for_each=q.get("for_each"),
            alternative=q.get("alternative"),
            params=dict(q.get("params", {})),
            reading=q.get("reading", ""),
            may_require=q.get("may_require", ""),
        )

    def param(self, name: str) -> Any:
        """A parameter the profile must give (the schema makes sure of the required ones)."""
        if name not in self.params:
            raise ProfileError(f"requirement {self.id}: params.{name} is not given")
        return self.params[name]


@dataclass(frozen=True)
class Profile:
    """A parsed jurisdiction profile. ``data`` is the TOML as read; accessors below give typed views."""

    id: str
    name: str
    data: dict[str, Any] = field(repr=False)
    path: str = ""
    sha256: str = ""  # of the profile file's bytes: which rulebook a report was decided by

    def section_name(self, key: str | None) -> str:
        """The name ``[sections]`` gives the section ``key`` (the key itself when unnamed; "" for none)."""
        if not key:
            return ""
        return self.data.get("sections", {}).get(key, key)

    def value(self, table: str, key: str, default: Any = None) -> Any:
        """The ``value`` of a ``{value = ..., citation = ...}`` entry, or ``default`` when absent."""
        entry = self.data.get(table, {}).get(key)
        if entry is None:
            return default
        return entry["value"] if isinstance(entry, dict) else entry

    def entry(self, table: str, key: str) -> dict[str, Any] | None:
        """The entry ``key`` of ``table`` as a dict with its ``value`` (None when absent)."""
        entry = self.data.get(table, {}).get(key)
        if entry is None or isinstance(entry, dict):
            return entry
        return {"value": entry}

    def cite(self, citation: str | None, section: str | None) -> str:
        """A citation a reader can find: the section's name and the chapter's own notation."""
        name = self.section_name(section)
        if not citation:
            return name
        return f"{name} {citation}" if name and name != citation else citation

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        """The chapter's requirements, in the profile's order."""
        return tuple(Requirement.from_toml(q) for q in self.data.get("requirements", []))

    def requirement(self, rid: str) -> Requirement | None:
        """The requirement with id ``rid`` (None when the profile has none)."""
        return next((q for q in self.requirements if q.id == rid), None)

    def practice(self, name: str) -> Requirement | None:
        """The requirement placed by practice ``name`` (its citation, section, gate, wording and
        parameters); None when the chapter does not ask for it.
        """
        return next((q for q in self.requirements if q.practice == name), None)

    def days_of(self, practice: str) -> dict[str, Any] | None:
        """The days of a requirement written with them, as an entry (value, citation, section): its
        ``params.days`` (Grantsburg B(6)(c)[1]'s 7), else the threshold of its ``days`` condition (B(6)(e)'s
        30);
        None when the chapter does not ask for the practice.
        """
        q = self.practice(practice)
        if q is None:
            return None
        days = q.params.get("days")
        if days is None:
            days = next((c["threshold"] for c in q.conditions if c.get("measure") == "days"), None)
        return None if days is None else {"value": days, "citation": q.citation, "section": q.section}

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
        return str(self.data["jurisdiction"].get("official", "the official the chapter names"))

    @property
    def map_margin_ft(self) -> float:
        """The land around the site a map shows, feet (``[jurisdiction] map_margin_ft``, which every profile
        gives: Grantsburg's 200 ft of plan A(1) is the chapter's number, never a code default).
        """
        value = self.data["jurisdiction"].get("map_margin_ft")
        if value is None:
            raise ProfileError(
                f"profile {self.path or self.id}: [jurisdiction] map_margin_ft is required and is not given"
            )
        return float(value)

    @property
    def map_scale_ft(self) -> float | None:
        """The map scale the chapter asks for, ground feet per paper inch: the ``max_ft_per_in`` of its
        ``[[plan_content]]`` map item (Grantsburg plan A(1)'s 1 in = 100 ft); None when the profile gives
        none (the chapter sets no scale, or its plan content is not read).
        """
        content = self.data.get("plan_content", {})
        for kind in ("full", "statement"):
            for item in content.get(kind, []):
                if item.get("check") == "map" and item.get("max_ft_per_in") is not None:
                    return float(item["max_ft_per_in"])
        return None

    def map_items(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """The existing site map's lettered items: (letter, label, layers drawn for it), from the full plan's
        ``[[plan_content.full]]`` items that carry ``map_layers``.
        """
        out = []
        for item in self.data.get("plan_content", {}).get("full", []):
            if item.get("map_layers"):
                cite = item["citation"]
                letter = cite.rsplit("(", 1)[-1].rstrip(")") if "(" in cite else cite
                out.append((letter, item.get("map_label", item.get("text", "")), tuple(item["map_layers"])))
        return out


def _profiles_dir() -> Path:
    return Path(str(resources.files("geosite.rules") / "profiles"))


def available_profiles() -> list[str]:
    """Names of the bundled profiles."""
    return sorted(p.stem for p in _profiles_dir().glob("*.toml"))


def load_profile(name_or_path: str | Path, *, installed_only: bool = False) -> Profile:
    """Load a bundled profile by name, or a profile TOML by path. Unknown names list the known ones.

    ``installed_only``: only a bundled profile's name (as a submission's site.toml may give); a path, or
    a name that is not one of :func:`available_profiles`, is a :class:`~geosite.errors.ProfileError`.
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
    if problems:
        raise ProfileError(
            f"profile {path}: {len(problems)} problem{'s' if len(problems) != 1 else ''}:\n  "
            + "\n  ".join(problems)
        )
    j = data["jurisdiction"]
    return Profile(
        id=j["id"], name=j["name"], data=data, path=str(path), sha256=hashlib.sha256(raw).hexdigest()
    )
