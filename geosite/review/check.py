"""``check_submission``: review a submitted plan (a site folder plus its ``[declared]`` table) section by
section: what is required, what was submitted, and pass, fail or not assessable (with the data that
would settle it).

It reruns every measurement (:func:`geosite.pipeline.analyze`) and keeps its findings, each with the
geometry of its problem (the missing fence stretches, the line from a stockpile to the creek it is too
close to, the unprotected inlet...), then adds:

- the plan type submitted against the one required (a plan statement where a full plan is required
  fails, citing the plan section of the full plan);
- the completeness of the plan for its type (:mod:`geosite.review.completeness`);
- the declared disturbed area against the measured one (tolerance from the profile's ``[submission]``);
- slopes of 12 % or more in the disturbed area (B(6)(d)): **info**, because the chapter leaves the extra
  controls to the Building Inspector ("may require ... as specified by the Building Inspector"): there is
  no standard a plan could fail; the finding shows where the steep ground is and what controls the
  plan declares or draws there, for the inspector's decision;
- the permit conditions the chapter sets on approval (the surety bond of D(2): Grantsburg "shall",
  Belgium "may"; Grantsburg C(3): no building permit without this permit), as information;
- the submitted geometry (:mod:`geosite.review.geometry`).

(The submitted sediment basins and diversions are checked by the controls stage of ``analyze``, beside
the fences, inlets and pads.) Every finding about the chapter's requirements passes through the site's
gate (:class:`geosite.rules.Gate`): where the chapter does not apply nothing fails, where that is not
decided a would-be failure is not assessed. The submitted geometry's own problems (slivers, layers off
the site) are about the data, not the chapter, and are reported whatever the gate says.

The verdict: ``fail`` when any finding fails (CLI exit 1); else ``incomplete`` when a requirement that
applies (or may) could not be assessed (exit 0: nothing fails, but the plan cannot pass; ``to_settle`` lists
the data that would settle each); else ``inspector_decision`` when some finding is left to the official
(exit 0); else ``pass`` (exit 0).
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import shapely

from geosite.plan.quantity_report import quantity_report
from geosite.review.completeness import check_completeness, item_citation_for_layer
from geosite.review.declared import Declared, read_declared
from geosite.review.drawn import maps_agree
from geosite.review.estimate import estimate_findings, read_estimate
from geosite.review.findings import STATUSES, ReviewFinding, findings_frame, md, number, render_markdown
from geosite.review.geometry import SECTION as GEOMETRY_SECTION
from geosite.review.geometry import check_geometry, read_raw_layers
from geosite.review.state_standard import state_findings, state_markdown
from geosite.rules.words import control_labels, for_people, merged_names
from geosite.units import SQFT_PER_ACRE
from geosite.views.layers import derived_styles, findings_context

if TYPE_CHECKING:
    from geosite.io.limits import Limits
    from geosite.pipeline import AnalysisResult
    from geosite.rules import Profile
    from geosite.rules.model import PlanType as PlanTypeRule
    from geosite.site import Site

log = logging.getLogger(__name__)
Step = Callable[[str], None]


#: geosite's comparisons of what a plan declares with what it measures: not the chapter's requirements, so a
#: declaration left out leaves them not assessed without leaving the plan incomplete (the plan type is checked
#: against the list its size requires either way)
CROSS_CHECKS = frozenset(
    {"declared_disturbed_area", "plan_type_submitted", "declared_cut_fill", "declared_quantities"}
)


@dataclass
class CheckResult:
    """What ``check_submission`` found: the findings (numbered F1...), the analysis it reran, what was
    declared, and the review schedule (None, with ``schedule_note`` saying why, when it could not be
    built).
    """

    site: Site
    analysis: AnalysisResult
    declared: Declared
    findings: list[ReviewFinding]
    plan_type_required: str | None
    plan_type_checked: str
    schedule: dict[str, Any] | None = None
    schedule_note: str | None = None
    received: dt.date | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: the unit prices the inspector gives (geosite.plan.PriceTable): the submitted quantities' estimate
    prices: Any = None
    #: the findings under the state's standard (S1, S2 ...: geosite.review.state_standard), beside the
    #: chapter's and not in its verdict
    state: list[ReviewFinding] = field(default_factory=list)

    @property
    def quantities(self) -> Any:
        """The submitted plan's quantities, estimate (at :attr:`prices`, else the profile's) and surety
        (:class:`geosite.plan.quantity_report.QuantityReport`).
        """

        return quantity_report(self.analysis.plan, self.prices)

    @property
    def failed(self) -> list[ReviewFinding]:
        """The findings that fail (status ``fail``)."""
        return [f for f in self.findings if f.status == "fail"]

    @property
    def decisions(self) -> list[ReviewFinding]:
        """The findings the chapter leaves to the Building Inspector (status ``inspector_decision``)."""
        return [f for f in self.findings if f.status == "inspector_decision"]

    @property
    def open_questions(self) -> list[ReviewFinding]:
        """Findings not assessed where the chapter applies or may: a requirement the plan's data cannot settle
        (none where the chapter does not apply: nothing is required there).
        """
        if self.analysis.evaluation.applies is False:
            return []
        return [f for f in self.findings if f.status == "not_assessed" and f.rule not in CROSS_CHECKS]

    @property
    def verdict(self) -> str:
        """``fail`` (a finding fails), ``incomplete`` (nothing fails, but a requirement that applies, or may,
        could not be assessed: never a pass), ``inspector_decision`` or ``pass``.
        """
        if self.failed:
            return "fail"
        if self.open_questions:
            return "incomplete"
        return "inspector_decision" if self.decisions else "pass"

    @property
    def exit_code(self) -> int:
        """The CLI's exit code: 1 when a finding fails, else 0."""
        return 1 if self.failed else 0

    def summary(self) -> dict[str, Any]:
        """The check at a glance (findings.json's head, findings.md's, the CLI's lines): the site, the
        jurisdiction and profile, the verdict, the findings counted by status, the plan types, the disturbed
        area, the review deadline and what would settle each open question.

        Returns
        -------
        dict
            JSON-ready keys and values.
        """
        counts: dict[str, int] = {}
        for f in self.findings:
            counts[f.status] = counts.get(f.status, 0) + 1
        r = self.analysis.report
        deadline = None
        if self.schedule:
            deadline = _find_deadline(self.schedule)
        return {
            "site": self.site.name,
            "folder": str(self.site.root) if self.site.root else None,
            "jurisdiction": r["jurisdiction"],
            "jurisdiction_name": r["jurisdiction_name"],
            "profile_file": self.analysis.profile.path,
            "profile_sha256": self.analysis.profile.sha256,
            "crs": self.site.crs.to_string(),
            "verdict": self.verdict,
            "counts": counts,
            "counts_text": ", ".join(f"{counts[s]} {s.replace('_', ' ')}" for s in STATUSES if s in counts),
            "plan_type_required": self.plan_type_required,
            "plan_type_declared": self.declared.plan_type,
            "plan_type_checked": self.plan_type_checked,
            "chapter_applies": r["applicability"]["applies"],
            "disturbed_area_sqft": r["disturbed"]["area_sqft"],
            "disturbed_area_acres": r["disturbed"]["area_acres"],
            "received": self.received.isoformat() if self.received else None,
            "review_deadline": deadline,
            "schedule_note": self.schedule_note,
            "to_settle": [
                {
                    "finding": f.id,
                    "rule": f.rule,
                    "citation": f.citation,
                    "settle": f.settle or "the data named in the finding",
                }
                for f in self.open_questions
            ],
            **({"isolation": self.extra["isolation"]} if "isolation" in self.extra else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        """The whole check as JSON-ready data (findings.json): the summary, the declarations, every finding,
        the schedule and the site's notes.

        Returns
        -------
        dict
            JSON-ready keys and values.
        """
        return {
            **self.summary(),
            "declared": self.declared.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
            "schedule": self.schedule,
            "quantities": self.quantities.to_dict(),
            "state_standard": {
                "findings": [f.to_dict() for f in self.state],
                "soil_loss": self.analysis.report.get("soil_loss"),
            },
            "notes": list(self.site.notes),
            **({"sandbox": self.extra["sandbox"]} if "sandbox" in self.extra else {}),
        }


def _find_deadline(sched: dict[str, Any]) -> str | None:
    """The first review deadline among the schedule's dated entries (``Schedule.to_dict()["deadlines"]``)."""
    for d in sched.get("deadlines") or []:
        if isinstance(d, dict) and d.get("kind") == "review" and d.get("date"):
            return (
                f"{d['date']} ({d.get('what', 'review')}; {d.get('rule', '')}; {d.get('citation', '')})"
            ).replace("; )", ")")
    return None


# --------------------------------------------------------------------------------------------- entry point


def check_submission(
    folder: str | Path,
    *,
    jurisdiction: str | None = None,
    dem: str | Path | None = None,
    dem_vertical_unit: str | None = None,
    received: dt.date | None = None,
    make_valid: bool = False,
    step: Step | None = None,
    limits: Limits | None = None,
    prices: Any = None,
) -> CheckResult:
    """Check the submission in ``folder``. Raises :class:`geosite.errors.InputError` on bad input.

    ``jurisdiction`` is the inspector's (a profile name or file); site.toml's may only name an installed
    profile. ``limits``: :class:`geosite.io.limits.Limits` for reading the submission. ``prices``: the
    inspector's unit prices (:func:`geosite.plan.read_prices`) for the submitted quantities' estimate.
    """
    from geosite.pipeline import analyze
    from geosite.site import load_site

    step = step or (lambda name: log.info(name))
    step("reading the declarations")
    declared, conf = read_declared(folder, limits)
    submitted_estimate = read_estimate(folder, conf, limits)
    step("loading and validating the submission")
    site = load_site(
        folder,
        jurisdiction=jurisdiction,
        dem=dem,
        dem_vertical_unit=dem_vertical_unit,
        make_valid=make_valid,
        **_submission_rules(limits),
    )
    raw = read_raw_layers(site, conf)
    # the plan under review is the submission's own controls: its quantities and its soil loss are theirs
    result = analyze(site, step=step, plan_source="submitted")
    prof = result.profile
    step("checking the plan against the chapter")

    required = result.evaluation.plan_type
    checked = _plan_type_to_check(required, declared.plan_type)
    dem_submitted = dem is None and bool((conf.get("dem") or {}).get("path"))
    findings = _plan_findings(result, declared, checked, dem_submitted=dem_submitted)
    measured = result.quantities.quantities.submitted  # what the submitted layers measure
    findings += _gated(result, estimate_findings(result.plan, measured, submitted_estimate))
    reviewed = _steep_slopes(result, declared)
    cites = {lname: item_citation_for_layer(prof, checked, lname) for lname in site.layers}
    reviewed += check_geometry(site, prof, raw, conf.get("crs"), cites)
    for f in findings + reviewed:
        f.source = "check"
    findings += [_from_analysis(f) for f in result.findings]  # already judged under the gate
    findings += reviewed
    # every finding said for a person: features by their names ("inlet(s) 2" -> "storm drain inlet CB-2",
    # "bmps 4 (silt_fence)" -> "silt fence C4"), parameters by value and name
    for_people(
        findings, prof, merged_names(control_labels(result.plan), result.report["inputs"]["feature_names"])
    )
    findings = _order(findings, prof)
    number(findings)

    schedule, note = _schedule(site, prof, received)
    out = CheckResult(site, result, declared, findings, required, checked, schedule, note, received)
    out.prices = prices
    out.state = state_findings(result, declared)  # NR 151.11, beside the chapter's verdict
    return out


def _plan_findings(
    result: AnalysisResult, declared: Declared, checked: str, *, dem_submitted: bool
) -> list[ReviewFinding]:
    """The review of the plan itself, under the site's gate (only where the chapter applies): its type, its
    completeness for the type ``checked``, the declared area and volume, the permit conditions.
    """
    site, prof = result.site, result.profile
    findings: list[ReviewFinding] = []
    findings += _plan_type(result, declared, result.evaluation.plan_type)
    findings += check_completeness(site, prof, declared, checked, dem_submitted)
    findings += _declared_area(result, declared, checked)
    findings += _declared_volume(result)
    findings += _permit_conditions(result, declared)
    findings += maps_agree(result.plan, prof, checked)
    gate = result.evaluation.gate
    assert gate is not None  # the pipeline's evaluation carries the gate it judged under
    for f in findings:
        gate.apply(f)  # the plan's content and type: only where the chapter applies
    return findings


def _gated(result: AnalysisResult, findings: list[ReviewFinding]) -> list[ReviewFinding]:
    """``findings`` through the site's gate (only where the chapter applies)."""
    gate = result.evaluation.gate
    assert gate is not None  # the pipeline's evaluation carries the gate it judged under
    for f in findings:
        gate.apply(f)
    return findings


def _submission_rules(limits: Limits | None = None) -> dict[str, Any]:
    """How a submission is loaded: its files inside its folder, its rulebook an installed profile unless
    the inspector names another (docs/security.md).
    """
    return {"allow_outside": False, "installed_profile_only": True, "limits": limits}


def _plan_type_to_check(required: str | None, declared: str | None) -> str:
    if required == "both":
        return declared or "full"
    if required in ("full", "statement"):
        return required
    return declared or "full"


def _schedule(
    site: Site, profile: Profile, received: dt.date | None
) -> tuple[dict[str, Any] | None, str | None]:
    from geosite.schedule import build_schedule

    try:
        sched = build_schedule(site, profile, received=received)
    except Exception as exc:  # a schedule error must not sink the check
        log.warning("schedule: %s", exc)
        return None, f"not computed ({exc})"
    return sched.to_dict(), None


_SECTION_ORDER = ("plan", "requirements", "applicability")


def _order(findings: list[ReviewFinding], profile: Profile) -> list[ReviewFinding]:
    """Sections in chapter order (plan, requirements, ...), submitted geometry last; fails first in each."""
    names = [profile.section_name(k) for k in _SECTION_ORDER]

    def _key(f: ReviewFinding) -> tuple[int, int]:
        s = f.section
        sec = names.index(s) if s in names else (len(names) + 1 if s == GEOMETRY_SECTION else len(names))
        return (sec, STATUSES.index(f.status) if f.status in STATUSES else 9)

    return sorted(findings, key=_key)


# --------------------------------------------------------------------------------------------- checks


def _disturbed(result: AnalysisResult) -> Any:
    d = result.layers.get("disturbed_area")
    return shapely.union_all(d.geometry.values) if d is not None and len(d) else None


#: the plan types as a finding names them
_PLAN_NAMES = {"full": "a full erosion control plan", "statement": "an erosion control plan statement"}

#: the plan a disturbed area requires, as a finding says it
_REQUIRED_TEXT = {
    "full": _PLAN_NAMES["full"],
    "statement": _PLAN_NAMES["statement"],
    "both": "a full plan or a plan statement (exactly at the limit)",
}


@dataclass(frozen=True)
class _PlanTypeCheck:
    """What the plan-type finding is judged from: the profile's ``[plan_type]`` table, the section its
    findings go under, the measured disturbed area (acres, None without a disturbance layer) and the plan
    type declared (None when not declared).
    """

    table: PlanTypeRule | None
    section: str
    acres: float | None
    declared: str | None

    def finding(self, status: str, message: str, citation: str, **kw: Any) -> ReviewFinding:
        """A ``plan_type_submitted`` finding in this check's section."""
        return ReviewFinding("plan_type_submitted", citation, self.section, status, message, **kw)

    def citation(self, required: str) -> str:
        """The citation of the plan ``required`` ("full", "statement" or "both": the two)."""
        full = self.table.full if self.table else None
        statement = self.table.statement if self.table else None
        if required == "both":
            return f"{full.citation if full else ''}, {statement.citation if statement else ''}"
        rule = full if required == "full" else statement
        return rule.citation if rule else ""


def _plan_type(result: AnalysisResult, declared: Declared, required: str | None) -> list[ReviewFinding]:
    """The plan type submitted against the one the disturbed area requires (a statement where a full plan
    is required fails).
    """
    prof = result.profile
    pt = prof.plan_type
    check = _PlanTypeCheck(
        table=pt,
        section=prof.section_name(pt.section if pt and pt.section else "plan"),
        acres=result.report["disturbed"]["area_acres"],
        declared=declared.plan_type,
    )
    if required is None:
        return [_plan_type_untold(check, result.evaluation.plan_type_message)]
    if check.declared is None:
        return [_plan_type_undeclared(check, required)]
    if required == "full" and check.declared == "statement":
        return [_statement_for_full_plan(check, _disturbed(result))]
    got = check.declared
    msg = (
        f"{_PLAN_NAMES[got][:1].upper()}{_PLAN_NAMES[got][1:]} submitted; {check.acres:,.2f} acres disturbed "
        f"requires {_REQUIRED_TEXT[required]}"
        + (
            " (a full plan covers everything a statement asks)."
            if required == "statement" and got == "full"
            else "."
        )
    )
    return [
        check.finding(
            "pass",
            msg,
            check.citation(required),
            requirement=_REQUIRED_TEXT[required],
            submitted=_PLAN_NAMES[got],
        )
    ]


def _plan_type_untold(check: _PlanTypeCheck, why: str) -> ReviewFinding:
    """Not assessed: the plan type required cannot be told (``why``: the evaluation's reason)."""
    return check.finding(
        "not_assessed",
        f"The plan type required cannot be told ({why[:1].lower()}{why[1:]}).",
        "",
        settle="a disturbance layer"
        if check.acres is None
        else "the chapter's plan-type thresholds in the profile",
        submitted=_PLAN_NAMES.get(check.declared or "", "not declared"),
    )


def _plan_type_undeclared(check: _PlanTypeCheck, required: str) -> ReviewFinding:
    """Not assessed: the submission does not declare its plan type (its content is checked against the list
    of the plan required).
    """
    req_text = _REQUIRED_TEXT[required]
    return check.finding(
        "not_assessed",
        f"{check.acres:,.2f} acres disturbed: {req_text} is required; the submission does not declare its "
        "plan type "
        f"(checked against the {'full plan' if required != 'statement' else 'plan statement'} list).",
        check.citation(required),
        requirement=req_text,
        submitted="not declared",
        settle='[declared] plan_type = "full" or "statement" in site.toml',
    )


def _statement_for_full_plan(check: _PlanTypeCheck, disturbed: Any) -> ReviewFinding:
    """Fail: a plan statement submitted where the disturbed area requires a full plan (``disturbed``: the
    disturbed area's geometry, where the finding is).
    """
    full = check.table.full if check.table else None
    cite = full.citation if full else ""
    return check.finding(
        "fail",
        f"A plan statement was submitted for {check.acres:,.2f} acres disturbed: {cite} requires "
        f"{_PLAN_NAMES['full']} for {(full.text if full else 'its size').split(':')[0]}.",
        cite,
        requirement=_PLAN_NAMES["full"],
        submitted=_PLAN_NAMES["statement"],
        geometry=disturbed,
        layer="disturbance",
        values={"disturbed_area_acres": check.acres, "declared": "statement", "required": "full"},
    )


def _declared_area(result: AnalysisResult, declared: Declared, plan_type: str) -> list[ReviewFinding]:
    """The declared disturbed area against the measured one, within the profile's
    ``declared_area_tolerance_pct``; not assessed when either is missing.
    """
    prof = result.profile
    tol = float(prof.required("submission", "declared_area_tolerance_pct"))
    rule = None if prof.plan_type is None else getattr(prof.plan_type, plan_type, None)
    cite = item_citation_for_layer(prof, plan_type, "disturbance") or (rule.citation if rule else "")
    finding = functools.partial(
        ReviewFinding,
        "declared_disturbed_area",
        cite,
        prof.section_name(prof.plan_content.section),
        requirement=f"the declared disturbed area within {tol:g} % of the area of the disturbance polygons",
    )
    measured = result.report["disturbed"]["area_sqft"]
    decl = declared.disturbed_area_sqft
    if decl is None:
        return [
            finding(
                "not_assessed",
                "The submission declares no disturbed area to compare with the measured one"
                + (f" ({measured:,.0f} sq ft)." if measured is not None else "."),
                settle="[declared] disturbed_area_sqft (or disturbed_area_acres) in site.toml",
            )
        ]
    if measured is None:
        return [
            finding(
                "not_assessed",
                "No disturbance layer: the declared disturbed area cannot be checked.",
                settle="a disturbance layer",
            )
        ]
    diff_pct = (decl - measured) / measured * 100.0 if measured > 0 else float("inf")
    ok = abs(diff_pct) <= tol + 1e-9
    return [
        finding(
            "pass" if ok else "fail",
            _area_message(decl, measured, diff_pct, tol),
            submitted=f"{decl:,.0f} sq ft declared",
            values={
                "declared_sqft": decl,
                "measured_sqft": measured,
                "difference_pct": diff_pct,
                "tolerance_pct": tol,
            },
            geometry=None if ok else _disturbed(result),
            layer="disturbance",
        )
    ]


def _area_message(decl: float, measured: float, diff_pct: float, tol: float) -> str:
    """The declared disturbed area (sq ft) beside the measured one (sq ft), their difference (percent) and
    whether it is within the tolerance (percent).
    """
    ok = abs(diff_pct) <= tol + 1e-9
    return (
        f"Declared disturbed area {decl:,.0f} sq ft ({decl / SQFT_PER_ACRE:,.2f} acres); measured "
        f"{measured:,.0f} sq ft "
        f"({measured / SQFT_PER_ACRE:,.2f} acres): {diff_pct:+.1f} %"
        + (f", within {tol:g} %." if ok else f", more than the {tol:g} % tolerance.")
    )


def _declared_volume(result: AnalysisResult) -> list[ReviewFinding]:
    """A(4)-style: where a proposed-grade DEM gives a measured cut + fill beside the declared one, the larger
    decides (analyze); a declared volume under the measured one by more than the profile's
    ``declared_volume_tolerance_pct`` fails (the plan understates its earthwork), over it is information.
    """
    prof = result.profile
    ew = result.report.get("earthwork") or {}
    declared, measured = ew.get("declared_cut_fill_cy"), ew.get("cut_fill_cy")
    tol = prof.value("submission", "declared_volume_tolerance_pct")
    trig = next((t for t in prof.applicability.triggers if t.measure == "project.cut_fill_cy"), None)
    if declared is None or measured is None or tol is None or trig is None:
        return []
    diff = (float(declared) - measured) / measured * 100.0 if measured > 0 else float("inf")
    status = "fail" if diff < -float(tol) - 1e-9 else "pass" if abs(diff) <= float(tol) + 1e-9 else "info"
    msg = (
        f"Declared cut + fill {float(declared):,.0f} cu yd; measured from the proposed grade {measured:,.0f} "
        f"cu yd ({diff:+.1f} %): "
        + ("within" if status == "pass" else "more than")
        + f" {float(tol):g} %. The larger, {max(float(declared), measured):,.0f} cu yd, "
        f"decides {trig.citation} (the reading geosite adopts: the larger of the declared and the "
        "measured volume decides)."
    )
    return [
        ReviewFinding(
            "declared_cut_fill",
            trig.citation,
            prof.section_name(prof.applicability.section),
            status,
            msg,
            requirement=f"the declared cut + fill within {float(tol):g} % of the measured one",
            values={"declared_cy": float(declared), "measured_cy": measured, "difference_pct": diff},
        )
    ]


def _union(gdf: gpd.GeoDataFrame | None, mask: Any = None) -> Any:
    if gdf is None or not len(gdf):
        return None
    g = gdf if mask is None else gdf[mask]
    return shapely.union_all(g.geometry.values) if len(g) else None


def _from_analysis(f: Any) -> ReviewFinding:
    """An analyze finding as the review lists it: born whole where it was found (its requirement's words, the
    submitted value, its place and what would settle it), so nothing is added here.
    """
    f.source = "analyze"
    return f


def _steep_geometry(result: AnalysisResult) -> Any:
    steep = result.layers.get("steep_slopes")
    dist = _disturbed(result)
    if steep is None or not len(steep) or dist is None:
        return None
    thr = float(result.profile.required("terrain", "steep_slope_pct"))
    mask = steep["min_slope_pct"] >= thr - 1e-9 if "min_slope_pct" in steep.columns else None
    g = _union(steep, mask)
    return None if g is None else shapely.intersection(g, dist)


def _steep_slopes(result: AnalysisResult, declared: Declared) -> list[ReviewFinding]:
    """Information for the inspector: the disturbed land on steep slopes and the controls the plan declares
    or draws there (the chapter leaves them to the official: no standard a plan could fail).
    """
    prof = result.profile
    q = prof.requirement("steep_slope_controls")
    if q is None:
        return []  # not specified by this chapter (the analyze finding says so)
    section = prof.section_name(q.section)
    gate = result.evaluation.gate
    assert gate is not None  # the pipeline's evaluation carries the gate it judged under

    def _finding(status: str, message: str, **kw: Any) -> list[ReviewFinding]:
        f = ReviewFinding(
            "steep_slope_controls_submitted",
            q.citation,
            section,
            status,
            message,
            requirement=q.requires,
            **kw,
        )
        return [gate.apply(f, q.gate)]

    area = (
        result.report.get("slopes", {}).get("steep_disturbed_area_sqft")
        if isinstance(result.report.get("slopes"), dict)
        else None
    )
    thr = float(prof.required("terrain", "steep_slope_pct"))
    if area is None:
        why = result.measurements.values.get("slopes.steep_disturbed_area_sqft.why", "no DEM")
        return _finding(
            "not_assessed",
            f"Slopes of {thr:g} % or more in the disturbed area: not assessed ({why}).",
            settle="a DEM covering the disturbed area",
        )
    if area <= 0:
        return _finding(
            "pass", f"No disturbed land on slopes of {thr:g} % or more: no additional controls to consider."
        )
    geom = _steep_geometry(result)
    drawn = _bmps_drawn_on(result.site, geom)
    said = declared.steep_slope_controls
    what = (f"declared: {said}" if said else "nothing declared") + (
        f"; drawn there: {', '.join(drawn)}" if drawn else "; no BMP drawn on them"
    )
    return _finding(
        "info",
        f"{area:,.0f} sq ft of the disturbed area is on slopes of {thr:g} % or more ({what}). "
        f"{q.citation} says such sites "
        f"'may require additional or different controls', as the {prof.official} specifies: the "
        "chapter sets no standard "
        "a plan could fail, so this is a flag for the inspector.",
        submitted=what,
        geometry=geom,
        values={"steep_disturbed_area_sqft": area},
        settle="" if said else "[declared] steep_slope_controls describing the controls on the steep ground",
    )


def _bmps_drawn_on(site: Site, geom: Any) -> list[str]:
    """The types of the submitted BMPs drawn on ``geom`` (the steep disturbed land), sorted."""
    bmps = site.layer("bmps")
    if bmps is None or geom is None or geom.is_empty or "type" not in bmps.columns:
        return []
    near = bmps[shapely.intersects(bmps.geometry.values, geom)]
    return sorted(set(near["type"].astype(str)))


def _permit_conditions(result: AnalysisResult, declared: Declared) -> list[ReviewFinding]:
    """The conditions the chapter sets on approving the plan and issuing the permit, from the profile's
    ``[permit]`` ``surety`` (D(2)) and ``building_permit_hold`` (Grantsburg C(3)): information for the
    inspector, passed when the submission declares the surety that is required.
    """
    prof = result.profile
    out = []
    s = prof.entry("permit", "surety")
    if s is not None and s.get("value"):
        section, cite = prof.section_name(s.get("section", "plan")), s.get("citation", "")
        by = s.get("by", "the village")
        said = declared.get("surety")
        if s["value"] == "shall":
            status = "pass" if said else "info"
            msg = (
                f"As a condition of approving the plan and issuing the permit, {by} shall require "
                f"{s['text']} ({cite}); "
                + (
                    f"declared: {said}."
                    if said
                    else "none declared yet: it is due before the permit is issued."
                )
            )
        else:
            status = "info"
            msg = (
                f"{by[:1].upper()}{by[1:]} may require {s['text']} as a condition of approval and issuance "
                f"({cite}): the inspector's call" + (f"; declared: {said}." if said else ".")
            )
        out.append(
            ReviewFinding(
                "permit_surety",
                cite,
                section,
                status,
                msg,
                requirement=s["text"],
                submitted=said or "",
                settle=""
                if said or s["value"] != "shall"
                else "[declared] surety (the bond, letter of credit or escrow offered)",
            )
        )
    hold = prof.entry("permit", "building_permit_hold")
    if hold is not None and hold.get("value"):
        out.append(
            ReviewFinding(
                "permit_before_building_permit",
                hold.get("citation", ""),
                prof.section_name(hold.get("section", "plan")),
                "info",
                f"{hold['text'][:1].upper()}{hold['text'][1:]} ({hold.get('citation', '')}): the building "
                "permit waits for this one.",
                requirement=hold["text"],
            )
        )
    return out


# --------------------------------------------------------------------------------------------- outputs


def write_check_outputs(
    result: CheckResult, out: Path, overwrite: bool = False, html: bool = True
) -> list[Path]:
    """Write findings.json, findings.md, findings.gpkg (layers ``findings`` and context), quantities.csv (the
    submitted plan's pay quantities, priced at the result's prices) and report.html atomically into ``out``.

    Parameters
    ----------
    result : CheckResult
        The check to write.
    out : Path
        The output folder.
    overwrite : bool
        Whether an existing output folder is replaced.
    html : bool
        Whether report.html is written.

    Returns
    -------
    list of Path
        The files written.
    """
    from geosite.io.output import atomic_dir, write_json
    from geosite.plan.quantity_report import csv_text, quantity_markdown

    names = ["findings.json", "findings.md", "findings.gpkg", "quantities.csv"]
    names += ["report.html"] if html else []
    quantities = result.quantities
    with atomic_dir(out, overwrite=overwrite) as tmp:
        write_json(tmp / "findings.json", result.to_dict())
        text = render_markdown(result.summary(), result.findings)
        text += "\n" + "\n".join(quantity_markdown(quantities.to_dict(), escape=md))
        soil = result.analysis.report.get("soil_loss")
        text += "\n" + "\n".join(state_markdown(result.state, soil, result.site.crs))
        (tmp / "findings.md").write_text(text, encoding="utf-8")
        (tmp / "quantities.csv").write_text(csv_text(quantities), encoding="utf-8")
        frame = findings_frame(result.findings, result.site.crs)
        layers = {"findings": frame, "site_boundary": result.site.layers["site_boundary"][["id", "geometry"]]}
        for k in findings_context():
            if k in result.analysis.layers:
                layers[k] = result.analysis.layers[k]
        _write_findings_gpkg(tmp / "findings.gpkg", layers)
        if html:
            from geosite.review.html import render_html

            (tmp / "report.html").write_text(render_html(result), encoding="utf-8")
    return [out / n for n in names]


def _write_findings_gpkg(path: Path, layers: dict[str, gpd.GeoDataFrame]) -> None:
    """findings.gpkg (:func:`geosite.io.output.write_findings_gpkg`): the findings by geometry type, those
    without a place in the table ``findings``, the context layers styled as on the sheets.
    """
    from geosite.io.output import write_findings_gpkg
    from geosite.views.layers import sheet_styles

    write_findings_gpkg(path, layers, context=findings_context(), styles=derived_styles(sheet_styles()))
