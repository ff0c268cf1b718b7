"""Filter fence on inclined planes: closed forms for the fence lengths and positions."""

import geopandas as gpd
import numpy as np
import pytest
from profile_numbers import GRANTSBURG, fence_kw
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
    fence, runs = filter_fence(
        gpd.GeoDataFrame({"id": [7]}, geometry=[r], crs=dem.crs), dem, fg, **fence_kw()
    )
    return fence, runs


@pytest.mark.parametrize("az", [180.0, 30.0, 90.0])
def test_fence_on_downslope_and_side_edges_never_upslope(az):
    w, h = 200.0, 100.0
    fence, runs = _fence(1.0, az, w, h)  # 1 %: DNR 1056 allows 100 ft, so no interior rows
    s = fence_summary(fence)
    assert s["downslope_length_ft"] == pytest.approx(w, rel=1e-9)
    assert s["sideslope_length_ft"] == pytest.approx(2 * h, rel=1e-9)
    # the side fences run up the slope into their open ends: each end is turned off the line, 45 deg
    # up the slope (a straight-upslope hook would lie on the fence: zero length on the ground)
    assert s["interior_length_ft"] == 0 and s["hook_length_ft"] == pytest.approx(20.0)
    hooks = fence[fence.side == "hook"]
    sides = fence[fence.side == "sideslope"].union_all()
    assert len(hooks) == 2 and all(h.intersection(sides).length < 1e-6 for h in hooks.geometry)
    assert s["total_length_ft"] == pytest.approx(w + 2 * h + 20.0, rel=0.02)
    assert s["with_interior_length_ft"] == s["total_length_ft"]
    up = runs[runs.side == "upslope"]
    assert up["length_ft"].sum() == pytest.approx(w, rel=1e-9)
    # un-rotate: the downslope run lies on the bottom edge, the upslope run on the top edge

    def back(g):
        return np.asarray(affinity.rotate(g, az - 180, origin=(CX, CY)).coords)

    down = back(fence[fence.side == "downslope"].geometry.iloc[0])
    assert np.allclose(down[:, 1], CY - h / 2, atol=1e-6)
    assert np.allclose(back(up.geometry.iloc[0])[:, 1], CY + h / 2, atol=1e-6)
    # no fence line touches the upslope edge's interior
    top_mid = affinity.rotate(
        box(CX - w / 2 + 5, CY + h / 2 - 0.01, CX + w / 2 - 5, CY + h / 2 + 0.01),
        -(az - 180),
        origin=(CX, CY),
    )
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
    assert max_slope_length_ft(
        [0.5, 2.0, 4.9, 5.0, 10.0, 33.0, 50.0], GRANTSBURG.control("fence_max_slope_length_ft")
    ).tolist() == [
        100,
        75,
        75,
        50,
        25,
        20,
        20,
    ]


def test_hooks_turn_fence_ends_upslope():
    # a rectangle on a plane with only its bottom edge downslope and the sides sideslope would need no
    # hook; a triangle pointing uphill has two downslope-facing edges meeting the upslope top edge
    dem = inclined_plane(1.0, shape=(300, 300), cell=2.0)
    from shapely.geometry import Polygon

    tri = Polygon([(CX - 100, CY + 40), (CX + 100, CY + 40), (CX, CY - 60)])  # apex downhill
    fence, _runs = filter_fence(
        gpd.GeoDataFrame({"id": [1]}, geometry=[tri], crs=dem.crs), dem, flow_grid(dem), **fence_kw()
    )
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
    assert s["total_length_ft"] == pytest.approx(w + 2 * h + 2 * 10.0, rel=0.02)  # two 10-ft end hooks
    assert s["interior_length_ft"] == pytest.approx(w, rel=0.03)
    assert s["with_interior_length_ft"] == pytest.approx(s["total_length_ft"] + s["interior_length_ft"])


