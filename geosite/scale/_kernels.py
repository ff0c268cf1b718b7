"""One pass over a slope tile for its totals (private to geosite.scale), in numpy.

It was a ``parallel=True`` numba kernel: compiling it cost a fresh process 3.9 s (measured,
benchmarks/bench_first_run.py), more than numpy takes over a whole county's tiles (a few
comparisons a cell: 10 ms for a 2,048 x 2,048 tile; reading the tile costs more).
"""

from __future__ import annotations

import numpy as np


def tile_stats(
    s: np.ndarray, thresholds: np.ndarray, mask: np.ndarray, want_mask: bool, nodata: int
) -> tuple[int, float, np.ndarray]:
    """Valid cells, steepest slope, cells at or above each threshold (``thresholds`` already lowered
    by the tolerance) of the slope tile ``s``; with ``want_mask``, ``mask`` gets the number of
    thresholds met (``nodata`` where the slope is NaN).
    """
    valid = ~np.isnan(s)
    n = int(np.count_nonzero(valid))
    top = float(np.max(s, where=valid, initial=-np.inf))
    steep = np.zeros(len(thresholds), dtype=np.int64)
    if want_mask:
        mask[...] = 0
    for t, lo in enumerate(thresholds):
        at = s >= lo  # NaN compares False
        steep[t] = np.count_nonzero(at)
        if want_mask:
            mask += at
    if want_mask:
        mask[~valid] = nodata
    return n, top, steep
