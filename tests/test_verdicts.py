"""Verdicts that follow the chapters' own text (issue 12), each on the smallest site that shows it, both
villages, both sides of every threshold, and the side where the chapter or B(6) does not apply (where
nothing may fail).

The sites sit on :func:`sitebuilder.ridge_plane` (a plane falling south from a ridge, so upslope areas
are bounded), on a V-shaped valley (:func:`geosite.testing.v_valley`), or on a pit that holds the
10-year storm (runoff stays on the site).
"""

from __future__ import annotations

import json
import warnings

import geopandas as gpd
import numpy as np
import pytest
from click.testing import CliRunner
from shapely.geometry import box
from sitebuilder import RIDGE_Y, X0, Y0, line, make_site, point, rect, ridge_plane

import geosite
from geosite.cli import cli
from geosite.testing import v_valley

CRS = "EPSG:7593"


def gdf(geoms, **cols):
    return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=CRS)


def analyze(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return geosite.analyze(geosite.load_site(folder))


def check(folder, tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(out), "--no-html"])
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads((out / "findings.json").read_text())


def by_rule(findings, rule):
    """The findings of ``rule`` (Finding objects or findings.json dicts)."""
    get = (lambda f: f["rule"]) if findings and isinstance(findings[0], dict) else (lambda f: f.rule)
    return [f for f in findings if get(f) == rule]


def one(findings, rule):
    (f,) = by_rule(findings, rule)
    return f


# ------------------------------------------------------------------------- a plane site with defects
# The DEM: 600 rows x 500 columns of 2 ft (x 0..1000, y 0..-1200), 4 % falling south from a ridge near
# the top. The site: 400 x 400 ft, top edge at y = -400. Its defects: an unprotected inlet on the site,
# a drive onto a road with no tracking pad, no fence at all.


@pytest.fixture(scope="module")
def plane():
    return ridge_plane(4.0, shape=(600, 500))


def plane_layers(dist=(300, -700, 100, 100), **extra):
    x, y, w, h = dist
    layers = {
        "site_boundary": gdf([rect(200, -800, 400, 400)], id=[1]),
        "disturbance": gdf([rect(*dist)], id=[1], start=["2027-05-03"], end=["2027-09-30"]),
        "storm_inlets": gdf([point(250, -450)], id=[1]),  # on the site, north-west of the work, upslope
        "roads": gdf(
            [line((0, -805), (1000, -805))], id=[7], status=["existing"], public=[False]
        ),  # a private road
        "access_drives": gdf([line((x + w / 2, -805), (x + w / 2, y))], id=[3]),
        "bmps": gdf([rect(580, -420, 5, 5)], id=[1], type=["stabilization"], install=["2027-05-03"]),
    }
    layers.update(extra)
    return layers


def fails(findings):
    return [f for f in findings if (f["status"] if isinstance(f, dict) else f.status) == "fail"]


@pytest.mark.parametrize(
    ("jurisdiction", "conf"),
    [
        (
            "grantsburg",
            {"project": {"cut_cy": 10.0, "fill_cy": 10.0}},
        ),  # 2,950 sq ft at 4 %: none of A(1)-(7)
        (
            "grantsburg",
            {"project": {"plat": "subdivision", "authority_superseded": True}},
        ),  # superseded lands
        ("belgium", {"project": {"state_funded": True}}),  # state-conducted: exempt
        ("belgium", {"project": {"landscaping_only": True}}),  # landscaping is not land disturbance
    ],
)
def test_nothing_fails_where_the_chapter_does_not_apply(tmp_path, plane, jurisdiction, conf):
    layers = plane_layers(dist=(300, -700, 50, 59))
    folder = make_site(tmp_path / "s", layers, {"jurisdiction": jurisdiction, **conf}, dem=plane)
    r = analyze(folder)
    assert r.evaluation.applies is False and r.evaluation.gate.open() is False
    assert fails(r.findings) == []
    assert not any(f.required for f in r.findings)  # nothing listed as "Required"
    assert not any(f.message.startswith("Required") for f in r.findings)
    # the controls are shown for reference: their findings say so, their layers carry required = False
    tracking = one(r.findings, "tracking_pad")
    assert tracking.status == "info" and "Not required here (the chapter does not apply" in tracking.message
    assert not r.layers["tracking_pads"]["required"].any()
    code, data = check(folder, tmp_path)
    assert code == 0 and data["verdict"] == "pass" and fails(data["findings"]) == [], fails(data["findings"])
    assert data["chapter_applies"] is False


