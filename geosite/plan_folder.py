"""The plan folder: what ``analyze`` proposes, written as a submission ``geosite check`` reads as is.

``analyze`` writes ``OUT/plan/`` (:func:`write_plan_folder`):

- ``site.toml``: the site's name, jurisdiction, CRS, contacts and ``[project]``; ``[dem]`` naming the DEM
  copied beside it; ``[layers]`` naming layers.gpkg; ``[declared]`` filled from the analysis (plan type,
  disturbed area, maintenance and stabilization provisions: the site's own words, else geosite's defaults
  with the profile's numbers cited to their DNR standards; final conditions, the contours layer, the
  existing-site sheet as the submitted map with its scale); ``[[estimate]]``: the plan's pay quantities
  (and unit prices, where given), the estimate ``check`` holds against the layers;
- ``layers.gpkg``: the site's plan (:class:`geosite.plan.Plan`) as layers
  (:mod:`geosite.views.plan_layers`): the controls in ``bmps_points`` / ``_lines`` / ``_polygons`` with
  ``type``, ``practice``, ``standard``, ``install`` and ``remove`` dates, ``disturbance`` with its dates,
  the stockpiles, ``contours`` and the site's other layers, each styled;
- the DEM (copied when it is one file of at most :data:`DEM_COPY_MAX_BYTES`; else the window geosite read,
  written as a GeoTIFF in feet) and the proposed-grade DEM when given;
- the three sheets, when rendered, as the submitted maps: drawn from the same plan, so they show what the
  layers hold (each sheet's PDF carries the plan's fingerprint, which ``check`` compares with the layers').
"""

from __future__ import annotations

import datetime as dt
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from geosite.io.text import toml_string
from geosite.plan.quantity_report import declared_estimate
from geosite.practices.stabilization import Stabilization
from geosite.practices.stockpile_stabilization import StockpileStabilization
from geosite.views.layers import sheet_styles
from geosite.views.plan_layers import write_plan_gpkg

PLAN_DIR = "plan"
#: The largest DEM copied into the plan folder as it is; a larger (or tiled) one is written as the window
#: geosite read for the analysis (a file management limit of geosite, not an ordinance number).
DEM_COPY_MAX_BYTES = 256 * 2**20
#: Whether ``check`` reads ``[declared] contours`` (CONVENTIONS.md; an unknown key is an input error before).
READS_CONTOURS_KEY = True
SHEET_FILES = ("existing_site_map", "construction_plan", "final_conditions")


