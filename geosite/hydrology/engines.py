"""Interchangeable flow-accumulation engines, to check geosite's own routing against independent ones.

``get_engine("native")`` is geosite's (:mod:`geosite.hydrology`, always available). The others wrap
libraries that are optional and imported only when asked for: ``"topotoolbox"`` (fill + FlowObject,
carves through filled depressions; float32 accumulation, exact only to 2**24 cells), ``"pyflwdir"``
(``from_dem``: known to send inclined planes along their lowest edge, DESIGN.md) and ``"richdem"``
(does not install on Python 3.10+; kept so the comparison runs wherever it does). Each returns
contributing *cells* (the cell itself included) as float64, NaN on nodata, so results compare directly.
Nothing is hand-written here beyond the adapters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from geosite.errors import InputError

if TYPE_CHECKING:
    from geosite.grid import Dem


@dataclass(frozen=True)
class FlowEngine:
    """A named flow-accumulation engine.

    Attributes
    ----------
    name : "native", "topotoolbox", "pyflwdir" or "richdem".
    accumulation_cells : function Dem -> float64 array of contributing cells (NaN on nodata).
    """

    name: str
    accumulation_cells: Callable[[Dem], np.ndarray]


def _native(dem: Dem) -> np.ndarray:
    from geosite.hydrology import flow_accumulation

    return flow_accumulation(dem, "cells")


def _topotoolbox(dem: Dem) -> np.ndarray:
    import topotoolbox as tt

    if abs(dem.cell_x_ft - dem.cell_y_ft) > 1e-9 * dem.cell_x_ft:
        raise InputError("topotoolbox engine: needs square cells")
    g = tt.GridObject()
    g.z = np.ascontiguousarray(dem.elevation_ft, dtype=np.float32)
    g.cellsize = dem.cell_x_ft
    fd = tt.FlowObject(g)  # it fills (and carves) itself: filling first would fill twice
    got = fd.flow_accumulation()  # once: getattr's default would run it a second time
    acc = np.asarray(getattr(got, "z", got), dtype=np.float64)
    acc[~dem.valid] = np.nan
    return acc


def _pyflwdir(dem: Dem) -> np.ndarray:
    import pyflwdir

    z = np.where(dem.valid, dem.elevation_ft, -9999.0).astype(np.float32)
    flw = pyflwdir.from_dem(z, nodata=-9999.0, transform=dem.transform, latlon=False)
    acc = flw.accuflux(np.ones(dem.shape, dtype=np.float64)).astype(np.float64)
    acc[~dem.valid] = np.nan
    return acc


def _richdem(dem: Dem) -> np.ndarray:  # pragma: no cover - richdem does not install on Python 3.10+
    import richdem as rd

    z = rd.rdarray(np.where(dem.valid, dem.elevation_ft, -9999.0), no_data=-9999.0)
    z.geotransform = dem.transform.to_gdal()
    rd.FillDepressions(z, epsilon=True, in_place=True)
    acc = np.asarray(rd.FlowAccumulation(z, method="D8"), dtype=np.float64)
    acc[~dem.valid] = np.nan
    return acc


ENGINES: dict[str, tuple[str, Callable[[Dem], np.ndarray]]] = {
    "native": ("geosite", _native),
    "topotoolbox": ("topotoolbox", _topotoolbox),
    "pyflwdir": ("pyflwdir", _pyflwdir),
    "richdem": ("richdem", _richdem),
}


def get_engine(name: str) -> FlowEngine:
    """The engine called ``name``; an unknown name lists the valid ones, a missing library says so
    (:class:`ImportError`).
    """
    try:
        module, fn = ENGINES[name]
    except KeyError:
        raise InputError(f"unknown flow engine {name!r}; use one of: {', '.join(ENGINES)}") from None
    if name != "native":
        import importlib.util

        if importlib.util.find_spec(module) is None:
            raise ImportError(f"flow engine {name!r} needs the {module!r} package, which is not installed")
    return FlowEngine(name, fn)


def available_engines() -> list[str]:
    """Names of the engines whose library is importable here."""
    import importlib.util

    return [
        n for n, (mod, _) in ENGINES.items() if n == "native" or importlib.util.find_spec(mod) is not None
    ]
