"""Units: one table of factors, and the conversions geosite does at its edges.

Conventions (see README, "Units"):

* Lengths are reported in feet. When the site CRS is in US survey feet (the WISCRS systems) a reported
  foot is a US survey foot; when it is in international feet, an international foot; a metre CRS is
  converted to international feet. ``report.json`` names the foot it used. The two feet differ by
  2 parts per million, far below any tolerance the ordinances imply, but we never mix them silently.
* Areas in sq ft and acres (43,560 sq ft), volumes in cubic yards (27 cu ft), rain in inches.
* Elevations are converted to feet once, when a DEM is read; slopes are computed with both the
  horizontal and the vertical distance in feet.
"""

from __future__ import annotations

from enum import Enum

from pyproj import CRS

from geosite.errors import CRSError, UnitError

METRES_PER_US_SURVEY_FOOT = 1200.0 / 3937.0
METRES_PER_FOOT = 0.3048
SQFT_PER_ACRE = 43_560.0
CUFT_PER_CUYD = 27.0


class VerticalUnit(str, Enum):
    """Units a DEM's heights may be in. The value is the spelling used in site.toml and on the CLI."""

    US_FT = "us_ft"
    FT = "ft"
    M = "m"

    @property
    def metres(self) -> float:
        """Metres per unit."""
        return _METRES[self]

    @property
    def label(self) -> str:
        """The unit's name as reports print it."""
        return _LABELS[self]


_METRES = {
    VerticalUnit.US_FT: METRES_PER_US_SURVEY_FOOT,
    VerticalUnit.FT: METRES_PER_FOOT,
    VerticalUnit.M: 1.0,
}
_LABELS = {
    VerticalUnit.US_FT: "US survey foot",
    VerticalUnit.FT: "international foot",
    VerticalUnit.M: "metre",
}


def parse_vertical_unit(value: object, where: str = "vertical_unit") -> VerticalUnit:
    """Parse a vertical unit spelling; a missing or unknown one is a :class:`UnitError` listing the valid
    ones.
    """
    if isinstance(value, VerticalUnit):
        return value
    valid = ", ".join(u.value for u in VerticalUnit)
    if value is None or value == "":
        raise UnitError(
            f"{where}: the DEM's vertical unit is not given; geosite never guesses it. "
            f"Set it in site.toml ([dem] vertical_unit) or pass --dem-vertical-unit ({valid})."
        )
    text = str(value).strip().lower().replace("-", "_").replace(" ", "_")
    try:
        return VerticalUnit(VERTICAL_UNIT_ALIASES.get(text, text))
    except ValueError:
        raise UnitError(f"{where}: unknown vertical unit {value!r}; use one of: {valid}") from None


#: Other spellings of the vertical units that site.toml files and LiDAR metadata use.
VERTICAL_UNIT_ALIASES = {
    "usft": "us_ft",
    "ftus": "us_ft",
    "ft_us": "us_ft",
    "us_survey_ft": "us_ft",
    "us_survey_foot": "us_ft",
    "us_survey_feet": "us_ft",
    "survey_ft": "us_ft",
    "survey_foot": "us_ft",
    "survey_feet": "us_ft",
    "foot": "ft",
    "feet": "ft",
    "international_foot": "ft",
    "international_feet": "ft",
    "intl_ft": "ft",
    "metre": "m",
    "metres": "m",
    "meter": "m",
    "meters": "m",
}


def crs_linear_unit_metres(crs: CRS, what: str) -> float:
    """Metres per horizontal unit of a projected CRS; a geographic or unitless CRS is a :class:`CRSError`."""
    if crs is None:
        raise CRSError(
            f"{what} has no CRS; assign one (e.g. EPSG:7593 for Burnett County WISCRS, US survey feet)"
        )
    if crs.is_geographic:
        raise CRSError(
            f"{what} is in a geographic CRS ({crs.name}, degrees): distances and areas would be wrong. "
            "Reproject it to the site's WISCRS county system, or name a target CRS (site.toml 'crs')."
        )
    if not crs.is_projected:
        raise CRSError(
            f"{what} has a CRS that is not projected ({crs.name}); use a projected CRS in feet or metres"
        )
    axis = crs.axis_info[0]
    factor = axis.unit_conversion_factor
    if not factor or axis.unit_name in ("unknown", ""):
        raise CRSError(f"{what}: the CRS {crs.name} does not state its linear unit")
    return float(factor)


def feet_per_crs_unit(crs: CRS, what: str) -> float:
    """Feet per horizontal CRS unit, in the foot that :func:`foot_name` reports.

    A US-survey-foot or international-foot CRS gives exactly 1.0 (lengths stay in that foot); a metre
    CRS gives 1 / 0.3048.
    """
    m = crs_linear_unit_metres(crs, what)
    if _close(m, METRES_PER_US_SURVEY_FOOT) or _close(m, METRES_PER_FOOT):
        return 1.0
    return m / METRES_PER_FOOT


def foot_name(crs: CRS) -> str:
    """Which foot lengths are reported in for a site in ``crs``."""
    m = crs_linear_unit_metres(crs, "site CRS")
    return "US survey foot" if _close(m, METRES_PER_US_SURVEY_FOOT) else "international foot"


def crs_unit_abbrev(crs: CRS) -> str:
    """The site CRS's horizontal unit as a person reads it after a coordinate: "US ft", "ft" or "m"."""
    m = crs_linear_unit_metres(CRS.from_user_input(crs), "site CRS")
    if _close(m, METRES_PER_US_SURVEY_FOOT):
        return "US ft"
    if _close(m, METRES_PER_FOOT):
        return "ft"
    return "m" if _close(m, 1.0) else f"units of {m:g} m"


def coordinates(x: float, y: float, crs: CRS | None) -> str:
    """A point in the site CRS as every message and report writes it: ``E 153322, N 151932 (US ft)``.

    Whole units, no thousands separators (a comma there makes one coordinate read as two), easting first,
    the CRS's unit in brackets. The one formatter of coordinates for people (``tests/test_for_people.py``).

    Parameters
    ----------
    x, y : float
        Easting and northing, in the CRS's unit.
    crs : pyproj.CRS or None
        The site CRS (None: the unit is left out).

    Returns
    -------
    str
        The point in words.
    """
    unit = f" ({crs_unit_abbrev(crs)})" if crs is not None else ""
    return f"E {float(x):.0f}, N {float(y):.0f}{unit}"


def vertical_to_feet(unit: VerticalUnit, site_crs: CRS | None = None) -> float:
    """Factor turning heights in ``unit`` into the site's reported foot (see :func:`foot_name`)."""
    foot_m = METRES_PER_FOOT
    if site_crs is not None and foot_name(site_crs) == "US survey foot":
        foot_m = METRES_PER_US_SURVEY_FOOT
    if unit is VerticalUnit.US_FT and foot_m == METRES_PER_US_SURVEY_FOOT:
        return 1.0
    if unit is VerticalUnit.FT and foot_m == METRES_PER_FOOT:
        return 1.0
    return unit.metres / foot_m


def sqft_to_acres(area_sqft: float) -> float:
    """An area in sq ft, in acres."""
    return area_sqft / SQFT_PER_ACRE


def cuyd_to_cuft(volume_cy: float) -> float:
    """A volume in cubic yards, in cubic feet."""
    return volume_cy * CUFT_PER_CUYD


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b))
