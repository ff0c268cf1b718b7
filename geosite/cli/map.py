"""``geosite map``: draw a site's plan maps only (existing site map, construction plan, final conditions)."""

from __future__ import annotations

from pathlib import Path

import click

from geosite.cli.app import JURISDICTION, OVERWRITE, SITE_DIR, options, out_option, output_folder, state

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
    OVERWRITE,
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
    overwrite: bool,
) -> None:
    """Draw SITE_DIR's plan maps: existing site map, construction plan, final conditions (PDF + PNG).

    The construction plan shows the site's own controls (its bmps layer) where it has them, else the ones
    geosite proposes.
    """
    from geosite.maps import check_scale, parse_sheet, write_plan_maps
    from geosite.pipeline import analyze as run_analysis
    from geosite.plan import plan_of
    from geosite.site import load_site

    quiet = state(ctx).quiet
    steps = state(ctx).steps()
    out = out or Path("geosite-out") / f"{site_dir.resolve().name}-maps"
    if scale_ft is not None:
        check_scale(scale_ft)  # refuse a number that is no scale before any work
    parse_sheet(sheet)
    out = output_folder(out, [site_dir] + ([dem] if dem else []), overwrite)
    with steps:
        steps("loading and validating the site")
        site = load_site(site_dir, jurisdiction=jurisdiction, dem=dem, dem_vertical_unit=dem_vertical_unit)
        from geosite.maps.sheets import check_sheet_count

        check_sheet_count(
            site, scale_ft, sheet, margin_ft
        )  # the margin and the sheet count, before the analysis
        result = run_analysis(site, step=steps)
        if site.layers.get("bmps") is not None:  # the site's own plan: the controls its layers hold
            result.plan = plan_of(result, "submitted")
        steps("drawing the plan maps")
        files = write_plan_maps(
            result,
            out,
            overwrite=overwrite,
            sheet=sheet,
            scale_ft=scale_ft,
            margin_ft=margin_ft,
            hillshade=not no_hillshade,
        )
    if not quiet:
        for f in files:
            click.echo(f"  wrote {f}")
