"""The DXF is the plan (issue 31 item 5): read back with ezdxf, every control of the plan is on its practice's
CAD layer and nothing else is, every stockpile footprint and phase is there with its dates, attributes are
rounded to what was measured, and no text sits on another symbol; the text the construction sheet placed is
where the sheet put it; LibreCAD draws it.

The sites are built here (a disturbance of two dated phases on a plane falling 4 % to 6 %, two stockpiles,
a drive from a road with a storm inlet, a proposed house; one with a submitted ``bmps`` layer the proposal
replaces), plus the two samples. The CAD layer each control must be on is written out below from
docs/cad_layers.md, not read from the code that draws it.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import shutil
import subprocess
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import ezdxf
import geopandas as gpd
import pytest
import shapely
from sitebuilder import line, make_site, point, rect

from geosite.testing import inclined_plane

CRS = "EPSG:7593"
ROOT = Path(__file__).resolve().parents[1]
SCALE_FT = 100.0  # the DXF's plot scale in these tests, ft per inch (1 in = 100 ft)
#: half a drawn line's width on paper, inches: a symbol reaches this far either side of its geometry
PEN_IN = 0.01
#: a point control's block symbol: 0.06 in radius on paper (docs/cad_layers.md)
SYMBOL_IN = 0.06
#: a TEXT's ink about its baseline, in text heights: descenders below, accents above (the box the test
#: holds off the symbols; a fitted TEXT is exactly as wide as its two points say)
DESCENT, ASCENT = 0.3, 1.05

#: (practice, side) -> the CAD layer its controls go on (docs/cad_layers.md)
EXPECTED_LAYER = {
    ("silt_fence", "downslope"): "C-ESCP-SFNC-DOWN",
    ("silt_fence", "sideslope"): "C-ESCP-SFNC-SIDE",
    ("silt_fence", "hook"): "C-ESCP-SFNC-HOOK",
    ("silt_fence", "interior"): "C-ESCP-SFNC-ROWS",
    ("silt_fence", "channel"): "C-ESCP-SFNC-CHNL",
    ("silt_fence", "stockpile"): "C-ESCP-SFNC-STKP",
    ("silt_fence", None): "C-ESCP-SFNC",
    ("sediment_trap", None): "C-ESCP-BASN-FOOT",
    ("sediment_basin", None): "C-ESCP-BASN",
    ("tracking_pad", None): "C-ESCP-TRAK",
    ("inlet_protection", None): "C-ESCP-INLT",
    ("erosion_mat", None): "C-ESCP-MATS",
    ("stabilization", None): "C-ESCP-STAB",
    ("diversion", None): "C-ESCP-DIVR",
    ("straw_bales", None): "C-ESCP-BALE",
    ("dewatering", None): "C-ESCP-DEWT",
}


def gdf(d, geoms) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(d, geometry=list(geoms), crs=CRS)


def build_site(folder: Path, slope_pct: float, azimuth_deg: float, *, jurisdiction="grantsburg", bmps=False):
    layers = {
        "site_boundary": gdf({"id": [1]}, [rect(100, -500, 400, 360)]),
        "disturbance": gdf(
            {
                "id": [1, 2],
                "phase": ["A", "B"],
                "start": ["2027-05-03", "2027-07-01"],
                "end": ["2027-08-30", "2027-10-15"],
            },
            [rect(140, -330, 200, 150), rect(340, -460, 130, 170)],
        ),
        "stockpiles": gdf(
            {"id": [1, 2], "name": ["Topsoil", "Fill"], "days": [45, 12]},
            [rect(160, -300, 40, 30), rect(380, -440, 30, 30)],
        ),
        "roads": gdf({"id": [1], "name": ["Elm Street"], "status": ["existing"]}, [rect(0, -140, 600, 30)]),
        "access_drives": gdf({"id": [1], "name": ["Drive"]}, [rect(230, -180, 16, 40)]),
        "storm_inlets": gdf({"id": [1], "name": ["CB-7"]}, [point(300, -125)]),
        "structures": gdf(
            {"id": [1], "name": ["New house"], "status": ["proposed"]}, [rect(220, -280, 50, 40)]
        ),
        "utilities": gdf(
            {
                "id": [1, 2],
                "kind": ["water", "sanitary"],
                "status": ["existing", "new"],
                "name": ["Main", "Lateral"],
            },
            [line((0, -130), (600, -130)), line((240, -130), (240, -250))],
        ),
        "wetlands": gdf({"id": [1], "name": ["Low meadow"]}, [rect(500, -500, 80, 120)]),
        "floodplain": gdf(
            {"id": [1], "zone": ["fringe"], "name": ["Creek fringe"]}, [rect(480, -520, 120, 160)]
        ),
    }
    if bmps:  # what the applicant showed: a short fence and a 30 ft pad, replaced by geosite's proposal
        layers["bmps"] = gdf(
            {"id": [1, 2], "type": ["silt_fence", "tracking_pad"], "name": ["Fence S", "Pad"]},
            [line((150, -335), (330, -335)), rect(232, -170, 12, 30)],
        )
    conf = {"jurisdiction": jurisdiction, "project": {"start": "2027-05-01", "end": "2027-10-30"}}
    dem = inclined_plane(slope_pct, shape=(400, 400), cell=2.0, azimuth_deg=azimuth_deg)
    return make_site(folder, layers, conf, dem=dem)


def analyzed(folder: Path):
    from geosite.pipeline import analyze
    from geosite.site import load_site

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return analyze(load_site(folder))


BUILT = {
    "south_4pct": {"slope_pct": 4.0, "azimuth_deg": 180.0},
    "southeast_6pct_bmps": {"slope_pct": 6.0, "azimuth_deg": 135.0, "bmps": True},
    "west_5pct_belgium": {"slope_pct": 5.0, "azimuth_deg": 270.0, "jurisdiction": "belgium"},
}


#: the DXFs the rules are held on: the built sites' (written without maps: the DXF places its own text),
#: Belgium's (without maps) and Lot 7's as ``analyze`` writes it beside its sheets (their text)
CASES = [*(f"built:{k}" for k in sorted(BUILT)), "belgium", "lot7"]


@pytest.fixture(scope="module", params=CASES)
def case(request, tmp_path_factory):
    """(analysis, DXF read back) of one of :data:`CASES`."""
    return _case(request, request.param, tmp_path_factory)


_CASES: dict[str, tuple] = {}


def _case(request, name: str, tmp_path_factory):
    from geosite.views.dxf import write_dxf

    if name not in _CASES:
        scale = SCALE_FT
        if name == "lot7":
            from geosite.pipeline import fitted_scale

            result, path = (
                request.getfixturevalue("lot7_result"),
                request.getfixturevalue("lot7_outputs") / "derived.dxf",
            )
            scale = fitted_scale(result)  # analyze writes the DXF at the sheets' scale (1 in = 30 ft)
        else:
            tmp = tmp_path_factory.mktemp(name.replace(":", "_"))
            if name == "belgium":
                result = request.getfixturevalue("belgium_result")
            else:
                result = analyzed(build_site(tmp / "site", **BUILT[name.split(":")[1]]))
            path = write_dxf(result.plan, tmp / "plan.dxf", scale_ft=SCALE_FT)
        _CASES[name] = (result, ezdxf.readfile(path))
        _SCALES[id(_CASES[name][1])] = scale
    return _CASES[name]


#: each case's DXF's plot scale, ft per inch, by the document's id: the scale its symbols are sized for
_SCALES: dict[int, float] = {}


@pytest.fixture(scope="module")
def built(request, tmp_path_factory):
    """The first built site's (analysis, DXF)."""
    return _case(request, CASES[0], tmp_path_factory)


