"""The rules engine: measurements (a flat mapping of dotted keys to values) + a profile → triggers,
plan type and findings, each citing its section.

A measurement that is ``None`` was not assessed (its data is missing); a rule that depends only on
such measurements is reported ``not_assessed`` with the reason, never guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from geosite.rules.profile import OPS, Profile, load_profile

Measurements = Mapping[str, Any]
REL_TOL = 1e-9  # a threshold "at" its value is met despite floating-point noise in areas and lengths


@dataclass
class Trigger:
    """One applicability criterion and whether the site meets it (``met`` is None when not assessed)."""

    rule: str
    citation: str
    section: str
    value: Any
    threshold: Any
    op: str
    unit: str
    met: bool | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Finding:
    """One finding: a rule, its citation, a status (pass, fail, info, not_assessed) and a message."""

    rule: str
    citation: str
    section: str
    status: str
    message: str
    required: bool | None = None
    values: dict[str, Any] = field(default_factory=dict)
    feature_ids: list[Any] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Evaluation:
    """The rules' verdict on a site: whether the chapter applies (None: not decided), the triggers and
    exemptions behind it, the plan type ('full', 'statement', 'both' or None) and why, and the findings."""

    applies: bool | None
    triggers: list[Trigger]
    exemptions: list[Trigger]
    plan_type: str | None
    plan_type_message: str
    findings: list[Finding]


def compare(value: Any, op: str, threshold: Any) -> bool | None:
    """``value op threshold`` with a relative tolerance for numbers; None when value is None."""
    if value is None:
        return None
    if isinstance(value, bool) or isinstance(threshold, bool) or isinstance(threshold, str):
        return bool(OPS[op](value, threshold))
    v, t = float(value), float(threshold)
    if math.isclose(v, t, rel_tol=REL_TOL, abs_tol=1e-9):
        v = t
    return bool(OPS[op](v, t))


def fmt(value: Any, unit: str = "") -> str:
    """A value for a message: thousands separators, two decimals for fractions, unit appended."""
    if value is None:
        return "not assessed"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        v = float(value)
        text = f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:,.2f}"
        return f"{text} {unit}".strip()
    return str(value)


def _condition(profile: Profile, cond: Mapping[str, Any], m: Measurements, section: str) -> Trigger:
    key = cond["measure"]
    value = m.get(key)
    met = compare(value, cond["op"], cond["threshold"])
    unit = cond.get("unit", "")
    text = cond.get("text", key)
    if met is None:
        message = f"{text}: not assessed ({m.get(key + '.why', 'the data needed is not in the site')})"
    elif isinstance(cond["threshold"], bool | str):
        message = f"{text}: {'met' if met else 'not met'} ({fmt(value, unit)})"
    else:
        message = f"{text}: {'met' if met else 'not met'} ({fmt(value, unit)}; threshold {cond['op']} {fmt(cond['threshold'], unit)})"
    sec = cond.get("section", section)
    return Trigger(
        rule=cond.get("rule", key),
        citation=cond.get("citation", ""),
        section=profile.section_name(sec),
        value=value,
        threshold=cond["threshold"],
        op=cond["op"],
        unit=unit,
        met=met,
        message=message,
    )


def _combine(results: list[bool | None], how: str = "any") -> bool | None:
    if how == "all":
        if any(r is False for r in results):
            return False
        return None if any(r is None for r in results) else True
    if any(r is True for r in results):
        return True
    return None if any(r is None for r in results) else False


def evaluate(profile: Profile | str, measurements: Any) -> Evaluation:
    """Evaluate every applicability trigger, the plan type and every rule of ``profile``.

    Parameters
    ----------
    profile : Profile or str
        A loaded profile, a bundled profile name (``"grantsburg"``, ``"belgium"``) or a path to a
        profile TOML (see :func:`~geosite.rules.profile.load_profile`), so a site measured once can be
        judged under another chapter.
    measurements : Mapping, SiteMeasurements or AnalysisResult
        The flat mapping of dotted measurement keys (``"disturbed.area_sqft"`` ...) to values, or an
        object holding one (``result.measurements.values``). ``None`` values are "not assessed".

    Returns
    -------
    Evaluation
        ``applies``, ``triggers``, ``plan_type`` and ``findings`` of the profile's applicability
        criteria and rules. The controls findings (filter fence, setbacks ...) come from the controls
        stage of ``analyze``, not from here.

    Examples
    --------
    >>> result = geosite.analyze(site)                                   # doctest: +SKIP
    >>> geosite.evaluate("belgium", result).plan_type                     # doctest: +SKIP
    'statement'
    """
    if not isinstance(profile, Profile):
        profile = load_profile(profile)
    m = measurements
    if not isinstance(m, Mapping):
        m = getattr(m, "measurements", m)  # AnalysisResult -> SiteMeasurements
        m = getattr(m, "values", m)  # SiteMeasurements -> its mapping
    if not isinstance(m, Mapping):
        raise TypeError(
            "evaluate: measurements must be an AnalysisResult, SiteMeasurements or a mapping of dotted keys, "
            f"got {type(measurements).__name__}"
        )
    app = profile.data.get("applicability", {})
    section = app.get("section", "")
    triggers = [_condition(profile, t, m, section) for t in app.get("triggers", [])]
    exemptions = [_condition(profile, t, m, section) for t in app.get("exemptions", [])]
    applies = _combine([t.met for t in triggers], app.get("combine", "any"))
    if applies and any(e.met for e in exemptions):
        applies = False

    kind, plan_msg = plan_type(profile, m)
    findings = [_applicability_finding(profile, applies, triggers, exemptions, section)]
    findings.append(_plan_type_finding(profile, kind, plan_msg))
    for rule in profile.data.get("rules", []):
        findings.append(_rule_finding(profile, rule, m))
    for item in profile.data.get("not_specified", []):
        findings.append(
            Finding(
                rule=item["id"],
                citation="",
                section="",
                status="info",
                message=f"{item['topic'][:1].upper()}{item['topic'][1:]}: not specified by this chapter.",
            )
        )
    return Evaluation(applies, triggers, exemptions, kind, plan_msg, findings)


def plan_type(profile: Profile, m: Measurements) -> tuple[str | None, str]:
    """The plan type ('full', 'statement', 'both' or None) the profile's ``[plan_type]`` gives for
    the measurements, and why."""
    pt = profile.data.get("plan_type")
    if not pt:
        return None, "plan type: not specified by this chapter"
    value = m.get(pt["measure"])
    full = compare(value, pt["full"]["op"], pt["full"]["threshold"])
    statement = compare(value, pt["statement"]["op"], pt["statement"]["threshold"])
    if full is None:
        return None, "plan type: not assessed (no disturbed area)"
    if full and statement:
        kind = "both"
        msg = (
            f"{fmt(value, 'acres')} disturbed is exactly at the limit: both {pt['full']['citation']} "
            f"({pt['full']['text']}) and {pt['statement']['citation']} ({pt['statement']['text']}) apply; "
            "a full plan satisfies both"
        )
    elif full:
        kind, msg = "full", f"{fmt(value, 'acres')} disturbed: {pt['full']['text']}"
    elif statement:
        kind, msg = "statement", f"{fmt(value, 'acres')} disturbed: {pt['statement']['text']}"
    else:
        kind, msg = None, f"{fmt(value, 'acres')} disturbed: neither plan type applies"
    return kind, msg


def _applicability_finding(profile, applies, triggers, exemptions, section) -> Finding:
    met = [t for t in triggers if t.met]
    if applies:
        cites = ", ".join(t.citation for t in met)
        msg = "The chapter applies: " + "; ".join(t.message for t in met) + "."
        citation = cites
    elif any(e.met for e in exemptions):
        e = next(e for e in exemptions if e.met)
        msg, citation = f"The chapter does not apply: {e.message}.", e.citation
    elif applies is None:
        pending = [t for t in triggers if t.met is None]
        msg = "Applicability not decided: no trigger met, and these were not assessed: " + "; ".join(
            t.message for t in pending
        )
        citation = ", ".join(t.citation for t in pending)
    else:
        msg, citation = "The chapter does not apply: no trigger is met.", ", ".join(t.citation for t in triggers)
    return Finding(
        rule="applicability",
        citation=citation,
        section=profile.section_name(section),
        status="info" if applies is not None else "not_assessed",
        message=msg,
        required=applies,
    )


def _plan_type_finding(profile: Profile, plan_type: str | None, message: str) -> Finding:
    pt = profile.data.get("plan_type", {})
    if plan_type == "both":
        citation = f"{pt['full']['citation']}, {pt['statement']['citation']}"
    elif plan_type in ("full", "statement"):
        citation = pt[plan_type]["citation"]
    else:
        citation = ""
    return Finding(
        rule="plan_type",
        citation=citation,
        section=profile.section_name(pt.get("section")),
        status="info" if plan_type else "not_assessed",
        message=message[:1].upper() + message[1:] + ".",
        values={"plan_type": plan_type},
    )


def _rule_finding(profile: Profile, rule: Mapping[str, Any], m: Measurements) -> Finding:
    section = rule.get("section", "")
    pre = rule.get("applies_when")
    caveat = ""
    if pre is not None:
        gate = _condition(profile, pre, m, section)
        if gate.met is False:
            return Finding(
                rule=rule["id"],
                citation=rule["citation"],
                section=profile.section_name(section),
                status="info",
                message=f"Does not apply ({pre.get('citation', '')}): {gate.message}.",
                required=False,
                values={gate.rule: gate.value},
            )
        if gate.met is None:
            caveat = f" (Assumed to apply: {gate.message}.)"
    finding = _evaluate_rule(profile, rule, m, section)
    finding.message += caveat
    return finding


def _evaluate_rule(profile: Profile, rule: Mapping[str, Any], m: Measurements, section: str) -> Finding:
    conds = [_condition(profile, c, m, section) for c in rule.get("conditions", [])]
    required = _combine([c.met for c in conds], rule.get("combine", "any")) if conds else True
    requires = rule.get("requires", rule["id"])
    if not conds:
        status, msg = "info", f"Required on every site the chapter applies to: {requires}."
    elif required:
        reasons = "; ".join(c.message for c in conds if c.met)
        status, msg = "info", f"Required: {requires}. Because: {reasons}."
    elif required is None:
        pending = "; ".join(c.message for c in conds if c.met is None)
        status, msg = "not_assessed", f"Not assessed whether {requires} is required: {pending}."
    else:
        reasons = "; ".join(c.message for c in conds)
        status, msg = "info", f"Not required: {requires}. ({reasons}.)"
    return Finding(
        rule=rule["id"],
        citation=rule["citation"],
        section=profile.section_name(section),
        status=status,
        message=msg,
        required=required,
        values={c.rule: c.value for c in conds},
    )
