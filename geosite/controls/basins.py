"""Sediment basins and traps (Grantsburg B(6)(c)[2]; DNR technical standards 1063 and 1064): where the
disturbed area's runoff leaves it, how much land drains there, which kind each outlet needs, and whether
a submitted basin or trap receives that runoff.

Notes
-----
The *exit cells* of the disturbed area are its cells whose D8 receiver lies outside it (or off the grid).
Routed with every exit cell made a sink, each exit cell collects exactly the land whose water first
leaves the disturbed area there: disturbed cells and the upslope land running on through them, each
counted once. Exit cells that touch (8-connected), or whose downhill paths meet within ``merge_ft`` of
leaving (outside the disturbed area, before a channel), are one *outlet*: the place the whole runoff of
that part of the disturbed area leaves, and its drainage is the sum of its exit cells' (so a plane's
whole downslope edge is one outlet draining the whole area, never one cell's column). An outlet is
*concentrated* when a channel cell (contributing area at least the channel threshold) leaves there.

Each outlet's drainage decides its kind: a trap under ``trap_max_acres`` (1063), a basin up to
``basin_max_acres`` (1064), more than one basin beyond. The proposed point is the outlet's exit cell with
the largest drainage.

A submitted basin or trap serves an outlet when it receives that outlet's runoff: its footprint lies
within ``search_ft`` of the outlet's exit cells or of the first ``merge_ft`` of their downhill paths, or
(inside the disturbed area, above the outlet) most of the outlet's drainage (``capture``, half) flows
through it on its way out. Whether its practice suits the outlet's drainage (a trap under 5 acres, a basin
up to
100) is the sediment-basin practice's rule (geosite.practices.sediment_basin).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, NotRequired, TypedDict

import numpy as np
import shapely
from shapely.geometry import Point

from geosite import grid
from geosite.hydrology import drains_into, trace_down, weighted_accumulation
from geosite.io.output import py_scalar
from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid

#: the drainage classes of :func:`basin_kind`: a trap's (DNR 1063), a basin's (DNR 1064), beyond one basin's
DRAINAGE_CLASSES = ("trap", "basin", "beyond")


class OutletService(TypedDict):
    """One outlet of the disturbed area and the submitted basins or traps at it (the report's
    ``sediment_basin_location.outlets``).
    """

    #: the outlet's number (1.., largest drainage first)
    outlet: int
    #: the land draining there, acres, and the disturbed part of it, acres
    drainage_acres: float
    disturbed_acres: float
    #: the kind of control its drainage needs (:func:`basin_kind`)
    kind: str
    #: the ids of the submitted features receiving its runoff, and of those whose type suits its drainage
    served_by: list[Any]
    suitable_by: list[Any]
    #: submitted id -> share of the outlet's drainage flowing through it (when basins were submitted)
    captured: NotRequired[dict[Any, float]]


@dataclass(frozen=True)
class DrainageClass:
    """The kind of sediment control a drainage needs (:func:`basin_kind`), and the standard's limit.

    Attributes
    ----------
    kind : str
        One of :data:`DRAINAGE_CLASSES`: ``trap`` (under DNR 1063's limit), ``basin`` (up to DNR 1064's) or
        ``beyond`` (more than one basin may drain).
    limit : str
        The standard's limit in words (its acres), for the report.
    """

    kind: str
    limit: str


@dataclass(frozen=True, eq=False)
class Outlets:
    """The outlets of a disturbed area (:func:`disturbed_outlets`): where its runoff leaves it.

    Attributes
    ----------
    points : geopandas.GeoDataFrame
        One Point per outlet (the disturbed area's CRS) with ``outlet`` (1..), ``drainage_sqft``,
        ``drainage_acres``, ``disturbed_sqft``, ``disturbed_acres`` (the disturbed part of it),
        ``concentrated``, ``kind``, ``limit`` and ``exit_cell_count``, largest drainage first.
    exit_cells : list of numpy.ndarray
        Per outlet, in the same order: the flat indices on the DEM grid of its exit cells and of their
        first ``merge_ft`` downhill (what :func:`submitted_at_outlets` reads).
    """

    points: gpd.GeoDataFrame
    exit_cells: list[np.ndarray]


class _Exits(NamedTuple):
    """The disturbed area's cells on the DEM grid, its exit cells (D8 receiver outside it or off the grid),
    and the D8 directions with every exit cell made a sink.
    """

    inside: np.ndarray
    exits: np.ndarray
    sink: np.ndarray


class _OutletRow(NamedTuple):
    """One outlet before it is numbered: its drainage and the disturbed part of it (sq ft), whether a
    channel leaves there, its cell of largest drainage (flat index), its exit cell count, and the cells it
    reaches (its exit cells and their first downhill steps, flat indices).
    """

    drainage_sqft: float
    disturbed_sqft: float
    concentrated: bool
    cell: int
    exit_cell_count: int
    reach: np.ndarray


def _exits(geom: Any, dem: Dem, fg: FlowGrid) -> _Exits:
    """The exit cells of the disturbed area ``geom`` (DEM CRS), see the module notes."""
    inside = grid.rasterize(geom, dem.shape, dem.transform)
    rr, rc, has = fg.receivers()
    exits = inside & (fg.directions != 255) & (~has | ~inside[rr, rc])
    sink = fg.directions.copy()
    sink[exits] = 0  # every exit cell a sink: each cell counted at the exit where its water first leaves
    return _Exits(inside, exits, sink)


def _in_dem_crs(disturbed: Any, dem: Dem) -> tuple[Any, Any]:
    """The disturbed area as one geometry in the DEM's CRS, and the CRS it was given in."""
    if isinstance(disturbed, shapely.geometry.base.BaseGeometry):
        return disturbed, dem.crs
    return grid.to_crs(disturbed, dem.crs).geometry.union_all(), disturbed.crs


def basin_kind(acres: float, *, trap_max_acres: float, basin_max_acres: float) -> DrainageClass:
    """The kind of sediment control a drainage of ``acres`` needs, and the standard's limit in words.

    Parameters
    ----------
    acres : float
        The drainage, acres.
    trap_max_acres : float
        DNR 1063's drainage limit for a sediment trap, acres: the profile's ``[controls]
        sediment_trap_max_drainage_acres`` (``profile.control("sediment_trap_max_drainage_acres")``).
    basin_max_acres : float
        DNR 1064's drainage limit for a sediment basin, acres: the profile's ``[controls]
        sediment_basin_max_drainage_acres``.

    Returns
    -------
    DrainageClass
        The drainage's class (:data:`DRAINAGE_CLASSES`): ``trap`` (under DNR 1063's limit), ``basin`` (up to
        DNR 1064's) or ``beyond`` (more than one basin may drain), and the limit in words.
    """
    if acres < trap_max_acres:
        return DrainageClass("trap", f"DNR 1063: a sediment trap for drainage under {trap_max_acres:g} acres")
    if acres <= basin_max_acres:
        return DrainageClass(
            "basin",
            f"DNR 1064: a sediment basin for drainage of {trap_max_acres:g} to {basin_max_acres:g} acres",
        )
    return DrainageClass(
        "beyond",
        f"drainage over {basin_max_acres:g} acres: more than one sediment basin (DNR 1064)",
    )


def disturbed_outlets(
    disturbed: Any,
    dem: Dem,
    fg: FlowGrid,
    *,
    trap_max_acres: float,
    basin_max_acres: float,
    channel_threshold_sqft: float | None = None,
    merge_ft: float,
    concentrated_only: bool = False,
) -> Outlets:
    """The outlets of the disturbed area (see the module notes).

    Parameters
    ----------
    disturbed : geopandas.GeoDataFrame, geopandas.GeoSeries or shapely geometry
        The disturbed area (any projected CRS), or a shapely geometry in the DEM's CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid
        Its flow grid.
    trap_max_acres : float
        DNR 1063's drainage limit for a sediment trap, acres: the profile's ``[controls]
        sediment_trap_max_drainage_acres`` (``profile.control("sediment_trap_max_drainage_acres")``).
    basin_max_acres : float
        DNR 1064's drainage limit for a sediment basin, acres: the profile's ``[controls]
        sediment_basin_max_drainage_acres``.
    channel_threshold_sqft : float or None
        Contributing area of a channel cell (concentrated flow), sq ft (the profile's ``[terrain]
        channel_threshold_sqft``); None: none marked.
    merge_ft : float
        Exit cells whose downhill paths meet within this distance, ft, are one outlet: the profile's
        ``[controls] basin_outlet_merge_ft``.
    concentrated_only : bool
        Only the exit cells that are channel cells make outlets (each drains its own catchment: where
        concentrated runoff leaves; the sheet flow leaving elsewhere is the fences').

    Returns
    -------
    Outlets
        ``points``: one Point per outlet (input CRS) with ``outlet`` (1..), ``drainage_sqft``,
        ``drainage_acres``, ``disturbed_sqft``, ``disturbed_acres`` (the disturbed part of it),
        ``concentrated``, ``kind``, ``limit`` and ``exit_cell_count``, largest drainage first;
        ``exit_cells``: the flat indices of each outlet's exit cells (and of their first ``merge_ft``
        downhill) on the DEM grid.
    """
    import geopandas as gpd

    geom, out_crs = _in_dem_crs(disturbed, dem)
    inside, exits, sink = _exits(geom, dem, fg)
    cols = _outlet_columns()
    if not exits.any() or (concentrated_only and not channel_threshold_sqft):
        return Outlets(gpd.GeoDataFrame(cols, geometry=[], crs=out_crs), [])
    dirs = fg.directions
    chan = fg.channel_cells(channel_threshold_sqft) if channel_threshold_sqft else np.zeros(dirs.shape, bool)
    cells_of = _exit_groups(exits & chan if concentrated_only else exits, inside)
    if not cells_of:
        return Outlets(gpd.GeoDataFrame(cols, geometry=[], crs=out_crs), [])
    steps = max(int(np.ceil(merge_ft / min(dem.cell_x_ft, dem.cell_y_ft))), 1)
    free = (~inside & ~chan).reshape(-1)  # paths meet overland, outside the disturbed area, before a channel
    groups, paths = _merge_by_paths(cells_of, dirs, free, steps)
    # read at the exit cells only (never nodata): the cells draining to each, counted along their paths
    # alone (accumulating the whole window with a weight of one cost 24 ms a 2 M-cell window)
    first = weighted_accumulation(sink, drains_into(sink, exits)).reshape(-1)
    first_dist = weighted_accumulation(sink, inside).reshape(-1)
    rows: list[_OutletRow] = []
    for members in groups.values():
        idx = np.concatenate([cells_of[k] for k in members])
        at = idx[int(np.argmax(first[idx]))]
        reach = np.unique(np.concatenate([idx] + [paths[k] for k in members]))
        rows.append(
            _OutletRow(
                float(first[idx].sum()) * dem.cell_area_sqft,
                float(first_dist[idx].sum()) * dem.cell_area_sqft,
                bool(chan.reshape(-1)[idx].any()),
                int(at),
                int(idx.size),
                reach,
            )
        )
    rows.sort(key=lambda t: -t.drainage_sqft)
    out, exit_cells = _outlet_frame(
        rows, dem, cols, trap_max_acres=trap_max_acres, basin_max_acres=basin_max_acres
    )
    return Outlets(grid.to_crs(out, out_crs), exit_cells)


def _exit_groups(outlet_cells: np.ndarray, inside: np.ndarray) -> dict[int, np.ndarray]:
    """The 8-connected groups of ``outlet_cells`` (labelled on the box of the disturbed cells ``inside``,
    where the exits are): label (1..) -> the grid's flat indices of its cells; empty when there are none.
    """
    from scipy import ndimage

    box = grid.cells_box(inside)
    assert box is not None  # the disturbed area has cells on the DEM here
    r0, c0 = box[0].start, box[1].start
    lab_box, n = ndimage.label(outlet_cells[box], structure=np.ones((3, 3), bool))
    if n == 0:
        return {}
    ncols = inside.shape[1]
    return _cells_by_label(lab_box, n, r0 * ncols + c0, ncols)


def _outlet_frame(
    rows: list[_OutletRow],
    dem: Dem,
    cols: dict[str, list[Any]],
    *,
    trap_max_acres: float,
    basin_max_acres: float,
) -> tuple[gpd.GeoDataFrame, list[np.ndarray]]:
    """One point per outlet (DEM CRS) from ``rows`` (largest first), numbered 1..; and the cells each
    reaches.
    """
    import geopandas as gpd

    dirs_cols = dem.shape[1]
    pts, exit_cells = [], []
    for i, (drain, dist_sqft, conc, at, count, reach) in enumerate(rows, 1):
        acres = drain / SQFT_PER_ACRE
        drainage = basin_kind(acres, trap_max_acres=trap_max_acres, basin_max_acres=basin_max_acres)
        r, c = divmod(at, dirs_cols)
        x, y = grid.centres(dem, np.array([r]), np.array([c]))
        pts.append(Point(float(x[0]), float(y[0])))
        for key, val in (
            ("outlet", i),
            ("drainage_sqft", drain),
            ("drainage_acres", acres),
            ("disturbed_sqft", dist_sqft),
            ("disturbed_acres", dist_sqft / SQFT_PER_ACRE),
            ("concentrated", conc),
            ("kind", drainage.kind),
            ("limit", drainage.limit),
            ("exit_cell_count", count),
        ):
            cols[key].append(val)
        exit_cells.append(reach)
    return gpd.GeoDataFrame(cols, geometry=pts, crs=dem.crs), exit_cells


def _outlet_columns() -> dict[str, list[Any]]:
    """The outlets' columns, empty."""
    return {
        "outlet": [],
        "drainage_sqft": [],
        "drainage_acres": [],
        "disturbed_sqft": [],
        "disturbed_acres": [],
        "concentrated": [],
        "kind": [],
        "limit": [],
        "exit_cell_count": [],
    }


def _cells_by_label(lab_box: np.ndarray, n: int, offset: int, ncols: int) -> dict[int, np.ndarray]:
    """Label (1..n) -> the window's flat indices of its cells, in raster order (``lab_box``: labels on a box
    whose first cell is the window's flat index ``offset``; ``ncols``: the window's width in cells).
    """
    flat = lab_box.reshape(-1)
    nzb = np.flatnonzero(flat)
    nzb = nzb[np.argsort(flat[nzb], kind="stable")]
    br, bc = np.divmod(nzb, lab_box.shape[1])
    r0, c0 = divmod(offset, ncols)
    nz = (br + r0) * ncols + bc + c0  # the window's flat indices, in label then raster order
    return dict(
        zip(
            range(1, n + 1),
            np.split(nz, np.cumsum(np.bincount(flat[nzb], minlength=n + 1)[1:])[:-1]),
            strict=True,
        )
    )


def _merge_by_paths(
    cells_of: dict[int, np.ndarray], dirs: np.ndarray, free: np.ndarray, steps: int
) -> tuple[dict[int, list[int]], dict[int, np.ndarray]]:
    """Exit-cell groups whose downhill paths (``steps`` cells each) meet on ``free`` cells: one outlet each,
    as root label -> its labels; and each label's path cells (flat indices).
    """
    n = len(cells_of)
    parent = list(range(n + 1))

    def find(k: int) -> int:
        """The root label of ``k``'s group (the path halved on the way)."""
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    owner = np.zeros(dirs.size, np.int64)  # the outlet (1..) whose path a cell is on; zeroed pages, no fill
    paths: dict[int, np.ndarray] = {}
    for k in range(1, n + 1):
        r, c = np.divmod(cells_of[k], dirs.shape[1])
        p = trace_down(dirs, r, c, steps)
        paths[k] = p
        p = p[free[p]]
        hit = owner[p]
        for other in np.unique(hit[hit > 0]):
            a, b = find(k), find(int(other))
            if a != b:
                parent[max(a, b)] = min(a, b)
        owner[p] = np.where(hit > 0, hit, k)
    groups: dict[int, list[int]] = {}
    for k in range(1, n + 1):
        groups.setdefault(find(k), []).append(k)
    return groups, paths


def submitted_at_outlets(
    basins: gpd.GeoDataFrame,
    outlets: gpd.GeoDataFrame,
    exit_cells: list[np.ndarray],
    dem: Dem,
    fg: FlowGrid,
    *,
    disturbed: Any,
    search_ft: float,
    capture: float = 0.5,
) -> list[OutletService]:
    """Which outlets each submitted basin or trap receives the runoff of (see the module notes); whether its
    practice suits each one's drainage is the sediment-basin practice's to say (``suitable_by`` is left
    empty here).

    Parameters
    ----------
    basins : geopandas.GeoDataFrame
        The submitted basins and traps: polygons or points with ``id``, any projected CRS.
    outlets : geopandas.GeoDataFrame
        The outlets: :func:`disturbed_outlets`' ``points`` (or some of its rows).
    exit_cells : list of numpy.ndarray
        Their cells: :func:`disturbed_outlets`' ``exit_cells`` (the same rows).
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid
        Its flow grid.
    disturbed : geopandas.GeoDataFrame, geopandas.GeoSeries or shapely geometry
        The disturbed area :func:`disturbed_outlets` was given.
    search_ft : float
        A feature within this distance, ft, of an outlet's exit cells (or their first paths) receives its
        runoff: the profile's ``[controls] basin_search_ft``.
    capture : float
        A feature inside the disturbed area receives an outlet's runoff when at least this fraction of the
        outlet's drainage flows through it. The default, one half, is geosite's choice, not the
        ordinance's.

    Returns
    -------
    list of OutletService
        One per outlet: ``outlet``, ``drainage_acres``, ``disturbed_acres``, ``kind`` (its drainage class),
        ``served_by`` (ids of the submitted features receiving its runoff), ``suitable_by`` (empty: for the
        caller) and ``captured`` (submitted id -> share of the outlet's drainage flowing through it).
    """
    geoms = list(grid.to_crs(basins, dem.crs).geometry)
    ids = [py_scalar(i) for i in basins["id"]] if "id" in basins.columns else list(range(1, len(basins) + 1))
    ex = _exits(_in_dem_crs(disturbed, dem)[0], dem, fg)
    shares = _captured_shares(list(zip(ids, geoms, strict=True)), exit_cells, ex, dem)
    tol = search_ft / dem.ft_per_unit
    nc = dem.shape[1]
    out: list[OutletService] = []
    for k, ((_, o), cells) in enumerate(zip(outlets.iterrows(), exit_cells, strict=True)):
        r, c = np.divmod(cells, nc)
        x, y = grid.centres(dem, r, c)
        pts = shapely.multipoints(np.column_stack([x, y]))
        served = [
            i
            for i, g in zip(ids, geoms, strict=True)
            if shapely.dwithin(g, pts, tol) or shares[k].get(i, 0.0) >= capture
        ]
        out.append(
            {
                "outlet": int(o["outlet"]),
                "drainage_acres": float(o["drainage_acres"]),
                "disturbed_acres": float(o["disturbed_acres"]),
                "kind": o["kind"],
                "served_by": served,
                "suitable_by": [],
                "captured": {i: round(v, 3) for i, v in shares[k].items() if v > 0},
            }
        )
    return out


def _captured_shares(
    features: list[tuple[Any, Any]], exit_cells: list[np.ndarray], ex: _Exits, dem: Dem
) -> list[dict[Any, float]]:
    """Per outlet (its ``exit_cells``): submitted id -> the share of the drainage reaching its exit cells
    that a feature of ``features`` ((id, geometry) in the DEM's CRS) takes first; only features on the
    disturbed area, each taking what reaches its footprint (a point: half a cell about it).
    """
    inside, exits, sink = ex
    base = np.nan_to_num(weighted_accumulation(sink, np.ones(sink.shape)), copy=False).reshape(-1)
    shares: list[dict[Any, float]] = [{} for _ in exit_cells]
    for i, g in features:
        foot = grid.rasterize(
            g.buffer(0.5 * min(abs(dem.transform.a), abs(dem.transform.e))) if g.geom_type == "Point" else g,
            dem.shape,
            dem.transform,
        )
        if not (foot & inside).any():
            continue
        with_basin = sink.copy()
        with_basin[foot] = 0  # the basin takes what reaches it
        left = np.nan_to_num(weighted_accumulation(with_basin, np.ones(sink.shape)), copy=False).reshape(-1)
        for k, cells in enumerate(exit_cells):
            ex_k = cells[exits.reshape(-1)[cells]]
            before = float(base[ex_k].sum())
            if before > 0:
                shares[k][i] = max(before - float(left[ex_k].sum()), 0.0) / before
    return shares
