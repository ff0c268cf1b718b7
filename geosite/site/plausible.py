"""Inputs that are allowed but implausible for the village: a site outside the profile's declared
extent (``[jurisdiction] extent``), DEM heights outside the ground's range for the declared vertical
unit (``[terrain] ground_elevation_ft``, naming the unit the heights look like).

Each is an :class:`InputWarning` record: the loader adds its message to the site's notes, keeps the
record on ``Site.input_warnings`` (report.json ``input_warnings``) and warns with
:class:`~geosite.errors.ImplausibleInputWarning`; ``strict=True`` (``--strict``) makes them errors.
Nothing is checked where the profile declares no extent or range.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from geosite.units import VerticalUnit, vertical_to_feet

#: The most DEM cells sampled for the height check (a decimated read of the site's window).
HEIGHT_SAMPLE_CELLS = 256
#: The share of sampled heights that may lie outside the range before it is warned about (spikes,
#: pits and undeclared nodata cells in LiDAR are not the ground).
OUTLIER_SHARE = 0.01
_UNIT_WORDS = {VerticalUnit.US_FT: "US survey feet", VerticalUnit.FT: "feet", VerticalUnit.M: "metres"}


@dataclass(frozen=True)
class InputWarning:
    """One implausible input: what kind (``site_outside_extent``, ``dem_heights_out_of_range``), the
    message a person reads (naming the file, the layer and the problem), and the unit the heights
    look like (``m``, ``ft``; None when not a height or no unit fits).
    """

    kind: str
    message: str
    source: str
    likely_unit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as report.json holds it."""
        return asdict(self)


def check_site(site: Any, profile: Any) -> list[InputWarning]:
    """The implausible-input records for ``site`` under ``profile`` (empty when all is plausible or
    the profile declares neither check).
    """
    out: list[InputWarning] = []
    if profile is None:
        return out
    w = outside_extent(site, profile)
    if w is not None:
        out.append(w)
    w = heights_out_of_range(site, profile)
    if w is not None:
        out.append(w)
    return out


def outside_extent(site: Any, profile: Any) -> InputWarning | None:
    """A record when the site boundary reaches outside the profile's ``[jurisdiction] extent`` (a bbox
    ``[west, south, east, north]`` in its ``crs``); None inside, or with no extent declared.
    """
    from shapely.geometry import box

    from geosite.grid import geom_to_crs

    ext = profile.jurisdiction.extent
    if not ext:
        return None
    w, s, e, n = (float(v) for v in ext["bbox"])
    crs = ext.get("crs", "EPSG:4326")
    try:
        from pyproj import CRS

        geom = geom_to_crs(site.boundary, site.crs, CRS.from_user_input(crs))
    except Exception:  # a site that cannot be put in the extent's CRS is outside it
        geom = None
    area = box(w, s, e, n)
    if geom is not None and not geom.is_empty and area.contains(geom):
        return None
    if geom is not None and not geom.is_empty and math.isfinite(geom.centroid.x):
        c = geom.centroid
        where = (
            f"its centre is at {abs(c.y):.4f}° {'N' if c.y >= 0 else 'S'}, {abs(c.x):.4f}° "
            f"{'W' if c.x < 0 else 'E'}"
        )
        how = "reaches outside" if geom.intersects(area) else "lies outside"
    else:
        where, how = "it has no place in that CRS", "lies outside"
    msg = (
        f"site boundary (layer site_boundary{_file_of(site)}) {how} {profile.name}'s extent, longitude {w:g} "
        f"to {e:g}, "
        f"latitude {s:g} to {n:g} ({crs}; profile [jurisdiction] extent: "
        f"{ext.get('source', 'no source given')}): "
        f"{where}; check the jurisdiction and the site CRS ({site.crs.name})"
    )
    return InputWarning("site_outside_extent", msg, "site_boundary")


