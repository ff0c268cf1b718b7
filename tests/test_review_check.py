"""geosite check on submissions built on a tilted plane: a clean one (every control placed right, full
plan content) gives exit 0 and no failed finding; each seeded defect alone gives exit 1 with exactly
that defect, its citation and its place.

The plane falls south at 4 %; the DEM (4 ft cells) spans x 0..800, y -800..0 (sitebuilder offsets).
Site 400 x 400 ft; disturbance 240 x 240 ft = 57,600 sq ft = 1.32 acres (a full plan, fences not basins).
The land above the disturbance (280 ft of it, 240 ft wide: 67,200 sq ft of sheetflow) crosses 240 ft of
bare disturbed ground at 4 %: TR-55 with P = 4.1 in gives 0.73 ft/s across it, so B(6)(a) wants a
diversion along its upslope edge; the clean plan has one, interior fence rows every 75 ft (DNR 1056's
longest slope above a fence at 2-5 %), and dates for every activity and BMP (A(3)(d)).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import geopandas as gpd
import pytest
import shapely
from click.testing import CliRunner
from shapely.geometry import Polygon
from sitebuilder import X0, Y0, line, make_site, point, rect, write_map

from geosite.cli import cli
from geosite.testing import inclined_plane

CRS = "EPSG:7593"
SLOPE = 4.0
DIST = (280, -520, 240, 240)  # x, y, w, h of the disturbance
PILE = (540, -300, 30, 30)  # east of the disturbance, inside the site


def gdf(geoms, **cols):
    return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=CRS)


def contours():
    # z = 900 + 0.04 y (y <= 0, ft): a 2-ft contour every 50 ft
    levels = list(range(868, 900, 2))
    return gdf(
        [line((0, (z - 900) / 0.04), (800, (z - 900) / 0.04)) for z in levels],
        elevation_ft=[float(z) for z in levels],
    )


INSTALL = "2027-05-03"


def bmp_frame(geoms, ids, types):
    """A bmps layer whose every feature has its install date (A(3)(d))."""
    return gdf(geoms, id=ids, type=types, install=[INSTALL] * len(ids))


def clean_layers() -> dict:
    x, y, w, h = DIST
    px, py, pw, ph = PILE
    return {
        "site_boundary": gdf([rect(200, -600, 400, 400)], id=[1]),
        "disturbance": gdf(
            [rect(*DIST)],
            id=[1],
            phase=["all"],
            start=["2027-05-03"],
            end=["2027-10-29"],
            stabilized=["2027-11-03"],
        ),  # B(6)(c)[1]: within 7 days of the end
        "stockpiles": gdf([rect(*PILE)], id=[1], days=[20]),
        "streams": gdf([line((0, -700), (800, -700))], id=[1], name=["Wood Creek"]),
        "floodplain": gdf([rect(0, -780, 800, 160)], id=[1], zone=["100yr"]),
        "soils": gdf([rect(0, -800, 800, 800)], id=[1], musym=["BuB"]),
        "vegetation": gdf([rect(0, -800, 800, 800)], id=[1], cover=["short_grass"]),
        "structures": gdf([rect(380, -420, 40, 40)], id=[1], status=["proposed"]),
        "storm_inlets": gdf([point(400, -560)], id=[1]),
        "roads": gdf([line((0, -610), (800, -610))], id=[1], name=["Birch St"], status=["existing"]),
        "access_drives": gdf([line((450, -610), (450, y))], id=[1]),
        "contours": contours(),
        "bmps": bmp_frame(
            [
                line((x, y - 1), (x + w, y - 1)),  # downslope (south) edge
                line((x - 1, y), (x - 1, y + h)),  # west sideslope
                line((x + w + 1, y), (x + w + 1, y + h)),  # east sideslope
                line(
                    (px - 1, py + 11), (px - 1, py - 1), (px + pw + 1, py - 1), (px + pw + 1, py + 11)
                ),  # pile fence with hooks
                rect(397, -563, 6, 6),  # inlet protection
                rect(444, -610, 12, 55),  # tracking pad, 55 ft
                line((x, y + h + 5), (x + w, y + h + 5)),  # diversion above the upslope (north) edge, B(6)(a)
                *[
                    line((x, y + d), (x + w, y + d)) for d in (75, 150, 225)
                ],  # interior rows: DNR 1056, 75 ft at 4 %
            ],
            [1, 2, 3, 4, 5, 6, 7, 11, 12, 13],
            [
                "silt_fence",
                "silt_fence",
                "silt_fence",
                "silt_fence",
                "inlet_protection",
                "tracking_pad",
                "diversion",
            ]
            + ["silt_fence"] * 3,
        ),
    }


def clean_conf(**declared) -> dict:
    d = {
        "plan_type": "full",
        "disturbed_area_sqft": 57_600.0,
        "final_conditions": "Lawn and a house; drive paved (sheet C-3)",
        "maintenance": "Inspect weekly and after 0.5 in of rain; repair fences within 24 h",
        "stabilization": "Seed and mulch within 7 days of final grade; temporary seed on the pile",
        "submitted_map": "map.tif",
        "map_dpi": 50,
        **declared,
    }
    return {
        "crs": CRS,
        "applicant": {"name": "A. Applicant", "address": "1 Main St, Grantsburg WI", "phone": "715-555-0100"},
        "maintainer": {"name": "M. Keeper", "address": "2 Oak St, Grantsburg WI", "phone": "715-555-0101"},
        "project": {
            "start": "2027-05-03",
            "end": "2027-10-29",
            "dewatering": False,
            "cut_cy": 300.0,
            "fill_cy": 250.0,
        },
        "declared": {k: v for k, v in d.items() if v is not None},
    }


@pytest.fixture(scope="module")
def dem():
    return inclined_plane(SLOPE, shape=(200, 200), cell=4.0)


def run_check(tmp_path, dem, layers=None, conf=None, *args):
    (tmp_path / "sub").mkdir(parents=True, exist_ok=True)
    write_map(tmp_path / "sub" / "map.tif", 2.0, 50)  # the existing site map, 100 ft to the inch (A(1))
    folder = make_site(
        tmp_path / "sub", layers if layers is not None else clean_layers(), conf or clean_conf(), dem=dem
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(out), "--no-html", *args])
    data = json.loads((out / "findings.json").read_text()) if (out / "findings.json").exists() else None
    if data is not None:  # issue 33's rules for people hold on every built site checked (tests/for_people.py)
        from for_people import finding_problems

        assert finding_problems(data["findings"], {}) == []
    return res, data, out


def fails(data):
    return [f for f in data["findings"] if f["status"] == "fail"]


def finding_geoms(out):
    """The findings with a place: findings.gpkg's layers by geometry type (findings_points, _lines,
    _polygons) together."""
    import pandas as pd

    parts = [
        gpd.read_file(out / "findings.gpkg", layer=f"findings_{k}") for k in ("points", "lines", "polygons")
    ]
    both = gpd.GeoDataFrame(pd.concat(parts, ignore_index=True), geometry="geometry", crs=parts[0].crs)
    # the layers are Multi*: a one-part geometry back as the part the finding had
    both["geometry"] = [g.geoms[0] if len(getattr(g, "geoms", ())) == 1 else g for g in both.geometry]
    return both


def test_clean_submission_passes(tmp_path, dem):
    res, data, out = run_check(tmp_path, dem)
    assert res.exit_code == 0, (res.output, fails(data) if data else None)
    assert fails(data) == []
    by_rule = {f["rule"]: f for f in data["findings"]}
    # the things the plan must get right are positively passed, not just absent
    for rule in (
        "filter_fence_submitted",
        "stockpile_setback",
        "stockpile_fence",
        "inlet_protection_submitted",
        "tracking_pad",
        "plan_type_submitted",
        "declared_disturbed_area",
        "plan_content.full.A_1_i.contours",
        "plan_content.full.A_1_j",
        "plan_content.full.A_3_a",
    ):
        assert by_rule[rule]["status"] == "pass", by_rule[rule]
    assert data["verdict"] == "pass" and data["plan_type_required"] == "full"
    # items data cannot show are "not assessed" with what would settle them, never a silent pass
    na = [f for f in data["findings"] if f["status"] == "not_assessed"]
    assert all(f["settle"] for f in na)
    assert (out / "findings.md").read_text().count("## ") >= 2


def test_pile_18ft_upslope_of_creek(tmp_path, dem):
    layers = clean_layers()
    px, py, pw, _ = PILE
    creek = line((px - 10, py - 18), (600, py - 18))  # 18 ft below the pile's downslope (south) edge
    layers["streams"] = gdf([line((0, -700), (800, -700)), creek], id=[1, 2], name=["Wood Creek", "Mill Run"])
    res, data, out = run_check(tmp_path, dem, layers)
    assert res.exit_code == 1
    (f,) = fails(data)
    assert f["rule"] == "stockpile_setback" and f["citation"] == "B(6)(e)"
    assert "18.0 ft from downslope Mill Run" in f["message"]  # the stream by its name
    g = finding_geoms(out).set_index("finding_id").loc[f["id"], "geometry"]
    # a line from the pile's south edge down to the creek, 18 ft long
    assert g.length == pytest.approx(18.0, abs=0.5)
    assert g.distance(rect(*PILE)) < 0.5 and g.distance(creek) < 0.5


def test_140ft_of_downslope_fence_missing(tmp_path, dem):
    layers = clean_layers()
    x, y, w, _ = DIST
    bmps = layers["bmps"]
    # the south fence now stops 50 ft from its west end and resumes 140 ft farther on
    south = [line((x, y - 1), (x + 50, y - 1)), line((x + 190, y - 1), (x + w, y - 1))]
    layers["bmps"] = bmp_frame(
        south + list(bmps.geometry.iloc[1:]),
        [1, 8] + list(bmps["id"].iloc[1:]),
        ["silt_fence", "silt_fence"] + list(bmps["type"].iloc[1:]),
    )
    res, data, out = run_check(tmp_path, dem, layers)
    assert res.exit_code == 1
    (f,) = fails(data)
    assert f["rule"] == "filter_fence_submitted" and f["citation"] == "B(6)(c)[3]"
    assert f["values"]["gap_length_ft"] == pytest.approx(140.0, abs=2.0)
    assert "140 ft downslope" in f["message"]
    g = finding_geoms(out).set_index("finding_id").loc[f["id"], "geometry"]
    assert g.length == pytest.approx(140.0, abs=2.0)
    xs = [c[0] - X0 for c in g.coords]
    assert min(xs) == pytest.approx(x + 50, abs=2.0) and max(xs) == pytest.approx(x + 190, abs=2.0)
    assert all(abs(c[1] - (Y0 + y)) < 2.0 for c in g.coords)  # on the south edge


def test_plan_statement_for_13_acre_site(tmp_path, dem):
    res, data, out = run_check(tmp_path, dem, conf=clean_conf(plan_type="statement"))
    assert res.exit_code == 1
    (f,) = fails(data)
    assert f["rule"] == "plan_type_submitted" and f["citation"] == "A"
    assert f["section"] == "Control plan, review and permits"
    assert "1.32 acres" in f["message"] and "statement" in f["message"]
    g = finding_geoms(out).set_index("finding_id").loc[f["id"], "geometry"]
    assert g.area == pytest.approx(57_600.0)


def bowtie_layers():
    layers = clean_layers()
    tie = Polygon([(X0 + 300, Y0 - 400), (X0 + 340, Y0 - 360), (X0 + 340, Y0 - 400), (X0 + 300, Y0 - 360)])
    layers["disturbance"] = gdf(
        [rect(*DIST), tie], id=[1, 2], phase=["all", "pad"], start=["2027-05-03"] * 2, end=["2027-10-29"] * 2
    )
    return layers, tie


def test_self_intersecting_disturbance_is_bad_input(tmp_path, dem):
    layers, _ = bowtie_layers()
    res, data, _out = run_check(tmp_path, dem, layers)
    assert res.exit_code == 2 and data is None
    assert "disturbance" in res.output and "Self-intersection" in res.output and "--make-valid" in res.output


def test_self_intersecting_disturbance_repaired_is_a_finding(tmp_path, dem):
    layers, tie = bowtie_layers()
    res, data, out = run_check(tmp_path, dem, layers, None, "--make-valid")
    assert res.exit_code == 1
    (f,) = fails(data)
    assert (
        f["rule"] == "geometry.invalid_repaired" and f["layer"] == "disturbance" and f["feature_ids"] == [2]
    )
    assert f["citation"] == "A(3)(a)" and "Self-intersection" in f["message"]
    g = finding_geoms(out).set_index("finding_id").loc[f["id"], "geometry"]
    assert g.centroid.distance(shapely.Point(X0 + 320, Y0 - 380)) < 1.0


def test_missing_contour_layer(tmp_path, dem):
    layers = clean_layers()
    del layers["contours"]
    res, data, _out = run_check(tmp_path, dem, layers)
    assert res.exit_code == 1
    (f,) = fails(data)
    assert f["rule"] == "plan_content.full.A_1_i.contours" and f["citation"] == "A(1)(i)"
    assert "no contours layer" in f["message"]


def test_contours_too_coarse(tmp_path, dem):
    layers = clean_layers()
    c = contours()
    layers["contours"] = c[c["elevation_ft"] % 10 == 0]  # 10-ft interval
    res, data, _out = run_check(tmp_path, dem, layers)
    (f,) = fails(data)
    assert f["citation"] == "A(1)(i)" and f["values"]["interval_ft"] == 10.0


def test_declared_area_off_by_more_than_5_pct(tmp_path, dem):
    res, data, _out = run_check(tmp_path, dem, conf=clean_conf(disturbed_area_sqft=50_000.0))
    assert res.exit_code == 1
    (f,) = fails(data)
    assert f["rule"] == "declared_disturbed_area" and f["citation"] == "A(3)(a)"
    assert f["values"]["difference_pct"] == pytest.approx((50_000 - 57_600) / 57_600 * 100)


def test_missing_maintainer_phone(tmp_path, dem):
    conf = clean_conf()
    conf["maintainer"] = {"name": "M. Keeper", "address": "2 Oak St"}
    res, data, _out = run_check(tmp_path, dem, conf=conf)
    (f,) = fails(data)
    assert f["citation"] == "A(1)(j)" and "maintainer phone" in f["message"]


def test_bad_declared_table_is_bad_input(tmp_path, dem):
    res, data, _ = run_check(tmp_path, dem, conf=clean_conf(plan_type="sketch", colour="red"))
    assert res.exit_code == 2 and data is None
    assert "plan_type" in res.output and "'colour' is not a declared field" in res.output


def test_pile_closer_with_reason_and_extra_bmps_is_the_inspectors_decision(tmp_path, dem):
    # B(6)(e): 25 ft "wherever possible"; the plan says why not and what more it does: neither a pass nor
    # a fail, the Building Inspector's decision. The check's verdict says so and exits 0 (nothing fails).
    layers = clean_layers()
    px, py, pw, _ = PILE
    layers["streams"] = gdf(
        [line((0, -700), (800, -700)), line((px - 10, py - 18), (600, py - 18))],
        id=[1, 2],
        name=["Wood Creek", "Mill Run"],
    )
    layers["stockpiles"] = gdf(
        [rect(*PILE)],
        id=[1],
        days=[20],
        setback_reason=["the pad fills the lot"],
        extra_bmps=["a second fence row and a tarp"],
    )
    res, data, out = run_check(tmp_path, dem, layers)
    assert res.exit_code == 0 and data["verdict"] == "inspector_decision", fails(data)
    (f,) = [f for f in data["findings"] if f["status"] == "inspector_decision"]
    assert f["rule"] == "stockpile_setback" and f["citation"] == "B(6)(e)" and "18.0 ft" in f["message"]
    md = (out / "findings.md").read_text()
    assert (
        "## For the inspector's decision" in md and "**INSPECTOR DECISION** B(6)(e)" in md
    )  # findings.md escapes _


def test_fence_rows_too_far_apart_for_dnr_1056(tmp_path, dem):
    # without the interior row 150 ft up, the slope above the row at 75 ft is 150 ft long where DNR 1056
    # allows 75 at 4 %: twice the table's length on the upper half of the strip. (A fence line takes the
    # cells within 3/4 of a cell of it, so the length measured is short by up to a cell and a half: 6 ft.)
    layers = clean_layers()
    b = layers["bmps"]
    layers["bmps"] = b[b["id"] != 12].reset_index(drop=True)
    res, data, _out = run_check(tmp_path, dem, layers)
    (f,) = fails(data)
    assert f["rule"] == "filter_fence_slope_length" and f["citation"] == "Design criteria (DNR 1056)"
    assert f["values"]["max_ratio"] == pytest.approx(2.0, abs=0.08)
    # over the limit: the upper 75 ft of the 240-ft strip, but above the 40-ft-wide proposed house (y -420 to
    # -380), where the slope runs down to the house (no slope length across a structure): only what lies more
    # than 75 ft above it, the top 10 ft of the band
    assert f["values"]["excess_sqft"] == pytest.approx(240 * 75 - 40 * (75 - 10), rel=0.1)


def test_a3d_needs_a_date_for_each_bmp_installation(tmp_path, dem):
    layers = clean_layers()
    layers["bmps"].loc[layers["bmps"]["id"] == 5, "install"] = None  # the inlet protection: no date
    res, data, _out = run_check(tmp_path, dem, layers)
    (f,) = fails(data)
    assert f["rule"] == "plan_content.full.A_3_d.schedule" and f["citation"] == "A(3)(d)"
    assert (
        "storm drain inlet protection C5 without an install date" in f["message"]
        and "project" in f["message"]
    )


@pytest.mark.parametrize(("surety", "status"), [(None, "info"), ("Letter of credit, $6,000", "pass")])
def test_d2_surety_is_a_condition_of_the_permit(tmp_path, dem, surety, status):
    res, data, _out = run_check(tmp_path, dem, conf=clean_conf(surety=surety))
    assert res.exit_code == 0
    f = next(f for f in data["findings"] if f["rule"] == "permit_surety")
    assert f["citation"] == "D(2)" and f["status"] == status and "shall require" in f["message"]
    hold = next(f for f in data["findings"] if f["rule"] == "permit_before_building_permit")
    assert hold["citation"] == "C(3)" and hold["status"] == "info"


@pytest.mark.parametrize(
    ("after", "status"), [(None, "not_assessed"), ("graded to drain south-east", "pass")]
)
def test_statement_b2_needs_the_slopes_after_development(tmp_path, dem, after, status):
    layers = clean_layers()
    layers["disturbance"] = gdf(
        [rect(280, -520, 150, 150)], id=[1], phase=["all"], start=["2027-05-03"], end=["2027-10-29"]
    )
    res, data, _out = run_check(
        tmp_path,
        dem,
        layers,
        clean_conf(plan_type="statement", disturbed_area_sqft=22_500.0, slopes_after=after),
    )
    f = next(f for f in data["findings"] if f["rule"] == "plan_content.statement.B_2.slopes")
    assert f["citation"] == "B(2)" and f["status"] == status
    assert "before: derived from the submitted DEM" in f["message"]
    if status == "not_assessed":
        assert "slopes_after" in f["settle"] and "[dem] proposed" in f["settle"]


def _side_fences_hooked_down(layers):
    """The clean plan with each side fence's top end turned 10 ft back down the 4 % slope, out of the
    site's side (a J-hook drawn the wrong way): its end falls 0.28 ft where the ground climbs 0.40 ft."""
    x, y, w, h = DIST
    bmps = layers["bmps"].copy()
    geoms = list(bmps.geometry)
    geoms[1] = line((x - 1, y), (x - 1, y + h), (x - 8, y + h - 7))
    geoms[2] = line((x + w + 1, y), (x + w + 1, y + h), (x + w + 8, y + h - 7))
    layers["bmps"] = bmps.set_geometry(geoms)
    return layers


