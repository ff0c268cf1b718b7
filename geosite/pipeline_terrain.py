"""Terrain and hydrology measurements for the analyze pipeline (filled in as those stages land)."""

from __future__ import annotations

from typing import Any

from geosite.measurements import SiteMeasurements
from geosite.rules.profile import Profile
from geosite.site import Site

TERRAIN_KEYS = ("slopes.steep_area_sqft", "slopes.steep_disturbed_area_sqft", "slopes.max_slope_pct")
HYDRO_KEYS = ("hydrology.channel_originates_in_disturbed", "hydrology.max_sheetflow_area_sqft")


def measure_terrain(site: Site, profile: Profile, dem, m: SiteMeasurements, step) -> dict[str, Any]:
    if dem is None:
        for key in TERRAIN_KEYS + HYDRO_KEYS:
            m.set(key, None, "no DEM was given")
        return {}
    for key in TERRAIN_KEYS + HYDRO_KEYS:
        m.set(key, None, "terrain analysis is not available in this build")
    return {}
