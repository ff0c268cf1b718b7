"""The shared floor under every stage: the one D8 direction table, moving vectors between the site's and
the DEM's CRS, finding the cells of points, and the one rule for rasterizing a polygon onto a grid.

Nothing here knows about ordinances or stages; terrain, hydrology, controls and maps all use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from geosite.dem import Dem

#: D8 code k (1..8 = E, SE, S, SW, W, NW, N, NE; row down = south) -> row / column step (index k - 1).
#: The one table: the numba kernels (geosite.hydrology._kernels) read these arrays too.
DR = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
DC = np.array([1, 1, 0, -1, -1, -1, 0, 1], dtype=np.int64)


def to_crs(gdf: Any, crs: Any) -> Any:
    """``gdf`` (GeoDataFrame/GeoSeries) in ``crs``; unchanged when it already is, or is None."""
    if gdf is None or gdf.crs is None or gdf.crs.equals(crs):
        return gdf
    return gdf.to_crs(crs)


def geom_to_crs(geom: Any, src: Any, dst: Any) -> Any:
    """A shapely geometry from CRS ``src`` to ``dst``."""
    if geom is None or src is None or dst is None or src.equals(dst):
        return geom
    import geopandas as gpd

    return gpd.GeoSeries([geom], crs=src).to_crs(dst).iloc[0]


def to_dem_crs(geom: Any, site: Any, dem: Dem) -> Any:
    """A site-CRS geometry in the DEM's CRS."""
    return geom_to_crs(geom, site.crs, dem.crs)


def bounds_in(bounds: tuple[float, float, float, float], pad: float, src_crs: Any, dst_crs: Any) -> tuple[float, float, float, float]:
    """``bounds`` (left, bottom, right, top in ``src_crs``) padded by ``pad`` CRS units, in ``dst_crs``
    (densified, so the result covers the padded box)."""
    left, bottom, right, top = bounds
    padded = (left - pad, bottom - pad, right + pad, top + pad)
    if src_crs.equals(dst_crs):
        return padded
    from rasterio.warp import transform_bounds

    return transform_bounds(src_crs, dst_crs, *padded, densify_pts=21)


def rowcol(dem: Dem, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row, column of the cells holding points x, y (DEM CRS), clipped to the grid."""
    t = dem.transform
    cols = np.floor((np.asarray(x, float) - t.c) / t.a).astype(np.int64)
    rows = np.floor((np.asarray(y, float) - t.f) / t.e).astype(np.int64)
    nr, nc = dem.shape
    return np.clip(rows, 0, nr - 1), np.clip(cols, 0, nc - 1)


def inside_grid(dem: Dem, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    t = dem.transform
    c = (np.asarray(x, float) - t.c) / t.a
    r = (np.asarray(y, float) - t.f) / t.e
    nr, nc = dem.shape
    return (c >= 0) & (c < nc) & (r >= 0) & (r < nr)


def centres(dem: Dem, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = dem.transform
    return t.c + (cols + 0.5) * t.a, t.f + (rows + 0.5) * t.e


def elevation_at(dem: Dem, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Height (ft) of the cells holding x, y; NaN off the grid."""
    r, c = rowcol(dem, x, y)
    z = dem.elevation_ft[r, c].astype(float)
    return np.where(inside_grid(dem, x, y), z, np.nan)


def rasterize(geom: Any, shape: tuple[int, int], transform: Any) -> np.ndarray:
    """The one rule for the cells of a polygon: a bool mask of ``shape`` whose cells have their centre in
    ``geom`` (in the grid's CRS); when no centre lies in it (a polygon smaller than a cell, or a thin
    sliver), every cell it touches. Empty or None: no cell.

    The mask is a bool view of rasterio's uint8 raster (``mask.view(numpy.uint8)`` gives the kernels'
    0/1 array without a copy)."""
    from rasterio.features import rasterize as rio_rasterize

    if geom is None or geom.is_empty:
        return np.zeros(shape, bool)
    mask = rio_rasterize([(geom, 1)], out_shape=shape, transform=transform, fill=0, dtype="uint8")
    if not mask.any():
        mask = rio_rasterize([(geom, 1)], out_shape=shape, transform=transform, fill=0, dtype="uint8", all_touched=True)
    return np.ascontiguousarray(mask).view(bool)