def test_fence_ends_turned_down_the_slope_fail_dnr_1056(tmp_path, dem):
    res, data, _out = run_check(tmp_path, dem, _side_fences_hooked_down(clean_layers()))
    assert res.exit_code == 1
    (f,) = fails(data)
    assert f["rule"] == "filter_fence_submitted"
    assert "2 of 2 open fence ends are not turned upslope (DNR 1056" in f["message"]
    # a fall said as a fall, the place as a reader finds it on the sheet's grid
    assert "falls 0.28 ft where the ground climbs 0.40 ft" in f["message"]
    assert "rises -" not in f["message"] and re.search(r"E \d+, N -?\d+ \(US ft\)", f["message"])


def test_fence_ends_are_not_judged_where_the_profile_asks_for_no_hooks(tmp_path, dem):
    """The side of the threshold where the reading does not apply: a profile whose fence practice asks
    for no hooks (hooks = false) fails nothing for the same ends."""
    from geosite.rules import load_profile

    text = Path(load_profile("grantsburg").path).read_text()
    start = text.index('id = "filter_fence"')
    end = text.index("[[requirements]]", start)
    assert text[start:end].count("params = { hooks = true }") == 1
    custom = tmp_path / "no_hooks.toml"
    custom.write_text(text[:start] + text[start:end].replace("hooks = true", "hooks = false") + text[end:])
    layers = _side_fences_hooked_down(clean_layers())
    res, data, _out = run_check(tmp_path, dem, layers, None, "--jurisdiction", str(custom))
    assert res.exit_code == 0, fails(data)
    (f,) = [f for f in data["findings"] if f["rule"] == "filter_fence_submitted"]
    assert f["status"] == "pass" and "turned upslope" not in f["message"]
