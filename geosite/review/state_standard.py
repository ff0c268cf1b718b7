"""The state's standard beside the Village's chapter in ``check``: Wisconsin's construction site performance
standard for sites of an acre or more (Wis. Admin. Code NR 151.11), its soil loss recomputed from the
submitted layers and compared with the figure the plan declares.

The chapters geosite implements do not cite NR 151, so these findings are reported beside the chapter's
(findings.json ``state_standard``, their own section of findings.md and report.html) and never enter the
Village's verdict. The recomputation is ``analyze``'s soil-loss stage (:mod:`geosite.soil_loss.stage`) run on
the submission as submitted: only its own fences and diversions end slope length.

The comparison (rule ``declared_soil_loss``), the declared figure D against the recomputed one (the worst
12-month window, t/ac; its bounds [lo, hi] where R's distribution through the year is not given):

- within the tolerance (``wisconsin.toml [submission] declared_tolerance_pct``) of the recomputed figure,
  or of the bounds: ``pass``;
- beyond it and under the recomputed figure (the plan understates its soil loss), or on the other side of
  the standard from it: ``inspector_decision``, both figures shown (never a failure: the guidance's
  spreadsheet takes one representative slope, geosite every cell);
- beyond it and over (a conservative figure on the same side of the standard): ``info``;
- no figure declared on a site of an acre or more: ``info`` with the recomputed one;
- the figure could not be recomputed (R, K or a C missing): ``not_assessed``, saying what would settle it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from geosite.rules import Finding
from geosite.soil_loss.data import SoilLossData, load_soil_loss_data
from geosite.soil_loss.figure import SoilLossFigure, worst_figure

if TYPE_CHECKING:
    from geosite.pipeline import AnalysisResult
    from geosite.review.declared import Declared

#: the comparison's rule id
DECLARED_RULE = "declared_soil_loss"


def _finding(data: SoilLossData, status: str, message: str, **kw: Any) -> Finding:
    """A ``declared_soil_loss`` finding, cited to NR 151.11."""
    return Finding(DECLARED_RULE, data.citation, data.section, status, message, **kw)


def compare_declared(declared: float, got: SoilLossFigure, data: SoilLossData) -> Finding:
    """The declared soil loss (t/ac) against the recomputed one: see the module's docstring."""
    tol = data.declared_tolerance_pct.required()
    lo, hi = got.low * (1.0 - tol / 100.0), got.high * (1.0 + tol / 100.0)
    diff = (declared - got.high) / got.high * 100.0 if got.high > 0 else float("inf")
    under = declared <= got.limit  # the declared figure within the standard
    other_side = under != (got.high <= got.limit) and under != (got.low <= got.limit)
    head = (
        f"Declared soil loss {declared:.2f} t/ac; recomputed from the submitted layers {got.text()} over "
        f"the worst 12-month window ({got.window})"
    )
    values = {"declared_tpa": declared, "recomputed_low_tpa": got.low, "recomputed_high_tpa": got.high}
    kw = {
        "requirement": f"the declared figure within {tol:g} % of the recomputed one "
        f"({data.declared_tolerance_pct.source})",
        "submitted": f"{declared:.2f} t/ac",
        "values": values,
    }
    if lo - 1e-9 <= declared <= hi + 1e-9:
        return _finding(data, "pass", f"{head}: within {tol:g} %.", **kw)
    if other_side:
        why = (
            f"the two lie on either side of the standard's {got.limit:g} t/ac/yr, so whether the plan's "
            "sediment controls must trap anything depends on which is right"
        )
        return _finding(data, "inspector_decision", f"{head}: {why}.", **kw)
    if declared < lo:
        return _finding(
            data,
            "inspector_decision",
            f"{head}: the plan states {abs(diff):.0f} % less than recomputed (more than {tol:g} %); the "
            "guidance's spreadsheet takes one representative slope and length where geosite takes every "
            "cell's, so the reviewer decides which the plan is held to.",
            **kw,
        )
    return _finding(
        data,
        "info",
        f"{head}: the plan states {diff:.0f} % more than recomputed, on the same side of the standard's "
        f"{got.limit:g} t/ac/yr (a conservative figure).",
        **kw,
    )


def declared_soil_loss(result: AnalysisResult, declared: Declared) -> list[Finding]:
    """The comparison finding for the submission (none under one acre, where NR 151.11 does not apply)."""
    data = load_soil_loss_data()
    block = result.report.get("soil_loss") or {}
    acres = result.report["disturbed"]["area_acres"]
    if acres is None or acres < data.applies_from_acres.required():
        return []
    got = worst_figure(block, data)
    said = declared.soil_loss_tons_per_acre
    if got is None:
        why = (block.get("finding") or {}).get("settle") or "the soil loss over the schedule"
        return [
            _finding(
                data,
                "not_assessed",
                (f"Declared soil loss {said:.2f} t/ac; " if said is not None else "No soil loss declared; ")
                + "geosite could not recompute it from the submitted layers (its NR 151.11 finding says "
                "why).",
                settle=why,
                submitted="not declared" if said is None else f"{said:.2f} t/ac",
            )
        ]
    if said is None:
        return [
            _finding(
                data,
                "info",
                f"No soil loss declared ([declared] soil_loss_tons_per_acre); recomputed from the submitted "
                f"layers: {got.text()} over the worst 12-month window ({got.window}).",
                submitted="not declared",
                values={"recomputed_low_tpa": got.low, "recomputed_high_tpa": got.high},
            )
        ]
    return [compare_declared(said, got, data)]


def state_findings(result: AnalysisResult, declared: Declared) -> list[Finding]:
    """The findings under the state's standard: the recomputed NR 151.11 finding and the comparison with
    the declared figure, numbered S1, S2, ... (they are not the chapter's F-numbered findings).
    """
    soil = result.soil_loss
    out = [] if soil is None else [replace(soil.finding, values=dict(soil.finding.values))]  # check's copy
    out += declared_soil_loss(result, declared)
    for i, f in enumerate(out, 1):
        f.id = f"S{i}"
        f.source = "check"
    return out


#: the heading of the section, in findings.md and report.html
HEADING = "Beside the Village's chapter: Wisconsin's construction site performance standard (NR 151.11)"
#: what the section says first
NOT_IN_VERDICT = (
    "Not part of the verdict above: the Village's chapter does not cite NR 151; the state's standard applies "
    "to sites of an acre or more whatever the chapter says. The soil loss is recomputed from the submitted "
    "layers (its own fences and diversions end slope length)."
)


def state_markdown(findings: list[Finding], block: dict[str, Any] | None, crs: Any) -> list[str]:
    """The section of findings.md for the state's standard: the findings, then the soil-loss windows and where
    every number came from (``block``: report.json's ``soil_loss``; ``crs``: the site's). No lines where
    there is no finding.
    """
    from geosite.review.findings import finding_lines
    from geosite.soil_loss.report import soil_loss_markdown

    if not findings:
        return []
    out = [f"## {HEADING}", "", NOT_IN_VERDICT, ""]
    for f in findings:
        out += finding_lines(f, crs)
    out.append("")
    if block:
        out += soil_loss_markdown(block, heading=False)
    return out
