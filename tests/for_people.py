"""The rules every text geosite writes for a person keeps (issue 33: reports and messages for people), as
one scanner the tests run over report.md, findings.md, report.html and findings.json of the samples and of
built sites: no profile or measurement key, no layer key before a feature id, a named feature never by its
id, coordinates as "E 153322, N 151932 (US ft)", a fall never "rises -", and every failing finding with
what was required and what was submitted.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from geosite.rules.words import _LAYER_WORDS, _PARAMS

#: a number with a thousands separator where a coordinate is written ("E 153,322", "(153,322, 151,932)")
_COMMA_COORD = re.compile(r"\b[EN] \d{1,3}(?:,\d{3})+|\(\d{1,3}(?:,\d{3})+(?:\.\d+)?, \d{1,3}(?:,\d{3})+")
#: a coordinate pair as geosite writes it, with its unit
_COORD = re.compile(r"\bE -?\d+, N -?\d+( \((?:US ft|ft|m)\))?")
#: a layer's key (a snake_case name) before a feature id: "storm_inlets 2", "bmps 4", "access_drives 1"
_LAYER_KEY_ID = re.compile(r"\b(bmps|storm_inlets|access_drives|site_boundary) \d")


def problems(text: str, names: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
    """What in ``text`` breaks the rules (an empty list where nothing does)."""
    # as a person reads it: HTML entities and Markdown's backslash escapes undone
    text = re.sub(r"\\([\\`*_\[\]<>|~&#!(){}.+-])", r"\1", html.unescape(text))
    out = [f"key {m.group(0)!r}" for m in _PARAMS.finditer(text)]
    out += [
        f"'rises -' in {text[max(0, m.start() - 60) : m.end() + 20]!r}" for m in re.finditer("rises -", text)
    ]
    out += [
        f"Horn slope in {text[max(0, m.start() - 40) : m.end() + 20]!r}"
        for m in re.finditer("Horn slope", text)
    ]
    out += [f"coordinate with a thousands separator {m.group(0)!r}" for m in _COMMA_COORD.finditer(text)]
    out += [f"coordinate without its unit {m.group(0)!r}" for m in _COORD.finditer(text) if not m.group(1)]
    out += [f"layer key before an id {m.group(0)!r}" for m in _LAYER_KEY_ID.finditer(text)]
    for layer, ids in (names or {}).items():
        if layer not in _LAYER_WORDS:
            continue
        for fid in ids:
            pat = r"\b(?:" + _LAYER_WORDS[layer][0] + r") (?:\d+, )*" + re.escape(str(fid)) + r"(?![\w.,])"
            out += [f"named {layer} {fid} by its id: {m.group(0)!r}" for m in re.finditer(pat, text)]
    return out


def finding_problems(
    findings: Iterable[Mapping[str, Any]], names: Mapping[str, Mapping[str, str]]
) -> list[str]:
    """The rules over findings as data (findings.json, report.json): each text field scanned, and every
    failing finding says what was required and what was submitted."""
    out = []
    for f in findings:
        for k in ("message", "requirement", "submitted", "settle"):
            out += [f"{f.get('id') or f['rule']} {k}: {p}" for p in problems(f.get(k) or "", names)]
        if f["status"] == "fail":
            out += [
                f"{f.get('id') or f['rule']} fails with no {k}"
                for k in ("requirement", "submitted")
                if not f[k]
            ]
    return out
