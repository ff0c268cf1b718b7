"""Flow routing on a :class:`~geosite.grid.Dem`: depression filling, D8 directions, accumulation, and the
flow direction helpers the controls sample (downhill unit vectors, D8 receivers and paths).

The conventions:

* Depressions are filled (priority flood); the DEM edge **and every nodata cell** are outlets, never
  walls: water reaching a hole in the data leaves there.
* D8 steepest descent with true cell sizes in feet (cells may be non-square): the drop to a diagonal
  neighbour is divided by the diagonal distance. Edge and nodata-adjacent cells drain out when the
  extrapolated outside drop is the steepest, or when they have no lower neighbour. Flats (filled
  depressions included) drain to their outlet along the shortest path across the flat.
* Accumulation is float64: exact cell counts to 2**53; areas = counts x cell area (sq ft).

What is hand-written and why (the project rule: prefer a well-kept library, write by hand only what no
library does well enough). Measured on closed-form surfaces and in benchmarks/bench_hydrology.py:
pyflwdir's ``from_dem`` routes an inclined plane along its lowest edge into one outlet; richdem 0.3.4
does not build on Python 3.10+ (and its D8 has no diagonal distance correction, edges pass no flow);
topotoolbox is right on planes but accumulates in float32 (exact only to 2**24 cells), carves instead
of filling, and gives no hook for a windowed, certified computation; pysheds 0.5 breaks on numpy 2.
So the kernels (:mod:`geosite.hydrology._kernels`, numba, compiled ahead of time at install) are ours;
topotoolbox and pyflwdir remain available as independent engines (:mod:`geosite.hydrology.engines`)
and are checked against in the tests and the benchmark.

Vectors (shapely geometries, GeoDataFrames) are in the DEM's CRS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from geosite.errors import InputError
from geosite.grid import DC, DR, inside_grid, rowcol

if TYPE_CHECKING:
    from geosite.grid import Dem

# ---------------------------------------------------------------------------------------------------
# whole-grid routing


@dataclass(eq=False)
class FlowGrid:
    """Conditioned D8 routing of a whole DEM; compute once with :func:`flow_grid`, query many times.

    Attributes
    ----------
    dem : the DEM routed.
    filled_ft : depression-filled heights, ft (NaN = nodata).
    directions : uint8 D8 codes: 1..8 = E, SE, S, SW, W, NW, N, NE; 0 = drains out of the grid or into
        nodata; 255 = nodata.
    """

    dem: Dem
    filled_ft: np.ndarray
    directions: np.ndarray
    _acc: np.ndarray | None = field(default=None, repr=False)
    _dinf: tuple | None = field(default=None, repr=False)
    _dinf_some: tuple | None = field(default=None, repr=False)
    _downhill: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _receivers: tuple | None = field(default=None, repr=False)
    _channels: dict = field(default_factory=dict, repr=False)

    def accumulation_cells(self) -> np.ndarray:
        """Contributing cells of every cell, itself included (float64, NaN on nodata); cached."""
        if self._acc is None:
            from geosite.hydrology import _kernels as fk

            acc = np.empty(self.directions.shape, dtype=np.float64)
            fk.accumulate(self.directions, np.ones(1), acc)
            self._acc = acc
        return self._acc

    def accumulation_sqft(self) -> np.ndarray:
        """Contributing area of every cell, itself included, sq ft."""
        return self.accumulation_cells() * self.dem.cell_area_sqft

    def channel_cells(self, threshold_sqft: float) -> np.ndarray:
        """The cells whose contributing area reaches ``threshold_sqft`` (bool; nodata never); cached per
        threshold and read-only: the outlets, the channel banks and the concentrated outflows ask the
        same question of the same grid.
        """
        key = float(threshold_sqft)
        if key not in self._channels:
            with np.errstate(invalid="ignore"):
                got = self.accumulation_sqft() >= key  # NaN (nodata) compares False
            got.setflags(write=False)
            self._channels[key] = got
        return self._channels[key]

    def downhill(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`downhill_field` of the filled surface with these directions (unit vectors x, y); cached:
        the fences, the stockpiles and each area's boundary sample the same field.
        """
        if self._downhill is None:
            self._downhill = downhill_field(self.filled_ft, self.dem, self.directions)
        return self._downhill

    def downhill_at(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`sample_vectors` of :meth:`downhill` at points (x, y) in the DEM's CRS, computed at
        their cells alone (:func:`geosite.hydrology._kernels_numba.downhill_at`, the same vectors to
        the bit): the fences and the stockpiles sample a few thousand cells of a window of millions.
        """
        if self._downhill is not None:
            ux, uy = self._downhill
            return sample_vectors(ux, uy, self.dem, x, y)
        from geosite.hydrology import _kernels as fk

        x, y = np.atleast_1d(np.asarray(x, dtype=np.float64)), np.atleast_1d(np.asarray(y, dtype=np.float64))
        inside = inside_grid(self.dem, x, y)
        r, c = rowcol(self.dem, x, y)
        rows = np.ascontiguousarray(np.where(inside, r, 0), dtype=np.int64)
        cols = np.ascontiguousarray(np.where(inside, c, 0), dtype=np.int64)
        vx, vy = np.empty(x.size), np.empty(x.size)
        fk.downhill_at(
            np.ascontiguousarray(self.filled_ft, dtype=np.float64),
            float(self.dem.cell_x_ft),
            float(self.dem.cell_y_ft),
            np.ascontiguousarray(self.directions, dtype=np.uint8),
            True,
            rows,
            cols,
            vx,
            vy,
        )
        return np.where(inside, vx, 0.0), np.where(inside, vy, 0.0)

    def receivers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`receivers` of these directions (row, column, has one); cached: the outlets, the
        channel banks and the concentrated outflows read the same arrays.
        """
        if self._receivers is None:
            got = receivers(self.directions)
            for a in got:
                a.setflags(write=False)  # shared: a caller changing them would change every other's
            self._receivers = got
        return self._receivers

    def dinf(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """D-infinity split of every cell (flat indices ``rec1``, ``rec2`` and the share ``p1`` to
        ``rec1``; see :func:`geosite.hydrology._kernels.dinf_partition`); cached.
        """
        if self._dinf is None:
            from geosite.hydrology import _kernels as fk

            n = self.directions.size
            rec1 = np.empty(n, dtype=np.int64)
            rec2 = np.empty(n, dtype=np.int64)
            p1 = np.empty(n, dtype=np.float64)
            fk.dinf_partition(
                self.filled_ft, self.directions, self.dem.cell_x_ft, self.dem.cell_y_ft, rec1, rec2, p1
            )
            self._dinf = (rec1, rec2, p1)
        return self._dinf

    def _dinf_split(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The D-infinity split of the cells computed so far (``rec1``, ``rec2``, ``p1``, and ``done``:
        1 where a cell's split is there): the whole grid's when :meth:`dinf` has run.
        """
        if self._dinf is not None:
            rec1, rec2, p1 = self._dinf
            return rec1, rec2, p1, np.ones(rec1.size, dtype=np.uint8)
        if self._dinf_some is None:
            n = self.directions.size
            self._dinf_some = (
                np.empty(n, dtype=np.int64),
                np.empty(n, dtype=np.int64),
                np.empty(n),
                np.zeros(n, dtype=np.uint8),
            )
        return self._dinf_some

    def dinf_upstream(self, inside: np.ndarray) -> np.ndarray:
        """Cells any share of whose D-infinity flow reaches an ``inside`` cell (bool, the grid's shape),
        those included. The split is computed only for the cells the search looks at (the answer and
        its ring; kept for later calls): the same cells as over :meth:`dinf`, to the bit, for a site's
        cost rather than the window's.
        """
        from geosite.hydrology import _kernels as fk

        rec1, rec2, p1, done = self._dinf_split()
        mask = np.ascontiguousarray(inside, dtype=bool).view(np.uint8).reshape(-1)
        up = fk.dinf_upstream_lazy(
            self.filled_ft,
            self.directions,
            self.dem.cell_x_ft,
            self.dem.cell_y_ft,
            mask,
            rec1,
            rec2,
            p1,
            done,
        )
        return up.view(bool).reshape(self.directions.shape)

    def dinf_inflow_cells(self, inside: np.ndarray) -> float:
        """Cells' worth of flow entering the ``inside`` cells (bool, the grid's shape) from outside them
        under the D-infinity split, flow leaving and re-entering counted once
        (:func:`geosite.hydrology._kernels_numba.dinf_inflow`), over the cells upstream of them alone.
        """
        from geosite.hydrology import _kernels as fk

        within = self.dinf_upstream(inside).view(np.uint8).reshape(-1)
        rec1, rec2, p1, _ = self._dinf_split()
        mask = np.ascontiguousarray(inside, dtype=bool).view(np.uint8).reshape(-1)
        return float(fk.dinf_inflow_within(rec1, rec2, p1, mask, np.ones(1), within))


def fill_depressions(dem: Dem) -> np.ndarray:
    """Depression-filled heights (ft, float64, NaN = nodata); the edge and nodata cells are outlets."""
    from geosite.hydrology import _kernels as fk

    z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float64)
    filled = np.empty_like(z)
    fk.priority_flood(z, filled, False, np.empty((1, 1), dtype=np.int64))
    return filled


def flow_grid(dem: Dem) -> FlowGrid:
    """Fill depressions and compute D8 directions for the whole DEM (see the module conventions)."""
    from geosite.hydrology import _kernels as fk

    filled = fill_depressions(dem)
    dirs = np.empty(filled.shape, dtype=np.uint8)
    fk.d8_directions(filled, dem.cell_x_ft, dem.cell_y_ft, dirs)
    return FlowGrid(dem, filled, dirs)


def flow_accumulation(dem: Dem | FlowGrid, unit: str = "cells") -> np.ndarray:
    """Flow accumulation of every cell, itself included: ``unit`` "cells" (counts) or "sqft"."""
    fg = dem if isinstance(dem, FlowGrid) else flow_grid(dem)
    if unit == "cells":
        return fg.accumulation_cells()
    if unit == "sqft":
        return fg.accumulation_sqft()
    raise InputError(f"flow_accumulation: unknown unit {unit!r}; use 'cells' or 'sqft'")


def weighted_accumulation(directions: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Sum of ``weight`` over every cell draining through each cell (itself included), along the D8
    ``directions`` (float64, NaN on nodata). With a boolean ``weight`` the number of True cells
    draining through each (> 0 marks the cells downstream of them), found by following only their
    flow paths (:func:`~geosite.hydrology._kernels_numba.accumulate_marked`: a site's cells in a
    window of millions cost their paths, not the window); any other weight is accumulated over the grid.
    """
    from geosite.hydrology import _kernels as fk

    acc = np.empty(directions.shape, dtype=np.float64)
    dirs = np.ascontiguousarray(directions, dtype=np.uint8)
    if weight.dtype == np.bool_:
        fk.accumulate_marked(dirs, np.ascontiguousarray(weight).view(np.uint8).reshape(-1), acc)
        return acc
    w = np.ascontiguousarray(weight, dtype=np.float64).reshape(-1)
    fk.accumulate(dirs, w, acc)
    return acc


# ---------------------------------------------------------------------------------------------------
# which way water goes: helpers the controls sample


def downhill_field(
    surface_ft: np.ndarray, dem: Dem, directions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (x east, y north) of the steepest descent of ``surface_ft`` (usually the filled
    DEM), from central differences averaged over 3x3 cells (exact on a plane). Where the surface is
    flat or has no gradient (nodata neighbours), the D8 direction of the cell is used when given;
    (0, 0) where neither says anything.

    One pass of :func:`geosite.hydrology._kernels.downhill_vectors` (numpy.gradient, scipy's
    uniform_filter and the masks between them took 0.17 s on a 1.9 M-cell window in about 20 passes
    over the grid; the kernel gives the same vectors, to rounding, in one).
    """
    from geosite.hydrology import _kernels as fk

    z = np.ascontiguousarray(surface_ft, dtype=np.float64)
    ux = np.empty(z.shape)
    uy = np.empty(z.shape)
    d = np.zeros((1, 1), np.uint8) if directions is None else np.ascontiguousarray(directions, dtype=np.uint8)
    fk.downhill_vectors(z, float(dem.cell_x_ft), float(dem.cell_y_ft), d, directions is not None, ux, uy)
    return ux, uy


def sample_vectors(
    ux: np.ndarray, uy: np.ndarray, dem: Dem, x: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The vector field (``ux``, ``uy``) on ``dem``'s grid at points (``x``, ``y``); 0 off the grid."""
    r, c = rowcol(dem, x, y)
    inside = inside_grid(dem, x, y)
    return np.where(inside, ux[r, c], 0.0), np.where(inside, uy[r, c], 0.0)


def receivers(directions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every cell: receiver row, column, and whether it has one on the grid (a cell without one,
    draining out or nodata, is its own). By lookup tables on the direction codes (six times faster on a
    1.9 M-cell window than selecting among offset arrays).
    """
    nr, nc = directions.shape
    d = np.asarray(directions, dtype=np.uint8)
    drow, dcol, code = np.zeros(256, np.int64), np.zeros(256, np.int64), np.zeros(256, bool)
    drow[1:9], dcol[1:9], code[1:9] = DR, DC, True
    has = code[d]
    rr = drow[d]
    rr += np.arange(nr)[:, None]
    cc = dcol[d]
    cc += np.arange(nc)[None, :]
    off = has & ((rr < 0) | (rr >= nr) | (cc < 0) | (cc >= nc))
    if off.any():  # a direction pointing off the grid: no receiver on it
        rr[off], cc[off] = np.nonzero(off)
        has &= ~off
    return rr, cc, has


def drains_into(directions: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The ``target`` cells (bool, the grid's shape) and every cell whose D8 path reaches one: a search
    up the donors from the target (:func:`~geosite.hydrology._kernels_numba.trace_upstream`), touching
    those cells only, past one scan of the target.
    """
    from geosite.hydrology import _kernels as fk

    tgt = np.ascontiguousarray(target, dtype=bool)
    cells, _ = fk.trace_upstream(np.ascontiguousarray(directions, dtype=np.uint8), tgt.view(np.uint8))
    out = tgt.copy()
    out.reshape(-1)[cells] = True
    return out


def trace_down(directions: np.ndarray, rows: np.ndarray, cols: np.ndarray, max_steps: int) -> np.ndarray:
    """Flat indices of every cell on the D8 paths from the given cells (themselves included), for at
    most ``max_steps`` steps each.
    """
    nr, nc = directions.shape
    r = np.asarray(rows, np.int64).copy()
    c = np.asarray(cols, np.int64).copy()
    seen = [r * nc + c]
    alive = np.ones(r.size, bool)
    for _ in range(max_steps):
        d = directions[r, c].astype(np.int64)
        go = alive & (d >= 1) & (d <= 8)
        if not go.any():
            break
        k = np.where(go, d - 1, 0)
        nr_, nc_ = r + np.where(go, DR[k], 0), c + np.where(go, DC[k], 0)
        go &= (nr_ >= 0) & (nr_ < nr) & (nc_ >= 0) & (nc_ < nc)
        r, c = np.where(go, nr_, r), np.where(go, nc_, c)
        alive = go
        seen.append((r * nc + c)[go])
    return np.unique(np.concatenate(seen))
