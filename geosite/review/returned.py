"""What the sandbox's child hands back, checked like input before the parent touches it.

The parent holds the child's result as it holds a file from the applicant: a child subverted by a crafted
file could send anything the safe unpickler builds (geosite's, numpy's, pandas', shapely's classes).
:func:`check_returned`, before any writer runs:

- every geometry, wherever it is in the result (the findings, the site's layers, the derived layers, the
  plan folder's layers): finite coordinates; each feature of the site's layers and each finding's
  geometry at most ``max_vertices_per_feature`` vertices (the input's own limit), all of them together
  at most ``max_result_vertices``; and valid: an invalid one is repaired the way ``--make-valid`` repairs
  input (:func:`shapely.make_valid`, the structure method: a polygon stays polygonal), so the report can
  still show where an invalid polygon the submission drew is;
- a DEM window handed back: a 2-D float64 array within the raster budget, on a finite north-up grid;
- the site's kept derivations (its unions and masks) are dropped, to be recomputed from the checked layers.

A GEOS error later in the parent is an input error too (:func:`geometry_errors_are_input`): exit 2
naming the submission, never a traceback.
"""

from __future__ import annotations

import dataclasses
import io
import math
import pickle
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite import errors
from geosite.io.limits import Limits
from geosite.io.text import one_line

if TYPE_CHECKING:
    from geosite.review.check import CheckResult

#: Containers the walk enters at most this deep, and at most this many objects in all.
MAX_DEPTH, MAX_OBJECTS = 40, 5_000_000


class _Walk:
    """One walk over a result: what it counted, and the objects already seen."""

    def __init__(self, limits: Limits, shown: str) -> None:
        self.limits, self.shown = limits, shown
        self.vertices = 0
        self.objects = 0
        self.seen: set[int] = set()

    def refuse(self, why: str) -> errors.InputError:
        """The error for a result the parent will not touch."""
        return errors.UnreadableInputError(
            f"{one_line(self.shown)}: the sandbox handed back {why}; a file in the submission may be "
            "crafted; nothing written"
        )

    def geometries(self, values: Any, per_feature: bool) -> Any:
        """An array of geometries checked (counted, bounded, finite) and repaired where invalid."""
        import numpy as np
        import shapely

        arr = np.asarray(values, dtype=object)
        present = np.array([g is not None for g in arr], dtype=bool)
        if not present.any():
            return values
        geoms = arr[present]
        if not all(isinstance(g, shapely.Geometry) for g in geoms):
            raise self.refuse("something that is not a geometry in a geometry column")
        counts = shapely.get_num_coordinates(geoms)
        if per_feature and counts.size and int(counts.max()) > self.limits.max_vertices_per_feature:
            raise self.refuse(
                f"a feature of {int(counts.max()):,} vertices, over max_vertices_per_feature "
                f"{self.limits.max_vertices_per_feature:,}"
            )
        self.count(int(counts.sum()))
        if not np.isfinite(shapely.get_coordinates(geoms)).all():
            raise self.refuse("a geometry with coordinates that are not finite numbers")
        bad = ~shapely.is_valid(geoms)
        if not bad.any():
            return values
        fixed = arr.copy()
        idx = np.flatnonzero(present)[bad]
        fixed[idx] = shapely.make_valid(arr[idx], method="structure", keep_collapsed=False)
        return fixed

    def count(self, n: int) -> None:
        """Add ``n`` vertices to the result's total; refuse past ``max_result_vertices``."""
        self.vertices += n
        if self.vertices > self.limits.max_result_vertices:
            raise self.refuse(
                f"geometry of over max_result_vertices {self.limits.max_result_vertices:,} vertices"
            )

    def frame(self, gdf: Any, per_feature: bool) -> None:
        """Every geometry column of a GeoDataFrame checked in place."""
        import geopandas as gpd

        geometry = [c for c, dtype in gdf.dtypes.items() if isinstance(dtype, gpd.array.GeometryDtype)]
        for col in geometry:  # the dtypes read once (a column taken per name builds a Series: 6 ms a frame)
            series = gdf[col]
            checked = self.geometries(series.values, per_feature)
            if checked is not series.values:
                gdf[col] = gpd.GeoSeries(list(checked), index=gdf.index, crs=series.crs)

    def dem(self, dem: Any) -> None:
        """A DEM window handed back: a 2-D float64 array within the raster budget, finite north-up grid."""
        import numpy as np

        z = getattr(dem, "elevation_ft", None)
        t = getattr(dem, "transform", None)
        if not isinstance(z, np.ndarray) or z.ndim != 2 or z.dtype != np.float64:
            raise self.refuse("a DEM that is not a 2-D array of heights")
        self.limits.check_read(f"{one_line(self.shown)}: the DEM window handed back", z.shape[1], z.shape[0])
        if t is None or not all(math.isfinite(float(v)) for v in tuple(t)[:6]) or t.b != 0 or t.d != 0:
            raise self.refuse("a DEM whose grid is not a finite north-up transform")

    def value(self, obj: Any, depth: int = 0, per_feature: bool = False) -> Any:
        """``obj`` with every geometry in it checked; containers entered (in place where they can be)."""
        import geopandas as gpd
        import shapely

        self.objects += 1
        if self.objects > MAX_OBJECTS or depth > MAX_DEPTH:
            raise self.refuse("a result nested too deeply or holding too many objects")
        if isinstance(obj, str | bytes | int | float | bool) or obj is None:
            return obj
        if isinstance(obj, shapely.Geometry):
            return self.geometries([obj], per_feature)[0]
        if id(obj) in self.seen:
            return obj
        self.seen.add(id(obj))
        if isinstance(obj, gpd.GeoDataFrame):
            self.frame(obj, per_feature)
        elif isinstance(obj, gpd.GeoSeries):
            checked = self.geometries(obj.values, per_feature)
            return (
                obj if checked is obj.values else gpd.GeoSeries(list(checked), index=obj.index, crs=obj.crs)
            )
        elif type(obj).__name__ == "Dem" and type(obj).__module__ == "geosite.grid":
            self.dem(obj)
        else:
            return self.container(obj, depth, per_feature)
        return obj

    def container(self, obj: Any, depth: int, per_feature: bool) -> Any:
        """A dict, list, tuple or dataclass with each of its values checked (a profile's frozen tables, which
        hold no geometry, left as they are).
        """
        from geosite.rules.model import FrozenMap

        if isinstance(obj, FrozenMap):
            return obj
        if isinstance(obj, dict):
            for k, v in list(obj.items()):
                obj[k] = self.value(v, depth + 1, per_feature)
        elif isinstance(obj, list):
            obj[:] = [self.value(v, depth + 1, per_feature) for v in obj]
        elif isinstance(obj, tuple) and not hasattr(obj, "_fields"):
            return tuple(self.value(v, depth + 1, per_feature) for v in obj)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for f in dataclasses.fields(obj):
                value = getattr(obj, f.name, None)
                checked = self.value(value, depth + 1, per_feature)
                if checked is not value:
                    object.__setattr__(obj, f.name, checked)
        return obj


