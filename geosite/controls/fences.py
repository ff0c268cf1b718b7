"""Filter fence (Grantsburg B(6)(c)[3], DNR technical standard 1056): where it goes.

Notes
-----
How the boundary is classified. Each ring of a disturbed polygon is cut into stretches of about one
DEM cell. For each stretch the outward normal ``n`` is compared with the downhill direction ``u`` of
the cell just inside it (the steepest descent of the depression-filled surface, central differences
averaged over 3x3 cells, exact on a plane; the cell's D8 direction on flats). With ``a`` the angle
between ``n`` and ``u``:

* ``a < 90 - tol``: flow leaves the area across the stretch: **downslope**;
* ``90 - tol <= a <= 90 + tol``: flow runs along it: **sideslope**;
* ``a > 90 + tol``: flow enters: **upslope** (no fence: DNR 1056 says not where clean water enters);
* no height in the DEM just inside the stretch (off the grid, or a nodata cell): **unclassified**, no
  fence drawn, and the report says how long those stretches are ("not assessed", never "sideslope").

``tol`` is the profile's ``fence_sideslope_tolerance_deg``. Runs shorter than ``fence_min_run_ft``
take the class of their longer neighbour (repeatedly, shortest first), so runs read as continuous.

Fences go along downslope and sideslope runs. Each open end of a fence chain is turned upslope by a
hook of ``fence_hook_ft``; where the fence itself runs up or down the slope into its end, the hook
turns off it at 45 deg (a J-hook) instead of retracing it. Interior rows keep the slope length above
any fence within the DNR 1056 table: each disturbed cell gets its D8 flow distance to where its water
leaves the area, divided by the table's length for its slope (``d``); row k runs **on the contour**
of the filled surface (lightly smoothed, then straightened to within 2 ft) at the lowest height of the
``d = k`` line, and only beside ground whose ``d`` reaches k - 1/2 (on a plane: rows every table length
up the slope, exactly; D8 paths on planes not aligned with the grid are up to 8 % longer than straight
flow, so rows there are a little closer than needed). :func:`buildable_rows` then cuts the rows where
they would cross a structure, drive, road, water or stockpile (5 ft clear) and drops pieces under
25 ft; each gap is a ``stand_in`` naming the obstacle and what replaces the row there (a row along the
obstacle's downslope side, erosion mat on the slope, phasing: :data:`STAND_INS`). Where a channel
(``hydrology.channels``) crosses the area,
fences are drawn along both its edges, ``fence_channel_offset_ft`` either side of its centreline.
Outside the disturbed polygons (Grantsburg B(6)(c)[3]: a channel passing through the site),
:func:`channel_edge_fences` draws them along the stretches of the channel the disturbed area's runoff
reaches, on the side it reaches from.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import shapely
from shapely.geometry import LineString

from geosite import grid
from geosite.controls.boundary_sides import FENCED, classify_boundary
from geosite.controls.channel_fences import channel_corridor, channel_fences, line_parts
from geosite.controls.fence_hooks import fence_hooks
from geosite.controls.slope_length import interior_rows, slope_length_excess

if TYPE_CHECKING:
    import geopandas as gpd
    from shapely.geometry.base import BaseGeometry

    from geosite.grid import Dem
    from geosite.hydrology import FlowGrid


class RowGap(NamedTuple):
    """A piece of interior row not built: the line, why (an obstacle's layer, or ``loop``, ``kink``,
    ``short``, ``channel``) and the obstacle's id (None when no obstacle stops it).
    """

    line: LineString
    why: str
    obstacle: Any


#: What stands in for an interior row where the row cannot be built, by the layer that stops it (DNR
#: practice: a row below the obstacle, erosion mat on the slope, or phasing the work).
STAND_INS: dict[str, str] = {
    "structures": "silt fence row along the downslope side of the structure",
    "stockpiles": "silt fence row along the downslope side of the pile",
    "access_drives": "erosion mat (DNR 1052) on the slope above the drive, or build the drive first",
    "roads": "erosion mat (DNR 1052) on the slope above the road, or phase the work",
    "streams": "no fence in the water: leave the bank vegetated",
    "lakes": "no fence in the water: leave the shore vegetated",
    "wetlands": "no fence in the wetland: leave it undisturbed",
    "channels": "no fence across concentrated flow: stabilize the channel",
    "sediment_trap": "no fence through the trap: its pool takes the runoff there",
    "short": "erosion mat (DNR 1052) on the slope: the row is too short to build",
}

#: The obstacles that end the slope above a fence and carry no stand-in (:func:`footprints`): a structure
#: (its excavation takes the flow above it), a road or drive (its pavement and edge end the slope, as
#: RUSLE ends a slope length at a road), a sediment trap (its pool takes the runoff).
BUILT_LAYERS = ("structures", "roads", "access_drives", "sediment_trap")


#: The site layers no interior row may cross.
ROW_OBSTACLE_LAYERS = (
    "structures",
    "stockpiles",
    "access_drives",
    "roads",
    "streams",
    "lakes",
    "wetlands",
    "channels",
)


def row_obstacles(site: Any, width_ft: float = 2.0) -> gpd.GeoDataFrame | None:
    """The site's structures, stockpiles, drives, roads and waters as one GeoDataFrame (``layer``,
    ``id``, site CRS) for :func:`filter_fence`'s ``obstacles``; lines get ``width_ft`` of width (by
    default 2 ft: geosite's choice, not the ordinance's, a line drawn for a drive or a ditch given the
    width of a post's footing).
    """
    import geopandas as gpd

    geoms, layers, ids = [], [], []
    half = width_ft / 2 / site.ft_per_unit
    for name in ROW_OBSTACLE_LAYERS:
        gdf = site.layer(name)
        if gdf is None:
            continue
        for g, i in zip(
            gdf.geometry.values, gdf["id"] if "id" in gdf.columns else range(1, len(gdf) + 1), strict=True
        ):
            if g is None or g.is_empty:
                continue
            geoms.append(g if g.geom_type in ("Polygon", "MultiPolygon") else g.buffer(half))
            layers.append(name)
            ids.append(int(i) if isinstance(i, (int, np.integer)) else i)
    if not geoms:
        return None
    return gpd.GeoDataFrame({"layer": layers, "id": ids}, geometry=geoms, crs=site.crs)


def footprints(obstacles: gpd.GeoDataFrame | None) -> BaseGeometry | None:
    """The built ground among ``obstacles`` (:func:`row_obstacles`' form; :data:`BUILT_LAYERS`: structures,
    roads, drives, traps), dissolved; None without any.
    """
    if obstacles is None or not len(obstacles) or "layer" not in obstacles.columns:
        return None
    got = obstacles[obstacles["layer"].isin(BUILT_LAYERS)]
    return shapely.union_all(got.geometry.values) if len(got) else None


def buildable_rows(
    rows: list[LineString], obstacles: Any, clearance: float, min_length: float
) -> tuple[list[LineString], list[RowGap]]:
    """Cut interior rows where they would cross an obstacle (``obstacles``: a GeoDataFrame with
    ``layer`` and ``id`` in the rows' CRS), ``clearance`` CRS units clear of it, and drop pieces shorter
    than ``min_length``. Returns the rows kept and the gaps as (line, stand-in layer key, obstacle id).
    """
    keep: list[LineString] = []
    gaps: list[RowGap] = []
    obst = (
        []
        if obstacles is None or not len(obstacles)
        else list(
            zip(
                shapely.buffer(obstacles.geometry.values, clearance),
                obstacles["layer"],
                obstacles["id"],
                strict=True,
            )
        )
    )
    for row in rows:
        pieces = [row]
        for geom, layer, oid in obst:
            nxt = []
            for piece in pieces:
                if not piece.intersects(geom):
                    nxt.append(piece)
                    continue
                cut = shapely.intersection(piece, geom)
                gaps += [RowGap(g, layer, oid) for g in line_parts(cut) if g.length > 0]
                nxt += line_parts(shapely.difference(piece, geom))
            pieces = nxt
        for piece in pieces:
            if piece.length >= min_length:
                keep.append(piece)
            else:
                gaps.append(RowGap(piece, "short", None))
    return keep, gaps


@dataclasses.dataclass(frozen=True)
class RowRules:
    """What makes an interior row one a crew can build (issue 25), from the profile's ``[controls]``.

    Attributes
    ----------
    max_turn_deg : float
        The sharpest turn (deg from straight on) a row may take at a post (``fence_row_max_turn_deg``):
        a row is cut there, the pieces built apart.
    min_piece_ft : float
        The shortest piece of row built, ft (``fence_row_min_length_ft``).
    max_perimeter_ratio : float
        Interior rows longer in all than this many times the disturbed part's perimeter are out of
        proportion (``fence_row_max_perimeter_ratio``): the Handbook's area practice stands in for them.
    """

    max_turn_deg: float
    min_piece_ft: float
    max_perimeter_ratio: float

    @classmethod
    def from_profile(cls, profile: Any) -> RowRules | None:
        """The rules of ``profile``'s ``[controls]`` (None when it lacks any of the three keys)."""
        keys = ("fence_row_max_turn_deg", "fence_row_min_length_ft", "fence_row_max_perimeter_ratio")
        vals = [profile.value("controls", k) for k in keys]
        if any(v is None for v in vals):
            return None
        return cls(*(float(v) for v in vals))


#: Why no buildable row keeps the slope above a fence within DNR 1056's length, as a stand-in area's
#: ``kind``: the rows would be out of proportion to the area, or a row is not built there (what stands in,
#: mulch or erosion mat, is the silt fence practice's choice: geosite.practices.silt_fence).
STAND_IN_KINDS = ("proportion", "row")
WHY_NOT_BUILT = {
    "loop": "a closed ring around a mound or hollow",
    "kink": "a kink sharper than a post can hold",
    "short": "a piece too short to build",
    "channel": "a row across concentrated flow",
}


def filter_fence(
    polygons: Any,
    dem: Dem,
    fg: FlowGrid | None = None,
    *,
    tolerance_deg: float,
    min_run_ft: float,
    hook_ft: float,
    table: Any,
    channel_threshold_sqft: float | None,
    channel_offset_ft: float,
    obstacles: gpd.GeoDataFrame | None = None,
    row_clearance_ft: float,
    row_min_length_ft: float,
    row_rules: RowRules | None = None,
    phases: gpd.GeoDataFrame | None = None,
) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """Filter fence for the disturbed polygons.

    Every number is the profile's (``[controls]`` and ``[terrain]``, each with its source), passed by
    name: ``tolerance_deg=profile.control("fence_sideslope_tolerance_deg")``,
    ``table=profile.control("fence_max_slope_length_ft")``, and so on; ``row_rules`` is
    ``RowRules.from_profile(profile)``.

    Parameters
    ----------
    polygons : geopandas.GeoDataFrame, geopandas.GeoSeries or shapely geometry
        The disturbed polygons (any projected CRS; reprojected to the DEM's and back), or a shapely
        geometry in the DEM's CRS.
    dem : Dem
        The DEM (elevations in ft).
    fg : FlowGrid or None
        Its flow grid (computed when None).
    tolerance_deg : float
        The boundary classification's sideslope band, degrees either side of 90 (:func:`classify_boundary`;
        ``[controls] fence_sideslope_tolerance_deg``).
    min_run_ft : float
        The boundary classification's shortest run, ft (:func:`classify_boundary`; ``[controls]
        fence_min_run_ft``).
    hook_ft : float
        Length of the upslope hooks at fence ends, ft (0: none): ``[controls] fence_hook_ft`` where the
        requirement's ``params.hooks`` asks for them (DNR 1056).
    table : sequence of (float, float) or None
        DNR 1056 rows (slope below, percent; maximum slope length, ft) for interior rows (None: no rows):
        ``[controls] fence_max_slope_length_ft``.
    channel_threshold_sqft : float or None
        Contributing area of a channel cell, sq ft, for the channel-edge fences (None: none):
        ``[terrain] channel_threshold_sqft``.
    channel_offset_ft : float
        Distance of the channel fences from the channel centreline, ft (``[controls]
        fence_channel_offset_ft``).
    obstacles : geopandas.GeoDataFrame or None
        What no interior row may cross (structures, drives, roads, water, stockpiles), with ``layer`` and
        ``id``. Each gap is a ``stand_in`` line naming the obstacle and what stands in for the row there
        (:data:`STAND_INS`).
    row_clearance_ft : float
        How far, ft, rows stop short of the obstacles (``[controls] fence_row_clearance_ft``).
    row_min_length_ft : float
        Pieces of row shorter than this, ft, are not built (``[controls] fence_row_min_length_ft``).
    row_rules : RowRules or None
        Rows a crew can build (:class:`RowRules`): no closed loops, no turn sharper than the profile's, no
        piece under its minimum, not out of proportion to the area. With them, ``fence`` holds only
        buildable fence and the stand-ins are areas where the replacement goes
        (``fence.attrs["stand_in_areas"]``, :func:`row_stand_ins`), never lines along the unbuilt row.
    phases : geopandas.GeoDataFrame or None
        The disturbance phases (``phase`` and each phase's ground; any CRS): rows are built phase by phase,
        so whether they are out of proportion is judged on each phase's ground, and a stand-in is split at
        the phases' edges (each piece goes down with its phase). None: the polygons are judged whole.

    Returns
    -------
    fence : geopandas.GeoDataFrame
        The fence lines in the input's CRS, with ``side`` (downslope, sideslope, hook, channel, interior;
        without ``row_rules`` also stand_in: not fence), ``polygon_id``, ``length_ft`` and, for stand-ins,
        ``obstacle`` and ``practice``.
    runs : geopandas.GeoDataFrame
        The classified boundary (downslope, sideslope, upslope, unclassified) in the input's CRS, with
        ``polygon_id`` and ``length_ft``.
    """
    from geosite.hydrology import flow_grid

    fg = fg or flow_grid(dem)
    geoms, ids, out_crs = _geoms_in_dem_crs(polygons, dem)
    where = _Layout(
        dem=dem,
        fg=fg,
        table=table,
        obst=_in_dem_crs(obstacles, dem),
        chan=_traced_channels(fg, channel_threshold_sqft),  # traced once for every polygon
        channel_threshold_sqft=channel_threshold_sqft,
        channel_offset_ft=channel_offset_ft,
        clearance=row_clearance_ft / dem.ft_per_unit,
        min_length=row_min_length_ft / dem.ft_per_unit,
        rules=row_rules,
        classify=(tolerance_deg, min_run_ft),
        phases=_phase_grounds(phases, dem),
    )
    fence_rows: dict[str, list[Any]] = {
        k: [] for k in ("side", "polygon_id", "geometry", "obstacle", "practice")
    }
    all_runs, stand_ins = [], []
    for pid, poly in zip(ids, geoms, strict=False):
        runs = classify_boundary(poly, dem, fg, tolerance_deg=tolerance_deg, min_run_ft=min_run_ft)
        runs["polygon_id"] = pid
        all_runs.append(runs)
        lines = [(side, g) for side, g in zip(runs["side"], runs.geometry, strict=False) if side in FENCED]
        lines += [("hook", h) for h in fence_hooks(runs, fg.downhill_at, dem, hook_ft, poly)]
        lines, gaps, areas = where.polygon(poly, lines)
        stand_ins += [{**a, "polygon_id": pid} for a in areas]
        _add_fence_rows(fence_rows, pid, lines, gaps)
    fence, runs_all = _fence_frames(fence_rows, all_runs, dem=dem, out_crs=out_crs)
    if row_rules is not None:
        fence.attrs["stand_in_areas"] = _stand_in_frame(stand_ins, dem, out_crs, _ft_per_unit(out_crs, dem))
    return fence, runs_all


def _in_dem_crs(obstacles: gpd.GeoDataFrame | None, dem: Dem) -> gpd.GeoDataFrame | None:
    """The obstacles in the DEM's CRS (None when there are none)."""
    if obstacles is None or not len(obstacles):
        return None
    return grid.to_crs(obstacles, dem.crs) if obstacles.crs is not None else obstacles


def _traced_channels(fg: FlowGrid, threshold_sqft: float | None) -> gpd.GeoDataFrame | None:
    """The channel network of ``fg`` (cells draining ``threshold_sqft`` sq ft or more; None without one)."""
    if not threshold_sqft:
        return None
    from geosite.hydrology import channels

    return channels(fg, threshold_sqft)


def _fence_frames(
    fence_rows: dict[str, list[Any]], all_runs: list[gpd.GeoDataFrame], *, dem: Dem, out_crs: Any
) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """The fence lines and the classified runs of every polygon, in ``out_crs`` with their ``length_ft``."""
    import geopandas as gpd
    import pandas as pd

    fence = gpd.GeoDataFrame(fence_rows, geometry="geometry", crs=dem.crs)
    runs_all = (
        gpd.GeoDataFrame(pd.concat(all_runs, ignore_index=True), geometry="geometry", crs=dem.crs)
        if all_runs
        else gpd.GeoDataFrame({"side": [], "length_ft": [], "polygon_id": []}, geometry=[], crs=dem.crs)
    )
    fence = grid.to_crs(fence, out_crs)
    runs_all = grid.to_crs(runs_all, out_crs)
    fpu = _ft_per_unit(out_crs, dem)
    fence["length_ft"] = fence.geometry.length * fpu
    runs_all["length_ft"] = runs_all.geometry.length * fpu
    return fence, runs_all


def _add_fence_rows(
    fence_rows: dict[str, list[Any]],
    pid: Any,
    lines: list[tuple[str, Any]],
    gaps: list[RowGap],
) -> None:
    """Polygon ``pid``'s fence ``lines`` (side, line) and stand-in ``gaps`` (line, obstacle layer, id)."""
    for side, g in lines:
        fence_rows["side"].append(side)
        fence_rows["polygon_id"].append(pid)
        fence_rows["geometry"].append(g)
        fence_rows["obstacle"].append(None)
        fence_rows["practice"].append(None)
    for g, layer, oid in gaps:
        fence_rows["side"].append("stand_in")
        fence_rows["polygon_id"].append(pid)
        fence_rows["geometry"].append(g)
        fence_rows["obstacle"].append(f"{layer} {oid}" if oid is not None else None)
        fence_rows["practice"].append(STAND_INS.get(layer, STAND_INS["short"]))


@dataclasses.dataclass(kw_only=True)
class _Layout:
    """The interior rows and channel fences of one disturbed polygon (DEM CRS; lengths in CRS units)."""

    dem: Dem
    fg: FlowGrid
    table: Any
    obst: gpd.GeoDataFrame | None
    chan: gpd.GeoDataFrame | None
    channel_threshold_sqft: float | None
    channel_offset_ft: float
    clearance: float
    min_length: float
    rules: RowRules | None
    classify: tuple[float, float]  # the boundary classification's tolerance_deg, min_run_ft (the profile's)
    phases: list[tuple[str, Any]] = dataclasses.field(default_factory=list)  # (phase, its ground, DEM CRS)

    @property
    def built(self) -> BaseGeometry | None:
        """The built ground among the obstacles (DEM CRS, :func:`footprints`): no slope length runs across
        it and no stand-in is laid on it.
        """
        return footprints(self.obst)

    def polygon(
        self, poly: BaseGeometry, lines: list[tuple[str, Any]]
    ) -> tuple[list[tuple[str, Any]], list[RowGap], list[dict[str, Any]]]:
        """(fence lines, stand-in lines (no ``rules``), stand-in areas (with ``rules``))."""
        dem, rules = self.dem, self.rules
        gaps: list[RowGap] = []
        if self.table is not None:
            raw = interior_rows(poly, dem, self.fg, self.table)
            if rules is None:
                rows, gaps = buildable_rows(raw, self.obst, self.clearance, self.min_length)
            else:
                rows, gaps = crew_rows(
                    raw, self.obst, rules, clearance=self.clearance, ft_per_unit=dem.ft_per_unit
                )
            lines = lines + [("interior", g) for g in rows]
        corridor = channel_corridor(poly, self.chan, self.channel_offset_ft / dem.ft_per_unit)
        if corridor is not None:
            # DNR 1056: silt fence is for sheet and rill flow, never across concentrated flow: the
            # boundary and interior rows stop at the channel's edge fences
            lines = [
                (side, part) for side, g in lines for part in line_parts(shapely.difference(g, corridor))
            ]
            if rules is not None:  # the pieces the corridor leaves must be buildable too
                short = [
                    RowGap(g, "channel", None)
                    for side, g in lines
                    if side == "interior" and g.length * dem.ft_per_unit < rules.min_piece_ft
                ]
                gaps += short
                lines = [
                    (side, g)
                    for side, g in lines
                    if not (side == "interior" and g.length * dem.ft_per_unit < rules.min_piece_ft)
                ]
            lines += [
                ("channel", g)
                for g in channel_fences(
                    poly,
                    dem,
                    self.fg,
                    self.channel_threshold_sqft,
                    offset_ft=self.channel_offset_ft,
                    chan=self.chan,
                )
            ]
        if rules is None or self.table is None:
            return lines, gaps, []
        lines += self._below_obstacles(poly, gaps)
        lines, areas = self._stand_ins(poly, lines, gaps)
        return lines, [], areas

    def _below_obstacles(self, poly: BaseGeometry, gaps: list[RowGap]) -> list[tuple[str, Any]]:
        """Where a row stops at a structure or a pile: a row along the obstacle's downslope side instead
        (:data:`STAND_INS`), ``clearance`` from it, inside the polygon, of the minimum length: one
        straight run per obstacle (its longest downslope face), never a row turning the obstacle's
        corners, which would wrap the footprint a few feet off it where no crew can trench it.
        """
        assert self.rules is not None
        out: list[tuple[str, Any]] = []
        if self.obst is None:
            return out
        hit = {(layer, oid) for _g, layer, oid in gaps if layer in ("structures", "stockpiles")}
        for geom, layer, oid in zip(
            self.obst.geometry.values, self.obst["layer"], self.obst["id"], strict=True
        ):
            if (layer, oid) not in hit:
                continue
            ring = geom.buffer(self.clearance, join_style="mitre")
            tolerance_deg, min_run_ft = self.classify
            runs = classify_boundary(
                ring, self.dem, self.fg, tolerance_deg=tolerance_deg, min_run_ft=min_run_ft
            )
            pieces = [
                piece
                for g in runs.geometry[runs["side"] == "downslope"]
                for part in line_parts(shapely.intersection(g, poly))
                for piece in split_at_kinks(part, self.rules.max_turn_deg)  # a corner is two rows
            ]
            face = max(pieces, key=lambda g: g.length, default=None)
            if face is not None and face.length * self.dem.ft_per_unit >= self.rules.min_piece_ft:
                out.append(("interior", face))
        return out

    def _stand_ins(
        self, poly: BaseGeometry, lines: list[tuple[str, Any]], gaps: list[RowGap]
    ) -> tuple[list[tuple[str, Any]], list[dict[str, Any]]]:
        """Rows out of proportion dropped, phase by phase (:meth:`_in_proportion`); then the ground still
        over DNR 1056's length above the fences (:func:`slope_length_excess`, the measure ``check``
        applies) as stand-in areas drawn as a crew lays them, one piece per phase, each with its reason.
        """
        lines, dropped = self._in_proportion(poly, lines)
        barriers = shapely.union_all([g for _side, g in lines]) if lines else None
        got = slope_length_excess(
            poly, self.dem, self.fg, barriers, self.table, geometry=True, built=self.built
        )
        if got.get("geometry") is None:
            return lines, []
        out = []
        for part in self._stand_in_ground(poly, got["geometry"], barriers):
            for piece, _key in self._by_phase(part):
                why = next((w for g, w in dropped if piece.intersection(g).area > 0.5 * piece.area), None)
                out.append(
                    {
                        "geometry": piece,
                        "kind": "proportion" if why else "row",
                        "stand_in_for": "interior silt fence rows (DNR 1056): "
                        + (why or _gap_reason(piece, gaps, self.table, self.dem.ft_per_unit)),
                    }
                )
        return lines, out

    def _in_proportion(
        self, poly: BaseGeometry, lines: list[tuple[str, Any]]
    ) -> tuple[list[tuple[str, Any]], list[tuple[Any, str]]]:
        """The fence lines with the interior rows of each phase (or of the whole polygon, without phases)
        whose rows total more than the profile's ratio times its perimeter dropped; and each such ground
        with why (rows are built phase by phase: a phase's rows go in when it opens).
        """
        assert self.rules is not None
        fpu = self.dem.ft_per_unit
        rows = [g for side, g in lines if side == "interior"]
        dropped: list[tuple[Any, str]] = []
        for key, ground in self._units(poly):
            rows_ft = sum(shapely.intersection(r, ground).length for r in rows) * fpu
            perimeter_ft = ground.boundary.length * fpu
            if perimeter_ft > 0 and rows_ft > self.rules.max_perimeter_ratio * perimeter_ft:
                where, whose = (
                    (f"in phase {key} ", f"phase {key}'s") if key is not None else ("", "the area's")
                )
                times = f"{rows_ft / perimeter_ft:.1f} times {whose} {perimeter_ft:,.0f} ft perimeter"
                dropped.append(
                    (
                        ground,
                        f"interior rows {where}would total {rows_ft:,.0f} ft, {times} (over the profile's "
                        f"{self.rules.max_perimeter_ratio:g}): out of proportion to build and keep up",
                    )
                )
        if not dropped:
            return lines, []
        cut = shapely.union_all([g for g, _ in dropped])
        keep = [(side, g) for side, g in lines if side != "interior"]
        for r in rows:
            keep += [
                ("interior", p)
                for p in line_parts(shapely.difference(r, cut))
                if p.length * fpu >= self.rules.min_piece_ft
            ]
        return keep, dropped

    def _units(self, poly: BaseGeometry) -> list[tuple[str | None, Any]]:
        """The grounds rows are built on together: each phase's ground within ``poly``, or ``poly`` whole."""
        units: list[tuple[str | None, Any]] = []
        for k, g in self.phases:
            ground = shapely.intersection(g, poly)
            if not ground.is_empty and ground.area > 0.01 * poly.area:
                units.append((k, ground))
        return units or [(None, poly)]

    def _by_phase(self, part: BaseGeometry) -> list[tuple[Any, str | None]]:
        """``part`` cut at the phases' edges (each piece laid with its phase), or whole without phases."""
        if not self.phases:
            return [(part, None)]
        out: list[tuple[Any, str | None]] = []
        rest = part
        for k, g in self.phases:
            piece = shapely.intersection(rest, g)
            rest = shapely.difference(rest, g)
            out += [(p, k) for p in shapely.get_parts(piece) if p.geom_type == "Polygon" and p.area > 0]
        out += [(p, None) for p in shapely.get_parts(rest) if p.geom_type == "Polygon" and p.area > 0]
        return out

    def _stand_in_ground(
        self, poly: BaseGeometry, over: BaseGeometry, barriers: BaseGeometry | None
    ) -> list[Any]:
        """Where a stand-in goes: the cells over the length (``over``) and a cell around them, inside
        ``poly``, never on an obstacle (a house, a road, a drive, a pile, a trap) nor on a fence's own
        ground (the cells the measure stops at, within three quarters of a cell of it: one or the other,
        never both), drawn as a crew lays it (:func:`geosite.controls.drafted.drafted_area`); pieces left of
        the margin alone, holding no part of an over-length cell, are dropped.
        """
        from geosite.controls.drafted import drafted_area

        cell = max(abs(self.dem.transform.a), abs(self.dem.transform.e))
        area = shapely.intersection(over.buffer(cell, join_style="mitre"), poly)
        allowed = poly
        if self.obst is not None and len(self.obst):
            allowed = shapely.difference(allowed, shapely.union_all(self.obst.geometry.values))
        if barriers is not None:
            allowed = shapely.difference(allowed, barriers.buffer(0.75 * cell))
        core = over.buffer(-0.25 * cell, join_style="mitre")
        return drafted_area(area, allowed, cell=cell, ft_per_unit=self.dem.ft_per_unit, must=core)


def _gap_reason(area: BaseGeometry, gaps: list[RowGap], table: Any, fpu: float) -> str:
    """Why no row serves ``area``: the unbuilt row nearest it (within the table's longest slope length)."""
    reach = max(float(r[1]) for r in table) / fpu
    near = [(area.distance(g), layer, oid) for g, layer, oid in gaps if area.distance(g) <= reach]
    if not near:
        return "no row on the contour keeps the slope above the next fence within the standard's length here"
    _d, layer, _oid = min(near, key=lambda t: t[0])
    noun = OBSTACLE_NOUNS.get(layer, layer.replace("_", " "))
    what = (
        WHY_NOT_BUILT.get(layer) or f"the row would cross {noun}: {STAND_INS.get(layer, STAND_INS['short'])}"
    )
    return f"the row here is not built ({what})"


#: An obstacle's layer as a reason names it (the map shows which one: a note groups the stand-ins by kind).
OBSTACLE_NOUNS: dict[str, str] = {
    "structures": "a structure",
    "stockpiles": "a stockpile",
    "access_drives": "a drive",
    "roads": "a road",
    "streams": "a stream",
    "lakes": "a lake",
    "wetlands": "a wetland",
    "channels": "a channel",
    "sediment_trap": "a sediment trap of the plan",
}


def crew_rows(
    rows: list[LineString], obstacles: Any, rules: RowRules, *, clearance: float, ft_per_unit: float
) -> tuple[list[LineString], list[RowGap]]:
    """Interior rows a crew can build (``rules``): closed loops dropped, rows cut at turns sharper than
    ``rules.max_turn_deg``, then cut at obstacles (:func:`buildable_rows`, ``clearance`` CRS units) and
    pieces under ``rules.min_piece_ft`` dropped. Returns (rows, unbuilt pieces as (line, why, obstacle id))
    with why ``loop``, ``kink``, ``short`` or the obstacle's layer.
    """
    gaps: list[RowGap] = []
    open_rows: list[LineString] = []
    for row in rows:
        if row.is_closed or (
            len(row.coords) > 3
            and shapely.Point(row.coords[0]).distance(shapely.Point(row.coords[-1])) * ft_per_unit
            < rules.min_piece_ft
            and row.length * ft_per_unit > 3 * rules.min_piece_ft
        ):
            gaps.append(RowGap(row, "loop", None))
            continue
        open_rows += split_at_kinks(row, rules.max_turn_deg)
    kept, cut = buildable_rows(open_rows, obstacles, clearance, rules.min_piece_ft / ft_per_unit)
    return kept, gaps + cut


def split_at_kinks(row: LineString, max_turn_deg: float) -> list[LineString]:
    """``row`` cut at every vertex where it turns more than ``max_turn_deg`` from straight on."""
    xy = np.asarray(row.coords)[:, :2]
    if len(xy) < 3:
        return [row]
    d = np.diff(xy, axis=0)
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0]))
    turn = np.abs((np.diff(ang) + 180.0) % 360.0 - 180.0)
    cuts = np.flatnonzero(turn > max_turn_deg) + 1  # vertex indices
    out, start = [], 0
    for k in [*cuts.tolist(), len(xy) - 1]:
        if k - start >= 1:
            out.append(LineString(xy[start : k + 1]))
        start = k
    return [g for g in out if g.length > 0]


