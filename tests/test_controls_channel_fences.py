"""DNR 1056: silt fence never across concentrated flow. Where a channel runs through a disturbed area,
the edge and interior rows stop at the channel's own edge fences."""

from __future__ import annotations

import geopandas as gpd
import pytest
import shapely
from profile_numbers import fence_kw
from shapely.geometry import box

from geosite.controls.fences import fence_summary, filter_fence
from geosite.hydrology import channels, flow_grid
from geosite.testing import CRS_US_FT, ORIGIN, v_valley


def test_fence_stops_at_the_channel_and_follows_its_edges():
    # V valley 600 ft long, 202 ft wide, axis at x0 + 101 falling south at 2 %, sides 10 %; the axis
    # carries 1 acre of flow from about 216 ft down (the channel head), so a rectangle from 300 to
    # 400 ft down, 120 ft wide across the axis, has a channel through it.
    dem = v_valley(10.0, 2.0, shape=(300, 101), cell=2.0)
    fg = flow_grid(dem)
    x0, y0 = ORIGIN[CRS_US_FT]
    rect = box(x0 + 41, y0 - 400, x0 + 161, y0 - 300)
    chan = channels(fg, 43_560.0)
    axis = shapely.union_all(chan.geometry.values)
    assert axis.intersects(rect)
    fence, _runs = filter_fence(
        gpd.GeoDataFrame({"id": [1]}, geometry=[rect], crs=dem.crs), dem, fg, **fence_kw()
    )
    s = fence_summary(fence)
    edge = fence[fence["side"].isin(("downslope", "sideslope", "interior", "hook"))]
    # no edge or interior fence crosses or touches the channel
    assert not edge.geometry.intersects(axis).any()
    # a channel fence on each side of the channel, 5 ft off its centreline, the rectangle's height long
    ch = fence[fence["side"] == "channel"]
    assert len(ch) == 2
    assert ch["length_ft"].to_numpy() == pytest.approx([100.0, 100.0], abs=2.5)
    for g in ch.geometry:
        assert g.distance(axis) == pytest.approx(5.0, abs=0.01)
    # the bottom edge (downslope) is fenced on both sides of the channel, with a 10 ft opening for it
    bottom = box(x0 + 40, y0 - 401, x0 + 162, y0 - 399)
    across = [g for g in fence.geometry if g.within(bottom)]
    assert sum(g.length for g in across) == pytest.approx(120.0 - 10.0, abs=2.5)
    assert s["channel_length_ft"] == pytest.approx(200.0, abs=5.0)


def test_channel_edge_fences_read_a_channel_in_parts_as_its_parts():
    # a channel layer may hold a line in several parts (a traced channel clipped by the map margin leaves
    # and re-enters it): each part is fenced as a line of its own, and the fences are those of the same
    # channel given as separate lines (the V valley above; the disturbed area beside the channel)
    from geosite.controls.channel_fences import channel_edge_fences

    dem = v_valley(10.0, 2.0, shape=(300, 101), cell=2.0)
    fg = flow_grid(dem)
    x0, y0 = ORIGIN[CRS_US_FT]
    axis = shapely.union_all(channels(fg, 43_560.0).geometry.values)
    axis = shapely.line_merge(axis) if axis.geom_type == "MultiLineString" else axis
    a = shapely.ops.substring(axis, 0.0, 0.45 * axis.length)
    b = shapely.ops.substring(axis, 0.55 * axis.length, axis.length)
    site = box(x0 - 10, y0 - 610, x0 + 212, y0 + 10)
    disturbed = box(x0 + 10, y0 - 500, x0 + 80, y0 - 250)  # west of the axis, draining to it
    kw = {"threshold_sqft": 43_560.0, "offset_ft": 5.0, "min_piece_ft": 0.0}
    multi = gpd.GeoDataFrame({"id": [1]}, geometry=[shapely.MultiLineString([a, b])], crs=dem.crs)
    single = gpd.GeoDataFrame({"id": [1, 2]}, geometry=[a, b], crs=dem.crs)
    got = channel_edge_fences(disturbed, site, dem, fg, multi, **kw)
    want = channel_edge_fences(disturbed, site, dem, fg, single, **kw)
    assert len(want) > 0
    assert got.geometry.length.sum() == pytest.approx(want.geometry.length.sum(), rel=1e-9)


@pytest.mark.parametrize(
    ("spans", "runs"),
    [
        ([(10.0, 12.0), (20.0, 22.0)], [(1.0, 31.0)]),  # 8 apart: one run 10-22, lengthened 12 -> 30 about 16
        ([(10.0, 50.0), (80.0, 82.0)], [(10.0, 50.0), (66.0, 96.0)]),  # 30 apart: two runs, the short one 30
        ([(1.0, 3.0)], [(0.0, 30.0)]),  # at the line's start: slid back onto it
        ([(95.0, 99.0)], [(70.0, 100.0)]),  # at its end
        ([(0.0, 100.0)], [(0.0, 100.0)]),
    ],
)
def test_channel_bank_fence_runs_are_joined_and_at_least_the_minimum(spans, runs):
    # a 100 ft channel line, a 30 ft minimum run: the arithmetic of each case is in its comment
    from geosite.controls.channel_fences import bank_runs

    got = bank_runs(spans, 100.0, 30.0)
    assert [v for r in got for v in r] == pytest.approx([v for r in runs for v in r])
