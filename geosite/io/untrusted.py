"""Opening files that someone else made (an applicant's submission) without letting them reach further.

A submission may hold symbolic links, FIFOs, device files, ``..`` and absolute paths, URLs, GDAL
virtual paths (``/vsicurl/``) and VRTs whose sources are elsewhere. Before GDAL sees a file:

- :func:`inside` turns a path written in site.toml into a real path inside the site folder (symbolic
  links resolved first), or refuses it without looking at what it points to, so the message cannot
  tell whether an outside file exists;
- :func:`regular_file` refuses FIFOs, devices, sockets and folders, and side files (``dem.tif.ovr``,
  ``roads.dbf``) that are links out of the folder or special files, since GDAL opens those too;
- :func:`raster_format` / :func:`vector_format` tell the format from the file's first bytes (GDAL
  picks its driver by content, not by name) and accept only the formats geosite reads; a VRT's
  sources are checked the same way, recursively (the raster VRT's ``SourceFilename``, the OGR VRT's
  ``SrcDataSource``);
- :func:`set_policy` lets ``geosite check``'s sandbox (geosite.io.allowlist) narrow the formats a
  submission may use and inspect each file before GDAL opens it;
- :func:`offline` is the GDAL configuration every read runs under: no /vsicurl/-family file opens,
  no schema downloads, no Python pixel functions, no SQLite virtual tables on outside files, no
  directory listings, and PROJ's network off, for rasterio's GDAL and pyogrio's (two libraries).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from geosite.errors import MissingInputError, UnsafeInputError

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

#: GDAL configuration while reading any input: nothing is fetched over a network.
OFFLINE_GDAL: dict[str, str] = {
    # /vsicurl/, /vsicurl_streaming/, /vsis3/, /vsigs/, /vsiaz/ ... open only names with this extension
    "CPL_VSIL_CURL_ALLOWED_EXTENSIONS": ".geosite-offline-no-network",
    "GDAL_HTTP_MAX_RETRY": "0",
    "GDAL_HTTP_TIMEOUT": "1",
    "GDAL_HTTP_CONNECTTIMEOUT": "1",
    "GDAL_DISABLE_READDIR_ON_OPEN": "EMPTY_DIR",
    "GDAL_VRT_ENABLE_PYTHON": "NO",
    "OGR_SQLITE_ALLOW_EXTERNAL_ACCESS": "NO",
    "GML_DOWNLOAD_SCHEMA": "NO",
    "GML_DOWNLOAD_WFS_SCHEMA": "NO",
    "GML_SKIP_RESOLVE_ELEMS": "ALL",
    "CPL_ALLOW_VSISTDIN": "NO",
}

#: URL schemes and GDAL connection prefixes ("http://", "PG:", "WFS:"), and GDAL's virtual file systems.
_REMOTE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.\-]*://|[A-Za-z][A-Za-z0-9_]+:|[\\/]vsi)")
#: How deep VRTs may nest (a VRT of VRTs); deeper, or a cycle, is refused.
MAX_VRT_DEPTH = 8
#: The largest VRT / XML file geosite parses (a VRT is a few KB per source).
MAX_XML_BYTES = 16_000_000

RASTER_FORMATS = ("GTiff", "VRT", "AAIGrid")
VECTOR_FORMATS = ("GPKG", "ESRI Shapefile", "GeoJSON", "DXF", "FlatGeobuf", "KML", "GML", "OGR_VRT")

#: Called as ``policy(path, driver, what)`` for every file of a submission (a file checked with a
#: ``root``) once its format is known and before GDAL opens it; raises to refuse. None: no policy.
Policy = Callable[[Path, str, str], None]
_policy: Policy | None = None


def set_policy(policy: Policy | None) -> None:
    """Install (or with None remove) the check every submission file passes before GDAL opens it: the
    sandboxed ``check`` installs geosite.io.allowlist's in its child process.
    """
    global _policy
    _policy = policy


def policy_active() -> bool:
    """Whether a submission policy is installed (the sandboxed ``check``'s child)."""
    return _policy is not None


def _apply_policy(path: Path, driver: str, what: str, root: Path | None) -> str:
    if _policy is not None and root is not None:
        _policy(path, driver, what)
    return driver


def inside(root: str | Path, text: str | Path, what: str) -> Path:
    """The real path of ``text`` (relative to ``root``, as written in site.toml) when it lies inside
    ``root`` after resolving symbolic links; else :class:`~geosite.errors.UnsafeInputError`.

    ``what`` names the setting in the message (``"[dem] path"``). Nothing outside ``root`` is looked
    at: the message is the same whether the outside file exists or not.
    """
    raw = refuse_remote(text, what)
    if Path(raw).is_absolute() or _windows_absolute(raw):
        raise UnsafeInputError(
            f"{what} = {raw!r}: an absolute path; a submission may name only files inside its own folder, "
            "by a path relative to it"
        )
    return _contained(Path(root), Path(root) / raw, f"{what} = {raw!r}")


def refuse_remote(text: str | Path, what: str) -> str:
    """``text`` unless it is a URL, a GDAL connection string (``PG:``, ``WFS:``) or a GDAL virtual path
    (``/vsicurl/``, ``/vsizip/``): those are :class:`~geosite.errors.UnsafeInputError`.
    """
    raw = str(text)
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise UnsafeInputError(f"{what} = {raw!r}: a path holding a NUL or control character; refused")
    if _REMOTE.search(raw):
        raise UnsafeInputError(
            f"{what} = {raw!r}: a URL, connection string or GDAL virtual path; a site may name only local "
            "files (geosite never fetches or opens remote data for it)"
        )
    return raw


def _contained(root: Path, target: Path, where: str) -> Path:
    base = root.resolve()
    try:
        real = target.resolve()
    except (OSError, RuntimeError) as exc:  # a symbolic link loop
        raise UnsafeInputError(f"{where}: cannot be resolved ({type(exc).__name__}); refused") from exc
    if not real.is_relative_to(base):
        raise UnsafeInputError(
            f"{where}: leads outside the submission folder (through '..', an absolute path or a "
            "symbolic link); refused without looking at what it points to"
        )
    return real


def _windows_absolute(text: str) -> bool:
    return (
        len(text) > 2 and text[1] == ":" and text[0].isalpha() and text[2] in "\\/" or text.startswith("\\\\")
    )


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe): reading it could wait forever"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    return "not a regular file"


