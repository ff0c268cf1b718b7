"""A profile's practices held against the practices geosite knows: each requirement's practice key, its
``params`` (kind, allowed values, the ones it must give) and the ``[controls]`` numbers the practice reads.

The rest of a profile is validated when it is loaded (:mod:`geosite.rules.schema`); what a practice takes
is the practice's own (its descriptor), so this check lives beside the practices and runs wherever a
profile is used to place or judge controls: :func:`geosite.load_profile`, ``geosite profile check`` and the
start of :func:`geosite.analyze`. Every problem at once, each naming the key and the nearest valid name.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite.errors import ProfileError
from geosite.practices import registry
from geosite.rules.registry import LIST, NUMBER, Param

if TYPE_CHECKING:
    from geosite.rules import Profile, Requirement

_CHECKED: set[str] = set()


def validate_practices(profile: Profile) -> None:
    """Raise one :class:`~geosite.errors.ProfileError` listing every practice problem of ``profile`` (none:
    nothing happens; a profile checked once is not checked again).

    Parameters
    ----------
    profile : Profile
        The loaded profile.

    Raises
    ------
    ProfileError
        Naming the profile and each problem.
    """
    if profile.sha256 and profile.sha256 in _CHECKED:
        return
    problems = practice_problems(profile)
    if problems:
        raise ProfileError(
            f"profile {profile.path or profile.id}: {len(problems)} "
            f"problem{'s' if len(problems) != 1 else ''}:\n  " + "\n  ".join(problems)
        )
    if profile.sha256:
        _CHECKED.add(profile.sha256)


def load_profile(name_or_path: str | Path, *, installed_only: bool = False) -> Profile:
    """A profile loaded (:func:`geosite.rules.load_profile`) and its practices held against the practices
    geosite knows, every problem of both in one :class:`~geosite.errors.ProfileError`.

    Parameters
    ----------
    name_or_path : str or Path
        An installed profile's name, or the path of a profile TOML.
    installed_only : bool
        Only an installed profile's name (as a submission's site.toml may give).

    Returns
    -------
    Profile
        The profile.
    """
    from geosite.rules import load_profile as load

    profile = load(name_or_path, installed_only=installed_only, checks=practice_problems)
    if profile.sha256:
        _CHECKED.add(profile.sha256)
    return profile


def practice_problems(profile: Profile) -> list[str]:
    """Every practice problem of ``profile``, each ``key: what is wrong`` (empty when none)."""
    out: list[str] = []
    for i, q in enumerate(profile.requirements):
        if q.kind != "practice":
            continue
        where = f"requirements[{i}] ({q.id})"
        key = q.practice or ""
        if key not in registry.practice_keys():
            out.append(f"{where}.practice: unknown practice {key!r}{_hint(key, registry.practice_keys())}")
            continue
        p = registry.serving(key)
        spec = p.params_for(key)
        out += _params(where, key, q, spec)
        out += _controls(profile, where, q, p.controls)
        if "storm" in q.params and q.params["storm"] not in profile.storms:
            out.append(
                f"{where}.params.storm: unknown storm (a [rain] depth) "
                f"{q.params['storm']!r}{_hint(q.params['storm'], profile.storms)}"
            )
    out += [
        f"maintenance.{k}: unknown practice {k!r}{_hint(k, tuple(p.name for p in registry.PRACTICES))}"
        for k in profile.tables["maintenance"]
        if registry.named(k) is None
    ]
    out += _prices(profile)
    return out


def _prices(profile: Profile) -> list[str]:
    """The ``[prices]`` table's items against the practices: each a practice with a pay item, priced in one
    of the units it is counted in.
    """
    out = []
    paid = tuple(p.name for p in registry.PRACTICES if p.pay is not None)
    for k, e in profile.tables["prices"].items():
        p = registry.named(k)
        if p is None or p.pay is None:
            out.append(f"prices.{k}: not a practice with a pay item{_hint(k, paid)}")
            continue
        units = tuple(u.unit for u in p.pay.units)
        if e.unit not in units:
            out.append(f"prices.{k}.unit: {e.unit!r}, but {k} is counted in {' or '.join(units)}")
    return out


def _hint(name: Any, valid: tuple[str, ...] | list[str]) -> str:
    """The nearest of ``valid`` to ``name``, as a message's end (or all of them, when few)."""
    near = difflib.get_close_matches(str(name), list(valid), n=1, cutoff=0.6)
    if near:
        return f"; did you mean {near[0]!r}?"
    return f" (valid: {', '.join(valid)})" if len(valid) <= 15 else ""


def _params(where: str, key: str, q: Requirement, spec: Mapping[str, Param]) -> list[str]:
    """The requirement's ``params`` against the practice's spec: known names, kinds, values, the required."""
    out = []
    for k, v in q.params.items():
        if k not in spec:
            out.append(f"{where}.params.{k}: unknown parameter of {key} {k!r}{_hint(k, tuple(spec))}")
            continue
        s = spec[k]
        if not _kind_ok(s.kind, v):
            out.append(f"{where}.params.{k}: {v!r} is not a {s.kind}" + (f" ({s.unit})" if s.unit else ""))
        elif s.choices:
            out += [
                f"{where}.params.{k}: unknown value {x!r}{_hint(x, s.choices)}"
                for x in (v if s.kind == LIST else [v])
                if x not in s.choices
            ]
    out += [
        f"{where}.params: {key} needs {k} ({s.text})"
        for k, s in spec.items()
        if s.required and k not in q.params
    ]
    return out


def _controls(profile: Profile, where: str, q: Requirement, needed: tuple[str, ...]) -> list[str]:
    """The ``[controls]`` numbers a practice reads, each given (an inlet's adjacent distance only where the
    requirement reaches every inlet near the site).
    """
    have = profile.controls
    return [
        f"controls: {k} is needed by practice {q.practice} ({where}) and is not given"
        for k in needed
        if k not in have and not (k == "inlet_adjacent_ft" and q.params.get("which") != "all")
    ]


def _kind_ok(kind: str, v: Any) -> bool:
    """Whether ``v`` is a value of ``kind``."""
    if kind == NUMBER:
        return isinstance(v, int | float) and not isinstance(v, bool)
    if kind == LIST:
        return isinstance(v, list)
    return isinstance(v, {"boolean": bool, "text": str, "integer": int}.get(kind, object))
