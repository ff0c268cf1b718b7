"""report.html: one self-contained page an inspector can open offline and send on.

The findings list sits beside a Leaflet map of the site (site boundary, disturbed area, required and
submitted fences, submitted BMPs, and each finding's geometry highlighted), reprojected to EPSG:4326.
Clicking a finding zooms the map to its geometry and highlights it; clicking a feature on the map
scrolls its finding into view and highlights it. Leaflet 1.9.4 (BSD-2-Clause, geosite/review/static/
LICENSE) is inlined; there is no basemap and nothing is fetched from the network.

The page exposes ``window.geosite = {map, findingLayers, select(id)}`` for scripted use and tests.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

import shapely
from shapely.geometry import mapping

STATUS_COLOURS = {"fail": "#d7191c", "not_assessed": "#e08a00", "info": "#2b83ba", "pass": "#1a9641", "inspector_decision": "#7b3294"}


def _static(name: str) -> str:
    text = (resources.files("geosite.review") / "static" / name).read_text(encoding="utf-8")
    # the source map is not shipped; the comment would only make devtools look for it
    text = "\n".join(line for line in text.splitlines() if not line.startswith("//# sourceMappingURL"))
    # the marker and layer-switcher images are not shipped either: no request may leave the page
    return re.sub(r"url\(images/[^)]*\)", "none", text)


def _to_wgs84(geoms: list, crs: Any) -> list:
    import geopandas as gpd

    if not geoms:
        return []
    return list(gpd.GeoSeries(geoms, crs=crs).to_crs("EPSG:4326"))


def _collection(geoms: list, props: list[dict[str, Any]]) -> dict[str, Any]:
    feats = []
    for g, p in zip(geoms, props, strict=True):
        if g is None or g.is_empty:
            continue
        g = shapely.set_precision(g, 1e-9) if g.geom_type != "GeometryCollection" else g
        feats.append({"type": "Feature", "geometry": mapping(g), "properties": p})
    return {"type": "FeatureCollection", "features": feats}


def page_data(result) -> dict[str, Any]:
    """The JSON the page draws: context layers and findings, in EPSG:4326."""
    crs = result.site.crs
    ctx: dict[str, Any] = {}
    site_b = result.site.layers["site_boundary"]
    ctx["site boundary"] = _collection(_to_wgs84(list(site_b.geometry), crs), [{"name": "site boundary"}] * len(site_b))
    L = result.analysis.layers
    for key, label in (("disturbed_area", "disturbed area"), ("filter_fence", "required filter fence")):
        g = L.get(key)
        if g is not None and len(g):
            ctx[label] = _collection(_to_wgs84(list(g.geometry), crs), [{"name": label}] * len(g))
    bmps = result.site.layer("bmps")
    if bmps is not None:
        types = list(bmps["type"].astype(str)) if "type" in bmps.columns else ["bmp"] * len(bmps)
        ctx["submitted BMPs"] = _collection(_to_wgs84(list(bmps.geometry), crs),
                                            [{"name": f"bmps {i} ({t})"} for i, t in zip(bmps["id"], types, strict=True)])
    with_geom = [f for f in result.findings if f.geometry is not None and not f.geometry.is_empty]
    geoms = _to_wgs84([f.geometry for f in with_geom], crs)
    findings = []
    for f in result.findings:
        findings.append({"id": f.id, "rule": f.rule, "citation": f.citation, "section": f.section, "status": f.status,
                         "message": f.message, "requirement": f.requirement, "submitted": f.submitted, "settle": f.settle,
                         "has_geometry": f in with_geom})
    fcoll = _collection(geoms, [{"id": f.id, "status": f.status, "rule": f.rule} for f in with_geom])
    return {"summary": result.summary(), "context": ctx, "findings": findings, "finding_geometry": fcoll}


def render_html(result) -> str:
    data = page_data(result)
    s = data["summary"]
    title = f"Plan check: {s['site']}"
    items = []
    section = None
    for f in data["findings"]:
        if f["section"] != section:
            section = f["section"]
            items.append(f"<h2>{html.escape(section or 'General')}</h2>")
        extra = "".join(
            f'<div class="sub"><b>{label}:</b> {html.escape(f[k])}</div>'
            for k, label in (("requirement", "Required"), ("submitted", "Submitted"), ("settle", "To settle it")) if f[k]
        )
        pin = ' <span class="pin" title="shown on the map">&#9679; map</span>' if f["has_geometry"] else ""
        items.append(
            f'<div class="finding {f["status"]}" id="finding-{f["id"]}" data-id="{f["id"]}" tabindex="0">'
            f'<span class="badge" style="background:{STATUS_COLOURS.get(f["status"], "#666")}">{html.escape(f["status"].replace("_", " "))}</span> '
            f'<b>{html.escape(f["citation"] or "")}</b> <span class="rule">{html.escape(f["id"])} &middot; {html.escape(f["rule"])}</span>{pin}'
            f'<div class="msg">{html.escape(f["message"])}</div>{extra}</div>'
        )
    deadline = s.get("review_deadline")
    head = (f'<div class="head"><h1>{html.escape(title)}</h1><div>{html.escape(s["jurisdiction_name"])} &middot; verdict '
            f'<b class="verdict {s["verdict"]}">{s["verdict"].upper()}</b> ({html.escape(s["counts_text"])})'
            + (f" &middot; plan required: {html.escape(str(s['plan_type_required']))}" if s.get("plan_type_required") else "")
            + (f" &middot; review deadline: <b>{html.escape(deadline)}</b>" if deadline else "") + "</div></div>")
    payload = json.dumps(data, default=str).replace("</", "<\\/")
    return _TEMPLATE.format(
        title=html.escape(title), leaflet_css=_static("leaflet.css"), leaflet_js=_static("leaflet.js"),
        head=head, items="\n".join(items), data=payload, colours=json.dumps(STATUS_COLOURS),
    )


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<!-- Leaflet 1.9.4 (c) Volodymyr Agafonkin, CloudMade; BSD-2-Clause licence: geosite/review/static/LICENSE -->
<style>{leaflet_css}</style>
<style>
html, body {{ margin: 0; height: 100%; font: 14px/1.4 system-ui, sans-serif; }}
body {{ display: flex; flex-direction: column; }}
.head {{ padding: 6px 12px; border-bottom: 1px solid #ccc; }}
.head h1 {{ font-size: 18px; margin: 2px 0; }}
.verdict.fail {{ color: #d7191c; }} .verdict.pass {{ color: #1a9641; }}
.main {{ flex: 1; display: flex; min-height: 0; }}
#list {{ width: 42%; overflow-y: auto; padding: 0 10px; border-right: 1px solid #ccc; }}
#list h2 {{ font-size: 15px; margin: 14px 0 4px; }}
#map {{ flex: 1; background: #f4f1ea; }}
.finding {{ padding: 6px 8px; margin: 4px 0; border-left: 4px solid #ccc; cursor: pointer; border-radius: 3px; }}
.finding.fail {{ border-color: #d7191c; }} .finding.not_assessed {{ border-color: #e08a00; }}
.finding.info {{ border-color: #2b83ba; }} .finding.pass {{ border-color: #1a9641; }}
.finding.selected {{ background: #fff3b0; outline: 2px solid #f0c000; }}
.badge {{ color: #fff; padding: 1px 6px; border-radius: 3px; font-size: 12px; text-transform: uppercase; }}
.rule, .pin {{ color: #666; font-size: 12px; }}
.sub {{ font-size: 12px; color: #333; margin-left: 8px; }}
@media print {{ .main {{ display: block; }} #list {{ width: auto; overflow: visible; }} #map {{ height: 500px; }} }}
</style></head>
<body>
{head}
<div class="main"><div id="list">{items}</div><div id="map"></div></div>
<script>{leaflet_js}</script>
<script>
(function () {{
  "use strict";
  var DATA = {data};
  var COLOURS = {colours};
  var map = L.map("map", {{ zoomSnap: 0.25, maxZoom: 23, attributionControl: false }});
  var ctxStyle = {{
    "site boundary": {{ color: "#000", weight: 2, fill: false }},
    "disturbed area": {{ color: "#8c6d31", weight: 1, fillColor: "#d9b77e", fillOpacity: 0.35 }},
    "required filter fence": {{ color: "#555", weight: 1.5, dashArray: "4 4" }},
    "submitted BMPs": {{ color: "#006d2c", weight: 2, fillOpacity: 0.2 }}
  }};
  var overlays = {{}}, all = L.featureGroup();
  Object.keys(DATA.context).forEach(function (name) {{
    var layer = L.geoJSON(DATA.context[name], {{
      style: function () {{ return ctxStyle[name] || {{ color: "#444", weight: 1 }}; }},
      pointToLayer: function (f, ll) {{ return L.circleMarker(ll, {{ radius: 4 }}); }},
      onEachFeature: function (f, l) {{ l.bindTooltip(f.properties.name || name); }}
    }}).addTo(map);
    overlays[name] = layer; all.addLayer(layer);
  }});
  function baseStyle(status) {{
    var problem = status === "fail" || status === "not_assessed";
    return {{ color: COLOURS[status] || "#666", weight: problem ? 4 : 1.5, opacity: problem ? 0.9 : 0.6,
             fillColor: COLOURS[status] || "#666", fillOpacity: problem ? 0.3 : 0.06 }};
  }}
  var findingLayers = {{}};
  L.geoJSON(DATA.finding_geometry, {{
    style: function (f) {{ return baseStyle(f.properties.status); }},
    pointToLayer: function (f, ll) {{ return L.circleMarker(ll, {{ radius: 7 }}); }},
    onEachFeature: function (f, l) {{
      findingLayers[f.properties.id] = l;
      l.bindTooltip(f.properties.id + " " + f.properties.status + ": " + f.properties.rule);
      l.on("click", function (e) {{ L.DomEvent.stopPropagation(e); select(f.properties.id, false); }});
      all.addLayer(l);
    }}
  }}).addTo(map);
  var selected = null;
  function select(id, zoom) {{
    if (selected && findingLayers[selected]) {{
      var prev = document.getElementById("finding-" + selected);
      findingLayers[selected].setStyle(baseStyle(prev ? prev.className.split(" ")[1] : "info"));
    }}
    document.querySelectorAll(".finding.selected").forEach(function (el) {{ el.classList.remove("selected"); }});
    selected = id;
    var item = document.getElementById("finding-" + id);
    if (item) {{ item.classList.add("selected"); if (!zoom) item.scrollIntoView({{ block: "center" }}); }}
    var layer = findingLayers[id];
    if (layer) {{
      layer.setStyle({{ color: "#f0c000", weight: 7, opacity: 1, fillColor: "#f0c000", fillOpacity: 0.45 }});
      layer.bringToFront();
      if (zoom) {{
        if (layer.getBounds) {{ map.fitBounds(layer.getBounds(), {{ padding: [40, 40], maxZoom: 21 }}); }}
        else {{ map.setView(layer.getLatLng(), 21); }}
      }}
    }}
  }}
  document.querySelectorAll(".finding").forEach(function (el) {{
    el.addEventListener("click", function () {{ select(el.getAttribute("data-id"), true); }});
    el.addEventListener("keydown", function (e) {{ if (e.key === "Enter") select(el.getAttribute("data-id"), true); }});
  }});
  L.control.layers(null, overlays, {{ collapsed: false }}).addTo(map);
  L.control.scale({{ imperial: true, metric: false }}).addTo(map);
  var b = all.getBounds();
  if (b.isValid()) map.fitBounds(b, {{ padding: [20, 20] }}); else map.setView([44.5, -89.5], 7);
  window.geosite = {{ map: map, findingLayers: findingLayers, select: select, data: DATA }};
}})();
</script>
</body></html>
"""
