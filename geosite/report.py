"""The analysis report: ``report.json`` (the numbers and findings, unit-suffixed keys) and
``report.md`` (the same for a person, findings grouped by section).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from geosite._version import __version__
from geosite.io.text import markdown
from geosite.rules import Evaluation, Profile, fmt
from geosite.rules.words import feature_names, feature_words, param_words

if TYPE_CHECKING:
    from geosite.site import Site, SiteMeasurements


def md(value: Any) -> str:
    """A text of report.md: said for a person (no profile key: :func:`geosite.rules.words.param_words`),
    then escaped for Markdown (:func:`geosite.io.text.markdown`).
    """
    return markdown(None if value is None else param_words(str(value)))


def build_report(
    site: Site, profile: Profile, m: SiteMeasurements, ev: Evaluation, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The report as a JSON-ready dict.

    Parameters
    ----------
    site : Site
        The site analysed.
    profile : Profile
        The jurisdiction's profile it was judged by.
    m : SiteMeasurements
        The stages' measurements (``m.values``: unit-suffixed keys).
    ev : Evaluation
        The chapter's verdicts: applicability, plan type, findings.
    extra : dict, optional
        Further top-level blocks (slopes, flow routing, contours...), added last.

    Returns
    -------
    dict
        The content of report.json.
    """
    v = m.values
    report: dict[str, Any] = {
        "geosite_version": __version__,
        "jurisdiction": profile.id,
        "jurisdiction_name": profile.name,
        "site": _site_block(site, v),
        "units": {
            "length": f"ft ({site.foot})",
            "area": f"sq ft ({site.foot}) and acres (43,560 sq ft)",
            "volume": "cu yd",
            "slope": "percent",
        },
        "disturbed": {
            key: v.get(f"disturbed.{key}")
            for key in (
                "area_sqft",
                "area_acres",
                "max_at_one_time_sqft",
                "max_at_one_time_acres",
                "max_at_one_time_date",
                "max_at_one_time_phases",
                "outside_site_sqft",
            )
        },
        "applicability": _applicability_block(ev),
        "plan_type": ev.plan_type,
        "plan_type_reason": ev.plan_type_message,
        "findings": [f.to_dict() for f in ev.findings],
        "measurements": dict(sorted(v.items())),
        # why a measurement is None: what it could not be measured from
        "not_measured": dict(sorted(m.whys.items())),
        "inputs": _inputs_block(site, profile),
        "notes": list(site.notes),
        # implausible inputs (geosite.site.plausible)
        "input_warnings": [w.to_dict() for w in site.input_warnings],
    }
    if extra:
        report.update(extra)
    return report


def _site_block(site: Site, v: dict[str, Any]) -> dict[str, Any]:
    """report.json's ``site``: its name, folder, CRS and area."""
    return {
        "name": site.name,
        "folder": str(site.root) if site.root else None,
        "crs": site.crs.to_string(),
        "crs_name": site.crs.name,
        "area_sqft": v["site.area_sqft"],
        "area_acres": v["site.area_acres"],
    }


def _applicability_block(ev: Evaluation) -> dict[str, Any]:
    """report.json's ``applicability``: whether the chapter applies, by which triggers and exemptions."""
    return {
        "applies": ev.applies,
        "triggers": [t.to_dict() for t in ev.triggers],
        "exemptions": [t.to_dict() for t in ev.exemptions],
        # the scopes within the chapter (Grantsburg "b6": B(6)(a)-(e) only where runoff leaves the site)
        "scopes": {k: t.to_dict() for k, t in (ev.gate.scopes if ev.gate else {}).items()},
    }


def _inputs_block(site: Site, profile: Profile) -> dict[str, Any]:
    """report.json's ``inputs``: the layers, the DEM, the people and project, the profile file."""
    return {
        "layers_present": sorted(site.layers),
        "layers_missing": site.missing_layers,
        "dem": str(site.dem_path) if site.dem_path else None,
        "dem_vertical_unit": site.dem_vertical_unit.value if site.dem_vertical_unit else None,
        "applicant": vars(site.applicant),
        "maintainer": vars(site.maintainer),
        "project": {k: getattr(site.project, k) for k in site.project.__dataclass_fields__},
        "feature_names": feature_names(site.layers),
        "profile": {"file": profile.path, "sha256": profile.sha256},
    }


