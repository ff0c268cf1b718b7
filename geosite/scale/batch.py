"""Many site folders analysed in parallel on Dask, resumable, one output folder per site.

:func:`run_batch` sends one task per site folder to a Dask cluster: a
:class:`distributed.LocalCluster` of worker processes started here (nothing to set up), or an existing
cluster given by its scheduler address. Each task (:func:`process_site`) loads, analyses and writes
one site, and never raises: a site that fails (invalid input, or a bug) comes back as a summary row
with ``status = "error"`` and the message, and the other sites go on.

Outputs (``OUT/<site folder name>/``: report.json, report.md, derived.gpkg, inputs.sha256) are
written to a staging folder under ``OUT/.geosite-batch-tmp/`` and renamed into place only when
complete, with the input marker inside, so:

* a site folder in OUT is always complete (a worker killed mid-write leaves only staging debris,
  removed at the end of the batch);
* a task that Dask re-runs (its worker died after writing but before reporting) finds the same
  marker and keeps the existing folder: results are never duplicated or half-replaced;
* a second batch skips every site whose marker matches its inputs (:func:`inputs_hash`: site.toml's
  content, each file's path, size and mtime in the site folder, the DEM file's when it lives outside,
  the options that change results, geosite's version) and redoes the others.

Workers must see the same paths as the client (one machine, or a shared file system).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import time
import uuid
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from geosite.scale.batch_options import BatchOptions
from geosite.scale.inputs_marker import MARKER, inputs_hash, read_marker
from geosite.scale.summary import SUMMARY_COLUMNS, check_summaries, write_summary

if TYPE_CHECKING:
    from geosite.pipeline import AnalysisResult
    from geosite.review.check import CheckResult
    from geosite.site import Site

log = logging.getLogger(__name__)

#: Where partial outputs are staged inside OUT (same file system, so the final rename is atomic).
STAGING = ".geosite-batch-tmp"


@dataclass
class BatchResult:
    """One summary row per site (input order), and where the summary files went."""

    rows: list[dict[str, Any]]
    out: Path
    files: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every site was analysed."""
        return all(r["status"] == "ok" for r in self.rows)

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The rows of the sites that failed."""
        return [r for r in self.rows if r["status"] != "ok"]

    @property
    def plans_failed(self) -> list[dict[str, Any]]:
        """Sites checked (``--check``) whose plan has failed findings."""
        return [r for r in self.rows if r.get("verdict") == "fail"]


# ------------------------------------------------------------------------------------ input marker


# ------------------------------------------------------------------------------------ one site (task)


def site_key(site_dir: str | Path) -> str:
    """The site's output folder name: its folder's name, bounded and sanitized with a hash where it was
    changed or cut (:func:`geosite.io.names.safe_name`: the applicant chose it).
    """
    from geosite.io.names import safe_name

    return safe_name(Path(site_dir).resolve().name)


def _row(site_dir: Path, out_dir: Path) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(SUMMARY_COLUMNS)
    row.update(site=site_key(site_dir), folder=str(site_dir), output=str(out_dir), fail_findings=None)
    row["boundary_wkb"] = None
    row["crs"] = None
    return row


def _numbers_from_report(row: dict[str, Any], report: dict[str, Any]) -> None:
    findings = report.get("findings") or []
    row.update(
        name=report.get("site", {}).get("name"),
        jurisdiction=report.get("jurisdiction"),
        plan_type=report.get("plan_type"),
        applies=report.get("applicability", {}).get("applies"),
        site_acres=report.get("site", {}).get("area_acres"),
        disturbed_acres=report.get("disturbed", {}).get("area_acres"),
        max_at_one_time_acres=report.get("disturbed", {}).get("max_at_one_time_acres"),
        fail_findings=sum(1 for f in findings if f.get("status") == "fail"),
        findings=len(findings),
    )


def _row_from_existing(row: dict[str, Any], final: Path) -> None:
    """Fill a skipped site's row from the outputs already there (report.json, derived.gpkg)."""

    import pyogrio
    import shapely

    _numbers_from_report(row, json.loads((final / "report.json").read_text(encoding="utf-8")))
    try:
        gdf = pyogrio.read_dataframe(final / "derived.gpkg", layer="site_boundary")
        row["boundary_wkb"] = shapely.to_wkb(shapely.union_all(gdf.geometry.values))
        row["crs"] = gdf.crs.to_wkt() if gdf.crs is not None else None
    except Exception as exc:  # the numbers stand without the outline
        log.warning("%s: site boundary not read back (%s)", final, exc)


def _complete(folder: Path, check: bool = False) -> bool:
    files = ("report.json", "report.md", MARKER) + (("findings.json",) if check else ())
    return all((folder / f).is_file() for f in files)


