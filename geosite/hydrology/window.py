"""The DEM window a site's answer needs, read from the file and certified equal to the whole DEM's.

A county LiDAR tile holds a one-acre site many thousand times over; reading and routing all of it cost
a Lot 7 run 31.5 s and 3.6 GB inside a 16 M-cell DEM against 2.2 s on a site-sized one (issue 15). What
the answer needs is less: the site and its map margin (slopes, contours, fences, setbacks), and the land
that drains into the site (upslope areas, D-infinity totals, channels through it). This module finds the
smallest window holding those whose filled heights and flow directions are *provably* the whole DEM's,
reading only that window and a search margin around it:

1. **Routed window** ``W``: the site's bounding box plus the map margin (the *core*), widened until the
   core, the site's D8 and D-infinity upslope cells, a 2-cell ring around them and every flat touching
   them stay clear of ``W``'s artificial edges (edges that are not the DEM's own). Their directions then
   depend only on filled heights inside ``W``.
2. **Filled heights certified**: each cell's D8 path on the window's filled surface never rises and
   leaves the window by an outlet cell (:func:`geosite.hydrology._kernels_numba.outlets_relied_on`; the
   window is filled by reconstruction, without flood labels); where that outlet is not a true outlet of
   the DEM (its edge, or beside nodata), a search over the cells no higher than the lowest filled height
   relying on it must reach a true outlet
   (:func:`geosite.hydrology._kernels.spill_below`; filling can only lower when outlets are added, so that
   path pins the height). The search runs on a wider *search window* ``C`` read around ``W``, whose own
   artificial edges are walls (no way out), so only a true outlet proves anything. A search blocked only by
   those walls (it does reach ``C``'s edge when they are open) widens ``C`` and runs again; one blocked by
   the terrain is a closed basin the window cuts through, and ``W`` grows to take all of it in
   (:func:`~geosite.hydrology._kernels.spill_basin`), with what the coarse grid says drains into the site
   (:func:`~geosite.hydrology.certify.coarse_drainage_box`), so the next window is usually the last.

The reasoning of steps 1-2 is :func:`geosite.hydrology.upslope.upslope_area`'s window, moved from an
in-memory DEM to the file. When ``W`` would cover over half the DEM, the whole DEM is read instead. What
lies in the core but outside the site's drainage (a channel in the map margin fed from beyond ``W``) is
routed on ``W``: its accumulation can be short of the whole DEM's, and the report says so.

Hand-written because no library routes a certified window of a raster file; reading is rasterio's.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from affine import Affine, AffineError
from rasterio.errors import WindowError

from geosite.grid import rasterize
from geosite.hydrology.certify import coarse_drainage_box, dilate
from geosite.hydrology.fill_proof import OK as _OK
from geosite.hydrology.fill_proof import CoarseOutlets, FillProof
from geosite.hydrology.fill_proof import RoundVerdict as _Verdict
from geosite.io.limits import BYTES_PER_DEM_CELL, Limits

if TYPE_CHECKING:
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem
    from geosite.hydrology.flow import FlowGrid

log = logging.getLogger(__name__)

#: The fewest cells a routed window reaches beyond the core on each side.
MIN_MARGIN_CELLS = 32
#: Rounds of growth before the whole DEM is read instead (each round at least doubles a margin).
MAX_ROUNDS = 60
#: What a search window costs per cell: its heights (float64) and up to five byte masks, rounded up.
SEARCH_BYTES_PER_CELL = 16


@dataclass(frozen=True)
class SiteWindow:
    """Where a site's DEM was read: rows ``r0:r1`` and columns ``c0:c1`` of a ``height`` x ``width``
    DEM; ``whole`` when that is all of it; ``certified`` when the site's drainage was proven to lie
    inside; ``searched_cells`` the largest search window read to prove it; ``rounds`` of growth.
    """

    r0: int
    r1: int
    c0: int
    c1: int
    height: int
    width: int
    whole: bool
    certified: bool
    searched_cells: int
    rounds: int

    @property
    def cells(self) -> int:
        """The cells of the window."""
        return (self.r1 - self.r0) * (self.c1 - self.c0)

    def describe(self) -> str:
        """Where the window lies, and whether it is certified, for the report.

        Returns
        -------
        str
            One phrase, such as "the whole DEM (1,000 x 1,000 cells)".
        """
        if self.whole:
            return f"the whole DEM ({self.height:,} x {self.width:,} cells)"
        where = (
            f"a {self.r1 - self.r0:,} x {self.c1 - self.c0:,}-cell window of the {self.height:,} x "
            f"{self.width:,}-cell "
            f"DEM (rows {self.r0:,}-{self.r1:,}, columns {self.c0:,}-{self.c1:,})"
        )
        if not self.certified:
            return where + ", not proven to hold all the land draining into the site"
        return (
            where
            + " holding the site, its map margin and every cell draining into the site, certified equal "
            f"to the whole DEM's routing ({self.searched_cells:,} cells searched to prove it)"
        )


class SiteDem(NamedTuple):
    """A site's DEM as :func:`read_site_dem` read it.

    Attributes
    ----------
    dem : Dem
        The heights read (feet).
    flow_grid : FlowGrid or None
        Its routing when it was routed on the way (the same as :func:`~geosite.hydrology.flow.flow_grid`
        of ``dem``); None when the whole DEM was read without routing.
    window : SiteWindow
        Where it lies in the DEM, and whether it is certified.
    """

    dem: Dem
    flow_grid: FlowGrid | None
    window: SiteWindow


def read_site_dem(
    path: Path,
    vertical_unit: Any,
    site_geom: BaseGeometry,
    core_bounds: tuple[float, float, float, float],
    *,
    limits: Limits | None = None,
    root: Path | None = None,
    max_cells: int | None = None,
    channel_threshold_sqft: float | None = None,
) -> SiteDem:
    """Read the DEM at ``path`` on the window the site needs (see the module notes).

    Parameters
    ----------
    path : Path
        The DEM file.
    vertical_unit : VerticalUnit or str
        The unit of its heights (``us_ft``, ``ft`` or ``m``).
    site_geom : BaseGeometry
        The site boundary, in the DEM's CRS.
    core_bounds : tuple of float
        Left, bottom, right, top of the site and its map margin, in the DEM's CRS units.
    limits : Limits, optional
        Resource limits the reads are held to.
    root : Path, optional
        The folder a VRT's sources must stay in (None: the caller's own DEM).
    max_cells : int, optional
        The largest DEM read whole, in cells; a larger one whose site needs more than half of it is read
        on the last window tried, uncertified (the caller says so).
    channel_threshold_sqft : float, optional
        Contributing area of a channel, sq ft: the window also grows until no cell of the core under it is
        fed from beyond the window (so the channels drawn in the map margin are the whole DEM's; the
        contributing area of one fed from beyond is then at least the value given).

    Returns
    -------
    SiteDem
        The Dem read, its FlowGrid when it was routed on the way (None when the whole DEM was read without
        routing) and where it lies.
    """
    from geosite.io.raster import open_raster, read_dem

    with open_raster(path, "DEM", root, limits) as src:
        nr, nc, transform = src.height, src.width, src.transform

    def whole(rounds: int, searched: int) -> SiteDem:
        """The whole DEM, read after ``rounds`` rounds of growth and ``searched`` cells searched."""
        dem = read_dem(path, vertical_unit, limits=limits, root=root)  # its checks name what is wrong
        return SiteDem(dem, None, SiteWindow(0, nr, 0, nc, nr, nc, True, True, searched, rounds))

    boxes = _core_cells(core_bounds, site_geom, transform, (nr, nc))
    if boxes is None or not _window_reads_exact(path) or _empty_or_most(boxes[0], (nr, nc)):
        return whole(0, 0)  # the site does not overlap (read_dem names that) or is most of the DEM
    ws = _WindowSearch(
        path=path,
        vertical_unit=vertical_unit,
        site_geom=site_geom,
        limits=limits or Limits(),
        root=root,
        channel_threshold_sqft=channel_threshold_sqft,
        shape=(nr, nc),
        transform=transform,
        core=boxes[0],
        site_box=boxes[1],
    )
    return _window_rounds(ws, whole, max_cells=max_cells)


def _core_cells(
    core_bounds: tuple[float, float, float, float],
    site_geom: BaseGeometry,
    transform: Affine,
    shape: tuple[int, int],
) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]] | None:
    """The core's cells (rows r0:r1, columns c0:c1) in a DEM of ``shape``, and the site's box within it
    (the coarse estimate's start); None on a degenerate or south-up grid (read_dem says why).
    """
    from rasterio.windows import from_bounds

    try:
        core = _cells(from_bounds(*core_bounds, transform=transform), (0, shape[0], 0, shape[1]))
        site_box = _cells(from_bounds(*site_geom.bounds, transform=transform), core)
    except (ArithmeticError, ValueError, TypeError, AffineError, WindowError):
        return None
    return core, site_box


def _empty_or_most(core: tuple[int, int, int, int], shape: tuple[int, int]) -> bool:
    """Whether the core holds no cell of the DEM, or over half of it."""
    nr, nc = shape
    return core[0] >= core[1] or core[2] >= core[3] or (core[1] - core[0]) * (core[3] - core[2]) * 2 > nr * nc


def _window_rounds(
    ws: _WindowSearch, whole: Callable[[int, int], SiteDem], *, max_cells: int | None
) -> SiteDem:
    """The rounds of growth of the routed window until it is certified; the whole DEM (``whole``, given
    the rounds and the cells searched) when the window would cover over half of it, or the last window
    tried, uncertified, when the DEM is over ``max_cells`` cells or the budget stops the growth.
    """
    from geosite.io.raster import read_dem

    nr, nc = ws.shape
    last = None
    for rounds in range(1, MAX_ROUNDS + 1):
        r0, r1, c0, c1 = ws.window()
        if (r1 - r0) * (c1 - c0) * 2 > nr * nc:
            if max_cells is None or nr * nc <= max_cells or last is None:
                return whole(rounds, ws.searched)
            break
        if last is not None and (r1 - r0) * (c1 - c0) * BYTES_PER_DEM_CELL > ws.limits.raster_budget_bytes:
            # the drainage needs more than the budget lets an analysis hold: the last window, uncertified
            break
        last = (r0, r1, c0, c1)
        verdict = ws.certify(last)
        if verdict.kind == "ok":
            dem, fg = ws.routed_dem()
            return SiteDem(dem, fg, SiteWindow(r0, r1, c0, c1, nr, nc, False, True, ws.searched, rounds))
        ws.grow(verdict, rounds)
    if last is not None and ((max_cells is not None and nr * nc > max_cells) or rounds < MAX_ROUNDS):
        r0, r1, c0, c1 = last
        dem = read_dem(
            ws.path, ws.vertical_unit, bounds=_bounds(ws.transform, last), limits=ws.limits, root=ws.root
        )
        return SiteDem(dem, None, SiteWindow(r0, r1, c0, c1, nr, nc, False, False, ws.searched, MAX_ROUNDS))
    return whole(MAX_ROUNDS, ws.searched)


@dataclass(frozen=True)
class _Routing:
    """W routed: its Dem and FlowGrid, and the cells whose filled heights the answer relies on
    (``check``: each relies on the outlet its D8 path leaves W by); for the site's drainage also the
    site's cells (``inside``), the cells draining into it with the core (``area``), and the flats
    touching them (``flats``, uint8).
    """

    dem: Dem
    fg: FlowGrid
    check: np.ndarray
    inside: np.ndarray | None = None
    area: np.ndarray | None = None
    flats: np.ndarray | None = None


@dataclass
class _WindowSearch:
    """The rounds of :func:`read_site_dem`: the routed window W (the core and margins ``m``, top, bottom,
    left, right, in cells), the search window around it (``ext`` cells beyond W, read as ``search`` on
    rows and columns ``sbox``), the coarse grid once read (``held``), W's routing (``route``, of the
    window ``routed_box``) and its D-infinity widening (``dinf``).
    """

    path: Path
    vertical_unit: Any
    site_geom: BaseGeometry
    limits: Limits
    root: Path | None
    channel_threshold_sqft: float | None
    shape: tuple[int, int]
    transform: Affine
    core: tuple[int, int, int, int]
    site_box: tuple[int, int, int, int]
    m: list[int] = field(default_factory=lambda: [MIN_MARGIN_CELLS] * 4)
    ext: int = 0
    search: Dem | None = None
    sbox: tuple[int, int, int, int] = (0, 0, 0, 0)
    held: list[CoarseOutlets] = field(default_factory=list)
    routed_box: tuple[int, int, int, int] | None = None
    route: _Verdict | None = None
    dinf: _Verdict | None = None
    searched: int = 0

    def __post_init__(self) -> None:
        core = self.core
        # the search window's reach beyond W
        self.ext = max(core[1] - core[0], core[3] - core[2], 4 * MIN_MARGIN_CELLS)
        # the search window holds heights and two byte masks, not an analysis: its own, smaller, cost per
        # cell
        budget = self.limits.raster_budget_bytes * BYTES_PER_DEM_CELL // SEARCH_BYTES_PER_CELL
        self.search_limits = self.limits.with_overrides({"raster_budget_bytes": budget})

    def coarse_outlets(self, factor: float, read: bool = True) -> CoarseOutlets | None:
        """The coarse grid, read once, when a search first needs it (``read`` False: None until then)."""
        if not self.held and read:
            self.held.append(
                CoarseOutlets.read(self.path, factor, self.shape, limits=self.limits, root=self.root)
            )
        return self.held[0] if self.held else None

    def window(self) -> tuple[int, int, int, int]:
        """W's rows r0:r1 and columns c0:c1 now."""
        (nr, nc), core, m = self.shape, self.core, self.m
        return (
            max(core[0] - m[0], 0),
            min(core[1] + m[1], nr),
            max(core[2] - m[2], 0),
            min(core[3] + m[3], nc),
        )

    def _read_search(self, wbox: tuple[int, int, int, int]) -> Dem:
        """The search window around W, read again when W (and a cell's ring) is no longer inside it."""
        from geosite.io.raster import read_dem

        (nr, nc), (r0, r1, c0, c1) = self.shape, wbox
        if self.search is None or not _holds(
            self.sbox, (max(r0 - 1, 0), min(r1 + 1, nr), max(c0 - 1, 0), min(c1 + 1, nc))
        ):
            # as wide as asked, but within what the budget lets a search hold
            while True:
                ext = self.ext
                self.sbox = (max(r0 - ext, 0), min(r1 + ext, nr), max(c0 - ext, 0), min(c1 + ext, nc))
                sb = self.sbox
                if ext <= 1 or (sb[1] - sb[0]) * (sb[3] - sb[2]) * SEARCH_BYTES_PER_CELL <= (
                    self.limits.raster_budget_bytes
                ):
                    break
                self.ext //= 2
            self.search = read_dem(
                self.path,
                self.vertical_unit,
                bounds=_bounds(self.transform, self.sbox),
                limits=self.search_limits,
                root=self.root,
            )
            self.searched = max(self.searched, self.search.elevation_ft.size)
        return self.search

    def certify(self, wbox: tuple[int, int, int, int]) -> _Verdict:
        """W routed (once per W) and its certificate: D8's cells first, then the D-infinity upslope cells
        added (computed once per window). ``ok`` or why not (see :func:`_route`, :func:`_certify`).
        """
        search, shape, sbox = self._read_search(wbox), self.shape, self.sbox
        if self.route is None or self.routed_box != wbox:  # a wider search window alone keeps W's routing
            thr = self.channel_threshold_sqft
            thr = None if thr is None else thr / search.cell_area_sqft
            self.routed_box, self.dinf = wbox, None
            self.route = _route(
                search, sbox, wbox, shape, self.core, site_geom=self.site_geom, threshold_cells=thr
            )
        route = self.route
        verdict = route
        if route.routing is not None and route.kind == "ok":
            verdict = _certify(search, sbox, wbox, shape, route.routing, coarse_outlets=self.coarse_outlets)
        if verdict.kind == "ok":
            assert route.routing is not None  # certified: W was routed
            if self.dinf is None:
                self.dinf = _with_dinf(route.routing, wbox, shape)
            verdict = self.dinf
            if (
                verdict.kind == "ok" and verdict.routing is not None
            ):  # only the cells D8's certificate did not cover
                added = replace(verdict.routing, check=verdict.routing.check & ~route.routing.check)
                verdict = _certify(search, sbox, wbox, shape, added, coarse_outlets=self.coarse_outlets)
        if verdict.kind == "grow" and verdict.routing is not None:
            # before growing by doubling: are the site's own filled heights certified? A site in a closed
            # basin W cuts through takes the basin in at once instead
            own = _certify(search, sbox, wbox, shape, verdict.routing, coarse_outlets=self.coarse_outlets)
            if own.kind == "basin":
                verdict = own
            elif own.kind == "search":
                self.ext *= 2
                self.search = None
        return verdict

    def grow(self, verdict: _Verdict, rounds: int) -> None:
        """W's margins, or the search window, grown by what ``verdict`` says (of W in round ``rounds``)."""
        log.debug(
            "site window round %d: W rows %d-%d, columns %d-%d: %s %s",
            rounds,
            *self.window(),
            verdict.kind,
            verdict.sides if verdict.kind == "grow" else verdict.box if verdict.kind == "basin" else "",
        )
        if verdict.kind == "grow":  # the drainage reaches these sides of W
            assert verdict.sides is not None
            self.m = [mi * 2 if s else mi for mi, s in zip(self.m, verdict.sides, strict=True)]
        elif verdict.kind == "search":  # a search was stopped only by the search window's walls
            self.ext *= 2
            self.search = None
        else:  # "basin": a closed basin cut by W, rows and columns (DEM) br0:br1, bc0:bc1
            assert verdict.box is not None
            grown, _ = self._margins(verdict.box)
            if self.held:  # and what drains into it, as the coarse grid sees it: W in one step
                assert self.search is not None  # a "basin" verdict comes from a search of this round
                br0, br1, bc0, bc1 = verdict.box
                cr0, cr1, cc0, cc1 = coarse_drainage_box(
                    self.held[0].floor,
                    self.held[0].f,
                    self.site_box,
                    self.shape,
                    cell_x_ft=self.search.cell_x_ft,
                    cell_y_ft=self.search.cell_y_ft,
                )
                wider, cells = self._margins((min(br0, cr0), max(br1, cr1), min(bc0, cc0), max(bc1, cc1)))
                # a guess that fits (block minima join more than the cells do: it can overshoot, and one
                # that would take W past half the DEM is not used)
                if cells * 2 <= self.shape[0] * self.shape[1]:
                    grown = wider
            self.m = grown if grown != self.m else [mi * 2 for mi in self.m]

    def routed_dem(self) -> tuple[Dem, FlowGrid]:
        """The Dem of W and its FlowGrid, once W is certified."""
        assert self.route is not None and self.route.routing is not None
        return self.route.routing.dem, self.route.routing.fg

    def _margins(self, box: tuple[int, int, int, int]) -> tuple[list[int], int]:
        """W's margins beyond the core to hold ``box`` (not less than now), and W's cells then."""
        (nr, nc), core, pad = self.shape, self.core, MIN_MARGIN_CELLS
        b0, b1, d0, d1 = box
        want = [core[0] - b0 + pad, b1 - core[1] + pad, core[2] - d0 + pad, d1 - core[3] + pad]
        g = [max(mi, wi) for mi, wi in zip(self.m, want, strict=True)]
        return g, (min(core[1] + g[1], nr) - max(core[0] - g[0], 0)) * (
            min(core[3] + g[3], nc) - max(core[2] - g[2], 0)
        )


