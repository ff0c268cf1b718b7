"""Area, phase and length measurements on the site's layers (no DEM): the numbers applicability
and plan type turn on. Results are a flat mapping of dotted keys (``disturbed.area_sqft``) that the
rules engine reads, plus the derived geometries for ``derived.gpkg``.

Conventions: areas are planar, in the site CRS, converted to sq ft with the CRS's foot (see
geosite.units); a polygon layer's overlaps are counted once (union); disturbance is clipped to the site.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import shapely
from shapely.geometry.base import BaseGeometry

from geosite.units import SQFT_PER_ACRE

if TYPE_CHECKING:
    from geosite.site.model import Site

PIPE_WORK = ("new", "repair", "replace", "enlarge")
ROAD_WORK = ("new", "construct", "construction", "reconstruct", "enlarge", "relocate", "bridge")


@dataclass
class Phase:
    """The disturbance active on one day: the date, the phases active, the union's area."""

    date: dt.date | None
    phases: list[str]
    area_sqft: float

    @property
    def area_acres(self) -> float:
        """The area in acres."""
        return self.area_sqft / SQFT_PER_ACRE


@dataclass
class SiteMeasurements:
    """The numbers measured on a site (``values``, keyed like report.json, each key registered in
    :data:`geosite.rules.registry.MEASURES` with its kind, unit and stage), why one could not be measured
    (``whys``), where one lies (``places``: key -> (layer, geometry in the site CRS), the place of a finding
    that reads it), and the geometries (``layers``).
    """

    values: dict[str, Any] = field(default_factory=dict)
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)
    whys: dict[str, str] = field(default_factory=dict)
    places: dict[str, tuple[str, Any]] = field(default_factory=dict)
    peak: Phase | None = None
    flow_grid: Any = None  # geosite.hydrology.FlowGrid of the DEM, once the hydrology stage has run
    gate: Any = None  # geosite.rules.Gate: whether the chapter (and each scope of it) applies, computed once
    decisions: Any = (
        None  # {requirement id: geosite.rules.Decision}: each requirement required here or not, once
    )

    def set(self, key: str, value: Any, why: str | None = None) -> None:
        """Record measurement ``key`` (a KeyError for a key no registry holds: a stage that records a new
        measurement registers it, so a profile can name it); ``None`` with ``why`` marks it not assessed, and
        why.
        """
        from geosite.rules.registry import recorded

        if not recorded(key):
            raise KeyError(f"measurement {key!r} is not registered (geosite.rules.registry.MEASURES)")
        self.values[key] = value
        if value is None and why:
            self.whys[key] = why

    def why(self, key: str) -> Any:
        """Why ``key`` was not measured (None when it was, or when nothing says), or, for a text measurement
        saying how a value was found (``*_how``, ``*_basis``), that text.
        """
        return (
            self.whys.get(key)
            if key in self.whys
            else self.values.get(key)
            if key.endswith(("_how", "_basis"))
            else None
        )

    def place(self, key: str, layer: str, geometry: Any) -> None:
        """Record where measurement ``key`` lies: on ``layer``, at ``geometry`` (site CRS)."""
        if geometry is not None and not geometry.is_empty:
            self.places[key] = (layer, geometry)


def area_sqft(geom: BaseGeometry, ft_per_unit: float) -> float:
    """Planar area of ``geom`` in sq ft, given feet per CRS unit."""
    return float(geom.area) * ft_per_unit**2


def length_ft(geom: BaseGeometry, ft_per_unit: float) -> float:
    """Planar length of ``geom`` in feet, given feet per CRS unit."""
    return float(geom.length) * ft_per_unit


def disturbed_geometry(site: Site) -> BaseGeometry | None:
    """Union of the disturbance polygons clipped to the site (overlaps counted once), or None
    (:attr:`geosite.site.Site.disturbed`, computed once per site).
    """
    return site.disturbed


def stabilize_within_days(site: Site) -> int | None:
    """The days bare ground may stay unstabilized after work stops (Grantsburg B(6)(c)[1], 7), or None where
    the chapter does not say: the site-wide requirement that gives its ``params.days`` (only the temporary
    stabilization practice takes that parameter: geosite.practices.stabilization).
    """
    prof = getattr(site, "profile", None)
    reqs = prof.requirements if prof is not None else ()
    q = next((q for q in reqs if q.for_each is None and "days" in q.params), None)
    return None if q is None else int(q.param("days"))  # the chapter's days, never a code default


