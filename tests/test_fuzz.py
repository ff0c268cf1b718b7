"""Fuzzing (issue 13, requirement 8): polygons (valid, invalid, multi, holes, Z, tiny, huge), DEMs
(nodata, inf, constant, 1-3 cells wide) and site.toml values, through ``site_from_frames`` /
``analyze`` and the CLI. Property: geosite raises only ``geosite.errors`` exceptions, and every report
holds its invariants (areas finite and non-negative, disturbed <= site, steep <= disturbed).

Profiles (hypothesis settings, chosen by ``GEOSITE_FUZZ_PROFILE``):

- ``ci`` (default): a short run for every test suite run (well under a minute on 2 cores);
- ``soak``: the benchmark-style long run, ``GEOSITE_FUZZ_PROFILE=soak pytest tests/test_fuzz.py``
  (hundreds of examples per property; minutes to an hour).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402 - after the importorskip
from hypothesis import strategies as st  # noqa: E402

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "soak",
    max_examples=400,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("GEOSITE_FUZZ_PROFILE", "ci"))

X0, Y0 = 500_000.0, 200_000.0
CRS = "EPSG:7593"

# ------------------------------------------------------------------------------------------ strategies

sizes = st.one_of(st.floats(1e-4, 1.0), st.floats(1.0, 2_000.0), st.floats(2_000.0, 1e6))
offsets = st.floats(-500.0, 500.0)


@st.composite
def polygons(draw):
    """A polygon of one of the kinds a submission may hold, in EPSG:7593 feet near (X0, Y0)."""
    from shapely.geometry import MultiPolygon, Polygon, box

    kind = draw(
        st.sampled_from(["box", "bowtie", "multi", "hole", "z", "sliver", "spike", "duplicate_points"])
    )
    x, y, w, h = draw(offsets), draw(offsets), draw(sizes), draw(sizes)
    x, y = X0 + x, Y0 + y
    if kind == "box":
        return box(x, y, x + w, y + h)
    if kind == "bowtie":
        return Polygon([(x, y), (x + w, y + h), (x + w, y), (x, y + h)])
    if kind == "multi":
        return MultiPolygon([box(x, y, x + w, y + h), box(x + 2 * w, y, x + 3 * w, y + h)])
    if kind == "hole":
        return Polygon(
            box(x, y, x + w, y + h).exterior.coords,
            [box(x + w / 4, y + h / 4, x + w / 2, y + h / 2).exterior.coords],
        )
    if kind == "z":
        z = draw(st.one_of(st.floats(-1e3, 1e3), st.just(float("nan"))))
        return Polygon([(x, y, z), (x + w, y, z), (x + w, y + h, z), (x, y + h, z)])
    if kind == "sliver":
        return box(x, y, x + w, y + 1e-6)
    if kind == "spike":
        return Polygon([(x, y), (x + w, y), (x + w / 2, y + h), (x + w / 2, y + 10 * h), (x + w / 2, y + h)])
    return Polygon([(x, y), (x, y), (x + w, y), (x + w, y + h), (x, y + h)])


@st.composite
def dems(draw):
    """A DEM as an array over the site's neighbourhood: planes, constants, nodata, inf, 1-3 cells wide."""
    from affine import Affine

    from geosite.grid import Dem

    rows = draw(st.sampled_from([1, 2, 3, 12, 40]))
    cols = draw(st.sampled_from([1, 2, 3, 12, 40]))
    cell = draw(st.sampled_from([0.5, 2.0, 25.0, 1e-300, 5_000.0]))
    kind = draw(st.sampled_from(["plane", "constant", "nodata", "inf", "noise"]))
    r, c = np.mgrid[0:rows, 0:cols]
    z = 900.0 + draw(st.floats(0, 30)) / 100 * r * cell
    if kind == "constant":
        z = np.full((rows, cols), 900.0)
    elif kind == "nodata":
        z = np.where(np.random.default_rng(draw(st.integers(0, 99))).random((rows, cols)) < 0.5, np.nan, z)
    elif kind == "inf":
        z = z.astype(float)
        z.flat[draw(st.integers(0, rows * cols - 1))] = draw(st.sampled_from([np.inf, -np.inf]))
    elif kind == "noise":
        z = z + np.random.default_rng(draw(st.integers(0, 99))).normal(0, 3, (rows, cols))
    t = Affine(cell, 0, X0 - 600, 0, -cell, Y0 + 600)
    return Dem.from_array(z, t, CRS, "us_ft")


TOML_VALUES = st.one_of(
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.dates(min_value=dt.date(1, 1, 1)),
    st.datetimes(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["a", "name"]), st.integers(), max_size=1),
)
VALID = {
    "name": "Lot 7",
    "jurisdiction": "belgium",
    "crs": "EPSG:7593",
    "map_margin_ft": 150.0,
    "start": dt.date(2027, 5, 1),
    "end": dt.date(2027, 9, 30),
    "cut_cy": 250.0,
    "fill_cy": 0,
    "plat": "subdivision",
    "dewatering": False,
    "building_permit_days": 365,
    "phone": "715-555-0100",
    "vertical_unit": "m",
    "path": "dem.tif",
    "roads": "layers.gpkg:site_boundary",
    "disturbed_area_sqft": 10_000.0,
    "map_dpi": 150,
    "maintenance": "weekly",
    "dem": {"path": "dem.tif", "vertical_unit": "us_ft"},
    "layers": {"path": "layers.gpkg"},
    "project": {"start": dt.date(2027, 5, 3)},
}
TOML_KEYS = [
    ("", "name"),
    ("", "jurisdiction"),
    ("", "crs"),
    ("", "map_margin_ft"),
    ("project", "start"),
    ("project", "end"),
    ("project", "cut_cy"),
    ("project", "fill_cy"),
    ("project", "plat"),
    ("project", "dewatering"),
    ("project", "building_permit_days"),
    ("applicant", "name"),
    ("applicant", "phone"),
    ("dem", "vertical_unit"),
    ("dem", "path"),
    ("layers", "roads"),
    ("declared", "disturbed_area_sqft"),
    ("declared", "map_dpi"),
    ("declared", "maintenance"),
    ("", "dem"),
    ("", "layers"),
    ("", "project"),
]


