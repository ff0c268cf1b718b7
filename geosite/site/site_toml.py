"""``site.toml`` read and checked: its tables and texts, the jurisdiction and its profile, the declared
CRS, the settings, the contacts and the project (dates, cut and fill); each problem appended to the
loader's list (:mod:`geosite.site.loading` raises them together).
"""

from __future__ import annotations

import datetime as dt
import math
import tomllib
from pathlib import Path
from typing import Any

from pyproj import CRS

from geosite.errors import (
    InputError,
    MissingInputError,
    UnreadableInputError,
)
from geosite.io.limits import Limits
from geosite.io.text import submission
from geosite.io.untrusted import inside, regular_file
from geosite.site.model import PLAT_VALUES, Contact, Project

#: Dates geosite accepts in site.toml and layers (a permit, its deadlines and inspections stay countable).
DATE_RANGE = (dt.date(1900, 1, 1), dt.date(2200, 12, 31))
#: The most cut or fill a site may declare, cubic yards (a large quarry moves ~10 M cu yd a year).
MAX_CUBIC_YARDS = 1e9


def jurisdiction_of(
    conf: dict[str, Any],
    jurisdiction: str | None,
    toml_path: Path,
    problems: list[str],
    *,
    installed_profile_only: bool,
) -> tuple[str | None, Any]:
    """The jurisdiction (the profile's id) and its profile; (None or the text given, None) with a problem."""
    from geosite.rules import load_profile

    profile = None
    juris = jurisdiction or conf.get("jurisdiction")
    if not juris:
        problems.append(
            f"{toml_path}: 'jurisdiction' is not set (a profile name such as grantsburg or belgium)"
        )
    elif not isinstance(juris, str):
        problems.append(
            f"{toml_path}: 'jurisdiction' = {juris!r}; use a profile name such as grantsburg or belgium"
        )
        juris = None
    else:
        try:
            installed = jurisdiction is None and (installed_profile_only or not juris.endswith(".toml"))
            profile = load_profile(juris, installed_only=installed)
            juris = profile.id
        except InputError as exc:
            problems.append(f"{toml_path}: {exc}")

    return juris, profile


def declared_crs(conf: dict[str, Any], toml_path: Path, problems: list[str]) -> CRS | None:
    """The CRS site.toml declares as ``crs`` (None when absent, or with a problem when pyproj does not
    know it).
    """
    declared_crs = None
    if conf.get("crs"):
        try:
            if not isinstance(conf["crs"], str | int) or isinstance(conf["crs"], bool):
                raise TypeError('use a text such as "EPSG:7593"')
            declared_crs = CRS.from_user_input(conf["crs"])
        except Exception as exc:  # pyproj.exceptions.CRSError
            problems.append(f"{toml_path}: crs {conf['crs']!r} is not a CRS pyproj knows ({exc})")

    return declared_crs