@pytest.mark.parametrize(
    ("width", "applies"), [(67.79, False), (67.8, True)]
)  # x 59 ft: 3,999.6 / 4,000.2 sq ft
def test_the_same_defects_fail_once_the_chapter_applies(tmp_path, plane, width, applies):
    layers = plane_layers(dist=(300, -700, width, 59))
    folder = make_site(tmp_path / "s", layers, {"project": {"cut_cy": 10.0, "fill_cy": 10.0}}, dem=plane)
    r = analyze(folder)
    assert r.evaluation.applies is applies
    failed = {f.rule: f for f in fails(r.findings)}
    if not applies:
        assert failed == {}
        return
    assert r.report["applicability"]["triggers"][2]["citation"] == "A(3)"
    # and B(6)(a): 688 ft x 67.8 ft of sheetflow crosses 59 ft of bare ground at 4 %: 0.55 ft/s
    assert set(failed) == {
        "inlet_protection_submitted",
        "tracking_pad",
        "filter_fence_submitted",
        "sheetflow_diversion_submitted",
    }
    assert failed["inlet_protection_submitted"].citation == "B(4)" and failed[
        "inlet_protection_submitted"
    ].feature_ids == [1]
    assert failed["tracking_pad"].citation == "B(3)" and "road 7 (private)" in failed["tracking_pad"].message
    assert failed["filter_fence_submitted"].citation == "B(6)(c)[3]"


# ------------------------------------------------------------------------- runoff that stays on the site


def _plane_with_pit(depth_ft: float):
    """A 5 % plane falling south with a conical pit (radius 100 ft, ``depth_ft`` deep) 250 ft below the
    top."""
    from geosite.grid import Dem
    from geosite.testing import cell_centres, inclined_plane

    dem = inclined_plane(5.0, shape=(300, 300), cell=2.0)
    x, y = cell_centres(dem.shape, dem.transform)
    r = np.hypot(x - (dem.transform.c + 300.0), y - (dem.transform.f - 250.0))
    return Dem.from_array(
        dem.elevation_ft - np.clip(depth_ft * (1 - r / 100.0), 0, None), dem.transform, dem.crs, "us_ft"
    )


@pytest.mark.parametrize(("pit_ft", "leaves"), [(0.0, True), (25.0, False)])
def test_b6_fails_nothing_where_runoff_stays_on_the_site_but_b1_to_b5_still_apply(tmp_path, pit_ft, leaves):
    # 40 x 40 ft of work just above the pit, a pile 15 ft above a ditch that runs into the pit, no fence;
    # an inlet on the site unprotected and a drive with no pad (B(4), B(3): every site under A)
    layers = {
        "site_boundary": gdf([rect(20, -580, 560, 560)], id=[1]),
        "disturbance": gdf([rect(280, -130, 40, 40)], id=[1], start=["2027-05-03"], end=["2027-09-30"]),
        "stockpiles": gdf([rect(330, -120, 20, 20)], id=[1], days=[45]),
        "channels": gdf([line((300, -135), (400, -135))], id=[1]),
        "storm_inlets": gdf([point(100, -500)], id=[1]),
        "roads": gdf([line((0, -50), (600, -50))], id=[2], status=["existing"]),
        "access_drives": gdf([line((300, -50), (300, -90))], id=[3]),
        "bmps": gdf([rect(60, -500, 4, 4)], id=[9], type=["stabilization"]),
    }
    r = analyze(
        make_site(tmp_path / "s", layers, {"project": {"plat": "subdivision"}}, dem=_plane_with_pit(pit_ft))
    )
    assert r.measurements.values["hydrology.runoff_leaves_site"] is leaves
    assert r.evaluation.gate.open("b6") is leaves
    failed = {f.rule: f.citation for f in fails(r.findings)}
    b6 = {k for k, cite in failed.items() if cite.startswith("B(6)")}
    assert {"inlet_protection_submitted", "tracking_pad"} <= set(failed)  # B(1)-(5) apply either way
    if leaves:
        # the pile stays 45 days with nothing to stabilize it: B(6)(e) fails it too
        assert b6 == {
            "filter_fence_submitted",
            "stockpile_setback",
            "stockpile_fence",
            "stockpile_stabilization",
        }
    else:
        assert b6 == set()
        # nor is anything of B(6) left open: the disturbance has no stabilization date, which B(6)(c)[1] would
        # ask for, but B(6) does not apply here, so that is information, not a question the plan must settle
        open_b6 = [f for f in r.findings if f.status == "not_assessed" and f.citation.startswith("B(6)")]
        assert open_b6 == [], [f.rule for f in open_b6]
        pile = one(r.findings, "stockpile_setback")
        assert pile.status == "info" and "B(6)" in pile.message and "15.0 ft" in pile.message
        assert not r.layers["filter_fence"]["required"].any()


