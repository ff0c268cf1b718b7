"""The rules engine: measurements (a flat mapping of dotted keys to values) + a profile → the gate
(whether the chapter applies, and where each of its scopes does), plan type and findings, each citing
its section.

A measurement that is ``None`` was not assessed (its data is missing); a rule that depends only on
such measurements is reported ``not_assessed`` with the reason, never guessed.

The gate (:func:`site_gate`) is computed once per site and read by every stage: the rules here, the
controls stage, ``geosite check``, the maps' legends and the report. Nothing fails where the gate is
closed: a finding under a closed gate is information ("shown for reference"), and one under a gate
not decided is ``not_assessed``, saying what would decide it.

Statuses (:data:`STATUSES`): ``pass``, ``fail``, ``info``, ``not_assessed`` and ``inspector_decision``
(the chapter leaves the call to the Building Inspector, e.g. a stockpile closer than 25 ft with the
reason and the extra BMPs the plan gives: it is neither a pass nor a fail).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from geosite.rules.model import Condition, NotSpecified
from geosite.rules.profile import OPS, Profile, Requirement, load_profile
from geosite.rules.registry import settle_for

# the one verdict type stands on the floor, where geosite.io can return it too; the rules re-export it
from geosite.verdict import Verdict as Verdict

Measurements = Mapping[str, Any]
#: Every status a finding can have. ``inspector_decision``: the text leaves it to the Building Inspector.
STATUSES = ("pass", "fail", "info", "not_assessed", "inspector_decision")
#: Statuses that are a verdict on the plan (a closed gate turns them into information).
VERDICTS = ("pass", "fail", "inspector_decision")
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
    #: the measurement it reads ("" for a trigger the profile cannot measure)
    measure: str = ""
    #: what would settle it where it is not assessed
    settle: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The trigger's outcome as JSON-ready data."""
        return asdict(self)


@dataclass
class Finding:
    """One finding, of ``analyze`` and ``geosite check`` alike: a rule, its citation and section, a status
    (one of :data:`STATUSES`) and a message; ``required`` (whether the requirement applies: None when not
    decided); ``requirement`` (what the chapter requires), ``submitted`` (what the plan shows), ``settle``
    (for ``not_assessed``, the data that would settle it), ``geometry`` (where the problem is, site CRS;
    None when it has no place), ``layer``/``feature_ids`` (the features concerned), ``source`` (``analyze``:
    a measurement, ``check``: the review of a submission) and ``id`` (F1, F2 ... in a review).
    """

    rule: str
    citation: str
    section: str
    status: str
    message: str
    required: bool | None = None
    values: dict[str, Any] = field(default_factory=dict)
    feature_ids: list[Any] = field(default_factory=list)
    requirement: str = ""
    submitted: str = ""
    settle: str = ""
    geometry: Any = None
    layer: str | None = None
    source: str = "analyze"
    id: str = ""

    def to_dict(self, with_geometry: bool = False) -> dict[str, Any]:
        """The finding as JSON-ready data (the geometry as WKT only when asked)."""
        from geosite.io.output import py_scalar

        has = self.geometry is not None and not self.geometry.is_empty
        d = {
            "id": self.id,
            "rule": self.rule,
            "citation": self.citation,
            "section": self.section,
            "status": self.status,
            "message": self.message,
            "required": self.required,
            "requirement": self.requirement,
            "submitted": self.submitted,
            "settle": self.settle,
            "layer": self.layer,
            "feature_ids": [py_scalar(i) for i in self.feature_ids],
            "values": self.values,
            "source": self.source,
            "has_geometry": has,
        }
        if with_geometry:
            d["geometry_wkt"] = self.geometry.wkt if has else None
        return d


