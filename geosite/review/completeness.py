"""Completeness of a submitted plan: the plan content lists of the jurisdiction's profile
(``[[plan_content.full]]``, ``[[plan_content.statement]]``), each item evidenced by data.

An item is shown by (profile keys):

- ``layers``: any of these layers is in the submission; an empty layer counts (it states "none on or
  near the site"), an absent one does not: **fail**.
- ``contacts``: these people have a name, address and phone in site.toml, else **fail**.
- ``project``: these ``[project]`` fields of site.toml are set, else **fail**.
- ``declared``: a ``[declared]`` field of site.toml (what data cannot show: maintenance provisions, a
  stabilization description, the final-conditions plan); unset: **not assessed**, naming the field.
- ``check = "contours"``: a ``contours`` layer whose levels are at most the profile's contour interval
  apart (or, without the layer, the interval declared for the submitted map); neither: **fail**. A DEM
  alone does not show topography on the plan (``geosite map`` can draw it from one).
- ``check = "map"``: the submitted map's scale (GeoTIFF pixel size x print dpi, or the declared scale of
  a PDF) and, where the item has ``margin_ft``, its extent; no map: **not assessed**.
- ``check = "dem"``: a DEM submitted in site.toml, from which geosite derives slope directions and
  upslope drainage areas; none: **not assessed**.
- ``check = "slopes"`` (statement B(2), "direction of slopes before and after development"): before, from
  the submitted DEM; after, from a proposed-grade DEM (``[dem] proposed``) or ``[declared] slopes_after``.
  The existing DEM alone shows only the slopes before: **not assessed** for the after, naming what settles it.
- ``check = "schedule"`` (A(3)(d), "starting and completion dates of each land disturbing activity,
  including the installation of best management practices"): every disturbance polygon has its
  ``start`` and ``end``, and every ``bmps`` feature its ``install`` date; the project's start and end
  alone do not show it: **fail**, naming the features without dates.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shapely

from geosite.review.findings import ReviewFinding

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.review.declared import Declared
    from geosite.rules import Profile
    from geosite.rules.model import PlanItem
    from geosite.site import Site

M_PER_FT = 0.3048
M_PER_UNIT = {"ft": 0.3048, "us_ft": 1200.0 / 3937.0, "m": 1.0}
DOC_SUFFIXES = (".pdf", ".tif", ".tiff", ".png", ".jpg", ".dxf", ".dwg", ".gpkg", ".geojson", ".shp")


def plan_items(profile: Profile, plan_type: str) -> list[PlanItem]:
    """The profile's plan content items for ``plan_type`` (full or statement); [] when it has none."""
    return list(profile.plan_content.items(plan_type))


def item_citation_for_layer(profile: Profile, plan_type: str, layer: str) -> str:
    """The citation of the plan item that the ``layer`` evidences (e.g. disturbance -> A(3)(a))."""
    for item in plan_items(profile, plan_type):
        if layer in item.layers:
            return item.citation
    return ""


def check_completeness(
    site: Site,
    profile: Profile,
    declared: Declared,
    plan_type: str,
    dem_submitted: bool,
) -> list[ReviewFinding]:
    """One finding per plan content item of ``plan_type``."""
    section = profile.section_name(profile.plan_content.section)
    items = plan_items(profile, plan_type)
    if not items:
        return [
            ReviewFinding(
                "plan_content",
                "",
                section,
                "info",
                f"Plan content for a {plan_type} plan: not specified by this chapter.",
            )
        ]
    out = []
    for item in items:
        f = _item(site, profile, declared, item, dem_submitted)
        f.section = section
        f.citation = item.citation
        f.requirement = f.requirement or item.text
        f.rule = f"plan_content.{plan_type}.{_slug(item.citation)}" + (f".{item.check}" if item.check else "")
        out.append(f)
    return out


def _slug(citation: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in citation).strip("_").replace("__", "_")


def _f(status: str, message: str, **kw: Any) -> ReviewFinding:
    return ReviewFinding(rule="", citation="", section="", status=status, message=message, **kw)


