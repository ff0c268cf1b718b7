"""Unit factors and spellings: checked against the definitions (1 US survey ft = 1200/3937 m,
1 ft = 0.3048 m, 1 acre = 43,560 sq ft, 1 cu yd = 27 cu ft)."""

from __future__ import annotations

import pytest
from pyproj import CRS

from geosite.errors import CRSError, UnitError
from geosite.units import (
    VerticalUnit,
    feet_per_crs_unit,
    foot_name,
    parse_vertical_unit,
    vertical_to_feet,
)


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("us_ft", "us_ft"),
        ("US survey feet", "us_ft"),
        ("ftUS", "us_ft"),
        ("usft", "us_ft"),
        ("Feet", "ft"),
        ("ft", "ft"),
        ("metres", "m"),
        ("Meter", "m"),
        ("M", "m"),
    ],
)
def test_vertical_unit_spellings(text, unit):
    assert parse_vertical_unit(text) is VerticalUnit(unit)


@pytest.mark.parametrize("text", [None, "", "yards", "dm"])
def test_vertical_unit_missing_or_unknown_is_an_error_listing_valid_ones(text):
    with pytest.raises(UnitError, match="us_ft, ft, m"):
        parse_vertical_unit(text, where="DEM x.tif")


def test_crs_feet():
    assert feet_per_crs_unit(CRS.from_epsg(7593), "x") == 1.0
    assert foot_name(CRS.from_epsg(7593)) == "US survey foot"
    assert feet_per_crs_unit(CRS.from_epsg(26915), "x") == pytest.approx(1 / 0.3048, rel=1e-15)
    assert foot_name(CRS.from_epsg(26915)) == "international foot"
    with pytest.raises(CRSError, match="geographic"):
        feet_per_crs_unit(CRS.from_epsg(4326), "x")


def test_vertical_factors():
    us = CRS.from_epsg(7593)
    assert vertical_to_feet(VerticalUnit.US_FT, us) == 1.0
    assert vertical_to_feet(VerticalUnit.M, us) == pytest.approx(3937 / 1200, rel=1e-15)
    assert vertical_to_feet(VerticalUnit.FT, us) == pytest.approx(0.3048 * 3937 / 1200, rel=1e-15)
    assert vertical_to_feet(VerticalUnit.M, CRS.from_epsg(26915)) == pytest.approx(1 / 0.3048, rel=1e-15)
