"""No script from a submission runs in report.html, and findings.md makes no HTML or Markdown of it
(issue 13, requirement 1); the page shows what fails at the top, a legend, roads, streams and contours
(issue 14).

The submission puts script in every text it controls (site name, ids, names, types, phases, declared
texts, contacts); a headless Chromium opens every tooltip and popup and checks that no injected handler
fired, that the texts show literally, and that the console has no error (a CSP refusal is an error).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import gdf, submission
from sitebuilder import line, point, rect
from test_check_html import chromium_page, needs_chromium

from geosite.cli import cli

#: Each sets window.__pwned (a number per payload) if it ever runs.
PAYLOADS = [
    '<img src=x onerror="window.__pwned=(window.__pwned||0)+1">',
    "</script><script>window.__pwned=(window.__pwned||0)+10</script>",
    "<!--<script>window.__pwned=(window.__pwned||0)+100</script>",
    '"><svg onload="window.__pwned=(window.__pwned||0)+1000">',
    "javascript:window.__pwned=10000",
    "**bold** [link](javascript:alert(1)) `code` &amp; \u2028 line",
]


def hostile(i: int) -> str:
    return PAYLOADS[i % len(PAYLOADS)]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("xss")
    layers = {
        "disturbance": gdf(
            [rect(250, -350, 100, 100)],
            id=[hostile(0)],
            phase=[hostile(1)],
            start=["2027-05-03"],
            end=["2027-10-29"],
        ),
        "roads": gdf([line((0, -450), (600, -450))], id=[1], name=[hostile(2)], status=["existing"]),
        "streams": gdf([line((100, -500), (500, -520))], id=[hostile(3)], name=[hostile(0)]),
        "stockpiles": gdf([rect(205, -250, 20, 20)], id=[hostile(4)], days=[40]),
        "storm_inlets": gdf([point(300, -390)], id=[hostile(1)]),
        "bmps": gdf(
            [line((250, -351), (300, -351)), rect(290, -395, 4, 4)],
            id=[hostile(5), hostile(3)],
            type=[hostile(2), "silt_fence"],
        ),
    }
    conf = {
        "name": hostile(1) + " " + hostile(0),
        "applicant": {"name": hostile(3), "address": hostile(2), "phone": hostile(0)},
        "declared": {
            "maintenance": hostile(1),
            "stabilization": hostile(2),
            "steep_slope_controls": hostile(3),
            "final_conditions": hostile(0),
            "disturbed_area_sqft": 9000.0,
        },
    }
    folder = submission(tmp / "sub", layers, conf)
    res = CliRunner().invoke(cli, ["-q", "check", str(folder), "--out", str(tmp / "out")])
    assert res.exit_code in (0, 1), res.output
    return tmp / "out" / "report.html"


def test_page_has_a_strict_csp_and_one_json_block(report):
    text = report.read_text()
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', text).group(1)
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert csp.count("'sha256-") == 4  # two scripts, two style blocks: nothing else may run or style
    # the submitted texts never appear raw: no tag, handler or comment of theirs is in the markup
    body = text.split("<body>", 1)[1]
    for needle in ("<img src=x", "<svg onload", "<!--<script>", "</script><script>window"):
        assert needle not in body, needle
    assert body.count("<script") == 3  # the data block, Leaflet, the page script
    data = re.search(r'<script type="application/json" id="geosite-data">(.*?)</script>', text, re.S).group(1)
    parsed = json.loads(data)
    assert any(PAYLOADS[1] in f["message"] or PAYLOADS[1] in f["submitted"] for f in parsed["findings"])


def test_findings_md_makes_no_html_or_markdown_of_the_submission(report):
    markdown_it = pytest.importorskip("markdown_it")
    text = (report.parent / "findings.md").read_text()
    rendered = markdown_it.MarkdownIt("commonmark").render(text)
    for tag in ("<img", "<svg", "<script", "<a ", "<code>code</code>", "<strong>bold"):
        assert tag not in rendered, tag
    assert "&lt;img src=x" in rendered  # shown, as text
    assert all(len(line) < 2000 for line in text.splitlines())


@needs_chromium
def test_no_injected_script_runs_when_every_tooltip_and_popup_opens(report, tmp_path):
    from selenium.webdriver.common.by import By

    with chromium_page(report, height=1000) as driver:
        assert driver.execute_script("return typeof window.geosite === 'object'")
        opened = driver.execute_script("""
            var texts = [], n = 0;
            function visit(layer) {
              if (layer.eachLayer) { layer.eachLayer(visit); }
              if (layer.getTooltip && layer.getTooltip()) {
                layer.openTooltip(layer.getBounds ? layer.getBounds().getCenter() : layer.getLatLng());
                texts.push(layer.getTooltip().getElement().textContent); n++; layer.closeTooltip(); }
              if (layer.getPopup && layer.getPopup()) {
                layer.openPopup(layer.getBounds ? layer.getBounds().getCenter() : layer.getLatLng());
                texts.push(layer.getPopup().getElement().textContent); n++; layer.closePopup(); }
            }
            Object.values(window.geosite.contextLayers).forEach(visit);
            Object.values(window.geosite.findingLayers).forEach(visit);
            return [n, texts];
        """)
        n, texts = opened
        assert n >= 15
        shown = " ".join(texts)
        assert '<img src=x onerror="window.__pwned' in shown  # the submitted text, shown as text
        # every finding selected (list clicks and the summary links), then hover the list
        for el in driver.find_elements(By.CSS_SELECTOR, ".finding"):
            driver.execute_script("arguments[0].scrollIntoView()", el)
            el.click()
        for el in driver.find_elements(By.CSS_SELECTOR, ".fails a.goto"):
            driver.execute_script("arguments[0].click()", el)
        assert driver.execute_script("return window.__pwned === undefined")
        assert (
            driver.execute_script(
                "return document.querySelectorAll('img, svg[onload], [onerror], [onload]').length"
            )
            == 0
        )
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert errors == []
        # issue 14: what fails at the top, a legend, roads, streams and contours on the map
        fails = driver.find_element(By.CSS_SELECTOR, ".head .fails")
        n_fail = driver.execute_script(
            "return window.geosite.data.findings.filter(f => f.status === 'fail').length"
        )
        # every failure, then every open question (what keeps the plan incomplete), then the decisions
        n_open = driver.execute_script("return window.geosite.data.summary.to_settle.length")
        n_decide = driver.execute_script(
            "return window.geosite.data.findings.filter(f => f.status === 'inspector_decision').length"
        )
        assert n_fail >= 1 and len(fails.find_elements(By.CSS_SELECTOR, "li")) == n_fail + n_open + n_decide
        legend = driver.find_element(By.CSS_SELECTOR, "#legend.legend").text  # beside the map, not on it
        for label in ("site boundary", "roads", "streams", "contours", "finding: fail"):
            assert label in legend, legend
        names = driver.execute_script("return Object.keys(window.geosite.contextLayers)")
        assert {"roads", "streams", "contours"} <= set(names)
        assert (
            driver.execute_script("return window.geosite.contextLayers['contours'].getLayers().length") >= 3
        )
        driver.save_screenshot(str(tmp_path / "report.png"))


def test_the_box_at_the_top_lists_the_failures_then_the_inspector_s_decisions():
    from geosite.review.html import _failures

    findings = [
        {"id": "F1", "status": "fail", "citation": "B(4)", "message": "CB-2 unprotected <b>"},
        {
            "id": "F2",
            "status": "inspector_decision",
            "citation": "B(6)(e)",
            "message": "pile 18 ft from the creek",
        },
        {"id": "F3", "status": "pass", "citation": "B(3)", "message": "pad"},
    ]
    box = _failures(findings)
    assert "What fails (1)" in box and "For the inspector's decision (1)" in box
    assert box.index("F1") < box.index("F2") and "F3" not in box
    assert "&lt;b&gt;" in box and "<b>CB-2" not in box  # messages escaped
    assert "What fails" not in _failures(findings[1:]) and "inspector's decision (1)" in _failures(
        findings[1:]
    )
    assert _failures(findings[2:]) == '<div class="fails none">Nothing fails and nothing is left open.</div>'
    # an open question (the verdict incomplete) is said, never under a green "nothing fails"
    opened = [{"id": "F4", "status": "not_assessed", "citation": "B(1)", "message": "m", "settle": "a DEM"}]
    box = _failures(findings[2:] + opened, ["F4"])
    assert 'class="fails open"' in box and "Not assessed (1)" in box and "To settle it: a DEM" in box
    assert "Nothing fails" not in box