# ------------------------------------------------------------------------- B(4): all storm drain inlets


@pytest.mark.parametrize("jurisdiction", ["grantsburg", "belgium"])
def test_which_inlets_need_protection(tmp_path, plane, jurisdiction):
    # site top edge y = -400: inlets 199 and 201 ft north of it (upslope, runoff never reaches them), one
    # 250 ft below the site straight under the work (reached), one 250 ft below and 300 ft east (not)
    inlets = gdf(
        [point(300, -201), point(300, -199), point(350, -1050), point(900, -1050), point(250, -450)],
        id=[1, 2, 3, 4, 5],
    )
    folder = make_site(
        tmp_path / "s",
        plane_layers(storm_inlets=inlets),
        {"jurisdiction": jurisdiction, "project": {"plat": "subdivision"}},
        dem=plane,
    )
    r = analyze(folder)
    inl = {i["id"]: i for i in r.report["inlets"]}
    assert inl[3]["downslope_of_disturbed"] and not inl[4]["downslope_of_disturbed"]
    f = one(r.findings, "inlet_protection_submitted")
    assert f.status == "fail"
    if jurisdiction == "grantsburg":
        # B(4): all inlets on the site or its 200-ft adjacent area (A(1)), and the farther ones its runoff
        # reaches
        assert {k: v["protection_required"] for k, v in inl.items()} == {
            1: True,
            2: False,
            3: True,
            4: False,
            5: True,
        }
        assert f.citation == "B(4)" and f.feature_ids == [1, 3, 5]
    else:
        # DNR 1060 alone: the inlets in the disturbed area or receiving its runoff
        assert {k: v["protection_required"] for k, v in inl.items()} == {
            1: False,
            2: False,
            3: True,
            4: False,
            5: False,
        }
        assert (
            f.citation == "Design criteria (DNR 1060)"
            and f.section == "Design criteria, standards and specifications"
        )
        assert f.feature_ids == [3]
    free = one(r.findings, "inlet_protection_not_required")
    assert free.status == "info" and 4 in free.feature_ids


# ------------------------------------------------------------------------- B(3): public or private roads


@pytest.mark.parametrize(
    ("jurisdiction", "cite"), [("grantsburg", "B(3)"), ("belgium", "Design criteria (DNR 1057)")]
)
@pytest.mark.parametrize(("pad_ft", "ok"), [(49.0, False), (50.0, True)])
def test_tracking_pad_onto_a_private_road(tmp_path, plane, jurisdiction, cite, pad_ft, ok):
    layers = plane_layers()
    layers["bmps"] = gdf([rect(344, -805, 12, pad_ft)], id=[1], type=["tracking_pad"], install=["2027-05-03"])
    r = analyze(
        make_site(
            tmp_path / "s",
            layers,
            {"jurisdiction": jurisdiction, "project": {"plat": "subdivision"}},
            dem=plane,
        )
    )
    (ent,) = r.report["tracking"]["entrances"]
    assert ent["road_id"] == 7 and ent["road_public"] is False
    f = one(r.findings, "tracking_pad")
    assert f.citation == cite and f.status == ("pass" if ok else "fail")
    assert "road 7 (private)" in f.message


