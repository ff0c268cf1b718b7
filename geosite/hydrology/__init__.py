"""Hydrology: where water goes on the DEM, and how much land drains where.

- :mod:`~geosite.hydrology.flow`: depression filling, D8 directions, accumulation (:class:`FlowGrid`),
  and the downhill-direction helpers the controls sample;
- :mod:`~geosite.hydrology.upslope`: the land outside a polygon that drains into it (D8, certified
  window), and its D-infinity total;
- :mod:`~geosite.hydrology.channel`: the channel network, and channels originating in or passing
  through a polygon;
- :mod:`~geosite.hydrology.sheetflow`: TR-55 sheet flow (Manning's n, travel time, velocity);
- :mod:`~geosite.hydrology.engines`: other flow engines (topotoolbox, pyflwdir, richdem) to check
  geosite's routing against;
- :mod:`~geosite.hydrology.stage`: the hydrology stage of ``analyze`` (upslope areas per disturbed
  polygon, B(6)(a) diversions, channels, whether runoff leaves the site);
- ``_kernels``: the numba kernels behind them (compiled ahead of time at install; else on first use).

Everything here takes a :class:`~geosite.grid.Dem` or a :class:`FlowGrid`, vectors in the DEM's CRS.
Importing this package loads numpy only; the stage and the kernels load when used.
"""

from geosite.hydrology.channel import channels, channels_originating_in, channels_through
from geosite.hydrology.flow import (
    FlowGrid,
    downhill_field,
    drains_into,
    fill_depressions,
    flow_accumulation,
    flow_grid,
    receivers,
    sample_vectors,
    trace_down,
    weighted_accumulation,
)
from geosite.hydrology.sheetflow import (
    MANNING_N_SHEETFLOW,
    TR55_MAX_SHEETFLOW_LENGTH_FT,
    manning_n,
    sheetflow_travel_time_hr,
    sheetflow_velocity_fps,
)
from geosite.hydrology.upslope import (
    UpslopeArea,
    upslope_area,
    upslope_area_dinf_sqft,
)

__all__ = [
    "MANNING_N_SHEETFLOW",
    "TR55_MAX_SHEETFLOW_LENGTH_FT",
    "FlowGrid",
    "UpslopeArea",
    "channels",
    "channels_originating_in",
    "channels_through",
    "downhill_field",
    "fill_depressions",
    "flow_accumulation",
    "flow_grid",
    "manning_n",
    "receivers",
    "sample_vectors",
    "sheetflow_travel_time_hr",
    "sheetflow_velocity_fps",
    "drains_into",
    "trace_down",
    "upslope_area",
    "upslope_area_dinf_sqft",
    "weighted_accumulation",
    "warm_kernels",
]


def warm_kernels() -> str:
    """Load this package's numba kernels now, compiling them where they are JIT-compiled.

    Returns
    -------
    str
        The engine: ``"aot"`` (the extension built at install) or ``"jit"`` (numba, from its cache).
    """
    from geosite.hydrology import _kernels

    return _kernels.warm()
