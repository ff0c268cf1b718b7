"""Terrain measurements on a :class:`~geosite.dem.Dem`: slope, steep-slope areas, contours, hillshade.

Everything here takes a Dem (heights in feet, a north-up transform, a projected CRS), never a file
name, and works in feet: slopes use horizontal and vertical distances both in feet, so a metre DEM on a
US-survey-foot CRS (or the reverse) gives the true slope. Vector results are GeoDataFrames in the DEM's
CRS; areas are in sq ft.

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

The numba kernels live in :mod:`geosite._terrain_kernels`; they are imported (and, on first use in a
fresh environment, compiled and cached on disk) by the functions that need them, never at import.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from geosite.dem import Dem
from geosite.errors import CRSError, InputError

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

#: Default minimum mapping unit for steep-slope polygons, sq ft: 0.05 sq in on a 1 in = 100 ft sheet.
DEFAULT_MIN_AREA_SQFT = 500.0

#: Slope thresholds the rules use: 12 % (Grantsburg A and B(6)(d)) and 20 % (NR 151, state rules).
STEEP_THRESHOLDS_PCT = (12.0, 20.0)
#: A slope within this many percentage points below a threshold counts as at it: a plane of exactly
#: 12 % computes as 11.9999999999 on some cells (floating point), and "12 % or more" must include it.
#: A millionth of a point is far below anything a DEM can resolve.
SLOPE_TOLERANCE_PCT = 1e-6

_CONTOUR_TILE = 128  # cells per side of the tiles contours are traced in (see contours())


# --------------------------------------------------------------------------------------------- slope


def _padded(dem: Dem) -> np.ndarray:
    from geosite import _terrain_kernels as k

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
        float64 array of ``dem.shape``; NaN where the DEM has no height.
    """
    from geosite import _terrain_kernels as k

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
        uint8 array of ``dem.shape``: 1 (full shadow) to 255 (facing the light), 0 where the DEM has no
        height (GDAL's nodata value for hillshade).
    """
    from geosite import _terrain_kernels as k

    if not 0.0 <= altitude <= 90.0:
        raise InputError(f"hillshade altitude must be between 0 and 90 degrees, got {altitude}")
    return k.horn_hillshade(_padded(dem), dem.cell_x_ft, dem.cell_y_ft, float(azimuth), float(altitude))


# ------------------------------------------------------------------------------------- steep slopes


def steep_thresholds(threshold_pct: float | Sequence[float]) -> list[float]:
    """Slope thresholds (percent) as a sorted list; negative, non-finite or repeated ones are an InputError."""
    values = [float(threshold_pct)] if np.isscalar(threshold_pct) else [float(t) for t in threshold_pct]  # type: ignore[arg-type]
    if not values or any(not math.isfinite(t) or t < 0 for t in values) or len(set(values)) != len(values):
        raise InputError(f"slope thresholds must be distinct non-negative percentages, got {threshold_pct!r}")
    return sorted(values)


def _class_names(thresholds: list[float]) -> list[str]:
    names = [f"{lo:g}-{hi:g}%" for lo, hi in zip(thresholds[:-1], thresholds[1:], strict=True)]
    return [*names, f">={thresholds[-1]:g}%"]


def _drop_small(mask: np.ndarray, min_cells: int, fill_holes: bool) -> np.ndarray:
    """Remove 4-connected patches of ``mask`` smaller than ``min_cells``; with ``fill_holes``, also fill
    enclosed gaps (not touching the grid edge) smaller than that."""
    from scipy import ndimage

    if min_cells <= 1:
        return mask
    lab, n = ndimage.label(mask)
    if n:
        size = np.bincount(lab.ravel())
        small = size < min_cells
        small[0] = False
        mask = mask & ~small[lab]
    if fill_holes:
        lab, n = ndimage.label(~mask)
        if n:
            size = np.bincount(lab.ravel())
            fill = size < min_cells
            fill[0] = False
            edge = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
            fill[edge] = False
            mask = mask | fill[lab]
    return mask


def steep_class_grid(
    dem: Dem,
    slope: np.ndarray | None = None,
    threshold_pct: float | Sequence[float] = STEEP_THRESHOLDS_PCT,
    min_area_sqft: float = DEFAULT_MIN_AREA_SQFT,
) -> np.ndarray:
    """Per-cell steepness class: 0 below the lowest threshold (or no data), ``k`` at or above the k-th.

    Each band's mask is cleaned before classes are assigned: patches smaller than ``min_area_sqft`` are
    dropped and enclosed gaps smaller than it are filled, so the map is not salt-and-pepper. Steeper
    bands are nested in the gentler ones (a cell is >= 20 % only if it is also in the >= 12 % area).

    Parameters
    ----------
    dem : Dem
        The elevation grid (for cell size).
    slope : numpy.ndarray, optional
        Slope in percent from :func:`slope_pct`; computed when omitted.
    threshold_pct : float or sequence of float
        Lower bounds of the classes, percent.
    min_area_sqft : float
        Minimum mapping unit, sq ft (0 keeps every cell as computed).

    Returns
    -------
    numpy.ndarray
        uint8 array of ``dem.shape``.
    """
    ts = steep_thresholds(threshold_pct)
    s = slope_pct(dem) if slope is None else np.asarray(slope)
    if s.shape != dem.shape:
        raise InputError(f"slope has shape {s.shape}, the DEM {dem.shape}; compute it with slope_pct(dem)")
    min_cells = math.ceil(min_area_sqft / dem.cell_area_sqft - 1e-9) if min_area_sqft > 0 else 0
    out = np.zeros(dem.shape, dtype=np.uint8)
    prev: np.ndarray | None = None
    with np.errstate(invalid="ignore"):
        for t in ts:
            m = _drop_small(s >= t - SLOPE_TOLERANCE_PCT, min_cells, fill_holes=True)
            if prev is not None:
                m = _drop_small(m & prev, min_cells, fill_holes=False)
            out += m
            prev = m
    return out


def steep_slope_polygons(
    dem: Dem,
    slope: np.ndarray | None = None,
    threshold_pct: float | Sequence[float] = 12.0,
    min_area_sqft: float = DEFAULT_MIN_AREA_SQFT,
) -> gpd.GeoDataFrame:
    """Polygons of the cells whose slope is at or above a threshold, in the DEM's CRS.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    slope : numpy.ndarray, optional
        Slope in percent from :func:`slope_pct`; computed when omitted.
    threshold_pct : float or sequence of float
        One threshold (class ``">=12%"``) or several, giving bands: ``(12, 20)`` gives classes
        ``"12-20%"`` and ``">=20%"`` (12 % from the village ordinances, 20 % from the state rules).
    min_area_sqft : float
        Minimum mapping unit, sq ft: patches and enclosed gaps smaller than this are dropped / filled
        (see :func:`steep_class_grid`). Default 500 sq ft.

    Returns
    -------
    geopandas.GeoDataFrame
        One row per connected patch (4-connected cells), columns ``class`` (str), ``min_slope_pct``
        (the class's lower bound), ``area_sqft`` and ``geometry`` (Polygon, cell-edge outlines),
        largest patch first.
    """
    import geopandas as gpd
    import shapely
    from rasterio import features

    ts = steep_thresholds(threshold_pct)
    names = _class_names(ts)
    grid = steep_class_grid(dem, slope, ts, min_area_sqft)
    geoms, classes = [], []
    if grid.any():
        for geom, value in features.shapes(grid, mask=grid > 0, connectivity=4, transform=dem.transform):
            geoms.append(shapely.geometry.shape(geom))
            classes.append(int(value))
    geometry = np.array(geoms, dtype=object)
    idx = np.asarray(classes, dtype=np.int64) - 1
    area = shapely.area(geometry) * dem.ft_per_unit**2 if len(geoms) else np.zeros(0)
    gdf = gpd.GeoDataFrame(
        {
            "class": np.asarray(names, dtype=object)[idx] if len(geoms) else np.zeros(0, dtype=object),
            "min_slope_pct": np.asarray(ts)[idx] if len(geoms) else np.zeros(0),
            "area_sqft": area,
        },
        geometry=list(geometry),
        crs=dem.crs,
    )
    return gdf.sort_values("area_sqft", ascending=False, kind="stable").reset_index(drop=True)


def _as_geometry(within: Any, dem: Dem) -> BaseGeometry:
    """A single shapely geometry in the DEM's CRS from a geometry, GeoSeries or GeoDataFrame."""
    crs = getattr(within, "crs", None)
    if crs is not None and not dem.crs.equals(crs):
        raise CRSError(
            f"the area to measure is in {crs.name}, the DEM in {dem.crs.name}; reproject it first "
            "(gdf.to_crs(dem.crs))"
        )
    if hasattr(within, "union_all"):
        within = within.union_all()
    if within is None or within.is_empty:
        raise InputError("the area to measure is empty")
    if within.geom_type not in ("Polygon", "MultiPolygon"):
        raise InputError(f"the area to measure must be a polygon, got a {within.geom_type}")
    return within


def steep_area_sqft(
    dem: Dem,
    within: Any = None,
    slope: np.ndarray | None = None,
    threshold_pct: float = 12.0,
    below_pct: float | None = None,
    min_area_sqft: float = 0.0,
) -> float:
    """Area, in sq ft, of the cells with ``threshold_pct <= slope < below_pct`` inside ``within``.

    The cells are taken as their full squares and clipped exactly to ``within`` (vector
    intersection), so a site boundary that cuts cells counts only the part inside.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    within : shapely Polygon / MultiPolygon, GeoSeries or GeoDataFrame, optional
        The area to measure over (the site, the disturbed area), in the DEM's CRS; the whole DEM
        when omitted.
    slope : numpy.ndarray, optional
        Slope in percent from :func:`slope_pct`; computed when omitted.
    threshold_pct : float
        Lower bound, percent (inclusive).
    below_pct : float, optional
        Upper bound, percent (exclusive); none when omitted.
    min_area_sqft : float
        Minimum mapping unit applied before measuring (0, the default, measures every cell).

    Returns
    -------
    float
        Area in sq ft.
    """
    import shapely
    from rasterio import features
    from affine import Affine

    s = slope_pct(dem) if slope is None else np.asarray(slope)
    ts = [threshold_pct] if below_pct is None else [threshold_pct, below_pct]
    if below_pct is not None and below_pct <= threshold_pct:
        raise InputError(f"below_pct ({below_pct}) must exceed threshold_pct ({threshold_pct})")
    grid = steep_class_grid(dem, s, ts, min_area_sqft)
    mask = grid == 1 if below_pct is not None else grid >= 1
    if within is None:
        return float(np.count_nonzero(mask)) * dem.cell_area_sqft
    geom = _as_geometry(within, dem)
    t = dem.transform
    left, bottom, right, top = geom.bounds
    r0 = max(int(math.floor((top - t.f) / t.e)) - 1, 0)
    c0 = max(int(math.floor((left - t.c) / t.a)) - 1, 0)
    r1 = min(int(math.ceil((bottom - t.f) / t.e)) + 1, dem.shape[0])
    c1 = min(int(math.ceil((right - t.c) / t.a)) + 1, dem.shape[1])
    if r1 <= r0 or c1 <= c0:
        return 0.0
    sub = np.ascontiguousarray(mask[r0:r1, c0:c1]).astype(np.uint8)
    if not sub.any():
        return 0.0
    t = Affine(t.a, 0.0, t.c + c0 * t.a, 0.0, t.e, t.f + r0 * t.e)
    polys = [shapely.geometry.shape(g) for g, _ in features.shapes(sub, mask=sub > 0, connectivity=4, transform=t)]
    steep = shapely.union_all(polys)
    return float(shapely.area(shapely.intersection(steep, geom))) * dem.ft_per_unit**2


# ------------------------------------------------------------------------------------------ contours


def smooth_elevation(dem: Dem, passes: int = 1) -> np.ndarray:
    """Heights after ``passes`` passes of a 3x3 binomial filter (about a 0.7-cell Gaussian each).

    NaN-aware (missing cells stay missing and give no weight); grid edges use the linear extrapolation
    of :func:`slope_pct`, so a plane comes out unchanged everywhere.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    passes : int
        Number of passes (0 returns a copy of the heights).

    Returns
    -------
    numpy.ndarray
        float64 heights in feet, ``dem.shape``, NaN where the DEM has none.
    """
    from geosite import _terrain_kernels as k

    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    for _ in range(int(passes)):
        z = k.binomial_smooth(k.pad_extrapolate(z))
    return z


def _contour_tiles(z: np.ndarray, levels: np.ndarray, tile: int) -> dict[int, list[np.ndarray]]:
    """Trace contours tile by tile (tiles share their edge rows/columns), only for the levels inside
    each tile's height range: contourpy's cost grows with levels x cells, so this cuts it to about
    (levels per tile) x cells. Returns, per level index, arrays of (col, row) vertices."""
    import contourpy

    rows, cols = z.shape
    out: dict[int, list[np.ndarray]] = {}
    for r0 in range(0, max(rows - 1, 1), tile):
        r1 = min(r0 + tile, rows - 1)
        for c0 in range(0, max(cols - 1, 1), tile):
            c1 = min(c0 + tile, cols - 1)
            sub = z[r0 : r1 + 1, c0 : c1 + 1]
            finite = np.isfinite(sub)
            if not finite.any():
                continue
            lo, hi = (np.min(sub), np.max(sub)) if finite.all() else (np.min(sub[finite]), np.max(sub[finite]))
            first = int(np.searchsorted(levels, lo, side="left"))
            last = int(np.searchsorted(levels, hi, side="right"))
            if first >= last:
                continue
            gen = contourpy.contour_generator(z=sub, name="serial", line_type="ChunkCombinedOffset")
            for li in range(first, last):
                pts, offs = gen.lines(levels[li])
                p = pts[0]
                if p is None or len(p) == 0:
                    continue
                # contourpy interpolates both coordinates along an edge, so a vertex on a seam may be a
                # last bit off it (95.99999999999999); rounding to 1e-8 cell puts both tiles' copies of a
                # seam vertex on the same point
                p = np.round(p + (c0, r0), 8)
                o = offs[0]
                out.setdefault(li, []).extend(np.split(p, o[1:-1]))
    return out


def _merge_at_seams(pieces: list[np.ndarray], tile: int, rows: int, cols: int) -> list[np.ndarray]:
    """Join the pieces of one level that were cut at tile seams back into whole lines."""
    import shapely

    if len(pieces) == 1:
        return pieces

    def on_seam(pt: np.ndarray) -> bool:
        x, y = pt
        return (x % tile == 0 and 0 < x < cols - 1) or (y % tile == 0 and 0 < y < rows - 1)

    keep, cut = [], []
    for p in pieces:
        (cut if on_seam(p[0]) or on_seam(p[-1]) else keep).append(p)
    if len(cut) > 1:
        counts = [len(p) for p in cut]
        lines = shapely.linestrings(np.concatenate(cut), indices=np.repeat(np.arange(len(cut)), counts))
        merged = shapely.line_merge(shapely.multilinestrings(lines))
        parts = shapely.get_parts(merged)
        keep.extend(shapely.get_coordinates(g) for g in parts)
    else:
        keep.extend(cut)
    return keep


def contours(
    dem: Dem,
    interval_ft: float = 5.0,
    index_every: int = 5,
    smooth: bool | int = True,
) -> gpd.GeoDataFrame:
    """Contour lines of the DEM, in its CRS.

    Lines run through cell centres (marching squares, contourpy), skip cells with no height, and are
    joined across the tiles they are traced in. Smoothing, when asked for, is applied to the grid
    before tracing (:func:`smooth_elevation`), never to the lines, so contours cannot cross.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    interval_ft : float
        Contour interval, feet (the ordinances ask for 5 ft or less).
    index_every : int
        Every ``index_every``-th contour (elevation divisible by ``interval_ft * index_every``) is an
        index contour.
    smooth : bool or int
        ``True`` for one pass of the 3x3 binomial filter, an int for that many passes, ``False`` / 0
        for none. One pass moves contours on real LiDAR by a fraction of a cell and removes the
        cell-scale jitter; a plane is unchanged.

    Returns
    -------
    geopandas.GeoDataFrame
        Columns ``elevation_ft`` (float), ``index`` (bool) and ``geometry`` (LineString; closed where the
        contour closes), ordered by elevation.
    """
    import geopandas as gpd
    import shapely

    if not (interval_ft > 0 and math.isfinite(interval_ft)):
        raise InputError(f"contour interval must be a positive number of feet, got {interval_ft}")
    if int(index_every) < 1:
        raise InputError(f"index_every must be a positive integer, got {index_every}")
    passes = int(smooth)
    z = smooth_elevation(dem, passes) if passes > 0 else np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    rows, cols = z.shape
    empty = gpd.GeoDataFrame(
        {"elevation_ft": np.zeros(0), "index": np.zeros(0, dtype=bool)}, geometry=[], crs=dem.crs
    )
    if rows < 2 or cols < 2 or not np.isfinite(z).any():
        return empty
    zmin, zmax = float(np.nanmin(z)), float(np.nanmax(z))
    k = np.arange(math.ceil(zmin / interval_ft), math.floor(zmax / interval_ft) + 1, dtype=np.int64)
    levels = k * float(interval_ft)
    tile = _CONTOUR_TILE
    per_level = _contour_tiles(z, levels, tile)
    coords, elev, index = [], [], []
    for li in sorted(per_level):
        lines = _merge_at_seams(per_level[li], tile, rows, cols)
        coords.extend(lines)
        elev.extend([levels[li]] * len(lines))
        index.extend([bool(k[li] % int(index_every) == 0)] * len(lines))
    if not coords:
        return empty
    counts = np.fromiter((len(c) for c in coords), dtype=np.int64, count=len(coords))
    xy = np.concatenate(coords)
    t = dem.transform
    x = t.c + (xy[:, 0] + 0.5) * t.a
    y = t.f + (xy[:, 1] + 0.5) * t.e
    geoms = shapely.linestrings(np.column_stack([x, y]), indices=np.repeat(np.arange(len(coords)), counts))
    return gpd.GeoDataFrame(
        {"elevation_ft": np.asarray(elev, dtype=np.float64), "index": np.asarray(index, dtype=bool)},
        geometry=geoms,
        crs=dem.crs,
    )
