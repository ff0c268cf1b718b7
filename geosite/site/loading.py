"""Loading a site: ``load_site`` reads a site folder (``site.toml`` + layers + DEM; see
docs/site_folder.md) and validates the whole of it at once: every problem found (missing layers, unreadable files, invalid or empty
geometries, wrong geometry types, missing or geographic CRSs, units) is collected and raised together
in one :class:`~geosite.errors.SiteValidationError`, each naming the file and the layer. Allowed but
suspicious things (a reprojected layer, a DEM short of the map margin) become warnings, kept on
``Site.notes`` too; ``strict=True`` turns them into errors.

``site_from_frames`` builds the same Site from GeoDataFrames, for notebooks.

Validation, in the same pass: one site CRS (declared, else the boundary's; projected), every layer moved
into it, geometries checked against the layer's expected types and repaired on request, ids and dates
parsed. Problems are appended to one list, so every problem is reported at once.
"""

from __future__ import annotations

import datetime as dt
import tomllib
import warnings
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS
from shapely.geometry.base import BaseGeometry

from geosite.errors import (
    CoverageWarning,
    CRSError,
    GeositeWarning,
    InputError,
    MissingInputError,
    ReprojectionWarning,
    SiteValidationError,
    UnreadableInputError,
)
from geosite.grid import bounds_in
from geosite.io.vector import LAYERS, LayerSpec, list_layers, read_layer
from geosite.site.model import PLAT_VALUES, Contact, Project, Site
from geosite.units import feet_per_crs_unit, parse_vertical_unit

VECTOR_SUFFIXES = (".gpkg", ".shp", ".geojson", ".json", ".dxf", ".fgb", ".kml", ".gml")


def load_site(
    folder: str | Path,
    *,
    jurisdiction: str | None = None,
    dem: str | Path | None = None,
    dem_vertical_unit: str | None = None,
    make_valid: bool = False,
    strict: bool = False,
) -> Site:
    """Load and validate a site folder; every problem is reported at once.

    Parameters
    ----------
    folder : the site folder holding ``site.toml``.
    jurisdiction : overrides site.toml's ``jurisdiction`` (a profile name).
    dem, dem_vertical_unit : override the DEM path and its vertical unit (``us_ft``, ``ft`` or ``m``).
    make_valid : repair invalid polygons (shapely.make_valid) instead of rejecting them.
    strict : turn geosite warnings into errors.
    """
    from geosite.rules import load_profile

    root = Path(folder)
    toml_path = root / "site.toml"
    if not root.is_dir():
        raise MissingInputError(f"{root}: site folder not found")
    if not toml_path.is_file():
        raise MissingInputError(f"{toml_path}: missing; every site folder needs a site.toml (see docs/site_folder.md)")
    try:
        conf = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UnreadableInputError(f"{toml_path}: not valid TOML ({exc})") from exc

    problems: list[str] = []
    notes: list[str] = []
    name = str(conf.get("name") or root.name)
    juris = jurisdiction or conf.get("jurisdiction")
    if not juris:
        problems.append(f"{toml_path}: 'jurisdiction' is not set (a profile name such as grantsburg or belgium)")
    else:
        try:
            juris = load_profile(juris).id
        except InputError as exc:
            problems.append(f"{toml_path}: {exc}")

    declared_crs = None
    if conf.get("crs"):
        try:
            declared_crs = CRS.from_user_input(conf["crs"])
        except Exception as exc:  # pyproj.exceptions.CRSError
            problems.append(f"{toml_path}: crs {conf['crs']!r} is not a CRS pyproj knows ({exc})")

    project = _project(conf.get("project", {}), toml_path, problems)
    applicant = _contact(conf.get("applicant"))
    maintainer = _contact(conf.get("maintainer"))

    # DEM
    dem_conf = conf.get("dem", {}) or {}
    dem_path = Path(dem) if dem else (root / dem_conf["path"] if dem_conf.get("path") else None)
    vu = None
    if dem_path is not None:
        try:
            vu = parse_vertical_unit(dem_vertical_unit or dem_conf.get("vertical_unit"), where=f"DEM {dem_path}")
        except InputError as exc:
            problems.append(str(exc))
        if not dem_path.is_file():
            problems.append(f"DEM {dem_path}: file not found")
            dem_path = None
    else:
        notes.append("no DEM given ([dem] path in site.toml or --dem): slopes, contours and drainage are not assessed")
    proposed = root / dem_conf["proposed"] if dem_conf.get("proposed") else None
    if proposed is not None:
        if dem_path is None:
            problems.append(f"{toml_path}: [dem] proposed is given without the existing-grade DEM ([dem] path)")
        if not proposed.is_file():
            problems.append(f"proposed-grade DEM {proposed}: file not found")
            proposed = None

    # layers
    raw = read_layers(root, conf.get("layers", {}) or {}, problems, notes)
    site_crs, layers = validate_layers(raw, declared_crs, str(toml_path), str(root), make_valid, problems, notes)
    if problems:
        raise SiteValidationError(problems, site=str(root))

    for lname, spec in LAYERS.items():
        if lname not in layers and not spec.required:
            notes.append(f"layer {lname!r} ({spec.description}) not present in the submitted data")

    site = Site(
        name=name,
        jurisdiction=juris,
        crs=site_crs,
        layers=layers,
        root=root,
        dem_path=dem_path,
        dem_vertical_unit=vu,
        proposed_dem_path=proposed,
        applicant=applicant,
        maintainer=maintainer,
        project=project,
        notes=notes,
        settings={k: v for k, v in conf.items() if k in ("map_margin_ft",)},
    )
    if dem_path is not None:
        _check_dem_coverage(site, notes)
    _emit(notes, strict)
    return site


