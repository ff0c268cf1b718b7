"""Numba kernels behind geosite.terrain: arrays in, arrays out, no I/O, no units.

Private: use :mod:`geosite.terrain`. Every kernel works on a grid padded by one cell on each side
(:func:`pad_extrapolate`), so edge cells need no special case. Kernels are compiled lazily on first
call and cached on disk (``cache=True``); importing this module compiles nothing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def pad_extrapolate(z):  # pragma: no cover - compiled
    """``z`` padded by one cell, the outside cells extrapolated linearly from the two nearest cells
    inward (``2 a - b``, as GDAL's ``-compute_edges``; the corners along the diagonal). An outside cell
    whose two source cells are not both valid is NaN. A grid one cell high (wide) repeats its one row
    (column) outward: no gradient across it."""
    rows, cols = z.shape
    p = np.empty((rows + 2, cols + 2), dtype=np.float64)
    for i in prange(rows):
        for j in range(cols):
            p[i + 1, j + 1] = z[i, j]
    nan = np.nan
    for j in range(cols):
        p[0, j + 1] = 2.0 * z[0, j] - z[1, j] if rows >= 2 else nan
        p[rows + 1, j + 1] = 2.0 * z[rows - 1, j] - z[rows - 2, j] if rows >= 2 else nan
    for i in range(rows):
        p[i + 1, 0] = 2.0 * z[i, 0] - z[i, 1] if cols >= 2 else nan
        p[i + 1, cols + 1] = 2.0 * z[i, cols - 1] - z[i, cols - 2] if cols >= 2 else nan
    ok = rows >= 2 and cols >= 2
    p[0, 0] = 2.0 * z[0, 0] - z[1, 1] if ok else nan
    p[0, cols + 1] = 2.0 * z[0, cols - 1] - z[1, cols - 2] if ok else nan
    p[rows + 1, 0] = 2.0 * z[rows - 1, 0] - z[rows - 2, 1] if ok else nan
    p[rows + 1, cols + 1] = 2.0 * z[rows - 1, cols - 1] - z[rows - 2, cols - 2] if ok else nan
    # a grid one cell high (wide) has no gradient across it: repeat the row (column)
    if rows == 1:
        for j in range(cols + 2):
            p[0, j] = p[1, j]
            p[2, j] = p[1, j]
    if cols == 1:
        for i in range(rows + 2):
            p[i, 0] = p[i, 1]
            p[i, 2] = p[i, 1]
    return p


@njit(cache=True, inline="always")
def _horn(p, i, j, centre):  # pragma: no cover - compiled
    """Horn's sums for output cell (i, j) (padded cell (i+1, j+1)), missing neighbours replaced by the
    centre. Returns (east_minus_west, north_minus_south), each a 1-2-1 weighted sum (divide by 8 cells)."""
    w0 = p[i, j]
    w1 = p[i, j + 1]
    w2 = p[i, j + 2]
    w3 = p[i + 1, j]
    w5 = p[i + 1, j + 2]
    w6 = p[i + 2, j]
    w7 = p[i + 2, j + 1]
    w8 = p[i + 2, j + 2]
    if w0 != w0:
        w0 = centre
    if w1 != w1:
        w1 = centre
    if w2 != w2:
        w2 = centre
    if w3 != w3:
        w3 = centre
    if w5 != w5:
        w5 = centre
    if w6 != w6:
        w6 = centre
    if w7 != w7:
        w7 = centre
    if w8 != w8:
        w8 = centre
    ew = (w2 + 2.0 * w5 + w8) - (w0 + 2.0 * w3 + w6)
    ns = (w0 + 2.0 * w1 + w2) - (w6 + 2.0 * w7 + w8)
    return ew, ns


@njit(cache=True, parallel=True)
def horn_slope_pct(p, cell_x, cell_y):  # pragma: no cover - compiled
    """Slope in percent of every cell of the padded grid ``p`` (heights and cell sizes in one unit)."""
    rows = p.shape[0] - 2
    cols = p.shape[1] - 2
    out = np.empty((rows, cols), dtype=np.float64)
    fx = 1.0 / (8.0 * cell_x)
    fy = 1.0 / (8.0 * cell_y)
    for i in prange(rows):
        for j in range(cols):
            c = p[i + 1, j + 1]
            if c != c:
                out[i, j] = np.nan
                continue
            ew, ns = _horn(p, i, j, c)
            gx = ew * fx
            gy = ns * fy
            out[i, j] = 100.0 * math.sqrt(gx * gx + gy * gy)
    return out


@njit(cache=True, parallel=True)
def horn_hillshade(p, cell_x, cell_y, azimuth_deg, altitude_deg):  # pragma: no cover - compiled
    """GDAL's hillshade (1-255, 0 where the centre is missing) from Horn's gradient on the padded grid."""
    rows = p.shape[0] - 2
    cols = p.shape[1] - 2
    out = np.empty((rows, cols), dtype=np.uint8)
    az = math.radians(azimuth_deg)
    alt = math.radians(altitude_deg)
    sin_alt = math.sin(alt)
    cos_alt = math.cos(alt)
    sin_az = math.sin(az)
    cos_az = math.cos(az)
    fx = 1.0 / (8.0 * cell_x)
    fy = 1.0 / (8.0 * cell_y)
    for i in prange(rows):
        for j in range(cols):
            c = p[i + 1, j + 1]
            if c != c:
                out[i, j] = 0
                continue
            ew, ns = _horn(p, i, j, c)
            # GDAL's x is west minus east, its y north minus south (both per unit length)
            x = -ew * fx
            y = ns * fy
            cang = (sin_alt - (y * cos_az * cos_alt - x * sin_az * cos_alt)) / math.sqrt(1.0 + x * x + y * y)
            v = 1.0 if cang <= 0.0 else 1.0 + 254.0 * cang
            out[i, j] = np.uint8(min(255.0, math.floor(v + 0.5)))
    return out


@njit(cache=True, parallel=True)
def binomial_smooth(p):  # pragma: no cover - compiled
    """One pass of the 3x3 binomial filter (1-2-1 by 1-2-1, /16) over the padded grid, NaN-aware: missing
    neighbours get no weight, missing centres stay missing. Linear surfaces pass through unchanged
    (the padding is a linear extrapolation)."""
    rows = p.shape[0] - 2
    cols = p.shape[1] - 2
    out = np.empty((rows, cols), dtype=np.float64)
    for i in prange(rows):
        for j in range(cols):
            c = p[i + 1, j + 1]
            if c != c:
                out[i, j] = np.nan
                continue
            s = 0.0
            w = 0.0
            for di in range(3):
                wi = 2.0 if di == 1 else 1.0
                for dj in range(3):
                    v = p[i + di, j + dj]
                    if v == v:
                        ww = wi * (2.0 if dj == 1 else 1.0)
                        s += ww * v
                        w += ww
            out[i, j] = s / w
    return out
