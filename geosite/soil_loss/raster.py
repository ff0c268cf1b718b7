"""The soil-loss GeoTIFF: the worst window's soil loss, tons per acre, on the DEM's grid (the box of the
schedule's cells), written by ``write_outputs`` into its temporary folder (so it appears atomically with
the other outputs).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from geosite.soil_loss.stage import SoilLossRaster

#: the file's name in the output folder
SOIL_LOSS_TIF = "soil_loss.tif"


def write_soil_loss_tif(raster: SoilLossRaster, folder: Path) -> Path:
    """``folder/soil_loss.tif``: float32 tons per acre over the worst window, NaN nodata (cells not
    counted or not assessed), the DEM's CRS; its description names the window and the unit.
    """
    import rasterio

    path = Path(folder) / SOIL_LOSS_TIF
    data = np.asarray(raster.tons_per_acre, dtype=np.float32)
    profile = {
        "driver": "GTiff",
        "height": data.shape[0],
        "width": data.shape[1],
        "count": 1,
        "dtype": "float32",
        "crs": raster.crs,
        "transform": raster.transform,
        "nodata": float("nan"),
        "compress": "deflate",
    }
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(data, 1)
        dst.set_band_description(1, f"soil loss, tons per acre, {raster.window} (NR 151.11 worst window)")
        dst.update_tags(unit="tons per acre", window=raster.window, method="A = R K LS C (geosite.soil_loss)")
    return path
