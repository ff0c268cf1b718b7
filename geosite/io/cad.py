"""DXF export for CAD: geosite's layers on named, coloured CAD layers, with the attributes kept.

Layer names follow the US National CAD Standard's pattern (discipline ``C`` civil, a major group, a
minor group): erosion and sediment control on ``C-ESCP-*``, topography on ``C-TOPO-*``, the property on
``C-PROP-*``; each filter fence kind on its own layer with its own linetype. The table is
:data:`CAD_LAYERS` (documented in docs/cad_layers.md); colours are AutoCAD colour indices (ACI).

What a CAD technician opens: coordinates in the layers' CRS units, ``$INSUNITS`` from that CRS (US
survey feet 21, feet 2, metres 6) and ``$MEASUREMENT`` agreeing (0 imperial for feet, 1 metric for
metres), ``$EXTMIN``/``$EXTMAX`` on the drawing's extent so it opens on the site, contours as
LWPOLYLINEs at their elevation, and every feature's attributes as XDATA of the application
``GEOSITE`` (one ``name=value`` string each). Written with ezdxf (audited on save by the tests).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from geosite.errors import CRSError, OutputError

#: DXF $INSUNITS codes by metres per CRS unit.
INSUNITS = {1200.0 / 3937.0: 21, 0.3048: 2, 1.0: 6}
#: $MEASUREMENT (0 imperial, 1 metric) for each $INSUNITS code.
MEASUREMENT = {21: 0, 2: 0, 6: 1}
APPID = "GEOSITE"

#: Linetypes geosite defines: name -> (description, pattern in drawing units: total, then dashes
#: (> 0), gaps (< 0) and dots (0)); lengths in feet, scaled to the CRS unit when written.
LINETYPES: dict[str, tuple[str, list[float]]] = {
    "GS_SILT_FENCE": ("Silt fence ---- x ----", [12.0, 8.0, -2.0, 0.0, -2.0]),
    "GS_SILT_FENCE_ROW": ("Silt fence row -- x -- x --", [9.0, 4.0, -2.0, 0.0, -2.0, 0.0, -1.0]),
    "GS_CHANNEL_FENCE": ("Channel-edge fence --- . . ---", [12.0, 6.0, -1.5, 0.0, -1.5, 0.0, -3.0]),
    "GS_LIMITS": ("Limits of disturbance ---- ----", [14.0, 10.0, -4.0]),
    "GS_DRAINAGE": ("Drainage path . . . .", [3.0, 0.0, -3.0]),
}

#: geosite layer (or ``filter_fence:<side>``) -> (CAD layer, ACI colour, linetype, what it holds).
CAD_LAYERS: dict[str, tuple[str, int, str, str]] = {
    "site_boundary": ("C-PROP-BNDY", 7, "PHANTOM", "site boundary (the parcel)"),
    "disturbed_area": ("C-ESCP-LIMT", 30, "GS_LIMITS", "limits of land disturbance (union, clipped to the site)"),
    "disturbance_phases": ("C-ESCP-PHAS", 40, "DASHED", "land disturbance by phase"),
    "steep_slopes": ("C-TOPO-STEP", 221, "CONTINUOUS", "slopes of 12 % or more (and 20 %)"),
    "contours": ("C-TOPO-MINR", 33, "CONTINUOUS", "existing contours (minor)"),
    "contours:index": ("C-TOPO-MAJR", 32, "CONTINUOUS", "existing index contours"),
    "channels": ("C-ESCP-DRNG", 150, "GS_DRAINAGE", "natural drainage paths from the DEM"),
    "upslope_areas": ("C-ESCP-UPSL", 1, "DASHDOT", "upslope drainage areas"),
    "upslope_entry_points": ("C-ESCP-UPSL-PNTS", 1, "CONTINUOUS", "where upslope drainage enters"),
    "filter_fence:downslope": ("C-ESCP-SFNC-DOWN", 6, "GS_SILT_FENCE", "silt fence, downslope edges"),
    "filter_fence:sideslope": ("C-ESCP-SFNC-SIDE", 6, "GS_SILT_FENCE", "silt fence, sideslope edges"),
    "filter_fence:hook": ("C-ESCP-SFNC-HOOK", 6, "CONTINUOUS", "silt fence end hooks (turned upslope)"),
    "filter_fence:channel": ("C-ESCP-SFNC-CHNL", 4, "GS_CHANNEL_FENCE", "silt fence along channel edges"),
    "filter_fence:interior": ("C-ESCP-SFNC-ROWS", 210, "GS_SILT_FENCE_ROW", "interior silt fence rows (DNR 1056)"),
    "filter_fence:stand_in": ("C-ESCP-SFNC-NBLD", 8, "DOT", "interior rows not buildable: what stands in"),
    "fence_gaps": ("C-ESCP-SFNC-GAPS", 1, "CONTINUOUS", "required fence missing from the submitted plan"),
    "stockpile_setbacks": ("C-ESCP-STKP-SETB", 30, "DASHED", "stockpile setback zones"),
    "stockpile_fences": ("C-ESCP-SFNC-STKP", 6, "GS_SILT_FENCE", "fences at stockpiles"),
    "sediment_basins": ("C-ESCP-BASN", 5, "CONTINUOUS", "sediment basins and traps"),
    "inlet_protection": ("C-ESCP-INLT", 2, "CONTINUOUS", "storm drain inlet protection"),
    "tracking_pads": ("C-ESCP-TRAK", 8, "CONTINUOUS", "stone tracking pads"),
    "diversions": ("C-ESCP-DIVR", 5, "DASHED2", "diversions"),
}
#: A geosite layer not in the table: ``C-ESCP-`` and its name, white, continuous.
DEFAULT_LAYER = ("C-ESCP-{name}", 7, "CONTINUOUS", "geosite layer {name}")


def insunits(crs: Any) -> int:
    """The DXF ``$INSUNITS`` code for a projected CRS's linear unit."""
    from geosite.units import crs_linear_unit_metres

    m = crs_linear_unit_metres(crs, "DXF export")
    for metres, code in INSUNITS.items():
        if abs(m - metres) < 1e-9:
            return code
    raise CRSError(f"DXF export: no $INSUNITS code for a unit of {m} m; reproject to feet or metres")