def write_plan_folder(
    result: Any, out: Path, *, sheets: list[Path] | None = None, scale_ft: float | None = None
) -> list[Path]:
    """Write the submission folder ``out`` (created; its parent is the run's output folder).

    Parameters
    ----------
    result : geosite.pipeline.AnalysisResult
        The analysis of the site.
    out : Path
        The plan folder to write (``OUT/plan``).
    sheets : list of Path, optional
        The rendered sheets (PDF), copied as the submitted maps.
    scale_ft : float, optional
        The sheets' scale, feet per inch.

    Returns
    -------
    list of Path
        The files written, relative to ``out``'s parent.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan = result.plan
    dem = _copy_dem(result, out)
    proposed = _copy_proposed_dem(result.site, out)
    maps = _copy_sheets(sheets, out)
    names = write_plan_gpkg(out / "layers.gpkg", plan, sheet_styles())
    declared = plan_declared(
        result,
        maps,
        scale_ft,
        contours="contours" in names,
        practices={c.practice for c in plan.controls} or None,
    )
    conf = _site_toml(result, declared, dem, proposed)
    soil = (getattr(result.site, "settings", None) or {}).get("soil_loss")
    if soil:  # NR 151.11's numbers the site gave (R, its distribution, C), so check recomputes the same
        conf["soil_loss"] = soil
    q = result.quantities  # the plan's own quantities as its estimate (check holds them against the layers)
    rows = declared_estimate(q.quantities.built, q.estimate) if q is not None else []
    if rows:
        conf["estimate"] = rows
    (out / "site.toml").write_text(_toml(conf), encoding="utf-8")
    files = [
        "site.toml",
        "layers.gpkg",
        *([dem[0]] if dem[0] else []),
        *([proposed] if proposed else []),
        *maps,
    ]
    return [Path(out.name) / name for name in files]


def _copy_proposed_dem(site: Any, out: Path) -> str | None:
    """The proposed-grade DEM copied into the plan folder ``out``: its name there (None without one)."""
    if site.proposed_dem_path is None or not Path(site.proposed_dem_path).is_file():
        return None
    suffix = Path(site.proposed_dem_path).suffix.lower()  # the applicant's name: only a raster's suffix kept
    proposed = "proposed" + (suffix if suffix in (".tif", ".tiff", ".asc") else ".tif")
    shutil.copyfile(site.proposed_dem_path, out / proposed)
    return proposed


def _copy_sheets(sheets: list[Path] | None, out: Path) -> list[str]:
    """The rendered sheets (PDF) copied into the plan folder ``out`` as the submitted maps: their names."""
    maps = []
    for p in sheets or []:
        if p.suffix.lower() == ".pdf" and p.exists():
            shutil.copyfile(p, out / p.name)
            maps.append(p.name)
    return maps


# --------------------------------------------------------------------------------------------- declared


def plan_declared(
    result: Any, maps: list[str], scale_ft: float | None, *, contours: bool, practices: set[str] | None = None
) -> dict[str, Any]:
    """The ``[declared]`` table of the plan: the site's own declarations where it has them, the analysis
    and geosite's defaults (cited, with the profile's numbers) elsewhere.
    """
    site, prof = result.site, result.profile
    mine = _site_declared(site)
    pt = result.evaluation.plan_type
    # the plan type the chapter asks for (a full plan where both hold); none declared where it cannot be told
    out: dict[str, Any] = {} if pt is None else {"plan_type": "statement" if pt == "statement" else "full"}
    area = result.report["disturbed"]["area_sqft"]
    if area is not None:
        out["disturbed_area_sqft"] = round(float(area), 1)
    out["maintenance"] = mine.get("maintenance") or default_maintenance(prof, practices)
    out["stabilization"] = mine.get("stabilization") or default_stabilization(prof)
    out["final_conditions"] = (
        mine.get("final_conditions")
        or next((m for m in maps if m.startswith("final_conditions")), None)
        or (
            "Final conditions: every disturbed polygon stabilized by its `stabilized` date (disturbance "
            "layer); structures, drives "
            "and roads as in their layers; temporary BMPs removed on their `remove` dates (bmps layer)."
        )
    )
    for k in ("slopes_after", "surety", "steep_slope_controls"):
        if mine.get(k):
            out[k] = mine[k]
    if contours:
        # the layer is named `contours`, which check reads by name (CONVENTIONS.md's [declared] contours key
        # is written once review/declared.py knows it: READS_CONTOURS_KEY)
        if READS_CONTOURS_KEY:
            out["contours"] = "contours"
        out["map_contour_interval_ft"] = float(prof.required("terrain", "contour_interval_ft"))
    existing = next((m for m in maps if m.startswith("existing_site_map")), None)
    if existing and scale_ft:
        out["submitted_map"] = existing
        out["map_scale_ft_per_in"] = float(scale_ft)
    soil = soil_loss_to_declare(result)
    if soil is not None:
        out["soil_loss_tons_per_acre"] = soil
    return out


def soil_loss_to_declare(result: Any) -> float | None:
    """The plan's soil loss over its worst 12-month window, t/ac (NR 151.11; the upper bound where R's
    distribution through the year is not given), to 4 significant figures: None where it was not computed
    or the standard does not apply (under one acre: :func:`~geosite.soil_loss.figure.worst_figure`).
    """
    from geosite.soil_loss.data import load_soil_loss_data
    from geosite.soil_loss.figure import worst_figure

    got = worst_figure(result.report.get("soil_loss") or {}, load_soil_loss_data())
    if got is None:
        return None
    value = float(f"{got.high:.4g}")
    return value if value > 0 else None


def _raw_conf(site: Any) -> dict[str, Any]:
    """The site's own site.toml as parsed ({} for a site built in memory): as it was read when the site was
    loaded, never read again (a submission's folder is not opened after it was staged).
    """
    if getattr(site, "conf", None) is not None:
        return dict(site.conf)
    if site.root is None or not (Path(site.root) / "site.toml").is_file():
        return {}
    from geosite.site import read_site_toml

    return read_site_toml(Path(site.root), site.limits)[0]


def _site_declared(site: Any) -> dict[str, Any]:
    d = _raw_conf(site).get("declared") or {}
    return d if isinstance(d, dict) else {}


def default_maintenance(prof: Any, practices: set[str] | None = None) -> str:
    """The maintenance provisions geosite writes (A(3)(e)): the permit's inspection frequency, then the
    profile's ``[maintenance]`` text for each practice on the plan (all of them when ``practices`` is
    None), each cited to its DNR standard (the same table the construction sheet prints).
    """
    every = prof.value("permit", "inspect_every_days")
    rain = prof.value("permit", "inspect_rain_in")
    hours = prof.value("permit", "inspect_after_rain_hours")
    parts = []
    if every is not None and rain is not None:
        within = f", within {hours:g} h of it (NR 216)" if hours is not None else ""
        parts.append(
            f"Every BMP inspected at least every {every:g} days and after each rain of {rain:g} in or more "
            f"({_source(prof, 'permit', 'inspect_rain_in')}){within}; repairs made then."
        )
    table = prof.tables["maintenance"]
    keys = [k for k in table if practices is None or k in practices] or list(table)
    parts += [
        f"{k.replace('_', ' ').capitalize()}: {prof.value('maintenance', k)} "
        f"({_source(prof, 'maintenance', k)})."
        for k in keys
    ]
    parts.append(
        "Maintained by the person responsible for BMP maintenance named in this plan until the site is "
        "stabilized."
    )
    return " ".join(parts)


def _inactive_days(prof: Any) -> float | None:
    """The chapter's inactive-ground stabilization window, days (Grantsburg B(6)(c)[1]: 7), or None."""
    e = prof.days_of(Stabilization.serves[0])
    return None if e is None else float(e.value)


