"""Depression filling against a plain-Python priority flood (heapq; Barnes et al. 2014, algorithm 1):
the same filled surface, bit for bit, on noisy grids with pits, flats at float-noise scale and nodata,
by both of the kernel's paths: the reconstruction (no labels) and the labelled priority flood, which
takes shortcuts (raster sweeps and a FIFO for climbs, a FIFO for depressions); the reference takes
none."""

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
    assert np.array_equal(_flood(z, want_label=True)[0], got, equal_nan=True)


def test_fill_matches_on_a_cone_and_a_bowl():
    rows, cols = np.mgrid[0:61, 0:61]
    r = np.hypot(rows - 30, cols - 30)
    for z in (1000.0 - 0.3 * r, 900.0 + 0.3 * r):  # cone: no depression; bowl: one, filled to its rim
        got = np.empty_like(z)
        fk.priority_flood(z, got, False, np.empty((1, 1), dtype=np.int64))
        assert np.array_equal(got, reference_fill(z))


def _flood(z: np.ndarray, want_label: bool = False) -> tuple[np.ndarray, np.ndarray]:
    got = np.empty_like(z)
    label = np.empty(z.shape if want_label else (1, 1), dtype=np.int64)
    fk.priority_flood(z, got, want_label, label)
    return got, label


def kettle_field(shape=(180, 190), kettles: int = 60, seed: int = 1) -> np.ndarray:
    """A plane falling south with ``kettles`` round closed pits pressed in (some overlapping, some
    cut by the edge), heights rounded to 0.01 ft so flats and ties are many, and nodata holes."""
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float64)
    z = 950.0 - 0.05 * rows + 0.3 * np.sin(cols / 7.0)
    for _ in range(kettles):
        r0, c0 = rng.uniform(0, shape[0]), rng.uniform(0, shape[1])
        rad, depth = rng.uniform(2.0, 12.0), rng.uniform(0.5, 6.0)
        z -= depth * np.exp(-((rows - r0) ** 2 + (cols - c0) ** 2) / (2 * rad**2))
    z = np.round(z, 2)
    z[rng.random(shape) < 0.003] = np.nan
    z[100:104, 40:70] = np.nan  # a hole a pit spills into
    return z


@pytest.mark.parametrize("seed", range(3))
def test_a_kettle_field_fills_as_a_plain_priority_flood_does(seed):
    # many closed pits (more frontier cells than the kernel's first heap holds), ties, nodata
    z = kettle_field(seed=seed)
    got, _ = _flood(z)
    assert np.array_equal(got, reference_fill(z), equal_nan=True)
    assert np.array_equal(_flood(z, want_label=True)[0], got, equal_nan=True)
    assert (got > z).sum() > 2_000  # the pits were there to fill


def test_a_large_bowl_fills_to_its_lowest_rim_cell():
    # one closed basin over most of the grid (a depression front longer than the kernel's first
    # queue): every cell below the lowest edge cell is filled to it, the rest keep their height
    side = 601
    rows, cols = np.mgrid[0:side, 0:side]
    z = 900.0 + 0.3 * np.hypot(rows - 300, cols - 300)
    rim = min(z[0].min(), z[-1].min(), z[:, 0].min(), z[:, -1].min())
    got, _ = _flood(z)
    assert np.array_equal(got, np.maximum(z, rim))
    assert np.array_equal(_flood(z, want_label=True)[0], got)
    assert (got > z).sum() > 0.7 * z.size


@pytest.mark.parametrize("surface", ["cone", "plane"])
def test_a_surface_without_depressions_is_left_as_it_is(surface):
    rows, cols = np.mgrid[0:501, 0:499].astype(np.float64)
    z = 1000.0 - 0.3 * np.hypot(rows - 250, cols - 249) if surface == "cone" else 900.0 - 0.15 * rows
    got, label = _flood(z, want_label=True)
    assert np.array_equal(got, z)
    assert np.array_equal(got, _flood(z)[0])  # with or without labels, the same surface


def _is_seed_mask(z: np.ndarray) -> np.ndarray:
    edge = np.zeros(z.shape, dtype=bool)
    edge[0], edge[-1], edge[:, 0], edge[:, -1] = True, True, True, True
    nan = np.pad(np.isnan(z), 1)
    beside = np.zeros(z.shape, dtype=bool)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            beside |= nan[1 + dr : 1 + dr + z.shape[0], 1 + dc : 1 + dc + z.shape[1]]
    return (edge | beside) & ~np.isnan(z)


@pytest.mark.parametrize("seed", range(3))
def test_each_cell_is_labelled_with_a_seed_no_higher_than_its_fill(seed):
    # the label a window's certificate relies on: an outlet (edge or beside nodata) reached from the
    # cell without rising above its filled height, so the seed itself is no higher than that
    z = kettle_field(seed=seed)
    got, label = _flood(z, want_label=True)
    valid = ~np.isnan(z)
    lab = label[valid]
    assert _is_seed_mask(z).reshape(-1)[lab].all()
    assert (got.reshape(-1)[lab] <= got[valid]).all()
    seeds = _is_seed_mask(z)
    assert np.array_equal(label[seeds], np.flatnonzero(seeds))  # a seed is its own


def basin_tiers(side: int = 200, seed: int = 0) -> np.ndarray:
    """Smoothed noise at four scales on a 1 % fall, with kettles, rounded to 0.01 ft (the benchmark's
    terrain generator at 40,000 cells): basins inside basins, which the reconstruction lowers wave
    after wave (3.7 times a cell on this one)."""
    from scipy.ndimage import gaussian_filter, zoom

    rng = np.random.default_rng(seed)
    z = np.zeros((side, side))
    for sigma, amp in ((side / 16, 60.0), (side / 64, 15.0), (8.0, 4.0), (1.5, 0.5)):
        k = max(1, int(sigma // 4))
        m = side // k + 2
        f = gaussian_filter(rng.standard_normal((m, m)).astype(np.float32), sigma / k, mode="wrap")
        if k > 1:
            f = zoom(f, k, order=3)
        f = f[:side, :side]
        z += amp * f / max(float(f.std()), 1e-9)
    z -= (0.03 * np.arange(side, dtype=np.float64))[:, None]
    for _ in range(4):
        r0, c0 = rng.uniform(0, side, 2)
        rad, depth = rng.uniform(8, 40), rng.uniform(3, 15)
        rr, cc = np.mgrid[0:side, 0:side]
        z -= depth * np.exp(-((rr - r0) ** 2 + (cc - c0) ** 2) / (2 * rad**2))
    return np.round(z + 900.0, 2)


def test_past_its_budget_the_reconstruction_gives_way_to_the_flood():
    from geosite.hydrology import _kernels_numba as jit

    z = basin_tiers()
    assert not jit._reconstruct(z, np.empty_like(z))  # more than twice the cells' count of turns
    got, _ = _flood(z)
    assert np.array_equal(got, reference_fill(z))
