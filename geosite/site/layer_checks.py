"""A site's layers validated together: one CRS (declared, else the boundary's; projected), each layer
moved into it, geometries checked against the layer's types (and repaired on request), ids, dates, flags
and numbers parsed; each problem appended to the loader's list (:mod:`geosite.site.loading` raises them
together).
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS
from pyproj.exceptions import ProjError
from shapely.geometry.base import BaseGeometry

from geosite.errors import (
    CRSError,
    Note,
    ReprojectionWarning,
)
from geosite.io.vector import LAYERS, LayerSpec
from geosite.site.site_toml import DATE_RANGE
from geosite.units import feet_per_crs_unit

#: Coordinates beyond this many CRS units from the origin are absurd for a projected CRS (1e9 ft is
#: 190,000 miles): a layer holding them is refused rather than measured.
MAX_ABS_COORDINATE = 1e9


def validate_layers(
    raw: dict[str, tuple[gpd.GeoDataFrame, str]],
    declared_crs: CRS | None,
    where: str,
    root: str,
    *,
    make_valid: bool,
    problems: list[str],
    notes: list[str],
) -> tuple[CRS | None, dict[str, gpd.GeoDataFrame]]:
    """The site CRS and every layer checked and moved into it; problems and notes are appended."""
    site_crs = _site_crs(raw, declared_crs, where, problems)
    layers: dict[str, gpd.GeoDataFrame] = {}
    if site_crs is not None:
        for lname, (gdf, src) in raw.items():
            checked = _check_layer(
                lname,
                gdf,
                src,
                site_crs,
                target_named=declared_crs is not None,
                make_valid=make_valid,
                problems=problems,
                notes=notes,
            )
            if checked is not None:
                layers[lname] = checked
    if "site_boundary" not in raw and not any("site_boundary" in p for p in problems):
        problems.append(f"{root}: no site_boundary layer; it is required (a polygon of the site)")
    _check_attributes(layers, raw, problems)
    return site_crs, layers


def _check_attributes(
    layers: dict[str, gpd.GeoDataFrame], raw: dict[str, tuple[gpd.GeoDataFrame, str]], problems: list[str]
) -> None:
    """The layers' dates, numbers and yes/no attributes parsed in place; problems are appended, each
    naming the layer's source in ``raw``.
    """
    for lname in ("disturbance", "bmps", "stockpiles"):
        if lname in layers:
            _parse_dates(layers[lname], lname, raw[lname][1], problems)
    for lname in NUMERIC_ATTRIBUTES:
        if lname in layers:
            _check_numbers(layers[lname], lname, raw[lname][1], problems)
    for lname in FLAG_ATTRIBUTES:
        if lname in layers:
            _check_flags(layers[lname], lname, raw[lname][1], problems)


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
                '(crs = "EPSG:7593" for Burnett County WISCRS, "EPSG:7613" for Ozaukee County)'
            )
            return None
    else:
        return None
    try:
        feet_per_crs_unit(crs, what)
    except CRSError as exc:
        problems.append(str(exc))
        return None
    ell = crs.ellipsoid
    axis = getattr(ell, "semi_major_metre", None)
    if ell is not None and axis is not None and not 6.3e6 < axis < 6.4e6:  # Mars, the Moon, a sphere of 1 m
        problems.append(
            f"{what}: CRS {crs.name!r} is not on the Earth (ellipsoid {ell.name!r}); "
            "use the site's projected CRS"
        )
        return None
    return crs


def _check_layer(
    lname: str,
    gdf: gpd.GeoDataFrame,
    src: str,
    site_crs: CRS,
    *,
    target_named: bool,
    make_valid: bool,
    problems: list[str],
    notes: list[str],
) -> gpd.GeoDataFrame | None:
    """The layer ``lname`` checked and moved into the site CRS; None when it has a problem (appended)."""
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

    gdf = _layer_to_site_crs(gdf, where, site_crs, target_named=target_named, problems=problems, notes=notes)
    if gdf is None:
        return None

    if not _check_geometries(gdf, ids, where, spec, make_valid=make_valid, problems=problems, notes=notes):
        return None
    if len(problems) > n0:
        return None
    return gdf


def _check_geometries(
    gdf: gpd.GeoDataFrame,
    ids: np.ndarray,
    where: str,
    spec: LayerSpec,
    *,
    make_valid: bool,
    problems: list[str],
    notes: list[Any],
) -> bool:
    """The layer's geometries checked: finite coordinates, none empty, of the layer's types, valid
    (repaired in place with ``make_valid``); problems and notes appended. False when the coordinates are
    absurd (the layer is not checked further).
    """
    geom = gdf.geometry.values
    empty = np.asarray(shapely.is_missing(geom) | shapely.is_empty(geom))
    with np.errstate(invalid="ignore"):
        bounds = np.abs(shapely.bounds(geom))
        absurd = ~empty & ~(np.isfinite(bounds).all(axis=1) & (bounds <= MAX_ABS_COORDINATE).all(axis=1))
    if absurd.any():
        problems.append(
            f"{where}: coordinates that are not finite or beyond {MAX_ABS_COORDINATE:g} CRS units "
            f"(ids {_idlist(ids[absurd])}); wrong CRS or a corrupt file"
        )
        return False
    if empty.any():
        problems.append(
            f"{where}: {int(empty.sum())} empty or missing geometr{'y' if empty.sum() == 1 else 'ies'} (ids "
            f"{_idlist(ids[empty])}); remove them"
        )
    names = np.array([g.geom_type if g is not None else "None" for g in geom])
    bad_type = ~empty & ~np.isin(names, spec.geometry)
    if bad_type.any():
        found = ", ".join(sorted(set(names[bad_type])))
        problems.append(
            f"{where}: wrong geometry type for {spec.name}: {found} (ids {_idlist(ids[bad_type])}); "
            f"expected {' or '.join(sorted(set(spec.geometry)))}"
        )
    invalid = ~empty & ~bad_type & ~np.asarray(shapely.is_valid(geom))
    if invalid.any():
        _invalid_polygons(
            gdf,
            invalid,
            ids,
            where,
            allowed=spec.geometry,
            make_valid=make_valid,
            problems=problems,
            notes=notes,
        )
    return True


def _layer_to_site_crs(
    gdf: gpd.GeoDataFrame,
    where: str,
    site_crs: CRS,
    *,
    target_named: bool,
    problems: list[str],
    notes: list[Any],
) -> gpd.GeoDataFrame | None:
    """The layer in the site CRS (a problem when it has none and site.toml names none, or is in degrees
    without it); None when it cannot be moved there.
    """
    if gdf.crs is None:
        if target_named:
            notes.append(
                f"{where}: no CRS in the file; taken to be in the site CRS named in site.toml "
                f"({site_crs.name})"
            )
            gdf = gdf.set_crs(site_crs)
        else:
            problems.append(f"{where}: no CRS; assign one, or name the site CRS in site.toml (crs = ...)")
    elif gdf.crs.is_geographic and not target_named:
        problems.append(
            f"{where}: geographic CRS ({gdf.crs.name}, degrees): reproject it to the site's projected CRS, "
            "or name the site CRS in site.toml (crs = ...) to have geosite reproject it"
        )
    elif not gdf.crs.equals(site_crs):
        notes.append(
            Note(
                f"{where}: reprojected from {gdf.crs.name} to the site CRS {site_crs.name}",
                ReprojectionWarning,
            )
        )
        try:
            gdf = gdf.to_crs(site_crs)
        except (ProjError, ValueError) as exc:  # another celestial body, no transformation
            problems.append(
                f"{where}: cannot be moved from its CRS {gdf.crs.name!r} to the site CRS {site_crs.name!r} "
                f"({str(exc).splitlines()[0][:200]}); give the layer in the site CRS"
            )
            return None
    return gdf


def _invalid_polygons(
    gdf: gpd.GeoDataFrame,
    invalid: np.ndarray,
    ids: np.ndarray,
    where: str,
    *,
    allowed: tuple[str, ...],
    make_valid: bool,
    problems: list[str],
    notes: list[Any],
) -> None:
    """The ``invalid`` polygons repaired in place (``make_valid``: keeping the parts of the ``allowed``
    geometry types), else a problem naming each.
    """
    geom = gdf.geometry.values
    if make_valid:
        repaired = shapely.make_valid(geom[invalid])
        keep = allowed
        fixed = [_extract(g, keep) for g in repaired]
        gdf.loc[invalid, gdf.geometry.name] = fixed
        notes.append(
            f"{where}: repaired {int(invalid.sum())} invalid "
            f"geometr{'y' if invalid.sum() == 1 else 'ies'} (ids {_idlist(ids[invalid])}) with "
            "--make-valid"
        )
    else:
        reasons = [
            f"{i}: {shapely.is_valid_reason(g)}" for i, g in zip(ids[invalid], geom[invalid], strict=True)
        ]
        problems.append(
            f"{where}: {int(invalid.sum())} invalid polygon{'s' if invalid.sum() != 1 else ''} "
            f"(ids {'; '.join(reasons)}); repair them or pass --make-valid"
        )


def _lower_columns(gdf: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Attribute names in lower case (shapefiles and CAD exports often say STATUS, Phase, DAYS), unless
    two would then collide.
    """
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


