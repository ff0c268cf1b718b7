"""A proposed sediment trap lies on the site, at its DNR 1063 size, at the outlet it serves
(geosite.controls.trap_sites), or the plan says there is no room for it; and check judges a submitted
trap whose footprint reaches past the site boundary (geosite.review.geometry).

Numbers by hand: Belgium's profile gives DNR 1063's 1,560 sq ft of trap surface per acre drained, so an
outlet draining 2 acres needs a 3,120 sq ft trap: a regular 64-gon of that area has a circumradius of
sqrt(2 x 3120 / (64 sin(2 pi / 64))) = 31.54 ft.
"""

from __future__ import annotations

import math

import geopandas as gpd
import pytest
import shapely
from shapely.geometry import Point, box

from geosite.controls import TrapGround, place_traps
from geosite.controls.trap_sites import footprint_radius_ft
from geosite.rules import load_profile

CRS = "EPSG:7593"  # US survey feet: one CRS unit is 1200/3937 m, about 1.000002 ft


@pytest.fixture(scope="module")
def per_acre() -> float:
    return float(load_profile("belgium").value("controls", "sediment_trap_surface_sqft_per_acre"))


def outlets(*rows):
    """Outlets (x, y, acres, kind) as disturbed_outlets returns their points."""
    return gpd.GeoDataFrame(
        {
            "outlet": list(range(1, len(rows) + 1)),
            "kind": [r[3] for r in rows],
            "drainage_acres": [r[2] for r in rows],
        },
        geometry=[Point(r[0], r[1]) for r in rows],
        crs=CRS,
    )


def ground(site, disturbed=None, structures=None):
    return TrapGround(
        site=site,
        disturbed=site if disturbed is None else disturbed,
        structures=structures,
        ft_per_unit=1.0,
        clear_ft=0.0,  # the berm may touch the edge (tests/test_plan_a_crew_builds.py: the clearance)
    )


def test_outlet_on_the_boundary_gets_a_trap_inside_it_at_its_dnr_1063_area(per_acre):
    assert per_acre == 1560.0  # DNR 1063, medium-textured soils
    site = box(0, 0, 400, 300)
    # the outlet on the south edge of the site (the disturbed area reaches the boundary there)
    traps = place_traps(
        outlets((200, 0, 2.0, "trap")), ground(site), surface_sqft_per_acre=per_acre, reach_ft=10.0
    )
    t = traps.iloc[0]
    assert bool(t.placed) and bool(t.in_disturbed)
    assert t.surface_sqft == pytest.approx(3120.0)  # 1,560 sq ft/acre x 2 acres
    assert t.geometry.area == pytest.approx(3120.0, rel=1e-9)  # the footprint is that area, exactly
    assert site.covers(t.geometry)
    r = footprint_radius_ft(3120.0)
    assert r == pytest.approx(31.54, abs=0.01)
    # moved straight inward (the edge's normal) by its radius, touching the edge at the outlet
    c = t.geometry.centroid
    assert c.x == pytest.approx(200.0, abs=1e-6) and c.y == pytest.approx(r, abs=0.05)
    assert t.moved_ft == pytest.approx(r, abs=0.05)
    assert t.geometry.distance(Point(200, 0)) <= 10.0
    assert "in the disturbed area" in t.placement


def test_traps_clear_the_structures_and_each_other(per_acre):
    site = box(0, 0, 400, 300)
    house = box(150, 5, 250, 60)  # a building just inside the edge, beside the outlet
    traps = place_traps(
        outlets((140, 0, 2.0, "trap"), (80, 0, 1.0, "trap")),
        ground(site, structures=house),
        surface_sqft_per_acre=per_acre,
        reach_ft=10.0,
    )
    assert traps["placed"].all()
    a, b = traps.geometry
    assert not a.intersects(house) and not b.intersects(house) and not a.overlaps(b)
    assert a.intersection(b).area == pytest.approx(0.0, abs=1e-6)
    assert site.covers(a) and site.covers(b)


