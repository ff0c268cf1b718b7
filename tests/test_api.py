"""The public API (``import geosite``): light to import, every exported name resolves and is documented,
and a small site built from GeoDataFrames on an inclined plane gives the hand-worked numbers through it.

The site (EPSG:7593, US survey feet; a 15 % plane falling due south, 2-ft cells, 200 x 200 ft, its
top-left corner at x0, y0; every edge below is on a cell edge):

* site boundary 150 x 150 ft = 22,500 sq ft;
* disturbance 100 ft wide (east-west) x 60 ft deep (north-south) = 6,000 sq ft = 0.1377 ac, all on
  15 % slope, so A(3) (4,000 sq ft) and A(7) (slopes of 12 % or more) are met: a plan statement;
* land draining onto it: the 100 ft x 60 ft strip between it and the DEM's north edge = 6,000 sq ft,
  longest flow path 60 ft;
* filter fence: the south (downslope) side 100 ft, the east and west (sideslope) sides 60 ft each;
* a 20 x 20 ft stockpile whose south side is 18 ft north of (upslope of) a creek: a setback violation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

import geosite

X0, Y0 = 500_000.0, 200_000.0  # geosite.testing.ORIGIN for EPSG:7593
HEAVY = ("matplotlib", "matplotlib.pyplot", "numba", "geopandas", "pandas", "rasterio", "fiona")


def _modules_after(code: str) -> set[str]:
    """Top-level and dotted module names loaded in a fresh interpreter after running ``code``."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_is_light():
    loaded = _modules_after("import geosite")
    assert not loaded & set(HEAVY), f"import geosite loaded {sorted(loaded & set(HEAVY))}"


def test_resolving_every_name_loads_no_pyplot_or_numba():
    loaded = _modules_after("import geosite\nfor n in geosite.__all__: getattr(geosite, n)")
    assert "matplotlib.pyplot" not in loaded
    assert "numba" not in loaded  # kernels compile on first use, not on import


@pytest.mark.parametrize("name", geosite.__all__)
def test_every_public_name_resolves_and_is_documented(name):
    obj = getattr(geosite, name)
    assert obj is not None
    if name != "__version__":
        assert (obj.__doc__ or "").strip(), f"geosite.{name} has no docstring"
        assert f"`{name}`" in geosite.__doc__, f"geosite.{name} is not listed in the package docstring"


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = geosite.nope
    assert "analyze" in dir(geosite)


# ------------------------------------------------------------------------------------ end to end


@pytest.fixture(scope="module")
def plane_site():
    import geopandas as gpd
    from shapely.geometry import LineString, box

    from geosite.testing import CRS_US_FT, inclined_plane

    dem = inclined_plane(15.0, shape=(100, 100), cell=2.0)

    def frame(geoms, **cols):
        return gpd.GeoDataFrame(cols, geometry=geoms, crs=CRS_US_FT)

    layers = {
        "site_boundary": frame([box(X0 + 20, Y0 - 170, X0 + 170, Y0 - 20)]),
        "disturbance": frame(
            [box(X0 + 50, Y0 - 120, X0 + 150, Y0 - 60)],
            id=[1],
            phase=["1"],
            start=["2027-05-03"],
            end=["2027-09-30"],
        ),
        "stockpiles": frame([box(X0 + 60, Y0 - 160, X0 + 80, Y0 - 140)], id=[1], days=[45]),
        "streams": frame([LineString([(X0, Y0 - 178), (X0 + 200, Y0 - 178)])], id=[1], name=["creek"]),
    }
    site = geosite.site_from_frames(
        layers,
        name="plane",
        jurisdiction="grantsburg",
        dem=dem,
        project=geosite.Project(cut_cy=10, fill_cy=5),
    )
    return site, dem


def test_dem_from_array_in_metres_matches_feet():
    import numpy as np
    from affine import Affine

    z_m = np.array([[10.0, 10.0], [9.0, 9.0]])
    dem = geosite.Dem.from_array(z_m, Affine(1.0, 0, 500_000, 0, -1.0, 5_000_000), "EPSG:26915", "m")
    assert dem.elevation_ft[0, 0] == pytest.approx(10.0 / 0.3048)
    assert dem.cell_area_sqft == pytest.approx(1 / 0.3048**2)


def test_terrain_through_the_api(plane_site):
    site, dem = plane_site
    profile = site.profile  # the numbers are the village's: Grantsburg's 12 %, 500 sq ft, 5 ft contours
    steep_pct = profile.required("terrain", "steep_slope_pct")
    mmu = profile.required("terrain", "steep_min_area_sqft")
    slope = geosite.slope_pct(dem)
    assert slope.min() == pytest.approx(15.0, abs=1e-9) and slope.max() == pytest.approx(15.0, abs=1e-9)
    steep = geosite.steep_slope_polygons(dem, slope, threshold_pct=steep_pct, min_area_sqft=mmu)
    assert list(steep["class"]) == [">=12%"]
    assert steep.crs.equals(site.crs)
    assert steep["area_sqft"].sum() == pytest.approx(200 * 200)
    assert geosite.steep_area_sqft(
        dem, within=site.layer("disturbance"), slope=slope, threshold_pct=steep_pct
    ) == pytest.approx(6_000.0)
    state_pct = profile.required("terrain", "state_steep_slope_pct")
    bands = geosite.steep_slope_polygons(dem, slope, threshold_pct=(steep_pct, state_pct), min_area_sqft=mmu)
    assert set(bands["class"]) == {"12-20%"}
    c = geosite.contours(
        dem,
        interval_ft=profile.required("terrain", "contour_interval_ft"),
        index_every=profile.required("terrain", "index_contour_every"),
    )
    # cell-centre heights run from 899.85 down to 870.15 ft: 875, 880, ..., 895, each across 198 ft
    assert list(c["elevation_ft"]) == [875.0, 880.0, 885.0, 890.0, 895.0]
    assert c.geometry.length.to_numpy() == pytest.approx([198.0] * 5)