def _verdict_from_existing(row: dict[str, Any], final: Path) -> None:

    summary = json.loads((final / "findings.json").read_text(encoding="utf-8"))
    row["verdict"] = summary.get("verdict")
    statuses = [f.get("status") for f in summary.get("findings") or []]
    row.update(fail_findings=statuses.count("fail"), findings=len(statuses))


def _publish(src: Path, final: Path, digest: str, staging: Path, overwrite: bool = False) -> str:
    """Move the finished folder ``src`` to ``final``. Returns "written" or "kept" (an identical result,
    from an earlier attempt of the same task, was already there). An existing ``final`` is replaced
    (atomically: geosite.io.output.swap_in) only when geosite wrote it, or with ``overwrite``.
    """
    from geosite.io.output import geosite_wrote, swap_in

    try:
        os.rename(src, final)
        return "written"
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    if read_marker(final) == digest and _complete(final):
        shutil.rmtree(src, ignore_errors=True)
        return "kept"
    ours = geosite_wrote(final)
    if not ours and not overwrite:
        from geosite.errors import OutputError

        shutil.rmtree(src, ignore_errors=True)
        raise OutputError(
            f"output folder {final} exists and geosite did not write it ({ours.why}); "
            "pass --overwrite to replace it"
        )
    swap_in(src, final)
    return "written"


def process_site(
    site_dir: str | Path, out: str | Path, options: BatchOptions | None = None
) -> dict[str, Any]:
    """Analyse one site folder into ``out/<folder name>/`` unless its outputs are up to date.

    Runs on a Dask worker (or anywhere). Never raises for a bad site: the row says ``status="error"``
    and why. Returns the summary row (with the site boundary as WKB and its CRS as WKT). With
    ``options.timeout_s`` the work runs in a child process killed at the limit (:func:`_in_child`).
    """
    options = options or BatchOptions()
    if options.timeout_s is not None:
        return _in_child(site_dir, out, options)
    return _process_site(site_dir, out, options)


def _in_child(site_dir: str | Path, out: str | Path, options: BatchOptions) -> dict[str, Any]:
    """:func:`process_site` in a child Python process of its own session, killed with everything it
    started when ``options.timeout_s`` passes (a stuck read, a runaway site); the row then says so.
    """
    import pickle
    import signal
    import subprocess
    import sys
    from dataclasses import replace

    t0 = time.perf_counter()
    child_options = replace(options, timeout_s=None)
    code = (
        "import pickle, sys; from geosite.scale.batch import process_site; "
        "import geosite.review.sandbox as s; s.POOL_WARM = False; "  # one site: no warming for a next
        "a = pickle.load(sys.stdin.buffer); sys.stdout.buffer.write(pickle.dumps(process_site(*a)))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(
            pickle.dumps((str(site_dir), str(out), child_options)), timeout=options.timeout_s
        )
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        row = _row(Path(site_dir).resolve(), Path(out).resolve() / site_key(site_dir))
        row.update(
            status="error",
            action="failed",
            output=None,
            seconds=round(time.perf_counter() - t0, 3),
            error=f"timed out: stopped after {options.timeout_s:g} s (--timeout); nothing was written",
        )
        return row
    if proc.returncode != 0 or not stdout:
        row = _row(Path(site_dir).resolve(), Path(out).resolve() / site_key(site_dir))
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        row.update(status="error", action="failed", output=None, error=f"internal error: {tail[0]}")
        return row
    return pickle.loads(stdout)


def _process_site(site_dir: str | Path, out: str | Path, options: BatchOptions) -> dict[str, Any]:
    from geosite.errors import InputError, OutputError

    t0 = time.perf_counter()
    site_dir, out = Path(site_dir).resolve(), Path(out).resolve()
    final = out / site_key(site_dir)
    row = _row(site_dir, final)
    try:
        digest, lines = inputs_hash(site_dir, options)
        if not options.force and read_marker(final) == digest and _complete(final, options.check):
            _row_from_existing(row, final)
            if options.check:
                _verdict_from_existing(row, final)
            row.update(status="ok", action="skipped", seconds=round(time.perf_counter() - t0, 3))
            return row

        import shapely

        from geosite.review.returned import geometry_errors_are_input

        site, result, checked = _analyze_site(site_dir, options)
        with geometry_errors_are_input(site_dir):  # the submission's geometry, in this process
            action = _write_site(
                out, final, result, checked, row, digest=digest, lines=lines, options=options
            )
            row["boundary_wkb"] = shapely.to_wkb(site.boundary)
        _numbers_from_report(row, result.report)
        if checked is not None:  # the plan's findings, not the analysis's
            row.update(fail_findings=len(checked.failed), findings=len(checked.findings))
        row["crs"] = site.crs.to_wkt()
        row.update(status="ok", action="analyzed" if action == "written" else "kept")
    except (InputError, OutputError) as exc:
        row.update(status="error", action="failed", error=str(exc), output=None)
    except Exception as exc:  # a bug on one site must not stop the others; the row carries it
        log.exception("%s: failed", site_dir)
        row.update(
            status="error", action="failed", error=f"internal error: {type(exc).__name__}: {exc}", output=None
        )
    row["seconds"] = round(time.perf_counter() - t0, 3)
    return row


