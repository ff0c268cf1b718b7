"""The ``geosite`` command line: a thin layer over the API.

Exit codes: 0 done; 1 findings (``check``); 2 bad input (a usage error, a site that fails validation,
an output that exists without --overwrite).
"""

from __future__ import annotations

import logging
import sys
import time
import warnings
from pathlib import Path

import click

from geosite import __version__

log = logging.getLogger("geosite")


class _Steps:
    """Prints each pipeline step with the time the previous one took (stderr); silent with -q."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.t0 = self.t = time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        if not self.quiet:
            click.echo(f"[{now - self.t0:6.1f} s] {name} ...", err=True)
        self.t = now


def _setup_logging(verbose: int, quiet: bool) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def _show_warnings(quiet: bool) -> None:
    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
        if not quiet:
            click.echo(f"warning: {message}", err=True)

    warnings.showwarning = show


class _LazyGroup(click.Group):
    """Commands that live in their own modules (``geosite/commands/<name>.py``, each defining a click
    command named like the module) are imported only when used, so ``geosite --help`` stays fast."""

    lazy = ("check", "schedule", "batch")
    verbosity = ("-q", "--quiet", "-v", "-vv", "-vvv", "--verbose")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Accept -q/-v after the command too (``geosite analyze SITE -q``): they are the group's."""
        end = args.index("--") if "--" in args else len(args)
        flags = [a for a in args[:end] if a in self.verbosity]
        rest = [a for a in args[:end] if a not in self.verbosity] + args[end:]
        return super().parse_args(ctx, flags + rest)

    def _lazy_names(self) -> list[str]:
        import importlib.util

        return [n for n in self.lazy if importlib.util.find_spec(f"geosite.commands.{n}") is not None]

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._lazy_names()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name in self._lazy_names():
            import importlib

            return getattr(importlib.import_module(f"geosite.commands.{name}"), name)
        return super().get_command(ctx, name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="geosite")
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors.")
@click.pass_context
def cli(ctx: click.Context, verbose: int, quiet: bool) -> None:
    """Erosion control plans for construction sites (Wisconsin village ordinances)."""
    _setup_logging(verbose, quiet)
    _show_warnings(quiet)
    ctx.obj = {"quiet": quiet}


@cli.command()
@click.argument("site_dir", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: ./geosite-out/<site folder name>). Never inside the site folder.")
@click.option("--jurisdiction", default=None, help="Profile name; overrides site.toml (e.g. grantsburg, belgium).")
@click.option("--dem", type=click.Path(path_type=Path), default=None, help="DEM file; overrides site.toml [dem] path.")
@click.option("--dem-vertical-unit", type=click.Choice(["us_ft", "ft", "m"]), default=None,
              help="The DEM's vertical unit; overrides site.toml [dem] vertical_unit.")
@click.option("--overwrite", is_flag=True, help="Replace an existing output folder.")
@click.option("--make-valid", is_flag=True, help="Repair invalid polygons instead of rejecting them.")
@click.option("--strict", is_flag=True, help="Treat warnings (DEM coverage, reprojection) as errors.")
@click.option("--no-maps", is_flag=True, help="Skip the plan maps (PDF + PNG); write only the report and layers.")
@click.option("--sheet", default="auto", show_default=True, help="Map sheet: ANSI-A..D, ARCH-D (+ -landscape/-portrait), or auto.")
@click.option("--scale", "scale_ft", type=float, default=100.0, show_default=True,
              help="Map scale, feet per inch (100 or larger scales: 50, 40, 20).")
