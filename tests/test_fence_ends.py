"""DNR 1056's fence ends turned upslope, judged on a submission's own lines (geosite.controls.fence_ends).

On an inclined plane of exactly 10 % falling south, heights are known by hand: a 10-ft hook straight up
the slope rises 1.00 ft, a 45-degree J-hook 0.71 ft, a fence end on the contour 0.00 ft.
"""

from __future__ import annotations

import math

import pytest
from shapely.geometry import LineString, Point

from geosite.controls.fence_ends import EndRules, fence_ends
from geosite.testing import inclined_plane

X, Y = 500_050.0, 199_900.0  # on the plane's 200 x 200 ft grid (origin 500,000, 200,000; cells of 2 ft)
RULES = EndRules(hook_ft=10.0, climb_fraction=0.25, flat_pct=3.0, join_ft=3.0, serve_ft=10.0, reach_ft=50.0)
FENCE = LineString([(X, Y), (X + 100, Y)])  # on the contour


@pytest.fixture(scope="module")
def plane():
    return inclined_plane(10.0, shape=(100, 100), cell=2.0)


def test_hooks_straight_up_the_slope_are_turned_and_rise_1_ft(plane):
    lines = [FENCE, LineString([(X, Y), (X, Y + 10)]), LineString([(X + 100, Y), (X + 100, Y + 10)])]
    ends = fence_ends(lines, FENCE, plane, RULES)
    assert (ends.judged, ends.turned, ends.not_turned) == (2, 2, [])


def test_a_45_degree_j_hook_is_turned(plane):
    d = 10.0 / math.sqrt(2.0)
    lines = [FENCE, LineString([(X, Y), (X - d, Y + d)]), LineString([(X + 100, Y), (X + 100 + d, Y + d)])]
    assert fence_ends(lines, FENCE, plane, RULES).turned == 2


def test_ends_on_the_contour_are_not_turned_and_say_where(plane):
    ends = fence_ends([FENCE], FENCE, plane, RULES)
    assert ends.judged == 2 and ends.turned == 0
    assert sorted((e["x"], e["y"]) for e in ends.not_turned) == [(X, Y), (X + 100, Y)]
    assert all(e["rise_ft"] == pytest.approx(0.0, abs=1e-9) for e in ends.not_turned)
    assert all(e["climb_ft"] == pytest.approx(1.0, abs=1e-6) for e in ends.not_turned)


def test_a_hook_turned_down_the_slope_falls_1_ft(plane):
    lines = [FENCE, LineString([(X, Y), (X, Y - 10)])]
    ends = fence_ends(lines, FENCE, plane, RULES)
    low = [e for e in ends.not_turned if e["y"] == pytest.approx(Y - 10)]
    assert len(low) == 1 and low[0]["rise_ft"] == pytest.approx(-1.0, abs=1e-6)


def test_a_side_fence_running_up_the_slope_into_its_end_is_turned_by_its_own_line(plane):
    u = LineString([(X, Y + 60), (X, Y), (X + 100, Y), (X + 100, Y + 60)])  # a U open to the top
    ends = fence_ends([u], u, plane, RULES)
    assert (ends.judged, ends.turned) == (2, 2)


def test_segments_drawn_end_to_end_are_one_fence_and_a_ring_has_no_ends(plane):
    pieces = [LineString([(X + 10 * i, Y), (X + 10 * (i + 1), Y)]) for i in range(10)]
    assert fence_ends(pieces, FENCE, plane, RULES).judged == 2  # the two far ends only
    ring = LineString([(X, Y), (X + 100, Y), (X + 100, Y + 50), (X, Y + 50), (X, Y)])
    assert fence_ends([ring], ring, plane, RULES).judged == 0


def test_a_line_away_from_the_required_stretches_is_not_judged(plane):
    row = LineString([(X, Y + 50), (X + 100, Y + 50)])  # an interior row 50 ft upslope
    assert fence_ends([FENCE, row], FENCE, plane, RULES).judged == 2


def test_flat_ground_and_a_hole_are_counted_not_judged():
    flat = inclined_plane(1.0, shape=(100, 100), cell=2.0)  # 1 % < flat_pct 3 %
    ends = fence_ends([FENCE], FENCE, flat, RULES)
    assert (ends.judged, ends.flat) == (0, 2)
    holed = inclined_plane(10.0, shape=(100, 100), cell=2.0)
    z = holed.elevation_ft.copy()
    z[45:55, 20:30] = math.nan  # around (X, Y): cells of rows 45-54, columns 20-29
    holed = type(holed).from_array(z, holed.transform, holed.crs, "us_ft")
    ends = fence_ends([FENCE], FENCE, holed, RULES)
    assert (ends.judged, ends.no_heights) == (1, 1)


def test_an_end_at_a_channel_is_where_the_fence_stops_at_concentrated_flow(plane):
    corridor = Point(X, Y).buffer(6.0)
    ends = fence_ends([FENCE], FENCE, plane, RULES, channels=corridor)
    assert (ends.judged, ends.at_channel) == (1, 1)


def test_a_corner_drafted_with_the_lines_a_foot_apart_is_one_fence(plane):
    side = LineString([(X - 1, Y + 1), (X - 1, Y + 60)])  # 1.41 ft from the fence's west end
    ends = fence_ends([FENCE, side], FENCE.union(side), plane, RULES)
    assert ends.judged == 2  # the fence's east end and the side's top end, not the corner
    assert [(e["x"], e["y"]) for e in ends.not_turned] == [(X + 100, Y)]


def test_a_row_end_above_the_perimeter_fence_is_backed_by_it(plane):
    from geosite.hydrology import flow_grid

    row = LineString([(X + 20, Y + 20), (X + 80, Y + 20)])  # 20 ft above the fence, both on the contour
    fg = flow_grid(plane)
    ends = fence_ends([FENCE, row], None, plane, RULES, directions=fg.directions)
    assert (ends.caught_below, len(ends.not_turned)) == (2, 2)  # the row's ends; the fence's are open
    assert sorted(e["x"] for e in ends.not_turned) == [X, X + 100]


def test_a_fence_drawn_as_a_polygon_or_a_point_has_no_ends_and_changes_none(plane):
    from shapely.geometry import Polygon

    odd = [Polygon([(X, Y), (X + 5, Y), (X + 5, Y + 5)]), Point(X, Y), None]
    ends = fence_ends([FENCE, *odd], FENCE, plane, RULES)
    assert sorted((e["x"], e["y"]) for e in ends.not_turned) == [(X, Y), (X + 100, Y)]
