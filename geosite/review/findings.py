"""Review findings: a :class:`~geosite.rules.engine.Finding` plus what was required, what was submitted,
what data would settle it, and the geometry of the problem (site CRS); and their outputs
(``findings.json``, ``findings.md``, the ``findings`` layer of ``findings.gpkg``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from shapely.geometry.base import BaseGeometry

from geosite.io.output import py_scalar

STATUSES = ("fail", "inspector_decision", "not_assessed", "info", "pass")  # report order (geosite.rules.STATUSES)


@dataclass
class ReviewFinding:
    """One finding of ``geosite check``.

    ``rule``, ``citation``, ``section``, ``status`` (pass, fail, info, not_assessed, inspector_decision) and ``message`` as in
    :class:`geosite.rules.engine.Finding`; ``requirement``: what the chapter requires; ``submitted``: what
    the submission shows; ``settle``: for ``not_assessed``, the data that would settle it; ``geometry``:
    where the problem is (site CRS; None when it has no place); ``layer``/``feature_ids``: the submitted
    features concerned; ``source``: ``analyze`` (a measurement rerun) or ``check``.
    """

    rule: str
    citation: str
    section: str
    status: str
    message: str
    requirement: str = ""
    submitted: str = ""
    settle: str = ""
    geometry: BaseGeometry | None = None
    layer: str | None = None
    feature_ids: list[Any] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)
    source: str = "check"
    id: str = ""

    def to_dict(self, with_geometry: bool = False) -> dict[str, Any]:
        d = {
            "id": self.id,
            "rule": self.rule,
            "citation": self.citation,
            "section": self.section,
            "status": self.status,
            "message": self.message,
            "requirement": self.requirement,
            "submitted": self.submitted,
            "settle": self.settle,
            "layer": self.layer,
            "feature_ids": [py_scalar(i) for i in self.feature_ids],
            "values": self.values,
            "source": self.source,
            "has_geometry": self.geometry is not None and not self.geometry.is_empty,
        }
        if with_geometry:
            d["geometry_wkt"] = self.geometry.wkt if d["has_geometry"] else None
        return d




def number(findings: list[ReviewFinding]) -> None:
    """Give each finding a stable id F1, F2, ... in report order (fails first within each section)."""
    for i, f in enumerate(findings, 1):
        f.id = f"F{i}"


def findings_frame(findings: list[ReviewFinding], crs: Any):
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


def render_markdown(summary: dict[str, Any], findings: list[ReviewFinding]) -> str:
    """findings.md: the verdict, the review deadline (when known), then findings grouped by section."""
    out = [f"# Plan check: {summary['site']}", ""]
    out.append(f"- Jurisdiction: {summary['jurisdiction_name']}")
    out.append(f"- Verdict: **{summary['verdict']}** ({summary['counts_text']})")
    if summary.get("plan_type_required"):
        out.append(f"- Plan required: {summary['plan_type_required']}; declared: {summary.get('plan_type_declared') or 'not declared'}")
    if summary.get("disturbed_area_sqft") is not None:
        out.append(f"- Disturbed area (measured): {summary['disturbed_area_sqft']:,.0f} sq ft ({summary['disturbed_area_acres']:.3f} acres)")
    dl = summary.get("review_deadline")
    if dl:
        out.append(f"- Review deadline: {dl}")
    elif summary.get("schedule_note"):
        out.append(f"- Review deadline: {summary['schedule_note']}")
    out.append("")
    failed = [f for f in findings if f.status == "fail"]
    if failed:
        # what the inspector writes to the applicant about: first, each with its section
        out += ["## What fails", ""]
        out += [f"{k}. {f.section} {f.citation} ({f.id}): {f.message}".replace("  ", " ") for k, f in enumerate(failed, 1)]
        out.append("")
    decide = [f for f in findings if f.status == "inspector_decision"]
    if decide:  # neither a pass nor a fail: the chapter leaves these to the Building Inspector
        out += ["## For the inspector's decision", ""]
        out += [f"{k}. {f.section} {f.citation} ({f.id}): {f.message}".replace("  ", " ") for k, f in enumerate(decide, 1)]
        out.append("")
    groups: dict[str, list[ReviewFinding]] = defaultdict(list)
    for f in findings:
        groups[f.section or "General"].append(f)
    for section, items in groups.items():
        out += [f"## {section}", ""]
        for f in items:
            cite = f" {f.citation}" if f.citation else ""
            out.append(f"- **{f.status.upper()}**{cite} ({f.id}, `{f.rule}`): {f.message}")
            if f.requirement:
                out.append(f"  - Required: {f.requirement}")
            if f.submitted:
                out.append(f"  - Submitted: {f.submitted}")
            if f.settle:
                out.append(f"  - To settle it: {f.settle}")
            if f.geometry is not None and not f.geometry.is_empty:
                c = f.geometry.centroid
                out.append(f"  - Where: {f.geometry.geom_type} near ({c.x:,.1f}, {c.y:,.1f}) in the site CRS; layer `findings`, finding_id {f.id}")
        out.append("")
    return "\n".join(out)
