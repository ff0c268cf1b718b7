"""What ``geosite check`` lets GDAL and PROJ read from a submission: an allowlist, not a list of what is
forbidden.

- Formats: the DEM as a GeoTIFF only (driver GTiff); layers as GeoPackage, shapefile, GeoJSON or DXF
  only, each told by its content (geosite.io.untrusted). A VRT, ASCII grid, FlatGeobuf, KML, GML or
  OGR VRT is refused with a message saying what to convert it to.
- Before GDAL opens a file, its content is inspected here: a GeoPackage with Python's sqlite3 on the
  staged copy, read-only and ``immutable=1`` (ordinary feature tables only: no view, no virtual table
  but the GeoPackage's own R-trees, no generated column, no trigger but the GeoPackage's and GDAL's
  own; its CRS definitions plain); a DXF's group codes (binary DXF refused; blocks nested at most
  :data:`MAX_DXF_BLOCK_DEPTH` deep and the entities that inserting them would make at most the
  ``max_vertices_total`` limit, counted before GDAL expands a block); a GeoJSON's ``crs`` member (a
  named EPSG or OGC CRS only: a ``link`` is refused); a shapefile's ``.prj`` (plain).
- CRSs: :func:`check_crs_text` accepts an EPSG code, or WKT / a PROJ string / PROJJSON naming no external
  resource: no grid, file or model parameter (``+nadgrids``, ``+geoidgrids``, ``grids``, ``+init``,
  ``file``, ``model`` ...), no ``@`` (PROJ's optional-grid mark), no WKT ``EXTENSION`` (``PROJ4_GRIDS``,
  ``PROJ4``: GDAL's channels for grid names), no ``PARAMETERFILE`` or ``GEOIDMODEL``, no URL, no
  ``/vsi`` path, and no quoted text that is a file path or a grid file's name (``/abs/outside.gsb``,
  ``..\\x.gtx``, ``conus.tif``).
- Drivers: :func:`prune_gdal_drivers` deregisters every GDAL driver but the allowlisted ones in each
  GDAL library loaded in the process (rasterio's and pyogrio's), so a file no check here foresaw still
  meets only those drivers.

:func:`submission_policy` is the check geosite.io.untrusted calls for every submission file (installed
with ``untrusted.set_policy`` in the sandbox's child process).
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from geosite.errors import UnsafeInputError
from geosite.io.limits import Limits

#: Drivers a submission's files may be read by.
RASTER_DRIVERS = ("GTiff",)
VECTOR_DRIVERS = ("GPKG", "ESRI Shapefile", "GeoJSON", "DXF")
#: Drivers left registered in the sandbox's GDALs: the allowlist and GDAL's in-memory datasets.
KEEP_DRIVERS = RASTER_DRIVERS + VECTOR_DRIVERS + ("MEM", "Memory")
#: How deep DXF blocks may be inserted in one another.
MAX_DXF_BLOCK_DEPTH = 8
#: A GeoJSON with a ``crs`` member (or \\u escapes, which could spell one) is parsed whole up to this size.
MAX_GEOJSON_PARSE_BYTES = 64 * 2**20
#: SQLite steps the GeoPackage inspection may take (a crafted schema cannot keep it busy).
MAX_SQLITE_STEPS = 50_000_000

_CONVERT = {
    "VRT": "a VRT (its sources could be anywhere); send the DEM as a GeoTIFF (gdal_translate in.vrt dem.tif)",
    "AAIGrid": "an ASCII grid; send the DEM as a GeoTIFF (gdal_translate dem.asc dem.tif)",
    "FlatGeobuf": "a FlatGeobuf file; send it as a GeoPackage (ogr2ogr layers.gpkg in.fgb)",
    "KML": "a KML file; send it as a GeoPackage (ogr2ogr layers.gpkg in.kml)",
    "GML": "a GML file; send it as a GeoPackage (ogr2ogr layers.gpkg in.gml)",
    "OGR_VRT": "an OGR VRT (its sources and SQL could reach anywhere); send the layers as a GeoPackage",
}
_GRID = re.compile(
    r"(?i)(^|[+\s\"{,])\+?(nadgrids|geoidgrids|hgridshift|vgridshift|gridshift|xy_grids|z_grids|grids|"
    r"init|tinshift|deformation|file|url|model|catalog|parameter_file|geoid_model|grid_name)\"?\s*[=:]"
)
_REMOTE = re.compile(
    r"(?i)(https?|ftp|file|s3|gs|az)\s*:|[\\/]vsi|\\\\|PARAMETERFILE\s*\[|GEOIDMODEL\s*\[|EXTENSION\s*\[|@"
)
#: Grid and model files PROJ and GDAL read (NTv2, GTX, GeoTIFF grids, PROJ's JSON models, ...).
_GRID_FILE = re.compile(
    r"(?i)\.(gsb|gtx|tif|tiff|json|byn|las|los|ct2|nad|ntv1|ntv2|gvb|grd|asc|bin|gdb|dat|geoid|isg|txt|gpkg|db)$"
)
#: A quoted text (WKT, PROJJSON) or a PROJ value that names a file: a path (absolute, relative, home,
#: Windows) or a grid file's name.
_PATHLIKE = re.compile(r"^\s*([/\\~]|\.{1,2}[/\\]|[A-Za-z]:[/\\])")
_TRIGGER = re.compile(
    r"^(gpkg_\w+|rtree_\w+_(insert|update\d*|delete)|trigger_(insert|delete)_feature_count_\w+)$"
)
_EPSG_NAME = re.compile(r"(?i)^\s*(urn:ogc:def:crs:(epsg:[\d.]*:\d+|ogc:1\.3:crs84|ogc::crs84)|epsg:\d+)\s*$")


def check_crs_text(text: object, where: str) -> None:
    """Refuse a CRS that could make PROJ open a file or a URL: only an EPSG code, WKT or a PROJ string
    without grid, file or URL parameters passes (:class:`~geosite.errors.UnsafeInputError`).
    """
    if isinstance(text, int) and not isinstance(text, bool):
        return
    s = str(text)
    if "\x00" in s or _GRID.search(s) or _REMOTE.search(s) or _names_a_file(s):
        raise UnsafeInputError(
            f"{where}: a CRS naming a grid, file or URL ({_clip(s)}); geosite check accepts a CRS "
            "only as an EPSG code, or WKT / PROJ text without grids, files, URLs or extensions"
        )


def _names_a_file(s: str) -> bool:
    """Whether any quoted text (WKT, PROJJSON) or any PROJ ``key=value`` value in ``s`` is a path or names
    a grid file.
    """
    values = re.findall(r'"((?:[^"\\]|\\.)*)"', s)
    values += [m.group(1) for m in re.finditer(r"(?:^|\s)\+?[A-Za-z_][\w]*\s*=\s*([^\s]+)", s)]
    return any(_PATHLIKE.search(v) or _GRID_FILE.search(v.strip().strip("'")) for v in values)


#: Files already inspected, by (path, driver, device, inode, size, modification time): a GeoPackage is opened
#: once per layer read, and its inspection (hundreds of SQLite statements) need not run again for the same
#: (staged, read-only) bytes.
_INSPECTED: set[tuple[str, str, int, int, int, int]] = set()


def submission_policy(path: Path, driver: str, what: str, limits: Limits | None = None) -> None:
    """The check every submission file passes once its format is known and before GDAL opens it (once
    per file: the same file, unchanged, is not inspected again).
    """
    try:
        st = path.stat()
        key = (str(path), driver, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key is not None and key in _INSPECTED:
        return
    _inspect(path, driver, what, limits)
    if key is not None:
        _INSPECTED.add(key)


def _inspect(path: Path, driver: str, what: str, limits: Limits | None) -> None:
    if driver not in RASTER_DRIVERS + VECTOR_DRIVERS:
        why = _CONVERT.get(driver, f"a {driver} file")
        raise UnsafeInputError(
            f"{what} {path}: {why}; geosite check reads a DEM only as a GeoTIFF and layers only "
            "as a GeoPackage, shapefile, GeoJSON or DXF"
        )
    where = f"{what} {path}"
    if driver == "GPKG":
        check_geopackage(path, where)
    elif driver == "GeoJSON":
        check_geojson(path, where)
    elif driver == "DXF":
        check_dxf(path, where, (limits or Limits()).max_vertices_total)
    elif driver == "ESRI Shapefile":
        for prj in (path.with_suffix(".prj"), path.with_suffix(".PRJ")):
            if prj.is_file():
                check_crs_text(prj.read_bytes()[:65536].decode("utf-8", "replace"), f"{where}: {prj.name}")


# ------------------------------------------------------------------------------------------ GeoPackage


def check_geopackage(path: Path, where: str) -> None:
    """Ordinary feature tables only, inspected with sqlite3 read-only on the (staged) file."""
    uri = f"file:{quote(str(path))}?mode=ro&immutable=1"
    steps = [0]

    def budget() -> int:
        """SQLite's progress handler: non-zero (stop) past :data:`MAX_SQLITE_STEPS`."""
        steps[0] += 1
        return 1 if steps[0] * 1000 > MAX_SQLITE_STEPS else 0

    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise UnsafeInputError(f"{where}: cannot be opened as a GeoPackage ({exc})") from exc
    try:
        con.set_progress_handler(budget, 1000)
        con.execute("PRAGMA trusted_schema = OFF")
        rows = con.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        tables = {name for kind, name, sql in rows if kind == "table"}
        for kind, name, sql in rows:
            _check_schema_row(kind, str(name), str(sql or ""), where)
        for name in sorted(tables):
            cols = con.execute(f'PRAGMA table_xinfo("{name.replace(chr(34), chr(34) * 2)}")').fetchall()
            if any(c[6] in (2, 3) for c in cols):
                raise UnsafeInputError(
                    f"{where}: table {name!r} has generated columns (computed as they are read); "
                    "geosite reads ordinary feature tables only"
                )
        _check_contents(con, tables, where)
    except sqlite3.Error as exc:
        raise UnsafeInputError(f"{where}: not a readable GeoPackage ({exc})") from exc
    finally:
        con.close()


