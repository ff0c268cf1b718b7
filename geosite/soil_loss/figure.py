"""The figure a site's soil loss comes to: the worst 12-month window's t/ac, as report.json's ``soil_loss``
block gives it (:func:`worst_figure`). ``analyze``'s plan folder declares it; ``check`` compares a declared
figure with it (:mod:`geosite.review.state_standard`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from geosite.soil_loss.data import SoilLossData


@dataclass(frozen=True)
class SoilLossFigure:
    """The worst window's soil loss as recomputed: ``low`` and ``high`` t/ac (equal when exact), the
    window's label and the standard's limit, t/ac/yr.
    """

    low: float
    high: float
    window: str
    limit: float

    @property
    def exact(self) -> bool:
        """Whether the figure is one number (R's distribution through the year known)."""
        return self.low == self.high

    def text(self) -> str:
        """The figure as a finding says it."""
        if self.exact:
            return f"{self.high:.2f} t/ac"
        return f"between {self.low:.2f} and {self.high:.2f} t/ac"


def worst_figure(block: dict[str, Any], data: SoilLossData) -> SoilLossFigure | None:
    """The figure of report.json's ``soil_loss`` ``block`` (None where it was not computed: no schedule,
    or a number missing, its finding says which; or where the standard does not apply, a site under one
    acre, whose finding is ``info``).
    """
    worst = block.get("worst")
    finding = block.get("finding") or {}
    if not block.get("assessed") or not worst or finding.get("status") not in ("pass", "not_assessed"):
        return None
    if block.get("r_factor") is None or block.get("without_k_sqft") or block.get("covers_without_c"):
        return None
    low, high = float(worst["tpa_low"]), float(worst["tpa_high"])
    if block.get("exact"):
        low = high
    return SoilLossFigure(
        low, high, str(block.get("worst_window", "")), data.max_tons_per_acre_year.required()
    )
