"""Terrain: what the DEM's surface says, measured on its own grid in feet.

- :mod:`~geosite.terrain.slope`: Horn slope and hillshade, as ``gdaldem -compute_edges`` computes them;
- :mod:`~geosite.terrain.steep`: slopes of 12 % or more (and the state's 20 %) as class grids, polygons
  and areas clipped to the site or the disturbed area;
- :mod:`~geosite.terrain.contour`: contour lines at the ordinance's interval, with index contours;
- :mod:`~geosite.terrain.stage`: the terrain stage of ``analyze`` (slope statistics, steep areas,
  contours and cut and fill from a proposed grade, as measurements and site-CRS layers);
- ``_kernels``: the 3x3 stencils behind them (numpy, on a few threads: nothing to compile).

Everything here takes a :class:`~geosite.grid.Dem`, never a file name. Importing this package loads
numpy only; the stage (geopandas, shapely) loads when used.
"""

from geosite.terrain.contour import contours, smooth_elevation
from geosite.terrain.slope import SLOPE_TOLERANCE_PCT, hillshade, slope_pct
from geosite.terrain.steep import (
    polygon_parts,
    steep_area_sqft,
    steep_class_grid,
    steep_slope_polygons,
    steep_thresholds,
)

__all__ = [
    "SLOPE_TOLERANCE_PCT",
    "contours",
    "hillshade",
    "slope_pct",
    "smooth_elevation",
    "polygon_parts",
    "steep_area_sqft",
    "steep_class_grid",
    "steep_slope_polygons",
    "steep_thresholds",
    "warm_kernels",
]


def warm_kernels() -> str:
    """Load this package's numba kernels now, compiling them where they are JIT-compiled.

    Returns
    -------
    str
        The engine: ``"aot"`` (the extension built at install) or ``"jit"`` (numba, from its cache).
    """
    from geosite.terrain import _contour_kernels

    return _contour_kernels.warm()