def xdata(e) -> dict[str, str]:
    try:
        tags = e.get_xdata("GEOSITE")
    except ezdxf.DXFValueError:
        return {}
    return dict(t.value.split("=", 1) for t in tags)


def drawn(doc) -> list:
    """The entities that draw features (not text or leaders)."""
    return [e for e in doc.modelspace() if e.dxftype() in ("LWPOLYLINE", "INSERT")]


# -------------------------------------------------------------------------------------------- controls


def test_every_control_of_the_plan_is_on_its_practices_layer_and_nothing_else_is(case):
    result, doc = case
    plan = result.plan
    assert doc.audit().has_errors is False
    by_id = defaultdict(list)
    for e in drawn(doc):
        xd = xdata(e)
        if "control_id" in xd:
            by_id[int(xd["control_id"])].append(e)
    assert set(by_id) == {c.id for c in plan.controls}  # every control, and no other
    per_practice = Counter(c.practice for c in plan.controls)
    assert Counter(xdata(v[0])["type"] for v in by_id.values()) == per_practice
    for c in plan.controls:
        ents = by_id[c.id]
        want = EXPECTED_LAYER[(c.practice, c.get("side"))]
        assert {e.dxf.layer for e in ents} == {want}, (c.id, c.practice, c.get("side"))
        assert xdata(ents[0])["status"] == plan.source
        if c.family == "point":  # its practice's block at its point
            (ref,) = ents
            assert ref.dxftype() == "INSERT" and ref.dxf.name.startswith("GS_")
            assert (ref.dxf.insert.x, ref.dxf.insert.y) == pytest.approx((c.geometry.x, c.geometry.y))
        elif c.family == "line":  # as long as the control (its pay length)
            n = sum(shapely.LineString([p[:2] for p in e.get_points()]).length for e in ents)
            assert n * plan.site.ft_per_unit == pytest.approx(c.get("length_ft"), abs=0.06)
        else:  # its outline encloses its area
            rings = [e for e in ents if e.dxftype() == "LWPOLYLINE"]
            area = sum(shapely.Polygon([p[:2] for p in e.get_points()]).area for e in rings)
            holes = sum(len(p.interiors) for p in shapely.get_parts(c.geometry))
            if not holes:
                assert area * plan.site.ft_per_unit**2 == pytest.approx(c.get("area_sqft"), abs=0.6)
    # the practices' control layers hold nothing but the plan's controls (no analysis copy, no submitted one)
    layers = set(EXPECTED_LAYER.values())
    strays = [e for e in drawn(doc) if e.dxf.layer in layers and "control_id" not in xdata(e)]
    assert not strays, [(e.dxf.layer, xdata(e).get("geosite_layer")) for e in strays[:5]]