def default_stabilization(prof: Any) -> str:
    """The stabilization provisions geosite writes (A(3)(f), B(7)): the profile's ``[stabilization]`` text,
    cited, and the dates: each disturbance polygon's ``stabilized`` date, each pile's stabilization feature.
    """
    table = prof.tables["stabilization"]
    parts = [
        f"{k.capitalize()}: {prof.value('stabilization', k)} ({_source(prof, 'stabilization', k)})."
        for k in table
    ]
    pile = prof.days_of(StockpileStabilization.serves[0])
    if pile is not None:
        parts.append(
            f"Piles kept more than {pile.value:g} days mulched or tarped ({pile.citation}): the bmps "
            "stabilization feature with the pile's pile_id."
        )
    parts.append(
        "Schedule: each disturbance polygon stabilized by its `stabilized` date (disturbance layer); "
        "temporary BMPs "
        "removed on their `remove` dates (bmps layer)."
    )
    return " ".join(parts)


def _source(prof: Any, table: str, key: str) -> str:
    """A profile entry's citation and source, as a finding cites it."""
    entry = prof.entry(table, key)
    if entry is None:
        return "geosite"
    return "; ".join(str(b) for b in (entry.citation, entry.source) if b) or "geosite"


# --------------------------------------------------------------------------------------------- files