@dataclass
class Gate:
    """Where the chapter applies: ``applies`` (the chapter at all: its applicability triggers and
    exemptions; None when not decided) and ``scopes``, the profile's ``[gates]`` (Grantsburg "b6":
    B(6)(a)-(e) apply only where runoff leaves the site), each a :class:`Trigger`. Computed once per
    site (:func:`site_gate`) and read by every stage.
    """

    applies: bool | None
    triggers: list[Trigger]
    exemptions: list[Trigger]
    scopes: dict[str, Trigger] = field(default_factory=dict)
    #: why the chapter applies, does not or is not decided (the triggers or exemption behind it, in words)
    why: str = ""
    citation: str = ""

    @property
    def message(self) -> str:
        """The applicability sentence: the verdict, then why."""
        lead = {
            True: "The chapter applies",
            False: "The chapter does not apply",
            None: "Applicability not decided",
        }[self.applies]
        return f"{lead}: {self.why}." if self.why else f"{lead}."

    def open(self, scope: str | None = None) -> bool | None:
        """Whether the chapter, and ``scope`` within it, applies (None: not decided)."""
        states = [self.applies]
        if scope:
            if scope not in self.scopes:
                raise KeyError(
                    f"gate {scope!r} is not in the profile's [gates] (known: "
                    f"{', '.join(self.scopes) or 'none'})"
                )
            states.append(self.scopes[scope].met)
        if False in states:
            return False
        return None if None in states else True

    def reason(self, scope: str | None = None) -> str:
        """Why ``scope`` is closed or undecided ("" when open), citing the section that decides it."""
        if self.applies is False:
            return f"the chapter does not apply ({self.why})"
        if self.applies is None:
            return f"whether the chapter applies is not decided ({self.why})"
        s = self.scopes.get(scope) if scope else None
        if s is None or s.met is True:
            return ""
        cite = f"{s.citation}: " if s.citation else ""
        return f"{cite}{s.message}"

    def apply(self, finding: Any, scope: str | None = None) -> Any:
        """``finding`` (a :class:`Finding` or anything with ``status`` and ``message``) as the gate allows:
        unchanged where ``scope`` applies; information ("shown for reference") where it does not; a
        would-be fail or decision ``not_assessed`` where that is not decided. Returns the finding.
        """
        state = self.open(scope)
        if state is True:
            return finding
        why = self.reason(scope)
        required = getattr(finding, "required", None)
        if state is False and (finding.status in (*VERDICTS, "not_assessed") or required):
            # nothing is required where the chapter (or this part of it) does not apply: no open question
            finding.status = "info" if finding.status in (*VERDICTS, "not_assessed") else finding.status
            finding.message = f"Not required here ({why}); shown for reference: {finding.message}"
            if hasattr(finding, "required"):
                finding.required = False
        elif state is None and (finding.status in ("fail", "inspector_decision") or required):
            finding.status = (
                "not_assessed" if finding.status in ("fail", "inspector_decision") else finding.status
            )
            finding.message = f"Required only if it applies, and {why}: {finding.message}"
            if hasattr(finding, "required"):
                finding.required = None
        return finding

    def to_dict(self) -> dict[str, Any]:
        """The gate as JSON-ready data."""
        return {
            "applies": self.applies,
            "message": self.message,
            "citation": self.citation,
            "scopes": {k: t.to_dict() for k, t in self.scopes.items()},
        }


@dataclass
class Evaluation:
    """The rules' verdict on a site: whether the chapter applies (None: not decided), the triggers and
    exemptions behind it, the plan type ('full', 'statement', 'both' or None) and why, the findings, and
    the :class:`Gate` they were judged under.
    """

    applies: bool | None
    triggers: list[Trigger]
    exemptions: list[Trigger]
    plan_type: str | None
    plan_type_message: str
    findings: list[Finding]
    gate: Gate | None = None
    decisions: dict[str, Decision] = field(default_factory=dict)