def cad_layer(name: str, side: str | None = None) -> tuple[str, int, str, str]:
    """(CAD layer, ACI colour, linetype, description) for a geosite layer (and a fence's side)."""
    key = f"{name}:{side}" if side else name
    if key in CAD_LAYERS:
        return CAD_LAYERS[key]
    if name in CAD_LAYERS:
        return CAD_LAYERS[name]
    cad, aci, lt, what = DEFAULT_LAYER
    return cad.format(name=name.upper().replace("_", "-")), aci, lt, what.format(name=name)


def write_dxf(layers: dict[str, Any], path: str | Path, point_radius: float | None = None) -> Path:
    """Write GeoDataFrames to one DXF file (see the module notes): LWPOLYLINE for lines and polygon
    rings (closed), POINT (or CIRCLE of ``point_radius`` CRS units) for points, attributes as XDATA.
    All layers must share one projected CRS (others are reprojected to the first's)."""
    import ezdxf

    crs = None
    for name, gdf in layers.items():
        if gdf is None or not len(gdf):
            continue
        if gdf.crs is None:
            raise CRSError(f"DXF export: layer {name!r} has no CRS")
        if crs is None:
            crs = gdf.crs
        elif not gdf.crs.equals(crs):
            layers = {**layers, name: gdf.to_crs(crs)}
    doc = ezdxf.new("R2010", setup=True)
    code = insunits(crs) if crs is not None else None
    # heights (elevation_ft) and linetype lengths are in the site's foot: the CRS unit on a foot CRS
    # (US survey or international), international feet on a metre CRS
    ft_per_unit = 1.0
    if code is not None:
        doc.header["$INSUNITS"] = code
        doc.header["$MEASUREMENT"] = MEASUREMENT[code]
        ft_per_unit = 1.0 / 0.3048 if code == 6 else 1.0
    for lt, (desc, pattern) in LINETYPES.items():
        doc.linetypes.add(lt, pattern=[v / ft_per_unit for v in pattern], description=desc)
    doc.appids.add(APPID)
    msp = doc.modelspace()
    bounds = [math.inf, math.inf, -math.inf, -math.inf]
    for name, gdf in layers.items():
        if gdf is None:
            continue
        sides = gdf["side"].astype(str) if name == "filter_fence" and "side" in gdf.columns else None
        if sides is None and name == "contours" and "index" in gdf.columns:
            sides = gdf["index"].map(lambda v: "index" if bool(v) else "")
        for key in (set(sides) if sides is not None else {None}):
            cad, aci, lt, what = cad_layer(name, key or None)
            if cad not in doc.layers:
                doc.layers.add(cad, color=aci, linetype=lt).description = what
        if not len(gdf):
            continue
        attrs = [c for c in gdf.columns if c != gdf.geometry.name]
        for i, geom in enumerate(gdf.geometry.values):
            if geom is None or geom.is_empty:
                continue
            row = gdf.iloc[i]
            cad = cad_layer(name, (sides.iloc[i] or None) if sides is not None else None)[0]
            elevation = None
            if name == "contours" and "elevation_ft" in gdf.columns:
                elevation = float(row["elevation_ft"]) / ft_per_unit
            xdata = [(1000, f"geosite_layer={name}")] + [(1000, f"{c}={_text(row[c])}"[:255]) for c in attrs]
            _add(msp, geom, cad, point_radius, elevation, xdata)
            b = geom.bounds
            bounds = [min(bounds[0], b[0]), min(bounds[1], b[1]), max(bounds[2], b[2]), max(bounds[3], b[3])]
    if math.isfinite(bounds[0]):
        # ezdxf writes the header's $EXTMIN/$EXTMAX from the modelspace layout's on save
        msp.dxf.extmin = (bounds[0], bounds[1], 0.0)
        msp.dxf.extmax = (bounds[2], bounds[3], 0.0)
        doc.set_modelspace_vport(height=(bounds[3] - bounds[1]) * 1.1,
                                 center=((bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2))
    out = Path(path)
    try:
        doc.saveas(out)
    except OSError as exc:
        raise OutputError(f"{out}: cannot write the DXF ({exc})") from exc
    return out


def _text(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _add(msp: Any, geom: Any, layer: str, radius: float | None, elevation: float | None, xdata: list) -> None:
    if geom is None or geom.is_empty:
        return
    t = geom.geom_type
    attribs: dict[str, Any] = {"layer": layer}
    if elevation is not None:
        attribs["elevation"] = elevation
    if t.startswith("Multi") or t == "GeometryCollection":
        for g in geom.geoms:
            _add(msp, g, layer, radius, elevation, xdata)
        return
    if t == "Point":
        e = (msp.add_circle((geom.x, geom.y), radius, dxfattribs=attribs) if radius
             else msp.add_point((geom.x, geom.y), dxfattribs=attribs))
        e.set_xdata(APPID, xdata)
    elif t in ("LineString", "LinearRing"):
        e = msp.add_lwpolyline([tuple(c[:2]) for c in geom.coords], close=t == "LinearRing", dxfattribs=attribs)
        e.set_xdata(APPID, xdata)
    elif t == "Polygon":
        for ring in [geom.exterior, *geom.interiors]:
            e = msp.add_lwpolyline([tuple(c[:2]) for c in list(ring.coords)[:-1]], close=True, dxfattribs=attribs)
            e.set_xdata(APPID, xdata)