def read_site_toml(root: Path, limits: Limits | None = None) -> tuple[dict[str, Any], Path]:
    """``root/site.toml`` parsed: a regular file inside the folder, within ``limits.max_toml_bytes``,
    valid UTF-8 TOML. Returns (the table, its path).
    """
    limits = limits or Limits()
    toml_path = root / "site.toml"
    if not toml_path.exists() and not toml_path.is_symlink():
        raise MissingInputError(
            f"{toml_path}: missing; every site folder needs a site.toml (see docs/site_folder.md)"
        )
    real = inside(root, "site.toml", "site.toml")
    regular_file(real, "site.toml")
    limits.check_file_size(str(toml_path), real.stat().st_size, "max_toml_bytes")
    try:
        return tomllib.loads(real.read_text(encoding="utf-8")), toml_path
    except UnicodeDecodeError as exc:
        raise UnreadableInputError(
            f"{toml_path}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise UnreadableInputError(f"{toml_path}: not valid TOML ({exc})") from exc
    except RecursionError as exc:  # tomllib recurses once per nested array or inline table
        raise UnreadableInputError(
            f"{toml_path}: arrays or tables nested too deeply to read; refused"
        ) from exc


def toml_table(conf: dict[str, Any], key: str, where: Path, problems: list[str]) -> dict[str, Any]:
    """``conf[key]`` when it is a table (or absent: {}); anything else is a problem."""
    v = conf.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        problems.append(f"{where}: {key} = {v!r} must be a table ([{key}] with keys under it)")
        return {}
    return v


def toml_text(
    conf: dict[str, Any], key: str, where: Path | str, problems: list[str], label: str = ""
) -> str | None:
    """``conf[key]`` as a text (None when absent, or with a problem naming ``label`` or the key when it is
    not one).
    """
    v = conf.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        problems.append(f"{where}: {label or key} = {v!r} must be a text (in quotes)")
        return None
    return v


def settings_of(conf: dict[str, Any], where: Path, problems: list[str]) -> dict[str, Any]:
    """The site's own settings: map_margin_ft (a finite number of feet from 0 to 5,000), and for the
    sheets' title block ``[preparer]`` (name, firm, address, phone), ``[[revisions]]`` (no, date,
    description) and ``[dem] vertical_datum``, all texts.
    """
    out: dict[str, Any] = {}
    if "map_margin_ft" in conf:
        v = conf["map_margin_ft"]
        if (
            isinstance(v, bool)
            or not isinstance(v, int | float)
            or not math.isfinite(v)
            or not 0 <= v <= 5_000
        ):
            problems.append(f"{where}: map_margin_ft = {v!r}; use a number of feet from 0 to 5,000")
        else:
            out["map_margin_ft"] = float(v)
    if "preparer" in conf:
        prep = toml_table(conf, "preparer", where, problems)
        out["preparer"] = {
            k: t
            for k in ("name", "firm", "address", "phone")
            if (t := toml_text(prep, k, where, problems, f"[preparer] {k}")) is not None
        }
    revs = conf.get("revisions")
    if revs is not None:
        if not isinstance(revs, list) or not all(isinstance(r, dict) for r in revs):
            problems.append(f"{where}: revisions must be [[revisions]] tables (no, date, description)")
        else:
            out["revisions"] = [
                {
                    k: str(r[k])
                    for k in ("no", "date", "description")
                    if isinstance(r.get(k), str | int) and not isinstance(r.get(k), bool)
                }
                for r in revs
            ]
    if "soil_loss" in conf:  # NR 151.11's numbers the site gives, with their sources
        from geosite.site.soil_inputs import soil_loss_settings

        out["soil_loss"] = soil_loss_settings(conf["soil_loss"], where, problems)
    dem = conf.get("dem")
    if isinstance(dem, dict):
        datum = toml_text(dem, "vertical_datum", where, problems, "[dem] vertical_datum")
        if datum is not None:
            out["vertical_datum"] = datum
    return out


def contact_of(d: dict[str, Any], who: str, where: Path, problems: list[str]) -> Contact:
    """The [``who``] table (applicant or maintainer) as a Contact; a value that is not a text a problem."""

    def text(key: str) -> str | None:
        """The contact's ``key`` as a text (a phone number may be given as a number)."""
        v = d.get(key)
        if v is None or isinstance(v, str):
            return v
        if isinstance(v, int | float) and not isinstance(v, bool) and key == "phone":
            return str(v)
        problems.append(f"{where}: [{who}] {key} = {v!r} must be a text (in quotes)")
        return None

    # the author's texts, marked as such (geosite.io.text): each writer escapes them
    return Contact(
        name=submission(text("name")), address=submission(text("address")), phone=submission(text("phone"))
    )


def _project_date(d: dict[str, Any], key: str, where: Path, problems: list[str]) -> dt.date | None:
    """[project] ``key`` as a date in :data:`DATE_RANGE` (None when absent, or with a problem)."""
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, dt.datetime):
        problems.append(
            f"{where}: [project] {key} = {v.isoformat()} is a date and time; give the date alone "
            f"({key} = {v.date().isoformat()})"
        )
        return None
    if not isinstance(v, dt.date):
        try:
            v = dt.date.fromisoformat(v) if isinstance(v, str) else None
        except ValueError:
            v = None
        if v is None:
            problems.append(f"{where}: [project] {key} = {d.get(key)!r} is not a date (YYYY-MM-DD)")
            return None
    if not DATE_RANGE[0] <= v <= DATE_RANGE[1]:
        problems.append(
            f"{where}: [project] {key} = {v.isoformat()} is outside {DATE_RANGE[0].year}-"
            f"{DATE_RANGE[1].year}; check the year"
        )
        return None
    return v


def project_of(d: dict[str, Any], where: Path, problems: list[str]) -> Project:
    """The [project] table as a Project (dates, cut and fill in cubic yards, plat and flags); each value out
    of range or of the wrong kind a problem.
    """

    def number(key: str) -> float | None:
        """[project] ``key`` as a finite number of cubic yards in range, or None."""
        v = d.get(key)
        if v is None:
            return None
        if (
            isinstance(v, bool)
            or not isinstance(v, int | float)
            or not math.isfinite(v)
            or not 0 <= v <= MAX_CUBIC_YARDS
        ):
            problems.append(
                f"{where}: [project] {key} must be a finite number of cubic yards from 0 to "
                f"{MAX_CUBIC_YARDS:,.0f}, got {v!r}"
            )
            return None
        return float(v)

    def date(key: str) -> dt.date | None:
        """[project] ``key`` as a date, or None."""
        return _project_date(d, key, where, problems)

    def flag(key: str, default: bool | None) -> bool | None:
        """[project] ``key`` as true or false (``default`` when absent or not a boolean)."""
        v = d.get(key, default)
        if v is not None and not isinstance(v, bool):
            problems.append(f"{where}: [project] {key} = {v!r}; use true or false (no quotes)")
            return default
        return v

    plat = d.get("plat", "none")
    plat = plat.strip().lower() if isinstance(plat, str) else repr(plat)
    if plat not in PLAT_VALUES:
        problems.append(f"{where}: [project] plat = {plat!r}; use one of {', '.join(PLAT_VALUES)}")
    start, end = date("start"), date("end")
    if start and end and end < start:
        problems.append(f"{where}: [project] end {end} is before start {start}")
    bpd = d.get("building_permit_days")
    if bpd is not None and (isinstance(bpd, bool) or not isinstance(bpd, int) or not 0 <= bpd <= 36_500):
        problems.append(
            f"{where}: [project] building_permit_days = {bpd!r}; use a whole number of days (0 to 36,500)"
        )
        bpd = None
    return Project(
        start=start,
        end=end,
        cut_cy=number("cut_cy"),
        fill_cy=number("fill_cy"),
        plat=plat,
        dewatering=flag("dewatering", None),
        state_funded=bool(flag("state_funded", False)),
        building_permit_days=int(bpd) if bpd is not None else None,
        authority_superseded=bool(flag("authority_superseded", False)),
        landscaping_only=bool(flag("landscaping_only", False)),
    )