def check_returned(result: Any, limits: Limits, shown: str) -> Any:
    """The child's CheckResult with every geometry checked and repaired (see the module's text).

    Parameters
    ----------
    result : CheckResult
        What the child handed back (already unpickled by the safe unpickler).
    limits : Limits
        The check's limits (vertices, the raster budget).
    shown : str
        The submission as the inspector named it, for messages.

    Returns
    -------
    CheckResult
        The same result, checked; an :class:`~geosite.errors.InputError` when it cannot be.
    """
    import shapely

    walk = _Walk(limits, shown)
    for f in [*result.findings, *result.analysis.findings]:
        if f.geometry is not None and not isinstance(f.geometry, shapely.Geometry):
            raise walk.refuse(f"a finding whose place is a {type(f.geometry).__name__}, not a geometry")
    site = result.site
    site._derived.clear()  # unions and masks: recomputed here from the checked layers
    walk.value(site.layers, per_feature=True)
    walk.value(result.findings, per_feature=True)
    walk.value(result, per_feature=False)
    return result


@contextmanager
def geometry_errors_are_input(shown: Any) -> Iterator[None]:
    """A GEOS error in the block (a writer's geometry operation on the submission's geometry) raised as
    :class:`~geosite.errors.GeometryError` naming the submission: exit 2, never a traceback.

    Parameters
    ----------
    shown : str or Path
        The submission as the inspector named it.

    Yields
    ------
    None
        The block runs.
    """
    from shapely.errors import ShapelyError

    try:
        yield
    except ShapelyError as exc:
        raise errors.GeometryError(
            f"{one_line(shown)}: a geometry of the submission could not be handled "
            f"({type(exc).__name__}: {one_line(str(exc))[:300]}); nothing written"
        ) from None


# ------------------------------------------------------------------------------------------ the payload


