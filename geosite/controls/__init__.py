"""Where the ordinance wants controls: filter fence, stockpile setbacks, sediment basins, inlet
protection, tracking pads, diversions, and the submitted controls against them. Each function takes
GeoDataFrames plus a :class:`~geosite.dem.Dem` / :class:`~geosite.hydrology.FlowGrid` and is usable alone;
:func:`geosite.pipeline_controls.measure_controls` runs them for the analyze pipeline."""

from geosite.controls.basins import basin_location, diversions, inlet_protection, tracking_pads
from geosite.controls.fences import classify_boundary, fence_summary, filter_fence, interior_rows, max_slope_length_ft
from geosite.controls.setbacks import is_downslope, stockpile_setbacks
from geosite.controls.submitted import fence_coverage, protected

__all__ = [
    "basin_location",
    "classify_boundary",
    "diversions",
    "fence_coverage",
    "fence_summary",
    "filter_fence",
    "inlet_protection",
    "interior_rows",
    "is_downslope",
    "max_slope_length_ft",
    "protected",
    "stockpile_setbacks",
    "tracking_pads",
]
