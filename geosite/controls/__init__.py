"""Controls: where the ordinance wants erosion controls, and whether a submitted plan has them.

- :mod:`~geosite.controls.fences`: filter fence along the downslope and sideslope edges (B(6)(c)[3],
  DNR 1056) laid out as a crew builds it, with its stand-ins where a row cannot go; the parts it reads:
  :mod:`~geosite.controls.boundary_sides` (each boundary stretch's side), :mod:`~geosite.controls.fence_hooks`
  (end hooks), :mod:`~geosite.controls.slope_length` (DNR 1056's slope length: interior rows, the excess
  above submitted fences), :mod:`~geosite.controls.channel_fences` (channel-edge fences, inside and outside
  the disturbed area);
- :mod:`~geosite.controls.setbacks`: stockpile setbacks from downslope roads and waters (B(6)(e));
- :mod:`~geosite.controls.basins`: the outlets of the disturbed area, the trap or basin each needs
  (B(6)(c)[2], DNR 1063/1064), and the submitted basins that receive their runoff;
- :mod:`~geosite.controls.trap_sites`: each proposed trap's footprint at its DNR 1063 surface area, on the
  site at the outlet it serves;
- :mod:`~geosite.controls.inlets`: storm drain inlet protection (B(4) all inlets, or DNR 1060);
- :mod:`~geosite.controls.tracking`: tracking pads where drives meet roads (B(3), DNR 1057);
- :mod:`~geosite.controls.diversion`: diversions above disturbed areas receiving sheetflow (B(6)(a));
- :mod:`~geosite.controls.submitted`: the submitted ``bmps`` layer measured against all of these;
- the controls stage that places and judges them is :mod:`geosite.practices` (one module per practice).

Each function takes GeoDataFrames plus a :class:`~geosite.grid.Dem` / :class:`~geosite.hydrology.FlowGrid`
and is usable alone.
"""

from geosite.controls.basins import (
    DrainageClass,
    Outlets,
    OutletService,
    basin_kind,
    disturbed_outlets,
    submitted_at_outlets,
)
from geosite.controls.boundary_sides import UNCLASSIFIED, classify_boundary
from geosite.controls.channel_fences import channel_edge_fences
from geosite.controls.diversion import Diversions, SheetflowNeed, diversions
from geosite.controls.fences import (
    RowRules,
    buildable_rows,
    fence_summary,
    filter_fence,
    row_obstacles,
    row_stand_ins,
)
from geosite.controls.inlets import inlet_protection
from geosite.controls.setbacks import (
    DEM_CHANNELS,
    FEATURE_LAYERS,
    FeatureNear,
    NearestFeature,
    PileReport,
    StockpileSetbacks,
    flow_path_distance,
    is_downslope,
    number_at,
    pile_fences,
    stockpile_setbacks,
)
from geosite.controls.slope_length import interior_rows, max_slope_length_ft
from geosite.controls.submitted import (
    Coverage,
    FenceCoverage,
    SiteFlow,
    bmps_of,
    fence_coverage,
    protected,
    slope_length_excess,
)
from geosite.controls.tracking import Entrance, PadExtent, PadRule, TrackingPads, pad_extent, tracking_pads
from geosite.controls.trap_sites import TrapGround, no_room_text, place_traps

__all__ = [
    "DEM_CHANNELS",
    "FEATURE_LAYERS",
    "UNCLASSIFIED",
    "Coverage",
    "Diversions",
    "DrainageClass",
    "Entrance",
    "FeatureNear",
    "FenceCoverage",
    "NearestFeature",
    "OutletService",
    "Outlets",
    "PadExtent",
    "PadRule",
    "PileReport",
    "RowRules",
    "SheetflowNeed",
    "SiteFlow",
    "StockpileSetbacks",
    "TrackingPads",
    "TrapGround",
    "basin_kind",
    "bmps_of",
    "buildable_rows",
    "channel_edge_fences",
    "classify_boundary",
    "disturbed_outlets",
    "diversions",
    "fence_coverage",
    "fence_summary",
    "flow_path_distance",
    "filter_fence",
    "inlet_protection",
    "interior_rows",
    "is_downslope",
    "no_room_text",
    "number_at",
    "max_slope_length_ft",
    "pad_extent",
    "pile_fences",
    "place_traps",
    "protected",
    "row_obstacles",
    "row_stand_ins",
    "slope_length_excess",
    "stockpile_setbacks",
    "submitted_at_outlets",
    "tracking_pads",
]
