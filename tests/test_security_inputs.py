"""Missing values are never zero, no input gives a traceback, resources are bounded (issue 13,
requirements 4, 5 and 7). Each case builds the hostile file and runs the CLI: exit 2 with a message
naming the file, key or layer, nothing written, the submission byte-identical; or, for missing values,
a correct report that says why."""

from __future__ import annotations

import json
import math
import struct
import zlib

import numpy as np
import pytest
import rasterio
from click.testing import CliRunner
from hostile import digest, gdf, run_geosite, submission
from sitebuilder import rect

from geosite.cli import cli


def run(*args):
    return CliRunner().invoke(cli, ["-q", *map(str, args)])


def refused(folder, out, *needles, command="check"):
    before = digest(folder)
    res = run(command, folder, "--out", out, *(["--no-maps"] if command == "analyze" else []))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit), (
        res.output
    )
    for n in needles:
        assert n in res.output, res.output
    assert not out.exists()
    assert digest(folder) == before
    return res.output


def raw_toml(folder, text):
    """Replace site.toml with the standard tables plus ``text`` (TOML written by hand: types a dict
    writer cannot make)."""
    (folder / "site.toml").write_text(
        'name = "t"\njurisdiction = "grantsburg"\n'
        + text
        + ('\n[layers]\npath = "layers.gpkg"\n' if "[layers]" not in text and "layers =" not in text else "")
        + (
            '\n[dem]\npath = "dem.tif"\nvertical_unit = "us_ft"\n'
            if "[dem]" not in text and "dem =" not in text
            else ""
        )
    )


# ------------------------------------------------------------------------------------------ requirement 7

TOML_CASES = [
    ('dem = "dem.tif"', "dem = 'dem.tif' must be a table"),
    ("layers = 3", "layers = 3 must be a table"),
    ("project = [1, 2]", "project = [1, 2] must be a table"),
    ('applicant = "me"', "applicant = 'me' must be a table"),
    ('[applicant]\nname = {first = "x"}', "[applicant] name"),
    ("[project]\ncut_cy = 1e400", "cut_cy must be a finite number"),
    ("[project]\ncut_cy = nan", "cut_cy must be a finite number"),
    ("[project]\nfill_cy = -inf", "fill_cy must be a finite number"),
    ("[project]\nstart = 2027-05-03T08:00:00", "is a date and time"),
    ("[project]\nstart = 9999-12-31\nend = 9999-12-31", "outside 1900-2200"),
    ("[project]\nplat = 5", "plat = '5'"),
    ("[project]\nbuilding_permit_days = 100000000000", "building_permit_days"),
    ("map_margin_ft = nan", "map_margin_ft"),
    ("crs = true", "crs True"),
    ("[layers]\npath = 5", "[layers] path = 5 must be a text"),
    ('[layers]\npath = "layers.gpkg"\n[layers.names]\nroads = 1', "[layers.names]"),
    ('[dem]\npath = ["a.tif"]\nvertical_unit = "us_ft"', "[dem] path"),
    ("[declared]\ndisturbed_area_sqft = nan", "disturbed_area_sqft must be a positive finite number"),
    ("[declared]\nmap_dpi = inf", "map_dpi must be a positive finite number"),
]


@pytest.mark.parametrize(("text", "needle"), TOML_CASES)
def test_wrong_toml_values_are_named_not_tracebacks(tmp_path, text, needle):
    folder = submission(tmp_path / "sub")
    raw_toml(folder, text)
    out = refused(folder, tmp_path / "out", needle)
    assert "site.toml" in out


def test_site_toml_not_utf8_and_not_toml(tmp_path):
    folder = submission(tmp_path / "sub")
    (folder / "site.toml").write_bytes(b'name = "Caf\xe9"\njurisdiction = "grantsburg"\n')
    refused(folder, tmp_path / "out", "site.toml", "not UTF-8")


