"""J-hooks: each open end of a perimeter fence turned upslope along the direction that climbs most (of 16,
none back along the fence), as far as DNR 1056's hook length.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid
from geosite.controls.fence_ends import best_turn, rise_ft, uphill_at

if TYPE_CHECKING:
    from collections.abc import Callable

    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem


def fence_hooks(
    runs: gpd.GeoDataFrame,
    sample: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    dem: Dem,
    hook_ft: float,
    polygon: BaseGeometry | None = None,
) -> list[LineString]:
    """A hook of ``hook_ft`` at each open end of each fence chain, turned upslope (DNR 1056). Where the
    fence runs up or down the slope into its end (within 45 deg), a hook straight upslope would only
    retrace the fence: it turns off the line instead, 45 deg back up the slope (a J-hook), toward the
    disturbed area where the ground allows, so every open end is turned upslope on the ground. Upslope
    is the DEM's own ground over the hook's length (:func:`geosite.controls.fence_ends.uphill_at`, what
    ``check`` judges a hook by); ``sample`` (the routed, depression-filled surface) only where the DEM
    has no height there.
    """
    hooks: list[LineString] = []
    if hook_ft <= 0:
        return hooks
    L = hook_ft / dem.ft_per_unit
    c45 = math.cos(math.radians(45.0))
    for chain in sorted({c for c in runs["chain"] if c >= 0}):
        part = runs[runs["chain"] == chain].sort_values("chain_pos")
        ring = part["ring"].iloc[0]
        whole = (runs[runs["ring"] == ring]["chain"] == chain).all()
        if whole:
            continue
        first = np.asarray(part.geometry.iloc[0].coords)
        last = np.asarray(part.geometry.iloc[-1].coords)
        for ends in ((first[0], first[1:]), (last[-1], last[-2::-1])):
            p, back = ends
            t = _out_of_end(p, back, 3.0 * L)  # pointing out of the chain at its end
            ground = uphill_at(dem, p, L)  # the ground the hook stands on (what check judges it by)
            if ground is None:  # no heights there: the routed surface's direction
                vx, vy = sample(np.array([p[0]]), np.array([p[1]]))
                ground = np.array([-vx[0], -vy[0]])
            if t is None or not np.hypot(*ground) > 0:
                continue
            up = ground / np.hypot(*ground)
            options = [up]
            if abs(np.dot(t, up)) > c45 + 1e-9:
                # the fence runs up or down the slope into its end: a hook straight upslope would lie
                # on the fence (zero length on the ground); turn it off the line, 45 deg up the slope,
                # to the side of the disturbed area
                n = np.array([-t[1], t[0]])
                side = (n + up) / np.hypot(*(n + up))
                alt = (up - n) / np.hypot(*(up - n))
                side, alt = _area_side_first(polygon, p, (side, alt), 0.5 * L)
                options = [side, alt]
            direction = _highest(dem, p, options, L)
            hooks.append(
                LineString([p, p + climbing(dem, p, direction, back=-t, reach=L, polygon=polygon) * L])
            )
    return hooks


def climbing(
    dem: Dem,
    p: np.ndarray,
    direction: np.ndarray,
    *,
    back: np.ndarray,
    reach: float,
    polygon: BaseGeometry | None,
) -> np.ndarray:
    """``direction`` where its point ``reach`` away climbs at least half what the best direction's does
    (:func:`geosite.controls.fence_ends.best_turn`, the measure ``check`` holds an end to), else the
    best: on curved ground the gradient at the end can point a hook along a slope that falls away.
    """
    best = best_turn(dem, p, back, reach, polygon)
    if best is None:
        return direction
    rise = rise_ft(dem, p + direction * reach, p)
    if not np.isfinite(rise):
        return best[0]
    if best[1] > 0.0:
        return direction if rise >= 0.5 * best[1] else best[0]
    return best[0] if best[1] > rise + 0.05 else direction  # on a rise: the least fall


def _area_side_first(
    polygon: BaseGeometry | None, p: np.ndarray, sides: tuple[np.ndarray, np.ndarray], reach: float
) -> tuple[np.ndarray, np.ndarray]:
    """The two J-hook directions, the one toward the disturbed area first (the first of ``sides`` unless
    only the second's point ``reach`` from ``p`` lies in ``polygon``).
    """
    side, alt = sides
    if polygon is None:
        return side, alt
    if not polygon.contains(shapely.Point(*(p + side * reach))) and polygon.contains(
        shapely.Point(*(p + alt * reach))
    ):
        return alt, side
    return side, alt


def _highest(dem: Dem, p: np.ndarray, options: list[np.ndarray], reach: float) -> np.ndarray:
    """The first of ``options`` (unit vectors, in order of preference) whose tip ``reach`` from ``p``
    stands within 0.05 ft of the highest tip on the DEM's ground: the hook that climbs (the ground
    curves within a hook's length, so the gradient at its start alone can point a J-hook along it).
    """
    tips = np.array([p + d * reach for d in options])
    z = grid.bilinear(dem.elevation_ft, dem, tips[:, 0], tips[:, 1])
    if not np.isfinite(z).any():
        return options[0]
    best = np.nanmax(z)
    return next(d for d, h in zip(options, z, strict=True) if np.isfinite(h) and h >= best - 0.05)


def _out_of_end(p: np.ndarray, back: np.ndarray, reach: float) -> np.ndarray | None:
    """Unit vector out of a fence at its end ``p``: from the fence's point ``reach`` back along it (or
    its far end), so a last stretch shorter than a cell does not decide the direction.
    """
    acc = 0.0
    prev = p
    q = None
    for pt in back:
        acc += float(np.hypot(*(pt - prev)))
        q, prev = pt, pt
        if acc >= reach:
            break
    if q is None:
        return None
    t = p - q
    n = float(np.hypot(*t))
    return t / n if n > 0 else None
