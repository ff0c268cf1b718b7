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
import dataclasses
import json
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geosite import errors
from geosite.io.limits import Limits
from geosite.io.stage import stage_submission
from geosite.io.text import one_line
from geosite.io.text import printable as printable
from geosite.review.sandbox_child import BASE_MEMORY_BYTES as BASE_MEMORY_BYTES
from geosite.review.sandbox_child import CHILD_ENV as CHILD_ENV
from geosite.review.sandbox_child import child_env, memory_message

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
    analysis' outputs needs besides the check's own (the DEM window read, the plan folder's layers).
    ``sandbox``: the warm server to run in (default: one this process keeps, :func:`shared_sandbox`).
    Raises :class:`~geosite.errors.InputError` for every refusal, unreadable input, crash or limit.
    """
    from geosite.review.returned import safe_loads, unpack

    limits = limits or Limits()
    check: dict[str, Any] = {"jurisdiction": jurisdiction, "dem": dem, "dem_vertical_unit": dem_vertical_unit}
    check.update(received=received, make_valid=make_valid)
    request = {"limits": limits, "analysis_outputs": analysis_outputs, **_check_keywords(check)}
    with _sandboxed(folder, request, step, sandbox) as run:
        data = run.box.run(run.tmp, run.shown, limits, run.deadline, meanwhile=_load_writers)
        return unpack(safe_loads(data), run.staged, run.shown, limits)


@dataclass(frozen=True)
class Written:
    """What ``geosite check``'s outputs are, as the writer process wrote them: the files, the verdict in
    printable lines, the exit code (0 nothing fails, 1 some finding fails), the warnings to show (their
    class name and message).
    """

    files: list[str]
    lines: list[str]
    exit_code: int
    warnings: list[tuple[str, str]]


def check_and_write(
    folder: str | Path,
    out: Path,
    *,
    overwrite: bool = False,
    html: bool = True,
    prices: str | Path | None = None,
    step: Step | None = None,
    sandbox: Sandbox | None = None,
    **check: Any,
) -> Written:
    """``geosite check``: ``folder`` checked in the sandbox and its outputs written into ``out`` outside it,
    by a process the sandbox's server forks for that once the child has ended (so this process imports
    none of the libraries a check and its outputs load: the server has them).

    Parameters
    ----------
    folder : str or Path
        The submission.
    out : Path
        The output folder (checked by the caller: geosite.io.output.check_output_dir).
    overwrite : bool
        Whether an output folder geosite wrote may be replaced.
    html : bool
        Whether report.html is written.
    prices : str or Path, optional
        The inspector's unit-price file (:func:`geosite.plan.read_prices`), read by the writer outside the
        sandbox (it is the inspector's, not the applicant's) within the limits' table bounds.
    step : callable, optional
        Called with each stage's name.
    sandbox : Sandbox, optional
        The server to run in (default: this process's, :func:`shared_sandbox`).
    **check : Any
        :func:`check_submission_sandboxed`'s keywords (jurisdiction, dem, dem_vertical_unit, received,
        make_valid, limits).

    Returns
    -------
    Written
        What was written, and the verdict; an :class:`~geosite.errors.InputError` (or OutputError) when
        the check or the writing failed.
    """
    limits = check.pop("limits", None) or Limits()
    request = {"limits": limits, "analysis_outputs": False, **_check_keywords(check)}
    with _sandboxed(folder, request, step, sandbox) as run:
        ask = {
            "out": str(Path(out).resolve()),
            "overwrite": overwrite,
            "html": html,
            "prices": None if prices is None else str(Path(prices).resolve()),
            "shown": str(run.shown),
            "staged": run.staged,
            "limits": dataclasses.asdict(limits),
        }
        (run.tmp / "write.json").write_text(json.dumps(ask), encoding="utf-8")
        run.box.run(run.tmp, run.shown, limits, run.deadline, write=True)
        done = json.loads((run.tmp / "written.json").read_text(encoding="utf-8"))
    if "error" in done:
        raise _written_error(done, run.shown)
    return Written(
        files=[str(f) for f in done["files"]],
        lines=[str(x) for x in done["lines"]],
        exit_code=int(done["exit_code"]),
        warnings=[(str(c), str(m)) for c, m in done.get("warnings", [])],
    )


def _check_keywords(check: dict[str, Any]) -> dict[str, Any]:
    """The check's keywords as the child takes them (paths absolute: it works in a folder of its own)."""
    known = {"jurisdiction", "dem", "dem_vertical_unit", "received", "make_valid"}
    unknown = set(check) - known
    if unknown:
        raise TypeError(f"unknown keywords for the sandboxed check: {sorted(unknown)}")
    dem = check.get("dem")
    return {
        "jurisdiction": _absolute(check.get("jurisdiction")),
        "dem": None if dem is None else str(Path(dem).resolve()),
        "dem_vertical_unit": check.get("dem_vertical_unit"),
        "received": check.get("received"),
        "make_valid": bool(check.get("make_valid", False)),
    }


