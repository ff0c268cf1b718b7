"""A site's inputs as one digest (inputs.sha256 in its output folder): every file the site folder holds and
every file its site.toml names outside it (a DEM read in place, a VRT's sources), bounded in count and
size, so a batch re-run skips a site whose inputs and options are unchanged.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite.scale.batch_options import BatchOptions

if TYPE_CHECKING:
    pass


#: The marker written in every site output folder: the hash of the inputs that produced it.
MARKER = "inputs.sha256"


def _file_entry(path: Path, label: str) -> str:
    st = path.stat()
    return f"{label}\t{st.st_size}\t{st.st_mtime_ns}"


def inputs_hash(site_dir: str | Path, options: BatchOptions | None = None) -> tuple[str, list[str]]:
    """The hash of everything a site's results depend on, and the lines it was computed from.

    site.toml by content; every other file in the site folder (recursively, hidden files excepted) by
    relative path, size and mtime; the files site.toml points at outside the folder (DEM, layers) and
    the source tiles of a VRT DEM by resolved path, size and mtime; the result-changing options;
    geosite's version.
    """
    from geosite._version import __version__

    root = Path(site_dir).resolve()
    options = options or BatchOptions()
    lines = [f"geosite\t{__version__}", f"options\t{sorted(options.result_key().items())!r}"]
    toml = root / "site.toml"
    outside: list[Path] = []
    if toml.is_file():
        data = toml.read_bytes()
        lines.append(f"site.toml\tsha256:{hashlib.sha256(data).hexdigest()}")
        outside = _referenced_outside(root, data)
    inside = []
    for path in _files_in(root, options.limits):
        rel = path.relative_to(root)
        if rel != Path("site.toml") and not any(p.startswith(".") for p in rel.parts):
            lines.append(_file_entry(path, rel.as_posix()))
            inside.append(path)
    # a VRT mosaic's tiles (the VRT itself may not change when a tile is replaced)
    for vrt in [p for p in inside + outside if p.suffix.lower() == ".vrt"]:
        outside.extend(_vrt_sources(vrt))
    for path in dict.fromkeys(p for p in outside if p.is_file() and not p.is_relative_to(root)):
        lines.append(_file_entry(path, f"file:{path}"))
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    return digest, lines


def _files_in(root: Path, limits: Any = None) -> list[Path]:
    """The regular files under ``root`` (links not followed), sorted; an InputError past the entries and
    depth a submission may hold (geosite.io.stage's limits: the walk is bounded before anything is read).
    """
    from geosite.errors import InputError
    from geosite.io.limits import Limits
    from geosite.io.stage import MAX_DEPTH
    from geosite.io.text import one_line

    limits = limits or Limits()
    room = limits.max_staged_files + limits.max_staged_folders
    files: list[Path] = []
    seen = 0
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"{one_line(folder)}: folders nested deeper than {MAX_DEPTH}; refused")
        try:
            entries = list(_bounded(os.scandir(folder), room - seen, root))
        except OSError as exc:
            raise InputError(f"{one_line(folder)}: cannot be listed ({exc.strerror})") from exc
        seen += len(entries)
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                stack.append((Path(e.path), depth + 1))
            elif e.is_file():  # a consultant's linked DEM counts by the file it names
                files.append(Path(e.path))
    return sorted(files)


def _bounded(it: Any, room: int, root: Path) -> Iterator[os.DirEntry]:
    """The entries of a ``scandir`` iterator, at most ``room`` (an InputError past it); closed after."""
    from geosite.errors import InputError
    from geosite.io.text import one_line

    with it:
        for n, e in enumerate(it, 1):
            if n > room:
                raise InputError(
                    f"{one_line(root)}: more files and folders than a site may hold (max_staged_files + "
                    "max_staged_folders); refused. Raise with --limit max_staged_files=N"
                )
            yield e


def _referenced_outside(root: Path, toml_bytes: bytes) -> list[Path]:
    """Files site.toml points at ([dem] path, [layers] paths, maybe ``file:layer``), resolved."""
    try:
        conf = tomllib.loads(toml_bytes.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    values = [(conf.get("dem") or {}).get("path")] if isinstance(conf.get("dem"), dict) else []
    layers: dict[str, Any] = conf["layers"] if isinstance(conf.get("layers"), dict) else {}
    values += [v for k, v in layers.items() if k != "names"]
    out = []
    for v in values:
        if isinstance(v, str) and v:
            p = (root / v).resolve()
            if not p.exists() and ":" in v:
                p = (root / v.rsplit(":", 1)[0]).resolve()
            out.append(p)
    return out


def _vrt_sources(vrt: Path) -> list[Path]:
    """The source files of a VRT (relative ones resolved against it)."""
    import xml.etree.ElementTree as ET

    try:
        tree = ET.parse(vrt)
    except (ET.ParseError, OSError):
        return []
    out = []
    for el in tree.iter("SourceFilename"):
        if el.text:
            p = Path(el.text)
            out.append(((vrt.parent / p) if el.get("relativeToVRT") == "1" else p).resolve())
    return out


def read_marker(folder: Path) -> str | None:
    """The hash recorded in ``folder/inputs.sha256`` (its first line), or None."""
    try:
        return (folder / MARKER).read_text(encoding="utf-8").split("\n", 1)[0].strip() or None
    except OSError:
        return None
