"""Which side of the disturbed area each stretch of its boundary is (downslope, sideslope, upslope), from the
DEM's downhill direction just inside it: the edge classes the perimeter fence, the diversions and the
stockpile setbacks read.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid
from geosite.hydrology import downhill_field, sample_vectors

if TYPE_CHECKING:
    from collections.abc import Callable

    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid


FENCED = ("downslope", "sideslope")


UNCLASSIFIED = "unclassified"  # a boundary stretch with no DEM height just inside it


def _rings(polygon: BaseGeometry) -> list[LineString]:
    out = []
    for p in getattr(polygon, "geoms", [polygon]):
        if p.geom_type != "Polygon" or p.is_empty:
            continue
        p = shapely.geometry.polygon.orient(p, sign=1.0)  # exterior CCW, holes CW: area on the left
        out.append(LineString(p.exterior.coords))
        out += [LineString(r.coords) for r in p.interiors]
    return out


@dataclasses.dataclass
class _Run:
    """A run of boundary stretches with one label: the label, its length (ft) and its stretches' indices."""

    label: str
    length: float
    cells: list[int]


def _runs(labels: list[str], lengths: np.ndarray, min_run: float) -> list[tuple[str, list[int]]]:
    """Cyclic runs of equal labels, short ones absorbed by their longer neighbour.

    Parameters
    ----------
    labels : list of str
        The side of each stretch along the ring, in ring order.
    lengths : numpy.ndarray
        Each stretch's length, ft.
    min_run : float
        Runs shorter than this, ft, take the label of their longer neighbour.

    Returns
    -------
    list of tuple
        (label, stretch indices) per run, in ring order.
    """
    runs = _merge_equal(
        [_Run(lab, float(n), [i]) for i, (lab, n) in enumerate(zip(labels, lengths, strict=True))]
    )
    # stretches without heights (unclassified) keep their label, and lend it to no neighbour
    while len(runs) > 1:
        k = _shortest_short_run(runs, min_run)
        if k is None:
            break
        runs[k].label = _absorbing_label(runs[k - 1], runs[(k + 1) % len(runs)])
        runs = _merge_equal(runs)
    return [(r.label, r.cells) for r in runs]


def _merge_equal(runs: list[_Run]) -> list[_Run]:
    """Neighbouring runs of one label joined, the last with the first when they share it (a ring)."""
    merged: list[_Run] = []
    for r in runs:
        if merged and merged[-1].label == r.label:
            merged[-1].length += r.length
            merged[-1].cells += r.cells
        else:
            merged.append(r)
    if len(merged) > 1 and merged[0].label == merged[-1].label:
        last = merged.pop()
        merged[0] = _Run(last.label, last.length + merged[0].length, last.cells + merged[0].cells)
    return merged


def _shortest_short_run(runs: list[_Run], min_run: float) -> int | None:
    """The shortest classified run under ``min_run`` ft with a classified neighbour (None when none is)."""
    short = [
        j
        for j in range(len(runs))
        if runs[j].label != UNCLASSIFIED
        and runs[j].length < min_run
        and {runs[j - 1].label, runs[(j + 1) % len(runs)].label} != {UNCLASSIFIED}
    ]
    return min(short, key=lambda j: runs[j].length) if short else None


def _absorbing_label(prev: _Run, nxt: _Run) -> str:
    """The label a short run takes: its longer neighbour's, never an unclassified one's."""
    if prev.label == UNCLASSIFIED:
        return nxt.label
    if nxt.label == UNCLASSIFIED:
        return prev.label
    return prev.label if prev.length >= nxt.length else nxt.label


def _line(seg_start: np.ndarray, seg_end: np.ndarray, idx: list[int]) -> LineString:
    pts = [seg_start[idx[0]]] + [seg_end[i] for i in idx]
    return LineString(pts)