def _stand_in_frame(rows: list[dict[str, Any]], dem: Dem, out_crs: Any, fpu: float) -> gpd.GeoDataFrame:
    import geopandas as gpd

    cols = ("kind", "stand_in_for", "polygon_id")
    frame = gpd.GeoDataFrame(
        {c: [r[c] for r in rows] for c in cols}, geometry=[r["geometry"] for r in rows], crs=dem.crs
    )
    frame = grid.to_crs(frame, out_crs)
    frame["area_sqft"] = frame.geometry.area * fpu**2
    return frame


def row_stand_ins(fence: gpd.GeoDataFrame) -> gpd.GeoDataFrame | None:
    """The stand-in areas :func:`filter_fence` placed with ``row_rules`` (None without them)."""
    return fence.attrs.get("stand_in_areas")


def fence_summary(fence: gpd.GeoDataFrame) -> dict[str, float]:
    """Lengths (ft) by side: downslope, sideslope, hook, channel, interior; ``total_length_ft`` is the
    B(6)(c)[3] fence (downslope, sideslope and channel-edge runs with their end hooks); DNR 1056's interior
    rows come on top, in ``with_interior_length_ft``. Unclassified boundary stretches get no fence: their
    length is in the classified runs, not here.
    """
    out = {}
    for side in ("downslope", "sideslope", "hook", "channel", "interior"):
        out[f"{side}_length_ft"] = (
            float(fence.loc[fence["side"] == side, "length_ft"].sum()) if len(fence) else 0.0
        )
    out["total_length_ft"] = sum(out[f"{k}_length_ft"] for k in ("downslope", "sideslope", "hook", "channel"))
    out["with_interior_length_ft"] = out["total_length_ft"] + out["interior_length_ft"]
    # where an interior row cannot be built: not fence, what stands in for it (a row below, mat, phasing)
    out["interior_stand_in_length_ft"] = (
        float(fence.loc[fence["side"] == "stand_in", "length_ft"].sum()) if len(fence) else 0.0
    )
    return out