def unpack(payload: Any, staged: dict[str, Any], shown: Path | str, limits: Limits) -> CheckResult:
    """The child's CheckResult (the safe unpickler's ``payload``), checked like input
    (:func:`check_returned`), with the staged files (``staged``: geosite.io.stage.Staged.to_dict())
    recorded; or its error raised, one line per problem; its warnings re-emitted.

    Parameters
    ----------
    payload : dict
        What the child handed back, unpickled by :func:`safe_loads`.
    staged : dict
        The staged files, sizes and SHA-256 (``Staged.to_dict()``).
    shown : Path or str
        The submission as the inspector named it.
    limits : Limits
        The check's limits.

    Returns
    -------
    CheckResult
        The checked result.
    """
    from geosite.review.check import CheckResult

    if not isinstance(payload, dict):
        raise errors.UnreadableInputError(f"{one_line(shown)}: the sandbox returned no check result")
    for category, message in payload.get("warnings", []):
        cls = getattr(errors, str(category), None)
        if not (isinstance(cls, type) and issubclass(cls, Warning)):
            cls = errors.GeositeWarning
        warnings.warn(one_line(message), cls, stacklevel=3)
    if "error" in payload:
        raise _error(payload, shown)
    result = payload.get("result")
    if not isinstance(result, CheckResult):
        raise errors.UnreadableInputError(f"{one_line(shown)}: the sandbox returned no check result")
    check_returned(result, limits, str(shown))
    record = dict(payload.get("sandbox") or {})
    record["staged"] = staged
    result.extra["sandbox"] = record
    result.extra["isolation"] = describe(record)  # the summary's line (findings.md, report.html)
    return result


def _error(payload: dict[str, Any], shown: Path | str) -> errors.InputError:
    """The child's error as the parent raises it: its class when it is an input error, its message one line
    (a site's problems one line each).
    """
    name = str(payload["error"])
    problems = payload.get("problems")
    if name == "SiteValidationError" and isinstance(problems, list):
        return errors.SiteValidationError([one_line(p) for p in problems], site=str(shown))  # by repr
    cls = getattr(errors, name, None)
    if (
        not (isinstance(cls, type) and issubclass(cls, errors.InputError))
        or cls is errors.SiteValidationError
    ):
        cls = errors.InputError
    return cls(one_line(payload.get("message")))


def describe(record: dict[str, Any]) -> str:
    """One line for the report: what isolation held, and the staged files with their SHA-256."""
    held = [k.replace("_", " ") for k in ("network_namespace", "seccomp") if record.get(k)]
    files = record.get("staged", {}).get("files", [])
    listed = "; ".join(f"{f['path']} ({f['bytes']:,} bytes, sha256 {f['sha256']})" for f in files)
    skipped = record.get("staged", {}).get("not_staged", [])
    files_rule = (
        "files limited by Landlock"
        if record.get("landlock")
        else f"files not limited ({record.get('landlock_error')})"
    )
    return (
        "Read in a sandbox: a staged copy, network blocked by "
        f"{' and '.join(held) or 'NOTHING (see sandbox record)'}, "
        f"{files_rule}, GDAL drivers {', '.join(record.get('drivers', []))}; files read: {listed}"
        + (f"; not read: {'; '.join(skipped)}" if skipped else "")
    )


# ------------------------------------------------------------------------------------------ safe unpickling

#: Modules whose classes a CheckResult is made of.
_CLASS_MODULES = (
    "geosite.",
    "numpy",
    "pandas",
    "geopandas",
    "shapely",
    "pyproj",
    "affine",
    "datetime",
    "pathlib",
    "collections",
    "decimal",
)
#: The functions (not classes) a CheckResult's pickle calls to rebuild arrays, frames and geometries.
_FUNCTIONS = {
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy", "dtype"),
    ("pandas._libs.internals", "_unpickle_block"),
    ("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"),
    ("pandas.core.indexes.base", "_new_Index"),
    ("pandas._libs.tslibs.timestamps", "_unpickle_timestamp"),
    ("pandas._libs.tslibs.timedeltas", "_timedelta_unpickle"),
    ("pandas.core.arrays.categorical", "_unpickle_categorical"),
    ("shapely.io", "from_wkb"),
    ("shapely.geometry.base", "_unpickle_geometry"),
    ("copyreg", "_reconstructor"),
    ("builtins", "slice"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "complex"),
    ("builtins", "object"),
    ("builtins", "bytearray"),
    ("_codecs", "encode"),
}


class _SafeUnpickler(pickle.Unpickler):
    """Builds only classes of the modules a CheckResult is made of, and the few rebuilding functions above."""

    def find_class(self, module: str, name: str) -> Any:
        """The class or function ``module.name`` when a check result may hold it, else refused.

        Parameters
        ----------
        module : str
            The module the pickle names.
        name : str
            The name in it.

        Returns
        -------
        Any
            The class or function.

        Raises
        ------
        pickle.UnpicklingError
            For anything a check result never holds.
        """
        obj = super().find_class(module, name)
        if (module, name) in _FUNCTIONS:
            return obj
        plain = not issubclass(obj, BaseException) if isinstance(obj, type) else False
        warning = (
            isinstance(obj, type) and issubclass(obj, Warning) and module == "geosite.errors"
        )  # a Note's class
        if (
            isinstance(obj, type)
            and module.startswith(_CLASS_MODULES)
            and (plain or warning)
            and "." not in name
        ):
            return obj
        raise pickle.UnpicklingError(
            f"the sandbox's result names {module}.{name}, which a check result never holds"
        )


