"""The page report.html: one self-contained page an inspector can open offline and send on.

At the top, what fails (each failed finding, linked to its entry); then the findings list beside a
Leaflet map of the site (site boundary, disturbed area, roads, streams, lakes, wetlands, channels,
contours, required and submitted fences, submitted BMPs, and each finding's geometry highlighted),
reprojected to EPSG:4326, with the legend and layer switches in a column beside it. Findings about the
plan as a whole (their geometry is the site boundary or the disturbed area: a missing plan item, a
declared number) are listed, never painted over the site. Clicking a finding zooms the map to its geometry and
highlights it; clicking a feature on the map scrolls its finding into view and highlights it; a
context feature's popup lists its attributes. Leaflet 1.9.4 (BSD-2-Clause, geosite/review/static/
LICENSE) is inlined; there is no basemap and nothing is fetched from the network.

Every text in the page comes from an applicant's files, so none of it is trusted (docs/security.md):

- the findings list and the head are HTML-escaped (:func:`geosite.io.text.html_text`, quotes too);
- the map's data is one ``<script type="application/json">`` block, ``<``, ``>``, ``&`` and the JS
  line separators written as ``\\uXXXX`` escapes, so no ``</script>`` or ``<!--`` in a value can end
  or change the block; the page script parses it with ``JSON.parse``;
- tooltips, popups and the legend are built from DOM text nodes (``textContent``), never as HTML;
- a Content-Security-Policy allows only the page's own two scripts and two style blocks, by their
  sha256: no inline event handler, ``javascript:`` URL, injected script or network request can run.

What is drawn is simplified (to a fraction of the view, see :data:`DRAW_TOLERANCE_FRACTION`); what is
measured never is. The page exposes ``window.geosite = {map, findingLayers, contextLayers, select(id),
data}`` for scripted use and tests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any

import shapely
from shapely.geometry import mapping

from geosite.io.text import html_text, json_in_html
from geosite.review.findings import where_text
from geosite.rules.words import control_labels, feature_words, merged_names

STATUS_COLOURS = {
    "fail": "#d7191c",
    "not_assessed": "#e08a00",
    "info": "#2b83ba",
    "pass": "#1a9641",
    "inspector_decision": "#7b3294",
}
#: Geometry drawn on the page is simplified to this fraction of the site's extent (and at least
#: :data:`DRAW_TOLERANCE_MIN_FT`): a 1 M-vertex boundary draws as a few thousand vertices.
DRAW_TOLERANCE_FRACTION = 1 / 5000
DRAW_TOLERANCE_MIN_FT = 0.1
#: Context layers drawn from the submission (layer name -> label, and the attributes its popup shows).
CONTEXT_LAYERS = {
    "roads": ("roads", ("id", "name", "status", "public")),
    "streams": ("streams", ("id", "name")),
    "lakes": ("lakes", ("id", "name")),
    "wetlands": ("wetlands", ("id", "name")),
    "channels": ("channels (submitted)", ("id", "name")),
    "storm_inlets": ("storm inlets", ("id", "name")),
    "stockpiles": ("stockpiles", ("id", "days")),
    "structures": ("structures", ("id", "name", "status")),
    "access_drives": ("access drives", ("id", "name")),
}
#: A finding whose geometry is the site boundary or the disturbed area to within this share of its area
#: is about the plan as a whole (a missing plan item, a declared number): listed, never painted over the
#: site; only findings with a place of their own are drawn.
SITE_WIDE_SHARE = 0.01


def _static(name: str) -> str:
    text = (resources.files("geosite.review") / "static" / name).read_text(encoding="utf-8")
    # the source map is not shipped; the comment would only make devtools look for it
    text = "\n".join(line for line in text.splitlines() if not line.startswith("//# sourceMappingURL"))
    # the marker and layer-switcher images are not shipped either: no request may leave the page
    return re.sub(r"url\(images/[^)]*\)", "none", text)


def json_for_html(data: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` block: ``<``, ``>``, ``&``, U+2028 and
    U+2029 escaped, so no value can close the block or open a comment.
    """
    from geosite.io.output import finite

    text = json.dumps(finite(data), default=str, allow_nan=False)
    return json_in_html(text)


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _to_wgs84(geoms: list, crs: Any) -> list:
    import geopandas as gpd

    if not geoms:
        return []
    return list(gpd.GeoSeries(geoms, crs=crs).to_crs("EPSG:4326"))


