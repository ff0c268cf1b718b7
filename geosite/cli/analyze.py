"""``geosite analyze``: measure a site folder and write its report, layers and plan maps."""

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
    out_option("./geosite-out/<site folder name>"),
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
    OVERWRITE,
    click.option("--make-valid", is_flag=True, help="Repair invalid polygons instead of rejecting them."),
    click.option(
        "--strict",
        is_flag=True,
        help="Treat warnings (DEM coverage, reprojection, a site outside the village, "
        "implausible DEM heights) as errors.",
    ),
    click.option(
        "--no-maps", is_flag=True, help="Skip the plan maps (PDF + PNG); write only the report and layers."
    ),
    click.option(
        "--sheet",
        default="auto",
        show_default=True,
        help="Map sheet: ANSI-A..D, ARCH-D (+ -landscape/-portrait), or auto.",
    ),
    click.option(
        "--scale",
        "scale_ft",
        type=float,
        default=None,
        help="Map scale, feet per inch; default: the scale the village's chapter asks for (1 in = 100 ft "
        "in Grantsburg and Belgium). A smaller scale than the chapter allows is refused.",
    ),
    click.option(
        "--allow-outside-paths",
        "allow_outside",
        is_flag=True,
        help="Let site.toml name files outside SITE_DIR (your own folder only; "
        "`geosite check` never allows it).",
    ),
    click.option(
        "--prices",
        type=click.Path(path_type=Path),
        default=None,
        help="Unit-price file (CSV: item, unit, price, source, date) for the estimate of the plan's "
        "quantities; default: the village's published prices, if its profile has them, else none.",
    ),
    limit_option,
)


@click.command("analyze")
@_OPTIONS
@click.pass_context
def analyze(
    ctx: click.Context,
    *,
    site_dir: Path,
    out: Path | None,
    jurisdiction: str | None,
    dem: Path | None,
    dem_vertical_unit: str | None,
    overwrite: bool,
    make_valid: bool,
    strict: bool,
    no_maps: bool,
    sheet: str,
    scale_ft: float | None,
    allow_outside: bool,
    prices: Path | None,
    limit: tuple[str, ...],
) -> None:
    """Analyze SITE_DIR: areas, slopes, drainage and the ordinance's findings, each with its section."""
    from geosite.pipeline import analyze as run_analysis
    from geosite.pipeline import write_outputs
    from geosite.site import load_site

    quiet = state(ctx).quiet
    steps = state(ctx).steps()
    out = out or default_out(site_dir)
    inputs = [site_dir] + ([dem] if dem else []) + ([prices] if prices else [])
    out = output_folder(out, inputs, overwrite)
    limits = limits_from(limit)
    price_table = _before_work(scale_ft, sheet, no_maps=no_maps, prices=prices, limits=limits)
    from geosite.maps.worker import map_worker

    # the sheets are drawn in a worker process started now: it loads matplotlib while the site is measured
    with map_worker(enabled=not no_maps) as worker, steps:
        steps("loading and validating the site")
        site = load_site(
            site_dir,
            jurisdiction=jurisdiction,
            dem=dem,
            dem_vertical_unit=dem_vertical_unit,
            make_valid=make_valid,
            strict=strict,
            allow_outside=allow_outside,
            limits=limits,
        )
        if not no_maps:
            from geosite.maps.sheets import check_sheet_count

            check_sheet_count(site, scale_ft, sheet)
        result = run_analysis(site, step=steps, prices=price_table)
        steps("writing outputs" + ("" if no_maps else " and plan maps"))
        files = write_outputs(
            result,
            out,
            overwrite=overwrite,
            maps=not no_maps,
            sheet=sheet,
            scale_ft=scale_ft,
            map_worker=worker,
        )
    if not quiet:
        _print_summary(site.name, result.report, files)


def _before_work(
    scale_ft: float | None, sheet: str, *, no_maps: bool, prices: Path | None, limits: Any
) -> Any:
    """The options refused before any work: the map scale and sheet (with maps), the unit-price file
    (read and validated: its :class:`geosite.plan.PriceTable`, None when not given).

    Parameters
    ----------
    scale_ft : float or None
        The map scale, feet per inch.
    sheet : str
        The sheet size.
    no_maps : bool
        Whether the maps are skipped.
    prices : Path or None
        The unit-price file.
    limits : Limits
        Its size limits.

    Returns
    -------
    PriceTable or None
        The prices.
    """
    from geosite.plan import read_prices

    if not no_maps:
        _check_map_options(scale_ft, sheet)
    return read_prices(prices, limits) if prices is not None else None


def _check_map_options(scale_ft: float | None, sheet: str) -> None:
    """Refuse a map scale or sheet the maps cannot draw, before any work (the chapter's smallest scale is
    held against the scale once the site's profile is known: check_sheet_count).
    """
    from geosite.maps import check_scale, parse_sheet

    if scale_ft is not None:
        check_scale(scale_ft)
    if sheet != "auto":
        parse_sheet(sheet)


def _print_summary(site_name: str, report: dict[str, Any], files: list[Path]) -> None:
    """The analysis in a few lines: the disturbed area, whether the chapter applies, the findings counted
    by status and the files written.
    """
    r = report
    d = r["disturbed"]
    from geosite.io.text import one_line

    click.echo(one_line(f"{site_name} ({r['jurisdiction_name']})"))
    if d["area_sqft"] is not None:
        click.echo(
            f"  disturbed: {d['area_sqft']:,.0f} sq ft ({d['area_acres']:.3f} acres); "
            f"at one time at most {d['max_at_one_time_acres']:.3f} acres"
        )
    applies = r["applicability"]["applies"]
    click.echo(
        f"  chapter applies: {'not decided' if applies is None else 'yes' if applies else 'no'}; plan "
        f"type: {r['plan_type']}"
    )
    counts: dict[str, int] = {}
    for f in r["findings"]:
        counts[f["status"]] = counts.get(f["status"], 0) + 1
    click.echo("  findings: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    for f in files:
        click.echo(one_line(f"  wrote {f}"))
