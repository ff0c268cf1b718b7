"""``check`` in a sandbox: the submission staged, read only by allowlisted drivers, in a child process that
cannot reach the network, with its memory, CPU time and wall-clock time bounded (issue 24).

:func:`check_submission_sandboxed` is what ``geosite check`` and ``geosite batch --check`` run:

1. **Stage** (parent): the submission's regular files copied into a private temporary folder, names
   and sizes checked first, each hashed (geosite.io.stage). Nothing after this opens the applicant's
   folder, so nothing there can be written, merged or swapped.
2. **Child** (``python -m geosite.review.sandbox TMP``, its own session, working folder a private
   temporary one): first a network namespace of its own (and, in any case, a seccomp filter refusing
   every socket but AF_UNIX; geosite.io.isolate), then RLIMIT_AS and RLIMIT_CPU; then every GDAL
   driver but GTiff, GPKG, ESRI Shapefile, GeoJSON, DXF and MEM is deregistered, PROJ's network is
   off, and geosite.io.allowlist's policy inspects each file before GDAL opens it. It runs
   :func:`~geosite.review.check.check_submission` on the staged copy and writes its CheckResult (or
   the error) as a pickle in the private folder.
3. **Parent**: waits at most ``Limits.check_seconds`` (then kills the child's process group), loads
   the pickle with an unpickler that builds only the classes a CheckResult holds (no other callable
   can be named by the file), and alone writes the outputs. The staged copy is deleted before any
   output is written.

A crash, a kill at a limit or an error in the child is an :class:`~geosite.errors.InputError` (exit 2)
naming the submission and the limit. ``CheckResult.extra["sandbox"]`` records what held (network
namespace, seccomp, the drivers left, the limits) and the staged files with their SHA-256; the
head of findings.md and report.html says it too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path, PurePath
from typing import Any

from geosite import errors
from geosite.io.limits import Limits
from geosite.io.stage import Staged, stage_submission
from geosite.review.check import CheckResult, Step
from geosite.rules.model import FrozenMap

log = logging.getLogger(__name__)

#: The largest result a child may hand back, bytes.
MAX_RESULT_BYTES = 2 * 2**30
#: Address space the child needs beyond the DEM budget (Python, numba, GDAL, PROJ, thread stacks), bytes.
BASE_MEMORY_BYTES = 4 * 2**30
#: Environment of the child beyond the parent's: GDAL offline, no side files, caches in its private folder.
CHILD_ENV = {
    "PROJ_NETWORK": "OFF",
    "GDAL_PAM_ENABLED": "NO",
    "CPL_VSIL_CURL_ALLOWED_EXTENSIONS": ".geosite-offline-no-network",
    "GDAL_HTTP_MAX_RETRY": "0",
    "GDAL_HTTP_TIMEOUT": "1",
    "GDAL_DISABLE_READDIR_ON_OPEN": "EMPTY_DIR",
    "OGR_SQLITE_ALLOW_EXTERNAL_ACCESS": "NO",
    "GDAL_VRT_ENABLE_PYTHON": "NO",
    "CPL_ALLOW_VSISTDIN": "NO",
    "GML_DOWNLOAD_SCHEMA": "NO",
    "PYTHONDONTWRITEBYTECODE": "1",
}


def check_submission_sandboxed(
    folder: str | Path,
    *,
    jurisdiction: str | None = None,
    dem: str | Path | None = None,
    dem_vertical_unit: str | None = None,
    received: Any = None,
    make_valid: bool = False,
    step: Step | None = None,
    limits: Limits | None = None,
) -> CheckResult:
    """:func:`~geosite.review.check.check_submission` of ``folder``, staged and run in an isolated child.

    Parameters are those of check_submission (``dem``: the inspector's own DEM, read where it lies;
    ``received``: a datetime.date). ``limits`` also bounds the child: ``check_seconds`` (wall clock,
    s), ``check_cpu_seconds`` (s) and ``check_memory_bytes`` (address space, bytes; 0: the raster
    budget plus :data:`BASE_MEMORY_BYTES`). Raises :class:`~geosite.errors.InputError` for every
    refusal, unreadable input, crash or limit.
    """
    limits = limits or Limits()
    step = step or (lambda name: log.info(name))
    shown = Path(folder)
    with tempfile.TemporaryDirectory(prefix="geosite-check-") as tmp_name:
        tmp = Path(tmp_name)
        step("staging the submission")
        staged = stage_submission(shown, tmp / "submission", limits)
        request = {
            "root": str(staged.root.resolve()),
            "shown": str(shown),
            "jurisdiction": _absolute(jurisdiction),
            "dem": None if dem is None else str(Path(dem).resolve()),
            "dem_vertical_unit": dem_vertical_unit,
            "received": received,
            "make_valid": make_valid,
            "limits": limits,
        }
        (tmp / "request.pickle").write_bytes(pickle.dumps(request))
        step("reading and checking the submission in a sandbox")
        payload = _run_child(tmp, shown, limits)
    return _unpack(payload, staged, shown)


def _absolute(jurisdiction: str | None) -> str | None:
    """The inspector's profile file as an absolute path (the child works in a folder of its own); a
    profile name unchanged.
    """
    if jurisdiction and jurisdiction.endswith(".toml") and not Path(jurisdiction).is_absolute():
        return str(Path.cwd() / jurisdiction)
    return jurisdiction


def _run_child(tmp: Path, shown: Path, limits: Limits) -> dict[str, Any]:
    """Run the child on ``tmp``; its payload (a dict), or an InputError for a crash or a limit."""
    work = tmp / "work"
    work.mkdir(mode=0o700)
    out = open(tmp / "child.log", "wb")  # noqa: SIM115 - closed below, after the child is gone
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "geosite.review.sandbox", str(tmp)],
            cwd=work,
            env=child_env(work),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )
        try:
            rc = proc.wait(timeout=limits.check_seconds)
        except BaseException as exc:  # the limit, or the inspector's Ctrl-C: the child goes too
            _kill_group(proc.pid)
            proc.wait()
            if not isinstance(exc, subprocess.TimeoutExpired):
                raise
            raise errors.LimitError(
                f"{shown}: reading and checking the submission took over {limits.check_seconds:,} s "
                "(check_seconds); stopped, nothing written. Raise with --limit check_seconds=N"
            ) from None
        _kill_group(proc.pid)  # anything it left behind
    finally:
        out.close()
    result = work / "result.pickle"
    if rc == 0 and result.is_file() and 0 < result.stat().st_size <= MAX_RESULT_BYTES:
        return safe_loads(result.read_bytes())
    raise _crash(rc, tmp / "child.log", shown, limits, time.monotonic() - t0)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _crash(rc: int, logfile: Path, shown: Path, limits: Limits, seconds: float) -> errors.InputError:
    """The error for a child that ended without a result."""
    try:
        tail = logfile.read_bytes()[-4000:].decode("utf-8", "replace")
    except OSError:
        tail = ""
    if _OUT_OF_MEMORY.search(tail):
        return errors.LimitError(
            f"{shown}: reading the submission needed more memory than check_memory_bytes "
            f"{memory_limit(limits):,}; stopped, nothing written. Raise with --limit check_memory_bytes=N"
        )
    if rc in (-signal.SIGXCPU, -signal.SIGKILL):
        return errors.LimitError(
            f"{shown}: reading and checking the submission used over {limits.check_cpu_seconds:,} s "
            "of CPU time (check_cpu_seconds); stopped, nothing written. Raise with --limit "
            "check_cpu_seconds=N"
        )
    last = [line for line in tail.strip().splitlines() if line.strip()][-1:] or [f"exit code {rc}"]
    return errors.UnreadableInputError(
        f"{shown}: the process reading the submission ended without a result after "
        f"{seconds:.1f} s ({_signal_name(rc)}: {printable(last[0][:300])}); a file in it "
        "may be corrupt or crafted; nothing written"
    )


#: How running out of address space shows in the child's output (Python, glibc, the loader, C++).
_OUT_OF_MEMORY = re.compile(
    r"MemoryError|failed to map segment|Cannot allocate memory|bad_alloc|out of memory|ENOMEM", re.IGNORECASE
)


def _signal_name(rc: int) -> str:
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"signal {-rc}"
    return f"exit code {rc}"


def memory_limit(limits: Limits) -> int:
    """The child's address-space limit, bytes."""
    return limits.check_memory_bytes or limits.raster_budget_bytes + BASE_MEMORY_BYTES


