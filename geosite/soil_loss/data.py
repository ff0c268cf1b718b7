"""The sourced numbers of the soil-loss method (``wisconsin.toml`` beside this module): NR 151.11's
standard, the method's constants, the C factor of each cover kind, R by county, and what could not be
found. Each number carries its source; a number that could not be found is ``None`` with the text that
says what would settle it.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geosite.errors import ProfileError

DATA_FILE = Path(__file__).with_name("wisconsin.toml")


@dataclass(frozen=True)
class Sourced:
    """A number and where it comes from; ``value`` None when none was found (``source`` then says what
    would settle it).
    """

    value: float | None
    source: str
    row: str = ""

    @property
    def known(self) -> bool:
        """Whether a value was found."""
        return self.value is not None

    def required(self) -> float:
        """The value; a :class:`~geosite.errors.ProfileError` when the data file has none (a number the
        method cannot run without).
        """
        if self.value is None:
            raise ProfileError(f"{DATA_FILE}: a number the method needs is missing ({self.source})")
        return self.value


@dataclass(frozen=True)
class County:
    """The county of a village's sites (:meth:`SoilLossData.county_for`), and how it is known.

    Attributes
    ----------
    name : str or None
        The county's name (as the data file's R table names it); None where the village is not listed.
    source : str
        Where the data file has it from ("" where the village is not listed).
    """

    name: str | None
    source: str


@dataclass(frozen=True)
class SoilLossData:
    """The state's soil-loss numbers (:data:`DATA_FILE`), each with its source."""

    citation: str
    section: str
    guidance: str
    read: str
    wording_read_whole: bool
    applies_from_acres: Sourced
    max_tons_per_acre_year: Sourced
    max_slope_pct: Sourced
    unit_plot_length_ft: Sourced
    high_rill_factor: Sourced
    declared_tolerance_pct: Sourced
    equation: str
    windows: str
    contributing_area: str
    cover: dict[str, Sourced]
    county_r: dict[str, Sourced]
    r_missing: str
    ei_missing: str
    county_of_jurisdiction: dict[str, County]

    def county_for(self, jurisdiction: str | None) -> County:
        """The county of a village profile's sites and how it is known (None, "" when not listed)."""
        return self.county_of_jurisdiction.get(str(jurisdiction or "").lower(), County(None, ""))

    def r_for(self, county: str | None) -> Sourced:
        """R for ``county`` (US customary), or a missing value saying what would settle it."""
        if county is not None:
            for name, r in self.county_r.items():
                if name.lower() == county.strip().lower().removesuffix(" county"):
                    return r
        return Sourced(None, self.r_missing)


def _sourced(entry: Any, where: str) -> Sourced:
    """One ``{value, source}`` (or ``{missing}``) entry as :class:`Sourced`."""
    if not isinstance(entry, dict):
        raise ProfileError(f"{DATA_FILE}: {where} must be a table with value and source")
    if "missing" in entry:
        return Sourced(None, str(entry["missing"]))
    if "value" not in entry or "source" not in entry:
        raise ProfileError(f"{DATA_FILE}: {where} needs both value and source (or missing)")
    return Sourced(float(entry["value"]), str(entry["source"]), str(entry.get("row", "")))


@functools.cache
def load_soil_loss_data(path: Path = DATA_FILE) -> SoilLossData:
    """The numbers of :data:`DATA_FILE` (read once)."""
    raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    std, method, rain = raw["standard"], raw["method"], raw["rainfall"]
    return SoilLossData(
        citation=std["citation"],
        section=std["section"],
        guidance=std["guidance"],
        read=std["read"],
        wording_read_whole=bool(std["wording_read_whole"]),
        applies_from_acres=_sourced(std["applies_from_acres"], "[standard] applies_from_acres"),
        max_tons_per_acre_year=_sourced(std["max_tons_per_acre_year"], "[standard] max_tons_per_acre_year"),
        max_slope_pct=_sourced(method["max_slope_pct"], "[method] max_slope_pct"),
        unit_plot_length_ft=_sourced(method["unit_plot_length_ft"], "[method] unit_plot_length_ft"),
        high_rill_factor=_sourced(method["high_rill_factor"], "[method] high_rill_factor"),
        declared_tolerance_pct=_sourced(
            raw["submission"]["declared_tolerance_pct"], "[submission] declared_tolerance_pct"
        ),
        equation=method["equation"],
        windows=method["windows"],
        contributing_area=method["contributing_area"],
        cover={k: _sourced(v, f"[cover.{k}]") for k, v in raw["cover"].items()},
        county_r={k: Sourced(float(v["r"]), str(v["source"])) for k, v in rain.get("county", {}).items()},
        r_missing=rain["missing"],
        ei_missing=rain["ei_missing"],
        county_of_jurisdiction={
            k: County(str(v["county"]), str(v["source"])) for k, v in raw["county_of_jurisdiction"].items()
        },
    )
