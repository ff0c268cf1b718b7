"""Construction-plan sheets a reviewer can read at print size (issue 25, items 3 and 4): no label on
another label or on a drawn practice symbol, a structure, a water line or the site boundary's line; no
ground under both a stand-in (erosion mat, mulch) and an interior fence row. The real-terrain site's
versions are in test_real_terrain_site.py.
"""

import pytest
from label_clearance import clashes, construction_sheets, footprints


@pytest.fixture(scope="module", params=["lot7", "belgium"])
def plan(request):
    """(analysis result, the construction plan's sheets as drawn) of each sample site."""
    result = request.getfixturevalue(f"{request.param}_result")
    return result, construction_sheets(result)


def test_no_label_sits_on_a_label_or_a_symbol(plan):
    result, sheets = plan
    symbols = footprints(result)
    assert sheets and all(s.placed for s in sheets)
    bad = [c for s in sheets for c in clashes(s, symbols)]
    assert not bad, bad[:8]
    assert not any(s.unplaced for s in sheets), [s.unplaced for s in sheets]


def stand_in_and_row_overlap(result) -> float:
    """Length (site CRS units) of interior fence row lying on a stand-in area."""
    fence, stand = result.layers.get("filter_fence"), result.layers.get("stand_ins")
    if fence is None or stand is None or not len(stand) or "side" not in fence.columns:
        return 0.0
    rows = fence[fence["side"] == "interior"]
    return float(rows.intersection(stand.union_all()).length.sum())


def test_no_ground_carries_both_a_stand_in_and_a_row(plan):
    result, _ = plan
    assert stand_in_and_row_overlap(result) < 0.01 / result.site.ft_per_unit  # 0.01 ft: none


def test_a_label_moves_off_a_symbol_and_stays_inside_its_own_footprint():
    """The placement mechanism itself: a label asked for on a fence line and a stockpile goes beside
    them with a leader to its feature; a label inside the polygon it names, which holds it, stays there;
    a line's own name runs beside it; a label of a pile too small to hold it sits off the pile."""
    from shapely.geometry import LineString, Point, box

    from geosite.maps import labels
    from geosite.maps.layout import draw_geoms, new_sheet
    from geosite.maps.sheets import plan_sheets
    from geosite.maps.symbology import STYLES

    plan = plan_sheets((0.0, 0.0, 700.0, 600.0), 100, 1.0, "ANSI-A")
    sheet = new_sheet(plan, plan.tiles[0])
    fence = LineString([(100, 300), (600, 300)])
    house = box(300, 400, 500, 550)  # 2 x 1.5 in of paper: holds its name
    pile = box(340, 200, 350, 210)  # 0.1 in: holds nothing
    draw_geoms(sheet, [fence], STYLES["filter_fence"])
    draw_geoms(sheet, [house], STYLES["structures"])
    draw_geoms(sheet, [pile], STYLES["stockpiles"])
    labels.request(sheet, 200, 300, "a phase label on the fence", feature=Point(200, 300))
    labels.request(sheet, 400, 475, "House, Lot 1", feature=house)
    labels.request(sheet, 345, 205, "stockpile, 45 days", feature=pile)
    labels.request(sheet, 450, 300, "fence", feature=fence, along=fence)
    labels.place(sheet)
    got = dict(sheet.placed)
    assert set(got) == {"a phase label on the fence", "House, Lot 1", "stockpile, 45 days", "fence"}
    to_in = labels._paper  # data coordinates to paper inches, as the placement measures them
    assert not got["a phase label on the fence"].intersects(to_in(sheet, fence))
    assert to_in(sheet, house).contains(got["House, Lot 1"])
    assert not got["stockpile, 45 days"].intersects(to_in(sheet, pile))
    # a line's own name beside it, parallel, never on it: the fence runs 0.04 in plus half the text's
    # height from the label's middle
    assert not got["fence"].intersects(to_in(sheet, fence))
    assert (
        got["fence"].distance(to_in(sheet, fence)) < 0.1
        and got["fence"].bounds[2] - got["fence"].bounds[0] > 0.2
    )
    leaders = [ln for ln in sheet.ax.lines if ln.get_gid() == "leader"]
    assert len(leaders) == 2  # the phase label's and the pile's
