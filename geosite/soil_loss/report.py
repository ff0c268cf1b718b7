"""The soil-loss section of report.md: the NR 151.11 finding, the windows of the site and of each phase, and
where every number came from.
"""

from __future__ import annotations

from typing import Any

from geosite.io.text import markdown as md

_MARK = {"pass": "pass", "fail": "FAIL", "info": "info", "not_assessed": "not assessed"}


def tpa_text(row: dict[str, Any]) -> str:
    """A row's tons per acre: one number, or the bounds."""
    if row.get("exact"):
        return f"{row['tpa_high']:.2f}"
    return f"{row['tpa_low']:.2f} - {row['tpa_high']:.2f}"


def _table(rows: list[dict[str, Any]], first: str | None) -> list[str]:
    """A markdown table of window rows (``first``: a leading column's key, e.g. ``phase``)."""
    head = ([first] if first else []) + ["window", "tons", "acres assessed", "t/ac", "acres not assessed"]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        tons = f"{r['tons_high']:.2f}" if r.get("exact") else f"{r['tons_low']:.2f} - {r['tons_high']:.2f}"
        cells = ([md(r[first])] if first else []) + [  # a phase's name is the applicant's
            md(r["window"]),
            tons,
            f"{r['acres']:.3f}",
            tpa_text(r),
            f"{r['acres_not_assessed']:.3f}",
        ]
        out.append("| " + " | ".join(cells) + " |")
    return out


def soil_loss_markdown(block: dict[str, Any], *, heading: bool = True) -> list[str]:
    """The section's lines from report.json's ``soil_loss`` block (``heading`` False: without its heading
    and finding, for a report that lists the finding itself).
    """
    f = block.get("finding", {})
    lines = (
        [
            "## Soil loss over the schedule (Wis. Admin. Code NR 151.11)",
            "",
            f"- **{md(f.get('citation', ''))}** [{md(_MARK.get(f.get('status', ''), f.get('status', '')))}] "
            f"{md(f.get('message', ''))}",
            "",
        ]
        if heading
        else []
    )
    if block.get("assessed"):
        lines += ["Every 12-month window of the disturbed area:", ""] + _table(block.get("windows", []), None)
        if block.get("phases"):
            lines += ["", "By phase:", ""] + _table(block["phases"], "phase")
        lines.append("")
    r = block.get("r_factor")
    lines += [
        f"- Method: {md(block.get('method', ''))}; LS: {md(block.get('ls_method', ''))}",
        f"- Windows: {md(block.get('windows_method', ''))}",
        f"- R = {r:g}: {md(block.get('r_source', ''))}"
        if r is not None
        else f"- R: {md(block.get('r_source', ''))}",
        f"- R through the year: {md(block.get('ei_source', ''))}",
        "- C: "
        + "; ".join(
            md(
                f"{k.replace('_', ' ')} {v['value']:g} ({v['source']})"
                if v["value"] is not None
                else f"{k.replace('_', ' ')}: {v['source']}"
            )
            for k, v in block.get("c_factors", {}).items()
        ),
        "- K: the soils layer's `kwfact`; "
        + (md("; ".join(block.get("k_problems", []))) or "every disturbed cell has one"),
        f"- The standard: {md(block.get('standard_read', ''))}",
    ]
    lines += [f"- {md(n)}" for n in block.get("schedule_notes", [])]
    return lines + [""]
