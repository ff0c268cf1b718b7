"""A practice is one room (issue 30): each erosion control written once behind one protocol, every
requirement written ``for_each`` feature decided feature by feature by its own conditions, distances that
say what they are measured to and how, applicability never passed where the chapter may apply through a
trigger the profile cannot measure, every outlet given a control or a named stand-in, and line referencing
exact whatever a fence's start, direction or closure.

Numbers by hand: the plane of :func:`geosite.testing.inclined_plane` falls due south at 5 %, so D8 sends
every pile's runoff straight south; a road at 45 degrees below a pile's south-east corner, 20 ft from it
square to the road, lies 20 x sqrt(2) = 28.3 ft below the pile's south edge along the flow.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import geopandas as gpd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Polygon, box

from geosite.controls import fence_coverage, flow_path_distance
from geosite.controls.submitted import gaps_along
from geosite.errors import ProfileError
from geosite.hydrology import flow_grid
from geosite.practices import PRACTICES, registry
from geosite.practices.base import FAMILIES, PAY_UNITS
from geosite.rules import load_profile
from geosite.testing import inclined_plane

PROFILES = Path(__file__).resolve().parents[1] / "geosite" / "rules" / "profiles"
X, Y = 500_000.0, 199_400.0  # lower-left corner of the 300 x 300 grid of 2 ft (inclined_plane)
PILE = box(X + 280, Y + 300, X + 320, Y + 340)  # 40 x 40 ft, south edge at y = 300

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def plane():
    dem = inclined_plane(5.0, shape=(300, 300), cell=2.0)
    return dem, flow_grid(dem)


def grantsburg_with(tmp_path: Path, block: str, add: str) -> Path:
    """Grantsburg's profile with the lines ``add`` after the first line of the requirement whose ``id`` line
    is ``block``, written to ``tmp_path``.
    """
    text = (PROFILES / "grantsburg.toml").read_text()
    at = text.index(block)
    end = text.index("\n", at) + 1
    out = tmp_path / "village.toml"
    out.write_text(text[:end] + add + "\n" + text[end:])
    return out


# ------------------------------------------------------------------------------------- the descriptors


def test_every_practice_describes_itself_once():
    names = [p.name for p in PRACTICES]
    assert len(names) == len(set(names))
    keys = [k for p in PRACTICES for k in p.serves]
    assert len(keys) == len(set(keys))
    layers = [layer.name for p in PRACTICES for layer in p.layers]
    assert len(layers) == len(set(layers))
    for p in PRACTICES:
        assert p.name and p.title and p.family in FAMILIES, p.name
        assert p.pay is None or p.pay.unit in PAY_UNITS, p.name
        for layer in p.layers:
            assert layer.geometry in ("Point", "Polygon", "MultiPolygon", "MultiLineString"), layer.name
            assert "" in layer.cad, layer.name  # every layer has its default CAD look
            for _label, look, _where in layer.rules:
                assert look in p.looks, (p.name, look)  # a legend draws a look the practice declares


def test_every_practice_key_of_the_bundled_profiles_is_served():
    for name in ("grantsburg", "belgium", "newburg", "west_allis"):
        for q in load_profile(name).requirements:
            if q.kind == "practice":
                assert registry.serving(q.practice).name


def test_a_practice_key_no_practice_serves_is_a_profile_error(tmp_path):
    text = (
        (PROFILES / "grantsburg.toml")
        .read_text()
        .replace('practice = "tracking_pad"', 'practice = "traking_pad"')
    )
    (tmp_path / "v.toml").write_text(text)
    import geosite

    with pytest.raises(ProfileError, match="unknown practice 'traking_pad'; did you mean 'tracking_pad'"):
        geosite.load_profile(tmp_path / "v.toml")


def test_an_unregistered_measurement_is_refused():
    from geosite.site import SiteMeasurements

    m = SiteMeasurements()
    m.set("disturbed.area_sqft", 100.0)
    with pytest.raises(KeyError, match="not registered"):
        m.set("disturbed.area_sqf", 100.0)


def test_every_key_the_stages_record_on_a_sample_is_registered(lot7_result):
    from geosite.rules.registry import recorded

    assert [k for k in lot7_result.measurements.values if not recorded(k)] == []


# ------------------------------------------------------------------------------------- distances


def test_flow_path_distance_is_the_drainage_length_not_the_straight_line(plane):
    dem, fg = plane
    c = -20.0 - 20.0 * math.sqrt(2.0)  # y = x + c in the grid's local feet: 20 ft square from the corner
    road = LineString([(X + 250, Y + 250 + c), (X + 400, Y + 400 + c)])
    corner = shapely.Point(X + 320, Y + 300)
    assert road.distance(corner) == pytest.approx(20.0)
    assert PILE.distance(road) == pytest.approx(20.0)
    d = flow_path_distance(PILE, road, dem, fg, trace_ft=100.0, reach_tolerance_ft=1.0)
    # 28.3 ft straight south from the south edge's east end: the paths start on the cells' centres (the last
    # column's 1 ft in from the corner, 29.3 ft above the road), and end within the 1-ft reach of it
    assert 20.0 * math.sqrt(2.0) - 1.5 <= d <= 20.0 * math.sqrt(2.0) + 1.0 + 0.01
    assert d > 25.0  # the 25-ft setback met along the flow, where the straight line says 20 ft
    # a road 20 ft straight south: its drainage length is 20 ft (to within the reach)
    flat = LineString([(X + 200, Y + 280), (X + 400, Y + 280)])
    assert flow_path_distance(PILE, flat, dem, fg, trace_ft=100.0, reach_tolerance_ft=1.0) == pytest.approx(
        20.0, abs=1.01
    )
    # a road upslope (north) of the pile is never reached
    north = LineString([(X + 200, Y + 360), (X + 400, Y + 360)])
    assert flow_path_distance(PILE, north, dem, fg, trace_ft=100.0, reach_tolerance_ft=1.0) == math.inf


# ------------------------------------------------------------------------------------- profiles


def test_not_specified_without_a_kind_is_refused(tmp_path):
    text = (PROFILES / "belgium.toml").read_text()
    text = re.sub(r'(id = "sediment_basin_acreage"\n)kind = "silent"\n', r"\1", text)
    (tmp_path / "b.toml").write_text(text)
    with pytest.raises(ProfileError, match=r"not_specified\[0\]\.kind: missing"):
        load_profile(tmp_path / "b.toml")


def test_old_profile_keys_say_what_replaced_them(tmp_path):
    text = (PROFILES / "grantsburg.toml").read_text() + '\n[practices]\nfilter_fence = "B(6)(c)[3]"\n'
    (tmp_path / "g.toml").write_text(text)
    with pytest.raises(ProfileError, match=r"practices: this table is no longer read: it was replaced by"):
        load_profile(tmp_path / "g.toml")


def test_an_unexpressed_trigger_leaves_applicability_undecided_never_passed(tmp_path):
    from geosite.rules import site_gate

    path = grantsburg_with(
        tmp_path,
        'rule = "subdivision_plat"',
        "",
    )
    text = path.read_text().replace(
        '# "This chapter applies to',
        '[[applicability.triggers]]\nrule = "watercourse_work"\nkind = "unexpressed"\ncitation = "A(8)"\n'
        'text = "any watercourse changed or enlarged"\n\n# "This chapter applies to',
        1,
    )
    path.write_text(text)
    prof = load_profile(path)
    # a site meeting no measured trigger: 100 sq ft disturbed, nothing else
    values = {
        "project.plat": "none",
        "disturbed.area_sqft": 100.0,
        "project.cut_fill_cy": 0.0,
        "roads.work_count": 0,
        "utilities.work_length_ft": 0.0,
        "slopes.steep_disturbed_area_sqft": 0.0,
        "project.authority_superseded": False,
    }
    g = site_gate(prof, values)
    assert g.applies is None
    assert "any watercourse changed or enlarged: not assessed" in g.message
    # without it the same site is plainly outside the chapter
    assert site_gate(load_profile("grantsburg"), values).applies is False


# ------------------------------------------------------------------------------------- line referencing


def _ring(n: int, r: float, start: int, reverse: bool) -> LineString:
    pts = [
        (1000 + r * math.cos(2 * math.pi * k / n), 2000 + r * math.sin(2 * math.pi * k / n)) for k in range(n)
    ]
    pts = pts[start:] + pts[:start]
    if reverse:
        pts = pts[::-1]
    return LineString([*pts, pts[0]])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 40),
    r=st.floats(20.0, 500.0),
    start=st.integers(0, 39),
    shift=st.integers(0, 39),
    reverse=st.booleans(),
)
def test_a_fence_identical_to_a_closed_line_leaves_no_gap(n, r, start, shift, reverse):
    required = _ring(n, r, start % n, False)
    fence = _ring(n, r, shift % n, reverse)
    assert sum(g.length for g in gaps_along(required, fence, 0.5)) == pytest.approx(0.0, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    pts=st.lists(st.tuples(st.floats(0, 1000), st.floats(0, 1000)), min_size=2, max_size=12, unique=True),
    reverse=st.booleans(),
)
def test_a_fence_identical_to_an_open_line_leaves_no_gap(pts, reverse):
    required = LineString(pts)
    if required.length < 1.0:
        return
    fence = LineString(pts[::-1] if reverse else pts)
    assert sum(g.length for g in gaps_along(required, fence, 0.5)) == pytest.approx(0.0, abs=1e-6)


def test_a_ring_fence_covers_a_ring_with_one_gap_measured_exactly():
    required = box(0, 0, 100, 100).exterior  # 400 ft, starting at (100, 0)
    fence = LineString(
        [(0, 30), (0, 0), (100, 0), (100, 100), (0, 100), (0, 70)]
    )  # leaves 40 ft of the west side
    gaps = gaps_along(required, fence, 0.5)
    assert sum(g.length for g in gaps) == pytest.approx(40.0)


def test_fence_coverage_of_a_closed_depression_ring_by_the_same_ring(tmp_path):
    crs = "EPSG:7593"
    ring = Polygon([(X + 100, Y + 100), (X + 200, Y + 110), (X + 190, Y + 220), (X + 90, Y + 200)]).exterior
    need = gpd.GeoDataFrame(
        {"side": ["downslope"], "polygon_id": [1]}, geometry=[LineString(ring.coords)], crs=crs
    )
    rotated = list(ring.coords)[2:-1] + list(ring.coords)[:3]
    fences = gpd.GeoDataFrame(
        {"id": [1], "type": ["silt_fence"]}, geometry=[LineString(rotated[::-1])], crs=crs
    )
    got = fence_coverage(need, fences, tolerance_ft=10.0, reach_ft=50.0)
    assert got.summary["gap_length_ft"] == pytest.approx(0.0) and len(got.gaps) == 0


# ------------------------------------------------------------------------------------- one per-feature engine

CRS = "EPSG:7593"
BIG = box(X + 280, Y + 300, X + 320, Y + 340)  # 40 x 40 ft, 1 ft high: 1,600 / 27 = 59.3 cu yd
SMALL = box(X + 150, Y + 300, X + 160, Y + 310)  # 10 x 10 ft, 1 ft high: 100 / 27 = 3.7 cu yd
#: a plan's bmps layer with nothing at the piles: a tracking pad far from them
ELSEWHERE = gpd.GeoDataFrame(
    {"id": [1], "type": ["tracking_pad"]}, geometry=[box(X + 500, Y + 60, X + 520, Y + 110)], crs=CRS
)


def _piles_site(plane, bmps=None, **pile_cols):
    from geosite.site import site_from_frames

    dem, _fg = plane
    layers = {
        "site_boundary": gpd.GeoDataFrame(geometry=[box(X + 50, Y + 50, X + 550, Y + 550)], crs=CRS),
        "disturbance": gpd.GeoDataFrame(
            {"id": [1]}, geometry=[box(X + 100, Y + 250, X + 400, Y + 450)], crs=CRS
        ),
        "stockpiles": gpd.GeoDataFrame(
            {"id": [1, 2], "days": [45, 45], "height_ft": [1.0, 1.0], **pile_cols},
            geometry=[BIG, SMALL],
            crs=CRS,
        ),
    }
    if bmps is not None:
        layers["bmps"] = bmps
    return site_from_frames(layers, name="piles", jurisdiction="grantsburg", dem=dem)


def _controls(plane, site, profile):
    from geosite.practices import measure_controls
    from geosite.site.measurements import measure_site

    dem, fg = plane
    m = measure_site(site)
    m.set("hydrology.runoff_leaves_site", True)  # the plane drains off the site
    return measure_controls(site, profile, dem, fg, m)


def _fence_findings(res):
    return [f for f in res.findings if f.rule == "stockpile_fence"]


def test_a_pile_under_the_chapters_volume_gets_no_barrier(plane, tmp_path):
    path = grantsburg_with(
        tmp_path,
        'id = "stockpile_fence"',
        'conditions = [{ measure = "volume_cy", op = ">", threshold = 10, unit = "cu yd", '
        'text = "a pile over 10 cu yd" }]',
    )
    res = _controls(plane, _piles_site(plane, bmps=ELSEWHERE), load_profile(path))
    fences = res.layers["stockpile_fences"]
    assert set(fences["pile_id"]) == {1}  # the big pile's fence only
    found = {tuple(f.feature_ids): f for f in _fence_findings(res)}
    assert found[(2,)].status == "info" and "(3.70 cu yd; threshold > 10 cu yd)" in found[(2,)].message
    assert found[(1,)].status == "fail"  # the big pile has none


def test_a_condition_that_never_holds_fails_nothing(plane, tmp_path):
    path = grantsburg_with(
        tmp_path,
        'id = "stockpile_fence"',
        'conditions = [{ measure = "volume_cy", op = ">", threshold = 1e9, unit = "cu yd", text = "never" }]',
    )
    res = _controls(plane, _piles_site(plane, bmps=ELSEWHERE), load_profile(path))
    assert [f for f in _fence_findings(res) if f.status == "fail"] == []
    assert len(res.layers["stockpile_fences"]) == 0


def test_a_pile_already_stabilized_gets_no_barrier_where_the_chapter_says_so(plane, tmp_path):
    path = grantsburg_with(
        tmp_path,
        'id = "stockpile_fence"',
        'conditions = [{ measure = "stabilized", op = "==", threshold = false, '
        'text = "a pile not stabilized" }]',
    )
    site = _piles_site(plane, bmps=ELSEWHERE, stabilization=["tarped", None])
    res = _controls(plane, site, load_profile(path))
    assert set(res.layers["stockpile_fences"]["pile_id"]) == {2}


def test_a_tagged_fence_off_the_downslope_side_is_named_not_missed(plane):
    north = LineString([(X + 280, Y + 341), (X + 320, Y + 341)])  # along the upslope side of the big pile
    south = LineString([(X + 150, Y + 299), (X + 160, Y + 299)])  # the small pile's downslope side
    bmps = gpd.GeoDataFrame(
        {"id": [7, 8], "type": ["silt_fence", "silt_fence"], "pile_id": [1, 2]},
        geometry=[north, south],
        crs=CRS,
    )
    res = _controls(plane, _piles_site(plane, bmps=bmps), load_profile("grantsburg"))
    (bad,) = [f for f in _fence_findings(res) if f.status == "fail"]
    assert bad.feature_ids == [1]
    assert (
        "bmps 7, tied to it by its pile_id, do not run along its downslope side: 40 ft of the 40 ft"
        in bad.message
    )


def test_a_setback_measured_along_the_flow_path(plane, tmp_path):
    c = -20.0 - 20.0 * math.sqrt(2.0)
    road = LineString([(X + 100, Y + 100 + c), (X + 500, Y + 500 + c)])  # 20 ft from the corner, 28 ft below
    roads = gpd.GeoDataFrame({"id": [5], "status": ["existing"]}, geometry=[road], crs=CRS)
    from geosite.site import site_from_frames

    dem, _ = plane
    site = site_from_frames(
        {
            "site_boundary": gpd.GeoDataFrame(geometry=[box(X + 50, Y + 50, X + 550, Y + 550)], crs=CRS),
            "disturbance": gpd.GeoDataFrame(
                {"id": [1]}, geometry=[box(X + 250, Y + 290, X + 330, Y + 450)], crs=CRS
            ),
            "stockpiles": gpd.GeoDataFrame({"id": [1], "days": [10]}, geometry=[BIG], crs=CRS),
            "roads": roads,
        },
        name="setback",
        jurisdiction="grantsburg",
        dem=dem,
    )
    straight = [
        f
        for f in _controls(plane, site, load_profile("grantsburg")).findings
        if f.rule == "stockpile_setback"
    ]
    assert straight[0].status == "fail" and "20.0 ft from downslope roads 5" in straight[0].message
    text = (
        (PROFILES / "grantsburg.toml")
        .read_text()
        .replace("downslope_only = true,", 'downslope_only = true, along = "flow_path",')
    )
    (tmp_path / "flow.toml").write_text(text)
    flow = [
        f
        for f in _controls(plane, site, load_profile(tmp_path / "flow.toml")).findings
        if f.rule == "stockpile_setback"
    ]
    assert flow[0].status == "pass" and flow[0].values["min_setback_ft"] > 25.0


# ------------------------------------------------------------------------------------- every outlet a control


def test_an_outlet_beyond_the_largest_basin_gets_a_named_stand_in_for_the_inspector(tmp_path):
    """A village whose trap is for 1 acre, its basin for 2 acres at most, with basins the only route from 1
    acre disturbed: the 2.75 acres disturbed on a plane drain with the land above them through one outlet of
    3.44 acres. The
    plan proposes a basin there saying what stands in; ``check`` of that plan leaves it to the inspector.
    """
    from sitebuilder import make_site, rect

    from geosite.pipeline import analyze, write_outputs
    from geosite.review.check import check_submission
    from geosite.site import load_site

    text = (PROFILES / "grantsburg.toml").read_text()
    text = text.replace(
        '{ value = 100.0, source = "DNR technical standard 1064',
        '{ value = 2.0, source = "a test village: DNR technical standard 1064',
        1,
    )
    text = text.replace(
        'op = ">=", threshold = 10.0, unit = "acres", text = "10 acres or more',
        'op = ">=", threshold = 1.0, unit = "acres", text = "1 acre or more',
        1,
    )
    text = text.replace(
        'op = "<", threshold = 10.0, unit = "acres", text = "less than 10 acres',
        'op = "<", threshold = 1.0, unit = "acres", text = "less than 1 acre',
    )
    text = text.replace(
        '{ value = 5.0, source = "DNR technical standard 1063',
        '{ value = 1.0, source = "a test village: DNR technical standard 1063',
        1,
    )
    village = tmp_path / "village.toml"
    village.write_text(text)
    dem = inclined_plane(2.0, shape=(300, 300), cell=2.0)
    folder = make_site(
        tmp_path / "site",
        {"site_boundary": [rect(20, -580, 560, 560)], "disturbance": [rect(100, -500, 300, 400)]},
        {
            "project": {
                "start": __import__("datetime").date(2027, 5, 3),
                "end": __import__("datetime").date(2027, 9, 1),
            }
        },
        dem=dem,
    )
    result = analyze(load_site(folder, jurisdiction=str(village)))
    (row,) = [r for r in result.controls.proposed if r["type"] == "sediment_basin"]
    assert "more than one sediment basin" in row["stand_in_for"] and row["drainage_acres"] > 2.0
    write_outputs(result, tmp_path / "out", maps=False)
    check = check_submission(tmp_path / "out" / "plan", jurisdiction=str(village))
    (f,) = [f for f in check.findings if f.rule == "sediment_basin_submitted"]
    assert f.status == "inspector_decision", f.message
    assert "more than one sediment basin" in f.message


#: where a practice's name is written outside its own module, and why: the same word naming another thing
#: (a profile table, a declared key, a pile's attribute, a permit's schedule) or a function's name
NAME_ELSEWHERE = {
    ("geosite/__init__.py", "filter_fence"): "the lazy table's function geosite.controls.filter_fence",
    ("geosite/controls/__init__.py", "diversions"): "__all__: the function",
    ("geosite/controls/__init__.py", "filter_fence"): "__all__: the function",
    ("geosite/controls/__init__.py", "inlet_protection"): "__all__: the function",
    ("geosite/controls/__init__.py", "tracking_pads"): "__all__: the function",
    ("geosite/controls/fences.py", "filter_fence"): "__all__: the function",
    ("geosite/controls/slope_length.py", "slope_length_excess"): "__all__: the function",
    ("geosite/controls/submitted.py", "slope_length_excess"): "__all__: the function",
    ("geosite/controls/__init__.py", "slope_length_excess"): "__all__: the function",
    ("geosite/controls/__init__.py", "stockpile_setbacks"): "__all__: the function",
    ("geosite/__init__.py", "stockpile_setbacks"): "the lazy table's function",
    ("geosite/soil_loss/stage.py", "diversion"): "the practice family, not the practice",
    ("geosite/controls/setbacks.py", "stabilization"): "a pile's own stabilization attribute",
    ("geosite/maps/provisions.py", "stabilization"): "the profile's [stabilization] table, [declared] key",
    ("geosite/plan_folder.py", "stabilization"): "the profile's [stabilization] table, [declared] key",
    ("geosite/review/declared.py", "stabilization"): "the [declared] key",
    ("geosite/review/declared.py", "bmp_removal"): "the [declared] key",
    ("geosite/review/html.py", "filter_fence"): "report.json's block of the fence requirement",
    ("geosite/rules/profile.py", "stabilization"): "the profile's [stabilization] table",
    ("geosite/rules/registry.py", "dewatering"): "the [project] flag",
    ("geosite/rules/registry.py", "stabilization"): "the [declared] key",
    ("geosite/rules/registry.py", "bmp_removal"): "the [declared] key",
    ("geosite/rules/schema.py", "stabilization"): "the profile's [stabilization] table",
    ("geosite/schedule/deadlines.py", "stabilization"): "the permit schedule's kind of deadline",
    ("geosite/schedule/table.py", "stabilization"): "the permit schedule's kind of deadline",
    ("geosite/site/site_toml.py", "dewatering"): "the [project] flag",
    ("geosite/controls/fences.py", "sediment_trap"): (
        "the plan's traps as a layer the fence engine keeps rows off (BUILT_LAYERS, ROW_OBSTACLE_LAYERS): "
        "the engine sits below the practices and reads layers by name"
    ),
    ("geosite/soil_loss/cover.py", "erosion_mat"): "the cover kind (its C factor), not the practice",
}


def test_a_practice_is_named_only_in_its_own_module():
    """A practice's name and its layers' names (``silt_fence``, ``filter_fence``) are written in its own
    module of geosite/practices and nowhere else in geosite (every other part reads them from the
    descriptor), but where the same word names another thing (:data:`NAME_ELSEWHERE`, each with why).
    """
    words = {p.name for p in registry.PRACTICES} | {
        layer.name for p in registry.PRACTICES for layer in p.layers
    }
    found = set()
    for path in sorted((ROOT / "geosite").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("geosite/practices/"):
            continue
        text = path.read_text(encoding="utf-8")
        for w in words:
            if re.search(rf"[\"']{w}[\"']", text):
                found.add((rel, w))
    assert found <= set(NAME_ELSEWHERE), sorted(found - set(NAME_ELSEWHERE))