def _ft_per_unit(crs: Any, dem: Dem) -> float:
    from geosite.units import feet_per_crs_unit

    return dem.ft_per_unit if crs is None or crs.equals(dem.crs) else feet_per_crs_unit(crs, "layer")


def _phase_grounds(phases: gpd.GeoDataFrame | None, dem: Dem) -> list[tuple[str, Any]]:
    """Each phase's ground (its polygons dissolved, DEM CRS), in the order given; none without phases."""
    if phases is None or not len(phases) or "phase" not in phases.columns:
        return []
    gs = grid.to_crs(phases, dem.crs) if phases.crs is not None else phases
    keys = [str(k) for k in gs["phase"]]
    out = []
    for k in dict.fromkeys(keys):
        out.append(
            (k, shapely.union_all([g for g, x in zip(gs.geometry.values, keys, strict=True) if x == k]))
        )
    return out if len(out) > 1 else []  # one phase: the polygons are its ground


def _geoms_in_dem_crs(polygons: Any, dem: Dem) -> tuple[list[Any], list[Any], Any]:
    """(geometries in the DEM CRS, ids, the CRS results go back to)."""
    from shapely.geometry.base import BaseGeometry

    if isinstance(polygons, BaseGeometry):
        return [polygons], [1], dem.crs
    crs = polygons.crs or dem.crs
    gs = grid.to_crs(polygons, dem.crs)
    ids = (
        list(polygons["id"])
        if hasattr(polygons, "columns") and "id" in polygons.columns
        else list(range(1, len(polygons) + 1))
    )
    return list(gs.geometry), ids, crs


__all__ = [
    "BUILT_LAYERS",
    "STAND_IN_KINDS",
    "ROW_OBSTACLE_LAYERS",
    "RowGap",
    "STAND_INS",
    "RowRules",
    "buildable_rows",
    "crew_rows",
    "fence_summary",
    "filter_fence",
    "row_stand_ins",
    "split_at_kinks",
]