# ------------------------------------------------------------------------- B(6)(c)[2]: basins at the outlets
# 12.9 acres drain to the bottom edge of an 11.25-acre square of work on a 2 % plane: one outlet, a basin.


@pytest.fixture(scope="module")
def big_plane():
    return ridge_plane(2.0, shape=(300, 300), cell=4.0)  # x 0..1200, y 0..-1200


BIG = (250, RIDGE_Y - 1.0 - 100.0 - 700.0, 700, 700)  # 700 x 700 ft, its top 100 ft below the ridge's land


def big_layers(basins):
    x, y, w, h = BIG
    return {
        "site_boundary": gdf([rect(150, -1150, 900, 1130)], id=[1]),
        "disturbance": gdf([rect(*BIG)], id=[1], start=["2027-05-03"], end=["2027-09-30"]),
        "bmps": gdf(
            [g for g, _t in basins],
            id=list(range(1, len(basins) + 1)),
            type=[t for _g, t in basins],
            install=["2027-05-03"] * len(basins),
        ),
    }


@pytest.mark.parametrize(
    ("where", "kind", "status"),
    [
        ("bottom", "sediment_basin", "pass"),
        ("bottom", "sediment_trap", "fail"),  # DNR 1063: a trap serves under 5 acres; 12.86 drain there
        ("top", "sediment_basin", "fail"),  # upslope of the work: receives none of its runoff
    ],
)
def test_basin_counts_only_where_it_receives_the_runoff_and_suits_it(
    tmp_path, big_plane, where, kind, status
):
    x, y, w, h = BIG
    at = point(x + w / 2, y) if where == "bottom" else point(x + w / 2, y + h + 60)
    r = analyze(make_site(tmp_path / "s", big_layers([(at.buffer(30), kind)]), dem=big_plane))
    b = r.report["sediment_basin_location"]
    assert r.report["disturbed"]["max_at_one_time_acres"] == pytest.approx(490_000 / 43_560)
    (o,) = b["outlets"]
    assert (
        o["drainage_acres"] * 43_560 == pytest.approx(700 * 800, rel=1e-9) and o["kind"] == "sediment_basin"
    )
    assert o["disturbed_acres"] * 43_560 == pytest.approx(490_000, rel=1e-9)
    f = one(r.findings, "sediment_basin_submitted")
    assert f.citation == "B(6)(c)[2]" and f.status == status
    assert "either [1] and [2] or [1] and [3]" in f.message
    if where == "top":
        assert "receive none of the disturbed area's runoff" in f.message
    # at 10 acres or more [3]'s fences are not the route: their absence fails nothing
    fence = one(r.findings, "filter_fence_location")
    assert fence.status == "info" and "less than 10 acres disturbed at one time: not met" in fence.message
    assert by_rule(r.findings, "filter_fence_submitted") == []


def test_basin_kind_at_the_handbook_limits():
    from profile_numbers import GRANTSBURG

    from geosite.controls import basin_kind

    limits = {
        "trap_max_acres": GRANTSBURG.control("sediment_trap_max_drainage_acres"),  # DNR 1063: 5 acres
        "basin_max_acres": GRANTSBURG.control("sediment_basin_max_drainage_acres"),  # DNR 1064: 100 acres
    }
    # the drainage's class: the practice each needs is the sediment-basin practice's (a trap, a basin,
    # and beyond one basin's drainage a named stand-in)
    assert [basin_kind(a, **limits).kind for a in (4.99, 5.0, 100.0, 100.01)] == [
        "trap",
        "basin",
        "basin",
        "beyond",
    ]


