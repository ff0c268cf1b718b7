"""C by cover by day: the cover schedule of a site (what covers which ground from which day), and the C
of every cell in every stretch of days between the schedule's dates.

A :class:`CoverSchedule` is a list of :class:`CoverSpan` (geometry, cover kind, from, to), built by one
function from the site's layers (:func:`cover_schedule`): each disturbance polygon is ``bare`` from its
``start`` until it is stabilized, then ``final``; each dated ``stabilization`` or ``erosion_mat`` polygon
of the plan's controls (:class:`DatedControl`: the plan object's, or the site's ``bmps`` layer) is its
method (mulch, seed, sod, tarp, erosion_mat) from its ``install`` until its ``remove``. On a day a cell
takes the cover of the span over it that began last (grading after a mulch makes the ground bare again;
a mulch laid on graded ground covers it); a cell under no span that day is outside the construction
period (not counted).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from geosite.site.layer_checks import date_value, text_value

if TYPE_CHECKING:
    from geosite.site import Site

#: the cover kinds a schedule names (C of each: wisconsin.toml [cover.*], site.toml [soil_loss.c])
COVERS = ("bare", "mulch", "seed", "sod", "tarp", "erosion_mat", "final")
#: the bmps layer's stabilization ``method`` words, by cover kind
METHOD_COVER = {
    "mulch": "mulch",
    "mulching": "mulch",
    "seed": "seed",
    "seeding": "seed",
    "temporary seeding": "seed",
    "sod": "sod",
    "tarp": "tarp",
    "erosion_mat": "erosion_mat",
    "erosion mat": "erosion_mat",
}
#: an open end (a span that never ends: final cover)
FOREVER = dt.date(9999, 12, 31)


@dataclass(frozen=True)
class CoverSpan:
    """``cover`` over ``geometry`` (the grid's CRS when rasterised) on the days ``[start, stop)``
    (``stop`` None: from ``start`` on); ``layer`` and ``feature_id`` say which feature it comes from,
    ``phase`` the disturbance phase.
    """

    geometry: Any
    cover: str
    start: dt.date
    stop: dt.date | None
    layer: str = ""
    feature_id: Any = None
    phase: str | None = None


@dataclass(frozen=True)
class CoverSchedule:
    """The cover of the ground by day: spans in the order given, the CRS of their geometries, and notes on
    what could not be placed in time.
    """

    spans: tuple[CoverSpan, ...]
    crs: Any = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def first_day(self) -> dt.date | None:
        """The first disturbance: the earliest start of a ``bare`` span."""
        days = [s.start for s in self.spans if s.cover == "bare"]
        return min(days) if days else None

    def final_day(self) -> dt.date | None:
        """Final stabilization: the last day any ground is bare (None when some never stops being bare)."""
        bare = [s for s in self.spans if s.cover == "bare"]
        if not bare or any(s.stop is None for s in bare):
            return None
        return max(s.stop for s in bare if s.stop is not None) - dt.timedelta(days=1)


def _column(gdf: Any, name: str) -> list[Any]:
    """A column's values, or Nones."""
    return list(gdf[name]) if name in gdf.columns else [None] * len(gdf)


def _disturbance_spans(site: Site, stabilize_days: int | None) -> tuple[list[CoverSpan], list[str]]:
    """Each disturbance polygon bare from its start until stabilized, then final."""
    gdf = site.layer("disturbance")
    spans: list[CoverSpan] = []
    notes: list[str] = []
    if gdf is None:
        return spans, ["no disturbance layer: nothing is disturbed"]
    for fid, geom, phase, s, e, stab in zip(
        gdf["id"],
        gdf.geometry.values,
        _column(gdf, "phase"),
        _column(gdf, "start"),
        _column(gdf, "end"),
        _column(gdf, "stabilized"),
        strict=True,
    ):
        start, end, stabilized = date_value(s), date_value(e), date_value(stab)
        if start is None:
            notes.append(f"disturbance {fid}: no start date, so its ground cannot be placed in the schedule")
            continue
        until = (
            stabilized
            if stabilized is not None
            else (end + dt.timedelta(days=stabilize_days or 0) if end is not None else None)
        )
        if until is not None and end is not None:
            until = max(until, end)
        label = None if phase is None or str(phase) == "nan" else str(phase)
        stop = None if until is None else until + dt.timedelta(days=1)
        spans.append(CoverSpan(geom, "bare", start, stop, "disturbance", fid, label))
        if stop is None:
            notes.append(f"disturbance {fid}: no end or stabilized date: bare to the end of every window")
        else:
            spans.append(CoverSpan(geom, "final", stop, None, "disturbance", fid, label))
    return spans, notes


@dataclass(frozen=True)
class DatedControl:
    """A control as the cover schedule reads it: its id, geometry, practice (the ``bmps`` ``type``), its
    ``method`` (mulch, seed, sod, tarp for a stabilization) and its install and remove dates (None: not
    given).
    """

    id: Any
    geometry: Any
    practice: str
    method: str | None
    install: dt.date | None
    remove: dt.date | None


def bmps_controls(site: Site) -> list[DatedControl]:
    """The site's ``bmps`` layer as :class:`DatedControl` (a notebook's site without a plan)."""
    gdf = site.layer("bmps")
    if gdf is None or not len(gdf):
        return []
    return [
        DatedControl(fid, geom, str(kind), text_value(m), date_value(i), date_value(r))
        for fid, geom, kind, m, i, r in zip(
            gdf["id"],
            gdf.geometry.values,
            _column(gdf, "type"),
            _column(gdf, "method"),
            _column(gdf, "install"),
            _column(gdf, "remove"),
            strict=True,
        )
    ]


def _cover_spans(controls: list[DatedControl]) -> tuple[list[CoverSpan], list[str]]:
    """Each dated cover control (stabilization, erosion mat), its method from install to remove."""
    spans: list[CoverSpan] = []
    notes: list[str] = []
    from geosite.practices import registry

    covers = registry.catalogue().of("cover")
    for c in controls:
        if c.practice not in covers:  # the controls of the cover practices (mulch, seed, mat ...)
            continue
        kind = c.practice
        if c.geometry is None or c.geometry.geom_type not in ("Polygon", "MultiPolygon"):
            notes.append(f"bmps {c.id} ({kind}): not a polygon, so the ground it covers is not known")
            continue
        if c.install is None:
            notes.append(f"bmps {c.id} ({kind}): no install date, so it is not placed in the schedule")
            continue
        # a practice that is its cover (the mat) names it; mulch, seed, sod or tarp is the control's method
        word = kind if kind in METHOD_COVER else str(c.method or "").strip().lower()
        cover = METHOD_COVER.get(word, word or "unknown")
        stop = None if c.remove is None else c.remove + dt.timedelta(days=1)
        spans.append(CoverSpan(c.geometry, cover, c.install, stop, "bmps", c.id))
    return spans, notes


def cover_schedule(
    site: Site, stabilize_days: int | None = None, controls: list[DatedControl] | None = None
) -> CoverSchedule:
    """The site's cover schedule from its ``disturbance`` layer and the plan's cover ``controls`` (site CRS;
    None: the site's ``bmps`` layer): see the module docstring. ``stabilize_days`` (days) is how long
    ground stays bare after a phase's ``end`` when it gives no ``stabilized`` date (the chapter's
    inactive-ground window; 0 when None).
    """
    spans, notes = _disturbance_spans(site, stabilize_days)
    more, more_notes = _cover_spans(bmps_controls(site) if controls is None else controls)
    return CoverSchedule(tuple(spans + more), site.crs, tuple(notes + more_notes))


@dataclass(frozen=True, eq=False)
class CoverTimeline:
    """The C of each counted cell in each stretch of days between the schedule's dates.

    ``breaks`` are the n + 1 boundaries of n stretches ``[breaks[i], breaks[i+1])``; ``c[i, j]`` the C of
    cell ``cells[j]`` (flat index on the grid) in stretch i: NaN where its cover has no known C, 0 where no
    span covers it (outside the construction period, ``active`` False); ``cover[i, j]`` the index in
    ``covers`` of its cover (-1 none).
    """

    breaks: tuple[dt.date, ...]
    cells: np.ndarray
    c: np.ndarray
    active: np.ndarray
    cover: np.ndarray
    covers: tuple[str, ...]
    span_masks: tuple[np.ndarray, ...]


def _span_masks(schedule: CoverSchedule, shape: tuple[int, int], transform: Any) -> list[np.ndarray]:
    """Each span's cells on the grid (the grid's one rasterize rule)."""
    from geosite.grid import rasterize

    return [rasterize(s.geometry, shape, transform).reshape(-1) for s in schedule.spans]


def cover_timeline(
    schedule: CoverSchedule,
    shape: tuple[int, int],
    transform: Any,
    c_values: Mapping[str, float | None],
) -> CoverTimeline:
    """The schedule on a grid of ``shape`` / ``transform`` (its geometries in the grid's CRS), with the C
    of each cover kind from ``c_values`` (None or absent: not known, NaN).
    """
    masks = _span_masks(schedule, shape, transform)
    union = np.zeros(shape[0] * shape[1], bool)
    for mk in masks:
        union |= mk
    cells = np.flatnonzero(union)
    spans = schedule.spans
    dates = {s.start for s in spans} | {s.stop for s in spans if s.stop is not None}
    breaks = tuple(sorted(dates | {FOREVER}))
    covers = tuple(dict.fromkeys(s.cover for s in spans))
    n = len(breaks) - 1
    cover = np.full((n, cells.size), -1, dtype=np.int16)
    order = sorted(range(len(spans)), key=lambda i: spans[i].start)  # a later start covers an earlier one
    sub = [mk[cells] for mk in masks]
    for i in range(n):
        day = breaks[i]
        for k in order:
            s = spans[k]
            if s.start <= day and (s.stop is None or day < s.stop):
                cover[i][sub[k]] = covers.index(s.cover)
    table = np.array([np.nan if c_values.get(cv) is None else float(c_values[cv] or 0.0) for cv in covers])
    c = np.where(cover >= 0, table[np.clip(cover, 0, None)] if covers else 0.0, 0.0)
    return CoverTimeline(breaks, cells, c, cover >= 0, cover, covers, tuple(sub))
