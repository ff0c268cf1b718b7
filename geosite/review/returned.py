"""What the sandbox's child hands back, checked like input before the parent touches it.

The parent holds the child's result as it holds a file from the applicant: a child subverted by a crafted
file could send anything the safe unpickler builds (geosite's, numpy's, pandas', shapely's classes).
:func:`check_returned`, before any writer runs:

- every geometry, wherever it is in the result (the findings, the site's layers, the derived layers, the
  plan folder's layers): finite coordinates; each feature of the site's layers and each finding's
  geometry at most ``max_vertices_per_feature`` vertices (the input's own limit), all of them together
  at most ``max_result_vertices``; and valid: an invalid one is repaired the way ``--make-valid`` repairs
  input (:func:`shapely.make_valid`, the structure method: a polygon stays polygonal), so the report can
  still show where an invalid polygon the submission drew is;
- a DEM window handed back: a 2-D float64 array within the raster budget, on a finite north-up grid;
- the site's kept derivations (its unions and masks) are dropped, to be recomputed from the checked layers.

A GEOS error later in the parent is an input error too (:func:`geometry_errors_are_input`): exit 2
naming the submission, never a traceback.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from geosite import errors
from geosite.io.limits import Limits
from geosite.io.text import one_line

#: Containers the walk enters at most this deep, and at most this many objects in all.
MAX_DEPTH, MAX_OBJECTS = 40, 5_000_000


class _Walk:
    """One walk over a result: what it counted, and the objects already seen."""

    def __init__(self, limits: Limits, shown: str) -> None:
        self.limits, self.shown = limits, shown
        self.vertices = 0
        self.objects = 0
        self.seen: set[int] = set()

    def refuse(self, why: str) -> errors.InputError:
        """The error for a result the parent will not touch."""
        return errors.UnreadableInputError(
            f"{one_line(self.shown)}: the sandbox handed back {why}; a file in the submission may be "
            "crafted; nothing written"
        )

    def geometries(self, values: Any, per_feature: bool) -> Any:
        """An array of geometries checked (counted, bounded, finite) and repaired where invalid."""
        import numpy as np
        import shapely

        arr = np.asarray(values, dtype=object)
        present = np.array([g is not None for g in arr], dtype=bool)
        if not present.any():
            return values
        geoms = arr[present]
        if not all(isinstance(g, shapely.Geometry) for g in geoms):
            raise self.refuse("something that is not a geometry in a geometry column")
        counts = shapely.get_num_coordinates(geoms)
        if per_feature and counts.size and int(counts.max()) > self.limits.max_vertices_per_feature:
            raise self.refuse(
                f"a feature of {int(counts.max()):,} vertices, over max_vertices_per_feature "
                f"{self.limits.max_vertices_per_feature:,}"
            )
        self.count(int(counts.sum()))
        if not np.isfinite(shapely.get_coordinates(geoms)).all():
            raise self.refuse("a geometry with coordinates that are not finite numbers")
        bad = ~shapely.is_valid(geoms)
        if not bad.any():
            return values
        fixed = arr.copy()
        idx = np.flatnonzero(present)[bad]
        fixed[idx] = shapely.make_valid(arr[idx], method="structure", keep_collapsed=False)
        return fixed

    def count(self, n: int) -> None:
        """Add ``n`` vertices to the result's total; refuse past ``max_result_vertices``."""
        self.vertices += n
        if self.vertices > self.limits.max_result_vertices:
            raise self.refuse(
                f"geometry of over max_result_vertices {self.limits.max_result_vertices:,} vertices"
            )

    def frame(self, gdf: Any, per_feature: bool) -> None:
        """Every geometry column of a GeoDataFrame checked in place."""
        import geopandas as gpd

        for col in [c for c in gdf.columns if isinstance(gdf[c].dtype, gpd.array.GeometryDtype)]:
            series = gdf[col]
            checked = self.geometries(series.values, per_feature)
            if checked is not series.values:
                gdf[col] = gpd.GeoSeries(list(checked), index=gdf.index, crs=series.crs)

    def dem(self, dem: Any) -> None:
        """A DEM window handed back: a 2-D float64 array within the raster budget, finite north-up grid."""
        import numpy as np

        z = getattr(dem, "elevation_ft", None)
        t = getattr(dem, "transform", None)
        if not isinstance(z, np.ndarray) or z.ndim != 2 or z.dtype != np.float64:
            raise self.refuse("a DEM that is not a 2-D array of heights")
        self.limits.check_read(f"{one_line(self.shown)}: the DEM window handed back", z.shape[1], z.shape[0])
        if t is None or not all(math.isfinite(float(v)) for v in tuple(t)[:6]) or t.b != 0 or t.d != 0:
            raise self.refuse("a DEM whose grid is not a finite north-up transform")

    def value(self, obj: Any, depth: int = 0, per_feature: bool = False) -> Any:
        """``obj`` with every geometry in it checked; containers entered (in place where they can be)."""
        import geopandas as gpd
        import shapely

        self.objects += 1
        if self.objects > MAX_OBJECTS or depth > MAX_DEPTH:
            raise self.refuse("a result nested too deeply or holding too many objects")
        if isinstance(obj, str | bytes | int | float | bool) or obj is None:
            return obj
        if isinstance(obj, shapely.Geometry):
            return self.geometries([obj], per_feature)[0]
        if id(obj) in self.seen:
            return obj
        self.seen.add(id(obj))
        if isinstance(obj, gpd.GeoDataFrame):
            self.frame(obj, per_feature)
        elif isinstance(obj, gpd.GeoSeries):
            checked = self.geometries(obj.values, per_feature)
            return (
                obj if checked is obj.values else gpd.GeoSeries(list(checked), index=obj.index, crs=obj.crs)
            )
        elif type(obj).__name__ == "Dem" and type(obj).__module__ == "geosite.grid":
            self.dem(obj)
        else:
            return self.container(obj, depth, per_feature)
        return obj

    def container(self, obj: Any, depth: int, per_feature: bool) -> Any:
        """A dict, list, tuple or dataclass with each of its values checked."""
        if isinstance(obj, dict):
            for k, v in list(obj.items()):
                obj[k] = self.value(v, depth + 1, per_feature)
        elif isinstance(obj, list):
            obj[:] = [self.value(v, depth + 1, per_feature) for v in obj]
        elif isinstance(obj, tuple) and not hasattr(obj, "_fields"):
            return tuple(self.value(v, depth + 1, per_feature) for v in obj)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for f in dataclasses.fields(obj):
                value = getattr(obj, f.name, None)
                checked = self.value(value, depth + 1, per_feature)
                if checked is not value:
                    object.__setattr__(obj, f.name, checked)
        return obj


