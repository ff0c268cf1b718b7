"""The Site: a site's layers in one projected CRS, its DEM reference, its people and project facts, and
what is derived from its layers once and kept (the site polygon, the disturbance union, their masks on
a DEM grid). Built by :func:`geosite.site.load_site` or :func:`geosite.site.site_from_frames`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

import geopandas as gpd
import numpy as np
import shapely
from pyproj import CRS
from shapely.geometry.base import BaseGeometry

from geosite.errors import CRSError
from geosite.io.limits import Limits
from geosite.io.vector import LAYERS
from geosite.units import VerticalUnit, feet_per_crs_unit, foot_name

PLAT_VALUES = ("none", "subdivision", "certified_survey")


@dataclass(frozen=True)
class Contact:
    """A person named on the plan: the applicant, or the person responsible for BMP maintenance."""

    name: str | None = None
    address: str | None = None
    phone: str | None = None

    @property
    def complete(self) -> bool:
        """Whether the name, address and phone are all given."""
        return bool(self.name and self.address and self.phone)


@dataclass(frozen=True)
class Project:
    """What the applicant declares about the work."""

    start: dt.date | None = None
    end: dt.date | None = None
    cut_cy: float | None = None
    fill_cy: float | None = None
    plat: str = "none"
    dewatering: bool | None = None
    state_funded: bool = False
    building_permit_days: int | None = None
    #: declared facts that take a site out of a chapter: the county or state supersedes the village's
    #: erosion control authority over these lands (Grantsburg's scope); the work is landscaping
    #: modifications only, which Belgium's definition of land disturbing activity leaves out
    authority_superseded: bool = False
    landscaping_only: bool = False

    @property
    def cut_fill_cy(self) -> float | None:
        """Excavation plus fill, cubic yards (A(4) counts 'excavation or filling or a combination')."""
        if self.cut_cy is None and self.fill_cy is None:
            return None
        return (self.cut_cy or 0.0) + (self.fill_cy or 0.0)


@dataclass
class Site:
    """A site ready for measurement: every layer in ``crs`` with an ``id`` column.

    The site polygon (:attr:`boundary`), the disturbance union and the disturbed area on the site, and
    their masks on a DEM grid (:meth:`mask_on`) are computed once and kept; replacing a layer in
    ``layers`` (a new GeoDataFrame) recomputes them, editing a layer's frame in place does not.
    """

    name: str
    jurisdiction: str
    crs: CRS
    layers: dict[str, gpd.GeoDataFrame]
    root: Path | None = None
    profile: Any = None  # the geosite.rules.Profile loaded for it (its file and hash), when known
    dem_path: Path | None = None
    dem_vertical_unit: VerticalUnit | None = None
    dem_array: Any = None  # a geosite.grid.Dem given directly (notebooks), instead of a path
    proposed_dem_path: Path | None = None  # the proposed (final) grade, same vertical unit as the DEM
    applicant: Contact = field(default_factory=Contact)
    maintainer: Contact = field(default_factory=Contact)
    project: Project = field(default_factory=Project)
    notes: list[str] = field(default_factory=list)
    input_warnings: list[Any] = field(default_factory=list)  # geosite.site.plausible.InputWarning records
    settings: dict[str, Any] = field(default_factory=dict)
    #: site.toml as parsed when the site was loaded (None for a site built in memory): what writes the plan
    #: folder reads instead of the file, so nothing opens the site folder again (a submission's above all)
    conf: dict[str, Any] | None = None
    limits: Limits = field(default_factory=Limits)  # what reading its files may cost (geosite.io.limits)
    inputs_root: Path | None = None  # the folder site.toml's files must stay in (None: allowed outside)
    dem_root: Path | None = None  # the folder a DEM VRT's sources must stay in (None: the caller's own DEM)
    _derived: dict[Any, tuple[tuple[int, ...], Any]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _kept(self, key: Any, layer_names: tuple[str, ...], compute: Any) -> Any:
        """``compute()``, kept under ``key`` while the named layers are the same frames."""
        token = tuple(id(self.layers.get(n)) for n in layer_names)
        hit = self._derived.get(key)
        if hit is not None and hit[0] == token:
            return hit[1]
        value = compute()
        self._derived[key] = (token, value)
        return value

    @property
    def boundary(self) -> BaseGeometry:
        """The site: the union of the site_boundary polygons."""
        return self._kept(
            "boundary",
            ("site_boundary",),
            lambda: shapely.union_all(self.layers["site_boundary"].geometry.values),
        )

    @property
    def disturbance_union(self) -> BaseGeometry | None:
        """The union of the disturbance polygons as drawn (overlaps once, not clipped), or None."""

        def union() -> BaseGeometry | None:
            """The union, computed."""
            gdf = self.layer("disturbance")
            return None if gdf is None else shapely.union_all(gdf.geometry.values)

        return self._kept("disturbance_union", ("disturbance",), union)

    @property
    def disturbed(self) -> BaseGeometry | None:
        """The disturbed area: the disturbance union clipped to the site, or None without disturbance."""

        def clipped() -> BaseGeometry | None:
            """The clipped union, computed."""
            u = self.disturbance_union
            return None if u is None else shapely.intersection(u, self.boundary)

        return self._kept("disturbed", ("site_boundary", "disturbance"), clipped)

    @property
    def disturbed_parts(self) -> list[tuple[Any, list[Any], BaseGeometry, Any]]:
        """The connected parts of the disturbed area, each as (id, the ids of the disturbance polygons in
        it, its polygon in the site CRS, the ``cover`` given to the polygon covering most of it). Grantsburg
        B(6)(a)'s "adjacent areas" lie outside the whole disturbed area: a polygon inside or beside another
        drains its neighbour's disturbed ground, not an adjacent area, so upslope areas and diversions are
        measured per part. A part's id is the first of its polygons' ids.
        """

        def parts() -> list[tuple[Any, list[Any], BaseGeometry, Any]]:
            """The parts, computed."""
            dist, whole = self.layer("disturbance"), self.disturbed
            if dist is None or whole is None or whole.is_empty:
                return []
            covers = list(dist["cover"]) if "cover" in dist.columns else [None] * len(dist)
            out = []
            for part in getattr(whole, "geoms", [whole]):
                if part.is_empty or part.geom_type != "Polygon":
                    continue
                shares = [
                    (shapely.area(shapely.intersection(g, part)), i, cv)
                    for i, g, cv in zip(dist["id"], dist.geometry, covers, strict=True)
                ]
                inside = [t for t in shares if t[0] > 0]
                if inside:
                    out.append(
                        (inside[0][1], [t[1] for t in inside], part, max(inside, key=lambda t: t[0])[2])
                    )
            return out

        return self._kept("disturbed_parts", ("site_boundary", "disturbance"), parts)

    @overload
    def mask_on(self, dem: Any, what: Literal["site"] = "site") -> np.ndarray: ...  # numpydoc ignore=GL08
    @overload
    def mask_on(self, dem: Any, what: str) -> np.ndarray | None: ...  # numpydoc ignore=GL08
    def mask_on(self, dem: Any, what: str = "site") -> np.ndarray | None:
        """The cells of ``dem`` in the site (``what="site"``) or the disturbed area (``"disturbed"``), by
        :func:`geosite.grid.rasterize`'s rule, in the DEM's CRS; None for "disturbed" without disturbance.
        """
        from geosite.grid import geom_to_crs, rasterize

        geom = {"site": lambda: self.boundary, "disturbed": lambda: self.disturbed}[what]
        key = ("mask", what, dem.shape, tuple(dem.transform)[:6], dem.crs.to_wkt())

        def compute() -> np.ndarray | None:
            """The mask, computed."""
            g = geom()
            return (
                None if g is None else rasterize(geom_to_crs(g, self.crs, dem.crs), dem.shape, dem.transform)
            )

        return self._kept(key, ("site_boundary", "disturbance"), compute)

    @property
    def ft_per_unit(self) -> float:
        """Feet per unit of the site CRS."""
        return feet_per_crs_unit(self.crs, f"site {self.name!r}")

    @property
    def foot(self) -> str:
        """The name of the site CRS's foot (US survey or international)."""
        return foot_name(self.crs)

    def map_margin_ft(self, profile: Any = None) -> float:
        """Feet around the site that the maps show and the analysis clips its layers to: site.toml's
        ``map_margin_ft``, else ``profile``'s (default: the profile it was loaded with); a
        :class:`~geosite.errors.ProfileError` when there is neither (the chapter's margin is never a code
        default).
        """
        if "map_margin_ft" in self.settings:
            return float(self.settings["map_margin_ft"])
        prof = profile if profile is not None else self.profile
        if prof is None:
            from geosite.errors import ProfileError

            raise ProfileError(
                f"site {self.name}: no profile and no map_margin_ft in site.toml: the feet shown around the "
                "site are the jurisdiction's (load the site with its jurisdiction)"
            )
        return float(prof.map_margin_ft)

    def layer(self, name: str) -> gpd.GeoDataFrame | None:
        """The layer, or None when the site does not have it (or it has no features)."""
        gdf = self.layers.get(name)
        return gdf if gdf is not None and len(gdf) else None

    @property
    def missing_layers(self) -> list[str]:
        """The geosite layers the site does not have."""
        return [n for n in LAYERS if n not in self.layers]

    def read_proposed_on(self, dem):
        """The proposed-grade DEM resampled (bilinear) onto ``dem``'s grid, heights in feet (NaN where it
        has none), or None when the site has no proposed grade.
        """
        import numpy as np
        from rasterio.warp import Resampling, reproject

        from geosite.io.raster import open_raster, read_heights

        if self.proposed_dem_path is None or dem is None:
            return None
        with open_raster(self.proposed_dem_path, "proposed-grade DEM", self.inputs_root, self.limits) as src:
            self.limits.check_read(f"proposed-grade DEM {self.proposed_dem_path}", src.width, src.height)
            if src.crs is None:
                raise CRSError(
                    f"proposed-grade DEM {self.proposed_dem_path}: has no CRS; assign one before use"
                )
            z = read_heights(src)
            out = np.full(dem.shape, np.nan)
            reproject(
                z,
                out,
                src_transform=src.transform,
                src_crs=src.crs,
                src_nodata=np.nan,
                dst_transform=dem.transform,
                dst_crs=dem.crs,
                dst_nodata=np.nan,
                resampling=Resampling.bilinear,
            )
        return out * dem.ft_per_vertical_unit

    def read_dem(self, *, margin_ft: float | None):
        """The DEM window covering the site plus ``margin_ft`` (a :class:`~geosite.grid.Dem`; the whole
        DEM when ``margin_ft`` is None), or None when the site has no DEM. The map margin is the site's
        (``site.read_dem(margin_ft=site.map_margin_ft())``: site.toml's, else the profile's).
        """
        from geosite.grid import bounds_in
        from geosite.io.raster import raster_crs, read_dem

        if self.dem_array is not None:
            return self.dem_array
        if self.dem_path is None:
            return None
        if margin_ft is None:
            return read_dem(self.dem_path, self.dem_vertical_unit, limits=self.limits, root=self.dem_root)
        bounds = bounds_in(
            self.boundary.bounds,
            margin_ft / self.ft_per_unit,
            self.crs,
            raster_crs(self.dem_path, self.dem_root, self.limits),
        )
        return read_dem(
            self.dem_path, self.dem_vertical_unit, bounds=bounds, limits=self.limits, root=self.dem_root
        )
