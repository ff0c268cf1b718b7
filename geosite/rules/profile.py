"""Jurisdiction profiles: one TOML file per village in ``geosite/rules/profiles``.

A profile holds every threshold the engine uses, each with the ordinance section it comes from. A new
village is a new file; the engine reads only what is here. ``load_profile`` accepts a profile name or
a path to a TOML file of the same shape.
"""

from __future__ import annotations

import operator
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from geosite.errors import ProfileError

OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq, "!=": operator.ne}


@dataclass(frozen=True)
class Profile:
    """A parsed jurisdiction profile. ``data`` is the TOML as read; accessors below give typed views."""

    id: str
    name: str
    data: dict[str, Any] = field(repr=False)
    path: str = ""
    sha256: str = ""  # of the profile file's bytes: which rulebook a report was decided by

    def section_name(self, key: str | None) -> str:
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

    def practice(self, name: str) -> dict[str, Any] | None:
        """The ``[practices.<name>]`` entry: where the chapter (or the BMP Handbook it defers to) asks
        for a control, with its citation, section, gate and wording; None when the chapter is silent."""
        return self.data.get("practices", {}).get(name)

    @property
    def map_margin_ft(self) -> float:
        return float(self.data["jurisdiction"].get("map_margin_ft", 200.0))


def _profiles_dir() -> Path:
    return Path(str(resources.files("geosite.rules") / "profiles"))


def available_profiles() -> list[str]:
    """Names of the bundled profiles."""
    return sorted(p.stem for p in _profiles_dir().glob("*.toml"))


def load_profile(name_or_path: str | Path, *, installed_only: bool = False) -> Profile:
    """Load a bundled profile by name, or a profile TOML by path. Unknown names list the known ones.

    ``installed_only``: only a bundled profile's name (as a submission's site.toml may give); a path, or
    a name that is not one of :func:`available_profiles`, is a :class:`~geosite.errors.ProfileError`."""
    import hashlib

    text = str(name_or_path)
    path = Path(text)
    known = available_profiles()
    if installed_only:
        if text.strip().lower() not in known:
            raise ProfileError(f"jurisdiction {text!r} is not an installed profile ({', '.join(known)}); a submission "
                               "may only name one of those (the inspector chooses any other with --jurisdiction)")
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
    problems = _validate(data)
    if problems:
        raise ProfileError(f"profile {path}: " + "; ".join(problems))
    j = data["jurisdiction"]
    return Profile(id=j["id"], name=j["name"], data=data, path=str(path), sha256=hashlib.sha256(raw).hexdigest())


def _validate(data: dict[str, Any]) -> list[str]:
    problems = []
    j = data.get("jurisdiction")
    if not isinstance(j, dict) or "id" not in j or "name" not in j:
        problems.append("[jurisdiction] needs id and name")
    conditions = [("applicability.triggers", t) for t in data.get("applicability", {}).get("triggers", [])]
    conditions += [("applicability.exemptions", t) for t in data.get("applicability", {}).get("exemptions", [])]
    gates = data.get("gates", {})
    conditions += [(f"gates.{name}", g) for name, g in gates.items()]
    for rule in data.get("rules", []):
        if "id" not in rule or "citation" not in rule:
            problems.append(f"rule {rule.get('id', '?')}: needs id and citation")
        if rule.get("gate") and rule["gate"] not in gates:
            problems.append(f"rule {rule.get('id', '?')}: gate {rule['gate']!r} is not in [gates] (known: {', '.join(gates) or 'none'})")
        conditions += [(f"rules.{rule.get('id', '?')}", c) for c in rule.get("conditions", [])]
    for name, practice in data.get("practices", {}).items():
        if not isinstance(practice, dict) or "citation" not in practice:
            problems.append(f"practices.{name}: needs a citation")
        elif practice.get("gate") and practice["gate"] not in gates:
            problems.append(f"practices.{name}: gate {practice['gate']!r} is not in [gates] (known: {', '.join(gates) or 'none'})")
    pt = data.get("plan_type", {})
    conditions += [(f"plan_type.{k}", pt[k]) for k in ("full", "statement") if k in pt]
    for where, cond in conditions:
        if cond.get("op") not in OPS:
            problems.append(f"{where}: op {cond.get('op')!r} is not one of {', '.join(OPS)}")
        if "threshold" not in cond:
            problems.append(f"{where}: no threshold")
    return problems
