"""The analysis report: ``report.json`` (the numbers and findings, unit-suffixed keys) and
``report.md`` (the same for a person, findings grouped by section)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from geosite import __version__
from geosite.rules import Evaluation, Profile, fmt

if TYPE_CHECKING:
    from geosite.site import Site, SiteMeasurements


def build_report(site: Site, profile: Profile, m: SiteMeasurements, ev: Evaluation, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report as a JSON-ready dict."""
    v = m.values
    report: dict[str, Any] = {
        "geosite_version": __version__,
        "jurisdiction": profile.id,
        "jurisdiction_name": profile.name,
        "site": {
            "name": site.name,
            "folder": str(site.root) if site.root else None,
            "crs": site.crs.to_string(),
            "crs_name": site.crs.name,
            "area_sqft": v["site.area_sqft"],
            "area_acres": v["site.area_acres"],
        },
        "units": {
            "length": f"ft ({site.foot})",
            "area": f"sq ft ({site.foot}) and acres (43,560 sq ft)",
            "volume": "cu yd",
            "slope": "percent",
        },
        "disturbed": {
            "area_sqft": v.get("disturbed.area_sqft"),
            "area_acres": v.get("disturbed.area_acres"),
            "max_at_one_time_sqft": v.get("disturbed.max_at_one_time_sqft"),
            "max_at_one_time_acres": v.get("disturbed.max_at_one_time_acres"),
            "max_at_one_time_date": v.get("disturbed.max_at_one_time_date"),
            "max_at_one_time_phases": v.get("disturbed.max_at_one_time_phases"),
            "outside_site_sqft": v.get("disturbed.outside_site_sqft"),
        },
        "applicability": {
            "applies": ev.applies,
            "triggers": [t.to_dict() for t in ev.triggers],
            "exemptions": [t.to_dict() for t in ev.exemptions],
            # the scopes within the chapter (Grantsburg "b6": B(6)(a)-(e) only where runoff leaves the site)
            "scopes": {k: t.to_dict() for k, t in (ev.gate.scopes if ev.gate else {}).items()},
        },
        "plan_type": ev.plan_type,
        "plan_type_reason": ev.plan_type_message,
        "findings": [f.to_dict() for f in ev.findings],
        "measurements": {k: val for k, val in sorted(v.items())},
        "inputs": {
            "layers_present": sorted(site.layers),
            "layers_missing": site.missing_layers,
            "dem": str(site.dem_path) if site.dem_path else None,
            "dem_vertical_unit": site.dem_vertical_unit.value if site.dem_vertical_unit else None,
            "applicant": vars(site.applicant),
            "maintainer": vars(site.maintainer),
            "project": {k: getattr(site.project, k) for k in site.project.__dataclass_fields__},
        },
        "notes": list(site.notes),
    }
    if extra:
        report.update(extra)
    return report


STATUS_MARK = {"fail": "FAIL", "pass": "pass", "info": "info", "not_assessed": "not assessed",
               "inspector_decision": "INSPECTOR'S DECISION"}


def render_markdown(report: dict[str, Any]) -> str:
    """A human-readable report: summary, applicability, then findings grouped by section."""
    s, d = report["site"], report["disturbed"]
    lines = [
        f"# Erosion control analysis: {s['name']}",
        "",
        f"Jurisdiction: **{report['jurisdiction_name']}** (profile `{report['jurisdiction']}`)  ",
        f"CRS: {s['crs_name']} ({s['crs']}); lengths in {report['units']['length']}  ",
        f"geosite {report['geosite_version']}",
        "",
        "## Summary",
        "",
        "| quantity | value |",
        "| --- | --- |",
        f"| site area | {fmt(s['area_sqft'], 'sq ft')} ({_acres(s['area_acres'])}) |",
        f"| disturbed area | {fmt(d['area_sqft'], 'sq ft')} ({_acres(d['area_acres'])}) |",
        f"| largest area disturbed at one time | {fmt(d['max_at_one_time_sqft'], 'sq ft')} ({_acres(d['max_at_one_time_acres'])})"
        + (f" on {d['max_at_one_time_date']}" if d.get("max_at_one_time_date") else "")
        + " |",
        *(
            [f"| disturbance drawn outside the site (not counted) | {fmt(d['outside_site_sqft'], 'sq ft')} |"]
            if d.get("outside_site_sqft")
            else []
        ),
        f"| plan type | {report['plan_type'] or 'not assessed'} |",
        f"| chapter applies | {fmt(report['applicability']['applies']) if report['applicability']['applies'] is not None else 'not decided'} |",
    ]
    for key, label, unit in (
        ("slopes.steep_area_sqft", "land on slopes of 12 % or more (site)", "sq ft"),
        ("slopes.steep_disturbed_area_sqft", "disturbed land on slopes of 12 % or more (A(7): every cell, no minimum area)", "sq ft"),
        ("slopes.steep_disturbed_mapped_area_sqft", "the same on the steep-slope map (patches and holes under the mapping unit dropped, filled)", "sq ft"),
        ("slopes.max_disturbed_slope_pct", "steepest slope in the disturbed area", "%"),
        ("slopes.max_slope_pct", "steepest slope on the site", "%"),
    ):
        if key in report["measurements"]:
            lines.append(f"| {label} | {fmt(report['measurements'][key], unit)} |")
    lines += ["", "## Applicability", ""]
    for t in report["applicability"]["triggers"] + report["applicability"]["exemptions"]:
        mark = {True: "met", False: "not met", None: "not assessed"}[t["met"]]
        lines.append(f"- **{t['citation']}** ({mark}): {t['message']}")
    lines += ["", f"Plan type: {report['plan_type_reason']}", "", "## Findings by section", ""]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in report["findings"]:
        groups[f["section"] or "Not specified by this chapter"].append(f)
    for section, items in groups.items():
        lines += [f"### {section}", ""]
        for f in items:
            cite = f"**{f['citation']}** " if f["citation"] else ""
            lines.append(f"- {cite}[{STATUS_MARK.get(f['status'], f['status'])}] {f['message']}")
        lines.append("")
    if report.get("notes"):
        lines += ["## Notes on the input", ""] + [f"- {n}" for n in report["notes"]] + [""]
    return "\n".join(lines)


def _acres(value: float | None) -> str:
    return "not assessed" if value is None else f"{value:,.3f} acres"
