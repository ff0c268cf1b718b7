"""derived.dxf as a CAD technician gets it: point practices as blocks with attributes that show when
plotted, basins and traps at their size, labels and contour elevations as fitted text on C-ANNO-* layers.

Read back with ezdxf (block references, ATTRIBs, TEXT/MTEXT, the blocks' own extents) and rendered
with ezdxf's drawing add-on (matplotlib backend, on white paper as plotted) to a PNG whose pixels are
checked where each block is. Lot 7 (conftest ``lot7_outputs``) and small synthetic layers."""

from __future__ import annotations

import math

import ezdxf
import geopandas as gpd
import numpy as np
import pytest
from ezdxf import bbox
from shapely.geometry import LineString, Point, Polygon

from geosite.views.cad_items import POINT_BLOCKS
from geosite.views.dxf import ANNO_LAYERS, write_layers_dxf

CRS = "EPSG:7593"  # US survey feet


def _render(doc, box, px_per_ft, path):
    """The drawing inside ``box`` (x0, y0, x1, y1) rendered on white as plotted: an image array and a
    function from drawing coordinates to (row, column)."""
    import matplotlib.image as mpimg
    from ezdxf.addons.drawing import Frontend, RenderContext
    from ezdxf.addons.drawing.config import BackgroundPolicy, Configuration
    from ezdxf.addons.drawing.matplotlib import MatplotlibBackend
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    x0, y0, x1, y1 = box
    dpi = 100
    fig = Figure(figsize=((x1 - x0) * px_per_ft / dpi, (y1 - y0) * px_per_ft / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    config = Configuration(background_policy=BackgroundPolicy.WHITE)
    Frontend(RenderContext(doc), MatplotlibBackend(ax, adjust_figure=False), config=config).draw_layout(
        doc.modelspace(), finalize=True
    )
    ax.set_aspect("equal", adjustable="box")  # the box exactly: the backend's "datalim" would move it
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_axis_off()
    fig.savefig(path, dpi=dpi, facecolor="white")
    img = mpimg.imread(path)[:, :, :3]
    h, w = img.shape[:2]

    def rc(x, y):
        return int((y1 - y) / (y1 - y0) * (h - 1)), int((x - x0) / (x1 - x0) * (w - 1))

    return img, rc


def _ink(img, rc, x, y, r_ft, px_per_ft):
    """Pixels not white within ``r_ft`` of (x, y)."""
    r0, c0 = rc(x, y)
    k = max(math.ceil(r_ft * px_per_ft), 1)
    win = img[max(r0 - k, 0) : r0 + k + 1, max(c0 - k, 0) : c0 + k + 1]
    return int((win.mean(axis=2) < 0.95).sum())


def _xd(e) -> dict[str, str]:
    return dict(t.value.split("=", 1) for t in e.get_xdata("GEOSITE"))


def test_point_practices_are_blocks_with_their_attributes(lot7_outputs, lot7_result):
    doc = ezdxf.readfile(lot7_outputs / "derived.dxf")
    assert not doc.audit().errors
    msp = doc.modelspace()
    assert not msp.query("POINT")  # nothing left that plots as a dot (or not at all, at $PDMODE 0)
    plan = lot7_result.plan
    inlets = [c for c in plan.controls if c.practice == "inlet_protection"]
    refs = msp.query('INSERT[name=="GS_INLET_PROTECTION"]')
    assert len(refs) == len(inlets) == 2
    assert all(r.dxf.layer == "C-ESCP-INLT" for r in refs)
    by_id = {int(_xd(r)["control_id"]): r for r in refs}
    for c in inlets:  # at the control's point, its number and status in its attributes
        ref = by_id[c.id]
        assert (ref.dxf.insert.x, ref.dxf.insert.y) == pytest.approx((c.geometry.x, c.geometry.y))
        attribs = {a.dxf.tag: a.dxf.text for a in ref.attribs}
        assert set(attribs) == {t.upper() for t in POINT_BLOCKS["inlet_protection"][1]}
        assert attribs["ID"] == str(c.id) and attribs["STATUS"] == "proposed"
    # each named after the storm inlet it stands at (the site's layer)
    assert {a.dxf.text for r in refs for a in r.attribs if a.dxf.tag == "NAME"} == {
        "CB-1 (in front of Lot 7)",
        "CB-2",
    }
    entry = gpd.read_file(lot7_outputs / "derived.gpkg", layer="upslope_entry_points")
    assert len(msp.query('INSERT[name=="GS_UPSLOPE_ENTRY"]')) == len(entry) > 0
    (trap,) = [c for c in plan.controls if c.practice == "sediment_trap"]
    (foot,) = msp.query('LWPOLYLINE[layer=="C-ESCP-BASN-FOOT"]')  # the trap at its DNR 1063 area
    assert foot.closed and _xd(foot)["type"] == "sediment_trap"
    assert _xd(foot)["drainage_acres"] == f"{trap.get('drainage_acres'):.2f}"
    assert _xd(foot)["area_sqft"] == f"{trap.get('area_sqft'):.0f}"
    # the symbols are lines and circles, drawn on layer 0 so they take the inserting layer's colour
    for block, _ in POINT_BLOCKS.values():
        kinds = {e.dxftype() for e in doc.blocks.get(block)}
        assert kinds <= {"LINE", "LWPOLYLINE", "CIRCLE", "ATTDEF"} and kinds & {
            "LINE",
            "LWPOLYLINE",
            "CIRCLE",
        }
        assert {e.dxf.layer for e in doc.blocks.get(block) if e.dxftype() != "ATTDEF"} == {"0"}


def test_blocks_plot_where_the_practices_are(lot7_outputs, tmp_path):
    """Rendered on white as plotted, each inlet protection and the trap show ink within the symbol's
    radius of their point; with their CAD layers turned off the same places are blank."""
    doc = ezdxf.readfile(lot7_outputs / "derived.dxf")
    refs = [
        r
        for r in doc.modelspace().query("INSERT")
        if r.dxf.name in ("GS_INLET_PROTECTION", "GS_SEDIMENT_BASIN")
    ]
    xs = [r.dxf.insert.x for r in refs]
    ys = [r.dxf.insert.y for r in refs]
    box = (min(xs) - 30, min(ys) - 30, max(xs) + 30, max(ys) + 30)
    px = 3.0  # pixels per foot: the 6 ft symbol radius is 18 px
    keep = {r.dxf.layer for r in refs}
    for layer in doc.layers:  # only the practices' own layers: nothing else can put ink there
        if layer.dxf.name not in keep:
            layer.off()
    img, rc = _render(doc, box, px, tmp_path / "blocks.png")
    for r in refs:
        radius = abs(r.dxf.xscale)
        assert _ink(img, rc, r.dxf.insert.x, r.dxf.insert.y, radius, px) >= 30, r.dxf.name
    for name in keep:
        doc.layers.get(name).off()
    blank, rc = _render(doc, box, px, tmp_path / "off.png")
    assert all(_ink(blank, rc, r.dxf.insert.x, r.dxf.insert.y, abs(r.dxf.xscale), px) == 0 for r in refs)


def _centre(t):
    """The centre of a fitted TEXT's capitals (between its two points, half a capital up)."""
    a, b, h = t.dxf.insert, t.dxf.align_point, t.dxf.height
    ang = math.atan2(b.y - a.y, b.x - a.x)
    return Point((a.x + b.x) / 2 - 0.375 * h * math.sin(ang), (a.y + b.y) / 2 + 0.375 * h * math.cos(ang))


def test_contour_elevations_and_labels_are_text(lot7_outputs, lot7_result):
    doc = ezdxf.readfile(lot7_outputs / "derived.dxf")
    msp = doc.modelspace()
    contours = gpd.read_file(lot7_outputs / "derived.gpkg", layer="contours")
    index = contours[contours["index"].astype(bool)]
    texts = msp.query('TEXT[layer=="C-ANNO-TOPO"]')
    assert {t.dxf.text for t in texts} == {"925", "950"}  # Lot 7's index contours
    from geosite.pipeline import fitted_scale

    assert fitted_scale(lot7_result) == 30.0  # Lot 7 fits a sheet at 1 in = 30 ft (issue 33 item 1)
    for t in texts:  # each on its contour, 8.1 pt (capitals 0.08 in: the sheets' least) at 1 in = 30 ft
        line = index[index["elevation_ft"] == float(t.dxf.text)].geometry.union_all()
        assert line.distance(_centre(t)) < 0.5
        assert t.dxf.height == pytest.approx(0.718 * 8.1 / 72 * 30.0, rel=1e-6)
    assert {"C-ANNO-TOPO", "C-ANNO-ESCP", "C-ANNO-IDEN"} <= {layer.dxf.name for layer in doc.layers}
    named = {}  # each control's label by its number: its tag, as the construction sheet placed it
    for t in msp.query('TEXT[layer=="C-ANNO-ESCP"]'):
        for key in _xd(t)["names"].split(","):
            named.setdefault(key, []).append(t.dxf.text)
    inlets = [c for c in lot7_result.plan.controls if c.practice == "inlet_protection"]
    assert len(inlets) == 2 and all(any(f"C{c.id}" in s for s in named[f"control:{c.id}"]) for c in inlets)
    names = {t.dxf.text for t in msp.query('TEXT[layer=="C-ANNO-IDEN"]')}
    assert {
        "Birch Street (24 ft wide)",
        "Little Wood Creek",
        "CB-2",
        "Lindquist residence (house + attached garage)",
    } <= names
    assert set(ANNO_LAYERS) == {"C-ANNO-TOPO", "C-ANNO-ESCP", "C-ANNO-IDEN"}


def _basins(tmp_path, **cols):
    frame = gpd.GeoDataFrame(
        {"kind": ["sediment_trap"] * 3, "drainage_acres": [1.5, 2.0, 0.4], **cols},
        geometry=[Point(1000, 1000), Point(1200, 1000), Point(1400, 1000)],
        crs=CRS,
    )
    site = gpd.GeoDataFrame(
        {"id": [1]}, geometry=[Polygon([(900, 900), (1500, 900), (1500, 1100), (900, 1100)])], crs=CRS
    )
    path = write_layers_dxf(
        {"site_boundary": site, "sediment_basins": frame}, tmp_path / "b.dxf", scale_ft=100.0
    )
    doc = ezdxf.readfile(path)
    refs = sorted(doc.modelspace().query("INSERT"), key=lambda r: r.dxf.insert.x)
    return doc, refs


def test_basins_drawn_at_their_footprint(tmp_path):
    """A trap of 1,256.6 sq ft is a circle 40 ft across; one 30 x 20 ft a rectangle of that size; one
    without a size the 12 ft symbol, its SIZE attribute saying so."""
    doc, refs = _basins(
        tmp_path,
        footprint_sqft=[400 * math.pi, np.nan, np.nan],
        length_ft=[np.nan, 30.0, np.nan],
        width_ft=[np.nan, 20.0, np.nan],
    )
    sizes = []
    for r in refs:
        ext = bbox.extents(e for e in r.virtual_entities() if e.dxftype() != "ATTRIB")
        sizes.append((round(ext.size.x, 6), round(ext.size.y, 6)))
    assert sizes == [(40.0, 40.0), (30.0, 20.0), (12.0, 12.0)]
    assert [r.dxf.name for r in refs] == ["GS_SEDIMENT_BASIN", "GS_SEDIMENT_BASIN_RECT", "GS_SEDIMENT_BASIN"]
    size = [{a.dxf.tag: a.dxf.text for a in r.attribs}["SIZE"] for r in refs]
    assert size == ["1,257 sq ft footprint", "30 x 20 ft", "not sized: symbol only"]
    # rendered, the 40 ft circle has ink 20 ft from its centre and none at its centre's 10 ft ring
    img, rc = _render(doc, (950, 950, 1050, 1050), 4.0, tmp_path / "basin.png")
    on_ring = [
        _ink(img, rc, 1000 + 20 * math.cos(a), 1000 + 20 * math.sin(a), 0.5, 4.0)
        for a in np.linspace(0, 6, 12)
    ]
    assert min(on_ring) > 0
    first = [t.dxf.text for t in doc.modelspace().query("TEXT") if _xd(t)["names"] == "sediment_basins:0"]
    assert first == ["SEDIMENT TRAP", "1,257 SQ FT FOOTPRINT", "1.50 AC DRAIN HERE"]


def test_a_polygon_basin_is_its_outline_and_its_block(tmp_path):
    poly = Polygon([(0, 0), (50, 0), (50, 30), (0, 30)])
    frame = gpd.GeoDataFrame({"kind": ["sediment_basin"]}, geometry=[poly], crs=CRS)
    doc = ezdxf.readfile(write_layers_dxf({"sediment_basins": frame}, tmp_path / "p.dxf", scale_ft=100.0))
    msp = doc.modelspace()
    (outline,) = msp.query("LWPOLYLINE")
    assert outline.closed and len(outline) == 4
    (ref,) = msp.query("INSERT")
    assert poly.contains(Point(ref.dxf.insert.x, ref.dxf.insert.y))
    assert {a.dxf.tag: a.dxf.text for a in ref.attribs}["KIND"] == "sediment_basin"


def test_long_index_contour_labelled_every_five_inches(tmp_path):
    line = LineString([(0, 0), (1200, 0)])  # 12 in at 1 in = 100 ft: labels at 2.5, 7.5 in
    frame = gpd.GeoDataFrame({"elevation_ft": [950.0], "index": [True]}, geometry=[line], crs=CRS)
    doc = ezdxf.readfile(write_layers_dxf({"contours": frame}, tmp_path / "c.dxf", scale_ft=100.0))
    at = sorted(_centre(t).x for t in doc.modelspace().query('TEXT[layer=="C-ANNO-TOPO"]'))
    assert at == pytest.approx([250.0, 750.0])
    doc = ezdxf.readfile(write_layers_dxf({"contours": frame}, tmp_path / "c50.dxf", scale_ft=50.0))
    at = sorted(_centre(t).x for t in doc.modelspace().query('TEXT[layer=="C-ANNO-TOPO"]'))
    assert at == pytest.approx([125.0, 375.0, 625.0, 875.0, 1125.0])  # every 250 ft at 1 in = 50 ft