def test_a_1x1_dem_and_a_tiny_cell_size(tmp_path):
    folder = submission(tmp_path / "sub")
    for shape, cell, needle in (
        ((1, 1), 2.0, "1 x 1 cells"),
        ((300, 300), 1e-300, "cell width"),
        ((2, 300), 2.0, "2 x 300 cells"),
    ):
        with rasterio.open(
            folder / "dem.tif",
            "w",
            driver="GTiff",
            height=shape[0],
            width=shape[1],
            count=1,
            dtype="float32",
            crs="EPSG:7593",
            transform=rasterio.transform.from_origin(500_000, 200_000, cell, cell),
        ) as dst:
            dst.write(np.full(shape, 900.0, dtype="float32"), 1)
        out = tmp_path / f"out-{shape[0]}-{cell}"
        res = run("check", folder, "--out", out)
        assert res.exit_code == 2 and needle in res.output and "dem.tif" in res.output, res.output
        assert not out.exists()


def test_rain_csv_not_utf8(tmp_path):
    folder = submission(tmp_path / "sub")
    rain = tmp_path / "rain.csv"
    rain.write_bytes(b"date,rain_in\n2027-05-04,0.6\n2027-05-05,\xff\xfe\n")
    res = run("schedule", folder, "--received", "2027-03-01", "--rain", rain)
    assert res.exit_code == 2 and "rain.csv" in res.output and "not UTF-8" in res.output, res.output


def test_unwritable_out_is_found_before_the_work(tmp_path):
    folder = submission(tmp_path / "sub")
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    res = run("check", folder, "--out", blocker / "out")
    assert res.exit_code == 2 and "cannot be written" in res.output, res.output
    assert "checking the plan" not in res.output
    res = run_geosite("check", str(folder), "--out", "/proc/geosite-out", timeout=60)
    assert res.returncode == 2 and "cannot be written" in res.stderr, res.stderr
    assert "loading and validating" not in res.stderr  # refused before any work


def test_attribute_values_that_are_not_numbers(tmp_path):
    layers = {
        "stockpiles": gdf(
            [rect(210, -250, 20, 20), rect(210, -280, 20, 20)], id=[1, 2], days=["forty", "inf"]
        )
    }
    folder = submission(tmp_path / "sub", layers)
    refused(folder, tmp_path / "out", "stockpiles", "'days'", "ids 1, 2")


def test_absurd_coordinates_are_refused(tmp_path):
    from shapely.geometry import Polygon

    far = Polygon([(1e12, 1e12), (1e12 + 10, 1e12), (1e12 + 10, 1e12 + 10)])
    folder = submission(tmp_path / "sub", {"stockpiles": gdf([far], id=[7])})
    refused(folder, tmp_path / "out", "stockpiles", "beyond 1e+09", "ids 7")


# ------------------------------------------------------------------------------------------ requirement 4


def test_null_phase_dates_still_require_a_basin_and_say_why(tmp_path):
    """12.6 acres disturbed, the phase's dates null in the GeoPackage: the largest area at one time is
    the whole 12.6 acres (never 0), so B(6)(c)[2] requires a basin, and the report says why."""
    from sitebuilder import make_site

    from geosite.testing import inclined_plane

    side = math.sqrt(12.6 * 43_560)
    layers = {
        "site_boundary": gdf([rect(100, -1300, 1000, 1000)], id=[1]),
        "disturbance": gdf([rect(150, -1250, side, side)], id=[1], phase=["all"], start=[None], end=[None]),
    }
    folder = make_site(
        tmp_path / "sub",
        layers,
        {"declared": {"plan_type": "full"}},
        dem=inclined_plane(3.0, shape=(350, 350), cell=4.0),
    )
    res = run("check", folder, "--out", tmp_path / "out")
    assert res.exit_code == 1, res.output
    report = json.loads((tmp_path / "out" / "findings.json").read_text())
    basin = next(f for f in report["findings"] if f["rule"] == "sediment_basin")
    assert basin["status"] == "fail" or "required" in basin["message"].lower(), basin
    assert any("no start or no end date" in n for n in report["notes"])
    res = run("analyze", folder, "--out", tmp_path / "a", "--no-maps")
    r = json.loads((tmp_path / "a" / "report.json").read_text())
    assert r["disturbed"]["max_at_one_time_acres"] == pytest.approx(12.6, rel=1e-6)
    assert "no start or no end date" in r["measurements"]["disturbed.max_at_one_time_basis"]


def test_stockpile_days_missing_is_not_zero(tmp_path):
    layers = {
        "stockpiles": gdf([rect(210, -250, 20, 20), rect(210, -280, 20, 20)], id=[1, 2], days=[10.0, None])
    }
    folder = submission(tmp_path / "sub", layers)
    res = run("analyze", folder, "--out", tmp_path / "a", "--no-maps")
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    m = report["measurements"]
    assert m["stockpiles.max_days"] is None and "2" in report["not_measured"]["stockpiles.max_days"]


