"""The cost estimate: the plan's quantities at the unit prices given, each line's extension and the total.

A line's quantity is its amount to the decimals its unit is bid in (:data:`~geosite.practices.pay.
PAY_DECIMALS`), so quantity x price is the extension a reader can check on the table; extensions are
rounded to the cent (half up) and the total is their sum. A line whose item is priced in its other unit
(a pad priced per SY: its stone's TON line) is covered by that line, not priced again. A line with no
price, or whose quantity could not be wholly measured, leaves the estimate incomplete, and it says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geosite.plan.prices import PriceTable, UnitPrice
    from geosite.plan.quantities import Quantities, QuantityLine

CENT = Decimal("0.01")


@dataclass(frozen=True)
class EstimateLine:
    """One line of the estimate: the pay ``line``, its ``quantity`` as bid (None when not measured), its
    ``price`` (None when none is given), the ``extension`` (quantity x price, to the cent; None when either
    is missing) and ``covered`` (the unit its item is priced in instead, where that is another).
    """

    line: QuantityLine
    quantity: Decimal | None
    price: UnitPrice | None
    extension: Decimal | None
    covered: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the line's label, unit, quantity, unit price, its source and date, the extension."""
        p = self.price
        return {
            "item": self.line.item,
            "kind": self.line.kind or None,
            "label": self.line.label,
            "unit": self.line.unit,
            "quantity": None if self.quantity is None else float(self.quantity),
            "complete": self.line.complete,
            "unit_price": None if p is None or self.covered else float(p.price),
            "price_source": None if p is None else p.source,
            "price_date": None if p is None else p.date.isoformat(),
            "extension": None if self.extension is None else float(self.extension),
            "priced_in": self.covered or None,
        }


@dataclass(frozen=True)
class Estimate:
    """The estimate of one set of quantities at ``prices``: its ``lines``, the ``total`` of the extensions
    (US dollars) and where the prices come from (``origin``).
    """

    lines: tuple[EstimateLine, ...]
    total: Decimal
    origin: str

    @property
    def unpriced(self) -> list[EstimateLine]:
        """The lines with a quantity and no price (nor covered by their item's other unit)."""
        return [x for x in self.lines if x.price is None and x.line.unit is not None and not x.covered]

    @property
    def unmeasured(self) -> list[EstimateLine]:
        """The priced lines whose quantity could not be wholly measured."""
        return [x for x in self.lines if x.price is not None and not x.covered and not x.line.complete]

    @property
    def complete(self) -> bool:
        """Whether every line is priced and wholly measured: the total covers the whole plan."""
        return not self.unpriced and not self.unmeasured

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the lines, the total, whether it is complete and what it leaves out."""
        return {
            "prices": self.origin,
            "lines": [x.to_dict() for x in self.lines],
            "total": float(self.total),
            "complete": self.complete,
            "unpriced": [x.line.label + f" ({x.line.unit})" for x in self.unpriced],
            "not_wholly_measured": [x.line.label + f" ({x.line.unit})" for x in self.unmeasured],
        }


def estimate(quantities: Quantities, prices: PriceTable) -> Estimate:
    """The estimate of ``quantities`` (their per-practice totals) at ``prices``.

    Parameters
    ----------
    quantities : Quantities
        The plan's quantities (the controls it builds).
    prices : PriceTable
        The unit prices.

    Returns
    -------
    Estimate
        Each line's extension and the total.
    """
    lines = []
    for q in quantities.totals:
        price = prices.find(q)
        qty = None if q.rounded is None else Decimal(str(q.rounded))
        if price is not None and price.unit != q.unit:
            lines.append(EstimateLine(q, qty, price, None, covered=price.unit))
            continue
        ext = None if price is None or qty is None else (qty * price.price).quantize(CENT, ROUND_HALF_UP)
        lines.append(EstimateLine(q, qty, price, ext))
    total = sum((x.extension for x in lines if x.extension is not None), Decimal("0.00"))
    return Estimate(tuple(lines), total, prices.origin)
