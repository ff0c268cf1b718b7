"""Running one geosite command as a child process, its progress and log in QGIS's feedback.

geosite is started with ``--progress-json``: each stage it begins, each warning and a bad input arrive
as one line of JSON on stderr (``{"step": 3, "name": "reading the DEM", "elapsed_s": 0.29}``,
``{"warning": ...}``, ``{"error": ...}``); any other line (log output, a traceback) is passed on as it
is. Lines are read by two threads while the caller's thread polls the feedback every
:data:`POLL_S`: Cancel interrupts the child's whole process group (geosite's map worker and sandbox
included), which exits within :data:`GRACE_S` or is killed. A bad input (exit 2) raises
:class:`GeositeError` carrying geosite's one-line message.

Progress in percent needs the number of stages, which geosite cannot know before it runs (a site with
a proposed grade has one more); the caller passes the count the last run of the same command took
(:func:`percent`), and the run returns the count it took.

This module imports nothing from QGIS: ``feedback`` is any object with QgsProcessingFeedback's
``isCanceled``, ``setProgress``, ``setProgressText``, ``pushInfo``, ``pushWarning`` and
``pushConsoleInfo``.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .engine import child_env, hidden_window

#: Seconds between looks at the feedback's Cancel while the child is silent.
POLL_S = 0.1
#: Seconds a cancelled geosite has to stop (removing its temporary output) before it is killed.
GRACE_S = 5.0
#: Lines of stderr kept to explain a crash.
TAIL_LINES = 20


class GeositeError(Exception):
    """geosite refused its input (exit 2) or failed; ``str()`` is the one-line message to show."""


class Cancelled(Exception):
    """The user cancelled the run; the child has been stopped."""


@dataclass(frozen=True)
class Outcome:
    """A finished geosite run: its exit code, what it printed on stdout, the stages it went through."""

    returncode: int
    stdout: str
    steps: int
    warnings: tuple[str, ...]


def percent(step: int, expected: int | None) -> float | None:
    """Progress when stage ``step`` (from 1) begins, out of ``expected`` stages; None when unknown.

    Parameters
    ----------
    step : int
        The stage beginning (1 for the first).
    expected : int, optional
        The stages the last run of this command took.

    Returns
    -------
    float or None
        Percent done, 0 to 99 (100 is for the caller once outputs are loaded).
    """
    if not expected:
        return None
    return min(99.0, 100.0 * (step - 1) / expected)


def _pump(stream: Any, tag: str, lines: queue.Queue) -> None:
    for line in iter(stream.readline, ""):
        lines.put((tag, line.rstrip("\r\n")))
    lines.put((tag, None))


def _start(command: Sequence[str]) -> subprocess.Popen:
    """The child, in a process group of its own (so Cancel reaches every process it starts)."""
    group = (
        {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | hidden_window().get("creationflags", 0)}
        if sys.platform == "win32"
        else {"start_new_session": True}
    )
    return subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=child_env(),
        **group,
    )


def stop(proc: subprocess.Popen, grace_s: float = GRACE_S) -> None:
    """Interrupt ``proc``'s process group (Ctrl-C: geosite removes its temporary output), kill it after
    ``grace_s`` seconds.

    Parameters
    ----------
    proc : subprocess.Popen
        A child started by this module.
    grace_s : float
        Seconds it has to exit after the interrupt.
    """
    if proc.poll() is not None:
        return
    try:
        if sys.platform == "win32":
            proc.send_signal(signal.CTRL_BREAK_EVENT)
        else:
            os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=grace_s)
    except (OSError, subprocess.TimeoutExpired):
        pass
    if proc.poll() is None:
        if sys.platform == "win32":
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, check=False)
        else:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


class _Run:
    """The state of one run while its lines arrive."""

    def __init__(self, feedback: Any, expected_steps: int | None, echo_stdout: bool) -> None:
        self.feedback = feedback
        self.expected = expected_steps
        self.echo_stdout = echo_stdout
        self.steps = 0
        self.error: str | None = None
        self.warnings: list[str] = []
        self.stdout: list[str] = []
        self.tail: list[str] = []

    def stderr_line(self, line: str) -> None:
        event = _event(line)
        if event is None:
            self.tail = [*self.tail[-(TAIL_LINES - 1) :], line]
            if line.startswith("warning: "):
                self.warning(line[len("warning: ") :])
            elif line.strip():
                self.feedback.pushConsoleInfo(line)
        elif "step" in event:
            self.steps = int(event["step"])
            name = str(event.get("name", ""))
            self.feedback.setProgressText(f"geosite: {name}")
            self.feedback.pushInfo(f"geosite: {name} ({event.get('elapsed_s', 0):.1f} s)")
            done = percent(self.steps, self.expected)
            if done is not None:
                self.feedback.setProgress(done)
        elif "warning" in event:
            self.warning(str(event["warning"]))
        elif "error" in event:
            self.error = str(event["error"])

    def warning(self, text: str) -> None:
        self.warnings.append(text)
        self.feedback.pushWarning(f"geosite warning: {text}")

    def stdout_line(self, line: str) -> None:
        self.stdout.append(line)
        if self.echo_stdout and line.strip():
            self.feedback.pushInfo(line)

    def failure(self, code: int) -> GeositeError:
        """The error of a run that exited ``code``: geosite's message, else the end of what it said."""
        if self.error:
            return GeositeError(self.error)
        said = [t for t in self.tail if t.strip()]
        usage = [t for t in said if t.startswith("Error: ")]  # click's usage errors (exit 2)
        if usage:
            return GeositeError(f"geosite: {usage[-1][len('Error: ') :]}")
        last = said[-1] if said else "no message"
        return GeositeError(f"geosite stopped with exit code {code}: {last}")