STATUS_MARK = {
    "fail": "FAIL",
    "pass": "pass",
    "info": "info",
    "not_assessed": "not assessed",
    "inspector_decision": "INSPECTOR'S DECISION",
}


def render_markdown(report: dict[str, Any]) -> str:
    """A human-readable report: summary, applicability, then findings grouped by section.

    Parameters
    ----------
    report : dict
        The content of report.json (:func:`build_report`).

    Returns
    -------
    str
        The text of report.md.
    """
    s = report["site"]
    names = report.get("inputs", {}).get("feature_names", {})
    lines = [
        f"# Erosion control analysis: {md(s['name'])}",
        "",
        f"Jurisdiction: **{md(report['jurisdiction_name'])}** (profile {md(report['jurisdiction'])})  ",
        f"CRS: {md(s['crs_name'])} ({md(s['crs'])}); lengths in {md(report['units']['length'])}  ",
        f"geosite {md(report['geosite_version'])}",
        "",
        "## Summary",
        "",
        "| quantity | value |",
        "| --- | --- |",
    ]
    lines += _summary_rows(report)
    lines += ["", "## Applicability", ""]
    for t in report["applicability"]["triggers"] + report["applicability"]["exemptions"]:
        mark = {True: "met", False: "not met", None: "not assessed"}[t["met"]]
        lines.append(f"- **{md(t['citation'])}** ({mark}): {md(t['message'])}")
    lines += ["", f"Plan type: {md(report['plan_type_reason'])}", "", "## Findings by section", ""]
    lines += _findings_by_section(report["findings"], names)
    if report.get("plan"):
        lines += plan_markdown(report["plan"])
    if report.get("quantities"):  # pay quantities, estimate and surety (geosite.plan.quantity_report)
        from geosite.plan.quantity_report import quantity_markdown

        lines += quantity_markdown(report["quantities"], escape=md)
    lines += _drainage(report, names) + _methods(report)
    if report.get("soil_loss"):  # NR 151.11, the state's standard (geosite.soil_loss)
        from geosite.soil_loss.report import soil_loss_markdown

        lines += soil_loss_markdown(report["soil_loss"])
    if report.get("notes"):
        lines += ["## Notes on the input", ""] + [f"- {md(n)}" for n in report["notes"]] + [""]
    return "\n".join(lines)


def _summary_rows(report: dict[str, Any]) -> list[str]:
    """The summary table's rows: the site and disturbed areas, the plan type, whether the chapter applies,
    the steep land and the steepest slopes.
    """
    s, d = report["site"], report["disturbed"]
    applies = report["applicability"]["applies"]
    lines = [
        f"| site area | {fmt(s['area_sqft'], 'sq ft')} ({_acres(s['area_acres'])}) |",
        f"| disturbed area | {fmt(d['area_sqft'], 'sq ft')} ({_acres(d['area_acres'])}) |",
        f"| largest area disturbed at one time | {fmt(d['max_at_one_time_sqft'], 'sq ft')} "
        f"({_acres(d['max_at_one_time_acres'])})"
        + (f" on {d['max_at_one_time_date']}" if d.get("max_at_one_time_date") else "")
        + " |",
        *(
            [
                f"| of it outside the site (counted: the activity is measured whole) | "
                f"{fmt(d['outside_site_sqft'], 'sq ft')} |"
            ]
            if d.get("outside_site_sqft")
            else []
        ),
        f"| plan type | {md(report['plan_type'] or 'not assessed')} |",
        f"| chapter applies | {fmt(applies) if applies is not None else 'not decided'} |",
    ]
    thr = report.get("measurements", {}).get("slopes.threshold_pct")
    steep = f"{thr:g} %" if isinstance(thr, int | float) else "the profile's steep slope"
    for key, label, unit in (
        ("slopes.steep_area_sqft", f"land on slopes of {steep} or more (site)", "sq ft"),
        (
            "slopes.steep_disturbed_area_sqft",
            f"disturbed land on slopes of {steep} or more (every cell, no minimum area)",
            "sq ft",
        ),
        (
            "slopes.steep_disturbed_mapped_area_sqft",
            "the same on the steep-slope map (patches and holes under the mapping unit dropped, filled)",
            "sq ft",
        ),
        ("slopes.max_disturbed_slope_pct", "steepest slope in the disturbed area", "%"),
        ("slopes.max_slope_pct", "steepest slope on the site", "%"),
    ):
        if key in report["measurements"]:
            lines.append(f"| {label} | {fmt(report['measurements'][key], unit)} |")
    return lines


