"""``geosite schedule``: the review calendar of a site (deadlines, notices, inspections, stabilization)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from geosite.cli.app import JURISDICTION, OVERWRITE, SITE_DIR, options, output_folder, state

_DATE = click.DateTime(formats=["%Y-%m-%d"])


def _day(value: dt.datetime | None) -> dt.date | None:
    """The day of a ``--received``-style option (None when not given)."""
    return value.date() if value is not None else None


_OPTIONS = options(
    SITE_DIR,
    click.option(
        "--received",
        type=_DATE,
        default=None,
        help="Day the application, plan and fee were received (YYYY-MM-DD).",
    ),
    click.option("--issued", type=_DATE, default=None, help="Day the permit was issued (YYYY-MM-DD)."),
    click.option(
        "--info-received",
        type=_DATE,
        default=None,
        help="Day the needed information was received (YYYY-MM-DD).",
    ),
    click.option(
        "--rain",
        type=click.Path(path_type=Path),
        default=None,
        help="Daily rainfall CSV: columns date and rain_in (or rain_mm).",
    ),
    click.option(
        "--plan-type",
        type=click.Choice(["full", "statement", "both"]),
        default=None,
        help="Plan type; default from the disturbed area.",
    ),
    click.option(
        "--extension",
        "extensions",
        type=click.IntRange(min=1),
        multiple=True,
        help="Days added by a permit extension (repeat for each).",
    ),
    click.option(
        "--bmp-installed",
        type=_DATE,
        multiple=True,
        help="Day BMPs were installed (repeatable): the completion notice.",
    ),
    click.option(
        "--notice", type=_DATE, default=None, help="Day of a notice of violation or stop-work order."
    ),
    click.option(
        "--notice-of-intent", type=_DATE, default=None, help="Day a notice of intent was mailed or served."
    ),
    click.option(
        "--notice-without-permit",
        type=_DATE,
        default=None,
        help="Day of a notice where work goes on without a permit (the time to cease).",
    ),
    JURISDICTION,
    click.option(
        "--out",
        "out",
        type=click.Path(path_type=Path),
        default=None,
        help="Also write schedule.json and schedule.md to this folder (never inside the site folder).",
    ),
    click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="What to print.",
    ),
    OVERWRITE,
)


@click.command("schedule")
@_OPTIONS
@click.pass_context
def schedule(
    ctx: click.Context,
    *,
    site_dir: Path,
    received: dt.datetime | None,
    issued: dt.datetime | None,
    info_received: dt.datetime | None,
    rain: Path | None,
    plan_type: str | None,
    extensions: tuple[int, ...],
    bmp_installed: tuple[dt.datetime, ...],
    notice: dt.datetime | None,
    notice_of_intent: dt.datetime | None,
    notice_without_permit: dt.datetime | None,
    jurisdiction: str | None,
    out: Path | None,
    fmt: str,
    overwrite: bool,
) -> None:
    """The calendar of SITE_DIR: review and permit deadlines, notices, inspections, stabilization."""
    import json

    from geosite.rules import load_profile
    from geosite.schedule import build_schedule, read_rainfall
    from geosite.site import load_site

    quiet = state(ctx).quiet
    if out is not None:
        out = output_folder(out, [site_dir] + ([rain] if rain else []), overwrite)
    # a bad record is refused before anything else, with or without project dates
    rain_in = read_rainfall(rain) if rain is not None else None
    site = load_site(site_dir, jurisdiction=jurisdiction)
    profile = site.profile or load_profile(jurisdiction or site.jurisdiction)
    sched = build_schedule(
        site,
        profile,
        received=_day(received),
        issued=_day(issued),
        info_received=_day(info_received),
        rain=rain_in,
        plan_type=plan_type,
        extensions=extensions,
        bmp_installed=[d.date() for d in bmp_installed],
        notice=_day(notice),
        notice_of_intent=_day(notice_of_intent),
        notice_without_permit=_day(notice_without_permit),
    )
    if out is not None:
        sched.write(out, overwrite=overwrite)
    if fmt == "json":
        click.echo(json.dumps(sched.to_dict(), indent=2))
    elif not quiet:
        click.echo(sched.to_text(), nl=False)
    if out is not None and not quiet:
        click.echo(f"wrote {out / 'schedule.json'} and {out / 'schedule.md'}", err=True)
