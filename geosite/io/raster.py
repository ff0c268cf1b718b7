"""Reading DEMs with rasterio: only the window a site needs, nodata as NaN, heights in feet."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import rasterio
from pyproj import CRS
from rasterio.errors import RasterioIOError
from rasterio.windows import Window, from_bounds

from geosite.errors import CRSError, MissingInputError, UnreadableInputError
from geosite.grid import Dem
from geosite.units import VerticalUnit, parse_vertical_unit


def read_dem(
    path: str | Path,
    vertical_unit: VerticalUnit | str | None,
    bounds: tuple[float, float, float, float] | None = None,
) -> Dem:
    """Read band 1 of a DEM file.

    ``bounds`` (left, bottom, right, top, in the DEM's CRS) limits the read to the window that covers
    them, clipped to the raster; the whole raster is read when it is None. Nodata becomes NaN.
    """
    path = Path(path)
    vu = parse_vertical_unit(vertical_unit, where=f"DEM {path}")
    if not path.exists():
        raise MissingInputError(f"DEM {path}: file not found")
    try:
        src = rasterio.open(path)
    except RasterioIOError as exc:
        raise UnreadableInputError(f"DEM {path}: cannot be read as a raster ({exc})") from exc
    with src:
        if src.crs is None:
            raise CRSError(f"DEM {path}: has no CRS; assign one (gdal_edit.py -a_srs EPSG:....) before use")
        window = None
        if bounds is not None:
            w = from_bounds(*bounds, transform=src.transform)
            c0, r0 = max(int(np.floor(w.col_off)), 0), max(int(np.floor(w.row_off)), 0)
            c1 = min(int(np.ceil(w.col_off + w.width)), src.width)
            r1 = min(int(np.ceil(w.row_off + w.height)), src.height)
            if c1 <= c0 or r1 <= r0:
                raise UnreadableInputError(f"DEM {path}: does not overlap the site at all")
            window = Window(c0, r0, c1 - c0, r1 - r0)
        try:
            z = read_heights(src, window)
        except RasterioIOError as exc:
            raise UnreadableInputError(f"DEM {path}: corrupt or truncated ({exc})") from exc
        transform = src.window_transform(window) if window is not None else src.transform
        return Dem.from_array(z, transform, src.crs, vu, nodata=None, source=str(path), copy=False)


def read_heights(src, window=None) -> np.ndarray:
    """Band 1 of an open raster in ``window`` as one float64 array, nodata (value or mask) as NaN.

    One buffer, marked in place: a 16 M-cell DEM is held once (128 MB), not five times. Shared by
    :func:`read_dem` and the tiled screening in geosite.scale, so both treat nodata alike.
    """
    z = src.read(1, window=window, out_dtype="float64")
    flags = src.mask_flag_enums[0]
    if src.nodata is not None or any(f != rasterio.enums.MaskFlags.all_valid for f in flags):
        if src.nodata is not None and not np.isnan(src.nodata) and flags == [rasterio.enums.MaskFlags.nodata]:
            z[z == src.nodata] = np.nan
        else:
            z[src.read_masks(1, window=window) == 0] = np.nan
    return z


def raster_crs(path: str | Path) -> CRS:
    """The CRS of a raster file; none is a :class:`~geosite.errors.CRSError`."""
    with rasterio.open(path) as src:
        if src.crs is None:
            raise CRSError(f"DEM {path}: has no CRS; assign one before use")
        return CRS.from_user_input(src.crs)
