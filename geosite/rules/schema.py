"""The schema of a jurisdiction profile: every table and key, its kind, unit and allowed values.

:func:`validate` returns every problem of a profile at once, each naming the key
(``requirements[3].conditions[0].measure``)
and, for a misspelt name, the nearest valid one. :func:`geosite.rules.profile.load_profile` raises them as one
:class:`~geosite.errors.ProfileError` (exit 2), so a clerk's typo never becomes a different verdict. What
the stages measure and what the practices take are in :mod:`geosite.rules.registry`.
"""

from __future__ import annotations

import difflib
import operator
from collections.abc import Callable, Mapping
from typing import Any

from geosite.rules import registry as r

#: the comparison operators a condition may use
OPS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
}
ENTRY_KEYS = ("value", "citation", "section", "source", "note", "unit", "by", "text", "date")
CONDITION_KEYS = (
    "rule",
    "citation",
    "section",
    "measure",
    "op",
    "threshold",
    "unit",
    "text",
    "how",
    "storm",
    "reading",
    "to",
    "along",
    "kind",
)
#: keys of older profiles, and what replaced them
REPLACED = {
    "rules": "[[requirements]] (each requirement once: docs/profiles.md)",
    "practices": "the practice named on each [[requirements]] entry (practice = ..., params = {...})",
}
#: how a per-feature distance is measured (geosite.practices.features)
ALONG = ("straight", "flow_path")
#: the layer key of the drainage channels traced on the DEM (beside the drawn layers)
DEM_CHANNELS = "dem_channels"
REQUIREMENT_KEYS = (
    "id",
    "kind",
    "practice",
    "provision",
    "citation",
    "section",
    "gate",
    "requires",
    "conditions",
    "combine",
    "for_each",
    "alternative",
    "params",
    "reading",
    "may_require",
)
ITEM_KEYS = (
    "citation",
    "text",
    "layers",
    "contacts",
    "project",
    "declared",
    "check",
    "max_ft_per_in",
    "margin_ft",
    "map_label",
    "map_layers",
    "reading",
)
JURISDICTION_KEYS = (
    "id",
    "name",
    "chapter",
    "source",
    "expected_crs",
    "map_margin_ft",
    "official",
    "extent",
    "notes",
)
TOP_KEYS = (
    "jurisdiction",
    "sections",
    "applicability",
    "gates",
    "plan_type",
    "terrain",
    "rain",
    "requirements",
    "controls",
    "review",
    "permit",
    "enforcement",
    "plan_content",
    "submission",
    "not_specified",
    "maintenance",
    "stabilization",
    "quantities",
    "prices",
)
#: silent: the chapter does not say it; unread: the profile's author could not read that part;
#: unexpressed: the chapter says it but the profile language cannot (geosite cannot assess it: never a pass)
NOT_SPECIFIED_KINDS = ("silent", "unread", "unexpressed")
#: the kinds of applicability trigger (geosite.rules.model.TRIGGER_KINDS)
TRIGGER_KINDS = ("measured", "unexpressed", "unread")
#: the numbers geosite cannot work without: a profile gives each, the chapter's with its citation or geosite's
#: own with its source, so no number reaches a finding without saying where it comes from
REQUIRED_ENTRIES = {
    "terrain": (
        "steep_slope_pct",
        "state_steep_slope_pct",
        "steep_min_area_sqft",
        "contour_interval_ft",
        "index_contour_every",
        "channel_threshold_sqft",
    ),
    "submission": (
        "declared_area_tolerance_pct",
        "sliver_area_sqft",
        "sliver_width_ft",
        "overlap_margin_ft",
        "bmp_outside_tolerance_ft",
    ),
}