@pytest.fixture(scope="module")
def valley():
    # 600 ft long, 202 ft wide, axis falling south at 2 %, sides 10 %: the axis reaches 1 acre of
    # drainage (a channel head) about 216 ft down the valley
    return v_valley(10.0, 2.0, shape=(300, 101), cell=2.0)


VALLEY_SITE = rect(0, -580, 202, 580)  # the channel leaves the site 20 ft above the DEM's edge
HEAD = rect(60, -260, 82, 80)  # holds the channel head: B(6)(c)[2]'s channel origin


@pytest.mark.parametrize(("basin", "route"), [(True, "c2"), (False, "c3")])
def test_under_ten_acres_a_channel_origin_makes_basins_one_route_fences_the_other(
    tmp_path, valley, basin, route
):
    bmps = (
        [point(101, -262).buffer(8.0)] if basin else [point(101, -100).buffer(8.0)]
    )  # at the outlet, or far upslope
    layers = {
        "site_boundary": [VALLEY_SITE],
        "disturbance": gdf([HEAD], id=[1]),
        "bmps": gdf(bmps, id=[1], type=["sediment_trap"]),
    }
    r = analyze(make_site(tmp_path / "s", layers, {"project": {"plat": "subdivision"}}, dem=valley))
    assert r.measurements.values["hydrology.channel_originates_in_disturbed"] is True
    b = r.report["sediment_basin_location"]
    (o,) = b["outlets"]
    # the whole valley above the area's bottom edge drains out there: 130 rows x 101 columns of 4 sq ft
    assert (
        o["drainage_acres"] * 43_560 == pytest.approx(130 * 101 * 4, rel=0.01)
        and o["kind"] == "sediment_trap"
    )
    assert b["either_route"] is True
    fb = one(r.findings, "sediment_basin_submitted")
    fence = by_rule(r.findings, "filter_fence_submitted")
    if route == "c2":
        assert fb.status == "pass" and "the other route is not required" in fb.message
        assert fence == [] and "other route" in one(r.findings, "filter_fence_location").message
    else:
        assert fb.status == "info"
        assert fence[0].status == "fail" and "or basins at every outlet" in fence[0].message


# ----------------------------------------------------------------- B(6)(c)[3]: channel edges outside the work


def test_channel_edge_fence_outside_the_disturbed_area(tmp_path, valley):
    # work on the east side of the valley, below the channel head, not touching the channel: its runoff
    # runs west (the D8 step across the 10 % side) into the channel along rows 150-199 (y -300 to -400)
    work = rect(120, -400, 60, 100)
    layers = {
        "site_boundary": [VALLEY_SITE],
        "disturbance": gdf([work], id=[1]),
        "bmps": gdf([point(5, -5)], type=["stabilization"]),
    }
    r = analyze(make_site(tmp_path / "s", layers, {"project": {"plat": "subdivision"}}, dem=valley))
    fence = r.layers["filter_fence"]
    chan = fence[fence["side"] == "channel"]
    assert len(chan) == 1
    g = chan.geometry.iloc[0]
    # on the east (left, facing downstream) bank, 5 ft off the axis (x = 101), over the 100 ft reached
    xs = [c[0] - X0 for c in g.coords]
    assert all(x == pytest.approx(106.0) for x in xs)
    assert chan["length_ft"].iloc[0] == pytest.approx(100.0, abs=0.01)
    assert r.measurements.values["hydrology.channels_receiving_disturbed_runoff"] >= 1
    assert one(r.findings, "channel_edge_fences").required is True
    f = one(r.findings, "channel_fence_submitted")  # the channel edges: their own requirement's finding
    assert f.status == "fail" and "missing along 100 ft of the 100 ft required" in f.message


# ------------------------------------------------------------------------- A(7): no minimum area