def site_from_frames(
    layers: dict[str, gpd.GeoDataFrame],
    *,
    name: str,
    jurisdiction: str,
    crs: Any = None,
    dem: Any = None,
    dem_vertical_unit: str | None = None,
    project: Project | None = None,
    applicant: Contact | None = None,
    maintainer: Contact | None = None,
    make_valid: bool = False,
) -> Site:
    """Build a validated Site from GeoDataFrames (keyed by geosite layer name) and a DEM path or
    :class:`~geosite.grid.Dem`."""
    from geosite.grid import Dem
    from geosite.rules import load_profile

    problems: list[str] = []
    notes: list[str] = []
    declared = CRS.from_user_input(crs) if crs is not None else None
    raw = {}
    for lname, gdf in layers.items():
        if lname not in LAYERS:
            notes.append(f"layer {lname!r} is not a geosite layer; ignored (known: {', '.join(LAYERS)})")
            continue
        raw[lname] = (gdf, f"<GeoDataFrame {lname}>")
    site_crs, checked = validate_layers(raw, declared, "<frames>", "<frames>", make_valid, problems, notes)
    if problems:
        raise SiteValidationError(problems, site=name)
    dem_path, dem_obj, vu = None, None, None
    if isinstance(dem, Dem):
        dem_obj = dem
    elif dem is not None:
        dem_path = Path(dem)
        vu = parse_vertical_unit(dem_vertical_unit, where=f"DEM {dem_path}")
    site = Site(
        name=name,
        jurisdiction=load_profile(jurisdiction).id,
        crs=site_crs,
        layers=checked,
        dem_path=dem_path,
        dem_vertical_unit=vu,
        dem_array=dem_obj,
        project=project or Project(),
        applicant=applicant or Contact(),
        maintainer=maintainer or Contact(),
        notes=notes,
    )
    _emit(notes, strict=False)
    return site


def _contact(d: Any) -> Contact:
    d = d or {}
    return Contact(name=d.get("name"), address=d.get("address"), phone=d.get("phone"))


def _project(d: dict[str, Any], where: Path, problems: list[str]) -> Project:
    def number(key: str) -> float | None:
        v = d.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            problems.append(f"{where}: [project] {key} must be a non-negative number of cubic yards, got {v!r}")
            return None
        return float(v)

    def date(key: str) -> dt.date | None:
        v = d.get(key)
        if v is None or isinstance(v, dt.date):
            return v
        try:
            return dt.date.fromisoformat(str(v))
        except ValueError:
            problems.append(f"{where}: [project] {key} = {v!r} is not a date (YYYY-MM-DD)")
            return None

    def flag(key: str, default: bool | None) -> bool | None:
        v = d.get(key, default)
        if v is not None and not isinstance(v, bool):
            problems.append(f"{where}: [project] {key} = {v!r}; use true or false (no quotes)")
            return default
        return v

    plat = str(d.get("plat", "none")).strip().lower()
    if plat not in PLAT_VALUES:
        problems.append(f"{where}: [project] plat = {plat!r}; use one of {', '.join(PLAT_VALUES)}")
    start, end = date("start"), date("end")
    if start and end and end < start:
        problems.append(f"{where}: [project] end {end} is before start {start}")
    bpd = d.get("building_permit_days")
    if bpd is not None and (isinstance(bpd, bool) or not isinstance(bpd, int) or bpd < 0):
        problems.append(f"{where}: [project] building_permit_days = {bpd!r}; use a whole number of days")
        bpd = None
    return Project(
        start=start,
        end=end,
        cut_cy=number("cut_cy"),
        fill_cy=number("fill_cy"),
        plat=plat,
        dewatering=flag("dewatering", None),
        state_funded=bool(flag("state_funded", False)),
        building_permit_days=int(bpd) if bpd is not None else None,
        authority_superseded=bool(flag("authority_superseded", False)),
        landscaping_only=bool(flag("landscaping_only", False)),
    )


