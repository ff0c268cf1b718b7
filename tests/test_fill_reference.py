"""Depression filling against a plain-Python priority flood (heapq; Barnes et al. 2014, algorithm 1):
the same filled surface, bit for bit, on noisy grids with pits, flats at float-noise scale and nodata.
The kernel takes shortcuts (a FIFO for depressions, slope cells out of heap order); the reference
takes none."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from geosite.hydrology import _kernels as fk


def reference_fill(z: np.ndarray) -> np.ndarray:
    nr, nc = z.shape
    filled = z.copy()
    closed = np.isnan(z)
    heap: list[tuple[float, int, int]] = []
    for r in range(nr):
        for c in range(nc):
            if closed[r, c]:
                continue
            edge = r in (0, nr - 1) or c in (0, nc - 1)
            near_nodata = any(
                np.isnan(z[r + dr, c + dc])
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if 0 <= r + dr < nr and 0 <= c + dc < nc
            )
            if edge or near_nodata:
                closed[r, c] = True
                heapq.heappush(heap, (z[r, c], r, c))
    while heap:
        level, r, c = heapq.heappop(heap)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc = r + dr, c + dc
                if (dr or dc) and 0 <= rr < nr and 0 <= cc < nc and not closed[rr, cc]:
                    closed[rr, cc] = True
                    filled[rr, cc] = max(z[rr, cc], level)
                    heapq.heappush(heap, (filled[rr, cc], rr, cc))
    return filled


def noisy_grid(seed: int, shape=(48, 52)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]]
    z = 900.0 - 0.03 * rows + 0.5 * np.sin(cols / 5.0) + rng.normal(0, 0.2, shape)
    z += rng.choice([0.0, 1e-13, -1e-13], size=shape)  # float-noise ties, as on synthetic planes
    for _ in range(4):  # pits
        r, c = rng.integers(5, shape[0] - 5), rng.integers(5, shape[1] - 5)
        z[r - 2 : r + 3, c - 2 : c + 3] -= rng.uniform(0.5, 2.0)
    z[rng.random(shape) < 0.01] = np.nan  # nodata specks: outlets
    return z


@pytest.mark.parametrize("seed", range(6))
def test_fill_matches_a_plain_priority_flood(seed):
    z = noisy_grid(seed)
    got = np.empty_like(z)
    fk.priority_flood(z, got, False, np.empty((1, 1), dtype=np.int64))
    assert np.array_equal(got, reference_fill(z), equal_nan=True)


def test_fill_matches_on_a_cone_and_a_bowl():
    rows, cols = np.mgrid[0:61, 0:61]
    r = np.hypot(rows - 30, cols - 30)
    for z in (1000.0 - 0.3 * r, 900.0 + 0.3 * r):  # cone: no depression; bowl: one, filled to its rim
        got = np.empty_like(z)
        fk.priority_flood(z, got, False, np.empty((1, 1), dtype=np.int64))
        assert np.array_equal(got, reference_fill(z))
