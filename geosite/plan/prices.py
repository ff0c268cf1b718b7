"""Unit prices, only from a source: a unit-price file the user gives (``--prices FILE``) or a Village's
published table in its profile (``[prices]``). geosite invents no price.

The file is a CSV with the columns ``item`` (a practice's name, ``silt_fence``, or its title, "Silt
fence"), ``unit`` (the pay unit it is priced in: one its item is counted in), ``price`` (US dollars per
unit), ``source`` (where the price comes from: a bid tabulation, a supplier's quote) and ``date`` (when,
YYYY-MM-DD); optionally ``kind`` (the item's kind where it is split: an inlet protection's type; empty:
every kind) and ``note``. An item (of a kind) is priced once, in one of its units (a pad per SY, or its
stone per TON, not both: the two would count the stone twice). Every problem is named by file and line,
all raised together.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite.errors import SiteValidationError
from geosite.io.csv_table import date_cell, decimal_cell, read_table
from geosite.practices import registry

if TYPE_CHECKING:
    from geosite.io.limits import Limits
    from geosite.plan.quantities import QuantityLine
    from geosite.practices.base import Practice
    from geosite.rules import Profile

#: the columns of a unit-price file: required, then optional
PRICE_COLUMNS = ("item", "unit", "price", "source", "date")
PRICE_OPTIONAL = ("kind", "note")


@dataclass(frozen=True)
class UnitPrice:
    """One unit price: the ``item`` (a practice's name) and ``kind`` ("" for every kind), the ``unit`` it is
    priced in, the ``price`` (US dollars per unit), its ``source`` and ``date``, and the ``line`` of the
    file it was read from (None for a profile's).
    """

    item: str
    kind: str
    unit: str
    price: Decimal
    source: str
    date: dt.date
    line: int | None = None


@dataclass(frozen=True)
class PriceTable:
    """Unit prices and where they come from (``origin``: the file, or the profile's ``[prices]``)."""

    prices: tuple[UnitPrice, ...]
    origin: str

    def find(self, line: QuantityLine) -> UnitPrice | None:
        """The price of pay line ``line``: its item's of its kind, else its item's for every kind; in any
        of the item's units (see :meth:`priced_in`).
        """
        for kind in (line.kind.lower(), ""):
            for p in self.prices:
                if p.item == line.item and p.kind.lower() == kind:
                    return p
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the origin and each price."""
        return {
            "origin": self.origin,
            "prices": [
                {
                    "item": p.item,
                    "kind": p.kind or None,
                    "unit": p.unit,
                    "price": float(p.price),
                    "source": p.source,
                    "date": p.date.isoformat(),
                }
                for p in self.prices
            ],
        }


def item_named(text: str) -> Practice | None:
    """The practice a price or estimate row names: by its name (``silt_fence``) or its title ("Silt
    fence"), case, spaces, hyphens and underscores aside; None for one geosite does not know.
    """
    key = _key(text)
    for p in registry.PRACTICES:
        if key in (_key(p.name), _key(p.title)):
            return p
    return None


def _key(text: str) -> str:
    return re.sub(r"[\s_\-]+", "_", str(text).strip().lower())


def read_prices(path: str | Path, limits: Limits | None = None) -> PriceTable:
    """The unit-price file at ``path`` (see the module notes).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    limits : Limits, optional
        Its size and row limits.

    Returns
    -------
    PriceTable
        The prices.

    Raises
    ------
    InputError
        Every problem of the file, each naming its line.
    """
    what = "unit-price file"
    table = read_table(path, what, required=PRICE_COLUMNS, optional=PRICE_OPTIONAL, limits=limits)
    problems: list[str] = []
    prices: list[UnitPrice] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in table.rows:
        price = _price_row(line, row, problems)
        if price is None:
            continue
        key = (price.item, price.kind.lower())
        if key in seen:
            problems.append(
                f"line {line}: {price.item}{f' ({price.kind})' if price.kind else ''} is priced on line "
                f"{seen[key]} already (an item is priced once, in one of its units)"
            )
            continue
        seen[key] = line
        prices.append(price)
    if problems:
        raise SiteValidationError([f"{what} {table.path}: {p}" for p in problems])
    return PriceTable(tuple(prices), str(table.path))


def _price_row(line: int, row: dict[str, str], problems: list[str]) -> UnitPrice | None:
    """One row of a unit-price file, or None (and its problems added)."""
    where = f"line {line}"
    before = len(problems)
    practice = item_named(row["item"])
    unit = row["unit"].strip().upper()
    if practice is None or practice.pay is None:
        paid = ", ".join(p.name for p in registry.PRACTICES if p.pay is not None)
        problems.append(f"{where}: item {row['item'][:60]!r} is not a practice with a pay item ({paid})")
    else:
        units = tuple(u.unit for u in practice.pay.units)
        if unit not in units:
            problems.append(
                f"{where}: {practice.name} is counted in {' or '.join(units)}, not {row['unit'][:20]!r}"
            )
    price = decimal_cell(row["price"], "price", problems, where)
    if not row["source"]:
        problems.append(f"{where}: source is empty (say where the price comes from)")
    date = date_cell(row["date"], "date", problems, where)
    if len(problems) > before or practice is None or price is None or date is None:
        return None
    return UnitPrice(practice.name, row.get("kind", ""), unit, price, row["source"], date, line)


def profile_prices(profile: Profile) -> PriceTable | None:
    """The Village's published unit prices (its profile's ``[prices]``), None when it publishes none."""
    table = profile.tables.get("prices") or {}
    if not table:
        return None
    prices = tuple(
        UnitPrice(
            k,
            "",
            str(e.unit),
            Decimal(str(e.value)),
            str(e.source),
            e.date if isinstance(e.date, dt.date) else dt.date.fromisoformat(str(e.date)),
        )
        for k, e in table.items()
    )
    return PriceTable(prices, f"the profile's [prices] ({profile.name})")
