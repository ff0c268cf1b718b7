"""D-infinity upslope areas on planes whose fall line is not a D8 direction, against the continuous
answer (the square swept up the fall line to the DEM's edge), and equal to D8 where D8 is exact."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from affine import Affine
from shapely import affinity
from shapely.geometry import box

from geosite import hydrology as hy
from geosite.hydrology import _kernels as fk
from geosite.testing import inclined_plane


def continuous_upslope(dem, square, azimuth_deg):
    a = np.radians(azimuth_deg)
    far = affinity.translate(square, -np.sin(a) * 5000, -np.cos(a) * 5000)
    swept = shapely.convex_hull(shapely.union_all([square, far]))
    return shapely.intersection(swept, box(*dem.bounds)).difference(square).area * dem.ft_per_unit**2


@pytest.mark.parametrize(
    ("az", "d8_err", "dinf_tol"),
    [(180, 0.0, 1e-9), (135, 0.011, 0.012), (170, 0.162, 0.05), (160, 0.286, 0.07), (100, 0.168, 0.05)],
)
def test_dinf_follows_the_fall_line(az, d8_err, dinf_tol):
    dem = inclined_plane(5.0, shape=(400, 400), cell=2.0, azimuth_deg=az)
    fg = hy.flow_grid(dem)
    x0, y0 = dem.transform.c, dem.transform.f
    square = box(x0 + 350, y0 - 600, x0 + 450, y0 - 500)
    true = continuous_upslope(dem, square, az)
    d8 = hy.upslope_area(fg, square, channel_threshold_sqft=43_560.0).area_sqft
    dinf = hy.upslope_area_dinf_sqft(fg, square)
    assert abs(d8 / true - 1) == pytest.approx(d8_err, abs=0.002)  # D8's error, measured
    assert dinf / true == pytest.approx(1.0, abs=dinf_tol)


def test_dinf_split_on_a_plane_is_the_facet_angle():
    # a plane falling at azimuth 160 (20 deg east of south): Tarboton's facet angle is 20 deg, so every
    # interior cell sends (45 - 20) / 45 of its flow to the south neighbour and the rest south-east
    dem = inclined_plane(5.0, shape=(50, 50), cell=2.0, azimuth_deg=160)
    rec1, rec2, p1 = hy.flow_grid(dem).dinf()
    i = 25 * 50 + 25
    assert {rec1[i], rec2[i]} == {26 * 50 + 25, 26 * 50 + 26}
    share_s = p1[i] if rec1[i] == 26 * 50 + 25 else 1 - p1[i]
    assert share_s == pytest.approx(25 / 45, rel=1e-9)


def test_dinf_inflow_conserves_flow():
    # everything on a south-falling plane reaches the second-to-last row, which absorbs it
    dem = inclined_plane(5.0, shape=(40, 30), cell=2.0, azimuth_deg=180)
    rec1, rec2, p1 = hy.flow_grid(dem).dinf()
    inside = np.zeros(dem.shape, np.uint8)
    inside[-2, 1:-1] = 1
    got = fk.dinf_inflow(rec1, rec2, p1, inside.reshape(-1), np.ones(1))
    assert got == pytest.approx(38 * 28, rel=1e-12)  # rows 0..37 over the 28 interior columns


def _dinf_by_trig(filled, dx, dy):
    """Tarboton's facet search written plainly (two arctan2 per facet), for interior cells of a grid
    without nodata: (rec1, rec2, p1) as dinf_partition gives them where a facet falls."""
    from geosite.grid import DC, DR

    nr, nc = filled.shape
    out = {}
    card, diag = [0, 2, 2, 4, 4, 6, 6, 0], [1, 1, 3, 3, 5, 5, 7, 7]
    for r in range(1, nr - 1):
        for c in range(1, nc - 1):
            best, pick = 0.0, None
            for f in range(8):
                k1, k2 = card[f], diag[f]
                d1, d2 = (dx, dy) if DR[k1] == 0 else (dy, dx)
                e0, e1, e2 = filled[r, c], filled[r + DR[k1], c + DC[k1]], filled[r + DR[k2], c + DC[k2]]
                s1, s2 = (e0 - e1) / d1, (e1 - e2) / d2
                alpha, ang = math.atan2(d2, d1), math.atan2(s2, s1)
                if ang < 0:
                    ang, s = 0.0, s1
                elif ang > alpha:
                    ang, s = alpha, (e0 - e2) / math.hypot(d1, d2)
                else:
                    s = math.hypot(s1, s2)
                if s > best:
                    best = s
                    pick = (
                        (r + DR[k1]) * nc + c + DC[k1],
                        (r + DR[k2]) * nc + c + DC[k2],
                        (alpha - ang) / alpha,
                    )
            if pick is not None:
                out[r * nc + c] = pick
    return out


@pytest.mark.parametrize(("seed", "dx", "dy"), [(2, 3.0, 3.0), (4, 3.0, 2.5)])
def test_dinf_partition_is_tarbotons_facet_search(seed, dx, dy):
    # the kernel finds each facet's steepest direction without trigonometry; on rough terrain it must
    # choose the facets and shares the plain two-arctan2 search chooses
    import dataclasses

    from geosite.testing import rolling_terrain

    dem = rolling_terrain((60, 70), cell=3.0, relief_ft=20.0, seed=seed)
    dem = dataclasses.replace(dem, transform=dem.transform * Affine.scale(1.0, dy / dx))
    fg = hy.flow_grid(dem)
    assert (fg.dem.cell_x_ft, fg.dem.cell_y_ft) == pytest.approx((dx, dy))
    rec1, rec2, p1 = fg.dinf()
    want = _dinf_by_trig(fg.filled_ft, fg.dem.cell_x_ft, fg.dem.cell_y_ft)
    assert len(want) > 2500  # of the 3,944 interior cells; the rest lie on filled flats
    for i, (a, b, share) in want.items():
        if share >= 1.0:
            assert (rec1[i], rec2[i], p1[i]) == (a, -1, 1.0)
        elif share <= 0.0:
            assert (rec1[i], rec2[i], p1[i]) == (b, -1, 1.0)
        else:
            assert (rec1[i], rec2[i]) == (a, b)
            assert p1[i] == pytest.approx(share, rel=1e-12, abs=1e-15)


def _dinf_upstream_reference(rec1, rec2, p1, inside):
    """Cells any share of whose flow reaches ``inside``: a breadth-first search over the reversed graph of
    positive shares (scipy.sparse.csgraph, from one extra node joined to every inside cell)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order

    n = rec1.size
    src = np.concatenate([np.flatnonzero(rec1 >= 0), np.flatnonzero(rec2 >= 0)])
    dst = np.concatenate([rec1[rec1 >= 0], rec2[rec2 >= 0]])
    share = np.concatenate([p1[rec1 >= 0], 1.0 - p1[rec2 >= 0]])
    src, dst = src[share > 0], dst[share > 0]
    start = np.flatnonzero(inside)
    rows = np.concatenate([dst, np.full(start.size, n)])  # reversed: receiver -> donor; node n -> inside
    cols = np.concatenate([src, start])
    g = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n + 1, n + 1)).tocsr()
    reached = breadth_first_order(g, n, directed=True, return_predecessors=False)
    out = np.zeros(n, dtype=bool)
    out[reached[reached < n]] = True
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_split_computed_where_the_search_looks_gives_the_whole_grids_answer(seed):
    # FlowGrid.dinf_upstream / dinf_inflow_cells compute the split only for the cells their search
    # looks at; over the whole grid's split (FlowGrid.dinf) the same cells and the same inflow, to the
    # bit, on terrain with flats and holes, for a small polygon and a large one, asked twice
    from geosite.grid import Dem
    from geosite.testing import rolling_terrain

    rng = np.random.default_rng(seed)
    base = rolling_terrain((150, 170), cell=3.0, relief_ft=20.0, seed=seed)
    z = np.round(base.elevation_ft, 1)
    z[rng.random(z.shape) < 0.005] = np.nan
    dem = Dem.from_array(z, base.transform, base.crs, "us_ft")
    whole, lazy = hy.flow_grid(dem), hy.flow_grid(dem)
    rec1, rec2, p1 = whole.dinf()
    for r0, c0, h, w in [(70, 80, 6, 5), (20, 30, 60, 90)]:
        inside = np.zeros(z.shape, dtype=bool)
        inside[r0 : r0 + h, c0 : c0 + w] = True
        want_up = _dinf_upstream_reference(rec1, rec2, p1, inside.reshape(-1))
        want = fk.dinf_inflow(rec1, rec2, p1, inside.view(np.uint8).reshape(-1), np.ones(1))
        for _ in range(2):
            assert np.array_equal(lazy.dinf_upstream(inside).reshape(-1), want_up)
            assert lazy.dinf_inflow_cells(inside) == want and want > 0
    done = lazy._dinf_some[3]
    assert 0 < done.sum() < z.size  # only part of the grid was split