def peak_disturbance(site: Site, stabilize_days: int | None = None) -> Phase | None:
    """The day with the largest area disturbed at one time.

    A polygon is disturbed from its ``start`` until it is stabilized: its ``stabilized`` date when the
    plan gives one (never before its ``end``: ground is not stabilized while it is being worked), else its
    ``end`` plus ``stabilize_days`` (bare ground is disturbed ground: the
    "at one time" reading geosite adopts, docs/rules.md), else its ``end`` (inclusive: a phase ending the
    day another starts counts with it). A polygon without dates is active throughout. The peak occurs on
    some polygon's start date, so only those days are tried. The activity is measured whole, on or off
    the parcel (A(3)).
    """
    gdf = site.layer("disturbance")
    if gdf is None:
        return None
    fpu = site.ft_per_unit
    n = len(gdf)
    start = [_day(v) for v in gdf["start"]] if "start" in gdf.columns else [None] * n
    end = [_day(v) for v in gdf["end"]] if "end" in gdf.columns else [None] * n
    stab = [_day(v) for v in gdf["stabilized"]] if "stabilized" in gdf.columns else [None] * n
    end = [_disturbed_until(s, e, stabilize_days) for s, e in zip(stab, end, strict=True)]
    starts = sorted({d for d in start if d is not None})
    label = gdf["phase"].astype(str) if "phase" in gdf.columns else gdf["id"].astype(str)
    if not starts:
        return Phase(None, sorted(set(label)), area_sqft(site.disturbance_union, fpu))
    best: Phase | None = None
    for day in starts:
        active = [
            (s is None or s <= day) and (e is None or day <= e) for s, e in zip(start, end, strict=True)
        ]
        geoms = gdf.geometry.values[active]
        a = area_sqft(shapely.union_all(geoms), fpu)
        if best is None or a > best.area_sqft:
            best = Phase(day, sorted(set(label[active])), a)
    return best


def _disturbed_until(
    stabilized: dt.date | None, end: dt.date | None, stabilize_days: int | None
) -> dt.date | None:
    """The last day a polygon's ground is disturbed: its stabilization date, but not before its end;
    without one, its end plus ``stabilize_days`` (days); None when neither date is known (to the end
    of the work).
    """
    if stabilized is not None:
        return stabilized if end is None else max(stabilized, end)
    return end + dt.timedelta(days=stabilize_days or 0) if end is not None else None


def _day(v: Any) -> dt.date | None:
    """A phase date, or None for a missing one (None, NaT, NaN): never a date that no day can match."""
    if v is None or (not isinstance(v, dt.date) and v != v):
        return None
    if hasattr(v, "date") and not isinstance(v, dt.date):
        return None if v != v else v.date()
    return v.date() if isinstance(v, dt.datetime) else v


def undated(site: Site) -> list[Any]:
    """Ids of the disturbance polygons with no start or no end date (taken as active from the start
    of the work, or to its end).
    """
    gdf = site.layer("disturbance")
    if gdf is None:
        return []
    n = len(gdf)
    start = [_day(v) for v in gdf["start"]] if "start" in gdf.columns else [None] * n
    end = [_day(v) for v in gdf["end"]] if "end" in gdf.columns else [None] * n
    return [i for i, s, e in zip(gdf["id"], start, end, strict=True) if s is None or e is None]


@dataclass(frozen=True, eq=False)
class PhaseAreas:
    """Each phase's disturbed area and dates (:func:`phase_areas`), as rows and as a layer.

    Attributes
    ----------
    phases : list of dict
        Per phase, in the order the layer first names it: ``phase``, ``disturbance_ids``, ``start`` and
        ``end`` (ISO dates or None), ``area_sqft`` and ``area_acres`` (report.json's ``disturbed.phases``).
    layer : geopandas.GeoDataFrame or None
        The same, one feature per phase (the site CRS); None without a disturbance layer.
    """

    phases: list[dict[str, Any]]
    layer: gpd.GeoDataFrame | None


