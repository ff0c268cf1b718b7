"""The bundled sample sites (data/sample_sites) and their generator (scripts/make_sample_sites.py).

* the generator is deterministic: two runs give the same DEM arrays and layers (and the same bytes);
* the bundled sites are what the generator produces (regenerate with the script when this fails);
* the sites have the properties they are bundled for: CRS, disturbed areas, DEM coverage, terrain.

These tests read the files with rasterio/geopandas directly, not through geosite, so that they check
the data, not the loader.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib
from pathlib import Path

import geopandas as gpd
import numpy as np
import pyogrio
import pytest
import rasterio
import shapely
from shapely.geometry import box

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "make_sample_sites.py"
BUNDLED = ROOT / "data" / "sample_sites"
SITES = ("grantsburg_lot7", "belgium_commons")
EPSG = {"grantsburg_lot7": 7593, "belgium_commons": 7613}
SQFT_PER_ACRE = 43_560.0
US_FT_M = 1200.0 / 3937.0
REGEN = "rerun: .venv/bin/python scripts/make_sample_sites.py"


def _generate(out: Path) -> Path:
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--quiet"], check=True, timeout=300)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return [_generate(tmp_path_factory.mktemp(f"run{i}")) for i in range(2)]


def load(folder: Path):
    cfg = tomllib.loads((folder / "site.toml").read_text(encoding="utf-8"))
    with rasterio.open(folder / cfg["dem"]["path"]) as src:
        dem = {
            "z": src.read(1),
            "transform": src.transform,
            "crs": src.crs,
            "bounds": src.bounds,
            "nodata": src.nodata,
            "profile": src.profile,
            "dtype": src.dtypes[0],
        }
    gpkg = folder / cfg["layers"]["path"]
    layers = {name: gpd.read_file(gpkg, layer=name) for name, _ in pyogrio.list_layers(gpkg)}
    return cfg, dem, layers


def heights_ft(cfg, dem):
    z = dem["z"].astype(np.float64)
    z[z == dem["nodata"]] = np.nan
    return z if cfg["dem"]["vertical_unit"] == "us_ft" else z / US_FT_M


def sample(dem, z_ft, geom, step=2.0):
    pts = [geom.interpolate(t) for t in np.arange(0.0, geom.length, step)]
    rows, cols = rasterio.transform.rowcol(dem["transform"], [p.x for p in pts], [p.y for p in pts])
    return z_ft[np.asarray(rows), np.asarray(cols)]


def max_disturbed_at_one_time(dist: gpd.GeoDataFrame) -> float:
    """Largest area (sq ft) of the union of the disturbance polygons active on any one day."""
    days = sorted(set(dist["start"]) | set(dist["end"]))
    best = 0.0
    for day in days:
        active = [
            g for g, s, e in zip(dist.geometry, dist["start"], dist["end"], strict=False) if s <= day <= e
        ]
        if active:
            best = max(best, shapely.union_all(active).area)
    return best


def compare_sites(a: Path, b: Path, exact: bool) -> None:
    cfg_a, dem_a, lay_a = load(a)
    cfg_b, dem_b, lay_b = load(b)
    assert cfg_a == cfg_b, f"{b}: site.toml differs; {REGEN}"
    assert dem_a["transform"] == dem_b["transform"] and dem_a["crs"] == dem_b["crs"]
    if exact:
        assert np.array_equal(dem_a["z"], dem_b["z"]), f"{b}: DEM differs"
    else:  # heights are rounded to 0.001 before storing: allow one rounding step
        np.testing.assert_allclose(dem_a["z"], dem_b["z"], rtol=0, atol=0.0011, err_msg=f"{b}: DEM; {REGEN}")
    assert list(lay_a) == list(lay_b), f"{b}: layer names differ; {REGEN}"
    for name in lay_a:
        ga, gb = lay_a[name], lay_b[name]
        assert list(ga.columns) == list(gb.columns), f"{b}: {name} columns differ; {REGEN}"
        assert len(ga) == len(gb), f"{b}: {name} feature count differs; {REGEN}"
        tol = 0.0 if exact else 0.011  # coordinates are rounded to 0.01 ft
        same = shapely.equals_exact(ga.geometry.values, gb.geometry.values, tolerance=tol)
        assert same.all(), f"{b}: {name} geometries differ (rows {np.flatnonzero(~same) + 1}); {REGEN}"
        attrs = [c for c in ga.columns if c != "geometry"]
        assert ga[attrs].equals(gb[attrs]), f"{b}: {name} attributes differ; {REGEN}"


# ---------------------------------------------------------------------------------------- generator


@pytest.mark.parametrize("site", SITES)
def test_generator_is_deterministic(runs, site):
    compare_sites(runs[0] / site, runs[1] / site, exact=True)


@pytest.mark.parametrize("site", SITES)
def test_generator_writes_identical_bytes(runs, site):
    for fname in ("site.toml", "dem.tif", "layers.gpkg"):
        h = [hashlib.sha256((r / site / fname).read_bytes()).hexdigest() for r in runs]
        assert h[0] == h[1], f"{site}/{fname}: two runs wrote different bytes"


@pytest.mark.parametrize("site", SITES)
def test_bundled_site_matches_generator(runs, site):
    assert (BUNDLED / site).is_dir(), f"{BUNDLED / site} missing; {REGEN}"
    compare_sites(runs[0] / site, BUNDLED / site, exact=False)


def test_only_option_generates_one_site(tmp_path):
    cmd = [sys.executable, str(SCRIPT), "--out", str(tmp_path), "--only", "grantsburg_lot7", "--quiet"]
    subprocess.run(cmd, check=True, timeout=300)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grantsburg_lot7"]


# ---------------------------------------------------------------------------------------- properties


@pytest.fixture(scope="module", params=SITES)
def bundled(request):
    return (request.param, *load(BUNDLED / request.param))


def test_site_toml_follows_site_folder_format(bundled):
    site, cfg, dem, layers = bundled
    assert cfg["jurisdiction"] == {"grantsburg_lot7": "grantsburg", "belgium_commons": "belgium"}[site]
    assert cfg["crs"] == f"EPSG:{EPSG[site]}"
    assert cfg["dem"]["vertical_unit"] == {"grantsburg_lot7": "us_ft", "belgium_commons": "m"}[site]
    assert cfg["layers"]["path"] == "layers.gpkg"
    for who in ("applicant", "maintainer"):
        assert {"name", "address", "phone"} <= set(cfg[who])
        assert "-555-" in cfg[who]["phone"]
    p = cfg["project"]
    assert p["start"].year == 2027 and p["end"].year == 2027 and p["start"] < p["end"]
    assert p["cut_cy"] > 0 and p["fill_cy"] > 0
    assert p["plat"] == {"grantsburg_lot7": "none", "belgium_commons": "subdivision"}[site]
    assert p["state_funded"] is False and isinstance(p["dewatering"], bool)


def test_crs_everywhere(bundled):
    site, cfg, dem, layers = bundled
    assert dem["crs"].to_epsg() == EPSG[site]
    for name, gdf in layers.items():
        assert gdf.crs.to_epsg() == EPSG[site], name
    # inside the WISCRS zone's area of use, near the village
    from pyproj import Transformer

    lon, lat = Transformer.from_crs(EPSG[site], 4326, always_xy=True).transform(
        *layers["site_boundary"].union_all().centroid.coords[0]
    )
    target = {"grantsburg_lot7": (-92.68, 45.78), "belgium_commons": (-87.85, 43.50)}[site]
    assert abs(lon - target[0]) < 0.01 and abs(lat - target[1]) < 0.01


def test_dem_format_and_coverage(bundled):
    site, cfg, dem, layers = bundled
    prof = dem["profile"]
    assert dem["dtype"] == "float32" and dem["nodata"] == -9999.0
    assert prof["tiled"] and str(prof.get("compress", "")).lower() == "deflate"
    assert dem["transform"].a == 2.0 and dem["transform"].e == -2.0
    assert max(dem["z"].shape) < 3000
    assert not (dem["z"] == dem["nodata"]).any()
    site_geom = layers["site_boundary"].union_all()
    assert box(*dem["bounds"]).contains(site_geom.buffer(300)), "DEM must cover the site + 300 ft"
    z = heights_ft(cfg, dem)
    lo, hi = {"grantsburg_lot7": (900, 965), "belgium_commons": (635, 705)}[site]
    assert lo <= np.nanmin(z) and np.nanmax(z) <= hi


def test_every_layer_has_integer_ids_and_documented_attributes(bundled):
    site, cfg, dem, layers = bundled
    expected = {
        "site_boundary",
        "disturbance",
        "stockpiles",
        "roads",
        "streams",
        "wetlands",
        "storm_inlets",
        "utilities",
        "structures",
        "floodplain",
        "soils",
        "vegetation",
        "access_drives",
        "bmps",
    }
    assert expected <= set(layers)
    for name, gdf in layers.items():
        assert "id" in gdf.columns, name
        assert np.issubdtype(gdf["id"].dtype, np.integer), name
        assert gdf["id"].is_unique, name
        assert gdf.geometry.is_valid.all() and not gdf.geometry.is_empty.any(), name
    d = layers["disturbance"]
    assert {"phase", "start", "end"} <= set(d.columns)
    assert (d["start"] <= d["end"]).all()
    assert (layers["stockpiles"]["days"] > 0).all()
    assert set(layers["roads"]["status"]) <= {"existing", "new", "reconstruct", "enlarge", "relocate"}
    assert set(layers["utilities"]["status"]) <= {"existing", "new", "repair", "replace", "enlarge"}
    assert set(layers["structures"]["status"]) <= {"existing", "proposed"}
    assert set(layers["floodplain"]["zone"]) <= {"floodway", "fringe", "100yr"}
    assert set(layers["vegetation"]["cover"]) <= {
        "pavement",
        "bare_soil",
        "short_grass",
        "dense_grass",
        "light_woods",
        "dense_woods",
        "crops",
    }
    assert {"musym", "name", "hsg"} <= set(layers["soils"].columns)
    assert 2 <= layers["soils"]["musym"].nunique() <= 4
    types = set(layers["bmps"]["type"])
    assert types <= {
        "silt_fence",
        "straw_bales",
        "sediment_basin",
        "sediment_trap",
        "inlet_protection",
        "tracking_pad",
        "diversion",
        "stabilization",
    }
    assert {"silt_fence", "inlet_protection", "tracking_pad"} <= types
    # imperfect on purpose: some inlets unprotected
    inlets = layers["storm_inlets"].geometry
    prot = layers["bmps"][layers["bmps"]["type"] == "inlet_protection"].union_all()
    protected = [p.distance(prot) < 5.0 for p in inlets]
    assert any(protected) and not all(protected)
    # access drives meet a road; inlets lie in roads
    roads = layers["roads"].union_all()
    assert all(g.distance(roads) < 0.01 for g in layers["access_drives"].geometry)
    assert all(roads.contains(p) for p in inlets)


def test_creek_follows_the_valley(bundled):
    site, cfg, dem, layers = bundled
    z = heights_ft(cfg, dem)
    stream = layers["streams"].union_all()
    boundary = layers["site_boundary"].union_all().exterior
    zs, zb = sample(dem, z, stream), sample(dem, z, boundary)
    assert zs.mean() < zb.mean() - 10.0
    # the stream line is the valley's low line: lower than the ground 30 ft to either side of it
    for t in np.linspace(0.1, 0.9, 9) * stream.length:
        p = stream.interpolate(t)
        q0, q1 = stream.interpolate(t - 3), stream.interpolate(t + 3)
        nx, ny = -(q1.y - q0.y), q1.x - q0.x
        n = np.hypot(nx, ny)
        side = [shapely.Point(p.x + s * 30 * nx / n, p.y + s * 30 * ny / n) for s in (-1, 1)]
        pts = [p, *side]
        r, c = rasterio.transform.rowcol(dem["transform"], [g.x for g in pts], [g.y for g in pts])
        zz = z[np.asarray(r), np.asarray(c)]
        assert zz[0] < zz[1] and zz[0] < zz[2]
    # wetland in the low ground
    wet = layers["wetlands"].union_all()
    assert sample(dem, z, wet.exterior).mean() < zb.mean() - 10.0


def test_slopes_and_depressions(bundled):
    site, cfg, dem, layers = bundled
    from rasterio.features import geometry_mask
    from scipy import ndimage

    z = heights_ft(cfg, dem)
    gy, gx = np.gradient(z, 2.0)
    slope = np.hypot(gx, gy) * 100.0
    dist = layers["disturbance"].union_all()
    inside = geometry_mask([dist], z.shape, dem["transform"], invert=True)
    s = slope[inside]
    assert np.percentile(s, 5) < 5.0 and np.percentile(s, 95) > 14.0
    assert (s >= 12.0).mean() > 0.1, "some of the disturbance must be on slopes of 12 % or more"
    assert np.percentile(s, 99) < 30.0
    # a couple of designed closed depressions: spots more than 0.3 ft below all the ground 16 ft around
    yy, xx = np.mgrid[-8:9, -8:9]
    ring = np.abs(np.hypot(yy, xx) - 7.5) < 0.75
    ring_min = ndimage.grey_erosion(np.nan_to_num(z, nan=1e9), footprint=ring, mode="nearest")
    _, n_pits = ndimage.label(z < ring_min - 0.3)
    assert 2 <= n_pits <= 6


def test_grantsburg_lot7_is_a_small_site():
    cfg, dem, layers = load(BUNDLED / "grantsburg_lot7")
    dist = layers["disturbance"].union_all().area
    assert 4_000 < dist < SQFT_PER_ACRE
    assert 0.5 * SQFT_PER_ACRE < dist < 0.7 * SQFT_PER_ACRE
    assert layers["site_boundary"].union_all().area >= 0.9 * SQFT_PER_ACRE
    u = layers["utilities"]
    new = u[(u["status"] == "new") & u["underground"].astype(bool)]
    assert 0 < new.length.sum() < 300
    assert (layers["roads"]["status"] == "existing").all()
    assert layers["structures"]["status"].eq("proposed").any()
    # one 45-day pile within 25 ft of the street, but the street is upslope of it
    piles = layers["stockpiles"]
    assert len(piles) == 1 and int(piles["days"].iloc[0]) == 45
    pile, road = piles.geometry.iloc[0], layers["roads"].union_all()
    assert pile.distance(road) < 25.0
    z = heights_ft(cfg, dem)
    near_road = road.intersection(pile.buffer(60.0)).boundary
    assert sample(dem, z, near_road).mean() > sample(dem, z, pile.exterior).mean()
    # creek and wetland downslope, within the 200-ft map area
    site = layers["site_boundary"].union_all()
    assert layers["wetlands"].union_all().distance(site) < 200.0
    assert layers["streams"].union_all().distance(site) < 200.0


def test_belgium_commons_is_over_ten_acres_at_one_time():
    cfg, dem, layers = load(BUNDLED / "belgium_commons")
    d = layers["disturbance"]
    assert d["phase"].nunique() >= 2
    at_once = max_disturbed_at_one_time(d)
    total = d.union_all().area
    assert at_once > 10 * SQFT_PER_ACRE
    assert 12 * SQFT_PER_ACRE < at_once < 14 * SQFT_PER_ACRE
    assert total > at_once
    assert (layers["roads"]["status"] == "new").any() and (layers["roads"]["status"] == "existing").any()
    u = layers["utilities"]
    assert u[(u["status"] == "new") & u["underground"].astype(bool)].length.sum() > 300
    assert len(layers["storm_inlets"]) >= 3 and len(layers["channels"]) >= 1
    # one stockpile within ~20 ft of the creek, and the creek is below it
    z = heights_ft(cfg, dem)
    stream = layers["streams"].union_all()
    piles = layers["stockpiles"]
    dists = piles.distance(stream)
    assert len(piles) >= 3 and (dists < 25.0).sum() == 1
    bad = piles.geometry[dists.idxmin()]
    assert 15.0 < bad.distance(stream) < 22.0
    near = stream.intersection(bad.buffer(60.0))
    assert sample(dem, z, near).mean() < sample(dem, z, bad.exterior).mean()
    # heights are stored in metres: the raw values are ~0.3 of the heights in feet
    assert float(dem["z"].min()) > 190.0 and float(dem["z"].max()) < 216.0


def test_sample_sites_folder_is_small():
    total = sum(p.stat().st_size for p in BUNDLED.rglob("*") if p.is_file())
    assert total < 25 * 1024 * 1024
    assert (BUNDLED / "README.md").is_file()