def child_env(work: Path) -> dict[str, str]:
    """The child's environment: the parent's, this package first on the path, GDAL offline, caches and
    temporary files in ``work``.
    """
    env = dict(os.environ)
    env.update(CHILD_ENV)
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for key in ("HOME", "TMPDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME"):  # numba's cache: see _preload
        env[key] = str(work)
    return env


def _unpack(payload: dict[str, Any], staged: Staged, shown: Path) -> CheckResult:
    """The child's CheckResult with the staged files recorded, or its error raised; its warnings
    re-emitted.
    """
    for category, message in payload.get("warnings", []):
        cls = getattr(errors, str(category), None)
        if not (isinstance(cls, type) and issubclass(cls, Warning)):
            cls = errors.GeositeWarning
        warnings.warn(printable(str(message)), cls, stacklevel=3)
    if "error" in payload:
        cls = getattr(errors, str(payload["error"]), None)
        if (
            not (isinstance(cls, type) and issubclass(cls, errors.InputError))
            or cls is errors.SiteValidationError
        ):
            cls = errors.InputError
        raise cls(printable(str(payload["message"])))
    result = payload["result"]
    if not isinstance(result, CheckResult):
        raise errors.UnreadableInputError(f"{shown}: the sandbox returned no check result")
    record = dict(payload.get("sandbox") or {})
    record["staged"] = staged.to_dict()
    result.extra["sandbox"] = record
    result.extra["isolation"] = describe(record)  # the summary's line (findings.md, report.html)
    return result


