"""Where a proposed sediment trap is dug: a footprint of its DNR 1063 surface area, on the site, at the
outlet it serves.

Notes
-----
An outlet's point (:func:`geosite.controls.disturbed_outlets`) is the exit cell where the disturbed
area's runoff leaves it: on the disturbed edge, often on the site boundary. A trap centred there would be
dug half off the site, over the perimeter fence. The footprint is a regular polygon of
:data:`FOOTPRINT_SIDES` sides whose area is the trap's surface area exactly (the profile's
``sediment_trap_surface_sqft_per_acre`` times the acres draining there, DNR 1063), placed at the nearest
position to the outlet where it fits:

1. on the site and in the disturbed area (the trap takes the runoff before it leaves; the perimeter
   fence runs along the disturbed edge, beside the trap, not through it), clear of the structures and
   of the traps placed before it;
2. else on the site wholly outside the disturbed area, beside its edge where the runoff leaves (the
   fence along the edge again beside the trap), clear of the structures and the other traps.

A footprint straddling the disturbed edge is never proposed: the perimeter fence would run through it.
Nor one touching it: the footprint keeps ``TrapGround.clear_ft`` from the disturbed edge either side (the
room a crew needs between the fence and the pool's berm).

The nearest fitting position is the point of the eroded ground (the ground shrunk by the footprint's
radius) nearest the outlet: the footprint moved inward along the edge's inward normal where the edge is
straight. A position fits only when the footprint comes within ``reach_ft`` of the outlet (the distance
within which ``check`` counts a trap as receiving the outlet's runoff, the profile's
``basin_search_ft``); where none does, the outlet gets no footprint and a statement in words.

A sediment basin (DNR 1064) is sized by its design (settling, storage and dewatering), which the profile
gives no number for: it stays a symbol at its outlet, which lies on the disturbed area.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.ops import nearest_points

from geosite.errors import InputError

if TYPE_CHECKING:
    import geopandas as gpd

#: The sides of the regular polygon a trap's footprint is drawn as (a circle to the eye at print size).
FOOTPRINT_SIDES = 64
#: Where the footprints may lie, in the order they are tried (see the module notes).
TIERS = ("in the disturbed area", "on the site beside the disturbed area, outside it")


@dataclass(frozen=True, kw_only=True)
class TrapGround:
    """The ground a trap may be dug on (site CRS).

    Attributes
    ----------
    site : shapely.geometry.base.BaseGeometry
        The site boundary's polygon.
    disturbed : shapely.geometry.base.BaseGeometry
        The disturbed area (union of its polygons).
    structures : shapely.geometry.base.BaseGeometry or None
        The existing structures (union of their footprints); None when the site has none.
    ft_per_unit : float
        Feet per CRS unit.
    clear_ft : float
        How far a footprint keeps from the disturbed edge, where the perimeter fence runs, ft.
    """

    site: Any
    disturbed: Any
    structures: Any
    ft_per_unit: float
    clear_ft: float


class _Fit(NamedTuple):
    """One footprint placed: its polygon, its centre, and the tier (index into :data:`TIERS`) it lies on."""

    polygon: Polygon
    centre: Point
    tier: int


def footprint_radius_ft(area_sqft: float, sides: int = FOOTPRINT_SIDES) -> float:
    """The circumradius of the regular polygon of ``sides`` sides whose area is ``area_sqft``.

    Parameters
    ----------
    area_sqft : float
        The footprint's area, sq ft.
    sides : int
        The polygon's number of sides.

    Returns
    -------
    float
        The distance from its centre to each vertex, ft.
    """
    if area_sqft <= 0 or sides < 3:
        raise InputError(f"a trap footprint needs a positive area and 3 sides or more ({area_sqft}, {sides})")
    return math.sqrt(2.0 * area_sqft / (sides * math.sin(2.0 * math.pi / sides)))


def footprint(centre: Point, area_sqft: float, ft_per_unit: float) -> Polygon:
    """The regular polygon of :data:`FOOTPRINT_SIDES` sides centred on ``centre`` whose area is
    ``area_sqft``.

    Parameters
    ----------
    centre : shapely.geometry.Point
        Its centre (site CRS).
    area_sqft : float
        Its area, sq ft.
    ft_per_unit : float
        Feet per CRS unit.

    Returns
    -------
    shapely.geometry.Polygon
        The footprint (site CRS).
    """
    r = footprint_radius_ft(area_sqft) / ft_per_unit
    a = np.linspace(0.0, 2.0 * math.pi, FOOTPRINT_SIDES, endpoint=False)
    return Polygon(np.column_stack([centre.x + r * np.cos(a), centre.y + r * np.sin(a)]))


def place_traps(
    outlets: gpd.GeoDataFrame,
    ground: TrapGround,
    *,
    surface_sqft_per_acre: float | None,
    reach_ft: float,
    receives: list[Any] | None = None,
) -> gpd.GeoDataFrame:
    """A footprint for the trap at each outlet that needs one (see the module notes).

    Parameters
    ----------
    outlets : geopandas.GeoDataFrame
        The outlets (site CRS), the ``points`` of :func:`geosite.controls.disturbed_outlets`: ``outlet``,
        ``kind`` and ``drainage_acres``, largest first.
    ground : TrapGround
        Where a trap may be dug.
    surface_sqft_per_acre : float or None
        DNR 1063's surface area per acre drained, sq ft per acre (the profile's
        ``sediment_trap_surface_sqft_per_acre``); None: traps are not sized (no footprints).
    reach_ft : float
        A footprint must come within this distance of its outlet, ft.
    receives : list of shapely geometry, optional
        Per outlet (site CRS), the places a footprint within ``reach_ft`` of receives its runoff (its exit
        cells and their first downhill steps, as ``check`` reads them); None: the outlet's point alone.

    Returns
    -------
    geopandas.GeoDataFrame
        One row per trap (site CRS): ``outlet``, ``kind``, ``drainage_acres``, ``surface_sqft`` (sq ft),
        ``placed`` (whether a position fits), ``moved_ft`` (its centre from the outlet, ft),
        ``in_disturbed`` (whether it lies in the disturbed area) and ``placement`` (in words); the
        geometry is the footprint, None where no position fits.
    """
    import geopandas as gpd

    rows: list[dict[str, Any]] = []
    taken: list[Polygon] = []
    if surface_sqft_per_acre is not None and len(outlets):
        for k, o in enumerate(outlets.itertuples()):
            if o.kind != "trap":
                continue
            area = float(surface_sqft_per_acre) * float(o.drainage_acres)
            near = _Near(o.geometry, o.geometry if receives is None else receives[k], reach_ft)
            fit = _fit(near, area, ground, taken=taken)
            if fit is not None:
                taken.append(fit.polygon)
            rows.append(_row(o, area, fit, ground.ft_per_unit, reach_ft=reach_ft))
    cols = ["outlet", "kind", "drainage_acres", "surface_sqft", "placed", "moved_ft", "in_disturbed"]
    frame = gpd.GeoDataFrame(
        {k: [r[k] for r in rows] for k in [*cols, "placement"]},
        geometry=[r["geometry"] for r in rows],
        crs=outlets.crs,
    )
    return frame


class _Near(NamedTuple):
    """What a footprint must come near: the outlet's point, the places that receive its runoff (site CRS),
    and the distance it must come within, ft.
    """

    at: Point
    receives: Any
    reach_ft: float


def _fit(near: _Near, area_sqft: float, ground: TrapGround, *, taken: list[Polygon]) -> _Fit | None:
    """The footprint of ``area_sqft`` on the first tier where one fits within ``near.reach_ft`` of the
    places receiving the outlet's runoff, clear of the footprints ``taken``, nearest the outlet's point;
    None where none does.
    """
    fpu = ground.ft_per_unit
    r = footprint_radius_ft(area_sqft) / fpu
    blocked = shapely.union_all([g for g in (ground.structures, *taken) if g is not None])
    c = ground.clear_ft / fpu
    tiers = (
        shapely.intersection(ground.site, ground.disturbed.buffer(-c) if c > 0 else ground.disturbed),
        shapely.difference(ground.site, ground.disturbed.buffer(c) if c > 0 else ground.disturbed),
    )
    for tier, base in enumerate(tiers):
        free = shapely.difference(base, blocked) if not blocked.is_empty else base
        centre = _nearest_centre(free, near, r, fpu)
        if centre is None:
            continue
        poly = footprint(centre, area_sqft, fpu)
        if free.buffer(0.01 / fpu).covers(poly):
            return _Fit(poly, centre, tier)
    return None


def _nearest_centre(free: Any, near: _Near, r: float, fpu: float) -> Point | None:
    """The centre of a disc of radius ``r`` (CRS units) lying in ``free`` nearest the outlet's point, or
    else nearest the places receiving its runoff, whose disc comes within the reach of them; None when
    none fits. The ground is shrunk by the radius plus a hundredth of a foot (the shrunk ground's arcs
    are drawn as chords, a little inside the true ones).
    """
    if free.is_empty:
        return None
    core = free.buffer(-(r + 0.01 / fpu), quad_segs=32)
    if core.is_empty:
        return None
    limit = r + near.reach_ft / fpu
    for target in (near.at, near.receives):
        if core.distance(target) <= limit:
            return near.at if core.covers(near.at) else nearest_points(core, target)[0]
    return None


def _row(o: Any, area: float, fit: _Fit | None, fpu: float, *, reach_ft: float) -> dict[str, Any]:
    """The footprint layer's row for outlet ``o`` (a trap of ``area`` sq ft) placed as ``fit``."""
    base = {
        "outlet": int(o.outlet),
        "kind": str(o.kind),
        "drainage_acres": float(o.drainage_acres),
        "surface_sqft": area,
    }
    if fit is None:
        return {
            **base,
            "placed": False,
            "moved_ft": float("nan"),
            "in_disturbed": False,
            "placement": no_room_text(area, reach_ft),
            "geometry": None,
        }
    moved = fit.centre.distance(o.geometry) * fpu
    return {
        **base,
        "placed": True,
        "moved_ft": moved,
        "in_disturbed": fit.tier == 0,
        "placement": f"{TIERS[fit.tier]}, its centre {moved:,.0f} ft from the outlet",
        "geometry": fit.polygon,
    }


def no_room_text(area_sqft: float, reach_ft: float) -> str:
    """The statement for an outlet whose trap fits nowhere on the site within reach.

    Parameters
    ----------
    area_sqft : float
        The trap's DNR 1063 surface area, sq ft.
    reach_ft : float
        The distance from the outlet searched, ft.

    Returns
    -------
    str
        The statement, in words.
    """
    return (
        "no room on the site for the trap this outlet needs; "
        f"its {area_sqft:,.0f} sq ft surface (DNR 1063) fits nowhere on the site, clear of the "
        f"structures, within {reach_ft:g} ft of the outlet: the designer places it or routes the "
        "runoff elsewhere"
    )