def regular_file(path: Path, what: str, root: Path | None = None) -> Path:
    """``path`` when it is a regular file (and, with ``root``, so are its side files, inside ``root``):
    a FIFO, device, socket or folder is :class:`~geosite.errors.UnsafeInputError`; no file at all is
    :class:`~geosite.errors.MissingInputError`. Side files are the entries beside it whose names
    start with its stem and a dot (``roads.dbf``, ``dem.tif.aux.xml``, ``layers.gpkg-wal``).
    """
    try:
        st = os.stat(path)
    except FileNotFoundError as exc:
        raise MissingInputError(f"{what} {path}: file not found") from exc
    except OSError as exc:
        raise UnsafeInputError(f"{what} {path}: cannot be examined ({exc.strerror})") from exc
    kind = _kind(st.st_mode)
    if kind:
        raise UnsafeInputError(f"{what} {path}: {kind}; refused")
    if root is not None:
        base = Path(root).resolve()
        for e in _side_files(path):
            _check_side_file(path, e, what, base)
    return path


def _side_files(path: Path) -> list[os.DirEntry]:
    """The entries beside ``path`` whose names start with its stem and a dot, or with its name (none
    when its folder cannot be listed).
    """
    stem = path.name.split(".", 1)[0]
    try:
        return [
            e
            for e in os.scandir(path.parent)
            if e.name != path.name and (e.name.startswith(stem + ".") or e.name.startswith(path.name))
        ]
    except OSError:
        return []


