"""The plan sheets as a reviewer reads them (issue 25): direction and destination of drainage flows,
smooth upslope outlines, the BMP schedule and provisions, symbols whose legend swatch is the symbol
drawn, one label per submitted practice run, and a map that stops at the site and its margin.

The site: a valley falling 5 % south with 8 % sides (its floor at x = 300 ft), so the DEM's one
drainage path runs down the floor from about 70 ft below the north edge, crossing Clam Creek
(an east-west line at y = -450 ft) before the DEM's south edge. Heights are known everywhere, so an
arrow's direction is checked against the terrain itself.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
import shapely
from shapely.geometry import Point, box
from sitebuilder import X0, Y0, line, make_site, point, rect

from geosite.grid import Dem
from geosite.plan.table import parse_tags
from geosite.site import load_site

CRS = "EPSG:7593"
FLOOR_X = 300.0  # ft from X0: the valley floor
SITE = (200, -350, 200, 150)  # x, y, w, h (ft from X0, Y0)


def _z(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The valley's height (ft) at site coordinates."""
    return 900.0 - 0.05 * (Y0 - y) + 0.08 * np.abs(x - (X0 + FLOOR_X))


def _valley() -> Dem:
    from affine import Affine

    t = Affine(2.0, 0.0, X0, 0.0, -2.0, Y0)
    cols, rows = np.meshgrid(np.arange(300), np.arange(300))
    x, y = X0 + (cols + 0.5) * 2.0, Y0 - (rows + 0.5) * 2.0
    return Dem.from_array(_z(x, y), t, CRS, "us_ft", source="valley")


def _frame(d: dict, geoms) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(d, geometry=geoms, crs=CRS)


FENCE_A = [line((210, -345), (270, -345)), line((270, -345), (330, -345)), line((330, -345), (390, -345))]
FENCE_B = [line((205, -300), (205, -260)), line((205, -260), (205, -215))]


@pytest.fixture(scope="module")
def valley_site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("plan") / "valley"
    bmps = _frame(
        {
            "type": ["silt_fence"] * 5 + ["sediment_basin", "inlet_protection"],
            "name": ["Fence A"] * 3 + ["Fence B"] * 2 + ["Basin SB-9", "Filter at CB-9"],
            "storage_cy": [None] * 5 + [120.0, None],
            "drainage_acres": [None] * 5 + [1.2, None],
            "install": ["2027-05-01"] * 5 + ["2027-04-20", "2027-05-02"],
            "remove": ["2027-10-15"] * 5 + ["2027-10-20", "2027-10-16"],
        },
        [*FENCE_A, *FENCE_B, rect(280, -348, 30, 20).buffer(0), point(250, -180)],
    )
    make_site(
        folder,
        {
            "site_boundary": [rect(*SITE)],
            "streams": _frame({"name": ["Clam Creek"]}, [line((50, -450), (550, -450))]),
            "roads": _frame({"name": ["Birch Street"], "status": ["existing"]}, [rect(0, -190, 600, 24)]),
            "storm_inlets": _frame({"name": ["CB-9"]}, [point(250, -180)]),
            "structures": _frame(
                {
                    "name": ["Near shed", "New house", "Far barn"],
                    "status": ["existing", "proposed", "existing"],
                },
                [rect(450, -300, 20, 20), rect(300, -300, 40, 30), rect(700, -300, 30, 30)],
            ),
            "disturbance": _frame(
                {"phase": ["1"], "start": ["2027-05-03"], "end": ["2027-09-30"]}, [rect(220, -330, 160, 110)]
            ),
            "bmps": bmps,
        },
        conf={
            "applicant": {"name": "Ann Smith", "address": "1 Main St", "phone": "715-555-0100"},
            "maintainer": {"name": "Bob Jones", "address": "2 Oak St", "phone": "715-555-0101"},
        },
        dem=_valley(),
    )
    return folder


@pytest.fixture(scope="module")
def result(valley_site):
    from geosite.pipeline import analyze

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return analyze(load_site(valley_site))


@pytest.fixture(scope="module")
def existing(result):
    from geosite.maps import render_existing_site_map

    return render_existing_site_map(result, None, hillshade=False)[0].geosite


