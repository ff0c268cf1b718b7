"""The words a person reads in a finding: a profile parameter by its value and name, a feature by its name.

A profile's readings and sources, and the practices' messages, are written by engineers who think in keys
(``fence_hook_ft``, ``bmps 4 (silt_fence)``, ``storm_inlets 2``). Every finding passes through
:func:`for_people` once, where the run gathers them (``pipeline.analyze``, ``review.check``), so that
report.md, report.html, findings.md and findings.json speak of "10 ft (the length of a fence end's upslope
hook)" and "Birch Street", never of a key; ``tests/test_for_people.py`` scans the outputs for the rule.
Hand-written with :mod:`re`: the texts are short and the patterns are the project's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from geosite.rules.registry import HOW, MEASURES, PARAM_TABLES, human_name

if TYPE_CHECKING:
    from geosite.rules.engine import Finding
    from geosite.rules.profile import Profile

#: the fields of a finding a person reads
TEXT_FIELDS = ("message", "requirement", "submitted", "settle")

#: how a message names a layer's features before their id, and the word a person reads for the layer
_LAYER_WORDS: dict[str, tuple[str, str]] = {
    "roads": (r"[Rr]oads?", "road"),
    "streams": (r"[Ss]treams?", "stream"),
    "wetlands": (r"[Ww]etlands?", "wetland"),
    "lakes": (r"[Ll]akes?", "lake"),
    "channels": (r"[Cc]hannels?", "channel"),
    "structures": (r"[Ss]tructures?", "structure"),
    "utilities": (r"[Uu]tilit(?:y|ies)", "utility"),
    "stockpiles": (r"[Ss]tockpiles?", "stockpile"),
    "storm_inlets": (r"(?:[Ss]torm drain )?(?:storm_inlets|[Ii]nlet\(s\)|[Ii]nlets?)", "storm drain inlet"),
    "access_drives": (r"access_drives|[Dd]rive\(s\)|[Dd]rives?", "drive"),
    "disturbance": (r"disturbance|[Dd]isturbed area\(s\)|[Dd]isturbed areas?", "disturbed area"),
    "bmps": (r"bmps", "control"),
}
_IDS = r"(\d+(?:(?:, | and )\d+)*)"


def _param_pattern() -> re.Pattern[str]:
    """Any profile parameter key or measurement key, with an optional ``[table] `` before it."""
    every = {k for t in PARAM_TABLES.values() for k in t} | set(MEASURES) | set(HOW)
    # a one-word key ("surety") is also an English word: only a key no prose writes is a key
    keys = sorted((k for k in every if "_" in k or "." in k), key=len, reverse=True)  # longest first
    alt = "|".join(re.escape(k) for k in keys)
    return re.compile(r"(?:\[(\w+)\] )?(?<![\w.])(" + alt + r")(?![\w.])")


_PARAMS = _param_pattern()


def _value_text(profile: Profile | None, key: str) -> str:
    """The profile's value of parameter ``key`` with its unit ("10 ft", "2 %"), or "" where it has none."""
    from geosite.rules.engine import fmt

    if profile is None:
        return ""
    for table, params in PARAM_TABLES.items():
        if key in params:
            value = profile.value(table, key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                return ""
            unit = {"percent": "%", "deg": "degrees"}.get(params[key].unit, params[key].unit)
            return fmt(value, unit)
    return ""


def param_words(text: str, profile: Profile | None = None) -> str:
    """``text`` with every profile parameter or measurement key it names said for a person: its value in
    the profile and its name ("10 ft (the length of a fence end's upslope hook)"), or its name alone.

    Parameters
    ----------
    text : str
        A message, reading or requirement.
    profile : Profile, optional
        The profile whose values are quoted (None: names only).

    Returns
    -------
    str
        The text without keys.
    """

    def sub(m: re.Match[str]) -> str:
        """One key said for a person."""
        key = m.group(2)
        value = _value_text(profile, key)
        return f"{value} ({human_name(key)})" if value else human_name(key)

    return _PARAMS.sub(sub, text)


def _label(layer: str, fid: str, names: Mapping[str, Mapping[str, str]], kind: str = "") -> str | None:
    """A feature as a person names it: its name (a code such as CB-2 after the layer's word), else its
    label (``labels``, passed in ``names`` too: "silt fence C4"), else None (the id stays)."""
    name = names.get(layer, {}).get(fid)
    if not name:
        return None
    word = kind.replace("_", " ") if kind else _LAYER_WORDS[layer][1]
    return name if " " in name.strip() else f"{word} {name}"


def feature_words(text: str, names: Mapping[str, Mapping[str, str]]) -> str:
    """``text`` with each feature it refers to by layer and id said by its name: "18 ft from roads 1" ->
    "18 ft from Birch Street", "inlet(s) 2" -> "storm drain inlet CB-2", "bmps 4 (silt_fence)" -> "silt
    fence C4"; a feature without a name keeps its id after a word a person reads ("storm drain inlet 3").

    Parameters
    ----------
    text : str
        A message.
    names : mapping
        Each layer's feature names by id (report.json ``inputs.feature_names``), and for ``bmps`` the
        plan's labels of unnamed controls.

    Returns
    -------
    str
        The text with features named.
    """
    for layer, (words, word) in _LAYER_WORDS.items():
        kind = r"(?: \(([a-z][a-z_]*)\))?" if layer == "bmps" else ""

        def sub(m: re.Match[str], layer: str = layer, word: str = word) -> str:
            ids = re.split(r", | and ", m.group(2))
            typ = m.group(3) if m.lastindex and m.lastindex >= 3 else None
            said = [_label(layer, i, names, typ or "") for i in ids]
            if not any(said) and "_" not in m.group(1) and layer != "bmps":
                return m.group(0)  # no name to give and no key to say in words
            if all(s is not None for s in said):
                out = ", ".join(s for s in said if s)
            else:
                lead = m.group(1) if "_" not in m.group(1) else word
                if layer == "bmps":
                    lead = (typ or "").replace("_", " ") or word
                out = f"{lead} " + ", ".join(s or i for s, i in zip(said, ids, strict=True))
            at_start = m.group(0)[:1].isupper() or m.start() == 0  # a sentence's first word stays capital
            return out[:1].upper() + out[1:] if at_start else out

        text = re.sub(r"\b(" + words + r") " + _IDS + kind + r"(?![\w.])", sub, text)
    return text


#: a rise or climb of a negative amount ("rises -1.56 ft"): a fall, said as one
_NEGATIVE_RISE = re.compile(r"\b(rises|climbs|rise of|climb of) -(?=\d)")


def sign_words(text: str) -> str:
    """``text`` with a negative rise said as a fall: "rises -1.56 ft" -> "falls 1.56 ft"."""
    return _NEGATIVE_RISE.sub(lambda m: "fall of " if m.group(1).endswith("of") else "falls ", text)


def for_people(
    findings: list[Finding], profile: Profile | None, names: Mapping[str, Mapping[str, str]]
) -> None:
    """Say every text of ``findings`` for a person, in place: parameters by value and name
    (:func:`param_words`), features by name (:func:`feature_words`), a fall as a fall (:func:`sign_words`).

    Parameters
    ----------
    findings : list of Finding
        The run's findings.
    profile : Profile or None
        The profile whose values are quoted.
    names : mapping
        Each layer's feature names (and labels) by id.
    """
    for f in findings:
        for attr in TEXT_FIELDS:
            text = getattr(f, attr)
            if text:
                setattr(f, attr, sign_words(feature_words(param_words(text, profile), names)))


def merged_names(*tables: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """Feature names by layer and id, later tables filling ids the earlier leave unnamed."""
    out: dict[str, dict[str, str]] = {}
    for t in tables:
        for layer, ids in t.items():
            row = out.setdefault(layer, {})
            for i, n in ids.items():
                row.setdefault(str(i), str(n))
    return out


def feature_names(layers: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Each layer's features by id with their ``name`` attribute (Birch Street, CB-2), from the site's
    layers (GeoDataFrames with ``id`` and ``name`` columns).

    Parameters
    ----------
    layers : mapping
        The site's layers by name.

    Returns
    -------
    dict
        Names by layer and id (text).
    """
    out: dict[str, dict[str, str]] = {}
    for layer, gdf in layers.items():
        if gdf is None or "name" not in gdf.columns or "id" not in gdf.columns:
            continue
        names = {
            str(i): str(n).strip()
            for i, n in zip(gdf["id"], gdf["name"], strict=True)
            if n is not None and str(n).strip() and str(n) != "nan"
        }
        if names:
            out[layer] = names
    return out


def control_labels(plan: Any) -> dict[str, dict[str, str]]:
    """The plan's submitted controls as a person names them, by ``bmps`` id: the control's name where it
    has one that reads alone, else what it is and its name or sheet tag ("silt fence C4").

    Parameters
    ----------
    plan : geosite.plan.Plan
        The plan under review.

    Returns
    -------
    dict
        ``{"bmps": {id: label}}``.
    """
    out: dict[str, str] = {}
    for c in getattr(plan, "controls", []):
        if c.status != "submitted":
            continue
        name = (c.name or "").strip()
        what = (c.what or c.practice.replace("_", " ")).strip()
        out[str(c.id)] = name if " " in name else f"{what[:1].lower()}{what[1:]} {name or c.tag}"
    return {"bmps": out}
