"""measure_controls on a plane site: submitted BMPs against the required controls, basin, inlets,
tracking, Belgium, DXF export read back by GDAL."""

import geopandas as gpd
import pyogrio
import pytest
from shapely.geometry import LineString, Point, box

from geosite.hydrology import flow_grid
from geosite.practices import measure_controls
from geosite.rules.profile import load_profile
from geosite.site import site_from_frames
from geosite.site.measurements import measure_site
from geosite.testing import inclined_plane

X, Y = 500_000.0, 199_400.0
CRS = "EPSG:7593"


def gdf(geoms, **cols):
    return gpd.GeoDataFrame(cols, geometry=geoms, crs=CRS)


@pytest.fixture(scope="module")
def plane():
    dem = inclined_plane(1.0, shape=(300, 300), cell=2.0)  # falls south, 1 %
    return dem, flow_grid(dem)


def _site(dem, jurisdiction="grantsburg", **extra):
    layers = {
        "site_boundary": gdf([box(X + 50, Y + 50, X + 550, Y + 550)]),
        "disturbance": gdf([box(X + 200, Y + 250, X + 400, Y + 350)], id=[1]),  # 200 x 100 ft
        **extra,
    }
    return site_from_frames(layers, name="t", jurisdiction=jurisdiction, dem=dem)


def test_fence_gaps_inlets_tracking(plane):
    dem, fg = plane
    bmps = gdf(
        [
            LineString([(X + 200, Y + 249), (X + 400, Y + 249)]),  # the whole downslope edge, 1 ft out
            LineString([(X + 401, Y + 250), (X + 401, Y + 310)]),  # 60 of the east side's 100 ft
            Point(X + 303, Y + 200),  # protection 3 ft from inlet 2
        ],
        type=["silt_fence", "silt_fence", "inlet_protection"],
    )
    site = _site(
        dem,
        bmps=bmps,
        storm_inlets=gdf(
            [Point(X + 301, Y + 301), Point(X + 301, Y + 201), Point(X + 101, Y + 401)], id=[1, 2, 3]
        ),
        roads=gdf([LineString([(X, Y + 100), (X + 600, Y + 100)])], id=[9]),
        access_drives=gdf([LineString([(X + 300, Y + 100), (X + 300, Y + 250)])], id=[4]),
    )
    m = measure_site(site)
    m.set("hydrology.runoff_leaves_site", True)  # as the hydrology stage finds: the plane drains off the site
    res = measure_controls(site, load_profile("grantsburg"), dem, fg, m, step=lambda s: None)
    ff = res.report["filter_fence"]
    assert (
        ff["required"]
        and ff["downslope_length_ft"] == pytest.approx(200)
        and ff["sideslope_length_ft"] == pytest.approx(200)
    )
    cov = res.report["submitted_controls"]["filter_fence"]
    assert cov["required_length_ft"] == pytest.approx(400)
    # a stretch is covered where a submitted fence runs alongside it (within 10 ft), measured along the
    # required line: the bottom fence covers the bottom edge only, not the west side it merely touches;
    # the east fence covers y 250-310 of the east side. Gaps: the west side (100) + 40 of the east side.
    gap = 100 + (350 - 310)
    assert cov["gap_length_ft"] == pytest.approx(gap, abs=0.01)
    assert res.layers["fence_gaps"]["length_ft"].sum() == pytest.approx(gap, abs=0.01)
    f = {x.rule: x for x in res.findings}
    assert (
        f["filter_fence_submitted"].status == "fail" and f["filter_fence_submitted"].citation == "B(6)(c)[3]"
    )
    assert "140 ft" in f["filter_fence_submitted"].message
    assert "140 ft sideslope" in f["filter_fence_submitted"].message
    # inlets: 1 inside, 2 straight downslope (south), 3 north-west and upslope but on the site: B(4) says
    # "all storm drain inlets", so 3 needs protection too
    inl = {i["id"]: i for i in res.report["inlets"]}
    assert (
        inl[1]["in_disturbed"] and inl[2]["downslope_of_disturbed"] and not inl[3]["downslope_of_disturbed"]
    )
    assert inl[3]["on_site"] and inl[3]["protection_required"] is True
    assert inl[2]["protection_submitted"] and not inl[1]["protection_submitted"]
    assert f["inlet_protection_submitted"].status == "fail" and f[
        "inlet_protection_submitted"
    ].feature_ids == [1, 3]
    # inlet 2's drainage: the largest accumulation within one cell of it: the cell just below it
    # (y 198-200) collects its 2-ft column from the top of the grid (y 600): 402 x 2 = 804 sq ft
    assert inl[2]["drainage_area_acres"] * 43_560 == pytest.approx(804.0)
    assert not inl[2]["trap_or_basin_required"]
    # tracking: drive 4 meets road 9 at (300, 100), no pad submitted
    ent = res.report["tracking"]["entrances"]
    assert len(ent) == 1 and ent[0]["road_id"] == 9 and not ent[0]["submitted_pad"]
    assert res.layers["tracking_pads"]["length_ft"].iloc[0] == pytest.approx(50.0)
    assert f["tracking_pad"].status == "fail" and f["tracking_pad"].citation == "B(3)"
    for name, layer in res.layers.items():
        assert layer.crs.equals(site.crs), name


