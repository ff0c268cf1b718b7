"""Submission text has a type, and every writer escapes it for its format (issue 32 item 5).

One hostile string, holding something for each format (a script tag, a Markdown image and link, a
spreadsheet formula, mathtext, MTEXT format codes, DXF %% codes and a caret, quotes, a bidirectional
override, a terminal escape, and line breaks followed by DXF group codes that would start an entity of the
sender's own), goes in as the site's name, the applicant's name, a road's name, a declared text and a
submitted control's name, practice and standard (the plan's schedule in report.md and report.json). The
submission is checked in the sandbox (the Python API) and every writer runs on the result: findings.json,
findings.md, report.html, report.json, report.md, derived.dxf, the plan folder's site.toml, a plan sheet's
labels, summary.csv, schedule.md. Each is read back the way its reader reads it.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import tomllib

import pytest
from hostile import gdf, submission
from shapely.geometry import Point
from sitebuilder import line

HOSTILE = (
    "Lot <script>alert(1)</script> ![i](http://127.0.0.1:9/p.png) [l](javascript:alert(1)) "
    '=HYPERLINK("http://x") $\\frac{a}{b}$ \\P{\\fArial|b1;}%%u^J "q" \'s\' | * _ ` ~ & '
    "\u202e\x1b[31m\r\n0\nLINE\n8\nINJECTED"
)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    import geosite
    from geosite.scale.summary import write_summary

    tmp = tmp_path_factory.mktemp("text")
    layers = {
        "roads": gdf([line((0, -450), (600, -450))], id=[1], name=[HOSTILE], status=["existing"]),
        # a control of the plan under review: its own words go into the plan's schedule (report.md/json)
        # an inlet protection's type (its pay line's kind) is the applicant's too: report.md's quantities
        "bmps": gdf(
            [line((250, -352), (350, -352)), Point(300, -300)],
            id=[1, 2],
            type=["silt_fence", "inlet_protection"],
            name=[HOSTILE, HOSTILE],
            practice=[HOSTILE, HOSTILE],
            standard=[HOSTILE, HOSTILE],
            method=[None, HOSTILE],
        ),
    }
    conf = {
        "name": HOSTILE,
        "applicant": {"name": HOSTILE},
        "declared": {"maintenance": HOSTILE},
        "estimate": [{"item": HOSTILE, "unit": "LF", "quantity": 10}],  # compared in the child, reported
    }
    folder = submission(tmp / "sub", layers, conf)
    result = geosite.check_submission(folder, received=dt.date(2027, 3, 1))
    assert result.site.name == HOSTILE and type(result.site.name).__name__ == "SubmissionText"
    geosite.write_check_outputs(result, tmp / "check")
    geosite.write_outputs(result.analysis, tmp / "analysis")
    geosite.render_existing_site_map(result.analysis, out_path=tmp / "sheet.pdf", png_dpi=None)
    (tmp / "batch").mkdir()
    row = {"site": HOSTILE, "name": HOSTILE, "status": "error", "error": HOSTILE, "boundary_wkb": None}
    write_summary([row], tmp / "batch")
    (tmp / "schedule.md").write_text(
        geosite.build_schedule(result.site, received=dt.date(2027, 3, 1)).to_markdown()
    )
    return tmp, None


def test_json_holds_the_text_exactly(written):
    tmp, _ = written
    assert json.loads((tmp / "check" / "findings.json").read_text())["site"] == HOSTILE
    report = json.loads((tmp / "analysis" / "report.json").read_text())
    assert report["site"]["name"] == HOSTILE
    assert [r["control"] for r in report["plan"]["schedule"]] == [HOSTILE, HOSTILE]
    kinds = {x["kind"] for x in report["quantities"]["submitted"]["totals"] if x["kind"]}
    assert HOSTILE in kinds  # the inlet protection's type, as typed (escaped only where it is written)
    check = json.loads((tmp / "check" / "findings.json").read_text())
    assert any(
        HOSTILE[:80].strip() in f["message"] for f in check["findings"] if f["rule"] == "declared_quantities"
    )


def test_html_shows_it_as_text(written):
    tmp, _ = written
    page = (tmp / "check" / "report.html").read_text()
    body = page.split("<body>", 1)[1]
    assert "<script>alert" not in page and "\x1b" not in page
    assert "Lot &lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert body.count("<script") == 3  # the data block, Leaflet, the page script: none of the submission's


@pytest.mark.parametrize("name", ["check/findings.md", "analysis/report.md", "schedule.md"])
def test_markdown_makes_no_markup_of_it(written, name):
    markdown_it = pytest.importorskip("markdown_it")
    tmp, _ = written
    text = (tmp / name).read_text()
    assert HOSTILE not in text and "\x1b" not in text and "\u202e" not in text
    html = markdown_it.MarkdownIt("commonmark").render(text)
    for tag in ("<script", "<img", "<a ", "<em>", "<code> ~"):
        assert tag not in html, (name, tag)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as typed
    injected = ("0", "8", "LINE", "INJECTED")  # the hostile text's own lines, as lines of the file
    assert not [line for line in text.splitlines() if line.strip() in injected]


def test_csv_cells_are_text(written):
    tmp, _ = written
    with open(tmp / "batch" / "summary.csv", newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["site"] == HOSTILE and row["name"] == HOSTILE  # the text itself (it does not start with =)
    formula = '=HYPERLINK("http://x")'
    from geosite.io.text import csv_cell

    for lead in ("", " ", "\n", "\uff1d"[:0]):
        assert csv_cell(lead + formula).startswith("'")
    assert csv_cell("\uff1dcmd") == "'\uff1dcmd" and csv_cell(-3) == -3


def test_dxf_text_is_one_entity_per_label(written):
    ezdxf = pytest.importorskip("ezdxf")
    tmp, _ = written
    doc = ezdxf.readfile(tmp / "analysis" / "derived.dxf")
    msp = doc.modelspace()
    texts = [e.dxf.text for e in msp.query("TEXT")] + [e.text for e in msp.query("MTEXT")]
    named = [t for t in texts if "alert(1)" in t]
    assert named, texts[:10]
    for t in named:  # one line, the caret and %% codes literal
        assert "\n" not in t and "\r" not in t and "\x1b" not in t
        assert "^ J" in t and "%%%%%%u" in t and "^  J" not in t
    assert not [e for e in msp if e.dxftype() == "LINE" and e.dxf.layer == "0"]  # nothing injected
    xdata = [str(v) for e in msp for _, v in (e.get_xdata("GEOSITE") if e.has_xdata("GEOSITE") else [])]
    assert all("\n" not in v for v in xdata)


def test_the_plan_folder_toml_round_trips(written):
    tmp, _ = written
    conf = tomllib.loads((tmp / "analysis" / "plan" / "site.toml").read_text())
    assert conf["name"] == HOSTILE and conf["applicant"]["name"] == HOSTILE


def test_sheet_labels_are_plain_text(written):
    """The sheet's PDF sets the road's name as text, with mathtext off ($ is a dollar sign) and the
    control characters escaped."""
    pdfium = pytest.importorskip("pypdfium2")
    tmp, _ = written
    pdf = pdfium.PdfDocument(str(next(tmp.glob("sheet*.pdf"))))
    text = "".join(page.get_textpage().get_text_range() for page in pdf)
    assert "$\\frac{a}{b}$" in text and "alert(1)" in text
    assert "\x1b" not in text and "\u202e" not in text