def phase_areas(site: Site) -> PhaseAreas:
    """Each phase's disturbed area: its polygons' union, on or off the parcel as A(3) measures the activity
    (sq ft, acres), first start and last end; and the same as a layer, one feature per phase. A layer
    without ``phase`` is one phase per polygon, named by its id.
    """
    gdf = site.layer("disturbance")
    if gdf is None:
        return PhaseAreas([], None)
    fpu = site.ft_per_unit
    label = gdf["phase"].astype(str) if "phase" in gdf.columns else gdf["id"].astype(str)
    rows: list[dict[str, Any]] = []
    geoms = []
    for ph in dict.fromkeys(label):
        sel = gdf[(label == ph).to_numpy()]
        geom = shapely.union_all(sel.geometry.values)
        a = area_sqft(geom, fpu)
        starts = [d for d in map(_day, sel["start"]) if d is not None] if "start" in sel.columns else []
        ends = [d for d in map(_day, sel["end"]) if d is not None] if "end" in sel.columns else []
        rows.append(
            {
                "phase": ph,
                "disturbance_ids": [int(i) if str(i).isdigit() else i for i in sel["id"]],
                "start": min(starts).isoformat() if starts else None,
                "end": max(ends).isoformat() if ends else None,
                "area_sqft": a,
                "area_acres": a / SQFT_PER_ACRE,
            }
        )
        geoms.append(geom)
    layer = gpd.GeoDataFrame(
        {k: [r[k] for r in rows] for k in ("phase", "start", "end", "area_sqft", "area_acres")},
        geometry=geoms,
        crs=site.crs,
    )
    return PhaseAreas(rows, layer)


def measure_site(site: Site) -> SiteMeasurements:
    """Everything measurable from the vector layers and the declared project facts.

    Parameters
    ----------
    site : Site
        The loaded site.

    Returns
    -------
    SiteMeasurements
        The site's and the disturbance's areas, phases and project facts, and the derived layers.
    """
    m = SiteMeasurements()
    fpu = site.ft_per_unit
    site_area = area_sqft(site.boundary, fpu)
    m.set("site.area_sqft", site_area)
    m.set("site.area_acres", site_area / SQFT_PER_ACRE)

    dist = disturbed_geometry(site)
    if dist is None:
        why = "no disturbance layer in the site"
        for k in ("area_sqft", "area_acres", "max_at_one_time_sqft", "max_at_one_time_acres"):
            m.set(f"disturbed.{k}", None, why)
    else:
        _measure_disturbance(site, m, dist)
    _project_facts(site, m)
    _roads(site, m)
    _utilities(site, m, fpu)
    _counts(site, m)
    return m


def _measure_disturbance(site: Site, m: SiteMeasurements, dist: BaseGeometry) -> None:
    """The land disturbing activity's area (on and off the parcel), its largest area at one time, its
    phases, and the disturbed area on the parcel (``dist``) as a layer, recorded in ``m``.
    """
    fpu = site.ft_per_unit
    # A(3) measures the activity, not its part on the parcel: a drive apron graded in the right-of-way
    # counts
    on_site = area_sqft(dist, fpu)
    a = area_sqft(site.disturbance_union, fpu)
    m.set("disturbed.area_sqft", a)
    m.set("disturbed.area_acres", a / SQFT_PER_ACRE)
    m.set("disturbed.on_site_sqft", on_site)
    if a > on_site * (1 + 1e-9):
        m.set(
            "disturbed.area_how",
            f"{a:,.0f} sq ft of land disturbing activity, {on_site:,.0f} sq ft of it on the parcel and "
            f"{a - on_site:,.0f} sq ft off it (the activity is measured wherever it is)",
        )
    _peak_at_one_time(site, m)
    outside = shapely.difference(site.disturbance_union, site.boundary)
    m.set("disturbed.outside_site_sqft", area_sqft(outside, fpu))
    # the controls' ground: the activity on the parcel (its area is this geometry's; the activity's is the
    # report's)
    m.layers["disturbed_area"] = gpd.GeoDataFrame(
        {"area_sqft": [on_site], "area_acres": [on_site / SQFT_PER_ACRE], "activity_area_sqft": [a]},
        geometry=[dist],
        crs=site.crs,
    )
    phases = phase_areas(site)
    m.set("disturbed.phases", phases.phases)
    m.layers["disturbance_phases"] = phases.layer