def _findings_by_section(findings: list[dict[str, Any]], names: dict[str, dict[str, str]]) -> list[str]:
    """The findings under a heading per section (in the order the sections first appear), features named."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in findings:
        groups[f["section"] or "Not specified by this chapter"].append(f)
    lines: list[str] = []
    for section, items in groups.items():
        lines += [f"### {md(section)}", ""]
        for f in items:
            cite = f"**{md(f['citation'])}** " if f["citation"] else ""
            status = md(STATUS_MARK.get(f["status"], f["status"]))
            lines.append(f"- {cite}[{status}] {md(name_features(f['message'], names))}")
        lines.append("")
    return lines


def name_features(message: str, names: dict[str, dict[str, str]]) -> str:
    """``message`` with each feature it refers to by layer and id said by its name
    (:func:`geosite.rules.words.feature_words`): "18.0 ft from roads 1" -> "18.0 ft from Birch Street".
    """
    return feature_words(message, names)


def _drainage(report: dict[str, Any], names: dict[str, dict[str, str]]) -> list[str]:
    """Upslope drainage areas (A(1)(g), statement B(4)) and whether runoff leaves the site (B(6))."""
    m = report.get("measurements", {})
    out = ["## Drainage", ""]
    leaves = m.get("hydrology.runoff_leaves_site")
    how = (
        m.get("hydrology.runoff_leaves_site_how")
        or report.get("not_measured", {}).get("hydrology.runoff_leaves_site")
        or ""
    )
    out.append(
        "Runoff leaves the site: "
        + {True: "**yes**", False: "**no**", None: "not assessed"}[leaves]
        + (f" ({md(how)})." if how else ".")
    )
    up = m.get("hydrology.upslope")
    if isinstance(up, list) and up:
        dist = names.get("disturbance", {})
        out += [
            "",
            "Upslope drainage areas (land outside each disturbed area that drains onto it):",
            "",
            "| disturbed area | upslope area | sheetflow | channelized | mean slope | cover | sheet-flow "
            "velocity | diversion |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for d in up:
            did = str(d.get("disturbance_id"))
            who = md(f"{did} ({dist[did]})" if did in dist else did)
            v = d.get("velocity_fps")
            div = {True: "required", False: "not required", None: "not assessed"}.get(
                d.get("diversion_required"), ""
            )
            out.append(
                f"| {who} | {fmt(d.get('area_sqft'), 'sq ft')} ({_acres(d.get('area_acres'))}) | "
                f"{fmt(d.get('sheetflow_area_sqft'), 'sq ft')} | "
                f"{fmt(d.get('channelized_area_sqft'), 'sq ft')} | "
                f"{fmt(d.get('mean_slope_pct'), '%')} | "
                f"{md(str(d.get('land_cover') or '').replace('_', ' '))} | "
                + (f"{v:.2f} ft/s" if isinstance(v, (int, float)) else "not estimated")
                + f" | {div} |"
            )
    elif isinstance(up, list):
        out += ["", "No land outside the disturbed areas drains onto them."]
    return out + [""]


def _methods(report: dict[str, Any]) -> list[str]:
    """How each number was measured, from the methods the report records."""
    m = report.get("measurements", {})
    rows = [
        ("Slopes", report.get("slopes", {}).get("method")),
        ("Flow routing", report.get("flow_routing", {}).get("method")),
    ]
    up = m.get("hydrology.upslope")
    if isinstance(up, list) and up:
        rows.append(("Upslope areas", up[0].get("area_method")))
        rows += [
            (
                feature_words(
                    f"Sheet-flow velocity, disturbed area {d.get('disturbance_id')}",
                    report.get("inputs", {}).get("feature_names", {}),
                ),
                d.get("velocity_method"),
            )
            for d in up
        ]
    if "contours" in report:
        c = report["contours"]
        rows.append(
            (
                "Contours",
                f"every {c.get('interval_ft'):g} ft, every {c.get('index_every')}th an index contour"
                if isinstance(c.get("interval_ft"), (int, float))
                else None,
            )
        )
    rows = [(k, v) for k, v in rows if v]
    return (["## Methods", ""] + [f"- **{md(k)}**: {md(v)}" for k, v in rows] + [""]) if rows else []


def _acres(value: float | None) -> str:
    """An area in acres as the report prints it (three decimals), or "not assessed"."""
    return "not assessed" if value is None else f"{value:,.3f} acres"


def plan_block(plan: Any) -> dict[str, Any]:
    """The plan as report.json holds it: where its controls come from, its fingerprint (the one its sheets
    carry), each control (number, type, what, standard, name, phase, dates, quantity in its pay unit and its
    attributes) and the schedule's rows (:func:`geosite.plan.table.schedule`).

    Parameters
    ----------
    plan : geosite.plan.Plan
        The site's plan.

    Returns
    -------
    dict
        JSON-ready: ``source``, ``fingerprint``, ``controls``, ``schedule``, ``phases``.
    """
    from geosite.plan.table import schedule

    day = _day
    controls = [_control_row(plan, c) for c in plan.controls]
    rows = [
        {
            "tags": r.tags,
            "control": r.what,
            "standard": r.standard,
            "quantity": None if r.amount is None else round(r.amount, 2),
            "unit": r.unit,
            "install": day(r.install),
            "remove": day(r.remove),
        }
        for r in schedule(plan)
    ]
    phases = [
        {
            "phase": p.key,
            "start": day(p.start),
            "end": day(p.end),
            "stabilized": day(p.stabilized),
            "area_sqft": round(p.area_sqft, 1),
        }
        for p in plan.phases
    ]
    return {
        "source": plan.source,
        "fingerprint": plan.fingerprint(),
        "controls": controls,
        "schedule": rows,
        "phases": phases,
    }


def _day(d: Any) -> str | None:
    """A date as ISO text (None for none)."""
    return None if d is None else d.isoformat()


def _control_row(plan: Any, c: Any) -> dict[str, Any]:
    """One control of ``plan`` as report.json's ``plan.controls`` holds it."""
    q = plan.quantity(c)
    return {
        "id": c.id,
        "tag": c.tag,
        "type": c.practice,
        "status": c.status,
        "practice": c.what,
        "standard": c.standard,
        "name": c.name,
        "phase": c.phase,
        "install": _day(c.install),
        "remove": _day(c.remove),
        "quantity": None if q is None else round(q[0], 2),
        "unit": None if q is None else q[1],
        **dict(c.attrs),
    }


