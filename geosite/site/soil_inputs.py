"""The ``[soil_loss]`` table of site.toml, validated.

The numbers a site gives for NR 151.11's soil loss where no published table gives them, each with its
source (docs/site_folder.md):

```toml
[soil_loss]
county = "Dane"                              # the county whose R applies (default: the village's)
r_factor = 150.0                             # R, US customary (hundreds of ft tonf in / (ac h yr))
r_source = "..."                             # where R comes from (required with r_factor)
ei_cumulative_pct = [["01-01", 0.0], ["04-01", 5.0], ...]   # % of the year's EI from Jan 1 to MM-DD
ei_source = "..."                            # the table it comes from (required with ei_cumulative_pct)
[soil_loss.c]                                # C of a cover kind, with its source
erosion_mat = { value = 0.05, source = "..." }
```
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

_KEYS = ("county", "r_factor", "r_source", "ei_cumulative_pct", "ei_source", "c")


def _number(v: Any) -> float | None:
    """A finite number, else None."""
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return None
    return float(v)


def _text(table: dict[str, Any], key: str, where: Path, problems: list[str]) -> str | None:
    """A non-empty text at ``key``, else None (a problem when present but not text)."""
    v = table.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or not v.strip():
        problems.append(f"{where}: [soil_loss] {key} must be a non-empty text")
        return None
    return v.strip()


def _ei_points(v: Any, where: Path, problems: list[str]) -> list[list[Any]] | None:
    """``[["MM-DD", percent], ...]`` checked for shape (the order and range are checked when used)."""
    if v is None:
        return None
    ok = isinstance(v, list) and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and _number(p[1]) is not None for p in v
    )
    if not ok:
        problems.append(f'{where}: [soil_loss] ei_cumulative_pct must be [["MM-DD", percent], ...]')
        return None
    return [[p[0], float(p[1])] for p in v]


def _c_overrides(v: Any, where: Path, problems: list[str]) -> dict[str, dict[str, Any]]:
    """``[soil_loss.c]``: cover kind = {value (0-1), source}."""
    out: dict[str, dict[str, Any]] = {}
    if v is None:
        return out
    if not isinstance(v, dict):
        problems.append(f"{where}: [soil_loss.c] must be a table of cover = {{ value, source }}")
        return out
    for kind, entry in v.items():
        value = _number(entry.get("value")) if isinstance(entry, dict) else None
        source = entry.get("source") if isinstance(entry, dict) else None
        if value is None or not 0.0 <= value <= 1.0 or not isinstance(source, str) or not source.strip():
            problems.append(f"{where}: [soil_loss.c] {kind} needs value (a C from 0 to 1) and source")
            continue
        out[str(kind)] = {"value": value, "source": source.strip()}
    return out


def soil_loss_settings(table: Any, where: Path, problems: list[str]) -> dict[str, Any]:
    """The validated ``[soil_loss]`` table (problems appended to ``problems``)."""
    if not isinstance(table, dict):
        problems.append(f"{where}: [soil_loss] must be a table")
        return {}
    for key in table:
        if key not in _KEYS:
            problems.append(f"{where}: [soil_loss] {key!r} is not a setting (known: {', '.join(_KEYS)})")
    out: dict[str, Any] = {
        "county": _text(table, "county", where, problems),
        "r_source": _text(table, "r_source", where, problems),
        "ei_source": _text(table, "ei_source", where, problems),
        "ei_cumulative_pct": _ei_points(table.get("ei_cumulative_pct"), where, problems),
        "c": _c_overrides(table.get("c"), where, problems),
        "r_factor": None,
    }
    if "r_factor" in table:
        r = _number(table["r_factor"])
        if r is None or r <= 0:
            problems.append(f"{where}: [soil_loss] r_factor = {table['r_factor']!r}; use a positive number")
        out["r_factor"] = r
    if out["r_factor"] is not None and out["r_source"] is None:
        problems.append(f"{where}: [soil_loss] r_factor needs r_source (where the R comes from)")
    if out["ei_cumulative_pct"] is not None and out["ei_source"] is None:
        problems.append(f"{where}: [soil_loss] ei_cumulative_pct needs ei_source (the table it comes from)")
    return out
