"""The NR 151.11 finding from the soil-loss windows: ``info`` under one acre (the standard does not apply,
never a failure), ``pass`` where the worst window's soil loss is within the standard (no sediment
control needs to trap anything), ``not_assessed`` where a number is missing (R, its distribution when the
bounds straddle the standard, K, a C) or where the soil loss exceeds it: the standard limits the sediment
*discharged*, and how much the plan's sediment controls trap is not computed here, so the finding says
what share they must remove.
"""

from __future__ import annotations

from typing import Any

from geosite.rules import Finding
from geosite.soil_loss.data import SoilLossData

RULE = "nr151_soil_loss"


def _finding(data: SoilLossData, status: str, message: str, settle: str = "") -> Finding:
    """A finding of the rule, citing NR 151.11 and the guidance."""
    caveat = (
        ""
        if data.wording_read_whole
        else " (NR 151.11(6m)(b)2's wording was not read whole here: the 5 t/ac/yr figure is NR 151.23's "
        "note and the guidance's)"
    )
    return Finding(
        RULE,
        data.citation,
        data.section,
        status,
        message + caveat,
        requirement=f"sediment discharged no more than {data.max_tons_per_acre_year.value:g} tons per acre "
        f"per year, from initial grading to final stabilization; {data.guidance}",
        settle=settle,
    )


def _missing(report: dict[str, Any]) -> list[str]:
    """What numbers the windows lack: R, K, C."""
    out = []
    if report.get("r_factor") is None:
        county = report.get("county")
        out.append(f"R for {county + ' County' if county else 'the site'}: {report.get('r_source')}")
    if report.get("without_k_sqft"):
        out.append(
            f"K on {report['without_k_sqft']:,.0f} sq ft of disturbed ground (soils layer attribute "
            f"`kwfact`: {'; '.join(report.get('k_problems', []))})"
        )
    for kind in report.get("covers_without_c", []):
        out.append(f"C of {kind}: {report['c_factors'].get(kind, {}).get('source', 'none found')}")
    return out


def _partial(report: dict[str, Any]) -> str:
    """The sentence on the part that was computed where a number is missing elsewhere, or ""."""
    w = report.get("worst") or {}
    if not w.get("acres") or report.get("r_factor") is None:
        return ""
    what = (
        f"{w['tpa_high']:.2f} t/ac"
        if report.get("exact")
        else f"between {w['tpa_low']:.2f} and {w['tpa_high']:.2f} t/ac"
    )
    return (
        f" On the {w['acres']:.2f} acres that could be computed, the worst 12-month window "
        f"({report.get('worst_window')}) comes to {what}; {w['acres_not_assessed']:.2f} acres are not "
        "assessed."
    )


def _beyond(report: dict[str, Any]) -> str:
    """The sentence on ground beyond the method's range, or ""."""
    steep, conc = report.get("beyond_steep_sqft") or 0.0, report.get("beyond_concentrated_sqft") or 0.0
    if not steep and not conc:
        return ""
    return (
        f" Not computed (beyond the method, sheet and rill erosion only): {steep:,.0f} sq ft on slopes over "
        f"{report.get('max_slope_pct')} % and {conc:,.0f} sq ft of concentrated flow; those need "
        "prescriptive measures."
    )


def _judge(data: SoilLossData, report: dict[str, Any]) -> Finding:
    """The finding of an assessed schedule."""
    limit = data.max_tons_per_acre_year.required()
    w = report["worst"]
    lo, hi = w["tpa_low"], w["tpa_high"]
    what = (
        f"{hi:.2f} t/ac"
        if report["exact"]
        else f"between {lo:.2f} and {hi:.2f} t/ac (R's distribution through the year not known)"
    )
    head = (
        f"Soil loss over the worst 12-month window ({report['worst_window']}) of the {w['acres']:.2f} "
        f"disturbed acres: {what} (A = R K LS C, R = {report['r_factor']:g})."
    )
    if hi <= limit:
        return _finding(
            data, "pass", f"{head} Within {limit:g} t/ac/yr before any sediment control.{_beyond(report)}"
        )
    if lo > limit:
        share = 1.0 - limit / lo
        return _finding(
            data,
            "not_assessed",
            f"{head} Over {limit:g} t/ac/yr: the plan's sediment controls must remove at least "
            f"{share:.0%} of it for the discharge to meet the standard.{_beyond(report)}",
            "the sediment controls' trapping (WDNR 3800-2017-03's sediment discharge calculation)",
        )
    return _finding(
        data,
        "not_assessed",
        f"{head} The bounds straddle {limit:g} t/ac/yr.{_beyond(report)}",
        report.get("ei_source", ""),
    )


def soil_loss_finding(
    data: SoilLossData, acres: float | None, report: dict[str, Any], *, why: str | None = None
) -> Finding:
    """The NR 151.11 finding for a site disturbing ``acres`` acres with the soil-loss ``report``."""
    floor = data.applies_from_acres.required()
    if acres is not None and acres < floor:
        return _finding(
            data,
            "info",
            f"NR 151.11 applies to construction sites of {floor:g} acre or more; this site disturbs "
            f"{acres:.3f} acres, so its soil-loss standard does not apply here.",
        )
    if why is not None:
        return _finding(data, "not_assessed", f"Soil loss over the schedule not assessed: {why}.", why)
    if acres is None:
        return _finding(data, "not_assessed", "Soil loss not assessed: the disturbed area is not known.")
    missing = _missing(report)
    if missing:
        return _finding(
            data,
            "not_assessed",
            "Soil loss over the schedule not assessed: "
            + "; ".join(missing)
            + "."
            + _partial(report)
            + _beyond(report),
            "; ".join(missing),
        )
    return _judge(data, report)
