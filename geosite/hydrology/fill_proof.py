"""The proof that a search window's filled heights are the whole DEM's (:mod:`geosite.hydrology.window`
step 2): the searches from each outlet a window's filled heights rely on to a true outlet of the DEM,
walled at the search window's artificial edges, and the coarse grid of a DEM's true outlets that says
where a closed basin drains (:class:`CoarseOutlets`, read once per DEM by blocks).

Hand-written because no library certifies a window of a raster file; the searches are the kernels'
(:mod:`geosite.hydrology._kernels`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from geosite.hydrology.certify import block_side

if TYPE_CHECKING:
    from geosite.grid import Dem


@dataclass(frozen=True)
class RoundVerdict:
    """What a round found of W: ``ok`` (certified; with ``routing`` when it comes from routing W),
    ``grow`` (the drainage reaches the artificial ``sides`` of W, top, bottom, left, right; ``routing``
    the cells to certify before growing), ``search`` (a way out may lie beyond the search window), or
    ``basin`` (a closed basin W cuts, rows and columns ``box`` of the DEM).
    """

    kind: Literal["ok", "grow", "search", "basin"]
    sides: tuple[bool, bool, bool, bool] | None = None
    box: tuple[int, int, int, int] | None = None
    routing: Any = None  # the window's routing (geosite.hydrology.window), carried back to it


OK = RoundVerdict("ok")
SEARCH = RoundVerdict("search")


@dataclass
class FillProof:
    """The searches proving filled heights on a search window: its heights ``zs`` (feet), its first row
    and column in the DEM (``sr0``, ``sc0``), which of its sides are its own artificial edges (``walls``:
    top, bottom, left, right), the coarse grid once read (``co``) or how to read it (``coarse_outlets``),
    and the search marks (fresh for each call of :func:`_certify`: one made at a bound proves nothing at
    a lower one, and the bounds restart).
    """

    zs: np.ndarray
    sr0: int
    sc0: int
    walls: tuple[bool, bool, bool, bool]
    ft_per_vertical_unit: float
    coarse_outlets: Callable[..., CoarseOutlets | None] | None
    co: CoarseOutlets | None
    scratch: np.ndarray
    proven: np.ndarray
    open_marks: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def on(
        cls,
        search: Dem,
        sbox: tuple[int, int, int, int],
        shape: tuple[int, int],
        coarse_outlets: Callable[..., CoarseOutlets | None] | None,
    ) -> FillProof:
        """The proof's state on the search window ``search`` (rows/columns ``sbox`` of a DEM of ``shape``)."""
        nr, nc = shape
        sr0, sr1, sc0, sc1 = sbox
        zs = search.elevation_ft
        # the coarse grid once read (an earlier round's): each search may end in a block it proves
        fpu = search.ft_per_vertical_unit
        co = coarse_outlets(fpu, read=False) if coarse_outlets is not None else None
        return cls(
            zs=zs,
            sr0=sr0,
            sc0=sc0,
            walls=(sr0 > 0, sr1 < nr, sc0 > 0, sc1 < nc),
            ft_per_vertical_unit=fpu,
            coarse_outlets=coarse_outlets,
            co=co,
            scratch=np.zeros(zs.shape, dtype=np.uint8),
            proven=np.zeros(zs.shape, dtype=np.uint8),
        )

    def spills(self, start: int, bound: float) -> bool:
        """Whether flat cell ``start`` has a way out below ``bound`` (feet) to a true outlet, the search
        window's own edges walls (no way out there), ending in a block the coarse grid proves.
        """
        from geosite.hydrology import _kernels as fk

        level, f = (self.co.level, self.co.f) if self.co is not None else (np.full((1, 1), np.inf), 0)
        walled = np.array(self.walls, dtype=np.uint8)
        return fk.spill_below(
            self.zs, start, bound, self.scratch, self.proven, walled, level, f, self.sr0, self.sc0
        )

    def spills_open(self, start: int, bound: float) -> bool:
        """Whether flat cell ``start`` has a way out below ``bound`` (feet) with the search window's own
        edges open (a way out may then lie beyond it).
        """
        from geosite.hydrology import _kernels as fk

        if self.open_marks is None:
            self.open_marks = (
                np.zeros(self.zs.shape, dtype=np.uint8),
                np.zeros(self.zs.shape, dtype=np.uint8),
            )
        scratch, proven = self.open_marks
        no_coarse = np.full((1, 1), np.inf)
        no_walls = np.zeros(4, dtype=np.uint8)
        return fk.spill_below(
            self.zs, start, bound, scratch, proven, no_walls, no_coarse, 0, self.sr0, self.sc0
        )

    def seed(self, sr: int, sc: int, bound: float) -> RoundVerdict | None:
        """None when search-window cell (``sr``, ``sc``)'s filled height ``bound`` (feet) is proven the
        whole DEM's, else :func:`_certify`'s verdict against it.
        """
        from geosite.hydrology import _kernels as fk

        zs, scols = self.zs, self.zs.shape[1]
        if _true_outlet(zs, sr, sc, self.walls):
            return None
        start = sr * scols + sc
        if self.spills(start, bound):
            return None
        # no way out below the bound in the search window: where does the seed's water rise to? A search
        # in order of water level that spills by a true outlet, with none of the search window's own
        # edges reached below it, has found the seed's whole-DEM filled height (a way round through
        # those edges would have been met first) and the basin it fills: a closed basin, without the
        # coarse grid (reading it is a pass over the whole file)
        _, br0, br1, bc0, bc1, out = fk.spill_basin(zs, start, np.zeros(zs.shape, dtype=np.uint8))
        box = (br0 + self.sr0, br1 + self.sr0, bc0 + self.sc0, bc1 + self.sc0)
        if out >= 0 and _true_outlet(zs, *_cell(int(out), scols), self.walls):
            return RoundVerdict("basin", box=box)
        # it leaves by the search window's own edge: the basin may be cut by it, or a way out lie beyond;
        # the blocks the coarse grid proves at this bound may hold the way out: read it, search again
        if self.coarse_outlets is not None and self.co is None:
            self.co = self.coarse_outlets(self.ft_per_vertical_unit)
            if any(self.walls) and self.spills(start, bound):
                return None
        return self._beyond_the_search(sr, sc, start, bound, box)

    def _beyond_the_search(
        self, sr: int, sc: int, start: int, bound: float, box: tuple[int, int, int, int]
    ) -> RoundVerdict:
        """The verdict on a seed whose water leaves by the search window's own edge below ``bound`` (feet):
        a closed basin the coarse grid proves (wider than ``box``, which holds only the way down to the
        edge), a way out that may lie beyond the search window, or the closed basin ``box``.
        """
        if self.co is not None and self.co.closed(sr + self.sr0, sc + self.sc0, bound):
            # the block floor proves no way out below the bound: a closed basin cut by the search window,
            # which may be wider than the box (that holds only the way down to the edge): W takes in at
            # least what the blocks say it may cover
            cr0, cr1, cc0, cc1 = self.co.basin_box(sr + self.sr0, sc + self.sc0)
            return RoundVerdict(
                "basin", box=(min(box[0], cr0), max(box[1], cr1), min(box[2], cc0), max(box[3], cc1))
            )
        if any(self.walls) and self.spills_open(start, bound):
            return SEARCH  # a way out may lie beyond the search window
        return RoundVerdict("basin", box=box)


