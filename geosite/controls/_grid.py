"""Grid helpers shared by the control modules: reprojection between the site and DEM CRSs, cell
lookup, the downhill direction field, D8 path tracing. Vectors here are in the DEM's CRS."""

from __future__ import annotations

from typing import Any

import numpy as np

from geosite.dem import Dem

#: D8 code k (1..8 = E, SE, S, SW, W, NW, N, NE) -> row / column step (index k - 1), as in the kernels.
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


def rasterize(geom: Any, dem: Dem) -> np.ndarray:
    """bool mask of the cells whose centre lies in ``geom`` (DEM CRS); all touched cells if none does."""
    from rasterio.features import rasterize as rio_rasterize

    if geom is None or geom.is_empty:
        return np.zeros(dem.shape, bool)
    mask = rio_rasterize([(geom, 1)], out_shape=dem.shape, transform=dem.transform, fill=0, dtype="uint8")
    if not mask.any():
        mask = rio_rasterize([(geom, 1)], out_shape=dem.shape, transform=dem.transform, fill=0, dtype="uint8", all_touched=True)
    return mask.astype(bool)


def downhill_field(surface_ft: np.ndarray, dem: Dem, directions: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (x east, y north) of the steepest descent of ``surface_ft`` (usually the filled
    DEM), from central differences averaged over 3x3 cells (exact on a plane). Where the surface is
    flat or has no gradient (nodata neighbours), the D8 direction of the cell is used when given;
    (0, 0) where neither says anything."""
    from scipy.ndimage import uniform_filter

    z = np.asarray(surface_ft, float)
    dzdr, dzdc = np.gradient(z)
    gx = dzdc / dem.cell_x_ft  # dz per ft eastward
    gy = -dzdr / dem.cell_y_ft  # dz per ft northward
    ok = np.isfinite(gx) & np.isfinite(gy)
    gx0, gy0 = np.where(ok, gx, 0.0), np.where(ok, gy, 0.0)
    w = uniform_filter(ok.astype(float), 3, mode="nearest")
    with np.errstate(invalid="ignore", divide="ignore"):
        sx = uniform_filter(gx0, 3, mode="nearest") / w
        sy = uniform_filter(gy0, 3, mode="nearest") / w
    sx = np.where(ok, sx, np.nan)
    sy = np.where(ok, sy, np.nan)
    norm = np.hypot(sx, sy)
    flat = ~(norm > 1e-9)
    with np.errstate(invalid="ignore", divide="ignore"):
        ux = np.where(flat, 0.0, -sx / norm)
        uy = np.where(flat, 0.0, -sy / norm)
    if directions is not None:
        d = directions
        use = flat & (d >= 1) & (d <= 8)
        k = np.where(use, d.astype(np.int64) - 1, 0)
        vx = DC[k] * dem.cell_x_ft
        vy = -DR[k] * dem.cell_y_ft
        n = np.hypot(vx, vy)
        ux = np.where(use, vx / n, ux)
        uy = np.where(use, vy / n, uy)
    return ux, uy


def sample_vectors(ux: np.ndarray, uy: np.ndarray, dem: Dem, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r, c = rowcol(dem, x, y)
    inside = inside_grid(dem, x, y)
    return np.where(inside, ux[r, c], 0.0), np.where(inside, uy[r, c], 0.0)


def receivers(directions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every cell: receiver row, column, and whether it has one on the grid."""
    nr, nc = directions.shape
    rows, cols = np.mgrid[0:nr, 0:nc]
    d = directions.astype(np.int64)
    has = (d >= 1) & (d <= 8)
    k = np.where(has, d - 1, 0)
    rr = rows + np.where(has, DR[k], 0)
    cc = cols + np.where(has, DC[k], 0)
    ok = has & (rr >= 0) & (rr < nr) & (cc >= 0) & (cc < nc)
    return np.where(ok, rr, rows), np.where(ok, cc, cols), ok


def step_length_ft(directions: np.ndarray, dem: Dem) -> np.ndarray:
    """Length (ft) of each cell's D8 step (0 where it has none)."""
    d = directions.astype(np.int64)
    has = (d >= 1) & (d <= 8)
    k = np.where(has, d - 1, 0)
    return np.where(has, np.hypot(DR[k] * dem.cell_y_ft, DC[k] * dem.cell_x_ft), 0.0)


def trace_down(directions: np.ndarray, rows: np.ndarray, cols: np.ndarray, max_steps: int) -> np.ndarray:
    """Flat indices of every cell on the D8 paths from the given cells (themselves included), for at
    most ``max_steps`` steps each."""
    nr, nc = directions.shape
    r = np.asarray(rows, np.int64).copy()
    c = np.asarray(cols, np.int64).copy()
    seen = [r * nc + c]
    alive = np.ones(r.size, bool)
    for _ in range(max_steps):
        d = directions[r, c].astype(np.int64)
        go = alive & (d >= 1) & (d <= 8)
        if not go.any():
            break
        k = np.where(go, d - 1, 0)
        nr_, nc_ = r + np.where(go, DR[k], 0), c + np.where(go, DC[k], 0)
        go &= (nr_ >= 0) & (nr_ < nr) & (nc_ >= 0) & (nc_ < nc)
        r, c = np.where(go, nr_, r), np.where(go, nc_, c)
        alive = go
        seen.append((r * nc + c)[go])
    return np.unique(np.concatenate(seen))
