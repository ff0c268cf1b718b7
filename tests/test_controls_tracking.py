"""B(3) tracking pads measured as built (DNR 1057): along the drive from the road, as wide as the drive.

Each case is checkable on paper: a drive along x = 200 from a road on y = 0, pads as rectangles."""

from __future__ import annotations

import geopandas as gpd
import pytest
from sitebuilder import line, rect

from geosite.controls.tracking import PadRule, tracking_pads

CRS = "EPSG:7593"
RULE = PadRule(min_length_ft=50.0, min_width_ft=12.0, search_ft=10.0)


def _run(pad, drive_width_ft=None, drive_ft=150.0):
    roads = gpd.GeoDataFrame({"id": [1], "public": [True]}, geometry=[line((0, 0), (400, 0))], crs=CRS)
    cols = {"id": [7]} | ({"width_ft": [drive_width_ft]} if drive_width_ft else {})
    drives = gpd.GeoDataFrame(cols, geometry=[line((200, 0), (200, drive_ft))], crs=CRS)
    bmps = gpd.GeoDataFrame({"type": ["tracking_pad"]}, geometry=[pad], crs=CRS) if pad is not None else None
    found = tracking_pads(drives, roads, RULE, bmps)
    (e,) = found.entrances
    return e, found.pads


@pytest.mark.parametrize(("pad_ft", "ok"), [(30.0, False), (49.0, False), (50.0, True), (60.0, True)])
def test_drawn_pad_length_decides(pad_ft, ok):
    e, pads = _run(rect(194, 0, 12, pad_ft))
    assert e["drive_id"] == 7 and e["road_id"] == 1
    assert e["drawn_pad_length_ft"] == pytest.approx(pad_ft, abs=0.01)
    assert e["drawn_pad_width_ft"] == pytest.approx(12.0, abs=0.01)
    assert e["submitted_pad"] is ok
    assert pads["length_ft"].iloc[0] == pytest.approx(50.0, abs=0.05)  # the proposed pad: 50 ft from the road


def test_pad_along_the_road_is_measured_along_the_drive():
    # 50 ft along the road but 12 ft up the drive: 12 ft long as built, not 50
    e, _ = _run(rect(175, 0, 50, 12), drive_width_ft=14.0)
    assert e["drawn_pad_length_ft"] == pytest.approx(12.0, abs=0.01)
    assert e["submitted_pad"] is False


def test_pad_narrower_than_the_drive_fails():
    e, pads = _run(rect(198, 0, 4, 60), drive_width_ft=14.0)  # a 4-ft pad on a 14-ft drive
    assert e["drawn_pad_width_ft"] == pytest.approx(4.0, abs=0.01)
    assert e["drive_width_ft"] == 14.0
    assert e["submitted_pad"] is False
    assert pads["width_ft"].iloc[0] == 14.0  # the proposed pad is the drive's width
    ok, _ = _run(rect(193, 0, 14, 60), drive_width_ft=14.0)
    assert ok["submitted_pad"] is True


def test_short_drive_needs_a_pad_only_as_long_as_the_drive():
    # "at least 50 ft long where space allows": a 30-ft drive takes a 30-ft pad
    e, _ = _run(rect(194, 0, 12, 30), drive_ft=30.0)
    assert e["required_length_ft"] == pytest.approx(30.0, abs=0.05)
    assert e["submitted_pad"] is True


def test_pad_away_from_the_road_does_not_count():
    e, _ = _run(rect(194, 40, 12, 60))  # starts 40 ft up the drive
    assert e["submitted_pad"] is False
