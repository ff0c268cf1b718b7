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
from conftest import REAL_DEMS
from mutations import read_layer, write_layer
from sitebuilder import X0, line, make_site, point, rect, ridge_plane

import geosite
from geosite.pipeline import write_outputs
from geosite.review.check import check_submission
from geosite.testing import v_valley

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "data" / "sample_sites").iterdir() if (p / "site.toml").exists())
CRS = "EPSG:7593"
#: the plan content layers a complete site folder has (empty: none on or near the site)
NONE_HERE = (
    "streams",
    "lakes",
    "wetlands",
    "channels",
    "floodplain",
    "soils",
    "vegetation",
    "utilities",
    "structures",
)


def gdf(geoms, **cols):
    return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=CRS)


def empty():
    return gpd.GeoDataFrame({"id": []}, geometry=gpd.GeoSeries([], crs=CRS), crs=CRS)


PEOPLE = {
    "applicant": {"name": "A. Applicant", "address": "1 Main St, Grantsburg, WI", "phone": "715-555-0100"},
    "maintainer": {"name": "M. Maintainer", "address": "2 Main St, Grantsburg, WI", "phone": "715-555-0101"},
}


def site_conf(start="2027-05-03", end="2027-10-29", **project):
    return {
        **PEOPLE,
        "project": {
            "start": dt.date.fromisoformat(start),
            "end": dt.date.fromisoformat(end),
            "cut_cy": 100.0,
            "fill_cy": 50.0,
            "plat": "none",
            "dewatering": False,
            **project,
        },
    }


def complete(layers):
    return {**{n: empty() for n in NONE_HERE}, **layers}


def lot(
    folder: Path,
    slope_pct: float,
    dist: tuple[float, float, float, float],
    *,
    jurisdiction="grantsburg",
    dewatering=False,
    shape=(600, 500),
    pile_near_road=False,
) -> Path:
    """A lot on a plane falling south from a ridge: a road along its south edge, a drive from the road to
    the work, an inlet on the site, a stockpile in the disturbed area."""
    x, y, w, h = dist
    road_y = y - 40.0
    site = rect(x - 60, road_y + 5, w + 120, h + 100)
    pile_y = road_y + 15 if pile_near_road else y + h / 2
    layers = complete(
        {
            "site_boundary": gdf([site], id=[1]),
            "disturbance": gdf([rect(*dist)], id=[1], phase=["1"], start=["2027-05-03"], end=["2027-09-30"]),
            "stockpiles": gdf([rect(x + 10, pile_y, 20, 15)], id=[1], days=[45.0]),
            "roads": gdf(
                [line((x - 200, road_y), (x + w + 200, road_y))], id=[7], status=["existing"], public=[True]
            ),
            "access_drives": gdf([rect(x + w / 2 - 8, road_y, 16, y - road_y + 10)], id=[3]),
            "storm_inlets": gdf([point(x - 30, road_y + 10)], id=[1]),
        }
    )
    if pile_near_road:  # the pile's ground is disturbed too
        layers["disturbance"] = gdf(
            [rect(*dist), rect(x + 5, road_y + 10, 30, y - road_y - 10)],
            id=[1, 2],
            phase=["1", "1"],
            start=["2027-05-03", "2027-05-03"],
            end=["2027-09-30", "2027-06-30"],
        )
    conf = {**site_conf(dewatering=dewatering), "jurisdiction": jurisdiction}
    return make_site(folder, layers, conf, dem=ridge_plane(slope_pct, shape=shape))


def channel_site(folder: Path) -> Path:
    """A V-shaped valley (8 % sides, 3 % along the axis) whose stream of more than an acre crosses the
    disturbed area: channel-edge fences, and rows that stop at concentrated flow."""
    dem = v_valley(8.0, 3.0, shape=(500, 301))
    cx = 301  # the axis at sitebuilder x = 301 ft (column 150 of 2 ft cells)
    layers = complete(
        {
            "site_boundary": gdf([rect(cx - 200, -900, 400, 400)], id=[1]),
            "disturbance": gdf(
                [rect(cx - 120, -800, 240, 200)],
                id=[1],
                phase=["1"],
                start=["2027-05-03"],
                end=["2027-09-30"],
            ),
        }
    )
    layers["channels"] = gdf([line((cx, -300), (cx, -1000))], id=[1])
    layers.update({n: empty() for n in ("stockpiles", "storm_inlets", "roads", "access_drives")})
    return make_site(folder, layers, site_conf(), dem=dem)


