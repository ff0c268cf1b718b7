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