def test_basin_sized_from_the_whole_outlet(plane):
    """B(6)(c)[2]: the trap or basin is sized from the whole disturbed area's drainage where its runoff
    leaves, not from one outlet cell: on the 1 % plane falling south the 200-ft bottom edge of the
    200 x 100 ft area is one outlet, draining the area and the 250 ft of plane above it in a 200 ft
    wide strip: 200 x (600 - 250) = 70,000 sq ft = 1.61 acres, under DNR 1063's 5 acres: a trap."""
    dem, fg = plane
    site = _site(dem)
    m = measure_site(site)
    m.set("hydrology.runoff_leaves_site", True)
    m.set("hydrology.channel_originates_in_disturbed", True)
    res = measure_controls(site, load_profile("grantsburg"), dem, fg, m, step=lambda s: None)
    b = res.report["sediment_basin_location"]
    assert b["required"] and b["kind"] == "sediment_trap"
    assert len(b["outlets"]) == 1
    assert b["drainage_area_sqft"] == pytest.approx(200 * 350, rel=1e-9)
    assert b["outlets"][0]["disturbed_acres"] * 43_560 == pytest.approx(200 * 100, rel=1e-9)
    assert b["y"] == pytest.approx(Y + 251)
    # under 10 acres, a channel originating in the disturbed area makes basins one route, fences the other
    assert b["either_route"] is True


def test_belgium_controls_by_the_handbook(plane):
    """Belgium's design criteria make the BMP Handbook binding: fences (1056), inlet protection (1060) and
    tracking pads (1057) are placed and cited to that section and the standard; what the chapter itself
    does not say (a stockpile setback, sheetflow diversions) is not placed."""
    dem, fg = plane
    site = _site(
        dem,
        jurisdiction="belgium",
        storm_inlets=gdf([Point(X + 301, Y + 201), Point(X + 101, Y + 401)], id=[1, 2]),
        roads=gdf([LineString([(X, Y + 100), (X + 600, Y + 100)])], id=[9], public=[False]),
        access_drives=gdf([LineString([(X + 300, Y + 100), (X + 300, Y + 250)])], id=[4]),
        bmps=gdf([LineString([(X + 200, Y + 249), (X + 400, Y + 249)])], type=["silt_fence"]),
    )
    prof = load_profile("belgium")
    res = measure_controls(site, prof, dem, fg, measure_site(site), step=lambda s: None)
    f = {x.rule: x for x in res.findings}
    assert f["filter_fence_submitted"].status == "fail"
    assert f["filter_fence_submitted"].citation == "Design criteria (DNR 1056)"
    assert f["filter_fence_submitted"].section == "Design criteria, standards and specifications"
    assert res.report["filter_fence"]["downslope_length_ft"] == pytest.approx(200)
    assert res.report["filter_fence"]["sideslope_length_ft"] == pytest.approx(
        200
    )  # DNR 1056: downslope and sides
    # DNR 1060: inlet 1 receives the disturbed area's runoff, inlet 2 (upslope, on the site) does not
    inl = {i["id"]: i for i in res.report["inlets"]}
    assert inl[1]["protection_required"] is True and inl[2]["protection_required"] is False
    assert f["inlet_protection_submitted"].citation == "Design criteria (DNR 1060)" and f[
        "inlet_protection_submitted"
    ].feature_ids == [1]
    # DNR 1057 at the entrance onto a private road
    assert f["tracking_pad"].status == "fail" and f["tracking_pad"].citation == "Design criteria (DNR 1057)"
    assert res.report["tracking"]["entrances"][0]["road_public"] is False
    assert "stockpile_setbacks" not in res.layers and "diversions" not in res.layers