@pytest.fixture(scope="module")
def submitted(valley_site):
    """The construction sheet of the valley site's own plan (its submitted bmps), as ``geosite map`` of the
    submission draws it."""
    from geosite.maps import render_construction_plan

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return render_construction_plan(load_site(valley_site), None)[0].geosite


@pytest.fixture(scope="module")
def construction(result):
    from geosite.maps import render_construction_plan

    return render_construction_plan(result, None)[0].geosite


def _map_texts(sheet) -> list[str]:
    return [t for t, _ in sheet.placed]


# ------------------------------------------------------------------------------------------- A(1)(g)


def test_every_drainage_path_has_arrows_pointing_downslope(result, existing):
    paths = [g for g in result.layers["channels"].geometry.values if g.intersects(existing.window)]
    assert paths, "the valley floor should carry a drainage path"
    arrows = [c for c in existing.ax.collections if c.get_gid() == "flow-arrows"]
    assert len(arrows) == 1
    heads = [p.vertices[:3] for p in arrows[0].get_paths()]
    for g in paths:  # at least one arrowhead on every visible path, one per inch of paper along it
        vis = g.intersection(existing.window)
        on = [h for h in heads if vis.distance(Point(h.mean(axis=0))) < 0.05 * existing.plan.units_per_inch]
        assert len(on) >= max(1, int(vis.length / existing.plan.units_per_inch) - 1)
    for h in heads:  # the tip is lower than the arrow's base: it points downslope on the terrain itself
        tip, base = h[0], (h[1] + h[2]) / 2
        assert _z(np.array(tip[0]), np.array(tip[1])) < _z(np.array(base[0]), np.array(base[1]))


def test_the_destination_is_labelled_by_name(result, existing, tmp_path):
    import pymupdf

    from geosite.maps import render_plan_maps

    assert {d.text for d in existing.destinations} == {"flows to Clam Creek"}
    assert "flows to Clam Creek" in _map_texts(existing)  # placed on the map
    d = existing.destinations[0]
    assert d.y == pytest.approx(Y0 - 450, abs=10)  # where the floor meets the creek: x = 300 ft
    assert d.x == pytest.approx(X0 + FLOOR_X, abs=4)
    files = render_plan_maps(result, tmp_path / "maps", png_dpi=None)
    pdf = next(f for f in files if f.name == "existing_site_map.pdf")
    text = " ".join(pymupdf.open(pdf)[0].get_text().split())
    assert "flows to Clam Creek" in text
    sizes = {tuple(round(v) for v in pymupdf.open(f)[0].rect) for f in files if f.suffix == ".pdf"}
    assert len(sizes) == 1  # the set on one sheet size


def test_destination_rules_inlet_site_edge_and_downstream_paths(valley_site):
    """Without the analysis: three hand-drawn paths. One reaches inlet CB-9; one leaves the site south and
    runs off the map; the third joins the first, so its flow goes where the first's does."""
    from geosite.maps.common import make_context
    from geosite.maps.drainage import destinations

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctx = make_context(load_site(valley_site))
    to_inlet = line((250, -260), (250, -200), (250, -150))  # passes CB-9 at (250, -180)
    south = line((300, -300), (300, -360), (300, -400))
    joins = line((200, -260), (250, -260))
    got = destinations(ctx, [to_inlet, south, joins], box(*ctx.extent))
    assert got[0].text == "flows to inlet CB-9" and got[0].y == pytest.approx(Y0 - 180 - 5, abs=1.5)
    assert got[1].text == "leaves the site at its south edge" and got[1].y == pytest.approx(Y0 - 350, abs=0.5)
    assert got[2].text == "flows to inlet CB-9"


