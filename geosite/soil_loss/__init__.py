"""Soil loss over the construction schedule (Wis. Admin. Code NR 151.11), cell by cell from the DEM, the
soils and the phases.

- :mod:`~geosite.soil_loss.ls`: LS on the grid (Desmet & Govers' unit contributing area on geosite's D8
  accumulation, McCool's S, RUSLE's m with the rill ratio doubled on disturbed soil; slope length reset
  at channels, fences and diversions; slopes over 33 % and concentrated flow flagged);
- :mod:`~geosite.soil_loss.kfactor`: K from the soils layer's ``kwfact``;
- :mod:`~geosite.soil_loss.cover`: the cover schedule (:class:`CoverSchedule`) and C by cover by day;
- :mod:`~geosite.soil_loss.erosivity`: R and its distribution through the year;
- :mod:`~geosite.soil_loss.windows`: the 12-month windows as WDNR runs them;
- :mod:`~geosite.soil_loss.compute`: a window's soil loss per cell (exact, or bounded without the
  distribution);
- :mod:`~geosite.soil_loss.data`: the sourced numbers (``wisconsin.toml``);
- :mod:`~geosite.soil_loss.stage` and :mod:`~geosite.soil_loss.finding`: the stage of ``analyze`` and
  its NR 151.11 finding.

Every function takes arrays, a transform or geosite's grids and returns frozen dataclasses; usable alone
from a notebook. US customary factors: R x K x LS x C in tons per acre.
"""

from geosite.soil_loss.compute import WindowLoss, window_loss
from geosite.soil_loss.cover import (
    COVERS,
    CoverSchedule,
    CoverSpan,
    CoverTimeline,
    cover_schedule,
    cover_timeline,
)
from geosite.soil_loss.data import County, SoilLossData, Sourced, load_soil_loss_data
from geosite.soil_loss.erosivity import ErosivityDistribution, Rainfall, year_position
from geosite.soil_loss.kfactor import K_ATTRIBUTE, KGrid, k_grid
from geosite.soil_loss.ls import (
    CONCENTRATED,
    STEEP,
    LSGrid,
    length_exponent,
    length_factor,
    ls_factor,
    ls_from_array,
    steepness_factor,
)
from geosite.soil_loss.windows import Window, add_months, schedule_windows

__all__ = [
    "CONCENTRATED",
    "COVERS",
    "K_ATTRIBUTE",
    "STEEP",
    "County",
    "CoverSchedule",
    "CoverSpan",
    "CoverTimeline",
    "ErosivityDistribution",
    "KGrid",
    "LSGrid",
    "Rainfall",
    "SoilLossData",
    "Sourced",
    "Window",
    "WindowLoss",
    "add_months",
    "cover_schedule",
    "cover_timeline",
    "k_grid",
    "length_exponent",
    "length_factor",
    "load_soil_loss_data",
    "ls_factor",
    "ls_from_array",
    "schedule_windows",
    "steepness_factor",
    "window_loss",
    "year_position",
]
