"""Synthetic DEMs with answers known in closed form, for tests and benchmarks (public, like shapely.testing).

Every surface is returned as a :class:`~geosite.grid.Dem` on a north-up grid. Heights are given in the
requested vertical unit and converted by :meth:`Dem.from_array`, so the same surface can be built in
every combination of feet and metres. Cell centres are at ``(col + 0.5, row + 0.5)`` cells from the
top-left corner ``origin``.
"""

from __future__ import annotations

import numpy as np
from affine import Affine

from geosite.grid import Dem
from geosite.units import METRES_PER_FOOT, METRES_PER_US_SURVEY_FOOT, VerticalUnit, crs_linear_unit_metres

# Burnett County WISCRS (US survey feet) and UTM 15N (metres): one CRS per horizontal unit.
CRS_US_FT = "EPSG:7593"
CRS_M = "EPSG:26915"
ORIGIN = {CRS_US_FT: (500_000.0, 200_000.0), CRS_M: (500_000.0, 5_000_000.0)}


def cell_centres(shape: tuple[int, int], transform: Affine) -> tuple[np.ndarray, np.ndarray]:
    """The x, y of every cell centre (CRS units), as 2-D arrays."""
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]]
    x = transform.c + (cols + 0.5) * transform.a
    y = transform.f + (rows + 0.5) * transform.e
    return x, y


def _grid(shape: tuple[int, int], cell: float, crs: str) -> Affine:
    x0, y0 = ORIGIN.get(crs, (0.0, 0.0))
    return Affine(cell, 0.0, x0, 0.0, -cell, y0)


def _to_unit(height_ft: np.ndarray, crs: str, vertical_unit: VerticalUnit) -> np.ndarray:
    """Heights given in the CRS's reported foot, expressed in ``vertical_unit``."""
    from pyproj import CRS

    m = crs_linear_unit_metres(CRS.from_user_input(crs), "synthetic DEM")
    foot_m = METRES_PER_US_SURVEY_FOOT if abs(m - METRES_PER_US_SURVEY_FOOT) < 1e-12 else METRES_PER_FOOT
    return height_ft * foot_m / VerticalUnit(vertical_unit).metres


def _ft_per_unit(crs: str) -> float:
    from pyproj import CRS

    from geosite.units import feet_per_crs_unit

    return feet_per_crs_unit(CRS.from_user_input(crs), "synthetic DEM")


def inclined_plane(
    slope_pct: float,
    shape: tuple[int, int] = (100, 100),
    cell: float = 2.0,
    crs: str = CRS_US_FT,
    vertical_unit: VerticalUnit | str = VerticalUnit.US_FT,
    *,
    azimuth_deg: float = 180.0,
    base_ft: float = 900.0,
) -> Dem:
    """A plane of exactly ``slope_pct`` whose downhill direction is ``azimuth_deg`` (clockwise from north;
    180 = falls to the south). ``cell`` is in CRS units. Heights are exact in feet before unit conversion.
    """
    t = _grid(shape, cell, crs)
    x, y = cell_centres(shape, t)
    fpu = _ft_per_unit(crs)
    az = np.radians(azimuth_deg)
    # distance travelled downhill, in feet, from the grid origin
    down_ft = ((x - t.c) * np.sin(az) + (y - t.f) * np.cos(az)) * fpu
    z_ft = base_ft - slope_pct / 100.0 * down_ft
    return Dem.from_array(
        _to_unit(z_ft, crs, VerticalUnit(vertical_unit)), t, crs, vertical_unit, source="plane"
    )


def cone(
    slope_pct: float,
    shape: tuple[int, int] = (101, 101),
    cell: float = 2.0,
    crs: str = CRS_US_FT,
    vertical_unit: VerticalUnit | str = VerticalUnit.US_FT,
    *,
    peak_ft: float = 1000.0,
) -> Dem:
    """A cone with its apex at the grid centre, sides of constant ``slope_pct``."""
    t = _grid(shape, cell, crs)
    x, y = cell_centres(shape, t)
    cx = t.c + shape[1] / 2 * t.a
    cy = t.f + shape[0] / 2 * t.e
    r_ft = np.hypot(x - cx, y - cy) * _ft_per_unit(crs)
    z_ft = peak_ft - slope_pct / 100.0 * r_ft
    return Dem.from_array(
        _to_unit(z_ft, crs, VerticalUnit(vertical_unit)), t, crs, vertical_unit, source="cone"
    )