class _Problems:
    """Problems found so far, each ``key: what is wrong``."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, what: str) -> None:
        """Record the problem ``what`` at the key ``where``."""
        self.items.append(f"{where}: {what}")

    def unknown(self, where: str, name: Any, valid: tuple[str, ...] | list[str], what: str = "key") -> None:
        """Record an unknown ``what`` ``name`` at ``where``, with the nearest of the ``valid`` names (or
        all of them, when few).
        """
        near = difflib.get_close_matches(str(name), list(valid), n=1, cutoff=0.6)
        hint = (
            f"; did you mean {near[0]!r}?"
            if near
            else f" (valid: {', '.join(valid)})"
            if len(valid) <= 12
            else ""
        )
        self.add(where, f"unknown {what} {name!r}{hint}")

    def keys(self, where: str, table: Mapping[str, Any], valid: tuple[str, ...]) -> None:
        """Record each key of ``table`` that is not among ``valid``."""
        for k in table:
            if k not in valid:
                self.unknown(f"{where}.{k}" if where else str(k), k, valid)


def validate(data: Mapping[str, Any]) -> list[str]:
    """Every problem of the profile ``data`` (a parsed TOML), or an empty list."""
    p = _Problems()
    for old, new in REPLACED.items():
        if old in data:
            p.add(old, f"this table is no longer read: it was replaced by {new}")
    p.keys("", {k: v for k, v in data.items() if k not in REPLACED}, TOP_KEYS)
    _jurisdiction(p, data.get("jurisdiction"))
    sections = data.get("sections", {})
    if not isinstance(sections, Mapping):
        p.add("sections", "must be a table of section keys and names")
        sections = {}
    ctx = _Context(p, data, tuple(sections))
    ctx.applicability()
    ctx.gates()
    ctx.plan_type()
    ctx.entries("terrain", r.TERRAIN_PARAMS)
    ctx.rain()
    ctx.requirements()
    ctx.entries("controls", r.CONTROL_PARAMS)
    ctx.review()
    ctx.entries("permit", r.PERMIT_PARAMS)
    ctx.entries("enforcement", r.ENFORCEMENT_PARAMS)
    ctx.plan_content()
    ctx.entries("submission", r.SUBMISSION_PARAMS)
    ctx.entries("maintenance", {k: r.Param(r.TEXT) for k in data.get("maintenance") or {}})
    ctx.entries("stabilization", r.STABILIZATION_PARAMS)
    ctx.entries("quantities", r.QUANTITY_PARAMS)
    ctx.prices()
    ctx.not_specified()
    for table, keys in REQUIRED_ENTRIES.items():
        table_data = data.get(table)
        have: Mapping[str, Any] = table_data if isinstance(table_data, Mapping) else {}
        for k in keys:
            if k not in have:
                p.add(
                    f"{table}.{k}",
                    "missing: geosite needs this number; give the chapter's with its citation, or "
                    "geosite's own with a source saying so (docs/profiles.md)",
                )
    return p.items


def _jurisdiction(p: _Problems, j: Any) -> None:
    if not isinstance(j, Mapping):
        p.add("jurisdiction", "the table is missing (it needs id and name)")
        return
    p.keys("jurisdiction", j, JURISDICTION_KEYS)
    for k in ("id", "name"):
        if not isinstance(j.get(k), str) or not j.get(k):
            p.add(f"jurisdiction.{k}", "required text")
    if "map_margin_ft" not in j:
        p.add(
            "jurisdiction.map_margin_ft",
            "missing: the feet around the site a map shows; give the chapter's with its citation, or "
            "geosite's own saying so (docs/profiles.md)",
        )
    elif not _is_number(j["map_margin_ft"]):
        p.add("jurisdiction.map_margin_ft", f"must be a number of feet, not {j['map_margin_ft']!r}")


def _iso_date(v: Any) -> bool:
    """Whether ``v`` is a date (a TOML date, or ISO text YYYY-MM-DD)."""
    import datetime as dt

    if isinstance(v, dt.date):
        return True
    try:
        dt.date.fromisoformat(str(v))
    except ValueError:
        return False
    return True


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _kind_ok(kind: str, v: Any) -> bool:
    checks: dict[str, Callable[[Any], bool]] = {
        r.NUMBER: _is_number,
        r.INTEGER: lambda x: isinstance(x, int) and not isinstance(x, bool),
        r.BOOL: lambda x: isinstance(x, bool),
        r.TEXT: lambda x: isinstance(x, str),
        r.LIST: lambda x: isinstance(x, list),
        r.TABLE: lambda x: isinstance(x, Mapping),
        r.DATE: lambda x: hasattr(x, "isoformat"),
    }
    return checks[kind](v)


class _Context:
    """The profile being validated, with the names its parts may refer to."""

    def __init__(self, p: _Problems, data: Mapping[str, Any], sections: tuple[str, ...]) -> None:
        self.p, self.data, self.sections = p, data, sections
        gates = data.get("gates", {})
        self.gate_names = tuple(gates) if isinstance(gates, Mapping) else ()
        self.req_ids = tuple(q.get("id", "") for q in data.get("requirements", []) if isinstance(q, Mapping))
        rain = data.get("rain", {})
        self.storms = tuple(k for k in rain if k.endswith("_in")) if isinstance(rain, Mapping) else ()

    def section(self, where: str, name: Any) -> None:
        """A section name, when given, is one of ``[sections]``."""
        if name is not None and name not in self.sections:
            self.p.unknown(where, name, self.sections, "section (not in [sections])")

    def condition(self, where: str, c: Any, measures: Mapping[str, r.Measure] | None = None) -> None:
        """A condition (measure, op, threshold): a measure of ``measures`` (default: the site's), an operator
        the engine has, a threshold of the measure's kind and unit.
        """
        if not isinstance(c, Mapping):
            self.p.add(where, "must be a table with measure, op and threshold")
            return
        self.p.keys(where, c, CONDITION_KEYS)
        if c.get("kind", "measured") != "measured":
            self._unmeasured(where, c)
            return
        measures = r.MEASURES if measures is None else measures
        key, op = c.get("measure"), c.get("op")
        m = measures.get(key) if isinstance(key, str) else None
        if m is None:
            self.p.unknown(f"{where}.measure", key, tuple(measures), "measure")
        if op not in OPS:
            self.p.add(f"{where}.op", f"{op!r} is not an operator the engine has ({', '.join(OPS)})")
        if "threshold" not in c:
            self.p.add(where, "no threshold")
        elif m is not None:
            self._threshold(where, c, m)
        if c.get("how") is not None and c["how"] not in _how_keys():
            self.p.unknown(f"{where}.how", c["how"], _how_keys(), "measurement")
        self.section(f"{where}.section", c.get("section"))
        self._distance(where, c, m)

    def _unmeasured(self, where: str, c: Mapping[str, Any]) -> None:
        """An applicability trigger the profile cannot measure: a kind of :data:`TRIGGER_KINDS`, its words,
        no measure.
        """
        if c["kind"] not in TRIGGER_KINDS[1:]:
            self.p.unknown(f"{where}.kind", c["kind"], TRIGGER_KINDS, "kind")
        if not where.startswith("applicability.triggers"):
            self.p.add(f"{where}.kind", "only an applicability trigger may be unexpressed or unread")
        if not c.get("text"):
            self.p.add(where, "an unexpressed or unread trigger needs its text (what the chapter says)")
        for k in ("measure", "op", "threshold"):
            if k in c:
                self.p.add(f"{where}.{k}", f"an {c['kind']} trigger has no {k}: nothing measures it")
        self.section(f"{where}.section", c.get("section"))

    def _distance(self, where: str, c: Mapping[str, Any], m: r.Measure | None) -> None:
        """A per-feature distance's ``to`` (layer names, or the channels traced on the DEM) and ``along``."""
        if c.get("to") is None and c.get("along") is None:
            return
        if m is None or m.unit != "ft" or not str(c.get("measure", "")).endswith("distance_ft"):
            self.p.add(where, "to and along belong to a per-feature distance (downslope_distance_ft)")
            return
        to = c.get("to")
        if to is not None and not isinstance(to, list):
            self.p.add(f"{where}.to", "must be a list of layer names")
        for name in to or []:
            if name not in r.LAYERS + (DEM_CHANNELS,):
                self.p.unknown(f"{where}.to", name, r.LAYERS + (DEM_CHANNELS,), "layer")
        if c.get("along") is not None and c["along"] not in ALONG:
            self.p.unknown(f"{where}.along", c["along"], ALONG, "way of measuring")

    def _threshold(self, where: str, c: Mapping[str, Any], m: r.Measure) -> None:
        t = c["threshold"]
        want = r.NUMBER if m.kind == r.INTEGER else m.kind
        if not _kind_ok(want, t):
            self.p.add(
                f"{where}.threshold",
                f"{t!r} is not a {want} ({c.get('measure')} is a {m.kind}"
                + (f" in {m.unit})" if m.unit else ")"),
            )
        unit = c.get("unit")
        if unit is not None and m.unit and unit != m.unit:
            self.p.add(f"{where}.unit", f"{unit!r}, but {c.get('measure')} is measured in {m.unit!r}")
        if m.kind in (r.BOOL, r.TEXT) and c.get("op") not in ("==", "!="):
            self.p.add(f"{where}.op", f"{c.get('op')!r} cannot compare a {m.kind}; use == or !=")

    def applicability(self) -> None:
        """The ``[applicability]`` table: how triggers combine, and each trigger and exemption, cited."""
        app = self.data.get("applicability")
        if app is None:
            return
        self.p.keys("applicability", app, ("combine", "section", "triggers", "exemptions", "unread"))
        if app.get("combine", "any") not in ("any", "all"):
            self.p.add("applicability.combine", f"{app['combine']!r} is not any or all")
        self.section("applicability.section", app.get("section"))
        for kind in ("triggers", "exemptions"):
            for i, c in enumerate(app.get(kind, [])):
                self.condition(f"applicability.{kind}[{i}]", c)
                if isinstance(c, Mapping) and not c.get("citation"):
                    self.p.add(f"applicability.{kind}[{i}]", "needs a citation")

    def gates(self) -> None:
        """Each gate of ``[gates]`` is a condition."""
        for name, g in (self.data.get("gates") or {}).items():
            self.condition(f"gates.{name}", g)

    def plan_type(self) -> None:
        """The ``[plan_type]`` table: the full plan's and the statement's conditions, each cited."""
        pt = self.data.get("plan_type")
        if pt is None:
            return
        self.p.keys("plan_type", pt, ("measure", "section", "full", "statement"))
        self.section("plan_type.section", pt.get("section"))
        for k in ("full", "statement"):
            if k in pt:
                self.condition(f"plan_type.{k}", {"measure": pt.get("measure"), **pt[k]})
                if not pt[k].get("citation"):
                    self.p.add(f"plan_type.{k}", "needs a citation")

    def entries(self, table: str, params: Mapping[str, r.Param], extra: tuple[str, ...] = ()) -> None:
        """Each entry of the table ``table``: a parameter of ``params`` (or one of the ``extra`` keys)."""
        t = self.data.get(table)
        if t is None:
            return
        if not isinstance(t, Mapping):
            self.p.add(table, "must be a table")
            return
        for k, e in t.items():
            if k in extra:
                continue
            if f"{table}.{k}" in r.RETIRED:
                self.p.add(f"{table}.{k}", f"no longer read: {r.RETIRED[f'{table}.{k}']}")
                continue
            if k not in params:
                self.p.unknown(f"{table}.{k}", k, tuple(params) + extra)
                continue
            self.entry(f"{table}.{k}", e, params[k])

    def entry(self, where: str, e: Any, spec: r.Param) -> None:
        """One entry ``{ value, citation | source, unit }``: a value of ``spec``'s kind and choices, a
        citation or source, a unit agreeing with ``spec``'s.
        """
        if not isinstance(e, Mapping):
            self.p.add(where, "must be { value = ..., citation = ... } or { value = ..., source = ... }")
            return
        self.p.keys(where, e, ENTRY_KEYS)
        if "value" not in e:
            self.p.add(where, "no value")
        elif not _kind_ok(spec.kind, e["value"]) and not (spec.kind == r.NUMBER and _is_number(e["value"])):
            self.p.add(
                f"{where}.value",
                f"{e['value']!r} is not a {spec.kind}" + (f" ({spec.unit})" if spec.unit else ""),
            )
        elif spec.choices and e["value"] not in spec.choices:
            self.p.unknown(f"{where}.value", e["value"], spec.choices, "value")
        if not e.get("citation") and not e.get("source") and not e.get("note"):
            self.p.add(
                where, "needs a citation (the chapter's section) or a source (where the number comes from)"
            )
        if e.get("citation"):
            self.section(f"{where}.section", e.get("section"))
        unit = e.get("unit")
        if (
            unit is not None
            and spec.kind == r.NUMBER
            and spec.unit not in ("", unit)
            and unit not in r.TIME_UNITS
        ):
            self.p.add(f"{where}.unit", f"{unit!r}, but this number is in {spec.unit!r}")
        if unit is not None and spec.unit == "" and spec.kind == r.NUMBER and unit not in r.TIME_UNITS:
            self.p.unknown(f"{where}.unit", unit, r.TIME_UNITS, "unit")

    def rain(self) -> None:
        """The ``[rain]`` table: design storm depths named ``<storm>_in``, and the runoff storm among them."""
        rain = self.data.get("rain")
        if rain is None:
            return
        for k, e in rain.items():
            if k == "runoff_storm":
                if e not in self.storms:
                    self.p.unknown("rain.runoff_storm", e, self.storms, "storm")
            elif not k.endswith("_in"):
                self.p.add(
                    f"rain.{k}",
                    "a design storm's depth is named <storm>_in (inches), e.g. ten_year_24_hour_in",
                )
            else:
                self.entry(f"rain.{k}", e, r.Param(r.NUMBER, "in"))

    def requirements(self) -> None:
        """Each requirement, each id written once."""
        seen: set[Any] = set()
        for i, q in enumerate(self.data.get("requirements", [])):
            where = f"requirements[{i}]" + (
                f" ({q.get('id')})" if isinstance(q, Mapping) and q.get("id") else ""
            )
            if not isinstance(q, Mapping):
                self.p.add(where, "must be a table")
                continue
            if q.get("id") in seen:
                self.p.add(where, f"id {q.get('id')!r} is written twice: each requirement once")
            seen.add(q.get("id"))
            self.requirement(where, q)

    def requirement(self, where: str, q: Mapping[str, Any]) -> None:
        """Check one requirement: its keys and texts, kind, section, the names it refers to, its
        conditions and its practice or provision.

        Parameters
        ----------
        where : str
            The requirement's place in the profile, for the messages (``requirements[3] (tracking_pad)``).
        q : Mapping
            The requirement's table.
        """
        self.p.keys(where, q, REQUIREMENT_KEYS)
        for k in ("id", "citation", "requires"):
            if not isinstance(q.get(k), str) or not q.get(k):
                self.p.add(
                    f"{where}.{k}",
                    "required text" + (": every requirement cites its section" if k == "citation" else ""),
                )
        kind = q.get("kind", "practice")
        if kind not in r.REQUIREMENT_KINDS:
            self.p.unknown(f"{where}.kind", kind, r.REQUIREMENT_KINDS, "kind")
        self.section(f"{where}.section", q.get("section"))
        self._references(where, q)
        measures = self._feature_measures(where, q.get("for_each"))
        for j, c in enumerate(q.get("conditions", [])):
            self.condition(f"{where}.conditions[{j}]", c, measures)
        if kind == "practice":
            self._practice(where, q)
        elif kind == "provision" and q.get("provision") not in r.DECLARED_FIELDS:
            self.p.unknown(f"{where}.provision", q.get("provision"), r.DECLARED_FIELDS, "[declared] field")

    def _references(self, where: str, q: Mapping[str, Any]) -> None:
        """A requirement's gate and alternative name ones the profile has; its combine is any or all."""
        if q.get("gate") is not None and q["gate"] not in self.gate_names:
            self.p.unknown(f"{where}.gate", q["gate"], self.gate_names, "gate (not in [gates])")
        if q.get("combine", "any") not in ("any", "all"):
            self.p.add(f"{where}.combine", f"{q['combine']!r} is not any or all")
        if q.get("alternative") is not None and q["alternative"] not in self.req_ids:
            self.p.unknown(f"{where}.alternative", q["alternative"], self.req_ids, "requirement")

    def _feature_measures(self, where: str, layer: Any) -> Mapping[str, r.Measure] | None:
        """The measures of a per-feature requirement's layer ``layer`` (None: a site-wide requirement, or
        a layer that has none, a problem).
        """
        if layer is None:
            return None
        if layer not in r.FEATURE_MEASURES:
            self.p.unknown(f"{where}.for_each", layer, tuple(r.FEATURE_MEASURES), "layer")
            return None
        return r.FEATURE_MEASURES[layer]

    def _practice(self, where: str, q: Mapping[str, Any]) -> None:
        """A practice requirement names a practice (which ones there are, their parameters and the controls
        they read are the practices' own: geosite.practices.validate) and gives its params as a table.
        """
        if not isinstance(q.get("practice"), str) or not q.get("practice"):
            self.p.add(
                f"{where}.practice", "required text: the practice that places and judges the requirement"
            )
        if not isinstance(q.get("params", {}), Mapping):
            self.p.add(f"{where}.params", "must be a table")

    def review(self) -> None:
        """The ``[review]`` table: the day kind, its numbers, its holiday calendar's keys."""
        rv = self.data.get("review")
        if rv is None:
            return
        if rv.get("kind", "working_days") not in ("working_days", "calendar_days"):
            self.p.add("review.kind", f"{rv['kind']!r} is not working_days or calendar_days")
        self.entries("review", r.REVIEW_PARAMS, extra=("kind", "holidays"))
        h = rv.get("holidays")
        if h is not None:
            self.p.keys(
                "review.holidays", h, ("country", "subdiv", "observed", "add", "remove", "citation", "source")
            )

    def plan_content(self) -> None:
        """The ``[plan_content]`` table: each item of the full plan's list and of the statement's."""
        pc = self.data.get("plan_content")
        if pc is None:
            return
        self.p.keys("plan_content", pc, ("section", "full", "statement"))
        self.section("plan_content.section", pc.get("section"))
        for kind in ("full", "statement"):
            for i, item in enumerate(pc.get(kind, [])):
                self.item(f"plan_content.{kind}[{i}]", item)

    def item(self, where: str, item: Mapping[str, Any]) -> None:
        """One plan item: cited, naming layers, contacts, project fields, a declared field or a check geosite
        knows, and saying at least one thing a submission could show.
        """
        self.p.keys(where, item, ITEM_KEYS)
        if not item.get("citation"):
            self.p.add(where, "needs a citation")
        names = {
            "layers": r.LAYERS,
            "contacts": r.CONTACTS,
            "project": r.PROJECT_FIELDS,
            "map_layers": r.LAYERS + r.MAP_ONLY_LAYERS,
        }
        for key, valid in names.items():
            for v in item.get(key, []):
                if v not in valid:
                    self.p.unknown(f"{where}.{key}", v, valid, key.rstrip("s"))
        if item.get("declared") is not None and item["declared"] not in r.DECLARED_FIELDS:
            self.p.unknown(f"{where}.declared", item["declared"], r.DECLARED_FIELDS, "[declared] field")
        if item.get("check") is not None and item["check"] not in r.PLAN_CHECKS:
            self.p.unknown(f"{where}.check", item["check"], r.PLAN_CHECKS, "check")
        if not any(item.get(k) for k in ("layers", "contacts", "project", "declared", "check")):
            self.p.add(
                where, "says nothing a submission could show (layers, contacts, project, declared or check)"
            )

    def prices(self) -> None:
        """The ``[prices]`` table: a Village's published unit prices, each ``item = { value = price (USD),
        unit = a pay unit, source = ..., date = ... }`` (which items are priced in which units is held
        against the practices by :func:`geosite.practices.validate.validate_practices`).
        """
        t = self.data.get("prices")
        if t is None:
            return
        if not isinstance(t, Mapping):
            self.p.add("prices", "must be a table of items, each { value, unit, source, date }")
            return
        for k, e in t.items():
            where = f"prices.{k}"
            if not isinstance(e, Mapping):
                self.p.add(where, "must be { value = price, unit = ..., source = ..., date = ... }")
                continue
            self.p.keys(where, e, ENTRY_KEYS)
            v: Any = e.get("value")
            if not _is_number(v) or not 0 < v < float("inf"):
                self.p.add(f"{where}.value", f"{v!r} is not a price (a positive number of US dollars)")
            if e.get("unit") not in r.PAY_UNITS:
                self.p.unknown(f"{where}.unit", e.get("unit"), r.PAY_UNITS, "unit")
            if not e.get("source"):
                self.p.add(where, "needs a source (the Village's published table that gives the price)")
            if not _iso_date(e.get("date")):
                self.p.add(f"{where}.date", f"{e.get('date')!r}: the date of the price, YYYY-MM-DD")

    def not_specified(self) -> None:
        """Each ``[[not_specified]]`` topic: an id, a topic, a kind, a section."""
        for i, item in enumerate(self.data.get("not_specified", [])):
            where = f"not_specified[{i}]"
            self.p.keys(where, item, ("id", "topic", "kind", "citation", "section"))
            if not item.get("id") or not item.get("topic"):
                self.p.add(where, "needs id and topic")
            if "kind" not in item:
                self.p.add(
                    f"{where}.kind",
                    f"missing: say which it is ({', '.join(NOT_SPECIFIED_KINDS)}): silent (the chapter does "
                    "not "
                    "say it), unread (the profile's author could not read it) or unexpressed (the chapter "
                    "says it "
                    "but the profile language cannot)",
                )
            elif item["kind"] not in NOT_SPECIFIED_KINDS:
                self.p.unknown(f"{where}.kind", item["kind"], NOT_SPECIFIED_KINDS, "kind")
            self.section(f"{where}.section", item.get("section"))


def _how_keys() -> tuple[str, ...]:
    """Measurements that say how a value was found (text the findings quote)."""
    return tuple(r.HOW)