def _check_side_file(path: Path, e: os.DirEntry, what: str, base: Path) -> None:
    """UnsafeInputError when side file ``e`` of ``path`` cannot be resolved, leads out of ``base``, or
    is a FIFO, device or socket (GDAL would read it with the file).
    """
    side = Path(e.path)
    try:
        real = side.resolve()
    except (OSError, RuntimeError):
        raise UnsafeInputError(f"{what} {path}: its side file {e.name} cannot be resolved; refused") from None
    if not real.is_relative_to(base):
        raise UnsafeInputError(
            f"{what} {path}: its side file {e.name} is a link out of the submission folder "
            "(GDAL would read it with the file); refused"
        )
    try:
        skind = _kind(os.stat(real).st_mode)
    except OSError:
        return  # a dangling link inside the folder: GDAL finds nothing there either
    if skind and skind != "a folder, not a file":
        raise UnsafeInputError(f"{what} {path}: its side file {e.name} is {skind}; refused")


def _head(path: Path, n: int = 4096) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(n)


def _xml_root(head: bytes) -> str | None:
    """The local name of the first element of an XML text, or None when it is not XML."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"<"):
        return None
    m = re.search(rb"<(?![?!])([A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)", text)
    return m.group(2).decode("ascii") if m else None


def raster_format(
    path: Path, what: str, root: Path | None = None, _depth: int = 0, _seen: frozenset[Path] = frozenset()
) -> str:
    """The GDAL driver geosite lets open ``path``: GTiff (GeoTIFF, COG, BigTIFF), VRT (its sources
    checked: regular files, inside ``root`` when given, themselves of these formats) or AAIGrid.
    Anything else is :class:`~geosite.errors.UnsafeInputError`.
    """
    regular_file(path, what, root)
    head = _head(path)
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return _apply_policy(path, "GTiff", what, root)
    if head.lstrip()[:5].lower() == b"ncols":
        return _apply_policy(path, "AAIGrid", what, root)
    if _xml_root(head) == "VRTDataset":
        _apply_policy(path, "VRT", what, root)
        _check_vrt(path, what, root, "raster", _depth, seen=_seen)
        return "VRT"
    raise UnsafeInputError(
        f"{what} {path}: cannot be read as a raster: not a GeoTIFF, VRT or ASCII grid (by its content); "
        "geosite reads "
        "only those raster formats from a submission"
    )


def vector_format(
    path: Path, what: str, root: Path | None = None, _depth: int = 0, _seen: frozenset[Path] = frozenset()
) -> str:
    """The format of a vector file by its content (GPKG, shapefile, GeoJSON, DXF, FlatGeobuf, KML, GML,
    or an OGR VRT whose sources are checked like :func:`raster_format`'s); anything else is
    :class:`~geosite.errors.UnsafeInputError`.
    """
    regular_file(path, what, root)
    head = _head(path)
    driver = _vector_driver(head)
    if driver is not None:
        _apply_policy(path, driver, what, root)
    if driver == "OGR_VRT":
        _check_vrt(path, what, root, "vector", _depth, seen=_seen)
    if driver is not None:
        return driver
    raise UnsafeInputError(
        f"{what} {path}: cannot be read as a vector file: not a GeoPackage, shapefile, GeoJSON, DXF, "
        "FlatGeobuf, KML or GML "
        "file (by its content); geosite reads only those vector formats from a submission"
    )


def _vector_driver(head: bytes) -> str | None:
    """The vector driver for a file starting with ``head``, of those geosite reads; None for another."""
    if head.startswith(b"SQLite format 3\x00"):
        return "GPKG"
    if head[:4] == b"\x00\x00\x27\x0a":
        return "ESRI Shapefile"
    if head[:3] == b"fgb":
        return "FlatGeobuf"
    if head.startswith(b"AutoCAD Binary DXF"):
        return "DXF"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] in (b"{", b"["):
        return "GeoJSON"
    if re.match(rb"0\s*\r?\n\s*SECTION", stripped) or re.match(rb"999\s*\r?\n", stripped):
        return "DXF"
    root_el = _xml_root(head)
    if root_el == "OGRVRTDataSource":
        return "OGR_VRT"
    if root_el == "kml":
        return "KML"
    if root_el is not None and b"opengis.net/gml" in head:
        return "GML"
    return None


def _check_vrt(
    path: Path, what: str, root: Path | None, kind: str, depth: int, *, seen: frozenset[Path]
) -> None:
    """Every source of a raster or OGR VRT: a local file (inside ``root`` when given) of an accepted
    format; no Python pixel functions; no nesting deeper than :data:`MAX_VRT_DEPTH` or in a cycle.
    """
    import xml.etree.ElementTree as ET

    real = path.resolve()
    if depth >= MAX_VRT_DEPTH or real in seen:
        raise UnsafeInputError(
            f"{what} {path}: VRTs nested deeper than {MAX_VRT_DEPTH} or in a cycle; refused"
        )
    if path.stat().st_size > MAX_XML_BYTES:
        raise UnsafeInputError(f"{what} {path}: a VRT over {MAX_XML_BYTES:,} bytes; refused")
    try:
        tree = ET.parse(path)  # expat: entity expansion is bounded (CPython >= 3.11 ships expat >= 2.4)
    except (ET.ParseError, OSError) as exc:
        raise UnsafeInputError(f"{what} {path}: a VRT that is not valid XML ({exc}); refused") from exc
    tags = ("SourceFilename",) if kind == "raster" else ("SrcDataSource",)
    for el in tree.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        _refuse_vrt_code(el, tag, f"{what} {path}", kind)
        if tag not in tags:
            continue
        target = _vrt_source(el, path, what, root)
        sub_what = f"{what} (VRT source of {path.name})"
        if kind == "raster":
            raster_format(target, sub_what, root, depth + 1, seen | {real})
        else:
            vector_format(target, sub_what, root, depth + 1, seen | {real})


def _refuse_vrt_code(el: Element, tag: str, where: str, kind: str) -> None:
    """UnsafeInputError when a VRT's element ``el`` (its ``tag``) runs code: a Python pixel function, or
    an OGR VRT's SQL attaching databases or loading extensions.
    """
    if tag == "PixelFunctionLanguage" and (el.text or "").strip().lower() == "python":
        raise UnsafeInputError(
            f"{where}: a VRT with a Python pixel function; refused (geosite runs no code from its inputs)"
        )
    if (
        tag in ("SrcSQL",)
        and kind == "vector"
        and re.search(r"(?i)\b(attach|load_extension)\b", el.text or "")
    ):
        raise UnsafeInputError(
            f"{where}: an OGR VRT whose SQL attaches databases or loads extensions; refused"
        )


def _vrt_source(el: Element, path: Path, what: str, root: Path | None) -> Path:
    """The file a VRT source element names (relative to the VRT, or to the working folder as GDAL
    resolves it), inside ``root`` when given; a URL, connection string or GDAL virtual path is refused.
    """
    src = (el.text or "").strip()
    relative = el.get("relativeToVRT", el.get("relativetoVRT", "0")) == "1"
    where = f"{what} {path}: VRT source {src!r}"
    if not src or _REMOTE.search(src):
        raise UnsafeInputError(f"{where} is a URL, connection string or GDAL virtual path; refused")
    if relative:
        if Path(src).is_absolute():
            raise UnsafeInputError(f"{where}: an absolute path marked relative; refused")
        target = path.parent / src
    else:
        target = Path(src)
        if not target.is_absolute():
            target = Path.cwd() / target  # GDAL resolves it against the working folder
    if root is not None:
        target = _contained(Path(root), target, where)
    return target


@contextmanager
def offline() -> Iterator[None]:
    """Run the block with :data:`OFFLINE_GDAL` set in rasterio's GDAL and pyogrio's, and PROJ's network
    off; the previous settings are restored after.
    """
    import pyogrio
    import rasterio
    from pyproj import network

    old = {k: pyogrio.get_gdal_config_option(k) for k in OFFLINE_GDAL}
    net = network.is_network_enabled()
    pyogrio.set_gdal_config_options(OFFLINE_GDAL)
    network.set_network_enabled(False)
    try:
        with rasterio.Env(**OFFLINE_GDAL):
            yield
    finally:
        pyogrio.set_gdal_config_options(old)
        network.set_network_enabled(net)
