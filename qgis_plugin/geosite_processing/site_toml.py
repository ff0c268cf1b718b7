"""site.toml for a site folder written from QGIS layers (docs/site_folder.md).

The document is built from the dialog's values over an optional template (a site.toml the consultant
already has: contacts, ``[project]``, ``[declared]`` texts, revisions), then written as TOML.

The writer is hand-written: QGIS's Python reads TOML (tomllib, Python 3.11+) but has no TOML writer,
and a plugin cannot install packages into QGIS. It writes what a site.toml holds: strings, booleans,
integers, finite floats, dates, arrays of those, tables and arrays of tables; tests read every document
back with tomllib. This module imports nothing from QGIS.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The layers of a site folder (docs/site_folder.md; geosite.io.layers.LAYERS), in the dialog's order:
#: geosite's name, the geometry families it takes, the dialog's label, whether under Advanced.
LAYERS = (
    ("site_boundary", ("polygon",), "Site boundary (parcel)", False),
    ("disturbance", ("polygon",), "Disturbance (phase, start, end, stabilized)", False),
    ("stockpiles", ("polygon",), "Soil stockpiles (days, stabilization)", False),
    ("roads", ("line", "polygon"), "Roads (name, status, public)", False),
    ("access_drives", ("line", "polygon"), "Access drives (width_ft)", False),
    ("structures", ("polygon",), "Structures (status)", False),
    ("streams", ("line", "polygon"), "Streams", False),
    ("lakes", ("polygon",), "Lakes", False),
    ("wetlands", ("polygon",), "Wetlands", False),
    ("channels", ("line", "polygon"), "Drainage channels and ditches", False),
    ("storm_inlets", ("point", "polygon"), "Storm drain inlets", False),
    ("bmps", ("point", "line", "polygon"), "Submitted controls (bmps: type, install, remove)", False),
    ("utilities", ("line",), "Utilities (kind, status, underground)", True),
    ("floodplain", ("polygon",), "Floodplain (zone)", True),
    ("soils", ("polygon",), "Soils (musym, name, hsg)", True),
    ("vegetation", ("polygon",), "Vegetation (cover)", True),
    ("contours", ("line",), "Submitted contours (elevation)", True),
)
LAYER_NAMES = tuple(name for name, *_ in LAYERS)

#: [declared] texts ending so name a file of the submission (geosite.review.declared.FILE_SUFFIXES).
DECLARED_FILE_SUFFIXES = (
    ".pdf",
    ".tif",
    ".tiff",
    ".png",
    ".jpg",
    ".dxf",
    ".dwg",
    ".gpkg",
    ".geojson",
    ".shp",
)

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class TemplateError(Exception):
    """The template site.toml cannot be read; the message names the file and the problem."""


def read_template(path: str) -> dict[str, Any]:
    """The template site.toml at ``path`` as a dict.

    Parameters
    ----------
    path : str
        A site.toml file.

    Returns
    -------
    dict
        Its tables and values.

    Raises
    ------
    TemplateError
        Not readable, not TOML, or no TOML reader in this Python (before 3.11 without tomli).
    """
    try:
        import tomllib as reader  # Python 3.11+
    except ImportError:
        try:
            import tomli as reader  # type: ignore[no-redef]
        except ImportError as exc:
            raise TemplateError(
                f"{path}: reading a site.toml template needs Python 3.11 or the tomli package in QGIS's "
                "Python; give the project's details in the dialog instead"
            ) from exc
    try:
        with open(path, "rb") as f:
            return reader.load(f)
    except OSError as exc:
        raise TemplateError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise TemplateError(f"{path}: not valid TOML ({exc})") from exc


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(v: Any) -> str:
    """One TOML value (no table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{v!r} is not a number TOML can hold")
        return repr(v)
    if isinstance(v, (dt.date, dt.datetime, dt.time)):
        return v.isoformat()
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise ValueError(f"{v!r} ({type(v).__name__}) has no TOML form here")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _table(doc: Mapping[str, Any], path: list[str], out: list[str]) -> None:
    """Append ``doc``'s plain values, then its sub-tables and arrays of tables, under ``path``."""
    for k, v in doc.items():
        if not isinstance(v, Mapping) and not _is_table_array(v):
            out.append(f"{_key(k)} = {_value(v)}")
    for k, v in doc.items():
        sub = [*path, _key(k)]
        if isinstance(v, Mapping):
            out.extend(["", f"[{'.'.join(sub)}]"])
            _table(v, sub, out)
        elif _is_table_array(v):
            for item in v:
                out.extend(["", f"[[{'.'.join(sub)}]]"])
                _table(item, sub, out)


def dumps(doc: Mapping[str, Any], header: str = "") -> str:
    """``doc`` as TOML text.

    Parameters
    ----------
    doc : mapping
        Values, tables (mappings) and arrays of tables (lists of mappings).
    header : str
        A comment put first (each line prefixed with ``#``).

    Returns
    -------
    str
        The TOML document, ending with a newline.
    """
    out = [f"# {line}" for line in header.splitlines()]
    _table(doc, [], out)
    return "\n".join(out).lstrip("\n") + "\n"


def _merged(base: Any, given: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` (a template's table, or nothing) with the values ``given`` that are not None."""
    table = dict(base) if isinstance(base, Mapping) else {}
    table.update({k: v for k, v in given.items() if v is not None})
    return table


def site_document(
    template: Mapping[str, Any] | None,
    *,
    name: str | None,
    jurisdiction: str | None,
    crs: str | None,
    dem: Mapping[str, Any],
    layers_path: str,
    project: Mapping[str, Any],
    contacts: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The site.toml of a folder written from layers.

    The template's tables are kept except ``[layers]`` (the folder's one GeoPackage) and the files of
    ``[dem]`` (the folder's own DEM, or none where the DEM is handed to geosite with ``--dem``); the
    values given (not None) replace the template's. The caller passes None for what the dialog leaves
    unsaid (an unticked box is not "no": geosite tells an undeclared ``dewatering`` from ``false``).

    Parameters
    ----------
    template : mapping, optional
        A site.toml read with :func:`read_template`.
    name, jurisdiction, crs : str, optional
        The site's name, the profile's name and the site CRS (e.g. ``EPSG:7593``).
    dem : mapping
        ``[dem]`` values: ``path``, ``proposed`` (relative to the folder), ``vertical_unit``.
    layers_path : str
        The layers' GeoPackage, relative to the folder.
    project : mapping
        ``[project]`` values (start, end, cut_cy, fill_cy, plat, dewatering, ...).
    contacts : mapping
        ``applicant`` / ``maintainer`` / ``preparer`` -> their name, address, phone.

    Returns
    -------
    dict
        The document, for :func:`dumps`.
    """
    doc: dict[str, Any] = dict(template or {})
    top = {"name": name, "jurisdiction": jurisdiction, "crs": crs}
    doc.update({k: v for k, v in top.items() if v is not None})
    dem_table = {k: v for k, v in dict(doc.get("dem") or {}).items() if k not in ("path", "proposed")}
    dem_table.update({k: v for k, v in dem.items() if v is not None})
    if dem_table:
        doc["dem"] = dem_table
    else:
        doc.pop("dem", None)
    doc["layers"] = {"path": layers_path}
    said = {k: v for k, v in project.items() if v is not None}
    if said or "project" in doc:
        doc["project"] = _merged(doc.get("project"), said)
    for who, values in contacts.items():
        given = {k: v for k, v in values.items() if v}
        if given or who in doc:
            doc[who] = _merged(doc.get(who), given)
    return doc


def declared_files(template: Mapping[str, Any], template_dir: Path) -> list[str]:
    """The files a template's ``[declared]`` texts name (a submitted map, a final-conditions sheet), as
    paths relative to its folder, that exist there (the new folder needs copies: geosite reads them
    inside the folder only).

    Parameters
    ----------
    template : mapping
        The template document.
    template_dir : Path
        The folder holding the template.

    Returns
    -------
    list of str
        Relative paths to copy.
    """
    declared = template.get("declared")
    if not isinstance(declared, Mapping):
        return []
    found = []
    for value in declared.values():
        if not isinstance(value, str) or not value.lower().endswith(DECLARED_FILE_SUFFIXES):
            continue
        rel = Path(value)
        if rel.is_absolute() or ".." in rel.parts:
            continue  # geosite refuses a path leaving the folder, naming the key: nothing to copy
        if (template_dir / rel).is_file():
            found.append(rel.as_posix())
    return found
