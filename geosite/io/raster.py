"""Reading DEMs with rasterio: only the window a site needs, nodata as NaN, heights in feet; every
raster opened through :func:`open_raster` (format by content, offline GDAL, dimensions and budget
checked before reading: geosite.io.untrusted, geosite.io.limits).

Every read through :func:`open_raster` is charged what GDAL decodes for it (:func:`block_charge`): each
block the read touches, whole (its size from the file's header, known before any pixel is read), all
of a block's bands when they are interleaved by pixel; a read whose blocks would decode to more than the
raster budget is refused before it starts (:meth:`geosite.io.limits.Limits.check_decode`), whoever makes
it (the site's window, the DEM window search, the plausibility sample). In ``check``'s sandbox the
raster's own CRS (a GeoTIFF can carry WKT in its citation) passes the CRS text check too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
from pyproj import CRS
from rasterio.errors import RasterioIOError
from rasterio.windows import Window, from_bounds

from geosite.errors import CRSError, InputError, MissingInputError, UnreadableInputError
from geosite.grid import Dem
from geosite.io.limits import Limits
from geosite.io.untrusted import offline, policy_active, raster_format
from geosite.units import VerticalUnit, parse_vertical_unit

#: GDAL's block cache while geosite reads a raster, MB. Each tile is read once, so a cache adds nothing,
#: and GDAL's default (5 % of RAM: 1.2 GB here) costs fresh pages for every tile read: a 4.2 M-cell window
#: of a float32 GeoTIFF read in 0.027 s with it, 0.015 s with 64 MB; the 64 M-cell DEM's coarse pass read
#: in 0.21 s against 0.09 s (GDAL 3.x in rasterio's wheel, file in the page cache).
READ_CACHE_MB = 64


@contextmanager
def _read_cache() -> Iterator[None]:
    """GDAL's block cache at :data:`READ_CACHE_MB` for the block, the caller's size restored after
    (rasterio.Env sets it, as GDAL needs, but leaves it set).
    """
    from rasterio.env import get_gdal_config, set_gdal_config

    old = get_gdal_config("GDAL_CACHEMAX")
    set_gdal_config("GDAL_CACHEMAX", READ_CACHE_MB)
    try:
        yield
    finally:
        set_gdal_config("GDAL_CACHEMAX", old)


def _span(start: float, length: float, size: int, block: int) -> int:
    """How many blocks of ``block`` cells a run of ``length`` cells from ``start`` touches (clipped to the
    raster's ``size`` cells)."""
    lo = max(int(math.floor(start)), 0)
    hi = min(int(math.ceil(start + length)), size)
    return 0 if hi <= lo else (hi - 1) // block - lo // block + 1


def block_charge(src: Any, window: Window | None = None) -> int:
    """The bytes GDAL decodes to read ``window`` of band 1 of the open raster ``src`` (the whole raster when
    None): every block the window touches, whole, with all the block's bands when the file interleaves
    them by pixel. From the header alone (block shape, data types, interleaving): nothing is read.
    """
    rows, cols = src.block_shapes[0]
    rows, cols = max(int(rows), 1), max(int(cols), 1)
    if window is None:
        window = Window(0, 0, src.width, src.height)
    n = _span(window.col_off, window.width, src.width, cols) * _span(
        window.row_off, window.height, src.height, rows
    )
    interleave = getattr(src, "interleaving", None)
    pixel = interleave is not None and getattr(interleave, "value", str(interleave)).lower() == "pixel"
    itemsize = sum(np.dtype(d).itemsize for d in src.dtypes) if pixel else np.dtype(src.dtypes[0]).itemsize
    return n * rows * cols * itemsize


class ChargedRaster:
    """An open raster whose every read (:meth:`read`, :meth:`read_masks`) is first charged what it
    decodes (:func:`block_charge`) against the raster budget; everything else is the rasterio dataset's.
    """

    def __init__(self, src: Any, what: str, limits: Limits) -> None:
        self._src, self._what, self._limits = src, what, limits

    def __getattr__(self, name: str) -> Any:
        return getattr(self._src, name)

    def charge(self, window: Any = None, decimated: bool = False) -> int:
        """The bytes a read of ``window`` decodes (refused over the budget); ``decimated``: a read to a
        smaller ``out_shape``, which GDAL may take from an overview, charged the costlier of the two.

        Parameters
        ----------
        window : rasterio.windows.Window, optional
            The cells read (None: all of them).
        decimated : bool
            Whether the read asks for fewer cells than the window holds.

        Returns
        -------
        int
            The bytes charged.
        """
        cost = block_charge(self._src, window)
        if decimated:
            cost = max(cost, self._overview_charge(window))
        self._limits.check_decode(self._what, cost)
        return cost

    def _overview_charge(self, window: Any) -> int:
        """The costliest overview's share of ``window``: each overview level's blocks, from its header."""
        factors = self._src.overviews(1)
        cost = 0
        for level, factor in enumerate(factors):
            with rasterio.open(self._src.name, overview_level=level, driver=self._src.driver) as ov:
                w = None
                if window is not None:
                    w = Window(
                        window.col_off / factor,
                        window.row_off / factor,
                        window.width / factor,
                        window.height / factor,
                    )
                cost = max(cost, block_charge(ov, w))
        return cost

    def read(self, *args: Any, **kwargs: Any) -> Any:
        """The read of rasterio's ``read``, once charged.

        Parameters
        ----------
        *args, **kwargs
            As rasterio's ``DatasetReader.read``.

        Returns
        -------
        numpy.ndarray
            What rasterio reads.
        """
        self.charge(kwargs.get("window"), kwargs.get("out_shape") is not None)
        return self._src.read(*args, **kwargs)

    def read_masks(self, *args: Any, **kwargs: Any) -> Any:
        """The read of rasterio's ``read_masks``, once charged (a mask decodes the blocks its band does).

        Parameters
        ----------
        *args, **kwargs
            As rasterio's ``DatasetReader.read_masks``.

        Returns
        -------
        numpy.ndarray
            What rasterio reads.
        """
        self.charge(kwargs.get("window"), kwargs.get("out_shape") is not None)
        return self._src.read_masks(*args, **kwargs)


@contextmanager
def open_raster(
    path: str | Path, what: str = "DEM", root: Path | None = None, limits: Limits | None = None
) -> Iterator[Any]:
    """Open a raster for reading the safe way: a regular file of a format geosite reads (a VRT's sources
    checked, inside ``root`` when given), opened by that driver only, with GDAL offline, its dimensions
    within ``limits``, every read charged what it decodes (:class:`ChargedRaster`), and in ``check``'s
    sandbox its CRS checked like any CRS text of a submission. Errors name ``what`` and the file.
    """
    path = Path(path)
    driver = raster_format(path, what, root)
    limits = limits or Limits()
    with offline(), _read_cache():
        try:
            src = rasterio.open(path, driver=driver)
        except RasterioIOError as exc:
            raise UnreadableInputError(f"{what} {path}: cannot be read as a raster ({exc})") from exc
        with src:
            limits.check_raster(f"{what} {path}", src.width, src.height)
            if root is not None and policy_active() and src.crs is not None:
                from geosite.io.allowlist import check_crs_text

                check_crs_text(src.crs.to_wkt(), f"{what} {path}: its CRS")
            yield ChargedRaster(src, f"{what} {path}", limits)


def read_dem(
    path: str | Path,
    vertical_unit: VerticalUnit | str | None,
    bounds: tuple[float, float, float, float] | None = None,
    *,
    limits: Limits | None = None,
    root: Path | None = None,
) -> Dem:
    """Read band 1 of a DEM file.

    ``bounds`` (left, bottom, right, top, in the DEM's CRS) limits the read to the window that covers
    them, clipped to the raster; the whole raster is read when it is None. Nodata becomes NaN. The
    window is refused before reading when it is over ``limits``' raster budget; ``root`` keeps a VRT's
    sources inside that folder (:func:`open_raster`).
    """
    path = Path(path)
    vu = parse_vertical_unit(vertical_unit, where=f"DEM {path}")
    if not path.exists() and not path.is_symlink():
        raise MissingInputError(f"DEM {path}: file not found")
    limits = limits or Limits()
    with open_raster(path, "DEM", root, limits) as src:
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
        limits.check_read(
            f"DEM {path}",
            *((window.width, window.height) if window else (src.width, src.height)),
            decoded_bytes=block_charge(src, window),
        )
        try:
            z = read_heights(src, window)
        except RasterioIOError as exc:
            raise UnreadableInputError(f"DEM {path}: corrupt or truncated ({exc})") from exc
        transform = src.window_transform(window) if window is not None else src.transform
        return check_dem(Dem.from_array(z, transform, src.crs, vu, nodata=None, source=str(path), copy=False))


#: The smallest and largest DEM cell geosite measures on, feet (1/8 in; 1,000 ft).
MIN_CELL_FT, MAX_CELL_FT = 0.01, 1_000.0
#: The fewest cells along a side of the DEM (window) a slope needs (Horn's 3 x 3 stencil).
MIN_DEM_CELLS = 3


def check_dem(dem: Dem) -> Dem:
    """``dem`` when geosite can measure on it: at least 3 x 3 cells, cells between 0.01 and 1,000 ft,
    some finite height; infinite heights (a sentinel some tools write) become nodata. Else an
    :class:`~geosite.errors.InputError` naming the DEM.
    """
    rows, cols = dem.shape
    where = f"DEM {dem.source}"
    if rows < MIN_DEM_CELLS or cols < MIN_DEM_CELLS:
        raise InputError(
            f"{where}: {rows} x {cols} cells (over the site); slopes and drainage need at least "
            f"{MIN_DEM_CELLS} x {MIN_DEM_CELLS} cells: give a finer or larger DEM"
        )
    for name, size in (("width", dem.cell_x_ft), ("height", dem.cell_y_ft)):
        if not (MIN_CELL_FT <= size <= MAX_CELL_FT):
            raise InputError(
                f"{where}: cell {name} {size:.3g} ft is outside {MIN_CELL_FT:g}-{MAX_CELL_FT:g} ft; "
                "check the DEM's geotransform and CRS unit"
            )
    inf = np.isinf(dem.elevation_ft)
    if inf.any():  # a copy: the caller's Dem is left as it was
        dem = dataclasses.replace(dem, elevation_ft=np.where(inf, np.nan, dem.elevation_ft))
    if not np.isfinite(dem.elevation_ft).any():
        raise InputError(f"{where}: no cell has a height (all nodata or non-finite)")
    return dem


def _nodata_as_stored(src) -> float:
    """The nodata value as the band stores it: a float band's nodata rounded to the band's own type, as
    GDAL compares it (a float32 band's 0.1 is float32(0.1), not the decimal 0.1 in the header); an
    integer band's as given.
    """
    kind = np.dtype(src.dtypes[0])
    if kind.kind == "f":
        with np.errstate(over="ignore"):
            return float(np.array(src.nodata, dtype=kind))
    return float(src.nodata)


def stored_nodata(src) -> float | None:
    """What marks no height in a raw read of band 1 of an open raster, beside NaN and infinities: its
    nodata value as stored (NaN when it has none), or None when a mask band marks it, which only
    :func:`read_heights` applies. read_heights marks by it; a kernel that skips no-height cells as it
    reads a band takes it too (one pass where marking them NaN first takes two more).
    """
    flags = src.mask_flag_enums[0]
    if src.nodata is None and all(f == rasterio.enums.MaskFlags.all_valid for f in flags):
        return float("nan")
    if src.nodata is not None and flags == [rasterio.enums.MaskFlags.nodata]:
        return float("nan") if np.isnan(src.nodata) else _nodata_as_stored(src)
    return None


def read_heights(src, window=None, dtype: str = "float64") -> np.ndarray:
    """Band 1 of an open raster in ``window`` as one float64 (or ``dtype``) array, nodata (value or
    mask) and infinities as NaN.

    One buffer, marked in place: a 16 M-cell DEM is held once (128 MB), not five times. Shared by
    :func:`read_dem` and the tiled screening in geosite.scale, so both treat nodata alike.
    """
    z = src.read(1, window=window, out_dtype=dtype)
    z[np.isinf(z)] = np.nan  # +-inf is no height (a sentinel some tools write), never a measurement
    nodata = stored_nodata(src)
    if nodata is None:
        z[src.read_masks(1, window=window) == 0] = np.nan
    elif not np.isnan(nodata):
        z[z == nodata] = np.nan
    return z


def raster_crs(path: str | Path, root: Path | None = None, limits: Limits | None = None) -> CRS:
    """The CRS of a raster file (opened as :func:`open_raster` does: a VRT's sources inside ``root``
    when given); none is a :class:`~geosite.errors.CRSError`.
    """
    with open_raster(path, "DEM", root, limits) as src:
        if src.crs is None:
            raise CRSError(f"DEM {path}: has no CRS; assign one before use")
        return CRS.from_user_input(src.crs)
