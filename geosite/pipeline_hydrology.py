"""The hydrology stage of the analyze pipeline (upslope areas, channels, diversion and basin decisions)."""

from __future__ import annotations

from typing import Any

from geosite.dem import Dem
from geosite.measurements import SiteMeasurements
from geosite.rules.profile import Profile
from geosite.site import Site

HYDRO_KEYS = ("hydrology.channel_originates_in_disturbed", "hydrology.max_sheetflow_area_sqft")


def measure_hydrology(site: Site, profile: Profile, dem: Dem, m: SiteMeasurements, step) -> dict[str, Any]:
    for key in HYDRO_KEYS:
        m.set(key, None, "drainage analysis has not run")
    return {}
