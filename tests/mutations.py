"""Mutations of a plan folder (``geosite analyze``'s ``OUT/plan/``) for tests/test_plan_mutations.py: each
takes something a requirement asks for out of the plan (bmps features by type and practice text, the
``stabilized`` dates, a [declared] provision of site.toml, a sheet) or moves it where it no longer does the
job (a fence shifted upslope off the edge, a pad shortened, a basin moved off its outlet).

Every mutation edits the plan copy in place; the built sites of tests/test_round_trip.py fall south
(sitebuilder's ``ridge_plane``), so "upslope" there is north (+y, feet of EPSG:7593).
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Callable
from pathlib import Path

import geopandas as gpd
import pandas as pd
import shapely
from shapely import affinity
from sitebuilder import write_toml

Mutation = Callable[[Path], None]


#: the plan folder's controls, one layer per geometry family (geosite.views.plan_layers)
PARTS = {"Point": "bmps_points", "LineString": "bmps_lines", "Polygon": "bmps_polygons"}


def read_layer(plan: Path, layer: str) -> gpd.GeoDataFrame:
    """A layer of the plan's layers.gpkg (``bmps``: its three parts as one)."""
    gpkg = plan / "layers.gpkg"
    if layer != "bmps":
        return gpd.read_file(gpkg, layer=layer)
    frames = [gpd.read_file(gpkg, layer=name) for name in PARTS.values()]
    out = gpd.GeoDataFrame(pd.concat(frames, ignore_index=True), geometry="geometry", crs=frames[0].crs)
    # each control as the plan drew it: a one-part Multi* (the layer's declared type) as its part
    out["geometry"] = [
        g.geoms[0] if g is not None and hasattr(g, "geoms") and len(g.geoms) == 1 else g for g in out.geometry
    ]
    return out


def write_layer(plan: Path, layer: str, gdf: gpd.GeoDataFrame) -> None:
    """Replace a layer of the plan's layers.gpkg (``bmps``: each of its parts, by geometry family)."""
    gpkg = plan / "layers.gpkg"
    if layer != "bmps":
        gdf.to_file(gpkg, layer=layer, driver="GPKG")
        return
    families = [str(t).removeprefix("Multi") for t in gdf.geom_type]
    for family, name in PARTS.items():
        part = gdf[[f == family for f in families]]
        part.to_file(gpkg, layer=name, driver="GPKG", promote_to_multi=True, geometry_type=f"Multi{family}")


def _practice(bmps: gpd.GeoDataFrame, text: str) -> pd.Series:
    return bmps["practice"].fillna("").str.contains(text, regex=False)


def _pile(bmps: gpd.GeoDataFrame) -> pd.Series:
    return bmps["pile_id"].notna() if "pile_id" in bmps.columns else pd.Series(False, index=bmps.index)


def drop(*, types: tuple[str, ...] = (), practice: str | None = None, pile: bool | None = None) -> Mutation:
    """Remove the bmps features of ``types`` (all types when empty) whose practice contains ``practice``
    (any when None), tied to a pile (``pile`` True), not tied to one (False) or either (None)."""

    def mutate(plan: Path) -> None:
        bmps = read_layer(plan, "bmps")
        hit = bmps["type"].isin(types) if types else pd.Series(True, index=bmps.index)
        if practice is not None:
            hit &= _practice(bmps, practice)
        if pile is not None:
            hit &= _pile(bmps) == pile
        assert hit.any(), f"nothing to remove: {types} {practice!r} pile={pile}"
        write_layer(plan, "bmps", bmps[~hit])

    return mutate


def drop_nearest(bmp_type: str, layer: str) -> Mutation:
    """Remove the one bmps feature of ``bmp_type`` nearest the first feature of ``layer`` (one inlet's
    protection)."""

    def mutate(plan: Path) -> None:
        bmps = read_layer(plan, "bmps")
        target = read_layer(plan, layer).geometry.iloc[0]
        of = bmps[bmps["type"] == bmp_type]
        assert len(of), f"no {bmp_type} in the plan"
        write_layer(plan, "bmps", bmps.drop(index=of.distance(target).idxmin()))

    return mutate


def shift(*, bmp_type: str, practice: str | None = None, dx: float = 0.0, dy: float = 0.0) -> Mutation:
    """Move the bmps features of ``bmp_type`` (whose practice contains ``practice``) by (dx, dy) ft."""

    def mutate(plan: Path) -> None:
        bmps = read_layer(plan, "bmps")
        hit = bmps["type"] == bmp_type
        if practice is not None:
            hit &= _practice(bmps, practice)
        assert hit.any(), f"nothing to move: {bmp_type} {practice!r}"
        moved = bmps.geometry.copy()
        moved[hit] = [affinity.translate(g, dx, dy) for g in bmps.geometry[hit]]
        write_layer(plan, "bmps", bmps.set_geometry(moved))

    return mutate


def turn_down(*, bmp_type: str, practice: str) -> Mutation:
    """Turn each line of ``bmp_type`` whose practice contains ``practice`` (the end hooks) about its
    first point by 180 deg: a hook that climbed from the fence's end now runs down the slope from it."""

    def mutate(plan: Path) -> None:
        bmps = read_layer(plan, "bmps")
        hit = (bmps["type"] == bmp_type) & _practice(bmps, practice)
        assert hit.any(), f"nothing to turn: {bmp_type} {practice!r}"
        turned = bmps.geometry.copy()
        turned[hit] = [affinity.rotate(g, 180.0, origin=g.coords[0]) for g in bmps.geometry[hit]]
        write_layer(plan, "bmps", bmps.set_geometry(turned))

    return mutate