# ``result`` below is a geosite.review.check.CheckResult, typed Any: check imports this module, and an
# import back (even for type checking) would be a cycle the import contracts refuse
def _draw_tolerance(result: Any) -> float:
    """The simplification tolerance for drawing, in site CRS units."""
    site = result.site
    x0, y0, x1, y1 = site.boundary.bounds
    extent_ft = max(x1 - x0, y1 - y0) * site.ft_per_unit
    return max(extent_ft * DRAW_TOLERANCE_FRACTION, DRAW_TOLERANCE_MIN_FT) / site.ft_per_unit


def _drawable(geoms: list, tol: float) -> list:
    """Geometries simplified for drawing (topology kept), Z dropped, empty ones left as they are."""
    out = []
    for g in geoms:
        if g is None or g.is_empty:
            out.append(g)
            continue
        g = shapely.force_2d(g)
        out.append(shapely.simplify(g, tol, preserve_topology=True) if tol > 0 else g)
    return out


def _collection(geoms: list, props: list[dict[str, Any]]) -> dict[str, Any]:
    feats = []
    for g, p in zip(geoms, props, strict=True):
        if g is None or g.is_empty or not all(map(_finite, g.bounds)):
            continue
        g = shapely.set_precision(g, 1e-9) if g.geom_type != "GeometryCollection" else g
        feats.append({"type": "Feature", "geometry": mapping(g), "properties": p})
    return {"type": "FeatureCollection", "features": feats}


def _finite(v: float) -> bool:
    return math.isfinite(v)


