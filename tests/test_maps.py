"""Plan maps: measured, not eyeballed.

The PDF is written uncompressed and its drawing operators parsed: the site boundary (a 300 x 200 ft
rectangle) must be 3 x 2 in on the page at 1 in = 100 ft (216 x 144 pt, within 0.5 %), and the page
must be the sheet. Contours on a 10 % plane must fall every 50 ft (0.5 in of paper) at the elevations
the plane gives, with every fifth labelled. Legends must name what the data holds and list what it lacks.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import geopandas as gpd
import matplotlib
import numpy as np
import pytest
from click.testing import CliRunner
from sitebuilder import X0, Y0, line, make_site, point, rect

from geosite.errors import InputError
from geosite.maps import check_scale, render_existing_site_map, render_plan_maps
from geosite.maps.sheets import parse_sheet, plan_sheets
from geosite.maps.symbology import STYLES
from geosite.site import load_site
from geosite.testing import inclined_plane

CRS = "EPSG:7593"
PT = 72.0
# the DEM's top-left corner is (X0, Y0): it covers y in [Y0 - 1000, Y0]; the site sits in its middle
SITE = (350, -600, 300, 200)  # x, y, w, h (ft from X0, Y0)


def _frame(d: dict, geoms) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(d, geometry=geoms, crs=CRS)


@pytest.fixture(scope="module")
def plane_site(tmp_path_factory) -> Path:
    """A 300 x 200 ft site on a 10 % plane falling south (900 ft at the DEM's north edge)."""
    folder = tmp_path_factory.mktemp("maps") / "site"
    dem = inclined_plane(10.0, shape=(500, 500), cell=2.0)
    make_site(
        folder,
        {
            "site_boundary": [rect(*SITE)],
            "streams": _frame({"name": ["Clam Creek"]}, [line((100, -880), (900, -860))]),
            "soils": _frame(
                {"musym": ["SaB", "ScC"]}, [rect(100, -900, 400, 800), rect(500, -900, 400, 800)]
            ),
            "structures": _frame(
                {"status": ["existing", "proposed"]}, [rect(380, -560, 60, 40), rect(500, -520, 80, 50)]
            ),
            "storm_inlets": [point(360, -590)],
            "disturbance": _frame(
                {
                    "phase": ["1", "2"],
                    "start": ["2027-04-05", "2027-06-01"],
                    "end": ["2027-06-30", "2027-09-30"],
                },
                [rect(360, -590, 150, 150), rect(510, -590, 120, 150)],
            ),
            "stockpiles": _frame({"days": [45]}, [rect(600, -430, 30, 20)]),
        },
        conf={
            "applicant": {
                "name": "Ann Smith",
                "address": "1 Main St, Grantsburg WI",
                "phone": "715-555-0100",
            },
            "maintainer": {
                "name": "Bob Jones",
                "address": "2 Oak St, Grantsburg WI",
                "phone": "715-555-0101",
            },
        },
        dem=dem,
    )
    return folder


@pytest.fixture(scope="module")
def site(plane_site):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_site(plane_site)


# ------------------------------------------------------------------------------------------ PDF parsing


def _pdf_paths(pdf: Path) -> list[np.ndarray]:
    """Every subpath (m ... l ...) in the PDF's uncompressed content streams, in points."""
    text = pdf.read_bytes().decode("latin-1")
    paths, nums, cur = [], [], None
    for tok in re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?|[A-Za-z*']+", text):
        if tok[0].isdigit() or tok[0] in "-+.":
            nums.append(float(tok))
            continue
        if tok == "m" and len(nums) >= 2:
            if cur:
                paths.append(np.array(cur))
            cur = [nums[-2:]]
        elif tok == "l" and len(nums) >= 2 and cur is not None:
            cur.append(nums[-2:])
        elif cur:
            paths.append(np.array(cur))
            cur = None
        nums = []
    return paths


def _media_box(pdf: Path) -> tuple[float, float]:
    m = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf.read_bytes())
    assert m, "no MediaBox"
    return float(m.group(1)), float(m.group(2))


def _rectangles(paths: list[np.ndarray]) -> list[tuple[float, float, float, float]]:
    """Axis-aligned 4-corner closed subpaths: (xmin, ymin, width, height) in points."""
    out = []
    for p in paths:
        if len(p) not in (4, 5):
            continue
        xs, ys = np.unique(np.round(p[:, 0], 2)), np.unique(np.round(p[:, 1], 2))
        if len(xs) == 2 and len(ys) == 2:
            out.append((xs[0], ys[0], xs[1] - xs[0], ys[1] - ys[0]))
    return out


def _render_uncompressed(obj, out: Path, **kw) -> list[Path]:
    with matplotlib.rc_context({"pdf.compression": 0}):
        return render_existing_site_map(obj, out, png_dpi=None, **kw)


# ---------------------------------------------------------------------------------------------- scale


@pytest.mark.parametrize("scale_ft", [100, 50])
def test_pdf_boundary_measures_exact_scale(site, tmp_path, scale_ft):
    files = _render_uncompressed(site, tmp_path / "existing_site_map.pdf", scale_ft=scale_ft, hillshade=False)
    assert [f.name for f in files] == ["existing_site_map.pdf"]
    pdf = files[0]
    plan = plan_sheets(_extent(site), scale_ft, site.ft_per_unit, "auto")
    # the page is the sheet
    w, h = _media_box(pdf)
    s = _sheet_of(site, scale_ft)
    assert (w, h) == pytest.approx((s.width_in * PT, s.height_in * PT), abs=0.01)
    # the 300 x 200 ft boundary is 300/scale x 200/scale inches on the page
    want_w, want_h = 300 / scale_ft * PT, 200 / scale_ft * PT
    rects = [
        r
        for r in _rectangles(_pdf_paths(pdf))
        if abs(r[2] / want_w - 1) < 0.05 and abs(r[3] / want_h - 1) < 0.05
    ]
    assert rects, "site boundary rectangle not found in the PDF"
    x, y, rw, rh = rects[0]
    err = max(abs(rw / want_w - 1), abs(rh / want_h - 1))
    assert err < 0.005, f"scale error {err:.4%}"
    # and it sits where the ground says: one sheet's map against the frame's upper left, 0.25 in in (or
    # centred where the frame has less room than that), the site 200 ft inside the map's extent
    fx, fy, fw, fh = s.frame
    ext = _extent(site)
    ew, eh = (ext[2] - ext[0]) / scale_ft, (ext[3] - ext[1]) / scale_ft  # inches
    left = fx + min(0.25, (fw - ew) / 2) + 200 / scale_ft
    top = fy + fh - min(0.25, (fh - eh) / 2) - 200 / scale_ft
    assert x == pytest.approx(left * PT, abs=0.5)
    assert y + rh == pytest.approx(top * PT, abs=0.5)
    del plan


def _extent(site, margin=200.0):
    xmin, ymin, xmax, ymax = site.boundary.bounds
    return (xmin - margin, ymin - margin, xmax + margin, ymax + margin)


def _sheet_of(site, scale_ft):
    figs = render_existing_site_map(site, None, scale_ft=scale_ft, hillshade=False)
    return figs[0].geosite.plan.sheet


def test_figure_transforms_give_the_scale(site):
    fig = render_existing_site_map(site, None, hillshade=False, scale_ft=100)[0]
    sheet = fig.geosite
    ax = sheet.ax
    (x0, y0), (x1, y1) = ax.transData.transform([(X0, Y0), (X0 + 1000.0, Y0 + 1000.0)])
    assert (x1 - x0) / fig.dpi == pytest.approx(10.0, rel=1e-9)  # 1000 ft = 10 in
    assert (y1 - y0) / fig.dpi == pytest.approx(10.0, rel=1e-9)


def test_smaller_scale_refused(site):
    with pytest.raises(InputError, match="at least 1 in = 100 ft"):
        render_existing_site_map(site, None, scale_ft=200)
    with pytest.raises(InputError):
        check_scale(0)
    assert check_scale(40) == 40.0


def test_unknown_sheet_lists_valid_ones():
    with pytest.raises(InputError, match="ANSI-A"):
        parse_sheet("A0")
    assert [s.orientation for s in parse_sheet("ansi_d portrait")] == ["portrait"]


# ------------------------------------------------------------------------------------------- contours


def test_contours_on_a_ten_percent_plane(site):
    fig = render_existing_site_map(site, None, hillshade=False, scale_ft=100)[0]
    sheet = fig.geosite
    ax = sheet.ax
    ys = {}
    for coll, st in (
        (c, s)
        for c in ax.collections
        for s in (STYLES["contours"], STYLES["index_contours"])
        if hasattr(c, "get_segments")
        and matplotlib.colors.same_color(c.get_edgecolor()[0], s.edge)
        and np.isclose(c.get_linewidth()[0], s.lw)
    ):
        for seg in coll.get_segments():
            assert np.ptp(seg[:, 1]) < 1e-6  # the plane falls due south: contours run east-west
            ys[round(float(seg[0, 1]), 6)] = st is STYLES["index_contours"]
    assert len(ys) >= 8
    yv = np.array(sorted(ys))
    # elevation of the plane at y: 900 ft at the DEM's north edge (Y0 - 1 cell centre offset), 10 % fall south
    z = 900.0 - 0.1 * (Y0 - yv)
    assert np.allclose(z / 5.0, np.round(z / 5.0), atol=1e-6)  # every line on a 5-ft contour
    paper_in = np.diff(ax.transData.transform(np.column_stack([np.full_like(yv, X0), yv]))[:, 1]) / fig.dpi
    assert np.allclose(paper_in, 0.5, rtol=0.005)  # 50 ft apart = 0.5 in at 1 in = 100 ft
    is_index = np.array([ys[k] for k in sorted(ys)])
    assert np.array_equal(is_index, np.isclose(np.mod(np.round(z), 25), 0))  # every fifth is an index contour
    labels = [t for t in ax.texts if t.get_gid() == "contour-label"]
    labelled = {float(t.get_text()) for t in labels}
    assert labelled == {float(round(v)) for v, ix in zip(z, is_index, strict=False) if ix}
    for t in labels:  # each label sits on its contour
        zt = 900.0 - 0.1 * (Y0 - t.get_position()[1])
        assert zt == pytest.approx(float(t.get_text()), abs=0.01)
        assert t.get_fontsize() >= 6


# --------------------------------------------------------------------------------------------- legend


def test_legend_names_present_items_and_lists_absent(site):
    sheet = render_existing_site_map(site, None, hillshade=False)[0].geosite
    legend = "\n".join(sheet.legend)
    for want in (
        "(a) Site boundary",
        "(a) Adjacent area shown (200 ft)",
        "(b) Streams",
        "(d) Soil map units",
        "(f) Storm drain inlets",
        "(h) Structures",
        "(i) Contours, 5 ft",
        "(i) Index contours",
    ):
        assert want in legend, want
    missing = "\n".join(sheet.missing)
    for want in (
        "(b)",
        "lakes",
        "wetlands",
        "(c) floodplain",
        "(e) vegetative cover",
        "(h)",
        "roads",
        "utilities",
    ):
        assert want in missing, want
    assert "(d)" not in missing and "(i)" not in missing
    # (f) natural drainage and (g) upslope areas come from the analysis: a bare Site says they were not
    # computed
    assert "(g) upslope drainage areas: not computed" in missing


def test_belgium_letters(plane_site, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = load_site(plane_site, jurisdiction="belgium")
    sheet = render_existing_site_map(s, None, hillshade=False)[0].geosite
    legend = "\n".join(sheet.legend)
    assert "(h) Contours, 5 ft" in legend and "(g) Structures" in legend
    assert "(e)" not in legend + "\n".join(sheet.missing)


# ------------------------------------------------------------------------------------ all maps, tiling


def test_plan_maps_from_analysis(site, tmp_path):
    from geosite.pipeline import analyze

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(site)
    files = render_plan_maps(result, tmp_path / "maps")
    names = sorted(f.name for f in files)
    assert names == sorted(
        [
            "existing_site_map.pdf",
            "existing_site_map.png",
            "construction_plan.pdf",
            "construction_plan.png",
            "final_conditions.pdf",
            "final_conditions.png",
        ]
    )
    for f in files:
        assert f.stat().st_size > 1000
        if f.suffix == ".pdf":
            assert f.read_bytes().startswith(b"%PDF")
            # text in the PDF's standard fonts: nothing embedded, nothing subset (tests/test_map_printing.py)
            assert b"/BaseFont /Helvetica" in f.read_bytes() and b"FontFile" not in f.read_bytes()


def test_construction_plan_schedule_and_legend(site):
    from geosite.maps import render_construction_plan, render_final_conditions

    sheet = render_construction_plan(site, None)[0].geosite
    legend = "\n".join(sheet.legend)
    assert "(a) Land disturbance, phase 1" in legend and "(a) Land disturbance, phase 2" in legend
    assert "(b) Soil stockpiles" in legend
    # the schedule sits in the panel, or beside the map in its frame where that is blank
    lines: dict = {}  # the table's cells at one baseline, left to right: its printed lines
    for t in [*sheet.panel.texts, *sheet.fig.texts]:
        if t.get_gid() == "table":
            lines.setdefault((id(t.axes), round(t.get_position()[1], 4)), []).append(
                t.get_position()[0:1] + (t.get_text(),)
            )
    table = [" ".join(v for _, v in sorted(c)) for c in lines.values()]
    assert any("2027-04-05" in t and "2027-06-30" in t for t in table)
    final = render_final_conditions(site, None)[0].geosite
    assert "Proposed structures (label: name and size)" in "\n".join(final.legend)


def test_big_site_tiles_with_match_lines(tmp_path):
    folder = make_site(tmp_path / "big", {"site_boundary": [rect(0, 0, 2600, 1500)]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = load_site(folder)
    files = _render_uncompressed(s, tmp_path / "out" / "existing_site_map.pdf", sheet="ANSI-B")
    names = [f.name for f in files]
    assert len(names) > 1 and names[0] == "existing_site_map-1.pdf"
    plan = plan_sheets(_extent(s), 100, s.ft_per_unit, "ANSI-B")
    assert len(files) == len(plan.tiles) == plan.rows * plan.cols
    # tiles cover the site and its margin, each at exact scale on an 11 x 17 sheet
    xs0 = min(t.bounds[0] for t in plan.tiles)
    xs1 = max(t.bounds[2] for t in plan.tiles)
    ext = _extent(s)
    assert xs0 <= ext[0] and xs1 >= ext[2]
    for f in files:
        assert sorted(_media_box(f)) == pytest.approx([11 * PT, 17 * PT])
    figs = render_existing_site_map(s, None, sheet="ANSI-B")
    texts = [t.get_text() for t in figs[0].geosite.ax.texts]
    assert any(t.startswith("MATCH LINE — SEE SHEET 1-2") for t in texts)


@pytest.mark.parametrize(
    ("extent_ft", "max_ft", "sheet", "scale", "size"),
    [
        # Lot 7's 600 x 640 ft: 1 in = 20 ft is 30 x 32 in, wider than any frame; 1 in = 30 ft is
        # 20 x 21.3 in, inside ARCH-D's landscape frame (36 - 2 x 0.75 border - 3.6 panel - 0.15 gap =
        # 30.75 x 22.5 in)
        ((600, 640), 100, "auto", 30, "ARCH-D"),
        # on ANSI-C (frame 17.45 x 16 in): 1 in = 40 ft is 15 x 16 in, exactly the frame's height
        ((600, 640), 100, "ANSI-C", 40, "ANSI-C"),
        # Belgium's 1,550 x 1,270 ft: 25.8 x 21.2 in at 60 fits ARCH-D (30.75 x 22.5) but not ANSI-D
        # (20.5 high)
        ((1550, 1270), 100, "auto", 60, "ARCH-D"),
        ((1550, 1270), 100, "ANSI-D", 100, "ANSI-D"),
        # a chapter asking for 1 in = 80 ft: its own scale is open when no standard larger one fits
        ((2400, 1700), 80, "auto", 80, "ARCH-D"),
        # a small site: 200 x 150 ft is 10 x 7.5 in at 1 in = 20 ft (ANSI-B's frame is 12.85 x 10 in),
        # 20 x 15 in at 10 ft fits only ANSI-D and ARCH-D
        ((200, 150), 100, "auto", 10, "ANSI-D"),
        ((200, 150), 100, "ANSI-B", 20, "ANSI-B"),
    ],
)
def test_the_largest_standard_scale_and_then_the_smallest_sheet(extent_ft, max_ft, sheet, scale, size):
    from geosite.maps.sheets import fit_sheets

    w, h = extent_ft
    plan = fit_sheets((0.0, 0.0, w, h), 1.0, max_ft, sheet=sheet)
    assert (plan.scale_ft, plan.sheet.size, plan.tiled) == (scale, size, False)
    # and never a smaller scale than the chapter's, nor a sheet smaller than the one chosen holding it
    assert plan.scale_ft <= max_ft
    smaller = [
        c
        for c in parse_sheet("auto")
        if c.width_in * c.height_in < plan.sheet.width_in * plan.sheet.height_in
    ]
    assert not any(w / scale <= c.frame[2] and h / scale <= c.frame[3] for c in smaller if sheet == "auto")


def test_a_scale_asked_for_is_kept_and_a_site_too_big_is_tiled_at_the_chapters():
    from geosite.maps.sheets import fit_sheets

    assert fit_sheets((0, 0, 600, 640), 1.0, 100, scale_ft=100).sheet.size == "ANSI-A"
    big = fit_sheets((0, 0, 5000, 4000), 1.0, 100)
    assert big.scale_ft == 100 and big.tiled
    assert fit_sheets((0, 0, 700, 600), 1.0, 20).scale_ft == 20  # Newburg: nothing larger than 20 fits


def test_auto_sheet_is_smallest_that_fits():
    # 300 x 200 ft + 200 ft each side = 700 x 600 ft: 7 x 6 in of map frame; ANSI-A landscape holds it
    plan = plan_sheets((0, 0, 700, 600), 100, 1.0, "auto")
    assert plan.sheet.size == "ANSI-A" and not plan.tiled
    plan = plan_sheets((0, 0, 1500, 900), 100, 1.0, "auto")
    assert plan.sheet.size == "ANSI-C" and not plan.tiled


# ------------------------------------------------------------------------------------------------ CLI


def test_cli_map(plane_site, tmp_path):
    from geosite.cli import cli

    out = tmp_path / "maps-out"
    r = CliRunner().invoke(cli, ["-q", "map", str(plane_site), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "existing_site_map.pdf").is_file() and (out / "construction_plan.pdf").is_file()
    r = CliRunner().invoke(cli, ["-q", "map", str(plane_site), "--out", str(out)])
    assert r.exit_code == 2  # exists, no --overwrite
    r = CliRunner().invoke(
        cli, ["-q", "map", str(plane_site), "--out", str(tmp_path / "x"), "--scale", "200"]
    )
    assert r.exit_code == 2 and "1 in = 100 ft" in r.output


def test_import_geosite_does_not_load_pyplot():
    import subprocess
    import sys

    code = "import sys, geosite, geosite.maps; print(any('pyplot' in m for m in sys.modules))"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
    )


def test_hillshade_computed_once_for_every_tile(site, monkeypatch):
    from geosite import terrain

    calls = []
    real = terrain.hillshade
    monkeypatch.setattr(
        terrain, "hillshade", lambda dem, *a, **k: calls.append(dem.shape) or real(dem, *a, **k)
    )
    figs = render_existing_site_map(site, None, sheet="ANSI-A", scale_ft=50)
    assert len(figs) > 1  # tiled
    assert len(calls) == 1
    for fig in figs:
        assert "Hillshade (from the DEM)" in "\n".join(fig.geosite.legend)


def test_map_draws_on_the_analysis_dem_when_it_is_the_same_read(site):
    """The DEM file is small: the analysis read all of it and the map window takes it all in, so the map
    uses the analysis' grid instead of reading the file again; a Site alone still reads it."""
    from geosite.maps.common import make_context
    from geosite.pipeline import analyze

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(site)
    ctx = make_context(result, scale_ft=100)
    assert ctx.dem() is result.dem
    read = make_context(site, scale_ft=100).dem()
    assert read is not result.dem
    assert read.transform == result.dem.transform and read.crs == result.dem.crs
    np.testing.assert_array_equal(read.elevation_ft, result.dem.elevation_ft)
    # a map window that does not take in the whole file reads its own window, as before
    wide = make_context(result, scale_ft=20, margin_ft=0.0)
    assert wide.dem() is not result.dem and wide.dem().shape < result.dem.shape


def test_labels_asked_for_at_one_point_are_placed_apart_with_leaders():
    """Twelve labels asked for at one spot: each is placed where its text box meets no other (padded),
    inside the frame and by the spot (its leader no longer than the last ring of positions, 0.75 in), or,
    where the spot is too crowded for its text, its key (K1, K2 ...) is, the text going to the sheet's table
    of keyed labels; no leader crosses a label or another leader. One too long for the frame is not placed
    and the sheet says so (``unplaced``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from shapely.geometry import LineString, Point, box

    from geosite.maps import labels
    from geosite.maps.layout import new_sheet
    from geosite.maps.symbology import LABELS

    plan = plan_sheets((0.0, 0.0, 700.0, 600.0), 100, 1.0, "ANSI-A")
    sheet = new_sheet(plan, plan.tiles[0])
    cx, cy = 350.0, 300.0
    asked = [f"label number {i}" for i in range(12)]
    for t in asked:
        labels.request(sheet, cx, cy, t, feature=Point(cx, cy))
    labels.request(sheet, cx, cy, "x" * 400, feature=Point(cx, cy))
    labels.place(sheet)
    keyed = dict(sheet.keyed)
    shown = [keyed.get(t, t) for t, _ in sheet.placed]
    # every label shown, whole or by its key, or said not to be (never silently left out); the one too
    # long for the frame among those not shown
    assert sorted(shown + sheet.unplaced) == sorted([*asked, "x" * 400]) and "x" * 400 in sheet.unplaced
    assert len(shown) >= 6  # those with room round the spot (a point hemmed in by its labels takes no more)
    boxes = [b for _, b in sheet.placed]
    for a, b in ((a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]):
        assert not a.intersects(b)
    fx, fy, fw, fh = plan.sheet.frame
    assert all(box(fx, fy, fx + fw, fy + fh).contains(b) for b in boxes)
    leaders = [ln for ln in sheet.ax.lines if ln.get_gid() == "leader"]
    assert len(leaders) == len(boxes) - 1  # all but the one placed on the spot
    upi = plan.units_per_inch
    on_paper = []
    for ln in leaders:  # each ends on the feature, within reach of it
        (x0, x1), (y0, y1) = ln.get_xdata(), ln.get_ydata()
        assert (x1, y1) == pytest.approx((cx, cy))
        assert np.hypot(x1 - x0, y1 - y0) / upi <= max(LABELS["ring_radii_in"]) + 0.01
        on_paper.append(LineString([(x0 / upi, y0 / upi), (x1 / upi, y1 / upi)]))
    for a, b in ((a, b) for i, a in enumerate(on_paper) for b in on_paper[i + 1 :]):
        assert a.intersection(b).distance(Point(cx / upi, cy / upi)) < 1e-6  # meeting only at the spot
    for ln in on_paper:  # nor through a label's box (its own box it leaves from its edge)
        assert sum(ln.intersects(shapely_box_in(b, plan, -0.005)) for b in boxes) == 0
    FigureCanvasAgg(sheet.fig)
    texts = [t for t in sheet.ax.texts if t.get_gid() == "map-label"]
    assert len(texts) == len(boxes) and all(
        not t.get_path_effects() for t in texts
    )  # real text, the halo apart


def shapely_box_in(b, plan, grow: float):
    """A label's box on paper (inches from the sheet's corner) in the map's data inches (x / upi), grown."""
    from shapely.geometry import box

    fx, fy, _, _ = plan.sheet.frame
    tx, ty = plan.tiles[0].bounds[:2]
    upi = plan.units_per_inch
    x0, y0, x1, y1 = b.bounds
    return box(
        x0 - fx + tx / upi - grow,
        y0 - fy + ty / upi - grow,
        x1 - fx + tx / upi + grow,
        y1 - fy + ty / upi + grow,
    )


def test_thinned_hillshade_cells_sit_over_their_own_cells(tmp_path):
    """A DEM of 0.3-ft cells has 333 cells per inch at 1 in = 100 ft: the hillshade is drawn every 2nd
    cell (300 per inch at most), each sample spanning exactly 2 x 2 cells from its own corner, so the
    image's extent is its samples times 0.6 ft (not the window's width spread over fewer samples)."""
    from matplotlib.image import AxesImage

    dem = inclined_plane(8.0, shape=(1201, 1201), cell=0.3)
    folder = make_site(tmp_path / "fine", {"site_boundary": [rect(60, -300, 240, 240)]}, dem=dem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = render_existing_site_map(load_site(folder), None, hillshade=True, scale_ft=100)[0]
    imgs = [a for a in fig.geosite.ax.get_children() if isinstance(a, AxesImage)]
    assert imgs
    im = imgs[0]
    left, r, b, t = im.get_extent()
    rows, cols = im.get_array().shape
    assert (r - left) / cols == pytest.approx(0.6, rel=1e-12) and (t - b) / rows == pytest.approx(
        0.6, rel=1e-12
    )
    # the first sample's corner is a cell corner of the DEM
    assert ((left - dem.transform.c) / 0.3) == pytest.approx(round((left - dem.transform.c) / 0.3), abs=1e-9)


@pytest.mark.parametrize(
    ("sqft", "text"),
    [
        (151.0, "151 sq ft"),  # 0.0035 ac: "0.00 ac" would say nothing
        (217.0, "217 sq ft"),  # 0.00498 ac
        (218.0, "218 sq ft (0.01 ac)"),  # 0.00500 ac rounds to 0.01
        (26_312.0, "26,312 sq ft (0.60 ac)"),
    ],
)
def test_an_area_on_a_sheet_gives_acres_only_where_they_say_something(sqft, text):
    from geosite.maps.common import sqft_text

    assert sqft_text(sqft) == text


def test_the_map_scale_is_the_villages_own_when_none_is_given(plane_site, tmp_path):
    """Newburg's chapter asks for 1 in = 20 ft (§ 152.08(B)(1)), Grantsburg's for 1 in = 100 ft: with no
    --scale each village's sheets are drawn at its own, and a smaller scale than the chapter allows is
    refused naming it (a Grantsburg default of 100 under Newburg drew a map its own check fails)."""
    from geosite.cli import cli
    from geosite.maps.sheets import check_sheet_count
    from geosite.site import load_site

    newburg = load_site(plane_site, jurisdiction="newburg")
    # 700 x 600 ft (the site and 200 ft around it) is 35 x 30 in at 1 in = 20 ft: no sheet holds it, and
    # Newburg allows nothing smaller, so it is tiled at 20
    tiled = check_sheet_count(newburg, None, "auto")
    assert tiled.scale_ft == 20.0 and tiled.tiled
    # Grantsburg allows 1 in = 100 ft: 1 in = 30 ft (23.3 x 20 in) is the largest that fits a sheet
    assert check_sheet_count(load_site(plane_site), None, "auto").scale_ft == 30.0
    r = CliRunner().invoke(
        cli,
        [
            "-q",
            "map",
            str(plane_site),
            "--out",
            str(tmp_path / "n"),
            "--jurisdiction",
            "newburg",
            "--scale",
            "50",
        ],
    )
    assert r.exit_code == 2 and "at least 1 in = 20 ft" in r.output
    with pytest.raises(InputError, match="at least 1 in = 100 ft"):
        check_scale(200, 100.0)