def heights_out_of_range(site: Any, profile: Any) -> InputWarning | None:
    """A record when more than :data:`OUTLIER_SHARE` of the DEM's heights over the site, read in the
    declared vertical unit, lie outside the profile's ``[terrain] ground_elevation_ft``, naming the unit
    under which they would lie inside it; None when they fit, or with no range or DEM.
    """
    entry = profile.entry("terrain", "ground_elevation_ft")
    if entry is None or site.dem_vertical_unit is None and site.dem_array is None:
        return None
    low, high = (float(v) for v in entry["value"])
    got = _site_heights(site)
    if got is None:
        return None
    feet, declared, source = got
    if len(feet) == 0 or _share_outside(feet, low, high) <= OUTLIER_SHARE:
        return None
    raw = feet / vertical_to_feet(declared, site.crs)
    likely = [
        u
        for u in (VerticalUnit.M, VerticalUnit.FT)
        if _foot(u) != _foot(declared)
        and _share_outside(raw * vertical_to_feet(u, site.crs), low, high) <= OUTLIER_SHARE
    ]
    lo, hi = np.percentile(feet, [0.5, 99.5])
    msg = (
        f"DEM {source}: heights over the site run {lo:,.1f} to {hi:,.1f} ft read as {_UNIT_WORDS[declared]} "
        f"(vertical_unit {declared.value}), outside the ground's {low:,.0f} to {high:,.0f} ft (profile "
        "[terrain] "
        f"ground_elevation_ft: {entry.get('source', 'no source given')})"
    )
    if likely:
        u = likely[0]
        as_u = raw * vertical_to_feet(u, site.crs)
        msg += (
            f"; the heights look like {_UNIT_WORDS[u]} ({np.percentile(as_u, 0.5):,.0f} to "
            f'{np.percentile(as_u, 99.5):,.0f} ft read so): declare [dem] vertical_unit = "{u.value}" '
            f"(or --dem-vertical-unit {u.value}); as declared, every slope is "
            f"{_slope_error(declared, u)}"
        )
    else:
        msg += "; no vertical unit geosite reads puts them there: check the DEM's nodata value and its unit"
    return InputWarning("dem_heights_out_of_range", msg, str(source), likely[0].value if likely else None)


def _slope_error(declared: VerticalUnit, actual: VerticalUnit) -> str:
    """How far off slopes measured under the ``declared`` unit are when the heights are ``actual``."""
    k = vertical_to_feet(actual) / vertical_to_feet(declared)
    return f"{k:.2f} times too gentle" if k > 1 else f"{1 / k:.2f} times too steep"


def _foot(u: VerticalUnit) -> str:
    """``m`` or ``ft`` (the US survey and international foot differ by 2 ppm: never told apart here)."""
    return "m" if u is VerticalUnit.M else "ft"


def _share_outside(feet: np.ndarray, low: float, high: float) -> float:
    return float(np.count_nonzero((feet < low) | (feet > high))) / len(feet)


def _file_of(site: Any) -> str:
    root = getattr(site, "root", None)
    return f" of {root}" if root is not None else ""


def _site_heights(site: Any) -> tuple[np.ndarray, VerticalUnit, str] | None:
    """Finite DEM heights over the site's bounding box in feet (the declared unit converted), at most
    :data:`HEIGHT_SAMPLE_CELLS` a side (a decimated read), the declared unit and the DEM's name.
    """
    if site.dem_array is not None:
        dem = site.dem_array
        z = np.asarray(dem.elevation_ft, dtype="float64")
        return z[np.isfinite(z)], dem.vertical_unit, str(getattr(dem, "source", "") or "in memory")
    if site.dem_path is None or site.dem_vertical_unit is None:
        return None
    try:
        z = _read_sample(site)
    except Exception:  # a DEM unreadable here (off the site, a degenerate transform) is
        return None  # reported by the DEM's own checks when it is read; nothing to judge here
    if z is None:
        return None
    vals = np.asarray(z.filled(np.nan), dtype="float64")
    vals = vals[np.isfinite(vals)]
    return (
        vals * vertical_to_feet(site.dem_vertical_unit, site.crs),
        site.dem_vertical_unit,
        str(site.dem_path),
    )


def _read_sample(site: Any) -> Any:
    """Band 1 of the site's DEM over the site's bounding box, decimated to at most
    :data:`HEIGHT_SAMPLE_CELLS` a side (nearest cell), as a masked array; None without a CRS.
    """
    from rasterio.enums import Resampling
    from rasterio.windows import Window, from_bounds, intersection

    from geosite.grid import bounds_in
    from geosite.io.raster import open_raster

    with open_raster(site.dem_path, "DEM", site.dem_root, site.limits) as src:
        if src.crs is None:
            return None
        b = bounds_in(site.boundary.bounds, 0.0, site.crs, src.crs)
        win = intersection(
            from_bounds(*b, transform=src.transform).round_offsets().round_lengths(),
            Window(0, 0, src.width, src.height),
        )
        rows, cols = max(int(win.height), 1), max(int(win.width), 1)
        shape = (min(rows, HEIGHT_SAMPLE_CELLS), min(cols, HEIGHT_SAMPLE_CELLS))
        return src.read(1, window=win, out_shape=shape, masked=True, resampling=Resampling.nearest)


__all__ = ["InputWarning", "check_site", "heights_out_of_range", "outside_extent"]
