"""``geosite batch``: analyse many site folders in parallel on Dask (see geosite.scale.batch)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from geosite.cli.app import limit_option, limits_from, options, output_folder, state

if TYPE_CHECKING:
    from geosite.scale.batch import BatchResult

_OPTIONS = options(
    click.argument(
        "sites", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
    ),
    click.option(
        "--out",
        "out",
        type=click.Path(path_type=Path),
        default=Path("geosite-out"),
        show_default=True,
        help="Output folder: OUT/<site folder name>/ per site, OUT/summary.csv and OUT/summary.gpkg. "
        "Sites whose outputs are up to date are skipped.",
    ),
    click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Address of a running Dask scheduler (tcp://host:8786). Default: a local cluster for this run.",
    ),
    click.option(
        "--workers",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes of the local cluster (default: one per CPU). Not with --scheduler.",
    ),
    click.option(
        "--jurisdiction", default=None, help="Profile name for every site; overrides each site.toml."
    ),
    click.option("--make-valid", is_flag=True, help="Repair invalid polygons instead of rejecting them."),
    click.option("--strict", is_flag=True, help="Treat warnings (DEM coverage, reprojection) as errors."),
    click.option(
        "--force", is_flag=True, help="Analyse every site again, even those whose outputs are up to date."
    ),
    click.option(
        "--check",
        "check",
        is_flag=True,
        help="Check each site as a submitted plan too (as geosite check); exit 1 when any plan fails.",
    ),
    click.option(
        "--timeout",
        "timeout_s",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        metavar="SECONDS",
        help="Stop a site's work after this many seconds (it runs in a child process, killed at the limit); "
        "the site fails, the others go on.",
    ),
    click.option(
        "--overwrite",
        is_flag=True,
        help="Replace an existing OUT/<site> folder that geosite did not write (its own are replaced when "
        "their inputs change).",
    ),
    click.option(
        "--allow-outside-paths",
        "allow_outside",
        is_flag=True,
        help="Let each site.toml name files outside its folder (your own sites; never with --check).",
    ),
    limit_option,
)


@click.command()
@_OPTIONS
@click.pass_context
def batch(
    ctx: click.Context,
    *,
    sites: tuple[Path, ...],
    out: Path,
    scheduler: str | None,
    workers: int | None,
    jurisdiction: str | None,
    make_valid: bool,
    strict: bool,
    force: bool,
    check: bool,
    timeout_s: float | None,
    overwrite: bool,
    allow_outside: bool,
    limit: tuple[str, ...],
) -> None:
    """Analyse every SITES folder in parallel (Dask); one output folder per site and a summary table.

    Exit codes: 0 every site succeeded (or was up to date), 1 some sites failed (see the summary) or,
    with --check, some plan has failed findings,
    2 bad usage (no such folder, two sites with the same name, output inside an input, no scheduler).
    """
    from geosite.scale.batch import BatchOptions, check_sites, run_batch

    quiet = state(ctx).quiet
    if scheduler and workers:
        raise click.UsageError(
            "--workers sizes the local cluster; with --scheduler the cluster's own workers run the sites",
            ctx=ctx,
        )
    if check and allow_outside:
        raise click.UsageError(
            "--allow-outside-paths is for your own sites; a checked submission keeps to its folder", ctx=ctx
        )
    dirs = check_sites(sites)
    output_folder(out, dirs, overwrite=True, container=True)
    options = BatchOptions(
        jurisdiction=jurisdiction,
        make_valid=make_valid,
        strict=strict,
        force=force,
        check=check,
        timeout_s=timeout_s,
        overwrite=overwrite,
        allow_outside=allow_outside,
        limits=limits_from(limit),
    )
    result = run_batch(dirs, out, scheduler=scheduler, workers=workers, options=options, progress=not quiet)
    if not quiet:
        _print_summary(result)
    sys.exit(0 if result.ok and not result.plans_failed else 1)


def _print_summary(result: BatchResult) -> None:
    """The sites counted by outcome, each failed site and failed plan, and the files written."""
    from geosite.io.text import one_line
    from geosite.scale.summary import summary_counts

    counts = summary_counts(result.rows)
    click.echo(f"{len(result.rows)} sites: " + ", ".join(f"{n} {a}" for a, n in sorted(counts.items())))
    for r in result.failed:  # the applicant's names and texts: one line each
        click.echo(one_line(f"  {r['site']}: {r['error']}"), err=True)
    for r in result.plans_failed:
        click.echo(one_line(f"  {r['site']}: plan fails ({r.get('fail_findings')} failed findings)"))
    for f in result.files:
        click.echo(one_line(f"  wrote {f}"))