def _check_schema_row(kind: str, name: str, sql: str, where: str) -> None:
    if kind == "view":
        raise UnsafeInputError(
            f"{where}: holds the SQL view {name!r}; geosite reads ordinary feature tables only "
            "(a view runs SQL as it is read)"
        )
    if kind == "trigger" and not _TRIGGER.match(name):
        raise UnsafeInputError(
            f"{where}: holds the trigger {name!r}, not one of the GeoPackage's own; refused"
        )
    virtual = kind == "table" and re.match(r"(?is)\s*create\s+virtual\s+table", sql)
    if virtual and not (name.startswith("rtree_") and re.search(r"(?is)\busing\s+rtree\s*\(", sql)):
        raise UnsafeInputError(
            f"{where}: holds the virtual table {name!r}; geosite reads ordinary feature tables "
            "only (only the GeoPackage's own R-tree indexes are virtual)"
        )


def _check_contents(con: sqlite3.Connection, tables: set[str], where: str) -> None:
    try:
        contents = con.execute("SELECT table_name, data_type FROM gpkg_contents").fetchall()
    except sqlite3.Error as exc:
        raise UnsafeInputError(f"{where}: no gpkg_contents table: not a GeoPackage ({exc})") from exc
    for name, kind in contents:
        if str(kind).lower() not in ("features", "attributes"):
            raise UnsafeInputError(
                f"{where}: layer {name!r} is of type {kind!r}; geosite reads feature tables only"
            )
        if name not in tables:
            raise UnsafeInputError(f"{where}: layer {name!r} is not an ordinary table; refused")
    cols = [c[1] for c in con.execute("PRAGMA table_info(gpkg_spatial_ref_sys)").fetchall()]
    for col in ("definition", "definition_12_063"):
        if col in cols:
            for srs_id, text in con.execute(f"SELECT srs_id, {col} FROM gpkg_spatial_ref_sys").fetchall():
                if text is not None and str(text).strip().lower() != "undefined":
                    check_crs_text(text, f"{where}: gpkg_spatial_ref_sys srs_id {srs_id}")