def _item(
    site: Site, profile: Profile, declared: Declared, item: PlanItem, dem_submitted: bool
) -> ReviewFinding:
    text = item.text
    head = text[:1].upper() + text[1:]
    check = item.check
    if check == "contours":
        return contour_finding(site, profile, declared, head)
    if check == "map":
        return map_finding(site, declared, item, head)
    if check == "schedule":
        return schedule_finding(site, head)
    if check == "slopes":
        return slopes_finding(site, declared, head, dem_submitted)
    if check == "dem":
        return _dem_finding(site, head, dem_submitted)
    if item.layers:
        return _layers_finding(site, list(item.layers), head)
    if item.contacts:
        return _contacts_finding(site, list(item.contacts), head)
    if item.project:
        return _project_finding(site, list(item.project), head)
    if item.declared is not None:
        return _declared_finding(site, declared, item.declared, head)
    return _f(
        "not_assessed", f"{head}: not assessable from the data.", settle="the inspector's reading of the plan"
    )


def _dem_finding(site: Site, head: str, dem_submitted: bool) -> ReviewFinding:
    """An item geosite derives from the submitted DEM."""
    if dem_submitted:
        return _f(
            "pass",
            f"{head}: derived by geosite from the submitted DEM ({_dem_name(site)}).",
            submitted=f"DEM {_dem_name(site)}",
        )
    return _f(
        "not_assessed",
        f"{head}: not assessable from the data (no DEM in site.toml).",
        settle="a DEM in site.toml [dem] (geosite derives slope directions and upslope drainage "
        "areas from it), or the plan's own description",
    )


def _layers_finding(site: Site, layers: list[str], head: str) -> ReviewFinding:
    """An item shown by any of the submission's ``layers``."""
    have = [n for n in layers if n in site.layers]
    if have:
        counts = ", ".join(
            f"{n} ({len(site.layers[n])} feature{'s' if len(site.layers[n]) != 1 else ''})" for n in have
        )
        return _f("pass", f"{head}: shown ({counts}).", submitted=counts, layer=have[0])
    names = " or ".join(layers)
    return _f(
        "fail",
        f"{head}: missing; no {names} layer in the submission.",
        submitted="nothing",
        settle=f"a {names} layer (an empty layer states there are none on or near the site)",
    )


def _contacts_finding(site: Site, contacts: list[str], head: str) -> ReviewFinding:
    """An item given by site.toml's contacts (name, address, phone)."""
    missing = []
    for who in contacts:
        c = getattr(site, who)
        gaps = [k for k in ("name", "address", "phone") if not getattr(c, k)]
        if gaps:
            missing.append(f"{who} {', '.join(gaps)}")
    if missing:
        return _f(
            "fail",
            f"{head}: missing {'; '.join(missing)} in site.toml.",
            submitted=f"no {'; no '.join(missing)}",
            settle="[applicant] and [maintainer] name, address and phone in site.toml",
        )
    return _f(
        "pass",
        f"{head}: given for " + " and ".join(f"{w} {getattr(site, w).name}" for w in contacts) + ".",
    )


def _project_finding(site: Site, keys: list[str], head: str) -> ReviewFinding:
    """An item given by site.toml's [project] ``keys``."""
    gaps = [k for k in keys if getattr(site.project, k, None) is None]
    if gaps:
        return _f(
            "fail",
            f"{head}: missing [project] {', '.join(gaps)} in site.toml.",
            submitted=f"no project {', '.join(g.replace('_', ' ') for g in gaps)}",
            settle=f"[project] {', '.join(gaps)} in site.toml",
        )
    got = ", ".join(f"{k} {getattr(site.project, k)}" for k in keys)
    return _f("pass", f"{head}: {got}.", submitted=got)


def _declared_finding(site: Site, declared: Declared, key: str, head: str) -> ReviewFinding:
    """An item the applicant declares ([declared] ``key``: a description, or a file of the submission)."""
    v = declared.get(key)
    if not v:
        return _f(
            "not_assessed",
            f"{head}: not assessable from the data; not declared.",
            settle=f"[declared] {key} in site.toml (a description, or the file that holds it)",
        )
    if v.lower().endswith(DOC_SUFFIXES) and site.root is not None and not (Path(site.root) / v).exists():
        return _f("fail", f"{head}: the declared file {v!r} is not in the submission.", submitted=v)
    return _f("pass", f"{head}: declared ({v[:80]}{'...' if len(v) > 80 else ''}).", submitted=v)


