"""Soil loss over the schedule (geosite.soil_loss, NR 151.11): oracles by hand and from published examples.

- the unit plot: 72.6 ft at 9 % has LS = 1 (McCool's S gives 1.0059 there: S's two formulas meet at 9 %
  within 0.6 %, so within 1 %);
- a plane: the mean grid L of n cells of size D along the flow equals (n D / 72.6)^m (Desmet & Govers);
- a 12-month window of constant C gives exactly R K LS C;
- EPA Fact Sheet 3.1's worked example as the California State Water Resources Control Board's notice
  quotes it (Sacramento, Feb 29, 2012 - Sep 1, 2014, EI zone 23, R = 35): two full years 70, the half year
  35 x (54.1 % - 25.7 %) = 9.94, total 79.94;
- Dane County's windows: Apr 1, 2020 - Oct 31, 2021 is run as Apr 1, 2020 - Mar 31, 2021 and Nov 1, 2020 -
  Oct 31, 2021 (Dane County Erosion Control and Stormwater Manual, 'Universal Soil Loss Equation and
  Spreadsheet').
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest
import shapely
from affine import Affine

from geosite.hydrology import flow_grid
from geosite.soil_loss import (
    CONCENTRATED,
    STEEP,
    CoverSchedule,
    CoverSpan,
    ErosivityDistribution,
    Rainfall,
    add_months,
    cover_timeline,
    length_exponent,
    ls_factor,
    schedule_windows,
    steepness_factor,
    window_loss,
)
from geosite.soil_loss.windows import Window
from geosite.testing import inclined_plane

D = dt.date


def _sin(pct: float) -> float:
    return math.sin(math.atan(pct / 100.0))


# ------------------------------------------------------------------------------------------------ LS


def test_unit_plot_has_ls_one():
    """72.6 ft at 9 %: L = 1 for any m; S = 16.8 sin - 0.5 = 1.0059 (McCool's two formulas meet at 9 %)."""
    s = float(steepness_factor(np.array(_sin(9.0))))
    assert s == pytest.approx(16.8 * _sin(9.0) - 0.5, abs=1e-12)
    assert s == pytest.approx(1.0, rel=0.01)
    below = float(steepness_factor(np.array(_sin(8.999))))
    assert below == pytest.approx(10.8 * _sin(8.999) + 0.03, abs=1e-12)


@pytest.mark.parametrize("pct", [3.0, 9.0, 20.0])
def test_plane_mean_l_is_the_closed_form(pct):
    """A plane falling south, n rows of D ft: every column is one slope of n cells; the grid's mean L over
    a column equals (n D / 72.6)^m, whatever the slope (m follows it), on disturbed and undisturbed soil.
    """
    n, cell = 40, 3.0
    dem = inclined_plane(pct, shape=(n, 7), cell=cell)
    fg = flow_grid(dem)
    for disturbed, rill in ((True, 2.0), (False, 1.0)):
        g = ls_factor(fg, disturbed=disturbed)
        m = float(length_exponent(np.array(_sin(pct)), rill))
        col = g.l[:, 3]
        assert np.isfinite(col).all()
        assert float(col.mean()) == pytest.approx((n * cell / 72.6) ** m, rel=1e-9)
        # the top cell has nothing upslope, the bottom one the whole column but itself
        assert g.upslope_sqft[0, 3] == 0.0 and g.upslope_sqft[-1, 3] == pytest.approx((n - 1) * cell**2)


def test_unit_plot_on_the_grid_has_ls_one():
    """A 72.6-ft plot at 9 % cut in 33 cells of 2.2 ft: mean L = 1, so mean LS = S = 1.0059."""
    dem = inclined_plane(9.0, shape=(33, 5), cell=2.2)
    g = ls_factor(flow_grid(dem))
    ls = g.ls[:, 2]
    assert float(ls.mean()) == pytest.approx(16.8 * _sin(9.0) - 0.5, rel=1e-9)


def test_a_fence_starts_the_slope_anew():
    """A fence across a plane at row k: the cells below it have the L of a slope starting at the fence,
    the column's mean L the average of the two slopes' closed forms.
    """
    n, k, cell, pct = 40, 15, 3.0, 6.0
    dem = inclined_plane(pct, shape=(n, 7), cell=cell)
    fence = np.zeros(dem.shape, bool)
    fence[k, :] = True
    g = ls_factor(flow_grid(dem), barriers=fence)
    m = float(length_exponent(np.array(_sin(pct)), 2.0))
    above, below = g.l[: k + 1, 3], g.l[k + 1 :, 3]
    assert float(above.mean()) == pytest.approx(((k + 1) * cell / 72.6) ** m, rel=1e-9)
    assert float(below.mean()) == pytest.approx(((n - k - 1) * cell / 72.6) ** m, rel=1e-9)


def test_steep_and_concentrated_cells_are_flagged_not_computed():
    """Slopes over 33 % and channel cells get no LS (flags say why); the rest are computed."""
    steep = ls_factor(flow_grid(inclined_plane(40.0, shape=(10, 5), cell=3.0)))
    assert (steep.beyond & STEEP).all() and np.isnan(steep.ls).all()
    dem = inclined_plane(5.0, shape=(30, 5), cell=3.0)
    g = ls_factor(flow_grid(dem), channel_threshold_sqft=20 * 9.0)
    conc = (g.beyond & CONCENTRATED) > 0
    assert conc[20:, :].all() and not conc[:19, :].any()
    assert np.isnan(g.ls[conc]).all() and np.isfinite(g.ls[~conc]).all()


# ---------------------------------------------------------------------------------------- erosivity


def _epa_zone23() -> ErosivityDistribution:
    """The two readings of EPA's EI table for zone 23 that the worked example uses: 25.7 % of the year's
    EI by Feb 29 (through the end of February), 54.1 % by Sep 1.
    """
    return ErosivityDistribution.from_table(
        [("03-01", 25.7), ("09-01", 54.1)], "EPA Fact Sheet 3.1, Table 1, zone 23 (two readings)"
    )


def test_epa_fact_sheet_worked_example():
    """Sacramento, Feb 29, 2012 to Sep 1, 2014, zone 23, R = 35: 70 + 9.94 = 79.94."""
    rain = Rainfall(35.0, "EPA Fact Sheet 3.1, Figure 4", _epa_zone23(), "EPA Fact Sheet 3.1, Table 1")
    assert rain.erosivity(D(2012, 2, 29), D(2014, 3, 1)) == pytest.approx(70.0, abs=1e-9)  # two full years
    assert rain.erosivity(D(2014, 3, 1), D(2014, 9, 1)) == pytest.approx(9.94, abs=1e-9)
    assert rain.erosivity(D(2012, 2, 29), D(2014, 9, 1)) == pytest.approx(79.94, abs=1e-9)
    # a year from any day holds exactly one year's R
    assert rain.erosivity(D(2013, 6, 17), D(2014, 6, 17)) == pytest.approx(35.0, abs=1e-12)


def test_erosivity_table_is_checked():
    with pytest.raises(ValueError, match="without decreasing"):
        ErosivityDistribution.from_table([("04-01", 30.0), ("05-01", 20.0)], "a table")
    with pytest.raises(ValueError, match="source"):
        ErosivityDistribution.from_table([("04-01", 30.0)], "")


# ------------------------------------------------------------------------------------------ windows


def test_dane_county_windows():
    """Apr 1, 2020 - Oct 31, 2021: first Apr 1, 2020 - Mar 31, 2021, last Nov 1, 2020 - Oct 31, 2021, and the
    months between (May 1 ... Oct 1 starts): 8 windows.
    """
    w = schedule_windows(D(2020, 4, 1), D(2021, 10, 31))
    assert (w[0].start, w[0].end) == (D(2020, 4, 1), D(2021, 3, 31))
    assert (w[-1].start, w[-1].end) == (D(2020, 11, 1), D(2021, 10, 31))
    assert [x.start.month for x in w] == [4, 5, 6, 7, 8, 9, 10, 11] and len(w) == 8


@pytest.mark.parametrize(
    ("first", "last", "starts"),
    [
        (D(2027, 5, 3), D(2027, 10, 29), [D(2027, 5, 3)]),  # under a year: one window from the start
        (D(2027, 4, 15), D(2028, 6, 10), [D(2027, 4, 15), D(2027, 5, 15), D(2027, 6, 11)]),
        (D(2027, 1, 31), D(2028, 2, 28), [D(2027, 1, 31), D(2027, 2, 28)]),  # month ends clamp
    ],
)
def test_windows_by_hand(first, last, starts):
    w = schedule_windows(first, last)
    assert [x.start for x in w] == starts
    assert w[-1].end >= last and w[0].stop == add_months(first, 12)
    # twelve months each (a start clamped to a month's end, Feb 28 from Jan 31, keeps its anchor's end)
    assert all(365 <= (x.stop - x.start).days <= 367 for x in w)


# ------------------------------------------------------------------------------------- the equation


def _grid(n: int = 4, cell: float = 10.0) -> tuple[tuple[int, int], Affine, shapely.Geometry]:
    t = Affine(cell, 0.0, 0.0, 0.0, -cell, n * cell)
    return (n, n), t, shapely.box(0, 0, n * cell, n * cell)


def test_constant_c_window_is_r_k_ls_c():
    """Bare soil all year (C = 1) then mulch: a window entirely under one cover gives R K LS C exactly,
    with or without R's distribution (a 12-month window holds one R).
    """
    shape, t, box = _grid()
    sched = CoverSchedule((CoverSpan(box, "mulch", D(2027, 1, 1), None),))
    tl = cover_timeline(sched, shape, t, {"mulch": 0.07})
    rkls = np.full(tl.cells.size, 150.0 * 0.32 * 1.7)
    w = Window(D(2027, 3, 10), D(2028, 3, 10))
    dist = ErosivityDistribution.from_table([("06-01", 30.0), ("09-01", 80.0)], "a test table")
    for rain in (Rainfall(150.0, "t", dist, "t"), Rainfall(150.0, "t", None, "none")):
        got = window_loss(tl, w, rkls, rain)
        assert np.allclose(got.low_tpa, 150.0 * 0.32 * 1.7 * 0.07) and np.allclose(got.high_tpa, got.low_tpa)


def test_cover_changes_weight_by_erosivity():
    """Bare from Jan 1, mulch from Jun 1: the window Jan 1 - Dec 31 gives R K LS (0.30 x 1 + 0.70 x 0.07)
    with 30 % of the year's EI by Jun 1; without the distribution, the bounds 0.07 and 1 times R K LS.
    """
    shape, t, box = _grid()
    sched = CoverSchedule(
        (CoverSpan(box, "bare", D(2027, 1, 1), D(2027, 6, 1)), CoverSpan(box, "mulch", D(2027, 6, 1), None))
    )
    tl = cover_timeline(sched, shape, t, {"bare": 1.0, "mulch": 0.07})
    rkls = np.full(tl.cells.size, 100.0)
    w = Window(D(2027, 1, 1), D(2028, 1, 1))
    dist = ErosivityDistribution.from_table([("06-01", 30.0)], "a test table")
    got = window_loss(tl, w, rkls, Rainfall(1.0, "t", dist, "t"))
    assert np.allclose(got.high_tpa, 100.0 * (0.30 + 0.70 * 0.07))
    bounded = window_loss(tl, w, rkls, Rainfall(1.0, "t", None, "none"))
    assert not bounded.exact
    assert np.allclose(bounded.low_tpa, 7.0) and np.allclose(bounded.high_tpa, 100.0)
    # totals: 16 cells of 100 sq ft, each 100 * 0.349 t/ac
    tot = got.totals(100.0)
    assert tot["acres"] == pytest.approx(1600 / 43560) and tot["tpa_high"] == pytest.approx(34.9)


def test_later_span_covers_and_unknown_c_is_not_assessed():
    """A mat (no C known) laid over part of the bare ground: those cells are not assessed, the rest are."""
    shape, t, box = _grid()
    half = shapely.box(0, 0, 20, 40)
    sched = CoverSchedule(
        (CoverSpan(box, "bare", D(2027, 4, 1), None), CoverSpan(half, "erosion_mat", D(2027, 5, 1), None))
    )
    tl = cover_timeline(sched, shape, t, {"bare": 1.0, "erosion_mat": None})
    got = window_loss(tl, Window(D(2027, 4, 1), D(2028, 4, 1)), np.ones(tl.cells.size), None)
    tot = got.totals(100.0)
    assert tot["acres"] == pytest.approx(800 / 43560) and tot["acres_not_assessed"] == pytest.approx(
        800 / 43560
    )
