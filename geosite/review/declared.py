"""What the applicant declared: the optional ``[declared]`` table of site.toml.

```toml
[declared]
plan_type = "full"                  # full | statement: the kind of plan submitted
disturbed_area_sqft = 56000.0       # or disturbed_area_acres = 1.29 (not both)
# the existing site map: a georeferenced GeoTIFF, or a PDF (relative to the folder)
submitted_map = "existing_map.tif"
map_dpi = 150                       # GeoTIFF print resolution, pixels per inch (default: its resolution tags)
# declared scale, ft per inch (needed for a PDF; checked against a GeoTIFF)
map_scale_ft_per_in = 100
map_contour_interval_ft = 2.0       # contour interval printed on the submitted map
# unit of the contours layer's `elevation` field (us_ft | ft | m); `elevation_ft` is feet
contour_vertical_unit = "us_ft"
final_conditions = "final.pdf"      # A(2): plan of final site conditions (a file in the folder, or a text)
maintenance = "Weekly and after 0.5 in of rain; ..."  # A(3)(e): provisions for BMP maintenance
stabilization = "Seed and mulch ..."                  # A(3)(f) / B(7): stabilization materials and schedule
steep_slope_controls = "Erosion mat on the 15 % bank"  # B(6)(d): extra controls on slopes of 12 % or more
# statement B(2): direction of slopes after development
slopes_after = "Lot graded to drain north-east to the street"
# D(2): the surety bond, letter of credit or escrow offered
surety = "Letter of credit, First Bank, $6,000"
# the estimate of the plan's quantities, a CSV file in the folder (or [[estimate]] rows in site.toml):
# geosite.review.estimate
estimate = "estimate.csv"
# Wis. Admin. Code NR 151.11 (sites of an acre or more): the plan's soil loss over its worst 12-month window,
# tons per acre, as WDNR 3800-2017-03 computes it (check compares it with the figure it recomputes)
soil_loss_tons_per_acre = 3.8
```

Every key is optional. Unknown keys and wrong types are input errors (exit 2), listed together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NamedTuple

from geosite.errors import InputError, MissingInputError, SiteValidationError
from geosite.units import SQFT_PER_ACRE

PLAN_TYPES = ("full", "statement")


@dataclass(frozen=True)
class Declared:
    """The ``[declared]`` table, read and checked: each field None when not declared (see the module's
    docstring for what each one is).
    """

    plan_type: str | None = None
    disturbed_area_sqft: float | None = None
    submitted_map: Path | None = None
    map_dpi: float | None = None
    map_scale_ft_per_in: float | None = None
    map_contour_interval_ft: float | None = None
    contour_vertical_unit: str | None = None
    final_conditions: str | None = None
    maintenance: str | None = None
    stabilization: str | None = None
    steep_slope_controls: str | None = None
    slopes_after: str | None = None
    surety: str | None = None
    waste: str | None = None
    street_cleaning: str | None = None
    offsite_cleanup: str | None = None
    bmp_removal: str | None = None
    dewatering_treatment: str | None = None
    contours: str | None = None
    estimate: str | None = None
    soil_loss_tons_per_acre: float | None = None

    def get(self, key: str) -> Any:
        """The declared field ``key`` (None when not declared, or not a field)."""
        return getattr(self, key, None)

    def to_dict(self) -> dict[str, Any]:
        """The fields declared, as JSON-ready data (a path as its text)."""
        return {
            f.name: (str(v) if isinstance(v, Path) else v)
            for f in fields(self)
            if (v := getattr(self, f.name)) is not None
        }


_TEXT = (
    "final_conditions",
    "maintenance",
    "stabilization",
    "steep_slope_controls",
    "slopes_after",
    "surety",
    "waste",
    "street_cleaning",
    "offsite_cleanup",
    "bmp_removal",
    "dewatering_treatment",
    "contours",
    "estimate",
)
_NUMBERS = ("map_dpi", "map_scale_ft_per_in", "map_contour_interval_ft", "soil_loss_tons_per_acre")
#: (the texts include the duties during construction a plan may state, the profile's provisions: B(2) waste,
#: B(3) street cleaning, B(5) off-site cleanup, B(6)(f) BMP removal; what treats pumped water; the contours
# layer)
_KNOWN = {
    "plan_type",
    "disturbed_area_sqft",
    "disturbed_area_acres",
    "submitted_map",
    "contour_vertical_unit",
    *_TEXT,
    *_NUMBERS,
}


#: Declared texts ending so name a file of the submission (checked to lie inside its folder).
FILE_SUFFIXES = (".pdf", ".tif", ".tiff", ".png", ".jpg", ".dxf", ".dwg", ".gpkg", ".geojson", ".shp", ".csv")


class Submission(NamedTuple):
    """What :func:`read_declared` read: the declarations, and the whole of site.toml as parsed."""

    declared: Declared
    conf: dict[str, Any]


def read_declared(folder: str | Path, limits: Any = None) -> Submission:
    """The ``[declared]`` table of ``folder/site.toml`` (and the whole parsed TOML). Files it names
    (``submitted_map``, a ``final_conditions`` file) must lie inside the folder: a path leaving it is
    refused without looking at what it points to.
    """
    from geosite.site import read_site_toml

    root = Path(folder)
    path = root / "site.toml"
    try:
        conf, _ = read_site_toml(root, limits)
    except MissingInputError:
        return Submission(Declared(), {})  # load_site reports the missing site.toml (or folder)
    d = conf.get("declared") or {}
    problems: list[str] = []
    where = f"{path}: [declared]"
    if not isinstance(d, dict):
        raise SiteValidationError([f"{where} must be a table"], str(root))
    for k in sorted(set(d) - _KNOWN):
        problems.append(f"{where} {k!r} is not a declared field (known: {', '.join(sorted(_KNOWN))})")
    plan_type = _plan_type(d, where, problems)
    area = _disturbed_area_sqft(d, where, problems)
    smap = _submitted_map(d, root, where, problems)
    unit = _contour_vertical_unit(d, where, problems)
    texts = _declared_texts(d, root, where, problems)
    nums: dict[str, Any] = {k: _positive_number(d, k, where, problems) for k in _NUMBERS}
    if problems:
        raise SiteValidationError(problems, str(root))
    declared = Declared(
        plan_type=plan_type,
        disturbed_area_sqft=area,
        submitted_map=smap,
        contour_vertical_unit=unit,
        **nums,
        **texts,
    )
    return Submission(declared, conf)


def _positive_number(d: dict[str, Any], key: str, where: str, problems: list[str]) -> float | None:
    """The declared number ``key`` (None when absent; a value that is not a positive finite number is
    a problem).
    """
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
        problems.append(f"{where} {key} must be a positive finite number, got {v!r}")
        return None
    return float(v)


def _plan_type(d: dict[str, Any], where: str, problems: list[str]) -> str | None:
    """The declared plan type, ``full`` or ``statement`` (case and spaces ignored; None when absent)."""
    plan_type = d.get("plan_type")
    if plan_type is None:
        return None
    plan_type = str(plan_type).strip().lower()
    if plan_type not in PLAN_TYPES:
        problems.append(f"{where} plan_type = {plan_type!r}; use one of {', '.join(PLAN_TYPES)}")
        return None
    return plan_type


def _disturbed_area_sqft(d: dict[str, Any], where: str, problems: list[str]) -> float | None:
    """The declared disturbed area in sq ft, given in sq ft or in acres (not both)."""
    sqft = _positive_number(d, "disturbed_area_sqft", where, problems)
    acres = _positive_number(d, "disturbed_area_acres", where, problems)
    if sqft is not None and acres is not None:
        problems.append(f"{where} give disturbed_area_sqft or disturbed_area_acres, not both")
    return sqft if sqft is not None else (acres * SQFT_PER_ACRE if acres is not None else None)


def _contour_vertical_unit(d: dict[str, Any], where: str, problems: list[str]) -> str | None:
    """The declared unit of the contours layer's ``elevation`` field: us_ft, ft or m."""
    unit = d.get("contour_vertical_unit")
    if unit is not None and str(unit) not in ("us_ft", "ft", "m"):
        problems.append(f"{where} contour_vertical_unit = {unit!r}; use us_ft, ft or m")
        return None
    return unit


