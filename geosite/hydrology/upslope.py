"""The land outside a polygon that drains into it (upslope area), by D8 on a certified window of the DEM
or on the whole grid, and its D-infinity total (Tarboton 1997). Vectors are in the DEM's CRS.

Upslope cells are found by a breadth-first search over D8 donors starting at the polygon's cells
(a cell is a polygon cell when its centre lies inside). Only the part of the DEM that can drain to
the site is worked on ("window"): a window around the polygon is filled and routed on its own, its
edges acting as outlets, and grown until the answer is *certified* equal to the whole-DEM one:

1. the upslope cells, the polygon and a 2-cell ring around them (and every flat touching them, with
   its ring) stay clear of the window's artificial edges, so their D8 directions depend only on
   filled heights inside the window;
2. those filled heights are the whole DEM's: each cell's D8 path on the window's filled surface,
   which never rises, leaves the window by an outlet cell; where that outlet is not a true outlet of
   the DEM, a search over the whole DEM's cells no higher than the lowest filled height that relies
   on it (heading for the DEM edge first) proves it reaches a true outlet without rising above that
   height. Filling can only lower when outlets are added, so that path pins the height exactly. (The
   window is filled without labels, by reconstruction; its D8 paths say which outlet each cell relies
   on: :func:`geosite.hydrology._kernels_numba.outlets_relied_on`.)

A window that fails (2) cuts through a closed basin that its edge cell's water fills before it
spills (the polygon's own cells are tested before a window is grown for (1), so such a basin is
found in the first round): the window grows at once to what a coarse grid says drains into the
polygon (D8 on the DEM's filled block minima: the blocks draining in and the flats they touch,
:func:`geosite.hydrology.certify.coarse_drainage_box`), or, when that adds nothing, to the basin a
search in order of water level finds. Otherwise margins double. Flats are routed as a pure
function of the filled heights, so equal heights give equal directions. When the window would
exceed :data:`WHOLE_FRACTION` of the DEM the whole DEM is routed instead. ``method="auto"`` gives way
to the whole DEM as soon as the coarse grid sees the basin wider than that, before searching it: the
search visits the basin at about twice the whole routing's cost per cell, so a basin over most of the
DEM cost more searched than routed (on a 1 M-cell kettle, auto took 3.1x the whole routing; now the
whole routing and its decision: one first window and the coarse grid).
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from affine import Affine

from geosite.errors import GeometryError, InputError
from geosite.grid import rasterize
from geosite.hydrology.certify import coarse_drainage_box, coarse_floor, dilate, lowest_fill_by_seed
from geosite.hydrology.flow import FlowGrid, flow_grid
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem

log = logging.getLogger(__name__)

#: The largest share of a DEM held in memory routed as a window: beyond it the whole DEM is routed. A
#: window that large costs most of the whole routing and, when it fails its certificate, adds to it.
#: bench_hydrology's 16 M-cell centre site sits by a lake whose flats its answer depends on: its
#: certified window is half the DEM (2.0 s of CPU, against 2.6 s for the whole DEM; at 40 % it was
#: routed whole, 4.3 s with the attempts before).
WHOLE_FRACTION = 0.6

#: The largest share of a DEM the first window may cover for ``method="auto"`` to route a window:
#: beyond it the whole DEM is routed at once. A first window certified at once saves at most the rest
#: of the whole routing; one that is not costs more than the whole, with the windows that follow (the
#: benchmark's 1 M-cell DEM, whose first window around a 5-acre square is 22 % of it: 0.48 and 0.87 s
#: for two of its three places, where the whole DEM takes 0.2 s; measured under load).
FIRST_FRACTION = 0.2

# ---------------------------------------------------------------------------------------------------
# upslope area of a polygon


@dataclass(frozen=True, eq=False)
class UpslopeArea:
    """Land outside a polygon that drains into it (D8), and how that water arrives.

    Attributes
    ----------
    area_sqft : area outside the polygon whose flow path enters it.
    sheetflow_area_sqft : part of ``area_sqft`` arriving through entry cells whose own contributing
        area is below the channel threshold.
    channelized_area_sqft : the rest: arriving as concentrated (channelized) flow.
    channelized : True when any entry cell's contributing area reaches the channel threshold.
    channel_threshold_sqft : the threshold used.
    mean_slope_pct : mean Horn slope of the upslope cells (NaN when there are none).
    flow_length_ft : longest D8 flow path, from an upslope cell centre to the first polygon cell centre.
    cell_count : number of upslope cells.
    polygon : the upslope area as a shapely (Multi)Polygon of whole cells (empty when none).
    entry_points : GeoDataFrame of the cells where outside flow crosses into the polygon (points at the
        cell centres) with ``contrib_area_sqft``, ``flow_length_ft`` (longest path to that entry) and
        ``channelized``.
    method : "window" (certified local computation) or "whole" (whole-DEM routing).
    crs : the DEM's CRS.
    """

    area_sqft: float
    sheetflow_area_sqft: float
    channelized_area_sqft: float
    channelized: bool
    channel_threshold_sqft: float
    mean_slope_pct: float
    flow_length_ft: float
    cell_count: int
    polygon: Any
    entry_points: Any
    method: str
    crs: Any

    @property
    def area_acres(self) -> float:
        """The area in acres."""
        return self.area_sqft / SQFT_PER_ACRE

    def to_geodataframe(self) -> gpd.GeoDataFrame:
        """The upslope area as a one-row GeoDataFrame with the scalar results as columns."""
        import geopandas as gpd

        return gpd.GeoDataFrame(
            {
                "area_sqft": [self.area_sqft],
                "sheetflow_area_sqft": [self.sheetflow_area_sqft],
                "channelized_area_sqft": [self.channelized_area_sqft],
                "channelized": [self.channelized],
                "mean_slope_pct": [self.mean_slope_pct],
                "flow_length_ft": [self.flow_length_ft],
            },
            geometry=[self.polygon],
            crs=self.crs,
        )


def _as_polygon(polygon: Any, dem: Dem) -> BaseGeometry:
    """A shapely geometry in the DEM's CRS from a shapely geometry (assumed in the DEM's CRS), a
    GeoSeries or a GeoDataFrame (reprojected when its CRS differs).
    """
    from shapely.geometry.base import BaseGeometry

    if isinstance(polygon, BaseGeometry):
        geom = polygon
    elif hasattr(polygon, "geometry") or hasattr(polygon, "to_crs"):
        gs = polygon.geometry if hasattr(polygon, "geometry") else polygon
        if gs.crs is None:
            raise GeometryError("upslope_area: the polygon layer has no CRS; assign the site CRS first")
        if not gs.crs.equals(dem.crs):
            gs = gs.to_crs(dem.crs)
        geom = gs.union_all()
    else:
        raise GeometryError(
            f"upslope_area: expected a shapely polygon or a GeoDataFrame, got {type(polygon).__name__}"
        )
    if geom.is_empty or geom.geom_type not in ("Polygon", "MultiPolygon"):
        raise GeometryError(f"upslope_area: expected a non-empty (Multi)Polygon, got {geom.geom_type}")
    if not geom.is_valid:
        raise GeometryError(
            "upslope_area: the polygon is invalid (self-intersecting?); repair it (make_valid) first"
        )
    return geom


def upslope_area(
    dem: Dem | FlowGrid,
    polygon: Any,
    *,
    channel_threshold_sqft: float,
    method: str = "auto",
) -> UpslopeArea:
    """The land outside ``polygon`` that drains into it, as computed on the whole DEM.

    Parameters
    ----------
    dem : Dem or FlowGrid
        The DEM, or a :class:`FlowGrid` already routed (then the whole-grid directions are traced).
    polygon : BaseGeometry, GeoDataFrame or GeoSeries
        The disturbed area: a shapely (Multi)Polygon in the DEM's CRS, or a GeoDataFrame/GeoSeries.
    channel_threshold_sqft : float
        Contributing area, sq ft, at which an entry cell's flow is concentrated (channelized): the
        profile's ``[terrain] channel_threshold_sqft``, ``profile.required("terrain",
        "channel_threshold_sqft")``.
    method : {"auto", "window", "whole"}
        "auto" routes a window for a Dem (the whole grid when the first window would cover more than
        :data:`FIRST_FRACTION` of it, or when the closed basin it cuts looks, on the coarse grid, wider
        than a window may be: see the module notes) and the whole grid for a FlowGrid.

    Returns
    -------
    UpslopeArea
        The upslope area, how its water arrives, and the cells where it enters.

    Notes
    -----
    The window and its certificate are described in the module notes.
    """
    _check_method(method, channel_threshold_sqft)
    fg: FlowGrid | None = None
    if isinstance(dem, FlowGrid):
        fg, base = dem, dem.dem
    else:
        base = dem
    geom = _as_polygon(polygon, base)
    auto = method == "auto"
    if auto:
        method = "whole" if fg is not None or _first_window_share(base, geom) > FIRST_FRACTION else "window"
    if method == "window":
        drainage = _window_route(base, geom, search_basins=not auto)
        if drainage is not None:
            return _summarise(base, drainage, threshold_sqft=channel_threshold_sqft, method="window")
    if fg is None:
        fg = flow_grid(base)
    inside = rasterize(geom, base.shape, base.transform).view(np.uint8)
    if not inside.any():
        raise GeometryError("upslope_area: the polygon does not cover any DEM cell")
    drainage = _Drainage(base.elevation_ft, fg.directions, inside, 0, 0, None)
    return _summarise(base, drainage, threshold_sqft=channel_threshold_sqft, method="whole")


def _check_method(method: str, channel_threshold_sqft: float) -> None:
    """InputError unless ``method`` is one :func:`upslope_area` knows and the threshold (sq ft) positive."""
    if method not in ("auto", "window", "whole"):
        raise InputError(f"upslope_area: unknown method {method!r}; use 'auto', 'window' or 'whole'")
    if channel_threshold_sqft <= 0:
        raise InputError(
            f"upslope_area: channel_threshold_sqft must be positive, got {channel_threshold_sqft}"
        )


class _Drainage(NamedTuple):
    """The routing an upslope area is summarised from: heights ``z`` (feet) and D8 directions on a window
    at row ``r0``, column ``c0`` of the DEM (the whole DEM: 0, 0), the polygon's cells (uint8), and the
    polygon's upstream trace (cells, parents) when already made.
    """

    z: np.ndarray
    dirs: np.ndarray
    inside: np.ndarray
    r0: int
    c0: int
    traced: tuple[np.ndarray, np.ndarray] | None


def upslope_area_dinf_sqft(fg: FlowGrid, polygon: Any) -> float:
    """Area outside ``polygon`` draining into it under D-infinity (Tarboton 1997), sq ft.

    D8 sends each cell's water to one of 8 neighbours, so on a slope whose fall line is not one of
    those directions the upslope area of a polygon is swept along the wrong direction: measured on a
    5 % plane, a 100 x 100 ft square's D8 upslope area is 16 % / 29 % short when the fall line is
    10° / 20° off the grid. D-infinity splits each cell's flow between the two neighbours bounding its
    steepest facet and follows sheet flow's true direction (exact on those planes to a cell's width);
    flats and the DEM edge keep their D8 routing. Counted by absorbing the flow that reaches the
    polygon's cells (flow leaving and re-entering is counted once).
    """
    geom = _as_polygon(polygon, fg.dem)
    inside = rasterize(geom, fg.dem.shape, fg.dem.transform)
    return fg.dinf_inflow_cells(inside) * fg.dem.cell_area_sqft


def _window_route(dem: Dem, geom: BaseGeometry, *, search_basins: bool = True) -> _Drainage | None:
    """Route a window grown until certified (see the module notes): its heights, directions, the
    polygon's cells, its row and column, and the upstream trace of the polygon (cells, parents); None
    means "route the whole DEM". ``search_basins`` False (``method="auto"``): where the coarse grid sees
    the closed basin the window cuts wider than :data:`WHOLE_FRACTION` allows, give way to the whole DEM
    at once, without the search for the basin (:func:`_basin_margins`).
    """
    nr, nc = dem.shape
    pr0, pr1, pc0, pc1 = _polygon_box(dem, geom)
    m = [_first_margin((pr0, pr1, pc0, pc1))] * 4  # margins: top, bottom, left, right
    z_all = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    state: dict = {}  # the searches' scratch and proven marks over the whole DEM, made when first needed
    for _ in range(40):
        r0, r1 = max(pr0 - m[0], 0), min(pr1 + m[1], nr)
        c0, c1 = max(pc0 - m[2], 0), min(pc1 + m[3], nc)
        if (r1 - r0) * (c1 - c0) > WHOLE_FRACTION * nr * nc:
            log.debug(
                "upslope window %dx%d exceeds %.0f %% of the DEM: routing the whole DEM",
                r1 - r0,
                c1 - c0,
                100 * WHOLE_FRACTION,
            )
            return None
        w = _RoutedWindow.route(dem, z_all, geom, (r0, r1, c0, c1))
        # 1. clear of the artificial edges
        sides = (
            (r0 > 0 and w.check[0].any()),
            (r1 < nr and w.check[-1].any()),
            (c0 > 0 and w.check[:, 0].any()),
            (c1 < nc and w.check[:, -1].any()),
        )
        if any(sides):
            # before growing by doubling: are the polygon's own filled heights the whole DEM's? One
            # inside a closed basin the window cuts takes the basin in at once instead
            ring = dilate(w.inside.astype(bool), 2)
            ring[0], ring[-1], ring[:, 0], ring[:, -1] = False, False, False, False
            seed = _uncertified_outlet(z_all, w.dirs, w.filled, ring, r0=r0, c0=c0, state=state)
            if seed is None:
                log.debug("upslope window %dx%d: reaches the edges %s, growing", r1 - r0, c1 - c0, sides)
                m = [mi * 2 if s else mi for mi, s in zip(m, sides, strict=True)]
                continue
        else:
            # 2. filled heights certified equal to the whole DEM's
            seed = _uncertified_outlet(z_all, w.dirs, w.filled, w.check, r0=r0, c0=c0, state=state)
            if seed is None:
                return _Drainage(w.z, w.dirs, w.inside, r0, c0, (w.cells, w.parent))
        margins = _basin_margins(
            dem, z_all, (pr0, pr1, pc0, pc1), m, seed=seed, state=state, search=search_basins
        )
        if margins is None:
            log.debug(
                "upslope window %dx%d: the basin it cuts is wider than a window may be", r1 - r0, c1 - c0
            )
            return None
        grown, taken = margins
        log.debug(
            "upslope window %dx%d: filled heights not certified (seed %d): taking in rows %d-%d, columns "
            "%d-%d", r1 - r0, c1 - c0, seed, *taken,
        )  # fmt: skip
        m = grown if grown != m else [mi * 2 for mi in m]  # the basin is in already: something else is
    return None


def _first_margin(pbox: tuple[int, int, int, int]) -> int:
    """The first window's margin beyond the polygon's rows and columns ``pbox``: its larger side, 32
    cells at least."""
    pr0, pr1, pc0, pc1 = pbox
    return max(32, pr1 - pr0, pc1 - pc0)


def _first_window_share(dem: Dem, geom: BaseGeometry) -> float:
    """The share of the DEM the first window around ``geom`` covers (:func:`_window_route`'s)."""
    nr, nc = dem.shape
    pr0, pr1, pc0, pc1 = _polygon_box(dem, geom)
    m = _first_margin((pr0, pr1, pc0, pc1))
    return (min(pr1 + m, nr) - max(pr0 - m, 0)) * (min(pc1 + m, nc) - max(pc0 - m, 0)) / (nr * nc)


def _polygon_box(dem: Dem, geom: BaseGeometry) -> tuple[int, int, int, int]:
    """Rows r0:r1 and columns c0:c1 of the DEM under the polygon's bounds (GeometryError outside it)."""
    nr, nc = dem.shape
    inv = ~dem.transform
    xmin, ymin, xmax, ymax = geom.bounds
    ca, ra = inv @ (xmin, ymax)
    cb, rb = inv @ (xmax, ymin)
    pr0, pr1 = max(int(math.floor(ra)), 0), min(int(math.ceil(rb)), nr)
    pc0, pc1 = max(int(math.floor(ca)), 0), min(int(math.ceil(cb)), nc)
    if pr0 >= pr1 or pc0 >= pc1:
        raise GeometryError("upslope_area: the polygon lies outside the DEM")
    return pr0, pr1, pc0, pc1


@dataclass(frozen=True)
class _RoutedWindow:
    """One window routed: heights ``z`` (ft), ``filled`` heights, D8
    ``dirs``, the polygon's cells ``inside``, its upstream trace (``cells``, ``parent``) and the cells
    whose routing must not touch the window's edges (``check``: the trace and its flats, dilated).
    """

    z: np.ndarray
    filled: np.ndarray
    dirs: np.ndarray
    inside: np.ndarray
    cells: np.ndarray
    parent: np.ndarray
    check: np.ndarray

    @classmethod
    def route(
        cls, dem: Dem, z_all: np.ndarray, geom: BaseGeometry, box: tuple[int, int, int, int]
    ) -> _RoutedWindow:
        """Rows r0:r1, columns c0:c1 (``box``) of ``dem`` (heights ``z_all``, feet) filled, routed and
        traced upstream of ``geom``'s cells.
        """
        from geosite.hydrology import _kernels as fk

        r0, r1, c0, c1 = box
        z = np.ascontiguousarray(z_all[r0:r1, c0:c1])
        filled = np.empty_like(z)
        fk.priority_flood(z, filled, False, np.empty((1, 1), dtype=np.int64))  # no labels: the outlets
        dirs = np.empty(z.shape, dtype=np.uint8)
        fk.d8_directions(filled, dem.cell_x_ft, dem.cell_y_ft, dirs)
        wt = dem.transform @ Affine.translation(c0, r0)
        inside = rasterize(geom, z.shape, wt).view(np.uint8)
        if not inside.any():
            raise GeometryError("upslope_area: the polygon does not cover any DEM cell")
        cells, parent = fk.trace_upstream(dirs, inside)
        area = inside.astype(bool)
        area.reshape(-1)[cells] = True
        check = dilate(area, 2)
        flats = fk.flat_components_touching(filled, dirs, dilate(area, 1).astype(np.uint8))
        if flats.any():
            check |= dilate(flats.astype(bool), 1)
        return cls(z, filled, dirs, inside, cells, parent, check)


def _basin_margins(
    dem: Dem,
    z_all: np.ndarray,
    pbox: tuple[int, int, int, int],
    m: list[int],
    *,
    seed: int,
    state: dict,
    search: bool = True,
) -> tuple[list[int], tuple[int, int, int, int]] | None:
    """The margins (cells beyond the polygon's rows and columns ``pbox``) that take in the closed basin
    the window cut through, whose seed's water fills before it spills; and the rows and columns taken in.

    The coarse grid's guess first; where it is too wide for a window (:data:`WHOLE_FRACTION`), the search
    for the basin itself (:func:`geosite.hydrology._kernels.spill_basin`), unless ``search`` is False:
    then None ("route the whole DEM"). That search takes about twice the whole DEM's routing per cell it
    visits (measured: 0.35 s on a 1 M-cell kettle, whose whole routing took 0.2 s), so a basin the coarse
    grid sees over most of the DEM costs more searched than routed whole; only an explicit
    ``method="window"`` searches it.
    """
    from geosite.hydrology import _kernels as fk

    nr, nc = dem.shape
    pr0, pr1, pc0, pc1 = pbox
    # the window cuts through a closed basin the seed's water fills before it spills: take in what
    # the coarse grid says drains into the polygon, the basin and its flats with it (one step, not
    # doubling); when that is in already, the basin itself (the search finding its spill bounds it)
    pad = max(32, max(pr1 - pr0, pc1 - pc0))
    if "floor" not in state:
        state["floor"] = coarse_floor(z_all)
    floor, f = state["floor"]
    br0, br1, bc0, bc1 = coarse_drainage_box(
        floor, f, pbox, (nr, nc), cell_x_ft=dem.cell_x_ft, cell_y_ft=dem.cell_y_ft
    )
    # the coarse box has a block's ring already: a sixteenth of its size more (32 cells at least), for
    # what its blocks blur (a basin beside the one taken in, a few blocks wider than the guess, made the
    # 16 M centre site route a 7 M-cell window twice)
    want = _padded(pbox, (br0, br1, bc0, bc1), 32)
    grown = [max(mi, wi) for mi, wi in zip(m, want, strict=True)]
    h = min(pr1 + grown[1], nr) - max(pr0 - grown[0], 0)
    w = min(pc1 + grown[3], nc) - max(pc0 - grown[2], 0)
    # nothing new, or a guess too wide (block minima join more than cells do)
    if grown != m and h * w > WHOLE_FRACTION * nr * nc and not search:
        return None
    if grown == m or h * w > WHOLE_FRACTION * nr * nc:
        _, br0, br1, bc0, bc1, _out = fk.spill_basin(z_all, seed, state["scratch"])
        want = _padded(pbox, (br0, br1, bc0, bc1), pad)
        grown = [max(mi, wi) for mi, wi in zip(m, want, strict=True)]
    return grown, (br0, br1, bc0, bc1)


def _padded(pbox: tuple[int, int, int, int], box: tuple[int, int, int, int], least: int) -> list[int]:
    """The margins beyond the polygon's rows and columns ``pbox`` that hold ``box`` (rows r0:r1, columns
    c0:c1) and a sixteenth of its height or width more on each side, ``least`` cells at least.
    """
    pr0, pr1, pc0, pc1 = pbox
    r0, r1, c0, c1 = box
    dr = max(least, (r1 - r0) // 16)
    dc = max(least, (c1 - c0) // 16)
    return [pr0 - r0 + dr, r1 - pr1 + dr, pc0 - c0 + dc, c1 - pc1 + dc]


def _outline(shape: tuple[int, int], cells: np.ndarray, wt: Affine):
    """The polygon of the ``cells`` (flat indices) of a window of ``shape`` whose transform is ``wt``."""
    import shapely
    from rasterio.features import shapes

    rows, cols = np.divmod(cells, shape[1])
    mask = np.zeros(shape, dtype=np.uint8)
    mask.reshape(-1)[cells] = 1
    rr0, rr1 = int(rows.min()), int(rows.max()) + 1
    cc0, cc1 = int(cols.min()), int(cols.max()) + 1
    sub = mask[rr0:rr1, cc0:cc1]
    geoms = [
        shapely.geometry.shape(g)
        for g, _ in shapes(sub, mask=sub.astype(bool), transform=wt @ Affine.translation(cc0, rr0))
    ]
    return shapely.union_all(geoms)


def _uncertified_outlet(z_all, dirs, filled, cells, *, r0: int, c0: int, state: dict) -> int | None:
    """The first outlet (flat index on the whole DEM) of the window at row r0, column c0 whose filled
    height is not proven the whole DEM's for the ``cells`` relying on it (their D8 paths on the
    window's ``dirs`` leaving by it; :func:`_first_unproven`); None when all are.
    """
    from geosite.hydrology import _kernels as fk

    seeds, bounds = fk.outlets_relied_on(dirs, filled, np.ascontiguousarray(cells, dtype=bool))
    return _first_unproven(z_all, seeds, bounds, dirs.shape[1], r0=r0, c0=c0, state=state)


def _uncertified_seed(z_all, label, filled, cells, *, r0: int, c0: int, state: dict) -> int | None:
    """:func:`_uncertified_outlet` for a window flooded with labels: the ``cells`` rely on the seed
    each was flooded from (``label``).
    """
    seeds, bounds = lowest_fill_by_seed(label, filled, cells)
    return _first_unproven(z_all, seeds, bounds, label.shape[1], r0=r0, c0=c0, state=state)


def _first_unproven(z_all, seeds, bounds, wcols: int, *, r0: int, c0: int, state: dict) -> int | None:
    """The first of the window's ``seeds`` (flat indices in a window ``wcols`` wide at row r0, column
    c0 of the DEM) not proven to reach a true outlet of the DEM without rising above its ``bounds``
    (ft; a search for a way out below the lowest filled height relying on it,
    :func:`geosite.hydrology._kernels.spill_below`), as a flat index on the whole DEM; None when all are.
    """
    from geosite.hydrology import _kernels as fk

    nc = z_all.shape[1]
    for k in np.argsort(bounds, kind="stable"):  # increasing bounds keep the proven marks valid
        sr, sc = divmod(int(seeds[k]), wcols)
        gr, gc = sr + r0, sc + c0
        if _is_true_outlet(z_all, gr, gc):
            continue
        if "scratch" not in state:
            state["scratch"] = np.zeros(z_all.shape, dtype=np.uint8)
            state["proven"] = np.zeros(z_all.shape, dtype=np.uint8)
            state["upto"] = -np.inf
        bound = float(bounds[k])
        if bound < state["upto"]:  # a mark says "a way out at or below the bound it was made at": one made
            state["proven"][:] = 0  # at a higher bound proves nothing here, so they are cleared
        state["upto"] = bound
        if not fk.spill_below(
            z_all,
            gr * nc + gc,
            bound,
            state["scratch"],
            state["proven"],
            np.zeros(4, dtype=np.uint8),
            np.full((1, 1), np.inf),
            0,
            0,
            0,
        ):  # every edge its own
            return gr * nc + gc
    return None


def _is_true_outlet(z: np.ndarray, r: int, c: int) -> bool:
    nr, nc = z.shape
    if r == 0 or c == 0 or r == nr - 1 or c == nc - 1:
        return True
    return bool(np.isnan(z[r - 1 : r + 2, c - 1 : c + 2]).any())


def _summarise(dem: Dem, drainage: _Drainage, *, threshold_sqft: float, method: str) -> UpslopeArea:
    """Turn the ``drainage`` directions and polygon mask (on a window of ``dem``) into an UpslopeArea,
    entry cells with a contributing area of ``threshold_sqft`` (sq ft) or more channelized.
    """
    import geopandas as gpd
    import shapely

    from geosite.hydrology import _kernels as fk

    dirs, inside, r0, c0, traced = drainage.dirs, drainage.inside, drainage.r0, drainage.c0, drainage.traced
    cells, parent = traced if traced is not None else fk.trace_upstream(dirs, inside)
    acc, length = fk.upstream_stats(dirs, cells, parent, dem.cell_x_ft, dem.cell_y_ft)
    cell_sqft = dem.cell_area_sqft
    wcols = dirs.shape[1]
    rows, cols = np.divmod(cells, wcols)
    entry = parent < 0
    contrib = acc[entry] * cell_sqft
    chan = contrib >= threshold_sqft
    entry_len = fk.entry_lengths(parent, length)
    t = dem.transform
    ex = t.c + (cols[entry] + c0 + 0.5) * t.a
    ey = t.f + (rows[entry] + r0 + 0.5) * t.e
    entry_gdf = gpd.GeoDataFrame(
        {"contrib_area_sqft": contrib, "flow_length_ft": entry_len, "channelized": chan},
        geometry=gpd.points_from_xy(ex, ey),
        crs=dem.crs,
    )
    if cells.size:
        poly = _outline(dirs.shape, cells, dem.transform @ Affine.translation(c0, r0))
        slope = _slope_at(dem, rows + r0, cols + c0)
        mean_slope = float(np.nanmean(slope)) if np.isfinite(slope).any() else math.nan
    else:
        poly = shapely.geometry.Polygon()
        mean_slope = math.nan
    area = float(cells.size * cell_sqft)
    chan_area = float(contrib[chan].sum())
    return UpslopeArea(
        area_sqft=area,
        sheetflow_area_sqft=float(contrib[~chan].sum()),
        channelized_area_sqft=chan_area,
        channelized=bool(chan.any()),
        channel_threshold_sqft=float(threshold_sqft),
        mean_slope_pct=mean_slope,
        flow_length_ft=float(length.max()) if length.size else 0.0,
        cell_count=int(cells.size),
        polygon=poly,
        entry_points=entry_gdf,
        method=method,
        crs=dem.crs,
    )


def smooth_outline(polygon: BaseGeometry, *, cell: float, min_area: float) -> BaseGeometry:
    """The outline of an upslope area (whole cells) for a map: parts and holes under ``min_area`` dropped
    (the largest part kept when all are), closed and opened by half a cell (``buffer(+e).buffer(-2e)
    .buffer(+e)``) and simplified at half a cell, so the cells' stair steps read as the ground's lines.
    Only the drawing changes: the area reported stays the cells' (D-infinity's) measure.

    Parameters
    ----------
    polygon : BaseGeometry
        The upslope area as whole cells, (Multi)Polygon in a projected CRS.
    cell : float
        The DEM's cell size, CRS units (feet or metres of the polygon's CRS).
    min_area : float
        The mapping unit, CRS units squared (the profile's steep-slope minimum area, 500 sq ft).

    Returns
    -------
    MultiPolygon
        The outline for the map (empty when ``polygon`` is).
    """
    import shapely
    from shapely.geometry import MultiPolygon, Polygon

    def mapped(g: BaseGeometry, keep_largest: bool) -> MultiPolygon:
        """The polygons of ``g`` of the mapping unit or more, holes under it filled."""
        polys = [p for p in shapely.get_parts(g) if p.geom_type == "Polygon" and not p.is_empty]
        big = [p for p in polys if p.area >= min_area] or (
            sorted(polys, key=lambda p: -p.area)[:1] if keep_largest else []
        )
        return MultiPolygon(
            [Polygon(p.exterior, [h for h in p.interiors if Polygon(h).area >= min_area]) for p in big]
        )

    g = mapped(polygon, keep_largest=True)
    if g.is_empty:
        return g
    e = cell / 2
    smooth = mapped(
        g.buffer(e, quad_segs=4).buffer(-2 * e, quad_segs=4).buffer(e, quad_segs=4), keep_largest=False
    )
    out = shapely.simplify(smooth, e, preserve_topology=True) if not smooth.is_empty else g
    return out if out.geom_type == "MultiPolygon" else MultiPolygon(list(shapely.get_parts(out)))


def _slope_at(dem: Dem, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Horn slope (geosite.terrain.slope_pct) at the given DEM cells, computed on a padded crop."""
    from geosite.terrain import slope_pct

    nr, nc = dem.shape
    r0, r1 = max(int(rows.min()) - 1, 0), min(int(rows.max()) + 2, nr)
    c0, c1 = max(int(cols.min()) - 1, 0), min(int(cols.max()) + 2, nc)
    crop = dataclasses.replace(
        dem, elevation_ft=dem.elevation_ft[r0:r1, c0:c1], transform=dem.transform @ Affine.translation(c0, r0)
    )
    return slope_pct(crop)[rows - r0, cols - c0]
