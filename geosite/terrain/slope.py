"""Slope and hillshade of a :class:`~geosite.grid.Dem`, exactly as ``gdaldem -compute_edges`` computes them.

Conventions shared by :func:`slope_pct` and :func:`hillshade` (the same as ``gdaldem -compute_edges``):

* Horn's 3x3 gradient (Horn 1981), exactly as GDAL computes it.
* A cell with no height (NaN) gets no value (NaN slope, 0 hillshade).
* A missing neighbour of a cell that has a height is replaced by the cell's own height (GDAL's rule),
  so cells next to nodata holes still get a slope, computed from the neighbours that exist.
* Cells on the grid edge use neighbours extrapolated linearly from the two nearest cells inward
  (``2 a - b``, GDAL's rule). At the four corner cells GDAL extrapolates only one way and reuses the
  corner column (halving one gradient component there); geosite extrapolates along the diagonal, so a
  plane has its true slope on every cell, corners included. Apart from those four cells, geosite and
  GDAL differ only by GDAL's single-precision arithmetic (up to about 0.004 percentage points on the
  real LiDAR in the tests; geosite computes in float64).

The stencils live in :mod:`geosite.terrain._kernels` (numpy, nothing to compile).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from geosite.errors import InputError

if TYPE_CHECKING:
    from geosite.grid import Dem

#: A slope within this many percentage points below a threshold counts as at it: a plane of exactly
#: 12 % computes as 11.9999999999 on some cells (floating point), and "12 % or more" must include it.
#: A millionth of a point is far below anything a DEM can resolve.
SLOPE_TOLERANCE_PCT = 1e-6


def _padded(dem: Dem) -> np.ndarray:
    from geosite.terrain import _kernels as k

    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    return k.pad_extrapolate(z)


def slope_pct(dem: Dem) -> np.ndarray:
    """Slope of every cell, in percent (rise over run x 100), by Horn's method.

    The same numbers as ``gdaldem slope -p -compute_edges`` (with ``-s`` set to the horizontal unit
    in vertical units when they differ), computed in float64 from heights and cell sizes in feet.
    See the module docstring for nodata and grid-edge handling.

    Parameters
    ----------
    dem : Dem
        The elevation grid.

    Returns
    -------
    numpy.ndarray
        Float64 array of ``dem.shape``; NaN where the DEM has no height.
    """
    from geosite.terrain import _kernels as k

    return k.horn_slope_pct(_padded(dem), dem.cell_x_ft, dem.cell_y_ft)


def hillshade(dem: Dem, azimuth: float = 315.0, altitude: float = 45.0) -> np.ndarray:
    """Shaded relief as ``gdaldem hillshade -compute_edges`` draws it (z factor 1, heights in feet).

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    azimuth : float
        Direction the light comes from, degrees clockwise from north (315 = north-west).
    altitude : float
        Height of the light above the horizon, degrees.

    Returns
    -------
    numpy.ndarray
        Uint8 array of ``dem.shape``: 1 (full shadow) to 255 (facing the light), 0 where the DEM has no
        height (GDAL's nodata value for hillshade).
    """
    from geosite.terrain import _kernels as k

    if not 0.0 <= altitude <= 90.0:
        raise InputError(f"hillshade altitude must be between 0 and 90 degrees, got {altitude}")
    return k.horn_hillshade(_padded(dem), dem.cell_x_ft, dem.cell_y_ft, float(azimuth), float(altitude))
