"""A submitted estimate held against the quantities measured from the submitted layers.

The submission gives its estimate as rows in site.toml::

    [[estimate]]
    item = "Silt fence"          # a practice's title, or its name (the bmps type)
    unit = "LF"                  # the pay unit
    quantity = 1126
    unit_price = 2.75            # optional; so are kind (an inlet protection's type), phase and note

or as a CSV file in the folder named by ``[declared] estimate = "estimate.csv"`` (the same columns), not
both. The submission is hostile input: the file must lie inside the folder and be a regular file, it is
read within ``max_table_bytes`` / ``max_table_rows`` as text (:mod:`geosite.io.csv_table`: no formula is
evaluated; a formula or a cell that is not a positive number is an input error naming its line, exit 2).

Each item is compared in its unit, over every kind and phase, with what the submitted layers measure
(:mod:`geosite.plan.quantities`). The chapter asks for no estimate: the quantities matter because the
surety rests on them (Grantsburg D(2): a bond, letter of credit or escrow the Village sets; Enforcement F:
the Village's cost beyond it is billed). So an item the estimate understates by more than the profile's
``[submission] declared_quantity_tolerance_pct`` is left to the Village (``inspector_decision``, with both
figures), never a failure of the plan; an item it cannot be compared on (a name geosite does not know,
another unit, a quantity the layers cannot measure) is information, saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shapely

from geosite.errors import InputError, SiteValidationError
from geosite.io.csv_table import decimal_cell, read_table
from geosite.io.text import SubmissionText
from geosite.plan.prices import item_named
from geosite.practices.pay import PAY_DECIMALS
from geosite.review.findings import ReviewFinding

if TYPE_CHECKING:
    from geosite.io.limits import Limits
    from geosite.plan import Plan
    from geosite.plan.quantities import Quantities

#: the columns of a submitted estimate: required, then optional
ESTIMATE_COLUMNS = ("item", "unit", "quantity")
ESTIMATE_OPTIONAL = ("kind", "phase", "unit_price", "note")
#: the finding's rule
RULE = "declared_quantities"


@dataclass(frozen=True)
class EstimateRow:
    """One row of a submitted estimate: the ``item`` as written and the practice it names (``practice``,
    None when geosite knows none), its ``unit``, ``quantity``, optional ``unit_price``, and ``where`` it was
    read (``site.toml [[estimate]] 3``, ``estimate.csv line 4``).
    """

    item: str
    practice: str | None
    unit: str
    quantity: Decimal
    unit_price: Decimal | None
    where: str


@dataclass(frozen=True)
class SubmittedEstimate:
    """The rows of a submitted estimate and where it was declared (``origin``)."""

    rows: tuple[EstimateRow, ...]
    origin: str


def read_estimate(
    folder: str | Path, conf: dict[str, Any], limits: Limits | None = None
) -> SubmittedEstimate | None:
    """The estimate a submission declares (None when it declares none).

    Parameters
    ----------
    folder : str or Path
        The submission's folder.
    conf : dict
        Its site.toml, parsed.
    limits : Limits, optional
        The table limits.

    Returns
    -------
    SubmittedEstimate or None
        The rows.

    Raises
    ------
    SiteValidationError
        Every problem of the estimate, each naming where it is.
    """
    from geosite.io.limits import Limits

    limits = limits or Limits()
    rows = conf.get("estimate")
    declared = conf.get("declared") or {}
    path = declared.get("estimate") if isinstance(declared, dict) else None
    toml = Path(folder) / "site.toml"
    if rows is not None and path is not None:
        both = "give the estimate as [[estimate]] rows or as [declared] estimate (a CSV file), not both"
        raise SiteValidationError([f"{toml}: {both}"])
    if rows is not None:
        return _toml_rows(rows, toml, limits)
    if path is not None:
        return _csv_rows(Path(folder), path, toml, limits)
    return None


def _toml_rows(rows: Any, toml: Path, limits: Limits) -> SubmittedEstimate:
    """The ``[[estimate]]`` rows of site.toml."""
    where0 = f"{toml}: [[estimate]]"
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise SiteValidationError([f"{where0} must be an array of tables (item, unit, quantity)"])
    if len(rows) > limits.max_table_rows:
        raise InputError(f"{where0}: more than max_table_rows {limits.max_table_rows:,} rows; refused")
    problems: list[str] = []
    out = []
    known = (*ESTIMATE_COLUMNS, *ESTIMATE_OPTIONAL)
    for i, r in enumerate(rows, 1):
        where = f"{where0} {i}"
        problems += [f"{where}: {k[:60]!r} is not one of {', '.join(known)}" for k in r if k not in known]
        problems += [f"{where}: no {k}" for k in ESTIMATE_COLUMNS if k not in r]
        cells = {k: _cell(v) for k, v in r.items()}
        row = _row(cells, where, problems)
        if row is not None:
            out.append(row)
    if problems:
        raise SiteValidationError(problems)
    return SubmittedEstimate(tuple(out), "site.toml [[estimate]]")


def _cell(v: Any) -> str | None:
    """A TOML value as the text a CSV cell would hold (a number as its decimal text); None for another
    type (a table, a list, a boolean, a date).
    """
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        return None
    return repr(v) if isinstance(v, float) else str(v)


def _csv_rows(root: Path, path: Any, toml: Path, limits: Limits) -> SubmittedEstimate:
    """The rows of the CSV file ``[declared] estimate`` names (inside the folder, a regular file)."""
    from geosite.io.untrusted import inside, regular_file

    what = f"{toml}: [declared] estimate"
    if not isinstance(path, str) or not path.strip():
        raise SiteValidationError([f"{what} must name a CSV file in the folder"])
    real = inside(root, path.strip(), what)
    regular_file(real, what, root)
    table = read_table(
        real, "estimate file", required=ESTIMATE_COLUMNS, optional=ESTIMATE_OPTIONAL, limits=limits
    )
    problems: list[str] = []
    out = []
    for line, cells in table.rows:
        row = _row(cells, f"estimate file {path.strip()} line {line}", problems)
        if row is not None:
            out.append(row)
    if problems:
        raise SiteValidationError(problems)
    return SubmittedEstimate(tuple(out), f"{path.strip()} ([declared] estimate)")


def _row(cells: Mapping[str, str | None], where: str, problems: list[str]) -> EstimateRow | None:
    """One estimate row from its cells (texts; None for a TOML value of another type), or None with its
    problems added.
    """
    before = len(problems)
    bad = [k for k, v in cells.items() if v is None]
    problems += [f"{where}: {k} must be a text or a number" for k in bad]
    text = {k: v or "" for k, v in cells.items()}
    if not text.get("item", "").strip() and "item" not in bad:
        problems.append(f"{where}: item is empty (a practice's name)")
    if not text.get("unit", "").strip() and "unit" not in bad:
        problems.append(f"{where}: unit is empty (LF, EA, SY, SF, AC, CY, TON)")
    qty = (
        decimal_cell(text.get("quantity", ""), "quantity", problems, where) if "quantity" not in bad else None
    )
    price = None
    if text.get("unit_price", "").strip():
        price = decimal_cell(text["unit_price"], "unit_price", problems, where)
    if len(problems) > before or qty is None:
        return None
    p = item_named(text["item"])
    return EstimateRow(
        SubmissionText(text["item"].strip()[:80]),  # the applicant's words: each writer escapes them
        p.name if p is not None else None,
        text["unit"].strip().upper()[:10],
        qty,
        price,
        where,
    )


# --------------------------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class _Item:
    """One item in one unit: what the estimate declares (None: no row) and what the layers measure (None:
    nothing counted), with the measured lines' controls and why a part is not measured.
    """

    item: str
    unit: str
    title: str
    declared: Decimal | None
    measured: float | None
    ids: tuple[int, ...]
    missing: tuple[int, ...]
    why: str


def estimate_findings(plan: Plan, measured: Quantities, est: SubmittedEstimate | None) -> list[ReviewFinding]:
    """The submitted estimate ``est`` against the quantities ``measured`` from the submitted layers of
    ``plan`` (see the module notes).

    Parameters
    ----------
    plan : Plan
        The submitted plan (its profile: the tolerance, the surety's citation).
    measured : Quantities
        The quantities of its controls.
    est : SubmittedEstimate or None
        The estimate the submission declares (None: none).

    Returns
    -------
    list of ReviewFinding
        One per item left to the Village or not compared, one pass for the items the estimate covers, or
        (no estimate) one information finding.
    """
    prof = plan.profile
    s = prof.entry("permit", "surety")
    cite = s.citation if s is not None else ""
    section = prof.section_name(s.section if s is not None and s.section else "plan")
    if est is None:
        if s is None:
            return []
        return [
            ReviewFinding(
                RULE,
                cite,
                section,
                "info",
                "No estimate is declared (site.toml [[estimate]] or [declared] estimate); the chapter asks "
                "for none. The quantities measured from the submitted layers (report: quantities) are the "
                f"basis for the surety, whose amount is {_by(prof)}'s to set ({cite}).",
            )
        ]
    tol = prof.value("submission", "declared_quantity_tolerance_pct")
    items = _items(measured, est)
    out = [_judge(plan, x, tol, origin=est.origin, cite=cite, section=section) for x in items]
    good = [f for f in out if f is None]
    found = [f for f in out if f is not None]
    if good or not found:
        covered = [x for x, f in zip(items, out, strict=True) if f is None]
        found.append(_covered(covered, tol, est.origin, cite, section))
    return found


def _by(prof: Any) -> str:
    by = prof.entry("permit", "surety_amount_by")
    return str(by.value) if by is not None else "the village"


def _items(measured: Quantities, est: SubmittedEstimate) -> list[_Item]:
    """Every (item, unit) to compare, with both figures: each row's, and each measured item the estimate
    has no row for in any of its units (in its first unit). An item the estimate gives in one of its units
    is compared in that one (a pad per SY covers its stone's TON, as a price per SY does).
    """
    from geosite.practices import registry

    declared: dict[tuple[str, str], Decimal] = {}
    titles: dict[tuple[str, str], str] = {}
    for r in est.rows:
        key = (r.practice or r.item, r.unit)
        declared[key] = declared.get(key, Decimal(0)) + r.quantity
        titles.setdefault(key, r.item)
    keys = list(declared)
    for x in measured.totals:
        p = registry.named(x.item)
        if p is None or p.pay is None or x.unit != p.pay.unit:
            continue
        if not any((x.item, u.unit) in declared for u in p.pay.units) and (x.item, x.unit) not in keys:
            keys.append((x.item, x.unit))
    out = []
    for item, unit in keys:
        lines = measured.lines(item, unit)
        out.append(
            _Item(
                item,
                unit,
                lines[0].title if lines else titles.get((item, unit), item),
                declared.get((item, unit)),
                measured.total(item, unit),
                tuple(i for x in lines for i in x.ids),
                tuple(i for x in lines for i in x.missing),
                next((x.why for x in lines if x.why), ""),
            )
        )
    return out


def _judge(
    plan: Plan, x: _Item, tol: float | None, *, origin: str, cite: str, section: str
) -> ReviewFinding | None:
    """The finding on one item (None: the estimate covers it within the tolerance)."""
    why = _not_compared(x, origin)
    if why is not None:
        return _info(why, cite, section, x) if why else None
    assert x.measured is not None
    m = round(x.measured, PAY_DECIMALS[x.unit])
    d = float(x.declared) if x.declared is not None else 0.0
    if d >= m * (1.0 - float(tol or 0.0) / 100.0):
        return None
    geoms = [c.geometry for c in plan.controls if c.id in x.ids]
    return ReviewFinding(
        RULE,
        cite,
        section,
        "inspector_decision",
        _under_words(plan, x, tol, origin=origin, cite=cite),
        values={"item": x.item, "unit": x.unit, "declared": d, "measured": m, "under_pct": _pct(m, d)},
        feature_ids=list(x.ids),
        requirement=f"an estimate within {tol or 0:g} % of the quantities the plan draws",
        submitted=f"{d:,} {x.unit}",
        geometry=shapely.union_all(geoms) if geoms else None,
        layer="bmps",
    )


def _pct(measured: float, declared: float) -> float:
    """How far ``declared`` is under ``measured``, percent of it (one decimal)."""
    return round(100.0 * (measured - declared) / measured, 1) if measured else 0.0


def _not_compared(x: _Item, origin: str) -> str | None:
    """Why the item cannot be compared (its words; "" when there is nothing to compare), None when it can."""
    from geosite.practices import registry

    p = registry.named(x.item)
    if p is None or p.pay is None:
        return (
            f"The estimate ({origin}) lists {x.declared:,} {x.unit} of {x.title!r}: not compared (geosite "
            "knows no practice with a pay item of that name)."
        )
    units = tuple(u.unit for u in p.pay.units)
    if x.unit not in units:
        return (
            f"The estimate ({origin}) lists {p.title.lower()} in {x.unit}: not compared ({p.name} is "
            f"counted in {' or '.join(units)})."
        )
    if x.measured is None:
        if x.declared is None:
            return ""
        why = f": {x.why}" if x.why else " (the submitted layers show none)"
        return (
            f"The estimate ({origin}) gives {x.declared:,} {x.unit} of {p.title.lower()}; geosite cannot "
            f"measure it from the submitted layers{why}."
        )
    return None


def _under_words(plan: Plan, x: _Item, tol: float | None, *, origin: str, cite: str) -> str:
    """The message of an understated item: both figures, the shortfall, the tolerance, whose call it is."""
    from geosite.plan.table import tag_runs
    from geosite.practices import registry

    p = registry.named(x.item)
    assert p is not None and p.pay is not None and x.measured is not None
    k = PAY_DECIMALS[x.unit]
    m = round(x.measured, k)
    d = float(x.declared) if x.declared is not None else 0.0
    got = f"gives {d:,.{k}f} {x.unit}" if x.declared is not None else "has no line for it"
    tol_words = (
        f"beyond the {tol:g} % tolerance ([submission] declared_quantity_tolerance_pct)"
        if tol is not None
        else "and the profile gives no tolerance ([submission] declared_quantity_tolerance_pct)"
    )
    partly = f" (not counting {tag_runs(x.missing)}: {x.why})" if x.missing else ""
    return (
        f"{p.title} ({p.pay.standard}): the estimate ({origin}) {got}; the submitted layers measure "
        f"{m:,.{k}f} {x.unit} ({tag_runs(x.ids)}){partly}: {m - d:,.{k}f} {x.unit} ({_pct(m, d):.1f} %) "
        f"under, {tol_words}. The chapter asks for no estimate, but the surety ({cite}) rests on it and its "
        f"amount is {_by(plan.profile)}'s to set: the Village's to decide."
    )


def _info(message: str, cite: str, section: str, x: _Item) -> ReviewFinding:
    """An item the estimate cannot be compared on: information, saying why."""
    return ReviewFinding(
        RULE,
        cite,
        section,
        "info",
        message,
        values={
            "item": x.item,
            "unit": x.unit,
            "declared": None if x.declared is None else float(x.declared),
        },
    )


def _covered(items: list[_Item], tol: float | None, origin: str, cite: str, section: str) -> ReviewFinding:
    """The items the estimate covers (within the tolerance), in one finding."""
    parts = [
        f"{x.title.lower()} {x.measured:,.{PAY_DECIMALS[x.unit]}f} {x.unit} measured, "
        f"{float(x.declared or 0):,.{PAY_DECIMALS[x.unit]}f} declared"
        for x in items
        if x.measured is not None
    ]
    within = f"within {tol:g} % " if tol is not None else ""
    return ReviewFinding(
        RULE,
        cite,
        section,
        "pass",
        f"The estimate ({origin}) covers {within}the quantities measured from the submitted layers"
        + (f": {'; '.join(parts)}." if parts else " (the layers show no control with a pay item)."),
    )