@dataclass
class Decision:
    """Whether one requirement is required on this site, decided once (:func:`decide`) and read by the
    controls stage, ``check`` and the reports alike.

    ``applies``: the gate and the requirement's conditions (None: not decided). ``either_with``: the id of
    the alternative requirement when it applies too, so the plan may satisfy either (B(6)(c)'s "either [1]
    and [2] or [1] and [3]"); ``required`` is then True only for the pair, not each alone. For a requirement
    written ``for_each`` feature, ``applies`` is the gate's; each feature's conditions are decided by
    :func:`feature_applies`.
    """

    requirement: Requirement
    applies: bool | None
    conditions: list[Trigger]
    either_with: str | None = None
    why: str = ""
    met: bool | None = True  # the conditions alone, whatever the gate says

    @property
    def required(self) -> bool | None:
        """Required on its own: applies, and no alternative route is open."""
        return False if self.applies is False else None if self.applies is None else self.either_with is None


def compare(value: Any, op: str, threshold: Any) -> bool | None:
    """``value op threshold`` with a relative tolerance for numbers; None when value is None."""
    if value is None:
        return None
    if isinstance(value, bool) or isinstance(threshold, (bool, str)):
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
        if math.isinf(v):
            return "none within reach" if v > 0 else "-inf"
        text = f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:,.2f}"
        return f"{text} {unit}".strip()
    return str(value)


def _condition(profile: Profile, cond: Condition, m: Measurements, section: str) -> Trigger:
    """Trigger ``cond`` evaluated on the measurements ``m`` (one feature's measures read its ``to`` and
    ``along``); a trigger the profile cannot measure (``unexpressed``, ``unread``) is never decided.
    """
    if cond.kind != "measured":
        return _unmeasured(profile, cond, section)
    key = cond.measure
    read = getattr(m, "read", None)  # one feature's measures read a condition's `to` and `along` too
    value = read(cond) if read is not None else m.get(key)
    met = compare(value, cond.op, cond.threshold)
    unit, text = cond.unit, cond.text or key
    how = _why(m, cond.how) if cond.how else None  # a measurement saying how the value was found
    if met is None:
        message = f"{text}: not assessed ({_why(m, key) or 'the data needed is not in the site'})"
    elif isinstance(cond.threshold, bool | str):
        message = (
            f"{text}: {'met' if met else 'not met'} ({fmt(value, unit)}{': ' + str(how) if how else ''})"
        )
    else:
        message = (
            f"{text}: {'met' if met else 'not met'} ({fmt(value, unit)}; threshold {cond.op} "
            f"{fmt(cond.threshold, unit)})" + (f": {how}" if how else "")
        )
    return Trigger(
        rule=cond.rule or key,
        citation=cond.citation,
        section=profile.section_name(cond.section or section),
        value=value,
        threshold=cond.threshold,
        op=cond.op,
        unit=unit,
        met=met,
        message=message + (f" (reading: {cond.reading})" if cond.reading else ""),
        measure=key,
        settle=settle_for(key) if met is None else "",
    )


def _why(m: Measurements, key: str) -> Any:
    """What the measurements say of ``key``: its text (a ``how`` measurement) or why it was not assessed."""
    why = getattr(m, "why", None)
    if callable(why):
        return why(key)
    return m.get(key) if key.endswith(("_how", "_basis")) else m.get(key + ".why")


def _unmeasured(profile: Profile, cond: Condition, section: str) -> Trigger:
    """A trigger the profile cannot measure: never met or not met, so a chapter that may apply through it is
    never passed as not applying.
    """
    why = (
        "the chapter states it but the profile language cannot say it: for the official"
        if cond.kind == "unexpressed"
        else "the profile's author could not read this part of the chapter"
    )
    return Trigger(
        rule=cond.rule or cond.kind,
        citation=cond.citation,
        section=profile.section_name(cond.section or section),
        value=None,
        threshold=None,
        op="",
        unit="",
        met=None,
        message=f"{cond.text}: not assessed ({why})",
        settle=f"the {'official' if cond.kind == 'unexpressed' else 'profile author'}'s reading of: "
        f"{cond.text}",
    )


