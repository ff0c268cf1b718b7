"""The LS factor on the grid: Desmet & Govers' (1996) unit contributing area on geosite's D8 flow
accumulation, McCool's slope steepness S and the RUSLE slope-length exponent m (the rill ratio doubled on
disturbed soil), with slope length reset where flow meets a channel, a diversion or a fence.

For a cell of size D (ft) receiving ``A`` sq ft from upslope, with aspect a and exponent m:

    L = [(A + D^2)^(m+1) - A^(m+1)] / (D^(m+2) x^m 72.6^m),   x = |sin a| + |cos a|
    S = 10.8 sin(theta) + 0.03 under 9 %,   16.8 sin(theta) - 0.50 at 9 % or more
    m = beta / (1 + beta),   beta = f (sin(theta) / 0.0896) / (3 sin(theta)^0.8 + 0.56)

with f = 2 on disturbed soil (a high rill/interrill ratio), 1 elsewhere; every constant and its source
is in ``wisconsin.toml`` [method]. Units: feet (72.6 ft is the unit plot's 22.13 m), so a plane of n
cells along the flow has mean L = (n D / 72.6)^m exactly.

Slope length ends where flow meets a channel (a cell whose contributing area reaches the profile's
channel threshold: concentrated flow), a diversion or a fence: those cells pass nothing downslope (D8
routed with them as outlets, :func:`geosite.hydrology.weighted_accumulation`), so the slope below starts
anew. Cells beyond the method's range are flagged, not computed (``ls`` NaN there): slopes over 33 %
(:data:`STEEP`) and concentrated flow (:data:`CONCENTRATED`).

Hand-written: the formulas above on numpy arrays over geosite's own routing (SAGA's and GRASS's LS work
on their own routing, without the resets a construction plan's fences and diversions make; the
benchmark and a test compare with them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from geosite.soil_loss.data import load_soil_loss_data
from geosite.terrain.slope import SLOPE_TOLERANCE_PCT

if TYPE_CHECKING:
    from affine import Affine

    from geosite.hydrology import FlowGrid

#: flags of :attr:`LSGrid.beyond`: slope over the method's maximum (33 %)
STEEP = 1
#: flags of :attr:`LSGrid.beyond`: concentrated flow (a channel cell)
CONCENTRATED = 2


@dataclass(frozen=True, eq=False)
class LSGrid:
    """LS and its parts on every cell of a grid.

    Attributes
    ----------
    ls, l, s, m : the topographic factor, its length and steepness parts and the exponent m (NaN on
        nodata; ``ls`` and ``l`` also NaN on cells beyond the method's range).
    slope_pct : the slope used (Horn's, percent).
    upslope_sqft : the area draining into each cell after the resets, sq ft (the cell itself excluded).
    beyond : uint8 flags, :data:`STEEP` | :data:`CONCENTRATED` (0 where the method applies).
    cell_ft : the cell size D, ft.
    """

    ls: np.ndarray
    l: np.ndarray  # noqa: E741  (the factor's own name)
    s: np.ndarray
    m: np.ndarray
    slope_pct: np.ndarray
    upslope_sqft: np.ndarray
    beyond: np.ndarray
    cell_ft: float


def steepness_factor(sin_theta: np.ndarray) -> np.ndarray:
    """McCool's S from sin(slope angle): 10.8 sin + 0.03 under 9 % (tan), 16.8 sin - 0.50 at or above."""
    sin_theta = np.asarray(sin_theta, dtype=np.float64)
    tan = sin_theta / np.sqrt(np.clip(1.0 - sin_theta**2, 1e-300, None))
    # "9 % or more" includes a plane of exactly 9 % that computes as 8.9999999999 (the terrain stage's
    # SLOPE_TOLERANCE_PCT, a millionth of a percentage point)
    under = tan < 0.09 - SLOPE_TOLERANCE_PCT / 100.0
    return np.where(under, 10.8 * sin_theta + 0.03, 16.8 * sin_theta - 0.50)


def length_exponent(sin_theta: np.ndarray, rill_factor: float | np.ndarray = 1.0) -> np.ndarray:
    """RUSLE's m = beta / (1 + beta), beta = f (sin / 0.0896) / (3 sin^0.8 + 0.56); f = ``rill_factor``
    (2 on disturbed soil, :data:`wisconsin.toml` [method] high_rill_factor).
    """
    sin_theta = np.asarray(sin_theta, dtype=np.float64)
    beta = rill_factor * (sin_theta / 0.0896) / (3.0 * sin_theta**0.8 + 0.56)
    return beta / (1.0 + beta)


def length_factor(
    upslope_sqft: np.ndarray, cell_ft: float, m: np.ndarray, x: np.ndarray | float = 1.0
) -> np.ndarray:
    """Desmet & Govers' L of a cell of ``cell_ft`` ft receiving ``upslope_sqft`` sq ft, exponent ``m``,
    contour factor ``x`` (|sin a| + |cos a|), on the 72.6-ft unit plot.
    """
    plot_ft = load_soil_loss_data().unit_plot_length_ft.required()
    a = np.asarray(upslope_sqft, dtype=np.float64)
    d2 = cell_ft * cell_ft
    return ((a + d2) ** (m + 1.0) - a ** (m + 1.0)) / (cell_ft ** (m + 2.0) * np.power(x, m) * plot_ft**m)


def ls_factor(
    flow: FlowGrid,
    *,
    barriers: np.ndarray | None = None,
    channel_threshold_sqft: float | None = None,
    disturbed: np.ndarray | bool = True,
    max_slope_pct: float | None = None,
) -> LSGrid:
    """LS on every cell of ``flow``'s DEM (see the module docstring).

    Parameters
    ----------
    flow : FlowGrid
        The DEM's conditioned D8 routing (:func:`geosite.hydrology.flow_grid`).
    barriers : numpy.ndarray, optional
        Bool cells where slope length resets (fences, diversions rasterised on the grid).
    channel_threshold_sqft : float, optional
        Contributing area (sq ft) from which flow is concentrated: those cells end slope length and are
        flagged :data:`CONCENTRATED`.
    disturbed : bool or numpy.ndarray
        Where the soil is disturbed (beta doubled: a high rill/interrill ratio).
    max_slope_pct : float, optional
        Slopes above it (percent) are flagged :data:`STEEP`; default the method's 33 %.

    Returns
    -------
    LSGrid
        LS and its parts.
    """
    from geosite.hydrology import weighted_accumulation
    from geosite.terrain.slope import slope_pct

    data = load_soil_loss_data()
    dem = flow.dem
    cell_ft = float(np.sqrt(dem.cell_area_sqft))  # D: square cells; a rectangular cell's equal-area side
    slope = slope_pct(dem)
    sin_t = np.sin(np.arctan(slope / 100.0))
    dirs = np.array(flow.directions, dtype=np.uint8, copy=True)
    channel = (
        flow.channel_cells(channel_threshold_sqft)
        if channel_threshold_sqft is not None
        else np.zeros(dirs.shape, bool)
    )
    reset = channel if barriers is None else (channel | barriers)
    dirs[reset & (dirs != 255)] = 0  # an outlet: passes nothing downslope
    cells = weighted_accumulation(dirs, np.ones(dirs.shape))
    upslope = (cells - 1.0) * dem.cell_area_sqft
    ux, uy = flow.downhill()
    x = np.abs(ux) + np.abs(uy)
    x = np.where(x > 0.0, x, 1.0)
    factor = data.high_rill_factor.required()
    m = length_exponent(sin_t, np.where(disturbed, factor, 1.0))
    length = length_factor(upslope, cell_ft, m, x)
    s = steepness_factor(sin_t)
    limit = data.max_slope_pct.required() if max_slope_pct is None else max_slope_pct
    beyond = np.where(slope > limit, STEEP, 0).astype(np.uint8)
    beyond |= np.where(channel, CONCENTRATED, 0).astype(np.uint8)
    ls = np.where(beyond == 0, length * s, np.nan)
    return LSGrid(ls, np.where(beyond == 0, length, np.nan), s, m, slope, upslope, beyond, cell_ft)


def ls_from_array(
    elevation: np.ndarray,
    transform: Affine,
    crs: str,
    vertical_unit: str,
    **options: object,
) -> LSGrid:
    """:func:`ls_factor` of a height array in ``vertical_unit`` (us_ft, ft or m) on ``transform`` in
    ``crs`` (routed here); ``options`` as :func:`ls_factor`'s keywords.
    """
    from geosite.grid import Dem
    from geosite.hydrology import flow_grid

    dem = Dem.from_array(elevation, transform, crs, vertical_unit)
    return ls_factor(flow_grid(dem), **options)  # type: ignore[arg-type]
