"""Validation of the submitted geometry, beyond what ``load_site`` refuses outright.

- invalid polygons repaired with ``--make-valid``: one **fail** per feature, with its geometry as
  submitted (without ``--make-valid`` load_site refuses them: exit 2);
- slivers: polygons under ``sliver_area_sqft`` or with a mean width (2 x area / perimeter) under
  ``sliver_width_ft``: **fail**;
- duplicates: identical geometries within a layer: **fail**;
- a layer entirely beyond the site and ``overlap_margin_ft`` around it (wrong CRS or coordinates): **fail**;
- a layer whose file CRS is a projected CRS other than the ``crs`` declared in site.toml: **fail**
  (a geographic file CRS, as GeoJSON must use, is reprojected and reported as **info**);
- the site CRS differs from the profile's ``[jurisdiction] expected_crs``: **info** (the chapter names no
  coordinate system and every length is measured in feet after reprojection);
- BMPs drawn entirely outside the site (beyond ``bmp_outside_tolerance_ft``): **fail**; a trap or basin
  (``sediment_basin_types``) drawn at its size whose footprint reaches past the site and that tolerance:
  **fail**, the same rule, with the sq ft outside and how far beyond (digging on land the plan does not
  cover). A trap or basin submitted as a point is judged as any BMP.

Thresholds come from the profile's ``[submission]`` table.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import shapely
from pyproj import CRS

from geosite.io.output import py_scalar
from geosite.practices import registry
from geosite.review.findings import ReviewFinding

if TYPE_CHECKING:
    from geosite.rules import Profile
    from geosite.site import Site

SECTION = "Submitted data: geometry and coordinate systems"


def _v(profile: Profile, key: str) -> float:
    """The ``[submission]`` number ``key`` (every profile gives it: the schema's REQUIRED_ENTRIES)."""
    return float(profile.required("submission", key))


def _cite(profile: Profile, key: str) -> str:
    e = profile.entry("submission", key)
    return e.citation if e is not None else ""


def read_raw_layers(site: Site, conf: dict[str, Any]) -> dict[str, gpd.GeoDataFrame]:
    """The layers as submitted (before reprojection and repair), keyed by geosite layer name."""
    from geosite.site import read_layers

    if site.root is None:
        return {}
    raw = read_layers(site.root, conf.get("layers", {}) or {}, [], [])
    return {k: gdf for k, (gdf, _src) in raw.items()}


def check_geometry(
    site: Site,
    profile: Profile,
    raw: dict[str, gpd.GeoDataFrame],
    declared_crs: str | None,
    citation_for_layer: dict[str, str] | None = None,
) -> list[ReviewFinding]:
    """Findings on the submitted geometry (see the module docstring)."""
    chk = _GeometryCheck(site, profile, citation_for_layer or {})
    chk.crs(raw, declared_crs)
    chk.repaired(raw)
    for lname, gdf in site.layers.items():
        if not len(gdf):
            continue
        chk.slivers(lname, gdf)
        chk.duplicates(lname, gdf)
        if lname != "site_boundary":
            chk.off_site(lname, gdf)
    chk.bmps_outside()
    return chk.out


@dataclass
class _GeometryCheck:
    """The geometry findings of one site, gathered in ``out``."""

    site: Site
    profile: Profile
    cites: dict[str, str]
    out: list[ReviewFinding] = field(default_factory=list)

    @property
    def fpu(self) -> float:
        """Feet per unit of the site's CRS."""
        return float(self.site.ft_per_unit)

    def add(
        self,
        rule: str,
        status: str,
        msg: str,
        *,
        layer: str | None = None,
        ids: Any = (),
        geometry: Any = None,
        citation: str = "",
        **kw: Any,
    ) -> None:
        """One finding of this section (its citation: ``citation``, else the layer's)."""
        self.out.append(
            ReviewFinding(
                rule=rule,
                citation=citation or self.cites.get(layer or "", ""),
                section=SECTION,
                status=status,
                message=msg,
                layer=layer,
                feature_ids=[py_scalar(i) for i in ids],
                geometry=geometry,
                **kw,
            )
        )

    def crs(self, raw: dict[str, gpd.GeoDataFrame], declared_crs: str | None) -> None:
        """The site CRS against the profile's expected one; each layer's against the declared one."""
        site, profile, add = self.site, self.profile, self.add
        # CRS
        expected = profile.jurisdiction.expected_crs
        if expected:
            exp = CRS.from_user_input(expected)
            if not site.crs.equals(exp):
                add(
                    "crs.expected",
                    "info",
                    f"The site CRS is {site.crs.name}, not the {exp.name} ({expected}) this jurisdiction "
                    "expects; layers were measured in feet after reprojection.",
                    requirement=f"{expected} ({exp.name}) expected by the profile",
                )
        decl = CRS.from_user_input(declared_crs) if declared_crs else None
        for lname, gdf in raw.items():
            if decl is None or gdf.crs is None or gdf.crs.equals(decl):
                continue
            if gdf.crs.is_geographic:
                add(
                    "crs.layer_reprojected",
                    "info",
                    f"Layer {lname} is in {gdf.crs.name} (degrees); reprojected to the declared {decl.name}.",
                    layer=lname,
                )
            else:
                add(
                    "crs.layer_contradicts_declared",
                    "fail",
                    f"Layer {lname} is in {gdf.crs.name}, which contradicts the crs declared in site.toml "
                    f"({decl.name}); "
                    "geosite reprojected it, but the plan's layers must agree with the declared system "
                    "(or the declaration is wrong).",
                    layer=lname,
                    requirement=f"every layer in the declared CRS {decl.name}",
                    submitted=gdf.crs.name,
                )

    def repaired(self, raw: dict[str, gpd.GeoDataFrame]) -> None:
        """Invalid polygons repaired with --make-valid."""
        site, add, fpu = self.site, self.add, self.fpu
        # invalid polygons repaired with --make-valid
        for lname, gdf in raw.items():
            site_gdf = site.layers.get(lname)
            if site_gdf is None or len(gdf) != len(site_gdf) or not len(gdf):
                continue
            geom = gdf.geometry.values
            bad = ~np.asarray(shapely.is_valid(geom)) & ~np.asarray(
                shapely.is_missing(geom) | shapely.is_empty(geom)
            )
            if not bad.any():
                continue
            g_site = (
                gdf.geometry if gdf.crs is None or gdf.crs.equals(site.crs) else gdf.geometry.to_crs(site.crs)
            )
            for i in np.flatnonzero(bad):
                fid = py_scalar(site_gdf["id"].iloc[i])
                reason = shapely.is_valid_reason(geom[i])
                before = g_site.iloc[i]
                after = site_gdf.geometry.iloc[i]
                add(
                    "geometry.invalid_repaired",
                    "fail",
                    f"{lname} {fid}: invalid polygon ({reason}); repaired with --make-valid for the "
                    f"measurements ({abs(before.area) * fpu**2:,.0f} sq ft as drawn, "
                    f"{after.area * fpu**2:,.0f} sq ft repaired); a corrected polygon is needed.",
                    layer=lname,
                    ids=[fid],
                    geometry=before,
                    values={"reason": reason, "repaired_area_sqft": after.area * fpu**2},
                    requirement="valid polygons (no self-intersections)",
                    submitted=reason,
                )

    def slivers(self, lname: str, gdf: gpd.GeoDataFrame) -> None:
        """Sliver polygons: a digitizing error."""
        profile, add, fpu = self.profile, self.add, self.fpu
        geoms, ids = gdf.geometry.values, gdf["id"].to_numpy()
        # slivers
        poly = np.isin(shapely.get_type_id(geoms), (3, 6))
        if poly.any():
            area = shapely.area(geoms) * fpu**2
            perim = shapely.length(geoms) * fpu
            width = np.where(perim > 0, 2.0 * area / np.where(perim > 0, perim, 1.0), 0.0)
            amin, wmin = _v(profile, "sliver_area_sqft"), _v(profile, "sliver_width_ft")
            for i in np.flatnonzero(poly & ((area < amin) | (width < wmin))):
                add(
                    "geometry.sliver",
                    "fail",
                    f"{lname} {py_scalar(ids[i])}: sliver polygon ({area[i]:,.1f} sq ft, mean width "
                    f"{width[i]:,.2f} ft; "
                    f"slivers are under {amin:g} sq ft or {wmin:g} ft wide): a digitizing error to remove or "
                    "redraw.",
                    layer=lname,
                    ids=[ids[i]],
                    geometry=geoms[i],
                    values={"area_sqft": float(area[i]), "mean_width_ft": float(width[i])},
                    requirement=f"polygons of {amin:g} sq ft or more and {wmin:g} ft or more wide",
                    submitted=f"{area[i]:,.1f} sq ft, {width[i]:,.2f} ft wide on average",
                )

    def duplicates(self, lname: str, gdf: gpd.GeoDataFrame) -> None:
        """Identical geometries in one layer."""
        add = self.add
        geoms, ids = gdf.geometry.values, gdf["id"].to_numpy()
        # duplicates
        keys = shapely.to_wkb(shapely.normalize(geoms))
        groups: dict[bytes, list[int]] = defaultdict(list)
        for j, k in enumerate(keys):
            groups[k].append(j)
        for idx in groups.values():
            if len(idx) > 1:
                dup = [py_scalar(ids[i]) for i in idx]
                add(
                    "geometry.duplicate",
                    "fail",
                    f"{lname} {', '.join(map(str, dup))}: identical geometries (counted once in areas, but "
                    f"the plan lists them {len(idx)} times).",
                    layer=lname,
                    ids=dup,
                    geometry=geoms[idx[0]],
                    requirement="each feature drawn once",
                    submitted=f"{len(idx)} identical geometries",
                )

    def off_site(self, lname: str, gdf: gpd.GeoDataFrame) -> None:
        """A layer lying entirely beyond the site and its margin."""
        profile, add, fpu, boundary = self.profile, self.add, self.fpu, self.site.boundary
        geoms, ids = gdf.geometry.values, gdf["id"].to_numpy()
        margin = _v(profile, "overlap_margin_ft")
        zone = boundary.buffer(margin / fpu)
        if not shapely.intersects(shapely.union_all(geoms), zone):
            d = shapely.union_all(geoms).distance(boundary) * fpu
            add(
                "geometry.layer_off_site",
                "fail",
                f"Layer {lname} lies entirely beyond the site and {margin:g} ft around it ({d:,.0f} ft "
                "away): wrong coordinates or CRS.",
                requirement=f"the layer on the site or within {margin:g} ft of it",
                submitted=f"the nearest feature {d:,.0f} ft from the site",
                layer=lname,
                ids=list(ids),
                geometry=shapely.union_all(geoms),
                citation=_cite(profile, "overlap_margin_ft"),
                values={"distance_ft": d},
            )

    def bmps_outside(self) -> None:
        """BMPs drawn outside the site (but not one at what it protects just beyond the boundary)."""
        site, profile, add, fpu, boundary = self.site, self.profile, self.add, self.fpu, self.site.boundary
        # BMPs outside the site
        bmps = site.layer("bmps")
        if bmps is not None:
            tol = _v(profile, "bmp_outside_tolerance_ft")
            zone = boundary.buffer(tol / fpu)
            outside = ~np.asarray(shapely.intersects(bmps.geometry.values, zone))
            # a BMP at the thing it protects just beyond the boundary (inlet protection at a street inlet, a
            # tracking pad at the road) is where it belongs
            for i in np.flatnonzero(outside):
                kind0 = str(bmps["type"].iloc[i]).strip().lower() if "type" in bmps.columns else ""
                practice = registry.named(kind0)
                near = [site.layer(n) for n in (practice.stands_at if practice else ())]
                if any(
                    g is not None
                    and bmps.geometry.iloc[i].distance(shapely.union_all(g.geometry.values)) * fpu <= tol
                    for g in near
                ):
                    outside[i] = False
            for i in np.flatnonzero(outside):
                g = bmps.geometry.iloc[i]
                kind = bmps["type"].iloc[i] if "type" in bmps.columns else "BMP"
                add(
                    "geometry.bmp_outside_site",
                    "fail",
                    f"bmps {py_scalar(bmps['id'].iloc[i])} ({kind}) is drawn outside the site "
                    f"({g.distance(boundary) * fpu:,.0f} ft beyond its boundary).",
                    layer="bmps",
                    ids=[bmps["id"].iloc[i]],
                    geometry=g,
                    values={"distance_ft": g.distance(boundary) * fpu},
                    requirement="each control drawn on the site (or beside it where its practice stands)",
                    submitted=f"drawn {g.distance(boundary) * fpu:,.0f} ft beyond the site's boundary",
                )
            self.footprints_beyond(bmps, zone, skip=outside)

    def footprints_beyond(self, bmps: gpd.GeoDataFrame, zone: Any, *, skip: np.ndarray) -> None:
        """Submitted traps and basins (the practices of the trap family) drawn at their size whose
        footprint reaches past the site and its tolerance ``zone``: part of the digging is off the site.
        ``skip``: the features already found wholly outside it.
        """
        if "type" not in bmps.columns:
            return
        boundary, fpu = self.site.boundary, self.fpu
        kinds = registry.catalogue().of("trap")
        types = bmps["type"].astype(str).str.strip().str.lower()
        for i in np.flatnonzero(types.isin(list(kinds)).to_numpy() & ~skip):
            g = bmps.geometry.iloc[i]
            if g is None or g.is_empty or shapely.area(g) <= 0 or zone.covers(g):
                continue
            off = g.difference(boundary)
            beyond = (
                float(shapely.distance(shapely.points(shapely.get_coordinates(off)), boundary).max()) * fpu
            )
            off_sqft, sqft = off.area * fpu**2, g.area * fpu**2
            self.add(
                "geometry.bmp_outside_site",
                "fail",
                f"bmps {py_scalar(bmps['id'].iloc[i])} ({types.iloc[i]}) reaches beyond the site: "
                f"{off_sqft:,.0f} sq ft of its {sqft:,.0f} sq ft footprint lies outside the boundary, up to "
                f"{beyond:,.0f} ft beyond it (digging on land the plan does not cover).",
                layer="bmps",
                ids=[bmps["id"].iloc[i]],
                geometry=off,
                values={"distance_ft": beyond, "outside_sqft": off_sqft, "footprint_sqft": sqft},
                requirement="each trap's or basin's footprint on the site",
                submitted=f"{off_sqft:,.0f} sq ft of its {sqft:,.0f} sq ft footprint outside the boundary",
            )