def _combine(results: list[bool | None], how: str = "any") -> bool | None:
    if how == "all":
        if any(r is False for r in results):
            return False
        return None if any(r is None for r in results) else True
    if any(r is True for r in results):
        return True
    return None if any(r is None for r in results) else False


class _Measured(Mapping[str, Any]):
    """A site's measurements as the conditions read them: the values by key, why one was not measured, and
    where one lies (a :class:`~geosite.site.SiteMeasurements` seen as a mapping).
    """

    def __init__(self, sm: Any) -> None:
        self.sm = sm

    def __getitem__(self, key: str) -> Any:
        return self.sm.values[key]

    def __iter__(self) -> Any:
        return iter(self.sm.values)

    def __len__(self) -> int:
        return len(self.sm.values)

    def why(self, key: str) -> Any:
        """Why ``key`` was not measured (or how a value was found, for a ``*_how`` text)."""
        return self.sm.why(key)

    @property
    def places(self) -> dict[str, tuple[str, Any]]:
        """Where each measurement lies: key -> (layer, geometry)."""
        return dict(getattr(self.sm, "places", {}))


def _mapping(measurements: Any) -> Measurements:
    m = measurements
    if not isinstance(m, Mapping):
        m = getattr(m, "measurements", m)  # AnalysisResult -> SiteMeasurements
        m = _Measured(m) if hasattr(m, "whys") else getattr(m, "values", m)
    if not isinstance(m, Mapping):
        raise TypeError(
            "evaluate: measurements must be an AnalysisResult, SiteMeasurements or a mapping of dotted keys, "
            f"got {type(measurements).__name__}"
        )
    return m


def site_gate(profile: Profile | str, measurements: Any) -> Gate:
    """The gate of ``profile`` for these measurements: whether the chapter applies (its applicability
    triggers, combined as the profile says, and its exemptions: an exemption met closes the chapter
    whatever the triggers say) and each of its ``[gates]`` scopes. A trigger the profile cannot measure
    (``unexpressed``, ``unread``), or an ``unread`` part of the chapter, leaves applicability undecided where
    no measured trigger is met. Compute it once per site, after the measurements the triggers read (terrain,
    hydrology) and before anything is judged.
    """
    if not isinstance(profile, Profile):
        profile = load_profile(profile)
    m = _mapping(measurements)
    app = profile.applicability
    triggers = [_condition(profile, t, m, app.section) for t in app.triggers]
    exemptions = [_condition(profile, t, m, app.section) for t in app.exemptions]
    applies = _combine([t.met for t in triggers], app.combine)
    if app.unread and applies is not True:
        # the part of the chapter holding (more of) its triggers was not read: never "does not apply"
        applies = None
    if any(e.met for e in exemptions):
        applies = False
    scopes = {
        name: _condition(profile, cond, m, cond.section or app.section)
        for name, cond in profile.gates.items()
    }
    g = Gate(applies, triggers, exemptions, scopes)
    g.why, g.citation = _applicability_text(applies, triggers, exemptions)
    if app.unread and applies is None:
        g.why = (
            f"the part of the chapter that holds its triggers ({app.unread}) was not read by the profile's "
            "author" + (f"; {g.why}" if triggers else "")
        )
    return g