class _SiteRun(NamedTuple):
    """One site's run: the site, its analysis, and its check as a submission (None without ``check``)."""

    site: Site
    result: AnalysisResult
    checked: CheckResult | None


def _analyze_site(site_dir: Path, options: BatchOptions) -> _SiteRun:
    """One site analyzed, or checked as a submission."""
    from geosite.pipeline import analyze
    from geosite.site import load_site

    checked = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report lists every note; workers have no terminal
        if options.check and options.sandbox:  # a submission: staged and read in a sandbox
            from geosite.review.sandbox import check_submission_sandboxed

            checked = check_submission_sandboxed(
                site_dir,
                jurisdiction=options.jurisdiction,
                make_valid=options.make_valid,
                limits=options.limits,
            )
            site, result = checked.site, checked.analysis
        elif options.check:  # a folder the caller trusts, checked in this process
            from geosite.review.check import check_submission

            checked = check_submission(
                site_dir,
                jurisdiction=options.jurisdiction,
                make_valid=options.make_valid,
                limits=options.limits,
            )
            site, result = checked.site, checked.analysis
        else:
            site = load_site(
                site_dir,
                jurisdiction=options.jurisdiction,
                make_valid=options.make_valid,
                strict=options.strict,
                allow_outside=options.allow_outside,
                limits=options.limits,
            )
            result = analyze(site)
    return _SiteRun(site, result, checked)