def _cell(flat: int, cols: int) -> tuple[int, int]:
    """(row, column) of a flat index into a grid ``cols`` wide."""
    r, c = divmod(flat, cols)
    return r, c


def _true_outlet(zs: np.ndarray, r: int, c: int, walls) -> bool:
    """Is search-window cell (r, c) an outlet of the whole DEM: on its edge, or beside nodata?"""
    nr, nc = zs.shape
    if (
        (r == 0 and not walls[0])
        or (r == nr - 1 and not walls[1])
        or (c == 0 and not walls[2])
        or (c == nc - 1 and not walls[3])
    ):
        return True
    return bool(np.isnan(zs[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2]).any())


class CoarseOutlets:
    """Which blocks of the whole DEM reach a true outlet below a given height, from a coarse grid.

    Each ``f`` x ``f`` block of the DEM becomes one coarse cell holding its highest height (NaN when all
    of it is nodata); the coarse grid's priority flood (``level``) is then the lowest height at which a
    chain of 8-connected blocks, every height in them at or below it, joins the block to the DEM's edge or
    to all-nodata block. Every cell of such a block reaches a true outlet without rising above ``level``
    (blocks touching along an edge or a corner have 8-connected cells, and each block is connected):
    a sufficient proof, never a false one, for the cells of the fine search. Read block-row by block-row,
    so memory is the coarse grid's (about a million cells), not the DEM's.
    """

    def __init__(self, level: np.ndarray, floor: np.ndarray, low: np.ndarray, f: int) -> None:
        self.level, self.floor, self.floor_blocks, self.f = level, floor, low, f

    @classmethod
    def read(cls, path, ft_per_vertical_unit: float, shape, *, limits=None, root=None) -> CoarseOutlets:
        """The coarse grid of the DEM at ``path`` (``shape`` rows x columns), heights times
        ``ft_per_vertical_unit`` as :class:`~geosite.grid.Dem` converts them.
        """
        from rasterio.windows import Window

        from geosite.hydrology import _kernels as fk
        from geosite.io.raster import open_raster, read_heights, stored_nodata

        nr, nc = shape
        f = block_side((nr, nc))
        hr, hc = -(-nr // f), -(-nc // f)
        top = np.empty((hr, hc), dtype=np.float64)
        low = np.empty((hr, hc), dtype=np.float64)
        band = max(1, 512 // f) * f
        # one opening for the whole pass: open_raster caps GDAL's block cache (READ_CACHE_MB), so the tiles
        # read once are not all held (480 MB of a 64 M-cell DEM at GDAL's default, 5 % of RAM)
        with open_raster(path, "DEM", root, limits) as src:
            # the blocks' extremes in the file's own precision when float32 holds it exactly: max and min
            # commute with the exact widening and the monotone scaling the fine heights get
            native = np.dtype(src.dtypes[0])
            exact32 = native == np.float32 or (native.kind in "iu" and native.itemsize <= 2)
            nodata = stored_nodata(src)
            dtype = "float32" if exact32 else "float64"
            for r0 in range(0, nr, band):
                window = Window(0, r0, nc, min(band, nr - r0))
                if nodata is None:  # a mask band: read_heights applies it
                    z, skip = read_heights(src, window, dtype), float("nan")
                else:  # the band as stored; the kernel skips its nodata value and infinities
                    z, skip = src.read(1, window=window, out_dtype=dtype), nodata
                _coarse_band(np.ascontiguousarray(z), skip, f, r0, top, low=low)
        if ft_per_vertical_unit != 1.0:
            top *= ft_per_vertical_unit
            low *= ft_per_vertical_unit
        level, floor = np.empty_like(top), np.empty_like(low)
        fk.priority_flood(top, level, False, np.empty((1, 1), dtype=np.int64))
        fk.priority_flood(low, floor, False, np.empty((1, 1), dtype=np.int64))
        return cls(level, floor, low, f)

    def closed(self, r: int, c: int, bound: float) -> bool:
        """Is DEM cell (r, c) proven to have no way out at or below ``bound``? The flood of the blocks'
        lowest heights is a floor under every cell's filled height: a path's highest cell is at least
        the lowest cell of each block it crosses, and a block holding nodata counts as nodata, so its
        neighbours are outlets (NaN is never "closed").
        """
        return bool(self.floor[r // self.f, c // self.f] > bound)

    def basin_box(self, r: int, c: int) -> tuple[int, int, int, int]:
        """Rows r0:r1, columns c0:c1 (DEM) bounding the blocks the closed basin holding DEM cell (r, c)
        is likely to cover, to size the next window (a guess; only the fine search certifies): the
        8-connected blocks, from the cell's, whose lowest height is below the floor under its spill
        height (water rises at least that far). The block maxima's bound above it leaks across ridges.
        """
        from scipy import ndimage

        br, bc = r // self.f, c // self.f
        lab, _ = ndimage.label(self.floor_blocks < self.floor[br, bc], structure=np.ones((3, 3), bool))
        if not lab[br, bc]:
            return r, r + 1, c, c + 1
        rows, cols = np.nonzero(lab == lab[br, bc])
        f = self.f
        return int(rows.min()) * f, int(rows.max() + 1) * f, int(cols.min()) * f, int(cols.max() + 1) * f


def _coarse_band(z: np.ndarray, nodata: float, f: int, r0: int, top: np.ndarray, *, low: np.ndarray) -> None:
    """One band of rows of the DEM (``z``, from row ``r0``, ``nodata`` and infinities no height) into
    the coarse grids ``top`` (block maxima) and ``low`` (minima: NaN for a block holding nodata or cut by
    the DEM's edge, an outlet for the floor). A band's height is a multiple of ``f`` except at the DEM's
    last rows, so only the DEM's own edge cuts blocks.
    """
    from geosite.hydrology import _kernels as fk

    t, lo = fk.block_extremes_f4(z, f, nodata) if z.dtype == np.float32 else fk.block_extremes(z, f, nodata)
    rows = slice(r0 // f, r0 // f + t.shape[0])
    top[rows] = t
    low[rows] = lo