def test_hydrology_through_the_api(plane_site):
    site, dem = plane_site
    channel_sqft = site.profile.required("terrain", "channel_threshold_sqft")
    up = geosite.upslope_area(dem, site.layer("disturbance"), channel_threshold_sqft=channel_sqft)
    assert isinstance(up, geosite.UpslopeArea)
    assert up.area_sqft == pytest.approx(100 * 60)
    assert up.flow_length_ft == pytest.approx(60.0)
    assert up.mean_slope_pct == pytest.approx(15.0)
    assert not up.channelized
    assert up.to_geodataframe().crs.equals(site.crs)
    acc = geosite.flow_accumulation(geosite.flow_grid(dem), unit="sqft")
    assert acc.max() == pytest.approx(100 * dem.cell_area_sqft)  # a full column of cells, bottom row


def test_controls_through_the_api(plane_site):
    site, dem = plane_site
    p = site.profile
    fence, runs = geosite.filter_fence(
        site.layer("disturbance"),
        dem,
        tolerance_deg=p.control("fence_sideslope_tolerance_deg"),
        min_run_ft=p.control("fence_min_run_ft"),
        hook_ft=p.control("fence_hook_ft"),
        table=None,  # no interior rows
        channel_threshold_sqft=None,  # no channel fences
        channel_offset_ft=p.control("fence_channel_offset_ft"),
        row_clearance_ft=p.control("fence_row_clearance_ft"),
        row_min_length_ft=p.control("fence_row_min_length_ft"),
    )
    summary = geosite.fence_summary(fence)
    assert summary["downslope_length_ft"] == pytest.approx(100.0)
    assert summary["sideslope_length_ft"] == pytest.approx(120.0)
    # the side fences run up the slope into their open ends: each end turned off the line, 10 ft up
    assert summary["hook_length_ft"] == pytest.approx(20.0)
    assert summary["total_length_ft"] == pytest.approx(240.0)
    assert fence.crs.equals(site.crs)
    assert runs.loc[runs["side"] == "upslope", "length_ft"].sum() == pytest.approx(100.0)

    setbacks = geosite.stockpile_setbacks(
        site.layer("stockpiles"),
        {"streams": site.layer("streams")},
        dem,
        min_setback_ft=p.practice("stockpile_setback").param("setback_ft"),
        trace_ft=p.control("stockpile_trace_ft"),
        tolerance_deg=p.control("fence_sideslope_tolerance_deg"),
        reach_tolerance_ft=p.control("stockpile_reach_tolerance_ft"),
        hook_ft=0.0,  # Grantsburg B(6)(e): the downslope side only
    )
    assert isinstance(setbacks, geosite.StockpileSetbacks)
    (pile,) = setbacks.piles
    assert pile["min_setback_ft"] == pytest.approx(18.0)
    assert pile["downslope"] and pile["violation"]
    assert (
        pile["days"] == 45
    )  # stabilization over 30 days is decided by the profile's requirement (rules.feature_applies)
    assert setbacks.zones.crs.equals(site.crs) and len(setbacks.fences) >= 1


def test_analyze_and_evaluate_through_the_api(plane_site):
    site, _dem = plane_site
    r = geosite.analyze(site)
    assert isinstance(r, geosite.AnalysisResult)
    assert r.report["site"]["area_sqft"] == pytest.approx(22_500.0)
    assert r.report["disturbed"]["area_sqft"] == pytest.approx(6_000.0)
    assert r.report["disturbed"]["area_acres"] == pytest.approx(6_000.0 / 43_560.0)
    met = {t["rule"]: t["met"] for t in r.report["applicability"]["triggers"]}
    assert met["disturbed_area"] and met["disturbance_on_steep_slopes"] and not met["cut_and_fill_volume"]
    assert r.report["plan_type"] == "statement"
    assert r.report["measurements"]["slopes.steep_disturbed_area_sqft"] == pytest.approx(6_000.0)
    assert any(f.rule == "stockpile_setback" and f.status == "fail" for f in r.findings)
    # the rules alone, on the same measurements, by name / by profile / by mapping
    for m in (r, r.measurements, dict(r.measurements.values)):
        ev = geosite.evaluate("grantsburg", m)
        assert ev.applies is True and ev.plan_type == "statement"
    assert (
        geosite.evaluate(geosite.load_profile("belgium"), r).plan_type
        == geosite.analyze(site, "belgium").evaluation.plan_type
    )
    with pytest.raises(TypeError, match="mapping of dotted keys"):
        geosite.evaluate("grantsburg", 3)


def test_map_to_figure_and_file(plane_site, tmp_path):
    site, _dem = plane_site
    r = geosite.analyze(site)
    figs = geosite.render_existing_site_map(r)  # out_path=None: matplotlib Figures, nothing written
    from matplotlib.figure import Figure

    assert figs and all(isinstance(f, Figure) for f in figs)
    written = geosite.render_existing_site_map(r, tmp_path / "existing_site_map.pdf", png_dpi=None)
    assert [p.name for p in written] == ["existing_site_map.pdf"]
    assert (tmp_path / "existing_site_map.pdf").stat().st_size > 0


def test_errors_are_public():
    with pytest.raises(geosite.errors.InputError):
        geosite.load_profile("no_such_village")
    code = textwrap.dedent(
        """
        import geosite
        try:
            geosite.load_site("/nonexistent/site")
        except geosite.errors.MissingInputError as e:
            assert isinstance(e, FileNotFoundError)
            print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