#: the attributes that hold dates, in any layer (docs/site_folder.md)
DATE_COLUMNS = ("start", "end", "stabilized", "install", "remove")


def given(v: Any) -> bool:
    """Whether a layer's value is given (not None, NaN or empty text)."""
    return not (
        v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and not v.strip())
    )


def text_value(v: Any) -> str | None:
    """One layer value as text, stripped (None when not given: :func:`given`)."""
    return str(v).strip() if given(v) else None


def date_value(v: Any) -> dt.date | None:
    """One layer value as a date: a date, a date-time, a Timestamp, or date text read by pandas as
    :func:`validate_layers` reads a date column; None for a missing value (None, NaN, NaT), a number or
    text that is not a date.

    Parameters
    ----------
    v : object
        The value.

    Returns
    -------
    datetime.date or None
        The day.
    """
    if v is None or v is pd.NaT or (isinstance(v, float) and not math.isfinite(v)):
        return None
    if isinstance(v, dt.datetime):
        return v.date()
    if isinstance(v, dt.date):
        return v
    if not isinstance(v, str):  # a number is no date (pandas would read it as nanoseconds since 1970)
        return None
    ts = pd.to_datetime(v.strip(), errors="coerce")
    return None if pd.isna(ts) else ts.date()


def _parse_dates(gdf: gpd.GeoDataFrame, lname: str, src: str, problems: list[str]) -> None:
    """``start`` / ``end`` / ``stabilized`` / ``install`` / ``remove`` as datetime.date or None (never NaT: a
    missing date is no date, and the measurements treat it as "active throughout"); not a date, or outside
    :data:`DATE_RANGE`: a problem.
    """
    for col in DATE_COLUMNS:
        if col not in gdf.columns:
            continue
        raw = gdf[col]
        if raw.dtype == object:
            raw = raw.map(lambda v: None if isinstance(v, float) and not math.isfinite(v) else v)
        parsed = pd.to_datetime(raw, errors="coerce")
        bad = gdf[col].notna() & parsed.isna()
        if bad.any():
            problems.append(
                f"{src} ({lname}): column {col!r} has values that are not dates (ids "
                f"{_idlist(gdf['id'][bad].to_numpy())}); use YYYY-MM-DD"
            )
        days = [None if pd.isna(d) else d.date() for d in parsed]
        out = [d if d is None or DATE_RANGE[0] <= d <= DATE_RANGE[1] else None for d in days]
        far = np.array([d is not None and o is None for d, o in zip(days, out, strict=True)], dtype=bool)
        if far.any():
            problems.append(
                f"{src} ({lname}): column {col!r} has dates outside "
                f"{DATE_RANGE[0].year}-{DATE_RANGE[1].year} "
                f"(ids {_idlist(gdf['id'][far].to_numpy())}); check the year"
            )
        gdf[col] = pd.Series(out, index=gdf.index, dtype=object)
    if "start" in gdf.columns and "end" in gdf.columns:
        both = gdf["start"].notna() & gdf["end"].notna()
        backwards = both & (gdf["end"].where(both) < gdf["start"].where(both))
        if backwards.any():
            problems.append(
                f"{src} ({lname}): end before start (ids {_idlist(gdf['id'][backwards].to_numpy())})"
            )