def _text(v: Any) -> str:
    """An attribute value as display text ("" for missing)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return str(v.item() if hasattr(v, "item") else v)


def _layer(
    gdf: Any,
    crs: Any,
    tol: float,
    label: str,
    attrs: tuple[str, ...] = (),
    *,
    name_of: Callable[[Any, int], str] | None = None,
) -> dict[str, Any]:
    cols = [c for c in attrs if c in gdf.columns]
    props = []
    for i in range(len(gdf)):
        row = {c: _text(gdf[c].iloc[i]) for c in cols}
        name = (
            name_of(gdf, i)
            if name_of
            else _text(gdf["name"].iloc[i])
            if "name" in gdf.columns and _text(gdf["name"].iloc[i])
            else (f"{label} {row['id']}" if "id" in row else label)
        )
        props.append({"name": name, "attrs": row})
    return _collection(_to_wgs84(_drawable(list(gdf.geometry), tol), crs), props)


def page_data(result: Any) -> dict[str, Any]:
    """The JSON the page draws: context layers and findings, in EPSG:4326 (geometry simplified for
    drawing, see :data:`DRAW_TOLERANCE_FRACTION`).
    """
    crs = result.site.crs
    tol = _draw_tolerance(result)
    ctx = _context_layers(result, crs, tol)
    wide = _site_wide_shapes(result)
    with_geom = [
        f
        for f in result.findings
        if f.geometry is not None and not f.geometry.is_empty and not _is_site_wide(f.geometry, wide)
    ]
    geoms = _to_wgs84(_drawable([f.geometry for f in with_geom], tol), crs)
    findings = []
    for f in result.findings:
        own = f in with_geom
        findings.append(
            {
                "id": f.id,
                "rule": f.rule,
                "citation": f.citation,
                "section": f.section,
                "status": f.status,
                "message": f.message,
                "requirement": f.requirement,
                "submitted": f.submitted,
                "settle": f.settle,
                "has_geometry": own,
                "where": where_text(f.geometry, crs) if own else "",
                "site_wide": f.geometry is not None and not f.geometry.is_empty and not own,
            }
        )
    fcoll = _collection(geoms, [{"id": f.id, "status": f.status, "rule": f.rule} for f in with_geom])
    return {
        "summary": result.summary(),
        "context": ctx,
        "findings": findings,
        "finding_geometry": fcoll,
        "colours": STATUS_COLOURS,
    }


def _context_layers(result: Any, crs: Any, tol: float) -> dict[str, Any]:
    """The page's context layers (site boundary, contours, disturbed area, fences, the site's layers and
    its BMPs), each as GeoJSON in EPSG:4326 drawn within ``tol`` (site CRS units).
    """
    ctx: dict[str, Any] = {}
    ctx["site boundary"] = _layer(
        result.site.layers["site_boundary"],
        crs,
        tol,
        "site boundary",
        ("id",),
        name_of=lambda g, i: "site boundary",
    )
    L = result.analysis.layers
    contours = L.get("contours")
    if contours is not None and len(contours):
        ctx["contours"] = _layer(
            contours,
            crs,
            tol,
            "contour",
            ("elevation_ft", "index"),
            name_of=lambda g, i: f"contour {g['elevation_ft'].iloc[i]:,.0f} ft",
        )
    for key, label in (("disturbed_area", "disturbed area"), ("filter_fence", "required filter fence")):
        g = L.get(key)
        if g is not None and len(g):
            ctx[label] = _layer(g, crs, tol, label, ())  # no attributes: each feature named by the label
    for lname, (label, attrs) in CONTEXT_LAYERS.items():
        g = result.site.layer(lname)
        if g is not None:
            ctx[label] = _layer(g, crs, tol, lname.rstrip("s").replace("_", " "), attrs)
    bmps = result.site.layer("bmps")
    labels = merged_names(control_labels(getattr(result.analysis, "plan", None)))
    if bmps is not None:
        ctx["submitted BMPs"] = _layer(
            bmps,
            crs,
            tol,
            "bmps",
            ("id", "type"),
            name_of=lambda g, i: feature_words(
                f"bmps {_text(g['id'].iloc[i])}"
                + (f" ({_text(g['type'].iloc[i])})" if "type" in g.columns else ""),
                labels,
            ),
        )
    return ctx


def _site_wide_shapes(result: Any) -> list[Any]:
    """The shapes a finding about the whole plan carries: the site boundary and the disturbed area."""
    shapes = [result.site.boundary]
    dist = result.analysis.layers.get("disturbed_area")
    if dist is not None and len(dist):
        shapes.append(shapely.union_all(dist.geometry.values))
    return [g for g in shapes if g is not None and not g.is_empty and g.area > 0]


def _is_site_wide(geom: Any, shapes: list[Any]) -> bool:
    """Whether ``geom`` is one of ``shapes`` (to within :data:`SITE_WIDE_SHARE` of its area)."""
    if geom.geom_type not in ("Polygon", "MultiPolygon"):
        return False
    return any(geom.symmetric_difference(s).area <= SITE_WIDE_SHARE * s.area for s in shapes)


def _e(v: Any) -> str:
    return html_text(v)


def _failures(findings: list[dict[str, Any]], open_ids: Iterable[str] = ()) -> str:
    """The box at the top: every failed finding, then every requirement that applies and could not be
    assessed (``open_ids``: the verdict cannot be a pass while one is open, so never green), then every one
    left to the inspector's decision, each with its citation and message, linked to its entry; green only
    where nothing fails and nothing is open.
    """

    def _rows(items: list[dict[str, Any]], settle: bool = False) -> str:
        return "".join(
            f'<li><a class="goto" href="#finding-{_e(f["id"])}" data-id="{_e(f["id"])}">{_e(f["id"])}</a> '
            f"<b>{_e(f['citation'])}</b> {_e(f['message'])}"
            + (f" <i>To settle it: {_e(f['settle'])}</i>" if settle and f.get("settle") else "")
            + "</li>"
            for f in items
        )

    failed = [f for f in findings if f["status"] == "fail"]
    open_ = [f for f in findings if f["id"] in set(open_ids)]
    decide = [f for f in findings if f["status"] == "inspector_decision"]
    box = f"<b>What fails ({len(failed)})</b><ol>{_rows(failed)}</ol>" if failed else ""
    if open_:
        box += (
            f"<b>Not assessed ({len(open_)}): requirements that apply and could not be assessed; the "
            "plan is incomplete until each is settled</b>"
            f"<ol>{_rows(open_, settle=True)}</ol>"
        )
    if decide:
        box += f"<b>For the inspector's decision ({len(decide)})</b><ol>{_rows(decide)}</ol>"
    if not box:
        box = "Nothing fails and nothing is left open."
    kind = "" if failed else " open" if open_ else " decide" if decide else " none"
    return f'<div class="fails{kind}">{box}</div>'


def _appendix(s: dict[str, Any]) -> str:
    """The page's last section: the profile and the files read, with their SHA-256 (what the verdict was
    decided from), out of the reader's way at the top.
    """
    rows = []
    if s.get("profile_file"):
        rows.append(f"<p>Profile {_e(s['profile_file'])} (sha256 {_e(s.get('profile_sha256'))})</p>")
    if s.get("isolation"):
        rows.append(f"<p>{_e(s['isolation'])}</p>")
    return (
        '<h2 id="appendix">Appendix: the rulebook and the files read</h2><div class="profile">'
        + "".join(rows)
        + "</div>"
        if rows
        else ""
    )


def render_html(result: Any) -> str:
    """The page report.html: the head, the findings list, the map and its data, in one file.

    Parameters
    ----------
    result : CheckResult
        The check to show.

    Returns
    -------
    str
        The HTML page.
    """
    data = page_data(result)
    title = f"Plan check: {data['summary']['site']}"
    items = []
    section = None
    for f in data["findings"]:
        if f["section"] != section:
            section = f["section"]
            items.append(f"<h2>{_e(section or 'General')}</h2>")
        items.append(_finding_item(f))
    items.append(schedule_html(result.analysis.report.get("plan")))
    items.append(quantities_html(result.quantities.to_dict()))
    items.append(state_html(result.state, result.analysis.report.get("soil_loss")))
    items.append(_appendix(data["summary"]))
    leaflet_css, leaflet_js = _static("leaflet.css"), _static("leaflet.js")
    csp = (
        f"default-src 'none'; script-src {_csp_hash(leaflet_js)} {_csp_hash(_PAGE_JS)}; "
        f"style-src {_csp_hash(leaflet_css)} {_csp_hash(_PAGE_CSS)}; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )
    return _TEMPLATE.format(
        title=_e(title),
        csp=csp,
        leaflet_css=leaflet_css,
        leaflet_js=leaflet_js,
        page_css=_PAGE_CSS,
        page_js=_PAGE_JS,
        head=_head(title, data["summary"], data["findings"]),
        items="\n".join(items),
        data=json_for_html(data),
    )


def quantities_html(block: dict[str, Any]) -> str:
    """The page's section on the submitted plan's quantities, estimate and surety (report.json's
    ``quantities``), every text escaped (a kind is the submission's text).

    Parameters
    ----------
    block : dict
        The quantities (:meth:`geosite.plan.quantity_report.QuantityReport.to_dict`).

    Returns
    -------
    str
        HTML.
    """
    q = block.get("submitted") or block.get("proposed") or {"totals": []}
    rows = "".join(
        f"<tr><td>{_e(x['label'])}</td><td>{_e(x['unit'] or '')}</td><td>{_e(_quantity(x['quantity']))}</td>"
        f"<td>{_e(x['standard'])}</td><td>{_e(x['tags'])}</td><td>{_e(x['why'] or '')}</td></tr>"
        for x in q["totals"]
    )
    est = block.get("estimate")
    priced = (
        f"<p>Estimate at {_e(est['prices'])}: ${est['total']:,.2f}"
        + ("" if est["complete"] else " (incomplete)")
        + "</p>"
        if est
        else f"<p>{_e(block.get('prices_note') or '')}</p>"
    )
    return (
        "<h2>Quantities, estimate and surety</h2><table><tr><th>item</th><th>unit</th><th>quantity</th>"
        f"<th>standard</th><th>controls</th><th>not assessed</th></tr>{rows}</table>{priced}"
        f"<p>{_e(block['surety']['words'])}</p>"
    )


def schedule_html(block: dict[str, Any] | None) -> str:
    """The page's section on the submitted plan's schedule (report.json's ``plan`` ``block``): its phases
    and each control's install and remove dates, as the construction sheet lists them; every text escaped
    (a control's words are the submission's). "" without a plan.

    Parameters
    ----------
    block : dict or None
        The plan (:func:`geosite.report.plan_block`).

    Returns
    -------
    str
        HTML.
    """
    if not block or not block.get("schedule"):
        return ""
    phases = "".join(
        f"<tr><td>{_e(p['phase'])}</td><td>{_e(p.get('start') or '')}</td><td>{_e(p.get('end') or '')}</td>"
        f"<td>{_e(p.get('stabilized') or '')}</td><td>{_e(_quantity(round(p['area_sqft'])))}</td></tr>"
        for p in block.get("phases") or []
    )
    rows = "".join(
        f"<tr><td>{_e(r['tags'])}</td><td>{_e(r['control'])}</td><td>{_e(r.get('standard') or '')}</td>"
        f"<td>{_e(_quantity(r.get('quantity')))} {_e(r.get('unit') or '')}</td>"
        f"<td>{_e(r.get('install') or 'not dated')}</td><td>{_e(r.get('remove') or 'not dated')}</td></tr>"
        for r in block["schedule"]
    )
    return (
        "<h2>The plan's schedule</h2>"
        + (
            "<table><tr><th>phase</th><th>start</th><th>end</th><th>stabilized</th><th>sq ft</th></tr>"
            f"{phases}</table>"
            if phases
            else ""
        )
        + "<table><tr><th>controls</th><th>control</th><th>standard</th><th>quantity</th><th>install</th>"
        f"<th>remove</th></tr>{rows}</table>"
    )


def state_html(findings: list[Any], block: dict[str, Any] | None) -> str:
    """The page's section on the state's standard (:mod:`geosite.review.state_standard`): its findings and
    the soil loss of every 12-month window (report.json's ``soil_loss`` ``block``); "" without findings.

    Parameters
    ----------
    findings : list of Finding
        The state's findings (S1, S2, ...).
    block : dict or None
        The recomputed soil loss.

    Returns
    -------
    str
        HTML.
    """
    from geosite.review.state_standard import HEADING, NOT_IN_VERDICT
    from geosite.soil_loss.report import tpa_text

    if not findings:
        return ""
    items = "".join(
        _finding_item(
            {
                **f.to_dict(),
                "has_geometry": False,
                "site_wide": False,
                "where": "",
            }
        )
        for f in findings
    )
    rows = "".join(
        f"<tr><td>{_e(r['window'])}</td><td>{r['acres']:.3f}</td>"
        f"<td>{_e(tpa_text(r))}</td><td>{r['acres_not_assessed']:.3f}</td></tr>"
        for r in (block or {}).get("windows", [])
    )
    table = (
        "<table><tr><th>12-month window</th><th>acres assessed</th><th>t/ac</th><th>acres not assessed</th>"
        f"</tr>{rows}</table>"
        if rows
        else ""
    )
    return f"<h2>{_e(HEADING)}</h2><p>{_e(NOT_IN_VERDICT)}</p>{items}{table}"


def _quantity(v: float | None) -> str:
    """A quantity as the page prints it."""
    return "not assessed" if v is None else f"{v:,}"


def _finding_item(f: dict[str, Any]) -> str:
    """One finding's entry in the list: status badge, citation, id and rule, whether it is on the map, the
    message, then what was required, submitted, what would settle it and where.
    """
    extra = "".join(
        f'<div class="sub"><b>{label}:</b> {_e(f[k])}</div>'
        for k, label in (
            ("requirement", "Required"),
            ("submitted", "Submitted"),
            ("settle", "To settle it"),
            ("where", "Where"),
        )
        if f[k]
    )
    pin = (
        ' <span class="pin" title="shown on the map">&#9679; map</span>'
        if f["has_geometry"]
        else ' <span class="pin" title="about the plan as a whole: not drawn">whole plan</span>'
        if f["site_wide"]
        else ""
    )
    status = f["status"] if f["status"] in STATUS_COLOURS else "other"
    return (
        f'<div class="finding {status}" id="finding-{_e(f["id"])}" data-id="{_e(f["id"])}" tabindex="0">'
        f'<span class="badge {status}">{_e(f["status"].replace("_", " "))}</span> '
        f'<b>{_e(f["citation"] or "")}</b> <span class="rule">{_e(f["id"])} &middot; '
        f"{_e(f['rule'])}</span>{pin}"
        f'<div class="msg">{_e(f["message"])}</div>{extra}</div>'
    )


def _head(title: str, s: dict[str, Any], findings: list[dict[str, Any]]) -> str:
    """The page's head: the title, jurisdiction, verdict and counts, plan type required, review deadline,
    then the box of what fails or is open (the profile and the files read are the appendix's).
    """
    deadline = s.get("review_deadline")
    verdict = (
        s["verdict"] if s["verdict"] in ("pass", "fail", "inspector_decision", "incomplete") else "other"
    )
    return (
        f'<div class="head"><h1>{_e(title)}</h1><div>{_e(s["jurisdiction_name"])} &middot; verdict '
        f'<b class="verdict {verdict}">{_e(s["verdict"].replace("_", " ").upper())}</b> '
        f"({_e(s['counts_text'])})"
        + (f" &middot; plan required: {_e(s['plan_type_required'])}" if s.get("plan_type_required") else "")
        + (f" &middot; review deadline: <b>{_e(deadline)}</b>" if deadline else "")
        + ' &middot; <a href="#appendix">files read</a>'
        + "</div>"
        + _failures(findings, [t["finding"] for t in s.get("to_settle") or []])
        + "</div>"
    )


_PAGE_CSS = """
html, body { margin: 0; height: 100%; font: 14px/1.4 system-ui, sans-serif; }
body { display: flex; flex-direction: column; }
.head { padding: 6px 12px; border-bottom: 1px solid #ccc; }
.head h1 { font-size: 18px; margin: 2px 0; }
.profile { color: #666; font-size: 11px; }
.fails { margin: 6px 0 2px; padding: 4px 10px; background: #fdecea; border-left: 4px solid #d7191c; \
max-height: 22vh; overflow-y: auto; }
.fails.none { background: #eaf6ec; border-color: #1a9641; }
.fails.open { background: #fff4e0; border-color: #e08a00; } .verdict.incomplete { color: #e08a00; }
.fails.decide { background: #f3eaf7; border-color: #7b3294; }
.fails ol { margin: 2px 0; padding-left: 22px; } .fails li { margin: 1px 0; }
.verdict.fail { color: #d7191c; } .verdict.pass { color: #1a9641; }
.main { flex: 1; display: flex; min-height: 0; }
#list { width: 42%; overflow-y: auto; padding: 0 10px; border-right: 1px solid #ccc; }
#list h2 { font-size: 15px; margin: 14px 0 4px; }
#map { flex: 1; background: #f4f1ea; }
#legend { width: 200px; overflow-y: auto; padding: 6px 8px; border-left: 1px solid #ccc; font-size: 12px; \
line-height: 18px; }
#legend h3 { font-size: 13px; margin: 4px 0; } #legend label { display: block; cursor: pointer; }
#legend input { margin: 0 4px 0 0; vertical-align: middle; }
.finding { padding: 6px 8px; margin: 4px 0; border-left: 4px solid #ccc; cursor: pointer; border-radius: \
3px; }
.finding.fail { border-color: #d7191c; } .finding.not_assessed { border-color: #e08a00; }
.finding.info { border-color: #2b83ba; } .finding.pass { border-color: #1a9641; }
.finding.selected { background: #fff3b0; outline: 2px solid #f0c000; }
.badge { color: #fff; padding: 1px 6px; border-radius: 3px; font-size: 12px; text-transform: uppercase; \
background: #666; }
.badge.fail { background: #d7191c; } .badge.not_assessed { background: #e08a00; }
.badge.info { background: #2b83ba; } .badge.pass { background: #1a9641; }
.finding.inspector_decision { border-color: #7b3294; } .badge.inspector_decision { background: #7b3294; } \
.verdict.inspector_decision { color: #7b3294; }
.rule, .pin { color: #666; font-size: 12px; }
.sub { font-size: 12px; color: #333; margin-left: 8px; }
.legend .sw { display: inline-block; width: 22px; height: 0; margin-right: 6px; vertical-align: middle; \
border-top: 3px solid #444; }
.legend .sw.area { height: 10px; border: 1px solid #444; }
.popup td { padding: 0 6px 0 0; vertical-align: top; } .popup td:first-child { color: #666; }
@media print { .main { display: block; } #list { width: auto; overflow: visible; } #map { height: 500px; } \
#legend { width: auto; border: 0; } }
"""

_PAGE_JS = """
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("geosite-data").textContent);
  var COLOURS = DATA.colours;
  function text(s) { var el = document.createElement("span"); el.textContent = String(s); return el; }
  function table(name, attrs) {
    var box = document.createElement("div"), t = document.createElement("table");
    box.className = "popup"; box.appendChild(text(name)); box.appendChild(t);
    Object.keys(attrs || {}).forEach(function (k) {
      var tr = t.insertRow(), a = tr.insertCell(), b = tr.insertCell();
      a.textContent = k; b.textContent = attrs[k];
    });
    return box;
  }
  var map = L.map("map", { zoomSnap: 0.25, maxZoom: 23, attributionControl: false });
  var ctxStyle = {
    "site boundary": { color: "#000", weight: 2, fill: false },
    "contours": { color: "#a0825a", weight: 0.8, opacity: 0.8 },
    "disturbed area": { color: "#8c6d31", weight: 1, fillColor: "#d9b77e", fillOpacity: 0.35 },
    "required filter fence": { color: "#555", weight: 1.5, dashArray: "4 4" },
    "roads": { color: "#6e6e6e", weight: 3, fillColor: "#bdbdbd", fillOpacity: 0.5 },
    "streams": { color: "#2c7fb8", weight: 2.5, fillColor: "#7fcdbb", fillOpacity: 0.4 },
    "lakes": { color: "#2c7fb8", weight: 1, fillColor: "#a6dbf0", fillOpacity: 0.6 },
    "wetlands": { color: "#31a354", weight: 1, fillColor: "#a1d99b", fillOpacity: 0.4, dashArray: "2 3" },
    "channels (submitted)": { color: "#2171b5", weight: 1.5, dashArray: "6 3" },
    "storm inlets": { color: "#08519c", weight: 2, fillColor: "#6baed6", fillOpacity: 0.9 },
    "stockpiles": { color: "#7f2704", weight: 1, fillColor: "#d94801", fillOpacity: 0.35 },
    "structures": { color: "#333", weight: 1, fillColor: "#8c8c8c", fillOpacity: 0.7 },
    "access drives": { color: "#555", weight: 1, fillColor: "#cfcfcf", fillOpacity: 0.7, dashArray: "3 2" },
    "submitted BMPs": { color: "#006d2c", weight: 2, fillOpacity: 0.2 }
  };
  var areas = { "disturbed area": 1, "lakes": 1, "wetlands": 1, "stockpiles": 1, "structures": 1, "access \
drives": 1 };
  function styleOf(name, f) {
    var s = ctxStyle[name] || { color: "#444", weight: 1 };
    if (name === "contours" && f && f.properties.attrs && f.properties.attrs.index === "True") {
      return { color: s.color, weight: 1.8, opacity: 1 };
    }
    return s;
  }
  var overlays = {}, contextLayers = {}, all = L.featureGroup();
  Object.keys(DATA.context).forEach(function (name) {
    var layer = L.geoJSON(DATA.context[name], {
      style: function (f) { return styleOf(name, f); },
      pointToLayer: function (f, ll) { return L.circleMarker(ll, { radius: 4 }); },
      onEachFeature: function (f, l) {
        l.bindTooltip(text(f.properties.name || name));
        l.bindPopup(table(f.properties.name || name, f.properties.attrs));
      }
    }).addTo(map);
    overlays[name] = layer; contextLayers[name] = layer; all.addLayer(layer);
  });
  function baseStyle(status) {
    var problem = status === "fail" || status === "not_assessed";
    return { color: COLOURS[status] || "#666", weight: problem ? 4 : 1.5, opacity: problem ? 0.9 : 0.6,
             fillColor: COLOURS[status] || "#666", fillOpacity: problem ? 0.3 : 0.06 };
  }
  var findingLayers = {}, statusOf = {};
  DATA.findings.forEach(function (f) { statusOf[f.id] = f.status; });
  var findingGroup = L.geoJSON(DATA.finding_geometry, {
    style: function (f) { return baseStyle(f.properties.status); },
    pointToLayer: function (f, ll) { return L.circleMarker(ll, { radius: 7 }); },
    onEachFeature: function (f, l) {
      findingLayers[f.properties.id] = l;
      l.bindTooltip(text(f.properties.id + " " + f.properties.status + ": " + f.properties.rule));
      l.on("click", function (e) { L.DomEvent.stopPropagation(e); select(f.properties.id, false); });
      all.addLayer(l);
    }
  }).addTo(map);
  var selected = null;
  function select(id, zoom) {
    if (selected && findingLayers[selected]) { \
findingLayers[selected].setStyle(baseStyle(statusOf[selected])); }
    document.querySelectorAll(".finding.selected").forEach(function (el) { el.classList.remove("selected"); \
});
    selected = id;
    var item = document.getElementById("finding-" + id);
    if (item) { item.classList.add("selected"); if (!zoom) item.scrollIntoView({ block: "center" }); }
    var layer = findingLayers[id];
    if (layer) {
      layer.setStyle({ color: "#f0c000", weight: 7, opacity: 1, fillColor: "#f0c000", fillOpacity: 0.45 });
      layer.bringToFront();
      if (zoom) {
        if (layer.getBounds) { map.fitBounds(layer.getBounds(), { padding: [40, 40], maxZoom: 21 }); }
        else { map.setView(layer.getLatLng(), 21); }
      }
    }
  }
  document.querySelectorAll(".finding").forEach(function (el) {
    el.addEventListener("click", function () { select(el.getAttribute("data-id"), true); });
    el.addEventListener("keydown", function (e) { if (e.key === "Enter") select(el.getAttribute("data-id"), \
true); });
  });
  document.querySelectorAll(".fails a.goto").forEach(function (el) {
    el.addEventListener("click", function (e) {
      e.preventDefault(); var id = el.getAttribute("data-id"); select(id, true);
      var item = document.getElementById("finding-" + id); if (item) item.scrollIntoView({ block: "center" });
    });
  });
  // the legend and the layer switches, beside the map (never over it): a row per layer, its box
  // showing or hiding it, its swatch drawn as the map draws it
  var box = document.getElementById("legend");
  function heading(t) { var h = document.createElement("h3"); h.textContent = t; box.appendChild(h); }
  function row(label, colour, area, dash, layer) {
    var r = document.createElement("label"), sw = document.createElement("span");
    if (layer) {
      var cb = document.createElement("input"); cb.type = "checkbox"; cb.checked = true;
      cb.addEventListener("change", function () { if (cb.checked) map.addLayer(layer); else \
map.removeLayer(layer); });
      r.appendChild(cb);
    }
    sw.className = "sw" + (area ? " area" : "");
    sw.style.borderColor = colour; if (area) sw.style.background = colour + "66";
    if (dash) sw.style.borderTopStyle = "dashed";
    r.appendChild(sw); r.appendChild(text(label)); box.appendChild(r);
  }
  heading("Layers");
  Object.keys(DATA.context).forEach(function (name) {
    var s = styleOf(name);
    row(name, s.fillColor && areas[name] ? s.fillColor : s.color, !!areas[name], !!s.dashArray, \
overlays[name]);
  });
  heading("Findings on the map");
  row("findings with a place", "#444", false, false, findingGroup);
  Object.keys(COLOURS).forEach(function (st) { row("finding: " + st.replace("_", " "), COLOURS[st], false, \
false, null); });
  var wide = DATA.findings.filter(function (f) { return f.site_wide; }).length;
  if (wide) {
    var note = document.createElement("p");
    note.textContent = wide + " finding(s) about the plan as a whole are listed, not drawn.";
    box.appendChild(note);
  }
  L.control.scale({ imperial: true, metric: false }).addTo(map);
  // the map opens on the site: its boundary and the disturbed area (the context around it is a pan away)
  var focus = L.featureGroup();
  ["site boundary", "disturbed area"].forEach(function (n) {
    if (contextLayers[n]) focus.addLayer(contextLayers[n]);
  });
  var b = focus.getLayers().length && focus.getBounds().isValid() ? focus.getBounds() : all.getBounds();
  if (b.isValid()) map.fitBounds(b, { padding: [20, 20] }); else map.setView([44.5, -89.5], 7);
  window.geosite = { map: map, findingLayers: findingLayers, contextLayers: contextLayers, select: select, \
data: DATA };
})();
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<!-- Leaflet 1.9.4 (c) Volodymyr Agafonkin, CloudMade; BSD-2-Clause licence: geosite/review/static/LICENSE -->
<style>{leaflet_css}</style>
<style>{page_css}</style></head>
<body>
{head}
<div class="main"><div id="list">{items}</div><div id="map"></div><div id="legend" class="legend"></div></div>
<script type="application/json" id="geosite-data">{data}</script>
<script>{leaflet_js}</script>
<script>{page_js}</script>
</body></html>
"""
