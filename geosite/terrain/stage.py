"""The terrain stage of the analyze pipeline: slopes, steep-slope areas and contours from the DEM,
turned into measurements (``slopes.*``) and layers (``steep_slopes``, ``contours``) in the site CRS.

Terrain is computed on the DEM's own grid and CRS (no resampling); the site's polygons are reprojected
to the DEM's CRS to measure, and the resulting layers back to the site CRS.

Disturbance on steep slopes (Grantsburg A(7), B(6)(d)) is measured without a minimum area, because the
text has none: the cells whose Horn slope is 12 % or more, each cell's square clipped exactly to the
disturbed area (``slopes.steep_disturbed_area_sqft``). The 500 sq ft minimum mapping unit is for
drawing steep-slope polygons on noisy LiDAR; the area in such patches is reported beside it
(``slopes.steep_disturbed_mapped_area_sqft``), with a sentence saying when the steep ground lies only in
patches under the mapping unit. Where part of the disturbed area has no heights (beyond the DEM, or a
nodata hole) and no steep ground is found in the rest, the steep area is not assessed (None, saying
how much has no heights), never 0; every nodata hole on the site is named in the notes.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from geosite.grid import to_crs, to_dem_crs
from geosite.units import coordinates

if TYPE_CHECKING:
    from collections.abc import Callable

    from geosite.grid import Dem
    from geosite.rules import Profile
    from geosite.site import Site, SiteMeasurements

TERRAIN_KEYS = (
    "slopes.steep_area_sqft",
    "slopes.steep_disturbed_area_sqft",
    "slopes.max_slope_pct",
    "slopes.max_disturbed_slope_pct",
)


@dataclasses.dataclass(frozen=True)
class _SlopeRules:
    """The profile's terrain numbers: steep thresholds (percent, the chapter's and the state's), the
    minimum mapping unit (sq ft), the contour interval (ft) and every how-many-th contour is an index.
    """

    threshold: float
    state: float
    mmu: float
    interval: float
    index_every: int

    @classmethod
    def of(cls, profile: Profile) -> _SlopeRules:
        """The slope rules ``profile`` sets."""
        return cls(
            threshold=float(profile.required("terrain", "steep_slope_pct")),
            state=float(profile.required("terrain", "state_steep_slope_pct")),
            mmu=float(profile.required("terrain", "steep_min_area_sqft")),
            interval=float(profile.required("terrain", "contour_interval_ft")),
            index_every=int(profile.required("terrain", "index_contour_every")),
        )


def measure_slopes(
    site: Site, profile: Profile, dem: Dem, m: SiteMeasurements, step: Callable[[str], None]
) -> dict[str, Any]:
    """Slope statistics over the site and the disturbed area, steep-slope polygons and contours."""
    from geosite import terrain

    rules = _SlopeRules.of(profile)
    threshold, state, mmu = rules.threshold, rules.state, rules.mmu
    step("computing slopes")
    slope = terrain.slope_pct(dem)
    boundary = to_dem_crs(site.boundary, site, dem)
    disturbed = to_dem_crs(site.disturbed, site, dem)
    steep = _steep_measure(dem, slope, boundary, disturbed, mmu)
    on_site = site.mask_on(dem, "site")
    with np.errstate(invalid="ignore"):
        site_slopes = slope[on_site & np.isfinite(slope)]
    m.set("slopes.threshold_pct", threshold)
    m.set("slopes.min_area_sqft", mmu)
    no_site_data = "the DEM has no data on the site"
    m.set("slopes.steep_area_sqft", steep(boundary, threshold) if site_slopes.size else None, no_site_data)
    m.set("slopes.state_steep_area_sqft", steep(boundary, state) if site_slopes.size else None, no_site_data)
    m.set("slopes.max_slope_pct", float(site_slopes.max()) if site_slopes.size else None, no_site_data)
    m.set("slopes.mean_slope_pct", float(site_slopes.mean()) if site_slopes.size else None, no_site_data)
    _name_nodata_holes(site, dem, boundary, disturbed)
    if disturbed is not None and not disturbed.is_empty:
        _set_disturbed_slopes(site, dem, m, slope, disturbed, steep=steep, rules=rules)
    else:
        for key in _DISTURBED_KEYS:
            m.set(key, None, "no disturbance layer in the site")

    step("tracing steep-slope polygons and contours")
    _set_map_layers(site, profile, dem, m, slope, rules=rules)
    return _slopes_summary(m.values, rules)


#: what the disturbed area's slopes set, unknown (None) without one or without heights in it
_DISTURBED_KEYS = (
    "slopes.steep_disturbed_area_sqft",
    "slopes.steep_disturbed_mapped_area_sqft",
    "slopes.state_steep_disturbed_area_sqft",
    "slopes.max_disturbed_slope_pct",
)


def _steep_measure(dem: Dem, slope: np.ndarray, boundary, disturbed, mmu: float):
    """``steep(within, lo, hi=None)``: the steep area (sq ft) in ``within`` with slope from ``lo`` to below
    ``hi`` percent, patches under ``mmu`` sq ft cleaned.
    """
    from geosite import terrain

    # the steep areas measured: each band's patches cleaned (the minimum area) on the site's box widened
    # by the minimum area's cells, not on the DEM read. A patch (or gap) touching the site that leaves
    # that box holds at least that many cells, so it is never dropped (or filled) there, nor on any
    # larger grid: every cell in the site gets the answer of an unbounded DEM, whatever the DEM's extent
    reach = (math.ceil(mmu / dem.cell_area_sqft) if mmu > 0 else 0) + 2
    left, bottom, right, top = boundary.bounds
    if disturbed is not None and not disturbed.is_empty:
        dl, db, dr, dt = disturbed.bounds
        left, bottom, right, top = min(left, dl), min(bottom, db), max(right, dr), max(top, dt)
    ex, ey = reach * abs(dem.transform.a), reach * abs(dem.transform.e)
    box, (brows, bcols) = dem.crop((left - ex, bottom - ey, right + ex, top + ey))
    box_slope = slope[brows, bcols]

    def steep(within, lo, hi=None) -> float:
        """Steep area within ``within``, sq ft, from ``lo`` percent up to ``hi`` percent."""
        return terrain.steep_area_sqft(
            box, within=within, slope=box_slope, threshold_pct=lo, below_pct=hi, min_area_sqft=mmu
        )

    return steep


def _set_disturbed_slopes(
    site: Site, dem: Dem, m: SiteMeasurements, slope: np.ndarray, disturbed, *, steep, rules: _SlopeRules
) -> None:
    """The disturbed area's steep areas (sq ft) and steepest slope (percent), set on ``m``."""
    from geosite import terrain

    in_dist = site.mask_on(dem, "disturbed") & np.isfinite(slope)
    missing = _no_heights_sqft(disturbed, dem, slope)
    m.set("slopes.disturbed_without_heights_sqft", missing)
    if not in_dist.any():
        # with no height anywhere in the disturbed area its steep area is unknown, not zero (A(7) would
        # otherwise read "not met")
        for key in _DISTURBED_KEYS:
            m.set(key, None, "the DEM has no data in the disturbed area")
        return
    cells = terrain.steep_area_sqft(
        dem, within=disturbed, slope=slope, threshold_pct=rules.threshold, min_area_sqft=0.0
    )
    mapped = steep(disturbed, rules.threshold)
    top = float(slope[in_dist].max())
    how = _steep_how(cells, mapped, rules.mmu, rules.threshold, top, missing=missing)
    m.set("slopes.steep_disturbed_how", how)
    m.set("slopes.steep_disturbed_mapped_area_sqft", mapped)
    if cells <= 0 and missing > 0:
        # no steep cell where there are heights: for the part without them A(7) is not assessed,
        # never "not met"
        m.set("slopes.steep_disturbed_area_sqft", None, how)
    else:
        m.set("slopes.steep_disturbed_area_sqft", cells)
    m.set("slopes.state_steep_disturbed_area_sqft", steep(disturbed, rules.state))
    m.set("slopes.max_disturbed_slope_pct", top)


