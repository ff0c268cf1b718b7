"""Pay items: the unit a contractor bids a practice in, how its quantity is measured on the plan, and the
count of one control in it.

A practice's descriptor names its :class:`PayItem` (``pay``); a practice bid in two units names the second
in ``also`` (a tracking pad's area in SY and its stone in TON; a trap's storage in CY and its surface in
SF). :meth:`PayItem.count` counts one control from its measured size and attributes and, where the count
needs a number from outside (a pad's stone depth and density, a trap's storage per acre drained), from the
profile's ``[quantities]`` table, which gives each number with its source. Where a number is not given the
count is not assessed and says why: geosite invents no depth, density or storage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from geosite.rules.registry import PAY_UNITS

__all__ = ["MEASURES", "PAY_DECIMALS", "PAY_UNITS", "Counted", "PayItem"]
#: the decimals a quantity is given to in each pay unit (what a bid sheet prints and prices)
PAY_DECIMALS = {"LF": 0, "EA": 0, "SY": 1, "SF": 0, "AC": 2, "CY": 1, "TON": 1}
#: square feet per unit of area
SQFT_PER = {"SF": 1.0, "SY": 9.0, "AC": 43560.0}
#: cubic feet per cubic yard
CUFT_PER_CY = 27.0
#: how a quantity is measured: a line's ``length`` (ft), a polygon's ``area`` (sq ft), ``count`` (one
#: each), ``storage`` (the control's ``storage_cy``, else the profile's storage per acre drained),
#: ``surface`` (the control's ``surface_sqft``, else its area), ``stone`` (its area at the profile's stone
#: depth and density)
MEASURES = ("length", "area", "count", "storage", "surface", "stone")


@dataclass(frozen=True)
class Counted:
    """One control's count in a pay unit: ``amount`` (None when not assessed) and, then, ``why``."""

    amount: float | None
    unit: str
    why: str = ""


@dataclass(frozen=True)
class PayItem:
    """The unit a contractor bids a practice in and how its quantity is measured on the plan.

    ``unit`` is one of :data:`PAY_UNITS`; ``measure`` one of :data:`MEASURES`; ``how`` says it in words;
    ``standard`` is the Handbook's technical standard that specifies the practice; ``by``: a control
    attribute whose value splits the item into lines (inlet protection by its type, ``method``);
    ``keys``: the profile's ``[quantities]`` numbers the count reads (``stone``: the depth, in, then the
    density, tons per cu yd; ``storage``: cu yd per acre drained); ``also``: the item's count in a second
    unit; ``part``: what of the practice a unit counts, where it is counted in two (``stone``, ``surface``).
    """

    unit: str
    measure: str
    how: str
    standard: str
    by: str | None = None
    keys: tuple[str, ...] = ()
    also: tuple[PayItem, ...] = ()
    part: str = ""

    @property
    def units(self) -> tuple[PayItem, ...]:
        """The item in each unit it is counted in: itself, then :attr:`also`."""
        return (self, *self.also)

    def count(self, attrs: Mapping[str, Any], number: Callable[[str], Any]) -> Counted:
        """What one control with attributes ``attrs`` (its measured ``length_ft`` / ``area_sqft`` and its
        own ``storage_cy``, ``surface_sqft``, ``drainage_acres``) counts for in this unit.

        Parameters
        ----------
        attrs : Mapping
            The control's attributes and measured size.
        number : callable
            The profile's ``[quantities]`` value of a key (None when the profile does not give it).

        Returns
        -------
        Counted
            The amount, or None and why it is not assessed.
        """
        return _COUNTERS[self.measure](self, attrs, number)


def _num(attrs: Mapping[str, Any], key: str) -> float | None:
    """The attribute ``key`` as a finite number (None when not given or not a number)."""
    v = attrs.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v or v in (float("inf"), float("-inf")):
        return None
    return float(v)


def _length(p: PayItem, attrs: Mapping[str, Any], number: Callable[[str], Any]) -> Counted:
    ft = _num(attrs, "length_ft")
    return Counted(ft, p.unit) if ft is not None else Counted(None, p.unit, "not drawn as a line")


def _area(p: PayItem, attrs: Mapping[str, Any], number: Callable[[str], Any]) -> Counted:
    sqft = _num(attrs, "area_sqft")
    if sqft is None:
        return Counted(None, p.unit, "not drawn as an area")
    return Counted(sqft / SQFT_PER[p.unit], p.unit)


def _count(p: PayItem, attrs: Mapping[str, Any], number: Callable[[str], Any]) -> Counted:
    return Counted(1.0, p.unit)


def _surface(p: PayItem, attrs: Mapping[str, Any], number: Callable[[str], Any]) -> Counted:
    sqft = _num(attrs, "surface_sqft")
    sqft = sqft if sqft is not None else _num(attrs, "area_sqft")
    if sqft is None:
        return Counted(None, p.unit, "its surface is not given (surface_sqft) and it is drawn as a point")
    return Counted(sqft / SQFT_PER[p.unit], p.unit)


def _storage(p: PayItem, attrs: Mapping[str, Any], number: Callable[[str], Any]) -> Counted:
    cy = _num(attrs, "storage_cy")
    if cy is not None:
        return Counted(cy, p.unit)
    per_acre = number(p.keys[0]) if p.keys else None
    acres = _num(attrs, "drainage_acres")
    if per_acre is not None and acres is not None:
        return Counted(float(per_acre) * acres, p.unit)
    why = "its storage is not given (storage_cy)"
    if p.keys and per_acre is None:
        why += f" and the profile gives no storage per acre drained ([quantities] {p.keys[0]})"
    elif p.keys:
        why += " nor its drainage area (drainage_acres)"
    return Counted(None, p.unit, why + f"; {p.standard} sizes it by its design")


def _stone(p: PayItem, attrs: Mapping[str, Any], number: Callable[[str], Any]) -> Counted:
    sqft = _num(attrs, "area_sqft")
    depth_in, tons_per_cy = (number(k) for k in p.keys)
    missing = [k for k, v in zip(p.keys, (depth_in, tons_per_cy), strict=True) if v is None]
    if missing:
        return Counted(
            None, p.unit, "the profile does not give " + " or ".join(f"[quantities] {k}" for k in missing)
        )
    if sqft is None:
        return Counted(None, p.unit, "not drawn as an area")
    cy = sqft * float(depth_in) / 12.0 / CUFT_PER_CY
    return Counted(cy * float(tons_per_cy), p.unit)


_COUNTERS: dict[str, Callable[[PayItem, Mapping[str, Any], Callable[[str], Any]], Counted]] = {
    "length": _length,
    "area": _area,
    "count": _count,
    "storage": _storage,
    "surface": _surface,
    "stone": _stone,
}
assert set(_COUNTERS) == set(MEASURES)