# ------------------------------------------------------------------------------------------ GeoJSON


def check_geojson(path: Path, where: str) -> None:
    """A GeoJSON's ``crs`` member, if any, names an EPSG or OGC CRS (never a link or a PROJ string)."""
    data = path.read_bytes()
    if b"crs" not in data.lower() and b"\\u" not in data:
        return  # no crs member can be spelled
    if len(data) > MAX_GEOJSON_PARSE_BYTES:
        raise UnsafeInputError(
            f"{where}: a GeoJSON over {MAX_GEOJSON_PARSE_BYTES:,} bytes with a crs member or \\u escapes; "
            "send it as a GeoPackage"
        )
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError) as exc:
        raise UnsafeInputError(f"{where}: not valid JSON ({_clip(str(exc))})") from exc
    for crs in _crs_members(obj):
        _check_geojson_crs(crs, where)


def _crs_members(obj: object) -> Iterable[object]:
    if isinstance(obj, dict):
        if "crs" in obj:
            yield obj["crs"]
        for f in obj.get("features") or [] if isinstance(obj.get("features"), list) else []:
            if isinstance(f, dict) and "crs" in f:
                yield f["crs"]


def _check_geojson_crs(crs: object, where: str) -> None:
    if crs is None:
        return
    ok = False
    if isinstance(crs, dict) and isinstance(crs.get("properties"), dict):
        props = crs["properties"]
        if crs.get("type") == "name" and isinstance(props.get("name"), str):
            ok = bool(_EPSG_NAME.match(props["name"]))
        elif crs.get("type") == "EPSG" and isinstance(props.get("code"), int):
            ok = True
    if not ok:
        raise UnsafeInputError(
            f"{where}: crs member {_clip(json.dumps(crs))} is not a named EPSG or OGC CRS "
            '(a link or a PROJ string is refused); use "urn:ogc:def:crs:EPSG::NNNN"'
        )