def safe_loads(data: bytes) -> Any:
    """Unpickle the child's result with :class:`_SafeUnpickler`; a bad one is an InputError."""
    try:
        return _SafeUnpickler(io.BytesIO(data)).load()
    except Exception as exc:  # any failure to rebuild it is a refused result
        raise errors.UnreadableInputError(
            f"the sandbox's result could not be read back safely ({exc})"
        ) from None


# ------------------------------------------------------------------------------------------ the writer


def verdict_lines(result: CheckResult, files: list[Path] | list[str]) -> list[str]:
    """The verdict in a few lines (what ``geosite check`` prints): what fails, what the inspector decides,
    what would settle an incomplete plan, the review deadline and the files written; each one line,
    printable (:func:`geosite.io.text.one_line`: the applicant's texts cannot add lines or escapes).

    Parameters
    ----------
    result : CheckResult
        The check.
    files : list of Path or str
        The files written.

    Returns
    -------
    list of str
        The lines.
    """
    s = result.summary()
    lines = [f"{result.site.name} ({s['jurisdiction_name']}): {s['verdict'].upper()} ({s['counts_text']})"]
    lines += [f"  FAIL {f.citation or '-'} {f.rule}: {f.message}" for f in result.failed]
    lines += [f"  INSPECTOR'S DECISION {f.citation or '-'} {f.rule}: {f.message}" for f in result.decisions]
    lines += [
        f"  NOT ASSESSED {f.citation or '-'} {f.rule}: settle with "
        f"{f.settle or 'the data named in the finding'}"
        for f in (result.open_questions if result.verdict == "incomplete" else [])
    ]
    if s.get("review_deadline"):
        lines.append(f"  review deadline: {s['review_deadline']}")
    lines += [  # the state's standard, beside the verdict (geosite.review.state_standard)
        f"  beside the verdict, {f.citation} {f.rule} ({f.id}): {f.status.replace('_', ' ')}"
        for f in getattr(result, "state", [])
    ]
    lines += [f"  wrote {path}" for path in files]
    return [one_line(line) for line in lines]


#: What the writer hands the command line back, as JSON.
WRITTEN = "written.json"


def write_checked(folder: Path) -> dict[str, Any]:
    """Write ``geosite check``'s outputs from the child's result, outside the sandbox: what the writer
    process (forked from the sandbox's server, which never read the submission) runs. Reads
    ``folder/write.json`` (the command line's: the output folder and its options, the submission's name,
    the staged files, the limits) and ``folder/work/result.pickle`` (the child's, read back as
    :func:`unpack` reads it); writes ``folder/written.json``: the files, the verdict lines, the exit code and
    the child's warnings, or the error.

    Parameters
    ----------
    folder : Path
        The check's private folder.

    Returns
    -------
    dict
        What was written to ``written.json``.
    """
    import json

    from geosite.io.limits import Limits
    from geosite.review.check import write_check_outputs

    ask = json.loads((folder / "write.json").read_text(encoding="utf-8"))
    shown = ask["shown"]
    done: dict[str, Any]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            data = (folder / "work" / "result.pickle").read_bytes()
            limits = Limits(**ask["limits"])
            result = unpack(safe_loads(data), ask["staged"], shown, limits)
            if ask.get("prices"):  # the inspector's unit prices: the submitted quantities priced here
                from geosite.plan.prices import read_prices

                result.prices = read_prices(ask["prices"], limits)
            with geometry_errors_are_input(shown):
                files = write_check_outputs(
                    result, Path(ask["out"]), overwrite=ask["overwrite"], html=ask["html"]
                )
            done = {
                "files": [str(f) for f in files],
                "lines": verdict_lines(result, files),
                "exit_code": result.exit_code,
            }
        except errors.GeositeError as exc:
            done = {
                "error": type(exc).__name__,
                "message": str(exc),
                "problems": getattr(exc, "problems", None),
            }
    done["warnings"] = [
        (w.category.__name__, str(w.message)) for w in caught if issubclass(w.category, errors.GeositeWarning)
    ]
    part = folder / (WRITTEN + ".part")
    part.write_text(json.dumps(done), encoding="utf-8")
    part.replace(folder / WRITTEN)
    return done
