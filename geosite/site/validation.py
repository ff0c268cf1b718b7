"""Validation of a site's layers: one site CRS (declared, else the boundary's; projected), every layer
moved into it, geometries checked against the layer's expected types and repaired on request, ids and
dates parsed. Problems are appended to a list, so :func:`geosite.site.load_site` reports all at once."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS
from shapely.geometry.base import BaseGeometry

from geosite.errors import CRSError
from geosite.io.vector import LAYERS, LayerSpec
from geosite.units import feet_per_crs_unit


def validate_layers(
    raw: dict[str, tuple[gpd.GeoDataFrame, str]],
    declared_crs: CRS | None,
    where: str,
    root: str,
    make_valid: bool,
    problems: list[str],
    notes: list[str],
) -> tuple[CRS | None, dict[str, gpd.GeoDataFrame]]:
    """The site CRS and every layer checked and moved into it; problems and notes are appended."""
    site_crs = _site_crs(raw, declared_crs, where, problems)
    layers: dict[str, gpd.GeoDataFrame] = {}
    if site_crs is not None:
        for lname, (gdf, src) in raw.items():
            checked = _check_layer(lname, gdf, src, site_crs, declared_crs is not None, make_valid, problems, notes)
            if checked is not None:
                layers[lname] = checked
    if "site_boundary" not in raw and not any("site_boundary" in p for p in problems):
        problems.append(f"{root}: no site_boundary layer; it is required (a polygon of the site)")
    if "disturbance" in layers:
        _parse_dates(layers["disturbance"], "disturbance", raw["disturbance"][1], problems)
    return site_crs, layers


def _site_crs(raw, declared: CRS | None, where, problems: list[str]) -> CRS | None:
    """The site CRS: the declared one, else the site boundary's; it must be projected."""
    if declared is not None:
        crs, what = declared, f"{where}: crs"
    elif "site_boundary" in raw:
        gdf, src = raw["site_boundary"]
        crs, what = gdf.crs, f"{src} (site_boundary)"
        if crs is None:
            problems.append(
                f"{src} (site_boundary): no CRS; assign one to the file, or name the site CRS in site.toml "
                "(crs = \"EPSG:7593\" for Burnett County WISCRS, \"EPSG:7613\" for Ozaukee County)"
            )
            return None
    else:
        return None
    try:
        feet_per_crs_unit(crs, what)
    except CRSError as exc:
        problems.append(str(exc))
        return None
    return crs


