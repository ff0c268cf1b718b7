"""The 3x3 stencils behind geosite.terrain, in numpy: arrays in, arrays out, no I/O, no units.

Private: use :mod:`geosite.terrain`. Every stencil works on a grid padded by one cell on each side
(:func:`pad_extrapolate`), so edge cells need no special case, and runs over blocks of rows on a few
threads (numpy releases the GIL inside each operation).

Why numpy and not numba (measured; benchmarks/bench_first_run.py, numba 0.68.1, 2 cores): these were
``parallel=True`` numba kernels, and compiling the four of them cost a fresh process 3.4 s (numba's
parallel pipeline is its slowest), which every first run paid; numpy needs no compile. On a 16 M-cell
DEM the Horn slope takes 0.11 s here against numba's 0.05-0.08 s, against gdaldem's 1.5 s. Each cell
is computed by the same IEEE operations in the same order as the numba kernels did (sums left to right,
a missing neighbour replaced by the centre before the sum), so the numbers are the same to the bit
(tests/test_terrain.py compares them with GDAL and closed forms).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: Rows per block: a block's temporaries stay in cache (measured: 16-32 rows of 4,096 cells fastest).
BLOCK_ROWS = 32
#: Below this many cells a grid is computed in one block on the calling thread.
SERIAL_CELLS = 1 << 18


def threads() -> int:
    """Threads the stencils use: ``OMP_NUM_THREADS`` when set (geosite batch shares the CPUs out
    between its workers that way), else one per CPU.
    """
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "0"))
    except ValueError:
        n = 0
    return max(n or os.cpu_count() or 1, 1)


def by_rows(block: Callable[[int, int], None], rows: int, cols: int) -> None:
    """Call ``block(r0, r1)`` for blocks of rows covering ``range(rows)``, on :func:`threads` threads."""
    if rows * cols <= SERIAL_CELLS:
        block(0, rows)
        return
    starts = range(0, rows, BLOCK_ROWS)
    n = threads()
    if n == 1:
        for r0 in starts:
            block(r0, min(r0 + BLOCK_ROWS, rows))
        return
    pool = _POOLS.get(n)
    if pool is None:  # one pool per process (and thread count): starting threads costs more than a block
        pool = _POOLS[n] = ThreadPoolExecutor(n, thread_name_prefix="geosite-stencil")
    for f in [pool.submit(block, r0, min(r0 + BLOCK_ROWS, rows)) for r0 in starts]:
        f.result()


_POOLS: dict[int, ThreadPoolExecutor] = {}


def pad_extrapolate(z: np.ndarray) -> np.ndarray:
    """``z`` padded by one cell, the outside cells extrapolated linearly from the two nearest cells
    inward (``2 a - b``, as GDAL's ``-compute_edges``; the corners along the diagonal). An outside cell
    whose two source cells are not both valid is NaN. A grid one cell high (wide) repeats its one row
    (column) outward: no gradient across it.
    """
    rows, cols = z.shape
    p = np.empty((rows + 2, cols + 2), dtype=np.float64)
    p[1:-1, 1:-1] = z
    nan = np.nan
    if rows >= 2:
        p[0, 1:-1] = 2.0 * z[0] - z[1]
        p[-1, 1:-1] = 2.0 * z[-1] - z[-2]
    else:
        p[0, 1:-1] = p[-1, 1:-1] = nan
    if cols >= 2:
        p[1:-1, 0] = 2.0 * z[:, 0] - z[:, 1]
        p[1:-1, -1] = 2.0 * z[:, -1] - z[:, -2]
    else:
        p[1:-1, 0] = p[1:-1, -1] = nan
    if rows >= 2 and cols >= 2:
        p[0, 0] = 2.0 * z[0, 0] - z[1, 1]
        p[0, -1] = 2.0 * z[0, -1] - z[1, -2]
        p[-1, 0] = 2.0 * z[-1, 0] - z[-2, 1]
        p[-1, -1] = 2.0 * z[-1, -1] - z[-2, -2]
    else:
        p[0, 0] = p[0, -1] = p[-1, 0] = p[-1, -1] = nan
    # a grid one cell high (wide) has no gradient across it: repeat the row (column)
    if rows == 1:
        p[0] = p[1]
        p[2] = p[1]
    if cols == 1:
        p[:, 0] = p[:, 1]
        p[:, 2] = p[:, 1]
    return p


def _neighbours(p: np.ndarray, r0: int, r1: int) -> tuple[np.ndarray, list[np.ndarray], bool]:
    """The centres of output rows r0..r1 and their 3x3 neighbourhoods (row-major, centre included), a
    missing neighbour replaced by the centre (GDAL's rule); and whether the block has a missing cell.
    """
    n, m = r1 - r0, p.shape[1] - 2
    win = p[r0 : r1 + 2]
    c = win[1 : n + 1, 1 : m + 1]
    gaps = bool(np.isnan(win).any())
    nb = []
    for di in range(3):
        for dj in range(3):
            w = win[di : di + n, dj : dj + m]
            nb.append(np.where(np.isnan(w), c, w) if gaps else w)
    return c, nb, gaps


def _horn(nb: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Horn's sums (east minus west, north minus south), each a 1-2-1 weighted sum, in the order
    ``(w2 + 2 w5 + w8) - (w0 + 2 w3 + w6)``, ``(w0 + 2 w1 + w2) - (w6 + 2 w7 + w8)``.
    """
    w0, w1, w2, w3, _, w5, w6, w7, w8 = nb
    ew = w5 * 2.0
    ew += w2  # w2 + 2 w5 (addition commutes exactly)
    ew += w8
    west = w3 * 2.0
    west += w0
    west += w6
    ew -= west
    ns = w1 * 2.0
    ns += w0
    ns += w2
    south = w7 * 2.0
    south += w6
    south += w8
    ns -= south
    return ew, ns


def horn_slope_pct(p: np.ndarray, cell_x: float, cell_y: float) -> np.ndarray:
    """Slope in percent of every cell of the padded grid ``p`` (heights and cell sizes in one unit)."""
    rows, cols = p.shape[0] - 2, p.shape[1] - 2
    out = np.empty((rows, cols), dtype=np.float64)
    fx = 1.0 / (8.0 * cell_x)
    fy = 1.0 / (8.0 * cell_y)

    def block(r0: int, r1: int) -> None:
        """Rows ``r0:r1`` of the result, computed in place."""
        c, nb, gaps = _neighbours(p, r0, r1)
        gx, gy = _horn(nb)
        gx *= fx
        gy *= fy
        gx *= gx
        gy *= gy
        gx += gy
        o = out[r0:r1]
        np.sqrt(gx, out=o)
        o *= 100.0
        if gaps:
            o[np.isnan(c)] = np.nan

    by_rows(block, rows, cols)
    return out


def horn_hillshade(
    p: np.ndarray, cell_x: float, cell_y: float, azimuth_deg: float, altitude_deg: float
) -> np.ndarray:
    """GDAL's hillshade (1-255, 0 where the centre is missing) from Horn's gradient on the padded grid."""
    rows, cols = p.shape[0] - 2, p.shape[1] - 2
    out = np.empty((rows, cols), dtype=np.uint8)
    az = math.radians(azimuth_deg)
    alt = math.radians(altitude_deg)
    sin_alt, cos_alt = math.sin(alt), math.cos(alt)
    sin_az, cos_az = math.sin(az), math.cos(az)
    fx = 1.0 / (8.0 * cell_x)
    fy = 1.0 / (8.0 * cell_y)

    def block(r0: int, r1: int) -> None:
        """Rows ``r0:r1`` of the result, computed in place."""
        c, nb, gaps = _neighbours(p, r0, r1)
        ew, ns = _horn(nb)
        # GDAL's x is west minus east, its y north minus south (both per unit length)
        x = -ew * fx
        y = ns * fy
        light = sin_alt - (y * cos_az * cos_alt - x * sin_az * cos_alt)
        cang = light / np.sqrt(1.0 + x * x + y * y)
        v = np.where(cang <= 0.0, 1.0, 1.0 + 254.0 * cang)
        o = np.minimum(255.0, np.floor(v + 0.5))
        if gaps:
            o[np.isnan(c)] = 0.0
        out[r0:r1] = o

    by_rows(block, rows, cols)
    return out


#: The binomial filter's weights in the order the sum runs (row-major over the 3x3 neighbourhood).
_BINOMIAL = (1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0)


def binomial_smooth(p: np.ndarray) -> np.ndarray:
    """One pass of the 3x3 binomial filter (1-2-1 by 1-2-1, /16) over the padded grid, NaN-aware: missing
    neighbours get no weight, missing centres stay missing. Linear surfaces pass through unchanged
    (the padding is a linear extrapolation). The sum runs row-major over the neighbourhood.
    """
    rows, cols = p.shape[0] - 2, p.shape[1] - 2
    out = np.empty((rows, cols), dtype=np.float64)

    def block(r0: int, r1: int) -> None:
        """Rows ``r0:r1`` of the result, computed in place."""
        n, m = r1 - r0, cols
        win = p[r0 : r1 + 2]
        o = out[r0:r1]
        if not np.isnan(win).any():
            o[...] = win[0:n, 0:m]  # 0 + 1 v00 = v00 exactly
            tmp = np.empty((n, m))
            for k in range(1, 9):
                di, dj = divmod(k, 3)
                v = win[di : di + n, dj : dj + m]
                if _BINOMIAL[k] == 1.0:  # 1 v is v: no product to round
                    o += v
                else:
                    np.multiply(v, _BINOMIAL[k], out=tmp)
                    o += tmp
            o *= 0.0625  # / 16, exactly (a power of two)
            return
        s = np.zeros((n, m))
        w = np.zeros((n, m))
        for k in range(9):
            di, dj = divmod(k, 3)
            v = win[di : di + n, dj : dj + m]
            ok = ~np.isnan(v)
            s += np.where(ok, _BINOMIAL[k] * v, 0.0)
            w += np.where(ok, _BINOMIAL[k], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            o[...] = s / w
        o[np.isnan(win[1 : n + 1, 1 : m + 1])] = np.nan

    by_rows(block, rows, cols)
    return out