def test_site_too_tight_for_the_trap_says_so(per_acre):
    site = box(0, 0, 40, 200)  # 40 ft wide: a 3,120 sq ft trap is 63 ft across
    traps = place_traps(
        outlets((20, 0, 2.0, "trap")), ground(site), surface_sqft_per_acre=per_acre, reach_ft=10.0
    )
    t = traps.iloc[0]
    assert not t.placed and t.geometry is None and math.isnan(t.moved_ft)
    assert t.placement.startswith("no room on the site for the trap this outlet needs; ")
    assert "3,120 sq ft" in t.placement and "within 10 ft of the outlet" in t.placement


def test_beside_the_disturbed_area_only_when_it_does_not_fit_inside(per_acre):
    site = box(0, 0, 400, 300)
    strip = box(0, 0, 400, 20)  # a disturbed strip 20 ft deep along the south edge
    traps = place_traps(
        outlets((200, 20, 2.0, "trap")),
        ground(site, disturbed=strip),
        surface_sqft_per_acre=per_acre,
        reach_ft=10.0,
    )
    t = traps.iloc[0]
    assert bool(t.placed) and not bool(t.in_disturbed) and site.covers(t.geometry)
    # wholly beside the strip, never straddling its edge (where the perimeter fence runs)
    assert t.geometry.intersection(strip).area == pytest.approx(0.0, abs=1e-6)
    assert t.geometry.distance(Point(200, 20)) <= 10.0
    assert "beside the disturbed area, outside it" in t.placement


def test_basins_and_unsized_traps_get_no_footprint(per_acre):
    site = box(0, 0, 2000, 2000)
    o = outlets((100, 0, 20.0, "basin"), (300, 0, 2.0, "trap"))
    assert list(place_traps(o, ground(site), surface_sqft_per_acre=per_acre, reach_ft=10.0)["outlet"]) == [2]
    assert not len(place_traps(o, ground(site), surface_sqft_per_acre=None, reach_ft=10.0))


def test_sheet_draws_the_trap_on_the_site_with_its_label_off_the_boundary(tmp_path, per_acre):
    """The small lot of the round trip (100 x 100 ft disturbed on a 4 % plane): the construction plan
    draws its trap as the footprint (1,560 sq ft per acre drained, on the site), no perimeter fence runs
    through it, and its label's box does not cross the site boundary's line."""
    import warnings

    from matplotlib.colors import same_color
    from test_round_trip import BUILT

    import geosite
    from geosite.maps import render_construction_plan
    from geosite.maps.labels import _to_in
    from geosite.maps.symbology import STYLES

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = geosite.analyze(geosite.load_site(BUILT["small_lot_4pct"](tmp_path / "lot")))
        sheet = render_construction_plan(result, None)[0].geosite
    (fp,) = result.layers["sediment_basin_footprints"].itertuples()
    want = per_acre * fp.drainage_acres
    site = result.site.boundary
    st = STYLES["sediment_traps_sized"]
    (coll,) = [  # its outline may be drawn apart, broken under a label (geosite.maps.layout.cut_under_labels)
        c
        for c in sheet.ax.collections
        if c.get_hatch() == st.hatch
        and len(c.get_facecolor())
        and same_color(c.get_facecolor()[0][:3], st.face)
    ]
    drawn = shapely.Polygon(coll.get_paths()[0].to_polygons()[0])
    fpu = result.site.ft_per_unit
    assert fp.geometry.area * fpu**2 == pytest.approx(want, rel=1e-6) and site.covers(fp.geometry)
    # drawn simplified at the paper's resolution: the same area within 1 %, on the site
    assert drawn.area * fpu**2 == pytest.approx(want, rel=0.01) and site.buffer(1e-6).covers(drawn)
    fence = result.layers["filter_fence"]
    perimeter = fence[fence["side"].isin(["downslope", "sideslope", "hook"])]
    assert shapely.union_all(perimeter.geometry.values).intersection(drawn.buffer(-0.5 / fpu)).length == 0
    kinds = {label: kind for label, kind, _marker in sheet.swatches}
    (swatch,) = [k for k in kinds if k.startswith("(c) " + st.label)]  # "(shown for reference...)" after
    assert kinds[swatch] == "polygon"
    (trap,) = [c for c in result.plan.controls if c.practice == "sediment_trap"]
    (box_in,) = [bb for t, bb in sheet.placed if t == f"C{trap.id}"]  # its tag, as the schedule lists it
    edge_in = shapely.LineString([_to_in(sheet, x, y) for x, y in site.exterior.coords])
    assert not box_in.intersects(edge_in)


