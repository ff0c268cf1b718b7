"""The written files read back with independent readers, as an inspector's or a CAD technician's
software would: the sheets with PyMuPDF (text boxes, searchable text), the GeoPackage with pyogrio,
the DXF with ezdxf (audit), GDAL (pyogrio's DXF driver) and ezdxf's drawing add-on (a PNG).

All on the Lot 7 sample site, written once (conftest ``lot7_outputs``)."""

from __future__ import annotations

import itertools
import json

import geopandas as gpd
import numpy as np
import pyogrio
import pytest
import shapely

pymupdf = pytest.importorskip("pymupdf")

SHEETS = ("existing_site_map.pdf", "construction_plan.pdf", "final_conditions.pdf")


def _spans(pdf):
    page = pymupdf.open(pdf)[0]
    out = []
    # ink boxes: with the PDF's standard fonts MuPDF's span box is the font's whole box, taller than
    # the line pitch of any multi-line text; what a reader sees meeting is the ink
    for b in page.get_text("dict", flags=pymupdf.TEXT_ACCURATE_BBOXES)["blocks"]:
        for line in b.get("lines", []):
            for s in line["spans"]:
                if s["text"].strip():
                    out.append((s["text"], pymupdf.Rect(s["bbox"])))
    return page, out


@pytest.fixture(scope="module")
def report(lot7_outputs):
    return json.loads((lot7_outputs / "report.json").read_text())


@pytest.mark.parametrize("name", SHEETS)
def test_no_two_text_boxes_on_a_sheet_intersect(lot7_outputs, name):
    _, spans = _spans(lot7_outputs / name)
    assert len(spans) > 60
    bad = [
        (a, b)
        for (a, ra), (b, rb) in itertools.combinations(spans, 2)
        if (ra & rb).width > 0.3 and (ra & rb).height > 0.3
    ]  # points; touching lines are not overlaps
    assert not bad, bad[:5]


def test_labels_are_searchable_text_named_from_attributes(lot7_outputs):
    page, spans = _spans(lot7_outputs / "existing_site_map.pdf")
    text = page.get_text()
    # the soils key is a table: the map unit's symbol, and its name on the same row to its right
    name = "Grantsburg silt loam, 2 to 6 percent slopes (HSG C)"
    assert any(
        abs((a.y0 + a.y1) - (b.y0 + b.y1)) < 2.0 and b.x0 > a.x1
        for t, a in spans
        if t == "GrB"
        for u, b in spans
        if u == name
    ), name
    for want in (
        "Birch Street (24 ft wide)",
        "6-in water main",
        "8-in sanitary sewer",
        "CB-1",
        "CB-2",
        "Little Wood Creek",
        "LOCATION MAP",
        "1 of 3",
        "REVISIONS",
        "SEAL",
        "Prepared by",
    ):
        assert page.search_for(want) or want in text, want
    assert "confirm" not in text.lower()
    for name, n in (("construction_plan.pdf", "2 of 3"), ("final_conditions.pdf", "3 of 3")):
        t = pymupdf.open(lot7_outputs / name)[0].get_text()
        assert n in t and "Lindquist residence (house + attached garage)" in t and "confirm" not in t.lower()
    # index contours labelled on every sheet
    for name in SHEETS:
        t = pymupdf.open(lot7_outputs / name)[0].get_text().split("\n")
        assert {"925", "950"} & set(t), name


def test_every_number_printed_is_report_json_s(lot7_outputs, report):
    m = report["measurements"]
    (phase,) = m["disturbed.phases"]
    assert phase["area_sqft"] == pytest.approx(report["disturbed"]["area_sqft"])  # one phase: the whole area
    want = f"{phase['area_sqft']:,.0f} sq ft ({phase['area_sqft'] / 43560:,.2f} ac)"
    # A(3) measures the activity: the polygon whole, its drive apron in the right-of-way included (26,072 sq
    # ft on the parcel)
    assert want == "26,312 sq ft (0.60 ac)"
    assert report["measurements"]["disturbed.on_site_sqft"] == pytest.approx(26_072, abs=1)
    construction = pymupdf.open(lot7_outputs / "construction_plan.pdf")[0].get_text()
    assert want in construction
    (up,) = m["hydrology.upslope"]
    existing = pymupdf.open(lot7_outputs / "existing_site_map.pdf")[0].get_text()
    assert f"upslope {up['area_sqft']:,.0f} sq ft ({up['area_sqft'] / 43560:,.2f} ac)" in existing.replace(
        "\n", " "
    )
    assert f"{up['area_d8_sqft']:,.0f} sq ft" not in existing  # D8's number is not printed as the size
    final = pymupdf.open(lot7_outputs / "final_conditions.pdf")[0].get_text()
    assert f"({want})" in final.replace("\n", " ")