def _cell(v: Any) -> str:
    """A value as one markdown table cell: one line, every character Markdown or HTML acts on escaped (a
    submitted control's words are the applicant's: geosite.io.text.markdown).
    """
    return "" if v is None else md(" ".join(str(v).split()))


def plan_markdown(block: dict[str, Any]) -> list[str]:
    """The report.md section on the plan: its schedule of controls (see :func:`plan_block`)."""
    who = "proposed by geosite" if block["source"] == "proposed" else "as submitted (layer bmps)"
    lines = [
        "## The plan: controls and schedule",
        "",
        f"{len(block['controls'])} controls, {who}; plan {block['fingerprint']} (the sheets carry it). "
        "Quantities in pay units (LF, SY, AC, EA, CY); the tags (C1 ...) are the sheets'.",
        "",
        "| tags | control | standard | quantity | install | remove |",
        "| --- | --- | --- | ---: | --- | --- |",
    ]
    for r in block["schedule"]:
        qty = "" if r["quantity"] is None else f"{r['quantity']:,.2f} {r['unit']}".replace(".00 ", " ")
        lines.append(
            f"| {_cell(r['tags'])} | {_cell(r['control'])} | {_cell(r['standard'])} | {qty} | "
            f"{r['install'] or 'not given'} | {r['remove'] or 'not given'} |"
        )
    return [*lines, ""]
