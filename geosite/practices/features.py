"""One per-feature engine: every requirement written ``for_each`` feature of a layer (each stockpile, each
inlet, each drive) is decided for each feature by its own conditions, whatever the practice that serves
it.

A feature's measures (:data:`geosite.rules.registry.FEATURE_MEASURES`) are computed when a condition first
reads them and kept: attributes of the layer (a pile's ``days``, ``height_ft``, ``volume_cy``), its
footprint, whether the plan stabilizes it, and distances. A distance says what it is measured to (``to``:
layer names, ``dem_channels`` for the channels traced on the DEM) and how (``along``): ``straight``, the
shortest line from the feature's outline to a feature of those layers lying downslope of it, or
``flow_path``, the drainage length along the D8 flow path from the feature's downslope edge to the first
feature of those layers it reaches (geosite.controls.flow_path_distance). A condition names them:

.. code-block:: toml

    conditions = [{ measure = "downslope_distance_ft", to = ["roads"], along = "flow_path", op = "<",
                    threshold = 25, unit = "ft", text = "drainage length to a roadway under 25 ft" }]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from geosite.io.output import py_scalar

if TYPE_CHECKING:
    import geopandas as gpd

    from geosite.practices.context import Context
    from geosite.rules import Requirement
    from geosite.rules.model import Condition

#: how a distance is measured: the shortest line, or the drainage length along the flow path
ALONG = ("straight", "flow_path")
#: the layer key of the drainage channels traced on the DEM (beside the drawn layers)
DEM_CHANNELS = "dem_channels"


@dataclass(frozen=True)
class Nearest:
    """The nearest feature of some layers from one feature: its distance, ft (``inf``: none within reach;
    None: not measurable), its layer and id (None when there is none).
    """

    distance_ft: float | None
    layer: str | None = None
    id: Any = None


@dataclass(frozen=True)
class FeatureDecision:
    """Whether a ``for_each`` requirement applies to one feature: its id and row, ``applies`` (None: not
    decided), and ``why`` (its conditions, in words; "" for a requirement with none).
    """

    id: Any
    index: int
    applies: bool | None
    why: str


@dataclass
class FeatureMeasures(Mapping[str, Any]):
    """One feature's measures, computed when first read (a Mapping for the rules engine's conditions;
    :meth:`read` for a condition with ``to`` and ``along``).
    """

    features: Features
    index: int
    _kept: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        if key.endswith(".why"):
            raise KeyError(key)
        if key not in self._kept:
            self._kept[key] = self.features.measure(self.index, key, None)
        return self._kept[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kept)

    def __len__(self) -> int:
        return len(self._kept)

    def read(self, cond: Condition) -> Any:
        """The value a condition reads: its ``measure``, with its ``to`` and ``along`` where given."""
        key = cond.measure
        if cond.to is None and cond.along is None:
            return self[key]
        tag = f"{key}[{','.join(cond.to or ())};{cond.along or 'straight'}]"
        if tag not in self._kept:
            self._kept[tag] = self.features.measure(self.index, key, cond)
        return self._kept[tag]


class Features:
    """The features of one layer and their measures (see the module notes), for the practices that serve
    requirements written ``for_each`` feature of it. Kept on the context: one per layer per site.
    """

    def __init__(self, ctx: Context, layer: str) -> None:
        self.ctx, self.layer = ctx, layer
        self.frame: gpd.GeoDataFrame | None = ctx.site.layer(layer)
        n = 0 if self.frame is None else len(self.frame)
        self.ids = [
            py_scalar(self.frame["id"].iloc[i])
            if self.frame is not None and "id" in self.frame.columns
            else i + 1
            for i in range(n)
        ]
        self.values = [FeatureMeasures(self, i) for i in range(n)]
        #: per feature, what the practices add for the report (``report.json`` ``stockpiles`` ...)
        self.rows: list[dict[str, Any]] = [{"id": fid} for fid in self.ids]

    def decide(self, q: Requirement) -> list[FeatureDecision]:
        """Requirement ``q`` decided for each feature by its conditions (every feature where it has none)."""
        out = []
        for i, fid in enumerate(self.ids):
            t = self.ctx.applies_to(q, self.values[i])
            out.append(FeatureDecision(fid, i, True if t is None else t.met, "" if t is None else t.message))
        return out

    def measure(self, i: int, key: str, cond: Condition | None) -> Any:
        """Feature ``i``'s measure ``key`` (``cond``: the condition's ``to`` and ``along`` for a distance)."""
        if self.frame is None:
            return None
        if key in ("days", "height_ft", "width_ft"):
            return _number(self.frame, i, key)
        if key == "area_sqft":
            return float(self.frame.geometry.iloc[i].area) * self.ctx.site.ft_per_unit**2
        if key == "volume_cy":
            v = _number(self.frame, i, "volume_cy")
            h = _number(self.frame, i, "height_ft")
            return (
                v if v is not None else None if h is None else self.measure(i, "area_sqft", None) * h / 27.0
            )
        if key == "stabilized":
            return self.stabilized(i)
        if key == "downslope_distance_ft":
            to = tuple((cond.to if cond else None) or _default_to(self.ctx))
            return self.nearest(i, to, (cond.along if cond else None) or "straight").distance_ft
        if key == "drainage_acres":
            return self.drainage_acres(i)
        raise KeyError(f"no per-feature measure {key!r} of layer {self.layer}")

    def stabilized(self, i: int) -> bool:
        """Whether the plan stabilizes feature ``i``: its ``stabilization`` attribute, or a submitted cover
        (mulch, seed, mat, tarp) tied to it by its ``pile_id``.
        """
        said = text_at(self.frame, i, "stabilization")
        return bool(said) or bool(self.tied(i, "cover"))

    def tied(self, i: int, *families: str) -> list[Any]:
        """The ids of the submitted features of ``families`` tied to feature ``i`` (their ``pile_id``)."""
        got = self.ctx.submitted(*families)
        if got is None or "pile_id" not in got.columns:
            return []
        return [
            py_scalar(b)
            for b, p in zip(got["id"], got["pile_id"], strict=True)
            if py_scalar(p) == self.ids[i]
        ]

    def nearest(self, i: int, to: tuple[str, ...], along: str) -> Nearest:
        """The nearest feature of the layers ``to`` downslope of feature ``i``, measured ``along`` (see the
        module notes); its distance None where it cannot be measured (no DEM).
        """
        from geosite.controls import flow_path_distance, is_downslope
        from geosite.grid import geom_to_crs

        flow, frame = self.ctx.flow, self.frame
        if flow is None or frame is None:
            return Nearest(None)
        pile = geom_to_crs(frame.geometry.iloc[i], frame.crs, flow.dem.crs)
        trace = float(self.ctx.control("stockpile_trace_ft"))
        reach = float(self.ctx.control("stockpile_reach_tolerance_ft"))
        best = Nearest(math.inf)
        for layer, fid, geom in self._targets(to):
            g = geom_to_crs(geom, self.ctx.site.crs, flow.dem.crs)
            if along == "flow_path":
                d = flow_path_distance(pile, g, flow.dem, flow.fg, trace_ft=trace, reach_tolerance_ft=reach)
            else:
                down = is_downslope(pile, g, flow.dem, flow.fg, trace_ft=trace, reach_tolerance_ft=reach)
                d = float(pile.distance(g)) * flow.dem.ft_per_unit if down.value else math.inf
            if d < (best.distance_ft or math.inf):
                best = Nearest(d, layer, fid)
        return best

    def _targets(self, to: tuple[str, ...]) -> list[tuple[str, Any, Any]]:
        """The features of the layers ``to`` (site CRS) as (layer, id, geometry); the channels traced on the
        DEM for ``dem_channels``.
        """
        out: list[tuple[str, Any, Any]] = []
        for name in to:
            gdf = self.ctx.m.layers.get("channels") if name == DEM_CHANNELS else self.ctx.site.layer(name)
            if gdf is None:
                continue
            ids = gdf["id"] if "id" in gdf.columns else range(1, len(gdf) + 1)
            out += [
                (name, py_scalar(k), g)
                for k, g in zip(ids, gdf.geometry, strict=True)
                if g is not None and not g.is_empty
            ]
        return out

    def drainage_acres(self, i: int) -> float | None:
        """The land draining to feature ``i``'s cell on the flow grid, acres (None without a DEM)."""
        from geosite.grid import geom_to_crs, rowcol
        from geosite.units import SQFT_PER_ACRE

        flow, frame = self.ctx.flow, self.frame
        if flow is None or frame is None:
            return None
        p = geom_to_crs(frame.geometry.iloc[i].representative_point(), frame.crs, flow.dem.crs)
        r, c = rowcol(flow.dem, np.array([p.x]), np.array([p.y]))
        if not (0 <= r[0] < flow.dem.shape[0] and 0 <= c[0] < flow.dem.shape[1]):
            return None
        return float(flow.fg.accumulation_sqft()[r[0], c[0]]) / SQFT_PER_ACRE


