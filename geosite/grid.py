"""The grid every stage measures on: :class:`Dem` (heights in feet on a north-up grid, its transform,
CRS and units), the one D8 direction table, moving vectors between the site's and the DEM's CRS,
finding the cells of points, and the one rule for rasterizing a polygon onto a grid.

Nothing here knows about ordinances or stages, or about files (see :mod:`geosite.io.raster`); terrain,
hydrology, controls and maps all use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from affine import Affine
from pyproj import CRS

from geosite.errors import CRSError
from geosite.units import VerticalUnit, feet_per_crs_unit

#: D8 code k (1..8 = E, SE, S, SW, W, NW, N, NE; row down = south) -> row / column step (index k - 1).
#: The one table: the hydrology kernels (geosite.hydrology._kernels_numba) read these arrays too.
DR = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
DC = np.array([1, 1, 0, -1, -1, -1, 0, 1], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Dem:
    """A north-up elevation grid.

    Attributes
    ----------
    elevation_ft : 2-D float64 array; heights converted to feet, NaN where the source had no data.
    transform : affine transform from (col, row) to CRS coordinates (north-up, no rotation).
    crs : the DEM's projected CRS (terrain is computed on the DEM's own grid; vectors are reprojected).
    ft_per_unit : feet per horizontal CRS unit.
    vertical_unit : the unit the heights were given in (before conversion).
    source : where the DEM came from, for messages.
    """

    elevation_ft: np.ndarray
    transform: Affine
    crs: CRS
    ft_per_unit: float
    vertical_unit: VerticalUnit
    source: str = "<array>"

    def __post_init__(self) -> None:
        if self.elevation_ft.ndim != 2:
            raise ValueError(f"{self.source}: DEM must be 2-D, got shape {self.elevation_ft.shape}")
        t = self.transform
        if t.b != 0 or t.d != 0:
            raise CRSError(f"{self.source}: rotated DEM grids are not supported; warp it north-up first")
        if t.a <= 0 or t.e >= 0:
            raise CRSError(
                f"{self.source}: DEM must be north-up with positive cell width (transform {tuple(t)[:6]})"
            )

    @classmethod
    def from_array(
        cls,
        elevation: np.ndarray,
        transform: Affine,
        crs: CRS | str | int,
        vertical_unit: VerticalUnit | str,
        nodata: float | None = None,
        *,
        source: str = "<array>",
        copy: bool = True,
    ) -> Dem:
        """Build a Dem from an array of heights in ``vertical_unit`` (converted to feet here).

        With ``copy=False`` a float64 array is converted in place (the reader's own buffer), so a
        large DEM is held once.
        """
        crs = CRS.from_user_input(crs)
        vu = VerticalUnit(vertical_unit)
        ft_per_unit = feet_per_crs_unit(crs, f"DEM {source}")
        z = np.array(elevation, dtype=np.float64, copy=copy or None)
        if nodata is not None and not np.isnan(nodata):
            z[z == nodata] = np.nan
        factor = vu.metres / _foot_metres(crs)
        if factor != 1.0:
            z *= factor
        return cls(z, transform, crs, ft_per_unit, vu, source)

    @property
    def ft_per_vertical_unit(self) -> float:
        """Feet (the CRS's reported foot) per unit of the source heights."""
        return self.vertical_unit.metres / _foot_metres(self.crs)

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the grid."""
        return self.elevation_ft.shape

    @property
    def cell_x_ft(self) -> float:
        """A cell's width, feet."""
        return abs(self.transform.a) * self.ft_per_unit

    @property
    def cell_y_ft(self) -> float:
        """A cell's height, feet."""
        return abs(self.transform.e) * self.ft_per_unit

    @property
    def cell_area_sqft(self) -> float:
        """A cell's area, sq ft."""
        return self.cell_x_ft * self.cell_y_ft

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(left, bottom, right, top) in CRS units."""
        rows, cols = self.shape
        left, top = self.transform.c, self.transform.f
        return left, top + rows * self.transform.e, left + cols * self.transform.a, top

    def crop(self, bounds: tuple[float, float, float, float]) -> tuple[Dem, tuple[slice, slice]]:
        """The part of the grid covering ``bounds`` (left, bottom, right, top, CRS units), as a Dem
        sharing this one's array, and the (rows, cols) slices it was cut with.
        """
        inv = ~self.transform
        c0, r0 = inv @ (bounds[0], bounds[3])
        c1, r1 = inv @ (bounds[2], bounds[1])
        rows = slice(max(int(np.floor(r0)), 0), min(int(np.ceil(r1)), self.shape[0]))
        cols = slice(max(int(np.floor(c0)), 0), min(int(np.ceil(c1)), self.shape[1]))
        t = self.transform @ Affine.translation(cols.start, rows.start)
        sub = Dem(
            self.elevation_ft[rows, cols], t, self.crs, self.ft_per_unit, self.vertical_unit, self.source
        )
        return sub, (rows, cols)

    @property
    def valid(self) -> np.ndarray:
        """The cells with a height."""
        return ~np.isnan(self.elevation_ft)


def _foot_metres(crs: CRS) -> float:
    """Metres per reported foot for a DEM in ``crs`` (a US-survey-foot CRS reports US survey feet)."""
    from geosite.units import METRES_PER_FOOT, METRES_PER_US_SURVEY_FOOT, crs_linear_unit_metres

    m = crs_linear_unit_metres(crs, "DEM")
    return METRES_PER_US_SURVEY_FOOT if abs(m - METRES_PER_US_SURVEY_FOOT) < 1e-12 else METRES_PER_FOOT


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


def bounds_in(
    bounds: tuple[float, float, float, float], pad: float, src_crs: Any, dst_crs: Any
) -> tuple[float, float, float, float]:
    """``bounds`` (left, bottom, right, top in ``src_crs``) padded by ``pad`` CRS units, in ``dst_crs``
    (densified, so the result covers the padded box).
    """
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
    """Whether each point (``x``, ``y``, CRS units) lies on the grid."""
    t = dem.transform
    c = (np.asarray(x, float) - t.c) / t.a
    r = (np.asarray(y, float) - t.f) / t.e
    nr, nc = dem.shape
    return (c >= 0) & (c < nc) & (r >= 0) & (r < nr)


def centres(dem: Dem, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x, y (CRS units) of the centres of cells (``rows``, ``cols``)."""
    t = dem.transform
    return t.c + (cols + 0.5) * t.a, t.f + (rows + 0.5) * t.e


def elevation_at(dem: Dem, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Height (ft) of the cells holding x, y; NaN off the grid."""
    r, c = rowcol(dem, x, y)
    z = dem.elevation_ft[r, c].astype(float)
    return np.where(inside_grid(dem, x, y), z, np.nan)


def bilinear(a: np.ndarray, dem: Dem, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``a`` (on ``dem``'s grid, cell centres) interpolated bilinearly at (x, y); NaN off the grid or
    beside a NaN cell.

    Parameters
    ----------
    a : numpy.ndarray
        A grid of ``dem``'s shape (heights in ft, a depth, any value per cell).
    dem : Dem
        The grid's georeferencing.
    x, y : numpy.ndarray
        The points, in the DEM's CRS.

    Returns
    -------
    numpy.ndarray
        ``a`` at each point.
    """
    from scipy.ndimage import map_coordinates

    t = dem.transform  # inverse of x = c + a col + b row, y = f + d col + e row (north-up: b = d = 0)
    col = (np.asarray(x, float) - t.c) / t.a
    row = (np.asarray(y, float) - t.f) / t.e
    return np.asarray(
        map_coordinates(np.asarray(a, float), [row - 0.5, col - 0.5], order=1, mode="constant", cval=np.nan)
    )


def cells_box(cells: np.ndarray, pad: int = 0) -> tuple[slice, slice] | None:
    """The rows and columns bounding the True ``cells``, widened by ``pad`` (clipped to the grid); None
    when there are none.
    """
    rows, cols = np.flatnonzero(cells.any(axis=1)), np.flatnonzero(cells.any(axis=0))
    if not rows.size:
        return None
    nr, nc = cells.shape
    return (
        slice(max(int(rows[0]) - pad, 0), min(int(rows[-1]) + 1 + pad, nr)),
        slice(max(int(cols[0]) - pad, 0), min(int(cols[-1]) + 1 + pad, nc)),
    )


def rasterize(geom: Any, shape: tuple[int, int], transform: Any) -> np.ndarray:
    """The one rule for the cells of a polygon: a bool mask of ``shape`` whose cells have their centre in
    ``geom`` (in the grid's CRS); when no centre lies in it (a polygon smaller than a cell, or a thin
    sliver), every cell it touches. Empty or None: no cell.

    The mask is a bool view of rasterio's uint8 raster (``mask.view(numpy.uint8)`` gives the kernels'
    0/1 array without a copy).
    """
    from rasterio.features import rasterize as rio_rasterize

    if geom is None or geom.is_empty:
        return np.zeros(shape, bool)
    mask = rio_rasterize([(geom, 1)], out_shape=shape, transform=transform, fill=0, dtype="uint8")
    if not mask.any():
        mask = rio_rasterize(
            [(geom, 1)], out_shape=shape, transform=transform, fill=0, dtype="uint8", all_touched=True
        )
    return np.ascontiguousarray(mask).view(bool)