def _set_map_layers(
    site: Site, profile: Profile, dem: Dem, m: SiteMeasurements, slope: np.ndarray, *, rules: _SlopeRules
) -> None:
    """The ``steep_slopes`` and ``contours`` layers (site CRS, clipped to the map margin) set on ``m``."""
    from geosite import terrain

    margin = site.boundary.buffer(site.map_margin_ft(profile) / site.ft_per_unit)
    # only the site and its map margin (plus a few cells, so patches and lines run past the clip)
    pad = 4 * max(abs(dem.transform.a), abs(dem.transform.e))
    left, bottom, right, top = to_dem_crs(margin, site, dem).bounds
    near, (rows, cols) = dem.crop((left - pad, bottom - pad, right + pad, top + pad))
    steep_polys = terrain.steep_slope_polygons(
        near, slope[rows, cols], threshold_pct=(rules.threshold, rules.state), min_area_sqft=rules.mmu
    )
    m.layers["steep_slopes"] = terrain.polygon_parts(
        _to_site(steep_polys, site, clip=margin), rules.mmu, site.ft_per_unit
    )
    _steep_place(m, site, rules.threshold)
    lines = terrain.contours(near, interval_ft=rules.interval, index_every=rules.index_every)
    m.layers["contours"] = _to_site(lines, site, clip=margin)
    m.set("contours.interval_ft", rules.interval)
    m.set("contours.count", int(len(m.layers["contours"])))