def _band(slope_pct: float):
    """60 ft wide, 400 ft long, falling south at 2 % except an 8-ft band (y -200 to -208) at ``slope_pct``:
    Horn's slope is ``slope_pct`` on the band's four rows, 15.5 % (at 20 %) or 8.6 % (at 11.5 %) on none
    other: 8 ft x 60 ft = 480 sq ft of steep ground, all of it one patch under the 500 sq ft mapping unit."""
    from geosite.grid import Dem
    from geosite.testing import cell_centres, inclined_plane

    base = inclined_plane(2.0, shape=(200, 30), cell=2.0)
    _x, y = cell_centres(base.shape, base.transform)
    d = Y0 - y  # ft down from the top
    z = 900.0 - 0.02 * d - (slope_pct - 2.0) / 100.0 * np.clip(d - 200.0, 0.0, 8.0)
    return Dem.from_array(z, base.transform, base.crs, "us_ft")


@pytest.mark.parametrize(("slope", "met"), [(11.5, False), (20.0, True)])
def test_a7_counts_steep_ground_below_the_mapping_unit(tmp_path, slope, met):
    dem = _band(slope)
    layers = {
        "site_boundary": [rect(0, -400, 60, 400)],
        "disturbance": gdf([rect(10, -250, 30, 100)], id=[1]),
    }
    r = analyze(make_site(tmp_path / "s", layers, {"project": {"cut_cy": 0.0, "fill_cy": 0.0}}, dem=dem))
    s = r.report["slopes"]
    t = next(t for t in r.report["applicability"]["triggers"] if t["rule"] == "disturbance_on_steep_slopes")
    assert t["citation"] == "A(7)" and t["met"] is met
    assert r.evaluation.applies is met  # 3,000 sq ft disturbed: A(7) is the only trigger
    if met:
        assert s["max_disturbed_slope_pct"] == pytest.approx(20.0, abs=0.01)  # the DEM is written as float32
        assert s["steep_disturbed_area_sqft"] == pytest.approx(
            8 * 30, rel=1e-9
        )  # the band's cells, clipped exactly
        assert s["steep_disturbed_mapped_area_sqft"] == 0.0
        assert "only in patches under the 500 sq ft mapping unit" in t["message"] and "20.0 %" in t["message"]
        md = geosite.report.render_markdown(r.report)
        assert "240 sq ft" in md
    else:
        assert s["steep_disturbed_area_sqft"] == 0.0 and s["max_disturbed_slope_pct"] == pytest.approx(
            11.5, abs=0.01
        )
        assert "11.5 %" in t["message"]


# ------------------------------------------------------------------------- partial DEM coverage


@pytest.mark.parametrize(("slope", "met"), [(5.0, None), (15.0, True)])
def test_a7_where_part_of_the_work_is_beyond_the_dem(tmp_path, slope, met):
    from geosite.testing import inclined_plane

    dem = inclined_plane(slope, shape=(200, 200), cell=2.0)  # x 0..400
    layers = {
        "site_boundary": [rect(0, -300, 600, 250)],
        "disturbance": gdf([rect(350, -200, 100, 39)], id=[1]),
    }  # 3,900 sq ft
    r = analyze(make_site(tmp_path / "s", layers, {"project": {"cut_cy": 0.0, "fill_cy": 0.0}}, dem=dem))
    t = next(t for t in r.report["applicability"]["triggers"] if t["rule"] == "disturbance_on_steep_slopes")
    assert t["met"] is met
    assert r.report["slopes"]["disturbed_without_heights_sqft"] == pytest.approx(50 * 39)
    if met is None:
        # no steep cell in the half with heights: A(7) is not assessed for the other half, never "not met"
        assert "1,950 sq ft of the disturbed area has no DEM heights" in t["message"]
        assert r.evaluation.applies is None
    else:
        assert r.evaluation.applies is True
    assert any("1,950 sq ft of the disturbed area (50%) lies beyond the DEM" in n for n in r.report["notes"])


