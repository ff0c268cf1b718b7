"""B(3) tracking pads: a drawn pad counts only when it is at least 50 ft long (DNR 1057)."""

from __future__ import annotations

import geopandas as gpd
import pytest
from sitebuilder import line, rect

from geosite.controls.tracking import tracking_pads


@pytest.mark.parametrize(("pad_ft", "ok"), [(30.0, False), (49.0, False), (50.0, True), (60.0, True)])
def test_drawn_pad_length_decides(pad_ft, ok):
    crs = "EPSG:7593"
    roads = gpd.GeoDataFrame({"id": [1], "public": [True]}, geometry=[line((0, 0), (400, 0))], crs=crs)
    drives = gpd.GeoDataFrame({"id": [7]}, geometry=[line((200, 0), (200, 150))], crs=crs)
    bmps = gpd.GeoDataFrame({"type": ["tracking_pad"]}, geometry=[rect(194, 0, 12, pad_ft)], crs=crs)
    ent, pads = tracking_pads(drives, roads, 50.0, 12.0, bmps, 10.0)
    (e,) = ent
    assert e["drive_id"] == 7 and e["road_id"] == 1
    assert e["drawn_pad_length_ft"] == pytest.approx(pad_ft)
    assert e["submitted_pad"] is ok
    # the proposed pad is 50 ft long, starting at the road
    assert pads["length_ft"].iloc[0] == pytest.approx(50.0)