def _steep_place(m: SiteMeasurements, site: Site, threshold_pct: float) -> None:
    """Where the disturbed land on steep slopes lies (a finding reading it is placed there): the steep
    polygons of at least ``threshold_pct`` percent within the disturbed area.
    """
    steep, disturbed = m.layers["steep_slopes"], site.disturbed
    if disturbed is None or not len(steep) or "min_slope_pct" not in steep.columns:
        return
    sel = steep[steep["min_slope_pct"] >= threshold_pct - 1e-9]
    if len(sel):
        m.place(
            "slopes.steep_disturbed_area_sqft",
            "steep_slopes",
            shapely.intersection(shapely.union_all(sel.geometry.values), disturbed),
        )


def _slopes_summary(v: dict[str, Any], rules: _SlopeRules) -> dict[str, Any]:
    """The stage's part of the report, from the measurements ``v`` it set."""
    return {
        "slopes": {
            "threshold_pct": rules.threshold,
            "min_area_sqft": rules.mmu,
            "steep_area_sqft": v["slopes.steep_area_sqft"],
            "steep_disturbed_area_sqft": v.get("slopes.steep_disturbed_area_sqft"),
            "steep_disturbed_mapped_area_sqft": v.get("slopes.steep_disturbed_mapped_area_sqft"),
            "steep_disturbed_how": v.get("slopes.steep_disturbed_how"),
            "disturbed_without_heights_sqft": v.get("slopes.disturbed_without_heights_sqft"),
            "cell_rule": (
                "a cell counts when its slope (Horn's method) is at or above the threshold; its square is "
                "clipped exactly to the disturbed area (no minimum area)"
            ),
            "max_slope_pct": v["slopes.max_slope_pct"],
            "max_disturbed_slope_pct": v.get("slopes.max_disturbed_slope_pct"),
            "mean_slope_pct": v["slopes.mean_slope_pct"],
            "state_threshold_pct": rules.state,
            "state_steep_area_sqft": v["slopes.state_steep_area_sqft"],
            "state_steep_disturbed_area_sqft": v.get("slopes.state_steep_disturbed_area_sqft"),
            "method": (
                "slope by Horn's method (Horn 1981: the 3 x 3 gradient gdaldem slope -p computes), "
                "heights and distances in feet"
            ),
        },
        "contours": {
            "interval_ft": rules.interval,
            "index_every": rules.index_every,
            "count": v["contours.count"],
        },
    }