def test_dxf_round_trip(plane, tmp_path):
    from geosite.views.dxf import write_layers_dxf

    dem, fg = plane
    site = _site(dem, storm_inlets=gdf([Point(X + 301, Y + 301)], id=[1]))
    res = measure_controls(site, load_profile("grantsburg"), dem, fg, measure_site(site), step=lambda s: None)
    path = write_layers_dxf(res.layers, tmp_path / "controls.dxf", scale_ft=100.0)
    from geosite.views.dxf import ANNO_LAYERS, cad_layer

    back = pyogrio.read_dataframe(path)
    ff = res.layers["filter_fence"]
    want = {cad_layer(k)[0] for k, v in res.layers.items() if len(v) and k != "filter_fence"}
    want |= {cad_layer("filter_fence", s)[0] for s in set(ff["side"])}
    assert set(back["Layer"]) - set(ANNO_LAYERS) == want  # and the practices' labels on C-ANNO-ESCP
    fence = back[
        back["Layer"].str.startswith("C-ESCP-SFNC-")
        & (back["Layer"] != "C-ESCP-SFNC-GAPS")
        & (back["Layer"] != "C-ESCP-SFNC-STKP")
    ]
    assert fence.geometry.length.sum() == pytest.approx(ff["length_ft"].sum(), rel=1e-9)
    assert tuple(fence.total_bounds) == pytest.approx(tuple(ff.total_bounds))
    assert tuple(ff[ff.side == "downslope"].total_bounds) == pytest.approx(
        (X + 200, Y + 250, X + 400, Y + 250)
    )
    import ezdxf

    assert ezdxf.readfile(path).header["$INSUNITS"] == 21  # US survey feet


def test_a_fence_set_below_the_limits_of_disturbance_covers_the_edges_whose_runoff_it_catches(plane):
    """On the 1 % plane falling south, a fence 15 ft below the disturbed area's bottom edge (beyond the
    10 ft beside-the-line tolerance) catches the runoff of the whole bottom edge and of the sides' lowest
    ~35 ft (their D8 paths meet it within the profile's 50 ft reach); one 60 ft below catches none of it."""
    dem, fg = plane
    cell = 2.0

    def coverage(y_fence):
        bmps = gdf([LineString([(X + 190, Y + y_fence), (X + 410, Y + y_fence)])], type=["silt_fence"])
        m = measure_site(site := _site(dem, bmps=bmps))
        m.set("hydrology.runoff_leaves_site", True)
        res = measure_controls(site, load_profile("grantsburg"), dem, fg, m, step=lambda s: None)
        gaps = res.layers["fence_gaps"]
        return res.report["submitted_controls"]["filter_fence"], gaps.groupby("side")["length_ft"].sum()

    cov, by_side = coverage(235.0)
    assert cov["required_length_ft"] == pytest.approx(400)
    assert by_side.get("downslope", 0.0) == pytest.approx(0.0)
    # each side: the points from y 250 up to about 286.5 (50 ft of path to the fence's cells) are caught
    assert by_side["sideslope"] == pytest.approx(2 * (350 - 286.5), abs=2 * cell)
    assert cov["intercepted_length_ft"] == pytest.approx(200 + 2 * 36.5, abs=2 * cell)
    cov, by_side = coverage(190.0)
    assert by_side["downslope"] == pytest.approx(200.0) and cov["intercepted_length_ft"] == 0.0