def test_interior_rows_run_on_the_contour_and_stop_at_a_house():
    """A 200 x 200 ft area on a 3 % plane falling south gets rows 75 and 150 ft above its bottom
    (DNR 1056: 75 ft at 2-5 %). A 60 x 40 ft house straddling the 75-ft row cuts it: the row stops
    5 ft short of the house on either side (200 - 70 = 130 ft built), and the 70 ft gap is a
    stand-in naming the house and what replaces the row there."""
    from geosite.controls import buildable_rows, interior_rows

    dem = inclined_plane(3.0, shape=(300, 300), cell=2.0)
    area = box(CX - 100, CY - 100, CX + 100, CY + 100)
    house = box(CX - 30, CY - 45, CX + 30, CY - 5)  # spans y = CY - 25 (the 75-ft row)
    obst = gpd.GeoDataFrame({"layer": ["structures"], "id": [1]}, geometry=[house], crs=dem.crs)
    rows = interior_rows(area, dem, flow_grid(dem), GRANTSBURG.control("fence_max_slope_length_ft"))
    assert sorted(round(float(np.mean(np.asarray(g.coords)[:, 1])) - (CY - 100), 2) for g in rows) == [
        75.0,
        150.0,
    ]
    for g in rows:  # on the contour: one height along the whole row
        assert np.ptp(np.asarray(g.coords)[:, 1]) < 1e-6
    kept, gaps = buildable_rows(rows, obst, clearance=5.0, min_length=25.0)
    assert not any(g.intersects(house.buffer(4.99)) for g in kept)
    low = [g for g in kept if abs(np.mean(np.asarray(g.coords)[:, 1]) - (CY - 25)) < 1e-6]
    assert sorted(round(g.length, 6) for g in low) == [65.0, 65.0]
    ((gap, layer, oid),) = gaps
    assert (layer, oid) == ("structures", 1) and gap.length == pytest.approx(70.0)
    fence, _ = filter_fence(
        gpd.GeoDataFrame({"id": [1]}, geometry=[area], crs=dem.crs), dem, obstacles=obst, **fence_kw()
    )
    stand = fence[fence.side == "stand_in"]
    assert len(stand) == 1 and stand["obstacle"].iloc[0] == "structures 1"
    assert "downslope side of the structure" in stand["practice"].iloc[0]
    assert not fence[fence.side == "interior"].intersects(house).any()
    s = fence_summary(fence)
    assert s["interior_length_ft"] == pytest.approx(130.0 + 200.0, abs=0.01)
    assert s["interior_stand_in_length_ft"] == pytest.approx(70.0, abs=0.01)


def test_short_row_pieces_are_not_built():
    from shapely.geometry import LineString

    from geosite.controls import buildable_rows

    row = LineString([(0, 0), (100, 0)])
    wall = gpd.GeoDataFrame({"layer": ["roads"], "id": [3]}, geometry=[box(15, -5, 25, 5)], crs="EPSG:7593")
    kept, gaps = buildable_rows([row], wall, clearance=0.0, min_length=25.0)
    assert [g.length for g in kept] == [75.0]  # 0-15 is too short to build
    assert sorted((round(g.length, 6), k) for g, k, _ in gaps) == [(10.0, "roads"), (15.0, "short")]


def test_a_fence_running_downhill_into_its_end_gets_a_j_hook():
    """A fence chain that ends at its low point (it runs straight down a 2 % plane falling south): an
    upslope hook would retrace the fence. The hook turns off it into the area, 45 deg back up the
    slope: 10 ft long, rising 7.07 ft of northing, 7.07 ft east into the area, never on the fence."""
    import geopandas as gpd
    from shapely.geometry import LineString

    from geosite.controls.fence_hooks import fence_hooks

    dem = inclined_plane(2.0, shape=(300, 300), cell=2.0)
    fence_line = LineString([(CX, CY + 80), (CX, CY - 80)])  # north to south: downhill into its end
    runs = gpd.GeoDataFrame(
        {"side": ["sideslope", "upslope"], "ring": [0, 0], "chain": [0, -1], "chain_pos": [0, 0]},
        geometry=[fence_line, LineString([(CX, CY - 80), (CX + 50, CY - 80)])],
        crs=dem.crs,
    )
    fg = flow_grid(dem)
    area = box(CX, CY - 80, CX + 100, CY + 80)  # the area lies east of the fence
    hooks = fence_hooks(runs, fg.downhill_at, dem, 10.0, area)
    low = [h for h in hooks if h.coords[0][1] == pytest.approx(CY - 80)]
    assert len(low) == 1
    (x0, y0), (x1, y1) = low[0].coords
    assert low[0].length == pytest.approx(10.0)
    assert (x1 - x0, y1 - y0) == pytest.approx((10 / 2**0.5, 10 / 2**0.5), abs=1e-6)
    assert low[0].intersection(fence_line).length == 0
    # the high end (the fence runs up the slope into it) is turned off the line too, rising 7.07 ft
    (high,) = [h for h in hooks if h.coords[0][1] == pytest.approx(CY + 80)]
    assert high.coords[1][1] - high.coords[0][1] == pytest.approx(10 / 2**0.5)
    assert high.intersection(fence_line).length == 0


