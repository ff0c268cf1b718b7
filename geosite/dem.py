"""The DEM as geosite's terrain and hydrology code sees it: an array of elevations in feet, its
affine transform and CRS, and the horizontal foot factor. No file names here (see geosite.io.raster)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from affine import Affine
from pyproj import CRS

from geosite.errors import CRSError
from geosite.units import VerticalUnit, feet_per_crs_unit


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
            raise CRSError(f"{self.source}: DEM must be north-up with positive cell width (transform {tuple(t)[:6]})")

    @classmethod
    def from_array(
        cls,
        elevation: np.ndarray,
        transform: Affine,
        crs: CRS | str | int,
        vertical_unit: VerticalUnit | str,
        nodata: float | None = None,
        source: str = "<array>",
        copy: bool = True,
    ) -> Dem:
        """Build a Dem from an array of heights in ``vertical_unit`` (converted to feet here).

        With ``copy=False`` a float64 array is converted in place (the reader's own buffer), so a
        large DEM is held once."""
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
        return self.elevation_ft.shape  # type: ignore[return-value]

    @property
    def cell_x_ft(self) -> float:
        return abs(self.transform.a) * self.ft_per_unit

    @property
    def cell_y_ft(self) -> float:
        return abs(self.transform.e) * self.ft_per_unit

    @property
    def cell_area_sqft(self) -> float:
        return self.cell_x_ft * self.cell_y_ft

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(left, bottom, right, top) in CRS units."""
        rows, cols = self.shape
        left, top = self.transform.c, self.transform.f
        return left, top + rows * self.transform.e, left + cols * self.transform.a, top

    def crop(self, bounds: tuple[float, float, float, float]) -> tuple[Dem, tuple[slice, slice]]:
        """The part of the grid covering ``bounds`` (left, bottom, right, top, CRS units), as a Dem
        sharing this one's array, and the (rows, cols) slices it was cut with."""
        inv = ~self.transform
        c0, r0 = inv * (bounds[0], bounds[3])
        c1, r1 = inv * (bounds[2], bounds[1])
        rows = slice(max(int(np.floor(r0)), 0), min(int(np.ceil(r1)), self.shape[0]))
        cols = slice(max(int(np.floor(c0)), 0), min(int(np.ceil(c1)), self.shape[1]))
        t = self.transform * Affine.translation(cols.start, rows.start)
        sub = Dem(self.elevation_ft[rows, cols], t, self.crs, self.ft_per_unit, self.vertical_unit, self.source)
        return sub, (rows, cols)

    @property
    def valid(self) -> np.ndarray:
        return ~np.isnan(self.elevation_ft)


def _foot_metres(crs: CRS) -> float:
    """Metres per reported foot for a DEM in ``crs`` (a US-survey-foot CRS reports US survey feet)."""
    from geosite.units import METRES_PER_FOOT, METRES_PER_US_SURVEY_FOOT, crs_linear_unit_metres

    m = crs_linear_unit_metres(crs, "DEM")
    return METRES_PER_US_SURVEY_FOOT if abs(m - METRES_PER_US_SURVEY_FOOT) < 1e-12 else METRES_PER_FOOT