def _submitted_map(d: dict[str, Any], root: Path, where: str, problems: list[str]) -> Path | None:
    """The declared ``submitted_map``: a file inside the folder, of a format geosite reads (None when
    absent, or with a problem).
    """
    from geosite.io.untrusted import inside, raster_format, regular_file

    smap = None
    if d.get("submitted_map"):
        try:
            if not isinstance(d["submitted_map"], str):
                raise InputError(
                    f"{where} submitted_map = {d['submitted_map']!r} must be a text (a file in the folder)"
                )
            smap = inside(root, d["submitted_map"], f"{where} submitted_map")
            if not smap.exists():
                raise InputError(f"{where} submitted_map {str(root / d['submitted_map'])!r}: file not found")
            if smap.suffix.lower() in (".tif", ".tiff"):
                raster_format(smap, "submitted map", root)
            else:
                regular_file(smap, "submitted map", root)
        except InputError as exc:
            problems.append(str(exc))
            smap = None
    return smap


def _declared_texts(d: dict[str, Any], root: Path, where: str, problems: list[str]) -> dict[str, Any]:
    """The declared texts (a text naming a file must name one inside the folder)."""
    from geosite.io.text import submission
    from geosite.io.untrusted import inside

    texts: dict[str, Any] = {}
    for k in _TEXT:
        v = d.get(k)
        if v is not None and (not isinstance(v, str | bool) or (isinstance(v, str) and not v.strip())):
            problems.append(f"{where} {k} must be a text (a description, or a file in the folder)")
            v = None
        if isinstance(v, str) and v.strip().lower().endswith(FILE_SUFFIXES):
            try:
                inside(root, v.strip(), f"{where} {k}")
            except InputError as exc:
                problems.append(str(exc))
                v = None
        texts[k] = (
            None if v in (None, False) else submission(str(v))
        )  # the applicant's text (geosite.io.text)
    return texts
