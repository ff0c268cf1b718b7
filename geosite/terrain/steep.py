"""Steep slopes: cells at or above the ordinance's slope thresholds (12 % in Grantsburg A(7) and B(6)(d),
20 % in the state rules), cleaned to a minimum mapping unit, as class grids, polygons and areas clipped
exactly to the site or the disturbed area. Vector results are in the DEM's CRS; areas in sq ft.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from geosite.errors import CRSError, InputError
from geosite.terrain.slope import SLOPE_TOLERANCE_PCT, slope_pct

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem


def steep_thresholds(threshold_pct: float | Sequence[float]) -> list[float]:
    """Slope thresholds (percent) as a sorted list; negative, non-finite or repeated ones are an
    InputError.
    """
    if np.isscalar(threshold_pct):
        values = [float(cast(float, threshold_pct))]
    else:
        values = [float(t) for t in cast(Sequence[float], threshold_pct)]
    if not values or any(not math.isfinite(t) or t < 0 for t in values) or len(set(values)) != len(values):
        raise InputError(f"slope thresholds must be distinct non-negative percentages, got {threshold_pct!r}")
    return sorted(values)


def _class_names(thresholds: list[float]) -> list[str]:
    names = [f"{lo:g}-{hi:g}%" for lo, hi in zip(thresholds[:-1], thresholds[1:], strict=True)]
    return [*names, f">={thresholds[-1]:g}%"]


def _drop_small(mask: np.ndarray, min_cells: int, fill_holes: bool) -> np.ndarray:
    """Remove 4-connected patches of ``mask`` smaller than ``min_cells``; with ``fill_holes``, also fill
    enclosed gaps (not touching the grid edge) smaller than that.
    """
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
    *,
    threshold_pct: float | Sequence[float],
    min_area_sqft: float,
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
        Lower bounds of the classes, percent: the profile's ``[terrain] steep_slope_pct`` and
        ``state_steep_slope_pct`` (``profile.required("terrain", "steep_slope_pct")``).
    min_area_sqft : float
        Minimum mapping unit, sq ft (0 keeps every cell as computed): the profile's
        ``[terrain] steep_min_area_sqft``.

    Returns
    -------
    numpy.ndarray
        Uint8 array of ``dem.shape``.
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
    if min_cells > 1 and len(ts) > 1:
        out = _fold_small_bands(out, len(ts), min_cells)
    return out


def _fold_small_bands(grid: np.ndarray, n_classes: int, min_cells: int) -> np.ndarray:
    """A band's patch smaller than the mapping unit (a sliver of 12-20 % between two >= 20 % patches)
    is mapped with the steeper band it lies against, so no class polygon is smaller than the unit and
    the >= 12 % outline stays the cleaned >= 12 % mask.
    """
    from scipy import ndimage

    out = grid.copy()
    nr, nc = out.shape
    for k in range(n_classes - 1, 0, -1):
        lab, n = ndimage.label(out == k)
        if not n:
            continue
        size = np.bincount(lab.ravel())
        boxes = ndimage.find_objects(lab)
        for i in np.flatnonzero(size < min_cells):
            if i == 0:
                continue
            # the piece and its ring, on the piece's bounding box grown by a cell (not the whole grid)
            rs, cs = boxes[i - 1]
            r0, r1 = max(rs.start - 1, 0), min(rs.stop + 1, nr)
            c0, c1 = max(cs.start - 1, 0), min(cs.stop + 1, nc)
            sub = out[r0:r1, c0:c1]
            piece = lab[r0:r1, c0:c1] == i
            ring = ndimage.binary_dilation(piece) & ~piece
            higher = sub[ring][sub[ring] > k]
            if higher.size:
                sub[piece] = np.bincount(higher).argmax()
    return out


def polygon_parts(gdf: gpd.GeoDataFrame, min_area_sqft: float, ft_per_unit: float) -> gpd.GeoDataFrame:
    """Steep-slope polygons after a clip: only valid Polygon parts (a clip can leave collections, lines
    and points), none smaller than the mapping unit, ``area_sqft`` remeasured.
    """
    import shapely

    if not len(gdf):
        return gdf
    out = gdf.copy()
    out["geometry"] = shapely.make_valid(out.geometry.values)
    out = out.explode(index_parts=False)
    out = out[out.geometry.geom_type == "Polygon"].copy()
    out["area_sqft"] = out.geometry.area * ft_per_unit**2
    out = out[out["area_sqft"] >= min_area_sqft - 1e-6]
    return out.sort_values("area_sqft", ascending=False, kind="stable").reset_index(drop=True)


def steep_slope_polygons(
    dem: Dem,
    slope: np.ndarray | None = None,
    *,
    threshold_pct: float | Sequence[float],
    min_area_sqft: float,
) -> gpd.GeoDataFrame:
    """Polygons of the cells whose slope is at or above a threshold, in the DEM's CRS.

    Parameters
    ----------
    dem : Dem
        The elevation grid.
    slope : numpy.ndarray, optional
        Slope in percent from :func:`slope_pct`; computed when omitted.
    threshold_pct : float or sequence of float
        One threshold (class ``">=12%"``) or several, giving bands, percent: ``(12, 20)`` gives classes
        ``"12-20%"`` and ``">=20%"``. The profile gives them: ``[terrain] steep_slope_pct`` (the
        village's) and ``state_steep_slope_pct`` (the state rules'), through ``profile.required``.
    min_area_sqft : float
        Minimum mapping unit, sq ft: patches and enclosed gaps smaller than this are dropped / filled
        (see :func:`steep_class_grid`); the profile's ``[terrain] steep_min_area_sqft``.

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
    grid = steep_class_grid(dem, slope, threshold_pct=ts, min_area_sqft=min_area_sqft)
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
    *,
    threshold_pct: float,
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
        Lower bound, percent (inclusive): the profile's ``[terrain] steep_slope_pct``
        (``profile.required("terrain", "steep_slope_pct")``) or ``state_steep_slope_pct``.
    below_pct : float, optional
        Upper bound, percent (exclusive); none when omitted.
    min_area_sqft : float
        Minimum mapping unit, sq ft, applied before measuring (the profile's ``[terrain]
        steep_min_area_sqft``). The default, 0, is geosite's choice, not the ordinance's: no mapping
        unit, every cell measured as computed.

    Returns
    -------
    float
        Area in sq ft.
    """
    s = slope_pct(dem) if slope is None else np.asarray(slope)
    ts = [threshold_pct] if below_pct is None else [threshold_pct, below_pct]
    if below_pct is not None and below_pct <= threshold_pct:
        raise InputError(f"below_pct ({below_pct}) must exceed threshold_pct ({threshold_pct})")
    grid = steep_class_grid(dem, s, threshold_pct=ts, min_area_sqft=min_area_sqft)
    mask = grid == 1 if below_pct is not None else grid >= 1
    if within is None:
        return float(np.count_nonzero(mask)) * dem.cell_area_sqft
    return _cells_area_within(dem, mask, _as_geometry(within, dem))


def _cells_area_within(dem: Dem, mask: np.ndarray, geom: Any) -> float:
    """Area, sq ft, of the cells of ``mask`` (full squares) clipped exactly to ``geom`` (DEM's CRS)."""
    import shapely
    from affine import Affine
    from rasterio import features

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
    polys = [
        shapely.geometry.shape(g) for g, _ in features.shapes(sub, mask=sub > 0, connectivity=4, transform=t)
    ]
    steep = shapely.union_all(polys)
    return float(shapely.area(shapely.intersection(steep, geom))) * dem.ft_per_unit**2
