"""What every benchmark measures the same way (imported by the scripts beside it).

* Figures are medians over rounds, and a ratio is the median of each round's ratio, the sides taking
  turns within a round: the machine may be shared, and its speed drifts within minutes, so a drift
  between one side's runs and the other's would be read as the code's cost.
* Peak memory is VmHWM from ``/proc/<pid>/status``: the process's own high-water mark (``ru_maxrss``
  of a child forked from a large Python process starts at its parent's). A geosite command is run
  through :data:`CLI`, which reads its VmHWM as it exits; a program not ours (GDAL's tools, SAGA) is
  started from GNU time's own small process, whose ``%M`` is then that program's VmHWM (the kernel
  keeps the larger of the two, and the small one is a few MB).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

#: Runs ``geosite.cli`` in this interpreter and writes its VmHWM (bytes) to the file named by
#: $GEOSITE_BENCH_HWM when it exits (a SystemExit too).
CLI = r"""
import os, runpy, sys
sys.argv = ["geosite", *sys.argv[1:]]
try:
    runpy.run_module("geosite.cli", run_name="__main__", alter_sys=True)
finally:
    hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1]
    with open(os.environ["GEOSITE_BENCH_HWM"], "w") as f:
        f.write(str(int(hwm) * 1024))
"""


def median(xs: Sequence[float]) -> float:
    """The median of ``xs`` (the mean of the middle two for an even count)."""
    s = sorted(xs)
    if not s:
        return float("nan")
    return (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2


def paired_ratio(num: Sequence[float], den: Sequence[float]) -> float:
    """The median of each round's ``num / den`` (the two lists round by round)."""
    return median([a / b for a, b in zip(num, den, strict=True)])


def peak_bytes() -> int:
    """This process's peak resident memory (VmHWM), bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def rss_bytes() -> int:
    """This process's resident memory now (VmRSS), bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status (Linux only)")


def reset_peak() -> None:
    """Set this process's VmHWM to its RSS now (what follows is measured from here)."""
    Path("/proc/self/clear_refs").write_text("5")


def run_cli(args: Sequence[str], *, env: dict[str, str] | None = None, cwd: Path | None = None):
    """One ``geosite ARGS`` in a fresh process: (wall seconds from outside, its VmHWM bytes, the
    completed process). Raises with its last lines of stderr when it fails."""
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="geosite-hwm-", delete=False) as f:
        hwm_file = Path(f.name)
    try:
        e = dict(env if env is not None else os.environ, GEOSITE_BENCH_HWM=str(hwm_file))
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True, env=e, cwd=cwd)
        wall = time.perf_counter() - t
        if p.returncode not in (0, 1):  # 1: check's failed findings, not a failed run
            raise RuntimeError(f"geosite {' '.join(args[:2])} failed: {p.stderr.strip().splitlines()[-3:]}")
        return wall, int(hwm_file.read_text() or 0), p
    finally:
        hwm_file.unlink(missing_ok=True)


def run_program(cmd: Sequence[str], *, cwd: Path | None = None) -> tuple[float, int]:
    """One run of a program not ours: (wall seconds, its VmHWM bytes from GNU time's ``%M``; 0 without
    GNU time). The wall time includes GNU time's fork, a millisecond."""
    gnu_time = shutil.which("time") or "/usr/bin/time"
    if not Path(gnu_time).exists():
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
        return time.perf_counter() - t, 0
    t = time.perf_counter()
    p = subprocess.run(
        [gnu_time, "-f", "%M", *cmd],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    wall = time.perf_counter() - t
    return wall, int(p.stderr.strip().splitlines()[-1]) * 1024


def machine() -> str:
    """CPUs and load average, printed beside every table (a loaded machine's figures are noisier)."""
    return f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (1 min)"