def features_of(ctx: Context, layer: str) -> Features:
    """The features of ``layer`` with their measures, for the site of ``ctx`` (one per layer per site, kept on
    the context).
    """
    key = f"features:{layer}"
    if key not in ctx.kept:
        ctx.kept[key] = Features(ctx, layer)
    got: Features = ctx.kept[key]
    return got


def _default_to(ctx: Context) -> tuple[str, ...]:
    """The layers a distance condition without ``to`` is measured to: the pile setback requirement's, else
    every road and water.
    """
    for q in ctx.profile.requirements:
        if q.for_each == "stockpiles" and "to" in q.params:
            return tuple(q.params["to"])
    return ("roads", "lakes", "streams", "wetlands", "channels", DEM_CHANNELS)


def _number(gdf: gpd.GeoDataFrame, i: int, col: str) -> float | None:
    """A numeric attribute of row ``i`` (None when absent or missing)."""
    from geosite.controls import number_at

    return number_at(gdf, i, col)


def text_at(gdf: gpd.GeoDataFrame | None, i: int, col: str) -> str | None:
    """A text attribute of row ``i`` (None when absent or empty)."""
    if gdf is None or col not in gdf.columns:
        return None
    v = gdf[col].iloc[i]
    if v is None or (isinstance(v, float) and math.isnan(v)) or not str(v).strip():
        return None
    return str(v).strip()