def _written_error(done: dict[str, Any], shown: Path) -> errors.GeositeError:
    """The writer's error raised here: its class when it is geosite's input or output error."""
    name, message = str(done["error"]), one_line(done.get("message"))
    problems = done.get("problems")
    if name == "SiteValidationError" and isinstance(problems, list):
        return errors.SiteValidationError([one_line(p) for p in problems], site=str(shown))  # by repr
    cls = getattr(errors, name, None)
    if (
        isinstance(cls, type)
        and issubclass(cls, errors.InputError | errors.OutputError)
        and cls is not errors.SiteValidationError
    ):
        return cls(message)
    return errors.InputError(message)


@dataclass(frozen=True)
class _Run:
    """One sandboxed check under way: its server, private folder, staged files, deadline and the name the
    inspector gave the submission."""

    box: Sandbox
    tmp: Path
    staged: dict[str, Any]
    deadline: float
    shown: Path


@contextlib.contextmanager
def _sandboxed(
    folder: str | Path, request: dict[str, Any], step: Step | None, sandbox: Sandbox | None
) -> Iterator[_Run]:
    """The submission staged in a private folder with the child's ``request`` beside it, for the block; the
    folder removed after it (the staged copy gone before any output is used).
    """
    limits: Limits = request["limits"]
    step = step or (lambda name: log.info(name))
    deadline = time.monotonic() + limits.check_seconds
    shown = Path(folder)
    with contextlib.ExitStack() as stack:
        box = sandbox if sandbox is not None else stack.enter_context(shared_sandbox())
        box.start()  # warming while the submission is staged
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="geosite-check-")))
        step("staging the submission")
        staged = stage_submission(shown, tmp / "submission", limits, deadline=deadline)
        full = {"root": str(staged.root.resolve()), "shown": str(shown), **request}
        (tmp / "request.pickle").write_bytes(pickle.dumps(full))
        step("reading and checking the submission in a sandbox")
        yield _Run(box, tmp, staged.to_dict(), deadline, shown)


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
    ``warm``: after its first check the server checks a small submission of its own, so every later
    child finds everything a check loads on first use already loaded (for a server that forks many: a
    batch worker's, a notebook's); ``geosite check``'s server, which forks one, skips it.
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
        *,
        meanwhile: Callable[[], None] | None = None,
        write: bool = False,
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
            The time, s on ``time.monotonic()``'s clock, by which the child (and the writer) must have
            ended (else they are killed).
        meanwhile : callable, optional
            Run once the request is sent, while the server works (the caller's own imports).
        write : bool
            Whether the server then forks the writer of ``geosite check``'s outputs
            (geosite.review.returned.write_checked, reading ``tmp/write.json``).

        Returns
        -------
        bytes
            The result's pickle, as the child wrote it (empty with ``write``: the writer read it).
        """
        (tmp / "work").mkdir(mode=0o700)
        (tmp / "child.log").touch(mode=0o600)
        t0 = time.monotonic()
        with self._lock:
            pid = self._ask(f"{tmp}\t{'write' if write else 'check'}", shown, limits, deadline, meanwhile)
            rc = self._exit_code(pid, shown, limits, deadline)
            written = None
            if rc == 0 and write:
                written = self._exit_code(self._started(shown, limits, deadline), shown, limits, deadline)
        result = tmp / "work" / "result.pickle"
        if rc != 0 or not result.is_file() or not 0 < result.stat().st_size <= MAX_RESULT_BYTES:
            raise _crash(rc, tmp / "child.log", shown, limits, time.monotonic() - t0)
        if not write:
            return result.read_bytes()
        if written != 0 or not (tmp / "written.json").is_file():
            tail = _tail(tmp / "writer.log")
            raise errors.OutputError(
                f"{one_line(shown)}: writing the outputs failed ({_signal_name(written or 0)}: {tail})"
            )
        return b""

    def _ask(
        self, request: str, shown: Path, limits: Limits, deadline: float, meanwhile: Callable[[], None] | None
    ) -> int:
        """Send the server ``request`` (replacing a server found dead, once): the child's process id."""
        for _ in range(2):
            self.start()
            assert self._proc is not None and self._proc.stdin is not None
            try:
                self._proc.stdin.write(os.fsencode(request) + b"\n")
                self._proc.stdin.flush()
                if meanwhile is not None:  # the caller's imports, while the server imports or forks
                    meanwhile()
                    meanwhile = None
                return self._started(shown, limits, deadline)
            except (BrokenPipeError, EOFError):
                self.close()
        raise errors.UnreadableInputError(
            f"{one_line(shown)}: the sandbox could not be started; nothing written"
        )

    def _started(self, shown: Path, limits: Limits, deadline: float) -> int:
        """The process id in the server's next line (``started PID``); LimitError past the deadline."""
        line = self._line(deadline)
        if line is None:  # the server never started it before the deadline
            self.close()
            raise _wall_clock(shown, limits)
        return int(line.split()[1])

    def _exit_code(self, pid: int, shown: Path, limits: Limits, deadline: float) -> int:
        """The exit code of the server's process ``pid`` (``exited PID RC``); killed past the deadline."""
        try:
            line = self._line(deadline)
        except BaseException:  # the inspector's Ctrl-C, or the server gone: the process goes too
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


#: Whether the servers this process keeps (:func:`shared_sandbox`) warm themselves after their first check:
#: a process that checks one submission and ends (batch --timeout's child per site) sets it False.
POOL_WARM = True
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
        box = _IDLE.pop() if _IDLE else Sandbox(warm=POOL_WARM)
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


def _tail(logfile: Path) -> str:
    """The last line of a log (one line, printable), or "no output"."""
    try:
        tail = logfile.read_bytes()[-4000:].decode("utf-8", "replace")
    except OSError:
        return "no output"
    last = [line for line in tail.strip().splitlines() if line.strip()][-1:]
    return one_line(last[0][:300]) if last else "no output"


def _crash(rc: int, logfile: Path, shown: Path, limits: Limits, seconds: float) -> errors.InputError:
    """The error for a child that ended without a result."""
    try:
        tail = logfile.read_bytes()[-4000:].decode("utf-8", "replace")
    except OSError:
        tail = ""
    last = [line for line in tail.strip().splitlines() if line.strip()][-1:] or [f"exit code {rc}"]
    if _OUT_OF_MEMORY.search(tail):
        return errors.LimitError(memory_message(str(shown), limits, last[0][:300]))
    if rc in (-signal.SIGXCPU, -signal.SIGKILL):
        return errors.LimitError(
            f"{one_line(shown)}: reading and checking the submission used over "
            f"{limits.check_cpu_seconds:,} s of CPU time (check_cpu_seconds); stopped, nothing written. "
            "Raise with --limit check_cpu_seconds=N"
        )
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