def test_upslope_outline_drops_slivers_and_keeps_the_area():
    """A staircase of 2-ft cells (a 45-degree band 20 cells wide) with a 4 sq ft sliver cell beside it
    and a one-cell hole: the outline has one part, no hole, fewer vertices, about the same area."""
    from geosite.hydrology.upslope import smooth_outline

    cells = [
        box(2 * c, 2 * r, 2 * c + 2, 2 * r + 2)
        for r in range(40)
        for c in range(r, r + 20)
        if (r, c) != (20, 30)
    ]
    band = shapely.union_all(cells)
    sliver = box(100, 0, 102, 2)
    raw = shapely.union_all([band, sliver])
    assert len(shapely.get_parts(raw)) == 2 and len(raw.geoms[0].interiors) + len(raw.geoms[1].interiors) == 1
    out = smooth_outline(raw, cell=2.0, min_area=500.0)
    assert len(out.geoms) == 1 and not out.geoms[0].interiors
    assert out.area == pytest.approx(band.area + 4.0, rel=0.03)
    assert shapely.get_num_coordinates(out) < shapely.get_num_coordinates(band) / 10  # no stair steps left
    filled = shapely.Polygon(band.exterior)
    assert shapely.hausdorff_distance(out, filled) < 2.0  # within a cell of the cells


def test_upslope_layer_is_the_smoothed_outline_with_the_rasters_area(result):
    up = result.layers["upslope_areas"]
    rep = {u["disturbance_id"]: u for u in result.report["measurements"]["hydrology.upslope"]}
    for _, r in up.iterrows():
        assert r.geometry.geom_type == "MultiPolygon"
        assert all(p.area >= 500.0 for p in r.geometry.geoms)
        assert r["area_sqft"] == rep[r["disturbance_id"]]["area_sqft"]  # the number reported is the cells'
        assert r.geometry.area == pytest.approx(r["area_d8_sqft"], rel=0.05)


# ------------------------------------------------------------------------------------------ A(3)(d)-(f)


def _panel_and_frame_texts(sheet, gid: str) -> list[str]:
    return [t.get_text() for t in [*sheet.panel.texts, *sheet.fig.texts] if t.get_gid() == gid]


def test_schedule_lists_every_bmp_with_its_submitted_dates(submitted):
    table = "\n".join(f" {r} " for r in _table_rows(submitted))
    for name, qty, inst, rem in (
        ("Fence A", "180 LF", "2027-05-01", "2027-10-15"),  # three segments, 60 ft each, one row
        ("Fence B", "LF", "2027-05-01", "2027-10-15"),
        ("Basin SB-9", "120 CY", "2027-04-20", "2027-10-20"),  # its storage as submitted
        ("Filter at CB-9", "1 EA", "2027-05-02", "2027-10-16"),
    ):
        row = next(r for r in table.splitlines() if f" {name} " in r)
        assert qty in row and inst in row and rem in row, row
    assert "2027-05-03" in table and "2027-09-30" in table  # the phase's own dates


def test_provisions_from_the_permit_and_the_dnr_standards(construction):
    text = " ".join(" ".join(_panel_and_frame_texts(construction, "provision")).split())
    assert "at least once every 7 days and after each rain of 0.5 in or more" in text
    assert "D(3)(g)" in text
    assert "silt fence: remove sediment before deposits reach one-half of the fence's height" in text
    assert "(DNR technical standard 1056 (silt fence))" in text
    assert "(f) Stabilization" in text and "B(6)(c)[1]" in text


