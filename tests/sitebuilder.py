"""Build site folders in a temp dir for tests: rectangles of exact area in EPSG:7593 (US survey feet)
or any projected CRS, a DEM from geosite.testing, and a site.toml written from a dict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import rasterio
from shapely.geometry import LineString, Point, box

X0, Y0 = 500_000.0, 200_000.0  # site's lower-left corner, in EPSG:7593 US survey feet


def rect(x: float, y: float, w: float, h: float):
    """A w × h rectangle with lower-left corner (X0 + x, Y0 + y)."""
    return box(X0 + x, Y0 + y, X0 + x + w, Y0 + y + h)


def line(*pts: tuple[float, float]) -> LineString:
    return LineString([(X0 + x, Y0 + y) for x, y in pts])


def point(x: float, y: float) -> Point:
    return Point(X0 + x, Y0 + y)


def toml_value(v: Any) -> str:
    """A TOML literal for a Python value (texts, numbers with nan/inf, dates, date-times, lists, tables)."""
    import datetime as dt
    import math

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in v) + '"'
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, dt.datetime):
        return v.isoformat()
    if isinstance(v, dt.date):
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
    return repr(v) if isinstance(v, float) else str(v)


def write_toml(path: Path, conf: dict[str, Any]) -> None:
    lines = [f"{k} = {toml_value(v)}" for k, v in conf.items() if not isinstance(v, dict)]
    for k, v in conf.items():
        if isinstance(v, dict):
            lines.append(f"\n[{k}]")
            lines += [f"{kk} = {toml_value(vv)}" for kk, vv in v.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_dem(path: Path, dem, dtype: str = "float32", vertical_factor: float = 1.0) -> None:
    """Write a geosite Dem back to GeoTIFF in its own vertical unit."""
    z = dem.elevation_ft / vertical_factor
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        height=z.shape[0],
        width=z.shape[1],
        count=1,
        dtype=dtype,
        crs=dem.crs,
        transform=dem.transform,
        nodata=-9999.0,
    ) as dst:
        dst.write(np.where(np.isnan(z), -9999.0, z).astype(dtype), 1)


def make_site(
    folder: Path,
    layers: dict[str, gpd.GeoDataFrame | list],
    conf: dict[str, Any] | None = None,
    crs: str = "EPSG:7593",
    dem=None,
) -> Path:
    """Write a site folder: layers.gpkg (lists of geometries become frames in ``crs``), site.toml, dem.tif."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, value in layers.items():
        gdf = (
            value if isinstance(value, gpd.GeoDataFrame) else gpd.GeoDataFrame(geometry=list(value), crs=crs)
        )
        gdf.to_file(folder / "layers.gpkg", layer=name, driver="GPKG", engine="pyogrio")
    base: dict[str, Any] = {
        "name": "Test site",
        "jurisdiction": "grantsburg",
        "layers": {"path": "layers.gpkg"},
    }
    if dem is not None:
        write_dem(folder / "dem.tif", dem)
        base["dem"] = {"path": "dem.tif", "vertical_unit": "us_ft"}
    for k, v in (conf or {}).items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            base[k] = {**base[k], **v}
        elif v is None:
            base.pop(k, None)
        else:
            base[k] = v
    write_toml(folder / "site.toml", base)
    return folder


RIDGE_Y = -11.0  # the ridge of ridge_plane: a row of cell centres 11 ft below the DEM's top edge


def ridge_plane(slope_pct: float, shape: tuple[int, int] = (500, 500), cell: float = 2.0):
    """A plane falling south at ``slope_pct`` from an east-west ridge on the cell centres at sitebuilder
    ``y = RIDGE_Y``, falling north four times as steeply above it (so the ridge row drains north), on the
    grid of :func:`geosite.testing.inclined_plane`. The land draining south across any line below the
    ridge reaches up to ``RIDGE_Y - cell / 2`` and no farther: bounded by the ridge, never cut by the
    DEM's edge."""
    import numpy as np

    from geosite.grid import Dem
    from geosite.testing import cell_centres, inclined_plane

    base = inclined_plane(slope_pct, shape=shape, cell=cell)
    _x, y = cell_centres(base.shape, base.transform)
    d = y - (Y0 + RIDGE_Y)
    z = 900.0 - slope_pct / 100.0 * np.where(d < 0, -d, 4.0 * d)
    return Dem.from_array(z, base.transform, base.crs, "us_ft")


def write_map(path, pixel_ft, dpi, extent=(0, -800, 800, 800), crs="EPSG:7593"):
    """A georeferenced map GeoTIFF of ``pixel_ft`` ft pixels tagged ``dpi``: ``pixel_ft * dpi`` ft per
    inch."""
    import numpy as np
    import rasterio
    from affine import Affine

    x, y, w, h = extent
    cols, rows = int(w / pixel_ft), int(h / pixel_ft)
    t = Affine(pixel_ft, 0, X0 + x, 0, -pixel_ft, Y0 + y + h)
    with rasterio.open(
        path, "w", driver="GTiff", width=cols, height=rows, count=1, dtype="uint8", crs=crs, transform=t
    ) as dst:
        dst.write(np.full((rows, cols), 200, "uint8"), 1)
        dst.update_tags(
            TIFFTAG_XRESOLUTION=str(dpi),
            TIFFTAG_YRESOLUTION=str(dpi),
            TIFFTAG_RESOLUTIONUNIT="2 (pixels/inch)",
        )