# ------------------------------------------------------------------------------------------ DXF


def check_dxf(path: Path, where: str, max_entities: int) -> None:
    """Blocks nested at most :data:`MAX_DXF_BLOCK_DEPTH` deep, and at most ``max_entities`` entities once
    every INSERT (and MINSERT's rows x columns) is expanded; counted from the group codes, before GDAL.
    """
    with open(path, "rb") as fh:
        if fh.read(18) == b"AutoCAD Binary DXF":
            raise UnsafeInputError(f"{where}: a binary DXF; save it as an ASCII DXF")
    blocks, top = _dxf_blocks(path)
    memo: dict[str, tuple[int, int]] = {}

    def expand(name: str, trail: tuple[str, ...]) -> tuple[int, int]:
        """Block ``name``'s entities once expanded, and its nesting depth (reached through ``trail``)."""
        if name in trail:
            raise UnsafeInputError(
                f"{where}: block {name!r} inserts itself (through {' > '.join(trail)}); refused"
            )
        if len(trail) >= MAX_DXF_BLOCK_DEPTH:
            raise UnsafeInputError(
                f"{where}: blocks nested more than {MAX_DXF_BLOCK_DEPTH} deep ({' > '.join(trail[:4])} ...); "
                "explode them in CAD before sending"
            )
        if name not in memo:
            own, inserts = blocks.get(name, (0, []))
            total, depth = own, 0
            for target, copies in inserts:
                n, d = expand(target, (*trail, name))
                total += copies * n
                depth = max(depth, d + 1)
                if total > max_entities:
                    break
            memo[name] = (total, depth)
        return memo[name]

    own, inserts = top
    total = own
    for target, copies in [*inserts, ("", 0)]:  # the sentinel checks a drawing without inserts too
        total += copies * expand(target, ())[0] if target else 0
        if total > max_entities:
            raise UnsafeInputError(
                f"{where}: inserting its blocks would make over {max_entities:,} entities "
                "(max_vertices_total); refused before GDAL expands them"
            )


def _dxf_blocks(path: Path) -> tuple[dict[str, tuple[int, list]], tuple[int, list]]:
    """Each block's own entity count and INSERTs (block name, copies), and the same for the drawing's
    ENTITIES section, from the DXF's (group code, value) pairs.
    """
    reader = _DxfBlocks()
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = iter(fh)
        for code_line in lines:
            value = next(lines, "").strip()
            reader.pair(code_line.strip(), value)
    reader.end_insert()
    return {k: (v[0], v[1]) for k, v in reader.blocks.items()}, (reader.top[0], reader.top[1])


