"""Filter fence on inclined planes: closed forms for the fence lengths and positions."""

import geopandas as gpd
import numpy as np
import pytest
from shapely import affinity
from shapely.geometry import box

from geosite.controls import fence_summary, filter_fence, max_slope_length_ft
from geosite.hydrology import flow_grid
from geosite.testing import inclined_plane

CX, CY = 500_300.0, 199_700.0  # centre of a 300 x 300 grid of 2 ft (EPSG:7593)


def _fence(slope_pct, az, w, h):
    dem = inclined_plane(slope_pct, shape=(300, 300), cell=2.0, azimuth_deg=az)
    fg = flow_grid(dem)
    # w along the contour, h along the flow; rotated with the plane (azimuth 180 = falls south)
    r = affinity.rotate(box(CX - w / 2, CY - h / 2, CX + w / 2, CY + h / 2), -(az - 180), origin=(CX, CY))
    fence, runs = filter_fence(gpd.GeoDataFrame({"id": [7]}, geometry=[r], crs=dem.crs), dem, fg)
    return fence, runs


@pytest.mark.parametrize("az", [180.0, 30.0, 90.0])
def test_fence_on_downslope_and_side_edges_never_upslope(az):
    w, h = 200.0, 100.0
    fence, runs = _fence(1.0, az, w, h)  # 1 %: DNR 1056 allows 100 ft, so no interior rows
    s = fence_summary(fence)
    assert s["downslope_length_ft"] == pytest.approx(w, rel=1e-9)
    assert s["sideslope_length_ft"] == pytest.approx(2 * h, rel=1e-9)
    assert s["interior_length_ft"] == 0 and s["hook_length_ft"] == 0  # side fences already run upslope
    assert s["total_length_ft"] == pytest.approx(w + 2 * h, rel=0.02)
    assert s["with_interior_length_ft"] == s["total_length_ft"]
    up = runs[runs.side == "upslope"]
    assert up["length_ft"].sum() == pytest.approx(w, rel=1e-9)
    # un-rotate: the downslope run lies on the bottom edge, the upslope run on the top edge
    back = lambda g: np.asarray(affinity.rotate(g, az - 180, origin=(CX, CY)).coords)  # noqa: E731
    down = back(fence[fence.side == "downslope"].geometry.iloc[0])
    assert np.allclose(down[:, 1], CY - h / 2, atol=1e-6)
    assert np.allclose(back(up.geometry.iloc[0])[:, 1], CY + h / 2, atol=1e-6)
    # no fence line touches the upslope edge's interior
    top_mid = affinity.rotate(box(CX - w / 2 + 5, CY + h / 2 - 0.01, CX + w / 2 - 5, CY + h / 2 + 0.01), -(az - 180), origin=(CX, CY))
    assert not fence.intersects(top_mid).any()


@pytest.mark.parametrize("az", [180.0, 30.0])
def test_interior_rows_every_dnr_1056_length(az):
    # 3 % -> 75 ft (DNR 1056, 2-5 %); a 200 ft slope needs rows 75 and 150 ft above the bottom fence
    w, h = 200.0, 200.0
    fence, _ = _fence(3.0, az, w, h)
    rows = fence[fence.side == "interior"]
    assert len(rows) == 2
    offsets = sorted(
        float(np.mean(np.asarray(affinity.rotate(g, az - 180, origin=(CX, CY)).coords)[:, 1])) - (CY - h / 2)
        for g in rows.geometry
    )
    assert offsets == pytest.approx([75.0, 150.0], abs=0.01)
    # rows run between the outermost cell centres: within a cell of the full width each
    assert rows["length_ft"].to_numpy() == pytest.approx([w, w], abs=2.5)


def test_dnr_1056_table():
    assert max_slope_length_ft([0.5, 2.0, 4.9, 5.0, 10.0, 33.0, 50.0]).tolist() == [100, 75, 75, 50, 25, 20, 20]


def test_hooks_turn_fence_ends_upslope():
    # a rectangle on a plane with only its bottom edge downslope and the sides sideslope would need no
    # hook; a triangle pointing uphill has two downslope-facing edges meeting the upslope top edge
    dem = inclined_plane(1.0, shape=(300, 300), cell=2.0)
    from shapely.geometry import Polygon

    tri = Polygon([(CX - 100, CY + 40), (CX + 100, CY + 40), (CX, CY - 60)])  # apex downhill
    fence, runs = filter_fence(gpd.GeoDataFrame({"id": [1]}, geometry=[tri], crs=dem.crs), dem, flow_grid(dem))
    hooks = fence[fence.side == "hook"]
    assert len(hooks) == 2
    assert hooks["length_ft"].to_numpy() == pytest.approx([10.0, 10.0])
    for g in hooks.geometry:  # each hook ends 10 ft further north (uphill) than it starts
        (x0, y0), (x1, y1) = g.coords
        assert y1 - y0 == pytest.approx(10.0) and x1 == pytest.approx(x0)


def test_total_is_the_edge_fence_interior_rows_on_top():
    # 5 %: DNR 1056 allows 50 ft of slope above a fence, so a 100 ft deep area gets one interior row
    w, h = 200.0, 100.0
    fence, _runs = _fence(5.0, 180.0, w, h)
    s = fence_summary(fence)
    assert s["total_length_ft"] == pytest.approx(w + 2 * h, rel=0.02)
    assert s["interior_length_ft"] == pytest.approx(w, rel=0.03)
    assert s["with_interior_length_ft"] == pytest.approx(s["total_length_ft"] + s["interior_length_ft"])