def read_layers(
    root: Path, conf: dict[str, Any], problems: list[str], notes: list[str]
) -> dict[str, tuple[gpd.GeoDataFrame, str]]:
    """Read every layer the site's [layers] table points at. Returns name -> (frame, source label)."""
    names_map = conf.get("names", {}) or {}
    out: dict[str, tuple[gpd.GeoDataFrame, str]] = {}
    sources: dict[str, str] = {}
    bundle = conf.get("path")
    if bundle is None and not any(k in LAYERS for k in conf):
        # no [layers] table: a layers.gpkg, else one file per layer named after it
        if (root / "layers.gpkg").exists():
            bundle = "layers.gpkg"
        else:
            for lname in LAYERS:
                for suffix in VECTOR_SUFFIXES:
                    if (root / f"{lname}{suffix}").exists():
                        sources[lname] = f"{lname}{suffix}"
                        break
    if bundle is not None:
        bpath = root / bundle
        try:
            available = list_layers(bpath)
        except InputError as exc:
            problems.append(str(exc))
            available = []
        for lname in LAYERS:
            file_layer = names_map.get(lname, lname)
            if file_layer in available:
                sources[lname] = f"{bundle}:{file_layer}"
        known = {names_map.get(n, n) for n in LAYERS}
        extra = [a for a in available if a not in known]
        if extra:
            notes.append(f"{bpath}: layers {', '.join(map(repr, extra))} are not geosite layers; ignored")
    for key, value in conf.items():
        if key in ("path", "names"):
            continue
        if key not in LAYERS:
            problems.append(f"{root / 'site.toml'}: [layers] {key!r} is not a geosite layer (known: {', '.join(LAYERS)})")
            continue
        sources[key] = str(value)
    for lname, src in sources.items():
        path_text, _, sub = src.partition(":") if not _is_windows_drive(src) else (src, "", "")
        path = root / path_text
        is_dxf = path.suffix.lower() == ".dxf"
        try:
            if is_dxf:
                gdf = read_layer(path, cad_layer=sub or None)
            else:
                gdf = read_layer(path, layer=sub or None)
        except InputError as exc:
            problems.append(f"layer {lname!r}: {exc}")
            continue
        label = f"{path}" + (f", layer {sub!r}" if sub else "")
        out[lname] = (gdf, label)
    return out


def _is_windows_drive(text: str) -> bool:
    return len(text) > 2 and text[1] == ":" and text[0].isalpha() and text[2] in "\\/"


def _check_dem_coverage(site: Site, notes: list[str]) -> None:
    """Warn, naming the shortfall in feet on each side, when the DEM does not cover the site + margin."""
    import rasterio

    margin = float(site.settings.get("map_margin_ft", 200.0))
    try:
        with rasterio.open(site.dem_path) as src:
            if src.crs is None:
                raise CRSError(f"DEM {site.dem_path}: has no CRS; assign one before use")
            dem_crs = CRS.from_user_input(src.crs)
            dl, db, dr, dt_ = src.bounds
    except rasterio.errors.RasterioIOError as exc:
        raise SiteValidationError([f"DEM {site.dem_path}: cannot be read as a raster ({exc})"], str(site.root)) from exc
    except CRSError as exc:
        raise SiteValidationError([str(exc)], str(site.root)) from exc
    fpu_dem = feet_per_crs_unit(dem_crs, f"DEM {site.dem_path}")
    need = bounds_in(site.boundary.bounds, margin / site.ft_per_unit, site.crs, dem_crs)
    site_only = bounds_in(site.boundary.bounds, 0.0, site.crs, dem_crs)
    short = {
        "west": (dl - need[0]) * fpu_dem,
        "south": (db - need[1]) * fpu_dem,
        "east": (need[2] - dr) * fpu_dem,
        "north": (need[3] - dt_) * fpu_dem,
    }
    gaps = {k: v for k, v in short.items() if v > 0.5 * abs(src.res[0]) * fpu_dem}
    if gaps:
        covers_site = dl <= site_only[0] and db <= site_only[1] and dr >= site_only[2] and dt_ >= site_only[3]
        sides = ", ".join(f"{v:,.0f} ft short on the {k}" for k, v in gaps.items())
        what = "the site plus" if covers_site else "even the site itself, let alone"
        notes.append(
            f"DEM {site.dem_path}: does not cover {what} {margin:.0f} ft around it: {sides}; "
            "slopes, contours and drainage near those edges are incomplete"
        )


def _emit(notes: list[str], strict: bool) -> None:
    problems = []
    for note in notes:
        cls: type[GeositeWarning]
        if note.startswith("DEM") and "does not cover" in note:
            cls = CoverageWarning
        elif "reprojected" in note:
            cls = ReprojectionWarning
        elif "not present" in note or note.startswith("no DEM"):
            continue  # routine: listed in the report, neither a warning nor (strict) an error
        else:
            cls = GeositeWarning
        if strict:
            problems.append(note)
        else:
            warnings.warn(note, cls, stacklevel=3)
    if problems:
        raise SiteValidationError(problems)


# --------------------------------------------------------------------------------------------- validation


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