def test_a_submission_the_proposal_replaces_is_not_drawn(request, tmp_path_factory):
    """Where geosite proposes the plan, the applicant's fence and pad (the submission it replaces) are not in
    the DXF: no entity runs along the submitted fence's line."""
    result, doc = _case(request, "built:southeast_6pct_bmps", tmp_path_factory)
    assert result.plan.source == "proposed" and len(result.plan.submitted) == 2
    fence = next(c for c in result.plan.submitted if c.practice == "silt_fence").geometry
    for e in doc.modelspace().query("LWPOLYLINE"):
        g = shapely.LineString([p[:2] for p in e.get_points()])
        assert g.hausdorff_distance(fence) > 1.0, e.dxf.layer
    assert not [e for e in drawn(doc) if xdata(e).get("status") == "submitted"]


# ----------------------------------------------------------------------------------- piles and phases


def test_every_pile_and_phase_is_there_with_its_dates(case):
    result, doc = case
    plan = result.plan
    msp = doc.modelspace()
    piles = list(msp.query('LWPOLYLINE[layer=="C-ESCP-STKP"]'))
    n_piles = 0 if plan.piles is None else len(plan.piles)
    assert len({xdata(e)["id"] for e in piles}) == len(piles) == n_piles  # Belgium: all four
    if n_piles:
        for e, (_, row) in zip(
            sorted(piles, key=lambda e: int(xdata(e)["id"])), plan.piles.iterrows(), strict=True
        ):
            xd = xdata(e)
            assert xd["name"] == row["name"] and float(xd["days"]) == float(row["days"])
            placed = dt.date.fromisoformat(xd["placed"])  # the day it is placed and the day it goes
            assert dt.date.fromisoformat(xd["until"]) - placed == dt.timedelta(days=int(row["days"]))
            g = shapely.Polygon([p[:2] for p in e.get_points()])
            assert g.area == pytest.approx(row.geometry.area, rel=1e-9)
    phases = {xdata(e)["phase"]: xdata(e) for e in msp.query('LWPOLYLINE[layer=="C-ESCP-PHAS"]')}
    assert set(phases) == {ph.key for ph in plan.phases}
    for ph in plan.phases:
        xd = phases[ph.key]
        for k in ("start", "end", "stabilized"):
            assert xd[k] == getattr(ph, k).isoformat()
        assert int(xd["area_sqft"]) == round(ph.area_sqft)