def test_nodata_hole_is_named_and_its_fence_runs_unclassified(tmp_path):
    from geosite.grid import Dem
    from geosite.testing import inclined_plane

    base = inclined_plane(5.0, shape=(200, 200), cell=2.0)
    z = base.elevation_ft.copy()
    z[100:110, 120:140] = (
        np.nan
    )  # 20 x 40 ft hole (y -200..-220, x 240..280) across the work's east edge (x 260)
    dem = Dem.from_array(z, base.transform, base.crs, "us_ft")
    layers = {
        "site_boundary": [rect(20, -380, 360, 360)],
        "disturbance": gdf([rect(160, -260, 100, 100)], id=[1]),
    }
    r = analyze(make_site(tmp_path / "s", layers, {"project": {"plat": "subdivision"}}, dem=dem))
    (note,) = [n for n in r.report["notes"] if "nodata hole" in n]
    assert "800 sq ft inside the site" in note and "400 sq ft of it in the disturbed area" in note
    assert r.report["filter_fence"]["unclassified_length_ft"] == pytest.approx(20.0, abs=2.0)
    f = one(r.findings, "filter_fence_unclassified")
    assert f.status == "not_assessed" and f.citation == "B(6)(c)[3]"


def test_runoff_reaching_the_dem_edge_inside_the_site_is_not_assessed(tmp_path, plane):
    # the site runs past the DEM's bottom edge (y -1200): where the work's runoff goes from there is unknown
    layers = {
        "site_boundary": [rect(200, -1300, 400, 900)],
        "disturbance": gdf([rect(300, -700, 100, 100)], id=[1]),
    }
    r = analyze(make_site(tmp_path / "s", layers, {"project": {"plat": "subdivision"}}, dem=plane))
    assert r.measurements.values["hydrology.runoff_leaves_site"] is None
    assert "DEM's edge or a nodata hole inside the site" in r.measurements.why("hydrology.runoff_leaves_site")
    assert r.evaluation.gate.open("b6") is None
    assert fails(r.findings) == [] or all(not f.citation.startswith("B(6)") for f in fails(r.findings))


# ------------------------------------------------------------------------- B(6)(e) stockpiles


PILE = rect(112, -430, 28, 20)  # on the valley's east side, its west edge 11 ft from the axis (x = 101)


def pile_layers(**pile_attrs):
    return {
        "site_boundary": [VALLEY_SITE],
        "disturbance": gdf([rect(110, -440, 40, 40)], id=[1]),
        "stockpiles": gdf([PILE], id=[1], days=[20], **pile_attrs),
    }


def test_a_channel_traced_on_the_dem_is_a_drainage_channel(tmp_path, valley):
    r = analyze(make_site(tmp_path / "s", pile_layers(), {"project": {"plat": "subdivision"}}, dem=valley))
    f = one(r.findings, "stockpile_setback")
    assert f.status == "fail" and f.citation == "B(6)(e)"
    assert "11.0 ft from downslope drainage channel" in f.message and "(traced on the DEM)" in f.message
    assert "setback_reason" in f.message


@pytest.mark.parametrize(
    ("attrs", "status"),
    [
        ({"setback_reason": ["the lot is 60 ft wide"]}, "fail"),  # a reason, no extra BMPs
        ({"extra_bmps": ["a second row of fence"]}, "fail"),  # extra BMPs, no reason
        (
            {"setback_reason": ["the lot is 60 ft wide"], "extra_bmps": ["tarp and a second fence row"]},
            "inspector_decision",
        ),
    ],
)
def test_a_closer_pile_is_the_inspectors_decision_only_with_a_reason_and_extra_bmps(
    tmp_path, valley, attrs, status
):
    r = analyze(
        make_site(tmp_path / "s", pile_layers(**attrs), {"project": {"plat": "subdivision"}}, dem=valley)
    )
    f = one(r.findings, "stockpile_setback")
    assert f.status == status and f.citation == "B(6)(e)"
    if status == "inspector_decision":
        assert (
            "the lot is 60 ft wide" in f.message and "Building Inspector" in f.message and "tarp" in f.message
        )


