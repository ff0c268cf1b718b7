"""K, the soil erodibility factor, from the site's ``soils`` layer: its ``kwfact`` attribute (SSURGO's name
for the whole-soil K of the surface horizon, US customary: ton acre hour per hundreds of acre foot tonf
inch), rasterised on the grid. A soils polygon without a usable K leaves its cells "not assessed".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import geopandas as gpd

#: the soils layer's attribute holding K (docs/site_folder.md)
K_ATTRIBUTE = "kwfact"
#: the range of SSURGO's K values (kwfact, kffact): a value outside it is a unit or typing error
K_RANGE = (0.02, 0.69)


@dataclass(frozen=True, eq=False)
class KGrid:
    """K on a grid (NaN where no soils polygon gives one), and the polygons without a usable K."""

    k: np.ndarray
    missing_ids: tuple[Any, ...]
    problems: tuple[str, ...]
    attribute: str = K_ATTRIBUTE


def _k_value(v: Any) -> float | None:
    """A K value as a float, or None when absent or not a number."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def k_grid(
    soils: gpd.GeoDataFrame | None, shape: tuple[int, int], transform: Any, *, attribute: str = K_ATTRIBUTE
) -> KGrid:
    """K on a grid of ``shape`` and ``transform`` from ``soils`` (in the grid's CRS): each polygon's
    ``attribute``; NaN where no polygon, or its polygon has none or one outside :data:`K_RANGE`.
    """
    from rasterio.features import rasterize

    k = np.full(shape, np.nan)
    if soils is None or not len(soils):
        return KGrid(k, (), ("no soils layer: K is not known anywhere",), attribute)
    ids = soils["id"].tolist() if "id" in soils.columns else list(range(1, len(soils) + 1))
    values = soils[attribute].tolist() if attribute in soils.columns else [None] * len(soils)
    shapes, missing, problems = [], [], []
    for fid, geom, v in zip(ids, soils.geometry.values, values, strict=True):
        kv = _k_value(v)
        if kv is None:
            missing.append(fid)
        elif not K_RANGE[0] <= kv <= K_RANGE[1]:
            missing.append(fid)
            problems.append(f"soils {fid}: {attribute} = {kv:g} is outside SSURGO's K range {K_RANGE}")
        elif geom is not None and not geom.is_empty:
            shapes.append((geom, kv))
    if shapes:
        k = rasterize(shapes, out_shape=shape, transform=transform, fill=np.nan, dtype="float64")
    if missing and not problems:
        problems.append(f"soils {', '.join(str(i) for i in missing)}: no {attribute} (K)")
    return KGrid(k, tuple(missing), tuple(problems), attribute)