def classify_boundary(
    polygon: BaseGeometry,
    dem: Dem,
    fg: FlowGrid | None = None,
    *,
    tolerance_deg: float,
    min_run_ft: float,
    spacing_ft: float | None = None,
) -> gpd.GeoDataFrame:
    """Classify the boundary of ``polygon`` (DEM CRS) by how surface flow crosses it.

    Parameters
    ----------
    polygon : shapely.geometry.base.BaseGeometry
        A (Multi)Polygon in the DEM's CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid or None
        Its flow grid (filled surface and D8 directions); without one, the DEM's filled surface.
    tolerance_deg : float
        Half-width, degrees, of the sideslope band around 90 degrees between outward normal and flow: the
        profile's ``[controls] fence_sideslope_tolerance_deg`` (``profile.control(...)``).
    min_run_ft : float
        Runs shorter than this, ft, are merged into their longer neighbour: the profile's ``[controls]
        fence_min_run_ft``.
    spacing_ft : float or None
        Stretch length, ft; default one cell.

    Returns
    -------
    geopandas.GeoDataFrame
        One row per run: ``side`` (downslope, sideslope, upslope, or unclassified where the DEM has no
        height just inside the stretch), ``length_ft``, ``ring``, ``chain``
        (runs in a row on one ring that share a fence), LineString geometry in the DEM CRS, in ring
        order (counter-clockwise around the area).
    """
    import geopandas as gpd

    sample = downhill_sampler(dem, fg)
    spacing = (spacing_ft or min(dem.cell_x_ft, dem.cell_y_ft)) / dem.ft_per_unit
    rows: dict[str, list[Any]] = {"side": [], "length_ft": [], "ring": [], "geometry": []}
    for ri, ring in enumerate(_rings(polygon)):
        a, b, seg = _stretches(ring, spacing)
        if not len(seg):
            continue
        labels = _stretch_sides(a, b, dem, sample, tolerance_deg=tolerance_deg)
        for side, idx in _runs(list(labels), seg * dem.ft_per_unit, min_run_ft):
            geom = _line(a, b, idx)
            rows["side"].append(str(side))
            rows["length_ft"].append(float(geom.length) * dem.ft_per_unit)
            rows["ring"].append(ri)
            rows["geometry"].append(geom)
    gdf = gpd.GeoDataFrame(rows, geometry="geometry", crs=dem.crs)
    chain, pos = _chains(gdf)
    gdf["chain"] = chain
    gdf["chain_pos"] = pos
    return gdf


def _stretches(ring: LineString, spacing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ring cut into stretches of about ``spacing`` (CRS units): their starts, ends and lengths (CRS
    units), zero-length ones dropped.
    """
    coords = np.asarray(shapely.segmentize(ring, spacing).coords)[:, :2]
    a, b = coords[:-1], coords[1:]
    d = b - a
    seg = np.hypot(d[:, 0], d[:, 1])
    keep = seg > 0
    return a[keep], b[keep], seg[keep]


def _stretch_sides(
    a: np.ndarray,
    b: np.ndarray,
    dem: Dem,
    sample: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    *,
    tolerance_deg: float,
) -> np.ndarray:
    """The side of each stretch ``a`` -> ``b`` (area on its left): its outward normal against the downhill
    direction half a cell inside it (``sample``), within ``tolerance_deg`` degrees of 90 a sideslope.
    """
    cell = min(abs(dem.transform.a), abs(dem.transform.e))
    cos_lo = math.cos(math.radians(90.0 - tolerance_deg))
    cos_hi = math.cos(math.radians(90.0 + tolerance_deg))
    d = b - a
    seg = np.hypot(d[:, 0], d[:, 1])
    nx, ny = d[:, 1] / seg, -d[:, 0] / seg  # outward normal: right of travel
    mid = (a + b) / 2
    px, py = mid[:, 0] - nx * 0.5 * cell, mid[:, 1] - ny * 0.5 * cell
    vx, vy = sample(px, py)
    cosang = nx * vx + ny * vy
    nov = (vx == 0) & (vy == 0)
    labels = np.where(cosang > cos_lo, "downslope", np.where(cosang < cos_hi, "upslope", "sideslope"))
    labels = np.where(nov, "sideslope", labels)  # a flat with no flow direction: fence (conservative)
    no_height = ~np.isfinite(grid.elevation_at(dem, px, py))
    return np.where(no_height, UNCLASSIFIED, labels)  # no data: not assessed, never a guessed side


def _chains(runs: gpd.GeoDataFrame) -> tuple[list[int], list[int]]:
    """Label consecutive fenced runs (cyclic within a ring) with a shared chain number (-1 = not
    fenced) and their position along the chain.
    """
    out = [-1] * len(runs)
    pos = [0] * len(runs)
    chain = 0
    for ring in sorted(set(runs["ring"])):
        idx = [i for i in range(len(runs)) if runs["ring"].iloc[i] == ring]
        fenced = [runs["side"].iloc[i] in FENCED for i in idx]
        if all(fenced):
            for k, i in enumerate(idx):
                out[i] = chain
                pos[i] = k
            chain += 1
            continue
        start = next(k for k in range(len(idx)) if not fenced[k])
        order = idx[start:] + idx[:start]
        current = None
        for i in order:
            if runs["side"].iloc[i] in FENCED:
                if current is None:
                    current = chain
                    chain += 1
                    k = 0
                out[i] = current
                pos[i] = k
                k += 1
            else:
                current = None
    return out, pos


def downhill_sampler(
    dem: Dem, fg: FlowGrid | None
) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Downhill unit vectors at points (x, y) in the DEM's CRS: the routed grid's, computed at the points'
    cells alone (:meth:`FlowGrid.downhill_at`); without one, of the DEM's filled surface.
    """
    if fg is not None:
        return fg.downhill_at
    from geosite.hydrology import fill_depressions

    ux, uy = downhill_field(fill_depressions(dem), dem, None)
    return lambda x, y: sample_vectors(ux, uy, dem, x, y)