def printable(text: str) -> str:
    """``text`` with control characters (a terminal escape planted in a layer or CRS name) written as
    ``\\xNN``; line breaks and tabs kept.
    """
    return "".join(
        c if c in "\n\t" or (ord(c) >= 32 and not 127 <= ord(c) < 160) else f"\\x{ord(c):02x}" for c in text
    )


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


# ------------------------------------------------------------------------------------------ the child


def _remap(obj: Any, old: str, new: str, seen: set[int], depth: int = 0) -> Any:
    """``obj`` with the staged folder's path ``old`` written as the submission's ``new`` in every text and
    path of the dicts, lists, tuples and dataclasses it holds (frames and arrays are left alone).
    """
    if isinstance(obj, str | PurePath):
        return _remap_text(obj, old, new)
    if depth > 40 or id(obj) in seen:
        return obj
    if isinstance(obj, dict) and not isinstance(obj, FrozenMap):  # a profile's tables hold no staged path
        seen.add(id(obj))
        for k, v in list(obj.items()):
            obj[k] = _remap(v, old, new, seen, depth + 1)
    elif isinstance(obj, list):
        seen.add(id(obj))
        obj[:] = [_remap(v, old, new, seen, depth + 1) for v in obj]
    elif isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_remap(v, old, new, seen, depth + 1) for v in obj)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        seen.add(id(obj))
        _remap_fields(obj, old, new, seen, depth)
    return obj


def _remap_text(obj: str | PurePath, old: str, new: str) -> str | PurePath:
    """A text or path with ``old`` written as ``new``, of the same type (a typed text such as
    :class:`geosite.errors.Note` keeps its attributes).
    """
    if isinstance(obj, PurePath):
        return type(obj)(str(obj).replace(old, new)) if old in str(obj) else obj
    if old not in obj:
        return obj
    text = obj.replace(old, new)
    if type(obj) is not str:  # a typed text (geosite.errors.Note): same type, same attributes
        text = str.__new__(type(obj), text)
        text.__dict__.update(getattr(obj, "__dict__", {}))
    return text


