"""Numba kernels behind geosite.scale.tiles (private): one pass over a slope tile for its totals."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def tile_stats(s, thresholds, mask, want_mask, nodata):  # pragma: no cover - compiled
    """Valid cells, steepest slope, cells at or above each threshold (``thresholds`` already lowered
    by the tolerance) of the slope tile ``s``; with ``want_mask``, ``mask`` gets the number of
    thresholds met (``nodata`` where the slope is NaN). One parallel pass over rows."""
    rows, cols = s.shape
    k = thresholds.shape[0]
    valid = np.zeros(rows, dtype=np.int64)
    steep = np.zeros((rows, k), dtype=np.int64)
    top = np.full(rows, -np.inf)
    for i in prange(rows):
        for j in range(cols):
            v = s[i, j]
            if v != v:
                if want_mask:
                    mask[i, j] = nodata
                continue
            valid[i] += 1
            if v > top[i]:
                top[i] = v
            m = 0
            for t in range(k):
                if v >= thresholds[t]:
                    steep[i, t] += 1
                    m += 1
            if want_mask:
                mask[i, j] = m
    return valid.sum(), top.max() if rows else -np.inf, steep.sum(axis=0)