def _copy_dem(result: Any, out: Path) -> tuple[str | None, str | None]:
    """The DEM into the plan folder: copied when it is one file of at most :data:`DEM_COPY_MAX_BYTES`,
    else the window geosite read written as a GeoTIFF, in the DEM's own vertical unit. Returns (its name,
    its vertical unit), (None, None) without a DEM.
    """
    site, dem = result.site, result.dem
    unit = site.dem_vertical_unit.value if site.dem_vertical_unit is not None else None
    src = site.dem_path
    if (
        src is not None
        and Path(src).is_file()
        and Path(src).suffix.lower() in (".tif", ".tiff", ".asc")
        and Path(src).stat().st_size <= DEM_COPY_MAX_BYTES
    ):
        name = "dem" + Path(src).suffix.lower()
        shutil.copyfile(src, out / name)
        return name, unit
    if dem is None:
        return None, None
    import rasterio

    z = dem.elevation_ft / dem.ft_per_vertical_unit  # back to the unit it was read in
    with rasterio.open(
        out / "dem.tif",
        "w",
        driver="GTiff",
        height=dem.shape[0],
        width=dem.shape[1],
        count=1,
        dtype="float32",
        crs=dem.crs,
        transform=dem.transform,
        nodata=-9999.0,
        compress="deflate",
    ) as dst:
        dst.write(np.where(np.isfinite(z), z, -9999.0).astype("float32"), 1)
    return "dem.tif", dem.vertical_unit.value


def _site_toml(
    result: Any, declared: dict[str, Any], dem: tuple[str | None, str | None], proposed: str | None
) -> dict[str, Any]:
    site = result.site
    conf: dict[str, Any] = {}
    raw = _raw_conf(site)
    conf["name"] = site.name
    conf["jurisdiction"] = site.jurisdiction
    conf["crs"] = site.crs.to_string()
    if dem[0]:
        table = {"path": dem[0], "vertical_unit": dem[1]}
        vd = (raw.get("dem") or {}).get("vertical_datum")
        if vd:
            table["vertical_datum"] = vd
        if proposed:
            table["proposed"] = proposed
        conf["dem"] = table
    conf["layers"] = {"path": "layers.gpkg"}
    for who in ("applicant", "maintainer", "preparer"):
        c = raw.get(who) or (
            {k: getattr(getattr(site, who), k) for k in ("name", "address", "phone")}
            if hasattr(site, who)
            else None
        )
        if c:
            conf[who] = {k: v for k, v in c.items() if v is not None}
    project = raw.get("project") or {
        k: v for k, v in vars(site.project).items() if v is not None and not k.startswith("_")
    }
    if project:
        conf["project"] = project
    for k in ("map_margin_ft",):
        if k in raw:
            conf[k] = raw[k]
    conf["declared"] = declared
    if raw.get("revisions"):
        conf["revisions"] = raw["revisions"]
    return conf


def _toml(conf: dict[str, Any]) -> str:
    """A TOML document for a plain table of texts, numbers, booleans, dates, lists and sub-tables (and one
    array of tables).
    """
    lines = [f"{k} = {_tv(v)}" for k, v in conf.items() if not isinstance(v, dict) and not _is_aot(v)]
    for k, v in conf.items():
        if isinstance(v, dict):
            lines.append(f"\n[{k}]")
            lines += [f"{kk} = {_tv(vv)}" for kk, vv in v.items() if vv is not None]
    for k, v in conf.items():
        if _is_aot(v):
            for t in v:
                lines.append(f"\n[[{k}]]")
                lines += [f"{kk} = {_tv(vv)}" for kk, vv in t.items()]
    return "\n".join(lines) + "\n"


def _is_aot(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(t, dict) for t in v)


def _tv(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_tv(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_tv(x) for x in v) + "]"
    if isinstance(v, dt.datetime):
        return v.isoformat()
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
    if isinstance(v, int | np.integer):
        return str(int(v))
    if isinstance(v, np.floating):
        return _tv(float(v))
    return _tv(str(v))