def _remap_fields(obj: Any, old: str, new: str, seen: set[int], depth: int) -> None:
    """Remap each field of the dataclass ``obj`` in place (frozen ones too)."""
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name, None)
        new_value = _remap(value, old, new, seen, depth + 1)
        if new_value is not value:
            object.__setattr__(obj, f.name, new_value)


def _isolate(request: dict[str, Any]) -> dict[str, Any]:
    """Cut the network, bound memory and CPU, prune GDAL's drivers, install the file policy. Returns
    the record of what held.
    """
    from geosite.io import isolate

    if not isolate.die_with_parent():
        sys.exit(3)  # the parent is gone: no one to read the result
    netns, why_not = isolate.enter_network_namespace()
    seccomp, why_not_seccomp = isolate.block_sockets()
    limits: Limits = request["limits"]
    isolate.set_limits(memory_bytes=memory_limit(limits), cpu_seconds=limits.check_cpu_seconds)
    import pyogrio  # noqa: F401 - registers pyogrio's GDAL drivers, pruned below
    import rasterio
    from pyproj import network

    from geosite.io import allowlist, untrusted

    with rasterio.Env():
        pass  # registers rasterio's GDAL drivers
    keep = allowlist.KEEP_DRIVERS + (("VRT",) if _inspector_vrt(request.get("dem")) else ())
    left = allowlist.prune_gdal_drivers(keep)
    network.set_network_enabled(False)
    untrusted.set_policy(lambda path, driver, what: allowlist.submission_policy(path, driver, what, limits))
    landlock, why_not_landlock = _restrict_files(request)
    return {
        "network_namespace": netns,
        "network_namespace_error": why_not or None,
        "seccomp": seccomp,
        "seccomp_error": why_not_seccomp or None,
        "landlock": landlock,
        "landlock_error": why_not_landlock or None,
        "network_probe": isolate.network_probe(),
        "drivers": sorted({d for names in left.values() for d in names}),
        "gdal_libraries": left,
        "memory_limit_bytes": memory_limit(limits),
        "cpu_limit_s": limits.check_cpu_seconds,
        "wall_limit_s": limits.check_seconds,
        "proj_network": network.is_network_enabled(),
    }


#: What the child may read besides Python, its packages and the submission: shared libraries, the
#: loader's cache, the time zone, its own /proc entries, CPU topology, and the harmless devices.
SYSTEM_READS = (
    "/usr",
    "/lib",
    "/lib64",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/proc/self",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/dev/null",
    "/dev/urandom",
    "/dev/zero",
)


def _restrict_files(request: dict[str, Any]) -> tuple[bool, str]:
    """Landlock the child: read only Python, its packages, GDAL's and PROJ's data, the staged submission
    and the inspector's own files; write only its private working folder. Skipped (and said so) when
    the inspector's ``--dem`` is a VRT, whose sources may lie anywhere.
    """
    from geosite.io import isolate

    if _inspector_vrt(request.get("dem")):
        return False, "not applied: the inspector's --dem is a VRT, whose sources may lie anywhere"
    work = str(Path(request["root"]).parent / "work")
    reads = [
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        str(Path(sys.executable).resolve().parent),
        str(Path(__file__).resolve().parents[2]),
        request["root"],
        *SYSTEM_READS,
    ]
    reads += [p for p in sys.path if p and Path(p).is_dir()]
    reads += [os.environ[k] for k in ("GDAL_DATA", "PROJ_DATA", "PROJ_LIB") if os.environ.get(k)]
    try:
        from pyproj.datadir import get_data_dir

        reads += get_data_dir().split(os.pathsep)
    except Exception as exc:  # pyproj finds its data itself; this only widens the list
        log.debug("pyproj data folder not found: %s", exc)
    for own in (request.get("dem"), request.get("jurisdiction")):
        if own and Path(own).is_file():
            reads.append(str(Path(own).resolve()))
    return isolate.restrict_files(sorted(set(reads)), [work, "/dev/null"])