def test_infinite_dem_cells_are_nodata_not_heights(tmp_path):
    folder = submission(tmp_path / "sub")
    with rasterio.open(folder / "dem.tif", "r+") as dst:
        z = dst.read(1)
        z[100:110, 100:110] = np.inf
        z[120:125, 120:125] = -np.inf
        dst.write(z, 1)
    res = run("analyze", folder, "--out", tmp_path / "a", "--no-maps")
    assert res.exit_code == 0, res.output
    r = json.loads((tmp_path / "a" / "report.json").read_text())
    slopes = r["slopes"]
    assert all(v is None or math.isfinite(v) for v in slopes.values() if isinstance(v, float))
    assert slopes["max_slope_pct"] is None or slopes["max_slope_pct"] < 10  # a 4 % plane: no cliff from inf


# ------------------------------------------------------------------------------------------ requirement 5


def _bomb_tiff(path, side: int) -> None:
    """A valid GeoTIFF header claiming ``side`` x ``side`` float32 cells in 256 x 256 deflate tiles whose
    offset and byte-count arrays (side^2 / 65,536 entries each) are not even in the file: a few KB on
    disk, side^2 x 4 bytes (160 GB at 200,000) to read."""
    tile = 256
    n_tiles = math.ceil(side / tile) ** 2

    def ent(tag, typ, count, value):
        return struct.pack("<HHII", tag, typ, count, value)

    entries = 14
    extra_at = 8 + 2 + entries * 12 + 4
    arrays_at, scale_at = extra_at, extra_at + 4
    tie_at = scale_at + 24
    ifd = [
        ent(256, 4, 1, side),
        ent(257, 4, 1, side),
        ent(258, 3, 1, 32),
        ent(259, 3, 1, 8),
        ent(262, 3, 1, 1),
        ent(277, 3, 1, 1),
        ent(284, 3, 1, 1),
        ent(322, 3, 1, tile),
        ent(323, 3, 1, tile),
        ent(324, 4, n_tiles, arrays_at),
        ent(325, 4, n_tiles, arrays_at),
        ent(339, 3, 1, 3),
        ent(33550, 12, 3, scale_at),
        ent(33922, 12, 6, tie_at),
    ]
    assert len(ifd) == entries
    head = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", entries) + b"".join(ifd) + b"\0\0\0\0"
    body = (
        struct.pack("<I", 0)
        + struct.pack("<3d", 2.0, 2.0, 0.0)
        + struct.pack("<6d", 0, 0, 0, 500_000.0, 200_000.0, 0)
    )
    path.write_bytes(head + body + zlib.compress(b"\0" * (tile * tile * 4), 9))


def test_decompression_bomb_is_refused_from_its_header(tmp_path):
    folder = submission(tmp_path / "sub")
    _bomb_tiff(folder / "bomb.tif", 200_000)
    assert (folder / "bomb.tif").stat().st_size < 30_000
    with rasterio.open(folder / "bomb.tif") as src:  # GDAL takes the header at its word
        assert (src.width, src.height) == (200_000, 200_000)
    raw_toml(folder, '[dem]\npath = "bomb.tif"\nvertical_unit = "us_ft"\n[layers]\npath = "layers.gpkg"')
    res = run_geosite("-q", "check", str(folder), "--out", str(tmp_path / "out"), timeout=120)
    assert res.returncode == 2, res.stderr
    assert "200,000 x 200,000 cells" in res.stderr and "max_raster_side" in res.stderr


def test_raster_budget_and_vertex_limits_are_configurable(tmp_path):
    folder = submission(tmp_path / "sub")
    res = run(
        "analyze", folder, "--out", tmp_path / "o1", "--no-maps", "--limit", "raster_budget_bytes=1000000"
    )
    assert res.exit_code == 2 and "over the raster budget" in res.output and "dem.tif" in res.output, (
        res.output
    )
    res = run("check", folder, "--out", tmp_path / "o2", "--limit", "max_vertices_per_feature=4")
    assert res.exit_code == 2 and "max_vertices_per_feature" in res.output and "layers.gpkg" in res.output, (
        res.output
    )
    res = run("check", folder, "--out", tmp_path / "o3", "--limit", "max_vertices_total=9")
    assert res.exit_code == 2 and "max_vertices_total" in res.output, res.output
    res = run("check", folder, "--out", tmp_path / "o4", "--limit", "bogus=1")
    assert res.exit_code == 2 and "not a limit" in res.output