# ------------------------------------------------------------------------------------------- schedule, slopes


def _undated(gdf: gpd.GeoDataFrame | None, cols: tuple[str, ...]) -> list[Any]:
    """Ids of the features lacking any of the date columns (all of them when a column is absent)."""
    if gdf is None:
        return []
    bad = [False] * len(gdf)
    for col in cols:
        vals = gdf[col] if col in gdf.columns else [None] * len(gdf)
        bad = [
            b or v is None or (isinstance(v, float) and v != v) or str(v).strip() in ("", "NaT", "None")
            for b, v in zip(bad, vals, strict=True)
        ]
    return [i for i, b in zip(gdf["id"], bad, strict=True) if b]


def schedule_finding(site: Site, head: str) -> ReviewFinding:
    """A(3)(d): dates for each activity (disturbance polygon) and each BMP's installation."""
    from geosite.io.output import py_scalar

    dist, bmps = site.layers.get("disturbance"), site.layers.get("bmps")
    problems = []
    if dist is None or not len(dist):
        problems.append("no disturbance layer, so no activity to date")
    else:
        ids = _undated(dist, ("start", "end"))
        if ids:
            problems.append(
                f"disturbance {', '.join(str(py_scalar(i)) for i in ids)} without a start and an end date"
            )
    if bmps is None or not len(bmps):
        problems.append("no bmps layer, so no installation to date")
    else:
        ids = _undated(bmps, ("install",))
        if ids:
            problems.append(f"bmps {', '.join(str(py_scalar(i)) for i in ids)} without an install date")
    p = site.project
    project = f"project {p.start} to {p.end}" if p.start and p.end else "no project dates"
    if problems:
        return _f(
            "fail",
            f"{head}: {'; '.join(problems)} ({project}; the project's start and end alone do not date each "
            "activity "
            "and each BMP's installation).",
            submitted=project,
            settle="start and end on each disturbance polygon, and an install date on each bmps feature",
        )
    assert dist is not None and bmps is not None  # no problems: both layers are there
    n_d, n_b = len(dist), len(bmps)
    return _f(
        "pass",
        f"{head}: start and end dates on all {n_d} disturbance polygon{'s' if n_d != 1 else ''} and an "
        "install date on all "
        f"{n_b} BMP{'s' if n_b != 1 else ''} ({project}).",
        submitted=f"{n_d} activities and {n_b} BMPs dated",
    )


def _dem_name(site: Site) -> str:
    """The submitted DEM's file name ("" when there is none)."""
    return site.dem_path.name if site.dem_path is not None else ""


def slopes_finding(site: Site, declared: Declared, head: str, dem_submitted: bool) -> ReviewFinding:
    """Statement B(2): slope directions before (the DEM) and after development (a proposed grade, or a
    declared description).
    """
    before = (
        f"before: derived from the submitted DEM ({_dem_name(site)})"
        if dem_submitted
        else "before: no DEM in site.toml"
    )
    if site.proposed_dem_path is not None:
        after = f"after: derived from the proposed-grade DEM ({site.proposed_dem_path.name})"
    elif declared.slopes_after:
        after = f"after: declared ({declared.slopes_after[:80]})"
    else:
        after = None
    if dem_submitted and after:
        return _f("pass", f"{head}: {before}; {after}.", submitted=f"{before}; {after}")
    return _f(
        "not_assessed",
        f"{head}: {before}; after: "
        + ("shown" if after else "not shown (the existing DEM shows the slopes before development only)")
        + ".",
        submitted=before,
        settle="; ".join(
            ([] if dem_submitted else ["a DEM in site.toml [dem]"])
            + (
                []
                if after
                else [
                    "a proposed-grade DEM ([dem] proposed) or [declared] slopes_after describing the slopes "
                    "after development"
                ]
            )
        ),
    )


# --------------------------------------------------------------------------------------------- contours


