"""Implausible inputs for the village (issue 25, item 6): a site outside the profile's declared extent
and DEM heights outside Wisconsin's ground for the declared vertical unit are warned about (typed
records in report.json, the notes and on the command line); --strict makes them errors (exit 2); the
sample sites raise neither."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner
from shapely.geometry import box
from sitebuilder import make_site, rect, write_dem

import geosite
from geosite.cli import cli
from geosite.errors import ImplausibleInputWarning, SiteValidationError
from geosite.rules import load_profile
from geosite.testing import inclined_plane

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "data" / "sample_sites"
#: Charlottesville, Virginia, in UTM zone 17N (metres): about 38.03 N, 78.48 W.
VA_X, VA_Y = 720_000.0, 4_212_000.0
FT_PER_M = 1 / 0.3048006096  # US survey feet in a metre


def _virginia_site(tmp_path: Path) -> Path:
    layers = {
        "site_boundary": gpd.GeoDataFrame(geometry=[box(VA_X, VA_Y, VA_X + 100, VA_Y + 80)], crs="EPSG:32617")
    }
    return make_site(tmp_path / "va", layers, crs="EPSG:32617")


def test_site_in_virginia_under_grantsburg_warns(tmp_path):
    folder = _virginia_site(tmp_path)
    with pytest.warns(
        ImplausibleInputWarning, match="lies outside Village of Grantsburg, Wisconsin's extent"
    ) as got:
        site = geosite.load_site(folder)
    (w,) = site.input_warnings
    assert w.kind == "site_outside_extent" and w.source == "site_boundary"
    assert (
        "38.0294° N, 78.4929° W" in w.message
    )  # where it is: Charlottesville (UTM 17N, 720 km E, 4,212 km N)
    assert "EPSG:4326" in w.message and "Census" in w.message  # the extent and where it came from
    assert any(str(x.message) == w.message for x in got)


def test_site_in_virginia_cli_reports_and_strict_exits_2(tmp_path):
    folder = _virginia_site(tmp_path)
    res = CliRunner().invoke(cli, ["analyze", str(folder), "--out", str(tmp_path / "out"), "--no-maps"])
    assert res.exit_code == 0, res.output
    assert "warning: site boundary" in res.output and "lies outside" in res.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [w["kind"] for w in report["input_warnings"]] == ["site_outside_extent"]
    assert report["input_warnings"][0]["message"] in report["notes"]
    assert "lies outside Village of Grantsburg" in (tmp_path / "out" / "report.md").read_text()
    res = CliRunner().invoke(
        cli, ["analyze", str(folder), "--out", str(tmp_path / "strict"), "--no-maps", "--strict"]
    )
    assert res.exit_code == 2 and "lies outside" in res.output
    assert not (tmp_path / "strict").exists()


def _metres_site(tmp_path: Path, declared: str) -> Path:
    """A 300 x 200 ft site on a 5 % plane 900 ft high, its DEM written in metres (274.3 m at the top),
    declared as ``declared``."""
    dem = inclined_plane(5.0, shape=(300, 300), cell=2.0)
    folder = make_site(
        tmp_path / declared,
        {"site_boundary": [rect(100, -400, 300, 200)]},
        dem=dem,
        conf={"dem": {"vertical_unit": declared}},
    )
    write_dem(folder / "dem.tif", dem, vertical_factor=FT_PER_M)  # heights now in metres
    return folder


def test_dem_in_metres_declared_feet_warns_naming_metres(tmp_path):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        site = geosite.load_site(_metres_site(tmp_path, "us_ft"))
    (w,) = [w for w in site.input_warnings if w.kind == "dem_heights_out_of_range"]
    assert w.likely_unit == "m"
    # 900 ft falling 5 % over the site's 30-ft-deep rows: 260-270 "ft" as declared, outside 579-1,951 ft
    assert (
        "look like metres" in w.message
        and "--dem-vertical-unit m" in w.message
        and "every slope is 3.28 times too gentle" in w.message
    )
    assert "579 to 1,951 ft" in w.message and "Timms Hill" in w.message
    assert any(
        issubclass(x.category, ImplausibleInputWarning) and "look like metres" in str(x.message) for x in got
    )
    with pytest.raises(SiteValidationError, match="look like metres"):
        geosite.load_site(_metres_site(tmp_path / "s", "us_ft"), strict=True)


def test_dem_in_metres_declared_metres_is_plausible(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        site = geosite.load_site(_metres_site(tmp_path, "m"))
    assert [w for w in site.input_warnings if w.kind == "dem_heights_out_of_range"] == []


@pytest.mark.parametrize("name", ["grantsburg_lot7", "belgium_commons"])
def test_sample_sites_raise_no_implausible_warning(name):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        site = geosite.load_site(SAMPLES / name)
    assert site.input_warnings == []
    assert not [x for x in got if issubclass(x.category, ImplausibleInputWarning)]


@pytest.mark.parametrize(
    ("profile", "lat", "lon"), [("grantsburg", 45.780541, -92.684718), ("belgium", 43.500735, -87.846897)]
)
def test_extent_is_the_village_point_and_3_5_miles_around(profile, lat, lon):
    """The bbox holds the Census Bureau's point for the village and reaches 3.5 mi (±0.1) each way."""
    from pyproj import Geod

    w, s, e, n = load_profile(profile).jurisdiction.extent["bbox"]
    assert w < lon < e and s < lat < n
    geod = Geod(ellps="WGS84")
    miles = [geod.inv(lon, lat, x, y)[2] / 1609.344 for x, y in ((w, lat), (e, lat), (lon, s), (lon, n))]
    assert miles == pytest.approx([3.5] * 4, abs=0.1)