def test_a_million_vertex_boundary_is_refused_by_default_and_drawn_simplified_when_allowed(tmp_path):
    from shapely.geometry import Polygon
    from sitebuilder import X0, Y0

    t = np.linspace(0, 2 * np.pi, 1_000_000, endpoint=False)
    ring = np.c_[X0 + 300 + 100 * np.cos(t), Y0 - 300 + 100 * np.sin(t)]
    folder = submission(tmp_path / "sub", {"site_boundary": gdf([Polygon(ring)], id=[1])})
    refused(folder, tmp_path / "out", "1,000,001 vertices", "max_vertices_per_feature")
    res = run(
        "check",
        folder,
        "--out",
        tmp_path / "ok",
        "--limit",
        "max_vertices_per_feature=2000000",
        "--limit",
        "max_vertices_total=3000000",
    )
    assert res.exit_code in (0, 1), res.output
    assert (tmp_path / "ok" / "report.html").stat().st_size < 3_000_000  # drawn simplified


def test_yes_no_attributes_are_read_as_written_never_bool_of_the_text(tmp_path):
    """'no' in a utility's `underground` is False (an overhead line, not A(6) pipe), never the True that
    bool('no') gives; a value that is neither yes nor no is bad input naming the layer and ids."""
    import geopandas as gpd
    from shapely.geometry import LineString, box

    from geosite.errors import SiteValidationError
    from geosite.site import measure_site, site_from_frames

    crs = "EPSG:7593"
    site_box = box(0, 0, 400, 400)

    def layers(under):
        return {
            "site_boundary": gpd.GeoDataFrame(geometry=[site_box], crs=crs),
            "utilities": gpd.GeoDataFrame(
                {"status": ["new", "new"], "underground": under},
                geometry=[LineString([(0, 10), (200, 10)]), LineString([(0, 20), (150, 20)])],
                crs=crs,
            ),
        }

    m = measure_site(site_from_frames(layers(["no", "Yes"]), name="t", jurisdiction="grantsburg"))
    assert m.values["utilities.work_length_ft"] == pytest.approx(150.0)
    m = measure_site(site_from_frames(layers([0, None]), name="t", jurisdiction="grantsburg"))
    assert m.values["utilities.work_length_ft"] == pytest.approx(150.0)  # missing: underground (the default)
    with pytest.raises(SiteValidationError, match=r"utilities.*'underground' must hold yes or no.*'maybe'"):
        site_from_frames(layers(["maybe", "yes"]), name="t", jurisdiction="grantsburg")


def test_plan_maps_over_the_sheet_limit_are_refused_before_any_work(tmp_path):
    """A site 8 miles across would tile each plan map over hundreds of ARCH-D sheets at 1 in = 100 ft:
    refused before the analysis (exit 2, naming the limit and --no-maps), nothing written; the numbers
    alone (--no-maps) still run."""
    folder = submission(
        tmp_path / "sub",
        layers={
            "site_boundary": gdf([rect(0, -42_000, 42_000, 42_000)], id=[1]),
            "disturbance": gdf(
                [rect(250, -350, 100, 100)], id=[1], phase=["all"], start=["2027-05-03"], end=["2027-10-29"]
            ),
        },
        dem=False,
    )
    before = digest(folder)
    out = tmp_path / "out"
    res = run("analyze", folder, "--out", out)
    assert res.exit_code == 2 and "max_sheet_tiles 100" in res.output and "--no-maps" in res.output, (
        res.output
    )
    assert "ARCH-D" in res.output and "sheets each at 1 in = 100 ft" in res.output
    assert not out.exists() and digest(folder) == before
    res = run("analyze", folder, "--out", out, "--no-maps")
    assert res.exit_code == 0, res.output
    res = run(
        "analyze", folder, "--out", tmp_path / "out2", "--limit", "max_sheet_tiles=1", "--sheet", "ANSI-D"
    )
    assert res.exit_code == 2 and "max_sheet_tiles 1;" in res.output, res.output