def _frame(geoms, **cols):
    import geopandas as gpd

    return gpd.GeoDataFrame(cols, geometry=list(geoms), crs=CRS)


def assert_invariants(report: dict) -> None:
    site = report["site"]["area_sqft"]
    d = report["disturbed"]
    assert math.isfinite(site) and site >= 0
    for key in ("area_sqft", "max_at_one_time_sqft", "outside_site_sqft"):
        v = d.get(key)
        assert v is None or (math.isfinite(v) and v >= 0), (key, v)
    if d.get("area_sqft") is not None:
        # A(3) measures the activity, on or off the parcel: its part on the parcel fits the site, the rest is
        # outside
        on_site = report["measurements"]["disturbed.on_site_sqft"]
        assert on_site <= site * (1 + 1e-9) + 1e-6
        assert d["area_sqft"] == pytest.approx(on_site + d["outside_site_sqft"], rel=1e-6, abs=1e-3)
        assert d["max_at_one_time_sqft"] <= d["area_sqft"] * (1 + 1e-9) + 1e-6
    slopes = report.get("slopes") or {}
    steep = slopes.get("steep_disturbed_area_sqft")
    if steep is not None:
        assert math.isfinite(steep) and steep >= 0
        assert steep <= (d["area_sqft"] or 0) * (1 + 1e-6) + 1.0
    for v in (report.get("measurements") or {}).values():
        assert not (isinstance(v, float) and math.isinf(v)), report["measurements"]


# ------------------------------------------------------------------------------------------ properties


@given(
    boundary=polygons(),
    disturbance=st.lists(polygons(), min_size=0, max_size=3),
    dem=st.one_of(st.none(), dems()),
    dates=st.lists(
        st.one_of(st.none(), st.dates(dt.date(2020, 1, 1), dt.date(2030, 1, 1))), min_size=6, max_size=6
    ),
)
def test_site_from_frames_and_analyze_raise_only_geosite_errors(boundary, disturbance, dem, dates):
    import geosite
    from geosite.errors import GeositeError

    layers = {"site_boundary": _frame([boundary], id=[1])}
    if disturbance:
        n = len(disturbance)
        layers["disturbance"] = _frame(
            disturbance,
            id=list(range(1, n + 1)),
            phase=[str(i) for i in range(n)],
            start=dates[:n],
            end=dates[3 : 3 + n],
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            site = geosite.site_from_frames(
                layers, name="fuzz", jurisdiction="grantsburg", dem=dem, make_valid=True
            )
            result = geosite.analyze(site)
        except GeositeError:
            return
    assert_invariants(result.report)


_BASE = {}


def _base_submission(tmp_path_factory):
    """One small clean submission (built once), whose site.toml each example rewrites."""
    if "folder" not in _BASE:
        from hostile import submission

        _BASE["folder"] = submission(tmp_path_factory.mktemp("fuzz") / "sub")
    return _BASE["folder"]


def _entry(draw_key):
    return draw_key.flatmap(lambda k: st.tuples(st.just(k), st.one_of(st.just(VALID[k[1]]), TOML_VALUES)))


@given(values=st.lists(_entry(st.sampled_from(TOML_KEYS)), min_size=1, max_size=4))
def test_site_toml_values_through_the_cli_give_a_verdict_or_exit_2(tmp_path_factory, values):
    import tomllib

    from click.testing import CliRunner
    from sitebuilder import write_toml

    from geosite.cli import cli

    folder = _base_submission(tmp_path_factory)
    conf = {
        "name": "fuzz",
        "jurisdiction": "grantsburg",
        "dem": {"path": "dem.tif", "vertical_unit": "us_ft"},
        "layers": {"path": "layers.gpkg"},
        "declared": {"plan_type": "statement"},
    }
    for (table, key), v in values:
        if table == "":
            conf[key] = v
        else:
            if not isinstance(conf.get(table), dict):
                conf[table] = {}
            conf[table][key] = v
    write_toml(folder / "site.toml", conf)
    tomllib.loads((folder / "site.toml").read_text())  # the writer makes valid TOML
    out = tmp_path_factory.mktemp("out") / "check"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(out)])
    assert res.exception is None or isinstance(res.exception, SystemExit), (conf, res.output, res.exc_info)
    assert res.exit_code in (0, 1, 2), (conf, res.output)
    assert "Traceback" not in res.output
    if res.exit_code == 2:
        assert res.output.startswith("error: ") and not out.exists(), res.output
    else:
        import json

        summary = json.loads((out / "findings.json").read_text())
        assert summary["verdict"] in ("pass", "fail") and res.exit_code == (
            1 if summary["verdict"] == "fail" else 0
        )
        area = summary["disturbed_area_sqft"]
        assert area is None or (math.isfinite(area) and 0 <= area <= 40_000.0 * (1 + 1e-9))
