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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geosite.errors import OutputError
from geosite.io.text import json_text
from geosite.verdict import Verdict

#: The manifest geosite writes in every output folder (and reads before replacing one).
MANIFEST = "geosite-manifest.json"
#: The marker in a temporary folder while a run writes it: the writing process's id.
TMP_MARKER = ".geosite-tmp"


def check_output_dir(out: Path, inputs: Sequence[Path], overwrite: bool, container: bool = False) -> Path:
    """Refuse, before any work, an output that exists (without ``overwrite``, or that geosite did not
    write), that lies inside (or is) an input, or whose place cannot be written. A ``container``
    (batch's OUT, holding one folder per site) may exist: each site folder in it is guarded on its own.
    """
    out = Path(out).resolve()
    for inp in inputs:
        inp = Path(inp).resolve()
        if out == inp or out.is_relative_to(inp) or (inp.is_dir() and inp.is_relative_to(out)):
            raise OutputError(
                f"output folder {out} overlaps the input {inp}; choose an --out outside the inputs"
            )
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
    a folder, no permission): found now, not after the whole analysis.
    """
    parent = Path(out).parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    try:
        Path(tempfile.mkdtemp(prefix=".geosite-probe-", dir=parent)).rmdir()
    except OSError as exc:
        raise OutputError(
            f"output folder {out}: cannot be written in {parent} ({exc.strerror or exc}); "
            "choose another --out"
        ) from exc


def geosite_wrote(folder: Path) -> Verdict:
    """Whether ``folder`` is an output geosite wrote: it holds a readable :data:`MANIFEST` and no entry
    the manifest does not list. A :class:`~geosite.verdict.Verdict`, never undecided: yes (``why`` empty),
    or no and why not.
    """
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        listed = set(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return Verdict(False, f"it has no {MANIFEST} (geosite writes one in every output folder)")
    extra = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.name != MANIFEST
        and (p.is_file() or p.is_symlink() or not p.is_dir())
        and p.relative_to(folder).as_posix() not in listed
    )
    if extra:
        return Verdict(
            False,
            "it holds files geosite did not write "
            f"({', '.join(extra[:5])}{' ...' if len(extra) > 5 else ''})",
        )
    return Verdict(True, "")


def refuse_foreign(folder: Path) -> None:
    """:class:`~geosite.errors.OutputError` unless geosite wrote ``folder`` (:func:`geosite_wrote`)."""
    ours = geosite_wrote(folder)
    if not ours:
        raise OutputError(
            f"output folder {folder} exists and geosite did not write it: {ours.why}; "
            "--overwrite replaces only geosite's own outputs: choose another --out or move it"
        )


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read a megabyte at a time."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(folder: Path, **extra: Any) -> Path:
    """Write :data:`MANIFEST` in ``folder``: geosite's version, the time, the command line, and every
    file (relative path -> size and sha256).
    """
    from geosite._version import __version__

    files = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name not in (MANIFEST, TMP_MARKER):
            files[p.relative_to(folder).as_posix()] = {"bytes": p.stat().st_size, "sha256": file_sha256(p)}
    manifest = {
        "generator": "geosite",
        "geosite_version": __version__,
        "written": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "argv": sys.argv[1:],
        **extra,
        "files": files,
    }
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
    was removed.
    """
    out = Path(out)
    removed: list[Path] = []
    if not out.parent.is_dir():
        return removed
    for p in sorted(out.parent.glob(f".{out.name}.*-*")):
        kind = p.name[len(out.name) + 2 :].split("-", 1)[0]
        if kind not in ("tmp", "old") or not p.is_dir() or p.is_symlink():
            continue
        try:
            pid = int((p / TMP_MARKER).read_text().split()[0]) if (p / TMP_MARKER).exists() else None
        except (OSError, ValueError, IndexError):
            pid = None
        if pid is None:  # the writer's pid is in the name too (a run killed writing its marker, or removing)
            named = re.fullmatch(r"(?:tmp|old)-(\d+)(?:-.*)?", p.name[len(out.name) + 2 :])
            pid = int(named.group(1)) if named else None
        ours = pid is not None or (p / MANIFEST).is_file()
        if not ours:
            if not any(p.iterdir()):
                p.rmdir()  # killed between creating it and marking it: empty, nothing lost
            continue
        if pid is not None and pid != os.getpid() and _alive(pid):
            continue  # another run is writing it
        if kind == "old" and not out.exists() and geosite_wrote(p):
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
    atomic exchange and the old one removed (two renames where the exchange is not supported).
    """
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


def current_umask() -> int:
    """The process's file mode creation mask (read from /proc where it is shown, so no other thread sees
    a changed mask; elsewhere set and restored at once).
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_dir(out: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary folder; on success it gets the run's manifest and becomes ``out`` (replacing
    it only with ``overwrite`` and only when geosite wrote it). Stale temporaries of killed runs to
    the same place are removed first.
    """
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
        tmp.chmod(0o777 & ~current_umask())  # mkdtemp's folder is the owner's only; the output is the user's
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if out.exists() and not overwrite:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"output folder {out} exists; pass --overwrite to replace it")
    swap_in(tmp, out)


def write_json(path: Path, data: Any) -> None:
    """JSON with NaN and infinities written as null (JSON has no NaN)."""
    path.write_text(
        json.dumps(finite(data), indent=2, default=_json_default, allow_nan=False) + "\n", encoding="utf-8"
    )


def py_scalar(v: Any) -> Any:
    """A numpy scalar (an id or value read from a GeoDataFrame) as the plain Python value; anything
    else unchanged.
    """
    return v.item() if hasattr(v, "item") else v


def finite(obj: Any) -> Any:
    """``obj`` (dicts, lists, numbers) with NaN and infinities as None, numpy scalars as Python ones:
    what JSON can hold.
    """
    import math

    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, str):
        return json_text(obj)  # a submission's text: bytes that are not UTF-8 written as \\xNN
    if isinstance(obj, dict):
        return {json_text(k) if isinstance(k, str) else k: finite(v) for k, v in obj.items()}
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


# ------------------------------------------------------------------------------------------- GeoPackage

#: The GeoPackage version written. GDAL 3.6 (Debian 12's ``ogrinfo``, QGIS 3.22) warns that a 1.4 file
#: "may only be partially supported"; nothing geosite writes needs more than 1.2.
GPKG_VERSION = "1.2"
#: Columns written as dates (GPKG ``DATE``) in any layer: the ISO dates of phases and practices.
DATE_COLUMNS = frozenset({"start", "end", "install", "remove", "stabilized"})


@dataclass(frozen=True)
class LayerSchema:
    """A layer's declared geometry type (an OGR name such as ``MultiPolygon``; None for a table without
    geometry) and the fields it always has, as (name, type) with type ``str``, ``float``, ``int``,
    ``bool`` or ``date``. Columns beyond these are written after them, typed from their values.
    """

    geometry: str | None
    fields: tuple[tuple[str, str], ...] = ()


_AREA = (("area_sqft", "float"), ("area_acres", "float"))
_REQ = (("required", "bool"),)
#: derived.gpkg's layers of the site and the analysis, every layer always written (empty when a site has
#: nothing for it), in README's order; the practices' layers follow, each declared by its practice
#: (geosite.views.layers.derived_schema). ``Multi*`` wherever a feature can have several parts; steep slopes
#: and the points are single by construction (:func:`geosite.terrain.steep.polygon_parts` explodes them).
DERIVED_SCHEMA: dict[str, LayerSchema] = {
    "site_boundary": LayerSchema("MultiPolygon", (("id", "int"),)),
    "disturbed_area": LayerSchema("MultiPolygon", _AREA),
    "disturbance_phases": LayerSchema(
        "MultiPolygon", (("phase", "str"), ("start", "date"), ("end", "date"), *_AREA)
    ),
    "steep_slopes": LayerSchema(
        "Polygon", (("class", "str"), ("min_slope_pct", "float"), ("area_sqft", "float"))
    ),
    "contours": LayerSchema("MultiLineString", (("elevation_ft", "float"), ("index", "bool"))),
    "channels": LayerSchema(
        "MultiLineString",
        (
            ("contrib_area_sqft", "float"),
            ("starts_at_head", "bool"),
            ("head_x", "float"),
            ("head_y", "float"),
        ),
    ),
    "upslope_areas": LayerSchema(
        "MultiPolygon",
        (
            ("disturbance_id", "int"),
            ("area_sqft", "float"),
            ("area_d8_sqft", "float"),
            ("sheetflow_area_sqft", "float"),
            ("channelized", "bool"),
            ("mean_slope_pct", "float"),
            ("flow_length_ft", "float"),
            ("land_cover", "str"),
            ("velocity_fps", "float"),
        ),
    ),
    "upslope_entry_points": LayerSchema(
        "Point",
        (
            ("disturbance_id", "int"),
            ("contrib_area_sqft", "float"),
            ("flow_length_ft", "float"),
            ("channelized", "bool"),
        ),
    ),
}
_FINDING_FIELDS = tuple(
    (c, "str")
    for c in ("finding_id", "rule", "citation", "section", "status", "message", "layer", "feature_ids")
)
#: findings.gpkg's findings, one layer per geometry family and a table for those without a place.
FINDINGS_SCHEMA: dict[str, LayerSchema] = {
    "findings": LayerSchema(None, _FINDING_FIELDS),
    "findings_points": LayerSchema("MultiPoint", _FINDING_FIELDS),
    "findings_lines": LayerSchema("MultiLineString", _FINDING_FIELDS),
    "findings_polygons": LayerSchema("MultiPolygon", _FINDING_FIELDS),
}
_DIM = {"Point": 0, "LineString": 1, "LinearRing": 1, "Polygon": 2}


def write_gpkg(
    path: Path,
    layers: dict[str, Any],
    *,
    schema: dict[str, LayerSchema] | None = None,
    styles: dict[str, Any] | None = None,
) -> list[str]:
    """Write GeoDataFrames as the layers of one GeoPackage (version :data:`GPKG_VERSION`), each with its
    declared geometry type and fields.

    Parameters
    ----------
    path : Path
        The GeoPackage to create (it must not exist).
    layers : dict of str to GeoDataFrame or None
        Layer name -> GeoDataFrame (or None); coordinates in the CRS's unit, written as they are.
    schema : dict of str to LayerSchema, optional
        The fixed schema (derived.gpkg's, geosite.views.layers.derived_schema, by default): every layer it
        names is written, empty when
        ``layers`` has nothing for it; a layer it does not name is written with its parts' geometry
        family as ``Multi*`` (left out when empty: it has no type to declare).
    styles : dict of str to list of Rule, optional
        Layer name -> its style (:class:`geosite.io.qgis_styles.Rule` list), stored in the table
        ``layer_styles`` as the layer's default style (QGIS applies it when it opens the layer).

    Returns
    -------
    list of str
        The layer names written, in order.
    """
    with _gdal_config(OGR_SQLITE_SYNCHRONOUS="OFF"):
        return _write_gpkg(Path(path), layers, DERIVED_SCHEMA if schema is None else schema, styles)


@contextmanager
def _gdal_config(**options: str) -> Iterator[None]:
    """GDAL configuration options for the block, the previous values put back after. SQLite's
    synchronous commits cost some 70 ms a layer here; the file is written in a temporary output folder
    swapped in whole (:func:`atomic_dir`), as every other output is, so nothing relies on them.
    """
    import pyogrio

    before = {k: pyogrio.get_gdal_config_option(k) for k in options}
    pyogrio.set_gdal_config_options(options)
    try:
        yield
    finally:
        pyogrio.set_gdal_config_options(before)


def _write_gpkg(
    path: Path, layers: dict[str, Any], schema: dict[str, LayerSchema], styles: dict[str, Any] | None
) -> list[str]:
    from pyogrio.raw import write

    crs = next(
        (g.crs for g in layers.values() if g is not None and getattr(g, "crs", None) is not None), None
    )
    names = list(schema) + [n for n in layers if n not in schema]
    written: list[str] = []
    geometry: dict[str, str | None] = {}  # each written layer's geometry type
    for name in names:
        gdf = layers.get(name)
        ls = schema.get(name) or _inferred_schema(gdf)
        if ls is None:
            continue
        geoms, fields, data, mask = layer_arrays(name, gdf, ls)
        write(
            str(path),
            geoms,
            data,
            fields,
            field_mask=mask,
            layer=name,
            driver="GPKG",
            geometry_type=ls.geometry,
            crs=_crs_text(gdf, crs) if ls.geometry else None,
            dataset_options={"VERSION": GPKG_VERSION} if not written else None,
        )
        written.append(name)
        geometry[name] = ls.geometry
    if styles:
        from geosite.io.qgis_styles import write_layer_styles

        write_layer_styles(path, {n: (styles[n], geometry[n]) for n in written if n in styles})
    return written


def write_findings_gpkg(
    path: Path,
    layers: dict[str, Any],
    *,
    context: dict[str, LayerSchema] | None = None,
    styles: dict[str, Any] | None = None,
) -> list[str]:
    """Write findings.gpkg: the findings by geometry type, then the context layers.

    Parameters
    ----------
    path : Path
        The GeoPackage to create.
    layers : dict of str to GeoDataFrame
        ``findings`` (a GeoDataFrame of findings, coordinates in the site CRS's unit, rows without
        geometry allowed) and the context layers named in ``context``.
    context : dict of str to LayerSchema, optional
        The context layers' schemas (derived.gpkg's), in the order written.
    styles : dict of str to list of Rule, optional
        As :func:`write_gpkg`; the findings' own (:func:`geosite.io.qgis_styles.findings_rules`,
        report.html's status colours) unless given.

    Returns
    -------
    list of str
        The layer names written: ``findings`` (the table of those without a place), ``findings_points``,
        ``findings_lines``, ``findings_polygons`` (a finding whose geometry mixes kinds is in each, with
        its parts of that kind), all four always, then the context layers.
    """
    from geosite.io.qgis_styles import findings_rules

    layers = dict(layers)
    frame = layers.pop("findings")
    split = split_by_family(frame)
    schema = {**FINDINGS_SCHEMA, **(context or {})}
    return write_gpkg(path, {**split, **layers}, schema=schema, styles={**findings_rules(), **(styles or {})})


def split_by_family(frame: Any) -> dict[str, Any]:
    """A findings GeoDataFrame as ``findings`` (rows without geometry, as a plain DataFrame) and
    ``findings_points`` / ``_lines`` / ``_polygons`` (each row's parts of that family).
    """
    import pandas as pd

    attrs = frame.drop(columns=frame.geometry.name)
    geoms = list(frame.geometry.values)
    out: dict[str, Any] = {"findings": pd.DataFrame(attrs[[g is None or g.is_empty for g in geoms]])}
    for family, name in (
        ("Point", "findings_points"),
        ("LineString", "findings_lines"),
        ("Polygon", "findings_polygons"),
    ):
        parts = [_parts_of(g, family) for g in geoms]
        sub = frame[[bool(p) for p in parts]].copy()
        sub[frame.geometry.name] = [_multi(p, family) for p in parts if p]
        out[name] = sub
    return out


def layer_arrays(name: str, gdf: Any, ls: LayerSchema) -> tuple[Any, list[str], list[Any], list[Any]]:
    """(WKB geometries or None, field names, field arrays, null masks) of one layer under its schema:
    the declared fields first (null where the frame lacks them), then the frame's other columns.
    """
    import numpy as np

    n = 0 if gdf is None else len(gdf)
    geom_col = getattr(gdf, "geometry", None) if ls.geometry else None
    declared = dict(ls.fields)
    extra = [
        c
        for c in (gdf.columns if gdf is not None else [])
        if c not in declared and (geom_col is None or c != gdf.geometry.name) and c != "geometry"
    ]
    fields, data, mask = [], [], []
    for col, kind in [*ls.fields, *((c, _infer_kind(c, gdf[c])) for c in extra)]:
        values = gdf[col] if gdf is not None and col in gdf.columns else None
        arr, m = _field_array(values, kind, n)
        fields.append(str(col))
        data.append(arr)
        mask.append(m)
    if not ls.geometry:
        return None, fields, data, mask
    import shapely

    geoms = fit_geometries(name, [] if gdf is None else gdf.geometry.values, ls.geometry)
    return shapely.to_wkb(np.asarray(geoms, dtype=object)), fields, data, mask


def fit_geometries(name: str, geoms: Any, declared: str) -> list[Any]:
    """Each geometry as the declared type: a single part promoted to ``Multi*``; parts of a lower
    dimension (the lines and points a clip leaves beside a polygon) dropped; empty as null.
    :class:`~geosite.errors.OutputError` for a part of a higher dimension, or several parts in a layer
    declared single.
    """
    family = declared.removeprefix("Multi")
    out: list[Any] = []
    for g in geoms:
        if g is None or g.is_empty:
            out.append(None)
            continue
        if g.geom_type == declared:
            out.append(g)
            continue
        parts = _parts_of(g, family)
        higher = [p.geom_type for p in _flat(g) if _DIM.get(p.geom_type, -1) > _DIM[family]]
        if higher:
            raise OutputError(f"GeoPackage layer {name!r}: a {higher[0]} in a layer declared {declared}")
        if declared == family and len(parts) > 1:
            raise OutputError(
                f"GeoPackage layer {name!r}: a feature of {len(parts)} parts in a layer declared {declared}"
            )
        out.append(None if not parts else parts[0] if declared == family else _multi(parts, family))
    return out


def _flat(g: Any) -> list[Any]:
    if g is None or g.is_empty:
        return []
    if hasattr(g, "geoms"):
        return [p for sub in g.geoms for p in _flat(sub)]
    return [g]


def _parts_of(g: Any, family: str) -> list[Any]:
    import shapely

    return [
        shapely.LineString(p.coords) if p.geom_type == "LinearRing" else p
        for p in _flat(g)
        if _DIM.get(p.geom_type, -1) == _DIM[family]
    ]


def _multi(parts: list[Any], family: str) -> Any:
    import shapely

    cls = {
        "Point": shapely.MultiPoint,
        "LineString": shapely.MultiLineString,
        "Polygon": shapely.MultiPolygon,
    }
    return cls[family](parts)


def _crs_text(gdf: Any, fallback: Any) -> str | None:
    """A layer's CRS as GDAL takes it fastest: ``EPSG:n`` where it has that code (GDAL looks a WKT up in
    the PROJ database, some 60 ms a layer), else WKT.
    """
    crs = getattr(gdf, "crs", None) or fallback
    if crs is None:
        return None
    auth = crs.to_authority()
    return (
        f"{auth[0]}:{auth[1]}" if auth and auth[0] == "EPSG" and crs.to_epsg() is not None else crs.to_wkt()
    )


def _inferred_schema(gdf: Any) -> LayerSchema | None:
    """A layer outside the schema: ``Multi*`` of its parts' family (None when it has no geometry to
    type it by).
    """
    if gdf is None or not len(gdf) or not hasattr(gdf, "geometry"):
        return None
    dims = {_DIM.get(p.geom_type, -1) for g in gdf.geometry.values for p in _flat(g)}
    if not dims:
        return None
    family = {0: "Point", 1: "LineString", 2: "Polygon"}[max(dims)]
    return LayerSchema(f"Multi{family}")


def _infer_kind(name: str, values: Any) -> str:
    """The field type of a column the schema does not declare, from its name and values."""
    import numpy as np
    import pandas as pd

    if name in DATE_COLUMNS:
        return "date"
    kind = values.dtype.kind
    if kind == "b":
        return "bool"
    if kind in "iu":
        return "int"
    if kind == "f":
        return "float"
    if kind == "M":
        return "datetime"
    seen = [v for v in values if not (v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA)]
    if seen and all(isinstance(v, bool | np.bool_) for v in seen):
        return "bool"
    if seen and all(isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_) for v in seen):
        return "int"
    if seen and all(
        isinstance(v, int | float | np.number) and not isinstance(v, bool | np.bool_) for v in seen
    ):
        return "float"
    return "str"


def _field_array(values: Any, kind: str, n: int) -> tuple[Any, Any]:
    """(data, null mask or None) of one field of ``n`` rows; ``values`` None: all null."""
    import numpy as np
    import pandas as pd

    if values is None:
        values = pd.Series([None] * n, dtype=object)
    values = pd.Series(values).reset_index(drop=True)
    null = values.isna().to_numpy(bool)
    if kind == "str":
        return np.array(
            [None if m else _text_value(v) for v, m in zip(values, null, strict=True)], dtype=object
        ), None
    if kind in ("date", "datetime"):
        t = pd.to_datetime(values.where(~null, None).astype(object), errors="coerce", format="mixed")
        return t.to_numpy("datetime64[D]" if kind == "date" else "datetime64[ms]"), None
    if kind == "bool":
        return np.array([bool(v) if not m else False for v, m in zip(values, null, strict=True)]), null
    num = pd.to_numeric(values.where(~null, None).astype(object), errors="coerce")
    if kind == "int":
        return num.fillna(0).to_numpy("int64"), num.isna().to_numpy(bool)
    return num.to_numpy("float64"), None


def _text_value(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, dict | list | tuple):
        return json.dumps(finite(v), default=_json_default)
    return str(py_scalar(v))