def test_no_fence_row_crosses_a_structure_or_a_drive(lot7_outputs):
    from geosite.site import load_site

    fence = gpd.read_file(lot7_outputs / "derived.gpkg", layer="filter_fence")
    site = load_site(_lot7())
    rows = fence[fence["side"] == "interior"]
    assert len(rows) and (rows["length_ft"] >= 25.0 - 1e-6).all()
    for layer in ("structures", "access_drives", "roads", "stockpiles", "wetlands"):
        g = site.layer(layer).union_all()
        assert rows.intersection(g).length.sum() == 0.0, layer
    # where a row would cross the house, what stands in is drawn where it goes, in its own layer, never as
    # fence along the unbuildable row
    assert (fence["side"] != "stand_in").all()
    stand = gpd.read_file(lot7_outputs / "derived.gpkg", layer="stand_ins")
    # each says why its row is not built: the house (as before), the plan's trap or a piece too short
    assert len(stand) and all("the row here is not built (" in s for s in stand["stand_in_for"])
    assert any("would cross a structure:" in s for s in stand["stand_in_for"])
    assert stand.intersection(site.layer("structures").union_all()).area.sum() == 0.0


def _lot7():
    from conftest import ROOT

    return ROOT / "data" / "sample_sites" / "grantsburg_lot7"


# ---------------------------------------------------------------------------------------- GeoPackage


def test_geopackage_layers_have_one_declared_valid_type(lot7_outputs, report):
    path = lot7_outputs / "derived.gpkg"
    for name, gtype in pyogrio.list_layers(path):
        if name == "layer_styles":  # QGIS's styles, a table
            continue
        assert gtype not in (None, "Unknown", "GeometryCollection"), name
        gdf = gpd.read_file(path, layer=name)
        assert set(gdf.geom_type) <= {gtype, gtype.removeprefix("Multi")}, name
        assert gdf.is_valid.all(), name
    steep = gpd.read_file(path, layer="steep_slopes")
    assert set(steep.geom_type) == {"Polygon"}
    assert (steep.area >= report["slopes"]["min_area_sqft"] - 1e-6).all()  # the mapping unit it claims
    phases = gpd.read_file(path, layer="disturbance_phases")
    by = {p["phase"]: p["area_sqft"] for p in report["measurements"]["disturbed.phases"]}
    assert dict(zip(phases["phase"], phases.area, strict=True)) == pytest.approx(by)


# ----------------------------------------------------------------------------------------------- DXF


def test_dxf_opens_on_the_site_with_its_layers_units_and_attributes(lot7_outputs):
    import ezdxf

    from geosite.views.dxf import CAD_LAYERS

    doc = ezdxf.readfile(lot7_outputs / "derived.dxf")
    audit = doc.audit()
    assert not audit.errors and not audit.fixes
    assert doc.header["$INSUNITS"] == 21 and doc.header["$MEASUREMENT"] == 0  # US survey feet, imperial
    gpkg = lot7_outputs / "derived.gpkg"
    frames = {n: gpd.read_file(gpkg, layer=n) for n, t in pyogrio.list_layers(gpkg) if t}
    bounds = np.array([f.total_bounds for f in frames.values() if len(f)])
    want = (bounds[:, 0].min(), bounds[:, 1].min(), bounds[:, 2].max(), bounds[:, 3].max())
    ext = (*doc.header["$EXTMIN"][:2], *doc.header["$EXTMAX"][:2])
    # the drawing's extent is the layers'; the plan's tables (schedule, phases, stockpiles) stand to its
    # right, their top at its top (geosite.views.cad_tables), so only the extent's right edge is theirs
    assert (ext[0], ext[1], ext[3]) == pytest.approx((want[0], want[1], want[3]))
    tables = doc.modelspace().query('TEXT[layer=="C-ANNO-TABL"]')
    assert len(tables) and min(t.dxf.insert.x for t in tables) > want[2] and ext[2] > want[2]
    for key in (
        "filter_fence:downslope",
        "filter_fence:sideslope",
        "filter_fence:interior",
        "contours:index",
        "site_boundary",
        "steep_slopes",
    ):
        name, aci, lt, _ = CAD_LAYERS[key]
        layer = doc.layers.get(name)
        assert layer.dxf.color == aci and layer.dxf.linetype == lt, key
    msp = doc.modelspace()
    fence = frames["filter_fence"]
    for side in ("downslope", "sideslope", "interior"):  # fence types on separate layers
        ents = msp.query(f'LWPOLYLINE[layer=="{CAD_LAYERS["filter_fence:" + side][0]}"]')
        assert len(ents) == (fence["side"] == side).sum(), side
        xd = dict(t.value.split("=", 1) for t in ents.first.get_xdata("GEOSITE"))
        assert xd["side"] == side and float(xd["length_ft"]) > 0
    for e in msp.query('LWPOLYLINE[layer=="C-TOPO-MINR" | layer=="C-TOPO-MAJR"]'):  # contours at their height
        xd = dict(t.value.split("=", 1) for t in e.get_xdata("GEOSITE"))
        assert e.dxf.elevation == pytest.approx(float(xd["elevation_ft"])) and e.dxf.elevation % 5 == 0
    # GDAL reads the same entities on the same layers
    back = pyogrio.read_dataframe(lot7_outputs / "derived.dxf")
    assert (back["Layer"] == CAD_LAYERS["filter_fence:interior"][0]).sum() == (
        fence["side"] == "interior"
    ).sum()
    assert back.geometry.length[back["Layer"] == "C-ESCP-SFNC-DOWN"].sum() == pytest.approx(
        fence.loc[fence["side"] == "downslope", "length_ft"].sum(), rel=1e-9
    )