def test_declared_provisions_are_printed_as_given(valley_site, tmp_path):
    import shutil

    from geosite.maps import render_construction_plan

    folder = tmp_path / "declared"
    shutil.copytree(valley_site, folder)
    toml = folder / "site.toml"
    toml.write_text(
        toml.read_text() + '\n[declared]\nmaintenance = "Fences swept daily by Bob."\n'
        'stabilization = "Sod within 3 days of final grade."\n'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheet = render_construction_plan(load_site(folder), None)[0].geosite
    text = " ".join(" ".join(_panel_and_frame_texts(sheet, "provision")).split())
    assert "Fences swept daily by Bob." in text and "Sod within 3 days of final grade." in text
    assert "DNR technical standard 1056" not in text  # the plan's own provisions replace geosite's defaults
    assert "after each rain of 0.5 in" in text  # the permit's inspection stays


# -------------------------------------------------------------------------------------------- symbols


def test_legend_swatches_are_the_symbols_drawn(submitted, construction):
    kinds = {label: (kind, marker) for label, kind, marker in submitted.swatches}
    basin = next(k for k in kinds if k.startswith("(c) Submitted sediment basin"))
    assert kinds[basin][0] == "polygon"  # a submitted basin is drawn at its size, and so is its swatch
    fence = next(k for k in kinds if k.startswith("(c) Submitted silt fence"))
    assert kinds[fence][0] == "line"
    inlet = next(k for k in kinds if k.startswith("(c) Submitted inlet protection"))
    assert kinds[inlet] == ("point", "D")
    # the valley's trap has no room on the site (tests below): no trap footprint drawn, so none in the
    # legend (tests/test_trap_sites.py draws one that fits, with its polygon swatch)
    proposed = {label: kind for label, kind, _ in construction.swatches}
    assert not [k for k in proposed if k.startswith("(c) Sediment trap at its") and proposed[k] == "polygon"]
    # the same symbol on the map: the submitted basin's polygon is drawn in the swatch's face colour
    from matplotlib.colors import same_color

    from geosite.maps.symbology import submitted_style

    st = submitted_style("sediment_basin", "polygon")
    drawn = [
        c
        for c in submitted.ax.collections
        if len(c.get_facecolor())
        and same_color(c.get_facecolor()[0][:3], st.face)
        and c.get_hatch() == st.hatch
    ]
    assert drawn


def test_proposed_trap_with_no_room_on_the_site_is_stated_not_drawn(result, construction):
    """The valley's outlet drains 3.42 acres: its trap needs 1,560 sq ft per acre (DNR 1063,
    medium-textured soil), 5,342 sq ft, 82 ft across; the site is 200 x 150 ft, the disturbed area
    160 x 110 ft with a 40 x 30 ft structure above the outlet, and the outlet 21 ft from the boundary.
    No position fits on the site within 10 ft of the outlet: the sheet says so in words at the outlet
    and draws no trap (a circle centred on the outlet would reach 20 ft past the boundary).
    """
    ((_, b),) = result.layers["sediment_basins"].iterrows()
    want = 1560.0 * b["drainage_acres"]
    (fp,) = result.layers["sediment_basin_footprints"].itertuples()
    assert not fp.placed and fp.geometry is None and fp.surface_sqft == pytest.approx(want)
    from matplotlib.colors import same_color

    from geosite.maps.symbology import STYLES

    st = STYLES["sediment_traps_sized"]
    assert not [
        c
        for c in construction.ax.collections
        if c.get_hatch() == st.hatch
        and len(c.get_facecolor())
        and same_color(c.get_facecolor()[0][:3], st.face)
        and same_color(c.get_edgecolor()[0][:3], st.edge)
    ]
    # said in words at the outlet, or by a key there and in the sheet's table of keyed labels
    keyed = dict(construction.keyed)
    texts = [" ".join(keyed.get(t, t).split()) for t in _map_texts(construction)]
    said = [t for t in texts if f"{want:,.0f} sq ft surface" in t]
    assert said and "no room on the site for the trap this outlet" in said[0]


def test_fences_and_diversions_do_not_look_like_the_boundary_or_the_channels():
    from geosite.maps.symbology import STYLES

    boundary = STYLES["site_boundary"]
    for key in ("filter_fence", "stockpile_fences"):
        st = STYLES[key]
        assert st.extra.get("marks") and st.ls == "-" and st.edge != boundary.edge
    div, chan = STYLES["diversions"], STYLES["channels"]
    assert div.extra.get("inner") and not chan.extra.get("inner") and div.ls != chan.ls


def test_one_label_per_submitted_run(submitted):
    texts = _map_texts(submitted)
    # three touching segments of one name: one run, one label with their three tags
    assert sum(" Fence A" in t for t in texts) == 1
    assert sum(" Fence B" in t for t in texts) == 1
    (fence_a,) = [t for t in texts if " Fence A" in t]
    assert len(parse_tags(fence_a)) == 3


def test_structures_labelled_on_every_sheet(result, existing, construction):
    from geosite.maps import render_final_conditions

    final = render_final_conditions(result, None)[0].geosite
    for sheet in (existing, construction, final):
        assert any(t.startswith("Near shed") for t in _map_texts(sheet))
    assert not any(t.startswith("New house") for t in _map_texts(existing))  # proposed: sheets 2 and 3 only
    for sheet in (construction, final):
        assert any(t.startswith("New house") for t in _map_texts(sheet))


# ---------------------------------------------------------------------------------------------- frame


def test_the_map_is_the_site_and_its_margin_and_nothing_beyond_is_labelled(existing, construction):
    site = box(X0 + SITE[0], Y0 + SITE[1], X0 + SITE[0] + SITE[2], Y0 + SITE[1] + SITE[3])
    for sheet in (existing, construction):
        w = sheet.window
        assert w.centroid.distance(site.centroid) < 0.5  # ft
        assert w.bounds == pytest.approx(
            (site.bounds[0] - 200, site.bounds[1] - 200, site.bounds[2] + 200, site.bounds[3] + 200), abs=1e-6
        )
        frame = sheet.window_in
        assert all(frame.contains(b) for _, b in sheet.placed)
        assert not any(
            "Far barn" in t for t in _map_texts(sheet)
        )  # 300 ft beyond the site: clipped, not labelled
        (x0, y0), (x1, y1) = sheet.ax.transData.transform([w.bounds[:2], w.bounds[2:]])
        for a in sheet.ax.collections:  # everything drawn is clipped at the margin's edge
            assert a.get_clip_box() is not None and a.get_clip_box().extents == pytest.approx(
                (x0, y0, x1, y1)
            )


def test_location_map_names_roads_shows_the_site_and_north(existing):
    texts = {t.get_gid(): t.get_text() for t in existing.panel.texts if t.get_gid()}
    assert texts.get("location-road") == "Birch Street"
    assert texts.get("location-site") == "SITE"
    caption = " ".join(texts["location"].split())
    assert "roads: Birch Street (10 ft, north)" in caption  # the road's edge is 10 ft north of the site
    assert any(p.get_gid() == "location-north" for p in existing.panel.patches)


def test_schedule_rows_keep_their_columns_and_stay_inside_their_block(construction):
    # a table row broken across its columns (a remove date under the next BMP's name) reads wrong: each
    # line of the schedule holding a date holds both of its row's dates, and every cell's ink ends inside
    # the block drawn around it (or the panel), measured on the rendered figure as the PDF sets it
    from matplotlib import rc_context
    from matplotlib.patches import Rectangle

    from geosite.maps.layout import RC

    fig = construction.fig
    inch = fig.dpi
    blocks = [a for a in fig.artists if isinstance(a, Rectangle)]
    cells = [t for t in [*construction.panel.texts, *fig.texts] if t.get_gid() == "table"]
    assert cells
    for printed in _table_rows(construction):
        dates = re.findall(r"\d{4}-\d{2}-\d{2}", printed)
        assert len(dates) != 1, f"a row's date alone on its line: {printed!r}"
    with rc_context(RC):
        renderer = fig.canvas.get_renderer()
        for t in cells:
            assert "\n" not in t.get_text()
            box = t.get_window_extent(renderer)
            left, right = box.x0 / inch, box.x1 / inch
            if t in fig.texts:
                around = [
                    r.get_window_extent(renderer)
                    for r in blocks
                    if r.get_window_extent(renderer).x0 / inch
                    <= left
                    <= r.get_window_extent(renderer).x1 / inch
                ]
                assert around, t.get_text()
                assert right <= max(r.x1 for r in around) / inch + 1e-6, (t.get_text(), right)
            else:
                p = construction.plan.sheet.panel
                assert right <= p[0] + p[2] + 1e-6, (t.get_text(), right)


@pytest.mark.parametrize(("strip_w_in", "drawn"), [(3.0, False), (4.2, True)])
def test_a_schedule_block_too_narrow_for_its_table_is_not_drawn(construction, monkeypatch, strip_w_in, drawn):
    # a row of two cells, 60 x's and a date, is wider than 3 in at 8.5 pt: a 3.0 in strip can hold it neither
    # whole nor with its text column wrapped (under 4 in, geosite.maps.panel.FRAME_TABLE_MIN_IN), so the
    # block goes to the panel; a 4.2 in strip holds it with the x's wrapped, each line one text a cell
    from geosite.maps import layout as L
    from geosite.maps import panel as P
    from geosite.maps.tables import cells, text_width_in

    assert text_width_in("x" * 60 + " 2027-05-01", L.BODY_PT) > 3.0 - 0.2
    monkeypatch.setattr(P, "_frame_strip", lambda sheet, min_w, min_h: (1.0, 1.0, strip_w_in, 10.0))
    row = cells("x" * 30 + " " + "x" * 29, "2027-05-01")
    before, boxes = len(construction.fig.texts), len(construction.fig.artists)
    got = P.frame_block(
        construction, "(d) SCHEDULE", [("table", row), ("table", row), ("provision", "Text.")]
    )
    new = construction.fig.texts[before:]
    for a in [*new, *construction.fig.artists[boxes:]]:  # the sheet is the module's: leave it as it was
        a.remove()
    assert got is drawn
    if drawn:
        table = [t.get_text() for t in new if t.get_gid() == "table"]
        assert table.count("2027-05-01") == 2 and table.count("x" * 30) == 2  # wrapped at its space
    else:
        assert new == []


def test_a_table_wider_than_its_room_wraps_its_widest_text_column_and_keeps_the_others():
    # the widest text column is wrapped to what the others leave; numbers and dates stay whole, right-
    # aligned in their columns, each on the first line of its row
    from geosite.maps.tables import cells, layout_table, text_width_in

    rows = [
        cells("tags", "control", "qty", "install", "remove"),
        cells(
            "C17-C22", "erosion mat on the slope above the unbuilt row", "101 SY", "2027-05-02", "2027-10-02"
        ),
        cells("C24", "mulch or tarp the pile", "0.02 AC", "2027-05-02", "2027-10-02"),
        "project: 2027-05-03 to 2027-10-29",
    ]
    got = layout_table(rows, 3.3, 8.1)
    ends = [
        p.x_in + (0 if p.align.startswith("right") else text_width_in(p.text, 8.1, bold="bold" in p.align))
        for p in got
    ]
    assert max(ends) <= 3.3 + 1e-9
    by_line: dict[int, list[str]] = {}
    for p in got:
        by_line.setdefault(p.line, []).append(p.text)
    assert by_line[1][0] == "C17-C22" and "101 SY" in by_line[1] and "2027-10-02" in by_line[1]
    assert by_line[2] == ["the unbuilt row"] or len(by_line[2]) == 1  # the control's name goes on
    qty = [p for p in got if p.text in ("101 SY", "0.02 AC")]
    assert qty[0].align == qty[1].align == "right" and qty[0].x_in == qty[1].x_in  # one right edge
    assert layout_table(rows, 8.0, 8.1)[-1].text == rows[-1]  # a line across the table stays whole


def _table_rows(sheet) -> list[str]:
    """The schedule's lines as printed: the cells at one baseline joined left to right."""
    lines: dict[tuple[int, float], list] = {}
    for t in [*sheet.panel.texts, *sheet.fig.texts]:
        if t.get_gid() == "table":
            x, y = t.get_position()
            lines.setdefault((id(t.axes), round(y, 4)), []).append((x, t.get_text()))
    return [
        " ".join(v for _, v in sorted(cells)) for _, cells in sorted(lines.items(), key=lambda kv: -kv[0][1])
    ]


def test_two_wide_text_columns_share_the_room_the_numbers_leave():
    # two text columns each wider than the 3-in room alone: wrapping only the widest would leave the other
    # running past the edge; both are wrapped to a share of what the quantity column leaves, the narrower
    # one no narrower than the 0.6-in minimum, and the quantity stays whole on the row's first line
    from geosite.maps.tables import MIN_COLUMN_IN, cells, layout_table, text_width_in

    what = "temporary mulch on the slope between the edge fences of phase 1"
    where = "the commercial lots north of Commons Court, above the sediment basin"
    rows = [cells("control", "where", "qty"), cells(what, where, "5.04 AC")]
    assert text_width_in(what, 8.1) > 3.0 and text_width_in(where, 8.1) > 3.0
    got = layout_table(rows, 3.0, 8.1)
    ends = [p.x_in + (0 if p.align.startswith("right") else text_width_in(p.text, 8.1)) for p in got]
    assert max(ends) <= 3.0 + 1e-9
    body = [p for p in got if p.line >= 1]
    (qty,) = [p for p in body if p.text == "5.04 AC"]
    assert qty.line == 1
    assert " ".join(p.text for p in body if p.x_in == 0.0) == what  # the first column, wrapped, in order
    assert MIN_COLUMN_IN == 0.6
