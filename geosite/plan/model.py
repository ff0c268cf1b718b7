"""The plan of one site: its controls (each with its practice, status, dates, geometry and quantity), its
phases and piles, and the findings, as one object every view is drawn from (the sheets, derived.gpkg, the
plan folder's layers, the DXF, the reports and the quantity table).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import geopandas as gpd

if TYPE_CHECKING:
    from shapely.geometry.base import BaseGeometry

    from geosite.rules import Finding, Profile
    from geosite.site import Site
    from geosite.symbols import Symbol

#: a control's status: what geosite proposes, or what a submission shows
STATUSES = ("proposed", "submitted")
#: the attributes a control may carry beside its own fields (the columns of the plan's layers), with their
#: types: the side of a fence, the pile or drive it serves, a trap's drainage and surface, a stand-in's
#: method and what it stands in for, and a note the sheets print beside it (a trap with no room on the site)
ATTRIBUTES: dict[str, str] = {
    "side": "str",
    "pile_id": "int",
    "drive_id": "int",
    "drainage_acres": "float",
    "surface_sqft": "float",
    "storage_cy": "float",
    "method": "str",
    "stand_in_for": "str",
    "note": "str",
}
#: the measured size every control carries (from its geometry, US survey feet): what its pay item counts
SIZES: dict[str, str] = {"length_ft": "float", "area_sqft": "float"}


#: the columns of a plan's controls (:meth:`Plan.frame`, the plan folder's ``bmps`` layers), with their types
COLUMNS: dict[str, str] = {
    "id": "int",
    "type": "str",
    "practice": "str",
    "standard": "str",
    "name": "str",
    "phase": "str",
    "install": "date",
    "remove": "date",
    **ATTRIBUTES,
    **SIZES,
}


@dataclass(frozen=True)
class Control:
    """One control of the plan: its number, its practice (a :mod:`geosite.practices` name, the ``bmps``
    ``type``), whether geosite proposes it or the submission shows it, its geometry (site CRS), what it is
    in words, its standard, its name (a submitted feature's), the phase it serves, its install and remove
    dates, and its practice's own attributes (:data:`ATTRIBUTES`).
    """

    id: int
    practice: str
    status: str
    geometry: BaseGeometry
    what: str = ""
    standard: str = ""
    name: str | None = None
    phase: str | None = None
    install: dt.date | None = None
    remove: dt.date | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def family(self) -> str:
        """The geometry family it is drawn as: ``point``, ``line`` or ``polygon``."""
        t = self.geometry.geom_type
        return "polygon" if "Polygon" in t else "line" if "LineString" in t else "point"

    def get(self, key: str, default: Any = None) -> Any:
        """Attribute ``key`` (``default`` when the control does not carry it)."""
        v = self.attrs.get(key)
        return default if v is None else v

    @property
    def tag(self) -> str:
        """The control's tag on the sheets and in the schedule: ``C`` and its number (``C7``)."""
        return f"C{self.id}"

    def symbol(self) -> Symbol:
        """How the control is drawn (its practice's :meth:`~geosite.practices.base.Practice.symbol`; a
        type no practice has, in the submitted green as a plain line, area or point).
        """
        from geosite.practices import registry
        from geosite.symbols import Symbol, submitted_look

        p = registry.named(self.practice)
        if p is None:
            look = submitted_look(self.practice or "bmp", {}, self.family)
            return Symbol(f"{self.practice}_{self.status}_{self.family}", look)
        return p.symbol(self.family, self.attrs, self.status)


@dataclass(frozen=True)
class Phase:
    """One phase of the disturbance: its key (the ``phase`` attribute, else the polygon's id), its polygons'
    union (site CRS), its start and end dates and when its ground is stabilized, its area (sq ft).
    """

    key: str
    geometry: BaseGeometry
    start: dt.date | None
    end: dt.date | None
    stabilized: dt.date | None
    area_sqft: float


@dataclass
class Plan:
    """One site's plan: the site and profile, where its controls come from (``proposed``: what ``analyze``
    proposes; ``submitted``: a submission's ``bmps``), the controls, the phases, the disturbance with its
    dates (one row per polygon, site CRS), the piles as the plan gives them, the controls the submission
    showed (when the plan is geosite's proposal: what it replaces), the analysis' layers (contours, setback
    zones, drainage ...) and the findings.
    """

    site: Site
    profile: Profile
    source: str
    controls: tuple[Control, ...]
    phases: tuple[Phase, ...]
    disturbance: gpd.GeoDataFrame
    piles: gpd.GeoDataFrame | None = None
    submitted: tuple[Control, ...] = ()
    derived: Mapping[str, gpd.GeoDataFrame] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def of(self, practice: str) -> list[Control]:
        """The controls of ``practice``."""
        return [c for c in self.controls if c.practice == practice]

    def quantity(self, c: Control) -> tuple[float, str] | None:
        """What control ``c`` counts for in its practice's pay item: (amount, unit), the unit one of
        :data:`geosite.practices.pay.PAY_UNITS` (:meth:`geosite.practices.pay.PayItem.count`: LF from its
        length, SY / SF / AC from its area, EA one each, CY from its storage); None when its practice has no
        pay item or the amount is not known (a basin whose storage is not given).
        """
        from geosite.practices import registry

        p = registry.named(c.practice)
        if p is None or p.pay is None:
            return None
        got = p.pay.count(c.attrs, self.number)
        return None if got.amount is None else (got.amount, got.unit)

    def number(self, key: str) -> Any:
        """The profile's ``[quantities]`` number ``key`` (a pad's stone depth ...), None when not given."""
        return self.profile.value("quantities", key)

    def frame(self) -> gpd.GeoDataFrame:
        """The controls as one GeoDataFrame (site CRS), the columns of :data:`COLUMNS`: ``id``, ``type``,
        ``practice`` (what it is, in words), ``standard``, ``name``, ``phase``, ``install``, ``remove``, the
        attributes of :data:`ATTRIBUTES` and the sizes of :data:`SIZES`.
        """
        cols: dict[str, list[Any]] = {k: [] for k in COLUMNS}
        for c in self.controls:
            for k, v in (
                ("id", c.id),
                ("type", c.practice),
                ("practice", c.what),
                ("standard", c.standard),
                ("name", c.name),
                ("phase", c.phase),
                ("install", c.install),
                ("remove", c.remove),
            ):
                cols[k].append(v)
            for k in (*ATTRIBUTES, *SIZES):
                cols[k].append(c.attrs.get(k))
        return gpd.GeoDataFrame(cols, geometry=[c.geometry for c in self.controls], crs=self.site.crs)

    def fingerprint(self) -> str:
        """A digest of what the plan builds: each control's number, practice and geometry (to 0.01 of a CRS
        unit), so a map drawn from the plan can be told from one drawn from another (``check`` compares the
        map's with the layers').
        """
        return fingerprint(self.controls)


def control_digest(c: Control) -> str:
    """The digest of one control: its number, practice and geometry (each part to 0.01 of a CRS unit, in a
    normal order, so a line written as a one-part multi-line in the plan folder's layers is the same
    control), 8 hex digits.
    """
    import shapely

    parts = sorted(
        shapely.normalize(shapely.set_precision(p, 0.01)).wkt for p in shapely.get_parts(c.geometry)
    )
    return hashlib.sha256(f"{c.id}|{c.practice}|{';'.join(parts)}".encode()).hexdigest()[:8]


def fingerprint(controls: tuple[Control, ...] | list[Control]) -> str:
    """The digest of ``controls`` (see :meth:`Plan.fingerprint`): of their digests in number order, 16 hex
    digits.
    """
    h = hashlib.sha256()
    for c in sorted(controls, key=lambda c: c.id):
        h.update(f"{c.id}:{control_digest(c)}\n".encode())
    return h.hexdigest()[:16]
