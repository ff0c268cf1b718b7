"""The sandbox's child side: a warm server that forks one isolated child per submission.

``python -m geosite.review.sandbox_child --serve DIR`` is started by the parent (geosite.review.sandbox)
as soon as a check is coming: in its own session, with the parent's environment plus :data:`CHILD_ENV`,
working in the private folder ``DIR``. It imports everything ``check_submission`` runs and loads the
compiled kernels and GDAL's drivers (:func:`preload`) while the parent stages the submission, then waits
for requests on its standard input, one line each: the private folder of one check (``TMP``, holding
``request.pickle``, the staged copy ``submission/`` and the empty ``work/``).

For each request it forks; it answers ``started PID`` and, once that child has ended, ``exited PID RC``
(RC as subprocess gives it: negative for a signal). A fork starts in milliseconds with every module
already imported, where a fresh interpreter spent 0.6-1 s importing them; a batch worker keeps its server
for every site it checks. The server is single-threaded when it forks (OpenBLAS held to one thread, no
kernel run yet), so the child inherits no lock another thread held. It loads with the garbage collector
off and freezes what it loaded before it serves (:func:`serve`): each child collects, passing it by.

The forked child (:func:`_forked_child`) then, before it reads a byte of the submission: becomes the
leader of a session of its own (the parent kills that group at its limits), sends its output to
``TMP/child.log``, asks the kernel to kill it when the server ends (and the server, when the parent
ends), works in ``TMP/work``; enters a network namespace of its own, installs the seccomp filter
(sockets but AF_UNIX refused, no new process: the child is the whole tree its limits bound), sets
RLIMIT_AS and RLIMIT_CPU, prunes GDAL's drivers to the allowlist, turns PROJ's network off, installs
the file policy and Landlock (:func:`_isolate`). It runs
:func:`~geosite.review.check.check_submission` on the staged copy and writes the result, made fit for
the parent (:func:`_for_parent`), as ``TMP/work/result.pickle``.

What goes back is what the parent needs and nothing that leads back to a file: the site's paths to its
DEM and proposed grade are dropped (the DEM window read is handed back as an array instead, when the
caller will write a plan folder or maps, with the plan folder's layers computed here), the flow grid and
the site's caches are dropped, and every path and text naming the staged copy names the submission as the
inspector gave it (for display only: nothing in the parent opens it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import logging
import os
import pickle
import select
import signal
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

from geosite import errors
from geosite.io.limits import Limits
from geosite.io.text import one_line

log = logging.getLogger(__name__)

#: Address space the child needs beyond the DEM budget (Python, numba, GDAL, PROJ, thread stacks), bytes.
BASE_MEMORY_BYTES = 4 * 2**30
#: Environment of the server (and so of its children) beyond the parent's: GDAL offline, no side files,
#: one BLAS thread (the server forks: it must hold no thread but its own).
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
    "OPENBLAS_NUM_THREADS": "1",
}
#: Exit code of a child that failed outside the check itself (its traceback is in child.log).
CHILD_FAILED = 70


def memory_limit(limits: Limits) -> int:
    """The child's address-space limit, bytes."""
    return limits.check_memory_bytes or limits.raster_budget_bytes + BASE_MEMORY_BYTES


def child_env(work: Path) -> dict[str, str]:
    """The server's environment: the parent's, this package first on the path, GDAL offline, caches and
    temporary files in ``work``.
    """
    env = dict(os.environ)
    env.update(CHILD_ENV)
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for key in ("HOME", "TMPDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME"):
        env[key] = str(work)
    return env


# ------------------------------------------------------------------------------------------ the server


def preload() -> dict[str, str]:
    """Load geosite's own code, the kernels it runs and GDAL's drivers, before any child is confined.

    Only the submission is hostile; the code that reads it is the parent's. Loaded first, it never
    depends on what the confinement lets through: the compiled kernels are not refused by a file rule
    or the address-space limit and silently replaced by a JIT compile in every check (10 s each,
    measured), and JIT-compiled kernels are loaded from numba's cache while the cache can be read.
    Returns each kernel set's engine ("aot" or "jit"), which the sandbox record keeps.
    """
    import contourpy  # noqa: F401 - with rasterio's and scipy's modules below: what each check loads
    import pyogrio  # noqa: F401 - registers pyogrio's GDAL drivers (pruned in each child)
    import pyproj
    import rasterio
    import rasterio.features
    import rasterio.warp
    import scipy.ndimage  # noqa: F401
    from pyproj import network  # noqa: F401

    import geosite.pipeline  # the stages a check runs: the classes of its result, which the writer reads
    import geosite.plan_folder  # the plan folder's layers, computed in the child when asked
    import geosite.review.check  # everything check_submission imports
    import geosite.review.html  # and what writing geosite check's outputs imports (its writer)
    import geosite.review.returned
    import geosite.schedule  # the review deadline's calendar
    import geosite.soil_loss.report  # noqa: F401 - the state's section of findings.md (review.state_standard)
    from geosite import hydrology, terrain
    from geosite.io import allowlist, isolate, untrusted  # noqa: F401

    with rasterio.Env():
        pass  # registers rasterio's GDAL drivers
    # PROJ's database opened: a site's CRS (WISCRS Burnett), and the report's map in WGS 84
    pyproj.Transformer.from_crs(pyproj.CRS.from_epsg(7593), pyproj.CRS.from_epsg(4326), always_xy=True)
    return {"hydrology": hydrology.warm_kernels(), "contours": terrain.warm_kernels()}