# ------------------------------------------------------------------ rows a crew can build (issue 25 item 3)

RULES_KW = {"max_turn_deg": 60.0, "min_piece_ft": 25.0, "max_perimeter_ratio": 2.0}


def test_row_rules_come_from_both_profiles_with_their_source():
    from geosite.controls import RowRules
    from geosite.rules import load_profile

    for name in ("grantsburg", "belgium"):
        prof = load_profile(name)
        assert RowRules.from_profile(prof) == RowRules(**RULES_KW)
        for key in ("fence_row_max_turn_deg", "fence_row_min_length_ft", "fence_row_max_perimeter_ratio"):
            assert prof.controls[key].source, key


def test_a_row_is_cut_at_a_kink_sharper_than_the_limit_only():
    from shapely.geometry import LineString

    from geosite.controls.fences import split_at_kinks

    gentle = LineString([(0, 0), (50, 0), (100, 40)])  # turns atan(40/50) = 38.7 deg: one row
    assert [round(g.length, 6) for g in split_at_kinks(gentle, 60.0)] == [round(gentle.length, 6)]
    v = LineString([(0, 0), (50, 0), (10, 20)])  # turns 180 - 26.6 = 153.4 deg: two rows
    assert [round(g.length, 6) for g in split_at_kinks(v, 60.0)] == [50.0, round(float(np.hypot(40, 20)), 6)]


def test_crew_rows_drop_loops_and_short_pieces():
    from shapely.geometry import LineString, Point

    from geosite.controls import RowRules
    from geosite.controls.fences import crew_rows

    ring = LineString(Point(0, 0).buffer(30).exterior.coords)  # a closed row around a mound
    v = LineString(
        [(100, 0), (200, 0), (180, 10)]
    )  # a 100 ft row with a 22 ft hook back: the hook is cut off
    kept, gaps = crew_rows([ring, v], None, RowRules(**RULES_KW), clearance=0.0, ft_per_unit=1.0)
    assert [round(g.length, 6) for g in kept] == [100.0]
    assert sorted(why for _g, why, _o in gaps) == ["loop", "short"]