def test_check_reads_a_submitted_trap_as_a_point_or_as_its_footprint(per_acre):
    """A 4 % plane falling south, a 200 x 200 ft disturbed square: one outlet, its whole south edge. The
    trap placed for it (a polygon, as analyze's plan writes it) and the outlet's point (as a plan from
    another tool gives it) each receive its runoff and suit it."""
    from profile_numbers import GRANTSBURG

    from geosite.controls import disturbed_outlets, submitted_at_outlets
    from geosite.hydrology import flow_grid
    from geosite.testing import inclined_plane

    dem = inclined_plane(4.0, shape=(150, 150), cell=2.0)
    x0, y1 = dem.transform.c, dem.transform.f  # the grid's upper-left corner
    site = box(x0 + 40, y1 - 260, x0 + 260, y1 - 40)
    dist = gpd.GeoDataFrame(geometry=[box(x0 + 50, y1 - 250, x0 + 250, y1 - 50)], crs=dem.crs)
    g = GRANTSBURG  # the outlets as Grantsburg's profile finds them (DNR 1063/1064's acreages)
    found = disturbed_outlets(
        dist,
        dem,
        flow_grid(dem),
        trap_max_acres=float(g.control("sediment_trap_max_drainage_acres")),
        basin_max_acres=float(g.control("sediment_basin_max_drainage_acres")),
        merge_ft=float(g.control("basin_outlet_merge_ft")),
    )
    outs = found.points
    assert len(outs) == 1
    traps = place_traps(
        outs,
        TrapGround(
            site=site,
            disturbed=dist.geometry.iloc[0],
            structures=None,
            ft_per_unit=dem.ft_per_unit,
            clear_ft=0.0,
        ),
        surface_sqft_per_acre=per_acre,
        reach_ft=10.0,
    )
    (t,) = traps.itertuples()
    assert t.placed and t.in_disturbed and site.covers(t.geometry)
    submitted = gpd.GeoDataFrame(
        {"id": [1, 2], "type": ["sediment_trap", "sediment_trap"]},
        geometry=[t.geometry, outs.geometry.iloc[0]],
        crs=dem.crs,
    )
    (s,) = submitted_at_outlets(
        submitted, outs, found.exit_cells, dem, flow_grid(dem), disturbed=dist, search_ft=10.0
    )
    assert s["served_by"] == [1, 2]
    from geosite.practices.sediment_basin import suits

    assert [i for i in s["served_by"] if suits("sediment_trap", s["kind"])] == [1, 2]


def test_an_outlet_whose_trap_fits_nowhere_keeps_its_trap_in_the_plan_at_its_point():
    """The plan still shows the trap the outlet needs (so check reads the outlet as provided for, as a
    plan from another tool would show it), at its point, its practice saying the footprint fits nowhere;
    a trap that fits is its footprint polygon."""
    from geosite.practices.sediment_basin import proposals

    outlets = gpd.GeoDataFrame(
        {"outlet": [1, 2], "kind": ["trap"] * 2, "drainage_acres": [4.88, 0.48]},
        geometry=[Point(0, 0), Point(100, 0)],
        crs=CRS,
    )
    placed = Point(100, 20).buffer(15.0)
    feet = gpd.GeoDataFrame(
        {
            "outlet": [1, 2],
            "surface_sqft": [7617.2, 742.4],
            "placed": [False, True],
            "placement": [
                "no room on the site for the trap this outlet needs; its 7,617 sq ft ...",
                "on the site",
            ],
        },
        geometry=[Point(0, 0), placed],
        crs=CRS,
    )
    rows = proposals(outlets, feet, basin_max_acres=100.0, official="Building Inspector")
    assert [r["geometry"].geom_type for r in rows] == ["Point", "Polygon"]
    assert "no room on the site for the trap this outlet needs" in rows[0]["note"]  # the plan's note on it
    assert rows[0]["surface_sqft"] == 7617.2 and rows[1]["geometry"].equals(placed)
