"""Sediment trap (DNR technical standard 1063): a small basin for an outlet draining under the standard's
limit (5 acres), sized by its surface area per acre drained.

The sediment-basin requirement (:mod:`geosite.practices.sediment_basin`) decides which outlets need a
trap; this practice places each trap's footprint on the site at its outlet
(:func:`geosite.controls.place_traps`: its DNR 1063 surface area, in the disturbed area where it fits,
clear of the structures, within reach of where the outlet's runoff leaves), and says where none fits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import geopandas as gpd
import numpy as np
import shapely

from geosite import controls, grid
from geosite.grid import to_crs
from geosite.practices.base import OutputLayer, PayItem, Practice
from geosite.symbols import Block, CadLook, Style

if TYPE_CHECKING:
    from geosite.practices.context import Context, Flow

#: what drains to an outlet, by the drainage's class (geosite.controls.basin_kind): the trap
TRAP = "trap"


def _pool(name: str) -> Block:
    """The pool symbol: a circle of the footprint's size and its water lines."""
    return Block(
        name,
        (
            ("circle", 1.0),
            ("line", ((-0.8, 0.3), (0.8, 0.3))),
            ("line", ((-0.9, 0.0), (0.9, 0.0))),
            ("line", ((-0.8, -0.3), (0.8, -0.3))),
        ),
        ("kind", "outlet", "drainage_acres", "disturbed_acres", "size", "storage_cy", "required"),
    )


class SedimentTrap(Practice):
    """A sediment trap at an outlet draining under DNR 1063's limit."""

    name = "sediment_trap"
    title = "Sediment trap"
    standard = "DNR 1063"
    family = "trap"
    drawn: ClassVar[dict[str, str]] = {"polygon": "sediment_traps_sized"}
    controls = ("sediment_trap_max_drainage_acres", "basin_search_ft", "fence_row_clearance_ft")
    looks: ClassVar[dict[str, Style]] = {
        "sediment_traps_sized": Style(
            "polygon",
            "Sediment trap at its DNR 1063 surface area, on the site at the outlet it serves "
            "(label: type, drainage, area)",
            face="#a9cce3",
            edge="#1f618d",
            lw=0.8,
            hatch="--",
            z=6.05,
            clear="footprint",
        ),
    }
    layers = (
        OutputLayer(
            "sediment_basin_footprints",
            "Polygon",
            (
                ("outlet", "int"),
                ("kind", "str"),
                ("drainage_acres", "float"),
                ("surface_sqft", "float"),
                ("placed", "bool"),
                ("moved_ft", "float"),
                ("in_disturbed", "bool"),
                ("placement", "str"),
                ("required", "bool"),
            ),
            (("Sediment trap at its DNR 1063 surface area", "sediment_traps_sized", None),),
            {"": CadLook("C-ESCP-BASN-FOOT", 5, "CONTINUOUS", "traps at their DNR 1063 area")},
        ),
    )
    submitted: ClassVar[dict[str, dict[str, Any]]] = {
        "polygon": {"face": "#a9cce3", "hatch": "--"},
        "point": {"marker": "o"},
    }
    cad = CadLook("C-ESCP-BASN", 5, "CONTINUOUS", "sediment basins and traps")
    blocks = (_pool("GS_SEDIMENT_BASIN"),)
    pay = PayItem(
        "CY",
        "storage",
        "storage below the outlet: the trap's storage_cy, else the profile's storage per acre drained",
        "DNR 1063",
        keys=("sediment_trap_storage_cy_per_acre",),
        also=(
            PayItem(
                "SF", "surface", "surface of the storage at the outlet's invert", "DNR 1063", part="surface"
            ),
        ),
        part="storage",
    )


def footprints(
    ctx: Context, flow: Flow, outlets: gpd.GeoDataFrame, cells: list[Any], *, taken: list[Any] | None = None
) -> gpd.GeoDataFrame:
    """The footprint of the trap at each outlet of ``outlets`` (site CRS) needing one: its DNR 1063 surface
    area (the profile's sq ft per acre drained), on the site, in the disturbed area where it fits, clear of
    the structures, the roads and drives and the basins or traps already there (``taken``, site CRS: the
    submitted ones drawn at their size), within ``basin_search_ft`` of ``cells`` (each outlet's exit cells on
    the DEM grid: where ``check`` counts a trap as receiving its runoff).
    """
    nc = flow.dem.shape[1]
    receives = list(
        to_crs(
            gpd.GeoSeries(
                [
                    shapely.multipoints(np.column_stack(grid.centres(flow.dem, *np.divmod(k, nc))))
                    for k in cells
                ],
                crs=flow.dem.crs,
            ),
            outlets.crs,
        )
    )
    dist = ctx.m.layers["disturbed_area"]
    built = _built(ctx, outlets.crs) + list(taken or [])
    ground = controls.TrapGround(
        site=ctx.site.boundary,
        disturbed=to_crs(dist, outlets.crs).geometry.union_all(),
        structures=shapely.union_all(built) if built else None,
        ft_per_unit=ctx.site.ft_per_unit,
        clear_ft=float(ctx.control("fence_row_clearance_ft")),  # the perimeter fence's room
    )
    per_acre = ctx.profile.value("controls", "sediment_trap_surface_sqft_per_acre")
    return controls.place_traps(
        outlets,
        ground,
        surface_sqft_per_acre=None if per_acre is None else float(per_acre),
        reach_ft=float(ctx.control("basin_search_ft")),
        receives=receives,
    )


#: The site's layers no trap is dug on: a pool in a house, a street or a drive is no plan a crew can build.
TRAP_OBSTACLE_LAYERS = ("structures", "roads", "access_drives")


def _built(ctx: Context, crs: Any) -> list[Any]:
    """The site's structures, roads and drives (:data:`TRAP_OBSTACLE_LAYERS`) in ``crs``, as the fence
    engine takes them (:func:`geosite.controls.fences.row_obstacles`: a line given a footing's width).
    """
    from geosite.controls.fences import row_obstacles

    obst = row_obstacles(ctx.site)
    if obst is None:
        return []
    got = obst[obst["layer"].isin(TRAP_OBSTACLE_LAYERS)]
    return [g for g in to_crs(got, crs).geometry if g is not None and not g.is_empty]


def footprint_report(traps: gpd.GeoDataFrame) -> list[dict[str, Any]]:
    """The report's ``trap_footprints``: per trap its outlet, surface (sq ft), where it lies, in words."""
    return [
        {
            "outlet": int(r.outlet),
            "surface_sqft": round(float(r.surface_sqft), 1),
            "placed": bool(r.placed),
            "moved_ft": round(float(r.moved_ft), 1) if r.placed else None,
            "in_disturbed": bool(r.in_disturbed),
            "placement": str(r.placement),
        }
        for r in traps.itertuples()
    ]