def test_rows_out_of_proportion_give_way_to_mulch_where_the_slope_is_too_long():
    """A 400 x 400 ft area on a 12 % plane (DNR 1056: 25 ft at 10-33 %) would need 15 rows of 400 ft:
    6,000 ft, 3.75 times its 1,600 ft perimeter (over 2): no interior row; mulch stands in on the ground
    more than 25 ft of slope above the bottom fence (about 375 x 400 ft), an area, never a line along
    a row; with it, DNR 1056's measure finds nothing over the limit."""
    from geosite.controls import RowRules, row_stand_ins, slope_length_excess

    dem = inclined_plane(12.0, shape=(300, 300), cell=2.0)
    fg = flow_grid(dem)
    area = box(CX - 200, CY - 200, CX + 200, CY + 200)
    before, _ = filter_fence(
        gpd.GeoDataFrame({"id": [1]}, geometry=[area], crs=dem.crs), dem, fg, **fence_kw()
    )
    assert fence_summary(before)["interior_length_ft"] == pytest.approx(15 * 400.0, rel=0.02)
    fence, _ = filter_fence(
        gpd.GeoDataFrame({"id": [1]}, geometry=[area], crs=dem.crs),
        dem,
        fg,
        row_rules=RowRules(**RULES_KW),
        **fence_kw(),
    )
    assert set(fence["side"]) <= {"downslope", "sideslope", "hook"}
    stand = row_stand_ins(fence)
    # the engine says why (rows out of proportion); the silt fence practice says what stands in: mulch
    assert set(stand["kind"]) == {"proportion"} and set(stand.geom_type) == {"Polygon"}
    from geosite.practices.silt_fence import stand_ins

    assert set(stand_ins(stand)["method"]) == {"mulch"}
    assert "3.8 times the area's 1,600 ft perimeter" in stand["stand_in_for"].iloc[0]
    assert stand["area_sqft"].sum() == pytest.approx(375.0 * 400.0, rel=0.03)
    import shapely

    barriers = shapely.union_all([*fence.geometry, *stand.geometry])
    assert slope_length_excess(area, dem, fg, barriers, DNR_TABLE)["excess_sqft"] == 0.0


def test_a_row_cut_at_a_house_is_stood_in_for_above_the_gap_not_along_it():
    """The 3 % plane's 200 x 200 ft area with the house across its 75-ft row (above): with the crew
    rules the gap is no fence line; a row runs along the house's downslope side instead (5 ft clear: 70 ft
    at y = CY - 50), and erosion mat covers what is still over 75 ft of slope above a fence (the ground
    beside and above the house, never the house itself); the measure then finds nothing over the limit."""
    import shapely

    from geosite.controls import RowRules, row_stand_ins, slope_length_excess

    dem = inclined_plane(3.0, shape=(300, 300), cell=2.0)
    fg = flow_grid(dem)
    area = box(CX - 100, CY - 100, CX + 100, CY + 100)
    house = box(CX - 30, CY - 45, CX + 30, CY - 5)
    obst = gpd.GeoDataFrame({"layer": ["structures"], "id": [1]}, geometry=[house], crs=dem.crs)
    fence, _ = filter_fence(
        gpd.GeoDataFrame({"id": [1]}, geometry=[area], crs=dem.crs),
        dem,
        fg,
        obstacles=obst,
        row_rules=RowRules(**RULES_KW),
        **fence_kw(),
    )
    assert "stand_in" not in set(fence["side"])
    assert fence_summary(fence)["interior_length_ft"] == pytest.approx(130.0 + 200.0 + 70.0, abs=0.01)
    below = [g for g in fence[fence.side == "interior"].geometry if abs(g.centroid.y - (CY - 50)) < 1e-6]
    assert [round(g.length, 6) for g in below] == [70.0]
    stand = row_stand_ins(fence)
    assert len(stand) >= 1 and set(stand["kind"]) == {"row"}
    from geosite.practices.silt_fence import stand_ins

    assert set(stand_ins(stand)["method"]) == {"erosion_mat"}
    assert all("would cross a structure:" in s for s in stand["stand_in_for"])  # the map shows which
    unbuilt = shapely.LineString([(CX - 35, CY - 25), (CX + 35, CY - 25)])
    assert all(g.centroid.y > CY - 25 for g in stand.geometry)  # above the gap
    assert stand.geometry.intersection(unbuilt).length.sum() < 0.5 * unbuilt.length
    assert stand.geometry.intersection(house).area.sum() == 0.0
    barriers = shapely.union_all([*fence.geometry, *stand.geometry])
    # the measure check applies: no slope length runs across the house (its excavation takes the flow)
    assert slope_length_excess(area, dem, fg, barriers, DNR_TABLE, built=house)["excess_sqft"] == 0.0
    # measured as if water ran on across the house, the slope above it would be too long: the stand-ins
    # are laid for the ground as built
    assert slope_length_excess(area, dem, fg, barriers, DNR_TABLE)["excess_sqft"] > 0.0


DNR_TABLE = [[2.0, 100.0], [5.0, 75.0], [10.0, 50.0], [33.0, 25.0], [float("inf"), 20.0]]