def _inspector_vrt(dem: str | None) -> bool:
    """Whether the inspector's own ``--dem`` (trusted, read where it lies) is a VRT, which then keeps GDAL's
    VRT driver (a submission's DEM is still read as a GeoTIFF only).
    """
    if not dem:
        return False
    try:
        with open(dem, "rb") as fh:
            return b"<VRTDataset" in fh.read(4096)
    except OSError:
        return False


def _check_toml_crs(root: Path, limits: Limits) -> None:
    """site.toml's ``crs`` passes geosite.io.allowlist.check_crs_text (before pyproj sees it)."""
    from geosite.io.allowlist import check_crs_text
    from geosite.site import read_site_toml

    conf, toml_path = read_site_toml(root, limits)
    if conf.get("crs") is not None and isinstance(conf["crs"], str | int):
        check_crs_text(conf["crs"], f"{toml_path}: crs")


def _child_check(request: dict[str, Any]) -> dict[str, Any]:
    """The child's work, after isolation: the check of the staged copy, or its error, as a payload."""
    from geosite.review.check import check_submission

    root, shown = request["root"], request["shown"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _check_toml_crs(Path(root), request["limits"])
            result = check_submission(
                root,
                jurisdiction=request["jurisdiction"],
                dem=request["dem"],
                dem_vertical_unit=request["dem_vertical_unit"],
                received=request["received"],
                make_valid=request["make_valid"],
                limits=request["limits"],
            )
            payload: dict[str, Any] = {"result": _remap(result, root, shown, set())}
        except errors.InputError as exc:
            payload = {"error": type(exc).__name__, "message": str(exc).replace(root, shown)}
        except RecursionError:
            payload = {
                "error": "UnreadableInputError",
                "message": f"{shown}: a file in the submission is nested too deeply to read (RecursionError)",
            }
        except MemoryError:
            raise
        except Exception as exc:  # no traceback for any input: exit 2 naming what failed
            payload = {
                "error": "UnreadableInputError",
                "message": f"{shown}: the submission could not be read ({type(exc).__name__}: "
                f"{str(exc).replace(root, shown)[:500]})",
            }
    payload["warnings"] = [
        (w.category.__name__, str(w.message).replace(root, shown))
        for w in caught
        if issubclass(w.category, errors.GeositeWarning)
    ]
    return payload


def _preload() -> dict[str, str]:
    """Load geosite's own code, and the kernels it runs, before the child is confined.

    Only the submission is hostile; the code that reads it is the parent's. Loaded first, it never
    depends on what the confinement lets through: the compiled kernels are not refused by a file rule
    or the address-space limit and silently replaced by a JIT compile in every check (10 s each,
    measured), and JIT-compiled kernels are loaded from numba's cache while the cache can be read.
    Returns each kernel set's engine ("aot" or "jit"), which the sandbox record keeps.
    """
    import geosite.review.check  # noqa: F401 - everything check_submission imports
    from geosite import hydrology, terrain

    return {"hydrology": hydrology.warm_kernels(), "contours": terrain.warm_kernels()}


def child_main(tmp: str) -> int:
    """The child: ``python -m geosite.review.sandbox TMP`` (TMP holds request.pickle, written by the
    parent).
    """
    folder = Path(tmp)
    request = pickle.loads((folder / "request.pickle").read_bytes())  # the parent's own data
    kernels = _preload()
    record = _isolate(request)  # from here: no network, bounded, only allowlisted drivers and files
    record["kernels"] = kernels
    payload = _child_check(request)
    payload["sandbox"] = record
    part = folder / "work" / "result.pickle.part"
    part.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(part, folder / "work" / "result.pickle")
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1]))