def _event(line: str) -> dict | None:
    """The JSON object on a ``--progress-json`` line, else None."""
    if not line.startswith("{"):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def run_geosite(
    command: Sequence[str],
    feedback: Any,
    *,
    expected_steps: int | None = None,
    ok_codes: Sequence[int] = (0,),
    echo_stdout: bool = True,
) -> Outcome:
    """Run ``command`` (``[geosite, "--progress-json", SUBCOMMAND, ...]``) to its end, reporting to
    ``feedback``.

    Parameters
    ----------
    command : sequence of str
        The command line; its first item the geosite executable.
    feedback : QgsProcessingFeedback-like
        Where progress, log lines and warnings go, and whose Cancel is watched.
    expected_steps : int, optional
        Stages the last run of this command took (for the percentage; none: text only).
    ok_codes : sequence of int
        Exit codes that are results, not failures (``check`` exits 1 when findings fail).
    echo_stdout : bool
        Whether stdout lines go to the log too (off for a command printing JSON).

    Returns
    -------
    Outcome
        The exit code, stdout, and stages run.

    Raises
    ------
    Cancelled
        The feedback was cancelled; the child was stopped.
    GeositeError
        geosite exited with a code not in ``ok_codes``; the message is geosite's.
    """
    feedback.pushCommandInfo(" ".join(_quoted(c) for c in command))
    proc = _start(command)
    state = _Run(feedback, expected_steps, echo_stdout)
    lines: queue.Queue = queue.Queue()
    readers = [
        threading.Thread(target=_pump, args=(proc.stdout, "out", lines), daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, "err", lines), daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        _drain(proc, lines, state)
        code = proc.wait()
    finally:
        if proc.poll() is None:
            stop(proc)
        for reader in readers:
            reader.join(timeout=1.0)
        for stream in (proc.stdout, proc.stderr):
            stream.close()
    if code not in ok_codes:
        raise state.failure(code)
    return Outcome(code, "\n".join(state.stdout), state.steps, tuple(state.warnings))


def _drain(proc: subprocess.Popen, lines: queue.Queue, state: _Run) -> None:
    """Hand each line to ``state`` until both streams end; on Cancel, stop ``proc`` and raise."""
    open_streams = 2
    while open_streams:
        if state.feedback.isCanceled():
            stop(proc)
            raise Cancelled("cancelled: geosite was stopped")
        try:
            tag, line = lines.get(timeout=POLL_S)
        except queue.Empty:
            continue
        if line is None:
            open_streams -= 1
        elif tag == "err":
            state.stderr_line(line)
        else:
            state.stdout_line(line)


def _quoted(text: str) -> str:
    """``text`` as a shell reader would need it (for the log line of the command)."""
    return text if text and all(c.isalnum() or c in "-_./:=,@+" for c in text) else repr(text)