def contour_interval_ft(levels_ft: list[float]) -> float | None:
    """The contour interval: the most common step between consecutive distinct levels (ties: the
    smallest); None with fewer than two levels.
    """
    lv = sorted({round(v, 2) for v in levels_ft})
    steps = [round(b - a, 2) for a, b in zip(lv, lv[1:], strict=False) if b - a > 0]
    if not steps:
        return None
    counts = Counter(steps)
    top = max(counts.values())
    return min(s for s, n in counts.items() if n == top)


def contour_finding(site: Site, profile: Profile, declared: Declared, head: str) -> ReviewFinding:
    """The plan's contours against the chapter's largest interval (``[terrain] contour_interval_ft``).

    The interval is the most common step between the submitted contours' levels; without a contours layer,
    the interval the submitted map declares.

    Parameters
    ----------
    site : Site
        The submission.
    profile : Profile
        The jurisdiction's profile.
    declared : Declared
        The submission's declarations (``map_contour_interval_ft``, elevation units).
    head : str
        The plan item's text, the finding message's start.

    Returns
    -------
    ReviewFinding
        Pass, fail, or not assessed with what would settle it.
    """
    entry = profile.entry("terrain", "contour_interval_ft")
    # the chapter's interval, cited; geosite's drawing interval (a source) is no limit
    if entry is None or not entry.citation:
        return _f(
            "not_assessed",
            f"{head}: the chapter's contour interval is not in the profile (not read, or not stated), so the "
            "plan's contours cannot be judged against it.",
            settle="the chapter's contour interval in the profile ([terrain] "
            "contour_interval_ft with its citation)",
        )
    limit = float(entry["value"])
    gdf = site.layers.get("contours")
    dem_hint = (
        " (a DEM was submitted: `geosite map` draws contours from it, but the plan must show them)"
        if site.dem_path
        else ""
    )
    if gdf is None:
        return _no_contours_layer(site, declared, head, limit, dem_hint)
    if len(gdf) == 0:
        return _f(
            "fail",
            f"{head}: the contours layer is empty{dem_hint}.",
            submitted="an empty contours layer",
            layer="contours",
            geometry=site.boundary,
        )
    got = _elevation_column(gdf, site, declared, head)
    if isinstance(got, ReviewFinding):
        return got
    col, m_per = got
    return _interval_finding(gdf, [float(v) * m_per / M_PER_FT for v in gdf[col].dropna()], limit, head)


def _interval_finding(gdf: Any, levels: list[float], limit: float, head: str) -> ReviewFinding:
    """The contours layer ``gdf``'s interval, from its ``levels`` (feet), against ``limit`` (feet)."""
    interval = contour_interval_ft(levels)
    if interval is None:
        return _f(
            "not_assessed",
            f"{head}: a single contour level; the interval cannot be told.",
            layer="contours",
            settle="the contours of the whole site",
        )
    ok = interval <= limit + 0.01
    vals = {"interval_ft": interval, "limit_ft": limit, "levels": len({round(v, 2) for v in levels})}
    return _f(
        "pass" if ok else "fail",
        f"{head}: contours every {interval:g} ft"
        + ("." if ok else f", coarser than the {limit:g} ft the chapter allows."),
        submitted=f"contours layer, interval {interval:g} ft",
        values=vals,
        layer="contours",
        geometry=None if ok else shapely.union_all(gdf.geometry.values),
    )


def _no_contours_layer(
    site: Site, declared: Declared, head: str, limit: float, dem_hint: str
) -> ReviewFinding:
    """Without a contours layer: the submitted map's declared interval against ``limit`` (ft), if any."""
    mi = declared.map_contour_interval_ft
    if mi is not None:
        ok = mi <= limit + 1e-9
        return _f(
            "pass" if ok else "fail",
            f"{head}: the submitted map declares a {mi:g} ft interval (no contours layer); the limit is "
            f"{limit:g} ft.",
            submitted=f"declared map contour interval {mi:g} ft",
            values={"interval_ft": mi, "limit_ft": limit},
        )
    return _f(
        "fail",
        f"{head}: missing; no contours layer in the submission{dem_hint}.",
        submitted="no contours",
        settle=f"a contours layer with an elevation_ft (or elevation) field at {limit:g} ft or less",
        layer="contours",
        geometry=site.boundary,
    )