def _steep_how(
    cells: float, mapped: float, mmu: float, threshold: float, top: float, *, missing: float
) -> str:
    """How the disturbed area's steep ground was measured, in words for the A(7) and B(6)(d) findings."""
    text = (
        f"{cells:,.0f} sq ft of cells whose slope (Horn's method) is {threshold:g} % or more, clipped "
        "exactly to the disturbed area "
        f"(no minimum area); the steep-slope map, which drops patches and fills holes under {mmu:,.0f} sq "
        f"ft, shows {mapped:,.0f} sq ft"
    )
    if cells > 0 and mapped <= 0:
        text += (
            f": the steep ground here lies only in patches under the {mmu:,.0f} sq ft mapping unit, "
            "so the map shows none"
        )
    text += f"; the steepest slope in the disturbed area is {top:.1f} %"
    if missing > 0:
        text += f"; {missing:,.0f} sq ft of the disturbed area has no DEM heights (not assessed there)"
    return text


def _no_heights_sqft(area: BaseGeometry, dem: Dem, slope: np.ndarray) -> float:
    """Sq ft of ``area`` (DEM CRS) without a slope: beyond the DEM's extent (exactly), plus the cells
    inside it whose centre lies in ``area`` and that have no height.
    """
    from geosite.grid import rasterize

    beyond = shapely.area(shapely.difference(area, shapely.box(*dem.bounds))) * dem.ft_per_unit**2
    holes = rasterize(area, dem.shape, dem.transform) & ~np.isfinite(slope)
    return float(beyond + holes.sum() * dem.cell_area_sqft)


def _name_nodata_holes(site: Site, dem: Dem, boundary: BaseGeometry, disturbed: BaseGeometry | None) -> None:
    """A note on the site for every nodata hole inside the DEM that reaches the site (its size, where,
    how much of it is disturbed), and for a disturbed area reaching beyond the DEM: measurements on the
    DEM are not assessed there, the same as beyond the DEM's edge.
    """
    from scipy import ndimage

    from geosite.grid import centres, rasterize

    nodata = ~np.isfinite(dem.elevation_ft)
    src = f"DEM {site.dem_path if site.dem_path else dem.source}"
    if disturbed is not None and not disturbed.is_empty:
        beyond = shapely.area(shapely.difference(disturbed, shapely.box(*dem.bounds))) * dem.ft_per_unit**2
        if beyond > 0:
            total = shapely.area(disturbed) * dem.ft_per_unit**2
            site.notes.append(
                f"{src}: {beyond:,.0f} sq ft of the disturbed area ({beyond / total:.0%}) lies beyond the "
                "DEM: "
                "slopes and drainage there are not assessed"
            )
    if not nodata.any():
        return
    on_site = rasterize(boundary, dem.shape, dem.transform)
    in_dist = (
        rasterize(disturbed, dem.shape, dem.transform)
        if disturbed is not None and not disturbed.is_empty
        else np.zeros(dem.shape, bool)
    )
    lab, n = ndimage.label(nodata, structure=np.ones((3, 3), bool))
    edge = set(np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))) - {0}
    for k in range(1, n + 1):
        cells = lab == k
        hit = cells & on_site
        if not hit.any():
            continue
        r, c = np.nonzero(hit)
        x, y = centres(dem, np.array([int(r.mean())]), np.array([int(c.mean())]))
        where = "a nodata area at the DEM's edge" if k in edge else "a nodata hole"
        dist_sqft = float((cells & in_dist).sum()) * dem.cell_area_sqft
        site.notes.append(
            f"{src}: {where} of {cells.sum() * dem.cell_area_sqft:,.0f} sq ft inside the site near "
            f"{coordinates(x[0], y[0], dem.crs)}"
            + ("" if dem.crs == site.crs else " in the DEM's CRS")
            + (f", {dist_sqft:,.0f} sq ft of it in the disturbed area" if dist_sqft else "")
            + ": slopes, steep areas, drainage and fence sides there are not assessed (the same as beyond "
            "the DEM)"
        )


