"""Loading a site: ``load_site`` reads a site folder (``site.toml`` + layers + DEM; see
docs/site_folder.md) and validates the whole of it at once: every problem found (missing layers, unreadable
files, invalid or empty
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
import math
import tomllib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS
from pyproj.exceptions import ProjError
from shapely.geometry.base import BaseGeometry

from geosite.errors import (
    CoverageWarning,
    CRSError,
    GeositeWarning,
    ImplausibleInputWarning,
    InputError,
    MissingInputError,
    Note,
    ReprojectionWarning,
    SiteValidationError,
    UnreadableInputError,
    UnsafeInputError,
)
from geosite.grid import bounds_in
from geosite.io.limits import Limits
from geosite.io.raster import open_raster
from geosite.io.untrusted import inside, raster_format, refuse_remote, regular_file
from geosite.io.vector import LAYERS, LayerSpec, list_layers, read_layer
from geosite.site.model import PLAT_VALUES, Contact, Project, Site
from geosite.units import feet_per_crs_unit, parse_vertical_unit

VECTOR_SUFFIXES = (".gpkg", ".shp", ".geojson", ".json", ".dxf", ".fgb", ".kml", ".gml")
#: Dates geosite accepts in site.toml and layers (a permit, its deadlines and inspections stay countable).
DATE_RANGE = (dt.date(1900, 1, 1), dt.date(2200, 12, 31))
#: The most cut or fill a site may declare, cubic yards (a large quarry moves ~10 M cu yd a year).
MAX_CUBIC_YARDS = 1e9
#: Coordinates beyond this many CRS units from the origin are absurd for a projected CRS (1e9 ft is
#: 190,000 miles): a layer holding them is refused rather than measured.
MAX_ABS_COORDINATE = 1e9


def load_site(
    folder: str | Path,
    *,
    jurisdiction: str | None = None,
    dem: str | Path | None = None,
    dem_vertical_unit: str | None = None,
    make_valid: bool = False,
    strict: bool = False,
    allow_outside: bool = False,
    installed_profile_only: bool = False,
    limits: Limits | None = None,
) -> Site:
    """Load and validate a site folder; every problem is reported at once.

    Parameters
    ----------
    folder : str or Path
        The site folder holding ``site.toml``.
    jurisdiction : str, optional
        Overrides site.toml's ``jurisdiction`` (a profile name, or the path of a profile file: the
        caller's own choice).
    dem : str or Path, optional
        Overrides site.toml's DEM path; the caller's file, which may lie anywhere.
    dem_vertical_unit : str, optional
        Overrides the DEM's vertical unit (``us_ft``, ``ft`` or ``m``).
    make_valid : bool, default False
        Repair invalid polygons (shapely.make_valid) instead of rejecting them.
    strict : bool, default False
        Turn geosite warnings into errors.
    allow_outside : bool, default False
        Let site.toml name files outside the folder (a consultant's own folder; never a submission).
        Remote and GDAL virtual paths are refused either way.
    installed_profile_only : bool, default False
        Site.toml's ``jurisdiction`` may only name an installed profile, not a profile file
        (``geosite check``: the rulebook is the inspector's).
    limits : Limits, optional
        Resource limits (:class:`~geosite.io.limits.Limits`; defaults sized to this machine).

    Returns
    -------
    Site
        The validated site, its layers in the site CRS.
    """
    limits = limits or Limits()
    root = Path(folder)
    if not root.is_dir():
        raise MissingInputError(f"{root}: site folder not found")
    conf, toml_path = read_site_toml(root, limits)

    problems: list[str] = []
    notes: list[str] = []
    header = _site_header(
        conf, root, jurisdiction, installed_profile_only=installed_profile_only, problems=problems
    )
    # DEM: the caller's --dem may lie anywhere; site.toml's paths stay in the folder
    dem_inputs = _dem_paths(
        root,
        _table(conf, "dem", toml_path, problems),
        dem,
        dem_vertical_unit,
        allow_outside=allow_outside,
        toml_path=toml_path,
        problems=problems,
        notes=notes,
    )
    site_crs, layers = _site_layers(
        root,
        _table(conf, "layers", toml_path, problems),
        header.declared_crs,
        reading=_LayerReading(root, problems, notes, allow_outside, limits),
        make_valid=make_valid,
    )
    if problems:
        raise SiteValidationError(problems, site=str(root))
    assert site_crs is not None  # no problems: it was found

    notes += _absent_layer_notes(layers)
    site = _site_of(
        header,
        dem_inputs,
        site_crs,
        layers,
        root=root,
        notes=notes,
        limits=limits,
        allow_outside=allow_outside,
    )
    if dem_inputs.path is not None:
        _check_dem_coverage(site, notes)
    _check_plausible(site, header.profile, notes)
    _emit(notes, strict)
    return site


def _site_of(
    header: _SiteHeader,
    dem_inputs: _DemInputs,
    site_crs: CRS,
    layers: dict[str, gpd.GeoDataFrame],
    *,
    root: Path,
    notes: list[str],
    limits: Limits,
    allow_outside: bool,
) -> Site:
    """The Site a folder describes, from its validated parts (its jurisdiction found)."""
    assert isinstance(header.jurisdiction, str)
    return Site(
        name=header.name,
        jurisdiction=header.jurisdiction,
        profile=header.profile,
        crs=site_crs,
        layers=layers,
        root=root,
        dem_path=dem_inputs.path,
        dem_vertical_unit=dem_inputs.vertical_unit,
        proposed_dem_path=dem_inputs.proposed,
        applicant=header.applicant,
        maintainer=header.maintainer,
        project=header.project,
        notes=notes,
        settings=header.settings,
        limits=limits,
        inputs_root=None if allow_outside else root,
        dem_root=dem_inputs.root,
    )


def _site_layers(
    root: Path,
    layers_conf: dict[str, Any],
    declared_crs: CRS | None,
    *,
    reading: _LayerReading,
    make_valid: bool,
) -> tuple[CRS | None, dict[str, gpd.GeoDataFrame]]:
    """The site CRS and the layers site.toml's [layers] table names, read from the folder as ``reading``
    allows, checked and moved into the site CRS; problems and notes are appended to ``reading``'s.
    """
    raw = read_layers(
        root,
        layers_conf,
        reading.problems,
        reading.notes,
        allow_outside=reading.allow_outside,
        limits=reading.limits,
    )
    return validate_layers(
        raw,
        declared_crs,
        str(root / "site.toml"),
        str(root),
        make_valid=make_valid,
        problems=reading.problems,
        notes=reading.notes,
    )


@dataclass(frozen=True)
class _SiteHeader:
    """What site.toml says of the site besides its layers and DEM (each part None or empty with a
    problem when it could not be read).
    """

    name: str
    jurisdiction: str | None
    profile: Any
    declared_crs: CRS | None
    project: Project
    applicant: Contact
    maintainer: Contact
    settings: dict[str, Any]


def _site_header(
    conf: dict[str, Any],
    root: Path,
    jurisdiction: str | None,
    *,
    installed_profile_only: bool,
    problems: list[str],
) -> _SiteHeader:
    """The site's name, jurisdiction, CRS, project, contacts and settings from site.toml (``jurisdiction``
    overriding its own); problems are appended.
    """
    toml_path = root / "site.toml"
    name = _text(conf, "name", toml_path, problems) or root.name
    juris, profile = _jurisdiction(
        conf, jurisdiction, toml_path, problems, installed_profile_only=installed_profile_only
    )
    declared_crs = _declared_crs(conf, toml_path, problems)
    project = _project(_table(conf, "project", toml_path, problems), toml_path, problems)
    applicant = _contact(_table(conf, "applicant", toml_path, problems), "applicant", toml_path, problems)
    maintainer = _contact(_table(conf, "maintainer", toml_path, problems), "maintainer", toml_path, problems)
    settings = _settings(conf, toml_path, problems)
    return _SiteHeader(
        name=name,
        jurisdiction=juris,
        profile=profile,
        declared_crs=declared_crs,
        project=project,
        applicant=applicant,
        maintainer=maintainer,
        settings=settings,
    )


def _absent_layer_notes(layers: dict[str, gpd.GeoDataFrame]) -> list[Any]:
    """A note for each optional layer the site does not have."""
    return [
        Note(f"layer {lname!r} ({spec.description}) not present in the submitted data", None)
        for lname, spec in LAYERS.items()
        if lname not in layers and not spec.required
    ]


def _jurisdiction(
    conf: dict[str, Any],
    jurisdiction: str | None,
    toml_path: Path,
    problems: list[str],
    *,
    installed_profile_only: bool,
) -> tuple[str | None, Any]:
    """The jurisdiction (the profile's id) and its profile; (None or the text given, None) with a problem."""
    from geosite.rules import load_profile

    profile = None
    juris = jurisdiction or conf.get("jurisdiction")
    if not juris:
        problems.append(
            f"{toml_path}: 'jurisdiction' is not set (a profile name such as grantsburg or belgium)"
        )
    elif not isinstance(juris, str):
        problems.append(
            f"{toml_path}: 'jurisdiction' = {juris!r}; use a profile name such as grantsburg or belgium"
        )
        juris = None
    else:
        try:
            installed = jurisdiction is None and (installed_profile_only or not juris.endswith(".toml"))
            profile = load_profile(juris, installed_only=installed)
            juris = profile.id
        except InputError as exc:
            problems.append(f"{toml_path}: {exc}")

    return juris, profile


def _declared_crs(conf: dict[str, Any], toml_path: Path, problems: list[str]) -> CRS | None:
    """site.toml's ``crs`` (None when absent, or with a problem when pyproj does not know it)."""
    declared_crs = None
    if conf.get("crs"):
        try:
            if not isinstance(conf["crs"], str | int) or isinstance(conf["crs"], bool):
                raise TypeError('use a text such as "EPSG:7593"')
            declared_crs = CRS.from_user_input(conf["crs"])
        except Exception as exc:  # pyproj.exceptions.CRSError
            problems.append(f"{toml_path}: crs {conf['crs']!r} is not a CRS pyproj knows ({exc})")

    return declared_crs


class _DemInputs(NamedTuple):
    """The DEM files a site names: the existing-grade DEM, the folder it must stay in (None: anywhere),
    its vertical unit, and the proposed-grade DEM.
    """

    path: Path | None
    root: Path | None
    vertical_unit: Any
    proposed: Path | None


def _dem_paths(
    root: Path,
    dem_conf: dict[str, Any],
    dem: str | Path | None,
    dem_vertical_unit: str | None,
    *,
    allow_outside: bool,
    toml_path: Path,
    problems: list[str],
    notes: list[Any],
) -> _DemInputs:
    """The DEM (the caller's ``dem``, else site.toml's [dem] path), the folder it must stay in, its
    vertical unit, and the proposed-grade DEM.
    """
    vu = None
    if dem:
        dem_path, dem_root = _raster_path(Path(dem), "DEM", None, problems)
    else:
        dem_path, dem_root = _site_dem(
            root, dem_conf, allow_outside=allow_outside, where=toml_path, problems=problems
        )
    if dem_path is not None or (dem_conf.get("path") and not dem):
        try:
            vu = parse_vertical_unit(
                dem_vertical_unit or dem_conf.get("vertical_unit"),
                where=f"DEM {dem_path or dem_conf.get('path')}",
            )
        except InputError as exc:
            problems.append(str(exc))
    elif not dem:
        notes.append(
            Note(
                "no DEM given ([dem] path in site.toml or --dem): slopes, contours and drainage are not "
                "assessed",
                None,
            )
        )
    existing_named = dem_path is not None or bool(dem_conf.get("path")) or bool(dem)
    proposed = _proposed_dem(
        root,
        dem_conf,
        existing_named=existing_named,
        allow_outside=allow_outside,
        where=toml_path,
        problems=problems,
    )
    return _DemInputs(dem_path, dem_root, vu, proposed)


def _site_dem(
    root: Path, dem_conf: dict[str, Any], *, allow_outside: bool, where: Path, problems: list[str]
) -> tuple[Path | None, Path | None]:
    """Site.toml's existing-grade DEM ([dem] path) and the folder it must stay in (None: anywhere)."""
    dem_root = None if allow_outside else root
    dem_path = _site_file(
        root,
        dem_conf,
        "path",
        "[dem] path",
        allow_outside=allow_outside,
        where=where,
        problems=problems,
    )
    if dem_path is not None:
        dem_path, _ = _raster_path(dem_path, "DEM", dem_root, problems)
    return dem_path, dem_root


def _proposed_dem(
    root: Path,
    dem_conf: dict[str, Any],
    *,
    existing_named: bool,
    allow_outside: bool,
    where: Path,
    problems: list[str],
) -> Path | None:
    """Site.toml's proposed-grade DEM ([dem] proposed); a problem when no existing-grade DEM is named."""
    proposed = _site_file(
        root,
        dem_conf,
        "proposed",
        "[dem] proposed",
        allow_outside=allow_outside,
        where=where,
        problems=problems,
    )
    if proposed is not None:
        if not existing_named:
            problems.append(f"{where}: [dem] proposed is given without the existing-grade DEM ([dem] path)")
        proposed, _ = _raster_path(proposed, "proposed-grade DEM", None if allow_outside else root, problems)
    return proposed


def _check_plausible(site: Site, profile: Any, notes: list[str]) -> None:
    """Implausible inputs for the village (geosite.site.plausible): kept on the site, noted."""
    from geosite.site.plausible import check_site

    site.input_warnings = check_site(site, profile)
    notes.extend(Note(w.message, ImplausibleInputWarning) for w in site.input_warnings)


def read_site_toml(root: Path, limits: Limits | None = None) -> tuple[dict[str, Any], Path]:
    """``root/site.toml`` parsed: a regular file inside the folder, within ``limits.max_toml_bytes``,
    valid UTF-8 TOML. Returns (the table, its path).
    """
    limits = limits or Limits()
    toml_path = root / "site.toml"
    if not toml_path.exists() and not toml_path.is_symlink():
        raise MissingInputError(
            f"{toml_path}: missing; every site folder needs a site.toml (see docs/site_folder.md)"
        )
    real = inside(root, "site.toml", "site.toml")
    regular_file(real, "site.toml")
    limits.check_file_size(str(toml_path), real.stat().st_size, "max_toml_bytes")
    try:
        return tomllib.loads(real.read_text(encoding="utf-8")), toml_path
    except UnicodeDecodeError as exc:
        raise UnreadableInputError(
            f"{toml_path}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise UnreadableInputError(f"{toml_path}: not valid TOML ({exc})") from exc
    except RecursionError as exc:  # tomllib recurses once per nested array or inline table
        raise UnreadableInputError(
            f"{toml_path}: arrays or tables nested too deeply to read; refused"
        ) from exc


def _table(conf: dict[str, Any], key: str, where: Path, problems: list[str]) -> dict[str, Any]:
    """``conf[key]`` when it is a table (or absent: {}); anything else is a problem."""
    v = conf.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        problems.append(f"{where}: {key} = {v!r} must be a table ([{key}] with keys under it)")
        return {}
    return v


def _text(
    conf: dict[str, Any], key: str, where: Path | str, problems: list[str], label: str = ""
) -> str | None:
    v = conf.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        problems.append(f"{where}: {label or key} = {v!r} must be a text (in quotes)")
        return None
    return v


def _settings(conf: dict[str, Any], where: Path, problems: list[str]) -> dict[str, Any]:
    """The site's own settings: map_margin_ft (a finite number of feet from 0 to 5,000), and for the
    sheets' title block ``[preparer]`` (name, firm, address, phone), ``[[revisions]]`` (no, date,
    description) and ``[dem] vertical_datum``, all texts.
    """
    out: dict[str, Any] = {}
    if "map_margin_ft" in conf:
        v = conf["map_margin_ft"]
        if (
            isinstance(v, bool)
            or not isinstance(v, int | float)
            or not math.isfinite(v)
            or not 0 <= v <= 5_000
        ):
            problems.append(f"{where}: map_margin_ft = {v!r}; use a number of feet from 0 to 5,000")
        else:
            out["map_margin_ft"] = float(v)
    if "preparer" in conf:
        prep = _table(conf, "preparer", where, problems)
        out["preparer"] = {
            k: t
            for k in ("name", "firm", "address", "phone")
            if (t := _text(prep, k, where, problems, f"[preparer] {k}")) is not None
        }
    revs = conf.get("revisions")
    if revs is not None:
        if not isinstance(revs, list) or not all(isinstance(r, dict) for r in revs):
            problems.append(f"{where}: revisions must be [[revisions]] tables (no, date, description)")
        else:
            out["revisions"] = [
                {
                    k: str(r[k])
                    for k in ("no", "date", "description")
                    if isinstance(r.get(k), str | int) and not isinstance(r.get(k), bool)
                }
                for r in revs
            ]
    if "soil_loss" in conf:  # NR 151.11's numbers the site gives, with their sources
        from geosite.site.soil_inputs import soil_loss_settings

        out["soil_loss"] = soil_loss_settings(conf["soil_loss"], where, problems)
    dem = conf.get("dem")
    if isinstance(dem, dict):
        datum = _text(dem, "vertical_datum", where, problems, "[dem] vertical_datum")
        if datum is not None:
            out["vertical_datum"] = datum
    return out


def _site_file(
    root: Path,
    table: dict[str, Any],
    key: str,
    what: str,
    *,
    allow_outside: bool,
    where: Path,
    problems: list[str],
) -> Path | None:
    """The file site.toml names at ``table[key]``: inside the folder (or, with ``allow_outside``, any
    local path), or None with a problem appended. Absent: None.
    """
    v = table.get(key)
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        problems.append(f"{where}: {what} = {v!r} must be a text (a path relative to the site folder)")
        return None
    try:
        if allow_outside:  # a consultant's own folder: any local path, never a URL or /vsi path
            return (root / refuse_remote(v, f"{where}: {what}")).resolve()
        return inside(root, v, f"{where}: {what}")
    except UnsafeInputError as exc:
        problems.append(str(exc))
        return None


def _raster_path(
    path: Path, what: str, root: Path | None, problems: list[str]
) -> tuple[Path | None, Path | None]:
    """``path`` when it is a raster geosite may open (raster_format), else None with a problem."""
    try:
        raster_format(path, what, root)
    except InputError as exc:
        problems.append(str(exc))
        return None, root
    return path, root


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
    :class:`~geosite.grid.Dem`.
    """
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
    site_crs, checked = validate_layers(
        raw, declared, "<frames>", "<frames>", make_valid=make_valid, problems=problems, notes=notes
    )
    if problems:
        raise SiteValidationError(problems, site=name)
    assert site_crs is not None  # no problems: the CRS was found
    dem_path, dem_obj, vu = None, None, None
    if isinstance(dem, Dem):
        from geosite.io.raster import check_dem

        dem_obj = check_dem(dem)
    elif dem is not None:
        dem_path = Path(dem)
        vu = parse_vertical_unit(dem_vertical_unit, where=f"DEM {dem_path}")
    profile = load_profile(jurisdiction)
    site = Site(
        name=name,
        jurisdiction=profile.id,
        profile=profile,
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
    _check_plausible(site, profile, notes)
    _emit(notes, strict=False)
    return site


def _contact(d: dict[str, Any], who: str, where: Path, problems: list[str]) -> Contact:
    def text(key: str) -> str | None:
        """The contact's ``key`` as a text (a phone number may be given as a number)."""
        v = d.get(key)
        if v is None or isinstance(v, str):
            return v
        if isinstance(v, int | float) and not isinstance(v, bool) and key == "phone":
            return str(v)
        problems.append(f"{where}: [{who}] {key} = {v!r} must be a text (in quotes)")
        return None

    return Contact(name=text("name"), address=text("address"), phone=text("phone"))


def _project_date(d: dict[str, Any], key: str, where: Path, problems: list[str]) -> dt.date | None:
    """[project] ``key`` as a date in :data:`DATE_RANGE` (None when absent, or with a problem)."""
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, dt.datetime):
        problems.append(
            f"{where}: [project] {key} = {v.isoformat()} is a date and time; give the date alone "
            f"({key} = {v.date().isoformat()})"
        )
        return None
    if not isinstance(v, dt.date):
        try:
            v = dt.date.fromisoformat(v) if isinstance(v, str) else None
        except ValueError:
            v = None
        if v is None:
            problems.append(f"{where}: [project] {key} = {d.get(key)!r} is not a date (YYYY-MM-DD)")
            return None
    if not DATE_RANGE[0] <= v <= DATE_RANGE[1]:
        problems.append(
            f"{where}: [project] {key} = {v.isoformat()} is outside {DATE_RANGE[0].year}-"
            f"{DATE_RANGE[1].year}; check the year"
        )
        return None
    return v


def _project(d: dict[str, Any], where: Path, problems: list[str]) -> Project:
    def number(key: str) -> float | None:
        """[project] ``key`` as a finite number of cubic yards in range, or None."""
        v = d.get(key)
        if v is None:
            return None
        if (
            isinstance(v, bool)
            or not isinstance(v, int | float)
            or not math.isfinite(v)
            or not 0 <= v <= MAX_CUBIC_YARDS
        ):
            problems.append(
                f"{where}: [project] {key} must be a finite number of cubic yards from 0 to "
                f"{MAX_CUBIC_YARDS:,.0f}, got {v!r}"
            )
            return None
        return float(v)

    def date(key: str) -> dt.date | None:
        """[project] ``key`` as a date, or None."""
        return _project_date(d, key, where, problems)

    def flag(key: str, default: bool | None) -> bool | None:
        """[project] ``key`` as true or false (``default`` when absent or not a boolean)."""
        v = d.get(key, default)
        if v is not None and not isinstance(v, bool):
            problems.append(f"{where}: [project] {key} = {v!r}; use true or false (no quotes)")
            return default
        return v

    plat = d.get("plat", "none")
    plat = plat.strip().lower() if isinstance(plat, str) else repr(plat)
    if plat not in PLAT_VALUES:
        problems.append(f"{where}: [project] plat = {plat!r}; use one of {', '.join(PLAT_VALUES)}")
    start, end = date("start"), date("end")
    if start and end and end < start:
        problems.append(f"{where}: [project] end {end} is before start {start}")
    bpd = d.get("building_permit_days")
    if bpd is not None and (isinstance(bpd, bool) or not isinstance(bpd, int) or not 0 <= bpd <= 36_500):
        problems.append(
            f"{where}: [project] building_permit_days = {bpd!r}; use a whole number of days (0 to 36,500)"
        )
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
    root: Path,
    conf: dict[str, Any],
    problems: list[str],
    notes: list[str],
    *,
    allow_outside: bool = False,
    limits: Limits | None = None,
) -> dict[str, tuple[gpd.GeoDataFrame, str]]:
    """Read every layer the site's [layers] table points at. Returns name -> (frame, source label).

    Every path stays inside ``root`` (symbolic links resolved) unless ``allow_outside``; a file is read
    only when it is a regular file of a vector format geosite reads (geosite.io.vector.read_layer), and
    the layers' vertices stay within ``limits``.
    """
    r = _LayerReading(root, problems, notes, allow_outside, limits or Limits())
    names_map = conf.get("names", {}) or {}
    if not isinstance(names_map, dict) or not all(isinstance(v, str) for v in names_map.values()):
        problems.append(
            f'{r.toml}: [layers.names] must be a table of texts (geosite name = "the file\'s layer name")'
        )
        names_map = {}
    sources: dict[str, str] = {}
    bundle = conf.get("path")
    if bundle is not None and not isinstance(bundle, str):
        problems.append(
            f"{r.toml}: [layers] path = {bundle!r} must be a text (a path relative to the site folder)"
        )
        bundle = None
    if bundle is None and "path" not in conf and not any(k in LAYERS for k in conf):
        # no [layers] table: a layers.gpkg, else one file per layer named after it
        if (root / "layers.gpkg").exists() or (root / "layers.gpkg").is_symlink():
            bundle = "layers.gpkg"
        else:
            sources.update(_files_named_after_layers(root))
    if bundle is not None:
        sources.update(r.bundle_sources(bundle, names_map))
    for key, value in conf.items():
        if key in ("path", "names"):
            continue
        if key not in LAYERS:
            problems.append(f"{r.toml}: [layers] {key!r} is not a geosite layer (known: {', '.join(LAYERS)})")
            continue
        if not isinstance(value, str) or not value:
            problems.append(f"{r.toml}: [layers] {key} = {value!r} must be a text (a file, or file:layer)")
            continue
        sources[key] = value
    return r.read(sources)


def _files_named_after_layers(root: Path) -> dict[str, str]:
    """Without a [layers] table: one file per layer in ``root``, named after it."""
    sources: dict[str, str] = {}
    for lname in LAYERS:
        for suffix in VECTOR_SUFFIXES:
            if (root / f"{lname}{suffix}").exists():
                sources[lname] = f"{lname}{suffix}"
                break
    return sources


@dataclass
class _LayerReading:
    """Reading a site folder's layers: where they may be, the limits they are read under, and the
    problems and notes found on the way (appended).
    """

    root: Path
    problems: list[str]
    notes: list[str]
    allow_outside: bool
    limits: Limits

    @property
    def toml(self) -> Path:
        """The folder's site.toml."""
        return self.root / "site.toml"

    @property
    def within(self) -> Path | None:
        """The folder every file must stay in (None: anywhere local)."""
        return None if self.allow_outside else self.root

    def locate(self, text: str, what: str) -> Path | None:
        """The path ``text`` names (inside the folder unless ``allow_outside``), or None with a problem."""
        try:
            if self.allow_outside:
                return self.root / refuse_remote(text, f"{self.toml}: {what}")
            return inside(self.root, text, f"{self.toml}: {what}")
        except InputError as exc:
            self.problems.append(str(exc))
            return None

    def bundle_sources(self, bundle: str, names_map: dict[str, str]) -> dict[str, str]:
        """The geosite layers found in the one file ``bundle`` (by their names, or ``names_map``'s)."""
        bpath = self.locate(bundle, "[layers] path")
        available: list[str] = []
        if bpath is not None:
            try:
                available = list_layers(bpath, root=self.within, limits=self.limits)
            except InputError as exc:
                self.problems.append(str(exc))
        sources: dict[str, str] = {}
        for lname in LAYERS:
            file_layer = names_map.get(lname, lname)
            if file_layer in available:
                sources[lname] = f"{bundle}:{file_layer}"
        parts = [a for a in available if split_part(a) is not None and split_part(a) not in sources]
        for a in parts:  # a layer written one layer per geometry type (bmps_points, bmps_lines, ...): one
            lname = str(split_part(a))
            sources[lname] = f"{sources[lname]}{PARTS_SEP}" if lname in sources else ""
            sources[lname] += f"{bundle}:{a}"
        known = {names_map.get(n, n) for n in LAYERS} | set(parts) | set(STYLE_TABLES)
        extra = [a for a in available if a not in known]
        if extra:
            self.notes.append(
                f"{bpath}: layers {', '.join(map(repr, extra))} are not geosite layers; ignored"
            )
        return sources

    def read(self, sources: dict[str, str]) -> dict[str, tuple[gpd.GeoDataFrame, str]]:
        """Each layer of ``sources`` (name -> "file" or "file:layer", several joined by
        :data:`PARTS_SEP` for a layer written in parts) read, with its source label.
        """
        out: dict[str, tuple[gpd.GeoDataFrame, str]] = {}
        total = 0
        for lname, src in _parts(sources):
            try:
                refuse_remote(src, f"{self.toml}: [layers] {lname}")
            except InputError as exc:
                self.problems.append(str(exc))
                continue
            path_text, _, sub = src.partition(":") if not _is_windows_drive(src) else (src, "", "")
            path = self.locate(path_text, f"[layers] {lname}")
            if path is None:
                continue
            try:
                if path.suffix.lower() == ".dxf":
                    gdf = read_layer(path, cad_layer=sub or None, root=self.within, limits=self.limits)
                else:
                    gdf = read_layer(path, layer=sub or None, root=self.within, limits=self.limits)
                label = f"{self.root / path_text}" + (f", layer {sub!r}" if sub else "")
                if isinstance(gdf, gpd.GeoDataFrame) and len(gdf):
                    total = self.limits.check_vertices(
                        label,
                        shapely.get_num_coordinates(gdf.geometry.values),
                        list(range(1, len(gdf) + 1)),
                        total,
                    )
            except InputError as exc:
                self.problems.append(f"layer {lname!r}: {exc}")
                continue
            if lname in out:  # a further part of a layer written in parts
                prev, prev_label = out[lname]
                gdf = _joined(prev, gdf)
                label = f"{prev_label} + {label}"
            out[lname] = (gdf, label)
        return out


#: tables a GeoPackage holds for its layers' looks (QGIS's default styles and projects): read by no one here
STYLE_TABLES = ("layer_styles", "qgis_projects")
#: How a layer written in parts joins them in its source (one per geometry type: bmps_points ...): a NUL,
#: which no path holds
PARTS_SEP = "\0"
#: The geometry types a layer may be written in parts of, by the parts' suffix
PART_SUFFIXES = ("_points", "_lines", "_polygons")


def split_part(name: str) -> str | None:
    """The geosite layer a file's layer ``name`` is a part of (``bmps_lines`` -> ``bmps``), else None."""
    for suffix in PART_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in LAYERS:
            return name[: -len(suffix)]
    return None


def _parts(sources: dict[str, str]) -> list[tuple[str, str]]:
    """The (layer, source) pairs to read: a layer written in parts once per part."""
    return [(lname, part) for lname, src in sources.items() for part in src.split(PARTS_SEP)]


def _joined(a: gpd.GeoDataFrame, b: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """The parts ``a`` and ``b`` of one layer as one frame (an empty part adds nothing)."""
    if not len(b):
        return a
    if not len(a):
        return b
    b = b.to_crs(a.crs)
    if b.geometry.name != a.geometry.name:
        b = b.rename_geometry(a.geometry.name)
    return gpd.GeoDataFrame(pd.concat([a, b], ignore_index=True), geometry=a.geometry.name, crs=a.crs)


def _is_windows_drive(text: str) -> bool:
    return len(text) > 2 and text[1] == ":" and text[0].isalpha() and text[2] in "\\/"


def _check_dem_coverage(site: Site, notes: list[str]) -> None:
    """Warn, naming the shortfall in feet on each side, when the DEM does not cover the site + margin."""
    if site.dem_path is None:
        return
    margin = site.map_margin_ft()
    try:
        with open_raster(site.dem_path, "DEM", site.dem_root, site.limits) as src:
            if src.crs is None:
                raise CRSError(f"DEM {site.dem_path}: has no CRS; assign one before use")
            dem_crs = CRS.from_user_input(src.crs)
            dl, db, dr, dt_ = src.bounds
    except InputError as exc:
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
            Note(
                f"DEM {site.dem_path}: does not cover {what} {margin:.0f} ft around it: {sides}; "
                "slopes, contours and drainage near those edges are incomplete",
                CoverageWarning,
            )
        )


def _emit(notes: list[str], strict: bool) -> None:
    problems = []
    for note in notes:
        cls = note.category if isinstance(note, Note) else GeositeWarning
        if cls is None:
            continue  # routine: listed in the report, neither a warning nor (strict) an error
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