def _write_site(
    out: Path,
    final: Path,
    result: Any,
    checked: Any,
    row: dict[str, Any],
    *,
    digest: str,
    lines: list[str],
    options: BatchOptions,
) -> str:
    """The site's outputs (and its check's) written to a staging folder, marked with its inputs' digest,
    then published as ``final``; the check's verdict set on ``row``. Returns what :func:`_publish` did.
    """
    from geosite.io.output import write_manifest
    from geosite.pipeline import write_outputs

    staging = out / STAGING
    stage = staging / f"{final.name}-{uuid.uuid4().hex}"
    write_outputs(result, stage / "site")
    if checked is not None:
        from geosite.review import write_check_outputs

        for f in write_check_outputs(checked, stage / "check"):
            os.replace(f, stage / "site" / f.name)
        row["verdict"] = checked.verdict
    (stage / "site" / MARKER).write_text(digest + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    write_manifest(stage / "site", inputs_sha256=digest)
    action = _publish(stage / "site", final, digest, staging, options.overwrite)
    shutil.rmtree(stage, ignore_errors=True)
    return action


# ------------------------------------------------------------------------------------ the batch


def default_workers() -> int:
    """Local worker processes by default: one per CPU."""
    return max(os.cpu_count() or 1, 1)


def local_worker_env(n_workers: int) -> dict[str, str]:
    """Environment of local worker processes: the CPUs shared out between them, so n workers each
    running their threaded stencils on every CPU do not oversubscribe the machine (measured with
    numba's parallel kernels: 2 workers x 2 threads on 2 CPUs ran each site 2-3x slower than one
    process).
    """
    per = max((os.cpu_count() or 1) // max(n_workers, 1), 1)
    return {"NUMBA_NUM_THREADS": str(per), "OMP_NUM_THREADS": str(per)}


def local_cluster(n_workers: int) -> Any:
    """A :class:`distributed.LocalCluster` for a batch: ``n_workers`` processes of one thread, the CPUs
    shared out between them (:func:`local_worker_env`), no dashboard, and every task sent to the workers
    at once (worker-saturation inf: sites are short, and a worker waiting for its next task between
    sites cost 10 % of the throughput; work stealing still balances, and a dead worker's queue is
    rescheduled). The workers' statistical profiler (a thread taking the GIL every 10 ms to sample the
    running site) is off: a batch does not show Dask's dashboard.
    """
    import dask
    from distributed import LocalCluster

    with dask.config.set(
        {"distributed.scheduler.worker-saturation": float("inf"), "distributed.worker.profile.enabled": False}
    ):
        return LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            env=local_worker_env(n_workers),
        )


def check_sites(site_dirs: Sequence[str | Path]) -> list[Path]:
    """Resolve the site folders; refuse two with the same name (they would share an output folder)."""
    from geosite.errors import InputError
    from geosite.io.text import one_line

    dirs = [Path(d).resolve() for d in site_dirs]
    seen: dict[str, Path] = {}
    for d in dirs:
        key = site_key(d)
        if key in seen and seen[key] != d:
            raise InputError(
                f"site folders {one_line(seen[key])} and {one_line(d)} have the same name {one_line(key)!r}; "
                f"their outputs would share OUT/{one_line(key)}: rename one"
            )
        seen[key] = d
    return list(dict.fromkeys(dirs))


def run_batch(
    site_dirs: Sequence[str | Path],
    out: str | Path,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    options: BatchOptions | None = None,
    client: Any = None,
    progress: bool | Callable[[dict[str, Any]], None] = False,
) -> BatchResult:
    """Analyse every site folder on Dask; write OUT/<site>/ per site and OUT/summary.csv + .gpkg.

    Parameters
    ----------
    site_dirs : sequence of str or Path
        Site folders (each with a site.toml).
    out : str or Path
        Output folder (created; existing site outputs with matching markers are skipped).
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``); None starts a
        :class:`distributed.LocalCluster` of ``workers`` processes (one thread each) for this batch.
        An address nothing answers at is an :class:`~geosite.errors.InputError`.
    workers : int, optional
        Local worker processes (default: one per CPU); only without ``scheduler``/``client``.
    options : BatchOptions, optional
        What every site is run with.
    client : distributed.Client, optional
        An existing client to use (and leave open).
    progress : bool or callable
        True for a tqdm bar on stderr (drawn only on a terminal), or a callable given each row as it
        completes.

    Returns
    -------
    BatchResult
        One summary row per site, in input order, and the summary files written.
    """
    options = options or BatchOptions()
    dirs = check_sites(site_dirs)
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    check_summaries(out)  # before any work: never replace a summary geosite did not write
    cluster = None
    own_client = client is None
    try:
        if client is None:
            client, cluster = _connect(scheduler, workers or min(default_workers(), max(len(dirs), 1)))
        rows = _run_sites(client, dirs, out, options, progress)
    finally:
        if own_client and client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    shutil.rmtree(out / STAGING, ignore_errors=True)  # debris of killed attempts
    done = [r for r in rows if r is not None]
    files = write_summary(done, out)
    return BatchResult(done, out, files)


def _connect(scheduler: str | None, workers: int) -> tuple[Any, Any]:
    """(a Dask client, the local cluster it runs on or None): at ``scheduler``, else a local cluster of
    ``workers`` processes.
    """
    from distributed import Client

    if scheduler:
        from geosite.errors import InputError

        try:  # timeout: dask config distributed.comm.timeouts.connect (30 s)
            return Client(scheduler), None
        except (OSError, ValueError) as exc:
            raise InputError(
                f"cannot connect to the Dask scheduler at {scheduler!r}: {exc}; start one "
                "(dask scheduler) or leave out --scheduler for a local cluster"
            ) from exc
    cluster = local_cluster(workers)
    try:
        return Client(cluster), cluster
    except BaseException:
        cluster.close()
        raise


def _run_sites(
    client: Any,
    dirs: list[Path],
    out: Path,
    options: BatchOptions,
    progress: bool | Callable[[dict[str, Any]], None],
) -> list[dict[str, Any] | None]:
    """Each site's row, in ``dirs``' order: the sites processed on ``client``, shown as they complete."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:8]
    futures = client.map(
        process_site,
        [str(d) for d in dirs],
        out=str(out),
        options=options,
        key=[f"geosite-site-{token}-{i}-{site_key(d)}" for i, d in enumerate(dirs)],
        pure=False,
    )
    index = {f.key: i for i, f in enumerate(futures)}
    rows: list[dict[str, Any] | None] = [None] * len(dirs)
    bar = None
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(total=len(dirs), unit="site", desc="geosite batch", dynamic_ncols=True, disable=None)
    for fut in as_completed(futures):
        i = index[fut.key]
        try:
            row = fut.result()
        except Exception as exc:  # e.g. KilledWorker: the task killed its workers too often
            row = _row(dirs[i], out / site_key(dirs[i]))
            row.update(
                status="error",
                action="failed",
                error=f"task failed: {type(exc).__name__}: {exc}",
                output=None,
            )
        rows[i] = row
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(f"{row['site']}: {row['status']}", refresh=False)
        elif callable(progress):
            progress(row)
        fut.release()
    if bar is not None:
        bar.close()
    return rows


# ------------------------------------------------------------------------------------ summary


__all__ = [
    "BatchOptions",
    "BatchResult",
    "process_site",
    "run_batch",
]