def virginia_site(folder: Path) -> Path:
    """A 2-acre lot on real urban LiDAR (shared/data/real_dems/virginia_2m, metres, UTM 18N) among its real
    building footprints: rough terrain, nodata holes around buildings, structures in the way of rows."""
    real = REAL_DEMS / "virginia_2m"
    if not real.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    crs = "EPSG:26918"
    cx, cy = 321_781.0, 4_297_759.0
    site = shapely.box(cx - 75, cy - 65, cx + 75, cy + 65)
    dist = shapely.box(cx - 45, cy - 45, cx + 45, cy + 45)  # 8,100 m2: 2.0 acres
    bld = gpd.read_file(real / "buildings.geojson").to_crs(crs)
    bld = bld[bld.intersects(site.buffer(61.0))].reset_index(drop=True)

    def g(geoms, **cols):
        return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=crs)

    layers = {
        n: gpd.GeoDataFrame({"id": []}, geometry=gpd.GeoSeries([], crs=crs), crs=crs) for n in NONE_HERE
    }
    road_y = cy - 70.0
    layers.update(
        {
            "site_boundary": g([site], id=[1]),
            "disturbance": g([dist], id=[1], phase=["1"], start=["2027-05-03"], end=["2027-10-15"]),
            "structures": g(bld.geometry, id=list(range(1, len(bld) + 1)), status=["existing"] * len(bld)),
            "roads": g(
                [shapely.LineString([(cx - 200, road_y), (cx + 200, road_y)])],
                id=[1],
                status=["existing"],
                public=[True],
            ),
            "access_drives": g([shapely.box(cx - 4, road_y, cx + 4, cy - 40)], id=[1]),
            "stockpiles": g([shapely.box(cx + 20, cy + 20, cx + 30, cy + 28)], id=[1], days=[20.0]),
            "storm_inlets": g([shapely.Point(cx + 60, road_y + 2)], id=[1]),
        }
    )
    folder.mkdir(parents=True)
    shutil.copyfile(real / "dtm.tif", folder / "dem.tif")
    return make_site(
        folder, layers, {**site_conf(), "crs": crs, "dem": {"path": "dem.tif", "vertical_unit": "m"}}, crs=crs
    )


def virginia_wetland_site(folder: Path) -> Path:
    """A 2.8-acre irregular lot elsewhere on the Virginia LiDAR: a wetland beside it, two piles (one 40
    days), two inlets on the street; basins at its outlets and channel-edge fences for the channelized
    inflow (B(6)(a)'s "otherwise" route, with B(6)(c)'s basin route closing the perimeter fences)."""
    real = REAL_DEMS / "virginia_2m"
    if not real.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    crs = "EPSG:26918"
    cx, cy = 321_640.0, 4_297_640.0
    site = shapely.Polygon(
        [(cx - 90, cy - 70), (cx + 80, cy - 80), (cx + 95, cy + 40), (cx + 10, cy + 85), (cx - 85, cy + 60)]
    )
    dist = shapely.Polygon(
        [(cx - 60, cy - 50), (cx + 55, cy - 55), (cx + 65, cy + 25), (cx + 5, cy + 55), (cx - 55, cy + 40)]
    )
    bld = gpd.read_file(real / "buildings.geojson").to_crs(crs)
    bld = bld[bld.intersects(site.buffer(61.0))].reset_index(drop=True)

    def g(geoms, **cols):
        return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=crs)

    road_y = cy - 85.0
    layers = {n: g([], id=[]) for n in NONE_HERE}
    layers.update(
        {
            "site_boundary": g([site], id=[1]),
            "disturbance": g([dist], id=[1], phase=["1"], start=["2027-04-12"], end=["2027-11-05"]),
            "structures": g(bld.geometry, id=list(range(1, len(bld) + 1)), status=["existing"] * len(bld)),
            "roads": g(
                [shapely.LineString([(cx - 250, road_y), (cx + 250, road_y - 10)])],
                id=[1],
                status=["existing"],
                public=[True],
                name=["Duke Street"],
            ),
            "access_drives": g([shapely.box(cx - 25, road_y, cx - 17, cy - 50)], id=[1]),
            "stockpiles": g(
                [
                    shapely.box(cx + 30, cy - 45, cx + 42, cy - 35),
                    shapely.box(cx - 40, cy + 20, cx - 28, cy + 30),
                ],
                id=[1, 2],
                days=[12.0, 40.0],
            ),
            "storm_inlets": g(
                [shapely.Point(cx + 40, road_y - 3), shapely.Point(cx - 70, road_y + 1)], id=[1, 2]
            ),
            "wetlands": g([shapely.Point(cx + 100, cy + 70).buffer(18)], id=[1]),
        }
    )
    folder.mkdir(parents=True)
    shutil.copyfile(real / "dtm.tif", folder / "dem.tif")
    conf = {
        **site_conf(start="2027-04-12", end="2027-11-05"),
        "crs": crs,
        "dem": {"path": "dem.tif", "vertical_unit": "m"},
    }
    return make_site(folder, layers, conf, crs=crs)