def shorten_pad(length_ft: float) -> Mutation:
    """Cut each tracking pad to ``length_ft`` along its drive from the road (the built lots' drives run
    north from a road at their south end)."""

    def mutate(plan: Path) -> None:
        bmps = read_layer(plan, "bmps")
        pads = bmps["type"] == "tracking_pad"
        assert pads.any(), "no tracking pad"
        cut = bmps.geometry.copy()
        for i in bmps.index[pads]:
            x0, y0, x1, _y1 = bmps.geometry[i].bounds
            cut[i] = shapely.box(x0, y0, x1, y0 + length_ft)
        write_layer(plan, "bmps", bmps.set_geometry(cut))

    return mutate


def stabilized(days_after_end: int | None) -> Mutation:
    """Set every disturbance polygon's ``stabilized`` date to its end plus ``days_after_end`` days, or
    remove the dates (None): then the cover controls' install dates go too, the plan's other way of
    dating its stabilization (geosite.practices.stabilization.stabilized_on)."""

    def mutate(plan: Path) -> None:
        dist = read_layer(plan, "disturbance")
        assert "stabilized" in dist.columns, "no stabilized dates in the plan"
        if days_after_end is None:
            dist["stabilized"] = pd.Series([None] * len(dist), index=dist.index, dtype=object)
            bmps = read_layer(plan, "bmps")
            covers = bmps["type"].isin(("stabilization", "erosion_mat"))
            if covers.any():
                bmps["install"] = bmps["install"].astype(object).where(~covers, None)
                write_layer(plan, "bmps", bmps)
        else:
            ends = pd.to_datetime(dist["end"].astype(str))
            dist["stabilized"] = [(e + dt.timedelta(days=days_after_end)).date().isoformat() for e in ends]
        write_layer(plan, "disturbance", dist)

    return mutate


def edit_toml(change: Callable[[dict], None]) -> Mutation:
    """Rewrite the plan's site.toml after ``change`` edits its parsed content."""

    def mutate(plan: Path) -> None:
        conf = tomllib.loads((plan / "site.toml").read_text(encoding="utf-8"))
        change(conf)
        write_toml(plan / "site.toml", conf)

    return mutate


def undeclare(key: str) -> Mutation:
    """Remove ``key`` from site.toml's [declared]."""

    def change(conf: dict) -> None:
        assert key in conf.get("declared", {}), f"[declared] {key} not in the plan"
        del conf["declared"][key]

    return edit_toml(change)


def declare(**values: object) -> Mutation:
    """Set [declared] values in site.toml (a sheet named that the folder does not hold, say)."""

    def change(conf: dict) -> None:
        conf.setdefault("declared", {}).update(values)

    return edit_toml(change)


def project(**values: object) -> Mutation:
    """Set [project] values in site.toml (dewatering declared, say)."""

    def change(conf: dict) -> None:
        conf.setdefault("project", {}).update(values)

    return edit_toml(change)


def both(*mutations: Mutation) -> Mutation:
    """The mutations one after another."""

    def mutate(plan: Path) -> None:
        for m in mutations:
            m(plan)

    return mutate


def narrow_pad(fraction: float) -> Mutation:
    """Cut each tracking pad to ``fraction`` of its width across the drive (the built lots' drives run
    north, so across is east-west)."""

    def mutate(plan: Path) -> None:
        bmps = read_layer(plan, "bmps")
        pads = bmps["type"] == "tracking_pad"
        assert pads.any(), "no tracking pad"
        cut = bmps.geometry.copy()
        for i in bmps.index[pads]:
            x0, y0, x1, y1 = bmps.geometry[i].bounds
            cut[i] = shapely.box(x0, y0, x0 + fraction * (x1 - x0), y1)
        write_layer(plan, "bmps", bmps.set_geometry(cut))

    return mutate


def set_column(layer: str, column: str, value: object) -> Mutation:
    """Set ``column`` of every feature of ``layer`` to ``value`` (None clears it)."""

    def mutate(plan: Path) -> None:
        gdf = read_layer(plan, layer)
        assert column in gdf.columns, f"{layer} has no {column}"
        gdf[column] = pd.Series([value] * len(gdf), index=gdf.index, dtype=object)
        write_layer(plan, layer, gdf)

    return mutate


def bmps_removed_after_start(days: int) -> Mutation:
    """Date every bmps feature's removal ``days`` after the earliest disturbance starts (long before the
    ground it serves is stabilized)."""

    def mutate(plan: Path) -> None:
        dist = read_layer(plan, "disturbance")
        first = min(pd.to_datetime(dist["start"].astype(str)))
        bmps = read_layer(plan, "bmps")
        bmps["remove"] = (first + dt.timedelta(days=days)).date().isoformat()
        write_layer(plan, "bmps", bmps)

    return mutate


def undeclare_table(table: str) -> Mutation:
    """Remove a whole table of site.toml ([maintainer], say)."""

    def change(conf: dict) -> None:
        assert table in conf, f"no [{table}] in the plan"
        del conf[table]

    return edit_toml(change)


def retype(old: str, new: str) -> Mutation:
    """Give the bmps features of type ``old`` the type ``new`` (a basin drawn as a trap, say)."""

    def mutate(plan: Path) -> None:
        bmps = read_layer(plan, "bmps")
        hit = bmps["type"] == old
        assert hit.any(), f"no {old} in the plan"
        bmps.loc[hit, "type"] = new
        write_layer(plan, "bmps", bmps)

    return mutate
