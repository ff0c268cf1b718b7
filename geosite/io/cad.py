"""DXF export of control layers for CAD: one DXF layer per geosite layer, coordinates in the layers'
CRS units, ``$INSUNITS`` set from that CRS (US survey feet 21, feet 2, metres 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from geosite.errors import CRSError, OutputError

#: DXF $INSUNITS codes by metres per CRS unit.
INSUNITS = {1200.0 / 3937.0: 21, 0.3048: 2, 1.0: 6}


def insunits(crs: Any) -> int:
    """The DXF ``$INSUNITS`` code for a projected CRS's linear unit."""
    from geosite.units import crs_linear_unit_metres

    m = crs_linear_unit_metres(crs, "DXF export")
    for metres, code in INSUNITS.items():
        if abs(m - metres) < 1e-9:
            return code
    raise CRSError(f"DXF export: no $INSUNITS code for a unit of {m} m; reproject to feet or metres")


def write_dxf(layers: dict[str, Any], path: str | Path, point_radius: float | None = None) -> Path:
    """Write GeoDataFrames to one DXF file: LWPOLYLINE for lines and polygon rings (closed), POINT (or
    CIRCLE of ``point_radius`` CRS units) for points. All layers must share one projected CRS."""
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
    doc = ezdxf.new("R2010")
    if crs is not None:
        doc.header["$INSUNITS"] = insunits(crs)
    msp = doc.modelspace()
    for name, gdf in layers.items():
        if name not in doc.layers:
            doc.layers.add(name)
        if gdf is None:
            continue
        for geom in gdf.geometry:
            _add(msp, geom, name, point_radius)
    out = Path(path)
    try:
        doc.saveas(out)
    except OSError as exc:
        raise OutputError(f"{out}: cannot write the DXF ({exc})") from exc
    return out


def _add(msp: Any, geom: Any, layer: str, radius: float | None) -> None:
    if geom is None or geom.is_empty:
        return
    t = geom.geom_type
    attribs = {"layer": layer}
    if t.startswith("Multi") or t == "GeometryCollection":
        for g in geom.geoms:
            _add(msp, g, layer, radius)
    elif t == "Point":
        if radius:
            msp.add_circle((geom.x, geom.y), radius, dxfattribs=attribs)
        else:
            msp.add_point((geom.x, geom.y), dxfattribs=attribs)
    elif t in ("LineString", "LinearRing"):
        msp.add_lwpolyline([tuple(c[:2]) for c in geom.coords], close=t == "LinearRing", dxfattribs=attribs)
    elif t == "Polygon":
        for ring in [geom.exterior, *geom.interiors]:
            msp.add_lwpolyline([tuple(c[:2]) for c in list(ring.coords)[:-1]], close=True, dxfattribs=attribs)
