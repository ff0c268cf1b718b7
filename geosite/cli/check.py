"""``geosite check``: review a submitted plan; exit 0 when it passes, 1 when findings fail, 2 on bad input."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from geosite.cli.app import (
    OVERWRITE,
    default_out,
    limit_option,
    limits_from,
    options,
    output_folder,
    state,
)

_OPTIONS = options(
    click.argument("submission_dir", type=click.Path(path_type=Path)),
    click.option(
        "--out",
        "out",
        type=click.Path(path_type=Path),
        default=None,
        help="Output folder (default: ./geosite-out/<submission folder name>-check). Never "
        "inside the submission.",
    ),
    click.option(
        "--jurisdiction",
        default=None,
        help="Profile name or profile file (.toml): the inspector's rulebook, overriding site.toml's "
        "(which may only name an installed profile: grantsburg, belgium).",
    ),
    click.option(
        "--dem",
        type=click.Path(path_type=Path),
        default=None,
        help="DEM file (e.g. the county LiDAR); overrides site.toml [dem] path.",
    ),
    click.option(
        "--dem-vertical-unit",
        type=click.Choice(["us_ft", "ft", "m"]),
        default=None,
        help="The DEM's vertical unit; overrides site.toml [dem] vertical_unit.",
    ),
    click.option(
        "--received",
        type=click.DateTime(formats=["%Y-%m-%d"]),
        default=None,
        help="Date the application, plan and fee were received (YYYY-MM-DD), for the review deadline.",
    ),
    OVERWRITE,
    click.option(
        "--make-valid",
        is_flag=True,
        help="Repair invalid polygons for the measurements and report each one as a failed finding "
        "(without it, invalid polygons are bad input: exit 2).",
    ),
    click.option("--no-html", is_flag=True, help="Skip report.html."),
    click.option(
        "--prices",
        type=click.Path(path_type=Path),
        default=None,
        help="Unit-price file (CSV: item, unit, price, source, date) for the estimate of the submitted "
        "quantities (the surety's basis); default: the village's published prices, if any.",
    ),
    limit_option,
)


@click.command("check")
@_OPTIONS
@click.pass_context
def check(
    ctx: click.Context,
    *,
    submission_dir: Path,
    out: Path | None,
    jurisdiction: str | None,
    dem: Path | None,
    dem_vertical_unit: str | None,
    received: dt.datetime | None,
    overwrite: bool,
    make_valid: bool,
    no_html: bool,
    prices: Path | None,
    limit: tuple[str, ...],
) -> None:
    """Check SUBMISSION_DIR (a site folder with a [declared] table) against its chapter, section by section.

    The submission is copied to a private folder and read there by a child process with no network,
    bounded memory and time, and only GeoTIFF, GeoPackage, shapefile, GeoJSON and DXF drivers
    (docs/security.md). Writes findings.json, findings.md, findings.gpkg (where each problem is: layers
    findings_points, findings_lines, findings_polygons; table findings for those without a place) and
    report.html. Exit code: 0 nothing fails (verdict pass, inspector_decision or incomplete), 1 some
    findings fail, 2 bad input.
    """
    from geosite.review.sandbox import Sandbox

    # started first (by the console script, before the command line is parsed, or here): the server
    # imports what the check and its outputs need while this process parses, checks --out and stages; the
    # outputs are then written by a process it forks (outside the sandbox, from the child's result), so this
    # process imports none of it
    with Sandbox.early() or Sandbox(warm=False) as box:
        from geosite.review.sandbox import check_and_write

        quiet = state(ctx).quiet
        steps = state(ctx).steps()
        out = out or default_out(submission_dir, "-check")
        inputs = [submission_dir] + ([dem] if dem else []) + ([prices] if prices else [])
        out = output_folder(out, inputs, overwrite)
        if prices is not None:  # the inspector's: refused before any work, priced by the writer (it re-reads)
            from geosite.plan.prices import read_prices

            read_prices(prices, limits_from(limit))
        with steps:
            written = check_and_write(
                submission_dir,
                out,
                overwrite=overwrite,
                html=not no_html,
                prices=prices,  # the inspector's, read by the writer: priced outside the sandbox
                step=steps,
                sandbox=box,
                jurisdiction=jurisdiction,
                dem=dem,
                dem_vertical_unit=dem_vertical_unit,
                received=received.date() if received else None,
                make_valid=make_valid,
                limits=limits_from(limit),
            )
    _warn(written.warnings)
    if not quiet:
        for line in written.lines:
            click.echo(line)
    sys.exit(written.exit_code)


def _warn(caught: list[tuple[str, str]]) -> None:
    """Show the warnings the check gave (their class from geosite.errors, their message one line)."""
    import warnings

    from geosite import errors

    for name, message in caught:
        cls = getattr(errors, name, None)
        if not (isinstance(cls, type) and issubclass(cls, Warning)):
            cls = errors.GeositeWarning
        warnings.warn(message, cls, stacklevel=2)
