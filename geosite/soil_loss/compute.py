"""Soil loss over a 12-month window, cell by cell: A = R x K x LS x sum over the window's stretches of
(share of the year's erosivity in the stretch x the stretch's C), US customary factors giving tons per acre.

With R's distribution through the year the sum is exact. Without it, a window's erosivity is still R
(any 12 months hold one year's erosivity whatever its distribution), so a cell's loss lies between
R K LS times the least C it has in the window and R K LS times the greatest: the window is bounded, not
computed (:attr:`WindowLoss.exact` False).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geosite.soil_loss.cover import CoverTimeline
from geosite.soil_loss.erosivity import Rainfall
from geosite.soil_loss.windows import Window
from geosite.units import SQFT_PER_ACRE


@dataclass(frozen=True, eq=False)
class WindowLoss:
    """One window's soil loss on the counted cells (``timeline.cells`` order).

    Attributes
    ----------
    window : the 12 months.
    low_tpa, high_tpa : each cell's loss over the window, tons per acre (equal when ``exact``); NaN
        where not assessed (no K, no LS: beyond the method's range, or a cover without a known C).
    counted : the cells in the construction period during the window.
    exact : whether the loss is computed (R's distribution known) or bounded.
    """

    window: Window
    low_tpa: np.ndarray
    high_tpa: np.ndarray
    counted: np.ndarray
    exact: bool

    def totals(self, cell_sqft: float, among: np.ndarray | None = None) -> dict[str, float]:
        """Tons, assessed acres and tons per acre (low and high) over the counted cells (``among``: a bool
        subset of them, e.g. a phase's), and the acres not assessed.
        """
        pick = self.counted if among is None else (self.counted & among)
        ok = pick & np.isfinite(self.low_tpa) & np.isfinite(self.high_tpa)
        ac = cell_sqft / SQFT_PER_ACRE
        acres = float(ok.sum()) * ac
        low = float(self.low_tpa[ok].sum()) * ac
        high = float(self.high_tpa[ok].sum()) * ac
        return {
            "tons_low": low,
            "tons_high": high,
            "acres": acres,
            "tpa_low": low / acres if acres else 0.0,
            "tpa_high": high / acres if acres else 0.0,
            "acres_not_assessed": float((pick & ~ok).sum()) * ac,
        }


def stretch_shares(timeline: CoverTimeline, window: Window, rainfall: Rainfall | None) -> np.ndarray:
    """Each stretch's erosivity in ``window`` in years' worth (NaN without the distribution; 0 outside)."""
    b = timeline.breaks
    out = np.zeros(len(b) - 1)
    for i in range(len(b) - 1):
        lo, hi = max(b[i], window.start), min(b[i + 1], window.stop)
        if hi <= lo:
            continue
        if rainfall is None or rainfall.distribution is None:
            out[i] = np.nan
        else:
            out[i] = rainfall.distribution.share(lo, hi)
    return out


def window_loss(
    timeline: CoverTimeline, window: Window, rkls: np.ndarray, rainfall: Rainfall | None
) -> WindowLoss:
    """The loss of each counted cell over ``window``; ``rkls`` is R x K x LS of those cells (tons per acre
    per year of bare soil), ``rainfall`` gives the distribution (None or without one: bounds).
    """
    b = timeline.breaks
    inside = np.array([min(b[i + 1], window.stop) > max(b[i], window.start) for i in range(len(b) - 1)])
    n = timeline.cells.size
    if not inside.any():
        empty = np.full(n, np.nan)
        return WindowLoss(window, empty, empty, np.zeros(n, bool), True)
    c, active = timeline.c[inside], timeline.active[inside]
    counted = active.any(axis=0)
    exact = rainfall is not None and rainfall.distribution is not None
    if exact:
        shares = stretch_shares(timeline, window, rainfall)[inside]
        weighted = shares @ c  # NaN where a stretch's C is unknown
        return WindowLoss(window, rkls * weighted, rkls * weighted, counted, True)
    cmin = np.where(np.isnan(c).any(axis=0), np.nan, c.min(axis=0))
    cmax = np.where(np.isnan(c).any(axis=0), np.nan, c.max(axis=0))
    return WindowLoss(window, rkls * cmin, rkls * cmax, counted, False)