def minnesota_two_phases_site(folder: Path) -> Path:
    """4.8 acres in two phases on the Minnesota LiDAR under Belgium's chapter: a stream east of the site, a
    60-day pile, a county road on the west (interior rows where several slope-length fronts share their
    lowest point: one row there, not one a front)."""
    real = REAL_DEMS / "minnesota_1m"
    if not real.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    crs = "EPSG:26915"
    x0, y0 = 429_252.3, 5_150_485.4
    cx, cy = x0 + 230, y0 + 200

    def g(geoms, **cols):
        return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=crs)

    rx = cx - 125
    layers = {n: g([], id=[]) for n in NONE_HERE}
    layers.update(
        {
            "site_boundary": g([shapely.box(cx - 110, cy - 100, cx + 110, cy + 100)], id=[1]),
            "disturbance": g(
                [
                    shapely.box(cx - 80, cy - 70, cx + 10, cy + 70),
                    shapely.box(cx + 10, cy - 40, cx + 80, cy + 60),
                ],
                id=[1, 2],
                phase=["1", "2"],
                start=["2027-05-03", "2027-07-01"],
                end=["2027-08-30", "2027-10-15"],
            ),
            "roads": g(
                [shapely.LineString([(rx, y0 + 5), (rx, y0 + 395)])],
                id=[1],
                status=["existing"],
                public=[True],
                name=["County Road X"],
            ),
            "access_drives": g([shapely.box(rx, cy - 4, cx - 80, cy + 4)], id=[1]),
            "stockpiles": g([shapely.box(cx + 20, cy + 30, cx + 50, cy + 45)], id=[1], days=[60.0]),
            "storm_inlets": g([shapely.Point(rx + 3, cy - 60)], id=[1]),
            "streams": g(
                [shapely.LineString([(cx + 100, y0 + 395), (cx + 120, cy), (cx + 150, y0 + 5)])], id=[1]
            ),
        }
    )
    folder.mkdir(parents=True)
    shutil.copyfile(real / "dem.tif", folder / "dem.tif")
    conf = {
        **site_conf(start="2027-05-03", end="2027-10-15"),
        "jurisdiction": "belgium",
        "crs": crs,
        "dem": {"path": "dem.tif", "vertical_unit": "m"},
    }
    return make_site(folder, layers, conf, crs=crs)


def crow_wing_site(folder: Path) -> Path:
    """The third sample site (a six-lot subdivision on real Minnesota LiDAR), generated as
    tests/test_real_terrain_site.py generates it."""
    import subprocess
    import sys

    if not REAL_DEMS.is_dir():
        pytest.skip("shared/data/real_dems is not present")
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "make_sample_sites.py"),
            "--only",
            "crow_wing_real_terrain",
            "--out",
            str(folder),
            "--real-dems",
            str(REAL_DEMS),
            "--quiet",
        ],
        check=True,
        timeout=300,
    )
    return folder / "crow_wing_real_terrain"


