"""``geosite map``: draw a site's plan maps only (existing site map, construction plan, final conditions).

With ``--submission`` the folder is an applicant's: read in the sandbox as ``geosite check`` reads it
(geosite.review.sandbox), the sheets drawn in this process from what the sandbox hands back alone (the
relief from the DEM window the child read): nothing opens the folder after it is staged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from geosite.cli.app import (
    JURISDICTION,
    OVERWRITE,
    SITE_DIR,
    default_out,
    limit_option,
    limits_from,
    options,
    out_option,
    output_folder,
    state,
)

_OPTIONS = options(
    SITE_DIR,
    out_option("./geosite-out/<site folder name>-maps"),
    click.option(
        "--sheet",
        default="auto",
        show_default=True,
        help="ANSI-A, ANSI-B, ANSI-C, ANSI-D, ARCH-D (optionally -landscape/-portrait), or auto: the "
        "smallest that holds the site and its margin; a site too big for it is tiled.",
    ),
    click.option(
        "--scale",
        "scale_ft",
        type=float,
        default=None,
        help="Feet per inch of paper; default: the scale the village's chapter asks for (1 in = 100 ft in "
        "Grantsburg and Belgium). A smaller scale than the chapter allows is refused.",
    ),
    click.option(
        "--margin",
        "margin_ft",
        type=float,
        default=None,
        help="Feet shown around the site (default: site.toml map_margin_ft, else the jurisdiction's: 200 in "
        "Grantsburg and Belgium).",
    ),
    JURISDICTION,
    click.option(
        "--dem",
        type=click.Path(path_type=Path),
        default=None,
        help="DEM file; overrides site.toml [dem] path.",
    ),
    click.option(
        "--dem-vertical-unit",
        type=click.Choice(["us_ft", "ft", "m"]),
        default=None,
        help="The DEM's vertical unit; overrides site.toml [dem] vertical_unit.",
    ),
    click.option("--no-hillshade", is_flag=True, help="Draw contours without the shaded relief under them."),
    click.option(
        "--submission",
        is_flag=True,
        help="SITE_DIR is an applicant's submission: read in the sandbox as `geosite check` reads it "
        "(docs/security.md), the maps drawn from its submitted controls.",
    ),
    OVERWRITE,
    limit_option,
)


@click.command("map")
@_OPTIONS
@click.pass_context
def map_cmd(
    ctx: click.Context,
    *,
    site_dir: Path,
    out: Path | None,
    sheet: str,
    scale_ft: float | None,
    margin_ft: float | None,
    jurisdiction: str | None,
    dem: Path | None,
    dem_vertical_unit: str | None,
    no_hillshade: bool,
    submission: bool,
    overwrite: bool,
    limit: tuple[str, ...],
) -> None:
    """Draw SITE_DIR's plan maps: existing site map, construction plan, final conditions (PDF + PNG).

    The construction plan shows the site's own controls (its bmps layer) where it has them, else the ones
    geosite proposes. With --submission, SITE_DIR is read in the sandbox of `geosite check`.
    """
    from geosite.maps import check_scale, parse_sheet, write_plan_maps
    from geosite.review.returned import geometry_errors_are_input

    quiet = state(ctx).quiet
    steps = state(ctx).steps()
    out = out or default_out(site_dir, "-maps")
    if scale_ft is not None:
        check_scale(scale_ft)  # refuse a number that is no scale before any work
    parse_sheet(sheet)
    out = output_folder(out, [site_dir] + ([dem] if dem else []), overwrite)
    read: dict[str, Any] = {"jurisdiction": jurisdiction, "dem": dem, "dem_vertical_unit": dem_vertical_unit}
    sheets: dict[str, Any] = {"scale_ft": scale_ft, "sheet": sheet, "margin_ft": margin_ft}
    with steps:
        if submission:
            result = _sandboxed_analysis(site_dir, read, sheets, limits_from(limit), steps)
        else:
            result = _analysis(site_dir, read, sheets, steps)
        steps("drawing the plan maps")
        with geometry_errors_are_input(site_dir):  # a submission's geometry, drawn in this process
            files = write_plan_maps(result, out, overwrite=overwrite, hillshade=not no_hillshade, **sheets)
    if not quiet:
        from geosite.io.text import one_line

        for f in files:
            click.echo(one_line(f"  wrote {f}"))


def _analysis(site_dir: Path, read: dict[str, Any], sheets: dict[str, Any], steps: Any) -> Any:
    """The analysis of a folder the user trusts (their own), in this process; its plan the site's own
    controls where its bmps layer has them. The sheet count is checked before the analysis.
    """
    from geosite.maps.sheets import check_sheet_count
    from geosite.pipeline import analyze as run_analysis
    from geosite.plan import plan_of
    from geosite.site import load_site

    steps("loading and validating the site")
    site = load_site(site_dir, **read)
    check_sheet_count(site, sheets["scale_ft"], sheets["sheet"], sheets["margin_ft"])
    result = run_analysis(site, step=steps)
    if site.layers.get("bmps") is not None:  # the site's own plan: the controls its layers hold
        result.plan = plan_of(result, "submitted")
    return result


def _sandboxed_analysis(
    site_dir: Path, read: dict[str, Any], sheets: dict[str, Any], limits: Any, steps: Any
) -> Any:
    """The analysis of a submission, read in the sandbox (the check's child, which hands back the DEM window
    it read and the submitted plan); the sheet count checked on what came back.
    """
    from geosite.maps.sheets import check_sheet_count
    from geosite.review.sandbox import check_submission_sandboxed

    checked = check_submission_sandboxed(site_dir, step=steps, limits=limits, **read)
    result = checked.analysis
    check_sheet_count(result.site, sheets["scale_ft"], sheets["sheet"], sheets["margin_ft"])
    return result
