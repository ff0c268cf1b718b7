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

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import geopandas as gpd
import pandas as pd
import shapely
from pyproj import CRS

from geosite.errors import (
    CoverageWarning,
    CRSError,
    GeositeWarning,
    ImplausibleInputWarning,
    InputError,
    MissingInputError,
    Note,
    SiteValidationError,
    UnsafeInputError,
)
from geosite.grid import bounds_in
from geosite.io.limits import Limits
from geosite.io.raster import open_raster
from geosite.io.text import submission
from geosite.io.untrusted import inside, raster_format, refuse_remote
from geosite.io.vector import LAYERS, list_layers, read_layer
from geosite.site.layer_checks import validate_layers
from geosite.site.model import Contact, Project, Site
from geosite.site.site_toml import (
    contact_of,
    declared_crs,
    jurisdiction_of,
    project_of,
    read_site_toml,
    settings_of,
    toml_table,
    toml_text,
)
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
        toml_table(conf, "dem", toml_path, problems),
        dem,
        dem_vertical_unit,
        allow_outside=allow_outside,
        toml_path=toml_path,
        problems=problems,
        notes=notes,
    )
    site_crs, layers = _site_layers(
        root,
        toml_table(conf, "layers", toml_path, problems),
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
    site.conf = conf
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
    # the site's name: the author's text, marked as such (geosite.io.text); its people in contact_of
    name = submission(toml_text(conf, "name", toml_path, problems) or root.name)
    juris, profile = jurisdiction_of(
        conf, jurisdiction, toml_path, problems, installed_profile_only=installed_profile_only
    )
    crs = declared_crs(conf, toml_path, problems)
    project = project_of(toml_table(conf, "project", toml_path, problems), toml_path, problems)
    applicant, maintainer = (
        contact_of(toml_table(conf, who, toml_path, problems), who, toml_path, problems)
        for who in ("applicant", "maintainer")
    )
    settings = settings_of(conf, toml_path, problems)
    return _SiteHeader(
        name=name,
        jurisdiction=juris,
        profile=profile,
        declared_crs=crs,
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
