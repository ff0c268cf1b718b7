"""What geosite proposes, geosite approves (issue 23): ``analyze`` writes ``OUT/plan/``, a submission
folder, and ``check`` of that folder has no failing finding, on the sample sites and on built sites of
several sizes and terrains (a small lot, a steep lot, a site big enough for basins, a site a channel
crosses, a Belgium site with dewatering), each a complete site folder (an empty layer states "none on or
near the site", as the plan content lists allow).

Beside the property, numbers a reader can check by hand on the plan itself: the tracking pad is the
profile's 50 ft along the drive from the road and as wide as the drive; every disturbance polygon is
stabilized the profile's 7 days after its end (Grantsburg B(6)(c)[1]); every BMP is installed the day
before the earliest disturbance it serves starts and removed the day after the latest is stabilized.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tomllib
import warnings
from pathlib import Path

import geopandas as gpd
import pytest
import shapely
from sitebuilder import X0, line, make_site, point, rect, ridge_plane

import geosite
from geosite.pipeline import write_outputs
from geosite.review import check_submission
from geosite.testing import v_valley

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "data" / "sample_sites").iterdir() if (p / "site.toml").exists())
CRS = "EPSG:7593"
#: the plan content layers a complete site folder has (empty: none on or near the site)
NONE_HERE = ("streams", "lakes", "wetlands", "channels", "floodplain", "soils", "vegetation", "utilities", "structures")


def gdf(geoms, **cols):
    return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=CRS)


def empty():
    return gpd.GeoDataFrame({"id": []}, geometry=gpd.GeoSeries([], crs=CRS), crs=CRS)


PEOPLE = {
    "applicant": {"name": "A. Applicant", "address": "1 Main St, Grantsburg, WI", "phone": "715-555-0100"},
    "maintainer": {"name": "M. Maintainer", "address": "2 Main St, Grantsburg, WI", "phone": "715-555-0101"},
}


def site_conf(start="2027-05-03", end="2027-10-29", **project):
    return {**PEOPLE, "project": {"start": dt.date.fromisoformat(start), "end": dt.date.fromisoformat(end), "cut_cy": 100.0,
                                  "fill_cy": 50.0, "plat": "none", "dewatering": False, **project}}


def complete(layers):
    return {**{n: empty() for n in NONE_HERE}, **layers}


def lot(folder: Path, slope_pct: float, dist: tuple[float, float, float, float], *, jurisdiction="grantsburg",
        dewatering=False, shape=(600, 500), pile_near_road=False) -> Path:
    """A lot on a plane falling south from a ridge: a road along its south edge, a drive from the road to
    the work, an inlet on the site, a stockpile in the disturbed area."""
    x, y, w, h = dist
    road_y = y - 40.0
    site = rect(x - 60, road_y + 5, w + 120, h + 100)
    pile_y = road_y + 15 if pile_near_road else y + h / 2
    layers = complete({
        "site_boundary": gdf([site], id=[1]),
        "disturbance": gdf([rect(*dist)], id=[1], phase=["1"], start=["2027-05-03"], end=["2027-09-30"]),
        "stockpiles": gdf([rect(x + 10, pile_y, 20, 15)], id=[1], days=[45.0]),
        "roads": gdf([line((x - 200, road_y), (x + w + 200, road_y))], id=[7], status=["existing"], public=[True]),
        "access_drives": gdf([rect(x + w / 2 - 8, road_y, 16, y - road_y + 10)], id=[3]),
        "storm_inlets": gdf([point(x - 30, road_y + 10)], id=[1]),
    })
    if pile_near_road:  # the pile's ground is disturbed too
        layers["disturbance"] = gdf([rect(*dist), rect(x + 5, road_y + 10, 30, y - road_y - 10)], id=[1, 2], phase=["1", "1"],
                                    start=["2027-05-03", "2027-05-03"], end=["2027-09-30", "2027-06-30"])
    conf = {**site_conf(dewatering=dewatering), "jurisdiction": jurisdiction}
    return make_site(folder, layers, conf, dem=ridge_plane(slope_pct, shape=shape))


def channel_site(folder: Path) -> Path:
    """A V-shaped valley (8 % sides, 3 % along the axis) whose stream of more than an acre crosses the
    disturbed area: channel-edge fences, and rows that stop at concentrated flow."""
    dem = v_valley(8.0, 3.0, shape=(500, 301))
    cx = 301  # the axis at sitebuilder x = 301 ft (column 150 of 2 ft cells)
    layers = complete({
        "site_boundary": gdf([rect(cx - 200, -900, 400, 400)], id=[1]),
        "disturbance": gdf([rect(cx - 120, -800, 240, 200)], id=[1], phase=["1"], start=["2027-05-03"], end=["2027-09-30"]),
    })
    layers["channels"] = gdf([line((cx, -300), (cx, -1000))], id=[1])
    layers.update({n: empty() for n in ("stockpiles", "storm_inlets", "roads", "access_drives")})
    return make_site(folder, layers, site_conf(), dem=dem)


BUILT = {
    "small_lot_4pct": lambda f: lot(f, 4.0, (300, -700, 100, 100)),
    "steep_lot_15pct": lambda f: lot(f, 15.0, (250, -750, 300, 250)),
    "pile_by_the_road": lambda f: lot(f, 6.0, (300, -700, 150, 120), pile_near_road=True),
    "big_site_basins": lambda f: lot(f, 3.0, (150, -1050, 700, 660), shape=(600, 520)),
    "belgium_dewatering": lambda f: lot(f, 5.0, (300, -750, 220, 200), jurisdiction="belgium", dewatering=True),
    "channel_through": channel_site,
}


def run_plan(folder: Path, out: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = geosite.analyze(geosite.load_site(folder))
        write_outputs(result, out, maps=False, dxf=False)
        checked = check_submission(out / "plan")
    return result, checked


def failing(checked) -> str:
    return "\n".join(f"{f.citation} {f.rule}: {f.message}" for f in checked.failed)


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_site_plan_passes_its_own_check(sample: Path, tmp_path: Path) -> None:
    _result, checked = run_plan(sample, tmp_path / "out")
    assert not checked.failed, failing(checked)
    assert checked.verdict != "fail"


@pytest.mark.parametrize("name", sorted(BUILT))
def test_built_site_plan_passes_its_own_check(name: str, tmp_path: Path) -> None:
    folder = BUILT[name](tmp_path / name)
    result, checked = run_plan(folder, tmp_path / "out")
    assert not checked.failed, failing(checked)
    bmps = gpd.read_file(tmp_path / "out" / "plan" / "layers.gpkg", layer="bmps")
    assert bmps["install"].notna().all() and bmps["remove"].notna().all()
    assert set(bmps["type"]) >= {"silt_fence"}
    if name == "big_site_basins":
        assert result.report["disturbed"]["max_at_one_time_acres"] >= 10.0
        assert set(bmps["type"]) & {"sediment_basin", "sediment_trap"}
    if name == "belgium_dewatering":
        assert "dewatering" in set(bmps["type"])
    if name == "channel_through":
        fence = result.layers["filter_fence"]
        assert (fence["side"] == "channel").any()


def test_plan_folder_by_hand(tmp_path: Path) -> None:
    """The small lot's plan, read back: site.toml, the pad, the dates."""
    folder = BUILT["small_lot_4pct"](tmp_path / "lot")
    _result, _checked = run_plan(folder, tmp_path / "out")
    plan = tmp_path / "out" / "plan"
    conf = tomllib.loads((plan / "site.toml").read_text())
    assert conf["declared"]["plan_type"] == "statement"  # 10,000 sq ft: under an acre
    assert conf["declared"]["disturbed_area_sqft"] == pytest.approx(10_000.0)
    assert "1/3 of the fence height" in conf["declared"]["maintenance"]
    assert "every 7 days" in conf["declared"]["maintenance"] and "0.5 in" in conf["declared"]["maintenance"]
    assert conf["dem"] == {"path": "dem.tif", "vertical_unit": "us_ft"}
    assert (plan / "dem.tif").stat().st_size == (folder / "dem.tif").stat().st_size
    dist = gpd.read_file(plan / "layers.gpkg", layer="disturbance")
    assert list(dist["stabilized"].astype(str)) == ["2027-10-07"]  # 2027-09-30 + 7 days, B(6)(c)[1]
    bmps = gpd.read_file(plan / "layers.gpkg", layer="bmps")
    assert set(bmps["install"].astype(str)) == {"2027-05-02"}  # the day before 2027-05-03
    assert set(bmps["remove"].astype(str)) == {"2027-10-08"}
    (pad,) = bmps[bmps["type"] == "tracking_pad"].geometry
    # the drive is 16 ft wide, running north from the road at y = -740 (site y); the pad: 50 x 16 ft from it
    assert pad.area == pytest.approx(50.0 * 16.0, rel=1e-6)
    assert pad.bounds[1] == pytest.approx(200_000.0 - 740.0) and pad.bounds[3] == pytest.approx(200_000.0 - 690.0)
    assert pad.bounds[0] == pytest.approx(X0 + 342.0) and pad.bounds[2] == pytest.approx(X0 + 358.0)
    (stab,) = bmps[bmps["type"] == "stabilization"].itertuples()  # the 45-day pile, over Grantsburg's 30
    assert stab.pile_id == 1 and stab.method == "mulch"
    assert bmps["type"].isin(["inlet_protection"]).sum() == 1