def _elevation_column(
    gdf: gpd.GeoDataFrame, site: Site, declared: Declared, head: str
) -> tuple[str, float] | ReviewFinding:
    """The contours' elevation field and metres per its unit; a finding when there is none, or no unit."""
    if "elevation_ft" in gdf.columns:
        return "elevation_ft", M_PER_FT
    elif "elevation" in gdf.columns:
        unit = declared.contour_vertical_unit or (
            site.dem_vertical_unit.value if site.dem_vertical_unit else None
        )
        if unit is None:
            return _f(
                "not_assessed",
                f"{head}: the contours' elevation field has no unit.",
                layer="contours",
                settle="[declared] contour_vertical_unit (us_ft, ft or m), or an elevation_ft field",
            )
        return "elevation", M_PER_UNIT[unit]
    else:
        return _f(
            "not_assessed",
            f"{head}: the contours layer has no elevation or elevation_ft field.",
            layer="contours",
            settle="an elevation_ft (or elevation) field on the contours",
        )


# --------------------------------------------------------------------------------------------- map


def map_scale(path: Path, dpi: float | None) -> dict[str, Any]:
    """Scale and footprint of a georeferenced GeoTIFF map: pixel size (ft) x print dpi = ft per inch.
    ``dpi`` defaults to the TIFF resolution tags. Keys: ft_per_in (None without a dpi), dpi, pixel_ft,
    bounds, crs.
    """
    import rasterio

    from geosite.units import feet_per_crs_unit

    with rasterio.open(path) as src:
        if src.crs is None or src.transform.is_identity:
            return {"georeferenced": False}
        crs = src.crs
        pixel = abs(src.transform.a)
        bounds = tuple(src.bounds)
        tags = src.tags()
    from pyproj import CRS

    pcrs = CRS.from_user_input(crs)
    pixel_ft = pixel * feet_per_crs_unit(pcrs, f"map {path}")
    if dpi is None and tags.get("TIFFTAG_XRESOLUTION"):
        try:
            res = float(tags["TIFFTAG_XRESOLUTION"])
            unit = tags.get("TIFFTAG_RESOLUTIONUNIT", "2")
            dpi = res * 2.54 if unit.startswith("3") else res if unit.startswith("2") else None
        except ValueError:
            dpi = None
    return {
        "georeferenced": True,
        "pixel_ft": pixel_ft,
        "dpi": dpi,
        "ft_per_in": pixel_ft * dpi if dpi else None,
        "bounds": bounds,
        "crs": pcrs,
    }


def map_finding(site: Site, declared: Declared, item: PlanItem, head: str) -> ReviewFinding:
    """The submitted map's scale and extent against the plan item's (``max_ft_per_in``, ``margin_ft``).

    A GeoTIFF is measured (its pixel size times its print resolution); another file is judged by its
    declared scale.

    Parameters
    ----------
    site : Site
        The submission.
    declared : Declared
        Its declarations (``submitted_map``, ``map_dpi``, ``map_scale_ft_per_in``).
    item : dict
        The plan item: ``max_ft_per_in`` (the smallest scale allowed, feet per inch) and ``margin_ft`` (the
        land around the site the map must show, feet), each optional.
    head : str
        The item's text, the finding message's start.

    Returns
    -------
    ReviewFinding
        Pass, fail, or not assessed with what would settle it.
    """
    path = declared.submitted_map
    # no scale in the item: none judged
    max_ft = float(item.max_ft_per_in) if item.max_ft_per_in is not None else float("inf")
    if path is None:
        return _f(
            "not_assessed",
            f"{head}: no submitted map declared; scale and extent not assessable.",
            settle="[declared] submitted_map (a GeoTIFF with map_dpi, or a PDF with map_scale_ft_per_in)",
        )
    if path.suffix.lower() not in (".tif", ".tiff"):
        return _declared_scale_finding(path, declared, head, max_ft)
    try:
        info = map_scale(path, declared.map_dpi)
    except Exception as exc:  # rasterio errors: an unreadable image
        return _f("fail", f"{head}: {path.name} cannot be read as a GeoTIFF ({exc}).", submitted=path.name)
    if not info["georeferenced"]:
        return _f(
            "fail",
            f"{head}: {path.name} is not georeferenced (no CRS or transform).",
            submitted=path.name,
            settle="a georeferenced GeoTIFF",
        )
    return _geotiff_map_finding(site, declared, info, max_ft=max_ft, margin=item.margin_ft, head=head)