@click.pass_context
def analyze(ctx, site_dir, out, jurisdiction, dem, dem_vertical_unit, overwrite, make_valid, strict, no_maps, sheet, scale_ft) -> None:
    """Analyze SITE_DIR: areas, slopes, drainage and the ordinance's findings, each with its section."""
    from geosite.errors import InputError, OutputError
    from geosite.io.output import check_output_dir
    from geosite.pipeline import analyze as run_analysis
    from geosite.pipeline import write_outputs
    from geosite.site import load_site

    quiet = ctx.obj["quiet"]
    steps = _Steps(quiet)
    out = out or Path("geosite-out") / site_dir.resolve().name
    try:
        inputs = [site_dir] + ([dem] if dem else [])
        out = check_output_dir(out, inputs, overwrite)
        if not no_maps:
            from geosite.maps import check_scale, parse_sheet

            check_scale(scale_ft)
            if sheet != "auto":
                parse_sheet(sheet)
        steps("loading and validating the site")
        site = load_site(site_dir, jurisdiction=jurisdiction, dem=dem, dem_vertical_unit=dem_vertical_unit,
                         make_valid=make_valid, strict=strict)
        result = run_analysis(site, step=steps)
        steps("writing outputs" + ("" if no_maps else " and plan maps"))
        files = write_outputs(result, out, overwrite=overwrite, maps=not no_maps, sheet=sheet, scale_ft=scale_ft)
    except (InputError, OutputError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if not quiet:
        r = result.report
        d = r["disturbed"]
        click.echo(f"{site.name} ({r['jurisdiction_name']})")
        if d["area_sqft"] is not None:
            click.echo(f"  disturbed: {d['area_sqft']:,.0f} sq ft ({d['area_acres']:.3f} acres); "
                       f"at one time at most {d['max_at_one_time_acres']:.3f} acres")
        applies = r["applicability"]["applies"]
        click.echo(f"  chapter applies: {'not decided' if applies is None else 'yes' if applies else 'no'}; plan type: {r['plan_type']}")
        counts = {}
        for f in r["findings"]:
            counts[f["status"]] = counts.get(f["status"], 0) + 1
        click.echo("  findings: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
        for f in files:
            click.echo(f"  wrote {f}")


@cli.command("map")
@click.argument("site_dir", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: ./geosite-out/<site folder name>-maps). Never inside the site folder.")
@click.option("--sheet", default="auto", show_default=True,
              help="ANSI-A, ANSI-B, ANSI-C, ANSI-D, ARCH-D (optionally -landscape/-portrait), or auto: the "
                   "smallest that holds the site and its margin; a site too big for it is tiled.")
@click.option("--scale", "scale_ft", type=float, default=100.0, show_default=True,
              help="Feet per inch of paper: 100 or less (1 in = 100, 50, 40, 20 ft). Smaller scales are refused.")
@click.option("--margin", "margin_ft", type=float, default=None,
              help="Feet shown around the site (default: site.toml map_margin_ft, else the jurisdiction's, 200).")
@click.option("--jurisdiction", default=None, help="Profile name; overrides site.toml (e.g. grantsburg, belgium).")
@click.option("--no-hillshade", is_flag=True, help="Draw contours without the shaded relief under them.")
@click.option("--overwrite", is_flag=True, help="Replace an existing output folder.")
@click.pass_context
def map_cmd(ctx, site_dir, out, sheet, scale_ft, margin_ft, jurisdiction, no_hillshade, overwrite) -> None:
    """Draw SITE_DIR's plan maps: existing site map, construction plan, final conditions (PDF + PNG)."""
    from geosite.errors import InputError, OutputError
    from geosite.io.output import atomic_dir, check_output_dir
    from geosite.maps import render_plan_maps
    from geosite.maps.sheets import check_scale, parse_sheet
    from geosite.pipeline import analyze as run_analysis
    from geosite.site import load_site

    quiet = ctx.obj["quiet"]
    steps = _Steps(quiet)
    out = out or Path("geosite-out") / f"{site_dir.resolve().name}-maps"
    try:
        check_scale(scale_ft)  # refuse before any work
        parse_sheet(sheet)
        out = check_output_dir(out, [site_dir], overwrite)
        steps("loading and validating the site")
        site = load_site(site_dir, jurisdiction=jurisdiction)
        result = run_analysis(site, step=steps)
        steps("drawing the plan maps")
        with atomic_dir(out, overwrite=overwrite) as tmp:
            files = render_plan_maps(result, tmp, sheet=sheet, scale_ft=scale_ft, margin_ft=margin_ft,
                                     hillshade=not no_hillshade)
    except (InputError, OutputError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if not quiet:
        for f in files:
            click.echo(f"  wrote {out / f.name}")


def main() -> None:
    cli(prog_name="geosite")


if __name__ == "__main__":
    main()
