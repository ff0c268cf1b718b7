"""``check`` in a sandbox: the submission staged, read only by allowlisted drivers, in a child process that
cannot reach the network or start another, with its memory, CPU time and wall-clock time bounded (issues
24 and 32).

:func:`check_submission_sandboxed` is what ``geosite check``, ``geosite batch --check`` and the Python API
(``geosite.check_submission``) run:

1. **A warm server** (:class:`Sandbox`; geosite.review.sandbox_child) is started first, so it imports and
   loads what a check runs while the parent does its own work; a batch worker or a notebook keeps one
   (:func:`shared_sandbox`).
2. **Stage** (parent): the submission's regular files copied into a private temporary folder, names,
   sizes, the number of entries and the time checked (geosite.io.stage). Nothing after this opens the
   applicant's folder: not the parent, not the child, not a writer.
3. **Child**: the server forks one child per check, which isolates itself (network namespace, seccomp,
   RLIMIT_AS and RLIMIT_CPU, no new process, GDAL's drivers pruned, Landlock) and checks the staged copy.
4. **Parent**: waits at most what is left of ``Limits.check_seconds`` (then kills the child's process
   group), loads the result with an unpickler that builds only the classes a CheckResult holds, checks
   every geometry in it like input (geosite.review.returned), and alone writes the outputs, from that
   result only. The staged copy is deleted before any output is written.

A crash, a kill at a limit or an error in the child is an :class:`~geosite.errors.InputError` (exit 2)
naming the submission and the limit, in one line per problem. ``CheckResult.extra["sandbox"]`` records what
held (network namespace, seccomp, the drivers left, the limits) and the staged files with their SHA-256;
the head of findings.md and report.html says it too.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import logging
import os
import pickle
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite import errors
from geosite.io.limits import Limits
from geosite.io.stage import Staged, stage_submission
from geosite.io.text import one_line
from geosite.io.text import printable as printable
from geosite.review.sandbox_child import BASE_MEMORY_BYTES as BASE_MEMORY_BYTES
from geosite.review.sandbox_child import CHILD_ENV as CHILD_ENV
from geosite.review.sandbox_child import child_env, memory_limit

if TYPE_CHECKING:
    from geosite.review.check import CheckResult

log = logging.getLogger(__name__)
Step = Callable[[str], None]

#: The largest result a child may hand back, bytes.
MAX_RESULT_BYTES = 2 * 2**30
#: How long a server that was told to stop may take before it is killed, s.
STOP_WAIT_S = 2.0


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
    analysis_outputs: bool = True,
    sandbox: Sandbox | None = None,
) -> CheckResult:
    """:func:`~geosite.review.check.check_submission` of ``folder``, staged and run in an isolated child.

    Parameters are those of check_submission (``dem``: the inspector's own DEM, read where it lies;
    ``received``: a datetime.date). ``limits`` also bounds the child: ``check_seconds`` (wall clock for
    staging and the child together, s), ``check_cpu_seconds`` (s) and ``check_memory_bytes`` (address
    space, bytes; 0: the raster budget plus 4 GiB). ``analysis_outputs``: hand back what writing the
    analysis' outputs needs besides the check's own (the DEM window read, the plan folder's layers;
    ``geosite check`` needs neither). ``sandbox``: the warm server to run in (default: one this process
    keeps, :func:`shared_sandbox`). Raises :class:`~geosite.errors.InputError` for every refusal,
    unreadable input, crash or limit.
    """
    limits = limits or Limits()
    step = step or (lambda name: log.info(name))
    deadline = time.monotonic() + limits.check_seconds
    shown = Path(folder)
    with contextlib.ExitStack() as stack:
        box = sandbox if sandbox is not None else stack.enter_context(shared_sandbox())
        box.start()  # warming while the submission is staged
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="geosite-check-")))
        step("staging the submission")
        staged = stage_submission(shown, tmp / "submission", limits, deadline=deadline)
        request = {
            "root": str(staged.root.resolve()),
            "shown": str(shown),
            "jurisdiction": _absolute(jurisdiction),
            "dem": None if dem is None else str(Path(dem).resolve()),
            "dem_vertical_unit": dem_vertical_unit,
            "received": received,
            "make_valid": make_valid,
            "limits": limits,
            "analysis_outputs": analysis_outputs,
        }
        (tmp / "request.pickle").write_bytes(pickle.dumps(request))
        step("reading and checking the submission in a sandbox")
        data = box.run(tmp, shown, limits, deadline, meanwhile=_load_writers)
    return _unpack(safe_loads(data), staged, shown, limits)


def _load_writers() -> None:
    """Import what reading the result back and writing the outputs need, while the child checks (the two
    processes import and work on two cores at once).
    """
    import geosite.io.output
    import geosite.pipeline
    import geosite.review.check
    import geosite.review.html
    import geosite.review.returned  # noqa: F401


def _absolute(jurisdiction: str | None) -> str | None:
    """The inspector's profile file as an absolute path (the child works in a folder of its own); a
    profile name unchanged.
    """
    if jurisdiction and jurisdiction.endswith(".toml") and not Path(jurisdiction).is_absolute():
        return str(Path.cwd() / jurisdiction)
    return jurisdiction


# ------------------------------------------------------------------------------------------ the warm server


class Sandbox:
    """A warm server (geosite.review.sandbox_child) that forks one isolated child per check.

    Start it early (:meth:`start`: it imports while the caller works), run checks in it (:meth:`run`), and
    :meth:`close` it (or use it as a context manager). A server that died is restarted by the next run.
    ``warm``: the server first checks a small submission of its own, so every child it forks finds
    everything a check loads on first use already loaded (for a server that forks many: a batch
    worker's); ``geosite check``'s server, which forks one, skips it.
    """

    def __init__(self, warm: bool = True) -> None:
        self.warm = warm  # check a submission of geosite's own first (geosite.review.sandbox_child.warm_up)
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir: Path | None = None
        self._buffer = b""
        self._lock = threading.Lock()

    def start(self) -> Sandbox:
        """Start the server unless it is running.

        Returns
        -------
        Sandbox
            This sandbox.
        """
        if self._proc is not None and self._proc.poll() is None:
            return self
        self.close()
        self._dir = Path(tempfile.mkdtemp(prefix="geosite-sandbox-"))
        with open(self._dir / "server.log", "wb") as logfile:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "geosite.review.sandbox_child", "--serve", str(self._dir)]
                + (["--warm"] if self.warm else []),
                cwd=self._dir,
                env=child_env(self._dir),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=logfile,
                start_new_session=True,
                close_fds=True,
            )
        self._buffer = b""
        return self

    def run(
        self,
        tmp: Path,
        shown: Path,
        limits: Limits,
        deadline: float,
        meanwhile: Callable[[], None] | None = None,
    ) -> bytes:
        """One check in a forked child: its result's bytes, or an InputError for a crash or a limit.

        Parameters
        ----------
        tmp : Path
            The check's private folder (``request.pickle``, ``submission/``).
        shown : Path
            The submission as the inspector named it, for messages.
        limits : Limits
            The check's limits.
        deadline : float
            ``time.monotonic()`` by which the child must have ended (then it is killed).
        meanwhile : callable, optional
            Run once the child has started, while it works (the caller's own imports).

        Returns
        -------
        bytes
            The result's pickle, as the child wrote it.
        """
        (tmp / "work").mkdir(mode=0o700)
        (tmp / "child.log").touch(mode=0o600)
        t0 = time.monotonic()
        with self._lock:
            rc = self._child(tmp, shown, limits, deadline, meanwhile)
        result = tmp / "work" / "result.pickle"
        if rc == 0 and result.is_file() and 0 < result.stat().st_size <= MAX_RESULT_BYTES:
            return result.read_bytes()
        raise _crash(rc, tmp / "child.log", shown, limits, time.monotonic() - t0)

    def _child(
        self, tmp: Path, shown: Path, limits: Limits, deadline: float, meanwhile: Callable[[], None] | None
    ) -> int:
        """A child on ``tmp`` asked of the server and waited for: its exit code (LimitError past deadline)."""
        pid = None
        for _ in range(2):  # a server found dead is replaced once
            self.start()
            assert self._proc is not None and self._proc.stdin is not None
            try:
                self._proc.stdin.write(os.fsencode(str(tmp)) + b"\n")
                self._proc.stdin.flush()
                if meanwhile is not None:  # the caller's imports, while the server imports or forks
                    meanwhile()
                    meanwhile = None
                line = self._line(deadline)
            except (BrokenPipeError, EOFError):
                self.close()
                continue
            if line is None:  # the server never started a child before the deadline
                self.close()
                raise _wall_clock(shown, limits)
            pid = int(line.split()[1])
            break
        if pid is None:
            raise errors.UnreadableInputError(
                f"{one_line(shown)}: the sandbox could not be started; nothing written"
            )
        try:
            line = self._line(deadline)
        except BaseException:  # the inspector's Ctrl-C, or the server gone: the child goes too
            _kill(pid)
            self.close()
            raise
        if line is None:
            _kill(pid)
            with contextlib.suppress(EOFError):
                if self._line(time.monotonic() + 10) is None:
                    self.close()
            raise _wall_clock(shown, limits)
        return int(line.split()[2])

    def _line(self, deadline: float) -> str | None:
        """The server's next line, or None when ``deadline`` passes first; EOFError when it has ended."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            data = os.read(fd, 65536)
            if not data:
                raise EOFError("the sandbox's server ended")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("ascii", "replace")

    def close(self) -> None:
        """Stop the server (killed: it holds nothing to save) and remove its folder."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                if proc.stdin is not None:
                    proc.stdin.close()
            _kill(proc.pid)
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    @staticmethod
    def early() -> Sandbox | None:
        """The server :func:`start_early` started for this process's one check (taken: a second call
        gets None).

        Returns
        -------
        Sandbox or None
            The started server, or None.
        """
        global _EARLY
        box, _EARLY = _EARLY, None
        return box

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kill(pid: int) -> None:
    """SIGKILL the process ``pid`` and its process group (a child leads its own session)."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _wall_clock(shown: Path, limits: Limits) -> errors.LimitError:
    return errors.LimitError(
        f"{one_line(shown)}: reading and checking the submission took over {limits.check_seconds:,} s "
        "(check_seconds); stopped, nothing written. Raise with --limit check_seconds=N"
    )


_EARLY: Sandbox | None = None


def start_early() -> None:
    """Start a server for the one check this process will run (``geosite check``), before anything else
    is imported; the check takes it with :meth:`Sandbox.early`.
    """
    global _EARLY
    if _EARLY is None:
        _EARLY = Sandbox(warm=False).start()


_IDLE: list[Sandbox] = []
_POOL_LOCK = threading.Lock()


@contextlib.contextmanager
def shared_sandbox() -> Iterator[Sandbox]:
    """A warm server this process keeps for its checks (a batch worker's, a notebook's), taken for the
    block and given back after: each concurrent caller gets its own.

    Yields
    ------
    Sandbox
        The server, started or to be started.
    """
    with _POOL_LOCK:
        box = _IDLE.pop() if _IDLE else Sandbox()
    try:
        yield box
    finally:
        with _POOL_LOCK:
            _IDLE.append(box)


@atexit.register
def close_shared() -> None:
    """Stop the servers this process keeps (at exit), and an early one no check took."""
    with _POOL_LOCK:
        boxes = list(_IDLE)
        _IDLE.clear()
    early = Sandbox.early()
    if early is not None:
        boxes.append(early)
    for box in boxes:
        box.close()


def _crash(rc: int, logfile: Path, shown: Path, limits: Limits, seconds: float) -> errors.InputError:
    """The error for a child that ended without a result."""
    try:
        tail = logfile.read_bytes()[-4000:].decode("utf-8", "replace")
    except OSError:
        tail = ""
    if _OUT_OF_MEMORY.search(tail):
        return errors.LimitError(
            f"{one_line(shown)}: reading the submission needed more memory than check_memory_bytes "
            f"{memory_limit(limits):,}; stopped, nothing written. Raise with --limit check_memory_bytes=N"
        )
    if rc in (-signal.SIGXCPU, -signal.SIGKILL):
        return errors.LimitError(
            f"{one_line(shown)}: reading and checking the submission used over "
            f"{limits.check_cpu_seconds:,} s of CPU time (check_cpu_seconds); stopped, nothing written. "
            "Raise with --limit check_cpu_seconds=N"
        )
    last = [line for line in tail.strip().splitlines() if line.strip()][-1:] or [f"exit code {rc}"]
    return errors.UnreadableInputError(
        f"{one_line(shown)}: the process reading the submission ended without a result after "
        f"{seconds:.1f} s ({_signal_name(rc)}: {one_line(last[0][:300])}); a file in it "
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


def _unpack(payload: Any, staged: Staged, shown: Path, limits: Limits) -> CheckResult:
    """The child's CheckResult, checked like input (geosite.review.returned), with the staged files
    recorded; or its error raised, one line per problem; its warnings re-emitted.
    """
    from geosite.review.check import CheckResult
    from geosite.review.returned import check_returned

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
    record["staged"] = staged.to_dict()
    result.extra["sandbox"] = record
    result.extra["isolation"] = describe(record)  # the summary's line (findings.md, report.html)
    return result


def _error(payload: dict[str, Any], shown: Path) -> errors.InputError:
    """The child's error as the parent raises it: its class when it is an input error, its message one line
    (a site's problems one line each).
    """
    name = str(payload["error"])
    problems = payload.get("problems")
    if name == "SiteValidationError" and isinstance(problems, list):
        return errors.SiteValidationError([one_line(p) for p in problems], site=one_line(shown))
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
