"""``geosite profile check FILE`` and ``geosite profile show NAME``: a village clerk's tools for a profile;
``geosite profile list``: the installed profiles (the jurisdictions a program offers, e.g. the QGIS plugin).

``check`` validates a profile file against the schema (every key, its kind, unit and allowed values; the
measures the stages record; the practices and their parameters) and prints every problem with the
nearest valid name: exit 0 when valid, 2 when not. ``show`` prints the profile's requirements as a table.
"""

from __future__ import annotations

import click


@click.group("profile")
def profile() -> None:
    """Check a jurisdiction profile, or show its requirements."""


@profile.command("check")
@click.argument("file")
def check(file: str) -> None:
    """Validate FILE (a profile .toml, or an installed profile's name): exit 0 valid, 2 with every problem."""
    from geosite.practices.validate import load_profile

    prof = load_profile(
        file
    )  # a ProfileError (exit 2) lists every problem with the key and the nearest valid name
    n = len(prof.requirements)
    click.echo(
        f"{prof.path}: valid profile {prof.id!r} ({prof.name}): {n} requirement{'s' if n != 1 else ''}, "
        f"{len(prof.applicability.triggers)} applicability triggers, "
        f"{len(prof.not_specified)} topics not specified or not read"
    )


@profile.command("list")
@click.option("--json", "as_json", is_flag=True, help='A JSON list of {"id": ..., "name": ...}.')
def list_cmd(as_json: bool) -> None:
    """List the installed profiles: the name to give --jurisdiction, and the jurisdiction's name."""
    import json

    from geosite.rules import load_profile
    from geosite.rules.profile import available_profiles

    rows = [{"id": p.id, "name": p.name} for p in map(load_profile, available_profiles())]
    if as_json:
        click.echo(json.dumps(rows))
        return
    for row in rows:
        click.echo(f"{row['id']}\t{row['name']}")


@profile.command("show")
@click.argument("name")
@click.option("--markdown", is_flag=True, help="A Markdown table (as docs/rules.md has it).")
def show(name: str, markdown: bool) -> None:
    """Print the requirements of profile NAME (an installed name or a .toml path) as a table."""
    from geosite.practices.validate import load_profile
    from geosite.rules.tables import requirement_rows

    prof = load_profile(name)
    header, rows = requirement_rows(prof)
    if markdown:
        click.echo("| " + " | ".join(header) + " |")
        click.echo("| " + " | ".join("---" for _ in header) + " |")
        for r in rows:
            click.echo("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
        return
    click.echo(f"{prof.name}: {prof.jurisdiction.chapter} ({prof.path})")
    for r in rows:
        click.echo("")
        for h, c in zip(header, r, strict=True):
            if c:
                click.echo(f"  {h:<12} {c}")