def test_without_maps_each_phase_says_its_dates_in_text(built):
    result, doc = built
    texts = _label_texts(doc)
    for ph in result.plan.phases:
        text = texts[f"phase:{ph.key}"]
        assert (
            ph.start.isoformat() in text and ph.end.isoformat() in text and ph.stabilized.isoformat() in text
        )
    for _, row in result.plan.piles.iterrows():
        assert f"{int(row['days'])} DAYS FROM" in texts[f"pile:{row['id']}"]


def labels_of(doc) -> list:
    """The label TEXTs (those naming a feature; not the tables' cells)."""
    return [t for t in doc.modelspace().query("TEXT") if "names" in xdata(t)]


def _label_texts(doc) -> dict[str, str]:
    """Each feature's label text (its lines joined), by each feature it names."""
    out: dict[str, list[str]] = defaultdict(list)
    for t in labels_of(doc):
        for key in xdata(t)["names"].split(","):
            out[key].append(t.dxf.text)
    return {k: "\n".join(v) for k, v in out.items()}


def table_rows(doc) -> dict[str, list[dict[str, str]]]:
    """The tables beside the drawing, read back by their cells' XDATA: title -> rows (column -> text)."""
    rows: dict[str, dict[int, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    for t in doc.modelspace().query('TEXT[layer=="C-ANNO-TABL"]'):
        xd = xdata(t)
        if int(xd["row"]) > 0:
            rows[xd["table"]][int(xd["row"])][xd["column"]] = t.dxf.text
    return {k: [v[i] for i in sorted(v)] for k, v in rows.items()}


def test_the_tables_hold_every_control_phase_and_pile(case):
    """Beside the drawing, the schedule names every control by its tag (the labels' ``C7``) with its dates,
    and the phases and stockpiles tables give their dates and days: the DXF says the plan in text."""
    from geosite.plan.table import parse_tags

    result, doc = case
    plan = result.plan
    tables = table_rows(doc)
    (controls,) = [v for k, v in tables.items() if k.startswith("SCHEDULE OF CONTROLS")]
    assert set().union(*(parse_tags(r["TAGS"]) for r in controls)) == {c.id for c in plan.controls}
    for r in controls:
        for c in (c for c in plan.controls if c.id in parse_tags(r["TAGS"])):
            assert r.get("INSTALL", "") == (c.install.isoformat() if c.install else "")
            assert r.get("REMOVE", "") == (c.remove.isoformat() if c.remove else "")
    phases = {r["PHASE"]: r for r in tables["PHASES"]}
    for ph in plan.phases:
        assert (phases[ph.key]["START"], phases[ph.key]["END"], phases[ph.key]["STABILIZED"]) == (
            ph.start.isoformat(),
            ph.end.isoformat(),
            ph.stabilized.isoformat(),
        )
    piles = {r["ID"]: r for r in tables.get("STOCKPILES", [])}
    for _, row in plan.piles.iterrows() if plan.piles is not None else []:
        assert piles[str(row["id"])]["DAYS"] == f"{row['days']:g}"


# ------------------------------------------------------------------------------------------ attributes

#: a number's decimals by its name's unit (lengths 0.1 ft, areas 1 sq ft, acres 0.01)
ROUNDED = {"_sqft": r"-?\d+", "_acres": r"-?\d+\.\d{2}", "_ft": r"-?\d+\.\d"}
DATES = ("install", "remove", "start", "end", "stabilized", "placed", "until")


def test_attributes_are_rounded_to_what_was_measured(case):
    _, doc = case
    seen = Counter()
    for e in doc.modelspace():
        pairs = list(xdata(e).items())
        if e.dxftype() == "INSERT":
            pairs += [(a.dxf.tag.lower(), a.dxf.text) for a in e.attribs]
        for k, v in pairs:
            if not v or k in ("names", "geosite_layer"):
                continue
            suffix = next((s for s in ROUNDED if k.endswith(s)), None)
            if suffix and re.fullmatch(r"-?[\d.]+", v):
                assert re.fullmatch(ROUNDED[suffix], v), (k, v)
                seen[suffix] += 1
            if k in DATES:
                assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", v), (k, v)
                seen["date"] += 1
            assert not re.search(r"\d\.\d{3,}", v), (k, v)  # never three decimals or more
    assert seen["_ft"] and seen["_sqft"] and seen["date"]


def test_cad_text_rounds_by_unit():
    from geosite.views.cad_items import cad_text

    assert cad_text("length_ft", 168.65934) == "168.7"
    assert cad_text("area_sqft", 26312.4999) == "26312"
    assert cad_text("drainage_acres", 0.6507805) == "0.65"
    assert cad_text("days", 45.0) == "45"
    assert cad_text("surface_ratio", 1.23456) == "1.23"
    assert cad_text("install", dt.date(2027, 5, 2)) == "2027-05-02"
    assert cad_text("count", 7) == "7" and cad_text("x", float("nan")) == ""


# ----------------------------------------------------------------------------------------------- text


def text_box(t):
    """A fitted TEXT's box: from its first point to its second, DESCENT below and ASCENT above."""
    a, b, h = t.dxf.insert, t.dxf.align_point, t.dxf.height
    ang = math.atan2(b.y - a.y, b.x - a.x)
    c, s = math.cos(ang), math.sin(ang)
    w = math.hypot(b.x - a.x, b.y - a.y)
    corners = [(0, -DESCENT * h), (w, -DESCENT * h), (w, ASCENT * h), (0, ASCENT * h)]
    return shapely.Polygon([(a.x + x * c - y * s, a.y + x * s + y * c) for x, y in corners])


def control_symbols(plan, units_per_inch: float) -> dict[str, object]:
    """Each control's symbol as CAD draws it, from the plan: a line buffered by half its pen, an area's
    outline likewise, a point's block circle."""
    pen = PEN_IN * units_per_inch
    out = {}
    for c in plan.controls:
        g = c.geometry
        if c.family == "point":
            out[f"control:{c.id}"] = g.buffer(SYMBOL_IN * units_per_inch)
        elif c.family == "polygon":
            out[f"control:{c.id}"] = g.boundary.buffer(pen)
        else:
            out[f"control:{c.id}"] = g.buffer(pen)
    return out


def test_no_text_is_over_another_symbol_or_label(case):
    result, doc = case
    upi = _SCALES[id(doc)] / result.plan.site.ft_per_unit  # the symbols as large as the DXF drew them
    symbols = control_symbols(result.plan, upi)
    texts = [(xdata(t).get("names", "table"), text_box(t)) for t in doc.modelspace().query("TEXT")]
    assert texts
    hits = [
        (names, key)
        for names, b in texts
        for key, sym in symbols.items()
        if key not in names.split(",") and b.intersects(sym)
    ]
    assert not hits, hits[:10]
    tree = shapely.STRtree([b for _, b in texts])
    for i, (names, b) in enumerate(texts):
        for j in tree.query(b, predicate="intersects").tolist():
            assert j == i or texts[j][0] == names, (names, texts[j][0])  # only its own label's lines
    leaders = [
        (xdata(e)["names"], shapely.LineString([tuple(e.dxf.start)[:2], tuple(e.dxf.end)[:2]]))
        for e in doc.modelspace().query('LINE[layer=="C-ANNO-ESCP" | layer=="C-ANNO-IDEN"]')
    ]
    for names, seg in leaders:
        for j in tree.query(seg, predicate="intersects").tolist():
            assert texts[j][0] == names, (names, texts[j][0])


def test_every_control_is_labelled_in_the_samples_and_built_sites(case):
    """Every control with a label of its own (a J-hook has none) gets it, where the sheet put it or
    where the DXF found room."""
    result, doc = case
    texts = _label_texts(doc)
    from geosite.views.cad_plan import control_item

    want = {f"control:{c.id}" for c in result.plan.controls if control_item(c, result.plan).label}
    assert want and want <= set(texts), sorted(want - set(texts))


def test_the_sheets_labels_are_where_the_sheet_placed_them(lot7_result, tmp_path):
    """Lot 7's construction sheet drawn here: every DXF text the sheet placed lies inside the box the sheet
    measured for that label (paper inches, brought to model space with the sheet's own frame and scale),
    upright as the sheet set it; every sheet label naming a feature the DXF draws is written."""
    from label_clearance import construction_sheets

    from geosite.views.dxf import write_dxf

    sheets = construction_sheets(lot7_result)
    labels = [lab for s in sheets for lab in s.model_labels]
    assert labels
    doc = ezdxf.readfile(write_dxf(lot7_result.plan, tmp_path / "l7.dxf", scale_ft=SCALE_FT, labels=labels))
    placed = []
    for s in sheets:
        upi = s.plan.units_per_inch
        fx0, fy0, _, _ = s.plan.sheet.frame
        tx, ty = s.tile.bounds[0], s.tile.bounds[1]
        for text, bb in s.placed:
            x0, y0, x1, y1 = bb.bounds
            model = shapely.box(
                (x0 - fx0) * upi + tx, (y0 - fy0) * upi + ty, (x1 - fx0) * upi + tx, (y1 - fy0) * upi + ty
            )
            placed.append((text, model))
    from_sheet = [t for t in labels_of(doc) if xdata(t)["source"] == "sheet"]
    assert len(from_sheet) >= 10
    for t in from_sheet:
        centre = text_box(t).centroid
        assert any(
            t.dxf.text in text.split("\n") and box.buffer(0.5).contains(centre) for text, box in placed
        ), t.dxf.text
    written = {t.dxf.text for t in labels_of(doc)}
    from geosite.views.cad_labels import match
    from geosite.views.cad_plan import plan_items

    for n in match(labels, plan_items(lot7_result.plan)):
        if n.label.kind != "contour":
            assert set(n.label.text.split("\n")) <= written, n.label.text


def test_the_map_worker_hands_back_the_construction_sheets_labels(built, tmp_path):
    """The labels come back from the map worker as the construction sheet places them in this process."""
    from label_clearance import construction_sheets

    from geosite.maps.worker import map_worker, start_plan_maps

    result, _ = built
    got: dict[str, tuple] = {}
    with map_worker() as worker:
        if worker is None:
            pytest.skip("no second CPU or fork: the worker path cannot run here")
        start_plan_maps(result, tmp_path / "w", worker=worker, png_dpi=None).wait(
            on_labels=lambda labs: got.update(worker=labs)
        )
    here = [lab for s in construction_sheets(result) for lab in s.model_labels]
    assert got["worker"] and [(x.text, round(x.x, 6), round(x.y, 6)) for x in got["worker"]] == [
        (x.text, round(x.x, 6), round(x.y, 6)) for x in here
    ]
    assert {x.kind for x in here} >= {"phase", "stockpile", "control"}


# ------------------------------------------------------------------------------------------- LibreCAD


@pytest.mark.skipif(
    shutil.which("librecad") is None, reason="LibreCAD is not installed (apt-get install librecad)"
)
def test_librecad_draws_every_control_layer(built, tmp_path):
    """scripts/render_dxf_librecad.py prints the DXF with LibreCAD; with every layer but one control layer
    frozen, the page still has ink: LibreCAD draws each practice's lines, outlines and blocks."""
    import numpy as np
    from PIL import Image

    result, doc = built
    layers = sorted({EXPECTED_LAYER[(c.practice, c.get("side"))] for c in result.plan.controls})
    assert len(layers) >= 5
    script = ROOT / "scripts" / "render_dxf_librecad.py"
    whole = tmp_path / "whole.dxf"
    doc.saveas(whole)
    paths = [whole]
    one = ezdxf.readfile(whole)
    for name in layers:
        for layer in one.layers:  # a block's lines are on 0, drawn in its insert's layer
            layer.thaw() if layer.dxf.name in (name, "0") else layer.freeze()
        paths.append(tmp_path / f"{name}.dxf")
        one.saveas(paths[-1])
    subprocess.run(
        [
            sys.executable,
            str(script),
            *map(str, paths),
            "--out",
            str(tmp_path / "png"),
            "--dpi",
            "50",
            "--no-counts",
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    ink = {}
    for path in paths:
        img = np.asarray(Image.open(tmp_path / "png" / f"{path.stem}.png").convert("L"))
        ink[path.stem] = int((img < 250).sum())  # not white (ACI 2, yellow, is light in grey)
    assert all(n > 20 for n in ink.values()), ink  # ink on every page
    assert ink["whole"] > max(ink[n] for n in layers)  # the whole drawing has more than any one layer