def warm_up(folder: Path) -> float:
    """Check a small submission of geosite's own making (written in ``folder``): everything a check loads
    or builds on first use (the modules imported inside it, PROJ's database, GDAL's first opens, the
    holiday tables, the profile) is then in the server, inherited by every child it forks after, where
    each child of a cold server paid 0.5-0.9 s for it again (measured on the sample site). Returns its
    seconds.
    """
    import time

    import geopandas as gpd
    import shapely

    from geosite.review.check import check_submission
    from geosite.testing import inclined_plane

    t0 = time.perf_counter()
    sub = folder / "warm-up"
    sub.mkdir()
    dem = inclined_plane(4.0, shape=(100, 100), cell=4.0)
    x0, y1 = dem.transform.c, dem.transform.f
    layers = {
        "site_boundary": ({"id": [1]}, shapely.box(x0 + 100, y1 - 300, x0 + 300, y1 - 100)),
        "disturbance": (
            {"id": [1], "phase": ["all"], "start": ["2027-05-03"], "end": ["2027-10-29"]},
            shapely.box(x0 + 150, y1 - 250, x0 + 250, y1 - 150),
        ),
    }
    for name, (cols, geom) in layers.items():
        gdf = gpd.GeoDataFrame(cols, geometry=[geom], crs=dem.crs)
        gdf.to_file(sub / "layers.gpkg", layer=name, driver="GPKG", engine="pyogrio")
    _write_dem(sub / "dem.tif", dem)
    (sub / "site.toml").write_text(
        'name = "warm-up"\njurisdiction = "grantsburg"\n[dem]\npath = "dem.tif"\nvertical_unit = "us_ft"\n'
        '[layers]\npath = "layers.gpkg"\n[declared]\nplan_type = "statement"\n',
        encoding="utf-8",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = check_submission(sub)
        _for_parent(result, True)
        pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    return time.perf_counter() - t0


def _write_dem(path: Path, dem: Any) -> None:
    import rasterio

    z = dem.elevation_ft.astype("float32")
    profile = {"driver": "GTiff", "height": z.shape[0], "width": z.shape[1], "count": 1, "dtype": "float32"}
    with rasterio.open(path, "w", crs=dem.crs, transform=dem.transform, **profile) as dst:
        dst.write(z, 1)


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def serve(folder: str, warm: bool = True) -> int:
    """The server's loop (``--serve DIR``): preload, then one forked child per request line on stdin.

    Parameters
    ----------
    folder : str
        The server's private folder (its working folder), removed when it ends.
    warm : bool
        Whether, once its first check is done, to check a small submission of geosite's own
        (:func:`warm_up`) before the next: worth it for a server that forks many children (a batch
        worker's, a notebook's), not for one that forks one (``geosite check``). Its first child pays the
        first use, as the same check in one process does; the later ones find everything loaded.

    Returns
    -------
    int
        The exit code: 0 once its standard input closes.
    """
    from geosite.io import isolate

    isolate.die_with_parent()
    gc.disable()  # collections while loading cost 14 % of its CPU; 1 % of what it loads is garbage
    state: dict[str, Any] = {"kernels": preload(), "warm_up_s": None}
    gc.freeze()  # held out of every child's collections: its pages stay shared (collections enabled there)
    buffer = b""
    try:
        while True:
            while b"\n" not in buffer:
                data = os.read(0, 65536)
                if not data:
                    return 0
                buffer += data
            line, buffer = buffer.split(b"\n", 1)
            tmp, _, mode = line.decode("utf-8", "surrogateescape").partition("\t")
            started = {**state, "threads_at_fork": _thread_count()}
            rc = _run_forked(functools.partial(_forked_child, tmp, started))
            if rc is not None and rc == 0 and mode == "write":
                rc = _run_forked(functools.partial(_forked_writer, tmp))
            if rc is None:
                return 0
            if warm and state["warm_up_s"] is None:  # between two checks: the next child finds it loaded
                state["warm_up_s"] = _warmed(Path(folder))
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def _warmed(folder: Path) -> float | str:
    """:func:`warm_up`'s seconds (or why it failed: geosite's own data, so a bug, said in the record, not
    fatal), the server's objects frozen after it."""
    gc.enable()
    try:
        return round(warm_up(folder), 2)
    except Exception as exc:
        return f"failed: {one_line(exc)[:200]}"
    finally:
        gc.collect()
        gc.freeze()
        gc.disable()


def _run_forked(body: Callable[[], None]) -> int | None:
    """Fork, run ``body`` in the new process (which it ends), say ``started PID`` and ``exited PID RC`` on
    stdout; the exit code, or None when the parent closed the server's input first (then it is killed).
    """
    pid = os.fork()
    if pid == 0:
        gc.enable()  # the server's objects are frozen: a collection here passes them by
        body()
        os._exit(CHILD_FAILED)
    os.write(1, f"started {pid}\n".encode())
    rc = _wait(pid)
    if rc is not None:
        os.write(1, f"exited {pid} {rc}\n".encode())
    return rc


def _wait(pid: int) -> int | None:
    """The child's exit code (negative: killed by that signal), or None when the parent closed the server's
    input first (the child is killed then).
    """
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    try:
        while True:
            ready, _, _ = select.select(
                [0] + ([pidfd] if pidfd is not None else []), [], [], 0.05 if pidfd is None else None
            )
            if 0 in ready and not os.read(0, 65536):
                _kill(pid)
                os.waitpid(pid, 0)
                return None
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _forked_child(tmp: str, started: dict[str, Any]) -> None:
    """The forked child: never returns (``os._exit``)."""
    code = CHILD_FAILED
    try:
        os.setsid()
        folder = Path(tmp)
        _redirect(folder / "child.log")
        from geosite.io import isolate

        if not isolate.die_with_parent():
            os._exit(3)  # the server is gone: no one to read the result
        work = folder / "work"
        os.chdir(work)
        for key in ("HOME", "TMPDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME"):
            os.environ[key] = str(work)
        tempfile.tempdir = str(work)
        code = child_main(folder, started)
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _forked_writer(tmp: str) -> None:
    """The forked writer (``geosite check``'s outputs, written outside the sandbox from the child's result:
    geosite.review.returned.write_checked); never returns. Forked from the server, which never read the
    submission, it holds only geosite's own code and data besides what it reads back from the child.
    """
    code = CHILD_FAILED
    try:
        os.setsid()
        folder = Path(tmp)
        _redirect(folder / "writer.log")
        from geosite.io import isolate
        from geosite.review.returned import write_checked

        if not isolate.die_with_parent():
            os._exit(3)
        os.chdir(folder)
        tempfile.tempdir = str(folder)
        write_checked(folder)
        code = 0
    except BaseException:  # the traceback goes to writer.log, the parent names the failure
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _redirect(logfile: Path) -> None:
    """Standard input from /dev/null; standard output and error to ``logfile`` (the server's pipes closed)."""
    log_fd = os.open(logfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    os.close(null)


# ------------------------------------------------------------------------------------------ the child


def child_main(folder: Path, started: dict[str, Any]) -> int:
    """The child's work once forked: isolate, check, hand back (``folder``: the check's private folder;
    ``started``: what the server loaded, and its threads when it forked, for the record).
    """
    request = pickle.loads((folder / "request.pickle").read_bytes())  # the parent's own data
    record = _isolate(request)  # from here: no network, bounded, only allowlisted drivers and files
    record.update(started)
    payload = _child_check(request)
    payload["sandbox"] = record
    part = folder / "work" / "result.pickle.part"
    part.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(part, folder / "work" / "result.pickle")
    return 0


def _isolate(request: dict[str, Any]) -> dict[str, Any]:
    """Cut the network, bound memory and CPU, forbid new processes, prune GDAL's drivers, install the file
    policy. Returns the record of what held.
    """
    from pyproj import network

    from geosite.io import allowlist, isolate, untrusted

    netns, why_not = isolate.enter_network_namespace()
    seccomp, why_not_seccomp = isolate.block_sockets()
    limits: Limits = request["limits"]
    isolate.set_limits(memory_bytes=memory_limit(limits), cpu_seconds=limits.check_cpu_seconds)
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
        "new_processes": "refused (seccomp)" if seccomp else "not refused",
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
            _for_parent(result, request.get("analysis_outputs", True))
            payload: dict[str, Any] = {"result": _remap(result, root, shown, set())}
        except errors.SiteValidationError as exc:
            payload = {
                "error": "SiteValidationError",
                "message": str(exc).replace(root, shown),
                "problems": [p.replace(root, shown) for p in exc.problems],
            }
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
    if "error" in payload and payload["error"] != "LimitError" and at_memory_ceiling():
        message = memory_message(shown, request["limits"], payload["message"])
        payload = {"error": "LimitError", "message": message}
    payload["warnings"] = [
        (w.category.__name__, str(w.message).replace(root, shown))
        for w in caught
        if issubclass(w.category, errors.GeositeWarning)
    ]
    return payload


#: The share of its address-space limit a child must have reached for an error to be the limit's: GDAL,
#: PROJ and SQLite short of memory report a failed allocation as a bad file, an unknown CRS or an
#: unreadable table (measured: at 300 MB, PROJ said the DEM's CRS was not projected; SQLite said out of
#: memory), so an error raised that close to the ceiling is reported as the limit, naming what failed.
CEILING_SHARE = 0.85


def at_memory_ceiling(share: float = CEILING_SHARE) -> bool:
    """Whether this process's peak address space (VmPeak) reached ``share`` of its RLIMIT_AS.

    Parameters
    ----------
    share : float
        The fraction of the limit (geosite's choice, not the ordinance's: :data:`CEILING_SHARE`).

    Returns
    -------
    bool
        False without a limit, or where /proc does not say.
    """
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return False
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return False
    peak = next((line.split()[1] for line in status.splitlines() if line.startswith("VmPeak:")), None)
    return peak is not None and int(peak) * 1024 >= share * soft


def memory_message(shown: str, limits: Limits, failed: str) -> str:
    """The limit's message for a child stopped at its memory ceiling, ``failed`` what the library said."""
    return (
        f"{one_line(shown)}: reading the submission needed more memory than check_memory_bytes "
        f"{memory_limit(limits):,}; stopped, nothing written. Raise with --limit check_memory_bytes=N "
        f"(at the limit, the reader said: {one_line(failed)[:300]})"
    )


def _for_parent(result: Any, analysis_outputs: bool) -> None:
    """``result`` made fit to hand back: no path the parent could open again, nothing it does not need.

    The site's DEM and proposed-grade paths are dropped; with ``analysis_outputs`` (the caller writes the
    analysis' outputs: a plan folder, maps) the DEM window read goes back as the site's ``dem_array``, else
    it does not go back. The plan (``analysis.plan``, built here: every view the parent draws reads it)
    goes back whole. The flow grid and the site's kept derivations (masks, unions: the parent recomputes
    them from the checked layers) are dropped.
    """
    site, analysis = result.site, result.analysis
    dem = analysis.dem if analysis_outputs else None
    site.dem_array = dem
    analysis.dem = dem
    site.dem_path = site.proposed_dem_path = site.dem_root = site.inputs_root = None
    site._derived.clear()
    analysis.measurements.flow_grid = None


def _remap(obj: Any, old: str, new: str, seen: set[int], depth: int = 0) -> Any:
    """``obj`` with the staged folder's path ``old`` written as the submission's ``new`` in every text and
    path of the dicts, lists, tuples and dataclasses it holds (frames and arrays are left alone).
    """
    from geosite.rules.model import FrozenMap  # here: the command's own process need not load the rules

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
        with contextlib.suppress(AttributeError):  # a type with __slots__ has no __dict__
            text.__dict__.update(getattr(obj, "__dict__", {}))
    return text


def _remap_fields(obj: Any, old: str, new: str, seen: set[int], depth: int) -> None:
    """Remap each field of the dataclass ``obj`` in place (frozen ones too)."""
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name, None)
        new_value = _remap(value, old, new, seen, depth + 1)
        if new_value is not value:
            object.__setattr__(obj, f.name, new_value)


def main(argv: list[str]) -> int:
    """``python -m geosite.review.sandbox_child --serve DIR [--warm]``."""
    if len(argv) not in (2, 3) or argv[0] != "--serve" or argv[2:] not in ([], ["--warm"]):
        print(
            one_line(f"usage: python -m geosite.review.sandbox_child --serve DIR [--warm] (got {argv})"),
            file=sys.stderr,
        )
        return 2
    return serve(argv[1], warm=argv[2:] == ["--warm"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