def v_valley(
    side_slope_pct: float,
    axis_slope_pct: float,
    shape: tuple[int, int] = (100, 101),
    cell: float = 2.0,
    crs: str = CRS_US_FT,
    *,
    vertical_unit: VerticalUnit | str = VerticalUnit.US_FT,
    base_ft: float = 900.0,
) -> Dem:
    """A V-shaped valley: its axis runs north-south down the middle column, falling to the south at
    ``axis_slope_pct``; both sides rise from the axis at ``side_slope_pct``. With an odd number of
    columns the axis lies on the centre column's cell centres.
    """
    t = _grid(shape, cell, crs)
    x, y = cell_centres(shape, t)
    fpu = _ft_per_unit(crs)
    cx = t.c + shape[1] / 2 * t.a
    across_ft = np.abs(x - cx) * fpu
    down_ft = (t.f - y) * fpu
    z_ft = base_ft + side_slope_pct / 100.0 * across_ft - axis_slope_pct / 100.0 * down_ft
    return Dem.from_array(
        _to_unit(z_ft, crs, VerticalUnit(vertical_unit)), t, crs, vertical_unit, source="v_valley"
    )


def rolling_terrain(
    shape: tuple[int, int] = (512, 512),
    cell: float = 3.0,
    crs: str = CRS_US_FT,
    vertical_unit: VerticalUnit | str = VerticalUnit.US_FT,
    relief_ft: float = 80.0,
    *,
    regional_slope_pct: float = 1.0,
    kettles: int = 6,
    seed: int = 0,
    base_ft: float = 900.0,
) -> Dem:
    """Deterministic, realistic-looking glacial terrain for benchmarks and robustness tests.

    Fractal (power-law spectrum, exponent 3.4) hills scaled so that their range is ``relief_ft``, on a
    regional grade of ``regional_slope_pct`` falling to the south, with ``kettles`` closed depressions
    (Gaussian pits 6-20 ft deep) like the kettle lakes of north-west Wisconsin. No closed-form answer:
    use it where behaviour on real-looking data matters (speed, nodata, contours that must not cross).
    The same arguments always give the same surface.
    """
    rng = np.random.default_rng(seed)
    rows, cols = shape
    spec = np.fft.rfft2(rng.standard_normal(shape))
    ky = np.fft.fftfreq(rows)[:, None]
    kx = np.fft.rfftfreq(cols)[None, :]
    k = np.hypot(ky, kx)
    k[0, 0] = np.inf
    spec *= k ** (-3.4 / 2.0)
    del k
    hills = np.fft.irfft2(spec, s=shape)
    del spec
    hills -= hills.min()
    hills *= relief_ft / max(float(hills.max()), 1e-12)
    t = _grid(shape, cell, crs)
    fpu = _ft_per_unit(crs)
    row_ft = (np.arange(rows, dtype=np.float64) + 0.5) * cell * fpu
    hills -= (regional_slope_pct / 100.0 * row_ft)[:, None]
    col_ft = (np.arange(cols, dtype=np.float64) + 0.5) * cell * fpu
    for _ in range(kettles):
        r0, c0 = rng.uniform(0.1, 0.9) * rows, rng.uniform(0.1, 0.9) * cols
        radius_ft = rng.uniform(0.03, 0.08) * min(rows, cols) * cell * fpu
        depth_ft = rng.uniform(6.0, 20.0)
        dy = row_ft - (r0 + 0.5) * cell * fpu
        dx = col_ft - (c0 + 0.5) * cell * fpu
        band = np.abs(dy) < 4 * radius_ft
        if band.any():
            d2 = dy[band, None] ** 2 + dx[None, :] ** 2
            hills[band] -= depth_ft * np.exp(-d2 / (2 * radius_ft**2))
    hills += base_ft
    return Dem.from_array(
        _to_unit(hills, crs, VerticalUnit(vertical_unit)), t, crs, vertical_unit, source="rolling_terrain"
    )