def test_the_pile_fence_needs_no_end_hooks(tmp_path, valley):
    # the fence runs along the pile's downslope (west) side only, 1 ft out, no ends turned up
    x0, y0, x1, y1 = PILE.bounds
    fence = line((x0 - 1 - X0, y0 - Y0), (x0 - 1 - X0, y1 - Y0))
    layers = {**pile_layers(), "bmps": gdf([fence], id=[1], type=["silt_fence"])}
    r = analyze(make_site(tmp_path / "s", layers, {"project": {"plat": "subdivision"}}, dem=valley))
    assert r.layers["stockpile_fences"]["length_ft"].sum() == pytest.approx(20.0)  # the west side, no hooks
    assert one(r.findings, "stockpile_fence").status == "pass"


def test_a_coarse_dem_does_not_make_a_road_above_a_pile_downslope():
    from geosite.controls import stockpile_setbacks
    from geosite.hydrology import flow_grid
    from geosite.testing import inclined_plane

    dem = inclined_plane(5.0, shape=(20, 20), cell=85.3)  # 26 m cells, falling south
    pile = box(X0 + 800, Y0 - 840, X0 + 840, Y0 - 800)
    road = gpd.GeoDataFrame(
        {"id": [1]}, geometry=[line((700, -774), (950, -774))], crs=CRS
    )  # 26 ft above the pile
    piles = gpd.GeoDataFrame({"id": [1], "days": [10]}, geometry=[pile], crs=CRS)
    (rep,) = stockpile_setbacks(
        piles,
        {"roads": road},
        dem,
        flow_grid(dem),
        min_setback_ft=25.0,
        trace_ft=100.0,
        tolerance_deg=20.0,
        reach_tolerance_ft=5.0,
        hook_ft=0.0,
    ).piles
    assert rep["min_setback_ft"] is None and not rep["violation"]
    assert (
        rep["features"][0]["distance_ft"] == pytest.approx(26.0) and rep["features"][0]["downslope"] is False
    )


def test_belgium_judges_no_setback_and_fails_nothing_for_a_close_pile(tmp_path, valley):
    """Belgium's chapter sets no stockpile setback: no practice judges one (nothing borrowed from
    Grantsburg's 25 ft), and the topic is reported as not specified by this chapter."""
    r = analyze(make_site(tmp_path / "s", pile_layers(), {"jurisdiction": "belgium"}, dem=valley))
    assert by_rule(r.findings, "stockpile_setback") == []
    assert not [f for f in r.findings if f.rule.startswith("stockpile") and f.status == "fail"]
    f = one(r.findings, "stockpile_setback_distance")
    assert f.status == "info" and "not specified by this chapter" in f.message


@pytest.mark.parametrize(
    ("dewatering", "status", "required"),
    [(True, "info", True), (False, "info", False), (None, "not_assessed", None)],
)
def test_b1_dewatering_is_required_where_water_is_pumped(tmp_path, dewatering, status, required):
    project = {"plat": "subdivision"} | ({} if dewatering is None else {"dewatering": dewatering})
    r = analyze(
        make_site(
            tmp_path / "s",
            {"site_boundary": [rect(0, 0, 200, 200)], "disturbance": [rect(10, 10, 50, 50)]},
            {"project": project},
        )
    )
    f = one(r.findings, "dewatering")
    assert f.citation == "B(1)" and f.status == status and f.required is required


def test_the_construction_plan_says_which_controls_are_for_reference(tmp_path, plane):
    """Where the chapter does not apply, the plan still draws the controls, and its legend says they are
    shown for reference, not required (the layers' required column, from the gate)."""
    pymupdf = pytest.importorskip("pymupdf")
    from geosite.maps import render_construction_plan

    folder = make_site(
        tmp_path / "s",
        plane_layers(dist=(300, -700, 50, 59)),
        {"project": {"cut_cy": 10.0, "fill_cy": 10.0}},
        dem=plane,
    )
    r = analyze(folder)
    out = render_construction_plan(r, tmp_path / "plan.pdf", png_dpi=None)
    paths = out if isinstance(out, list) else [tmp_path / "plan.pdf"]
    text = " ".join(page.get_text() for p in paths for page in pymupdf.open(str(p))).replace("\n", " ")
    assert "Tracking pads (stone) (shown for reference: not" in text and "required here)" in text