def test_dxf_renders_the_fence_where_the_geopackage_has_it(lot7_outputs, tmp_path):
    """ezdxf's drawing add-on renders the DXF to a PNG at the drawing's extent; every fence line of
    the GeoPackage must fall on drawn (dark) pixels, and the site's far corner beyond everything must not."""
    import ezdxf
    from ezdxf.addons.drawing import Frontend, RenderContext
    from ezdxf.addons.drawing.matplotlib import MatplotlibBackend
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from geosite.views.dxf import ANNO_LAYERS, CONTEXT_LAYERS

    doc = ezdxf.readfile(lot7_outputs / "derived.dxf")
    for name in [*ANNO_LAYERS, *(v[0] for v in CONTEXT_LAYERS.values())]:  # the geosite layers only
        if name in doc.layers:
            doc.layers.get(name).off()
    x0, y0 = doc.header["$EXTMIN"][:2]
    x1, y1 = doc.header["$EXTMAX"][:2]
    fig = Figure(figsize=(8, 8 * (y1 - y0) / (x1 - x0)), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    Frontend(RenderContext(doc), MatplotlibBackend(ax)).draw_layout(doc.modelspace(), finalize=True)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_axis_off()
    png = tmp_path / "dxf.png"
    fig.savefig(png, dpi=100, facecolor="white")
    import matplotlib.image as mpimg

    img = mpimg.imread(png)[:, :, :3]
    h, w = img.shape[:2]
    dark = img.mean(axis=2) < 0.9
    fence = gpd.read_file(lot7_outputs / "derived.gpkg", layer="filter_fence")
    hits = []
    for g in fence[fence["side"].isin(["downslope", "sideslope", "interior"])].geometry:
        for d in np.arange(0, g.length, 2.0):
            p = g.interpolate(d)
            c, r = int((p.x - x0) / (x1 - x0) * (w - 1)), int((y1 - p.y) / (y1 - y0) * (h - 1))
            hits.append(dark[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2].any())
    # the fence linetypes are dashed (8 ft dash and a dot in 12 ft; rows 4 ft in 9): most samples hit ink
    assert np.mean(hits) > 0.8
    # and ground 20 ft or more from every feature the DXF holds is blank
    gpkg = lot7_outputs / "derived.gpkg"
    drawn = shapely.union_all(
        [gpd.read_file(gpkg, layer=n).union_all() for n, t in pyogrio.list_layers(gpkg) if t]
    )
    far = shapely.box(x0, y0, x1, y1).difference(drawn.buffer(20.0))
    pts = [far.representative_point()] + [
        p
        for p in shapely.points(
            np.random.default_rng(1).uniform(x0, x1, 400), np.random.default_rng(2).uniform(y0, y1, 400)
        )
        if far.contains(p)
    ]
    assert len(pts) > 20
    for p in pts:
        c, r = int((p.x - x0) / (x1 - x0) * (w - 1)), int((y1 - p.y) / (y1 - y0) * (h - 1))
        assert not dark[r, c]


# -------------------------------------------------------------------------------------------- report.md


def test_report_md_names_features_and_gives_the_drainage(lot7_outputs, report):
    md = (lot7_outputs / "report.md").read_text()
    assert "Birch Street" in md and "Topsoil pile (the pile remains" in md
    assert "roads 1" not in md and "Stockpile 1" not in md  # named features by their names, not their ids
    (up,) = report["measurements"]["hydrology.upslope"]
    row = next(line for line in md.splitlines() if line.startswith("| 1 (House pad and drive) |"))
    assert (
        f"{up['area_sqft']:,.0f} sq ft ({up['area_acres']:,.3f} acres)" in row
    )  # D-infinity, as report.json
    assert (
        "Runoff leaves the site: **yes** (flow paths from the disturbed area cross the site boundary)." in md
    )
    for method in (
        report["slopes"]["method"],
        report["flow_routing"]["method"],
        up["area_method"],
        up["velocity_method"],
    ):
        assert method in md


def test_name_features_rewrites_references():
    from geosite.report import name_features

    names = {"storm_inlets": {"2": "CB-2", "5": "CB-5"}, "roads": {"1": "Birch Street"}}
    assert (
        name_features("Storm drain inlet(s) 2, 5 without inlet protection", names)
        == "Storm drain inlet CB-2, storm drain inlet CB-5 without inlet protection"
    )
    assert name_features("18.0 ft from roads 1, which", names) == "18.0 ft from Birch Street, which"
    assert name_features("roads 7 is unnamed", names) == "roads 7 is unnamed"