def check_returned(result: Any, limits: Limits, shown: str) -> Any:
    """The child's CheckResult with every geometry checked and repaired (see the module's text).

    Parameters
    ----------
    result : CheckResult
        What the child handed back (already unpickled by the safe unpickler).
    limits : Limits
        The check's limits (vertices, the raster budget).
    shown : str
        The submission as the inspector named it, for messages.

    Returns
    -------
    CheckResult
        The same result, checked; an :class:`~geosite.errors.InputError` when it cannot be.
    """
    walk = _Walk(limits, shown)
    site = result.site
    site._derived.clear()  # unions and masks: recomputed here from the checked layers
    walk.value(site.layers, per_feature=True)
    walk.value(result.findings, per_feature=True)
    walk.value(result, per_feature=False)
    return result


@contextmanager
def geometry_errors_are_input(shown: Any) -> Iterator[None]:
    """A GEOS error in the block (a writer's geometry operation on the submission's geometry) raised as
    :class:`~geosite.errors.GeometryError` naming the submission: exit 2, never a traceback.

    Parameters
    ----------
    shown : str or Path
        The submission as the inspector named it.

    Yields
    ------
    None
        The block runs.
    """
    from shapely.errors import ShapelyError

    try:
        yield
    except ShapelyError as exc:
        raise errors.GeometryError(
            f"{one_line(shown)}: a geometry of the submission could not be handled "
            f"({type(exc).__name__}: {one_line(str(exc))[:300]}); nothing written"
        ) from None
