"""A submission's fence ends turned upslope (DNR 1056), judged on the submitted lines and the DEM.

DNR technical standard 1056 has the ends of a silt fence turned upslope, so water running along the
fence is held at its end instead of going round it. ``analyze`` places a hook of ``fence_hook_ft`` at
each open end of its perimeter fence (:func:`geosite.controls.fence_hooks.fence_hooks`); ``check``
must judge any
layout, not only geosite's, so it never compares against geosite's hook positions. It reads the ground:

* The submitted ``silt_fence`` and ``straw_bales`` lines are noded and merged; an **open end** is an end
  of a merged line that no other fence line (an interior row's included) comes within ``join_ft`` of.
  A closed ring has none.
* Only the lines that serve the required downslope and sideslope stretches are judged: those running
  at least ``hook_ft``, and half their length, within ``serve_ft`` of them (the ends analyze hooks).
  A pile's own fence (a ``pile_id``) or an interior row is judged by its own requirement.
* An end is **turned upslope** when the fence's last ``hook_ft`` (or the whole line, when shorter)
  rises toward the end by at least ``climb_fraction`` of what the best turn there climbs over the same
  length (:func:`best_turn`: the highest of 16 directions from where that stretch starts, none back
  along the fence, toward the disturbed area where one there climbs at all, as analyze turns its
  hooks): a hook straight up the slope climbs all of it, analyze's 45-degree J-hook about 0.71 of it,
  a fence ending on the contour none.
  So a side fence that runs up the slope into its end is turned upslope by its own line: water along
  it runs away from that end, not round it.
* An end inside a channel's corridor is where the fence stops at concentrated flow (DNR 1056 keeps
  silt fence off it) and the channel's own protection takes over: not an open end.
* An end not turned upslope whose runoff (its D8 path) meets another fence within ``reach_ft``
  downslope is backed by that fence (an interior row's end just above the perimeter fence): water
  going round it is caught there, so it is counted, not failed.
* Where the ground at the end is flatter than ``flat_pct``, or the best turn there climbs less than a
  turn on ``flat_pct`` would (it stands on a rise or a shelf: :func:`best_turn`), no direction is
  upslope that a DEM can tell: the end is not judged (counted as on flat ground or a rise). Where the
  DEM has no height at the end or behind it, it is not judged either (counted as without heights).

The heights are the DEM's, interpolated bilinearly between cell centres. Written by hand: no library
judges a line's end against a surface; the geometry is shapely's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from geosite import grid

if TYPE_CHECKING:
    from geosite.grid import Dem


@dataclass(frozen=True)
class EndRules:
    """What an end is judged by (every figure from the profile).

    Attributes
    ----------
    hook_ft : float
        Length of a fence end judged, ft (DNR 1056's hook as geosite draws it).
    climb_fraction : float
        Share of what the best turn climbs over ``hook_ft`` that the end must rise (0 to 1).
    flat_pct : float
        Ground flatter than this at the end, percent, has no upslope: the end is not judged.
    join_ft : float
        Fence lines closer than this, ft, meet (an end there is not open).
    serve_ft : float
        A fence line running ``hook_ft`` or more within this distance, ft, of a required perimeter
        stretch serves it.
    reach_ft : float
        How far downslope, ft, another fence may catch the runoff leaving an end (the reach a fence
        below covers a stretch from, in the coverage test).
    """

    hook_ft: float
    climb_fraction: float
    flat_pct: float
    join_ft: float
    serve_ft: float
    reach_ft: float


@dataclass
class FenceEnds:
    """The open ends of the submitted perimeter fences, judged (counted as :func:`fence_ends` goes).

    Attributes
    ----------
    judged : int
        Ends judged (on sloping ground with heights).
    turned : int
        Ends turned upslope.
    flat : int
        Ends on ground flatter than the rules' ``flat_pct``, or on a rise no direction climbs from: not
        judged.
    no_heights : int
        Ends where the DEM has no height: not judged.
    at_channel : int
        Ends at a channel, where the fence stops at concentrated flow: not open.
    caught_below : int
        Ends not turned upslope whose runoff meets another fence within the rules' ``reach_ft``
        downslope: backed by it, not failed.
    not_turned : list of dict
        Each end not turned upslope: ``x``, ``y`` (the DEM's CRS), ``rise_ft`` (the fence's rise toward
        the end), ``climb_ft`` (what the best turn there climbs over the same length).
    """

    judged: int = 0
    turned: int = 0
    flat: int = 0
    no_heights: int = 0
    at_channel: int = 0
    caught_below: int = 0
    not_turned: list[dict[str, float]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        """The counts and the ends not turned, for the report (ft, the DEM's CRS)."""
        return {
            "judged": self.judged,
            "turned_upslope": self.turned,
            "on_flat_ground": self.flat,
            "without_heights": self.no_heights,
            "at_a_channel": self.at_channel,
            "backed_by_a_fence_below": self.caught_below,
            "not_turned_upslope": self.not_turned,
        }

    def _judge(  # noqa: PLR0917 - one end's facts, private
        self, end: np.ndarray, line: LineString, dem: Dem, rules: EndRules, below: _Below, area: Any
    ) -> None:
        """Judge one end of ``line`` (which runs toward ``end``); ``below`` says whether another fence
        catches the runoff leaving it; ``area``, where a turn is preferred.
        """
        fpu = dem.ft_per_unit
        length = min(rules.hook_ft / fpu, line.length)
        back = line.interpolate(line.length - length)
        rise = rise_ft(dem, end, np.array([back.x, back.y]))
        mid = line.interpolate(line.length - 0.5 * length)
        slope = float(np.mean([_slope_at(dem, q) for q in (end, (mid.x, mid.y), (back.x, back.y))]))
        best = best_turn(dem, (back.x, back.y), _behind(line, length), length, area)
        if not (np.isfinite(rise) and np.isfinite(slope)) or best is None:
            self.no_heights += 1
            return
        level = rules.flat_pct / 100.0 * length * fpu  # what a turn on the flattest ground judged climbs
        if slope * 100.0 < rules.flat_pct or best[1] < level:  # level, or a rise no turn climbs from
            self.flat += 1
            return
        self.judged += 1
        if rise >= rules.climb_fraction * best[1]:
            self.turned += 1
            return
        if below.catches(end):
            self.caught_below += 1
            return
        self.not_turned.append(
            {"x": float(end[0]), "y": float(end[1]), "rise_ft": round(rise, 2), "climb_ft": round(best[1], 2)}
        )


def fence_ends(
    lines: Any,
    required: Any,
    dem: Dem,
    rules: EndRules,
    *,
    channels: Any = None,
    directions: np.ndarray | None = None,
    area: Any = None,
) -> FenceEnds:
    """Judge each open end of the fence ``lines`` that serve the ``required`` stretches (DNR 1056).

    Parameters
    ----------
    lines : sequence of shapely geometry
        The submitted fence lines, in the DEM's CRS (LineString or MultiLineString), a pile's own
        fences left out.
    required : shapely geometry or None
        The required perimeter stretches, in the DEM's CRS; None judges every line.
    dem : geosite.grid.Dem
        The terrain the ends are judged on.
    rules : EndRules
        The lengths, fraction and slope the ends are judged by.
    channels : shapely geometry or None
        The channels' corridors (DEM CRS): a fence stops at concentrated flow (DNR 1056), so an end
        inside one is where the channel's own protection takes over, not an open end.
    directions : numpy.ndarray or None
        The DEM's D8 flow directions (geosite's codes): an end not turned upslope whose runoff meets
        another fence within ``rules.reach_ft`` downslope is backed by it (a row's end above the
        perimeter fence), not a failure. None: no end is backed.
    area : shapely geometry or None
        The disturbed area (DEM CRS): the best turn an end is held to is toward it where a turn there
        climbs at all (as analyze turns its hooks).

    Returns
    -------
    FenceEnds
        The ends judged, turned, not judged, and each end not turned upslope.
    """
    fpu = dem.ft_per_unit
    every = _merged(lines)
    parts = every
    if required is not None and not shapely.is_empty(required):
        near = required.buffer(rules.serve_ft / fpu)
        parts = [p for p in every if _beside(p, near, rules.hook_ft / fpu)]
    out = FenceEnds()
    for part in parts:
        rest = [p for p in every if p is not part]  # any fence (a row too) an end may meet
        others = shapely.union_all(rest) if rest else None
        coords = np.asarray(part.coords)
        for end, backward in ((coords[-1], part), (coords[0], part.reverse())):
            if others is not None and Point(end).distance(others) * fpu < rules.join_ft:
                continue  # meets another fence: not an open end
            if channels is not None and channels.contains(Point(end)):
                out.at_channel += 1
                continue
            out._judge(end, backward, dem, rules, _Below(dem, directions, others, rules.reach_ft), area)
    return out


def _beside(line: LineString, near: Any, least: float) -> bool:
    """Whether ``line`` runs beside the required stretches: at least ``least`` (CRS units) and half its
    length inside ``near`` (an interior row meeting the perimeter at a corner does not).
    """
    inside = line.intersection(near).length
    return bool(inside >= least and inside >= 0.5 * line.length)


def _merged(lines: Any) -> list[LineString]:
    """The lines noded at their crossings and merged where two meet end to end; rings dropped. A fence
    drawn as anything but a line (a polygon, a point) has no ends to judge and is left out.
    """
    kinds = ("LineString", "MultiLineString")
    geoms = [g for g in lines if g is not None and not g.is_empty and g.geom_type in kinds]
    if not geoms:
        return []
    merged = shapely.line_merge(shapely.union_all(geoms))
    parts = [g for g in shapely.get_parts(merged) if isinstance(g, LineString) and g.length > 0]
    return [g for g in parts if not g.is_closed]


#: The directions a turned end may take (every 22.5 degrees): ``best_turn`` tries each.
FAN = np.array([[math.cos(a), math.sin(a)] for a in np.radians(np.arange(0.0, 360.0, 22.5))])


def _behind(line: LineString, length: float) -> np.ndarray | None:
    """Unit vector from the point ``length`` before ``line``'s end back along the line (None where the
    line is no longer than that).
    """
    at = line.length - length
    if at <= 1e-9:
        return None
    b, before = line.interpolate(at), line.interpolate(max(at - 0.5 * length, 0.0))
    v = np.array([before.x - b.x, before.y - b.y])
    n = float(np.hypot(*v))
    return v / n if n > 0 else None


def best_turn(
    dem: Dem, p: Any, back: Any, reach: float, inside: Any = None
) -> tuple[np.ndarray, float] | None:
    """The direction from ``p`` whose point ``reach`` away stands highest on the DEM's ground, never
    within 60 degrees of ``back`` (along the fence, which a hook would retrace), preferring directions
    whose point lies in ``inside`` while one of them climbs at all. What a fence end is turned toward
    (analyze's hooks) and what ``check`` holds an end against (an end no direction climbs from stands on
    a rise: nothing runs round it).

    Parameters
    ----------
    dem : geosite.grid.Dem
        The terrain.
    p : array-like of float
        The end (x, y), in the DEM's CRS.
    back : array-like of float or None
        Unit vector from the end back along the fence; None: every direction.
    reach : float
        The hook's length, in the DEM's CRS units.
    inside : shapely geometry or None
        Where the turned end should lie (the disturbed area), given the choice.

    Returns
    -------
    tuple of numpy.ndarray and float, or None
        The unit direction and how much higher its point is than ``p``, ft; None where the DEM has no
        heights there.
    """
    dirs = FAN if back is None else FAN[FAN @ np.asarray(back, float) < 0.5]
    tips = np.asarray(p, float)[:2] + dirs * reach
    z = grid.bilinear(dem.elevation_ft, dem, np.r_[p[0], tips[:, 0]], np.r_[p[1], tips[:, 1]])
    rise = z[1:] - z[0]
    ok = np.isfinite(rise)
    if not ok.any():
        return None
    if inside is not None:
        within = np.array([inside.contains(Point(*t)) for t in tips]) & ok
        if within.any() and np.nanmax(np.where(within, rise, np.nan)) > 0:
            ok = within
    k = int(np.nanargmax(np.where(ok, rise, np.nan)))
    return dirs[k], float(rise[k])


def uphill_at(dem: Dem, p: Any, reach: float) -> np.ndarray | None:
    """The ground's upslope direction at ``p`` (a unit vector, east and north), from the DEM's own
    heights ``reach`` (CRS units) apart across ``p``; None where a height is missing or the ground is
    level. What a fence end is turned toward (analyze's hooks) and judged against (``check``): the
    ground the fence stands on, not the depression-filled surface water is routed over.

    Parameters
    ----------
    dem : geosite.grid.Dem
        The terrain.
    p : array-like of float
        The point (x, y), in the DEM's CRS.
    reach : float
        Distance between the heights differenced, in the DEM's CRS units (a hook's length smooths
        the ground's grain at that scale).

    Returns
    -------
    numpy.ndarray or None
        The unit vector (east, north) up the slope.
    """
    h = max(0.5 * reach, abs(dem.transform.a))
    x = np.array([p[0] + h, p[0] - h, p[0], p[0]])
    y = np.array([p[1], p[1], p[1] + h, p[1] - h])
    z = grid.bilinear(dem.elevation_ft, dem, x, y)
    g = np.array([z[0] - z[1], z[2] - z[3]])
    norm = float(np.hypot(*g))
    if not (np.isfinite(norm) and norm > 0):
        return None
    return g / norm


@dataclass(frozen=True)
class _Below:
    """The other fences an end's runoff may meet downslope (D8 paths on the DEM's routing)."""

    dem: Dem
    directions: np.ndarray | None
    others: Any
    reach_ft: float

    def catches(self, end: np.ndarray) -> bool:
        """Whether the D8 path from ``end`` passes within one cell of another fence within the reach."""
        if self.directions is None or self.others is None:
            return False
        from geosite.hydrology import trace_down

        dem = self.dem
        x, y = np.array([end[0]]), np.array([end[1]])
        if not grid.inside_grid(dem, x, y)[0]:
            return False
        r, c = grid.rowcol(dem, x, y)
        cell_ft = min(abs(dem.transform.a), abs(dem.transform.e)) * dem.ft_per_unit
        steps = max(1, int(math.ceil(self.reach_ft / cell_ft)))
        cells = trace_down(self.directions, r, c, steps)
        rows, cols = np.divmod(cells, self.directions.shape[1])
        px, py = grid.centres(dem, rows, cols)
        near = shapely.dwithin(shapely.points(px, py), self.others, abs(dem.transform.a))
        return bool(np.any(near))


def rise_ft(dem: Dem, to: Any, start: Any) -> float:
    """How much higher the DEM's ground is at ``to`` than at ``start`` (points in the DEM's CRS), ft;
    NaN where either has no height.
    """
    z = grid.bilinear(dem.elevation_ft, dem, np.array([to[0], start[0]]), np.array([to[1], start[1]]))
    return float(z[0] - z[1])


def _slope_at(dem: Dem, p: Any) -> float:
    """The ground's steepest slope at ``p``, ft/ft: central differences one cell each way."""
    hx, hy = abs(dem.transform.a), abs(dem.transform.e)
    x = np.array([p[0] + hx, p[0] - hx, p[0], p[0]])
    y = np.array([p[1], p[1], p[1] + hy, p[1] - hy])
    z = grid.bilinear(dem.elevation_ft, dem, x, y)
    dzdx = (z[0] - z[1]) / (2 * hx * dem.ft_per_unit)
    dzdy = (z[2] - z[3]) / (2 * hy * dem.ft_per_unit)
    return float(np.hypot(dzdx, dzdy))


__all__ = ["FAN", "EndRules", "FenceEnds", "best_turn", "fence_ends", "rise_ft", "uphill_at"]