@dataclass
class _DxfBlocks:
    """A DXF's blocks tallied as its (group code, value) pairs are read: each block's and the ENTITIES
    section's (``top``) [entity count, INSERTs], the section and block being read, and the INSERT being
    read (``pending``: [name, columns, rows]).
    """

    blocks: dict[str, list] = field(default_factory=dict)
    top: list = field(default_factory=lambda: [0, []])
    section: str | None = None
    current: list | None = None
    pending: list | None = None
    expect_section_name: bool = False
    in_block_header: bool = False

    def pair(self, code: str, value: str) -> None:
        """One (group code, value) pair read."""
        if code == "0":
            self.end_insert()
            self.entity(value)
        elif code == "2" and self.expect_section_name:
            self.section, self.expect_section_name = value.upper(), False
        elif code == "2" and self.in_block_header and self.current is not None:
            self.blocks[value.upper()] = self.current
        elif self.pending is not None and code in ("2", "70", "71"):
            _read_insert_code(self.pending, code, value)

    def entity(self, value: str) -> None:
        """A group code 0: a section or block starts or ends, or an entity (counted) starts."""
        section = self.section
        if value == "SECTION":
            self.expect_section_name = True
        elif value == "ENDSEC":
            self.section, self.current = None, None
        elif section == "BLOCKS" and value == "BLOCK":
            self.current, self.in_block_header = [0, []], True
        elif section == "BLOCKS" and value == "ENDBLK":
            self.current = None
        elif section in ("BLOCKS", "ENTITIES") and (self.current is not None or section == "ENTITIES"):
            self.in_block_header = False
            target = self.current if section == "BLOCKS" else self.top
            assert target is not None  # the elif's condition
            target[0] += 1
            if value in ("INSERT", "MINSERT"):
                self.pending = ["", 1, 1]

    def end_insert(self) -> None:
        """The INSERT being read, if any, added to its block or the drawing."""
        if self.pending is not None:
            _add_insert(self.current if self.section == "BLOCKS" else self.top, self.pending)
            self.pending = None


def _read_insert_code(pending: list, code: str, value: str) -> None:
    if code == "2":
        pending[0] = value.upper()
        return
    with contextlib.suppress(ValueError):
        pending[1 if code == "70" else 2] = max(1, min(int(value), 1_000_000))


def _add_insert(target: list | None, pending: list) -> None:
    if target is not None and pending[0]:
        target[1].append((pending[0], pending[1] * pending[2]))


# ------------------------------------------------------------------------------------------ GDAL drivers


def loaded_gdal_libraries() -> list[str]:
    """The GDAL shared libraries loaded in this process (rasterio's and pyogrio's wheels each bring one)."""
    libs = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 6 and re.search(r"/libgdal[^/]*\.so", parts[-1]) and parts[-1] not in libs:
                    libs.append(parts[-1])
    except OSError:
        pass
    return libs


def prune_gdal_drivers(keep: Iterable[str] = KEEP_DRIVERS) -> dict[str, list[str]]:
    """Deregister and destroy every GDAL driver not in ``keep`` in each GDAL library loaded (and set
    GDAL_SKIP there, so a later re-registration skips them too). Returns each library's drivers left.
    """
    import ctypes

    keep = set(keep)
    left: dict[str, list[str]] = {}
    for path in loaded_gdal_libraries():
        lib = ctypes.CDLL(path)
        lib.GDALGetDriverCount.restype = ctypes.c_int
        lib.GDALGetDriver.restype = ctypes.c_void_p
        lib.GDALGetDriver.argtypes = [ctypes.c_int]
        lib.GDALGetDescription.restype = ctypes.c_char_p
        lib.GDALGetDescription.argtypes = [ctypes.c_void_p]
        lib.GDALDeregisterDriver.argtypes = [ctypes.c_void_p]
        lib.GDALDestroyDriver.argtypes = [ctypes.c_void_p]
        lib.CPLSetConfigOption.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        names = [
            lib.GDALGetDescription(lib.GDALGetDriver(i)).decode() for i in range(lib.GDALGetDriverCount())
        ]
        skip = [n for n in names if n not in keep]
        lib.CPLSetConfigOption(b"GDAL_SKIP", ",".join(skip).encode())
        for i in reversed(range(lib.GDALGetDriverCount())):
            drv = lib.GDALGetDriver(i)
            if lib.GDALGetDescription(drv).decode() not in keep:
                lib.GDALDeregisterDriver(drv)
                lib.GDALDestroyDriver(drv)
        left[Path(path).name] = sorted(
            lib.GDALGetDescription(lib.GDALGetDriver(i)).decode() for i in range(lib.GDALGetDriverCount())
        )
    return left


def _clip(text: str, n: int = 120) -> str:
    text = text.replace("\n", " ")
    return repr(text if len(text) <= n else text[:n] + "...")