def _geotiff_map_finding(
    site: Site, declared: Declared, info: dict[str, Any], *, max_ft: float, margin: Any, head: str
) -> ReviewFinding:
    """A georeferenced GeoTIFF map (``info``: :func:`map_scale`): its scale (its print resolution's, else
    the declared one) no smaller than 1 in = ``max_ft`` ft, agreeing with a declared scale within 2 %, and
    showing the site and ``margin`` ft around it (None: no margin required).
    """
    path = declared.submitted_map
    assert path is not None  # map_finding judges only a declared map
    vals = {"pixel_ft": info["pixel_ft"], "dpi": info["dpi"], "ft_per_in": info["ft_per_in"]}
    measured, said = info["ft_per_in"], declared.map_scale_ft_per_in
    s = measured if measured is not None else said
    if s is None:
        return _f(
            "not_assessed",
            f"{head}: {path.name} has no print resolution; its scale cannot be told.",
            settle="[declared] map_dpi (the print resolution) or map_scale_ft_per_in",
        )
    problems = []
    if measured is not None and said is not None and abs(said - s) > 0.02 * s:
        problems.append(
            f"declared 1 in = {said:g} ft but {info['pixel_ft']:.3g} ft pixels "
            f"printed at {info['dpi']:g} dpi give 1 in = {s:,.1f} ft"
        )
    if s > max_ft + 1e-6:
        problems.append(f"1 in = {s:,.1f} ft is smaller than the required 1 in = {max_ft:g} ft")
    geometry = None
    if margin is not None:
        short = _left_out(site, info, float(margin))
        if short is not None:
            problems.append(
                f"it does not show the site and {float(margin):g} ft around it "
                f"({short.area * site.ft_per_unit**2:,.0f} sq ft left out)"
            )
            geometry = short
    vals["ft_per_in"] = s
    sub = f"{path.name}: 1 in = {s:,.1f} ft"
    if problems:
        return _f("fail", f"{head}: {'; '.join(problems)}.", submitted=sub, values=vals, geometry=geometry)
    return _f(
        "pass",
        f"{head}: {path.name} at 1 in = {s:,.1f} ft"
        + (f", covering the site and {float(margin):g} ft around it." if margin else "."),
        submitted=sub,
        values=vals,
    )


def _declared_scale_finding(path: Path, declared: Declared, head: str, max_ft: float) -> ReviewFinding:
    """A map that is not a GeoTIFF: its declared scale (ft per inch) against ``max_ft``."""
    s = declared.map_scale_ft_per_in
    if s is None:
        return _f(
            "not_assessed",
            f"{head}: {path.name} is not a GeoTIFF and no scale is declared.",
            settle="[declared] map_scale_ft_per_in, or the map as a georeferenced GeoTIFF with map_dpi",
        )
    ok = s <= max_ft + 1e-9
    return _f(
        "pass" if ok else "fail",
        f"{head}: {path.name} declared at 1 in = {s:g} ft (declared, not measured); "
        + ("at or larger than" if ok else "smaller than")
        + f" 1 in = {max_ft:g} ft.",
        submitted=f"{path.name}, 1 in = {s:g} ft (declared)",
        values={"ft_per_in": s},
    )


def _left_out(site: Site, info: dict[str, Any], margin: float) -> Any:
    """The part of the site and ``margin`` ft around it the map does not show (None: under 1 sq ft)."""
    from shapely.geometry import box

    from geosite.grid import bounds_in as _bounds_in

    b = (
        _bounds_in(info["bounds"], 0.0, info["crs"], site.crs)
        if not info["crs"].equals(site.crs)
        else info["bounds"]
    )
    need = site.boundary.buffer(margin / site.ft_per_unit, join_style="mitre")
    short = need.difference(box(*b))
    return short if short.area * site.ft_per_unit**2 > 1.0 else None
