"""Building a site's plan (:class:`~geosite.plan.model.Plan`) from its analysis: the controls the practices
proposed (``analyze``), or the controls a submission shows (its ``bmps`` layer), each dated and tied to the
phase it serves.

Dates: each disturbance polygon starts and ends on its own dates (the project's where it has none) and is
stabilized on its ``stabilized`` date, else its end plus the chapter's inactive-ground days (Grantsburg
B(6)(c)[1]: 7), else its end. A proposed control is installed the day before the earliest start of the
polygons within :data:`SERVED_REACH_FT` of it (all of them when none is), a cover (mulch, seed, mat; not a
pile's) on the latest end of the polygons under it (laid on the graded ground), and removed the day after
the latest of their stabilization; a submitted control keeps its own dates.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import shapely

from geosite.io.output import py_scalar
from geosite.plan.model import ATTRIBUTES, STATUSES, Control, Phase, Plan
from geosite.practices import registry
from geosite.site.layer_checks import date_value, given, text_value

if TYPE_CHECKING:
    from geosite.rules import Profile
    from geosite.site import Site

#: A control serves the disturbance polygons within this distance of it (all of them when none is): its
#: install and remove dates follow theirs (a drawing rule of geosite's, not an ordinance number), ft.
SERVED_REACH_FT = 50.0


def plan_of(result: Any, source: str | None = None) -> Plan:
    """The plan of an analysis: ``source`` ``proposed`` (the controls its practices propose), ``submitted``
    (the site's ``bmps`` layer), or None: proposed where the analysis placed controls, else submitted.

    Parameters
    ----------
    result : geosite.pipeline.AnalysisResult
        The analysis of the site.
    source : str or None
        Where the plan's controls come from (:data:`geosite.plan.model.STATUSES`).

    Returns
    -------
    Plan
        The plan, its controls numbered 1.. in the order the practices proposed them (a submission's keep
        their ids).
    """
    site, profile = result.site, result.profile
    proposed = list(result.controls.proposed) if getattr(result, "controls", None) is not None else []
    source = source or ("proposed" if proposed else "submitted")
    if source not in STATUSES:
        raise ValueError(f"plan source {source!r}: one of {', '.join(STATUSES)}")
    disturbance = dated_disturbance(site, profile)
    controls = (
        _proposed(proposed, disturbance, site)
        if source == "proposed"
        else _submitted(site.layer("bmps"), disturbance, site)
    )
    submitted = _submitted(site.layer("bmps"), disturbance, site) if source == "proposed" else []
    return Plan(
        site,
        profile,
        source,
        tuple(controls),
        phases_of(disturbance, site),
        disturbance,
        piles=piles_of(site, result.report.get("stockpiles") if source == "proposed" else None),
        submitted=tuple(submitted),
        derived=dict(getattr(result, "layers", {}) or {}),
        findings=list(result.findings),
    )


def plan_of_site(site: Site, profile: Profile) -> Plan:
    """The plan a site's own layers show, without an analysis: its ``bmps`` as the controls (status
    ``submitted``), its phases and piles (a map of a submission is drawn from this).

    Parameters
    ----------
    site : Site
        The site.
    profile : Profile
        Its village's profile (the inactive-ground days that date each polygon's stabilization).

    Returns
    -------
    Plan
        The plan, with no analysis layers and no findings.
    """
    disturbance = dated_disturbance(site, profile)
    return Plan(
        site,
        profile,
        "submitted",
        tuple(_submitted(site.layer("bmps"), disturbance, site)),
        phases_of(disturbance, site),
        disturbance,
        piles=piles_of(site, None),
    )


def sizes(geom: Any, ft_per_unit: float) -> dict[str, float]:
    """A control's measured size: ``length_ft`` of a line, ``area_sqft`` of an area (none for a point)."""
    t = geom.geom_type
    if "LineString" in t:
        return {"length_ft": round(float(geom.length) * ft_per_unit, 1)}
    if "Polygon" in t:
        return {"area_sqft": round(float(geom.area) * ft_per_unit**2, 1)}
    return {}


