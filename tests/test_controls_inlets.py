"""B(4)-style inlet protection where the runoff is traced on the DEM: an inlet the disturbed area's runoff
reaches needs it; one the runoff cannot be traced to because it ends in a nodata hole first is not known
(None), never "not reached"."""

from __future__ import annotations

import dataclasses

import geopandas as gpd
import numpy as np
import pytest
from shapely.geometry import Point, box

from geosite import grid
from geosite.controls import inlet_protection
from geosite.hydrology import flow_grid
from geosite.testing import CRS_US_FT, ORIGIN, inclined_plane


@pytest.mark.parametrize(
    ("hole", "inlet_dx", "reached"),
    [
        (False, 0.0, True),  # straight below the disturbed area on a plane falling south: reached
        (False, 150.0, False),  # 150 ft east of it: the runoff runs straight south and misses it
        (True, 0.0, None),  # a nodata band across the slope between them: cannot be told
        (True, 150.0, None),  # the runoff ends in the hole: whether it goes on to the inlet is unknown
    ],
)
def test_an_inlet_beyond_a_nodata_hole_is_not_known_to_be_missed(hole, inlet_dx, reached):
    dem = inclined_plane(5.0, shape=(200, 200), cell=2.0)  # 400 x 400 ft falling south at 5 %
    x0, y0 = ORIGIN[CRS_US_FT]
    disturbed = box(x0 + 150, y0 - 150, x0 + 250, y0 - 100)
    if hole:  # a band 20 ft high right across the grid, 60 ft below the disturbed area
        z = dem.elevation_ft.copy()
        z[grid.rasterize(box(x0 - 1, y0 - 230, x0 + 401, y0 - 210), dem.shape, dem.transform)] = np.nan
        dem = dataclasses.replace(dem, elevation_ft=z)
    fg = flow_grid(dem)
    inlets = gpd.GeoDataFrame({"id": [1]}, geometry=[Point(x0 + 200 + inlet_dx, y0 - 300)], crs=dem.crs)
    got = inlet_protection(inlets, disturbed, dem, fg, max_drainage_acres=1.0)
    v = got["downslope_of_disturbed"].iloc[0]
    assert v is None if reached is None else (v is not None and bool(v) is reached)