def _peak_at_one_time(site: Site, m: SiteMeasurements) -> None:
    """The largest area disturbed at one time, its day and phases, and (undated polygons) its basis,
    recorded in ``m``.
    """
    peak = peak_disturbance(site, stabilize_within_days(site))
    assert peak is not None  # the site has a disturbance layer here
    m.peak = peak
    m.set("disturbed.max_at_one_time_sqft", peak.area_sqft)
    m.set("disturbed.max_at_one_time_acres", peak.area_acres)
    m.set("disturbed.max_at_one_time_date", peak.date.isoformat() if peak.date else None)
    m.set("disturbed.max_at_one_time_phases", peak.phases)
    missing = undated(site)
    if missing:
        basis = (
            f"{len(missing)} disturbance polygon(s) (ids {', '.join(str(i) for i in missing[:12])}) have "
            "no start or "
            "no end date: each is counted as disturbed from the start of the work to its end, so the "
            "largest "
            "area at one time includes them (a missing date never removes an area)"
        )
        m.set("disturbed.max_at_one_time_basis", basis)
        if basis not in site.notes:
            site.notes.append(basis)


def _project_facts(site: Site, m: SiteMeasurements) -> None:
    """The project facts site.toml declares ([project]), recorded in ``m``."""
    p = site.project
    m.set("project.plat", p.plat)
    m.set("project.cut_cy", p.cut_cy)
    m.set("project.fill_cy", p.fill_cy)
    m.set("project.cut_fill_cy", p.cut_fill_cy, "cut_cy and fill_cy are not declared in site.toml [project]")
    m.set("project.dewatering", p.dewatering, "dewatering is not declared in site.toml [project]")
    m.set("project.state_funded", p.state_funded)
    m.set("project.authority_superseded", p.authority_superseded)
    m.set("project.landscaping_only", p.landscaping_only)


def _status(gdf: gpd.GeoDataFrame):
    return gdf["status"].astype(str).str.strip().str.lower()


def _roads(site: Site, m: SiteMeasurements) -> None:
    roads = site.layer("roads")
    if roads is None:
        m.set("roads.work_count", 0)
        m.set("roads.work_ids", [])
        return
    if "status" not in roads.columns:
        m.set(
            "roads.work_count",
            None,
            "the roads layer has no 'status' column, so road construction cannot be told from existing roads",
        )
        return
    work = roads[_status(roads).isin(ROAD_WORK)]
    m.set("roads.work_count", int(len(work)))
    m.set("roads.work_ids", work["id"].tolist())


def _utilities(site: Site, m: SiteMeasurements, fpu: float) -> None:
    util = site.layer("utilities")
    if util is None:
        m.set("utilities.work_length_ft", 0.0)
        return
    if "status" not in util.columns:
        m.set(
            "utilities.work_length_ft",
            None,
            "the utilities layer has no 'status' column, so new or repaired pipe cannot be told from "
            "existing",
        )
        return
    mask = _status(util).isin(PIPE_WORK)
    if "underground" in util.columns:
        mask &= util["underground"].fillna(True).astype(bool)
    work = util[mask]
    lengths = [length_ft(g, fpu) for g in work.geometry]
    m.set("utilities.work_length_ft", float(sum(lengths)))
    m.set("utilities.longest_work_ft", float(max(lengths)) if lengths else 0.0)
    m.set("utilities.work_ids", work["id"].tolist())


def _counts(site: Site, m: SiteMeasurements) -> None:
    for lname in (
        "storm_inlets",
        "access_drives",
        "stockpiles",
        "roads",
        "streams",
        "wetlands",
        "lakes",
        "channels",
    ):
        gdf = site.layer(lname)
        m.set(f"{lname}.count", 0 if gdf is None else int(len(gdf)))
    piles = site.layer("stockpiles")
    if piles is None:
        m.set("stockpiles.max_days", 0)
    elif "days" not in piles.columns:
        m.set(
            "stockpiles.max_days", None, "the stockpiles layer has no 'days' column (planned days in place)"
        )
    elif piles["days"].isna().any():  # a missing value is not 0 days: the rule is not assessed
        ids = ", ".join(str(i) for i in piles["id"][piles["days"].isna()].tolist()[:12])
        m.set("stockpiles.max_days", None, f"stockpiles {ids} have no 'days' value (planned days in place)")
    else:
        m.set("stockpiles.max_days", float(piles["days"].max()))
