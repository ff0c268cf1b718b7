"""What the plan sheets' title block names about the people and the heights, and what of it a site folder
leaves out.

A sheet is a submittal: where an item is not given the title block shows an empty field for the preparer
to fill in by hand, never a note addressed to geosite's user. What is missing is said where that user
reads it instead: a warning when the site is analyzed (:class:`geosite.errors.TitleBlockWarning`) and a
line in report.json's and report.md's notes, each naming the site.toml key that gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Each contact the title block names: its row on the sheet, its site.toml table, the parts a submittal
#: gives (a firm is optional: a person may prepare a plan in their own name).
CONTACT_ROWS = (
    ("Applicant", "applicant", ("name", "address", "phone")),
    ("BMP maint.", "maintainer", ("name", "address", "phone")),
    ("Prepared by", "preparer", ("name", "address", "phone")),
)
#: How each part is named in a note.
PART_WORDS = {"name": "name", "address": "address", "phone": "daytime phone", "firm": "firm"}


@dataclass(frozen=True)
class TitleGap:
    """An item of the title block the site folder does not give.

    Attributes
    ----------
    row : str
        The title block's row (``Prepared by``).
    what : str
        The item in words (``the preparer's name, daytime phone``).
    key : str
        Where site.toml gives it (``[preparer] name, phone``).
    """

    row: str
    what: str
    key: str

    @property
    def note(self) -> str:
        """The line of report.json's notes: what is missing, where to give it, and what the sheets show."""
        return (
            f"title block: {self.what} not given (site.toml {self.key}); the plan sheets leave the "
            f"{self.row!r} field blank to fill in"
        )


def contact_parts(site: Any, table: str) -> dict[str, str]:
    """The parts of a contact site.toml gives (``name``, ``firm``, ``address``, ``phone``), blanks left out.

    Parameters
    ----------
    site : geosite.site.Site
        The site.
    table : str
        ``applicant``, ``maintainer`` or ``preparer``.

    Returns
    -------
    dict of str to str
        Each part given, stripped.
    """
    if table == "preparer":
        raw = site.settings.get("preparer") or {}
    else:
        c = getattr(site, table, None)
        raw = {k: getattr(c, k, None) for k in ("name", "address", "phone")} if c is not None else {}
    return {k: str(v).strip() for k, v in raw.items() if v is not None and str(v).strip()}


def vertical_datum(site: Any, dem_crs: Any = None) -> str | None:
    """The DEM heights' vertical datum: site.toml's ``[dem] vertical_datum``, else the vertical part of the
    DEM's own CRS (``dem_crs``, else read from the DEM file); None where neither says.

    Parameters
    ----------
    site : geosite.site.Site
        The site.
    dem_crs : pyproj.CRS or None
        The DEM's CRS as read (None: read from ``site.dem_path``).

    Returns
    -------
    str or None
        The datum's name (``NAVD88 height (ftUS)``).
    """
    given = site.settings.get("vertical_datum")
    if given:
        return str(given)
    if dem_crs is None and site.dem_path is not None:
        try:
            import rasterio
            from pyproj import CRS

            with rasterio.open(site.dem_path) as src:
                dem_crs = CRS.from_wkt(src.crs.to_wkt()) if src.crs is not None else None
        except Exception:  # a DEM that will not open is reported where it is read; here: not stated
            return None
    try:
        return next((c.name for c in dem_crs.sub_crs_list if c.is_vertical), None) if dem_crs else None
    except Exception:  # a CRS with no sub-CRS list: not stated
        return None


def title_block_gaps(site: Any) -> list[TitleGap]:
    """The title block's items ``site`` does not give: each contact's missing parts (:data:`CONTACT_ROWS`)
    and, where there is a DEM, its vertical datum.

    Parameters
    ----------
    site : geosite.site.Site
        The site.

    Returns
    -------
    list of TitleGap
        One per row with something missing.
    """
    out = []
    for row, table, parts in CONTACT_ROWS:
        given = contact_parts(site, table)
        missing = [p for p in parts if p not in given]
        if missing:
            who = {"applicant": "the applicant's", "maintainer": "the BMP maintainer's"}.get(
                table, "the preparer's"
            )
            out.append(
                TitleGap(
                    row,
                    f"{who} {', '.join(PART_WORDS[p] for p in missing)}",
                    f"[{table}] {', '.join(missing)}",
                )
            )
    has_dem = site.dem_path is not None or getattr(site, "dem_array", None) is not None
    if has_dem and vertical_datum(site) is None:
        out.append(TitleGap("Elevations", "the DEM heights' vertical datum", "[dem] vertical_datum"))
    return out


__all__ = ["CONTACT_ROWS", "TitleGap", "contact_parts", "title_block_gaps", "vertical_datum"]