def _check_layer(
    lname: str,
    gdf: gpd.GeoDataFrame,
    src: str,
    site_crs: CRS,
    target_named: bool,
    make_valid: bool,
    problems: list[str],
    notes: list[str],
) -> gpd.GeoDataFrame | None:
    spec: LayerSpec = LAYERS[lname]
    where = f"{src} ({lname})" if lname not in src else src
    n0 = len(problems)
    gdf = _lower_columns(gdf.copy())
    ids = _ids(gdf)
    gdf["id"] = ids
    if len(gdf) == 0:
        if spec.required:
            problems.append(f"{where}: has no features; the {lname} layer is required")
        else:
            notes.append(f"{where}: has no features")
        return gdf.set_crs(site_crs, allow_override=True) if gdf.crs is None else gdf.to_crs(site_crs)

    # CRS
    if gdf.crs is None:
        if target_named:
            notes.append(f"{where}: no CRS in the file; taken to be in the site CRS named in site.toml ({site_crs.name})")
            gdf = gdf.set_crs(site_crs)
        else:
            problems.append(f"{where}: no CRS; assign one, or name the site CRS in site.toml (crs = ...)")
    elif gdf.crs.is_geographic and not target_named:
        problems.append(
            f"{where}: geographic CRS ({gdf.crs.name}, degrees): reproject it to the site's projected CRS, "
            "or name the site CRS in site.toml (crs = ...) to have geosite reproject it"
        )
    elif not gdf.crs.equals(site_crs):
        notes.append(f"{where}: reprojected from {gdf.crs.name} to the site CRS {site_crs.name}")
        gdf = gdf.to_crs(site_crs)

    # geometry
    geom = gdf.geometry.values
    empty = np.asarray(shapely.is_missing(geom) | shapely.is_empty(geom))
    if empty.any():
        problems.append(f"{where}: {int(empty.sum())} empty or missing geometr{'y' if empty.sum() == 1 else 'ies'} (ids {_idlist(ids[empty])}); remove them")
    names = np.array([g.geom_type if g is not None else "None" for g in geom])
    bad_type = ~empty & ~np.isin(names, spec.geometry)
    if bad_type.any():
        found = ", ".join(sorted(set(names[bad_type])))
        problems.append(
            f"{where}: wrong geometry type for {lname}: {found} (ids {_idlist(ids[bad_type])}); "
            f"expected {' or '.join(sorted(set(spec.geometry)))}"
        )
    ok = ~empty & ~bad_type
    valid = np.asarray(shapely.is_valid(geom))
    invalid = ok & ~valid
    if invalid.any():
        if make_valid:
            repaired = shapely.make_valid(geom[invalid])
            keep = spec.geometry
            fixed = [_extract(g, keep) for g in repaired]
            gdf.loc[invalid, gdf.geometry.name] = fixed
            notes.append(f"{where}: repaired {int(invalid.sum())} invalid geometr{'y' if invalid.sum() == 1 else 'ies'} (ids {_idlist(ids[invalid])}) with --make-valid")
        else:
            reasons = [f"{i}: {shapely.is_valid_reason(g)}" for i, g in zip(ids[invalid], geom[invalid], strict=True)]
            problems.append(
                f"{where}: {int(invalid.sum())} invalid polygon{'s' if invalid.sum() != 1 else ''} "
                f"(ids {'; '.join(reasons)}); repair them or pass --make-valid"
            )
    if len(problems) > n0:
        return None
    return gdf


def _lower_columns(gdf: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Attribute names in lower case (shapefiles and CAD exports often say STATUS, Phase, DAYS), unless
    two would then collide."""
    geom = gdf.geometry.name
    names = {c: c.lower() for c in gdf.columns if c != geom and isinstance(c, str)}
    if len(set(names.values())) == len(names) and geom.lower() not in set(names.values()) - {geom}:
        gdf = gdf.rename(columns=names)
    return gdf


def _extract(geom: BaseGeometry, allowed: tuple[str, ...]) -> BaseGeometry:
    """From a make_valid result (maybe a GeometryCollection), keep the parts of the allowed types."""
    if geom.geom_type in allowed:
        return geom
    parts = [p for p in getattr(geom, "geoms", [geom]) if p.geom_type in allowed]
    return shapely.union_all(parts) if parts else geom


def _ids(gdf: gpd.GeoDataFrame) -> np.ndarray:
    if "id" in gdf.columns and gdf["id"].notna().all() and gdf["id"].is_unique:
        return gdf["id"].to_numpy()
    return np.arange(1, len(gdf) + 1)


def _idlist(ids: np.ndarray, most: int = 12) -> str:
    items = [str(i) for i in ids[:most]]
    return ", ".join(items) + (f" and {len(ids) - most} more" if len(ids) > most else "")


def _parse_dates(gdf: gpd.GeoDataFrame, lname: str, src: str, problems: list[str]) -> None:
    for col in ("start", "end"):
        if col not in gdf.columns:
            continue
        parsed = pd.to_datetime(gdf[col], errors="coerce")
        bad = gdf[col].notna() & parsed.isna()
        if bad.any():
            problems.append(f"{src} ({lname}): column {col!r} has values that are not dates (ids {_idlist(gdf['id'][bad].to_numpy())}); use YYYY-MM-DD")
        gdf[col] = parsed.dt.date.where(parsed.notna(), None)
    if "start" in gdf.columns and "end" in gdf.columns:
        both = gdf["start"].notna() & gdf["end"].notna()
        backwards = both & (gdf["end"].where(both) < gdf["start"].where(both))
        if backwards.any():
            problems.append(f"{src} ({lname}): end before start (ids {_idlist(gdf['id'][backwards].to_numpy())})")