def channel_through_basins(folder: Path) -> Path:
    """The valley again, 10.3 acres disturbed across its stream: B(6)(c)'s basin route is the only one open
    (10 acres or more), so the perimeter fences are not required, yet B(6)(a) still asks for the channelized
    inflow to be diverted or its channel protected by channel-edge fences."""
    dem = v_valley(1.0, 1.0, shape=(700, 451))  # gentle: sheet flow below 0.5 ft/s, no diversion asked
    cx = 451  # the axis at x = 451 ft (column 225 of 2 ft cells)
    layers = complete(
        {
            "site_boundary": gdf([rect(cx - 400, -1300, 800, 1000)], id=[1]),
            "disturbance": gdf(
                [rect(cx - 280, -1200, 560, 800)],  # 560 x 800 = 448,000 sq ft, 10.28 acres
                id=[1],
                phase=["1"],
                start=["2027-05-03"],
                end=["2027-09-30"],
            ),
        }
    )
    layers["channels"] = gdf([line((cx, -100), (cx, -1400))], id=[1])
    layers.update({n: empty() for n in ("stockpiles", "storm_inlets", "roads", "access_drives")})
    return make_site(folder, layers, site_conf(), dem=dem)


BUILT = {
    "virginia_real_2_acres": virginia_site,
    "virginia_real_wetland_basins": virginia_wetland_site,
    "minnesota_real_two_phases_belgium": minnesota_two_phases_site,
    "crow_wing_real_subdivision": crow_wing_site,
    "small_lot_4pct": lambda f: lot(f, 4.0, (300, -700, 100, 100)),
    "steep_lot_15pct": lambda f: lot(f, 15.0, (250, -750, 300, 250)),
    "pile_by_the_road": lambda f: lot(f, 6.0, (300, -700, 150, 120), pile_near_road=True),
    "big_site_basins": lambda f: lot(f, 3.0, (150, -1050, 700, 660), shape=(600, 520)),
    "belgium_dewatering": lambda f: lot(
        f, 5.0, (300, -750, 220, 200), jurisdiction="belgium", dewatering=True
    ),
    "channel_through": channel_site,
    "channel_through_basins": channel_through_basins,
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


def assert_traps_on_the_site(result, plan: Path) -> None:
    """Every trap or basin the plan proposes lies within the site boundary; a trap at its DNR 1063 surface
    area (the profile's sq ft per acre times the acres draining to it)."""
    feet = result.layers.get("sediment_basin_footprints")
    no_room = (
        []
        if feet is None
        else [int(o) for o, ok in zip(feet["outlet"], feet["placed"], strict=True) if not ok]
    )
    if no_room:  # the report says so in words (an outlet no submitted trap serves)
        said = " ".join(f.message for f in result.findings if f.rule == "sediment_trap_room")
        assert all(f"Outlet {o} " in said for o in no_room) and "no room on the site for the trap" in said
    bmps = read_layer(plan, "bmps")
    traps = bmps[bmps["type"].isin(["sediment_trap", "sediment_basin"])]
    site = result.site.boundary.buffer(1e-6)
    fpu = result.site.ft_per_unit
    assert all(site.covers(g) for g in traps.geometry), traps
    per_acre = result.profile.value("controls", "sediment_trap_surface_sqft_per_acre")
    submitted = result.site.layer("bmps")
    kept = [] if submitted is None else [g for g in submitted.geometry if g is not None]
    for t in traps.itertuples():
        if "Polygon" in t.geometry.geom_type and any(t.geometry.equals_exact(g, 1e-6) for g in kept):
            continue  # a submitted basin serving its outlet, kept at its own size (one control an outlet)
        if "Polygon" in t.geometry.geom_type:
            assert t.type == "sediment_trap" and per_acre is not None
            # its surface as drawn (to 1 sq ft): the profile's sq ft per acre times its acres (to 0.01)
            assert t.geometry.area * fpu**2 == pytest.approx(t.surface_sqft, abs=1.0)
            assert t.surface_sqft == pytest.approx(float(per_acre) * t.drainage_acres, abs=0.005 * per_acre)


def assert_quantities_declared_and_consistent(checked) -> None:
    """The plan declares its quantities ([[estimate]]) and its own check finds the layers agree (issue 34)."""
    judged = [f for f in checked.findings if f.rule == "declared_quantities"]
    assert [f.status for f in judged] == ["pass"], [f.message for f in judged]


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_site_plan_passes_its_own_check(sample: Path, own_plans) -> None:
    result, out, checked = own_plans(sample.name)  # run_plan(sample, out), shared with test_plan_mutations
    assert not checked.failed, failing(checked)
    assert checked.verdict != "fail"
    assert_traps_on_the_site(result, out / "plan")
    assert_quantities_declared_and_consistent(checked)


@pytest.mark.parametrize("name", sorted(BUILT))
def test_built_site_plan_passes_its_own_check(name: str, own_plans) -> None:
    result, out, checked = own_plans(name)  # run_plan(BUILT[name](folder), out); test_plan_mutations too
    assert not checked.failed, failing(checked)
    bmps = read_layer(out / "plan", "bmps")
    assert bmps["install"].notna().all() and bmps["remove"].notna().all()
    assert set(bmps["type"]) >= {"silt_fence"}
    assert_traps_on_the_site(result, out / "plan")
    assert_quantities_declared_and_consistent(checked)
    if name == "big_site_basins":
        assert result.report["disturbed"]["max_at_one_time_acres"] >= 10.0
        assert set(bmps["type"]) & {"sediment_basin", "sediment_trap"}
    if name == "belgium_dewatering":
        # Belgium's chapter does not ask for the treatment of pumped water ([[not_specified]] dewatering):
        # the plan proposes what the chapter's requirements ask, and dewatering declared adds nothing
        assert "dewatering" not in set(bmps["type"])
    if name in ("channel_through", "channel_through_basins"):
        fence = result.layers["filter_fence"]
        assert (fence["side"] == "channel").any()
    if name == "channel_through_basins":  # the basin route, and B(6)(a) judged on the channel's own fences
        assert result.report["disturbed"]["max_at_one_time_acres"] >= 10.0
        judged = {f.rule: f.status for f in checked.findings}
        assert judged.get("channelized_diversion_submitted") == "pass", failing(checked)


def test_plan_folder_by_hand(tmp_path: Path) -> None:
    """The small lot's plan, read back: site.toml, the pad, the dates."""
    folder = BUILT["small_lot_4pct"](tmp_path / "lot")
    _result, _checked = run_plan(folder, tmp_path / "out")
    plan = tmp_path / "out" / "plan"
    conf = tomllib.loads((plan / "site.toml").read_text())
    assert conf["declared"]["plan_type"] == "statement"  # 10,000 sq ft: under an acre
    assert conf["declared"]["disturbed_area_sqft"] == pytest.approx(10_000.0)
    maintenance = conf["declared"]["maintenance"]  # the profile's [maintenance] for the practices on the plan
    assert "every 7 days" in maintenance and "0.5 in" in maintenance and "within 24 h" in maintenance
    assert "one-half of the fence's height" in maintenance and "DNR technical standard 1056" in maintenance
    assert "sediment basin" not in maintenance.lower()  # no basin on this lot
    assert conf["dem"] == {"path": "dem.tif", "vertical_unit": "us_ft"}
    assert (plan / "dem.tif").stat().st_size == (folder / "dem.tif").stat().st_size
    dist = gpd.read_file(plan / "layers.gpkg", layer="disturbance")
    assert list(dist["stabilized"].astype(str)) == ["2027-10-07"]  # 2027-09-30 + 7 days, B(6)(c)[1]
    bmps = read_layer(plan, "bmps")
    assert set(bmps["install"].astype(str)) == {"2027-05-02"}  # the day before 2027-05-03
    assert set(bmps["remove"].astype(str)) == {"2027-10-08"}
    (pad,) = bmps[bmps["type"] == "tracking_pad"].geometry
    # the drive is 16 ft wide, running north from the road at y = -740 (site y); the pad: 50 x 16 ft from it
    assert pad.area == pytest.approx(50.0 * 16.0, rel=1e-6)
    assert pad.bounds[1] == pytest.approx(200_000.0 - 740.0) and pad.bounds[3] == pytest.approx(
        200_000.0 - 690.0
    )
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
    fenced = slope_length_excess(
        poly, dem, fg, shapely.LineString([(x0, ytop - 30.0), (x0 + 40.0, ytop - 30.0)]), table, geometry=True
    )
    assert fenced["excess_sqft"] < got["excess_sqft"] / 4  # a row halfway: each half 30 ft long, 5 ft over


def test_a_dem_too_large_to_copy_goes_in_as_the_window_read(tmp_path: Path, monkeypatch) -> None:
    """Over the copy limit, the plan holds the window geosite read, in the DEM's own vertical unit (here
    metres: heights 0.3048 of the feet), and check of the plan reads it and finds no failure."""
    import rasterio

    from geosite import plan_folder
    from geosite.grid import Dem

    monkeypatch.setattr(plan_folder, "DEM_COPY_MAX_BYTES", 0)
    base = ridge_plane(4.0, shape=(600, 500))
    metres = Dem.from_array(base.elevation_ft * 1200.0 / 3937.0, base.transform, base.crs, "m")  # us ft -> m
    folder = lot(tmp_path / "lot", 4.0, (300, -700, 100, 100))
    from sitebuilder import write_dem

    write_dem(folder / "dem.tif", metres, vertical_factor=metres.ft_per_vertical_unit)
    conf = (folder / "site.toml").read_text().replace('vertical_unit = "us_ft"', 'vertical_unit = "m"')
    (folder / "site.toml").write_text(conf)
    result, checked = run_plan(folder, tmp_path / "out")
    assert not checked.failed, failing(checked)
    plan = tmp_path / "out" / "plan"
    assert tomllib.loads((plan / "site.toml").read_text())["dem"] == {"path": "dem.tif", "vertical_unit": "m"}
    with rasterio.open(plan / "dem.tif") as src:
        z = src.read(1, masked=True)
        assert src.shape == result.dem.shape
    assert float(z.max()) == pytest.approx(float(result.dem.elevation_ft.max()) * 1200.0 / 3937.0, abs=1e-3)


def test_the_sheets_are_the_submitted_maps(tmp_path: Path) -> None:
    """With the sheets rendered, the plan submits the existing-site sheet at the scale it is drawn at (the
    largest standard scale its site and margin fit a sheet at, 1 in = 100 ft at most) and the
    final-conditions sheet, and check's A(1) map item passes on them."""
    folder = BUILT["steep_lot_15pct"](tmp_path / "lot")  # 1.7 acres: a full plan, whose A(1) asks for the map
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = geosite.analyze(geosite.load_site(folder))
        write_outputs(result, tmp_path / "out", maps=True, dxf=False)
        checked = check_submission(tmp_path / "out" / "plan")
    assert not checked.failed, failing(checked)
    declared = tomllib.loads((tmp_path / "out" / "plan" / "site.toml").read_text())["declared"]
    from geosite.pipeline import fitted_scale

    drawn = fitted_scale(result)
    assert drawn is not None and drawn < 100.0  # a 300 x 250 ft lot: a larger scale than the chapter's
    assert declared["submitted_map"] == "existing_site_map.pdf" and declared["map_scale_ft_per_in"] == drawn
    assert declared["final_conditions"] == "final_conditions.pdf"
    (a1,) = [f for f in checked.findings if f.rule.endswith("A_1.map")]
    assert a1.status == "pass"


@pytest.mark.parametrize(("keep_channel_fences", "status"), [(True, "pass"), (False, "fail")])
def test_b6a_channel_protected_instead_is_judged_whatever_route_b6c_takes(
    tmp_path: Path, keep_channel_fences: bool, status: str
) -> None:
    # B(6)(a): channelized inflow diverted "if practical; otherwise the channel shall be protected as
    # described in B(6)(c)[3]". On 10.28 acres only B(6)(c)'s basin route is open, which closes the
    # perimeter fences; the channel-edge fences B(6)(a) points to are still to be judged, on their own.
    folder = channel_through_basins(tmp_path / "site")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = geosite.analyze(geosite.load_site(folder))
        write_outputs(result, tmp_path / "out", maps=False, dxf=False)
    plan = tmp_path / "out" / "plan"
    bmps = read_layer(plan, "bmps")
    channel_fence = bmps["practice"].str.contains("channel edge")
    assert channel_fence.any() and (bmps["type"] == "diversion").any()
    keep = (bmps["type"] != "diversion") & (keep_channel_fences | ~channel_fence)
    write_layer(plan, "bmps", bmps[keep])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        checked = check_submission(plan)
    (f,) = [f for f in checked.findings if f.rule == "channelized_diversion_submitted"]
    assert f.citation == "B(6)(a)" and f.status == status, f.message
    assert ("channel-edge fences instead" in f.message) == (status == "pass")
