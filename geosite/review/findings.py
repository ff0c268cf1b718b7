"""Review findings: a :class:`~geosite.rules.engine.Finding` plus what was required, what was submitted,
what data would settle it, and the geometry of the problem (site CRS); and their outputs
(``findings.json``, ``findings.md``, the ``findings`` layer of ``findings.gpkg``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from geosite.io.output import py_scalar
from geosite.io.text import markdown
from geosite.rules import Finding

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

#: the statuses of geosite.rules.STATUSES, in the order a report lists them (fails first)
STATUSES = ("fail", "inspector_decision", "not_assessed", "info", "pass")


#: a finding of ``geosite check``: the one finding class, :class:`geosite.rules.Finding` (kept under this name
#: for the review's readers)
ReviewFinding = Finding


def number(findings: list[ReviewFinding]) -> None:
    """Give each finding a stable id F1, F2, ... in report order (fails first within each section)."""
    for i, f in enumerate(findings, 1):
        f.id = f"F{i}"


def findings_frame(findings: list[ReviewFinding], crs: Any) -> gpd.GeoDataFrame:
    """The findings that have a place, as a GeoDataFrame (site CRS) for findings.gpkg."""
    import geopandas as gpd

    rows = [f for f in findings if f.geometry is not None and not f.geometry.is_empty]
    return gpd.GeoDataFrame(
        {
            "finding_id": [f.id for f in rows],
            "rule": [f.rule for f in rows],
            "citation": [f.citation for f in rows],
            "section": [f.section for f in rows],
            "status": [f.status for f in rows],
            "message": [f.message for f in rows],
            "layer": [f.layer or "" for f in rows],
            "feature_ids": [", ".join(str(py_scalar(i)) for i in f.feature_ids) for f in rows],
        },
        geometry=[f.geometry for f in rows],
        crs=crs,
    )


def where_text(geom: BaseGeometry, crs: Any) -> str:
    """Where a finding is, for a person: a point on its geometry as easting and northing in the site
    CRS, ``E 153433, N 151981 (US ft)`` (:func:`geosite.units.coordinates`).
    """
    from geosite.units import coordinates

    p = geom.representative_point()
    return coordinates(p.x, p.y, crs)


def md(text: Any) -> str:
    """A text as literal Markdown (:func:`geosite.io.text.markdown`): one line, every character that could
    make emphasis, a link, code, a table, an entity or HTML backslash-escaped. Every text of findings.md goes
    through here: much of it comes from the submission (names, ids, declared texts).
    """
    return markdown(text)


def _summary_lines(summary: dict[str, Any]) -> list[str]:
    """findings.md's head: the site, jurisdiction, profile, verdict, plan type, area and review deadline."""
    out = [f"# Plan check: {md(summary['site'])}", ""]
    out.append(f"- Jurisdiction: {md(summary['jurisdiction_name'])}")
    out.append(
        f"- Verdict: **{md(summary['verdict'].replace('_', ' '))}** ({md(summary['counts_text'])})"
        + (
            f": {len(summary['to_settle'])} requirement(s) that apply could not be assessed (below, with "
            "what would settle each)"
            if summary["verdict"] == "incomplete" and summary.get("to_settle")
            else ""
        )
    )
    if summary.get("plan_type_required"):
        out.append(
            f"- Plan required: {md(summary['plan_type_required'])}; declared: "
            f"{md(summary.get('plan_type_declared') or 'not declared')}"
        )
    if summary.get("disturbed_area_sqft") is not None:
        out.append(
            f"- Disturbed area (measured): {summary['disturbed_area_sqft']:,.0f} sq ft "
            f"({summary['disturbed_area_acres']:.3f} acres)"
        )
    dl = summary.get("review_deadline")
    if dl:
        out.append(f"- Review deadline: {md(dl)}")
    elif summary.get("schedule_note"):
        out.append(f"- Review deadline: {md(summary['schedule_note'])}")
    return out


def _top_lists(summary: dict[str, Any], findings: list[ReviewFinding]) -> list[str]:
    """findings.md's lists under its head: what fails (what the inspector writes to the applicant about),
    what is left to the inspector's decision, and where the verdict is incomplete what could not be
    assessed, with what would settle each.
    """

    def listed(title: str, items: list[ReviewFinding], settle: bool = False) -> list[str]:
        """One numbered list under its heading (none where it has no items)."""
        rows = [
            f"{k}. {md(f.section)} {md(f.citation)} ({md(f.id)}): {md(f.message)}".replace("  ", " ")
            + (f" To settle it: {md(f.settle or 'the data named in the finding')}" if settle else "")
            for k, f in enumerate(items, 1)
        ]
        return [f"## {title}", "", *rows, ""] if items else []

    open_ids = {t["finding"] for t in summary.get("to_settle") or []}
    open_ = [f for f in findings if f.id in open_ids]  # the verdict cannot pass while one is open
    return (
        listed("What fails", [f for f in findings if f.status == "fail"])
        + listed("For the inspector's decision", [f for f in findings if f.status == "inspector_decision"])
        + listed(
            "What could not be assessed (the plan is incomplete until each is settled)", open_, settle=True
        )
    )


def render_markdown(summary: dict[str, Any], findings: list[ReviewFinding]) -> str:
    """The text of findings.md: the verdict, the review deadline (when known), then findings grouped by
    section. Every text is escaped (:func:`md`).
    """
    out = [*_summary_lines(summary), "", *_top_lists(summary, findings)]
    groups: dict[str, list[ReviewFinding]] = defaultdict(list)
    for f in findings:
        groups[f.section or "General"].append(f)
    for section, items in groups.items():
        out += [f"## {md(section)}", ""]
        for f in items:
            out += finding_lines(f, summary["crs"])
        out.append("")
    return "\n".join(out + _appendix_lines(summary))


def finding_lines(f: ReviewFinding, crs: Any) -> list[str]:
    """One finding as findings.md lists it: status, citation, id and message, then what was required,
    submitted, what would settle it and where (``crs``: the site's, for the place).
    """
    cite = f" {md(f.citation)}" if f.citation else ""
    out = [f"- **{md(f.status.replace('_', ' ').upper())}**{cite} ({md(f.id)}): {md(f.message)}"]
    if f.requirement:
        out.append(f"  - Required: {md(f.requirement)}")
    if f.submitted:
        out.append(f"  - Submitted: {md(f.submitted)}")
    if f.settle:
        out.append(f"  - To settle it: {md(f.settle)}")
    if f.geometry is not None and not f.geometry.is_empty:
        out.append(
            f"  - Where: {md(where_text(f.geometry, crs))} (drawn in findings.gpkg as finding {md(f.id)})"
        )
    return out


def _appendix_lines(summary: dict[str, Any]) -> list[str]:
    """findings.md's last section: the profile and the files read, with their SHA-256."""
    out = []
    if summary.get("profile_file"):
        out.append(f"- Profile: {md(summary['profile_file'])} (sha256 {md(summary.get('profile_sha256'))})")
    if summary.get("isolation"):
        out.append(f"- {md(summary['isolation'])}")
    return ["## Appendix: the rulebook and the files read", "", *out, ""] if out else []