def evaluate(
    profile: Profile | str,
    measurements: Any,
    gate: Gate | None = None,
    *,
    decisions: dict[str, Decision] | None = None,
) -> Evaluation:
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
    gate : Gate, optional
        The site's gate, when already computed (``analyze`` computes it once for every stage); else
        computed here from ``measurements``.
    decisions : dict, optional
        The requirements decided under that gate (:func:`decide`), when already computed.

    Returns
    -------
    Evaluation
        ``applies``, ``triggers``, ``plan_type``, ``findings`` and ``gate`` of the profile's
        applicability criteria and rules. The controls findings (filter fence, setbacks ...) come from
        the controls stage of ``analyze``, not from here.

    Examples
    --------
    >>> result = geosite.analyze(site)                                   # doctest: +SKIP
    >>> geosite.evaluate("belgium", result).plan_type                     # doctest: +SKIP
    'statement'
    """
    if not isinstance(profile, Profile):
        profile = load_profile(profile)
    m = _mapping(measurements)
    g = gate if gate is not None else site_gate(profile, m)
    section = profile.applicability.section
    kind, plan_msg = plan_type(profile, m)
    findings = [_applicability_finding(profile, g, section)]
    findings.append(_plan_type_finding(profile, kind, plan_msg))
    decisions = decisions if decisions is not None else decide(profile, m, g)
    for d in decisions.values():
        if d.requirement.for_each:
            continue  # judged feature by feature by the controls stage (a finding per pile, per inlet ...)
        findings.append(_requirement_finding(profile, d, g, decisions, getattr(m, "places", None)))
    for item in profile.not_specified:
        findings.append(_not_specified_finding(profile, item))
    return Evaluation(g.applies, g.triggers, g.exemptions, kind, plan_msg, findings, g, decisions)


def decide(profile: Profile, measurements: Any, gate: Gate | None = None) -> dict[str, Decision]:
    """Each requirement of ``profile`` decided once for these measurements: whether it applies (the gate
    and its conditions) and whether its alternative applies too. Keyed by requirement id.
    """
    m = _mapping(measurements)
    g = gate if gate is not None else site_gate(profile, m)
    out: dict[str, Decision] = {}
    for q in profile.requirements:
        state = g.open(q.gate)
        if q.for_each is not None:
            out[q.id] = Decision(q, state, [], why=g.reason(q.gate))
            continue
        conds = [_condition(profile, c, m, q.section) for c in q.conditions]
        met = _combine([c.met for c in conds], q.combine) if conds else True
        applies = False if state is False or met is False else None if state is None or met is None else True
        why = (
            g.reason(q.gate)
            if state is not True
            else "; ".join(c.message for c in conds if c.met is not False)
        )
        out[q.id] = Decision(q, applies, conds, why=why, met=met)
    for d in out.values():
        alt = out.get(d.requirement.alternative or "")
        if d.met and alt is not None and alt.met and g.open(alt.requirement.gate) is not False:
            d.either_with = alt.requirement.id
    return out


def feature_applies(profile: Profile, q: Requirement, values: Mapping[str, Any]) -> Trigger | None:
    """Whether requirement ``q`` (written ``for_each`` feature) applies to one feature whose measures are
    ``values`` (``{"days": 31, ...}``): a Trigger saying so and why, or None when it has no conditions
    (it applies to every feature).
    """
    if not q.conditions:
        return None
    conds = [_condition(profile, c, values, q.section) for c in q.conditions]
    met = _combine([c.met for c in conds], q.combine)
    return Trigger(
        rule=q.id,
        citation=q.citation,
        section=profile.section_name(q.section),
        value=[c.value for c in conds],
        threshold=[c.threshold for c in conds],
        op=q.combine,
        unit="",
        met=met,
        message="; ".join(c.message for c in conds),
    )


#: what a [[not_specified]] entry's finding says, and what would settle it, by its kind
_NOT_SPECIFIED = {
    "silent": ("info", "not specified by this chapter.", ""),
    "unread": (
        "not_assessed",
        "the profile's author could not read this part of the chapter, so geosite cannot say what "
        "it requires (not assessed; not the same as silent).",
        "the chapter's text for this part, in the profile",
    ),
    "unexpressed": (
        "not_assessed",
        "the chapter says this, but the profile language cannot say it, so geosite cannot "
        "assess it (for the official; not borrowed, not passed).",
        "the official's reading of this part",
    ),
}


def _not_specified_finding(profile: Profile, item: NotSpecified) -> Finding:
    status, words, settle = _NOT_SPECIFIED[item.kind]
    return Finding(
        rule=item.id,
        citation=item.citation,
        section=profile.section_name(item.section),
        status=status,
        message=f"{item.topic[:1].upper()}{item.topic[1:]}: {words}",
        settle=settle,
        requirement=item.topic,
    )


class PlanType(NamedTuple):
    """The plan type a disturbed area requires ('full', 'statement', 'both'; None when it cannot be told),
    and why, in words.
    """

    kind: str | None
    message: str


def plan_type(profile: Profile, m: Measurements) -> PlanType:
    """The plan type ('full', 'statement', 'both' or None) the profile's ``[plan_type]`` gives for
    the measurements, and why.
    """
    pt = profile.plan_type
    if pt is None:
        return PlanType(
            None,
            "plan type: not in the profile (the chapter does not say, or the part that says it was not "
            "read: see "
            "the topics not read)",
        )
    value = m.get(pt.measure)
    full = compare(value, pt.full.op, pt.full.threshold) if pt.full else False
    statement = compare(value, pt.statement.op, pt.statement.threshold) if pt.statement else False
    if full is None or statement is None:
        return PlanType(None, "plan type: not assessed (no disturbed area)")
    if not full and not statement and (pt.full is None or pt.statement is None):
        have = pt.full or pt.statement
        assert have is not None
        return PlanType(
            None,
            f"{fmt(value, 'acres')} disturbed: not {have.text}; what the chapter asks below that is not in "
            "the "
            "profile (not read, or not stated)",
        )
    if full and statement:
        assert pt.full is not None and pt.statement is not None
        return PlanType(
            "both",
            f"{fmt(value, 'acres')} disturbed is exactly at the limit: both {pt.full.citation} "
            f"({pt.full.text}) "
            f"and {pt.statement.citation} ({pt.statement.text}) apply; a full plan satisfies both",
        )
    if full:
        assert pt.full is not None
        return PlanType("full", f"{fmt(value, 'acres')} disturbed: {pt.full.text}")
    if statement:
        assert pt.statement is not None
        return PlanType("statement", f"{fmt(value, 'acres')} disturbed: {pt.statement.text}")
    return PlanType(None, f"{fmt(value, 'acres')} disturbed: neither plan type applies")


def _applicability_text(
    applies: bool | None, triggers: list[Trigger], exemptions: list[Trigger]
) -> tuple[str, str]:
    """Why the chapter applies, does not or is not decided (the detail the gate's message leads with its
    verdict), and the citations behind it.
    """
    met = [t for t in triggers if t.met]
    if any(e.met for e in exemptions):
        e = next(e for e in exemptions if e.met)
        return e.message, e.citation
    if applies:
        return "; ".join(t.message for t in met), ", ".join(t.citation for t in met)
    if applies is None:
        pending = [t for t in triggers if t.met is None]
        return (
            "no trigger met, and these were not assessed: " + "; ".join(t.message for t in pending),
            ", ".join(t.citation for t in pending),
        )
    return "no trigger is met (" + "; ".join(t.message for t in triggers) + ")", ", ".join(
        t.citation for t in triggers
    )


def _applicability_finding(profile: Profile, g: Gate, section: str) -> Finding:
    pending = [t.settle for t in g.triggers if t.met is None and t.settle]
    unread = profile.applicability.unread
    return Finding(
        rule="applicability",
        citation=g.citation,
        section=profile.section_name(section),
        status="info" if g.applies is not None else "not_assessed",
        message=g.message,
        required=g.applies,
        requirement="the chapter applies where: " + "; ".join(t.message.split(":")[0] for t in g.triggers),
        settle=""
        if g.applies is not None
        else "; ".join(
            dict.fromkeys(pending + ([f"the chapter's text of {unread}, in the profile"] if unread else []))
        ),
    )


def _plan_type_finding(profile: Profile, plan_type: str | None, message: str) -> Finding:
    pt = profile.plan_type
    citation = ""
    if pt is not None and pt.full is not None and pt.statement is not None and plan_type == "both":
        citation = f"{pt.full.citation}, {pt.statement.citation}"
    elif pt is not None and plan_type == "full" and pt.full is not None:
        citation = pt.full.citation
    elif pt is not None and plan_type == "statement" and pt.statement is not None:
        citation = pt.statement.citation
    return Finding(
        rule="plan_type",
        citation=citation,
        section=profile.section_name(pt.section if pt else None),
        status="info" if plan_type else "not_assessed",
        message=message[:1].upper() + message[1:] + ".",
        values={"plan_type": plan_type},
        settle=""
        if plan_type
        else settle_for(pt.measure)
        if pt
        else "the chapter's plan-type thresholds in the profile",
    )


def _place(places: Mapping[str, tuple[str, Any]], conds: list[Trigger]) -> tuple[str, Any] | None:
    """Where a requirement's finding is: the place of the first of its conditions ``conds`` whose measurement
    lies somewhere (None when none does).
    """
    return next((places[c.measure] for c in conds if c.measure in places), None)


def _requirement_finding(
    profile: Profile,
    d: Decision,
    g: Gate,
    decisions: dict[str, Decision],
    places: Mapping[str, tuple[str, Any]] | None = None,
) -> Finding:
    """The finding that says whether requirement ``d`` is required here and why (the plan is held against
    it by the controls stage and ``check``).
    """
    q = d.requirement
    section = profile.section_name(q.section)
    values = {c.rule: c.value for c in d.conditions}
    state = g.open(q.gate)
    place = _place(places or {}, [c for c in d.conditions if c.met is not False])
    if state is False:
        closed = g.scopes.get(q.gate) if q.gate and g.applies else None
        msg = (
            f"Does not apply ({closed.citation}): {closed.message}."
            if closed
            else f"Does not apply: {g.reason(q.gate)}."
        )
        return Finding(
            q.id,
            q.citation,
            section,
            "info",
            msg,
            required=False,
            values={q.gate: g.scopes[q.gate].value} if q.gate and g.applies else {},
        )
    status, msg = _requirement_text(profile, d, decisions)
    if d.either_with:
        values["either_with"] = d.either_with
    pending = [c.settle for c in d.conditions if c.met is None and c.settle]
    f = Finding(
        q.id,
        q.citation,
        section,
        status,
        msg,
        required=d.met if not q.may_require else False,
        values=values,
        requirement=q.requires,
        settle="; ".join(dict.fromkeys(pending)) if status == "not_assessed" else "",
        geometry=place[1] if place else None,
        layer=place[0] if place else None,
    )
    if state is None:
        f.message += f" (Only if it applies: {g.reason(q.gate)}.)"
        f.required = None if f.required else f.required
    if q.reading:
        f.message += f" Reading: {q.reading}"
    return f


def _requirement_text(profile: Profile, d: Decision, decisions: dict[str, Decision]) -> tuple[str, str]:
    """Status and words of a requirement's finding from its conditions (the gate is added by the caller)."""
    q = d.requirement
    conds = d.conditions
    if not conds:
        return "info", f"Required on every site the chapter applies to: {q.requires}."
    met = "; ".join(c.message for c in conds if c.met)
    if d.met and q.may_require:
        return (
            "info",
            f"{q.may_require[:1].upper()}{q.may_require[1:]} may require {q.requires}. Because: {met}.",
        )
    if d.met and d.either_with:
        alt = decisions[d.either_with].requirement
        return "info", (
            f"Required, or instead {alt.requires} ({alt.citation}): {q.requires}. Because: {met}. "
            "Either route complies."
        )
    if d.met:
        return "info", f"Required: {q.requires}. Because: {met}."
    if d.met is None:
        pending = "; ".join(c.message for c in conds if c.met is None)
        return "not_assessed", f"Not assessed whether {q.requires} is required: {pending}."
    return "info", f"Not required: {q.requires}. (" + "; ".join(c.message for c in conds) + ".)"
