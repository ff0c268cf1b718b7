"""Output folders written atomically, and never over a folder geosite did not write.

Everything goes to a hidden temporary folder beside the target, which replaces the target only when
every file is written, with :data:`MANIFEST` (the run's manifest: geosite's version, the time, every
file with its size and sha256) inside. So:

- ``--overwrite`` replaces only a folder that holds a manifest and nothing it does not list
  (:func:`geosite_wrote`); any other existing folder is refused (exit 2), its files untouched;
- the swap of old and new output is one ``renameat2(RENAME_EXCHANGE)`` on Linux: after a kill at any
  instant, the old or the new output is at the target, never neither (elsewhere: two renames, and
  the next run to the same place puts back an old output left beside an empty target);
- temporary folders of killed runs (marked :data:`TMP_MARKER`, their process gone) are removed by the
  next run to the same place; nothing else is.

An output inside an input folder is refused, and ``--out`` is checked writable before any work.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import errno
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from geosite.errors import OutputError

#: The manifest geosite writes in every output folder (and reads before replacing one).
MANIFEST = "geosite-manifest.json"
#: The marker in a temporary folder while a run writes it: the writing process's id.
TMP_MARKER = ".geosite-tmp"


def check_output_dir(out: Path, inputs: Sequence[Path], overwrite: bool, container: bool = False) -> Path:
    """Refuse, before any work, an output that exists (without ``overwrite``, or that geosite did not
    write), that lies inside (or is) an input, or whose place cannot be written. A ``container``
    (batch's OUT, holding one folder per site) may exist: each site folder in it is guarded on its own."""
    out = Path(out).resolve()
    for inp in inputs:
        inp = Path(inp).resolve()
        if out == inp or out.is_relative_to(inp) or (inp.is_dir() and inp.is_relative_to(out)):
            raise OutputError(f"output folder {out} overlaps the input {inp}; choose an --out outside the inputs")
    if out.exists() and not out.is_dir():
        raise OutputError(f"output {out} exists and is not a folder")
    if out.exists() and not container:
        if not overwrite:
            raise OutputError(f"output folder {out} exists; pass --overwrite to replace it")
        refuse_foreign(out)
    probe_writable(out / ".geosite-probe" if container and out.exists() else out)
    return out


def probe_writable(out: Path) -> None:
    """Refuse an output whose nearest existing parent folder cannot take a new folder (read-only, not
    a folder, no permission): found now, not after the whole analysis."""
    parent = Path(out).parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    try:
        Path(tempfile.mkdtemp(prefix=".geosite-probe-", dir=parent)).rmdir()
    except OSError as exc:
        raise OutputError(f"output folder {out}: cannot be written in {parent} ({exc.strerror or exc}); "
                          "choose another --out") from exc


def geosite_wrote(folder: Path) -> tuple[bool, str]:
    """Whether ``folder`` is an output geosite wrote: it holds a readable :data:`MANIFEST` and no entry
    the manifest does not list. Returns (yes, why not)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        listed = set(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return False, f"it has no {MANIFEST} (geosite writes one in every output folder)"
    extra = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.name != MANIFEST and (p.is_file() or p.is_symlink() or not p.is_dir())
                   and p.relative_to(folder).as_posix() not in listed)
    if extra:
        return False, f"it holds files geosite did not write ({', '.join(extra[:5])}{' ...' if len(extra) > 5 else ''})"
    return True, ""


def refuse_foreign(folder: Path) -> None:
    """:class:`~geosite.errors.OutputError` unless geosite wrote ``folder`` (:func:`geosite_wrote`)."""
    ok, why = geosite_wrote(folder)
    if not ok:
        raise OutputError(f"output folder {folder} exists and geosite did not write it: {why}; "
                          "--overwrite replaces only geosite's own outputs: choose another --out or move it")


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read a megabyte at a time."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(folder: Path, **extra: Any) -> Path:
    """Write :data:`MANIFEST` in ``folder``: geosite's version, the time, the command line, and every
    file (relative path -> size and sha256)."""
    from geosite import __version__

    files = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name not in (MANIFEST, TMP_MARKER):
            files[p.relative_to(folder).as_posix()] = {"bytes": p.stat().st_size, "sha256": file_sha256(p)}
    manifest = {"generator": "geosite", "geosite_version": __version__,
                "written": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "argv": sys.argv[1:], **extra, "files": files}
    path = folder / MANIFEST
    path.write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(out: Path) -> list[Path]:
    """Remove the temporary folders that killed runs left beside ``out`` (``.NAME.tmp-*`` /
    ``.NAME.old-*`` holding :data:`TMP_MARKER` or a manifest, their writer's process gone), and put
    back an old output left beside a missing ``out`` (a kill between two plain renames). Returns what
    was removed."""
    out = Path(out)
    removed: list[Path] = []
    if not out.parent.is_dir():
        return removed
    for p in sorted(out.parent.glob(f".{out.name}.*-*")):
        kind = p.name[len(out.name) + 2:].split("-", 1)[0]
        if kind not in ("tmp", "old") or not p.is_dir() or p.is_symlink():
            continue
        try:
            pid = int((p / TMP_MARKER).read_text().split()[0]) if (p / TMP_MARKER).exists() else None
        except (OSError, ValueError, IndexError):
            pid = None
        if pid is None:  # the writer's pid is in the name too (a run killed writing its marker, or removing)
            named = re.fullmatch(r"(?:tmp|old)-(\d+)(?:-.*)?", p.name[len(out.name) + 2:])
            pid = int(named.group(1)) if named else None
        ours = pid is not None or (p / MANIFEST).is_file()
        if not ours:
            if not any(p.iterdir()):
                p.rmdir()  # killed between creating it and marking it: empty, nothing lost
            continue
        if pid is not None and pid != os.getpid() and _alive(pid):
            continue  # another run is writing it
        if kind == "old" and not out.exists() and geosite_wrote(p)[0]:
            os.rename(p, out)  # the old output, put back where it was
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 RENAME_EXCHANGE); False where it is not supported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(-100, os.fsencode(a), -100, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(a))


def swap_in(new: Path, out: Path) -> None:
    """Make the complete folder ``new`` the folder ``out``: a rename when ``out`` does not exist, else an
    atomic exchange and the old one removed (two renames where the exchange is not supported)."""
    if not out.exists():
        os.rename(new, out)
        return
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if _exchange(new, out):
        # ``new`` now holds the old output: renamed to carry this run's pid, so a kill while removing it
        # leaves a folder the next run knows for a dead run's and removes
        os.rename(new, old)
        shutil.rmtree(old, ignore_errors=True)
        return
    (new / TMP_MARKER).unlink(missing_ok=True)
    os.rename(out, old)
    os.rename(new, out)
    shutil.rmtree(old, ignore_errors=True)


@contextmanager
def atomic_dir(out: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary folder; on success it gets the run's manifest and becomes ``out`` (replacing
    it only with ``overwrite`` and only when geosite wrote it). Stale temporaries of killed runs to
    the same place are removed first."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(out)
    if out.exists() and not overwrite:
        raise OutputError(f"output folder {out} exists; pass --overwrite to replace it")
    if out.exists():
        refuse_foreign(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{os.getpid()}-", dir=out.parent))
    (tmp / TMP_MARKER).write_text(f"{os.getpid()}\n", encoding="utf-8")
    try:
        yield tmp
        write_manifest(tmp)
        (tmp / TMP_MARKER).unlink()
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if out.exists() and not overwrite:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"output folder {out} exists; pass --overwrite to replace it")
    swap_in(tmp, out)


def write_json(path: Path, data: Any) -> None:
    """JSON with NaN and infinities written as null (JSON has no NaN)."""
    path.write_text(json.dumps(finite(data), indent=2, default=_json_default, allow_nan=False) + "\n", encoding="utf-8")


def py_scalar(v: Any) -> Any:
    """A numpy scalar (an id or value read from a GeoDataFrame) as the plain Python value; anything
    else unchanged."""
    return v.item() if hasattr(v, "item") else v


def finite(obj: Any) -> Any:
    """``obj`` (dicts, lists, numbers) with NaN and infinities as None, numpy scalars as Python ones:
    what JSON can hold."""
    import math

    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    if hasattr(obj, "dtype") and getattr(obj, "shape", None) == ():
        return finite(obj.item())
    return obj


def _json_default(obj: Any) -> Any:
    import datetime as dt

    import numpy as np

    if isinstance(obj, dt.date):
        return obj.isoformat()
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def write_gpkg(path: Path, layers: dict[str, Any]) -> list[str]:
    """Write GeoDataFrames as layers of one GeoPackage, each with one declared geometry type; empty
    layers are skipped. Returns layer names."""
    written = []
    for name, gdf in layers.items():
        if gdf is None or len(gdf) == 0:
            continue
        # one declared geometry type per layer: Polygon and MultiPolygon together are written as
        # MultiPolygon (likewise lines and points), never as GEOMETRY ("Unknown")
        types = set(gdf.geom_type.dropna())
        multi = len(types) > 1 and len({t.removeprefix("Multi") for t in types}) == 1
        gdf.to_file(path, layer=name, driver="GPKG", engine="pyogrio", promote_to_multi=multi or None)
        written.append(name)
    return written
