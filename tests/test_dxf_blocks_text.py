"""derived.dxf as a CAD technician gets it: point practices as blocks with attributes that show when
plotted, basins and traps at their size, labels and contour elevations as text on C-ANNO-* layers.

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

from geosite.views.dxf import ANNO_LAYERS, CAD_LAYERS, CONTOUR_LABEL_IN, POINT_BLOCKS, write_dxf

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


def test_point_practices_are_blocks_with_their_attributes(lot7_outputs):
    doc = ezdxf.readfile(lot7_outputs / "derived.dxf")
    assert not doc.audit().errors
    msp = doc.modelspace()
    assert not msp.query("POINT")  # nothing left that plots as a dot (or not at all, at $PDMODE 0)
    gpkg = lot7_outputs / "derived.gpkg"
    for layer in ("inlet_protection", "sediment_basins", "upslope_entry_points"):
        frame = gpd.read_file(gpkg, layer=layer)
        block, tags = POINT_BLOCKS[layer]
        refs = msp.query(f'INSERT[name=="{block}"]')
        assert len(refs) == len(frame) > 0, layer
        assert all(r.dxf.layer == CAD_LAYERS[layer][0] for r in refs)
        by_xy = {(round(r.dxf.insert.x, 3), round(r.dxf.insert.y, 3)): r for r in refs}
        for _, row in frame.iterrows():
            ref = by_xy[(round(row.geometry.x, 3), round(row.geometry.y, 3))]  # at the feature's point
            attribs = {a.dxf.tag: a.dxf.text for a in ref.attribs}
            assert set(attribs) == {t.upper() for t in tags}
            for tag in tags:
                if tag in frame.columns and isinstance(row[tag], str):
                    assert attribs[tag.upper()] == row[tag], (layer, tag)
                elif tag in frame.columns and isinstance(row[tag], float) and not math.isnan(row[tag]):
                    assert float(attribs[tag.upper()]) == pytest.approx(row[tag], rel=1e-5), (layer, tag)
    inlets = {
        a.dxf.text
        for r in msp.query('INSERT[name=="GS_INLET_PROTECTION"]')
        for a in r.attribs
        if a.dxf.tag == "NAME"
    }
    assert inlets == {"CB-1 (in front of Lot 7)", "CB-2"}
    (trap,) = msp.query('INSERT[name=="GS_SEDIMENT_BASIN"]')
    assert {a.dxf.tag: a.dxf.text for a in trap.attribs}["KIND"] == "sediment_trap"
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


def test_contour_elevations_and_labels_are_text(lot7_outputs):
    doc = ezdxf.readfile(lot7_outputs / "derived.dxf")
    msp = doc.modelspace()
    contours = gpd.read_file(lot7_outputs / "derived.gpkg", layer="contours")
    index = contours[contours["index"].astype(bool)]
    first_ft = CONTOUR_LABEL_IN["first"] * 100.0  # the default 1 in = 100 ft
    labelled = {
        f"{e:g}"
        for e, g in zip(index["elevation_ft"], index.geometry, strict=True)
        if max(p.length for p in g.geoms) >= first_ft
    }
    texts = msp.query('TEXT[layer=="C-ANNO-TOPO"]')
    assert labelled and {t.dxf.text for t in texts} == labelled  # Lot 7: 925 and 950
    for t in texts:  # each on its contour
        at = Point(t.dxf.align_point.x, t.dxf.align_point.y)
        line = index[index["elevation_ft"] == float(t.dxf.text)].geometry.union_all()
        assert line.distance(at) < 1e-6
        assert t.dxf.height == pytest.approx(7.0)  # 0.07 in at 1 in = 100 ft
    assert {"C-ANNO-TOPO", "C-ANNO-ESCP", "C-ANNO-IDEN"} <= {layer.dxf.name for layer in doc.layers}
    escp = [
        t.dxf.text if t.dxftype() == "TEXT" else t.text for t in msp.query('TEXT MTEXT[layer=="C-ANNO-ESCP"]')
    ]
    assert escp.count("INLET PROTECTION") == 2 and "STONE TRACKING PAD 50 FT" in escp
    assert any(s.startswith("SEDIMENT TRAP") for s in escp)
    names = {t.dxf.text for t in msp.query('TEXT[layer=="C-ANNO-IDEN"]')}
    assert {
        "Birch Street",
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
    path = write_dxf({"site_boundary": site, "sediment_basins": frame}, tmp_path / "b.dxf")
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
    labels = [t.text for t in doc.modelspace().query('MTEXT[layer=="C-ANNO-ESCP"]')]
    assert labels[0].split("\\P") == ["SEDIMENT TRAP", "1,257 SQ FT FOOTPRINT", "1.50 AC DRAIN HERE"]


def test_a_polygon_basin_is_its_outline_and_its_block(tmp_path):
    poly = Polygon([(0, 0), (50, 0), (50, 30), (0, 30)])
    frame = gpd.GeoDataFrame({"kind": ["sediment_basin"]}, geometry=[poly], crs=CRS)
    doc = ezdxf.readfile(write_dxf({"sediment_basins": frame}, tmp_path / "p.dxf"))
    msp = doc.modelspace()
    (outline,) = msp.query("LWPOLYLINE")
    assert outline.closed and len(outline) == 4
    (ref,) = msp.query("INSERT")
    assert poly.contains(Point(ref.dxf.insert.x, ref.dxf.insert.y))
    assert {a.dxf.tag: a.dxf.text for a in ref.attribs}["KIND"] == "sediment_basin"


def test_long_index_contour_labelled_every_five_inches(tmp_path):
    line = LineString([(0, 0), (1200, 0)])  # 12 in at 1 in = 100 ft: labels at 2.5, 7.5 in
    frame = gpd.GeoDataFrame({"elevation_ft": [950.0], "index": [True]}, geometry=[line], crs=CRS)
    doc = ezdxf.readfile(write_dxf({"contours": frame}, tmp_path / "c.dxf"))
    at = sorted(t.dxf.align_point.x for t in doc.modelspace().query('TEXT[layer=="C-ANNO-TOPO"]'))
    assert at == pytest.approx([250.0, 750.0])
    doc = ezdxf.readfile(write_dxf({"contours": frame}, tmp_path / "c50.dxf", scale_ft=50.0))
    at = sorted(t.dxf.align_point.x for t in doc.modelspace().query('TEXT[layer=="C-ANNO-TOPO"]'))
    assert at == pytest.approx([125.0, 375.0, 625.0, 875.0, 1125.0])  # every 250 ft at 1 in = 50 ft