def piles_of(site: Site, report: list[dict[str, Any]] | None) -> gpd.GeoDataFrame | None:
    """The stockpiles as the plan gives them (site CRS; None without the layer): with ``setback_reason``
    and ``extra_bmps``; where geosite proposes the plan (``report``: the analysis' per-pile entries) a pile
    closer to a downslope feature than the setback whose site gives no reason says geosite kept it where the
    site places it (what more the plan does there is drawn: its controls carry the pile's ``pile_id``).
    """
    piles = site.layers.get("stockpiles")
    if piles is None:
        return None
    piles = piles.copy()
    for col in ("setback_reason", "extra_bmps"):
        if col not in piles.columns:
            piles[col] = None
    rep = {r.get("id"): r for r in report or [] if isinstance(r, dict)}
    ids = piles["id"] if "id" in piles.columns else range(1, len(piles) + 1)
    for i, pid in enumerate(ids):
        r = rep.get(py_scalar(pid)) or {}
        if r.get("violation") and not given(piles["setback_reason"].iloc[i]):
            piles.loc[piles.index[i], "setback_reason"] = (
                f"kept where the site plan places it ({r.get('min_setback_ft', 0):,.1f} ft from the nearest "
                "downslope feature): geosite does not move piles; the designer states why the setback is not "
                "possible here"
            )
    return piles


def dated_disturbance(site: Site, profile: Profile) -> gpd.GeoDataFrame:
    """The site's disturbance polygons (site CRS), each with ``start`` and ``end`` (the project's where a
    polygon has none) and ``stabilized``: its own date, else ``end`` plus the chapter's inactive-ground days,
    else ``end`` (dates as :class:`datetime.date`).
    """
    from geosite.site.measurements import stabilize_within_days

    d = site.layers.get("disturbance")
    if d is None:
        return gpd.GeoDataFrame(
            {"id": [], "start": [], "end": [], "stabilized": []}, geometry=[], crs=site.crs
        )
    d = d.copy()
    window = stabilize_within_days(site)
    starts, ends, stab = [], [], []
    for i in range(len(d)):
        s = date_value(d["start"].iloc[i]) if "start" in d.columns else None
        e = date_value(d["end"].iloc[i]) if "end" in d.columns else None
        s, e = s or site.project.start, e or site.project.end
        given = date_value(d["stabilized"].iloc[i]) if "stabilized" in d.columns else None
        starts.append(s)
        ends.append(e)
        stab.append(
            given or (e + dt.timedelta(days=int(window)) if e is not None and window is not None else e)
        )
    d["start"], d["end"], d["stabilized"] = starts, ends, stab
    return d


def _phase_keys(d: gpd.GeoDataFrame) -> list[str]:
    """Each disturbance polygon's phase: its ``phase`` attribute, else its id."""
    if "phase" in d.columns:
        return ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in d["phase"]]
    ids = d["id"] if "id" in d.columns else range(1, len(d) + 1)
    return [str(py_scalar(i)) for i in ids]


def phases_of(d: gpd.GeoDataFrame, site: Site) -> tuple[Phase, ...]:
    """The phases of the dated disturbance ``d``: each phase's union, its earliest start, latest end and
    latest stabilization, and its area (sq ft; overlaps once), in the order they start.
    """
    keys = _phase_keys(d)
    out = []
    for k in dict.fromkeys(keys):
        sel = d[[x == k for x in keys]]
        g = shapely.union_all(sel.geometry.values)
        starts = [x for x in sel["start"] if x is not None]
        ends = [x for x in sel["end"] if x is not None]
        stab = [x for x in sel["stabilized"] if x is not None]
        out.append(
            Phase(
                k,
                g,
                min(starts) if starts else None,
                max(ends) if ends else None,
                max(stab) if stab else None,
                float(g.area) * site.ft_per_unit**2,
            )
        )
    return tuple(sorted(out, key=lambda p: (p.start or dt.date.max, p.key)))


