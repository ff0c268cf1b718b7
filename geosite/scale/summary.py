"""A batch's summary: one row per site (summary.csv and summary.gpkg, cells written safe for a spreadsheet),
the record of what geosite wrote there (so a re-run replaces only its own files), and the verdicts counted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


#: Columns of summary.csv / summary.gpkg, in order.
SUMMARY_COLUMNS = (
    "site",
    "name",
    "status",
    "action",
    "error",
    "jurisdiction",
    "plan_type",
    "applies",
    "site_acres",
    "disturbed_acres",
    "max_at_one_time_acres",
    "fail_findings",
    "findings",
    "verdict",
    "seconds",
    "folder",
    "output",
)


#: The summaries batch writes in OUT, and the record of their SHA-256 that lets a later batch replace them.
SUMMARIES = ("summary.csv", "summary.gpkg")


SUMMARY_RECORD = "geosite-batch.json"


def _summary_record(out: Path) -> dict[str, set[str]]:
    """Each summary's name -> the SHA-256s batch may find it with (two while one is being replaced)."""
    try:
        rec = json.loads((out / SUMMARY_RECORD).read_text(encoding="utf-8"))
        return {
            k: {v} if isinstance(v, str) else {x for x in v if isinstance(x, str)}
            for k, v in rec["summaries"].items()
            if isinstance(k, str) and isinstance(v, (str, list))
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _write_record(out: Path, shas: dict[str, Any]) -> None:
    rec = out / f".{SUMMARY_RECORD}.tmp-{os.getpid()}"
    rec.write_text(
        json.dumps({"generator": "geosite batch", "summaries": shas}, indent=2, default=sorted) + "\n",
        encoding="utf-8",
    )
    os.replace(rec, out / SUMMARY_RECORD)


def check_summaries(out: Path) -> None:
    """Refuse (:class:`~geosite.errors.OutputError`) a batch whose OUT holds a summary.csv or
    summary.gpkg geosite did not write, or that changed since (its SHA-256 is not the one recorded in
    :data:`SUMMARY_RECORD` when batch wrote it): batch replaces only its own summaries.
    """
    from geosite.errors import OutputError
    from geosite.io.output import file_sha256

    record = _summary_record(out)
    for name in SUMMARIES:
        p = out / name
        if not (p.exists() or p.is_symlink()):
            continue
        try:
            own = not p.is_symlink() and p.is_file() and file_sha256(p) in record.get(name, set())
        except OSError as exc:
            raise OutputError(
                f"{p}: cannot be read to tell whether batch wrote it ({exc.strerror or exc}); "
                "move it or choose another --out"
            ) from exc
        if not own:
            raise OutputError(
                f"{p}: exists and is not the summary geosite batch wrote there (or it changed since); "
                "batch replaces only its own summaries: move it or choose another --out"
            )


def write_summary(rows: Sequence[dict[str, Any]], out: Path) -> list[Path]:
    """The summaries: summary.csv (every row) and summary.gpkg (layer ``sites``: the rows with a site
    boundary, in the sites' common CRS, or EPSG:4326 when they differ), each replaced atomically, their
    SHA-256 recorded in :data:`SUMMARY_RECORD` (so the next batch knows them for its own).
    """
    import geopandas as gpd
    import pandas as pd
    import shapely
    from pyproj import CRS

    from geosite.io.output import file_sha256
    from geosite.io.spreadsheet import safe_frame

    df = pd.DataFrame([{k: r.get(k) for k in SUMMARY_COLUMNS} for r in rows], columns=list(SUMMARY_COLUMNS))
    csv = out / "summary.csv"
    tmp = out / f".summary.csv.tmp-{os.getpid()}"
    safe_frame(df).to_csv(tmp, index=False)  # no cell a spreadsheet would run as a formula

    crss = {r["crs"] for r in rows if r.get("boundary_wkb") is not None and r.get("crs")}
    target = CRS.from_wkt(next(iter(crss))) if len(crss) == 1 else CRS.from_epsg(4326)
    geoms = []
    for r in rows:
        g = shapely.from_wkb(r["boundary_wkb"]) if r.get("boundary_wkb") is not None else None
        if g is not None and r.get("crs") and not CRS.from_wkt(r["crs"]).equals(target):
            g = gpd.GeoSeries([g], crs=CRS.from_wkt(r["crs"])).to_crs(target).iloc[0]
        geoms.append(g)
    gdf = gpd.GeoDataFrame(
        df.assign(applies=df["applies"].map(lambda v: None if v is None else str(v).lower())),
        geometry=geoms,
        crs=target,
    )
    gpkg = out / "summary.gpkg"
    tmp_g = out / f".summary.tmp-{os.getpid()}.gpkg"
    gdf.to_file(tmp_g, layer="sites", driver="GPKG", engine="pyogrio")
    new = {"summary.csv": file_sha256(tmp), "summary.gpkg": file_sha256(tmp_g)}
    # a kill between the two swaps leaves summaries the record still knows: old and new both listed
    old = _summary_record(out)
    _write_record(out, {k: sorted(old.get(k, set()) | {v}) for k, v in new.items()})
    os.replace(tmp, csv)
    os.replace(tmp_g, gpkg)
    _write_record(out, new)
    return [csv, gpkg]


def summary_counts(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many sites were analysed, skipped, kept, failed."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["action"]] = counts.get(r["action"], 0) + 1
    return counts