def _to_site(gdf: gpd.GeoDataFrame, site: Site, clip: BaseGeometry | None = None) -> gpd.GeoDataFrame:
    out = to_crs(gdf, site.crs)
    if clip is not None and len(out):
        out = out[out.intersects(clip)].copy()
        out["geometry"] = shapely.intersection(out.geometry.values, clip)
        out = out[~out.geometry.is_empty]
        if "area_sqft" in out.columns:
            out["area_sqft"] = out.geometry.area * site.ft_per_unit**2
    return out.reset_index(drop=True)


def measure_earthwork(
    site: Site, profile: Profile, dem: Dem, m: SiteMeasurements, step: Callable[[str], None]
) -> dict[str, Any]:
    """Cut and fill on the site from the proposed-grade DEM ([dem] proposed), in cubic yards.

    The proposed grade is resampled (bilinear) onto the existing DEM's grid; each cell whose centre
    lies in the site adds (proposed - existing) x cell area: positive is fill, negative cut. When the
    applicant declared no cut or fill, the measured total decides A(4); when they did, both are
    reported and the larger decides (the reading of A(4) geosite adopts; ``check`` reports a difference over
    the profile's ``declared_volume_tolerance_pct``).
    """
    from geosite import terrain
    from geosite.units import CUFT_PER_CUYD

    proposed = site.read_proposed_on(dem)
    if proposed is None:
        return {}
    step("measuring cut and fill from the proposed grade")
    inside = site.mask_on(dem, "site")
    diff = proposed - dem.elevation_ft
    ok = inside & np.isfinite(diff)
    d = diff[ok]
    cell = dem.cell_area_sqft
    fill_cy = float(d[d > 0].sum()) * cell / CUFT_PER_CUYD
    cut_cy = float(-d[d < 0].sum()) * cell / CUFT_PER_CUYD
    missing = int((inside & ~np.isfinite(diff)).sum())
    m.set("earthwork.cut_cy", cut_cy)
    m.set("earthwork.fill_cy", fill_cy)
    m.set("earthwork.cut_fill_cy", cut_cy + fill_cy)
    declared = site.project.cut_fill_cy
    measured = cut_cy + fill_cy
    # A(4) as read here: the larger of the declared and the measured volume decides (DESIGN.md, docs/rules.md)
    m.set("project.cut_fill_cy", measured if declared is None else max(float(declared), measured))
    interval = float(profile.required("terrain", "contour_interval_ft"))
    final = dataclasses.replace(dem, elevation_ft=proposed, source=str(site.proposed_dem_path))
    margin = site.boundary.buffer(site.map_margin_ft(profile) / site.ft_per_unit)
    lines = terrain.contours(
        final, interval_ft=interval, index_every=int(profile.required("terrain", "index_contour_every"))
    )
    m.layers["proposed_contours"] = _to_site(lines, site, clip=margin)
    return {
        "earthwork": {
            "cut_cy": cut_cy,
            "fill_cy": fill_cy,
            "cut_fill_cy": cut_cy + fill_cy,
            "net_cy": fill_cy - cut_cy,
            "declared_cut_fill_cy": declared,
            "decides_a4": "measured" if declared is None or measured > float(declared) else "declared",
            "reading": (
                "A(4): the larger of the declared and the measured volume decides; a difference of more "
                "than the profile's declared_volume_tolerance_pct between them is a finding of geosite check"
            ),
            "site_cells_without_both_grades": missing,
            "method": (
                "proposed minus existing grade on the existing DEM's cells inside the site "
                "(bilinear resampling)"
            ),
        }
    }
