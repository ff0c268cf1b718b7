"""The plan's quantities, estimate and surety, once, for every view: report.json ``quantities``, report.md's
section, ``quantities.csv`` (a contractor opens it in a spreadsheet) and the plan folder's declared
estimate.

The prices are the user's (``--prices FILE``), else the Village's published ``[prices]``, else none: the
quantities then stand alone and every view says no prices were given.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from geosite.io.spreadsheet import safe_cell
from geosite.io.text import markdown
from geosite.plan.estimate import Estimate, estimate
from geosite.plan.prices import PriceTable, profile_prices
from geosite.plan.quantities import PlanQuantities, Quantities, QuantityLine, plan_quantities
from geosite.plan.surety import Surety, surety_of
from geosite.plan.table import tag_runs

if TYPE_CHECKING:
    from geosite.plan.model import Plan

#: what a report says where no prices were given
NO_PRICES = (
    "No unit prices were given (geosite invents none): give a unit-price file (--prices FILE: item, unit, "
    "price, source, date) or the Village's published table (its profile's [prices])."
)
#: how quantities are rounded, in words
ROUNDING = (
    "Quantities to the decimals each unit is bid in (LF, EA, SF whole; SY, CY, TON to 0.1; AC to 0.01); "
    "an extension is that quantity x the unit price, to the cent."
)
#: the columns of quantities.csv
CSV_COLUMNS = (
    "status",
    "phase",
    "item",
    "kind",
    "description",
    "unit",
    "quantity",
    "how_measured",
    "standard",
    "controls",
    "not_assessed",
    "unit_price",
    "price_source",
    "price_date",
    "extension",
)


@dataclass(frozen=True)
class QuantityReport:
    """A plan's quantities (:class:`~geosite.plan.quantities.PlanQuantities`), the prices used (None: none
    given), the estimate of the controls the plan builds (None without prices) and the surety.
    """

    quantities: PlanQuantities
    prices: PriceTable | None
    estimate: Estimate | None
    surety: Surety

    def to_dict(self) -> dict[str, Any]:
        """The block report.json holds as ``quantities``."""
        q = self.quantities
        return {
            "plan": q.plan,
            "proposed": None if q.proposed is None else q.proposed.to_dict(),
            "submitted": None if q.submitted is None else q.submitted.to_dict(),
            "rounding": ROUNDING,
            "prices": None if self.prices is None else self.prices.to_dict(),
            "prices_note": NO_PRICES if self.prices is None else None,
            "estimate": None if self.estimate is None else self.estimate.to_dict(),
            "surety": self.surety.to_dict(),
        }


def quantity_report(plan: Plan, prices: PriceTable | None = None) -> QuantityReport:
    """The quantities, estimate and surety of ``plan`` at ``prices`` (else the profile's ``[prices]``).

    Parameters
    ----------
    plan : Plan
        The site's plan.
    prices : PriceTable, optional
        The user's unit prices.

    Returns
    -------
    QuantityReport
        Everything the views print.
    """
    pq = plan_quantities(plan)
    table = prices if prices is not None else profile_prices(plan.profile)
    built = pq.built
    est = estimate(built, table) if table is not None and built is not None else None
    return QuantityReport(pq, table, est, surety_of(plan.profile, est))


def _num(v: float | None, unit: str | None) -> str:
    """A quantity as a table prints it (its unit's decimals), or "not assessed"."""
    from geosite.practices.pay import PAY_DECIMALS

    if v is None or unit is None:
        return "not assessed"
    return f"{v:,.{PAY_DECIMALS[unit]}f}"


def quantity_markdown(block: dict[str, Any], escape: Callable[[Any], str] | None = None) -> list[str]:
    """The report.md section: the quantities of the plan's controls (per practice, then per phase), the
    other status's, the estimate or the note that no prices were given, and the surety.

    Parameters
    ----------
    block : dict
        The ``quantities`` of report.json (:meth:`QuantityReport.to_dict`).
    escape : callable, optional
        How a text becomes one literal markdown cell; by default :func:`geosite.io.text.markdown` (one
        line, every character Markdown or HTML acts on escaped: a kind, a phase and a price's source are
        the submission's or a price file's words, in report.md as in findings.md).

    Returns
    -------
    list of str
        Markdown lines.
    """
    _md = escape or markdown
    out = ["## Quantities, estimate and surety", "", block["rounding"], ""]
    for status in ("proposed", "submitted"):
        q = block.get(status)
        if not q:
            continue
        who = "proposed by geosite" if status == "proposed" else "as submitted (layer bmps)"
        out += [f"### Quantities of the controls {who}", ""]
        out += _md_lines(q["totals"], _md, phase=False)
        if len({x["phase"] for x in q["by_phase"]}) > 1:
            out += ["Per phase:", ""] + _md_lines(q["by_phase"], _md, phase=True)
    out += ["### Estimate", ""]
    est = block.get("estimate")
    if est is None:
        out += [_md(block.get("prices_note") or NO_PRICES), ""]
    else:
        out += [f"Unit prices: {_md(est['prices'])}.", ""]
        out += ["| item | unit | quantity | unit price | source, date | extension |"]
        out += ["| --- | --- | ---: | ---: | --- | ---: |"]
        for x in est["lines"]:
            price = f"per {x['priced_in']}" if x["priced_in"] else _money(x["unit_price"])
            src = f"{x['price_source']}, {x['price_date']}" if x["price_source"] else "no price given"
            out.append(
                f"| {_md(x['label'])} | {_md(x['unit'])} | {_num(x['quantity'], x['unit'])} | {price} | "
                f"{_md(src)} | {_money(x['extension'])} |"
            )
        out += [f"| **total** | | | | | **{_money(est['total'])}** |", ""]
        if not est["complete"]:
            left = est["unpriced"] + est["not_wholly_measured"]
            out += [f"Incomplete: {_md('; '.join(left))}.", ""]
    out += ["### Surety", "", _md(block["surety"]["words"]), ""]
    return out


def _money(v: float | None) -> str:
    return "" if v is None else f"${v:,.2f}"


def _md_lines(lines: list[dict[str, Any]], _md: Callable[[Any], str], *, phase: bool) -> list[str]:
    """A markdown table of quantity lines, each text through ``_md``."""
    head = ("| phase " if phase else "") + "| item | unit | quantity | how measured | standard | controls |"
    out = [head, "| " + " | ".join(["---"] * (7 if phase else 6)) + " |"]
    for x in lines:
        qty = _num(x["quantity"], x["unit"])
        if x["not_assessed"] and x["quantity"] is not None:
            qty += f" (not assessed: {x['not_assessed']})"
        why = f"; {x['why']}" if x["why"] else ""
        out.append(
            ("| " + _md(x["phase"] or "not known") + " " if phase else "")
            + f"| {_md(x['label'])} | {_md(x['unit'])} | {_md(qty)} | {_md((x['how'] or '') + why)} | "
            f"{_md(x['standard'])} | {_md(x['tags'])} |"
        )
    return [*out, ""]


def csv_rows(report: QuantityReport) -> list[list[Any]]:
    """The rows of quantities.csv (after :data:`CSV_COLUMNS`): the built plan's totals with their prices and
    extensions, a total row when priced, then its lines per phase, then the other status's totals.

    Parameters
    ----------
    report : QuantityReport
        The quantities.

    Returns
    -------
    list of list
        The rows, each cell a text or a number.
    """
    q = report.quantities
    rows: list[list[Any]] = []
    priced = {id(x.line): x for x in report.estimate.lines} if report.estimate is not None else {}
    for group in (q.built, q.proposed if q.plan == "submitted" else q.submitted):
        if group is None:
            continue
        rows += [_csv_row(x, priced.get(id(x)), "all") for x in group.totals]
        if group is q.built and report.estimate is not None:
            total = ["", "", "TOTAL", "", "estimate", "USD", "", "", "", "", "", ""]
            rows.append([*total, report.estimate.origin, "", float(report.estimate.total)])
        if group is q.built:
            rows += [_csv_row(x, None, x.phase or "not known") for x in group.by_phase]
    return rows


def _csv_row(x: QuantityLine, e: Any, phase: str) -> list[Any]:
    """One pay line as a row of quantities.csv (with its estimate line ``e``, if any) in ``phase``."""
    return [
        x.status,
        phase,
        x.item,
        x.kind,
        x.label,
        x.unit or "",
        "" if x.rounded is None else x.rounded,
        x.how + (f"; not assessed: {x.why}" if x.missing else ""),
        x.standard,
        tag_runs(x.ids),
        tag_runs(x.missing),
        "" if e is None or e.price is None or e.covered else float(e.price.price),
        "" if e is None or e.price is None else e.price.source,
        "" if e is None or e.price is None else e.price.date.isoformat(),
        "" if e is None or e.extension is None else float(e.extension),
    ]


def csv_text(report: QuantityReport) -> str:
    """The text of quantities.csv: :data:`CSV_COLUMNS`, then :func:`csv_rows`, every text cell safe from a
    spreadsheet's formulas (:func:`geosite.io.spreadsheet.safe_cell`).

    Parameters
    ----------
    report : QuantityReport
        The quantities.

    Returns
    -------
    str
        The CSV text.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for row in csv_rows(report):
        w.writerow([safe_cell(c) for c in row])
    return buf.getvalue()


def declared_estimate(quantities: Quantities | None, est: Estimate | None = None) -> list[dict[str, Any]]:
    """The plan folder's ``[[estimate]]`` rows: each total line wholly measured (item, kind, unit, quantity
    as bid, and its unit price where priced), for ``check`` to hold against the layers.

    Parameters
    ----------
    quantities : Quantities or None
        The plan's quantities (its own controls).
    est : Estimate, optional
        Their estimate.

    Returns
    -------
    list of dict
        TOML-ready rows.
    """
    if quantities is None:
        return []
    prices = {id(x.line): x for x in est.lines} if est is not None else {}
    out = []
    for x in quantities.totals:
        if x.unit is None or x.rounded is None or not x.complete:
            continue
        row: dict[str, Any] = {"item": x.item, "unit": x.unit, "quantity": x.rounded}
        if x.kind:
            row["kind"] = x.kind
        e = prices.get(id(x))
        if e is not None and e.price is not None and not e.covered:
            row["unit_price"] = float(e.price.price)
        out.append(row)
    return out