def _cells(w, within: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Rows r0:r1 and columns c0:c1 of the cells rasterio window ``w`` touches, clipped to ``within``
    (empty when it lies outside: r0 >= r1 or c0 >= c1).
    """
    return (
        max(math.floor(w.row_off), within[0]),
        min(math.ceil(w.row_off + w.height), within[1]),
        max(math.floor(w.col_off), within[2]),
        min(math.ceil(w.col_off + w.width), within[3]),
    )


def _window_reads_exact(path: Path) -> bool:
    """Whether a window read from ``path`` gives the same heights as the same cells of the whole read.
    A GeoTIFF's or a COG's cells are stored, so yes; a VRT resampling its sources other than by nearest
    neighbour (average, bilinear, cubic, ...) computes each cell from source pixels around it, and GDAL's
    windowed reads of an averaging VRT differ from the whole read by feet: such a DEM, or a VRT of VRTs,
    is read whole.
    """
    import xml.etree.ElementTree as ET

    from geosite.io.untrusted import MAX_XML_BYTES

    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
            if b"<VRTDataset" not in head or Path(path).stat().st_size > MAX_XML_BYTES:
                return True  # not a VRT (an oversized one is refused when read)
            tree = ET.fromstring(head + fh.read())
    except (OSError, ET.ParseError):
        return True  # read_dem names the problem
    for el in tree.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        if tag in ("AveragedSource", "KernelFilteredSource"):
            return False
        way = (
            (el.get("resampling") or "nearest").lower()
            if tag in ("SimpleSource", "ComplexSource")
            else "nearest"
        )
        if way not in ("nearest", "near"):
            return False
        if tag == "SourceFilename" and (el.text or "").strip().lower().endswith(".vrt"):
            return False
    return True


def _holds(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
    return outer[0] <= inner[0] and outer[1] >= inner[1] and outer[2] <= inner[2] and outer[3] >= inner[3]


def _bounds(t: Affine, box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    """(left, bottom, right, top) of rows r0:r1, columns c0:c1 (cell edges; read_dem reads those cells)."""
    r0, r1, c0, c1 = box
    x0, y0 = t * (c0, r0)
    x1, y1 = t * (c1, r1)
    # pulled a hundredth of a cell inside, so rounding never adds a row or column
    ex, ey = (x1 - x0) / (c1 - c0) * 0.01, (y1 - y0) / (r1 - r0) * 0.01
    return min(x0 + ex, x1 - ex), min(y0 + ey, y1 - ey), max(x0 + ex, x1 - ex), max(y0 + ey, y1 - ey)


def _route(
    search: Dem, sbox, wbox, shape, core, *, site_geom, threshold_cells: float | None = None
) -> _Verdict:
    """Route window ``wbox`` (cut from the search window ``search``, rows/columns ``sbox``) and find the
    cells whose directions the answer relies on: ``ok`` with the routing, or ``grow`` with the sides
    (and the cells to certify before growing).
    """
    import dataclasses

    from geosite.hydrology import _kernels as fk
    from geosite.hydrology.flow import FlowGrid

    nr, nc = shape
    r0, r1, c0, c1 = wbox
    sr0, sc0 = sbox[0], sbox[2]
    zs = search.elevation_ft
    z = np.ascontiguousarray(zs[r0 - sr0 : r1 - sr0, c0 - sc0 : c1 - sc0])
    wt = search.transform @ Affine.translation(c0 - sc0, r0 - sr0)
    dem = dataclasses.replace(search, elevation_ft=z, transform=wt)
    filled = np.empty_like(z)
    fk.priority_flood(z, filled, False, np.empty((1, 1), dtype=np.int64))
    dirs = np.empty(z.shape, dtype=np.uint8)
    fk.d8_directions(filled, dem.cell_x_ft, dem.cell_y_ft, dirs)
    fg = FlowGrid(dem, filled, dirs)
    inside = rasterize(site_geom, z.shape, wt)
    area = inside.copy()
    cells, _ = fk.trace_upstream(dirs, inside.view(np.uint8))
    area.reshape(-1)[cells] = True
    area[core[0] - r0 : core[1] - r0, core[2] - c0 : core[3] - c0] = True
    check, sides, flats = _relied_on(fg, area, wbox, shape)
    if any(sides):
        # the site's own cells, to try before growing: a closed basin W cuts is found in one round
        ring = dilate(inside, 2)
        return _Verdict("grow", sides=sides, routing=_Routing(dem, fg, ring & ~_edges(ring.shape)))
    # channels in the core: a cell fed from beyond W has at least its W accumulation; one still under
    # the channel threshold might be a channel on the whole DEM, so W grows toward the edges feeding it
    if threshold_cells is not None:
        core_mask = np.zeros(z.shape, dtype=bool)
        core_mask[core[0] - r0 : core[1] - r0, core[2] - c0 : core[3] - c0] = True
        short = core_mask & ~(fg.accumulation_cells() >= threshold_cells)  # nodata (NaN) counts as short
        # every cell draining into a short one, in one trace; which artificial edges it reaches
        feeding = short.copy()
        up, _ = fk.trace_upstream(dirs, short.view(np.uint8))
        feeding.reshape(-1)[up] = True
        fed_sides = (
            r0 > 0 and bool(feeding[0].any()),
            r1 < nr and bool(feeding[-1].any()),
            c0 > 0 and bool(feeding[:, 0].any()),
            c1 < nc and bool(feeding[:, -1].any()),
        )
        if any(fed_sides):
            # the core's own heights are tried before growing, as above
            return _Verdict("grow", sides=fed_sides, routing=_Routing(dem, fg, check))
    return _Verdict("ok", routing=_Routing(dem, fg, check, inside, area, flats))


def _edges(shape: tuple[int, int]) -> np.ndarray:
    """The cells on a grid's outer rows and columns."""
    e = np.zeros(shape, dtype=bool)
    e[0], e[-1], e[:, 0], e[:, -1] = True, True, True, True
    return e


def _relied_on(fg: FlowGrid, area: np.ndarray, wbox, shape, known: np.ndarray | None = None):
    """The cells whose filled heights the directions of ``area`` rely on (a 2-cell ring, and every flat
    touching it with its ring), which artificial sides of W they reach, and those flats with their ring
    (uint8). ``known``: the flats found for a smaller area (its third value); only the cells outside
    them start a search, so a lake is walked once. No flat is missed so: a flat found is in ``known``
    whole, and a ring cell is never another flat's (a cell beside a flat is higher than it, so has a
    lower neighbour and is not flat; at the same height it would be the same flat).
    """
    from geosite.hydrology import _kernels as fk

    nr, nc = shape
    r0, r1, c0, c1 = wbox
    check = dilate(area, 2)
    starts = dilate(area, 1)
    if known is not None:
        starts &= known == 0
    flats = fk.flat_components_touching(fg.filled_ft, fg.directions, starts.view(np.uint8))
    if known is not None:
        flats |= known
    if flats.any():
        check |= dilate(flats.astype(bool), 1)
    sides = (
        (r0 > 0 and bool(check[0].any())),
        (r1 < nr and bool(check[-1].any())),
        (c0 > 0 and bool(check[:, 0].any())),
        (c1 < nc and bool(check[:, -1].any())),
    )
    return check, sides, flats


def _with_dinf(routing: _Routing, wbox, shape) -> _Verdict:
    """:func:`_route`'s routing widened by the site's D-infinity upslope cells (sheet flow may come from
    cells whose D8 path misses the site): ``ok`` with the routing so widened, or ``grow`` with the sides.
    """
    assert routing.inside is not None and routing.area is not None
    fg = routing.fg
    area = routing.area | fg.dinf_upstream(routing.inside)
    check, sides, flats = _relied_on(fg, area, wbox, shape, routing.flats)
    if any(sides):
        return _Verdict("grow", sides=sides)
    return _Verdict("ok", routing=_Routing(routing.dem, fg, check, routing.inside, area, flats))


def _certify(search: Dem, sbox, wbox, shape, routing: _Routing, *, coarse_outlets=None) -> _Verdict:
    """The filled heights of ``routing``'s ``check`` cells in the routed window ``wbox`` proven the whole
    DEM's on the search window ``search`` (rows/columns ``sbox``): ``ok``, ``search`` when a way out may
    lie beyond the search window, or ``basin`` with the box of a closed basin W cuts.
    """
    r0, _r1, c0, c1 = wbox
    sr0, sc0 = sbox[0], sbox[2]
    from geosite.hydrology import _kernels as fk

    fg, check = routing.fg, routing.check
    # 2. every filled height relied on, certified by a way out below it to a true outlet
    seeds, bounds = fk.outlets_relied_on(fg.directions, fg.filled_ft, np.ascontiguousarray(check, dtype=bool))
    if not seeds.size:
        return _OK
    proof = FillProof.on(search, sbox, shape, coarse_outlets)
    wcols = c1 - c0
    for k in np.argsort(bounds, kind="stable"):  # increasing bounds keep `proven` valid
        lr, lc = divmod(int(seeds[k]), wcols)
        verdict = proof.seed(lr + r0 - sr0, lc + c0 - sc0, float(bounds[k]))  # in the search window
        if verdict is not None:
            return verdict
    return _OK