def test_plan_of_a_copied_folder_reads_alone(tmp_path: Path) -> None:
    """The plan folder holds everything it names: moved elsewhere, check reads it the same."""
    folder = BUILT["small_lot_4pct"](tmp_path / "lot")
    _r, first = run_plan(folder, tmp_path / "out")
    moved = tmp_path / "moved"
    shutil.copytree(tmp_path / "out" / "plan", moved)
    shutil.rmtree(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = check_submission(moved)
    assert [f.status for f in again.findings] == [f.status for f in first.findings]


def test_slope_length_excess_geometry_is_the_excess_cells() -> None:
    """On a 12 % plane (DNR 1056: 25 ft above a fence for 10-33 %), a 60 ft long area with no fence inside
    (its low edge fenced) is over the limit on the cells whose water runs more than 25 ft to that edge: its
    upper 35 ft, across its 40."""
    from geosite.controls import slope_length_excess
    from geosite.hydrology import flow_grid
    from geosite.testing import inclined_plane

    dem = inclined_plane(12.0, shape=(100, 100))
    fg = flow_grid(dem)
    x0, ytop = 500_000.0 + 80.0, 200_000.0 - 60.0
    poly = shapely.box(x0, ytop - 60.0, x0 + 40.0, ytop)
    table = [[2.0, 100.0], [5.0, 75.0], [10.0, 50.0], [33.0, 25.0], [float("inf"), 20.0]]
    got = slope_length_excess(poly, dem, fg, None, table, geometry=True)
    g = got["geometry"]
    assert got["excess_sqft"] == pytest.approx(g.area)
    assert g.bounds[3] == pytest.approx(ytop) and g.bounds[1] == pytest.approx(ytop - 60.0 + 25.0, abs=2.0)
    assert g.area == pytest.approx(40.0 * 35.0, rel=0.07)
    fenced = slope_length_excess(poly, dem, fg, shapely.LineString([(x0, ytop - 30.0), (x0 + 40.0, ytop - 30.0)]), table,
                                 geometry=True)
    assert fenced["excess_sqft"] < got["excess_sqft"] / 4  # a row halfway: each half 30 ft long, 5 ft over