#: Attributes that hold numbers, by layer: (column, least value allowed).
NUMERIC_ATTRIBUTES = {
    "stockpiles": (("days", 0.0), ("volume_cy", 0.0), ("height_ft", 0.0)),
    "access_drives": (("pad_length_ft", 0.0), ("width_ft", 0.0)),
    "contours": (("elevation", -1e5), ("elevation_ft", -1e5)),
}


#: Attributes that hold yes/no, by layer (``underground`` decides A(6)'s pipe length, ``public`` a road's
# kind).
FLAG_ATTRIBUTES = {"utilities": ("underground",), "roads": ("public",)}
#: How yes and no are written in shapefiles, GeoPackages and CAD exports.
FLAG_SPELLINGS = {
    "true": True,
    "false": False,
    "yes": True,
    "no": False,
    "y": True,
    "n": False,
    "1": True,
    "0": False,
    "t": True,
    "f": False,
}


def _check_flags(gdf: gpd.GeoDataFrame, lname: str, src: str, problems: list[str]) -> None:
    """The layer's yes/no attributes as True, False or None (missing): the text "no" is False, never
    the true that ``bool("no")`` would give; anything else that is not a yes or a no is a problem naming
    the ids.
    """

    def flag(v: Any) -> Any:
        """One value as True, False, None (missing) or ``"?"`` (neither a yes nor a no)."""
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        if isinstance(v, bool | np.bool_):
            return bool(v)
        if isinstance(v, int | np.integer | float) and v in (0, 1):
            return bool(v)
        return FLAG_SPELLINGS.get(str(v).strip().lower(), "?")

    for col in FLAG_ATTRIBUTES.get(lname, ()):
        if col not in gdf.columns:
            continue
        values = [flag(v) for v in gdf[col]]
        bad = np.array([v == "?" for v in values], dtype=bool)
        if bad.any():
            problems.append(
                f"{src} ({lname}): column {col!r} must hold yes or no (true/false, yes/no, 1/0) "
                f"(ids {_idlist(gdf['id'][bad].to_numpy())}: "
                f"{', '.join(map(repr, gdf[col][bad].tolist()[:5]))})"
            )
        gdf[col] = pd.Series([None if v == "?" else v for v in values], index=gdf.index, dtype=object)


def _check_numbers(gdf: gpd.GeoDataFrame, lname: str, src: str, problems: list[str]) -> None:
    """The layer's numeric attributes as floats, NaN where missing; text that is not a number, an
    infinity or a value below the least allowed is a problem naming the ids (never a 0 or inf that
    decides a rule).
    """
    for col, least in NUMERIC_ATTRIBUTES.get(lname, ()):
        if col not in gdf.columns:
            continue
        values = pd.to_numeric(
            gdf[col].map(lambda v: v if not isinstance(v, bool) else float("nan")), errors="coerce"
        )
        values = values.astype("float64")
        text = (
            gdf[col].notna() & values.isna() & ~gdf[col].map(lambda v: isinstance(v, float) and math.isnan(v))
        )
        bad = text | np.isinf(values) | (values < least)
        if bad.any():
            problems.append(
                f"{src} ({lname}): column {col!r} must hold finite numbers of at least {least:g} "
                f"(ids {_idlist(gdf['id'][bad].to_numpy())}: "
                f"{', '.join(map(repr, gdf[col][bad].tolist()[:5]))})"
            )
        gdf[col] = values
