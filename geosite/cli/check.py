"""``geosite check``: review a submitted plan; exit 0 when it passes, 1 when findings fail, 2 on bad input."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from geosite.cli.app import OVERWRITE, limit_option, limits_from, options, output_folder, state

if TYPE_CHECKING:
    from geosite.review import CheckResult

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
    from geosite.plan import read_prices
    from geosite.review import write_check_outputs
    from geosite.review.sandbox import check_submission_sandboxed

    quiet = state(ctx).quiet
    steps = state(ctx).steps()
    out = out or Path("geosite-out") / f"{submission_dir.resolve().name}-check"
    inputs = [submission_dir] + ([dem] if dem else []) + ([prices] if prices else [])
    out = output_folder(out, inputs, overwrite)
    price_table = read_prices(prices, limits_from(limit)) if prices is not None else None  # the inspector's
    with steps:
        result = check_submission_sandboxed(
            submission_dir,
            jurisdiction=jurisdiction,
            dem=dem,
            dem_vertical_unit=dem_vertical_unit,
            received=received.date() if received else None,
            make_valid=make_valid,
            step=steps,
            limits=limits_from(limit),
        )
        result.prices = price_table  # priced here, outside the sandbox: the prices are the inspector's
        steps("writing outputs")
        files = write_check_outputs(result, out, overwrite=overwrite, html=not no_html)
    if not quiet:
        _print_verdict(result, files)
    sys.exit(result.exit_code)


def _print_verdict(result: CheckResult, files: list[Path]) -> None:
    """The verdict in a few lines: what fails, what the inspector decides, what would settle an incomplete
    plan, the review deadline and the files written (the applicant's texts made printable: no escapes).
    """
    from geosite.review.sandbox import printable

    def _say(text: str) -> None:
        click.echo(printable(text))

    s = result.summary()
    _say(f"{result.site.name} ({s['jurisdiction_name']}): {s['verdict'].upper()} ({s['counts_text']})")
    for f in result.failed:
        _say(f"  FAIL {f.citation or '-'} {f.rule}: {f.message}")
    for f in result.decisions:
        _say(f"  INSPECTOR'S DECISION {f.citation or '-'} {f.rule}: {f.message}")
    for f in result.open_questions if result.verdict == "incomplete" else []:
        _say(
            f"  NOT ASSESSED {f.citation or '-'} {f.rule}: settle with "
            f"{f.settle or 'the data named in the finding'}"
        )
    if s.get("review_deadline"):
        _say(f"  review deadline: {s['review_deadline']}")
    for path in files:
        _say(f"  wrote {path}")