def _served(
    geom: Any, d: gpd.GeoDataFrame, reach: float, *, laid_on_grade: bool = False
) -> tuple[dt.date | None, dt.date | None, str | None]:
    """(install, remove, phase) of a control at ``geom``: the day before the earliest start of the
    disturbance polygons within ``reach`` (CRS units) of it (all of them when none is), the day after the
    latest of their stabilization, and the phase of the nearest. A cover (``laid_on_grade``: mulch, seed,
    mat) is laid on the graded ground: installed on the latest ``end`` of the polygons under it (those
    within ``reach`` when none is), so it is not dated before the grading it covers.
    """
    if not len(d) or geom is None or geom.is_empty:
        return None, None, None
    dist = d.geometry.distance(geom)
    near = d[dist <= reach]
    near = near if len(near) else d
    if laid_on_grade:
        under = d[d.geometry.intersects(geom)]
        ends = [x for x in (under if len(under) else near)["end"] if x is not None]
    starts = [x for x in near["start"] if x is not None]
    stab = [x for x in near["stabilized"] if x is not None]
    phase = _phase_keys(d)[int(dist.to_numpy().argmin())]
    if laid_on_grade:
        install = max(ends) if ends else None
    else:
        install = min(starts) - dt.timedelta(days=1) if starts else None
    return install, max(stab) + dt.timedelta(days=1) if stab else None, phase or None


def _proposed(rows: list[dict[str, Any]], d: gpd.GeoDataFrame, site: Site) -> list[Control]:
    """The controls the practices proposed, numbered 1.., dated from the phases they serve."""
    reach = SERVED_REACH_FT / site.ft_per_unit
    covers = set(registry.catalogue().of("cover"))
    out = []
    for i, r in enumerate(r for r in rows if r.get("geometry") is not None and not r["geometry"].is_empty):
        # a cover is laid on the graded ground; a pile's own cover (B(6)(e), pile_id) serves the pile
        graded = str(r["type"]) in covers and r.get("pile_id") is None
        install, remove, phase = _served(r["geometry"], d, reach, laid_on_grade=graded)
        out.append(
            Control(
                id=i + 1,
                practice=str(r["type"]),
                status="proposed",
                geometry=r["geometry"],
                what=str(r.get("practice", "")),
                standard=str(r.get("standard", "")),
                name=r.get("name"),
                phase=phase,
                install=install,
                remove=remove,
                attrs={
                    **{k: _rounded(k, r[k]) for k in ATTRIBUTES if r.get(k) is not None},
                    **sizes(r["geometry"], site.ft_per_unit),
                },
            )
        )
    return out


def _submitted(bmps: gpd.GeoDataFrame | None, d: gpd.GeoDataFrame, site: Site) -> list[Control]:
    """The controls a submission's ``bmps`` layer shows, with their own ids, words and dates (the phase
    each serves from the disturbance nearest it).
    """
    if bmps is None:
        return []
    reach = SERVED_REACH_FT / site.ft_per_unit
    ids = _numbers(bmps)
    out = []
    for i in range(len(bmps)):
        row = bmps.iloc[i]
        g = bmps.geometry.iloc[i]
        if g is None or g.is_empty:
            continue
        practice = str(row.get("type", "") or "").strip().lower()
        known = registry.named(practice)
        out.append(
            Control(
                id=ids[i],
                practice=practice,
                status="submitted",
                geometry=g,
                what=text_value(row.get("practice"))
                or (known.title.lower() if known else practice.replace("_", " ")),
                standard=text_value(row.get("standard")) or (known.standard if known else ""),
                name=text_value(row.get("name")),
                phase=_served(g, d, reach)[2],
                install=date_value(row.get("install")),
                remove=date_value(row.get("remove")),
                attrs={
                    **{k: py_scalar(row[k]) for k in ATTRIBUTES if k in bmps.columns and given(row[k])},
                    **sizes(g, site.ft_per_unit),
                },
            )
        )
    return out


#: the decimals a proposed control's measured attribute keeps (what the DEM and the standards resolve)
DECIMALS = {"drainage_acres": 2, "surface_sqft": 0, "storage_cy": 1}


def _rounded(key: str, value: Any) -> Any:
    """A proposed control's attribute ``value`` rounded to :data:`DECIMALS` (others as they are)."""
    if key in DECIMALS and isinstance(value, int | float) and not isinstance(value, bool):
        return round(float(value), DECIMALS[key])
    return py_scalar(value)


def _numbers(bmps: gpd.GeoDataFrame) -> list[int]:
    """The controls' numbers: the layer's ``id`` where every one is a whole number and none repeats, else
    1.. in the layer's order (a submission's ids may be text, or repeat).
    """
    n = len(bmps)
    if "id" not in bmps.columns:
        return list(range(1, n + 1))
    got = []
    for v in bmps["id"]:
        v = py_scalar(v)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v != int(v):
            return list(range(1, n + 1))
        got.append(int(v))
    return got if len(set(got)) == n else list(range(1, n + 1))
